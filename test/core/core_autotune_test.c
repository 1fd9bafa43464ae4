/* SPDX-License-Identifier: Apache-2.0 */
/* Autotuning and aliasing on any backend (host in CI, CUDA on the GPU machine): the fastest
 * config wins, aliased inputs are saved and restored so every config sees the original data and
 * the result is computed exactly once, tuning never runs under capture, and pinned / never
 * policies do not benchmark. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/core/core_test_util.h"
#include "test/core/fault_device.h"
#include "tkrt/environment.h"

#define N 20000
static tkrt_device_t* g_device;

/* An in-place x += y call over three configs (BLOCK 128/512/2048, each with its own grid and a
 * different delay so that config 1 is clearly fastest), aliased as jax-triton declares it. */
static tkrt_call_t* inplace_call(uint32_t shared_for_config2) {
  core_inplace_spec_t spec = {.n = N, .micros = {6000, 300, 3000}, .warps = {4, 4, 8},
                              .shared = {0, 0, shared_for_config2}, .alias_record = true};
  return core_inplace_call(&spec);
}

static tkrt_autotuner_t* make_tuner(tkrt_tune_policy_t policy) {
  tkrt_autotuner_options_t options;
  tkrt_autotuner_options_init(&options);
  options.policy = policy;
  options.store_dir = "off";
  options.target_ms = 2.0;
  options.max_iterations = 3;
  tkrt_autotuner_t* tuner = NULL;
  EXPECT_OK(tkrt_autotuner_create(&options, &tuner));
  return tuner;
}

typedef struct inplace_buffers {
  float x[N], y[N];
  tkrt_deviceptr_t dx, dy, counter;
} inplace_buffers_t;

static void inplace_setup(inplace_buffers_t* b) {
  for (int i = 0; i < N; ++i) {
    b->x[i] = (float)i * 0.25f;
    b->y[i] = 1000.0f + (float)i;
  }
  b->dx = core_upload(g_device, b->x, sizeof(b->x));
  b->dy = core_upload(g_device, b->y, sizeof(b->y));
  b->counter = core_upload(g_device, NULL, 16);
}

static void inplace_teardown(inplace_buffers_t* b) {
  EXPECT_OK(tkrt_memory_free(g_device, b->dx));
  EXPECT_OK(tkrt_memory_free(g_device, b->dy));
  EXPECT_OK(tkrt_memory_free(g_device, b->counter));
}

/* out0 must equal x + y computed exactly once. */
static size_t inplace_wrong(const inplace_buffers_t* b, tkrt_deviceptr_t result) {
  float out[N];
  core_download(g_device, out, result, sizeof(out));
  size_t wrong = 0;
  for (int i = 0; i < N; ++i) {
    float expected = b->x[i] + b->y[i];
    wrong += memcmp(&out[i], &expected, 4) != 0;
  }
  return wrong;
}

static void test_autotune_alias_same_buffer_exactly_once(void) {
  inplace_buffers_t* b = calloc(1, sizeof(*b));
  inplace_setup(b);
  tkrt_call_t* call = inplace_call(0);
  tkrt_autotuner_t* tuner = make_tuner(TKRT_TUNE_POLICY_AUTO);
  ASSERT_TRUE(call && tuner);
  /* XLA passes the aliased output as the same pointer after the inputs. */
  tkrt_buffer_t buffers[] = {{b->dx, N * 4}, {b->dy, N * 4}, {b->counter, 16}, {b->dx, N * 4}};
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 3, 1, tuner));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  float times[3];
  tkrt_tune_report_t report;
  tkrt_tune_report_init(&report);
  report.times_ms = times;
  report.times_capacity = 3;
  EXPECT_OK(tkrt_autotuner_get_report(tuner, call, tkrt_device_info(g_device)->arch, &report));
  EXPECT_TRUE(report.source == TKRT_TUNE_SOURCE_TUNED);
  EXPECT_EQ_U64(report.chosen, 1);
  EXPECT_TRUE(times[0] > times[1] && times[2] > times[1] && times[1] > 0);
  fprintf(stderr, "  times %.3f %.3f %.3f ms, %u iterations\n", times[0], times[1], times[2],
          report.iterations);
  /* Each config: warm-up + 1 timed, then warm-up + `iterations`; the winner once more. */
  uint32_t counts[4];
  core_download(g_device, counts, b->counter, 16);
  for (int c = 0; c < 3; ++c) EXPECT_EQ_U64(counts[c], report.iterations + 3 + (c == 1));
  /* Later launches reuse the decision and compute once more. */
  memcpy(b->x, b->x, 0);
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 3, 1, tuner));
  core_download(g_device, counts, b->counter, 16);
  EXPECT_EQ_U64(counts[1], report.iterations + 5);
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);
  inplace_teardown(b);
  free(b);
}

