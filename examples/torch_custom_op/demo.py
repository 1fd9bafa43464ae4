# SPDX-License-Identifier: Apache-2.0
"""Checks the tkrt_example custom operators (tkrt_torch_op.py) on an NVIDIA GPU:

  opcheck   torch.library.opcheck on each operator (schema, fake tensor, AOT dispatch)
  eager     add (bit-identical to torch's x + y), add_out, softmax (close to torch.softmax)
  compiled  f = torch.compile(fn, fullgraph=True): fn mixes the operators with torch ops; its
            results bit-identical to eager fn's, on fresh inputs
  graph     fn captured by torch.cuda.graph after a warm-up on a side stream, replayed on new
            input values (copied into the captured inputs): bit-identical to eager fn's, and the
            replays prepared no new launch
  overhead  torch.compile(fn, mode="reduce-overhead", fullgraph=True) called several times on
            fresh inputs (CUDA Graph Trees: warm-up, recording, replays): bit-identical to eager
            fn's, and no cudagraph skip counted
  shapes    after one call, calls of new shapes inside a capture are recorded and replayed right
            (one prepared launch serves every shape: the grid follows the per-launch scalars)
  capture   a first call for a new compiled variant inside a capture raises the operator's
            RuntimeError

Prints one line per check and "torch_custom_op: PASS" (exit 0), or "torch_custom_op: FAIL: ..."
(exit 1). Needs PyTorch with CUDA, Triton and tkrt.triton (PYTHONPATH=python, TKRT_LIBRARY);
test/gpu/run_torch.sh runs it with the repository's libtkrt.so.
"""
import os
import sys
import tempfile
import traceback

if "TRITON_CACHE_DIR" not in os.environ:  # a private cache: the kernels are compiled here
  os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="tkrt-torch-op-triton-")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

failures = []


def check(label, fn):
  try:
    detail = fn()
    print(f"ok: {label}" + (f" ({detail})" if detail else ""), flush=True)
  except Exception as e:  # noqa: BLE001 -- every failure is reported, then the verdict
    failures.append(label)
    print(f"FAIL: {label}: {type(e).__name__}: {e}", flush=True)
    traceback.print_exc()


if not torch.cuda.is_available():
  print("torch_custom_op: FAIL: no CUDA device for PyTorch")
  sys.exit(1)

import tkrt_torch_op  # noqa: E402  (imports triton and tkrt.triton)

ops = torch.ops.tkrt_example
N = 4096 * 3 + 5           # elements for add (not a multiple of the block)
ROWS, COLS = 96, 1000      # softmax


def inputs(seed):
  g = torch.Generator(device="cuda").manual_seed(seed)
  x = torch.randn(N, device="cuda", generator=g)
  y = torch.randn(N, device="cuda", generator=g)
  a = torch.randn(ROWS, COLS, device="cuda", generator=g) * 4
  return x, y, a


def fn(x, y, a):
  """The operators among torch ops: add, a torch op on its result, add_out into a buffer made
  here, softmax of a torch op's result."""
  s = ops.add(x, y) * 2
  o = torch.empty_like(x)
  ops.add_out(s, y, o)
  return o, ops.softmax(a - 1)


def reference(x, y, a):
  """torch's own computation of fn."""
  return (x + y) * 2 + y, torch.softmax(a - 1, dim=-1)


def same_bits(got, want, what):
  if got.shape != want.shape or got.dtype != want.dtype:
    raise AssertionError(f"{what}: {tuple(got.shape)} {got.dtype}, expected {tuple(want.shape)} "
                         f"{want.dtype}")
  if not torch.equal(got.view(torch.int32), want.view(torch.int32)):
    bad = (got.view(torch.int32) != want.view(torch.int32)).sum().item()
    raise AssertionError(f"{what}: {bad} of {got.numel()} elements differ bitwise")


def same_as_eager(results, x, y, a, what):
  """results (a pair) bit-identical to eager fn on the same inputs, and eager fn correct."""
  eager = fn(x, y, a)
  ref = reference(x, y, a)
  same_bits(eager[0], ref[0], f"eager {what}: add/add_out vs torch")
  torch.testing.assert_close(eager[1], ref[1], rtol=1e-5, atol=1e-6)
  same_bits(results[0], eager[0], f"{what}: add/add_out vs eager")
  same_bits(results[1], eager[1], f"{what}: softmax vs eager")


# ---------------------------------------------------------------- opcheck
def opcheck():
  x, y, a = inputs(1)
  out = torch.empty_like(x)
  for op, args in ((ops.add.default, (x, y)), (ops.add_out.default, (x, y, out)),
                   (ops.softmax.default, (a,))):
    torch.library.opcheck(op, args)
  return "add, add_out, softmax"


# ---------------------------------------------------------------- eager
def eager():
  x, y, a = inputs(2)
  same_bits(ops.add(x, y), x + y, "add")
  out = torch.full_like(x, float("nan"))
  ops.add_out(x, y, out)
  same_bits(out, x + y, "add_out")
  got = ops.softmax(a)
  torch.testing.assert_close(got, torch.softmax(a, dim=-1), rtol=1e-5, atol=1e-6)
  strided = torch.randn(ROWS, COLS + 24, device="cuda")[:, :COLS]  # rows contiguous, padded
  torch.testing.assert_close(ops.softmax(strided), torch.softmax(strided, dim=-1), rtol=1e-5,
                             atol=1e-6)
  try:
    ops.add(x, y.double())
  except (ValueError, RuntimeError) as e:
    message = str(e).splitlines()[0]
  else:
    raise AssertionError("add(float32, float64) was accepted")
  torch.cuda.synchronize()
  return f"bad dtype refused: {message}"


