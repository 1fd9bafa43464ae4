# SPDX-License-Identifier: Apache-2.0
"""tkrt as Triton's launcher (issue 33, item 1), on a GPU with Triton 3.6 and PyTorch:

  triton_launcher_check.py baseline OUT.npz     Triton's own launcher: writes the outputs
  triton_launcher_check.py tkrt OUT.npz         tkrt.triton_launcher installed: the same kernels,
                                                compared with the baseline bit for bit

Run by run_launcher.sh, the tkrt run with an empty Triton cache and no C compiler on PATH (Triton
then cannot build its launcher stubs or cuda_utils.c: any attempt fails the run). The kernels:
a plain add, an add with a folded (specialised) argument and a constexpr, a dot (matmul), a
kernel launched through `compiled[grid](...)`, and Triton's launch enter/exit hooks.
"""
import os
import sys

import numpy as np
import torch
import triton
import triton.language as tl

MODE, OUT = sys.argv[1], sys.argv[2]
if MODE == "tkrt":
  import tkrt.triton_launcher as launcher
  launcher.install()


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
           mask=mask)


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, stride, alpha, BLOCK: tl.constexpr, TWICE: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  v = tl.load(x_ptr + offs * stride, mask=mask) * alpha
  if TWICE:
    v = v * 2.0
  tl.store(out_ptr + offs, v, mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
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


def main():
  torch.manual_seed(33)
  n = 100003
  x = torch.randn(n, device="cuda")
  y = torch.randn(n, device="cuda")
  results = {}
  hooks = []
  triton.knobs.runtime.launch_enter_hook = lambda meta: hooks.append("enter")
  triton.knobs.runtime.launch_exit_hook = lambda meta: hooks.append("exit")

  out = torch.empty_like(x)
  grid = lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)
  add_kernel[grid](x, y, out, n, BLOCK=1024)
  results["add"] = out.cpu().numpy()
  out2 = torch.empty_like(x)
  compiled = add_kernel[grid](x, y, out2, 5000, BLOCK=1024)  # another n: the same kernel
  results["add_5000"] = out2.cpu().numpy()
  triton.knobs.runtime.launch_enter_hook = triton.knobs.runtime.launch_exit_hook = None

  out3 = torch.zeros_like(x)
  compiled[(triton.cdiv(n, 1024), 1, 1)](x, y, out3, n, 1024)  # every argument, BLOCK too
  results["compiled_getitem"] = out3.cpu().numpy()

  out4 = torch.empty_like(x)
  scale_kernel[grid](x, out4, n, 1, 0.5, BLOCK=512, TWICE=True)  # stride == 1: specialised away
  results["scale"] = out4.cpu().numpy()

  a = torch.randn(256, 512, device="cuda", dtype=torch.float16)
  b = torch.randn(512, 384, device="cuda", dtype=torch.float16)
  c = torch.empty(256, 384, device="cuda", dtype=torch.float16)
  matmul_kernel[(256 // 64, 384 // 128)](a, b, c, 256, 384, 512, BM=64, BN=128, BK=64)
  results["matmul"] = c.cpu().numpy()
  torch.cuda.synchronize()

  failures = []
  if MODE == "baseline":
    np.savez(OUT, **results)
    print(f"baseline: {len(results)} outputs written; hooks {hooks}")
    return 0
  want = np.load(OUT)
  for name, got in results.items():
    same = np.array_equal(got.view(np.uint16 if got.dtype == np.float16 else np.uint32),
                          want[name].view(np.uint16 if got.dtype == np.float16 else np.uint32))
    print(f"{'ok' if same else 'FAIL'}: {name} bit-identical to Triton's own launcher")
    if not same:
      failures.append(name)
  s = launcher.stats()
  print(f"stats: {s}; hooks {hooks}")
  # add, scale, matmul; add twice by kernel[grid], once by compiled[grid], scale and matmul once.
  if s["tkrt_kernels"] != 3 or s["tkrt_launches"] != 5 or s["fallback_kernels"]:
    failures.append(f"stats {s}: expected every kernel and launch through tkrt, no fallback")
  if hooks != ["enter", "exit", "enter", "exit"]:
    failures.append(f"launch hooks called {hooks}")
  cache = os.environ.get("TRITON_CACHE_DIR", "")
  stubs = [f for _, _, files in os.walk(cache) for f in files if f.endswith(".so")] if cache else []
  if stubs:
    failures.append(f"Triton's cache holds compiled modules: {stubs[:5]}")
  print("LAUNCHER: PASS" if not failures else f"LAUNCHER: FAIL ({'; '.join(failures)})")
  return 1 if failures else 0


if __name__ == "__main__":
  sys.exit(main())
