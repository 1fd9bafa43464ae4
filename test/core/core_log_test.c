/* SPDX-License-Identifier: Apache-2.0 */
/* The library's own warnings go through the log (tkrt/log.h): the tuner's decision-store warnings,
 * raised by a real tuning run on a store that cannot be used, reach an embedder's sink (and not
 * stderr), are dropped below the level, and reach stderr as one line when no sink is set. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "test/core/core_test_util.h"
#include "test/stderr_capture.h"

#define N 4096

static tkrt_device_t* g_device;

typedef struct record {
  int count;
  tkrt_log_level_t level;
  char component[32];
  char message[2048];
} record_t;

/* Keeps the tuner's messages (the component "tune"); the backend's info and debug lines, which
 * TKRT_LOG may let through, are counted apart. */
static void record_sink(void* user, tkrt_log_level_t level, const char* component,
                        const char* message) {
  record_t* r = user;
  if (strcmp(component, "tune") != 0) return;
  ++r->count;
  r->level = level;
  snprintf(r->component, sizeof(r->component), "%s", component);
  snprintf(r->message, sizeof(r->message), "%s", message);
}

/* Tunes the shared in-place call once with the tuner; the sum must be right. */
static void tune_once(tkrt_autotuner_t* tuner) {
  core_inplace_spec_t spec = {.n = N, .micros = {300, 20, 150}};
  tkrt_call_t* call = core_inplace_call(&spec);
  ASSERT_TRUE(call != NULL);
  static float x[N], y[N], out[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i;
    y[i] = 2.0f;
  }
  tkrt_deviceptr_t dx = core_upload(g_device, x, sizeof(x));
  tkrt_deviceptr_t dy = core_upload(g_device, y, sizeof(y));
  tkrt_deviceptr_t counter = core_upload(g_device, NULL, 16);
  tkrt_buffer_t buffers[] = {{dx, N * 4}, {dy, N * 4}, {counter, 16}, {dx, N * 4}};
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 3, 1, tuner));
  core_download(g_device, out, dx, sizeof(out));
  size_t wrong = 0;
  for (int i = 0; i < N; ++i) wrong += out[i] != x[i] + y[i];
  EXPECT_EQ_U64(wrong, 0);
  EXPECT_OK(tkrt_memory_free(g_device, dx));
  EXPECT_OK(tkrt_memory_free(g_device, dy));
  EXPECT_OK(tkrt_memory_free(g_device, counter));
  tkrt_call_release(call);
}

/* A store "folder" that is a regular file: the store cannot be used. */
static void make_unusable_store(char* dir, char* store, size_t capacity) {
  snprintf(dir, 64, "/tmp/tkrt-core-log-dir-XXXXXX");
  if (!mkdtemp(dir)) return;
  snprintf(store, capacity, "%s/not-a-folder", dir);
  FILE* file = fopen(store, "w");
  if (file) {
    fputs("a file, not a folder\n", file);
    fclose(file);
  }
}

static void remove_tree(const char* dir) {
  char command[256];
  snprintf(command, sizeof(command), "rm -rf %s", dir);
  EXPECT_EQ_U64(system(command), 0);
}

static void test_store_warning_reaches_the_sink_not_stderr(void) {
  char dir[64], store[128];
  make_unusable_store(dir, store, sizeof(store));
  record_t r = {0};
  ASSERT_OK(tkrt_log_set_sink(record_sink, &r));
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_WARN));
  tkrt_autotuner_t* tuner = core_tuner(store, 1.0, 2);
  ASSERT_TRUE(tuner != NULL);
  ASSERT_TRUE(capture_stderr_begin());
  tune_once(tuner);
  tune_once(tuner); /* a second call: said once per tuner */
  char* text = capture_stderr_end();
  EXPECT_EQ_U64(r.count, 1);
  EXPECT_EQ_U64(r.level, TKRT_LOG_WARN);
  EXPECT_STREQ(r.component, "tune");
  EXPECT_TRUE(strstr(r.message, "tuning decision store: ") == r.message);
  EXPECT_TRUE(strstr(r.message, store) != NULL);
  EXPECT_STREQ(text, ""); /* nothing went to stderr */
  free(text);
  tkrt_autotuner_destroy(tuner);
  ASSERT_OK(tkrt_log_set_sink(NULL, NULL));
  remove_tree(dir);
}

