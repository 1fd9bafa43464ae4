# SPDX-License-Identifier: Apache-2.0
"""tkrt: run JAX's Triton kernel calls through tkrt's XLA targets (libtkrt_xla.so).

    import tkrt
    tkrt.use_for_jax_triton()   # register the targets and route jax-triton / jaxlib calls

The package loads libtkrt_xla.so (see `library_path`; the wheel carries it next to this file)
with ctypes and registers its handlers with `jax.ffi.register_ffi_target`. Importing it needs no
JAX: `version()`, `stats()` and `configure_tuning()` work without it; the functions that talk to
JAX raise an ImportError saying so. docs/xla.md describes the targets and the autotuning policy.
`tkrt.triton`, the launch path for framework arrays, runs on libtkrt.so instead (see
`core_library_path`; docs/triton.md).

The libraries' messages (warnings, and with TKRT_LOG=info or debug what it loads) go to Python's
`logging`, logger "tkrt", from the moment the library is loaded; `route_logs_to_python(False)`
sends them back to stderr. A message logged on a thread that holds the GIL becomes a record at
once; one logged elsewhere (a module loader, an XLA thread, a call that released the GIL) is
queued in the library and delivered by a thread of this package, or by `flush_logs()`, so that
no thread inside tkrt ever waits for the GIL. docs/logging.md says which levels pass.
"""

from __future__ import annotations

import atexit
import ctypes
import logging
import os
import threading
from typing import Iterable, Optional

__version__ = "0.1.0"  # the tkrt release; setup.py checks it against CMakeLists.txt

__all__ = [
    "__version__", "FFI_TARGET", "LEGACY_TARGET", "library_path", "load_library", "register",
    "use_for_jax_triton", "route_jaxlib_targets", "configure", "configure_tuning",
    "ConfigurationError", "stats", "version", "route_logs_to_python", "set_log_level",
    "STATS_FIELDS", "core_library_path", "load_core_library", "use_jax_distributed",
    "flush_logs",
]

FFI_TARGET = "tkrt_triton_kernel_call"
LEGACY_TARGET = "tkrt_triton_kernel_call_legacy"
# jaxlib's target names and the tkrt target that replaces each.
JAXLIB_TARGETS = {"triton_kernel_call_ffi": FFI_TARGET, "triton_kernel_call": LEGACY_TARGET}

_LIB_NAME = "libtkrt_xla.so"
_CORE_NAME = "libtkrt.so.0"
_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None
_core: Optional[ctypes.CDLL] = None
_registered: set = set()
_routing = False


def library_path() -> str:
  """Where libtkrt_xla.so is: $TKRT_XLA_LIBRARY when set, else next to this file (wheel, cmake
  --install). Nothing else is searched, so the library used is always the one asked for."""
  env = os.environ.get("TKRT_XLA_LIBRARY")
  if env:
    if not os.path.isfile(env):
      raise FileNotFoundError(f"TKRT_XLA_LIBRARY={env} does not exist")
    return env
  path = os.path.join(os.path.dirname(os.path.abspath(__file__)), _LIB_NAME)
  if os.path.isfile(path):
    return path
  raise FileNotFoundError(
      f"{path} does not exist: this copy of the tkrt package has no library. Install the wheel "
      f"(pip install ./python, which builds it) or tkrt's cmake --install with -DTKRT_BUILD_XLA=ON, "
      f"or set TKRT_XLA_LIBRARY to a libtkrt_xla.so")


def core_library_path() -> Optional[str]:
  """Where libtkrt.so.0 (tkrt itself: tkrt.triton's library, and the one libtkrt_xla.so links)
  is: $TKRT_LIBRARY when set, else lib/libtkrt.so.0 next to this file (the wheel), else None:
  the one libtkrt_xla.so (library_path()) finds through its run path (cmake --install puts
  libtkrt.so.0 in <prefix>/lib). Nothing else is searched."""
  env = os.environ.get("TKRT_LIBRARY")
  if env:
    if not os.path.isfile(env):
      raise FileNotFoundError(f"TKRT_LIBRARY={env} does not exist")
    return env
  path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", _CORE_NAME)
  if os.path.isfile(path):
    return path
  return None


