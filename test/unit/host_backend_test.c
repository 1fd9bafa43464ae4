/* SPDX-License-Identifier: Apache-2.0 */
/* The host backend's own behaviour beyond the conformance suite: loading from memory, kernel
 * signatures, parameter packing, the worker pool, capture rules, handle checks and limits. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "test/harness.h"
#include "tkrt/tkrt.h"

static const char* g_image_path;
static const char* g_image_b_path;

/* Opens the host device with the options the environment gives (TKRT_HOST_THREADS). */
static tkrt_device_t* open_host(void) {
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  EXPECT_OK(tkrt_options_from_environment(&options, NULL));
  options.backend = "host";
  tkrt_device_t* device = NULL;
  tkrt_status_t status = tkrt_device_open(&options, &device);
  if (status) {
    tkrt_test_print_status_(__FILE__, __LINE__, "tkrt_device_open", status);
    tkrt_status_free(status);
    ++tkrt_test_failed_;
  }
  return device;
}

static tkrt_module_t* load_test_kernels(tkrt_device_t* device) {
  size_t size = 0;
  void* bytes = tkrt_test_read_file(g_image_path, &size);
  if (!bytes) return NULL;
  tkrt_image_t image = {.kind = TKRT_IMAGE_HOST, .data = bytes, .size = size};
  tkrt_module_t* module = NULL;
  tkrt_status_t status = tkrt_module_load(device, &image, &module);
  free(bytes);
  if (status) {
    tkrt_test_print_status_(__FILE__, __LINE__, "tkrt_module_load", status);
    tkrt_status_free(status);
    ++tkrt_test_failed_;
  }
  return module;
}

static size_t count_entries(const char* path) {
  DIR* dir = opendir(path);
  if (!dir) return 0;
  size_t count = 0;
  for (struct dirent* entry; (entry = readdir(dir));) {
    count += strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0;
  }
  closedir(dir);
  return count;
}

static void test_load_from_memory_leaves_no_file(void) {
  /* A private, empty TMPDIR: anything the loader wrote through a temporary file would land there
   * (other processes' files in /tmp must not make this test flaky). */
  char private_tmp[] = "/tmp/tkrt-host-test-XXXXXX";
  ASSERT_TRUE(mkdtemp(private_tmp) != NULL);
  const char* saved = getenv("TMPDIR");
  char* saved_copy = saved ? strdup(saved) : NULL;
  setenv("TMPDIR", private_tmp, 1);
  tkrt_device_t* device = open_host();
  tkrt_module_t* module = device ? load_test_kernels(device) : NULL;
  EXPECT_TRUE(module != NULL);
  EXPECT_EQ_U64(count_entries(private_tmp), 0);
  /* The image is mapped from an anonymous memfd, which no directory lists. */
  FILE* file = fopen("/proc/self/maps", "r");
  char line[512];
  int found = 0;
  while (file && fgets(line, sizeof(line), file)) found |= strstr(line, "memfd:tkrt-host-image") != NULL;
  if (file) fclose(file);
  EXPECT_TRUE(found);
  tkrt_module_unload(module);
  tkrt_device_release(device);
  if (saved_copy) {
    setenv("TMPDIR", saved_copy, 1);
  } else {
    unsetenv("TMPDIR");
  }
  free(saved_copy);
  rmdir(private_tmp);
}

