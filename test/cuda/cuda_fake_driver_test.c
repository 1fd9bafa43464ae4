/* SPDX-License-Identifier: Apache-2.0 */
/* The CUDA backend end to end against fake_libcuda.c (a stand-in libcuda.so.1 found through
 * LD_LIBRARY_PATH): driver loading, device info, PTX JIT and the disk cache across processes,
 * error mapping, shared-memory limits, launch paths, capture and graphs. No GPU needed.
 * CTest runs one process per FAKE_CUDA_MODE, selecting the cases that fit the mode. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/cuda/cuda_cache.h"
#include "backends/cuda/cuda_internal.h"
#include "harness.h"
#include "tkrt/device.h"
#include "tkrt/environment.h"

#include "fake_libcuda.h"

enum { FAKE_STATIC_SHARED = 1024, FAKE_OPTIN = 232448 };

static const char kPtx[] =
    "//\n.version 8.7\n.target sm_90a\n.address_size 64\n"
    ".visible .entry add_kernel(\n\t.param .u64 p0\n)\n{\n\tret;\n}\n"
    ".visible .entry other_kernel(\n)\n{\n\tret;\n}\n";

static char cache_root[256];

static void use_fresh_cache(void) {
  if (!cache_root[0]) {
    snprintf(cache_root, sizeof(cache_root), "/tmp/tkrt_cuda_fake_XXXXXX");
    if (!mkdtemp(cache_root)) cache_root[0] = '\0';
  }
  setenv("TKRT_CACHE_DIR", cache_root, 1);
}

static tkrt_cuda_fake_counters_t* counters(void) {
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!library) return NULL;
  tkrt_cuda_fake_counters_t* (*get)(void) =
      (tkrt_cuda_fake_counters_t * (*)(void)) dlsym(library, "tkrt_cuda_fake_counters");
  dlclose(library); /* drops only the NOLOAD reference */
  return get ? get() : NULL;
}

/* The cache folder comes from TKRT_CACHE_DIR, the way the tools pass it. */
static tkrt_status_t open_cuda(tkrt_device_t** out_device) {
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  TKRT_RETURN_IF_ERROR(tkrt_options_from_environment(&options, NULL));
  options.backend = "cuda";
  return tkrt_device_open(&options, out_device);
}

static tkrt_status_t load_ptx(tkrt_device_t* device, const char* text, tkrt_module_t** out) {
  /* Deliberately not NUL-terminated: the backend must terminate its own copy. */
  tkrt_image_t image = {.kind = TKRT_IMAGE_PTX, .data = text, .size = strlen(text)};
  return tkrt_module_load(device, &image, out);
}

/* ---------------------------------------------------------------- default mode */

static void device_info_is_filled(void) {
  tkrt_device_t* device = NULL;
  ASSERT_OK(open_cuda(&device));
  const tkrt_device_info_t* info = tkrt_device_info(device);
  EXPECT_STREQ(info->backend, "cuda");
  EXPECT_STREQ(info->name, "Fake H100 (tkrt test driver)");
  EXPECT_STREQ(info->arch, "sm_90");
  EXPECT_EQ_U64(info->cc_major, 9);
  EXPECT_EQ_U64(info->warp_size, 32);
  EXPECT_EQ_U64(info->sm_count, 132);
  EXPECT_EQ_U64(info->max_grid_dim[1], 65535);
  EXPECT_EQ_U64(info->max_shared_per_block, 49152);
  EXPECT_EQ_U64(info->max_shared_per_block_optin, FAKE_OPTIN);
  EXPECT_EQ_U64(info->max_cluster_size, 8);
  EXPECT_EQ_U64(info->total_memory, (uint64_t)80 << 30);
  EXPECT_EQ_U64(info->driver_version, 13000);
  EXPECT_EQ_U64(info->features, TKRT_DEVICE_FEATURE_CLUSTER | TKRT_DEVICE_FEATURE_COOPERATIVE |
                                    TKRT_DEVICE_FEATURE_PDL | TKRT_DEVICE_FEATURE_TMA |
                                    TKRT_DEVICE_FEATURE_GRAPHS);
  tkrt_cuda_fake_counters_t* fake = counters();
  ASSERT_TRUE(fake != NULL);
  EXPECT_EQ_U64(fake->primary_retained, 1);
  tkrt_device_release(device);
  EXPECT_EQ_U64(fake->primary_retained, 0);

  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  options.backend = "cuda";
  options.ordinal = 1;
  EXPECT_STATUS(tkrt_device_open(&options, &device), TKRT_STATUS_OUT_OF_RANGE, "1 device is");
}

