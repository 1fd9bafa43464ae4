/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt run and tkrt tune: their options, parsed into a run_options_t. Kept apart from the session
 * so that the parser can be fuzzed (test/fuzz/cli_options_fuzz.c) without opening a device. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/json.h"
#include "base/fs.h"
#include "tools/tkrt_cli.h"

static const char kRunUsage[] =
    "usage: tkrt run FILE|DIR [options]\n"
    "\n"
    "Launches a serialized call (zlib or raw TritonAnyKernelCall) on real buffers: allocates them,\n"
    "uploads the inputs, tunes if the call is autotuned and no decision is known, launches, downloads\n"
    "the outputs, compares them with the expected files, and prints the timing and the chosen config.\n"
    "DIR is a case directory (as in the jaxlib vectors) holding call.pb.z (or call.pb). When it has a\n"
    "case.json, that says the rest: \"inputs\" and \"outputs\", lists of {\"file\": a name in DIR,\n"
    "\"dtype\": float16|bfloat16|float32|float64|int8..int64|uint8..uint64|bool, \"shape\": [...]}\n"
    "(a file's size must match its dtype and shape); \"rtol\" / \"atol\" for every output, or in one\n"
    "output's entry; \"aliases\": [{\"input\": I, \"output\": O}] as --alias I:O; \"name\" and \"note\"\n"
    "are printed; other members are not read. Without case.json: in0.bin, in1.bin, ... are the\n"
    "inputs and out0.bin, out1.bin, ... the expected outputs. Flags override the folder: --in and\n"
    "--expect replace its lists, --alias its aliases, --rtol / --atol / --dtype its values.\n"
    "\n"
    "  --in FILE          an input buffer, in order (repeatable; a non-empty regular file)\n"
    "  --expect FILE      the expected bytes of the next output (repeatable); also sizes it\n"
    "  --out-size BYTES   the size of the next output when there is no --expect (repeatable)\n"
    "  --alias IN:OUT     output OUT is input IN's buffer (XLA input_output_aliases); default:\n"
    "                     case.json's aliases, else the call's alias records, read as (input,\n"
    "                     output ordinal)\n"
    "  --rtol R --atol A  compare as numbers of the output's dtype within |got-want| <= A + R*|want|;\n"
    "                     without them (here or in case.json) outputs must match bit for bit\n"
    "  --dtype T          element type of every output for tolerant comparison: f16 bf16 f32 f64\n"
    "                     (default: case.json's dtype, else f32; integer dtypes compare bit for bit)\n"
    "  --backend B        cuda, hip, host or a comma list (default: TKRT_BACKEND, then cuda,hip,host)\n"
    "  --device N         device ordinal (default 0)\n"
    "  --iterations N     timed launches after the checked one (default 20; 0 to skip; at most\n"
    "                     1000000)\n"
    "  --store DIR|off    tuning decision store (default: TKRT_TUNE_DIR, then ~/.cache/tkrt/tune)\n"
    "  --policy auto|never   tune when no decision is known (auto), or use the first config\n"
    "  --pin N            run config N (numbered from 0, as in tune's table), never benchmark\n"
    "  --save DIR         write the outputs to DIR/out<i>.bin (each replaced atomically); DIR and\n"
    "                     its parents are made first, before anything runs\n"
    "  --allow-native-code  let the call's host images (native shared objects, which run on this\n"
    "                     CPU with your rights as soon as they load) be loaded; off by default:\n"
    "                     only run calls you trust with it (docs/security.md)\n"
    "  --read-hsaco-paths read the HSACO files that a ROCm call names by path (off by default: a\n"
    "                     call from elsewhere could name any file)\n"
    "  --json             print one JSON object on stdout (the text goes to stderr): \"device\",\n"
    "                     \"decision\" {\"config\", \"source\", \"store_file\", ...}, \"configs\" (each\n"
    "                     with its tuned \"mean_ms\" and \"launches\"), \"outputs\" (\"matches\"), \"timing\"\n"
    "                     {\"launches\", \"samples\", \"launches_per_sample\", \"mean_ms\", \"median_ms\",\n"
    "                     \"min_ms\", \"p90_ms\"} or null, \"result\" (ok or mismatch)\n"
    "Timing: the launches are timed with device events in up to 1000 samples of equal launch\n"
    "counts: the mean over all launches, and the median, min and p90 of the samples' per-launch\n"
    "times. Configs are numbered from 0 everywhere (the table, --pin, TKRT_TUNE_PIN, the store).\n"
    "Options take `--opt value` or `--opt=value`, in any order around FILE|DIR; `--` ends them.\n"
    "exit status: 0 outputs as expected, 1 an output differs, 2 bad usage (a flag the library\n"
    "refuses too: an unknown --backend, --device or --pin out of range), 3 error.\n";