static void test_autotune_alias_partial_overlap(void) {
  /* The output starts inside the input (a different address): still an alias, found by range. */
  inplace_buffers_t* b = calloc(1, sizeof(*b));
  inplace_setup(b);
  tkrt_call_t* call = inplace_call(0);
  tkrt_autotuner_t* tuner = make_tuner(TKRT_TUNE_POLICY_AUTO);
  ASSERT_TRUE(call && tuner);
  tkrt_buffer_t buffers[] = {{b->dx, N * 4}, {b->dy, N * 4}, {b->counter, 16},
                             {b->dx + 1024, N * 4 - 1024}};
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 3, 1, tuner));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);
  inplace_teardown(b);
  free(b);
}

static void test_autotune_alias_buffers_differ(void) {
  tkrt_fault_device_use_virtual_clock(g_device, 4); /* this kernel spins on parameter 4 */
  /* out = x + y into a separate output: inputs are never touched, nothing needs saving. */
  static const char* names[3] = {"add_128", "add_512", "add_2048"};
  static const uint32_t blocks[3] = {128, 512, 2048};
  tkrt_param_t params[3][6];
  tkrt_config_desc_t configs[3];
  for (int c = 0; c < 3; ++c) {
    params[c][0] = core_array(16, 0);
    params[c][1] = core_array(16, 0);
    params[c][2] = core_array(16, 0);
    params[c][3] = core_i32(N);
    params[c][4] = core_u32(c == 0 ? 0 : 5000); /* clearly slower, even under sanitizers */
    params[c][5] = core_array(0, 0);
    configs[c] = (tkrt_config_desc_t){.kernel = core_kernel(names[c], 4, 1, 0),
                                      .grid = {(N + blocks[c] - 1) / blocks[c], 1, 1},
                                      .params = params[c], .param_count = 6};
  }
  tkrt_alias_t alias = {0, 0, N * 4}; /* declared, but the buffers do not alias */
  tkrt_call_desc_t desc;
  tkrt_call_desc_init(&desc);
  desc.autotuned = true;
  desc.configs = configs;
  desc.config_count = 3;
  desc.aliases = &alias;
  desc.alias_count = 1;
  tkrt_call_t* call = NULL;
  EXPECT_OK(tkrt_call_create(&desc, &call));
  for (int c = 0; c < 3; ++c) tkrt_kernel_release(configs[c].kernel);
  inplace_buffers_t* b = calloc(1, sizeof(*b));
  inplace_setup(b);
  tkrt_deviceptr_t out = core_upload(g_device, NULL, N * 4);
  tkrt_autotuner_t* tuner = make_tuner(TKRT_TUNE_POLICY_AUTO);
  tkrt_buffer_t buffers[] = {{b->dx, N * 4}, {b->dy, N * 4}, {out, N * 4}, {b->counter, 16}};
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 2, 2, tuner));
  EXPECT_EQ_U64(inplace_wrong(b, out), 0);
  float x[N];
  core_download(g_device, x, b->dx, sizeof(x));
  EXPECT_TRUE(memcmp(x, b->x, sizeof(x)) == 0);
  tkrt_tune_report_t report;
  tkrt_tune_report_init(&report);
  EXPECT_OK(tkrt_autotuner_get_report(tuner, call, tkrt_device_info(g_device)->arch, &report));
  EXPECT_EQ_U64(report.chosen, 0);
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);
  EXPECT_OK(tkrt_memory_free(g_device, out));
  inplace_teardown(b);
  free(b);
  tkrt_fault_device_use_virtual_clock(g_device, 3);
}

#define UNKNOWN TKRT_BUFFER_SIZE_UNKNOWN

/* How many times each config launched (the kernels count their launches in counter[config]). */
static void inplace_launch_counts(const inplace_buffers_t* b, uint32_t out_counts[4]) {
  core_download(g_device, out_counts, b->counter, 16);
}

/* The launch says what it ran and why: decided once, reused after; provisional under capture. */
static void test_autotune_launch_reports_its_decision(void) {
  inplace_buffers_t* b = calloc(1, sizeof(*b));
  inplace_setup(b);
  tkrt_call_t* call = inplace_call(0);
  tkrt_autotuner_t* tuner = make_tuner(TKRT_TUNE_POLICY_AUTO);
  ASSERT_TRUE(call && tuner);
  tkrt_buffer_t buffers[] = {{b->dx, N * 4}, {b->dy, N * 4}, {b->counter, 16}, {b->dx, N * 4}};
  tkrt_launch_decision_t decision;
  memset(&decision, 0xff, sizeof(decision));
  EXPECT_OK(core_launch_decided(call, g_device, NULL, buffers, 3, 1, tuner, &decision));
  EXPECT_TRUE(decision.decided && !decision.provisional && !decision.capturing);
  EXPECT_EQ_U64(decision.source, TKRT_TUNE_SOURCE_TUNED);
  EXPECT_EQ_U64(decision.config, 1);
  EXPECT_OK(tkrt_memcpy_htod_async(g_device, b->dx, b->x, sizeof(b->x), NULL));
  EXPECT_OK(core_launch_decided(call, g_device, NULL, buffers, 3, 1, tuner, &decision));
  EXPECT_TRUE(!decision.decided && !decision.provisional);
  EXPECT_EQ_U64(decision.source, TKRT_TUNE_SOURCE_TUNED);
  EXPECT_EQ_U64(decision.config, 1);
  EXPECT_OK(tkrt_stream_synchronize(g_device, NULL));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);
  inplace_teardown(b);
  free(b);
}