static void test_wrong_image_kinds(void) {
  tkrt_device_t* device = open_host();
  ASSERT_TRUE(device != NULL);
  tkrt_module_t* module = NULL;
  const char ptx[] = ".version 8.7\n.target sm_90a\n.address_size 64\n";
  tkrt_image_t image = {.kind = TKRT_IMAGE_AUTO, .data = ptx, .size = sizeof(ptx) - 1};
  EXPECT_STATUS(tkrt_module_load(device, &image, &module), TKRT_STATUS_INVALID_ARGUMENT, "not ptx");
  unsigned char elf[128];
  memset(elf, 0, sizeof(elf));
  memcpy(elf, "\x7f" "ELF", 4);
  elf[4] = 2;
  elf[5] = 1;
  elf[16] = 2;   /* ET_EXEC */
  elf[18] = 190; /* EM_CUDA: detected as a cubin */
  image = (tkrt_image_t){.kind = TKRT_IMAGE_AUTO, .data = elf, .size = sizeof(elf)};
  EXPECT_STATUS(tkrt_module_load(device, &image, &module), TKRT_STATUS_INVALID_ARGUMENT, "not cubin");
  image.kind = TKRT_IMAGE_HOST; /* forced: the machine check catches it */
  EXPECT_STATUS(tkrt_module_load(device, &image, &module), TKRT_STATUS_INVALID_ARGUMENT,
                "machine 190 (NVIDIA CUDA)");
#if defined(__x86_64__)
  elf[18] = 62;
  EXPECT_STATUS(tkrt_module_load(device, &image, &module), TKRT_STATUS_INVALID_ARGUMENT, "ET_DYN");
  elf[16] = 3; /* ET_DYN, but no program headers */
  EXPECT_STATUS(tkrt_module_load(device, &image, &module), TKRT_STATUS_INVALID_ARGUMENT,
                "truncated or corrupt");
#endif
  EXPECT_TRUE(module == NULL);
  tkrt_device_release(device);
}

static void test_signatures_and_packing(void) {
  tkrt_device_t* device = open_host();
  ASSERT_TRUE(device != NULL);
  tkrt_module_t* module = load_test_kernels(device);
  ASSERT_TRUE(module != NULL);
  tkrt_function_t* fn = NULL;
  EXPECT_STATUS(tkrt_module_get_function(module, "bad_signature", &fn),
                TKRT_STATUS_INVALID_ARGUMENT, "unknown type 'complex64' at parameter 1");
  ASSERT_OK(tkrt_module_get_function(module, "mixed_sizes", &fn));
  tkrt_deviceptr_t out = 0;
  ASSERT_OK(tkrt_memory_alloc(device, 3 * 8, &out));
  uint8_t flag = 1;
  uint16_t half = 0x3C00;
  int8_t small = -5;
  void* params[] = {&flag, &half, &out, &small};
  tkrt_launch_params_t p = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .params = params,
                            .param_count = 3};
  EXPECT_STATUS(tkrt_launch(fn, &p, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "declares 4 parameters (i1,fp16,*u64,i8) but 3 were given");
  p.param_count = 4;
  EXPECT_OK(tkrt_launch(fn, &p, NULL));
  uint64_t values[3] = {0};
  EXPECT_OK(tkrt_memcpy_dtoh_async(device, values, out, sizeof(values), NULL));
  EXPECT_OK(tkrt_stream_synchronize(device, NULL));
  EXPECT_EQ_U64(values[0], 1);
  EXPECT_EQ_U64(values[1], 0x3C00);
  EXPECT_EQ_U64(values[2], (uint64_t)(int64_t)-5);
  EXPECT_OK(tkrt_memory_free(device, out));
  tkrt_module_unload(module);
  tkrt_device_release(device);
}

static void test_static_shared_memory(void) {
  tkrt_device_t* device = open_host();
  ASSERT_TRUE(device != NULL);
  tkrt_module_t* module = load_test_kernels(device);
  ASSERT_TRUE(module != NULL);
  tkrt_function_t* fn = NULL;
  ASSERT_OK(tkrt_module_get_function(module, "static_shared", &fn));
  tkrt_function_attrs_t attrs;
  ASSERT_OK(tkrt_function_get_attrs(fn, &attrs));
  EXPECT_EQ_U64(attrs.static_shared_bytes, 4096);
  EXPECT_EQ_U64(attrs.max_dynamic_shared_bytes, 48 * 1024 - 4096);
  const tkrt_device_info_t* info = tkrt_device_info(device);
  EXPECT_STATUS(tkrt_function_set_max_dynamic_shared(fn, info->max_shared_per_block_optin - 4095),
                TKRT_STATUS_OUT_OF_RANGE, "minus 4096 bytes of static shared memory");
  tkrt_deviceptr_t out = 0;
  ASSERT_OK(tkrt_memory_alloc(device, 4 * 4, &out));
  void* params[] = {&out};
  tkrt_launch_params_t p = {.grid = {4, 1, 1}, .block = {32, 1, 1}, .shared_mem_bytes = 100000,
                            .params = params, .param_count = 1};
  EXPECT_OK(tkrt_launch(fn, &p, NULL));
  uint32_t values[4];
  EXPECT_OK(tkrt_memcpy_dtoh_async(device, values, out, sizeof(values), NULL));
  EXPECT_OK(tkrt_stream_synchronize(device, NULL));
  for (int i = 0; i < 4; ++i) EXPECT_EQ_U64(values[i], 4096 + 100000);
  /* Static plus dynamic past the opt-in limit is refused before running. */
  p.shared_mem_bytes = info->max_shared_per_block_optin - 100;
  EXPECT_STATUS(tkrt_launch(fn, &p, NULL), TKRT_STATUS_OUT_OF_RANGE, NULL);
  EXPECT_OK(tkrt_memory_free(device, out));
  tkrt_module_unload(module);
  tkrt_device_release(device);
}

