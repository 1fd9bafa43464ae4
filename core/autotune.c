/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: the autotuner. It decides once per (call digest, device arch): pinned decisions
 * first, then memory, then the on-disk store, then a benchmark on the caller's stream with
 * aliased inputs saved and restored around every config. Never while the stream captures. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/alias_saves.h"
#include "core/call_internal.h"
#include "core/decision_store.h"
#include "core/exchange.h"
#include "core/tune_db.h"
#include "base/fs.h"
#include "base/log.h"
#include "base/versioned.h"
#include "hal/hal.h"

typedef enum tkrt_tune_entry_state {
  TKRT_TUNE_ENTRY_PENDING, /* a thread is deciding; others wait on `done` */
  TKRT_TUNE_ENTRY_DONE,
} tkrt_tune_entry_state_t;

typedef struct tkrt_tune_entry {
  struct tkrt_tune_entry* next;
  uint8_t digest[TKRT_DIGEST_SIZE];
  char arch[64];
  tkrt_tune_entry_state_t state;
  tkrt_tune_source_t source;
  size_t chosen;
  size_t config_count;
  uint32_t iterations;
  float* times_ms; /* config_count entries, or NULL */
  uint8_t* pruned; /* config_count entries: dropped after pass 2's first round */
  uint32_t round1_iterations;
  float round1_best_ms;
  size_t pruned_count;
  uint64_t timed_launches;
  char skip_reason[256];
  char store_file[1024]; /* the store entry read or written, "" if none */
  char fallback_reason[256]; /* FALLBACK, EXCHANGE_FALLBACK: why tuning was impossible */
  char exchange_key[65];     /* "" when the exchange was not used */
  char exchange_role[16];
  uint32_t exchange_ranks;
  /* The store held a decision that was refused (corrupt, forged, untrusted): the tuning
   * database's times beside it are not used either, and the call is benchmarked anew. */
  bool distrust_store;
} tkrt_tune_entry_t;

typedef struct tkrt_tune_pin {
  struct tkrt_tune_pin* next;
  char digest_prefix[65]; /* "" matches every call */
  char arch[64];          /* "" matches every arch */
  size_t index;
} tkrt_tune_pin_t;

struct tkrt_autotuner_s {
  uint32_t id;
  tkrt_tune_policy_t policy;
  tkrt_capture_policy_t capture_policy;
  double target_ms;
  uint32_t max_iterations;
  double prune_margin;
  char* store_dir; /* NULL: no persistence */
  bool trust_shared_store;
  bool refresh_store;
  void (*progress)(void*, size_t, size_t, int, uint32_t, float);
  void* progress_user;
  pthread_mutex_t lock; /* guards entries and pins; held only while deciding, never to launch */
  pthread_cond_t done;  /* an entry left PENDING */
  tkrt_tune_entry_t* entries;
  tkrt_tune_pin_t* pins;
  int store_warned;
  bool has_exchange;
  tkrt_exchange_t exchange;
  tkrt_exchange_policy_t exchange_policy;
  uint32_t exchange_ranks;
  uint32_t exchange_timeout_ms;
  char* tuning_key; /* "" when none */
  bool require_complete;
  tkrt_autotuner_stats_t stats; /* guarded by lock */
};

const char* tkrt_tune_source_name(tkrt_tune_source_t source) {
  switch (source) {
    case TKRT_TUNE_SOURCE_NONE: return "none";
    case TKRT_TUNE_SOURCE_SINGLE: return "single";
    case TKRT_TUNE_SOURCE_PINNED: return "pinned";
    case TKRT_TUNE_SOURCE_TUNED: return "tuned";
    case TKRT_TUNE_SOURCE_STORE: return "store";
    case TKRT_TUNE_SOURCE_DEFAULT: return "default";
    case TKRT_TUNE_SOURCE_FALLBACK: return "fallback";
    case TKRT_TUNE_SOURCE_EXCHANGE: return "exchange";
    case TKRT_TUNE_SOURCE_EXCHANGE_FALLBACK: return "exchange-fallback";
  }
  return "unknown";
}

