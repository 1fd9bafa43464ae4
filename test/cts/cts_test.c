/* SPDX-License-Identifier: Apache-2.0 */
/* Conformance suite: the same cases on every backend, through the public API only.
 * Usage: cts_test <backend> <kernel image>; exits 77 when the backend has no device here. */
#include <math.h>
#include <stdint.h>

#include "test/harness.h"
#include "tkrt/tkrt.h"

static const char* g_backend;
static const char* g_image_path;
static tkrt_device_t* g_device;
static tkrt_module_t* g_module;
static const tkrt_device_info_t* g_info;

static tkrt_function_t* cts_function(const char* name) {
  tkrt_function_t* function = NULL;
  tkrt_status_t status = tkrt_module_get_function(g_module, name, &function);
  if (status) {
    tkrt_test_print_status_(__FILE__, __LINE__, name, status);
    tkrt_status_free(status);
    ++tkrt_test_failed_;
  }
  return function;
}

static tkrt_launch_params_t cts_params(uint32_t gx, uint32_t gy, uint32_t gz, void** params,
                                       uint32_t count) {
  tkrt_launch_params_t p;
  memset(&p, 0, sizeof(p));
  p.grid[0] = gx;
  p.grid[1] = gy;
  p.grid[2] = gz;
  p.block[0] = 128;
  p.block[1] = p.block[2] = 1;
  p.params = params;
  p.param_count = count;
  return p;
}

static void test_device_info(void) {
  EXPECT_STREQ(g_info->backend, g_backend);
  EXPECT_TRUE(g_info->arch[0] != '\0');
  EXPECT_TRUE(g_info->name[0] != '\0');
  EXPECT_TRUE(g_info->warp_size == 32 || g_info->warp_size == 64);
  EXPECT_TRUE(g_info->sm_count > 0);
  EXPECT_TRUE(g_info->max_threads_per_block >= 256);
  EXPECT_TRUE(g_info->max_grid_dim[0] >= 65535 && g_info->max_grid_dim[1] >= 1);
  EXPECT_TRUE(g_info->max_shared_per_block >= 16384);
  EXPECT_TRUE(g_info->max_shared_per_block_optin >= g_info->max_shared_per_block);
  EXPECT_TRUE(g_info->total_memory > 0);
  size_t free_bytes = 0, total = 0;
  EXPECT_OK(tkrt_memory_info(g_device, &free_bytes, &total));
  EXPECT_TRUE(total > 0);
}

static void test_lookup_unknown_kernel(void) {
  tkrt_function_t* function = NULL;
  EXPECT_STATUS(tkrt_module_get_function(g_module, "no_such_kernel", &function),
                TKRT_STATUS_NOT_FOUND, "no_such_kernel");
  EXPECT_TRUE(function == NULL);
  /* Lookups are cached: the same name gives the same function. */
  tkrt_function_t* a = cts_function("cts_add_f32");
  tkrt_function_t* b = cts_function("cts_add_f32");
  EXPECT_TRUE(a && a == b);
  EXPECT_STREQ(tkrt_function_name(a), "cts_add_f32");
  EXPECT_TRUE(tkrt_function_device(a) == g_device);
}

