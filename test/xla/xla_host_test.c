/* SPDX-License-Identifier: Apache-2.0 */
/* libtkrt_xla on the host, without XLA: the typed-FFI execute handler driven through a call frame
 * whose API table answers as XLA does (no instantiate state, so every execute looks its blob up
 * by address), on the host backend. Real jaxlib blobs (the shared vectors) are looked up, decoded
 * once, and then found through the address table: every call site once, never again, however
 * many call sites share one blob; a different blob at a reused address is noticed, even one of the
 * same size, header and checksum that differs only in the middle. The launches
 * themselves fail (the blobs hold PTX, the device is the host), which is the error checked; so
 * does the initialize stage's prepare, which must then be tried again at every initialize (the
 * GPU suite, test/xla/test_xla.py, checks the prepared path: one prepare, then none).
 *
 * usage: xla_host_test JAXLIB_VECTORS_DIR [case...]   (exit 77 without the vectors) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "test/harness.h"
#include "xla/tkrt_xla.h"

static const char* g_vectors;

struct tkrt_ffi_error {
  char message[512];
};

static tkrt_ffi_error_t* fake_error_create(tkrt_ffi_error_create_args_t* args) {
  tkrt_ffi_error_t* error = calloc(1, sizeof(*error));
  if (error) snprintf(error->message, sizeof(error->message), "%s", args->message);
  return error;
}
static void fake_error_destroy(tkrt_ffi_error_destroy_args_t* args) { (void)args; }
static tkrt_ffi_error_t* fake_stream_get(tkrt_ffi_stream_get_args_t* args) {
  args->stream = NULL; /* the host device's default stream */
  return NULL;
}
static tkrt_ffi_error_t* fake_device_ordinal_get(tkrt_ffi_device_ordinal_get_args_t* args) {
  args->device_ordinal = 0;
  return NULL;
}

static tkrt_xla_stats_t stats(void) {
  tkrt_xla_stats_t s;
  memset(&s, 0, sizeof(s));
  s.struct_size = sizeof(s);
  tkrt_xla_get_stats(&s);
  return s;
}

typedef tkrt_ffi_error_t* (*stage_handler_t)(tkrt_ffi_call_frame_t* frame);

/* One call of a stage's handler on `blob` (at its own address) through a frame like XLA's;
 * returns the error's message (static storage), or NULL when the stage succeeded. */
static const char* run_stage(stage_handler_t handler, tkrt_ffi_stage_t stage,
                             const void* blob, size_t size) {
  static tkrt_ffi_api_t api;
  api.struct_size = sizeof(api);
  api.error_create = fake_error_create;
  api.error_destroy = fake_error_destroy;
  api.stream_get = fake_stream_get;
  api.device_ordinal_get = fake_device_ordinal_get;
  static float x[16], y[16], out[16];
  int64_t dims[1] = {16};
  tkrt_ffi_buffer_t bx = {.struct_size = sizeof(bx), .dtype = TKRT_FFI_DTYPE_F32, .data = x,
                          .rank = 1, .dims = dims};
  tkrt_ffi_buffer_t by = bx, bout = bx;
  by.data = y;
  bout.data = out;
  tkrt_ffi_arg_type_t arg_types[2] = {TKRT_FFI_ARG_BUFFER, TKRT_FFI_ARG_BUFFER};
  tkrt_ffi_ret_type_t ret_types[1] = {TKRT_FFI_RET_BUFFER};
  void* args[2] = {&bx, &by};
  void* rets[1] = {&bout};
  tkrt_ffi_byte_span_t name = {"opaque", 6}, value = {blob, size};
  tkrt_ffi_byte_span_t* names[1] = {&name};
  tkrt_ffi_attr_type_t attr_types[1] = {TKRT_FFI_ATTR_STRING};
  void* attrs[1] = {&value};
  tkrt_ffi_call_frame_t frame;
  memset(&frame, 0, sizeof(frame));
  frame.struct_size = sizeof(frame);
  frame.api = &api;
  frame.stage = stage;
  frame.args = (tkrt_ffi_args_t){.struct_size = sizeof(tkrt_ffi_args_t), .size = 2,
                                 .types = arg_types, .args = args};
  frame.rets = (tkrt_ffi_rets_t){.struct_size = sizeof(tkrt_ffi_rets_t), .size = 1,
                                 .types = ret_types, .rets = rets};
  frame.attrs = (tkrt_ffi_attrs_t){.struct_size = sizeof(tkrt_ffi_attrs_t), .size = 1,
                                   .types = attr_types, .names = names, .attrs = attrs};
  static char message[512];
  tkrt_ffi_error_t* error = handler(&frame);
  if (!error) return NULL;
  snprintf(message, sizeof(message), "%s", error->message);
  free(error);
  return message;
}

