/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt xla: the adapter's settings (backends, caches, tuning), taken from the environment through
 * tkrt_options_from_environment when the first call needs them, or set before that through
 * tkrt_xla_configure (what the Python package does). Frozen once used. */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "xla/xla_internal.h"

static struct {
  pthread_mutex_t lock;
  bool initialised; /* filled from the environment */
  atomic_bool frozen; /* read by a device or tuner: immutable from then on */
  tkrt_xla_settings_t settings;
  char backend[256], cache_dir[4096], hip_library[1024], store_dir[4096], pins[2048];
  char error[512]; /* why the environment could not be used */
} tkrt_xla_config = {PTHREAD_MUTEX_INITIALIZER};

static void tkrt_xla_copy(char* dst, size_t capacity, const char** field) {
  snprintf(dst, capacity, "%s", *field ? *field : "");
  *field = *field ? dst : NULL;
}

/* Owns every string the settings point at (the environment may change later). */
static void tkrt_xla_settings_own(void) {
  tkrt_xla_settings_t* s = &tkrt_xla_config.settings;
  tkrt_xla_copy(tkrt_xla_config.backend, sizeof(tkrt_xla_config.backend), &s->device.backend);
  tkrt_xla_copy(tkrt_xla_config.cache_dir, sizeof(tkrt_xla_config.cache_dir),
                &s->device.cache_dir);
  tkrt_xla_copy(tkrt_xla_config.hip_library, sizeof(tkrt_xla_config.hip_library),
                &s->device.hip_library);
  tkrt_xla_copy(tkrt_xla_config.store_dir, sizeof(tkrt_xla_config.store_dir),
                &s->tuner.store_dir);
  tkrt_xla_copy(tkrt_xla_config.pins, sizeof(tkrt_xla_config.pins), &s->tuner.pins);
}

/* The one place libtkrt_xla reads the environment: tkrt's TKRT_* variables, and its own
 * TKRT_XLA_BACKEND (default "gpu", the backends that run on streams others made, cuda,hip: never
 * the host backend, XLA hands over device pointers and a GPU stream), TKRT_XLA_CAPTURE_POLICY (first_config, the default, or error) and
 * TKRT_XLA_COUNT_CAPTURES (on or off: count executed_captured). Words are matched ignoring case,
 * as tkrt's own switches are; a value that is neither is an error, reported when the first call
 * opens a device, never taken for the default. */

/* on (1, on, yes, true) or off (0, off, no, false); false for anything else. */
static bool tkrt_xla_parse_switch(const char* v, bool* out) {
  static const char* const on[] = {"1", "on", "yes", "true"};
  static const char* const off[] = {"0", "off", "no", "false"};
  for (size_t i = 0; v && i < sizeof(on) / sizeof(on[0]); ++i) {
    if (strcasecmp(v, on[i]) == 0) return *out = true, true;
    if (strcasecmp(v, off[i]) == 0) return *out = false, true;
  }
  return false;
}

static bool tkrt_xla_parse_capture_policy(const char* v, tkrt_capture_policy_t* out) {
  if (!v) return false;
  if (strcasecmp(v, "first_config") == 0) return *out = TKRT_CAPTURE_POLICY_FIRST_CONFIG, true;
  if (strcasecmp(v, "error") == 0) return *out = TKRT_CAPTURE_POLICY_ERROR, true;
  return false;
}

/* Keeps the first reason the environment cannot be used. */
static void tkrt_xla_environment_error(const char* name, const char* value, const char* expected) {
  if (tkrt_xla_config.error[0]) return;
  snprintf(tkrt_xla_config.error, sizeof(tkrt_xla_config.error), "%s is '%s'; expected %s", name,
           value, expected);
}

static void tkrt_xla_settings_from_environment(void) {
  tkrt_xla_settings_t* s = &tkrt_xla_config.settings;
  tkrt_device_options_init(&s->device);
  tkrt_autotuner_options_init(&s->tuner);
  s->tuner.capture_policy = TKRT_CAPTURE_POLICY_FIRST_CONFIG;
  tkrt_status_t status = tkrt_options_from_environment(&s->device, &s->tuner);
  if (status) {
    snprintf(tkrt_xla_config.error, sizeof(tkrt_xla_config.error), "%s",
             tkrt_status_message(status));
    tkrt_status_free(status);
  }
  const char* backend = getenv("TKRT_XLA_BACKEND");
  s->device.backend = backend && *backend ? backend : TKRT_XLA_DEFAULT_BACKENDS;
  const char* capture = getenv("TKRT_XLA_CAPTURE_POLICY");
  if (capture && *capture && !tkrt_xla_parse_capture_policy(capture, &s->tuner.capture_policy)) {
    tkrt_xla_environment_error("TKRT_XLA_CAPTURE_POLICY", capture, "first_config or error");
  }
  const char* count = getenv("TKRT_XLA_COUNT_CAPTURES");
  if (count && *count && !tkrt_xla_parse_switch(count, &s->count_captures)) {
    tkrt_xla_environment_error("TKRT_XLA_COUNT_CAPTURES", count,
                               "on or off (1 or 0, yes or no, true or false)");
  }
  tkrt_xla_settings_own();
  tkrt_xla_config.initialised = true;
}