/* The child of the cross-process check: exits 0 when its load hit the cache without a JIT. */
static int child_loads_from_cache(void) {
  tkrt_device_t* device = NULL;
  tkrt_module_t* module = NULL;
  if (tkrt_status_consume_code(open_cuda(&device))) return 10;
  tkrt_cuda_module_stats_t before, after;
  tkrt_cuda_module_stats(&before);
  tkrt_cuda_fake_counters_t* fake = counters();
  int jit_before = fake ? fake->jit_compiles : -1;
  int rc = tkrt_status_consume_code(load_ptx(device, kPtx, &module)) ? 11 : 0;
  tkrt_cuda_module_stats(&after);
  if (!rc && after.cache_hits != before.cache_hits + 1) rc = 12;
  if (!rc && (!fake || fake->jit_compiles != jit_before)) rc = 13;
  tkrt_module_unload(module);
  tkrt_device_release(device);
  return rc;
}

static void ptx_jit_is_cached_across_processes(void) {
  use_fresh_cache();
  tkrt_device_t* device = NULL;
  ASSERT_OK(open_cuda(&device));
  tkrt_cuda_fake_counters_t* fake = counters();
  ASSERT_TRUE(fake != NULL);
  tkrt_cuda_module_stats_t stats0, stats1, stats2;
  tkrt_cuda_module_stats(&stats0);
  int jit0 = fake->jit_compiles;

  tkrt_module_t* module = NULL;
  ASSERT_OK(load_ptx(device, kPtx, &module));
  tkrt_cuda_module_stats(&stats1);
  EXPECT_EQ_U64(fake->jit_compiles, jit0 + 1);
  EXPECT_EQ_U64(stats1.cache_misses, stats0.cache_misses + 1);
  EXPECT_EQ_U64(stats1.jit_compiles, stats0.jit_compiles + 1);
  tkrt_function_t* function = NULL;
  EXPECT_OK(tkrt_module_get_function(module, "other_kernel", &function));
  tkrt_module_unload(module);

  /* The same PTX with a trailing NUL is the same text and the same entry. */
  tkrt_image_t terminated = {.kind = TKRT_IMAGE_PTX, .data = kPtx, .size = sizeof(kPtx)};
  ASSERT_OK(tkrt_module_load(device, &terminated, &module));
  tkrt_cuda_module_stats(&stats2);
  EXPECT_EQ_U64(stats2.cache_hits, stats1.cache_hits + 1);
  EXPECT_EQ_U64(fake->jit_compiles, jit0 + 1);
  tkrt_module_unload(module);
  tkrt_device_release(device);

  fflush(NULL);
  pid_t child = fork();
  ASSERT_TRUE(child >= 0);
  if (child == 0) _exit(child_loads_from_cache());
  int wstatus = 0;
  ASSERT_TRUE(waitpid(child, &wstatus, 0) == child);
  EXPECT_TRUE(WIFEXITED(wstatus));
  EXPECT_EQ_U64(WEXITSTATUS(wstatus), 0);
}

