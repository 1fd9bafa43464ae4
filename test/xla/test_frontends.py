# SPDX-License-Identifier: Apache-2.0
"""Frontend conformance: calls shaped the way jax-triton, TransformerEngine's JAX Triton extensions
and ejKernel lower theirs (target, api_version, parameter layout, alias records, zeroed outputs,
empty optional tensors, per-config grids, num_ctas, dtypes), built with jaxlib's own gpu_triton
classes and run through jaxlib's targets and tkrt's. Every output must equal numpy's bit for bit.

One process per command-buffer mode (run.sh sets XLA_FLAGS and TKRT_FRONTENDS_MODE); each case
prints `CHECK frontends[<mode>].<case> PASS|FAIL|SKIP  <note>` as soon as it finishes and the
process exits 1 when a case failed. The kernels are this project's own; only their call shapes
follow the frontends (see the report of the conformance branch for where each fact was read).

jaxlib's FFI target tunes autotuned calls in XLA's initialize stage, before the program has
produced its data; TransformerEngine sends its autotuned calls to the legacy target for that
reason, so autotuned TransformerEngine cases compare jaxlib legacy, tkrt legacy and tkrt FFI.
"""

import os
import sys
import time
import traceback

import jax
import jax.numpy as jnp
import numpy as np
import triton
import triton.language as tl

import tkrt
import tkrt_frontend as fe

MODE = os.environ.get("TKRT_FRONTENDS_MODE", "default")
SHORT = {fe.JAXLIB_FFI: "jaxlib-ffi", fe.JAXLIB_LEGACY: "jaxlib-legacy",
         fe.TKRT_FFI: "tkrt-ffi", fe.TKRT_LEGACY: "tkrt-legacy"}
TKRT = (fe.TKRT_FFI, fe.TKRT_LEGACY)
# Counters reported per case (summed over the tkrt runs of the case).
WATCH = ("executed", "executed_captured", "legacy_executed", "tuned_in_execute",
         "capture_fallbacks", "unknown_size_fallbacks", "errors")


class Skip(Exception):
  pass


CASES = []
COUNTS = {"PASS": 0, "FAIL": 0, "SKIP": 0}


def case(name):
  def wrap(fn):
    CASES.append((name, fn))
    return fn
  return wrap


def run_case(name, fn):
  start = time.time()
  try:
    note = fn() or ""
    verdict = "PASS"
  except Skip as e:
    verdict, note = "SKIP", str(e)
  except Exception as e:  # noqa: BLE001 - every failure is reported, then the next case runs
    traceback.print_exc()
    verdict, note = "FAIL", f"{type(e).__name__}: {str(e)[:600]}"
  COUNTS[verdict] += 1
  note = " ".join(note.split())
  print(f"CHECK frontends[{MODE}].{name} {verdict}  ({time.time() - start:.1f}s) {note}",
        flush=True)


def need_cc(minimum, why):
  if fe.compute_capability() < minimum:
    raise Skip(f"needs compute capability >= {minimum} ({why}); this GPU has "
               f"{fe.compute_capability()}")


# ---------------------------------------------------------------- comparing and counting

def _flat_bits(a):
  a = np.ascontiguousarray(a).reshape(-1)
  return a.view(f"u{a.dtype.itemsize}") if a.size else a.view(np.uint8)


def check_equal(label, got, want):
  got = [np.asarray(g) for g in jax.tree.leaves(got)]
  if len(got) != len(want):
    raise AssertionError(f"{label}: {len(got)} outputs, expected {len(want)}")
  for i, (g, w) in enumerate(zip(got, want)):
    w = np.asarray(w)
    if g.shape != w.shape or g.dtype != w.dtype:
      raise AssertionError(f"{label}: output {i} is {g.dtype}{list(g.shape)}, expected "
                           f"{w.dtype}{list(w.shape)}")
    bad = np.flatnonzero(_flat_bits(g) != _flat_bits(w))
    if bad.size:
      first = bad[:4]
      raise AssertionError(f"{label}: output {i} differs in {bad.size} of {g.size} elements, "
                           f"first at flat {first.tolist()}: got {g.reshape(-1)[first]}, "
                           f"expected {w.reshape(-1)[first]}")


def stats():
  s = tkrt.stats()
  return {k: s.get(k, 0) for k in WATCH}, "unknown_size_fallbacks" in s


