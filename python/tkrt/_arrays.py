# SPDX-License-Identifier: Apache-2.0
"""Reading arrays for tkrt.triton: DLPack capsules (`__dlpack__` / `__dlpack_device__`, read and
never consumed), and the PyTorch and CuPy fast paths (data_ptr(), dtype and device read directly,
since building a capsule costs microseconds per array); stream handles; and how the C extension
tkrt._native reads each Python type (classify_array_type). What is read here is what an object
says of itself (address, extent from the first element upward, device, element type); whether a
launch may take it (its device, dtype, size, alignment) is for tkrt.triton and the C library to
say. array_info shows what either path reads.
"""
from __future__ import annotations

import ctypes
import sys
from typing import Any, Dict, Optional, Tuple

__all__ = [
    "DLPACK_CPU", "DLPACK_CUDA", "DLPACK_ROCM", "DL_INT", "DL_UINT", "DL_FLOAT", "DL_BFLOAT",
    "DL_BOOL", "DL_FP8", "DLDevice", "DLDataType", "DLTensor", "DLManagedTensor", "DLPackVersion",
    "DLManagedTensorVersioned", "READ_NONE", "READ_EXCHANGE", "READ_TORCH", "READ_CUPY",
    "READ_DLPACK", "READ_JAX", "TORCH_ELEMENTS", "TORCH_DLPACK", "ELEMENT_DTYPES",
    "DL_COMPLEX", "UNKNOWN_DTYPE", "element_dtype",
    "TorchReader", "CupyReader", "fast_readers", "fast_reader", "dlpack_info", "array_info",
    "classify_array_type", "is_jax_array_type", "is_jax_array", "stream_handle",
]

DLPACK_CPU, DLPACK_CUDA, DLPACK_ROCM = 1, 2, 10  # what PyTorch's and CuPy's arrays say

class DLDevice(ctypes.Structure):
  _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
  _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
  _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
              ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
              ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):  # capsule "dltensor" (DLPack < 1.0)
  _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
              ("deleter", ctypes.c_void_p)]


class DLPackVersion(ctypes.Structure):
  _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):  # capsule "dltensor_versioned" (DLPack 1.x)
  _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
              ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


_capsule_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_get_pointer.restype = ctypes.c_void_p
_capsule_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_is_valid.restype = ctypes.c_int
_capsule_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]

# DLPack type codes -> Triton's element names (signless integers, as TTIR has them).
DL_INT, DL_UINT, DL_FLOAT, DL_BFLOAT, DL_COMPLEX, DL_BOOL = 0, 1, 2, 4, 5, 6
DL_FP8 = {9: "fp8e4b15", 10: "fp8e4nv", 11: "fp8e4b8", 12: "fp8e5", 13: "fp8e5b16"}


def _dl_element(code: int, bits: int, lanes: int) -> str:
  """Triton's name for a DLPack dtype ("fp32", "i32", "i1"...), or a description."""
  if lanes == 1:
    if code in (DL_INT, DL_UINT) and bits in (8, 16, 32, 64):
      return f"i{bits}"
    if code == DL_FLOAT and bits in (16, 32, 64):
      return f"fp{bits}"
    if code == DL_BFLOAT and bits == 16:
      return "bf16"
    if code == DL_BOOL and bits == 8:
      return "i1"
    if code in DL_FP8 and bits == 8:
      return DL_FP8[code]
    if code == DL_COMPLEX:
      return f"complex{bits}"
  return f"dlpack(code={code}, bits={bits}, lanes={lanes})"


