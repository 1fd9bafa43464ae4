/* SPDX-License-Identifier: Apache-2.0 */
/* Pruning in the autotuner's pass 2: configs far behind the best after the first round are not
 * timed further. Configs of clearly different speeds (each config "spins" a given number of
 * microseconds) must get the same winner as without pruning, with fewer timed launches; configs
 * within the margin are always measured in full; the report says what was pruned and why.
 *
 * The times are those of a virtual clock (test/core/fault_device.h): the device the tests use
 * wraps the real one, launches the real kernels (which compute and count their launches) without
 * spinning, and advances its clock by each launch's spin parameter; events read that clock. The
 * tuner's measurements are then exact whatever else the machine runs, and so is every
 * expectation below: no case depends on timing (one failed under load when real spins were
 * timed). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "test/core/core_test_util.h"
#include "test/core/fault_device.h"

#define N 1000
#define MAX_CONFIGS 8
static tkrt_device_t* g_device;

/* An autotuned call over `count` configs of add_128 (out = x + y), config c spinning micros[c]. */
static tkrt_call_t* spin_call(size_t count, const uint32_t* micros) {
  tkrt_param_t params[MAX_CONFIGS][6];
  tkrt_config_desc_t configs[MAX_CONFIGS];
  tkrt_kernel_t* kernel = core_kernel("add_128", 4, 1, 0);
  if (!kernel) return NULL;
  for (size_t c = 0; c < count; ++c) {
    params[c][0] = core_array(16, 0);
    params[c][1] = core_array(16, 0);
    params[c][2] = core_array(16, 0);
    params[c][3] = core_i32(N);
    params[c][4] = core_u32(micros[c]);
    params[c][5] = core_array(0, 0);
    configs[c] = (tkrt_config_desc_t){.kernel = kernel, .grid = {(N + 127) / 128, 1, 1},
                                      .params = params[c], .param_count = 6};
  }
  tkrt_call_desc_t desc;
  tkrt_call_desc_init(&desc);
  desc.name = "prune_test";
  desc.autotuned = true;
  desc.configs = configs;
  desc.config_count = count;
  tkrt_call_t* call = NULL;
  EXPECT_OK(tkrt_call_create(&desc, &call));
  tkrt_kernel_release(kernel);
  return call;
}

typedef struct progress_log {
  int pass2_reports[MAX_CONFIGS];
} progress_log_t;

static void on_progress(void* user, size_t config, size_t config_count, int pass,
                        uint32_t iterations, float ms) {
  (void)config_count;
  (void)iterations;
  (void)ms;
  progress_log_t* log = user;
  if (pass == 2 && config < MAX_CONFIGS) log->pass2_reports[config]++;
}

typedef struct tune_result {
  tkrt_status_t status;
  size_t chosen;
  uint32_t launches; /* every launch of the kernel: warm-ups, timed, and the call's own */
  tkrt_tune_report_t report;
  float times[MAX_CONFIGS];
  uint8_t pruned[MAX_CONFIGS];
  progress_log_t progress;
} tune_result_t;

/* Tunes a fresh call on fresh buffers and checks the result it computed. */
static void tune(size_t count, const uint32_t* micros, double target_ms, uint32_t max_iterations,
                 double prune_margin, tune_result_t* out) {
  memset(out, 0, sizeof(*out));
  tkrt_call_t* call = spin_call(count, micros);
  tkrt_autotuner_options_t options;
  tkrt_autotuner_options_init(&options);
  EXPECT_TRUE(options.prune_margin == 0.25); /* the documented default */
  options.store_dir = "off";
  options.target_ms = target_ms;
  options.max_iterations = max_iterations;
  options.prune_margin = prune_margin;
  options.progress = on_progress;
  options.progress_user = &out->progress;
  tkrt_autotuner_t* tuner = NULL;
  EXPECT_OK(tkrt_autotuner_create(&options, &tuner));
  if (!call || !tuner) {
    tkrt_call_release(call);
    tkrt_autotuner_destroy(tuner);
    out->status = TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "setup failed");
    return;
  }
  float x[N], y[N], result[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i;
    y[i] = 2.0f;
  }
  tkrt_deviceptr_t dx = core_upload(g_device, x, sizeof(x));
  tkrt_deviceptr_t dy = core_upload(g_device, y, sizeof(y));
  tkrt_deviceptr_t dout = core_upload(g_device, NULL, sizeof(result));
  tkrt_deviceptr_t counter = core_upload(g_device, NULL, 16);
  tkrt_buffer_t buffers[] = {{dx, sizeof(x)}, {dy, sizeof(y)}, {dout, sizeof(result)}, {counter, 16}};
  tkrt_launch_decision_t decision;
  out->status = core_launch_decided(call, g_device, NULL, buffers, 3, 1, tuner, &decision);
  EXPECT_OK(tkrt_stream_synchronize(g_device, NULL));
  if (!out->status) {
    out->chosen = decision.config;
    core_download(g_device, result, dout, sizeof(result));
    size_t wrong = 0;
    for (int i = 0; i < N; ++i) wrong += result[i] != x[i] + y[i];
    EXPECT_EQ_U64(wrong, 0);
    uint32_t counts[4];
    core_download(g_device, counts, counter, sizeof(counts));
    out->launches = counts[0];
    tkrt_tune_report_init(&out->report);
    out->report.times_ms = out->times;
    out->report.times_capacity = MAX_CONFIGS;
    out->report.pruned = out->pruned;
    EXPECT_OK(tkrt_autotuner_get_report(tuner, call, tkrt_device_info(g_device)->arch,
                                        &out->report));
  }
  EXPECT_OK(tkrt_memory_free(g_device, dx));
  EXPECT_OK(tkrt_memory_free(g_device, dy));
  EXPECT_OK(tkrt_memory_free(g_device, dout));
  EXPECT_OK(tkrt_memory_free(g_device, counter));
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);
}

