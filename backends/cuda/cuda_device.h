/* tkrt CUDA backend: the device object shared by the backend's files, and the vtable methods
 * implemented outside cuda_device.c (modules: cuda_module.c; streams, events: cuda_stream.c). */
#ifndef TKRT_BACKENDS_CUDA_CUDA_DEVICE_H_
#define TKRT_BACKENDS_CUDA_CUDA_DEVICE_H_

#include <stdatomic.h>

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
} tkrt_cuda_device_t;

/* A function as the backend hands it to the API layer. The dynamic shared memory limit is cached
 * so that launches raise it at most once without taking a lock. */
typedef struct tkrt_cuda_function {
  CUfunction function;
  uint32_t static_shared_bytes;
  uint32_t max_dynamic_shared_bytes; /* opt-in limit minus static shared memory */
  atomic_uint dynamic_shared_limit;  /* current CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
  struct tkrt_cuda_function* next;   /* owned by the module */
} tkrt_cuda_function_t;

tkrt_cuda_device_t* tkrt_cuda_device_cast(tkrt_device_t* device);

tkrt_status_t tkrt_cuda_device_create(const tkrt_hal_backend_t* backend,
                                      const tkrt_cuda_driver_t* driver, int ordinal,
                                      tkrt_device_t** out_device);

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

/* cuda_module.c */
tkrt_status_t tkrt_cuda_module_load(tkrt_device_t* device, const tkrt_image_t* image,
                                    void** out_module);
void tkrt_cuda_module_unload(tkrt_device_t* device, void* module);
tkrt_status_t tkrt_cuda_function_get(tkrt_device_t* device, void* module, const char* name,
                                     void** out_function);
tkrt_status_t tkrt_cuda_function_attrs(tkrt_device_t* device, void* function,
                                       tkrt_function_attrs_t* out_attrs);
tkrt_status_t tkrt_cuda_function_set_max_dynamic_shared(tkrt_device_t* device, void* function,
                                                        uint32_t bytes);
/* Raises the function's dynamic shared memory limit when `bytes` is above it (the launch path). */
tkrt_status_t tkrt_cuda_function_ensure_dynamic_shared(tkrt_cuda_device_t* device,
                                                       tkrt_cuda_function_t* function,
                                                       uint32_t bytes);

/* cuda_stream.c */
tkrt_status_t tkrt_cuda_stream_create(tkrt_device_t* device, tkrt_stream_t* out_stream);
tkrt_status_t tkrt_cuda_stream_destroy(tkrt_device_t* device, tkrt_stream_t stream);
tkrt_status_t tkrt_cuda_stream_synchronize(tkrt_device_t* device, tkrt_stream_t stream);
tkrt_status_t tkrt_cuda_stream_is_capturing(tkrt_device_t* device, tkrt_stream_t stream,
                                            bool* out_capturing);
tkrt_status_t tkrt_cuda_stream_begin_capture(tkrt_device_t* device, tkrt_stream_t stream);
tkrt_status_t tkrt_cuda_stream_end_capture(tkrt_device_t* device, tkrt_stream_t stream,
                                           void** out_graph);
tkrt_status_t tkrt_cuda_graph_launch(tkrt_device_t* device, void* graph, tkrt_stream_t stream);
tkrt_status_t tkrt_cuda_graph_destroy(tkrt_device_t* device, void* graph);
tkrt_status_t tkrt_cuda_event_create(tkrt_device_t* device, tkrt_event_t* out_event);
tkrt_status_t tkrt_cuda_event_destroy(tkrt_device_t* device, tkrt_event_t event);
tkrt_status_t tkrt_cuda_event_record(tkrt_device_t* device, tkrt_event_t event,
                                     tkrt_stream_t stream);
tkrt_status_t tkrt_cuda_event_synchronize(tkrt_device_t* device, tkrt_event_t event);
tkrt_status_t tkrt_cuda_event_elapsed_ms(tkrt_device_t* device, tkrt_event_t start,
                                         tkrt_event_t end, float* out_ms);

/* cuda_tma.c: the HAL's encode_tma (a host-side CUtensorMap of a jaxlib TMA parameter). */
tkrt_status_t tkrt_cuda_encode_tma(tkrt_device_t* device, const struct tkrt_tma_desc* desc,
                                   tkrt_deviceptr_t base, void* out);

#endif /* TKRT_BACKENDS_CUDA_CUDA_DEVICE_H_ */