def run_variants(variants, args, expected, *, repeat=2, no_unknown_size=False):
  """variants: [(label, fn, uses_tkrt)]. Each fn is jitted and run `repeat` times on args (the
  first run tunes and, with command buffers, may run under capture; later ones replay); every
  output must equal `expected` bit for bit. On tkrt runs, tkrt.stats()["errors"] must not grow,
  nor "unknown_size_fallbacks" when no_unknown_size (read with .get: older builds lack it)."""
  total = {k: 0 for k in WATCH}
  labels = []
  have_counter = True
  for label, fn, uses_tkrt in variants:
    before, have_counter = stats()
    jitted = jax.jit(fn)
    try:
      for r in range(repeat):
        out = jax.block_until_ready(jitted(*args))
        check_equal(f"{label} run {r + 1}", out, expected)
    except Exception as e:  # noqa: BLE001
      # jaxlib refuses to autotune while a stream captures; that is jaxlib's limit, not tkrt's.
      if uses_tkrt or "graph capture" not in str(e):
        raise
      labels.append(f"{label} REFUSED by jaxlib under graph capture")
      continue
    after, _ = stats()
    delta = {k: after[k] - before[k] for k in WATCH}
    if uses_tkrt:
      if delta["errors"]:
        raise AssertionError(f"{label}: tkrt.stats()['errors'] grew by {delta['errors']}")
      if no_unknown_size and delta["unknown_size_fallbacks"]:
        raise AssertionError(f"{label}: tkrt.stats()['unknown_size_fallbacks'] grew by "
                             f"{delta['unknown_size_fallbacks']}: an in-place input's size was "
                             f"unknown although an alias record gives it")
      for k in WATCH:
        total[k] += delta[k]
    labels.append(label)
  shown = [f"{k}+{v}" for k, v in total.items() if v or k == "errors"]
  shown.append("unknown_size_fallbacks+" + (str(total["unknown_size_fallbacks"]) if have_counter
                                             else "? (no such counter in this build)"))
  return f"equal to numpy on {', '.join(labels)}; tkrt: {' '.join(dict.fromkeys(shown))}"


def per_target(make, targets, name):
  """Variants for make(target, blob_name): one per target, each with its own blob name so each
  target (jaxlib's caches and tkrt's decisions are keyed by the blob) tunes by itself."""
  return [(SHORT[t], make(t, f"{name}/{SHORT[t]}"), t in TKRT) for t in targets]


def cdiv(a, b):
  return (a + b - 1) // b


# ---------------------------------------------------------------- kernels (this project's own)

@triton.jit
def add_tail_kernel(x_ptr, y_ptr, n, stride: tl.constexpr, out_ptr, BLOCK: tl.constexpr):
  # stride is always 1: the frontends specialize ints equal to 1, so it is no call parameter.
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  x = tl.load(x_ptr + offs * stride, mask=mask)
  y = tl.load(y_ptr + offs * stride, mask=mask)
  tl.store(out_ptr + offs * stride, x + y, mask=mask)


@triton.jit
def ref_update_kernel(x_ref, y_ptr, n, o_ptr, BLOCK: tl.constexpr):
  # o = x + y, and x updated in place (x_ref is a Ref: its new value is an extra result).
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  x = tl.load(x_ref + offs, mask=mask)
  y = tl.load(y_ptr + offs, mask=mask)
  tl.store(o_ptr + offs, x + y, mask=mask)
  tl.store(x_ref + offs, x * 2.0 + 1.0, mask=mask)


