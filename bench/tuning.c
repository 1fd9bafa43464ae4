/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt benchmarks: tuning the matmul_autotuned vector (fp16 1024^3, 4 configs): wall time and the
 * config chosen by tkrt in a fresh process, by tkrt in a second process that finds the decision
 * store, and by jaxlib's own custom call on the same blob and buffers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_main.h"

#define TU_MAX_CONFIGS 128
#define TU_STEADY_LAUNCHES 20

typedef void (*tu_legacy_fn)(void* stream, void** buffers, const char* opaque, size_t len,
                             void* status);

typedef struct tu_buffers {
  tkrt_device_t* device;
  tkrt_stream_t stream;
  tkrt_deviceptr_t a, b, c;
  size_t a_size, b_size, c_size;
  void* expected;
  size_t expected_size;
} tu_buffers_t;

static double tu_half(uint16_t h) {
  int exponent = (h >> 10) & 31, mantissa = h & 1023;
  double sign = h & 0x8000 ? -1.0 : 1.0;
  if (exponent == 0) return sign * ldexp(mantissa, -24);
  if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
  return sign * ldexp(mantissa + 1024, exponent - 25);
}

static int tu_buffers_setup(const bench_options_t* o, tkrt_device_t* device, tu_buffers_t* t) {
  memset(t, 0, sizeof(*t));
  t->device = device;
  char path[4200];
  void* host[2] = {NULL, NULL};
  size_t sizes[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    snprintf(path, sizeof(path), "%s/%s/in%d.bin", o->vectors, o->vector, i);
    host[i] = bench_read_file(path, &sizes[i]);
    if (!host[i]) {
      fprintf(stderr, "bench: cannot read %s\n", path);
      free(host[0]);
      return -1;
    }
  }
  snprintf(path, sizeof(path), "%s/%s/out0.bin", o->vectors, o->vector);
  t->expected = bench_read_file(path, &t->expected_size);
  t->a_size = sizes[0];
  t->b_size = sizes[1];
  t->c_size = t->expected ? t->expected_size : 1024 * 1024 * 2;
  tkrt_status_t status = tkrt_stream_create(device, &t->stream);
  if (!status) status = tkrt_memory_alloc(device, t->a_size, &t->a);
  if (!status) status = tkrt_memory_alloc(device, t->b_size, &t->b);
  if (!status) status = tkrt_memory_alloc(device, t->c_size, &t->c);
  if (!status) status = tkrt_memcpy_htod_async(device, t->a, host[0], t->a_size, t->stream);
  if (!status) status = tkrt_memcpy_htod_async(device, t->b, host[1], t->b_size, t->stream);
  if (!status) status = tkrt_memset_async(device, t->c, 0xff, t->c_size, t->stream); /* poison */
  if (!status) status = tkrt_stream_synchronize(device, t->stream);
  free(host[0]);
  free(host[1]);
  return bench_fail(status, "setting up the matmul buffers");
}

static void tu_buffers_free(tu_buffers_t* t) {
  if (!t->device) return;
  if (t->a) tkrt_status_free(tkrt_memory_free(t->device, t->a));
  if (t->b) tkrt_status_free(tkrt_memory_free(t->device, t->b));
  if (t->c) tkrt_status_free(tkrt_memory_free(t->device, t->c));
  if (t->stream) tkrt_status_free(tkrt_stream_destroy(t->device, t->stream));
  free(t->expected);
}

/* Relative Frobenius error of C against jaxlib's recorded output (fp16); NaN when unknown. */
static double tu_error(tu_buffers_t* t) {
  if (!t->expected) return NAN;
  uint16_t* got = malloc(t->c_size);
  if (!got) return NAN;
  tkrt_status_t status = tkrt_memcpy_dtoh_async(t->device, got, t->c, t->c_size, t->stream);
  if (!status) status = tkrt_stream_synchronize(t->device, t->stream);
  double diff = 0, norm = 0;
  if (!bench_fail(status, "reading C")) {
    const uint16_t* want = t->expected;
    for (size_t i = 0; i < t->c_size / 2; ++i) {
      double g = tu_half(got[i]), w = tu_half(want[i]);
      diff += (g - w) * (g - w);
      norm += w * w;
    }
  } else {
    diff = NAN;
  }
  free(got);
  return norm > 0 ? sqrt(diff / norm) : NAN;
}

