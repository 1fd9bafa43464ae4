#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every GPU check in one go, for one session on the device machine: run.sh (CUDA backend, core,
# vectors in CTest, HIP over CUDA), run_vectors.sh (the jaxlib vectors through `tkrt run`),
# test/xla/run.sh (libtkrt_xla under JAX), run_triton.sh (Triton's output, the Python path and
# its launch benchmark). Each gets what is left of TKRT_GPU_BUDGET_S seconds (default 560) and
# writes its log under $OUT/<name>/; a script that does not fit is reported as NOT RUN. Prints one
# line per script and exits 1 when one failed or did not run.
#   test/gpu/all.sh [run|vectors|xla|triton|exchange|perf|torch|kernels|embed|docs|versions|launcher ...]
#   (default: run vectors xla triton)
# "exchange" is run_exchange.sh (issue 26, the tuner's decision exchange: 4 ranks sharing one GPU
# under jax.distributed and under a torch TCPStore; under 4 minutes: give it a call of its own).
# "perf" is bench/run_perf.sh (issue 17's benchmarks; about 2 to 4 minutes: give it a call of its
# own). "torch" is run_torch.sh (issue 25: examples/torch_custom_op, tkrt.triton launches as
# PyTorch custom operators in eager, torch.compile, torch.cuda.graph and reduce-overhead; about a
# minute, at most 3: not in the default set). "kernels" is run_kernels.sh (issue 25: Triton's kinds of
# kernels launched by Triton and by tkrt four ways, bit-identical, and the PyTorch launch benchmark;
# about 3 minutes: not in the default set). "embed" is run_embed.sh (issue 31: threads, the GIL,
# the log, close and array lifetimes with PyTorch on CUDA; about 2 minutes: not in the default
# set). "docs" is run_docs.sh (issue 32: the code blocks README.md and docs/ mark gpu=NAME, with
# JAX; under a minute after run_triton.sh's build). "versions" is run_versions.sh (issue 34: every
# Triton release's CUDA output in test/data/triton-versions launched through the CLI and tkrt.triton
# against NumPy; about a minute after run_triton.sh's build). "launcher" is run_launcher.sh (issue
# 33: tkrt as Triton's launcher, with no C compiler on PATH, against Triton's own). Needs only the repository: each script builds what
# it runs, and the data comes from test/data (nothing to stage or carry).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
budget="${TKRT_GPU_BUDGET_S:-560}"
out="${OUT:-$root/build/gpu-all}"
started=$SECONDS
declare -a lines=()
failures=0
[ $# -gt 0 ] || set -- run vectors xla triton

for name in "$@"; do
  case "$name" in
    run) command=(bash "$root/test/gpu/run.sh") ;;
    vectors) command=(bash "$root/test/gpu/run_vectors.sh") ;;
    xla) command=(bash "$root/test/xla/run.sh") ;;
    triton) command=(bash "$root/test/gpu/run_triton.sh") ;;
    exchange) command=(bash "$root/test/gpu/run_exchange.sh") ;;
    perf) command=(bash "$root/bench/run_perf.sh") ;;
    torch) command=(bash "$root/test/gpu/run_torch.sh") ;;
    kernels) command=(bash "$root/test/gpu/run_kernels.sh") ;;
    embed) command=(bash "$root/test/gpu/run_embed.sh") ;;
    docs) command=(bash "$root/test/gpu/run_docs.sh") ;;
    versions) command=(bash "$root/test/gpu/run_versions.sh") ;;
    launcher) command=(bash "$root/test/gpu/run_launcher.sh") ;;
    *) echo "all.sh: unknown check '$name' (run, vectors, xla, triton, exchange, perf, torch, kernels, embed, docs, versions, launcher)"; exit 2 ;;
  esac
  left=$((budget - (SECONDS - started)))
  if [ "$left" -lt 30 ]; then
    lines+=("$(printf '%-8s NOT RUN (no time left of %s s)' "$name" "$budget")")
    failures=$((failures + 1))
    continue
  fi
  mkdir -p "$out/$name"
  begin=$SECONDS
  OUT="$out/$name" timeout --kill-after=5 "$left" "${command[@]}" > "$out/$name/stdout.txt" 2>&1
  rc=$?
  verdict=PASS
  [ "$rc" = 0 ] || { verdict="FAIL (exit $rc$([ "$rc" = 124 ] && echo ', timed out'))"; failures=$((failures + 1)); }
  lines+=("$(printf '%-8s %s in %d s' "$name" "$verdict" $((SECONDS - begin)))")
  # The log's verdict lines, so the summary says what failed without opening the files.
  grep -hE "FAIL|RESULT|VECTORS:|run_triton:|triton_launch:|PERF:|EXCHANGE:|TORCH:|torch_custom_op:|KERNELS:|EMBED:|DOCS:|VERSIONS:|LAUNCHER:|triton_launcher:|  add3: |  wide17: |  descriptor " "$out/$name"/*.txt \
    "$out/$name"/*.log 2>/dev/null | sort -u | tail -n 25 | sed "s/^/  [$name] /"
done
echo
printf '%s\n' "${lines[@]}"
[ "$failures" = 0 ] && echo "ALL: PASS" || echo "ALL: $failures failed or not run"
[ "$failures" = 0 ]
