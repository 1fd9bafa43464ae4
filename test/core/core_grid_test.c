/* SPDX-License-Identifier: Apache-2.0 */
/* Per-launch grids (tkrt_call_launch_args_t.grid): the kernel sees each launch's grid, a callback
 * error or an overflowing grid enqueues nothing, a zero grid is a no-op, global and profile
 * scratch grow with the grid (never during a stream capture), every config the tuner times asks
 * for its grid; and the per-launch TMA shape list's count checks. */
#include <pthread.h>
#include <stdint.h>

#include "test/core/core_test_util.h"

static tkrt_device_t* g_device;
static const tkrt_device_info_t* g_info;

/* The grid callback of these tests: `grids[config]` for each config, or `fail` as the error. */
typedef struct grid_source {
  uint32_t grids[2][3];
  bool fail;
  int calls[2];
  uint32_t seen[3]; /* what out_grid held on entry (the config's own grid) */
} grid_source_t;

static tkrt_status_t grid_from_source(void* user, size_t config, uint32_t out_grid[3]) {
  grid_source_t* source = user;
  if (config >= 2) return TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "config %zu", config);
  source->calls[config]++;
  memcpy(source->seen, out_grid, sizeof(source->seen));
  if (source->fail) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND, "no grid for n=%d", 7);
  }
  memcpy(out_grid, source->grids[config], sizeof(source->grids[config]));
  return NULL;
}

static void set_grid(grid_source_t* source, uint32_t x, uint32_t y, uint32_t z) {
  for (int c = 0; c < 2; ++c) {
    source->grids[c][0] = x;
    source->grids[c][1] = y;
    source->grids[c][2] = z;
  }
}

static tkrt_status_t launch_with_grid(tkrt_call_t* call, tkrt_stream_t stream,
                                      const tkrt_buffer_t* buffers, size_t outputs,
                                      grid_source_t* source, tkrt_autotuner_t* tuner,
                                      tkrt_launch_decision_t* decision) {
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  args.device = g_device;
  args.stream = stream;
  args.buffers = buffers;
  args.output_count = outputs;
  args.tuner = tuner;
  args.decision = decision;
  args.grid = grid_from_source;
  args.grid_user = source;
  return tkrt_call_launch(call, &args);
}

/* launch_probe with `num_ctas`, global and profile scratch of 64 bytes a program (0: none). */
static tkrt_kernel_t* probe_kernel(uint32_t num_ctas, uint32_t global, uint32_t global_align,
                                   uint32_t profile, uint32_t profile_align) {
  tkrt_kernel_image_t image = core_image();
  tkrt_kernel_desc_t desc;
  tkrt_kernel_desc_init(&desc);
  desc.name = "launch_probe";
  desc.num_warps = 2;
  desc.num_ctas = num_ctas;
  desc.global_scratch_size = global;
  desc.global_scratch_align = global_align;
  desc.profile_scratch_size = profile;
  desc.profile_scratch_align = profile_align;
  desc.images = &image;
  desc.image_count = 1;
  tkrt_kernel_t* kernel = NULL;
  EXPECT_OK(tkrt_kernel_create(&desc, &kernel));
  return kernel;
}

/* The HIP build of the core kernels (core_kernels_gfx90a.hsaco) predates launch_probe's profile
 * scratch write; elsewhere the kernel writes it. */
static bool probe_writes_profile(void) { return strcmp(g_info->backend, "hip") != 0; }

/* out[] of launch_probe after a launch of `programs` CTAs; checks the words it wrote into each
 * scratch and returns the scratch addresses. */
static void check_probe(tkrt_deviceptr_t out_ptr, uint32_t programs, bool global, bool profile,
                        uint64_t* out_global, uint64_t* out_profile) {
  uint32_t out[13];
  core_download(g_device, out, out_ptr, sizeof(out));
  uint64_t global_address = (uint64_t)out[9] << 32 | out[8];
  uint64_t profile_address = (uint64_t)out[12] << 32 | out[11];
  EXPECT_EQ_U64(out[0] * out[1] * out[2], programs);
  EXPECT_EQ_U64(global_address != 0, global);   /* non-null iff the kernel has global scratch */
  EXPECT_EQ_U64(out[10], !profile);              /* null iff it has no profile scratch */
  uint32_t* words = calloc(programs, 64);
  ASSERT_TRUE(words != NULL);
  if (global && global_address) {
    core_download(g_device, words, global_address, (size_t)programs * 64);
    for (uint32_t p = 0; p < programs; ++p) EXPECT_EQ_U64(words[p * 16], p + 1);
  }
  if (profile && probe_writes_profile()) {
    EXPECT_TRUE(profile_address != 0);
    core_download(g_device, words, profile_address, (size_t)programs * 64);
    for (uint32_t p = 0; p < programs; ++p) EXPECT_EQ_U64(words[p * 16], p + 100001);
  }
  free(words);
  if (out_global) *out_global = global_address;
  if (out_profile) *out_profile = profile_address;
}

