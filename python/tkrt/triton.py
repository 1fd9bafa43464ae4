# SPDX-License-Identifier: Apache-2.0
"""tkrt.triton: launch Triton's compiled kernels on framework arrays, without Triton's runtime.

    import tkrt.triton as tt
    kernel = tt.load("~/.triton/cache/<hash>")          # or a <name>.json, or triton.compile's result
    add = kernel.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, n=x.numel())
    add(x, y, out)                                        # PyTorch, CuPy, JAX, NumPy (host) arrays
    add(x, y, out, m)                                     # any scalar per launch; the grid follows

`load` reads Triton's compile output with tkrt's C loader (tkrt_triton_kernel_load): a cache entry,
a `<name>.json`, a folder of target folders, or a CompiledKernel from `triton.compile` / a JIT
function's `kernel[grid](...)` (found through its cache files; Triton is never imported here).
`prepare` binds the call (scalars as defaults, grids, compiled variants) to the device
(tkrt_triton_bound_create), loading its kernels, and returns a PreparedLaunch: calling it reads
the arrays' addresses, the scalars and descriptors, and enqueues with one C call
(tkrt_triton_bound_launch), on the framework's current stream unless `stream=` says otherwise;
with tkrt._native (launch_path == "native") all of that is done in C. Nothing is loaded or allocated at launch, so a
launch may be captured (torch.cuda.graph). docs/triton.md describes arrays, streams and errors.

Arrays come through DLPack (`__dlpack__` / `__dlpack_device__`): the capsule is read, never
consumed, and dropped after the launch is enqueued, so the producer keeps its memory. PyTorch and
CuPy arrays take an equivalent fast path (data_ptr(), dtype and device read directly), since
building a capsule costs microseconds per array; `array_info` shows what either path reads.
"""

from __future__ import annotations

import base64
import collections
import collections.abc
import ctypes
import json
import numbers
import os
import re
import shutil
import sys
import tempfile
import threading
import warnings
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _arrays, _lib
from ._arrays import array_info
from ._lib import Error, load_core_library
from ._log import flush_logs

__all__ = [
    "Error", "Device", "Kernel", "Param", "Variant", "Tuner", "PreparedLaunch",
    "load", "device", "prepare", "array_info", "clear_cache", "configure", "launch_path",
    "launch_path_reason",
]

_lock = threading.Lock()  # guards this module's one-time state (backends, device objects)


# ---------------------------------------------------------------- the launch path


def _load_native():
  """tkrt._native (the C launch path) and None, or None and why not: TKRT_PYTHON_LAUNCH=ctypes
  asks for the ctypes path (=native insists on the extension); TKRT_NATIVE_MODULE names a built
  module file to import (CMake's build folder), else the package's own is imported. The
  extension links libtkrt.so.0: the library is loaded first (load_core_library), so that the
  extension binds to the same copy, which is then checked."""
  forced = os.environ.get("TKRT_PYTHON_LAUNCH", "").strip().lower()
  if forced not in ("", "native", "ctypes"):
    raise ValueError(f"tkrt.triton: TKRT_PYTHON_LAUNCH={forced!r}: expected native or ctypes")
  if forced == "ctypes":
    return None, "TKRT_PYTHON_LAUNCH=ctypes"
  path = os.environ.get("TKRT_NATIVE_MODULE", "").strip()
  try:
    core = load_core_library()
  except OSError as e:  # no libtkrt: the first use says so (tkrt.triton's calls need it anyway)
    if forced == "native":
      raise ImportError(f"tkrt.triton: TKRT_PYTHON_LAUNCH=native but libtkrt cannot be loaded: "
                        f"{e}") from e
    return None, f"libtkrt cannot be loaded ({e})"
  try:
    if path:
      import importlib.util
      spec = importlib.util.spec_from_file_location("tkrt._native", path)
      if spec is None or spec.loader is None:
        raise ImportError(f"TKRT_NATIVE_MODULE={path} is not an extension module")
      module = importlib.util.module_from_spec(spec)
      spec.loader.exec_module(module)
    else:
      from . import _native as module  # type: ignore[attr-defined]
    if module._library_marker() != ctypes.cast(core.tkrt_runtime_default, ctypes.c_void_p).value:
      raise ImportError(f"{getattr(module, '__file__', 'tkrt._native')} links another copy of "
                        f"libtkrt than {core._name}, which tkrt.triton loaded (one tkrt per "
                        f"process: point TKRT_LIBRARY at the libtkrt.so.0 it links, or unset it)")
  except ImportError as e:
    if forced == "native":
      raise ImportError(f"tkrt.triton: TKRT_PYTHON_LAUNCH=native but tkrt._native cannot be "
                        f"used: {e}") from e
    return None, f"tkrt._native cannot be used ({e})"
  return module, None


_native, _native_missing = _load_native()
# Which path prepared launches take: "native" (tkrt._native, a C extension: arrays, scalars and
# the stream read in C, one call of tkrt_triton_bound_launch) or "ctypes" (the same launch built
# in Python). launch_path_reason says why "ctypes" (None for "native").
launch_path = "native" if _native is not None else "ctypes"
launch_path_reason = _native_missing
_native_configured = False


def _configure_native() -> None:
  """Gives tkrt._native the Error class it raises for a failed launch's status and the
  classifier of array types (the readers below)."""
  global _native_configured
  if not _native_configured:
    _native._configure(Error, _arrays.classify_array_type)
    _native_configured = True


# ---------------------------------------------------------------- devices

# DLPack's device types (DLDeviceType in dlpack.h) by their enum names: the standard's words, not
# tkrt's backends. Messages show them as frameworks do ("kDLCUDAHost" -> "cuda_host").
_DLPACK_TYPE_ENUMS = {1: "kDLCPU", 2: "kDLCUDA", 3: "kDLCUDAHost", 4: "kDLOpenCL", 7: "kDLVulkan",
                      8: "kDLMetal", 9: "kDLVPI", 10: "kDLROCM", 11: "kDLROCMHost",
                      13: "kDLCUDAManaged", 14: "kDLOneAPI"}


def _dlpack_type_name(enum: str) -> str:
  word = enum[3:]
  for suffix in ("Host", "Managed"):
    if word.endswith(suffix):
      word = f"{word[:-len(suffix)]}_{suffix}"
  return word.lower()


_DLPACK_DEVICE_NAMES = {kind: _dlpack_type_name(enum) for kind, enum in _DLPACK_TYPE_ENUMS.items()}
# DLPack's page-locked host memory of a GPU API (kDLCUDAHost, kDLROCMHost): a backend may take such
# arrays (its descriptor lists the type), but the memory is no device's own, so it names no device
# for tkrt.triton.device(array).
_DLPACK_PINNED_HOST = frozenset(k for k, enum in _DLPACK_TYPE_ENUMS.items() if enum.endswith("Host"))


class _Backends:
  """What tkrt's backends say of themselves (tkrt_backend_names, tkrt_backend_resolve,
  tkrt_backend_describe, tkrt_image_kind_name, tkrt_image_kind_triton_files): asked of the C
  library once, so that no backend is named here."""

  def __init__(self, api: _lib.Api):
    out = ctypes.create_string_buffer(256)
    _lib.check(api.backend_names(out, len(out)), "listing the backend names")
    # Every name a device spec takes (names, aliases, the group "gpu"), each resolved into the
    # backend list the runtime opens ("gpu" -> the backends that run on others' streams).
    self.names: Tuple[str, ...] = tuple(out.value.decode().split(","))
    self.resolved: Dict[str, str] = {}
    for name in self.names:
      _lib.check(api.backend_resolve(name.encode(), out, len(out)), f"resolving backend {name!r}")
      self.resolved[name] = out.value.decode()
    _lib.check(api.backend_resolve(None, out, len(out)), "listing the backends")
    self.described: Dict[str, _lib.BackendDescription] = {}
    for name in out.value.decode().split(","):
      d = _lib.BackendDescription()
      d.struct_size = ctypes.sizeof(d)
      _lib.check(api.backend_describe(name.encode(), ctypes.addressof(d)), f"describing {name!r}")
      self.described[name] = d
    # The backend whose device memory each DLPack type is, where exactly one backend takes it.
    takers: Dict[int, List[str]] = {}
    for name, d in self.described.items():
      for kind in d.dlpack_device_types[:d.dlpack_device_type_count]:
        takers.setdefault(int(kind), []).append(name)
    self.dlpack_backend = {kind: names[0] for kind, names in takers.items()
                           if len(names) == 1 and kind not in _DLPACK_PINNED_HOST}
    # Image kinds by name (those some backend loads), and where Triton's asm keeps each.
    loaded = 0
    for d in self.described.values():
      loaded |= d.image_kinds
    self.image_kinds: Dict[str, int] = {}
    self.asm_files: List[Tuple[str, str]] = []  # (asm key, file extension)
    for kind in range(1, 32):
      if not loaded & (1 << kind):
        continue
      self.image_kinds[api.image_kind_name(kind).decode()] = kind
      key, extension = ctypes.c_char_p(), ctypes.c_char_p()
      _lib.check(api.image_kind_triton_files(kind, ctypes.byref(key), ctypes.byref(extension)),
             "Triton's image files")
      if key.value and extension.value:
        self.asm_files.append((key.value.decode(), extension.value.decode()))


_backends_known: Optional[_Backends] = None


def _backends() -> _Backends:
  global _backends_known
  if _backends_known is None:
    known = _Backends(_lib.api())
    with _lock:
      if _backends_known is None:
        _backends_known = known
  return _backends_known


# The Python object of each device handle, so that one device is one object (the devices
# themselves are the runtime's).
_device_objects: Dict[int, "Device"] = {}


def _runtime() -> ctypes.c_void_p:
  """The process's default runtime (tkrt_runtime_default): its devices, its tuner."""
  api = _lib.api()
  rt = api.default_runtime
  if rt is None:
    handle = api.runtime_default()
    if not handle:
      raise Error("RESOURCE_EXHAUSTED", "tkrt_runtime_default: out of host memory")
    rt = api.default_runtime = ctypes.c_void_p(handle)
  return rt


