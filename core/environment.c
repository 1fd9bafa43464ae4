/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: tkrt_options_from_environment, the one function of the library that reads environment
 * variables (for tools: the CLI, libtkrt_xla, the Python package). */
#include "tkrt/environment.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Per-user cache folders ($XDG_CACHE_HOME/tkrt/<sub> when XDG_CACHE_HOME is absolute, as the XDG
 * spec wants, else $HOME/.cache/tkrt/<sub>) live here, so the pointers handed out stay valid;
 * rewritten (with the same text while the environment does not change) under the lock. */
static pthread_mutex_t tkrt_environment_lock = PTHREAD_MUTEX_INITIALIZER;
static char tkrt_environment_cubin_dir[4096];
static char tkrt_environment_tune_dir[4096];

static const char* tkrt_environment_cache_dir(const char* explicit_root, const char* sub,
                                              char* out, size_t capacity) {
  int written = -1;
  const char* xdg = getenv("XDG_CACHE_HOME");
  const char* home = getenv("HOME");
  if (explicit_root) {
    written = snprintf(out, capacity, "%s/%s", explicit_root, sub);
  } else if (xdg && xdg[0] == '/') {
    written = snprintf(out, capacity, "%s/tkrt/%s", xdg, sub);
  } else if (home && *home) {
    written = snprintf(out, capacity, "%s/.cache/tkrt/%s", home, sub);
  }
  return written > 0 && (size_t)written < capacity ? out : NULL;
}

static const char* tkrt_environment_get(const char* name) {
  const char* value = getenv(name);
  return value && *value ? value : NULL;
}

/* "1", "on", "yes", "true" (any case). */
static bool tkrt_environment_is_on(const char* value) {
  static const char* const on[] = {"1", "on", "yes", "true"};
  for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); ++i) {
    if (strcasecmp(value, on[i]) == 0) return true;
  }
  return false;
}

tkrt_status_t tkrt_options_from_environment(tkrt_device_options_t* device,
                                            tkrt_autotuner_options_t* tuner) {
  /* Everything is checked before anything is written. */
  const char* threads_text = tkrt_environment_get("TKRT_HOST_THREADS");
  long threads = 0;
  if (threads_text) {
    char* end = NULL;
    threads = strtol(threads_text, &end, 10);
    if (*end || threads < 1 || threads > 256) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "TKRT_HOST_THREADS is '%s'; expected a thread count from 1 to 256",
                              threads_text);
    }
  }
  const char* policy = tkrt_environment_get("TKRT_TUNE_POLICY");
  if (policy && strcmp(policy, "auto") != 0 && strcmp(policy, "never") != 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "TKRT_TUNE_POLICY is '%s'; expected auto or never", policy);
  }
  const char* margin_text = tkrt_environment_get("TKRT_TUNE_PRUNE_MARGIN");
  double margin = 0;
  if (margin_text) {
    char* end = NULL;
    margin = strtod(margin_text, &end);
    if (end == margin_text || *end || !isfinite(margin)) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "TKRT_TUNE_PRUNE_MARGIN is '%s'; expected a number (negative turns "
                              "pruning off)",
                              margin_text);
    }
  }
  const char* log_text = tkrt_environment_get("TKRT_LOG");
  tkrt_log_level_t log_level = TKRT_LOG_WARN;
  if (log_text && tkrt_status_consume_code(tkrt_log_level_from_string(log_text, &log_level))) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "TKRT_LOG is '%s'; expected off, error, warn, info or debug (or a "
                            "switch word: 1, on, yes, true are debug; 0, off, no, false are off)",
                            log_text);
  }
  pthread_mutex_lock(&tkrt_environment_lock);
  if (log_text) tkrt_status_free(tkrt_log_set_level(log_level)); /* process-wide (tkrt/log.h) */
  if (device) {
    const char* backend = tkrt_environment_get("TKRT_BACKEND");
    if (backend) device->backend = backend;
    if (threads) device->host_threads = (uint32_t)threads;
    const char* cache = tkrt_environment_get("TKRT_CACHE_DIR");
    const char* shared = tkrt_environment_get("TKRT_TRUST_SHARED_STORES");
    if (shared) device->trust_shared_cache = tkrt_environment_is_on(shared);
    const char* hip = tkrt_environment_get("TKRT_HIP_LIBRARY");
    if (hip) device->hip_library = hip;
    /* "off" (and its synonyms) reaches the backend as is: no cache. */
    static const char* const off[] = {"off", "0", "none", "false", "no"};
    int is_off = 0;
    for (size_t i = 0; cache && i < sizeof(off) / sizeof(off[0]); ++i) {
      is_off = is_off || strcasecmp(cache, off[i]) == 0;
    }
    device->cache_dir = is_off ? "off"
                               : tkrt_environment_cache_dir(cache, "cubin",
                                                            tkrt_environment_cubin_dir,
                                                            sizeof(tkrt_environment_cubin_dir));
  }
  if (tuner) {
    if (policy) {
      tuner->policy = strcmp(policy, "never") == 0 ? TKRT_TUNE_POLICY_NEVER : TKRT_TUNE_POLICY_AUTO;
    }
    const char* shared = tkrt_environment_get("TKRT_TRUST_SHARED_STORES");
    if (shared) tuner->trust_shared_store = tkrt_environment_is_on(shared);
    if (margin_text) tuner->prune_margin = margin;
    const char* pins = tkrt_environment_get("TKRT_TUNE_PIN");
    if (pins) tuner->pins = pins;
    const char* dir = tkrt_environment_get("TKRT_TUNE_DIR");
    tuner->store_dir = dir ? dir
                           : tkrt_environment_cache_dir(NULL, "tune", tkrt_environment_tune_dir,
                                                        sizeof(tkrt_environment_tune_dir));
  }
  pthread_mutex_unlock(&tkrt_environment_lock);
  return NULL;
}
