# SPDX-License-Identifier: Apache-2.0
"""A small Triton frontend for tkrt's XLA tests, built the way jax-triton builds its calls:
kernels compiled with triton.compile(ASTSource), calls made with jaxlib's gpu_triton classes
(TritonKernel, TritonKernelCall, TritonAutotunedKernelCall, create_*_parameter), serialized
with to_proto and zlib, and emitted as a custom call to any target: jaxlib's own
(triton_kernel_call_ffi / triton_kernel_call) or tkrt's, so outputs can be compared."""

from __future__ import annotations

import functools
import zlib

import jax
import numpy as np
from jax._src import dispatch
from jax._src.interpreters import mlir as jmlir  # module attribute: tkrt routing applies
from jax._src.lib import gpu_triton
from jax._src.lib.mlir import ir
from jax.interpreters import mlir

try:
  from jax.extend.core import Primitive
except ImportError:  # older jax
  from jax.core import Primitive

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

JAXLIB_FFI = "triton_kernel_call_ffi"
JAXLIB_LEGACY = "triton_kernel_call"
TKRT_FFI = "tkrt_triton_kernel_call"
TKRT_LEGACY = "tkrt_triton_kernel_call_legacy"
# target -> custom call api_version (4: typed FFI, `opaque` attribute; 2: status-returning).
TARGETS = {JAXLIB_FFI: 4, JAXLIB_LEGACY: 2, TKRT_FFI: 4, TKRT_LEGACY: 2}


@functools.lru_cache(maxsize=None)
def compute_capability() -> int:
  return int(gpu_triton.get_compute_capability(0))


def _meta(md, name, default=None):
  if isinstance(md, dict):
    return md.get(name, default)
  return getattr(md, name, default)


def compile_kernel(fn, signature: dict, constexprs: dict | None = None, *, num_warps=4,
                   num_ctas=1, num_stages=3, divisible=()):
  """Compiles a @triton.jit function to PTX; returns a gpu_triton.TritonKernel."""
  constexprs = dict(constexprs or {})
  cc = compute_capability()
  sig = dict(signature)
  sig.update({name: "constexpr" for name in constexprs})
  attrs = {(fn.arg_names.index(n),): [["tt.divisibility", 16]] for n in divisible}
  src = ASTSource(fn=fn, signature=sig, constexprs=constexprs, attrs=attrs)
  compiled = triton.compile(src, target=GPUTarget("cuda", cc, 32),
                            options=dict(num_warps=num_warps, num_ctas=num_ctas,
                                         num_stages=num_stages))
  md = compiled.metadata
  args = [_meta(md, "name"), num_warps, num_ctas, _meta(md, "shared", 0),
          compiled.asm["ptx"], compiled.asm.get("ttir", ""), cc]
  scratch = _meta(md, "global_scratch_size", 0) or 0
  if scratch:
    args += [scratch, _meta(md, "global_scratch_align", 1) or 1]
  return gpu_triton.TritonKernel(*args)


# Triton's element type names for JAX dtypes: the map jax-triton (_JAX_TO_TRITON_TYPE_MAP),
# TransformerEngine (get_triton_dtype) and ejKernel (_JAX_TO_TRITON_TYPE_MAP) all use; the fnuz fp8
# types are AMD's. Keyed by numpy dtype name (ml_dtypes names bf16 and fp8 "bfloat16", ...).
TRITON_TYPES = {
    "bfloat16": "bf16", "float16": "fp16", "float32": "fp32", "float64": "fp64",
    "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5", "float8_e4m3fnuz": "fp8e4b8",
    "float8_e5m2fnuz": "fp8e5b16", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "i1",
}


def pointer(dtype) -> str:
  """Triton signature type of an array of `dtype`, e.g. "*fp8e4nv"."""
  return "*" + TRITON_TYPES[np.dtype(dtype).name]


def full_signature(fn, types: dict, constexprs) -> dict:
  """Every parameter of `fn` in declaration order: "constexpr" for those in `constexprs`,
  else types[name]. Keeps positions right whatever Triton does with a partial signature."""
  missing = [n for n in fn.arg_names if n not in constexprs and n not in types]
  if missing:
    raise ValueError(f"{fn.__name__}: no type for parameters {missing}")
  return {n: "constexpr" if n in constexprs else types[n] for n in fn.arg_names}


@functools.lru_cache(maxsize=None)
def _kernel_cached(fn, types, constexprs, num_warps, num_ctas, num_stages, hints):
  constexprs = dict(constexprs)
  sig = full_signature(fn, dict(types), constexprs)
  divisible = tuple(n for n, t in sig.items() if t.startswith("*")) if hints else ()
  return compile_kernel(fn, sig, constexprs, num_warps=num_warps, num_ctas=num_ctas,
                        num_stages=num_stages, divisible=divisible)


