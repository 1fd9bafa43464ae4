/* SPDX-License-Identifier: Apache-2.0 */
/* The runtime (tkrt/runtime.h) with the core test kernels, on the host backend in CI and on CUDA
 * where a GPU is (runtime.cuda, the committed PTX): default and
 * explicit instances, settings before and after they freeze, devices by backend and ordinal, the
 * blob cache, the state query, launches with per-launch scalars and both alias conventions, error
 * paths, and launches from many threads.
 *
 * Usage: runtime_host_test <core test kernel image> [--backend=NAME] [case...] (exit 77 when
 * the backend has no device here) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/core/core_test_util.h"
#include "tkrt/runtime.h"

static tkrt_scalar_t scalar_i32(int32_t v) {
  tkrt_scalar_t s = {.kind = TKRT_PARAM_I32};
  s.value.i32 = v;
  return s;
}

static tkrt_scalar_t scalar_u32(uint32_t v) {
  tkrt_scalar_t s = {.kind = TKRT_PARAM_U32};
  s.value.u32 = v;
  return s;
}

/* A runtime on the test's backend that never reads or writes a decision store. Blobs here carry
 * the test's own kernels, which the host backend loads only when allowed to. */
static tkrt_runtime_t* host_runtime(void) {
  tkrt_runtime_options_t options;
  tkrt_runtime_options_init(&options);
  options.device.backend = g_backend;
  options.device.allow_native_code_from_calls = true;
  options.tuner.store_dir = "off";
  options.tuner.target_ms = 0.5;
  options.tuner.max_iterations = 4;
  tkrt_runtime_t* rt = NULL;
  EXPECT_OK(tkrt_runtime_create(&options, &rt));
  return rt;
}

/* The add_128 kernel as a plain call: out = x + y over n floats, grid for 1024 elements. */
static tkrt_call_t* add_call(int32_t n) {
  tkrt_param_t params[6] = {core_array(16, 0), core_array(16, 0), core_array(16, 0), core_i32(n),
                            core_u32(0), core_array(0, 0)};
  return core_plain_call(core_kernel("add_128", 4, 1, 0), 1024 / 128, 1, 1, params, 6);
}

/* A value read from the environment longer than the runtime keeps (TKRT_TUNE_PIN: 2047 bytes)
 * was cut short silently, and a truncated pin list pins another config: now refused by
 * tkrt_runtime_create with read_environment, and answered from the default instance's device
 * lookups. Runs first, before anything creates the default instance. */
static void environment_strings_checked(void) {
  static char pin[4096];
  memset(pin, 'a', sizeof(pin) - 1);
  pin[sizeof(pin) - 1] = '\0';
  pin[0] = 'k', pin[1] = '=';
  ASSERT_TRUE(setenv("TKRT_TUNE_PIN", pin, 1) == 0);
  tkrt_runtime_options_t options;
  tkrt_runtime_options_init(&options);
  options.read_environment = true;
  tkrt_runtime_t* rt = NULL;
  EXPECT_STATUS(tkrt_runtime_create(&options, &rt), TKRT_STATUS_INVALID_ARGUMENT,
                "TKRT_TUNE_PIN is 4095 bytes long; at most 2047");
  EXPECT_TRUE(rt == NULL);
  tkrt_runtime_t* fallback = tkrt_runtime_default();
  ASSERT_TRUE(fallback != NULL);
  tkrt_device_t* device = NULL;
  EXPECT_STATUS(tkrt_runtime_device(fallback, g_backend, 0, &device),
                TKRT_STATUS_INVALID_ARGUMENT, "TKRT_TUNE_PIN is 4095 bytes long");
  EXPECT_TRUE(device == NULL);
  unsetenv("TKRT_TUNE_PIN");
  /* Within bounds, the same route creates a runtime. */
  EXPECT_OK(tkrt_runtime_create(&options, &rt));
  tkrt_runtime_release(rt);
}

static void default_and_explicit(void) {
  tkrt_runtime_t* a = tkrt_runtime_default();
  ASSERT_TRUE(a != NULL);
  EXPECT_TRUE(tkrt_runtime_default() == a); /* one per process */
  tkrt_runtime_t* b = host_runtime();
  tkrt_runtime_t* c = host_runtime();
  ASSERT_TRUE(b && c);
  EXPECT_TRUE(b != a && c != b);
  /* Explicit instances do not share devices. */
  tkrt_device_t* db = NULL;
  tkrt_device_t* dc = NULL;
  EXPECT_OK(tkrt_runtime_device(b, g_backend, 0, &db));
  EXPECT_OK(tkrt_runtime_device(c, g_backend, 0, &dc));
  EXPECT_TRUE(db && dc && db != dc);
  tkrt_runtime_retain(b);
  tkrt_runtime_release(b); /* still held once */
  EXPECT_TRUE(tkrt_runtime_device_find(b, g_backend, 0) == db);
  tkrt_runtime_release(b);
  tkrt_runtime_release(c);
  tkrt_runtime_release(NULL); /* allowed */
  /* Options of an unknown size are refused, and nothing is made. */
  tkrt_runtime_options_t options;
  tkrt_runtime_options_init(&options);
  options.struct_size = sizeof(options) + 8;
  tkrt_runtime_t* none = NULL;
  EXPECT_STATUS(tkrt_runtime_create(&options, &none), TKRT_STATUS_INVALID_ARGUMENT, "options of");
  EXPECT_TRUE(none == NULL);
}

