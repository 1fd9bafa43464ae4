/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt command-line tool: shared helpers for the subcommands (info, dump, run, tune).
 * Exit codes: 0 success, 1 a check failed (outputs differ), 2 bad usage, 3 a tkrt error. */
#ifndef TKRT_TOOLS_TKRT_CLI_H_
#define TKRT_TOOLS_TKRT_CLI_H_

#include <getopt.h>
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

/* Prints "tkrt <command>: CODE: message (file:line)" to stderr (after flushing stdout, so that
 * piped output keeps its order), frees the status, returns 3. An annotation that only repeats
 * the start of the message it wraps ("kernel 'k': kernel 'k' has no image") is printed once. */
int tkrt_cli_fail(const char* command, tkrt_status_t status);
/* As tkrt_cli_fail, with the --help hint, returning 2: the library refused what a flag asked for. */
int tkrt_cli_fail_usage(const char* command, tkrt_status_t status);
/* Prints "tkrt <command>: <message>" and a hint to use --help; returns 2. */
int tkrt_cli_usage_error(const char* command, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
/* Reads a whole regular file of at most max_size bytes without blocking (base/fs.h:
 * tkrt_fs_read_file; NOT_FOUND / PERMISSION_DENIED / INVALID_ARGUMENT for a FIFO or a folder /
 * OUT_OF_RANGE for a file over the limit / DATA_LOSS for one that changes size while read,
 * naming the path). */
tkrt_status_t tkrt_cli_read_file(const char* path, size_t max_size, void** out_data,
                                 size_t* out_size);
/* Writes dir/name atomically (a temporary file renamed over it; nothing left on failure). */
tkrt_status_t tkrt_cli_write_file(const char* dir, const char* name, const void* data,
                                  size_t size);
/* mkdir -p (base/fs.h: tkrt_fs_mkdirs): a part that cannot be made is named, with NOT_FOUND when
 * a parent is missing or not a folder, PERMISSION_DENIED when it may not be made. */
tkrt_status_t tkrt_cli_make_folder(const char* dir);
/* Decodes a serialized call: a file (zlib or raw TritonAnyKernelCall) or a case directory
 * holding call.pb.z or call.pb (NOT_FOUND naming both when it holds neither). Files named in the
 * call (ROCm HSACO paths) are read only when read_hsaco_paths is set (--read-hsaco-paths). */
tkrt_status_t tkrt_cli_load_call(const char* path, bool read_hsaco_paths, tkrt_call_t** out_call);
/* Prints text with control and non-ASCII bytes escaped (\xNN): for strings from a call. */
void tkrt_cli_print_text(FILE* out, const char* text);
/* The text escaped as tkrt_cli_print_text writes it, for printf's %s: one of 8 static buffers
 * used in turn (so up to 8 may appear in one printf), each holding 16 KiB. */
const char* tkrt_cli_escaped(const char* text);
/* True when `path` is a directory. */
bool tkrt_cli_is_directory(const char* path);
/* dir + "/" + name without doubling a slash that dir ends with, cut to fit (snprintf). */
void tkrt_cli_join_path(char* out, size_t capacity, const char* dir, const char* name);
/* JSON strings: valid UTF-8 is written as UTF-8; '"', '\\' and control characters (below 0x20,
 * and 0x7f) are escaped; each byte that is not part of a valid UTF-8 sequence (RFC 3629: no
 * overlong forms, surrogates or code points above U+10FFFF) becomes U+FFFD, the replacement
 * character, written as the escape \ufffd. A NULL text is written as null. */
void tkrt_cli_json_string(FILE* out, const char* text);
void tkrt_cli_json_bytes_as_string(FILE* out, const void* data, size_t size);

/* ---------------------------------------------------------------- arguments (getopt_long) */

/* Every command's arguments go through getopt_long, in order (operands come back where they
 * stand, so that Triton's per-variant options follow their kernel): `--opt value` and
 * `--opt=value` both work, `--` ends the options, and long names must be written in full (no
 * abbreviations: `--in` is never taken for `--inout`). Option values (`val`) are 'h' for --help
 * and TKRT_CLI_OPTION_BASE and up for the rest. */
enum {
  TKRT_CLI_ARG_END = -1,     /* no more arguments */
  TKRT_CLI_ARG_BAD = -2,     /* a usage error was printed: exit TKRT_CLI_USAGE */
  TKRT_CLI_ARG_OPERAND = 1,  /* an operand, in `value` */
  TKRT_CLI_OPTION_BASE = 256,
};
typedef struct tkrt_cli_args {
  int argc;
  char** argv;
  const char* command;
  const struct option* options;
  const char* value; /* the option's value (NULL for a flag), or the operand */
  char name[64];     /* the option as written, without "=value": for messages */
  int started, after_dashes;
} tkrt_cli_args_t;
/* argv[0] is the command's name; parsing starts at argv[1]. */
void tkrt_cli_args_init(tkrt_cli_args_t* args, int argc, char** argv, const char* command,
                        const struct option* options);
/* The next option's val, TKRT_CLI_ARG_OPERAND, TKRT_CLI_ARG_END, or TKRT_CLI_ARG_BAD after
 * printing "unknown option '--x'", "--x needs a value" or "--x takes no value". */
int tkrt_cli_args_next(tkrt_cli_args_t* args);

/* ---------------------------------------------------------------- run / tune: the session */

/* What `run` and `tune` take whatever they run (a serialized call or Triton's compile output):
 * the device, the timed launches and the tuner's settings. Each command lists those it offers
 * with these option values (from TKRT_CLI_SESSION_OPTION_BASE; its own start at
 * TKRT_CLI_OPTION_BASE) and hands them to tkrt_cli_session_option. */
enum {
  TKRT_CLI_SESSION_OPTION_BASE = TKRT_CLI_OPTION_BASE + 128,
  TKRT_CLI_OPT_BACKEND = TKRT_CLI_SESSION_OPTION_BASE,
  TKRT_CLI_OPT_DEVICE,
  TKRT_CLI_OPT_ITERATIONS,
  TKRT_CLI_OPT_STORE,
  TKRT_CLI_OPT_POLICY,
  TKRT_CLI_OPT_PIN,
  TKRT_CLI_OPT_TARGET_MS,
  TKRT_CLI_OPT_MAX_ITERATIONS,
  TKRT_CLI_OPT_ALLOW_NATIVE_CODE,
  TKRT_CLI_SESSION_OPTION_END,
};
#define TKRT_CLI_MAX_ITERATIONS 1000000u
#define TKRT_CLI_MAX_PIN 1000000u

typedef struct tkrt_cli_session_options {
  const char* backend;   /* --backend: over TKRT_BACKEND */
  int ordinal;           /* --device */
  int ordinal_given;
  long iterations;       /* --iterations: timed launches after the checked one */
  const char* store;     /* --store DIR|off */
  const char* policy;    /* --policy auto|never */
  long pin;              /* --pin N; -1: none */
  const char* target_ms; /* --target-ms; NULL: the tuner's default */
  const char* max_iterations; /* --max-iterations; NULL: the tuner's default */
  int allow_native_code; /* --allow-native-code */
} tkrt_cli_session_options_t;

/* Defaults: 20 timed launches for run, 0 for tune; no pin; the tuner's own effort. */
void tkrt_cli_session_options_init(tkrt_cli_session_options_t* options, int tune);
/* Parses the session option `c` (its name as written and its value, from tkrt_cli_args_t).
 * Returns 0, or TKRT_CLI_USAGE after printing what is wrong (numbers are checked against their
 * range: --device up to INT_MAX, --iterations and --pin up to TKRT_CLI_MAX_ITERATIONS and
 * TKRT_CLI_MAX_PIN, --max-iterations from 1, --target-ms from 0 to 3600000). */
int tkrt_cli_session_option(const char* command, int c, const char* name, const char* value,
                            tkrt_cli_session_options_t* options);
/* The command's runtime (tkrt/runtime.h), one per command: created with the environment's
 * settings (TKRT_BACKEND, TKRT_CACHE_DIR, TKRT_TUNE_*, ...), then each flag given set over them
 * by tkrt_runtime_configure (the settings table's rules); for tune, the store is refreshed and
 * progress goes to stderr, naming each config by `config_word` ("config", "variant").
 * prune_margin: tune --prune-margin (NULL: not given). native_code_from_calls: the devices
 * run the host images serialized calls carry (run's --allow-native-code). Released by the caller. */
tkrt_status_t tkrt_cli_session_runtime(const tkrt_cli_session_options_t* options, int tune,
                                       const char* config_word, const char* prune_margin,
                                       bool native_code_from_calls, tkrt_runtime_t** out_runtime);

/* The runtime's device for --device (tkrt_runtime_device; lent, the runtime's), and
 * tkrt_autotuner_pin with the --pin given (nothing when none was); when the library refuses what a
 * flag asked for (an unknown --backend, a --device or --pin out of range), *usage is set: the
 * command exits 2, as for any usage mistake. */
tkrt_status_t tkrt_cli_session_device(const tkrt_cli_session_options_t* options,
                                      tkrt_runtime_t* runtime, int* usage,
                                      tkrt_device_t** out_device);
tkrt_status_t tkrt_cli_session_pin(const tkrt_cli_session_options_t* options,
                                   tkrt_autotuner_t* tuner, const tkrt_call_t* call, int* usage);

/* ---------------------------------------------------------------- run / tune options */

#define TKRT_CLI_MAX_BUFFERS 64

/* How one output is compared with its expected file. */
typedef struct tkrt_cli_compare {
  const char* dtype; /* f16 bf16 f32 f64 for a tolerant comparison; NULL: bit for bit */
  const char* what;  /* the element type as the case names it ("int32"), for messages */
  double rtol, atol;
  int tolerant;      /* rtol or atol was given (flag or case.json) */
} tkrt_cli_compare_t;

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
  int aliases_given; /* --alias (or case.json's "aliases"): the call's alias records are not used */
  int alias_flags;   /* the aliases came from --alias */
  double rtol, atol;
  int rtol_given, atol_given;
  const char* dtype;
  tkrt_cli_session_options_t session; /* --backend --device --iterations --store --policy --pin
                                         --target-ms --max-iterations --allow-native-code */
  const char* save_dir;
  const char* prune_margin; /* tune --prune-margin; NULL: not given */
  int read_hsaco_paths;  /* --read-hsaco-paths */
  int tune;
  int json;              /* --json */

  /* Filled by tkrt_cli_resolve_case. */
  tkrt_cli_compare_t compare[TKRT_CLI_MAX_BUFFERS];
  const char* case_file; /* the case.json read, or NULL */
  const char* case_name, *case_note;
  void* case_json;       /* the parsed case.json (base/json.h), owning the strings above */
  char* owned_paths[2 * TKRT_CLI_MAX_BUFFERS + 1];
  size_t owned_count;
} tkrt_run_options_t;