static const char* execute(const void* blob, size_t size) {
  return run_stage(tkrt_xla_ffi_execute, TKRT_FFI_STAGE_EXECUTE, blob, size);
}

static const char* initialize(const void* blob, size_t size) {
  return run_stage(tkrt_xla_ffi_initialize, TKRT_FFI_STAGE_INITIALIZE, blob, size);
}

static void* read_vector(const char* name, size_t* size) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s/call.pb.z", g_vectors, name);
  return tkrt_test_read_file(path, size);
}

static void settings(void) {
  char error[512];
  /* Before the first call: the host backend (XLA's default is cuda,hip), captures not counted. */
  EXPECT_EQ_U64(tkrt_xla_configure("backend", "host", error, sizeof(error)), 0);
  EXPECT_EQ_U64(tkrt_xla_configure("count_captures", "on", error, sizeof(error)), 0);
  EXPECT_EQ_U64(tkrt_xla_configure("count_captures", "off", error, sizeof(error)), 0);
  /* Case does not matter, as for tkrt's own switches. */
  EXPECT_EQ_U64(tkrt_xla_configure("count_captures", "ON", error, sizeof(error)), 0);
  EXPECT_EQ_U64(tkrt_xla_configure("count_captures", "False", error, sizeof(error)), 0);
  EXPECT_EQ_U64(tkrt_xla_configure("capture_policy", "Error", error, sizeof(error)), 0);
  EXPECT_EQ_U64(tkrt_xla_configure("capture_policy", "first_config", error, sizeof(error)), 0);
  EXPECT_EQ_U64(tkrt_xla_configure("capture_policy", "sometimes", error, sizeof(error)), 3);
  EXPECT_EQ_U64(tkrt_xla_configure("count_captures", "sometimes", error, sizeof(error)), 3);
  EXPECT_TRUE(strstr(error, "count_captures on|off") != NULL);
  /* A build without TKRT_PROFILE times nothing. */
  double rate = -1;
  uint64_t values[4];
  const char* stage_names[4];
#ifdef TKRT_PROFILE
  EXPECT_TRUE(tkrt_xla_profile(values, stage_names, 4, &rate, 1) > 4 && rate > 0);
#else
  EXPECT_EQ_U64(tkrt_xla_profile(values, stage_names, 4, &rate, 1), 0);
  EXPECT_TRUE(rate == 0);
#endif
}

static void address_table(void) {
  size_t add_size = 0, other_size = 0;
  unsigned char* add = read_vector("add_f32", &add_size);
  unsigned char* other = read_vector("scalars", &other_size);
  ASSERT_TRUE(add && other && add_size != other_size);
  /* 50 call sites carrying the same blob, each at its own address, as in a chain of calls. */
  enum { SITES = 50 };
  size_t capacity = add_size > other_size ? add_size : other_size;
  unsigned char* sites[SITES];
  for (int i = 0; i < SITES; ++i) {
    sites[i] = malloc(capacity);
    ASSERT_TRUE(sites[i] != NULL);
    memcpy(sites[i], add, add_size);
  }
  tkrt_xla_stats_t before = stats();
  for (int i = 0; i < SITES; ++i) {
    const char* message = execute(sites[i], add_size);
    EXPECT_TRUE(message && strstr(message, "no image for this device (host") != NULL);
  }
  tkrt_xla_stats_t first = stats();
  EXPECT_EQ_U64(first.decoded - before.decoded, 1);
  EXPECT_EQ_U64(first.blob_hashes - before.blob_hashes, SITES); /* each site's first call */
  EXPECT_EQ_U64(first.cache_entries - before.cache_entries, 1);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < SITES; ++i) (void)execute(sites[i], add_size);
  }
  tkrt_xla_stats_t later = stats();
  EXPECT_EQ_U64(later.blob_hashes - first.blob_hashes, 0); /* every site hits, every round */
  EXPECT_EQ_U64(later.decoded - first.decoded, 0);
  EXPECT_EQ_U64(later.errors - first.errors, 3 * SITES);

  /* Another blob at a reused address: looked up (and decoded) afresh, not taken for the old. */
  memcpy(sites[7], other, other_size);
  const char* message = execute(sites[7], other_size);
  EXPECT_TRUE(message && strstr(message, "no image for this device (host") != NULL);
  tkrt_xla_stats_t reused = stats();
  EXPECT_EQ_U64(reused.decoded - later.decoded, 1);
  EXPECT_EQ_U64(reused.blob_hashes - later.blob_hashes, 1);
  (void)execute(sites[7], other_size);
  EXPECT_EQ_U64(stats().blob_hashes - reused.blob_hashes, 0);
  /* And back: the address with the first blob's size still names the first entry (the whole
   * blob matches its copy), so nothing is hashed or decoded again. */
  memcpy(sites[7], add, add_size);
  message = execute(sites[7], add_size);
  EXPECT_TRUE(message && strstr(message, "no image for this device (host") != NULL);
  tkrt_xla_stats_t back = stats();
  EXPECT_EQ_U64(back.decoded - reused.decoded, 0);
  EXPECT_EQ_U64(back.blob_hashes - reused.blob_hashes, 0);
  EXPECT_EQ_U64(back.executed_captured, 0); /* not counted unless asked for */
  for (int i = 0; i < SITES; ++i) free(sites[i]);
  free(add);
  free(other);
}