static void test_store_warning_below_the_level_is_dropped(void) {
  char dir[64], store[128];
  make_unusable_store(dir, store, sizeof(store));
  record_t r = {0};
  ASSERT_OK(tkrt_log_set_sink(record_sink, &r));
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_ERROR));
  tkrt_autotuner_t* tuner = core_tuner(store, 1.0, 2);
  ASSERT_TRUE(tuner != NULL);
  tune_once(tuner);
  EXPECT_EQ_U64(r.count, 0);
  tkrt_autotuner_destroy(tuner);
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_WARN));
  ASSERT_OK(tkrt_log_set_sink(NULL, NULL));
  remove_tree(dir);
}

static void test_store_warning_on_stderr_without_a_sink(void) {
  char dir[64], store[128];
  make_unusable_store(dir, store, sizeof(store));
  ASSERT_OK(tkrt_log_set_sink(NULL, NULL));
  ASSERT_OK(tkrt_log_set_level(TKRT_LOG_WARN));
  tkrt_autotuner_t* tuner = core_tuner(store, 1.0, 2);
  ASSERT_TRUE(tuner != NULL);
  ASSERT_TRUE(capture_stderr_begin());
  tune_once(tuner);
  char* text = capture_stderr_end();
  ASSERT_TRUE(text != NULL);
  EXPECT_TRUE(strncmp(text, "tkrt: tune: warning: tuning decision store: ", 44) == 0);
  EXPECT_TRUE(strstr(text, store) != NULL);
  EXPECT_TRUE(strchr(text, '\n') == text + strlen(text) - 1); /* one line */
  if (tkrt_test_failed_) fprintf(stderr, "  stderr was: %s\n", text);
  free(text);
  tkrt_autotuner_destroy(tuner);
  remove_tree(dir);
}

/* A damaged decision in a usable store is ignored (and the call tuned again), said as a warning. */
static void test_ignored_decision_reaches_the_sink(void) {
  char dir[] = "/tmp/tkrt-core-log-dir-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir) != NULL);
  char store[128];
  snprintf(store, sizeof(store), "%s/tune", dir);
  tkrt_autotuner_t* tuner = core_tuner(store, 1.0, 2);
  ASSERT_TRUE(tuner != NULL);
  tune_once(tuner); /* tunes and stores the decision */
  tkrt_autotuner_destroy(tuner);
  char command[512];
  snprintf(command, sizeof(command),
           "for f in %s/*.decision; do printf 'tkrt-decision 1\\ngarbage\\n' > \"$f\"; done",
           store);
  ASSERT_TRUE(system(command) == 0);

  record_t r = {0};
  ASSERT_OK(tkrt_log_set_sink(record_sink, &r));
  tuner = core_tuner(store, 1.0, 2);
  ASSERT_TRUE(tuner != NULL);
  tune_once(tuner);
  EXPECT_EQ_U64(r.count, 1);
  EXPECT_EQ_U64(r.level, TKRT_LOG_WARN);
  EXPECT_TRUE(strstr(r.message, "ignoring tuning decision ") == r.message);
  EXPECT_TRUE(strstr(r.message, store) != NULL);
  tkrt_autotuner_destroy(tuner);
  ASSERT_OK(tkrt_log_set_sink(NULL, NULL));
  remove_tree(dir);
}

int main(int argc, char** argv) {
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(test_store_warning_reaches_the_sink_not_stderr),
      TKRT_TEST_CASE(test_store_warning_below_the_level_is_dropped),
      TKRT_TEST_CASE(test_store_warning_on_stderr_without_a_sink),
      TKRT_TEST_CASE(test_ignored_decision_reaches_the_sink),
  };
  return core_test_run(argc, argv, &g_device, NULL, cases, sizeof(cases) / sizeof(cases[0]));
}
