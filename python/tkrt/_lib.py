# SPDX-License-Identifier: Apache-2.0
"""The package's one way into C: loading the libraries and tkrt's C ABI.

libtkrt.so.0 is tkrt itself (core_library_path); libtkrt_xla.so, JAX's targets, links it
(library_path); tkrt._native links it too. They are loaded in that order, so that every one binds
to the same copy, and a library that resolves tkrt's API to another copy is refused
(check_one_copy): a process holds one tkrt, one default runtime, one log. The rest of this module
mirrors the C structs the package passes (checked against the headers by
test/package/check_struct_layouts.py), binds libtkrt's functions with their types (Api, api()) and
turns a failed call's status into Error (raise_status, check). Value rules (ranges,
divisibility, extents, dtypes) are C's: Python hands values over and reports C's status.
"""
from __future__ import annotations

import ctypes
import os
import threading
from typing import Optional, Tuple

from . import _log

__all__ = [
    "XLA_LIBRARY", "CORE_LIBRARY", "Error", "ConfigurationError", "library_path",
    "core_library_path", "load_library", "load_core_library", "address", "check_one_copy",
    "Api", "api", "api_if_loaded", "raise_status", "check", "versioned", "SIGNATURES", "lock",
    "DeviceOptions", "DeviceInfo", "BackendDescription", "TunerOptions", "TuneReport",
    "LoadOptions", "Param", "Target", "RuntimeOptions", "BoundOptions", "BoundLaunchOptions",
    "TritonArg", "KernelDesc",
    "Scalar", "Variant", "CallDesc", "TMA_MAX_RANK", "UNKNOWN_SIZE", "ARG_DEFAULT", "ARG_POINTER",
    "ARG_INT", "ARG_FLOAT", "ARG_DESCRIPTOR", "ARG_UINT", "c_integer",
]

XLA_LIBRARY = "libtkrt_xla.so"
CORE_LIBRARY = "libtkrt.so.0"
lock = threading.Lock()  # guards the loads and the package's other one-time state
_api_lock = threading.Lock()  # guards making the Api (which loads under `lock`)
_lib: Optional[ctypes.CDLL] = None
_core: Optional[ctypes.CDLL] = None


class ConfigurationError(RuntimeError):
  """A setting tkrt refused (an unknown name or value, or set after first use)."""


# ---------------------------------------------------------------- loading

def library_path() -> str:
  """Where libtkrt_xla.so is: $TKRT_XLA_LIBRARY when set, else next to this file (wheel, cmake
  --install). Nothing else is searched, so the library used is always the one asked for."""
  env = os.environ.get("TKRT_XLA_LIBRARY")
  if env:
    if not os.path.isfile(env):
      raise FileNotFoundError(f"TKRT_XLA_LIBRARY={env} does not exist")
    return env
  path = os.path.join(os.path.dirname(os.path.abspath(__file__)), XLA_LIBRARY)
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
  path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", CORE_LIBRARY)
  if os.path.isfile(path):
    return path
  return None


def address(lib, name: str) -> int:
  """The address of `name` in the loaded library `lib`."""
  return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value


def check_one_copy(lib, what: str) -> None:
  """Raises ImportError when `lib` (libtkrt_xla.so, or the library tkrt._native links) resolves
  tkrt's API to another copy of libtkrt than the one loaded here: two copies would be two default
  runtimes, tuners, settings tables and logs in one process."""
  if _core is not None and address(lib, "tkrt_runtime_default") != address(_core, "tkrt_runtime_default"):
    raise ImportError(f"{what} uses another copy of libtkrt than {_core._name}, which this process "
                      f"loaded first: a process holds one tkrt (set TKRT_LIBRARY to the "
                      f"libtkrt.so.0 {what} links, or unset it)")



