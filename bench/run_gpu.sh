#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every tkrt benchmark on a machine with an NVIDIA GPU (CUDA 13, JAX with CUDA, jaxlib):
# builds tkrt, libtkrt_xla and the benchmarks (Release), then launch overhead (a/b/c/d in one
# process, through bench_driver.py), threads, module load, tuning, and the JAX calls. JSON files,
# the log and the tables go to $OUT (default build/bench-out); the tables are printed last.
# Vectors: test/data/jaxlib-0.11.2 (in the repository) or $1.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/bench/bench_common.sh"
bench_setup bench.log "$root/build/bench-out" "$@"

echo "tkrt benchmarks: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), commit $TKRT_BENCH_COMMIT" \
  "$(git -C "$root" status --porcelain 2>/dev/null | grep -q . && echo '(with uncommitted changes)')"
nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,temperature.gpu \
  --format=csv,noheader 2>&1 || echo "nvidia-smi: not available"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
"$python" -c 'import jax, jaxlib; print("jax", jax.__version__, "jaxlib", jaxlib.__version__)' 2>&1 | tail -n 1
bench_check_vectors

# ---------------------------------------------------------------- build
build="$root/build/bench-gpu"
mkdir -p "$root/build"
if grep -q 'add_subdirectory(bench' "$root/CMakeLists.txt"; then
  src="$root"
  extra=(-DTKRT_BUILD_BENCHMARKS=ON -DBUILD_TESTING=OFF -DTKRT_BUILD_EXAMPLES=OFF)
else
  src="$root/bench/standalone" # the top level does not add bench/ yet
  extra=(-DBUILD_TESTING=OFF)
fi
echo "==> build ($src -> $build)"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTKRT_BACKEND_HIP=OFF "${extra[@]}" \
  > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j "$jobs" --target tkrt_bench tkrt_bench_py > "$build.build.log" 2>&1 ||
  { tail -n 40 "$build.build.log"; exit 1; }
bench="$build/bench/tkrt_bench"
benchlib="$build/bench/libtkrt_bench.so"

xla_lib=""
if [[ -f "$root/xla/CMakeLists.txt" ]]; then
  echo "==> build libtkrt_xla (xla/)"
  if cmake -S "$root/xla" -B "$root/build/bench-xla" -DCMAKE_BUILD_TYPE=Release \
       -DTKRT_BACKEND_HIP=OFF > "$out/xla-build.txt" 2>&1 &&
     cmake --build "$root/build/bench-xla" -j "$jobs" >> "$out/xla-build.txt" 2>&1; then
    xla_lib="$(find "$root/build/bench-xla" -name libtkrt_xla.so | head -n 1)"
    export TKRT_XLA_LIBRARY="$xla_lib"
    rm -f "$out/xla-build.txt"
  else
    tail -n 20 "$out/xla-build.txt"
    echo "libtkrt_xla did not build: path (c) and tkrt's JAX targets will be reported as not measured"
  fi
fi
echo "libtkrt_xla: ${xla_lib:-none}"

common=(--vectors "$vectors" --self "$bench")
step "launch overhead (a/b/c/d, one process)" 0 "$python" "$root/bench/bench_driver.py" "$benchlib" \
  launch "${common[@]}" ${xla_lib:+--xla-lib "$xla_lib"} --json "$out/launch_overhead.json"
step "threads" 0 "$bench" threads "${common[@]}" --json "$out/threads.json"
step "module load" 0 "$bench" module-load "${common[@]}" --json "$out/module_load.json"
step "tuning" 0 "$python" "$root/bench/bench_driver.py" "$benchlib" tune "${common[@]}" \
  --json "$out/tuning.json"
step "jax calls" 0 env PYTHONUNBUFFERED=1 "$python" "$root/bench/jax_calls.py" --vectors "$vectors" \
  --json "$out/jax_calls.json"

echo
echo "==================== tables"
cat "$tables"
echo "BENCH: $([[ $failures == 0 ]] && echo "all ran" || echo "$failures step(s) failed")"
[[ $failures == 0 ]]
