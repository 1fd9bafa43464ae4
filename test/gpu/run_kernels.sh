#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 25 on a machine with an NVIDIA GPU, PyTorch with CUDA and Triton 3.6: builds libtkrt.so,
# the CLI and the native Python extension in build/gpu-triton (Release, -Werror) and
# test/gpu/bound_launch.c, then
#   1. test/gpu/kernels_check.py: vector add, row softmax, layer norm forward and backward, matmul
#      (pointers, tensor descriptors), fused attention forward and a keyed autotuned axpy, each
#      launched by Triton and by tkrt four ways (Python native, Python ctypes, the CLI, the C API),
#      bit-identical to Triton's outputs; per-launch scalars; the divisibility refusal;
#   2. bench/torch_launch.py (unless TKRT_KERNELS_BENCH=0): the launch benchmark, its JSON and
#      (where matplotlib is installed) its chart in $OUT.
# Prints "KERNELS: PASS" / "KERNELS: FAIL (...)" and the benchmark's targets. Writes logs to $OUT.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build/gpu-triton"
jobs="${TKRT_GPU_JOBS:-$(nproc 2>/dev/null || echo 8)}"
out="${OUT:-$build/kernels-out}"
mkdir -p "$out" "$build"
exec > >(tee "$out/kernels.log") 2>&1
fail() { echo "KERNELS: FAIL ($1)"; exit 1; }

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTKRT_BACKEND_HIP=OFF \
  -DTKRT_WARNINGS_AS_ERRORS=ON -DPython3_EXECUTABLE="$(command -v python3)" \
  ${TKRT_GPU_CMAKE_ARGS:-} > "$build/kernels-configure.log" 2>&1 \
  || { tail -n 40 "$build/kernels-configure.log"; fail "configure"; }
cmake --build "$build" -j "$jobs" --target tkrt tkrt_cli tkrt_python_native > "$build/kernels-build.log" 2>&1 \
  || { tail -n 40 "$build/kernels-build.log"; fail "build"; }
cc -std=c11 -O2 -Wall -Wextra -Werror -I"$root/include" "$here/bound_launch.c" -o "$build/bound_launch" \
  -L"$build" -ltkrt -Wl,-rpath,"$build" || fail "bound_launch.c"

export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" TKRT_LIBRARY="$build/libtkrt.so.0"
# The extension built for this python3 (the one that has torch), imported from the build folder.
native="$(ls "$build"/python/tkrt/_native*.so 2>/dev/null | head -n 1)"
[[ -n "$native" ]] || fail "tkrt._native was not built (CPython headers for $(command -v python3)?)"
export TKRT_NATIVE_MODULE="$native" PYTHONUNBUFFERED=1
python3 -c 'import tkrt.triton as t; print("tkrt.triton launch path:", t.launch_path)'
timeout --kill-after=5 "${TKRT_KERNELS_BUDGET_S:-300}" \
  python3 "$here/kernels_check.py" "$build/tools/tkrt" "$build/bound_launch" "$build/kernels-work"
rc=$?
if [[ "${TKRT_KERNELS_BENCH:-1}" != 0 ]]; then
  TKRT_BENCH_COMMIT="${TKRT_BENCH_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null)}" \
    python3 "$root/bench/torch_launch.py" --json "$out/torch_launch.json" ${TKRT_BENCH_ARGS:-} \
    && python3 "$root/bench/charts.py" "$out" "$out/torch_launch.json" || echo "torch_launch: benchmark or chart failed"
fi
exit $rc
