# SPDX-License-Identifier: Apache-2.0
"""tkrt embedded in a real Python process (issue 31), on the host backend with NumPy arrays: threads
and the GIL, the log, array lifetimes, close, the exchange's waits, tuning-key values, NUL bytes.

Each case runs in a child process of its own with a deadline, so that a regression (a deadlock, a
crash) fails the case, naming it, instead of hanging CI; the launch cases run on both launch paths
(tkrt._native when the test is given it, and ctypes).

| case | issue 31 | what must hold |
|---|---|---|
| exchange_threads | E1 | 4 threads launch one autotuned call whose tuner exchanges through a Python store (a locked dict) or a folder: all finish, all right |
| log_threads | E2 | TKRT_LOG at every level, logs routed to Python, 4 threads launching new key= values: no deadlock, records arrive |
| lifetime | E3 | temporaries and `del` before synchronize: no stray writes, whole results, no crash (n = 2*10**7) |
| views | E4 | a reversed or strided view launches with its first element's address; min_elements counts from it |
| gil | E5 | a thread ticking every 50 ms keeps ticking while the tuner benchmarks and while the exchange waits |
| close | E6 | close() after 2000 launches, and while 4 threads launch; clear_cache() likewise |
| exchange_lock, hung_store | E7 | a folder lock held by another process ends within exchange_timeout_ms; a store that never answers leaves at most MAX_STUCK threads |
| keys, exhausted | E8 | two keyed calls over 4096 values share their modules (the process's mappings do not grow with them); a host image that cannot be mapped is RESOURCE_EXHAUSTED naming the cause |
| nul, ordinal, store_types | E9, E10, E16 | NUL bytes are ValueError; xla_tune_report's ordinal is range-checked; a get returning str is an error |

usage: test_python_embed.py HOST_256.so HOST_512.so HOST_1024.so [CASE ...]
Needs NumPy >= 1.22 (else exits 77, skipped); TKRT_LIBRARY / TKRT_XLA_LIBRARY as the other tests.
"""
import gc
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import script_checks  # noqa: E402 - the scripts' own helpers (this folder)

np = script_checks.numpy_with_dlpack()

from host_add import aligned, kernel_dirs  # noqa: E402
from script_checks import check, expect_raises  # noqa: E402

HOST = sys.argv[1:4]
N = 5000


# ---------------------------------------------------------------- shared by the cases

def modules():
  import tkrt
  import tkrt.exchange as tx
  import tkrt.triton as tt
  return tkrt, tx, tt


def load_variants(tt, work):
  kernels = [tt.load(folder, allow_native_code=True) for folder in kernel_dirs(work, HOST)]
  return [k.variant("cdiv(n, BLOCK)", {"BLOCK": b}) for k, b in zip(kernels, (256, 512, 1024))]


def inputs(n=N):
  x, y = aligned(n), aligned(n)
  x[:] = np.arange(n, dtype=np.float32) * np.float32(0.25)
  y[:] = np.float32(3.0) / (np.arange(n, dtype=np.float32) + np.float32(1))
  return x, y


def run_threads(count, target, deadline_s, label):
  """Runs target(i) on `count` threads; True when all ended within the deadline. A thread that did
  not is a hang: said, and the process ends at once (it cannot be joined)."""
  errors = []

  def body(i):
    try:
      target(i)
    except BaseException as e:  # noqa: BLE001 - reported below
      errors.append(f"thread {i}: {type(e).__name__}: {e}")

  threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(count)]
  for t in threads:
    t.start()
  end = time.monotonic() + deadline_s
  for t in threads:
    t.join(max(0.0, end - time.monotonic()))
  hung = [t for t in threads if t.is_alive()]
  if hung:
    check(False, f"{label}: {len(hung)} of {count} threads still running after {deadline_s} s "
          f"(a deadlock)")
    print(script_checks.finish("test_python_embed child"), flush=True)
    os._exit(1)
  check(not errors, f"{label}: no thread raised ({errors[:3]})")
  return not errors