static void test_autotune_alias_unknown_sizes(void) {
  inplace_buffers_t* b = calloc(1, sizeof(*b));
  inplace_setup(b);
  tkrt_call_t* call = inplace_call(0);
  tkrt_autotuner_t* tuner = make_tuner(TKRT_TUNE_POLICY_AUTO);
  ASSERT_TRUE(call && tuner);
  /* Bare pointers (sizes unknown): the alias record supplies the in-place input's size. */
  tkrt_buffer_t buffers[] = {{b->dx, UNKNOWN}, {b->dy, UNKNOWN}, {b->counter, UNKNOWN},
                             {b->dx, UNKNOWN}};
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 3, 1, tuner));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  tkrt_tune_report_t report;
  tkrt_tune_report_init(&report);
  EXPECT_OK(tkrt_autotuner_get_report(tuner, call, tkrt_device_info(g_device)->arch, &report));
  EXPECT_EQ_U64(report.source, TKRT_TUNE_SOURCE_TUNED);
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);
  inplace_teardown(b);
  free(b);
}

/* Without a size anywhere tuning cannot save the input it would overwrite: jaxlib tunes anyway and
 * leaves it overwritten; tkrt runs the first runnable config once, untuned, and says why. */
static void test_autotune_alias_size_nowhere_falls_back(void) {
  inplace_buffers_t* b = calloc(1, sizeof(*b));
  inplace_setup(b);
  core_inplace_spec_t spec = {.n = N, .micros = {6000, 300, 3000}, .alias_record = false};
  tkrt_call_t* call = core_inplace_call(&spec);
  tkrt_autotuner_t* tuner = make_tuner(TKRT_TUNE_POLICY_AUTO);
  ASSERT_TRUE(call && tuner);
  tkrt_buffer_t buffers[] = {{b->dx, UNKNOWN}, {b->dy, UNKNOWN}, {b->counter, UNKNOWN},
                             {b->dx, UNKNOWN}};
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 3, 1, tuner));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  uint32_t counts[4];
  inplace_launch_counts(b, counts);
  EXPECT_EQ_U64(counts[0], 1);
  EXPECT_EQ_U64(counts[1] + counts[2], 0);
  tkrt_tune_report_t report;
  tkrt_tune_report_init(&report);
  EXPECT_OK(tkrt_autotuner_get_report(tuner, call, tkrt_device_info(g_device)->arch, &report));
  EXPECT_EQ_U64(report.source, TKRT_TUNE_SOURCE_FALLBACK);
  EXPECT_EQ_U64(report.chosen, 0);
  EXPECT_TRUE(strstr(report.fallback_reason, "input 0 shares memory with an output") != NULL);
  EXPECT_TRUE(strcmp(tkrt_tune_source_name(report.source), "fallback") == 0);
  /* The fallback is the decision for this tuner: later launches neither tune nor fail. */
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 3, 1, tuner));
  inplace_launch_counts(b, counts);
  EXPECT_EQ_U64(counts[0], 2);
  EXPECT_EQ_U64(counts[1] + counts[2], 0);
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);
  inplace_teardown(b);
  free(b);
}

/* XLA's legacy target: bare pointers, outputs among the kernel's parameters, and the in-place
 * inputs given by the caller (from alias records with buffer indices). The output that XLA placed
 * on the input names the same memory again: saved once, restored before every config. */
