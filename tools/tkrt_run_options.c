/* tkrt run and tkrt tune: their options, parsed into a run_options_t. Kept apart from the session
 * so that the parser can be fuzzed (test/fuzz/cli_options_fuzz.c) without opening a device. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/tkrt_cli.h"

static const char kRunUsage[] =
    "usage: tkrt run FILE|DIR [options]\n"
    "\n"
    "Launches a serialized call (zlib or raw TritonAnyKernelCall) on real buffers: allocates them,\n"
    "uploads the inputs, tunes if the call is autotuned and no decision is known, launches, downloads\n"
    "the outputs, compares them with the expected files, and prints the timing and the chosen config.\n"
    "DIR is a case directory (as in the jaxlib vectors): call.pb.z (or call.pb), in0.bin, in1.bin, ...\n"
    "as inputs and out0.bin, out1.bin, ... as expected outputs, unless --in / --expect are given.\n"
    "\n"
    "  --in FILE          an input buffer, in order (repeatable; a non-empty regular file)\n"
    "  --expect FILE      the expected bytes of the next output (repeatable); also sizes it\n"
    "  --out-size BYTES   the size of the next output when there is no --expect (repeatable)\n"
    "  --alias IN:OUT     output OUT is input IN's buffer (XLA input_output_aliases); default: the\n"
    "                     call's alias records, read as (input, output ordinal)\n"
    "  --rtol R --atol A  compare as numbers of --dtype within |got-want| <= A + R*|want|;\n"
    "                     without them outputs must match bit for bit\n"
    "  --dtype T          element type for tolerant comparison: f16 bf16 f32 f64 (default f32)\n"
    "  --backend B        cuda, hip, host or a comma list (default: TKRT_BACKEND, then cuda,hip,host)\n"
    "  --device N         device ordinal (default 0)\n"
    "  --iterations N     timed launches after the checked one (default 20; 0 to skip; at most\n"
    "                     1000000)\n"
    "  --store DIR|off    tuning decision store (default: TKRT_TUNE_DIR, then ~/.cache/tkrt/tune)\n"
    "  --policy auto|never   tune when no decision is known (auto), or use the first config\n"
    "  --pin N            run config N, never benchmark\n"
    "  --save DIR         write the outputs to DIR/out<i>.bin (each replaced atomically)\n"
    "  --allow-native-code  let the call's host images (native shared objects, which run on this\n"
    "                     CPU with your rights as soon as they load) be loaded; off by default:\n"
    "                     only run calls you trust with it (docs/security.md)\n"
    "  --read-hsaco-paths read the HSACO files that a ROCm call names by path (off by default: a\n"
    "                     call from elsewhere could name any file)\n"
    "exit status: 0 outputs as expected, 1 an output differs, 2 bad usage, 3 error.\n";

static const char kTuneUsage[] =
    "usage: tkrt tune FILE|DIR [options]\n"
    "\n"
    "Benchmarks every config of an autotuned call on real buffers (as `tkrt run` sets them up, with\n"
    "aliased inputs restored before each config), shows progress, prints a per-config timing table\n"
    "and stores the decision (replacing a stored one) so that later processes do not retune.\n"
    "Options as for `tkrt run` (--in --expect --out-size --alias --backend --device --store\n"
    "--allow-native-code --read-hsaco-paths), plus:\n"
    "  --target-ms MS     time to fill per config and pass (default 10, as jaxlib)\n"
    "  --max-iterations N most launches per config (default 100)\n"
    "exit status: 0 tuned (and outputs as expected when given), 1 an output differs, 2 bad usage,\n"
    "3 error.\n";

/* Upper bounds of the numeric options: beyond them a value is a typo, not a wish. */
#define TKRT_CLI_MAX_OUT_SIZE ((uint64_t)1 << 40) /* 1 TiB */
#define TKRT_CLI_MAX_ITERATIONS 1000000u
#define TKRT_CLI_MAX_PIN 1000000u

/* Case folders' file names, kept alive for the whole command. */
static char g_case_paths[2][TKRT_CLI_MAX_BUFFERS][4200];

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

void tkrt_cli_run_options_init(tkrt_run_options_t* o, int tune) {
  memset(o, 0, sizeof(*o));
  o->command = tune ? "tune" : "run";
  o->tune = tune;
  o->iterations = tune ? 0 : 20;
  o->pin = -1;
  o->target_ms = -1;
}

int tkrt_cli_parse_run_options(int argc, char** argv, tkrt_run_options_t* o) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* next = i + 1 < argc ? argv[i + 1] : NULL;
    uint64_t number = 0;