void tkrt_cli_run_options_init(tkrt_run_options_t* options, int tune);
/* Parses `tkrt run|tune` arguments (argv[0] is the command). Returns 0 when parsed, -1 after
 * printing --help, or TKRT_CLI_USAGE after printing the problem. Reads no file. */
int tkrt_cli_parse_run_options(int argc, char** argv, tkrt_run_options_t* options);
/* Completes parsed options from a case folder, flags winning: DIR/case.json when present (its
 * inputs and outputs in order, each a file in DIR whose size must match its dtype and shape;
 * per-output dtypes; "rtol"/"atol" for the whole case or per output; "aliases"), else DIR's
 * in<i>.bin and out<i>.bin. Fills options->compare for every output. A case.json that cannot be
 * used is an error naming the file and the member (INVALID_ARGUMENT, NOT_FOUND, ...). */
tkrt_status_t tkrt_cli_resolve_case(tkrt_run_options_t* options);
/* Reads a file the options name (tkrt_cli_read_file). A file a case folder names (its case.json,
 * the files that lists, its in<i>.bin and out<i>.bin) is read without following a symbolic link,
 * so that a case someone else made cannot point at other files of the user's. */
tkrt_status_t tkrt_cli_read_option_file(const tkrt_run_options_t* options, const char* path,
                                        size_t max_size, void** out_data, size_t* out_size);
