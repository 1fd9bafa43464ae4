/* SPDX-License-Identifier: Apache-2.0 */
/* HIP backend probe tests through the public API: with the real libamdhip64 and no AMD GPU the
 * backend is listed as unavailable with a reason, and opening it explicitly is UNAVAILABLE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/harness.h"
#include "tkrt/device.h"
#include "tkrt/environment.h"

#define CHECK(cond, ...)                       \
  do {                                         \
    if (!(cond)) TKRT_TEST_FAIL_(__VA_ARGS__); \
  } while (0)

static int find_hip(tkrt_backend_info_t* out) {
  tkrt_backend_info_t infos[8];
  size_t count = 0;
  /* TKRT_HIP_LIBRARY reaches the backend through the options, as the tools pass it. */
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  tkrt_status_t status = tkrt_options_from_environment(&options, NULL);
  if (!status) status = tkrt_backend_list_with_options(&options, infos, 8, &count);
  CHECK(status == NULL, "tkrt_backend_list: %s", tkrt_status_message(status));
  tkrt_status_free(status);
  for (size_t i = 0; i < count && i < 8; ++i) {
    if (strcmp(infos[i].name, "hip") == 0) {
      *out = infos[i];
      return 1;
    }
  }
  return 0;
}

static tkrt_status_t open_hip(void) {
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  tkrt_status_t env_status = tkrt_options_from_environment(&options, NULL);
  CHECK(env_status == NULL, "environment: %s", tkrt_status_message(env_status));
  tkrt_status_free(env_status);
  options.backend = "hip";
  tkrt_device_t* device = NULL;
  tkrt_status_t status = tkrt_device_open(&options, &device);
  if (!status) tkrt_device_release(device);
  return status;
}

/* Asking for hip explicitly keeps the backend's own code and reason; asking twice gives the same
 * answer (the library is probed once per process). */
static void expect_open_unavailable(const char* reason) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    tkrt_status_t status = open_hip();
    CHECK(status != NULL, "opening hip succeeded without a GPU");
    if (status) {
      printf("open hip: %s: %s\n", tkrt_status_code_name(tkrt_status_code(status)),
             tkrt_status_message(status));
      CHECK(tkrt_status_code(status) == TKRT_STATUS_UNAVAILABLE, "code %s",
            tkrt_status_code_name(tkrt_status_code(status)));
      CHECK(strstr(tkrt_status_message(status), reason) != NULL,
            "open message lacks the probe reason: %s", tkrt_status_message(status));
    }
    tkrt_status_free(status);
  }
}

/* The real libamdhip64 on a machine without an AMD GPU (CI): unavailable, "no device". Runs in a
 * process without TKRT_HIP_LIBRARY. */
static void test_installed_library_without_gpu(void) {
  const char* override_names = getenv("TKRT_HIP_LIBRARY");
  if (override_names && *override_names) TKRT_TEST_SKIP("TKRT_HIP_LIBRARY is set");
  tkrt_backend_info_t hip;
  ASSERT_TRUE(find_hip(&hip));
  printf("hip: available=%d devices=%d reason: %s\n", hip.available, hip.device_count, hip.reason);
  if (hip.available) TKRT_TEST_SKIP("an AMD GPU is present; this case is for machines without");
  if (strstr(hip.reason, "not found")) {
    TKRT_TEST_SKIP("libamdhip64 is not installed (apt-get install libamdhip64-dev)");
  }
  CHECK(strstr(hip.reason, "no device") != NULL, "reason: %s", hip.reason);
  CHECK(strstr(hip.reason, "libamdhip64.so") != NULL, "reason lacks the library: %s", hip.reason);
  CHECK(strstr(hip.reason, "hipErrorNoDevice") != NULL, "reason lacks the HIP error: %s",
        hip.reason);
  CHECK(hip.device_count == 0, "device_count %d", hip.device_count);
  expect_open_unavailable(hip.reason);
}

/* TKRT_HIP_LIBRARY names libraries that do not exist (set by CTest for this case's process):
 * unavailable, listing every name tried. */
static void test_missing_library(void) {
  const char* override_names = getenv("TKRT_HIP_LIBRARY");
  if (!override_names || !strstr(override_names, "/nonexistent/")) {
    TKRT_TEST_SKIP("run with TKRT_HIP_LIBRARY=/nonexistent/libamdhip64.so.6:/nonexistent/"
                   "libamdhip64.so");
  }
  tkrt_backend_info_t hip;
  ASSERT_TRUE(find_hip(&hip));
  printf("hip: available=%d reason: %s\n", hip.available, hip.reason);
  CHECK(!hip.available, "available with a missing library");
  CHECK(strstr(hip.reason, "not found") != NULL, "reason: %s", hip.reason);
  CHECK(strstr(hip.reason, "/nonexistent/libamdhip64.so.6 (") != NULL, "reason: %s", hip.reason);
  CHECK(strstr(hip.reason, "/nonexistent/libamdhip64.so (") != NULL, "reason: %s", hip.reason);
  CHECK(strstr(hip.reason, "TKRT_HIP_LIBRARY") != NULL, "reason: %s", hip.reason);
  expect_open_unavailable(hip.reason);
}

TKRT_TEST_MAIN(TKRT_TEST_CASE(test_installed_library_without_gpu),
               TKRT_TEST_CASE(test_missing_library))
