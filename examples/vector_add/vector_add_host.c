/* SPDX-License-Identifier: Apache-2.0 */
/* The example's kernel for the host backend: the same program as vector_add.cu, written as a
 * tkrt host kernel. Each program adds one block of 1024 elements, like Triton's add example. */
#include <stdint.h>

#include "tkrt/host_kernel.h"

TKRT_HOST_KERNEL(vector_add, "*fp32,*fp32,*fp32,i32") {
  const float* x = TKRT_HOST_PARAM(const float*, 0);
  const float* y = TKRT_HOST_PARAM(const float*, 1);
  float* out = TKRT_HOST_PARAM(float*, 2);
  int32_t n = TKRT_HOST_PARAM(int32_t, 3);
  int64_t begin = (int64_t)program->pid[0] * 1024;
  for (int64_t i = begin; i < begin + 1024 && i < n; ++i) out[i] = x[i] + y[i];
}