static void test_autotune_caller_lists_aliased_inputs(void) {
  inplace_buffers_t* b = calloc(1, sizeof(*b));
  inplace_setup(b);
  core_inplace_spec_t spec = {.n = N, .micros = {6000, 300, 3000}, .alias_record = false};
  tkrt_call_t* call = core_inplace_call(&spec);
  tkrt_autotuner_t* tuner = make_tuner(TKRT_TUNE_POLICY_AUTO);
  ASSERT_TRUE(call && tuner);
  tkrt_buffer_t view[] = {{b->dx, UNKNOWN}, {b->dy, UNKNOWN}, {b->counter, UNKNOWN},
                          {b->dx, UNKNOWN}};
  tkrt_buffer_t aliased[] = {{b->dx, N * 4}, {b->dx, N * 4}};
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  args.device = g_device;
  args.buffers = view;
  args.input_count = 4; /* every buffer as an "input": only the caller's list decides aliasing */
  args.tuner = tuner;
  args.aliased_inputs = aliased;
  args.aliased_input_count = 2;
  EXPECT_OK(tkrt_call_launch(call, &args));
  EXPECT_OK(tkrt_stream_synchronize(g_device, NULL));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  tkrt_tune_report_t report;
  tkrt_tune_report_init(&report);
  EXPECT_OK(tkrt_autotuner_get_report(tuner, call, tkrt_device_info(g_device)->arch, &report));
  EXPECT_EQ_U64(report.source, TKRT_TUNE_SOURCE_TUNED);
  EXPECT_EQ_U64(report.chosen, 1);
  tkrt_autotuner_destroy(tuner);

  /* An entry of unknown size: the first config runs once, untuned. */
  EXPECT_OK(tkrt_memcpy_htod_async(g_device, b->dx, b->x, sizeof(b->x), NULL));
  EXPECT_OK(tkrt_memset_async(g_device, b->counter, 0, 16, NULL));
  tuner = make_tuner(TKRT_TUNE_POLICY_AUTO);
  aliased[1].size = UNKNOWN;
  args.tuner = tuner;
  EXPECT_OK(tkrt_call_launch(call, &args));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  uint32_t counts[4];
  inplace_launch_counts(b, counts);
  EXPECT_EQ_U64(counts[0], 1);
  EXPECT_EQ_U64(counts[1] + counts[2], 0);
  tkrt_tune_report_init(&report);
  EXPECT_OK(tkrt_autotuner_get_report(tuner, call, tkrt_device_info(g_device)->arch, &report));
  EXPECT_EQ_U64(report.source, TKRT_TUNE_SOURCE_FALLBACK);
  EXPECT_TRUE(strstr(report.fallback_reason, "unknown size") != NULL);
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);
  inplace_teardown(b);
  free(b);
}

/* Empty operands and results (TransformerEngine's optional `probs`) may sit at any address, shared
 * with another buffer: they never alias, so an input whose size is unknown but that only an empty
 * output shares memory with does not stop tuning. */
static void test_autotune_empty_buffers_never_alias(void) {
  inplace_buffers_t* b = calloc(1, sizeof(*b));
  inplace_setup(b);
  tkrt_call_t* call = inplace_call(0);
  tkrt_autotuner_t* tuner = make_tuner(TKRT_TUNE_POLICY_AUTO);
  ASSERT_TRUE(call && tuner);
  tkrt_buffer_t buffers[] = {{b->dx, N * 4}, {b->dy, UNKNOWN}, {b->counter, 16},
                             {b->dx, N * 4}, {b->dy, 0}, {b->dy + 4, 0}};
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 3, 3, tuner));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  tkrt_tune_report_t report;
  tkrt_tune_report_init(&report);
  EXPECT_OK(tkrt_autotuner_get_report(tuner, call, tkrt_device_info(g_device)->arch, &report));
  EXPECT_EQ_U64(report.source, TKRT_TUNE_SOURCE_TUNED);
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);
  inplace_teardown(b);
  free(b);
}

static void test_autotune_gather_reads_produced_indices(void) {
  /* These kernels have no spin parameter: the virtual clock leaves every parameter alone (all
   * configs then time alike; the test checks what the tuning run reads, not what it picks). */
  tkrt_fault_device_use_virtual_clock(g_device, UINT32_MAX);
  /* data = make_indices() is enqueued (not waited for) right before an autotuned in-place gather
   * data[i] = table[data[i]]: tuning must see the produced indices and restore them for every
   * config, or indices go out of range (counted in bad) or the result is applied twice. */
  enum { M = 4096 };
  int32_t table[M];
  for (int i = 0; i < M; ++i) table[i] = (int32_t)((i * 1103 + 17) % M);
  tkrt_deviceptr_t data = core_upload(g_device, NULL, sizeof(table));
  tkrt_deviceptr_t dtable = core_upload(g_device, table, sizeof(table));
  tkrt_deviceptr_t bad = core_upload(g_device, NULL, 4);
  tkrt_param_t make_params[] = {core_array(16, 0), core_i32(M)};
  tkrt_call_t* make = core_plain_call(core_kernel("make_indices", 1, 1, 0), M / 256, 1, 1,
                                      make_params, 2);
  tkrt_param_t params[] = {core_array(16, 0), core_array(16, 0), core_i32(M), core_array(0, 0)};
  tkrt_config_desc_t configs[3];
  for (int c = 0; c < 3; ++c) {
    configs[c] = (tkrt_config_desc_t){.kernel = core_kernel("gather_inplace", 1u << c, 1, 0),
                                      .grid = {M / 256, 1, 1}, .params = params, .param_count = 4};
  }
  tkrt_call_desc_t desc;
  tkrt_call_desc_init(&desc);
  desc.autotuned = true;
  desc.configs = configs;
  desc.config_count = 3;
  tkrt_call_t* gather = NULL;
  EXPECT_OK(tkrt_call_create(&desc, &gather));
  for (int c = 0; c < 3; ++c) tkrt_kernel_release(configs[c].kernel);
  tkrt_autotuner_t* tuner = make_tuner(TKRT_TUNE_POLICY_AUTO);
  tkrt_stream_t stream = NULL;
  EXPECT_OK(tkrt_stream_create(g_device, &stream));
  tkrt_buffer_t make_buffers[] = {{data, sizeof(table)}};
  tkrt_buffer_t buffers[] = {{data, sizeof(table)}, {dtable, sizeof(table)}, {bad, 4},
                             {data, sizeof(table)}};
  EXPECT_OK(core_launch(make, g_device, stream, make_buffers, 0, 1, NULL));
  EXPECT_OK(core_launch(gather, g_device, stream, buffers, 3, 1, tuner));
  int32_t out[M];
  uint32_t bad_count = 1;
  EXPECT_OK(tkrt_memcpy_dtoh_async(g_device, out, data, sizeof(out), stream));
  EXPECT_OK(tkrt_memcpy_dtoh_async(g_device, &bad_count, bad, 4, stream));
  EXPECT_OK(tkrt_stream_synchronize(g_device, stream));
  EXPECT_EQ_U64(bad_count, 0);
  size_t wrong = 0;
  for (int i = 0; i < M; ++i) wrong += out[i] != table[(i * 7) % M];
  EXPECT_EQ_U64(wrong, 0);
  EXPECT_OK(tkrt_stream_destroy(g_device, stream));
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(make);
  tkrt_call_release(gather);
  EXPECT_OK(tkrt_memory_free(g_device, data));
  EXPECT_OK(tkrt_memory_free(g_device, dtable));
  EXPECT_OK(tkrt_memory_free(g_device, bad));
  tkrt_fault_device_use_virtual_clock(g_device, 3);
}