static void corrupt_cache_entry_is_rebuilt(void) {
  use_fresh_cache();
  tkrt_device_t* device = NULL;
  ASSERT_OK(open_cuda(&device));
  tkrt_cuda_fake_counters_t* fake = counters();
  ASSERT_TRUE(fake != NULL);
  static const char ptx[] = ".version 8.7\n.target sm_90a\n.visible .entry corrupt_me(\n)\n{}\n";
  tkrt_module_t* module = NULL;
  ASSERT_OK(load_ptx(device, ptx, &module));
  tkrt_module_unload(module);

  char dir[512];
  snprintf(dir, sizeof(dir), "%s/cubin", cache_root);
  tkrt_cuda_cache_key_t key;
  tkrt_cuda_cache_key(ptx, strlen(ptx), "sm_90a", 13000, &key);
  char path[1024];
  ASSERT_TRUE(tkrt_cuda_cache_entry_path(dir, &key, path, sizeof(path)) == 0);
  FILE* file = fopen(path, "r+b");
  ASSERT_TRUE(file != NULL);
  fseek(file, -3, SEEK_END);
  fputc('#', file);
  fclose(file);

  tkrt_cuda_module_stats_t before, after;
  tkrt_cuda_module_stats(&before);
  int jit_before = fake->jit_compiles;
  ASSERT_OK(load_ptx(device, ptx, &module)); /* warns once on stderr, JITs, rewrites */
  tkrt_cuda_module_stats(&after);
  EXPECT_EQ_U64(after.cache_corrupt, before.cache_corrupt + 1);
  EXPECT_EQ_U64(fake->jit_compiles, jit_before + 1);
  tkrt_module_unload(module);
  ASSERT_OK(load_ptx(device, ptx, &module)); /* the rebuilt entry hits */
  tkrt_cuda_module_stats(&before);
  EXPECT_EQ_U64(before.cache_hits, after.cache_hits + 1);
  tkrt_module_unload(module);
  tkrt_device_release(device);
}

/* Issue 12: an entry another user could have written (a forged cubin with a valid checksum) is
 * not handed to the driver: the PTX is compiled instead, and the result replaces the entry. */
static void forged_cache_entry_is_not_loaded(void) {
  use_fresh_cache();
  unsetenv("TKRT_TRUST_SHARED_STORES");
  tkrt_device_t* device = NULL;
  ASSERT_OK(open_cuda(&device));
  tkrt_cuda_fake_counters_t* fake = counters();
  ASSERT_TRUE(fake != NULL);
  static const char ptx[] = ".version 8.7\n.target sm_90a\n.visible .entry forged(\n)\n{}\n";
  char dir[512];
  snprintf(dir, sizeof(dir), "%s/cubin", cache_root);
  tkrt_cuda_cache_key_t key;
  tkrt_cuda_cache_key(ptx, strlen(ptx), "sm_90a", 13000, &key);
  char path[1024], why[256];
  ASSERT_TRUE(tkrt_cuda_cache_entry_path(dir, &key, path, sizeof(path)) == 0);
  static const char forged[] = "not the cubin the PTX compiles to";
  ASSERT_TRUE(tkrt_cuda_cache_write(dir, false, &key, forged, sizeof(forged), why, sizeof(why)) == 0);
  ASSERT_TRUE(chmod(path, 0666) == 0); /* as a shared, world-writable cache would have it */

  tkrt_cuda_module_stats_t before, after;
  tkrt_cuda_module_stats(&before);
  int jit_before = fake->jit_compiles;
  tkrt_module_t* module = NULL;
  ASSERT_OK(load_ptx(device, ptx, &module)); /* warns once: not trusted */
  tkrt_cuda_module_stats(&after);
  EXPECT_EQ_U64(after.cache_hits, before.cache_hits);
  EXPECT_EQ_U64(fake->jit_compiles, jit_before + 1);
  tkrt_module_unload(module);
  /* The compiled cubin replaced the forged entry (rename), as this user's own: it hits now. */
  struct stat info;
  EXPECT_TRUE(stat(path, &info) == 0 && (info.st_mode & 0777) == 0644);
  ASSERT_OK(load_ptx(device, ptx, &module));
  tkrt_cuda_module_stats(&before);
  EXPECT_EQ_U64(before.cache_hits, after.cache_hits + 1);
  tkrt_module_unload(module);
  tkrt_device_release(device);
}

static void cache_off_always_compiles(void) {
  setenv("TKRT_CACHE_DIR", "off", 1);
  tkrt_device_t* device = NULL;
  ASSERT_OK(open_cuda(&device));
  tkrt_cuda_fake_counters_t* fake = counters();
  ASSERT_TRUE(fake != NULL);
  int jit_before = fake->jit_compiles;
  for (int i = 0; i < 2; ++i) {
    tkrt_module_t* module = NULL;
    ASSERT_OK(load_ptx(device, kPtx, &module));
    tkrt_module_unload(module);
  }
  EXPECT_EQ_U64(fake->jit_compiles, jit_before + 2);
  tkrt_device_release(device);
  use_fresh_cache();
}

