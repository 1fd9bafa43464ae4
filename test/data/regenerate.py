#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Makes tkrt's test data (test/data/README.md) again, into a new folder.

  python3 test/data/regenerate.py --out build/test-data-new [--only jaxlib|triton] [--seed N]

triton-3.6/: Triton's add and matmul kernels compiled by triton.compile for sm_90 (CUDA), gfx942
and gfx90a (HIP), copied out of a private Triton cache exactly as Triton stores them (no GPU needed);
and matmul_tma, add_jit and scale_jit, compiled by Triton's JIT on PyTorch tensors (needs the GPU
and PyTorch).

jaxlib-0.11.2/: one folder per case. Each kernel is compiled by triton.compile for the GPU here
(compute capability 9.0), wrapped in jaxlib's own classes (gpu_triton.TritonKernel,
TritonKernelCall, TritonAutotunedKernelCall, create_*_parameter) the way jax-triton builds its calls,
serialized with to_proto(name, metadata) (call.pb; zlib-compressed: call.pb.z), and run once through
jaxlib's triton_kernel_call_ffi custom call on inputs from NumPy's seeded generator: in*.bin and the
outputs jaxlib's runtime wrote, out*.bin, each checked against NumPy before it is written. Plus the
add kernel's HSACO for gfx90a and gfx942 (hsaco/<arch>/kernel.hsaco).

Needs jax and jaxlib with the CUDA plugin, Triton, NumPy and an NVIDIA GPU of compute capability
9.0 (the jaxlib half). The output is equivalent to test/data, not byte-identical: see the README.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
N = 100003                 # elements of the vector cases
MM = 1024                  # the matmul is MM x MM x MM
TMA_STUB_PTX = ".version 8.7\n.target sm_90a\n"

# Triton's cache must start empty, so that every file found there is this run's. Set before
# Triton is imported: it reads the variable when it makes its cache manager.
_CACHE = tempfile.mkdtemp(prefix="tkrt-regen-triton-cache.")
os.environ["TRITON_CACHE_DIR"] = _CACHE

import numpy as np  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402


# ---------------------------------------------------------------- paths out of the files

def _neutral(path):
  """A path of the same length that says nothing about this machine."""
  return "/" + "_" * (len(path) - 1) if len(path) > 1 else path


# Where Triton is installed and where this checkout is: both end up in debug strings and locations.
_PRIVATE = sorted({os.path.dirname(os.path.dirname(os.path.abspath(triton.__file__))), ROOT},
                  key=len, reverse=True)


def scrub(data):
  """bytes or str with each private path replaced by a neutral one of the same length, so that
  offsets and sizes inside binaries (cubin, HSACO) stay valid."""
  text = isinstance(data, str)
  raw = data.encode() if text else data
  for path in _PRIVATE:
    raw = raw.replace(path.encode(), _neutral(path).encode())
  return raw.decode() if text else raw


# ---------------------------------------------------------------- compiling

def compile_kernel(fn, types, constexprs, target, num_warps=4, num_stages=None, num_ctas=1):
  """triton.compile of `fn` with every parameter typed (`types`) or constant (`constexprs`), every
  pointer marked 16-byte divisible (as jax-triton and Triton's launcher do)."""
  signature = {name: "constexpr" if name in constexprs else types[name] for name in fn.arg_names}
  attrs = {(i,): [["tt.divisibility", 16]]
           for i, name in enumerate(fn.arg_names) if signature[name].startswith("*")}
  options = {"num_warps": num_warps, "num_ctas": num_ctas}
  if num_stages is not None:
    options["num_stages"] = num_stages
  source = ASTSource(fn=fn, signature=signature, constexprs=dict(constexprs), attrs=attrs)
  return triton.compile(source, target=target, options=options)


def _meta(compiled, name, default=None):
  md = compiled.metadata
  return md.get(name, default) if isinstance(md, dict) else getattr(md, name, default)


# ---------------------------------------------------------------- triton-3.6

def triton_kernels():
  """The two kernels of triton-3.6/, as Triton's tutorials write them."""

  @triton.jit
  def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)

  @triton.jit
  def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                    BK: tl.constexpr):
    # Row-major A (M x K), B (K x N), C (M x N); M, N, K multiples of BM, BN, BK.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
      a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
      b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
      acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))

  add = (add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
         {"BLOCK": 1024}, {"num_warps": 4})
  matmul = (matmul_kernel, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32",
                            "N": "i32", "K": "i32"},
            {"BM": 64, "BN": 128, "BK": 64}, {"num_warps": 4, "num_stages": 3})
  return {"add": add, "matmul": matmul}


