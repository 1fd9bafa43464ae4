/* tkrt command-line tool: dispatch to the subcommands, and the helpers they share (errors,
 * files, loading calls, JSON strings). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "tools/tkrt_cli.h"

static const char kUsage[] =
    "usage: tkrt <command> [options]\n"
    "\n"
    "Inspect, replay, tune and benchmark serialized Triton kernel calls (jaxlib's\n"
    "TritonAnyKernelCall, zlib-compressed or raw) on CUDA, HIP or the host CPU.\n"
    "\n"
    "commands:\n"
    "  info   list backends and devices, or describe a kernel image (--image FILE)\n"
    "  dump   print a decoded call (--json for every field)\n"
    "  run    launch a call on real buffers, compare outputs, time it\n"
    "  tune   benchmark every config of an autotuned call and store the decision\n"
    "\n"
    "`tkrt <command> --help` describes each command; `tkrt help triton` how info, run and tune\n"
    "take Triton's own compile output (<name>.json with its cubin / PTX / HSACO).\n"
    "exit status: 0 success, 1 outputs differ from the expected ones, 2 bad usage,\n"
    "3 an error (message on stderr, with its status code).\n"
    "environment: TKRT_BACKEND (backend order), TKRT_TUNE_DIR / TKRT_TUNE_PIN /\n"
    "TKRT_TUNE_POLICY (tuning decisions), TKRT_CACHE_DIR (CUDA PTX cache), TKRT_LOG=1.\n";

/* Writes text with every control byte and every byte outside ASCII as \xNN: blob strings (kernel
 * names, descriptions) reach the terminal through here and through error messages, and must not
 * be able to send it escape sequences. */
void tkrt_cli_print_text(FILE* out, const char* text) {
  for (const unsigned char* p = (const unsigned char*)text; p && *p; ++p) {
    if (*p < 0x20 || *p >= 0x7f || *p == '\\') {
      fprintf(out, *p == '\\' ? "\\\\" : "\\x%02x", *p);
    } else {
      fputc(*p, out);
    }
  }
}

int tkrt_cli_fail(const char* command, tkrt_status_t status) {
  char* text = tkrt_status_to_string(status);
  fflush(stdout); /* what was printed before the error stays before it when both are piped */
  fprintf(stderr, "tkrt %s: ", command);
  tkrt_cli_print_text(stderr, text ? text : "out of memory");
  fputc('\n', stderr);
  free(text);
  tkrt_status_free(status);
  return TKRT_CLI_ERROR;
}

int tkrt_cli_usage_error(const char* command, const char* format, ...) {
  fflush(stdout);
  fprintf(stderr, "tkrt %s: ", command);
  va_list args;
  va_start(args, format);
  vfprintf(stderr, format, args);
  va_end(args);
  fprintf(stderr, "\n(see `tkrt %s --help`)\n", command);
  return TKRT_CLI_USAGE;
}

bool tkrt_cli_is_directory(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

tkrt_status_t tkrt_cli_read_file(const char* path, size_t max_size, void** out_data,
                                 size_t* out_size) {
  return tkrt_fs_read_file(path, max_size, 0, out_data, out_size);
}

tkrt_status_t tkrt_cli_write_file(const char* dir, const char* name, const void* data,
                                  size_t size) {
  tkrt_fs_piece_t piece = {data, size};
  return tkrt_fs_write_file_atomic(dir, name, &piece, 1, 0644);
}

tkrt_status_t tkrt_cli_load_call(const char* path, bool read_hsaco_paths,
                                 tkrt_call_t** out_call) {
  char resolved[4096];
  const char* file = path;
  if (tkrt_cli_is_directory(path)) {
    struct stat st;
    snprintf(resolved, sizeof(resolved), "%s/call.pb.z", path);
    if (stat(resolved, &st) != 0) snprintf(resolved, sizeof(resolved), "%s/call.pb", path);
    file = resolved;
  }
  void* bytes = NULL;
  size_t size = 0;
  TKRT_RETURN_IF_ERROR(tkrt_cli_read_file(file, TKRT_WIRE_DEFAULT_MESSAGE_SIZE, &bytes, &size));
  tkrt_wire_decode_options_t options;
  tkrt_wire_decode_options_init(&options);
  options.read_hsaco_files = read_hsaco_paths;
  tkrt_status_t status = tkrt_wire_decode(bytes, size, &options, out_call);
  free(bytes);
  if (status && !read_hsaco_paths && tkrt_status_code(status) == TKRT_STATUS_FAILED_PRECONDITION &&
      strstr(tkrt_status_message(status), "HSACO")) {
    status = tkrt_status_annotate(status, "decoding %s (the CLI reads files named in a call only "
                                  "with --read-hsaco-paths)", file);
    return status;
  }
  return tkrt_status_annotate(status, "decoding %s", file);
}

void tkrt_cli_json_bytes_as_string(FILE* out, const void* data, size_t size) {
  const unsigned char* p = data;
  fputc('"', out);
  for (size_t i = 0; i < size; ++i) {
    unsigned char c = p[i];
    if (c == '"' || c == '\\') {
      fprintf(out, "\\%c", c);
    } else if (c == '\n') {
      fputs("\\n", out);
    } else if (c == '\t') {
      fputs("\\t", out);
    } else if (c < 0x20 || c >= 0x7f) {
      fprintf(out, "\\u%04x", c); /* bytes, not UTF-8: each byte as its own code point */
    } else {
      fputc(c, out);
    }
  }
  fputc('"', out);
}

void tkrt_cli_json_string(FILE* out, const char* text) {
  if (!text) {
    fputs("null", out);
    return;
  }
  tkrt_cli_json_bytes_as_string(out, text, strlen(text));
}

int main(int argc, char** argv) {
  int triton = argc >= 2 ? tkrt_cli_triton_dispatch(argc - 1, argv + 1) : -1;
  if (triton >= 0) return triton;
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? TKRT_CLI_USAGE : TKRT_CLI_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("tkrt %s\n", TKRT_VERSION_STRING);
    return TKRT_CLI_OK;
  }
  static const struct {
    const char* name;
    int (*run)(int, char**);
  } commands[] = {{"info", tkrt_cli_info},
                  {"dump", tkrt_cli_dump},
                  {"run", tkrt_cli_run},
                  {"tune", tkrt_cli_tune}};
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); ++i) {
    if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
  }
  fprintf(stderr, "tkrt: unknown command '%s'\n\n%s", argv[1], kUsage);
  return TKRT_CLI_USAGE;
}
