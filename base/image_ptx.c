/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt base: the PTX reader of the image inspector: the .version and .target directives and the
 * .entry names, from a tokenizer that skips comments and strings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/image_internal.h"


typedef struct tkrt_ptx_token {
  const char* text;
  size_t length;
  size_t offset;
} tkrt_ptx_token_t;

static bool tkrt_ptx_word_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.' || c == '$' || c == '%';
}

/* Next token after whitespace, comments and string literals; length 0 at the end. Returns an
 * error for an unterminated comment or string. */
static tkrt_status_t tkrt_ptx_next(const char* text, size_t size, size_t* cursor,
                                   tkrt_ptx_token_t* out) {
  size_t i = *cursor;
  for (;;) {
    while (i < size && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' ||
                        text[i] == '\r' || text[i] == '\f' || text[i] == '\v')) {
      ++i;
    }
    if (i + 1 < size && text[i] == '/' && text[i + 1] == '/') {
      while (i < size && text[i] != '\n') ++i;
      continue;
    }
    if (i + 1 < size && text[i] == '/' && text[i + 1] == '*') {
      size_t start = i;
      i += 2;
      while (i + 1 < size && !(text[i] == '*' && text[i + 1] == '/')) ++i;
      if (i + 1 >= size) {
        return TKRT_IMAGE_INVALID("PTX: unterminated /* comment starting at offset %zu", start);
      }
      i += 2;
      continue;
    }
    if (i < size && text[i] == '"') {
      size_t start = i++;
      while (i < size && text[i] != '"' && text[i] != '\n') i += text[i] == '\\' ? 2 : 1;
      if (i >= size || text[i] != '"') {
        return TKRT_IMAGE_INVALID("PTX: unterminated string starting at offset %zu", start);
      }
      ++i;
      continue;
    }
    break;
  }
  out->offset = i;
  out->text = text + i;
  if (i >= size) {
    out->length = 0;
  } else if (tkrt_ptx_word_char((unsigned char)text[i])) {
    size_t start = i;
    while (i < size && tkrt_ptx_word_char((unsigned char)text[i])) ++i;
    out->length = i - start;
  } else {
    out->length = 1;
    ++i;
  }
  *cursor = i;
  return NULL;
}

static bool tkrt_ptx_is(const tkrt_ptx_token_t* token, const char* word) {
  size_t n = strlen(word);
  return token->length == n && memcmp(token->text, word, n) == 0;
}

/* Parses "<digits>" from text[*at..end) into *out (at most 9 digits); false when none. */
static bool tkrt_ptx_number(const char* text, size_t end, size_t* at, uint32_t* out) {
  uint32_t value = 0;
  size_t i = *at, digits = 0;
  while (i < end && text[i] >= '0' && text[i] <= '9') {
    if (++digits > 9) return false;
    value = value * 10 + (uint32_t)(text[i] - '0');
    ++i;
  }
  if (!digits) return false;
  *at = i;
  *out = value;
  return true;
}

tkrt_status_t tkrt_image_ptx_walk(const char* text, size_t size, tkrt_image_info_t* info,
                                   tkrt_image_sink_t* sink) {
  /* PTX is text; a NUL ends it (C strings handed over with their terminator are fine). */
  const char* nul = memchr(text, '\0', size);
  if (nul) size = (size_t)(nul - text);
  bool have_version = false, have_target = false;
  size_t cursor = 0;
  tkrt_ptx_token_t token;
  for (;;) {
    TKRT_RETURN_IF_ERROR(tkrt_ptx_next(text, size, &cursor, &token));
    if (token.length == 0) break;
    if (tkrt_ptx_is(&token, ".version")) {
      tkrt_ptx_token_t value;
      TKRT_RETURN_IF_ERROR(tkrt_ptx_next(text, size, &cursor, &value));
      size_t at = value.offset, end = value.offset + value.length;
      uint32_t major = 0, minor = 0;
      bool ok = tkrt_ptx_number(text, end, &at, &major) && at < end && text[at] == '.';
      if (ok) {
        ++at;
        ok = tkrt_ptx_number(text, end, &at, &minor) && at == end;
      }
      if (!ok) {
        return TKRT_IMAGE_INVALID("PTX: malformed .version '%.*s' at offset %zu",
                                  (int)(value.length > 32 ? 32 : value.length), value.text,
                                  value.offset);
      }
      if (info && !have_version) {
        info->ptx_version_major = major;
        info->ptx_version_minor = minor;
      }
      have_version = true;
    } else if (tkrt_ptx_is(&token, ".target")) {
      tkrt_ptx_token_t value;
      TKRT_RETURN_IF_ERROR(tkrt_ptx_next(text, size, &cursor, &value));
      if (value.length == 0 || value.text[0] == '.' ||
          !tkrt_ptx_word_char((unsigned char)value.text[0]) ||
          value.length >= TKRT_IMAGE_ARCH_MAX) {
        return TKRT_IMAGE_INVALID("PTX: malformed .target '%.*s' at offset %zu",
                                  (int)(value.length > 32 ? 32 : value.length), value.text,
                                  value.offset);
      }
      if (info && !have_target) {
        tkrt_image_copy(info->arch, sizeof(info->arch), value.text, value.length);
        snprintf(info->target, sizeof(info->target), "%s", info->arch);
        size_t at = value.offset + 3;
        uint32_t sm = 0;
        if (tkrt_image_has_prefix(value.text, value.length, "sm_") &&
            tkrt_ptx_number(text, value.offset + value.length, &at, &sm)) {
          info->sm = sm;
        }
      }
      have_target = true;
    } else if (tkrt_ptx_is(&token, ".entry")) {
      tkrt_ptx_token_t name;
      TKRT_RETURN_IF_ERROR(tkrt_ptx_next(text, size, &cursor, &name));
      if (name.length == 0 || !tkrt_ptx_word_char((unsigned char)name.text[0])) {
        return TKRT_IMAGE_INVALID("PTX: .entry at offset %zu is not followed by a kernel name",
                                  token.offset);
      }
      tkrt_image_emit(sink, name.text, name.length);
      if (sink->stopped) return NULL;
    }
  }
  if (!have_version) return TKRT_IMAGE_INVALID("PTX: no .version directive");
  if (!have_target) return TKRT_IMAGE_INVALID("PTX: no .target directive");
  return NULL;
}

