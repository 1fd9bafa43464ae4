/* SPDX-License-Identifier: Apache-2.0 */
// CUDA kernels for the core tests: the same kernels as core_kernels.c, with the same parameters
// and the same observable results, so the core tests run unchanged on the CUDA backend.
// Regenerate core_kernels.ptx with regen_cuda.sh (the PTX is committed; builds never need nvcc).
//
// Mapping of the host model: a program is a CTA (program id = blockIdx, the grid = gridDim);
// "program 0 does X" is thread 0 of block (0,0,0); a program's elements are strided over its
// threads. Like Triton kernels, every kernel declares the two hidden trailing pointers the core
// always passes (global scratch, then profile scratch); the host kernels declare them too.
#include <stdint.h>

// The %globaltimer special register: nanoseconds, the GPU's wall clock (CLOCK_MONOTONIC on host).
__device__ static uint64_t globaltimer_ns() {
  uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__device__ static void spin_micros(uint32_t micros) {
  const uint64_t start = globaltimer_ns();
  while (globaltimer_ns() - start < (uint64_t)micros * 1000u) {
  }
}

__device__ static bool is_program_zero() {
  return blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0;
}

// counter[slot] counts launches: program 0 of each launch adds one.
__device__ static void count_launch(uint32_t* counter, uint32_t slot) {
  if (threadIdx.x == 0 && is_program_zero()) atomicAdd(&counter[slot], 1u);
}

// x[i] += y[i] in place, BLOCK elements per program; program 0 spins `micros` to make configs
// measurably different; counter[SLOT] counts launches. Wrong results if it ever runs on x that an
// earlier launch already modified. __fadd_rn: no FMA contraction, round to nearest like the host.
#define INPLACE_ADD(BLOCK, SLOT)                                                                  \
  extern "C" __global__ void inplace_add_##BLOCK(float* x, const float* y, int32_t n,             \
                                                 uint32_t micros, uint32_t* counter,             \
                                                 uint8_t* global_scratch,                         \
                                                 uint8_t* profile_scratch) {                      \
    (void)global_scratch;                                                                         \
    (void)profile_scratch;                                                                        \
    count_launch(counter, SLOT);                                                                  \
    if (blockIdx.x == 0 && threadIdx.x == 0 && micros) spin_micros(micros);                       \
    const int64_t begin = (int64_t)blockIdx.x * BLOCK;                                            \
    for (int64_t i = begin + threadIdx.x; i < begin + BLOCK && i < n; i += blockDim.x) {          \
      x[i] = __fadd_rn(x[i], y[i]);                                                               \
    }                                                                                             \
  }
INPLACE_ADD(128, 0)
INPLACE_ADD(512, 1)
INPLACE_ADD(2048, 2)

// out[i] = x[i] + y[i] (out distinct from x), BLOCK elements per program.
#define ADD(BLOCK, SLOT)                                                                          \
  extern "C" __global__ void add_##BLOCK(const float* x, const float* y, float* out, int32_t n,  \
                                         uint32_t micros, uint32_t* counter,                      \
                                         uint8_t* global_scratch, uint8_t* profile_scratch) {     \
    (void)global_scratch;                                                                         \
    (void)profile_scratch;                                                                        \
    count_launch(counter, SLOT);                                                                  \
    if (blockIdx.x == 0 && threadIdx.x == 0 && micros) spin_micros(micros);                       \
    const int64_t begin = (int64_t)blockIdx.x * BLOCK;                                            \
    for (int64_t i = begin + threadIdx.x; i < begin + BLOCK && i < n; i += blockDim.x) {          \
      out[i] = __fadd_rn(x[i], y[i]);                                                             \
    }                                                                                             \
  }
ADD(128, 0)
ADD(512, 1)
ADD(2048, 2)

// In place through indices: data[i] = table[data[i]]. `table` is a permutation of [0, n), so a
// launch on unmodified data stays in range; out-of-range indices are counted in bad[0]. Each
// element is read and written by the same thread, so in place is race-free.
extern "C" __global__ void gather_inplace(int32_t* data, const int32_t* table, int32_t n,
                                          uint32_t* bad, uint8_t* global_scratch,
                                          uint8_t* profile_scratch) {
  (void)global_scratch;
  (void)profile_scratch;
  const int64_t begin = (int64_t)blockIdx.x * 256;
  for (int64_t i = begin + threadIdx.x; i < begin + 256 && i < n; i += blockDim.x) {
    const int32_t index = data[i];
    if (index < 0 || index >= n) {
      atomicAdd(bad, 1u);
    } else {
      data[i] = table[index];
    }
  }
}

