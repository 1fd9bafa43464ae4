/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the JSON reader (base/json.c: Triton's kernel JSON, case.json, any file
 * of up to the readers' 1 MiB cap; run_fuzz.sh lets inputs reach it, so slow shapes such as
 * objects of 100k keys are found by libFuzzer's -timeout). Checks: no crash or leak; a refusal is
 * INVALID_ARGUMENT (or RESOURCE_EXHAUSTED) whose message starts with the source's name and a
 * line and column; a parsed document keeps its promises: strings are NUL-terminated, as long as
 * said, without NUL and well-formed UTF-8; an object's keys are unique and each is found by
 * tkrt_json_get; counts, depth and integers are consistent. Seeds: the repository's JSON files
 * (Triton metadata, case.json, the vectors' wire.json) and test/fuzz/corpus_json. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/* Independent of the reader's own check: RFC 3629's well-formed sequences. */
static int well_formed_utf8(const unsigned char* s, size_t n) {
  for (size_t i = 0; i < n;) {
    unsigned c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    if (c < 0xC2 || c > 0xF4 || i + len > n) return 0;
    uint32_t cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return 0;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return 0;
    }
    i += len;
  }
  return 1;
}

static int compare_strings(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

static void check_value(const tkrt_json_value_t* v, int depth, size_t* values) {
  if (depth > TKRT_JSON_MAX_DEPTH + 1 || ++*values > TKRT_JSON_MAX_VALUES) abort();
  switch (v->type) {
    case TKRT_JSON_STRING:
      if (!v->string || strlen(v->string) != v->length ||
          !well_formed_utf8((const unsigned char*)v->string, v->length)) {
        abort();
      }
      break;
    case TKRT_JSON_NUMBER:
      if (v->number != v->number) abort(); /* NaN never parses */
      /* Both are the correctly rounded value of the same integer text. */
      if (v->is_integer && (double)v->integer != v->number) abort();
      break;
    case TKRT_JSON_ARRAY:
    case TKRT_JSON_OBJECT: {
      if (v->count && !v->items) abort();
      for (size_t i = 0; i < v->count; ++i) check_value(&v->items[i], depth + 1, values);
      if (v->type == TKRT_JSON_ARRAY || v->count == 0) break;
      char** keys = malloc(v->count * sizeof(*keys));
      if (!keys) break;
      for (size_t i = 0; i < v->count; ++i) {
        const char* key = v->keys[i];
        if (!key || !well_formed_utf8((const unsigned char*)key, strlen(key))) abort();
        keys[i] = v->keys[i];
      }
      qsort(keys, v->count, sizeof(*keys), compare_strings);
      for (size_t i = 1; i < v->count; ++i) {
        if (strcmp(keys[i - 1], keys[i]) == 0) abort(); /* duplicate keys are refused */
      }
      free(keys);
      /* Lookups are linear: check a few members, not all (a 100k-key object stays fast). */
      for (size_t i = 0; i < v->count; i += 1 + v->count / 8) {
        if (tkrt_json_get(v, v->keys[i]) != &v->items[i]) abort();
      }
      break;
    }
    case TKRT_JSON_NULL:
    case TKRT_JSON_BOOL: break;
    default: abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  /* An exact-size copy (the readers pass their buffer, NUL after it; the reader must not need it). */
  char* text = malloc(size ? size : 1);
  if (!text) return 0;
  memcpy(text, data, size);
  tkrt_json_value_t* root = NULL;
  tkrt_status_t status = tkrt_json_parse(text, size, "fuzz.json", &root);
  free(text);
  if (status) {
    tkrt_status_code_t code = tkrt_status_code(status);
    const char* message = tkrt_status_message(status);
    unsigned line = 0, column = 0;
    if (code == TKRT_STATUS_INVALID_ARGUMENT &&
        (sscanf(message, "fuzz.json:%u:%u: ", &line, &column) != 2 || line == 0 || column == 0)) {
      abort();
    }
    if (code != TKRT_STATUS_INVALID_ARGUMENT && code != TKRT_STATUS_RESOURCE_EXHAUSTED) abort();
    if (root) abort();
    tkrt_status_free(status);
    return 0;
  }
  if (!root) abort();
  size_t values = 0;
  check_value(root, 0, &values);
  tkrt_json_free(root);
  return 0;
}
