/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt public device API: argument checks, then one dispatch through the device vtable. Opening
 * a device (which chooses among the backends) is the registry's (registry/registry_api.c);
 * nothing here knows about a particular backend. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/image_detect.h"
#include "base/log.h"
#include "hal/hal.h"
#include "base/versioned.h"

#define TKRT_CHECK_ARG(cond, ...) \
  do {                            \
    if (!(cond)) return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, __VA_ARGS__); \
  } while (0)

static void tkrt_copy_text(char* dst, size_t capacity, const char* src) {
  snprintf(dst, capacity, "%s", src ? src : "");
}

/* ---------------------------------------------------------------- devices */

void tkrt_hal_device_initialize(tkrt_device_t* device, const tkrt_hal_backend_t* backend,
                                const tkrt_hal_device_vtable_t* vtable, int ordinal) {
  device->resource.vtable = vtable;
  atomic_init(&device->resource.ref_count, 1);
  device->backend = backend;
  memset(&device->info, 0, sizeof(device->info));
  device->info.struct_size = sizeof(device->info);
  device->info.ordinal = ordinal;
  tkrt_copy_text(device->info.backend, sizeof(device->info.backend), backend->name);
}

void tkrt_device_retain(tkrt_device_t* device) {
  if (device) atomic_fetch_add_explicit(&device->resource.ref_count, 1, memory_order_relaxed);
}

void tkrt_device_release(tkrt_device_t* device) {
  if (!device) return;
  if (atomic_fetch_sub_explicit(&device->resource.ref_count, 1, memory_order_acq_rel) == 1) {
    TKRT_HAL_VTABLE(device)->destroy(device);
  }
}

const tkrt_device_info_t* tkrt_device_info(const tkrt_device_t* device) {
  return device ? &device->info : NULL;
}

const char* tkrt_device_backend_name(const tkrt_device_t* device) {
  return device ? device->backend->name : "";
}

/* ---------------------------------------------------------------- images and modules */

static tkrt_status_t tkrt_module_load_checked(tkrt_device_t* device, const tkrt_image_t* image,
                                              bool from_call, tkrt_module_t** out_module) {
  TKRT_CHECK_ARG(device, "tkrt_module_load: device is NULL");
  TKRT_CHECK_ARG(image, "tkrt_module_load: image is NULL");
  TKRT_CHECK_ARG(out_module, "tkrt_module_load: out_module is NULL");
  tkrt_image_t resolved;
  TKRT_RETURN_IF_ERROR(
      tkrt_versioned_read_or_current(&resolved, sizeof(resolved), image, "tkrt_module_load"));
  image = &resolved;
  TKRT_CHECK_ARG(image->data && image->size, "tkrt_module_load: the image is empty");
  if (resolved.kind == TKRT_IMAGE_AUTO) {
    resolved.kind = tkrt_image_detect(image->data, image->size);
    if (resolved.kind == TKRT_IMAGE_AUTO) {
      const unsigned char* b = image->data;
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "unrecognised module image of %zu bytes (starts %02x %02x %02x %02x); "
                              "expected PTX, cubin, fatbin, HSACO or a host ELF",
                              image->size, b[0], image->size > 1 ? b[1] : 0,
                              image->size > 2 ? b[2] : 0, image->size > 3 ? b[3] : 0);
    }
  }
  /* Checked on the resolved kind, before the backend sees the bytes: whatever the blob claims,
   * only a host image can reach the host backend's loader, and none from a call without consent. */
  if (from_call && resolved.kind == TKRT_IMAGE_HOST && !device->allow_native_code_from_calls) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_PERMISSION_DENIED,
                            "the call carries a host image (%zu bytes of native code that would "
                            "run in this process when loaded); not loaded. To run it, open the "
                            "device with tkrt_device_options.allow_native_code_from_calls = true "
                            "(tkrt run / tune: --allow-native-code)",
                            image->size);
  }
  tkrt_module_t* module = calloc(1, sizeof(*module));
  if (!module) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  tkrt_status_t status = TKRT_HAL_VTABLE(device)->module_load(device, &resolved, &module->handle);
  if (status) {
    free(module);
    return tkrt_status_annotate(status, "loading a %s image (%zu bytes) on %s",
                                tkrt_image_kind_name(resolved.kind), image->size,
                                device->backend->name);
  }
  pthread_mutex_init(&module->lock, NULL);
  atomic_init(&module->refs, 1);
  module->kind = resolved.kind;
  module->device = device;
  tkrt_device_retain(device);
  *out_module = module;
  return NULL;
}

