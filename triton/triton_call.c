/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt triton: tkrt calls from loaded Triton kernels: scalar arguments by name, grid expressions
 * per variant, in-place buffers as alias records, and launching with one buffer per pointer. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "triton/triton_internal.h"
#include "base/versioned.h"

#define TKRT_OOM() TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory")
#define TKRT_GRID_EXPR_MAX 1024
#define TKRT_GRID_DEPTH_MAX 32
#define TKRT_GRID_NAMES_MAX 256
#define TKRT_STACK_BUFFERS 64

/* ---------------------------------------------------------------- grid expressions */

/* A grid expression is compiled into a small stack program: names bound to constants (a
 * variant's constexprs, num_warps, num_stages, scalars given at call creation) are folded while
 * parsing, with the same checks (overflow, division by zero) at the same offsets as evaluating
 * would make; names bound to variables (a bound launch's scalars) become loads, evaluated per
 * launch with the same checks. tkrt_triton_grid_eval is compile-and-run with constants only. */

typedef struct tkrt_grid_name {
  const char* name;
  size_t length;
  int64_t value;
  int is_var;   /* a variable: `index` into the values given at each run */
  size_t index;
} tkrt_grid_name_t;

/* The index of the name `name` (`length` bytes) among names[from..count), or count. */
static size_t tkrt_grid_name_find(const tkrt_grid_name_t* names, size_t from, size_t count,
                                  const char* name, size_t length) {
  for (size_t i = from; i < count; ++i) {
    if (names[i].length == length && memcmp(names[i].name, name, length) == 0) return i;
  }
  return count;
}

enum {
  TKRT_GRID_OP_PUSH = 1, /* value */
  TKRT_GRID_OP_VAR,      /* values[index] */
  TKRT_GRID_OP_ADD,
  TKRT_GRID_OP_SUB,
  TKRT_GRID_OP_MUL,
  TKRT_GRID_OP_DIV, /* Python's // */
  TKRT_GRID_OP_MOD, /* Python's % */
  TKRT_GRID_OP_CDIV,
  TKRT_GRID_OP_MIN,
  TKRT_GRID_OP_MAX,
  TKRT_GRID_OP_DIM, /* pops the value of dimension `value` */
};

typedef struct tkrt_grid_op {
  uint8_t code;
  uint32_t pos;                  /* offset in the expression, for errors */
  uint32_t rhs_start, rhs_length; /* the right operand's text (names the divisor) */
  int64_t value;                 /* PUSH: the value; VAR: the index; DIM: the dimension */
} tkrt_grid_op_t;

#define TKRT_GRID_STACK_MAX 128

struct tkrt_triton_grid_program {
  char* expression;
  tkrt_grid_op_t* ops;
  size_t op_count;
  size_t stack; /* the deepest the stack gets */
  size_t value_count; /* values a run needs: 1 + the largest variable index, or 0 */
};

typedef struct tkrt_grid_operand {
  int is_const;
  int64_t value;
} tkrt_grid_operand_t;

typedef struct tkrt_grid_parser {
  const char* text;
  size_t pos;
  const tkrt_grid_name_t* names;
  size_t name_count;
  tkrt_status_t error;
  tkrt_grid_op_t* ops; /* capacity: strlen(text) + 8, enough for every token */
  size_t op_count;
  size_t capacity;
} tkrt_grid_parser_t;

static void tkrt_grid_fail(tkrt_grid_parser_t* p, const char* message, const char* detail) {
  if (p->error) return;
  p->error = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "grid expression \"%s\", at offset %zu: %s%s", p->text, p->pos,
                              message, detail ? detail : "");
}

static void tkrt_grid_space(tkrt_grid_parser_t* p) {
  while (p->text[p->pos] == ' ' || p->text[p->pos] == '\t') ++p->pos;
}

static int tkrt_grid_is_name_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static int tkrt_grid_is_name_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

static const char* tkrt_grid_op_name(uint8_t code) {
  switch (code) {
    case TKRT_GRID_OP_ADD: return "'+'";
    case TKRT_GRID_OP_SUB: return "'-'";
    case TKRT_GRID_OP_MUL: return "'*'";
    case TKRT_GRID_OP_DIV: return "'/'";
    case TKRT_GRID_OP_MOD: return "'%'";
    case TKRT_GRID_OP_CDIV: return "cdiv";
    default: return "?";
  }
}

/* One operation on two values, as Python computes it on integers, refusing overflow. On error,
 * *out_error says which (1 overflow, 2 division by zero). */
static int64_t tkrt_grid_apply(uint8_t code, int64_t a, int64_t b, int* out_error) {
  int64_t r = 0;
  switch (code) {
    case TKRT_GRID_OP_ADD:
      if (__builtin_add_overflow(a, b, &r)) *out_error = 1;
      return r;
    case TKRT_GRID_OP_SUB:
      if (__builtin_sub_overflow(a, b, &r)) *out_error = 1;
      return r;
    case TKRT_GRID_OP_MUL:
      if (__builtin_mul_overflow(a, b, &r)) *out_error = 1;
      return r;
    case TKRT_GRID_OP_MIN: return a < b ? a : b;
    case TKRT_GRID_OP_MAX: return a > b ? a : b;
    case TKRT_GRID_OP_CDIV:
      /* cdiv(a, b) = (a + b - 1) // b, as triton.cdiv. */
      if (__builtin_add_overflow(a, b, &r) || __builtin_sub_overflow(r, 1, &r)) {
        *out_error = 1;
        return 0;
      }
      a = r;
      code = TKRT_GRID_OP_DIV;
      break;
    default: break;
  }
  if (b == 0) {
    *out_error = 2;
    return 0;
  }
  if (a == INT64_MIN && b == -1) {
    *out_error = 1;
    return 0;
  }
  int64_t q = a / b, m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) {
    --q;
    m += b;
  }
  return code == TKRT_GRID_OP_MOD ? m : q;
}

static tkrt_status_t tkrt_grid_op_error(const char* expression, const tkrt_grid_op_t* op,
                                        int error, int64_t divisor) {
  if (error == 2) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "grid expression \"%s\", at offset %u: division by zero in %s (the "
                            "divisor '%.*s' is %lld)",
                            expression, op->pos, tkrt_grid_op_name(op->code),
                            (int)op->rhs_length, expression + op->rhs_start, (long long)divisor);
  }
  return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                          "grid expression \"%s\", at offset %u: integer overflow in %s",
                          expression, op->pos, tkrt_grid_op_name(op->code));
}

static void tkrt_grid_emit(tkrt_grid_parser_t* p, size_t at, uint8_t code, int64_t value,
                           size_t rhs_start, size_t rhs_end) {
  if (p->error) return;
  if (p->op_count == p->capacity) {
    tkrt_grid_fail(p, "too many operations", NULL);
    return;
  }
  memmove(&p->ops[at + 1], &p->ops[at], (p->op_count - at) * sizeof(p->ops[0]));
  tkrt_grid_op_t* op = &p->ops[at];
  memset(op, 0, sizeof(*op));
  op->code = code;
  op->pos = (uint32_t)p->pos;
  op->rhs_start = (uint32_t)rhs_start;
  op->rhs_length = (uint32_t)(rhs_end > rhs_start ? rhs_end - rhs_start : 0);
  op->value = value;
  p->op_count++;
}

