# SPDX-License-Identifier: Apache-2.0
"""Host time per launch of one 4096-element add kernel (x_ptr, y_ptr, out_ptr, n) from PyTorch,
launched every way issue 25 compares, in one process, on an NVIDIA GPU:

  triton           Triton's JIT launcher, add_kernel[grid](x, y, out, n, BLOCK=1024)
  triton_changing  the same with n taking 8 values in turn
  static           PyTorch Inductor's static launcher on the ahead-compiled cubin:
                   torch._inductor.runtime.static_triton_launcher.StaticallyLaunchedCudaKernel
                   (constructed from the CompiledKernel with its _cubin_path, load_kernel(device),
                   run(grid_x, grid_y, grid_z, stream, x, y, out, n)); skipped, with the reason,
                   when this PyTorch's class cannot be built or run that way
  static_changing  the same with n taking 8 values in turn
  tkrt             tkrt.triton's prepared launch (the ctypes path), fixed scalars: prepared(x, y, out)
  tkrt_changing    tkrt.triton with n taking 8 values in turn: today scalars are bound at prepare,
                   so each launch is kernel.prepare(..., n=v) (a lookup in prepare's cache) and
                   the prepared launch
  raw              cuLaunchKernel through ctypes with the three data_ptr() values (the floor for
                   a launch made from Python)
  c_floor          a C loop of cuLaunchKernel on the same function and arguments (compiled here
                   with cc; skipped when there is none): the driver's floor

The Triton JIT rows use the JIT function's own compiled variants; every other row launches one
cubin compiled ahead with triton.compile (pointers tt.divisibility 16, n not specialised, so that
any n is valid). Each measurement times a batch of launches (wall clock of the enqueues; the stream
is synchronised between batches, outside the timing), the ways interleaved batch by batch, and
reports the median, p10 and p90 per launch over the batches. Then the issue's targets:

  tkrt native <= 1.25x c_floor         native path not built yet (ctypes ratio shown)
  tkrt native <= 0.6x static           native path not built yet (ctypes ratio shown)
  changing scalars <= 1.1x fixed       measured on the ctypes path (tkrt_changing / tkrt)

usage: python3 bench/torch_launch.py [--batches 60] [--launches 200] [--json PATH]
Needs PyTorch with CUDA, Triton (3.6) and tkrt.triton (PYTHONPATH=python, TKRT_LIBRARY=
build/.../libtkrt.so.0, or the wheel). A benchmark, never a test: nothing here fails on a miss.
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

import tkrt.triton as tt  # noqa: E402

N = 4096
BLOCK = 1024
CHANGING = [N - i for i in range(8)]  # 8 values of n, all within the 4096-element arrays


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
  pid = tl.program_id(0)
  offs = pid * BLOCK + tl.arange(0, BLOCK)
  m = offs < n
  tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


device = torch.cuda.current_device()
x = torch.randn(N, device="cuda")
y = torch.randn(N, device="cuda")
out = torch.empty_like(x)
grid = (triton.cdiv(N, BLOCK), 1, 1)
raw_stream = torch._C._cuda_getCurrentRawStream
skipped = {}  # way -> why


def verify(label, launch, n=N):
  """Runs `launch` once on a cleared output and requires out[:n] == x + y bit for bit."""
  out.fill_(float("nan"))
  launch()
  torch.cuda.synchronize()
  if not torch.equal(out[:n], (x + y)[:n]):
    raise RuntimeError(f"torch_launch: {label} computed something else for n = {n}")


# The ahead-compiled cubin every non-JIT row launches.
SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
             "BLOCK": "constexpr"}
target = triton.runtime.driver.active.get_current_target()
try:
  compiled = triton.compile(
      ASTSource(fn=add_kernel, signature=SIGNATURE, constexprs={"BLOCK": BLOCK},
                attrs={(i,): [["tt.divisibility", 16]] for i in range(3)}),
      target=target, options={"num_warps": 4})
except Exception as e:  # noqa: BLE001 -- a Triton that takes attrs otherwise: no specialisation
  print(f"torch_launch: compiling with pointer divisibility failed ({type(e).__name__}: {e}); "
        f"compiled without it", flush=True)
  compiled = triton.compile(ASTSource(fn=add_kernel, signature=SIGNATURE,
                                      constexprs={"BLOCK": BLOCK}),
                            target=target, options={"num_warps": 4})
block_threads = compiled.metadata.num_warps * 32
shared = compiled.metadata.shared

# ---------------------------------------------------------------- Triton's launcher
ways = {"triton": lambda: add_kernel[grid](x, y, out, N, BLOCK=BLOCK)}
verify("triton", ways["triton"])
changing_state = {"i": 0}


def triton_changing():
  i = changing_state["i"] = (changing_state["i"] + 1) & 7
  add_kernel[grid](x, y, out, CHANGING[i], BLOCK=BLOCK)


for value in CHANGING:  # compiles the variants Triton specialises for these values
  verify(f"triton n={value}", lambda: add_kernel[grid](x, y, out, value, BLOCK=BLOCK), value)
ways["triton_changing"] = triton_changing

# ---------------------------------------------------------------- Inductor's static launcher
static = None
try:
  import inspect
  from torch._inductor.runtime.static_triton_launcher import StaticallyLaunchedCudaKernel
  cubins = [p for name, p in getattr(compiled, "metadata_group", {}).items()
            if name.endswith(".cubin")]
  if not cubins:
    raise RuntimeError("the CompiledKernel's metadata_group names no .cubin")
  compiled._cubin_path = cubins[0]
  static = StaticallyLaunchedCudaKernel(compiled)
  static.load_kernel(device)
  run_params = list(inspect.signature(static.run).parameters)
  if run_params[:4] != ["grid_x", "grid_y", "grid_z", "stream"]:
    raise RuntimeError(f"run() takes ({', '.join(run_params)}), not (grid_x, grid_y, grid_z, "
                       f"stream, *args)")
  static_run = static.run
  gx = grid[0]
  ways["static"] = lambda: static_run(gx, 1, 1, raw_stream(device), x, y, out, N)
  verify("static", ways["static"])

  def static_changing():
    i = changing_state["i"] = (changing_state["i"] + 1) & 7
    static_run(gx, 1, 1, raw_stream(device), x, y, out, CHANGING[i])

  for value in CHANGING:
    verify(f"static n={value}", lambda: static_run(gx, 1, 1, raw_stream(device), x, y, out, value),
           value)
  ways["static_changing"] = static_changing
except Exception as e:  # noqa: BLE001 -- any failure: the row is skipped and says why
  ways.pop("static", None)
  reason = f"{type(e).__name__}: {e}".splitlines()[0]
  skipped["static"] = skipped["static_changing"] = reason
  print(f"torch_launch: static launcher skipped: {reason}", flush=True)

# ---------------------------------------------------------------- tkrt.triton (ctypes)
kernel = tt.load(compiled)
prepared = kernel.prepare("cdiv(n, BLOCK)", constants={"BLOCK": BLOCK}, device="cuda", n=N)
ways["tkrt"] = lambda: prepared(x, y, out)
verify("tkrt", ways["tkrt"])
prepare = kernel.prepare
constants = {"BLOCK": BLOCK}


def tkrt_changing():
  i = changing_state["i"] = (changing_state["i"] + 1) & 7
  prepare("cdiv(n, BLOCK)", constants=constants, device="cuda", n=CHANGING[i])(x, y, out)


for value in CHANGING:  # prepares (and checks) one launch per value, as the timed loop finds them
  verify(f"tkrt n={value}", lambda: prepare("cdiv(n, BLOCK)", constants=constants, device="cuda",
                                            n=value)(x, y, out), value)
ways["tkrt_changing"] = tkrt_changing

# ---------------------------------------------------------------- raw cuLaunchKernel (ctypes)
cuda = ctypes.CDLL("libcuda.so.1")
module, function = ctypes.c_void_p(), ctypes.c_void_p()
assert cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(compiled.asm["cubin"])) == 0
assert cuda.cuModuleGetFunction(ctypes.byref(function), module, compiled.name.encode()) == 0
values = (ctypes.c_uint64 * 6)()  # x, y, out, n, global scratch, profile scratch (both null)
values[3] = N
params = (ctypes.c_void_p * 6)(*[ctypes.addressof(values) + 8 * i for i in range(6)])
launch_kernel = cuda.cuLaunchKernel
launch_kernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
launch_kernel.restype = ctypes.c_int


def raw_launch():
  values[0] = x.data_ptr()
  values[1] = y.data_ptr()
  values[2] = out.data_ptr()
  launch_kernel(function, grid[0], 1, 1, block_threads, 1, 1, shared, raw_stream(device), params,
                None)


ways["raw"] = raw_launch
verify("raw", raw_launch)

# ---------------------------------------------------------------- C loop of cuLaunchKernel
C_LOOP = r"""
#include <stdint.h>
typedef int (*launch_t)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, void*, void**, void**);
int launch_loop(void* launch, void* function, unsigned grid_x, unsigned block_x, unsigned shared,
                void* stream, void** params, int count) {
  launch_t f = (launch_t)launch;
  for (int i = 0; i < count; ++i) {
    int status = f(function, grid_x, 1, 1, block_x, 1, 1, shared, stream, params, 0);
    if (status) return status;
  }
  return 0;
}
"""
c_dir = tempfile.mkdtemp(prefix="tkrt-bench-torch-c-")
try:
  compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
  if not compiler:
    raise RuntimeError("no C compiler (cc, gcc, or $CC)")
  c_path, so_path = os.path.join(c_dir, "loop.c"), os.path.join(c_dir, "loop.so")
  with open(c_path, "w") as f:
    f.write(C_LOOP)
  subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-o", so_path, c_path], check=True,
                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
  loop_lib = ctypes.CDLL(so_path)
  loop = loop_lib.launch_loop
  loop.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
                   ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
  loop.restype = ctypes.c_int
  launch_address = ctypes.cast(launch_kernel, ctypes.c_void_p).value
  c_values = (ctypes.c_uint64 * 6)(x.data_ptr(), y.data_ptr(), out.data_ptr(), N, 0, 0)
  c_params = (ctypes.c_void_p * 6)(*[ctypes.addressof(c_values) + 8 * i for i in range(6)])
  c_params_address = ctypes.addressof(c_params)

  def c_batch(count):
    status = loop(launch_address, function, grid[0], block_threads, shared, raw_stream(device),
                  c_params_address, count)
    if status:
      raise RuntimeError(f"cuLaunchKernel returned {status}")

  verify("c_floor", lambda: c_batch(1))
except Exception as e:  # noqa: BLE001 -- the row is optional
  c_batch = None
  reason = f"{type(e).__name__}: {e}".splitlines()[0]
  skipped["c_floor"] = reason
  print(f"torch_launch: C floor skipped: {reason}", flush=True)
finally:
  shutil.rmtree(c_dir, ignore_errors=True)  # the library stays mapped once loaded

LABELS = {
    "triton": "Triton's JIT launcher kernel[grid](...)",
    "triton_changing": "Triton's JIT launcher, n in 8 values",
    "static": "Inductor StaticallyLaunchedCudaKernel.run",
    "static_changing": "Inductor static launcher, n in 8 values",
    "tkrt": "tkrt.triton prepared launch (ctypes), fixed scalars",
    "tkrt_changing": "tkrt.triton (ctypes), n in 8 values (prepare() per launch)",
    "raw": "ctypes cuLaunchKernel on the same cubin",
    "c_floor": "C loop of cuLaunchKernel (the floor)",
}
ORDER = list(LABELS)

# ---------------------------------------------------------------- timing
launches = args.launches
times = {name: [] for name in ways}
if c_batch is not None:
  times["c_floor"] = []
for _ in range(3):  # warm-up
  for fn in ways.values():
    fn()
  if c_batch is not None:
    c_batch(launches)
torch.cuda.synchronize()
for batch in range(args.batches):
  for name, fn in ways.items():
    start = time.perf_counter()
    for _ in range(launches):
      fn()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    times[name].append(elapsed / launches * 1e6)
  if c_batch is not None:
    start = time.perf_counter()
    c_batch(launches)
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    times["c_floor"].append(elapsed / launches * 1e6)

median = {name: statistics.median(t) for name, t in times.items()}
rows = []
print(f"device: {torch.cuda.get_device_name()}, Triton {triton.__version__}, PyTorch "
      f"{torch.__version__}, {launches} launches x {args.batches} batches, n = {N}")
print(f"  {'way':16s} {'us/launch':>9s} {'p10':>7s} {'p90':>7s}  what")
for name in ORDER:
  if name in times:
    t = sorted(times[name])
    p10, p90 = t[len(t) // 10], t[len(t) * 9 // 10]
    rows.append({"way": name, "label": LABELS[name], "median_us": median[name], "p10_us": p10,
                 "p90_us": p90})
    print(f"  {name:16s} {median[name]:9.2f} {p10:7.2f} {p90:7.2f}  {LABELS[name]}")
  else:
    why = skipped.get(name, "not measured")
    rows.append({"way": name, "label": LABELS[name], "skipped": why})
    print(f"  {name:16s} {'-':>9s} {'':7s} {'':7s}  {LABELS[name]}: skipped ({why})")


def ratio(a, b):
  return median[a] / median[b] if a in median and b in median else None


def shown(r):
  return "n/a" if r is None else f"{r:.2f}x"


targets = [
    {"target": "tkrt native <= 1.25x the C floor", "limit": 1.25, "status": "not built",
     "note": "native path not built yet", "ctypes_ratio": ratio("tkrt", "c_floor")},
    {"target": "tkrt native <= 0.6x the static launcher", "limit": 0.6, "status": "not built",
     "note": "native path not built yet", "ctypes_ratio": ratio("tkrt", "static")},
]
changing = ratio("tkrt_changing", "tkrt")
targets.append({"target": "changing scalars <= 1.1x fixed scalars", "limit": 1.1,
                "status": "met" if changing is not None and changing <= 1.1 else "missed",
                "note": "measured on the ctypes path (tkrt_changing / tkrt)",
                "ctypes_ratio": changing})
print("targets (issue 25):")
for t in targets:
  print(f"  {t['target']:42s} {t['status'].upper() if t['status'] != 'not built' else t['note']}"
        f" (ctypes path: {shown(t['ctypes_ratio'])})")
print(f"torch_launch: tkrt/c_floor = {shown(ratio('tkrt', 'c_floor'))}, tkrt/static = "
      f"{shown(ratio('tkrt', 'static'))}, tkrt_changing/tkrt = {shown(changing)}, "
      f"tkrt/triton = {shown(ratio('tkrt', 'triton'))}")

if args.json:
  with open(args.json, "w") as fh:
    json.dump({"bench": "torch_launch", "commit": os.environ.get("TKRT_BENCH_COMMIT"),
               "time_utc": datetime.datetime.now(datetime.timezone.utc).strftime(
                   "%Y-%m-%d %H:%M:%S"),
               "device": {"name": torch.cuda.get_device_name()},
               "torch": torch.__version__, "triton": triton.__version__, "n": N,
               "batches": args.batches, "launches": launches, "changing_values": CHANGING,
               "rows": rows, "targets": targets}, fh, indent=1)
  print(f"torch_launch: wrote {args.json}")
