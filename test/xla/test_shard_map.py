# SPDX-License-Identifier: Apache-2.0
"""A Triton call sharded over two GPUs with shard_map through tkrt's FFI target: each device
loads its own module (one tkrt device per ordinal) and every shard's result is right. Skips
(exit 77) unless at least two GPUs are visible."""

import sys

import jax
import jax.numpy as jnp
import numpy as np
import triton
import triton.language as tl
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

import tkrt
import tkrt_frontend as fe

try:
  from jax import shard_map
except ImportError:
  from jax.experimental.shard_map import shard_map


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
           mask=mask)


def main():
  devices = jax.devices()
  if len(devices) < 2:
    print(f"CHECK shard_map_two_gpus SKIP  only {len(devices)} GPU visible")
    return 77
  tkrt.register()
  per_shard = 1 << 16
  n = per_shard * 2
  kernel = fe.compile_kernel(add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                                          "n": "i32"}, {"BLOCK": 256},
                             divisible=("x_ptr", "y_ptr", "out_ptr"))
  opaque = fe.blob(fe.kernel_call(kernel, (fe.cdiv(per_shard, 256),),
                                  [fe.array(), fe.array(), fe.array(),
                                   fe.scalar(per_shard, "i32")]), name="sharded_add")
  mesh = Mesh(np.array(devices[:2]), ("d",))
  local = jax.ShapeDtypeStruct((per_shard,), jnp.float32)

  def body(x, y):
    return fe.call(fe.TKRT_FFI, opaque, x, y, out_shapes=[local])[0]

  f = jax.jit(shard_map(body, mesh=mesh, in_specs=(P("d"), P("d")), out_specs=P("d")))
  rng = np.random.default_rng(2)
  x = rng.standard_normal(n).astype(np.float32)
  y = rng.standard_normal(n).astype(np.float32)
  sharding = NamedSharding(mesh, P("d"))
  out = f(jax.device_put(x, sharding), jax.device_put(y, sharding))
  ok = np.array_equal(np.asarray(out), x + y)
  s = tkrt.stats()
  ok &= s["devices_opened"] >= 2
  print(f"CHECK shard_map_two_gpus {'PASS' if ok else 'FAIL'}  devices_opened={s['devices_opened']} "
        f"executes={s['executed']}")
  return 0 if ok else 1


if __name__ == "__main__":
  sys.exit(main())