#define NEED_VALUE() \
  if (!next) return tkrt_cli_usage_error(o->command, "%s needs a value", a); \
  ++i
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(o->tune ? kTuneUsage : kRunUsage, stdout);
      return -1;
    } else if (strcmp(a, "--in") == 0) {
      NEED_VALUE();
      if (o->input_count == TKRT_CLI_MAX_BUFFERS) {
        return tkrt_cli_usage_error(o->command, "too many --in (at most %d)", TKRT_CLI_MAX_BUFFERS);
      }
      o->inputs[o->input_count++] = next;
    } else if (strcmp(a, "--expect") == 0) {
      NEED_VALUE();
      if (o->expect_count == TKRT_CLI_MAX_BUFFERS) {
        return tkrt_cli_usage_error(o->command, "too many --expect (at most %d)",
                                    TKRT_CLI_MAX_BUFFERS);
      }
      o->expects[o->expect_count++] = next;
    } else if (strcmp(a, "--out-size") == 0) {
      NEED_VALUE();
      if (!parse_number(next, TKRT_CLI_MAX_OUT_SIZE, &number)) {
        return bad_number(o->command, a, next, TKRT_CLI_MAX_OUT_SIZE);
      }
      if (o->out_size_count == TKRT_CLI_MAX_BUFFERS) {
        return tkrt_cli_usage_error(o->command, "too many --out-size (at most %d)",
                                    TKRT_CLI_MAX_BUFFERS);
      }
      o->out_sizes[o->out_size_count++] = number;
    } else if (strcmp(a, "--alias") == 0) {
      NEED_VALUE();
      const char* colon = strchr(next, ':');
      char in_text[24];
      uint64_t in = 0, out = 0;
      if (!colon || (size_t)(colon - next) >= sizeof(in_text) ||
          !(memcpy(in_text, next, (size_t)(colon - next)), in_text[colon - next] = '\0',
            parse_number(in_text, TKRT_CLI_MAX_BUFFERS - 1, &in)) ||
          !parse_number(colon + 1, TKRT_CLI_MAX_BUFFERS - 1, &out)) {
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
    } else if (strcmp(a, "--rtol") == 0 || strcmp(a, "--atol") == 0) {
      NEED_VALUE();
      char* end = NULL;
      double value = strtod(next, &end);
      if (end == next || *end || !(value >= 0) || value > 1e300) {
        return tkrt_cli_usage_error(o->command, "bad %s '%s' (a finite number >= 0)", a, next);
      }
      if (a[2] == 'r') {
        o->rtol = value;
      } else {
        o->atol = value;
      }
      o->tolerant = 1;
    } else if (strcmp(a, "--dtype") == 0) {
      NEED_VALUE();
      if (strcmp(next, "f16") && strcmp(next, "bf16") && strcmp(next, "f32") && strcmp(next, "f64")) {
        return tkrt_cli_usage_error(o->command, "unknown --dtype '%s' (f16, bf16, f32, f64)", next);
      }
      o->dtype = next;
    } else if (strcmp(a, "--backend") == 0) {
      NEED_VALUE();
      o->backend = next;
    } else if (strcmp(a, "--device") == 0) {
      NEED_VALUE();
      if (!parse_number(next, INT_MAX, &number)) return bad_number(o->command, a, next, INT_MAX);
      o->ordinal = (int)number;
    } else if (strcmp(a, "--iterations") == 0 && !o->tune) {
      NEED_VALUE();
      if (!parse_number(next, TKRT_CLI_MAX_ITERATIONS, &number)) {
        return bad_number(o->command, a, next, TKRT_CLI_MAX_ITERATIONS);
      }
      o->iterations = (long)number;
    } else if (strcmp(a, "--store") == 0) {
      NEED_VALUE();
      o->store = next;
    } else if (strcmp(a, "--policy") == 0 && !o->tune) {
      NEED_VALUE();
      if (strcmp(next, "auto") && strcmp(next, "never")) {
        return tkrt_cli_usage_error(o->command, "bad --policy '%s' (auto or never)", next);
      }
      o->policy = next;
    } else if (strcmp(a, "--pin") == 0 && !o->tune) {
      NEED_VALUE();
      if (!parse_number(next, TKRT_CLI_MAX_PIN, &number)) {
        return bad_number(o->command, a, next, TKRT_CLI_MAX_PIN);
      }
      o->pin = (long)number;
    } else if (strcmp(a, "--save") == 0 && !o->tune) {
      NEED_VALUE();
      o->save_dir = next;
    } else if (strcmp(a, "--allow-native-code") == 0) {
      o->allow_native_code = 1;
    } else if (strcmp(a, "--read-hsaco-paths") == 0) {
      o->read_hsaco_paths = 1;
    } else if (strcmp(a, "--target-ms") == 0 && o->tune) {
      NEED_VALUE();
      char* end = NULL;
      o->target_ms = strtod(next, &end);
      if (end == next || *end || !(o->target_ms >= 0) || o->target_ms > 3600e3) {
        return tkrt_cli_usage_error(o->command, "bad --target-ms '%s' (0 to 3600000)", next);
      }
    } else if (strcmp(a, "--max-iterations") == 0 && o->tune) {
      NEED_VALUE();
      if (!parse_number(next, TKRT_CLI_MAX_ITERATIONS, &number) || number == 0) {
        return tkrt_cli_usage_error(o->command, "bad --max-iterations '%s' (1 to %u)", next,
                                    TKRT_CLI_MAX_ITERATIONS);
      }
      o->max_iterations = (long)number;
    } else if (a[0] == '-' || o->path) {
      return tkrt_cli_usage_error(o->command, "unexpected argument '%s'", a);
    } else {
      o->path = a;
    }
#undef NEED_VALUE
  }
  if (!o->path) return tkrt_cli_usage_error(o->command, "no call file or case directory given");
  if (tkrt_cli_is_directory(o->path)) {
    struct stat st;
    for (int kind = 0; kind < 2; ++kind) {
      size_t* count = kind == 0 ? &o->input_count : &o->expect_count;
      const char** list = kind == 0 ? o->inputs : o->expects;
      if (*count) continue; /* explicit files win over the folder's */
      for (size_t i = 0; i < TKRT_CLI_MAX_BUFFERS; ++i) {
        snprintf(g_case_paths[kind][i], sizeof(g_case_paths[kind][i]), "%s/%s%zu.bin", o->path,
                 kind == 0 ? "in" : "out", i);
        if (stat(g_case_paths[kind][i], &st) != 0) break;
        list[(*count)++] = g_case_paths[kind][i];
      }
    }
  }
  return 0;
}