void tkrt_autotuner_options_init(tkrt_autotuner_options_t* options) {
  memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  options->policy = TKRT_TUNE_POLICY_AUTO;
  options->target_ms = 10.0;
  options->max_iterations = 100;
  options->prune_margin = 0.25;
  options->exchange_policy = TKRT_EXCHANGE_POLICY_LEADER;
  options->exchange_ranks = 1;
  options->exchange_timeout_ms = 60000;
}

void tkrt_autotuner_stats_init(tkrt_autotuner_stats_t* stats) {
  memset(stats, 0, sizeof(*stats));
  stats->struct_size = sizeof(*stats);
}

void tkrt_tune_report_init(tkrt_tune_report_t* report) {
  memset(report, 0, sizeof(*report));
  report->struct_size = sizeof(*report);
}

/* ---------------------------------------------------------------- creation and pins */

static tkrt_status_t tkrt_pin_add(tkrt_autotuner_t* tuner, const char* digest_prefix,
                                  const char* arch, size_t index) {
  tkrt_tune_pin_t* pin = calloc(1, sizeof(*pin));
  if (!pin) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  snprintf(pin->digest_prefix, sizeof(pin->digest_prefix), "%s", digest_prefix);
  snprintf(pin->arch, sizeof(pin->arch), "%s", arch ? arch : "");
  pin->index = index;
  pthread_mutex_lock(&tuner->lock);
  pin->next = tuner->pins;
  tuner->pins = pin; /* newest first: a later pin overrides an earlier one */
  pthread_mutex_unlock(&tuner->lock);
  return NULL;
}

/* options.pins: "<digest hex prefix or *>[@arch]=<index>,..." (what TKRT_TUNE_PIN holds). */
static tkrt_status_t tkrt_parse_pins(tkrt_autotuner_t* tuner, const char* text) {
  char buffer[2048];
  if (strlen(text) >= sizeof(buffer)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tuning pins (TKRT_TUNE_PIN) are too long");
  }
  snprintf(buffer, sizeof(buffer), "%s", text);
  char* save = NULL;
  for (char* item = strtok_r(buffer, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
    while (isspace((unsigned char)*item)) ++item;
    char* equals = strchr(item, '=');
    char* end = NULL;
    unsigned long long index = 0;
    const char* digits = equals ? equals + 1 : NULL;
    while (digits && isspace((unsigned char)*digits)) ++digits;
    int bad = !digits || !isdigit((unsigned char)*digits); /* digits only: strtoull takes "-1" */
    if (!bad) {
      errno = 0;
      index = strtoull(digits, &end, 10);
      bad = errno != 0 || index > SIZE_MAX || (*end && !isspace((unsigned char)*end));
    }
    if (bad) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "tuning pin (TKRT_TUNE_PIN) entry '%s' is not <digest>[@arch]=<config index> "
                              "(a config index is a whole number from 0)",
                              item);
    }
    *equals = '\0';
    char* at = strchr(item, '@');
    if (at) *at = '\0';
    if (!*item) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "tuning pin (TKRT_TUNE_PIN) entry '%s=...' has no digest; use * to pin every call",
                              at ? "@..." : "");
    }
    const char* prefix = strcmp(item, "*") == 0 ? "" : item;
    for (const char* c = prefix; *c; ++c) {
      if (!isxdigit((unsigned char)*c)) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "tuning pin (TKRT_TUNE_PIN) digest '%s' is not hexadecimal (or *)", prefix);
      }
    }
    if (strlen(prefix) > 64) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tuning pin (TKRT_TUNE_PIN) digest '%s' is too long",
                              prefix);
    }
    char lower[65];
    size_t i = 0;
    for (; prefix[i]; ++i) lower[i] = (char)tolower((unsigned char)prefix[i]);
    lower[i] = '\0';
    TKRT_RETURN_IF_ERROR(tkrt_pin_add(tuner, lower, at ? at + 1 : NULL, (size_t)index));
  }
  return NULL;
}

