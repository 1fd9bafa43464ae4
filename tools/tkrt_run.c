/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt run and tkrt tune: replay a serialized call on real buffers (inputs from files), check the
 * outputs against expected files, time it, and report or store the tuning decision. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tools/tkrt_cli.h"

#define MAX_BUFFERS TKRT_CLI_MAX_BUFFERS
/* Input and expected-output files larger than this are refused before reading. */
#define TKRT_CLI_MAX_BUFFER_FILE ((size_t)1 << 36)

/* ---------------------------------------------------------------- comparing */

static double half_to_double(uint16_t h) {
  int exponent = (h >> 10) & 31, mantissa = h & 1023;
  double sign = h & 0x8000 ? -1.0 : 1.0;
  if (exponent == 0) return sign * ldexp(mantissa, -24);
  if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
  return sign * ldexp(mantissa + 1024, exponent - 25);
}

static double element(const unsigned char* data, size_t index, const char* dtype) {
  if (strcmp(dtype, "f16") == 0) {
    uint16_t h;
    memcpy(&h, data + index * 2, 2);
    return half_to_double(h);
  }
  if (strcmp(dtype, "bf16") == 0) {
    uint16_t h;
    memcpy(&h, data + index * 2, 2);
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
  }
  if (strcmp(dtype, "f64") == 0) {
    double d;
    memcpy(&d, data + index * 8, 8);
    return d;
  }
  float f;
  memcpy(&f, data + index * 4, 4);
  return f;
}

static size_t dtype_size(const char* dtype) {
  return strcmp(dtype, "f64") == 0 ? 8 : strcmp(dtype, "f32") == 0 ? 4 : 2;
}

/* Returns 1 when the output matches; prints a one-line verdict. */
static int compare_output(const tkrt_cli_compare_t* how, size_t index, const unsigned char* got,
                          const unsigned char* want, size_t size) {
  if (how->tolerant && !how->dtype) {
    printf("output %zu: %s elements have no tolerance; comparing bit for bit\n", index, how->what);
  }
  if (!how->tolerant || !how->dtype) {
    size_t differing = 0, first = size;
    for (size_t i = 0; i < size; ++i) {
      if (got[i] != want[i]) {
        if (first == size) first = i;
        ++differing;
      }
    }
    if (differing) {
      printf("output %zu: MISMATCH: %zu of %zu bytes differ (first at byte %zu)\n", index,
             differing, size, first);
      return 0;
    }
    printf("output %zu: matches bit for bit (%zu bytes)\n", index, size);
    return 1;
  }
  const char* dtype = how->dtype;
  size_t count = size / dtype_size(dtype), bad = 0, worst = 0;
  double max_abs = 0, max_rel = 0, err2 = 0, ref2 = 0;
  for (size_t i = 0; i < count; ++i) {
    double g = element(got, i, dtype), w = element(want, i, dtype);
    if (isnan(g) && isnan(w)) continue;
    double diff = fabs(g - w);
    err2 += diff * diff;
    ref2 += w * w;
    if (!(diff <= how->atol + how->rtol * fabs(w))) {
      if (!bad) worst = i;
      ++bad;
    }
    if (diff > max_abs) max_abs = diff;
    if (w != 0 && diff / fabs(w) > max_rel) max_rel = diff / fabs(w);
  }
  double frobenius = ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2);
  printf("output %zu: %s: %zu of %zu %s elements outside rtol %g atol %g; max abs err %.3g, "
         "max rel err %.3g, relative Frobenius err %.3g\n",
         index, bad ? "MISMATCH" : "within tolerance", bad, count, dtype, how->rtol, how->atol,
         max_abs, max_rel, frobenius);
  if (bad) {
    printf("  first outside: element %zu: got %.9g, expected %.9g\n", worst,
           element(got, worst, dtype), element(want, worst, dtype));
  }
  return bad == 0;
}

/* ---------------------------------------------------------------- reports: timing, decisions,
 * --json (shared with Triton's output, tkrt_triton.c) */

