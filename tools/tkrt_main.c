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

/* The commands, in the order the help lists them. */
typedef struct command {
  const char* name;
  const char* summary;
  int (*run)(int, char**);
} command_t;
static const command_t kCommands[] = {
    {"info", "list backends and devices, or describe a kernel image (--image FILE); --json",
     tkrt_cli_info},
    {"dump", "print a decoded call (--json for every field)", tkrt_cli_dump},
    {"run", "launch a call on real buffers, compare outputs, time it; --json", tkrt_cli_run},
    {"tune", "benchmark every config of an autotuned call and store the decision; --json",
     tkrt_cli_tune},
    {"tune-db", "show, export, import or merge the tuning database (per-config times)",
     tkrt_cli_tunedb},
};
#define COMMAND_COUNT (sizeof(kCommands) / sizeof(kCommands[0]))

/* Every environment variable the tool and the library read (tkrt_options_from_environment, and
 * the tool's --triton-cache): the help, the man page and tools.cli.help_texts use this table. */
static const struct {
  const char* name;
  const char* what;
} kSettings[] = {
    {"TKRT_BACKEND", "backend order: cuda, hip, host or a comma list (default cuda,hip,host)"},
    {"TKRT_HOST_THREADS", "threads of the host backend, 1 to 256"},
    {"TKRT_CACHE_DIR", "the CUDA PTX-compile cache folder, or off (default ~/.cache/tkrt/cubin)"},
    {"TKRT_HIP_LIBRARY", "the HIP runtime to load: a path, a soname or a ':' list"},
    {"TKRT_LOG", "log level: off, error, warn (default), info or debug (1/on = debug)"},
    {"TKRT_TUNE_DIR", "the tuning decision store, or off (default ~/.cache/tkrt/tune)"},
    {"TKRT_TUNE_POLICY", "auto or never: tune when no decision is known, or take config 0"},
    {"TKRT_TUNE_PIN", "<digest prefix|*>[@arch]=<config>,...: configs to run, never tuned"},
    {"TKRT_TUNE_PRUNE_MARGIN", "tune's pruning margin (default 0.25; negative: off)"},
    {"TKRT_TUNE_REQUIRE_COMPLETE", "on: never tune at run time; an undecided call is an error"},
    {"TKRT_TRUST_SHARED_STORES", "on or off: trust stores and caches other users own or can write"},
    {"TRITON_CACHE_DIR", "Triton's cache, for info --triton-cache (default ~/.triton/cache)"},
};
#define SETTING_COUNT (sizeof(kSettings) / sizeof(kSettings[0]))

static const char kAbout[] =
    "Inspect, replay, tune and benchmark serialized Triton kernel calls (jaxlib's\n"
    "TritonAnyKernelCall, zlib-compressed or raw) and Triton's own compile output on CUDA, HIP or\n"
    "the host CPU.\n";

static const char kExitStatus[] =
    "exit status: 0 success, 1 outputs differ from the expected ones, 2 bad usage (a flag the\n"
    "library refuses too), 3 an error (message on stderr, with its status code).\n";

static void print_usage(FILE* out) {
  fputs("usage: tkrt <command> [options]\n"
        "       tkrt help [COMMAND | triton]   tkrt --version | -V   tkrt --help | -h\n\n",
        out);
  fputs(kAbout, out);
  fputs("\ncommands:\n", out);
  for (size_t i = 0; i < COMMAND_COUNT; ++i) {
    fprintf(out, "  %-5s  %s\n", kCommands[i].name, kCommands[i].summary);
  }
  fputs("\n`tkrt help COMMAND` (or `tkrt COMMAND --help`) describes each command; `tkrt help triton`\n"
        "how info, run and tune take Triton's own compile output (<name>.json with its cubin / PTX /\n"
        "HSACO). Options take their value as `--opt value` or `--opt=value`; `--` ends the options.\n"
        "Configs are numbered from 0 everywhere (tables, --pin, TKRT_TUNE_PIN, the store).\n",
        out);
  fputs(kExitStatus, out);
  fputs("\nsettings (environment variables; a command's flags win over them):\n", out);
  for (size_t i = 0; i < SETTING_COUNT; ++i) {
    fprintf(out, "  %-25s %s\n", kSettings[i].name, kSettings[i].what);
  }
  fputs("On/off settings take on/off, true/false, yes/no or 1/0, in any case; other values are\n"
        "refused, naming the variable.\n"
        "\nshell completion and manual: `tkrt --completion bash`, `tkrt --help-man` (installed as\n"
        "share/bash-completion/completions/tkrt and share/man/man1/tkrt.1).\n",
        out);
}

