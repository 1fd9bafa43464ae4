/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: choosing among the configs of an autotuned call. Decisions are cached per (call digest,
 * device arch), shared by devices of the same arch, persisted across processes, and pinnable. */
#ifndef TKRT_AUTOTUNE_H_
#define TKRT_AUTOTUNE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/api.h"
#include "tkrt/call.h"
#include "tkrt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tkrt_tune_policy {
  TKRT_TUNE_POLICY_AUTO = 0,  /* use a pinned or known decision, else benchmark */
  TKRT_TUNE_POLICY_NEVER = 1, /* never benchmark: a pinned or known decision, else the first config */
} tkrt_tune_policy_t;

/* What an autotuned call does when it has no decision yet and its stream is capturing (CUDA
 * graphs, XLA command buffers), where benchmarking is impossible: the graph would record the
 * tuning launches, and the buffers may not hold their data yet. */
typedef enum tkrt_capture_policy {
  /* FAILED_PRECONDITION, explaining how to get a decision first. */
  TKRT_CAPTURE_POLICY_ERROR = 0,
  /* Launch the first config for this capture without recording a decision, so the next launch
   * outside capture still benchmarks; a pinned or stored decision is used when there is one. */
  TKRT_CAPTURE_POLICY_FIRST_CONFIG = 1,
} tkrt_capture_policy_t;

/* ---------------------------------------------------------------- the decision exchange */

/* What an exchange callback returns. */
typedef enum tkrt_exchange_result {
  TKRT_EXCHANGE_OK = 0,
  TKRT_EXCHANGE_NOT_FOUND = 1,         /* get: the key does not exist (timeout 0) */
  TKRT_EXCHANGE_DEADLINE_EXCEEDED = 2, /* get: the key did not appear within the timeout */
  TKRT_EXCHANGE_ERROR = 3,             /* the store failed (connection lost, I/O error, ...) */
} tkrt_exchange_result_t;

/* A key-value store that ranks share (JAX's coordination service, a c10d store, a folder), through
 * which tuners of several processes agree on one decision per call (docs/autotuning.md). Keys are
 * NUL-terminated strings of at most TKRT_EXCHANGE_MAX_KEY characters from [A-Za-z0-9._-]; values
 * are bytes. Callbacks run on the launching thread that decides a call, without any tuner lock
 * held; threads deciding different calls may call them at the same time, so they must be
 * thread-safe (the folder adapter is). get must not block longer than asked; set and add should
 * return promptly (a store that is down answers TKRT_EXCHANGE_ERROR). Plain C function pointers
 * with a user pointer, so that ctypes (CFUNCTYPE) callbacks around a Python store object fit. */
typedef struct tkrt_exchange {
  size_t struct_size; /* tkrt_exchange_init */
  void* user;
  /* Stores `size` bytes under `key`, replacing an earlier value. */
  tkrt_exchange_result_t (*set)(void* user, const char* key, const void* value, size_t size);
  /* Waits up to timeout_ms for `key`. On OK copies min(size, capacity) bytes into `value` and sets
   * *out_size to the value's full size (larger than capacity: the tuner refuses it as oversized). */
  tkrt_exchange_result_t (*get)(void* user, const char* key, uint32_t timeout_ms, void* value,
                                size_t capacity, size_t* out_size);
  /* Adds `delta` to the integer counter `key` (a missing key counts from 0), atomically across
   * ranks, and sets *out_value to the new value. */
  tkrt_exchange_result_t (*add)(void* user, const char* key, int64_t delta, int64_t* out_value);
  /* Optional (NULL: set and add above, which "should return promptly"): set and add within
   * `timeout_ms`, the time the rank has left before its exchange deadline (a late leader's
   * publication: TKRT_EXCHANGE_LATE_MS), returning TKRT_EXCHANGE_DEADLINE_EXCEEDED when the store
   * does not answer in time; the tuner calls these when given, so that a store that blocks (a
   * folder counter whose lock another process holds, a Python store that hangs) keeps the rank's
   * wait within exchange_timeout_ms. */
  tkrt_exchange_result_t (*set_within)(void* user, const char* key, const void* value,
                                       size_t size, uint32_t timeout_ms);
  tkrt_exchange_result_t (*add_within)(void* user, const char* key, int64_t delta,
                                       uint32_t timeout_ms, int64_t* out_value);
} tkrt_exchange_t;

