#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks tkrt on Triton's own compile output on a machine with an NVIDIA GPU, Triton 3.6, PyTorch
# and numpy: builds tkrt in build/gpu-triton (Release, HIP off), runs the host-side Triton tests,
# then test/gpu/triton_gpu_check.py: add and three matmul variants compiled there with
# triton.compile into a private Triton cache, launched by Triton's own launcher and by tkrt (the C
# example and the CLI; cubin and PTX alone), outputs bit-identical to Triton's, an autotuned call
# over the three matmul variants; then the Python path (tkrt.triton over libtkrt.so) on PyTorch,
# CuPy and JAX arrays, under torch.cuda.graph capture and autotuned; then bench/triton_launch.py,
# the launch-overhead comparison (its last line: "triton_launch: tkrt/triton = ...x, tkrt/raw =
# ...x"). Prints "run_triton: all checks passed" and exits 0 on success.
# Writes a copy of everything to $OUT/triton.log when OUT is set.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build/gpu-triton"
jobs="${TKRT_GPU_JOBS:-$(nproc 2>/dev/null || echo 8)}"

if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT"
  exec > >(tee "$OUT/triton.log") 2>&1
fi

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTKRT_BACKEND_HIP=OFF -DTKRT_BUILD_XLA=ON \
  -DTKRT_WARNINGS_AS_ERRORS=ON -DPython3_EXECUTABLE="$(command -v python3)" ${TKRT_GPU_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$jobs" --target tkrt tkrt_cli tkrt_python_native triton_add triton_test tkrt_xla \
  triton_add_host_256 triton_add_host_512 triton_add_host_1024 >/dev/null
# The loader and CLI tests (host backend), as in CI; they read test/data/triton-3.6.
ctest --test-dir "$build" -R '^(triton\.|example\.triton_add)' --output-on-failure
"$build/tools/tkrt" info | sed -n '1,12p'
# tkrt.triton runs on libtkrt.so alone (TKRT_LIBRARY); the XLA part of the package on libtkrt_xla.so.
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" TKRT_XLA_LIBRARY="$build/xla/libtkrt_xla.so" \
  TKRT_LIBRARY="$build/libtkrt.so.0" \
  TKRT_NATIVE_MODULE="$(ls "$build"/python/tkrt/_native*.so 2>/dev/null | head -n 1)" TKRT_PYTHON_LAUNCH=native
python3 "$here/triton_gpu_check.py" "$build/tools/tkrt" "$build/examples/triton_add/triton_add" \
  "$build/triton-gpu-work"
# The launch-overhead comparison (Triton's launcher, tkrt.triton's prepared launch, raw
# cuLaunchKernel) on the same compiled add kernel; informational (add --require to enforce 0.5x).
python3 "$root/bench/triton_launch.py" ${TKRT_BENCH_ARGS:-}
