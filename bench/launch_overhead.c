/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt benchmarks: host-side cost per launch of one small kernel (256-element add, grid 1) through
 * the driver, tkrt's HAL, a prepared tkrt call, tkrt's XLA custom call, and jaxlib's custom call. */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_main.h"
#include "tkrt/host_kernel.h"

/* XLA's legacy custom call (api_version 2), as both libtkrt_xla and jaxlib export it. */
typedef void (*bench_legacy_fn)(void* stream, void** buffers, const char* opaque, size_t len,
                                void* status);

/* XLA's status object is one std::optional<std::string> (libstdc++: a 32-byte string, then the
 * engaged flag). Zeroed memory is a disengaged optional, which the callee may assign to. */
typedef struct bench_xla_status {
  _Alignas(16) unsigned char bytes[64];
} bench_xla_status_t;

static bool bench_xla_status_failed(const bench_xla_status_t* status, char* message,
                                    size_t capacity) {
  if (!status->bytes[32]) return false;
  const char* data;
  size_t length;
  memcpy(&data, status->bytes, sizeof(data));
  memcpy(&length, status->bytes + 8, sizeof(length));
  snprintf(message, capacity, "%.*s", (int)(length < 1024 ? length : 1024), data);
  return true;
}

/* Path (c'): what an XLA custom call does with a blob, written here: look the exact bytes up in
 * a decode cache (an 8-byte-step hash over the whole blob plus a memcmp, as libtkrt_xla does),
 * ask whether the stream captures, then launch the cached call. */
typedef struct bench_emulated_entry {
  uint64_t hash;
  const void* bytes;
  size_t size;
  tkrt_call_t* call;
} bench_emulated_entry_t;

static uint64_t bench_blob_hash(const unsigned char* bytes, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull ^ size;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word;
    memcpy(&word, bytes + i, 8);
    h = (h ^ word) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < size; ++i) h = (h ^ bytes[i]) * 0x100000001b3ull;
  return h;
}

typedef struct lo_ctx {
  const bench_options_t* options;
  tkrt_device_t* device;
  bool cuda;
  bench_cuda_t cu;
  tkrt_stream_t stream;
  tkrt_deviceptr_t x, y, out;
  void* raw_buffers[3]; /* x, y, out: what XLA hands a legacy custom call */
  tkrt_buffer_t buffers[3];
  tkrt_buffer_t bare[3]; /* the same buffers with sizes unknown, as XLA's legacy call has them */
  bench_add_call_t add;
  /* (a) raw driver or raw host kernel */
  void* raw_module;
  void* raw_function;
  void* host_image;
  tkrt_host_kernel_fn_t host_fn;
  tkrt_host_program_t program;
  uint64_t raw_values[6];
  void* raw_params[6];
  /* the HAL */
  tkrt_module_t* module;
  tkrt_function_t* function;
  tkrt_launch_params_t hal_launch;
  uint64_t hal_values[6];
  void* hal_params[6];
  /* (b) */
  tkrt_call_launch_args_t args;
  /* (c') */
  bench_emulated_entry_t emulated[1];
  /* (c), (d) */
  bench_legacy_fn xla_fn;
  bench_legacy_fn jaxlib_fn;
  bench_xla_status_t status;
  char failure[1100];
} lo_ctx_t;

/* ---------------------------------------------------------------- the paths */

static int lo_run_raw(lo_ctx_t* c, long n) {
  if (c->cuda) {
    for (long i = 0; i < n; ++i) {
      int result = c->cu.cuLaunchKernel(c->raw_function, 1, 1, 1, 128, 1, 1, 0, (void*)c->stream,
                                        c->raw_params, NULL);
      if (result) return bench_cuda_check(&c->cu, result, "cuLaunchKernel");
    }
  } else {
    /* The host floor: the kernel body itself, called in this thread, nothing enqueued. */
    for (long i = 0; i < n; ++i) c->host_fn(c->raw_params, &c->program);
  }
  return 0;
}

