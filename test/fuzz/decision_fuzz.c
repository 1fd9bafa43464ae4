/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the tuning decision store's entry parser (tkrt_decision_parse: the text a
 * store file holds, which another process, or anyone who can write the folder, may have written).
 * Checks: never a crash or leak; a parsed entry has a choice inside the config count; nothing is
 * written to the caller's decision unless the entry parsed. Seeds: test/fuzz/corpus_decision, whose
 * "valid" entry matches what this target asks for (digest of zeros, x86_64, driver 0, 3 configs,
 * tkrt 0.1.0: update its version line with TKRT_VERSION_STRING, or the fuzzer stops earlier). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tune/decision_store.h"
#include "tkrt/api.h"

#define FUZZ_CONFIGS 3

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const uint8_t digest[32] = {0};
  char* text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  float times[FUZZ_CONFIGS] = {-7, -7, -7};
  tkrt_decision_t decision = {.chosen = 99, .config_count = FUZZ_CONFIGS, .iterations = 99,
                              .times_ms = times};
  int found = 0;
  char problem[512];
  tkrt_status_t status = tkrt_decision_parse(text, size, "fuzz", digest, "x86_64", 0, &decision,
                                             &found, problem, sizeof(problem));
  free(text);
  if (status) {
    if (tkrt_status_code(status) != TKRT_STATUS_RESOURCE_EXHAUSTED) abort();
    tkrt_status_free(status);
    return 0;
  }
  if (found && (decision.chosen >= FUZZ_CONFIGS || problem[0])) abort();
  if (!found && (decision.chosen != 99 || decision.iterations != 99 || times[0] != -7 ||
                 !problem[0])) {
    abort();
  }
  return 0;
}