def close_while_launching(tt, launch, make_args, close, min_launches, label):
  """4 threads launch `launch` (with make_args()) until a launch raises; close() runs once they
  made min_launches. Checks that every thread ended, each on an error saying it was closed."""
  counts, ended = [0] * 4, [None] * 4

  def body(i):
    args = make_args()
    while True:
      try:
        launch(*args)
      except (ValueError, tt.Error) as e:
        ended[i] = str(e)
        return
      counts[i] += 1

  threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(4)]
  for t in threads:
    t.start()
  while sum(counts) < min_launches and any(t.is_alive() for t in threads):
    time.sleep(0.001)
  close()
  for t in threads:
    t.join(30)
  check(not any(t.is_alive() for t in threads), f"{label} while 4 threads launch: all ended")
  check(all(e and "closed" in e for e in ended),
        f"{label} while 4 threads launch: each thread's next launch said it was closed "
        f"({set(ended)}, {sum(counts)} launches)")


class LockedStore:
  """A key-value store in this process: a dict behind a lock, get waiting on a condition (what a
  c10d HashStore is). Its methods take Python locks, so they need the GIL."""

  def __init__(self):
    self.cv = threading.Condition()
    self.values, self.counters = {}, {}

  def set(self, key, value):
    with self.cv:
      self.values[key] = bytes(value)
      self.cv.notify_all()

  def get(self, key, timeout_ms):
    end = time.monotonic() + timeout_ms / 1000.0
    with self.cv:
      while key not in self.values:
        left = end - time.monotonic()
        if left <= 0:
          return None
        self.cv.wait(left)
      return self.values[key]

  def add(self, key, delta):
    with self.cv:
      self.counters[key] = self.counters.get(key, 0) + delta
      return self.counters[key]


# ---------------------------------------------------------------- the cases (in the child)

def case_exchange_threads(work):
  """E1: 4 threads launch one autotuned call with a Python store, then a folder, as exchange."""
  tkrt, tx, tt = modules()
  variants = load_variants(tt, work)
  for label, exchange in (("Python store", tx.wrap(LockedStore())),
                          ("folder", tx.from_folder(os.path.join(work, "exchange")))):
    tuner = tt.Tuner(store_dir="off", target_ms=5, exchange=exchange, exchange_timeout_ms=20000)
    launch = tt.prepare(variants, device="host", tuner=tuner, n=N)
    x, y = inputs()
    outs = [aligned(N) for _ in range(4)]
    barrier = threading.Barrier(4)

    def body(i):
      barrier.wait(10)
      outs[i].fill(np.nan)
      launch(x, y, outs[i])

    run_threads(4, body, 60, f"exchange through a {label}")
    check(all(np.array_equal(o, x + y) for o in outs), f"{label}: every thread's out == x + y")
    check(launch.tune_report()["source"] in ("tuned", "exchange"),
          f"{label}: decided through the exchange ({launch.tune_report()['source']})")


def case_log_threads(work):
  """E2: logs routed to Python at the level TKRT_LOG gives, threads launching new key= values."""
  tkrt, tx, tt = modules()
  records = script_checks.tkrt_records()
  level = os.environ.get("TKRT_LOG", "warn")
  variants = load_variants(tt, work)
  tuner = tt.Tuner(store_dir="off", target_ms=2)
  launch = tt.prepare(variants, device="host", tuner=tuner, key=["n"], n=N)
  x, y = inputs()
  wrong = []

  def body(i):
    out = aligned(N)
    for k in range(5):
      n = 16 * (1 + i * 5 + k) * 10  # 20 values not seen before, 5 per thread
      out.fill(np.nan)
      launch(x, y, out, n)
      if not (np.array_equal(out[:n], (x + y)[:n]) and np.isnan(out[n:]).all()):
        wrong.append(n)

  run_threads(4, body, 90, f"TKRT_LOG={level}: threads launching new key values")
  check(not wrong, f"TKRT_LOG={level}: every launch right ({wrong[:5]})")
  tkrt.flush_logs()
  debug = [r for r in records if r.levelno == logging.DEBUG]
  if level == "debug":
    check(debug, f"TKRT_LOG=debug: debug records arrived ({len(records)} records)")
  else:
    check(not debug, f"TKRT_LOG={level}: no debug records ({len(debug)})")


