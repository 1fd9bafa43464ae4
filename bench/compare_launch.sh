#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Launch overhead of this tree against another tkrt source tree (an earlier commit: `git archive
# <commit> | tar -x -C build/old-src`), measured in one run on one GPU, interleaved old, new, old,
# new so that drift hits both alike. Prints each run's table and the medians of the ratios to the
# raw driver loop. Usage: bench/compare_launch.sh OLD_SRC [VECTORS] (VECTORS: test/data/jaxlib-0.11.2).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
old="$(cd "${1:?usage: compare_launch.sh OLD_SRC [VECTORS]}" && pwd)"
vectors="${2:-$root/test/data/jaxlib-0.11.2}"
out="${OUT:-$root/build/compare-out}"
jobs="${TKRT_BENCH_JOBS:-$(nproc 2>/dev/null || echo 8)}"
python="${PYTHON:-python3}"
mkdir -p "$out"
for side in old new; do
  src="$root"
  [[ "$side" == old ]] && src="$old"
  build="$root/build/compare-$side"
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTKRT_BACKEND_HIP=OFF \
    -DTKRT_BUILD_BENCHMARKS=ON -DBUILD_TESTING=OFF -DTKRT_BUILD_EXAMPLES=OFF \
    > "$out/$side-configure.log" 2>&1 &&
    cmake --build "$build" -j "$jobs" --target tkrt_bench tkrt_bench_py > "$out/$side-build.log" 2>&1 ||
    { echo "compare_launch: the $side tree did not build"; tail -n 30 "$out/$side-build.log"; exit 1; }
done
for round in 1 2 3; do
  for side in old new; do
    build="$root/build/compare-$side"
    src="$root"
    [[ "$side" == old ]] && src="$old"
    echo "==> round $round, $side"
    "$python" "$src/bench/bench_driver.py" "$build/bench/libtkrt_bench.so" launch \
      --vectors "$vectors" --self "$build/bench/tkrt_bench" --json "$out/$side-$round.json" \
      2>&1 | grep -v '^bench_driver:'
  done
done
"$python" - "$out" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
def load(side):
  rows = {}
  for path in sorted(glob.glob(os.path.join(out, f"{side}-[0-9].json"))):
    with open(path) as f:
      data = json.load(f)
    for p in data.get("paths", []):
      if p.get("measured"):
        rows.setdefault(p["id"], []).append((p["ns_per_launch"]["median"], p["ratio_to_a"], p["label"]))
  return rows
old, new = load("old"), load("new")
print("\nmedians over the interleaved runs (ns per launch, and the ratio to (a), the raw driver loop):")
for pid in sorted(set(old) & set(new)):
  o_ns = statistics.median(r[0] for r in old[pid]); n_ns = statistics.median(r[0] for r in new[pid])
  o_r = statistics.median(r[1] for r in old[pid]); n_r = statistics.median(r[1] for r in new[pid])
  print(f"  ({pid}) {old[pid][0][2][:48]:<48} old {o_ns:8.1f} ns ({o_r:.3f}x a)  "
        f"new {n_ns:8.1f} ns ({n_r:.3f}x a)  new/old {n_ns / o_ns:.3f}")
PY
