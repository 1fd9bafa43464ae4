/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt tune: what the tuner's files share (tuner.c: the object, pins, lookups and reports;
 * bench.c: benchmarking; decide.c: the decision flow; decide_exchange.c: deciding with other
 * ranks; launch.c: the launch entry that decides through the tuner). The tuner calls down into
 * the core (tkrt_call_launch_config, call_internal.h) and never back into launch.c. */
#ifndef TKRT_CORE_TUNE_TUNE_INTERNAL_H_
#define TKRT_CORE_TUNE_TUNE_INTERNAL_H_

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/call_internal.h"
#include "core/tune/alias_saves.h"
#include "core/tune/exchange.h"
#include "tkrt/autotune.h"

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

/* ---------------------------------------------------------------- tuner.c */

/* A process-unique, non-zero id of the tuner. */
uint32_t tkrt_autotuner_id(const tkrt_autotuner_t* tuner);

/* The entry and the pin for (digest, arch); tuner lock held. */
tkrt_tune_entry_t* tkrt_entry_find(tkrt_autotuner_t* tuner, const uint8_t* digest,
    const char* arch);
const tkrt_tune_pin_t* tkrt_pin_find(tkrt_autotuner_t* tuner, const uint8_t* digest,
    const char* arch);
void tkrt_entry_unlink(tkrt_autotuner_t* tuner, tkrt_tune_entry_t* entry);

/* ---------------------------------------------------------------- bench.c */

/* Benchmarks every runnable config with the aliased inputs in `found` saved before and restored
 * before each config and at the end; takes ownership of `found`. Configs marked in `known` (may be
 * NULL) keep the times already in entry->times_ms (the tuning database) and are not launched. */
tkrt_status_t tkrt_benchmark(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
    const tkrt_call_device_state_t* state, const tkrt_call_launch_args_t* args,
    tkrt_tune_entry_t* entry, tkrt_alias_saves_t* found, const uint8_t* known);

/* ---------------------------------------------------------------- decide.c */

void tkrt_store_warn(tkrt_autotuner_t* tuner, const char* what);
size_t tkrt_first_runnable(const tkrt_call_device_state_t* state);
void tkrt_stat_add(tkrt_autotuner_t* tuner, uint64_t* counter);
size_t tkrt_load_timings(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
    const tkrt_call_device_state_t* state, const tkrt_device_info_t* info, tkrt_tune_entry_t* entry,
    uint8_t* known);
void tkrt_save_timings(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
    const tkrt_call_device_state_t* state, const tkrt_device_info_t* info,
    const tkrt_tune_entry_t* entry, const uint8_t* known);
tkrt_status_t tkrt_local_decision(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
    const tkrt_call_device_state_t* state, const tkrt_call_launch_args_t* args,
    tkrt_tune_entry_t* entry, const char* store_key);

/* Decides which config of an autotuned call runs on args->device, filling out_decision (config,
 * source, decided = true, provisional, capturing). A provisional answer (capture fallback) holds
 * for this launch only and must not be cached (launch.c). */
tkrt_status_t tkrt_autotuner_decide(tkrt_autotuner_t* tuner, tkrt_call_t* call,
                                    tkrt_call_device_state_t* state,
                                    const tkrt_call_launch_args_t* args,
                                    tkrt_launch_decision_t* out_decision);

/* ---------------------------------------------------------------- decide_exchange.c */

tkrt_status_t tkrt_exchange_decide(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
    const tkrt_call_device_state_t* state, const tkrt_call_launch_args_t* args,
    tkrt_tune_entry_t* entry, bool stored, const char* store_key);

#endif /* TKRT_CORE_TUNE_TUNE_INTERNAL_H_ */
