/* SPDX-License-Identifier: Apache-2.0 */
/* The CUDA backend's log lines go through tkrt's log (tkrt/log.h), against fake_libcuda.c (no GPU):
 * at info the driver loaded and the device opened, at debug the PTX cache's miss, JIT and store,
 * then a hit; a corrupt cache entry is a warning the first time and debug after; an untrusted
 * entry is a warning; nothing reaches stderr while a sink is set; below the level nothing is
 * delivered. One process (FAKE_CUDA_MODE=default); the cases run in order. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/cuda/cuda_cache.h"
#include "harness.h"
#include "tkrt/tkrt.h"

enum { MAX_RECORDS = 64 };

typedef struct record {
  tkrt_log_level_t level;
  char component[16];
  char message[1024];
} record_t;

static record_t g_records[MAX_RECORDS];
static int g_count;

static void record_sink(void* user, tkrt_log_level_t level, const char* component,
                        const char* message) {
  (void)user;
  if (g_count >= MAX_RECORDS) return;
  record_t* r = &g_records[g_count++];
  r->level = level;
  snprintf(r->component, sizeof(r->component), "%s", component);
  snprintf(r->message, sizeof(r->message), "%s", message);
}

/* How many records of `component` at `level` start with `prefix`. */
static int count(const char* component, tkrt_log_level_t level, const char* prefix) {
  int n = 0;
  for (int i = 0; i < g_count; ++i) {
    n += g_records[i].level == level && strcmp(g_records[i].component, component) == 0 &&
         strncmp(g_records[i].message, prefix, strlen(prefix)) == 0;
  }
  return n;
}

static void dump(void) {
  for (int i = 0; i < g_count; ++i) {
    fprintf(stderr, "    %s %s: %s\n", tkrt_log_level_name(g_records[i].level),
            g_records[i].component, g_records[i].message);
  }
}

static char g_cache_root[] = "/tmp/tkrt_cuda_log_XXXXXX";
static int g_saved_stderr = -1;
static char g_stderr_path[] = "/tmp/tkrt_cuda_log_err_XXXXXX";

/* Everything the cases do writes stderr into a file, read back at the end. */
static void capture_stderr(void) {
  fflush(stderr);
  int fd = mkstemp(g_stderr_path);
  if (fd < 0) return;
  g_saved_stderr = dup(2);
  dup2(fd, 2);
  close(fd);
}

static char* captured_stderr(void) {
  fflush(stderr);
  dup2(g_saved_stderr, 2);
  close(g_saved_stderr);
  char* out = calloc(1, 65536);
  FILE* file = fopen(g_stderr_path, "rb");
  size_t got = out && file ? fread(out, 1, 65535, file) : 0;
  if (out) out[got] = '\0';
  if (file) fclose(file);
  unlink(g_stderr_path);
  return out;
}

static tkrt_status_t open_cuda(tkrt_device_t** out_device) {
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  TKRT_RETURN_IF_ERROR(tkrt_options_from_environment(&options, NULL));
  options.backend = "cuda";
  return tkrt_device_open(&options, out_device);
}

static tkrt_status_t load_ptx(tkrt_device_t* device, const char* text) {
  tkrt_image_t image = {.kind = TKRT_IMAGE_PTX, .data = text, .size = strlen(text)};
  tkrt_module_t* module = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_module_load(device, &image, &module));
  tkrt_module_unload(module);
  return NULL;
}

static void entry_path(const char* ptx, char* path, size_t capacity) {
  char dir[512];
  snprintf(dir, sizeof(dir), "%s/cubin", g_cache_root);
  tkrt_cuda_cache_key_t key;
  tkrt_cuda_cache_key(ptx, strlen(ptx), "sm_90a", 13000, &key);
  path[0] = '\0';
  if (tkrt_cuda_cache_entry_path(dir, &key, path, capacity) != 0) path[0] = '\0';
}

static void damage(const char* path) {
  FILE* file = fopen(path, "r+b");
  if (!file) return;
  fseek(file, -3, SEEK_END);
  fputc('#', file);
  fclose(file);
}

static const char kPtx[] = ".version 8.7\n.target sm_90a\n.visible .entry logged(\n)\n{}\n";