class Device:
  """A tkrt device (tkrt_device_t) of the process's default runtime (tkrt_runtime_default), which
  opens it once per (backend, ordinal) and keeps it for the process. Get one with
  tkrt.triton.device()."""

  def __init__(self, handle: int):
    info = _lib.api().device_info(handle).contents
    self._handle = ctypes.c_void_p(handle)
    self.backend = info.backend.decode()
    self.ordinal = int(info.ordinal)
    self.name = info.name.decode(errors="replace")
    self.arch = info.arch.decode()
    described = _backends().described[self.backend]
    self.dlpack_types = tuple(int(k) for k in
                              described.dlpack_device_types[:described.dlpack_device_type_count])
    # Whether it runs on streams that frameworks made (its descriptor's foreign_streams); if not,
    # its streams are tkrt's own objects: Python knows every one (create_stream), refuses any
    # other handle before C would follow it, and launches on the default stream by default.
    self.foreign_streams = bool(described.foreign_streams)
    # The image kinds that are machine code for this process (loaded only with consent).
    self.native_code_kinds = int(described.native_code_kinds)
    # Whether its kernels address the process's own memory (it takes kDLCPU arrays): then any
    # array in host memory is on it, whatever device id DLPack gives (0 for the CPU, the GPU's
    # for pinned memory), and PyTorch numbers such tensors -1 (get_device()); frameworks number
    # GPUs as the driver does.
    self.process_memory = _arrays.DLPACK_CPU in self.dlpack_types
    self.torch_index = -1 if self.process_memory else self.ordinal
    self._own_streams: set = set()

  def _stream(self, stream: Any) -> int:
    """The native handle of `stream` for this device (0: the default stream). A handle must be an
    int in 0..2^64-1; on the host backend, 0 or a stream of create_stream that is not destroyed."""
    handle = _arrays.stream_handle(stream)
    if handle and not self.foreign_streams and handle not in self._own_streams:
      raise ValueError(f"tkrt.triton: stream {handle:#x} is not a stream of "
                       f"{self.backend}:{self.ordinal} ({self.backend} streams come from "
                       f"Device.create_stream; 0 or None is the default stream)")
    return handle

  def __repr__(self):
    return f"<tkrt.triton.Device {self.backend}:{self.ordinal} {self.name!r} {self.arch}>"

  def synchronize(self, stream: Any = None) -> None:
    """Waits for the work queued on `stream` (a native handle or a framework stream object;
    None: the default stream, which on CUDA waits for the legacy stream's work)."""
    _lib.check(_lib.api().stream_synchronize(self._handle, self._stream(stream) or None),
           f"synchronizing {self.backend}:{self.ordinal}")

  def create_stream(self) -> int:
    """A new stream of the device (its native handle); free it with destroy_stream."""
    out = ctypes.c_void_p()
    _lib.check(_lib.api().stream_create(self._handle, ctypes.byref(out)), "creating a stream")
    if not self.foreign_streams and out.value:
      with _lock:
        self._own_streams.add(out.value)
    return out.value or 0

  def destroy_stream(self, stream: Any) -> None:
    handle = self._stream(stream)
    if not handle:
      raise ValueError("tkrt.triton: the default stream (0) cannot be destroyed")
    _lib.check(_lib.api().stream_destroy(self._handle, handle), "destroying a stream")
    with _lock:
      self._own_streams.discard(handle)


# Device names Python takes are the C backend lists' (tkrt_backend_names): each backend's name,
# its aliases, and the group "gpu" (the first backend that runs on others' streams and has a
# device), each one name, resolved by tkrt_backend_resolve into the list the runtime opens.
_ORDINAL_MAX = 2**31 - 1  # tkrt_device_options_t.ordinal is a C int


def _ordinal(value: Any, spec: Any) -> int:
  """A device ordinal in 0..2^31-1, or a ValueError naming the device spec."""
  if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
      or not 0 <= int(value) <= _ORDINAL_MAX:
    raise ValueError(f"tkrt.triton: device {spec!r}: the device index {value!r} is not an "
                     f"integer in 0..{_ORDINAL_MAX}")
  return int(value)


def _parse_device_spec(spec: Any) -> Tuple[str, int]:
  """(backend list, ordinal) from a device name with an optional ':<index>' (a backend's name or
  alias, or "gpu"), a torch.device, an array. Other names and malformed indices are a
  ValueError."""
  known = _backends()
  if isinstance(spec, str):
    name, colon, index = spec.partition(":")
    if name not in known.resolved:
      raise ValueError(f"tkrt.triton: unknown device {spec!r}: expected one of "
                       f"{', '.join(known.names)}, optionally with ':<index>' (e.g. "
                       f"'{known.names[0]}:1')")
    if colon and not re.fullmatch(r"[0-9]{1,10}", index):
      raise ValueError(f"tkrt.triton: device {spec!r}: the index after ':' must be decimal "
                       f"digits, 0..{_ORDINAL_MAX}")
    ordinal = _ordinal(int(index) if colon else 0, spec)
  elif hasattr(spec, "type") and hasattr(spec, "index") and not hasattr(spec, "__dlpack__"):
    name = spec.type  # torch.device
    if name not in known.resolved:
      raise ValueError(f"tkrt.triton: a torch.device of type {name!r} has no tkrt backend")
    ordinal = _ordinal(0 if spec.index is None else spec.index, spec)
  elif hasattr(spec, "__dlpack_device__"):
    kind, ordinal = spec.__dlpack_device__()
    kind = int(kind)
    name = known.dlpack_backend.get(kind)
    if name is None:
      raise ValueError(f"tkrt.triton: an array on DLPack device type {kind} "
                       f"({_DLPACK_DEVICE_NAMES.get(kind, 'unknown')}) has no tkrt backend")
    ordinal = _ordinal(ordinal, f"an array on DLPack device ({kind}, {ordinal})")
  else:
    raise TypeError(f"tkrt.triton: device must be a tkrt.triton.Device, a device name ("
                    f"{', '.join(known.names)}, optionally with ':<index>'), a torch.device or an "
                    f"array; got {type(spec).__name__}")
  return known.resolved[name], ordinal


def device(spec: Any = None) -> Device:
  """The tkrt device for `spec`: None (TKRT_BACKEND, else the first backend in default order that
  has a device; ordinal 0), a backend's name or alias with an optional index (cuda, cuda:1, hip:0,
  host, cpu: the names tkrt_backend_names gives), gpu (the first backend that runs on others'
  streams and has a device, never the host), a torch.device, an array (its DLPack device) or a
  Device. Other names, and indices outside 0..2^31-1, are a ValueError. The device is the default
  runtime's (tkrt_runtime_device): its options come from the TKRT_* environment variables as they
  are when the process's first device is opened (TKRT_BACKEND, TKRT_HOST_THREADS, TKRT_CACHE_DIR,
  ...; docs/settings.md)."""
  if isinstance(spec, Device):
    return spec
  backend, ordinal = (None, 0) if spec is None else _parse_device_spec(spec)
  api = _lib.api()
  handle = ctypes.c_void_p()
  _lib.check(api.runtime_device(_runtime(), backend.encode() if backend else None, ordinal,
                            ctypes.byref(handle)),
         f"opening device {spec if spec is not None else '(default)'}")
  dev = _device_objects.get(handle.value)
  if dev is None:
    made = Device(handle.value)
    with _lock:  # another thread may have made the same one meanwhile: keep the first
      dev = _device_objects.setdefault(handle.value, made)
  return dev


_device_of = device  # for functions whose `device` parameter hides it


def configure(**settings: Any) -> None:
  """Sets settings of the default runtime (tkrt_runtime_configure), which tkrt.triton's devices
  and its tuner for calls without a Tuner come from, before it opens its first device or makes its
  tuner. Names and words are those of tkrt's settings table (docs/settings.md): backend,
  cache_dir, hip_library, log, tune_dir, tune_pin, tune_policy, tune_prune_margin,
  capture_policy; words in any case; None or "" restores the default (settings not given come
  from the TKRT_* variables). Raises Error: INVALID_ARGUMENT naming the setting for an unknown
  name or a value it does not take, FAILED_PRECONDITION once a device is open or the tuner made
  (log excepted); nothing changes then. tkrt.configure (the XLA targets') writes the same
  table, except `backend`, which there is the XLA targets' own list."""
  api = _lib.api()
  runtime = _runtime()
  for name, value in settings.items():
    if value is not None:
      value = repr(float(value)) if isinstance(value, float) else str(value)
      _no_nul(value, f"setting {name}")
    _lib.check(api.runtime_configure(runtime, _no_nul(name, "a setting name").encode(),
                                 None if value is None else value.encode()),
           f"configure({name}={value!r})")


# ---------------------------------------------------------------- kernels

Param = collections.namedtuple("Param", "name type is_pointer element divisibility desc_rank desc_block",
                               defaults=(0, ()))
Param.__doc__ = ("A kernel parameter as the TTIR declares it: name, Triton type ('*fp32', 'i32', "
                 "'tensordesc<fp16[64, 64]>'), whether it is a pointer, the pointee or a "
                 "descriptor's element ('fp32') or '' for scalars, tt.divisibility, and for a "
                 "tensor descriptor its rank and the block shape the kernel was compiled for")