def case_lifetime(work):
  """E3: arrays a launch reads live until it has run; what NumPy users see is decided: a host
  launch returns once its work has run."""
  tkrt, tx, tt = modules()
  kernels = [tt.load(folder, allow_native_code=True) for folder in kernel_dirs(work, HOST)]
  add = kernels[2].prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="host", n=N)
  x, y = inputs()
  # A temporary output, freed as the call returns; a fresh zeroed array may take its memory: a
  # launch still running would write x + y into it.
  stray = 0
  for _ in range(200):
    add(x, y, np.empty(N, dtype=np.float32))
    fresh = np.zeros(N, dtype=np.float32)
    stray += int(fresh.any())
  check(stray == 0, f"200 launches into temporaries: no fresh np.zeros array holds kernel output "
        f"({stray} did)")
  # The result is whole when the call returns, before any synchronize.
  out = aligned(N)
  for _ in range(20):
    out.fill(np.nan)
    add(x, y, out)
    if not np.array_equal(out, x + y):
      break
  check(np.array_equal(out, x + y), "out == x + y as soon as the launch returns")
  # del before synchronize: the launch used the arrays; dropping them after is safe.
  a, b = inputs()
  want = a + b
  out.fill(np.nan)
  add(a, b, out)
  del a, b
  gc.collect()
  add.synchronize()
  check(np.array_equal(out, want), "del x, y before synchronize(): out is whole")
  # Temporaries of 2*10**7 elements (x + 1 lives only for the call).
  big = 20_000_000
  xs = np.arange(big, dtype=np.float32) % np.float32(1000)
  o = np.empty(big, dtype=np.float32)
  add_big = kernels[2].prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="host", n=big)
  ok = True
  for _ in range(3):
    o.fill(np.nan)
    add_big(xs + np.float32(1), xs, o)
    ok = ok and np.array_equal(o, xs + np.float32(1) + xs)
  check(ok, "f(x + 1, x, o) with n = 2*10**7, three times: o == 2x + 1")
  # A stream of tkrt's own: the same (the arrays still have no stream order).
  dev = tt.device("host")
  stream = dev.create_stream()
  out.fill(np.nan)
  add(x, y, out, stream=stream)
  check(np.array_equal(out, x + y), "on a stream of Device.create_stream: whole on return")
  dev.destroy_stream(stream)


def case_views(work):
  """E4: the pointer passed is the view's first element, as Triton passes data_ptr()."""
  tkrt, tx, tt = modules()
  x = aligned(N)
  x[:] = np.arange(N, dtype=np.float32)
  for label, view in (("reversed", x[::-1]), ("every other", x[::2]), ("reversed 2-D", x.reshape(50, 100)[::-1, ::-1])):
    info = tt.array_info(view)
    first = view.__array_interface__["data"][0]
    check(info[0] == first, f"{label} view: array_info's address is the first element "
          f"({info[0]:#x} == {first:#x})")
    if tt.launch_path == "native":
      tt._configure_native()
      native = tt._native._array(view)
      check(native[0] == first and native[1] == info[3],
            f"{label} view: the native reader agrees ({native[0]:#x}, {native[1]} bytes)")
  check(tt.array_info(x[::-1])[3] == 4, "a reversed view's extent counts from its first element up")
  kernels = [tt.load(folder, allow_native_code=True) for folder in kernel_dirs(work, HOST)]
  add = kernels[2].prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="host",
                           min_elements={"x_ptr": N, "y_ptr": N, "out_ptr": N}, n=N)
  y, out = aligned(N), aligned(N)
  # Reversed, its first element (the base's last, 16-byte aligned: tt.divisibility holds) spans
  # 4 bytes from there up: the C library refuses it against min_elements.
  backwards = aligned(N + 1)[::-1]
  expect_raises(tt.Error, "spans 4 bytes; the launch was prepared with min_elements x_ptr=5000",
                lambda: add(backwards, y, out), "a reversed view for an n-element input")