static void test_grid_per_launch_reaches_the_kernel(void) {
  tkrt_param_t params[] = {core_array(16, 0)};
  tkrt_call_t* call = core_plain_call(probe_kernel(2, 0, 0, 0, 0), 4, 1, 1, params, 1);
  ASSERT_TRUE(call != NULL);
  tkrt_deviceptr_t a = core_upload(g_device, NULL, 64);
  tkrt_buffer_t buffer = {a, 64};
  static const uint32_t grids[][3] = {{3, 2, 1}, {5, 1, 1}, {1, 1, 4}, {3, 2, 1}};
  grid_source_t source = {0};
  for (size_t i = 0; i < sizeof(grids) / sizeof(grids[0]); ++i) {
    set_grid(&source, grids[i][0], grids[i][1], grids[i][2]);
    EXPECT_OK(launch_with_grid(call, NULL, &buffer, 1, &source, NULL, NULL));
    uint32_t out[3];
    core_download(g_device, out, a, sizeof(out));
    EXPECT_EQ_U64(out[0], grids[i][0] * 2); /* scaled by the cluster of 2 */
    EXPECT_EQ_U64(out[1], grids[i][1]);
    EXPECT_EQ_U64(out[2], grids[i][2]);
    /* Asked for config 0, with the config's own grid filled in. */
    EXPECT_EQ_U64(source.calls[0], i + 1);
    EXPECT_EQ_U64(source.seen[0], 4);
    EXPECT_EQ_U64(source.seen[1], 1);
  }
  /* Without the callback, the call's grid again. */
  EXPECT_OK(core_launch(call, g_device, NULL, &buffer, 0, 1, NULL));
  uint32_t out[3];
  core_download(g_device, out, a, sizeof(out));
  EXPECT_EQ_U64(out[0], 8);
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
}

/* count_programs with bytes_to_zero: a launch that enqueued anything would have zeroed 12345. */
static tkrt_call_t* counting_call(uint32_t num_ctas, tkrt_deviceptr_t* out_ptr) {
  tkrt_param_t params[] = {core_array(16, 4)};
  tkrt_call_t* call = core_plain_call(core_kernel("count_programs", 1, num_ctas, 0), 3, 1, 1,
                                      params, 1);
  uint32_t garbage = 12345;
  *out_ptr = core_upload(g_device, &garbage, 4);
  return call;
}

static uint32_t counted(tkrt_deviceptr_t ptr) {
  uint32_t value = 0;
  core_download(g_device, &value, ptr, 4);
  return value;
}

static void test_callback_error_enqueues_nothing(void) {
  tkrt_deviceptr_t a = 0;
  tkrt_call_t* call = counting_call(1, &a);
  ASSERT_TRUE(call != NULL);
  tkrt_buffer_t buffer = {a, 4};
  grid_source_t source = {.fail = true};
  EXPECT_STATUS(launch_with_grid(call, NULL, &buffer, 1, &source, NULL, NULL),
                TKRT_STATUS_NOT_FOUND, "no grid for n=7");
  EXPECT_STATUS(launch_with_grid(call, NULL, &buffer, 1, &source, NULL, NULL),
                TKRT_STATUS_NOT_FOUND, "the grid callback for kernel 'count_programs'");
  EXPECT_EQ_U64(counted(a), 12345);
  source.fail = false;
  set_grid(&source, 6, 1, 1);
  EXPECT_OK(launch_with_grid(call, NULL, &buffer, 1, &source, NULL, NULL));
  EXPECT_EQ_U64(counted(a), 6);
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
}

