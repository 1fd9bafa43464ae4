/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt xla: what the FFI and legacy targets share: the process-wide decode cache (keyed by the
 * exact opaque bytes), the per-ordinal device table, the autotuner, counters and launching. */
#ifndef TKRT_XLA_INTERNAL_H_
#define TKRT_XLA_INTERNAL_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/tkrt.h"
#include "tkrt/wire.h"
#include "xla/tkrt_xla.h"
#include "xla/xla_profile.h"

#define TKRT_XLA_HIDDEN __attribute__((visibility("hidden")))
#define TKRT_XLA_MAX_DEVICES 64
#define TKRT_XLA_MAX_ALIAS_INDEX 65536

/* One distinct blob. Entries are immutable after publication and live for the whole process
 * (like jaxlib's cache): XLA call-site states point at them, and kernels may still be running. */
typedef struct tkrt_xla_entry {
  uint64_t hash;
  size_t size;
  tkrt_call_t* call;
  bool autotuned;           /* more than one config: the tuner decides */
  size_t array_params;      /* most array parameters of any config: buffers a launch consumes */
  /* Legacy target: how many of XLA's bare buffer pointers a launch reads: the array parameters'
   * and every buffer an alias record names (records hold buffer indices, see xla_legacy.c). */
  size_t legacy_buffers;
  const char* label;        /* call name for messages (owned by the call) */
  /* Autotuned calls: bit `ordinal` is set once the process tuner's decision for the call is
   * cached on that device (the core then never tunes it again there), so the legacy target
   * stops building the aliased-input list the tuner alone reads. */
  atomic_uint_fast64_t decided_on;
  /* Typed FFI: bit `ordinal` is set once the call is prepared on that device (modules loaded,
   * scratch allocated). XLA runs the initialize stage before every execution of every call
   * site; with the bit set, that stage answers at once (no device lookup, no driver query). */
  atomic_uint_fast64_t prepared_on;
  unsigned char bytes[];    /* the opaque blob, compared on lookup */
} tkrt_xla_entry_t;

/* The adapter's settings (xla_settings.c): immutable once returned. */
/* The backends XLA's devices come from: the group of those that run on streams others made
 * (tkrt/device.h: cuda and hip), never the host. */
#define TKRT_XLA_DEFAULT_BACKENDS "gpu"

typedef struct tkrt_xla_settings {
  tkrt_device_options_t device; /* device.backend: the backends to open, "gpu" by default */
  tkrt_autotuner_options_t tuner;
  /* Count FFI executes made while the stream was capturing (executed_captured): a driver query
   * per execute, so off unless asked for (count_captures, TKRT_XLA_COUNT_CAPTURES). */
  bool count_captures;
} tkrt_xla_settings_t;

/* The settings, read from the environment on first use unless tkrt_xla_configure set them. */
TKRT_XLA_HIDDEN const tkrt_xla_settings_t* tkrt_xla_settings(void);
/* Why the environment's settings could not all be used (reported with the first error), or
 * NULL. */
TKRT_XLA_HIDDEN const char* tkrt_xla_settings_error(void);

/* Counters behind tkrt_xla_get_stats. */
typedef struct tkrt_xla_counters {
  atomic_uint_fast64_t instantiated, initialized, executed, executed_captured, legacy_executed,
      decoded, cache_entries, tuned_in_execute, capture_fallbacks, errors, devices_opened,
      legacy_status_fallback, unknown_size_fallbacks, blob_hashes, prepared;
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

/* Finds the entry for these exact bytes, decoding and inserting it on first sight. Lock-free:
 * concurrent first sights may both decode; one entry wins a slot, the other is dropped. */
TKRT_XLA_HIDDEN tkrt_status_t tkrt_xla_entry_get(const void* bytes, size_t size,
                                                 tkrt_xla_entry_t** out_entry);

/* The process-wide device for an ordinal (lent, never released). */
TKRT_XLA_HIDDEN tkrt_status_t tkrt_xla_device_get(int ordinal, tkrt_device_t** out_device);

/* Launches entry->call on the buffers with the process tuner, keeping the counters from what the
 * core reports it decided. aliased_inputs: NULL (the core finds in-place inputs from buffer
 * addresses and sizes) or the caller's list (tkrt_call_launch_args_t.aliased_inputs). */
TKRT_XLA_HIDDEN tkrt_status_t tkrt_xla_launch(tkrt_xla_entry_t* entry, tkrt_device_t* device,
                                              tkrt_stream_t stream, const tkrt_buffer_t* buffers,
                                              size_t input_count, size_t output_count,
                                              const tkrt_buffer_t* aliased_inputs,
                                              size_t aliased_input_count);

/* The device ordinal a legacy call's stream belongs to (asked of the settings' backends). */
TKRT_XLA_HIDDEN tkrt_status_t tkrt_xla_stream_ordinal(void* stream, int* out_ordinal);

/* The C++ fallback for XlaCustomCallStatusSetFailure (xla_legacy_status.cc). */
TKRT_XLA_HIDDEN void tkrt_xla_status_set_failure_fallback(void* status, const char* message,
                                                          size_t length);

#endif /* TKRT_XLA_INTERNAL_H_ */