static const char kTuneUsage[] =
    "usage: tkrt tune FILE|DIR [options]\n"
    "\n"
    "Benchmarks every config of an autotuned call on real buffers (as `tkrt run` sets them up, with\n"
    "aliased inputs restored before each config, and reading a case folder's case.json the same\n"
    "way), shows progress, prints a per-config timing table and stores the decision (replacing a\n"
    "stored one) so that later processes do not retune.\n"
    "Options as for `tkrt run` (--in --expect --out-size --alias --rtol --atol --dtype --backend\n"
    "--device --store --allow-native-code --read-hsaco-paths --json; its JSON's \"configs\" hold\n"
    "each config's mean over its timed launches, as the tuner measured it), plus:\n"
    "  --target-ms MS     time to fill per config and pass (default 10, as jaxlib)\n"
    "  --max-iterations N most launches per config (default 100)\n"
    "  --prune-margin F   after a first round of timing, stop timing configs slower than (1 + F) x\n"
    "                     the best (default: TKRT_TUNE_PRUNE_MARGIN, else 0.25; negative: time\n"
    "                     every config fully)\n"
    "Progress (stderr) and the table number configs from 0, as --pin and the store do.\n"
    "exit status: 0 tuned (and outputs as expected when given), 1 an output differs, 2 bad usage,\n"
    "3 error.\n";

/* Upper bounds of the numeric options: beyond them a value is a typo, not a wish. */
#define TKRT_CLI_MAX_OUT_SIZE ((uint64_t)1 << 40) /* 1 TiB */

/* A decimal number in [0, max]: digits only (no sign, blanks or suffix), no overflow. */
static int parse_number(const char* text, uint64_t max, uint64_t* out) {
  if (!*text) return 0;
  for (const char* p = text; *p; ++p) {
    if (*p < '0' || *p > '9') return 0;
  }
  errno = 0;
  char* end = NULL;
  unsigned long long value = strtoull(text, &end, 10);
  if (errno || *end || value > max) return 0;
  *out = value;
  return 1;
}

static int bad_number(const char* command, const char* option, const char* text, uint64_t max) {
  return tkrt_cli_usage_error(command, "bad %s '%s' (a whole number from 0 to %llu)", option, text,
                              (unsigned long long)max);
}

/* ---------------------------------------------------------------- the session's options */

/* A flag that is a setting (the settings table, tkrt/settings.h): read by the table's rules, so
 * that the flag and its variable take the same words; a flag given empty is refused (it is never
 * "unset"). `tail` is added to the table's "expected" text. */
static int setting_flag(const char* command, const char* flag, const char* value,
                        const char* tail) {
  const tkrt_setting_t* setting = NULL;
  for (size_t i = 0; i < tkrt_setting_count() && !setting; ++i) {
    const tkrt_setting_t* each = tkrt_setting_at(i);
    if (each->cli_flag && strcmp(each->cli_flag, flag) == 0) setting = each;
  }
  tkrt_status_t status = NULL;
  if (!setting || !*value || (status = tkrt_setting_check(setting->name, value)) != NULL) {
    tkrt_status_free(status);
    return tkrt_cli_usage_error(command, "bad %s '%s' (%s%s)", flag, value,
                                setting ? setting->expected : "?", tail ? tail : "");
  }
  return 0;
}

void tkrt_cli_session_options_init(tkrt_cli_session_options_t* s, int tune) {
  memset(s, 0, sizeof(*s));
  s->iterations = tune ? 0 : 20;
  s->pin = -1;
}