tkrt_status_t tkrt_module_load(tkrt_device_t* device, const tkrt_image_t* image,
                               tkrt_module_t** out_module) {
  return tkrt_module_load_checked(device, image, false, out_module);
}

tkrt_status_t tkrt_hal_module_load_from_call(tkrt_device_t* device, const tkrt_image_t* image,
                                             tkrt_module_t** out_module) {
  return tkrt_module_load_checked(device, image, true, out_module);
}

void tkrt_hal_module_retain(tkrt_module_t* module) { atomic_fetch_add(&module->refs, 1); }

void tkrt_module_unload(tkrt_module_t* module) {
  if (!module || atomic_fetch_sub(&module->refs, 1) != 1) return;
  tkrt_device_t* device = module->device;
  for (struct tkrt_function_s* f = module->functions; f;) {
    struct tkrt_function_s* next = f->next;
    TKRT_HAL_VTABLE(device)->function_destroy(device, f->handle);
    free(f);
    f = next;
  }
  TKRT_HAL_VTABLE(device)->module_unload(device, module->handle);
  pthread_mutex_destroy(&module->lock);
  free(module);
  tkrt_device_release(device);
}

tkrt_status_t tkrt_module_get_function(tkrt_module_t* module, const char* name,
                                       tkrt_function_t** out_function) {
  TKRT_CHECK_ARG(module, "tkrt_module_get_function: module is NULL");
  TKRT_CHECK_ARG(name && *name, "tkrt_module_get_function: the kernel name is empty");
  TKRT_CHECK_ARG(out_function, "tkrt_module_get_function: out_function is NULL");
  tkrt_status_t status = NULL;
  pthread_mutex_lock(&module->lock);
  struct tkrt_function_s* found = module->functions;
  while (found && strcmp(found->name, name) != 0) found = found->next;
  if (!found) {
    size_t length = strlen(name);
    found = calloc(1, sizeof(*found) + length + 1);
    tkrt_device_t* device = module->device;
    tkrt_hal_function_info_t info = {0};
    if (!found) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
    } else {
      status = TKRT_HAL_VTABLE(device)->function_create(device, module->handle, name, &info);
    }
    if (status) {
      free(found);
      found = NULL;
    } else {
      memcpy(found->name, name, length + 1);
      found->module = module;
      found->handle = info.handle;
      found->static_shared_bytes = info.static_shared_bytes;
      uint32_t optin = device->info.max_shared_per_block_optin;
      found->max_dynamic_shared_bytes =
          optin > info.static_shared_bytes ? optin - info.static_shared_bytes : 0;
      atomic_init(&found->dynamic_shared_limit, info.dynamic_shared_limit);
      found->next = module->functions;
      module->functions = found;
    }
  }
  pthread_mutex_unlock(&module->lock);
  if (status) return status;
  *out_function = found;
  return NULL;
}

tkrt_status_t tkrt_function_get_attrs(tkrt_function_t* function,
                                      tkrt_function_attrs_t* out_attrs) {
  TKRT_CHECK_ARG(function && out_attrs, "tkrt_function_get_attrs: NULL argument");
  tkrt_device_t* device = function->module->device;
  tkrt_function_attrs_t attrs = {0};
  TKRT_RETURN_IF_ERROR(TKRT_HAL_VTABLE(device)->function_attrs(device, function->handle, &attrs));
  attrs.static_shared_bytes = function->static_shared_bytes;
  attrs.max_dynamic_shared_bytes =
      atomic_load_explicit(&function->dynamic_shared_limit, memory_order_relaxed);
  *out_attrs = attrs;
  return NULL;
}