static void load_errors_are_mapped(void) {
  use_fresh_cache();
  tkrt_device_t* device = NULL;
  ASSERT_OK(open_cuda(&device));
  tkrt_module_t* module = NULL;
  static const char bad_ptx[] = ".version 8.7\n.target sm_90a\nSYNTAX_ERROR\n";
  EXPECT_STATUS(load_ptx(device, bad_ptx, &module), TKRT_STATUS_INVALID_ARGUMENT,
                "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed); JIT log: ptxas "
                "application ptx input, line 3; fatal");
  EXPECT_TRUE(module == NULL);

  /* A cubin whose ELF headers do not fit its bytes never reaches the driver, which would
   * trust them (cuModuleLoadData takes no size). */
  static const unsigned char elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x33, [18] = 190};
  tkrt_image_t cubin = {.kind = TKRT_IMAGE_CUBIN, .data = elf, .size = sizeof(elf)};
  EXPECT_STATUS(tkrt_module_load(device, &cubin, &module), TKRT_STATUS_INVALID_ARGUMENT,
                "refusing a malformed cubin image");
  tkrt_image_t hsaco = {.kind = TKRT_IMAGE_HSACO, .data = elf, .size = sizeof(elf)};
  EXPECT_STATUS(tkrt_module_load(device, &hsaco, &module), TKRT_STATUS_INVALID_ARGUMENT,
                "not hsaco");
  /* Bytes that are no image at all, forced to the cubin kind, are refused the same way. */
  static const char image_text[] = "FAKECUBIN\n.entry cubin_kernel(\n)\n";
  tkrt_image_t fake_cubin = {.kind = TKRT_IMAGE_CUBIN, .data = image_text, .size = sizeof(image_text)};
  EXPECT_STATUS(tkrt_module_load(device, &fake_cubin, &module), TKRT_STATUS_INVALID_ARGUMENT,
                "refusing a malformed cubin image");
  EXPECT_TRUE(module == NULL);
  tkrt_device_release(device);
}

static void shared_memory_limits(void) {
  use_fresh_cache();
  tkrt_device_t* device = NULL;
  ASSERT_OK(open_cuda(&device));
  tkrt_cuda_fake_counters_t* fake = counters();
  ASSERT_TRUE(fake != NULL);
  tkrt_module_t* module = NULL;
  ASSERT_OK(load_ptx(device, kPtx, &module));
  tkrt_function_t* function = NULL;
  ASSERT_OK(tkrt_module_get_function(module, "add_kernel", &function));

  tkrt_function_attrs_t attrs;
  ASSERT_OK(tkrt_function_get_attrs(function, &attrs));
  EXPECT_EQ_U64(attrs.static_shared_bytes, FAKE_STATIC_SHARED);
  EXPECT_EQ_U64(attrs.max_dynamic_shared_bytes, 49152 - FAKE_STATIC_SHARED);
  EXPECT_EQ_U64(attrs.num_regs, 40);

  /* One byte over: OUT_OF_RANGE naming the request and the allowance. */
  char needle[160];
  snprintf(needle, sizeof(needle), "%u bytes of dynamic shared memory asked for; the function may "
           "have at most %u", FAKE_OPTIN - FAKE_STATIC_SHARED + 1, FAKE_OPTIN - FAKE_STATIC_SHARED);
  EXPECT_STATUS(tkrt_function_set_max_dynamic_shared(function, FAKE_OPTIN - FAKE_STATIC_SHARED + 1),
                TKRT_STATUS_OUT_OF_RANGE, needle);
  EXPECT_OK(tkrt_function_set_max_dynamic_shared(function, 1000));
  ASSERT_OK(tkrt_function_get_attrs(function, &attrs));
  EXPECT_EQ_U64(attrs.max_dynamic_shared_bytes, 1000);

  /* Launches above the limit raise it once, to the most allowed. */
  void* params[1] = {NULL};
  uint64_t zero = 0;
  params[0] = &zero;
  tkrt_launch_params_t launch = {0, {1, 1, 1}, {128, 1, 1}, {0, 0, 0}, 64 * 1024, 0, params, 1};
  int set_before = fake->func_set_attribute;
  ASSERT_OK(tkrt_launch(function, &launch, NULL));
  EXPECT_EQ_U64(fake->func_set_attribute, set_before + 1);
  EXPECT_EQ_U64(fake->last_func_set_attribute_value, FAKE_OPTIN - FAKE_STATIC_SHARED);
  launch.shared_mem_bytes = 100 * 1024;
  ASSERT_OK(tkrt_launch(function, &launch, NULL));
  EXPECT_EQ_U64(fake->func_set_attribute, set_before + 1);
  /* Within the device limit but over what the function can have: the backend's own check. */
  launch.shared_mem_bytes = FAKE_OPTIN;
  EXPECT_STATUS(tkrt_launch(function, &launch, NULL), TKRT_STATUS_OUT_OF_RANGE,
                "static shared memory");
  tkrt_module_unload(module);
  tkrt_device_release(device);
}