def _address(lib, name: str) -> int:
  return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value


def _check_one_copy(lib, what: str) -> None:
  """Raises ImportError when `lib` (libtkrt_xla.so, or the library tkrt._native links) resolves
  tkrt's API to another copy of libtkrt than the one loaded here: two copies would be two default
  runtimes, tuners, settings tables and logs in one process."""
  if _core is not None and _address(lib, "tkrt_runtime_default") != _address(_core, "tkrt_runtime_default"):
    raise ImportError(f"{what} uses another copy of libtkrt than {_core._name}, which this process "
                      f"loaded first: a process holds one tkrt (set TKRT_LIBRARY to the "
                      f"libtkrt.so.0 {what} links, or unset it)")


def _require_jax(what: str):
  """Imports jax for `what`, or raises an ImportError that says how to get it."""
  try:
    import jax
  except ImportError as e:
    raise ImportError(
        f"tkrt.{what} needs JAX (jax and a jaxlib with GPU support), which is not installed here: "
        f"see https://docs.jax.dev/en/latest/installation.html, e.g. pip install -U "
        f"\"jax[cuda12]\". Without JAX, tkrt.version(), tkrt.stats() and "
        f"tkrt.configure_tuning() still work.") from e
  return jax


# The uint64_t counters of tkrt_xla_stats_t (xla/tkrt_xla.h), in order, after its struct_size.
# The one place Python lists them: the test package.python_stats_fields checks them against the
# header, and the library writes only the first struct_size bytes, so an older library is safe.
STATS_FIELDS = (
    "instantiated", "initialized", "executed", "executed_captured", "legacy_executed",
    "decoded", "cache_entries", "tuned_in_execute", "capture_fallbacks", "errors",
    "devices_opened", "legacy_status_fallback", "unknown_size_fallbacks", "blob_hashes",
    "prepared")


class _Stats(ctypes.Structure):
  _fields_ = [("struct_size", ctypes.c_size_t)] + [(name, ctypes.c_uint64)
                                                   for name in STATS_FIELDS]


def load_library() -> ctypes.CDLL:
  """Loads libtkrt_xla.so once (RTLD_LOCAL: it exports only tkrt_ symbols anyway), after
  libtkrt.so.0 (load_core_library), which it links: the loader binds its dependency to that one
  by soname, so JAX's targets and tkrt.triton share one tkrt."""
  global _lib
  if _lib is None:
    load_core_library()
  with _lock:
    if _lib is None:
      lib = ctypes.CDLL(library_path())
      _check_one_copy(lib, library_path())
      lib.tkrt_xla_version.restype = ctypes.c_char_p
      lib.tkrt_xla_get_stats.argtypes = [ctypes.POINTER(_Stats)]
      lib.tkrt_xla_get_stats.restype = None
      lib.tkrt_xla_configure.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                         ctypes.c_size_t]
      lib.tkrt_xla_configure.restype = ctypes.c_int
      _attach_log(lib)
      _lib = lib
    return _lib


def load_core_library() -> ctypes.CDLL:
  """Loads libtkrt.so.0 (core_library_path) once: tkrt itself, whose default runtime (devices,
  tuner, decisions, settings) and log tkrt.triton, libtkrt_xla.so and tkrt._native all use.
  Loaded before either of those, which link it, so that they bind to this copy. Where no path is
  known, the copy libtkrt_xla.so finds through its run path."""
  global _core
  with _lock:
    if _core is None:
      path = core_library_path()
      if path is None:
        ctypes.CDLL(library_path())  # brings its libtkrt.so.0; taken below by its soname
        path = _CORE_NAME
      lib = ctypes.CDLL(path)
      _attach_log(lib)
      _core = lib
    return _core


# ---- the library's log, routed to `logging` (tkrt/log.h, docs/logging.md)

