/* SPDX-License-Identifier: Apache-2.0 */
/* GPU checks beyond the conformance suite, on the conformance kernels: the committed sm_90a
 * cubin loads and runs, dynamic shared memory far past 48 KiB (up to the opt-in limit), and a
 * launch captured into a CUDA graph and replayed twice.
 * Usage: gpu_kernels_test <cts_cuda_sm90a.cubin> <cts_cuda.ptx> [case...]. Exit 77: no device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_common.h"
#include "harness.h"

static tkrt_device_t* g_device;
static const tkrt_device_info_t* g_info;
static tkrt_module_t* g_cubin;
static tkrt_module_t* g_ptx;

static tkrt_function_t* function_in(tkrt_module_t* module, const char* name) {
  tkrt_function_t* function = NULL;
  tkrt_status_t status = tkrt_module_get_function(module, name, &function);
  if (status) {
    gpu_failed(name, status);
    return NULL;
  }
  return function;
}

/* Reverses chunks of `words` u32 through dynamic shared memory; 0 when every word is right. */
static size_t run_smem_reverse(tkrt_function_t* fn, uint32_t words, uint32_t chunks) {
  const size_t count = (size_t)words * chunks, bytes = count * 4;
  uint32_t* in = malloc(bytes);
  uint32_t* out = malloc(bytes);
  size_t wrong = (size_t)-1;
  tkrt_deviceptr_t din = 0, dout = 0;
  if (!in || !out) goto cleanup;
  for (size_t i = 0; i < count; ++i) in[i] = (uint32_t)(i * 2654435761u + 7);
  EXPECT_OK(tkrt_memory_alloc(g_device, bytes, &din));
  EXPECT_OK(tkrt_memory_alloc(g_device, bytes, &dout));
  if (!din || !dout) goto cleanup;
  EXPECT_OK(tkrt_memcpy_htod_async(g_device, din, in, bytes, NULL));
  uint32_t w = words;
  uint64_t hidden[2] = {0, 0};
  void* params[] = {&din, &dout, &w, &hidden[0], &hidden[1]};
  tkrt_launch_params_t p;
  memset(&p, 0, sizeof(p));
  p.grid[0] = chunks;
  p.grid[1] = p.grid[2] = 1;
  p.block[0] = 256;
  p.block[1] = p.block[2] = 1;
  p.shared_mem_bytes = words * 4;
  p.params = params;
  p.param_count = 5;
  tkrt_status_t status = tkrt_launch(fn, &p, NULL);
  if (!status) status = tkrt_memcpy_dtoh_async(g_device, out, dout, bytes, NULL);
  if (!status) status = tkrt_stream_synchronize(g_device, NULL);
  if (gpu_failed("smem_reverse", status)) goto cleanup;
  wrong = 0;
  for (uint32_t c = 0; c < chunks; ++c) {
    for (uint32_t i = 0; i < words; ++i) {
      wrong += out[(size_t)c * words + i] != in[(size_t)c * words + words - 1 - i];
    }
  }

cleanup:
  if (din) EXPECT_OK(tkrt_memory_free(g_device, din));
  if (dout) EXPECT_OK(tkrt_memory_free(g_device, dout));
  free(in);
  free(out);
  return wrong;
}

static void cubin_runs_cts_add(void) {
  tkrt_function_t* fn = function_in(g_cubin, "cts_add_f32");
  ASSERT_TRUE(fn != NULL);
  const int32_t n = 5000;
  float x[5000], y[5000], out[5000];
  for (int i = 0; i < n; ++i) {
    x[i] = (float)i * 0.25f;
    y[i] = 1.0f / (float)(i + 1);
  }
  tkrt_deviceptr_t dx = 0, dy = 0, dout = 0;
  ASSERT_OK(tkrt_memory_alloc(g_device, sizeof(x), &dx));
  ASSERT_OK(tkrt_memory_alloc(g_device, sizeof(y), &dy));
  ASSERT_OK(tkrt_memory_alloc(g_device, sizeof(out), &dout));
  EXPECT_OK(tkrt_memcpy_htod_async(g_device, dx, x, sizeof(x), NULL));
  EXPECT_OK(tkrt_memcpy_htod_async(g_device, dy, y, sizeof(y), NULL));
  void* params[] = {&dx, &dy, &dout, (void*)&n};
  tkrt_launch_params_t p = {0, {5, 1, 1}, {128, 1, 1}, {0, 0, 0}, 0, 0, params, 4};
  EXPECT_OK(tkrt_launch(fn, &p, NULL));
  EXPECT_OK(tkrt_memcpy_dtoh_async(g_device, out, dout, sizeof(out), NULL));
  EXPECT_OK(tkrt_stream_synchronize(g_device, NULL));
  size_t wrong = 0;
  for (int i = 0; i < n; ++i) {
    float expected = x[i] + y[i];
    wrong += memcmp(&expected, &out[i], 4) != 0;
  }
  EXPECT_EQ_U64(wrong, 0);
  tkrt_function_attrs_t attrs;
  EXPECT_OK(tkrt_function_get_attrs(fn, &attrs));
  printf("cubin: cts_add_f32 ran from the sm_90a cubin (%u registers)\n", attrs.num_regs);
  EXPECT_OK(tkrt_memory_free(g_device, dx));
  EXPECT_OK(tkrt_memory_free(g_device, dy));
  EXPECT_OK(tkrt_memory_free(g_device, dout));
}