static void launch_paths(void) {
  use_fresh_cache();
  tkrt_device_t* device = NULL;
  ASSERT_OK(open_cuda(&device));
  tkrt_cuda_fake_counters_t* fake = counters();
  ASSERT_TRUE(fake != NULL);
  tkrt_module_t* module = NULL;
  ASSERT_OK(load_ptx(device, kPtx, &module));
  tkrt_function_t* function = NULL;
  ASSERT_OK(tkrt_module_get_function(module, "add_kernel", &function));
  uint64_t zero = 0;
  void* params[3] = {&zero, &zero, &zero};
  tkrt_launch_params_t launch = {0, {98, 1, 1}, {128, 1, 1}, {1, 1, 1}, 0, 0, params, 3};

  int plain = fake->launches, extended = fake->launches_ex;
  int switches = fake->ctx_set_current;
  ASSERT_OK(tkrt_launch(function, &launch, NULL));
  ASSERT_OK(tkrt_launch(function, &launch, NULL));
  EXPECT_EQ_U64(fake->launches, plain + 2);
  EXPECT_EQ_U64(fake->launches_ex, extended);
  EXPECT_EQ_U64(fake->ctx_set_current, switches); /* already current: no switch */

  launch.grid[0] = 196;
  launch.cluster[0] = 2;
  launch.flags = TKRT_LAUNCH_CLUSTER_SPREAD;
  ASSERT_OK(tkrt_launch(function, &launch, NULL));
  EXPECT_EQ_U64(fake->launches_ex, extended + 1);
  EXPECT_EQ_U64(fake->last_cluster_x, 2);
  EXPECT_EQ_U64(fake->last_spread, 1);
  EXPECT_EQ_U64(fake->last_ex_num_attrs, 2);

  launch.cluster[0] = 1;
  launch.flags = TKRT_LAUNCH_COOPERATIVE | TKRT_LAUNCH_PDL | TKRT_LAUNCH_CLUSTER_SPREAD;
  ASSERT_OK(tkrt_launch(function, &launch, NULL));
  EXPECT_EQ_U64(fake->last_cooperative, 1);
  EXPECT_EQ_U64(fake->last_pdl, 1);
  EXPECT_EQ_U64(fake->last_cluster_x, 0);
  EXPECT_EQ_U64(fake->last_spread, 0); /* spread only matters with a cluster */
  EXPECT_EQ_U64(fake->last_ex_num_attrs, 2);

  /* Another thread's context was current: the backend switches back to its own. */
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_TRUE(library != NULL);
  CUresult (*set_current)(CUcontext) = NULL;
  CUresult (*get_proc)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*) =
      (CUresult(*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*))dlsym(
          library, "cuGetProcAddress_v2");
  dlclose(library);
  ASSERT_TRUE(get_proc != NULL);
  ASSERT_TRUE(get_proc("cuCtxSetCurrent", (void**)&set_current, 4000,
                       CU_GET_PROC_ADDRESS_LEGACY_STREAM, NULL) == CUDA_SUCCESS);
  ASSERT_TRUE(set_current != NULL);
  set_current(NULL);
  switches = fake->ctx_set_current;
  launch.flags = 0;
  ASSERT_OK(tkrt_launch(function, &launch, NULL));
  EXPECT_EQ_U64(fake->ctx_set_current, switches + 1); /* the backend made its own current */

  tkrt_module_unload(module);
  tkrt_device_release(device);
}

