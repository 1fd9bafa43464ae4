/* SPDX-License-Identifier: Apache-2.0 */
/* A host kernel with an i64 scalar that the tests use as a tuning key:
 * `key_probe_kernel(out_ptr: *i64, k: i64)` writes k's bits into out[0] (program 0 only), so a
 * test can launch it with any 64-bit value, 2^63 and above included, and see the bits arrive. */
#include <stdint.h>

#include "tkrt/host_kernel.h"

TKRT_HOST_KERNEL(key_probe_kernel, "*i64,i64") {
  int64_t* out = TKRT_HOST_PARAM(int64_t*, 0);
  int64_t k = TKRT_HOST_PARAM(int64_t, 1);
  if (program->pid[0] == 0 && program->pid[1] == 0 && program->pid[2] == 0) out[0] = k;
}
