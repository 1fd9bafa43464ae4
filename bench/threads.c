/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt benchmarks: launches per second of one prepared call from 1, 2, 4 and 8 threads on one
 * device, each thread with its own stream and output buffer, next to the raw driver loop. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_main.h"

#define THREADS_MAX 8

typedef struct th_shared {
  tkrt_device_t* device;
  tkrt_call_t* call;
  bench_cuda_t* cu; /* NULL: tkrt only */
  void* raw_function;
  tkrt_deviceptr_t x, y;
  long launches;
  int raw; /* this round: 1 raw driver, 0 tkrt_call_launch */
  pthread_barrier_t start;
} th_shared_t;

typedef struct th_worker {
  th_shared_t* shared;
  pthread_t thread;
  tkrt_stream_t stream;
  tkrt_deviceptr_t out;
  uint64_t start_ns, end_ns;
  int failed;
} th_worker_t;

static int th_launch(th_worker_t* w, long count) {
  th_shared_t* s = w->shared;
  if (s->raw) {
    int32_t n = BENCH_ADD_N;
    uint64_t values[6] = {s->x, s->y, 0, w->out, 0, 0};
    memcpy(&values[2], &n, sizeof(n));
    void* params[6];
    for (int i = 0; i < 6; ++i) params[i] = &values[i];
    for (long i = 0; i < count; ++i) {
      int result = s->cu->cuLaunchKernel(s->raw_function, 1, 1, 1, 128, 1, 1, 0, (void*)w->stream,
                                         params, NULL);
      if (result) return bench_cuda_check(s->cu, result, "cuLaunchKernel");
    }
    return 0;
  }
  tkrt_buffer_t buffers[3] = {{s->x, TKRT_BUFFER_SIZE_UNKNOWN}, {s->y, TKRT_BUFFER_SIZE_UNKNOWN},
                              {w->out, TKRT_BUFFER_SIZE_UNKNOWN}};
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  args.device = s->device;
  args.stream = w->stream;
  args.buffers = buffers;
  args.input_count = 2;
  args.output_count = 1;
  for (long i = 0; i < count; ++i) {
    tkrt_status_t status = tkrt_call_launch(s->call, &args);
    if (status) return bench_fail(status, "tkrt_call_launch");
  }
  return 0;
}

static void* th_main(void* arg) {
  th_worker_t* w = arg;
  th_shared_t* s = w->shared;
  /* The raw driver loop needs the primary context current on this thread (tkrt sets it itself). */
  if (s->raw && s->cu->cuCtxSetCurrent(s->cu->context)) w->failed = 1;
  if (!w->failed && th_launch(w, s->launches / 20 + 1)) w->failed = 1; /* warm-up */
  if (bench_fail(tkrt_stream_synchronize(s->device, w->stream), "warm-up sync")) w->failed = 1;
  pthread_barrier_wait(&s->start);
  w->start_ns = bench_now_ns();
  if (!w->failed && th_launch(w, s->launches)) w->failed = 1;
  w->end_ns = bench_now_ns(); /* enqueues done; the drain below is not timed */
  if (bench_fail(tkrt_stream_synchronize(s->device, w->stream), "sync")) w->failed = 1;
  return NULL;
}

/* One measurement: `threads` workers, each `launches` launches; returns launches per second. */
static double th_round(th_shared_t* s, th_worker_t* workers, int threads) {
  if (pthread_barrier_init(&s->start, NULL, (unsigned)threads)) return -1;
  int started = 0;
  for (; started < threads; ++started) {
    workers[started].shared = s;
    workers[started].failed = 0;
    if (pthread_create(&workers[started].thread, NULL, th_main, &workers[started])) break;
  }
  int failed = started != threads; /* then the barrier never opens: report and give up */
  if (failed) {
    fprintf(stderr, "bench: cannot start %d threads\n", threads);
    exit(1);
  }
  uint64_t first = UINT64_MAX, last = 0;
  for (int t = 0; t < threads; ++t) {
    pthread_join(workers[t].thread, NULL);
    failed |= workers[t].failed;
    if (workers[t].start_ns < first) first = workers[t].start_ns;
    if (workers[t].end_ns > last) last = workers[t].end_ns;
  }
  pthread_barrier_destroy(&s->start);
  if (failed || last <= first) return -1;
  return (double)threads * (double)s->launches / ((double)(last - first) * 1e-9);
}