/* Mean device time of `count` launches between two events, in ms. */
typedef int (*tu_launch_fn)(void* user);
static double tu_steady_ms(tu_buffers_t* t, tu_launch_fn launch, void* user) {
  tkrt_event_t start = NULL, stop = NULL;
  float ms = NAN;
  tkrt_status_t status = tkrt_event_create(t->device, &start);
  if (!status) status = tkrt_event_create(t->device, &stop);
  for (int i = 0; !status && i < 3; ++i) {
    if (launch(user)) status = TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "warm-up launch failed");
  }
  if (!status) status = tkrt_event_record(t->device, start, t->stream);
  for (int i = 0; !status && i < TU_STEADY_LAUNCHES; ++i) {
    if (launch(user)) status = TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "launch failed");
  }
  if (!status) status = tkrt_event_record(t->device, stop, t->stream);
  if (!status) status = tkrt_event_synchronize(t->device, stop);
  if (!status) status = tkrt_event_elapsed_ms(t->device, start, stop, &ms);
  bench_fail(status, "timing steady launches");
  if (start) tkrt_status_free(tkrt_event_destroy(t->device, start));
  if (stop) tkrt_status_free(tkrt_event_destroy(t->device, stop));
  return (double)ms / TU_STEADY_LAUNCHES;
}

/* ---------------------------------------------------------------- tkrt, one process */

typedef struct tu_tkrt {
  tkrt_call_t* call;
  tkrt_call_launch_args_t args;
} tu_tkrt_t;

static int tu_tkrt_launch(void* user) {
  tu_tkrt_t* u = user;
  return bench_fail(tkrt_call_launch(u->call, &u->args), "tkrt_call_launch");
}

static int tu_child(const bench_options_t* o) {
  FILE* out = fopen(o->child_out, "w");
  if (!out) return 1;
  int rc = 1;
  tkrt_device_t* device = NULL;
  void* blob = NULL;
  size_t blob_size = 0;
  tu_tkrt_t u;
  memset(&u, 0, sizeof(u));
  tu_buffers_t t;
  memset(&t, 0, sizeof(t));
  tkrt_autotuner_t* tuner = NULL;
  if (bench_device_open("cuda", &device) || tu_buffers_setup(o, device, &t)) goto done;
  /* Decoding is part of what a first call pays; it is timed separately. */
  uint64_t t0 = bench_now_ns();
  if (bench_vector_call(o, o->vector, &blob, &blob_size, &u.call)) goto done;
  uint64_t t1 = bench_now_ns();
  tkrt_autotuner_options_t options;
  tkrt_autotuner_options_init(&options);
  /* TKRT_TUNE_DIR: the store the parent set up. */
  if (bench_fail(tkrt_options_from_environment(NULL, &options), "reading the environment") ||
      bench_fail(tkrt_autotuner_create(&options, &tuner), "creating the tuner")) {
    goto done;
  }
  if (bench_fail(tkrt_call_prepare(u.call, device), "tkrt_call_prepare")) goto done;
  uint64_t t2 = bench_now_ns();
  tkrt_buffer_t buffers[3] = {{t.a, t.a_size}, {t.b, t.b_size}, {t.c, t.c_size}};
  tkrt_call_launch_args_init(&u.args);
  u.args.device = device;
  u.args.stream = t.stream;
  u.args.buffers = buffers;
  u.args.input_count = 2;
  u.args.output_count = 1;
  u.args.tuner = tuner;
  if (tu_tkrt_launch(&u) || bench_fail(tkrt_stream_synchronize(device, t.stream), "sync")) goto done;
  uint64_t t3 = bench_now_ns();
  double error = tu_error(&t);
  float times[TU_MAX_CONFIGS];
  uint8_t pruned[TU_MAX_CONFIGS];
  tkrt_tune_report_t report;
  tkrt_tune_report_init(&report);
  report.times_ms = times;
  report.pruned = pruned;
  report.times_capacity = TU_MAX_CONFIGS;
  if (bench_fail(tkrt_autotuner_get_report(tuner, u.call, tkrt_device_info(device)->arch, &report),
                 "reading the tuning report")) {
    goto done;
  }
  double steady = tu_steady_ms(&t, tu_tkrt_launch, &u);
  const tkrt_call_desc_t* desc = tkrt_call_get_desc(u.call);
  fprintf(out, "decode_ms %.4f\nprepare_ms %.4f\nfirst_launch_ms %.4f\nsource %s\nchosen %zu\n",
          (double)(t1 - t0) * 1e-6, (double)(t2 - t1) * 1e-6, (double)(t3 - t2) * 1e-6,
          tkrt_tune_source_name(report.source), report.chosen);
  fprintf(out, "iterations %u\nerror %.6g\nsteady_ms %.6f\n", report.iterations, error, steady);
  fprintf(out, "round1_iterations %u\npruned_count %zu\ntimed_launches %llu\n",
          report.round1_iterations, report.pruned_count,
          (unsigned long long)report.timed_launches);
  for (size_t i = 0; i < report.config_count && i < TU_MAX_CONFIGS; ++i) {
    fprintf(out, "config %zu %.6f %s\n", i, (double)times[i],
            desc->configs[i].description ? desc->configs[i].description : "");
    if (pruned[i]) fprintf(out, "pruned %zu\n", i);
  }
  rc = 0;
done:
  if (fclose(out)) rc = 1;
  tu_buffers_free(&t);
  if (u.call) tkrt_call_release(u.call);
  if (tuner) tkrt_autotuner_destroy(tuner);
  free(blob);
  if (device) tkrt_device_release(device);
  return rc;
}