static void run_squares(tkrt_device_t* device, tkrt_function_t* fn, uint64_t* host, int64_t n) {
  tkrt_deviceptr_t out = 0;
  ASSERT_OK(tkrt_memory_alloc(device, (size_t)n * 8, &out));
  EXPECT_OK(tkrt_memset_async(device, out, 0, (size_t)n * 8, NULL));
  void* params[] = {&out, &n};
  tkrt_launch_params_t p = {.grid = {1000, (uint32_t)((n + 999) / 1000), 1}, .block = {32, 1, 1},
                            .params = params, .param_count = 2};
  EXPECT_OK(tkrt_launch(fn, &p, NULL));
  EXPECT_OK(tkrt_memcpy_dtoh_async(device, host, out, (size_t)n * 8, NULL));
  EXPECT_OK(tkrt_stream_synchronize(device, NULL));
  EXPECT_OK(tkrt_memory_free(device, out));
}

static void test_many_programs_deterministic(void) {
  const int64_t n = 300000;
  uint64_t* first = calloc((size_t)n, 8);
  uint64_t* second = calloc((size_t)n, 8);
  ASSERT_TRUE(first && second);
  for (int threads = 0; threads < 2; ++threads) {
    if (threads) setenv("TKRT_HOST_THREADS", "1", 1);
    tkrt_device_t* device = open_host();
    if (!device) break;
    if (threads) EXPECT_EQ_U64(tkrt_device_info(device)->sm_count, 1);
    tkrt_module_t* module = load_test_kernels(device);
    tkrt_function_t* fn = NULL;
    if (module) EXPECT_OK(tkrt_module_get_function(module, "squares", &fn));
    if (fn) run_squares(device, fn, threads ? second : first, n);
    tkrt_module_unload(module);
    tkrt_device_release(device);
  }
  unsetenv("TKRT_HOST_THREADS");
  /* A value that is not a count is refused, not replaced. */
  setenv("TKRT_HOST_THREADS", "lots", 1);
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  EXPECT_STATUS(tkrt_options_from_environment(&options, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "TKRT_HOST_THREADS is 'lots'");
  /* The same count through the options, out of range, is refused by the backend. */
  options.backend = "host";
  options.host_threads = 1000;
  tkrt_device_t* refused = NULL;
  EXPECT_STATUS(tkrt_device_open(&options, &refused), TKRT_STATUS_INVALID_ARGUMENT,
                "host_threads is 1000");
  unsetenv("TKRT_HOST_THREADS");
  size_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += first[i] != (uint64_t)(i * i) || second[i] != first[i];
  EXPECT_EQ_U64(wrong, 0);
  free(first);
  free(second);
}

static void test_events_time_real_work(void) {
  tkrt_device_t* device = open_host();
  ASSERT_TRUE(device != NULL);
  tkrt_module_t* module = load_test_kernels(device);
  tkrt_function_t* fn = NULL;
  if (module) EXPECT_OK(tkrt_module_get_function(module, "spin", &fn));
  tkrt_event_t start = NULL, end = NULL;
  EXPECT_OK(tkrt_event_create(device, &start));
  EXPECT_OK(tkrt_event_create(device, &end));
  if (fn && start && end) {
    uint32_t micros = 20000;
    void* params[] = {&micros};
    tkrt_launch_params_t p = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .params = params,
                              .param_count = 1};
    EXPECT_OK(tkrt_event_record(device, start, NULL));
    EXPECT_OK(tkrt_launch(fn, &p, NULL));
    EXPECT_OK(tkrt_event_record(device, end, NULL));
    EXPECT_OK(tkrt_event_synchronize(device, end));
    float ms = 0;
    EXPECT_OK(tkrt_event_elapsed_ms(device, start, end, &ms));
    EXPECT_TRUE(ms >= 19.0f && ms < 10000.0f);
    fprintf(stderr, "  20 ms of spinning measured as %.3f ms\n", ms);
  }
  EXPECT_OK(tkrt_event_destroy(device, start));
  EXPECT_OK(tkrt_event_destroy(device, end));
  tkrt_module_unload(module);
  tkrt_device_release(device);
}

