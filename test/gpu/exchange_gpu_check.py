# SPDX-License-Identifier: Apache-2.0
"""The decision exchange on a GPU (issue 26), for test/gpu/run_exchange.sh.

`drive` runs 4 processes sharing GPU 0 per scenario and prints the table
"call | policy | choices per rank | agree" and "EXCHANGE: PASS" or "EXCHANGE: FAIL":

- JAX: jax.distributed on 127.0.0.1 (a free port), the jaxlib vectors autotuned_alias (3 configs)
  and matmul_autotuned (4 configs) run through tkrt's FFI target; each process its own empty
  decision store. Scenarios: off (no exchange: disagreement is reported, not required), leader
  and merge (tkrt.use_jax_distributed), kill (leader; rank 1 is SIGKILLed right after it claimed
  leadership of the first call: the others fall back to the same config within the timeout).
- PyTorch: a TCPStore on 127.0.0.1, a tkrt.triton autotuned add (4 near-equal configs) with
  tkrt.triton.Tuner(exchange=tkrt.exchange.from_torch_store(store), ...): off, leader and merge in
  one run (keys prefixed per scenario), kill in a second.

`rank` is one process (started by drive). Every wait has a deadline; drive kills each rank's
process group when it is done or late. Only loopback addresses are used.
  exchange_gpu_check.py drive WORK_DIR BUDGET_SECONDS
"""
import datetime
import json
import os
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "test", "data", "jaxlib-0.11.2")
RANKS = 4
KILL_TIMEOUT_MS = 8000
TIMEOUT_MS = 60000
JAX_CALLS = ("autotuned_alias", "matmul_autotuned")


# ---------------------------------------------------------------- one rank

def write_result(work, scenario, rank, result):
  path = os.path.join(work, f"{scenario}.rank{rank}.json")
  with open(path + ".tmp", "w") as f:
    json.dump(result, f)
  os.replace(path + ".tmp", path)


class KillOnClaim:
  """The victim's store: once it wins a claim (add returns 1), it says so and dies."""

  def __init__(self, inner, mark):
    self.inner, self.mark = inner, mark

  def set(self, key, value):
    return self.inner.set(key, value)

  def get(self, key, timeout_ms):
    return self.inner.get(key, timeout_ms)

  def add(self, key, delta):
    value = self.inner.add(key, delta)
    if key.endswith(".claim") and value == 1:
      self.mark()
      sys.stdout.flush()
      os.kill(os.getpid(), signal.SIGKILL)
    return value


