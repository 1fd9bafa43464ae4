/* tkrt CUDA backend: host-side TMA descriptors (jaxlib's TMA kernel parameter, wire field 9).
 *
 * The descriptor fields travel in jaxlib's/Triton's conventions and are handed to
 * cuTensorMapEncodeTiled the way Triton's own launcher (and jaxlib's runtime) does:
 *   elem_type, swizzle: CUtensorMapDataType / CUtensorMapSwizzle values, passed through;
 *   oob_fill: 0 -> CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE (zeros), 1 -> ..._NAN_REQUEST_ZERO_FMA
 *             (Triton's padding="nan");
 *   shape, block_shape: outermost first (C order); CUDA wants innermost first, so reversed;
 *   strides: in elements, outermost first, innermost 1; CUDA wants the byte strides of dims
 *            1..rank-1 counted from the innermost, so strides[rank-2..0] x element size;
 *   element strides all 1, no interleave, L2 promotion 128B.
 * The base address is the parameter's buffer (the TMA parameter consumes the next buffer, as an
 * array parameter does). The core validated everything it can before calling (see
 * core/call_launch.c); the driver still answers for what only it knows. */
#include <string.h>

#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_status.h"
#include "tkrt/call.h"

/* The descriptor sizes the backend's descriptor announces (cuda_backend.c: 128, 128). */
_Static_assert(sizeof(CUtensorMap) == 128, "CUtensorMap is 128 bytes");
_Static_assert(sizeof(CUtensorMap) <= TKRT_HAL_TMA_DESC_MAX, "the core's stack slots hold it");
_Static_assert(_Alignof(CUtensorMap) <= 128, "the core aligns the slots enough");

/* Bytes per element of CUtensorMapDataType 0..12 (the core refuses the packed sub-byte types). */
static const uint32_t kTmaElementBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};

tkrt_status_t tkrt_cuda_encode_tma(tkrt_device_t* base, const struct tkrt_tma_desc* desc,
                                   tkrt_deviceptr_t address, void* out) {
  tkrt_cuda_device_t* device = (tkrt_cuda_device_t*)base;
  const tkrt_cuda_driver_t* driver = device->driver;
  if (!driver->cuTensorMapEncodeTiled) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                            "the CUDA driver (version %d) has no cuTensorMapEncodeTiled",
                            driver->driver_version);
  }
  uint32_t rank = desc->rank;
  if (rank == 0 || rank > TKRT_TMA_MAX_RANK ||
      desc->elem_type >= sizeof(kTmaElementBytes) / sizeof(kTmaElementBytes[0])) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "TMA descriptor of rank %u, element type %u", rank, desc->elem_type);
  }
  uint64_t element_bytes = kTmaElementBytes[desc->elem_type];
  cuuint64_t dims[TKRT_TMA_MAX_RANK], strides[TKRT_TMA_MAX_RANK];
  cuuint32_t box[TKRT_TMA_MAX_RANK], element_strides[TKRT_TMA_MAX_RANK];
  for (uint32_t i = 0; i < rank; ++i) {
    dims[rank - 1 - i] = desc->shape[i];
    box[rank - 1 - i] = desc->block_shape[i];
    element_strides[i] = 1;
  }
  for (uint32_t i = 0; i + 1 < rank; ++i) strides[rank - 2 - i] = desc->strides[i] * element_bytes;
  CUresult result = driver->cuTensorMapEncodeTiled(
      (CUtensorMap*)out, (CUtensorMapDataType)desc->elem_type, rank, (void*)(uintptr_t)address,
      dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      (CUtensorMapSwizzle)desc->swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
      desc->oob_fill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                     : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    return TKRT_CUDA_STATUS(result, "cuTensorMapEncodeTiled(type %u, rank %u, base 0x%llx, swizzle %u)",
                            desc->elem_type, rank, (unsigned long long)address, desc->swizzle);
  }
  return NULL;
}