static void test_capture_rules(void) {
  tkrt_device_t* device = open_host();
  ASSERT_TRUE(device != NULL);
  tkrt_stream_t stream = NULL;
  ASSERT_OK(tkrt_stream_create(device, &stream));
  tkrt_graph_t* graph = NULL;
  EXPECT_STATUS(tkrt_stream_end_capture(device, stream, &graph), TKRT_STATUS_FAILED_PRECONDITION,
                "not capturing");
  EXPECT_STATUS(tkrt_stream_begin_capture(device, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "default stream");
  ASSERT_OK(tkrt_stream_begin_capture(device, stream));
  EXPECT_STATUS(tkrt_stream_begin_capture(device, stream), TKRT_STATUS_FAILED_PRECONDITION,
                "already capturing");
  tkrt_deviceptr_t ptr = 0;
  EXPECT_STATUS(tkrt_memory_alloc(device, 64, &ptr), TKRT_STATUS_FAILED_PRECONDITION, "capturing");
  void* pinned = NULL;
  EXPECT_STATUS(tkrt_host_alloc(device, 64, &pinned), TKRT_STATUS_FAILED_PRECONDITION, "capturing");
  size_t size = 0;
  void* bytes = tkrt_test_read_file(g_image_path, &size);
  tkrt_image_t image = {.kind = TKRT_IMAGE_HOST, .data = bytes, .size = size};
  tkrt_module_t* module = NULL;
  EXPECT_STATUS(tkrt_module_load(device, &image, &module), TKRT_STATUS_FAILED_PRECONDITION,
                "capturing");
  EXPECT_STATUS(tkrt_stream_synchronize(device, stream), TKRT_STATUS_FAILED_PRECONDITION,
                "capturing");
  EXPECT_OK(tkrt_stream_end_capture(device, stream, &graph));
  EXPECT_OK(tkrt_graph_destroy(device, graph));
  /* After capture everything is allowed again. */
  EXPECT_OK(tkrt_memory_alloc(device, 64, &ptr));
  EXPECT_OK(tkrt_memory_free(device, ptr));
  /* A stream destroyed mid-capture releases its graph and the device's capture state. */
  ASSERT_OK(tkrt_stream_begin_capture(device, stream));
  EXPECT_OK(tkrt_memset_async(device, 0x1000, 0, 16, stream)); /* recorded, never run */
  EXPECT_OK(tkrt_stream_destroy(device, stream));
  EXPECT_OK(tkrt_module_load(device, &image, &module));
  tkrt_module_unload(module);
  free(bytes);
  tkrt_device_release(device);
}

static void test_handles_and_frees_are_checked(void) {
  tkrt_device_t* a = open_host();
  tkrt_device_t* b = open_host();
  ASSERT_TRUE(a && b);
  tkrt_stream_t stream = NULL;
  tkrt_event_t event = NULL;
  EXPECT_OK(tkrt_stream_create(a, &stream));
  EXPECT_OK(tkrt_event_create(a, &event));
  EXPECT_STATUS(tkrt_stream_synchronize(b, stream), TKRT_STATUS_INVALID_ARGUMENT,
                "not a live stream of this host device");
  EXPECT_STATUS(tkrt_event_record(b, event, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "not a live event of this host device");
  tkrt_deviceptr_t ptr = 0;
  ASSERT_OK(tkrt_memory_alloc(a, 4096, &ptr));
  EXPECT_TRUE(ptr % 256 == 0);
  EXPECT_STATUS(tkrt_memory_free(a, ptr + 8), TKRT_STATUS_INVALID_ARGUMENT, "not the start");
  EXPECT_OK(tkrt_memset_async(a, ptr, 0, 4096, NULL));
  EXPECT_OK(tkrt_stream_synchronize(a, NULL));
  EXPECT_STATUS(tkrt_memory_free(a, ptr + 256), TKRT_STATUS_INVALID_ARGUMENT,
                "not allocated by the host backend");
  EXPECT_OK(tkrt_memory_free(a, ptr));
  EXPECT_STATUS(tkrt_stream_destroy(a, NULL), TKRT_STATUS_INVALID_ARGUMENT, "default stream");
  EXPECT_OK(tkrt_event_destroy(a, event));
  /* `stream` is left for device destruction to drain and free. */
  tkrt_device_release(a);
  tkrt_device_release(b);
}

/* Stream handles are looked up, never dereferenced: an arbitrary integer (what Python's
 * `stream=12345` passes) and a destroyed stream's handle are refused by name; NULL is the default
 * stream. Under ASan a dereference of either would be reported; without it, 12345 crashed. */
static void test_unknown_stream_handles_are_refused(void) {
  tkrt_device_t* device = open_host();
  ASSERT_TRUE(device != NULL);
  tkrt_module_t* module = load_test_kernels(device);
  ASSERT_TRUE(module != NULL);
  tkrt_function_t* fn = NULL;
  ASSERT_OK(tkrt_module_get_function(module, "squares", &fn));
  int64_t n = 64;
  tkrt_deviceptr_t out = 0;
  ASSERT_OK(tkrt_memory_alloc(device, (size_t)n * 8, &out));
  ASSERT_OK(tkrt_memset_async(device, out, 0xff, (size_t)n * 8, NULL));
  ASSERT_OK(tkrt_stream_synchronize(device, NULL)); /* streams do not order with each other */
  void* params[] = {&out, &n};
  tkrt_launch_params_t p = {.grid = {(uint32_t)n, 1, 1}, .block = {32, 1, 1}, .params = params,
                            .param_count = 2};

  tkrt_stream_t bogus = (tkrt_stream_t)(uintptr_t)12345;
  EXPECT_STATUS(tkrt_launch(fn, &p, bogus), TKRT_STATUS_INVALID_ARGUMENT,
                "stream 0x3039 (12345) is not a live stream of this host device");
  EXPECT_STATUS(tkrt_memset_async(device, out, 0, 8, bogus), TKRT_STATUS_INVALID_ARGUMENT,
                "(12345) is not a live stream");
  EXPECT_STATUS(tkrt_stream_synchronize(device, bogus), TKRT_STATUS_INVALID_ARGUMENT,
                "(12345) is not a live stream");
  EXPECT_STATUS(tkrt_stream_destroy(device, bogus), TKRT_STATUS_INVALID_ARGUMENT,
                "(12345) is not a live stream");
  /* A pointer into live memory that is not a stream (here a device allocation) is refused too. */
  EXPECT_STATUS(tkrt_launch(fn, &p, (tkrt_stream_t)(uintptr_t)out), TKRT_STATUS_INVALID_ARGUMENT,
                "is not a live stream");

  /* A destroyed stream's handle: refused, without touching the freed stream. */
  tkrt_stream_t stream = NULL;
  ASSERT_OK(tkrt_stream_create(device, &stream));
  EXPECT_OK(tkrt_launch(fn, &p, stream));
  EXPECT_OK(tkrt_stream_synchronize(device, stream));
  EXPECT_OK(tkrt_stream_destroy(device, stream));
  EXPECT_STATUS(tkrt_launch(fn, &p, stream), TKRT_STATUS_INVALID_ARGUMENT, "not a live stream");
  EXPECT_STATUS(tkrt_stream_synchronize(device, stream), TKRT_STATUS_INVALID_ARGUMENT,
                "not a live stream");
  EXPECT_STATUS(tkrt_stream_destroy(device, stream), TKRT_STATUS_INVALID_ARGUMENT,
                "not a live stream");
  tkrt_event_t event = NULL;
  ASSERT_OK(tkrt_event_create(device, &event));
  EXPECT_STATUS(tkrt_event_record(device, event, stream), TKRT_STATUS_INVALID_ARGUMENT,
                "not a live stream");
  EXPECT_OK(tkrt_event_destroy(device, event));

  /* Nothing ran from the refused calls; NULL, the default stream, still works. */
  uint64_t values[64];
  ASSERT_OK(tkrt_memset_async(device, out, 0, (size_t)n * 8, NULL));
  EXPECT_OK(tkrt_launch(fn, &p, NULL));
  EXPECT_OK(tkrt_memcpy_dtoh_async(device, values, out, sizeof(values), NULL));
  EXPECT_OK(tkrt_stream_synchronize(device, NULL));
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ_U64(values[i], (uint64_t)(i * i));
  EXPECT_OK(tkrt_memory_free(device, out));
  tkrt_module_unload(module);
  tkrt_device_release(device);
}

static void test_device_limits(void) {
  tkrt_device_t* device = open_host();
  ASSERT_TRUE(device != NULL);
  const tkrt_device_info_t* info = tkrt_device_info(device);
  EXPECT_EQ_U64(info->warp_size, 32);
  EXPECT_EQ_U64(info->max_grid_dim[0], 2147483647u);
  EXPECT_EQ_U64(info->max_grid_dim[1], 65535);
  EXPECT_EQ_U64(info->max_grid_dim[2], 65535);
  EXPECT_EQ_U64(info->max_shared_per_block, 48 * 1024);
  EXPECT_EQ_U64(info->max_shared_per_block_optin, 227 * 1024);
  EXPECT_EQ_U64(info->max_cluster_size, 8);
  EXPECT_TRUE(info->features & TKRT_DEVICE_FEATURE_GRAPHS);
  tkrt_device_release(device);
}

static void test_same_kernel_name_in_two_images(void) {
  tkrt_device_t* device = open_host();
  ASSERT_TRUE(device != NULL);
  size_t size_b = 0;
  void* bytes_b = tkrt_test_read_file(g_image_b_path, &size_b);
  ASSERT_TRUE(bytes_b != NULL);
  tkrt_deviceptr_t out = 0;
  ASSERT_OK(tkrt_memory_alloc(device, 4, &out));
  /* Load, unload and load again, so a reused path or file descriptor would show. */
  for (int round = 0; round < 2; ++round) {
    tkrt_module_t* a = load_test_kernels(device);
    tkrt_image_t image_b = {.kind = TKRT_IMAGE_HOST, .data = bytes_b, .size = size_b};
    tkrt_module_t* b = NULL;
    EXPECT_OK(tkrt_module_load(device, &image_b, &b));
    tkrt_module_t* modules[2] = {a, b};
    for (int m = 0; m < 2 && a && b; ++m) {
      tkrt_function_t* fn = NULL;
      EXPECT_OK(tkrt_module_get_function(modules[m], "which_image", &fn));
      void* params[] = {&out};
      tkrt_launch_params_t p = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .params = params,
                                .param_count = 1};
      uint32_t value = 0;
      if (fn) EXPECT_OK(tkrt_launch(fn, &p, NULL));
      EXPECT_OK(tkrt_memcpy_dtoh_async(device, &value, out, 4, NULL));
      EXPECT_OK(tkrt_stream_synchronize(device, NULL));
      EXPECT_EQ_U64(value, (uint64_t)m + 1);
    }
    tkrt_module_unload(a);
    tkrt_module_unload(b);
  }
  EXPECT_OK(tkrt_memory_free(device, out));
  free(bytes_b);
  tkrt_device_release(device);
}

/* ---------------------------------------------------------------- file descriptors (D10) */

/* The process's open descriptors (its /proc/self/fd entries, less the one listing them). */
static size_t count_open_descriptors(void) {
  size_t entries = count_entries("/proc/self/fd");
  return entries > 0 ? entries - 1 : 0;
}

/* Runs which_image of `module`: 1 for the first test image, 2 for the second. */
static uint32_t which_image(tkrt_device_t* device, tkrt_module_t* module, tkrt_deviceptr_t out) {
  tkrt_function_t* fn = NULL;
  EXPECT_OK(tkrt_module_get_function(module, "which_image", &fn));
  if (!fn) return 0;
  void* params[] = {&out};
  tkrt_launch_params_t p = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .params = params,
                            .param_count = 1};
  uint32_t value = 0;
  EXPECT_OK(tkrt_memset_async(device, out, 0, 4, NULL));
  EXPECT_OK(tkrt_launch(fn, &p, NULL));
  EXPECT_OK(tkrt_memcpy_dtoh_async(device, &value, out, 4, NULL));
  EXPECT_OK(tkrt_stream_synchronize(device, NULL));
  return value;
}