static void backend_lines_reach_the_sink(void) {
  setenv("TKRT_LOG", "debug", 1); /* through tkrt_options_from_environment, as the tools do */
  tkrt_device_t* device = NULL;
  ASSERT_OK(open_cuda(&device));
  EXPECT_EQ_U64(tkrt_log_get_level(), TKRT_LOG_DEBUG);
  EXPECT_EQ_U64(count("cuda", TKRT_LOG_INFO, "loaded libcuda.so.1 (driver version 13000)"), 1);
  EXPECT_EQ_U64(count("cuda", TKRT_LOG_INFO, "device 0: Fake H100 (tkrt test driver), sm_90"), 1);

  ASSERT_OK(load_ptx(device, kPtx)); /* miss, JIT, store */
  EXPECT_EQ_U64(count("cuda", TKRT_LOG_DEBUG, "PTX cache miss "), 1);
  EXPECT_EQ_U64(count("cuda", TKRT_LOG_DEBUG, "PTX JIT "), 1);
  EXPECT_EQ_U64(count("cuda", TKRT_LOG_DEBUG, "PTX cache store "), 1);
  ASSERT_OK(load_ptx(device, kPtx)); /* hit */
  EXPECT_EQ_U64(count("cuda", TKRT_LOG_DEBUG, "PTX cache hit "), 1);

  /* A corrupt entry: a warning the first time, debug the next. */
  char path[1024];
  entry_path(kPtx, path, sizeof(path));
  ASSERT_TRUE(path[0] != '\0');
  damage(path);
  ASSERT_OK(load_ptx(device, kPtx));
  EXPECT_EQ_U64(count("cuda", TKRT_LOG_WARN, "PTX cache entry "), 1);
  damage(path);
  ASSERT_OK(load_ptx(device, kPtx));
  EXPECT_EQ_U64(count("cuda", TKRT_LOG_WARN, "PTX cache entry "), 1);
  EXPECT_EQ_U64(count("cuda", TKRT_LOG_DEBUG, "PTX cache entry "), 1);
  tkrt_device_release(device);
  if (tkrt_test_failed_) dump();
}

static void below_the_level_nothing_arrives(void) {
  setenv("TKRT_LOG", "warn", 1);
  tkrt_device_t* device = NULL;
  ASSERT_OK(open_cuda(&device));
  EXPECT_EQ_U64(tkrt_log_get_level(), TKRT_LOG_WARN);
  int before = g_count;
  static const char ptx[] = ".version 8.7\n.target sm_90a\n.visible .entry quiet(\n)\n{}\n";
  ASSERT_OK(load_ptx(device, ptx)); /* miss, JIT, store: all debug */
  ASSERT_OK(load_ptx(device, ptx)); /* hit: debug */
  EXPECT_EQ_U64(g_count, before);

  /* An entry another user could have written: not used, a warning even at warn. */
  static const char forged_ptx[] = ".version 8.7\n.target sm_90a\n.visible .entry forged(\n)\n{}\n";
  char path[1024];
  entry_path(forged_ptx, path, sizeof(path));
  char dir[512], why[256];
  snprintf(dir, sizeof(dir), "%s/cubin", g_cache_root);
  tkrt_cuda_cache_key_t key;
  tkrt_cuda_cache_key(forged_ptx, strlen(forged_ptx), "sm_90a", 13000, &key);
  static const char forged[] = "not the cubin the PTX compiles to";
  ASSERT_TRUE(tkrt_cuda_cache_write(dir, false, &key, forged, sizeof(forged), why, sizeof(why)) == 0);
  ASSERT_TRUE(chmod(path, 0666) == 0);
  unsetenv("TKRT_TRUST_SHARED_STORES");
  ASSERT_OK(load_ptx(device, forged_ptx));
  EXPECT_EQ_U64(g_count, before + 1);
  EXPECT_EQ_U64(count("cuda", TKRT_LOG_WARN, "PTX cache not used: "), 1);
  tkrt_device_release(device);
  if (tkrt_test_failed_) dump();
}

int main(int argc, char** argv) {
  (void)argc;
  (void)argv;
  if (!mkdtemp(g_cache_root)) return 1;
  setenv("TKRT_CACHE_DIR", g_cache_root, 1);
  unsetenv("TKRT_BACKEND");
  tkrt_status_t status = tkrt_log_set_sink(record_sink, NULL);
  if (status) return 1;
  capture_stderr();
  static const tkrt_test_case_t cases[] = {TKRT_TEST_CASE(backend_lines_reach_the_sink),
                                           TKRT_TEST_CASE(below_the_level_nothing_arrives)};
  /* The harness's own lines go to the captured stderr too; they are printed below. */
  int rc = tkrt_test_main(1, argv, cases, sizeof(cases) / sizeof(cases[0]));
  char* text = captured_stderr();
  tkrt_status_free(tkrt_log_set_sink(NULL, NULL));
  /* Only the harness wrote there: no line of tkrt's. */
  int leaked = text && strstr(text, "tkrt: ") != NULL;
  fputs(text ? text : "", stderr);
  if (leaked) fprintf(stderr, "FAILED: tkrt wrote to stderr while a sink was set\n");
  free(text);
  char command[512];
  snprintf(command, sizeof(command), "rm -rf %s", g_cache_root);
  if (system(command) != 0) fprintf(stderr, "could not remove %s\n", g_cache_root);
  return leaked ? 1 : rc;
}