static void test_bad_grids_name_the_dimension(void) {
  tkrt_deviceptr_t a = 0;
  tkrt_call_t* call = counting_call(2, &a);
  ASSERT_TRUE(call != NULL);
  tkrt_buffer_t buffer = {a, 4};
  grid_source_t source = {0};
  set_grid(&source, 0x80000000u, 1, 1);
  EXPECT_STATUS(launch_with_grid(call, NULL, &buffer, 1, &source, NULL, NULL),
                TKRT_STATUS_INVALID_ARGUMENT,
                "per-launch grid dimension x (2147483648) times the cluster size (2) overflows");
  EXPECT_STATUS(launch_with_grid(call, NULL, &buffer, 1, &source, NULL, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, "per-launch grid (2147483648, 1, 1) of kernel");
  /* Beyond the device's limit: tkrt_hal_validate_launch's check, per launch. */
  if (g_info->max_grid_dim[1] < UINT32_MAX) {
    set_grid(&source, 1, g_info->max_grid_dim[1] + 1, 1);
    EXPECT_STATUS(launch_with_grid(call, NULL, &buffer, 1, &source, NULL, NULL),
                  TKRT_STATUS_INVALID_ARGUMENT, "per-launch grid (1, ");
  }
  EXPECT_EQ_U64(counted(a), 12345);
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
}

static void test_zero_grid_is_a_noop(void) {
  tkrt_deviceptr_t a = 0;
  tkrt_call_t* call = counting_call(1, &a);
  ASSERT_TRUE(call != NULL);
  tkrt_buffer_t buffer = {a, 4};
  grid_source_t source = {0};
  set_grid(&source, 4, 0, 1);
  EXPECT_OK(launch_with_grid(call, NULL, &buffer, 1, &source, NULL, NULL));
  EXPECT_EQ_U64(source.calls[0], 1);
  EXPECT_EQ_U64(counted(a), 12345); /* not even the zeroing */
  /* Parameters are still checked first. */
  tkrt_buffer_t small = {a, 2};
  EXPECT_STATUS(launch_with_grid(call, NULL, &small, 1, &source, NULL, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, "bytes_to_zero is 4 but its buffer is smaller");
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
}

static void test_scratch_grows_with_the_grid(void) {
  tkrt_param_t params[] = {core_array(16, 0)};
  tkrt_call_t* call = core_plain_call(probe_kernel(1, 64, 1024, 64, 512), 2, 1, 1, params, 1);
  ASSERT_TRUE(call != NULL);
  tkrt_deviceptr_t a = core_upload(g_device, NULL, 64);
  tkrt_buffer_t buffer = {a, 64};
  grid_source_t source = {0};
  uint64_t global = 0, profile = 0;
  static const uint32_t programs[] = {2, 50, 3, 300, 7};
  for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); ++i) {
    set_grid(&source, programs[i], 1, 1);
    EXPECT_OK(launch_with_grid(call, NULL, &buffer, 1, &source, NULL, NULL));
    check_probe(a, programs[i], true, true, &global, &profile);
    EXPECT_TRUE(global % 1024 == 0);
    if (probe_writes_profile()) EXPECT_TRUE(profile % 512 == 0);
  }
  /* The call's own grid, without a callback: the allocation made at prepare. */
  EXPECT_OK(core_launch(call, g_device, NULL, &buffer, 0, 1, NULL));
  check_probe(a, 2, true, true, NULL, NULL);
  tkrt_call_release(call);

  /* Non-null iff the size is: profile only, then global only. */
  call = core_plain_call(probe_kernel(1, 0, 0, 64, 0), 1, 1, 1, params, 1);
  ASSERT_TRUE(call != NULL);
  set_grid(&source, 9, 1, 1);
  EXPECT_OK(launch_with_grid(call, NULL, &buffer, 1, &source, NULL, NULL));
  check_probe(a, 9, false, true, NULL, NULL);
  tkrt_call_release(call);
  call = core_plain_call(probe_kernel(1, 64, 0, 0, 0), 1, 1, 1, params, 1);
  ASSERT_TRUE(call != NULL);
  EXPECT_OK(launch_with_grid(call, NULL, &buffer, 1, &source, NULL, NULL));
  check_probe(a, 9, true, false, NULL, NULL);
  tkrt_call_release(call);
  /* A config grid of 0 allocates nothing at prepare; the first real grid allocates. */
  call = core_plain_call(probe_kernel(1, 64, 0, 64, 0), 0, 1, 1, params, 1);
  ASSERT_TRUE(call != NULL);
  EXPECT_OK(launch_with_grid(call, NULL, &buffer, 1, &source, NULL, NULL));
  check_probe(a, 9, true, true, NULL, NULL);
  tkrt_call_release(call);
  EXPECT_OK(tkrt_memory_free(g_device, a));
}

