/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt tune: deciding with other ranks through a decision exchange (tkrt_exchange_t): one leader
 * benchmarks and publishes, or every rank benchmarks and the times are merged (median). */
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

/* Every rank that cannot get an agreed decision runs the same one: the first runnable config
 * (pinned calls never reach the exchange). Counted, named in the report and warned about. */
static void tkrt_exchange_fallback(tkrt_autotuner_t* tuner, const tkrt_call_device_state_t* state,
                                   tkrt_tune_entry_t* entry, const char* why) {
  entry->source = TKRT_TUNE_SOURCE_EXCHANGE_FALLBACK;
  entry->chosen = tkrt_first_runnable(state);
  entry->store_file[0] = '\0';
  /* A long reason is cut to the report's field (the log line below has it whole). */
  if (snprintf(entry->fallback_reason, sizeof(entry->fallback_reason),
               "decision exchange (%s): %s", entry->exchange_role, why) < 0) {
    entry->fallback_reason[0] = '\0';
  }
  tkrt_stat_add(tuner, &tuner->stats.exchange_fallbacks);
  TKRT_LOG_AT(TKRT_LOG_WARN, "tune", "exchange key %s: decision exchange (%s): %s; every rank "
              "runs config %zu", entry->exchange_key, entry->exchange_role, why, entry->chosen);
}

static uint64_t tkrt_clock_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
}

static const char* tkrt_exchange_result_name(tkrt_exchange_result_t result) {
  switch (result) {
    case TKRT_EXCHANGE_OK: return "ok";
    case TKRT_EXCHANGE_NOT_FOUND: return "not found";
    case TKRT_EXCHANGE_DEADLINE_EXCEEDED: return "timed out";
    case TKRT_EXCHANGE_ERROR: return "the store failed";
  }
  return "an unknown result";
}

/* The time left until `deadline` for a set or an add (the exchange's optional timed callbacks);
 * a publication after it (late) gets TKRT_EXCHANGE_LATE_MS. */
static uint32_t tkrt_exchange_left(uint64_t deadline, bool late) {
  uint64_t now = tkrt_clock_ms();
  if (late) return TKRT_EXCHANGE_LATE_MS;
  return deadline > now ? (uint32_t)(deadline - now) : 0;
}

static tkrt_exchange_result_t tkrt_exchange_call_add(tkrt_autotuner_t* tuner, const char* key,
                                                     uint64_t deadline, int64_t* out_count) {
  if (tuner->exchange.add_within) {
    return tuner->exchange.add_within(tuner->exchange.user, key, 1,
                                      tkrt_exchange_left(deadline, false), out_count);
  }
  return tuner->exchange.add(tuner->exchange.user, key, 1, out_count);
}

static tkrt_exchange_result_t tkrt_exchange_call_set(tkrt_autotuner_t* tuner, const char* key,
                                                     const char* value, size_t size,
                                                     uint64_t deadline, bool late) {
  if (tuner->exchange.set_within) {
    return tuner->exchange.set_within(tuner->exchange.user, key, value, size,
                                      tkrt_exchange_left(deadline, late));
  }
  return tuner->exchange.set(tuner->exchange.user, key, value, size);
}

/* Reads and validates one value; false (counted, with *why) when it is missing or refused. */
static bool tkrt_exchange_fetch(tkrt_autotuner_t* tuner, tkrt_tune_entry_t* entry,
                                const char* key, uint64_t deadline, char* buffer,
                                tkrt_exchange_value_kind_t kind, size_t* out_chosen,
                                float* out_times, char* why, size_t why_capacity) {
  uint64_t now = tkrt_clock_ms();
  uint32_t left = deadline > now ? (uint32_t)(deadline - now) : 0;
  size_t size = 0;
  tkrt_exchange_result_t result =
      tuner->exchange.get(tuner->exchange.user, key, left, buffer, TKRT_EXCHANGE_MAX_VALUE, &size);
  if (result != TKRT_EXCHANGE_OK) {
    if (result != TKRT_EXCHANGE_NOT_FOUND && result != TKRT_EXCHANGE_DEADLINE_EXCEEDED) {
      tkrt_stat_add(tuner, &tuner->stats.exchange_errors);
    }
    snprintf(why, why_capacity, "get %s: %s (timeout %u ms)", key,
             tkrt_exchange_result_name(result), tuner->exchange_timeout_ms);
    return false;
  }
  char problem[128];
  if (!tkrt_exchange_value_parse(buffer, size, kind, entry->exchange_key, entry->config_count,
                                 out_chosen, out_times, problem, sizeof(problem))) {
    tkrt_stat_add(tuner, &tuner->stats.exchange_refused);
    snprintf(why, why_capacity, "refused the value of %s: %s", key, problem);
    return false;
  }
  return true;
}