static void configure_until_frozen(void) {
  tkrt_runtime_t* rt = NULL;
  ASSERT_OK(tkrt_runtime_create(NULL, &rt));
  EXPECT_OK(tkrt_runtime_configure(rt, "backend", g_backend));
  EXPECT_OK(tkrt_runtime_configure(rt, "tune_dir", "off"));
  EXPECT_OK(tkrt_runtime_configure(rt, "tune_policy", "Never"));
  EXPECT_OK(tkrt_runtime_configure(rt, "tune_prune_margin", "0.5"));
  EXPECT_OK(tkrt_runtime_configure(rt, "capture_policy", "first_config"));
  EXPECT_OK(tkrt_runtime_configure(rt, "cache_dir", NULL));
  /* Every row of the settings table's runtime scope, by the table's rules. */
  EXPECT_OK(tkrt_runtime_configure(rt, "host_threads", "2"));
  EXPECT_OK(tkrt_runtime_configure(rt, "target_ms", "2.5"));
  EXPECT_STATUS(tkrt_runtime_configure(rt, "host_threads", "999"), TKRT_STATUS_INVALID_ARGUMENT,
                "host_threads=999 is not a value it takes (expected a thread count from 1 to 256)");
  EXPECT_STATUS(tkrt_runtime_configure(rt, "xla_library", "x.so"), TKRT_STATUS_INVALID_ARGUMENT,
                "no setting is named 'xla_library'");
  EXPECT_STATUS(tkrt_runtime_configure(rt, "tune_policy", "sometimes"),
                TKRT_STATUS_INVALID_ARGUMENT, "tune_policy=sometimes");
  EXPECT_STATUS(tkrt_runtime_configure(rt, "tune_prune_margin", "wide"),
                TKRT_STATUS_INVALID_ARGUMENT, "tune_prune_margin=wide");
  EXPECT_STATUS(tkrt_runtime_configure(rt, "colour", "blue"), TKRT_STATUS_INVALID_ARGUMENT,
                "no setting is named 'colour'");
  EXPECT_STATUS(tkrt_runtime_configure(rt, NULL, "x"), TKRT_STATUS_INVALID_ARGUMENT, "name");
  char huge[8192];
  memset(huge, 'a', sizeof(huge) - 1);
  huge[sizeof(huge) - 1] = '\0';
  EXPECT_STATUS(tkrt_runtime_configure(rt, "tune_dir", huge), TKRT_STATUS_INVALID_ARGUMENT,
                "at most");
  /* What was taken, read back; the refused values changed nothing. */
  tkrt_device_options_t taken_device;
  tkrt_autotuner_options_t taken_tuner;
  tkrt_runtime_get_options(rt, &taken_device, &taken_tuner);
  EXPECT_STREQ(taken_device.backend, g_backend);
  EXPECT_EQ_U64(taken_device.host_threads, 2);
  EXPECT_TRUE(taken_tuner.policy == TKRT_TUNE_POLICY_NEVER);
  EXPECT_TRUE(taken_tuner.prune_margin == 0.5 && taken_tuner.target_ms == 2.5);
  EXPECT_TRUE(taken_tuner.store_dir && strcmp(taken_tuner.store_dir, "off") == 0);
  /* The backend is still host, so a device opens. */
  tkrt_device_t* device = NULL;
  ASSERT_OK(tkrt_runtime_device(rt, NULL, 0, &device));
  EXPECT_STREQ(tkrt_device_info(device)->backend, g_backend);
  /* Frozen now. */
  EXPECT_STATUS(tkrt_runtime_configure(rt, "backend", "cuda"), TKRT_STATUS_FAILED_PRECONDITION,
                "in use");
  tkrt_device_options_t d;
  tkrt_autotuner_options_t t;
  tkrt_device_options_init(&d);
  tkrt_autotuner_options_init(&t);
  EXPECT_STATUS(tkrt_runtime_set_options(rt, &d, &t), TKRT_STATUS_FAILED_PRECONDITION, "in use");
  /* The log level is the process's, never frozen. */
  EXPECT_OK(tkrt_runtime_configure(rt, "log", "error"));
  EXPECT_STATUS(tkrt_runtime_configure(rt, "log", "loud"), TKRT_STATUS_INVALID_ARGUMENT, "log=loud");
  EXPECT_OK(tkrt_runtime_configure(rt, "log", NULL));
  tkrt_runtime_release(rt);

  /* The tuner freezes the settings too. */
  rt = host_runtime();
  tkrt_autotuner_t* tuner = NULL;
  tkrt_autotuner_t* again = NULL;
  EXPECT_OK(tkrt_runtime_tuner(rt, &tuner));
  EXPECT_OK(tkrt_runtime_tuner(rt, &again));
  EXPECT_TRUE(tuner && tuner == again);
  EXPECT_STATUS(tkrt_runtime_configure(rt, "tune_pin", "x=1"), TKRT_STATUS_FAILED_PRECONDITION,
                "in use");
  tkrt_runtime_release(rt);
}

