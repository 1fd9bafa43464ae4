/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt xla: the XLA custom-call targets of libtkrt_xla.so, wire-compatible with jaxlib's
 * `triton_kernel_call_ffi` (typed FFI, api_version 4) and `triton_kernel_call` (legacy,
 * api_version 2). The Python package `tkrt` registers them with JAX; docs/xla.md has the stages,
 * the device and decode caches and the autotuning policy. */
#ifndef TKRT_XLA_H_
#define TKRT_XLA_H_

#include <stddef.h>
#include <stdint.h>

#include "xla/xla_ffi_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TKRT_XLA_EXPORT __attribute__((visibility("default")))

/* Typed-FFI stage handlers. Register them as one bundle (jax.ffi.register_ffi_target with a dict
 * {"instantiate", "initialize", "execute"}, api_version=1). Each also answers XLA's metadata
 * query (FFI API 0.4, COMMAND_BUFFER_COMPATIBLE). Attribute `opaque` (string) is required; other
 * attributes are ignored. */
TKRT_XLA_EXPORT tkrt_ffi_error_t* tkrt_xla_ffi_instantiate(tkrt_ffi_call_frame_t* frame);
TKRT_XLA_EXPORT tkrt_ffi_error_t* tkrt_xla_ffi_initialize(tkrt_ffi_call_frame_t* frame);
TKRT_XLA_EXPORT tkrt_ffi_error_t* tkrt_xla_ffi_execute(tkrt_ffi_call_frame_t* frame);

/* The legacy status-returning custom call (API_VERSION_STATUS_RETURNING): the backend config is
 * the opaque blob. `status` is XLA's XlaCustomCallStatus*. Register with api_version=0. */
TKRT_XLA_EXPORT void tkrt_xla_legacy_call(void* stream, void** buffers, const char* opaque,
                                          size_t opaque_len, void* status);

/* Counters for tests and diagnostics; monotonic since the library was loaded. */
typedef struct tkrt_xla_stats {
  size_t struct_size;
  uint64_t instantiated;       /* FFI call sites instantiated */
  uint64_t initialized;        /* FFI initialize calls */
  uint64_t executed;           /* FFI execute calls that launched */
  uint64_t executed_captured;  /* ... of which while the stream was capturing (counted only with
                                  the count_captures setting: a driver query per execute) */
  uint64_t legacy_executed;    /* legacy calls that launched */
  uint64_t decoded;            /* blobs decoded (decode-cache misses) */
  uint64_t cache_entries;      /* distinct blobs in the decode cache */
  uint64_t tuned_in_execute;   /* autotuned launches that decided outside capture */
  uint64_t capture_fallbacks;  /* autotuned launches under capture with no decision: config 0 */
  uint64_t errors;             /* calls that returned an error to XLA */
  uint64_t devices_opened;
  uint64_t legacy_status_fallback; /* 1 when XlaCustomCallStatusSetFailure was not found */
  /* Autotuned calls (per device) that run their first runnable config untuned because an input
   * they update in place has an unknown size (it could not be saved and restored around the
   * configs): a legacy call whose alias record gives no size. */
  uint64_t unknown_size_fallbacks;
  /* Blob lookups that hashed the whole blob: the first sight of a blob, FFI call sites that XLA
   * ran no instantiate stage for, and legacy call sites whose address missed the pointer table
   * (each call site should miss once). */
  uint64_t blob_hashes;
  /* FFI initialize calls that prepared the call on the device (loaded its modules, or found
   * them loaded by another call site): once per distinct call and device when all goes well.
   * The other initialize calls find the call prepared and return at once. */
  uint64_t prepared;
} tkrt_xla_stats_t;

/* Fills *stats (struct_size must be set; fields beyond it are not written). */
TKRT_XLA_EXPORT void tkrt_xla_get_stats(tkrt_xla_stats_t* stats);

/* Sets one of the adapter's settings before its first use (later: FAILED_PRECONDITION, 9): the
 * settings of scope "xla" in tkrt's settings table (docs/settings.md, tkrt/settings.h), with the
 * words and checks their variables have. Names: backend (default gpu: cuda then hip), cache_dir,
 * hip_library, log (off|error|warn|info|debug: sets the process's log level at once,
 * tkrt/log.h), tune_dir, tune_pin, tune_policy (auto|never), tune_prune_margin, capture_policy
 * (first_config|error), count_captures (on|off: count executed_captured, a driver query per FFI
 * execute); words in any case; NULL or "" restores the default. Unset settings come from the
 * environment (TKRT_* variables, see tkrt/environment.h, and TKRT_XLA_BACKEND,
 * TKRT_XLA_CAPTURE_POLICY, TKRT_XLA_COUNT_CAPTURES). Returns 0, or a status code with the reason
 * in `error` (3 naming the setting and value, for an unknown name or a refused value). */
TKRT_XLA_EXPORT int tkrt_xla_configure(const char* name, const char* value, char* error,
                                       size_t capacity);

/* The decision exchange of the adapter's tuner (tkrt/autotune.h, docs/autotuning.md): `exchange`
 * (copied; its `user` must outlive the process's use of the library), policy 0 leader or 1 merge,
 * ranks (merge: how many ranks publish timings, 1..65536), timeout_ms (the longest a rank waits)
 * and tuning_key (NULL: none; part of every key). NULL exchange: none (the default). Only before
 * the adapter's first device open: later FAILED_PRECONDITION (9); a bad argument is 3. Returns 0
 * or the code, with the reason in `error`. tkrt.use_jax_distributed() calls it. */
struct tkrt_exchange;
struct tkrt_tune_report;
struct tkrt_autotuner_stats;
TKRT_XLA_EXPORT int tkrt_xla_set_exchange(const struct tkrt_exchange* exchange, int policy,
                                          uint32_t ranks, uint32_t timeout_ms,
                                          const char* tuning_key, char* error, size_t capacity);
/* What the adapter's tuner decided for the call whose custom-call blob is `opaque` on the device
 * of XLA ordinal `ordinal` (tkrt_autotuner_get_report). Returns 0 or a status code with `error`
 * (5 when no call ran on that device yet). */
TKRT_XLA_EXPORT int tkrt_xla_tune_report(const void* opaque, size_t size, int ordinal,
                                         struct tkrt_tune_report* report, char* error,
                                         size_t capacity);
/* The adapter's tuner counters (tkrt_autotuner_get_stats); left as they are before the first
 * device open. */
TKRT_XLA_EXPORT void tkrt_xla_tuner_stats(struct tkrt_autotuner_stats* stats);

/* Profile builds only (CMake -DTKRT_PROFILE=ON; bench/run_perf.sh): copies up to `capacity` of
 * the handlers' stage counters (calls, or time-stamp-counter ticks spent in a stage) with their
 * names, sets *ticks_per_us, and zeroes them when `reset` is nonzero. Returns how many stages the
 * build counts: 0 in other builds, which time nothing. */
TKRT_XLA_EXPORT size_t tkrt_xla_profile(uint64_t* values, const char** names, size_t capacity,
                                        double* ticks_per_us, int reset);

/* "tkrt-xla <tkrt version> ffi <major>.<minor>" */
TKRT_XLA_EXPORT const char* tkrt_xla_version(void);

#ifdef __cplusplus
}
#endif

#endif /* TKRT_XLA_H_ */
