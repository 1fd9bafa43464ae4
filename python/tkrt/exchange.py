# SPDX-License-Identifier: Apache-2.0
"""tkrt.exchange: tuning decisions that agree across ranks, through a store the ranks share.

    import tkrt.exchange as tx
    ex = tx.from_torch_store(store)                     # a c10d Store (TCPStore, FileStore, ...)
    tuner = tkrt.triton.Tuner(exchange=ex, exchange_policy="leader")

    jax.distributed.initialize(...)
    tkrt.use_jax_distributed(policy="merge")            # libtkrt_xla's tuner, JAX's coordination service

An Exchange wraps any Python object with `set(key, value: bytes)`, `get(key, timeout_ms)` ->
bytes (None, KeyError or TimeoutError when the key is not there in time) and `add(key, delta)` ->
the counter's new value into the C interface the tuner uses (tkrt_exchange_t, tkrt/autotune.h,
docs/autotuning.md), through ctypes callbacks. The callbacks never raise into C: an exception, a
value of the wrong type, or a call that does not return in time is TKRT_EXCHANGE_ERROR (or
DEADLINE_EXCEEDED), and the tuner then runs the same fallback on every rank. Each store call runs
on a thread of its own and is waited for no longer than the tuner has left before its deadline
(so no rank waits past exchange_timeout_ms), with the GIL released while waiting; calls that never
return are bounded: at most MAX_STUCK of them per Exchange, after which calls fail at once. What a
store returns is checked by the C side before it is used (a forged or garbled value is refused).
An Exchange must live as long as every tuner given it (Tuner and use_jax_distributed keep it).
"""

from __future__ import annotations

import ctypes
import datetime
import os
import threading
from typing import Any, Optional

from ._lib import ConfigurationError, TuneReport, load_library, versioned

__all__ = ["Exchange", "wrap", "from_torch_store", "from_jax_client", "from_folder",
           "use_jax_distributed", "tuner_stats", "xla_tune_report", "xla_tuner_stats",
           "apply_to_tuner_options", "POLICIES", "STATS_FIELDS"]

OK, NOT_FOUND, DEADLINE_EXCEEDED, ERROR = 0, 1, 2, 3  # tkrt_exchange_result_t
POLICIES = {"leader": 0, "merge": 1}  # tkrt_exchange_policy_t
MAX_KEY = 200  # TKRT_EXCHANGE_MAX_KEY
# How long a zero-timeout get (a lookup) may take, and how long a set or add may take at most
# (less when the tuner has less left before its deadline): a store that hangs must not hold the
# tuner past its timeout.
TRY_MS = 100
CALL_TIMEOUT_MS = 10000
# Store calls of one Exchange that may be running (or hung) at once; more fail at once (ERROR)
# until one returns, so a store that never answers leaves at most this many threads behind.
MAX_STUCK = 4

_SET = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p,
                        ctypes.c_size_t)
_GET = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint32,
                        ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t))
_ADD = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int64,
                        ctypes.POINTER(ctypes.c_int64))
_SET_WITHIN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p,
                               ctypes.c_size_t, ctypes.c_uint32)
_ADD_WITHIN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int64,
                               ctypes.c_uint32, ctypes.POINTER(ctypes.c_int64))


class _ExchangeStruct(ctypes.Structure):  # tkrt_exchange_t (tkrt/autotune.h)
  _fields_ = [("struct_size", ctypes.c_size_t), ("user", ctypes.c_void_p), ("set", _SET),
              ("get", _GET), ("add", _ADD), ("set_within", _SET_WITHIN),
              ("add_within", _ADD_WITHIN)]


# The uint64_t counters of tkrt_autotuner_stats_t, in order, after its struct_size.
STATS_FIELDS = ("exchange_leader", "exchange_follower", "exchange_merged", "exchange_fallbacks",
                "exchange_refused", "exchange_errors")


class _TunerStats(ctypes.Structure):  # tkrt_autotuner_stats_t (tkrt/autotune.h)
  _fields_ = [("struct_size", ctypes.c_size_t)] + [(n, ctypes.c_uint64) for n in STATS_FIELDS]


def _no_nul(text: str, what: str) -> str:
  """`text`, or a ValueError when it holds a NUL byte (C would read only what comes before it)."""
  if "\0" in text:
    raise ValueError(f"tkrt.exchange: {what} {text!r} contains a NUL byte")
  return text


class _Timeout(Exception):
  pass