static void test_corrupt_image(void) {
  size_t size = 0;
  unsigned char* bytes = tkrt_test_read_file(g_image_path, &size);
  ASSERT_TRUE(bytes != NULL);
  tkrt_module_t* module = NULL;
  /* Cut in half: still recognisably the same kind, but unloadable. */
  tkrt_image_t image = {.kind = TKRT_IMAGE_AUTO, .data = bytes, .size = size / 2};
  tkrt_status_t status = tkrt_module_load(g_device, &image, &module);
  EXPECT_TRUE(status != NULL);
  EXPECT_TRUE(module == NULL);
  if (status) {
    EXPECT_TRUE(tkrt_status_code(status) == TKRT_STATUS_INVALID_ARGUMENT);
    tkrt_status_free(status);
  }
  /* Garbage is recognised as nothing at all. */
  memset(bytes, 0xA5, 64);
  tkrt_image_t garbage = {.kind = TKRT_IMAGE_AUTO, .data = bytes, .size = 64};
  EXPECT_STATUS(tkrt_module_load(g_device, &garbage, &module), TKRT_STATUS_INVALID_ARGUMENT,
                "unrecognised module image");
  tkrt_image_t empty = {.kind = TKRT_IMAGE_AUTO, .data = bytes, .size = 0};
  EXPECT_STATUS(tkrt_module_load(g_device, &empty, &module), TKRT_STATUS_INVALID_ARGUMENT, "empty");
  free(bytes);
}

/* Fills n floats with values whose sums are exact in neither direction, deterministically. */
static void cts_fill(float* data, size_t n, uint32_t seed) {
  uint32_t state = seed;
  for (size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    data[i] = (float)(int32_t)(state >> 8) / 65536.0f;
  }
}

static void test_launch_add(void) {
  const int32_t n = 100003;
  const size_t bytes = (size_t)n * sizeof(float);
  float* x = malloc(bytes);
  float* y = malloc(bytes);
  float* out = malloc(bytes);
  ASSERT_TRUE(x && y && out);
  cts_fill(x, (size_t)n, 1);
  cts_fill(y, (size_t)n, 2);
  tkrt_deviceptr_t dx = 0, dy = 0, dout = 0;
  tkrt_function_t* add = cts_function("cts_add_f32");
  if (add) {
    EXPECT_OK(tkrt_memory_alloc(g_device, bytes, &dx));
    EXPECT_OK(tkrt_memory_alloc(g_device, bytes, &dy));
    EXPECT_OK(tkrt_memory_alloc(g_device, bytes, &dout));
  }
  if (dx && dy && dout) {
    EXPECT_OK(tkrt_memcpy_htod_async(g_device, dx, x, bytes, NULL));
    EXPECT_OK(tkrt_memcpy_htod_async(g_device, dy, y, bytes, NULL));
    EXPECT_OK(tkrt_memset_async(g_device, dout, 0xFF, bytes, NULL));
    /* Two hidden trailing pointers, as the core passes them: the kernel must ignore them. */
    tkrt_deviceptr_t scratch = 0, profile = 0;
    void* params[] = {&dx, &dy, &dout, (void*)&n, &scratch, &profile};
    tkrt_launch_params_t p = cts_params((uint32_t)((n + 1023) / 1024), 1, 1, params, 6);
    EXPECT_OK(tkrt_launch(add, &p, NULL));
    EXPECT_OK(tkrt_memcpy_dtoh_async(g_device, out, dout, bytes, NULL));
    EXPECT_OK(tkrt_stream_synchronize(g_device, NULL));
    size_t wrong = 0;
    for (int32_t i = 0; i < n; ++i) {
      float expected = x[i] + y[i];
      wrong += memcmp(&out[i], &expected, sizeof(float)) != 0;
    }
    EXPECT_EQ_U64(wrong, 0);
  }
  EXPECT_OK(tkrt_memory_free(g_device, dx));
  EXPECT_OK(tkrt_memory_free(g_device, dy));
  EXPECT_OK(tkrt_memory_free(g_device, dout));
  free(x);
  free(y);
  free(out);
}

