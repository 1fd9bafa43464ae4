#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Verifies the CUDA backend on a machine with an NVIDIA GPU (CUDA 13 driver, sm_90): builds tkrt
# in build/gpu (Release, HIP off), runs the cuda/cts/gpu CTest labels, then the core tests
# (test/core) and the GPU programs one by one with their output, and prints one summary line per
# check. Needs only the repository (the jaxlib vectors are in test/data/jaxlib-0.11.2). Writes a copy of everything
# to $OUT/gpu.log when OUT is set.
#
# Environment: TKRT_GPU_JOBS (build parallelism), TKRT_GPU_CMAKE_ARGS (extra configure flags),
# TKRT_GPU_ALLOW_SKIP=1 (a check that skips for want of a device does not fail the run; for
# trying the script on a machine without a GPU).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build/gpu"
jobs="${TKRT_GPU_JOBS:-$(nproc 2>/dev/null || echo 8)}"
allow_skip="${TKRT_GPU_ALLOW_SKIP:-0}"

if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT"
  exec > >(tee "$OUT/gpu.log") 2>&1
  tee_pid="${!:-}"
  # Let tee drain before the script is gone, so the log is complete when OUT is collected.
  trap 'exec 1>&- 2>&-; [[ -z "$tee_pid" ]] || wait "$tee_pid" 2>/dev/null || true' EXIT
fi

started=$(date +%s)
declare -a summary=()
failures=0

# record NAME RC [NOTE]: rc 0 passes, 77 skips, anything else fails.
record() {
  local name="$1" rc="$2" note="${3:-}" verdict
  if [[ "$rc" == 0 ]]; then
    verdict=PASS
  elif [[ "$rc" == 77 ]]; then
    verdict=SKIP
    [[ "$allow_skip" == 1 ]] || failures=$((failures + 1))
  else
    verdict=FAIL
    failures=$((failures + 1))
  fi
  summary+=("$(printf 'CHECK %-42s %s%s' "$name" "$verdict" "${note:+  ($note)}")")
  echo "==> $name: $verdict${note:+ ($note)}"
}

# run NAME COMMAND...: runs a check with its output shown, never aborting the script.
run() {
  local name="$1" rc=0
  shift
  echo
  echo "==> $name: $*"
  "$@" || rc=$?
  record "$name" "$rc"
}

echo "tkrt GPU verification: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on ${HOSTNAME:-$(uname -n)}"
echo "repository: $root ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout'))"
if command -v nvidia-smi > /dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader || true
else
  echo "nvidia-smi: not found"
fi
echo "cmake: $(cmake --version | head -n 1); cc: $("${CC:-cc}" --version 2>/dev/null | head -n 1 || true)"

# ---------------------------------------------------------------- build
echo
echo "==> configure and build in $build"
configure_rc=0
# shellcheck disable=SC2086 # TKRT_GPU_CMAKE_ARGS is a list of flags
cmake -S "$root" -B "$build" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release \
  -DTKRT_BACKEND_HIP=OFF -DTKRT_BACKEND_CUDA=ON -DBUILD_TESTING=ON ${TKRT_GPU_CMAKE_ARGS:-} \
  || configure_rc=$?
record "configure" "$configure_rc"
if [[ "$configure_rc" != 0 ]]; then
  printf '%s\n' "${summary[@]}"
  exit 1
fi
if ! grep -q '^TKRT_CUDA_INCLUDE_DIR:PATH=/' "$build/CMakeCache.txt"; then
  echo "note: no cuda.h found: the backend needs none, but the ABI check cuda.abi will be skipped"
fi
# -k: one broken target (an example, a tool) must not hide the results of the others.
build_rc=0
cmake --build "$build" -j "$jobs" -- -k || build_rc=$?
record "build" "$build_rc"

