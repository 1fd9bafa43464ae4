/* SPDX-License-Identifier: Apache-2.0 */
/* A host kernel that takes a 2-D tensor descriptor in the decomposed form Triton's launcher
 * passes where descriptors were not lowered to TMA (tensordesc_meta empty): the base pointer,
 * the shape as 2 i64, the strides as 2 i64, the i1 padding flag (padding == "nan"), then the
 * TTIR's hidden shape as 2 i32 and strides as 2 i64. The kernel is `tile_copy_kernel(in_desc:
 * tensordesc<fp32[4, 8]>, out_ptr: *fp32, probe_ptr: *i64)`: program (x, y) loads the 4 x 8
 * block at rows 4x, columns 8y of the descriptor's tensor (out-of-bounds elements 0, or NaN when
 * the flag is set, as tl's descriptor_load) into the dense (4 * gridX) x (8 * gridY) `out`;
 * program (0, 0) also writes what it was passed into probe[0..9] (base address, shape, strides,
 * flag, hidden shape, hidden strides) for the tests to compare. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "tkrt/host_kernel.h"

TKRT_HOST_KERNEL(tile_copy_kernel, "*fp32,i64,i64,i64,i64,i1,i32,i32,i64,i64,*fp32,*i64") {
  const float* base = TKRT_HOST_PARAM(const float*, 0);
  int64_t shape[2] = {TKRT_HOST_PARAM(int64_t, 1), TKRT_HOST_PARAM(int64_t, 2)};
  int64_t strides[2] = {TKRT_HOST_PARAM(int64_t, 3), TKRT_HOST_PARAM(int64_t, 4)};
  bool nan_pad = TKRT_HOST_PARAM(bool, 5);
  int32_t hidden_shape[2] = {TKRT_HOST_PARAM(int32_t, 6), TKRT_HOST_PARAM(int32_t, 7)};
  int64_t hidden_strides[2] = {TKRT_HOST_PARAM(int64_t, 8), TKRT_HOST_PARAM(int64_t, 9)};
  float* out = TKRT_HOST_PARAM(float*, 10);
  int64_t* probe = TKRT_HOST_PARAM(int64_t*, 11);
  uint32_t px = program->pid[0], py = program->pid[1];
  int64_t width = 8 * (int64_t)program->num_programs[1];
  for (int64_t r = 0; r < 4; ++r) {
    for (int64_t c = 0; c < 8; ++c) {
      int64_t row = 4 * (int64_t)px + r, col = 8 * (int64_t)py + c;
      float v = nan_pad ? NAN : 0.0f;
      if (row < shape[0] && col < shape[1]) v = base[row * strides[0] + col * strides[1]];
      out[row * width + col] = v;
    }
  }
  if (px == 0 && py == 0) {
    probe[0] = (int64_t)(intptr_t)base;
    probe[1] = shape[0], probe[2] = shape[1];
    probe[3] = strides[0], probe[4] = strides[1];
    probe[5] = nan_pad;
    probe[6] = hidden_shape[0], probe[7] = hidden_shape[1];
    probe[8] = hidden_strides[0], probe[9] = hidden_strides[1];
  }
}

/* `fill_kernel(out_ptr: *fp32, value: fp32)`: out[0] = value (a float scalar for the Python
 * readers' tests). */
TKRT_HOST_KERNEL(fill_kernel, "*fp32,fp32") {
  float* out = TKRT_HOST_PARAM(float*, 0);
  if (program->pid[0] == 0) out[0] = TKRT_HOST_PARAM(float, 1);
}
