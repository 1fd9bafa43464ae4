# SPDX-License-Identifier: Apache-2.0
"""Triton kernels launched by tkrt.triton, exposed as PyTorch custom operators (torch.library).

Three operators in the namespace ``tkrt_example``:

  torch.ops.tkrt_example.add(x, y) -> Tensor            x + y (fp32, contiguous, same shape)
  torch.ops.tkrt_example.add_out(x, y, out) -> ()       writes x + y into out (mutates out)
  torch.ops.tkrt_example.softmax(x) -> Tensor           softmax over the last dim of a 2-D fp32
                                                        tensor whose rows are contiguous

Each is a ``torch.library.custom_op`` with a fake implementation (``register_fake``) that gives
the output's shape, dtype and device without running anything, so that ``torch.compile`` (also
with ``fullgraph=True``) traces it as one opaque node; ``add_out`` declares its mutated argument
(``mutates_args=("out",)``) and returns nothing, as torch.library asks of a mutating operator.

The kernels are compiled ahead by Triton (``triton.compile`` of an ``ASTSource``, once per
constexpr value, into Triton's cache) and loaded into tkrt (``tkrt.triton.load``); Triton's
launcher is never used. A launch is a prepared ``tkrt.triton`` launch (``kernel.prepare``: grid
expression, constexprs, device) called with every argument, scalars included
(``launch(x, y, out, n)``): the grid is evaluated from this call's scalars, so one prepared launch
serves every shape. It runs on torch's current stream of the tensors' device (read by tkrt's
native launcher through the tensor type's DLPack exchange API), which under ``torch.cuda.graph``
capture or CUDA Graph Trees recording is the capture stream: the launch is recorded, not run.

Preparing loads the kernel's module on the device and must not happen while a stream captures
(tkrt refuses it: FAILED_PRECONDITION). So launches are prepared once per (operator, compiled
variant, device) and cached here; the first call that needs a variant on a device must be made
outside any capture (a warm-up call, as torch.cuda.graph's documentation asks and as
torch.compile's CUDA Graph Trees do by running a function eagerly before recording it). After it,
calls of any shape may be captured. A first call inside a capture raises RuntimeError saying so,
before any CUDA call.

Needs PyTorch with CUDA, Triton (to compile the kernels) and tkrt's Python package
(PYTHONPATH=python and TKRT_LIBRARY=.../libtkrt.so.0, or the wheel). See README.md and demo.py.
"""
import threading
from typing import Dict, Tuple

import torch
import triton
import triton.language as tl
from triton.compiler import ASTSource

import tkrt.triton as tt

NAMESPACE = "tkrt_example"
ADD_BLOCK = 1024
MAX_SOFTMAX_COLS = 16384


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
  pid = tl.program_id(0)
  offs = pid * BLOCK + tl.arange(0, BLOCK)
  m = offs < n
  tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols,
                   BLOCK: tl.constexpr):
  row = tl.program_id(0)
  cols = tl.arange(0, BLOCK)
  m = cols < n_cols
  x = tl.load(in_ptr + row * in_row_stride + cols, mask=m, other=-float("inf"))
  x = x - tl.max(x, axis=0)
  num = tl.exp(x)
  tl.store(out_ptr + row * out_row_stride + cols, num / tl.sum(num, axis=0), mask=m)


_SIGNATURES = {
    "add": (add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
                         "BLOCK": "constexpr"}),
    "softmax": (softmax_kernel, {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_row_stride": "i32",
                                 "out_row_stride": "i32", "n_rows": "i32", "n_cols": "i32",
                                 "BLOCK": "constexpr"}),
}

_lock = threading.Lock()
_kernels: Dict[Tuple[str, int, int], tt.Kernel] = {}
_prepared: Dict[tuple, tt.PreparedLaunch] = {}


def _kernel(name: str, block: int, num_warps: int) -> tt.Kernel:
  """The kernel compiled by Triton for one BLOCK (ahead of any launch), loaded into tkrt."""
  key = (name, block, num_warps)
  kernel = _kernels.get(key)
  if kernel is None:
    fn, signature = _SIGNATURES[name]
    source = ASTSource(fn=fn, signature=signature, constexprs={"BLOCK": block})
    compiled = triton.compile(source, target=triton.runtime.driver.active.get_current_target(),
                              options={"num_warps": num_warps})
    kernel = _kernels.setdefault(key, tt.load(compiled))
  return kernel


def _launch(key: tuple, make) -> tt.PreparedLaunch:
  """The prepared launch for `key`, made by make() on first use; never inside a capture."""
  launch = _prepared.get(key)
  if launch is not None:
    return launch
  if torch.cuda.is_current_stream_capturing():
    raise RuntimeError(
        f"{NAMESPACE}::{key[0]}: first call for {key[1:]} while the current stream captures a "
        f"CUDA graph; preparing loads the kernel's module, which a capture does not allow: call "
        f"the operator once with these shapes outside the capture (a warm-up) first")
  with _lock:
    launch = _prepared.get(key)
    if launch is None:
      launch = _prepared[key] = make()
  return launch