static void test_capture_that_needs_more_scratch_fails(void) {
  tkrt_param_t params[] = {core_array(16, 0)};
  tkrt_call_t* call = core_plain_call(probe_kernel(1, 64, 0, 0, 0), 2, 1, 1, params, 1);
  ASSERT_TRUE(call != NULL);
  tkrt_deviceptr_t a = core_upload(g_device, NULL, 64);
  tkrt_buffer_t buffer = {a, 64};
  grid_source_t source = {0};
  tkrt_stream_t stream = NULL;
  ASSERT_OK(tkrt_stream_create(g_device, &stream));
  EXPECT_OK(tkrt_call_prepare(call, g_device));
  ASSERT_OK(tkrt_stream_begin_capture(g_device, stream));
  set_grid(&source, 40, 1, 1);
  EXPECT_STATUS(launch_with_grid(call, stream, &buffer, 1, &source, NULL, NULL),
                TKRT_STATUS_FAILED_PRECONDITION,
                "call 'test_call' needs 2560 bytes of global scratch for this launch's grid");
  EXPECT_STATUS(launch_with_grid(call, stream, &buffer, 1, &source, NULL, NULL),
                TKRT_STATUS_FAILED_PRECONDITION, "and holds 128; the stream is capturing");
  EXPECT_STATUS(launch_with_grid(call, stream, &buffer, 1, &source, NULL, NULL),
                TKRT_STATUS_FAILED_PRECONDITION, "launch once with the largest grid first");
  /* What the call holds is fine during the capture. */
  set_grid(&source, 2, 1, 1);
  EXPECT_OK(launch_with_grid(call, stream, &buffer, 1, &source, NULL, NULL));
  tkrt_graph_t* graph = NULL;
  EXPECT_OK(tkrt_stream_end_capture(g_device, stream, &graph));
  EXPECT_OK(tkrt_graph_destroy(g_device, graph));
  /* Launched once with the largest grid first, the capture of a large grid works and replays. */
  set_grid(&source, 40, 1, 1);
  EXPECT_OK(launch_with_grid(call, stream, &buffer, 1, &source, NULL, NULL));
  EXPECT_OK(tkrt_stream_synchronize(g_device, stream));
  ASSERT_OK(tkrt_stream_begin_capture(g_device, stream));
  set_grid(&source, 33, 1, 1);
  EXPECT_OK(launch_with_grid(call, stream, &buffer, 1, &source, NULL, NULL));
  graph = NULL;
  EXPECT_OK(tkrt_stream_end_capture(g_device, stream, &graph));
  EXPECT_OK(tkrt_memset_async(g_device, a, 0, 64, stream));
  EXPECT_OK(tkrt_graph_launch(g_device, graph, stream));
  EXPECT_OK(tkrt_stream_synchronize(g_device, stream));
  check_probe(a, 33, true, false, NULL, NULL);
  EXPECT_OK(tkrt_graph_destroy(g_device, graph));
  EXPECT_OK(tkrt_stream_destroy(g_device, stream));
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
}

static void test_every_config_the_tuner_runs_asks_for_its_grid(void) {
  tkrt_param_t params[] = {core_array(16, 0)};
  tkrt_config_desc_t configs[2];
  memset(configs, 0, sizeof(configs));
  for (int c = 0; c < 2; ++c) {
    configs[c].kernel = probe_kernel(1, 64, 0, 0, 0);
    ASSERT_TRUE(configs[c].kernel != NULL);
    configs[c].grid[0] = configs[c].grid[1] = configs[c].grid[2] = 1;
    configs[c].params = params;
    configs[c].param_count = 1;
  }
  tkrt_call_desc_t desc;
  tkrt_call_desc_init(&desc);
  desc.name = "tuned_grid";
  desc.configs = configs;
  desc.config_count = 2;
  desc.autotuned = true;
  tkrt_call_t* call = NULL;
  EXPECT_OK(tkrt_call_create(&desc, &call));
  for (int c = 0; c < 2; ++c) tkrt_kernel_release(configs[c].kernel);
  ASSERT_TRUE(call != NULL);
  tkrt_autotuner_options_t options;
  tkrt_autotuner_options_init(&options);
  options.store_dir = "off";
  options.target_ms = 1.0;
  options.max_iterations = 2;
  tkrt_autotuner_t* tuner = NULL;
  ASSERT_OK(tkrt_autotuner_create(&options, &tuner));
  tkrt_deviceptr_t a = core_upload(g_device, NULL, 64);
  tkrt_buffer_t buffer = {a, 64};
  /* Different grids per config, larger than the configs' own: each timed launch grows scratch
   * as it needs. */
  grid_source_t source = {.grids = {{5, 1, 1}, {70, 1, 1}}};
  tkrt_launch_decision_t decision = {0};
  EXPECT_OK(launch_with_grid(call, NULL, &buffer, 1, &source, tuner, &decision));
  EXPECT_TRUE(source.calls[0] >= 2); /* warm-up and timed launches of each config */
  EXPECT_TRUE(source.calls[1] >= 2);
  ASSERT_TRUE(decision.config < 2);
  check_probe(a, decision.config == 0 ? 5 : 70, true, false, NULL, NULL);
  /* Decided: the next launch asks only for the decided config's grid. */
  int before[2] = {source.calls[0], source.calls[1]};
  EXPECT_OK(launch_with_grid(call, NULL, &buffer, 1, &source, tuner, &decision));
  EXPECT_EQ_U64(source.calls[decision.config], before[decision.config] + 1);
  EXPECT_EQ_U64(source.calls[1 - decision.config], before[1 - decision.config]);
  check_probe(a, decision.config == 0 ? 5 : 70, true, false, NULL, NULL); /* synchronizes */
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
  tkrt_autotuner_destroy(tuner);
}

