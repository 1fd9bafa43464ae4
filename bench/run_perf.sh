#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs issue 17's benchmarks on a machine with an NVIDIA GPU (CUDA driver, JAX with CUDA, jaxlib,
# Triton 3.6 with torch): builds tkrt's benchmarks, the floor library and libtkrt_xla (Release),
# then, each step under its own timeout (configure 100 s, build 150 s, steps 40 + 140 s, step 3's
# 20 + 120 s per run, and step 4's 60 + 120 + 100 s: at most 1090 s in all with 3 runs, typically
# 2 to 4 minutes on an H200):
#   1. the 4-config matmul's first call, tkrt (two processes) vs jaxlib   (tkrt_bench tune)
#   2. the 24-config Triton matmul, cold and warm, tkrt vs jaxlib          (bench/tune_matmul.py)
#   3. the multi-call pipeline and chains vs jaxlib and the floor handlers,
#      command buffers default / off / forced, TKRT_PIPELINE_RUNS (default 3) times in fresh
#      processes: medians and each ratio's range                           (bench/jax_pipeline.py)
#   4. where a chained call's time goes: a profile build (-DTKRT_PROFILE=ON) of libtkrt_xla and
#      the floor, the chains again with --profile, command buffers off / default, counting
#      captured executes (TKRT_XLA_COUNT_CAPTURES=1) (build 120 s, step 100 s)
# TKRT_PERF_STEPS (default "1 2 3 4") picks the steps to run.
# JSON, the log and the tables go to $OUT (default build/perf-out); the tables are printed last.
# Vectors: test/data/jaxlib-0.11.2 (in the repository) or $1.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/bench/bench_common.sh"
bench_setup perf.log "$root/build/perf-out" "$@"
started=$SECONDS

echo "tkrt perf benchmarks (issue 17): $(date -u '+%Y-%m-%d %H:%M:%S UTC'), commit $TKRT_BENCH_COMMIT"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1 ||
  echo "nvidia-smi: not available"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
"$python" -c 'import jax, jaxlib; print("jax", jax.__version__, "jaxlib", jaxlib.__version__)' 2>&1 | tail -n 1
"$python" -c 'import triton; print("triton", triton.__version__)' 2>&1 | tail -n 1
bench_check_vectors

# ---------------------------------------------------------------- build
build="$root/build/perf-gpu"
mkdir -p "$root/build"
echo "==> build ($build)"
if ! timeout 100 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTKRT_BACKEND_HIP=OFF \
      -DTKRT_BUILD_BENCHMARKS=ON -DTKRT_BUILD_XLA=ON -DBUILD_TESTING=OFF \
      -DTKRT_BUILD_EXAMPLES=OFF > "$out/build.log" 2>&1 ||
   ! timeout 150 cmake --build "$build" -j "$jobs" \
      --target tkrt_bench tkrt_bench_py tkrt_bench_floor tkrt_xla >> "$out/build.log" 2>&1; then
  tail -n 40 "$out/build.log"
  exit 1
fi
bench="$build/bench/tkrt_bench"
benchlib="$build/bench/libtkrt_bench.so"
floorlib="$build/bench/libtkrt_bench_floor.so"
xla_lib="$(find "$build" -name libtkrt_xla.so | head -n 1)"
export TKRT_XLA_LIBRARY="$xla_lib"
echo "libtkrt_xla: ${xla_lib:-none}; floor: $floorlib; build took $((SECONDS - started)) s"

steps=" ${TKRT_PERF_STEPS:-1 2 3 4} "
[[ $steps != *" 1 "* ]] || step "tuning, 4-config matmul (tkrt_bench tune)" 40 \
  "$python" "$root/bench/bench_driver.py" "$benchlib" tune --vectors "$vectors" --self "$bench" \
  --json "$out/tuning4.json"
[[ $steps != *" 2 "* ]] || step "tuning, 24-config Triton matmul, cold and warm" 140 \
  env PYTHONUNBUFFERED=1 "$python" "$root/bench/tune_matmul.py" --bench "$bench" \
  --benchlib "$benchlib" --json "$out/tune_matmul.json" --step-timeout 35
pipeline_runs="${TKRT_PIPELINE_RUNS:-3}"
[[ $steps != *" 3 "* ]] || step "pipeline and floor (command buffers default/off/forced; $pipeline_runs runs)" \
  $((20 + 120 * pipeline_runs)) \
  env PYTHONUNBUFFERED=1 "$python" "$root/bench/jax_pipeline.py" --vectors "$vectors" \
  --floor-lib "$floorlib" --json "$out/jax_pipeline.json" --mode-timeout 45 --runs "$pipeline_runs"
if [[ $steps == *" 4 "* ]]; then
  profile_build="$root/build/perf-profile"
  echo
  echo "==> profile build ($profile_build)"
  if timeout 60 cmake -S "$root" -B "$profile_build" -DCMAKE_BUILD_TYPE=Release \
        -DTKRT_BACKEND_HIP=OFF -DTKRT_PROFILE=ON -DTKRT_BUILD_BENCHMARKS=ON -DTKRT_BUILD_XLA=ON \
        -DBUILD_TESTING=OFF -DTKRT_BUILD_EXAMPLES=OFF -DTKRT_BUILD_TOOLS=OFF >> "$out/build.log" 2>&1 &&
     timeout 120 cmake --build "$profile_build" -j "$jobs" --target tkrt_bench_floor tkrt_xla \
        >> "$out/build.log" 2>&1; then
    step "where a chained call's time goes (profile build; command buffers off/default)" 100 \
      env PYTHONUNBUFFERED=1 TKRT_XLA_COUNT_CAPTURES=1 \
      TKRT_XLA_LIBRARY="$(find "$profile_build" -name libtkrt_xla.so | head -n 1)" \
      "$python" "$root/bench/jax_pipeline.py" --vectors "$vectors" --profile --modes off,default \
      --reps 12 --floor-lib "$profile_build/bench/libtkrt_bench_floor.so" \
      --json "$out/jax_profile.json" --mode-timeout 45
  else
    tail -n 20 "$out/build.log"
    failures=$((failures + 1))
  fi
fi

echo
echo "==================== tables (whole run: $((SECONDS - started)) s)"
cat "$tables"
echo "PERF: $([[ $failures == 0 ]] && echo "all ran" || echo "$failures step(s) failed")"
[[ $failures == 0 ]]