# ---------------------------------------------------------------- torch.compile
def compiled():
  torch._dynamo.reset()
  f = torch.compile(fn, fullgraph=True)
  for seed in (3, 4):
    x, y, a = inputs(seed)
    same_as_eager(f(x, y, a), x, y, a, "torch.compile(fullgraph=True)")
  torch.cuda.synchronize()


# ---------------------------------------------------------------- torch.cuda.graph
def graph():
  static = inputs(5)
  side = torch.cuda.Stream()
  side.wait_stream(torch.cuda.current_stream())
  with torch.cuda.stream(side):  # the warm-up: prepares every launch of these shapes
    fn(*static)
  torch.cuda.current_stream().wait_stream(side)
  prepared = tkrt_torch_op.prepared_count()
  g = torch.cuda.CUDAGraph()
  with torch.cuda.graph(g):
    captured = fn(*static)
  replays = 0
  for seed in (6, 7, 8):
    fresh = inputs(seed)
    for dst, src in zip(static, fresh):
      dst.copy_(src)
    g.replay()
    replays += 1
    torch.cuda.synchronize()
    same_as_eager(captured, *fresh, f"torch.cuda.graph replay {replays}")
  if tkrt_torch_op.prepared_count() != prepared:
    raise AssertionError("the capture prepared new launches")
  return f"{replays} replays on new inputs"


# ---------------------------------------------------------------- reduce-overhead
def reduce_overhead():
  from torch._dynamo.utils import counters
  torch._dynamo.reset()
  counters.clear()
  f = torch.compile(fn, mode="reduce-overhead", fullgraph=True)
  calls = 0
  for seed in range(10, 16):  # CUDA Graph Trees: warm-up, recording, then replays
    x, y, a = inputs(seed)
    got = [t.clone() for t in f(x, y, a)]  # the next replay overwrites the graph's outputs
    calls += 1
    same_as_eager(got, x, y, a, f"reduce-overhead call {calls}")
  skips = counters["inductor"]["cudagraph_skips"]
  if skips:
    raise AssertionError(f"CUDA graphs skipped {skips} time(s): the operators did not run in a "
                         f"graph (set TORCH_LOGS=cudagraphs for the reason)")
  return f"{calls} calls, no cudagraph skip"


# ---------------------------------------------------------------- new shapes in a capture
def new_shapes_in_capture():
  before = tkrt_torch_op.prepared_count()
  shapes = (777, 4096 * 3 + 5, 1)
  xs = [torch.randn(n, device="cuda") for n in shapes]
  ys = [torch.randn(n, device="cuda") for n in shapes]
  rows = torch.randn(37, 900, device="cuda")  # softmax's BLOCK 1024 variant is prepared already
  g = torch.cuda.CUDAGraph()
  with torch.cuda.graph(g):
    outs = [ops.add(x, y) for x, y in zip(xs, ys)]
    soft = ops.softmax(rows)
  for x, y in zip(xs, ys):
    x.normal_()
    y.normal_()
  rows.normal_()
  g.replay()
  torch.cuda.synchronize()
  for x, y, o in zip(xs, ys, outs):
    same_bits(o, x + y, f"add of {x.numel()} elements, captured and replayed")
  torch.testing.assert_close(soft, torch.softmax(rows, dim=1), rtol=1e-5, atol=1e-6)
  if tkrt_torch_op.prepared_count() != before:
    raise AssertionError("a launch was prepared inside the capture")
  return f"add of {', '.join(map(str, shapes))} elements and a 37x900 softmax, none warmed up"


# ---------------------------------------------------------------- capture without warm-up
def first_call_in_capture():
  x = torch.randn(3, 70000, device="cuda")  # 9000 columns: softmax's BLOCK 16384, not prepared yet
  before = tkrt_torch_op.prepared_count()
  message = None
  g = torch.cuda.CUDAGraph()
  try:
    with torch.cuda.graph(g):
      ops.softmax(x[:, :9000])
  except RuntimeError as e:
    message = str(e)
  torch.cuda.synchronize()
  if message is None or "outside the capture" not in message:
    raise AssertionError(f"expected the operator's RuntimeError; got {message!r}")
  if tkrt_torch_op.prepared_count() != before:
    raise AssertionError("a launch was prepared inside the capture")
  x = x[:, :9000]
  torch.testing.assert_close(ops.softmax(x), torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)
  return message.split(";")[0]


print(f"device: {torch.cuda.get_device_name()}, PyTorch {torch.__version__}, Triton "
      f"{tkrt_torch_op.triton.__version__}, libtkrt: "
      f"{os.environ.get('TKRT_LIBRARY', '(the package default)')}", flush=True)
check("torch.library.opcheck", opcheck)
check("eager: add, add_out, softmax against torch", eager)
check("torch.compile(fullgraph=True): bit-identical to eager", compiled)
check("torch.cuda.graph: capture after warm-up, replay on new inputs", graph)
check("torch.compile(mode='reduce-overhead', fullgraph=True): CUDA Graph Trees", reduce_overhead)
check("new shapes inside a capture after one call: recorded, replayed right", new_shapes_in_capture)
check("first call for a new compiled variant inside a capture: refused with a clear error",
      first_call_in_capture)
if failures:
  print(f"torch_custom_op: FAIL: {', '.join(failures)}")
  sys.exit(1)
print("torch_custom_op: PASS (eager == torch.compile == torch.cuda.graph replay == "
      "reduce-overhead, against torch's own results)")