class Kernel:
  """A Triton kernel loaded by tkrt (tkrt_triton_kernel_t): one or more targets' images."""

  def __init__(self, handle: int, source: str):
    api = _lib.api()
    self._handle = ctypes.c_void_p(handle)
    self.source = source
    self.name = api.triton_kernel_name(self._handle).decode()
    params = []
    for i in range(api.triton_kernel_param_count(self._handle)):
      p = api.triton_kernel_param(self._handle, i).contents
      type_name = p.type.decode()
      rank = int(p.desc_rank)
      element = type_name[1:] if p.is_pointer else ""
      if rank:  # "tensordesc<fp16[64, 128]>"
        found = re.match(r"tensordesc<(\w+)\[", type_name)
        element = found.group(1) if found else ""
      params.append(Param(p.name.decode(), type_name, bool(p.is_pointer), element,
                          int(p.divisibility), rank, tuple(int(b) for b in p.desc_block[:rank])))
    self.params: Tuple[Param, ...] = tuple(params)
    self.targets = []
    self._image_bits = []  # per target: its image kinds as tkrt_image_kind_t bits
    kinds = _backends().image_kinds
    for i in range(api.triton_kernel_target_count(self._handle)):
      t = api.triton_kernel_target(self._handle, i).contents
      self._image_bits.append(int(t.image_kinds))
      left_out = t.native_code_left_out
      self.targets.append({"json": t.json_path.decode(), "backend": t.backend.decode(),
                           "arch": t.arch.decode(), "num_stages": int(t.num_stages),
                           "shared": int(t.shared_mem_bytes), "hash": t.hash.decode(),
                           "triton_version": t.triton_version.decode(),
                           "triton_release": t.triton_release.decode(),
                           "image_kinds": sorted(k for k, bit in kinds.items()
                                                 if t.image_kinds & (1 << bit)),
                           "native_code_left_out": left_out.decode() if left_out else None})
    self.num_warps = int(api.kernel_get_desc(api.triton_kernel_get(self._handle)).contents.num_warps)
    # The constexprs it was compiled with, where known (loaded from a CompiledKernel): a grid may
    # name them without constants=, which may not give them other values.
    self.constants: Dict[str, int] = _constants_dict(api.triton_kernel_constants(self._handle).decode())
    self.num_stages = self.targets[0]["num_stages"] if self.targets else 1

  # `loaded` is bound when the class is made: at exit the module's globals may be gone first.
  def __del__(self, loaded=_lib.api_if_loaded):
    handle = getattr(self, "_handle", None)
    api = loaded()
    if handle and api is not None:
      api.triton_kernel_release(handle)

  def __repr__(self):
    signature = ", ".join(f"{p.name}: {p.type}" for p in self.params)
    targets = ", ".join(f"{t['backend']} {t['arch']}" for t in self.targets)
    return f"<tkrt.triton.Kernel {self.name}({signature}) [{targets}]>"

  def variant(self, grid: Any, constants: Any = None, description: Optional[str] = None) -> "Variant":
    return Variant(self, grid, constants, description)

  def prepare(self, grid: Any, *, constants: Any = None, device: Any = None,
              inout: Iterable[str] = (), min_elements: Optional[Dict[str, int]] = None,
              signature: Optional[Sequence[str]] = None, fixed: Optional[Dict[str, Any]] = None,
              unsigned: Iterable[str] = (),
              **scalars: Union[int, float, bool]) -> "PreparedLaunch":
    """A launch of this kernel: `grid` (see Variant), the constexprs it was compiled with
    (`constants`, for the grid; not needed for those the kernel knows, `self.constants`, which it
    does when loaded from a CompiledKernel: another value for one of them is an Error), scalar values by name (a launch given the arrays only takes
    them; one given every argument takes its own), the device (see device(); default: the default
    device), the pointer parameters it updates in place, the element count each array must at
    least hold (`min_elements`), Triton's argument list with its folded arguments
    (`signature`, `fixed`) and the integer scalars read as unsigned (`unsigned`): see
    prepare()."""
    return prepare([Variant(self, grid, constants)], device=device, inout=inout,
                   min_elements=min_elements, signature=signature, fixed=fixed,
                   unsigned=unsigned, **scalars)


class Variant:
  """One compiled variant of a kernel and its grid, for prepare(): `grid` is a tkrt grid
  expression ("cdiv(n, BLOCK)", "cdiv(M, BM), cdiv(N, BN)"), a tuple of ints, a tuple of
  expressions, or a callable taking a dict of the scalars, constants, num_warps and num_stages
  (like Triton's grid lambdas) and returning a tuple of ints. `constants`: the constexprs the
  variant was compiled with, a dict or "BM=64,BN=128"."""

  def __init__(self, kernel: Kernel, grid: Any, constants: Any = None,
               description: Optional[str] = None):
    if not isinstance(kernel, Kernel):
      raise TypeError(f"tkrt.triton.Variant: kernel must be a tkrt.triton.Kernel (from "
                      f"tkrt.triton.load), not {type(kernel).__name__}")
    self.kernel = kernel
    self.grid = grid
    self.constants = _constants_text(constants)
    if description is not None:
      _no_nul(str(description), "a variant's description")
    self.description = description


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_INT64 = (-2**63, 2**63 - 1)


def _no_nul(text: str, what: str) -> str:
  """`text`, or a ValueError when it holds a NUL byte (C would read only what comes before it),
  as os functions refuse such paths."""
  if "\x00" in text:
    raise ValueError(f"tkrt.triton: {what} {text!r} contains a NUL byte")
  return text


def _constants_text(constants: Any) -> str:
  """The C form ("BM=64,BN=128") of a variant's constexprs: a dict of integers (bool: 1 or 0, as
  Triton's boolean constexprs) or that text. A float, or any other non-integer, is a TypeError:
  it would change the grid without a word (1.9 is not 1)."""
  if constants is None:
    return ""
  if isinstance(constants, str):
    return _no_nul(constants, "constants")
  try:
    items = dict(constants).items()
  except (TypeError, ValueError):
    raise TypeError(f"tkrt.triton: constants must be a dict of name: integer or a string "
                    f"'NAME=INT,...'; got {type(constants).__name__}") from None
  parts = []
  for name, value in items:
    if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
      raise ValueError(f"tkrt.triton: constant name {name!r} is not an identifier")
    if not isinstance(value, numbers.Integral):  # bool is Integral
      raise TypeError(f"tkrt.triton: constant {name}={value!r} is a {type(value).__name__}, not "
                      f"an integer (constants are the integer constexprs of the grid; bool "
                      f"counts as 1 or 0)")
    value = int(value)
    if not _INT64[0] <= value <= _INT64[1]:
      raise ValueError(f"tkrt.triton: constant {name}={value} is outside the 64-bit signed "
                       f"range ({_INT64[0]}..{_INT64[1]})")
    parts.append(f"{name}={value}")
  return ",".join(parts)


_FLOAT_TYPES = ("fp16", "bf16", "fp32", "fp64")


def _scalar_fields(params: Dict[str, "Param"], name: Any,
                   value: Any) -> Tuple[bool, int, float, bool]:
  """(is_float, i, f, is_uint64) of tkrt_triton_scalar_t for scalar `name`. Whether the parameter
  takes the value (its range by width and reading, its divisibility) is the C library's to say
  when the call is made; an integer is only refused here when no C integer holds it."""
  if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
    raise ValueError(f"tkrt.triton.prepare: scalar name {name!r} is not an identifier")
  param = params.get(name)
  if isinstance(value, numbers.Integral):
    value = int(value)
    if param is not None and param.type in _FLOAT_TYPES:
      try:
        return True, 0, float(value), False
      except OverflowError:
        raise Error("OUT_OF_RANGE", f"scalar '{name}' is {param.type}; {value} is too large for "
                                    f"a float") from None
    i, above = _lib.c_integer(value, f"scalar '{name}'")
    return False, i, 0.0, above
  if isinstance(value, numbers.Real):
    return True, 0, float(value), False
  raise TypeError(f"tkrt.triton.prepare: scalar {name}={value!r} is neither an integer nor a float")


def _constants_dict(text: str) -> Dict[str, int]:
  out = {}
  for item in filter(None, (part.strip() for part in text.split(","))):
    name, _, value = item.partition("=")
    value = value.strip()
    out[name.strip()] = 1 if value in ("True", "true") else 0 if value in ("False", "false") else int(value, 0)
  return out


def _grid_fields(variant: Variant, scalars: Dict[str, Any]) -> Tuple[Optional[bytes], Tuple[int, int, int]]:
  grid = variant.grid
  if callable(grid):
    meta = dict(scalars)
    meta.update(variant.kernel.constants)
    meta.update(_constants_dict(variant.constants))
    meta.update(num_warps=variant.kernel.num_warps, num_stages=variant.kernel.num_stages)
    grid = grid(meta)
  if isinstance(grid, str):
    return grid.encode(), (0, 0, 0)
  if isinstance(grid, numbers.Integral):
    grid = (grid,)
  grid = tuple(grid)
  if not 1 <= len(grid) <= 3:
    raise ValueError(f"tkrt.triton: a grid has 1 to 3 dimensions; got {grid!r}")
  if all(isinstance(g, numbers.Integral) for g in grid):
    return None, _grid_dims(grid, "tkrt.triton")
  return ", ".join(str(g) for g in grid).encode(), (0, 0, 0)


class Tuner:
  """An autotuner for prepared launches with several variants: the tuner of a runtime of its own
  (tkrt_runtime_create, tkrt_runtime_tuner), made now; its launches run on the default runtime's
  devices with this tuner deciding. Without one, prepare() uses the default runtime's tuner,
  whose settings come from the environment. Settings not
  given come from the environment (TKRT_TUNE_DIR, TKRT_TUNE_POLICY, TKRT_TUNE_PIN,
  TKRT_TUNE_PRUNE_MARGIN). store_dir: the decision store folder, or "off"; policy: "auto" or
  "never"; pins: like TKRT_TUNE_PIN; capture_policy: "first_config" (default) or "error";
  target_ms: benchmarking time per variant; prune_margin: as TKRT_TUNE_PRUNE_MARGIN. Each value is
  checked and mapped by tkrt's settings table (tkrt_setting_apply, docs/settings.md): words in any
  case, and a bad value raises Error naming the setting and the value. exchange=, with
  exchange_policy, exchange_ranks, exchange_timeout_ms and tuning_key: a decision exchange shared
  by the ranks of a job (tkrt.exchange, docs/autotuning.md)."""

  # keyword -> the setting's name in the table
  _SETTINGS = {"store_dir": "tune_dir", "policy": "tune_policy", "pins": "tune_pin",
               "capture_policy": "capture_policy", "target_ms": "target_ms",
               "prune_margin": "tune_prune_margin"}

  def __init__(self, store_dir: Optional[str] = None, policy: Optional[str] = None,
               pins: Optional[str] = None, capture_policy: Optional[str] = None,
               target_ms: Optional[float] = None, prune_margin: Optional[float] = None,
               exchange: Any = None, **exchange_options: Any):
    api = _lib.api()
    runtime_options = _lib.versioned(_lib.RuntimeOptions, api.runtime_options_init)
    options = runtime_options.tuner
    _lib.check(api.options_from_environment(None, ctypes.addressof(options)), "reading TKRT_TUNE_*")
    given = {"store_dir": store_dir, "policy": policy, "pins": pins,
             "capture_policy": capture_policy, "target_ms": target_ms,
             "prune_margin": prune_margin}
    keep = []  # the strings the options point at, alive until the tuner is created
    for keyword, value in given.items():
      if value is None and keyword != "capture_policy":
        continue  # capture_policy unset is first_config here, as in libtkrt_xla
      if isinstance(value, float):
        value = repr(value)
      if value is not None:
        _no_nul(str(value), f"Tuner({keyword}=...)")
      keep.append(None if value is None else str(value).encode())
      _lib.check(api.setting_apply(self._SETTINGS[keyword].encode(), keep[-1], 0, None,
                               ctypes.addressof(options)), f"Tuner({keyword}={value!r})")
    # The decision exchange (tkrt.exchange: exchange_policy, exchange_ranks, exchange_timeout_ms,
    # tuning_key); kept alive with the tuner, whose callbacks it holds. Set before the runtime is
    # created: the runtime's tuner is made from these options.
    from .exchange import apply_to_tuner_options
    self._exchange = apply_to_tuner_options(options, keep, exchange, exchange_options)
    runtime = ctypes.c_void_p()
    _lib.check(api.runtime_create(ctypes.addressof(runtime_options), ctypes.byref(runtime)),
           "creating a tuner")
    self._runtime = runtime
    # The tuner is made now, so that its errors (an unusable store) are the constructor's.
    handle = ctypes.c_void_p()
    _lib.check(api.runtime_tuner(runtime, ctypes.byref(handle)), "creating a tuner")
    self._handle = handle

  def __del__(self, loaded=_lib.api_if_loaded):  # bound now: see Kernel.__del__
    runtime = getattr(self, "_runtime", None)
    api = loaded()
    if runtime and api is not None:
      api.runtime_release(runtime)