static int lo_run_hal(lo_ctx_t* c, long n) {
  for (long i = 0; i < n; ++i) {
    tkrt_status_t status = tkrt_launch(c->function, &c->hal_launch, c->stream);
    if (status) return bench_fail(status, "tkrt_launch");
  }
  return 0;
}

static int lo_run_call(lo_ctx_t* c, long n) {
  for (long i = 0; i < n; ++i) {
    tkrt_status_t status = tkrt_call_launch(c->add.call, &c->args);
    if (status) return bench_fail(status, "tkrt_call_launch");
  }
  return 0;
}

/* `query_capture` false: the same minus the capture query, to show what that query costs. */
static int lo_run_emulated_impl(lo_ctx_t* c, long n, bool query_capture) {
  const void* blob = c->add.blob;
  size_t size = c->add.blob_size;
  for (long i = 0; i < n; ++i) {
    uint64_t hash = bench_blob_hash(blob, size);
    const bench_emulated_entry_t* entry = NULL;
    for (size_t e = 0; e < sizeof(c->emulated) / sizeof(c->emulated[0]); ++e) {
      const bench_emulated_entry_t* candidate = &c->emulated[e];
      if (candidate->hash == hash && candidate->size == size &&
          memcmp(candidate->bytes, blob, size) == 0) {
        entry = candidate;
        break;
      }
    }
    if (!entry) {
      fprintf(stderr, "bench: emulated decode cache missed\n");
      return -1;
    }
    bool capturing = false;
    tkrt_status_t status =
        query_capture ? tkrt_stream_is_capturing(c->device, c->stream, &capturing) : NULL;
    if (!status) {
      tkrt_call_launch_args_t args;
      tkrt_call_launch_args_init(&args);
      args.device = c->device;
      args.stream = c->stream;
      args.buffers = c->bare;
      args.input_count = 3; /* as libtkrt_xla passes them: array parameters, sizes unknown */
      status = tkrt_call_launch(entry->call, &args);
    }
    if (status) return bench_fail(status, "emulated custom call");
  }
  return 0;
}

static int lo_run_emulated(lo_ctx_t* c, long n) { return lo_run_emulated_impl(c, n, true); }
static int lo_run_emulated_nocap(lo_ctx_t* c, long n) { return lo_run_emulated_impl(c, n, false); }

static int lo_run_legacy(lo_ctx_t* c, bench_legacy_fn fn, long n, const char* what) {
  for (long i = 0; i < n; ++i) {
    fn((void*)c->stream, c->raw_buffers, c->add.blob, c->add.blob_size, &c->status);
  }
  if (bench_xla_status_failed(&c->status, c->failure, sizeof(c->failure))) {
    fprintf(stderr, "bench: %s reported: %s\n", what, c->failure);
    return -1;
  }
  return 0;
}

static int lo_run_xla(lo_ctx_t* c, long n) { return lo_run_legacy(c, c->xla_fn, n, "libtkrt_xla"); }
static int lo_run_jaxlib(lo_ctx_t* c, long n) {
  return lo_run_legacy(c, c->jaxlib_fn, n, "jaxlib's triton_kernel_call");
}

typedef struct lo_path {
  const char* id;
  const char* label;
  int (*run)(lo_ctx_t*, long);
  bool available;
  const char* why_not;
  double* samples;
  bench_stats_t stats;
} lo_path_t;

/* ---------------------------------------------------------------- setup */