int tkrt_cli_session_option(const char* command, int c, const char* name, const char* value,
                            tkrt_cli_session_options_t* s) {
  uint64_t number = 0;
  switch (c) {
    case TKRT_CLI_OPT_BACKEND:
      /* A name or a comma list of names, none empty: '' is not "the default order". */
      if (setting_flag(command, "--backend", value, "; leave the option out for the default order")) {
        return TKRT_CLI_USAGE;
      }
      s->backend = value;
      return 0;
    case TKRT_CLI_OPT_DEVICE:
      if (!parse_number(value, INT_MAX, &number)) return bad_number(command, name, value, INT_MAX);
      s->ordinal = (int)number;
      s->ordinal_given = 1;
      return 0;
    case TKRT_CLI_OPT_ITERATIONS:
      if (!parse_number(value, TKRT_CLI_MAX_ITERATIONS, &number)) {
        return bad_number(command, name, value, TKRT_CLI_MAX_ITERATIONS);
      }
      s->iterations = (long)number;
      return 0;
    case TKRT_CLI_OPT_STORE:
      s->store = value;
      return 0;
    case TKRT_CLI_OPT_POLICY:
      if (setting_flag(command, "--policy", value, NULL)) return TKRT_CLI_USAGE;
      s->policy = value;
      return 0;
    case TKRT_CLI_OPT_PIN:
      if (!parse_number(value, TKRT_CLI_MAX_PIN, &number)) {
        return bad_number(command, name, value, TKRT_CLI_MAX_PIN);
      }
      s->pin = (long)number;
      return 0;
    case TKRT_CLI_OPT_TARGET_MS: {
      if (setting_flag(command, "--target-ms", value, NULL)) return TKRT_CLI_USAGE;
      s->target_ms = value;
      return 0;
    }
    case TKRT_CLI_OPT_MAX_ITERATIONS:
      if (setting_flag(command, "--max-iterations", value, NULL)) return TKRT_CLI_USAGE;
      s->max_iterations = value;
      return 0;
    case TKRT_CLI_OPT_ALLOW_NATIVE_CODE:
      s->allow_native_code = 1;
      return 0;
    default:
      return tkrt_cli_usage_error(command, "unexpected argument '%s'", name);
  }
}

/* Tuning progress on stderr, one line per config and pass; `user` is the word for a config. */
static void session_progress(void* user, size_t config, size_t count, int pass,
                             uint32_t iterations, float ms) {
  fflush(stdout); /* the lines printed before stay before the progress when piped */
  /* Numbered from 0, as the table, --pin and the store number configs. */
  fprintf(stderr, "tkrt tune: pass %d, %s %zu of 0..%zu: %.4f ms per launch (%u launch%s)\n",
          pass, (const char*)user, config, count ? count - 1 : 0, (double)ms, iterations,
          iterations == 1 ? "" : "es");
}

tkrt_status_t tkrt_cli_session_runtime(const tkrt_cli_session_options_t* s, int tune,
                                       const char* config_word, const char* prune_margin,
                                       bool native_code_from_calls, tkrt_runtime_t** out_runtime) {
  tkrt_runtime_options_t options;
  tkrt_runtime_options_init(&options);
  /* Read here rather than by read_environment, so that a variable's error reads as it always has. */
  TKRT_RETURN_IF_ERROR(tkrt_options_from_environment(&options.device, &options.tuner));
  /* Consent to the host images a serialized call carries (not a setting: a flag only). */
  options.device.allow_native_code_from_calls = native_code_from_calls;
  if (tune) {
    options.tuner.refresh_store = true;
    options.tuner.progress = session_progress;
    options.tuner.progress_user = (void*)config_word;
  }
  tkrt_runtime_t* rt = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_runtime_create(&options, &rt));
  /* The flags over the variables (each was checked by the table's rules when it was read). */
  const char* const flags[][2] = {
      {"backend", s->backend},     {"tune_dir", s->store},
      {"tune_policy", s->policy},  {"target_ms", s->target_ms},
      {"max_iterations", s->max_iterations}, {"tune_prune_margin", prune_margin}};
  tkrt_status_t status = NULL;
  for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]) && !status; ++i) {
    if (flags[i][1]) status = tkrt_runtime_configure(rt, flags[i][0], flags[i][1]);
  }
  if (status) {
    tkrt_runtime_release(rt);
    return status;
  }
  *out_runtime = rt;
  return NULL;
}

/* A device or pin the flags ask for that the library refuses is a usage mistake (exit 2): an
 * unknown --backend name (INVALID_ARGUMENT), a --device beyond the backend's devices
 * (OUT_OF_RANGE), a --pin beyond the call's configs (OUT_OF_RANGE). */
tkrt_status_t tkrt_cli_session_device(const tkrt_cli_session_options_t* s, tkrt_runtime_t* rt,
                                      int* usage, tkrt_device_t** out_device) {
  tkrt_status_t status = tkrt_runtime_device(rt, NULL, s->ordinal, out_device);
  if (status) {
    tkrt_status_code_t code = tkrt_status_code(status);
    if ((s->backend && code == TKRT_STATUS_INVALID_ARGUMENT) ||
        (s->ordinal_given && code == TKRT_STATUS_OUT_OF_RANGE)) {
      *usage = 1;
      status = tkrt_status_annotate(status, "%s", code == TKRT_STATUS_OUT_OF_RANGE ? "--device"
                                                                                  : "--backend");
    }
  }
  return status;
}

