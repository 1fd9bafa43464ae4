/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: a small, bounded JSON reader for metadata files that users name (Triton's kernel
 * JSON): strict RFC 8259, depth- and count-limited, errors with the file, line and column. */
#ifndef TKRT_BASE_JSON_H_
#define TKRT_BASE_JSON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/status.h"

#define TKRT_JSON_MAX_DEPTH 64
#define TKRT_JSON_MAX_VALUES (1u << 20)

typedef enum tkrt_json_type {
  TKRT_JSON_NULL = 0,
  TKRT_JSON_BOOL = 1,
  TKRT_JSON_NUMBER = 2,
  TKRT_JSON_STRING = 3,
  TKRT_JSON_ARRAY = 4,
  TKRT_JSON_OBJECT = 5,
} tkrt_json_type_t;

typedef struct tkrt_json_value tkrt_json_value_t;
struct tkrt_json_value {
  tkrt_json_type_t type;
  bool boolean;
  double number;
  bool is_integer; /* the text was an integer that fits int64 (then `integer` holds it exactly) */
  int64_t integer;
  char* string;    /* decoded UTF-8, NUL-terminated (strings with \u0000 are rejected) */
  size_t length;
  size_t count;    /* array and object members */
  tkrt_json_value_t* items;
  char** keys;     /* objects: keys[i] names items[i]; keys are unique */
};

/* Parses one JSON document (no trailing text but whitespace). `what` names the source in errors,
 * e.g. the file path: "add_kernel.json:1:17: expected ':' after an object key". Nesting deeper than
 * TKRT_JSON_MAX_DEPTH, more than TKRT_JSON_MAX_VALUES values, duplicate keys, strings that are not
 * well-formed UTF-8 (raw bytes: overlong forms, encoded surrogates, code points above U+10FFFF,
 * stray or missing continuation bytes; escapes: a \u surrogate that is not half of a pair),
 * control characters in strings, NaN/Infinity: INVALID_ARGUMENT. Time is O(n log n) in the text's
 * size whatever its shape (duplicate keys are found by sorting each object's keys). */
tkrt_status_t tkrt_json_parse(const char* text, size_t size, const char* what,
                              tkrt_json_value_t** out_value);
void tkrt_json_free(tkrt_json_value_t* value);

/* The member of an object named `key`, NULL when absent or `object` is not an object. */
const tkrt_json_value_t* tkrt_json_get(const tkrt_json_value_t* object, const char* key);
const char* tkrt_json_type_name(tkrt_json_type_t type);

#endif /* TKRT_BASE_JSON_H_ */
