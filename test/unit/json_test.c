/* SPDX-License-Identifier: Apache-2.0 */
/* The bounded JSON reader (base/json.c), which reads files others may have written: Triton's
 * kernel JSON (also from a shared cache) and case.json. Two properties here:
 * - well-formed UTF-8 only, as RFC 8259 asks: every ill-formed raw byte sequence (a stray
 *   continuation byte, overlong forms, encoded surrogates, a sequence cut short, code points above
 *   U+10FFFF, bytes F5..FF) is refused naming the file, line and column, and each well-formed
 *   boundary code point is kept byte for byte; \u escapes of lone surrogates are refused too.
 * - no input within the 1 MiB cap that the readers apply is slow: a 1 MiB object of ~100k unique
 *   keys, nested and repeated variants, keys sharing long prefixes. CTest runs that case with a
 *   timeout (json.many_keys, 10 s under ASan); it took 16 s when keys were compared pairwise.
 *
 * usage: json_test [case...] */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "test/harness.h"

/* The cap the readers apply to a metadata file (Triton's JSON, case.json). */
#define JSON_FILE_CAP ((size_t)1 << 20)

static tkrt_status_t parse_n(const char* text, size_t size) {
  tkrt_json_value_t* v = NULL;
  tkrt_status_t status = tkrt_json_parse(text, size, "t.json", &v);
  tkrt_json_free(v);
  return status;
}

static tkrt_status_t parse(const char* text) { return parse_n(text, strlen(text)); }

/* ---------------------------------------------------------------- UTF-8 */

static void utf8_refused(void) {
  static const struct {
    const char* text;
    const char* where; /* file:line:column of the sequence's first byte, and the byte */
  } cases[] = {
      {"\"a\xff\"", "t.json:1:3: invalid UTF-8 in a string (byte 0xFF)"},
      {"\"\xfe\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xFE)"},
      {"\"\xf5\x80\x80\x80\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xF5)"}, /* > U+10FFFF */
      {"\"\xf4\x90\x80\x80\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xF4)"}, /* U+110000 */
      {"\"\x80\"", "t.json:1:2: invalid UTF-8 in a string (byte 0x80)"},  /* stray continuation */
      {"\"\xbf\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xBF)"},
      {"\"\xc0\xaf\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xC0)"}, /* overlong '/' */
      {"\"\xc1\xbf\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xC1)"}, /* overlong */
      {"\"\xe0\x80\xaf\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xE0)"}, /* overlong */
      {"\"\xe0\x9f\xbf\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xE0)"}, /* overlong U+07FF */
      {"\"\xf0\x80\x80\xaf\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xF0)"}, /* overlong */
      {"\"\xf0\x8f\xbf\xbf\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xF0)"}, /* U+FFFF long */
      {"\"\xed\xa0\x80\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xED)"}, /* U+D800 */
      {"\"\xed\xbf\xbf\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xED)"}, /* U+DFFF */
      {"\"\xed\xa0\xbd\xed\xb8\x80\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xED)"}, /* CESU */
      {"\"\xe2\x82\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xE2)"},  /* cut short */
      {"\"\xe2\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xE2)"},
      {"\"\xf0\x9f\x98\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xF0)"},
      {"\"\xc3\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xC3)"},
      {"\"\xc3\x28\"", "t.json:1:2: invalid UTF-8 in a string (byte 0xC3)"}, /* not a continuation */
      {"\"\xe2\x82\xac\xac\"", "t.json:1:5: invalid UTF-8 in a string (byte 0xAC)"}, /* one extra */
      /* In a key, on a later line, after valid text. */
      {"{\"ok\": \"\xc3\xa9\",\n  \"k\xc0\x80\": 1}", "t.json:2:5: invalid UTF-8 in a string (byte 0xC0)"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    tkrt_status_t status = parse(cases[i].text);
    if (!status || !strstr(tkrt_status_message(status), cases[i].where)) {
      TKRT_TEST_FAIL_("case %zu: expected '%s', got '%s'", i, cases[i].where,
                      status ? tkrt_status_message(status) : "success");
    } else {
      EXPECT_EQ_U64(tkrt_status_code(status), TKRT_STATUS_INVALID_ARGUMENT);
    }
    tkrt_status_free(status);
  }
  /* Truncated at the end of the input (no closing quote at all). */
  EXPECT_STATUS(parse_n("\"\xe2\x82", 3), TKRT_STATUS_INVALID_ARGUMENT, "unterminated string");
  /* Outside strings a non-ASCII byte is no JSON value. */
  EXPECT_STATUS(parse("[\xc3\xa9]"), TKRT_STATUS_INVALID_ARGUMENT, "t.json:1:2: unexpected character");
}

static void utf8_kept(void) {
  /* Each boundary of the well-formed table, raw and as the \u escape of the same code point. */
  static const struct {
    const char* raw;
    const char* escaped;
  } cases[] = {
      {"\xc2\x80", "\\u0080"},         {"\xdf\xbf", "\\u07FF"},
      {"\xe0\xa0\x80", "\\u0800"},     {"\xed\x9f\xbf", "\\ud7ff"},
      {"\xee\x80\x80", "\\ue000"},     {"\xef\xbf\xbf", "\\uFFFF"},
      {"\xf0\x90\x80\x80", "\\ud800\\udc00"},     {"\xf0\x9f\x98\x80", "\\ud83d\\ude00"},
      {"\xf3\xbf\xbf\xbf", "\\udbbf\\udfff"},     {"\xf4\x8f\xbf\xbf", "\\udbff\\udfff"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    for (int form = 0; form < 2; ++form) {
      char text[64];
      snprintf(text, sizeof(text), "{\"k%s\": \"<%s>\"}", form ? cases[i].escaped : cases[i].raw,
               form ? cases[i].escaped : cases[i].raw);
      tkrt_json_value_t* v = NULL;
      tkrt_status_t status = tkrt_json_parse(text, strlen(text), "t.json", &v);
      if (status) {
        TKRT_TEST_FAIL_("case %zu form %d: %s", i, form, tkrt_status_message(status));
        tkrt_status_free(status);
        continue;
      }
      char key[16], value[16];
      snprintf(key, sizeof(key), "k%s", cases[i].raw);
      snprintf(value, sizeof(value), "<%s>", cases[i].raw);
      const tkrt_json_value_t* s = tkrt_json_get(v, key);
      EXPECT_TRUE(s && s->type == TKRT_JSON_STRING && s->length == strlen(value) &&
                  strcmp(s->string, value) == 0);
      tkrt_json_free(v);
    }
  }
}

/* \u escapes of UTF-16 surrogates: only a high one followed by a low one is a code point
 * (docs/triton.md); alone, reversed or followed by anything else they are refused. */
static void escaped_surrogates(void) {
  static const char* const refused[] = {
      "\"\\ud800\"",         "\"\\udbff\"",        "\"\\udc00\"",     "\"\\udfff\"",
      "\"\\ude00\\ud83d\"",  "\"\\ud83d\\u0041\"", "\"\\ud83dx\"",    "\"\\ud83d\\ud83d\"",
      "\"a\\ud800b\"",
  };
  for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); ++i) {
    tkrt_status_t status = parse(refused[i]);
    if (!status || !strstr(tkrt_status_message(status), "t.json:1:") ||
        !strstr(tkrt_status_message(status), "unpaired UTF-16 surrogate")) {
      TKRT_TEST_FAIL_("%s: got '%s'", refused[i], status ? tkrt_status_message(status) : "success");
    }
    tkrt_status_free(status);
  }
}