/* What a publication after the deadline (a leader or a merging rank that finished late, telling
 * late readers the fallback) may take: it is this rank's own time, after the others gave up. */
#define TKRT_EXCHANGE_LATE_MS 1000u

#define TKRT_EXCHANGE_MAX_KEY 200
/* The largest value the tuner publishes or accepts (a timings value is ~16 bytes per config). */
#define TKRT_EXCHANGE_MAX_VALUE ((size_t)64 << 10)

TKRT_API void tkrt_exchange_init(tkrt_exchange_t* exchange);

/* The shared-folder exchange: every key is a file in `dir` (created as needed), written to a new
 * O_EXCL temporary file and renamed into place; counters are files updated under flock (add waits
 * at most 10 s for it, then fails). The folder and its files must be trusted like the decision
 * store's (this user's or root's, writable by no one else) unless trust_shared; links are never
 * followed; a refused folder is not left behind. For processes on one host or a shared file
 * system with working flock. Release with tkrt_exchange_folder_destroy. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_exchange_folder_create(const char* dir, bool trust_shared,
                                                    tkrt_exchange_t* out_exchange);
TKRT_API void tkrt_exchange_folder_destroy(tkrt_exchange_t* exchange);

typedef enum tkrt_exchange_policy {
  /* The first rank to claim a call (add(claim, 1) == 1) decides it (store or benchmark) and
   * publishes its choice; the others wait up to exchange_timeout_ms and launch the same config. */
  TKRT_EXCHANGE_POLICY_LEADER = 0,
  /* Every rank times every config (or reads its timings from the store), publishes them, waits up
   * to exchange_timeout_ms for exchange_ranks ranks' timings, and all choose the config with the
   * lowest median time across ranks (ties: the lower index). */
  TKRT_EXCHANGE_POLICY_MERGE = 1,
} tkrt_exchange_policy_t;

typedef struct tkrt_autotuner_options {
  size_t struct_size;
  tkrt_tune_policy_t policy;
  tkrt_capture_policy_t capture_policy;
  /* Each config runs enough iterations to fill target_ms (based on one timed launch), at least
   * one and at most max_iterations, after a warm-up launch. Defaults: 10 ms, 100 (jaxlib's). */
  double target_ms;
  uint32_t max_iterations;
  /* Decision store directory; NULL, "" or "off": decisions live in memory only
   * (tkrt_options_from_environment picks $TKRT_TUNE_DIR or ~/.cache/tkrt/tune). */
  const char* store_dir;
  /* Trust store entries (and the folder) that another user owns or can write: a store shared
   * on purpose (docs/security.md). Default false: such entries are ignored, and tuning happens. */
  bool trust_shared_store;
  /* Pinned configs, parsed at creation: a comma list of <digest hex or prefix, or *>[@arch]=
   * <config index>, e.g. "3fa9c2=1,*=0" (what TKRT_TUNE_PIN holds); NULL: none. */
  const char* pins;
  /* Benchmark even when the store has a decision (which is then replaced). Pins still win. */
  bool refresh_store;
  /* Called after each measurement while benchmarking (pass 1: one launch; pass 2: the mean over
   * `iterations` launches), from the launching thread; may be NULL. */
  void (*progress)(void* user, size_t config, size_t config_count, int pass, uint32_t iterations,
                   float ms);
  void* progress_user;
  /* Pruning (docs/autotuning.md): pass 2 runs in two rounds, the first over a quarter of the
   * iterations; a config whose first-round mean is more than (1 + prune_margin) x the best
   * first-round mean is not timed further. Configs within the margin are always measured with the
   * full iteration count, so the winner is. Default 0.25; a negative value turns pruning off. */
  double prune_margin;
  /* The decision exchange (copied at creation; its `user` must outlive the tuner); NULL: each
   * process decides alone. Used for calls that are not pinned and not yet decided here. */
  const tkrt_exchange_t* exchange;
  tkrt_exchange_policy_t exchange_policy;
  uint32_t exchange_ranks;      /* merge: the number of ranks that publish timings (>= 1) */
  uint32_t exchange_timeout_ms; /* the longest a rank waits for others; default 60000 */
  /* A string that tells apart runs of one call whose best config differs (e.g. a problem-size
   * bucket); part of every exchange key. NULL or "": none. */
  const char* tuning_key;
  /* Refuse to benchmark: a call with no pinned, stored or exchanged decision fails with
   * FAILED_PRECONDITION naming its key (TKRT_TUNE_REQUIRE_COMPLETE=1 for the tools). */
  bool require_complete;
} tkrt_autotuner_options_t;

