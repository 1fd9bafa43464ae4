# SPDX-License-Identifier: Apache-2.0
"""tkrt.triton with a tensor descriptor Triton did not lower to TMA, on the host backend.

A kernel folder around test/triton/desc_tile_host.c (tile_copy_kernel: a 2-D `!tt.tensordesc`
parameter and its hidden shape / strides in the TTIR, "tensordesc_meta": [] in the metadata), so
its descriptor is passed decomposed (base, shape, strides, padding flag, hidden shape and
strides). Launches it with TensorDescriptor-like objects over NumPy arrays on the path in use
(native or ctypes, TKRT_EXPECT_LAUNCH_PATH): the copied tile, the padding ("zero", "nan", absent)
and what the kernel was passed, and the refusals (padding, rank, block, innermost stride, the
tensor outside its array) that enqueue nothing.

usage: test_python_desc.py DESC_HOST.so
Needs TKRT_LIBRARY (or TKRT_XLA_LIBRARY) and NumPy >= 1.22; exits 77 (skipped) without NumPy.
"""
import dataclasses
import ctypes
import fractions
import json
import os
import shutil
import sys
import tempfile
from typing import Any, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import script_checks  # noqa: E402 - the scripts' own helpers (this folder)

np = script_checks.numpy_with_dlpack()

import tkrt.triton as tt  # noqa: E402
from tkrt import _arrays  # noqa: E402

from script_checks import check, expect_raises  # noqa: E402


def loc(name):
  return f'loc("{name}"(#loc))'


TTIR = ('#loc = loc("tile.py":1:0)\nmodule {\n  tt.func public @tile_copy_kernel('
        f"%in_desc: !tt.tensordesc<tensor<4x8xf32>> {loc('in_desc')}, "
        f"%in_desc_0: i32 {loc('in_desc')}, %in_desc_1: i32 {loc('in_desc')}, "
        f"%in_desc_2: i64 {loc('in_desc')}, %in_desc_3: i64 {loc('in_desc')}, "
        f"%out_ptr: !tt.ptr<f32> {{tt.divisibility = 16 : i32}} {loc('out_ptr')}, "
        f"%probe_ptr: !tt.ptr<i64> {{tt.divisibility = 16 : i32}} {loc('probe_ptr')}) "
        "attributes {noinline = false} {\n    tt.return loc(#loc)\n  } loc(#loc)\n} loc(#loc)\n")
FILL_TTIR = ('#loc = loc("fill.py":1:0)\nmodule {\n  tt.func public @fill_kernel('
             f"%out_ptr: !tt.ptr<f32> {{tt.divisibility = 16 : i32}} {loc('out_ptr')}, "
             f"%value: f32 {loc('value')}) "
             "attributes {noinline = false} {\n    tt.return loc(#loc)\n  } loc(#loc)\n} loc(#loc)\n")
META = {"name": "tile_copy_kernel", "target": {"backend": "host", "arch": "any", "warp_size": 1},
        "num_warps": 1, "num_ctas": 1, "num_stages": 1, "shared": 0, "triton_version": "3.6.0",
        "tensordesc_meta": []}


@dataclasses.dataclass
class TensorDescriptor:
  """triton.tools.tensor_descriptor.TensorDescriptor's fields (padding "zero" by default)."""
  base: Any
  shape: List[int]
  strides: List[int]
  block_shape: List[int]
  padding: str = "zero"


class NoPadding:
  """A descriptor-like object without a padding attribute: zeros."""

  def __init__(self, base, shape, strides, block_shape):
    self.base, self.shape, self.strides, self.block_shape = base, shape, strides, block_shape


def aligned(n, dtype):
  item = np.dtype(dtype).itemsize
  raw = np.empty(n * item + 128, dtype=np.uint8)
  start = (-raw.ctypes.data) % 64
  return raw[start:start + n * item].view(dtype)


ROWS, COLS, STRIDE, OFFSET = 6, 11, 13, 1