tkrt_status_t tkrt_cli_session_pin(const tkrt_cli_session_options_t* s, tkrt_autotuner_t* tuner,
                                   const tkrt_call_t* call, int* usage) {
  if (s->pin < 0) return NULL;
  tkrt_status_t status = tkrt_autotuner_pin(tuner, call, NULL, (size_t)s->pin);
  if (status && tkrt_status_code(status) == TKRT_STATUS_OUT_OF_RANGE) {
    *usage = 1;
    status = tkrt_status_annotate(status, "--pin %ld", s->pin);
  }
  return status;
}

/* ---------------------------------------------------------------- run / tune options */

void tkrt_cli_run_options_init(tkrt_run_options_t* o, int tune) {
  memset(o, 0, sizeof(*o));
  o->command = tune ? "tune" : "run";
  o->tune = tune;
  tkrt_cli_session_options_init(&o->session, tune);
}

void tkrt_cli_run_options_free(tkrt_run_options_t* o) {
  for (size_t i = 0; i < o->owned_count; ++i) free(o->owned_paths[i]);
  o->owned_count = 0;
  tkrt_json_free(o->case_json);
  o->case_json = NULL;
}

enum {
  OPT_IN = TKRT_CLI_OPTION_BASE,
  OPT_EXPECT,
  OPT_OUT_SIZE,
  OPT_ALIAS,
  OPT_RTOL,
  OPT_ATOL,
  OPT_DTYPE,
  OPT_SAVE,
  OPT_READ_HSACO_PATHS,
  OPT_PRUNE_MARGIN,
  OPT_JSON,
};

#define COMMON_OPTIONS                                                       \
  {"help", no_argument, NULL, 'h'},                                          \
  {"in", required_argument, NULL, OPT_IN},                                   \
  {"expect", required_argument, NULL, OPT_EXPECT},                           \
  {"out-size", required_argument, NULL, OPT_OUT_SIZE},                       \
  {"alias", required_argument, NULL, OPT_ALIAS},                             \
  {"rtol", required_argument, NULL, OPT_RTOL},                               \
  {"atol", required_argument, NULL, OPT_ATOL},                               \
  {"dtype", required_argument, NULL, OPT_DTYPE},                             \
  {"backend", required_argument, NULL, TKRT_CLI_OPT_BACKEND},                \
  {"device", required_argument, NULL, TKRT_CLI_OPT_DEVICE},                  \
  {"store", required_argument, NULL, TKRT_CLI_OPT_STORE},                    \
  {"allow-native-code", no_argument, NULL, TKRT_CLI_OPT_ALLOW_NATIVE_CODE},  \
  {"read-hsaco-paths", no_argument, NULL, OPT_READ_HSACO_PATHS},          \
  {"json", no_argument, NULL, OPT_JSON}

static const struct option kRunOptions[] = {
    COMMON_OPTIONS,
    {"iterations", required_argument, NULL, TKRT_CLI_OPT_ITERATIONS},
    {"policy", required_argument, NULL, TKRT_CLI_OPT_POLICY},
    {"pin", required_argument, NULL, TKRT_CLI_OPT_PIN},
    {"save", required_argument, NULL, OPT_SAVE},
    {NULL, 0, NULL, 0},
};
static const struct option kTuneOptions[] = {
    COMMON_OPTIONS,
    {"target-ms", required_argument, NULL, TKRT_CLI_OPT_TARGET_MS},
    {"max-iterations", required_argument, NULL, TKRT_CLI_OPT_MAX_ITERATIONS},
    {"prune-margin", required_argument, NULL, OPT_PRUNE_MARGIN},
    {NULL, 0, NULL, 0},
};

const char* const tkrt_cli_run_usage = kRunUsage;
const char* const tkrt_cli_tune_usage = kTuneUsage;
const struct option* const tkrt_cli_run_options = kRunOptions;
const struct option* const tkrt_cli_tune_options = kTuneOptions;

/* IN:OUT, each 0 to TKRT_CLI_MAX_BUFFERS - 1. */
static int parse_alias(const char* text, uint64_t* in, uint64_t* out) {
  const char* colon = strchr(text, ':');
  char in_text[24];
  if (!colon || (size_t)(colon - text) >= sizeof(in_text)) return 0;
  memcpy(in_text, text, (size_t)(colon - text));
  in_text[colon - text] = '\0';
  return parse_number(in_text, TKRT_CLI_MAX_BUFFERS - 1, in) &&
         parse_number(colon + 1, TKRT_CLI_MAX_BUFFERS - 1, out);
}

