# SPDX-License-Identifier: Apache-2.0
"""Time per call of K sequential small Triton calls in one jitted JAX function: jaxlib's targets vs
tkrt's, with XLA command buffers on and off, plain and autotuned.

The kernels are the Triton 3.6 PTX of jaxlib's recorded vectors (add_f32: add_kernel, BLOCK 1024,
4 warps; autotuned_alias: inc_inplace_kernel with BLOCK 128/512/2048), re-wrapped for 256 float32
elements with jaxlib's own `gpu_triton` classes (`TritonKernel`, `TritonKernelCall`,
`TritonAutotunedKernelCall`, `to_proto`), so both runtimes receive the very same opaque bytes.
Each command-buffer mode runs in its own subprocess (XLA reads XLA_FLAGS once).

    python3 bench/jax_calls.py --json out.json [--k 100] [--reps 200]

Needs jax with CUDA, and for tkrt's side the `tkrt` package (python/) with libtkrt_xla.so
(TKRT_XLA_LIBRARY). A side that cannot run is reported as not measured, with the reason.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zlib

N = 256
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# ---------------------------------------------------------------- reading the vectors' kernels


def _varint(data, i):
  value = shift = 0
  while True:
    byte = data[i]
    i += 1
    value |= (byte & 0x7F) << shift
    shift += 7
    if byte < 0x80:
      return value, i


def _fields(data):
  """(field number, wire type, value) of one protobuf message, in order."""
  i = 0
  while i < len(data):
    key, i = _varint(data, i)
    number, wire = key >> 3, key & 7
    if wire == 0:
      value, i = _varint(data, i)
    elif wire == 2:
      size, i = _varint(data, i)
      value, i = data[i:i + size], i + size
    elif wire == 1:
      value, i = data[i:i + 8], i + 8
    elif wire == 5:
      value, i = data[i:i + 4], i + 4
    else:
      raise ValueError(f"wire type {wire}")
    yield number, wire, value


def _kernel(message):
  """A TritonKernel message as a dict (the fields jaxlib's constructor takes)."""
  k = {"name": "", "num_warps": 0, "shared": 0, "ptx": "", "ttir": "", "cc": 0, "num_ctas": 1}
  names = {1: "name", 2: "num_warps", 3: "shared", 4: "ptx", 5: "ttir", 6: "cc", 10: "num_ctas"}
  for number, _, value in _fields(message):
    if number in names:
      k[names[number]] = value.decode() if isinstance(value, bytes) else value
  return k


def _first(message, number):
  return next(v for n, _, v in _fields(message) if n == number)


def vector_kernels(vectors):
  """The add kernel of add_f32 and the three configs of autotuned_alias (kernel, description)."""
  def load(name):
    with open(os.path.join(vectors, name, "call.pb.z"), "rb") as f:
      return zlib.decompress(f.read())
  add = _kernel(_first(_first(load("add_f32"), 1), 1))
  configs = []
  for number, _, config in _fields(_first(load("autotuned_alias"), 2)):
    if number == 2:
      kernel = _kernel(_first(_first(config, 1), 1))
      description = next((v.decode() for n, _, v in _fields(config) if n == 2), "")
      configs.append((kernel, description))
  return add, configs


# ---------------------------------------------------------------- building the blobs


def _block(description):
  return int(description.split("BLOCK:")[1].split(",")[0])


def build_blobs(vectors):
  """{"plain": blob, "autotuned": blob} built with jaxlib's classes; (blobs, how)."""
  from jax._src.lib import gpu_triton as gt
  add, configs = vector_kernels(vectors)

  def kernel(k):
    try:  # jaxlib >= 0.4.36: (name, num_warps, num_ctas, shared, ptx, ttir, cc)
      return gt.TritonKernel(k["name"], k["num_warps"], k["num_ctas"], k["shared"], k["ptx"],
                             k["ttir"], k["cc"])
    except TypeError:  # older: (name, num_warps, shared, ptx, ttir, cc, cluster x, y, z)
      return gt.TritonKernel(k["name"], k["num_warps"], k["shared"], k["ptx"], k["ttir"],
                             k["cc"], 1, 1, 1)

  array = lambda: gt.create_array_parameter(0, 16)  # noqa: E731
  scalar = lambda v: gt.create_scalar_parameter(v, "i32")  # noqa: E731
  # add_kernel(x, y, n, out): one program of 1024 lanes covers the 256 elements.
  plain = gt.TritonKernelCall(kernel(add), 1, 1, 1, [array(), array(), scalar(N), array()])
  # inc_inplace_kernel(x, y, n): x += y in place; output 0 aliases input 0 (jax-triton's record).
  calls = [(gt.TritonKernelCall(kernel(k), (N + _block(d) - 1) // _block(d), 1, 1,
                                [array(), array(), scalar(N)]), d) for k, d in configs]
  tuned = gt.TritonAutotunedKernelCall("tkrt_bench_inc256", calls, [(0, 0, N * 4)])
  blobs = {"plain": zlib.compress(plain.to_proto("tkrt_bench_add256", b"")),
           "autotuned": zlib.compress(tuned.to_proto("tkrt_bench_inc256", b""))}
  return blobs, "jaxlib gpu_triton classes, PTX from the jaxlib-0.11.2 vectors (Triton 3.6)"


# ---------------------------------------------------------------- one command-buffer mode


def run_mode(args):
  os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
  import jax
  import jax.numpy as jnp
  import numpy as np
  from jax._src import core as jcore
  from jax._src.interpreters import mlir  # custom_call is not public in jax 0.11
  from jax._src.lib.mlir import ir

  result = {"mode": args.mode, "xla_flags": os.environ.get("XLA_FLAGS", ""), "k": args.k,
            "k_small": args.k_small, "reps": args.reps, "variants": []}
  device = jax.devices()[0]
  result["device"] = {"platform": device.platform, "kind": device.device_kind,
                      "jax": jax.__version__}
  blobs, how = build_blobs(args.vectors)
  result["blobs"] = {"built_with": how, **{k: len(v) for k, v in blobs.items()}}

  targets = {("jaxlib", "ffi"): "triton_kernel_call_ffi",
             ("jaxlib", "legacy"): "triton_kernel_call"}
  tkrt_why = None
  try:
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import tkrt
    ffi_name, legacy_name = tkrt.register()
    targets[("tkrt", "ffi")] = ffi_name
    targets[("tkrt", "legacy")] = legacy_name
    result["tkrt_xla"] = tkrt.version()
  except Exception as e:  # noqa: BLE001 - reported as "not measured"
    tkrt_why = f"tkrt.register() failed: {e}"

  prim = jcore.Primitive("tkrt_bench_triton_call")
  prim.def_impl(lambda *a, **kw: None)
  prim.def_abstract_eval(lambda x, y, **kw: jcore.ShapedArray(x.shape, x.dtype))

  def lowering(ctx, x, y, *, target, api, blob, alias):
    out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    if api == "ffi":  # jax-triton's lowering of triton_kernel_call_ffi
      config, version = {"opaque": ir.StringAttr.get(blob)}, 4
    else:  # the legacy target: the blob is the backend config
      config, version = blob, 2
    return mlir.custom_call(target, result_types=[out_type], operands=[x, y],
                            backend_config=config, api_version=version,
                            operand_output_aliases={0: 0} if alias else None).results

  mlir.register_lowering(prim, lowering, platform="cuda")

  def chain(target, api, blob, alias, k):
    def f(x, y):
      for _ in range(k):
        x = prim.bind(x, y, target=target, api=api, blob=blob, alias=alias)
      return x
    return jax.jit(f)

  x0 = jnp.asarray(np.linspace(-1.0, 1.0, N, dtype=np.float32))
  y0 = jnp.asarray(np.full(N, 0.25, dtype=np.float32))
  variants = []
  for runtime in ("jaxlib", "tkrt"):
    for api in ("ffi", "legacy"):
      for kind in ("plain", "autotuned"):
        v = {"runtime": runtime, "api": api, "kind": kind, "measured": False}
        variants.append(v)
        if (runtime, api) not in targets:
          v["why_not"] = tkrt_why
          continue
        try:
          fns = {k: chain(targets[(runtime, api)], api, blobs[kind], kind == "autotuned", k)
                 for k in (args.k, args.k_small)}
          for k, fn in fns.items():  # compile, tune, check
            got = np.asarray(fn(x0, y0))
            want = np.asarray(x0) + k * np.asarray(y0)
            if not np.allclose(got, want, rtol=1e-5, atol=1e-5):
              raise RuntimeError(f"wrong result for K={k}: max error "
                                 f"{float(np.max(np.abs(got - want)))}")
            for _ in range(5):
              fn(x0, y0).block_until_ready()
          v["fns"] = fns
          v["samples"] = {args.k: [], args.k_small: []}
          v["measured"] = True
        except Exception as e:  # noqa: BLE001 - a target that cannot run is reported
          v["why_not"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"

  live = [v for v in variants if v["measured"]]
  # Rounds interleave the variants so that drift (clocks, other processes) hits all alike.
  for r in range(args.reps):
    for i in range(len(live)):
      v = live[(i + r) % len(live)]
      for k in (args.k, args.k_small):
        fn = v["fns"][k]
        start = time.perf_counter()
        fn(x0, y0).block_until_ready()
        v["samples"][k].append(time.perf_counter() - start)
  for v in variants:
    if v.pop("fns", None) is None:
      continue
    samples = v.pop("samples")
    big, small = statistics.median(samples[args.k]), statistics.median(samples[args.k_small])
    v["us_per_call"] = big / args.k * 1e6  # whole jitted call over K (dispatch included)
    v["us_per_call_slope"] = (big - small) / (args.k - args.k_small) * 1e6
    v["ms_per_jit_call_median"] = big * 1e3
    q = statistics.quantiles(samples[args.k], n=10)
    v["ms_per_jit_call_p10_p90"] = [q[0] * 1e3, q[-1] * 1e3]
  if "tkrt_xla" in result:
    result["tkrt_stats"] = tkrt.stats()
  result["variants"] = variants
  with open(args.out, "w") as f:
    json.dump(result, f, indent=1)
  return 0


# ---------------------------------------------------------------- both modes, side by side


def run_mode_process(script, mode, arguments, env, timeout=None):
  """Runs `script --mode MODE --out F ARGUMENTS...` in a fresh process with `env` (each
  command-buffer mode needs its own XLA_FLAGS, read once per process) and returns the JSON it
  wrote to F, or {"mode", "error", "variants": []} when it failed or ran past `timeout` s."""
  with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
    out = tmp.name
  try:
    try:
      rc = subprocess.call([sys.executable, os.path.abspath(script), "--mode", mode, "--out", out]
                           + arguments, env=env, timeout=timeout)
      error = None if rc == 0 else f"subprocess exited with {rc}"
    except subprocess.TimeoutExpired:
      error = f"subprocess timed out after {timeout} s"
    if error:
      return {"mode": mode, "error": error, "variants": []}
    with open(out) as f:
      return json.load(f)
  finally:
    os.unlink(out)


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--json", help="write the combined results here")
  parser.add_argument("--vectors", default=os.path.join(ROOT, "test", "data", "jaxlib-0.11.2"))
  parser.add_argument("--k", type=int, default=100, help="calls per jitted function")
  parser.add_argument("--k-small", type=int, default=10, help="second K, for the slope")
  parser.add_argument("--reps", type=int, default=200)
  parser.add_argument("--mode", choices=("on", "off"), help=argparse.SUPPRESS)
  parser.add_argument("--out", help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.mode:
    return run_mode(args)

  modes = {}
  for mode in ("on", "off"):
    env = dict(os.environ)
    if mode == "off":
      env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_gpu_enable_command_buffer=").strip()
    modes[mode] = run_mode_process(
        __file__, mode, ["--vectors", args.vectors, "--k", str(args.k), "--k-small",
                         str(args.k_small), "--reps", str(args.reps)], env)

  print(f"\njax calls: K={args.k} sequential {N}-element Triton calls in one jitted function; "
        f"us per call = median jitted-call time / K (slope: between K={args.k_small} and "
        f"K={args.k}); {args.reps} rounds")
  header = f"{'command buffers':<16}{'api':<8}{'kind':<11}{'jaxlib us':>10}{'tkrt us':>10}" \
           f"{'tkrt/jaxlib':>12}{'jaxlib slope':>14}{'tkrt slope':>12}"
  print(header)
  rows = []
  for mode in ("on", "off"):
    variants = {(v["runtime"], v["api"], v["kind"]): v for v in modes[mode]["variants"]}
    if "error" in modes[mode]:
      print(f"{mode:<16}{modes[mode]['error']}")
    for api in ("ffi", "legacy"):
      for kind in ("plain", "autotuned"):
        j, t = variants.get(("jaxlib", api, kind), {}), variants.get(("tkrt", api, kind), {})
        cell = lambda v, key: f"{v[key]:.2f}" if v.get("measured") else "-"  # noqa: E731
        ratio = (f"{t['us_per_call'] / j['us_per_call']:.2f}"
                 if j.get("measured") and t.get("measured") else "-")
        print(f"{mode:<16}{api:<8}{kind:<11}{cell(j, 'us_per_call'):>10}"
              f"{cell(t, 'us_per_call'):>10}{ratio:>12}{cell(j, 'us_per_call_slope'):>14}"
              f"{cell(t, 'us_per_call_slope'):>12}")
        rows.append({"command_buffers": mode, "api": api, "kind": kind, "jaxlib": j, "tkrt": t})
        for who, v in (("jaxlib", j), ("tkrt", t)):
          if v and not v.get("measured"):
            print(f"    {who} not measured: {v.get('why_not')}")
  for mode in ("on", "off"):
    if "tkrt_stats" in modes[mode]:
      s = modes[mode]["tkrt_stats"]
      print(f"tkrt counters, command buffers {mode}: executed {s['executed']}, of which captured "
            f"{s['executed_captured']}; legacy {s['legacy_executed']}; capture fallbacks "
            f"{s['capture_fallbacks']}; tuned {s['tuned_in_execute']}; errors {s['errors']}")
  if args.json:
    with open(args.json, "w") as f:
      json.dump({"bench": "jax_calls", "commit": os.environ.get("TKRT_BENCH_COMMIT"),
                 "k": args.k, "k_small": args.k_small, "reps": args.reps, "modes": modes,
                 "rows": rows}, f, indent=1)
  return 0 if all("error" not in m for m in modes.values()) else 1


if __name__ == "__main__":
  sys.exit(main())