TRITON_TARGETS = {
    "cuda_sm90": (GPUTarget("cuda", 90, 32), ("cubin", "ptx", "json", "ttir", "source")),
    "hip_gfx942": (GPUTarget("hip", "gfx942", 64), ("hsaco", "json", "ttir", "source")),
    "hip_gfx90a": (GPUTarget("hip", "gfx90a", 64), ("hsaco", "json", "ttir", "source")),
}


def cache_entry(compiled):
  """The folder of Triton's cache that holds `compiled` (its <name>.json carries the same hash)."""
  name, digest = _meta(compiled, "name"), _meta(compiled, "hash")
  for folder, _, files in os.walk(_CACHE):
    if name + ".json" in files:
      with open(os.path.join(folder, name + ".json")) as f:
        if json.load(f).get("hash") == digest:
          return folder
  raise RuntimeError(f"{name} (hash {digest}) is not in Triton's cache {_CACHE}: this Triton "
                     "does not honour TRITON_CACHE_DIR set before it is imported")


def make_triton(out):
  for kernel, (fn, types, constexprs, options) in triton_kernels().items():
    for folder, (target, extensions) in TRITON_TARGETS.items():
      compiled = compile_kernel(fn, types, constexprs, target, **options)
      entry = cache_entry(compiled)
      dest = os.path.join(out, "triton-3.6", kernel, folder)
      os.makedirs(dest)
      name = _meta(compiled, "name")
      for ext in extensions:
        with open(os.path.join(entry, f"{name}.{ext}"), "rb") as f:
          data = f.read()
        with open(os.path.join(dest, f"{name}.{ext}"), "wb") as f:
          f.write(scrub(data))
      print(f"triton-3.6/{kernel}/{folder}: {', '.join(name + '.' + e for e in extensions)}")


# ---------------------------------------------------------------- triton-3.6: the JIT's own output

def make_triton_jit(out):
  """matmul_tma, add_jit, scale_jit: compiled by Triton's JIT (`kernel[grid](...)` on PyTorch
  tensors), so that their TTIR carries what the JIT specialises (tt.divisibility on scalars, an
  argument equal to 1 folded away) and tensor descriptors with their tensordesc_meta."""
  import torch
  from triton.tools.tensor_descriptor import TensorDescriptor

  @triton.jit
  def matmul_tma_kernel(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
      a = a_desc.load([pid_m * BM, k])
      b = b_desc.load([k, pid_n * BN])
      acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))

  @triton.jit
  def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

  @triton.jit
  def scale_kernel(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs * stride, mask=m) * 2, mask=m)

  S = 256
  a = torch.randn(S, S, device="cuda", dtype=torch.float16)
  b = torch.randn(S, S, device="cuda", dtype=torch.float16)
  c = torch.empty(S, S, device="cuda", dtype=torch.float16)
  x, y = torch.randn(4096, device="cuda"), torch.randn(4096, device="cuda")
  o = torch.empty_like(x)
  made = {
      "matmul_tma": matmul_tma_kernel[(S // 64, S // 128)](
          TensorDescriptor.from_tensor(a, [64, 64]), TensorDescriptor.from_tensor(b, [64, 128]),
          TensorDescriptor.from_tensor(c, [64, 128]), S, S, S, BM=64, BN=128, BK=64),
      "add_jit": add_kernel[(4,)](x, y, o, 4096, BLOCK=1024),
      "scale_jit": scale_kernel[(4,)](x, o, 4096, 1, BLOCK=1024),
  }
  torch.cuda.synchronize()
  for kernel, compiled in made.items():
    entry = cache_entry(compiled)
    dest = os.path.join(out, "triton-3.6", kernel, "cuda_sm90")
    os.makedirs(dest)
    name = _meta(compiled, "name")
    for ext in TRITON_TARGETS["cuda_sm90"][1]:
      with open(os.path.join(entry, f"{name}.{ext}"), "rb") as f:
        data = f.read()
      with open(os.path.join(dest, f"{name}.{ext}"), "wb") as f:
        f.write(scrub(data))
    print(f"triton-3.6/{kernel}/cuda_sm90: {name}.*")


# ---------------------------------------------------------------- jaxlib-0.11.2: the kernels

def jaxlib_kernels():
  """The kernels of the jaxlib cases, with jax-triton's parameter order: inputs, scalars, outputs."""

  @triton.jit
  def add_kernel(x_ptr, y_ptr, n, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)

  @triton.jit
  def scalars_kernel(x_ptr, a_i32, b_u32, c_i64, d_i64, e_f32, f_f64, n, out_ptr, f_out_ptr,
                     BLOCK: tl.constexpr):
    # Each scalar reaches the result, so a wrongly encoded one shows: out = x + a + b + c
    # + (d - 2^62) + e in fp64, and the fp64 scalar itself goes to f_out[0].
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    total = a_i32.to(tl.float64) + b_u32.to(tl.float64) + c_i64.to(tl.float64)
    total = total + (d_i64 - 4611686018427387904).to(tl.float64) + e_f32.to(tl.float64)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float64)
    tl.store(out_ptr + offs, x + total, mask=mask)
    if pid == 0:
      tl.store(f_out_ptr, f_f64)

  @triton.jit
  def accumulate_kernel(x_ptr, n, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))

  @triton.jit
  def inc_inplace_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)

  @triton.jit
  def matmul_kernel(a_ptr, b_ptr, M, N, K, c_ptr, BM: tl.constexpr, BN: tl.constexpr,
                    BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
      a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
      b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
      acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))

  return {"add": add_kernel, "scalars": scalars_kernel, "accumulate": accumulate_kernel,
          "inc_inplace": inc_inplace_kernel, "matmul": matmul_kernel}


