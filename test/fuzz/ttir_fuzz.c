/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the TTIR signature scanner (triton/triton_ttir.c,
 * tkrt_triton_parse_signature: the parameter list of `tt.func public @name(...)` in a Triton
 * folder's .ttir, a file anyone who can write the folder or cache wrote). Each input is scanned
 * three times: for any public function, and for "add_kernel" and "matmul_kernel" as the loader
 * asks for the JSON's name; the text is NUL-terminated as the loader reads files.
 * Checks: no crash or leak; a refusal is INVALID_ARGUMENT, NOT_FOUND, UNIMPLEMENTED or
 * RESOURCE_EXHAUSTED, naming the file; a parsed signature has at most 1024 parameters, each with
 * a non-empty name of name characters, a type, and a kind and sizes that agree with its type; a
 * tensor descriptor (kind TMA, type "tensordesc<...>") has a rank of 1..5 and block dimensions of
 * 1..65536, other parameters rank 0. Seeds: the Triton vectors' .ttir files (matmul_tma's three
 * descriptors among them) and test/fuzz/corpus_ttir. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "triton/triton_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void scan(const char* text, size_t size, const char* kernel) {
  tkrt_triton_param_t* params = NULL;
  size_t count = 0;
  tkrt_status_t status =
      tkrt_triton_parse_signature(text, size, kernel, "fuzz.ttir", &params, &count);
  if (status) {
    tkrt_status_code_t code = tkrt_status_code(status);
    if ((code != TKRT_STATUS_INVALID_ARGUMENT && code != TKRT_STATUS_NOT_FOUND &&
         code != TKRT_STATUS_UNIMPLEMENTED && code != TKRT_STATUS_RESOURCE_EXHAUSTED) ||
        (code != TKRT_STATUS_RESOURCE_EXHAUSTED &&
         !strstr(tkrt_status_message(status), "fuzz.ttir"))) {
      abort();
    }
    tkrt_status_free(status);
    return;
  }
  if (count > TKRT_TRITON_MAX_PARAMS || (count && !params)) abort();
  for (size_t i = 0; i < count; ++i) {
    const tkrt_triton_param_t* p = &params[i];
    if (!p->name || !p->name[0] || !p->type || !p->type[0]) abort();
    for (const char* c = p->name; *c; ++c) {
      if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
            *c == '_' || *c == '$' || *c == '.' || *c == '-')) {
        abort();
      }
    }
    if (p->is_pointer != (p->kind == TKRT_PARAM_ARRAY)) abort();
    if (p->is_pointer != (p->type[0] == '*')) abort();
    int descriptor = p->kind == TKRT_PARAM_TMA;
    if (descriptor != (strncmp(p->type, "tensordesc<", 11) == 0)) abort();
    if (descriptor != (p->desc_rank != 0) || p->desc_rank > TKRT_TMA_MAX_RANK) abort();
    for (uint32_t d = 0; d < TKRT_TMA_MAX_RANK; ++d) {
      if ((d < p->desc_rank) != (p->desc_block[d] != 0) || p->desc_block[d] > 65536) abort();
    }
    if (!p->is_pointer && (p->element_bytes == 0 || p->element_bytes > 8)) abort();
  }
  tkrt_triton_params_free(params, count);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  scan(text, size, NULL);
  scan(text, size, "add_kernel");
  scan(text, size, "matmul_kernel");
  free(text);
  return 0;
}