int tkrt_cli_parse_run_options(int argc, char** argv, tkrt_run_options_t* o) {
  tkrt_cli_args_t args;
  tkrt_cli_args_init(&args, argc, argv, o->command, o->tune ? kTuneOptions : kRunOptions);
  for (int c; (c = tkrt_cli_args_next(&args)) != TKRT_CLI_ARG_END;) {
    const char* a = args.name;
    const char* next = args.value;
    uint64_t number = 0;
    switch (c) {
      case TKRT_CLI_ARG_BAD:
        return TKRT_CLI_USAGE;
      case 'h':
        fputs(o->tune ? kTuneUsage : kRunUsage, stdout);
        return -1;
      case TKRT_CLI_ARG_OPERAND:
        if (o->path) {
          return tkrt_cli_usage_error(o->command, "unexpected argument '%s' (the call is '%s')",
                                      next, o->path);
        }
        o->path = next;
        break;
      case OPT_IN:
        if (o->input_count == TKRT_CLI_MAX_BUFFERS) {
          return tkrt_cli_usage_error(o->command, "too many --in (at most %d)", TKRT_CLI_MAX_BUFFERS);
        }
        o->inputs[o->input_count++] = next;
        break;
      case OPT_EXPECT:
        if (o->expect_count == TKRT_CLI_MAX_BUFFERS) {
          return tkrt_cli_usage_error(o->command, "too many --expect (at most %d)",
                                      TKRT_CLI_MAX_BUFFERS);
        }
        o->expects[o->expect_count++] = next;
        break;
      case OPT_OUT_SIZE:
        if (!parse_number(next, TKRT_CLI_MAX_OUT_SIZE, &number)) {
          return bad_number(o->command, a, next, TKRT_CLI_MAX_OUT_SIZE);
        }
        if (o->out_size_count == TKRT_CLI_MAX_BUFFERS) {
          return tkrt_cli_usage_error(o->command, "too many --out-size (at most %d)",
                                      TKRT_CLI_MAX_BUFFERS);
        }
        o->out_sizes[o->out_size_count++] = number;
        break;
      case OPT_ALIAS: {
        uint64_t in = 0, out = 0;
        if (!parse_alias(next, &in, &out)) {
          return tkrt_cli_usage_error(o->command, "bad --alias '%s' (expected IN:OUT, each 0 to %d)",
                                      next, TKRT_CLI_MAX_BUFFERS - 1);
        }
        for (size_t p = 0; p < o->alias_count; ++p) {
          if (o->alias_out[p] == out) {
            return tkrt_cli_usage_error(o->command,
                                        "output %llu is aliased twice (--alias %zu:%zu and --alias "
                                        "%s)",
                                        (unsigned long long)out, o->alias_in[p], o->alias_out[p],
                                        next);
          }
        }
        if (o->alias_count == TKRT_CLI_MAX_BUFFERS) {
          return tkrt_cli_usage_error(o->command, "too many --alias");
        }
        o->alias_in[o->alias_count] = (size_t)in;
        o->alias_out[o->alias_count++] = (size_t)out;
        o->aliases_given = 1;
        o->alias_flags = 1;
        break;
      }
      case OPT_RTOL:
      case OPT_ATOL: {
        char* end = NULL;
        double value = strtod(next, &end);
        if (end == next || *end || !(value >= 0) || value > 1e300) {
          return tkrt_cli_usage_error(o->command, "bad %s '%s' (a finite number >= 0)", a, next);
        }
        if (c == OPT_RTOL) {
          o->rtol = value;
          o->rtol_given = 1;
        } else {
          o->atol = value;
          o->atol_given = 1;
        }
        break;
      }
      case OPT_DTYPE:
        if (strcmp(next, "f16") && strcmp(next, "bf16") && strcmp(next, "f32") &&
            strcmp(next, "f64")) {
          return tkrt_cli_usage_error(o->command, "unknown --dtype '%s' (f16, bf16, f32, f64)", next);
        }
        o->dtype = next;
        break;
      case OPT_SAVE:
        if (!*next) return tkrt_cli_usage_error(o->command, "--save needs a folder name");
        o->save_dir = next;
        break;
      case OPT_READ_HSACO_PATHS:
        o->read_hsaco_paths = 1;
        break;
      case OPT_JSON:
        o->json = 1;
        break;
      case OPT_PRUNE_MARGIN: {
        if (setting_flag(o->command, "--prune-margin", next, NULL)) return TKRT_CLI_USAGE;
        o->prune_margin = next;
        break;
      }
      default: {
        int rc = tkrt_cli_session_option(o->command, c, a, next, &o->session);
        if (rc) return rc;
        break;
      }
    }
  }
  if (!o->path) return tkrt_cli_usage_error(o->command, "no call file or case directory given");
  return 0;
}

/* ---------------------------------------------------------------- case folders */

