/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: the settings table (tkrt/settings.h): each setting tkrt knows, defined once. The
 * environment reader (core/environment.c), libtkrt_xla's tkrt_xla_configure, the CLI's setting
 * flags and help, Python's keywords and docs/settings.md are driven by it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/settings_internal.h"

#define LIB TKRT_SETTING_SCOPE_LIBRARY
#define XLA TKRT_SETTING_SCOPE_XLA
#define CLI TKRT_SETTING_SCOPE_CLI
#define PY TKRT_SETTING_SCOPE_PYTHON
#define RT TKRT_SETTING_SCOPE_RUNTIME

#define SWITCH_EXPECTED "on or off (1 or 0, yes or no, true or false, in any case)"

static const tkrt_setting_t kSettings[TKRT_SETTING_ID_COUNT] = {
    [TKRT_SETTING_ID_BACKEND] =
        {.name = "backend", .env = "TKRT_BACKEND", .type = TKRT_SETTING_NAME_LIST,
         .default_text = "every backend, in the default order",
         .expected = "a backend name or a comma list of them, none empty",
         .doc = "the backends to try, in order (tkrt info lists them)",
         .cli_flag = "--backend", .scopes = LIB | CLI | RT},
    [TKRT_SETTING_ID_HOST_THREADS] =
        {.name = "host_threads", .env = "TKRT_HOST_THREADS", .type = TKRT_SETTING_INTEGER,
         .min = 1, .max = 256, .default_text = "the online CPUs, at most 256",
         .expected = "a thread count from 1 to 256",
         .doc = "worker threads of the host backend, 1 to 256", .scopes = LIB | RT},
    [TKRT_SETTING_ID_CACHE_DIR] =
        {.name = "cache_dir", .env = "TKRT_CACHE_DIR", .type = TKRT_SETTING_TEXT,
         .default_text = "$XDG_CACHE_HOME/tkrt, else $HOME/.cache/tkrt",
         .expected = "a folder, or off",
         .doc = "the CUDA PTX-compile cache root (its cubin/ folder; tkrt_xla_configure: the folder "
                "itself), or off",
         .scopes = LIB | XLA | PY | RT},
    [TKRT_SETTING_ID_HIP_LIBRARY] =
        {.name = "hip_library", .env = "TKRT_HIP_LIBRARY", .type = TKRT_SETTING_TEXT,
         .default_text = "the sonames of ROCm 7, 6, 5", .expected = "a path, a soname or a ':' list",
         .doc = "the HIP runtime to load: a path, a soname or a ':' list",
         .scopes = LIB | XLA | PY | RT},
    [TKRT_SETTING_ID_LOG] =
        {.name = "log", .env = "TKRT_LOG", .type = TKRT_SETTING_LOG_LEVEL, .default_text = "warn",
         .expected = "off, error, warn, info or debug (or a switch word: 1, on, yes, true are "
                     "debug; 0, off, no, false are off)",
         .doc = "the process's log level: off, error, warn, info or debug, any case (1/on: debug)",
         .scopes = LIB | XLA | PY | RT},
    [TKRT_SETTING_ID_TUNE_DIR] =
        {.name = "tune_dir", .env = "TKRT_TUNE_DIR", .type = TKRT_SETTING_TEXT,
         .default_text = "$XDG_CACHE_HOME/tkrt/tune, else $HOME/.cache/tkrt/tune",
         .expected = "a folder, or off",
         .doc = "the tuning decision store folder, or off (decisions in memory only)",
         .cli_flag = "--store", .scopes = LIB | XLA | CLI | PY | RT},
    [TKRT_SETTING_ID_TUNE_POLICY] =
        {.name = "tune_policy", .env = "TKRT_TUNE_POLICY", .type = TKRT_SETTING_WORD,
         .words = "auto|never", .default_text = "auto",
         .expected = "auto or never",
         .doc = "auto: tune a call that has no decision; never: take its first config",
         .cli_flag = "--policy", .scopes = LIB | XLA | CLI | PY | RT},
    [TKRT_SETTING_ID_TUNE_PIN] =
        {.name = "tune_pin", .env = "TKRT_TUNE_PIN", .type = TKRT_SETTING_TEXT,
         .default_text = "none", .expected = "<digest prefix|*>[@arch]=<config>,...",
         .doc = "<digest prefix|*>[@arch]=<config>,...: configs (from 0) to run, never tuned",
         .scopes = LIB | XLA | PY | RT},
    [TKRT_SETTING_ID_TUNE_PRUNE_MARGIN] =
        {.name = "tune_prune_margin", .env = "TKRT_TUNE_PRUNE_MARGIN", .type = TKRT_SETTING_NUMBER,
         .min = -INFINITY, .max = 1e6, .default_text = "0.25",
         .expected = "a number (negative turns pruning off)",
         .doc = "tuning stops timing configs slower than (1 + margin) x the best; negative: off",
         .cli_flag = "--prune-margin", .scopes = LIB | XLA | CLI | PY | RT},
    [TKRT_SETTING_ID_TUNE_TARGET_MS] =
        {.name = "target_ms", .type = TKRT_SETTING_NUMBER, .min = 0, .max = 3600e3,
         .default_text = "10", .expected = "0 to 3600000",
         .doc = "tuning: milliseconds of launches to time per config and pass",
         .cli_flag = "--target-ms", .scopes = CLI | PY | RT},
    [TKRT_SETTING_ID_TUNE_MAX_ITERATIONS] =
        {.name = "max_iterations", .type = TKRT_SETTING_INTEGER, .min = 1, .max = 1e6,
         .default_text = "100", .expected = "1 to 1000000",
         .doc = "tuning: the most launches timed per config and pass",
         .cli_flag = "--max-iterations", .scopes = CLI | PY | RT},
    [TKRT_SETTING_ID_TUNE_REQUIRE_COMPLETE] =
        {.name = "tune_require_complete", .env = "TKRT_TUNE_REQUIRE_COMPLETE",
         .type = TKRT_SETTING_SWITCH, .default_text = "off", .expected = SWITCH_EXPECTED,
         .doc = "on: never tune at run time; a call with no decision (and not every config timed) "
                "is an error naming the missing key",
         .scopes = LIB | XLA | PY | RT},
    [TKRT_SETTING_ID_TRUST_SHARED_STORES] =
        {.name = "trust_shared_stores", .env = "TKRT_TRUST_SHARED_STORES",
         .type = TKRT_SETTING_SWITCH, .default_text = "off", .expected = SWITCH_EXPECTED,
         .doc = "on: trust decision stores and caches that other users own or can write",
         .scopes = LIB | RT},
    [TKRT_SETTING_ID_TRITON_CACHE_DIR] =
        {.name = "triton_cache_dir", .env = "TRITON_CACHE_DIR", .type = TKRT_SETTING_TEXT,
         .default_text = "$TRITON_HOME/.triton/cache, else $HOME/.triton/cache",
         .expected = "a folder",
         .doc = "Triton's cache (tkrt_triton_cache_scan, tkrt info --triton-cache, tkrt.triton)",
         .scopes = LIB | CLI | PY},
    [TKRT_SETTING_ID_TRITON_HOME] =
        {.name = "triton_home", .env = "TRITON_HOME", .type = TKRT_SETTING_TEXT,
         .default_text = "$HOME", .expected = "a folder",
         .doc = "Triton's home: its cache is $TRITON_HOME/.triton/cache when TRITON_CACHE_DIR is "
                "unset",
         .scopes = LIB | CLI | PY},
    [TKRT_SETTING_ID_XLA_BACKEND] =
        {.name = "backend", .env = "TKRT_XLA_BACKEND", .type = TKRT_SETTING_NAME_LIST,
         .default_text = "gpu",
         .expected = "a backend name or a comma list of them, none empty",
         .doc = "libtkrt_xla's backends, in order (XLA hands over GPU pointers and streams)",
         .scopes = XLA | PY},
    [TKRT_SETTING_ID_XLA_CAPTURE_POLICY] =
        {.name = "capture_policy", .env = "TKRT_XLA_CAPTURE_POLICY", .type = TKRT_SETTING_WORD,
         .words = "first_config|error", .default_text = "first_config",
         .expected = "first_config or error",
         .doc = "a call captured before it has a decision: run its first config, or fail",
         .scopes = XLA | PY | RT},
    [TKRT_SETTING_ID_XLA_COUNT_CAPTURES] =
        {.name = "count_captures", .env = "TKRT_XLA_COUNT_CAPTURES", .type = TKRT_SETTING_SWITCH,
         .default_text = "off", .expected = SWITCH_EXPECTED,
         .doc = "on: count captured executions in the stats (a driver query per execute)",
         .scopes = XLA | PY},
    [TKRT_SETTING_ID_XLA_LIBRARY] =
        {.name = "xla_library", .env = "TKRT_XLA_LIBRARY", .type = TKRT_SETTING_TEXT,
         .default_text = "the one in the package", .expected = "a path",
         .doc = "the libtkrt_xla.so the Python package loads (read by the package)",
         .scopes = PY},
    [TKRT_SETTING_ID_LIBRARY] =
        {.name = "library", .env = "TKRT_LIBRARY", .type = TKRT_SETTING_TEXT,
         .default_text = "the one in the package", .expected = "a path",
         .doc = "the libtkrt.so tkrt.triton loads (read by the package; else the wheel's "
                "tkrt/lib/libtkrt.so.0, else the package's libtkrt_xla.so)",
         .scopes = PY},
    [TKRT_SETTING_ID_PYTHON_LAUNCH] =
        {.name = "python_launch", .env = "TKRT_PYTHON_LAUNCH", .type = TKRT_SETTING_WORD,
         .words = "native|ctypes", .default_text = "native where tkrt._native is built",
         .expected = "native or ctypes",
         .doc = "how tkrt.triton's prepared launches run: the C extension tkrt._native, or ctypes "
                "(read at import; native insists on the extension)",
         .scopes = PY},
    [TKRT_SETTING_ID_NATIVE_MODULE] =
        {.name = "native_module", .env = "TKRT_NATIVE_MODULE", .type = TKRT_SETTING_TEXT,
         .default_text = "the package's own", .expected = "a path",
         .doc = "the tkrt._native extension file tkrt.triton imports (a build folder's; read by "
                "the package)",
         .scopes = PY},
};

