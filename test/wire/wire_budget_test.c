/* SPDX-License-Identifier: Apache-2.0 */
/* The decoder's memory bounds: the record budget (TKRT_WIRE_MAX_RECORD_BYTES) counts parameters,
 * configs, aliases and images across the whole message, so that a small blob whose 2-byte empty
 * Parameters would each become a record of a few hundred bytes fails fast, before allocating; and
 * the HSACO files of one decode total at most max_message_size. Large legitimate calls still decode.
 * Usage: wire_budget_test VECTORS_DIR REGRESSIONS_DIR [case...]. */
#include <sys/resource.h>
#include <sys/time.h>

#include "test/wire/wire_test_util.h"

static const char* g_regressions_dir; /* argv[2] */

/* Peak resident set size of the process so far, in bytes. */
static size_t peak_rss(void) {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
#ifdef __APPLE__
  return (size_t)usage.ru_maxrss;
#else
  return (size_t)usage.ru_maxrss * 1024;
#endif
}

/* Whether text names one of fields ('|'-separated). */
static bool names_field(const char* text, const char* fields) {
  char one[64];
  for (const char* at = fields; *at;) {
    size_t n = strcspn(at, "|");
    snprintf(one, sizeof(one), "%.*s", (int)n, at);
    if (strstr(text, one)) return true;
    at += n + (at[n] == '|');
  }
  return false;
}

/* Checks a budget error: the code, the field (one of fields: where the limit is crossed depends
 * on the records' sizes), the limit, and that the decoder's own accounting ("N used", which the
 * error reports) stayed within the limit. */
static void expect_budget_error(tkrt_status_t status, const char* field) {
  char limit[64];
  snprintf(limit, sizeof(limit), "limit of %zu bytes (TKRT_WIRE_MAX_RECORD_BYTES; ",
           TKRT_WIRE_MAX_RECORD_BYTES);
  EXPECT_TRUE(status != NULL);
  if (!status) return;
  const char* text = tkrt_status_message(status);
  EXPECT_TRUE(tkrt_status_code(status) == TKRT_STATUS_RESOURCE_EXHAUSTED);
  EXPECT_TRUE(names_field(text, field));
  EXPECT_TRUE(strstr(text, " at offset ") != NULL);
  const char* used = strstr(text, limit);
  EXPECT_TRUE(used != NULL);
  if (used) {
    unsigned long long n = strtoull(used + strlen(limit), NULL, 10);
    EXPECT_TRUE(n <= TKRT_WIRE_MAX_RECORD_BYTES);
  }
  if (tkrt_status_code(status) != TKRT_STATUS_RESOURCE_EXHAUSTED || !names_field(text, field)) {
    fprintf(stderr, "  got: %s\n", text);
  }
  tkrt_status_free(status);
}

/* The reviewer's reproducer: 67 KiB of zlib, 64 MiB decompressed, 512 configs of 65,535 empty
 * Parameters. It used to peak at 5.5 GB before failing; now it stops at the budget. */
static void test_param_bomb_fails_fast(void) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/param_record_bomb_64MiB.z", g_regressions_dir);
  size_t size = 0;
  uint8_t* blob = tkrt_test_read_file(path, &size);
  ASSERT_TRUE(blob != NULL);
  size_t before = peak_rss();
  tkrt_call_t* call = NULL;
  tkrt_status_t status = wt_decode(blob, size, &call);
  size_t grown = peak_rss() - before;
  EXPECT_TRUE(call == NULL);
  expect_budget_error(status, "field 5 (TritonKernelCall.parameters)");
  /* The decompressed message (64 MiB) plus at most the budget (64 MiB) of records. The slack
   * covers ASan (shadow memory, redzones, its quarantine of freed blocks); before the fix this was
   * 5.5 GB. */
  printf("  peak RSS grew by %zu MiB\n", grown >> 20);
  EXPECT_TRUE(grown < ((size_t)768 << 20));
  free(blob);
}

/* Appends n empty Parameters (`2a 00`: an unset oneof) to m. */
static void empty_params(wt_msg_t* m, size_t n) {
  for (size_t i = 0; i < n; ++i) tkrt_wire_put_raw(m, "\x2a\x00", 2);
}

/* Parameters under the per-call cap (65,536) in each config, over the budget in total. */
static void test_total_params_across_configs(void) {
  wt_msg_t autotuned, config, kcall, m;
  wt_msg_init(&autotuned);
  wt_msg_init(&kcall);
  wt_msg_init(&config);
  wt_msg_init(&m);
  empty_params(&kcall, 60000);
  wt_sub(&config, 1, &kcall);
  for (int c = 0; c < 8; ++c) wt_sub(&autotuned, 2, &config);
  wt_sub(&m, 2, &autotuned);
  ASSERT_TRUE(!m.failed);
  tkrt_call_t* call = NULL;
  expect_budget_error(wt_decode(m.data, m.size, &call), "field 5 (TritonKernelCall.parameters)");
  EXPECT_TRUE(call == NULL);
  wt_msg_free(&autotuned);
  wt_msg_free(&kcall);
  wt_msg_free(&config);
  wt_msg_free(&m);
}

