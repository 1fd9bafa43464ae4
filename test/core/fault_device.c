/* SPDX-License-Identifier: Apache-2.0 */
/* A fault-injecting HAL device for tests: every fallible operation is counted, the chosen one
 * fails instead of reaching the real device; allocations are tracked to catch leaks. */
#include "test/core/fault_device.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct tkrt_fault_device {
  tkrt_device_t base;
  tkrt_device_t* inner;
  int fail_at;
  tkrt_status_code_t code;
  unsigned load_delay_micros;
  int loads_in_flight;
  pthread_mutex_t lock;
  tkrt_fault_stats_t stats;
  /* The virtual clock (tkrt_fault_device_use_virtual_clock): microseconds of the spins launched. */
  int virtual_clock;
  uint32_t spin_param;
  uint64_t clock_micros;
} tkrt_fault_device_t;

/* An event of a device with a virtual clock: the device's event, and the clock when recorded. */
typedef struct tkrt_fault_event {
  tkrt_event_t inner;
  uint64_t at_micros;
} tkrt_fault_event_t;

static tkrt_fault_device_t* tkrt_fault_cast(tkrt_device_t* device) {
  return (tkrt_fault_device_t*)device;
}

#define INNER(d) (tkrt_fault_cast(d)->inner)
#define INNER_VT(d) TKRT_HAL_VTABLE(INNER(d))

/* Counts an operation; returns the injected error when it is the chosen one. */
static tkrt_status_t tkrt_fault_check(tkrt_device_t* device, const char* op) {
  tkrt_fault_device_t* f = tkrt_fault_cast(device);
  pthread_mutex_lock(&f->lock);
  int n = ++f->stats.operations;
  int fire = n == f->fail_at;
  if (fire) {
    f->stats.injected = 1;
    snprintf(f->stats.injected_op, sizeof(f->stats.injected_op), "%s", op);
  }
  pthread_mutex_unlock(&f->lock);
  if (!fire) return NULL;
  return TKRT_STATUS_MAKE(f->code, "injected fault in %s (operation %d)", op, n);
}

static void tkrt_fault_count(tkrt_device_t* device, int* counter, int delta) {
  tkrt_fault_device_t* f = tkrt_fault_cast(device);
  pthread_mutex_lock(&f->lock);
  *counter += delta;
  pthread_mutex_unlock(&f->lock);
}

#define CHECK(op) TKRT_RETURN_IF_ERROR(tkrt_fault_check(device, op))

