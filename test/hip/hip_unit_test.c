/* HIP backend unit tests without a GPU: the code-object vs device arch check on the real jaxlib
 * HSACO files, gcnArchName parsing, and the hipError_t to status mapping. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/hip/hip_internal.h"
#include "test/harness.h"

#ifndef TKRT_TEST_VECTORS_DIR
#error "CMake passes TKRT_TEST_VECTORS_DIR (../shared/vectors/jaxlib-0.11.2)"
#endif

#define CHECK(cond, ...)                       \
  do {                                         \
    if (!(cond)) TKRT_TEST_FAIL_(__VA_ARGS__); \
  } while (0)

static unsigned char* read_file(const char* path, size_t* out_size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char* data = malloc(size > 0 ? (size_t)size : 1);
  if (size <= 0 || fread(data, 1, (size_t)size, f) != (size_t)size) {
    free(data);
    fclose(f);
    return NULL;
  }
  fclose(f);
  *out_size = (size_t)size;
  return data;
}

/* OK when `needle` is NULL; else INVALID_ARGUMENT containing it. */
static void expect_check(const tkrt_image_info_t* image, const char* device, const char* needle) {
  tkrt_status_t status = tkrt_hip_check_code_object(image, device, 0);
  if (!needle) {
    CHECK(status == NULL, "%s on %s: %s", image->target, device, tkrt_status_message(status));
  } else {
    CHECK(status != NULL, "%s on %s passed", image->target, device);
    if (status) {
      CHECK(tkrt_status_code(status) == TKRT_STATUS_INVALID_ARGUMENT, "code %d",
            tkrt_status_code(status));
      CHECK(strstr(tkrt_status_message(status), needle) != NULL, "'%s' not in '%s'", needle,
            tkrt_status_message(status));
    }
  }
  tkrt_status_free(status);
}

static void test_arch_check(void) {
  const char* vectors = TKRT_TEST_VECTORS_DIR;
  char path[1024];
  size_t size90a = 0, size942 = 0;
  snprintf(path, sizeof(path), "%s/hsaco/gfx90a/kernel.hsaco", vectors);
  unsigned char* gfx90a = read_file(path, &size90a);
  snprintf(path, sizeof(path), "%s/hsaco/gfx942/kernel.hsaco", vectors);
  unsigned char* gfx942 = read_file(path, &size942);
  if (!gfx90a || !gfx942) {
    free(gfx90a);
    free(gfx942);
    TKRT_TEST_SKIP("the jaxlib HSACO vectors are not at %s/hsaco", vectors);
  }
  static tkrt_image_info_t a, b, c;
  tkrt_status_t status = tkrt_image_inspect(gfx90a, size90a, &a);
  CHECK(!status, "%s", tkrt_status_message(status));
  tkrt_status_free(status);
  status = tkrt_image_inspect(gfx942, size942, &b);
  CHECK(!status, "%s", tkrt_status_message(status));
  tkrt_status_free(status);

  /* The jaxlib code objects are built for xnack/sramecc "any": they run with either setting. */
  expect_check(&a, "gfx90a:sramecc+:xnack-", NULL);
  expect_check(&a, "gfx90a:sramecc-:xnack+", NULL);
  expect_check(&a, "gfx90a", NULL);
  expect_check(&b, "gfx942:sramecc+:xnack-", NULL);
  expect_check(&a, "gfx942:sramecc+:xnack-", "HSACO targets gfx90a but device 0 is gfx942");
  expect_check(&b, "gfx90a:sramecc+:xnack-", "HSACO targets gfx942 but device 0 is gfx90a");
  expect_check(&b, "gfx950", "but device 0 is gfx950");
  /* Unknown device arch (could not be read): the runtime decides. */
  expect_check(&a, "", NULL);

  /* A code object built with xnack+ cannot run where xnack is off, and sramecc- not where on. */
  c = a;
  c.xnack = TKRT_IMAGE_FEATURE_ON;
  snprintf(c.target, sizeof(c.target), "gfx90a:xnack+");
  expect_check(&c, "gfx90a:sramecc+:xnack-", "needs xnack on");
  expect_check(&c, "gfx90a:sramecc+:xnack+", NULL);
  expect_check(&c, "gfx90a", NULL);
  c = a;
  c.sramecc = TKRT_IMAGE_FEATURE_OFF;
  expect_check(&c, "gfx90a:sramecc+:xnack-", "needs sramecc off");
  /* Generic targets and unknown processors are left to the runtime. */
  c = a;
  snprintf(c.arch, sizeof(c.arch), "gfx9-generic");
  expect_check(&c, "gfx942:sramecc+:xnack-", NULL);
  c = a;
  c.arch[0] = '\0';
  expect_check(&c, "gfx942", NULL);
  /* Other kinds are refused, naming the kind. */
  c = a;
  c.kind = TKRT_IMAGE_PTX;
  expect_check(&c, "gfx90a", "not ptx images");

  char processor[64];
  tkrt_hip_arch_processor("gfx90a:sramecc+:xnack-", processor, sizeof(processor));
  CHECK(strcmp(processor, "gfx90a") == 0, "processor '%s'", processor);
  tkrt_hip_arch_processor("gfx1100", processor, sizeof(processor));
  CHECK(strcmp(processor, "gfx1100") == 0, "processor '%s'", processor);
  free(gfx90a);
  free(gfx942);
}