def jax_rank(framework, scenario, rank, port, work):
  import numpy as np
  import jax
  from jax._src import distributed
  jax.distributed.initialize(f"127.0.0.1:{port}", RANKS, rank, local_device_ids=[0],
                             initialization_timeout=60)
  jax.devices()  # every process builds its GPU client now (the topology exchange needs all)
  client = distributed.global_state.client
  import tkrt
  import tkrt.exchange as tx
  tkrt.configure_tuning(tune_dir=os.path.join(work, f"jax-{scenario}-decisions-{rank}"))
  if scenario != "off":
    ex = tkrt.use_jax_distributed(policy="merge" if scenario == "merge" else "leader",
                                  timeout_ms=KILL_TIMEOUT_MS if scenario == "kill" else TIMEOUT_MS,
                                  tuning_key=scenario)
    if scenario == "kill" and rank == 1:
      ex.store = KillOnClaim(ex.store, lambda: client.key_value_set("test/victim-claimed", "1"))
  tkrt.register()
  sys.path.insert(0, os.path.join(ROOT, "test", "xla"))
  import tkrt_frontend as fe
  if scenario == "kill" and rank != 1:
    client.blocking_key_value_get("test/victim-claimed", 90000)  # the victim claims first
  result = {"rank": rank, "calls": {}}
  for name in JAX_CALLS:
    case = json.load(open(os.path.join(DATA, name, "case.json")))
    opaque = open(os.path.join(DATA, name, "call.pb.z"), "rb").read()
    inputs = [np.fromfile(os.path.join(DATA, name, i["file"]), dtype=i["dtype"]).reshape(i["shape"])
              for i in case["inputs"]]
    o = case["outputs"][0]
    want = np.fromfile(os.path.join(DATA, name, o["file"]), dtype=o["dtype"]).reshape(o["shape"])
    shapes = [jax.ShapeDtypeStruct(tuple(o["shape"]), np.dtype(o["dtype"]))]
    aliases = {0: 0} if name == "autotuned_alias" else {}
    fn = jax.jit(lambda *a, opaque=opaque, shapes=shapes, aliases=aliases:
                 fe.call(fe.TKRT_FFI, opaque, *a, out_shapes=shapes, aliases=aliases))
    args = [jax.device_put(a, jax.local_devices()[0]) for a in inputs]  # this process's GPU
    start = time.monotonic()
    out = np.asarray(jax.block_until_ready(fn(*args))[0])
    elapsed = time.monotonic() - start
    if "rtol" in case:
      correct = bool(np.allclose(out.astype(np.float32), want.astype(np.float32),
                                 rtol=case["rtol"], atol=case["atol"]))
    else:
      correct = bool(np.array_equal(out, want))
    report = tx.xla_tune_report(opaque)
    result["calls"]["jax:" + name] = {"report": report, "correct": correct, "elapsed": elapsed}
  result["stats"] = tx.xla_tuner_stats()
  if scenario == "leader":  # once a device is open the exchange is fixed
    try:
      tkrt.use_jax_distributed(policy="merge")
      result["late_set"] = "accepted"
    except tkrt.ConfigurationError as e:
      result["late_set"] = "refused: " + str(e)
  write_result(work, f"jax-{scenario}", rank, result)
  if scenario == "kill":
    # The victim is gone: no shutdown barrier. Rank 0 serves the coordination service, so it
    # stays until the other survivors are done.
    client.key_value_set(f"test/done/{rank}", "1")
    if rank == 0:
      for other in (2, 3):
        try:
          client.blocking_key_value_get(f"test/done/{other}", 30000)
        except Exception:  # noqa: BLE001 - that rank is late; drive reports it
          pass
    sys.stdout.flush()
    os._exit(0)


def torch_rank(scenarios, rank, port, work):
  import torch
  import torch.distributed as dist
  import triton
  import triton.language as tl
  import tkrt.exchange as tx
  import tkrt.triton as tt

  @triton.jit
  def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

  store = dist.TCPStore("127.0.0.1", port, RANKS, rank == 0,
                        timeout=datetime.timedelta(seconds=60))
  n = 1 << 24
  x = torch.rand(n, device="cuda")
  y = torch.rand(n, device="cuda")
  out = torch.empty_like(x)
  configs = ((1024, 4), (1024, 8), (2048, 4), (2048, 8))
  kernels = []
  for block, warps in configs:
    compiled = add_kernel[(triton.cdiv(n, block),)](x, y, out, n, BLOCK=block, num_warps=warps)
    kernels.append((tt.load(compiled), block))
  torch.cuda.synchronize()

  def barrier(name):
    store.add(f"test/barrier/{name}", 1)
    deadline = time.monotonic() + 60
    while store.add(f"test/barrier/{name}", 0) < RANKS and time.monotonic() < deadline:
      time.sleep(0.01)

  for scenario in scenarios:
    if scenario != "kill":
      barrier(scenario)
    options = {}
    if scenario != "off":
      ex = tx.from_torch_store(store, prefix=f"tkrt/{scenario}/")
      if scenario == "kill" and rank == 1:
        ex.store = KillOnClaim(ex.store, lambda: store.set("test/victim-claimed", b"1"))
      options = dict(exchange=ex, exchange_policy="merge" if scenario == "merge" else "leader",
                     exchange_ranks=RANKS,
                     exchange_timeout_ms=KILL_TIMEOUT_MS if scenario == "kill" else TIMEOUT_MS)
    if scenario == "kill" and rank != 1:
      store.wait(["test/victim-claimed"], datetime.timedelta(seconds=90))
    tuner = tt.Tuner(store_dir=os.path.join(work, f"torch-{scenario}-decisions-{rank}"), **options)
    launch = tt.prepare([k.variant("cdiv(n, BLOCK)", {"BLOCK": b}) for k, b in kernels],
                        device="cuda:0", tuner=tuner, n=n)
    out.zero_()
    start = time.monotonic()
    launch(x, y, out)
    torch.cuda.synchronize()
    elapsed = time.monotonic() - start
    result = {"rank": rank, "calls": {"torch:add_4cfg": {
        "report": launch.tune_report(), "correct": bool(torch.equal(out, x + y)),
        "elapsed": elapsed}}, "stats": tx.tuner_stats(tuner)}
    write_result(work, f"torch-{scenario}", rank, result)
  if "kill" in scenarios:
    store.set(f"test/done/{rank}", b"1")
    if rank == 0:
      try:
        store.wait(["test/done/2", "test/done/3"], datetime.timedelta(seconds=30))
      except Exception:  # noqa: BLE001
        pass
    sys.stdout.flush()
    os._exit(0)
  barrier("end")  # the store's server (rank 0) stays until everyone is done


