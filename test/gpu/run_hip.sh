#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Verifies the HIP backend on an NVIDIA GPU through hip-over-cuda (test/hip/over_cuda), a HIP
# runtime implemented on the CUDA driver that presents the GPU as an AMD one: builds tkrt with the
# HIP backend in build/gpu-hip, packs the cubin of each test kernel into its real HSACO, and runs
# the conformance suite, the core tests, a wave64 and an arch refusal, and `tkrt run` of Triton's
# add and matmul HSACO, through the hip backend, for the ROCm 5 properties layout (libamdhip64.so.5)
# and the ROCm 6 one (libamdhip64.so.6; the conformance suite also on .so.7). One summary line per
# check. Writes a copy of everything to $OUT/gpu_hip.log when OUT is set.
#
# Needs no ROCm and no CUDA header: the HIP backend and hip-over-cuda build from tkrt's own
# declarations (backends/hip/hip_api.h, backends/cuda/cuda_api.h); only the CUDA driver (libcuda)
# and ptxas are needed, on the GPU machine.
# Environment: TKRT_GPU_JOBS (build parallelism), TKRT_GPU_CMAKE_ARGS (extra configure flags).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build/gpu-hip"
work="$build/hip-work"
jobs="${TKRT_GPU_JOBS:-$(nproc 2>/dev/null || echo 8)}"
triton="$root/test/data/triton-3.6"

if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT"
  exec > >(tee "$OUT/gpu_hip.log") 2>&1
  tee_pid="${!:-}"
  trap 'exec 1>&- 2>&-; [[ -z "$tee_pid" ]] || wait "$tee_pid" 2>/dev/null || true' EXIT
fi

started=$(date +%s)
declare -a summary=()
failures=0

record() {
  local name="$1" rc="$2" note="${3:-}" verdict=FAIL
  [[ "$rc" == 0 ]] && verdict=PASS
  [[ "$verdict" == PASS ]] || failures=$((failures + 1))
  summary+=("$(printf 'CHECK %-52s %s%s' "$name" "$verdict" "${note:+  ($note)}")")
  echo "==> $name: $verdict${note:+ ($note)}"
}

# run NAME COMMAND...: a check with its output shown (a skip, exit 77, fails here: a GPU is needed).
run() {
  local name="$1" rc=0
  shift
  echo
  echo "==> $name: $*"
  "$@" || rc=$?
  record "$name" "$rc"
}

# refuses NAME PATTERN COMMAND...: passes when the command fails and its output has PATTERN.
refuses() {
  local name="$1" pattern="$2" rc=0 log
  shift 2
  echo
  echo "==> $name: $* (must fail with '$pattern')"
  log="$(mktemp)"
  "$@" > "$log" 2>&1 || rc=$?
  cat "$log"
  if [[ "$rc" != 0 ]] && grep -q -- "$pattern" "$log"; then rc=0; else rc=1; fi
  rm -f "$log"
  record "$name" "$rc"
}

finish() {
  echo
  echo "==================== hip summary ($(( $(date +%s) - started )) s)"
  printf '%s\n' "${summary[@]}"
  if [[ "$failures" == 0 ]]; then echo "RESULT: PASS"; else echo "RESULT: FAIL ($failures check(s))"; fi
  [[ "$failures" == 0 ]]
}

echo "tkrt HIP-over-CUDA verification: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on ${HOSTNAME:-$(uname -n)}"
echo "repository: $root ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout'))"
command -v nvidia-smi > /dev/null 2>&1 &&
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader || true

ptxas="$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)"

# ---------------------------------------------------------------- build
echo
echo "==> configure and build in $build"
rc=0
# shellcheck disable=SC2086 # TKRT_GPU_CMAKE_ARGS is a list of flags
cmake -S "$root" -B "$build" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release \
  -DTKRT_BACKEND_HIP=ON -DTKRT_BACKEND_CUDA=ON -DBUILD_TESTING=ON ${TKRT_GPU_CMAKE_ARGS:-} || rc=$?
[[ "$rc" == 0 ]] && cmake --build "$build" -j "$jobs" --target tkrt_cli cts_test validate \
  alias_autotune concurrent persist fault tkrt_hsaco_pack tkrt_hoc_rocm5 tkrt_hoc_rocm6 \
  tkrt_hoc_rocm7 tkrt_hoc_triton_cases tkrt_hoc_test || rc=$?
record "build (hip backend, hip-over-cuda)" "$rc"
if [[ "$rc" != 0 ]]; then finish; exit 1; fi
run "hip-over-cuda CPU tests" "$build/test/hip/tkrt_hoc_test" test_pack_round_trip \
  test_arch_checks_on_packed_hsaco test_launch_rules test_exports

# ---------------------------------------------------------------- code objects
# Each kernel's real HSACO with the cubin of the same kernel: the conformance kernels' committed
# sm_90a cubin (any-block: the suite launches blocks of 1 and 128 threads, which its kernels
# accept on any GPU), the core kernels' cubin from their committed PTX (wave64 rule), Triton's
# sm_90 cubins with their own dynamic shared memory (cuda metadata "shared").
echo
echo "==> pack code objects in $work"
rm -rf "$work" && mkdir -p "$work"
pack="$build/test/hip/tkrt_hsaco_pack"
rc=0
cts_kernels=(cts_add_f32 cts_write_pid cts_smem_reverse cts_cluster_rank cts_scalars)
any_block=()
for k in "${cts_kernels[@]}"; do any_block+=(--any-block "$k"); done
"$pack" "$root/test/cts/kernels/cts_hip_gfx90a.hsaco" "$root/test/cts/kernels/cts_cuda_sm90a.cubin" \
  "$work/cts.hsaco" "${any_block[@]}" || rc=$?