def load_library() -> ctypes.CDLL:
  """Loads libtkrt_xla.so once (RTLD_LOCAL: it exports only tkrt_ symbols anyway), after
  libtkrt.so.0 (load_core_library), which it links: the loader binds its dependency to that one
  by soname, so JAX's targets and tkrt.triton share one tkrt."""
  global _lib
  if _lib is None:
    load_core_library()
  with lock:
    if _lib is None:
      lib = ctypes.CDLL(library_path())
      check_one_copy(lib, library_path())
      _lib = lib
    return _lib


def load_core_library() -> ctypes.CDLL:
  """Loads libtkrt.so.0 (core_library_path) once: tkrt itself, whose default runtime (devices,
  tuner, decisions, settings) and log tkrt.triton, libtkrt_xla.so and tkrt._native all use.
  Loaded before either of those, which link it, so that they bind to this copy. Where no path is
  known, the copy libtkrt_xla.so finds through its run path."""
  global _core
  with lock:
    if _core is None:
      path = core_library_path()
      if path is None:
        ctypes.CDLL(library_path())  # brings its libtkrt.so.0; taken below by its soname
        path = CORE_LIBRARY
      lib = ctypes.CDLL(path)
      _log.attach(lib)  # its sink is set before anything in it can log
      _core = lib
    return _core


# ---------------------------------------------------------------- the C ABI

_c_p = ctypes.c_void_p
_api = None  # the bound functions (Api), made on first use


class Error(RuntimeError):
  """An error from tkrt's C library: `code` is its status name ("INVALID_ARGUMENT", ...)."""

  def __init__(self, code: str, message: str):
    super().__init__(f"{code}: {message}")
    self.code = code
    self.message = message


class DeviceOptions(ctypes.Structure):  # tkrt_device_options_t (tkrt/device.h)
  _fields_ = [("struct_size", ctypes.c_size_t), ("backend", ctypes.c_char_p),
              ("ordinal", ctypes.c_int), ("host_threads", ctypes.c_uint32),
              ("cache_dir", ctypes.c_char_p), ("trust_shared_cache", ctypes.c_bool),
              ("hip_library", ctypes.c_char_p), ("log", ctypes.c_bool),
              ("allow_native_code_from_calls", ctypes.c_bool),
              ("params", ctypes.c_void_p), ("param_count", ctypes.c_size_t)]


class DeviceInfo(ctypes.Structure):  # the start of tkrt_device_info_t
  _fields_ = [("struct_size", ctypes.c_size_t), ("backend", ctypes.c_char * 16),
              ("name", ctypes.c_char * 256), ("arch", ctypes.c_char * 64),
              ("ordinal", ctypes.c_int)]


class BackendDescription(ctypes.Structure):  # tkrt_backend_description_t (tkrt/device.h)
  _fields_ = [("struct_size", ctypes.c_size_t), ("name", ctypes.c_char * 16),
              ("triton_target", ctypes.c_char * 16), ("foreign_streams", ctypes.c_bool),
              ("image_kinds", ctypes.c_uint32), ("native_code_kinds", ctypes.c_uint32),
              ("dlpack_device_type_count", ctypes.c_uint32),
              ("dlpack_device_types", ctypes.c_int32 * 8)]


class TunerOptions(ctypes.Structure):  # tkrt_autotuner_options_t (tkrt/autotune.h)
  _fields_ = [("struct_size", ctypes.c_size_t), ("policy", ctypes.c_int),
              ("capture_policy", ctypes.c_int), ("target_ms", ctypes.c_double),
              ("max_iterations", ctypes.c_uint32), ("store_dir", ctypes.c_char_p),
              ("trust_shared_store", ctypes.c_bool), ("pins", ctypes.c_char_p),
              ("refresh_store", ctypes.c_bool), ("progress", ctypes.c_void_p),
              ("progress_user", ctypes.c_void_p), ("prune_margin", ctypes.c_double),
              ("exchange", ctypes.c_void_p), ("exchange_policy", ctypes.c_int),
              ("exchange_ranks", ctypes.c_uint32), ("exchange_timeout_ms", ctypes.c_uint32),
              ("tuning_key", ctypes.c_char_p), ("require_complete", ctypes.c_bool)]