static int tkrt_float_compare(const void* a, const void* b) {
  float x = *(const float*)a, y = *(const float*)b;
  return x < y ? -1 : x > y;
}

/* The merge rule: per config, the median across ranks (the mean of the middle two for an even
 * count) of the configs every rank timed; the lowest median wins, ties to the lower index. Every
 * rank computes it from the same values in the same order, so all get the same. `all` is
 * ranks x n; writes the medians (or TKRT_TUNE_SKIPPED_MS) to out_ms; returns n when no config was
 * timed by every rank. */
static size_t tkrt_merge_timings(const float* all, uint32_t ranks, size_t n, float* column,
                                 float* out_ms) {
  size_t chosen = n;
  for (size_t c = 0; c < n; ++c) {
    bool everywhere = true;
    for (uint32_t r = 0; r < ranks; ++r) {
      column[r] = all[(size_t)r * n + c];
      everywhere = everywhere && column[r] >= 0;
    }
    if (!everywhere) {
      out_ms[c] = TKRT_TUNE_SKIPPED_MS;
      continue;
    }
    qsort(column, ranks, sizeof(float), tkrt_float_compare);
    float median = ranks % 2 ? column[ranks / 2]
                             : (float)(((double)column[ranks / 2 - 1] + column[ranks / 2]) / 2);
    out_ms[c] = median;
    if (chosen == n || median < out_ms[chosen]) chosen = c;
  }
  return chosen;
}

/* Agrees on a decision with the other ranks (docs/autotuning.md); `stored`: the entry holds this
 * rank's store decision (source STORE). Never blocks past the timeout; never an error for what
 * other ranks or the store do (a fallback instead), only for this rank's own benchmark. */
