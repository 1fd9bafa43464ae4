/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the decision exchange's value parser (tkrt_exchange_value_parse: the bytes
 * another rank, or whoever can write the store behind the exchange, published). The first input
 * byte picks the kind (0 mod 3: a decision, 1: timings, 2: a tuning database file, parsed by
 * tkrt_tunedb_parse, whose records must re-format and parse the same); the rest is the value, parsed for the key
 * of 64 zeros and 3 configs. Checks: never a crash or leak; an accepted decision is inside the
 * config count, accepted timings are each -1 or finite and >= 0, an accepted value re-formats to
 * the same parse; a refused one has a reason and leaves the outputs untouched. Seeds:
 * test/fuzz/corpus_exchange (one valid value of each kind, whose first byte is the kind). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tune/exchange.h"
#include "core/tune/tune_db.h"

#define FUZZ_CONFIGS 3

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const char key[] = "0000000000000000000000000000000000000000000000000000000000000000";
  if (data[0] % 3 == 2) {
    tkrt_timing_t* records = NULL;
    size_t count = 0;
    tkrt_status_t status = tkrt_tunedb_parse((const char*)data + 1, size - 1, "fuzz", &records,
                                             &count);
    if (status) {
      if (records || count) abort();
      tkrt_status_free(status);
      return 0;
    }
    for (size_t i = 0; i < count; ++i) {
      char line[256], problem[128];
      size_t length = tkrt_timing_format_line(&records[i], line, sizeof(line));
      tkrt_timing_t again;
      if (!length || !tkrt_timing_parse_line(line, length - 1, &again, problem, sizeof(problem)) ||
          memcmp(&again, &records[i], sizeof(again)) != 0) {
        abort();
      }
    }
    free(records);
    return 0;
  }
  tkrt_exchange_value_kind_t kind =
      data[0] % 3 == 1 ? TKRT_EXCHANGE_VALUE_TIMINGS : TKRT_EXCHANGE_VALUE_DECISION;
  float times[FUZZ_CONFIGS] = {-7, -7, -7};
  size_t chosen = 99;
  char problem[128] = "";
  bool ok = tkrt_exchange_value_parse(data + 1, size - 1, kind, key, FUZZ_CONFIGS, &chosen, times,
                                      problem, sizeof(problem));
  if (!ok) {
    if (!problem[0] || chosen != 99 || times[0] != -7 || times[1] != -7 || times[2] != -7) abort();
    return 0;
  }
  if (kind == TKRT_EXCHANGE_VALUE_DECISION) {
    if (chosen >= FUZZ_CONFIGS || times[0] != -7) abort();
  } else {
    for (int i = 0; i < FUZZ_CONFIGS; ++i) {
      if (!(times[i] == -1 || (isfinite(times[i]) && times[i] >= 0))) abort();
    }
  }
  /* What the tuner publishes from an accepted value parses back to the same value. */
  char again[512];
  size_t length =
      tkrt_exchange_value_format(again, sizeof(again), kind, key, FUZZ_CONFIGS, chosen, times);
  if (!length) abort();
  float times2[FUZZ_CONFIGS] = {-7, -7, -7};
  size_t chosen2 = 99;
  if (!tkrt_exchange_value_parse(again, length, kind, key, FUZZ_CONFIGS, &chosen2, times2, problem,
                                 sizeof(problem))) {
    abort();
  }
  if (kind == TKRT_EXCHANGE_VALUE_DECISION ? chosen2 != chosen
                                           : memcmp(times, times2, sizeof(times)) != 0) {
    abort();
  }
  return 0;
}
