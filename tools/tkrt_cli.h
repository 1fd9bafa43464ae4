/* tkrt command-line tool: shared helpers for the subcommands (info, dump, run, tune).
 * Exit codes: 0 success, 1 a check failed (outputs differ), 2 bad usage, 3 a tkrt error. */
#ifndef TKRT_TOOLS_TKRT_CLI_H_
#define TKRT_TOOLS_TKRT_CLI_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tkrt/tkrt.h"
#include "tkrt/wire.h"

enum {
  TKRT_CLI_OK = 0,
  TKRT_CLI_MISMATCH = 1,
  TKRT_CLI_USAGE = 2,
  TKRT_CLI_ERROR = 3,
};

/* Prints "tkrt <command>: CODE: message (file:line)" to stderr, frees the status, returns 3. */
int tkrt_cli_fail(const char* command, tkrt_status_t status);
/* Prints "tkrt <command>: <message>" and a hint to use --help; returns 2. */
int tkrt_cli_usage_error(const char* command, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
/* Reads a whole regular file of at most max_size bytes without blocking (base/fs.h:
 * tkrt_fs_read_file; NOT_FOUND / PERMISSION_DENIED / INVALID_ARGUMENT for a FIFO or a folder /
 * OUT_OF_RANGE for a file over the limit, naming the path). */
tkrt_status_t tkrt_cli_read_file(const char* path, size_t max_size, void** out_data,
                                 size_t* out_size);
/* Writes dir/name atomically (a temporary file renamed over it; nothing left on failure). */
tkrt_status_t tkrt_cli_write_file(const char* dir, const char* name, const void* data,
                                  size_t size);
/* Decodes a serialized call: a file (zlib or raw TritonAnyKernelCall) or a case directory
 * holding call.pb.z or call.pb. Files named in the call (ROCm HSACO paths) are read only when
 * read_hsaco_paths is set (--read-hsaco-paths). */
tkrt_status_t tkrt_cli_load_call(const char* path, bool read_hsaco_paths, tkrt_call_t** out_call);
/* Prints text with control and non-ASCII bytes escaped (\xNN): for strings from a call. */
void tkrt_cli_print_text(FILE* out, const char* text);
/* True when `path` is a directory. */
bool tkrt_cli_is_directory(const char* path);
/* JSON string output with escapes. */
void tkrt_cli_json_string(FILE* out, const char* text);
void tkrt_cli_json_bytes_as_string(FILE* out, const void* data, size_t size);

/* ---------------------------------------------------------------- run / tune options */

#define TKRT_CLI_MAX_BUFFERS 64

typedef struct tkrt_run_options {
  const char* command;
  const char* path;
  const char* inputs[TKRT_CLI_MAX_BUFFERS];
  size_t input_count;
  const char* expects[TKRT_CLI_MAX_BUFFERS];
  size_t expect_count;
  uint64_t out_sizes[TKRT_CLI_MAX_BUFFERS];
  size_t out_size_count;
  size_t alias_in[TKRT_CLI_MAX_BUFFERS], alias_out[TKRT_CLI_MAX_BUFFERS];
  size_t alias_count;
  int aliases_given;
  double rtol, atol;
  int tolerant;
  const char* dtype;
  const char* backend;
  int ordinal;
  long iterations;
  const char* store;
  const char* policy;
  long pin;
  const char* save_dir;
  double target_ms;
  long max_iterations;
  int allow_native_code; /* --allow-native-code */
  int read_hsaco_paths;  /* --read-hsaco-paths */
  int tune;
} tkrt_run_options_t;

void tkrt_cli_run_options_init(tkrt_run_options_t* options, int tune);
/* Parses `tkrt run|tune` arguments (argv[0] is the command). Returns 0 when parsed, -1 after
 * printing --help, or TKRT_CLI_USAGE after printing the problem. A case folder's in<i>.bin and
 * out<i>.bin fill the inputs and expected outputs not given explicitly. */
int tkrt_cli_parse_run_options(int argc, char** argv, tkrt_run_options_t* options);

int tkrt_cli_info(int argc, char** argv);
int tkrt_cli_dump(int argc, char** argv);
int tkrt_cli_run(int argc, char** argv);
int tkrt_cli_tune(int argc, char** argv);
/* Triton's compile output (tkrt_triton.c): handles argv when it names one, else returns -1. */
int tkrt_cli_triton_dispatch(int argc, char** argv);

#endif /* TKRT_TOOLS_TKRT_CLI_H_ */
