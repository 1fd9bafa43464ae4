/* SPDX-License-Identifier: Apache-2.0 */
/* CPU-only unit tests of the CUDA backend's internals: the CUresult mapping, the symbol table,
 * feature bits, and the PTX cache (key, entry format, corruption handling, directory choice). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/cuda/cuda_cache.h"
#include "backends/cuda/cuda_internal.h"
#include "backends/cuda/cuda_symbols.h"
#include "harness.h"
#include "tkrt/environment.h"

/* ---------------------------------------------------------------- CUresult mapping */

static void status_codes_follow_the_table(void) {
  static const struct {
    CUresult result;
    tkrt_status_code_t code;
  } cases[] = {
      {CUDA_SUCCESS, TKRT_STATUS_OK},
      {CUDA_ERROR_OUT_OF_MEMORY, TKRT_STATUS_RESOURCE_EXHAUSTED},
      {CUDA_ERROR_INVALID_VALUE, TKRT_STATUS_INVALID_ARGUMENT},
      {CUDA_ERROR_NOT_FOUND, TKRT_STATUS_NOT_FOUND},
      {CUDA_ERROR_NO_DEVICE, TKRT_STATUS_UNAVAILABLE},
      {CUDA_ERROR_INVALID_PTX, TKRT_STATUS_INVALID_ARGUMENT},
      {CUDA_ERROR_INVALID_IMAGE, TKRT_STATUS_INVALID_ARGUMENT},
      {CUDA_ERROR_NO_BINARY_FOR_GPU, TKRT_STATUS_INVALID_ARGUMENT},
      {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, TKRT_STATUS_FAILED_PRECONDITION},
      {CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, TKRT_STATUS_FAILED_PRECONDITION},
      {CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, TKRT_STATUS_FAILED_PRECONDITION},
      {CUDA_ERROR_NOT_SUPPORTED, TKRT_STATUS_UNIMPLEMENTED},
      /* Sticky device faults: INTERNAL, as on HIP (test/hip/hip_unit_test.c). */
      {CUDA_ERROR_ILLEGAL_ADDRESS, TKRT_STATUS_INTERNAL},
      {CUDA_ERROR_LAUNCH_FAILED, TKRT_STATUS_INTERNAL},
      {CUDA_ERROR_LAUNCH_TIMEOUT, TKRT_STATUS_INTERNAL},
      {CUDA_ERROR_ASSERT, TKRT_STATUS_INTERNAL},
      {CUDA_ERROR_ECC_UNCORRECTABLE, TKRT_STATUS_DATA_LOSS},
      {CUDA_ERROR_CONTEXT_IS_DESTROYED, TKRT_STATUS_FAILED_PRECONDITION},
      {CUDA_ERROR_UNKNOWN, TKRT_STATUS_INTERNAL},
      {(CUresult)123456, TKRT_STATUS_INTERNAL},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    if (tkrt_cuda_status_code(cases[i].result) != cases[i].code) {
      TKRT_TEST_FAIL_("CUresult %d maps to %s, expected %s", (int)cases[i].result,
                      tkrt_status_code_name(tkrt_cuda_status_code(cases[i].result)),
                      tkrt_status_code_name(cases[i].code));
    }
  }
}

static void error_names_match_cuda_h(void) {
  /* The table is keyed by value (cuda_api.h's, which cuda.abi checks against cuda.h): these pin the
   * names it reports to those values. */
  EXPECT_STREQ(tkrt_cuda_error_name(CUDA_ERROR_INVALID_PTX), "CUDA_ERROR_INVALID_PTX");
  EXPECT_STREQ(tkrt_cuda_error_name(CUDA_ERROR_INVALID_IMAGE), "CUDA_ERROR_INVALID_IMAGE");
  EXPECT_STREQ(tkrt_cuda_error_name(CUDA_ERROR_NO_DEVICE), "CUDA_ERROR_NO_DEVICE");
  EXPECT_STREQ(tkrt_cuda_error_name(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT),
               "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT");
  EXPECT_STREQ(tkrt_cuda_error_name(CUDA_ERROR_INVALID_CLUSTER_SIZE),
               "CUDA_ERROR_INVALID_CLUSTER_SIZE");
  EXPECT_STREQ(tkrt_cuda_error_name(CUDA_ERROR_UNKNOWN), "CUDA_ERROR_UNKNOWN");
  EXPECT_TRUE(tkrt_cuda_error_name((CUresult)123456) == NULL);
}

