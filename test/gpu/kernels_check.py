# SPDX-License-Identifier: Apache-2.0
"""Issue 25's kernels on an NVIDIA GPU: the kinds of Triton kernels people write, each launched by
Triton and by tkrt four ways, outputs compared bit for bit (driven by test/gpu/run_kernels.sh).

Kernels (written here): vector add, row softmax, layer norm forward and backward, a matmul with
pointers, a matmul with host tensor descriptors (TMA), a fused attention forward, and an autotuned
axpy with a tuning key (Triton's @triton.autotune(key=["n"])). Each is launched by Triton's own
launcher (which compiles it into a private cache) on seeded inputs; the inputs and Triton's
outputs are written as .bin files with a manifest (cases.json). Then every case is launched by
  - python-native: tkrt.triton with the native extension (tkrt.triton.launch_path == "native"),
  - python-ctypes: the same code in a child process with TKRT_PYTHON_LAUNCH=ctypes,
  - cli:           `tkrt run FOLDER --grid ... --arg ...` (the C API underneath),
  - capi:          test/gpu/bound_launch.c, a C program on tkrt_triton_bound_* directly,
and each output must equal Triton's byte for byte (every kernel here is deterministic). The keyed
autotuned case launches two values of n through one prepared launch and checks that each value got
its own decision. Also checks that per-launch scalars follow (one prepared add, three sizes), and
that a launch violating Triton's specialisation (tt.divisibility = 16 on n) is refused naming n.

usage: python3 kernels_check.py TKRT_CLI BOUND_LAUNCH WORKDIR
       python3 kernels_check.py --launch WORKDIR/cases.json OUTDIR     (the Python runner)
Prints "KERNELS: PASS" or "KERNELS: FAIL (...)".
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

DTYPES = {"float32": np.float32, "float16": np.float16, "int32": np.int32}


def load_tensor(arg, torch):
  data = np.fromfile(arg["file"], dtype=DTYPES[arg["dtype"]]) if arg.get("file") else \
      np.zeros(int(np.prod(arg["shape"])), dtype=DTYPES[arg["dtype"]])
  return torch.from_numpy(data.reshape(arg["shape"])).cuda()


def python_launch(manifest, outdir):
  """Launches every case of the manifest through tkrt.triton; writes <case>.<launch>.<arg>.bin."""
  import torch
  import tkrt.triton as tt
  from triton.tools.tensor_descriptor import TensorDescriptor
  os.makedirs(outdir, exist_ok=True)
  with open(manifest) as f:
    cases = json.load(f)
  print(f"tkrt.triton launch path: {tt.launch_path}", flush=True)
  for case in cases:
    variants = [tt.load(v["folder"]).variant(case["grid"], v["constants"]) for v in case["variants"]]
    options = {"key": case["key"]} if case.get("key") else {}
    prepared = tt.prepare(variants, inout=case.get("inout", ()), **options)
    for li, launch in enumerate(case["launches"]):
      args, outputs = [], {}
      for a in launch["args"]:
        if a["kind"] in ("ptr", "desc"):
          t = load_tensor(a, torch)
          if a.get("save"):
            outputs[a["name"]] = t
          if a["kind"] == "desc":
            t = TensorDescriptor(t, list(t.shape), list(t.stride()), list(a["block"]))
          args.append(t)
        else:
          args.append(a["value"])
      prepared(*args)
      torch.cuda.synchronize()
      for name, t in outputs.items():
        t.cpu().numpy().tofile(os.path.join(outdir, f"{case['name']}.{li}.{name}.bin"))
  return 0


if len(sys.argv) == 4 and sys.argv[1] == "--launch":
  sys.exit(python_launch(sys.argv[2], sys.argv[3]))

tkrt_cli, bound_launch, work = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
cache = os.path.join(work, "triton-cache")
shutil.rmtree(cache, ignore_errors=True)
os.environ["TRITON_CACHE_DIR"] = cache

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

import tkrt.triton as tt  # noqa: E402

failures = []
cases = []


def fail(what):
  failures.append(what)
  print(f"FAIL: {what}", flush=True)


# ---------------------------------------------------------------- the kernels

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  m = offs < n
  tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK: tl.constexpr):
  row = tl.program_id(0)
  offs = tl.arange(0, BLOCK)
  m = offs < n_cols
  x = tl.load(in_ptr + row * in_stride + offs, mask=m, other=-float("inf"))
  x = x - tl.max(x, axis=0)
  num = tl.exp(x)
  tl.store(out_ptr + row * out_stride + offs, num / tl.sum(num, axis=0), mask=m)


@triton.jit
def ln_fwd_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, M, N, eps,
                  BLOCK: tl.constexpr):
  row = tl.program_id(0)
  cols = tl.arange(0, BLOCK)
  m = cols < N
  x = tl.load(x_ptr + row * stride + cols, mask=m, other=0.0)
  mean = tl.sum(x, axis=0) / N
  xc = tl.where(m, x - mean, 0.0)
  rstd = 1 / tl.sqrt(tl.sum(xc * xc, axis=0) / N + eps)
  w = tl.load(w_ptr + cols, mask=m)
  b = tl.load(b_ptr + cols, mask=m)
  tl.store(y_ptr + row * stride + cols, xc * rstd * w + b, mask=m)
  tl.store(mean_ptr + row, mean)
  tl.store(rstd_ptr + row, rstd)


@triton.jit
def ln_bwd_kernel(dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, dx_ptr, dw_part_ptr, db_part_ptr,
                  stride, M, N, BLOCK: tl.constexpr):
  row = tl.program_id(0)
  cols = tl.arange(0, BLOCK)
  m = cols < N
  x = tl.load(x_ptr + row * stride + cols, mask=m, other=0.0)
  dy = tl.load(dy_ptr + row * stride + cols, mask=m, other=0.0)
  w = tl.load(w_ptr + cols, mask=m, other=0.0)
  mean = tl.load(mean_ptr + row)
  rstd = tl.load(rstd_ptr + row)
  xhat = tl.where(m, (x - mean) * rstd, 0.0)
  wdy = w * dy
  c1 = tl.sum(xhat * wdy, axis=0) / N
  c2 = tl.sum(wdy, axis=0) / N
  tl.store(dx_ptr + row * stride + cols, (wdy - (xhat * c1 + c2)) * rstd, mask=m)
  tl.store(dw_part_ptr + row * stride + cols, dy * xhat, mask=m)
  tl.store(db_part_ptr + row * stride + cols, dy, mask=m)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                  BK: tl.constexpr):
  pm = tl.program_id(0)
  pn = tl.program_id(1)
  rm = pm * BM + tl.arange(0, BM)
  rn = pn * BN + tl.arange(0, BN)
  rk = tl.arange(0, BK)
  acc = tl.zeros((BM, BN), dtype=tl.float32)
  for k in range(0, K, BK):
    a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
    b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
    acc += tl.dot(a, b)
  tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


@triton.jit
def matmul_tma_kernel(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr):
  pm = tl.program_id(0)
  pn = tl.program_id(1)
  acc = tl.zeros((BM, BN), dtype=tl.float32)
  for k in range(0, K, BK):
    acc = tl.dot(a_desc.load([pm * BM, k]), b_desc.load([k, pn * BN]), acc)
  c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


@triton.jit
def attn_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, seq_len, batch_heads, sm_scale,
                    BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
  pm = tl.program_id(0)
  base = tl.program_id(1) * seq_len * D
  offs_m = pm * BM + tl.arange(0, BM)
  offs_n = tl.arange(0, BN)
  offs_d = tl.arange(0, D)
  q = tl.load(q_ptr + base + offs_m[:, None] * D + offs_d[None, :], mask=offs_m[:, None] < seq_len,
              other=0.0)
  m_i = tl.full((BM,), float("-inf"), tl.float32)
  l_i = tl.zeros((BM,), tl.float32)
  acc = tl.zeros((BM, D), tl.float32)
  for start in range(0, seq_len, BN):
    cols = start + offs_n
    k = tl.load(k_ptr + base + cols[None, :] * D + offs_d[:, None], mask=cols[None, :] < seq_len,
                other=0.0)
    s = tl.dot(q, k) * sm_scale
    s = tl.where(cols[None, :] < seq_len, s, float("-inf"))
    m_new = tl.maximum(m_i, tl.max(s, 1))
    p = tl.exp(s - m_new[:, None])
    alpha = tl.exp(m_i - m_new)
    l_i = l_i * alpha + tl.sum(p, 1)
    v = tl.load(v_ptr + base + cols[:, None] * D + offs_d[None, :], mask=cols[:, None] < seq_len,
                other=0.0)
    acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
    m_i = m_new
  acc = acc / l_i[:, None]
  tl.store(o_ptr + base + offs_m[:, None] * D + offs_d[None, :], acc.to(tl.float16),
           mask=offs_m[:, None] < seq_len)


AXPY_CONFIGS = [triton.Config({"BLOCK": 256}, num_warps=2), triton.Config({"BLOCK": 1024}, num_warps=4),
                triton.Config({"BLOCK": 4096}, num_warps=8)]


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  m = offs < n
  tl.store(out_ptr + offs, a * tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


axpy_tuned = triton.autotune(configs=AXPY_CONFIGS, key=["n"])(axpy_kernel)


# ---------------------------------------------------------------- helpers

def folder_of(compiled):
  """The Triton cache folder of a CompiledKernel (found by its hash)."""
  for entry in os.listdir(cache):
    for name in os.listdir(os.path.join(cache, entry)):
      if name.endswith(".json") and not name.startswith("__grp__"):
        with open(os.path.join(cache, entry, name)) as f:
          if json.load(f).get("hash") == compiled.hash:
            return os.path.join(cache, entry)
  raise SystemExit(f"compiled kernel {compiled.hash} not in {cache}")


def save(tensor, name):
  path = os.path.join(work, name)
  tensor.detach().cpu().contiguous().numpy().tofile(path)
  return path


def tensor_arg(name, tensor, case, out=False, kind="ptr", block=None):
  """A manifest entry for a tensor argument: inputs get a file; outputs start as zeros."""
  entry = {"name": name, "kind": kind, "dtype": str(tensor.dtype).replace("torch.", ""),
           "shape": list(tensor.shape), "bytes": tensor.numel() * tensor.element_size()}
  if out:
    entry["save"] = True
  else:
    entry["file"] = save(tensor, f"{case}.{name}.in.bin")
  if block is not None:
    entry["block"] = list(block)
  return entry


def scalar_arg(name, value, kind="int"):
  return {"name": name, "kind": kind, "value": value}


def add_case(name, grid, variants, launches, expect, key=None):
  """expect: per launch, {arg name: the tensor Triton wrote}."""
  for li, outs in enumerate(expect):
    for arg, tensor in outs.items():
      save(tensor, f"{name}.{li}.{arg}.triton.bin")
  cases.append({"name": name, "grid": grid, "key": key,
                "variants": [{"folder": folder_of(c), "constants": k} for c, k in variants],
                "launches": [{"args": a} for a in launches],
                "expect": [sorted(o) for o in expect]})


torch.manual_seed(0)
dev = "cuda"

# vector add
n = 1000003
x, y = torch.randn(n, device=dev), torch.randn(n, device=dev)
out = torch.zeros_like(x)
c = add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
add_case("add", "cdiv(n, BLOCK)", [(c, {"BLOCK": 1024})],
         [[tensor_arg("x_ptr", x, "add"), tensor_arg("y_ptr", y, "add"),
           tensor_arg("out_ptr", out, "add", out=True), scalar_arg("n", n)]], [{"out_ptr": out}])

# row softmax
rows, cols = 1823, 781
xs = torch.randn(rows, cols, device=dev)
ys = torch.zeros_like(xs)
c = softmax_kernel[(rows,)](ys, xs, xs.stride(0), ys.stride(0), rows, cols, BLOCK=1024)
add_case("softmax", "n_rows", [(c, {"BLOCK": 1024})],
         [[tensor_arg("out_ptr", ys, "softmax", out=True), tensor_arg("in_ptr", xs, "softmax"),
           scalar_arg("in_stride", xs.stride(0)), scalar_arg("out_stride", ys.stride(0)),
           scalar_arg("n_rows", rows), scalar_arg("n_cols", cols)]], [{"out_ptr": ys}])

# layer norm forward and backward
M, N = 1151, 1000
xl = torch.randn(M, N, device=dev)
w, b = torch.randn(N, device=dev), torch.randn(N, device=dev)
yl, mean, rstd = torch.zeros_like(xl), torch.zeros(M, device=dev), torch.zeros(M, device=dev)
c = ln_fwd_kernel[(M,)](xl, yl, w, b, mean, rstd, xl.stride(0), M, N, 1e-5, BLOCK=1024)
add_case("ln_fwd", "M", [(c, {"BLOCK": 1024})],
         [[tensor_arg("x_ptr", xl, "ln_fwd"), tensor_arg("y_ptr", yl, "ln_fwd", out=True),
           tensor_arg("w_ptr", w, "ln_fwd"), tensor_arg("b_ptr", b, "ln_fwd"),
           tensor_arg("mean_ptr", mean, "ln_fwd", out=True),
           tensor_arg("rstd_ptr", rstd, "ln_fwd", out=True), scalar_arg("stride", xl.stride(0)),
           scalar_arg("M", M), scalar_arg("N", N), scalar_arg("eps", 1e-5, "float")]],
         [{"y_ptr": yl, "mean_ptr": mean, "rstd_ptr": rstd}])
torch.cuda.synchronize()
dy = torch.randn(M, N, device=dev)
dx, dwp, dbp = torch.zeros_like(xl), torch.zeros_like(xl), torch.zeros_like(xl)
c = ln_bwd_kernel[(M,)](dy, xl, w, mean, rstd, dx, dwp, dbp, xl.stride(0), M, N, BLOCK=1024)
add_case("ln_bwd", "M", [(c, {"BLOCK": 1024})],
         [[tensor_arg("dy_ptr", dy, "ln_bwd"), tensor_arg("x_ptr", xl, "ln_bwd"),
           tensor_arg("w_ptr", w, "ln_bwd"), tensor_arg("mean_ptr", mean, "ln_bwd"),
           tensor_arg("rstd_ptr", rstd, "ln_bwd"), tensor_arg("dx_ptr", dx, "ln_bwd", out=True),
           tensor_arg("dw_part_ptr", dwp, "ln_bwd", out=True),
           tensor_arg("db_part_ptr", dbp, "ln_bwd", out=True), scalar_arg("stride", xl.stride(0)),
           scalar_arg("M", M), scalar_arg("N", N)]],
         [{"dx_ptr": dx, "dw_part_ptr": dwp, "db_part_ptr": dbp}])

# matmul with pointers
S = 512
a, bm = torch.randn(S, S, device=dev, dtype=torch.float16), torch.randn(S, S, device=dev, dtype=torch.float16)
cm = torch.zeros(S, S, device=dev, dtype=torch.float16)
c = matmul_kernel[(S // 64, S // 128)](a, bm, cm, S, S, S, BM=64, BN=128, BK=64)
add_case("matmul", "cdiv(M, BM), cdiv(N, BN)", [(c, {"BM": 64, "BN": 128, "BK": 64})],
         [[tensor_arg("a_ptr", a, "matmul"), tensor_arg("b_ptr", bm, "matmul"),
           tensor_arg("c_ptr", cm, "matmul", out=True), scalar_arg("M", S), scalar_arg("N", S),
           scalar_arg("K", S)]], [{"c_ptr": cm}])

# matmul with tensor descriptors
ct = torch.zeros(S, S, device=dev, dtype=torch.float16)
c = matmul_tma_kernel[(S // 64, S // 128)](
    TensorDescriptor.from_tensor(a, [64, 64]), TensorDescriptor.from_tensor(bm, [64, 128]),
    TensorDescriptor.from_tensor(ct, [64, 128]), S, S, S, BM=64, BN=128, BK=64)
add_case("matmul_tma", "cdiv(M, BM), cdiv(N, BN)", [(c, {"BM": 64, "BN": 128, "BK": 64})],
         [[tensor_arg("a_desc", a, "matmul_tma", kind="desc", block=[64, 64]),
           tensor_arg("b_desc", bm, "matmul_tma", kind="desc", block=[64, 128]),
           tensor_arg("c_desc", ct, "matmul_tma", out=True, kind="desc", block=[64, 128]),
           scalar_arg("M", S), scalar_arg("N", S), scalar_arg("K", S)]], [{"c_desc": ct}])

# fused attention forward
BH, SEQ, D = 8, 1000, 64
q, k, v = (torch.randn(BH, SEQ, D, device=dev, dtype=torch.float16) for _ in range(3))
o = torch.zeros_like(q)
c = attn_fwd_kernel[(triton.cdiv(SEQ, 64), BH)](q, k, v, o, SEQ, BH, 0.125, BM=64, BN=64, D=64)
add_case("attention", "cdiv(seq_len, BM), batch_heads", [(c, {"BM": 64, "BN": 64, "D": 64})],
         [[tensor_arg("q_ptr", q, "attention"), tensor_arg("k_ptr", k, "attention"),
           tensor_arg("v_ptr", v, "attention"), tensor_arg("o_ptr", o, "attention", out=True),
           scalar_arg("seq_len", SEQ), scalar_arg("batch_heads", BH),
           scalar_arg("sm_scale", 0.125, "float")]], [{"o_ptr": o}])

# autotuned axpy with a tuning key: Triton's autotuner, and each config compiled for tkrt
sizes = (1000003, 65537)  # odd: no divisibility specialisation, so one compile serves both
xa, ya = torch.randn(sizes[0], device=dev), torch.randn(sizes[0], device=dev)
variants, launches, expects = [], [], []
for cfg in AXPY_CONFIGS:
  block = cfg.kwargs["BLOCK"]
  scratch = torch.zeros_like(xa)
  compiled = axpy_kernel[(triton.cdiv(sizes[0], block),)](xa, ya, scratch, 2.5, sizes[0], BLOCK=block,
                                                         num_warps=cfg.num_warps)
  variants.append((compiled, {"BLOCK": block}))
for li, size in enumerate(sizes):
  xo, yo = xa[:size].contiguous(), ya[:size].contiguous()
  outa = torch.zeros_like(xo)
  axpy_tuned[lambda meta: (triton.cdiv(size, meta["BLOCK"]),)](xo, yo, outa, 2.5, size)
  launches.append([tensor_arg("x_ptr", xo, f"axpy{li}"), tensor_arg("y_ptr", yo, f"axpy{li}"),
                   tensor_arg("out_ptr", outa, f"axpy{li}", out=True), scalar_arg("a", 2.5, "float"),
                   scalar_arg("n", size)])
  expects.append({"out_ptr": outa})
add_case("axpy_tuned", "cdiv(n, BLOCK)", variants, launches, expects, key=["n"])
torch.cuda.synchronize()

manifest = os.path.join(work, "cases.json")
with open(manifest, "w") as f:
  json.dump(cases, f, indent=1)
print(f"{len(cases)} cases compiled and launched by Triton; manifest {manifest}", flush=True)


# ---------------------------------------------------------------- the tkrt launches

def compare(path_name, outdir):
  for case in cases:
    for li, names in enumerate(case["expect"]):
      for arg in names:
        want = os.path.join(work, f"{case['name']}.{li}.{arg}.triton.bin")
        got = os.path.join(outdir, f"{case['name']}.{li}.{arg}.bin")
        if not os.path.exists(got):
          fail(f"{path_name}: {case['name']} launch {li}: no output {arg}")
        elif open(got, "rb").read() != open(want, "rb").read():
          fail(f"{path_name}: {case['name']} launch {li}: {arg} differs from Triton's")
  print(f"{path_name}: compared", flush=True)


def run(cmd, label, env=None):
  result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
  tail = result.stdout[-3000:]
  print(f"$ {' '.join(cmd[:6])} ...\n{tail}", end="" if tail.endswith("\n") else "\n", flush=True)
  if result.returncode != 0:
    fail(f"{label} (exit {result.returncode})")
  return result.stdout


for path_name, env_value in (("python-native", None), ("python-ctypes", "ctypes")):
  env = dict(os.environ)
  env.pop("TKRT_PYTHON_LAUNCH", None)
  if env_value:
    env["TKRT_PYTHON_LAUNCH"] = env_value
  outdir = os.path.join(work, path_name)
  store = os.path.join(work, f"{path_name}-store")
  shutil.rmtree(store, ignore_errors=True)
  env["TKRT_TUNE_DIR"] = store
  text = run([sys.executable, __file__, "--launch", manifest, outdir], path_name, env)
  # One autotuned case with a tuning key and two values of it: two decisions in the store.
  decisions = sorted(f for f in os.listdir(store) if f.endswith(".decision")) if os.path.isdir(store) else []
  print(f"{path_name}: decision store holds {decisions}", flush=True)
  if len(decisions) != 2:
    fail(f"{path_name}: the keyed autotuned call stored {len(decisions)} decisions, not 2 (one per n)")
  want = "native" if env_value is None else "ctypes"
  if f"launch path: {want}" not in text:
    fail(f"{path_name}: tkrt.triton did not use the {want} path")
  compare(path_name, outdir)


def spec_shape(arg):
  return "x".join(str(d) for d in arg["shape"])


for path_name in ("cli", "capi"):
  outdir = os.path.join(work, path_name)
  os.makedirs(outdir, exist_ok=True)
  store = os.path.join(work, f"{path_name}-store")
  for case in cases:
    for li, launch in enumerate(case["launches"]):
      if path_name == "cli":
        cmd = [tkrt_cli, "run"]
        for v in case["variants"]:
          cmd += [v["folder"], "--grid", case["grid"],
                  "--const", ",".join(f"{k}={val}" for k, val in v["constants"].items())]
        for a in launch["args"]:
          if a["kind"] in ("ptr", "desc"):
            cmd += ["--arg", f"{a['name']}=@{a['file']}" if a.get("file") else
                    f"{a['name']}=zeros:{a['bytes']}"]
            if a["kind"] == "desc":
              cmd += ["--desc", f"{a['name']}={spec_shape(a)}"]
            if a.get("save"):
              cmd += ["--save", f"{a['name']}={outdir}/{case['name']}.{li}.{a['name']}.bin"]
          else:
            cmd += ["--arg", f"{a['name']}={a['value']!r}"]
        cmd += ["--iterations", "0", "--store", store]
      else:
        cmd = [bound_launch, "--store", store]
        if case.get("key"):
          cmd += ["--key", ",".join(case["key"])]
        for v in case["variants"]:
          cmd += ["--variant", v["folder"], case["grid"],
                  ",".join(f"{k}={val}" for k, val in v["constants"].items())]
        cmd.append("--")
        for a in launch["args"]:
          if a["kind"] in ("ptr", "desc"):
            spec = f"{a['kind']}:{a['name']}:" + (f"@{a['file']}" if a.get("file") else f"zeros={a['bytes']}")
            if a["kind"] == "desc":
              spec += f":{spec_shape(a)}:{'x'.join(map(str, a['block']))}"
            if a.get("save"):
              spec += f":save={outdir}/{case['name']}.{li}.{a['name']}.bin"
          else:
            spec = f"{a['kind']}:{a['name']}:{a['value']!r}"
          cmd.append(spec)
      run(cmd, f"{path_name} {case['name']} launch {li}")
  compare(path_name, outdir)


# ---------------------------------------------------------------- per-launch scalars, specialisation

add = tt.load(folder_of(add_kernel[(4,)](x, y, out, 4096, BLOCK=1024))).variant("cdiv(n, BLOCK)", {"BLOCK": 1024})
# The kernel compiled for n = 4096 carries tt.divisibility = 16 on n: 4000 is fine (a multiple of
# 16), 4001 must be refused naming n.
prepared = tt.prepare(add)
for size in (4096, 4000, 64):
  o = torch.full_like(x, -1.0)
  prepared(x, y, o, size)
  torch.cuda.synchronize()
  if not torch.equal(o[:size], x[:size] + y[:size]) or not bool((o[size:] == -1).all()):
    fail(f"per-launch n={size}: the grid or the scalar did not follow")
try:
  prepared(x, y, out, 4001)
  fail("n=4001 on a kernel specialised for multiples of 16 was launched")
except Exception as e:  # noqa: BLE001
  print(f"refused as expected: {e}", flush=True)
  if "n" not in str(e) or "16" not in str(e):
    fail(f"the divisibility error does not name n and 16: {e}")

# Folded arguments: Triton folds an integer argument equal to 1 away (scale_kernel's stride). With
# Triton's argument list (signature=) and the folded values (fixed=), a launch takes every argument
# and refuses any other value for the folded one, naming it.
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  m = offs < n
  tl.store(out_ptr + offs, tl.load(x_ptr + offs * stride, mask=m) * 2, mask=m)


scaled = torch.zeros_like(x)
sk = scale_kernel[(4,)](x, scaled, 4096, 1, BLOCK=1024)
scale = tt.prepare(tt.load(folder_of(sk)).variant("cdiv(n, BLOCK)", {"BLOCK": 1024}),
                   signature=["x_ptr", "out_ptr", "n", "stride"], fixed={"stride": 1})
o = torch.zeros_like(x)
scale(x, o, 4000, 1)
torch.cuda.synchronize()
if not torch.equal(o[:4000], x[:4000] * 2) or bool(o[4000:].any()):
  fail("the folded-argument launch computed something else")
try:
  scale(x, o, 4000, 2)
  fail("stride=2 on a kernel Triton compiled for stride == 1 was launched")
except Exception as e:  # noqa: BLE001
  print(f"refused as expected: {e}", flush=True)
  if "stride" not in str(e):
    fail(f"the folded-argument error does not name stride: {e}")

# The native launcher reads torch tensors through the DLPack C exchange API (PyTorch 2.11 has it).
if tt.launch_path != "native":
  fail(f"tkrt.triton's launch path is {tt.launch_path}: {tt.launch_path_reason}")
else:
  info = tt._native._array(x)  # noqa: SLF001 -- (address, extent, type, id, dtype, how read)
  print(f"tkrt._native reads a torch tensor as {info}", flush=True)
  if info[0] != x.data_ptr() or info[-1] != 1:
    fail(f"a torch tensor is not read through the DLPack exchange API: {info}")

if failures:
  print(f"KERNELS: FAIL ({len(failures)}: {'; '.join(failures[:6])})")
  sys.exit(1)
print("KERNELS: PASS")