static void shared_memory_past_48k(void) {
  tkrt_module_t* modules[2] = {g_cubin, g_ptx};
  const char* kinds[2] = {"cubin", "ptx"};
  for (int m = 0; m < 2; ++m) {
    tkrt_function_t* fn = function_in(modules[m], "cts_smem_reverse");
    ASSERT_TRUE(fn != NULL);
    tkrt_function_attrs_t before, after;
    ASSERT_OK(tkrt_function_get_attrs(fn, &before));
    /* 64 KiB, then everything the function may have: the opt-in limit minus static shared. */
    uint32_t most = g_info->max_shared_per_block_optin - before.static_shared_bytes;
    uint32_t sizes[2] = {64 * 1024, most & ~3u};
    for (int s = 0; s < 2; ++s) {
      size_t wrong = run_smem_reverse(fn, sizes[s] / 4, 3);
      EXPECT_EQ_U64(wrong, 0);
      printf("%s: cts_smem_reverse with %u B of dynamic shared memory: %s\n", kinds[m], sizes[s],
             wrong == 0 ? "ok" : "WRONG");
    }
    ASSERT_OK(tkrt_function_get_attrs(fn, &after));
    printf("%s: dynamic shared limit %u -> %u B (opt-in %u, static %u)\n", kinds[m],
           before.max_dynamic_shared_bytes, after.max_dynamic_shared_bytes,
           g_info->max_shared_per_block_optin, after.static_shared_bytes);
    EXPECT_TRUE(after.max_dynamic_shared_bytes >= sizes[1]);
    EXPECT_STATUS(tkrt_function_set_max_dynamic_shared(fn, most + 1), TKRT_STATUS_OUT_OF_RANGE,
                  "static shared memory");
  }
}