static void test_tma_shape_list_is_checked(void) {
  tkrt_deviceptr_t a = 0;
  tkrt_call_t* call = counting_call(1, &a);
  ASSERT_TRUE(call != NULL);
  tkrt_buffer_t buffer = {a, 4};
  tkrt_tma_shape_t shape = {.rank = 2, .shape = {64, 64}, .strides = {64, 1}};
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  args.device = g_device;
  args.buffers = &buffer;
  args.output_count = 1;
  args.tma_shapes = &shape;
  args.tma_shape_count = 1;
  EXPECT_STATUS(tkrt_call_launch(call, &args), TKRT_STATUS_INVALID_ARGUMENT,
                "1 per-launch TMA shapes given; kernel 'count_programs' has 0 TMA parameters");
  args.tma_shapes = NULL;
  args.tma_shape_count = 2;
  EXPECT_STATUS(tkrt_call_launch(call, &args), TKRT_STATUS_INVALID_ARGUMENT,
                "2 per-launch TMA shapes announced but none given");
  EXPECT_EQ_U64(counted(a), 12345);
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
}

static void test_profile_scratch_in_the_kernel(void) {
  tkrt_kernel_image_t image = core_image();
  tkrt_kernel_desc_t desc;
  tkrt_kernel_desc_init(&desc);
  desc.name = "launch_probe";
  desc.num_warps = 1;
  desc.images = &image;
  desc.image_count = 1;
  desc.profile_scratch_align = 48;
  tkrt_kernel_t* kernel = NULL;
  EXPECT_STATUS(tkrt_kernel_create(&desc, &kernel), TKRT_STATUS_INVALID_ARGUMENT,
                "kernel 'launch_probe': profile_scratch_align 48 is not a power of two");
  /* Part of the call's digest: it changes what runs. A kernel without it keeps its digest. */
  tkrt_param_t params[] = {core_array(16, 0)};
  tkrt_call_t* plain = core_plain_call(probe_kernel(1, 0, 0, 0, 0), 1, 1, 1, params, 1);
  tkrt_call_t* again = core_plain_call(probe_kernel(1, 0, 0, 0, 0), 1, 1, 1, params, 1);
  tkrt_call_t* sized = core_plain_call(probe_kernel(1, 0, 0, 64, 0), 1, 1, 1, params, 1);
  tkrt_call_t* aligned = core_plain_call(probe_kernel(1, 0, 0, 64, 512), 1, 1, 1, params, 1);
  ASSERT_TRUE(plain && again && sized && aligned);
  EXPECT_TRUE(memcmp(tkrt_call_digest(plain), tkrt_call_digest(again), TKRT_DIGEST_SIZE) == 0);
  EXPECT_TRUE(memcmp(tkrt_call_digest(plain), tkrt_call_digest(sized), TKRT_DIGEST_SIZE) != 0);
  EXPECT_TRUE(memcmp(tkrt_call_digest(sized), tkrt_call_digest(aligned), TKRT_DIGEST_SIZE) != 0);
  /* The deep copy keeps the fields. */
  const tkrt_kernel_desc_t* copy = tkrt_kernel_get_desc(tkrt_call_get_desc(aligned)->configs[0].kernel);
  EXPECT_EQ_U64(copy->profile_scratch_size, 64);
  EXPECT_EQ_U64(copy->profile_scratch_align, 512);
  tkrt_call_release(plain);
  tkrt_call_release(again);
  tkrt_call_release(sized);
  tkrt_call_release(aligned);
}