/* a OP b where b's code (if any) was emitted from `mark` on; folds two constants. */
static tkrt_grid_operand_t tkrt_grid_binary(tkrt_grid_parser_t* p, uint8_t code,
                                            tkrt_grid_operand_t a, size_t mark,
                                            tkrt_grid_operand_t b, size_t rhs_start,
                                            size_t rhs_end) {
  tkrt_grid_operand_t r = {0, 0};
  if (p->error) return r;
  if (a.is_const && b.is_const) {
    int error = 0;
    r.is_const = 1;
    r.value = tkrt_grid_apply(code, a.value, b.value, &error);
    if (error) {
      tkrt_grid_op_t op = {code, (uint32_t)p->pos, (uint32_t)rhs_start,
                           (uint32_t)(rhs_end - rhs_start), 0};
      p->error = tkrt_grid_op_error(p->text, &op, error, b.value);
      r.value = 0;
    }
    return r;
  }
  if (a.is_const) tkrt_grid_emit(p, mark, TKRT_GRID_OP_PUSH, a.value, 0, 0);
  if (b.is_const) tkrt_grid_emit(p, p->op_count, TKRT_GRID_OP_PUSH, b.value, 0, 0);
  tkrt_grid_emit(p, p->op_count, code, 0, rhs_start, rhs_end);
  return r;
}

static size_t tkrt_grid_trimmed_end(const tkrt_grid_parser_t* p, size_t start) {
  size_t end = p->pos;
  while (end > start && (p->text[end - 1] == ' ' || p->text[end - 1] == '\t')) --end;
  return end;
}

static tkrt_grid_operand_t tkrt_grid_expr(tkrt_grid_parser_t* p, int depth);

static tkrt_grid_operand_t tkrt_grid_primary(tkrt_grid_parser_t* p, int depth) {
  tkrt_grid_operand_t zero = {1, 0};
  if (depth > TKRT_GRID_DEPTH_MAX) {
    tkrt_grid_fail(p, "nested too deeply", NULL);
    return zero;
  }
  tkrt_grid_space(p);
  char c = p->text[p->pos];
  if (c == '-') {
    ++p->pos;
    size_t mark = p->op_count;
    size_t start = p->pos;
    tkrt_grid_operand_t value = tkrt_grid_primary(p, depth + 1);
    return tkrt_grid_binary(p, TKRT_GRID_OP_SUB, zero, mark, value, start,
                            tkrt_grid_trimmed_end(p, start));
  }
  if (c == '(') {
    ++p->pos;
    tkrt_grid_operand_t value = tkrt_grid_expr(p, depth + 1);
    tkrt_grid_space(p);
    if (p->text[p->pos] != ')') {
      tkrt_grid_fail(p, "expected ')'", NULL);
      return zero;
    }
    ++p->pos;
    return value;
  }
  if (isdigit((unsigned char)c)) {
    errno = 0;
    char* end = NULL;
    long long value = strtoll(p->text + p->pos, &end, 10);
    if (errno != 0) {
      tkrt_grid_fail(p, "integer literal out of range", NULL);
      return zero;
    }
    p->pos = (size_t)(end - p->text);
    if (tkrt_grid_is_name_char(p->text[p->pos])) {
      tkrt_grid_fail(p, "malformed integer literal", NULL);
      return zero;
    }
    tkrt_grid_operand_t r = {1, (int64_t)value};
    return r;
  }
  if (!tkrt_grid_is_name_start(c)) {
    tkrt_grid_fail(p, c ? "expected a number, a name or '('" : "unexpected end", NULL);
    return zero;
  }
  size_t start = p->pos;
  while (tkrt_grid_is_name_char(p->text[p->pos])) ++p->pos;
  size_t length = p->pos - start;
  const char* name = p->text + start;
  tkrt_grid_space(p);
  if (p->text[p->pos] == '(') {
    uint8_t code = length == 4 && memcmp(name, "cdiv", 4) == 0  ? TKRT_GRID_OP_CDIV
                   : length == 3 && memcmp(name, "min", 3) == 0 ? TKRT_GRID_OP_MIN
                   : length == 3 && memcmp(name, "max", 3) == 0 ? TKRT_GRID_OP_MAX
                                                                : 0;
    if (!code) {
      char detail[80];
      snprintf(detail, sizeof(detail), "'%.*s' (functions: cdiv, min, max)",
               (int)(length > 40 ? 40 : length), name);
      p->pos = start;
      tkrt_grid_fail(p, "unknown function ", detail);
      return zero;
    }
    ++p->pos;
    tkrt_grid_operand_t a = tkrt_grid_expr(p, depth + 1);
    tkrt_grid_space(p);
    if (p->text[p->pos] != ',') {
      tkrt_grid_fail(p, "expected ',' between the two arguments", NULL);
      return zero;
    }
    ++p->pos;
    size_t mark = p->op_count;
    tkrt_grid_space(p);
    size_t rhs_start = p->pos;
    tkrt_grid_operand_t b = tkrt_grid_expr(p, depth + 1);
    size_t rhs_end = tkrt_grid_trimmed_end(p, rhs_start);
    tkrt_grid_space(p);
    if (p->text[p->pos] != ')') {
      tkrt_grid_fail(p, "expected ')' after the two arguments", NULL);
      return zero;
    }
    ++p->pos;
    if (p->error) return zero;
    return tkrt_grid_binary(p, code, a, mark, b, rhs_start, rhs_end);
  }
  size_t found = tkrt_grid_name_find(p->names, 0, p->name_count, name, length);
  if (found < p->name_count) {
    if (!p->names[found].is_var) {
      tkrt_grid_operand_t r = {1, p->names[found].value};
      return r;
    }
    tkrt_grid_emit(p, p->op_count, TKRT_GRID_OP_VAR, (int64_t)p->names[found].index, 0, 0);
    tkrt_grid_operand_t r = {0, 0};
    return r;
  }
  char detail[400];
  size_t used = (size_t)snprintf(detail, sizeof(detail), "'%.*s' (known: ",
                                 (int)(length > 40 ? 40 : length), name);
  for (size_t i = 0; i < p->name_count && used < sizeof(detail); ++i) {
    int n = snprintf(detail + used, sizeof(detail) - used, "%s%.*s", i ? ", " : "",
                     (int)p->names[i].length, p->names[i].name);
    if (n > 0) used += (size_t)n;
  }
  if (used < sizeof(detail)) snprintf(detail + used, sizeof(detail) - used, ")");
  p->pos = start;
  tkrt_grid_fail(p, "unknown name ", detail);
  return zero;
}

static tkrt_grid_operand_t tkrt_grid_term(tkrt_grid_parser_t* p, int depth) {
  tkrt_grid_operand_t value = tkrt_grid_primary(p, depth);
  for (;;) {
    tkrt_grid_space(p);
    char op = p->text[p->pos];
    if (op == '/' && p->text[p->pos + 1] == '/') ++p->pos; /* Python's // */
    if (op != '*' && op != '/' && op != '%') return value;
    ++p->pos;
    size_t mark = p->op_count;
    tkrt_grid_space(p);
    size_t start = p->pos;
    tkrt_grid_operand_t rhs = tkrt_grid_primary(p, depth);
    if (p->error) return rhs;
    uint8_t code = op == '*' ? TKRT_GRID_OP_MUL : op == '/' ? TKRT_GRID_OP_DIV : TKRT_GRID_OP_MOD;
    value = tkrt_grid_binary(p, code, value, mark, rhs, start, tkrt_grid_trimmed_end(p, start));
  }
}

static tkrt_grid_operand_t tkrt_grid_expr(tkrt_grid_parser_t* p, int depth) {
  tkrt_grid_operand_t value = tkrt_grid_term(p, depth);
  for (;;) {
    tkrt_grid_space(p);
    char op = p->text[p->pos];
    if (op != '+' && op != '-') return value;
    ++p->pos;
    size_t mark = p->op_count;
    tkrt_grid_space(p);
    size_t start = p->pos;
    tkrt_grid_operand_t rhs = tkrt_grid_term(p, depth);
    if (p->error) return rhs;
    value = tkrt_grid_binary(p, op == '+' ? TKRT_GRID_OP_ADD : TKRT_GRID_OP_SUB, value, mark, rhs,
                             start, tkrt_grid_trimmed_end(p, start));
  }
}