static void devices_by_backend_and_ordinal(void) {
  tkrt_runtime_t* rt = host_runtime();
  ASSERT_TRUE(rt != NULL);
  EXPECT_TRUE(tkrt_runtime_device_find(rt, NULL, 0) == NULL);
  EXPECT_TRUE(tkrt_runtime_device_find(rt, g_backend, 0) == NULL);
  tkrt_device_t* by_list = NULL;
  tkrt_device_t* by_name = NULL;
  ASSERT_OK(tkrt_runtime_device(rt, NULL, 0, &by_list));
  ASSERT_OK(tkrt_runtime_device(rt, g_backend, 0, &by_name));
  /* One handle per device: the list's device is its backend's. */
  EXPECT_TRUE(by_list == by_name);
  EXPECT_TRUE(tkrt_runtime_device_find(rt, NULL, 0) == by_list);
  EXPECT_TRUE(tkrt_runtime_device_find(rt, g_backend, 0) == by_list);
  EXPECT_TRUE(tkrt_runtime_device_find(rt, g_backend, TKRT_RUNTIME_MAX_ORDINALS - 1) == NULL);
  EXPECT_EQ_U64((uint64_t)tkrt_device_info(by_list)->ordinal, 0);
  tkrt_device_t* none = NULL;
  EXPECT_STATUS(tkrt_runtime_device(rt, NULL, TKRT_RUNTIME_MAX_ORDINALS, &none),
                TKRT_STATUS_OUT_OF_RANGE, "ordinal 64");
  EXPECT_STATUS(tkrt_runtime_device(rt, NULL, -1, &none), TKRT_STATUS_OUT_OF_RANGE, "ordinal -1");
  EXPECT_STATUS(tkrt_runtime_device(rt, "vulkan", 0, &none), TKRT_STATUS_INVALID_ARGUMENT, "vulkan");
  EXPECT_TRUE(none == NULL);
  /* A list that finds the same device gives the same handle. */
  tkrt_device_t* by_other_list = NULL;
  char list[64];
  snprintf(list, sizeof(list), "%s,%s", g_backend, strcmp(g_backend, "host") ? "host" : "cuda");
  ASSERT_OK(tkrt_runtime_device(rt, list, 0, &by_other_list));
  EXPECT_TRUE(by_other_list == by_list);
  tkrt_runtime_stats_t stats = {.struct_size = sizeof(stats)};
  tkrt_runtime_get_stats(rt, &stats);
  EXPECT_EQ_U64(stats.devices_opened, 1);
  tkrt_runtime_release(rt);

  /* Names that open nothing leave nothing behind: many of them, then a real one still opens. */
  rt = host_runtime();
  for (int i = 0; i < 2 * 8; ++i) {
    char name[32];
    snprintf(name, sizeof(name), "nosuch%d", i);
    EXPECT_STATUS(tkrt_runtime_device(rt, name, 0, &none), TKRT_STATUS_INVALID_ARGUMENT, name);
  }
  EXPECT_OK(tkrt_runtime_device(rt, g_backend, 0, &by_name));
  tkrt_runtime_release(rt);
}

/* A host call encoded as jaxlib's opaque attribute would carry it (zlib). */
static void* add_blob(int32_t n, size_t* out_size) {
  tkrt_call_t* call = add_call(n);
  if (!call) return NULL;
  tkrt_wire_encode_options_t options;
  tkrt_wire_encode_options_init(&options);
  void* bytes = NULL;
  EXPECT_OK(tkrt_wire_encode(call, &options, &bytes, out_size));
  tkrt_call_release(call);
  void* copy = bytes ? malloc(*out_size) : NULL;
  if (copy) memcpy(copy, bytes, *out_size);
  tkrt_wire_free(bytes);
  return copy;
}

static void blob_cache(void) {
  tkrt_runtime_t* rt = host_runtime();
  size_t size = 0, other_size = 0;
  unsigned char* blob = add_blob(1000, &size);
  unsigned char* other = add_blob(999, &other_size);
  ASSERT_TRUE(rt && blob && other);
  tkrt_runtime_stats_t stats = {.struct_size = sizeof(stats)};
  const tkrt_runtime_call_t* first = NULL;
  const tkrt_runtime_call_t* again = NULL;
  ASSERT_OK(tkrt_runtime_call_from_blob(rt, blob, size, &first));
  EXPECT_STREQ(first->label, "test_call");
  EXPECT_EQ_U64(first->array_params, 4);
  EXPECT_EQ_U64(first->indexed_buffers, 4);
  EXPECT_TRUE(!first->autotuned);
  /* The same address: no hashing, the same entry. */
  ASSERT_OK(tkrt_runtime_call_from_blob(rt, blob, size, &again));
  EXPECT_TRUE(again == first);
  tkrt_runtime_get_stats(rt, &stats);
  EXPECT_EQ_U64(stats.blobs_decoded, 1);
  EXPECT_EQ_U64(stats.blob_hashes, 1);
  EXPECT_EQ_U64(stats.cache_entries, 1);
  /* The same bytes elsewhere: hashed once, not decoded again; then found by address. */
  size_t capacity = size > other_size ? size : other_size;
  unsigned char* copy = malloc(capacity);
  ASSERT_TRUE(copy != NULL);
  memcpy(copy, blob, size);
  ASSERT_OK(tkrt_runtime_call_from_blob(rt, copy, size, &again));
  EXPECT_TRUE(again == first);
  ASSERT_OK(tkrt_runtime_call_from_blob(rt, copy, size, &again));
  tkrt_runtime_get_stats(rt, &stats);
  EXPECT_EQ_U64(stats.blobs_decoded, 1);
  EXPECT_EQ_U64(stats.blob_hashes, 2);
  /* Other bytes at a known address (the same size, when zlib made them so): the whole-blob check
   * sees them, whatever else matches. */
  memcpy(copy, other, other_size);
  ASSERT_OK(tkrt_runtime_call_from_blob(rt, copy, other_size, &again));
  EXPECT_TRUE(again != first);
  tkrt_runtime_get_stats(rt, &stats);
  EXPECT_EQ_U64(stats.blob_hashes, 3);
  EXPECT_EQ_U64(stats.blobs_decoded, 2);
  /* A blob that is not one: refused, nothing cached. */
  memset(copy, 0x5a, size);
  const tkrt_runtime_call_t* bad = NULL;
  EXPECT_STATUS(tkrt_runtime_call_from_blob(rt, copy, size, &bad), TKRT_STATUS_INVALID_ARGUMENT,
                "decoding the opaque blob");
  EXPECT_STATUS(tkrt_runtime_call_from_blob(rt, copy, 0, &bad), TKRT_STATUS_INVALID_ARGUMENT,
                "empty blob");
  EXPECT_TRUE(bad == NULL);
  tkrt_runtime_get_stats(rt, &stats);
  EXPECT_EQ_U64(stats.cache_entries, 2);
  /* The decoded call launches through the runtime. */
  tkrt_device_t* device = NULL;
  ASSERT_OK(tkrt_runtime_device(rt, g_backend, 0, &device));
  float x[1024], y[1024], out[1024];
  for (int i = 0; i < 1024; ++i) x[i] = (float)i, y[i] = 0.5f, out[i] = -1;
  tkrt_buffer_t buffers[4] = {{core_upload(device, x, sizeof(x)), sizeof(x)},
                              {core_upload(device, y, sizeof(y)), sizeof(y)},
                              {core_upload(device, out, sizeof(out)), sizeof(out)},
                              {core_upload(device, NULL, 16), 16}};
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  tkrt_call_t* launch_call = first->call;
  args.device = device;
  args.buffers = buffers;
  args.input_count = 2;
  args.output_count = 2;
  EXPECT_OK(tkrt_runtime_launch(rt, launch_call, &args));
  core_download(device, out, buffers[2].ptr, sizeof(out));
  EXPECT_TRUE(out[0] == 0.5f && out[999] == 999.5f && out[1000] == -1);
  for (int i = 0; i < 4; ++i) EXPECT_OK(tkrt_memory_free(device, buffers[i].ptr));
  free(copy);
  free(blob);
  free(other);
  tkrt_runtime_release(rt);
}

