# SPDX-License-Identifier: Apache-2.0
"""tkrt under JAX: registering libtkrt_xla.so's XLA targets, routing jaxlib's Triton target names
to them, their settings (tkrt_xla_configure) and counters. Re-exported by `tkrt`; imports JAX
only in the functions that need it. docs/xla.md describes the targets and the autotuning policy.
"""
from __future__ import annotations

import ctypes
from typing import Iterable, Optional

from ._lib import ConfigurationError, load_library, lock

__all__ = [
    "FFI_TARGET", "LEGACY_TARGET", "JAXLIB_TARGETS", "STATS_FIELDS", "version", "stats",
    "configure", "configure_tuning", "register", "route_jaxlib_targets", "use_for_jax_triton",
    "use_jax_distributed",
]

FFI_TARGET = "tkrt_triton_kernel_call"
LEGACY_TARGET = "tkrt_triton_kernel_call_legacy"
# jaxlib's target names and the tkrt target that replaces each.
JAXLIB_TARGETS = {"triton_kernel_call_ffi": FFI_TARGET, "triton_kernel_call": LEGACY_TARGET}
_registered: set = set()
_routing = False
_bound = False  # libtkrt_xla's functions given their types


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


class _Stats(ctypes.Structure):  # tkrt_xla_stats_t (xla/tkrt_xla.h)
  _fields_ = [("struct_size", ctypes.c_size_t)] + [(name, ctypes.c_uint64)
                                                   for name in STATS_FIELDS]


def _xla():
  """libtkrt_xla.so with the functions used here typed."""
  global _bound
  lib = load_library()
  if not _bound:
    lib.tkrt_xla_version.restype = ctypes.c_char_p
    lib.tkrt_xla_get_stats.argtypes = [ctypes.POINTER(_Stats)]
    lib.tkrt_xla_get_stats.restype = None
    lib.tkrt_xla_configure.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                       ctypes.c_size_t]
    lib.tkrt_xla_configure.restype = ctypes.c_int
    _bound = True
  return lib


def version() -> str:
  """The library's version line: "tkrt-xla <tkrt version> ffi <major>.<minor>"."""
  return _xla().tkrt_xla_version().decode()


def stats() -> dict:
  """Counters of the XLA targets (executions, captured executions, tuning, decode cache...)."""
  s = _Stats()
  s.struct_size = ctypes.sizeof(_Stats)
  _xla().tkrt_xla_get_stats(ctypes.byref(s))
  return {name: int(getattr(s, name)) for name in STATS_FIELDS}


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
  lib = _xla()
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
  with lock:
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
  with lock:
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