/* A loaded module holds no file descriptor: under a soft limit of a few dozen descriptors, 200
 * modules (the two test images in turn) all load and each runs its own code, and the count of
 * open descriptors is the same before and after. Each module used to keep its memfd open, so a
 * call with ~1020 host-image configs ran out under the default limit of 1024. */
static void test_loaded_modules_hold_no_descriptor(void) {
  enum { kModules = 200 };
  tkrt_device_t* device = open_host();
  ASSERT_TRUE(device != NULL);
  size_t size[2] = {0, 0};
  void* bytes[2] = {tkrt_test_read_file(g_image_path, &size[0]),
                    tkrt_test_read_file(g_image_b_path, &size[1])};
  ASSERT_TRUE(bytes[0] && bytes[1]);
  tkrt_deviceptr_t out = 0;
  ASSERT_OK(tkrt_memory_alloc(device, 4, &out));
  struct rlimit saved;
  ASSERT_TRUE(getrlimit(RLIMIT_NOFILE, &saved) == 0);
  size_t before = count_open_descriptors();
  struct rlimit low = saved;
  low.rlim_cur = before + 32 < kModules / 2 ? before + 32 : kModules / 2; /* far below kModules */
  ASSERT_TRUE(low.rlim_cur <= saved.rlim_max);
  ASSERT_TRUE(setrlimit(RLIMIT_NOFILE, &low) == 0);
  tkrt_module_t** modules = calloc(kModules, sizeof(*modules));
  ASSERT_TRUE(modules != NULL);
  size_t loaded = 0;
  for (int i = 0; i < kModules; ++i) {
    tkrt_image_t image = {.kind = TKRT_IMAGE_HOST, .data = bytes[i % 2], .size = size[i % 2]};
    EXPECT_OK(tkrt_module_load(device, &image, &modules[i]));
    loaded += modules[i] != NULL;
  }
  EXPECT_EQ_U64(loaded, kModules);
  EXPECT_EQ_U64(count_open_descriptors(), before);
  /* Every module runs its own image's code (distinct paths: no module answered for another). */
  size_t right = 0;
  for (int i = 0; i < kModules; ++i) {
    if (modules[i]) right += which_image(device, modules[i], out) == (uint32_t)(i % 2 + 1);
  }
  EXPECT_EQ_U64(right, kModules);
  for (int i = 0; i < kModules; ++i) tkrt_module_unload(modules[i]);
  EXPECT_EQ_U64(count_open_descriptors(), before);
  free(modules);
  EXPECT_TRUE(setrlimit(RLIMIT_NOFILE, &saved) == 0);
  EXPECT_OK(tkrt_memory_free(device, out));
  free(bytes[0]);
  free(bytes[1]);
  tkrt_device_release(device);
}

