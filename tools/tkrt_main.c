/* SPDX-License-Identifier: Apache-2.0 */
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
    "  info   list backends and devices, or describe a kernel image (--image FILE); --json\n"
    "  dump   print a decoded call (--json for every field)\n"
    "  run    launch a call on real buffers, compare outputs, time it\n"
    "  tune   benchmark every config of an autotuned call and store the decision\n"
    "\n"
    "`tkrt <command> --help` describes each command; `tkrt help triton` how info, run and tune\n"
    "take Triton's own compile output (<name>.json with its cubin / PTX / HSACO).\n"
    "exit status: 0 success, 1 outputs differ from the expected ones, 2 bad usage,\n"
    "3 an error (message on stderr, with its status code).\n"
    "Options take their value as `--opt value` or `--opt=value`; `--` ends the options.\n"
    "  tkrt --version   print the version; tkrt --help   this text\n"
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

/* Prints the message once more without an annotation that merely repeats what follows it:
 * tkrt_status_annotate prefixes "context: ", and a context naming the same thing as the message
 * it wraps ("kernel 'k': kernel 'k' has no image ...") would say it twice. */
static void print_message(FILE* out, const char* message) {
  for (const char* start = message; start;) {
    for (const char* colon = strstr(start, ": "); colon; colon = strstr(colon + 2, ": ")) {
      size_t length = (size_t)(colon - start);
      const char* rest = colon + 2;
      if (length && strncmp(rest, start, length) == 0 &&
          (rest[length] == ' ' || rest[length] == ':')) {
        char* copy = malloc(strlen(message) + 1);
        if (!copy) break;
        size_t head = (size_t)(start - message);
        memcpy(copy, message, head);
        strcpy(copy + head, rest);
        tkrt_cli_print_text(out, copy);
        free(copy);
        return;
      }
    }
    start = strstr(start, ": ");
    if (start) start += 2;
  }
  tkrt_cli_print_text(out, message);
}