static void state_query(void) {
  tkrt_runtime_t* rt = host_runtime();
  ASSERT_TRUE(rt != NULL);
  tkrt_device_t* device = NULL;
  ASSERT_OK(tkrt_runtime_device(rt, g_backend, 0, &device));
  tkrt_call_t* plain = add_call(16);
  core_inplace_spec_t spec = {.n = 256, .alias_record = true};
  tkrt_call_t* tuned = core_inplace_call(&spec);
  ASSERT_TRUE(plain && tuned);
  size_t config = 99;
  EXPECT_EQ_U64(tkrt_runtime_call_state(rt, plain, device, &config), 0);
  EXPECT_EQ_U64(tkrt_runtime_call_state(rt, tuned, device, &config), 0);
  EXPECT_EQ_U64(config, 99); /* written only when decided */
  int prepared = 0;
  EXPECT_OK(tkrt_runtime_prepare(rt, plain, device, NULL, &prepared));
  EXPECT_TRUE(prepared);
  EXPECT_EQ_U64(tkrt_runtime_call_state(rt, plain, device, &config),
                TKRT_CALL_STATE_PREPARED | TKRT_CALL_STATE_DECIDED);
  EXPECT_EQ_U64(config, 0);
  EXPECT_OK(tkrt_runtime_prepare(rt, tuned, device, NULL, NULL));
  EXPECT_EQ_U64(tkrt_runtime_call_state(rt, tuned, device, NULL), TKRT_CALL_STATE_PREPARED);
  /* Another device handle (another runtime) knows nothing of it. */
  tkrt_runtime_t* other = host_runtime();
  tkrt_device_t* other_device = NULL;
  ASSERT_OK(tkrt_runtime_device(other, g_backend, 0, &other_device));
  EXPECT_EQ_U64(tkrt_runtime_call_state(other, plain, other_device, NULL), 0);
  /* The first launch decides; the state says which config, as the decision did. */
  float x[256], y[256];
  for (int i = 0; i < 256; ++i) x[i] = 1, y[i] = 2;
  tkrt_buffer_t buffers[4] = {{core_upload(device, x, sizeof(x)), sizeof(x)},
                              {core_upload(device, y, sizeof(y)), sizeof(y)},
                              {core_upload(device, NULL, 16), 16}};
  buffers[3] = buffers[0]; /* the output is x, in place */
  tkrt_launch_decision_t decision = {0};
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  tkrt_call_t* launch_call = tuned;
  args.device = device;
  args.buffers = buffers;
  args.input_count = 3;
  args.output_count = 1;
  args.decision = &decision;
  EXPECT_OK(tkrt_runtime_launch(rt, launch_call, &args));
  EXPECT_TRUE(decision.decided && !decision.provisional);
  EXPECT_EQ_U64(tkrt_runtime_call_state(rt, tuned, device, &config),
                TKRT_CALL_STATE_PREPARED | TKRT_CALL_STATE_DECIDED);
  EXPECT_EQ_U64(config, decision.config);
  /* The other runtime's tuner has not decided it (its own devices, its own tuner). */
  EXPECT_EQ_U64(tkrt_runtime_call_state(other, tuned, device, NULL), TKRT_CALL_STATE_PREPARED);
  core_download(device, x, buffers[0].ptr, sizeof(x));
  EXPECT_TRUE(x[0] == 3 && x[255] == 3); /* tuning restored x around every config */
  for (int i = 0; i < 3; ++i) EXPECT_OK(tkrt_memory_free(device, buffers[i].ptr));
  tkrt_call_release(plain);
  tkrt_call_release(tuned);
  tkrt_runtime_release(other);
  tkrt_runtime_release(rt);
}