static void status_message_names_operation_and_error(void) {
  /* No driver is loaded in this process: names come from the backend's own table. */
  EXPECT_TRUE(tkrt_cuda_driver_if_loaded() == NULL);
  EXPECT_STATUS(TKRT_CUDA_STATUS(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData(%s)", "cubin"),
                TKRT_STATUS_INVALID_ARGUMENT,
                "cuModuleLoadData(cubin) failed: CUDA_ERROR_INVALID_IMAGE");
  EXPECT_STATUS(TKRT_CUDA_STATUS((CUresult)123456, "cuFrobnicate"), TKRT_STATUS_INTERNAL,
                "cuFrobnicate failed: CUDA error 123456");
  EXPECT_STATUS(TKRT_CUDA_STATUS(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "cuMemAlloc"),
                TKRT_STATUS_FAILED_PRECONDITION, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED");
}

/* ---------------------------------------------------------------- symbols and features */

static void symbol_table_uses_base_names(void) {
  size_t count = 0;
  const tkrt_cuda_symbol_info_t* symbols = tkrt_cuda_symbol_infos(&count);
  ASSERT_TRUE(count > 30);
  int launch_ex_optional = 0, launch_required = 0;
  for (size_t i = 0; i < count; ++i) {
    const char* name = symbols[i].name;
    /* cuGetProcAddress wants base names: a versioned or _ptsz name would never resolve. */
    if (strncmp(name, "cu", 2) != 0 || strstr(name, "_v") || strstr(name, "_ptsz")) {
      TKRT_TEST_FAIL_("symbol %zu has a non-base name '%s'", i, name);
    }
    if (symbols[i].abi <= 0 || symbols[i].abi > TKRT_CUDA_API_VERSION) {
      TKRT_TEST_FAIL_("symbol %s has ABI version %d", name, symbols[i].abi);
    }
    if (symbols[i].offset + sizeof(void*) > sizeof(tkrt_cuda_driver_t)) {
      TKRT_TEST_FAIL_("symbol %s has offset %zu", name, symbols[i].offset);
    }
    for (size_t j = 0; j < i; ++j) {
      if (strcmp(symbols[j].name, name) == 0) TKRT_TEST_FAIL_("symbol %s listed twice", name);
      if (symbols[j].offset == symbols[i].offset) TKRT_TEST_FAIL_("%s shares a slot", name);
    }
    if (strcmp(name, "cuLaunchKernelEx") == 0) {
      launch_ex_optional = symbols[i].kind == TKRT_CUDA_OPTIONAL;
    }
    if (strcmp(name, "cuLaunchKernel") == 0) {
      launch_required = symbols[i].kind == TKRT_CUDA_REQUIRED;
    }
  }
  EXPECT_TRUE(launch_ex_optional);
  EXPECT_TRUE(launch_required);
}

static CUresult fake_entry(void) { return CUDA_SUCCESS; }

static void features_follow_optional_symbols(void) {
  tkrt_cuda_driver_t driver;
  memset(&driver, 0, sizeof(driver));
  EXPECT_EQ_U64(tkrt_cuda_features(&driver, 9, 1, 1), 0);

  /* Fill every slot with a dummy, then take pieces away. */
  size_t count = 0;
  const tkrt_cuda_symbol_info_t* symbols = tkrt_cuda_symbol_infos(&count);
  for (size_t i = 0; i < count; ++i) {
    void (*entry)(void) = (void (*)(void))fake_entry;
    memcpy((char*)&driver + symbols[i].offset, &entry, sizeof(entry));
  }
  const uint32_t all = TKRT_DEVICE_FEATURE_CLUSTER | TKRT_DEVICE_FEATURE_COOPERATIVE |
                       TKRT_DEVICE_FEATURE_PDL | TKRT_DEVICE_FEATURE_TMA |
                       TKRT_DEVICE_FEATURE_GRAPHS;
  EXPECT_EQ_U64(tkrt_cuda_features(&driver, 9, 1, 1), all);
  /* Ampere: no clusters, PDL or TMA, whatever the driver offers. */
  EXPECT_EQ_U64(tkrt_cuda_features(&driver, 8, 0, 1),
                TKRT_DEVICE_FEATURE_COOPERATIVE | TKRT_DEVICE_FEATURE_GRAPHS);
  driver.cuLaunchKernelEx = NULL;
  EXPECT_EQ_U64(tkrt_cuda_features(&driver, 9, 1, 1),
                TKRT_DEVICE_FEATURE_TMA | TKRT_DEVICE_FEATURE_GRAPHS);
  driver.cuGraphInstantiateWithFlags = NULL;
  driver.cuTensorMapEncodeTiled = NULL;
  EXPECT_EQ_U64(tkrt_cuda_features(&driver, 9, 1, 1), 0);
}

/* ---------------------------------------------------------------- the PTX cache */

static char test_root[256];

static const char* make_temp_root(void) {
  if (!test_root[0]) {
    const char* base = getenv("TMPDIR");
    snprintf(test_root, sizeof(test_root), "%s/tkrt_cuda_unit_XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(test_root)) {
      test_root[0] = '\0';
      return NULL;
    }
  }
  return test_root;
}

static void remove_tree(const char* path) {
  char command[512];
  snprintf(command, sizeof(command), "rm -rf '%s'", path);
  if (system(command) != 0) fprintf(stderr, "  could not remove %s\n", path);
}

static void cache_key_covers_every_input(void) {
  static const char ptx[] = ".version 8.7\n.target sm_90a\n";
  tkrt_cuda_cache_key_t a, b;
  tkrt_cuda_cache_key(ptx, sizeof(ptx) - 1, "sm_90a", 13000, &a);
  tkrt_cuda_cache_key(ptx, sizeof(ptx) - 1, "sm_90a", 13000, &b);
  EXPECT_EQ_U64(strlen(a.hex), 64);
  EXPECT_STREQ(a.hex, b.hex);
  tkrt_cuda_cache_key(ptx, sizeof(ptx) - 1, "sm_90", 13000, &b);
  EXPECT_TRUE(strcmp(a.hex, b.hex) != 0);
  tkrt_cuda_cache_key(ptx, sizeof(ptx) - 1, "sm_90a", 13010, &b);
  EXPECT_TRUE(strcmp(a.hex, b.hex) != 0);
  tkrt_cuda_cache_key(ptx, sizeof(ptx) - 2, "sm_90a", 13000, &b);
  EXPECT_TRUE(strcmp(a.hex, b.hex) != 0);
  /* Framing: moving a character between target and PTX must change the key. */
  tkrt_cuda_cache_key("1.version", 9, "sm_90", 13000, &a);
  tkrt_cuda_cache_key(".version", 8, "sm_901", 13000, &b);
  EXPECT_TRUE(strcmp(a.hex, b.hex) != 0);
}

/* TKRT_CACHE_DIR reaches the backend through tkrt_options_from_environment. */
static const char* cache_dir_from_environment(void) {
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  tkrt_status_t status = tkrt_options_from_environment(&options, NULL);
  EXPECT_TRUE(status == NULL);
  tkrt_status_free(status);
  return options.cache_dir;
}

static void cache_dir_follows_environment(void) {
  char* saved_dir = getenv("TKRT_CACHE_DIR") ? strdup(getenv("TKRT_CACHE_DIR")) : NULL;
  char* saved_xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
  char* saved_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
  const char* dir;

  setenv("TKRT_CACHE_DIR", "/some/where", 1);
  dir = cache_dir_from_environment();
  EXPECT_STREQ(dir ? dir : "(null)", "/some/where/cubin");
  static const char* const off[] = {"off", "OFF", "0"};
  for (int i = 0; i < 3; ++i) {
    setenv("TKRT_CACHE_DIR", off[i], 1);
    dir = cache_dir_from_environment();
    EXPECT_STREQ(dir ? dir : "(null)", "off");
  }
  setenv("TKRT_CACHE_DIR", "", 1); /* empty = unset */
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  dir = cache_dir_from_environment();
  EXPECT_STREQ(dir ? dir : "(null)", "/xdg/tkrt/cubin");
  unsetenv("TKRT_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "relative", 1); /* invalid per the XDG spec: ignored */
  setenv("HOME", "/home/someone", 1);
  dir = cache_dir_from_environment();
  EXPECT_STREQ(dir ? dir : "(null)", "/home/someone/.cache/tkrt/cubin");
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  EXPECT_TRUE(cache_dir_from_environment() == NULL);

  if (saved_dir) setenv("TKRT_CACHE_DIR", saved_dir, 1); else unsetenv("TKRT_CACHE_DIR");
  if (saved_xdg) setenv("XDG_CACHE_HOME", saved_xdg, 1); else unsetenv("XDG_CACHE_HOME");
  if (saved_home) setenv("HOME", saved_home, 1); else unsetenv("HOME");
  free(saved_dir);
  free(saved_xdg);
  free(saved_home);
}

static int entry_exists(const char* dir, const tkrt_cuda_cache_key_t* key) {
  char path[1024];
  if (tkrt_cuda_cache_entry_path(dir, key, path, sizeof(path)) != 0) return 0;
  return access(path, F_OK) == 0;
}

/* Rewrites byte `offset` of the entry (negative: from the end), or truncates it to `truncate`. */
static int damage_entry(const char* dir, const tkrt_cuda_cache_key_t* key, long offset,
                        long truncate_to) {
  char path[1024];
  if (tkrt_cuda_cache_entry_path(dir, key, path, sizeof(path)) != 0) return -1;
  if (truncate_to >= 0) return truncate(path, truncate_to);
  FILE* file = fopen(path, "r+b");
  if (!file) return -1;
  int rc = fseek(file, offset, offset < 0 ? SEEK_END : SEEK_SET);
  int c = rc == 0 ? fgetc(file) : EOF;
  if (c != EOF) {
    rc = fseek(file, -1, SEEK_CUR);
    if (rc == 0) rc = fputc(c ^ 0x5a, file) == EOF ? -1 : 0;
  } else {
    rc = -1;
  }
  fclose(file);
  return rc;
}

static void cache_round_trip_and_corruption(void) {
  const char* root = make_temp_root();
  ASSERT_TRUE(root != NULL);
  char dir[512];
  snprintf(dir, sizeof(dir), "%s/nested/deeper/cubin", root); /* created on write (mkdir -p) */
  tkrt_cuda_cache_key_t key, other;
  tkrt_cuda_cache_key("ptx text", 8, "sm_90a", 13000, &key);
  tkrt_cuda_cache_key("other ptx", 9, "sm_90a", 13000, &other);
  char payload[3000];
  for (size_t i = 0; i < sizeof(payload); ++i) payload[i] = (char)(i * 7 + 1);
  char why[256];
  void* data = NULL;
  size_t size = 0;

  EXPECT_TRUE(tkrt_cuda_cache_read(dir, false, &key, &data, &size, why, sizeof(why)) ==
              TKRT_CUDA_CACHE_MISS);
  ASSERT_TRUE(tkrt_cuda_cache_write(dir, false, &key, payload, sizeof(payload), why, sizeof(why)) == 0);
  ASSERT_TRUE(tkrt_cuda_cache_read(dir, false, &key, &data, &size, why, sizeof(why)) ==
              TKRT_CUDA_CACHE_HIT);
  EXPECT_EQ_U64(size, sizeof(payload));
  EXPECT_TRUE(data && memcmp(data, payload, sizeof(payload)) == 0);
  free(data);
  data = NULL;

  /* Each kind of damage is detected, reported as CORRUPT and the entry removed. */
  static const struct {
    const char* what;
    long offset, truncate_to;
    const char* reason;
  } damages[] = {
      {"payload byte", -10, -1, "checksum"},
      {"magic", 0, -1, "magic"},
      {"payload size field", 16, -1, "size mismatch"},
      {"key field", 30, -1, "another key"},
      {"checksum field", 60, -1, "checksum"},
      {"truncated payload", 0, 1000, "size mismatch"},
      {"truncated header", 0, 40, "truncated"},
      {"empty file", 0, 0, "truncated"},
  };
  for (size_t i = 0; i < sizeof(damages) / sizeof(damages[0]); ++i) {
    ASSERT_TRUE(tkrt_cuda_cache_write(dir, false, &key, payload, sizeof(payload), why, sizeof(why)) == 0);
    ASSERT_TRUE(damage_entry(dir, &key, damages[i].offset, damages[i].truncate_to) == 0);
    tkrt_cuda_cache_result_t result =
        tkrt_cuda_cache_read(dir, false, &key, &data, &size, why, sizeof(why));
    if (result != TKRT_CUDA_CACHE_CORRUPT || !strstr(why, damages[i].reason)) {
      TKRT_TEST_FAIL_("%s: result %d, why '%s', expected CORRUPT mentioning '%s'",
                      damages[i].what, (int)result, why, damages[i].reason);
    }
    EXPECT_TRUE(data == NULL);
    EXPECT_TRUE(!entry_exists(dir, &key));
  }

  /* An entry stored under another key's name is refused. */
  ASSERT_TRUE(tkrt_cuda_cache_write(dir, false, &other, payload, 100, why, sizeof(why)) == 0);
  char from[1024], to[1024];
  ASSERT_TRUE(tkrt_cuda_cache_entry_path(dir, &other, from, sizeof(from)) == 0);
  ASSERT_TRUE(tkrt_cuda_cache_entry_path(dir, &key, to, sizeof(to)) == 0);
  ASSERT_TRUE(rename(from, to) == 0);
  EXPECT_TRUE(tkrt_cuda_cache_read(dir, false, &key, &data, &size, why, sizeof(why)) ==
              TKRT_CUDA_CACHE_CORRUPT);

  /* Another format version is a plain miss, then overwritten. */
  ASSERT_TRUE(tkrt_cuda_cache_write(dir, false, &key, payload, 100, why, sizeof(why)) == 0);
  ASSERT_TRUE(damage_entry(dir, &key, 8, -1) == 0); /* the version's low byte */
  EXPECT_TRUE(tkrt_cuda_cache_read(dir, false, &key, &data, &size, why, sizeof(why)) ==
              TKRT_CUDA_CACHE_MISS);
  EXPECT_TRUE(strstr(why, "format version") != NULL);
  ASSERT_TRUE(tkrt_cuda_cache_write(dir, false, &key, payload, 100, why, sizeof(why)) == 0);
  ASSERT_TRUE(tkrt_cuda_cache_read(dir, false, &key, &data, &size, why, sizeof(why)) ==
              TKRT_CUDA_CACHE_HIT);
  free(data);
  data = NULL;

  /* No temporary files are left behind. */
  char command[1024];
  snprintf(command, sizeof(command), "test -z \"$(ls -A '%s' | grep -v '\\.cubin$')\"", dir);
  EXPECT_TRUE(system(command) == 0);
  tkrt_cuda_cache_remove(dir, &key);
  tkrt_cuda_cache_remove(dir, &other);
  EXPECT_TRUE(!entry_exists(dir, &key));
}

static void cache_write_failures_are_reported_not_fatal(void) {
  const char* root = make_temp_root();
  ASSERT_TRUE(root != NULL);
  tkrt_cuda_cache_key_t key;
  tkrt_cuda_cache_key("x", 1, "sm_90a", 13000, &key);
  char why[256];
  /* A file where a folder should be. */
  char blocker[512];
  snprintf(blocker, sizeof(blocker), "%s/blocker", root);
  FILE* file = fopen(blocker, "w");
  ASSERT_TRUE(file != NULL);
  fclose(file);
  char dir[600];
  snprintf(dir, sizeof(dir), "%s/cubin", blocker);
  EXPECT_TRUE(tkrt_cuda_cache_write(dir, false, &key, "abc", 3, why, sizeof(why)) == -1);
  EXPECT_TRUE(strstr(why, "cannot create") != NULL || strstr(why, "not a folder") != NULL);
  void* data = NULL;
  size_t size = 0;
  EXPECT_TRUE(tkrt_cuda_cache_read(dir, false, &key, &data, &size, why, sizeof(why)) ==
              TKRT_CUDA_CACHE_MISS);
  /* A read-only folder (skipped as root, who may write anyway). */
  if (geteuid() != 0) {
    char readonly[512];
    snprintf(readonly, sizeof(readonly), "%s/readonly", root);
    ASSERT_TRUE(mkdir(readonly, 0555) == 0);
    EXPECT_TRUE(tkrt_cuda_cache_write(readonly, false, &key, "abc", 3, why, sizeof(why)) == -1);
    EXPECT_TRUE(strstr(why, "mkstemp") != NULL);
    chmod(readonly, 0755);
  }
}

/* Issue 12: the cache is shareable (entries 0644), so a forged entry must not be trusted just
 * because its checksum (a public SHA-256) matches. Each case plants a valid entry that is a link,
 * a FIFO, writable by others, in a folder writable by others, or (as root) another user's. */
static void cache_refuses_untrusted_entries(void) {
  const char* root = make_temp_root();
  ASSERT_TRUE(root != NULL);
  char dir[512], path[1024], forged[1024];
  snprintf(dir, sizeof(dir), "%s/trust/cubin", root);
  snprintf(forged, sizeof(forged), "%s/trust/forged.cubin", root);
  tkrt_cuda_cache_key_t key;
  tkrt_cuda_cache_key("trusted ptx", 11, "sm_90a", 13000, &key);
  ASSERT_TRUE(tkrt_cuda_cache_entry_path(dir, &key, path, sizeof(path)) == 0);
  char why[512];
  void* data = NULL;
  size_t size = 0;
  const char payload[] = "a forged cubin";
  unsetenv("TKRT_TRUST_SHARED_STORES");

  /* A link to a well-formed entry elsewhere: not followed; removed as corrupt. */
  ASSERT_TRUE(tkrt_cuda_cache_write(dir, false, &key, payload, sizeof(payload), why, sizeof(why)) == 0);
  ASSERT_TRUE(rename(path, forged) == 0);
  ASSERT_TRUE(symlink(forged, path) == 0);
  EXPECT_TRUE(tkrt_cuda_cache_read(dir, false, &key, &data, &size, why, sizeof(why)) ==
              TKRT_CUDA_CACHE_CORRUPT);
  EXPECT_TRUE(strstr(why, "symbolic link") != NULL);
  struct stat info;
  EXPECT_TRUE(lstat(path, &info) != 0);  /* the link is gone */
  EXPECT_TRUE(stat(forged, &info) == 0); /* its target is untouched */

  /* A FIFO under the entry's name: no hang, removed. */
  ASSERT_TRUE(mkfifo(path, 0644) == 0);
  EXPECT_TRUE(tkrt_cuda_cache_read(dir, false, &key, &data, &size, why, sizeof(why)) ==
              TKRT_CUDA_CACHE_CORRUPT);
  EXPECT_TRUE(strstr(why, "FIFO") != NULL);
  EXPECT_TRUE(lstat(path, &info) != 0);

  /* An entry that others can write: not used, not removed; trusted only with the opt-in. */
  ASSERT_TRUE(tkrt_cuda_cache_write(dir, false, &key, payload, sizeof(payload), why, sizeof(why)) == 0);
  ASSERT_TRUE(chmod(path, 0666) == 0);
  EXPECT_TRUE(tkrt_cuda_cache_read(dir, false, &key, &data, &size, why, sizeof(why)) ==
              TKRT_CUDA_CACHE_UNTRUSTED);
  EXPECT_TRUE(strstr(why, "other users can write it") != NULL);
  EXPECT_TRUE(strstr(why, "TKRT_TRUST_SHARED_STORES") != NULL);
  EXPECT_TRUE(data == NULL);
  EXPECT_TRUE(entry_exists(dir, &key));
  /* A store shared on purpose (trust_shared_cache): trusted. */
  EXPECT_TRUE(tkrt_cuda_cache_read(dir, true, &key, &data, &size, why, sizeof(why)) ==
              TKRT_CUDA_CACHE_HIT);
  free(data);
  data = NULL;
  ASSERT_TRUE(chmod(path, 0644) == 0);

  /* A folder that others can write: nothing in it is used, and nothing is written to it. */
  ASSERT_TRUE(chmod(dir, 0777) == 0);
  EXPECT_TRUE(tkrt_cuda_cache_read(dir, false, &key, &data, &size, why, sizeof(why)) ==
              TKRT_CUDA_CACHE_UNTRUSTED);
  EXPECT_TRUE(strstr(why, dir) != NULL);
  EXPECT_TRUE(tkrt_cuda_cache_write(dir, false, &key, payload, sizeof(payload), why, sizeof(why)) == -1);
  EXPECT_TRUE(strstr(why, "not trusted") != NULL);
  ASSERT_TRUE(chmod(dir, 0755) == 0);

  /* Another user's entry (only root can make one). */
  if (geteuid() == 0) {
    ASSERT_TRUE(chown(path, 65534, 65534) == 0);
    EXPECT_TRUE(tkrt_cuda_cache_read(dir, false, &key, &data, &size, why, sizeof(why)) ==
                TKRT_CUDA_CACHE_UNTRUSTED);
    EXPECT_TRUE(strstr(why, "another user owns it") != NULL);
  }
  EXPECT_TRUE(data == NULL);
}

static void cleanup_temp_root(void) {
  if (test_root[0]) remove_tree(test_root);
}

int main(int argc, char** argv) {
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(status_codes_follow_the_table),
      TKRT_TEST_CASE(error_names_match_cuda_h),
      TKRT_TEST_CASE(status_message_names_operation_and_error),
      TKRT_TEST_CASE(symbol_table_uses_base_names),
      TKRT_TEST_CASE(features_follow_optional_symbols),
      TKRT_TEST_CASE(cache_key_covers_every_input),
      TKRT_TEST_CASE(cache_dir_follows_environment),
      TKRT_TEST_CASE(cache_round_trip_and_corruption),
      TKRT_TEST_CASE(cache_write_failures_are_reported_not_fatal),
      TKRT_TEST_CASE(cache_refuses_untrusted_entries),
  };
  int rc = tkrt_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
  cleanup_temp_root();
  return rc;
}
