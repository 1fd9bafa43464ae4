#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Serializes tkrt's version-matrix kernel calls with the jaxlib this Python has (its CUDA plugin's
own classes: TritonKernel, TritonKernelCall, TritonAutotunedKernelCall, create_*_parameter,
to_proto), on the CPU: jaxlib's serializer needs no GPU. Writes OUT/<jaxlib version>/:

  schema.txt            the call proto as this jaxlib's plugin embeds it (extract_schema.py)
  targets.json          the custom-call targets the plugin registers for XLA's FFI
                        (registrations(), 0.10 and newer); the legacy "triton_kernel_call" is
                        the plugin's get_custom_call() in every release
  <case>/call.pb        to_proto's bytes; call.pb.z: zlib-compressed, as a frontend passes them
  <case>/case.json      inputs, outputs, aliases, as `tkrt run` reads them (see test/data/README.md)
  <case>/in*.bin, out*.bin   inputs from NumPy's seeded generator; outputs computed by NumPy

  python make.py --ptx ADD_KERNEL_PTX --out DIR   (run by regenerate.sh, once per pinned jaxlib)

The kernel is Triton's add_kernel (BLOCK 1024, 4 warps; ADD_KERNEL_PTX: Triton 3.6's sm_90a PTX
of test/data/triton-3.6/add), whose host build (test/triton) runs the calls on a CPU.
"""
import argparse
import json
import os
import sys
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import extract_schema  # noqa: E402

try:
  from jax_cuda12_plugin import _triton as gt
except ImportError:  # jaxlib 0.4.x also has it here
  from jaxlib.cuda import _triton as gt  # type: ignore
import jaxlib.version  # noqa: E402

VERSION = jaxlib.version.__version__
PARTS = tuple(int(x) for x in VERSION.split(".")[:3])
N = 4099  # elements: 5 programs of 1024, the last one partial


def kernel(ptx):
  """TritonKernel for add_kernel; its constructor changed twice."""
  if PARTS < (0, 8, 0):  # name, warps, shared, ptx, ttir, cc, cluster_dim_0..2
    return gt.TritonKernel("add_kernel", 4, 0, ptx, "", 90, 1, 1, 1)
  if PARTS < (0, 11, 0):  # name, warps, num_ctas, shared, ptx, ttir, cc
    return gt.TritonKernel("add_kernel", 4, 1, 0, ptx, "", 90)
  return gt.TritonKernel("add_kernel", 4, 1, 0, ptx, "", 90)  # + optional global scratch


def array():
  return gt.create_array_parameter(0, 16)


def write_case(root, name, note, raw, inputs, outputs, aliases=()):
  folder = os.path.join(root, name)
  os.makedirs(folder)
  with open(os.path.join(folder, "call.pb"), "wb") as f:
    f.write(raw)
  with open(os.path.join(folder, "call.pb.z"), "wb") as f:
    f.write(zlib.compress(raw))
  case = {"name": name, "note": note, "jaxlib": VERSION, "inputs": [], "outputs": [],
          "proto_bytes": len(raw)}
  for kind, arrays in (("in", inputs), ("out", outputs)):
    for i, a in enumerate(arrays):
      a.tofile(os.path.join(folder, f"{kind}{i}.bin"))
      case["inputs" if kind == "in" else "outputs"].append(
          {"file": f"{kind}{i}.bin", "dtype": str(a.dtype), "shape": list(a.shape)})
  if aliases:
    case["aliases"] = [{"input": i, "output": o} for i, o in aliases]
  with open(os.path.join(folder, "case.json"), "w") as f:
    json.dump(case, f, indent=1)
    f.write("\n")


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--ptx", required=True)
  parser.add_argument("--out", required=True)
  args = parser.parse_args()
  root = os.path.join(args.out, VERSION)
  if os.path.exists(root):
    sys.exit(f"make.py: {root} exists; regenerate into a new folder")
  os.makedirs(root)
  with open(args.ptx) as f:
    ptx = f.read()
  with open(os.path.join(root, "schema.txt"), "w") as f:
    f.write(extract_schema.describe(extract_schema.extract(gt.__file__)) + "\n")
  with open(os.path.join(root, "targets.json"), "w") as f:
    ffi = sorted(gt.registrations()) if hasattr(gt, "registrations") else []
    json.dump({"legacy": ["triton_kernel_call"] if hasattr(gt, "get_custom_call") else [],
               "ffi": ffi}, f)
    f.write("\n")
  rng = np.random.default_rng(PARTS[1] * 100 + PARTS[2])
  x = rng.standard_normal(N, dtype=np.float32)
  y = rng.standard_normal(N, dtype=np.float32)
  grid = (N + 1023) // 1024

  params = [array(), array(), array(), gt.create_scalar_parameter(N, "i32")]
  raw = gt.TritonKernelCall(kernel(ptx), grid, 1, 1, params).to_proto("add_f32", b"")
  write_case(root, "add_f32", f"jaxlib {VERSION}: a plain call, out0 = in0 + in1 (n = {N})", raw,
             [x, y], [x + y])

  # Autotuned, in place: input 0 is output 0's buffer (the kernel's out_ptr is x_ptr), so tuning
  # must restore it: out0 = in0 + in1 exactly once. Two configs of the same kernel.
  calls = [(gt.TritonKernelCall(kernel(ptx), grid, 1, 1,
                                [array(), array(), array(), gt.create_scalar_parameter(N, "i32")]),
            f"config {i}") for i in range(2)]
  raw = gt.TritonAutotunedKernelCall("add_kernel (in place)", calls,
                                     [(0, 0, x.nbytes)]).to_proto("autotuned_alias", b"meta")
  write_case(root, "autotuned_alias", f"jaxlib {VERSION}: autotuned over 2 configs, input 0 "
             "aliased to output 0 (out0 = in0 + in1 once)", raw, [x, y], [x + y],
             aliases=[(0, 0)])

  # Decode only: every scalar kind jaxlib takes.
  scalars = [array(), gt.create_scalar_parameter(-3, "i32"),
             gt.create_scalar_parameter(3000000000, "u32"),
             gt.create_scalar_parameter(-(2**40), "i64"),
             gt.create_scalar_parameter(2**63 + 5, "u64"),
             gt.create_scalar_parameter(0.5, "fp32"), gt.create_scalar_parameter(1e-300, "fp64")]
  raw = gt.TritonKernelCall(kernel(ptx), 1, 2, 3, scalars).to_proto("scalars", b"")
  write_case(root, "scalars", f"jaxlib {VERSION}: decode only: i32 -3, u32 3000000000, i64 -2^40, "
             "u64 2^63+5, f32 0.5, f64 1e-300; grid 1x2x3", raw, [], [])

  if hasattr(gt, "create_tma_descriptor_parameter"):
    tma = gt.create_tma_descriptor_parameter(elem_type=7, swizzle=3, shape=[64, 128],
                                             strides=[128, 1], block_shape=[32, 64], oob_fill=0)
    raw = gt.TritonKernelCall(kernel(ptx), 1, 1, 1, [array(), tma]).to_proto("tma", b"")
    write_case(root, "tma_param", f"jaxlib {VERSION}: decode only: a host-side TMA descriptor "
               "(elem_type 7, swizzle 3, shape [64,128], strides [128,1], block [32,64])", raw, [], [])
  print(f"make.py: jaxlib {VERSION} -> {root}")


if __name__ == "__main__":
  main()
