/* SPDX-License-Identifier: Apache-2.0 */
/* A host kernel built outside tkrt's tree: out[i] = 3 * i. */
#include <stdint.h>

#include <tkrt/host_kernel.h>

TKRT_HOST_KERNEL(triple_index, "*i32,i32") {
  int32_t* out = TKRT_HOST_PARAM(int32_t*, 0);
  int32_t n = TKRT_HOST_PARAM(int32_t, 1);
  int32_t begin = (int32_t)program->pid[0] * 256;
  for (int32_t i = begin; i < begin + 256 && i < n; ++i) out[i] = 3 * i;
}
