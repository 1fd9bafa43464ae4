/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: backends, devices, modules, functions, memory, streams, events and launches.
 * A thin, checked layer over the device HAL; every backend (cuda, hip, host) offers the same API.
 *
 * Threads: every function here may be called from any thread at any time on shared objects, with
 * two exceptions the caller serialises: destroying an object (device release to zero, module
 * unload, stream/event/graph destroy) while another thread uses it, and capturing a stream while
 * another thread enqueues work on that same stream. A device is shared by all threads; launches
 * take no lock. tkrt reads no environment variable (see tkrt/environment.h for the one function
 * that does, for tools). */
#ifndef TKRT_DEVICE_H_
#define TKRT_DEVICE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/api.h"
#include "tkrt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A device address. CUDA: a CUdeviceptr; HIP: a device pointer; host: a host pointer. */
typedef uint64_t tkrt_deviceptr_t;

typedef struct tkrt_device_s tkrt_device_t;
typedef struct tkrt_module_s tkrt_module_t;
typedef struct tkrt_function_s tkrt_function_t;
typedef struct tkrt_graph_s tkrt_graph_t;
/* Streams and events are the backend's native handles (CUstream / hipStream_t / a host stream),
 * so a stream handed over by a framework (XLA) is used as is. NULL is the default stream. */
typedef struct tkrt_stream_s* tkrt_stream_t;
typedef struct tkrt_event_s* tkrt_event_t;

/* ---------------------------------------------------------------- backends */

#define TKRT_BACKEND_NAME_MAX 16
#define TKRT_REASON_MAX 768

typedef struct tkrt_backend_info {
  size_t struct_size;                /* written by tkrt: the size of the struct it filled */
  char name[TKRT_BACKEND_NAME_MAX]; /* "cuda", "hip", "host" */
  bool available;                    /* probed: vendor library and at least one device present */
  int device_count;                  /* 0 when unavailable */
  char reason[TKRT_REASON_MAX];      /* why unavailable, or a one-line summary when available */
} tkrt_backend_info_t;

typedef struct tkrt_device_options tkrt_device_options_t;

/* Lists every backend tkrt knows in default selection order (cuda, hip, host), probing each with
 * default options; one not compiled into this build is listed unavailable, saying so. Writes
 * min(count, capacity) entries and the total into *out_count. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_backend_list(tkrt_backend_info_t* infos,
                                                       size_t capacity, size_t* out_count);
/* The same, probing with `options` (the HIP library to open, ...), in the order its `backend`
 * list gives when set (backends it does not name follow, in default order). An unknown name in
 * the list is INVALID_ARGUMENT. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_backend_list_with_options(
    const tkrt_device_options_t* options, tkrt_backend_info_t* infos, size_t capacity,
    size_t* out_count);

/* Backend names. Lists of backends (tkrt_device_options.backend, TKRT_BACKEND, the CLI's
 * --backend, Python's device names) take each backend's name, its aliases (host: "cpu", hip:
 * "rocm"), and the group "gpu": every backend that runs on streams others made (cuda, hip; never
 * the host), in default order. */

/* Resolves a backend name or comma list (aliases and "gpu" expanded) into the backends' own names
 * as a comma list ("gpu" -> "cuda,hip"); INVALID_ARGUMENT naming an unknown name. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_backend_resolve(const char* names, char* out,
                                                          size_t capacity);

#define TKRT_BACKEND_DLPACK_TYPES_MAX 8

/* What a backend is, as its own descriptor says (no probe, no vendor library). */
typedef struct tkrt_backend_description {
  size_t struct_size;                        /* set by the caller (tkrt writes what fits) */
  char name[TKRT_BACKEND_NAME_MAX];          /* its own name, for an alias too */
  char triton_target[TKRT_BACKEND_NAME_MAX]; /* Triton's target.backend for it; "" when none */
  bool foreign_streams; /* runs on streams others made (member of the "gpu" group) */
  uint32_t image_kinds; /* bit (1u << kind) for each tkrt_image_kind_t it loads */
  /* Of those, the kinds that are machine code for this process (loaded only with consent) */
  uint32_t native_code_kinds;
  /* DLPack device types (DLDeviceType) of the arrays its kernels take */
  uint32_t dlpack_device_type_count;
  int32_t dlpack_device_types[TKRT_BACKEND_DLPACK_TYPES_MAX];
} tkrt_backend_description_t;

