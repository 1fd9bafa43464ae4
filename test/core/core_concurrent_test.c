/* SPDX-License-Identifier: Apache-2.0 */
/* First calls from 16 threads at once, each on its own stream: one thread tunes, the others wait
 * and reuse its decision; every thread's in-place result is computed exactly once. Also run under
 * ThreadSanitizer (host backend). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "test/core/core_test_util.h"

#define THREADS 16
#define N 8192

static tkrt_device_t* g_device;
static tkrt_call_t* g_call;
static tkrt_autotuner_t* g_tuner;
static pthread_barrier_t g_barrier;

typedef struct worker {
  float x[N], y[N];
  tkrt_deviceptr_t dx, dy, counter;
  tkrt_stream_t stream;
  tkrt_status_t status;
  uint32_t counts[4];
  size_t wrong;
} worker_t;

static void* worker_main(void* raw) {
  worker_t* w = raw;
  tkrt_buffer_t buffers[] = {{w->dx, N * 4}, {w->dy, N * 4}, {w->counter, 16}, {w->dx, N * 4}};
  pthread_barrier_wait(&g_barrier);
  w->status = core_launch(g_call, g_device, w->stream, buffers, 3, 1, g_tuner);
  if (!w->status) w->status = tkrt_memcpy_dtoh_async(g_device, w->counts, w->counter, 16, w->stream);
  float out[N];
  if (!w->status) w->status = tkrt_memcpy_dtoh_async(g_device, out, w->dx, sizeof(out), w->stream);
  if (!w->status) w->status = tkrt_stream_synchronize(g_device, w->stream);
  for (int i = 0; i < N && !w->status; ++i) {
    float expected = w->x[i] + w->y[i];
    w->wrong += memcmp(&out[i], &expected, 4) != 0;
  }
  return NULL;
}

static void test_concurrent_first_calls_tune_once(void) {
  core_inplace_spec_t spec = {.n = N, .micros = {3000, 200, 1500}};
  g_call = core_inplace_call(&spec);
  g_tuner = core_tuner(NULL, 1.0, 2);
  ASSERT_TRUE(g_call && g_tuner);

  worker_t* workers = calloc(THREADS, sizeof(worker_t));
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    worker_t* w = &workers[t];
    for (int i = 0; i < N; ++i) {
      w->x[i] = (float)(i + t);
      w->y[i] = (float)(t * 1000) + 0.5f;
    }
    w->dx = core_upload(g_device, w->x, sizeof(w->x));
    w->dy = core_upload(g_device, w->y, sizeof(w->y));
    w->counter = core_upload(g_device, NULL, 16);
    EXPECT_OK(tkrt_stream_create(g_device, &w->stream));
  }
  pthread_barrier_init(&g_barrier, NULL, THREADS);
  for (int t = 0; t < THREADS; ++t) pthread_create(&threads[t], NULL, worker_main, &workers[t]);
  for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
  pthread_barrier_destroy(&g_barrier);

  tkrt_tune_report_t report;
  tkrt_tune_report_init(&report);
  EXPECT_OK(tkrt_autotuner_get_report(g_tuner, g_call, tkrt_device_info(g_device)->arch, &report));
  EXPECT_TRUE(report.source == TKRT_TUNE_SOURCE_TUNED);
  int tuners = 0;
  for (int t = 0; t < THREADS; ++t) {
    worker_t* w = &workers[t];
    EXPECT_OK(w->status);
    EXPECT_EQ_U64(w->wrong, 0);
    uint32_t total = w->counts[0] + w->counts[1] + w->counts[2];
    if (total == 1) {
      EXPECT_EQ_U64(w->counts[report.chosen], 1); /* reused the decision */
    } else {
      ++tuners;
      EXPECT_EQ_U64(total, 3 * (report.iterations + 3) + 1);
    }
    EXPECT_OK(tkrt_stream_destroy(g_device, w->stream));
    EXPECT_OK(tkrt_memory_free(g_device, w->dx));
    EXPECT_OK(tkrt_memory_free(g_device, w->dy));
    EXPECT_OK(tkrt_memory_free(g_device, w->counter));
  }
  EXPECT_EQ_U64(tuners, 1);
  free(workers);
  tkrt_autotuner_destroy(g_tuner);
  tkrt_call_release(g_call);
}

int main(int argc, char** argv) {
  static const tkrt_test_case_t cases[] = {TKRT_TEST_CASE(test_concurrent_first_calls_tune_once)};
  return core_test_run(argc, argv, &g_device, NULL, cases, sizeof(cases) / sizeof(cases[0]));
}
