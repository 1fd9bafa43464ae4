/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt HAL: the TMA descriptor parameter as encode_tma receives it: its rules and the bytes per
 * element type, kept once for the core (which validates before launching) and the backends. */
#include "hal/hal.h"
#include "tkrt/tma.h"

/* jaxlib's TMA parameter (wire field 9), as jax-triton emits it for a Triton host-side
 * TensorDescriptor: elem_type and swizzle are CUtensorMapDataType / CUtensorMapSwizzle values,
 * oob_fill is 0 (zeros) or 1 (NaN, Triton's padding="nan"), shape / block_shape are in C order
 * (outermost first) and strides are in elements with the innermost one 1. The values are the
 * wire's, so the rules hold on every device; a device without TMA refuses the parameter after
 * these checks. */

/* Bytes per element of the types tkrt builds descriptors for (CUtensorMapDataType 0..12: u8, u16,
 * u32, i32, u64, i64, f16, f32, f64, bf16, f32 ftz, tf32, tf32 ftz). 13..15 are packed sub-byte
 * types whose sizes the parameter does not carry. */
static const uint8_t kTmaElementBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4}; /* powers of 2 */
#define TKRT_TMA_ELEMENT_TYPES (sizeof(kTmaElementBytes) / sizeof(kTmaElementBytes[0]))

#define TKRT_TMA_INVALID(...)                                                     \
  TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "parameter %zu (TMA descriptor): " __VA_ARGS__)

tkrt_status_t tkrt_hal_tma_validate(const tkrt_tma_desc_t* t, size_t index) {
  if (t->rank == 0 || t->rank > TKRT_TMA_MAX_RANK) {
    return TKRT_TMA_INVALID("rank %u is not in 1..%d", index, t->rank, TKRT_TMA_MAX_RANK);
  }
  if (t->elem_type >= TKRT_TMA_ELEMENT_TYPES) {
    return TKRT_TMA_INVALID("element type %u is not supported (0..%zu: u8 .. tf32_ftz)",
                            index, t->elem_type, TKRT_TMA_ELEMENT_TYPES - 1);
  }
  if (t->swizzle > 3) {
    return TKRT_TMA_INVALID("swizzle %u is not one of 0 (none), 1 (32B), 2 (64B), 3 (128B)",
                            index, t->swizzle);
  }
  if (t->oob_fill > 1) {
    return TKRT_TMA_INVALID("oob_fill %u is not 0 (zeros) or 1 (NaN)", index, t->oob_fill);
  }
  if (t->oob_fill == 1 && t->elem_type < 6) {
    return TKRT_TMA_INVALID("oob_fill 1 (NaN) needs a floating-point element type, not %u",
                            index, t->elem_type);
  }
  uint64_t element_bytes = kTmaElementBytes[t->elem_type];
  uint32_t last = t->rank - 1;
  for (uint32_t d = 0; d < t->rank; ++d) {
    if (t->shape[d] == 0 || t->shape[d] > (UINT64_C(1) << 32)) {
      return TKRT_TMA_INVALID("shape[%u] is %llu; it must be in 1..2^32", index, d,
                              (unsigned long long)t->shape[d]);
    }
    if (t->block_shape[d] == 0 || t->block_shape[d] > 256) {
      return TKRT_TMA_INVALID("block_shape[%u] is %u; it must be in 1..256", index, d,
                              t->block_shape[d]);
    }
    if (d == last) {
      if (t->strides[d] != 1) {
        return TKRT_TMA_INVALID("the innermost stride (strides[%u]) is %llu; it must be 1",
                                index, d, (unsigned long long)t->strides[d]);
      }
    } else if (t->strides[d] == 0 ||
               /* 2^40 / element_bytes, exactly (every size is a power of two), no division */
               t->strides[d] >= (UINT64_C(1) << (40 - __builtin_ctz((unsigned)element_bytes))) ||
               t->strides[d] * element_bytes % 16 != 0) {
      return TKRT_TMA_INVALID(
                              "strides[%u] is %llu elements (%llu bytes); byte strides must be "
                              "non-zero multiples of 16 below 2^40",
                              index, d, (unsigned long long)t->strides[d],
                              (unsigned long long)(t->strides[d] * element_bytes));
    }
  }
  uint64_t inner_bytes = (uint64_t)t->block_shape[last] * element_bytes;
  if (inner_bytes % 16 != 0) {
    return TKRT_TMA_INVALID("the innermost block dimension is %llu bytes, not a multiple of 16",
                            index, (unsigned long long)inner_bytes);
  }
  if (t->swizzle && inner_bytes > (16u << t->swizzle)) {
    return TKRT_TMA_INVALID(
                            "the innermost block dimension is %llu bytes, more than the %u-byte "
                            "span of swizzle %u",
                            index, (unsigned long long)inner_bytes, 16u << t->swizzle, t->swizzle);
  }
  return NULL;
}

uint32_t tkrt_hal_tma_element_bytes(uint32_t elem_type) {
  return elem_type < TKRT_TMA_ELEMENT_TYPES ? kTmaElementBytes[elem_type] : 0;
}