# void (*)(void* user, tkrt_log_level_t level, const char* component, const char* message)
_LOG_SINK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p)
# tkrt_log_level_t -> logging level: error, warn, info, debug.
_LOG_LEVELS = {1: logging.ERROR, 2: logging.WARNING, 3: logging.INFO, 4: logging.DEBUG}
_logger = logging.getLogger("tkrt")


def _forward_log(user, level, component, message):
  """The sink: one record on logger "tkrt", "<component>: <message>", with the component also
  in record.tkrt_component. Runs on the thread that logged when that thread held the GIL, else on
  the thread that drains the library's queue (ctypes takes the GIL); never raises into C."""
  try:
    part = component.decode(errors="replace") if component else "?"
    text = message.decode(errors="replace") if message else ""
    _logger.log(_LOG_LEVELS.get(level, logging.WARNING), "%s: %s", part, text,
                extra={"tkrt_component": part})
  except Exception:  # noqa: BLE001 - a logging failure must not unwind through C
    pass


_log_sink = _LOG_SINK(_forward_log)  # alive for the whole process: C may hold it
_log_routed = False
# Whether the calling thread holds the GIL (the queued sink's `direct`): CPython's own function,
# callable from any thread.
_GIL_HELD = ctypes.cast(ctypes.pythonapi.PyGILState_Check, ctypes.c_void_p).value
_LOG_QUEUE = 256  # messages a library keeps for delivery (beyond: dropped, and counted)
_drain_threads: dict = {}  # library handle -> its drain thread
# The libraries whose log is bound (one: libtkrt.so, which libtkrt_xla.so and tkrt._native link),
# and the level set_log_level asked for, given to a library loaded later.
_log_libraries: list = []
_log_level: Optional[int] = None


def _attach_log(lib) -> None:
  """Binds the log API of a library being loaded (under _lock) and gives it the routing and the
  level the others have. A library without the log API is left alone."""
  if not hasattr(lib, "tkrt_log_set_sink") or any(
      _address(l, "tkrt_log_drain") == _address(lib, "tkrt_log_drain") for l in _log_libraries):
    return  # the same library (libtkrt_xla.so uses libtkrt.so.0's log): one log
  lib.tkrt_log_set_sink.argtypes = [_LOG_SINK, ctypes.c_void_p]
  lib.tkrt_log_set_sink.restype = ctypes.c_void_p
  lib.tkrt_log_level_from_string.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
  lib.tkrt_log_level_from_string.restype = ctypes.c_void_p
  lib.tkrt_log_set_level.argtypes = [ctypes.c_int]
  lib.tkrt_log_set_level.restype = ctypes.c_void_p
  lib.tkrt_status_message.argtypes = [ctypes.c_void_p]
  lib.tkrt_status_message.restype = ctypes.c_char_p
  lib.tkrt_status_free.argtypes = [ctypes.c_void_p]
  lib.tkrt_status_free.restype = None
  lib.tkrt_log_set_queued_sink.argtypes = [_LOG_SINK, ctypes.c_void_p, ctypes.c_void_p,
                                           ctypes.c_size_t]
  lib.tkrt_log_set_queued_sink.restype = ctypes.c_void_p
  lib.tkrt_log_drain.argtypes = [ctypes.c_uint32]  # CDLL: the GIL is released while it waits
  lib.tkrt_log_drain.restype = ctypes.c_size_t
  lib.tkrt_log_flush.argtypes = []
  lib.tkrt_log_flush.restype = ctypes.c_size_t
  routed = _log_routed or not _log_libraries  # routed from the first load on, until turned off
  _set_log_sink(lib, routed)
  if _log_level is not None:
    status = lib.tkrt_log_set_level(_log_level)
    if status:
      raise ConfigurationError(_status_text(lib, status))
  _log_libraries.append(lib)


def _loaded_or_xla() -> list:
  """The libraries whose log a setting applies to: those loaded, else libtkrt_xla.so (loaded
  now, as before tkrt.triton had a library of its own)."""
  if not _log_libraries:
    load_library()
  return list(_log_libraries)


def _status_text(lib, status) -> str:
  text = lib.tkrt_status_message(status).decode(errors="replace")
  lib.tkrt_status_free(status)
  return text


