# SPDX-License-Identifier: Apache-2.0
"""A multi-call Triton pipeline in one jitted JAX function, and the floor: jaxlib's targets vs
tkrt's vs reference handlers that do nothing or only call cuLaunchKernel, per command-buffer mode.

Shapes (every call is a 4096-element float32 Triton call built with jaxlib's `gpu_triton` classes
from the jaxlib-0.11.2 vectors' Triton 3.6 PTX, so every runtime gets the same opaque bytes):
- pipeline: 9 calls feeding each other, 5 of them autotuned (inc_inplace_kernel, 3 configs, output
  aliased to input 0), the shape of TransformerEngine's MoE permutation; each iteration feeds its
  output to the next, so buffer addresses change between executions;
- chain_plain / chain_autotuned: K sequential calls of one kind (per-call cost, as jax_calls.py).
Runtimes: jaxlib (triton_kernel_call[_ffi]), tkrt (libtkrt_xla), floor_noop and floor_launch
(bench/xla_floor.c: libtkrt_bench_floor.so; floor_launch runs the same kernels, one fixed config
for the autotuned calls), floor_big (floor_launch with an `opaque` padded to the size of the real
blob: what XLA itself spends on a large attribute), floor_init (typed FFI only: floor_launch with an
initialize stage that does nothing: what XLA spends on a handler that has that stage, which it runs
before every execution), each through the typed-FFI (api_version 4) and the legacy (api_version 2)
custom call. Modes, each in its own process: command buffers default (XLA's), off
(--xla_gpu_enable_command_buffer=), forced (custom calls allowed, no minimum graph size).

    python3 bench/jax_pipeline.py --floor-lib build/.../libtkrt_bench_floor.so --json out.json

Reported per (mode, shape, api): µs per iteration (median), tkrt/jaxlib, tkrt/floor_launch,
tkrt/floor_big, tkrt/floor_init, jaxlib/floor_launch, floor_noop. Results of every runtime but floor_noop are checked
against numpy. With --profile and a profile build (CMake -DTKRT_PROFILE=ON) of libtkrt_xla
(TKRT_XLA_LIBRARY) and of the floor library, each mode also reports, for the chains, ns per call
spent in each stage of tkrt's handlers and of the floor's (xla/xla_profile.h).
"""

import argparse
import ctypes
import json
import os
import statistics
import sys
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from jax_calls import _block, run_mode_process, vector_kernels  # noqa: E402  (shared)

MODES = {
    "default": "",
    "off": "--xla_gpu_enable_command_buffer=",
    "forced": "--xla_gpu_enable_command_buffer=FUSION,CUBLAS,CUBLASLT,CUSTOM_CALL "
              "--xla_gpu_graph_min_graph_size=1",
}
RUNTIMES = ("jaxlib", "tkrt", "floor_noop", "floor_launch", "floor_big", "floor_init")
APIS = ("ffi", "legacy")
# The pipeline: (kind, first operand, second operand) over the values x, y, t1..t4; the result
# of step i is named t<i>. P: out = a + b (add_kernel); A: a += b in place (autotuned).
PIPELINE = [("P", "x", "y", "t1"), ("A", "t1", "y", "t1"), ("P", "t1", "x", "t2"),
            ("A", "t2", "y", "t2"), ("P", "t2", "t1", "t3"), ("A", "t3", "x", "t3"),
            ("P", "t3", "t2", "t4"), ("A", "t4", "y", "t4"), ("A", "t4", "t1", "out")]