def dlpack_info(obj: Any) -> Tuple[int, int, int, str, int, str, Any]:
  """(address, device type, device id, element, extent bytes, capsule name, capsule) of any
  object with __dlpack__. The capsule is returned to be kept alive until the launch is queued."""
  dlpack = getattr(obj, "__dlpack__", None)
  if dlpack is None:
    raise TypeError(f"a {type(obj).__module__}.{type(obj).__name__} is not an array: it has no "
                    f"__dlpack__ (DLPack) method")
  try:
    capsule = dlpack(max_version=(1, 0))
  except TypeError:  # a producer older than DLPack 1.0 (NumPy < 2.1, ...)
    capsule = dlpack()
  if _capsule_is_valid(capsule, b"dltensor_versioned"):
    managed = DLManagedTensorVersioned.from_address(
        _capsule_get_pointer(capsule, b"dltensor_versioned"))
    if managed.version.major != 1:
      raise TypeError(f"{type(obj).__name__}.__dlpack__ gave DLPack version "
                      f"{managed.version.major}.{managed.version.minor}; tkrt reads 1.x")
    tensor, name = managed.dl_tensor, "dlpack_versioned"
  elif _capsule_is_valid(capsule, b"dltensor"):
    tensor, name = DLManagedTensor.from_address(_capsule_get_pointer(capsule, b"dltensor")).dl_tensor, "dlpack"
  else:
    raise TypeError(f"{type(obj).__name__}.__dlpack__ returned {capsule!r}, not an unused DLPack "
                    f"capsule (named 'dltensor' or 'dltensor_versioned')")
  dtype = tensor.dtype
  element = _dl_element(dtype.code, dtype.bits, dtype.lanes)
  item = (dtype.bits * dtype.lanes + 7) // 8
  if tensor.ndim < 0 or any(tensor.shape[d] < 0 for d in range(tensor.ndim)):
    raise ValueError(f"{type(obj).__name__}.__dlpack__ gave a negative shape or rank")
  # The address is the first element's (data + byte_offset: what Triton passes for a PyTorch
  # tensor, data_ptr()); the extent the bytes from there to the end of the highest element. A view
  # with negative strides has elements below its first, which the extent does not count
  # (docs/triton.md: strided arrays).
  extent, low = item, 0
  for d in range(tensor.ndim):
    size = tensor.shape[d]
    if size == 0:
      extent, low = 0, 0
      break
    stride = tensor.strides[d] if tensor.strides else None
    if stride is None:
      stride = 1
      for later in range(d + 1, tensor.ndim):
        stride *= tensor.shape[later]
    if stride >= 0:
      extent += (size - 1) * stride * item
    else:
      low += (size - 1) * stride * item
  address = (tensor.data or 0) + tensor.byte_offset
  if not (0 <= address + low and address + extent < 2**64 and extent < 2**63 and low >= -2**63):
    raise ValueError(f"{type(obj).__name__}.__dlpack__ gave a shape and strides whose span "
                     f"does not fit 64 bits")
  return (address, int(tensor.device.device_type), int(tensor.device.device_id), element,
          extent, name, capsule)


def array_info(obj: Any, dlpack_only: bool = False) -> Tuple[int, Tuple[int, int], str, int, str]:
  """(address, (DLPack device type, id), element, extent bytes, how) as a launch reads them:
  PyTorch and CuPy arrays through their fast path unless `dlpack_only`, others through DLPack."""
  if not dlpack_only:
    fast = fast_reader(type(obj))
    if fast is not None:
      return fast.info(obj)
  address, kind, ident, element, extent, name, _ = dlpack_info(obj)
  return address, (kind, ident), element, extent, name


# Fast paths: what a DLPack capsule would say, read from the framework's own attributes.

TORCH_ELEMENTS = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64",
                   "int8": "i8", "uint8": "i8", "int16": "i16", "uint16": "i16", "int32": "i32",
                   "uint32": "i32", "int64": "i64", "uint64": "i64", "bool": "i1",
                   "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
                   "float8_e4m3fnuz": "fp8e4b8", "float8_e5m2fnuz": "fp8e5b16",
                   "complex64": "complex64", "complex128": "complex128"}


# PyTorch's dtypes as DLPack gives them (code, bits).
TORCH_DLPACK = {"float32": (DL_FLOAT, 32), "float16": (DL_FLOAT, 16), "float64": (DL_FLOAT, 64),
                 "bfloat16": (DL_BFLOAT, 16), "bool": (DL_BOOL, 8),
                 **{f"int{b}": (DL_INT, b) for b in (8, 16, 32, 64)},
                 **{f"uint{b}": (DL_UINT, b) for b in (8, 16, 32, 64)},
                 **{name: (code, 8) for code, name in
                    ((10, "float8_e4m3fn"), (12, "float8_e5m2"), (11, "float8_e4m3fnuz"),
                     (13, "float8_e5m2fnuz"))}}