static int lo_setup(lo_ctx_t* c) {
  const bench_options_t* o = c->options;
  c->cuda = strcmp(o->backend, "cuda") == 0;
  if (c->cuda && bench_cuda_load(&c->cu)) return -1;
  if (bench_device_open(o->backend, &c->device)) return -1;
  if (bench_add_call_build(o, o->backend, &c->add)) return -1;
  size_t bytes = BENCH_ADD_N * sizeof(float);
  tkrt_status_t status = tkrt_stream_create(c->device, &c->stream);
  if (!status) status = tkrt_memory_alloc(c->device, bytes, &c->x);
  if (!status) status = tkrt_memory_alloc(c->device, bytes, &c->y);
  if (!status) status = tkrt_memory_alloc(c->device, bytes, &c->out);
  if (status) return bench_fail(status, "allocating");
  float host_x[BENCH_ADD_N], host_y[BENCH_ADD_N];
  for (int i = 0; i < BENCH_ADD_N; ++i) {
    host_x[i] = 0.5f * (float)i;
    host_y[i] = 1000.0f - (float)i;
  }
  status = tkrt_memcpy_htod_async(c->device, c->x, host_x, bytes, c->stream);
  if (!status) status = tkrt_memcpy_htod_async(c->device, c->y, host_y, bytes, c->stream);
  if (!status) status = tkrt_stream_synchronize(c->device, c->stream);
  if (status) return bench_fail(status, "uploading the inputs");
  tkrt_deviceptr_t ptrs[3] = {c->x, c->y, c->out};
  for (int i = 0; i < 3; ++i) {
    c->raw_buffers[i] = (void*)(uintptr_t)ptrs[i];
    c->buffers[i].ptr = ptrs[i];
    c->buffers[i].size = bytes;
    c->bare[i].ptr = ptrs[i];
    c->bare[i].size = 0;
  }

  /* Kernel parameters as tkrt packs them: x, y, n, out, then the two hidden scratch pointers. */
  int32_t n = BENCH_ADD_N;
  uint64_t values[6] = {c->x, c->y, 0, c->out, 0, 0};
  memcpy(&values[2], &n, sizeof(n));
  memcpy(c->raw_values, values, sizeof(values));
  memcpy(c->hal_values, values, sizeof(values));
  for (int i = 0; i < 6; ++i) {
    c->raw_params[i] = &c->raw_values[i];
    c->hal_params[i] = &c->hal_values[i];
  }
  const tkrt_call_desc_t* desc = tkrt_call_get_desc(c->add.call);
  const tkrt_kernel_desc_t* kd = tkrt_kernel_get_desc(desc->configs[0].kernel);
  const tkrt_kernel_image_t* image = &kd->images[0];
  tkrt_image_t raw_image = {.kind = image->kind, .data = image->data, .size = image->size};
  status = tkrt_module_load(c->device, &raw_image, &c->module);
  if (!status) status = tkrt_module_get_function(c->module, kd->name, &c->function);
  if (status) return bench_fail(status, "loading the kernel through the HAL");
  memset(&c->hal_launch, 0, sizeof(c->hal_launch));
  c->hal_launch.grid[0] = c->hal_launch.grid[1] = c->hal_launch.grid[2] = 1;
  c->hal_launch.block[0] = kd->num_warps * tkrt_device_info(c->device)->warp_size;
  c->hal_launch.block[1] = c->hal_launch.block[2] = 1;
  c->hal_launch.params = c->hal_params;
  c->hal_launch.param_count = 6;

  if (c->cuda) {
    char* ptx = malloc(image->size + 1); /* the driver wants NUL-terminated PTX */
    if (!ptx) return -1;
    memcpy(ptx, image->data, image->size);
    ptx[image->size] = '\0';
    int rc = bench_cuda_check(&c->cu, c->cu.cuModuleLoadData(&c->raw_module, ptx), "cuModuleLoadData");
    free(ptx);
    if (rc || bench_cuda_check(&c->cu, c->cu.cuModuleGetFunction(&c->raw_function, c->raw_module,
                                                                  kd->name),
                               "cuModuleGetFunction")) {
      return -1;
    }
  } else {
    c->host_image = dlopen(BENCH_HOST_IMAGE, RTLD_NOW | RTLD_LOCAL);
    const tkrt_host_kernel_desc_t* hk =
        c->host_image ? dlsym(c->host_image, TKRT_HOST_KERNEL_SYMBOL_PREFIX "add_kernel") : NULL;
    if (!hk) {
      fprintf(stderr, "bench: cannot open the host kernel in %s\n", BENCH_HOST_IMAGE);
      return -1;
    }
    c->host_fn = hk->fn;
    memset(&c->program, 0, sizeof(c->program));
    for (int i = 0; i < 3; ++i) {
      c->program.num_programs[i] = 1;
      c->program.cluster[i] = 1;
      c->program.block[i] = 1;
    }
    c->program.block[0] = 128;
  }

  status = tkrt_call_prepare(c->add.call, c->device);
  if (status) return bench_fail(status, "tkrt_call_prepare");
  tkrt_call_launch_args_init(&c->args);
  c->args.device = c->device;
  c->args.stream = c->stream;
  c->args.buffers = c->buffers;
  c->args.input_count = 2;
  c->args.output_count = 1;
  c->emulated[0].hash = bench_blob_hash(c->add.blob, c->add.blob_size);
  c->emulated[0].bytes = c->add.blob;
  c->emulated[0].size = c->add.blob_size;
  c->emulated[0].call = c->add.call;
  return 0;
}