class _Stuck(Exception):
  pass


class Exchange:
  """A tkrt_exchange_t over a Python store object (see the module's doc). `prefix` goes before
  every key (keys the tuner makes are "tkrt.<sha256 hex>.<what>"); `call_timeout_ms` bounds a set
  or an add. `errors` counts the callbacks that failed, `last_error` says the last one's reason."""

  def __init__(self, store: Any, prefix: str = "", call_timeout_ms: int = CALL_TIMEOUT_MS):
    for name in ("set", "get", "add"):
      if not callable(getattr(store, name, None)):
        raise TypeError(f"tkrt.exchange: the store ({type(store).__name__}) has no {name}() method; "
                        f"it needs set(key, bytes), get(key, timeout_ms) and add(key, delta)")
    if not isinstance(prefix, str):
      raise TypeError(f"tkrt.exchange: prefix must be a string, not {type(prefix).__name__}")
    _no_nul(prefix, "prefix")
    self.store = store
    self.prefix = prefix
    self.call_timeout_ms = int(call_timeout_ms)
    self.errors = 0
    self.last_error = ""
    self._lock = threading.Lock()
    self._running = 0  # store calls running now (hung ones included)
    # The callback objects live as long as this object; C holds their addresses.
    self._set_cb, self._get_cb, self._add_cb = _SET(self._set), _GET(self._get), _ADD(self._add)
    self._set_within_cb = _SET_WITHIN(self._set_within)
    self._add_within_cb = _ADD_WITHIN(self._add_within)
    self._struct = _ExchangeStruct(ctypes.sizeof(_ExchangeStruct), None, self._set_cb,
                                   self._get_cb, self._add_cb, self._set_within_cb,
                                   self._add_within_cb)
    self._owner = None  # a C adapter's release function (from_folder)

  @property
  def address(self) -> int:
    """The address of the tkrt_exchange_t (for tkrt_autotuner_options_t.exchange)."""
    return ctypes.addressof(self._struct)

  def _failed(self, what: str, key: Any, error: Any) -> int:
    with self._lock:
      self.errors += 1
      self.last_error = f"{what} {key!r}: {error}"
    return ERROR

  def _key(self, key) -> str:
    return self.prefix + key.decode("ascii")

  @property
  def running(self) -> int:
    """Store calls running now (hung ones included; at most MAX_STUCK)."""
    with self._lock:
      return self._running

  def _bounded(self, fn, timeout_ms: int):
    """fn() on a daemon thread, waited for up to timeout_ms (with the GIL released): its result,
    its exception, or _Timeout (the thread is left to finish, or hang, on its own). _Stuck when
    MAX_STUCK calls are running already: no thread is started."""
    with self._lock:
      if self._running >= MAX_STUCK:
        raise _Stuck()
      self._running += 1
    box = []
    done = threading.Event()

    def run():
      try:
        box.append((True, fn()))
      except BaseException as e:  # noqa: BLE001 - handed to the caller
        box.append((False, e))
      finally:
        with self._lock:
          self._running -= 1
        done.set()

    try:
      threading.Thread(target=run, name="tkrt-exchange", daemon=True).start()
    except BaseException:
      with self._lock:
        self._running -= 1
      raise
    if not done.wait(timeout_ms / 1000.0):
      raise _Timeout()
    ok, value = box[0]
    if not ok:
      raise value
    return value

  def _set(self, user, key, value, size):
    return self._set_within(user, key, value, size, self.call_timeout_ms)

  def _set_within(self, user, key, value, size, timeout_ms):
    limit = min(int(timeout_ms), self.call_timeout_ms)
    try:
      name = self._key(key)
      data = ctypes.string_at(value, size) if size else b""
      self._bounded(lambda: self.store.set(name, data), limit)
      return OK
    except _Timeout:
      self._failed("set", key, f"no answer within {limit} ms")
      return DEADLINE_EXCEEDED
    except _Stuck:
      return self._failed("set", key, f"{MAX_STUCK} calls to the store have not returned")
    except BaseException as e:  # noqa: BLE001 - nothing unwinds into C
      return self._failed("set", key, repr(e))

  def _get(self, user, key, timeout_ms, value, capacity, out_size):
    try:
      name = self._key(key)
      try:
        data = self._bounded(lambda: self.store.get(name, int(timeout_ms)),
                             int(timeout_ms) if timeout_ms else TRY_MS)
      except (_Timeout, TimeoutError):
        return DEADLINE_EXCEEDED if timeout_ms else NOT_FOUND
      except KeyError:
        return NOT_FOUND if timeout_ms == 0 else DEADLINE_EXCEEDED
      except _Stuck:
        return self._failed("get", key, f"{MAX_STUCK} calls to the store have not returned")
      if data is None:
        return NOT_FOUND if timeout_ms == 0 else DEADLINE_EXCEEDED
      if not isinstance(data, (bytes, bytearray, memoryview)):
        return self._failed("get", key, f"the store returned a {type(data).__name__}, not bytes")
      data = bytes(data)
      ctypes.memmove(value, data, min(len(data), capacity))
      out_size[0] = len(data)  # larger than capacity: the tuner refuses it as oversized
      return OK
    except BaseException as e:  # noqa: BLE001
      return self._failed("get", key, repr(e))

  def _add(self, user, key, delta, out_value):
    return self._add_within(user, key, delta, self.call_timeout_ms, out_value)

  def _add_within(self, user, key, delta, timeout_ms, out_value):
    limit = min(int(timeout_ms), self.call_timeout_ms)
    try:
      name = self._key(key)
      result = self._bounded(lambda: self.store.add(name, int(delta)), limit)
      if isinstance(result, bool) or not isinstance(result, int) or not -2**63 <= result < 2**63:
        return self._failed("add", key, f"the store returned {result!r}, not a 64-bit integer")
      out_value[0] = result
      return OK
    except _Timeout:
      self._failed("add", key, f"no answer within {limit} ms")
      return DEADLINE_EXCEEDED
    except _Stuck:
      return self._failed("add", key, f"{MAX_STUCK} calls to the store have not returned")
    except BaseException as e:  # noqa: BLE001
      return self._failed("add", key, repr(e))

  def __del__(self):
    owner = getattr(self, "_owner", None)
    if owner is not None:
      owner()

  def __repr__(self):
    return f"<tkrt.exchange.Exchange over {type(self.store).__name__}, prefix {self.prefix!r}>"


