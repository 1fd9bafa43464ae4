/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt runtime: the object a frontend holds (XLA targets, Python, the CLI, an embedder): settings,
 * devices by (backend, ordinal), the tuner and its decision store, the blob-to-call cache, and one
 * launch for every frontend. docs/runtime.md has the model and the data flow. */
#ifndef TKRT_RUNTIME_H_
#define TKRT_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#include "tkrt/api.h"
#include "tkrt/autotune.h"
#include "tkrt/call.h"
#include "tkrt/device.h"
#include "tkrt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A runtime: reference counted, safe to use from any number of threads. Everything on the launch
 * path (device lookup, blob lookup on an address hit, state query, launch) takes no lock and
 * allocates nothing; first uses (opening a device, decoding a blob, creating the tuner) do. */
typedef struct tkrt_runtime_s tkrt_runtime_t;

/* ---------------------------------------------------------------- creating */

typedef struct tkrt_runtime_options {
  size_t struct_size;
  /* Device options for every device the runtime opens (ordinal is set per device). backend: the
   * backends a lookup without a backend name tries, in order ("cuda,hip", "host", NULL: every
   * compiled backend). Strings are copied. */
  tkrt_device_options_t device;
  /* The tuner's options (store_dir, pins, policy, capture_policy, ...). Strings are copied. */
  tkrt_autotuner_options_t tuner;
  /* Nonzero: `device` and `tuner` are ignored and filled instead from their _init defaults and
   * the TKRT_* variables (tkrt_options_from_environment, tkrt/environment.h). A variable tkrt
   * cannot use is an error of tkrt_runtime_create; the default instance keeps the reason and
   * answers it from every device it would open. */
  int read_environment;
} tkrt_runtime_options_t;

/* Fills defaults: the options' own _init defaults, read_environment 0. */
TKRT_API void tkrt_runtime_options_init(tkrt_runtime_options_t* options);

/* A new runtime with its own devices, tuner and caches (nothing is shared with other runtimes:
 * a call prepared through one is prepared again through another's devices). */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_runtime_create(const tkrt_runtime_options_t* options,
                                                          tkrt_runtime_t** out_runtime);
TKRT_API void tkrt_runtime_retain(tkrt_runtime_t* runtime);
/* The last release frees the devices, tuner and cached calls: no launch may be in flight on the
 * host side, and the caller must have synchronised the streams that kernels still run on. */
TKRT_API void tkrt_runtime_release(tkrt_runtime_t* runtime);

/* The process's default runtime, created on first use (call_once) from the environment
 * (read_environment set, every compiled backend; its tuner's capture_policy is first_config, the
 * settings table's default; libtkrt_xla applies TKRT_XLA_CAPTURE_POLICY when it reads its own
 * settings). Lent: never released,
 * lives until exit. NULL only when out of memory; a bad environment variable makes its device
 * lookups fail with the reason (see tkrt_runtime_device). It is the process's one: libtkrt_xla's
 * XLA targets, tkrt.triton and the C API share its devices, tuner, decisions and settings (the
 * targets open devices from their own backend list, TKRT_XLA_BACKEND). */
TKRT_API tkrt_runtime_t* tkrt_runtime_default(void);

/* ---------------------------------------------------------------- settings */

/* Sets one setting by name, before the runtime's settings are frozen (frozen by the first device
 * it opens or its tuner's creation: then FAILED_PRECONDITION, and nothing changes). NULL or ""
 * restores the default. The names and their values are the settings table's rows of scope
 * runtime (tkrt/settings.h, docs/settings.md): backend, host_threads, cache_dir, hip_library,
 * log (the process's level, at once; never frozen), tune_dir, tune_policy, tune_pin,
 * tune_prune_margin, target_ms, max_iterations, tune_require_complete, trust_shared_stores,
 * capture_policy (unset: the tuner's default, error). An unknown name or a value it does not
 * take is INVALID_ARGUMENT naming both. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_runtime_configure(tkrt_runtime_t* runtime, const char* name,
                                                             const char* value);

/* Replaces the device and tuner options (copies them) while the settings are not frozen; else
 * FAILED_PRECONDITION. For frontends whose own settings are structs (libtkrt_xla). */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_runtime_set_options(tkrt_runtime_t* runtime,
                                                              const tkrt_device_options_t* device,
                                                              const tkrt_autotuner_options_t* tuner);
/* Copies the device and tuner options the runtime has now (either pointer may be NULL). Their
 * strings point into the runtime: valid while it lives and its settings do not change. With
 * tkrt_runtime_set_options, for fields no setting names (libtkrt_xla's decision exchange). */
TKRT_API void tkrt_runtime_get_options(tkrt_runtime_t* runtime, tkrt_device_options_t* device,
                                       tkrt_autotuner_options_t* tuner);

/* ---------------------------------------------------------------- devices */

/* The runtime's device for (backend, ordinal), opened on first use (that freezes the settings).
 * backend NULL: the settings' backend list, the first that has the ordinal; the device is then
 * also the one for its backend's name, so the same device never has two handles in one runtime.
 * Lent: valid while the runtime lives. Ordinals 0..TKRT_RUNTIME_MAX_ORDINALS-1. */