def case_gil(work):
  """E5: other Python threads run while the tuner benchmarks and while the exchange waits."""
  tkrt, tx, tt = modules()
  variants = load_variants(tt, work)
  ticks = []
  stop = threading.Event()

  def ticker():
    while not stop.is_set():
      ticks.append(time.monotonic())
      time.sleep(0.05)

  thread = threading.Thread(target=ticker, daemon=True)
  thread.start()
  try:
    big = 1 << 22  # milliseconds a launch: the tuner's 100 iterations of 3 configs take a while
    x, y = inputs(big)
    out = aligned(big)
    tuner = tt.Tuner(store_dir="off", target_ms=400, prune_margin=-1.0)  # every config timed fully
    launch = tt.prepare(variants, device="host", tuner=tuner, n=big)
    start, before = time.monotonic(), len(ticks)
    launch(x, y, out)
    elapsed, count = time.monotonic() - start, len(ticks) - before
    check(elapsed > 0.2 and count >= 0.5 * elapsed / 0.05,
          f"benchmarking ({elapsed:.2f} s): the ticker ticked {count} times (>= half of "
          f"{elapsed / 0.05:.0f})")

    class Follower:  # another rank leads and never publishes: this one waits out the timeout
      def set(self, key, value):
        pass

      def get(self, key, timeout_ms):
        time.sleep(timeout_ms / 1000.0)
        return None

      def add(self, key, delta):
        return 2

    tuner = tt.Tuner(store_dir="off", target_ms=1, exchange=tx.wrap(Follower()),
                     exchange_timeout_ms=1500)
    launch = tt.prepare(variants, device="host", tuner=tuner, n=N)
    x, y = inputs()
    out = aligned(N)
    start, before = time.monotonic(), len(ticks)
    launch(x, y, out)
    elapsed, count = time.monotonic() - start, len(ticks) - before
    check(launch.tune_report()["source"] == "exchange-fallback" and np.array_equal(out, x + y),
          "the follower fell back after the timeout, and computed x + y")
    check(elapsed > 1.0 and count >= 0.5 * elapsed / 0.05,
          f"waiting for the exchange ({elapsed:.2f} s): the ticker ticked {count} times")
  finally:
    stop.set()
    thread.join(5)


def case_close(work):
  """E6: close() waits for queued and running launches; later launches are refused by name."""
  tkrt, tx, tt = modules()
  kernels = [tt.load(folder, allow_native_code=True) for folder in kernel_dirs(work, HOST)]
  x, y = inputs()
  add = kernels[2].prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="host", n=N)
  out = aligned(N)
  for _ in range(2000):
    add(x, y, out)
  add.close()
  check(np.array_equal(out, x + y), "2000 launches, then close() without synchronize: out whole")
  expect_raises(ValueError, "this prepared launch was closed", lambda: add(x, y, out),
                "a launch after close")
  add.close()  # again: nothing

  for how in ("close", "clear_cache"):
    launch = kernels[1].prepare("cdiv(n, BLOCK)", constants={"BLOCK": 512}, device="host", n=N)
    close_while_launching(tt, launch, lambda: (x, y, aligned(N)),
                          launch.close if how == "close" else tt.clear_cache, 100, how)


