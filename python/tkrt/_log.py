# SPDX-License-Identifier: Apache-2.0
"""libtkrt's log, routed to Python's `logging` (tkrt/log.h, docs/logging.md).

The process holds one libtkrt (tkrt._lib), so one log: its sink is set here when the library is
loaded (attach). A message logged on a thread that holds the GIL becomes a record at once; one
logged elsewhere (a module loader, an XLA thread, a call that released the GIL) is queued in the
library and delivered by the "tkrt-log" thread of this module, or by flush_logs(), so that no
thread inside tkrt ever waits for the GIL.
"""
from __future__ import annotations

import atexit
import ctypes
import logging
import threading
from typing import Optional

__all__ = ["attach", "flush_logs", "route_logs_to_python", "set_log_level"]

# void (*)(void* user, tkrt_log_level_t level, const char* component, const char* message)
_SINK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p)
# tkrt_log_level_t -> logging level: error, warn, info, debug.
_LEVELS = {1: logging.ERROR, 2: logging.WARNING, 3: logging.INFO, 4: logging.DEBUG}
_logger = logging.getLogger("tkrt")
_QUEUE = 256  # messages the library keeps for delivery (beyond: dropped, and counted)
# Whether the calling thread holds the GIL (the queued sink's `direct`): CPython's own function,
# callable from any thread.
_GIL_HELD = ctypes.cast(ctypes.pythonapi.PyGILState_Check, ctypes.c_void_p).value
_lock = threading.Lock()
_library: Optional[ctypes.CDLL] = None  # libtkrt, once attached
_routed = False
_drain_thread: Optional[threading.Thread] = None


def _forward(user, level, component, message):
  """The sink: one record on logger "tkrt", "<component>: <message>", with the component also
  in record.tkrt_component. Runs on the thread that logged when that thread held the GIL, else on
  the thread that drains the library's queue (ctypes takes the GIL); never raises into C."""
  try:
    part = component.decode(errors="replace") if component else "?"
    text = message.decode(errors="replace") if message else ""
    _logger.log(_LEVELS.get(level, logging.WARNING), "%s: %s", part, text,
                extra={"tkrt_component": part})
  except Exception:  # noqa: BLE001 - a logging failure must not unwind through C
    pass


_sink = _SINK(_forward)  # alive for the whole process: C may hold it


def _status_text(lib, status) -> str:
  text = lib.tkrt_status_message(status).decode(errors="replace")
  lib.tkrt_status_free(status)
  return text


def _configuration_error(text: str) -> Exception:
  from ._lib import ConfigurationError
  return ConfigurationError(text)


def _drain_loop(lib) -> None:
  """Delivers the library's queued messages as they come: waits in C with the GIL released."""
  while True:
    try:
      lib.tkrt_log_drain(500)
    except Exception:  # noqa: BLE001 - the interpreter is going away
      return


def _set_sink(lib, enable: bool) -> None:
  """Routes the log to `logging` through the queued sink (tkrt_log_set_queued_sink: at once on a
  thread holding the GIL, else queued for the drain thread), or back to stderr. A swap delivers
  what is still queued before it returns; the swap runs with the GIL released (CDLL)."""
  global _routed, _drain_thread
  if enable:
    status = lib.tkrt_log_set_queued_sink(_sink, None, _GIL_HELD, _QUEUE)
  else:
    status = lib.tkrt_log_set_sink(_SINK(), None)
  if status:
    raise _configuration_error(_status_text(lib, status))
  _routed = enable
  if enable and _drain_thread is None:
    _drain_thread = threading.Thread(target=_drain_loop, args=(lib,), name="tkrt-log",
                                     daemon=True)
    _drain_thread.start()


def attach(lib) -> None:
  """Binds the log API of libtkrt being loaded (tkrt._lib.load_core_library, under its lock) and
  routes its log to `logging`, the default from the first load on."""
  global _library
  if not hasattr(lib, "tkrt_log_set_queued_sink"):
    raise _configuration_error(f"{lib._name} predates tkrt's queued log sink (tkrt/log.h): "
                               f"rebuild it")
  lib.tkrt_log_set_sink.argtypes = [_SINK, ctypes.c_void_p]
  lib.tkrt_log_set_sink.restype = ctypes.c_void_p
  lib.tkrt_log_level_from_string.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
  lib.tkrt_log_level_from_string.restype = ctypes.c_void_p
  lib.tkrt_log_set_level.argtypes = [ctypes.c_int]
  lib.tkrt_log_set_level.restype = ctypes.c_void_p
  lib.tkrt_status_message.argtypes = [ctypes.c_void_p]
  lib.tkrt_status_message.restype = ctypes.c_char_p
  lib.tkrt_status_free.argtypes = [ctypes.c_void_p]
  lib.tkrt_status_free.restype = None
  lib.tkrt_log_set_queued_sink.argtypes = [_SINK, ctypes.c_void_p, ctypes.c_void_p,
                                           ctypes.c_size_t]
  lib.tkrt_log_set_queued_sink.restype = ctypes.c_void_p
  lib.tkrt_log_drain.argtypes = [ctypes.c_uint32]  # CDLL: the GIL is released while it waits
  lib.tkrt_log_drain.restype = ctypes.c_size_t
  lib.tkrt_log_flush.argtypes = []
  lib.tkrt_log_flush.restype = ctypes.c_size_t
  with _lock:
    _set_sink(lib, True)
    _library = lib


def _loaded():
  """libtkrt, loaded now if it was not."""
  if _library is None:
    from ._lib import load_core_library
    load_core_library()
  return _library


def flush_logs() -> int:
  """Delivers the messages the library queued (logged on threads that did not hold the GIL) to
  `logging` now, on this thread; returns how many. tkrt's own Python calls do this before they
  return; call it after calling a library function yourself (ctypes) when its messages must be
  records before you go on."""
  lib = _library
  return lib.tkrt_log_flush() if lib is not None else 0


def route_logs_to_python(enable: bool = True) -> None:
  """Sends the library's messages to `logging` (logger "tkrt"; the default once the library is
  loaded), or with enable=False back to stderr as "tkrt: <component>: <level>: <message>" lines.
  Which messages leave the library is its level (TKRT_LOG, set_log_level; default warn); the
  logger's level and handlers then decide what is shown. Messages logged on threads that Python
  did not start (XLA's, tkrt's module loaders) take the GIL for the record."""
  lib = _loaded()
  with _lock:
    _set_sink(lib, bool(enable))


def set_log_level(level: str) -> None:
  """Sets the library's log level at any time: "off", "error", "warn", "info" or "debug" (any
  case; also the switch words, 1/on for debug and 0/off for off), as TKRT_LOG does. Raises
  ConfigurationError naming the value for anything else."""
  lib = _loaded()
  value = ctypes.c_int(0)
  status = lib.tkrt_log_level_from_string(str(level).encode(), ctypes.byref(value))
  if status:
    raise _configuration_error(_status_text(lib, status))
  status = lib.tkrt_log_set_level(value.value)
  if status:
    raise _configuration_error(_status_text(lib, status))


@atexit.register
def _unroute() -> None:
  """Before the interpreter goes away, the library's messages go back to stderr: a thread that
  logs late must not call into a finalising interpreter. The swap waits for running calls."""
  if _routed and _library is not None:
    try:
      _set_sink(_library, False)
    except Exception:  # noqa: BLE001
      pass
