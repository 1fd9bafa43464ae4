/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt xla: the adapter's settings. Every setting a runtime takes is the process's default
 * runtime's (tkrt_runtime_default: the one tkrt.triton and C users of it share): the runtime reads
 * the TKRT_* variables itself, and tkrt_xla_configure sets one by name through
 * tkrt_runtime_configure (what the Python package does). Only the adapter's own are kept here:
 * the backends its devices come from (TKRT_XLA_BACKEND) and count_captures. Frozen once used. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "xla/xla_internal.h"

static struct {
  pthread_mutex_t lock;
  bool initialised; /* the environment's settings are in the runtime */
  atomic_bool frozen; /* read by a device or tuner: immutable from then on */
  tkrt_xla_settings_t settings;
  char error[512]; /* why the environment could not be used */
} tkrt_xla_config = {PTHREAD_MUTEX_INITIALIZER};

/* libtkrt_xla's settings come from tkrt's settings table (core/settings.c, docs/settings.md):
 * tkrt's TKRT_* variables, and its own TKRT_XLA_BACKEND (default gpu, the backends that run on streams others made: never the host
 * backend, XLA hands over device pointers and a GPU stream), TKRT_XLA_CAPTURE_POLICY
 * (first_config, the default, or error) and TKRT_XLA_COUNT_CAPTURES (on or off: count
 * executed_captured), read through core/environment.c. Words are matched ignoring case, as every
 * tkrt setting's are; a value that is none of them is an error, reported when the first call opens
 * a device, never taken for the default. */

/* Keeps the first reason the environment cannot be used. */
static void tkrt_xla_environment_error(tkrt_status_t status) {
  if (!tkrt_xla_config.error[0]) {
    snprintf(tkrt_xla_config.error, sizeof(tkrt_xla_config.error), "%s",
             tkrt_status_message(status));
  }
  tkrt_status_free(status);
}


/* The adapter's backends: `value` checked as a backend list (NULL or "": the default). */
static tkrt_status_t tkrt_xla_set_backends(const char* shown, const char* value) {
  TKRT_RETURN_IF_ERROR(tkrt_setting_check(shown, value));
  const char* backends = value && *value ? value : TKRT_XLA_DEFAULT_BACKENDS;
  if (strlen(backends) >= sizeof(tkrt_xla_config.settings.backends)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s is longer than %zu bytes", shown,
                            sizeof(tkrt_xla_config.settings.backends) - 1);
  }
  snprintf(tkrt_xla_config.settings.backends, sizeof(tkrt_xla_config.settings.backends), "%s",
           backends);
  return NULL;
}

/* The adapter's variables: its own settings here; TKRT_XLA_CAPTURE_POLICY is the runtime's
 * capture_policy (the runtime read the TKRT_* variables itself). Called with the lock held. */