static void fault_destroy(tkrt_device_t* device) {
  tkrt_fault_device_t* f = tkrt_fault_cast(device);
  tkrt_device_release(f->inner);
  pthread_mutex_destroy(&f->lock);
  free(f);
}
static tkrt_status_t fault_module_load(tkrt_device_t* device, const tkrt_image_t* image, void** out) {
  CHECK("module_load");
  tkrt_fault_device_t* f = tkrt_fault_cast(device);
  pthread_mutex_lock(&f->lock);
  if (++f->loads_in_flight > f->stats.most_loads_at_once) {
    f->stats.most_loads_at_once = f->loads_in_flight;
  }
  unsigned delay = f->load_delay_micros;
  pthread_mutex_unlock(&f->lock);
  if (delay) {
    struct timespec pause = {.tv_sec = delay / 1000000u, .tv_nsec = (long)(delay % 1000000u) * 1000};
    nanosleep(&pause, NULL);
  }
  tkrt_status_t status = INNER_VT(device)->module_load(INNER(device), image, out);
  pthread_mutex_lock(&f->lock);
  --f->loads_in_flight;
  if (!status) {
    ++f->stats.module_loads;
    ++f->stats.live_modules;
  }
  pthread_mutex_unlock(&f->lock);
  return status;
}
static void fault_module_unload(tkrt_device_t* device, void* module) {
  tkrt_fault_count(device, &tkrt_fault_cast(device)->stats.live_modules, -1);
  INNER_VT(device)->module_unload(INNER(device), module);
}
static tkrt_status_t fault_function_create(tkrt_device_t* device, void* module, const char* name,
                                           tkrt_hal_function_info_t* out) {
  CHECK("function_create");
  return INNER_VT(device)->function_create(INNER(device), module, name, out);
}
static void fault_function_destroy(tkrt_device_t* device, void* fn) {
  INNER_VT(device)->function_destroy(INNER(device), fn);
}
static tkrt_status_t fault_encode_tma(tkrt_device_t* device, const struct tkrt_tma_desc* desc,
                                      tkrt_deviceptr_t base, void* out) {
  CHECK("encode_tma");
  return tkrt_hal_device_encode_tma(INNER(device), desc, base, out);
}
static tkrt_status_t fault_function_attrs(tkrt_device_t* device, void* fn, tkrt_function_attrs_t* out) {
  return INNER_VT(device)->function_attrs(INNER(device), fn, out);
}
static tkrt_status_t fault_function_set(tkrt_device_t* device, void* fn, uint32_t bytes) {
  /* Optional in the vtable: the wrapped device may have no limit to set. */
  if (!INNER_VT(device)->function_set_shared_limit) return NULL;
  return INNER_VT(device)->function_set_shared_limit(INNER(device), fn, bytes);
}
static tkrt_status_t fault_launch(tkrt_device_t* device, void* fn, const tkrt_launch_params_t* p,
                                  tkrt_stream_t stream) {
  CHECK("launch");
  tkrt_fault_device_t* f = tkrt_fault_cast(device);
  tkrt_fault_count(device, &f->stats.launches, 1);
  if (!f->virtual_clock || p->param_count <= f->spin_param || p->param_count > 64) {
    return INNER_VT(device)->launch(INNER(device), fn, p, stream);
  }
  /* The spin moves the virtual clock; the kernel itself is launched with a spin of 0. */
  static const uint32_t no_spin = 0;
  void* params[64];
  memcpy(params, p->params, p->param_count * sizeof(params[0]));
  uint32_t micros = 0;
  memcpy(&micros, p->params[f->spin_param], sizeof(micros));
  params[f->spin_param] = (void*)&no_spin;
  tkrt_launch_params_t launch = *p;
  launch.params = params;
  tkrt_status_t status = INNER_VT(device)->launch(INNER(device), fn, &launch, stream);
  if (!status) {
    pthread_mutex_lock(&f->lock);
    f->clock_micros += micros;
    pthread_mutex_unlock(&f->lock);
  }
  return status;
}
static tkrt_status_t fault_memory_alloc(tkrt_device_t* device, size_t size, tkrt_deviceptr_t* out) {
  CHECK("memory_alloc");
  TKRT_RETURN_IF_ERROR(INNER_VT(device)->memory_alloc(INNER(device), size, out));
  tkrt_fault_count(device, &tkrt_fault_cast(device)->stats.live_device_allocs, 1);
  return NULL;
}
static tkrt_status_t fault_memory_free(tkrt_device_t* device, tkrt_deviceptr_t ptr) {
  tkrt_fault_count(device, &tkrt_fault_cast(device)->stats.live_device_allocs, -1);
  return INNER_VT(device)->memory_free(INNER(device), ptr);
}
static tkrt_status_t fault_host_alloc(tkrt_device_t* device, size_t size, void** out) {
  CHECK("host_alloc");
  TKRT_RETURN_IF_ERROR(INNER_VT(device)->host_alloc(INNER(device), size, out));
  tkrt_fault_count(device, &tkrt_fault_cast(device)->stats.live_host_allocs, 1);
  return NULL;
}
static tkrt_status_t fault_host_free(tkrt_device_t* device, void* ptr) {
  tkrt_fault_count(device, &tkrt_fault_cast(device)->stats.live_host_allocs, -1);
  return INNER_VT(device)->host_free(INNER(device), ptr);
}
static tkrt_status_t fault_memory_info(tkrt_device_t* device, size_t* f, size_t* t) {
  return INNER_VT(device)->memory_info(INNER(device), f, t);
}
static tkrt_status_t fault_memset(tkrt_device_t* device, tkrt_deviceptr_t dst, uint8_t value,
                                  size_t size, tkrt_stream_t stream) {
  CHECK("memset");
  return INNER_VT(device)->memset_async(INNER(device), dst, value, size, stream);
}
static tkrt_status_t fault_memcpy(tkrt_device_t* device, uint64_t dst, uint64_t src, size_t size,
                                  tkrt_hal_memcpy_kind_t kind, tkrt_stream_t stream) {
  CHECK(kind == TKRT_HAL_MEMCPY_DTOD ? "memcpy_dtod" : kind == TKRT_HAL_MEMCPY_DTOH ? "memcpy_dtoh"
                                                                                   : "memcpy_htod");
  return INNER_VT(device)->memcpy_async(INNER(device), dst, src, size, kind, stream);
}
static tkrt_status_t fault_stream_create(tkrt_device_t* device, tkrt_stream_t* out) {
  return INNER_VT(device)->stream_create(INNER(device), out);
}
static tkrt_status_t fault_stream_destroy(tkrt_device_t* device, tkrt_stream_t s) {
  return INNER_VT(device)->stream_destroy(INNER(device), s);
}
static tkrt_status_t fault_stream_sync(tkrt_device_t* device, tkrt_stream_t s) {
  CHECK("stream_synchronize");
  return INNER_VT(device)->stream_synchronize(INNER(device), s);
}
static tkrt_status_t fault_device_sync(tkrt_device_t* device) {
  CHECK("device_synchronize");
  return INNER_VT(device)->device_synchronize(INNER(device));
}
static tkrt_status_t fault_stream_capturing(tkrt_device_t* device, tkrt_stream_t s, bool* out) {
  CHECK("stream_is_capturing");
  return INNER_VT(device)->stream_is_capturing(INNER(device), s, out);
}
static tkrt_status_t fault_begin_capture(tkrt_device_t* device, tkrt_stream_t s) {
  return INNER_VT(device)->stream_begin_capture(INNER(device), s);
}
static tkrt_status_t fault_end_capture(tkrt_device_t* device, tkrt_stream_t s, void** out) {
  return INNER_VT(device)->stream_end_capture(INNER(device), s, out);
}
static tkrt_status_t fault_graph_launch(tkrt_device_t* device, void* g, tkrt_stream_t s) {
  return INNER_VT(device)->graph_launch(INNER(device), g, s);
}
static tkrt_status_t fault_graph_destroy(tkrt_device_t* device, void* g) {
  return INNER_VT(device)->graph_destroy(INNER(device), g);
}
/* With the virtual clock, the core's events are tkrt_fault_event_t wrapping the device's. */
#define INNER_EVENT(d, e) \
  (tkrt_fault_cast(d)->virtual_clock ? ((tkrt_fault_event_t*)(void*)(e))->inner : (e))