static void lo_teardown(lo_ctx_t* c) {
  if (c->module) tkrt_module_unload(c->module);
  if (c->raw_module) c->cu.cuModuleUnload(c->raw_module);
  if (c->device) {
    if (c->x) tkrt_status_free(tkrt_memory_free(c->device, c->x));
    if (c->y) tkrt_status_free(tkrt_memory_free(c->device, c->y));
    if (c->out) tkrt_status_free(tkrt_memory_free(c->device, c->out));
    if (c->stream) tkrt_status_free(tkrt_stream_destroy(c->device, c->stream));
  }
  bench_add_call_free(&c->add);
  if (c->device) tkrt_device_release(c->device);
  /* The host image stays open: dlclose of a kernel library buys nothing at exit. */
}

/* One launch on a zeroed output, then every element must be x + y. */
static int lo_check(lo_ctx_t* c, lo_path_t* path) {
  size_t bytes = BENCH_ADD_N * sizeof(float);
  float got[BENCH_ADD_N];
  tkrt_status_t status = tkrt_memset_async(c->device, c->out, 0, bytes, c->stream);
  if (!status) status = tkrt_stream_synchronize(c->device, c->stream);
  if (status) return bench_fail(status, "zeroing the output");
  if (path->run(c, 1)) return -1;
  status = tkrt_stream_synchronize(c->device, c->stream);
  if (!status) status = tkrt_memcpy_dtoh_async(c->device, got, c->out, bytes, c->stream);
  if (!status) status = tkrt_stream_synchronize(c->device, c->stream);
  if (status) return bench_fail(status, path->label);
  for (int i = 0; i < BENCH_ADD_N; ++i) {
    float want = 0.5f * (float)i + (1000.0f - (float)i);
    if (got[i] != want) {
      fprintf(stderr, "bench: %s: out[%d] = %g, expected %g\n", path->label, i, got[i], want);
      return -1;
    }
  }
  return 0;
}

/* ---------------------------------------------------------------- the benchmark */

