# SPDX-License-Identifier: Apache-2.0
"""Host time per launch of Triton kernels from PyTorch, every way issue 25 compares, in one
process, on an NVIDIA GPU. Three kernels:

  add3   add_kernel(x_ptr, y_ptr, out_ptr, n): 3 arrays and a scalar, 4096 elements
  wide17 wide_kernel(p0..p6, out_ptr, s0..s7, n): 8 arrays and 9 scalars (17 arguments)
  desc   desc_scale_kernel(in_desc, out_desc, M, N): two host tensor descriptors (TMA), 256x256
         fp16, against plain_scale_kernel(in_ptr, out_ptr, M, N), the same work through pointers

and the ways (rows "<kernel>/<way>"):

  triton          Triton's JIT launcher, kernel[grid](...)
  static          PyTorch Inductor's StaticallyLaunchedCudaKernel.run on the ahead-compiled cubin
                  (skipped, with the reason, where this PyTorch's class cannot run the kernel)
  native          tkrt.triton's prepared launch, native extension (launch_path "native"),
                  every argument given: prepared(x, y, out, n)
  ctypes          the same prepared launch through its ctypes path (PreparedLaunch._launch_ctypes,
                  what a call runs where the extension is not built)
  c_floor         a C loop of cuLaunchKernel on the same function and arguments (compiled here with
                  cc): the driver's floor; for the descriptor kernel with two CUtensorMaps encoded
                  once before the loop
  *_changing      the same with the scalar n taking 8 values in turn (add3: triton, static,
                  native, ctypes)

Kernels launched by tkrt and the static launcher are compiled once ahead (pointers divisible by
16, n not specialised, so that any n is valid); Triton's JIT rows use its own variants. Each
measurement times a batch of launches (wall clock of the enqueues; the stream is synchronised
between batches, outside the timing); the ways of one kernel are interleaved batch by batch;
medians with p10 and p90 per launch. Then issue 25's targets, each marked met or missed:

  native <= 1.25x c_floor (add3, wide17)     native <= 0.6x static (add3, wide17)
  native_changing <= 1.1x native (add3)      desc/native <= 1.1x plain/native

usage: python3 bench/torch_launch.py [--batches 60] [--launches 200] [--json PATH]
Needs PyTorch with CUDA, Triton 3.6 and tkrt.triton with its native extension (PYTHONPATH and
TKRT_LIBRARY as test/gpu/run_kernels.sh sets them). A benchmark, never a test: nothing here fails
on a miss; a way that cannot run is reported as skipped with the reason.
"""
import argparse
import ctypes
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--batches", type=int, default=60)
parser.add_argument("--launches", type=int, default=200, help="launches per timed batch")
parser.add_argument("--json", help="write the results as JSON (bench/charts.py draws them)")
args = parser.parse_args()

if "TRITON_CACHE_DIR" not in os.environ:
  os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="tkrt-bench-torch-triton-")

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402
from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

import tkrt.triton as tt  # noqa: E402

