/* HIP backend probe tests through the public API: with the real libamdhip64 and no AMD GPU the
 * backend is listed as unavailable with a reason, and opening it explicitly is UNAVAILABLE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tkrt/device.h"

static int failures;

#define CHECK(cond, ...)                                                        \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);  \
      fprintf(stderr, __VA_ARGS__);                                             \
      fprintf(stderr, "\n");                                                    \
      ++failures;                                                               \
    }                                                                           \
  } while (0)

static int find_hip(tkrt_backend_info_t* out) {
  tkrt_backend_info_t infos[8];
  size_t count = 0;
  tkrt_status_t status = tkrt_backend_list(infos, 8, &count);
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
  options.backend = "hip";
  tkrt_device_t* device = NULL;
  tkrt_status_t status = tkrt_device_open(&options, &device);
  if (!status) tkrt_device_release(device);
  return status;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "installed";
  tkrt_backend_info_t hip;
  if (!find_hip(&hip)) {
    fprintf(stderr, "the hip backend is not compiled in\n");
    return 1;
  }
  printf("hip: available=%d devices=%d reason: %s\n", hip.available, hip.device_count, hip.reason);
  if (strcmp(mode, "installed") == 0) {
    if (hip.available) {
      fprintf(stderr, "skip: an AMD GPU is present; this test covers machines without one\n");
      return 77;
    }
    if (strstr(hip.reason, "not found")) {
      fprintf(stderr, "skip: libamdhip64 is not installed (apt-get install libamdhip64-dev)\n");
      return 77;
    }
    CHECK(strstr(hip.reason, "no device") != NULL, "reason: %s", hip.reason);
    CHECK(strstr(hip.reason, "libamdhip64.so") != NULL, "reason lacks the library: %s",
          hip.reason);
    CHECK(strstr(hip.reason, "hipErrorNoDevice") != NULL, "reason lacks the HIP error: %s",
          hip.reason);
    CHECK(hip.device_count == 0, "device_count %d", hip.device_count);
  } else if (strcmp(mode, "missing") == 0) {
    CHECK(!hip.available, "available with a missing library");
    CHECK(strstr(hip.reason, "not found") != NULL, "reason: %s", hip.reason);
    CHECK(strstr(hip.reason, "/nonexistent/libamdhip64.so.6") != NULL, "reason: %s", hip.reason);
    CHECK(strstr(hip.reason, "/nonexistent/libamdhip64.so ") != NULL ||
              strstr(hip.reason, "/nonexistent/libamdhip64.so (") != NULL,
          "reason: %s", hip.reason);
    CHECK(strstr(hip.reason, "TKRT_HIP_LIBRARY") != NULL, "reason: %s", hip.reason);
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  /* Asking for hip explicitly keeps the backend's own code and reason; asking twice gives the
   * same answer (the library is probed once per process). */
  for (int attempt = 0; attempt < 2; ++attempt) {
    tkrt_status_t status = open_hip();
    CHECK(status != NULL, "opening hip succeeded without a GPU");
    if (status) {
      printf("open hip: %s: %s\n", tkrt_status_code_name(tkrt_status_code(status)),
             tkrt_status_message(status));
      CHECK(tkrt_status_code(status) == TKRT_STATUS_UNAVAILABLE, "code %s",
            tkrt_status_code_name(tkrt_status_code(status)));
      CHECK(strstr(tkrt_status_message(status), hip.reason) != NULL,
            "open message lacks the probe reason: %s", tkrt_status_message(status));
    }
    tkrt_status_free(status);
  }
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  return 0;
}