/* Empty configs (`12 00`), under the 65,536 cap: each would become a kernel and a config. */
static void test_empty_configs(void) {
  wt_msg_t autotuned, m;
  wt_msg_init(&autotuned);
  wt_msg_init(&m);
  for (int c = 0; c < 65000; ++c) tkrt_wire_put_raw(&autotuned, "\x12\x00", 2);
  wt_sub(&m, 2, &autotuned);
  tkrt_call_t* call = NULL;
  expect_budget_error(wt_decode(m.data, m.size, &call),
                      "field 2 (TritonAutotunedKernelCall.configs)");
  EXPECT_TRUE(call == NULL);
  wt_msg_free(&autotuned);
  wt_msg_free(&m);
}

/* TMA parameters: each pays for its out-of-line descriptor. `4a 00` is an empty TmaParameter. */
static void test_tma_params_budget(void) {
  wt_msg_t autotuned, config, kcall, m;
  wt_msg_init(&autotuned);
  wt_msg_init(&kcall);
  wt_msg_init(&config);
  wt_msg_init(&m);
  for (int i = 0; i < 60000; ++i) tkrt_wire_put_raw(&kcall, "\x2a\x02\x4a\x00", 4);
  wt_sub(&config, 1, &kcall);
  for (int c = 0; c < 8; ++c) wt_sub(&autotuned, 2, &config);
  wt_sub(&m, 2, &autotuned);
  tkrt_call_t* call = NULL;
  expect_budget_error(wt_decode(m.data, m.size, &call),
                      "TritonKernelCall.parameters|Parameter.tma_descriptor");
  EXPECT_TRUE(call == NULL);
  wt_msg_free(&autotuned);
  wt_msg_free(&kcall);
  wt_msg_free(&config);
  wt_msg_free(&m);
}

/* Decodes m, encodes it back uncompressed and expects the same bytes. */
static void expect_round_trip(const wt_msg_t* m, size_t configs, size_t params_per_config) {
  tkrt_call_t* call = NULL;
  EXPECT_OK(wt_decode(m->data, m->size, &call));
  if (!call) return;
  const tkrt_call_desc_t* desc = tkrt_call_get_desc(call);
  EXPECT_EQ_U64(desc->config_count, configs);
  for (size_t c = 0; c < desc->config_count; ++c) {
    EXPECT_EQ_U64(desc->configs[c].param_count, params_per_config);
  }
  void* bytes = NULL;
  size_t size = 0;
  EXPECT_OK(wt_encode_raw(call, true, &bytes, &size));
  EXPECT_TRUE(bytes && size == m->size && memcmp(bytes, m->data, size) == 0);
  tkrt_wire_free(bytes);
  tkrt_call_release(call);
}

/* 10,000 parameters (i32, arrays, TMA) in one call; and an autotuned call of 8 such configs. */
static void test_large_calls_decode(void) {
  wt_msg_t params, p, tma, outer, desc;
  wt_msg_init(&params);
  wt_msg_init(&desc);
  wt_varint(&desc, 1, 7);
  tkrt_wire_put_raw(&desc, "\x1a\x01\x40\x22\x01\x02\x2a\x01\x10", 9); /* shape, strides, block */
  wt_msg_init(&outer);
  wt_sub(&outer, 1, &desc);
  wt_msg_init(&tma);
  wt_sub(&tma, 9, &outer);
  for (int i = 0; i < 10000; ++i) {
    wt_msg_init(&p);
    if (i % 3 == 0) wt_varint(&p, 3, (uint64_t)i);
    if (i % 3 == 1) tkrt_wire_put_raw(&p, "\x0a\x02\x10\x10", 4); /* array, divisibility 16 */
    if (i % 3 == 2) tkrt_wire_put_raw(&p, tma.data, tma.size);
    wt_sub(&params, 5, &p);
    wt_msg_free(&p);
  }
  wt_msg_t m;
  wt_msg_init(&m);
  wt_min_call(&m, &params);
  expect_round_trip(&m, 1, 10000);
  wt_msg_free(&m);

  /* The same TritonKernelCall in 8 configs: 80,000 parameters in total. */
  wt_msg_t single, autotuned, config;
  wt_msg_init(&single);
  wt_min_call(&single, &params);
  /* single is TritonAnyKernelCall{1: kcall}: take the kcall's bytes after its tag and length. */
  tkrt_wire_reader_t r;
  tkrt_wire_field_t f;
  tkrt_wire_reader_init(&r, single.data, single.size, "", NULL);
  ASSERT_OK(tkrt_wire_next_field(&r, &f));
  wt_msg_init(&autotuned);
  wt_str(&autotuned, 1, "tuned");
  for (int c = 0; c < 8; ++c) {
    wt_msg_init(&config);
    tkrt_wire_put_bytes_field(&config, 1, f.data, f.size);
    wt_str(&config, 2, "cfg");
    wt_sub(&autotuned, 2, &config);
    wt_msg_free(&config);
  }
  wt_msg_init(&m);
  wt_sub(&m, 2, &autotuned);
  expect_round_trip(&m, 8, 10000);
  wt_msg_free(&m);
  wt_msg_free(&single);
  wt_msg_free(&autotuned);
  wt_msg_free(&params);
  wt_msg_free(&tma);
  wt_msg_free(&outer);
  wt_msg_free(&desc);
}