N = 4096
BLOCK = 1024
CHANGING = [N - i for i in range(8)]  # 8 values of n, all within the 4096-element arrays
device = torch.cuda.current_device()
raw_stream = torch._C._cuda_getCurrentRawStream
target = triton.runtime.driver.active.get_current_target()
skipped = {}  # row -> why
groups = {}   # kernel -> {way: callable launching once}
c_loops = {}  # kernel -> callable(count)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  m = offs < n
  tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def wide_kernel(p0, p1, p2, p3, p4, p5, p6, out_ptr, s0, s1, s2, s3, s4, s5, s6, s7, n,
                BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  m = offs < n
  acc = tl.load(p0 + offs, mask=m) + tl.load(p1 + offs, mask=m) + tl.load(p2 + offs, mask=m)
  acc += tl.load(p3 + offs, mask=m) + tl.load(p4 + offs, mask=m) + tl.load(p5 + offs, mask=m)
  acc += tl.load(p6 + offs, mask=m)
  acc += (s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7).to(tl.float32)
  tl.store(out_ptr + offs, acc, mask=m)


@triton.jit
def desc_scale_kernel(in_desc, out_desc, M, N, BM: tl.constexpr, BN: tl.constexpr):
  pm = tl.program_id(0)
  pn = tl.program_id(1)
  out_desc.store([pm * BM, pn * BN], in_desc.load([pm * BM, pn * BN]) * 2)


@triton.jit
def plain_scale_kernel(in_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
  rm = tl.program_id(0) * BM + tl.arange(0, BM)
  rn = tl.program_id(1) * BN + tl.arange(0, BN)
  offs = rm[:, None] * N + rn[None, :]
  tl.store(out_ptr + offs, tl.load(in_ptr + offs) * 2)


def verify(label, launch, out, want):
  out.fill_(float("nan"))
  launch()
  torch.cuda.synchronize()
  if not torch.equal(out, want):
    raise RuntimeError(f"torch_launch: {label} computed something else")


def ahead(fn, signature, constexprs, pointer_count):
  """The cubin every non-JIT row launches: pointers divisible by 16, scalars not specialised."""
  return triton.compile(ASTSource(fn=fn, signature=signature, constexprs=constexprs,
                                  attrs={(i,): [["tt.divisibility", 16]] for i in range(pointer_count)}),
                        target=target, options={"num_warps": 4})


def prepared_on(path, kernel, grid, constants, **scalars):
  """A launcher of one tkrt prepared launch on `path`: "native" calls the prepared launch (the
  extension's vectorcall); "ctypes" calls its ctypes path (PreparedLaunch._launch_ctypes, what the
  call runs when tkrt._native is not there), so both are measured in this process."""
  if tt.launch_path != "native":
    raise RuntimeError(f"tkrt.triton's launch path is {tt.launch_path} ({tt.launch_path_reason})")
  p = kernel.prepare(grid, constants=constants, device="cuda", **scalars)
  if path == "native":
    return p
  launch_ctypes = p._launch_ctypes  # noqa: SLF001 -- the fallback path, measured beside native
  return lambda *a: launch_ctypes(a, None)


def static_launcher(compiled):
  import inspect
  from torch._inductor.runtime.static_triton_launcher import StaticallyLaunchedCudaKernel
  cubins = [p for name, p in getattr(compiled, "metadata_group", {}).items() if name.endswith(".cubin")]
  if not cubins:
    raise RuntimeError("the CompiledKernel's metadata_group names no .cubin")
  compiled._cubin_path = cubins[0]
  static = StaticallyLaunchedCudaKernel(compiled)
  static.load_kernel(device)
  if list(inspect.signature(static.run).parameters)[:4] != ["grid_x", "grid_y", "grid_z", "stream"]:
    raise RuntimeError("run() does not take (grid_x, grid_y, grid_z, stream, *args)")
  return static.run


C_LOOP = r"""
typedef int (*launch_t)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, void*, void**, void**);
int launch_loop(void* launch, void* function, unsigned gx, unsigned gy, unsigned block_x,
                unsigned shared, void* stream, void** params, int count) {
  launch_t f = (launch_t)launch;
  for (int i = 0; i < count; ++i) {
    int status = f(function, gx, gy, 1, block_x, 1, 1, shared, stream, params, 0);
    if (status) return status;
  }
  return 0;
}
"""
cuda = ctypes.CDLL("libcuda.so.1")
launch_kernel = cuda.cuLaunchKernel
c_dir = tempfile.mkdtemp(prefix="tkrt-bench-torch-c-")
compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
loop = None
if compiler:
  with open(os.path.join(c_dir, "loop.c"), "w") as f:
    f.write(C_LOOP)
  subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-o", os.path.join(c_dir, "loop.so"),
                  os.path.join(c_dir, "loop.c")], check=True)
  loop = ctypes.CDLL(os.path.join(c_dir, "loop.so")).launch_loop
  loop.argtypes = [ctypes.c_void_p] * 2 + [ctypes.c_uint] * 4 + [ctypes.c_void_p] * 2 + [ctypes.c_int]
  loop.restype = ctypes.c_int