static void test_launch_grid_3d(void) {
  tkrt_function_t* fn = cts_function("cts_write_pid");
  ASSERT_TRUE(fn != NULL);
  const uint32_t gx = 37, gy = 5, gz = 3, count = gx * gy * gz;
  tkrt_deviceptr_t dout = 0;
  ASSERT_OK(tkrt_memory_alloc(g_device, count * 4, &dout));
  uint32_t* out = malloc(count * 4);
  EXPECT_OK(tkrt_memset_async(g_device, dout, 0xFF, count * 4, NULL));
  void* params[] = {&dout};
  tkrt_launch_params_t p = cts_params(gx, gy, gz, params, 1);
  p.block[0] = 1;
  EXPECT_OK(tkrt_launch(fn, &p, NULL));
  EXPECT_OK(tkrt_memcpy_dtoh_async(g_device, out, dout, count * 4, NULL));
  EXPECT_OK(tkrt_stream_synchronize(g_device, NULL));
  size_t wrong = 0;
  for (uint32_t z = 0; z < gz; ++z) {
    for (uint32_t y = 0; y < gy; ++y) {
      for (uint32_t x = 0; x < gx; ++x) {
        wrong += out[(z * gy + y) * gx + x] != (x | y << 10 | z << 20);
      }
    }
  }
  EXPECT_EQ_U64(wrong, 0);
  free(out);
  EXPECT_OK(tkrt_memory_free(g_device, dout));
}

static void test_launch_large_shared(void) {
  tkrt_function_t* fn = cts_function("cts_smem_reverse");
  ASSERT_TRUE(fn != NULL);
  const uint32_t words = 16384, chunks = 3; /* 64 KiB of dynamic shared memory: over 48 KiB */
  const size_t bytes = (size_t)words * chunks * 4;
  uint32_t* in = malloc(bytes);
  uint32_t* out = malloc(bytes);
  for (size_t i = 0; i < (size_t)words * chunks; ++i) in[i] = (uint32_t)(i * 2654435761u);
  tkrt_deviceptr_t din = 0, dout = 0;
  EXPECT_OK(tkrt_memory_alloc(g_device, bytes, &din));
  EXPECT_OK(tkrt_memory_alloc(g_device, bytes, &dout));
  if (din && dout) {
    EXPECT_OK(tkrt_memcpy_htod_async(g_device, din, in, bytes, NULL));
    uint32_t w = words;
    void* params[] = {&din, &dout, &w};
    tkrt_launch_params_t p = cts_params(chunks, 1, 1, params, 3);
    p.shared_mem_bytes = words * 4;
    EXPECT_OK(tkrt_launch(fn, &p, NULL));
    EXPECT_OK(tkrt_memcpy_dtoh_async(g_device, out, dout, bytes, NULL));
    EXPECT_OK(tkrt_stream_synchronize(g_device, NULL));
    size_t wrong = 0;
    for (uint32_t c = 0; c < chunks; ++c) {
      for (uint32_t i = 0; i < words; ++i) {
        wrong += out[c * words + i] != in[c * words + words - 1 - i];
      }
    }
    EXPECT_EQ_U64(wrong, 0);
    tkrt_function_attrs_t attrs;
    EXPECT_OK(tkrt_function_get_attrs(fn, &attrs));
    EXPECT_TRUE(attrs.max_dynamic_shared_bytes >= words * 4);
    /* Past the device's opt-in limit: refused before anything runs, naming the numbers. */
    p.shared_mem_bytes = g_info->max_shared_per_block_optin + 4;
    EXPECT_STATUS(tkrt_launch(fn, &p, NULL), TKRT_STATUS_INVALID_ARGUMENT, "shared memory");
    EXPECT_STATUS(tkrt_function_set_max_dynamic_shared(fn, g_info->max_shared_per_block_optin + 4),
                  TKRT_STATUS_OUT_OF_RANGE, NULL);
  }
  EXPECT_OK(tkrt_memory_free(g_device, din));
  EXPECT_OK(tkrt_memory_free(g_device, dout));
  free(in);
  free(out);
}