/* ---------------------------------------------------------------- man page, completion */

/* Text as roff: a backslash as \e, a '-' as \- (options stay searchable and copyable), a line
 * starting with '.' or '\'' protected by \&. */
static void print_roff(FILE* out, const char* text) {
  int line_start = 1;
  for (const char* p = text; *p; ++p) {
    if (line_start && (*p == '.' || *p == '\'')) fputs("\\&", out);
    if (*p == '\\') {
      fputs("\\e", out);
    } else if (*p == '-') {
      fputs("\\-", out);
    } else {
      fputc(*p, out);
    }
    line_start = *p == '\n';
  }
}

static void print_man_block(FILE* out, const char* title, const char* text) {
  fprintf(out, ".SS %s\n.nf\n", title);
  print_roff(out, text);
  fputs(".fi\n", out);
}

static void print_man(FILE* out) {
  fprintf(out, ".\\\" SPDX-License-Identifier: Apache-2.0\n"
          ".\\\" Generated by `tkrt --help-man` from the tool's own help texts: do not edit.\n"
          ".TH TKRT 1 \"\" \"tkrt %s\" \"User Commands\"\n.SH NAME\ntkrt \\- run, inspect and "
          "tune compiled Triton kernels\n.SH SYNOPSIS\n.B tkrt\n.I command\n[\n.I options\n]\n"
          ".br\n.B tkrt help\n[\n.I command\n|\n.B triton\n]\n.br\n.B tkrt \\-\\-version\n.SH "
          "DESCRIPTION\n",
          TKRT_VERSION_STRING);
  print_roff(out, kAbout);
  fputs(".SH COMMANDS\n", out);
  for (size_t i = 0; i < COMMAND_COUNT; ++i) {
    fprintf(out, ".TP\n.B %s\n", kCommands[i].name);
    print_roff(out, kCommands[i].summary);
    fputc('\n', out);
  }
  print_man_block(out, "tkrt info", tkrt_cli_info_usage);
  print_man_block(out, "tkrt dump", tkrt_cli_dump_usage);
  print_man_block(out, "tkrt run", tkrt_cli_run_usage);
  print_man_block(out, "tkrt tune", tkrt_cli_tune_usage);
  print_man_block(out, "tkrt tune-db", tkrt_cli_tunedb_usage);
  print_man_block(out, "Triton kernels (tkrt help triton)", tkrt_cli_triton_usage);
  fputs(".SH ENVIRONMENT\n", out);
  for (size_t i = 0; i < SETTING_COUNT; ++i) {
    fprintf(out, ".TP\n.B %s\n", kSettings[i].name);
    print_roff(out, kSettings[i].what);
    fputc('\n', out);
  }
  fputs(".PP\nOn/off settings take on/off, true/false, yes/no or 1/0, in any case.\n"
        ".SH EXIT STATUS\n",
        out);
  print_roff(out, kExitStatus);
  fputs(".SH SEE ALSO\nREADME.md and docs/ in the tkrt sources (docs/security.md: what the tool "
        "trusts).\n",
        out);
}

/* True when `name` is in the list before `end`. */
static int listed_before(const struct option* list, const struct option* end, const char* name) {
  for (const struct option* o = list; o && o != end && o->name; ++o) {
    if (strcmp(o->name, name) == 0) return 1;
  }
  return 0;
}

/* The long options of two lists, as "--name" words, each once (not --help, which is added once);
 * with_value: 1 those that take a value, 0 those that do not, -1 all. */
static void print_option_words(FILE* out, const struct option* const lists[2], int with_value) {
  for (int l = 0; l < 2; ++l) {
    for (const struct option* o = lists[l]; o && o->name; ++o) {
      if (strcmp(o->name, "help") == 0 || listed_before(lists[l], o, o->name) ||
          (l == 1 && listed_before(lists[0], NULL, o->name))) {
        continue;
      }
      if (with_value < 0 || (with_value == (o->has_arg != no_argument))) fprintf(out, " --%s", o->name);
    }
  }
}