/* Describes the backend `name` (a name or an alias; not a group). NOT_FOUND for an unknown name,
 * listing the known ones. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_backend_describe(const char* name,
                                                           tkrt_backend_description_t* out);

/* Every name a list of backends takes, as a comma list: the backends' own names in default order,
 * then their aliases, then the group "gpu" ("cuda,hip,host,rocm,cpu,gpu"); for callers that take
 * one name and say which they know. INVALID_ARGUMENT, saying the bytes needed, when it does not
 * fit in `capacity`. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_backend_names(char* out, size_t capacity);

/* The ordinal of the device a native stream (CUstream, hipStream_t) belongs to, asked of each
 * backend of `backends` (a name or comma list; NULL: "gpu", the backends that run on streams
 * others made) in turn; for callers handed a bare stream, like XLA's legacy custom call.
 * NOT_FOUND when none recognises it. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_native_stream_ordinal(const char* backends,
                                                                tkrt_stream_t stream,
                                                                int* out_ordinal);

/* ---------------------------------------------------------------- devices */

enum {
  TKRT_DEVICE_FEATURE_CLUSTER = 1u << 0,     /* thread-block clusters (num_ctas > 1) */
  TKRT_DEVICE_FEATURE_COOPERATIVE = 1u << 1, /* cooperative launches */
  TKRT_DEVICE_FEATURE_PDL = 1u << 2,         /* programmatic dependent launch */
  TKRT_DEVICE_FEATURE_TMA = 1u << 3,         /* tensor-map (TMA) descriptor encoding */
  TKRT_DEVICE_FEATURE_GRAPHS = 1u << 4,      /* stream capture into graphs */
};

typedef struct tkrt_device_info {
  size_t struct_size;
  char backend[TKRT_BACKEND_NAME_MAX];
  char name[256];         /* marketing name, e.g. "NVIDIA H100 80GB HBM3" */
  char arch[64];          /* "sm_90", "gfx942", "x86_64"; "" when the backend cannot tell (HIP,
                             if the device properties cannot be read safely) */
  int ordinal;
  int cc_major, cc_minor; /* compute capability (CUDA); gfx major/minor (HIP); 0 on host */
  uint32_t warp_size;
  uint32_t sm_count;      /* multiprocessors / compute units / host worker threads */
  uint32_t max_threads_per_block;
  uint32_t max_block_dim[3];
  uint32_t max_grid_dim[3];
  uint32_t max_shared_per_block;       /* default dynamic + static shared memory limit */
  uint32_t max_shared_per_block_optin; /* limit after opting in (>= max_shared_per_block) */
  uint32_t max_cluster_size;           /* 0 when clusters are unsupported */
  uint64_t total_memory;
  int driver_version;                  /* CUDA: cuDriverGetVersion; HIP: hipDriverGetVersion */
  uint32_t features;                   /* TKRT_DEVICE_FEATURE_* */
} tkrt_device_info_t;

struct tkrt_device_options {
  size_t struct_size;
  /* A backend name ("cuda", "hip", "host"), a comma list tried in order, or NULL/"" for the
   * default order cuda,hip,host. */
  const char* backend;
  int ordinal; /* device index within the backend */
  /* host: worker threads running a launch's programs, 1 to 256; 0: one per online CPU. */
  uint32_t host_threads;
  /* cuda: the folder of the on-disk cache of cubins JIT-compiled from PTX; NULL, "" or "off": no
   * cache (tkrt_options_from_environment picks $TKRT_CACHE_DIR/cubin or ~/.cache/tkrt/cubin). */
  const char* cache_dir;
  /* cuda: trust cache entries (and folders) that another user owns or can write. Default false:
   * such entries are ignored (and not removed), since anyone who can write them could make tkrt
   * launch their code. Symbolic links and non-regular files are never trusted. See
   * docs/security.md. */
  bool trust_shared_cache;
  /* hip: the runtime library to open, a path or soname, or a ':' list tried in order; NULL: the
   * usual sonames (libamdhip64.so.7, .6, .5, .so). The first device opened in a process decides
   * which library the process uses. */
  const char* hip_library;
  /* Kept for compatibility: true raises the process's log level (tkrt/log.h) to debug when the
   * device opens, so every backend event (library loads, PTX JIT and cache use) is logged; false
   * leaves the level alone. Set the level with tkrt_log_set_level or TKRT_LOG instead. */
  bool log;
  /* Whether host images that come from a serialized call (tkrt_wire_decode; every kernel image
   * whose origin is not TKRT_IMAGE_ORIGIN_API) may be loaded on this device. A host image is
   * native code: loading it runs its constructors in this process, with this process's rights.
   * Default false: launching or preparing such a call is PERMISSION_DENIED, before anything is
   * loaded. Images the application loads itself (tkrt_module_load, or kernels it builds with
   * tkrt_kernel_create) are always allowed. See docs/security.md. */
  bool allow_native_code_from_calls;
  /* Backend parameters, {key, value} pairs whose key is "<backend>.<name>", each parsed by its
   * backend: cuda.cache_dir, cuda.trust_shared_cache (0 or 1), hip.library, host.threads. They
   * override the backend fields above, which are kept for compatibility and mean the same
   * (host_threads is host.threads, cache_dir cuda.cache_dir, trust_shared_cache
   * cuda.trust_shared_cache, hip_library hip.library). A key naming no backend, or a name its
   * backend does not take, is INVALID_ARGUMENT. The strings are read while the call runs. */
  const struct tkrt_device_param* params;
  size_t param_count;
};

