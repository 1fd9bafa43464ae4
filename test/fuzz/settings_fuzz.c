/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the settings table's value reader (core/settings.c: tkrt_setting_check,
 * tkrt_setting_read, tkrt_setting_apply; values come from the environment, tkrt_xla_configure,
 * the CLI's flags and Python keywords). The input's first byte picks the setting (modulo the
 * table), the rest is the value. Checks: no crash, leak or undefined behaviour; a refusal is
 * INVALID_ARGUMENT naming the setting; check, read and apply agree; a refused apply leaves the
 * option structs as they were; reading is deterministic. Seeds: test/fuzz/corpus_settings. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tkrt/tkrt.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const tkrt_setting_t* setting = tkrt_setting_at(data[0] % tkrt_setting_count());
  char* value = malloc(size);
  if (!value) return 0;
  memcpy(value, data + 1, size - 1);
  value[size - 1] = '\0';
  tkrt_status_t checked = tkrt_setting_check(setting->name, value);
  tkrt_setting_value_t first, second;
  tkrt_status_t read = tkrt_setting_read(setting->name, setting->scopes, value, &first);
  tkrt_status_t again = tkrt_setting_read(setting->name, setting->scopes, value, &second);
  if ((checked == NULL) != (read == NULL) || (read == NULL) != (again == NULL)) abort();
  if (read) {
    if (tkrt_status_code(read) != TKRT_STATUS_INVALID_ARGUMENT) abort();
    if (!strstr(tkrt_status_message(read), setting->name)) abort();
  } else if (first.set != (value[0] != '\0') || first.on != second.on ||
             first.word != second.word || first.integer != second.integer ||
             first.level != second.level) {
    abort();
  }
  /* The log level is process-wide: apply it only when the value is refused (a no-op). */
  if (read || strcmp(setting->name, "log") != 0) {
    tkrt_device_options_t device, device_before;
    tkrt_autotuner_options_t tuner, tuner_before;
    tkrt_device_options_init(&device);
    tkrt_autotuner_options_init(&tuner);
    device_before = device;
    tuner_before = tuner;
    tkrt_status_t applied = tkrt_setting_apply(setting->name, value, setting->scopes, &device, &tuner);
    if ((applied == NULL) != (read == NULL)) abort();
    if (applied && (memcmp(&device, &device_before, sizeof(device)) != 0 ||
                    memcmp(&tuner, &tuner_before, sizeof(tuner)) != 0)) {
      abort();
    }
    tkrt_status_free(applied);
  }
  tkrt_status_free(checked);
  tkrt_status_free(read);
  tkrt_status_free(again);
  free(value);
  return 0;
}