def case_exchange_lock(work):
  """E7: a folder whose counter lock another process holds: the rank waits no longer than
  exchange_timeout_ms (the lock's own cap is 10 s)."""
  tkrt, tx, tt = modules()
  variants = load_variants(tt, work)
  x, y = inputs()
  out = aligned(N)
  # The lock file the call's claim takes, learned from a first exchange in another folder.
  first = os.path.join(work, "first")
  tuner = tt.Tuner(store_dir="off", target_ms=1, exchange=tx.from_folder(first),
                   exchange_timeout_ms=5000)
  tt.prepare(variants, device="host", tuner=tuner, n=N)(x, y, out)
  locks = sorted(f for f in os.listdir(first) if f.startswith("l."))
  check(len(locks) == 1, f"the claim's lock file ({locks})")
  second = os.path.join(work, "second")
  os.makedirs(second)
  lock_path = os.path.join(second, locks[0])
  open(lock_path, "w").close()
  holder = subprocess.Popen(
      [sys.executable, "-c", "import fcntl, os, sys, time\n"
       "fd = os.open(sys.argv[1], os.O_RDWR)\nfcntl.flock(fd, fcntl.LOCK_EX)\n"
       "print('locked', flush=True)\ntime.sleep(120)\n", lock_path],
      stdout=subprocess.PIPE, text=True)
  try:
    check(holder.stdout.readline().strip() == "locked", "another process holds the lock")
    tuner = tt.Tuner(store_dir="off", target_ms=1, exchange=tx.from_folder(second),
                     exchange_timeout_ms=500)
    launch = tt.prepare(variants, device="host", tuner=tuner, n=N)
    out.fill(np.nan)
    start = time.monotonic()
    launch(x, y, out)
    elapsed = time.monotonic() - start
    report = launch.tune_report()
    check(report["source"] == "exchange-fallback" and np.array_equal(out, x + y),
          f"a held lock: the rank fell back ({report['source']}: {report['fallback_reason'][:100]})")
    check(elapsed < 3.0, f"a held lock: the launch took {elapsed:.2f} s with exchange_timeout_ms "
          f"500 (the lock's own cap is 10 s)")
  finally:
    holder.kill()
    holder.wait()


def case_hung_store(work):
  """E7: a store whose calls never return leaves at most tkrt.exchange.MAX_STUCK threads."""
  tkrt, tx, tt = modules()
  never = threading.Event()

  class Hung:
    def set(self, key, value):
      never.wait()

    def get(self, key, timeout_ms):
      never.wait()

    def add(self, key, delta):
      never.wait()

  exchange = tx.wrap(Hung(), call_timeout_ms=300)
  variants = load_variants(tt, work)
  x, y = inputs()
  out = aligned(N)
  for i in range(10):  # ten decisions, each through the same hung store
    tuner = tt.Tuner(store_dir="off", target_ms=1, exchange=exchange, exchange_timeout_ms=400,
                     tuning_key=f"hung-{i}")
    launch = tt.prepare(variants, device="host", tuner=tuner, n=N)
    out.fill(np.nan)
    start = time.monotonic()
    launch(x, y, out)
    elapsed = time.monotonic() - start
    check(np.array_equal(out, x + y) and elapsed < 3.0,
          f"decision {i}: x + y after {elapsed:.2f} s ({launch.tune_report()['source']})")
  threads = [t for t in threading.enumerate() if t.name == "tkrt-exchange"]
  check(len(threads) <= tx.MAX_STUCK and exchange.running <= tx.MAX_STUCK,
        f"hung store calls: {len(threads)} threads left (at most {tx.MAX_STUCK})")
  check("calls to the store have not returned" in exchange.last_error,
        f"the calls beyond the bound fail at once, saying why ({exchange.last_error})")


def maps_count():
  with open("/proc/self/maps") as f:
    return sum(1 for _ in f)