/* The largest case.json read: it describes files, it does not hold them. */
#define TKRT_CLI_MAX_CASE_JSON ((size_t)1 << 20)

/* Element types a case.json names (NumPy's names, and --dtype's): their size, and the --dtype
 * they compare as with a tolerance (NULL: integers and bools are compared bit for bit). */
typedef struct case_dtype {
  const char* name;
  size_t size;
  const char* compare;
} case_dtype_t;

static const case_dtype_t kCaseDtypes[] = {
    {"float16", 2, "f16"}, {"bfloat16", 2, "bf16"}, {"float32", 4, "f32"}, {"float64", 8, "f64"},
    {"f16", 2, "f16"},     {"bf16", 2, "bf16"},     {"f32", 4, "f32"},     {"f64", 8, "f64"},
    {"int8", 1, NULL},     {"int16", 2, NULL},      {"int32", 4, NULL},    {"int64", 8, NULL},
    {"uint8", 1, NULL},    {"uint16", 2, NULL},     {"uint32", 4, NULL},   {"uint64", 8, NULL},
    {"bool", 1, NULL},
};

/* The joined path, owned by the options until tkrt_cli_run_options_free. */
static tkrt_status_t own_path(tkrt_run_options_t* o, const char* dir, const char* name,
                              const char** out_path) {
  size_t size = strlen(dir) + strlen(name) + 2;
  char* path = malloc(size);
  if (!path || o->owned_count == sizeof(o->owned_paths) / sizeof(o->owned_paths[0])) {
    free(path);
    return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of memory joining %s and %s",
                            dir, name);
  }
  tkrt_cli_join_path(path, size, dir, name);
  o->owned_paths[o->owned_count++] = path;
  *out_path = path;
  return NULL;
}

/* "rtol" and "atol" of a case or one of its outputs: finite numbers >= 0 when present. */
static tkrt_status_t case_tolerances(const char* file, const char* where,
                                     const tkrt_json_value_t* object, double values[2],
                                     int given[2]) {
  static const char* const keys[2] = {"rtol", "atol"};
  for (int k = 0; k < 2; ++k) {
    const tkrt_json_value_t* v = tkrt_json_get(object, keys[k]);
    if (!v) continue;
    if (v->type != TKRT_JSON_NUMBER || !(v->number >= 0) || v->number > 1e300) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s: %s%s: expected a number >= 0",
                              file, where, keys[k]);
    }
    values[k] = v->number;
    given[k] = 1;
  }
  return NULL;
}

/* One member of "inputs" or "outputs": {"file": NAME, "dtype": T, "shape": [...]}. The file is a
 * name in the case folder (a case cannot point elsewhere); with dtype and shape its size must be
 * theirs, checked when `use` (the flags did not replace the list). */
static tkrt_status_t case_buffer(tkrt_run_options_t* o, const char* file, const char* where,
                                 const tkrt_json_value_t* entry, int use, const char** out_path,
                                 const case_dtype_t** out_dtype) {
  if (entry->type != TKRT_JSON_OBJECT) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s: %s: expected an object, not %s",
                            file, where, tkrt_json_type_name(entry->type));
  }
  const tkrt_json_value_t* name = tkrt_json_get(entry, "file");
  if (!name || name->type != TKRT_JSON_STRING || !name->length || strchr(name->string, '/') ||
      strcmp(name->string, ".") == 0 || strcmp(name->string, "..") == 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "%s: %s.file: expected the name of a file in the case folder", file,
                            where);
  }
  const tkrt_json_value_t* dtype = tkrt_json_get(entry, "dtype");
  const case_dtype_t* type = NULL;
  if (dtype) {
    size_t known = dtype->type == TKRT_JSON_STRING ? sizeof(kCaseDtypes) / sizeof(kCaseDtypes[0]) : 0;
    for (size_t i = 0; i < known; ++i) {
      if (strcmp(dtype->string, kCaseDtypes[i].name) == 0) type = &kCaseDtypes[i];
    }
    if (!type) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%s: %s.dtype: expected float16, bfloat16, float32, float64, "
                              "int8..int64, uint8..uint64 or bool",
                              file, where);
    }
  }
  const tkrt_json_value_t* shape = tkrt_json_get(entry, "shape");
  uint64_t elements = 1;
  if (shape) {
    if (shape->type != TKRT_JSON_ARRAY) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s: %s.shape: expected an array",
                              file, where);
    }
    for (size_t d = 0; d < shape->count; ++d) {
      const tkrt_json_value_t* n = &shape->items[d];
      if (n->type != TKRT_JSON_NUMBER || !n->is_integer || n->integer < 0 ||
          (n->integer && elements > (UINT64_C(1) << 48) / (uint64_t)n->integer)) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "%s: %s.shape[%zu]: expected a whole number >= 0 (and a shape of "
                                "at most 2^48 elements)",
                                file, where, d);
      }
      elements *= (uint64_t)n->integer;
    }
  }
  const char* path = NULL;
  TKRT_RETURN_IF_ERROR(own_path(o, o->path, name->string, &path));
  if (use && type && shape) {
    struct stat st; /* lstat: a symbolic link is refused when the file is read */
    if (lstat(path, &st) != 0) {
      int error = errno;
      return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "%s: %s: cannot find %s: %s", file,
                              where, path, strerror(error));
    }
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size != elements * type->size) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%s: %s: %s has %llu bytes, but %llu %s elements (its shape) are "
                              "%llu",
                              file, where, path, (unsigned long long)st.st_size,
                              (unsigned long long)elements, type->name,
                              (unsigned long long)(elements * type->size));
    }
  }
  *out_path = path;
  *out_dtype = type;
  return NULL;
}