/* Sets the limit after checking it against the function's most: the one copy of the rule and of
 * its error message, for every backend. */
static tkrt_status_t tkrt_function_set_shared(tkrt_function_t* function, uint32_t bytes,
                                              const char* why) {
  tkrt_device_t* device = function->module->device;
  if (bytes > function->max_dynamic_shared_bytes) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE,
                            "kernel '%s': %u bytes of dynamic shared memory %s; the function may "
                            "have at most %u (%s device %d's opt-in limit of %u bytes minus %u "
                            "bytes of static shared memory)",
                            function->name, bytes, why, function->max_dynamic_shared_bytes,
                            device->backend->name, device->info.ordinal,
                            device->info.max_shared_per_block_optin,
                            function->static_shared_bytes);
  }
  /* Optional: a backend without the limit (NULL) leaves it to this bookkeeping. */
  if (TKRT_HAL_VTABLE(device)->function_set_shared_limit) {
    TKRT_RETURN_IF_ERROR(tkrt_status_annotate(
        TKRT_HAL_VTABLE(device)->function_set_shared_limit(device, function->handle, bytes),
        "kernel '%s'", function->name));
  }
  atomic_store_explicit(&function->dynamic_shared_limit, bytes, memory_order_relaxed);
  return NULL;
}

tkrt_status_t tkrt_function_set_max_dynamic_shared(tkrt_function_t* function, uint32_t bytes) {
  TKRT_CHECK_ARG(function, "tkrt_function_set_max_dynamic_shared: function is NULL");
  return tkrt_function_set_shared(function, bytes, "asked for");
}

tkrt_status_t tkrt_hal_function_raise_shared(tkrt_function_t* function, uint32_t bytes) {
  if (bytes > function->max_dynamic_shared_bytes) {
    return tkrt_function_set_shared(function, bytes, "at launch"); /* the OUT_OF_RANGE message */
  }
  /* Straight to the most the function may use, as Triton's and jaxlib's launchers do: the limit
   * reserves nothing (each launch's own size does), and later launches of any size then skip
   * this. Racing launches set the same value twice, which is harmless. */
  return tkrt_function_set_shared(function, function->max_dynamic_shared_bytes, "at launch");
}

const char* tkrt_function_name(const tkrt_function_t* function) {
  return function ? function->name : "";
}

tkrt_device_t* tkrt_function_device(const tkrt_function_t* function) {
  return function ? function->module->device : NULL;
}

/* ---------------------------------------------------------------- launches */