static void test_autotune_never_during_capture(void) {
  inplace_buffers_t* b = calloc(1, sizeof(*b));
  inplace_setup(b);
  tkrt_call_t* call = inplace_call(0);
  tkrt_autotuner_t* tuner = make_tuner(TKRT_TUNE_POLICY_AUTO);
  tkrt_stream_t stream = NULL;
  ASSERT_OK(tkrt_stream_create(g_device, &stream));
  tkrt_buffer_t buffers[] = {{b->dx, N * 4}, {b->dy, N * 4}, {b->counter, 16}, {b->dx, N * 4}};
  EXPECT_OK(tkrt_call_prepare(call, g_device));
  ASSERT_OK(tkrt_stream_begin_capture(g_device, stream));
  EXPECT_STATUS(core_launch(call, g_device, stream, buffers, 3, 1, tuner),
                TKRT_STATUS_FAILED_PRECONDITION, "the stream is capturing");
  tkrt_graph_t* graph = NULL;
  EXPECT_OK(tkrt_stream_end_capture(g_device, stream, &graph));
  EXPECT_OK(tkrt_graph_destroy(g_device, graph));
  uint32_t counts[4];
  core_download(g_device, counts, b->counter, 16);
  EXPECT_EQ_U64(counts[0] + counts[1] + counts[2], 0); /* nothing ran */
  /* Tuned outside capture, the decided config captures and replays. */
  EXPECT_OK(core_launch(call, g_device, stream, buffers, 3, 1, tuner));
  EXPECT_OK(tkrt_stream_synchronize(g_device, stream));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  EXPECT_OK(tkrt_memcpy_htod_async(g_device, b->dx, b->x, sizeof(b->x), stream));
  ASSERT_OK(tkrt_stream_begin_capture(g_device, stream));
  EXPECT_OK(core_launch(call, g_device, stream, buffers, 3, 1, tuner));
  graph = NULL;
  EXPECT_OK(tkrt_stream_end_capture(g_device, stream, &graph));
  EXPECT_OK(tkrt_graph_launch(g_device, graph, stream));
  EXPECT_OK(tkrt_stream_synchronize(g_device, stream));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  EXPECT_OK(tkrt_graph_destroy(g_device, graph));
  EXPECT_OK(tkrt_stream_destroy(g_device, stream));
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);
  inplace_teardown(b);
  free(b);
}

