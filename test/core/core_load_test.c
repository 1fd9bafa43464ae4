/* SPDX-License-Identifier: Apache-2.0 */
/* Loading a call's images: the distinct images of an autotuned call's configs load concurrently,
 * each once; a config that fits but fails to load fails the call with the first such config's
 * error and frees every module that did load. Runs on a fault device (no fault injected) that
 * counts loads, live modules and how many loads were in flight together. */
#include <stdint.h>
#include <stdlib.h>

#include "test/core/core_test_util.h"
#include "test/core/fault_device.h"

#define N 1000
#define CONFIGS 12
static tkrt_device_t* g_inner; /* the real device the fault device wraps */

/* The test image made distinct by `variant` without changing what it runs: a host shared
 * object with trailing bytes (the loader maps what the headers name), PTX with a trailing
 * comment. NULL for other kinds (the case then skips). `broken`: an image of the same kind that
 * cannot load (a truncated shared object, text that is not PTX). */
static void* variant_image(int variant, bool broken, size_t* out_size) {
  const unsigned char* bytes = g_image;
  if (g_image_info.kind == TKRT_IMAGE_HOST) {
    size_t size = broken ? 64 : g_image_size + (size_t)variant + 1;
    unsigned char* copy = calloc(1, size > g_image_size ? size : g_image_size);
    if (!copy) return NULL;
    memcpy(copy, bytes, broken ? 64 : g_image_size);
    *out_size = size;
    return copy;
  }
  if (g_image_info.kind == TKRT_IMAGE_PTX) {
    size_t text = g_image_size;
    while (text && bytes[text - 1] == '\0') --text;
    char* copy = malloc(text + 64);
    if (!copy) return NULL;
    int n = broken ? snprintf(copy, 64, "this is not PTX (variant %d)", variant)
                   : (memcpy(copy, bytes, text),
                      (int)text + snprintf(copy + text, 64, "\n// load test variant %d\n", variant));
    *out_size = (size_t)n + 1;
    return copy;
  }
  return NULL;
}

/* An autotuned call over `count` configs of add_128 (out = x + y), config c spinning micros[c]
 * and running image images[c] (owned by the caller). */
static tkrt_call_t* make_call(size_t count, void** images, const size_t* sizes,
                              const uint32_t* micros) {
  tkrt_param_t params[CONFIGS][6];
  tkrt_config_desc_t configs[CONFIGS];
  tkrt_kernel_t* kernels[CONFIGS] = {0};
  char descriptions[CONFIGS][32];
  for (size_t c = 0; c < count; ++c) {
    tkrt_kernel_image_t image = {.kind = g_image_info.kind, .arch = g_image_info.arch,
                                 .data = images[c], .size = sizes[c]};
    tkrt_kernel_desc_t desc;
    tkrt_kernel_desc_init(&desc);
    desc.name = "add_128";
    desc.num_warps = 4;
    desc.num_ctas = 1;
    desc.images = &image;
    desc.image_count = 1;
    EXPECT_OK(tkrt_kernel_create(&desc, &kernels[c]));
    params[c][0] = core_array(16, 0);
    params[c][1] = core_array(16, 0);
    params[c][2] = core_array(16, 0);
    params[c][3] = core_i32(N);
    params[c][4] = core_u32(micros ? micros[c] : 0);
    params[c][5] = core_array(0, 0);
    snprintf(descriptions[c], sizeof(descriptions[c]), "variant %zu", c);
    configs[c] = (tkrt_config_desc_t){.kernel = kernels[c], .grid = {(N + 127) / 128, 1, 1},
                                      .params = params[c], .param_count = 6,
                                      .description = descriptions[c]};
  }
  tkrt_call_desc_t desc;
  tkrt_call_desc_init(&desc);
  desc.name = "load_test";
  desc.autotuned = true;
  desc.configs = configs;
  desc.config_count = count;
  tkrt_call_t* call = NULL;
  EXPECT_OK(tkrt_call_create(&desc, &call));
  for (size_t c = 0; c < count; ++c) tkrt_kernel_release(kernels[c]);
  return call;
}

static tkrt_device_t* fault_device(unsigned load_delay_micros) {
  tkrt_device_t* device = NULL;
  EXPECT_OK(tkrt_fault_device_create(g_inner, 0, TKRT_STATUS_INTERNAL, &device));
  if (device) tkrt_fault_device_set_load_delay(device, load_delay_micros);
  return device;
}