def _drain_loop(lib) -> None:
  """Delivers a library's queued messages as they come: waits in C with the GIL released."""
  while True:
    try:
      lib.tkrt_log_drain(500)
    except Exception:  # noqa: BLE001 - the interpreter is going away
      return


def _set_log_sink(lib, enable: bool) -> None:
  """Routes `lib`'s log to `logging` through its queued sink (tkrt_log_set_queued_sink: at once
  on a thread holding the GIL, else queued for the drain thread), or back to stderr. A swap
  delivers what is still queued before it returns; the swap runs with the GIL released (CDLL)."""
  global _log_routed
  if not hasattr(lib, "tkrt_log_set_queued_sink"):
    raise ConfigurationError(f"{lib._name} predates tkrt's queued log sink (tkrt/log.h): "
                             f"rebuild it")
  if enable:
    status = lib.tkrt_log_set_queued_sink(_log_sink, None, _GIL_HELD, _LOG_QUEUE)
  else:
    status = lib.tkrt_log_set_sink(_LOG_SINK(), None)
  if status:
    raise ConfigurationError(_status_text(lib, status))
  _log_routed = enable
  if enable and lib._handle not in _drain_threads:
    thread = threading.Thread(target=_drain_loop, args=(lib,), name="tkrt-log", daemon=True)
    _drain_threads[lib._handle] = thread
    thread.start()


def flush_logs() -> int:
  """Delivers the messages the libraries queued (logged on threads that did not hold the GIL)
  to `logging` now, on this thread; returns how many. tkrt's own Python calls do this before they
  return; call it after calling a library function yourself (ctypes) when its messages must be
  records before you go on."""
  return sum(lib.tkrt_log_flush() for lib in list(_log_libraries))


def route_logs_to_python(enable: bool = True) -> None:
  """Sends the library's messages to `logging` (logger "tkrt"; the default once the library is
  loaded), or with enable=False back to stderr as "tkrt: <component>: <level>: <message>" lines.
  Which messages leave the library is its level (TKRT_LOG, set_log_level; default warn); the
  logger's level and handlers then decide what is shown. Messages logged on threads that Python
  did not start (XLA's, tkrt's module loaders) take the GIL for the record."""
  libs = _loaded_or_xla()
  with _lock:
    for lib in libs:
      _set_log_sink(lib, bool(enable))


def set_log_level(level: str) -> None:
  """Sets the library's log level at any time: "off", "error", "warn", "info" or "debug" (any
  case; also the switch words, 1/on for debug and 0/off for off), as TKRT_LOG does. Raises
  ConfigurationError naming the value for anything else."""
  global _log_level
  libs = _loaded_or_xla()
  if not libs:
    raise ConfigurationError(f"{library_path()} predates tkrt's log API (tkrt/log.h): rebuild it")
  value = ctypes.c_int(0)
  status = libs[0].tkrt_log_level_from_string(str(level).encode(), ctypes.byref(value))
  if status:
    raise ConfigurationError(_status_text(libs[0], status))
  with _lock:
    for lib in libs:
      status = lib.tkrt_log_set_level(value.value)
      if status:
        raise ConfigurationError(_status_text(lib, status))
    _log_level = value.value


@atexit.register
def _unroute_logs() -> None:
  """Before the interpreter goes away, the library's messages go back to stderr: a thread that
  logs late must not call into a finalising interpreter. The swap waits for running calls."""
  if _log_routed:
    for lib in list(_log_libraries):
      try:
        _set_log_sink(lib, False)
      except Exception:  # noqa: BLE001
        pass


def version() -> str:
  """The library's version line: "tkrt-xla <tkrt version> ffi <major>.<minor>"."""
  return load_library().tkrt_xla_version().decode()


def stats() -> dict:
  """Counters of the XLA targets (executions, captured executions, tuning, decode cache...)."""
  s = _Stats()
  s.struct_size = ctypes.sizeof(_Stats)
  load_library().tkrt_xla_get_stats(ctypes.byref(s))
  return {name: int(getattr(s, name)) for name in STATS_FIELDS}