static void test_autotune_capture_fallback_first_config(void) {
  inplace_buffers_t* b = calloc(1, sizeof(*b));
  inplace_setup(b);
  tkrt_call_t* call = inplace_call(0);
  tkrt_autotuner_options_t options;
  tkrt_autotuner_options_init(&options);
  options.store_dir = "off";
  options.target_ms = 2.0;
  options.max_iterations = 3;
  options.capture_policy = TKRT_CAPTURE_POLICY_FIRST_CONFIG;
  tkrt_autotuner_t* tuner = NULL;
  ASSERT_OK(tkrt_autotuner_create(&options, &tuner));
  tkrt_stream_t stream = NULL;
  ASSERT_OK(tkrt_stream_create(g_device, &stream));
  tkrt_buffer_t buffers[] = {{b->dx, N * 4}, {b->dy, N * 4}, {b->counter, 16}, {b->dx, N * 4}};
  EXPECT_OK(tkrt_call_prepare(call, g_device));
  /* Under capture without a decision: config 0 is recorded, nothing is benchmarked. */
  ASSERT_OK(tkrt_stream_begin_capture(g_device, stream));
  tkrt_launch_decision_t decision;
  memset(&decision, 0, sizeof(decision));
  EXPECT_OK(core_launch_decided(call, g_device, stream, buffers, 3, 1, tuner, &decision));
  EXPECT_TRUE(decision.decided && decision.provisional && decision.capturing);
  EXPECT_EQ_U64(decision.config, 0);
  tkrt_graph_t* graph = NULL;
  EXPECT_OK(tkrt_stream_end_capture(g_device, stream, &graph));
  EXPECT_OK(tkrt_graph_launch(g_device, graph, stream));
  EXPECT_OK(tkrt_stream_synchronize(g_device, stream));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  uint32_t counts[4];
  core_download(g_device, counts, b->counter, 16);
  EXPECT_TRUE(counts[0] == 1 && counts[1] == 0 && counts[2] == 0);
  tkrt_tune_report_t report;
  tkrt_tune_report_init(&report);
  EXPECT_OK(tkrt_autotuner_get_report(tuner, call, tkrt_device_info(g_device)->arch, &report));
  EXPECT_TRUE(report.source == TKRT_TUNE_SOURCE_NONE); /* provisional: nothing recorded */
  /* The first launch outside capture benchmarks on the real data. */
  EXPECT_OK(tkrt_memcpy_htod_async(g_device, b->dx, b->x, sizeof(b->x), stream));
  EXPECT_OK(core_launch(call, g_device, stream, buffers, 3, 1, tuner));
  EXPECT_OK(tkrt_stream_synchronize(g_device, stream));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  EXPECT_OK(tkrt_autotuner_get_report(tuner, call, tkrt_device_info(g_device)->arch, &report));
  EXPECT_TRUE(report.source == TKRT_TUNE_SOURCE_TUNED && report.chosen == 1);
  EXPECT_OK(tkrt_graph_destroy(g_device, graph));
  EXPECT_OK(tkrt_stream_destroy(g_device, stream));
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);
  inplace_teardown(b);
  free(b);
}

static void test_autotune_first_config_means_first_runnable(void) {
  /* Config 0 asks for more shared memory than the device has: the never policy and the capture
   * fallback take config 1, and pinning config 0 is refused with the reason. */
  inplace_buffers_t* b = calloc(1, sizeof(*b));
  inplace_setup(b);
  core_inplace_spec_t spec = {.n = N, .shared = {400000, 0, 0}, .alias_record = true};
  tkrt_call_t* call = core_inplace_call(&spec);
  tkrt_buffer_t buffers[] = {{b->dx, N * 4}, {b->dy, N * 4}, {b->counter, 16}, {b->dx, N * 4}};
  tkrt_autotuner_t* tuner = make_tuner(TKRT_TUNE_POLICY_NEVER);
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 3, 1, tuner));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  uint32_t counts[4];
  core_download(g_device, counts, b->counter, 16);
  EXPECT_TRUE(counts[0] == 0 && counts[1] == 1 && counts[2] == 0);
  tkrt_autotuner_destroy(tuner);
  tuner = make_tuner(TKRT_TUNE_POLICY_AUTO);
  EXPECT_OK(tkrt_autotuner_pin(tuner, call, NULL, 0));
  EXPECT_STATUS(core_launch(call, g_device, NULL, buffers, 3, 1, tuner),
                TKRT_STATUS_FAILED_PRECONDITION, "config 0 is pinned but cannot run on this device");
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);
  inplace_teardown(b);
  free(b);
}

static void test_autotune_skips_configs_over_limits(void) {
  inplace_buffers_t* b = calloc(1, sizeof(*b));
  inplace_setup(b);
  /* Config 2 asks for more shared memory than the device has. */
  uint32_t too_much_shared = tkrt_device_info(g_device)->max_shared_per_block_optin + 1;
  tkrt_call_t* call = inplace_call(too_much_shared);
  tkrt_autotuner_t* tuner = make_tuner(TKRT_TUNE_POLICY_AUTO);
  tkrt_buffer_t buffers[] = {{b->dx, N * 4}, {b->dy, N * 4}, {b->counter, 16}, {b->dx, N * 4}};
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 3, 1, tuner));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  float times[3];
  tkrt_tune_report_t report;
  tkrt_tune_report_init(&report);
  report.times_ms = times;
  report.times_capacity = 3;
  EXPECT_OK(tkrt_autotuner_get_report(tuner, call, tkrt_device_info(g_device)->arch, &report));
  EXPECT_EQ_U64(report.chosen, 1);
  EXPECT_TRUE(times[2] == TKRT_TUNE_SKIPPED_MS && times[0] > 0 && times[1] > 0);
  EXPECT_TRUE(strstr(report.skip_reason, "config 2 'inplace_add_2048'") != NULL);
  char shared_text[64];
  snprintf(shared_text, sizeof(shared_text), "%u bytes", too_much_shared);
  EXPECT_TRUE(strstr(report.skip_reason, shared_text) != NULL);
  uint32_t counts[4];
  core_download(g_device, counts, b->counter, 16);
  EXPECT_EQ_U64(counts[2], 0);
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);
  inplace_teardown(b);
  free(b);
}