/* ---------------------------------------------------------------- many keys */

typedef struct text_buffer {
  char* data;
  size_t size, capacity;
} text_buffer_t;

static void put(text_buffer_t* b, const char* format, ...) __attribute__((format(printf, 2, 3)));
static void put(text_buffer_t* b, const char* format, ...) {
  va_list args;
  va_start(args, format);
  int n = vsnprintf(b->data + b->size, b->capacity - b->size, format, args);
  va_end(args);
  if (n < 0 || b->size + (size_t)n >= b->capacity) {
    fprintf(stderr, "json_test: the generated text outgrew its buffer\n");
    abort();
  }
  b->size += (size_t)n;
}

/* An object of unique keys "k<prefix><i>": 0 filling `budget` bytes; returns the key count. */
static size_t put_object(text_buffer_t* b, size_t budget, const char* prefix, int repeat_last) {
  size_t end = b->size + budget - 96 - 2 * strlen(prefix), count = 0;
  put(b, "{");
  while (b->size < end) {
    put(b, "%s\"k%s%zx\":0", count ? "," : "", prefix, count);
    ++count;
  }
  if (repeat_last) put(b, ",\"k%s%zx\":1", prefix, count / 2); /* a key from the middle again */
  put(b, "}");
  return count;
}

static void many_keys(void) {
  text_buffer_t b = {malloc(JSON_FILE_CAP + 1), 0, JSON_FILE_CAP + 1};
  ASSERT_TRUE(b.data != NULL);

  /* One object, as many short keys as 1 MiB holds. */
  size_t count = put_object(&b, JSON_FILE_CAP, "", 0);
  EXPECT_TRUE(count > 100000 && b.size <= JSON_FILE_CAP);
  tkrt_json_value_t* v = NULL;
  tkrt_status_t status = tkrt_json_parse(b.data, b.size, "many.json", &v);
  EXPECT_OK(status);
  if (!status) {
    EXPECT_EQ_U64(v->count, count);
    EXPECT_TRUE(tkrt_json_get(v, "k0") == &v->items[0]);
    char last[32];
    snprintf(last, sizeof(last), "k%zx", count - 1);
    EXPECT_TRUE(tkrt_json_get(v, last) == &v->items[count - 1]);
    EXPECT_STREQ(v->keys[count - 1], last);
  }
  tkrt_json_free(v);

  /* The same with one key repeated at the end: refused, naming the key where it repeats. */
  b.size = 0;
  count = put_object(&b, JSON_FILE_CAP, "", 1);
  status = parse_n(b.data, b.size);
  char expected[64];
  snprintf(expected, sizeof(expected), "duplicate key \"k%zx\"", count / 2);
  EXPECT_STATUS(status, TKRT_STATUS_INVALID_ARGUMENT, expected);

  /* Nested: an object of 16 many-key objects, and an array of them. */
  for (int array = 0; array < 2; ++array) {
    b.size = 0;
    put(&b, array ? "[" : "{");
    for (int i = 0; i < 16; ++i) {
      if (array) put(&b, "%s", i ? "," : "");
      else put(&b, "%s\"o%d\":", i ? "," : "", i);
      put_object(&b, JSON_FILE_CAP / 16 - 16, "", 0);
    }
    put(&b, array ? "]" : "}");
    EXPECT_TRUE(b.size <= JSON_FILE_CAP);
    EXPECT_OK(parse_n(b.data, b.size));
  }
  /* Deep: 60 levels, each with a share of the keys. */
  b.size = 0;
  for (int depth = 0; depth < 60; ++depth) {
    put_object(&b, JSON_FILE_CAP / 64, "", 0);
    b.data[b.size - 1] = ','; /* reopen it: the next level is its last member */
    put(&b, "\"next\":");
  }
  put(&b, "0");
  for (int depth = 0; depth < 60; ++depth) put(&b, "}");
  EXPECT_TRUE(b.size <= JSON_FILE_CAP);
  EXPECT_OK(parse_n(b.data, b.size));

  /* Keys that share a long prefix: each comparison reads ~1000 bytes. */
  char prefix[1001];
  memset(prefix, 'p', 1000);
  prefix[1000] = '\0';
  b.size = 0;
  count = put_object(&b, JSON_FILE_CAP, prefix, 0);
  EXPECT_TRUE(count > 1000);
  EXPECT_OK(parse_n(b.data, b.size));
  b.size = 0;
  count = put_object(&b, JSON_FILE_CAP, prefix, 1);
  EXPECT_STATUS(parse_n(b.data, b.size), TKRT_STATUS_INVALID_ARGUMENT, "duplicate key \"kppp");
  free(b.data);
}