int bench_threads(const bench_options_t* o) {
  const bool cuda = strcmp(o->backend, "cuda") == 0;
  const int counts[] = {1, 2, 4, 8};
  const int count_n = 4;
  long launches = o->launches > 0 ? o->launches : (o->quick ? 200 : 2000);
  long reps = o->reps > 0 ? (o->reps < 15 ? o->reps : 15) : (o->quick ? 3 : 9);
  int rc = 1;
  bench_cuda_t cu;
  memset(&cu, 0, sizeof(cu));
  th_shared_t s;
  memset(&s, 0, sizeof(s));
  th_worker_t workers[THREADS_MAX];
  memset(workers, 0, sizeof(workers));
  bench_add_call_t add;
  memset(&add, 0, sizeof(add));
  void* raw_module = NULL;
  double results[2][4][15];
  bench_stats_t stats[2][4];
  bench_json_t json;
  if (bench_json_open(&json, o->json_path)) return 1;
  if (cuda && bench_cuda_load(&cu)) goto done;
  if (bench_device_open(o->backend, &s.device)) goto done;
  if (bench_add_call_build(o, o->backend, &add)) goto done;
  s.call = add.call;
  s.launches = launches;
  size_t bytes = BENCH_ADD_N * sizeof(float);
  tkrt_status_t status = tkrt_memory_alloc(s.device, bytes, &s.x);
  if (!status) status = tkrt_memory_alloc(s.device, bytes, &s.y);
  if (!status) status = tkrt_memset_async(s.device, s.x, 0, bytes, NULL);
  if (!status) status = tkrt_memset_async(s.device, s.y, 0, bytes, NULL);
  for (int t = 0; !status && t < THREADS_MAX; ++t) {
    status = tkrt_stream_create(s.device, &workers[t].stream);
    if (!status) status = tkrt_memory_alloc(s.device, bytes, &workers[t].out);
  }
  if (!status) status = tkrt_call_prepare(add.call, s.device);
  if (!status) status = tkrt_stream_synchronize(s.device, NULL);
  if (status) {
    bench_fail(status, "setting up");
    goto done;
  }
  if (cuda) {
    const tkrt_kernel_desc_t* kd =
        tkrt_kernel_get_desc(tkrt_call_get_desc(add.call)->configs[0].kernel);
    char* ptx = malloc(kd->images[0].size + 1);
    if (!ptx) goto done;
    memcpy(ptx, kd->images[0].data, kd->images[0].size);
    ptx[kd->images[0].size] = '\0';
    int failed = bench_cuda_check(&cu, cu.cuModuleLoadData(&raw_module, ptx), "cuModuleLoadData") ||
                 bench_cuda_check(&cu, cu.cuModuleGetFunction(&s.raw_function, raw_module, kd->name),
                                  "cuModuleGetFunction");
    free(ptx);
    if (failed) goto done;
    s.cu = &cu;
  }

  /* Rounds alternate raw and tkrt and cycle the thread counts, so drift falls on all alike. */
  for (long r = 0; r < reps; ++r) {
    for (int k = 0; k < count_n; ++k) {
      for (int mode = cuda ? 0 : 1; mode < 2; ++mode) {
        s.raw = mode == 0;
        double rate = th_round(&s, workers, counts[k]);
        if (rate < 0) goto done;
        results[mode][k][r] = rate;
      }
    }
  }
  const tkrt_device_info_t* info = tkrt_device_info(s.device);
  printf("\nthreads: launches per second of one prepared %d-element add (grid 1) on %s (%s),\n"
         "each thread its own stream; %ld launches per thread, median of %ld rounds (enqueues only)\n",
         BENCH_ADD_N, info->backend, info->name, launches, reps);
  printf("%-8s %16s %16s %10s %14s\n", "threads", cuda ? "raw driver /s" : "-", "tkrt /s",
         "tkrt/raw", "tkrt scaling");
  for (int k = 0; k < count_n; ++k) {
    for (int mode = 0; mode < 2; ++mode) {
      stats[mode][k] = bench_stats(results[mode][k], cuda || mode == 1 ? (size_t)reps : 0);
    }
    char ratio[32], scaling[32];
    printf("%-8d %16.0f %16.0f %10s %14s\n", counts[k], stats[0][k].median, stats[1][k].median,
           bench_ratio(ratio, sizeof(ratio), stats[1][k].median, stats[0][k].median),
           bench_ratio(scaling, sizeof(scaling), stats[1][k].median, stats[1][0].median));
  }
  bench_json_begin_object(&json, NULL);
  bench_json_header(&json, "threads", o, s.device);
  bench_json_int(&json, "launches_per_thread", launches);
  bench_json_int(&json, "rounds", reps);
  bench_json_string(&json, "unit", "launches per second, all threads together, enqueues only");
  bench_json_begin_array(&json, "rows");
  for (int k = 0; k < count_n; ++k) {
    bench_json_begin_object(&json, NULL);
    bench_json_int(&json, "threads", counts[k]);
    if (cuda) bench_json_stats(&json, "raw_driver", &stats[0][k]);
    bench_json_stats(&json, "tkrt_call_launch", &stats[1][k]);
    if (cuda) bench_json_number(&json, "tkrt_over_raw", stats[1][k].median / stats[0][k].median);
    bench_json_number(&json, "tkrt_scaling", stats[1][k].median / stats[1][0].median);
    bench_json_end_object(&json);
  }
  bench_json_end_array(&json);
  bench_json_end_object(&json);
  rc = 0;

done:
  if (bench_json_close(&json)) rc = 1;
  if (raw_module) cu.cuModuleUnload(raw_module);
  if (s.device) {
    for (int t = 0; t < THREADS_MAX; ++t) {
      if (workers[t].out) tkrt_status_free(tkrt_memory_free(s.device, workers[t].out));
      if (workers[t].stream) tkrt_status_free(tkrt_stream_destroy(s.device, workers[t].stream));
    }
    if (s.x) tkrt_status_free(tkrt_memory_free(s.device, s.x));
    if (s.y) tkrt_status_free(tkrt_memory_free(s.device, s.y));
  }
  bench_add_call_free(&add);
  if (s.device) tkrt_device_release(s.device);
  return rc;
}
