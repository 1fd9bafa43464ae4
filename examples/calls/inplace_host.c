/* SPDX-License-Identifier: Apache-2.0 */
/* Host kernels of the autotuned example: x += y in place, one program per BLOCK elements, in
 * three block sizes — the configs an autotuner chooses among. Same kernels as inplace.cu. */
#include <stdint.h>

#include "tkrt/host_kernel.h"

#define INPLACE_ADD(BLOCK)                                                       \
  TKRT_HOST_KERNEL(inplace_add_##BLOCK, "*fp32,*fp32,i32") {                    \
    float* x = TKRT_HOST_PARAM(float*, 0);                                       \
    const float* y = TKRT_HOST_PARAM(const float*, 1);                           \
    int32_t n = TKRT_HOST_PARAM(int32_t, 2);                                     \
    int64_t begin = (int64_t)program->pid[0] * BLOCK;                            \
    for (int64_t i = begin; i < begin + BLOCK && i < n; ++i) x[i] += y[i];       \
  }
INPLACE_ADD(128)
INPLACE_ADD(512)
INPLACE_ADD(2048)
