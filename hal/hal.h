/* tkrt HAL: the object header, the device vtable every backend implements, and the backend
 * factory. The public API (hal/hal_api.c) checks arguments once and dispatches through here. */
#ifndef TKRT_HAL_HAL_H_
#define TKRT_HAL_HAL_H_

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/device.h"
#include "tkrt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tkrt_hal_device_vtable tkrt_hal_device_vtable_t;
typedef struct tkrt_hal_backend tkrt_hal_backend_t;
struct tkrt_tma_desc; /* tkrt/call.h */

/* Every HAL object starts with this header at offset 0. */
typedef struct tkrt_hal_resource {
  const void* vtable;
  atomic_int ref_count;
} tkrt_hal_resource_t;

/* The device: backends embed it as their first member and reach their own type through a checked
 * downcast (compare the vtable pointer). `info` is filled by the backend at creation and never
 * changes afterwards, so it may be read without locks. */
struct tkrt_device_s {
  tkrt_hal_resource_t resource;
  const tkrt_hal_backend_t* backend;
  tkrt_device_info_t info;
  /* tkrt_device_options_t.allow_native_code_from_calls; set once by tkrt_device_open. */
  bool allow_native_code_from_calls;
};

#define TKRT_HAL_VTABLE(device) ((const tkrt_hal_device_vtable_t*)(device)->resource.vtable)

typedef enum tkrt_hal_memcpy_kind {
  TKRT_HAL_MEMCPY_HTOD = 0,
  TKRT_HAL_MEMCPY_DTOH = 1,
  TKRT_HAL_MEMCPY_DTOD = 2,
} tkrt_hal_memcpy_kind_t;

/* Backend handles (modules, functions, graphs) are opaque `void*` owned by the backend. Methods
 * are called with validated arguments: non-NULL out pointers, non-zero sizes, checked launch
 * dimensions (see tkrt_hal_validate_launch). Every method must be thread-safe: a device is shared
 * by all threads of a process. Out parameters are written only on success. */
struct tkrt_hal_device_vtable {
  void (*destroy)(tkrt_device_t* device);

  /* Images: image->kind is resolved (never AUTO). A kind the backend cannot load is
   * INVALID_ARGUMENT naming the kind. Must not be called while a stream of the device captures. */
  tkrt_status_t (*module_load)(tkrt_device_t* device, const tkrt_image_t* image,
                               void** out_module);
  void (*module_unload)(tkrt_device_t* device, void* module);
  /* Called once per (module, name) by the API layer, which caches the answer. The function lives
   * until its module is unloaded. Unknown names: NOT_FOUND. */
  tkrt_status_t (*function_get)(tkrt_device_t* device, void* module, const char* name,
                                void** out_function);
  tkrt_status_t (*function_attrs)(tkrt_device_t* device, void* function,
                                  tkrt_function_attrs_t* out_attrs);
  tkrt_status_t (*function_set_max_dynamic_shared)(tkrt_device_t* device, void* function,
                                                   uint32_t bytes);
  /* Launch dims are already checked against the device info; backends check what only they know
   * (the function's own dynamic shared memory limit, driver errors). */
  tkrt_status_t (*launch)(tkrt_device_t* device, void* function,
                          const tkrt_launch_params_t* params, tkrt_stream_t stream);

  tkrt_status_t (*memory_alloc)(tkrt_device_t* device, size_t size, tkrt_deviceptr_t* out_ptr);
  tkrt_status_t (*memory_free)(tkrt_device_t* device, tkrt_deviceptr_t ptr);
  tkrt_status_t (*host_alloc)(tkrt_device_t* device, size_t size, void** out_ptr);
  tkrt_status_t (*host_free)(tkrt_device_t* device, void* ptr);
  tkrt_status_t (*memory_info)(tkrt_device_t* device, size_t* out_free, size_t* out_total);
  tkrt_status_t (*memset_async)(tkrt_device_t* device, tkrt_deviceptr_t dst, uint8_t value,
                                size_t size, tkrt_stream_t stream);
  /* dst/src are device addresses or host pointers (cast to uint64_t) as the kind says. */
  tkrt_status_t (*memcpy_async)(tkrt_device_t* device, uint64_t dst, uint64_t src, size_t size,
                                tkrt_hal_memcpy_kind_t kind, tkrt_stream_t stream);