static tkrt_status_t fault_event_create(tkrt_device_t* device, tkrt_event_t* out) {
  CHECK("event_create");
  if (!tkrt_fault_cast(device)->virtual_clock) {
    return INNER_VT(device)->event_create(INNER(device), out);
  }
  tkrt_fault_event_t* event = calloc(1, sizeof(*event));
  if (!event) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  tkrt_status_t status = INNER_VT(device)->event_create(INNER(device), &event->inner);
  if (status) {
    free(event);
    return status;
  }
  *out = (tkrt_event_t)(void*)event;
  return NULL;
}
static tkrt_status_t fault_event_destroy(tkrt_device_t* device, tkrt_event_t e) {
  tkrt_status_t status = INNER_VT(device)->event_destroy(INNER(device), INNER_EVENT(device, e));
  if (tkrt_fault_cast(device)->virtual_clock) free(e);
  return status;
}
static tkrt_status_t fault_event_record(tkrt_device_t* device, tkrt_event_t e, tkrt_stream_t s) {
  CHECK("event_record");
  tkrt_fault_device_t* f = tkrt_fault_cast(device);
  if (f->virtual_clock) {
    pthread_mutex_lock(&f->lock);
    ((tkrt_fault_event_t*)(void*)e)->at_micros = f->clock_micros;
    pthread_mutex_unlock(&f->lock);
  }
  return INNER_VT(device)->event_record(INNER(device), INNER_EVENT(device, e), s);
}
static tkrt_status_t fault_event_sync(tkrt_device_t* device, tkrt_event_t e) {
  CHECK("event_synchronize");
  return INNER_VT(device)->event_synchronize(INNER(device), INNER_EVENT(device, e));
}
static tkrt_status_t fault_event_elapsed(tkrt_device_t* device, tkrt_event_t a, tkrt_event_t b,
                                         float* out) {
  CHECK("event_elapsed_ms");
  if (tkrt_fault_cast(device)->virtual_clock) {
    const tkrt_fault_event_t* start = (const tkrt_fault_event_t*)(const void*)a;
    const tkrt_fault_event_t* end = (const tkrt_fault_event_t*)(const void*)b;
    *out = (float)((double)(end->at_micros - start->at_micros) / 1000.0);
    return NULL;
  }
  return INNER_VT(device)->event_elapsed_ms(INNER(device), a, b, out);
}