class TorchReader:
  name = "torch"

  def __init__(self):
    torch = sys.modules["torch"]
    self.torch = torch
    self.elements = {}
    for dtype_name, element in TORCH_ELEMENTS.items():
      dtype = getattr(torch, dtype_name, None)
      if dtype is not None:
        self.elements[dtype] = element
    raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
    self._raw_stream = raw
    self._gpu_kind: Optional[int] = None  # the DLPack device type of its GPU tensors
    # Each dtype's DLPack code (code << 8 | bits), as tkrt_triton_arg_t.dtype takes it.
    self.codes = {dtype: element_dtype(element) for dtype, element in self.elements.items()}

  def info(self, t):
    index = t.get_device()
    if index < 0:
      kind = DLPACK_CPU
    else:
      kind = self._gpu_kind
      if kind is None:  # what PyTorch says of its GPU tensors (kDLCUDA, or kDLROCM on ROCm builds)
        kind = self._gpu_kind = int(t.__dlpack_device__()[0])
    element = self.elements.get(t.dtype, str(t.dtype))
    extent = 0
    if t.numel():
      extent = t.element_size() * (1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride())))
    return t.data_ptr(), (kind, max(index, 0)), element, extent, "torch"

  def current_stream(self, t, dev: Any) -> int:  # a tkrt.triton.Device
    if not dev.foreign_streams:
      return 0
    if self._raw_stream is not None:
      return self._raw_stream(dev.ordinal)
    return self.torch.cuda.current_stream(dev.ordinal).cuda_stream


class CupyReader:
  name = "cupy"

  def __init__(self):
    self.cupy = sys.modules["cupy"]

  def info(self, a):
    memory = a.data  # at the first element
    item = a.itemsize
    extent = 0
    if a.size:  # from the first element up (negative strides reach below it: not counted)
      extent = item + sum(max(0, (s - 1) * st) for s, st in zip(a.shape, a.strides))
    dtype = a.dtype
    element = _dl_element({"i": DL_INT, "u": DL_UINT, "f": DL_FLOAT, "b": DL_BOOL}.get(dtype.kind, 99),
                          dtype.itemsize * 8, 1)
    kind = DLPACK_ROCM if getattr(self.cupy.cuda.runtime, "is_hip", False) else DLPACK_CUDA
    return memory.ptr, (kind, memory.device_id), element, extent, "cupy"

  def current_stream(self, a, dev: Any) -> int:  # a tkrt.triton.Device
    return self.cupy.cuda.get_current_stream(dev.ordinal).ptr


fast_readers: Dict[type, Any] = {}


def fast_reader(cls: type):
  """The fast reader for arrays of class `cls`, or None (DLPack). Looked up once per class."""
  try:
    return fast_readers[cls]
  except KeyError:
    pass
  reader = None
  module = cls.__module__ or ""
  if module.startswith("torch") and "torch" in sys.modules and \
      issubclass(cls, sys.modules["torch"].Tensor):
    reader = TorchReader()
  elif module.startswith("cupy") and "cupy" in sys.modules and \
      issubclass(cls, sys.modules["cupy"].ndarray):
    reader = CupyReader()
  fast_readers[cls] = reader
  return reader


# How tkrt._native reads arrays of a type (classify_array_type; the values of its READ_* enum).
READ_NONE, READ_EXCHANGE, READ_TORCH, READ_CUPY, READ_DLPACK, READ_JAX = range(6)

# Triton's element names -> the DLPack dtypes (code << 8 | bits) an array of them may have.
ELEMENT_DTYPES = {f"i{b}": ((DL_INT << 8) | b, (DL_UINT << 8) | b) for b in (8, 16, 32, 64)}
ELEMENT_DTYPES.update({f"fp{b}": ((DL_FLOAT << 8) | b,) for b in (16, 32, 64)})
ELEMENT_DTYPES.update({"bf16": ((DL_BFLOAT << 8) | 16,), "i1": ((DL_BOOL << 8) | 8,)})
ELEMENT_DTYPES.update({name: ((code << 8) | 8,) for code, name in DL_FP8.items()})
ELEMENT_DTYPES.update({f"complex{b}": ((DL_COMPLEX << 8) | b,) for b in (64, 128)})
# An element no DLPack type describes (a vector type, a framework dtype tkrt does not know):
# code 0xff, which names no DLPack type, so the C library refuses it for any parameter.
UNKNOWN_DTYPE = 0xff00