size_t tkrt_setting_count(void) { return TKRT_SETTING_ID_COUNT; }

const tkrt_setting_t* tkrt_setting_at(size_t index) {
  return index < TKRT_SETTING_ID_COUNT ? &kSettings[index] : NULL;
}

const tkrt_setting_t* tkrt_setting_find(const char* name, uint32_t scopes) {
  if (!name) return NULL;
  for (size_t i = 0; i < TKRT_SETTING_ID_COUNT; ++i) {
    const tkrt_setting_t* s = &kSettings[i];
    if (scopes && !(s->scopes & scopes)) continue;
    if (strcmp(s->name, name) == 0 || (s->env && strcmp(s->env, name) == 0)) return s;
  }
  return NULL;
}

/* The index of `value` in a '|' list of words, ignoring case; -1 when it is none of them. */
static int tkrt_setting_word(const char* words, const char* value) {
  size_t length = strlen(value);
  int index = 0;
  for (const char* p = words; p && *p; ++index) {
    const char* bar = strchr(p, '|');
    size_t n = bar ? (size_t)(bar - p) : strlen(p);
    if (n == length && strncasecmp(p, value, n) == 0) return index;
    p = bar ? bar + 1 : NULL;
  }
  return -1;
}

static bool tkrt_setting_switch(const char* value, bool* out) {
  static const char* const on[] = {"1", "on", "yes", "true"};
  static const char* const off[] = {"0", "off", "no", "false"};
  for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); ++i) {
    if (strcasecmp(value, on[i]) == 0) return *out = true, true;
    if (strcasecmp(value, off[i]) == 0) return *out = false, true;
  }
  return false;
}