static void graph_capture_and_replay(void) {
  tkrt_function_t* fn = function_in(g_ptx, "cts_add_f32");
  ASSERT_TRUE(fn != NULL);
  enum { N = 70000 };
  const int32_t n = N;
  const size_t bytes = sizeof(float) * N;
  float* x = malloc(bytes);
  float* y = malloc(bytes);
  float* out = malloc(bytes);
  ASSERT_TRUE(x && y && out);
  for (int i = 0; i < n; ++i) {
    x[i] = (float)(i % 977) * 1.5f;
    y[i] = (float)(i % 13) - 6.0f;
  }
  tkrt_deviceptr_t dx = 0, dy = 0, dout = 0;
  tkrt_stream_t stream = NULL;
  tkrt_graph_t* graph = NULL;
  ASSERT_OK(tkrt_memory_alloc(g_device, bytes, &dx));
  ASSERT_OK(tkrt_memory_alloc(g_device, bytes, &dy));
  ASSERT_OK(tkrt_memory_alloc(g_device, bytes, &dout));
  ASSERT_OK(tkrt_stream_create(g_device, &stream));
  EXPECT_OK(tkrt_memcpy_htod_async(g_device, dx, x, bytes, stream));
  EXPECT_OK(tkrt_memcpy_htod_async(g_device, dy, y, bytes, stream));
  EXPECT_OK(tkrt_memset_async(g_device, dout, 0xFF, bytes, stream));
  EXPECT_OK(tkrt_stream_synchronize(g_device, stream));

  uint64_t hidden[2] = {0, 0};
  void* params[] = {&dx, &dy, &dout, (void*)&n, &hidden[0], &hidden[1]};
  tkrt_launch_params_t p = {0, {(N + 1023) / 1024, 1, 1}, {128, 1, 1}, {0, 0, 0}, 0, 0, params, 6};
  ASSERT_OK(tkrt_stream_begin_capture(g_device, stream));
  bool capturing = false;
  EXPECT_OK(tkrt_stream_is_capturing(g_device, stream, &capturing));
  EXPECT_TRUE(capturing);
  EXPECT_OK(tkrt_launch(fn, &p, stream));
  ASSERT_OK(tkrt_stream_end_capture(g_device, stream, &graph));
  EXPECT_OK(tkrt_stream_is_capturing(g_device, stream, &capturing));
  EXPECT_TRUE(!capturing);

  /* Captured, not run: the output still holds the poison. */
  EXPECT_OK(tkrt_memcpy_dtoh_async(g_device, out, dout, bytes, stream));
  EXPECT_OK(tkrt_stream_synchronize(g_device, stream));
  size_t untouched = 0;
  for (int i = 0; i < n; ++i) untouched += ((uint32_t*)out)[i] == 0xFFFFFFFFu;
  EXPECT_EQ_U64(untouched, (uint64_t)n);

  for (int replay = 0; replay < 2; ++replay) {
    EXPECT_OK(tkrt_memset_async(g_device, dout, 0xFF, bytes, stream));
    tkrt_event_t start = NULL, end = NULL;
    EXPECT_OK(tkrt_event_create(g_device, &start));
    EXPECT_OK(tkrt_event_create(g_device, &end));
    EXPECT_OK(tkrt_event_record(g_device, start, stream));
    EXPECT_OK(tkrt_graph_launch(g_device, graph, stream));
    EXPECT_OK(tkrt_event_record(g_device, end, stream));
    EXPECT_OK(tkrt_memcpy_dtoh_async(g_device, out, dout, bytes, stream));
    EXPECT_OK(tkrt_stream_synchronize(g_device, stream));
    float ms = -1.0f;
    EXPECT_OK(tkrt_event_elapsed_ms(g_device, start, end, &ms));
    EXPECT_OK(tkrt_event_destroy(g_device, start));
    EXPECT_OK(tkrt_event_destroy(g_device, end));
    size_t wrong = 0;
    for (int i = 0; i < n; ++i) {
      float expected = x[i] + y[i];
      wrong += memcmp(&expected, &out[i], 4) != 0;
    }
    EXPECT_EQ_U64(wrong, 0);
    printf("graph: replay %d: %s (%.3f ms between events)\n", replay + 1,
           wrong == 0 ? "results correct" : "WRONG RESULTS", ms);
  }
  EXPECT_OK(tkrt_graph_destroy(g_device, graph));
  EXPECT_OK(tkrt_stream_destroy(g_device, stream));
  EXPECT_OK(tkrt_memory_free(g_device, dx));
  EXPECT_OK(tkrt_memory_free(g_device, dy));
  EXPECT_OK(tkrt_memory_free(g_device, dout));
  free(x);
  free(y);
  free(out);
}

static int load_module(const char* path, tkrt_image_kind_t kind, tkrt_module_t** out) {
  size_t size = 0;
  void* data = gpu_read_file(path, &size);
  if (!data) {
    fprintf(stderr, "FAILED: cannot read %s\n", path);
    return -1;
  }
  tkrt_image_t image = {.kind = kind, .data = data, .size = size};
  double started = gpu_now_ms();
  tkrt_status_t status = tkrt_module_load(g_device, &image, out);
  printf("loaded %s (%zu bytes) in %.1f ms\n", path, size, gpu_now_ms() - started);
  free(data);
  return gpu_failed(path, status) ? -1 : 0;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s <cts_cuda_sm90a.cubin> <cts_cuda.ptx> [case...]\n", argv[0]);
    return 2;
  }
  g_device = gpu_open_cuda_or_skip();
  if (!g_device) return GPU_SKIP;
  g_info = tkrt_device_info(g_device);
  int rc = 1;
  if (g_info->cc_major != 9) {
    /* The committed cubin is sm_90a: it runs on compute capability 9.0 only. */
    fprintf(stderr, "skipped: the cubin is for sm_90a, this device is %s\n", g_info->arch);
    rc = GPU_SKIP;
  } else if (load_module(argv[1], TKRT_IMAGE_CUBIN, &g_cubin) == 0 &&
             load_module(argv[2], TKRT_IMAGE_PTX, &g_ptx) == 0) {
    static const tkrt_test_case_t cases[] = {
        TKRT_TEST_CASE(cubin_runs_cts_add),
        TKRT_TEST_CASE(shared_memory_past_48k),
        TKRT_TEST_CASE(graph_capture_and_replay),
    };
    rc = tkrt_test_main(argc - 2, argv + 2, cases, sizeof(cases) / sizeof(cases[0]));
  }
  tkrt_module_unload(g_cubin);
  tkrt_module_unload(g_ptx);
  tkrt_device_release(g_device);
  return rc;
}