typedef struct tkrt_device_param {
  const char* key;   /* "host.threads" */
  const char* value; /* "8" */
} tkrt_device_param_t;

TKRT_API void tkrt_device_options_init(tkrt_device_options_t* options);

/* Opens a device (NULL options: defaults). When no listed backend can open the device:
 * UNAVAILABLE, with every backend tried and why it failed. An unknown backend name is
 * INVALID_ARGUMENT. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_device_open(const tkrt_device_options_t* options,
                                                      tkrt_device_t** out_device);
TKRT_API void tkrt_device_retain(tkrt_device_t* device);
/* Drops a reference; the last one destroys the device. Modules hold a reference. */
TKRT_API void tkrt_device_release(tkrt_device_t* device);
/* Lent; valid for the device's lifetime. */
TKRT_API const tkrt_device_info_t* tkrt_device_info(const tkrt_device_t* device);
TKRT_API const char* tkrt_device_backend_name(const tkrt_device_t* device);

/* ---------------------------------------------------------------- modules and functions */

typedef enum tkrt_image_kind {
  TKRT_IMAGE_AUTO = 0, /* detect from the bytes */
  TKRT_IMAGE_PTX = 1,
  TKRT_IMAGE_CUBIN = 2,
  TKRT_IMAGE_FATBIN = 3,
  TKRT_IMAGE_HSACO = 4,
  TKRT_IMAGE_HOST = 5, /* a native shared object holding tkrt host kernels */
} tkrt_image_kind_t;

typedef struct tkrt_image {
  size_t struct_size; /* 0 or sizeof(tkrt_image_t) */
  tkrt_image_kind_t kind;
  const void* data; /* PTX need not be NUL-terminated */
  size_t size;
} tkrt_image_t;

/* "ptx", "cubin", "fatbin", "hsaco", "host" ("auto" for TKRT_IMAGE_AUTO; "unknown" otherwise). */
TKRT_API const char* tkrt_image_kind_name(tkrt_image_kind_t kind);
/* The kind of a name tkrt_image_kind_name gives (not "auto" or "unknown"); INVALID_ARGUMENT
 * naming it and listing the kinds otherwise. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_image_kind_from_name(const char* name,
                                                               tkrt_image_kind_t* out_kind);

/* Where Triton's output keeps images of `kind`, as the backend that loads the kind says: its key
 * in a CompiledKernel's `asm` ("cubin"; NULL: Triton's asm has none) and the file Triton writes
 * beside the JSON (".cubin"; NULL: none). Static strings. NOT_FOUND when no backend loads the
 * kind. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_image_kind_triton_files(tkrt_image_kind_t kind,
                                                                  const char** out_asm_key,
                                                                  const char** out_extension);

/* Loads a module image onto the device. The bytes are copied or consumed before returning.
 * Not allowed while any stream of the device captures on GPU backends (the driver forbids it). */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_module_load(tkrt_device_t* device, const tkrt_image_t* image,
                                        tkrt_module_t** out_module);
/* Unloads the module; its functions become invalid. */
TKRT_API void tkrt_module_unload(tkrt_module_t* module);

/* Looks a kernel up by its entry name. The function is lent: valid until the module is unloaded.
 * Unknown names are NOT_FOUND. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_module_get_function(tkrt_module_t* module, const char* name,
                                                tkrt_function_t** out_function);

typedef struct tkrt_function_attrs {
  uint32_t static_shared_bytes;
  uint32_t max_threads_per_block;
  uint32_t num_regs;
  uint32_t max_dynamic_shared_bytes; /* the current dynamic shared memory limit */
} tkrt_function_attrs_t;

TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_function_get_attrs(tkrt_function_t* function,
                                               tkrt_function_attrs_t* out_attrs);
/* Raises (or lowers) the function's dynamic shared memory limit. More than the device opt-in
 * limit minus the function's static shared memory is OUT_OF_RANGE naming both numbers. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_function_set_max_dynamic_shared(tkrt_function_t* function,
                                                            uint32_t bytes);
TKRT_API const char* tkrt_function_name(const tkrt_function_t* function);
TKRT_API tkrt_device_t* tkrt_function_device(const tkrt_function_t* function);

/* ---------------------------------------------------------------- launches */

