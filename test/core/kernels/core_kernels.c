/* SPDX-License-Identifier: Apache-2.0 */
/* Host kernels for the core tests: autotune configs that differ in block size and speed, an
 * in-place kernel, a gather through indices, and kernels that expose how they were launched.
 * core_kernels.cu is the CUDA build of the same kernels, with the same parameters and results.
 * Like Triton kernels, every kernel declares the two hidden trailing pointers the core always
 * passes (global scratch, then profile scratch), so both builds have identical parameter lists. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <time.h>

#include "tkrt/host_kernel.h"

static void spin_micros(uint32_t micros) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000L <
           (long)micros);
}

/* counter[slot] counts launches (program 0 of each launch adds one). */
static void count_launch(uint32_t* counter, uint32_t slot, const tkrt_host_program_t* program) {
  if (program->pid[0] == 0 && program->pid[1] == 0 && program->pid[2] == 0) {
    __atomic_fetch_add(&counter[slot], 1, __ATOMIC_RELAXED);
  }
}

/* x[i] += y[i] in place, BLOCK elements per program; program 0 spins `micros` to make configs
 * measurably different; counter[SLOT] counts launches. Wrong results if it ever runs on x that an
 * earlier launch already modified. */
#define INPLACE_ADD(BLOCK, SLOT)                                                        \
  TKRT_HOST_KERNEL(inplace_add_##BLOCK, "*fp32,*fp32,i32,u32,*u32,*u8,*u8") {          \
    float* x = TKRT_HOST_PARAM(float*, 0);                                              \
    const float* y = TKRT_HOST_PARAM(const float*, 1);                                  \
    int32_t n = TKRT_HOST_PARAM(int32_t, 2);                                            \
    uint32_t micros = TKRT_HOST_PARAM(uint32_t, 3);                                     \
    count_launch(TKRT_HOST_PARAM(uint32_t*, 4), SLOT, program);                         \
    if (program->pid[0] == 0 && micros) spin_micros(micros);                            \
    int64_t begin = (int64_t)program->pid[0] * BLOCK;                                   \
    for (int64_t i = begin; i < begin + BLOCK && i < n; ++i) x[i] += y[i];              \
  }
INPLACE_ADD(128, 0)
INPLACE_ADD(512, 1)
INPLACE_ADD(2048, 2)

/* out[i] = x[i] + y[i] (out distinct from x), BLOCK elements per program. */
#define ADD(BLOCK, SLOT)                                                                \
  TKRT_HOST_KERNEL(add_##BLOCK, "*fp32,*fp32,*fp32,i32,u32,*u32,*u8,*u8") {            \
    const float* x = TKRT_HOST_PARAM(const float*, 0);                                  \
    const float* y = TKRT_HOST_PARAM(const float*, 1);                                  \
    float* out = TKRT_HOST_PARAM(float*, 2);                                            \
    int32_t n = TKRT_HOST_PARAM(int32_t, 3);                                            \
    uint32_t micros = TKRT_HOST_PARAM(uint32_t, 4);                                     \
    count_launch(TKRT_HOST_PARAM(uint32_t*, 5), SLOT, program);                         \
    if (program->pid[0] == 0 && micros) spin_micros(micros);                            \
    int64_t begin = (int64_t)program->pid[0] * BLOCK;                                   \
    for (int64_t i = begin; i < begin + BLOCK && i < n; ++i) out[i] = x[i] + y[i];      \
  }
ADD(128, 0)
ADD(512, 1)
ADD(2048, 2)

/* In place through indices: data[i] = table[data[i]]. `table` is a permutation of [0, n), so a
 * launch on unmodified data stays in range; out-of-range indices are counted in bad[0]. */
TKRT_HOST_KERNEL(gather_inplace, "*i32,*i32,i32,*u32,*u8,*u8") {
  int32_t* data = TKRT_HOST_PARAM(int32_t*, 0);
  const int32_t* table = TKRT_HOST_PARAM(const int32_t*, 1);
  int32_t n = TKRT_HOST_PARAM(int32_t, 2);
  uint32_t* bad = TKRT_HOST_PARAM(uint32_t*, 3);
  int64_t begin = (int64_t)program->pid[0] * 256;
  for (int64_t i = begin; i < begin + 256 && i < n; ++i) {
    int32_t index = data[i];
    if (index < 0 || index >= n) {
      __atomic_fetch_add(bad, 1, __ATOMIC_RELAXED);
    } else {
      data[i] = table[index];
    }
  }
}

