/* SPDX-License-Identifier: Apache-2.0 */
/* Conformance-suite kernels for the host backend. Every backend provides the same kernels with
 * the same semantics (see README.md beside this file); the suite checks results bit for bit. */
#include <stdint.h>
#include <string.h>

#include "tkrt/host_kernel.h"

#define CTS_BLOCK 1024

/* out[i] = x[i] + y[i] for i in [pid*1024, pid*1024 + 1024) and i < n. */
TKRT_HOST_KERNEL(cts_add_f32, "*fp32,*fp32,*fp32,i32") {
  const float* x = TKRT_HOST_PARAM(const float*, 0);
  const float* y = TKRT_HOST_PARAM(const float*, 1);
  float* out = TKRT_HOST_PARAM(float*, 2);
  int32_t n = TKRT_HOST_PARAM(int32_t, 3);
  int64_t begin = (int64_t)program->pid[0] * CTS_BLOCK;
  for (int64_t i = begin; i < begin + CTS_BLOCK && i < n; ++i) out[i] = x[i] + y[i];
}

/* out[(z*gy + y)*gx + x] = x | y << 10 | z << 20: proves every program of a 3-D grid ran once. */
TKRT_HOST_KERNEL(cts_write_pid, "*u32") {
  uint32_t* out = TKRT_HOST_PARAM(uint32_t*, 0);
  const uint32_t* pid = program->pid;
  const uint32_t* grid = program->num_programs;
  uint64_t linear = ((uint64_t)pid[2] * grid[1] + pid[1]) * grid[0] + pid[0];
  out[linear] = pid[0] | pid[1] << 10 | pid[2] << 20;
}

/* One program per `words` block: stages in[pid*words ...] in dynamic shared memory, then writes
 * it back reversed: out[pid*words + i] = in[pid*words + words-1-i]. Needs words*4 bytes of
 * dynamic shared memory. */
TKRT_HOST_KERNEL(cts_smem_reverse, "*u32,*u32,u32") {
  const uint32_t* in = TKRT_HOST_PARAM(const uint32_t*, 0);
  uint32_t* out = TKRT_HOST_PARAM(uint32_t*, 1);
  uint32_t words = TKRT_HOST_PARAM(uint32_t, 2);
  uint32_t* staged = program->shared;
  uint64_t base = (uint64_t)program->pid[0] * words;
  memcpy(staged, in + base, (size_t)words * 4);
  for (uint32_t i = 0; i < words; ++i) out[base + i] = staged[words - 1 - i];
}

/* out[pid.x] = (rank of this program in its cluster) | (cluster index << 8), clusters along x. */
TKRT_HOST_KERNEL(cts_cluster_rank, "*u32") {
  uint32_t* out = TKRT_HOST_PARAM(uint32_t*, 0);
  uint32_t size = program->cluster[0];
  out[program->pid[0]] = (program->pid[0] % size) | (program->pid[0] / size) << 8;
}

/* Scalars of every kind: out[0..5] = the values widened to u64 bit patterns (f32 as its bits). */
TKRT_HOST_KERNEL(cts_scalars, "*u64,i32,u32,i64,u64,fp32,fp64") {
  uint64_t* out = TKRT_HOST_PARAM(uint64_t*, 0);
  if (program->pid[0] != 0) return;
  float f32 = TKRT_HOST_PARAM(float, 5);
  double f64 = TKRT_HOST_PARAM(double, 6);
  uint32_t f32_bits;
  uint64_t f64_bits;
  memcpy(&f32_bits, &f32, 4);
  memcpy(&f64_bits, &f64, 8);
  out[0] = (uint64_t)(int64_t)TKRT_HOST_PARAM(int32_t, 1);
  out[1] = TKRT_HOST_PARAM(uint32_t, 2);
  out[2] = (uint64_t)TKRT_HOST_PARAM(int64_t, 3);
  out[3] = TKRT_HOST_PARAM(uint64_t, 4);
  out[4] = f32_bits;
  out[5] = f64_bits;
}
