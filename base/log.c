/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: the log (tkrt/log.h): a threshold, one sink, and the default sink (a line on stderr).
 *
 * The sink lives in one of two slots; `tkrt_log_current` says which. A log call counts itself in
 * the current slot's `calls`, checks that the slot is still current (else it uncounts and tries
 * again), calls the slot's sink and uncounts. A swap (serialised by a mutex) fills the other slot,
 * makes it current, and waits until the old slot's count is zero: from then on nothing runs the
 * old sink, and the slot can be refilled by the next swap. With sequentially consistent atomics a
 * call either sees the swap (and moves to the new slot) or is counted before the swap looks. No
 * allocation and no lock on the logging path.
 *
 * A queued sink (tkrt_log_set_queued_sink) is the sink tkrt_log_queue_sink over one process-wide
 * queue: a message goes to the embedder's sink at once on a thread where `direct` says it may
 * (Python: the thread holds the GIL), else it is copied into a bounded ring that tkrt_log_drain
 * empties on the embedder's own thread. The queue's entries remember their sink; a swap away from
 * a queued sink first waits for the slot's calls (as any swap), then for running drains, and
 * delivers what is still queued to that sink before it returns, so the swap's promise holds. */
#include "base/log.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
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

/* ---------------------------------------------------------------- the queue */

typedef struct tkrt_log_entry {
  uint64_t generation; /* the queue's generation when it was queued */
  tkrt_log_fn fn;
  void* user;
  tkrt_log_level_t level;
  char component[32];
  char message[TKRT_LOG_MESSAGE_MAX];
} tkrt_log_entry_t;

typedef struct tkrt_log_queue {
  pthread_mutex_t lock;
  pthread_cond_t ready;   /* an entry was queued, or the queue is being emptied by a swap */
  pthread_cond_t drained; /* a drain finished delivering */
  tkrt_log_fn fn;         /* the embedder's sink while the queued sink is current */
  void* user;
  int (*direct)(void);
  tkrt_log_entry_t* entries; /* ring of `capacity` */
  size_t capacity, head, count;
  /* Bumped by every swap once no call of the old slot runs: entries of an older generation may
   * belong to a sink just left. Swaps are serialised and each delivers every older entry before
   * it returns, so only two generations coexist: drains delivering right now (outside the lock)
   * are counted by their entry's generation's parity. */
  uint64_t generation;
  size_t delivering[2];
  uint64_t dropped;  /* messages refused because the ring was full, not yet reported */
} tkrt_log_queue_t;

static tkrt_log_queue_t tkrt_log_queue = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .ready = PTHREAD_COND_INITIALIZER,
    .drained = PTHREAD_COND_INITIALIZER,
};
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

/* Delivers one entry to its sink on this thread, counted in the sink depth like any call. */
static void tkrt_log_deliver_entry(const tkrt_log_entry_t* entry) {
  ++tkrt_log_depth;
  entry->fn(entry->user, entry->level, entry->component, entry->message);
  --tkrt_log_depth;
}

/* The sink of a queued route: the embedder's sink now where `direct` allows it on this thread,
 * else a copy in the ring (or a count of what the full ring refused). */
static void tkrt_log_queue_sink(void* user, tkrt_log_level_t level, const char* component,
                                const char* message) {
  tkrt_log_queue_t* q = user;
  pthread_mutex_lock(&q->lock);
  tkrt_log_fn fn = q->fn;
  void* fn_user = q->user;
  int (*direct)(void) = q->direct;
  pthread_mutex_unlock(&q->lock);
  if (!fn) return; /* cannot happen: the route is set before it is current */
  if (direct && direct()) {
    fn(fn_user, level, component, message); /* the depth was counted by tkrt_log_deliver */
    return;
  }
  pthread_mutex_lock(&q->lock);
  if (q->count == q->capacity) {
    ++q->dropped;
  } else {
    tkrt_log_entry_t* e = &q->entries[(q->head + q->count) % q->capacity];
    e->generation = q->generation;
    e->fn = fn;
    e->user = fn_user;
    e->level = level;
    snprintf(e->component, sizeof(e->component), "%s", component);
    snprintf(e->message, sizeof(e->message), "%s", message);
    ++q->count;
    pthread_cond_signal(&q->ready);
  }
  pthread_mutex_unlock(&q->lock);
}

