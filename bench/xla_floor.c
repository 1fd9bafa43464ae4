/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt benchmarks: the floor. Reference XLA custom-call handlers that do as little as a handler
 * can — nothing, or one cuLaunchKernel of a preloaded function — so that tkrt's targets can be
 * reported as a ratio to what any handler in the same jitted program costs (bench/jax_pipeline.py).
 *
 * Built as libtkrt_bench_floor.so against xla/xla_ffi_abi.h; the CUDA driver is opened at run
 * time, so the library loads (and its no-op handlers run) on machines without one.
 *
 * Handlers (register with jax.ffi.register_ffi_target; FFI ones with api_version=1, legacy ones
 * with api_version=0):
 *   bench_floor_ffi_noop, bench_floor_legacy_noop      do nothing
 *   bench_floor_ffi_launch, bench_floor_legacy_launch  launch slot K's function on the call's
 *       stream with the call's buffers; K is the decimal number in the call's `opaque` attribute
 *       (FFI) or backend config (legacy), e.g. "floor:1"
 * Setup (ctypes): bench_floor_setup(slot, image, size, name, grid x/y/z, block x, shared bytes,
 * layout, scalars, error, capacity) loads an image (PTX or cubin) into the device's primary
 * context; layout says how parameters are made: 'a' the next buffer's address, 'i' the next
 * int32 of `scalars`; the two hidden Triton pointers (global, profile scratch) follow as NULL. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xla/xla_ffi_abi.h"
#include "xla/xla_profile.h"

#define FLOOR_API __attribute__((visibility("default")))
#define FLOOR_SLOTS 16
#define FLOOR_MAX_PARAMS 32

typedef int floor_cu_result;
typedef int floor_cu_device;
typedef void* floor_cu_context;
typedef void* floor_cu_module;
typedef void* floor_cu_function;

static struct {
  floor_cu_result (*init)(unsigned);
  floor_cu_result (*device_get)(floor_cu_device*, int);
  floor_cu_result (*primary_ctx_retain)(floor_cu_context*, floor_cu_device);
  floor_cu_result (*ctx_set_current)(floor_cu_context);
  floor_cu_result (*module_load_data)(floor_cu_module*, const void*);
  floor_cu_result (*module_get_function)(floor_cu_function*, floor_cu_module, const char*);
  floor_cu_result (*func_set_attribute)(floor_cu_function, int, int);
  floor_cu_result (*launch_kernel)(floor_cu_function, unsigned, unsigned, unsigned, unsigned,
                                   unsigned, unsigned, unsigned, void*, void**, void**);
} floor_cu;

typedef struct floor_slot {
  _Atomic(int) ready; /* published after the fields below */
  floor_cu_function function;
  unsigned grid[3], block_x, shared;
  char layout[FLOOR_MAX_PARAMS];
  int32_t scalars[FLOOR_MAX_PARAMS];
  size_t buffers; /* 'a' entries in layout */
} floor_slot_t;

static floor_slot_t floor_slots[FLOOR_SLOTS];
static atomic_ullong floor_launches, floor_errors;

/* Profile builds (TKRT_PROFILE): calls and ticks in the launching handlers and in their driver
 * call, to set beside tkrt's stages (xla/xla_profile.h; bench/jax_pipeline.py --profile). */
#define FLOOR_PROFILE_STAGES(X) \
  X(ffi_calls) X(ffi_driver) X(ffi_total) X(legacy_calls) X(legacy_driver) X(legacy_total)
enum {
#define FLOOR_PROFILE_ENUM(name) FLOOR_PROF_##name,
  FLOOR_PROFILE_STAGES(FLOOR_PROFILE_ENUM)
#undef FLOOR_PROFILE_ENUM
  FLOOR_PROF_COUNT
};
#ifdef TKRT_PROFILE
static atomic_uint_fast64_t floor_profile[FLOOR_PROF_COUNT];
#endif
#define FLOOR_PROF(stage, from, to) TKRT_PROFILE_ADD(floor_profile, FLOOR_PROF_##stage, from, to)
#define FLOOR_PROF_CALL(stage) TKRT_PROFILE_COUNT(floor_profile, FLOOR_PROF_##stage)