/* Frees what tkrt_cli_resolve_case took; the options may be parsed again after _init. */
void tkrt_cli_run_options_free(tkrt_run_options_t* options);

/* ---------------------------------------------------------------- run / tune: reports */

/* Timed launches: `launches` calls of launch(user), in samples of nearly equal launch counts
 * (at most 1000 samples) each timed with device events. */
typedef struct tkrt_cli_timing {
  long launches;            /* 0: nothing timed */
  size_t samples;
  long launches_per_sample, launches_per_sample_max; /* the fewest and most in one sample */
  double mean_ms;           /* all launches' time / launches */
  double median_ms, min_ms, p90_ms; /* over the samples' per-launch times (p90: nearest rank) */
} tkrt_cli_timing_t;
tkrt_status_t tkrt_cli_time_launches(tkrt_device_t* device, long launches,
                                     tkrt_status_t (*launch)(void*), void* user,
                                     tkrt_cli_timing_t* out);
/* "timing: M ms per launch (mean of N launches, device events); median, min, p90 ..." */
void tkrt_cli_print_timing(FILE* out, const tkrt_cli_timing_t* timing);
/* {"launches", "samples", "launches_per_sample": [fewest, most], "mean_ms", "median_ms",
 * "min_ms", "p90_ms"}, or null when nothing was timed. */