# ---------------------------------------------------------------- prepared launches

_UNKNOWN_SIZE = _lib.UNKNOWN_SIZE


class _Expect:
  """Where a pointer parameter's (or a descriptor base's) array must live, for the message."""

  __slots__ = ("index", "param", "dev", "where")

  def __init__(self, index: int, param: Param, dev: Device, where: str):
    self.index, self.param, self.dev, self.where = index, param, dev, where


def _array_error(expect: _Expect, info, obj) -> Exception:
  address, (kind, ident), _, _, _ = info
  p = expect.param
  what = f"{expect.where}: argument {expect.index} ({p.name}: {p.type})"
  if kind not in expect.dev.dlpack_types or (ident != expect.dev.ordinal and not expect.dev.process_memory):
    place = f"{_DLPACK_DEVICE_NAMES.get(kind, f'device type {kind}')}:{ident}"
    return ValueError(f"{what} is on {place}, but the launch is prepared for "
                      f"{expect.dev.backend}:{expect.dev.ordinal}")
  return ValueError(f"{what}: {address:#x}")


# Plan entries (tkrt._native's P_* kinds): what each argument of a launch is.
_P_POINTER, _P_INT, _P_FLOAT, _P_DESC, _P_FIXED = range(5)

_LaunchBase: type = _native.Launcher if _native is not None else object