/* ---------------------------------------------------------------- timing */

/* Samples timed with device events: every launch belongs to one, so the mean is exact, and the
 * median / min / p90 are over samples of (nearly) equal launch counts. */
#define TKRT_CLI_MAX_SAMPLES 1000

static int compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

tkrt_status_t tkrt_cli_time_launches(tkrt_device_t* device, long launches,
                                     tkrt_status_t (*launch)(void*), void* user,
                                     tkrt_cli_timing_t* out) {
  memset(out, 0, sizeof(*out));
  if (launches <= 0) return NULL;
  size_t samples = launches < TKRT_CLI_MAX_SAMPLES ? (size_t)launches : TKRT_CLI_MAX_SAMPLES;
  long base = launches / (long)samples, extra = launches % (long)samples;
  tkrt_event_t* events = calloc(samples + 1, sizeof(*events));
  double* per_launch = calloc(samples, sizeof(*per_launch));
  tkrt_status_t status = NULL;
  if (!events || !per_launch) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  for (size_t i = 0; i <= samples && !status; ++i) status = tkrt_event_create(device, &events[i]);
  if (!status) status = tkrt_event_record(device, events[0], NULL);
  for (size_t i = 0; i < samples && !status; ++i) {
    long count = base + ((long)i < extra);
    for (long l = 0; l < count && !status; ++l) status = launch(user);
    if (!status) status = tkrt_event_record(device, events[i + 1], NULL);
  }
  if (!status) status = tkrt_event_synchronize(device, events[samples]);
  float total = 0;
  for (size_t i = 0; i < samples && !status; ++i) {
    float ms = 0;
    status = tkrt_event_elapsed_ms(device, events[i], events[i + 1], &ms);
    per_launch[i] = (double)ms / (double)(base + ((long)i < extra));
  }
  if (!status) status = tkrt_event_elapsed_ms(device, events[0], events[samples], &total);
  if (!status) {
    qsort(per_launch, samples, sizeof(*per_launch), compare_doubles);
    out->launches = launches;
    out->samples = samples;
    out->launches_per_sample = base;
    out->launches_per_sample_max = base + (extra ? 1 : 0);
    out->mean_ms = (double)total / (double)launches;
    out->min_ms = per_launch[0];
    out->median_ms = samples % 2 ? per_launch[samples / 2]
                                 : (per_launch[samples / 2 - 1] + per_launch[samples / 2]) / 2;
    size_t rank = (samples * 9 + 9) / 10; /* nearest rank: ceil(0.9 n) */
    out->p90_ms = per_launch[rank - 1];
  }
  for (size_t i = 0; events && i <= samples; ++i) {
    if (events[i]) tkrt_status_free(tkrt_event_destroy(device, events[i]));
  }
  free(events);
  free(per_launch);
  return status;
}

static void print_sample_size(FILE* out, const tkrt_cli_timing_t* t) {
  if (t->launches_per_sample_max != t->launches_per_sample) {
    fprintf(out, "%ld-%ld", t->launches_per_sample, t->launches_per_sample_max);
  } else {
    fprintf(out, "%ld", t->launches_per_sample);
  }
}

void tkrt_cli_print_timing(FILE* out, const tkrt_cli_timing_t* t) {
  fprintf(out, "timing: %.4f ms per launch (mean of %ld launches, device events); median %.4f, "
          "min %.4f, p90 %.4f ms per launch over %zu samples of ",
          t->mean_ms, t->launches, t->median_ms, t->min_ms, t->p90_ms, t->samples);
  print_sample_size(out, t);
  fprintf(out, " launch%s\n", t->launches_per_sample_max == 1 ? "" : "es");
}

