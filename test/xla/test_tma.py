# SPDX-License-Identifier: Apache-2.0
"""GPU check of jaxlib's TMA descriptor parameter (TritonKernelCall.Parameter field 9) through
tkrt's XLA targets against jaxlib's own. The call is built the way jax-triton builds one for a
Triton host-side TensorDescriptor: create_tma_descriptor_parameter(...) followed by the
descriptor's shape (i32) and strides (i64) as scalar parameters; the TMA parameter's base is the
next buffer.

Cases:
  tma_load_zero / tma_load_nan: a Triton kernel loads tiles of a (100, 200) f32 tensor through the
    descriptor (tiles run past the edges: out-of-bounds fill 0 -> zeros, 1 -> NaN) and multiplies
    them by a scalar read from the buffer before it; outputs must match bit for bit across
    jaxlib's and tkrt's targets and numpy.
  tma_descriptor_bytes: a kernel with the same parameter list that copies its raw parameters
    (the 128-byte CUtensorMap, the shape/stride scalars) to its output: tkrt's bytes must equal
    jaxlib's, i.e. tkrt encodes the same descriptor over the same buffer.
Also prints what it learns about jaxlib's side (the Python binding, the wire bytes, which
cuTensorMapEncodeTiled arguments reproduce jaxlib's descriptor). Exit 1 when a case fails."""

import ctypes
import os
import re
import sys
import traceback

import jax
import jax.numpy as jnp
import numpy as np
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

import tkrt
import tkrt_frontend as fe
from jax._src.lib import gpu_triton

RESULTS = []
TARGETS = (fe.JAXLIB_FFI, fe.JAXLIB_LEGACY, fe.TKRT_FFI, fe.TKRT_LEGACY)
M, N, BM, BN = 100, 200, 32, 64
GM, GN = fe.cdiv(M, BM), fe.cdiv(N, BN)


def record(name, fn):
  try:
    note = fn() or ""
    RESULTS.append((name, True, note))
  except Exception as e:  # noqa: BLE001 - report and go on
    traceback.print_exc()
    RESULTS.append((name, False, f"{type(e).__name__}: {str(e)[:400]}"))
  print(f"==> {name}: {'PASS' if RESULTS[-1][1] else 'FAIL'} {RESULTS[-1][2]}", flush=True)


@triton.jit
def tma_scale_kernel(scale_ptr, desc, out_ptr, BM: tl.constexpr, BN: tl.constexpr,
                     OUT_N: tl.constexpr):
  pm = tl.program_id(0)
  pn = tl.program_id(1)
  tile = desc.load([pm * BM, pn * BN])
  s = tl.load(scale_ptr)
  rm = pm * BM + tl.arange(0, BM)
  rn = pn * BN + tl.arange(0, BN)
  tl.store(out_ptr + rm[:, None] * OUT_N + rn[None, :], tile * s)


def compile_tma_kernel():
  cc = fe.compute_capability()
  src = ASTSource(fn=tma_scale_kernel,
                  signature={"scale_ptr": "*fp32", "desc": f"tensordesc<fp32[{BM},{BN}]>",
                             "out_ptr": "*fp32", "BM": "constexpr", "BN": "constexpr",
                             "OUT_N": "constexpr"},
                  constexprs={"BM": BM, "BN": BN, "OUT_N": GN * BN})
  compiled = triton.compile(src, target=GPUTarget("cuda", cc, 32),
                            options=dict(num_warps=4, num_ctas=1, num_stages=1))
  md = compiled.metadata
  ptx = compiled.asm["ptx"]
  kernel = gpu_triton.TritonKernel(fe._meta(md, "name"), 4, 1, fe._meta(md, "shared", 0), ptx,
                                   compiled.asm.get("ttir", ""), cc)
  return kernel, md, ptx


def entry_params(ptx):
  """The .entry's parameter declarations: [(type, array_bytes or 0)]."""
  head = ptx[ptx.index(".entry"):]
  head = head[head.index("(") + 1:head.index(")")]
  out = []
  for decl in head.split(","):
    decl = decl.strip()
    if not decl:
      continue
    m = re.search(r"\[(\d+)\]", decl)
    if m:
      out.append(("b8", int(m.group(1))))
    elif re.search(r"\.(u32|b32|s32|f32)\b", decl):
      out.append(("u32", 0))
    else:
      out.append(("u64", 0))
  return out


