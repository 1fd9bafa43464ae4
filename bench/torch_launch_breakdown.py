# SPDX-License-Identifier: Apache-2.0
"""Where the host time of a native tkrt.triton launch from PyTorch goes, on an NVIDIA GPU: the
figures BENCHMARKS.md's issue 25 section explains its misses with. One add kernel
(x, y, out, n; 4096 elements) prepared once; each row times a loop of one operation (median of
15 loops of 20000) in ns:

  empty loop                 the Python loop itself (subtract it from the rows below)
  _native._array(x)          reading one torch tensor the way the launcher does (the DLPack
                             exchange API), plus building the 6-tuple it returns
  x.data_ptr()               PyTorch's own address read, for comparison
  raw stream                 torch._C._cuda_getCurrentRawStream(0)
  launch n=0                 a whole launch whose grid evaluates to 0 programs: every check, the
                             grid program and the core's validation, but no driver call
  launch n=0 stream=0        the same with the stream given (no current-stream query)
  launch n=4096              a real launch (driver call included)

  MODE=torch python3 ...     reads torch tensors through the attribute path (data_ptr(), dtype,
                             device) instead of the exchange API, for comparison

usage: python3 bench/torch_launch_breakdown.py    (PYTHONPATH, TKRT_LIBRARY, TKRT_NATIVE_MODULE as
test/gpu/run_kernels.sh sets them). A benchmark: it asserts nothing.
"""
import os
import statistics
import tempfile
import time

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="tkrt-breakdown-triton-"))
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

import tkrt.triton as tt  # noqa: E402
from tkrt import _arrays  # noqa: E402

if os.environ.get("MODE") == "torch":
  _classify = _arrays.classify_array_type  # noqa: SLF001 -- the comparison needs the other reader

  def _torch_attributes(cls):
    if cls is torch.Tensor:
      reader = _arrays.fast_reader(cls)  # noqa: SLF001
      codes = {getattr(torch, name): (code << 8) | bits
               for name, (code, bits) in _arrays.TORCH_DLPACK.items() if hasattr(torch, name)}  # noqa: SLF001
      return _arrays.READ_TORCH, None, codes, reader._raw_stream, 0  # noqa: SLF001
    return _classify(cls)

  _arrays.classify_array_type = _torch_attributes  # noqa: SLF001


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  m = offs < n
  tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
compiled = triton.compile(
    ASTSource(fn=add_kernel, signature=signature, constexprs={"BLOCK": 1024},
              attrs={(i,): [["tt.divisibility", 16]] for i in range(3)}),
    target=triton.runtime.driver.active.get_current_target(), options={"num_warps": 4})
x, y = torch.randn(4096, device="cuda"), torch.randn(4096, device="cuda")
out = torch.empty_like(x)
launch = tt.load(compiled).prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="cuda")
read = tt._native._array if tt._native is not None else None  # noqa: SLF001
raw = torch._C._cuda_getCurrentRawStream


def timed(fn, count=20000, loops=15):
  samples = []
  for _ in range(loops):
    start = time.perf_counter()
    for _ in range(count):
      fn()
    samples.append((time.perf_counter() - start) / count * 1e9)
    torch.cuda.synchronize()
  return statistics.median(samples)


print(f"launch path {tt.launch_path}, tensors read by {os.environ.get('MODE', 'exchange')}; "
      f"{torch.cuda.get_device_name()}")
rows = {"empty loop": lambda: None,
        "_native._array(x)": (lambda: read(x)) if read else None,
        "x.data_ptr()": lambda: x.data_ptr(),
        "raw stream": lambda: raw(0),
        "launch n=0": lambda: launch(x, y, out, 0),
        "launch n=0 stream=0": lambda: launch(x, y, out, 0, stream=0),
        "launch n=4096": lambda: launch(x, y, out, 4096)}
for name, fn in rows.items():
  print(f"  {name:22s} {'-' if fn is None else f'{timed(fn):8.1f} ns'}")
