# SPDX-License-Identifier: Apache-2.0
"""The autotuning-under-XLA proof: an autotuned gather whose indices are computed earlier in the
same jitted function, run through tkrt's FFI target. A tuner that benchmarks before the indices
exist (jaxlib tunes in XLA's initialize stage) reads garbage indices; tkrt tunes in execute, on
the first launch outside capture, in stream order. Run it with command buffers on (default) and
off (XLA_FLAGS=--xla_gpu_enable_command_buffer=); every result must equal numpy's."""

import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
import triton
import triton.language as tl

import tkrt
import tkrt_frontend as fe


@triton.jit
def gather_kernel(table_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  idx = tl.load(idx_ptr + offs, mask=mask, other=0)
  tl.store(out_ptr + offs, tl.load(table_ptr + idx, mask=mask), mask=mask)


T = 1 << 20   # table entries
N = 1 << 18   # gathered entries


def main():
  flags = os.environ.get("XLA_FLAGS", "")
  tkrt.register()
  configs = []
  for block, warps in ((64, 2), (128, 4), (256, 4), (1024, 8)):
    kernel = fe.compile_kernel(gather_kernel, {"table_ptr": "*fp32", "idx_ptr": "*i32",
                                               "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": block},
                               num_warps=warps, divisible=("table_ptr", "idx_ptr", "out_ptr"))
    configs.append((fe.kernel_call(kernel, (fe.cdiv(N, block),),
                                   [fe.array(), fe.array(), fe.array(), fe.scalar(N, "i32")]),
                    f"BLOCK={block},warps={warps}"))
  opaque = fe.blob(fe.autotuned_call("gather_tuned", configs), name="gather")
  out_shape = jax.ShapeDtypeStruct((N,), jnp.float32)

  @jax.jit
  def f(table, key):
    # Indices exist only once these ops ran: a large multiplier makes unproduced (stale) memory
    # an out-of-range index, which is what a too-early benchmark would read.
    idx = ((jnp.arange(N, dtype=jnp.int32) * 7919 + key) % T).astype(jnp.int32)
    g = fe.call(fe.TKRT_FFI, opaque, table, idx, out_shapes=[out_shape])[0]
    h = jnp.sin(g) * 0.0 + g           # more work in the same program (command buffer size)
    idx2 = ((idx.astype(jnp.int32) + key * 31) % T).astype(jnp.int32)
    g2 = fe.call(fe.TKRT_FFI, opaque, table, idx2, out_shapes=[out_shape])[0]
    return h, g2

  rng = np.random.default_rng(1)
  table = rng.standard_normal(T).astype(np.float32)
  ok = True
  for step, key in enumerate([3, 11, 12345, 99991, 7, 424242]):
    h, g2 = f(table, jnp.int32(key))
    idx = ((np.arange(N, dtype=np.int64) * 7919 + key) % T).astype(np.int64)
    idx2 = (idx + key * 31) % T
    good = np.array_equal(np.asarray(h), table[idx]) and np.array_equal(np.asarray(g2), table[idx2])
    ok &= good
    print(f"step {step} key {key}: {'ok' if good else 'WRONG'}", flush=True)
  s = tkrt.stats()
  print("stats:", s)
  mode = os.environ.get("TKRT_GATHER_MODE", f"XLA_FLAGS={flags!r}")
  print(f"CHECK gather_autotuned [{mode}] {'PASS' if ok else 'FAIL'}  executes={s['executed']} "
        f"captured={s['executed_captured']} tuned_in_execute={s['tuned_in_execute']} "
        f"capture_fallbacks={s['capture_fallbacks']}")
  return 0 if ok else 1


if __name__ == "__main__":
  sys.exit(main())