  tkrt_status_t (*stream_create)(tkrt_device_t* device, tkrt_stream_t* out_stream);
  tkrt_status_t (*stream_destroy)(tkrt_device_t* device, tkrt_stream_t stream);
  tkrt_status_t (*stream_synchronize)(tkrt_device_t* device, tkrt_stream_t stream);
  tkrt_status_t (*stream_is_capturing)(tkrt_device_t* device, tkrt_stream_t stream,
                                       bool* out_capturing);
  tkrt_status_t (*stream_begin_capture)(tkrt_device_t* device, tkrt_stream_t stream);
  tkrt_status_t (*stream_end_capture)(tkrt_device_t* device, tkrt_stream_t stream,
                                      void** out_graph);
  tkrt_status_t (*graph_launch)(tkrt_device_t* device, void* graph, tkrt_stream_t stream);
  tkrt_status_t (*graph_destroy)(tkrt_device_t* device, void* graph);

  tkrt_status_t (*event_create)(tkrt_device_t* device, tkrt_event_t* out_event);
  tkrt_status_t (*event_destroy)(tkrt_device_t* device, tkrt_event_t event);
  tkrt_status_t (*event_record)(tkrt_device_t* device, tkrt_event_t event, tkrt_stream_t stream);
  tkrt_status_t (*event_synchronize)(tkrt_device_t* device, tkrt_event_t event);
  tkrt_status_t (*event_elapsed_ms)(tkrt_device_t* device, tkrt_event_t start, tkrt_event_t end,
                                    float* out_ms);

  /* Optional; NULL where the backend cannot build TMA descriptors (the core then reports
   * UNIMPLEMENTED naming the parameter). Encodes the tiled tensor-map descriptor of `desc` over
   * global memory at `base` into out[TKRT_HAL_TMA_DESC_SIZE] (TKRT_HAL_TMA_DESC_ALIGN-aligned).
   * Called on the launch path with a descriptor the core has validated (rank, element type,
   * swizzle, OOB fill, box, byte strides, base alignment); pure host work, no device call, so it
   * is safe while the stream captures. */
  tkrt_status_t (*encode_tma)(tkrt_device_t* device, const struct tkrt_tma_desc* desc,
                              tkrt_deviceptr_t base, void* out);
};

/* The encoded TMA descriptor (CUtensorMap) is passed by value as one 128-byte kernel parameter
 * (declared `.param .align 64 .b8 [128]` by Triton). The host copy is 128-aligned: CUDA 13's cuda.h
 * declares CUtensorMap _Alignas(128) (CUDA 12's, 64), and cuTensorMapEncodeTiled may assume it. */
#define TKRT_HAL_TMA_DESC_SIZE 128
#define TKRT_HAL_TMA_DESC_ALIGN 128

/* `destroy` first, always: the generic release path relies on it. */
static_assert(offsetof(tkrt_hal_device_vtable_t, destroy) == 0, "destroy must come first");
static_assert(offsetof(struct tkrt_device_s, resource) == 0, "resource header must be first");

/* A backend factory. Backends are registered at build time (hal/registry.c); enumerating them
 * is free. `probe` opens the vendor library (once per process) and counts devices; it answers
 * UNAVAILABLE with a message listing what was tried when the library or a device is missing.
 * `device_create` probes too, then creates the device at `ordinal` with refcount 1. */
struct tkrt_hal_backend {
  const char* name;
  tkrt_status_t (*probe)(int* out_device_count);
  tkrt_status_t (*device_create)(int ordinal, tkrt_device_t** out_device);
};

/* Initialises the common device header; the backend fills device->info afterwards. */
void tkrt_hal_device_initialize(tkrt_device_t* device, const tkrt_hal_backend_t* backend,
                                const tkrt_hal_device_vtable_t* vtable, int ordinal);

/* Checks launch dims against the device's limits (zero or oversized grid, block, cluster shape
 * and divisibility, shared memory over the opt-in limit). Each failure names the dimension. */
tkrt_status_t tkrt_hal_validate_launch(const tkrt_device_info_t* info,
                                       const tkrt_launch_params_t* params);

/* Recognises PTX, cubin, fatbin, HSACO and host ELF images from their bytes. Returns
 * TKRT_IMAGE_AUTO when nothing matches. */
tkrt_image_kind_t tkrt_hal_image_detect(const void* data, size_t size);

/* tkrt_module_load for an image that the application did not hand over itself (one decoded from
 * a serialized call): a host image, which is native code, is refused with PERMISSION_DENIED
 * (saying how to allow it) unless the device was opened with allow_native_code_from_calls. */
tkrt_status_t tkrt_hal_module_load_from_call(tkrt_device_t* device, const tkrt_image_t* image,
                                             tkrt_module_t** out_module);

/* Internal unchecked dispatch for the core's launch fast path (arguments already validated). */
static inline tkrt_status_t tkrt_hal_device_launch(tkrt_device_t* device, void* function,
                                                   const tkrt_launch_params_t* params,
                                                   tkrt_stream_t stream) {
  return TKRT_HAL_VTABLE(device)->launch(device, function, params, stream);
}

#ifdef __cplusplus
}
#endif

#endif /* TKRT_HAL_HAL_H_ */