static void test_launch_cluster(void) {
  tkrt_function_t* fn = cts_function("cts_cluster_rank");
  ASSERT_TRUE(fn != NULL);
  const uint32_t grid = 16, cluster = 2;
  tkrt_deviceptr_t dout = 0;
  ASSERT_OK(tkrt_memory_alloc(g_device, grid * 4, &dout));
  void* params[] = {&dout};
  tkrt_launch_params_t p = cts_params(grid, 1, 1, params, 1);
  p.cluster[0] = cluster;
  p.cluster[1] = p.cluster[2] = 1;
  p.flags = TKRT_LAUNCH_CLUSTER_SPREAD;
  if (g_info->max_cluster_size == 0) {
    EXPECT_STATUS(tkrt_launch(fn, &p, NULL), TKRT_STATUS_UNIMPLEMENTED, "cluster");
  } else {
    uint32_t out[16];
    EXPECT_OK(tkrt_launch(fn, &p, NULL));
    EXPECT_OK(tkrt_memcpy_dtoh_async(g_device, out, dout, sizeof(out), NULL));
    EXPECT_OK(tkrt_stream_synchronize(g_device, NULL));
    for (uint32_t i = 0; i < grid; ++i) EXPECT_EQ_U64(out[i], (i % cluster) | (i / cluster) << 8);
  }
  EXPECT_OK(tkrt_memory_free(g_device, dout));
}

static void test_launch_scalars(void) {
  tkrt_function_t* fn = cts_function("cts_scalars");
  ASSERT_TRUE(fn != NULL);
  tkrt_deviceptr_t dout = 0;
  ASSERT_OK(tkrt_memory_alloc(g_device, 6 * 8, &dout));
  int32_t i32 = -3;
  uint32_t u32 = 3000000000u;
  int64_t i64 = -(INT64_C(1) << 40);
  uint64_t u64 = (UINT64_C(1) << 62) + 5;
  float f32 = 0.5f;
  double f64 = 1e-300;
  void* params[] = {&dout, &i32, &u32, &i64, &u64, &f32, &f64};
  tkrt_launch_params_t p = cts_params(1, 1, 1, params, 7);
  uint64_t out[6];
  EXPECT_OK(tkrt_launch(fn, &p, NULL));
  EXPECT_OK(tkrt_memcpy_dtoh_async(g_device, out, dout, sizeof(out), NULL));
  EXPECT_OK(tkrt_stream_synchronize(g_device, NULL));
  uint32_t f32_bits;
  uint64_t f64_bits;
  memcpy(&f32_bits, &f32, 4);
  memcpy(&f64_bits, &f64, 8);
  EXPECT_EQ_U64(out[0], (uint64_t)(int64_t)i32);
  EXPECT_EQ_U64(out[1], u32);
  EXPECT_EQ_U64(out[2], (uint64_t)i64);
  EXPECT_EQ_U64(out[3], u64);
  EXPECT_EQ_U64(out[4], f32_bits);
  EXPECT_EQ_U64(out[5], f64_bits);
  EXPECT_OK(tkrt_memory_free(g_device, dout));
}