class ConfigurationError(RuntimeError):
  """A setting tkrt refused (an unknown name or value, or set after first use)."""


def configure(**settings: Optional[str]) -> None:
  """Sets the XLA targets' settings through libtkrt_xla's C API (tkrt_xla_configure), before the
  first call: backend and count_captures are the targets' own, every other name is the process's
  default runtime's (the table tkrt.triton.configure writes too).
  Names, words and checks come from tkrt's settings table (docs/settings.md, scope "xla"); words
  are read in any case.

  Names: backend ("cuda,hip" by default), cache_dir, hip_library, log ("off" | "error" | "warn" |
  "info" | "debug": the library's log level, set at once; see also set_log_level), tune_dir, tune_pin,
  tune_policy ("auto" | "never"), tune_prune_margin (a number), capture_policy ("first_config" |
  "error"), count_captures ("on" | "off": count executed_captured in stats(), a driver query per
  execute; off by default). None or "" restores the default. Settings not given here come from the environment
  (TKRT_* variables) when the first call needs them; once the process opens a device (here or in
  tkrt.triton) or a call is tuned they are fixed, and setting one then raises ConfigurationError.
  """
  for name, value in settings.items():  # every value checked before any is applied
    for text, what in ((name, "a setting name"), (None if value is None else str(value), name)):
      if text is not None and "\0" in text:
        raise ValueError(f"tkrt.configure: {what} {text!r} contains a NUL byte (C would read "
                         f"only what comes before it)")
  lib = load_library()
  for name, value in settings.items():
    error = ctypes.create_string_buffer(512)
    code = lib.tkrt_xla_configure(name.encode(), None if value is None else str(value).encode(),
                                  error, ctypes.sizeof(error))
    if code:
      raise ConfigurationError(error.value.decode(errors="replace"))


def configure_tuning(tune_dir: Optional[str] = None, pin: Optional[str] = None,
                     policy: Optional[str] = None, capture_policy: Optional[str] = None,
                     prune_margin: Optional[float] = None) -> None:
  """Sets the autotuner's controls (see configure); call it before the first Triton call.

  tune_dir: decision store directory ("off": memory only); default TKRT_TUNE_DIR, else
    ~/.cache/tkrt/tune.
  pin: "<digest prefix or *>[@arch]=<config>,..." (like TKRT_TUNE_PIN).
  policy: "auto" (benchmark when no decision) or "never" (like TKRT_TUNE_POLICY).
  capture_policy: "first_config" (default: the first runnable config for a capture without a
    decision) or "error" (like TKRT_XLA_CAPTURE_POLICY).
  prune_margin: tuning stops timing a config whose first-round mean is more than
    (1 + prune_margin) x the best (default 0.25; negative: every config timed fully; like
    TKRT_TUNE_PRUNE_MARGIN).
  Arguments left as None keep their current setting.
  """
  given = {"tune_dir": tune_dir, "tune_pin": pin, "tune_policy": policy,
           "capture_policy": capture_policy,
           "tune_prune_margin": None if prune_margin is None else repr(float(prune_margin))}
  configure(**{name: value for name, value in given.items() if value is not None})


def _platforms_present() -> list:
  platforms = ["CUDA"]
  try:
    from jax._src.lib import gpu_triton
    if getattr(gpu_triton, "_hip_triton", None) is not None:
      platforms.append("ROCM")
  except Exception:  # noqa: BLE001 - jaxlib without GPU support: register CUDA only
    pass
  return platforms


