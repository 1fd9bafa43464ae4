/* SPDX-License-Identifier: Apache-2.0 */
/* The CUDA backend as the public API shows it on a machine without the CUDA driver: probing,
 * listing, opening explicitly and falling through to the next backend. Skips (77) where a driver
 * is installed, since then none of this can be observed. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tkrt/environment.h"
#include "tkrt/device.h"

static int cuda_driver_installed(void) {
  tkrt_backend_info_t infos[8];
  size_t count = 0;
  tkrt_status_t status = tkrt_backend_list(infos, 8, &count);
  tkrt_status_free(status);
  for (size_t i = 0; i < count && i < 8; ++i) {
    if (strcmp(infos[i].name, "cuda") == 0) {
      /* Library present (the message is about devices or cuInit, not loading). */
      return infos[i].available || !strstr(infos[i].reason, "not installed");
    }
  }
  return 0;
}

#define SKIP_IF_DRIVER_PRESENT()                                                      \
  do {                                                                                \
    if (cuda_driver_installed()) TKRT_TEST_SKIP("a CUDA driver library is installed"); \
  } while (0)

static void backend_list_shows_cuda_unavailable(void) {
  SKIP_IF_DRIVER_PRESENT();
  tkrt_backend_info_t infos[8];
  size_t count = 0;
  ASSERT_OK(tkrt_backend_list(infos, 8, &count));
  int found = 0;
  for (size_t i = 0; i < count && i < 8; ++i) {
    if (strcmp(infos[i].name, "cuda") != 0) continue;
    found = 1;
    EXPECT_TRUE(!infos[i].available);
    EXPECT_EQ_U64(infos[i].device_count, 0);
    /* The reason lists both names tried, in order. */
    const char* first = strstr(infos[i].reason, "libcuda.so.1");
    const char* second = first ? strstr(first + strlen("libcuda.so.1"), "libcuda.so") : NULL;
    if (!first || !second) TKRT_TEST_FAIL_("reason '%s' lacks the names tried", infos[i].reason);
  }
  EXPECT_TRUE(found);
}

static void opening_cuda_explicitly_is_unavailable(void) {
  SKIP_IF_DRIVER_PRESENT();
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  options.backend = "cuda";
  tkrt_device_t* device = NULL;
  EXPECT_STATUS(tkrt_device_open(&options, &device), TKRT_STATUS_UNAVAILABLE, "libcuda.so.1");
  EXPECT_TRUE(device == NULL);
  /* Probing again gives the same answer (the load is attempted once per process). */
  EXPECT_STATUS(tkrt_device_open(&options, &device), TKRT_STATUS_UNAVAILABLE, "libcuda.so");
}

static void cuda_then_host_falls_through(void) {
  SKIP_IF_DRIVER_PRESENT();
  tkrt_backend_info_t infos[8];
  size_t count = 0;
  ASSERT_OK(tkrt_backend_list(infos, 8, &count));
  int host_available = 0;
  for (size_t i = 0; i < count && i < 8; ++i) {
    if (strcmp(infos[i].name, "host") == 0) host_available = infos[i].available;
  }
  if (!host_available) TKRT_TEST_SKIP("the host backend is not available in this build");
  setenv("TKRT_BACKEND", "cuda,host", 1);
  tkrt_device_t* device = NULL;
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  tkrt_status_t status = tkrt_options_from_environment(&options, NULL);
  if (!status) status = tkrt_device_open(&options, &device);
  unsetenv("TKRT_BACKEND");
  ASSERT_OK(status);
  EXPECT_STREQ(tkrt_device_backend_name(device), "host");
  tkrt_device_release(device);
}

static void cuda_alone_from_environment_lists_the_attempt(void) {
  SKIP_IF_DRIVER_PRESENT();
  setenv("TKRT_BACKEND", "cuda", 1);
  tkrt_device_t* device = NULL;
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  EXPECT_OK(tkrt_options_from_environment(&options, NULL));
  EXPECT_STATUS(tkrt_device_open(&options, &device), TKRT_STATUS_UNAVAILABLE, "libcuda.so.1");
  unsetenv("TKRT_BACKEND");
}

TKRT_TEST_MAIN(TKRT_TEST_CASE(backend_list_shows_cuda_unavailable),
               TKRT_TEST_CASE(opening_cuda_explicitly_is_unavailable),
               TKRT_TEST_CASE(cuda_then_host_falls_through),
               TKRT_TEST_CASE(cuda_alone_from_environment_lists_the_attempt))