static void test_launch_errors(void) {
  tkrt_function_t* fn = cts_function("cts_write_pid");
  ASSERT_TRUE(fn != NULL);
  tkrt_deviceptr_t dout = 0;
  ASSERT_OK(tkrt_memory_alloc(g_device, 4096, &dout));
  EXPECT_OK(tkrt_memset_async(g_device, dout, 0xAB, 4096, NULL));
  void* params[] = {&dout};
  tkrt_launch_params_t p = cts_params(4, 1, 1, params, 1);
  p.grid[1] = 0;
  EXPECT_STATUS(tkrt_launch(fn, &p, NULL), TKRT_STATUS_INVALID_ARGUMENT, "grid dimension y is 0");
  p.grid[1] = g_info->max_grid_dim[1] + 1;
  EXPECT_STATUS(tkrt_launch(fn, &p, NULL), TKRT_STATUS_INVALID_ARGUMENT, "grid dimension y");
  p.grid[1] = 1;
  p.block[0] = g_info->max_threads_per_block + 1;
  EXPECT_STATUS(tkrt_launch(fn, &p, NULL), TKRT_STATUS_INVALID_ARGUMENT, "block");
  p.block[0] = 1;
  p.cluster[0] = 3; /* grid x = 4 is not a multiple of 3 */
  p.cluster[1] = p.cluster[2] = 1;
  EXPECT_TRUE(tkrt_status_consume_code(tkrt_launch(fn, &p, NULL)) != TKRT_STATUS_OK);
  p.cluster[0] = 2;
  p.cluster[1] = 0;
  EXPECT_STATUS(tkrt_launch(fn, &p, NULL), TKRT_STATUS_INVALID_ARGUMENT, "zero dimension");
  p.cluster[0] = 64;
  p.cluster[1] = 1;
  p.grid[0] = 64;
  EXPECT_TRUE(tkrt_status_consume_code(tkrt_launch(fn, &p, NULL)) != TKRT_STATUS_OK);
  /* None of the refused launches wrote anything. */
  uint8_t out[4096];
  EXPECT_OK(tkrt_memcpy_dtoh_async(g_device, out, dout, sizeof(out), NULL));
  EXPECT_OK(tkrt_stream_synchronize(g_device, NULL));
  size_t touched = 0;
  for (size_t i = 0; i < sizeof(out); ++i) touched += out[i] != 0xAB;
  EXPECT_EQ_U64(touched, 0);
  EXPECT_OK(tkrt_memory_free(g_device, dout));
}

static void test_memory_and_streams(void) {
  const size_t bytes = 1 << 20;
  tkrt_deviceptr_t a = 0, b = 0;
  uint8_t* host = NULL;
  EXPECT_OK(tkrt_memory_alloc(g_device, bytes, &a));
  EXPECT_OK(tkrt_memory_alloc(g_device, bytes, &b));
  EXPECT_OK(tkrt_host_alloc(g_device, bytes, (void**)&host));
  EXPECT_STATUS(tkrt_memory_alloc(g_device, 0, &a), TKRT_STATUS_INVALID_ARGUMENT, "size is 0");
  tkrt_stream_t s1 = NULL, s2 = NULL;
  EXPECT_OK(tkrt_stream_create(g_device, &s1));
  EXPECT_OK(tkrt_stream_create(g_device, &s2));
  if (a && b && host && s1 && s2) {
    /* In-order execution: the copy sees the memset before it, the second memset after. */
    EXPECT_OK(tkrt_memset_async(g_device, a, 0x5A, bytes, s1));
    EXPECT_OK(tkrt_memcpy_dtod_async(g_device, b, a, bytes, s1));
    EXPECT_OK(tkrt_memset_async(g_device, a, 0x00, bytes / 2, s1));
    EXPECT_OK(tkrt_memcpy_dtoh_async(g_device, host, b, bytes, s1));
    EXPECT_OK(tkrt_stream_synchronize(g_device, s1));
    size_t wrong = 0;
    for (size_t i = 0; i < bytes; ++i) wrong += host[i] != 0x5A;
    EXPECT_EQ_U64(wrong, 0);
    EXPECT_OK(tkrt_memcpy_dtoh_async(g_device, host, a, bytes, s2));
    EXPECT_OK(tkrt_stream_synchronize(g_device, s2));
    wrong = 0;
    for (size_t i = 0; i < bytes; ++i) wrong += host[i] != (i < bytes / 2 ? 0x00 : 0x5A);
    EXPECT_EQ_U64(wrong, 0);
  }
  EXPECT_OK(tkrt_stream_destroy(g_device, s1));
  EXPECT_OK(tkrt_stream_destroy(g_device, s2));
  EXPECT_OK(tkrt_host_free(g_device, host));
  EXPECT_OK(tkrt_memory_free(g_device, a));
  EXPECT_OK(tkrt_memory_free(g_device, b));
}