/* iota: data[i] = (i * 7) % n, produced on the stream right before a gather reads it. */
TKRT_HOST_KERNEL(make_indices, "*i32,i32,*u8,*u8") {
  int32_t* data = TKRT_HOST_PARAM(int32_t*, 0);
  int32_t n = TKRT_HOST_PARAM(int32_t, 1);
  int64_t begin = (int64_t)program->pid[0] * 256;
  for (int64_t i = begin; i < begin + 256 && i < n; ++i) data[i] = (int32_t)((i * 7) % n);
}

/* acc[0] += 1 for every program: with bytes_to_zero = 4 the result is the program count. */
TKRT_HOST_KERNEL(count_programs, "*u32,*u8,*u8") {
  (void)program;
  __atomic_fetch_add(TKRT_HOST_PARAM(uint32_t*, 0), 1, __ATOMIC_RELAXED);
}

/* Records its launch: out[0..2] the grid in programs as launched (already scaled by the
 * cluster), out[3] block x in threads, out[4..6] the cluster dims ({1,1,1} without a cluster),
 * out[7] the dynamic shared memory bytes (shared_bytes is static + dynamic, and this kernel
 * declares no static shared memory); writes its linear program id + 1 into the global scratch at
 * pid*64 and copies the scratch address into out[8..9]; out[10] = 1 when the profile scratch is
 * null, else writes linear program id + 100001 into it at pid*64 and its address into
 * out[11..12]. Only the hidden pointers follow `out`: it is the kernel that reads them. */
TKRT_HOST_KERNEL(launch_probe, "*u32,*u8,*u8") {
  uint32_t* out = TKRT_HOST_PARAM(uint32_t*, 0);
  unsigned char* scratch = TKRT_HOST_PARAM(unsigned char*, 1);
  unsigned char* profile = TKRT_HOST_PARAM(unsigned char*, 2);
  uint64_t linear = ((uint64_t)program->pid[2] * program->num_programs[1] + program->pid[1]) *
                        program->num_programs[0] + program->pid[0];
  if (scratch) *(uint32_t*)(scratch + linear * 64) = (uint32_t)linear + 1;
  if (profile) *(uint32_t*)(profile + linear * 64) = (uint32_t)linear + 100001;
  if (linear != 0) return;
  for (int i = 0; i < 3; ++i) out[i] = program->num_programs[i];
  out[3] = program->block[0];
  for (int i = 0; i < 3; ++i) out[4 + i] = program->cluster[i];
  out[7] = program->shared_bytes;
  uint64_t address = (uint64_t)(uintptr_t)scratch;
  out[8] = (uint32_t)address;
  out[9] = (uint32_t)(address >> 32);
  out[10] = profile == 0;
  address = (uint64_t)(uintptr_t)profile;
  out[11] = (uint32_t)address;
  out[12] = (uint32_t)(address >> 32);
}

/* Every scalar kind: out[0..6] as u64 bit patterns (bool as its raw byte, i32 sign-extended,
 * u32, i64, u64, f32 bits, f64 bits). */
TKRT_HOST_KERNEL(scalars, "*u64,i1,i32,u32,i64,u64,fp32,fp64,*u8,*u8") {
  if (program->pid[0] != 0) return;
  uint64_t* out = TKRT_HOST_PARAM(uint64_t*, 0);
  out[0] = TKRT_HOST_PARAM(uint8_t, 1);
  out[1] = (uint64_t)(int64_t)TKRT_HOST_PARAM(int32_t, 2);
  out[2] = TKRT_HOST_PARAM(uint32_t, 3);
  out[3] = (uint64_t)TKRT_HOST_PARAM(int64_t, 4);
  out[4] = TKRT_HOST_PARAM(uint64_t, 5);
  float f = TKRT_HOST_PARAM(float, 6);
  double d = TKRT_HOST_PARAM(double, 7);
  uint32_t fbits;
  uint64_t dbits;
  __builtin_memcpy(&fbits, &f, 4);
  __builtin_memcpy(&dbits, &d, 8);
  out[5] = fbits;
  out[6] = dbits;
}
