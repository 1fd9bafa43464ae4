/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt tune: deciding which config of a call runs on a device arch: pins, memory, the decision
 * store and the tuning database, a benchmark, or (with a decision exchange) other ranks'
 * decision (decide_exchange.c). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/fs.h"
#include "base/log.h"
#include "base/versioned.h"
#include "core/tune/decision_store.h"
#include "core/tune/tune_db.h"
#include "core/tune/tune_internal.h"
#include "hal/hal.h"

/* ---------------------------------------------------------------- deciding */

void tkrt_store_warn(tkrt_autotuner_t* tuner, const char* what) {
  pthread_mutex_lock(&tuner->lock);
  int first = !tuner->store_warned;
  tuner->store_warned = 1;
  pthread_mutex_unlock(&tuner->lock);
  if (first) TKRT_LOG_AT(TKRT_LOG_WARN, "tune", "tuning decision store: %s", what);
}

/* The first config that can run on the device: what "the first config" means for the never policy
 * and the capture fallback (the state has at least one). */
size_t tkrt_first_runnable(const tkrt_call_device_state_t* state) {
  size_t c = 0;
  while (c + 1 < state->config_count && state->configs[c].unrunnable) ++c;
  return c;
}

void tkrt_stat_add(tkrt_autotuner_t* tuner, uint64_t* counter) {
  pthread_mutex_lock(&tuner->lock);
  ++*counter;
  pthread_mutex_unlock(&tuner->lock);
}

/* The tuning database (core/tune/tune_db.h): per-config times in the store folder. Marks in known[]
 * the runnable configs that have one and puts their times in entry->times_ms; returns how many. */
size_t tkrt_load_timings(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
                                const tkrt_call_device_state_t* state,
                                const tkrt_device_info_t* info, tkrt_tune_entry_t* entry,
                                uint8_t* known) {
  size_t count = 0;
  for (size_t c = 0; c < entry->config_count; ++c) {
    known[c] = 0;
    if (!tuner->store_dir || tuner->refresh_store || entry->distrust_store ||
        state->configs[c].unrunnable) {
      continue;
    }
    tkrt_timing_t timing = {.driver_version = info->driver_version, .sm_count = info->sm_count};
    tkrt_config_digest(call, c, timing.config);
    snprintf(timing.arch, sizeof(timing.arch), "%s", info->arch);
    int found = 0;
    char problem[512];
    tkrt_status_t status = tkrt_timing_read(tuner->store_dir, tuner->trust_shared_store, &timing,
                                            &found, problem, sizeof(problem));
    tkrt_status_free(status);
    if (problem[0]) TKRT_LOG_AT(TKRT_LOG_WARN, "tune", "ignoring tuning time %s", problem);
    if (!found) continue;
    known[c] = 1;
    entry->times_ms[c] = timing.ms;
    ++count;
  }
  return count;
}

/* Writes the times this benchmark measured (not those it read) to the tuning database. */
void tkrt_save_timings(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
                              const tkrt_call_device_state_t* state,
                              const tkrt_device_info_t* info, const tkrt_tune_entry_t* entry,
                              const uint8_t* known) {
  if (!tuner->store_dir) return;
  for (size_t c = 0; c < entry->config_count; ++c) {
    if (known[c] || state->configs[c].unrunnable || !(entry->times_ms[c] >= 0)) continue;
    tkrt_timing_t timing = {.driver_version = info->driver_version,
                            .sm_count = info->sm_count,
                            .ms = entry->times_ms[c],
                            .iterations = entry->pruned[c] ? entry->round1_iterations
                                                           : entry->iterations};
    if (timing.iterations == 0) timing.iterations = 1;
    tkrt_config_digest(call, c, timing.config);
    snprintf(timing.arch, sizeof(timing.arch), "%s", info->arch);
    tkrt_status_t status = tkrt_timing_write(tuner->store_dir, &timing);
    if (status) {
      tkrt_store_warn(tuner, tkrt_status_message(status));
      tkrt_status_free(status);
      return;
    }
  }
}

/* This rank's own decision for an entry that the store did not decide: from the tuning
 * database's per-config times when every runnable config has one, else a benchmark of the
 * configs without one, or the first runnable config when an aliased input cannot be saved;
 * require_complete refuses to benchmark. */