/* Eight configs, one clearly fastest (200 µs; the next is 1000 µs): pruning keeps the winner,
 * drops the seven others after the first round, and launches far less. */
static void test_prune_same_winner_fewer_launches(void) {
  static const uint32_t micros[8] = {1800, 1400, 2400, 200, 2200, 1000, 3000, 1600};
  tune_result_t pruned, full;
  tune(8, micros, 6.0, 16, 0.25, &pruned);
  ASSERT_OK(pruned.status);
  tune(8, micros, 6.0, 16, -1.0, &full);
  ASSERT_OK(full.status);
  EXPECT_EQ_U64(pruned.chosen, 3);
  EXPECT_EQ_U64(full.chosen, 3);
  EXPECT_EQ_U64(pruned.report.chosen, 3);
  EXPECT_EQ_U64(pruned.report.source, TKRT_TUNE_SOURCE_TUNED);

  /* The best pass-1 time (~0.2 ms) asks for 30 iterations, clamped to 16: a first round of 4. */
  uint32_t iterations = pruned.report.iterations;
  EXPECT_EQ_U64(iterations, 16);
  EXPECT_EQ_U64(pruned.report.round1_iterations, 4);
  EXPECT_TRUE(pruned.report.prune_margin == 0.25);
  EXPECT_EQ_U64(pruned.report.pruned_count, 7);
  EXPECT_TRUE(fabsf(pruned.report.round1_best_ms - 0.2f) < 1e-6f);
  for (int c = 0; c < 8; ++c) {
    EXPECT_TRUE(fabsf(pruned.times[c] - (float)micros[c] / 1000.0f) < 1e-5f);
    EXPECT_TRUE(fabsf(full.times[c] - (float)micros[c] / 1000.0f) < 1e-5f);
    EXPECT_EQ_U64(pruned.pruned[c], c != 3);
    if (c != 3) EXPECT_TRUE(pruned.times[c] > 1.25f * pruned.report.round1_best_ms);
    EXPECT_EQ_U64(pruned.progress.pass2_reports[c], 1); /* one final figure per config */
  }
  /* Pass 1: 8; round 1: 8 x 4; round 2: the one survivor's remaining 12. */
  EXPECT_EQ_U64(pruned.report.timed_launches, 8 + 8 * 4 + 12);
  EXPECT_EQ_U64(full.report.timed_launches, 8 + 8 * 16);
  EXPECT_EQ_U64(full.report.round1_iterations, 0);
  EXPECT_EQ_U64(full.report.pruned_count, 0);
  EXPECT_TRUE(full.report.prune_margin < 0);
  /* Counted by the kernel itself: warm-ups (one per config per pass and round) and the call's
   * own launch included. */
  EXPECT_EQ_U64(pruned.launches, (8 + 8) + (8 + 8 * 4) + (1 + 12) + 1);
  EXPECT_EQ_U64(full.launches, (8 + 8) + (8 + 8 * 16) + 1);
  fprintf(stderr, "  pruned: %u kernel launches, %llu timed; without pruning: %u, %llu\n",
          pruned.launches, (unsigned long long)pruned.report.timed_launches, full.launches,
          (unsigned long long)full.report.timed_launches);
}

/* Two configs 4% apart are both within the margin (here 1.0: twice the best), so both are
 * measured with the full count and one of them wins; the two five times slower are dropped. */