/* Out of descriptors is RESOURCE_EXHAUSTED, whichever step runs out: none free (memfd_create),
 * one free (dlopen's own open); with two free, loads succeed again and again (none is kept). */
static void test_out_of_descriptors_is_resource_exhausted(void) {
  tkrt_device_t* device = open_host();
  ASSERT_TRUE(device != NULL);
  size_t size = 0;
  void* bytes = tkrt_test_read_file(g_image_path, &size);
  ASSERT_TRUE(bytes != NULL);
  tkrt_deviceptr_t out = 0;
  ASSERT_OK(tkrt_memory_alloc(device, 4, &out));
  struct rlimit saved;
  ASSERT_TRUE(getrlimit(RLIMIT_NOFILE, &saved) == 0);
  struct rlimit low = saved;
  low.rlim_cur = count_open_descriptors() + 64;
  ASSERT_TRUE(low.rlim_cur <= saved.rlim_max);
  ASSERT_TRUE(setrlimit(RLIMIT_NOFILE, &low) == 0);
  /* Fill every free descriptor. */
  int fillers[256];
  size_t filled = 0;
  for (; filled < sizeof(fillers) / sizeof(fillers[0]); ++filled) {
    fillers[filled] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fillers[filled] < 0) break;
  }
  int error = errno;
  EXPECT_TRUE(filled > 0 && filled < sizeof(fillers) / sizeof(fillers[0]) && error == EMFILE);
  tkrt_image_t image = {.kind = TKRT_IMAGE_HOST, .data = bytes, .size = size};
  tkrt_module_t* module = NULL;
  EXPECT_STATUS(tkrt_module_load(device, &image, &module), TKRT_STATUS_RESOURCE_EXHAUSTED,
                "memfd_create failed: Too many open files");
  EXPECT_TRUE(filled >= 2);
  if (filled >= 2) {
    close(fillers[--filled]); /* one free: the memfd takes it, dlopen finds none */
    EXPECT_STATUS(tkrt_module_load(device, &image, &module), TKRT_STATUS_RESOURCE_EXHAUSTED,
                  "out of file descriptors");
    close(fillers[--filled]); /* two free: enough, and each load gives both back */
    tkrt_module_t* modules[20] = {NULL};
    for (int i = 0; i < 20; ++i) EXPECT_OK(tkrt_module_load(device, &image, &modules[i]));
    for (int i = 0; i < 20; ++i) {
      if (modules[i]) EXPECT_EQ_U64(which_image(device, modules[i], out), 1);
      tkrt_module_unload(modules[i]);
    }
  }
  EXPECT_TRUE(module == NULL);
  while (filled > 0) close(fillers[--filled]);
  EXPECT_TRUE(setrlimit(RLIMIT_NOFILE, &saved) == 0);
  EXPECT_OK(tkrt_memory_free(device, out));
  free(bytes);
  tkrt_device_release(device);
}