# The GPU programs come from test/gpu/CMakeLists.txt; if test/CMakeLists.txt does not include
# that folder (yet), build it beside the tree so the checks below still run.
bin="$build/test/gpu"
if [[ ! -x "$bin/gpu_vector_test" ]]; then
  extra="$root/build/gpu-extra"
  echo
  echo "==> test/gpu is not part of the main build: building it separately in $extra"
  mkdir -p "$extra/src"
  cat > "$extra/src/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project(tkrt_gpu_checks LANGUAGES C)
enable_testing()
add_subdirectory("$root" tkrt)
set(TKRT_HAVE_BACKEND_CUDA 1)
set(TKRT_TEST_HARNESS_DIR "$root/test")
set(TKRT_VECTORS_DIR "$root/test/data/jaxlib-0.11.2")
set(PROJECT_SOURCE_DIR "$root")
add_subdirectory("$root/test/gpu" gpu)
EOF
  extra_rc=0
  cmake -S "$extra/src" -B "$extra/build" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release \
    -DTKRT_BACKEND_HIP=OFF -DTKRT_BACKEND_CUDA=ON -DTKRT_BUILD_EXAMPLES=OFF \
    -DTKRT_BUILD_TOOLS=OFF -DBUILD_TESTING=OFF && \
    cmake --build "$extra/build" -j "$jobs" --target gpu_vector_test gpu_kernels_test \
      gpu_ptx_cache_test || extra_rc=$?
  record "build (test/gpu separately)" "$extra_rc"
  bin="$extra/build/gpu"
fi

# ---------------------------------------------------------------- CTest
# The core tests (label core) run below, one check each with their output, not twice.
echo
echo "==> ctest -L 'cuda|cts|gpu' -LE '^core\$'"
ctest_rc=0
(cd "$build" && ctest -L 'cuda|cts|gpu' -LE '^core$' --output-on-failure --timeout 300) ||
  ctest_rc=$?
listed=$(cd "$build" && ctest -N -L 'cuda|cts|gpu' -LE '^core$' | sed -n 's/^Total Tests: //p')
for name in cts.cuda.ptx cts.cuda.cubin; do
  if ! (cd "$build" && ctest -N -R "^${name//./\\.}\$" | grep -q "Total Tests: 1"); then
    echo "note: $name is not registered (test/cts/CMakeLists.txt)"
  fi
done
record "ctest cuda|cts|gpu" "$ctest_rc" "${listed:-0} tests"

# ---------------------------------------------------------------- core tests on CUDA, with output
# The programs of test/core (CTest: core.cuda.*) with the CUDA build of their kernels
# (test/core/kernels/core_kernels.ptx): launch semantics and every validation error, autotuning
# with aliased inputs, first calls from 16 threads, decisions persisted across processes, and a
# fault injected at every operation, TMA descriptor parameters (per-launch shapes too), parallel
# module loads, pruning, logs, the decision exchange, and per-launch grids with growing scratch
# (capture and replay included). A few seconds each.
core_bin="$build/test/core"
core_ptx="$root/test/core/kernels/core_kernels.ptx"
core_tests=(validate alias_autotune concurrent persist fault tma load prune log exchange grid)
for core_test in "${core_tests[@]}"; do
  run "core $core_test (cuda)" timeout 300 "$core_bin/$core_test" "$core_ptx" --backend=cuda
done
registered=$(cd "$build" && ctest -N -L '^core$' -L '^cuda$' | sed -n 's/^Total Tests: //p')
if [[ "${registered:-0}" != "${#core_tests[@]}" ]]; then
  echo "note: CTest registers ${registered:-0} core.cuda tests, this script runs ${#core_tests[@]} (test/core/CMakeLists.txt)"
fi

