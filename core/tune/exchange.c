/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: the decision exchange's keys and values. Values come from other processes (or
 * whoever can write the store behind the exchange), so the parser trusts nothing: it checks the
 * whole value before the caller sees any of it. */
#include "core/tune/exchange.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sha256.h"
#include "core/call_internal.h"

#define TKRT_EXCHANGE_MAGIC "tkrt-exchange 1\n"

void tkrt_exchange_init(tkrt_exchange_t* exchange) {
  memset(exchange, 0, sizeof(*exchange));
  exchange->struct_size = sizeof(*exchange);
}

void tkrt_exchange_key(const uint8_t digest[32], const char* arch, uint32_t sm_count,
                       int driver_version, const char* tuning_key, char out_hex[65]) {
  tkrt_sha256_t ctx;
  tkrt_sha256_init(&ctx);
  char head[160];
  int n = snprintf(head, sizeof(head), "tkrt-exchange|%d|", TKRT_EXCHANGE_FORMAT);
  tkrt_sha256_update(&ctx, head, n > 0 ? (size_t)n : 0);
  tkrt_sha256_update(&ctx, digest, 32);
  /* Lengths first, so that no two (arch, tuning key) pairs hash the same text. */
  const char* key = tuning_key ? tuning_key : "";
  n = snprintf(head, sizeof(head), "|%zu:", strlen(arch));
  tkrt_sha256_update(&ctx, head, n > 0 ? (size_t)n : 0);
  tkrt_sha256_update(&ctx, arch, strlen(arch));
  n = snprintf(head, sizeof(head), "|%u|%d|%zu:", sm_count, driver_version, strlen(key));
  tkrt_sha256_update(&ctx, head, n > 0 ? (size_t)n : 0);
  tkrt_sha256_update(&ctx, key, strlen(key));
  uint8_t hash[32];
  tkrt_sha256_final(&ctx, hash);
  tkrt_hex_encode(hash, 32, out_hex);
}

bool tkrt_exchange_key_valid(const char* key) {
  size_t length = strlen(key);
  if (length == 0 || length > TKRT_EXCHANGE_MAX_KEY || key[0] == '.') return false;
  for (const char* c = key; *c; ++c) {
    if (!isalnum((unsigned char)*c) && *c != '.' && *c != '_' && *c != '-') return false;
  }
  return true;
}

static const char* tkrt_kind_word(tkrt_exchange_value_kind_t kind) {
  return kind == TKRT_EXCHANGE_VALUE_DECISION ? "chosen" : "times";
}

size_t tkrt_exchange_value_format(char* out, size_t capacity, tkrt_exchange_value_kind_t kind,
                                  const char* key_hex, size_t config_count, size_t chosen,
                                  const float* times_ms) {
  int n = snprintf(out, capacity, TKRT_EXCHANGE_MAGIC "key %s\nconfigs %zu\n%s", key_hex,
                   config_count, tkrt_kind_word(kind));
  if (n < 0 || (size_t)n >= capacity) return 0;
  size_t used = (size_t)n;
  if (kind == TKRT_EXCHANGE_VALUE_DECISION) {
    n = snprintf(out + used, capacity - used, " %zu", chosen);
    if (n < 0 || (size_t)n >= capacity - used) return 0;
    used += (size_t)n;
  } else {
    for (size_t i = 0; i < config_count; ++i) {
      float t = times_ms[i];
      if (!(t >= 0) || isinf(t)) t = -1; /* skipped (or unmeasurable): never a winner */
      n = snprintf(out + used, capacity - used, " %.9g", (double)t);
      if (n < 0 || (size_t)n >= capacity - used) return 0;
      used += (size_t)n;
    }
  }
  if (used + 2 > capacity) return 0;
  out[used++] = '\n';
  out[used] = '\0';
  return used;
}

/* A decimal number of at most 19 digits, no sign, no leading zeros beyond "0". */
static const char* tkrt_value_number(const char* at, unsigned long long* out) {
  size_t digits = 0;
  while (isdigit((unsigned char)at[digits])) ++digits;
  if (digits == 0 || digits > 19 || (digits > 1 && at[0] == '0')) return NULL;
  errno = 0;
  char* end = NULL;
  unsigned long long value = strtoull(at, &end, 10);
  if (errno || end != at + digits) return NULL;
  *out = value;
  return end;
}

