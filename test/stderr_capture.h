/* SPDX-License-Identifier: Apache-2.0 */
/* For tests of what the library prints: redirects stderr (fd 2) to a private temporary file and
 * gives back what was written while it was redirected. One capture at a time per program. */
#ifndef TKRT_TEST_STDERR_CAPTURE_H_
#define TKRT_TEST_STDERR_CAPTURE_H_

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int g_tkrt_saved_stderr = -1;
static char g_tkrt_capture_path[] = "/tmp/tkrt-stderr-XXXXXX";

static bool capture_stderr_begin(void) {
  fflush(stderr);
  int fd = mkstemp(g_tkrt_capture_path);
  if (fd < 0) return false;
  g_tkrt_saved_stderr = dup(2);
  dup2(fd, 2);
  close(fd);
  return true;
}

/* Restores stderr and returns what was written meanwhile (at most 64 KiB; free it). */
static char* capture_stderr_end(void) {
  fflush(stderr);
  dup2(g_tkrt_saved_stderr, 2);
  close(g_tkrt_saved_stderr);
  char* out = calloc(1, 65536);
  FILE* file = fopen(g_tkrt_capture_path, "rb");
  size_t got = out && file ? fread(out, 1, 65535, file) : 0;
  if (out) out[got] = '\0';
  if (file) fclose(file);
  unlink(g_tkrt_capture_path);
  memcpy(g_tkrt_capture_path + strlen(g_tkrt_capture_path) - 6, "XXXXXX", 6);
  return out;
}

#endif /* TKRT_TEST_STDERR_CAPTURE_H_ */