static void per_launch_scalars(void) {
  tkrt_runtime_t* rt = host_runtime();
  tkrt_device_t* device = NULL;
  ASSERT_OK(tkrt_runtime_device(rt, g_backend, 0, &device));
  const tkrt_runtime_call_t* entry = NULL;
  tkrt_call_t* call = add_call(1024);
  ASSERT_TRUE(call != NULL);
  ASSERT_OK(tkrt_runtime_call_adopt(rt, call, &entry));
  tkrt_call_release(call); /* the runtime holds it */
  float x[1024], y[1024], out[1024];
  for (int i = 0; i < 1024; ++i) x[i] = (float)i, y[i] = 1;
  tkrt_buffer_t buffers[4] = {{core_upload(device, x, sizeof(x)), sizeof(x)},
                              {core_upload(device, y, sizeof(y)), sizeof(y)},
                              {core_upload(device, NULL, sizeof(out)), sizeof(out)},
                              {core_upload(device, NULL, 16), 16}};
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  tkrt_call_t* launch_call = entry->call;
  args.device = device;
  args.buffers = buffers;
  args.input_count = 2;
  args.output_count = 2;
  /* n takes a new value per launch; kind 0 keeps the call's `micros`. */
  static const int32_t ns[] = {10, 700, 3, 1024, 0};
  for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); ++k) {
    EXPECT_OK(tkrt_memset_async(device, buffers[2].ptr, 0, sizeof(out), NULL));
    tkrt_scalar_t scalars[2] = {scalar_i32(ns[k]), {.kind = 0}};
    args.scalars = scalars;
    args.scalar_count = 2;
    EXPECT_OK(tkrt_runtime_launch(rt, launch_call, &args));
    core_download(device, out, buffers[2].ptr, sizeof(out));
    int right = 1;
    for (int i = 0; i < 1024; ++i) right &= out[i] == (i < ns[k] ? (float)i + 1 : 0.0f);
    EXPECT_TRUE(right);
  }
  /* Without scalars: the call's n (1024). */
  args.scalars = NULL;
  args.scalar_count = 0;
  EXPECT_OK(tkrt_runtime_launch(rt, launch_call, &args));
  core_download(device, out, buffers[2].ptr, sizeof(out));
  EXPECT_TRUE(out[1023] == 1024.0f);
  /* Wrong kind, too many: refused before anything is enqueued (out keeps its values). */
  EXPECT_OK(tkrt_memset_async(device, buffers[2].ptr, 0, sizeof(out), NULL));
  tkrt_scalar_t wrong[1] = {scalar_u32(5)};
  args.scalars = wrong;
  args.scalar_count = 1;
  EXPECT_STATUS(tkrt_runtime_launch(rt, launch_call, &args), TKRT_STATUS_INVALID_ARGUMENT,
                "per-launch scalar 0 (parameter 3");
  tkrt_scalar_t many[3] = {scalar_i32(1), scalar_u32(0), scalar_i32(2)};
  args.scalars = many;
  args.scalar_count = 3;
  EXPECT_STATUS(tkrt_runtime_launch(rt, launch_call, &args), TKRT_STATUS_INVALID_ARGUMENT,
                "3 per-launch scalars given");
  core_download(device, out, buffers[2].ptr, sizeof(out));
  EXPECT_TRUE(out[0] == 0 && out[1023] == 0);
  for (int i = 0; i < 4; ++i) EXPECT_OK(tkrt_memory_free(device, buffers[i].ptr));
  tkrt_runtime_release(rt);
}

/* The grid of add_128 for n elements (128 a program), for the per-launch grid callback. */
static tkrt_status_t grid_for_n(void* user, size_t config, uint32_t out_grid[3]) {
  (void)config;
  int32_t n = *(const int32_t*)user;
  out_grid[0] = (uint32_t)(n + 127) / 128;
  return NULL;
}

/* The per-launch grid and TMA shapes reach the core: a scalar n beyond the call's grid is
 * covered when the grid follows n, and a TMA shape list is checked by the core (this call has no
 * TMA parameter). */
static void per_launch_grid(void) {
  tkrt_runtime_t* rt = host_runtime();
  tkrt_device_t* device = NULL;
  ASSERT_OK(tkrt_runtime_device(rt, g_backend, 0, &device));
  tkrt_call_t* call = add_call(1024); /* the call's grid: 8 programs, 1024 elements */
  ASSERT_TRUE(call != NULL);
  enum { N = 4096 };
  float* x = malloc(N * sizeof(float));
  float* out = malloc(N * sizeof(float));
  ASSERT_TRUE(x && out);
  for (int i = 0; i < N; ++i) x[i] = (float)i;
  tkrt_buffer_t buffers[4] = {{core_upload(device, x, N * 4), N * 4},
                              {core_upload(device, x, N * 4), N * 4},
                              {core_upload(device, NULL, N * 4), N * 4},
                              {core_upload(device, NULL, 16), 16}};
  int32_t n = 3000;
  tkrt_scalar_t scalars[1] = {scalar_i32(n)};
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  tkrt_call_t* launch_call = call;
  args.device = device;
  args.buffers = buffers;
  args.input_count = 2;
  args.output_count = 2;
  args.scalars = scalars;
  args.scalar_count = 1;
  /* Without the grid: the call's 8 programs cover 1024 of the 3000. */
  EXPECT_OK(tkrt_runtime_launch(rt, launch_call, &args));
  core_download(device, out, buffers[2].ptr, N * 4);
  EXPECT_TRUE(out[1023] == 2046.0f && out[1024] == 0.0f);
  args.grid = grid_for_n;
  args.grid_user = &n;
  EXPECT_OK(tkrt_runtime_launch(rt, launch_call, &args));
  core_download(device, out, buffers[2].ptr, N * 4);
  int right = 1;
  for (int i = 0; i < N; ++i) right &= out[i] == (i < n ? 2.0f * (float)i : 0.0f);
  EXPECT_TRUE(right);
  tkrt_tma_shape_t shape = {.rank = 1, .shape = {16}, .strides = {1}};
  args.tma_shapes = &shape;
  args.tma_shape_count = 1;
  EXPECT_STATUS(tkrt_runtime_launch(rt, launch_call, &args), TKRT_STATUS_INVALID_ARGUMENT,
                "1 per-launch TMA shapes given; kernel 'add_128' has 0 TMA parameters");
  for (int i = 0; i < 4; ++i) EXPECT_OK(tkrt_memory_free(device, buffers[i].ptr));
  free(x);
  free(out);
  tkrt_call_release(call);
  tkrt_runtime_release(rt);
}

