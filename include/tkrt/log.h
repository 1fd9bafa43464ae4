/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: the library's log. Every message tkrt writes (warnings of the core and of every backend,
 * library and module loads, PTX JIT and cache events) goes through one sink with a level and a
 * component name, so that an embedder (an XLA plugin, PyTorch, a C++ service) can send them to
 * its own logger. By default messages at warn and above are written to stderr, one line each:
 *
 *   tkrt: <component>: <error|warning|info|debug>: <message>
 *
 * The level and the sink belong to the process: libtkrt_xla.so and the Python extension link this
 * library, so a process holds one copy and one log. A runtime object that owns its
 * settings will be able to own a sink too; these functions will then set the process default
 * that such an object starts from. See docs/logging.md. */
#ifndef TKRT_LOG_H_
#define TKRT_LOG_H_

#include <stddef.h>
#include <stdint.h>

#include "tkrt/api.h"
#include "tkrt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A message's importance; as a threshold (tkrt_log_set_level), the least important level that is
 * still delivered: TKRT_LOG_WARN delivers errors and warnings. TKRT_LOG_OFF delivers nothing and
 * is not a message level. */
typedef enum tkrt_log_level {
  TKRT_LOG_OFF = 0,
  TKRT_LOG_ERROR = 1, /* something failed that no status reports to a caller */
  TKRT_LOG_WARN = 2,  /* something is wrong and tkrt worked around it (a cache, a stored decision) */
  TKRT_LOG_INFO = 3,  /* what tkrt found and chose: libraries and devices opened */
  TKRT_LOG_DEBUG = 4, /* per-module and per-load detail: PTX JIT, cache hits and misses */
} tkrt_log_level_t;

/* Receives one message. `component` names the part of tkrt that wrote it ("tune", "cuda", "hip",
 * "host", "xla"); `message` is one line of text without a trailing newline (JIT logs may hold
 * several lines). Both are lent for the call only. Messages longer than 2047 bytes are cut and
 * end in "...".
 *
 * A sink is called on whatever thread logs: the caller's, or a thread tkrt or XLA runs (a sink
 * must be thread-safe). It may be called while tkrt works on a call (loading its modules, tuning
 * it): a sink must not call into tkrt other than tkrt_log_*, nor wait for a thread that may be
 * inside tkrt. tkrt_log_set_sink from inside a sink is refused (see there); a message tkrt logs
 * from inside a sink, on the sink's thread, goes to the default stderr sink instead of
 * recursing. */
typedef void (*tkrt_log_fn)(void* user, tkrt_log_level_t level, const char* component,
                            const char* message);

/* Makes `fn` (called with `user`) the sink for every later message; NULL restores the default
 * (stderr). When it returns, no call to the previous sink is running on any thread and none will
 * start, so the previous sink's `user` may be freed. It waits for those calls to end, so it is
 * FAILED_PRECONDITION when called from inside a sink (it would wait for itself). Swaps from
 * several threads are serialised. Messages logged during a swap reach the old sink or the new
 * one, each exactly once; messages still queued for a queued sink (below) are delivered to it
 * before the swap returns. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_log_set_sink(tkrt_log_fn fn, void* user);

/* A sink for embedders whose logger cannot be entered from every thread: Python's `logging`,
 * which needs the GIL, while a thread that holds the GIL may be waiting for a thread that logs (a
 * module loader, an XLA thread). A message goes to `fn` at once on a thread where `direct()`
 * returns non-zero (NULL: never), and is otherwise copied into a queue of `capacity` messages
 * (1..TKRT_LOG_QUEUE_MAX) that tkrt_log_drain delivers on a thread of the embedder's choosing;
 * a message logged while the queue is full is dropped and counted, and the next delivery is a
 * warning (component "log") saying how many were dropped. Logging never waits for the embedder.
 * A swap to another sink (tkrt_log_set_sink, or this function again) delivers what is still
 * queued to the sink it was queued for before it returns, on the swapping thread, after waiting
 * for drains that are delivering: the promise of tkrt_log_set_sink holds. FAILED_PRECONDITION
 * from inside a sink; INVALID_ARGUMENT for a NULL fn or a capacity out of range. */
#define TKRT_LOG_QUEUE_MAX 4096
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_log_set_queued_sink(tkrt_log_fn fn, void* user,
                                                              int (*direct)(void),
                                                              size_t capacity);

/* Delivers the queued messages (tkrt_log_set_queued_sink) on the calling thread, oldest first:
 * waits up to timeout_ms (0: not at all) for one to arrive when none is queued, then delivers
 * every one queued by then and the ones that arrive meanwhile. Returns how many it delivered.
 * Several threads may drain at once (each message is delivered once). */
TKRT_API size_t tkrt_log_drain(uint32_t timeout_ms);
/* tkrt_log_drain(0), then waits until no other thread is delivering a queued message: when it
 * returns, every message queued before the call has reached the sink. It waits for those threads,
 * so a caller must not hold what they need to deliver (Python calls it with the GIL released).
 * From inside a sink it only drains. */
TKRT_API size_t tkrt_log_flush(void);
/* How many messages wait in the queue now. */
TKRT_API size_t tkrt_log_queued(void);

/* Sets the threshold (default TKRT_LOG_WARN; tkrt_options_from_environment sets it from TKRT_LOG).
 * Messages less important than `level` are dropped before they are formatted. INVALID_ARGUMENT
 * for a value that is not a tkrt_log_level_t. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_log_set_level(tkrt_log_level_t level);
TKRT_API tkrt_log_level_t tkrt_log_get_level(void);

/* Reads a level word, ignoring case: off, error, warn (or warning), info, debug; and the switch
 * words every tkrt setting accepts: 0, off, no, false, none are off; 1, on, yes, true are debug
 * (all of it, which is what TKRT_LOG=1 meant before levels existed). Anything else (or NULL) is
 * INVALID_ARGUMENT naming the text, and *out_level is left alone. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_log_level_from_string(const char* text,
                                                                tkrt_log_level_t* out_level);

/* "off", "error", "warn", "info", "debug"; "unknown" for other values. */
TKRT_API const char* tkrt_log_level_name(tkrt_log_level_t level);

/* Logs a message as tkrt does, for code built on tkrt (the XLA adapter, bindings): formatted when
 * `level` passes the threshold, then handed to the sink. A level outside error..debug, or a NULL
 * component or format, is dropped. */
TKRT_API void tkrt_log_message(tkrt_log_level_t level, const char* component, const char* format,
                               ...) TKRT_PRINTF_LIKE(3, 4);

#ifdef __cplusplus
}
#endif

#endif /* TKRT_LOG_H_ */