typedef struct tu_result {
  double decode_ms, prepare_ms, first_launch_ms, error, steady_ms;
  char source[32];
  long chosen;
  unsigned iterations;
  unsigned round1_iterations;
  size_t pruned_count;
  unsigned long long timed_launches;
  size_t config_count;
  double config_ms[TU_MAX_CONFIGS];
  unsigned char pruned[TU_MAX_CONFIGS];
  char config_label[TU_MAX_CONFIGS][160];
} tu_result_t;

static int tu_read(const char* path, tu_result_t* r) {
  memset(r, 0, sizeof(*r));
  r->chosen = -1;
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  char line[512];
  while (fgets(line, sizeof(line), f)) {
    size_t index;
    double ms;
    int used = 0;
    line[strcspn(line, "\n")] = '\0';
    if (sscanf(line, "decode_ms %lf", &r->decode_ms) == 1) continue;
    if (sscanf(line, "prepare_ms %lf", &r->prepare_ms) == 1) continue;
    if (sscanf(line, "round1_iterations %u", &r->round1_iterations) == 1) continue;
    if (sscanf(line, "pruned_count %zu", &r->pruned_count) == 1) continue;
    if (sscanf(line, "pruned %zu", &index) == 1 && index < TU_MAX_CONFIGS) {
      r->pruned[index] = 1;
      continue;
    }
    if (sscanf(line, "timed_launches %llu", &r->timed_launches) == 1) continue;
    if (sscanf(line, "first_launch_ms %lf", &r->first_launch_ms) == 1) continue;
    if (sscanf(line, "source %31s", r->source) == 1) continue;
    if (sscanf(line, "chosen %ld", &r->chosen) == 1) continue;
    if (sscanf(line, "iterations %u", &r->iterations) == 1) continue;
    if (sscanf(line, "error %lf", &r->error) == 1) continue;
    if (sscanf(line, "steady_ms %lf", &r->steady_ms) == 1) continue;
    if (sscanf(line, "config %zu %lf %n", &index, &ms, &used) >= 2 && index < TU_MAX_CONFIGS) {
      r->config_ms[index] = ms;
      snprintf(r->config_label[index], sizeof(r->config_label[index]), "%s", used ? line + used : "");
      if (index + 1 > r->config_count) r->config_count = index + 1;
    }
  }
  fclose(f);
  return r->chosen >= 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- jaxlib, in this process */

typedef struct tu_jaxlib {
  tu_legacy_fn fn;
  void* buffers[3];
  const void* blob;
  size_t blob_size;
  void* stream;
  _Alignas(16) unsigned char status[64]; /* XLA's status: std::optional<std::string> */
} tu_jaxlib_t;

static int tu_jaxlib_launch(void* user) {
  tu_jaxlib_t* j = user;
  j->fn(j->stream, j->buffers, j->blob, j->blob_size, j->status);
  if (j->status[32]) {
    const char* data;
    size_t length;
    memcpy(&data, j->status, sizeof(data));
    memcpy(&length, j->status + 8, sizeof(length));
    fprintf(stderr, "bench: jaxlib's triton_kernel_call failed: %.*s\n", (int)length, data);
    return -1;
  }
  return 0;
}

typedef struct tu_jaxlib_result {
  bool measured;
  double first_call_ms, error, steady_ms;
  char best[256];
  const char* why_not;
} tu_jaxlib_result_t;

/* jaxlib tunes inside its first call on a blob and logs (absl LOG(INFO), on stderr) "Finished
 * autotuning function: <name> best config <description>": stderr goes to a file meanwhile. */
static void tu_jaxlib_measure(const bench_options_t* o, tu_jaxlib_result_t* r) {
  memset(r, 0, sizeof(*r));
  if (!o->jaxlib_fn) {
    r->why_not = o->jaxlib_fn_why ? o->jaxlib_fn_why : "no jaxlib pointer (run via bench_driver.py)";
    return;
  }
  tkrt_device_t* device = NULL;
  tu_buffers_t t;
  memset(&t, 0, sizeof(t));
  tu_jaxlib_t j;
  memset(&j, 0, sizeof(j));
  void* blob = NULL;
  tkrt_call_t* call = NULL;
  r->why_not = "setup failed (see stderr)";
  if (bench_device_open("cuda", &device) || tu_buffers_setup(o, device, &t) ||
      bench_vector_call(o, o->vector, &blob, &j.blob_size, &call)) {
    goto done;
  }
  j.fn = (tu_legacy_fn)o->jaxlib_fn;
  j.blob = blob;
  j.stream = (void*)t.stream;
  j.buffers[0] = (void*)(uintptr_t)t.a;
  j.buffers[1] = (void*)(uintptr_t)t.b;
  j.buffers[2] = (void*)(uintptr_t)t.c;
  char log_path[] = "/tmp/tkrt_bench_jaxlib_log.XXXXXX";
  int log_fd = mkstemp(log_path);
  int saved = log_fd >= 0 ? dup(2) : -1;
  fflush(stderr);
  if (saved >= 0) dup2(log_fd, 2);
  uint64_t start = bench_now_ns();
  int failed = tu_jaxlib_launch(&j);
  if (!failed) failed = bench_fail(tkrt_stream_synchronize(device, t.stream), "sync");
  uint64_t end = bench_now_ns();
  fflush(stderr);
  if (saved >= 0) {
    dup2(saved, 2);
    close(saved);
  }
  if (log_fd >= 0) {
    size_t size = 0;
    char* log = bench_read_file(log_path, &size);
    if (log) {
      log[size] = '\0';
      const char* best = strstr(log, " best config ");
      if (best) {
        best += strlen(" best config ");
        snprintf(r->best, sizeof(r->best), "%.*s", (int)strcspn(best, "\n"), best);
      }
      if (failed) fputs(log, stderr);
      free(log);
    }
    close(log_fd);
    unlink(log_path);
  }
  if (failed) {
    r->why_not = "jaxlib's call failed (see stderr)";
    goto done;
  }
  r->first_call_ms = (double)(end - start) * 1e-6;
  r->error = tu_error(&t);
  r->steady_ms = tu_steady_ms(&t, tu_jaxlib_launch, &j);
  r->measured = true;
  r->why_not = NULL;
done:
  tu_buffers_free(&t);
  if (call) tkrt_call_release(call);
  free(blob);
  if (device) tkrt_device_release(device);
}

/* ---------------------------------------------------------------- the benchmark */

/* The config whose tkrt-measured mean time is nearest `ms`: where jaxlib does not log its choice,
 * the time of its steady launches says which config it runs (the configs differ by 15% or more). */
static long tu_nearest(const tu_result_t* r, double ms) {
  long best = -1;
  for (size_t i = 0; i < r->config_count; ++i) {
    if (r->config_ms[i] <= 0) continue;
    if (best < 0 || fabs(r->config_ms[i] - ms) < fabs(r->config_ms[best] - ms)) best = (long)i;
  }
  return best;
}

static void tu_json_tkrt(bench_json_t* json, const char* key, const tu_result_t* r) {
  bench_json_begin_object(json, key);
  bench_json_number(json, "decode_ms", r->decode_ms);
  bench_json_number(json, "prepare_ms", r->prepare_ms);
  bench_json_number(json, "first_launch_ms", r->first_launch_ms);
  bench_json_number(json, "first_call_total_ms", r->decode_ms + r->prepare_ms + r->first_launch_ms);
  bench_json_string(json, "decided_by", r->source);
  bench_json_int(json, "chosen", r->chosen);
  bench_json_string(json, "chosen_label", r->chosen >= 0 && (size_t)r->chosen < r->config_count
                                              ? r->config_label[r->chosen] : NULL);
  bench_json_int(json, "iterations", r->iterations);
  bench_json_number(json, "relative_error", r->error);
  bench_json_number(json, "steady_ms_per_launch", r->steady_ms);
  bench_json_int(json, "round1_iterations", r->round1_iterations);
  bench_json_int(json, "pruned_count", (long)r->pruned_count);
  bench_json_int(json, "timed_launches", (long)r->timed_launches);
  bench_json_begin_array(json, "config_ms");
  for (size_t i = 0; i < r->config_count; ++i) bench_json_number(json, NULL, r->config_ms[i]);
  bench_json_end_array(json);
  bench_json_end_object(json);
}

int bench_tuning(const bench_options_t* o) {
  if (o->child) return tu_child(o);
  if (strcmp(o->backend, "cuda") != 0) {
    fprintf(stderr, "bench: tuning uses the %s vector; use --backend cuda\n", o->vector);
    return 77;
  }
  char dir[] = "/tmp/tkrt_bench_tune.XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char store_env[4200], cache_env[4200], first_out[4200], second_out[4200];
  snprintf(store_env, sizeof(store_env), "TKRT_TUNE_DIR=%s/store", dir);
  snprintf(cache_env, sizeof(cache_env), "TKRT_CACHE_DIR=%s/cache", dir);
  snprintf(first_out, sizeof(first_out), "%s/first.txt", dir);
  snprintf(second_out, sizeof(second_out), "%s/second.txt", dir);
  /* Both processes start from nothing but what the first one leaves: no decision, no cubins, and
   * the driver's JIT cache off (jaxlib also compiles its PTX in every process). */
  char* env[] = {store_env, cache_env, "CUDA_CACHE_DISABLE=1", "TKRT_TUNE_PIN=",
                 "TKRT_TUNE_POLICY=auto", NULL};
  char* first_args[] = {"tune", "--vectors", (char*)o->vectors, "--vector", (char*)o->vector,
                        "--child", "first", "--child-out", first_out, NULL};
  char* second_args[] = {"tune", "--vectors", (char*)o->vectors, "--vector", (char*)o->vector,
                         "--child", "second", "--child-out", second_out, NULL};
  tu_result_t first, second;
  tu_jaxlib_result_t jax;
  int rc = 1;
  bench_json_t json;
  if (bench_json_open(&json, o->json_path)) return 1;
  if (bench_spawn_self(o, first_args, env) != 0 || tu_read(first_out, &first)) {
    fprintf(stderr, "bench: the first tuning process failed\n");
    goto done;
  }
  if (bench_spawn_self(o, second_args, env) != 0 || tu_read(second_out, &second)) {
    fprintf(stderr, "bench: the second tuning process failed\n");
    goto done;
  }
  tu_jaxlib_measure(o, &jax);

  printf("\ntuning: %s (%zu configs); wall ms of the first call\n"
         "in a process (decode + module load + tuning + one launch, synchronised)\n",
         o->vector, first.config_count);
  printf("%-34s %9s %9s %9s %10s %-9s %6s %10s %9s\n", "who", "decode", "load", "tune+run",
         "total", "decided", "chosen", "steady ms", "rel.err");
  const tu_result_t* rows[2] = {&first, &second};
  const char* names[2] = {"tkrt, process 1 (empty store)", "tkrt, process 2 (same store)"};
  for (int i = 0; i < 2; ++i) {
    const tu_result_t* r = rows[i];
    printf("%-34s %9.2f %9.2f %9.2f %10.2f %-9s %6ld %10.4f %9.2g\n", names[i], r->decode_ms,
           r->prepare_ms, r->first_launch_ms, r->decode_ms + r->prepare_ms + r->first_launch_ms,
           r->source, r->chosen, r->steady_ms, r->error);
  }
  if (jax.measured) {
    printf("%-34s %9s %9s %9s %10.2f %-9s %6s %10.4f %9.2g\n", "jaxlib triton_kernel_call", "-",
           "-", "-", jax.first_call_ms, "tuned", "log", jax.steady_ms, jax.error);
    printf("jaxlib's choice (its log): %s\n", jax.best[0] ? jax.best : "(not logged)");
    printf("jaxlib's choice inferred from its steady launch time: config %ld (%.4f ms vs tkrt's "
           "per-config means)\n", tu_nearest(&first, jax.steady_ms), jax.steady_ms);
  } else {
    printf("%-34s not measured: %s\n", "jaxlib triton_kernel_call", jax.why_not);
  }
  printf("tkrt per-config mean ms (process 1, %u iterations each; %zu pruned after %u, marked p; "
         "%llu timed launches):\n", first.iterations, first.pruned_count, first.round1_iterations,
         first.timed_launches);
  for (size_t i = 0; i < first.config_count; ++i) {
    printf("  %zu%s %8.4f  %s\n", i, (long)i == first.chosen ? "*" : first.pruned[i] ? "p" : " ",
           first.config_ms[i], first.config_label[i]);
  }
  double total1 = first.decode_ms + first.prepare_ms + first.first_launch_ms;
  double total2 = second.decode_ms + second.prepare_ms + second.first_launch_ms;
  printf("second process: %s (%s); first call %.2f ms vs %.2f ms (%.1fx)%s\n",
         strcmp(second.source, "store") == 0 ? "no retuning" : "RETUNED", second.source, total2,
         total1, total1 / total2,
         jax.measured ? "" : "");
  if (jax.measured) {
    printf("jaxlib first call / tkrt process 1 first call = %.2f; / tkrt process 2 = %.2f\n",
           jax.first_call_ms / total1, jax.first_call_ms / total2);
  }

  bench_json_begin_object(&json, NULL);
  bench_json_header(&json, "tuning", o, NULL);
  bench_json_string(&json, "vector", o->vector);
  tu_json_tkrt(&json, "tkrt_process_1", &first);
  tu_json_tkrt(&json, "tkrt_process_2", &second);
  bench_json_bool(&json, "process_2_retuned", strcmp(second.source, "store") != 0);
  bench_json_begin_object(&json, "jaxlib");
  bench_json_bool(&json, "measured", jax.measured);
  if (jax.measured) {
    bench_json_number(&json, "first_call_ms", jax.first_call_ms);
    bench_json_string(&json, "best_config_logged", jax.best[0] ? jax.best : NULL);
    bench_json_int(&json, "config_inferred_from_steady_time", tu_nearest(&first, jax.steady_ms));
    bench_json_number(&json, "relative_error", jax.error);
    bench_json_number(&json, "steady_ms_per_launch", jax.steady_ms);
    bench_json_number(&json, "first_call_over_tkrt_process_1", jax.first_call_ms / total1);
    bench_json_number(&json, "first_call_over_tkrt_process_2", jax.first_call_ms / total2);
    /* The check: tkrt's choice within 3% of jaxlib's in steady time. */
    bench_json_number(&json, "tkrt_steady_over_jaxlib_steady", first.steady_ms / jax.steady_ms);
    bench_json_number(&json, "tkrt_process_1_first_call_over_jaxlib", total1 / jax.first_call_ms);
  } else {
    bench_json_string(&json, "why_not", jax.why_not);
  }
  bench_json_end_object(&json);
  bench_json_end_object(&json);
  rc = 0;
done:
  if (bench_json_close(&json)) rc = 1;
  char command[4300];
  snprintf(command, sizeof(command), "rm -rf '%s'", dir);
  if (system(command) != 0) fprintf(stderr, "bench: could not remove %s\n", dir);
  return rc;
}