def c_floor(compiled, grid, values, out, want, label):
  """A C loop of cuLaunchKernel on `compiled`'s cubin with 8-byte argument slots `values`."""
  if loop is None:
    raise RuntimeError("no C compiler (cc, gcc, or $CC)")
  module, function = ctypes.c_void_p(), ctypes.c_void_p()
  assert cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(compiled.asm["cubin"])) == 0
  assert cuda.cuModuleGetFunction(ctypes.byref(function), module, compiled.name.encode()) == 0
  slots = (ctypes.c_uint64 * (len(values) + 2))(*values, 0, 0)  # + global and profile scratch
  params = (ctypes.c_void_p * len(slots))(*[ctypes.addressof(slots) + 8 * i for i in range(len(slots))])
  keep = (module, function, slots, params)
  address = ctypes.cast(launch_kernel, ctypes.c_void_p).value
  threads, shared = compiled.metadata.num_warps * 32, compiled.metadata.shared

  def batch(count):
    status = loop(address, keep[1], grid[0], grid[1], threads, shared, raw_stream(device),
                  ctypes.addressof(keep[3]), count)
    if status:
      raise RuntimeError(f"cuLaunchKernel returned {status}")

  verify(label, lambda: batch(1), out, want)
  return batch


def add_way(group, name, fn, out=None, want=None):
  try:
    if out is not None:
      verify(f"{group}/{name}", fn, out, want)
    groups.setdefault(group, {})[name] = fn
  except Exception as e:  # noqa: BLE001 -- the row is skipped and says why
    skipped[f"{group}/{name}"] = f"{type(e).__name__}: {e}".splitlines()[0]
    print(f"torch_launch: {group}/{name} skipped: {skipped[f'{group}/{name}']}", flush=True)


state = {"i": 0}


def next_n():
  state["i"] = (state["i"] + 1) & 7
  return CHANGING[state["i"]]


# ---------------------------------------------------------------- add3
x, y = torch.randn(N, device="cuda"), torch.randn(N, device="cuda")
out = torch.empty_like(x)
want = x + y
g = (triton.cdiv(N, BLOCK), 1, 1)
add_way("add3", "triton", lambda: add_kernel[g](x, y, out, N, BLOCK=BLOCK), out, want)
for v in CHANGING:
  add_kernel[g](x, y, out, v, BLOCK=BLOCK)
add_way("add3", "triton_changing", lambda: add_kernel[g](x, y, out, next_n(), BLOCK=BLOCK))
add_c = ahead(add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
                           "BLOCK": "constexpr"}, {"BLOCK": BLOCK}, 3)
try:
  run = static_launcher(add_c)
  add_way("add3", "static", lambda: run(g[0], 1, 1, raw_stream(device), x, y, out, N), out, want)
  add_way("add3", "static_changing", lambda: run(g[0], 1, 1, raw_stream(device), x, y, out, next_n()))
except Exception as e:  # noqa: BLE001
  skipped["add3/static"] = skipped["add3/static_changing"] = f"{type(e).__name__}: {e}".splitlines()[0]
add_k = tt.load(add_c)
for path in ("native", "ctypes"):
  try:
    p = prepared_on(path, add_k, "cdiv(n, BLOCK)", {"BLOCK": BLOCK}, n=N)
    add_way("add3", path, lambda p=p: p(x, y, out, N), out, want)
    add_way("add3", f"{path}_changing", lambda p=p: p(x, y, out, next_n()))
  except Exception as e:  # noqa: BLE001
    skipped[f"add3/{path}"] = skipped[f"add3/{path}_changing"] = f"{type(e).__name__}: {e}".splitlines()[0]
try:
  c_loops["add3"] = c_floor(add_c, g, [x.data_ptr(), y.data_ptr(), out.data_ptr(), N], out, want,
                            "add3/c_floor")
except Exception as e:  # noqa: BLE001
  skipped["add3/c_floor"] = f"{type(e).__name__}: {e}".splitlines()[0]

