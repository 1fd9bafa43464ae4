#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 31 on a machine with an NVIDIA GPU, PyTorch with CUDA and Triton 3.6: builds libtkrt.so and
# the native Python extension in build/gpu-triton (run_triton.sh's build, incremental after it),
# then test/gpu/embed_gpu_check.py: threads x exchange stores (a Python store, torch's HashStore
# and TCPStore), threads x the log at debug with new key= values, the GIL while the exchange
# waits, close during launches, temporaries and DLPack capsules; every case in a child process
# with a deadline, on the native and the ctypes launch path. Prints "EMBED: PASS" or
# "EMBED: FAIL (...)"; bounded by TKRT_EMBED_BUDGET_S (default 300 s, build included). Writes a copy
# of everything to $OUT/embed.log when OUT is set.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build/gpu-triton"
jobs="${TKRT_GPU_JOBS:-$(nproc 2>/dev/null || echo 8)}"
budget="${TKRT_EMBED_BUDGET_S:-300}"
if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT"
  exec > >(tee "$OUT/embed.log") 2>&1
fi
fail() { echo "EMBED: FAIL ($1)"; exit 1; }

python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__,
  "cuda", torch.cuda.is_available())' || fail "PyTorch and Triton are needed"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTKRT_BACKEND_HIP=OFF -DTKRT_BUILD_XLA=ON \
  -DTKRT_WARNINGS_AS_ERRORS=ON -DPython3_EXECUTABLE="$(command -v python3)" ${TKRT_GPU_CMAKE_ARGS:-} \
  > "$build/embed-configure.log" 2>&1 || { tail -n 40 "$build/embed-configure.log"; fail "configure"; }
cmake --build "$build" -j "$jobs" --target tkrt tkrt_xla tkrt_python_native > "$build/embed-build.log" 2>&1 \
  || { tail -n 40 "$build/embed-build.log"; fail "build"; }
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" TKRT_LIBRARY="$build/libtkrt.so.0"
export TKRT_XLA_LIBRARY="$build/xla/libtkrt_xla.so" PYTHONUNBUFFERED=1
native="$(ls "$build"/python/tkrt/_native*.so 2>/dev/null | head -n 1)"
[[ -n "$native" ]] || fail "tkrt._native was not built (CPython headers for $(command -v python3)?)"
export TKRT_NATIVE_MODULE="$native"
left=$((budget - SECONDS))
[[ "$left" -gt 30 ]] || fail "no time left after the build ($SECONDS s of $budget)"
timeout --kill-after=5 "$left" python3 "$here/embed_gpu_check.py" "$build/embed-work"
rc=$?
[[ "$rc" == 124 ]] && fail "embed_gpu_check.py timed out after $left s"
exit $rc