static void test_error_mapping(void) {
  static const struct {
    int error;
    tkrt_status_code_t code;
  } cases[] = {
      {0, TKRT_STATUS_OK},
      {hipErrorInvalidValue, TKRT_STATUS_INVALID_ARGUMENT},
      {hipErrorOutOfMemory, TKRT_STATUS_RESOURCE_EXHAUSTED},
      {hipErrorNotInitialized, TKRT_STATUS_UNAVAILABLE},
      {hipErrorNoDevice, TKRT_STATUS_UNAVAILABLE},
      {hipErrorInvalidDevice, TKRT_STATUS_INVALID_ARGUMENT},
      {hipErrorInvalidImage, TKRT_STATUS_INVALID_ARGUMENT},
      {hipErrorNoBinaryForGpu, TKRT_STATUS_INVALID_ARGUMENT},
      {hipErrorInvalidKernelFile, TKRT_STATUS_INVALID_ARGUMENT},
      {hipErrorNotFound, TKRT_STATUS_NOT_FOUND},
      {hipErrorNotReady, TKRT_STATUS_FAILED_PRECONDITION},
      {hipErrorIllegalAddress, TKRT_STATUS_ABORTED},
      {hipErrorLaunchFailure, TKRT_STATUS_ABORTED},
      {hipErrorLaunchOutOfResources, TKRT_STATUS_RESOURCE_EXHAUSTED},
      {hipErrorCooperativeLaunchTooLarge, TKRT_STATUS_INVALID_ARGUMENT},
      {hipErrorNotSupported, TKRT_STATUS_UNIMPLEMENTED},
      {hipErrorStreamCaptureUnsupported, TKRT_STATUS_FAILED_PRECONDITION},
      {hipErrorStreamCaptureInvalidated, TKRT_STATUS_FAILED_PRECONDITION},
      {hipErrorCapturedEvent, TKRT_STATUS_FAILED_PRECONDITION},
      {hipErrorUnknown, TKRT_STATUS_UNKNOWN},
      {123456, TKRT_STATUS_UNKNOWN},
      {-1, TKRT_STATUS_UNKNOWN},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    tkrt_status_code_t code = tkrt_hip_status_code(cases[i].error);
    CHECK(code == cases[i].code, "hipError %d -> %s, want %s", cases[i].error,
          tkrt_status_code_name(code), tkrt_status_code_name(cases[i].code));
  }
  /* Without the library the message still names the operation and the number. */
  tkrt_status_t status = TKRT_HIP_STATUS(NULL, hipErrorOutOfMemory, "hipMalloc(%d bytes)", 64);
  CHECK(status && tkrt_status_code(status) == TKRT_STATUS_RESOURCE_EXHAUSTED, "code");
  CHECK(status && strstr(tkrt_status_message(status), "hipMalloc(64 bytes): hipError 2"),
        "message '%s'", tkrt_status_message(status));
  tkrt_status_free(status);
  CHECK(TKRT_HIP_STATUS(NULL, hipSuccess, "nothing") == NULL, "success is NULL");

  /* With the real library (when installed), the message carries hipGetErrorName's name. */
  const tkrt_hip_library_t* library = NULL;
  status = tkrt_hip_library_get(&library);
  tkrt_status_free(status); /* unavailable without a GPU: the library is still not usable here */
  char version[32];
  tkrt_hip_format_version(50221153, version, sizeof(version));
  CHECK(strcmp(version, "5.2.21153") == 0, "version '%s'", version);
  tkrt_hip_format_version(70000000, version, sizeof(version));
  CHECK(strcmp(version, "7.0.0") == 0, "version '%s'", version);
}

TKRT_TEST_MAIN(TKRT_TEST_CASE(test_error_mapping), TKRT_TEST_CASE(test_arch_check))
