#!/usr/bin/env bash
# Builds the wire decoder's libFuzzer target (clang, ASan+UBSan) and fuzzes it for a bounded
# time, seeded with test/fuzz/corpus and test/fuzz/regressions. For CI: exits non-zero when the
# fuzzer finds a crash, leak or failed check; the input is left in the work directory, to be fixed
# and then kept under test/fuzz/regressions/.
#
# Usage: test/fuzz/run_fuzz.sh SECONDS [BUILD_DIR]
#   BUILD_DIR  an existing build that has the wire_fuzz target (configured with clang and
#              -DTKRT_BUILD_FUZZERS=ON); default: configure and build ./build-fuzz.
#   JOBS=N     fuzz with N parallel workers (libFuzzer fork mode); default 1.
#   FUZZ_ARGS  extra libFuzzer flags, e.g. FUZZ_ARGS=-use_value_profile=1.
set -euo pipefail

seconds=${1:?usage: run_fuzz.sh SECONDS [BUILD_DIR]}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${2:-$root/build-fuzz}
jobs=${JOBS:-1}

if [ ! -f "$build/CMakeCache.txt" ]; then
  command -v clang >/dev/null || { echo "run_fuzz.sh: clang is required" >&2; exit 2; }
  CC=clang cmake -S "$root" -B "$build" -DTKRT_BUILD_FUZZERS=ON -DTKRT_SANITIZE=address \
    -DTKRT_BACKEND_CUDA=OFF -DTKRT_BACKEND_HIP=OFF -DTKRT_BUILD_EXAMPLES=OFF \
    -DTKRT_BUILD_TOOLS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" --target wire_fuzz -j"$(nproc)" >/dev/null
fuzzer=$(find "$build" -name wire_fuzz -type f -perm -u+x | head -n1)
[ -n "$fuzzer" ] || { echo "run_fuzz.sh: no wire_fuzz in $build (TKRT_BUILD_FUZZERS=ON, clang?)" >&2; exit 2; }

# The fuzzer adds inputs to its first corpus directory: use a scratch copy, never the repo's.
work="$build/fuzz-wire"
mkdir -p "$work/corpus" "$work/artifacts"
cp -n "$root"/test/fuzz/corpus/* "$work/corpus/" 2>/dev/null || true
seeds=("$work/corpus" "$root/test/fuzz/corpus")
if compgen -G "$root/test/fuzz/regressions/*" >/dev/null; then
  seeds+=("$root/test/fuzz/regressions")
fi

args=(-max_len=65536 -timeout=5 -rss_limit_mb=4096 -max_total_time="$seconds"
      -dict="$root/test/fuzz/wire.dict" -artifact_prefix="$work/artifacts/" -print_final_stats=1)
if [ -n "${FUZZ_ARGS:-}" ]; then
  read -r -a extra <<<"$FUZZ_ARGS"
  args+=("${extra[@]}")
fi
if [ "$jobs" -gt 1 ]; then
  args+=(-fork="$jobs" -ignore_crashes=0)
fi
echo "run_fuzz.sh: $fuzzer for ${seconds}s, $jobs job(s); findings go to $work/artifacts/"
"$fuzzer" "${args[@]}" "${seeds[@]}"
