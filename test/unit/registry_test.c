/* SPDX-License-Identifier: Apache-2.0 */
/* Backend registry and selection: listing, explicit names, TKRT_BACKEND, the default order. */
#include <stdlib.h>

#include "test/harness.h"
#include "tkrt/tkrt.h"

static const tkrt_backend_info_t* find_info(const tkrt_backend_info_t* infos, size_t count,
                                            const char* name) {
  for (size_t i = 0; i < count; ++i) {
    if (strcmp(infos[i].name, name) == 0) return &infos[i];
  }
  return NULL;
}

static void test_list_backends(void) {
  tkrt_backend_info_t infos[8];
  size_t count = 0;
  ASSERT_OK(tkrt_backend_list(infos, 8, &count));
  EXPECT_TRUE(count >= 1 && count <= 3);
  const tkrt_backend_info_t* host = find_info(infos, count, "host");
  ASSERT_TRUE(host != NULL);
  EXPECT_TRUE(host->available);
  EXPECT_EQ_U64(host->device_count, 1);
  EXPECT_STREQ(host->reason, "1 device");
  /* Default order: cuda, hip, host. */
  EXPECT_STREQ(infos[count - 1].name, "host");
  if (count == 3) {
    EXPECT_STREQ(infos[0].name, "cuda");
    EXPECT_STREQ(infos[1].name, "hip");
  }
  for (size_t i = 0; i < count; ++i) {
    /* An unavailable backend always says why. */
    EXPECT_TRUE(infos[i].available || strlen(infos[i].reason) > 10);
    fprintf(stderr, "  %s: %s (%s)\n", infos[i].name,
            infos[i].available ? "available" : "unavailable", infos[i].reason);
  }
  size_t total = 0;
  EXPECT_OK(tkrt_backend_list(NULL, 0, &total));
  EXPECT_EQ_U64(total, count);
  EXPECT_STATUS(tkrt_backend_list(infos, 8, NULL), TKRT_STATUS_INVALID_ARGUMENT, NULL);
}

static tkrt_status_t open_backend(const char* backend, int ordinal, tkrt_device_t** out) {
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  options.backend = backend;
  options.ordinal = ordinal;
  return tkrt_device_open(&options, out);
}

static void test_open_host_by_name(void) {
  tkrt_device_t* device = NULL;
  ASSERT_OK(open_backend("host", 0, &device));
  EXPECT_STREQ(tkrt_device_backend_name(device), "host");
  EXPECT_STREQ(tkrt_device_info(device)->backend, "host");
  tkrt_device_retain(device);
  tkrt_device_release(device);
  tkrt_device_release(device);
}

static void test_unknown_backend_names(void) {
  tkrt_device_t* device = NULL;
  EXPECT_STATUS(open_backend("metal", 0, &device), TKRT_STATUS_INVALID_ARGUMENT, "'metal'");
  /* A typo is reported even though an earlier backend in the list would open. */
  EXPECT_STATUS(open_backend("host,cdua", 0, &device), TKRT_STATUS_INVALID_ARGUMENT, "'cdua'");
  EXPECT_TRUE(device == NULL);
}

static void test_ordinal_out_of_range(void) {
  tkrt_device_t* device = NULL;
  EXPECT_STATUS(open_backend("host", 1, &device), TKRT_STATUS_OUT_OF_RANGE, "ordinal 1");
  EXPECT_STATUS(open_backend("host", -1, &device), TKRT_STATUS_INVALID_ARGUMENT, "negative");
  EXPECT_TRUE(device == NULL);
}

/* The GPU backends answer UNAVAILABLE with a reason on a machine without their device; where a
 * device exists they open it. Either way the answer agrees with tkrt_backend_list. */