/* Every scalar kind takes a per-launch value, packed as the kernel reads it; kind 0 keeps the
 * call's. The `scalars` kernel writes each parameter's bits to out[0..6]. */
static void per_launch_scalar_kinds(void) {
  tkrt_runtime_t* rt = host_runtime();
  tkrt_device_t* device = NULL;
  ASSERT_OK(tkrt_runtime_device(rt, g_backend, 0, &device));
  tkrt_param_t params[8] = {core_array(0, 0)};
  params[1] = (tkrt_param_t){.kind = TKRT_PARAM_BOOL, .value.b = false};
  params[2] = core_i32(1);
  params[3] = core_u32(2);
  params[4] = (tkrt_param_t){.kind = TKRT_PARAM_I64, .value.i64 = 3};
  params[5] = (tkrt_param_t){.kind = TKRT_PARAM_U64, .value.u64 = 4};
  params[6] = (tkrt_param_t){.kind = TKRT_PARAM_F32, .value.f32 = 5.0f};
  params[7] = (tkrt_param_t){.kind = TKRT_PARAM_F64, .value.f64 = 6.0};
  tkrt_call_t* call = core_plain_call(core_kernel("scalars", 1, 1, 0), 1, 1, 1, params, 8);
  ASSERT_TRUE(call != NULL);
  tkrt_scalar_t scalars[7] = {{.kind = TKRT_PARAM_BOOL, .value.b = true},
                              {.kind = TKRT_PARAM_I32, .value.i32 = -5},
                              {.kind = TKRT_PARAM_U32, .value.u32 = 0xfffffff0u},
                              {.kind = TKRT_PARAM_I64, .value.i64 = -9000000000000LL},
                              {.kind = TKRT_PARAM_U64, .value.u64 = (1ull << 63) + 1},
                              {.kind = TKRT_PARAM_F32, .value.f32 = 1.5f},
                              {.kind = TKRT_PARAM_F64, .value.f64 = -2.25}};
  tkrt_buffer_t out = {core_upload(device, NULL, 64), 64};
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  tkrt_call_t* launch_call = call;
  args.device = device;
  args.buffers = &out;
  args.output_count = 1;
  args.scalars = scalars;
  args.scalar_count = 7;
  EXPECT_OK(tkrt_runtime_launch(rt, launch_call, &args));
  uint64_t got[8] = {0};
  core_download(device, got, out.ptr, 64);
  float f32 = 1.5f;
  double f64 = -2.25;
  uint32_t f32_bits;
  uint64_t f64_bits;
  memcpy(&f32_bits, &f32, 4);
  memcpy(&f64_bits, &f64, 8);
  EXPECT_EQ_U64(got[0], 1);
  EXPECT_EQ_U64(got[1], (uint64_t)(int64_t)-5);
  EXPECT_EQ_U64(got[2], 0xfffffff0u);
  EXPECT_EQ_U64(got[3], (uint64_t)-9000000000000LL);
  EXPECT_EQ_U64(got[4], (1ull << 63) + 1);
  EXPECT_EQ_U64(got[5], f32_bits);
  EXPECT_EQ_U64(got[6], f64_bits);
  /* Only the i64 given; the rest are the call's. */
  tkrt_scalar_t some[4] = {{.kind = 0}, {.kind = 0}, {.kind = 0}, scalars[3]};
  args.scalars = some;
  args.scalar_count = 4;
  EXPECT_OK(tkrt_runtime_launch(rt, launch_call, &args));
  core_download(device, got, out.ptr, 64);
  EXPECT_EQ_U64(got[0], 0);
  EXPECT_EQ_U64(got[1], 1);
  EXPECT_EQ_U64(got[2], 2);
  EXPECT_EQ_U64(got[3], (uint64_t)-9000000000000LL);
  EXPECT_EQ_U64(got[4], 4);
  EXPECT_OK(tkrt_memory_free(device, out.ptr));
  tkrt_call_release(call);
  tkrt_runtime_release(rt);
}

/* The autotuned in-place call, launched under one alias convention: tuning runs every config on
 * x, so x is right afterwards only if the runtime told the tuner which input to save. */