# ---------------------------------------------------------------- the driver

LIVE = set()  # process groups of the ranks running now


def kill_live(*_):
  for pgid in list(LIVE):
    try:
      os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
      pass
  if _:  # a signal: the driver goes too
    os._exit(124)


def free_port():
  with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


def run_group(framework, scenario, work, deadline_s, log):
  """Starts 4 ranks, waits for them up to deadline_s, kills every process group left. Returns
  the exit codes."""
  port = free_port()
  env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false",
             XLA_PYTHON_CLIENT_MEM_FRACTION="0.08", PYTHONUNBUFFERED="1",
             XLA_FLAGS=(os.environ.get("XLA_FLAGS", "") + " --xla_gpu_enable_command_buffer=").strip(),
             TRITON_CACHE_DIR=os.path.join(work, "triton-cache"))
  procs = []
  for rank in range(RANKS):
    out = open(os.path.join(work, f"{framework}-{scenario}.rank{rank}.log"), "w")
    procs.append(subprocess.Popen(
        [sys.executable, __file__, "rank", framework, scenario, str(rank), str(port), work],
        stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True))
    LIVE.add(procs[-1].pid)
  end = time.monotonic() + deadline_s
  codes = []
  for p in procs:
    try:
      codes.append(p.wait(timeout=max(0.1, end - time.monotonic())))
    except subprocess.TimeoutExpired:
      codes.append("timed out")
  for p in procs:
    try:
      os.killpg(p.pid, signal.SIGKILL)  # its process group: nothing is left behind
    except ProcessLookupError:
      pass
    p.wait()
    LIVE.discard(p.pid)
  log(f"  {framework} {scenario}: exit codes {codes}")
  return codes


def load(work, name, rank):
  try:
    return json.load(open(os.path.join(work, f"{name}.rank{rank}.json")))
  except (OSError, ValueError):
    return None