def case_keys(work):
  """E8: tuning-key values share the loaded modules: 2 keyed calls over 4096 values each."""
  tkrt, tx, tt = modules()
  variants = load_variants(tt, work)
  size = 16 * 4096
  x, y = inputs(size)
  out = aligned(size)
  launches = []
  for c in range(2):
    tuner = tt.Tuner(store_dir="off", pins="*=0", tuning_key=f"keys-{c}")
    launches.append(tt.prepare(variants, device="host", tuner=tuner, key=["n"], n=16))
  launches[0](x, y, out, 16)
  launches[1](x, y, out, 16)
  before = maps_count()
  for n in range(32, size + 1, 16):
    for launch in launches:
      launch(x, y, out, n)
  grown = maps_count() - before
  check(np.array_equal(out, x + y), "the last launch (n = 65536) computed x + y")
  check(grown < 100, f"8190 new key values: the process's mappings grew by {grown} (modules shared)")


def case_exhausted(work):
  """E8: a host image the loader cannot map for want of mappings or memory is RESOURCE_EXHAUSTED
  naming the cause (the address space limited to what the process holds, here)."""
  import resource
  tkrt, tx, tt = modules()
  kernels = [tt.load(folder, allow_native_code=True) for folder in kernel_dirs(work, HOST)]
  tt.device("host")
  with open("/proc/self/status") as f:
    vm = [int(line.split()[1]) for line in f if line.startswith("VmSize:")][0] * 1024
  resource.setrlimit(resource.RLIMIT_AS, (vm + 4096, resource.RLIM_INFINITY))
  e = expect_raises(tt.Error, "cannot load the host image: the process is out of memory mappings "
                    "or memory", lambda: kernels[0].prepare((1,), device="host", n=16),
                    "a host image that cannot be mapped")
  check(e is not None and e.code == "RESOURCE_EXHAUSTED" and "vm.max_map_count" in str(e),
        f"RESOURCE_EXHAUSTED, naming vm.max_map_count ({getattr(e, 'code', None)})")


def case_nul(work):
  """E9: a NUL byte in a path, a setting or a key is a ValueError (C would cut the string)."""
  tkrt, tx, tt = modules()
  for label, fn in (
      ("tt.Tuner(store_dir=...)", lambda: tt.Tuner(store_dir=os.path.join(work, "a\0b"))),
      ("tt.Tuner(pins=...)", lambda: tt.Tuner(pins="*=0\0junk")),
      ("tkrt.configure(log=...)", lambda: tkrt.configure(log="info\0debug")),
      ("tkrt.configure(backend=...)", lambda: tkrt.configure(backend="cuda\0host")),
      ("tkrt.configure(tune_dir=...)", lambda: tkrt.configure(tune_dir=os.path.join(work, "a\0b"))),
      ("tkrt.exchange.from_folder(...)", lambda: tx.from_folder(os.path.join(work, "x\0y"))),
      ("tkrt.exchange.wrap(prefix=...)", lambda: tx.wrap(LockedStore(), prefix="a\0b")),
      ("tkrt.use_jax_distributed(tuning_key=...)",
       lambda: tkrt.use_jax_distributed(tuning_key="run\0other")),
      ("tt.Tuner(tuning_key=...)", lambda: tt.Tuner(exchange=LockedStore(), tuning_key="a\0b")),
      ("tt.configure(tune_dir=...)", lambda: tt.configure(tune_dir="x\0y")),
  ):
    expect_raises(ValueError, "NUL", fn, label)
  check(not os.path.exists(os.path.join(work, "a")) and not os.path.exists(os.path.join(work, "x")),
        "nothing was made at the cut-off path")


def case_ordinal(work):
  """E10: xla_tune_report's ordinal and max_configs are range-checked before C sees them."""
  tkrt, tx, tt = modules()
  for ordinal in (2**31, -1, 2**64, True):
    expect_raises(ValueError, "is not a device index in 0..2^31-1",
                  lambda: tx.xla_tune_report(b"x", ordinal=ordinal), f"ordinal {ordinal!r}")
  expect_raises(ValueError, "max_configs 0 is not in 1..2^24",
                lambda: tx.xla_tune_report(b"x", max_configs=0), "max_configs 0")


