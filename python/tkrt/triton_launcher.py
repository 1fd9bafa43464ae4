# SPDX-License-Identifier: Apache-2.0
"""tkrt as Triton's launcher: after install(), every kernel Triton compiles in this process and
launches with `kernel[grid](...)` (or `compiled[grid](...)`) goes through tkrt's bound launch
(tkrt.triton) instead of the C stub Triton builds with the system compiler for each signature,
and Triton's driver utilities (cuda_utils.c, also built with the compiler on first use) are not
built unless a kernel falls back to Triton's own launcher.

    import tkrt.triton_launcher
    tkrt.triton_launcher.install()      # before the first launch
    add_kernel[grid](x, y, out, n, BLOCK=1024)     # launched by tkrt

Supported: Triton 3.6 on CUDA with PyTorch (Triton's CUDA driver needs it); install() refuses
other versions and backends by name. A kernel tkrt cannot take (its output refused by the loader)
falls back to Triton's launcher, counted in stats() and named in a debug log line of logger
"tkrt"; nothing falls back silently. The launch hooks in Triton's knobs are called around each
launch, on the stream Triton passes. Global scratch is tkrt's own allocation, not Triton's
allocator (triton.set_allocator). See docs/triton.md, "Triton's launcher".
"""
import itertools
import logging
import threading
from typing import Any, Dict

from . import triton as tt

__all__ = ["SUPPORTED_TRITON", "install", "uninstall", "installed", "stats"]

SUPPORTED_TRITON = ("3.6",)  # the minor releases whose driver and launch path this replaces
_log = logging.getLogger("tkrt")
_lock = threading.Lock()
_state: Dict[str, Any] = {"installed": False}
_stats = {"tkrt_kernels": 0, "fallback_kernels": 0, "fallback_names": []}
_launches = itertools.count()  # next() is atomic: no lock on the launch path


def stats() -> Dict[str, Any]:
  """Kernels taken and launches made by tkrt since install(), and kernels that fell back to
  Triton's own launcher (with their names)."""
  with _lock:
    out = {k: list(v) if isinstance(v, list) else v for k, v in _stats.items()}
  out["tkrt_launches"] = _launch_count()
  return out


def _launch_count() -> int:
  """Launches so far: itertools.count's repr holds its next value, read without counting."""
  return int(repr(_launches)[6:-1])


def installed() -> bool:
  return bool(_state["installed"])


def _triton_modules():
  try:
    import triton
  except ImportError as e:
    raise RuntimeError(f"tkrt.triton_launcher: Triton is not installed in this Python ({e}); "
                       f"there is no launcher to replace") from None
  from triton.backends.driver import GPUDriver
  from triton.backends.nvidia import driver as nvidia
  from triton.compiler import compiler
  from triton.runtime import driver
  return triton, GPUDriver, nvidia, compiler, driver


class _Properties(dict):
  """get_device_properties from PyTorch (which Triton's CUDA driver imports anyway); a key it has
  no value for comes from Triton's own utilities (built then: counted in stats)."""

  def __init__(self, device: int, utils: "_Utils"):
    import torch
    p = torch.cuda.get_device_properties(device)
    super().__init__(max_shared_mem=int(p.shared_memory_per_block_optin),
                     multiprocessor_count=int(p.multi_processor_count), warpSize=int(p.warp_size))
    self._device, self._utils = device, utils

  def __missing__(self, key):
    value = self._utils.real().get_device_properties(self._device)[key]
    self[key] = value
    return value


class _Utils:
  """What Triton's launch path asks of driver.active.utils, without building cuda_utils.c: the
  device properties (above); everything else from Triton's own utilities, built on first use."""

  def __init__(self, real_factory):
    self._real, self._factory = None, real_factory
    self._properties: Dict[int, _Properties] = {}

  def real(self):
    if self._real is None:
      _log.debug("tkrt.triton_launcher: building Triton's CUDA utilities (cuda_utils.c) for a "
                 "kernel or a utility tkrt does not provide")
      self._real = self._factory()
    return self._real

  def get_device_properties(self, device):
    if device not in self._properties:
      self._properties[device] = _Properties(device, self)
    return self._properties[device]

  def __getattr__(self, name):
    return getattr(self.real(), name)


