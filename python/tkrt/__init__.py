# SPDX-License-Identifier: Apache-2.0
"""tkrt: run JAX's Triton kernel calls through tkrt's XLA targets (libtkrt_xla.so), and Triton's
compiled kernels on framework arrays (tkrt.triton).

    import tkrt
    tkrt.use_for_jax_triton()   # register the targets and route jax-triton / jaxlib calls

The package loads libtkrt.so.0 (tkrt itself; see `core_library_path`) and libtkrt_xla.so, which
links it (see `library_path`; the wheel carries both), with ctypes, and registers the targets
with `jax.ffi.register_ffi_target`. Importing it needs no JAX: `version()`, `stats()` and
`configure_tuning()` work without it; the functions that talk to JAX raise an ImportError saying
so. docs/xla.md describes the targets and the autotuning policy; `tkrt.triton` (docs/triton.md)
launches Triton's output on PyTorch, CuPy, JAX and NumPy arrays; `tkrt.exchange` makes ranks
agree on tuning decisions.

The modules, one concern each: tkrt._lib (loading the libraries and the C ABI: the package's one
way into C, besides the C extension tkrt._native, which links the same libtkrt), tkrt._log (the
library's log in `logging`), tkrt._arrays (reading arrays: DLPack, PyTorch, CuPy), tkrt._jax
(JAX's targets), tkrt.triton, tkrt.exchange.

The library's messages (warnings, and with TKRT_LOG=info or debug what it loads) go to Python's
`logging`, logger "tkrt", from the moment the library is loaded; `route_logs_to_python(False)`
sends them back to stderr. A message logged on a thread that holds the GIL becomes a record at
once; one logged elsewhere (a module loader, an XLA thread, a call that released the GIL) is
queued in the library and delivered by a thread of this package, or by `flush_logs()`, so that
no thread inside tkrt ever waits for the GIL. docs/logging.md says which levels pass.
"""

from __future__ import annotations

from ._jax import (FFI_TARGET, JAXLIB_TARGETS, LEGACY_TARGET, STATS_FIELDS, configure,
                   configure_tuning, register, route_jaxlib_targets, stats, use_for_jax_triton,
                   use_jax_distributed, version)
from ._lib import (ConfigurationError, core_library_path, library_path, load_core_library,
                   load_library)
from ._log import flush_logs, route_logs_to_python, set_log_level

__version__ = "0.1.0"  # the tkrt release; setup.py checks it against CMakeLists.txt

__all__ = [
    "__version__", "FFI_TARGET", "LEGACY_TARGET", "JAXLIB_TARGETS", "library_path",
    "load_library", "register", "use_for_jax_triton", "route_jaxlib_targets", "configure",
    "configure_tuning", "ConfigurationError", "stats", "version", "route_logs_to_python",
    "set_log_level", "STATS_FIELDS", "core_library_path", "load_core_library",
    "use_jax_distributed", "flush_logs",
]


def __getattr__(name: str):
  """`tkrt.triton` and `tkrt.exchange` on first use, so that `import tkrt` loads nothing more
  than it needs."""
  if name in ("triton", "exchange"):
    import importlib
    return importlib.import_module("." + name, __name__)
  raise AttributeError(f"module 'tkrt' has no attribute {name!r}")
