# SPDX-License-Identifier: Apache-2.0
"""GPU checks of tkrt's XLA targets against jaxlib's own: every case is built with jaxlib's
gpu_triton classes, run through jaxlib's target and through tkrt's (FFI and legacy), and the
outputs compared with each other and with numpy. Prints one `CHECK name PASS|FAIL` line per
case; exits 1 when any case fails."""

import os
import sys
import threading
import time
import traceback

import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp
import numpy as np
import triton
import triton.language as tl

import tkrt
import tkrt_frontend as fe

RESULTS = []


def check(name):
  def wrap(fn):
    def run():
      start = time.time()
      try:
        note = fn() or ""
        RESULTS.append((name, True, note))
      except Exception as e:  # noqa: BLE001 - every failure is reported, then the next case runs
        traceback.print_exc()
        RESULTS.append((name, False, f"{type(e).__name__}: {str(e)[:300]}"))
      print(f"==> {name}: {'PASS' if RESULTS[-1][1] else 'FAIL'} ({time.time() - start:.1f}s) "
            f"{RESULTS[-1][2]}", flush=True)
    run.__name__ = name
    CASES.append(run)
    return run
  return wrap


CASES = []
ALL_TARGETS = (fe.JAXLIB_FFI, fe.JAXLIB_LEGACY, fe.TKRT_FFI, fe.TKRT_LEGACY)


def run_all_targets(make_fn, args, expected, targets=ALL_TARGETS):
  """Runs make_fn(target) jitted on args for each target; all must equal `expected`."""
  notes = []
  for target in targets:
    out = jax.jit(make_fn(target))(*args)
    out = jax.tree.leaves(out)
    exp = jax.tree.leaves(expected)
    for i, (o, e) in enumerate(zip(out, exp)):
      if not fe.same(o, e):
        o, e = np.asarray(o), np.asarray(e)
        bad = np.flatnonzero(o.ravel() != e.ravel())[:5] if o.shape == e.shape else []
        raise AssertionError(f"{target}: output {i} differs at {list(bad)}: "
                             f"{o.ravel()[bad] if len(bad) else o.shape} vs "
                             f"{e.ravel()[bad] if len(bad) else e.shape}")
    notes.append(target.replace("triton_kernel_call", "tkc"))
  return "equal on " + ", ".join(notes)


# ---------------------------------------------------------------- kernels

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
           mask=mask)


@triton.jit
def scalars_kernel(ints_ptr, floats_ptr, b, i32, u32, i64, u64, f32, f64):
  tl.store(ints_ptr + 0, b.to(tl.int64))
  tl.store(ints_ptr + 1, i32.to(tl.int64))
  tl.store(ints_ptr + 2, u32.to(tl.int64))
  tl.store(ints_ptr + 3, i64)
  tl.store(ints_ptr + 4, u64.to(tl.int64, bitcast=True))
  tl.store(floats_ptr + 0, f32.to(tl.float64))
  tl.store(floats_ptr + 1, f64)


@triton.jit
def accumulate_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  tl.atomic_add(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def scale_inplace_kernel(x_ptr, n, BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0 + 1.0, mask=mask)


N = 4096
rng = np.random.default_rng(0)
X = rng.standard_normal(N).astype(np.float32)
Y = rng.standard_normal(N).astype(np.float32)
F32 = jax.ShapeDtypeStruct((N,), jnp.float32)


def add_blob(block=256, num_ctas=1, num_warps=4):
  kernel = fe.compile_kernel(add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                                          "n": "i32"}, {"BLOCK": block}, num_warps=num_warps,
                             num_ctas=num_ctas, divisible=("x_ptr", "y_ptr", "out_ptr"))
  params = [fe.array(), fe.array(), fe.array(), fe.scalar(N, "i32")]
  return fe.blob(fe.kernel_call(kernel, (fe.cdiv(N, block),), params), name="add")


# ---------------------------------------------------------------- cases