class PreparedLaunch(_LaunchBase):  # type: ignore[misc, valid-type]
  """A call bound to a device with its kernels loaded (a tkrt_triton_bound_t): call it with the
  arrays, `launch(x, y, out)` (scalars take prepare's values), or with every argument,
  `launch(x, y, out, n)` (scalars per launch; the grid follows them), and `stream=`. With
  tkrt._native (launch_path == "native") the call is the extension's, in C; else the same launch
  is built here and made through ctypes. See prepare()."""

  def __init__(self, bound: int, runtime: ctypes.c_void_p, kernel: Kernel, dev: Device,
               scalars: Dict[str, Any], tuner: Optional[Tuner], sized: bool, variant_count: int,
               sized_arrays: bool, signature: Optional[Sequence[str]],
               fixed: Dict[str, Any], key: Sequence[str], unsigned: Sequence[str] = ()):
    api = _lib.api()
    self._bound = bound
    self._owned = None  # the bound launch, once this object owns it (end of __init__)
    self.unsigned = tuple(unsigned)
    self._call = ctypes.c_void_p(api.triton_bound_call(bound))
    self._runtime = runtime  # the runtime whose tuner decides: the default one, or the Tuner's
    self._tuner = tuner  # must outlive the launch (it holds its runtime)
    self.kernel = kernel
    self.device = dev
    self.scalars = dict(scalars)
    self.key = tuple(key)
    self.fixed = dict(fixed)
    self.variant_count = variant_count
    # Array extents are read and passed: an autotuned in-place call saves them while it tunes,
    # and min_elements (checked by the C library) needs them.
    self._sized = sized or sized_arrays
    self._where = f"{kernel.name}"
    self.pointer_params = tuple(p for p in kernel.params if p.is_pointer)
    self._param_count = len(kernel.params)
    # The full argument list: the kernel's parameters, or `signature` (Triton's names, the
    # specialised ones included, which `fixed` gives).
    by_name = {p.name: i for i, p in enumerate(kernel.params)}
    names = list(signature) if signature is not None else [p.name for p in kernel.params]
    plan, native_plan, arrays = [], [], []
    for position, arg_name in enumerate(names):
      if arg_name in self.fixed:
        plan.append((_P_FIXED, -1, arg_name, self.fixed[arg_name]))
        native_plan.append((_P_FIXED, -1, 0, None, self.fixed[arg_name]))
        continue
      i = by_name[arg_name]
      p = kernel.params[i]
      if p.desc_rank:
        plan.append((_P_DESC, i, p, None))
        native_plan.append((_P_DESC, i, p.desc_rank, p.desc_block))
        arrays.append(position)
      elif p.is_pointer:
        plan.append((_P_POINTER, i, p, None))
        native_plan.append((_P_POINTER, i))
        arrays.append(position)
      elif p.type in _FLOAT_TYPES:
        plan.append((_P_FLOAT, i, p, None))
        native_plan.append((_P_FLOAT, i))
      else:
        plan.append((_P_INT, i, p, None))
        native_plan.append((_P_INT, i))
    self._plan = tuple(plan)
    self._arrays = tuple(arrays)
    self._names = tuple(names)
    # The ctypes path's argument arrays, reused from launch to launch (one per launch in flight:
    # list.pop and append are atomic, so threads never share one); the scalar parameters, reset
    # to their defaults in the arrays-only form.
    self._free_args: List[Any] = []
    self._scalar_params = tuple(i for i, p in enumerate(kernel.params)
                                if not p.is_pointer and not p.desc_rank)
    self._torch_plan: Any = None  # the PyTorch fast path's plan (_torch_fast), made on first use
    # Launches on tkrt's own default stream, not a framework's (the device takes no foreign
    # streams); arrays' DLPack device ids not compared (its kernels address the process's memory).
    self._own_stream = not dev.foreign_streams
    self._any_array_ordinal = dev.process_memory
    # Launches on a device whose kernels address the process's memory (the host backend) return
    # once they have run: NumPy arrays and CPU tensors have no stream order that would keep their
    # memory from being freed and reused while a launch is queued (docs/triton.md).
    self._synchronous = dev.process_memory
    if _native is not None:
      _configure_native()
      self._setup(bound, native_plan, self._arrays, self._param_count, tuple(dev.dlpack_types),
                  dev.ordinal, dev.process_memory, dev.foreign_streams,
                  self._sized, f"launching {kernel.name}", dev._handle.value)
    self._owned = bound  # freed with this object (__del__), closed or not

  # Prepared launches live in prepare()'s cache for the process (as Triton keeps its compiled
  # kernels); close() takes one out and unloads its kernels, and the bound launch's memory goes
  # with the object (__del__), when no thread can be launching it any more.
  def close(self) -> None:
    """Unloads the call's kernels and frees its device memory: launches running on other threads
    are waited for, then all work queued on the device (launches made with it, on any stream),
    with the GIL released meanwhile; a launch after (or racing with) the close raises ValueError
    saying it was closed. Do not close a launch that a captured graph will replay."""
    with _lock:
      for key, value in list(_prepared.items()):
        if value is self:
          del _prepared[key]
    bound = self._bound
    if bound is None:
      return
    if _native is not None:
      self._detach()
    self._bound = self._runtime = self._call = None  # a launch now raises (_closed) before C
    _lib.check(_lib.api().triton_bound_close(bound), f"closing {self.kernel.name}")

  def __del__(self, loaded=_lib.api_if_loaded):  # bound now: see Kernel.__del__
    owned = getattr(self, "_owned", None)
    api = loaded()
    if owned and api is not None:
      self._owned = None
      api.triton_bound_destroy(owned)  # closes first when close() was not called

  def __repr__(self):
    return (f"<tkrt.triton.PreparedLaunch {self.kernel.name} on {self.device.backend}:"
            f"{self.device.ordinal}, {self.variant_count} variant(s), scalars {self.scalars}"
            f"{f', key {list(self.key)}' if self.key else ''}>")

  if _native is None:
    def __call__(self, *args: Any, **keywords: Any) -> None:
      stream = keywords.pop("stream", None)
      if keywords:
        raise TypeError(f"launching {self.kernel.name}: unexpected keyword argument "
                        f"'{next(iter(keywords))}' (a launch takes the arguments and stream=)")
      self._launch_ctypes(args, stream)

  def launch_grid(self, grid: Any, *args: Any, stream: Any = None) -> None:
    """Launches with every argument and this grid (an int or 1 to 3 ints) for every variant, in
    place of the grids prepare() was given: for a caller that computes the grid itself, as
    Triton's launcher is handed one (tkrt_triton_bound_launch_with; the ctypes path)."""
    dims = _grid_dims(grid, f"launching {self.kernel.name}", "launch_grid was given")
    if len(args) != len(self._names):
      raise TypeError(f"{self._where}: launch_grid takes all {len(self._names)} arguments "
                      f"({', '.join(self._names)}); got {len(args)}")
    if _native is not None:  # the extension takes the grid itself (grid=)
      return _LaunchBase.__call__(self, *args, stream=stream, grid=dims)
    self._launch_ctypes(args, stream, _grid_options(dims * self.variant_count))

  def _launch_ctypes(self, args: Sequence[Any], stream: Any, grids: Any = None) -> None:
    """The ctypes path: the arguments read here, then one tkrt_triton_bound_launch (with
    `grids`, a tkrt_triton_bound_launch_options_t carrying this launch's grids: one
    tkrt_triton_bound_launch_with). PyTorch
    tensors whose class, dtype and device are what the launch takes go the short way
    (_torch_fast: data_ptr() into a reused argument array); anything else, and anything off,
    the general reader (_convert), which explains what is wrong."""
    free = self._free_args
    c_args = free.pop() if free else self._new_args()
    try:
      first = args[0] if args else None
      handle = None
      if (first is not None and first.__class__ in _arrays.fast_readers
          and _arrays.fast_readers[first.__class__] is not None
          and _arrays.fast_readers[first.__class__].name == "torch"):
        handle = self._torch_fast(args, stream, c_args)
      if handle is not None:
        keep = None
      else:
        _, keep, first = self._convert(args, c_args)
        handle = self._stream_for(stream, first)
      bound = self._bound
      if bound is None:  # closed by another thread while the arguments were read
        _closed(self)
      api = _lib.api()
      if grids is not None:
        wait = lambda: api.bound_launch_with(bound, handle or None, c_args, self._param_count,
                                             ctypes.addressof(grids[1]), None)
      else:
        wait = lambda: api.bound_launch(bound, handle or None, c_args, self._param_count, None)
      if self._synchronous or keep:
        # Arrays no stream order protects (the host backend's; DLPack capsules on a GPU): the
        # launch is waited for before the arrays may go, with the GIL released (CDLL).
        status = wait()
        if not status:
          status = api.stream_synchronize(self.device._handle, handle or None)
        flush_logs()
      else:
        if grids is not None:
          status = api.bound_try_launch_with(bound, handle or None, c_args, self._param_count,
                                             ctypes.addressof(grids[0]), None)
        else:
          status = api.bound_try_launch(bound, handle or None, c_args, self._param_count, None)
        if status == api.would_wait:  # a decision, a new key value, scratch: GIL released
          status = wait()
          flush_logs()
      del keep  # the capsules lived until the launch had run (synchronous) or was queued
    finally:
      free.append(c_args)
    if status:
      _lib.raise_status(status, f"launching {self.kernel.name}")

  def _new_args(self):
    c_args = (_lib.TritonArg * max(1, self._param_count))()
    for arg in c_args:
      arg.size = _UNKNOWN_SIZE
    return c_args

  def _torch_fast(self, args: Sequence[Any], stream: Any, c_args) -> Optional[int]:
    """Fills c_args from PyTorch tensors and Python numbers the short way and returns the stream
    handle; None when anything is not what the short way takes (c_args is then filled again by
    _convert, which explains what is wrong)."""
    if self._sized or self._bound is None:
      return None  # extents are needed: the general reader computes them
    plan = self._torch_plan
    if plan is None:
      reader = _arrays.fast_readers[args[0].__class__]
      rows = []
      for kind, i, p, extra in self._plan:
        if kind == _P_POINTER:
          rows.append((kind, i, reader.codes))  # dtype -> DLPack code, for C's dtype rule
        else:
          rows.append((kind, i, extra))
      raw, ordinal = reader._raw_stream, self.device.ordinal
      current = ((lambda: 0) if self._own_stream else
                 (lambda: raw(ordinal)) if raw is not None else
                 (lambda: reader.current_stream(None, self.device)))
      plan = self._torch_plan = (tuple(rows), args[0].__class__, self.device.torch_index, current)
    rows, cls, index, current = plan
    given = len(args)
    if given == len(rows):
      positions = range(given)
    elif given == len(self._arrays):
      positions = self._arrays
      for i in self._scalar_params:
        c_args[i].kind = _lib.ARG_DEFAULT
    else:
      return None
    for value, position in zip(args, positions):
      kind, i, extra = rows[position]
      if kind == _P_POINTER:
        if value.__class__ is not cls or value.get_device() != index:
          return None
        arg = c_args[i]
        arg.kind = _lib.ARG_POINTER
        arg.ptr = value.data_ptr()
        arg.size = _UNKNOWN_SIZE
        arg.dtype = extra.get(value.dtype, _arrays.UNKNOWN_DTYPE)
        if not arg.ptr and value.numel():
          return None  # no memory (a meta tensor): _convert refuses it
      elif kind == _P_INT:
        if value.__class__ is not int or not _INT64[0] <= value <= _INT64[1]:
          return None  # the general reader hands wider values over, or says they are too wide
        arg = c_args[i]
        arg.kind = _lib.ARG_INT
        arg.i = value
      elif kind == _P_FLOAT:
        if value.__class__ is not float:
          return None
        arg = c_args[i]
        arg.kind = _lib.ARG_FLOAT
        arg.f = value
      elif kind == _P_FIXED:
        if value.__class__ is not extra.__class__ or not value == extra:
          return None
      else:
        return None  # descriptors: the general reader
    return current() if stream is None else self.device._stream(stream)

  def _stream_of(self, stream: Any) -> int:
    """An explicit stream= as a native handle (tkrt._native's path for other than ints)."""
    return self.device._stream(stream)

  def _stream_for(self, stream: Any, first: Any) -> int:
    if stream is not None:
      return self.device._stream(stream)
    if self._own_stream or first is None:
      return 0
    api = getattr(type(first), "__dlpack_c_exchange_api__", None)
    reader = _arrays.fast_reader(type(first))
    if reader is not None:
      return reader.current_stream(first, self.device)
    if api is not None and "torch" in sys.modules:  # a tensor type with the exchange API
      torch_reader = _arrays.fast_reader(sys.modules["torch"].Tensor)
      if torch_reader is not None:
        return torch_reader.current_stream(first, self.device)
    return 0  # DLPack arrays of other frameworks (JAX): the legacy default stream

  def _explain(self, args: Sequence[Any], position: int) -> None:
    """Raises what is wrong with a launch the native path refused (argument `position` of the
    given form, -1: the count, or a closed launch): the ctypes path's reader, whose messages
    name the argument and the mismatch."""
    self._convert(args)

  def _convert(self, args: Sequence[Any], c_args: Any = None):
    """(ctypes array of tkrt_triton_arg_t, capsules to keep alive, the first array) for `args`,
    or the error naming what is wrong. `c_args`: an array to fill (one of _new_args, filled by
    earlier launches: every argument given is written, the scalars left out are reset)."""
    if self._bound is None:
      _closed(self)
    given = len(args)
    if given == len(self._plan):
      positions = range(given)
    elif given == len(self._arrays):
      positions = self._arrays
    else:
      arrays = ", ".join(self._names[i] for i in self._arrays)
      missing = [self._names[i] for i in self._arrays[given:]] if given < len(self._arrays) else []
      raise TypeError(f"{self._where} takes its {len(self._arrays)} arrays ({arrays}) or all "
                      f"{len(self._plan)} arguments ({', '.join(self._names)}); got {given} "
                      f"argument{'s' if given != 1 else ''}"
                      + (f" (missing {', '.join(missing)})" if missing else ""))
    if c_args is None:
      c_args = self._new_args()
    elif given != len(self._plan):
      for i in self._scalar_params:
        c_args[i].kind = _lib.ARG_DEFAULT
    keep, first = [], None
    for index, (value, position) in enumerate(zip(args, positions)):
      kind, i, p, extra = self._plan[position]
      arg = c_args[i] if kind != _P_FIXED else None
      if kind == _P_FIXED:
        if not (value == extra):
          raise ValueError(f"{self._where}: argument {index} ({p}) is {value!r}, but the kernel "
                           f"was specialised to {p}={extra!r} (Triton folded it; compile and "
                           f"prepare another kernel for other values)")
      elif kind in (_P_POINTER, _P_DESC):
        base = value
        if kind == _P_DESC:
          base = self._descriptor(index, p, value, arg)
        address, extent, dtype = self._read_array(index, p, base, keep)
        if first is None:
          first = base
        arg.kind = _lib.ARG_POINTER if kind == _P_POINTER else _lib.ARG_DESCRIPTOR
        arg.ptr, arg.size, arg.dtype = address, extent, dtype
      elif kind == _P_FLOAT:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
          raise TypeError(f"{self._where}: argument {index} ({p.name}: {p.type}) is {value!r}, "
                          f"not a number")
        try:
          arg.f = float(value)
        except OverflowError:
          raise Error("OUT_OF_RANGE", f"{self._where}: argument {index} ({p.name}: {p.type}): "
                                      f"{value} is too large for a float") from None
        arg.kind = _lib.ARG_FLOAT
      else:
        if isinstance(value, float) or not (isinstance(value, numbers.Integral)
                                            or hasattr(type(value), "__index__")):
          raise TypeError(f"{self._where}: argument {index} ({p.name}: {p.type}) is {value!r}, "
                          f"not an integer")
        # The value as C takes it; whether the parameter takes it is the C library's rule.
        arg.i, above = _lib.c_integer(value.__index__(),
                                      f"{self._where}: argument {index} ({p.name}: {p.type})")
        arg.kind = _lib.ARG_UINT if above else _lib.ARG_INT
    return c_args, keep, first

  def _read_array(self, index: int, p: Param, a: Any, keep: list) -> Tuple[int, int, int]:
    """(address, extent) of array `a` for argument `index` (parameter p), its device and dtype
    checked; a DLPack capsule it was read through goes into `keep`."""
    reader = _arrays.fast_reader(type(a))
    if reader is None and not hasattr(a, "__dlpack__"):
      raise TypeError(f"{self._where}: argument {index} ({p.name}: {p.type}) is a "
                      f"{type(a).__name__}, not an array (no __dlpack__)")
    try:
      if reader is not None:
        info = reader.info(a)
      else:
        if _arrays.is_jax_array(a):
          # JAX gives no current stream: wait for the array, then launch on the legacy stream.
          a.block_until_ready()
        address, kind, ident, element, extent, how, capsule = _arrays.dlpack_info(a)
        keep.append(capsule)
        info = (address, (kind, ident), element, extent, how)
    except Error:
      raise
    except Exception as e:  # the framework refused (no storage, __dlpack__ raised, ...)
      raise (TypeError if isinstance(e, TypeError) else ValueError)(
          f"{self._where}: argument {index} ({p.name}: {p.type}): reading the "
          f"{type(a).__name__} failed: {type(e).__name__}: {e}") from e
    # Where the array lives decides whether its address means anything to this device: read
    # here. Its element type is handed to C (tkrt_triton_arg_t.dtype), whose rule says whether
    # the parameter takes it.
    kind, ident = info[1]
    if (kind not in self.device.dlpack_types
        or (ident != self.device.ordinal and not self._any_array_ordinal)):
      raise _array_error(_Expect(index, p, self.device, self._where), info, a)
    if not info[0] and info[3]:
      raise ValueError(f"{self._where}: argument {index} ({p.name}: {p.type}) has no memory "
                       f"(address 0) but spans {info[3]} bytes (a PyTorch meta tensor?); give "
                       f"an array on {self.device.name}")
    return info[0], info[3], _arrays.element_dtype(info[2])

  def _descriptor(self, index: int, p: Param, d: Any, arg: _lib.TritonArg) -> Any:
    """Fills a DESCRIPTOR argument's shape, strides and block from a TensorDescriptor-like object
    (base, shape, strides, block_shape, padding: triton.tools.tensor_descriptor's); its base."""
    what = f"{self._where}: argument {index} ({p.name}: {p.type})"
    missing = [a for a in ("base", "shape", "strides", "block_shape") if not hasattr(d, a)]
    if missing:
      raise TypeError(f"{what} is a {type(d).__name__}, not a tensor descriptor (it has no "
                      f"{', '.join(missing)}; give a triton.tools.tensor_descriptor.TensorDescriptor "
                      f"or an object with base, shape, strides and block_shape)")
    padding = getattr(d, "padding", None)
    if not isinstance(padding, (str, type(None))) or padding not in (None, "zero", "nan"):
      raise ValueError(f"{what}: padding {padding!r} is not one of 'zero' and 'nan' (what "
                       f"out-of-bounds elements read as)")
    fields = {}
    for attribute in ("shape", "strides", "block_shape"):
      try:
        values = [_operator_index(v) for v in getattr(d, attribute)]
      except TypeError:
        raise TypeError(f"{what}: its {attribute} is not a sequence of integers") from None
      if len(values) != p.desc_rank:
        raise ValueError(f"{what}: its {attribute} has {len(values)} dimensions; the kernel "
                         f"takes a rank-{p.desc_rank} descriptor")
      if not all(_INT64[0] <= v <= _INT64[1] for v in values):
        raise ValueError(f"{what}: its {attribute} {values} does not fit 64-bit integers")
      fields[attribute] = values
    arg.rank = p.desc_rank
    arg.shape[:p.desc_rank] = fields["shape"]
    arg.strides[:p.desc_rank] = fields["strides"]
    arg.block[:p.desc_rank] = fields["block_shape"]
    arg.padding_nan = 1 if padding == "nan" else 0
    return d.base

  def synchronize(self, stream: Any = None) -> None:
    """Waits for `stream` on the launch's device (see Device.synchronize)."""
    self.device.synchronize(stream)

  def tune_report(self) -> Dict[str, Any]:
    """What the tuner decided for this call on this device: source ("tuned", "store", "pinned",
    "single", ...), chosen variant index, per-variant times (ms) when benchmarked. With a tuning
    key: the decision of the prepared scalar values."""
    api = _lib.api()
    if self.variant_count == 1:
      return {"source": "single", "chosen": 0, "times_ms": []}
    tuner = ctypes.c_void_p()
    _lib.check(api.runtime_tuner(self._runtime or _closed(self), ctypes.byref(tuner)),
           "reading the tuning report")
    times = (ctypes.c_float * self.variant_count)()
    report = _lib.versioned(_lib.TuneReport, api.tune_report_init)
    report.times_ms = times
    report.times_capacity = self.variant_count
    _lib.check(api.autotuner_get_report(tuner, self._call, self.device.arch.encode(),
                                    ctypes.addressof(report)), "reading the tuning report")
    return {"source": api.tune_source_name(report.source).decode().lower(),
            "chosen": int(report.chosen), "times_ms": [float(t) for t in times],
            "store_file": report.store_file.decode(errors="replace"),
            "fallback_reason": report.fallback_reason.decode(errors="replace"),
            "exchange_role": report.exchange_role.decode(errors="replace"),
            "exchange_key": report.exchange_key.decode(errors="replace"),
            "exchange_ranks": int(report.exchange_ranks)}


