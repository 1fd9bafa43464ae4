/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the grid evaluator (triton/triton_call.c, tkrt_triton_grid_eval: a Triton
 * variant's grid expression such as "cdiv(n, BLOCK), 1", with its "NAME=INT,..." bindings; both
 * come from users, the CLI's --grid/--const and Python). The input is the expression, then a NUL
 * and the bindings (none without a NUL). Checks: no crash, leak or undefined behaviour (signed
 * overflow must be refused, not wrapped: UBSan aborts); a refusal is INVALID_ARGUMENT or
 * OUT_OF_RANGE; evaluation is deterministic, leaves the output alone when it fails, and an
 * expression with no names gives the same grid with or without bindings. Grid programs
 * (triton/triton_internal.h, what bound launches run per launch): the bindings are split, every
 * other one becoming a variable whose value is given at the run and the rest staying constants
 * folded at compilation; the program then succeeds exactly when tkrt_triton_grid_eval does, with
 * the same grid (a refusal may differ in code where evaluation order differs: a variable's
 * overflow is found at the run, a constant's at compilation), and a refusal is INVALID_ARGUMENT
 * or OUT_OF_RANGE. Seeds: test/fuzz/corpus_grid. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>

#include "tkrt/triton.h"
#include "triton/triton_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#define GRID_FUZZ_NAMES 64

static int refusal(tkrt_status_t status) {
  tkrt_status_code_t code = tkrt_status_code(status);
  return code == TKRT_STATUS_INVALID_ARGUMENT || code == TKRT_STATUS_OUT_OF_RANGE;
}

/* Compiles `expression` with the bindings split into variables and constants and compares the
 * run with tkrt_triton_grid_eval's answer (`status`, `grid`). Bindings it cannot split plainly
 * ("NAME=INT" with an identifier and a whole strtoll integer) are left to the evaluator alone. */
static void compare_program(const char* expression, const char* bindings, tkrt_status_t status,
                            const uint32_t grid[3]) {
  if (!bindings) bindings = "";
  size_t length = strlen(bindings);
  if (length > 4096) return;
  char* copy = malloc(length + 1);
  char* constants = malloc(length + 2);
  if (!copy || !constants) {
    free(copy);
    free(constants);
    return;
  }
  memcpy(copy, bindings, length + 1);
  constants[0] = '\0';
  size_t constants_used = 0;
  const char* names[GRID_FUZZ_NAMES];
  int64_t values[GRID_FUZZ_NAMES];
  size_t count = 0, items = 0;
  int plain = 1;
  char* save = NULL;
  for (char* item = strtok_r(copy, ",", &save); item && plain; item = strtok_r(NULL, ",", &save)) {
    while (*item == ' ' || *item == '\t') ++item;
    if (!*item) continue;
    char* eq = strchr(item, '=');
    if (!eq || eq == item) {
      plain = 0;
      break;
    }
    *eq = '\0';
    char* name_end = eq;
    while (name_end > item && name_end[-1] == ' ') *--name_end = '\0';
    if (!(isalpha((unsigned char)item[0]) || item[0] == '_')) plain = 0;
    for (const char* c = item; *c && plain; ++c) plain = isalnum((unsigned char)*c) || *c == '_';
    char* value_text = eq + 1;
    while (*value_text == ' ') ++value_text;
    errno = 0;
    char* end = NULL;
    long long value = strtoll(value_text, &end, 0);
    while (end && *end == ' ') ++end;
    if (!plain || end == value_text || errno || (end && *end)) {
      plain = 0;
      break;
    }
    if (items++ % 2 == 0 && count < GRID_FUZZ_NAMES) {
      names[count] = item;
      values[count++] = (int64_t)value;
    } else {
      int n = snprintf(constants + constants_used, length + 2 - constants_used, "%s%s=%lld",
                       constants_used ? "," : "", item, value);
      if (n < 0 || (size_t)n >= length + 2 - constants_used) plain = 0;
      else constants_used += (size_t)n;
    }
  }
  if (plain) {
    tkrt_triton_grid_program_t* program = NULL;
    tkrt_status_t compiled =
        tkrt_triton_grid_compile(expression, names, count, constants, &program);
    uint32_t ran[3] = {3, 3, 3};
    tkrt_status_t run = NULL;
    if (!compiled) {
      if (tkrt_triton_grid_value_count(program) > count) abort();
      run = tkrt_triton_grid_run(program, values, count, ran);
      if (run && (ran[0] != 3 || ran[1] != 3 || ran[2] != 3)) abort();
      /* Deterministic, and the same from a second run. */
      uint32_t again[3] = {4, 4, 4};
      tkrt_status_t second = tkrt_triton_grid_run(program, values, count, again);
      if ((run == NULL) != (second == NULL)) abort();
      if (!run && memcmp(ran, again, sizeof(ran)) != 0) abort();
      tkrt_status_free(second);
    }
    tkrt_status_t mine = compiled ? compiled : run;
    if ((mine == NULL) != (status == NULL)) abort();
    if (mine && !refusal(mine)) abort();
    if (!mine && memcmp(ran, grid, sizeof(ran)) != 0) abort();
    tkrt_status_free(compiled);
    tkrt_status_free(run);
    tkrt_triton_grid_program_free(program);
  }
  free(copy);
  free(constants);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* text = malloc(size + 2);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = text[size + 1] = '\0';
  const char* expression = text;
  size_t split = strlen(text);
  const char* bindings = split < size ? text + split + 1 : NULL;
  uint32_t grid[3] = {7, 7, 7};
  tkrt_status_t status = tkrt_triton_grid_eval(expression, bindings, grid);
  uint32_t again[3] = {9, 9, 9};
  tkrt_status_t second = tkrt_triton_grid_eval(expression, bindings, again);
  if ((status == NULL) != (second == NULL)) abort();
  if (status) {
    tkrt_status_code_t code = tkrt_status_code(status);
    if (code != TKRT_STATUS_INVALID_ARGUMENT && code != TKRT_STATUS_OUT_OF_RANGE) abort();
    if (grid[0] != 7 || grid[1] != 7 || grid[2] != 7) abort();
    if (code != tkrt_status_code(second)) abort();
  } else if (memcmp(grid, again, sizeof(grid)) != 0) {
    abort();
  }
  compare_program(expression, bindings, status, grid);
  tkrt_status_free(status);
  tkrt_status_free(second);
  /* Without bindings: a name is unknown, otherwise the same result. */
  if (!status && bindings) {
    uint32_t bare[3] = {5, 5, 5};
    tkrt_status_t alone = tkrt_triton_grid_eval(expression, NULL, bare);
    if (!alone && memcmp(grid, bare, sizeof(grid)) != 0) abort();
    if (alone && tkrt_status_code(alone) != TKRT_STATUS_INVALID_ARGUMENT) abort();
    tkrt_status_free(alone);
  }
  free(text);
  return 0;
}
