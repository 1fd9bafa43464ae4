# SPDX-License-Identifier: Apache-2.0
"""What the Python test scripts of test/triton build around the host builds of Triton's
add_kernel (out[i] = x[i] + y[i] for i < n, BLOCK 256, 512 or 1024 per program): a Triton-style
kernel folder (its JSON, its TTIR, the host image as add_kernel.so) and 64-byte aligned float32
arrays, as the kernel's tt.divisibility = 16 pointers need. Imported from the scripts' own folder."""
import json
import os
import shutil

import numpy as np

BLOCKS = (256, 512, 1024)

TTIR = ("module {\n  tt.func public @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, "
        "%y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out_ptr: !tt.ptr<f32> "
        "{tt.divisibility = 16 : i32}, %n: i32) attributes {noinline = false} {\n    tt.return\n  }\n}\n")


def kernel_dir(root, name, host_image, num_warps):
  """A folder `root/name` laid out as Triton's cache entry of add_kernel with a host image."""
  folder = os.path.join(root, name)
  os.makedirs(folder)
  with open(os.path.join(folder, "add_kernel.json"), "w") as f:
    json.dump({"name": "add_kernel", "target": {"backend": "host", "arch": "any", "warp_size": 1},
               "num_warps": num_warps, "num_ctas": 1, "num_stages": 1, "shared": 0}, f)
  with open(os.path.join(folder, "add_kernel.ttir"), "w") as f:
    f.write(TTIR)
  shutil.copy(host_image, os.path.join(folder, "add_kernel.so"))
  return folder


def kernel_dirs(root, host_images):
  """The three variants' folders (v256, v512, v1024) from the three host images."""
  return [kernel_dir(root, f"v{block}", image, 2 << i)
          for i, (block, image) in enumerate(zip(BLOCKS, host_images))]


def aligned(n, dtype=np.float32, offset=0):
  """n elements starting 64-byte aligned (plus `offset` bytes)."""
  item = np.dtype(dtype).itemsize
  raw = np.empty(n * item + 128 + offset, dtype=np.uint8)
  start = (-raw.ctypes.data) % 64 + offset
  return raw[start:start + n * item].view(dtype)
