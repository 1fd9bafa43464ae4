/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt null backend: where a real backend's device lives: its struct (embedding tkrt_device_t
 * first), creation (filling device->info), the methods, and at the end of the file its vtable
 * written out with designated initializers. The skeleton's methods are never reached (its probe
 * refuses), so each answers UNIMPLEMENTED; optional methods (function_set_shared_limit,
 * encode_tma) are left NULL. */
#include <stdlib.h>

#include "hal/hal.h"

#define TKRT_NULL_UNIMPLEMENTED(what) \
  TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED, "the null backend has no %s", what)

static void tkrt_null_destroy(tkrt_device_t* device) { free(device); }

static tkrt_status_t tkrt_null_module_load(tkrt_device_t* device, const tkrt_image_t* image,
                                           void** out_module) {
  (void)device, (void)image, (void)out_module;
  return TKRT_NULL_UNIMPLEMENTED("modules");
}
static void tkrt_null_module_unload(tkrt_device_t* device, void* module) {
  (void)device, (void)module;
}
static tkrt_status_t tkrt_null_function_create(tkrt_device_t* device, void* module,
                                               const char* name,
                                               tkrt_hal_function_info_t* out_info) {
  (void)device, (void)module, (void)name, (void)out_info;
  return TKRT_NULL_UNIMPLEMENTED("functions");
}
static void tkrt_null_function_destroy(tkrt_device_t* device, void* function) {
  (void)device, (void)function;
}
static tkrt_status_t tkrt_null_function_attrs(tkrt_device_t* device, void* function,
                                              tkrt_function_attrs_t* out_attrs) {
  (void)device, (void)function, (void)out_attrs;
  return TKRT_NULL_UNIMPLEMENTED("functions");
}
static tkrt_status_t tkrt_null_launch(tkrt_device_t* device, void* function,
                                      const tkrt_launch_params_t* params, tkrt_stream_t stream) {
  (void)device, (void)function, (void)params, (void)stream;
  return TKRT_NULL_UNIMPLEMENTED("launches");
}
static tkrt_status_t tkrt_null_memory_alloc(tkrt_device_t* device, size_t size,
                                            tkrt_deviceptr_t* out_ptr) {
  (void)device, (void)size, (void)out_ptr;
  return TKRT_NULL_UNIMPLEMENTED("memory");
}
static tkrt_status_t tkrt_null_memory_free(tkrt_device_t* device, tkrt_deviceptr_t ptr) {
  (void)device, (void)ptr;
  return TKRT_NULL_UNIMPLEMENTED("memory");
}
static tkrt_status_t tkrt_null_host_alloc(tkrt_device_t* device, size_t size, void** out_ptr) {
  (void)device, (void)size, (void)out_ptr;
  return TKRT_NULL_UNIMPLEMENTED("pinned host memory");
}
static tkrt_status_t tkrt_null_host_free(tkrt_device_t* device, void* ptr) {
  (void)device, (void)ptr;
  return TKRT_NULL_UNIMPLEMENTED("pinned host memory");
}
static tkrt_status_t tkrt_null_memory_info(tkrt_device_t* device, size_t* out_free,
                                           size_t* out_total) {
  (void)device, (void)out_free, (void)out_total;
  return TKRT_NULL_UNIMPLEMENTED("memory");
}
static tkrt_status_t tkrt_null_memset_async(tkrt_device_t* device, tkrt_deviceptr_t dst,
                                            uint8_t value, size_t size, tkrt_stream_t stream) {
  (void)device, (void)dst, (void)value, (void)size, (void)stream;
  return TKRT_NULL_UNIMPLEMENTED("memory");
}
static tkrt_status_t tkrt_null_memcpy_async(tkrt_device_t* device, uint64_t dst, uint64_t src,
                                            size_t size, tkrt_hal_memcpy_kind_t kind,
                                            tkrt_stream_t stream) {
  (void)device, (void)dst, (void)src, (void)size, (void)kind, (void)stream;
  return TKRT_NULL_UNIMPLEMENTED("memory");
}
static tkrt_status_t tkrt_null_stream_create(tkrt_device_t* device, tkrt_stream_t* out_stream) {
  (void)device, (void)out_stream;
  return TKRT_NULL_UNIMPLEMENTED("streams");
}
static tkrt_status_t tkrt_null_stream_destroy(tkrt_device_t* device, tkrt_stream_t stream) {
  (void)device, (void)stream;
  return TKRT_NULL_UNIMPLEMENTED("streams");
}
static tkrt_status_t tkrt_null_stream_synchronize(tkrt_device_t* device, tkrt_stream_t stream) {
  (void)device, (void)stream;
  return TKRT_NULL_UNIMPLEMENTED("streams");
}
static tkrt_status_t tkrt_null_device_synchronize(tkrt_device_t* device) {
  (void)device;
  return TKRT_NULL_UNIMPLEMENTED("streams");
}
static tkrt_status_t tkrt_null_stream_is_capturing(tkrt_device_t* device, tkrt_stream_t stream,
                                                   bool* out_capturing) {
  (void)device, (void)stream, (void)out_capturing;
  return TKRT_NULL_UNIMPLEMENTED("streams");
}
static tkrt_status_t tkrt_null_stream_begin_capture(tkrt_device_t* device,
                                                    tkrt_stream_t stream) {
  (void)device, (void)stream;
  return TKRT_NULL_UNIMPLEMENTED("graphs");
}
static tkrt_status_t tkrt_null_stream_end_capture(tkrt_device_t* device, tkrt_stream_t stream,
                                                  void** out_graph) {
  (void)device, (void)stream, (void)out_graph;
  return TKRT_NULL_UNIMPLEMENTED("graphs");
}
static tkrt_status_t tkrt_null_graph_launch(tkrt_device_t* device, void* graph,
                                            tkrt_stream_t stream) {
  (void)device, (void)graph, (void)stream;
  return TKRT_NULL_UNIMPLEMENTED("graphs");
}
static tkrt_status_t tkrt_null_graph_destroy(tkrt_device_t* device, void* graph) {
  (void)device, (void)graph;
  return TKRT_NULL_UNIMPLEMENTED("graphs");
}
static tkrt_status_t tkrt_null_event_create(tkrt_device_t* device, tkrt_event_t* out_event) {
  (void)device, (void)out_event;
  return TKRT_NULL_UNIMPLEMENTED("events");
}
static tkrt_status_t tkrt_null_event_destroy(tkrt_device_t* device, tkrt_event_t event) {
  (void)device, (void)event;
  return TKRT_NULL_UNIMPLEMENTED("events");
}
static tkrt_status_t tkrt_null_event_record(tkrt_device_t* device, tkrt_event_t event,
                                            tkrt_stream_t stream) {
  (void)device, (void)event, (void)stream;
  return TKRT_NULL_UNIMPLEMENTED("events");
}
static tkrt_status_t tkrt_null_event_synchronize(tkrt_device_t* device, tkrt_event_t event) {
  (void)device, (void)event;
  return TKRT_NULL_UNIMPLEMENTED("events");
}
static tkrt_status_t tkrt_null_event_elapsed_ms(tkrt_device_t* device, tkrt_event_t start,
                                                tkrt_event_t end, float* out_ms) {
  (void)device, (void)start, (void)end, (void)out_ms;
  return TKRT_NULL_UNIMPLEMENTED("events");
}

/* ---------------------------------------------------------------- vtable */

/* Referenced by a real backend's create function (tkrt_hal_device_initialize) and its checked
 * downcast; the skeleton creates no device, so it keeps the table from being unused. */
extern const tkrt_hal_device_vtable_t tkrt_null_device_vtable;
const tkrt_hal_device_vtable_t tkrt_null_device_vtable = {
    TKRT_HAL_REQUIRED_ENTRIES(tkrt_null)
    .function_set_shared_limit = NULL, /* no shared memory limit to set */
    .encode_tma = NULL, /* no TMA */
};