def wrap(store: Any, prefix: str = "", call_timeout_ms: int = CALL_TIMEOUT_MS) -> Exchange:
  """An Exchange over any object with set(key, bytes), get(key, timeout_ms) -> bytes | None and
  add(key, delta) -> int (thread-safe: tuners may call it from several threads)."""
  return Exchange(store, prefix, call_timeout_ms)


# ---------------------------------------------------------------- PyTorch (c10d stores)

class _TorchStore:
  """set/get/add over a c10d Store (TCPStore, FileStore, HashStore, PrefixStore)."""

  def __init__(self, store):
    self.store = store

  def set(self, key, value):
    self.store.set(key, value)

  def get(self, key, timeout_ms):
    if timeout_ms == 0:
      return self.store.get(key) if self.store.check([key]) else None
    try:
      # get() alone blocks for the store's own timeout: wait for the key first, bounded.
      self.store.wait([key], datetime.timedelta(milliseconds=timeout_ms))
    except Exception:  # noqa: BLE001 - a timeout, or a store that failed: check() tells which
      if not self.store.check([key]):  # raises when the store is gone
        return None
    return self.store.get(key)

  def add(self, key, delta):
    return int(self.store.add(key, int(delta)))


def from_torch_store(store: Any, prefix: str = "tkrt/") -> Exchange:
  """An Exchange over a torch.distributed Store (TCPStore, FileStore, PrefixStore, the default
  group's store), e.g. for tkrt.triton.Tuner(exchange=...). Keys get `prefix`."""
  for name in ("set", "get", "add", "wait", "check"):
    if not callable(getattr(store, name, None)):
      raise TypeError(f"tkrt.exchange.from_torch_store: {type(store).__name__} has no {name}(); "
                      f"pass a torch.distributed Store")
  return Exchange(_TorchStore(store), prefix)


# ---------------------------------------------------------------- JAX (the coordination service)

def _status_word(error: BaseException) -> str:
  text = str(error)
  for word in ("NOT_FOUND", "DEADLINE_EXCEEDED", "ALREADY_EXISTS"):
    if word in text:
      return word
  return ""