enum {
  TKRT_LAUNCH_COOPERATIVE = 1u << 0,
  TKRT_LAUNCH_PDL = 1u << 1,            /* programmatic stream serialization */
  TKRT_LAUNCH_CLUSTER_SPREAD = 1u << 2, /* spread clusters over the device (jaxlib's choice) */
};

typedef struct tkrt_launch_params {
  size_t struct_size;  /* 0 or sizeof(tkrt_launch_params_t) */
  uint32_t grid[3];    /* in blocks (already multiplied by the cluster size) */
  uint32_t block[3];   /* threads */
  uint32_t cluster[3]; /* {0,0,0} or {1,1,1}: no cluster */
  uint32_t shared_mem_bytes; /* dynamic shared memory */
  uint32_t flags;            /* TKRT_LAUNCH_* */
  /* Kernel parameters, CUDA style: params[i] points at the value of parameter i. Values are
   * copied at launch; extra trailing parameters beyond what the kernel declares are ignored. */
  void** params;
  uint32_t param_count;
} tkrt_launch_params_t;

/* Enqueues a launch. A zero grid dimension is INVALID_ARGUMENT (callers skip empty grids);
 * grid, block, cluster and shared memory are checked against the device limits, and the
 * function's dynamic shared memory limit is raised when the launch needs more. The parameters are
 * exactly the kernel's: a Triton kernel launched here directly must be given its two hidden
 * trailing pointers (global scratch, profile scratch; NULL or a device allocation) itself, which
 * tkrt_call_launch adds on its own. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_launch(tkrt_function_t* function, const tkrt_launch_params_t* params,
                                   tkrt_stream_t stream);

/* ---------------------------------------------------------------- memory */

TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_memory_alloc(tkrt_device_t* device, size_t size,
                                         tkrt_deviceptr_t* out_ptr);
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_memory_free(tkrt_device_t* device, tkrt_deviceptr_t ptr);
/* Page-locked host memory, usable for asynchronous copies. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_host_alloc(tkrt_device_t* device, size_t size, void** out_ptr);
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_host_free(tkrt_device_t* device, void* ptr);

TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_memset_async(tkrt_device_t* device, tkrt_deviceptr_t dst,
                                         uint8_t value, size_t size, tkrt_stream_t stream);
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_memcpy_htod_async(tkrt_device_t* device, tkrt_deviceptr_t dst,
                                              const void* src, size_t size, tkrt_stream_t stream);
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_memcpy_dtoh_async(tkrt_device_t* device, void* dst,
                                              tkrt_deviceptr_t src, size_t size,
                                              tkrt_stream_t stream);
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_memcpy_dtod_async(tkrt_device_t* device, tkrt_deviceptr_t dst,
                                              tkrt_deviceptr_t src, size_t size,
                                              tkrt_stream_t stream);
/* Free and total device memory in bytes. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_memory_info(tkrt_device_t* device, size_t* out_free,
                                        size_t* out_total);

/* ---------------------------------------------------------------- streams, graphs, events */

TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_stream_create(tkrt_device_t* device, tkrt_stream_t* out_stream);
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_stream_destroy(tkrt_device_t* device, tkrt_stream_t stream);
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_stream_synchronize(tkrt_device_t* device, tkrt_stream_t stream);
/* Waits for all work queued on the device, on every stream (also streams others made, which a
 * stream synchronize of the default stream does not cover): cuCtxSynchronize,
 * hipDeviceSynchronize, every host stream. For freeing what queued work may still use. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_device_synchronize(tkrt_device_t* device);
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_stream_is_capturing(tkrt_device_t* device, tkrt_stream_t stream,
                                                bool* out_capturing);
/* Stream capture into a graph (CUDA graphs, HIP graphs, host graphs). Work enqueued on a capturing
 * stream is recorded, not run; tkrt_graph_launch replays it. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_stream_begin_capture(tkrt_device_t* device, tkrt_stream_t stream);
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_stream_end_capture(tkrt_device_t* device, tkrt_stream_t stream,
                                               tkrt_graph_t** out_graph);
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_graph_launch(tkrt_device_t* device, tkrt_graph_t* graph,
                                         tkrt_stream_t stream);
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_graph_destroy(tkrt_device_t* device, tkrt_graph_t* graph);

TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_event_create(tkrt_device_t* device, tkrt_event_t* out_event);
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_event_destroy(tkrt_device_t* device, tkrt_event_t event);
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_event_record(tkrt_device_t* device, tkrt_event_t event,
                                         tkrt_stream_t stream);
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_event_synchronize(tkrt_device_t* device, tkrt_event_t event);
/* Milliseconds between two recorded, completed events. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_event_elapsed_ms(tkrt_device_t* device, tkrt_event_t start,
                                             tkrt_event_t end, float* out_ms);

#ifdef __cplusplus
}
#endif

#endif /* TKRT_DEVICE_H_ */