/* A blob recompressed without compression (zlib stored blocks): its bytes are the call's, so
 * three adjacent bytes changed by +1, -2, +1 leave its size, its zlib header and its Adler-32
 * checksum (the blob's first and last bytes) as they were. */
static unsigned char* stored_blob(const unsigned char* call, size_t call_size, size_t* out_size) {
  uLongf size = compressBound((uLong)call_size);
  unsigned char* blob = malloc(size);
  if (!blob || compress2(blob, &size, call, (uLong)call_size, 0) != Z_OK) {
    free(blob);
    return NULL;
  }
  *out_size = size;
  return blob;
}

/* Two blobs of the same size whose first and last 1 KiB are equal, differing in three bytes in
 * the middle (a comment in the PTX, so both decode), one after the other at one address: the
 * second is a different call and must be hashed and decoded afresh, not served the first's entry
 * (a hit compares the whole blob; an earlier table compared size and edges only). */
static void address_table_whole_blob(void) {
  size_t call_size = 0;
  char path[1024];
  snprintf(path, sizeof(path), "%s/add_f32/call.pb", g_vectors);
  unsigned char* call = tkrt_test_read_file(path, &call_size);
  ASSERT_TRUE(call != NULL);
  static const char kComment[] = "// -- End function";
  unsigned char* at = NULL;
  for (size_t i = 0; i + sizeof(kComment) - 1 <= call_size && !at; ++i) {
    if (memcmp(call + i, kComment, sizeof(kComment) - 1) == 0) at = call + i + 6; /* "End" */
  }
  ASSERT_TRUE(at != NULL);
  size_t first_size = 0, second_size = 0;
  unsigned char* first = stored_blob(call, call_size, &first_size);
  at[0] += 1, at[1] -= 2, at[2] += 1; /* "End" -> "Fle": the same byte sum and weighted sum */
  unsigned char* second = stored_blob(call, call_size, &second_size);
  ASSERT_TRUE(first && second && first_size == second_size && first_size > 4096);
  EXPECT_TRUE(memcmp(first, second, 1024) == 0);
  EXPECT_TRUE(memcmp(first + first_size - 1024, second + first_size - 1024, 1024) == 0);
  EXPECT_TRUE(memcmp(first, second, first_size) != 0);

  unsigned char* site = malloc(first_size);
  ASSERT_TRUE(site != NULL);
  memcpy(site, first, first_size);
  tkrt_xla_stats_t before = stats();
  const char* message = execute(site, first_size);
  EXPECT_TRUE(message && strstr(message, "no image for this device (host") != NULL);
  (void)execute(site, first_size); /* a hit: the same bytes at the same address */
  tkrt_xla_stats_t seen = stats();
  EXPECT_EQ_U64(seen.blob_hashes - before.blob_hashes, 1);
  EXPECT_EQ_U64(seen.decoded - before.decoded, 1);

  memcpy(site, second, second_size); /* another blob at the same address, edges unchanged */
  message = execute(site, second_size);
  EXPECT_TRUE(message && strstr(message, "no image for this device (host") != NULL);
  tkrt_xla_stats_t other = stats();
  EXPECT_EQ_U64(other.blob_hashes - seen.blob_hashes, 1);
  EXPECT_EQ_U64(other.decoded - seen.decoded, 1);
  EXPECT_EQ_U64(other.cache_entries - seen.cache_entries, 1);
  (void)execute(site, second_size); /* now remembered: a hit */
  EXPECT_EQ_U64(stats().blob_hashes - other.blob_hashes, 0);

  memcpy(site, first, first_size); /* and back: found by hash in the cache, not decoded again */
  (void)execute(site, first_size);
  tkrt_xla_stats_t back = stats();
  EXPECT_EQ_U64(back.blob_hashes - other.blob_hashes, 1);
  EXPECT_EQ_U64(back.decoded - other.decoded, 0);
  free(site);
  free(first);
  free(second);
  free(call);
}

