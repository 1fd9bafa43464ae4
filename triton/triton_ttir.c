/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt triton: reading a Triton kernel's parameter list from the `tt.func public @name(...)` line of
 * its TTIR (or .source): names, types, tt.divisibility. Bounded scanning of untrusted text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "triton/triton_internal.h"

#define TKRT_TTIR_TEXT_MAX 256 /* longest name or type kept */

typedef struct tkrt_ttir_cursor {
  const char* text;
  size_t size;
  size_t pos;
  const char* what;
} tkrt_ttir_cursor_t;

static tkrt_status_t tkrt_ttir_error_code(const tkrt_ttir_cursor_t* c, tkrt_status_code_t code,
                                          const char* kernel, size_t param, const char* message) {
  size_t line = 1;
  for (size_t i = 0; i < c->pos && i < c->size; ++i) line += c->text[i] == '\n';
  return TKRT_STATUS_MAKE(code,
                          "%s:%zu: signature of '%s', parameter %zu: %s", c->what, line, kernel,
                          param, message);
}

static tkrt_status_t tkrt_ttir_error(const tkrt_ttir_cursor_t* c, const char* kernel,
                                     size_t param, const char* message) {
  return tkrt_ttir_error_code(c, TKRT_STATUS_INVALID_ARGUMENT, kernel, param, message);
}

static void tkrt_ttir_space(tkrt_ttir_cursor_t* c) {
  while (c->pos < c->size && (c->text[c->pos] == ' ' || c->text[c->pos] == '\t' ||
                              c->text[c->pos] == '\n' || c->text[c->pos] == '\r')) {
    ++c->pos;
  }
}

static int tkrt_ttir_name_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '_' || ch == '$' || ch == '.' || ch == '-';
}

/* Skips a balanced group that starts at c->pos with `open`, honouring quoted strings. */
static int tkrt_ttir_skip_group(tkrt_ttir_cursor_t* c, char open, char close) {
  int depth = 0;
  int quoted = 0;
  for (; c->pos < c->size; ++c->pos) {
    char ch = c->text[c->pos];
    if (quoted) {
      if (ch == '\\') ++c->pos;
      else if (ch == '"') quoted = 0;
      continue;
    }
    if (ch == '"') quoted = 1;
    else if (ch == open) ++depth;
    else if (ch == close && --depth == 0) {
      ++c->pos;
      return 1;
    }
    if (depth > 1000) return 0;
  }
  return 0;
}

typedef struct tkrt_ttir_type {
  const char* mlir;
  const char* triton;
  tkrt_param_kind_t kind;
  uint32_t bytes;
} tkrt_ttir_type_t;

/* MLIR element types Triton uses, with Triton's names. Scalars of 8 and 16 bits travel in a
 * 32-bit slot (the driver copies only the declared bytes, little-endian); fp16/bf16 scalars as
 * their raw bits. Pointers to fp8 types are ordinary pointers. */
static const tkrt_ttir_type_t kTtirTypes[] = {
    {"i1", "i1", TKRT_PARAM_BOOL, 1},       {"i8", "i8", TKRT_PARAM_I32, 1},
    {"i16", "i16", TKRT_PARAM_I32, 2},      {"i32", "i32", TKRT_PARAM_I32, 4},
    {"i64", "i64", TKRT_PARAM_I64, 8},      {"f16", "fp16", TKRT_PARAM_U32, 2},
    {"bf16", "bf16", TKRT_PARAM_U32, 2},    {"f32", "fp32", TKRT_PARAM_F32, 4},
    {"f64", "fp64", TKRT_PARAM_F64, 8},     {"f8E5M2", "fp8e5", 0, 1},
    {"f8E4M3FN", "fp8e4nv", 0, 1},          {"f8E4M3FNUZ", "fp8e4b8", 0, 1},
    {"f8E5M2FNUZ", "fp8e5b16", 0, 1},       {"f8E4M3B11FNUZ", "fp8e4b15", 0, 1},
};