tkrt_status_t tkrt_hal_validate_launch(const tkrt_device_info_t* info,
                                       const tkrt_launch_params_t* p) {
  static const char axis[3] = {'x', 'y', 'z'};
  for (int i = 0; i < 3; ++i) {
    if (p->grid[i] == 0) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "grid dimension %c is 0 (grid %ux%ux%u): nothing to launch", axis[i],
                              p->grid[0], p->grid[1], p->grid[2]);
    }
    if (p->grid[i] > info->max_grid_dim[i]) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "grid dimension %c is %u, over the %s device limit of %u "
                              "(grid %ux%ux%u)",
                              axis[i], p->grid[i], info->backend, info->max_grid_dim[i],
                              p->grid[0], p->grid[1], p->grid[2]);
    }
    if (p->block[i] == 0 || p->block[i] > info->max_block_dim[i]) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "block dimension %c is %u; the device allows 1 to %u", axis[i],
                              p->block[i], info->max_block_dim[i]);
    }
  }
  uint64_t threads = (uint64_t)p->block[0] * p->block[1] * p->block[2];
  if (threads > info->max_threads_per_block) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "block of %ux%ux%u = %llu threads, over the device limit of %u",
                            p->block[0], p->block[1], p->block[2], (unsigned long long)threads,
                            info->max_threads_per_block);
  }
  int has_cluster = p->cluster[0] || p->cluster[1] || p->cluster[2];
  if (has_cluster) {
    uint64_t cluster_size = (uint64_t)p->cluster[0] * p->cluster[1] * p->cluster[2];
    if (cluster_size == 0) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "cluster dims %ux%ux%u have a zero dimension (use 0x0x0 or 1x1x1 "
                              "for no cluster)",
                              p->cluster[0], p->cluster[1], p->cluster[2]);
    }
    if (cluster_size > 1 && info->max_cluster_size == 0) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                              "the %s backend (%s) has no thread-block cluster launches; cluster "
                              "%ux%ux%u asked for",
                              info->backend, info->arch, p->cluster[0], p->cluster[1],
                              p->cluster[2]);
    }
    if (cluster_size > info->max_cluster_size && cluster_size > 1) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "cluster %ux%ux%u has %llu blocks, over the device limit of %u",
                              p->cluster[0], p->cluster[1], p->cluster[2],
                              (unsigned long long)cluster_size, info->max_cluster_size);
    }
    for (int i = 0; i < 3; ++i) {
      if (p->grid[i] % p->cluster[i] != 0) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "grid dimension %c (%u) is not a multiple of the cluster "
                                "dimension (%u)",
                                axis[i], p->grid[i], p->cluster[i]);
      }
    }
  }
  if (p->shared_mem_bytes > info->max_shared_per_block_optin) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "dynamic shared memory of %u bytes is over the device limit of %u "
                            "bytes",
                            p->shared_mem_bytes, info->max_shared_per_block_optin);
  }
  if (p->param_count && !p->params) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%u parameters but no parameter array",
                            p->param_count);
  }
  return NULL;
}

tkrt_status_t tkrt_launch(tkrt_function_t* function, const tkrt_launch_params_t* params,
                          tkrt_stream_t stream) {
  TKRT_CHECK_ARG(function && params, "tkrt_launch: NULL function or params");
  tkrt_launch_params_t local;
  if (params->struct_size && params->struct_size != sizeof(local)) {
    TKRT_RETURN_IF_ERROR(
        tkrt_versioned_read_or_current(&local, sizeof(local), params, "tkrt_launch"));
    params = &local;
  }
  tkrt_device_t* device = function->module->device;
  tkrt_status_t status = tkrt_hal_validate_launch(&device->info, params);
  if (!status) status = tkrt_hal_function_launch(function, params, stream);
  return tkrt_status_annotate(status, "launching kernel '%s'", function->name);
}

/* ---------------------------------------------------------------- memory */

tkrt_status_t tkrt_memory_alloc(tkrt_device_t* device, size_t size, tkrt_deviceptr_t* out_ptr) {
  TKRT_CHECK_ARG(device && out_ptr, "tkrt_memory_alloc: NULL argument");
  TKRT_CHECK_ARG(size > 0, "tkrt_memory_alloc: size is 0");
  return TKRT_HAL_VTABLE(device)->memory_alloc(device, size, out_ptr);
}

tkrt_status_t tkrt_memory_free(tkrt_device_t* device, tkrt_deviceptr_t ptr) {
  TKRT_CHECK_ARG(device, "tkrt_memory_free: device is NULL");
  if (!ptr) return NULL;
  return TKRT_HAL_VTABLE(device)->memory_free(device, ptr);
}

tkrt_status_t tkrt_host_alloc(tkrt_device_t* device, size_t size, void** out_ptr) {
  TKRT_CHECK_ARG(device && out_ptr, "tkrt_host_alloc: NULL argument");
  TKRT_CHECK_ARG(size > 0, "tkrt_host_alloc: size is 0");
  return TKRT_HAL_VTABLE(device)->host_alloc(device, size, out_ptr);
}