void tkrt_autotuner_destroy(tkrt_autotuner_t* tuner) {
  if (!tuner) return;
  for (tkrt_tune_entry_t* e = tuner->entries; e;) {
    tkrt_tune_entry_t* next = e->next;
    free(e->times_ms);
    free(e->pruned);
    free(e);
    e = next;
  }
  for (tkrt_tune_pin_t* p = tuner->pins; p;) {
    tkrt_tune_pin_t* next = p->next;
    free(p);
    p = next;
  }
  pthread_cond_destroy(&tuner->done);
  pthread_mutex_destroy(&tuner->lock);
  free(tuner->store_dir);
  free(tuner->tuning_key);
  free(tuner);
}

tkrt_status_t tkrt_autotuner_create(const tkrt_autotuner_options_t* options,
                                    tkrt_autotuner_t** out_tuner) {
  if (!out_tuner) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_autotuner_create: out_tuner is NULL");
  }
  tkrt_autotuner_options_t local;
  tkrt_autotuner_options_init(&local);
  if (options) {
    TKRT_RETURN_IF_ERROR(
        tkrt_versioned_read(&local, sizeof(local), options, "tkrt_autotuner_create"));
  }
  options = &local;
  if (options->capture_policy != TKRT_CAPTURE_POLICY_ERROR &&
      options->capture_policy != TKRT_CAPTURE_POLICY_FIRST_CONFIG) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "autotuner options: unknown capture policy %d",
                            (int)options->capture_policy);
  }
  if (options->prune_margin != options->prune_margin) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "autotuner options: prune_margin is NaN (negative turns pruning off)");
  }
  if (!(options->target_ms >= 0.0) || options->max_iterations == 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "autotuner options: target_ms must be >= 0 and max_iterations >= 1");
  }
  tkrt_exchange_t exchange;
  tkrt_exchange_init(&exchange);
  if (options->exchange) {
    TKRT_RETURN_IF_ERROR(tkrt_versioned_read(&exchange, sizeof(exchange), options->exchange,
                                             "autotuner options: exchange"));
    if (!exchange.set || !exchange.get || !exchange.add) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "autotuner options: the exchange needs set, get and add callbacks");
    }
    if (options->exchange_policy != TKRT_EXCHANGE_POLICY_LEADER &&
        options->exchange_policy != TKRT_EXCHANGE_POLICY_MERGE) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "autotuner options: unknown exchange policy %d",
                              (int)options->exchange_policy);
    }
    if (options->exchange_policy == TKRT_EXCHANGE_POLICY_MERGE &&
        (options->exchange_ranks == 0 || options->exchange_ranks > 65536)) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "autotuner options: exchange_ranks is %u; the merge policy needs "
                              "1 to 65536 ranks",
                              options->exchange_ranks);
    }
  }
  tkrt_autotuner_t* tuner = calloc(1, sizeof(*tuner));
  if (!tuner) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  tuner->has_exchange = options->exchange != NULL;
  tuner->exchange = exchange;
  tuner->exchange_policy = options->exchange_policy;
  tuner->exchange_ranks = options->exchange_ranks;
  tuner->exchange_timeout_ms = options->exchange_timeout_ms;
  tuner->require_complete = options->require_complete;
  tkrt_autotuner_stats_init(&tuner->stats);
  pthread_mutex_init(&tuner->lock, NULL);
  pthread_cond_init(&tuner->done, NULL);
  static atomic_uint tkrt_next_tuner_id;
  tuner->id = atomic_fetch_add(&tkrt_next_tuner_id, 1) + 1;
  tuner->policy = options->policy;
  tuner->capture_policy = options->capture_policy;
  tuner->refresh_store = options->refresh_store;
  tuner->trust_shared_store = options->trust_shared_store;
  tuner->progress = options->progress;
  tuner->progress_user = options->progress_user;
  tuner->target_ms = options->target_ms;
  tuner->max_iterations = options->max_iterations;
  tuner->prune_margin = options->prune_margin;
  tkrt_status_t status = NULL;
  tuner->tuning_key = strdup(options->tuning_key ? options->tuning_key : "");
  if (!tuner->tuning_key) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
    goto fail;
  }
  if (options->pins && *options->pins && (status = tkrt_parse_pins(tuner, options->pins))) {
    goto fail;
  }
  const char* dir = options->store_dir;
  if (dir && *dir && !tkrt_fs_is_off(dir)) {
    tuner->store_dir = strdup(dir);
    if (!tuner->store_dir) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
      goto fail;
    }
  }
  *out_tuner = tuner;
  return NULL;

