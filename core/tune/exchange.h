/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: the decision exchange's keys and values (the tuner's side of tkrt_exchange_t). A
 * value is text, like a store entry: a header with the format version, the exchange key it was
 * published under, the config count, then a choice or per-config timings. Anything else is
 * refused. */
#ifndef TKRT_CORE_TUNE_EXCHANGE_H_
#define TKRT_CORE_TUNE_EXCHANGE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/autotune.h"

/* tkrt's decision format version: part of every exchange key and value. */
#define TKRT_EXCHANGE_FORMAT 1

/* SHA-256 (hex) over the format version, the call digest (kernels, images, grids, parameters),
 * the device's arch, SM count and driver version, and the caller's tuning key. */
void tkrt_exchange_key(const uint8_t digest[32], const char* arch, uint32_t sm_count,
                       int driver_version, const char* tuning_key, char out_hex[65]);

typedef enum tkrt_exchange_value_kind {
  TKRT_EXCHANGE_VALUE_DECISION = 1, /* "chosen <index>": the leader's choice */
  TKRT_EXCHANGE_VALUE_TIMINGS = 2,  /* "times <ms> ...": one rank's per-config means, -1 skipped */
} tkrt_exchange_value_kind_t;

/* Writes a value into out (capacity bytes); returns its length, or 0 when it does not fit. */
size_t tkrt_exchange_value_format(char* out, size_t capacity, tkrt_exchange_value_kind_t kind,
                                  const char* key_hex, size_t config_count, size_t chosen,
                                  const float* times_ms);

/* Parses `size` bytes (not NUL-terminated) as a value of `kind` for `key_hex` with config_count
 * configs. Returns true and fills *out_chosen (DECISION) or out_times_ms[config_count] (TIMINGS:
 * each finite and >= 0, or -1 for a config that could not run) only when the whole value is
 * valid; otherwise false with *problem saying why, and the outputs untouched. A value larger
 * than TKRT_EXCHANGE_MAX_VALUE, with a NUL byte, another format version, key, kind or config
 * count, an index out of range or trailing bytes is refused. */
bool tkrt_exchange_value_parse(const void* data, size_t size, tkrt_exchange_value_kind_t kind,
                               const char* key_hex, size_t config_count, size_t* out_chosen,
                               float* out_times_ms, char* problem, size_t problem_capacity);

/* Keys follow TKRT_EXCHANGE_MAX_KEY and the [A-Za-z0-9._-] alphabet, not starting with '.'. */
bool tkrt_exchange_key_valid(const char* key);

#endif /* TKRT_CORE_TUNE_EXCHANGE_H_ */