/* Pass 2 is split into rounds only when it has at least this many iterations per config (the
 * first round then averages at least two launches). */
#define TKRT_TUNE_PRUNE_MIN_ITERATIONS 8

TKRT_API void tkrt_autotuner_options_init(tkrt_autotuner_options_t* options);
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_autotuner_create(const tkrt_autotuner_options_t* options,
                                             tkrt_autotuner_t** out_tuner);
/* No call may be launching with the tuner. */
TKRT_API void tkrt_autotuner_destroy(tkrt_autotuner_t* tuner);

/* Pins a call's config for one arch (or every arch when arch is NULL). Pinned decisions win over
 * everything else and are never benchmarked (options.pins does the same by digest). */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_autotuner_pin(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
                                          const char* arch, size_t config_index);

/* tkrt_tune_source_t is declared in tkrt/call.h (a launch reports it). */

#define TKRT_TUNE_SKIPPED_MS (-1.0f)

typedef struct tkrt_tune_report {
  size_t struct_size;
  tkrt_tune_source_t source;
  size_t chosen;         /* config index */
  size_t config_count;
  uint32_t iterations;   /* timed launches per config in the final pass (TUNED, STORE) */
  /* Per-config mean launch time in ms (TUNED and STORE), TKRT_TUNE_SKIPPED_MS for configs that
   * could not run on the device; filled up to times_capacity entries. */
  float* times_ms;
  size_t times_capacity;
  char skip_reason[256]; /* the first skipped config's reason, if any */
  /* The decision store entry the decision was read from (STORE) or written to (TUNED); "" when
   * the store was not used (off, unusable, or a failed write, which is warned about). */
  char store_file[1024];
  char fallback_reason[256]; /* FALLBACK: why the call could not be tuned; "" otherwise */
  /* Pruning in pass 2 (TUNED in this process; zero otherwise, except prune_margin). */
  uint32_t round1_iterations; /* launches per config in the first round; 0: pass 2 was one round
                                 (pruning off, fewer than TKRT_TUNE_PRUNE_MIN_ITERATIONS, or a
                                 single runnable config) */
  double prune_margin;        /* the tuner's margin (negative: pruning off) */
  float round1_best_ms;       /* the best first-round mean, which pruning compared against */
  size_t pruned_count;        /* configs dropped after the first round */
  /* Per config, filled up to times_capacity entries like times_ms (NULL: not filled): 1 when the
   * config was dropped after the first round because its mean (then its times_ms entry) was more
   * than (1 + prune_margin) x round1_best_ms, else 0. */
  uint8_t* pruned;
  uint64_t timed_launches;    /* timed launches of passes 1 and 2 together (no warm-ups) */
  /* The exchange (EXCHANGE, EXCHANGE_FALLBACK, or TUNED/STORE by this process as the leader or
   * as one of the merged ranks): the key's hex digest, this rank's role ("leader", "follower",
   * "merge") and, for merge, how many ranks' timings were merged. "" and 0 without an exchange. */
  char exchange_key[65];
  char exchange_role[16];
  uint32_t exchange_ranks;
} tkrt_tune_report_t;