static void tkrt_xla_settings_from_environment(void) {
  tkrt_xla_config.initialised = true;
  tkrt_status_t status = tkrt_xla_set_backends("TKRT_XLA_BACKEND",
                                               tkrt_setting_environment("TKRT_XLA_BACKEND"));
  if (status) {
    tkrt_xla_environment_error(status);
    (void)tkrt_xla_set_backends("TKRT_XLA_BACKEND", NULL);
  }
  const char* count = tkrt_setting_environment("TKRT_XLA_COUNT_CAPTURES");
  if (count) {
    tkrt_setting_value_t v;
    status = tkrt_setting_read("TKRT_XLA_COUNT_CAPTURES", TKRT_SETTING_SCOPE_XLA, count, &v);
    if (status) tkrt_xla_environment_error(status);
    else tkrt_xla_config.settings.count_captures = v.on;
  }
  const char* policy = tkrt_setting_environment("TKRT_XLA_CAPTURE_POLICY");
  if (policy) {
    status = tkrt_setting_check("TKRT_XLA_CAPTURE_POLICY", policy);
    if (!status) status = tkrt_runtime_configure(tkrt_runtime_default(), "capture_policy", policy);
    if (status && tkrt_status_code(status) == TKRT_STATUS_FAILED_PRECONDITION) {
      /* The runtime is in use already (tkrt.triton opened a device): its policy stands. */
      tkrt_status_free(status);
      status = NULL;
    }
    if (status) tkrt_xla_environment_error(status);
  }
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

int tkrt_xla_configure(const char* name, const char* value, char* error, size_t capacity) {
  if (capacity) error[0] = '\0';
  if (!name) {
    snprintf(error, capacity, "tkrt_xla_configure: no setting named");
    return 3;
  }
  pthread_mutex_lock(&tkrt_xla_config.lock);
  int code = 0;
  tkrt_status_t status = NULL;
  if (atomic_load_explicit(&tkrt_xla_config.frozen, memory_order_relaxed)) goto in_use;
  if (!tkrt_xla_config.initialised) tkrt_xla_settings_from_environment();
  const char* v = value && *value ? value : NULL;
  /* The names this function takes and their words, from the table, for the messages. */
  char names[512] = "";
  size_t used = 0;
  for (size_t i = 0; i < tkrt_setting_count() && used < sizeof(names); ++i) {
    const tkrt_setting_t* each = tkrt_setting_at(i);
    if (!(each->scopes & TKRT_SETTING_SCOPE_XLA)) continue;
    const char* words = each->type == TKRT_SETTING_WORD        ? each->words
                        : each->type == TKRT_SETTING_SWITCH    ? "on|off"
                        : each->type == TKRT_SETTING_LOG_LEVEL ? "off|error|warn|info|debug"
                        : each->type == TKRT_SETTING_NUMBER    ? "<number>"
                                                               : NULL;
    int n = snprintf(names + used, sizeof(names) - used, "%s%s%s%s", used ? ", " : "", each->name,
                     words ? " " : "", words ? words : "");
    used += n > 0 ? (size_t)n : 0;
  }
  const tkrt_setting_t* setting = tkrt_setting_find(name, TKRT_SETTING_SCOPE_XLA);
  if (!setting || strcmp(setting->name, name) != 0) {
    snprintf(error, capacity, "tkrt_xla_configure: unknown setting %s=%s (settings: %s)", name,
             value ? value : "", names);
    code = 3; /* INVALID_ARGUMENT */
    goto done;
  }
  tkrt_setting_value_t read;
  status = tkrt_setting_read(name, TKRT_SETTING_SCOPE_XLA, v, &read);
  if (!status && strcmp(name, "count_captures") == 0) {
    tkrt_xla_config.settings.count_captures = read.on; /* no runtime takes it */
  } else if (!status && strcmp(name, "backend") == 0) {
    status = tkrt_xla_set_backends("backend", v); /* the adapter's: the runtime's list stands */
  } else if (!status) {
    /* Every other name is the process's default runtime's (one settings table). */
    if (strcmp(name, "capture_policy") == 0) v = v ? v : "first_config";
    tkrt_runtime_t* rt = NULL;
    status = tkrt_xla_runtime(&rt);
    if (!status) status = tkrt_runtime_configure(rt, name, v);
    if (status && tkrt_status_code(status) == TKRT_STATUS_FAILED_PRECONDITION) {
      tkrt_status_free(status);
      goto in_use;
    }
  }
  if (status) {
    snprintf(error, capacity, "tkrt_xla_configure: bad value %s=%s: %s (settings: %s)", name,
             value, tkrt_status_message(status), names);
    tkrt_status_free(status);
    code = 3; /* INVALID_ARGUMENT */
  }
  goto done;
in_use:
  snprintf(error, capacity,
           "tkrt_xla_configure(%s): the settings are in use (a device was opened or a call "
           "tuned, by XLA, tkrt.triton or any user of the process's tkrt runtime); configure "
           "before the first tkrt call in the process",
           name);
  code = 9; /* FAILED_PRECONDITION */
done:
  pthread_mutex_unlock(&tkrt_xla_config.lock);
  return code;
}