// data[i] = (i * 7) % n, produced on the stream right before a gather reads it.
extern "C" __global__ void make_indices(int32_t* data, int32_t n, uint8_t* global_scratch,
                                        uint8_t* profile_scratch) {
  (void)global_scratch;
  (void)profile_scratch;
  const int64_t begin = (int64_t)blockIdx.x * 256;
  for (int64_t i = begin + threadIdx.x; i < begin + 256 && i < n; i += blockDim.x) {
    data[i] = (int32_t)((i * 7) % n);
  }
}

// acc[0] += 1 for every program: with bytes_to_zero = 4 the result is the program count.
extern "C" __global__ void count_programs(uint32_t* acc, uint8_t* global_scratch,
                                          uint8_t* profile_scratch) {
  (void)global_scratch;
  (void)profile_scratch;
  if (threadIdx.x == 0) atomicAdd(acc, 1u);
}

// Records its launch: out[0..2] the grid in CTAs as launched (already scaled by the cluster),
// out[3] block x in threads, out[4..6] the cluster dims ({1,1,1} without a cluster), out[7] the
// dynamic shared memory bytes (the kernel has no static shared memory; %dynamic_smem_size);
// writes its linear program id + 1 into the global scratch at pid*64 and copies the scratch
// address into out[8..9]; out[10] = 1 when the profile scratch is null, else writes linear
// program id + 100001 into it at pid*64 and its address into out[11..12].
extern "C" __global__ void launch_probe(uint32_t* out, uint8_t* scratch, uint8_t* profile) {
  if (threadIdx.x != 0) return;
  const uint64_t linear =
      ((uint64_t)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  if (scratch) *(uint32_t*)(scratch + linear * 64) = (uint32_t)linear + 1;
  if (profile) *(uint32_t*)(profile + linear * 64) = (uint32_t)linear + 100001;
  if (linear != 0) return;
  uint32_t cluster_x, cluster_y, cluster_z, dynamic_shared;
  asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(cluster_x));
  asm volatile("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(cluster_y));
  asm volatile("mov.u32 %0, %%cluster_nctaid.z;" : "=r"(cluster_z));
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_shared));
  out[0] = gridDim.x;
  out[1] = gridDim.y;
  out[2] = gridDim.z;
  out[3] = blockDim.x;
  out[4] = cluster_x;
  out[5] = cluster_y;
  out[6] = cluster_z;
  out[7] = dynamic_shared;
  const uint64_t address = (uint64_t)(uintptr_t)scratch;
  out[8] = (uint32_t)address;
  out[9] = (uint32_t)(address >> 32);
  out[10] = profile == nullptr;
  const uint64_t profile_address = (uint64_t)(uintptr_t)profile;
  out[11] = (uint32_t)profile_address;
  out[12] = (uint32_t)(profile_address >> 32);
}

// Every scalar kind: out[0..6] as u64 bit patterns (bool, i32 sign-extended, u32, i64, u64, f32
// bits, f64 bits). Triton's i1 travels as one byte (.param .u8), read here as that raw byte.
extern "C" __global__ void scalars(uint64_t* out, uint8_t flag, int32_t i32, uint32_t u32,
                                   int64_t i64, uint64_t u64, float f32, double f64,
                                   uint8_t* global_scratch, uint8_t* profile_scratch) {
  (void)global_scratch;
  (void)profile_scratch;
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  out[0] = flag;
  out[1] = (uint64_t)(int64_t)i32;
  out[2] = u32;
  out[3] = (uint64_t)i64;
  out[4] = u64;
  out[5] = __float_as_uint(f32);
  out[6] = (uint64_t)__double_as_longlong(f64);
}

// A kernel with a TMA descriptor parameter (a CUtensorMap by value: 128 bytes, 64-byte aligned),
// CUDA only (the host backend has no TMA): counts launches in acc[0] (program 0) and copies the
// descriptor's bytes into out[0..127], so tests see what was encoded for each launch.
struct alignas(64) core_tensor_map {
  unsigned long long words[16];
};
extern "C" __global__ void tma_probe(const __grid_constant__ core_tensor_map desc, uint32_t* acc,
                                     unsigned long long* out, uint8_t* global_scratch,
                                     uint8_t* profile_scratch) {
  (void)global_scratch;
  (void)profile_scratch;
  if (threadIdx.x != 0 || blockIdx.x != 0 || blockIdx.y != 0 || blockIdx.z != 0) return;
  atomicAdd(acc, 1u);
  for (int i = 0; i < 16; ++i) out[i] = desc.words[i];
}