def register(platforms: Optional[Iterable[str]] = None) -> tuple:
  """Registers the FFI target (FFI_TARGET) and the legacy target (LEGACY_TARGET) with JAX.

  Idempotent. platforms: default "CUDA", plus "ROCM" when jaxlib has ROCm Triton support.
  Returns (FFI_TARGET, LEGACY_TARGET). Nothing registers on import or through a `jax_plugins`
  entry point: tkrt acts only when a program asks it to (docs/xla.md says why).
  """
  jax = _require_jax("register()")
  from jax._src.lib import xla_client

  lib = load_library()
  traits = getattr(getattr(xla_client, "CustomCallTargetTraits", None),
                   "COMMAND_BUFFER_COMPATIBLE", None)
  bundle = {stage: jax.ffi.pycapsule(getattr(lib, f"tkrt_xla_ffi_{stage}"))
            for stage in ("instantiate", "initialize", "execute")}
  legacy = jax.ffi.pycapsule(lib.tkrt_xla_legacy_call)
  with _lock:
    for platform in (platforms or _platforms_present()):
      if platform in _registered:
        continue
      kwargs = {"traits": traits} if traits is not None else {}
      jax.ffi.register_ffi_target(FFI_TARGET, bundle, platform=platform, api_version=1, **kwargs)
      jax.ffi.register_ffi_target(LEGACY_TARGET, legacy, platform=platform, api_version=0)
      _registered.add(platform)
  return FFI_TARGET, LEGACY_TARGET


def route_jaxlib_targets(enable: bool = True) -> None:
  """Makes every custom call that names jaxlib's Triton targets name tkrt's instead.

  jaxlib registers `triton_kernel_call` / `triton_kernel_call_ffi` itself and XLA refuses a
  second handler under a name, so the swap happens where HLO is built: jax's
  `mlir.custom_call` (used by jax.ffi lowerings, jax-triton, TransformerEngine, ...) is wrapped
  to rename the target. Affects programs lowered after the call.
  """
  global _routing
  _require_jax("route_jaxlib_targets()")
  from jax._src.interpreters import mlir as _mlir
  import jax.interpreters.mlir as _public_mlir
  with _lock:
    original = getattr(_mlir.custom_call, "_tkrt_original", None)
    if enable and original is None:
      inner = _mlir.custom_call

      def custom_call(call_target_name, *args, **kwargs):
        if _routing:
          name = call_target_name.decode() if isinstance(call_target_name, bytes) else call_target_name
          call_target_name = JAXLIB_TARGETS.get(name, call_target_name)
        return inner(call_target_name, *args, **kwargs)

      custom_call._tkrt_original = inner
      _mlir.custom_call = custom_call
      if getattr(_public_mlir, "custom_call", None) is inner:
        _public_mlir.custom_call = custom_call
    _routing = enable


def use_for_jax_triton() -> tuple:
  """One line to run jax-triton's (and jaxlib-built) Triton calls through tkrt.

  Registers the targets, points jax_triton.triton_lib.CUSTOM_CALL_TARGET_NAME at tkrt's FFI
  target when jax-triton is installed, and routes jaxlib's target names to tkrt's.
  """
  _require_jax("use_for_jax_triton()")
  names = register()
  try:
    from jax_triton import triton_lib  # type: ignore
  except ImportError:
    triton_lib = None
  if triton_lib is not None and hasattr(triton_lib, "CUSTOM_CALL_TARGET_NAME"):
    current = triton_lib.CUSTOM_CALL_TARGET_NAME
    triton_lib.CUSTOM_CALL_TARGET_NAME = LEGACY_TARGET if current == "triton_kernel_call" else FFI_TARGET
  route_jaxlib_targets(True)
  return names


def use_jax_distributed(policy: str = "leader", timeout_ms: int = 60000,
                        ranks: Optional[int] = None, tuning_key: Optional[str] = None, **kwargs):
  """Makes every process of a jax.distributed job run the same config of each autotuned call:
  libtkrt_xla's tuner agrees through JAX's coordination service (tkrt.exchange.use_jax_distributed,
  docs/autotuning.md). Call after jax.distributed.initialize, before the first tkrt call runs."""
  from .exchange import use_jax_distributed as use
  return use(policy=policy, timeout_ms=timeout_ms, ranks=ranks, tuning_key=tuning_key, **kwargs)


def __getattr__(name: str):
  """`tkrt.triton` and `tkrt.exchange` on first use, so that `import tkrt` loads nothing more
  than it needs."""
  if name in ("triton", "exchange"):
    import importlib
    return importlib.import_module("." + name, __name__)
  raise AttributeError(f"module 'tkrt' has no attribute {name!r}")