void tkrt_triton_grid_program_free(tkrt_triton_grid_program_t* program) {
  if (!program) return;
  free(program->expression);
  free(program->ops);
  free(program);
}

static tkrt_status_t tkrt_grid_dim_range(const char* expression, int d, int64_t value) {
  if (value < 0 || value > (int64_t)UINT32_MAX) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE,
                            "grid expression \"%s\": dimension %c is %lld, not in 0..%u",
                            expression, "xyz"[d], (long long)value, UINT32_MAX);
  }
  return NULL;
}

/* A grid (up to three dimensions, each in 0..2^32-1 when constant), or with `one_value` a
 * single expression of any int64 value (tkrt_triton_value_compile). */
static tkrt_status_t tkrt_grid_compile_as(const char* expression, const tkrt_grid_name_t* names,
                                          size_t name_count, bool one_value,
                                          tkrt_triton_grid_program_t** out) {
  if (!expression || strlen(expression) > TKRT_GRID_EXPR_MAX) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "grid expression is missing or longer than %d characters",
                            TKRT_GRID_EXPR_MAX);
  }
  size_t length = strlen(expression);
  tkrt_triton_grid_program_t* program = calloc(1, sizeof(*program));
  tkrt_grid_op_t* ops = calloc(2 * length + 8, sizeof(*ops));
  char* copy = malloc(length + 1);
  if (!program || !ops || !copy) {
    free(program);
    free(ops);
    free(copy);
    return TKRT_OOM();
  }
  memcpy(copy, expression, length + 1);
  tkrt_grid_parser_t p = {copy, 0, names, name_count, NULL, ops, 0, 2 * length + 8};
  int dims = 0;
  for (int d = 0; d < 3; ++d) {
    tkrt_grid_operand_t value = tkrt_grid_expr(&p, 0);
    if (p.error) break;
    if (value.is_const) {
      if (!one_value && (p.error = tkrt_grid_dim_range(copy, d, value.value))) break;
      tkrt_grid_emit(&p, p.op_count, TKRT_GRID_OP_PUSH, value.value, 0, 0);
    }
    tkrt_grid_emit(&p, p.op_count, TKRT_GRID_OP_DIM, d, 0, 0);
    dims = d + 1;
    tkrt_grid_space(&p);
    if (p.text[p.pos] == '\0') break;
    if (p.text[p.pos] != ',' || d == 2 || one_value) {
      tkrt_grid_fail(&p, one_value ? "expected one expression: no ','"
                         : d == 2  ? "more than three dimensions"
                                   : "expected ',' or the end",
                     NULL);
      break;
    }
    ++p.pos;
  }
  (void)dims;
  /* The stack's depth, and what a run needs. */
  size_t depth = 0, deepest = 0, values = 0;
  for (size_t i = 0; i < p.op_count && !p.error; ++i) {
    const tkrt_grid_op_t* op = &ops[i];
    if (op->code == TKRT_GRID_OP_PUSH || op->code == TKRT_GRID_OP_VAR) {
      ++depth;
      if (op->code == TKRT_GRID_OP_VAR && (size_t)op->value + 1 > values) {
        values = (size_t)op->value + 1;
      }
    } else {
      --depth; /* binary ops pop two and push one; DIM pops one */
    }
    if (depth > deepest) deepest = depth;
  }
  if (!p.error && deepest > TKRT_GRID_STACK_MAX) {
    p.error = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                               "grid expression \"%s\" needs more than %d intermediate values",
                               copy, TKRT_GRID_STACK_MAX);
  }
  if (p.error) {
    free(program);
    free(ops);
    free(copy);
    return p.error;
  }
  program->expression = copy;
  program->ops = ops;
  program->op_count = p.op_count;
  program->stack = deepest;
  program->value_count = values;
  *out = program;
  return NULL;
}

static tkrt_status_t tkrt_grid_compile(const char* expression, const tkrt_grid_name_t* names,
                                       size_t name_count, tkrt_triton_grid_program_t** out) {
  return tkrt_grid_compile_as(expression, names, name_count, false, out);
}

/* Runs a program's ops with `values`: each dimension's value into dims (1 where the program has
 * none), no range checked. Every operation checked as tkrt_grid_apply does. */
static tkrt_status_t tkrt_grid_execute(const tkrt_triton_grid_program_t* program,
                                       const int64_t* values, size_t value_count,
                                       int64_t dims[3]) {
  if (program->value_count > value_count || (program->value_count && !values)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "\"%s\" reads %zu values; %zu were given",
                            program->expression, program->value_count, value_count);
  }
  int64_t stack[TKRT_GRID_STACK_MAX];
  size_t top = 0;
  dims[0] = dims[1] = dims[2] = 1;
  for (size_t i = 0; i < program->op_count; ++i) {
    const tkrt_grid_op_t* op = &program->ops[i];
    switch (op->code) {
      case TKRT_GRID_OP_PUSH: stack[top++] = op->value; break;
      case TKRT_GRID_OP_VAR: stack[top++] = values[op->value]; break;
      case TKRT_GRID_OP_DIM: dims[op->value] = stack[--top]; break;
      default: {
        int error = 0;
        int64_t b = stack[--top];
        int64_t a = stack[top - 1];
        stack[top - 1] = tkrt_grid_apply(op->code, a, b, &error);
        if (error) return tkrt_grid_op_error(program->expression, op, error, b);
        break;
      }
    }
  }
  return NULL;
}

tkrt_status_t tkrt_triton_grid_run(const tkrt_triton_grid_program_t* program,
                                   const int64_t* values, size_t value_count,
                                   uint32_t out_grid[3]) {
  int64_t dims[3];
  TKRT_RETURN_IF_ERROR(tkrt_grid_execute(program, values, value_count, dims));
  for (int d = 0; d < 3; ++d) {
    TKRT_RETURN_IF_ERROR(tkrt_grid_dim_range(program->expression, d, dims[d]));
  }
  for (int d = 0; d < 3; ++d) out_grid[d] = (uint32_t)dims[d];
  return NULL;
}

static tkrt_status_t tkrt_grid_evaluate(const char* expression, const tkrt_grid_name_t* names,
                                        size_t name_count, uint32_t out_grid[3]) {
  tkrt_triton_grid_program_t* program = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_grid_compile(expression, names, name_count, &program));
  tkrt_status_t status = tkrt_triton_grid_run(program, NULL, 0, out_grid);
  tkrt_triton_grid_program_free(program);
  return status;
}

size_t tkrt_triton_grid_value_count(const tkrt_triton_grid_program_t* program) {
  return program ? program->value_count : 0;
}

const char* tkrt_triton_grid_expression(const tkrt_triton_grid_program_t* program) {
  return program ? program->expression : "";
}

bool tkrt_triton_param_is_integer(const tkrt_triton_param_t* param) {
  return !param->is_pointer && param->kind != TKRT_PARAM_TMA &&
         (param->kind == TKRT_PARAM_BOOL || param->kind == TKRT_PARAM_I32 ||
          param->kind == TKRT_PARAM_I64);
}

static tkrt_status_t tkrt_grid_parse_bindings(const char* text, tkrt_grid_name_t* names,
                                              size_t* count);