fail:
  tkrt_autotuner_destroy(tuner);
  return status;
}

tkrt_status_t tkrt_autotuner_pin(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
                                 const char* arch, size_t config_index) {
  if (!tuner || !call) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_autotuner_pin: NULL argument");
  }
  if (config_index >= call->desc.config_count) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE,
                            "cannot pin config %zu: the call has %zu configs", config_index,
                            call->desc.config_count);
  }
  char hex[65];
  tkrt_hex_encode(call->digest, TKRT_DIGEST_SIZE, hex);
  return tkrt_pin_add(tuner, hex, arch, config_index);
}

uint32_t tkrt_autotuner_id(const tkrt_autotuner_t* tuner) { return tuner->id; }

/* ---------------------------------------------------------------- lookups (tuner lock held) */

static tkrt_tune_entry_t* tkrt_entry_find(tkrt_autotuner_t* tuner, const uint8_t* digest,
                                          const char* arch) {
  for (tkrt_tune_entry_t* e = tuner->entries; e; e = e->next) {
    if (memcmp(e->digest, digest, TKRT_DIGEST_SIZE) == 0 && strcmp(e->arch, arch) == 0) return e;
  }
  return NULL;
}

static const tkrt_tune_pin_t* tkrt_pin_find(tkrt_autotuner_t* tuner, const uint8_t* digest,
                                            const char* arch) {
  char hex[65];
  tkrt_hex_encode(digest, TKRT_DIGEST_SIZE, hex);
  for (const tkrt_tune_pin_t* pin = tuner->pins; pin; pin = pin->next) {
    if (strncmp(hex, pin->digest_prefix, strlen(pin->digest_prefix)) != 0) continue;
    if (pin->arch[0] && strcmp(pin->arch, arch) != 0) continue;
    return pin;
  }
  return NULL;
}

static void tkrt_entry_unlink(tkrt_autotuner_t* tuner, tkrt_tune_entry_t* entry) {
  for (tkrt_tune_entry_t** link = &tuner->entries; *link; link = &(*link)->next) {
    if (*link == entry) {
      *link = entry->next;
      return;
    }
  }
}

/* ---------------------------------------------------------------- benchmarking */

typedef struct tkrt_bench {
  const tkrt_call_t* call;
  const tkrt_call_device_state_t* state;
  const tkrt_call_launch_args_t* args;
  const tkrt_alias_saves_t* saves;
  tkrt_event_t start, end;
} tkrt_bench_t;

/* Restores aliased inputs, runs one warm-up launch, then `iterations` launches between events;
 * *out_ms is their mean. */
static tkrt_status_t tkrt_bench_config(tkrt_bench_t* b, size_t index, uint32_t iterations,
                                       float* out_ms) {
  tkrt_device_t* device = b->args->device;
  TKRT_RETURN_IF_ERROR(tkrt_alias_restore(b->args, b->saves));
  TKRT_RETURN_IF_ERROR(tkrt_call_launch_config(b->call, b->state, index, b->args));
  TKRT_RETURN_IF_ERROR(tkrt_event_record(device, b->start, b->args->stream));
  for (uint32_t i = 0; i < iterations; ++i) {
    TKRT_RETURN_IF_ERROR(tkrt_call_launch_config(b->call, b->state, index, b->args));
  }
  TKRT_RETURN_IF_ERROR(tkrt_event_record(device, b->end, b->args->stream));
  TKRT_RETURN_IF_ERROR(tkrt_event_synchronize(device, b->end));
  float ms = 0;
  TKRT_RETURN_IF_ERROR(tkrt_event_elapsed_ms(device, b->start, b->end, &ms));
  *out_ms = ms / (float)iterations;
  return NULL;
}

