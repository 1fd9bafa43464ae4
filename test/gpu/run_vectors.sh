#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End to end on an NVIDIA GPU: `tkrt run` replays every runnable jaxlib vector and compares with
# the outputs jaxlib produced: bit for bit where the kernel is deterministic, within a tolerance
# for the atomic reduction and the fp16 matmul. Each case folder's case.json says which (its
# dtypes, tolerances and aliases): no per-case flags here. Vectors come from test/data/jaxlib-0.11.2
# (test/data/README.md) or the directory given as $1; tkrt from build/gpu (test/gpu/run.sh builds
# it; this script builds it there when it is missing) or $TKRT.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
vectors="${1:-$root/test/data/jaxlib-0.11.2}"
tkrt="${TKRT:-$root/build/gpu/tools/tkrt}"
store="$(mktemp -d /tmp/tkrt-vectors-store.XXXXXX)"
failures=0
declare -a summary=()

check() {
  local name="$1" rc
  shift
  echo
  echo "==> vector $name: tkrt run $*"
  "$tkrt" run "$vectors/$name" --backend cuda --store "$store" "$@"
  rc=$?
  if [[ $rc == 0 ]]; then
    summary+=("$(printf 'VECTOR %-20s PASS' "$name")")
  else
    summary+=("$(printf 'VECTOR %-20s FAIL (exit %d)' "$name" "$rc")")
    failures=$((failures + 1))
  fi
}

if [[ -z "${TKRT:-}" && ! -x "$tkrt" ]]; then
  echo "run_vectors: building tkrt in $root/build/gpu"
  # shellcheck disable=SC2086 # TKRT_GPU_CMAKE_ARGS is a list of flags
  cmake -S "$root" -B "$root/build/gpu" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release \
    -DTKRT_BACKEND_HIP=OFF -DTKRT_BACKEND_CUDA=ON -DBUILD_TESTING=ON ${TKRT_GPU_CMAKE_ARGS:-} >/dev/null &&
    cmake --build "$root/build/gpu" -j "${TKRT_GPU_JOBS:-$(nproc 2>/dev/null || echo 8)}" \
      --target tkrt_cli >/dev/null || { echo "run_vectors: tkrt did not build"; exit 1; }
fi
if [[ ! -x "$tkrt" ]]; then
  echo "run_vectors: $tkrt is not built"
  exit 1
fi
names=(add_f32 scalars alias_inplace autotuned_alias cluster_num_ctas2 zeroed_accumulate
       matmul_autotuned)
for name in "${names[@]}"; do
  if [[ ! -f "$vectors/$name/case.json" ]]; then
    echo "run_vectors: $vectors/$name has no case.json (test/data/README.md says what a case holds)"
    exit 1
  fi
done
for name in "${names[@]}"; do
  check "$name"
done
# A second process finds the decisions in the store: no retuning.
echo
echo "==> second process, same store: autotuned calls read their decisions"
for name in autotuned_alias matmul_autotuned; do
  out="$("$tkrt" run "$vectors/$name" --backend cuda --store "$store" --iterations 0 2>&1)"
  echo "$out"
  if grep -q "decided by: store" <<<"$out"; then
    summary+=("$(printf 'VECTOR %-20s PASS (decision from the store)' "$name/2nd")")
  else
    summary+=("$(printf 'VECTOR %-20s FAIL (retuned)' "$name/2nd")")
    failures=$((failures + 1))
  fi
done
# tkrt tune prints the per-config table for the matmul.
echo
echo "==> tkrt tune matmul_autotuned"
"$tkrt" tune "$vectors/matmul_autotuned" --backend cuda --store "$store" ||
  failures=$((failures + 1))
rm -rf "$store"
echo
printf '%s\n' "${summary[@]}"
echo "VECTORS: $([[ $failures == 0 ]] && echo PASS || echo "FAIL ($failures)")"
exit $((failures > 0))