/* Takes the oldest entry, or the report of dropped messages, into *out (under q->lock). */
static bool tkrt_log_queue_pop(tkrt_log_queue_t* q, tkrt_log_entry_t* out) {
  if (q->dropped && q->fn) {
    out->generation = q->generation;
    out->fn = q->fn;
    out->user = q->user;
    out->level = TKRT_LOG_WARN;
    snprintf(out->component, sizeof(out->component), "log");
    snprintf(out->message, sizeof(out->message),
             "%llu messages were dropped: the queue of %zu messages waiting for delivery was full",
             (unsigned long long)q->dropped, q->capacity);
    q->dropped = 0;
    return true;
  }
  if (!q->count) return false;
  *out = q->entries[q->head];
  q->head = (q->head + 1) % q->capacity;
  --q->count;
  return true;
}

/* After a swap away from a queued route: delivers every entry older than `generation` on this
 * thread, and waits for drains delivering older entries, so that no entry of a previous sink
 * outlives the swap. Entries of the new generation are left to the drains. */
static void tkrt_log_queue_flush(tkrt_log_queue_t* q, uint64_t generation) {
  static _Thread_local tkrt_log_entry_t entry; /* 2 KiB: not on the caller's stack */
  pthread_mutex_lock(&q->lock);
  for (;;) {
    bool older = q->count && q->entries[q->head].generation < generation;
    if (!older && q->dropped && q->fn) older = true; /* the drop report, to the route's sink */
    if (!older || !tkrt_log_queue_pop(q, &entry)) break;
    pthread_mutex_unlock(&q->lock);
    tkrt_log_deliver_entry(&entry);
    pthread_mutex_lock(&q->lock);
  }
  while (q->delivering[(generation - 1) & 1]) pthread_cond_wait(&q->drained, &q->lock);
  pthread_mutex_unlock(&q->lock);
}

/* The swap of tkrt_log_set_sink (its lock held by the caller). */
static void tkrt_log_swap_locked(tkrt_log_fn fn, void* user) {
  unsigned old = atomic_load(&tkrt_log_current);
  unsigned next = 1u - old;
  /* The other slot is idle: the swap that left it waited for its calls. A call that counts
   * itself there now sees that it is not current and leaves without reading it. */
  atomic_store(&tkrt_log_slots[next].fn, fn);
  atomic_store(&tkrt_log_slots[next].user, user);
  atomic_store(&tkrt_log_current, next);
  while (atomic_load(&tkrt_log_slots[old].calls) != 0) sched_yield();
  /* Messages queued for the sink just left (or, on a queued route's change of sink, for either)
   * are delivered now. */
  if (atomic_load(&tkrt_log_slots[old].fn) == tkrt_log_queue_sink) {
    pthread_mutex_lock(&tkrt_log_queue.lock);
    uint64_t generation = ++tkrt_log_queue.generation;
    pthread_mutex_unlock(&tkrt_log_queue.lock);
    tkrt_log_queue_flush(&tkrt_log_queue, generation);
    if (fn != tkrt_log_queue_sink) {
      /* No route left: nothing may reach the embedder's sink after the swap returns. */
      pthread_mutex_lock(&tkrt_log_queue.lock);
      tkrt_log_queue.fn = NULL;
      tkrt_log_queue.user = NULL;
      pthread_mutex_unlock(&tkrt_log_queue.lock);
    }
  }
}

tkrt_status_t tkrt_log_set_sink(tkrt_log_fn fn, void* user) {
  if (tkrt_log_depth) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                            "tkrt_log_set_sink: called from inside a log sink; it waits for "
                            "running sink calls to end, so it would wait for itself");
  }
  pthread_mutex_lock(&tkrt_log_swap_lock);
  tkrt_log_swap_locked(fn, user);
  pthread_mutex_unlock(&tkrt_log_swap_lock);
  return NULL;
}

