/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt HIP backend: shared declarations (the loaded library, the device object, status mapping
 * and the pure helpers the tests call directly). */
#ifndef TKRT_BACKENDS_HIP_HIP_INTERNAL_H_
#define TKRT_BACKENDS_HIP_HIP_INTERNAL_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "backends/hip/hip_symbols.h"
#include "hal/hal.h"
#include "tkrt/image.h"

/* ---------------------------------------------------------------- the library (hip_library.c) */

/* At most this many names in a caller's ':'-separated list. */
#define TKRT_HIP_LIBRARY_NAMES_MAX 8

/* names[] may point into storage[]: use the record where it was filled, never a copy of it. */
typedef struct tkrt_hip_library_names {
  const char* names[TKRT_HIP_LIBRARY_NAMES_MAX];
  size_t count;
  bool overridden; /* the names come from the caller's list */
  char storage[1024];
} tkrt_hip_library_names_t;

/* Fills `out` with the names to try: `spec` (a ':'-separated list of paths or sonames) when it is
 * set, else the sonames of ROCm 7, 6 and 5, then libamdhip64.so. */
void tkrt_hip_library_names_get(const char* spec, tkrt_hip_library_names_t* out);


typedef struct tkrt_hip_library {
  void* handle;              /* never closed */
  const char* opened_name;   /* the name that loaded */
  tkrt_hip_symbols_t api;
  int runtime_version;       /* hipRuntimeGetVersion: major * 10^7 + minor * 10^5 + patch */
  int driver_version;        /* hipDriverGetVersion */
  int device_count;
} tkrt_hip_library_t;

/* Opens and initialises libamdhip64 once per process, trying `names` (tkrt_hip_library_names_get;
 * the first caller's list decides). On success *out_library is the shared, immutable library
 * record; otherwise UNAVAILABLE (or another code) with the reason. */
tkrt_status_t tkrt_hip_library_get(const char* names, const tkrt_hip_library_t** out_library);

/* "5.2.21153" from a hipRuntimeGetVersion value. */
void tkrt_hip_format_version(int version, char* buffer, size_t capacity);

/* ---------------------------------------------------------------- errors (hip_status.c) */

/* The tkrt code for a hipError_t, by its numeric value (stable across ROCm 5 to 7). */
tkrt_status_code_t tkrt_hip_status_code(int error);
/* A status "operation: hipErrorName (N)"; `api` may be NULL (then the name is "hipError N"). */
tkrt_status_t tkrt_hip_make_status(const tkrt_hip_symbols_t* api, int error, const char* file,
                                   int line, const char* operation_format, ...)
    TKRT_PRINTF_LIKE(5, 6);

#define TKRT_HIP_STATUS(api, error, ...) \
  tkrt_hip_make_status((api), (int)(error), __FILE__, __LINE__, __VA_ARGS__)

/* ---------------------------------------------------------------- arch checks (hip_module.c) */

/* Checks that a code object can run on a device whose gcnArchName is `device_arch_name`
 * ("gfx90a:sramecc+:xnack-"): same processor, and no feature the code object needs on (xnack+,
 * sramecc+) or off that the device has the other way. Unknown processors on either side and
 * generic targets (gfx9-generic, ...) pass: the runtime decides then. INVALID_ARGUMENT on a
 * mismatch, e.g. "HSACO targets gfx90a but device 0 is gfx942". */
tkrt_status_t tkrt_hip_check_code_object(const tkrt_image_info_t* image,
                                         const char* device_arch_name, int ordinal);

/* Copies the processor part of a gcnArchName ("gfx90a" of "gfx90a:sramecc+:xnack-"). */
void tkrt_hip_arch_processor(const char* arch_name, char* out, size_t capacity);

/* ---------------------------------------------------------------- the device (hip_device.c) */

typedef struct tkrt_hip_device {
  tkrt_device_t base; /* first: the HAL reaches us through a checked downcast */
  const tkrt_hip_library_t* library;
  const tkrt_hip_symbols_t* api;
  int ordinal;
  char arch_name[256]; /* full gcnArchName, "" when it could not be read safely */
} tkrt_hip_device_t;

extern const tkrt_hal_device_vtable_t tkrt_hip_device_vtable;

/* Creates device options->ordinal of the runtime that options->hip_library names. */
tkrt_status_t tkrt_hip_device_create(const tkrt_hal_backend_t* backend,
                                     const tkrt_device_options_t* options,
                                     tkrt_device_t** out_device);

static inline tkrt_hip_device_t* tkrt_hip_device_cast(tkrt_device_t* device) {
  assert(device->resource.vtable == &tkrt_hip_device_vtable);
  return (tkrt_hip_device_t*)device;
}

/* Makes the device current on this thread for the duration of a call, restoring the caller's
 * device afterwards (the HIP runtime API works on a per-thread current device, and tkrt must not
 * change what a framework on the same thread set). */
typedef struct tkrt_hip_device_scope {
  int previous;
  bool switched;
} tkrt_hip_device_scope_t;

tkrt_status_t tkrt_hip_scope_enter(tkrt_hip_device_t* device, tkrt_hip_device_scope_t* scope);
void tkrt_hip_scope_exit(tkrt_hip_device_t* device, const tkrt_hip_device_scope_t* scope);

/* ---------------------------------------------------------------- vtable methods */

/* hip_device.c, hip_module.c, hip_launch.c, hip_stream.c */
TKRT_HAL_DECLARE_METHODS(tkrt_hip)
TKRT_HAL_DECLARE_METHOD(tkrt_hip, function_set_shared_limit)

#endif /* TKRT_BACKENDS_HIP_HIP_INTERNAL_H_ */