def case_store_types(work):
  """E16: a get that returns str is an error, as documented (not decoded)."""
  tkrt, tx, tt = modules()

  class Text(LockedStore):
    def get(self, key, timeout_ms):
      return "tkrt-exchange 1\n"

    def add(self, key, delta):
      return 2

  exchange = tx.wrap(Text())
  variants = load_variants(tt, work)
  tuner = tt.Tuner(store_dir="off", target_ms=1, exchange=exchange, exchange_timeout_ms=300)
  launch = tt.prepare(variants, device="host", tuner=tuner, n=N)
  x, y = inputs()
  out = aligned(N)
  launch(x, y, out)
  check(launch.tune_report()["source"] == "exchange-fallback" and exchange.errors >= 1
        and "the store returned a str, not bytes" in exchange.last_error,
        f"a str from get: an error, the fallback ran ({exchange.last_error})")


CASES = {
    "exchange_threads": (case_exchange_threads, True, 120),
    "log_threads": (case_log_threads, True, 120),
    "lifetime": (case_lifetime, True, 180),
    "views": (case_views, True, 60),
    "gil": (case_gil, True, 120),
    "close": (case_close, True, 120),
    "exchange_lock": (case_exchange_lock, False, 60),
    "hung_store": (case_hung_store, False, 120),
    "keys": (case_keys, True, 240),
    "exhausted": (case_exhausted, False, 60),
    "nul": (case_nul, False, 60),
    "ordinal": (case_ordinal, False, 60),
    "store_types": (case_store_types, False, 60),
}


# ---------------------------------------------------------------- the driver

def run_child(argv, env, deadline, label):
  """Runs one case in a child process (argv) with a deadline: prints its output under a header
  and checks that it ended, with exit 0, in time (no end: a deadlock, named)."""
  start = time.monotonic()
  try:
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=deadline)
    output, code = done.stdout + done.stderr, done.returncode
  except subprocess.TimeoutExpired as e:
    output = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
    code = None
  print(f"---- {label} ({time.monotonic() - start:.1f} s)")
  print(output.rstrip()[-8000:])
  if code is None:
    check(False, f"{label}: did not end within its deadline of {deadline} s (a deadlock)")
  else:
    check(code == 0, f"{label}: exit {code}" + (f" (signal {-code})" if code < 0 else ""))


def child(name):
  work = tempfile.mkdtemp(prefix=f"tkrt-embed-{name}-")
  try:
    CASES[name][0](work)
  except BaseException as e:  # noqa: BLE001 - the case's failure, named
    import traceback
    traceback.print_exc()
    check(False, f"{name} raised {type(e).__name__}: {e}")
  finally:
    shutil.rmtree(work, ignore_errors=True)
  return script_checks.finish(f"test_python_embed {name}")


def main():
  if "--case" in sys.argv:
    return child(sys.argv[sys.argv.index("--case") + 1])
  wanted = sys.argv[4:] or list(CASES)
  runs = []
  for name in wanted:
    _, both_paths, deadline = CASES[name]
    levels = ("error", "warn", "info", "debug") if name == "log_threads" else (None,)
    paths = ("default", "ctypes") if both_paths else ("default",)
    for path in paths:
      for level in levels:
        env = dict(os.environ)
        if path == "ctypes":
          env.update(TKRT_PYTHON_LAUNCH="ctypes")
        if level:
          env["TKRT_LOG"] = level
        label = name + ("" if path == "default" else " (ctypes)") + (f" TKRT_LOG={level}" if level else "")
        runs.append((label, name, env, deadline))
  for label, name, env, deadline in runs:
    run_child([sys.executable, os.path.abspath(__file__), *HOST, "--case", name], env, deadline,
              label)
  return script_checks.finish("test_python_embed")


if __name__ == "__main__":
  sys.exit(main())
