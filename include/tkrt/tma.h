/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: the TMA descriptor parameter, on its own so that the device layer (the HAL and the
 * backends that encode descriptors) reaches it without the kernel-call headers above it. Included
 * by tkrt/call.h, where parameters are described. */
#ifndef TKRT_TMA_H_
#define TKRT_TMA_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TKRT_TMA_MAX_RANK 5

/* jaxlib's host-side TMA descriptor parameter (jaxlib 0.11.2 semantics). It consumes the next
 * buffer, whose address is the tensor's base (16-byte aligned), and is passed to the kernel as a
 * 128-byte CUtensorMap encoded at each launch. elem_type / swizzle: CUtensorMapDataType (0..12) /
 * CUtensorMapSwizzle (0..3) values; oob_fill: 0 zeros, 1 NaN; shape, strides (in elements, the
 * innermost 1) and block_shape (the TMA box, 1..256 each) outermost first. The bytes the tensor
 * spans from its base must lie in the buffer when the buffer's size is known (INVALID_ARGUMENT
 * otherwise, nothing enqueued). Runs on backends whose devices have TKRT_DEVICE_FEATURE_TMA
 * (CUDA, sm_90+); elsewhere launches are UNIMPLEMENTED. */
typedef struct tkrt_tma_desc {
  uint32_t elem_type;
  uint32_t swizzle;
  uint32_t oob_fill;
  uint32_t rank; /* number of entries used in the arrays below */
  uint64_t shape[TKRT_TMA_MAX_RANK];
  uint64_t strides[TKRT_TMA_MAX_RANK];
  uint32_t block_shape[TKRT_TMA_MAX_RANK];
} tkrt_tma_desc_t;

#ifdef __cplusplus
}
#endif

#endif /* TKRT_TMA_H_ */
