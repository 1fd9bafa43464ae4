/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt benchmarks: the host backend's twin of jaxlib's add_f32 vector kernel, with the same
 * parameter list (x, y, n, out) and block of 1024 elements per program. */
#include <stdint.h>

#include "tkrt/host_kernel.h"

TKRT_HOST_KERNEL(add_kernel, "*fp32,*fp32,i32,*fp32") {
  const float* x = TKRT_HOST_PARAM(const float*, 0);
  const float* y = TKRT_HOST_PARAM(const float*, 1);
  int32_t n = TKRT_HOST_PARAM(int32_t, 2);
  float* out = TKRT_HOST_PARAM(float*, 3);
  int64_t begin = (int64_t)program->pid[0] * 1024;
  for (int64_t i = begin; i < begin + 1024 && i < n; ++i) out[i] = x[i] + y[i];
}