class TuneReport(ctypes.Structure):  # tkrt_tune_report_t
  _fields_ = [("struct_size", ctypes.c_size_t), ("source", ctypes.c_int),
              ("chosen", ctypes.c_size_t), ("config_count", ctypes.c_size_t),
              ("iterations", ctypes.c_uint32), ("times_ms", ctypes.POINTER(ctypes.c_float)),
              ("times_capacity", ctypes.c_size_t), ("skip_reason", ctypes.c_char * 256),
              ("store_file", ctypes.c_char * 1024), ("fallback_reason", ctypes.c_char * 256),
              ("round1_iterations", ctypes.c_uint32), ("prune_margin", ctypes.c_double),
              ("round1_best_ms", ctypes.c_float), ("pruned_count", ctypes.c_size_t),
              ("pruned", ctypes.POINTER(ctypes.c_uint8)), ("timed_launches", ctypes.c_uint64),
              ("exchange_key", ctypes.c_char * 65), ("exchange_role", ctypes.c_char * 16),
              ("exchange_ranks", ctypes.c_uint32)]


class LoadOptions(ctypes.Structure):  # tkrt_triton_load_options_t (tkrt/triton.h)
  _fields_ = [("struct_size", ctypes.c_size_t), ("image_kinds", ctypes.c_uint32),
              ("allow_native_code", ctypes.c_bool), ("constants", ctypes.c_char_p)]


TMA_MAX_RANK = 5  # TKRT_TMA_MAX_RANK (tkrt/tma.h)
UNKNOWN_SIZE = (1 << 64) - 1  # TKRT_BUFFER_SIZE_UNKNOWN (tkrt/call.h)


class Param(ctypes.Structure):  # tkrt_triton_param_t
  _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_char_p), ("is_pointer", ctypes.c_bool),
              ("kind", ctypes.c_int), ("element_bytes", ctypes.c_uint32),
              ("divisibility", ctypes.c_uint32), ("desc_rank", ctypes.c_uint32),
              ("desc_block", ctypes.c_uint32 * TMA_MAX_RANK)]


class Target(ctypes.Structure):  # tkrt_triton_target_t
  _fields_ = [("json_path", ctypes.c_char_p), ("backend", ctypes.c_char_p),
              ("arch", ctypes.c_char_p), ("warp_size", ctypes.c_uint32),
              ("num_stages", ctypes.c_uint32), ("shared_mem_bytes", ctypes.c_uint32),
              ("global_scratch_size", ctypes.c_uint32), ("global_scratch_align", ctypes.c_uint32),
              ("tmem_size", ctypes.c_uint32), ("triton_version", ctypes.c_char_p),
              ("hash", ctypes.c_char_p), ("image_kinds", ctypes.c_uint32),
              ("native_code_left_out", ctypes.c_char_p), ("triton_release", ctypes.c_char_p),
              ("hidden_pointers", ctypes.c_uint32)]


class RuntimeOptions(ctypes.Structure):  # tkrt_runtime_options_t (tkrt/runtime.h)
  _fields_ = [("struct_size", ctypes.c_size_t), ("device", DeviceOptions),
              ("tuner", TunerOptions), ("read_environment", ctypes.c_int)]


class BoundOptions(ctypes.Structure):  # tkrt_triton_bound_options_t (tkrt/triton_bound.h)
  _fields_ = [("struct_size", ctypes.c_size_t), ("runtime", ctypes.c_void_p),
              ("device", ctypes.c_void_p), ("tuning_key", ctypes.POINTER(ctypes.c_char_p)),
              ("tuning_key_count", ctypes.c_size_t),
              ("min_elements", ctypes.POINTER(ctypes.c_char_p)),
              ("min_element_count", ctypes.c_size_t)]


class BoundLaunchOptions(ctypes.Structure):  # tkrt_triton_bound_launch_options_t
  _fields_ = [("struct_size", ctypes.c_size_t), ("no_wait", ctypes.c_bool),
              ("grids", ctypes.POINTER(ctypes.c_uint32)), ("grid_count", ctypes.c_size_t)]