void tkrt_cli_json_timing(FILE* out, const tkrt_cli_timing_t* t) {
  if (!t || !t->launches) {
    fputs("null", out);
    return;
  }
  fprintf(out, "{\"launches\": %ld, \"samples\": %zu, \"launches_per_sample\": [%ld, %ld], "
          "\"mean_ms\": %.6g, \"median_ms\": %.6g, \"min_ms\": %.6g, \"p90_ms\": %.6g}",
          t->launches, t->samples, t->launches_per_sample, t->launches_per_sample_max, t->mean_ms,
          t->median_ms, t->min_ms, t->p90_ms);
}

/* ---------------------------------------------------------------- the decision */

tkrt_status_t tkrt_cli_decision_get(tkrt_autotuner_t* tuner, const tkrt_call_t* call,
                                    const char* arch, tkrt_cli_decision_t* d) {
  memset(d, 0, sizeof(*d));
  size_t count = tkrt_call_get_desc(call)->config_count;
  d->times = malloc((count ? count : 1) * sizeof(*d->times));
  d->pruned = calloc(count ? count : 1, sizeof(*d->pruned));
  if (!d->times || !d->pruned) {
    tkrt_cli_decision_free(d);
    return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  for (size_t i = 0; i < count; ++i) d->times[i] = TKRT_TUNE_SKIPPED_MS;
  tkrt_tune_report_init(&d->report);
  d->report.times_ms = d->times;
  d->report.pruned = d->pruned;
  d->report.times_capacity = count; /* every config: the table shows each one's time */
  tkrt_status_t status = tkrt_autotuner_get_report(tuner, call, arch, &d->report);
  if (status) tkrt_cli_decision_free(d);
  return status;
}

void tkrt_cli_decision_free(tkrt_cli_decision_t* d) {
  free(d->times);
  free(d->pruned);
  d->times = NULL;
  d->pruned = NULL;
}

/* Launches a config's time stands for: the first round's for a pruned config, else the pass's. */
static uint32_t config_launches(const tkrt_cli_decision_t* d, size_t c) {
  if (d->times[c] < 0) return 0;
  if (d->pruned[c] && d->report.round1_iterations) return d->report.round1_iterations;
  return d->report.iterations;
}

void tkrt_cli_json_decision(FILE* out, const tkrt_call_t* call, const tkrt_cli_decision_t* d) {
  const tkrt_call_desc_t* desc = tkrt_call_get_desc(call);
  const tkrt_tune_report_t* r = &d->report;
  const tkrt_config_desc_t* chosen = &desc->configs[r->chosen];
  fprintf(out, "\"decision\": {\"config\": %zu, \"config_count\": %zu, \"source\": \"%s\", "
          "\"description\": ", r->chosen, desc->config_count, tkrt_tune_source_name(r->source));
  tkrt_cli_json_string(out, chosen->description);
  fputs(", \"kernel\": ", out);
  tkrt_cli_json_string(out, tkrt_kernel_get_desc(chosen->kernel)->name);
  fputs(", \"store_file\": ", out);
  tkrt_cli_json_string(out, r->store_file[0] ? r->store_file : NULL);
  fputs(", \"fallback_reason\": ", out);
  tkrt_cli_json_string(out, r->fallback_reason[0] ? r->fallback_reason : NULL);
  fputs(", \"skip_reason\": ", out);
  tkrt_cli_json_string(out, r->skip_reason[0] ? r->skip_reason : NULL);
  fprintf(out, ",\n    \"launches_per_config\": %u, \"round1_launches\": %u, \"prune_margin\": %g, "
          "\"pruned_count\": %zu, \"timed_launches\": %llu},\n",
          r->iterations, r->round1_iterations, r->prune_margin, r->pruned_count,
          (unsigned long long)r->timed_launches);
  /* Each config's time is the tuner's mean over its launches (the tuner keeps means only). */
  fputs("  \"configs\": [", out);
  for (size_t c = 0; c < desc->config_count; ++c) {
    const tkrt_config_desc_t* config = &desc->configs[c];
    const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(config->kernel);
    fprintf(out, "%s\n    {\"index\": %zu, \"chosen\": %s, \"description\": ", c ? "," : "", c,
            c == r->chosen ? "true" : "false");
    tkrt_cli_json_string(out, config->description);
    fputs(", \"kernel\": ", out);
    tkrt_cli_json_string(out, k->name);
    fprintf(out, ", \"num_warps\": %u, \"grid\": [%u, %u, %u], \"shared_mem_bytes\": %u, ",
            k->num_warps, config->grid[0], config->grid[1], config->grid[2], k->shared_mem_bytes);
    if (d->times[c] >= 0) {
      fprintf(out, "\"mean_ms\": %.6g, \"launches\": %u, \"pruned\": %s}", (double)d->times[c],
              config_launches(d, c), d->pruned[c] ? "true" : "false");
    } else {
      fputs("\"mean_ms\": null, \"launches\": 0, \"pruned\": false}", out);
    }
  }
  fputs("\n  ]", out);
}

/* ---------------------------------------------------------------- --json's stdout */

FILE* tkrt_cli_json_begin(void) {
  fflush(stdout);
  int fd = dup(STDOUT_FILENO);
  FILE* json = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!json) {
    if (fd >= 0) close(fd);
    return NULL;
  }
  /* What the command prints for people goes to stderr from here on: stdout is the JSON only. */
  dup2(STDERR_FILENO, STDOUT_FILENO);
  return json;
}

