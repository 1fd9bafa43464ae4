/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt CUDA backend: launches (cuLaunchKernel, or cuLaunchKernelEx for clusters, cooperative
 * and programmatic dependent launches) and the tensor-map descriptors of jaxlib's TMA parameters,
 * encoded on the host at each launch. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backends/cuda/cuda_internal.h"
#include "tkrt/tma.h"

/* ---------------------------------------------------------------- launches */

tkrt_status_t tkrt_cuda_launch(tkrt_device_t* base, void* function,
                               const tkrt_launch_params_t* params, tkrt_stream_t stream) {
  tkrt_cuda_device_t* device = (tkrt_cuda_device_t*)base; /* hot path: no checked downcast */
  const tkrt_cuda_driver_t* driver = device->driver;
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUstream cu_stream = (CUstream)stream;
  uint32_t cluster_size = params->cluster[0] * params->cluster[1] * params->cluster[2];
  const uint32_t extended_flags = TKRT_LAUNCH_COOPERATIVE | TKRT_LAUNCH_PDL;
  if (cluster_size <= 1 && !(params->flags & extended_flags)) {
    CUresult result = driver->cuLaunchKernel(
        (CUfunction)function, params->grid[0], params->grid[1], params->grid[2], params->block[0],
        params->block[1], params->block[2], params->shared_mem_bytes, cu_stream, params->params,
        NULL);
    if (result != CUDA_SUCCESS) {
      return TKRT_CUDA_STATUS(result, "cuLaunchKernel(grid %ux%ux%u, block %ux%ux%u, %u B shared)",
                              params->grid[0], params->grid[1], params->grid[2], params->block[0],
                              params->block[1], params->block[2], params->shared_mem_bytes);
    }
    return NULL;
  }

  if (!driver->cuLaunchKernelEx) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                            "the CUDA driver (version %d) has no cuLaunchKernelEx, needed for %s "
                            "launches",
                            driver->driver_version,
                            cluster_size > 1                           ? "cluster"
                            : params->flags & TKRT_LAUNCH_COOPERATIVE ? "cooperative"
                                                                       : "programmatic dependent");
  }
  CUlaunchAttribute attributes[4];
  memset(attributes, 0, sizeof(attributes));
  unsigned count = 0;
  if (cluster_size > 1) {
    attributes[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attributes[count].value.clusterDim.x = params->cluster[0];
    attributes[count].value.clusterDim.y = params->cluster[1];
    attributes[count].value.clusterDim.z = params->cluster[2];
    ++count;
    if (params->flags & TKRT_LAUNCH_CLUSTER_SPREAD) {
      attributes[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
      attributes[count].value.clusterSchedulingPolicyPreference =
          CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
      ++count;
    }
  }
  if (params->flags & TKRT_LAUNCH_COOPERATIVE) {
    attributes[count].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attributes[count].value.cooperative = 1;
    ++count;
  }
  if (params->flags & TKRT_LAUNCH_PDL) {
    attributes[count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attributes[count].value.programmaticStreamSerializationAllowed = 1;
    ++count;
  }
  CUlaunchConfig config;
  memset(&config, 0, sizeof(config));
  config.gridDimX = params->grid[0];
  config.gridDimY = params->grid[1];
  config.gridDimZ = params->grid[2];
  config.blockDimX = params->block[0];
  config.blockDimY = params->block[1];
  config.blockDimZ = params->block[2];
  config.sharedMemBytes = params->shared_mem_bytes;
  config.hStream = cu_stream;
  config.attrs = attributes;
  config.numAttrs = count;
  CUresult result = driver->cuLaunchKernelEx(&config, (CUfunction)function, params->params, NULL);
  if (result != CUDA_SUCCESS) {
    return TKRT_CUDA_STATUS(result,
                            "cuLaunchKernelEx(grid %ux%ux%u, block %ux%ux%u, cluster %ux%ux%u, "
                            "%u B shared, flags 0x%x)",
                            params->grid[0], params->grid[1], params->grid[2], params->block[0],
                            params->block[1], params->block[2], params->cluster[0],
                            params->cluster[1], params->cluster[2], params->shared_mem_bytes,
                            params->flags);
  }
  return NULL;
}

/* ---------------------------------------------------------------- TMA descriptors */

/* Host-side TMA descriptors (jaxlib's TMA kernel parameter, wire field 9).
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

/* The descriptor sizes the backend's descriptor announces (cuda_backend.c: 128, 128). */
_Static_assert(sizeof(CUtensorMap) == 128, "CUtensorMap is 128 bytes");
_Static_assert(sizeof(CUtensorMap) <= TKRT_HAL_TMA_DESC_MAX, "the core's stack slots hold it");
_Static_assert(_Alignof(CUtensorMap) <= 128, "the core aligns the slots enough");

static tkrt_status_t tkrt_cuda_encode_tma_now(tkrt_device_t* base,
                                              const tkrt_tma_desc_t* desc,
                                              tkrt_deviceptr_t address, void* out) {
  tkrt_cuda_device_t* device = (tkrt_cuda_device_t*)base;
  const tkrt_cuda_driver_t* driver = device->driver;
  if (!driver->cuTensorMapEncodeTiled) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                            "the CUDA driver (version %d) has no cuTensorMapEncodeTiled",
                            driver->driver_version);
  }
  uint32_t rank = desc->rank;
  /* Bytes per element: the HAL's table (hal/hal_tma.c), 0 for types the core refuses. */
  uint64_t element_bytes = tkrt_hal_tma_element_bytes(desc->elem_type);
  if (rank == 0 || rank > TKRT_TMA_MAX_RANK || element_bytes == 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "TMA descriptor of rank %u, element type %u", rank, desc->elem_type);
  }
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

/* Steady launches of the same tensor reuse the bytes: the device's cache (hal/hal_tma_cache.h)
 * is keyed by every input of the encode, so a hit is exactly what the driver would write. */
tkrt_status_t tkrt_cuda_encode_tma(tkrt_device_t* base, const tkrt_tma_desc_t* desc,
                                   tkrt_deviceptr_t address, void* out) {
  tkrt_cuda_device_t* device = (tkrt_cuda_device_t*)base;
  if (!device->tma_cache) return tkrt_cuda_encode_tma_now(base, desc, address, out);
  return tkrt_hal_tma_cache_encode(device->tma_cache, base, desc, address, out,
                                   tkrt_cuda_encode_tma_now);
}
