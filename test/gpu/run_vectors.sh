#!/usr/bin/env bash
# End to end on an NVIDIA GPU: `tkrt run` replays every runnable jaxlib vector and compares with
# the outputs jaxlib produced: bit for bit where the kernel is deterministic, within a tolerance
# for the atomic reduction and the fp16 matmul. Vectors come from .gpu-vectors/
# (test/gpu/stage_vectors.sh) or the directory given as $1; tkrt from build/gpu (or $TKRT).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
vectors="${1:-$root/.gpu-vectors}"
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

if [[ ! -x "$tkrt" ]]; then
  echo "run_vectors: $tkrt is not built"
  exit 1
fi
check add_f32
check scalars
check alias_inplace --alias 0:0
check autotuned_alias
check cluster_num_ctas2
check zeroed_accumulate --rtol 1e-3 --atol 1e-3 --dtype f32
check matmul_autotuned --rtol 2e-2 --atol 2e-2 --dtype f16
# A second process finds the decisions in the store: no retuning.
echo
echo "==> second process, same store: autotuned calls read their decisions"
for name in autotuned_alias matmul_autotuned; do
  out="$("$tkrt" run "$vectors/$name" --backend cuda --store "$store" --iterations 0 \
         $([[ $name == matmul_autotuned ]] && echo --rtol 2e-2 --atol 2e-2 --dtype f16) 2>&1)"
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
"$tkrt" tune "$vectors/matmul_autotuned" --backend cuda --store "$store" --rtol 2e-2 --atol 2e-2 \
  --dtype f16 || failures=$((failures + 1))
rm -rf "$store"
echo
printf '%s\n' "${summary[@]}"
echo "VECTORS: $([[ $failures == 0 ]] && echo PASS || echo "FAIL ($failures)")"
exit $((failures > 0))
