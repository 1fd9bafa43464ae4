/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: the settings table. Every setting tkrt knows is defined once, in core/settings.c: its
 * name, its environment variable, its type and words, its default and one line of documentation.
 * The environment reader (tkrt/environment.h), libtkrt_xla's tkrt_xla_configure, the tkrt CLI's
 * setting flags and help, the Python package's keywords and docs/settings.md all come from it;
 * this header lets frontends list the settings and check a value the way tkrt reads it. */
#ifndef TKRT_SETTINGS_H_
#define TKRT_SETTINGS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/api.h"
#include "tkrt/autotune.h"
#include "tkrt/device.h"
#include "tkrt/log.h"
#include "tkrt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tkrt_setting_type {
  /* on or off: on, true, yes, 1 and off, false, no, 0, in any case; nothing else. */
  TKRT_SETTING_SWITCH = 0,
  /* One of `words` (a '|' list), in any case. */
  TKRT_SETTING_WORD = 1,
  /* A whole number from `min` to `max`. */
  TKRT_SETTING_INTEGER = 2,
  /* A finite number from `min` to `max`. */
  TKRT_SETTING_NUMBER = 3,
  /* Text taken as it is (a path, a list the library parses later). */
  TKRT_SETTING_TEXT = 4,
  /* A log level, as tkrt_log_level_from_string reads it (tkrt/log.h). */
  TKRT_SETTING_LOG_LEVEL = 5,
  /* A name or a comma list of names, none empty. */
  TKRT_SETTING_NAME_LIST = 6,
} tkrt_setting_type_t;

/* Who takes a setting (bits of tkrt_setting_t.scopes). */
enum {
  /* Read from the environment by tkrt_options_from_environment (or, for TRITON_CACHE_DIR, by
   * tkrt_triton_cache_scan). */
  TKRT_SETTING_SCOPE_LIBRARY = 1u << 0,
  /* libtkrt_xla: a tkrt_xla_configure name (and, for TKRT_XLA_*, its own variable). */
  TKRT_SETTING_SCOPE_XLA = 1u << 1,
  /* The tkrt CLI: a flag (cli_flag). */
  TKRT_SETTING_SCOPE_CLI = 1u << 2,
  /* The Python package: a keyword of tkrt.configure / configure_tuning or tkrt.triton.Tuner, or
   * a variable the package reads itself. */
  TKRT_SETTING_SCOPE_PYTHON = 1u << 3,
  /* A runtime (tkrt/runtime.h): a tkrt_runtime_configure name. */
  TKRT_SETTING_SCOPE_RUNTIME = 1u << 4,
};

typedef struct tkrt_setting {
  /* The name tkrt_xla_configure and Python take ("tune_policy"); two settings may share one
   * when their scopes differ (TKRT_BACKEND and TKRT_XLA_BACKEND are both "backend"). */
  const char* name;
  const char* env;         /* the environment variable; NULL when there is none */
  tkrt_setting_type_t type;
  const char* words;       /* TKRT_SETTING_WORD: "auto|never"; else NULL */
  double min, max;         /* TKRT_SETTING_INTEGER and _NUMBER: the bounds */
  const char* default_text; /* the default, as the docs say it */
  const char* expected;    /* what an error says after "expected " */
  const char* doc;         /* one line */
  const char* cli_flag;    /* "--policy"; NULL when the CLI has none */
  uint32_t scopes;         /* TKRT_SETTING_SCOPE_* bits */
} tkrt_setting_t;

/* The settings, in the table's order; tkrt_setting_at is NULL past the end. */
TKRT_API size_t tkrt_setting_count(void);
TKRT_API const tkrt_setting_t* tkrt_setting_at(size_t index);

/* The setting with this name or environment variable (exact spelling), taken by one of the
 * `scopes` bits (0: any); NULL when there is none. */
TKRT_API const tkrt_setting_t* tkrt_setting_find(const char* name, uint32_t scopes);

/* Checks a value the way tkrt reads it: NULL is unset (its default) and fine; "" too.
 * NOT_FOUND for an unknown name (a setting name or variable, any scope); INVALID_ARGUMENT
 * "<name> is '<value>'; expected ..." for a value the setting refuses, naming the setting as
 * `name` spells it. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_setting_check(const char* name, const char* value);

/* A value read by the table's rules. */
typedef struct tkrt_setting_value {
  bool set;              /* false: unset (NULL or ""), the setting's default */
  bool on;               /* SWITCH */
  int word;              /* WORD: the index in `words` */
  long integer;          /* INTEGER */
  double number;         /* NUMBER */
  tkrt_log_level_t level; /* LOG_LEVEL */
  const char* text;      /* the value as given (NULL when unset) */
} tkrt_setting_value_t;

/* Reads `value` by the rules of the setting `name` (a name taken in one of `scopes`, 0: any, or a
 * variable) into *out: errors as tkrt_setting_check. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_setting_read(const char* name, uint32_t scopes,
                                                      const char* value,
                                                      tkrt_setting_value_t* out);

/* The value of the setting's environment variable (`name`: a setting name or its variable), or
 * NULL when it is unset or empty, or no setting has that name. Frontends read their own variables
 * (TKRT_XLA_*) through this: the library reads the environment in one file, core/environment.c.
 * The pointer is the environment's: valid while the environment is not changed. */
TKRT_API const char* tkrt_setting_environment(const char* name);

/* Sets one setting on option structs (either may be NULL; call the _init functions first) as its
 * variable would set it: `name` is a setting name taken in one of `scopes` (0: any) or a variable
 * (TKRT_TUNE_POLICY); value NULL or "" restores the field's _init default. What the fields
 * become is the table's mapping (tune_policy "Never" is TKRT_TUNE_POLICY_NEVER); string fields
 * point at `value`, which the caller keeps alive. log sets the process's level (tkrt/log.h); a
 * setting with no field in these structs (count_captures, TRITON_CACHE_DIR) is only checked.
 * NOT_FOUND for an unknown name, INVALID_ARGUMENT as tkrt_setting_check; nothing changes then. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_setting_apply(const char* name, const char* value,
                                                       uint32_t scopes,
                                                       tkrt_device_options_t* device,
                                                       tkrt_autotuner_options_t* tuner);

#ifdef __cplusplus
}
#endif

#endif /* TKRT_SETTINGS_H_ */
