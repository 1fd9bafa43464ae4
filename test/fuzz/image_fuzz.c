/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the image inspector (tkrt_image_inspect: PTX, cubin, fatbin, HSACO and host
 * ELF parsing). Beyond "no crash, no leak": a success names a known kind and NUL-terminated text,
 * and an error carries one of the codes the inspector documents. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tkrt/image.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tkrt_image_info_t info; /* large: not on the fuzzer's stack */
  memset(&info, 0, sizeof(info));
  info.struct_size = sizeof(info);
  tkrt_status_t status = tkrt_image_inspect(data, size, &info);
  if (status) {
    tkrt_status_code_t code = tkrt_status_code(status);
    if (code != TKRT_STATUS_INVALID_ARGUMENT && code != TKRT_STATUS_UNIMPLEMENTED &&
        code != TKRT_STATUS_RESOURCE_EXHAUSTED && code != TKRT_STATUS_OUT_OF_RANGE) {
      fprintf(stderr, "image_fuzz: unexpected code %d: %s\n", (int)code,
              tkrt_status_message(status));
      abort();
    }
    tkrt_status_free(status);
    return 0;
  }
  if (info.kind < TKRT_IMAGE_PTX || info.kind > TKRT_IMAGE_HOST ||
      !memchr(info.target, '\0', sizeof(info.target))) {
    fprintf(stderr, "image_fuzz: success with kind %d or an unterminated target\n", (int)info.kind);
    abort();
  }
  return 0;
}