class _Launch:
  """A CompiledKernel's launcher: its output loaded by tkrt (tt.load, the trusted cache entry or
  its asm), prepared with Triton's argument list (the constexprs folded, as `fixed`), launched with
  the grid Triton computed."""

  def __init__(self, compiled, device: int):
    self.kernel = tt.load(compiled)
    names = list(compiled.src.fn.arg_names)
    fixed = {}
    for key, value in compiled.src.constants.items():
      index = key[0] if isinstance(key, tuple) and len(key) == 1 else key
      name = names[index] if isinstance(index, int) and 0 <= index < len(names) else index
      if isinstance(name, str):
        fixed[name] = value
    # The grid given here is a placeholder: every launch hands over Triton's.
    self.prepared = self.kernel.prepare((1,), device=tt.device(f"cuda:{device}"),
                                        signature=names, fixed=fixed)
    # The native path takes grid= itself (no Python between Triton and the enqueue); the ctypes
    # path goes through launch_grid.
    self.native = tt.launch_path == "native"

  def __call__(self, grid_0, grid_1, grid_2, stream, function, packed_metadata, launch_metadata,
               enter_hook, exit_hook, *args):
    if enter_hook is not None:
      enter_hook(launch_metadata)
    if self.native:
      self.prepared(*args, stream=stream, grid=(grid_0, grid_1, grid_2))
    else:
      self.prepared.launch_grid((grid_0, grid_1, grid_2), *args, stream=stream)
    next(_launches)
    if exit_hook is not None:
      exit_hook(launch_metadata)


def install() -> None:
  """Makes tkrt Triton's launcher in this process (see the module's text). Idempotent. Refuses
  (RuntimeError, naming it) a Triton release or backend it does not support."""
  triton, GPUDriver, nvidia, compiler, driver = _triton_modules()
  release = ".".join(triton.__version__.split(".")[:2])
  if release not in SUPPORTED_TRITON:
    raise RuntimeError(f"tkrt.triton_launcher: Triton {triton.__version__} is installed; tkrt "
                       f"replaces the launcher of Triton {', '.join(SUPPORTED_TRITON)} only (the "
                       f"launch interface differs between releases)")
  with _lock:
    if _state["installed"]:
      return
    if not nvidia.CudaDriver.is_active():
      raise RuntimeError("tkrt.triton_launcher: Triton's active backend is not CUDA with "
                         "PyTorch; tkrt replaces the CUDA launcher only")

    class TkrtCudaDriver(nvidia.CudaDriver):
      """Triton's CUDA driver without building cuda_utils.c: tkrt launches."""

      def __init__(self):
        self.utils = _Utils(nvidia.CudaUtils)
        self.launcher_cls = nvidia.CudaLauncher  # for kernels that fall back
        GPUDriver.__init__(self)

    original = compiler.CompiledKernel._init_handles

    def init_handles(kernel):
      if kernel.module is not None:
        return
      device = driver.active.get_current_device()
      try:
        run = _Launch(kernel, device)
      except (tt.Error, ValueError, TypeError) as e:
        with _lock:
          _stats["fallback_kernels"] += 1
          _stats["fallback_names"].append(kernel.name)
        _log.debug("tkrt.triton_launcher: %s falls back to Triton's launcher: %s", kernel.name, e)
        return original(kernel)
      kernel._run = run
      # What Triton's own loader would set; tkrt holds the module, Triton never uses these.
      kernel.module, kernel.function = run, 0
      kernel.n_regs = kernel.n_spills = 0
      kernel.n_max_threads = kernel.metadata.num_warps * 32
      with _lock:
        _stats["tkrt_kernels"] += 1

    _state.update(installed=True, original=original, compiler=compiler, runtime_driver=driver)
    compiler.CompiledKernel._init_handles = init_handles
    driver.set_active(TkrtCudaDriver())


def uninstall() -> None:
  """Gives Triton its own launcher back (kernels already launched by tkrt keep their launcher)."""
  with _lock:
    if not _state["installed"]:
      return
    _state["compiler"].CompiledKernel._init_handles = _state["original"]
    _state["runtime_driver"].reset_active()
    _state.update(installed=False)