tkrt_status_t tkrt_local_decision(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
                                         const tkrt_call_device_state_t* state,
                                         const tkrt_call_launch_args_t* args,
                                         tkrt_tune_entry_t* entry, const char* store_key) {
  const tkrt_device_info_t* info = tkrt_device_info(args->device);
  uint8_t* known = calloc(entry->config_count, 1);
  if (!known) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  size_t runnable = 0;
  for (size_t c = 0; c < entry->config_count; ++c) runnable += !state->configs[c].unrunnable;
  size_t timed = tkrt_load_timings(tuner, call, state, info, entry, known);
  tkrt_status_t status = NULL;
  if (timed == runnable) {
    /* Every config has a time already: the fastest, ties to the lower index. */
    size_t chosen = entry->config_count;
    for (size_t c = 0; c < entry->config_count; ++c) {
      if (!known[c]) continue;
      if (chosen == entry->config_count || entry->times_ms[c] < entry->times_ms[chosen]) chosen = c;
    }
    entry->source = TKRT_TUNE_SOURCE_STORE;
    entry->chosen = chosen;
    snprintf(entry->store_file, sizeof(entry->store_file), "%s (per-config times)",
             tuner->store_dir);
    goto done;
  }
  if (tuner->require_complete) {
    char hex[65];
    tkrt_hex_encode(call->digest, TKRT_DIGEST_SIZE, hex);
    status = TKRT_STATUS_MAKE(
        TKRT_STATUS_FAILED_PRECONDITION,
        "autotuned call '%s' (digest %s) has no decision for %s (driver %d): store entry "
        "%s.decision is missing from %s and %zu of its %zu runnable configs have no time there%s%s; "
        "require_complete (TKRT_TUNE_REQUIRE_COMPLETE) refuses to tune at run time. Tune it "
        "beforehand (tkrt tune, or a run without require_complete) with the same store, import "
        "times (tkrt tune-db import), or pin a config (TKRT_TUNE_PIN)",
        tkrt_call_name(call), hex, info->arch, info->driver_version, store_key,
        tuner->store_dir ? tuner->store_dir : "the store (off)", runnable - timed, runnable,
        entry->exchange_key[0] ? "; exchange key " : "", entry->exchange_key);
    goto done;
  }
  tkrt_alias_saves_t saves;
  char unknown[sizeof(entry->fallback_reason)];
  if ((status = tkrt_find_aliased_inputs(call, args, &saves, unknown, sizeof(unknown)))) goto done;
  if (unknown[0]) {
    /* jaxlib would tune anyway and leave the input overwritten; tkrt runs the first runnable
     * config untuned instead, for this process only (nothing is stored). */
    entry->source = TKRT_TUNE_SOURCE_FALLBACK;
    entry->chosen = tkrt_first_runnable(state);
    snprintf(entry->fallback_reason, sizeof(entry->fallback_reason), "%s", unknown);
    goto done;
  }
  if ((status = tkrt_benchmark(tuner, call, state, args, entry, &saves, known))) goto done;
  entry->source = TKRT_TUNE_SOURCE_TUNED;
  tkrt_save_timings(tuner, call, state, info, entry, known);

done:
  free(known);
  return status;
}

