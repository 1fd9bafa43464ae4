"""tkrt: run JAX's Triton kernel calls through tkrt's XLA targets (libtkrt_xla.so).

    import tkrt
    tkrt.use_for_jax_triton()   # register the targets and route jax-triton / jaxlib calls

Pure Python: it loads a prebuilt libtkrt_xla.so (see `library_path`) with ctypes and registers
its handlers with `jax.ffi.register_ffi_target`. docs/xla.md describes the targets and the
autotuning policy (`configure_tuning`).
"""

from __future__ import annotations

import ctypes
import glob
import os
import threading
from typing import Iterable, Optional

__all__ = [
    "FFI_TARGET", "LEGACY_TARGET", "library_path", "load_library", "register",
    "use_for_jax_triton", "route_jaxlib_targets", "configure_tuning", "stats", "version",
]

FFI_TARGET = "tkrt_triton_kernel_call"
LEGACY_TARGET = "tkrt_triton_kernel_call_legacy"
# jaxlib's target names and the tkrt target that replaces each.
JAXLIB_TARGETS = {"triton_kernel_call_ffi": FFI_TARGET, "triton_kernel_call": LEGACY_TARGET}

_LIB_NAME = "libtkrt_xla.so"
_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None
_registered: set = set()
_routing = False


def library_path() -> str:
  """Where libtkrt_xla.so is: $TKRT_XLA_LIBRARY, else next to this package, else a build dir."""
  env = os.environ.get("TKRT_XLA_LIBRARY")
  if env:
    if not os.path.isfile(env):
      raise FileNotFoundError(f"TKRT_XLA_LIBRARY={env} does not exist")
    return env
  here = os.path.dirname(os.path.abspath(__file__))
  candidates = [os.path.join(here, _LIB_NAME)]
  root = os.path.dirname(os.path.dirname(here))  # <repo>/python/tkrt -> <repo>
  candidates += [os.path.join(root, "build-xla", _LIB_NAME),
                 os.path.join(root, "build", "xla", _LIB_NAME)]
  candidates += sorted(glob.glob(os.path.join(root, "build", "*", _LIB_NAME)))
  candidates += sorted(glob.glob(os.path.join(root, "build", "*", "xla", _LIB_NAME)))
  for path in candidates:
    if os.path.isfile(path):
      return path
  raise FileNotFoundError(
      f"{_LIB_NAME} not found; set TKRT_XLA_LIBRARY or build it (cmake -S xla -B build-xla). "
      f"Looked in: {', '.join(candidates)}")


class _Stats(ctypes.Structure):
  _fields_ = [("struct_size", ctypes.c_size_t)] + [(name, ctypes.c_uint64) for name in (
      "instantiated", "initialized", "executed", "executed_captured", "legacy_executed",
      "decoded", "cache_entries", "tuned_in_execute", "capture_fallbacks", "errors",
      "devices_opened", "legacy_status_fallback", "unknown_size_fallbacks")]


def load_library() -> ctypes.CDLL:
  """Loads libtkrt_xla.so once (RTLD_LOCAL: it exports only tkrt_ symbols anyway)."""
  global _lib
  with _lock:
    if _lib is None:
      lib = ctypes.CDLL(library_path())
      lib.tkrt_xla_version.restype = ctypes.c_char_p
      lib.tkrt_xla_get_stats.argtypes = [ctypes.POINTER(_Stats)]
      lib.tkrt_xla_get_stats.restype = None
      _lib = lib
    return _lib


def version() -> str:
  return load_library().tkrt_xla_version().decode()


def stats() -> dict:
  """Counters of the XLA targets (executions, captured executions, tuning, decode cache...)."""
  s = _Stats()
  s.struct_size = ctypes.sizeof(_Stats)
  load_library().tkrt_xla_get_stats(ctypes.byref(s))
  return {name: int(getattr(s, name)) for name, _ in _Stats._fields_[1:]}


def configure_tuning(tune_dir: Optional[str] = None, pin: Optional[str] = None,
                     policy: Optional[str] = None, capture_policy: Optional[str] = None) -> None:
  """Sets the autotuner's controls. They are read when the first autotuned call runs.

  tune_dir: decision store directory ("off": memory only) -> TKRT_TUNE_DIR.
  pin: "<digest prefix or *>[@arch]=<config>,..." -> TKRT_TUNE_PIN.
  policy: "auto" (benchmark when no decision) or "never" -> TKRT_TUNE_POLICY.
  capture_policy: "first_config" (default: config 0 for a capture without a decision) or
    "error" -> TKRT_XLA_CAPTURE_POLICY.
  """
  if _lib is not None and stats()["tuned_in_execute"] + stats()["capture_fallbacks"]:
    import warnings
    warnings.warn("tkrt: the autotuner already exists; new tuning settings apply to the next "
                  "process", stacklevel=2)
  for key, value in (("TKRT_TUNE_DIR", tune_dir), ("TKRT_TUNE_PIN", pin),
                     ("TKRT_TUNE_POLICY", policy), ("TKRT_XLA_CAPTURE_POLICY", capture_policy)):
    if value is not None:
      os.environ[key] = value


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
  Returns (FFI_TARGET, LEGACY_TARGET).
  """
  import jax
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