/* XLA runs initialize before every execution. A call whose prepare fails (PTX on the host) is
 * never taken for prepared: every initialize tries again and reports the same error, and the
 * counters of successful initializes and prepares do not move. */
static void initialize_failure_is_not_remembered(void) {
  size_t size = 0;
  unsigned char* add = read_vector("add_f32", &size);
  ASSERT_TRUE(add != NULL);
  tkrt_xla_stats_t before = stats();
  for (int i = 0; i < 3; ++i) {
    const char* message = initialize(add, size);
    EXPECT_TRUE(message && strstr(message, "preparing") != NULL &&
                strstr(message, "no image for this device (host") != NULL);
  }
  tkrt_xla_stats_t after = stats();
  EXPECT_EQ_U64(after.initialized - before.initialized, 0);
  EXPECT_EQ_U64(after.prepared - before.prepared, 0);
  EXPECT_EQ_U64(after.errors - before.errors, 3);
  free(add);
}

/* The adapter's own environment switches (CTest runs these two cases in processes of their own,
 * with TKRT_XLA_* set; elsewhere they skip). Words match ignoring case, as tkrt's switches do; a
 * value that is neither on nor off is refused when the first call opens a device, naming the
 * variable and the value, never taken for the default. */
static void environment_refused(void) {
  const char* count = getenv("TKRT_XLA_COUNT_CAPTURES");
  if (!count || strcmp(count, "Sometimes") != 0) {
    TKRT_TEST_SKIP("run with TKRT_XLA_COUNT_CAPTURES=Sometimes (CTest xla.host.env_refused)");
  }
  size_t size = 0;
  unsigned char* add = read_vector("add_f32", &size);
  ASSERT_TRUE(add != NULL);
  tkrt_xla_stats_t before = stats();
  const char* message = execute(add, size);
  EXPECT_TRUE(message && strstr(message, "TKRT_XLA_COUNT_CAPTURES is 'Sometimes'") != NULL &&
              strstr(message, "expected on or off") != NULL);
  EXPECT_EQ_U64(stats().devices_opened - before.devices_opened, 0);
  free(add);
}

/* TKRT_LOG=Loud: the first call fails naming the variable, nothing is opened (the level words are
 * tkrt's: docs/logging.md). */
static void environment_log_refused(void) {
  const char* log = getenv("TKRT_LOG");
  if (!log || strcmp(log, "Loud") != 0) {
    TKRT_TEST_SKIP("run with TKRT_LOG=Loud (CTest xla.host.env_log_refused)");
  }
  size_t size = 0;
  unsigned char* add = read_vector("add_f32", &size);
  ASSERT_TRUE(add != NULL);
  const char* message = execute(add, size);
  EXPECT_TRUE(message && strstr(message, "TKRT_LOG is 'Loud'") != NULL &&
              strstr(message, "expected off, error, warn, info or debug") != NULL);
  EXPECT_EQ_U64(stats().devices_opened, 0);
  free(add);
}

static void environment_accepted(void) {
  const char* count = getenv("TKRT_XLA_COUNT_CAPTURES");
  if (!count || strcmp(count, "ON") != 0) {
    TKRT_TEST_SKIP("run with TKRT_XLA_COUNT_CAPTURES=ON (CTest xla.host.env_accepted)");
  }
  size_t size = 0;
  unsigned char* add = read_vector("add_f32", &size);
  ASSERT_TRUE(add != NULL);
  /* The device opens (ON and Error are accepted); the launch then fails on the PTX image. */
  const char* message = execute(add, size);
  EXPECT_TRUE(message && strstr(message, "no image for this device (host") != NULL);
  EXPECT_EQ_U64(stats().devices_opened, 1);
  free(add);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s JAXLIB_VECTORS_DIR [case...]\n", argv[0]);
    return 2;
  }
  g_vectors = argv[1];
  size_t size = 0;
  void* probe = read_vector("add_f32", &size);
  if (!probe) {
    fprintf(stderr, "skipped: no jaxlib vectors at %s\n", g_vectors);
    return 77;
  }
  free(probe);
  static const tkrt_test_case_t cases[] = {TKRT_TEST_CASE(settings),
                                           TKRT_TEST_CASE(address_table),
                                           TKRT_TEST_CASE(address_table_whole_blob),
                                           TKRT_TEST_CASE(initialize_failure_is_not_remembered),
                                           TKRT_TEST_CASE(environment_refused),
                                           TKRT_TEST_CASE(environment_log_refused),
                                           TKRT_TEST_CASE(environment_accepted)};
  argv[1] = argv[0];
  return tkrt_test_main(argc - 1, argv + 1, cases, sizeof(cases) / sizeof(cases[0]));
}