tkrt_status_t tkrt_host_free(tkrt_device_t* device, void* ptr) {
  TKRT_CHECK_ARG(device, "tkrt_host_free: device is NULL");
  if (!ptr) return NULL;
  return TKRT_HAL_VTABLE(device)->host_free(device, ptr);
}

tkrt_status_t tkrt_memory_info(tkrt_device_t* device, size_t* out_free, size_t* out_total) {
  TKRT_CHECK_ARG(device && out_free && out_total, "tkrt_memory_info: NULL argument");
  return TKRT_HAL_VTABLE(device)->memory_info(device, out_free, out_total);
}

tkrt_status_t tkrt_memset_async(tkrt_device_t* device, tkrt_deviceptr_t dst, uint8_t value,
                                size_t size, tkrt_stream_t stream) {
  TKRT_CHECK_ARG(device, "tkrt_memset_async: device is NULL");
  if (size == 0) return NULL;
  TKRT_CHECK_ARG(dst, "tkrt_memset_async: destination is NULL");
  return TKRT_HAL_VTABLE(device)->memset_async(device, dst, value, size, stream);
}

static tkrt_status_t tkrt_memcpy_dispatch(tkrt_device_t* device, uint64_t dst, uint64_t src,
                                          size_t size, tkrt_hal_memcpy_kind_t kind,
                                          tkrt_stream_t stream) {
  TKRT_CHECK_ARG(device, "memcpy: device is NULL");
  if (size == 0) return NULL;
  TKRT_CHECK_ARG(dst && src, "memcpy: NULL %s", dst ? "source" : "destination");
  return TKRT_HAL_VTABLE(device)->memcpy_async(device, dst, src, size, kind, stream);
}

tkrt_status_t tkrt_memcpy_htod_async(tkrt_device_t* device, tkrt_deviceptr_t dst,
                                     const void* src, size_t size, tkrt_stream_t stream) {
  return tkrt_memcpy_dispatch(device, dst, (uint64_t)(uintptr_t)src, size, TKRT_HAL_MEMCPY_HTOD,
                              stream);
}

tkrt_status_t tkrt_memcpy_dtoh_async(tkrt_device_t* device, void* dst, tkrt_deviceptr_t src,
                                     size_t size, tkrt_stream_t stream) {
  return tkrt_memcpy_dispatch(device, (uint64_t)(uintptr_t)dst, src, size, TKRT_HAL_MEMCPY_DTOH,
                              stream);
}

tkrt_status_t tkrt_memcpy_dtod_async(tkrt_device_t* device, tkrt_deviceptr_t dst,
                                     tkrt_deviceptr_t src, size_t size, tkrt_stream_t stream) {
  return tkrt_memcpy_dispatch(device, dst, src, size, TKRT_HAL_MEMCPY_DTOD, stream);
}

/* ---------------------------------------------------------------- streams, graphs, events */

tkrt_status_t tkrt_stream_create(tkrt_device_t* device, tkrt_stream_t* out_stream) {
  TKRT_CHECK_ARG(device && out_stream, "tkrt_stream_create: NULL argument");
  return TKRT_HAL_VTABLE(device)->stream_create(device, out_stream);
}

tkrt_status_t tkrt_stream_destroy(tkrt_device_t* device, tkrt_stream_t stream) {
  TKRT_CHECK_ARG(device, "tkrt_stream_destroy: device is NULL");
  TKRT_CHECK_ARG(stream, "tkrt_stream_destroy: the default stream cannot be destroyed");
  return TKRT_HAL_VTABLE(device)->stream_destroy(device, stream);
}

tkrt_status_t tkrt_stream_synchronize(tkrt_device_t* device, tkrt_stream_t stream) {
  TKRT_CHECK_ARG(device, "tkrt_stream_synchronize: device is NULL");
  return TKRT_HAL_VTABLE(device)->stream_synchronize(device, stream);
}