/* Appends "NAME=INT, ..." bindings (true/false count as 1/0). Names point into `text`. */
static tkrt_status_t tkrt_grid_parse_bindings(const char* text, tkrt_grid_name_t* names,
                                              size_t* count) {
  if (!text) return NULL;
  const char* p = text;
  while (*p) {
    while (*p == ' ' || *p == ',' || *p == '\t') ++p;
    if (!*p) break;
    const char* name = p;
    while (tkrt_grid_is_name_char(*p)) ++p;
    size_t length = (size_t)(p - name);
    while (*p == ' ') ++p;
    if (length == 0 || !tkrt_grid_is_name_start(*name) || *p != '=') {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "constants \"%s\": expected NAME=INTEGER at offset %zu", text,
                              (size_t)(name - text));
    }
    ++p;
    while (*p == ' ') ++p;
    int64_t value = 0;
    const char* value_start = p;
    if (strncmp(p, "True", 4) == 0 || strncmp(p, "true", 4) == 0) {
      value = 1;
      p += 4;
    } else if (strncmp(p, "False", 5) == 0 || strncmp(p, "false", 5) == 0) {
      p += 5;
    } else {
      errno = 0;
      char* end = NULL;
      value = (int64_t)strtoll(p, &end, 0);
      if (end == p || errno) end = (char*)p;
      p = end;
    }
    while (*p == ' ') ++p;
    if (p == value_start || (*p && *p != ',')) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "constants \"%s\": the value of '%.*s' is not an integer (grid "
                              "expressions compute with integers only)",
                              text, (int)length, name);
    }
    if (tkrt_grid_name_find(names, 0, *count, name, length) < *count) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "constants \"%s\": '%.*s' is bound twice (or is also a scalar "
                              "argument)",
                              text, (int)length, name);
    }
    if (*count == TKRT_GRID_NAMES_MAX) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "constants \"%s\": more than %d names",
                              text, TKRT_GRID_NAMES_MAX);
    }
    names[*count].name = name;
    names[*count].length = length;
    names[*count].value = value;
    names[*count].is_var = 0;
    names[*count].index = 0;
    (*count)++;
  }
  return NULL;
}

tkrt_status_t tkrt_triton_constants_normalise(const char* text, char** out) {
  tkrt_grid_name_t names[TKRT_GRID_NAMES_MAX];
  size_t count = 0;
  TKRT_RETURN_IF_ERROR(tkrt_grid_parse_bindings(text, names, &count));
  size_t capacity = 1;
  for (size_t i = 0; i < count; ++i) capacity += names[i].length + 24;
  char* normal = malloc(capacity);
  if (!normal) return TKRT_OOM();
  size_t used = 0;
  normal[0] = '\0';
  for (size_t i = 0; i < count; ++i) {
    used += (size_t)snprintf(normal + used, capacity - used, "%s%.*s=%lld", i ? "," : "",
                             (int)names[i].length, names[i].name, (long long)names[i].value);
  }
  *out = normal;
  return NULL;
}

/* Binds a variant's constants, then those its kernel was compiled with that the variant does not
 * give (tkrt_triton_kernel_constants); a variant giving one of those another value is refused. */
static tkrt_status_t tkrt_triton_bind_constants(const tkrt_triton_variant_t* variant,
                                                tkrt_grid_name_t* names, size_t* count) {
  size_t first = *count;
  TKRT_RETURN_IF_ERROR(tkrt_grid_parse_bindings(variant->constants, names, count));
  const char* compiled = variant->kernel ? variant->kernel->constants : NULL;
  if (!compiled || !*compiled) return NULL;
  tkrt_grid_name_t known[TKRT_GRID_NAMES_MAX];
  size_t known_count = 0;
  TKRT_RETURN_IF_ERROR(tkrt_grid_parse_bindings(compiled, known, &known_count));
  for (size_t k = 0; k < known_count; ++k) {
    size_t given = tkrt_grid_name_find(names, first, *count, known[k].name, known[k].length);
    if (given < *count) {
      if (names[given].value != known[k].value) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "constants \"%s\": kernel '%s' was compiled with %.*s=%lld, not "
                                "%lld (a constexpr is folded into the compiled code: another value "
                                "would only change the grid)",
                                variant->constants, variant->kernel->name, (int)known[k].length,
                                known[k].name, (long long)known[k].value,
                                (long long)names[given].value);
      }
      continue;
    }
    if (tkrt_grid_name_find(names, 0, first, known[k].name, known[k].length) < first) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "kernel '%s' was compiled with %.*s=%lld, which is also one of its "
                              "parameters' or the grid's names",
                              variant->kernel->name, (int)known[k].length, known[k].name,
                              (long long)known[k].value);
    }
    if (*count == TKRT_GRID_NAMES_MAX) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "kernel '%s': more than %d names for the grid", variant->kernel->name,
                              TKRT_GRID_NAMES_MAX);
    }
    names[(*count)++] = known[k];
  }
  return NULL;
}

tkrt_status_t tkrt_triton_grid_eval(const char* expression, const char* bindings,
                                    uint32_t out_grid[3]) {
  if (!out_grid) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_triton_grid_eval: NULL out_grid");
  }
  tkrt_grid_name_t names[TKRT_GRID_NAMES_MAX];
  size_t count = 0;
  TKRT_RETURN_IF_ERROR(tkrt_grid_parse_bindings(bindings, names, &count));
  return tkrt_grid_evaluate(expression, names, count, out_grid);
}

tkrt_status_t tkrt_triton_grid_compile(const char* expression, const char* const* var_names,
                                       size_t var_count, const char* bindings,
                                       tkrt_triton_grid_program_t** out_program) {
  if (!out_program || (var_count && !var_names)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_triton_grid_compile: NULL argument");
  }
  if (var_count > TKRT_GRID_NAMES_MAX) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "more than %d grid variables",
                            TKRT_GRID_NAMES_MAX);
  }
  tkrt_grid_name_t names[TKRT_GRID_NAMES_MAX];
  size_t count = 0;
  for (size_t v = 0; v < var_count; ++v) {
    const char* name = var_names[v] ? var_names[v] : "";
    if (tkrt_grid_name_find(names, 0, count, name, strlen(name)) < count) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "grid variable '%s' is named twice",
                              name);
    }
    names[count++] = (tkrt_grid_name_t){name, strlen(name), 0, 1, v};
  }
  TKRT_RETURN_IF_ERROR(tkrt_grid_parse_bindings(bindings, names, &count));
  return tkrt_grid_compile(expression, names, count, out_program);
}

/* A grid names the kernel's integer scalars, num_warps and num_stages: at most
 * TKRT_GRID_NAMES_MAX names; `first_left_out` is the first integer parameter beyond them. */
static tkrt_status_t tkrt_triton_grid_names_full(const char* kernel_name,
                                                 const tkrt_triton_param_t* first_left_out) {
  return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                          "kernel '%s': integer scalar '%s' is beyond the %d a grid expression can "
                          "name (with num_warps and num_stages, %d names); give the grid as "
                          "numbers (grid_dims) or a kernel with fewer integer scalars",
                          kernel_name, first_left_out->name, TKRT_GRID_NAMES_MAX - 2,
                          TKRT_GRID_NAMES_MAX);
}