/* Duplicates are reported at the repeated key (line and column after its closing quote), the
 * first repeat in the text when there are several, in objects large and small. */
static void duplicate_position(void) {
  EXPECT_STATUS(parse("{\"a\": 1,\n \"b\": 2, \"a\": 3}"), TKRT_STATUS_INVALID_ARGUMENT,
                "t.json:2:13: duplicate key \"a\"");
  EXPECT_STATUS(parse("{\"z\": 1, \"y\": 2, \"y\": 3, \"z\": 4}"), TKRT_STATUS_INVALID_ARGUMENT,
                "t.json:1:21: duplicate key \"y\"");
  EXPECT_STATUS(parse("{\"z\": {\"q\": 1, \"q\": 2}, \"z\": 4}"), TKRT_STATUS_INVALID_ARGUMENT,
                "t.json:1:19: duplicate key \"q\"");
  /* Keys equal up to a NUL-free prefix are different keys; escapes compare decoded. */
  EXPECT_OK(parse("{\"a\": 1, \"ab\": 2, \"\": 3, \"b\": 4}"));
  EXPECT_STATUS(parse("{\"\\u0061\": 1, \"a\": 2}"), TKRT_STATUS_INVALID_ARGUMENT,
                "duplicate key \"a\"");
  EXPECT_STATUS(parse("{\"\": 1, \"\": 2}"), TKRT_STATUS_INVALID_ARGUMENT, "duplicate key \"\"");
  /* A key is shown with control and non-ASCII bytes escaped: no terminal escapes in errors. */
  EXPECT_STATUS(parse("{\"\\u001b[2J\xc3\xa9\": 1, \"\\u001b[2J\\u00e9\": 2}"),
                TKRT_STATUS_INVALID_ARGUMENT, "duplicate key \"\\x1B[2J\\xC3\\xA9\"");
}

int main(int argc, char** argv) {
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(utf8_refused),       TKRT_TEST_CASE(utf8_kept),
      TKRT_TEST_CASE(escaped_surrogates), TKRT_TEST_CASE(duplicate_position),
      TKRT_TEST_CASE(many_keys),
  };
  return tkrt_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
