/* tkrt CUDA backend: the device object shared by the backend's files, and the vtable methods
 * implemented outside cuda_device.c (modules: cuda_module.c; streams, events: cuda_stream.c). */
#ifndef TKRT_BACKENDS_CUDA_CUDA_DEVICE_H_
#define TKRT_BACKENDS_CUDA_CUDA_DEVICE_H_

#include <stdatomic.h>
#include <stdint.h>

#include "backends/cuda/cuda_status.h"
#include "backends/cuda/cuda_symbols.h"
#include "hal/hal.h"

typedef struct tkrt_cuda_device {
  tkrt_device_t base; /* first: the HAL reaches us through a checked downcast */
  const tkrt_cuda_driver_t* driver;
  CUdevice device;
  CUcontext context;   /* the primary context, retained for the device's lifetime */
  /* What PTX is compiled for: "sm_90a" on cc >= 9.0 (arch-specific, like jaxlib), else sm_XY. */
  char ptx_target[16];
  char* cache_dir;     /* the cubin cache folder; NULL: no cache */
  bool trust_shared_cache;
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
TKRT_HAL_DECLARE_DEVICE_METHODS(tkrt_cuda)

#endif /* TKRT_BACKENDS_CUDA_CUDA_DEVICE_H_ */