tkrt_status_t tkrt_triton_grid_compile_variant(const tkrt_triton_variant_t* variant,
                                               tkrt_triton_grid_program_t** out_program) {
  if (!variant || !variant->kernel || !out_program) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_triton_grid_compile_variant: NULL argument");
  }
  const tkrt_triton_kernel_t* k = variant->kernel;
  if (!variant->grid) {
    char constant[96];
    snprintf(constant, sizeof(constant), "%u, %u, %u", variant->grid_dims[0],
             variant->grid_dims[1], variant->grid_dims[2]);
    return tkrt_grid_compile(constant, NULL, 0, out_program);
  }
  tkrt_grid_name_t* names = calloc(TKRT_GRID_NAMES_MAX, sizeof(*names));
  if (!names) return TKRT_OOM();
  size_t count = 0;
  for (size_t i = 0; i < k->param_count; ++i) {
    if (!tkrt_triton_param_is_integer(&k->params[i])) continue;
    if (count == TKRT_GRID_NAMES_MAX - 2) {
      free(names);
      return tkrt_triton_grid_names_full(k->name, &k->params[i]);
    }
    names[count++] = (tkrt_grid_name_t){k->params[i].name, strlen(k->params[i].name), 0, 1, i};
  }
  names[count++] = (tkrt_grid_name_t){"num_warps", 9, k->num_warps, 0, 0};
  names[count++] = (tkrt_grid_name_t){"num_stages", 10, k->num_stages, 0, 0};
  tkrt_status_t status = tkrt_triton_bind_constants(variant, names, &count);
  if (!status) status = tkrt_grid_compile(variant->grid, names, count, out_program);
  free(names);
  return status;
}

tkrt_status_t tkrt_triton_value_compile(const tkrt_triton_kernel_t* k, const char* expression,
                                        tkrt_triton_grid_program_t** out_program) {
  tkrt_grid_name_t* names = calloc(TKRT_GRID_NAMES_MAX, sizeof(*names));
  if (!names) return TKRT_OOM();
  size_t count = 0;
  for (size_t i = 0; i < k->param_count; ++i) {
    if (!tkrt_triton_param_is_integer(&k->params[i])) continue;
    if (count == TKRT_GRID_NAMES_MAX) {
      free(names);
      return tkrt_triton_grid_names_full(k->name, &k->params[i]);
    }
    names[count++] = (tkrt_grid_name_t){k->params[i].name, strlen(k->params[i].name), 0, 1, i};
  }
  tkrt_status_t status = tkrt_grid_compile_as(expression, names, count, true, out_program);
  free(names);
  return status;
}

tkrt_status_t tkrt_triton_value_run(const tkrt_triton_grid_program_t* program,
                                    const int64_t* values, size_t value_count,
                                    int64_t* out_value) {
  int64_t dims[3];
  TKRT_RETURN_IF_ERROR(tkrt_grid_execute(program, values, value_count, dims));
  *out_value = dims[0];
  return NULL;
}

/* ---------------------------------------------------------------- scalars */

static tkrt_status_t tkrt_triton_bind_scalar(const tkrt_triton_param_t* param,
                                             const tkrt_triton_scalar_t* s, bool unsigned_read,
                                             tkrt_param_t* out);

void tkrt_triton_int_range(const tkrt_triton_param_t* param, bool unsigned_read, int64_t* out_low,
                           uint64_t* out_high, const char** out_rule) {
  *out_rule = "";
  if (param->kind == TKRT_PARAM_BOOL) {
    *out_low = 0, *out_high = 1;
  } else if (param->kind == TKRT_PARAM_I64) {
    *out_low = unsigned_read ? 0 : INT64_MIN;
    *out_high = unsigned_read ? UINT64_MAX : (uint64_t)INT64_MAX;
    if (!unsigned_read) {
      *out_rule = " (an i64 takes the signed 64-bit range; declare the scalar unsigned to pass "
                  "0..18446744073709551615)";
    }
  } else if (unsigned_read) {
    unsigned bits = param->element_bytes * 8;
    *out_low = 0, *out_high = ((uint64_t)1 << bits) - 1;
  } else {
    unsigned bits = param->element_bytes * 8;
    *out_low = -((int64_t)1 << (bits - 1)), *out_high = ((uint64_t)1 << (bits - 1)) - 1;
    *out_rule = bits == 32 ? " (Triton compiles an i32 parameter for Python integers in this range "
                             "and specialises larger ones to i64; declare the scalar unsigned to "
                             "pass 0..4294967295)"
                           : " (the signed range of the width; declare the scalar unsigned to "
                             "pass 0..2^width-1)";
  }
}

bool tkrt_triton_desc_unsigned(const tkrt_triton_call_desc_t* desc, const char* name) {
  for (size_t i = 0; i < desc->unsigned_scalar_count; ++i) {
    if (desc->unsigned_scalars[i] && strcmp(desc->unsigned_scalars[i], name) == 0) return true;
  }
  return false;
}

tkrt_status_t tkrt_triton_scalar_parse(const char* text, tkrt_triton_scalar_t* out_scalar,
                                       size_t* out_name_length) {
  const char* eq = text ? strchr(text, '=') : NULL;
  if (!eq || eq == text) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "'%s' is not NAME=VALUE",
                            text ? text : "(null)");
  }
  const char* value = eq + 1;
  tkrt_triton_scalar_t scalar = {text, false, 0, 0.0};
  int hex = value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
  int negative_hex = value[0] == '-' && value[1] == '0' && (value[2] == 'x' || value[2] == 'X');
  int is_float = !hex && !negative_hex &&
                 (strpbrk(value, ".eE") || strstr(value, "inf") || strstr(value, "nan"));
  char* end = NULL;
  errno = 0;
  if (is_float) {
    scalar.is_float = true;
    scalar.f = strtod(value, &end);
  } else {
    scalar.i = (int64_t)strtoll(value, &end, 0);
  }
  if (!*value || end == value || *end || errno == ERANGE) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "'%s': the value is not %s", text,
                            errno == ERANGE ? "in range" : "an integer or a float");
  }
  *out_scalar = scalar;
  if (out_name_length) *out_name_length = (size_t)(eq - text);
  return NULL;
}

/* IEEE binary16 and bfloat16 bits of a float, rounded to nearest even. */
static uint32_t tkrt_f32_bits(float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  return bits;
}

static uint16_t tkrt_float_to_bf16(float f) {
  uint32_t bits = tkrt_f32_bits(f);
  if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x7FFFFFu)) return (uint16_t)((bits >> 16) | 0x40);
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return (uint16_t)(bits >> 16);
}

static uint16_t tkrt_float_to_f16(float f) {
  uint32_t bits = tkrt_f32_bits(f);
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t exponent = (bits >> 23) & 0xFFu;
  uint32_t mantissa = bits & 0x7FFFFFu;
  if (exponent == 0xFF) return (uint16_t)(sign | 0x7C00u | (mantissa ? 0x200u : 0u));
  int e = (int)exponent - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7C00u); /* overflow: infinity */
  if (e <= 0) {
    if (e < -10) return (uint16_t)sign; /* underflow: signed zero */
    mantissa |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1u);
    uint32_t midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1u))) ++half;
    return (uint16_t)(sign | half);
  }
  uint32_t half = ((uint32_t)e << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half; /* may carry into inf: right */
  return (uint16_t)(sign | half);
}

tkrt_status_t tkrt_triton_bind_scalar_public(const tkrt_triton_param_t* param,
                                             const tkrt_triton_scalar_t* s, bool unsigned_read,
                                             tkrt_param_t* out) {
  return tkrt_triton_bind_scalar(param, s, unsigned_read, out);
}

