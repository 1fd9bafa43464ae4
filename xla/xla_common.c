/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt xla: the shared state of the XLA targets: the process's default tkrt runtime (blob cache,
 * devices, tuner, settings), which the targets share with tkrt.triton and every C user of
 * tkrt_runtime_default in the process, and the counters. Everything on the launch path is
 * lock-free: the runtime's lookups are. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xla/xla_internal.h"

tkrt_xla_counters_t tkrt_xla_counters;

#define TKRT_XLA_COUNT(name) atomic_fetch_add_explicit(&tkrt_xla_counters.name, 1, memory_order_relaxed)

/* ---------------------------------------------------------------- the runtime */

tkrt_status_t tkrt_xla_runtime(tkrt_runtime_t** out_runtime) {
  tkrt_runtime_t* rt = tkrt_runtime_default();
  if (!rt) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  *out_runtime = rt;
  return NULL;
}

const char* tkrt_xla_backends(void) { return tkrt_xla_settings()->backends; }

/* The adapter's own settings are frozen, and the decision exchange (which no setting names) is
 * handed to the runtime's tuner options, once, before the adapter opens a device. */
static pthread_once_t tkrt_xla_settle_once = PTHREAD_ONCE_INIT;
static char tkrt_xla_settle_error[512];

static void tkrt_xla_settle(void) {
  tkrt_runtime_t* rt = tkrt_runtime_default();
  (void)tkrt_xla_settings();
  tkrt_device_options_t device;
  tkrt_autotuner_options_t tuner;
  tkrt_runtime_get_options(rt, &device, &tuner);
  if (!tkrt_xla_exchange_apply(&tuner)) return; /* no decision exchange: nothing to hand over */
  tkrt_status_t status = tkrt_runtime_set_options(rt, &device, &tuner);
  if (status) {
    snprintf(tkrt_xla_settle_error, sizeof(tkrt_xla_settle_error),
             "the decision exchange (tkrt_xla_set_exchange) came after the process's tkrt "
             "runtime was in use: %s",
             tkrt_status_message(status));
    tkrt_status_free(status);
  }
}

/* Set once the runtime has the adapter's settings and they are usable. */
static atomic_bool tkrt_xla_settled;

bool tkrt_xla_is_settled(void) {
  return atomic_load_explicit(&tkrt_xla_settled, memory_order_acquire);
}

/* The runtime with the adapter's settings: one acquire load once settled (the legacy target asks
 * on every launch); the first calls apply them, and keep failing if they cannot be used. */
static tkrt_status_t tkrt_xla_runtime_settled(tkrt_runtime_t** out_runtime) {
  if (atomic_load_explicit(&tkrt_xla_settled, memory_order_acquire)) {
    *out_runtime = tkrt_runtime_default();
    return NULL;
  }
  TKRT_RETURN_IF_ERROR(tkrt_xla_runtime(out_runtime));
  pthread_once(&tkrt_xla_settle_once, tkrt_xla_settle);
  const char* environment_error = tkrt_xla_settings_error();
  if (environment_error) {
    /* Refused rather than run with settings the user did not ask for. */
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt's settings from the environment: %s",
                            environment_error);
  }
  if (tkrt_xla_settle_error[0]) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt's XLA settings: %s",
                            tkrt_xla_settle_error);
  }
  atomic_store_explicit(&tkrt_xla_settled, true, memory_order_release);
  return NULL;
}

tkrt_status_t tkrt_xla_entry_get(const void* bytes, size_t size,
                                 const tkrt_xla_entry_t** out_entry) {
  tkrt_runtime_t* rt = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_xla_runtime(&rt));
  return tkrt_runtime_call_from_blob(rt, bytes, size, out_entry);
}

/* ---------------------------------------------------------------- devices */

tkrt_status_t tkrt_xla_device_get(int ordinal, tkrt_device_t** out_device) {
  tkrt_runtime_t* rt = tkrt_runtime_default();
  tkrt_device_t* device =
      tkrt_xla_is_settled() ? tkrt_runtime_device_find(rt, tkrt_xla_backends(), ordinal) : NULL;
  if (device) {
    *out_device = device;
    return NULL;
  }
  if (ordinal < 0 || ordinal >= TKRT_RUNTIME_MAX_ORDINALS) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE,
                            "device ordinal %d is outside the %d devices tkrt's XLA targets handle",
                            ordinal, TKRT_RUNTIME_MAX_ORDINALS);
  }
  TKRT_RETURN_IF_ERROR(tkrt_xla_runtime_settled(&rt));
  tkrt_status_t status = tkrt_runtime_device(rt, tkrt_xla_backends(), ordinal, out_device);
  if (status) return tkrt_status_annotate(status, "opening device %d for XLA", ordinal);
  return NULL;
}

