/* SPDX-License-Identifier: Apache-2.0 */
// Core test kernels for the HIP backend: the same kernels, parameters and observable results as
// test/core/kernels/core_kernels.cu (see the mapping of the host model there). Built for gfx90a by
// build_hsaco.sh (committed as core_kernels_gfx90a.hsaco). Differences that are AMD facts: no
// clusters (launch_probe reports 1x1x1), the clock is s_memrealtime (100 MHz), and the dynamic
// LDS size is the dispatch packet's group segment size (these kernels have no static LDS).
#include "hip_device.h" /* test/hip/kernels, on the include path (build_hsaco.sh) */

__device__ static uint64_t realtime_ns() { return __builtin_amdgcn_s_memrealtime() * 10u; }

__device__ static void spin_micros(uint32_t micros) {
  const uint64_t start = realtime_ns();
  while (realtime_ns() - start < (uint64_t)micros * 1000u) {
  }
}

__device__ static bool is_program_zero() { return BLOCK_X == 0 && BLOCK_Y == 0 && BLOCK_Z == 0; }

__device__ static void count_launch(uint32_t* counter, uint32_t slot) {
  if (THREAD_X == 0 && is_program_zero()) atomic_add_u32(&counter[slot], 1u);
}

#define INPLACE_ADD(BLOCK, SLOT)                                                                  \
  extern "C" __global__ void inplace_add_##BLOCK(float* x, const float* y, int32_t n,             \
                                                 uint32_t micros, uint32_t* counter,             \
                                                 uint8_t* global_scratch,                         \
                                                 uint8_t* profile_scratch) {                      \
    (void)global_scratch;                                                                         \
    (void)profile_scratch;                                                                        \
    count_launch(counter, SLOT);                                                                  \
    if (BLOCK_X == 0 && THREAD_X == 0 && micros) spin_micros(micros);                             \
    const int64_t begin = (int64_t)BLOCK_X * BLOCK;                                               \
    for (int64_t i = begin + THREAD_X; i < begin + BLOCK && i < n; i += block_dim_x()) {          \
      x[i] = x[i] + y[i];                                                                         \
    }                                                                                             \
  }
INPLACE_ADD(128, 0)
INPLACE_ADD(512, 1)
INPLACE_ADD(2048, 2)

#define ADD(BLOCK, SLOT)                                                                          \
  extern "C" __global__ void add_##BLOCK(const float* x, const float* y, float* out, int32_t n,  \
                                         uint32_t micros, uint32_t* counter,                      \
                                         uint8_t* global_scratch, uint8_t* profile_scratch) {     \
    (void)global_scratch;                                                                         \
    (void)profile_scratch;                                                                        \
    count_launch(counter, SLOT);                                                                  \
    if (BLOCK_X == 0 && THREAD_X == 0 && micros) spin_micros(micros);                             \
    const int64_t begin = (int64_t)BLOCK_X * BLOCK;                                               \
    for (int64_t i = begin + THREAD_X; i < begin + BLOCK && i < n; i += block_dim_x()) {          \
      out[i] = x[i] + y[i];                                                                       \
    }                                                                                             \
  }
ADD(128, 0)
ADD(512, 1)
ADD(2048, 2)

extern "C" __global__ void gather_inplace(int32_t* data, const int32_t* table, int32_t n,
                                          uint32_t* bad, uint8_t* global_scratch,
                                          uint8_t* profile_scratch) {
  (void)global_scratch;
  (void)profile_scratch;
  const int64_t begin = (int64_t)BLOCK_X * 256;
  for (int64_t i = begin + THREAD_X; i < begin + 256 && i < n; i += block_dim_x()) {
    const int32_t index = data[i];
    if (index < 0 || index >= n) {
      atomic_add_u32(bad, 1u);
    } else {
      data[i] = table[index];
    }
  }
}

extern "C" __global__ void make_indices(int32_t* data, int32_t n, uint8_t* global_scratch,
                                        uint8_t* profile_scratch) {
  (void)global_scratch;
  (void)profile_scratch;
  const int64_t begin = (int64_t)BLOCK_X * 256;
  for (int64_t i = begin + THREAD_X; i < begin + 256 && i < n; i += block_dim_x()) {
    data[i] = (int32_t)((i * 7) % n);
  }
}

extern "C" __global__ void count_programs(uint32_t* acc, uint8_t* global_scratch,
                                          uint8_t* profile_scratch) {
  (void)global_scratch;
  (void)profile_scratch;
  if (THREAD_X == 0) atomic_add_u32(acc, 1u);
}

extern "C" __global__ void launch_probe(uint32_t* out, uint8_t* scratch, uint8_t* profile) {
  if (THREAD_X != 0) return;
  const uint64_t linear = ((uint64_t)BLOCK_Z * grid_blocks(1) + BLOCK_Y) * grid_blocks(0) + BLOCK_X;
  if (scratch) *(uint32_t*)(scratch + linear * 64) = (uint32_t)linear + 1;
  if (linear != 0) return;
  out[0] = grid_blocks(0);
  out[1] = grid_blocks(1);
  out[2] = grid_blocks(2);
  out[3] = block_dim_x();
  out[4] = 1;
  out[5] = 1;
  out[6] = 1;
  out[7] = group_segment_bytes();
  const uint64_t address = (uint64_t)(uintptr_t)scratch;
  out[8] = (uint32_t)address;
  out[9] = (uint32_t)(address >> 32);
  out[10] = profile == nullptr;
}

extern "C" __global__ void scalars(uint64_t* out, uint8_t flag, int32_t i32, uint32_t u32,
                                   int64_t i64, uint64_t u64, float f32, double f64,
                                   uint8_t* global_scratch, uint8_t* profile_scratch) {
  (void)global_scratch;
  (void)profile_scratch;
  if (THREAD_X != 0 || BLOCK_X != 0) return;
  out[0] = flag;
  out[1] = (uint64_t)(int64_t)i32;
  out[2] = u32;
  out[3] = (uint64_t)i64;
  out[4] = u64;
  out[5] = __builtin_bit_cast(uint32_t, f32);
  out[6] = __builtin_bit_cast(uint64_t, f64);
}