static tkrt_status_t tkrt_triton_bind_scalar(const tkrt_triton_param_t* param,
                                             const tkrt_triton_scalar_t* s, bool unsigned_read,
                                             tkrt_param_t* out) {
  memset(out, 0, sizeof(*out));
  out->kind = param->kind;
  int floating = strcmp(param->type, "fp32") == 0 || strcmp(param->type, "fp64") == 0 ||
                 strcmp(param->type, "fp16") == 0 || strcmp(param->type, "bf16") == 0;
  if (s->is_float && !floating) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "scalar '%s' is %s, an integer parameter, but was given %g", param->name,
                            param->type, s->f);
  }
  bool above = !s->is_float && s->is_uint64;
  double as_double = s->is_float ? s->f : above ? (double)(uint64_t)s->i : (double)s->i;
  if (!s->is_float && (param->kind == TKRT_PARAM_BOOL || param->kind == TKRT_PARAM_I32 ||
                       param->kind == TKRT_PARAM_I64)) {
    int64_t low;
    uint64_t high;
    const char* rule;
    char text[24];
    tkrt_triton_int_range(param, unsigned_read, &low, &high, &rule);
    if (!tkrt_triton_int_fits(low, high, s->i, above)) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE,
                              "scalar '%s' is %s; %s is out of range (%lld..%llu)%s", param->name,
                              param->type, tkrt_triton_int_text(s->i, above, text),
                              (long long)low, (unsigned long long)high, rule);
    }
  }
  switch (param->kind) {
    case TKRT_PARAM_BOOL:
      out->value.b = s->i != 0;
      return NULL;
    case TKRT_PARAM_I32: {
      out->value.i32 = (int32_t)(uint32_t)(uint64_t)s->i;
      if (param->divisibility > 1 && s->i % param->divisibility != 0) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "scalar '%s' = %lld is not divisible by %u, which the kernel was "
                                "specialised for (tt.divisibility)",
                                param->name, (long long)s->i, param->divisibility);
      }
      return NULL;
    }
    case TKRT_PARAM_I64:
      if (param->divisibility > 1 && (uint64_t)s->i % param->divisibility != 0) {
        char text[24];
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "scalar '%s' = %s is not divisible by %u, which the kernel was "
                                "specialised for (tt.divisibility)",
                                param->name, tkrt_triton_int_text(s->i, above, text),
                                param->divisibility);
      }
      out->value.i64 = s->i;
      return NULL;
    case TKRT_PARAM_F32: out->value.f32 = (float)as_double; return NULL;
    case TKRT_PARAM_F64: out->value.f64 = as_double; return NULL;
    case TKRT_PARAM_U32:
      out->value.u32 = strcmp(param->type, "bf16") == 0 ? tkrt_float_to_bf16((float)as_double)
                                                         : tkrt_float_to_f16((float)as_double);
      return NULL;
    default: break;
  }
  return TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "scalar '%s' has an unexpected kind", param->name);
}

/* ---------------------------------------------------------------- calls */

void tkrt_triton_call_desc_init(tkrt_triton_call_desc_t* desc) {
  memset(desc, 0, sizeof(*desc));
  desc->struct_size = sizeof(*desc);
}

static tkrt_status_t tkrt_triton_same_params(const tkrt_triton_kernel_t* a,
                                             const tkrt_triton_kernel_t* b, size_t variant) {
  if (a->param_count != b->param_count) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "variant %zu of '%s' declares %zu parameters; variant 0 declares %zu",
                            variant, b->name, b->param_count, a->param_count);
  }
  for (size_t i = 0; i < a->param_count; ++i) {
    if (strcmp(a->params[i].name, b->params[i].name) != 0 ||
        strcmp(a->params[i].type, b->params[i].type) != 0) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "variant %zu: parameter %zu is '%s: %s'; in variant 0 it is '%s: %s'",
                              variant, i, b->params[i].name, b->params[i].type, a->params[i].name,
                              a->params[i].type);
    }
  }
  return NULL;
}

tkrt_status_t tkrt_triton_call_create(const tkrt_triton_call_desc_t* caller_desc,
                                      tkrt_call_t** out_call) {
  return tkrt_triton_call_create_internal(caller_desc, false, out_call);
}

/* A tensor descriptor parameter as a TMA parameter: the meta's element type (mapped to the host
 * enum), swizzle and box; a placeholder tensor (the TTIR block, or the box where larger, with
 * contiguous strides, rows padded to 16 bytes) that each launch replaces with its own. */
static void tkrt_triton_tma_param(const tkrt_triton_param_t* p, const tkrt_triton_desc_meta_t* m,
                                  tkrt_param_t* out, tkrt_param_t* hidden) {
  memset(out, 0, sizeof(*out));
  out->kind = TKRT_PARAM_TMA;
  tkrt_tma_desc_t* tma = &out->value.tma;
  tma->elem_type = tkrt_triton_desc_host_type(m->elem_type);
  tma->swizzle = m->swizzle;
  tma->oob_fill = 0;
  tma->rank = p->desc_rank;
  uint64_t align = m->elem_size && m->elem_size < 16 ? 16 / m->elem_size : 1;
  for (uint32_t d = 0; d < p->desc_rank; ++d) {
    tma->block_shape[d] = m->block_size[d];
    tma->shape[d] = p->desc_block[d] > m->block_size[d] ? p->desc_block[d] : m->block_size[d];
  }
  for (uint32_t d = p->desc_rank; d-- > 0;) {
    if (d == p->desc_rank - 1) {
      tma->strides[d] = 1;
    } else {
      uint64_t inner = tma->shape[d + 1] * tma->strides[d + 1];
      tma->strides[d] = (inner + align - 1) / align * align;
    }
  }
  for (uint32_t d = 0; d < p->desc_rank; ++d) {
    memset(&hidden[d], 0, sizeof(hidden[d]));
    hidden[d].kind = TKRT_PARAM_I32;
    hidden[d].value.i32 = (int32_t)tma->shape[d];
    memset(&hidden[p->desc_rank + d], 0, sizeof(hidden[d]));
    hidden[p->desc_rank + d].kind = TKRT_PARAM_I64;
    hidden[p->desc_rank + d].value.i64 = (int64_t)tma->strides[d];
  }
}

/* A tensor descriptor parameter in the decomposed form (Triton's launcher where the kernel was not
 * lowered to TMA): the base as an ARRAY parameter (consumes a buffer), shape as rank I64, strides
 * as rank I64, the padding flag as BOOL (NaN), then the TTIR's hidden shape as rank I32 and
 * strides as rank I64. Placeholders (the block, contiguous, zero padding) that each launch
 * replaces. Returns the parameters written: 4 * rank + 2. */
static size_t tkrt_triton_decomposed_params(const tkrt_triton_param_t* p, tkrt_param_t* out) {
  uint32_t r = p->desc_rank;
  size_t n = 4 * (size_t)r + 2;
  memset(out, 0, n * sizeof(*out));
  out[0].kind = TKRT_PARAM_ARRAY;
  out[0].value.array.ptr_divisibility = p->divisibility > 1 ? p->divisibility : 0;
  int64_t strides[TKRT_TMA_MAX_RANK];
  for (uint32_t d = r; d-- > 0;) {
    strides[d] = d == r - 1 ? 1 : strides[d + 1] * (int64_t)p->desc_block[d + 1];
  }
  for (uint32_t d = 0; d < r; ++d) {
    out[1 + d].kind = TKRT_PARAM_I64;
    out[1 + d].value.i64 = p->desc_block[d];
    out[1 + r + d].kind = TKRT_PARAM_I64;
    out[1 + r + d].value.i64 = strides[d];
    out[2 + 2 * r + d].kind = TKRT_PARAM_I32;
    out[2 + 2 * r + d].value.i32 = (int32_t)p->desc_block[d];
    out[2 + 3 * r + d].kind = TKRT_PARAM_I64;
    out[2 + 3 * r + d].value.i64 = strides[d];
  }
  out[1 + 2 * r].kind = TKRT_PARAM_BOOL;
  out[1 + 2 * r].value.b = false;
  return n;
}

/* What tkrt_triton_call_create writes into the metadata of a call with a decomposed tensor
 * descriptor (its parameters look like any pointer and integers, so the launches below could not
 * tell otherwise), followed by "parameter <i> '<name>' (<type>)" of the first one. */