static void test_prune_keeps_configs_within_margin(void) {
  static const uint32_t micros[4] = {6000, 1000, 1040, 5000};
  tune_result_t r;
  tune(4, micros, 20.0, 16, 1.0, &r);
  ASSERT_OK(r.status);
  EXPECT_EQ_U64(r.chosen, 1);
  EXPECT_TRUE(fabsf(r.times[1] - 1.0f) < 1e-5f && fabsf(r.times[2] - 1.04f) < 1e-5f);
  EXPECT_TRUE(fabsf(r.times[0] - 6.0f) < 1e-5f && fabsf(r.times[3] - 5.0f) < 1e-5f);
  EXPECT_TRUE(r.report.round1_best_ms == 1.0f);
  EXPECT_EQ_U64(r.report.round1_iterations, 4);
  EXPECT_EQ_U64(r.pruned[1], 0);
  EXPECT_EQ_U64(r.pruned[2], 0);
  EXPECT_EQ_U64(r.pruned[0], 1);
  EXPECT_EQ_U64(r.pruned[3], 1);
  EXPECT_EQ_U64(r.report.pruned_count, 2);
  EXPECT_EQ_U64(r.report.timed_launches, 4 + 4 * 4 + 2 * 12);
}

/* Fewer than TKRT_TUNE_PRUNE_MIN_ITERATIONS iterations: one round, nothing pruned (a first
 * round of one launch would decide on too little). */
static void test_prune_needs_enough_iterations(void) {
  static const uint32_t micros[3] = {2000, 500, 1500};
  tune_result_t r;
  tune(3, micros, 2.0, 100, 0.25, &r); /* 2 ms / 0.5 ms: 4 iterations */
  ASSERT_OK(r.status);
  EXPECT_EQ_U64(r.chosen, 1);
  EXPECT_TRUE(r.report.iterations < TKRT_TUNE_PRUNE_MIN_ITERATIONS);
  EXPECT_EQ_U64(r.report.round1_iterations, 0);
  EXPECT_EQ_U64(r.report.pruned_count, 0);
  EXPECT_EQ_U64(r.report.timed_launches, 3 + 3 * r.report.iterations);
}

/* A caller built before the pruning fields: its smaller report is filled as far as it reaches. */
static void test_prune_report_versioning(void) {
  static const uint32_t micros[2] = {800, 300};
  tkrt_call_t* call = spin_call(2, micros);
  tkrt_autotuner_t* tuner = core_tuner(NULL, 4.0, 16);
  if (!call || !tuner) goto done;
  tkrt_deviceptr_t dx = core_upload(g_device, NULL, N * 4), dy = core_upload(g_device, NULL, N * 4);
  tkrt_deviceptr_t dout = core_upload(g_device, NULL, N * 4), counter = core_upload(g_device, NULL, 16);
  tkrt_buffer_t buffers[] = {{dx, N * 4}, {dy, N * 4}, {dout, N * 4}, {counter, 16}};
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 3, 1, tuner));
  EXPECT_OK(tkrt_stream_synchronize(g_device, NULL));
  union {
    tkrt_tune_report_t report;
    unsigned char bytes[sizeof(tkrt_tune_report_t)];
  } old;
  memset(&old, 0xab, sizeof(old));
  size_t old_size = offsetof(tkrt_tune_report_t, round1_iterations);
  old.report.struct_size = old_size;
  old.report.times_ms = NULL;
  old.report.times_capacity = 0;
  EXPECT_OK(tkrt_autotuner_get_report(tuner, call, tkrt_device_info(g_device)->arch, &old.report));
  EXPECT_EQ_U64(old.report.chosen, 1);
  EXPECT_EQ_U64(old.report.struct_size, old_size);
  size_t untouched = 0;
  for (size_t i = old_size; i < sizeof(old); ++i) untouched += old.bytes[i] == 0xab;
  EXPECT_EQ_U64(untouched, sizeof(old) - old_size);
  EXPECT_OK(tkrt_memory_free(g_device, dx));
  EXPECT_OK(tkrt_memory_free(g_device, dy));
  EXPECT_OK(tkrt_memory_free(g_device, dout));
  EXPECT_OK(tkrt_memory_free(g_device, counter));
done:
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);
}

static void test_prune_margin_nan_refused(void) {
  tkrt_autotuner_options_t options;
  tkrt_autotuner_options_init(&options);
  options.store_dir = "off";
  options.prune_margin = NAN;
  tkrt_autotuner_t* tuner = NULL;
  EXPECT_STATUS(tkrt_autotuner_create(&options, &tuner), TKRT_STATUS_INVALID_ARGUMENT,
                "prune_margin");
}

/* The tests' device: the real one behind a virtual clock driven by add_128's spin (parameter 4). */
static void use_virtual_clock(void) { tkrt_fault_device_wrap_with_virtual_clock(&g_device, 4); }

int main(int argc, char** argv) {
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(test_prune_same_winner_fewer_launches),
      TKRT_TEST_CASE(test_prune_keeps_configs_within_margin),
      TKRT_TEST_CASE(test_prune_needs_enough_iterations),
      TKRT_TEST_CASE(test_prune_report_versioning),
      TKRT_TEST_CASE(test_prune_margin_nan_refused),
  };
  return core_test_run(argc, argv, &g_device, use_virtual_clock, cases,
                       sizeof(cases) / sizeof(cases[0]));
}
