# SPDX-License-Identifier: Apache-2.0
"""Issue 31 on an NVIDIA GPU (driven by test/gpu/run_embed.sh): tkrt.triton embedded in a real
Python process, with PyTorch tensors on CUDA and Triton's own compile output, each case in a child
process with a deadline (a deadlock fails the case instead of hanging the run):

- exchange_threads: 4 threads launch one autotuned add (3 BLOCK variants) whose tuner exchanges
  through a Python store, a torch HashStore and a torch TCPStore (tkrt.exchange.from_torch_store);
- log_threads: TKRT_LOG=debug, logs routed to Python, 4 threads launching new key=["n"] values;
- gil: a thread ticking every 50 ms keeps ticking while the exchange waits out its timeout;
- close: close() after 2000 launches queued without a synchronize, and while 4 threads launch;
- lifetime: temporaries on the stream-ordered allocator (fresh torch.zeros stay zero), and an array
  read through a plain DLPack capsule (synchronous: its source may go right after the call).

Each runs on the native launch path and on the ctypes path (TKRT_PYTHON_LAUNCH=ctypes).
usage: python3 embed_gpu_check.py WORKDIR        prints "EMBED: PASS" or "EMBED: FAIL (...)"
"""
import os
import socket
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "triton"))
from script_checks import check, expect_raises  # noqa: E402
import script_checks  # noqa: E402
from test_python_embed import LockedStore, close_while_launching, run_child, run_threads  # noqa: E402,E501

N = 1 << 20


def compiled_variants(work):
  """The add kernel compiled by Triton for BLOCK 256, 512 and 1024, loaded by tkrt.triton."""
  import torch
  import triton
  import triton.language as tl
  import tkrt.triton as tt

  @triton.jit
  def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)

  x = torch.ones(4096, device="cuda")
  variants = []
  for block in (256, 512, 1024):
    compiled = add_kernel[(triton.cdiv(4096, block),)](x, x, torch.empty_like(x), 4096, BLOCK=block)
    variants.append(tt.load(compiled).variant("cdiv(n, BLOCK)", {"BLOCK": block}))
  torch.cuda.synchronize()
  return variants


def inputs(n=N):
  import torch
  g = torch.Generator(device="cuda").manual_seed(31)
  return (torch.rand(n, device="cuda", generator=g), torch.rand(n, device="cuda", generator=g))


def case_exchange_threads(work):
  import torch
  import torch.distributed as dist
  import tkrt.exchange as tx
  import tkrt.triton as tt
  variants = compiled_variants(work)
  with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
  tcp = dist.TCPStore("127.0.0.1", port, 1, True, wait_for_workers=False)
  for label, exchange in (("Python store", tx.wrap(LockedStore())),
                          ("torch HashStore", tx.from_torch_store(dist.HashStore())),
                          ("torch TCPStore", tx.from_torch_store(tcp))):
    tuner = tt.Tuner(store_dir="off", target_ms=5, exchange=exchange, exchange_timeout_ms=20000)
    launch = tt.prepare(variants, tuner=tuner, n=N)
    x, y = inputs()
    outs = [torch.full_like(x, float("nan")) for _ in range(4)]
    barrier = threading.Barrier(4)

    def body(i):
      barrier.wait(30)
      launch(x, y, outs[i])

    run_threads(4, body, 90, f"exchange through a {label}")
    torch.cuda.synchronize()
    check(all(torch.equal(o, x + y) for o in outs), f"{label}: every thread's out == x + y")


def case_log_threads(work):
  import torch
  import tkrt
  import tkrt.triton as tt
  records = script_checks.tkrt_records()
  variants = compiled_variants(work)
  launch = tt.prepare(variants, tuner=tt.Tuner(store_dir="off", target_ms=2), key=["n"], n=N)
  x, y = inputs()
  wrong = []

  def body(i):
    out = torch.empty_like(x)
    for k in range(5):
      n = 4096 * (1 + i * 5 + k)
      out.fill_(float("nan"))
      launch(x, y, out, n)
      torch.cuda.current_stream().synchronize()
      if not (torch.equal(out[:n], (x + y)[:n]) and torch.isnan(out[n:]).all()):
        wrong.append(n)

  run_threads(4, body, 120, "TKRT_LOG=debug: threads launching new key values on CUDA")
  check(not wrong, f"every launch right ({wrong[:5]})")
  tkrt.flush_logs()
  # What CUDA logs at info and debug here (the driver and the device opened; cubin loads log
  # nothing more), as records: the route works while the threads launch.
  check(records and all(r.name == "tkrt" for r in records),
        f"the library's messages arrived as records ({[r.getMessage()[:60] for r in records]})")