static void alias_convention(uint32_t mode) {
  tkrt_runtime_t* rt = host_runtime();
  tkrt_device_t* device = NULL;
  ASSERT_OK(tkrt_runtime_device(rt, g_backend, 0, &device));
  core_inplace_spec_t spec = {.n = 1000, .alias_record = true};
  tkrt_call_t* call = core_inplace_call(&spec);
  ASSERT_TRUE(call != NULL);
  float x[1000], y[1000];
  for (int i = 0; i < 1000; ++i) x[i] = (float)i, y[i] = 2;
  tkrt_deviceptr_t px = core_upload(device, x, sizeof(x));
  tkrt_deviceptr_t py = core_upload(device, y, sizeof(y));
  tkrt_deviceptr_t counter = core_upload(device, NULL, 16);
  tkrt_buffer_t buffers[4];
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  tkrt_call_t* launch_call = call;
  args.device = device;
  args.buffers = buffers;
  args.flags = mode;
  if (mode == TKRT_CALL_LAUNCH_ALIASES_BY_INDEX) {
    /* Bare pointers, as XLA's legacy call passes them: the record (input 0, buffer 0, 4000 bytes)
     * names the input. */
    buffers[0] = (tkrt_buffer_t){px, TKRT_BUFFER_SIZE_UNKNOWN};
    buffers[1] = (tkrt_buffer_t){py, TKRT_BUFFER_SIZE_UNKNOWN};
    buffers[2] = (tkrt_buffer_t){counter, TKRT_BUFFER_SIZE_UNKNOWN};
    args.input_count = 3;
  } else {
    /* Sizes, and the output placed on x: the addresses say it. */
    buffers[0] = (tkrt_buffer_t){px, sizeof(x)};
    buffers[1] = (tkrt_buffer_t){py, sizeof(y)};
    buffers[2] = (tkrt_buffer_t){counter, 16};
    buffers[3] = buffers[0];
    args.input_count = 3;
    args.output_count = 1;
  }
  tkrt_launch_decision_t decision = {0};
  args.decision = &decision;
  EXPECT_OK(tkrt_runtime_launch(rt, launch_call, &args));
  EXPECT_TRUE(decision.decided && decision.source == TKRT_TUNE_SOURCE_TUNED);
  EXPECT_OK(tkrt_runtime_launch(rt, launch_call, &args)); /* decided: the by-index list is not built */
  EXPECT_TRUE(!decision.decided);
  core_download(device, x, px, sizeof(x));
  int right = 1;
  for (int i = 0; i < 1000; ++i) right &= x[i] == (float)i + 4;
  EXPECT_TRUE(right);
  /* A record naming a buffer the launch does not have is refused (by index only). */
  if (mode == TKRT_CALL_LAUNCH_ALIASES_BY_INDEX) {
    core_inplace_spec_t fresh = spec;
    tkrt_call_t* undecided = core_inplace_call(&fresh);
    launch_call = undecided;
    args.input_count = 0;
    args.buffers = NULL;
    EXPECT_STATUS(tkrt_runtime_launch(rt, launch_call, &args), TKRT_STATUS_INVALID_ARGUMENT,
                  "alias record 0 names buffers 0 and 0; the launch has 0");
    tkrt_call_release(undecided);
  }
  EXPECT_OK(tkrt_memory_free(device, px));
  EXPECT_OK(tkrt_memory_free(device, py));
  EXPECT_OK(tkrt_memory_free(device, counter));
  tkrt_call_release(call);
  tkrt_runtime_release(rt);
}

static void alias_by_size(void) { alias_convention(0); }
static void alias_by_index(void) { alias_convention(TKRT_CALL_LAUNCH_ALIASES_BY_INDEX); }

/* A native stream's device, from the settings' backends or a named list; asked again (the
 * remembered answer) and under another list name (a new lookup, the same device). */
static void device_for_stream(void) {
  tkrt_runtime_t* rt = host_runtime();
  tkrt_device_t* device = NULL;
  ASSERT_OK(tkrt_runtime_device(rt, g_backend, 0, &device));
  tkrt_stream_t stream = NULL;
  ASSERT_OK(tkrt_stream_create(device, &stream));
  tkrt_device_t* found = NULL;
  EXPECT_OK(tkrt_runtime_device_for_stream(rt, g_backend, stream, &found));
  EXPECT_TRUE(found == device);
  found = NULL;
  EXPECT_OK(tkrt_runtime_device_for_stream(rt, g_backend, stream, &found));
  EXPECT_TRUE(found == device);
  found = NULL;
  EXPECT_OK(tkrt_runtime_device_for_stream(rt, NULL, stream, &found));
  EXPECT_TRUE(found == device);
  EXPECT_STATUS(tkrt_runtime_device_for_stream(rt, "no_such_backend", stream, &found),
                TKRT_STATUS_INVALID_ARGUMENT, "no_such_backend");
  EXPECT_STATUS(tkrt_runtime_device_for_stream(NULL, NULL, stream, &found),
                TKRT_STATUS_INVALID_ARGUMENT, "NULL argument");
  EXPECT_OK(tkrt_stream_destroy(device, stream));
  tkrt_runtime_release(rt);
}

