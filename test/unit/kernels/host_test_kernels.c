/* SPDX-License-Identifier: Apache-2.0 */
/* Host kernels for the host backend's own tests: edge cases the conformance kernels lack. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <time.h>

#include "tkrt/host_kernel.h"

/* A signature with a type the backend does not know. */
TKRT_HOST_KERNEL(bad_signature, "*fp32,complex64") { (void)params; (void)program; }

/* Static shared memory: program->shared holds 4096 static bytes before any dynamic ones. */
TKRT_HOST_KERNEL_EX(static_shared, "*u32", 4096) {
  uint32_t* out = TKRT_HOST_PARAM(uint32_t*, 0);
  out[program->pid[0]] = program->shared_bytes;
}

/* Busy for `micros` microseconds per program: gives events something real to time. */
TKRT_HOST_KERNEL(spin, "u32") {
  (void)program;
  uint32_t micros = TKRT_HOST_PARAM(uint32_t, 0);
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000L <
           (long)micros);
}

/* out[i] = i*i for i < n, one element per program: many tiny programs stress the pool. */
TKRT_HOST_KERNEL(squares, "*u64,i64") {
  uint64_t* out = TKRT_HOST_PARAM(uint64_t*, 0);
  int64_t n = TKRT_HOST_PARAM(int64_t, 1);
  uint64_t i = (uint64_t)program->pid[0] + (uint64_t)program->pid[1] * program->num_programs[0];
  if ((int64_t)i < n) out[i] = i * i;
}

/* Each of 1 byte (i1), 2 bytes (fp16 bits) and 8 bytes (pointer), packed with natural alignment. */
TKRT_HOST_KERNEL(mixed_sizes, "i1,fp16,*u64,i8") {
  (void)program;
  uint64_t* out = TKRT_HOST_PARAM(uint64_t*, 2);
  out[0] = TKRT_HOST_PARAM(uint8_t, 0);
  out[1] = TKRT_HOST_PARAM(uint16_t, 1);
  out[2] = (uint64_t)(int64_t)TKRT_HOST_PARAM(int8_t, 3);
}

/* Present in both test images with different results: proves each module runs its own code. */
TKRT_HOST_KERNEL(which_image, "*u32") {
  (void)program;
  TKRT_HOST_PARAM(uint32_t*, 0)[0] = 1;
}