/* ---------------------------------------------------------------- the session */

/* One command's state: the runtime (settings, device, tuner) and what this command made. */
typedef struct session {
  tkrt_runtime_t* runtime;
  tkrt_device_t* device;              /* the runtime's */
  tkrt_call_t* call;
  const tkrt_runtime_call_t* adopted; /* the call, as the runtime keeps it */
  tkrt_autotuner_t* tuner;            /* the runtime's */
  tkrt_buffer_t buffers[2 * MAX_BUFFERS];
  int owned[2 * MAX_BUFFERS]; /* this buffer is an allocation to free */
  size_t input_count, output_count;
  void* expected[MAX_BUFFERS];
  size_t expected_size[MAX_BUFFERS];
} session_t;

static void session_close(session_t* s) {
  for (size_t i = 0; i < s->input_count + s->output_count; ++i) {
    if (s->owned[i]) tkrt_status_free(tkrt_memory_free(s->device, s->buffers[i].ptr));
  }
  for (size_t i = 0; i < MAX_BUFFERS; ++i) free(s->expected[i]);
  tkrt_call_release(s->call);
  tkrt_runtime_release(s->runtime); /* its device, tuner and adopted call */
}

static tkrt_status_t session_open(const tkrt_run_options_t* o, session_t* s, int* usage) {
  if (o->save_dir) {
    /* Made before anything runs, so that a folder that cannot be made costs no launch. */
    TKRT_RETURN_IF_ERROR(tkrt_status_annotate(tkrt_cli_make_folder(o->save_dir), "--save"));
  }
  TKRT_RETURN_IF_ERROR(tkrt_cli_load_call(o->path, o->read_hsaco_paths, &s->call));
  TKRT_RETURN_IF_ERROR(tkrt_cli_session_runtime(&o->session, o->tune, "config",
                                                o->prune_margin,
                                                o->session.allow_native_code != 0, &s->runtime));
  TKRT_RETURN_IF_ERROR(tkrt_cli_session_device(&o->session, s->runtime, usage, &s->device));
  TKRT_RETURN_IF_ERROR(tkrt_runtime_tuner(s->runtime, &s->tuner));
  TKRT_RETURN_IF_ERROR(tkrt_runtime_call_adopt(s->runtime, s->call, &s->adopted));
  TKRT_RETURN_IF_ERROR(tkrt_cli_session_pin(&o->session, s->tuner, s->call, usage));

  s->input_count = o->input_count;
  for (size_t i = 0; i < o->input_count; ++i) {
    void* bytes = NULL;
    size_t size = 0;
    TKRT_RETURN_IF_ERROR(
        tkrt_cli_read_option_file(o, o->inputs[i], TKRT_CLI_MAX_BUFFER_FILE, &bytes, &size));
    if (size == 0) {
      /* A device buffer cannot be empty (there would be no address to pass). */
      free(bytes);
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "input %zu (%s) is empty: an input buffer needs at least one byte", i,
                              o->inputs[i]);
    }
    tkrt_status_t status = tkrt_memory_alloc(s->device, size, &s->buffers[i].ptr);
    if (!status) {
      s->owned[i] = 1;
      s->buffers[i].size = size;
      status = tkrt_memcpy_htod_async(s->device, s->buffers[i].ptr, bytes, size, NULL);
    }
    if (!status) status = tkrt_stream_synchronize(s->device, NULL);
    free(bytes);
    if (status) return tkrt_status_annotate(status, "input %zu (%s)", i, o->inputs[i]);
  }

  /* Outputs: as many as expected files or --out-size values. */
  s->output_count = o->expect_count > o->out_size_count ? o->expect_count : o->out_size_count;
  uint64_t sizes[MAX_BUFFERS] = {0};
  for (size_t i = 0; i < o->expect_count; ++i) {
    TKRT_RETURN_IF_ERROR(tkrt_cli_read_option_file(o, o->expects[i], TKRT_CLI_MAX_BUFFER_FILE,
                                                   &s->expected[i], &s->expected_size[i]));
    if (s->expected_size[i] == 0) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "expected output %zu (%s) is empty: an output buffer needs at least "
                              "one byte",
                              i, o->expects[i]);
    }
    sizes[i] = s->expected_size[i];
  }
  for (size_t i = 0; i < o->out_size_count; ++i) {
    if (i < o->expect_count && o->out_sizes[i] != sizes[i]) {
      *usage = 1;
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "--out-size %llu for output %zu disagrees with %s (%llu bytes)",
                              (unsigned long long)o->out_sizes[i], i, o->expects[i],
                              (unsigned long long)sizes[i]);
    }
    sizes[i] = o->out_sizes[i];
  }
  /* Aliases: --alias pairs, else the call's records read as (input, output ordinal). */
  long alias_of[MAX_BUFFERS];
  for (size_t i = 0; i < MAX_BUFFERS; ++i) alias_of[i] = -1;
  const tkrt_call_desc_t* desc = tkrt_call_get_desc(s->call);
  size_t pairs = o->aliases_given ? o->alias_count : desc->alias_count;
  for (size_t p = 0; p < pairs; ++p) {
    size_t in = o->aliases_given ? o->alias_in[p] : (size_t)desc->aliases[p].input_index;
    size_t out = o->aliases_given ? o->alias_out[p] : (size_t)desc->aliases[p].output_index;
    if (!o->aliases_given && out >= s->output_count && out >= s->input_count &&
        out - s->input_count < s->output_count) {
      out -= s->input_count; /* jaxlib's reading: a buffer index */
    }
    if (in >= s->input_count || out >= s->output_count) {
      *usage = o->alias_flags; /* --alias (a case.json's aliases are the case's error) */
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "alias %zu:%zu names a buffer that does not exist (%zu inputs, %zu "
                              "outputs)",
                              in, out, s->input_count, s->output_count);
    }
    alias_of[out] = (long)in;
  }
  for (size_t j = 0; j < s->output_count; ++j) {
    tkrt_buffer_t* b = &s->buffers[s->input_count + j];
    if (alias_of[j] >= 0) {
      *b = s->buffers[alias_of[j]]; /* the same memory, as XLA passes a donated input */
      if (sizes[j] && b->size && sizes[j] != b->size) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "output %zu aliases input %ld but their sizes differ (%llu vs %llu)",
                                j, alias_of[j], (unsigned long long)sizes[j],
                                (unsigned long long)b->size);
      }
      continue;
    }
    if (!sizes[j]) {
      *usage = 1;
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "the size of output %zu is unknown: give --expect or --out-size", j);
    }
    TKRT_RETURN_IF_ERROR(tkrt_memory_alloc(s->device, sizes[j], &b->ptr));
    s->owned[s->input_count + j] = 1;
    b->size = sizes[j];
    TKRT_RETURN_IF_ERROR(tkrt_memset_async(s->device, b->ptr, 0, sizes[j], NULL));
  }
  return tkrt_stream_synchronize(s->device, NULL);
}

