/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt tune: the autotuner object: its names, creation from options, pins, the lookups of its
 * entries, and what it reports (tkrt_autotuner_get_report, tkrt_autotuner_get_stats). It decides
 * once per (call digest, device arch): pinned decisions first, then memory, then the on-disk
 * store, then a benchmark on the caller's stream with aliased inputs saved and restored around
 * every config (decide.c, bench.c). Never while the stream captures. */
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

tkrt_tune_entry_t* tkrt_entry_find(tkrt_autotuner_t* tuner, const uint8_t* digest,
                                          const char* arch) {
  for (tkrt_tune_entry_t* e = tuner->entries; e; e = e->next) {
    if (memcmp(e->digest, digest, TKRT_DIGEST_SIZE) == 0 && strcmp(e->arch, arch) == 0) return e;
  }
  return NULL;
}

const tkrt_tune_pin_t* tkrt_pin_find(tkrt_autotuner_t* tuner, const uint8_t* digest,
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

void tkrt_entry_unlink(tkrt_autotuner_t* tuner, tkrt_tune_entry_t* entry) {
  for (tkrt_tune_entry_t** link = &tuner->entries; *link; link = &(*link)->next) {
    if (*link == entry) {
      *link = entry->next;
      return;
    }
  }
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