/* One time: "-1", or a plain non-negative decimal (digits, '.', an optional exponent) that is
 * finite. No "inf", "nan", hex floats or signs other than the exponent's. */
static const char* tkrt_value_time(const char* at, float* out) {
  if (strncmp(at, "-1", 2) == 0 && (at[2] == ' ' || at[2] == '\n')) {
    *out = -1;
    return at + 2;
  }
  size_t length = 0;
  while (isdigit((unsigned char)at[length]) || at[length] == '.') ++length;
  if (length == 0 || !isdigit((unsigned char)at[0])) return NULL;
  if (at[length] == 'e' || at[length] == 'E') {
    size_t exp = length + 1;
    if (at[exp] == '+' || at[exp] == '-') ++exp;
    size_t digits = 0;
    while (isdigit((unsigned char)at[exp + digits])) ++digits;
    if (digits == 0 || digits > 3) return NULL;
    length = exp + digits;
  }
  if (length > 40) return NULL;
  char buffer[48];
  memcpy(buffer, at, length);
  buffer[length] = '\0';
  char* end = NULL;
  errno = 0;
  float value = strtof(buffer, &end);
  if (end != buffer + length || !isfinite(value) || value < 0) return NULL;
  *out = value;
  return at + length;
}

bool tkrt_exchange_value_parse(const void* data, size_t size, tkrt_exchange_value_kind_t kind,
                               const char* key_hex, size_t config_count, size_t* out_chosen,
                               float* out_times_ms, char* problem, size_t problem_capacity) {
  const char* why = NULL;
  char* text = NULL;
  float* times = NULL;
  unsigned long long configs = 0, chosen = 0;
  if (size > TKRT_EXCHANGE_MAX_VALUE) {
    why = "larger than TKRT_EXCHANGE_MAX_VALUE";
  } else if (memchr(data, '\0', size)) {
    why = "a NUL byte in the value";
  } else if (!(text = malloc(size + 1))) {
    why = "out of host memory";
  }
  const char* at = text;
  if (!why) {
    memcpy(text, data, size);
    text[size] = '\0';
    size_t magic = sizeof(TKRT_EXCHANGE_MAGIC) - 1;
    if (strncmp(at, TKRT_EXCHANGE_MAGIC, magic) != 0) {
      why = strncmp(at, "tkrt-exchange ", 14) == 0 ? "another format version" : "missing header";
    } else {
      at += magic;
    }
  }
  if (!why) {
    if (strncmp(at, "key ", 4) != 0 || strlen(at + 4) < 65 || strncmp(at + 4, key_hex, 64) != 0 ||
        at[68] != '\n') {
      why = "published under another key";
    } else {
      at += 69;
    }
  }
  if (!why) {
    if (strncmp(at, "configs ", 8) != 0 || !(at = tkrt_value_number(at + 8, &configs)) ||
        *at != '\n') {
      why = "malformed config count";
    } else if (configs != config_count) {
      why = "another config count";
    } else {
      ++at;
    }
  }
  if (!why) {
    const char* word = tkrt_kind_word(kind);
    size_t length = strlen(word);
    if (strncmp(at, word, length) != 0 || at[length] != ' ') {
      why = "another kind of value";
    } else {
      at += length;
    }
  }
  if (!why && kind == TKRT_EXCHANGE_VALUE_DECISION) {
    if (!(at = tkrt_value_number(at + 1, &chosen))) {
      why = "malformed choice";
    } else if (chosen >= configs) {
      why = "choice out of range";
    }
  } else if (!why) {
    if (!(times = malloc((config_count ? config_count : 1) * sizeof(float)))) {
      why = "out of host memory";
    }
    for (size_t i = 0; !why && i < config_count; ++i) {
      if (*at != ' ' || !(at = tkrt_value_time(at + 1, &times[i]))) why = "malformed timings";
    }
  }
  if (!why && strcmp(at, "\n") != 0) why = "trailing bytes";
  if (!why) {
    if (kind == TKRT_EXCHANGE_VALUE_DECISION) {
      *out_chosen = (size_t)chosen;
    } else if (config_count) {
      memcpy(out_times_ms, times, config_count * sizeof(float));
    }
  } else {
    snprintf(problem, problem_capacity, "%s", why);
  }
  free(times);
  free(text);
  return why == NULL;
}
