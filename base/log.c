/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: the log (tkrt/log.h): a threshold, one sink, and the default sink (a line on stderr).
 *
 * The sink lives in one of two slots; `tkrt_log_current` says which. A log call counts itself in
 * the current slot's `calls`, checks that the slot is still current (else it uncounts and tries
 * again), calls the slot's sink and uncounts. A swap (serialised by a mutex) fills the other slot,
 * makes it current, and waits until the old slot's count is zero: from then on nothing runs the
 * old sink, and the slot can be refilled by the next swap. With sequentially consistent atomics a
 * call either sees the swap (and moves to the new slot) or is counted before the swap looks. No
 * allocation and no lock on the logging path. */
#include "base/log.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

enum { TKRT_LOG_MESSAGE_MAX = 2048 };

atomic_int tkrt_log_threshold = TKRT_LOG_WARN;

typedef struct tkrt_log_slot {
  _Atomic(tkrt_log_fn) fn; /* NULL: the default sink */
  _Atomic(void*) user;
  atomic_uint calls; /* log calls counted in this slot (running, or about to re-check) */
} tkrt_log_slot_t;

static tkrt_log_slot_t tkrt_log_slots[2];
static atomic_uint tkrt_log_current;
static pthread_mutex_t tkrt_log_swap_lock = PTHREAD_MUTEX_INITIALIZER;
/* How deep this thread is in sink calls: a message logged from inside a sink goes to stderr, and
 * a swap from inside a sink is refused. */
static _Thread_local unsigned tkrt_log_depth;

const char* tkrt_log_level_name(tkrt_log_level_t level) {
  switch (level) {
    case TKRT_LOG_OFF: return "off";
    case TKRT_LOG_ERROR: return "error";
    case TKRT_LOG_WARN: return "warn";
    case TKRT_LOG_INFO: return "info";
    case TKRT_LOG_DEBUG: return "debug";
  }
  return "unknown";
}

static void tkrt_log_default_sink(tkrt_log_level_t level, const char* component,
                                  const char* message) {
  char line[TKRT_LOG_MESSAGE_MAX + 128];
  int n = snprintf(line, sizeof(line), "tkrt: %s: %s: %s\n", component,
                   level == TKRT_LOG_WARN ? "warning" : tkrt_log_level_name(level), message);
  if (n < 0) return;
  if ((size_t)n >= sizeof(line)) {
    n = (int)sizeof(line) - 1;
    line[n - 1] = '\n';
  }
  /* One write per line, so that lines from concurrent threads do not interleave. */
  fwrite(line, 1, (size_t)n, stderr);
}

static void tkrt_log_deliver(tkrt_log_level_t level, const char* component, const char* message) {
  if (tkrt_log_depth) {
    tkrt_log_default_sink(level, component, message);
    return;
  }
  unsigned slot;
  for (;;) {
    slot = atomic_load(&tkrt_log_current);
    atomic_fetch_add(&tkrt_log_slots[slot].calls, 1);
    if (atomic_load(&tkrt_log_current) == slot) break;
    atomic_fetch_sub(&tkrt_log_slots[slot].calls, 1);
  }
  tkrt_log_fn fn = atomic_load(&tkrt_log_slots[slot].fn);
  void* user = atomic_load(&tkrt_log_slots[slot].user);
  ++tkrt_log_depth;
  if (fn) {
    fn(user, level, component, message);
  } else {
    tkrt_log_default_sink(level, component, message);
  }
  --tkrt_log_depth;
  atomic_fetch_sub(&tkrt_log_slots[slot].calls, 1);
}

void tkrt_log_message(tkrt_log_level_t level, const char* component, const char* format, ...) {
  if (level < TKRT_LOG_ERROR || level > TKRT_LOG_DEBUG || !component || !format) return;
  if (!tkrt_log_enabled(level)) return;
  int saved_errno = errno; /* a log line must not change what the caller reports next */
  char message[TKRT_LOG_MESSAGE_MAX];
  va_list args;
  va_start(args, format);
  int n = vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  if (n < 0) {
    snprintf(message, sizeof(message), "(a message could not be formatted: %s)", format);
  } else if ((size_t)n >= sizeof(message)) {
    memcpy(message + sizeof(message) - 4, "...", 4);
  }
  tkrt_log_deliver(level, component, message);
  errno = saved_errno;
}

tkrt_status_t tkrt_log_set_sink(tkrt_log_fn fn, void* user) {
  if (tkrt_log_depth) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                            "tkrt_log_set_sink: called from inside a log sink; it waits for "
                            "running sink calls to end, so it would wait for itself");
  }
  pthread_mutex_lock(&tkrt_log_swap_lock);
  unsigned old = atomic_load(&tkrt_log_current);
  unsigned next = 1u - old;
  /* The other slot is idle: the swap that left it waited for its calls. A call that counts
   * itself there now sees that it is not current and leaves without reading it. */
  atomic_store(&tkrt_log_slots[next].fn, fn);
  atomic_store(&tkrt_log_slots[next].user, user);
  atomic_store(&tkrt_log_current, next);
  while (atomic_load(&tkrt_log_slots[old].calls) != 0) sched_yield();
  pthread_mutex_unlock(&tkrt_log_swap_lock);
  return NULL;
}

tkrt_status_t tkrt_log_set_level(tkrt_log_level_t level) {
  if ((int)level < TKRT_LOG_OFF || (int)level > TKRT_LOG_DEBUG) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_log_set_level: %d is not a log level (0 off to 4 debug)",
                            (int)level);
  }
  atomic_store_explicit(&tkrt_log_threshold, (int)level, memory_order_relaxed);
  return NULL;
}

tkrt_log_level_t tkrt_log_get_level(void) {
  return (tkrt_log_level_t)atomic_load_explicit(&tkrt_log_threshold, memory_order_relaxed);
}

void tkrt_log_raise_level(tkrt_log_level_t level) {
  int current = atomic_load_explicit(&tkrt_log_threshold, memory_order_relaxed);
  while (current < (int)level &&
         !atomic_compare_exchange_weak_explicit(&tkrt_log_threshold, &current, (int)level,
                                                memory_order_relaxed, memory_order_relaxed)) {
  }
}

tkrt_status_t tkrt_log_level_from_string(const char* text, tkrt_log_level_t* out_level) {
  static const struct {
    const char* word;
    tkrt_log_level_t level;
  } words[] = {
      {"off", TKRT_LOG_OFF},    {"error", TKRT_LOG_ERROR}, {"warn", TKRT_LOG_WARN},
      {"warning", TKRT_LOG_WARN}, {"info", TKRT_LOG_INFO}, {"debug", TKRT_LOG_DEBUG},
      /* The switch words of every tkrt setting: on is everything (TKRT_LOG=1 before levels). */
      {"0", TKRT_LOG_OFF},      {"no", TKRT_LOG_OFF},      {"false", TKRT_LOG_OFF},
      {"none", TKRT_LOG_OFF},   {"1", TKRT_LOG_DEBUG},     {"on", TKRT_LOG_DEBUG},
      {"yes", TKRT_LOG_DEBUG},  {"true", TKRT_LOG_DEBUG},
  };
  if (!out_level) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_log_level_from_string: out_level is NULL");
  }
  for (size_t i = 0; text && i < sizeof(words) / sizeof(words[0]); ++i) {
    if (strcasecmp(text, words[i].word) == 0) {
      *out_level = words[i].level;
      return NULL;
    }
  }
  return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                          "log level '%.200s' is not one of off, error, warn, info, debug (or a "
                          "switch word: 1, on, yes, true are debug; 0, off, no, false are off)",
                          text ? text : "(null)");
}
