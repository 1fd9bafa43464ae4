/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt CUDA backend: what its files share: the device object, status mapping (cuda_status.c), the
 * log, and the device methods (cuda_device.c, cuda_module.c, cuda_launch.c, cuda_stream.c). The
 * driver's entry points are in cuda_symbols.h, the cubin cache in cuda_cache.h. */
#ifndef TKRT_BACKENDS_CUDA_CUDA_INTERNAL_H_
#define TKRT_BACKENDS_CUDA_CUDA_INTERNAL_H_

#include <stdatomic.h>
#include <stdint.h>

#include "backends/cuda/cuda_symbols.h"
#include "hal/hal.h"
#include "hal/hal_tma_cache.h"

/* ---------------------------------------------------------------- errors (cuda_status.c) */

/* The status code for a CUresult (a switch on the numeric value). CUDA_SUCCESS maps to OK. */
tkrt_status_code_t tkrt_cuda_status_code(CUresult result);

/* "CUDA_ERROR_INVALID_PTX", from the backend's own table, so it works without a driver and for
 * codes the loaded driver does not name. NULL for values the table does not know. */
const char* tkrt_cuda_error_name(CUresult result);

/* Makes "<operation> failed: CUDA_ERROR_X (driver description)" with the mapped code. The name
 * and description come from cuGetErrorName/cuGetErrorString when the driver resolved them, else
 * from tkrt_cuda_error_name. `result` must not be CUDA_SUCCESS (that yields an INTERNAL status). */
tkrt_status_t tkrt_cuda_status_make(CUresult result, const char* file, int line,
                                    const char* operation_format, ...) TKRT_PRINTF_LIKE(4, 5);

#define TKRT_CUDA_STATUS(result, ...) \
  tkrt_cuda_status_make((result), __FILE__, __LINE__, __VA_ARGS__)

/* ---------------------------------------------------------------- the device (cuda_device.c) */

typedef struct tkrt_cuda_device {
  tkrt_device_t base; /* first: the HAL reaches us through a checked downcast */
  const tkrt_cuda_driver_t* driver;
  CUdevice device;
  CUcontext context;   /* the primary context, retained for the device's lifetime */
  /* What PTX is compiled for: "sm_90a" on cc >= 9.0 (arch-specific, like jaxlib), else sm_XY. */
  char ptx_target[16];
  char* cache_dir;     /* the cubin cache folder; NULL: no cache */
  bool trust_shared_cache;
  /* Recently encoded TMA descriptors (devices with TKRT_DEVICE_FEATURE_TMA; else NULL). */
  tkrt_hal_tma_cache_t* tma_cache;
} tkrt_cuda_device_t;

tkrt_cuda_device_t* tkrt_cuda_device_cast(tkrt_device_t* device);

tkrt_status_t tkrt_cuda_device_create(const tkrt_hal_backend_t* backend,
                                      const tkrt_cuda_driver_t* driver,
                                      const tkrt_device_options_t* options,
                                      tkrt_device_t** out_device);

/* The arch name PTX for a compute capability is compiled for ("sm_90a"), one rule for the
 * backend's descriptor and its devices (cuda_backend.c). */
void tkrt_cuda_arch_for_capability(uint32_t compute_capability, char* out, size_t capacity);

/* Makes the device's primary context current on the calling thread unless it already is: one
 * cuCtxGetCurrent on the hot path, no switch when the caller (XLA) already uses it. */
static inline tkrt_status_t tkrt_cuda_device_activate(const tkrt_cuda_device_t* device) {
  CUcontext current = NULL;
  CUresult result = device->driver->cuCtxGetCurrent(&current);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuCtxGetCurrent");
  if (current == device->context) return NULL;
  result = device->driver->cuCtxSetCurrent(device->context);
  if (result != CUDA_SUCCESS) {
    return TKRT_CUDA_STATUS(result, "cuCtxSetCurrent(primary context of device %d)",
                            device->base.info.ordinal);
  }
  return NULL;
}

/* Counters of PTX loads, process-wide, for tests and logs (relaxed atomics; approximate under
 * concurrency only in their ordering). */
typedef struct tkrt_cuda_module_stats {
  uint64_t jit_compiles;
  uint64_t cache_hits;
  uint64_t cache_misses;
  uint64_t cache_corrupt;
  uint64_t cache_write_failures;
} tkrt_cuda_module_stats_t;

void tkrt_cuda_module_stats(tkrt_cuda_module_stats_t* out_stats);

/* The device methods (cuda_device.c, cuda_module.c, cuda_stream.c, cuda_tma.c). */
TKRT_HAL_DECLARE_METHODS(tkrt_cuda)
TKRT_HAL_DECLARE_METHOD(tkrt_cuda, function_set_shared_limit)
TKRT_HAL_DECLARE_METHOD(tkrt_cuda, encode_tma)

#endif /* TKRT_BACKENDS_CUDA_CUDA_INTERNAL_H_ */
