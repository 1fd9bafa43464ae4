/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: the one file of the library that reads environment variables: the TKRT_* settings
 * (tkrt_options_from_environment, driven by the settings table in core/settings.c, for tools: the
 * CLI, libtkrt_xla, the Python package), the per-user cache folders ($XDG_CACHE_HOME, $HOME) and
 * Triton's cache folder ($TRITON_CACHE_DIR, $TRITON_HOME, $HOME; tkrt_triton_cache_scan). */
#include "tkrt/environment.h"

#include "core/settings_internal.h"

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

const char* tkrt_environment_setting(tkrt_setting_id_t id) {
  const tkrt_setting_t* setting = tkrt_setting_by_id(id);
  return setting && setting->env ? tkrt_environment_get(setting->env) : NULL;
}

const char* tkrt_setting_environment(const char* name) {
  const tkrt_setting_t* setting = tkrt_setting_find(name, 0);
  return setting && setting->env ? tkrt_environment_get(setting->env) : NULL;
}

tkrt_status_t tkrt_environment_triton_cache_dir(char* out, size_t capacity) {
  /* Triton's own lookup order (triton.knobs.cache.dir): TRITON_CACHE_DIR, else
   * $TRITON_HOME/.triton/cache, else ~/.triton/cache. */
  const char* env = tkrt_environment_get(tkrt_setting_by_id(TKRT_SETTING_ID_TRITON_CACHE_DIR)->env);
  const char* home = tkrt_environment_get(tkrt_setting_by_id(TKRT_SETTING_ID_TRITON_HOME)->env);
  if (!home) home = tkrt_environment_get("HOME");
  int n;
  if (env) {
    n = snprintf(out, capacity, "%s", env);
  } else if (home) {
    n = snprintf(out, capacity, "%s/.triton/cache", home);
  } else {
    return TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND,
                            "no Triton cache: none of TRITON_CACHE_DIR, TRITON_HOME, HOME is set");
  }
  if (n < 0 || (size_t)n >= capacity) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "Triton cache path too long");
  }
  return NULL;
}

tkrt_status_t tkrt_options_from_environment(tkrt_device_options_t* device,
                                            tkrt_autotuner_options_t* tuner) {
  /* Every variable the table gives the library is checked before anything is written. */
  const char* values[TKRT_SETTING_ID_COUNT] = {0};
  for (size_t i = 0; i < tkrt_setting_count(); ++i) {
    const tkrt_setting_t* setting = tkrt_setting_at(i);
    if (!(setting->scopes & TKRT_SETTING_SCOPE_LIBRARY) || !setting->env ||
        i == TKRT_SETTING_ID_TRITON_CACHE_DIR || i == TKRT_SETTING_ID_TRITON_HOME) {
      continue;
    }
    values[i] = tkrt_environment_get(setting->env);
    TKRT_RETURN_IF_ERROR(tkrt_setting_parse(setting, NULL, values[i], NULL));
  }
  /* A cache root whose cubin/ folder does not fit a path is refused, never turned into no cache
   * (TKRT_CACHE_DIR's "off" words are checked below). */
  const char* cache_root = values[TKRT_SETTING_ID_CACHE_DIR];
  if (device && cache_root &&
      strlen(cache_root) + sizeof("/cubin") > sizeof(tkrt_environment_cubin_dir)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "TKRT_CACHE_DIR is too long: '%.64s...' (%zu bytes) and its cubin/ "
                            "folder make more than the %zu bytes a path may have",
                            cache_root, strlen(cache_root), sizeof(tkrt_environment_cubin_dir) - 1);
  }
  pthread_mutex_lock(&tkrt_environment_lock);
  for (size_t i = 0; i < tkrt_setting_count(); ++i) {
    /* Unset variables leave their field alone; the cache folders are set below. */
    if (!values[i] || i == TKRT_SETTING_ID_CACHE_DIR || i == TKRT_SETTING_ID_TUNE_DIR) continue;
    tkrt_status_free(tkrt_settings_apply(tkrt_setting_at(i)->env, values[i],
                                         TKRT_SETTING_SCOPE_LIBRARY, device, tuner, NULL, NULL));
  }
  if (device) {
    /* A root: its cubin/ folder is the cache; "off" (and its synonyms) reaches the backend as
     * is: no cache. */
    const char* cache = values[TKRT_SETTING_ID_CACHE_DIR];
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
    const char* dir = values[TKRT_SETTING_ID_TUNE_DIR];
    tuner->store_dir = dir ? dir
                           : tkrt_environment_cache_dir(NULL, "tune", tkrt_environment_tune_dir,
                                                        sizeof(tkrt_environment_tune_dir));
  }
  pthread_mutex_unlock(&tkrt_environment_lock);
  return NULL;
}