# ---------------------------------------------------------------- the GPU programs, with output
vectors="$root/test/data/jaxlib-0.11.2"
kernels="$root/test/cts/kernels"
run "vector add_f32 (PTX, bit for bit)" "$bin/gpu_vector_test" "$vectors/add_f32"
run "vector cluster_num_ctas2 (cluster 2)" "$bin/gpu_vector_test" "$vectors/cluster_num_ctas2"
run "cubin load and launch" "$bin/gpu_kernels_test" "$kernels/cts_cuda_sm90a.cubin" \
  "$kernels/cts_cuda.ptx" cubin_runs_cts_add
run "shared memory > 48 KiB" "$bin/gpu_kernels_test" "$kernels/cts_cuda_sm90a.cubin" \
  "$kernels/cts_cuda.ptx" shared_memory_past_48k
run "graph capture, replay x2" "$bin/gpu_kernels_test" "$kernels/cts_cuda_sm90a.cubin" \
  "$kernels/cts_cuda.ptx" graph_capture_and_replay

# The PTX cache across two processes, with the backend's own log as the witness (TKRT_LOG=debug
# for the first, the older TKRT_LOG=1 for the second: both are the debug level, docs/logging.md).
echo
echo "==> PTX cache: two processes, fresh TKRT_CACHE_DIR"
cache_dir="$(mktemp -d "${TMPDIR:-/tmp}/tkrt_gpu_cache.XXXXXX")"
cache_rc=0
cold_log="$cache_dir/cold.log"
warm_log="$cache_dir/warm.log"
TKRT_LOG=debug TKRT_CACHE_DIR="$cache_dir" "$bin/gpu_ptx_cache_test" "$vectors/add_f32/call.pb" \
  --expect miss > "$cold_log" 2>&1 || cache_rc=$?
cat "$cold_log"
if [[ "$cache_rc" == 0 ]]; then
  TKRT_LOG=1 TKRT_CACHE_DIR="$cache_dir" "$bin/gpu_ptx_cache_test" "$vectors/add_f32/call.pb" \
    --expect hit > "$warm_log" 2>&1 || cache_rc=$?
  cat "$warm_log"
fi
note=""
if [[ "$cache_rc" == 0 ]]; then
  if ! grep -q "PTX cache miss" "$cold_log" || ! grep -q "PTX JIT " "$cold_log"; then
    echo "the first process did not report a miss and a JIT"
    cache_rc=1
  elif ! grep -q "^tkrt: cuda: info: loaded libcuda" "$cold_log" ||
       ! grep -q "^tkrt: cuda: debug: PTX cache miss" "$cold_log"; then
    echo "the log lines lack their level (tkrt: cuda: info: loaded libcuda..., tkrt: cuda: debug: ...)"
    cache_rc=1
  elif ! grep -q "PTX cache hit" "$warm_log" || grep -q "PTX JIT " "$warm_log"; then
    echo "the second process did not report a hit, or compiled"
    cache_rc=1
  fi
  cold_ms=$(sed -n 's/.*: miss, load \([0-9.]*\) ms.*/\1/p' "$cold_log" | head -n 1)
  warm_ms=$(sed -n 's/.*: hit, load \([0-9.]*\) ms.*/\1/p' "$warm_log" | head -n 1)
  note="cold ${cold_ms:-?} ms with JIT, warm ${warm_ms:-?} ms from the cache"
  echo "PTX load times: $note"
fi
rm -rf "$cache_dir"
record "PTX cache across processes" "$cache_rc" "$note"

# The HIP backend on this GPU through hip-over-cuda (its own build and summary; TKRT_GPU_HIP=0 skips).
[[ "${TKRT_GPU_HIP:-1}" == 0 ]] || run "hip backend over CUDA (test/gpu/run_hip.sh)" bash "$here/run_hip.sh"

# ---------------------------------------------------------------- summary
echo
echo "==================== summary ($(( $(date +%s) - started )) s)"
printf '%s\n' "${summary[@]}"
if [[ "$failures" == 0 ]]; then
  echo "RESULT: PASS"
else
  echo "RESULT: FAIL ($failures check(s))"
fi
[[ "$failures" == 0 ]]