static void test_gpu_backends_agree_with_listing(void) {
  tkrt_backend_info_t infos[8];
  size_t count = 0;
  ASSERT_OK(tkrt_backend_list(infos, 8, &count));
  const char* names[] = {"cuda", "hip"};
  for (int i = 0; i < 2; ++i) {
    const tkrt_backend_info_t* info = find_info(infos, count, names[i]);
    tkrt_device_t* device = NULL;
    tkrt_status_t status = open_backend(names[i], 0, &device);
    if (!info) {
      EXPECT_TRUE(tkrt_status_code(status) == TKRT_STATUS_UNAVAILABLE);
      EXPECT_TRUE(strstr(tkrt_status_message(status), "not compiled into this build") != NULL);
    } else if (!info->available) {
      EXPECT_TRUE(tkrt_status_code(status) == TKRT_STATUS_UNAVAILABLE);
      EXPECT_TRUE(status && strstr(tkrt_status_message(status), names[i]) != NULL);
    } else {
      EXPECT_TRUE(status == NULL && device != NULL);
    }
    tkrt_status_free(status);
    tkrt_device_release(device);
  }
}

static void test_environment_through_options(void) {
  tkrt_backend_info_t infos[8];
  size_t count = 0;
  ASSERT_OK(tkrt_backend_list(infos, 8, &count));
  tkrt_device_t* device = NULL;
  tkrt_device_options_t options;

  /* The library reads no environment: TKRT_BACKEND reaches it through the options. */
  setenv("TKRT_BACKEND", "metal", 1);
  ASSERT_OK(open_backend(NULL, 0, &device));
  tkrt_device_release(device);
  device = NULL;
  tkrt_device_options_init(&options);
  ASSERT_OK(tkrt_options_from_environment(&options, NULL));
  EXPECT_STREQ(options.backend, "metal");
  EXPECT_STATUS(tkrt_device_open(&options, &device), TKRT_STATUS_INVALID_ARGUMENT,
                "unknown backend 'metal'");

  setenv("TKRT_BACKEND", "host", 1);
  tkrt_device_options_init(&options);
  ASSERT_OK(tkrt_options_from_environment(&options, NULL));
  ASSERT_OK(tkrt_device_open(&options, &device));
  EXPECT_STREQ(tkrt_device_backend_name(device), "host");
  tkrt_device_release(device);
  device = NULL;

  /* A comma list is tried in order; GPU backends without a device fall through to host. */
  const tkrt_backend_info_t* cuda = find_info(infos, count, "cuda");
  const tkrt_backend_info_t* hip = find_info(infos, count, "hip");
  setenv("TKRT_BACKEND", " cuda , hip,host ", 1);
  tkrt_device_options_init(&options);
  ASSERT_OK(tkrt_options_from_environment(&options, NULL));
  ASSERT_OK(tkrt_device_open(&options, &device));
  const char* expected = cuda && cuda->available ? "cuda" : hip && hip->available ? "hip" : "host";
  EXPECT_STREQ(tkrt_device_backend_name(device), expected);
  tkrt_device_release(device);
  device = NULL;

  /* Nothing in the list can open: UNAVAILABLE, listing every attempt. */
  if (!(cuda && cuda->available) && !(hip && hip->available)) {
    tkrt_status_t status = open_backend("cuda,hip", 0, &device);
    EXPECT_TRUE(tkrt_status_code(status) == TKRT_STATUS_UNAVAILABLE);
    EXPECT_TRUE(status && strstr(tkrt_status_message(status), "cuda: ") != NULL);
    EXPECT_TRUE(status && strstr(tkrt_status_message(status), "hip: ") != NULL);
    EXPECT_TRUE(status && strstr(tkrt_status_message(status), "backend option") != NULL);
    tkrt_status_free(status);
  }
  unsetenv("TKRT_BACKEND");
  /* The default order opens the best available backend. */
  ASSERT_OK(open_backend(NULL, 0, &device));
  EXPECT_STREQ(tkrt_device_backend_name(device), expected);
  tkrt_device_release(device);
}

TKRT_TEST_MAIN(TKRT_TEST_CASE(test_list_backends), TKRT_TEST_CASE(test_open_host_by_name),
               TKRT_TEST_CASE(test_unknown_backend_names), TKRT_TEST_CASE(test_ordinal_out_of_range),
               TKRT_TEST_CASE(test_gpu_backends_agree_with_listing),
               TKRT_TEST_CASE(test_environment_through_options))
