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

/* Every on/off setting reads the same words, ignoring case: on, true, yes, 1 and off, false, no,
 * 0. Anything else is INVALID_ARGUMENT naming the variable and its value (never taken for off). */
static tkrt_status_t tkrt_environment_switch(const char* name, const char* value, bool* out) {
  static const char* const on[] = {"1", "on", "yes", "true"};
  static const char* const off[] = {"0", "off", "no", "false"};
  for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); ++i) {
    if (strcasecmp(value, on[i]) == 0) return *out = true, NULL;
    if (strcasecmp(value, off[i]) == 0) return *out = false, NULL;
  }
  return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                          "%s is '%s'; expected on or off (1 or 0, yes or no, true or false, in "
                          "any case)",
                          name, value);
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
  if (policy && strcasecmp(policy, "auto") != 0 && strcasecmp(policy, "never") != 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "TKRT_TUNE_POLICY is '%s'; expected auto or never (in any case)",
                            policy);
  }
  /* TKRT_BACKEND: names, none empty (',' or ' ' is not "the default order"). */
  const char* backend_text = tkrt_environment_get("TKRT_BACKEND");
  if (backend_text) {
    bool empty_item = true, bad = false;
    for (const char* p = backend_text;; ++p) {
      if (*p == ',' || *p == '\0') {
        bad = bad || empty_item;
        empty_item = true;
        if (!*p) break;
      } else if (*p != ' ' && *p != '\t') {
        empty_item = false;
      }
    }
    if (bad) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "TKRT_BACKEND is '%s'; expected cuda, hip, host or a comma list of "
                              "them, none empty (unset it for the default order)",
                              backend_text);
    }
  }
  bool trust_shared = false;
  const char* shared = tkrt_environment_get("TKRT_TRUST_SHARED_STORES");
  if (shared) {
    TKRT_RETURN_IF_ERROR(tkrt_environment_switch("TKRT_TRUST_SHARED_STORES", shared, &trust_shared));
  }
  bool require_complete = false;
  const char* complete = tkrt_environment_get("TKRT_TUNE_REQUIRE_COMPLETE");
  if (complete) {
    TKRT_RETURN_IF_ERROR(
        tkrt_environment_switch("TKRT_TUNE_REQUIRE_COMPLETE", complete, &require_complete));
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
    if (backend_text) device->backend = backend_text;
    if (threads) device->host_threads = (uint32_t)threads;
    const char* cache = tkrt_environment_get("TKRT_CACHE_DIR");
    if (shared) device->trust_shared_cache = trust_shared;
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
      tuner->policy =
          strcasecmp(policy, "never") == 0 ? TKRT_TUNE_POLICY_NEVER : TKRT_TUNE_POLICY_AUTO;
    }
    if (shared) tuner->trust_shared_store = trust_shared;
    if (margin_text) tuner->prune_margin = margin;
    if (complete) tuner->require_complete = require_complete;
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