if _native is not None:
  _native._vectorcall_subclass(PreparedLaunch)


class _GridCallableLaunch(PreparedLaunch):  # type: ignore[misc, valid-type]
  """A PreparedLaunch whose grids are Triton-style callables: a launch given every argument
  calls each variant's grid with the meta-parameters of that launch (its arguments by name, the
  constexprs, num_warps, num_stages), as `kernel[grid](...)` does, and hands the grids to the C
  library (tkrt_triton_bound_launch_with, on the ctypes path); a launch given the arrays only
  takes the grid prepare() computed from its scalars."""

  _grid_calls: Tuple[Tuple[Any, Dict[str, Any], Tuple[int, int, int]], ...] = ()

  def __call__(self, *args: Any, **keywords: Any) -> None:
    stream = keywords.pop("stream", None)
    if keywords:
      raise TypeError(f"launching {self.kernel.name}: unexpected keyword argument "
                      f"'{next(iter(keywords))}' (a launch takes the arguments and stream=)")
    if len(args) != len(self._names):
      if _native is not None:
        return super().__call__(*args, stream=stream)
      return self._launch_ctypes(args, stream)
    values = []
    for fn, base, dims in self._grid_calls:
      if fn is not None:
        meta = dict(base)
        meta.update(zip(self._names, args))
        dims = _grid_dims(fn(meta), f"launching {self.kernel.name}")
      values.extend(dims)
    if _native is not None and len(self._grid_calls) == 1:  # one grid: the extension takes it
      return super().__call__(*args, stream=stream, grid=values)
    self._launch_ctypes(args, stream, _grid_options(values))


def _grid_options(values: Sequence[int]):
  """(options that never wait, options that may, the grids they point at): the
  tkrt_triton_bound_launch_options_t pair of a launch with these grids (3 per variant)."""
  grids = (ctypes.c_uint32 * len(values))(*values)
  options = []
  for no_wait in (True, False):
    o = _lib.versioned(_lib.BoundLaunchOptions, _lib.api().bound_launch_options_init)
    o.no_wait = no_wait
    o.grids = grids
    o.grid_count = len(values)
    options.append(o)
  return options[0], options[1], grids


def _grid_dims(grid: Any, where: str,
               what: str = "the grid callable returned") -> Tuple[int, int, int]:
  """A grid of integers (a grid callable's result, launch_grid's grid, a prepared integer grid)
  as three dimensions: an int or a tuple of 1 to 3 ints, each in 0..2^32-1 (a TypeError or
  ValueError starting with `where` otherwise)."""
  if isinstance(grid, numbers.Integral):
    grid = (grid,)
  try:
    if isinstance(grid, (str, bytes)):
      raise TypeError
    grid = tuple(grid)
  except TypeError:
    raise TypeError(f"{where}: {what} {grid!r}, not a tuple of 1 to 3 integers") from None
  if not 1 <= len(grid) <= 3 or not all(isinstance(g, numbers.Integral) for g in grid):
    raise ValueError(f"{where}: {what} {grid!r}, not a tuple of 1 to 3 integers")
  dims = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
  if not all(0 <= g < 2**32 for g in dims):
    raise ValueError(f"{where}: grid {grid!r}: each dimension must be in 0..2^32-1")
  return dims


def _operator_index(value: Any) -> int:
  if isinstance(value, bool):
    raise TypeError("bool")
  return value.__index__()


_prepared: Dict[tuple, PreparedLaunch] = {}



def _min_elements(min_elements: Optional[Dict[str, Any]]) -> List[str]:
  """prepare's min_elements as the C library takes them (tkrt_triton_bound_options_t.min_elements:
  "NAME=EXPR", checked there: a pointer parameter of known element size, a count of elements or
  an expression of the integer scalars). Only the dict's shape is read here."""
  if min_elements is None:
    return []
  try:
    items = dict(min_elements).items()
  except (TypeError, ValueError):
    raise TypeError(f"tkrt.triton.prepare: min_elements must be a dict of pointer parameter: "
                    f"element count; got {type(min_elements).__name__}") from None
  out = []
  for name, count in items:
    if not isinstance(name, str):
      raise TypeError(f"tkrt.triton.prepare: min_elements key {name!r} is not a parameter name")
    if isinstance(count, bool) or not isinstance(count, (numbers.Integral, str)):
      raise TypeError(f"tkrt.triton.prepare: min_elements[{name!r}] = {count!r} is neither an "
                      f"element count nor an expression of the integer scalars")
    out.append(_no_nul(f"{name}={int(count) if not isinstance(count, str) else count}",
                       "a min_elements entry"))
  return out


def _closed(launch: PreparedLaunch):
  raise ValueError(f"{launch.kernel.name}: this prepared launch was closed")


def clear_cache() -> None:
  """Closes every prepared launch (see PreparedLaunch.close: only when no launch is in flight)."""
  with _lock:
    launches = list(_prepared.values())
  for launch in launches:
    launch.close()