/* Decides an entry that this thread owns (PENDING). */
static tkrt_status_t tkrt_decide_entry(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
                                       const tkrt_call_device_state_t* state,
                                       const tkrt_call_launch_args_t* args, bool capturing,
                                       tkrt_tune_entry_t* entry, bool* out_provisional) {
  const tkrt_device_info_t* info = tkrt_device_info(args->device);
  char key[65];
  tkrt_decision_key(call->digest, info->arch, info->driver_version, key);
  int lock_fd = -1;
  tkrt_status_t status = NULL;
  /* The exchange decides calls that this process would benchmark (not under capture, not with
   * the never policy); a store decision is then this rank's contribution, not the answer. */
  bool exchange = tuner->has_exchange && tuner->policy == TKRT_TUNE_POLICY_AUTO && !capturing;
  bool stored = false;
  /* Warnings wait until the entry's file lock is released: a sink may block (tkrt/log.h). */
  char store_warning[512] = "", ignored[512] = "";
  if (tuner->store_dir) {
    /* Hold the entry's file lock from reading to writing: concurrent processes (ranks) then
     * tune once and all read the same answer. */
    tkrt_status_t lock_status = tkrt_decision_lock(tuner->store_dir, tuner->trust_shared_store, key, &lock_fd);
    if (lock_status) {
      tkrt_store_warn(tuner, tkrt_status_message(lock_status));
      tkrt_status_free(lock_status);
    } else {
      tkrt_decision_t decision = {.config_count = entry->config_count, .times_ms = entry->times_ms};
      int found = 0;
      char problem[512];
      status = tkrt_decision_read(tuner->store_dir, tuner->trust_shared_store, key, call->digest,
                                  info->arch,
                                  info->driver_version, &decision, &found, problem,
                                  sizeof(problem));
      if (status) goto done;
      if (found && state->configs[decision.chosen].unrunnable) {
        snprintf(problem, sizeof(problem), "%s: config %zu cannot run on this device",
                 tuner->store_dir, decision.chosen);
        found = 0;
      }
      if (found && !tuner->refresh_store) {
        snprintf(entry->store_file, sizeof(entry->store_file), "%s/%s.decision", tuner->store_dir,
                 key);
        entry->source = TKRT_TUNE_SOURCE_STORE;
        entry->chosen = decision.chosen;
        entry->iterations = decision.iterations;
        if (!exchange) goto done;
        stored = true;
      } else {
        for (size_t c = 0; c < entry->config_count; ++c) entry->times_ms[c] = TKRT_TUNE_SKIPPED_MS;
      }
      if (problem[0]) {
        snprintf(ignored, sizeof(ignored), "%s", problem);
        entry->distrust_store = true;
      }
    }
  }
  if (exchange) {
    /* Never hold the store's lock while waiting for other ranks: ranks sharing the store folder
     * would wait on each other. It is taken again to write. */
    tkrt_decision_unlock(lock_fd);
    lock_fd = -1;
    if (ignored[0]) TKRT_LOG_AT(TKRT_LOG_WARN, "tune", "ignoring tuning decision %s", ignored);
    ignored[0] = '\0';
    status = tkrt_exchange_decide(tuner, call, state, args, entry, stored, key);
    bool keep = !status && (entry->source == TKRT_TUNE_SOURCE_EXCHANGE ||
                            (!stored && (entry->source == TKRT_TUNE_SOURCE_TUNED ||
                                         entry->source == TKRT_TUNE_SOURCE_STORE)));
    if (keep && tuner->store_dir) {
      tkrt_status_t lock_status =
          tkrt_decision_lock(tuner->store_dir, tuner->trust_shared_store, key, &lock_fd);
      if (lock_status) {
        snprintf(store_warning, sizeof(store_warning), "%s", tkrt_status_message(lock_status));
        tkrt_status_free(lock_status);
      } else {
        goto write;
      }
    }
    goto done;
  }
  if (tuner->policy == TKRT_TUNE_POLICY_NEVER) {
    entry->source = TKRT_TUNE_SOURCE_DEFAULT;
    entry->chosen = tkrt_first_runnable(state);
    goto done;
  }
  if (capturing && tuner->capture_policy == TKRT_CAPTURE_POLICY_FIRST_CONFIG) {
    entry->source = TKRT_TUNE_SOURCE_DEFAULT;
    entry->chosen = tkrt_first_runnable(state);
    *out_provisional = true;
    goto done;
  }
  if (capturing) {
    status = TKRT_STATUS_MAKE(
        TKRT_STATUS_FAILED_PRECONDITION,
        "autotuned call '%s' has no decision for %s and the stream is capturing: benchmarking now "
        "would record the tuning launches into the graph and run them on buffers whose data is not "
        "produced yet. Launch it once outside capture, pin a config (tkrt_autotuner_pin or "
        "TKRT_TUNE_PIN), or use the 'never' tuning policy",
        tkrt_call_name(call), info->arch);
    goto done;
  }
  if ((status = tkrt_local_decision(tuner, call, state, args, entry, key))) goto done;
  /* Tuned, or decided from the tuning database's times (STORE here): kept as a decision too. */
  if (entry->source != TKRT_TUNE_SOURCE_TUNED && entry->source != TKRT_TUNE_SOURCE_STORE) {
    goto done;
  }

write:
  if (lock_fd >= 0) {
    tkrt_decision_t decision = {.chosen = entry->chosen, .config_count = entry->config_count,
                                .iterations = entry->iterations, .times_ms = entry->times_ms};
    tkrt_status_t write = tkrt_decision_write(tuner->store_dir, tuner->trust_shared_store, key,
                                              call->digest, info->arch,
                                              info->driver_version, &decision);
    if (write) {
      snprintf(store_warning, sizeof(store_warning), "%s", tkrt_status_message(write));
      tkrt_status_free(write);
    } else {
      snprintf(entry->store_file, sizeof(entry->store_file), "%s/%s.decision", tuner->store_dir,
               key);
    }
  }

done:
  tkrt_decision_unlock(lock_fd);
  if (ignored[0]) TKRT_LOG_AT(TKRT_LOG_WARN, "tune", "ignoring tuning decision %s", ignored);
  if (store_warning[0]) tkrt_store_warn(tuner, store_warning);
  return status;
}