tkrt_status_t tkrt_log_set_queued_sink(tkrt_log_fn fn, void* user, int (*direct)(void),
                                       size_t capacity) {
  if (tkrt_log_depth) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                            "tkrt_log_set_queued_sink: called from inside a log sink; it waits "
                            "for running sink calls to end, so it would wait for itself");
  }
  if (!fn || capacity == 0 || capacity > TKRT_LOG_QUEUE_MAX) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_log_set_queued_sink: %s (a sink, and a capacity of 1..%d "
                            "messages)",
                            !fn ? "no sink" : "capacity out of range", TKRT_LOG_QUEUE_MAX);
  }
  tkrt_log_queue_t* q = &tkrt_log_queue;
  pthread_mutex_lock(&tkrt_log_swap_lock);
  pthread_mutex_lock(&q->lock);
  bool resize = q->capacity != capacity;
  pthread_mutex_unlock(&q->lock);
  tkrt_log_entry_t* entries = resize ? calloc(capacity, sizeof(*entries)) : NULL;
  if (resize && !entries) {
    pthread_mutex_unlock(&tkrt_log_swap_lock);
    return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED,
                            "tkrt_log_set_queued_sink: out of host memory for %zu messages",
                            capacity);
  }
  pthread_mutex_lock(&q->lock);
  if (resize) {
    /* Another ring size: what is queued moves over in order (the newest beyond the new size are
     * counted as dropped); enqueuers and drains use the ring under this lock only. */
    size_t kept = q->count < capacity ? q->count : capacity;
    for (size_t i = 0; i < kept; ++i) entries[i] = q->entries[(q->head + i) % q->capacity];
    q->dropped += q->count - kept;
    free(q->entries);
    q->entries = entries;
    q->capacity = capacity;
    q->head = 0;
    q->count = kept;
  }
  q->fn = fn;
  q->user = user;
  q->direct = direct;
  pthread_mutex_unlock(&q->lock);
  tkrt_log_swap_locked(tkrt_log_queue_sink, q);
  pthread_mutex_unlock(&tkrt_log_swap_lock);
  return NULL;
}

size_t tkrt_log_drain(uint32_t timeout_ms) {
  static _Thread_local tkrt_log_entry_t entry;
  tkrt_log_queue_t* q = &tkrt_log_queue;
  size_t delivered = 0;
  pthread_mutex_lock(&q->lock);
  if (!q->count && !q->dropped && timeout_ms) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout_ms / 1000u;
    deadline.tv_nsec += (long)(timeout_ms % 1000u) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
      deadline.tv_sec += 1;
      deadline.tv_nsec -= 1000000000L;
    }
    while (!q->count && !q->dropped) {
      if (pthread_cond_timedwait(&q->ready, &q->lock, &deadline) == ETIMEDOUT) break;
    }
  }
  while (tkrt_log_queue_pop(q, &entry)) {
    size_t parity = entry.generation & 1;
    ++q->delivering[parity];
    pthread_mutex_unlock(&q->lock);
    tkrt_log_deliver_entry(&entry);
    ++delivered;
    pthread_mutex_lock(&q->lock);
    if (--q->delivering[parity] == 0) pthread_cond_broadcast(&q->drained);
  }
  pthread_mutex_unlock(&q->lock);
  return delivered;
}

size_t tkrt_log_flush(void) {
  size_t delivered = tkrt_log_drain(0);
  if (tkrt_log_depth) return delivered; /* inside a sink: it may be the delivery waited for */
  tkrt_log_queue_t* q = &tkrt_log_queue;
  pthread_mutex_lock(&q->lock);
  while (q->delivering[0] || q->delivering[1]) pthread_cond_wait(&q->drained, &q->lock);
  pthread_mutex_unlock(&q->lock);
  return delivered;
}

size_t tkrt_log_queued(void) {
  pthread_mutex_lock(&tkrt_log_queue.lock);
  size_t count = tkrt_log_queue.count;
  pthread_mutex_unlock(&tkrt_log_queue.lock);
  return count;
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
