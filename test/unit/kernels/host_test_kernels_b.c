/* SPDX-License-Identifier: Apache-2.0 */
/* A second host image whose kernel has the same name as one in host_test_kernels.c. */
#include <stdint.h>

#include "tkrt/host_kernel.h"

TKRT_HOST_KERNEL(which_image, "*u32") {
  (void)program;
  TKRT_HOST_PARAM(uint32_t*, 0)[0] = 2;
}