static void print_completion_bash(FILE* out) {
  struct {
    const char* name;
    const struct option* lists[2];
  } commands[] = {
      {"info", {tkrt_cli_info_options, tkrt_cli_triton_info_options}},
      {"dump", {tkrt_cli_dump_options, NULL}},
      {"run", {tkrt_cli_run_options, tkrt_cli_triton_run_options}},
      {"tune", {tkrt_cli_tune_options, tkrt_cli_triton_run_options}},
  };
  fputs("# SPDX-License-Identifier: Apache-2.0\n"
        "# bash completion for tkrt; generated by `tkrt --completion bash` from the tool's own\n"
        "# option tables: do not edit.\n"
        "_tkrt() {\n"
        "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
        "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
        "    COMPREPLY=($(compgen -W \"",
        out);
  for (size_t i = 0; i < COMMAND_COUNT; ++i) fprintf(out, "%s ", kCommands[i].name);
  fputs("help --help -h --version -V --completion --help-man\" -- \"$cur\"))\n"
        "    return\n"
        "  fi\n"
        "  local opts= valued=\n"
        "  case ${COMP_WORDS[1]} in\n",
        out);
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); ++i) {
    fprintf(out, "    %s)\n      opts=\"--help", commands[i].name);
    print_option_words(out, commands[i].lists, -1);
    fputs("\"\n      valued=\"", out);
    print_option_words(out, commands[i].lists, 1);
    fputs(" \" ;;\n", out);
  }
  fputs("    help)\n      [ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W \"",
        out);
  for (size_t i = 0; i < COMMAND_COUNT; ++i) fprintf(out, "%s ", kCommands[i].name);
  fputs("triton\" -- \"$cur\"))\n      return ;;\n"
        "    --completion)\n      COMPREPLY=($(compgen -W \"bash\" -- \"$cur\"))\n      return ;;\n"
        "    *) return ;;\n"
        "  esac\n"
        "  case $prev in\n"
        "    --backend) COMPREPLY=($(compgen -W \"cuda hip host\" -- \"$cur\")); return ;;\n"
        "    --policy) COMPREPLY=($(compgen -W \"auto never\" -- \"$cur\")); return ;;\n"
        "    --dtype) COMPREPLY=($(compgen -W \"f16 bf16 f32 f64\" -- \"$cur\")); return ;;\n"
        "    --image-kind) COMPREPLY=($(compgen -W \"cubin ptx hsaco host\" -- \"$cur\")); return ;;\n"
        "    --store|--save|--triton-cache) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n"
        "  esac\n"
        "  if [[ \" $valued \" == *\" $prev \"* && $prev != --image && $prev != --in && $prev != --expect"
        " && $prev != --also ]]; then\n"
        "    return  # a value: nothing to offer\n"
        "  fi\n"
        "  if [[ $cur == -* ]]; then\n"
        "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
        "  else\n"
        "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
        "  fi\n"
        "}\n"
        "complete -o filenames -F _tkrt tkrt\n",
        out);
}

/* ---------------------------------------------------------------- suggestions */

/* Edit distance (insertions, deletions, substitutions, and swaps of neighbours) of two short
 * words; large for long ones. */
static size_t distance(const char* a, const char* b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > 30 || m > 30) return 99;
  size_t d[32][32];
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best) {
        best = d[i - 2][j - 2] + 1;
      }
      d[i][j] = best;
    }
  }
  return d[n][m];
}

/* The command closest to `word` (within 2 edits, or a prefix of it), else NULL. */
static const char* suggest_command(const char* word, int with_triton) {
  const char* best = NULL;
  size_t best_distance = 3;
  const char* names[COMMAND_COUNT + 2];
  size_t count = 0;
  for (size_t i = 0; i < COMMAND_COUNT; ++i) names[count++] = kCommands[i].name;
  names[count++] = with_triton ? "triton" : "help";
  for (size_t i = 0; i < count; ++i) {
    size_t d = distance(word, names[i]);
    if (*word && strncmp(names[i], word, strlen(word)) == 0) d = 0; /* a prefix wins */
    if (d < best_distance) best = names[i], best_distance = d;
  }
  return best;
}