/* Threads that launch one call with grids that keep growing: scratch grows while other threads
 * launch with what is published (the TSan preset's check of the publication); every launch's
 * kernel finds a scratch of its own grid's size. One stream for all: a call's scratch is shared by
 * its launches (as it always was), so kernels of one call on several streams at once would race
 * on it; here the launches, not the kernels, are concurrent. */
typedef struct grower {
  tkrt_call_t* call;
  tkrt_stream_t stream;
  int index;
  int wrong;
  tkrt_status_t status;
} grower_t;

static void* grower_run(void* arg) {
  grower_t* g = arg;
  tkrt_stream_t stream = g->stream;
  tkrt_deviceptr_t out = 0;
  g->status = tkrt_memory_alloc(g_device, 64, &out);
  tkrt_buffer_t buffer = {out, 64};
  grid_source_t source = {0};
  for (uint32_t round = 1; round <= 12 && !g->status; ++round) {
    uint32_t programs = round * 7 + (uint32_t)g->index * 3;
    set_grid(&source, programs, 1, 1);
    g->status = launch_with_grid(g->call, stream, &buffer, 1, &source, NULL, NULL);
    uint32_t probe[13] = {0};
    if (!g->status) g->status = tkrt_memcpy_dtoh_async(g_device, probe, out, sizeof(probe), stream);
    if (!g->status) g->status = tkrt_stream_synchronize(g_device, stream);
    if (g->status) break;
    uint64_t global = (uint64_t)probe[9] << 32 | probe[8];
    uint32_t* words = malloc((size_t)programs * 64);
    if (!words || probe[0] != programs || !global) {
      ++g->wrong;
      free(words);
      continue;
    }
    g->status = tkrt_memcpy_dtoh_async(g_device, words, global, (size_t)programs * 64, stream);
    if (!g->status) g->status = tkrt_stream_synchronize(g_device, stream);
    for (uint32_t p = 0; p < programs && !g->status; ++p) g->wrong += words[p * 16] != p + 1;
    free(words);
  }
  if (out) tkrt_status_free(tkrt_stream_synchronize(g_device, stream));
  if (out) tkrt_status_free(tkrt_memory_free(g_device, out));
  return NULL;
}

static void test_scratch_grows_under_concurrent_launches(void) {
  tkrt_param_t params[] = {core_array(16, 0)};
  tkrt_call_t* call = core_plain_call(probe_kernel(1, 64, 0, 0, 0), 1, 1, 1, params, 1);
  ASSERT_TRUE(call != NULL);
  tkrt_stream_t stream = NULL;
  ASSERT_OK(tkrt_stream_create(g_device, &stream));
  enum { threads = 4 };
  pthread_t ids[threads];
  grower_t growers[threads];
  for (int t = 0; t < threads; ++t) {
    growers[t] = (grower_t){.call = call, .stream = stream, .index = t};
    ASSERT_TRUE(pthread_create(&ids[t], NULL, grower_run, &growers[t]) == 0);
  }
  for (int t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
  for (int t = 0; t < threads; ++t) {
    EXPECT_OK(growers[t].status);
    EXPECT_EQ_U64(growers[t].wrong, 0);
  }
  EXPECT_OK(tkrt_stream_destroy(g_device, stream));
  tkrt_call_release(call);
}

static void set_info(void) { g_info = tkrt_device_info(g_device); }

int main(int argc, char** argv) {
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(test_grid_per_launch_reaches_the_kernel),
      TKRT_TEST_CASE(test_callback_error_enqueues_nothing),
      TKRT_TEST_CASE(test_bad_grids_name_the_dimension),
      TKRT_TEST_CASE(test_zero_grid_is_a_noop),
      TKRT_TEST_CASE(test_scratch_grows_with_the_grid),
      TKRT_TEST_CASE(test_capture_that_needs_more_scratch_fails),
      TKRT_TEST_CASE(test_scratch_grows_under_concurrent_launches),
      TKRT_TEST_CASE(test_every_config_the_tuner_runs_asks_for_its_grid),
      TKRT_TEST_CASE(test_tma_shape_list_is_checked),
      TKRT_TEST_CASE(test_profile_scratch_in_the_kernel),
  };
  return core_test_run(argc, argv, &g_device, set_info, cases, sizeof(cases) / sizeof(cases[0]));
}