def prepared_count() -> int:
  """How many (operator, variant, device) launches are prepared (the demo checks that a replay
  prepared nothing new)."""
  return len(_prepared)


def _check_add(x: torch.Tensor, y: torch.Tensor) -> None:
  for label, t in (("x", x), ("y", y)):
    if t.dtype != torch.float32 or not t.is_contiguous():
      raise ValueError(f"{NAMESPACE}::add: {label} must be a contiguous float32 tensor; got "
                       f"{t.dtype}, strides {tuple(t.stride())}")
  if x.shape != y.shape or x.device != y.device:
    raise ValueError(f"{NAMESPACE}::add: x and y differ: {tuple(x.shape)} on {x.device} and "
                     f"{tuple(y.shape)} on {y.device}")
  if x.numel() >= 2**31:
    raise ValueError(f"{NAMESPACE}::add: {x.numel()} elements; the kernel's n is an i32")


def _launch_add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
  n = x.numel()
  if n == 0:
    return
  device = x.device
  launch = _launch(("add", ADD_BLOCK, device.index), lambda: _kernel("add", ADD_BLOCK, 4).prepare(
      "cdiv(n, BLOCK)", constants={"BLOCK": ADD_BLOCK}, device=device))
  launch(x, y, out, n)


@torch.library.custom_op(f"{NAMESPACE}::add", mutates_args=(), device_types="cuda")
def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
  """x + y by tkrt's launch of a Triton kernel; a new tensor."""
  _check_add(x, y)
  out = torch.empty_like(x)
  _launch_add(x, y, out)
  return out


@add.register_fake
def _add_fake(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
  torch._check(x.shape == y.shape, lambda: f"{NAMESPACE}::add: x and y differ in shape")
  return torch.empty_like(x)


@torch.library.custom_op(f"{NAMESPACE}::add_out", mutates_args=("out",), device_types="cuda")
def add_out(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
  """Writes x + y into out (declared mutated; returns nothing, as a mutating custom op must)."""
  _check_add(x, y)
  if out.shape != x.shape or out.dtype != torch.float32 or not out.is_contiguous() \
     or out.device != x.device:
    raise ValueError(f"{NAMESPACE}::add_out: out must be a contiguous float32 tensor like x "
                     f"({tuple(x.shape)} on {x.device}); got {tuple(out.shape)} {out.dtype} on "
                     f"{out.device}")
  _launch_add(x, y, out)


@add_out.register_fake
def _add_out_fake(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
  torch._check(x.shape == y.shape and x.shape == out.shape,
               lambda: f"{NAMESPACE}::add_out: x, y and out differ in shape")
  return None


def _softmax_output(x: torch.Tensor) -> torch.Tensor:
  return torch.empty(x.shape, dtype=x.dtype, device=x.device)  # contiguous, real and fake alike


@torch.library.custom_op(f"{NAMESPACE}::softmax", mutates_args=(), device_types="cuda")
def softmax(x: torch.Tensor) -> torch.Tensor:
  """Softmax over the last dimension of a 2-D float32 tensor, one Triton program per row."""
  if x.dim() != 2 or x.dtype != torch.float32 or (x.shape[1] > 1 and x.stride(1) != 1):
    raise ValueError(f"{NAMESPACE}::softmax: x must be a 2-D float32 tensor with contiguous rows; "
                     f"got {tuple(x.shape)} {x.dtype}, strides {tuple(x.stride())}")
  rows, cols = x.shape
  if cols > MAX_SOFTMAX_COLS or x.stride(0) >= 2**31:
    raise ValueError(f"{NAMESPACE}::softmax: {cols} columns, row stride {x.stride(0)}: at most "
                     f"{MAX_SOFTMAX_COLS} columns and a row stride below 2^31")
  out = _softmax_output(x)
  if rows == 0 or cols == 0:
    return out
  block = triton.next_power_of_2(cols)
  num_warps = 4 if block <= 2048 else 8 if block <= 8192 else 16
  device = x.device
  in_stride, out_stride = x.stride(0), out.stride(0)
  launch = _launch(("softmax", block, device.index),
                   lambda: _kernel("softmax", block, num_warps).prepare("n_rows", device=device))
  launch(out, x, in_stride, out_stride, rows, cols)
  return out


@softmax.register_fake
def _softmax_fake(x: torch.Tensor) -> torch.Tensor:
  torch._check(x.dim() == 2, lambda: f"{NAMESPACE}::softmax: x must be 2-D")
  return _softmax_output(x)