#define TKRT_RUNTIME_MAX_ORDINALS 64
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_runtime_device(tkrt_runtime_t* runtime, const char* backend,
                                                         int ordinal, tkrt_device_t** out_device);
/* The device if it is already open, else NULL (no lock, no opening: the launch path's lookup). */
TKRT_API tkrt_device_t* tkrt_runtime_device_find(const tkrt_runtime_t* runtime, const char* backend,
                                                 int ordinal);
/* The device a native stream belongs to, asked of `backend` (a name or list; NULL: the settings'
 * backend list), as tkrt_runtime_device opens it. The answer for the last stream is kept per
 * thread (streams do not move), matched by the handle, the runtime and the `backend` pointer
 * alone, with no driver query (the XLA legacy target asks on every launch): while the runtime
 * lives, a native stream handle must not be reused on another device, so a stream destroyed and
 * a new one created on another device whose handle has the same address (a driver may hand it
 * out again) would be answered with the old device. Where streams are destroyed and made
 * again across devices, pass the ordinal to tkrt_runtime_device instead. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_runtime_device_for_stream(tkrt_runtime_t* runtime,
                                                                    const char* backend,
                                                                    tkrt_stream_t stream,
                                                                    tkrt_device_t** out_device);

/* The runtime's tuner (created on first use from the settings; that freezes them). Lent. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_runtime_tuner(tkrt_runtime_t* runtime,
                                                        tkrt_autotuner_t** out_tuner);

/* ---------------------------------------------------------------- calls from blobs */

/* A call the runtime keeps: decoded from a blob once, or adopted. Immutable, lent, alive as long
 * as the runtime (launches and XLA call-site states point at it). */
typedef struct tkrt_runtime_call {
  tkrt_call_t* call;
  const char* label;        /* the call's name, else its autotune name, else its kernel's name */
  int autotuned;            /* several configs: the tuner decides */
  size_t array_params;      /* most buffer-taking parameters (ARRAY, TMA) of any config */
  /* Buffers a launch with TKRT_CALL_LAUNCH_ALIASES_BY_INDEX reads: array_params, and every
   * buffer an alias record names (records are checked below TKRT_RUNTIME_MAX_ALIAS_INDEX). */
  size_t indexed_buffers;
} tkrt_runtime_call_t;

#define TKRT_RUNTIME_MAX_ALIAS_INDEX 65536

/* The call for these exact bytes (a zlib-compressed TritonAnyKernelCall, as jaxlib's custom calls
 * carry), decoded on first sight. A second lookup with the same address and size skips hashing:
 * the bytes are compared with the cached copy in full (a different blob written at a reused
 * address is looked up afresh). Lock-free; concurrent first sights may both decode, one wins. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_runtime_call_from_blob(tkrt_runtime_t* runtime,
                                                                 const void* bytes, size_t size,
                                                                 const tkrt_runtime_call_t** out_call);
/* Wraps a call the caller made (retained; released with the runtime). A new wrapper each time. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_runtime_call_adopt(tkrt_runtime_t* runtime, tkrt_call_t* call,
                                                             const tkrt_runtime_call_t** out_call);

/* ---------------------------------------------------------------- state, prepare, launch */

/* TKRT_CALL_STATE_* bits of the call on the device, judged with the runtime's tuner (see
 * tkrt_call_state). Lock-free: one acquire load and a compare for a prepared call. */
TKRT_API uint32_t tkrt_runtime_call_state(const tkrt_runtime_t* runtime, const tkrt_call_t* call,
                                          const tkrt_device_t* device, size_t* out_config);

/* Loads the call on the device unless the stream is capturing (loading would break the capture;
 * the first launch outside a capture then does it). *out_prepared (optional): whether the call is
 * prepared on return. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_runtime_prepare(tkrt_runtime_t* runtime, tkrt_call_t* call,
                                                          tkrt_device_t* device, tkrt_stream_t stream,
                                                          int* out_prepared);

/* Launches `call` with the runtime's tuner deciding an autotuned call (tkrt_call_launch
 * underneath, with the same arguments: args->tuner NULL means the runtime's; a tuner given there
 * decides instead). XLA's legacy target, whose buffers are bare pointers, sets
 * TKRT_CALL_LAUNCH_ALIASES_BY_INDEX in args->flags (it then passes every buffer up to
 * tkrt_runtime_call_t.indexed_buffers). Once the call is prepared and decided on the device it
 * takes no lock and allocates nothing for the usual parameter counts. Everything is validated
 * before anything is enqueued. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_runtime_launch(tkrt_runtime_t* runtime, tkrt_call_t* call,
                                                         const tkrt_call_launch_args_t* args);

/* ---------------------------------------------------------------- counters */

typedef struct tkrt_runtime_stats {
  size_t struct_size;
  uint64_t devices_opened;
  uint64_t blobs_decoded;  /* blob-cache misses that decoded */
  uint64_t cache_entries;  /* distinct blobs cached */
  uint64_t blob_hashes;    /* lookups that hashed the whole blob (address-table misses) */
} tkrt_runtime_stats_t;

/* Fills *stats (struct_size must be set; fields beyond it are not written). */
TKRT_API void tkrt_runtime_get_stats(const tkrt_runtime_t* runtime, tkrt_runtime_stats_t* stats);

#ifdef __cplusplus
}
#endif

#endif /* TKRT_RUNTIME_H_ */