/* A name or comma list of names, none empty (blanks around names allowed). */
static bool tkrt_setting_name_list(const char* value) {
  bool empty_item = true;
  for (const char* p = value;; ++p) {
    if (*p == ',' || *p == '\0') {
      if (empty_item) return false;
      if (!*p) return true;
      empty_item = true;
    } else if (*p != ' ' && *p != '\t') {
      empty_item = false;
    }
  }
}

tkrt_status_t tkrt_setting_parse(const tkrt_setting_t* setting, const char* shown,
                                 const char* value, tkrt_setting_value_t* out) {
  tkrt_setting_value_t v = {0};
  v.level = TKRT_LOG_WARN;
  if (!setting) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_setting_parse: no setting");
  }
  if (!shown) shown = setting->env ? setting->env : setting->name;
  bool good = true;
  if (value && *value) {
    v.set = true;
    v.text = value;
    char* end = NULL;
    switch (setting->type) {
      case TKRT_SETTING_SWITCH:
        good = tkrt_setting_switch(value, &v.on);
        break;
      case TKRT_SETTING_WORD:
        v.word = tkrt_setting_word(setting->words, value);
        good = v.word >= 0;
        break;
      case TKRT_SETTING_INTEGER: {
        /* Decimal digits, an optional '-' before them, nothing else (strtol alone would take
         * leading blanks and a '+': one rule for every integer setting, whichever way it comes). */
        long n = strtol(value, &end, 10);
        good = (value[0] == '-' ? value[1] >= '0' && value[1] <= '9'
                                : value[0] >= '0' && value[0] <= '9') &&
               end != value && !*end && n >= setting->min && n <= setting->max;
        v.integer = n;
        break;
      }
      case TKRT_SETTING_NUMBER: {
        /* A decimal number (digits, '.', an exponent, an optional '-' first): no blanks, '+',
         * hex or words (strtod would take " 1", "+1", "0x1p3", "inf"). */
        double d = strtod(value, &end);
        good = strchr("-0123456789.", value[0]) && !strpbrk(value, "xX") && end != value &&
               !*end && isfinite(d) && d >= setting->min && d <= setting->max;
        v.number = d;
        break;
      }
      case TKRT_SETTING_LOG_LEVEL:
        good = !tkrt_status_consume_code(tkrt_log_level_from_string(value, &v.level));
        break;
      case TKRT_SETTING_NAME_LIST:
        good = tkrt_setting_name_list(value);
        break;
      case TKRT_SETTING_TEXT:
        break;
    }
  }
  if (!good) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s is '%s'; expected %s", shown, value,
                            setting->expected);
  }
  if (out) *out = v;
  return NULL;
}