def prepare(variants: Union[Variant, Sequence[Variant]], *, device: Any = None,
            inout: Iterable[str] = (), tuner: Optional[Tuner] = None, name: Optional[str] = None,
            min_elements: Optional[Dict[str, int]] = None, key: Iterable[str] = (),
            signature: Optional[Sequence[str]] = None, fixed: Optional[Dict[str, Any]] = None,
            unsigned: Iterable[str] = (),
            **scalars: Union[int, float, bool]) -> PreparedLaunch:
  """A launch over one or more compiled variants of a kernel (several: an autotuned call; the
  tuner benchmarks them on the first launch, or takes a stored or pinned decision), bound to the
  device (tkrt_triton_bound_create). `scalars` gives scalar parameters by name: the values of a
  launch given the arrays only, `launch(x, y, out)`; a launch given every argument,
  `launch(x, y, out, n)`, takes its own, and its grid follows them. `key` names the scalars whose
  values get their own tuning decision (Triton's autotune key=). `inout` names the pointer
  parameters the kernel reads and writes in place (restored while tuning). The kernels are loaded
  on the device now, so launches only enqueue (and may be captured into a CUDA graph; an
  autotuned call should be launched once before capture, else the capture runs its first
  variant: see docs/triton.md). `min_elements` ({pointer parameter: count}): what the kernel
  reads or writes, as the caller knows it (tkrt cannot see a kernel's indexing); each launch then
  refuses an array whose extent holds fewer elements, before anything is enqueued. Without it
  array sizes are not checked. `signature` and `fixed`: Triton's argument list when the kernel
  was specialised to a value of some argument (an integer equal to 1 is folded away): the names
  in Triton's order, and {name: value} of the folded ones, which a full launch must pass with
  that value. `unsigned` names integer scalars read as unsigned: an iN parameter takes the signed
  range of N bits by default (Triton compiles iN for those Python integers and specialises larger
  ones to i64), and 0..2^N-1 when named here (for kernels that read it as unsigned)."""
  if isinstance(variants, Variant):
    variants = [variants]
  variants = list(variants)
  if not variants:
    raise ValueError("tkrt.triton.prepare: no variant")
  for v in variants:
    if not isinstance(v, Variant):
      raise TypeError(f"tkrt.triton.prepare: variants must be tkrt.triton.Variant objects "
                      f"(kernel.variant(grid, constants)); got {type(v).__name__}")
  dev = _device_of(device)
  api = _lib.api()
  kernel = variants[0].kernel
  int_scalars = {k: int(v) for k, v in scalars.items()
                 if isinstance(v, (bool, numbers.Integral))}
  grids = [_grid_fields(v, int_scalars) for v in variants]
  minimum = tuple(_min_elements(min_elements))
  inout = list(inout)
  key_names = _key_names(kernel, key)
  signature, fixed = _signature(kernel, signature, fixed)
  unsigned = (unsigned,) if isinstance(unsigned, str) else tuple(unsigned)
  # A grid callable is part of the key (its result at prepare is not: it is called again at each
  # launch given every argument); the cached launch keeps the variants, and so the callables, alive.
  cache_key = (tuple((id(v.kernel), g, id(v.grid) if callable(v.grid) else None, v.constants,
                      v.description) for v, g in zip(variants, grids)),
               dev.backend, dev.ordinal, tuple((k, type(v), v) for k, v in scalars.items()),
               tuple(inout), id(tuner) if len(variants) > 1 else None, name, minimum, key_names,
               signature, tuple((k, type(v), v) for k, v in fixed.items()), unsigned)
  with _lock:
    cached = _prepared.get(cache_key)
  if cached is not None:
    return cached
  keep: List[Any] = []  # byte strings the C structs point at

  def text(value: Optional[str], what: str):
    if value is None:
      return None
    if not isinstance(value, str):
      raise TypeError(f"tkrt.triton.prepare: {what} must be a string; got {type(value).__name__}")
    keep.append(_no_nul(value, what).encode())
    return keep[-1]

  params = {p.name: p for p in kernel.params if not p.is_pointer}
  c_scalars = (_lib.Scalar * max(1, len(scalars)))()
  for i, (scalar_name, value) in enumerate(scalars.items()):
    fields = _scalar_fields(params, scalar_name, value)
    c_scalars[i].name = text(scalar_name, "a scalar name")
    c_scalars[i].is_float, c_scalars[i].i, c_scalars[i].f, c_scalars[i].is_uint64 = fields
  c_variants = (_lib.Variant * len(variants))()
  for i, v in enumerate(variants):
    grid, dims = grids[i]
    c_variants[i].kernel = v.kernel._handle.value
    c_variants[i].grid = text(grid.decode(), "the grid") if grid else None
    c_variants[i].grid_dims[:] = dims
    c_variants[i].constants = text(v.constants, "constants") if v.constants else None
    c_variants[i].description = text(v.description, "a variant's description")
  c_inout = (ctypes.c_char_p * max(1, len(inout)))(*[text(n, "an inout name") for n in inout])
  desc = _lib.versioned(_lib.CallDesc, api.triton_call_desc_init)
  desc.name = text(name, "the call's name")
  desc.variants = c_variants
  desc.variant_count = len(variants)
  desc.scalars = c_scalars
  desc.scalar_count = len(scalars)
  desc.inout = c_inout
  desc.inout_count = len(inout)
  c_unsigned = (ctypes.c_char_p * max(1, len(unsigned)))(
      *[text(n, "an unsigned scalar name") for n in unsigned])
  desc.unsigned_scalars = c_unsigned
  desc.unsigned_scalar_count = len(unsigned)
  if dev.native_code_kinds:
    for v in variants:
      _refuse_left_out_native_code(v.kernel, dev)
  # The runtime whose tuner decides an autotuned call: the Tuner's, else the default one (its
  # tuner made now, so that a bad TKRT_TUNE_* setting is prepare's error).
  chosen_tuner = tuner if len(variants) > 1 else None
  runtime = chosen_tuner._runtime if chosen_tuner is not None else _runtime()
  if len(variants) > 1 and chosen_tuner is None:
    _lib.check(api.runtime_tuner(runtime, ctypes.byref(ctypes.c_void_p())), f"preparing {kernel.name}")
  options = _lib.versioned(_lib.BoundOptions, api.triton_bound_options_init)
  options.runtime = runtime.value
  options.device = dev._handle.value
  c_key = (ctypes.c_char_p * max(1, len(key_names)))(*[text(n, "a key name") for n in key_names])
  options.tuning_key = c_key
  options.tuning_key_count = len(key_names)
  c_minimum = (ctypes.c_char_p * max(1, len(minimum)))(*[text(m, "a min_elements entry")
                                                         for m in minimum])
  options.min_elements = c_minimum
  options.min_element_count = len(minimum)
  # Builds the call, compiles its grids and loads the kernels now (tkrt_triton_bound_create), so
  # that launches only enqueue.
  bound = ctypes.c_void_p()
  _lib.check(api.triton_bound_create(ctypes.addressof(desc), ctypes.addressof(options),
                                 ctypes.byref(bound)),
         f"preparing {kernel.name} on {dev.backend}:{dev.ordinal}")
  # Triton-style grid callables are called again at each launch given every argument: every
  # variant's grid must then be one, or fixed integers (an expression would need evaluating here).
  callables = [callable(v.grid) for v in variants]
  if any(callables):
    for v, is_callable, (grid, dims) in zip(variants, callables, grids):
      if not is_callable and grid:
        api.triton_bound_destroy(bound)
        raise ValueError(f"tkrt.triton.prepare: variant grids mix callables with the expression "
                         f"{grid.decode()!r}: give every variant a callable (or fixed integers)")
  try:
    launch_class = _GridCallableLaunch if any(callables) else PreparedLaunch
    prepared = launch_class(bound.value, runtime, kernel, dev, scalars, chosen_tuner,
                              sized=len(variants) > 1 and bool(inout), variant_count=len(variants),
                              sized_arrays=bool(minimum), signature=signature, fixed=fixed,
                              key=key_names,
                              unsigned=unsigned)
  except BaseException:
    api.triton_bound_destroy(bound)
    raise
  prepared._variants = variants  # keeps the kernels, whose ids are in the key, alive
  if any(callables):
    prepared._grid_calls = tuple(
        (v.grid if is_callable else None,
         dict(v.kernel.constants, **_constants_dict(v.constants), num_warps=v.kernel.num_warps,
              num_stages=v.kernel.num_stages),
         dims)
        for v, is_callable, (_, dims) in zip(variants, callables, grids))
  with _lock:
    kept = _prepared.setdefault(cache_key, prepared)
  if kept is not prepared:  # another thread prepared the same meanwhile; ours never launched
    prepared.close()
  return kept


def _key_names(kernel: Kernel, key: Iterable[str]) -> Tuple[str, ...]:
  """The tuning key's names, each a scalar parameter of the kernel, or a ValueError."""
  if isinstance(key, str):
    key = [key]
  names = tuple(key)
  scalars = [p.name for p in kernel.params if not p.is_pointer and not p.desc_rank]
  for n in names:
    if n not in scalars:
      raise ValueError(f"tkrt.triton.prepare: key names {n!r}, which is not a scalar parameter "
                       f"of '{kernel.name}' ({', '.join(scalars) or 'it has none'})")
  if len(set(names)) != len(names):
    raise ValueError(f"tkrt.triton.prepare: key {list(names)} names a scalar twice")
  return names


def _signature(kernel: Kernel, signature: Optional[Sequence[str]],
               fixed: Optional[Dict[str, Any]]) -> Tuple[Optional[Tuple[str, ...]], Dict[str, Any]]:
  """(Triton's argument names or None, {folded name: value}), checked against the kernel."""
  fixed = dict(fixed or {})
  if signature is None:
    if fixed:
      raise ValueError("tkrt.triton.prepare: fixed= needs signature= (Triton's argument names in "
                       "order, the folded ones included), which places them")
    return None, fixed
  if isinstance(signature, str):
    signature = [s.strip() for s in signature.split(",") if s.strip()]
  names = tuple(signature)
  params = [p.name for p in kernel.params]
  if len(set(names)) != len(names):
    raise ValueError(f"tkrt.triton.prepare: signature {list(names)} names an argument twice")
  unknown = [n for n in names if n not in params and n not in fixed]
  if unknown:
    raise ValueError(f"tkrt.triton.prepare: signature names {', '.join(unknown)}, neither a "
                     f"parameter of '{kernel.name}' ({', '.join(params)}) nor in fixed=")
  absent = [n for n in params if n not in names]
  if absent:
    raise ValueError(f"tkrt.triton.prepare: signature leaves out {', '.join(absent)} (every "
                     f"parameter of '{kernel.name}' takes a place in it)")
  clash = [n for n in fixed if n in params or n not in names]
  if clash:
    raise ValueError(f"tkrt.triton.prepare: fixed names {', '.join(clash)}: a folded argument "
                     f"is in signature= and is no parameter of the kernel")
  return names, fixed


# ---------------------------------------------------------------- loading


def _refuse_left_out_native_code(kernel: Kernel, dev: Device) -> None:
  """On a backend that loads native code (the host's), a kernel whose native image was left out
  for want of consent would fail as "no image for this device": say why instead."""
  if any(bits & dev.native_code_kinds for bits in kernel._image_bits):
    return
  for t in kernel.targets:
    if t["native_code_left_out"]:
      raise Error("PERMISSION_DENIED",
                  f"kernel '{kernel.name}' has no image for the {dev.backend} backend but "
                  f"{t['native_code_left_out']}, a host image (native code, which would run in "
                  f"this process with your rights), left out without consent: "
                  f"tkrt.triton.load(..., allow_native_code=True) takes it, if you trust it as "
                  f"your own code (docs/security.md)")



def _triton_folder_names(key: str) -> List[str]:
  """The cache folder names Triton gives the entry of hash `key` (a hex SHA-256): Triton 3.x names
  it base32(bytes of the hash) without padding (triton/runtime/cache.py), earlier versions by the
  hex string itself. [] when `key` is not a hex string."""
  if not isinstance(key, str) or not re.fullmatch(r"(?:[0-9a-f]{2}){16,64}", key):
    return []
  return [base64.b32encode(bytes.fromhex(key)).decode("ascii").rstrip("="), key]