/* Benchmarks every runnable config with the aliased inputs in `found` saved before and restored
 * before each config and at the end; takes ownership of `found`. Configs marked in `known` (may be
 * NULL) keep the times already in entry->times_ms (the tuning database) and are not launched. */
static tkrt_status_t tkrt_benchmark(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
                                    const tkrt_call_device_state_t* state,
                                    const tkrt_call_launch_args_t* args, tkrt_tune_entry_t* entry,
                                    tkrt_alias_saves_t* found, const uint8_t* known) {
  tkrt_device_t* device = args->device;
  size_t count = call->desc.config_count;
  tkrt_alias_saves_t saves = *found;
  tkrt_bench_t bench = {.call = call, .state = state, .args = args, .saves = &saves};
  tkrt_status_t status = NULL;
  int saved = 0;
  if ((status = tkrt_event_create(device, &bench.start)) ||
      (status = tkrt_event_create(device, &bench.end)) ||
      (status = tkrt_alias_save(args, &saves))) {
    goto done;
  }
  saved = 1;
  /* Pass 1: one timed launch per config sizes the iteration count. */
  float best = -1;
  for (size_t c = 0; c < count; ++c) {
    if (known && known[c]) continue;
    entry->times_ms[c] = TKRT_TUNE_SKIPPED_MS;
    if (state->configs[c].unrunnable) {
      if (!entry->skip_reason[0]) {
        snprintf(entry->skip_reason, sizeof(entry->skip_reason), "%s",
                 tkrt_status_message(state->configs[c].unrunnable));
      }
      continue;
    }
    float ms = 0;
    if ((status = tkrt_bench_config(&bench, c, 1, &ms))) goto done;
    entry->timed_launches++;
    if (tuner->progress) tuner->progress(tuner->progress_user, c, count, 1, 1, ms);
    if (best < 0 || ms < best) best = ms;
  }
  uint32_t iterations = tuner->max_iterations;
  if (best > 0) {
    double wanted = tuner->target_ms / best;
    iterations = wanted < 1 ? 1 : wanted > tuner->max_iterations ? tuner->max_iterations
                                                                  : (uint32_t)wanted;
  }
  /* Pass 2: the measurement that decides; strictly faster wins, so ties keep the earlier one.
   * With enough iterations it runs in two rounds: every config over a quarter of them, then the
   * rest only for configs within the margin of the best first-round mean. A config's time is the
   * mean over all its launches, so every config that can still win, the winner included, is
   * measured with the full count; a pruned one keeps its first-round mean. */
  size_t runnable = 0;
  for (size_t c = 0; c < count; ++c) {
    runnable += state->configs[c].unrunnable == NULL && !(known && known[c]);
  }
  bool rounds = tuner->prune_margin >= 0 && iterations >= TKRT_TUNE_PRUNE_MIN_ITERATIONS &&
                runnable > 1;
  uint32_t first = rounds ? iterations / 4 : iterations;
  float best_first = -1;
  for (size_t c = 0; c < count; ++c) {
    if (state->configs[c].unrunnable || (known && known[c])) continue;
    if ((status = tkrt_bench_config(&bench, c, first, &entry->times_ms[c]))) goto done;
    entry->timed_launches += first;
    if (!rounds && tuner->progress) {
      tuner->progress(tuner->progress_user, c, count, 2, iterations, entry->times_ms[c]);
    }
    if (best_first < 0 || entry->times_ms[c] < best_first) best_first = entry->times_ms[c];
  }
  if (rounds) {
    entry->round1_iterations = first;
    entry->round1_best_ms = best_first;
    /* A best mean of 0 is below the timer's resolution: nothing is known to be far behind it. */
    double limit = best_first > 0 ? (double)best_first * (1.0 + tuner->prune_margin) : INFINITY;
    for (size_t c = 0; c < count; ++c) {
      if (state->configs[c].unrunnable || (known && known[c])) continue;
      if ((double)entry->times_ms[c] > limit) {
        entry->pruned[c] = 1;
        entry->pruned_count++;
        if (tuner->progress) {
          tuner->progress(tuner->progress_user, c, count, 2, first, entry->times_ms[c]);
        }
        continue;
      }
      float rest = 0;
      uint32_t more = iterations - first;
      if ((status = tkrt_bench_config(&bench, c, more, &rest))) goto done;
      entry->timed_launches += more;
      entry->times_ms[c] =
          (float)(((double)entry->times_ms[c] * first + (double)rest * more) / iterations);
      if (tuner->progress) {
        tuner->progress(tuner->progress_user, c, count, 2, iterations, entry->times_ms[c]);
      }
    }
  }
  size_t chosen = count;
  for (size_t c = 0; c < count; ++c) {
    if (state->configs[c].unrunnable || entry->pruned[c]) continue;
    if (chosen == count || entry->times_ms[c] < entry->times_ms[chosen]) chosen = c;
  }
  entry->chosen = chosen;
  entry->iterations = iterations;

done:
  if (saved) {
    /* Every exit leaves the aliased inputs as the caller gave them; the copy is retried once,
     * since losing the caller's input is worse than a second attempt. */
    tkrt_status_t restore = tkrt_alias_restore(args, &saves);
    if (restore) {
      tkrt_status_free(restore);
      restore = tkrt_alias_restore(args, &saves);
    }
    if (restore && !status) {
      status = restore;
    } else {
      tkrt_status_free(restore);
    }
  }
  /* The saved copies may still be read or written by queued copies: free them only once the
   * stream has drained. A stream that cannot be drained keeps them (a leak on a broken stream
   * beats freeing memory the device may still touch). */
  int drained = 1;
  if (saves.count) {
    tkrt_status_t drain = tkrt_stream_synchronize(device, args->stream);
    if (drain) {
      /* Reported either way; a second attempt only decides whether freeing is safe. */
      tkrt_status_t again = tkrt_stream_synchronize(device, args->stream);
      drained = again == NULL;
      tkrt_status_free(again);
      if (!status) {
        status = drain;
      } else {
        tkrt_status_free(drain);
      }
    }
  }
  if (drained) {
    tkrt_alias_saves_free(device, &saves);
  } else {
    free(saves.inputs);
  }
  if (bench.start) tkrt_status_free(tkrt_event_destroy(device, bench.start));
  if (bench.end) tkrt_status_free(tkrt_event_destroy(device, bench.end));
  return status;
}

