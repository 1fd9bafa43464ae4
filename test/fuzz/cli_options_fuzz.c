/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the option parser of `tkrt run` and `tkrt tune` (tools/tkrt_run_options.c,
 * getopt_long through tkrt_cli_args_next) and the case resolution after it. The input is an
 * argument list: NUL-separated strings; the first byte picks run or tune. Checks: no crash or
 * leak, a return value the parser documents, and parsed options within their limits. A path that
 * names a case folder (e.g. "." or a seed's) also runs tkrt_cli_resolve_case on it. Seeds:
 * test/fuzz/corpus_cli. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tkrt_cli.h"

#define FUZZ_MAX_ARGS 160

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  int tune = data[0] & 1;
  char* copy = malloc(size);
  if (!copy) return 0;
  memcpy(copy, data + 1, size - 1);
  copy[size - 1] = '\0';
  char* argv[FUZZ_MAX_ARGS + 1];
  int argc = 0;
  argv[argc++] = tune ? "tune" : "run";
  for (char* at = copy; at < copy + size - 1 && argc < FUZZ_MAX_ARGS;) {
    argv[argc++] = at;
    at += strlen(at) + 1;
  }
  argv[argc] = NULL;
  tkrt_run_options_t options;
  tkrt_cli_run_options_init(&options, tune);
  int rc = tkrt_cli_parse_run_options(argc, argv, &options);
  if (rc != 0 && rc != -1 && rc != TKRT_CLI_USAGE) abort();
  if (rc == 0) {
    if (!options.path || options.input_count > TKRT_CLI_MAX_BUFFERS ||
        options.expect_count > TKRT_CLI_MAX_BUFFERS || options.alias_count > TKRT_CLI_MAX_BUFFERS ||
        options.session.iterations < 0 || options.session.ordinal < 0 || !(options.rtol >= 0) ||
        !(options.atol >= 0) || (options.rtol_given && options.rtol > 1e300)) {
      abort();
    }
    for (size_t i = 0; i < options.alias_count; ++i) {
      for (size_t j = i + 1; j < options.alias_count; ++j) {
        if (options.alias_out[i] == options.alias_out[j]) abort(); /* conflicts are refused */
      }
    }
    tkrt_status_t status = tkrt_cli_resolve_case(&options);
    if (!status) {
      for (size_t i = 0; i < TKRT_CLI_MAX_BUFFERS; ++i) {
        const tkrt_cli_compare_t* compare = &options.compare[i];
        if (!(compare->rtol >= 0) || !(compare->atol >= 0) || !compare->what) abort();
      }
      if (options.input_count > TKRT_CLI_MAX_BUFFERS ||
          options.expect_count > TKRT_CLI_MAX_BUFFERS) {
        abort();
      }
    }
    tkrt_status_free(status);
    tkrt_cli_run_options_free(&options);
  }
  free(copy);
  return 0;
}