tkrt_status_t tkrt_autotuner_decide(tkrt_autotuner_t* tuner, tkrt_call_t* call,
                                    tkrt_call_device_state_t* state,
                                    const tkrt_call_launch_args_t* args,
                                    tkrt_launch_decision_t* out_decision) {
  memset(out_decision, 0, sizeof(*out_decision));
  out_decision->decided = true;
  if (!tuner) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "call '%s' has %zu configs: launching it needs an autotuner "
                            "(tkrt_call_launch_args_t.tuner)",
                            call->desc.name ? call->desc.name : "", call->desc.config_count);
  }
  /* The rare path (once per call and device): what the caller's counters need to know. */
  TKRT_RETURN_IF_ERROR(
      tkrt_stream_is_capturing(args->device, args->stream, &out_decision->capturing));
  const char* arch = tkrt_device_info(args->device)->arch;
  pthread_mutex_lock(&tuner->lock);
  for (;;) {
    tkrt_tune_entry_t* entry = tkrt_entry_find(tuner, call->digest, arch);
    if (entry && entry->state == TKRT_TUNE_ENTRY_DONE) {
      out_decision->config = entry->chosen;
      out_decision->source = entry->source;
      pthread_mutex_unlock(&tuner->lock);
      return NULL;
    }
    if (entry) { /* another thread is deciding: wait for it, without holding the lock */
      pthread_cond_wait(&tuner->done, &tuner->lock);
      continue;
    }
    break;
  }
  tkrt_tune_entry_t* entry = calloc(1, sizeof(*entry));
  float* times = entry ? malloc(call->desc.config_count * sizeof(float)) : NULL;
  uint8_t* pruned = times ? calloc(call->desc.config_count, 1) : NULL;
  if (!entry || !times || !pruned) {
    pthread_mutex_unlock(&tuner->lock);
    free(times);
    free(entry);
    return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  }
  memcpy(entry->digest, call->digest, TKRT_DIGEST_SIZE);
  snprintf(entry->arch, sizeof(entry->arch), "%s", arch);
  entry->config_count = call->desc.config_count;
  entry->times_ms = times;
  entry->pruned = pruned;
  for (size_t i = 0; i < entry->config_count; ++i) times[i] = TKRT_TUNE_SKIPPED_MS;
  const tkrt_tune_pin_t* pin = tkrt_pin_find(tuner, call->digest, arch);
  if (pin) {
    if (pin->index >= entry->config_count) {
      pthread_mutex_unlock(&tuner->lock);
      free(pruned);
      free(times);
      free(entry);
      return TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE,
                              "pinned config %zu does not exist: the call has %zu configs",
                              pin->index, call->desc.config_count);
    }
    if (state->configs[pin->index].unrunnable) {
      pthread_mutex_unlock(&tuner->lock);
      free(pruned);
      free(times);
      free(entry);
      return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                              "config %zu is pinned but cannot run on this device: %s", pin->index,
                              tkrt_status_message(state->configs[pin->index].unrunnable));
    }
    entry->source = TKRT_TUNE_SOURCE_PINNED;
    entry->chosen = pin->index;
    entry->state = TKRT_TUNE_ENTRY_DONE;
    entry->next = tuner->entries;
    tuner->entries = entry;
    out_decision->config = entry->chosen;
    out_decision->source = entry->source;
    pthread_mutex_unlock(&tuner->lock);
    return NULL;
  }
  entry->state = TKRT_TUNE_ENTRY_PENDING;
  entry->next = tuner->entries;
  tuner->entries = entry;
  pthread_mutex_unlock(&tuner->lock);

  bool provisional = false;
  tkrt_status_t status = tkrt_decide_entry(tuner, call, state, args, out_decision->capturing,
                                          entry, &provisional);

  pthread_mutex_lock(&tuner->lock);
  out_decision->config = entry->chosen;
  out_decision->source = entry->source;
  out_decision->provisional = provisional;
  if (status || provisional) {
    tkrt_entry_unlink(tuner, entry); /* waiters retry, each on its own stream */
  } else {
    entry->state = TKRT_TUNE_ENTRY_DONE;
  }
  pthread_cond_broadcast(&tuner->done);
  pthread_mutex_unlock(&tuner->lock);
  if (status || provisional) {
    free(entry->times_ms);
    free(entry->pruned);
    free(entry);
  }
  return status;
}