const tkrt_xla_settings_t* tkrt_xla_settings(void) {
  if (atomic_load_explicit(&tkrt_xla_config.frozen, memory_order_acquire)) {
    return &tkrt_xla_config.settings;
  }
  pthread_mutex_lock(&tkrt_xla_config.lock);
  if (!tkrt_xla_config.initialised) tkrt_xla_settings_from_environment();
  atomic_store_explicit(&tkrt_xla_config.frozen, true, memory_order_release);
  pthread_mutex_unlock(&tkrt_xla_config.lock);
  return &tkrt_xla_config.settings;
}

const char* tkrt_xla_settings_error(void) {
  return tkrt_xla_config.error[0] ? tkrt_xla_config.error : NULL;
}

/* A margin: a finite number; unset (NULL) is the default, 0.25. */
static bool tkrt_xla_parse_margin(const char* text, double* out) {
  if (!text) {
    *out = 0.25;
    return true;
  }
  char* end = NULL;
  double value = strtod(text, &end);
  if (end == text || *end || !isfinite(value)) return false;
  *out = value;
  return true;
}

int tkrt_xla_configure(const char* name, const char* value, char* error, size_t capacity) {
  if (capacity) error[0] = '\0';
  if (!name) {
    snprintf(error, capacity, "tkrt_xla_configure: no setting named");
    return 3;
  }
  pthread_mutex_lock(&tkrt_xla_config.lock);
  int code = 0;
  double margin = 0;
  bool on = false;
  tkrt_capture_policy_t policy = TKRT_CAPTURE_POLICY_FIRST_CONFIG;
  tkrt_log_level_t log_level = TKRT_LOG_WARN;
  if (atomic_load_explicit(&tkrt_xla_config.frozen, memory_order_relaxed)) {
    snprintf(error, capacity,
             "tkrt_xla_configure(%s): the settings are in use (a device was opened or a call "
             "tuned); configure before the first tkrt call in the process",
             name);
    code = 9; /* FAILED_PRECONDITION */
    goto done;
  }
  if (!tkrt_xla_config.initialised) tkrt_xla_settings_from_environment();
  tkrt_xla_settings_t* s = &tkrt_xla_config.settings;
  const char* v = value && *value ? value : NULL;
  if (strcmp(name, "backend") == 0) {
    s->device.backend = v ? v : TKRT_XLA_DEFAULT_BACKENDS;
  } else if (strcmp(name, "cache_dir") == 0) {
    s->device.cache_dir = v;
  } else if (strcmp(name, "hip_library") == 0) {
    s->device.hip_library = v;
  } else if (strcmp(name, "log") == 0 &&
             (!v || !tkrt_status_consume_code(tkrt_log_level_from_string(v, &log_level)))) {
    tkrt_status_free(tkrt_log_set_level(log_level)); /* process-wide; unset: warn */
  } else if (strcmp(name, "tune_dir") == 0) {
    s->tuner.store_dir = v;
  } else if (strcmp(name, "tune_pin") == 0) {
    s->tuner.pins = v;
  } else if (strcmp(name, "tune_policy") == 0 &&
             (!v || strcmp(v, "auto") == 0 || strcmp(v, "never") == 0)) {
    s->tuner.policy = v && strcmp(v, "never") == 0 ? TKRT_TUNE_POLICY_NEVER : TKRT_TUNE_POLICY_AUTO;
  } else if (strcmp(name, "tune_prune_margin") == 0 && tkrt_xla_parse_margin(v, &margin)) {
    s->tuner.prune_margin = margin;
  } else if (strcmp(name, "count_captures") == 0 && (!v || tkrt_xla_parse_switch(v, &on))) {
    s->count_captures = on;
  } else if (strcmp(name, "capture_policy") == 0 &&
             (!v || tkrt_xla_parse_capture_policy(v, &policy))) {
    s->tuner.capture_policy = policy;
  } else {
    snprintf(error, capacity,
             "tkrt_xla_configure: unknown setting or value %s=%s (settings: backend, cache_dir, "
             "hip_library, log off|error|warn|info|debug, tune_dir, tune_pin, tune_policy "
             "auto|never, tune_prune_margin <number>, capture_policy first_config|error, "
             "count_captures on|off)",
             name, value ? value : "");
    code = 3; /* INVALID_ARGUMENT */
    goto done;
  }
  tkrt_xla_settings_own();
done:
  pthread_mutex_unlock(&tkrt_xla_config.lock);
  return code;
}