/* The runtime remembers the last stream per thread: the common case (one stream per device)
 * costs a few comparisons. */
tkrt_status_t tkrt_xla_stream_device(void* stream, tkrt_device_t** out_device) {
  tkrt_runtime_t* rt = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_xla_runtime_settled(&rt));
  return tkrt_runtime_device_for_stream(rt, tkrt_xla_backends(), (tkrt_stream_t)stream,
                                        out_device);
}

/* ---------------------------------------------------------------- launching */

tkrt_status_t tkrt_xla_launch(const tkrt_xla_entry_t* entry, tkrt_device_t* device,
                              tkrt_stream_t stream, const tkrt_buffer_t* buffers,
                              size_t input_count, size_t output_count, bool by_index) {
  tkrt_launch_decision_t decision = {0};
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  args.device = device;
  args.stream = stream;
  args.buffers = buffers;
  args.input_count = input_count;
  args.output_count = output_count;
  args.flags = by_index ? TKRT_CALL_LAUNCH_ALIASES_BY_INDEX : 0;
  args.decision = entry->autotuned ? &decision : NULL;
  TKRT_RETURN_IF_ERROR(tkrt_runtime_launch(tkrt_runtime_default(), entry->call, &args));
  /* The core says what it decided (once per call and device, plus every capture without a
   * decision); the counters follow it. */
  if (entry->autotuned && decision.decided) {
    if (decision.source == TKRT_TUNE_SOURCE_FALLBACK) {
      TKRT_XLA_COUNT(unknown_size_fallbacks);
    } else if (decision.provisional) {
      TKRT_XLA_COUNT(capture_fallbacks);
    } else if (!decision.capturing) {
      TKRT_XLA_COUNT(tuned_in_execute);
    }
  }
  return NULL;
}

/* ---------------------------------------------------------------- exported helpers */

void tkrt_xla_get_stats(tkrt_xla_stats_t* stats) {
  if (!stats || stats->struct_size < sizeof(size_t)) return;
  tkrt_xla_stats_t s;
  memset(&s, 0, sizeof(s));
  tkrt_xla_counters_t* c = &tkrt_xla_counters;
  s.struct_size = stats->struct_size < sizeof(s) ? stats->struct_size : sizeof(s);
  s.instantiated = atomic_load(&c->instantiated);
  s.initialized = atomic_load(&c->initialized);
  s.executed = atomic_load(&c->executed);
  s.executed_captured = atomic_load(&c->executed_captured);
  s.legacy_executed = atomic_load(&c->legacy_executed);
  /* Blob cache and devices: the process runtime's counters (devices tkrt.triton opened count too). */
  tkrt_runtime_stats_t rs = {.struct_size = sizeof(rs)};
  tkrt_runtime_get_stats(tkrt_runtime_default(), &rs);
  s.decoded = rs.blobs_decoded;
  s.cache_entries = rs.cache_entries;
  s.tuned_in_execute = atomic_load(&c->tuned_in_execute);
  s.capture_fallbacks = atomic_load(&c->capture_fallbacks);
  s.errors = atomic_load(&c->errors);
  s.devices_opened = rs.devices_opened;
  s.legacy_status_fallback = atomic_load(&c->legacy_status_fallback);
  s.unknown_size_fallbacks = atomic_load(&c->unknown_size_fallbacks);
  s.blob_hashes = rs.blob_hashes;
  s.prepared = atomic_load(&c->prepared);
  memcpy(stats, &s, s.struct_size);
}

#ifdef TKRT_PROFILE
atomic_uint_fast64_t tkrt_xla_profile_counters[TKRT_XLA_PROF_COUNT];
#endif

size_t tkrt_xla_profile(uint64_t* values, const char** names, size_t capacity,
                        double* ticks_per_us, int reset) {
#ifdef TKRT_PROFILE
  static const char* const kNames[] = {
#define TKRT_XLA_PROFILE_NAME(name) #name,
      TKRT_XLA_PROFILE_STAGES(TKRT_XLA_PROFILE_NAME)
#undef TKRT_XLA_PROFILE_NAME
  };
  return tkrt_profile_read(tkrt_xla_profile_counters, kNames, TKRT_XLA_PROF_COUNT, values, names,
                           capacity, ticks_per_us, reset);
#else
  (void)values, (void)names, (void)capacity, (void)reset;
  if (ticks_per_us) *ticks_per_us = 0;
  return 0;
#endif
}

const char* tkrt_xla_version(void) {
  return "tkrt-xla " TKRT_VERSION_STRING " ffi " "0.4";
}
