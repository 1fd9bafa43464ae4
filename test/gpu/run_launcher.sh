#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tkrt as Triton's launcher (issue 33): test/gpu/triton_launcher_check.py once with Triton's own
# launcher (the baseline outputs), then with tkrt.triton_launcher installed, an empty Triton cache
# and no C compiler on PATH (a directory holding only python3 and ptxas' neighbours is not needed:
# Triton finds its bundled ptxas by path), outputs bit-identical. Builds in build/gpu-triton (as
# run_triton.sh). Prints "LAUNCHER: PASS" or "LAUNCHER: FAIL (...)". Writes a copy of everything
# to $OUT/launcher.log when OUT is set.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_begin launcher LAUNCHER
gpu_build tkrt tkrt_python_native
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python="$(command -v python3)"
# The baseline: Triton's own launcher, its own cache.
TRITON_CACHE_DIR="$work/cache-baseline" "$python" "$here/triton_launcher_check.py" baseline \
  "$work/baseline.npz" || fail "the baseline (Triton's own launcher)"
# tkrt: an empty cache, and no C compiler to be found (PATH holds an empty folder; CC unset).
mkdir -p "$work/empty-bin"
gpu_python_env
env -u CC PATH="$work/empty-bin" TRITON_CACHE_DIR="$work/cache-tkrt" \
  TKRT_TUNE_DIR=off TKRT_CACHE_DIR="$work/tkrt-cache" \
  "$python" "$here/triton_launcher_check.py" tkrt "$work/baseline.npz" || fail "tkrt as the launcher (above)"
# The launch benchmark: kernel[grid] with Triton's launcher and with tkrt installed, interleaved.
env TKRT_TUNE_DIR=off TRITON_CACHE_DIR="$work/cache-bench" \
  "$python" "$root/bench/triton_launcher.py" --profile 20000 ${OUT:+--json "$OUT/triton_launcher.json"}
