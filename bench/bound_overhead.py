# SPDX-License-Identifier: Apache-2.0
"""Host CPU cost of one prepared launch (tkrt.triton, native and ctypes paths) without a GPU.

A benchmark, not a test: it prints medians and asserts nothing about time. The host backend
runs the launch path end to end (argument reading in tkrt._native or ctypes, the bound launch's
checks and grid program, the runtime, the core's validation) but with n = 0 the grid program
gives 0 programs, so the core returns just before packing the parameters and calling the HAL:
what is timed is everything a GPU launch does on the host except the pack and the driver call.

usage: TKRT_LIBRARY=build/default/libtkrt.so [TKRT_NATIVE_MODULE=.../_native*.so]
       python3 bench/bound_overhead.py HOST_ADD_1024.so [--iterations N] [--batches B]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import numpy as np  # noqa: E402
import tkrt.triton as tt  # noqa: E402

ADD = ("module {\n  tt.func public @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, "
       "%y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out_ptr: !tt.ptr<f32> "
       "{tt.divisibility = 16 : i32}, %n: i32) attributes {noinline = false} {\n    tt.return\n  }\n}\n")

# 8 pointers and 9 scalars (the 16+-argument case), with a host image built here (cc) that does
# nothing: no program runs anyway (n = 0).
WIDE_PARAMS = ", ".join([f"%p{i}: !tt.ptr<f32> {{tt.divisibility = 16 : i32}}" for i in range(8)] +
                        [f"%s{i}: i32" for i in range(8)] + ["%n: i32"])
WIDE = ("module {\n  tt.func public @add_kernel(" + WIDE_PARAMS +
        ") attributes {noinline = false} {\n    tt.return\n  }\n}\n")


WIDE_SOURCE = ('#include "tkrt/host_kernel.h"\n'
               'TKRT_HOST_KERNEL(add_kernel, "' + ",".join(["*fp32"] * 8 + ["i32"] * 9) +
               '") { (void)program; (void)params; }\n')


def build_wide(root):
  source, image = os.path.join(root, "wide.c"), os.path.join(root, "wide.so")
  with open(source, "w") as f:
    f.write(WIDE_SOURCE)
  subprocess.check_call([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", "-I",
                         os.path.join(HERE, "..", "include"), source, "-o", image])
  return image


def kernel_dir(root, name, ttir, image):
  folder = os.path.join(root, name)
  os.makedirs(folder)
  with open(os.path.join(folder, "add_kernel.json"), "w") as f:
    json.dump({"name": "add_kernel", "target": {"backend": "host", "arch": "any", "warp_size": 1},
               "num_warps": 1, "num_ctas": 1, "num_stages": 1, "shared": 0}, f)
  with open(os.path.join(folder, "add_kernel.ttir"), "w") as f:
    f.write(ttir)
  shutil.copy(image, os.path.join(folder, "add_kernel.so"))
  return folder


def measure(fn, iterations, batches):
  """Median over batches of the mean ns per call in a batch."""
  fn()
  samples = []
  for _ in range(batches):
    t0 = time.perf_counter_ns()
    for _ in range(iterations):
      fn()
    samples.append((time.perf_counter_ns() - t0) / iterations)
  return statistics.median(samples)


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("image")
  ap.add_argument("--iterations", type=int, default=2000)
  ap.add_argument("--batches", type=int, default=21)
  ap.add_argument("--only", default="")
  o = ap.parse_args()
  root = tempfile.mkdtemp()
  try:
    add = tt.load(kernel_dir(root, "add", ADD, o.image), allow_native_code=True)
    wide = tt.load(kernel_dir(root, "wide", WIDE, build_wide(root)), allow_native_code=True)
    dev = tt.device("host")
    x, y, out = (np.zeros(4096, np.float32) for _ in range(3))
    p = add.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device=dev, n=0)
    w = wide.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device=dev, n=0)
    arrays = [np.zeros(64, np.float32) for _ in range(8)]
    scalars = list(range(1, 9))
    cases = {
        "add3 (x, y, out, n=0)": lambda: p(x, y, out, 0),
        "add3 arrays only": lambda: p(x, y, out),
        # One program of 1024 elements runs: the pack, the host backend's enqueue and the
        # kernel too (the per-launch grid's checks are only made for a grid that is not empty).
        "add3 n=1024 (runs, synced)": lambda: (p(x, y, out, 1024), dev.synchronize()),
        "wide 8 ptr + 9 i32": lambda: w(*arrays, *scalars, 0),
    }
    print(f"launch path: {tt.launch_path}")
    for name, fn in cases.items():
      if o.only and o.only not in name:
        continue
      ns = measure(fn, o.iterations, o.batches)
      print(f"{name:28s} {ns:9.1f} ns per launch")
  finally:
    shutil.rmtree(root)


if __name__ == "__main__":
  main()