static void test_autotune_policy_never_and_pins(void) {
  inplace_buffers_t* b = calloc(1, sizeof(*b));
  inplace_setup(b);
  tkrt_buffer_t buffers[] = {{b->dx, N * 4}, {b->dy, N * 4}, {b->counter, 16}, {b->dx, N * 4}};
  uint32_t counts[4];
  const char* arch = tkrt_device_info(g_device)->arch;
  tkrt_tune_report_t report;
  tkrt_tune_report_init(&report);

  /* never: the first config, no benchmark. */
  tkrt_call_t* call = inplace_call(0);
  tkrt_autotuner_t* tuner = make_tuner(TKRT_TUNE_POLICY_NEVER);
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 3, 1, tuner));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  core_download(g_device, counts, b->counter, 16);
  EXPECT_TRUE(counts[0] == 1 && counts[1] == 0 && counts[2] == 0);
  EXPECT_OK(tkrt_autotuner_get_report(tuner, call, arch, &report));
  EXPECT_TRUE(report.source == TKRT_TUNE_SOURCE_DEFAULT && report.chosen == 0);
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);

  /* pinned through the API: config 2 (the slow one), never benchmarked. */
  EXPECT_OK(tkrt_memcpy_htod_async(g_device, b->dx, b->x, sizeof(b->x), NULL));
  EXPECT_OK(tkrt_memset_async(g_device, b->counter, 0, 16, NULL));
  call = inplace_call(0);
  tuner = make_tuner(TKRT_TUNE_POLICY_AUTO);
  EXPECT_STATUS(tkrt_autotuner_pin(tuner, call, NULL, 3), TKRT_STATUS_OUT_OF_RANGE, "has 3 configs");
  EXPECT_OK(tkrt_autotuner_pin(tuner, call, arch, 2));
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 3, 1, tuner));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  core_download(g_device, counts, b->counter, 16);
  EXPECT_TRUE(counts[0] == 0 && counts[1] == 0 && counts[2] == 1);
  EXPECT_OK(tkrt_autotuner_get_report(tuner, call, arch, &report));
  EXPECT_TRUE(report.source == TKRT_TUNE_SOURCE_PINNED && report.chosen == 2);
  tkrt_autotuner_destroy(tuner);

  /* pinned through TKRT_TUNE_PIN by a digest prefix. */
  char hex[65], pin[96];
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 32; ++i) {
    hex[2 * i] = digits[tkrt_call_digest(call)[i] >> 4];
    hex[2 * i + 1] = digits[tkrt_call_digest(call)[i] & 15];
  }
  hex[64] = '\0';
  snprintf(pin, sizeof(pin), "ffff=0, %.12s@%s=1", hex, arch);
  setenv("TKRT_TUNE_PIN", pin, 1);
  tkrt_autotuner_options_t options;
  tkrt_autotuner_options_init(&options);
  EXPECT_OK(tkrt_options_from_environment(NULL, &options));
  options.store_dir = "off";
  tuner = NULL;
  EXPECT_OK(tkrt_autotuner_create(&options, &tuner));
  EXPECT_OK(tkrt_memcpy_htod_async(g_device, b->dx, b->x, sizeof(b->x), NULL));
  EXPECT_OK(tkrt_memset_async(g_device, b->counter, 0, 16, NULL));
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 3, 1, tuner));
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  core_download(g_device, counts, b->counter, 16);
  EXPECT_TRUE(counts[0] == 0 && counts[1] == 1 && counts[2] == 0);
  tkrt_autotuner_destroy(tuner);
  setenv("TKRT_TUNE_PIN", "xyz=1", 1);
  EXPECT_OK(tkrt_options_from_environment(NULL, &options));
  tuner = NULL;
  EXPECT_STATUS(tkrt_autotuner_create(&options, &tuner), TKRT_STATUS_INVALID_ARGUMENT,
                "not hexadecimal");
  setenv("TKRT_TUNE_PIN", "abc", 1);
  EXPECT_OK(tkrt_options_from_environment(NULL, &options));
  EXPECT_STATUS(tkrt_autotuner_create(&options, &tuner), TKRT_STATUS_INVALID_ARGUMENT,
                "<digest>[@arch]=<config index>");
  unsetenv("TKRT_TUNE_PIN");
  setenv("TKRT_TUNE_POLICY", "sometimes", 1);
  EXPECT_STATUS(tkrt_options_from_environment(NULL, &options), TKRT_STATUS_INVALID_ARGUMENT,
                "TKRT_TUNE_POLICY");
  unsetenv("TKRT_TUNE_POLICY");
  EXPECT_TRUE(tuner == NULL);
  /* TKRT_TUNE_PRUNE_MARGIN: a number reaches the options; anything else is refused, naming the
   * variable, and leaves them alone. */
  setenv("TKRT_TUNE_PRUNE_MARGIN", "-1", 1);
  EXPECT_OK(tkrt_options_from_environment(NULL, &options));
  EXPECT_TRUE(options.prune_margin == -1.0);
  setenv("TKRT_TUNE_PRUNE_MARGIN", "0.1x", 1);
  options.prune_margin = 0.5;
  EXPECT_STATUS(tkrt_options_from_environment(NULL, &options), TKRT_STATUS_INVALID_ARGUMENT,
                "TKRT_TUNE_PRUNE_MARGIN is '0.1x'");
  EXPECT_TRUE(options.prune_margin == 0.5);
  setenv("TKRT_TUNE_PRUNE_MARGIN", "nan", 1);
  EXPECT_STATUS(tkrt_options_from_environment(NULL, &options), TKRT_STATUS_INVALID_ARGUMENT,
                "TKRT_TUNE_PRUNE_MARGIN");
  unsetenv("TKRT_TUNE_PRUNE_MARGIN");

  /* Several configs and no tuner: refused, nothing runs. */
  EXPECT_STATUS(core_launch(call, g_device, NULL, buffers, 3, 1, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, "needs an autotuner");
  tkrt_call_release(call);
  inplace_teardown(b);
  free(b);
}

