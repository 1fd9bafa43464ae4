/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the host-image signature reader (triton/triton_hostsig.c,
 * tkrt_triton_host_signature: the signature a <stem>.so beside Triton's output declares for its
 * kernel, read from the ELF bytes without loading them, to compare with the TTIR before dlopen).
 * The bytes come from a folder someone else may have written. Each input is read for the kernels
 * "add_kernel" and "k". Checks: no crash, hang or leak; a refusal is INVALID_ARGUMENT or
 * RESOURCE_EXHAUSTED and names the file; a signature read back is a NUL-terminated copy of
 * bytes of the input (shorter than it; what it says is checked later, against the TTIR). Seeds: test/fuzz/corpus_hostsig (tkrt's add kernel built as a host
 * image, with and without its symbol table). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "triton/triton_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void read_for(const uint8_t* data, size_t size, const char* kernel) {
  char* signature = NULL;
  tkrt_status_t status = tkrt_triton_host_signature(data, size, kernel, "fuzz.so", &signature);
  if (status) {
    tkrt_status_code_t code = tkrt_status_code(status);
    if (code != TKRT_STATUS_INVALID_ARGUMENT && code != TKRT_STATUS_RESOURCE_EXHAUSTED) abort();
    if (code == TKRT_STATUS_INVALID_ARGUMENT && !strstr(tkrt_status_message(status), "fuzz.so")) {
      abort();
    }
    if (signature) abort(); /* nothing is written on an error */
    tkrt_status_free(status);
    return;
  }
  if (!signature) return; /* an image of a machine or ABI the host backend refuses itself */
  size_t length = strlen(signature);
  if (length >= size || !memmem(data, size, signature, length + 1)) abort();
  free(signature);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  read_for(data, size, "add_kernel");
  read_for(data, size, "k");
  return 0;
}
