#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds one libFuzzer target (clang, ASan+UBSan) and fuzzes it for a bounded time, seeded from
# the tree. For CI: exits non-zero when the fuzzer finds a crash, leak or failed check; the input
# is left in the work directory, to be fixed and then kept with the target's regressions.
#
# Usage: test/fuzz/run_fuzz.sh SECONDS [BUILD_DIR] [TARGET]
#   TARGET     wire (default: the wire decoder; seeds test/fuzz/corpus and test/fuzz/regressions,
#              dictionary wire.dict), image (the image inspector; seeds test/image/data and
#              examples/calls), decision (the decision store's entry parser; test/fuzz/corpus_decision),
#              cli_options (tkrt run/tune options; test/fuzz/corpus_cli), json (the JSON reader,
#              inputs up to its 1 MiB cap; the test data's *.json and test/fuzz/corpus_json), ttir
#              (the TTIR signature scanner; the Triton vectors' *.ttir and test/fuzz/corpus_ttir),
#              grid (the grid evaluator; test/fuzz/corpus_grid), case (the case.json reader; the
#              vectors' case.json files and test/fuzz/corpus_case), settings (the settings
#              table's value reader; test/fuzz/corpus_settings) or exchange (the decision
#              exchange's value parser; test/fuzz/corpus_exchange) or hostsig (the host-image
#              signature reader; test/fuzz/corpus_hostsig). The test data is found where the
#              build's CMake cache says (TKRT_VECTORS_DIR, TKRT_TRITON_VECTORS_DIR), else in
#              test/data; without it only the seeds in test/fuzz are used.
#   BUILD_DIR  an existing build that has the <TARGET>_fuzz target (configured with clang and
#              -DTKRT_BUILD_FUZZERS=ON); default: configure and build ./build-fuzz.
#   JOBS=N     fuzz with N parallel workers (libFuzzer fork mode); default 1.
#   FUZZ_ARGS  extra libFuzzer flags, e.g. FUZZ_ARGS=-use_value_profile=1.
set -euo pipefail

seconds=${1:?usage: run_fuzz.sh SECONDS [BUILD_DIR] [TARGET]}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-$root/build-fuzz}
target=${3:-wire}
jobs=${JOBS:-1}

seed_dirs=()
extra_args=()
seed_files=() # "DIR:NAME-PATTERN": files under DIR named so are copied in as seeds
case "$target" in
  wire)
    seed_dirs=("$root/test/fuzz/corpus" "$root/test/fuzz/regressions")
    extra_args=(-max_len=65536 -dict="$root/test/fuzz/wire.dict") ;;
  image)
    seed_dirs=("$root/test/image/data" "$root/examples/calls")
    extra_args=(-max_len=262144) ;;
  decision)
    seed_dirs=("$root/test/fuzz/corpus_decision")
    extra_args=(-max_len=4096) ;;
  cli_options)
    seed_dirs=("$root/test/fuzz/corpus_cli")
    # The parser prints usage errors: keep the fuzzer's output readable.
    extra_args=(-max_len=2048 -close_fd_mask=3) ;;
  json)
    seed_dirs=("$root/test/fuzz/corpus_json")
    seed_files=("jaxlib:*.json" "triton:*.json")
    # Up to the readers' 1 MiB cap: an input must be able to be as large as a real file (a slow
    # shape, such as an object of 100k keys, then trips -timeout).
    extra_args=(-max_len=1048576) ;;
  ttir)
    seed_dirs=("$root/test/fuzz/corpus_ttir")
    seed_files=("triton:*.ttir")
    extra_args=(-max_len=65536) ;;
  grid)
    seed_dirs=("$root/test/fuzz/corpus_grid")
    extra_args=(-max_len=2048) ;;
  settings)
    seed_dirs=("$root/test/fuzz/corpus_settings")
    extra_args=(-max_len=4096) ;;
  hostsig)
    seed_dirs=("$root/test/fuzz/corpus_hostsig")
    extra_args=(-max_len=65536) ;;
  exchange)
    seed_dirs=("$root/test/fuzz/corpus_exchange")
    extra_args=(-max_len=4096) ;;
  case)
    seed_dirs=("$root/test/fuzz/corpus_case")
    seed_files=("jaxlib:case.json")
    extra_args=(-max_len=65536) ;;
  *) echo "run_fuzz.sh: unknown target '$target' (wire, image, decision, cli_options, json, ttir, grid, case, settings, exchange, hostsig)" >&2
     exit 2 ;;