# ---------------------------------------------------------------- wide17
ps = [torch.randn(N, device="cuda") for _ in range(7)]
wout = torch.empty_like(x)
ss = list(range(1, 9))
# In the kernel's order of additions, so that the comparison is exact.
wwant = ((ps[0] + ps[1]) + ps[2]) + ((ps[3] + ps[4]) + ps[5])
wwant = (wwant + ps[6]) + float(sum(ss))
wide_args = (*ps, wout, *ss, N)
add_way("wide17", "triton", lambda: wide_kernel[g](*wide_args, BLOCK=BLOCK), wout, wwant)
wide_sig = {**{f"p{i}": "*fp32" for i in range(7)}, "out_ptr": "*fp32",
            **{f"s{i}": "i32" for i in range(8)}, "n": "i32", "BLOCK": "constexpr"}
wide_c = ahead(wide_kernel, wide_sig, {"BLOCK": BLOCK}, 8)
try:
  wrun = static_launcher(wide_c)
  add_way("wide17", "static", lambda: wrun(g[0], 1, 1, raw_stream(device), *wide_args), wout, wwant)
except Exception as e:  # noqa: BLE001
  skipped["wide17/static"] = f"{type(e).__name__}: {e}".splitlines()[0]
wide_k = tt.load(wide_c)
for path in ("native", "ctypes"):
  try:
    p = prepared_on(path, wide_k, "cdiv(n, BLOCK)", {"BLOCK": BLOCK}, n=N)
    add_way("wide17", path, lambda p=p: p(*wide_args), wout, wwant)
  except Exception as e:  # noqa: BLE001
    skipped[f"wide17/{path}"] = f"{type(e).__name__}: {e}".splitlines()[0]
try:
  c_loops["wide17"] = c_floor(wide_c, g, [t.data_ptr() for t in ps] + [wout.data_ptr()] + ss + [N],
                              wout, wwant, "wide17/c_floor")
except Exception as e:  # noqa: BLE001
  skipped["wide17/c_floor"] = f"{type(e).__name__}: {e}".splitlines()[0]