/* "aliases": [{"input": I, "output": O}, ...], read as --alias I:O. */
static tkrt_status_t case_aliases(tkrt_run_options_t* o, const char* file,
                                  const tkrt_json_value_t* aliases) {
  if (aliases->type != TKRT_JSON_ARRAY || aliases->count > TKRT_CLI_MAX_BUFFERS) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "%s: aliases: expected an array of at most %d {\"input\": I, "
                            "\"output\": O}",
                            file, TKRT_CLI_MAX_BUFFERS);
  }
  for (size_t p = 0; p < aliases->count; ++p) {
    const tkrt_json_value_t* pair = &aliases->items[p];
    const tkrt_json_value_t* in = tkrt_json_get(pair, "input");
    const tkrt_json_value_t* out = tkrt_json_get(pair, "output");
    if (!in || !out || in->type != TKRT_JSON_NUMBER || out->type != TKRT_JSON_NUMBER ||
        !in->is_integer || !out->is_integer || in->integer < 0 || out->integer < 0 ||
        in->integer >= TKRT_CLI_MAX_BUFFERS || out->integer >= TKRT_CLI_MAX_BUFFERS) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%s: aliases[%zu]: expected {\"input\": I, \"output\": O}, each 0 to "
                              "%d (O: the output's ordinal)",
                              file, p, TKRT_CLI_MAX_BUFFERS - 1);
    }
    for (size_t q = 0; q < o->alias_count; ++q) {
      if (o->alias_out[q] == (size_t)out->integer) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "%s: aliases[%zu]: output %lld is aliased twice", file, p,
                                (long long)out->integer);
      }
    }
    o->alias_in[o->alias_count] = (size_t)in->integer;
    o->alias_out[o->alias_count++] = (size_t)out->integer;
  }
  o->aliases_given = 1;
  return NULL;
}

/* DIR/<prefix><i>.bin for i = 0, 1, ... while they exist. */
static tkrt_status_t scan_folder(tkrt_run_options_t* o, const char* prefix, const char** list,
                                 size_t* count) {
  struct stat st;
  for (size_t i = 0; i < TKRT_CLI_MAX_BUFFERS; ++i) {
    char name[32];
    const char* path = NULL;
    snprintf(name, sizeof(name), "%s%zu.bin", prefix, i);
    TKRT_RETURN_IF_ERROR(own_path(o, o->path, name, &path));
    if (stat(path, &st) != 0) {
      free(o->owned_paths[--o->owned_count]);
      break;
    }
    list[(*count)++] = path;
  }
  return NULL;
}

tkrt_status_t tkrt_cli_read_option_file(const tkrt_run_options_t* o, const char* path,
                                        size_t max_size, void** out_data, size_t* out_size) {
  unsigned flags = 0;
  for (size_t i = 0; i < o->owned_count; ++i) {
    if (path == o->owned_paths[i]) flags = TKRT_FS_READ_NOFOLLOW; /* the case named it */
  }
  return tkrt_fs_read_file(path, max_size, flags, out_data, out_size);
}