int tkrt_cli_fail(const char* command, tkrt_status_t status) {
  fflush(stdout); /* what was printed before the error stays before it when both are piped */
  fprintf(stderr, "tkrt %s: ", command);
  if (!status) {
    fputs("error without a status\n", stderr);
    return TKRT_CLI_ERROR;
  }
  fprintf(stderr, "%s: ", tkrt_status_code_name(tkrt_status_code(status)));
  print_message(stderr, tkrt_status_message(status));
  fprintf(stderr, " (%s:%d)\n", tkrt_status_file(status), tkrt_status_line(status));
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

void tkrt_cli_args_init(tkrt_cli_args_t* args, int argc, char** argv, const char* command,
                        const struct option* options) {
  memset(args, 0, sizeof(*args));
  args->argc = argc;
  args->argv = argv;
  args->command = command;
  args->options = options;
}

int tkrt_cli_args_next(tkrt_cli_args_t* a) {
  a->value = NULL;
  a->name[0] = '\0';
  if (!a->started) {
    optind = 0; /* glibc: start over (a process may parse more than once: the fuzzer does) */
    opterr = 0; /* tkrt words the errors itself */
    a->started = 1;
  }
  if (a->after_dashes) {
    if (optind >= a->argc) return TKRT_CLI_ARG_END;
    a->value = a->argv[optind++];
    return TKRT_CLI_ARG_OPERAND;
  }
  int before = optind ? optind : 1;
  int index = -1;
  /* "-": operands come back in place (as 1); ":": a missing value is ':', not '?'. */
  int c = getopt_long(a->argc, a->argv, "-:h", a->options, &index);
  if (c == -1) {
    if (optind < a->argc) { /* after "--": the rest are operands */
      a->after_dashes = 1;
      a->value = a->argv[optind++];
      return TKRT_CLI_ARG_OPERAND;
    }
    return TKRT_CLI_ARG_END;
  }
  if (c == 1) {
    a->value = optarg;
    return TKRT_CLI_ARG_OPERAND;
  }
  const char* word = before < a->argc ? a->argv[before] : "";
  size_t length = strcspn(word, "=");
  if (length >= sizeof(a->name)) length = sizeof(a->name) - 1;
  memcpy(a->name, word, length);
  a->name[length] = '\0';
  if (c == ':') {
    tkrt_cli_usage_error(a->command, "%s needs a value", a->name);
    return TKRT_CLI_ARG_BAD;
  }
  if (c == '?') {
    if (optopt && strncmp(word, "--", 2) == 0 && word[length] == '=') {
      tkrt_cli_usage_error(a->command, "%s takes no value (got '%s')", a->name, word + length + 1);
    } else if (optopt > 0 && optopt < TKRT_CLI_OPTION_BASE) {
      tkrt_cli_usage_error(a->command, "unknown option '-%c'", optopt);
    } else {
      tkrt_cli_usage_error(a->command, "unknown option '%s'", a->name);
    }
    return TKRT_CLI_ARG_BAD;
  }
  if (index >= 0 && strcmp(a->name + 2, a->options[index].name) != 0) {
    tkrt_cli_usage_error(a->command, "unknown option '%s' (did you mean --%s? options are not "
                         "abbreviated)", a->name, a->options[index].name);
    return TKRT_CLI_ARG_BAD;
  }
  a->value = optarg;
  return c;
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

tkrt_status_t tkrt_cli_make_folder(const char* dir) { return tkrt_fs_mkdirs(dir); }

void tkrt_cli_join_path(char* out, size_t capacity, const char* dir, const char* name) {
  size_t length = strlen(dir);
  while (length > 1 && dir[length - 1] == '/') --length;
  /* "" + name is name (no leading slash, no read before dir); "/" + name is "/name". */
  const char* slash = length == 0 || dir[length - 1] == '/' ? "" : "/";
  snprintf(out, capacity, "%.*s%s%s", (int)length, dir, slash, name);
}

tkrt_status_t tkrt_cli_load_call(const char* path, bool read_hsaco_paths,
                                 tkrt_call_t** out_call) {
  char resolved[4096];
  const char* file = path;
  if (tkrt_cli_is_directory(path)) {
    struct stat st;
    tkrt_cli_join_path(resolved, sizeof(resolved), path, "call.pb.z");
    if (stat(resolved, &st) != 0) {
      tkrt_cli_join_path(resolved, sizeof(resolved), path, "call.pb");
      if (stat(resolved, &st) != 0) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND,
                                "%s holds no serialized call: neither call.pb.z nor call.pb is "
                                "there (a case folder holds one; Triton compile output is a "
                                "<name>.json, see `tkrt help triton`)",
                                path);
      }
    }
    file = resolved;
  }
  void* bytes = NULL;
  size_t size = 0;
  TKRT_RETURN_IF_ERROR(tkrt_cli_read_file(file, TKRT_WIRE_DEFAULT_MESSAGE_SIZE, &bytes, &size));
  tkrt_wire_decode_options_t options;
  tkrt_wire_decode_options_init(&options);
  options.read_hsaco_files = read_hsaco_paths;
  /* A relative HSACO path in the call is read from the call file's folder, not the current one. */
  char folder[4096];
  const char* slash = strrchr(file, '/');
  if (slash) {
    size_t length = slash == file ? 1 : (size_t)(slash - file);
    snprintf(folder, sizeof(folder), "%.*s", (int)length, file);
    options.base_dir = folder;
  }
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

/* The length of the valid UTF-8 sequence at p (RFC 3629), or 0 when the byte there starts none. */
static size_t utf8_sequence(const unsigned char* p, size_t left) {
  unsigned char c = p[0];
  size_t length;
  uint32_t min, code;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) {
    length = 2, min = 0x80, code = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    length = 3, min = 0x800, code = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    length = 4, min = 0x10000, code = c & 0x07;
  } else {
    return 0;
  }
  if (length > left) return 0;
  for (size_t i = 1; i < length; ++i) {
    if ((p[i] & 0xc0) != 0x80) return 0;
    code = code << 6 | (p[i] & 0x3f);
  }
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return length;
}

void tkrt_cli_json_bytes_as_string(FILE* out, const void* data, size_t size) {
  const unsigned char* p = data;
  fputc('"', out);
  for (size_t i = 0; i < size;) {
    unsigned char c = p[i];
    size_t length = utf8_sequence(p + i, size - i);
    if (c == '"' || c == '\\') {
      fprintf(out, "\\%c", c);
    } else if (c == '\n') {
      fputs("\\n", out);
    } else if (c == '\t') {
      fputs("\\t", out);
    } else if (c < 0x20 || c == 0x7f) {
      fprintf(out, "\\u%04x", c);
    } else if (length == 0) {
      fputs("\\ufffd", out); /* not UTF-8: the replacement character, one per byte */
      length = 1;
    } else {
      fwrite(p + i, 1, length, out);
    }
    i += length ? length : 1;
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