/* ---------------------------------------------------------------- deciding */

static void tkrt_store_warn(tkrt_autotuner_t* tuner, const char* what) {
  pthread_mutex_lock(&tuner->lock);
  int first = !tuner->store_warned;
  tuner->store_warned = 1;
  pthread_mutex_unlock(&tuner->lock);
  if (first) TKRT_LOG_AT(TKRT_LOG_WARN, "tune", "tuning decision store: %s", what);
}

/* The first config that can run on the device: what "the first config" means for the never policy
 * and the capture fallback (the state has at least one). */
static size_t tkrt_first_runnable(const tkrt_call_device_state_t* state) {
  size_t c = 0;
  while (c + 1 < state->config_count && state->configs[c].unrunnable) ++c;
  return c;
}

static void tkrt_stat_add(tkrt_autotuner_t* tuner, uint64_t* counter) {
  pthread_mutex_lock(&tuner->lock);
  ++*counter;
  pthread_mutex_unlock(&tuner->lock);
}

/* The tuning database (core/tune_db.h): per-config times in the store folder. Marks in known[]
 * the runnable configs that have one and puts their times in entry->times_ms; returns how many. */
static size_t tkrt_load_timings(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
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
static void tkrt_save_timings(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
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
static tkrt_status_t tkrt_local_decision(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
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
static tkrt_status_t tkrt_exchange_decide(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
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

tkrt_status_t tkrt_autotuner_get_report(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
                                        const char* arch, tkrt_tune_report_t* caller_report) {
  if (!tuner || !call || !arch || !caller_report) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_autotuner_get_report: NULL argument");
  }
  /* Filled in full here, then copied back only as far as the caller's struct reaches. */
  tkrt_tune_report_t local;
  tkrt_tune_report_init(&local);
  TKRT_RETURN_IF_ERROR(
      tkrt_versioned_read(&local, sizeof(local), caller_report, "tkrt_autotuner_get_report"));
  tkrt_tune_report_t* report = &local;
  report->config_count = call->desc.config_count;
  report->source = TKRT_TUNE_SOURCE_NONE;
  report->chosen = 0;
  report->iterations = 0;
  report->skip_reason[0] = '\0';
  report->store_file[0] = '\0';
  report->fallback_reason[0] = '\0';
  report->exchange_key[0] = '\0';
  report->exchange_role[0] = '\0';
  report->exchange_ranks = 0;
  report->round1_iterations = 0;
  report->prune_margin = tuner->prune_margin;
  report->round1_best_ms = 0;
  report->pruned_count = 0;
  report->timed_launches = 0;
  for (size_t i = 0; i < report->times_capacity && report->times_ms; ++i) {
    report->times_ms[i] = TKRT_TUNE_SKIPPED_MS;
  }
  for (size_t i = 0; i < report->times_capacity && report->pruned; ++i) report->pruned[i] = 0;
  if (call->desc.config_count == 1) {
    report->source = TKRT_TUNE_SOURCE_SINGLE;
    goto done;
  }
  pthread_mutex_lock(&tuner->lock);
  const tkrt_tune_entry_t* entry = tkrt_entry_find(tuner, call->digest, arch);
  if (entry && entry->state == TKRT_TUNE_ENTRY_DONE) {
    report->source = entry->source;
    report->chosen = entry->chosen;
    report->iterations = entry->iterations;
    snprintf(report->skip_reason, sizeof(report->skip_reason), "%s", entry->skip_reason);
    snprintf(report->store_file, sizeof(report->store_file), "%s", entry->store_file);
    snprintf(report->fallback_reason, sizeof(report->fallback_reason), "%s",
             entry->fallback_reason);
    snprintf(report->exchange_key, sizeof(report->exchange_key), "%s", entry->exchange_key);
    snprintf(report->exchange_role, sizeof(report->exchange_role), "%s", entry->exchange_role);
    report->exchange_ranks = entry->exchange_ranks;
    for (size_t i = 0; i < entry->config_count && i < report->times_capacity && report->times_ms;
         ++i) {
      report->times_ms[i] = entry->times_ms[i];
    }
    report->round1_iterations = entry->round1_iterations;
    report->round1_best_ms = entry->round1_best_ms;
    report->pruned_count = entry->pruned_count;
    report->timed_launches = entry->timed_launches;
    for (size_t i = 0; i < entry->config_count && i < report->times_capacity && report->pruned;
         ++i) {
      report->pruned[i] = entry->pruned[i];
    }
  }
  pthread_mutex_unlock(&tuner->lock);

done:
  memcpy((char*)caller_report + sizeof(size_t), (const char*)report + sizeof(size_t),
         tkrt_versioned_capacity(caller_report, sizeof(local)) - sizeof(size_t));
  return NULL;
}

tkrt_status_t tkrt_autotuner_get_stats(tkrt_autotuner_t* tuner, tkrt_autotuner_stats_t* caller) {
  if (!tuner || !caller) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_autotuner_get_stats: NULL argument");
  }
  tkrt_autotuner_stats_t local;
  tkrt_autotuner_stats_init(&local);
  TKRT_RETURN_IF_ERROR(
      tkrt_versioned_read(&local, sizeof(local), caller, "tkrt_autotuner_get_stats"));
  pthread_mutex_lock(&tuner->lock);
  local = tuner->stats;
  pthread_mutex_unlock(&tuner->lock);
  memcpy((char*)caller + sizeof(size_t), (const char*)&local + sizeof(size_t),
         tkrt_versioned_capacity(caller, sizeof(local)) - sizeof(size_t));
  return NULL;
}
