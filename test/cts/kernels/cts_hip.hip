/* SPDX-License-Identifier: Apache-2.0 */
// Conformance-suite kernels for the HIP backend: the table in test/cts/kernels/README.md, the same
// kernels as cts_cuda.cu. Built for gfx90a by test/hip/kernels/build_hsaco.sh (test/hip/kernels/build_hsaco.sh; committed as cts_hip_gfx90a.hsaco).
// AMD GPUs have no thread-block clusters: cts_cluster_rank reports every block as rank 0 of its
// own cluster, which is what the CUDA build reads without a cluster.
#include "hip_device.h" /* test/hip/kernels, on the include path (build_hsaco.sh) */

#define CTS_BLOCK 1024

extern "C" __global__ void cts_add_f32(const float* x, const float* y, float* out, int32_t n) {
  const int64_t begin = (int64_t)BLOCK_X * CTS_BLOCK;
  for (int64_t i = begin + THREAD_X; i < begin + CTS_BLOCK && i < n; i += block_dim_x()) {
    out[i] = x[i] + y[i];  // -ffp-contract=off: no FMA, round to nearest like the host
  }
}

extern "C" __global__ void cts_write_pid(uint32_t* out) {
  if (THREAD_X != 0 || THREAD_Y != 0 || THREAD_Z != 0) return;
  const uint64_t linear = ((uint64_t)BLOCK_Z * grid_blocks(1) + BLOCK_Y) * grid_blocks(0) + BLOCK_X;
  out[linear] = BLOCK_X | BLOCK_Y << 10 | BLOCK_Z << 20;
}

extern "C" __global__ void cts_smem_reverse(const uint32_t* in, uint32_t* out, uint32_t words) {
  extern __shared__ uint32_t staged[];
  const uint64_t base = (uint64_t)BLOCK_X * words;
  for (uint32_t i = THREAD_X; i < words; i += block_dim_x()) staged[i] = in[base + i];
  sync_threads();
  for (uint32_t i = THREAD_X; i < words; i += block_dim_x()) out[base + i] = staged[words - 1 - i];
}

extern "C" __global__ void cts_cluster_rank(uint32_t* out) {
  if (THREAD_X != 0) return;
  out[BLOCK_X] = 0u | BLOCK_X << 8;
}

extern "C" __global__ void cts_scalars(uint64_t* out, int32_t i32, uint32_t u32, int64_t i64,
                                       uint64_t u64, float f32, double f64) {
  if (BLOCK_X != 0 || THREAD_X != 0) return;
  out[0] = (uint64_t)(int64_t)i32;
  out[1] = u32;
  out[2] = (uint64_t)i64;
  out[3] = u64;
  out[4] = __builtin_bit_cast(uint32_t, f32);
  out[5] = __builtin_bit_cast(uint64_t, f64);
}