def _compiled_name(compiled: Any) -> Optional[str]:
  """A CompiledKernel's name (its own, else its metadata's), checked to be an identifier: it
  names the cache files looked for and written, so no '/' or '..' may lead elsewhere."""
  name = getattr(compiled, "name", None)
  if name is None:
    metadata = getattr(compiled, "metadata", None)
    name = metadata.get("name") if isinstance(metadata, dict) else getattr(metadata, "name", None)
  if name is None:
    return None
  if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
    raise ValueError(f"tkrt.triton.load: the compiled kernel's name {name!r} is not an identifier")
  return name


def _compiled_json(compiled: Any, cache_dir: Optional[str]) -> Optional[str]:
  """The metadata JSON of a CompiledKernel: from its metadata_group (the cache files Triton wrote
  for it), else from the cache entry Triton names after its hash; only an entry whose JSON has
  the kernel's name and hash and that the C library finds trusted (tkrt_triton_cache_entry_check,
  the one copy of the rule). None otherwise (an entry refused is named in a RuntimeWarning), and
  the caller writes the object's asm out."""
  name = _compiled_name(compiled)
  if not name:
    return None
  wanted = getattr(compiled, "hash", None)
  group = getattr(compiled, "metadata_group", None)
  candidates = []
  if isinstance(group, dict) and cache_dir is None:
    path = group.get(f"{name}.json")
    if isinstance(path, str) and os.path.basename(path) == f"{name}.json":
      candidates.append(os.path.dirname(_no_nul(path, "a metadata_group path")) or ".")
  root = cache_dir or os.environ.get("TRITON_CACHE_DIR", "").strip() or os.path.join(
      os.environ.get("TRITON_HOME") or os.path.expanduser("~"), ".triton", "cache")
  candidates += [os.path.join(root, folder) for folder in _triton_folder_names(wanted)]
  api = _lib.api()
  for folder in candidates:
    path = os.path.join(folder, f"{name}.json")
    if not os.path.lexists(path):
      continue
    status = api.triton_cache_entry_check(_no_nul(folder, "a cache folder").encode(),
                                          name.encode(), wanted.encode() if isinstance(
                                              wanted, str) else None, -1)
    if not status:
      return path
    problem = api.status_message(status).decode(errors="replace")
    api.status_free(status)
    warnings.warn(f"tkrt.triton.load: the Triton cache entry {path} is not used: {problem}; "
                  f"the kernel is written out from its asm instead (docs/security.md; "
                  f"TKRT_TRUST_SHARED_STORES=1 trusts caches shared with other users)",
                  RuntimeWarning, stacklevel=3)
  return None


def _compiled_constants(compiled: Any) -> str:
  """The integer constexprs a CompiledKernel was compiled with, "NAME=INT,...", from its source
  (compiled.src.constants: keyed by parameter name in Triton 3.2, by index path (i,) from 3.3,
  by index before 3.2). Only integers and bools (1/0): what a grid can compute with; other
  constexprs (dtypes, None, strings, floats) are folded too, but no grid names them. "" when the
  object has no source (a kernel Triton loaded from its cache without one)."""
  src = getattr(compiled, "src", None)
  constants = getattr(src, "constants", None)
  names = getattr(getattr(src, "fn", None), "arg_names", None)
  if not isinstance(constants, dict) or not names:
    return ""
  parts = []
  for key, value in constants.items():
    if isinstance(key, tuple):
      key = key[0] if len(key) == 1 else None  # a path into a tuple argument: not a grid name
    if isinstance(key, int) and not isinstance(key, bool):
      key = names[key] if 0 <= key < len(names) else None
    if not isinstance(key, str) or not _IDENTIFIER.fullmatch(key):
      continue
    if isinstance(value, bool) or (isinstance(value, numbers.Integral) and
                                   _INT64[0] <= int(value) <= _INT64[1]):
      parts.append(f"{key}={int(value)}")
  return ",".join(parts)


def _jsonable(value):
  if hasattr(value, "_asdict"):
    return {k: _jsonable(v) for k, v in value._asdict().items()}
  if hasattr(value, "__dataclass_fields__"):
    return {k: _jsonable(getattr(value, k)) for k in value.__dataclass_fields__}
  if isinstance(value, dict):
    return {str(k): _jsonable(v) for k, v in value.items()}
  if isinstance(value, (list, tuple)):
    return [_jsonable(v) for v in value]
  if isinstance(value, (str, int, float, bool)) or value is None:
    return value
  return str(value)


# What is written out of compiled.asm besides the images (whose keys and files the backends give:
# _Backends.asm_files): Triton's stages that the loader reads for the signature.
_ASM_STAGES = ("ttir", "source")


def _write_compiled(compiled: Any) -> str:
  """Writes a CompiledKernel's metadata and images (compiled.asm) into a new folder, as Triton's
  cache lays them out, for one that is not in a cache. Everything is checked before the folder is
  made, and the folder is removed on any error: nothing is left behind."""
  metadata = _jsonable(compiled.metadata)
  if not isinstance(metadata, dict):
    raise TypeError(f"tkrt.triton.load: the compiled kernel's metadata is a "
                    f"{type(compiled.metadata).__name__}, not a mapping or named tuple")
  name = metadata.get("name") or getattr(compiled, "name", None)
  asm = getattr(compiled, "asm", None)
  if not name or not asm:
    raise ValueError("tkrt.triton.load: the compiled kernel has no name or no asm to write")
  if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
    # It names the files written: no '/' or '..' may lead out of the new folder.
    raise ValueError(f"tkrt.triton.load: the compiled kernel's name {name!r} is not an identifier")
  if not isinstance(asm, collections.abc.Mapping):
    raise TypeError(f"tkrt.triton.load: the compiled kernel's asm is a {type(asm).__name__}, not "
                    f"a mapping of stage name to bytes or text")
  files = {}
  for ext, filename in (_backends().asm_files + [(stage, "." + stage) for stage in _ASM_STAGES]):
    if ext in asm:
      data = asm[ext]
      if isinstance(data, str):
        data = data.encode()
      elif not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"tkrt.triton.load: the compiled kernel's asm[{ext!r}] is a "
                        f"{type(data).__name__}, not bytes or text")
      files[name + filename] = bytes(data)
  files[f"{name}.json"] = json.dumps(metadata).encode()
  folder = tempfile.mkdtemp(prefix=f"tkrt-{name}-")
  try:
    for filename, data in files.items():
      with open(os.path.join(folder, filename), "xb") as f:
        f.write(data)
  except BaseException:
    shutil.rmtree(folder, ignore_errors=True)
    raise
  return folder


def load(*paths: Any, image_kinds: Optional[Iterable[str]] = None,
         cache_dir: Optional[str] = None, allow_native_code: bool = False) -> Kernel:
  """Loads a kernel from Triton's output: each argument a `<name>.json`, a folder holding one
  (a Triton cache entry), a folder of target folders, or a CompiledKernel (from triton.compile,
  or returned by a JIT function's `kernel[grid](...)`), which is read from its cache files (or
  from the entry Triton names after its hash under `cache_dir` / $TRITON_CACHE_DIR /
  ~/.triton/cache), when trusted (this user's, writable by no one else: docs/security.md), else
  written out from its asm. Several arguments: one kernel with an image per target.
  `image_kinds`: take only these (names as tkrt_image_kind_name gives them: cubin, ptx, hsaco,
  host). A CompiledKernel also gives the integer constexprs it was compiled with (its
  src.constants; `Kernel.constants`), which grids may then name without `constants=`.
  `allow_native_code`: take a
  host image `<name>.so` beside a JSON (native code, run in this process by the host backend);
  off by default, when it is left out (named in `targets[i]["native_code_left_out"]`) and a
  host-only output is refused: give it only for folders you trust as your own code."""
  if len(paths) == 1 and type(paths[0]) in (list, tuple):
    paths = tuple(paths[0])
  if not paths:
    raise TypeError("tkrt.triton.load: give at least one path or compiled kernel")
  resolved = []
  constants = ""  # the first CompiledKernel's constexprs (every target was compiled with them)
  written = []  # folders written out from a CompiledKernel's asm, removed once loaded
  try:
    if cache_dir is not None:
      cache_dir = _no_nul(os.fspath(cache_dir), "cache_dir")
    for p in paths:
      if isinstance(p, (str, os.PathLike)):
        path = os.fspath(p)
        if not isinstance(path, str):
          raise TypeError(f"tkrt.triton.load: {p!r} is a bytes path; give a str or os.PathLike")
        resolved.append(os.path.expanduser(_no_nul(path, "the path")))
      elif hasattr(p, "asm") and hasattr(p, "metadata"):
        constants = constants or _compiled_constants(p)
        found = _compiled_json(p, cache_dir)
        if not found:
          written.append(_write_compiled(p))
          found = written[-1]
        resolved.append(found)
      else:
        raise TypeError(f"tkrt.triton.load: {p!r} is neither a path nor a compiled Triton kernel")
    return _load_resolved(resolved, image_kinds, allow_native_code, constants)
  finally:
    for folder in written:
      shutil.rmtree(folder, ignore_errors=True)


def _load_resolved(resolved: List[str], image_kinds: Optional[Iterable[str]],
                   allow_native_code: bool, constants: str = "") -> Kernel:
  api = _lib.api()
  options = _lib.versioned(_lib.LoadOptions, api.triton_load_options_init)
  if image_kinds:
    bits = 0
    known = _backends().image_kinds
    for kind in image_kinds:
      if kind not in known:
        raise ValueError(f"tkrt.triton.load: unknown image kind {kind!r} (known: "
                         f"{', '.join(known)})")
      bits |= 1 << known[kind]
    options.image_kinds = bits
  options.allow_native_code = bool(allow_native_code)
  options.constants = constants.encode() if constants else None
  c_paths = (ctypes.c_char_p * len(resolved))(*[r.encode() for r in resolved])
  handle = ctypes.c_void_p()
  _lib.check(api.triton_kernel_load(c_paths, len(resolved), ctypes.addressof(options),
                                ctypes.byref(handle)), "loading " + ", ".join(resolved))
  return Kernel(handle.value, ", ".join(resolved))