/* Twelve distinct images: each loads once, several at a time, and the tuned call computes. */
static void test_distinct_images_load_concurrently(void) {
  void* images[CONFIGS] = {0};
  size_t sizes[CONFIGS];
  for (int c = 0; c < CONFIGS; ++c) images[c] = variant_image(c, false, &sizes[c]);
  if (!images[0]) {
    fprintf(stderr, "  no variants of a %s image (skipping)\n",
            tkrt_image_kind_name(g_image_info.kind));
    ++tkrt_test_skipped_;
    return;
  }
  uint32_t micros[CONFIGS];
  for (int c = 0; c < CONFIGS; ++c) micros[c] = c == 5 ? 0 : 200;
  tkrt_call_t* call = make_call(CONFIGS, images, sizes, micros);
  tkrt_device_t* device = fault_device(20000);
  if (!call || !device) goto done;
  ASSERT_OK(tkrt_call_prepare(call, device));
  const tkrt_fault_stats_t* stats = tkrt_fault_device_stats(device);
  EXPECT_EQ_U64(stats->module_loads, CONFIGS);
  EXPECT_EQ_U64(stats->live_modules, CONFIGS);
  /* 12 loads of 20 ms each on up to 8 threads: they must have overlapped. */
  EXPECT_TRUE(stats->most_loads_at_once >= 2);
  EXPECT_TRUE(stats->most_loads_at_once <= 8);
  fprintf(stderr, "  %d loads, at most %d at once\n", stats->module_loads,
          stats->most_loads_at_once);

  float x[N], y[N], out[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i;
    y[i] = 0.5f;
  }
  tkrt_deviceptr_t dx = core_upload(g_inner, x, sizeof(x)), dy = core_upload(g_inner, y, sizeof(y));
  tkrt_deviceptr_t dout = core_upload(g_inner, NULL, sizeof(out));
  tkrt_deviceptr_t counter = core_upload(g_inner, NULL, 16);
  tkrt_autotuner_t* tuner = core_tuner(NULL, 2.0, 4);
  tkrt_buffer_t buffers[] = {{dx, sizeof(x)}, {dy, sizeof(y)}, {dout, sizeof(out)}, {counter, 16}};
  tkrt_launch_decision_t decision;
  EXPECT_OK(core_launch_decided(call, device, NULL, buffers, 3, 1, tuner, &decision));
  EXPECT_OK(tkrt_stream_synchronize(g_inner, NULL));
  EXPECT_EQ_U64(decision.config, 5); /* the one that does not spin */
  EXPECT_EQ_U64(stats->module_loads, CONFIGS); /* tuning loads nothing more */
  core_download(g_inner, out, dout, sizeof(out));
  size_t wrong = 0;
  for (int i = 0; i < N; ++i) wrong += out[i] != x[i] + y[i];
  EXPECT_EQ_U64(wrong, 0);
  tkrt_autotuner_destroy(tuner);
  EXPECT_OK(tkrt_memory_free(g_inner, dx));
  EXPECT_OK(tkrt_memory_free(g_inner, dy));
  EXPECT_OK(tkrt_memory_free(g_inner, dout));
  EXPECT_OK(tkrt_memory_free(g_inner, counter));
  tkrt_call_release(call);
  call = NULL;
  EXPECT_EQ_U64(stats->live_modules, 0);

done:
  tkrt_call_release(call);
  tkrt_device_release(device);
  for (int c = 0; c < CONFIGS; ++c) free(images[c]);
}

/* Configs repeating three images: three loads, every config runnable. */
static void test_shared_images_load_once(void) {
  void* distinct[3] = {0};
  size_t distinct_sizes[3];
  for (int v = 0; v < 3; ++v) distinct[v] = variant_image(v, false, &distinct_sizes[v]);
  if (!distinct[0]) {
    ++tkrt_test_skipped_;
    return;
  }
  void* images[9];
  size_t sizes[9];
  for (int c = 0; c < 9; ++c) {
    images[c] = distinct[c % 3];
    sizes[c] = distinct_sizes[c % 3];
  }
  tkrt_call_t* call = make_call(9, images, sizes, NULL);
  tkrt_device_t* device = fault_device(1000);
  if (call && device) {
    EXPECT_OK(tkrt_call_prepare(call, device));
    EXPECT_EQ_U64(tkrt_fault_device_stats(device)->module_loads, 3);
    tkrt_call_release(call);
    call = NULL;
    EXPECT_EQ_U64(tkrt_fault_device_stats(device)->live_modules, 0);
  }
  tkrt_call_release(call);
  tkrt_device_release(device);
  for (int v = 0; v < 3; ++v) free(distinct[v]);
}

