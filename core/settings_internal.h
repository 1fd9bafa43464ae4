/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: the settings table's internal side (core/settings.c): setting ids, parsed values, and
 * tkrt_settings_apply, which frontends and the runtime use to set one setting by name on the
 * option structs the way the environment reader does. */
#ifndef TKRT_CORE_SETTINGS_INTERNAL_H_
#define TKRT_CORE_SETTINGS_INTERNAL_H_

#include <stdbool.h>

#include "tkrt/autotune.h"
#include "tkrt/device.h"
#include "tkrt/log.h"
#include "tkrt/settings.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The table's rows, in order (tkrt_setting_at(id)). */
typedef enum tkrt_setting_id {
  TKRT_SETTING_ID_BACKEND,
  TKRT_SETTING_ID_HOST_THREADS,
  TKRT_SETTING_ID_CACHE_DIR,
  TKRT_SETTING_ID_HIP_LIBRARY,
  TKRT_SETTING_ID_LOG,
  TKRT_SETTING_ID_TUNE_DIR,
  TKRT_SETTING_ID_TUNE_POLICY,
  TKRT_SETTING_ID_TUNE_PIN,
  TKRT_SETTING_ID_TUNE_PRUNE_MARGIN,
  TKRT_SETTING_ID_TUNE_TARGET_MS,
  TKRT_SETTING_ID_TUNE_MAX_ITERATIONS,
  TKRT_SETTING_ID_TUNE_REQUIRE_COMPLETE,
  TKRT_SETTING_ID_TRUST_SHARED_STORES,
  TKRT_SETTING_ID_TRITON_CACHE_DIR,
  TKRT_SETTING_ID_TRITON_HOME,
  TKRT_SETTING_ID_XLA_BACKEND,
  TKRT_SETTING_ID_XLA_CAPTURE_POLICY,
  TKRT_SETTING_ID_XLA_COUNT_CAPTURES,
  TKRT_SETTING_ID_XLA_LIBRARY,
  TKRT_SETTING_ID_LIBRARY,
  TKRT_SETTING_ID_PYTHON_LAUNCH,
  TKRT_SETTING_ID_NATIVE_MODULE,
  TKRT_SETTING_ID_COUNT
} tkrt_setting_id_t;


static inline const tkrt_setting_t* tkrt_setting_by_id(tkrt_setting_id_t id) {
  return tkrt_setting_at((size_t)id);
}

/* Reads `value` by the setting's rules. INVALID_ARGUMENT "<shown> is '<value>'; expected <...>"
 * (shown: how the caller names the setting; NULL: its variable, else its name). */
TKRT_MUST_USE tkrt_status_t tkrt_setting_parse(const tkrt_setting_t* setting, const char* shown,
                                               const char* value, tkrt_setting_value_t* out);

/* Sets one setting on the option structs (either may be NULL) as its variable would: `name` is
 * a setting name taken in one of `scopes` (e.g. TKRT_SETTING_SCOPE_XLA), or a variable; value
 * NULL or "" restores the field's default (the _init value). String fields point at `value`: the
 * caller keeps it alive. The log level is process-wide (tkrt_log_set_level). A setting with no
 * field in these structs (count_captures, the XLA library) is only checked; *out_setting and
 * *out_value (either may be NULL) tell the caller which it was and what it read. NOT_FOUND for an
 * unknown name, INVALID_ARGUMENT for a bad value; nothing is changed then. */
TKRT_MUST_USE tkrt_status_t tkrt_settings_apply(const char* name, const char* value,
                                                uint32_t scopes,
                                                tkrt_device_options_t* device,
                                                tkrt_autotuner_options_t* tuner,
                                                const tkrt_setting_t** out_setting,
                                                tkrt_setting_value_t* out_value);

/* The value of the setting's environment variable (core/environment.c, the one place that reads
 * the environment), or NULL when it is unset or empty (or the setting has no variable). */
const char* tkrt_environment_setting(tkrt_setting_id_t id);

/* Triton's cache folder as Triton finds it (core/environment.c): $TRITON_CACHE_DIR, else
 * $TRITON_HOME/.triton/cache, else $HOME/.triton/cache. NOT_FOUND when none is set. */
TKRT_MUST_USE tkrt_status_t tkrt_environment_triton_cache_dir(char* out, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* TKRT_CORE_SETTINGS_INTERNAL_H_ */