def kernel(fn, types: dict, constexprs: dict | None = None, *, num_warps=4, num_ctas=1,
           num_stages=3, hints=True):
  """compile_kernel once per process per variant. types: {param: "*fp32" | "i32" ...} for the
  runtime parameters; hints: mark every pointer 16-byte divisible at compile time (jax-triton,
  ejKernel do; TransformerEngine does not)."""
  return _kernel_cached(fn, tuple(sorted(types.items())), tuple(sorted((constexprs or {}).items())),
                        num_warps, num_ctas, num_stages, hints)


def array(bytes_to_zero=0, divisibility=16):
  return gpu_triton.create_array_parameter(bytes_to_zero, divisibility)


def scalar(value, dtype: str):
  if dtype in ("B", "i1"):
    for spelling in ("B", "i1", "int1"):
      try:
        return gpu_triton.create_scalar_parameter(bool(value), spelling)
      except Exception:  # noqa: BLE001 - try the next spelling jaxlib may know
        continue
    raise ValueError("jaxlib accepts no bool scalar spelling")
  return gpu_triton.create_scalar_parameter(value, dtype)


def kernel_call(kernel, grid, params):
  grid = tuple(grid) + (1,) * (3 - len(grid))
  return gpu_triton.TritonKernelCall(kernel, grid[0], grid[1], grid[2], params)


def autotuned_call(name, configs, aliases=()):
  """configs: [(TritonKernelCall, description)]; aliases: [(input, output, bytes)]."""
  return gpu_triton.TritonAutotunedKernelCall(name, list(configs), list(aliases))


def blob(call, name="tkrt_test", metadata=b"") -> bytes:
  return zlib.compress(call.to_proto(name, metadata))


# ---------------------------------------------------------------- the custom call

triton_call_p = Primitive("tkrt_test_triton_call")
triton_call_p.multiple_results = True
triton_call_p.def_impl(functools.partial(dispatch.apply_primitive, triton_call_p))


@triton_call_p.def_abstract_eval
def _abstract_eval(*avals, out_shapes, **_):
  return [jax.core.ShapedArray(s.shape, s.dtype) for s in out_shapes]


def _element_type(dtype):
  # Spelled out: jax's aval/dtype-to-IR helpers change signature between releases.
  dtype = np.dtype(dtype)
  special = {"bfloat16": ir.BF16Type, "float8_e4m3fn": ir.Float8E4M3FNType,
             "float8_e5m2": ir.Float8E5M2Type}
  if dtype.name in special:  # ml_dtypes types: numpy kind "V"
    return special[dtype.name].get()
  if dtype == np.bool_:
    return ir.IntegerType.get_signless(1)
  if dtype.kind == "f":
    return {2: ir.F16Type.get(), 4: ir.F32Type.get(), 8: ir.F64Type.get()}[dtype.itemsize]
  if dtype.kind == "i":
    return ir.IntegerType.get_signless(8 * dtype.itemsize)
  if dtype.kind == "u":
    return ir.IntegerType.get_unsigned(8 * dtype.itemsize)
  raise TypeError(f"unsupported result dtype {dtype}")


def _layouts(avals):
  return [list(reversed(range(len(a.shape)))) for a in avals]


def _lowering(ctx, *args, target, opaque, out_shapes, aliases, extra_attrs):
  api_version = TARGETS.get(target, 4)
  if api_version == 4:
    config = {"opaque": ir.StringAttr.get(opaque)}
    for key, value in extra_attrs:
      config[key] = ir.StringAttr.get(value)
  else:
    config = opaque
  result_types = [ir.RankedTensorType.get(a.shape, _element_type(a.dtype)) for a in ctx.avals_out]
  return jmlir.custom_call(
      target, result_types=result_types, operands=list(args), backend_config=config,
      api_version=api_version, operand_output_aliases=dict(aliases) or None,
      operand_layouts=_layouts(ctx.avals_in), result_layouts=_layouts(ctx.avals_out)).results


mlir.register_lowering(triton_call_p, _lowering, platform="cuda")


def call(target, opaque, *args, out_shapes, aliases=(), extra_attrs=()):
  """Emits one custom call. aliases: {operand index: result index} items."""
  return triton_call_p.bind(*args, target=target, opaque=opaque,
                            out_shapes=tuple(jax.ShapeDtypeStruct(s.shape, s.dtype)
                                             for s in out_shapes),
                            aliases=tuple(sorted(dict(aliases).items())),
                            extra_attrs=tuple(extra_attrs))


def cdiv(a, b):
  return (a + b - 1) // b


def same(a, b) -> bool:
  a, b = np.asarray(a), np.asarray(b)
  return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
