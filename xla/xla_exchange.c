/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt xla: the decision exchange of the adapter's tuner (docs/autotuning.md, "JAX"). Set through
 * tkrt_xla_set_exchange before the adapter hands its settings to the runtime (the first device
 * open), applied then by tkrt_xla_exchange_apply; the tune report and counters of that tuner for
 * the Python package (tkrt.use_jax_distributed, tkrt.exchange.xla_tune_report). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "xla/xla_internal.h"

static struct {
  pthread_mutex_t lock;
  bool applied; /* handed to the runtime: fixed from now on */
  bool set;
  tkrt_exchange_t exchange; /* the tuner copies it at creation; `user` is the caller's */
  tkrt_exchange_policy_t policy;
  uint32_t ranks, timeout_ms;
  char tuning_key[256];
} tkrt_xla_exchange_config = {.lock = PTHREAD_MUTEX_INITIALIZER};

int tkrt_xla_set_exchange(const tkrt_exchange_t* exchange, int policy, uint32_t ranks,
                          uint32_t timeout_ms, const char* tuning_key, char* error,
                          size_t capacity) {
  if (capacity) error[0] = '\0';
  if (exchange) {
    if (exchange->struct_size != sizeof(*exchange)) {
      snprintf(error, capacity,
               "tkrt_xla_set_exchange: the exchange's struct_size is %zu, not %zu "
               "(tkrt_exchange_init)",
               exchange->struct_size, sizeof(*exchange));
      return 3; /* INVALID_ARGUMENT */
    }
    if (!exchange->set || !exchange->get || !exchange->add) {
      snprintf(error, capacity, "tkrt_xla_set_exchange: the exchange needs set, get and add");
      return 3;
    }
    if (policy != TKRT_EXCHANGE_POLICY_LEADER && policy != TKRT_EXCHANGE_POLICY_MERGE) {
      snprintf(error, capacity, "tkrt_xla_set_exchange: unknown policy %d (0 leader, 1 merge)",
               policy);
      return 3;
    }
    if (ranks == 0 || ranks > 65536) {
      snprintf(error, capacity, "tkrt_xla_set_exchange: ranks is %u; it must be 1..65536", ranks);
      return 3;
    }
    if (tuning_key && strlen(tuning_key) >= sizeof(tkrt_xla_exchange_config.tuning_key)) {
      snprintf(error, capacity, "tkrt_xla_set_exchange: the tuning key is longer than %zu bytes",
               sizeof(tkrt_xla_exchange_config.tuning_key) - 1);
      return 3;
    }
  }
  pthread_mutex_lock(&tkrt_xla_exchange_config.lock);
  int code = 0;
  if (tkrt_xla_exchange_config.applied) {
    snprintf(error, capacity,
             "tkrt_xla_set_exchange: the tuner's settings are in use (a device was opened); set "
             "the exchange before the first tkrt call in the process");
    code = 9; /* FAILED_PRECONDITION */
  } else if (!exchange) {
    tkrt_xla_exchange_config.set = false;
  } else {
    tkrt_xla_exchange_config.set = true;
    tkrt_xla_exchange_config.exchange = *exchange;
    tkrt_xla_exchange_config.policy = (tkrt_exchange_policy_t)policy;
    tkrt_xla_exchange_config.ranks = ranks;
    tkrt_xla_exchange_config.timeout_ms = timeout_ms;
    snprintf(tkrt_xla_exchange_config.tuning_key, sizeof(tkrt_xla_exchange_config.tuning_key),
             "%s", tuning_key ? tuning_key : "");
  }
  pthread_mutex_unlock(&tkrt_xla_exchange_config.lock);
  return code;
}

bool tkrt_xla_exchange_apply(tkrt_autotuner_options_t* tuner) {
  pthread_mutex_lock(&tkrt_xla_exchange_config.lock);
  tkrt_xla_exchange_config.applied = true;
  bool set = tkrt_xla_exchange_config.set;
  if (set) {
    tuner->exchange = &tkrt_xla_exchange_config.exchange; /* static: outlives the tuner */
    tuner->exchange_policy = tkrt_xla_exchange_config.policy;
    tuner->exchange_ranks = tkrt_xla_exchange_config.ranks;
    tuner->exchange_timeout_ms = tkrt_xla_exchange_config.timeout_ms;
    tuner->tuning_key = tkrt_xla_exchange_config.tuning_key;
  }
  pthread_mutex_unlock(&tkrt_xla_exchange_config.lock);
  return set;
}

static int tkrt_xla_status_code(tkrt_status_t status, char* error, size_t capacity) {
  if (!status) return 0;
  int code = (int)tkrt_status_code(status);
  snprintf(error, capacity, "%s", tkrt_status_message(status));
  tkrt_status_free(status);
  return code ? code : 13;
}

int tkrt_xla_tune_report(const void* opaque, size_t size, int ordinal, tkrt_tune_report_t* report,
                         char* error, size_t capacity) {
  if (capacity) error[0] = '\0';
  if (!opaque || !report) {
    snprintf(error, capacity, "tkrt_xla_tune_report: NULL argument");
    return 3;
  }
  tkrt_runtime_t* rt = NULL;
  const tkrt_xla_entry_t* entry = NULL;
  tkrt_status_t status = tkrt_xla_runtime(&rt);
  if (!status) status = tkrt_xla_entry_get(opaque, size, &entry);
  if (status) return tkrt_xla_status_code(status, error, capacity);
  /* A device opens only after the settling; checked first all the same, as tuner_stats does. */
  tkrt_device_t* device =
      tkrt_xla_is_settled() ? tkrt_runtime_device_find(rt, tkrt_xla_backends(), ordinal) : NULL;
  if (!device) {
    snprintf(error, capacity, "tkrt_xla_tune_report: device %d is not open (no call ran on it)",
             ordinal);
    return 5; /* NOT_FOUND */
  }
  tkrt_autotuner_t* tuner = NULL;
  status = tkrt_runtime_tuner(rt, &tuner);
  if (!status) {
    status = tkrt_autotuner_get_report(tuner, entry->call, tkrt_device_info(device)->arch, report);
  }
  return tkrt_xla_status_code(status, error, capacity);
}

void tkrt_xla_tuner_stats(tkrt_autotuner_stats_t* stats) {
  /* Only once the runtime has the adapter's settings (set_options succeeded, not merely the
   * exchange applied to them): creating the tuner earlier would freeze the runtime, and the
   * settling's tkrt_runtime_set_options would then fail every later XLA call. */
  if (!tkrt_xla_is_settled() || !stats) return;
  tkrt_runtime_t* rt = NULL;
  tkrt_autotuner_t* tuner = NULL;
  tkrt_status_t status = tkrt_xla_runtime(&rt);
  if (!status) status = tkrt_runtime_tuner(rt, &tuner);
  if (!status) status = tkrt_autotuner_get_stats(tuner, stats);
  tkrt_status_free(status);
}