/* As tkrt_xla_profile (xla/tkrt_xla.h): 0 stages outside profile builds. */
FLOOR_API size_t bench_floor_profile(uint64_t* values, const char** names, size_t capacity,
                                     double* ticks_per_us, int reset) {
#ifdef TKRT_PROFILE
  static const char* const kNames[] = {
#define FLOOR_PROFILE_NAME(name) #name,
      FLOOR_PROFILE_STAGES(FLOOR_PROFILE_NAME)
#undef FLOOR_PROFILE_NAME
  };
  return tkrt_profile_read(floor_profile, kNames, FLOOR_PROF_COUNT, values, names, capacity,
                           ticks_per_us, reset);
#else
  (void)values, (void)names, (void)capacity, (void)reset;
  if (ticks_per_us) *ticks_per_us = 0;
  return 0;
#endif
}

FLOOR_API unsigned long long bench_floor_launches(void) { return atomic_load(&floor_launches); }
FLOOR_API unsigned long long bench_floor_errors(void) { return atomic_load(&floor_errors); }

static int floor_fail(char* error, size_t capacity, const char* what, int code) {
  if (error && capacity) snprintf(error, capacity, "%s (CUresult %d)", what, code);
  return -1;
}

static int floor_open_driver(char* error, size_t capacity) {
  if (floor_cu.launch_kernel) return 0;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return floor_fail(error, capacity, "libcuda.so.1 cannot be opened: no CUDA driver", 0);
  struct {
    const char* name;
    void** slot;
  } symbols[] = {
      {"cuInit", (void**)&floor_cu.init},
      {"cuDeviceGet", (void**)&floor_cu.device_get},
      {"cuDevicePrimaryCtxRetain", (void**)&floor_cu.primary_ctx_retain},
      {"cuCtxSetCurrent", (void**)&floor_cu.ctx_set_current},
      {"cuModuleLoadData", (void**)&floor_cu.module_load_data},
      {"cuModuleGetFunction", (void**)&floor_cu.module_get_function},
      {"cuFuncSetAttribute", (void**)&floor_cu.func_set_attribute},
      {"cuLaunchKernel", (void**)&floor_cu.launch_kernel},
  };
  for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); ++i) {
    *symbols[i].slot = dlsym(lib, symbols[i].name);
    if (!*symbols[i].slot) {
      memset(&floor_cu, 0, sizeof(floor_cu));
      return floor_fail(error, capacity, symbols[i].name, -1);
    }
  }
  return 0;
}