ADD_TYPES = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "out_ptr": "*fp32"}
INC_TYPES = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"}
MM_TYPES = {"a_ptr": "*fp16", "b_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
            "c_ptr": "*fp16"}
SCALAR_TYPES = {"x_ptr": "*fp32", "a_i32": "i32", "b_u32": "u32", "c_i64": "i64", "d_i64": "i64",
                "e_f32": "fp32", "f_f64": "fp64", "n": "i32", "out_ptr": "*fp64",
                "f_out_ptr": "*fp64"}
SCALARS = [(-3, "i32"), (3000000000, "u32"), (-(2 ** 40), "i64"), (2 ** 62 + 5, "i64"),
           (0.5, "fp32"), (1e-300, "fp64")]
# (BM, BN, BK, num_warps, num_stages) of matmul_autotuned, and BLOCK / warps of autotuned_alias.
MM_CONFIGS = [(64, 64, 32, 4, 3), (128, 128, 64, 8, 3), (128, 256, 64, 8, 3), (64, 128, 64, 4, 4)]
INC_CONFIGS = [(128, 4), (512, 4), (2048, 8)]


def cdiv(a, b):
  return (a + b - 1) // b


# ---------------------------------------------------------------- jaxlib-0.11.2: the calls

class Jaxlib:
  """jaxlib's classes, the GPU's compute capability, and jaxlib's custom call to run a blob."""

  def __init__(self):
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    import jax
    import jax.numpy as jnp
    from jax._src.lib import gpu_triton
    sys.path.insert(0, os.path.join(ROOT, "test", "xla"))
    import tkrt_frontend  # emits a custom call with an opaque blob to any target (jaxlib's here)
    self.jax, self.jnp, self.gt, self.fe = jax, jnp, gpu_triton, tkrt_frontend
    self.cc = int(gpu_triton.get_compute_capability(0))
    if self.cc != 90:
      raise SystemExit(f"regenerate: the data is for compute capability 9.0 (sm_90a PTX); this GPU "
                       f"is {self.cc // 10}.{self.cc % 10}")

  def kernel(self, fn, types, constexprs, num_warps=4, num_stages=3, num_ctas=1):
    """triton.compile for this GPU, wrapped in jaxlib's TritonKernel (jaxlib 0.11.2's constructor:
    name, num_warps, num_ctas, shared memory, PTX, TTIR, compute capability[, global scratch size
    and alignment when the kernel has scratch])."""
    compiled = compile_kernel(fn, types, constexprs, GPUTarget("cuda", self.cc, 32), num_warps,
                              num_stages, num_ctas)
    args = [_meta(compiled, "name"), num_warps, num_ctas, _meta(compiled, "shared", 0),
            scrub(compiled.asm["ptx"]), scrub(compiled.asm.get("ttir", "")), self.cc]
    scratch = _meta(compiled, "global_scratch_size", 0) or 0
    if scratch:
      args += [scratch, _meta(compiled, "global_scratch_align", 1) or 1]
    return self.gt.TritonKernel(*args)

  def array(self, bytes_to_zero=0):
    return self.gt.create_array_parameter(bytes_to_zero, 16)

  def scalar(self, value, dtype):
    return self.gt.create_scalar_parameter(value, dtype)

  def call(self, kernel, grid, params):
    grid = tuple(grid) + (1,) * (3 - len(grid))
    return self.gt.TritonKernelCall(kernel, grid[0], grid[1], grid[2], params)

  def run(self, blob, inputs, outputs, aliases=()):
    """Runs `blob` (call.pb.z) once through jaxlib's triton_kernel_call_ffi; the outputs as NumPy.
    outputs: [(shape, dtype)]; aliases: [(input, output)] (XLA's input_output_alias)."""
    jax = self.jax
    shapes = [jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in outputs]
    fn = jax.jit(lambda *args: self.fe.call(self.fe.JAXLIB_FFI, blob, *args, out_shapes=shapes,
                                            aliases=aliases))
    results = fn(*[self.jnp.asarray(a) for a in inputs])
    return [np.asarray(r) for r in results]


