/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt xla: what the FFI and legacy targets share: the adapter's runtime (which holds the blob
 * cache keyed by the exact opaque bytes, the devices and the tuner), counters and launching. */
#ifndef TKRT_XLA_INTERNAL_H_
#define TKRT_XLA_INTERNAL_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/runtime.h"
#include "tkrt/tkrt.h"
#include "tkrt/wire.h"
#include "xla/tkrt_xla.h"
#include "xla/xla_profile.h"

#define TKRT_XLA_HIDDEN __attribute__((visibility("hidden")))

/* A call site's call: the runtime's blob-cache entry (immutable, alive for the process, like
 * jaxlib's cache: XLA call-site states point at it, and kernels may still be running). Whether it
 * is prepared or decided on a device is asked of the runtime (tkrt_runtime_call_state), never
 * mirrored here. */
typedef tkrt_runtime_call_t tkrt_xla_entry_t;

/* The backends XLA's devices come from: the group of those that run on streams others made
 * (tkrt/device.h: cuda and hip), never the host. */
#define TKRT_XLA_DEFAULT_BACKENDS "gpu"

/* The adapter's own settings (xla_settings.c), immutable once returned; the others (caches,
 * tuning, the log) are the process's default runtime's (tkrt_runtime_default, tkrt_runtime_configure),
 * which the adapter shares with every other user of tkrt in the process. */
typedef struct tkrt_xla_settings {
  /* Count FFI executes made while the stream was capturing (executed_captured): a driver query
   * per execute, so off unless asked for (count_captures, TKRT_XLA_COUNT_CAPTURES). */
  bool count_captures;
  /* The backends XLA's devices come from (TKRT_XLA_BACKEND, tkrt_xla_configure("backend");
   * default TKRT_XLA_DEFAULT_BACKENDS): asked of the runtime with each device, so that the
   * runtime's own list (TKRT_BACKEND, which tkrt.triton uses) is left alone. */
  char backends[128];
} tkrt_xla_settings_t;

/* The settings, read from the environment on first use unless tkrt_xla_configure set them; the
 * first call hands the environment's to the runtime, and freezes them. */
TKRT_XLA_HIDDEN const tkrt_xla_settings_t* tkrt_xla_settings(void);
/* Why the environment's settings could not all be used (reported with the first error), or
 * NULL. */
TKRT_XLA_HIDDEN const char* tkrt_xla_settings_error(void);

/* Puts the exchange set by tkrt_xla_set_exchange into the tuner options handed to the runtime,
 * and fixes it (xla_exchange.c); false when none was set (the options are left alone). */
TKRT_XLA_HIDDEN bool tkrt_xla_exchange_apply(tkrt_autotuner_options_t* tuner);
/* The backends XLA's devices come from (the adapter's settings). */
TKRT_XLA_HIDDEN const char* tkrt_xla_backends(void);

/* Counters behind tkrt_xla_get_stats. */
typedef struct tkrt_xla_counters {
  /* decoded, cache_entries, devices_opened and blob_hashes are the runtime's
   * (tkrt_runtime_get_stats). */
  atomic_uint_fast64_t instantiated, initialized, executed, executed_captured, legacy_executed,
      tuned_in_execute, capture_fallbacks, errors, legacy_status_fallback, unknown_size_fallbacks,
      prepared;
} tkrt_xla_counters_t;

TKRT_XLA_HIDDEN extern tkrt_xla_counters_t tkrt_xla_counters;

#ifdef TKRT_PROFILE
/* Profile builds: ticks per stage (xla_profile.h). */
TKRT_XLA_HIDDEN extern atomic_uint_fast64_t tkrt_xla_profile_counters[TKRT_XLA_PROF_COUNT];
#define TKRT_XLA_PROF(stage, from, to) \
  TKRT_PROFILE_ADD(tkrt_xla_profile_counters, TKRT_XLA_PROF_##stage, from, to)
#define TKRT_XLA_PROF_CALL(stage) TKRT_PROFILE_COUNT(tkrt_xla_profile_counters, TKRT_XLA_PROF_##stage)
#else
#define TKRT_XLA_PROF(stage, from, to) ((void)0)
#define TKRT_XLA_PROF_CALL(stage) ((void)0)
#endif

/* The adapter's runtime (one per process, created on first use; its settings are the adapter's,
 * applied before it opens a device). */
TKRT_XLA_HIDDEN tkrt_status_t tkrt_xla_runtime(tkrt_runtime_t** out_runtime);
/* Whether the runtime has the adapter's settings (tkrt_runtime_set_options succeeded): until then
 * nothing may create its tuner, which would freeze it before they are handed over. */
TKRT_XLA_HIDDEN bool tkrt_xla_is_settled(void);

/* The runtime's call for these exact bytes, decoded on first sight (tkrt_runtime_call_from_blob). */
TKRT_XLA_HIDDEN tkrt_status_t tkrt_xla_entry_get(const void* bytes, size_t size,
                                                 const tkrt_xla_entry_t** out_entry);

/* The runtime's device for an ordinal, opened on first use with the adapter's settings. */
TKRT_XLA_HIDDEN tkrt_status_t tkrt_xla_device_get(int ordinal, tkrt_device_t** out_device);

/* The device a legacy call's stream belongs to (asked of the settings' backends). */
TKRT_XLA_HIDDEN tkrt_status_t tkrt_xla_stream_device(void* stream, tkrt_device_t** out_device);

/* Launches entry->call through the runtime, keeping the counters from what the core reports it
 * decided. by_index: the legacy target's alias convention (bare pointers, records by buffer
 * index); else buffers carry sizes (typed FFI). */
TKRT_XLA_HIDDEN tkrt_status_t tkrt_xla_launch(const tkrt_xla_entry_t* entry, tkrt_device_t* device,
                                              tkrt_stream_t stream, const tkrt_buffer_t* buffers,
                                              size_t input_count, size_t output_count,
                                              bool by_index);

/* The C++ fallback for XlaCustomCallStatusSetFailure (xla_legacy_status.cc). */
TKRT_XLA_HIDDEN void tkrt_xla_status_set_failure_fallback(void* status, const char* message,
                                                          size_t length);

#endif /* TKRT_XLA_INTERNAL_H_ */