static void launch_errors(void) {
  tkrt_runtime_t* rt = host_runtime();
  tkrt_device_t* device = NULL;
  ASSERT_OK(tkrt_runtime_device(rt, g_backend, 0, &device));
  tkrt_call_t* call = add_call(16);
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  EXPECT_STATUS(tkrt_runtime_launch(rt, NULL, &args), TKRT_STATUS_INVALID_ARGUMENT, "the call is NULL");
  EXPECT_STATUS(tkrt_runtime_launch(rt, call, NULL), TKRT_STATUS_INVALID_ARGUMENT, "args is NULL");
  EXPECT_STATUS(tkrt_runtime_launch(rt, call, &args), TKRT_STATUS_INVALID_ARGUMENT, "no device");
  args.device = device;
  EXPECT_STATUS(tkrt_runtime_launch(rt, call, &args), TKRT_STATUS_INVALID_ARGUMENT, "buffers were given");
  args.struct_size = 0;
  EXPECT_STATUS(tkrt_runtime_launch(rt, call, &args), TKRT_STATUS_INVALID_ARGUMENT,
                "struct_size is 0");
  EXPECT_STATUS(tkrt_runtime_launch(NULL, call, &args), TKRT_STATUS_INVALID_ARGUMENT, "the runtime");
  EXPECT_STATUS(tkrt_runtime_prepare(rt, NULL, device, NULL, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "NULL argument");
  const tkrt_runtime_call_t* entry = NULL;
  EXPECT_STATUS(tkrt_runtime_call_adopt(rt, NULL, &entry), TKRT_STATUS_INVALID_ARGUMENT, "NULL");
  EXPECT_EQ_U64(tkrt_runtime_call_state(NULL, call, device, NULL), 0);
  tkrt_call_release(call);
  tkrt_runtime_release(rt);
}

/* Threads share one runtime: device lookups, blob lookups and launches with their own scalars and
 * buffers, all at once (run under TSan by the tsan preset). */
#define THREADS 4
#define ROUNDS 25

typedef struct worker {
  tkrt_runtime_t* rt;
  const void* blob;
  size_t blob_size;
  int index;
  int failures;
} worker_t;

static void* worker_main(void* arg) {
  worker_t* w = arg;
  tkrt_device_t* device = NULL;
  const tkrt_runtime_call_t* entry = NULL;
  tkrt_status_t status = tkrt_runtime_device(w->rt, NULL, 0, &device);
  if (!status) status = tkrt_runtime_call_from_blob(w->rt, w->blob, w->blob_size, &entry);
  if (status) {
    tkrt_status_free(status);
    w->failures++;
    return NULL;
  }
  float x[1024], y[1024], out[1024];
  for (int i = 0; i < 1024; ++i) x[i] = (float)(i * w->index), y[i] = (float)w->index;
  tkrt_deviceptr_t p[4] = {0};
  status = tkrt_memory_alloc(device, sizeof(x), &p[0]);
  if (!status) status = tkrt_memory_alloc(device, sizeof(y), &p[1]);
  if (!status) status = tkrt_memory_alloc(device, sizeof(out), &p[2]);
  if (!status) status = tkrt_memory_alloc(device, 16, &p[3]);
  if (!status) status = tkrt_memcpy_htod_async(device, p[0], x, sizeof(x), NULL);
  if (!status) status = tkrt_memcpy_htod_async(device, p[1], y, sizeof(y), NULL);
  for (int round = 0; !status && round < ROUNDS; ++round) {
    /* Every thread enqueues on the device's default stream, which runs work in order: this
     * thread's memset, launch and copy stay in order among the others'. */
    const tkrt_runtime_call_t* again = NULL;
    status = tkrt_runtime_call_from_blob(w->rt, w->blob, w->blob_size, &again);
    if (!status && again != entry) w->failures++;
    tkrt_buffer_t buffers[4] = {{p[0], sizeof(x)}, {p[1], sizeof(y)}, {p[2], sizeof(out)}, {p[3], 16}};
    tkrt_scalar_t scalars[1] = {scalar_i32(1 + (round * 37 + w->index) % 1024)};
    tkrt_call_launch_args_t args;
    tkrt_call_launch_args_init(&args);
    tkrt_call_t* launch_call = entry->call;
    args.device = device;
    args.buffers = buffers;
    args.input_count = 2;
    args.output_count = 2;
    args.scalars = scalars;
    args.scalar_count = 1;
    if (!status) status = tkrt_memset_async(device, p[2], 0, sizeof(out), NULL);
    if (!status) status = tkrt_runtime_launch(w->rt, launch_call, &args);
    if (!status) status = tkrt_memcpy_dtoh_async(device, out, p[2], sizeof(out), NULL);
    if (!status) status = tkrt_stream_synchronize(device, NULL);
    for (int i = 0; !status && i < 1024; ++i) {
      float want = i < scalars[0].value.i32 ? x[i] + y[i] : 0.0f;
      if (out[i] != want) {
        w->failures++;
        break;
      }
    }
  }
  if (status) {
    tkrt_status_free(status);
    w->failures++;
  }
  for (int i = 0; i < 4; ++i) {
    if (p[i]) tkrt_status_free(tkrt_memory_free(device, p[i]));
  }
  return NULL;
}

static void concurrent_launches(void) {
  tkrt_runtime_t* rt = host_runtime();
  size_t size = 0;
  void* blob = add_blob(1024, &size);
  ASSERT_TRUE(rt && blob);
  pthread_t threads[THREADS];
  worker_t workers[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    workers[t] = (worker_t){.rt = rt, .blob = blob, .blob_size = size, .index = t + 1};
    ASSERT_TRUE(pthread_create(&threads[t], NULL, worker_main, &workers[t]) == 0);
  }
  for (int t = 0; t < THREADS; ++t) {
    pthread_join(threads[t], NULL);
    EXPECT_EQ_U64((uint64_t)workers[t].failures, 0);
  }
  tkrt_runtime_stats_t stats = {.struct_size = sizeof(stats)};
  tkrt_runtime_get_stats(rt, &stats);
  EXPECT_EQ_U64(stats.devices_opened, 1);
  EXPECT_EQ_U64(stats.cache_entries, 1);
  free(blob);
  tkrt_runtime_release(rt);
}

int main(int argc, char** argv) {
  int exit_code = core_test_init(&argc, argv);
  if (exit_code) return exit_code;
  /* No device of the backend here: skipped, as the core tests are. */
  tkrt_runtime_t* probe = host_runtime();
  tkrt_device_t* device = NULL;
  tkrt_status_t status = probe ? tkrt_runtime_device(probe, g_backend, 0, &device) : NULL;
  if (status) {
    int unavailable = tkrt_status_code(status) == TKRT_STATUS_UNAVAILABLE;
    tkrt_test_print_status_(__FILE__, __LINE__, "opening the test's device", status);
    tkrt_status_free(status);
    tkrt_runtime_release(probe);
    free(g_image);
    if (unavailable) printf("0 passed, 0 failed, 1 skipped\n");
    return unavailable ? 77 : 1;
  }
  tkrt_runtime_release(probe);
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(environment_strings_checked),
      TKRT_TEST_CASE(default_and_explicit),
      TKRT_TEST_CASE(configure_until_frozen),
      TKRT_TEST_CASE(devices_by_backend_and_ordinal),
      TKRT_TEST_CASE(blob_cache),
      TKRT_TEST_CASE(state_query),
      TKRT_TEST_CASE(per_launch_scalars),
      TKRT_TEST_CASE(per_launch_scalar_kinds),
      TKRT_TEST_CASE(per_launch_grid),
      TKRT_TEST_CASE(alias_by_size),
      TKRT_TEST_CASE(alias_by_index),
      TKRT_TEST_CASE(launch_errors), TKRT_TEST_CASE(device_for_stream),
      TKRT_TEST_CASE(concurrent_launches),
  };
  exit_code = tkrt_test_main(argc - 1, argv + 1, cases, sizeof(cases) / sizeof(cases[0]));
  free(g_image);
  return exit_code;
}
