/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the case.json reader (tools/tkrt_run_options.c, tkrt_cli_resolve_case: a
 * case folder's case.json, which whoever made the case wrote). Each input is written as the
 * case.json of a scratch folder that also holds in0.bin (16 bytes), in1.bin (4), out0.bin (16),
 * x.bin (8), a symbolic link and a FIFO, and resolved as `tkrt run FOLDER` would. An input whose
 * first byte is 0xF0..0xFF (never the start of JSON text) stands for flags given beside the case
 * in its low bits (1: --dtype f16, 2: --in, 4: --alias, 8: --rtol), the rest being the file; any
 * other input is the file, with no flags. Checks: no crash or leak; a refusal names the case.json (or is
 * RESOURCE_EXHAUSTED); a resolved case lists at most TKRT_CLI_MAX_BUFFERS inputs and outputs, all
 * files in the folder, has no output aliased twice, and has a comparison for every output with
 * tolerances >= 0. Seeds: the vectors' and examples' case.json files and test/fuzz/corpus_case. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/tkrt_cli.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static char g_folder[4096];
static char g_case[4200];

static void write_file(const char* name, const void* data, size_t size) {
  char path[4200];
  snprintf(path, sizeof(path), "%s/%s", g_folder, name);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) abort();
  if (size && write(fd, data, size) != (ssize_t)size) abort();
  close(fd);
}

static void remove_folder(void) {
  static const char* const names[] = {"case.json", "in0.bin", "in1.bin", "out0.bin",
                                      "x.bin",     "link.bin", "fifo.bin"};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", g_folder, names[i]);
    unlink(path);
  }
  rmdir(g_folder);
}

static void make_folder(void) {
  const char* tmp = getenv("TMPDIR");
  snprintf(g_folder, sizeof(g_folder), "%s/tkrt_case_fuzz_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(g_folder)) abort();
  snprintf(g_case, sizeof(g_case), "%s/case.json", g_folder);
  static const uint8_t bytes[16] = {0};
  write_file("in0.bin", bytes, 16);
  write_file("in1.bin", bytes, 4);
  write_file("out0.bin", bytes, 16);
  write_file("x.bin", bytes, 8);
  char path[4200];
  snprintf(path, sizeof(path), "%s/link.bin", g_folder);
  if (symlink("in0.bin", path) != 0) abort();
  snprintf(path, sizeof(path), "%s/fifo.bin", g_folder);
  if (mkfifo(path, 0600) != 0) abort();
  atexit(remove_folder);
}

static int in_folder(const char* path) {
  size_t n = strlen(g_folder);
  return path && strncmp(path, g_folder, n) == 0 && path[n] == '/' && !strchr(path + n + 1, '/') &&
         strcmp(path + n + 1, ".") != 0 && strcmp(path + n + 1, "..") != 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!g_folder[0]) make_folder();
  unsigned flags = 0;
  if (size && data[0] >= 0xF0) {
    flags = data[0] & 0x0F;
    ++data;
    --size;
  }
  write_file("case.json", data, size);
  tkrt_run_options_t options;
  tkrt_cli_run_options_init(&options, 0);
  options.path = g_folder;
  if (flags & 1) options.dtype = "f16";
  if (flags & 2) options.inputs[options.input_count++] = "flag_input.bin";
  if (flags & 4) {
    options.alias_in[0] = 0;
    options.alias_out[0] = 0;
    options.alias_count = 1;
    options.aliases_given = 1;
  }
  if (flags & 8) {
    options.rtol = 0.5;
    options.rtol_given = 1;
  }
  tkrt_status_t status = tkrt_cli_resolve_case(&options);
  if (status) {
    if (tkrt_status_code(status) != TKRT_STATUS_RESOURCE_EXHAUSTED &&
        !strstr(tkrt_status_message(status), g_case)) {
      abort();
    }
    tkrt_status_free(status);
    tkrt_cli_run_options_free(&options);
    return 0;
  }
  if (options.input_count > TKRT_CLI_MAX_BUFFERS || options.expect_count > TKRT_CLI_MAX_BUFFERS ||
      options.alias_count > TKRT_CLI_MAX_BUFFERS) {
    abort();
  }
  for (size_t i = (flags & 2) ? 1 : 0; i < options.input_count; ++i) {
    if (!in_folder(options.inputs[i])) abort();
  }
  for (size_t i = 0; i < options.expect_count; ++i) {
    if (!in_folder(options.expects[i])) abort();
  }
  for (size_t i = 0; i < options.alias_count; ++i) {
    if (options.alias_in[i] >= TKRT_CLI_MAX_BUFFERS || options.alias_out[i] >= TKRT_CLI_MAX_BUFFERS)
      abort();
    for (size_t j = i + 1; j < options.alias_count; ++j) {
      if (options.alias_out[i] == options.alias_out[j]) abort();
    }
  }
  for (size_t i = 0; i < TKRT_CLI_MAX_BUFFERS; ++i) {
    const tkrt_cli_compare_t* compare = &options.compare[i];
    if (!(compare->rtol >= 0) || !(compare->atol >= 0) || !compare->what) abort();
    if ((flags & 8) && compare->rtol != 0.5) abort(); /* the flag wins */
    if ((flags & 1) && strcmp(compare->dtype, "f16") != 0) abort();
  }
  if (options.case_file && strcmp(options.case_file, g_case) != 0) abort();
  tkrt_cli_run_options_free(&options);
  return 0;
}