static tkrt_status_t read_case(tkrt_run_options_t* o, const char* file) {
  void* text = NULL;
  size_t size = 0;
  TKRT_RETURN_IF_ERROR(tkrt_cli_read_option_file(o, file, TKRT_CLI_MAX_CASE_JSON, &text, &size));
  tkrt_json_value_t* root = NULL;
  tkrt_status_t status = tkrt_json_parse(text, size, file, &root);
  free(text);
  TKRT_RETURN_IF_ERROR(status);
  o->case_json = root;
  o->case_file = file;
  if (root->type != TKRT_JSON_OBJECT) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s: expected an object, not %s", file,
                            tkrt_json_type_name(root->type));
  }
  static const char* const texts[2] = {"name", "note"};
  for (int t = 0; t < 2; ++t) {
    const tkrt_json_value_t* v = tkrt_json_get(root, texts[t]);
    if (v && v->type != TKRT_JSON_STRING) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%s: %s: expected a string", file,
                              texts[t]);
    }
    if (v) *(t ? &o->case_note : &o->case_name) = v->string;
  }
  double case_tolerance[2] = {0, 0};
  int case_given[2] = {0, 0};
  TKRT_RETURN_IF_ERROR(case_tolerances(file, "", root, case_tolerance, case_given));

  for (int kind = 0; kind < 2; ++kind) {
    const char* key = kind ? "outputs" : "inputs";
    const tkrt_json_value_t* list = tkrt_json_get(root, key);
    size_t* count = kind ? &o->expect_count : &o->input_count;
    const char** paths = kind ? o->expects : o->inputs;
    int use = *count == 0; /* --in / --expect replace the case's lists */
    if (!list) {
      if (use) TKRT_RETURN_IF_ERROR(scan_folder(o, kind ? "out" : "in", paths, count));
      continue;
    }
    if (list->type != TKRT_JSON_ARRAY || list->count > TKRT_CLI_MAX_BUFFERS) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%s: %s: expected an array of at most %d buffers", file, key,
                              TKRT_CLI_MAX_BUFFERS);
    }
    for (size_t i = 0; i < list->count; ++i) {
      char where[32];
      snprintf(where, sizeof(where), "%s[%zu]", key, i);
      const char* path = NULL;
      const case_dtype_t* type = NULL;
      TKRT_RETURN_IF_ERROR(case_buffer(o, file, where, &list->items[i], use, &path, &type));
      if (use) paths[(*count)++] = path;
      if (!kind) continue;
      double tolerance[2] = {case_tolerance[0], case_tolerance[1]};
      int given[2] = {case_given[0], case_given[1]};
      strcat(where, ".");
      TKRT_RETURN_IF_ERROR(case_tolerances(file, where, &list->items[i], tolerance, given));
      tkrt_cli_compare_t* compare = &o->compare[i];
      if (!o->dtype && type) {
        compare->dtype = type->compare;
        compare->what = type->name;
      }
      if (!o->rtol_given && given[0]) compare->rtol = tolerance[0];
      if (!o->atol_given && given[1]) compare->atol = tolerance[1];
      compare->tolerant |= given[0] || given[1];
    }
  }
  /* Outputs beyond the case's list: its case-wide tolerances. */
  const tkrt_json_value_t* outputs = tkrt_json_get(root, "outputs");
  for (size_t j = outputs ? outputs->count : 0; j < TKRT_CLI_MAX_BUFFERS; ++j) {
    if (!o->rtol_given && case_given[0]) o->compare[j].rtol = case_tolerance[0];
    if (!o->atol_given && case_given[1]) o->compare[j].atol = case_tolerance[1];
    o->compare[j].tolerant |= case_given[0] || case_given[1];
  }
  const tkrt_json_value_t* aliases = tkrt_json_get(root, "aliases");
  if (aliases && !o->aliases_given) TKRT_RETURN_IF_ERROR(case_aliases(o, file, aliases));
  return NULL;
}

tkrt_status_t tkrt_cli_resolve_case(tkrt_run_options_t* o) {
  for (size_t j = 0; j < TKRT_CLI_MAX_BUFFERS; ++j) {
    tkrt_cli_compare_t* compare = &o->compare[j];
    compare->dtype = compare->what = o->dtype ? o->dtype : "f32";
    compare->rtol = o->rtol;
    compare->atol = o->atol;
    compare->tolerant = o->rtol_given || o->atol_given;
  }
  if (!o->path || !tkrt_cli_is_directory(o->path)) return NULL;
  const char* file = NULL;
  TKRT_RETURN_IF_ERROR(own_path(o, o->path, "case.json", &file));
  struct stat st;
  if (stat(file, &st) == 0) return read_case(o, file);
  int error = errno;
  if (error != ENOENT) {
    return TKRT_STATUS_MAKE(tkrt_fs_errno_code(error), "cannot read %s: %s", file, strerror(error));
  }
  if (!o->input_count) TKRT_RETURN_IF_ERROR(scan_folder(o, "in", o->inputs, &o->input_count));
  if (!o->expect_count) TKRT_RETURN_IF_ERROR(scan_folder(o, "out", o->expects, &o->expect_count));
  return NULL;
}
