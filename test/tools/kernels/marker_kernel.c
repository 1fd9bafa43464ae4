/* SPDX-License-Identifier: Apache-2.0 */
/* A host image that announces its loading: its constructor creates the file named by
 * TKRT_TEST_MARKER. The consent tests (test/tools/trust_cli_test.sh) check that this file never
 * appears unless native code from the call was allowed. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "tkrt/host_kernel.h"

__attribute__((constructor)) static void marker_announce(void) {
  const char* path = getenv("TKRT_TEST_MARKER");
  if (!path || !*path) return;
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0) {
    (void)!write(fd, "loaded\n", 7);
    close(fd);
  }
}

/* out[i] = in[i] for each program i. */
TKRT_HOST_KERNEL(marker_copy, "*u8,*u8") {
  const uint8_t* in = TKRT_HOST_PARAM(const uint8_t*, 0);
  uint8_t* out = TKRT_HOST_PARAM(uint8_t*, 1);
  out[program->pid[0]] = in[program->pid[0]];
}