static const tkrt_hal_device_vtable_t tkrt_fault_vtable = {
    .destroy = fault_destroy,
    .module_load = fault_module_load,
    .module_unload = fault_module_unload,
    .function_create = fault_function_create,
    .function_destroy = fault_function_destroy,
    .function_attrs = fault_function_attrs,
    .function_set_shared_limit = fault_function_set,
    .launch = fault_launch,
    .memory_alloc = fault_memory_alloc,
    .memory_free = fault_memory_free,
    .host_alloc = fault_host_alloc,
    .host_free = fault_host_free,
    .memory_info = fault_memory_info,
    .memset_async = fault_memset,
    .memcpy_async = fault_memcpy,
    .stream_create = fault_stream_create,
    .stream_destroy = fault_stream_destroy,
    .stream_synchronize = fault_stream_sync,
    .device_synchronize = fault_device_sync,
    .stream_is_capturing = fault_stream_capturing,
    .stream_begin_capture = fault_begin_capture,
    .stream_end_capture = fault_end_capture,
    .graph_launch = fault_graph_launch,
    .graph_destroy = fault_graph_destroy,
    .event_create = fault_event_create,
    .event_destroy = fault_event_destroy,
    .event_record = fault_event_record,
    .event_synchronize = fault_event_sync,
    .event_elapsed_ms = fault_event_elapsed,
    .encode_tma = fault_encode_tma,
};

tkrt_status_t tkrt_fault_device_create(tkrt_device_t* inner, int fail_at, tkrt_status_code_t code,
                                       tkrt_device_t** out_device) {
  tkrt_fault_device_t* f = calloc(1, sizeof(*f));
  if (!f) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  tkrt_hal_device_initialize(&f->base, inner->backend, &tkrt_fault_vtable, inner->info.ordinal);
  f->base.info = inner->info; /* same limits and arch as the device it wraps */
  f->inner = inner;
  tkrt_device_retain(inner);
  f->fail_at = fail_at;
  f->code = code;
  pthread_mutex_init(&f->lock, NULL);
  *out_device = &f->base;
  return NULL;
}

const tkrt_fault_stats_t* tkrt_fault_device_stats(tkrt_device_t* device) {
  return &tkrt_fault_cast(device)->stats;
}

void tkrt_fault_device_set_load_delay(tkrt_device_t* device, unsigned micros) {
  tkrt_fault_device_t* f = tkrt_fault_cast(device);
  pthread_mutex_lock(&f->lock);
  f->load_delay_micros = micros;
  pthread_mutex_unlock(&f->lock);
}

void tkrt_fault_device_use_virtual_clock(tkrt_device_t* device, uint32_t spin_param) {
  tkrt_fault_device_t* f = tkrt_fault_cast(device);
  pthread_mutex_lock(&f->lock);
  f->virtual_clock = 1;
  f->spin_param = spin_param;
  pthread_mutex_unlock(&f->lock);
}

void tkrt_fault_device_wrap_with_virtual_clock(tkrt_device_t** device, uint32_t spin_param) {
  tkrt_device_t* timed = NULL;
  tkrt_status_t status = tkrt_fault_device_create(*device, 0, TKRT_STATUS_INTERNAL, &timed);
  if (status) {
    fprintf(stderr, "cannot wrap the device: %s\n", tkrt_status_message(status));
    exit(1);
  }
  tkrt_fault_device_use_virtual_clock(timed, spin_param);
  tkrt_device_release(*device); /* the wrapper holds it; the caller releases the wrapper */
  *device = timed;
}