static void memory_streams_events_graphs(void) {
  tkrt_device_t* device = NULL;
  ASSERT_OK(open_cuda(&device));
  tkrt_cuda_fake_counters_t* fake = counters();
  ASSERT_TRUE(fake != NULL);
  long live = fake->live_allocations;
  tkrt_deviceptr_t buffer = 0;
  ASSERT_OK(tkrt_memory_alloc(device, 64, &buffer));
  EXPECT_STATUS(tkrt_memory_alloc(device, (size_t)1 << 41, &buffer), TKRT_STATUS_RESOURCE_EXHAUSTED,
                "cuMemAlloc(2199023255552 bytes) failed: CUDA_ERROR_OUT_OF_MEMORY");
  void* pinned = NULL;
  ASSERT_OK(tkrt_host_alloc(device, 64, &pinned));
  tkrt_stream_t stream = NULL;
  ASSERT_OK(tkrt_stream_create(device, &stream));
  EXPECT_OK(tkrt_memset_async(device, buffer, 0xab, 64, stream));
  EXPECT_OK(tkrt_memcpy_dtoh_async(device, pinned, buffer, 64, stream));
  EXPECT_OK(tkrt_stream_synchronize(device, stream));
  EXPECT_EQ_U64(((unsigned char*)pinned)[63], 0xab);
  size_t free_bytes = 0, total = 0;
  EXPECT_OK(tkrt_memory_info(device, &free_bytes, &total));
  EXPECT_EQ_U64(total, (uint64_t)80 << 30);

  tkrt_event_t start = NULL, end = NULL;
  ASSERT_OK(tkrt_event_create(device, &start));
  ASSERT_OK(tkrt_event_create(device, &end));
  EXPECT_OK(tkrt_event_record(device, start, stream));
  EXPECT_OK(tkrt_event_record(device, end, stream));
  EXPECT_OK(tkrt_event_synchronize(device, end));
  float ms = 0;
  EXPECT_OK(tkrt_event_elapsed_ms(device, start, end, &ms));
  EXPECT_TRUE(ms == 1.5f);
  EXPECT_OK(tkrt_event_destroy(device, start));
  EXPECT_OK(tkrt_event_destroy(device, end));

  /* Capture two launches, replay twice. */
  use_fresh_cache();
  tkrt_module_t* module = NULL;
  ASSERT_OK(load_ptx(device, kPtx, &module));
  tkrt_function_t* function = NULL;
  ASSERT_OK(tkrt_module_get_function(module, "add_kernel", &function));
  void* params[1] = {&buffer};
  tkrt_launch_params_t launch = {0, {1, 1, 1}, {32, 1, 1}, {0, 0, 0}, 0, 0, params, 1};
  bool capturing = true;
  EXPECT_OK(tkrt_stream_is_capturing(device, stream, &capturing));
  EXPECT_TRUE(!capturing);
  ASSERT_OK(tkrt_stream_begin_capture(device, stream));
  EXPECT_OK(tkrt_stream_is_capturing(device, stream, &capturing));
  EXPECT_TRUE(capturing);
  EXPECT_STATUS(tkrt_stream_synchronize(device, stream), TKRT_STATUS_FAILED_PRECONDITION,
                "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED");
  EXPECT_OK(tkrt_launch(function, &launch, stream));
  EXPECT_OK(tkrt_launch(function, &launch, stream));
  tkrt_graph_t* graph = NULL;
  ASSERT_OK(tkrt_stream_end_capture(device, stream, &graph));
  int launches = fake->launches;
  EXPECT_OK(tkrt_graph_launch(device, graph, stream));
  EXPECT_OK(tkrt_graph_launch(device, graph, stream));
  EXPECT_EQ_U64(fake->launches, launches + 4);
  EXPECT_OK(tkrt_graph_destroy(device, graph));
  EXPECT_STATUS(tkrt_stream_end_capture(device, stream, &graph), TKRT_STATUS_FAILED_PRECONDITION,
                "cuStreamEndCapture failed: CUDA_ERROR_ILLEGAL_STATE");
  tkrt_module_unload(module);

  EXPECT_OK(tkrt_stream_destroy(device, stream));
  EXPECT_OK(tkrt_host_free(device, pinned));
  EXPECT_OK(tkrt_memory_free(device, buffer));
  EXPECT_EQ_U64(fake->live_allocations, live);
  tkrt_device_release(device);
}