/* Configs 4 and 7 of 10 fit but cannot load: the call fails with config 4's error, whatever
 * order the loads finished in, and nothing stays loaded. */
static void test_failing_load_in_the_middle(void) {
  void* images[10] = {0};
  size_t sizes[10];
  for (int c = 0; c < 10; ++c) images[c] = variant_image(c, c == 4 || c == 7, &sizes[c]);
  if (!images[0]) {
    ++tkrt_test_skipped_;
    return;
  }
  for (int round = 0; round < 3; ++round) {
    tkrt_call_t* call = make_call(10, images, sizes, NULL);
    tkrt_device_t* device = fault_device(round == 0 ? 0 : 5000);
    if (!call || !device) {
      tkrt_call_release(call);
      tkrt_device_release(device);
      break;
    }
    tkrt_status_t status = tkrt_call_prepare(call, device);
    EXPECT_TRUE(status != NULL);
    if (status) {
      const char* message = tkrt_status_message(status);
      EXPECT_TRUE(strstr(message, "config 4 'variant 4'") != NULL);
      EXPECT_TRUE(strstr(message, "variant 7") == NULL);
      if (round == 0) fprintf(stderr, "  %s\n", message);
      tkrt_status_free(status);
    }
    const tkrt_fault_stats_t* stats = tkrt_fault_device_stats(device);
    EXPECT_EQ_U64(stats->module_loads, 8); /* every other image loaded, then was unloaded */
    EXPECT_EQ_U64(stats->live_modules, 0);
    EXPECT_EQ_U64(stats->live_device_allocs, 0);
    /* A later attempt tries again (nothing was published) and fails the same way. */
    status = tkrt_call_prepare(call, device);
    EXPECT_TRUE(status != NULL && strstr(tkrt_status_message(status), "config 4 ") != NULL);
    tkrt_status_free(status);
    EXPECT_EQ_U64(stats->live_modules, 0);
    tkrt_call_release(call);
    tkrt_device_release(device);
  }
  for (int c = 0; c < 10; ++c) free(images[c]);
}

/* Many threads prepare the same call at once: one builds the state, all see it. */
static void* prepare_thread(void* arg) {
  void** pair = arg;
  tkrt_status_t status = tkrt_call_prepare(pair[0], pair[1]);
  if (status) {
    tkrt_test_print_status_(__FILE__, __LINE__, "tkrt_call_prepare", status);
    tkrt_status_free(status);
    return (void*)1;
  }
  return NULL;
}

static void test_concurrent_prepare(void) {
  void* images[CONFIGS] = {0};
  size_t sizes[CONFIGS];
  for (int c = 0; c < CONFIGS; ++c) images[c] = variant_image(c, false, &sizes[c]);
  if (!images[0]) {
    ++tkrt_test_skipped_;
    return;
  }
  tkrt_call_t* call = make_call(CONFIGS, images, sizes, NULL);
  tkrt_device_t* device = fault_device(2000);
  if (call && device) {
    pthread_t threads[4];
    void* pair[2] = {call, device};
    for (int t = 0; t < 4; ++t) EXPECT_TRUE(pthread_create(&threads[t], NULL, prepare_thread, pair) == 0);
    for (int t = 0; t < 4; ++t) {
      void* result = NULL;
      pthread_join(threads[t], &result);
      EXPECT_TRUE(result == NULL);
    }
    EXPECT_EQ_U64(tkrt_fault_device_stats(device)->module_loads, CONFIGS);
  }
  tkrt_call_release(call);
  tkrt_device_release(device);
  for (int c = 0; c < CONFIGS; ++c) free(images[c]);
}

int main(int argc, char** argv) {
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(test_distinct_images_load_concurrently),
      TKRT_TEST_CASE(test_shared_images_load_once),
      TKRT_TEST_CASE(test_failing_load_in_the_middle),
      TKRT_TEST_CASE(test_concurrent_prepare),
  };
  return core_test_run(argc, argv, &g_inner, NULL, cases, sizeof(cases) / sizeof(cases[0]));
}
