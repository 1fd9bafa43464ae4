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

#include "core/alias_saves.h"
#include "core/call_internal.h"
#include "core/decision_store.h"
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
  char fallback_reason[256]; /* FALLBACK: why tuning was impossible */
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
  tkrt_autotuner_t* tuner = calloc(1, sizeof(*tuner));
  if (!tuner) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
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
 * before each config and at the end; takes ownership of `found`. */
static tkrt_status_t tkrt_benchmark(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
                                    const tkrt_call_device_state_t* state,
                                    const tkrt_call_launch_args_t* args, tkrt_tune_entry_t* entry,
                                    tkrt_alias_saves_t* found) {
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
  for (size_t c = 0; c < count; ++c) runnable += state->configs[c].unrunnable == NULL;
  bool rounds = tuner->prune_margin >= 0 && iterations >= TKRT_TUNE_PRUNE_MIN_ITERATIONS &&
                runnable > 1;
  uint32_t first = rounds ? iterations / 4 : iterations;
  float best_first = -1;
  for (size_t c = 0; c < count; ++c) {
    if (state->configs[c].unrunnable) continue;
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
      if (state->configs[c].unrunnable) continue;
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
        goto done;
      }
      if (problem[0]) snprintf(ignored, sizeof(ignored), "%s", problem);
    }
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
        call->desc.name ? call->desc.name : call->configs[0].kernel->desc.name, info->arch);
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
  if ((status = tkrt_benchmark(tuner, call, state, args, entry, &saves))) goto done;
  entry->source = TKRT_TUNE_SOURCE_TUNED;
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