/* Counters over the tuner's life (all decisions, every call). */
typedef struct tkrt_autotuner_stats {
  size_t struct_size;
  uint64_t exchange_leader;    /* decisions this rank made and published as the leader */
  uint64_t exchange_follower;  /* decisions taken from another rank's published choice */
  uint64_t exchange_merged;    /* decisions taken from merged timings */
  uint64_t exchange_fallbacks; /* timeouts, failing stores, refused values: the fallback ran */
  uint64_t exchange_refused;   /* exchange values refused (malformed, oversized, another key) */
  uint64_t exchange_errors;    /* callbacks that returned TKRT_EXCHANGE_ERROR */
} tkrt_autotuner_stats_t;

TKRT_API void tkrt_autotuner_stats_init(tkrt_autotuner_stats_t* stats);
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_autotuner_get_stats(tkrt_autotuner_t* tuner,
                                                 tkrt_autotuner_stats_t* stats);

TKRT_API void tkrt_tune_report_init(tkrt_tune_report_t* report);
/* What the tuner decided for the call on devices of `arch` (tkrt_device_info(device)->arch). */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_autotuner_get_report(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
                                                 const char* arch, tkrt_tune_report_t* report);
TKRT_API const char* tkrt_tune_source_name(tkrt_tune_source_t source);

/* ---------------------------------------------------------------- the tuning database */

/* The tuner keeps each config's measured time in the store folder ("<key>.timing"), keyed by the
 * config alone (kernel, grid, parameters) and the device's arch, driver and SM count; a call whose
 * configs all have one is decided without benchmarking, and a call that gains a config times only
 * that one. A database file is the text "tkrt-tune-db 1" and one record a line:
 * "timing <config digest hex> <arch> <driver> <sm count> <ms> <iterations>" (docs/autotuning.md).
 * Texts returned here are malloc'd; release them with tkrt_tunedb_free. */

/* Every valid time in the store folder, sorted, as a database text; *out_skipped counts the
 * entries refused (malformed, untrusted, links, or named for another record). */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_tunedb_export(const char* store_dir, bool trust_shared,
                                           char** out_text, size_t* out_size,
                                           size_t* out_skipped);
/* Checks a whole database text (INVALID_ARGUMENT naming `where` and the line), then writes each
 * record into the store folder (replacing the time stored for the same config and device).
 * Several records of one config and device are one, by tkrt_tunedb_merge's rule (the median), as
 * everywhere. Each record is a file of its own, written to a temporary name and renamed, so a
 * failure (a full disk) leaves every record before it whole and none after: *out_count says how
 * many landed, and so does the error's message ("N of M records written"). Temporary files that
 * an earlier writer killed mid-write left behind are removed first, as by the decision store. The
 * folder must be trusted like the tuner's store (this user's or root's, writable by no one else)
 * unless trust_shared (the tuner's trust_shared_store, TKRT_TRUST_SHARED_STORES). */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_tunedb_import(const char* store_dir, bool trust_shared,
                                           const char* text, size_t size, const char* where,
                                           size_t* out_count);
/* Merges database texts into one: per (config, arch, driver, SM count), the median time across
 * the inputs that have it (the mean of the middle two for an even count) and the smallest
 * iteration count; sorted. Any invalid input is an error naming it (names[i]). */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_tunedb_merge(const char* const* texts, const size_t* sizes,
                                          const char* const* names, size_t count,
                                          char** out_text, size_t* out_size);
TKRT_API void tkrt_tunedb_free(char* text);

#ifdef __cplusplus
}
#endif

#endif /* TKRT_AUTOTUNE_H_ */