def dump_kernel_ptx(ptx, params):
  """A kernel with `params`' signature that stores every parameter's bytes, 8-aligned in order,
  to the third-last parameter (the output pointer; the last two are Triton's hidden ones)."""
  version = re.search(r"^\.version.*$", ptx, re.M).group(0)
  decls, body, off = [], [], 0
  for i, (kind, size) in enumerate(params):
    if kind == "b8":
      decls.append(f".param .align 64 .b8 p{i}[{size}]")
      for k in range(0, size, 4):
        body += [f"ld.param.u32 %r1, [p{i}+{k}];", f"st.global.u32 [%rd1+{off + k}], %r1;"]
      off += size
    elif kind == "u32":
      decls.append(f".param .u32 p{i}")
      body += [f"ld.param.u32 %r1, [p{i}];", f"st.global.u32 [%rd1+{off}], %r1;",
               f"st.global.u32 [%rd1+{off + 4}], %r0;"]
      off += 8
    else:
      decls.append(f".param .u64 p{i}")
      body += [f"ld.param.u64 %rd2, [p{i}];", f"st.global.u64 [%rd1+{off}], %rd2;"]
      off += 8
  out = len(params) - 3
  text = "\n".join([version, ".target sm_90a", ".address_size 64", "",
                    ".visible .entry dump_params(", ",\n".join(decls), ")", "{",
                    ".reg .b32 %r<2>;", ".reg .b64 %rd<3>;", "mov.u32 %r0, 0;",
                    f"ld.param.u64 %rd1, [p{out}];", "cvta.to.global.u64 %rd1, %rd1;",
                    *body, "ret;", "}", ""])
  return text, off


def tma_params(meta, oob_fill, out_array=True):
  kwargs = dict(elem_type=meta["host_elem_type"], elem_size_bytes=meta["elem_size"],
                swizzle=meta["swizzle"], shape=[M, N], strides=[N, 1],
                block_shape=[int(b) for b in meta["block_size"]], oob_fill=oob_fill)
  try:  # jaxlib 0.11.2's binding has no elem_size_bytes (newer jax-triton passes it)
    tma = gpu_triton.create_tma_descriptor_parameter(**kwargs)
  except TypeError:
    del kwargs["elem_size_bytes"]
    tma = gpu_triton.create_tma_descriptor_parameter(**kwargs)
  params = [fe.array(0, 0), tma]
  params += [fe.scalar(M, "i32"), fe.scalar(N, "i32"), fe.scalar(N, "i64"), fe.scalar(1, "i64")]
  if out_array:
    params.append(fe.array(0, 0))
  return params