def build_blobs(vectors, n):
  """(blobs, floor kernels): jaxlib-built blobs for the plain add and the autotuned in-place
  call over n elements, and what the floor launches for each (PTX, name, grid, warps, shared)."""
  from jax._src.lib import gpu_triton as gt
  add, configs = vector_kernels(vectors)

  def kernel(k):
    try:  # jaxlib >= 0.4.36: (name, num_warps, num_ctas, shared, ptx, ttir, cc)
      return gt.TritonKernel(k["name"], k["num_warps"], k["num_ctas"], k["shared"], k["ptx"],
                             k["ttir"], k["cc"])
    except TypeError:
      return gt.TritonKernel(k["name"], k["num_warps"], k["shared"], k["ptx"], k["ttir"],
                             k["cc"], 1, 1, 1)

  array = lambda: gt.create_array_parameter(0, 16)  # noqa: E731
  scalar = lambda v: gt.create_scalar_parameter(v, "i32")  # noqa: E731
  add_grid = (n + 1023) // 1024
  plain = gt.TritonKernelCall(kernel(add), add_grid, 1, 1, [array(), array(), scalar(n), array()])
  calls = [(gt.TritonKernelCall(kernel(k), (n + _block(d) - 1) // _block(d), 1, 1,
                                [array(), array(), scalar(n)]), d) for k, d in configs]
  tuned = gt.TritonAutotunedKernelCall("tkrt_pipeline_inc", calls, [(0, 0, n * 4)])
  blobs = {"P": zlib.compress(plain.to_proto("tkrt_pipeline_add", b"")),
           "A": zlib.compress(tuned.to_proto("tkrt_pipeline_inc", b""))}
  # The floor's autotuned stand-in: the config with the largest block (fewest programs).
  k, d = max(configs, key=lambda kd: _block(kd[1]))
  floor = {"P": (add, add_grid, "aaia", [n]),
           "A": (k, (n + _block(d) - 1) // _block(d), "aai", [n])}
  return blobs, floor


def setup_floor(path, floor):
  lib = ctypes.CDLL(os.path.abspath(path), mode=os.RTLD_NOW | os.RTLD_GLOBAL)
  lib.bench_floor_setup.restype = ctypes.c_int
  lib.bench_floor_setup.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t,
                                    ctypes.c_char_p] + [ctypes.c_uint] * 5 + [
                                        ctypes.c_char_p, ctypes.POINTER(ctypes.c_int32),
                                        ctypes.c_char_p, ctypes.c_size_t]
  lib.bench_floor_errors.restype = ctypes.c_ulonglong
  lib.bench_floor_launches.restype = ctypes.c_ulonglong
  for slot, kind in enumerate(("P", "A")):
    k, grid, layout, scalars = floor[kind]
    ptx = k["ptx"].encode()
    values = (ctypes.c_int32 * len(scalars))(*scalars)
    error = ctypes.create_string_buffer(256)
    rc = lib.bench_floor_setup(slot, ptx, len(ptx), k["name"].encode(), grid, 1, 1,
                               k["num_warps"] * 32, k["shared"], layout.encode(), values, error,
                               len(error))
    if rc:
      raise RuntimeError(f"bench_floor_setup({kind}): {error.value.decode()}")
  return lib


def reference(shape, x, y, k):
  """What the shape computes (every call, plain or in place, makes a + b)."""
  import numpy as np
  if shape == "pipeline":
    v = {"x": np.array(x), "y": np.array(y)}
    for _, a, b, out in PIPELINE:
      v[out] = v[a] + v[b]
    return v["out"]
  return np.array(x) + k * np.array(y)


def run_mode(args):
  os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
  import jax
  import jax.numpy as jnp
  import numpy as np
  from jax._src import core as jcore
  from jax._src.interpreters import mlir
  from jax._src.lib import xla_client
  from jax._src.lib.mlir import ir

  result = {"mode": args.mode, "xla_flags": os.environ.get("XLA_FLAGS", ""), "n": args.n,
            "k": args.k, "reps": args.reps, "iters": args.iters, "variants": []}
  device = jax.devices()[0]
  result["device"] = {"platform": device.platform, "kind": device.device_kind,
                      "jax": jax.__version__}
  blobs, floor = build_blobs(args.vectors, args.n)

  targets, why = {}, {}
  targets[("jaxlib", "ffi")], targets[("jaxlib", "legacy")] = ("triton_kernel_call_ffi",
                                                              "triton_kernel_call")
  try:
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import tkrt
    targets[("tkrt", "ffi")], targets[("tkrt", "legacy")] = tkrt.register()
    result["tkrt_xla"] = tkrt.version()
  except Exception as e:  # noqa: BLE001 - reported as not measured
    why["tkrt"] = f"tkrt.register() failed: {e}"
  floor_lib = None
  try:
    floor_lib = setup_floor(args.floor_lib, floor)
    traits = getattr(getattr(xla_client, "CustomCallTargetTraits", None),
                     "COMMAND_BUFFER_COMPATIBLE", None)
    kwargs = {"traits": traits} if traits is not None else {}
    for what in ("noop", "launch"):
      ffi = jax.ffi.pycapsule(getattr(floor_lib, f"bench_floor_ffi_{what}"))
      legacy = jax.ffi.pycapsule(getattr(floor_lib, f"bench_floor_legacy_{what}"))
      jax.ffi.register_ffi_target(f"bench_floor_ffi_{what}", ffi, platform="CUDA",
                                  api_version=1, **kwargs)
      jax.ffi.register_ffi_target(f"bench_floor_legacy_{what}", legacy, platform="CUDA",
                                  api_version=0)
      targets[(f"floor_{what}", "ffi")] = f"bench_floor_ffi_{what}"
      targets[(f"floor_{what}", "legacy")] = f"bench_floor_legacy_{what}"
    for api in APIS:
      targets[("floor_big", api)] = targets[("floor_launch", api)]
    # floor_init: floor_launch plus an initialize stage that does nothing (the no-op handler
    # answers XLA's metadata query and returns). XLA calls an initialize stage before every
    # execution of every call site, building a call frame for it: what that costs is the floor
    # of any command-buffer-compatible handler that must load its modules before a capture.
    bundle = {"initialize": jax.ffi.pycapsule(floor_lib.bench_floor_ffi_noop),
              "execute": jax.ffi.pycapsule(floor_lib.bench_floor_ffi_launch)}
    jax.ffi.register_ffi_target("bench_floor_ffi_init", bundle, platform="CUDA", api_version=1,
                                **kwargs)
    targets[("floor_init", "ffi")] = "bench_floor_ffi_init"
  except Exception as e:  # noqa: BLE001
    why["floor_noop"] = why["floor_launch"] = why["floor_big"] = why["floor_init"] = (
        f"floor library: {type(e).__name__}: {e}")

  prim = jcore.Primitive("tkrt_pipeline_call")
  prim.def_impl(lambda *a, **kw: None)
  prim.def_abstract_eval(lambda a, b, **kw: jcore.ShapedArray(a.shape, a.dtype))

  def lowering(ctx, a, b, *, target, api, blob, alias):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    if api == "ffi":
      config, version = {"opaque": ir.StringAttr.get(blob)}, 4
    else:
      config, version = blob, 2
    return mlir.custom_call(target, result_types=[out_type], operands=[a, b],
                            backend_config=config, api_version=version,
                            operand_output_aliases={0: 0} if alias else None).results

  mlir.register_lowering(prim, lowering, platform="cuda")

  def payload(runtime, kind):
    if runtime.startswith("floor"):
      slot = b"floor:0" if kind == "P" else b"floor:1"
      # floor_big: as long as the real blob (the floor reads the slot from the last digits).
      return b"x" * (len(blobs[kind]) - len(slot)) + slot if runtime == "floor_big" else slot
    return blobs[kind]

  def build(runtime, api, shape):
    target = targets[(runtime, api)]

    def call(kind, a, b):
      return prim.bind(a, b, target=target, api=api, blob=payload(runtime, kind),
                       alias=kind == "A")

    if shape == "pipeline":
      def f(x, y):
        v = {"x": x, "y": y}
        for kind, a, b, out in PIPELINE:
          v[out] = call(kind, v[a], v[b])
        return v["out"]
    else:
      kind = "P" if shape == "chain_plain" else "A"

      def f(x, y):
        for _ in range(args.k):
          x = call(kind, x, y)
        return x
    return jax.jit(f)

  x0 = jnp.asarray(np.linspace(-1.0, 1.0, args.n, dtype=np.float32))
  y0 = jnp.asarray(np.full(args.n, 0.25, dtype=np.float32))
  live = []
  for shape in ("pipeline", "chain_plain", "chain_autotuned"):
    for runtime in RUNTIMES:
      for api in APIS:
        v = {"shape": shape, "runtime": runtime, "api": api, "measured": False}
        result["variants"].append(v)
        if (runtime, api) not in targets:
          v["why_not"] = why.get(runtime, "target not registered" if api == "ffi" or
                                 runtime != "floor_init" else "typed FFI only")
          continue
        try:
          errors_before = floor_lib.bench_floor_errors() if floor_lib else 0
          fn = build(runtime, api, shape)
          got = np.asarray(fn(x0, y0))  # compile, tune, check
          if runtime != "floor_noop":
            want = reference(shape, x0, y0, args.k)
            if not np.allclose(got, want, rtol=1e-5, atol=1e-4):
              raise RuntimeError(f"wrong result: max error {float(np.max(np.abs(got - want)))}")
          if floor_lib and floor_lib.bench_floor_errors() != errors_before:
            raise RuntimeError("the floor handler reported errors (see stderr)")
          for _ in range(3):
            fn(x0, y0).block_until_ready()
          v["fn"], v["samples"], v["measured"] = fn, [], True
          live.append(v)
        except Exception as e:  # noqa: BLE001 - reported as not measured
          v["why_not"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"

  # Each sample: `iters` iterations, each feeding its output to the next (new buffer addresses
  # every execution), timed together; rounds interleave the variants.
  for r in range(args.reps):
    for i in range(len(live)):
      v = live[(i + r) % len(live)]
      x = x0
      start = time.perf_counter()
      for _ in range(args.iters):
        x = v["fn"](x, y0)
      x.block_until_ready()
      v["samples"].append((time.perf_counter() - start) / args.iters)
  if args.profile:
    profile_stages(args, live, x0, y0, floor_lib)
  for v in live:
    v.pop("fn")
    samples = v.pop("samples")
    v["us_per_iteration"] = statistics.median(samples) * 1e6
    q = statistics.quantiles(samples, n=10)
    v["us_p10_p90"] = [q[0] * 1e6, q[-1] * 1e6]
    calls = len(PIPELINE) if v["shape"] == "pipeline" else args.k
    v["us_per_call"] = v["us_per_iteration"] / calls
  if "tkrt_xla" in result:
    result["tkrt_stats"] = tkrt.stats()
  if floor_lib:
    result["floor_launches"] = floor_lib.bench_floor_launches()
    result["floor_errors"] = floor_lib.bench_floor_errors()
  with open(args.out, "w") as f:
    json.dump(result, f, indent=1)
  return 0


def read_profile(function, reset):
  """{stage: value}, ticks per µs from a profile build's tkrt_xla_profile / bench_floor_profile
  (empty outside profile builds)."""
  function.restype = ctypes.c_size_t
  values, names, rate = (ctypes.c_uint64 * 64)(), (ctypes.c_char_p * 64)(), ctypes.c_double()
  count = function(values, names, 64, ctypes.byref(rate), 1 if reset else 0)
  return {names[i].decode(): values[i] for i in range(min(count, 64))}, rate.value


def profile_stages(args, live, x0, y0, floor_lib):
  """For the chains of tkrt and the launching floors: ns per call in each handler stage, and the
  wall µs per call of the same pass (one runtime at a time, after the timed rounds)."""
  import tkrt
  sources = {"tkrt": tkrt.load_library().tkrt_xla_profile}
  if floor_lib is not None:
    sources["floor_launch"] = sources["floor_big"] = floor_lib.bench_floor_profile
    sources["floor_init"] = floor_lib.bench_floor_profile
  for v in live:
    if v["runtime"] not in sources or v["shape"] == "pipeline":
      continue
    function = sources[v["runtime"]]
    read_profile(function, reset=True)
    start = time.perf_counter()
    for _ in range(max(1, args.reps // 3)):
      x = x0
      for _ in range(args.iters):
        x = v["fn"](x, y0)
      x.block_until_ready()
    wall = time.perf_counter() - start
    values, rate = read_profile(function, reset=True)
    prefix = v["api"] + "_"
    calls = values.get(prefix + "calls", 0)
    if not calls or not rate:
      v["profile"] = {"note": "not a profile build (CMake -DTKRT_PROFILE=ON)"}
      continue
    stages = {k[len(prefix):]: values[k] / rate * 1e3 / calls
              for k in values if k.startswith(prefix) and k != prefix + "calls"}
    if v["api"] == "ffi" and values.get("init_calls"):
      # tkrt's initialize stage, which XLA runs before every execution (ns per initialize).
      stages["initialize"] = values["init_total"] / rate * 1e3 / values["init_calls"]
    v["profile"] = {"calls": calls, "wall_us_per_call": wall * 1e6 / calls, "ns_per_call": stages}


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--json", help="write the combined results here")
  parser.add_argument("--vectors", default=os.path.join(ROOT, "test", "data", "jaxlib-0.11.2"))
  parser.add_argument("--floor-lib", required=True, help="libtkrt_bench_floor.so")
  parser.add_argument("--n", type=int, default=4096, help="elements per call")
  parser.add_argument("--k", type=int, default=50, help="calls per chain")
  parser.add_argument("--iters", type=int, default=20, help="iterations per sample")
  parser.add_argument("--reps", type=int, default=30)
  parser.add_argument("--modes", default="default,off,forced")
  parser.add_argument("--mode-timeout", type=int, default=150, help="seconds per mode")
  parser.add_argument("--runs", type=int, default=1,
                      help="measure every mode this many times, each in fresh processes; report "
                           "medians and each ratio's range")
  parser.add_argument("--profile", action="store_true",
                      help="report handler stages (needs profile builds of both libraries)")
  parser.add_argument("--mode", choices=tuple(MODES), help=argparse.SUPPRESS)
  parser.add_argument("--out", help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.mode:
    return run_mode(args)

  def run_modes():
    modes = {}
    for mode in args.modes.split(","):
      env = dict(os.environ)
      if MODES[mode]:
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " " + MODES[mode]).strip()
      arguments = ["--vectors", args.vectors, "--floor-lib", args.floor_lib, "--n", str(args.n),
                   "--k", str(args.k), "--iters", str(args.iters), "--reps", str(args.reps)]
      if args.profile:
        arguments.append("--profile")
      modes[mode] = run_mode_process(__file__, mode, arguments, env, args.mode_timeout)
    return modes

  # Every run measures every mode in fresh processes; the table gives each runtime's median
  # over the runs and each ratio's median over the runs' own ratios (a ratio is only ever taken
  # within one process), and with --runs > 1 each ratio's range.
  runs = [run_modes() for _ in range(args.runs)]
  modes = runs[0]
  ratio_names = {"tkrt_over_jaxlib": ("tkrt", "jaxlib"),
                 "tkrt_over_floor_launch": ("tkrt", "floor_launch"),
                 "tkrt_over_floor_big": ("tkrt", "floor_big"),
                 "tkrt_over_floor_init": ("tkrt", "floor_init"),
                 "jaxlib_over_floor_launch": ("jaxlib", "floor_launch")}
  fmt = lambda x, p=2: f"{x:.{p}f}" if x is not None else "-"  # noqa: E731
  median = lambda xs: statistics.median(xs) if xs else None  # noqa: E731

  print(f"\njax pipeline: {args.n}-element Triton calls in one jitted function; us per iteration "
        f"(median of {args.reps} samples of {args.iters} chained iterations"
        f"{f'; medians of {args.runs} runs' if args.runs > 1 else ''}); pipeline = 9 calls "
        f"(5 autotuned), chains = {args.k} calls")
  print(f"{'mode':<9}{'shape':<17}{'api':<8}{'jaxlib':>9}{'tkrt':>9}{'floor0':>9}{'floorL':>9}"
        f"{'floorLB':>9}{'floorLI':>9}{'tkrt/jaxlib':>12}{'tkrt/floorL':>12}{'tkrt/floorLB':>13}"
        f"{'tkrt/floorLI':>13}{'jaxlib/floorL':>14}")
  rows = []
  for mode in args.modes.split(","):
    for r, run in enumerate(runs):
      if "error" in run[mode]:
        print(f"{mode:<9}run {r + 1}: {run[mode]['error']}")
    bys = [{(v["shape"], v["runtime"], v["api"]): v for v in run[mode]["variants"]} for run in runs]
    for shape in ("pipeline", "chain_plain", "chain_autotuned"):
      for api in APIS:
        per_run = []
        for by in bys:
          cells = {r: by.get((shape, r, api), {}) for r in RUNTIMES}
          per_run.append({r: c.get("us_per_iteration") if c.get("measured") else None
                          for r, c in cells.items()})
        us = {r: median([u[r] for u in per_run if u[r]]) for r in RUNTIMES}
        row = {"mode": mode, "shape": shape, "api": api, "us_per_iteration": us}
        for name, (a, b) in ratio_names.items():
          values = [u[a] / u[b] for u in per_run if u[a] and u[b]]
          row[name] = median(values)
          if args.runs > 1:
            row[name + "_runs"] = values
        rows.append(row)
        print(f"{mode:<9}{shape:<17}{api:<8}{fmt(us['jaxlib'], 1):>9}{fmt(us['tkrt'], 1):>9}"
              f"{fmt(us['floor_noop'], 1):>9}{fmt(us['floor_launch'], 1):>9}"
              f"{fmt(us['floor_big'], 1):>9}{fmt(us['floor_init'], 1):>9}"
              f"{fmt(row['tkrt_over_jaxlib']):>12}{fmt(row['tkrt_over_floor_launch']):>12}"
              f"{fmt(row['tkrt_over_floor_big']):>13}{fmt(row['tkrt_over_floor_init']):>13}"
              f"{fmt(row['jaxlib_over_floor_launch']):>14}")
        for by in bys[:1]:
          for r in RUNTIMES:
            c = by.get((shape, r, api), {})
            if c and not c.get("measured") and c.get("why_not") != "typed FFI only":
              print(f"    {r} not measured: {c.get('why_not')}")
  if args.runs > 1:
    print(f"\nratios in each of the {args.runs} runs (min - max)")
    print(f"{'mode':<9}{'shape':<17}{'api':<8}{'tkrt/jaxlib':>14}{'tkrt/floorL':>14}"
          f"{'tkrt/floorLI':>14}{'jaxlib/floorL':>14}")
    for row in rows:
      span = lambda name: (f"{min(row[name + '_runs']):.2f}-{max(row[name + '_runs']):.2f}"  # noqa: E731
                           if row[name + "_runs"] else "-")
      print(f"{row['mode']:<9}{row['shape']:<17}{row['api']:<8}{span('tkrt_over_jaxlib'):>14}"
            f"{span('tkrt_over_floor_launch'):>14}{span('tkrt_over_floor_init'):>14}"
            f"{span('jaxlib_over_floor_launch'):>14}")
  profiled = [(mode, v) for mode, m in modes.items() for v in m["variants"] if "profile" in v]
  if profiled:
    print("\nhandler stages (profile build): ns per call; wall = µs per call of the same pass")
    for mode, v in profiled:
      p = v["profile"]
      if "ns_per_call" not in p:
        print(f"  {mode:<8}{v['shape']:<17}{v['api']:<7}{v['runtime']:<13}{p.get('note')}")
        continue
      stages = "  ".join(f"{k} {x:.0f}" for k, x in p["ns_per_call"].items())
      print(f"  {mode:<8}{v['shape']:<17}{v['api']:<7}{v['runtime']:<13}wall "
            f"{p['wall_us_per_call']:.2f}  {stages}")
  for mode, m in modes.items():
    if "tkrt_stats" in m:
      s = m["tkrt_stats"]
      print(f"tkrt counters, {mode}: initialized {s['initialized']} (prepared "
            f"{s.get('prepared', '-')}); executed {s['executed']} (captured "
            f"{s['executed_captured']}); legacy {s['legacy_executed']}; capture fallbacks "
            f"{s['capture_fallbacks']}; errors {s['errors']}; floor launches "
            f"{m.get('floor_launches')}, floor errors {m.get('floor_errors')}")
  if args.json:
    with open(args.json, "w") as f:
      json.dump({"bench": "jax_pipeline", "commit": os.environ.get("TKRT_BENCH_COMMIT"),
                 "n": args.n, "k": args.k, "iters": args.iters, "reps": args.reps,
                 "runs": len(runs), "modes": modes, "later_runs": runs[1:], "rows": rows},
                f, indent=1)
  return 0 if all("error" not in m for run in runs for m in run.values()) else 1


if __name__ == "__main__":
  sys.exit(main())