class TritonArg(ctypes.Structure):  # tkrt_triton_arg_t (tkrt/triton_bound.h)
  _fields_ = [("kind", ctypes.c_uint32), ("rank", ctypes.c_uint32), ("ptr", ctypes.c_uint64),
              ("size", ctypes.c_uint64), ("i", ctypes.c_int64), ("f", ctypes.c_double),
              ("shape", ctypes.c_int64 * TMA_MAX_RANK),
              ("strides", ctypes.c_int64 * TMA_MAX_RANK),
              ("block", ctypes.c_int64 * TMA_MAX_RANK), ("padding_nan", ctypes.c_uint32),
              ("dtype", ctypes.c_uint32)]


# tkrt_triton_arg_kind_t
ARG_DEFAULT, ARG_POINTER, ARG_INT, ARG_FLOAT, ARG_DESCRIPTOR, ARG_UINT = 0, 1, 2, 3, 4, 5


class KernelDesc(ctypes.Structure):  # the start of tkrt_kernel_desc_t (tkrt/call.h)
  _fields_ = [("struct_size", ctypes.c_size_t), ("name", ctypes.c_char_p),
              ("num_warps", ctypes.c_uint32)]


class Scalar(ctypes.Structure):  # tkrt_triton_scalar_t
  _fields_ = [("name", ctypes.c_char_p), ("is_float", ctypes.c_bool), ("i", ctypes.c_int64),
              ("f", ctypes.c_double), ("is_uint64", ctypes.c_bool)]


class Variant(ctypes.Structure):  # tkrt_triton_variant_t
  _fields_ = [("kernel", ctypes.c_void_p), ("grid", ctypes.c_char_p),
              ("grid_dims", ctypes.c_uint32 * 3), ("constants", ctypes.c_char_p),
              ("description", ctypes.c_char_p)]


class CallDesc(ctypes.Structure):  # tkrt_triton_call_desc_t
  _fields_ = [("struct_size", ctypes.c_size_t), ("name", ctypes.c_char_p),
              ("variants", ctypes.POINTER(Variant)), ("variant_count", ctypes.c_size_t),
              ("scalars", ctypes.POINTER(Scalar)), ("scalar_count", ctypes.c_size_t),
              ("inout", ctypes.POINTER(ctypes.c_char_p)), ("inout_count", ctypes.c_size_t),
              ("unsigned_scalars", ctypes.POINTER(ctypes.c_char_p)),
              ("unsigned_scalar_count", ctypes.c_size_t)]