tkrt_status_t tkrt_device_synchronize(tkrt_device_t* device) {
  TKRT_CHECK_ARG(device, "tkrt_device_synchronize: device is NULL");
  return TKRT_HAL_VTABLE(device)->device_synchronize(device);
}

tkrt_status_t tkrt_stream_is_capturing(tkrt_device_t* device, tkrt_stream_t stream,
                                       bool* out_capturing) {
  TKRT_CHECK_ARG(device && out_capturing, "tkrt_stream_is_capturing: NULL argument");
  return TKRT_HAL_VTABLE(device)->stream_is_capturing(device, stream, out_capturing);
}

tkrt_status_t tkrt_stream_begin_capture(tkrt_device_t* device, tkrt_stream_t stream) {
  TKRT_CHECK_ARG(device, "tkrt_stream_begin_capture: device is NULL");
  TKRT_CHECK_ARG(stream, "tkrt_stream_begin_capture: the default stream cannot be captured");
  return TKRT_HAL_VTABLE(device)->stream_begin_capture(device, stream);
}

tkrt_status_t tkrt_stream_end_capture(tkrt_device_t* device, tkrt_stream_t stream,
                                      tkrt_graph_t** out_graph) {
  TKRT_CHECK_ARG(device && out_graph, "tkrt_stream_end_capture: NULL argument");
  TKRT_CHECK_ARG(stream, "tkrt_stream_end_capture: the default stream cannot be captured");
  void* graph = NULL;
  TKRT_RETURN_IF_ERROR(TKRT_HAL_VTABLE(device)->stream_end_capture(device, stream, &graph));
  *out_graph = (tkrt_graph_t*)graph;
  return NULL;
}

tkrt_status_t tkrt_graph_launch(tkrt_device_t* device, tkrt_graph_t* graph,
                                tkrt_stream_t stream) {
  TKRT_CHECK_ARG(device && graph, "tkrt_graph_launch: NULL argument");
  return TKRT_HAL_VTABLE(device)->graph_launch(device, graph, stream);
}

tkrt_status_t tkrt_graph_destroy(tkrt_device_t* device, tkrt_graph_t* graph) {
  TKRT_CHECK_ARG(device, "tkrt_graph_destroy: device is NULL");
  if (!graph) return NULL;
  return TKRT_HAL_VTABLE(device)->graph_destroy(device, graph);
}

tkrt_status_t tkrt_event_create(tkrt_device_t* device, tkrt_event_t* out_event) {
  TKRT_CHECK_ARG(device && out_event, "tkrt_event_create: NULL argument");
  return TKRT_HAL_VTABLE(device)->event_create(device, out_event);
}

tkrt_status_t tkrt_event_destroy(tkrt_device_t* device, tkrt_event_t event) {
  TKRT_CHECK_ARG(device, "tkrt_event_destroy: device is NULL");
  if (!event) return NULL;
  return TKRT_HAL_VTABLE(device)->event_destroy(device, event);
}

tkrt_status_t tkrt_event_record(tkrt_device_t* device, tkrt_event_t event,
                                tkrt_stream_t stream) {
  TKRT_CHECK_ARG(device && event, "tkrt_event_record: NULL argument");
  return TKRT_HAL_VTABLE(device)->event_record(device, event, stream);
}

tkrt_status_t tkrt_event_synchronize(tkrt_device_t* device, tkrt_event_t event) {
  TKRT_CHECK_ARG(device && event, "tkrt_event_synchronize: NULL argument");
  return TKRT_HAL_VTABLE(device)->event_synchronize(device, event);
}

tkrt_status_t tkrt_event_elapsed_ms(tkrt_device_t* device, tkrt_event_t start, tkrt_event_t end,
                                    float* out_ms) {
  TKRT_CHECK_ARG(device && start && end && out_ms, "tkrt_event_elapsed_ms: NULL argument");
  return TKRT_HAL_VTABLE(device)->event_elapsed_ms(device, start, end, out_ms);
}