class _JaxClient:
  """set/get/add over jax's DistributedRuntimeClient (jax._src.distributed.global_state.client).
  add uses key_value_increment where jaxlib has it; else a counter is a row of claims: adding 1
  sets "<key>/<n>" without overwrite for n = 1, 2, ... until one is new (the coordination service
  refuses a second set of a key atomically), and that n is the new value."""

  def __init__(self, client):
    self.client = client
    self.increment = getattr(client, "key_value_increment", None)
    self.overwrite = True  # until a jaxlib without allow_overwrite says otherwise

  def set(self, key, value):
    if self.overwrite:
      try:
        return self.client.key_value_set_bytes(key, value, allow_overwrite=True)
      except TypeError:  # an older jaxlib: no allow_overwrite (the tuner sets each key once)
        self.overwrite = False
    self.client.key_value_set_bytes(key, value)

  def get(self, key, timeout_ms):
    try:
      if timeout_ms == 0:
        return bytes(self.client.key_value_try_get_bytes(key))
      return bytes(self.client.blocking_key_value_get_bytes(key, int(timeout_ms)))
    except Exception as e:  # noqa: BLE001
      if _status_word(e) in ("NOT_FOUND", "DEADLINE_EXCEEDED"):
        return None
      raise

  def add(self, key, delta):
    if self.increment is not None:
      return int(self.increment(key, int(delta)))
    if delta != 1:
      raise ValueError(f"this jaxlib has no key_value_increment: only add(key, 1) is supported, "
                       f"not {delta}")
    n = 1
    while True:
      try:
        self.client.key_value_set(f"{key}/{n}", "1")  # no overwrite: fails when taken
        return n
      except Exception as e:  # noqa: BLE001
        if _status_word(e) != "ALREADY_EXISTS":
          raise
      n += 1
      if n > 1 << 20:
        raise RuntimeError(f"{key}: more than 2^20 claims")


def from_jax_client(client: Any = None, prefix: str = "tkrt/") -> Exchange:
  """An Exchange over JAX's coordination service: `client` is a DistributedRuntimeClient, by
  default the one jax.distributed.initialize made (jax._src.distributed.global_state.client)."""
  if client is None:
    try:
      from jax._src import distributed
    except ImportError as e:
      raise ImportError("tkrt.exchange.from_jax_client needs JAX (jax.distributed)") from e
    client = distributed.global_state.client
    if client is None:
      raise RuntimeError("tkrt.exchange.from_jax_client: jax.distributed is not initialised "
                         "(call jax.distributed.initialize first)")
  for name in ("key_value_set", "key_value_set_bytes", "blocking_key_value_get_bytes",
               "key_value_try_get_bytes"):
    if not callable(getattr(client, name, None)):
      raise TypeError(f"tkrt.exchange.from_jax_client: {type(client).__name__} has no {name}(); "
                      f"pass jax's DistributedRuntimeClient")
  return Exchange(_JaxClient(client), prefix)


# ---------------------------------------------------------------- the shared folder (C adapter)

def from_folder(path: str, trust_shared: bool = False) -> Exchange:
  """The C folder adapter (tkrt_exchange_folder_create) for processes on one host or a shared file
  system: every key is a file in `path`. Use a fresh folder per job."""
  path = _no_nul(os.fspath(path) if isinstance(path, os.PathLike) else str(path), "folder")
  lib = load_library()
  lib.tkrt_exchange_folder_create.restype = ctypes.c_void_p
  lib.tkrt_exchange_folder_create.argtypes = [ctypes.c_char_p, ctypes.c_bool, ctypes.c_void_p]
  lib.tkrt_exchange_folder_destroy.restype = None
  lib.tkrt_exchange_folder_destroy.argtypes = [ctypes.c_void_p]
  raw = ctypes.create_string_buffer(ctypes.sizeof(_ExchangeStruct))
  ctypes.cast(raw, ctypes.POINTER(ctypes.c_size_t))[0] = ctypes.sizeof(_ExchangeStruct)
  status = lib.tkrt_exchange_folder_create(str(path).encode(), bool(trust_shared), raw)
  if status:
    lib.tkrt_status_message.restype = ctypes.c_char_p
    lib.tkrt_status_message.argtypes = [ctypes.c_void_p]
    lib.tkrt_status_free.argtypes = [ctypes.c_void_p]
    message = lib.tkrt_status_message(status).decode(errors="replace")
    lib.tkrt_status_free(status)
    raise OSError(f"tkrt.exchange.from_folder({path!r}): {message}")
  ex = Exchange.__new__(Exchange)
  ex.store, ex.prefix, ex.errors, ex.last_error = None, "", 0, ""
  ex._lock, ex._running = threading.Lock(), 0
  ex._struct = _ExchangeStruct.from_buffer(raw)
  ex._raw = raw
  ex._owner = lambda: lib.tkrt_exchange_folder_destroy(raw)
  return ex