void tkrt_cli_json_timing(FILE* out, const tkrt_cli_timing_t* timing);

/* The tuner's report on a call, with a time and a pruned flag for every config. */
typedef struct tkrt_cli_decision {
  tkrt_tune_report_t report;
  float* times;    /* config_count entries: mean ms, or TKRT_TUNE_SKIPPED_MS */
  uint8_t* pruned; /* config_count entries */
} tkrt_cli_decision_t;
tkrt_status_t tkrt_cli_decision_get(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
                                    const char* arch, tkrt_cli_decision_t* decision);
void tkrt_cli_decision_free(tkrt_cli_decision_t* decision);
/* Writes the members "decision": {...},\n  "configs": [...] (no braces around them). */
void tkrt_cli_json_decision(FILE* out, const tkrt_call_t* call,
                            const tkrt_cli_decision_t* decision);
/* --json: returns a stream on the real stdout and points stdout at stderr, so that what the
 * command prints for people goes to stderr and stdout carries the JSON alone; NULL on failure. */
FILE* tkrt_cli_json_begin(void);

/* Each command's --help text and options, for `tkrt help CMD`, the man page and the shell
 * completion (tkrt_main.c), which are all made from them. */
extern const char* const tkrt_cli_info_usage;
extern const char* const tkrt_cli_dump_usage;
extern const char* const tkrt_cli_run_usage;
extern const char* const tkrt_cli_tune_usage;
extern const char* const tkrt_cli_tunedb_usage;
extern const char* const tkrt_cli_triton_usage;
extern const struct option* const tkrt_cli_info_options;
extern const struct option* const tkrt_cli_dump_options;
extern const struct option* const tkrt_cli_run_options;
extern const struct option* const tkrt_cli_tune_options;
extern const struct option* const tkrt_cli_triton_run_options;
extern const struct option* const tkrt_cli_triton_info_options;

int tkrt_cli_info(int argc, char** argv);
int tkrt_cli_dump(int argc, char** argv);
int tkrt_cli_run(int argc, char** argv);
int tkrt_cli_tune(int argc, char** argv);
int tkrt_cli_tunedb(int argc, char** argv);
/* Triton's compile output (tkrt_triton.c): handles argv when it names one, else returns -1. */
int tkrt_cli_triton_dispatch(int argc, char** argv);

#endif /* TKRT_TOOLS_TKRT_CLI_H_ */