SIGNATURES = {
    # name: (restype, argtypes)
    "tkrt_status_code": (ctypes.c_int, [_c_p]),
    "tkrt_status_message": (ctypes.c_char_p, [_c_p]),
    "tkrt_status_code_name": (ctypes.c_char_p, [ctypes.c_int]),
    "tkrt_status_free": (None, [_c_p]),
    "tkrt_device_options_init": (None, [_c_p]),
    "tkrt_options_from_environment": (_c_p, [_c_p, _c_p]),
    "tkrt_device_info": (ctypes.POINTER(DeviceInfo), [_c_p]),
    "tkrt_backend_names": (_c_p, [ctypes.c_char_p, ctypes.c_size_t]),
    "tkrt_backend_resolve": (_c_p, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]),
    "tkrt_backend_describe": (_c_p, [ctypes.c_char_p, _c_p]),
    "tkrt_image_kind_name": (ctypes.c_char_p, [ctypes.c_int]),
    "tkrt_image_kind_triton_files": (_c_p, [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                            ctypes.POINTER(ctypes.c_char_p)]),
    "tkrt_stream_synchronize": (_c_p, [_c_p, _c_p]),
    "tkrt_device_synchronize": (_c_p, [_c_p]),
    "tkrt_status_would_wait": (_c_p, []),
    "tkrt_stream_create": (_c_p, [_c_p, ctypes.POINTER(_c_p)]),
    "tkrt_stream_destroy": (_c_p, [_c_p, _c_p]),
    "tkrt_autotuner_options_init": (None, [_c_p]),
    "tkrt_setting_apply": (_c_p, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint32, _c_p, _c_p]),
    "tkrt_runtime_default": (_c_p, []),
    "tkrt_runtime_options_init": (None, [_c_p]),
    "tkrt_runtime_create": (_c_p, [_c_p, ctypes.POINTER(_c_p)]),
    "tkrt_runtime_release": (None, [_c_p]),
    "tkrt_runtime_device": (_c_p, [_c_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(_c_p)]),
    "tkrt_runtime_tuner": (_c_p, [_c_p, ctypes.POINTER(_c_p)]),
    "tkrt_runtime_configure": (_c_p, [_c_p, ctypes.c_char_p, ctypes.c_char_p]),
    "tkrt_runtime_prepare": (_c_p, [_c_p, _c_p, _c_p, _c_p, _c_p]),
    "tkrt_tune_report_init": (None, [_c_p]),
    "tkrt_autotuner_get_report": (_c_p, [_c_p, _c_p, ctypes.c_char_p, _c_p]),
    "tkrt_tune_source_name": (ctypes.c_char_p, [ctypes.c_int]),
    "tkrt_triton_load_options_init": (None, [_c_p]),
    "tkrt_triton_cache_entry_check": (_c_p, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                             ctypes.c_int]),
    "tkrt_triton_kernel_load": (_c_p, [ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, _c_p,
                                       ctypes.POINTER(_c_p)]),
    "tkrt_triton_kernel_release": (None, [_c_p]),
    "tkrt_triton_kernel_get": (_c_p, [_c_p]),
    "tkrt_kernel_get_desc": (ctypes.POINTER(KernelDesc), [_c_p]),
    "tkrt_triton_kernel_name": (ctypes.c_char_p, [_c_p]),
    "tkrt_triton_kernel_constants": (ctypes.c_char_p, [_c_p]),
    "tkrt_triton_kernel_param_count": (ctypes.c_size_t, [_c_p]),
    "tkrt_triton_kernel_param": (ctypes.POINTER(Param), [_c_p, ctypes.c_size_t]),
    "tkrt_triton_kernel_target_count": (ctypes.c_size_t, [_c_p]),
    "tkrt_triton_kernel_target": (ctypes.POINTER(Target), [_c_p, ctypes.c_size_t]),
    "tkrt_triton_call_desc_init": (None, [_c_p]),
    "tkrt_triton_call_create": (_c_p, [_c_p, ctypes.POINTER(_c_p)]),
    "tkrt_call_release": (None, [_c_p]),
    "tkrt_triton_bound_options_init": (None, [_c_p]),
    "tkrt_triton_bound_create": (_c_p, [_c_p, _c_p, ctypes.POINTER(_c_p)]),
    "tkrt_triton_bound_destroy": (None, [_c_p]),
    "tkrt_triton_bound_close": (_c_p, [_c_p]),
    "tkrt_triton_bound_call": (_c_p, [_c_p]),
    "tkrt_triton_bound_arg_count": (ctypes.c_size_t, [_c_p]),
}