tkrt_status_t tkrt_exchange_decide(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
                                          const tkrt_call_device_state_t* state,
                                          const tkrt_call_launch_args_t* args,
                                          tkrt_tune_entry_t* entry, bool stored,
                                          const char* store_key) {
  const tkrt_device_info_t* info = tkrt_device_info(args->device);
  tkrt_exchange_key(call->digest, info->arch, info->sm_count, info->driver_version,
                    tuner->tuning_key, entry->exchange_key);
  uint64_t deadline = tkrt_clock_ms() + tuner->exchange_timeout_ms;
  char* buffer = malloc(TKRT_EXCHANGE_MAX_VALUE + 1);
  if (!buffer) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  char key[TKRT_EXCHANGE_MAX_KEY + 1], why[384];
  tkrt_status_t status = NULL;
  int64_t count = 0;
  size_t n = entry->config_count;

  if (tuner->exchange_policy == TKRT_EXCHANGE_POLICY_LEADER) {
    snprintf(key, sizeof(key), "tkrt.%s.claim", entry->exchange_key);
    snprintf(entry->exchange_role, sizeof(entry->exchange_role), "leader");
    tkrt_exchange_result_t result = tkrt_exchange_call_add(tuner, key, deadline, &count);
    if (result != TKRT_EXCHANGE_OK) {
      tkrt_stat_add(tuner, &tuner->stats.exchange_errors);
      snprintf(why, sizeof(why), "add %s: %s", key, tkrt_exchange_result_name(result));
      tkrt_exchange_fallback(tuner, state, entry, why);
      goto done;
    }
    snprintf(key, sizeof(key), "tkrt.%s.decision", entry->exchange_key);
    if (count == 1) {
      if (!stored) status = tkrt_local_decision(tuner, call, state, args, entry, store_key);
      /* A decision that took longer than the timeout comes after the others fell back (they run
       * the first runnable config): the leader takes the same one and publishes it, so that a
       * rank that reads the decision late agrees too. */
      bool late = !status && tkrt_clock_ms() > deadline;
      /* Published even when this rank failed, so that the others need not wait out the timeout:
       * they run what the leader could (the first runnable config). */
      size_t chosen = status || late ? tkrt_first_runnable(state) : entry->chosen;
      size_t length = tkrt_exchange_value_format(buffer, TKRT_EXCHANGE_MAX_VALUE,
                                                 TKRT_EXCHANGE_VALUE_DECISION, entry->exchange_key,
                                                 n, chosen, NULL);
      result = length ? tkrt_exchange_call_set(tuner, key, buffer, length, deadline,
                                               late || tkrt_clock_ms() > deadline)
                      : TKRT_EXCHANGE_ERROR;
      if (status) goto done;
      if (result != TKRT_EXCHANGE_OK) {
        /* The others will time out and fall back: so does the leader. */
        tkrt_stat_add(tuner, &tuner->stats.exchange_errors);
        snprintf(why, sizeof(why), "set %s: %s", key, tkrt_exchange_result_name(result));
        tkrt_exchange_fallback(tuner, state, entry, why);
        goto done;
      }
      if (late) {
        snprintf(why, sizeof(why),
                 "the leader's decision took longer than exchange_timeout_ms (%u ms): the others "
                 "have fallen back; published config %zu",
                 tuner->exchange_timeout_ms, chosen);
        tkrt_exchange_fallback(tuner, state, entry, why);
        goto done;
      }
      tkrt_stat_add(tuner, &tuner->stats.exchange_leader);
      goto done;
    }
    snprintf(entry->exchange_role, sizeof(entry->exchange_role), "follower");
    size_t chosen = 0;
    if (!tkrt_exchange_fetch(tuner, entry, key, deadline, buffer, TKRT_EXCHANGE_VALUE_DECISION,
                             &chosen, NULL, why, sizeof(why))) {
      tkrt_exchange_fallback(tuner, state, entry, why);
      goto done;
    }
    if (state->configs[chosen].unrunnable) {
      snprintf(why, sizeof(why), "the published config %zu cannot run on this device: %s", chosen,
               tkrt_status_message(state->configs[chosen].unrunnable));
      tkrt_exchange_fallback(tuner, state, entry, why);
      goto done;
    }
    entry->source = TKRT_TUNE_SOURCE_EXCHANGE;
    entry->chosen = chosen;
    entry->store_file[0] = '\0';
    for (size_t c = 0; c < n; ++c) entry->times_ms[c] = TKRT_TUNE_SKIPPED_MS;
    tkrt_stat_add(tuner, &tuner->stats.exchange_follower);
    goto done;
  }

  /* merge: a slot per rank, this rank's timings, then everyone's. */
  snprintf(entry->exchange_role, sizeof(entry->exchange_role), "merge");
  snprintf(key, sizeof(key), "tkrt.%s.join", entry->exchange_key);
  tkrt_exchange_result_t result = tkrt_exchange_call_add(tuner, key, deadline, &count);
  if (result != TKRT_EXCHANGE_OK || count < 1) {
    tkrt_stat_add(tuner, &tuner->stats.exchange_errors);
    snprintf(why, sizeof(why), "add %s: %s", key,
             result == TKRT_EXCHANGE_OK ? "a counter below 1" : tkrt_exchange_result_name(result));
    tkrt_exchange_fallback(tuner, state, entry, why);
    goto done;
  }
  if (count > (int64_t)tuner->exchange_ranks) {
    /* More processes than exchange_ranks (or a folder or prefix reused from an earlier job): the
     * slots 0..ranks-1 are not this job's ranks. This rank marks slot `ranks` (timings of no
     * config, as every such rank writes them) so that the others fall back too, and falls back. */
    for (size_t c = 0; c < n; ++c) entry->times_ms[c] = TKRT_TUNE_SKIPPED_MS;
    size_t marker = tkrt_exchange_value_format(buffer, TKRT_EXCHANGE_MAX_VALUE,
                                               TKRT_EXCHANGE_VALUE_TIMINGS, entry->exchange_key,
                                               n, 0, entry->times_ms);
    snprintf(key, sizeof(key), "tkrt.%s.times.%u", entry->exchange_key, tuner->exchange_ranks);
    if (!marker || tkrt_exchange_call_set(tuner, key, buffer, marker, deadline, false) !=
                       TKRT_EXCHANGE_OK) {
      tkrt_stat_add(tuner, &tuner->stats.exchange_errors);
    }
    snprintf(why, sizeof(why),
             "more ranks than exchange_ranks joined (this rank took slot %lld of %u; use one "
             "fresh folder or prefix per job)",
             (long long)(count - 1), tuner->exchange_ranks);
    tkrt_exchange_fallback(tuner, state, entry, why);
    goto done;
  }
  if (stored) {
    /* Stored timings stand in for a benchmark only when every runnable config has one. */
    for (size_t c = 0; c < n && stored; ++c) {
      if (!state->configs[c].unrunnable && !(entry->times_ms[c] >= 0)) stored = false;
    }
    if (!stored) {
      for (size_t c = 0; c < n; ++c) entry->times_ms[c] = TKRT_TUNE_SKIPPED_MS;
      entry->store_file[0] = '\0';
    }
  }
  if (!stored && (status = tkrt_local_decision(tuner, call, state, args, entry, store_key))) {
    goto done; /* publishes nothing: the others time out and fall back */
  }
  /* An untuned fallback (unknown alias size) publishes no timings (all -1): every rank then
   * finds no config timed everywhere and falls back the same way. */
  /* Timings ready after the timeout come after the others gave up waiting for them (and fell
   * back): this rank publishes none (all -1), so that a rank that reads them late finds no config
   * timed everywhere and falls back the same way, and falls back itself. */
  bool late = tkrt_clock_ms() > deadline;
  if (entry->source == TKRT_TUNE_SOURCE_FALLBACK || late) {
    for (size_t c = 0; c < n; ++c) entry->times_ms[c] = TKRT_TUNE_SKIPPED_MS;
  }
  size_t length = tkrt_exchange_value_format(buffer, TKRT_EXCHANGE_MAX_VALUE,
                                             TKRT_EXCHANGE_VALUE_TIMINGS, entry->exchange_key, n,
                                             0, entry->times_ms);
  snprintf(key, sizeof(key), "tkrt.%s.times.%lld", entry->exchange_key, (long long)(count - 1));
  result = length ? tkrt_exchange_call_set(tuner, key, buffer, length, deadline, late)
                  : TKRT_EXCHANGE_ERROR;
  if (result != TKRT_EXCHANGE_OK) {
    tkrt_stat_add(tuner, &tuner->stats.exchange_errors);
    snprintf(why, sizeof(why), "set %s: %s", key, tkrt_exchange_result_name(result));
    tkrt_exchange_fallback(tuner, state, entry, why);
    goto done;
  }
  if (late) {
    snprintf(why, sizeof(why),
             "this rank's timings took longer than exchange_timeout_ms (%u ms): the others have "
             "fallen back; published none",
             tuner->exchange_timeout_ms);
    tkrt_exchange_fallback(tuner, state, entry, why);
    goto done;
  }
  uint32_t ranks = tuner->exchange_ranks;
  float* all = malloc((size_t)ranks * (n ? n : 1) * sizeof(float));
  float* column = malloc((size_t)ranks * sizeof(float));
  if (!all || !column) {
    free(all);
    free(column);
    status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
    goto done;
  }
  bool complete = true;
  for (uint32_t r = 0; r < ranks && complete; ++r) {
    snprintf(key, sizeof(key), "tkrt.%s.times.%u", entry->exchange_key, r);
    complete = tkrt_exchange_fetch(tuner, entry, key, deadline, buffer,
                                   TKRT_EXCHANGE_VALUE_TIMINGS, NULL, all + (size_t)r * n, why,
                                   sizeof(why));
  }
  if (complete) {
    /* A rank beyond exchange_ranks that joined meanwhile falls back (above): so do the others,
     * rather than merge a subset it does not follow. */
    snprintf(key, sizeof(key), "tkrt.%s.times.%u", entry->exchange_key, ranks);
    size_t size = 0;
    if (tuner->exchange.get(tuner->exchange.user, key, 0, buffer, TKRT_EXCHANGE_MAX_VALUE,
                            &size) == TKRT_EXCHANGE_OK) {
      snprintf(why, sizeof(why),
               "more ranks than exchange_ranks joined (exchange_ranks %u, and %s is set; use "
               "one fresh folder or prefix per job)",
               ranks, key);
      complete = false;
    }
  }
  size_t chosen = n;
  if (complete) {
    float* merged = malloc((n ? n : 1) * sizeof(float));
    if (!merged) {
      free(all);
      free(column);
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
      goto done;
    }
    chosen = tkrt_merge_timings(all, ranks, n, column, merged);
    if (chosen == n) {
      snprintf(why, sizeof(why), "no config was timed by all %u ranks", ranks);
    } else if (state->configs[chosen].unrunnable) {
      snprintf(why, sizeof(why), "the merged choice, config %zu, cannot run on this device",
               chosen);
      chosen = n;
    } else {
      memcpy(entry->times_ms, merged, n * sizeof(float));
    }
    free(merged);
  }
  free(all);
  free(column);
  if (chosen == n) {
    tkrt_exchange_fallback(tuner, state, entry, why);
    goto done;
  }
  entry->source = TKRT_TUNE_SOURCE_EXCHANGE;
  entry->chosen = chosen;
  entry->exchange_ranks = ranks;
  entry->store_file[0] = '\0';
  tkrt_stat_add(tuner, &tuner->stats.exchange_merged);

done:
  free(buffer);
  return status;
}