def write_case(out, name, note, raw, inputs, outputs, extra=None):
  """One case folder: call.pb, call.pb.z, in*.bin, out*.bin and case.json."""
  folder = os.path.join(out, "jaxlib-0.11.2", name)
  os.makedirs(folder)
  with open(os.path.join(folder, "call.pb"), "wb") as f:
    f.write(raw)
  with open(os.path.join(folder, "call.pb.z"), "wb") as f:
    f.write(zlib.compress(raw))

  def files(arrays, stem):
    listed = []
    for i, array in enumerate(arrays):
      array = np.ascontiguousarray(array)
      array.astype(array.dtype.newbyteorder("<"), copy=False).tofile(
          os.path.join(folder, f"{stem}{i}.bin"))
      listed.append({"file": f"{stem}{i}.bin", "dtype": array.dtype.name,
                     "shape": list(array.shape)})
    return listed

  case = {"name": name, "note": note, "inputs": files(inputs, "in"),
          "outputs": files(outputs, "out"), "proto_bytes": len(raw)}
  case.update(extra or {})
  with open(os.path.join(folder, "case.json"), "w") as f:
    json.dump(case, f, indent=1)
    f.write("\n")
  print(f"jaxlib-0.11.2/{name}: {len(raw)} bytes of call, {len(inputs)} inputs, "
        f"{len(outputs)} outputs")


def check(name, ok, detail):
  if not ok:
    raise SystemExit(f"regenerate: {name}: jaxlib's output is wrong ({detail}); the output folder "
                     "is incomplete: do not use it")
  print(f"  {name}: {detail}")