static const tkrt_ttir_type_t* tkrt_ttir_find_type(const char* mlir, size_t length) {
  for (size_t i = 0; i < sizeof(kTtirTypes) / sizeof(kTtirTypes[0]); ++i) {
    if (strlen(kTtirTypes[i].mlir) == length && memcmp(kTtirTypes[i].mlir, mlir, length) == 0) {
      return &kTtirTypes[i];
    }
  }
  return NULL;
}

static char* tkrt_ttir_strndup(const char* text, size_t length) {
  char* copy = malloc(length + 1);
  if (copy) {
    memcpy(copy, text, length);
    copy[length] = '\0';
  }
  return copy;
}

void tkrt_triton_params_free(tkrt_triton_param_t* params, size_t count) {
  if (!params) return;
  for (size_t i = 0; i < count; ++i) {
    free((void*)params[i].name);
    free((void*)params[i].type);
  }
  free(params);
}

/* Fills the type of `param` from the MLIR type text (e.g. "!tt.ptr<f32>", "!tt.ptr<f16, 1>"). */
static tkrt_status_t tkrt_ttir_set_type(const tkrt_ttir_cursor_t* c, const char* kernel,
                                        size_t index, const char* text, size_t length,
                                        tkrt_triton_param_t* param) {
  char message[TKRT_TTIR_TEXT_MAX + 200];
  static const char kPtr[] = "!tt.ptr<";
  char spelled[TKRT_TTIR_TEXT_MAX + 2];
  if (length > sizeof(kPtr) - 1 && memcmp(text, kPtr, sizeof(kPtr) - 1) == 0 &&
      text[length - 1] == '>') {
    const char* element = text + sizeof(kPtr) - 1;
    size_t element_length = strcspn(element, ",>");
    if (element + element_length > text + length - 1) element_length = 0;
    const tkrt_ttir_type_t* type = tkrt_ttir_find_type(element, element_length);
    param->is_pointer = true;
    param->kind = TKRT_PARAM_ARRAY;
    param->element_bytes = type ? type->bytes : 0;
    if (type) {
      snprintf(spelled, sizeof(spelled), "*%s", type->triton);
    } else {
      snprintf(spelled, sizeof(spelled), "*%.*s", (int)element_length, element);
    }
    param->type = tkrt_ttir_strndup(spelled, strlen(spelled));
    return param->type ? NULL : TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  static const char kDesc[] = "!tt.tensordesc<tensor<";
  static const char kDescBare[] = "!tt.tensordesc<";
  if (length >= 14 && memcmp(text, "!tt.tensordesc", 14) == 0) {
    /* Triton 3.4 to 3.7: !tt.tensordesc<tensor<64x128xf16>>; 3.8 and newer drop the inner
     * tensor<>: !tt.tensordesc<64x128xf16>. An encoding after a ',' is allowed and ignored. */
    size_t i = sizeof(kDesc) - 1;
    uint32_t rank = 0;
    uint32_t block[TKRT_TMA_MAX_RANK] = {0};
    int ok = length > i && memcmp(text, kDesc, i) == 0;
    if (!ok && length > sizeof(kDescBare) - 1 && memcmp(text, kDescBare, sizeof(kDescBare) - 1) == 0 &&
        text[sizeof(kDescBare) - 1] >= '0' && text[sizeof(kDescBare) - 1] <= '9') {
      i = sizeof(kDescBare) - 1;
      ok = 1;
    }
    while (ok && i < length && text[i] >= '0' && text[i] <= '9') {
      uint64_t value = 0;
      size_t digits = 0;
      while (i < length && text[i] >= '0' && text[i] <= '9' && digits < 10) {
        value = value * 10 + (uint64_t)(text[i++] - '0');
        ++digits;
      }
      if (i >= length || text[i] != 'x' || value == 0 || value > 65536 ||
          rank == TKRT_TMA_MAX_RANK) {
        ok = 0;
        break;
      }
      block[rank++] = (uint32_t)value;
      ++i;
    }
    size_t element_length = 0;
    while (ok && i + element_length < length && text[i + element_length] != '>' &&
           text[i + element_length] != ',') {
      ++element_length;
    }
    const tkrt_ttir_type_t* type = ok ? tkrt_ttir_find_type(text + i, element_length) : NULL;
    if (!ok || rank == 0 || !type) {
      snprintf(message, sizeof(message),
               "'%s' has the tensor descriptor type '%.*s', which tkrt cannot read (expected "
               "!tt.tensordesc<tensor<DIMSxTYPE>> or !tt.tensordesc<DIMSxTYPE> with 1..%d "
               "dimensions)",
               param->name, (int)(length > TKRT_TTIR_TEXT_MAX ? TKRT_TTIR_TEXT_MAX : length),
               text, TKRT_TMA_MAX_RANK);
      return tkrt_ttir_error(c, kernel, index, message);
    }
    size_t used = (size_t)snprintf(spelled, sizeof(spelled), "tensordesc<%s[", type->triton);
    for (uint32_t d = 0; d < rank && used < sizeof(spelled); ++d) {
      int n = snprintf(spelled + used, sizeof(spelled) - used, "%s%u", d ? ", " : "", block[d]);
      if (n > 0) used += (size_t)n;
    }
    if (used < sizeof(spelled)) snprintf(spelled + used, sizeof(spelled) - used, "]>");
    param->is_pointer = false;
    param->kind = TKRT_PARAM_TMA;
    param->element_bytes = type->bytes;
    param->desc_rank = rank;
    memcpy(param->desc_block, block, sizeof(block));
    param->type = tkrt_ttir_strndup(spelled, strlen(spelled));
    return param->type ? NULL : TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  const tkrt_ttir_type_t* type = tkrt_ttir_find_type(text, length);
  if (!type || type->kind == 0) {
    snprintf(message, sizeof(message), "'%s' has type '%.*s', which tkrt cannot pass", param->name,
             (int)(length > TKRT_TTIR_TEXT_MAX ? TKRT_TTIR_TEXT_MAX : length), text);
    return tkrt_ttir_error(c, kernel, index, message);
  }
  param->is_pointer = false;
  param->kind = type->kind;
  param->element_bytes = type->bytes;
  param->type = tkrt_ttir_strndup(type->triton, strlen(type->triton));
  return param->type ? NULL : TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of memory");
}

/* Reads `tt.divisibility = N` out of an attribute dictionary's text. */
static tkrt_status_t tkrt_ttir_attributes(const tkrt_ttir_cursor_t* c, const char* kernel,
                                          size_t index, const char* text, size_t length,
                                          tkrt_triton_param_t* param) {
  static const char kDiv[] = "tt.divisibility";
  for (size_t i = 0; i + sizeof(kDiv) - 1 <= length; ++i) {
    if (memcmp(text + i, kDiv, sizeof(kDiv) - 1) != 0) continue;
    size_t j = i + sizeof(kDiv) - 1;
    while (j < length && text[j] == ' ') ++j;
    if (j >= length || text[j] != '=') continue;
    ++j;
    while (j < length && text[j] == ' ') ++j;
    unsigned long value = 0;
    size_t digits = 0;
    while (j < length && text[j] >= '0' && text[j] <= '9' && digits < 10) {
      value = value * 10 + (unsigned long)(text[j++] - '0');
      ++digits;
    }
    if (digits == 0 || digits == 10 || value == 0 || value > (1ul << 30)) {
      return tkrt_ttir_error(c, kernel, index, "tt.divisibility is not a positive integer");
    }
    param->divisibility = (uint32_t)value;
  }
  return NULL;
}

typedef struct tkrt_ttir_loc {
  size_t start, length; /* the loc("name") of a parameter in the text; length 0: none */
} tkrt_ttir_loc_t;

/* Whether `hidden`, the descriptor's hidden parameter h (of 2 x rank), carries the descriptor's
 * loc: the same name (Triton 3.4 to 3.7), or the name with ".shape.<d>" / ".stride.<d>" (3.8 and
 * newer). */
static int tkrt_ttir_desc_loc(const tkrt_ttir_cursor_t* c, const tkrt_ttir_loc_t* desc,
                              const tkrt_ttir_loc_t* hidden, size_t h, uint32_t rank) {
  if (desc->length == 0) return hidden->length == 0;
  if (hidden->length < desc->length ||
      memcmp(c->text + hidden->start, c->text + desc->start, desc->length) != 0) {
    return 0;
  }
  if (hidden->length == desc->length) return 1;
  char suffix[48];
  snprintf(suffix, sizeof(suffix), ".%s.%zu", h < rank ? "shape" : "stride", h % rank);
  return hidden->length - desc->length == strlen(suffix) &&
         memcmp(c->text + hidden->start + desc->length, suffix, strlen(suffix)) == 0;
}

/* A tensor descriptor parameter of rank r is followed by r i32 parameters (its shape) and r i64
 * parameters (its strides) that Triton adds, with the descriptor's loc name (3.8 and newer: that
 * name with ".shape.<d>" / ".stride.<d>"). They are checked and
 * dropped from the list (the descriptor supplies them at launch). */
static tkrt_status_t tkrt_ttir_fold_descriptors(const tkrt_ttir_cursor_t* c, const char* kernel,
                                                tkrt_triton_param_t* params,
                                                const tkrt_ttir_loc_t* locs, size_t* count) {
  for (size_t i = 0; i < *count;) {
    tkrt_triton_param_t* p = &params[i];
    size_t hidden = p->kind == TKRT_PARAM_TMA ? 2 * (size_t)p->desc_rank : 0;
    for (size_t h = 0; h < hidden; ++h) {
      size_t j = i + 1 + h;
      const char* want = h < p->desc_rank ? "i32" : "i64";
      int same_loc = j < *count && tkrt_ttir_desc_loc(c, &locs[i], &locs[j], h, p->desc_rank);
      if (j >= *count || strcmp(params[j].type, want) != 0 || !same_loc) {
        char message[3 * TKRT_TTIR_TEXT_MAX + 200];
        snprintf(message, sizeof(message),
                 "tensor descriptor '%s' (%s) must be followed by %u i32 shape and %u i64 stride "
                 "parameters of the same loc, as Triton writes them; parameter %zu is %s%s%s%s",
                 p->name, p->type, p->desc_rank, p->desc_rank, j,
                 j < *count ? params[j].name : "missing", j < *count ? ": " : "",
                 j < *count ? params[j].type : "",
                 j < *count && !same_loc ? " of another loc" : "");
        return tkrt_ttir_error(c, kernel, i, message);
      }
    }
    i += 1 + hidden;
  }
  /* All checked: drop the hidden ones. */
  size_t out = 0;
  for (size_t i = 0; i < *count;) {
    size_t hidden = params[i].kind == TKRT_PARAM_TMA ? 2 * (size_t)params[i].desc_rank : 0;
    for (size_t h = 0; h < hidden; ++h) {
      free((void*)params[i + 1 + h].name);
      free((void*)params[i + 1 + h].type);
    }
    if (out != i) params[out] = params[i];
    ++out;
    i += 1 + hidden;
  }
  *count = out;
  return NULL;
}

/* Finds `tt.func <visibility> @name(` and leaves the cursor after the '('. */
static int tkrt_ttir_find_func(tkrt_ttir_cursor_t* c, const char* kernel_name,
                               const char** out_name, size_t* out_length) {
  static const char kFunc[] = "tt.func";
  const char* text = c->text;
  for (size_t i = 0; i + sizeof(kFunc) <= c->size; ++i) {
    if (memcmp(text + i, kFunc, sizeof(kFunc) - 1) != 0) continue;
    if (i > 0 && tkrt_ttir_name_char(text[i - 1])) continue;
    c->pos = i + sizeof(kFunc) - 1;
    tkrt_ttir_space(c);
    static const char kPublic[] = "public";
    if (c->size - c->pos < sizeof(kPublic) - 1 ||
        memcmp(text + c->pos, kPublic, sizeof(kPublic) - 1) != 0) {
      continue; /* private helpers (tl.zeros etc.) are not the kernel */
    }
    c->pos += sizeof(kPublic) - 1;
    tkrt_ttir_space(c);
    if (c->pos >= c->size || text[c->pos] != '@') continue;
    ++c->pos;
    const char* name = text + c->pos;
    size_t length = 0;
    if (c->pos < c->size && text[c->pos] == '"') {
      ++name;
      ++c->pos;
      while (c->pos < c->size && text[c->pos] != '"' && text[c->pos] != '\n') ++c->pos;
      length = (size_t)(text + c->pos - name);
      ++c->pos;
    } else {
      while (c->pos < c->size && tkrt_ttir_name_char(text[c->pos])) ++c->pos;
      length = (size_t)(text + c->pos - name);
    }
    if (c->pos >= c->size || text[c->pos] != '(') continue;
    if (kernel_name && (strlen(kernel_name) != length || memcmp(kernel_name, name, length) != 0)) {
      continue;
    }
    ++c->pos;
    *out_name = name;
    *out_length = length;
    return 1;
  }
  return 0;
}

tkrt_status_t tkrt_triton_parse_signature(const char* text, size_t size, const char* kernel_name,
                                          const char* what, tkrt_triton_param_t** out_params,
                                          size_t* out_count) {
  tkrt_ttir_cursor_t c = {text, size, 0, what};
  const char* found_name = NULL;
  size_t found_length = 0;
  if (!tkrt_ttir_find_func(&c, kernel_name, &found_name, &found_length)) {
    if (kernel_name) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND, "%s has no 'tt.func public @%s(' line", what,
                              kernel_name);
    }
    return TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND, "%s has no 'tt.func public @...(' line", what);
  }
  char kernel[TKRT_TTIR_TEXT_MAX];
  snprintf(kernel, sizeof(kernel), "%.*s", (int)(found_length < sizeof(kernel) - 1
                                                     ? found_length : sizeof(kernel) - 1),
           found_name);
  tkrt_triton_param_t* params = NULL;
  tkrt_ttir_loc_t* locs = NULL;
  size_t count = 0, capacity = 0;
  tkrt_status_t status = NULL;
  for (;;) {
    tkrt_ttir_space(&c);
    if (c.pos >= c.size) {
      status = tkrt_ttir_error(&c, kernel, count, "the parameter list is not closed");
      break;
    }
    if (text[c.pos] == ')' && count == 0) {
      ++c.pos;
      break;
    }
    if (count == TKRT_TRITON_MAX_PARAMS) {
      status = tkrt_ttir_error(&c, kernel, count, "more than 1024 parameters");
      break;
    }
    if (count == capacity) {
      size_t grown = capacity ? capacity * 2 : 8;
      tkrt_triton_param_t* more = realloc(params, grown * sizeof(*more));
      if (more) params = more;
      tkrt_ttir_loc_t* more_locs = more ? realloc(locs, grown * sizeof(*more_locs)) : NULL;
      if (more_locs) locs = more_locs;
      if (!more || !more_locs) {
        status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
        break;
      }
      capacity = grown;
    }
    locs[count].start = 0;
    locs[count].length = 0;
    tkrt_triton_param_t* p = &params[count];
    memset(p, 0, sizeof(*p));
    ++count;
    /* %name */
    if (text[c.pos] != '%') {
      status = tkrt_ttir_error(&c, kernel, count - 1, "expected '%name'");
      break;
    }
    size_t start = ++c.pos;
    while (c.pos < c.size && tkrt_ttir_name_char(text[c.pos])) ++c.pos;
    if (c.pos == start || c.pos - start > TKRT_TTIR_TEXT_MAX) {
      status = tkrt_ttir_error(&c, kernel, count - 1, "bad parameter name");
      break;
    }
    p->name = tkrt_ttir_strndup(text + start, c.pos - start);
    if (!p->name) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
      break;
    }
    tkrt_ttir_space(&c);
    if (c.pos >= c.size || text[c.pos] != ':') {
      status = tkrt_ttir_error(&c, kernel, count - 1, "expected ':' after the parameter name");
      break;
    }
    ++c.pos;
    tkrt_ttir_space(&c);
    /* The type ends at depth 0 before whitespace, ',', ')' or '{'. */
    start = c.pos;
    int angle = 0;
    while (c.pos < c.size) {
      char ch = text[c.pos];
      if (ch == '<') ++angle;
      else if (ch == '>') --angle;
      else if (angle <= 0 && (ch == ' ' || ch == ',' || ch == ')' || ch == '{' || ch == '\n')) break;
      if (angle < 0 || angle > 64 || c.pos - start > TKRT_TTIR_TEXT_MAX) break;
      ++c.pos;
    }
    if (c.pos == start || angle != 0 || c.pos - start > TKRT_TTIR_TEXT_MAX) {
      status = tkrt_ttir_error(&c, kernel, count - 1, "bad parameter type");
      break;
    }
    status = tkrt_ttir_set_type(&c, kernel, count - 1, text + start, c.pos - start, p);
    if (status) break;
    tkrt_ttir_space(&c);
    if (c.pos < c.size && text[c.pos] == '{') {
      start = c.pos;
      if (!tkrt_ttir_skip_group(&c, '{', '}')) {
        status = tkrt_ttir_error(&c, kernel, count - 1, "the attribute dictionary is not closed");
        break;
      }
      status = tkrt_ttir_attributes(&c, kernel, count - 1, text + start, c.pos - start, p);
      if (status) break;
      tkrt_ttir_space(&c);
    }
    if (c.size - c.pos >= 4 && memcmp(text + c.pos, "loc(", 4) == 0) {
      /* loc("a_desc"(#loc)): the source name, which ties a descriptor's hidden parameters to it. */
      if (c.size - c.pos > 5 && text[c.pos + 4] == '"') {
        size_t q = c.pos + 5;
        while (q < c.size && q - c.pos < TKRT_TTIR_TEXT_MAX && text[q] != '"' && text[q] != '\\' &&
               text[q] != '\n') {
          ++q;
        }
        if (q < c.size && text[q] == '"') {
          locs[count - 1].start = c.pos + 5;
          locs[count - 1].length = q - (c.pos + 5);
        }
      }
      c.pos += 3;
      if (!tkrt_ttir_skip_group(&c, '(', ')')) {
        status = tkrt_ttir_error(&c, kernel, count - 1, "the loc(...) is not closed");
        break;
      }
      tkrt_ttir_space(&c);
    }
    if (c.pos < c.size && text[c.pos] == ',') {
      ++c.pos;
      continue;
    }
    if (c.pos < c.size && text[c.pos] == ')') {
      ++c.pos;
      break;
    }
    status = tkrt_ttir_error(&c, kernel, count - 1, "expected ',' or ')' after the parameter");
    break;
  }
  if (!status) status = tkrt_ttir_fold_descriptors(&c, kernel, params, locs, &count);
  free(locs);
  if (status) {
    tkrt_triton_params_free(params, count);
    return status;
  }
  /* Names key scalar arguments and grid expressions: they must be unique. */
  for (size_t i = 0; i < count; ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (strcmp(params[i].name, params[j].name) == 0) {
        status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                  "%s: signature of '%s': parameters %zu and %zu are both named "
                                  "'%s'",
                                  what, kernel, j, i, params[i].name);
        tkrt_triton_params_free(params, count);
        return status;
      }
    }
  }
  *out_params = params;
  *out_count = count;
  return NULL;
}