# ---------------------------------------------------------------- tuners

def _policy(policy: str) -> int:
  value = POLICIES.get(str(policy).lower())
  if value is None:
    raise ValueError(f"tkrt.exchange: policy {policy!r} is not one of {', '.join(POLICIES)}")
  return value


_TUNER_KEYWORDS = ("exchange_policy", "exchange_ranks", "exchange_timeout_ms", "tuning_key")


def apply_to_tuner_options(options, keep: list, exchange: Any, extra: dict) -> Optional[Exchange]:
  """tkrt.triton.Tuner's exchange keywords into its tkrt_autotuner_options_t mirror: exchange (an
  Exchange, or any object with set/get/add, wrapped), exchange_policy ("leader" | "merge"),
  exchange_ranks (merge: ranks that publish timings), exchange_timeout_ms, tuning_key. Returns
  the Exchange, which the tuner keeps alive."""
  unknown = sorted(set(extra) - set(_TUNER_KEYWORDS))
  if unknown:
    raise TypeError(f"tkrt.triton.Tuner: unknown keyword {unknown[0]!r}")
  if exchange is None:
    if any(extra.get(k) is not None for k in _TUNER_KEYWORDS[:3]):
      raise ValueError("tkrt.triton.Tuner: exchange_policy, exchange_ranks and exchange_timeout_ms "
                       "need an exchange")
  elif not isinstance(exchange, Exchange):
    exchange = wrap(exchange)
  if exchange is not None:
    options.exchange = exchange.address
    policy = extra.get("exchange_policy")
    if policy is not None:
      options.exchange_policy = _policy(policy)
    ranks = extra.get("exchange_ranks")
    if ranks is not None:
      if isinstance(ranks, bool) or not isinstance(ranks, int) or not 1 <= ranks <= 65536:
        raise ValueError(f"tkrt.triton.Tuner: exchange_ranks {ranks!r} is not in 1..65536")
      options.exchange_ranks = ranks
    timeout = extra.get("exchange_timeout_ms")
    if timeout is not None:
      if isinstance(timeout, bool) or not isinstance(timeout, int) or not 0 <= timeout < 2**32:
        raise ValueError(f"tkrt.triton.Tuner: exchange_timeout_ms {timeout!r} is not in 0..2^32-1")
      options.exchange_timeout_ms = timeout
  key = extra.get("tuning_key")
  if key is not None:
    if not isinstance(key, str):
      raise TypeError(f"tkrt.triton.Tuner: tuning_key must be a string, not {type(key).__name__}")
    _no_nul(key, "tuning_key")
    keep.append(key.encode())
    options.tuning_key = keep[-1]
  return exchange


def tuner_stats(tuner: Any) -> dict:
  """The exchange counters of a tkrt.triton.Tuner (tkrt_autotuner_get_stats)."""
  lib = load_library()
  lib.tkrt_autotuner_get_stats.restype = ctypes.c_void_p
  lib.tkrt_autotuner_get_stats.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
  stats = _TunerStats()
  stats.struct_size = ctypes.sizeof(stats)
  status = lib.tkrt_autotuner_get_stats(tuner._handle, ctypes.byref(stats))
  if status:
    raise RuntimeError("tkrt_autotuner_get_stats failed")
  return {n: int(getattr(stats, n)) for n in STATS_FIELDS}


_jax_exchange: Optional[Exchange] = None  # libtkrt_xla's, alive for the process