def make_jaxlib(out, seed):
  j = Jaxlib()
  k = jaxlib_kernels()
  rng = np.random.default_rng(seed)
  x = rng.standard_normal(N, dtype=np.float32)
  y = rng.standard_normal(N, dtype=np.float32)
  a = rng.standard_normal((MM, MM)).astype(np.float16)
  b = rng.standard_normal((MM, MM)).astype(np.float16)
  f32 = [((N,), np.float32)]

  # add_f32: a plain call, 3 arrays and an i32 scalar.
  add = j.kernel(k["add"], ADD_TYPES, {"BLOCK": 1024})
  params = [j.array(), j.array(), j.scalar(N, "i32"), j.array()]
  raw = j.call(add, (cdiv(N, 1024),), params).to_proto("", b"")
  (o,) = j.run(zlib.compress(raw), [x, y], f32)
  check("add_f32", np.array_equal(o, x + y), "out0 == in0 + in1 bit for bit")
  write_case(out, "add_f32", f"out0 = in0 + in1; n = {N}, BLOCK 1024, grid {cdiv(N, 1024)}",
             raw, [x, y], [o])

  # scalars: every scalar kind jaxlib takes.
  kernel = j.kernel(k["scalars"], SCALAR_TYPES, {"BLOCK": 512})
  params = ([j.array()] + [j.scalar(v, t) for v, t in SCALARS] + [j.scalar(N, "i32")]
            + [j.array(), j.array()])
  raw = j.call(kernel, (cdiv(N, 512),), params).to_proto("", b"")
  o0, o1 = j.run(zlib.compress(raw), [x], [((N,), np.float64), ((1,), np.float64)])
  total = float(-3) + float(3000000000) + float(-(2 ** 40)) + float(5) + 0.5
  want = x.astype(np.float64) + total
  check("scalars", np.allclose(o0, want, rtol=1e-15, atol=0) and o1[0] == 1e-300,
        f"out0 = in0 + {total!r}, out1[0] = 1e-300")
  write_case(out, "scalars", "scalars i32 -3, u32 3e9, i64 -2^40, i64 2^62+5, f32 0.5, f64 1e-300; "
             "out0 f64 = in0 + i32 + u32 + i64 + (i64 - 2^62) + f32, out1[0] = the f64 scalar",
             raw, [x], [o0, o1])

  # zeroed_accumulate: output 0 zeroed by jaxlib before the launch (bytes_to_zero = 4).
  kernel = j.kernel(k["accumulate"], {"x_ptr": "*fp32", "n": "i32", "out_ptr": "*fp32"},
                    {"BLOCK": 1024})
  params = [j.array(), j.scalar(N, "i32"), j.array(bytes_to_zero=4)]
  raw = j.call(kernel, (cdiv(N, 1024),), params).to_proto("", b"")
  (o,) = j.run(zlib.compress(raw), [x], [((1,), np.float32)])
  exact = float(x.astype(np.float64).sum())
  check("zeroed_accumulate", abs(float(o[0]) - exact) <= 1e-3 * abs(exact) + 1e-3,
        f"out0[0] = {float(o[0])!r}, sum {exact!r}")
  write_case(out, "zeroed_accumulate", "out0[0] = sum(in0); output 0 must be zeroed before launch "
             "(bytes_to_zero=4)", raw, [x], [o], {"rtol": 1e-3, "atol": 1e-3})

  # alias_inplace: in0 aliased to out0, written in place; 2 array parameters.
  kernel = j.kernel(k["inc_inplace"], INC_TYPES, {"BLOCK": 256})
  raw = j.call(kernel, (cdiv(N, 256),), [j.array(), j.array(), j.scalar(N, "i32")]).to_proto(
      "", b"")
  (o,) = j.run(zlib.compress(raw), [x, y], f32, aliases=[(0, 0)])
  check("alias_inplace", np.array_equal(o, x + y), "out0 == in0 + in1 bit for bit")
  write_case(out, "alias_inplace", "in0 aliased to out0; out0 = in0 + in1 written in place", raw,
             [x, y], [o], {"aliases": [{"input": 0, "output": 0}]})

  # autotuned_alias: 3 configs, a grid each, and jax-triton's alias record (input, output, bytes).
  configs = []
  for block, warps in INC_CONFIGS:
    kernel = j.kernel(k["inc_inplace"], INC_TYPES, {"BLOCK": block}, num_warps=warps)
    call = j.call(kernel, (cdiv(N, block),), [j.array(), j.array(), j.scalar(N, "i32")])
    configs.append((call, f"BLOCK: {block}, num_warps: {warps}, num_ctas: 1, num_stages: 3, "
                          "maxnreg: None"))
  tuned = j.gt.TritonAutotunedKernelCall(f" (inc_inplace_kernel) {{'n': {N}}}", configs,
                                         [(0, 0, N * 4)])
  raw = tuned.to_proto("", b"")
  (o,) = j.run(zlib.compress(raw), [x, y], f32, aliases=[(0, 0)])
  check("autotuned_alias", np.array_equal(o, x + y), "out0 == in0 + in1 once, bit for bit")
  write_case(out, "autotuned_alias", "autotuned over 3 configs (BLOCK 128/512/2048), per-config "
             "grid, in0 aliased to out0: autotuning must restore in0 so out0 = in0 + in1 exactly "
             "once", raw, [x, y], [o])

  # matmul_autotuned: fp16, 4 configs with their own 2D grids, warps, stages and shared memory.
  configs = []
  for bm, bn, bk, warps, stages in MM_CONFIGS:
    kernel = j.kernel(k["matmul"], MM_TYPES, {"BM": bm, "BN": bn, "BK": bk}, num_warps=warps,
                      num_stages=stages)
    params = [j.array(), j.array(), j.scalar(MM, "i32"), j.scalar(MM, "i32"),
              j.scalar(MM, "i32"), j.array()]
    configs.append((j.call(kernel, (MM // bm, MM // bn), params),
                    f"BM: {bm}, BN: {bn}, BK: {bk}, num_warps: {warps}, num_ctas: 1, "
                    f"num_stages: {stages}, maxnreg: None"))
  sizes = {"M": MM, "N": MM, "K": MM}
  tuned = j.gt.TritonAutotunedKernelCall(f" (matmul_kernel) {sizes}", configs, [])
  raw = tuned.to_proto("", b"")
  (o,) = j.run(zlib.compress(raw), [a, b], [((MM, MM), np.float16)])
  ref = a.astype(np.float32) @ b.astype(np.float32)
  err = float(np.linalg.norm(o.astype(np.float32) - ref) / np.linalg.norm(ref))
  check("matmul_autotuned", err < 1e-2, f"relative Frobenius error {err:.2e} against fp32")
  write_case(out, "matmul_autotuned", f"fp16 {MM}^3 matmul, 4 autotune configs with per-config 2D "
             "grids", raw, [a, b], [o], {"rtol": 2e-2, "atol": 2e-2})

  # cluster_num_ctas2: the add kernel compiled for clusters of 2 CTAs.
  add2 = j.kernel(k["add"], ADD_TYPES, {"BLOCK": 1024}, num_ctas=2)
  params = [j.array(), j.array(), j.scalar(N, "i32"), j.array()]
  raw = j.call(add2, (cdiv(N, 1024),), params).to_proto("", b"")
  (o,) = j.run(zlib.compress(raw), [x, y], f32)
  check("cluster_num_ctas2", np.array_equal(o, x + y), "out0 == in0 + in1 bit for bit")
  write_case(out, "cluster_num_ctas2", "num_ctas=2 (Hopper cluster launch)", raw, [x, y], [o])

  # tma_param: decode only; a host-side TMA descriptor parameter (field 9), a stub PTX.
  stub = j.gt.TritonKernel("k", 4, 1, 0, TMA_STUB_PTX, "", 90)
  tma = j.gt.create_tma_descriptor_parameter(elem_type=7, swizzle=3, shape=[64, 128],
                                             strides=[128, 1], block_shape=[32, 64], oob_fill=0)
  raw = j.call(stub, (1, 2, 3), [j.array(), tma, j.scalar(5, "i32")]).to_proto("tma_case",
                                                                               b"meta")
  write_case(out, "tma_param", "decode-only: a kernel call whose second parameter is a host-side "
             "TMA descriptor (elem_type 7, swizzle 3, shape [64,128], strides [128,1], block_shape "
             "[32,64], oob_fill 0); metadata b'meta', name 'tma_case'; the PTX is a stub and must "
             "not be launched", raw, [], [])

  # hsaco/<arch>/kernel.hsaco: the add kernel for AMD GPUs (wavefront 64).
  for arch in ("gfx90a", "gfx942"):
    compiled = compile_kernel(k["add"], ADD_TYPES, {"BLOCK": 1024}, GPUTarget("hip", arch, 64))
    folder = os.path.join(out, "jaxlib-0.11.2", "hsaco", arch)
    os.makedirs(folder)
    with open(os.path.join(folder, "kernel.hsaco"), "wb") as f:
      f.write(scrub(compiled.asm["hsaco"]))
    print(f"jaxlib-0.11.2/hsaco/{arch}/kernel.hsaco")


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--out", default=os.path.join(ROOT, "build", "test-data-new"),
                      help="a new or empty folder (default build/test-data-new)")
  parser.add_argument("--only", choices=("jaxlib", "triton"), help="make one half only")
  parser.add_argument("--seed", type=int, default=22, help="NumPy's generator seed for the inputs")
  args = parser.parse_args()
  out = os.path.abspath(args.out)
  if os.path.realpath(out) == os.path.realpath(HERE):
    raise SystemExit("regenerate: --out must not be test/data itself (compare, then copy)")
  if os.path.exists(out) and os.listdir(out):
    raise SystemExit(f"regenerate: {out} is not empty")
  os.makedirs(out, exist_ok=True)
  print(f"triton {triton.__version__}, numpy {np.__version__}; writing {out}")
  try:
    if args.only in (None, "triton"):
      make_triton(out)
      make_triton_jit(out)
    if args.only in (None, "jaxlib"):
      make_jaxlib(out, args.seed)
  finally:
    shutil.rmtree(_CACHE, ignore_errors=True)
  print("regenerate: done; compare with test/data (diff -r) before copying anything over")


if __name__ == "__main__":
  main()