def drive(work, budget):
  started = time.monotonic()
  os.makedirs(work, exist_ok=True)
  lines, problems, notes = [], [], []

  def log(text):
    print(text, flush=True)

  def left():
    return budget - (time.monotonic() - started)

  groups = [("jax", "off"), ("jax", "leader"), ("jax", "merge"), ("jax", "kill"),
            ("torch", "off,leader,merge"), ("torch", "kill")]
  for framework, scenario in groups:
    deadline = min(90, left() - 5)
    if deadline < 20:
      problems.append(f"{framework} {scenario}: not run (no time left of {budget} s)")
      continue
    codes = run_group(framework, scenario, work, deadline, log)
    for s in scenario.split(","):
      name = f"{framework}-{s}"
      ranks = [load(work, name, r) for r in range(RANKS)]
      expected = [r for r in range(RANKS) if not (s == "kill" and r == 1)]
      if s == "kill" and codes[1] != -signal.SIGKILL:
        problems.append(f"{name}: rank 1 was not SIGKILLed after its claim (exit {codes[1]})")
      missing = [r for r in expected if ranks[r] is None]
      if missing:
        problems.append(f"{name}: ranks {missing} wrote no result (see {name}.rank*.log)")
        continue
      calls = sorted(ranks[expected[0]]["calls"])
      for call in calls:
        entries = {r: ranks[r]["calls"][call] for r in expected}
        choices = {r: e["report"]["chosen"] for r, e in entries.items()}
        sources = {r: e["report"]["source"] for r, e in entries.items()}
        agree = len(set(choices.values())) == 1
        cells = " ".join(f"{choices.get(r, 'X')}" if r in choices else "killed"
                         for r in range(RANKS))
        lines.append(f"{call:<22} | {s:<6} | {cells:<24} | {'yes' if agree else 'NO'}"
                     f"   ({', '.join(sorted(set(sources.values())))})")
        if not all(e["correct"] for e in entries.values()):
          problems.append(f"{name} {call}: a rank computed a wrong result")
        if s == "off":
          if agree:
            notes.append(f"{call}: independent tuning agreed this time ({choices[expected[0]]} on "
                         f"every rank): the configs are near-equal and noise decides")
          continue
        if not agree:
          problems.append(f"{name} {call}: ranks disagree with the exchange on: {choices}")
        if s == "leader":
          roles = sorted(e["report"]["exchange_role"] for e in entries.values())
          if roles != ["follower"] * (len(expected) - 1) + ["leader"]:
            problems.append(f"{name} {call}: roles {roles}, not one leader")
        if s == "merge" and set(sources.values()) != {"exchange"}:
          problems.append(f"{name} {call}: sources {sources}, not all merged")
        if s == "kill" and call == calls[0]:  # the call whose leader died (run first)
          if set(sources.values()) != {"exchange-fallback"}:
            problems.append(f"{name} {call}: sources {sources}; the survivors should fall back")
          slow = {r: round(e["elapsed"], 2) for r, e in entries.items()
                  if e["elapsed"] > KILL_TIMEOUT_MS / 1000 + 20}
          if slow:
            problems.append(f"{name} {call}: survivors took too long: {slow} s")
      late = [ranks[r].get("late_set") for r in expected if "late_set" in ranks[r]]
      if late and not all(x.startswith("refused: ") and "in use" in x for x in late):
        problems.append(f"{name}: use_jax_distributed after the first call was not refused: {late}")
      if s != "off":
        log(f"  {name} stats: " + "; ".join(f"rank {r}: {ranks[r]['stats']}" for r in expected))
  print()
  print(f"{'call':<22} | policy | {'choices per rank':<24} | agree")
  for line in lines:
    print(line)
  for note in notes:
    print("NOTE:", note)
  if not any(line.split("|")[1].strip() == "off" and "NO" in line.split("|")[3] for line in lines):
    print("NOTE: with the exchange off every call agreed in this run (reported, not a failure)")
  for problem in problems:
    print("FAIL:", problem)
  print(f"exchange checks took {time.monotonic() - started:.0f} s")
  print("EXCHANGE: PASS" if not problems else "EXCHANGE: FAIL")
  return 0 if not problems else 1


def main():
  if sys.argv[1] == "drive":
    signal.signal(signal.SIGTERM, kill_live)
    signal.signal(signal.SIGINT, kill_live)
    try:
      sys.exit(drive(sys.argv[2], float(sys.argv[3])))
    finally:
      kill_live()
  framework, scenario, rank, port, work = sys.argv[2:7]
  if framework == "jax":
    jax_rank(framework, scenario, int(rank), int(port), work)
  else:
    torch_rank(scenario.split(","), int(rank), int(port), work)


if __name__ == "__main__":
  main()