esac

if [ ! -f "$build/CMakeCache.txt" ]; then
  command -v clang >/dev/null || { echo "run_fuzz.sh: clang is required" >&2; exit 2; }
  CC=clang cmake -S "$root" -B "$build" -DTKRT_BUILD_FUZZERS=ON -DTKRT_SANITIZE=address \
    -DTKRT_BACKEND_CUDA=OFF -DTKRT_BACKEND_HIP=OFF -DTKRT_BUILD_EXAMPLES=OFF \
    -DTKRT_BUILD_TOOLS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" --target "${target}_fuzz" -j"$(nproc)" >/dev/null
fuzzer=$(find "$build" -name "${target}_fuzz" -type f -perm -u+x | head -n1)
[ -n "$fuzzer" ] || { echo "run_fuzz.sh: no ${target}_fuzz in $build (TKRT_BUILD_FUZZERS=ON, clang?)" >&2; exit 2; }

# The fuzzer adds inputs to its first corpus directory: use a scratch copy, never the repo's.
work="$build/fuzz-$target"
mkdir -p "$work/corpus" "$work/artifacts"
seeds=("$work/corpus")
for dir in "${seed_dirs[@]}"; do
  if compgen -G "$dir/*" >/dev/null; then seeds+=("$dir"); fi
done

# Test data files as seeds (copied: the data folders hold much else).
data_dir() { # jaxlib | triton: the folder the build's tests use, else test/data's, else none
  local variable=TKRT_VECTORS_DIR fallback=jaxlib-0.11.2 dir=""
  if [ "$1" = triton ]; then variable=TKRT_TRITON_VECTORS_DIR fallback=triton-3.6; fi
  dir=$(sed -n "s/^$variable:[A-Z]*=//p" "$build/CMakeCache.txt" 2>/dev/null | head -n1)
  if [ -z "$dir" ] || [ ! -d "$dir" ]; then dir="$root/test/data/$fallback"; fi
  if [ -d "$dir" ]; then echo "$dir"; fi
}
if [ "${#seed_files[@]}" -gt 0 ]; then
  rm -rf "$work/data-seeds"
  mkdir -p "$work/data-seeds"
  n=0
  for spec in "${seed_files[@]}"; do
    dir=$(data_dir "${spec%%:*}")
    if [ -z "$dir" ]; then
      echo "run_fuzz.sh: note: no ${spec%%:*} test data found; seeding from test/fuzz only" >&2
      continue
    fi
    while IFS= read -r -d '' file; do
      n=$((n + 1))
      cp "$file" "$work/data-seeds/$n-$(basename "$file")"
    done < <(find "$dir" -type f -name "${spec#*:}" -size -1025k -print0)
  done
  if [ "$target" = json ]; then
    # One object of 90,000 keys, just under the 1 MiB cap: the shape that once took seconds.
    awk 'BEGIN { printf "{"; for (i = 0; i < 90000; i++) printf "%s\"k%x\":0", i ? "," : "", i; printf "}" }' \
      >"$work/data-seeds/many_keys_1MiB.json"
  fi
  if compgen -G "$work/data-seeds/*" >/dev/null; then seeds+=("$work/data-seeds"); fi
fi

args=(-timeout=5 -rss_limit_mb=4096 -max_total_time="$seconds" "${extra_args[@]}"
      -artifact_prefix="$work/artifacts/" -print_final_stats=1)
if [ -n "${FUZZ_ARGS:-}" ]; then
  read -r -a extra <<<"$FUZZ_ARGS"
  args+=("${extra[@]}")
fi
if [ "$jobs" -gt 1 ]; then
  args+=(-fork="$jobs" -ignore_crashes=0)
fi
echo "run_fuzz.sh: $fuzzer for ${seconds}s, $jobs job(s); findings go to $work/artifacts/"
"$fuzzer" "${args[@]}" "${seeds[@]}"