static void test_events(void) {
  tkrt_event_t start = NULL, end = NULL;
  ASSERT_OK(tkrt_event_create(g_device, &start));
  ASSERT_OK(tkrt_event_create(g_device, &end));
  float ms = -1;
  EXPECT_TRUE(tkrt_status_consume_code(tkrt_event_elapsed_ms(g_device, start, end, &ms)) !=
              TKRT_STATUS_OK);
  const size_t bytes = 64u << 20;
  tkrt_deviceptr_t a = 0;
  EXPECT_OK(tkrt_memory_alloc(g_device, bytes, &a));
  EXPECT_OK(tkrt_event_record(g_device, start, NULL));
  for (int i = 0; i < 8 && a; ++i) EXPECT_OK(tkrt_memset_async(g_device, a, (uint8_t)i, bytes, NULL));
  EXPECT_OK(tkrt_event_record(g_device, end, NULL));
  EXPECT_OK(tkrt_event_synchronize(g_device, end));
  EXPECT_OK(tkrt_event_elapsed_ms(g_device, start, end, &ms));
  /* 512 MiB of memset takes real time on any device, and not minutes. */
  EXPECT_TRUE(ms > 0.0f && ms < 60000.0f);
  EXPECT_OK(tkrt_memory_free(g_device, a));
  EXPECT_OK(tkrt_event_destroy(g_device, start));
  EXPECT_OK(tkrt_event_destroy(g_device, end));
}

static void test_graph_capture(void) {
  tkrt_function_t* add = cts_function("cts_add_f32");
  ASSERT_TRUE(add != NULL);
  const int32_t n = 5000;
  const size_t bytes = (size_t)n * 4;
  float x[5000], y[5000], out[5000];
  cts_fill(x, (size_t)n, 3);
  cts_fill(y, (size_t)n, 4);
  tkrt_deviceptr_t dx = 0, dy = 0, dout = 0;
  tkrt_stream_t stream = NULL;
  EXPECT_OK(tkrt_memory_alloc(g_device, bytes, &dx));
  EXPECT_OK(tkrt_memory_alloc(g_device, bytes, &dy));
  EXPECT_OK(tkrt_memory_alloc(g_device, bytes, &dout));
  EXPECT_OK(tkrt_stream_create(g_device, &stream));
  if (dx && dy && dout && stream) {
    EXPECT_OK(tkrt_memcpy_htod_async(g_device, dx, x, bytes, stream));
    EXPECT_OK(tkrt_memcpy_htod_async(g_device, dy, y, bytes, stream));
    EXPECT_OK(tkrt_memset_async(g_device, dout, 0, bytes, stream));
    EXPECT_OK(tkrt_stream_synchronize(g_device, stream));
    bool capturing = true;
    EXPECT_OK(tkrt_stream_is_capturing(g_device, stream, &capturing));
    EXPECT_TRUE(!capturing);
    ASSERT_OK(tkrt_stream_begin_capture(g_device, stream));
    EXPECT_OK(tkrt_stream_is_capturing(g_device, stream, &capturing));
    EXPECT_TRUE(capturing);
    void* params[] = {&dx, &dy, &dout, (void*)&n};
    tkrt_launch_params_t p = cts_params((uint32_t)((n + 1023) / 1024), 1, 1, params, 4);
    EXPECT_OK(tkrt_launch(add, &p, stream));
    tkrt_graph_t* graph = NULL;
    EXPECT_OK(tkrt_stream_end_capture(g_device, stream, &graph));
    EXPECT_OK(tkrt_stream_is_capturing(g_device, stream, &capturing));
    EXPECT_TRUE(!capturing);
    /* Capturing recorded the launch without running it. */
    EXPECT_OK(tkrt_memcpy_dtoh_async(g_device, out, dout, bytes, stream));
    EXPECT_OK(tkrt_stream_synchronize(g_device, stream));
    EXPECT_TRUE(out[0] == 0.0f && out[n - 1] == 0.0f);
    for (int replay = 0; replay < 2 && graph; ++replay) {
      EXPECT_OK(tkrt_memset_async(g_device, dout, 0, bytes, stream));
      EXPECT_OK(tkrt_graph_launch(g_device, graph, stream));
      EXPECT_OK(tkrt_memcpy_dtoh_async(g_device, out, dout, bytes, stream));
      EXPECT_OK(tkrt_stream_synchronize(g_device, stream));
      size_t wrong = 0;
      for (int32_t i = 0; i < n; ++i) {
        float expected = x[i] + y[i];
        wrong += memcmp(&out[i], &expected, 4) != 0;
      }
      EXPECT_EQ_U64(wrong, 0);
    }
    EXPECT_OK(tkrt_graph_destroy(g_device, graph));
  }
  EXPECT_OK(tkrt_stream_destroy(g_device, stream));
  EXPECT_OK(tkrt_memory_free(g_device, dx));
  EXPECT_OK(tkrt_memory_free(g_device, dy));
  EXPECT_OK(tkrt_memory_free(g_device, dout));
}

