# SPDX-License-Identifier: Apache-2.0
"""Per-launch host time of one compiled Triton kernel launched three ways, on an NVIDIA GPU:

  triton  Triton's own launcher, the JIT function's `add_kernel[grid](x, y, out, n, BLOCK=1024)`
  tkrt    tkrt.triton's prepared launch of the same compiled kernel (its cache entry):
          `prepared(x, y, out)` (PyTorch tensors, the current stream)
  raw     the floor for a Python launch: the three data_ptr() values written into a ready
          argument array and cuLaunchKernel called through ctypes on the same cubin

Each measurement times a batch of launches (wall clock of the enqueues only; the GPU work is
tiny and the stream is synchronised between batches, outside the timing) and reports the median
per-launch time over the batches; the three ways are interleaved batch by batch so that clock and
load drift hit them alike. Prints one line per way and a summary line:

  triton_launch: tkrt/triton = 0.45x, tkrt/raw = 0.98x (target tkrt/triton <= 0.5x: met)

usage: python3 bench/triton_launch.py [--batches 60] [--launches 200] [--n 4096] [--require]
Needs Triton (3.6), PyTorch with CUDA, the tkrt package (PYTHONPATH=python and TKRT_XLA_LIBRARY,
or the wheel). --require exits 1 when the target is missed. test/gpu/run_triton.sh runs it.
"""
import argparse
import ctypes
import os
import statistics
import sys
import tempfile
import time

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--batches", type=int, default=60)
parser.add_argument("--launches", type=int, default=200, help="launches per timed batch")
parser.add_argument("--n", type=int, default=4096, help="elements added per launch")
parser.add_argument("--require", action="store_true", help="exit 1 if tkrt/triton > 0.5")
args = parser.parse_args()

if "TRITON_CACHE_DIR" not in os.environ:
  os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="tkrt-bench-triton-")

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import tkrt.triton as tt  # noqa: E402


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
  pid = tl.program_id(0)
  offs = pid * BLOCK + tl.arange(0, BLOCK)
  m = offs < n
  tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


n = args.n
x = torch.randn(n, device="cuda")
y = torch.randn(n, device="cuda")
out = torch.empty_like(x)
grid = (triton.cdiv(n, 1024), 1, 1)
compiled = add_kernel[grid](x, y, out, n, BLOCK=1024)  # compiles (into TRITON_CACHE_DIR)
torch.cuda.synchronize()

# tkrt: the same compiled kernel, from its cache files.
kernel = tt.load(compiled)
prepared = kernel.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="cuda", n=n)
out.zero_()
prepared(x, y, out)
torch.cuda.synchronize()
assert torch.equal(out, x + y), "tkrt's launch computed something else"

# raw: cuLaunchKernel on the cubin Triton wrote, in torch's (primary) context.
cuda = ctypes.CDLL("libcuda.so.1")
module, function = ctypes.c_void_p(), ctypes.c_void_p()
cubin = compiled.asm["cubin"]
assert cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(cubin)) == 0
assert cuda.cuModuleGetFunction(ctypes.byref(function), module, compiled.name.encode()) == 0
values = (ctypes.c_uint64 * 6)()  # x, y, out, n, global scratch, profile scratch
values[3] = n
params = (ctypes.c_void_p * 6)(*[ctypes.addressof(values) + 8 * i for i in range(6)])
launch_kernel = cuda.cuLaunchKernel
launch_kernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 6 + [ctypes.c_uint, ctypes.c_void_p,
                                                                    ctypes.c_void_p, ctypes.c_void_p]
launch_kernel.restype = ctypes.c_int
block = compiled.metadata.num_warps * 32
shared = compiled.metadata.shared
raw_stream = torch._C._cuda_getCurrentRawStream


def raw_launch(x, y, out):
  values[0] = x.data_ptr()
  values[1] = y.data_ptr()
  values[2] = out.data_ptr()
  launch_kernel(function, grid[0], 1, 1, block, 1, 1, shared, raw_stream(x.get_device()), params, None)


out.zero_()
raw_launch(x, y, out)
torch.cuda.synchronize()
assert torch.equal(out, x + y), "the raw launch computed something else"

ways = {
    "triton": lambda: add_kernel[grid](x, y, out, n, BLOCK=1024),
    "tkrt": lambda: prepared(x, y, out),
    "raw": lambda: raw_launch(x, y, out),
}
times = {name: [] for name in ways}
for warm in range(3):
  for fn in ways.values():
    fn()
torch.cuda.synchronize()
launches = args.launches
for batch in range(args.batches):
  for name, fn in ways.items():
    start = time.perf_counter()
    for _ in range(launches):
      fn()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    times[name].append(elapsed / launches * 1e6)

median = {name: statistics.median(t) for name, t in times.items()}
print(f"device: {torch.cuda.get_device_name()}, Triton {triton.__version__}, PyTorch "
      f"{torch.__version__}, {launches} launches x {args.batches} batches, n = {n}")
for name in ways:
  t = sorted(times[name])
  print(f"  {name:7s} {median[name]:7.2f} us per launch (median; p10 {t[len(t) // 10]:.2f}, "
        f"p90 {t[len(t) * 9 // 10]:.2f})")
ratio_triton = median["tkrt"] / median["triton"]
ratio_raw = median["tkrt"] / median["raw"]
met = ratio_triton <= 0.5
print(f"triton_launch: tkrt/triton = {ratio_triton:.2f}x, tkrt/raw = {ratio_raw:.2f}x "
      f"(target tkrt/triton <= 0.5x: {'met' if met else 'NOT met'})")
if args.require and not met:
  sys.exit(1)
