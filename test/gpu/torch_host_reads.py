# SPDX-License-Identifier: Apache-2.0
"""tkrt.triton's PyTorch readers on the host backend, where the NumPy tests cannot reach (issue 25).

tile_copy_kernel (test/triton/desc_tile_host.c, as test/triton/test_python_desc.py builds it) on
CPU tensors: a TensorDescriptor whose base is a torch tensor (the native path reads it sized, not
through data_ptr() alone) copies its tile; one whose shape exceeds its base is refused by the
core's 'tensor inside its buffer' check; a meta tensor (address 0 with elements) as a pointer or
as a descriptor's base is refused naming the argument; nothing refused is enqueued. Runs on the
launch path in use (TKRT_PYTHON_LAUNCH). Prints "TORCH_READS: PASS" (exit 0) or "TORCH_READS:
FAIL" (exit 1).

usage: torch_host_reads.py DESC_HOST.so
"""
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "triton"))

import torch  # noqa: E402

import script_checks  # noqa: E402  (check, expect_raises, the failures)
import test_python_desc as desc  # noqa: E402  (NumPy, tkrt.triton, the kernel)

tt = desc.tt


def main(work):
  folder = os.path.join(work, "tile")
  os.makedirs(folder)
  with open(os.path.join(folder, "tile_copy_kernel.ttir"), "w") as f:
    f.write(desc.TTIR)
  with open(os.path.join(folder, "tile_copy_kernel.json"), "w") as f:
    json.dump(desc.META, f)
  shutil.copy(sys.argv[1], os.path.join(folder, "tile_copy_kernel.so"))
  launch = tt.load(folder, allow_native_code=True).prepare((2, 2), device="host")
  dev = tt.device("host")
  print("launch path", tt.launch_path, "torch", torch.__version__)
  rows, cols, stride = desc.ROWS, desc.COLS, desc.STRIDE
  base = torch.arange((rows - 1) * stride + cols, dtype=torch.float32) + 0.5
  out = torch.full((8, 16), 7.0)
  probe = torch.zeros(10, dtype=torch.int64)
  launch(desc.TensorDescriptor(base, [rows, cols], [stride, 1], [4, 8]), out, probe)
  dev.synchronize()
  tile = base.as_strided((rows, cols), (stride, 1))
  script_checks.check(torch.equal(out[:rows, :cols], tile) and not out[rows:].any(),
             "a descriptor over a torch tensor copies its tile")
  out.fill_(7)
  what = "argument 0 (in_desc: tensordesc<fp32[4, 8]>)"
  script_checks.expect_raises(tt.Error, f"{what}: its shape and strides span",
                     lambda: launch(desc.TensorDescriptor(base, [2 * rows + 8, cols], [stride, 1],
                                                          [4, 8]), out, probe),
                     "a descriptor whose shape exceeds its torch base")
  meta = torch.empty((8, 16), device="meta")
  script_checks.expect_raises(ValueError, "argument 1 (out_ptr: *fp32)",
                     lambda: launch(desc.TensorDescriptor(base, [rows, cols], [stride, 1], [4, 8]),
                                    meta, probe), "a meta tensor as a pointer")
  script_checks.expect_raises(ValueError, what,
                     lambda: launch(desc.TensorDescriptor(torch.empty(200, device="meta"),
                                                          [rows, cols], [stride, 1], [4, 8]),
                                    out, probe), "a meta tensor as a descriptor's base")
  dev.synchronize()
  script_checks.check(bool((out == 7).all()), "refused launches enqueued nothing")


with tempfile.TemporaryDirectory() as work:
  main(work)
print("TORCH_READS:", "FAIL" if script_checks.failures else "PASS")
sys.exit(1 if script_checks.failures else 0)