FLOOR_API int bench_floor_setup(int slot, const void* image, size_t size, const char* name,
                                unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                                unsigned shared, const char* layout, const int32_t* scalars,
                                char* error, size_t capacity) {
  if (slot < 0 || slot >= FLOOR_SLOTS || !image || !size || !name || !layout ||
      strlen(layout) >= FLOOR_MAX_PARAMS) {
    return floor_fail(error, capacity, "bench_floor_setup: bad argument (slot 0..15, layout < 32)", 0);
  }
  floor_slot_t* s = &floor_slots[slot];
  if (atomic_load(&s->ready)) return floor_fail(error, capacity, "slot already set up", 0);
  if (floor_open_driver(error, capacity)) return -1;
  /* cuModuleLoadData reads PTX up to its NUL: keep a terminated copy. */
  char* copy = malloc(size + 1);
  if (!copy) return floor_fail(error, capacity, "out of host memory", 0);
  memcpy(copy, image, size);
  copy[size] = '\0';
  floor_cu_device device = 0;
  floor_cu_context context = NULL;
  floor_cu_module module = NULL;
  int rc;
  if ((rc = floor_cu.init(0))) return free(copy), floor_fail(error, capacity, "cuInit", rc);
  if ((rc = floor_cu.device_get(&device, 0))) return free(copy), floor_fail(error, capacity, "cuDeviceGet", rc);
  if ((rc = floor_cu.primary_ctx_retain(&context, device))) {
    return free(copy), floor_fail(error, capacity, "cuDevicePrimaryCtxRetain", rc);
  }
  if ((rc = floor_cu.ctx_set_current(context))) return free(copy), floor_fail(error, capacity, "cuCtxSetCurrent", rc);
  rc = floor_cu.module_load_data(&module, copy);
  free(copy);
  if (rc) return floor_fail(error, capacity, "cuModuleLoadData", rc);
  if ((rc = floor_cu.module_get_function(&s->function, module, name))) {
    return floor_fail(error, capacity, "cuModuleGetFunction", rc);
  }
  /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 */
  if (shared > 48 * 1024 && (rc = floor_cu.func_set_attribute(s->function, 8, (int)shared))) {
    return floor_fail(error, capacity, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", rc);
  }
  s->grid[0] = grid_x;
  s->grid[1] = grid_y;
  s->grid[2] = grid_z;
  s->block_x = block_x;
  s->shared = shared;
  snprintf(s->layout, sizeof(s->layout), "%s", layout);
  size_t next_scalar = 0;
  s->buffers = 0;
  for (const char* c = layout; *c; ++c) {
    if (*c == 'a') s->buffers++;
    else if (*c == 'i') s->scalars[next_scalar] = scalars[next_scalar], ++next_scalar;
    else return floor_fail(error, capacity, "layout has a character other than 'a' and 'i'", 0);
  }
  atomic_store(&s->ready, 1);
  return 0;
}

/* The slot number in "floor:<K>" (or any text whose last digits are K). */
static int floor_slot_of(const char* text, size_t len) {
  size_t end = len;
  while (end && (text[end - 1] < '0' || text[end - 1] > '9')) --end;
  size_t begin = end;
  while (begin && text[begin - 1] >= '0' && text[begin - 1] <= '9') --begin;
  if (begin == end || end - begin > 3) return -1;
  int slot = 0;
  for (size_t i = begin; i < end; ++i) slot = slot * 10 + (text[i] - '0');
  return slot < FLOOR_SLOTS ? slot : -1;
}

/* One cuLaunchKernel; 0, or a CUresult / -1 (slot not set up, too few buffers). `ffi` says which
 * handler's driver time a profile build counts it in. */
static int floor_launch(int slot, void* stream, void* const* buffers, size_t buffer_count,
                        int ffi) {
  (void)ffi;
  if (slot < 0 || !atomic_load_explicit(&floor_slots[slot].ready, memory_order_acquire)) return -1;
  const floor_slot_t* s = &floor_slots[slot];
  if (buffer_count < s->buffers) return -1;
  uint64_t values[FLOOR_MAX_PARAMS + 2];
  void* params[FLOOR_MAX_PARAMS + 2];
  size_t n = 0, next_buffer = 0, next_scalar = 0;
  for (const char* c = s->layout; *c; ++c, ++n) {
    if (*c == 'a') {
      values[n] = (uint64_t)(uintptr_t)buffers[next_buffer++];
    } else {
      values[n] = 0;
      memcpy(&values[n], &s->scalars[next_scalar++], 4);
    }
    params[n] = &values[n];
  }
  for (int hidden = 0; hidden < 2; ++hidden, ++n) {
    values[n] = 0;
    params[n] = &values[n];
  }
  TKRT_PROFILE_TICK(t0);
  int rc = floor_cu.launch_kernel(s->function, s->grid[0], s->grid[1], s->grid[2], s->block_x, 1, 1,
                                  s->shared, stream, params, NULL);
  TKRT_PROFILE_TICK(t1);
  if (ffi) {
    FLOOR_PROF(ffi_driver, t0, t1);
  } else {
    FLOOR_PROF(legacy_driver, t0, t1);
  }
  if (!rc) atomic_fetch_add_explicit(&floor_launches, 1, memory_order_relaxed);
  return rc;
}

/* ---------------------------------------------------------------- typed FFI */

static tkrt_ffi_error_t* floor_ffi_error(const tkrt_ffi_api_t* api, const char* message) {
  atomic_fetch_add_explicit(&floor_errors, 1, memory_order_relaxed);
  tkrt_ffi_error_create_args_t args = {
      .struct_size = TKRT_FFI_STRUCT_SIZE(tkrt_ffi_error_create_args_t, errc),
      .extension_start = NULL,
      .message = message,
      .errc = TKRT_FFI_ERROR_INTERNAL,
  };
  return api->error_create(&args);
}

/* Registration asks each handler for its FFI version and traits: command-buffer compatible, as
 * tkrt's FFI target says, so that XLA treats both alike. True for a metadata query (answered
 * when its struct is large enough), which the handler must not take for an execution. */
static bool floor_ffi_metadata(tkrt_ffi_call_frame_t* frame) {
  if (!frame->extension_start || frame->extension_start->type != TKRT_FFI_EXTENSION_METADATA) {
    return false;
  }
  tkrt_ffi_metadata_t* md = tkrt_ffi_metadata_of(frame->extension_start);
  if (md) tkrt_ffi_metadata_answer(md, 0);
  return true;
}

FLOOR_API tkrt_ffi_error_t* bench_floor_ffi_noop(tkrt_ffi_call_frame_t* frame) {
  floor_ffi_metadata(frame);
  return NULL;
}

FLOOR_API tkrt_ffi_error_t* bench_floor_ffi_launch(tkrt_ffi_call_frame_t* frame) {
  TKRT_PROFILE_TICK(t0);
  if (floor_ffi_metadata(frame)) return NULL;
  const tkrt_ffi_api_t* api = frame->api;
  int slot = -1;
  for (int64_t i = 0; i < frame->attrs.size; ++i) {
    const tkrt_ffi_byte_span_t* name = frame->attrs.names[i];
    if (name->len == 6 && memcmp(name->ptr, "opaque", 6) == 0 &&
        frame->attrs.types[i] == TKRT_FFI_ATTR_STRING) {
      const tkrt_ffi_byte_span_t* value = frame->attrs.attrs[i];
      slot = floor_slot_of(value->ptr, value->len);
    }
  }
  tkrt_ffi_stream_get_args_t stream = {
      .struct_size = TKRT_FFI_STRUCT_SIZE(tkrt_ffi_stream_get_args_t, stream),
      .extension_start = NULL,
      .ctx = frame->ctx,
      .stream = NULL,
  };
  tkrt_ffi_error_t* error = api->stream_get(&stream);
  if (error) return error;
  void* buffers[FLOOR_MAX_PARAMS];
  size_t count = 0;
  for (int64_t i = 0; i < frame->args.size && count < FLOOR_MAX_PARAMS; ++i) {
    buffers[count++] = ((const tkrt_ffi_buffer_t*)frame->args.args[i])->data;
  }
  for (int64_t i = 0; i < frame->rets.size && count < FLOOR_MAX_PARAMS; ++i) {
    buffers[count++] = ((const tkrt_ffi_buffer_t*)frame->rets.rets[i])->data;
  }
  int rc = floor_launch(slot, stream.stream, buffers, count, 1);
  TKRT_PROFILE_TICK(t1);
  FLOOR_PROF_CALL(ffi_calls);
  FLOOR_PROF(ffi_total, t0, t1);
  if (rc) {
    char message[160];
    snprintf(message, sizeof(message),
             "bench_floor_ffi_launch: slot %d: %s (%d)", slot,
             rc == -1 ? "not set up, or too few buffers" : "cuLaunchKernel failed", rc);
    return floor_ffi_error(api, message);
  }
  return NULL;
}

/* ---------------------------------------------------------------- legacy (api_version 2) */

FLOOR_API void bench_floor_legacy_noop(void* stream, void** buffers, const char* opaque,
                                       size_t opaque_len, void* status) {
  (void)stream;
  (void)buffers;
  (void)opaque;
  (void)opaque_len;
  (void)status;
}

/* Errors go to stderr and the error counter (the floor does not speak XLA's status object;
 * the benchmark checks the counter and the results). */
FLOOR_API void bench_floor_legacy_launch(void* stream, void** buffers, const char* opaque,
                                         size_t opaque_len, void* status) {
  (void)status;
  TKRT_PROFILE_TICK(t0);
  int slot = opaque ? floor_slot_of(opaque, opaque_len) : -1;
  size_t count = slot >= 0 ? floor_slots[slot].buffers : 0;
  int rc = floor_launch(slot, stream, buffers, count, 0);
  TKRT_PROFILE_TICK(t1);
  FLOOR_PROF_CALL(legacy_calls);
  FLOOR_PROF(legacy_total, t0, t1);
  if (rc) {
    atomic_fetch_add_explicit(&floor_errors, 1, memory_order_relaxed);
    fprintf(stderr, "bench_floor_legacy_launch: slot %d: %s (%d)\n", slot,
            rc == -1 ? "not set up" : "cuLaunchKernel failed", rc);
  }
}
