/* tkrt command-line tool: shared helpers for the subcommands (info, dump, run, tune).
 * Exit codes: 0 success, 1 a check failed (outputs differ), 2 bad usage, 3 a tkrt error. */
#ifndef TKRT_TOOLS_TKRT_CLI_H_
#define TKRT_TOOLS_TKRT_CLI_H_

#include <stdbool.h>
#include <stddef.h>
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
/* Reads a whole file (NOT_FOUND / PERMISSION_DENIED / ... naming the path on failure). */
tkrt_status_t tkrt_cli_read_file(const char* path, void** out_data, size_t* out_size);
tkrt_status_t tkrt_cli_write_file(const char* path, const void* data, size_t size);
/* Decodes a serialized call: a file (zlib or raw TritonAnyKernelCall) or a case directory
 * holding call.pb.z or call.pb. */
tkrt_status_t tkrt_cli_load_call(const char* path, tkrt_call_t** out_call);
/* True when `path` is a directory. */
bool tkrt_cli_is_directory(const char* path);
/* JSON string output with escapes. */
void tkrt_cli_json_string(FILE* out, const char* text);
void tkrt_cli_json_bytes_as_string(FILE* out, const void* data, size_t size);

int tkrt_cli_info(int argc, char** argv);
int tkrt_cli_dump(int argc, char** argv);
int tkrt_cli_run(int argc, char** argv);
int tkrt_cli_tune(int argc, char** argv);
/* Triton's compile output (tkrt_triton.c): handles argv when it names one, else returns -1. */
int tkrt_cli_triton_dispatch(int argc, char** argv);

#endif /* TKRT_TOOLS_TKRT_CLI_H_ */