static int cts_setup(void) {
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  /* The environment's settings (TKRT_CACHE_DIR, TKRT_LOG, TKRT_HIP_LIBRARY, ...), as the tools
   * pass them; the backend is this program's choice. */
  tkrt_status_free(tkrt_options_from_environment(&options, NULL));
  options.backend = g_backend;
  tkrt_status_t status = tkrt_device_open(&options, &g_device);
  if (status) {
    char* text = tkrt_status_to_string(status);
    int unavailable = tkrt_status_code(status) == TKRT_STATUS_UNAVAILABLE;
    fprintf(stderr, "cts: %s backend: %s\n", g_backend, text);
    printf("0 passed, 0 failed, 1 skipped\n");
    free(text);
    tkrt_status_free(status);
    return unavailable ? 77 : 1;
  }
  g_info = tkrt_device_info(g_device);
  size_t size = 0;
  void* bytes = tkrt_test_read_file(g_image_path, &size);
  if (!bytes) {
    fprintf(stderr, "cts: cannot read %s\n", g_image_path);
    return 1;
  }
  tkrt_image_t image = {.kind = TKRT_IMAGE_AUTO, .data = bytes, .size = size};
  status = tkrt_module_load(g_device, &image, &g_module);
  free(bytes); /* the module must not depend on the caller's bytes */
  if (status) {
    tkrt_test_print_status_(__FILE__, __LINE__, "tkrt_module_load", status);
    tkrt_status_free(status);
    return 1;
  }
  fprintf(stderr, "cts: %s device %s (%s), %u SMs, warp %u\n", g_backend, g_info->name,
          g_info->arch, g_info->sm_count, g_info->warp_size);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s <backend> <kernel image> [case...]\n", argv[0]);
    return 2;
  }
  g_backend = argv[1];
  g_image_path = argv[2];
  int setup = cts_setup();
  if (setup) return setup;
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(test_device_info),      TKRT_TEST_CASE(test_lookup_unknown_kernel),
      TKRT_TEST_CASE(test_corrupt_image),    TKRT_TEST_CASE(test_launch_add),
      TKRT_TEST_CASE(test_launch_grid_3d),   TKRT_TEST_CASE(test_launch_large_shared),
      TKRT_TEST_CASE(test_launch_cluster),   TKRT_TEST_CASE(test_launch_scalars),
      TKRT_TEST_CASE(test_launch_errors),    TKRT_TEST_CASE(test_memory_and_streams),
      TKRT_TEST_CASE(test_events),           TKRT_TEST_CASE(test_graph_capture),
  };
  int result = tkrt_test_main(argc - 2, argv + 2, cases, sizeof(cases) / sizeof(cases[0]));
  tkrt_module_unload(g_module);
  tkrt_device_release(g_device);
  return result;
}
