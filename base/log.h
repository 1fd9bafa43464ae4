/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: logging from inside the library (the public API is tkrt/log.h). TKRT_LOG_AT checks the
 * level with one relaxed atomic load before anything is formatted, so a message the level drops
 * costs a load and a compare:
 *
 *   TKRT_LOG_AT(TKRT_LOG_INFO, "cuda", "loaded %s", name);
 *
 * Rules for the library's own log sites (docs/logging.md): log after releasing the locks you can
 * (a sink may block: Python's takes the GIL); never log from the host backend's worker threads
 * (tkrt.triton's launch path holds the GIL while it waits for them); name the component ("tune",
 * "cuda", "hip", "host", "xla"). */
#ifndef TKRT_BASE_LOG_H_
#define TKRT_BASE_LOG_H_

#include <stdatomic.h>
#include <stdbool.h>

#include "tkrt/log.h"

/* The threshold (a tkrt_log_level_t); written by tkrt_log_set_level. */
extern atomic_int tkrt_log_threshold;

static inline bool tkrt_log_enabled(tkrt_log_level_t level) {
  return (int)level <= atomic_load_explicit(&tkrt_log_threshold, memory_order_relaxed);
}

#define TKRT_LOG_AT(level, component, ...)                                   \
  do {                                                                       \
    if (tkrt_log_enabled(level)) tkrt_log_message((level), (component), __VA_ARGS__); \
  } while (0)

/* Raises the threshold to `level` unless it already delivers that much (never lowers it): what
 * tkrt_device_options_t.log asks for when a device opens. */
void tkrt_log_raise_level(tkrt_log_level_t level);

#endif /* TKRT_BASE_LOG_H_ */
