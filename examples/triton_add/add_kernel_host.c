/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt example: Triton's add_kernel (test/data/triton-3.6, test/data/README.md) written for the host
 * backend, with the same signature, so that it can sit beside Triton's cubin / HSACO as one kernel.
 * BLOCK is the constexpr, folded in at build time as Triton folds it (default 1024). */
#include <stdint.h>

#include "tkrt/host_kernel.h"

#ifndef BLOCK
#define BLOCK 1024
#endif

/* One program adds BLOCK elements: offs = pid * BLOCK + arange(0, BLOCK), masked by offs < n. */
TKRT_HOST_KERNEL(add_kernel, "*fp32,*fp32,*fp32,i32") {
  const float* x = TKRT_HOST_PARAM(const float*, 0);
  const float* y = TKRT_HOST_PARAM(const float*, 1);
  float* out = TKRT_HOST_PARAM(float*, 2);
  int32_t n = TKRT_HOST_PARAM(int32_t, 3);
  int64_t start = (int64_t)program->pid[0] * BLOCK;
  for (int64_t i = start; i < start + BLOCK && i < n; ++i) out[i] = x[i] + y[i];
}