def main(work):
  wanted = os.environ.get("TKRT_EXPECT_LAUNCH_PATH")
  if wanted:
    check(tt.launch_path == wanted, f"launch path {tt.launch_path!r} ({tt.launch_path_reason})")
  folder = os.path.join(work, "tile")
  os.makedirs(folder)
  with open(os.path.join(folder, "tile_copy_kernel.ttir"), "w") as f:
    f.write(TTIR)
  with open(os.path.join(folder, "tile_copy_kernel.json"), "w") as f:
    json.dump(META, f)
  shutil.copy(sys.argv[1], os.path.join(folder, "tile_copy_kernel.so"))
  k = tt.load(folder, allow_native_code=True)
  launch = k.prepare((2, 2), device="host")
  dev = tt.device("host")

  storage = aligned(OFFSET + (ROWS - 1) * STRIDE + COLS, np.float32)
  storage[:] = np.arange(storage.size, dtype=np.float32) + np.float32(0.5)
  base = storage[OFFSET:]  # 4-byte aligned only: the decomposed form has no TMA rule
  tensor = np.lib.stride_tricks.as_strided(base, (ROWS, COLS), (STRIDE * 4, 4))
  out = aligned(8 * 16, np.float32).reshape(8, 16)
  probe = aligned(10, np.int64)

  def expect_tile(nan, label):
    inside = np.array_equal(out[:ROWS, :COLS], tensor)
    outside = np.concatenate([out[ROWS:, :].ravel(), out[:ROWS, COLS:].ravel()])
    padded = np.isnan(outside).all() if nan else not outside.any()
    check(inside and padded, f"{label}: the tile copied, out-of-bounds elements "
          f"{'NaN' if nan else 'zero'}")
    want = [base.ctypes.data, ROWS, COLS, STRIDE, 1, int(nan), ROWS, COLS, STRIDE, 1]
    check(probe.tolist() == want, f"{label}: the kernel was passed base, shape, strides, padding "
          f"and the hidden shape / strides ({probe.tolist()} == {want})")

  for padding, nan in (("zero", False), ("nan", True)):
    out.fill(7)
    probe.fill(0)
    launch(TensorDescriptor(base, [ROWS, COLS], [STRIDE, 1], [4, 8], padding), out, probe)
    dev.synchronize()
    expect_tile(nan, f"padding={padding!r}")
  out.fill(7)
  probe.fill(0)
  launch(NoPadding(base, (ROWS, COLS), (STRIDE, 1), (4, 8)), out, probe)
  dev.synchronize()
  expect_tile(False, "no padding attribute")
  # A padding left over from an earlier launch does not stick (the argument array is reused).
  launch(TensorDescriptor(base, [ROWS, COLS], [STRIDE, 1], [4, 8], "nan"), out, probe)
  out.fill(7)
  launch(TensorDescriptor(base, [ROWS, COLS], [STRIDE, 1], [4, 8]), out, probe)
  dev.synchronize()
  expect_tile(False, "zero after nan")

  # Refused before anything is enqueued: out keeps its values.
  out.fill(7)
  what = "argument 0 (in_desc: tensordesc<fp32[4, 8]>)"
  cases = (
      (ValueError, f"{what}: padding 'inf' is not one of 'zero' and 'nan'",
       TensorDescriptor(base, [ROWS, COLS], [STRIDE, 1], [4, 8], "inf"), "padding 'inf'"),
      (ValueError, f"{what}: padding 0 is not one of",
       TensorDescriptor(base, [ROWS, COLS], [STRIDE, 1], [4, 8], 0), "padding 0"),
      (ValueError, f"{what}: its shape has 1 dimensions; the kernel takes a rank-2 descriptor",
       TensorDescriptor(base, [ROWS], [1], [4], "zero"), "rank 1"),
      (tt.Error, "has block dimension 1 = 16; the kernel was compiled for 8",
       TensorDescriptor(base, [ROWS, COLS], [STRIDE, 1], [4, 16]), "another block"),
      (tt.Error, "the innermost stride is 2; a tensor descriptor's must be 1",
       TensorDescriptor(base, [ROWS, COLS], [STRIDE, 2], [4, 8]), "innermost stride 2"),
      (tt.Error, "its shape and strides span 308 bytes but the buffer holds 304",
       TensorDescriptor(base, [ROWS, COLS + 1], [STRIDE, 1], [4, 8]), "the tensor outside its array"),
  )
  for kind, fragment, desc, label in cases:
    expect_raises(kind, fragment, lambda: launch(desc, out, probe), label)
  dev.synchronize()
  check((out == 7).all(), "refused launches enqueued nothing")
  expect_raises(TypeError, "not a tensor descriptor", lambda: launch(base, out, probe),
                "an array where a descriptor goes")

  # A descriptor twice as tall as its base array, through either path: its base always carries
  # its byte extent, so the core's check refuses it (issue 25).
  expect_raises(tt.Error, f"{what}: its shape and strides span 1032 bytes but the buffer holds 304",
                lambda: launch(TensorDescriptor(base, [2 * ROWS + 8, COLS], [STRIDE, 1], [4, 8]),
                               out, probe), "a descriptor whose shape exceeds its base array")

  # Arrays whose DLPack capsule has no memory with elements, hostile shapes or strides, or whose
  # __dlpack__ raises: refused naming the argument, nothing launched.
  keepalive = []

  class Exporter:
    """An array over `owner`'s memory (or `data`) with the given DLPack shape and strides."""
    def __init__(self, owner, shape, strides, data=None):
      self.owner, self.shape_, self.strides_ = owner, shape, strides
      self.data = owner.ctypes.data if data is None else data

    def __dlpack_device__(self):
      return (1, 0)

    def __dlpack__(self, **_):
      n = len(self.shape_)
      shape = (ctypes.c_int64 * max(n, 1))(*self.shape_)
      strides = (ctypes.c_int64 * max(n, 1))(*self.strides_)
      m = _arrays.DLManagedTensor()
      m.dl_tensor.data = self.data
      m.dl_tensor.device.device_type, m.dl_tensor.device.device_id = 1, 0
      m.dl_tensor.ndim = n
      m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits, m.dl_tensor.dtype.lanes = 2, 32, 1
      m.dl_tensor.shape, m.dl_tensor.strides = shape, strides
      keepalive.append((m, shape, strides))
      new = ctypes.pythonapi.PyCapsule_New
      new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
      return new(ctypes.addressof(m), b"dltensor", None)

  class Raising:
    def __dlpack_device__(self):
      return (1, 0)

    def __dlpack__(self, **_):
      raise RuntimeError("no storage here")

  fine = Exporter(out, [8, 16], [16, 1])
  out.fill(7)
  launch(TensorDescriptor(base, [ROWS, COLS], [STRIDE, 1], [4, 8]), fine, probe)
  dev.synchronize()
  check((out[:ROWS, :COLS] == tensor).all(), "a ctypes-made DLPack exporter launches (control)")
  out.fill(7)
  out_what = "argument 1 (out_ptr: *fp32)"
  for kind, fragment, array, label in (
      (ValueError, f"{out_what} has no memory (address 0) but spans 512 bytes",
       Exporter(out, [8, 16], [16, 1], data=0), "address 0 with 128 elements"),
      (ValueError, f"{out_what}: reading the Exporter failed: ValueError: Exporter.__dlpack__ "
       "gave a negative shape", Exporter(out, [-8, 16], [16, 1]), "a negative shape"),
      (ValueError, f"{out_what}: reading the Exporter failed: ValueError: Exporter.__dlpack__ "
       "gave a shape and strides whose span does not fit 64 bits",
       Exporter(out, [2**40, 2**40], [2**40, 1]), "strides overflowing 64 bits"),
      (ValueError, f"{out_what}: reading the Exporter failed: ValueError: Exporter.__dlpack__ "
       "gave a shape and strides whose span does not fit 64 bits",
       Exporter(out, [2**62, 3], [-2**62, 1]), "negative strides overflowing 64 bits"),
      (ValueError, f"{out_what}: reading the Raising failed: RuntimeError: no storage here",
       Raising(), "__dlpack__ raising")):
    expect_raises(kind, fragment, lambda: launch(TensorDescriptor(base, [ROWS, COLS], [STRIDE, 1],
                                                                  [4, 8]), array, probe), label)
  expect_raises(ValueError, f"{what}: reading the Raising failed: RuntimeError: no storage here",
                lambda: launch(TensorDescriptor(Raising(), [ROWS, COLS], [STRIDE, 1], [4, 8]),
                               out, probe), "a descriptor base whose __dlpack__ raises")
  dev.synchronize()
  check((out == 7).all(), "refused arrays enqueued nothing")
  # A float scalar takes what both readers take: a numbers.Real that is not a bool.
  folder = os.path.join(work, "fill")
  os.makedirs(folder)
  with open(os.path.join(folder, "fill_kernel.ttir"), "w") as f:
    f.write(FILL_TTIR)
  with open(os.path.join(folder, "fill_kernel.json"), "w") as f:
    json.dump(dict(META, name="fill_kernel"), f)
  shutil.copy(sys.argv[1], os.path.join(folder, "fill_kernel.so"))
  fill = tt.load(folder, allow_native_code=True).prepare((1,), device="host")
  cell = aligned(1, np.float32)
  for value in (2.5, 3, np.float32(1.25), np.int64(4), fractions.Fraction(1, 4)):
    fill(cell, value)
    dev.synchronize()
    check(cell[0] == float(value), f"a float parameter takes {value!r} ({type(value).__name__})")

  class IndexOnly:
    def __index__(self):
      return 5

  cell[0] = 7
  for value in (True, False, IndexOnly(), "1.5", None):
    expect_raises(TypeError, f"argument 1 (value: fp32) is {value!r}, not a number",
                  lambda: fill(cell, value), f"a float parameter refuses {value!r}")
  dev.synchronize()
  check(cell[0] == 7, "refused floats launched nothing")
  # Closed by an argument's reader (another thread could do the same while the GIL is let go):
  # the launch says so, naming the kernel, and runs nothing.
  class Closing(Exporter):
    def __dlpack__(self, **kw):
      fill.close()
      return super().__dlpack__(**kw)

  expect_raises(ValueError, "fill_kernel: this prepared launch was closed",
                lambda: fill(Closing(cell, [1], [1]), 1.5), "closed while its arguments were read")
  dev.synchronize()
  check(cell[0] == 7, "the launch closed meanwhile ran nothing")

  if tt.launch_path == "native":
    from tkrt import _native
    for shape, strides in (([-8, 16], [16, 1]), ([2**40, 2**40], [2**40, 1]),
                           ([2**62, 3], [-2**62, 1]), ([2**63 - 1, 2**63 - 1], [1, 1])):
      expect_raises(TypeError, "not an array the native path reads",
                    lambda: _native._array(Exporter(out, shape, strides)),
                    f"tkrt._native reads shape {shape} strides {strides} as unreadable")


if __name__ == "__main__":  # test/gpu/torch_host_reads.py imports the kernel and helpers
  with tempfile.TemporaryDirectory() as work:
    main(work)
  sys.exit(script_checks.finish("test_python_desc"))