static tkrt_status_t session_launch(session_t* s) {
  tkrt_call_launch_args_t args; /* buffers carry their sizes: aliases found by address */
  tkrt_call_launch_args_init(&args);
  args.device = s->device;
  args.buffers = s->buffers;
  args.input_count = s->input_count;
  args.output_count = s->output_count;
  return tkrt_runtime_launch(s->runtime, s->adopted->call, &args);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A table cell: the text with control and non-ASCII bytes replaced by '?', cut to fit. */
static void printable(const char* text, char* out, size_t capacity) {
  size_t n = 0;
  for (; text[n] && n + 1 < capacity; ++n) {
    unsigned char c = (unsigned char)text[n];
    out[n] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
  }
  out[n] = '\0';
}

static void print_decision(session_t* s, const tkrt_cli_decision_t* d, int table) {
  const tkrt_call_desc_t* desc = tkrt_call_get_desc(s->call);
  const tkrt_tune_report_t* r = &d->report;
  const tkrt_config_desc_t* chosen = &desc->configs[r->chosen];
  /* Configs are numbered from 0 everywhere: here, in the table, the progress lines, --pin,
   * TKRT_TUNE_PIN and the decision store. */
  printf("config: %zu of 0..%zu", r->chosen, desc->config_count - 1);
  if (chosen->description) printf(" '%s'", tkrt_cli_escaped(chosen->description));
  printf(" (kernel %s), decided by: %s\n",
         tkrt_cli_escaped(tkrt_kernel_get_desc(chosen->kernel)->name),
         tkrt_tune_source_name(r->source));
  if (!table || desc->config_count == 1) return;
  printf("\n  %-3s %-28s %-20s %5s %-16s %9s %12s\n", "#", "description", "kernel", "warps", "grid",
         "shared", "ms/launch");
  for (size_t c = 0; c < desc->config_count; ++c) {
    const tkrt_config_desc_t* config = &desc->configs[c];
    const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(config->kernel);
    char grid[32], time[32];
    snprintf(grid, sizeof(grid), "%ux%ux%u", config->grid[0], config->grid[1], config->grid[2]);
    if (d->times[c] >= 0 && d->pruned[c] && r->round1_best_ms > 0) {
      /* Timed in round 1 only: its mean there, as a factor of the best. */
      snprintf(time, sizeof(time), "pruned %.2fx", (double)(d->times[c] / r->round1_best_ms));
    } else if (d->times[c] >= 0) {
      snprintf(time, sizeof(time), "%.4f", (double)d->times[c]);
    } else {
      snprintf(time, sizeof(time), "skipped");
    }
    char description[29], name[21];
    printable(config->description ? config->description : "", description, sizeof(description));
    printable(k->name, name, sizeof(name));
    printf("%s %-3zu %-28.28s %-20.20s %5u %-16s %9u %12s\n", c == r->chosen ? "*" : " ", c,
           description, name, k->num_warps, grid, k->shared_mem_bytes, time);
  }
  if (r->skip_reason[0]) printf("  skipped: %s\n", tkrt_cli_escaped(r->skip_reason));
  if (r->round1_iterations) {
    printf("  (pass 2: %u launches per config in two rounds, %u in the first; %zu of %zu configs "
           "pruned there, slower than %.2fx the best first-round %.4f ms; %llu timed launches in "
           "all)\n",
           r->iterations, r->round1_iterations, r->pruned_count, desc->config_count,
           1.0 + r->prune_margin, (double)r->round1_best_ms,
           (unsigned long long)r->timed_launches);
  } else {
    printf("  (%u timed launches per config)\n", r->iterations);
  }
}

static tkrt_status_t launch_once(void* user) { return session_launch(user); }

/* {"command", "call", "case", "device", "decision", "configs", "first_launch_ms", "outputs",
 * "timing", "result"}: what `run --json` and `tune --json` print on stdout. */
static void print_json(FILE* out, const tkrt_run_options_t* o, session_t* s,
                       const tkrt_cli_decision_t* d, double first_ms, const int* matches,
                       const tkrt_cli_timing_t* timing, int result) {
  const tkrt_device_info_t* info = tkrt_device_info(s->device);
  fprintf(out, "{\n  \"command\": \"%s\",\n  \"call\": ", o->command);
  tkrt_cli_json_string(out, o->path);
  fputs(",\n  \"case\": ", out);
  if (o->case_file) {
    fputs("{\"file\": ", out);
    tkrt_cli_json_string(out, o->case_file);
    fputs(", \"name\": ", out);
    tkrt_cli_json_string(out, o->case_name);
    fputs(", \"note\": ", out);
    tkrt_cli_json_string(out, o->case_note);
    fputs("}", out);
  } else {
    fputs("null", out);
  }
  fputs(",\n  \"device\": {\"backend\": ", out);
  tkrt_cli_json_string(out, info->backend);
  fprintf(out, ", \"ordinal\": %d, \"name\": ", info->ordinal);
  tkrt_cli_json_string(out, info->name);
  fputs(", \"arch\": ", out);
  tkrt_cli_json_string(out, info->arch);
  fputs("},\n  ", out);
  tkrt_cli_json_decision(out, s->call, d);
  fprintf(out, ",\n  \"first_launch_ms\": %.6g,\n  \"outputs\": [", first_ms);
  for (size_t j = 0; j < s->output_count; ++j) {
    fprintf(out, "%s{\"index\": %zu, \"bytes\": %llu, \"expected\": ", j ? ", " : "", j,
            (unsigned long long)s->buffers[s->input_count + j].size);
    tkrt_cli_json_string(out, j < o->expect_count ? o->expects[j] : NULL);
    fprintf(out, ", \"matches\": %s}",
            j >= o->expect_count ? "null" : matches[j] ? "true" : "false");
  }
  fputs("],\n  \"timing\": ", out);
  tkrt_cli_json_timing(out, timing);
  fprintf(out, ",\n  \"result\": \"%s\"\n}\n", result == TKRT_CLI_OK ? "ok" : "mismatch");
}

static int run_or_tune(int argc, char** argv, int tune) {
  tkrt_run_options_t o;
  tkrt_cli_run_options_init(&o, tune);
  int parsed = tkrt_cli_parse_run_options(argc, argv, &o);
  if (parsed) return parsed < 0 ? TKRT_CLI_OK : parsed;
  FILE* json = NULL;
  if (o.json && !(json = tkrt_cli_json_begin())) {
    tkrt_cli_run_options_free(&o);
    return tkrt_cli_fail(o.command, TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL,
                                                      "--json: cannot duplicate stdout"));
  }
  tkrt_status_t status = tkrt_cli_resolve_case(&o);
  if (status) {
    tkrt_cli_run_options_free(&o);
    if (json) fclose(json);
    return tkrt_cli_fail(o.command, status);
  }
  if (tune && !tkrt_cli_is_directory(o.path) && !o.input_count) {
    fflush(stdout);
    fprintf(stderr, "tkrt tune: note: no --in given; the call runs with no input buffers\n");
  }
  if (o.case_file) {
    printf("case: ");
    tkrt_cli_print_text(stdout, o.case_name ? o.case_name : o.path);
    if (o.case_note) {
      printf(": ");
      tkrt_cli_print_text(stdout, o.case_note);
    }
    printf(" (%s)\n", tkrt_cli_escaped(o.case_file));
  }

  session_t s;
  memset(&s, 0, sizeof(s));
  int usage = 0;
  tkrt_cli_decision_t decision;
  memset(&decision, 0, sizeof(decision));
  tkrt_cli_timing_t timing;
  memset(&timing, 0, sizeof(timing));
  int matches[MAX_BUFFERS] = {0};
  int result = TKRT_CLI_OK;
  double first_ms = 0;
  const tkrt_device_info_t* info = NULL;
  status = session_open(&o, &s, &usage);
  if (status) goto done;
  info = tkrt_device_info(s.device);
  printf("device: %s %d: %s (%s)\n", info->backend, info->ordinal, tkrt_cli_escaped(info->name),
         info->arch);
  double start = now_ms();
  status = session_launch(&s);
  if (!status) status = tkrt_stream_synchronize(s.device, NULL);
  first_ms = now_ms() - start;
  if (!status) status = tkrt_cli_decision_get(s.tuner, s.call, info->arch, &decision);
  if (status) goto done;
  print_decision(&s, &decision, tune);
  printf("first launch: %.3f ms wall (includes module load%s)\n", first_ms,
         tkrt_call_get_desc(s.call)->config_count > 1 ? " and tuning when not yet decided" : "");

  for (size_t j = 0; j < s.output_count && !status; ++j) {
    const tkrt_buffer_t* b = &s.buffers[s.input_count + j];
    unsigned char* got = malloc(b->size ? b->size : 1);
    if (!got) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of memory");
      break;
    }
    status = tkrt_memcpy_dtoh_async(s.device, got, b->ptr, b->size, NULL);
    if (!status) status = tkrt_stream_synchronize(s.device, NULL);
    if (!status && j < o.expect_count) {
      if (s.expected_size[j] != b->size) {
        printf("output %zu: MISMATCH: %llu bytes, expected file has %zu\n", j,
               (unsigned long long)b->size, s.expected_size[j]);
      } else {
        matches[j] = compare_output(&o.compare[j], j, got, s.expected[j], b->size);
      }
      if (!matches[j]) result = TKRT_CLI_MISMATCH;
    }
    if (!status && o.save_dir) {
      char name[32];
      snprintf(name, sizeof(name), "out%zu.bin", j);
      status = tkrt_cli_write_file(o.save_dir, name, got, b->size);
      if (!status) {
        char path[4200];
        tkrt_cli_join_path(path, sizeof(path), o.save_dir, name);
        printf("output %zu: written to %s\n", j, tkrt_cli_escaped(path));
      }
    }
    free(got);
  }

  if (!status && o.session.iterations > 0) {
    /* Timing after the check: an in-place kernel keeps updating its buffer from here on. */
    status = tkrt_cli_time_launches(s.device, o.session.iterations, launch_once, &s, &timing);
    if (!status) tkrt_cli_print_timing(stdout, &timing);
  }
  if (!status && tune) {
    /* Say what happened to the decision, from the tuner's own account. */
    const tkrt_tune_report_t* report = &decision.report;
    if (report->source == TKRT_TUNE_SOURCE_SINGLE) {
      printf("nothing to tune: the call has one config\n");
    } else if (report->source == TKRT_TUNE_SOURCE_PINNED) {
      printf("not benchmarked: config %zu is pinned (--pin or TKRT_TUNE_PIN)\n", report->chosen);
    } else if (report->store_file[0]) {
      printf("decision stored in %s\n", tkrt_cli_escaped(report->store_file));
    } else {
      printf("decision NOT stored: the store is off or unusable (see --store, TKRT_TUNE_DIR)\n");
    }
  }
  if (!status && json) print_json(json, &o, &s, &decision, first_ms, matches, &timing, result);

done:
  tkrt_cli_decision_free(&decision);
  session_close(&s);
  tkrt_cli_run_options_free(&o);
  if (json) fclose(json);
  if (status && usage) return tkrt_cli_fail_usage(o.command, status);
  if (status) return tkrt_cli_fail(o.command, status);
  return result;
}

int tkrt_cli_run(int argc, char** argv) { return run_or_tune(argc, argv, 0); }
int tkrt_cli_tune(int argc, char** argv) { return run_or_tune(argc, argv, 1); }
