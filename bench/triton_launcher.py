# SPDX-License-Identifier: Apache-2.0
"""`kernel[grid](...)` with Triton's own launcher and with tkrt.triton_launcher installed, in one
process, interleaved (issue 33's first benchmark): two JIT functions with the same body, the first
launched (so handled by Triton's launcher) before install(), the second after; plus tkrt's
prepared launch of the same compiled kernel (the native path) as the floor of what tkrt adds.
Medians of ROUNDS rounds of LAUNCHES launches each, microseconds per launch (host time of
enqueueing, synchronized after each round). GPU, Triton 3.6, PyTorch.

  python bench/triton_launcher.py [--rounds 15] [--launches 2000] [--json FILE] [--profile N]

Prints a table and "triton_launcher: installed/triton = R (target <= 0.9x: met|missed)".
"""
import argparse
import json
import statistics
import time

import torch
import triton
import triton.language as tl

import tkrt.triton as tt
import tkrt.triton_launcher as launcher


@triton.jit
def add_triton(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
           mask=mask)


@triton.jit
def add_tkrt(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
           mask=mask)


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--rounds", type=int, default=15)
  parser.add_argument("--launches", type=int, default=2000)
  parser.add_argument("--json")
  parser.add_argument("--profile", type=int, default=0, metavar="LAUNCHES",
                      help="then profile that many installed launches (cProfile, by own time)")
  args = parser.parse_args()
  n = 4096
  x = torch.randn(n, device="cuda")
  y = torch.randn(n, device="cuda")
  out = torch.empty_like(x)
  grid = (triton.cdiv(n, 1024),)
  add_triton[grid](x, y, out, n, BLOCK=1024)  # Triton's launcher, before install()
  launcher.install()
  compiled = add_tkrt[grid](x, y, out, n, BLOCK=1024)  # tkrt's, after
  torch.cuda.synchronize()
  assert launcher.stats()["tkrt_launches"] == 1, launcher.stats()
  prepared = tt.load(compiled).prepare("cdiv(n, BLOCK)", device="cuda", n=n)

  cases = {
      "kernel[grid] (Triton's launcher)": lambda: add_triton[grid](x, y, out, n, BLOCK=1024),
      "kernel[grid] (tkrt installed)": lambda: add_tkrt[grid](x, y, out, n, BLOCK=1024),
      "tkrt prepared (native)": lambda: prepared(x, y, out, n),
  }
  samples = {name: [] for name in cases}
  for _ in range(args.rounds):
    for name, fn in cases.items():  # interleaved: each round times every case
      fn()
      torch.cuda.synchronize()
      start = time.perf_counter()
      for _ in range(args.launches):
        fn()
      elapsed = time.perf_counter() - start
      torch.cuda.synchronize()
      samples[name].append(elapsed / args.launches * 1e6)
  medians = {name: statistics.median(v) for name, v in samples.items()}
  base = medians["kernel[grid] (Triton's launcher)"]
  print(f"{'case':40s} {'us/launch':>10s} {'vs Triton':>10s}")
  for name, m in medians.items():
    print(f"{name:40s} {m:10.2f} {m / base:9.2f}x")
  ratio = medians["kernel[grid] (tkrt installed)"] / base
  print(f"triton_launcher: installed/triton = {ratio:.2f}x (target <= 0.9x: "
        f"{'met' if ratio <= 0.9 else 'missed'})")
  if args.profile:
    import cProfile
    import pstats
    profiler = cProfile.Profile()
    fn = cases["kernel[grid] (tkrt installed)"]
    profiler.enable()
    for _ in range(args.profile):
      fn()
    profiler.disable()
    torch.cuda.synchronize()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(14)
  if args.json:
    with open(args.json, "w") as f:
      json.dump({"medians_us": medians, "samples_us": samples, "ratio": ratio}, f, indent=1)


if __name__ == "__main__":
  main()