static const char kTkrtDecomposedMark[] = "tkrt.triton decomposed descriptor: ";

/* INVALID_ARGUMENT for a call whose descriptors' tensors come with each launch (TMA-form or
 * decomposed): such a call launches only through tkrt_triton_bound_launch. */
static tkrt_status_t tkrt_triton_refuse_descriptors(const tkrt_call_desc_t* desc,
                                                    const char* name) {
  size_t mark = sizeof(kTkrtDecomposedMark) - 1;
  if (desc->metadata && desc->metadata_size > mark &&
      memcmp(desc->metadata, kTkrtDecomposedMark, mark) == 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "call '%s': %.*s is a tensor descriptor (the decomposed form), whose "
                            "tensor (base, shape, strides) comes with each launch: launch it with "
                            "tkrt_triton_bound_launch (tkrt/triton_bound.h)",
                            name, (int)(desc->metadata_size - mark),
                            (const char*)desc->metadata + mark);
  }
  const tkrt_config_desc_t* config = &desc->configs[0];
  for (size_t i = 0; i < config->param_count; ++i) {
    if (config->params[i].kind == TKRT_PARAM_TMA) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "call '%s': parameter %zu is a tensor descriptor, whose tensor "
                              "(base, shape, strides) comes with each launch: launch it with "
                              "tkrt_triton_bound_launch (tkrt/triton_bound.h)",
                              name, i);
    }
  }
  return NULL;
}

bool tkrt_triton_kernel_decomposed(const tkrt_triton_kernel_t* kernel) {
  return kernel->desc_meta_count == 0;
}

tkrt_status_t tkrt_triton_call_create_internal(const tkrt_triton_call_desc_t* caller_desc,
                                               bool allow_missing, tkrt_call_t** out_call) {
  if (!caller_desc || !out_call) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_triton_call_create: NULL argument");
  }
  tkrt_triton_call_desc_t d;
  tkrt_triton_call_desc_init(&d);
  TKRT_RETURN_IF_ERROR(tkrt_versioned_read(&d, sizeof(d), caller_desc, "tkrt_triton_call_create"));
  if (d.variant_count == 0 || !d.variants) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_triton_call_create: no variant");
  }
  if ((d.scalar_count && !d.scalars) || (d.inout_count && !d.inout) ||
      (d.unsigned_scalar_count && !d.unsigned_scalars)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_triton_call_create: scalars, inout or unsigned_scalars announced "
                            "but NULL");
  }
  for (size_t v = 0; v < d.variant_count; ++v) {
    if (!d.variants[v].kernel) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "variant %zu has no kernel", v);
    }
    if (v) TKRT_RETURN_IF_ERROR(tkrt_triton_same_params(d.variants[0].kernel, d.variants[v].kernel, v));
  }
  const tkrt_triton_kernel_t* k0 = d.variants[0].kernel;
  const char* kernel_name = k0->name;

  /* Every given scalar names a scalar parameter, once. */
  for (size_t s = 0; s < d.scalar_count; ++s) {
    const char* name = d.scalars[s].name;
    long index = tkrt_triton_kernel_find_param(k0, name);
    if (index < 0) {
      char listed[512];
      size_t used = 0;
      listed[0] = '\0';
      for (size_t i = 0; i < k0->param_count && used < sizeof(listed); ++i) {
        int n = snprintf(listed + used, sizeof(listed) - used, "%s%s: %s", i ? ", " : "",
                         k0->params[i].name, k0->params[i].type);
        if (n > 0) used += (size_t)n;
      }
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "kernel '%s' has no parameter '%s' (its parameters: %s)", kernel_name,
                              name ? name : "(null)", listed);
    }
    if (k0->params[index].is_pointer || k0->params[index].kind == TKRT_PARAM_TMA) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "'%s' is a %s parameter (%s) of '%s': pass it as a buffer, not "
                              "a scalar",
                              name, k0->params[index].is_pointer ? "pointer" : "tensor descriptor",
                              k0->params[index].type, kernel_name);
    }
    for (size_t t = 0; t < s; ++t) {
      if (strcmp(d.scalars[t].name, name) == 0) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "scalar '%s' is given twice", name);
      }
    }
  }

  /* Every unsigned name is an integer scalar parameter wider than i1. */
  for (size_t u = 0; u < d.unsigned_scalar_count; ++u) {
    const char* name = d.unsigned_scalars[u];
    long index = name ? tkrt_triton_kernel_find_param(k0, name) : -1;
    if (index < 0 || !tkrt_triton_param_is_integer(&k0->params[index]) ||
        k0->params[index].kind == TKRT_PARAM_BOOL) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "kernel '%s': unsigned scalar '%s' is %s; only integer scalar "
                              "parameters (i8..i64) can be read as unsigned",
                              kernel_name, name ? name : "(null)",
                              index < 0 ? "no parameter of it" : k0->params[index].type);
    }
  }

  /* Tensor descriptors: lowered to TMA (tensordesc_meta) in every variant, alike, or in none
   * (the decomposed form: base pointer, shape, strides, padding flag, hidden shape and strides). */
  size_t descriptors = 0, count = 0;
  bool decomposed = tkrt_triton_kernel_decomposed(k0);
  for (size_t i = 0; i < k0->param_count; ++i) {
    const tkrt_triton_param_t* p = &k0->params[i];
    count += 1;
    if (p->kind != TKRT_PARAM_TMA) continue;
    count += (decomposed ? 4 : 2) * (size_t)p->desc_rank + (decomposed ? 1 : 0);
    for (size_t v = 0; v < d.variant_count; ++v) {
      const tkrt_triton_kernel_t* k = d.variants[v].kernel;
      if (tkrt_triton_kernel_decomposed(k) != decomposed) {
        return TKRT_STATUS_MAKE(
            TKRT_STATUS_INVALID_ARGUMENT,
            "variant %zu of '%s': parameter '%s' (%s) is a tensor descriptor that Triton %s TMA "
            "(tensordesc_meta %s) but %s in variant 0; the variants must pass it alike",
            v, kernel_name, p->name, p->type, decomposed ? "lowered to" : "did not lower to",
            decomposed ? "given" : "empty", decomposed ? "not" : "did");
      }
      if (decomposed) continue;
      if (descriptors >= k->desc_meta_count ||
          memcmp(&k->desc_meta[descriptors], &k0->desc_meta[descriptors],
                 sizeof(k->desc_meta[0])) != 0) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "variant %zu of '%s': the tensordesc_meta of parameter '%s' differs "
                                "from variant 0's",
                                v, kernel_name, p->name);
      }
    }
    ++descriptors;
  }
  tkrt_param_t* params = calloc(count ? count : 1, sizeof(*params));
  tkrt_config_desc_t* configs = calloc(d.variant_count, sizeof(*configs));
  tkrt_alias_t* aliases = calloc(d.inout_count ? d.inout_count : 1, sizeof(*aliases));
  char(*labels)[200] = calloc(d.variant_count, sizeof(*labels));
  tkrt_grid_name_t* names = calloc(TKRT_GRID_NAMES_MAX, sizeof(*names));
  tkrt_status_t status = NULL;
  if (!params || !configs || !aliases || !labels || !names) {
    status = TKRT_OOM();
    goto done;
  }
  size_t scalar_names = 0;
  const tkrt_triton_param_t* names_full = NULL;
  size_t at = 0;
  descriptors = 0;
  char marker[sizeof(kTkrtDecomposedMark) + 300];
  size_t marker_size = 0;
  for (size_t i = 0; i < k0->param_count && !status; ++i) {
    const tkrt_triton_param_t* p = &k0->params[i];
    if (p->is_pointer) {
      params[at].kind = TKRT_PARAM_ARRAY;
      params[at++].value.array.ptr_divisibility = p->divisibility > 1 ? p->divisibility : 0;
      continue;
    }
    if (p->kind == TKRT_PARAM_TMA && decomposed) {
      at += tkrt_triton_decomposed_params(p, &params[at]);
      if (!marker_size) {
        int n = snprintf(marker, sizeof(marker), "%sparameter %zu '%s' (%s)", kTkrtDecomposedMark,
                         i, p->name, p->type);
        marker_size = n < 0 ? 0 : (size_t)n < sizeof(marker) ? (size_t)n : sizeof(marker) - 1;
      }
      continue;
    }
    if (p->kind == TKRT_PARAM_TMA) {
      tkrt_triton_tma_param(p, &k0->desc_meta[descriptors++], &params[at], &params[at + 1]);
      at += 1 + 2 * (size_t)p->desc_rank;
      continue;
    }
    const tkrt_triton_scalar_t* given = NULL;
    for (size_t s = 0; s < d.scalar_count && !given; ++s) {
      if (strcmp(d.scalars[s].name, p->name) == 0) given = &d.scalars[s];
    }
    static const tkrt_triton_scalar_t kZero = {NULL, false, 0, 0.0};
    if (!given && !allow_missing) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "kernel '%s': no value for scalar parameter %zu '%s' (%s)",
                                kernel_name, i, p->name, p->type);
      break;
    }
    status = tkrt_triton_bind_scalar(p, given ? given : &kZero,
                                     tkrt_triton_desc_unsigned(&d, p->name), &params[at++]);
    if (!status && given && !given->is_float && scalar_names == TKRT_GRID_NAMES_MAX - 2) {
      if (!names_full) names_full = p; /* refused below if a variant's grid is an expression */
    } else if (!status && given && !given->is_float) {
      names[scalar_names].name = p->name;
      names[scalar_names].length = strlen(p->name);
      names[scalar_names].value = given->i;
      scalar_names++;
    }
  }
  if (status) goto done;

  for (size_t a = 0; a < d.inout_count; ++a) {
    long index = tkrt_triton_kernel_find_param(k0, d.inout[a]);
    if (index < 0 || !k0->params[index].is_pointer) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "in-place parameter '%s' is not a pointer parameter of '%s'",
                                d.inout[a] ? d.inout[a] : "(null)", kernel_name);
      goto done;
    }
    uint64_t ordinal = 0;
    /* Its buffer: pointers and descriptors take one each. */
    for (long i = 0; i < index; ++i) {
      ordinal += k0->params[i].is_pointer || k0->params[i].kind == TKRT_PARAM_TMA;
    }
    for (size_t b = 0; b < a; ++b) {
      if (aliases[b].input_index == ordinal) {
        status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "in-place parameter '%s' is listed twice",
                                  d.inout[a]);
        goto done;
      }
    }
    aliases[a].input_index = ordinal;
    aliases[a].output_index = a;
    aliases[a].size_bytes = 0;
  }

  for (size_t v = 0; v < d.variant_count; ++v) {
    const tkrt_triton_variant_t* variant = &d.variants[v];
    tkrt_config_desc_t* config = &configs[v];
    config->kernel = variant->kernel->kernel;
    config->params = params;
    config->param_count = count;
    if (variant->grid && names_full) {
      status = tkrt_triton_grid_names_full(kernel_name, names_full);
      goto done;
    }
    if (variant->grid) {
      size_t name_count = scalar_names;
      names[name_count++] = (tkrt_grid_name_t){"num_warps", 9, variant->kernel->num_warps, 0, 0};
      names[name_count++] = (tkrt_grid_name_t){"num_stages", 10, variant->kernel->num_stages, 0, 0};
      status = tkrt_triton_bind_constants(variant, names, &name_count);
      if (!status) status = tkrt_grid_evaluate(variant->grid, names, name_count, config->grid);
      if (status) {
        status = tkrt_status_annotate(status, "variant %zu of '%s'", v, kernel_name);
        goto done;
      }
    } else {
      /* No expression to bind them to, but a constant the kernel knows another value of is still
       * a mistake to name. */
      size_t name_count = scalar_names;
      status = tkrt_triton_bind_constants(variant, names, &name_count);
      if (status) {
        status = tkrt_status_annotate(status, "variant %zu of '%s'", v, kernel_name);
        goto done;
      }
      memcpy(config->grid, variant->grid_dims, sizeof(config->grid));
    }
    if (variant->description) {
      config->description = variant->description;
    } else {
      snprintf(labels[v], sizeof(labels[v]), "%s%snum_warps=%u num_stages=%u",
               variant->constants ? variant->constants : "", variant->constants ? " " : "",
               variant->kernel->num_warps, variant->kernel->num_stages);
      config->description = labels[v];
    }
  }

  tkrt_call_desc_t call;
  tkrt_call_desc_init(&call);
  call.name = d.name ? d.name : kernel_name;
  call.autotuned = d.variant_count > 1;
  call.autotune_name = call.autotuned ? call.name : NULL;
  call.configs = configs;
  call.config_count = d.variant_count;
  call.aliases = d.inout_count ? aliases : NULL;
  call.alias_count = d.inout_count;
  if (marker_size) {
    call.metadata = marker;
    call.metadata_size = marker_size;
  }
  status = tkrt_call_create(&call, out_call);