def use_jax_distributed(policy: str = "leader", timeout_ms: int = 60000,
                        ranks: Optional[int] = None, tuning_key: Optional[str] = None,
                        prefix: str = "tkrt/", client: Any = None) -> Exchange:
  """Gives libtkrt_xla's tuner (the XLA targets') a decision exchange over JAX's coordination
  service, so that every process of a jax.distributed job runs the same config of each autotuned
  call. Call after jax.distributed.initialize and before the first tkrt call runs (later: raises
  tkrt.ConfigurationError, nothing changes). policy: "leader" or "merge" (docs/autotuning.md);
  ranks: for merge, how many processes publish timings (default jax.process_count()); timeout_ms:
  the longest a process waits for the others; tuning_key: goes into every key."""
  global _jax_exchange
  if tuning_key is not None:
    if not isinstance(tuning_key, str):
      raise TypeError(f"tkrt.use_jax_distributed: tuning_key must be a string, not "
                      f"{type(tuning_key).__name__}")
    _no_nul(tuning_key, "tuning_key")
  _no_nul(str(prefix), "prefix")
  value = _policy(policy)
  ex = from_jax_client(client, prefix)
  if ranks is None:
    from jax._src import distributed
    ranks = distributed.global_state.num_processes
  if not (isinstance(ranks, int) and 1 <= ranks <= 65536):
    raise ValueError(f"tkrt.use_jax_distributed: ranks {ranks!r} is not in 1..65536")
  if not (isinstance(timeout_ms, int) and 0 <= timeout_ms < 2**32):
    raise ValueError(f"tkrt.use_jax_distributed: timeout_ms {timeout_ms!r} is not in 0..2^32-1")
  lib = load_library()
  fn = lib.tkrt_xla_set_exchange
  fn.restype = ctypes.c_int
  fn.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_char_p,
                 ctypes.c_char_p, ctypes.c_size_t]
  error = ctypes.create_string_buffer(512)
  key = None if tuning_key is None else str(tuning_key).encode()
  code = fn(ex.address, value, ranks, timeout_ms, key, error, ctypes.sizeof(error))
  if code:
    raise ConfigurationError(error.value.decode(errors="replace"))
  _jax_exchange = ex
  return ex


def xla_tune_report(opaque: bytes, ordinal: int = 0, max_configs: int = 256) -> dict:
  """What libtkrt_xla's tuner decided for the call whose custom-call blob is `opaque` (the
  zlib-compressed call jaxlib's targets take) on device `ordinal`: source, chosen, times_ms,
  fallback_reason, exchange_key, exchange_role, exchange_ranks."""
  if isinstance(ordinal, bool) or not isinstance(ordinal, int) or not 0 <= ordinal < 2**31:
    raise ValueError(f"tkrt.exchange.xla_tune_report: ordinal {ordinal!r} is not a device index "
                     f"in 0..2^31-1")
  if isinstance(max_configs, bool) or not isinstance(max_configs, int) or \
      not 1 <= max_configs <= 1 << 24:
    raise ValueError(f"tkrt.exchange.xla_tune_report: max_configs {max_configs!r} is not in "
                     f"1..2^24")
  if not isinstance(opaque, (bytes, bytearray, memoryview)):
    raise TypeError(f"tkrt.exchange.xla_tune_report: opaque must be bytes, not "
                    f"{type(opaque).__name__}")
  lib = load_library()
  lib.tkrt_tune_report_init.restype = None
  lib.tkrt_tune_report_init.argtypes = [ctypes.c_void_p]
  lib.tkrt_tune_source_name.restype = ctypes.c_char_p
  lib.tkrt_tune_source_name.argtypes = [ctypes.c_int]
  fn = lib.tkrt_xla_tune_report
  fn.restype = ctypes.c_int
  fn.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p,
                 ctypes.c_char_p, ctypes.c_size_t]
  times = (ctypes.c_float * max_configs)()
  report = versioned(TuneReport, lib.tkrt_tune_report_init)
  report.times_ms = times
  report.times_capacity = max_configs
  error = ctypes.create_string_buffer(512)
  code = fn(bytes(opaque), len(opaque), int(ordinal), ctypes.addressof(report), error,
            ctypes.sizeof(error))
  if code:
    raise RuntimeError(f"tkrt.exchange.xla_tune_report: {error.value.decode(errors='replace')}")
  n = min(int(report.config_count), max_configs)
  return {"source": lib.tkrt_tune_source_name(report.source).decode().lower(),
          "chosen": int(report.chosen), "times_ms": [float(t) for t in times[:n]],
          "fallback_reason": report.fallback_reason.decode(errors="replace"),
          "exchange_key": report.exchange_key.decode(errors="replace"),
          "exchange_role": report.exchange_role.decode(errors="replace"),
          "exchange_ranks": int(report.exchange_ranks)}


def xla_tuner_stats() -> dict:
  """The exchange counters of libtkrt_xla's tuner (zeros before it exists)."""
  lib = load_library()
  fn = lib.tkrt_xla_tuner_stats
  fn.restype = None
  fn.argtypes = [ctypes.c_void_p]
  stats = _TunerStats()
  stats.struct_size = ctypes.sizeof(stats)
  fn(ctypes.byref(stats))
  return {n: int(getattr(stats, n)) for n in STATS_FIELDS}