def case_gil(work):
  import torch
  import tkrt.exchange as tx
  import tkrt.triton as tt
  variants = compiled_variants(work)
  ticks = []
  stop = threading.Event()

  def ticker():
    while not stop.is_set():
      ticks.append(time.monotonic())
      time.sleep(0.05)

  thread = threading.Thread(target=ticker, daemon=True)
  thread.start()

  class Follower:  # another rank leads and never publishes
    def set(self, key, value):
      pass

    def get(self, key, timeout_ms):
      time.sleep(timeout_ms / 1000.0)
      return None

    def add(self, key, delta):
      return 2

  try:
    tuner = tt.Tuner(store_dir="off", target_ms=1, exchange=tx.wrap(Follower()),
                     exchange_timeout_ms=1500)
    launch = tt.prepare(variants, tuner=tuner, n=N)
    x, y = inputs()
    out = torch.empty_like(x)
    start, before = time.monotonic(), len(ticks)
    launch(x, y, out)
    elapsed, count = time.monotonic() - start, len(ticks) - before
    torch.cuda.synchronize()
    check(torch.equal(out, x + y) and launch.tune_report()["source"] == "exchange-fallback",
          "the follower fell back and computed x + y")
    check(elapsed > 1.0 and count >= 0.5 * elapsed / 0.05,
          f"waiting for the exchange ({elapsed:.2f} s): the ticker ticked {count} times")
  finally:
    stop.set()
    thread.join(5)


def case_close(work):
  import torch
  import tkrt.triton as tt
  variants = compiled_variants(work)
  x, y = inputs()
  out = torch.empty_like(x)
  add = tt.prepare(variants[2:], n=N)
  for _ in range(2000):
    add(x, y, out)
  add.close()  # no synchronize: close waits for the device
  check(torch.equal(out, x + y), "2000 launches, then close() without synchronize: out whole")
  expect_raises(ValueError, "this prepared launch was closed", lambda: add(x, y, out),
                "a launch after close")
  launch = tt.prepare(variants[1:2], n=N)
  close_while_launching(tt, launch, lambda: (x, y, torch.empty_like(x)), launch.close, 1000,
                        "close")

class CapsuleOnly:
  """An array that only speaks DLPack (a framework tkrt has no fast path for), over a torch tensor."""

  def __init__(self, tensor):
    self.tensor = tensor

  def __dlpack__(self, stream=None, max_version=None, **kwargs):
    return self.tensor.__dlpack__(stream=stream) if max_version is None else \
        self.tensor.__dlpack__(stream=stream, max_version=max_version)

  def __dlpack_device__(self):
    return self.tensor.__dlpack_device__()


def case_lifetime(work):
  import torch
  import tkrt.triton as tt
  variants = compiled_variants(work)
  add = tt.prepare(variants[2:], n=N)
  x, y = inputs()
  stray = 0
  for _ in range(100):
    add(x, y, torch.empty_like(x))  # freed at once: the allocator reuses it on this stream only
    fresh = torch.zeros_like(x)
    torch.cuda.synchronize()
    stray += int(bool(fresh.any()))
  check(stray == 0, f"temporaries on the stream-ordered allocator: {stray} fresh zeros held output")
  out = torch.empty_like(x)
  source = x.clone()
  add(CapsuleOnly(source), y, out)  # read through a capsule: waited for before the capsule goes
  want = source + y
  del source
  check(torch.equal(out, want), "an array read through a DLPack capsule: whole on return")


CASES = {"exchange_threads": (case_exchange_threads, 240), "log_threads": (case_log_threads, 240),
         "gil": (case_gil, 120), "close": (case_close, 120), "lifetime": (case_lifetime, 120)}


def main():
  if len(sys.argv) == 4 and sys.argv[1] == "--case":
    name, work = sys.argv[2], sys.argv[3]
    try:
      CASES[name][0](work)
    except BaseException as e:  # noqa: BLE001
      import traceback
      traceback.print_exc()
      check(False, f"{name} raised {type(e).__name__}: {e}")
    return script_checks.finish(f"embed_gpu {name}")
  work = sys.argv[1]
  os.makedirs(work, exist_ok=True)
  for name, (_, deadline) in CASES.items():
    for path in ("native", "ctypes"):
      env = dict(os.environ, TKRT_PYTHON_LAUNCH=path, TRITON_CACHE_DIR=os.path.join(work, "cache"))
      if name == "log_threads":
        env["TKRT_LOG"] = "debug"
      run_child([sys.executable, os.path.abspath(__file__), "--case", name, work], env, deadline,
                f"{name} ({path})")
  rc = script_checks.finish("embed_gpu_check")
  print("EMBED: PASS" if rc == 0 else f"EMBED: FAIL ({len(script_checks.failures)} checks)")
  return rc


if __name__ == "__main__":
  sys.exit(main())