tkrt_status_t tkrt_setting_check(const char* name, const char* value) {
  const tkrt_setting_t* setting = tkrt_setting_find(name, 0);
  if (!setting) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND, "no tkrt setting is named '%s'",
                            name ? name : "(null)");
  }
  return tkrt_setting_parse(setting, name, value, NULL);
}

tkrt_status_t tkrt_settings_apply(const char* name, const char* value, uint32_t scopes,
                                  tkrt_device_options_t* device, tkrt_autotuner_options_t* tuner,
                                  const tkrt_setting_t** out_setting,
                                  tkrt_setting_value_t* out_value) {
  const tkrt_setting_t* setting = tkrt_setting_find(name, scopes);
  if (!setting) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND, "no tkrt setting is named '%s'",
                            name ? name : "(null)");
  }
  tkrt_setting_value_t v;
  TKRT_RETURN_IF_ERROR(tkrt_setting_parse(setting, name, value, &v));
  tkrt_device_options_t device_defaults;
  tkrt_autotuner_options_t tuner_defaults;
  tkrt_device_options_init(&device_defaults);
  tkrt_autotuner_options_init(&tuner_defaults);
  switch ((tkrt_setting_id_t)(setting - kSettings)) {
    case TKRT_SETTING_ID_BACKEND:
    case TKRT_SETTING_ID_XLA_BACKEND:
      if (device) device->backend = v.set ? v.text : device_defaults.backend;
      break;
    case TKRT_SETTING_ID_HOST_THREADS:
      if (device) {
        device->host_threads = v.set ? (uint32_t)v.integer : device_defaults.host_threads;
      }
      break;
    case TKRT_SETTING_ID_CACHE_DIR:
      if (device) device->cache_dir = v.text;
      break;
    case TKRT_SETTING_ID_HIP_LIBRARY:
      if (device) device->hip_library = v.text;
      break;
    case TKRT_SETTING_ID_LOG:
      tkrt_status_free(tkrt_log_set_level(v.level)); /* process-wide; unset: warn */
      break;
    case TKRT_SETTING_ID_TUNE_DIR:
      if (tuner) tuner->store_dir = v.text;
      break;
    case TKRT_SETTING_ID_TUNE_POLICY:
      if (tuner) tuner->policy = v.word == 1 ? TKRT_TUNE_POLICY_NEVER : TKRT_TUNE_POLICY_AUTO;
      break;
    case TKRT_SETTING_ID_TUNE_PIN:
      if (tuner) tuner->pins = v.text;
      break;
    case TKRT_SETTING_ID_TUNE_PRUNE_MARGIN:
      if (tuner) tuner->prune_margin = v.set ? v.number : tuner_defaults.prune_margin;
      break;
    case TKRT_SETTING_ID_TUNE_TARGET_MS:
      if (tuner) tuner->target_ms = v.set ? v.number : tuner_defaults.target_ms;
      break;
    case TKRT_SETTING_ID_TUNE_MAX_ITERATIONS:
      if (tuner) {
        tuner->max_iterations = v.set ? (uint32_t)v.integer : tuner_defaults.max_iterations;
      }
      break;
    case TKRT_SETTING_ID_TUNE_REQUIRE_COMPLETE:
      if (tuner) tuner->require_complete = v.on;
      break;
    case TKRT_SETTING_ID_TRUST_SHARED_STORES:
      if (device) device->trust_shared_cache = v.on;
      if (tuner) tuner->trust_shared_store = v.on;
      break;
    case TKRT_SETTING_ID_XLA_CAPTURE_POLICY:
      /* first_config (word 0) is also the default when unset. */
      if (tuner) {
        tuner->capture_policy =
            v.word == 1 ? TKRT_CAPTURE_POLICY_ERROR : TKRT_CAPTURE_POLICY_FIRST_CONFIG;
      }
      break;
    case TKRT_SETTING_ID_TRITON_CACHE_DIR:
    case TKRT_SETTING_ID_TRITON_HOME:
    case TKRT_SETTING_ID_XLA_COUNT_CAPTURES:
    case TKRT_SETTING_ID_XLA_LIBRARY:
    case TKRT_SETTING_ID_LIBRARY:
    case TKRT_SETTING_ID_PYTHON_LAUNCH:
    case TKRT_SETTING_ID_NATIVE_MODULE:
    case TKRT_SETTING_ID_COUNT:
      break; /* no field in these structs: the caller uses out_value */
  }
  if (out_setting) *out_setting = setting;
  if (out_value) *out_value = v;
  return NULL;
}

tkrt_status_t tkrt_setting_apply(const char* name, const char* value, uint32_t scopes,
                                 tkrt_device_options_t* device, tkrt_autotuner_options_t* tuner) {
  return tkrt_settings_apply(name, value, scopes, device, tuner, NULL, NULL);
}

tkrt_status_t tkrt_setting_read(const char* name, uint32_t scopes, const char* value,
                                tkrt_setting_value_t* out) {
  const tkrt_setting_t* setting = tkrt_setting_find(name, scopes);
  if (!setting) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND, "no tkrt setting is named '%s'",
                            name ? name : "(null)");
  }
  return tkrt_setting_parse(setting, name, value, out);
}

/* The tuner's options at their defaults: what the settings map onto (and the environment reader
 * fills), so it lives beside them, below the tuner (core/tune/). */
void tkrt_autotuner_options_init(tkrt_autotuner_options_t* options) {
  memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  options->policy = TKRT_TUNE_POLICY_AUTO;
  options->target_ms = 10.0;
  options->max_iterations = 100;
  options->prune_margin = 0.25;
  options->exchange_policy = TKRT_EXCHANGE_POLICY_LEADER;
  options->exchange_ranks = 1;
  options->exchange_timeout_ms = 60000;
}