static void test_event_recorded_on_two_streams(void) {
  /* The older record (on a busy stream) runs after the newer one: the event must outlive both
   * and keep the newer record's time. */
  tkrt_device_t* device = open_host();
  ASSERT_TRUE(device != NULL);
  tkrt_module_t* module = load_test_kernels(device);
  tkrt_function_t* spin = NULL;
  if (module) EXPECT_OK(tkrt_module_get_function(module, "spin", &spin));
  tkrt_stream_t busy = NULL, idle = NULL;
  tkrt_event_t event = NULL;
  EXPECT_OK(tkrt_stream_create(device, &busy));
  EXPECT_OK(tkrt_stream_create(device, &idle));
  EXPECT_OK(tkrt_event_create(device, &event));
  if (spin && busy && idle && event) {
    uint32_t micros = 30000;
    void* params[] = {&micros};
    tkrt_launch_params_t p = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .params = params,
                              .param_count = 1};
    EXPECT_OK(tkrt_launch(spin, &p, busy));
    EXPECT_OK(tkrt_event_record(device, event, busy));
    EXPECT_OK(tkrt_event_record(device, event, idle));
    EXPECT_OK(tkrt_event_synchronize(device, event));
    EXPECT_OK(tkrt_event_destroy(device, event)); /* waits for the busy stream's record */
    EXPECT_OK(tkrt_stream_synchronize(device, busy));
  }
  EXPECT_OK(tkrt_stream_destroy(device, busy));
  EXPECT_OK(tkrt_stream_destroy(device, idle));
  tkrt_module_unload(module);
  tkrt_device_release(device);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s <host test kernels image> <second image> [case...]\n", argv[0]);
    return 2;
  }
  g_image_path = argv[1];
  g_image_b_path = argv[2];
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(test_load_from_memory_leaves_no_file),
      TKRT_TEST_CASE(test_wrong_image_kinds),
      TKRT_TEST_CASE(test_signatures_and_packing),
      TKRT_TEST_CASE(test_static_shared_memory),
      TKRT_TEST_CASE(test_many_programs_deterministic),
      TKRT_TEST_CASE(test_events_time_real_work),
      TKRT_TEST_CASE(test_capture_rules),
      TKRT_TEST_CASE(test_handles_and_frees_are_checked),
      TKRT_TEST_CASE(test_unknown_stream_handles_are_refused),
      TKRT_TEST_CASE(test_device_limits),
      TKRT_TEST_CASE(test_same_kernel_name_in_two_images),
      TKRT_TEST_CASE(test_event_recorded_on_two_streams),
      TKRT_TEST_CASE(test_loaded_modules_hold_no_descriptor),
      TKRT_TEST_CASE(test_out_of_descriptors_is_resource_exhausted),
  };
  return tkrt_test_main(argc - 2, argv + 2, cases, sizeof(cases) / sizeof(cases[0]));
}
