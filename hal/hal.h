/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt HAL: the object headers, the device vtable every backend implements (one X-macro list
 * generates the method types, the vtable, each backend's prototypes and its vtable initialiser),
 * and the backend descriptor through which backends, not the layers above them, answer what they
 * can run and what the formats above them (Triton's output, DLPack, jaxlib's fields) say of it. */
#ifndef TKRT_HAL_HAL_H_
#define TKRT_HAL_HAL_H_

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/device.h"
#include "tkrt/image.h"
#include "tkrt/status.h"
#include "tkrt/tma.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tkrt_hal_device_vtable tkrt_hal_device_vtable_t;
typedef struct tkrt_hal_backend tkrt_hal_backend_t;

/* Every HAL object starts with this header at offset 0. */
typedef struct tkrt_hal_resource {
  const void* vtable;
  atomic_int ref_count;
} tkrt_hal_resource_t;

/* The device: backends embed it as their first member and reach their own type through a checked
 * downcast (compare the vtable pointer). `info` and `options` are filled at creation and never
 * change afterwards, so they may be read without locks. */
struct tkrt_device_s {
  tkrt_hal_resource_t resource;
  const tkrt_hal_backend_t* backend;
  tkrt_device_info_t info;
  /* tkrt_device_options_t.allow_native_code_from_calls; set once by tkrt_device_open. */
  bool allow_native_code_from_calls;
};

/* A loaded module as the API layer keeps it: the backend's handle and the one function cache of
 * tkrt (lookups by name happen once per (module, name); launches never take `lock`). */
struct tkrt_module_s {
  tkrt_device_t* device; /* retained */
  void* handle;          /* backend module */
  tkrt_image_kind_t kind;
  /* Holders: the loader, and each call state that shares the module (tkrt_hal_module_retain);
   * tkrt_module_unload drops one and unloads at the last. */
  atomic_int refs;
  pthread_mutex_t lock;  /* guards `functions` */
  struct tkrt_function_s* functions;
};

/* A kernel function: the backend's handle plus the dynamic shared memory bookkeeping, which is
 * the same on every backend and so lives here, once: a function may use at most the device's
 * opt-in limit minus its static shared memory, and a launch that needs more than the current
 * limit raises it (to that most, so later launches skip the raise) without taking a lock. */
struct tkrt_function_s {
  tkrt_module_t* module;
  void* handle;                      /* backend function */
  uint32_t static_shared_bytes;
  uint32_t max_dynamic_shared_bytes; /* device opt-in limit minus static shared memory */
  atomic_uint dynamic_shared_limit;  /* the backend's current limit */
  struct tkrt_function_s* next;
  char name[];
};

#define TKRT_HAL_VTABLE(device) ((const tkrt_hal_device_vtable_t*)(device)->resource.vtable)

typedef enum tkrt_hal_memcpy_kind {
  TKRT_HAL_MEMCPY_HTOD = 0,
  TKRT_HAL_MEMCPY_DTOH = 1,
  TKRT_HAL_MEMCPY_DTOD = 2,
} tkrt_hal_memcpy_kind_t;

/* What a backend tells the API layer about a function it resolved. */
typedef struct tkrt_hal_function_info {
  void* handle;
  uint32_t static_shared_bytes;
  uint32_t dynamic_shared_limit; /* the function's current dynamic shared memory limit */
} tkrt_hal_function_info_t;

/* The device methods: the contract every backend implements, written once. Methods are called
 * with validated arguments: non-NULL out pointers, non-zero sizes, launch dimensions checked
 * against the device info (tkrt_hal_validate_launch) and the function's shared memory limit
 * already raised. Every method must be thread-safe (a device is shared by all threads) and writes
 * out parameters only on success.
 * - module_load: image->kind is resolved (never AUTO); a kind the backend cannot load is
 *   INVALID_ARGUMENT naming it. Never called while a stream of the device captures.
 * - function_create: resolves a kernel by entry name (unknown names: NOT_FOUND); called once per
 *   (module, name); function_destroy releases what it made, before the module is unloaded.
 * - function_attrs: fills max_threads_per_block and num_regs (the API layer fills the rest).
 * - memcpy_async: dst/src are device addresses or host pointers (cast to uint64_t) as kind says.
 * - device_synchronize: waits for all work the process queued on the device (every stream).
 * Optional methods (NULL: the backend has none):
 * - function_set_shared_limit: sets the function's dynamic shared memory limit to `bytes`, which
 *   the API layer has checked against the function's most. NULL: the backend has no such limit
 *   (the host gives each launch its shared memory), and the API layer only keeps its bookkeeping.
 * - encode_tma: encodes the tensor-map descriptor of a jaxlib TMA parameter over global memory at
 *   `base` into `out` (its size and alignment: tkrt_hal_backend_t.tma_descriptor_*); called on
 *   the launch path with a descriptor the core validated; pure host work, so legal while the
 *   stream captures. NULL: the backend has no TMA (its devices lack TKRT_DEVICE_FEATURE_TMA, so
 *   the core never asks; tkrt_hal_device_encode_tma answers UNIMPLEMENTED if asked anyway).
 *
 * The two lists below are X-macros: X(P, return type, name, parameter list), P being passed
 * through. They generate the method types (tkrt_hal_<name>_fn), the vtable, each backend's
 * prototypes (TKRT_HAL_DECLARE_METHODS(tkrt_<backend>) declares tkrt_<backend>_<name> for every
 * required method; TKRT_HAL_DECLARE_METHOD(tkrt_<backend>, name) one optional method) and its
 * vtable initialiser (TKRT_HAL_REQUIRED_ENTRIES(tkrt_<backend>), then `.name = ...` for each
 * optional method it has). A method added here is a compile error in every backend that lacks
 * it; a signature that differs from the list is one too. */
#define TKRT_HAL_REQUIRED_METHODS(X, P)                                                          \
  X(P, void, destroy, (tkrt_device_t * device))                                                  \
  X(P, tkrt_status_t, module_load,                                                               \
    (tkrt_device_t * device, const tkrt_image_t* image, void** out_module))                      \
  X(P, void, module_unload, (tkrt_device_t * device, void* module))                              \
  X(P, tkrt_status_t, function_create,                                                           \
    (tkrt_device_t * device, void* module, const char* name, tkrt_hal_function_info_t* out_info)) \
  X(P, void, function_destroy, (tkrt_device_t * device, void* function))                         \
  X(P, tkrt_status_t, function_attrs,                                                            \
    (tkrt_device_t * device, void* function, tkrt_function_attrs_t* out_attrs))                  \
  X(P, tkrt_status_t, launch,                                                                    \
    (tkrt_device_t * device, void* function, const tkrt_launch_params_t* params,                 \
     tkrt_stream_t stream))                                                                      \
  X(P, tkrt_status_t, memory_alloc,                                                              \
    (tkrt_device_t * device, size_t size, tkrt_deviceptr_t * out_ptr))                           \
  X(P, tkrt_status_t, memory_free, (tkrt_device_t * device, tkrt_deviceptr_t ptr))               \
  X(P, tkrt_status_t, host_alloc, (tkrt_device_t * device, size_t size, void** out_ptr))         \
  X(P, tkrt_status_t, host_free, (tkrt_device_t * device, void* ptr))                            \
  X(P, tkrt_status_t, memory_info,                                                               \
    (tkrt_device_t * device, size_t * out_free, size_t * out_total))                             \
  X(P, tkrt_status_t, memset_async,                                                              \
    (tkrt_device_t * device, tkrt_deviceptr_t dst, uint8_t value, size_t size,                   \
     tkrt_stream_t stream))                                                                      \
  X(P, tkrt_status_t, memcpy_async,                                                              \
    (tkrt_device_t * device, uint64_t dst, uint64_t src, size_t size,                            \
     tkrt_hal_memcpy_kind_t kind, tkrt_stream_t stream))                                         \
  X(P, tkrt_status_t, stream_create, (tkrt_device_t * device, tkrt_stream_t * out_stream))       \
  X(P, tkrt_status_t, stream_destroy, (tkrt_device_t * device, tkrt_stream_t stream))            \
  X(P, tkrt_status_t, stream_synchronize, (tkrt_device_t * device, tkrt_stream_t stream))        \
  X(P, tkrt_status_t, device_synchronize, (tkrt_device_t * device))                              \
  X(P, tkrt_status_t, stream_is_capturing,                                                       \
    (tkrt_device_t * device, tkrt_stream_t stream, bool* out_capturing))                         \
  X(P, tkrt_status_t, stream_begin_capture, (tkrt_device_t * device, tkrt_stream_t stream))      \
  X(P, tkrt_status_t, stream_end_capture,                                                        \
    (tkrt_device_t * device, tkrt_stream_t stream, void** out_graph))                            \
  X(P, tkrt_status_t, graph_launch, (tkrt_device_t * device, void* graph, tkrt_stream_t stream)) \
  X(P, tkrt_status_t, graph_destroy, (tkrt_device_t * device, void* graph))                      \
  X(P, tkrt_status_t, event_create, (tkrt_device_t * device, tkrt_event_t * out_event))          \
  X(P, tkrt_status_t, event_destroy, (tkrt_device_t * device, tkrt_event_t event))               \
  X(P, tkrt_status_t, event_record,                                                              \
    (tkrt_device_t * device, tkrt_event_t event, tkrt_stream_t stream))                          \
  X(P, tkrt_status_t, event_synchronize, (tkrt_device_t * device, tkrt_event_t event))           \
  X(P, tkrt_status_t, event_elapsed_ms,                                                          \
    (tkrt_device_t * device, tkrt_event_t start, tkrt_event_t end, float* out_ms))

#define TKRT_HAL_OPTIONAL_METHODS(X, P)                                                          \
  X(P, tkrt_status_t, function_set_shared_limit,                                                 \
    (tkrt_device_t * device, void* function, uint32_t bytes))                                    \
  X(P, tkrt_status_t, encode_tma,                                                                \
    (tkrt_device_t * device, const tkrt_tma_desc_t* desc, tkrt_deviceptr_t base, void* out))

/* tkrt_hal_<name>_fn: each method's function type. */
#define TKRT_HAL_METHOD_TYPE_(P, ret, name, params) typedef ret tkrt_hal_##name##_fn params;
TKRT_HAL_REQUIRED_METHODS(TKRT_HAL_METHOD_TYPE_, _)
TKRT_HAL_OPTIONAL_METHODS(TKRT_HAL_METHOD_TYPE_, _)

/* The vtable: the required methods, then the optional ones. */
#define TKRT_HAL_METHOD_FIELD_(P, ret, name, params) tkrt_hal_##name##_fn* name;
struct tkrt_hal_device_vtable {
  TKRT_HAL_REQUIRED_METHODS(TKRT_HAL_METHOD_FIELD_, _)
  TKRT_HAL_OPTIONAL_METHODS(TKRT_HAL_METHOD_FIELD_, _)
};

/* A backend's prototypes and vtable entries, named <P>_<method>. */
#define TKRT_HAL_METHOD_PROTOTYPE_(P, ret, name, params) tkrt_hal_##name##_fn P##_##name;
#define TKRT_HAL_METHOD_ENTRY_(P, ret, name, params) .name = P##_##name,
#define TKRT_HAL_DECLARE_METHODS(P) TKRT_HAL_REQUIRED_METHODS(TKRT_HAL_METHOD_PROTOTYPE_, P)
#define TKRT_HAL_DECLARE_METHOD(P, name) tkrt_hal_##name##_fn P##_##name;
#define TKRT_HAL_REQUIRED_ENTRIES(P) TKRT_HAL_REQUIRED_METHODS(TKRT_HAL_METHOD_ENTRY_, P)

/* `destroy` first, always: the generic release path relies on it. */
static_assert(offsetof(tkrt_hal_device_vtable_t, destroy) == 0, "destroy must come first");
static_assert(offsetof(struct tkrt_device_s, resource) == 0, "resource header must be first");

/* Checks everything about a TMA parameter that does not depend on its buffer (hal/hal_tma.c);
 * INVALID_ARGUMENT names parameter `index`. */
tkrt_status_t tkrt_hal_tma_validate(const tkrt_tma_desc_t* desc, size_t index);
/* Bytes per element of a TMA element type (CUtensorMapDataType values); 0 for one tkrt refuses. */
uint32_t tkrt_hal_tma_element_bytes(uint32_t elem_type);

/* The largest TMA descriptor any backend encodes, for callers' stack buffers. */
#define TKRT_HAL_TMA_DESC_MAX 128

/* One image kind a backend loads, and how Triton writes it. */
typedef struct tkrt_hal_image_format {
  tkrt_image_kind_t kind;       /* the public constant (also the wire's number) */
  const char* triton_extension; /* the file Triton writes beside its JSON (".cubin"); NULL: none */
  const char* triton_asm_key;   /* its key in Triton's compiled.asm ("cubin"); NULL: none */
  /* Machine code for this process (a host image): loading it runs code with the process's rights,
   * so it is loaded from a folder or a call only with consent, and a link is never followed. */
  bool native_code;
  /* Triton's output for any target may carry it (tkrt's host build writes one beside GPU
   * output); otherwise only output whose target.backend is this backend's. */
  bool any_triton_target;
} tkrt_hal_image_format_t;

/* What the formats around tkrt say of a backend, for the layers that read them (the Triton loader,
 * the wire codec, the registry's public description): pure data and pure functions, no vendor
 * library. */
typedef struct tkrt_hal_format_facts {
  /* The kinds it loads, in the order Triton's output is searched (machine code first). */
  const tkrt_hal_image_format_t* image_formats;
  size_t image_format_count;
  /* DLPack device types (DLDeviceType) of arrays its kernels can take. */
  const int32_t* dlpack_device_types;
  size_t dlpack_device_type_count;
  /* Triton: the target.backend value of its output (NULL: none), whether target.arch is an
   * integer (the compute capability, 90) rather than a string, what target.arch must be (for
   * messages), the arch name of a target (NULL: target.arch as is), and whether an image's own
   * arch agrees with target.arch (NULL: always). */
  const char* triton_target;
  bool triton_arch_is_integer;
  const char* triton_arch_expected;
  void (*triton_arch_name)(const char* triton_arch, char* out, size_t capacity);
  bool (*triton_image_matches)(const tkrt_image_info_t* info, const char* triton_arch);
  /* Whether Triton itself writes this target's output (so it carries Triton's release, which the
   * loader checks and whose launch contract it follows); false for tkrt's own (host) targets. */
  bool triton_output_versioned;
  /* jaxlib: the arch name images for `compute_capability` (major * 10 + minor, jaxlib's field)
   * are built for, e.g. "sm_90a"; "" when the backend has no such notion. NULL: none. */
  void (*arch_for_capability)(uint32_t compute_capability, char* out, size_t capacity);
} tkrt_hal_format_facts_t;

/* A backend: its descriptor is always compiled in (it needs no vendor header), so tkrt knows every
 * backend's name and image formats even in a build without its device code; `compiled` is then
 * false, `probe`, `device_create` and `native_stream_ordinal` are NULL, and the API layer answers
 * UNAVAILABLE, saying so. The registry layer above the backends (registry/registry.c) lists
 * the descriptors that CMake found in backends/. Enumerating is free; `probe` opens the vendor
 * library (once per process) and counts devices, answering UNAVAILABLE with a message that lists
 * what was tried; `device_create` probes too, then creates the device at `ordinal` with refcount 1. */
struct tkrt_hal_backend {
  const char* name;
  bool compiled; /* false: descriptor only (the CMake option was off or headers were missing) */
  tkrt_status_t (*probe)(const tkrt_device_options_t* options, int* out_device_count);
  tkrt_status_t (*device_create)(const tkrt_device_options_t* options, tkrt_device_t** out_device);
  /* How well an image fits: 0 cannot run, higher is better (machine code over PTX, say). `info`
   * NULL asks whether this backend loads the kind at all; `arch` NULL or "" means any arch of the
   * backend. Pure: no vendor library is needed. */
  int (*image_rank)(const tkrt_device_info_t* info, tkrt_image_kind_t kind, const char* arch);
  /* The ordinal of the device a native stream (CUstream, hipStream_t, a host stream) belongs to,
   * for callers that get a bare stream (XLA's legacy custom call). NOT_FOUND when this backend's
   * library is not loaded in the process or does not know the stream. */
  tkrt_status_t (*native_stream_ordinal)(void* stream, int* out_ordinal);
  uint32_t tma_descriptor_size;  /* 0: no TMA descriptors */
  uint32_t tma_descriptor_align;
  /* Why a backend without TMA descriptors has none, for the error that refuses a TMA parameter
   * (a sentence after "parameter N is a TMA descriptor, which "); NULL: the generic reason
   * (its devices lack TKRT_DEVICE_FEATURE_TMA). */
  const char* tma_unsupported;
  const char* const* aliases; /* other names backend lists accept ("cpu"); NULL-terminated */
  /* Runs on streams that others made (XLA's, PyTorch's): the backends named by the group alias
   * "gpu" and the default of tkrt_native_stream_ordinal. */
  bool foreign_streams;
  /* Parses one of its parameters ({key, value}, key without the "<name>." prefix) into
   * `options` (the fields of tkrt_device_options_t it reads). INVALID_ARGUMENT for a key it does
   * not know or a bad value, naming both. NULL: the backend takes no parameters. */
  tkrt_status_t (*parse_param)(const char* key, const char* value, tkrt_device_options_t* options);
  /* What Triton's output, DLPack and jaxlib's fields say of it. */
  tkrt_hal_format_facts_t formats;
};

/* Initialises the common device header; the backend fills device->info afterwards. */
void tkrt_hal_device_initialize(tkrt_device_t* device, const tkrt_hal_backend_t* backend,
                                const tkrt_hal_device_vtable_t* vtable, int ordinal);

/* Checks launch dims against the device's limits (zero or oversized grid, block, cluster shape
 * and divisibility, shared memory over the opt-in limit). Each failure names the dimension. */
tkrt_status_t tkrt_hal_validate_launch(const tkrt_device_info_t* info,
                                       const tkrt_launch_params_t* params);

/* tkrt_module_load for an image that the application did not hand over itself (one decoded from
 * a serialized call): a host image, which is native code, is refused with PERMISSION_DENIED
 * (saying how to allow it) unless the device was opened with allow_native_code_from_calls. */
/* One more holder of a loaded module (released by tkrt_module_unload): for calls that share the
 * modules of another call of the same kernels (tkrt_call_prepare_sharing). */
void tkrt_hal_module_retain(tkrt_module_t* module);

tkrt_status_t tkrt_hal_module_load_from_call(tkrt_device_t* device, const tkrt_image_t* image,
                                             tkrt_module_t** out_module);

/* Raises the function's dynamic shared memory limit for a launch that needs `bytes` (the slow
 * path of tkrt_hal_function_launch): OUT_OF_RANGE when the function may not have that much. */
tkrt_status_t tkrt_hal_function_raise_shared(tkrt_function_t* function, uint32_t bytes);

/* The launch fast path (arguments validated): raises the shared memory limit when needed, then
 * one dispatch. */
static inline tkrt_status_t tkrt_hal_function_launch(tkrt_function_t* function,
                                                     const tkrt_launch_params_t* params,
                                                     tkrt_stream_t stream) {
  if (params->shared_mem_bytes >
      atomic_load_explicit(&function->dynamic_shared_limit, memory_order_relaxed)) {
    TKRT_RETURN_IF_ERROR(tkrt_hal_function_raise_shared(function, params->shared_mem_bytes));
  }
  tkrt_device_t* device = function->module->device;
  return TKRT_HAL_VTABLE(device)->launch(device, function->handle, params, stream);
}

/* The ways the core reaches a device beyond the public API (it never reads device->backend or
 * the vtable itself). */
static inline const char* tkrt_hal_device_backend_name(const tkrt_device_t* device) {
  return device->backend->name;
}

/* How well an image of `kind` for `arch` fits the device (tkrt_hal_backend_t.image_rank). */
static inline int tkrt_hal_device_image_rank(const tkrt_device_t* device, tkrt_image_kind_t kind,
                                             const char* arch) {
  return device->backend->image_rank(&device->info, kind, arch);
}

/* The size and alignment of the device's TMA descriptors (0 when it has none). */
static inline uint32_t tkrt_hal_device_tma_size(const tkrt_device_t* device) {
  return device->backend->tma_descriptor_size;
}
static inline uint32_t tkrt_hal_device_tma_align(const tkrt_device_t* device) {
  return device->backend->tma_descriptor_align;
}

/* Why the device's backend builds no TMA descriptors (tkrt_hal_backend_t.tma_unsupported), or
 * NULL. */
static inline const char* tkrt_hal_device_tma_unsupported(const tkrt_device_t* device) {
  return device->backend->tma_unsupported;
}

/* Encodes a TMA descriptor (see encode_tma above); UNIMPLEMENTED on a backend without TMA. */
static inline tkrt_status_t tkrt_hal_device_encode_tma(tkrt_device_t* device,
                                                       const tkrt_tma_desc_t* desc,
                                                       tkrt_deviceptr_t base, void* out) {
  const tkrt_hal_device_vtable_t* vtable = TKRT_HAL_VTABLE(device);
  if (!vtable->encode_tma) {
    const char* reason = device->backend->tma_unsupported;
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                            "the %s backend (device %d, %s) cannot build TMA descriptors%s%s",
                            device->backend->name, device->info.ordinal, device->info.arch,
                            reason ? ": " : "", reason ? reason : "");
  }
  return vtable->encode_tma(device, desc, base, out);
}

#ifdef __cplusplus
}
#endif

#endif /* TKRT_HAL_HAL_H_ */