@check("plain_call")
def _plain():
  opaque = add_blob()
  return run_all_targets(lambda t: lambda x, y: fe.call(t, opaque, x, y, out_shapes=[F32]),
                         (X, Y), [X + Y])


@check("ffi_tolerates_extra_attributes")
def _extra_attrs():
  opaque = add_blob()
  extra = (("name", "my_add"), ("cost_estimate_json", '{"flops": 4096}'))
  return run_all_targets(
      lambda t: lambda x, y: fe.call(t, opaque, x, y, out_shapes=[F32], extra_attrs=extra),
      (X, Y), [X + Y], targets=(fe.JAXLIB_FFI, fe.TKRT_FFI))


@check("scalars_every_kind")
def _scalars():
  kernel = fe.compile_kernel(scalars_kernel, {
      "ints_ptr": "*i64", "floats_ptr": "*fp64", "b": "i1", "i32": "i32", "u32": "u32",
      "i64": "i64", "u64": "u64", "f32": "fp32", "f64": "fp64"}, num_warps=1)
  values = [(True, "B"), (-123456789, "i32"), (3_000_000_000, "u32"), (-(2**40) - 12345, "i64"),
            (2**63 + 977, "u64"), (1.5, "fp32"), (-2.0**-30 * 3, "fp64")]
  params = [fe.array(), fe.array()] + [fe.scalar(v, d) for v, d in values]
  opaque = fe.blob(fe.kernel_call(kernel, (1,), params), name="scalars")
  expected_ints = np.array([1, -123456789, 3_000_000_000, -(2**40) - 12345,
                            np.array(2**63 + 977, np.uint64).view(np.int64)], np.int64)
  expected_floats = np.array([1.5, -2.0**-30 * 3], np.float64)
  shapes = [jax.ShapeDtypeStruct((5,), jnp.int64), jax.ShapeDtypeStruct((2,), jnp.float64)]
  return run_all_targets(lambda t: lambda: fe.call(t, opaque, out_shapes=shapes), (),
                         [expected_ints, expected_floats])


@check("zeroed_outputs")
def _zeroed():
  kernel = fe.compile_kernel(accumulate_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                             {"BLOCK": 256}, divisible=("x_ptr", "out_ptr"))
  params = [fe.array(), fe.array(bytes_to_zero=N * 4), fe.scalar(N, "i32")]
  opaque = fe.blob(fe.kernel_call(kernel, (fe.cdiv(N, 256),), params), name="zeroed")
  # Twice in a row: the second output buffer may reuse the first's memory (not zero).
  def make(t):
    def f(x):
      a = fe.call(t, opaque, x, out_shapes=[F32])[0]
      return fe.call(t, opaque, a, out_shapes=[F32])
    return f
  return run_all_targets(make, (X,), [X])


def inplace_blob(blocks=(256,), autotuned=False):
  calls = []
  for block in blocks:
    kernel = fe.compile_kernel(scale_inplace_kernel, {"x_ptr": "*fp32", "n": "i32"},
                               {"BLOCK": block}, divisible=("x_ptr",))
    calls.append((fe.kernel_call(kernel, (fe.cdiv(N, block),), [fe.array(), fe.scalar(N, "i32")]),
                  f"BLOCK={block}"))
  if not autotuned:
    return fe.blob(calls[0][0], name="inplace")
  return fe.blob(fe.autotuned_call("inplace_tuned", calls, [(0, 0, N * 4)]), name="inplace_tuned")


def inplace_fn(target, opaque):
  def f(x):
    y = x + 0.0  # a fresh buffer XLA may update in place
    return fe.call(target, opaque, y, out_shapes=[F32], aliases={0: 0})
  return f


@check("aliased_inplace")
def _aliased():
  opaque = inplace_blob()
  return run_all_targets(lambda t: inplace_fn(t, opaque), (X,), [X * 2 + 1])


