/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: the bounded JSON reader (see json.h). Recursive descent whose depth is capped, so a
 * document of nested brackets cannot exhaust the stack; every allocation is freed on error. */
#include "base/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tkrt_json_parser {
  const char* text;
  size_t size;
  size_t pos;
  const char* what;
  size_t values;
  tkrt_status_t error;
} tkrt_json_parser_t;

const char* tkrt_json_type_name(tkrt_json_type_t type) {
  switch (type) {
    case TKRT_JSON_NULL: return "null";
    case TKRT_JSON_BOOL: return "a boolean";
    case TKRT_JSON_NUMBER: return "a number";
    case TKRT_JSON_STRING: return "a string";
    case TKRT_JSON_ARRAY: return "an array";
    case TKRT_JSON_OBJECT: return "an object";
  }
  return "unknown";
}

/* Records the first error with the line and column of the current position. */
static void tkrt_json_fail(tkrt_json_parser_t* p, const char* message) {
  if (p->error) return;
  size_t line = 1, column = 1;
  for (size_t i = 0; i < p->pos && i < p->size; ++i) {
    if (p->text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  p->error = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s:%zu:%zu: %s", p->what, line, column,
                              message);
}

static void tkrt_json_skip_space(tkrt_json_parser_t* p) {
  while (p->pos < p->size) {
    char c = p->text[p->pos];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    ++p->pos;
  }
}

static void tkrt_json_value_clear(tkrt_json_value_t* v) {
  free(v->string);
  for (size_t i = 0; i < v->count; ++i) {
    tkrt_json_value_clear(&v->items[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  memset(v, 0, sizeof(*v));
}

void tkrt_json_free(tkrt_json_value_t* value) {
  if (!value) return;
  tkrt_json_value_clear(value);
  free(value);
}

static int tkrt_json_literal(tkrt_json_parser_t* p, const char* word) {
  size_t length = strlen(word);
  if (p->size - p->pos < length || memcmp(p->text + p->pos, word, length) != 0) return 0;
  p->pos += length;
  return 1;
}

static int tkrt_json_hex4(tkrt_json_parser_t* p, uint32_t* out) {
  if (p->size - p->pos < 4) return 0;
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) {
    char c = p->text[p->pos + (size_t)i];
    value <<= 4;
    if (c >= '0' && c <= '9') value |= (uint32_t)(c - '0');
    else if (c >= 'a' && c <= 'f') value |= (uint32_t)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') value |= (uint32_t)(c - 'A' + 10);
    else return 0;
  }
  p->pos += 4;
  *out = value;
  return 1;
}

static size_t tkrt_json_utf8(uint32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* The length of the well-formed UTF-8 sequence starting at `s` (its first byte >= 0x80), or 0:
 * RFC 3629 (Unicode's table of well-formed byte sequences): no overlong forms, no encoded UTF-16
 * surrogates (U+D800..U+DFFF), nothing above U+10FFFF, no stray continuation bytes, no sequence
 * cut short. The caller's string ends with '"', which is no continuation byte, so reading stops
 * inside the text. */
static size_t tkrt_json_utf8_sequence(const char* text) {
  const unsigned char* s = (const unsigned char*)text;
  unsigned char lo = 0x80, hi = 0xBF;
  size_t n;
  if (s[0] >= 0xC2 && s[0] <= 0xDF) {
    n = 2;
  } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
    n = 3;
    if (s[0] == 0xE0) lo = 0xA0;      /* overlong below U+0800 */
    else if (s[0] == 0xED) hi = 0x9F; /* U+D800..U+DFFF */
  } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
    n = 4;
    if (s[0] == 0xF0) lo = 0x90;      /* overlong below U+10000 */
    else if (s[0] == 0xF4) hi = 0x8F; /* above U+10FFFF */
  } else {
    return 0; /* a continuation byte, an overlong lead (C0, C1) or F5..FF */
  }
  if (s[1] < lo || s[1] > hi) return 0;
  for (size_t i = 2; i < n; ++i) {
    if (s[i] < 0x80 || s[i] > 0xBF) return 0;
  }
  return n;
}

/* Parses a string at p->pos (the opening quote) into a malloc'ed, NUL-terminated copy. Decoded
 * text is never longer than its escaped source, so one allocation of the source span suffices. */
static char* tkrt_json_string(tkrt_json_parser_t* p, size_t* out_length) {
  ++p->pos; /* the quote */
  size_t end = p->pos;
  while (end < p->size && p->text[end] != '"') end += p->text[end] == '\\' ? 2 : 1;
  if (end >= p->size) {
    tkrt_json_fail(p, "unterminated string");
    return NULL;
  }
  char* out = malloc(end - p->pos + 1);
  if (!out) {
    p->error = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
    return NULL;
  }
  size_t length = 0;
  while (p->text[p->pos] != '"') {
    unsigned char c = (unsigned char)p->text[p->pos];
    if (c < 0x20) {
      tkrt_json_fail(p, "control character in a string");
      goto fail;
    }
    if (c >= 0x80) {
      size_t n = tkrt_json_utf8_sequence(p->text + p->pos);
      if (!n) {
        char message[80];
        snprintf(message, sizeof(message), "invalid UTF-8 in a string (byte 0x%02X)", c);
        tkrt_json_fail(p, message);
        goto fail;
      }
      memcpy(out + length, p->text + p->pos, n);
      length += n;
      p->pos += n;
      continue;
    }
    if (c != '\\') {
      out[length++] = (char)c;
      ++p->pos;
      continue;
    }
    char e = p->text[++p->pos];
    ++p->pos;
    switch (e) {
      case '"': out[length++] = '"'; break;
      case '\\': out[length++] = '\\'; break;
      case '/': out[length++] = '/'; break;
      case 'b': out[length++] = '\b'; break;
      case 'f': out[length++] = '\f'; break;
      case 'n': out[length++] = '\n'; break;
      case 'r': out[length++] = '\r'; break;
      case 't': out[length++] = '\t'; break;
      case 'u': {
        uint32_t cp = 0, low = 0;
        if (!tkrt_json_hex4(p, &cp)) {
          tkrt_json_fail(p, "bad \\u escape");
          goto fail;
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (!tkrt_json_literal(p, "\\u") || !tkrt_json_hex4(p, &low) || low < 0xDC00 ||
              low > 0xDFFF) {
            tkrt_json_fail(p, "unpaired UTF-16 surrogate in a \\u escape");
            goto fail;
          }
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          tkrt_json_fail(p, "unpaired UTF-16 surrogate in a \\u escape");
          goto fail;
        }
        if (cp == 0) {
          tkrt_json_fail(p, "\\u0000 in a string");
          goto fail;
        }
        /* Six source bytes (twelve for a pair) become at most four: the buffer is big enough. */
        length += tkrt_json_utf8(cp, out + length);
        break;
      }
      default:
        --p->pos;
        tkrt_json_fail(p, "bad escape in a string");
        goto fail;
    }
  }
  ++p->pos; /* the closing quote */
  out[length] = '\0';
  *out_length = length;
  return out;
fail:
  free(out);
  return NULL;
}

static int tkrt_json_number(tkrt_json_parser_t* p, tkrt_json_value_t* v) {
  size_t start = p->pos;
  const char* t = p->text;
  size_t i = p->pos;
  int integer = 1;
  if (i < p->size && t[i] == '-') ++i;
  if (i >= p->size || t[i] < '0' || t[i] > '9') goto bad;
  if (t[i] == '0') {
    ++i;
  } else {
    while (i < p->size && t[i] >= '0' && t[i] <= '9') ++i;
  }
  if (i < p->size && t[i] == '.') {
    integer = 0;
    ++i;
    if (i >= p->size || t[i] < '0' || t[i] > '9') goto bad;
    while (i < p->size && t[i] >= '0' && t[i] <= '9') ++i;
  }
  if (i < p->size && (t[i] == 'e' || t[i] == 'E')) {
    integer = 0;
    ++i;
    if (i < p->size && (t[i] == '+' || t[i] == '-')) ++i;
    if (i >= p->size || t[i] < '0' || t[i] > '9') goto bad;
    while (i < p->size && t[i] >= '0' && t[i] <= '9') ++i;
  }
  char buffer[64];
  if (i - start >= sizeof(buffer)) {
    tkrt_json_fail(p, "number too long");
    return 0;
  }
  memcpy(buffer, t + start, i - start);
  buffer[i - start] = '\0';
  p->pos = i;
  v->type = TKRT_JSON_NUMBER;
  v->number = strtod(buffer, NULL);
  if (!isfinite(v->number)) {
    p->pos = start;
    tkrt_json_fail(p, "number out of range");
    return 0;
  }
  if (integer) {
    errno = 0;
    long long value = strtoll(buffer, NULL, 10);
    if (errno == 0) {
      v->is_integer = true;
      v->integer = (int64_t)value;
    }
  }
  return 1;
bad:
  p->pos = i;
  tkrt_json_fail(p, "malformed number");
  return 0;
}

static int tkrt_json_value(tkrt_json_parser_t* p, tkrt_json_value_t* v, int depth);

/* Appends one zeroed slot to a container, growing it geometrically. */
static tkrt_json_value_t* tkrt_json_push(tkrt_json_parser_t* p, tkrt_json_value_t* v,
                                         size_t* capacity, int with_key) {
  if (v->count == *capacity) {
    size_t grown = *capacity ? *capacity * 2 : 4;
    tkrt_json_value_t* items = realloc(v->items, grown * sizeof(*items));
    if (items) v->items = items;
    char** keys = NULL;
    if (items && with_key) {
      keys = realloc(v->keys, grown * sizeof(*keys));
      if (keys) v->keys = keys;
    }
    if (!items || (with_key && !keys)) {
      p->error = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
      return NULL;
    }
    *capacity = grown;
  }
  tkrt_json_value_t* slot = &v->items[v->count];
  memset(slot, 0, sizeof(*slot));
  if (with_key) v->keys[v->count] = NULL;
  v->count++;
  return slot;
}

/* An object's key as parsed: where it ended in the text, for the error on a duplicate. */
typedef struct tkrt_json_key {
  const char* key;
  size_t length;
  size_t index; /* its member's index */
  size_t end;   /* the text position after its closing quote */
} tkrt_json_key_t;

/* By key bytes, then by index: no two keys compare equal, so the order is the same on every C
 * library, and equal keys sit together in the order they came in. */
static int tkrt_json_compare_keys(const void* a, const void* b) {
  const tkrt_json_key_t* x = a;
  const tkrt_json_key_t* y = b;
  int c = memcmp(x->key, y->key, x->length < y->length ? x->length : y->length);
  if (c) return c;
  if (x->length != y->length) return x->length < y->length ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Refuses an object with a repeated key, naming the first repeat in the text where it ends (as
 * the document is read, that is where a reader notices it). Sorting makes this O(n log n): a
 * 1 MiB object of 100k+ short keys is checked in milliseconds, where comparing each key with
 * every earlier one took seconds. */
static int tkrt_json_check_duplicates(tkrt_json_parser_t* p, tkrt_json_key_t* keys, size_t count) {
  if (count < 2) return 1;
  qsort(keys, count, sizeof(*keys), tkrt_json_compare_keys);
  const tkrt_json_key_t* first_repeat = NULL;
  for (size_t i = 1; i < count; ++i) {
    if (keys[i].length == keys[i - 1].length &&
        memcmp(keys[i].key, keys[i - 1].key, keys[i].length) == 0 &&
        (!first_repeat || keys[i].index < first_repeat->index)) {
      first_repeat = &keys[i];
    }
  }
  if (!first_repeat) return 1;
  /* The key as text: control and non-ASCII bytes as \xNN, so an error cannot carry terminal
   * escapes; at most 100 bytes of it. */
  char shown[4 * 100 + 1];
  size_t used = 0;
  for (size_t i = 0; i < first_repeat->length && i < 100; ++i) {
    unsigned char c = (unsigned char)first_repeat->key[i];
    if (c < 0x20 || c >= 0x7F) {
      used += (size_t)snprintf(shown + used, sizeof(shown) - used, "\\x%02X", c);
    } else {
      shown[used++] = (char)c;
    }
  }
  shown[used] = '\0';
  char message[sizeof(shown) + 40];
  snprintf(message, sizeof(message), "duplicate key \"%s\"", shown);
  p->pos = first_repeat->end;
  tkrt_json_fail(p, message);
  return 0;
}

static int tkrt_json_container(tkrt_json_parser_t* p, tkrt_json_value_t* v, int depth) {
  int object = p->text[p->pos] == '{';
  char close = object ? '}' : ']';
  v->type = object ? TKRT_JSON_OBJECT : TKRT_JSON_ARRAY;
  ++p->pos;
  size_t capacity = 0;
  tkrt_json_key_t* keys = NULL; /* objects: the keys so far, checked for repeats at the end */
  size_t key_capacity = 0;
  int ok = 0;
  tkrt_json_skip_space(p);
  if (p->pos < p->size && p->text[p->pos] == close) {
    ++p->pos;
    return 1;
  }
  for (;;) {
    tkrt_json_skip_space(p);
    char* key = NULL;
    if (object) {
      size_t key_length = 0;
      if (p->pos >= p->size || p->text[p->pos] != '"') {
        tkrt_json_fail(p, "expected a string key in an object");
        break;
      }
      key = tkrt_json_string(p, &key_length);
      if (!key) break;
      if (v->count == key_capacity) {
        size_t grown = key_capacity ? key_capacity * 2 : 4;
        tkrt_json_key_t* more = realloc(keys, grown * sizeof(*more));
        if (!more) {
          free(key);
          p->error = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
          break;
        }
        keys = more;
        key_capacity = grown;
      }
      keys[v->count] = (tkrt_json_key_t){key, key_length, v->count, p->pos};
      tkrt_json_skip_space(p);
      if (p->pos >= p->size || p->text[p->pos] != ':') {
        free(key);
        tkrt_json_fail(p, "expected ':' after an object key");
        break;
      }
      ++p->pos;
    }
    tkrt_json_value_t* slot = tkrt_json_push(p, v, &capacity, object);
    if (!slot) {
      free(key);
      break;
    }
    if (object) v->keys[v->count - 1] = key;
    if (!tkrt_json_value(p, slot, depth + 1)) break;
    tkrt_json_skip_space(p);
    if (p->pos < p->size && p->text[p->pos] == ',') {
      ++p->pos;
      continue;
    }
    if (p->pos < p->size && p->text[p->pos] == close) {
      ++p->pos;
      ok = !object || tkrt_json_check_duplicates(p, keys, v->count);
      break;
    }
    tkrt_json_fail(p, object ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array");
    break;
  }
  free(keys);
  return ok;
}

static int tkrt_json_value(tkrt_json_parser_t* p, tkrt_json_value_t* v, int depth) {
  if (depth > TKRT_JSON_MAX_DEPTH) {
    tkrt_json_fail(p, "nested deeper than 64 levels");
    return 0;
  }
  if (++p->values > TKRT_JSON_MAX_VALUES) {
    tkrt_json_fail(p, "more than 1048576 values");
    return 0;
  }
  tkrt_json_skip_space(p);
  if (p->pos >= p->size) {
    tkrt_json_fail(p, "unexpected end of input");
    return 0;
  }
  switch (p->text[p->pos]) {
    case '{':
    case '[': return tkrt_json_container(p, v, depth);
    case '"':
      v->type = TKRT_JSON_STRING;
      v->string = tkrt_json_string(p, &v->length);
      return v->string != NULL;
    case 't':
    case 'f':
      v->type = TKRT_JSON_BOOL;
      v->boolean = p->text[p->pos] == 't';
      if (tkrt_json_literal(p, v->boolean ? "true" : "false")) return 1;
      break;
    case 'n':
      v->type = TKRT_JSON_NULL;
      if (tkrt_json_literal(p, "null")) return 1;
      break;
    default:
      if (p->text[p->pos] == '-' || (p->text[p->pos] >= '0' && p->text[p->pos] <= '9')) {
        return tkrt_json_number(p, v);
      }
      break;
  }
  tkrt_json_fail(p, "unexpected character (not a JSON value)");
  return 0;
}

tkrt_status_t tkrt_json_parse(const char* text, size_t size, const char* what,
                              tkrt_json_value_t** out_value) {
  tkrt_json_parser_t p = {text, size, 0, what ? what : "JSON", 0, NULL};
  tkrt_json_value_t* root = calloc(1, sizeof(*root));
  if (!root) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) p.pos = 3; /* a UTF-8 byte order mark */
  if (tkrt_json_value(&p, root, 0)) {
    tkrt_json_skip_space(&p);
    if (p.pos != size) tkrt_json_fail(&p, "unexpected text after the JSON value");
  }
  if (p.error) {
    tkrt_json_free(root);
    return p.error;
  }
  *out_value = root;
  return NULL;
}

const tkrt_json_value_t* tkrt_json_get(const tkrt_json_value_t* object, const char* key) {
  if (!object || object->type != TKRT_JSON_OBJECT) return NULL;
  for (size_t i = 0; i < object->count; ++i) {
    if (strcmp(object->keys[i], key) == 0) return &object->items[i];
  }
  return NULL;
}