def element_dtype(element: str) -> int:
  """The DLPack dtype (code << 8 | bits) an array of `element` (as array_info names it) has, as
  tkrt_triton_arg_t.dtype takes it: whether the parameter takes it is the C library's rule."""
  codes = ELEMENT_DTYPES.get(element)
  if codes:
    return codes[0]
  if element.startswith("dlpack(") and element.endswith(", lanes=1)"):
    fields = dict(part.split("=") for part in element[7:-1].split(", "))
    return (int(fields["code"]) << 8) | int(fields["bits"])
  return UNKNOWN_DTYPE
def classify_array_type(cls: type) -> tuple:
  """How tkrt._native reads arrays of class `cls`, decided once per class: (read, exchange API
  capsule, {dtype object: code << 8 | bits}, current-stream callable (ordinal -> handle), DLPack
  device type of its GPU arrays)."""
  api = getattr(cls, "__dlpack_c_exchange_api__", None)
  if api is not None and _capsule_is_valid(api, b"dlpack_exchange_api"):
    return READ_EXCHANGE, api, None, None, 0
  reader = fast_reader(cls)
  if isinstance(reader, TorchReader):
    torch = reader.torch
    codes = {getattr(torch, name): (code << 8) | bits
             for name, (code, bits) in TORCH_DLPACK.items() if hasattr(torch, name)}
    # Its GPU tensors' DLPack device type (kDLCUDA, or kDLROCM on ROCm builds): 0 lets
    # tkrt._native ask the first GPU tensor it reads (__dlpack_device__), as TorchReader does.
    return READ_TORCH, None, codes, reader._raw_stream, 0
  if isinstance(reader, CupyReader):
    numpy = sys.modules.get("numpy")
    codes = {}
    if numpy is not None:
      kinds = {"i": DL_INT, "u": DL_UINT, "f": DL_FLOAT, "b": DL_BOOL}
      for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                   "float16", "float32", "float64", "bool_"):
        dtype = numpy.dtype(getattr(numpy, name))
        codes[dtype] = (kinds[dtype.kind] << 8) | (dtype.itemsize * 8)
    gpu = DLPACK_ROCM if getattr(reader.cupy.cuda.runtime, "is_hip", False) else DLPACK_CUDA
    cupy = reader.cupy
    return READ_CUPY, None, codes, (lambda ordinal: cupy.cuda.get_current_stream(ordinal).ptr), gpu
  if is_jax_array_type(cls):
    return READ_JAX, None, None, None, 0
  if hasattr(cls, "__dlpack__"):
    return READ_DLPACK, None, None, None, 0
  return READ_NONE, None, None, None, 0


def is_jax_array_type(cls: type) -> bool:
  return (cls.__module__ or "").startswith(("jax", "jaxlib")) and hasattr(cls, "block_until_ready")


def is_jax_array(obj) -> bool:
  return type(obj).__module__.startswith(("jax", "jaxlib")) and hasattr(obj, "block_until_ready")


def stream_handle(stream: Any) -> int:
  """A native stream handle (an int in 0..2^64-1) from an int or a framework's stream object."""
  if stream is None:
    return 0
  handle = None
  if isinstance(stream, int) and not isinstance(stream, bool):
    handle = stream
  else:
    protocol = getattr(stream, "__cuda_stream__", None)  # the CUDA stream protocol: (version, handle)
    if protocol is not None:
      handle = protocol()[1]
    else:
      for attribute in ("cuda_stream", "ptr", "handle"):  # torch.cuda.Stream, cupy Stream, others
        value = getattr(stream, attribute, None)
        if isinstance(value, int) and not isinstance(value, bool):
          handle = value
          break
  if handle is not None:
    if isinstance(handle, int) and not isinstance(handle, bool) and 0 <= handle < 2**64:
      return handle
    raise ValueError(f"tkrt.triton: stream handle {handle!r} (from {type(stream).__name__}) is not "
                     f"an integer in 0..2^64-1")
  raise TypeError(f"tkrt.triton: stream must be an int (a CUstream / hipStream_t handle) or a "
                  f"framework stream (torch.cuda.Stream, cupy.cuda.Stream, an object with "
                  f"__cuda_stream__); got {type(stream).__name__}")