@check("autotuned_aliases_per_config_grids")
def _autotuned():
  opaque = inplace_blob(blocks=(64, 128, 256, 1024), autotuned=True)
  note = run_all_targets(lambda t: inplace_fn(t, opaque), (X,), [X * 2 + 1])
  s = tkrt.stats()
  return f"{note}; tuned_in_execute={s['tuned_in_execute']}"


@check("initialize_prepares_once_per_call_and_device")
def _initialize_once():
  """XLA runs the typed-FFI initialize stage before every execution of every call site: the
  first prepares the call on the device, the others must find it prepared and return."""
  kernel = fe.compile_kernel(add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                                          "n": "i32"}, {"BLOCK": 512},
                             divisible=("x_ptr", "y_ptr", "out_ptr"))
  params = [fe.array(), fe.array(), fe.array(), fe.scalar(N, "i32")]
  # A name no other case uses: a blob (and a call) of its own, never prepared before.
  opaque = fe.blob(fe.kernel_call(kernel, (fe.cdiv(N, 512),), params), name="init_once")
  sites, runs = 8, 5

  def chain(x, y):
    for _ in range(sites):
      x = fe.call(fe.TKRT_FFI, opaque, x, y, out_shapes=[F32])[0]
    return x

  f = jax.jit(chain)
  before = tkrt.stats()
  for _ in range(runs):
    out = f(X, Y)
  want = X
  for _ in range(sites):
    want = want + Y  # float32, one add per call as the kernel does
  if not fe.same(out, want):
    raise AssertionError("wrong result from the chain")
  after = tkrt.stats()
  delta = {k: after[k] - before[k] for k in ("initialized", "prepared", "executed", "errors")}
  # Every execution initializes every call site; one call on one device is prepared once.
  if delta["initialized"] != sites * runs or delta["prepared"] != 1 or delta["errors"]:
    raise AssertionError(f"counters moved by {delta}; want initialized {sites * runs}, "
                         f"prepared 1, errors 0")
  return f"{delta}"


@check("autotuned_plain_add_4_configs")
def _autotuned_add():
  calls = []
  for block, warps in ((64, 2), (128, 4), (512, 4), (1024, 8)):
    kernel = fe.compile_kernel(add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32",
                                            "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": block},
                               num_warps=warps, divisible=("x_ptr", "y_ptr", "out_ptr"))
    calls.append((fe.kernel_call(kernel, (fe.cdiv(N, block),),
                                 [fe.array(), fe.array(), fe.array(), fe.scalar(N, "i32")]),
                  f"BLOCK={block},warps={warps}"))
  opaque = fe.blob(fe.autotuned_call("add_tuned", calls), name="add_tuned")
  return run_all_targets(lambda t: lambda x, y: fe.call(t, opaque, x, y, out_shapes=[F32]),
                         (X, Y), [X + Y])


@check("cluster_launch_num_ctas_2")
def _cluster():
  if fe.compute_capability() < 90:
    return "skipped: needs Hopper"
  opaque = add_blob(block=256, num_ctas=2)
  return run_all_targets(lambda t: lambda x, y: fe.call(t, opaque, x, y, out_shapes=[F32]),
                         (X, Y), [X + Y])


@check("many_calls_one_program")
def _many():
  opaque = add_blob()
  count = 64
  def make(t):
    def f(x, y):
      for _ in range(count):
        x = fe.call(t, opaque, x, y, out_shapes=[F32])[0]
      return x
    return f
  expected = X.copy()
  for _ in range(count):
    expected = expected + Y
  # float32 sums in the same order on the device: compare against the jaxlib run, exactly
  ref = jax.jit(make(fe.JAXLIB_FFI))(X, Y)
  np.testing.assert_allclose(np.asarray(ref), expected, rtol=1e-5, atol=1e-4)
  return run_all_targets(make, (X, Y), [np.asarray(ref)]) + f" ({count} calls)"


