#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tkrt as Triton's launcher (issue 33): test/gpu/triton_launcher_check.py once with Triton's own
# launcher (the baseline outputs), then with tkrt.triton_launcher installed, an empty Triton cache
# and no C compiler on PATH (a directory holding only python3 and ptxas' neighbours is not needed:
# Triton finds its bundled ptxas by path), outputs bit-identical. Builds in build/gpu-triton (as
# run_triton.sh). Prints "LAUNCHER: PASS" or "LAUNCHER: FAIL (...)". Writes a copy of everything
# to $OUT/launcher.log when OUT is set.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build/gpu-triton"
jobs="${TKRT_GPU_JOBS:-$(nproc 2>/dev/null || echo 8)}"
if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT"
  exec > >(tee "$OUT/launcher.log") 2>&1
fi
fail() { echo "LAUNCHER: FAIL ($1)"; exit 1; }
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTKRT_BACKEND_HIP=OFF -DTKRT_BUILD_XLA=ON \
  -DTKRT_WARNINGS_AS_ERRORS=ON -DPython3_EXECUTABLE="$(command -v python3)" ${TKRT_GPU_CMAKE_ARGS:-} \
  > "$build/launcher-configure.log" 2>&1 || { tail -n 40 "$build/launcher-configure.log"; fail "configure"; }
cmake --build "$build" -j "$jobs" --target tkrt tkrt_python_native > "$build/launcher-build.log" 2>&1 \
  || { tail -n 40 "$build/launcher-build.log"; fail "build"; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python="$(command -v python3)"
# The baseline: Triton's own launcher, its own cache.
TRITON_CACHE_DIR="$work/cache-baseline" "$python" "$here/triton_launcher_check.py" baseline \
  "$work/baseline.npz" || fail "the baseline (Triton's own launcher)"
# tkrt: an empty cache, and no C compiler to be found (PATH holds an empty folder; CC unset).
mkdir -p "$work/empty-bin"
env -u CC PATH="$work/empty-bin" TRITON_CACHE_DIR="$work/cache-tkrt" \
  PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" TKRT_LIBRARY="$build/libtkrt.so.0" \
  TKRT_NATIVE_MODULE="$(ls "$build"/python/tkrt/_native*.so 2>/dev/null | head -n 1)" \
  TKRT_TUNE_DIR=off TKRT_CACHE_DIR="$work/tkrt-cache" \
  "$python" "$here/triton_launcher_check.py" tkrt "$work/baseline.npz" || fail "tkrt as the launcher (above)"
# The launch benchmark: kernel[grid] with Triton's launcher and with tkrt installed, interleaved.
env PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" TKRT_LIBRARY="$build/libtkrt.so.0" \
  TKRT_NATIVE_MODULE="$(ls "$build"/python/tkrt/_native*.so 2>/dev/null | head -n 1)" \
  TKRT_TUNE_DIR=off TRITON_CACHE_DIR="$work/cache-bench" \
  "$python" "$root/bench/triton_launcher.py" --profile 20000 ${OUT:+--json "$OUT/triton_launcher.json"}