# ---------------------------------------------------------------- desc against plain
S, B = 256, 64
src = torch.randn(S, S, device="cuda", dtype=torch.float16)
dout, pout = torch.empty_like(src), torch.empty_like(src)
dwant = src * 2
in_d, out_d = TensorDescriptor.from_tensor(src, [B, B]), TensorDescriptor.from_tensor(dout, [B, B])
g2 = (S // B, S // B, 1)
desc_c = desc_scale_kernel[g2](in_d, out_d, S, S, BM=B, BN=B)
add_way("desc", "triton", lambda: desc_scale_kernel[g2](in_d, out_d, S, S, BM=B, BN=B), dout, dwant)
plain_c = plain_scale_kernel[g2](src, pout, S, S, BM=B, BN=B)
add_way("plain", "triton", lambda: plain_scale_kernel[g2](src, pout, S, S, BM=B, BN=B), pout, dwant)
try:
  prun = static_launcher(plain_c)
  add_way("plain", "static", lambda: prun(g2[0], g2[1], 1, raw_stream(device), src, pout, S, S), pout, dwant)
except Exception as e:  # noqa: BLE001
  skipped["plain/static"] = f"{type(e).__name__}: {e}".splitlines()[0]
try:
  drun = static_launcher(desc_c)
  add_way("desc", "static", lambda: drun(g2[0], g2[1], 1, raw_stream(device), in_d, out_d, S, S), dout, dwant)
except Exception as e:  # noqa: BLE001
  skipped["desc/static"] = f"{type(e).__name__}: {e}".splitlines()[0]
desc_k, plain_k = tt.load(desc_c), tt.load(plain_c)
for path in ("native", "ctypes"):
  for group, kern, a, o in (("desc", desc_k, (in_d, out_d, S, S), dout),
                            ("plain", plain_k, (src, pout, S, S), pout)):
    try:
      p = prepared_on(path, kern, "cdiv(M, BM), cdiv(N, BN)", {"BM": B, "BN": B})
      add_way(group, path, lambda p=p, a=a: p(*a), o, dwant)
    except Exception as e:  # noqa: BLE001
      skipped[f"{group}/{path}"] = f"{type(e).__name__}: {e}".splitlines()[0]
try:
  c_loops["plain"] = c_floor(plain_c, g2, [src.data_ptr(), pout.data_ptr(), S, S], pout, dwant,
                             "plain/c_floor")
except Exception as e:  # noqa: BLE001
  skipped["plain/c_floor"] = f"{type(e).__name__}: {e}".splitlines()[0]


def encode_tensor_map(t, box):
  """A CUtensorMap for a 2-D fp16 tensor, as Triton's launcher encodes one (128B swizzle)."""
  tmap = (ctypes.c_uint8 * 128)()
  dims = (ctypes.c_uint64 * 2)(t.shape[1], t.shape[0])  # innermost first
  strides = (ctypes.c_uint64 * 1)(t.stride(0) * t.element_size())
  boxes = (ctypes.c_uint32 * 2)(box[1], box[0])
  ones = (ctypes.c_uint32 * 2)(1, 1)
  f = cuda.cuTensorMapEncodeTiled
  f.restype = ctypes.c_int
  status = f(tmap, 6, 2, ctypes.c_void_p(t.data_ptr()), dims, strides, boxes, ones, 0, 3, 2, 0)
  if status:
    raise RuntimeError(f"cuTensorMapEncodeTiled returned {status}")
  return tmap


try:
  # desc_scale_kernel's launch ABI: per descriptor its CUtensorMap (by value), shape as i32, strides
  # as i64; then M, N, and the two scratch pointers. The maps are encoded once, outside the loop.
  if loop is None:
    raise RuntimeError("no C compiler (cc, gcc, or $CC)")
  maps = [encode_tensor_map(src, [B, B]), encode_tensor_map(dout, [B, B])]
  dmodule, dfunction = ctypes.c_void_p(), ctypes.c_void_p()
  assert cuda.cuModuleLoadData(ctypes.byref(dmodule), ctypes.c_char_p(desc_c.asm["cubin"])) == 0
  assert cuda.cuModuleGetFunction(ctypes.byref(dfunction), dmodule, desc_c.name.encode()) == 0
  i32 = [ctypes.c_int32(S) for _ in range(6)]  # 2 shapes per descriptor, then M, N
  i64 = [ctypes.c_int64(v) for v in (S, 1, S, 1)]
  scratch = (ctypes.c_uint64 * 2)()
  slots = [ctypes.addressof(maps[0]), ctypes.addressof(i32[0]), ctypes.addressof(i32[1]),
           ctypes.addressof(i64[0]), ctypes.addressof(i64[1]), ctypes.addressof(maps[1]),
           ctypes.addressof(i32[2]), ctypes.addressof(i32[3]), ctypes.addressof(i64[2]),
           ctypes.addressof(i64[3]), ctypes.addressof(i32[4]), ctypes.addressof(i32[5]),
           ctypes.addressof(scratch), ctypes.addressof(scratch) + 8]
  dparams = (ctypes.c_void_p * len(slots))(*slots)
  dkeep = (dmodule, dfunction, maps, i32, i64, scratch, dparams)
  daddress = ctypes.cast(launch_kernel, ctypes.c_void_p).value

  def desc_batch(count):
    status = loop(daddress, dkeep[1], g2[0], g2[1], desc_c.metadata.num_warps * 32,
                  desc_c.metadata.shared, raw_stream(device), ctypes.addressof(dkeep[6]), count)
    if status:
      raise RuntimeError(f"cuLaunchKernel returned {status}")

  verify("desc/c_floor", lambda: desc_batch(1), dout, dwant)
  c_loops["desc"] = desc_batch
except Exception as e:  # noqa: BLE001
  skipped["desc/c_floor"] = f"{type(e).__name__}: {e}".splitlines()[0]
shutil.rmtree(c_dir, ignore_errors=True)

# ---------------------------------------------------------------- timing
launches = args.launches
times = {}
for group, ways in groups.items():
  entries = list(ways.items())
  if group in c_loops:
    entries.append(("c_floor", None))
  for _ in range(3):  # warm-up
    for name, fn in entries:
      if fn is None:
        c_loops[group](launches)
      else:
        fn()
  torch.cuda.synchronize()
  for _ in range(args.batches):
    for name, fn in entries:
      start = time.perf_counter()
      if fn is None:
        c_loops[group](launches)
      else:
        for _ in range(launches):
          fn()
      elapsed = time.perf_counter() - start
      torch.cuda.synchronize()
      times.setdefault(f"{group}/{name}", []).append(elapsed / launches * 1e6)

median = {name: statistics.median(t) for name, t in times.items()}
WAYS = ["triton", "triton_changing", "static", "static_changing", "native", "native_changing",
        "ctypes", "ctypes_changing", "c_floor"]
rows = []
print(f"device: {torch.cuda.get_device_name()}, Triton {triton.__version__}, PyTorch "
      f"{torch.__version__}, {launches} launches x {args.batches} batches")
print(f"  {'row':22s} {'us/launch':>9s} {'p10':>7s} {'p90':>7s}")
for group in ("add3", "wide17", "plain", "desc"):
  for way in WAYS:
    row = f"{group}/{way}"
    if row in times:
      t = sorted(times[row])
      rows.append({"way": row, "label": row, "median_us": median[row], "p10_us": t[len(t) // 10],
                   "p90_us": t[len(t) * 9 // 10]})
      print(f"  {row:22s} {median[row]:9.2f} {t[len(t) // 10]:7.2f} {t[len(t) * 9 // 10]:7.2f}")
    elif row in skipped:
      rows.append({"way": row, "label": row, "skipped": skipped[row]})
      print(f"  {row:22s} {'-':>9s}  skipped: {skipped[row]}")


def ratio(a, b):
  return median[a] / median[b] if a in median and b in median else None


targets = []
for name, a, b, limit in (("add3: native <= 1.25x C floor", "add3/native", "add3/c_floor", 1.25),
                          ("wide17: native <= 1.25x C floor", "wide17/native", "wide17/c_floor", 1.25),
                          ("add3: native <= 0.6x static launcher", "add3/native", "add3/static", 0.6),
                          ("wide17: native <= 0.6x static launcher", "wide17/native", "wide17/static", 0.6),
                          ("add3: changing n <= 1.1x fixed (native)", "add3/native_changing", "add3/native", 1.1),
                          ("add3: changing n <= 1.1x fixed (ctypes)", "add3/ctypes_changing", "add3/ctypes", 1.1),
                          ("descriptor kernel <= 1.1x plain (native)", "desc/native", "plain/native", 1.1),
                          ("(driver: descriptor floor / plain floor)", "desc/c_floor", "plain/c_floor", None)):
  r = ratio(a, b)
  targets.append({"target": name, "limit": limit, "ratio": r,
                  "status": "not measured" if r is None else "reference" if limit is None
                  else ("met" if r <= limit else "missed")})
print("targets (issue 25):")
for t in targets:
  shown = "n/a" if t["ratio"] is None else f"{t['ratio']:.2f}x"
  print(f"  {t['target']:44s} {shown:>7s}  {t['status'].upper()}")
print("torch_launch: " + ", ".join(f"{t['target'].split(':')[0]} {t['status']}" for t in targets[:1]))

if args.json:
  with open(args.json, "w") as fh:
    json.dump({"bench": "torch_launch", "commit": os.environ.get("TKRT_BENCH_COMMIT"),
               "time_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S"),
               "device": {"name": torch.cuda.get_device_name()}, "torch": torch.__version__,
               "triton": triton.__version__, "n": N, "batches": args.batches, "launches": launches,
               "changing_values": CHANGING, "rows": rows, "targets": targets}, fh, indent=1)
  print(f"torch_launch: wrote {args.json}")