int bench_launch_overhead(const bench_options_t* o) {
  lo_ctx_t c;
  memset(&c, 0, sizeof(c));
  c.options = o;
  int rc = 1;
  /* Batches short enough that the device queue never fills (a full queue would make the enqueue
   * wait for the GPU and measure kernel time instead). */
  long launches = o->launches > 0 ? o->launches : 200;
  long reps = o->reps > 0 ? o->reps : (o->quick ? 5 : 101);
  lo_path_t paths[] = {
      {.id = "a_raw", .run = lo_run_raw, .available = true},
      {.id = "hal", .label = "tkrt_launch (HAL, function + packed params)", .run = lo_run_hal,
       .available = true},
      {.id = "b_call", .label = "(b) tkrt_call_launch, prepared call", .run = lo_run_call,
       .available = true},
      {.id = "c_xla", .label = "(c) libtkrt_xla legacy custom call, blob", .run = lo_run_xla},
      {.id = "c_emulated", .label = "(c') emulated: blob lookup + tkrt_call_launch",
       .run = lo_run_emulated, .available = true},
      {.id = "d_jaxlib", .label = "(d) jaxlib triton_kernel_call, blob", .run = lo_run_jaxlib},
      {.id = "c_emulated_no_capture_query", .label = "    (c') without the capture query",
       .run = lo_run_emulated_nocap, .available = true},
  };
  const size_t path_count = sizeof(paths) / sizeof(paths[0]);
  bench_json_t json;
  if (bench_json_open(&json, o->json_path)) return 1;
  if (lo_setup(&c)) goto done;
  paths[0].label = c.cuda ? "(a) raw cuLaunchKernel loop" : "(a) raw host kernel call (no enqueue)";

  if (!c.cuda) {
    paths[3].why_not = "the XLA targets need a GPU stream";
    paths[5].why_not = "jaxlib runs CUDA/ROCm streams only";
  } else {
    if (o->xla_library && *o->xla_library) {
      void* lib = dlopen(o->xla_library, RTLD_NOW | RTLD_LOCAL);
      if (lib) *(void**)&c.xla_fn = dlsym(lib, "tkrt_xla_legacy_call");
      paths[3].available = c.xla_fn != NULL;
      if (!c.xla_fn) paths[3].why_not = "libtkrt_xla.so did not load or lacks tkrt_xla_legacy_call";
    } else {
      paths[3].why_not = "no --xla-lib given (libtkrt_xla.so not built)";
    }
    c.jaxlib_fn = (bench_legacy_fn)o->jaxlib_fn;
    paths[5].available = c.jaxlib_fn != NULL;
    if (!c.jaxlib_fn) {
      paths[5].why_not = o->jaxlib_fn_why ? o->jaxlib_fn_why
                                          : "run through bench_driver.py to get jaxlib's pointer";
    }
  }

  /* Warm-up and correctness: the first launch of each path loads modules, fills caches and
   * checks the result; paths that fail here are reported and left out. */
  for (size_t p = 0; p < path_count; ++p) {
    if (!paths[p].available) continue;
    if (lo_check(&c, &paths[p]) || paths[p].run(&c, launches / 10 + 1) ||
        bench_fail(tkrt_stream_synchronize(c.device, c.stream), "warm-up sync")) {
      paths[p].available = false;
      paths[p].why_not = "failed its warm-up or correctness check (see stderr)";
      if (p <= 2 || p == 4 || p == 6) goto done; /* tkrt's own paths must work */
      continue;
    }
    paths[p].samples = calloc((size_t)reps, sizeof(double));
    if (!paths[p].samples) goto done;
  }

  /* Repetitions rotate the order of the paths so drift and cache effects fall on all alike;
   * the clock covers the enqueues only, and the stream drains before the next batch. */
  for (long r = 0; r < reps; ++r) {
    for (size_t k = 0; k < path_count; ++k) {
      lo_path_t* path = &paths[(k + (size_t)r) % path_count];
      if (!path->available) continue;
      if (bench_fail(tkrt_stream_synchronize(c.device, c.stream), "sync")) goto done;
      uint64_t start = bench_now_ns();
      if (path->run(&c, launches)) goto done;
      uint64_t end = bench_now_ns();
      path->samples[r] = (double)(end - start) / (double)launches;
    }
  }
  if (bench_fail(tkrt_stream_synchronize(c.device, c.stream), "final sync")) goto done;

  const tkrt_device_info_t* info = tkrt_device_info(c.device);
  printf("\nlaunch overhead: %d-element f32 add, grid 1, on %s (%s, %s); %ld launches x %ld reps;\n"
         "host wall time of the enqueues only (the stream drains between batches), ns per launch\n",
         BENCH_ADD_N, info->backend, info->name, info->arch, launches, reps);
  printf("%-52s %10s %9s %9s %8s\n", "path", "median", "p10", "p90", "vs (a)");
  double base = NAN;
  for (size_t p = 0; p < path_count; ++p) {
    if (!paths[p].available) continue;
    paths[p].stats = bench_stats(paths[p].samples, (size_t)reps);
    if (p == 0) base = paths[p].stats.median;
  }
  for (size_t p = 0; p < path_count; ++p) {
    char ratio[32];
    if (!paths[p].available) {
      printf("%-52s %10s  (not measured: %s)\n", paths[p].label, "-",
             paths[p].why_not ? paths[p].why_not : "unavailable");
      continue;
    }
    printf("%-52s %10.1f %9.1f %9.1f %8s\n", paths[p].label, paths[p].stats.median,
           paths[p].stats.p10, paths[p].stats.p90,
           bench_ratio(ratio, sizeof(ratio), paths[p].stats.median, base));
  }
  /* The targets, as verdicts (nothing fails on them: timing is not a test). */
  double b = paths[2].stats.median;
  double cx = paths[3].available ? paths[3].stats.median : paths[4].stats.median;
  const char* c_label = paths[3].available ? "(c)" : "(c') emulated";
  printf("targets: (b) <= 1.10 x (a): %s (%.2f); %s <= 1.20 x (a): %s (%.2f)", b <= 1.10 * base ? "met" : "MISSED",
         b / base, c_label, cx <= 1.20 * base ? "met" : "MISSED", cx / base);
  if (paths[5].available) {
    printf("; (d) / (b) = %.2f, (d) / (c) = %.2f", paths[5].stats.median / b,
           paths[5].stats.median / cx);
  }
  printf("\n");

  bench_json_begin_object(&json, NULL);
  bench_json_header(&json, "launch_overhead", o, c.device);
  bench_json_int(&json, "elements", BENCH_ADD_N);
  bench_json_int(&json, "launches_per_rep", launches);
  bench_json_int(&json, "reps", reps);
  bench_json_int(&json, "blob_bytes", (long long)c.add.blob_size);
  bench_json_string(&json, "unit", "ns per launch, host wall time of the enqueues");
  bench_json_begin_array(&json, "paths");
  for (size_t p = 0; p < path_count; ++p) {
    bench_json_begin_object(&json, NULL);
    bench_json_string(&json, "id", paths[p].id);
    bench_json_string(&json, "label", paths[p].label);
    bench_json_bool(&json, "measured", paths[p].available);
    if (paths[p].available) {
      bench_json_stats(&json, "ns_per_launch", &paths[p].stats);
      bench_json_number(&json, "ratio_to_a", paths[p].stats.median / base);
    } else {
      bench_json_string(&json, "why_not", paths[p].why_not);
    }
    bench_json_end_object(&json);
  }
  bench_json_end_array(&json);
  bench_json_begin_object(&json, "targets");
  bench_json_number(&json, "b_over_a", b / base);
  bench_json_bool(&json, "b_within_10pct", b <= 1.10 * base);
  bench_json_string(&json, "c_path", paths[3].available ? "c_xla" : "c_emulated");
  bench_json_number(&json, "c_over_a", cx / base);
  bench_json_bool(&json, "c_within_20pct", cx <= 1.20 * base);
  if (paths[5].available) {
    bench_json_number(&json, "d_over_b", paths[5].stats.median / b);
    bench_json_number(&json, "d_over_c", paths[5].stats.median / cx);
  }
  bench_json_end_object(&json);
  bench_json_end_object(&json);
  rc = 0;

done:
  if (bench_json_close(&json)) rc = 1;
  for (size_t p = 0; p < path_count; ++p) free(paths[p].samples);
  lo_teardown(&c);
  return rc;
}