"$pack" "$root/test/cts/kernels/cts_hip_gfx90a.hsaco" "$root/test/cts/kernels/cts_cuda_sm90a.cubin" \
  "$work/cts_wave64.hsaco" || rc=$?
"$ptxas" -arch=sm_90a -o "$work/core_kernels_sm90a.cubin" "$root/test/core/kernels/core_kernels.ptx" || rc=$?
"$pack" "$root/test/core/kernels/core_kernels_gfx90a.hsaco" "$work/core_kernels_sm90a.cubin" \
  "$work/core.hsaco" || rc=$?
for kernel in add matmul; do
  cuda_shared=$(sed -n 's/.*"shared": \([0-9]*\).*/\1/p' "$triton/$kernel/cuda_sm90/${kernel}_kernel.json")
  for arch in gfx942 gfx90a; do
    hip_shared=$(sed -n 's/.*"shared": \([0-9]*\).*/\1/p' "$triton/$kernel/hip_$arch/${kernel}_kernel.json")
    "$pack" "$triton/$kernel/hip_$arch/${kernel}_kernel.hsaco" \
      "$triton/$kernel/cuda_sm90/${kernel}_kernel.cubin" "$work/${kernel}_$arch.hsaco" \
      --cuda-shared "${kernel}_kernel=$cuda_shared" || rc=$?
    "$build/test/hip/tkrt_hoc_triton_cases" "$work/case_${kernel}_$arch" "$kernel" \
      "$work/${kernel}_$arch.hsaco" "$arch" "$hip_shared" || rc=$?
  done
done
record "pack HSACO + cubin, write Triton cases" "$rc"

# ---------------------------------------------------------------- the checks, per layout
# validate without the cases that need thread-block clusters, which AMD GPUs do not have (an AMD
# GPU fails them the same way): grid limits after cluster scaling, launch shape with num_ctas 2,
# legacy cluster dims.
validate_cases=(test_validate_too_few_buffers test_validate_divisibility
  test_validate_empty_grid_is_a_noop test_validate_shared_memory_and_images
  test_bytes_to_zero_before_every_launch test_scalars_packed_by_type test_capture_needs_prepare
  test_objects_reject_bad_descriptions)
core_bin="$build/test/core"
for rocm in 5 6 7; do
  library="$build/test/hip/rocm$rocm/libamdhip64.so.$rocm"
  layout="R0000"
  [[ "$rocm" == 5 ]] || layout="R0600"
  tag="rocm$rocm $layout"
  export TKRT_HIP_LIBRARY="$library"
  export TKRT_HOC_ARCH="gfx90a:sramecc+:xnack-"
  run "cts.hip ($tag; graphs, events, 64 KiB LDS)" "$build/test/cts/cts_test" hip "$work/cts.hsaco"
  [[ "$rocm" == 7 ]] && continue
  run "core validate ($tag)" "$core_bin/validate" "$work/core.hsaco" --backend=hip "${validate_cases[@]}"
  for core_test in alias_autotune concurrent persist fault; do
    run "core $core_test ($tag)" timeout 300 "$core_bin/$core_test" "$work/core.hsaco" --backend=hip
  done
  refuses "wave64 rule enforced ($tag)" "the wave64 rule" \
    "$build/test/cts/cts_test" hip "$work/cts_wave64.hsaco" test_launch_grid_3d
  for arch in gfx942 gfx90a; do
    export TKRT_HOC_ARCH="$arch:sramecc+:xnack-"
    run "tkrt run triton add $arch ($tag)" "$build/tools/tkrt" run "$work/case_add_$arch" \
      --backend hip --store off --iterations 5
    run "tkrt run triton matmul $arch ($tag)" "$build/tools/tkrt" run "$work/case_matmul_$arch" \
      --backend hip --store off --iterations 5
  done
  # The backend's log lines at TKRT_LOG=debug (docs/logging.md): runtime, device, module load.
  export TKRT_HOC_ARCH="gfx90a:sramecc+:xnack-"
  rc=0
  log="$(mktemp)"
  TKRT_LOG=debug "$build/tools/tkrt" run "$work/case_add_gfx90a" --backend hip --store off \
    --iterations 0 > "$log" 2>&1 || rc=$?
  cat "$log"
  for line in "^tkrt: hip: info: loaded .*libamdhip64" "^tkrt: hip: info: device 0: " \
              "^tkrt: hip: debug: loaded a [0-9]*-byte gfx90a"; do
    grep -q -- "$line" "$log" || { echo "missing log line: $line"; rc=1; }
  done
  rm -f "$log"
  record "hip log lines at TKRT_LOG=debug ($tag)" "$rc"
  # A gfx90a code object on a device presented as gfx942: the backend's own arch check (module
  # load), and the core's image choice (a call whose only image is for gfx90a).
  export TKRT_HOC_ARCH="gfx942:sramecc+:xnack-"
  refuses "backend arch check: gfx90a HSACO on gfx942 ($tag)" \
    "HSACO targets gfx90a but device 0 is gfx942" "$build/test/cts/cts_test" hip "$work/cts.hsaco"
  refuses "image choice: gfx90a call on gfx942 ($tag)" "no image for this device (hip gfx942)" \
    "$build/tools/tkrt" run "$work/case_add_gfx90a" --backend hip --store off --iterations 0
done
unset TKRT_HIP_LIBRARY TKRT_HOC_ARCH
finish