static int unknown_command(const char* word) {
  const char* guess = suggest_command(word, 0);
  fprintf(stderr, "tkrt: unknown command '%s'", tkrt_cli_escaped(word));
  if (guess) fprintf(stderr, " (did you mean '%s'?)", guess);
  fputs("\ncommands: ", stderr);
  for (size_t i = 0; i < COMMAND_COUNT; ++i) fprintf(stderr, "%s%s", i ? ", " : "", kCommands[i].name);
  fputs(" (see `tkrt --help`)\n", stderr);
  return TKRT_CLI_USAGE;
}

/* `tkrt help [COMMAND]`: the command's --help text. */
static int help(int argc, char** argv) {
  if (argc < 3) {
    print_usage(stdout);
    return TKRT_CLI_OK;
  }
  const char* texts[] = {tkrt_cli_info_usage, tkrt_cli_dump_usage, tkrt_cli_run_usage,
                         tkrt_cli_tune_usage, tkrt_cli_tunedb_usage};
  for (size_t i = 0; i < COMMAND_COUNT; ++i) {
    if (strcmp(argv[2], kCommands[i].name) == 0) {
      fputs(texts[i], stdout);
      return TKRT_CLI_OK;
    }
  }
  const char* guess = suggest_command(argv[2], 1);
  fprintf(stderr, "tkrt help: no help on '%s'", tkrt_cli_escaped(argv[2]));
  if (guess) fprintf(stderr, " (did you mean '%s'?)", guess);
  fputs("; help is on info, dump, run, tune, tune-db and triton\n", stderr);
  return TKRT_CLI_USAGE;
}

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

const char* tkrt_cli_escaped(const char* text) {
  static char buffers[8][4 * 4200 + 8];
  static unsigned next;
  char* out = buffers[next++ % 8];
  size_t capacity = sizeof(buffers[0]), n = 0;
  out[0] = '\0';
  for (const unsigned char* p = (const unsigned char*)text; p && *p && n + 5 < capacity; ++p) {
    if (*p < 0x20 || *p >= 0x7f || *p == '\\') {
      n += (size_t)snprintf(out + n, capacity - n, *p == '\\' ? "\\\\" : "\\x%02x", *p);
    } else {
      out[n++] = (char)*p;
      out[n] = '\0';
    }
  }
  return out;
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

int tkrt_cli_fail_usage(const char* command, tkrt_status_t status) {
  tkrt_cli_fail(command, status);
  fprintf(stderr, "(see `tkrt %s --help`)\n", command);
  return TKRT_CLI_USAGE;
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
  if (status && strlen(file) > 5 && strcmp(file + strlen(file) - 5, ".json") == 0) {
    return tkrt_status_annotate(status, "decoding %s (not Triton compile output: its <stem>.cubin, "
                                ".ptx, .hsaco, .ttir or .so is not beside it; `tkrt help triton`)",
                                file);
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
  if (argc < 2) {
    print_usage(stderr);
    return TKRT_CLI_USAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    print_usage(stdout);
    return TKRT_CLI_OK;
  }
  if (strcmp(argv[1], "help") == 0) return help(argc, argv);
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
    /* The library's own version (tkrt_version): the tool and a libtkrt.so found elsewhere can
     * differ, and that is worth knowing. */
    printf("tkrt %s\n", tkrt_version());
    if (!tkrt_version_matches_headers() || strcmp(tkrt_version(), TKRT_VERSION_STRING) != 0) {
      fprintf(stderr, "tkrt: warning: this tool was built for libtkrt %s but runs with libtkrt %s\n",
              TKRT_VERSION_STRING, tkrt_version());
    }
    return TKRT_CLI_OK;
  }
  if (strcmp(argv[1], "--help-man") == 0) {
    print_man(stdout);
    return TKRT_CLI_OK;
  }
  if (strcmp(argv[1], "--completion") == 0) {
    if (argc == 3 && strcmp(argv[2], "bash") == 0) {
      print_completion_bash(stdout);
      return TKRT_CLI_OK;
    }
    fprintf(stderr, "tkrt: --completion takes the shell: bash (the one written today)\n");
    return TKRT_CLI_USAGE;
  }
  for (size_t i = 0; i < COMMAND_COUNT; ++i) {
    if (strcmp(argv[1], kCommands[i].name) == 0) return kCommands[i].run(argc - 1, argv + 1);
  }
  return unknown_command(argv[1]);
}