@triton.jit
def accumulate_kernel(x_ptr, n, out_ptr, BLOCK: tl.constexpr):
  # Adds into out: right only if out is zeroed before every launch (autotuning launches many).
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  tl.atomic_add(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def inplace_scale_kernel(x_ptr, n, xo_ptr, BLOCK: tl.constexpr):
  # xo_ptr is the output aliased to x: same memory. Not idempotent, so autotuning must restore x.
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  tl.store(xo_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0 + 1.0, mask=mask)


@triton.jit
def sum_and_scale_kernel(x_ptr, y_ptr, n, o_ptr, xo_ptr, BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  x = tl.load(x_ptr + offs, mask=mask)
  tl.store(o_ptr + offs, x + tl.load(y_ptr + offs, mask=mask), mask=mask)
  tl.store(xo_ptr + offs, x * 2.0 + 1.0, mask=mask)


@triton.jit
def dtypes_kernel(bf_ptr, e4_ptr, e5_ptr, b_ptr, n, f32_ptr, not_b_ptr, e4_out_ptr,
                  BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  e4 = tl.load(e4_ptr + offs, mask=mask)
  b = tl.load(b_ptr + offs, mask=mask)
  tl.store(f32_ptr + offs, tl.load(bf_ptr + offs, mask=mask).to(tl.float32), mask=mask)
  tl.store(f32_ptr + n + offs, e4.to(tl.float32), mask=mask)
  tl.store(f32_ptr + 2 * n + offs, tl.load(e5_ptr + offs, mask=mask).to(tl.float32), mask=mask)
  tl.store(f32_ptr + 3 * n + offs, b.to(tl.float32), mask=mask)
  tl.store(not_b_ptr + offs, b == 0, mask=mask)
  tl.store(e4_out_ptr + offs, e4, mask=mask)


@triton.jit
def chunk_permute_kernel(inp_ptr, map_ptr, probs_ptr, out_buf_ptr,
                         IN_STRIDE: tl.constexpr, OUT_STRIDE: tl.constexpr,
                         out_ptr, out_probs_ptr,
                         HIDDEN: tl.constexpr, PERMUTE_PROBS: tl.constexpr,
                         FORWARD: tl.constexpr, BLOCK_SIZE: tl.constexpr):
  # Row `token` moves to row map[token] (FORWARD) or takes row map[token] (backward). out_buf_ptr
  # is the pre-allocated buffer aliased to out_ptr; the kernel writes through out_ptr.
  token = tl.program_id(0)
  cols = tl.program_id(1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
  keep = cols < HIDDEN
  mapped = tl.load(map_ptr + token).to(tl.int64)
  if FORWARD:
    src = token.to(tl.int64)
    dst = mapped
  else:
    src = mapped
    dst = token.to(tl.int64)
  row = tl.load(inp_ptr + src * IN_STRIDE + cols, mask=keep)
  tl.store(out_ptr + dst * OUT_STRIDE + cols, row, mask=keep)
  if PERMUTE_PROBS:
    if tl.program_id(1) == 0:
      tl.store(out_probs_ptr + dst, tl.load(probs_ptr + src))


@triton.jit
def chunk_map_kernel(sizes_ptr, order_ptr, map_ptr, NUM_SPLITS: tl.constexpr,
                     WIDTH: tl.constexpr):
  # Tokens come in chunks of sizes[k]; the output holds the chunks in the order order[0..]. Writes
  # the output row of each token.
  token = tl.program_id(0)
  k = tl.arange(0, WIDTH)
  valid = k < NUM_SPLITS
  sizes = tl.load(sizes_ptr + k, mask=valid, other=0)
  ends = tl.cumsum(sizes, axis=0)
  chunk = tl.sum(tl.where(valid & (ends <= token), 1, 0), axis=0)
  start = tl.sum(tl.where(k < chunk, sizes, 0), axis=0)
  order = tl.load(order_ptr + k, mask=valid, other=0)
  slot = tl.sum(tl.where(valid & (order == chunk), k, 0), axis=0)
  moved = tl.load(sizes_ptr + order, mask=valid, other=0)
  before = tl.sum(tl.where(k < slot, moved, 0), axis=0)
  tl.store(map_ptr + token, before + token - start)


@triton.jit
def permute_pad_kernel(inp_ptr, map_ptr, probs_ptr, scale_ptr, pad_ptr, out_buf_ptr,
                       out_probs_buf_ptr, out_ptr, out_probs_ptr,
                       HIDDEN: tl.constexpr, PERMUTE_PROBS: tl.constexpr,
                       BLOCK_SIZE: tl.constexpr):
  # Rows with map < 0 are dropped; output rows no token maps to keep the pre-zeroed buffer's
  # zeros. scale_ptr and pad_ptr are empty optional operands, never read.
  token = tl.program_id(0)
  cols = tl.program_id(1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
  keep = cols < HIDDEN
  dst = tl.load(map_ptr + token).to(tl.int64)
  if dst >= 0:
    row = tl.load(inp_ptr + token.to(tl.int64) * HIDDEN + cols, mask=keep)
    if PERMUTE_PROBS:
      p = tl.load(probs_ptr + token)
      row = row * p
      if tl.program_id(1) == 0:
        tl.store(out_probs_ptr + dst, p)
    tl.store(out_ptr + dst * HIDDEN + cols, row, mask=keep)


@triton.jit
def two_inplace_kernel(a_ptr, b_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
  # Declares only the two input pointers although the call passes four arrays (inputs and their
  # aliased outputs), as TransformerEngine's row_id_map passes do.
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < N
  tl.store(a_ptr + offs, tl.load(a_ptr + offs, mask=mask) + 1, mask=mask)
  tl.store(b_ptr + offs, tl.load(b_ptr + offs, mask=mask) * 2.0, mask=mask)


# ---------------------------------------------------------------- data

rng = np.random.default_rng(11)
N = 4099                      # elementwise cases: not a multiple of any block
X = rng.standard_normal(N).astype(np.float32)
Y = rng.standard_normal(N).astype(np.float32)
F32 = jax.ShapeDtypeStruct((N,), jnp.float32)
FP32 = "*fp32"


def elementwise_configs(fn, types, blocks_warps_ctas, n=N, constexprs=None, zero=None,
                        grid_of=None):
  """[(TritonKernelCall, description)], one per (BLOCK, num_warps, num_ctas); params: one array
  per pointer (zero: {pointer name: bytes_to_zero}), the i32 scalar n for "n"."""
  configs = []
  for block, warps, ctas in blocks_warps_ctas:
    meta = dict(constexprs or {}, BLOCK=block)
    k = fe.kernel(fn, types, meta, num_warps=warps, num_ctas=ctas)
    params = []
    for name in fn.arg_names:
      if name in meta:
        continue
      if types[name].startswith("*"):
        params.append(fe.array(bytes_to_zero=(zero or {}).get(name, 0)))
      else:
        params.append(fe.scalar(n, types[name]))
    grid = grid_of(meta) if grid_of else (cdiv(n, block),)
    configs.append((fe.kernel_call(k, grid, params),
                    f"BLOCK={block} num_warps={warps} num_ctas={ctas}"))
  return configs


# ================================================================ jax-triton
# jax_triton/triton_lib.py: FFI target triton_kernel_call_ffi, api_version 4, blob in the
# `opaque` attribute (plus cost_estimate_json when given); grid may be a function of the config's
# metaparams, evaluated per config; ints equal to 1 are specialized (no parameter); Refs become
# an extra result appended after the declared outputs and aliased to the operand; aliased outputs
# get no kernel parameter; zeroed_outputs -> bytes_to_zero of the output's parameter; alias
# records are (operand index, OUTPUT ORDINAL, bytes).
JT = (fe.JAXLIB_FFI, fe.TKRT_FFI)
ADD_TYPES = {"x_ptr": FP32, "y_ptr": FP32, "n": "i32", "out_ptr": FP32}


@case("jt_autotuned_grid_from_metaparams")
def _jt_grid():
  configs = elementwise_configs(add_tail_kernel, ADD_TYPES,
                                [(128, 4, 1), (256, 4, 1), (512, 8, 1), (1024, 8, 1)],
                                constexprs={"stride": 1},
                                grid_of=lambda meta: (cdiv(N, meta["BLOCK"]),))
  call = fe.autotuned_call("jt_add (add_tail_kernel) {}", configs)
  extra = (("cost_estimate_json", '{"flops": 4099, "bytes_accessed": 49188}'),)

  def make(target, name):
    opaque = fe.blob(call, name=name)
    return lambda x, y: fe.call(target, opaque, x, y, out_shapes=[F32], extra_attrs=extra)
  return run_variants(per_target(make, JT, "jt_grid"), (X, Y), [X + Y])


@case("jt_ref_inplace_autotuned_ordinal_record")
def _jt_ref():
  types = {"x_ref": FP32, "y_ptr": FP32, "n": "i32", "o_ptr": FP32}
  configs = elementwise_configs(ref_update_kernel, types, [(128, 4, 1), (256, 4, 1), (1024, 8, 1)])
  # Operands (x, y); results (o, x'): the Ref's result comes after the declared output, and the
  # record names it by output ordinal 1 (as a buffer index, 1 would be y).
  call = fe.autotuned_call("jt_ref (ref_update_kernel)", configs, [(0, 1, N * 4)])

  def make(target, name):
    opaque = fe.blob(call, name=name)
    def f(x, y):
      x = x * 1.0 + 0.0  # made in the program: XLA updates it in place
      return fe.call(target, opaque, x, y, out_shapes=[F32, F32], aliases={0: 1})
    return f
  return run_variants(per_target(make, JT, "jt_ref"), (X, Y), [X + Y, X * 2 + 1])


@case("jt_zeroed_outputs_autotuned")
def _jt_zeroed():
  types = {"x_ptr": FP32, "n": "i32", "out_ptr": FP32}
  configs = elementwise_configs(accumulate_kernel, types, [(128, 4, 1), (256, 4, 1), (1024, 8, 1)],
                                zero={"out_ptr": N * 4})
  call = fe.autotuned_call("jt_zeroed (accumulate_kernel)", configs)

  def make(target, name):
    opaque = fe.blob(call, name=name)
    def f(x):
      a = fe.call(target, opaque, x, out_shapes=[F32])[0]
      return fe.call(target, opaque, a, out_shapes=[F32])  # may reuse dirty memory
    return f
  return run_variants(per_target(make, JT, "jt_zeroed"), (X,), [X])


@case("jt_autotuned_num_ctas_per_config")
def _jt_ctas():
  need_cc(90, "cluster launch")
  configs = elementwise_configs(add_tail_kernel, ADD_TYPES,
                                [(256, 4, 1), (256, 4, 2), (512, 4, 2), (1024, 8, 1)],
                                constexprs={"stride": 1})
  call = fe.autotuned_call("jt_ctas (add_tail_kernel)", configs)

  def make(target, name):
    opaque = fe.blob(call, name=name)
    return lambda x, y: fe.call(target, opaque, x, y, out_shapes=[F32])
  return run_variants(per_target(make, JT, "jt_ctas"), (X, Y), [X + Y])


# ================================================================ TransformerEngine
# transformer_engine/jax/triton_extensions/utils.py (triton_call_lowering): autotuned ->
# legacy triton_kernel_call, api_version 2, raw zlib blob as backend_config; plain -> FFI
# triton_kernel_call_ffi with {"opaque": ...}. One array parameter (bytes_to_zero 0,
# divisibility 16) per operand and per result, scalars all specialized as constexprs; num_warps
# 4, num_stages 3, num_ctas 1 unless the config says; grid callable evaluated per config; records
# (operand, num_inputs + output ordinal, operand bytes). permutation.py: dummy pre-allocated
# outputs aliased to results, (0,) tensors for absent optional inputs, BLOCK_SIZE configs
# 64..4096, grid (tokens, cdiv(hidden, BLOCK_SIZE)).
TE_BLOCKS = (64, 128, 256, 512, 1024, 2048, 4096)
T_TOK, T_HID = 512, 1000
TE_TUNED = (fe.JAXLIB_LEGACY, fe.TKRT_LEGACY, fe.TKRT_FFI)
EMPTY_F32 = jax.ShapeDtypeStruct((0,), jnp.float32)
ROWS = jax.ShapeDtypeStruct((T_TOK, T_HID), jnp.float32)
TOK_F32 = jax.ShapeDtypeStruct((T_TOK,), jnp.float32)
TOK_I32 = jax.ShapeDtypeStruct((T_TOK,), jnp.int32)


def te_array_params(count):
  return [fe.array(0, 16) for _ in range(count)]


def te_sort_call(permute_probs, forward, name):
  """sort_chunks_by_map's call: operands inp, row_id_map, probs, output_buf; results output,
  permuted_probs; input_output_aliases {3: 0}; record (3, 4 + 0, bytes)."""
  types = {"inp_ptr": FP32, "map_ptr": "*i32", "probs_ptr": FP32, "out_buf_ptr": FP32,
           "out_ptr": FP32, "out_probs_ptr": FP32}
  configs = []
  for block in TE_BLOCKS:
    meta = {"IN_STRIDE": T_HID, "OUT_STRIDE": T_HID, "HIDDEN": T_HID,
            "PERMUTE_PROBS": permute_probs, "FORWARD": forward, "BLOCK_SIZE": block}
    k = fe.kernel(chunk_permute_kernel, types, meta, num_warps=4, num_stages=3, hints=False)
    configs.append((fe.kernel_call(k, (T_TOK, cdiv(T_HID, block)), te_array_params(6)),
                    f"BLOCK_SIZE: {block}, num_warps: 4, num_ctas: 1, num_stages: 3"))
  num_inputs = 4
  return fe.autotuned_call(name, configs, [(3, num_inputs + 0, T_TOK * T_HID * 4)])


def te_sort(target, opaque, inp, row_map, probs, out_shape_probs):
  buf = jnp.zeros((T_TOK, T_HID), jnp.float32)  # TE's impl: jnp.empty, i.e. zeros
  return fe.call(target, opaque, inp, row_map, probs, buf,
                 out_shapes=[ROWS, out_shape_probs], aliases={3: 0})


INP = rng.standard_normal((T_TOK, T_HID)).astype(np.float32)
PROBS = rng.uniform(0.1, 1.0, T_TOK).astype(np.float32)
PERM = rng.permutation(T_TOK).astype(np.int32)
EMPTY = np.zeros((0,), np.float32)


def forward_sorted(inp, row_map):
  out = np.empty_like(inp)
  out[row_map] = inp
  return out


@case("te_sort_chunks_by_map_regression")
def _te_regression():
  # Issue 11's call, exactly: probs absent (0,), permuted_probs (0,), 7 configs, kernel with
  # output pointers, record (3, 4, N*H*4), on the legacy target.
  call = te_sort_call(False, True, "_sort_chunks_by_map_kernel_autotuned")

  def make(target, name):
    opaque = fe.blob(call, name=name)
    def f(inp, row_map):
      return te_sort(target, opaque, inp, row_map, jnp.zeros((0,), jnp.float32), EMPTY_F32)
    return f

  variants = per_target(make, TE_TUNED, "te_regression")
  routed_opaque = fe.blob(call, name="te_regression/routed")

  def routed(inp, row_map):
    return te_sort(fe.JAXLIB_LEGACY, routed_opaque, inp, row_map,
                   jnp.zeros((0,), jnp.float32), EMPTY_F32)

  expected = [forward_sorted(INP, PERM), EMPTY]
  note = run_variants(variants, (INP, PERM), expected, no_unknown_size=True)
  # The user's path: TE's lowering names jaxlib's legacy target, tkrt's routing renames it.
  tkrt.route_jaxlib_targets(True)
  try:
    text = jax.jit(routed).lower(INP, PERM).as_text()
    if "tkrt_triton_kernel_call_legacy" not in text:
      raise AssertionError("routed: lowered HLO does not name tkrt_triton_kernel_call_legacy")
    note2 = run_variants([("routed jaxlib-legacy name -> tkrt-legacy", routed, True)],
                         (INP, PERM), expected, no_unknown_size=True)
  finally:
    tkrt.route_jaxlib_targets(False)
  return f"{note} | {note2} | jaxlib-ffi not run (TE sends autotuned calls to legacy)"


@case("te_sort_chunks_by_map_with_probs")
def _te_probs():
  call = te_sort_call(True, True, "_sort_chunks_by_map_kernel_autotuned")

  def make(target, name):
    opaque = fe.blob(call, name=name)
    return lambda inp, row_map, probs: te_sort(target, opaque, inp, row_map, probs, TOK_F32)
  permuted = np.empty_like(PROBS)
  permuted[PERM] = PROBS
  return run_variants(per_target(make, TE_TUNED, "te_probs"), (INP, PERM, PROBS),
                      [forward_sorted(INP, PERM), permuted], no_unknown_size=True)


SPLITS = np.array([40, 100, 7, 65, 120, 30, 90, 60], np.int32)  # sums to T_TOK
ORDER = np.array([5, 2, 7, 0, 3, 6, 1, 4], np.int32)


def chunk_map_reference(sizes, order):
  starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
  out_starts = np.concatenate([[0], np.cumsum(sizes[order])[:-1]])
  slot = np.empty_like(order)
  slot[order] = np.arange(len(order), dtype=order.dtype)
  row_map = np.empty(int(sizes.sum()), np.int32)
  for c in range(len(sizes)):
    tokens = np.arange(starts[c], starts[c] + sizes[c])
    row_map[tokens] = out_starts[slot[c]] + tokens - starts[c]
  return row_map


@case("te_chunk_sort_pipeline_map_made_in_program")
def _te_pipeline():
  # make_chunk_sort_map (plain: FFI in TE) computes row_id_map in the program; two autotuned
  # sort_chunks_by_map calls (legacy in TE) consume it: forward with probs, backward without,
  # which restores the input. Addressing depends on data produced in the program, so jaxlib's
  # FFI target never gets the autotuned calls here.
  width = 8
  map_kernel = fe.kernel(chunk_map_kernel, {"sizes_ptr": "*i32", "order_ptr": "*i32",
                                            "map_ptr": "*i32"},
                         {"NUM_SPLITS": len(SPLITS), "WIDTH": width}, hints=False)
  map_call = fe.kernel_call(map_kernel, (T_TOK,), te_array_params(3))
  fwd_call = te_sort_call(True, True, "_sort_chunks_by_map_kernel_autotuned")
  bwd_call = te_sort_call(False, False, "_sort_chunks_by_map_kernel_autotuned")

  def make(plain_target, tuned_target, name):
    map_opaque = fe.blob(map_call, name=f"{name}/map")
    fwd_opaque = fe.blob(fwd_call, name=f"{name}/fwd")
    bwd_opaque = fe.blob(bwd_call, name=f"{name}/bwd")
    def f(inp, sizes, order, probs):
      row_map = fe.call(plain_target, map_opaque, sizes, order, out_shapes=[TOK_I32])[0]
      out, out_probs = te_sort(tuned_target, fwd_opaque, inp, row_map, probs, TOK_F32)
      back, empty = te_sort(tuned_target, bwd_opaque, out, row_map,
                            jnp.zeros((0,), jnp.float32), EMPTY_F32)
      return row_map, out, out_probs, back, empty
    return f

  combos = [(fe.JAXLIB_FFI, fe.JAXLIB_LEGACY), (fe.JAXLIB_LEGACY, fe.JAXLIB_LEGACY),
            (fe.TKRT_FFI, fe.TKRT_LEGACY), (fe.TKRT_LEGACY, fe.TKRT_LEGACY),
            (fe.TKRT_FFI, fe.TKRT_FFI)]
  variants = []
  for plain_t, tuned_t in combos:
    label = f"plain={SHORT[plain_t]} tuned={SHORT[tuned_t]}"
    variants.append((label, make(plain_t, tuned_t, f"te_pipeline/{label}"), plain_t in TKRT))
  row_map = chunk_map_reference(SPLITS, ORDER)
  permuted = np.empty_like(PROBS)
  permuted[row_map] = PROBS
  expected = [row_map, forward_sorted(INP, row_map), permuted, INP, EMPTY]
  return run_variants(variants, (INP, SPLITS, ORDER, PROBS), expected, no_unknown_size=True)


P_TOK, P_OUT = 256, 320


@case("te_permute_two_dummy_outputs_empty_operands")
def _te_permute():
  # permute_with_mask_map's shape with padding: operands inp, row_id_map, probs, scale (0,),
  # pad_offsets (0,), output_buf, permuted_probs_buf (both pre-zeroed); results output,
  # permuted_probs; aliases {5: 0, 6: 1}; records (5, 7 + 0, ..), (6, 7 + 1, ..).
  types = {"inp_ptr": FP32, "map_ptr": "*i32", "probs_ptr": FP32, "scale_ptr": FP32,
           "pad_ptr": "*i32", "out_buf_ptr": FP32, "out_probs_buf_ptr": FP32, "out_ptr": FP32,
           "out_probs_ptr": FP32}
  configs = []
  for block in TE_BLOCKS:
    meta = {"HIDDEN": T_HID, "PERMUTE_PROBS": True, "BLOCK_SIZE": block}
    k = fe.kernel(permute_pad_kernel, types, meta, hints=False)
    configs.append((fe.kernel_call(k, (P_TOK, cdiv(T_HID, block)), te_array_params(9)),
                    f"BLOCK_SIZE: {block}"))
  num_inputs = 7
  call = fe.autotuned_call("_permute_kernel_autotuned", configs,
                           [(5, num_inputs + 0, P_OUT * T_HID * 4),
                            (6, num_inputs + 1, P_OUT * 4)])
  out_rows = jax.ShapeDtypeStruct((P_OUT, T_HID), jnp.float32)
  out_probs = jax.ShapeDtypeStruct((P_OUT,), jnp.float32)

  def make(target, name):
    opaque = fe.blob(call, name=name)
    def f(inp, row_map, probs):
      return fe.call(target, opaque, inp, row_map, probs, jnp.zeros((0,), jnp.float32),
                     jnp.zeros((0,), jnp.int32), jnp.zeros((P_OUT, T_HID), jnp.float32),
                     jnp.zeros((P_OUT,), jnp.float32), out_shapes=[out_rows, out_probs],
                     aliases={5: 0, 6: 1})
    return f

  inp = INP[:P_TOK]
  probs = PROBS[:P_TOK]
  dst = rng.permutation(P_OUT)[:P_TOK].astype(np.int32)
  dst[rng.random(P_TOK) < 0.125] = -1  # dropped tokens
  want_rows = np.zeros((P_OUT, T_HID), np.float32)
  want_probs = np.zeros((P_OUT,), np.float32)
  kept = dst >= 0
  want_rows[dst[kept]] = inp[kept] * probs[kept][:, None]
  want_probs[dst[kept]] = probs[kept]
  return run_variants(per_target(make, TE_TUNED, "te_permute"), (inp, dst, probs),
                      [want_rows, want_probs], no_unknown_size=True)


@case("te_plain_two_inplace_kernel_declares_fewer_pointers")
def _te_plain_inplace():
  # row_id_map pass 2 style: plain call, aliases {0: 0, 1: 1}, four array parameters (two
  # operands, two results) for a kernel that declares two pointers.
  n, block = 3000, 1024
  k = fe.kernel(two_inplace_kernel, {"a_ptr": "*i32", "b_ptr": FP32}, {"N": n, "BLOCK": block},
                hints=False)
  call = fe.kernel_call(k, (cdiv(n, block),), te_array_params(4))
  a = rng.integers(-1000, 1000, n).astype(np.int32)
  b = rng.standard_normal(n).astype(np.float32)
  shapes = [jax.ShapeDtypeStruct((n,), jnp.int32), jax.ShapeDtypeStruct((n,), jnp.float32)]

  def make(target, name):
    opaque = fe.blob(call, name=name)
    def f(a, b):
      return fe.call(target, opaque, a + 0, b * 1.0, out_shapes=shapes, aliases={0: 0, 1: 1})
    return f
  targets = (fe.JAXLIB_FFI, fe.JAXLIB_LEGACY, fe.TKRT_FFI, fe.TKRT_LEGACY)
  return run_variants(per_target(make, targets, "te_plain_inplace"), (a, b), [a + 1, b * 2])


# ================================================================ ejKernel
# ejkernel/callib/_triton_call.py: custom_call_target_name defaults to the legacy
# triton_kernel_call, always api_version 2 with zlib(blob) as backend_config; kernel parameters:
# the call's arguments in order (scalars where they were passed; ints equal to 1 specialized)
# followed by ALL outputs, aliased ones included; zeroed_outputs -> bytes_to_zero at parameter
# len(inputs) + len(scalars) + ordinal; num_ctas to the compiler and the kernel (Hopper+);
# dtype map with bf16, fp8e4nv, fp8e5 (and AMD's fnuz fp8), bool -> i1; alias records
# (operand index, OUTPUT ORDINAL, bytes).
EJ = (fe.JAXLIB_LEGACY, fe.TKRT_LEGACY)


@case("ej_dtypes_bf16_fp8_bool")
def _ej_dtypes():
  need_cc(89, "fp8e4nv")
  n, block = 3000, 1024
  bf16, e4, e5 = (np.dtype(jnp.bfloat16), np.dtype(jnp.float8_e4m3fn),
                  np.dtype(jnp.float8_e5m2))
  types = {"bf_ptr": fe.pointer(bf16), "e4_ptr": fe.pointer(e4), "e5_ptr": fe.pointer(e5),
           "b_ptr": fe.pointer(np.bool_), "n": "i32", "f32_ptr": FP32,
           "not_b_ptr": fe.pointer(np.bool_), "e4_out_ptr": fe.pointer(e4)}
  k = fe.kernel(dtypes_kernel, types, {"BLOCK": block})
  params = [fe.array() for _ in range(4)] + [fe.scalar(n, "i32")] + [fe.array() for _ in range(3)]
  call = fe.kernel_call(k, (cdiv(n, block),), params)
  xb = rng.uniform(-8, 8, n).astype(np.float32).astype(bf16)
  x4 = rng.uniform(-8, 8, n).astype(np.float32).astype(e4)
  x5 = rng.uniform(-8, 8, n).astype(np.float32).astype(e5)
  xbool = rng.random(n) < 0.5
  shapes = [jax.ShapeDtypeStruct((4, n), jnp.float32), jax.ShapeDtypeStruct((n,), jnp.bool_),
            jax.ShapeDtypeStruct((n,), jnp.float8_e4m3fn)]

  def make(target, name):
    opaque = fe.blob(call, name=name)
    return lambda a, b, c, d: fe.call(target, opaque, a, b, c, d, out_shapes=shapes)
  want = np.stack([xb.astype(np.float32), x4.astype(np.float32), x5.astype(np.float32),
                   xbool.astype(np.float32)])
  return run_variants(per_target(make, EJ, "ej_dtypes"), (xb, x4, x5, xbool),
                      [want, ~xbool, x4])


@case("ej_zeroed_outputs_autotuned")
def _ej_zeroed():
  types = {"x_ptr": FP32, "n": "i32", "out_ptr": FP32}
  # Arguments (x, n), one output: bytes_to_zero on parameter 1 (input) + 1 (scalar) + 0.
  configs = elementwise_configs(accumulate_kernel, types, [(128, 4, 1), (512, 4, 1), (1024, 8, 1)],
                                zero={"out_ptr": N * 4})
  call = fe.autotuned_call("ej_zeroed (accumulate_kernel) {'n': 4099}", configs)

  def make(target, name):
    opaque = fe.blob(call, name=name)
    def f(x):
      a = fe.call(target, opaque, x, out_shapes=[F32])[0]
      return fe.call(target, opaque, a, out_shapes=[F32])
    return f
  return run_variants(per_target(make, EJ, "ej_zeroed"), (X,), [X])


@case("ej_autotuned_num_ctas")
def _ej_ctas():
  need_cc(90, "cluster launch")
  configs = elementwise_configs(add_tail_kernel, ADD_TYPES,
                                [(256, 4, 2), (512, 4, 2), (1024, 8, 1)],
                                constexprs={"stride": 1})
  call = fe.autotuned_call("ej_ctas (add_tail_kernel)", configs)

  def make(target, name):
    opaque = fe.blob(call, name=name)
    return lambda x, y: fe.call(target, opaque, x, y, out_shapes=[F32])
  return run_variants(per_target(make, EJ, "ej_ctas"), (X, Y), [X + Y])


@case("ej_inplace_autotuned_record_0_0")
def _ej_inplace():
  # Operand x, result x' aliased {0: 0}; kernel parameters x and x' (all outputs get one);
  # record (0, 0, bytes): ordinal 0, which jaxlib reads as buffer 0, i.e. x itself.
  types = {"x_ptr": FP32, "n": "i32", "xo_ptr": FP32}
  configs = elementwise_configs(inplace_scale_kernel, types,
                                [(128, 4, 1), (256, 4, 1), (1024, 8, 1)])
  call = fe.autotuned_call("ej_inplace (inplace_scale_kernel)", configs, [(0, 0, N * 4)])

  def make(target, name):
    opaque = fe.blob(call, name=name)
    def f(x):
      return fe.call(target, opaque, x * 1.0 + 0.0, out_shapes=[F32], aliases={0: 0})
    return f
  return run_variants(per_target(make, EJ, "ej_inplace"), (X,), [X * 2 + 1])


@case("ej_record_ordinal_is_not_a_buffer_index")
def _ej_ordinal():
  # Operands (x, y), results (o, x') aliased {0: 1}; record (0, 1, bytes) by ejKernel's
  # convention. jaxlib compares buffers[0] with buffers[1] (y), saves nothing and tunes the
  # non-idempotent kernel on x in place: its result is reported, not required. tkrt must be right.
  types = {"x_ptr": FP32, "y_ptr": FP32, "n": "i32", "o_ptr": FP32, "xo_ptr": FP32}
  configs = elementwise_configs(sum_and_scale_kernel, types,
                                [(128, 4, 1), (256, 4, 1), (1024, 8, 1)])
  call = fe.autotuned_call("ej_ordinal (sum_and_scale_kernel)", configs, [(0, 1, N * 4)])

  def make(target, name):
    opaque = fe.blob(call, name=name)
    def f(x, y):
      return fe.call(target, opaque, x * 1.0 + 0.0, y, out_shapes=[F32, F32], aliases={0: 1})
    return f
  expected = [X + Y, X * 2 + 1]
  note = run_variants(per_target(make, (fe.TKRT_LEGACY,), "ej_ordinal"), (X, Y), expected)
  try:
    run_variants(per_target(make, (fe.JAXLIB_LEGACY,), "ej_ordinal"), (X, Y), expected, repeat=1)
    jaxlib = "jaxlib-legacy also equal"
  except AssertionError as e:
    jaxlib = f"jaxlib-legacy differs, as its buffer-index reading predicts ({str(e)[:160]})"
  except Exception as e:  # noqa: BLE001 - jaxlib's outcome is reported, not judged
    jaxlib = f"jaxlib-legacy raised {type(e).__name__}: {str(e)[:160]}"
  return f"{note}; {jaxlib}"


def jaxlib_version():
  try:
    from importlib.metadata import version
    return version("jaxlib")
  except Exception:  # noqa: BLE001 - informational only
    return "?"


def main():
  print(f"frontends[{MODE}]: jax {jax.__version__}, jaxlib {jaxlib_version()}, "
        f"triton {triton.__version__}, {jax.devices()}, cc {fe.compute_capability()}, "
        f"{tkrt.version()}, XLA_FLAGS={os.environ.get('XLA_FLAGS', '')!r}, "
        f"TKRT_TUNE_DIR={os.environ.get('TKRT_TUNE_DIR', '')!r}", flush=True)
  tkrt.register()
  tkrt.route_jaxlib_targets(False)  # cases name jaxlib's targets and tkrt's explicitly
  for name, fn in CASES:
    run_case(name, fn)
  print("stats:", tkrt.stats())
  print(f"frontends[{MODE}]: {COUNTS['PASS']} passed, {COUNTS['FAIL']} failed, "
        f"{COUNTS['SKIP']} skipped", flush=True)
  return 1 if COUNTS["FAIL"] else 0


if __name__ == "__main__":
  sys.exit(main())