def main():
  print(f"jax {jax.__version__}, triton {triton.__version__}, {jax.devices()}, "
        f"cc {fe.compute_capability()}, {tkrt.version()}, lib {tkrt.library_path()}", flush=True)
  print("registered:", tkrt.use_for_jax_triton(), flush=True)
  tkrt.route_jaxlib_targets(False)
  print("gpu_triton:", [n for n in dir(gpu_triton) if not n.startswith("__")])
  print("create_tma_descriptor_parameter:", gpu_triton.create_tma_descriptor_parameter.__doc__)
  try:
    from triton.backends.nvidia import driver as nvd
    print("triton TMA_DTYPE_DEVICE_TO_HOST:", getattr(nvd, "TMA_DTYPE_DEVICE_TO_HOST", None))
  except Exception as e:  # noqa: BLE001
    print("triton driver:", e)

  kernel, md, ptx = compile_tma_kernel()
  metas = fe._meta(md, "tensordesc_meta")
  print("tensordesc_meta:", metas)
  meta = dict(metas[0])
  from triton.backends.nvidia.driver import TMA_DTYPE_DEVICE_TO_HOST
  meta["host_elem_type"] = TMA_DTYPE_DEVICE_TO_HOST[meta["elem_type"]]
  params_decl = entry_params(ptx)
  print("entry params:", params_decl)
  if len(params_decl) != 9:
    raise SystemExit(f"unexpected Triton ABI for a tensordesc kernel: {params_decl}")

  key = jax.random.PRNGKey(0)
  x = jax.random.normal(key, (M, N), jnp.float32)
  scale = jnp.array([2.0], jnp.float32)
  out_shape = jax.ShapeDtypeStruct((GM * BM, GN * BN), jnp.float32)

  for oob_fill, name in ((0, "tma_load_zero"), (1, "tma_load_nan")):
    call = fe.kernel_call(kernel, (GM, GN, 1), tma_params(meta, oob_fill))
    proto = call.to_proto("tma", b"")
    print(f"{name} proto ({len(proto)} B), TMA parameter bytes:",
          proto[proto.index(b"\x4a"):][:40].hex() if b"\x4a" in proto else "?")
    opaque = fe.blob(call, "tma")
    pad = np.full((GM * BM, GN * BN), np.nan if oob_fill else 0.0, np.float32)
    pad[:M, :N] = np.asarray(x)
    expected = pad * np.float32(2.0)

    def case(opaque=opaque, expected=expected):
      notes = []
      for target in TARGETS:
        out = jax.jit(lambda s, a, t=target: fe.call(t, opaque, s, a, out_shapes=[out_shape]))(
            scale, x)[0]
        if not fe.same(out, expected):
          o = np.asarray(out)
          bad = np.flatnonzero(~((o == expected) | (np.isnan(o) & np.isnan(expected))))[:5]
          raise AssertionError(f"{target}: differs at {list(bad)}: {o.ravel()[bad]} vs "
                               f"{expected.ravel()[bad]}")
        notes.append(target.replace("triton_kernel_call", "tkc"))
      return "bit-equal to numpy on " + ", ".join(notes)
    record(name, case)

  # The raw parameters: jaxlib's descriptor bytes vs tkrt's.
  dump_ptx, nbytes = dump_kernel_ptx(ptx, params_decl)
  dump = gpu_triton.TritonKernel("dump_params", 1, 1, 0, dump_ptx, "", fe.compute_capability())
  dump_shape = jax.ShapeDtypeStruct((nbytes,), jnp.uint8)
  dumps = {}

  def bytes_case():
    errors = []
    for oob_fill in (0, 1):
      opaque = fe.blob(fe.kernel_call(dump, (1, 1, 1), tma_params(meta, oob_fill)), "dump")
      for target in TARGETS:
        try:
          out = jax.jit(lambda s, a, t=target: fe.call(t, opaque, s, a, out_shapes=[dump_shape]))(
              scale, x)[0]
          dumps[(oob_fill, target)] = np.asarray(out).tobytes()
        except Exception as e:  # noqa: BLE001 - keep the other targets' bytes for the report
          print(f"  oob {oob_fill} {target}: {type(e).__name__}: {str(e)[:300]}")
          errors.append(target)
    for (oob_fill, target), raw in sorted(dumps.items()):
      print(f"  oob {oob_fill} {target:32} desc {raw[8:136].hex()}")
      print(f"  {'':39} scale 0x{int.from_bytes(raw[0:8], 'little'):x} scalars "
            f"{[int.from_bytes(raw[136 + 8 * k:144 + 8 * k], 'little') for k in range(4)]} "
            f"hidden {raw[-16:].hex()}")
    print(f"  x at 0x{x.unsafe_buffer_pointer():x}, scale at 0x{scale.unsafe_buffer_pointer():x}")
    if errors:
      raise AssertionError(f"failed on {sorted(set(errors))}")
    for oob_fill in (0, 1):
      ref = dumps[(oob_fill, fe.JAXLIB_FFI)]
      for target in TARGETS:
        got = dumps[(oob_fill, target)]
        # Everything but the output pointer (each execution may get another output buffer).
        if got[:168] != ref[:168] or got[-16:] != ref[-16:]:
          raise AssertionError(f"oob {oob_fill}: {target}'s parameters differ from jaxlib's")
    if dumps[(0, fe.JAXLIB_FFI)][8:136] == dumps[(1, fe.JAXLIB_FFI)][8:136]:
      raise AssertionError("oob_fill 0 and 1 gave the same descriptor")
    return "tkrt's 128-byte descriptors and scalars equal jaxlib's (oob_fill 0 and 1)"
  record("tma_descriptor_bytes", bytes_case)

  # Which cuTensorMapEncodeTiled arguments reproduce jaxlib's descriptor (informative).
  try:
    cu = ctypes.CDLL("libcuda.so.1")
    enc = cu.cuTensorMapEncodeTiled
    u64p, u32p = ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint32)
    enc.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p, u64p, u64p,
                    u32p, u32p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    raw = ctypes.create_string_buffer(512)
    slot = (ctypes.addressof(raw) + 127) // 128 * 128
    es = meta["elem_size"]
    bs = [int(b) for b in meta["block_size"]]
    for oob_fill in (0, 1):
      ref = dumps.get((oob_fill, fe.JAXLIB_FFI))
      if ref is None:
        continue
      for base_name, base in (("x", x.unsafe_buffer_pointer()),
                              ("scale", scale.unsafe_buffer_pointer())):
        for l2 in range(4):
          for oob in (0, 1):
            res = enc(slot, meta["host_elem_type"], 2, base, (ctypes.c_uint64 * 2)(N, M),
                      (ctypes.c_uint64 * 1)(N * es), (ctypes.c_uint32 * 2)(bs[1], bs[0]),
                      (ctypes.c_uint32 * 2)(1, 1), 0, meta["swizzle"], l2, oob)
            mine = ctypes.string_at(slot, 128)
            if res == 0 and mine == ref[8:136]:
              print(f"  jaxlib oob_fill {oob_fill}: matches cuTensorMapEncodeTiled(base={base_name}, "
                    f"dims innermost first, byte strides, box {bs[::-1]}, elementStrides 1, "
                    f"interleave 0, swizzle {meta['swizzle']}, L2 promotion {l2}, oobFill {oob})")
  except Exception:  # noqa: BLE001
    traceback.print_exc()

  print("stats:", tkrt.stats())
  failed = 0
  for name, ok, note in RESULTS:
    print(f"CHECK {name:<40} {'PASS' if ok else 'FAIL'}  {note}")
    failed += not ok
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main())
