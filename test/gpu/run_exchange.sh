#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The tuner's decision exchange on a GPU machine (issue 26): 4 processes sharing GPU 0 under
# jax.distributed (the jaxlib vectors autotuned_alias and matmul_autotuned through tkrt's XLA
# target, tkrt.use_jax_distributed) and 4 with a torch.distributed TCPStore (a tkrt.triton
# autotuned add, tkrt.triton.Tuner(exchange=tkrt.exchange.from_torch_store(store))), each with its
# own empty decision store: exchange off, leader, merge, and a leader SIGKILLed after its claim.
# test/gpu/exchange_gpu_check.py prints the table "call | policy | choices per rank | agree" and
# "EXCHANGE: PASS" or "EXCHANGE: FAIL" (exit 1). Needs JAX with CUDA, jaxlib's Triton support,
# Triton and PyTorch. Bounded: under 4 minutes (TKRT_EXCHANGE_BUDGET_S, default 235, build
# included), every wait has a deadline, each rank runs in its own process group, killed when done;
# loopback addresses only. A copy of everything goes to $OUT/exchange.log when OUT is set.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build/xla-gpu"  # test/xla/run.sh's build: incremental after it
jobs="${TKRT_GPU_JOBS:-16}"
budget="${TKRT_EXCHANGE_BUDGET_S:-235}"
if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT"
  exec > >(tee "$OUT/exchange.log") 2>&1
fi
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null || true
python3 -c 'import jax, jaxlib; print("jax", jax.__version__, "jaxlib", jaxlib.__version__)' 2>&1 | tail -1
python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' 2>&1 | tail -1

echo "==> build"
cmake -S "$root/xla" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTKRT_BACKEND_HIP=OFF > "$build.cfg.log" 2>&1 \
  || { cat "$build.cfg.log"; echo "EXCHANGE: FAIL (configure)"; exit 1; }
cmake --build "$build" -j"$jobs" --target tkrt_xla 2>&1 | grep -Ev '^\[ *[0-9]+%\]'
[[ "${PIPESTATUS[0]}" == 0 ]] || { echo "EXCHANGE: FAIL (build)"; exit 1; }

work="$(mktemp -d /tmp/tkrt-exchange.XXXXXX)"
export TKRT_XLA_LIBRARY="$build/libtkrt_xla.so"
export PYTHONPATH="$root/python:$root/test/xla${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
left=$((budget - SECONDS))
# The driver in its own process group: on exit (or a timeout) the whole group goes.
setsid timeout --kill-after=5 "$left" python3 "$here/exchange_gpu_check.py" drive "$work" "$((left - 10))" &
driver=$!
trap 'kill -KILL -- -"$driver" 2>/dev/null' EXIT
wait "$driver"
rc=$?
kill -KILL -- -"$driver" 2>/dev/null
if [[ "$rc" != 0 ]]; then
  for log in "$work"/*.log; do
    [[ -s "$log" ]] || continue
    echo "---- $(basename "$log") (last 15 lines)"
    tail -n 15 "$log"
  done
fi
[[ -n "${OUT:-}" ]] && cp "$work"/*.json "$work"/*.log "$OUT"/ 2>/dev/null
rm -rf "$work"
[[ "$rc" == 124 || "$rc" == 137 ]] && echo "EXCHANGE: FAIL (over the budget of $budget s)"
exit "$rc"
