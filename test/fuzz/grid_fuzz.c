/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the grid evaluator (triton/triton_call.c, tkrt_triton_grid_eval: a Triton
 * variant's grid expression such as "cdiv(n, BLOCK), 1", with its "NAME=INT,..." bindings; both
 * come from users, the CLI's --grid/--const and Python). The input is the expression, then a NUL
 * and the bindings (none without a NUL). Checks: no crash, leak or undefined behaviour (signed
 * overflow must be refused, not wrapped: UBSan aborts); a refusal is INVALID_ARGUMENT or
 * OUT_OF_RANGE; evaluation is deterministic, leaves the output alone when it fails, and an
 * expression with no names gives the same grid with or without bindings. Seeds:
 * test/fuzz/corpus_grid. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tkrt/triton.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

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
