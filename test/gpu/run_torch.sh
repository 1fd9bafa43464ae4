#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The PyTorch custom-operator example (examples/torch_custom_op) on a machine with an NVIDIA GPU,
# PyTorch with CUDA and Triton 3.6: builds libtkrt.so in build/gpu-triton (run_triton.sh's build,
# incremental after it), then runs examples/torch_custom_op/demo.py with it (TKRT_LIBRARY): a
# Triton-compiled add and row softmax launched by tkrt.triton as torch.library custom operators,
# checked by torch.library.opcheck, eager against torch, under torch.compile(fullgraph=True), in a
# torch.cuda.graph capture replayed on new inputs and under torch.compile(mode="reduce-overhead"),
# each bit-identical to eager; then test/gpu/torch_host_reads.py (PyTorch tensors on the host
# backend) on both launch paths. Prints "TORCH: PASS" (exit 0) or "TORCH: FAIL" (exit 1). Expected
# to take about a minute after the build (two Inductor compilations); bounded by
# TKRT_TORCH_BUDGET_S (default 170 s, build included). Writes a copy of everything to
# $OUT/torch.log when OUT is set.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build/gpu-triton"
jobs="${TKRT_GPU_JOBS:-$(nproc 2>/dev/null || echo 8)}"
budget="${TKRT_TORCH_BUDGET_S:-170}"

if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT"
  exec > >(tee "$OUT/torch.log") 2>&1
fi
fail() { echo "TORCH: FAIL ($1)"; exit 1; }

python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__,
  "cuda", torch.cuda.is_available())' || fail "PyTorch and Triton are needed"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTKRT_BACKEND_HIP=OFF -DTKRT_BUILD_XLA=ON \
  -DTKRT_WARNINGS_AS_ERRORS=ON -DPython3_EXECUTABLE="$(command -v python3)" ${TKRT_GPU_CMAKE_ARGS:-} > "$build/torch-configure.log" 2>&1 \
  || { cat "$build/torch-configure.log"; fail "configure"; }
cmake --build "$build" -j "$jobs" --target tkrt tkrt_python_native triton_desc_host > "$build/torch-build.log" 2>&1 \
  || { tail -n 40 "$build/torch-build.log"; fail "build"; }

export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" TKRT_LIBRARY="$build/libtkrt.so.0"
# tkrt.triton's native launcher, built for this python3 (TKRT_PYTHON_LAUNCH=native: no fallback).
export TKRT_NATIVE_MODULE="$(ls "$build"/python/tkrt/_native*.so 2>/dev/null | head -n 1)" TKRT_PYTHON_LAUNCH=native
export PYTHONUNBUFFERED=1
left=$((budget - SECONDS))
[[ "$left" -gt 20 ]] || fail "no time left after the build ($SECONDS s of $budget)"
timeout --kill-after=5 "$left" python3 "$root/examples/torch_custom_op/demo.py"
rc=$?
[[ "$rc" == 124 ]] && fail "demo.py timed out after $left s"
[[ "$rc" == 0 ]] || fail "demo.py exit $rc"
# tkrt.triton's PyTorch readers on the host backend (issue 25: a descriptor over a torch tensor
# read sized, meta tensors refused), on the native and the ctypes launch path.
for path in native ctypes; do
  TKRT_PYTHON_LAUNCH=$path timeout 60 python3 "$root/test/gpu/torch_host_reads.py" \
    "$build/test/triton/triton_desc_host.so" || fail "torch_host_reads.py on the $path path"
done
echo "TORCH: PASS"