class Api:
  """The C functions of libtkrt.so, with their types set. Functions bound through ctypes.CDLL
  release the GIL while they run (every one that may wait: devices, loads, prepare, close,
  synchronize); the launch is first tried through ctypes.PyDLL, which keeps the GIL, with
  tkrt_triton_bound_try_launch, which never waits (issue 31)."""

  def __init__(self):
    lib = load_core_library()
    for name, (restype, argtypes) in SIGNATURES.items():
      fn = getattr(lib, name)
      fn.restype = restype
      fn.argtypes = argtypes
      setattr(self, name[5:], fn)  # tkrt_device_open -> self.device_open
    launch_types = [_c_p, _c_p, _c_p, ctypes.c_size_t, _c_p]
    # The launch that may wait: the GIL released (CDLL).
    self.bound_launch = lib.tkrt_triton_bound_launch
    self.bound_launch.restype = ctypes.c_void_p
    self.bound_launch.argtypes = launch_types
    # The launch that never waits: the GIL kept (PyDLL), which saves releasing and taking it
    # around an enqueue that takes a microsecond.
    pylib = ctypes.PyDLL(lib._name)
    self.bound_try_launch = pylib.tkrt_triton_bound_try_launch
    self.bound_try_launch.restype = ctypes.c_void_p
    self.bound_try_launch.argtypes = launch_types
    self.would_wait = self.status_would_wait()  # the status the try answers where it would wait
    # The same two with options (a caller's grids, Triton's grid callables): may wait (CDLL),
    # and with no_wait set, through PyDLL.
    with_types = [_c_p, _c_p, _c_p, ctypes.c_size_t, _c_p, _c_p]
    self.bound_launch_with = lib.tkrt_triton_bound_launch_with
    self.bound_try_launch_with = pylib.tkrt_triton_bound_launch_with
    for fn in (self.bound_launch_with, self.bound_try_launch_with):
      fn.restype = ctypes.c_void_p
      fn.argtypes = with_types
    self.bound_launch_options_init = lib.tkrt_triton_bound_launch_options_init
    self.bound_launch_options_init.restype = None
    self.bound_launch_options_init.argtypes = [_c_p]
    self.library_name = lib._name
    self.default_runtime = None  # tkrt_runtime_default(), on first use (_runtime())


def api() -> Api:
  """The C functions of libtkrt.so (Api), bound on first use."""
  global _api
  if _api is None:
    load_core_library()  # outside _api_lock: the load takes `lock`
    with _api_lock:
      if _api is None:
        _api = Api()
  return _api


def c_integer(value: int, what: str) -> Tuple[int, bool]:
  """A Python integer as C takes it: (value, False) when it fits int64_t, (its bits, True) from
  2^63 to 2^64-1 (tkrt_triton_scalar_t.is_uint64, TKRT_TRITON_ARG_UINT). Whether the parameter
  takes it is the C library's rule (ranges by width and reading); only a value wider than 64 bits
  is refused here, as no C integer holds it (Error OUT_OF_RANGE naming `what`)."""
  if -2**63 <= value < 2**63:
    return value, False
  if 2**63 <= value < 2**64:
    return value - 2**64, True
  raise Error("OUT_OF_RANGE", f"{what}: {value} does not fit in 64 bits (no C integer holds it; "
                              f"an i64 takes -2^63..2^63-1, or 0..2^64-1 read as unsigned)")


def api_if_loaded() -> Optional[Api]:
  """The Api when it was made, else None (for finalizers, which must not load anything)."""
  return _api


def raise_status(status, context: str = ""):
  """Raises the status (a non-NULL tkrt_status_t) as Error, freeing it."""
  lib = api()
  code = lib.status_code_name(lib.status_code(status)).decode()
  message = lib.status_message(status).decode(errors="replace")
  lib.status_free(status)
  raise Error(code, f"{context}: {message}" if context else message)


def check(status, context: str = ""):
  """Raises a failed call's status; first delivers what the call logged while the GIL was
  released (tkrt.flush_logs), so its records come before the caller goes on."""
  _log.flush_logs()
  if status:
    raise_status(status, context)


def versioned(struct_type, init):
  """A tkrt options struct filled by its _init function. The C struct may have grown past what
  this file knows, so init writes into a larger buffer, and struct_size then tells the library
  how much of it Python filled (tkrt's versioned structs accept older, shorter ones)."""
  buffer = ctypes.create_string_buffer(max(4096, ctypes.sizeof(struct_type)))
  init(buffer)
  struct = struct_type.from_buffer(buffer)
  struct.struct_size = ctypes.sizeof(struct_type)
  struct._buffer = buffer  # noqa: SLF001 - keeps the memory alive with the struct
  return struct