static void test_autotune_decision_shared_by_devices_of_one_arch(void) {
  inplace_buffers_t* b = calloc(1, sizeof(*b));
  inplace_setup(b);
  tkrt_device_t* second = core_open_device();
  ASSERT_TRUE(second != NULL);
  tkrt_call_t* call = inplace_call(0);
  tkrt_autotuner_t* tuner = make_tuner(TKRT_TUNE_POLICY_AUTO);
  tkrt_buffer_t buffers[] = {{b->dx, N * 4}, {b->dy, N * 4}, {b->counter, 16}, {b->dx, N * 4}};
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 3, 1, tuner));
  uint32_t before[4], after[4];
  core_download(g_device, before, b->counter, 16);
  EXPECT_OK(tkrt_memcpy_htod_async(g_device, b->dx, b->x, sizeof(b->x), NULL));
  EXPECT_OK(tkrt_stream_synchronize(g_device, NULL));
  /* Both devices are ordinal 0 of one backend: host devices share the process's memory and CUDA
   * devices share the GPU's primary context, so the second device can use the buffers. */
  EXPECT_OK(core_launch(call, second, NULL, buffers, 3, 1, tuner));
  EXPECT_OK(tkrt_stream_synchronize(second, NULL));
  core_download(g_device, after, b->counter, 16);
  EXPECT_EQ_U64(after[0] + after[1] + after[2], before[0] + before[1] + before[2] + 1);
  EXPECT_EQ_U64(inplace_wrong(b, b->dx), 0);
  tkrt_autotuner_destroy(tuner);
  tkrt_call_release(call);
  tkrt_device_release(second);
  inplace_teardown(b);
  free(b);
}

/* The tests' device: the real one behind a virtual clock driven by the in-place kernel's spin
 * (parameter 3, core_inplace_call): the tuner sees each config's spin as its exact time, so which
 * config wins (6000 / 300 / 3000 us) does not depend on how loaded the machine is (a TSan run on
 * two busy cores once measured config 1 slower than config 0). */
static void use_virtual_clock(void) { tkrt_fault_device_wrap_with_virtual_clock(&g_device, 3); }

int main(int argc, char** argv) {
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(test_autotune_alias_same_buffer_exactly_once),
      TKRT_TEST_CASE(test_autotune_alias_partial_overlap),
      TKRT_TEST_CASE(test_autotune_alias_buffers_differ),
      TKRT_TEST_CASE(test_autotune_launch_reports_its_decision),
      TKRT_TEST_CASE(test_autotune_alias_unknown_sizes),
      TKRT_TEST_CASE(test_autotune_alias_size_nowhere_falls_back),
      TKRT_TEST_CASE(test_autotune_caller_lists_aliased_inputs),
      TKRT_TEST_CASE(test_autotune_empty_buffers_never_alias),
      TKRT_TEST_CASE(test_autotune_gather_reads_produced_indices),
      TKRT_TEST_CASE(test_autotune_never_during_capture),
      TKRT_TEST_CASE(test_autotune_capture_fallback_first_config),
      TKRT_TEST_CASE(test_autotune_skips_configs_over_limits),
      TKRT_TEST_CASE(test_autotune_first_config_means_first_runnable),
      TKRT_TEST_CASE(test_autotune_policy_never_and_pins),
      TKRT_TEST_CASE(test_autotune_decision_shared_by_devices_of_one_arch),
  };
  return core_test_run(argc, argv, &g_device, use_virtual_clock, cases,
                       sizeof(cases) / sizeof(cases[0]));
}