/* ---------------------------------------------------------------- other modes */

static void no_device_is_unavailable(void) {
  tkrt_device_t* device = NULL;
  EXPECT_STATUS(open_cuda(&device), TKRT_STATUS_UNAVAILABLE,
                "cuInit failed: CUDA_ERROR_NO_DEVICE");
  tkrt_backend_info_t infos[8];
  size_t count = 0;
  ASSERT_OK(tkrt_backend_list(infos, 8, &count));
  EXPECT_TRUE(!infos[0].available && strstr(infos[0].reason, "CUDA_ERROR_NO_DEVICE"));
}

static void zero_devices_is_unavailable(void) {
  tkrt_device_t* device = NULL;
  EXPECT_STATUS(open_cuda(&device), TKRT_STATUS_UNAVAILABLE, "reports no device");
}

static void minimal_driver_turns_features_off(void) {
  use_fresh_cache();
  tkrt_device_t* device = NULL;
  ASSERT_OK(open_cuda(&device));
  const tkrt_device_info_t* info = tkrt_device_info(device);
  EXPECT_EQ_U64(info->features, 0);
  EXPECT_EQ_U64(info->max_cluster_size, 0);
  tkrt_module_t* module = NULL;
  ASSERT_OK(load_ptx(device, kPtx, &module));
  tkrt_function_t* function = NULL;
  ASSERT_OK(tkrt_module_get_function(module, "add_kernel", &function));
  tkrt_launch_params_t launch = {0, {2, 1, 1}, {32, 1, 1}, {2, 1, 1}, 0, 0, NULL, 0};
  EXPECT_STATUS(tkrt_launch(function, &launch, NULL), TKRT_STATUS_UNIMPLEMENTED, "cluster");
  launch.cluster[0] = 1;
  launch.flags = TKRT_LAUNCH_COOPERATIVE;
  EXPECT_STATUS(tkrt_launch(function, &launch, NULL), TKRT_STATUS_UNIMPLEMENTED,
                "no cuLaunchKernelEx, needed for cooperative launches");
  launch.flags = 0;
  EXPECT_OK(tkrt_launch(function, &launch, NULL));
  tkrt_stream_t stream = NULL;
  ASSERT_OK(tkrt_stream_create(device, &stream));
  EXPECT_STATUS(tkrt_stream_begin_capture(device, stream), TKRT_STATUS_UNIMPLEMENTED,
                "graph entry points");
  EXPECT_OK(tkrt_stream_destroy(device, stream));
  /* Without cuGetErrorName the backend's own names still appear. */
  EXPECT_STATUS(tkrt_module_get_function(module, "nope", &function), TKRT_STATUS_NOT_FOUND,
                "CUDA_ERROR_NOT_FOUND");
  tkrt_module_unload(module);
  tkrt_device_release(device);
}

static void cleanup(void) {
  if (cache_root[0]) {
    char command[512];
    snprintf(command, sizeof(command), "rm -rf '%s'", cache_root);
    if (system(command) != 0) fprintf(stderr, "could not remove %s\n", cache_root);
  }
}

int main(int argc, char** argv) {
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(device_info_is_filled),
      TKRT_TEST_CASE(ptx_jit_is_cached_across_processes),
      TKRT_TEST_CASE(corrupt_cache_entry_is_rebuilt),
      TKRT_TEST_CASE(forged_cache_entry_is_not_loaded),
      TKRT_TEST_CASE(cache_off_always_compiles),
      TKRT_TEST_CASE(load_errors_are_mapped),
      TKRT_TEST_CASE(shared_memory_limits),
      TKRT_TEST_CASE(launch_paths),
      TKRT_TEST_CASE(memory_streams_events_graphs),
      TKRT_TEST_CASE(no_device_is_unavailable),
      TKRT_TEST_CASE(zero_devices_is_unavailable),
      TKRT_TEST_CASE(minimal_driver_turns_features_off),
  };
  int rc = tkrt_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
  cleanup();
  return rc;
}
