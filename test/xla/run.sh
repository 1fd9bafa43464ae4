#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU checks of libtkrt_xla (JAX + jaxlib + Triton on a machine with an NVIDIA GPU): builds tkrt
# and libtkrt_xla in build/xla-gpu, checks our FFI declarations against jaxlib's c_api.h, then
# runs the comparison suite, the autotuned gather and the frontend conformance suite
# (test_frontends.py: jax-triton, TransformerEngine and ejKernel call shapes) with command buffers
# default, off and forced, and the 2-GPU shard_map test (skips with fewer GPUs). One
# `CHECK name PASS|FAIL|SKIP` line per check (test_frontends.py prints one per case and mode);
# a copy of everything goes to $OUT/xla.log when OUT is set. Exit 1 when a check fails.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build/xla-gpu"
jobs="${TKRT_GPU_JOBS:-16}"
if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT"
  exec > >(tee "$OUT/xla.log") 2>&1
fi
summary=()
fail=0
record() {  # NAME RC [NOTE]
  local verdict=PASS
  [[ "$2" == 77 ]] && verdict=SKIP
  [[ "$2" != 0 && "$2" != 77 ]] && { verdict=FAIL; fail=1; }
  summary+=("CHECK $(printf '%-42s' "$1") $verdict${3:+  ($3)}")
}
export PYTHONUNBUFFERED=1
# The tests report how many FFI executes XLA captured into command buffers (tkrt.stats()).
export TKRT_XLA_COUNT_CAPTURES=1
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null || true

mkdir -p "$root/build"
echo "==> build"
cmake -S "$root/xla" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTKRT_BACKEND_HIP=OFF > "$build.cfg.log" 2>&1 \
  || { cat "$build.cfg.log"; exit 1; }
cmake --build "$build" -j"$jobs" --target tkrt_xla 2>&1 | grep -Ev '^\[ *[0-9]+%\]' ; rc=${PIPESTATUS[0]}
record build "$rc"
[[ "$rc" == 0 ]] || { printf '%s\n' "${summary[@]}"; exit 1; }
echo "exported symbols not starting with tkrt_: $(nm -D --defined-only "$build/libtkrt_xla.so" | awk '{print $3}' | grep -vc '^tkrt_')"

echo "==> ffi_abi_check"
jaxlib_dir="$(python3 -c 'import jaxlib, os; print(os.path.dirname(jaxlib.__file__))')"
gcc -std=c11 -Wall -Wextra -Werror -I "$jaxlib_dir/include" -I "$root" \
  "$here/ffi_abi_check.c" -o "$build/ffi_abi_check" && "$build/ffi_abi_check"
record ffi_abi_check "$?" "vs $jaxlib_dir/include/xla/ffi/api/c_api.h"
plugin="$(python3 -c 'import jax_plugins.xla_cuda13 as p, os; print(os.path.dirname(p.__file__))' 2>/dev/null)"
[[ -n "$plugin" ]] && echo "xla_cuda_plugin: $(nm -D "$plugin"/*.so 2>/dev/null | grep -c __cxx11) __cxx11 symbols, XlaCustomCallStatusSetFailure exported: $(nm -D --defined-only "$plugin"/*.so 2>/dev/null | grep -c XlaCustomCallStatusSetFailure)"

export TKRT_XLA_LIBRARY="$build/libtkrt_xla.so"
export PYTHONPATH="$root/python:$here${PYTHONPATH:+:$PYTHONPATH}"
tune_dir="$(mktemp -d)"
export TKRT_TUNE_DIR="$tune_dir/store"

echo "==> test_xla.py"
timeout 300 python3 "$here/test_xla.py"; record test_xla.py "$?"

echo "==> test_tma.py (jaxlib's TMA descriptor parameter, jaxlib vs tkrt)"
timeout 180 python3 "$here/test_tma.py"; record test_tma.py "$?"

for mode in default off forced; do
  export TKRT_TUNE_DIR="$tune_dir/gather-$mode"   # fresh decisions: each run tunes anew
  case "$mode" in
    default) flags="${XLA_FLAGS:-}" ;;
    off) flags="--xla_gpu_enable_command_buffer=" ;;
    forced) flags="--xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL --xla_gpu_graph_min_graph_size=1" ;;
  esac
  echo "==> test_gather.py (command buffers: $mode, XLA_FLAGS='$flags')"
  XLA_FLAGS="$flags" TKRT_GATHER_MODE="cmdbuf=$mode" timeout 120 python3 "$here/test_gather.py"
  record "gather_cmdbuf_$mode" "$?"
done

for mode in default off forced; do
  export TKRT_TUNE_DIR="$tune_dir/frontends-$mode"   # fresh decisions per mode
  case "$mode" in
    default) flags="${XLA_FLAGS:-}" ;;
    off) flags="--xla_gpu_enable_command_buffer=" ;;
    forced) flags="--xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL --xla_gpu_graph_min_graph_size=1" ;;
  esac
  echo "==> test_frontends.py (command buffers: $mode, XLA_FLAGS='$flags')"
  XLA_FLAGS="$flags" TKRT_FRONTENDS_MODE="$mode" timeout 240 python3 "$here/test_frontends.py"
  record "frontends_cmdbuf_$mode" "$?"
done

echo "==> test_shard_map.py"
timeout 120 python3 "$here/test_shard_map.py"; record shard_map_two_gpus "$?"

echo
printf '%s\n' "${summary[@]}"
exit "$fail"