@check("two_threads_concurrently")
def _threads():
  opaque = add_blob(block=128)
  errors = []
  def worker(seed, target):
    try:
      f = jax.jit(lambda x, y: fe.call(target, opaque, x, y, out_shapes=[F32]))
      r = np.random.default_rng(seed)
      for _ in range(25):
        a = r.standard_normal(N).astype(np.float32)
        b = r.standard_normal(N).astype(np.float32)
        out = np.asarray(f(a, b)[0])
        if not np.array_equal(out, a + b):
          errors.append(f"thread {seed} ({target}): wrong result")
          return
    except Exception as e:  # noqa: BLE001
      errors.append(f"thread {seed} ({target}): {e}")
  notes = []
  for target in (fe.TKRT_FFI, fe.TKRT_LEGACY):
    threads = [threading.Thread(target=worker, args=(seed, target)) for seed in (1, 2)]
    for t in threads: t.start()
    for t in threads: t.join()
    notes.append(target)
  if errors:
    raise AssertionError("; ".join(errors))
  return "2 threads x 25 calls each on " + ", ".join(notes)


@check("error_bad_blob_ffi")
def _bad_ffi():
  bad = b"\x78\x9c" + b"not zlib at all"
  try:
    jax.jit(lambda x: fe.call(fe.TKRT_FFI, bad, x, out_shapes=[F32]))(X)[0].block_until_ready()
  except Exception as e:  # noqa: BLE001 - XlaRuntimeError
    text = str(e)
    if "tkrt_triton_kernel_call" in text and "INVALID_ARGUMENT" in text:
      return "raised: " + text.splitlines()[0][:160]
    raise AssertionError(f"unexpected error text: {text[:300]}")
  raise AssertionError("no error raised")


@check("error_bad_blob_legacy")
def _bad_legacy():
  bad = b"\x78\x9c" + b"not zlib at all"
  try:
    jax.jit(lambda x: fe.call(fe.TKRT_LEGACY, bad, x, out_shapes=[F32]))(X)[0].block_until_ready()
  except Exception as e:  # noqa: BLE001
    text = str(e)
    if "tkrt_triton_kernel_call_legacy" in text:
      return (f"raised (status via {'C++ twin' if tkrt.stats()['legacy_status_fallback'] else 'XLA symbol'}): "
              + text.splitlines()[0][:160])
    raise AssertionError(f"unexpected error text: {text[:300]}")
  raise AssertionError("no error raised")


@check("routing_jaxlib_names_to_tkrt")
def _routing():
  opaque = add_blob()
  before = tkrt.stats()
  tkrt.route_jaxlib_targets(True)
  try:
    f = jax.jit(lambda x, y: fe.call(fe.JAXLIB_FFI, opaque, x, y, out_shapes=[F32]))
    g = jax.jit(lambda x, y: fe.call(fe.JAXLIB_LEGACY, opaque, x, y, out_shapes=[F32]))
    text = f.lower(X, Y).as_text() + g.lower(X, Y).as_text()
    if "tkrt_triton_kernel_call" not in text or "tkrt_triton_kernel_call_legacy" not in text:
      raise AssertionError("lowered HLO still names jaxlib's targets")
    if not (fe.same(f(X, Y)[0], X + Y) and fe.same(g(X, Y)[0], X + Y)):
      raise AssertionError("wrong result through routed targets")
  finally:
    tkrt.route_jaxlib_targets(False)
  after = tkrt.stats()
  return (f"ffi executes +{after['executed'] - before['executed']}, "
          f"legacy +{after['legacy_executed'] - before['legacy_executed']}")


def main():
  print(f"jax {jax.__version__}, triton {triton.__version__}, {jax.devices()}, "
        f"cc {fe.compute_capability()}, {tkrt.version()}, lib {tkrt.library_path()}", flush=True)
  print("registered:", tkrt.use_for_jax_triton(), flush=True)
  tkrt.route_jaxlib_targets(False)  # cases compare jaxlib's own targets with tkrt's
  for case in CASES:
    case()
  print("stats:", tkrt.stats())
  failed = 0
  for name, ok, note in RESULTS:
    print(f"CHECK {name:<40} {'PASS' if ok else 'FAIL'}  {note}")
    failed += not ok
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main())