done:
  free(params);
  free(configs);
  free(aliases);
  free(labels);
  free(names);
  return status;
}

tkrt_status_t tkrt_triton_call_launch(tkrt_call_t* call, tkrt_device_t* device,
                                      tkrt_stream_t stream, const tkrt_buffer_t* buffers,
                                      size_t buffer_count, tkrt_autotuner_t* tuner) {
  if (!call || !device || (buffer_count && !buffers)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_triton_call_launch: NULL argument");
  }
  const tkrt_call_desc_t* desc = tkrt_call_get_desc(call);
  const tkrt_config_desc_t* config = &desc->configs[0];
  TKRT_RETURN_IF_ERROR(tkrt_triton_refuse_descriptors(desc, desc->name ? desc->name : ""));
  size_t pointers = 0;
  for (size_t i = 0; i < config->param_count; ++i) {
    pointers += config->params[i].kind == TKRT_PARAM_ARRAY;
  }
  if (buffer_count != pointers) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "kernel '%s' has %zu pointer parameters but %zu buffers were given",
                            tkrt_kernel_get_desc(config->kernel)->name, pointers, buffer_count);
  }
  size_t total = pointers + desc->alias_count;
  tkrt_buffer_t stack[TKRT_STACK_BUFFERS];
  tkrt_buffer_t* list = total <= TKRT_STACK_BUFFERS ? stack : malloc(total * sizeof(*list));
  if (!list) return TKRT_OOM();
  if (pointers) memcpy(list, buffers, pointers * sizeof(*list));
  for (size_t a = 0; a < desc->alias_count; ++a) {
    uint64_t input = desc->aliases[a].input_index;
    if (input >= pointers) {
      if (list != stack) free(list);
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "alias record %zu names buffer %llu of %zu: the call was not made by "
                              "tkrt_triton_call_create",
                              a, (unsigned long long)input, pointers);
    }
    list[pointers + a] = buffers[input];
  }
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  args.device = device;
  args.stream = stream;
  args.buffers = list;
  args.input_count = pointers;
  args.output_count = desc->alias_count;
  args.tuner = tuner;
  tkrt_status_t status = tkrt_call_launch(call, &args);
  if (list != stack) free(list);
  return status;
}