/* Every vector still decodes within the budget, and the largest (matmul_autotuned, 252 KB) with
 * the smallest message limit that fits it. */
static void test_vectors_decode(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  for (size_t v = 0; v < WT_VECTOR_COUNT; ++v) {
    size_t size = 0;
    uint8_t* z = wt_read_vector(kVectorNames[v], "call.pb.z", &size);
    size_t raw_size = 0;
    uint8_t* raw = wt_read_vector(kVectorNames[v], "call.pb", &raw_size);
    ASSERT_TRUE(z && raw);
    tkrt_wire_decode_options_t options;
    tkrt_wire_decode_options_init(&options);
    options.read_hsaco_files = false;
    options.max_message_size = raw_size;
    tkrt_call_t* call = NULL;
    EXPECT_OK(tkrt_wire_decode(z, size, &options, &call));
    tkrt_call_release(call);
    free(z);
    free(raw);
  }
}

/* Many configs naming one HSACO file: the files of one decode total at most max_message_size. */
static void test_hsaco_files_total(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  char path[4096];
  snprintf(path, sizeof(path), "%s/hsaco/gfx942/kernel.hsaco", g_vectors_dir);
  struct stat st;
  if (stat(path, &st) != 0) TKRT_TEST_SKIP("no hsaco vector");
  wt_msg_t k, kcall, config, autotuned, m;
  wt_msg_init(&k);
  wt_str(&k, 1, "k");
  wt_varint(&k, 2, 4);
  wt_str(&k, 4, path);
  wt_msg_init(&kcall);
  wt_sub(&kcall, 1, &k);
  wt_msg_init(&config);
  wt_sub(&config, 1, &kcall);
  wt_msg_init(&autotuned);
  for (int c = 0; c < 4; ++c) wt_sub(&autotuned, 2, &config);
  wt_msg_init(&m);
  wt_sub(&m, 2, &autotuned);
  tkrt_wire_decode_options_t options;
  tkrt_wire_decode_options_init(&options);
  tkrt_call_t* call = NULL;
  /* Room for four copies: fine. */
  options.max_message_size = 4 * (size_t)st.st_size;
  EXPECT_OK(tkrt_wire_decode(m.data, m.size, &options, &call));
  if (call) EXPECT_EQ_U64(tkrt_call_get_desc(call)->config_count, 4);
  tkrt_call_release(call);
  call = NULL;
  /* Room for two and a half: the third read fails, and says why. */
  options.max_message_size = 5 * (size_t)st.st_size / 2;
  EXPECT_STATUS(tkrt_wire_decode(m.data, m.size, &options, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "the HSACO files of one message total at most");
  EXPECT_TRUE(call == NULL);
  wt_msg_free(&k);
  wt_msg_free(&kcall);
  wt_msg_free(&config);
  wt_msg_free(&autotuned);
  wt_msg_free(&m);
}

/* The defaults: 256 MiB unless asked, clamped at 1 GiB. */
static void test_default_message_limit(void) {
  tkrt_wire_decode_options_t options;
  tkrt_wire_decode_options_init(&options);
  EXPECT_EQ_U64(options.max_message_size, TKRT_WIRE_DEFAULT_MESSAGE_SIZE);
  EXPECT_TRUE(TKRT_WIRE_DEFAULT_MESSAGE_SIZE <= TKRT_WIRE_MAX_MESSAGE_SIZE);
}

int main(int argc, char** argv) {
  g_vectors_dir = argc > 1 ? argv[1] : NULL;
  g_regressions_dir = argc > 2 ? argv[2] : "test/fuzz/regressions";
  /* The bomb first, so that the other cases do not raise the peak RSS it measures against. */
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(test_param_bomb_fails_fast),
      TKRT_TEST_CASE(test_total_params_across_configs),
      TKRT_TEST_CASE(test_empty_configs),
      TKRT_TEST_CASE(test_tma_params_budget),
      TKRT_TEST_CASE(test_large_calls_decode),
      TKRT_TEST_CASE(test_vectors_decode),
      TKRT_TEST_CASE(test_hsaco_files_total),
      TKRT_TEST_CASE(test_default_message_limit),
  };
  return tkrt_test_main(argc > 2 ? argc - 2 : 1, argc > 2 ? argv + 2 : argv, cases,
                        sizeof(cases) / sizeof(cases[0]));
}
