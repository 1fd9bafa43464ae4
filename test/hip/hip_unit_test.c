/* SPDX-License-Identifier: Apache-2.0 */
/* HIP backend unit tests without a GPU: the code-object vs device arch check on the real jaxlib
 * HSACO files, gcnArchName parsing, the hipError_t to status mapping, the library names, image
 * choice on a device of unknown arch, and launches and streams over a stand-in runtime. */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/hip/hip_internal.h"
#include "test/harness.h"
#include "tkrt/tkrt.h"

#ifndef TKRT_TEST_VECTORS_DIR
#error "CMake passes TKRT_TEST_VECTORS_DIR (test/data/jaxlib-0.11.2)"
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
      /* Sticky device faults: INTERNAL, as on CUDA (test/cuda/cuda_unit_test.c). */
      {hipErrorIllegalAddress, TKRT_STATUS_INTERNAL},
      {hipErrorLaunchFailure, TKRT_STATUS_INTERNAL},
      {hipErrorLaunchTimeOut, TKRT_STATUS_INTERNAL},
      {hipErrorAssert, TKRT_STATUS_INTERNAL},
      {hipErrorPriorLaunchFailure, TKRT_STATUS_INTERNAL},
      {hipErrorECCNotCorrectable, TKRT_STATUS_DATA_LOSS},
      {hipErrorContextIsDestroyed, TKRT_STATUS_FAILED_PRECONDITION},
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
  status = tkrt_hip_library_get(NULL, &library);
  tkrt_status_free(status); /* unavailable without a GPU: the library is still not usable here */
  char version[32];
  tkrt_hip_format_version(50221153, version, sizeof(version));
  CHECK(strcmp(version, "5.2.21153") == 0, "version '%s'", version);
  tkrt_hip_format_version(70000000, version, sizeof(version));
  CHECK(strcmp(version, "7.0.0") == 0, "version '%s'", version);
}

/* ---------------------------------------------------------------- library names */

/* The names tried: the usual sonames, or the caller's ':' list (tkrt_device_options_t.hip_library,
 * TKRT_HIP_LIBRARY through tkrt_options_from_environment). */
static void test_library_names(void) {
  static tkrt_hip_library_names_t names;
  tkrt_hip_library_names_get(NULL, &names);
  static const char* const want[] = {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5",
                                     "libamdhip64.so"};
  CHECK(!names.overridden && names.count == 4, "%zu default names", names.count);
  for (size_t i = 0; i < names.count && i < 4; ++i) {
    CHECK(strcmp(names.names[i], want[i]) == 0, "name %zu is '%s'", i, names.names[i]);
  }
  tkrt_hip_library_names_get("", &names);
  CHECK(!names.overridden && names.count == 4, "an empty list means the defaults");

  tkrt_hip_library_names_get("/opt/rocm-x/lib/libamdhip64.so::libamdhip64.so.6:", &names);
  CHECK(names.overridden && names.count == 2, "%zu override names", names.count);
  CHECK(names.count == 2 && strcmp(names.names[0], "/opt/rocm-x/lib/libamdhip64.so") == 0 &&
            strcmp(names.names[1], "libamdhip64.so.6") == 0,
        "override names '%s', '%s'", names.names[0], names.count > 1 ? names.names[1] : "");

  /* TKRT_HIP_LIBRARY reaches the backend through the options. */
  const char* saved = getenv("TKRT_HIP_LIBRARY");
  char saved_copy[1024] = "";
  if (saved) snprintf(saved_copy, sizeof(saved_copy), "%s", saved);
  setenv("TKRT_HIP_LIBRARY", "/nowhere/libamdhip64.so.6", 1);
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  EXPECT_OK(tkrt_options_from_environment(&options, NULL));
  CHECK(options.hip_library && strcmp(options.hip_library, "/nowhere/libamdhip64.so.6") == 0,
        "hip_library '%s'", options.hip_library ? options.hip_library : "(null)");
  if (saved) {
    setenv("TKRT_HIP_LIBRARY", saved_copy, 1);
  } else {
    unsetenv("TKRT_HIP_LIBRARY");
  }
}

/* ---------------------------------------------------------------- image choice, unknown arch */

/* A HAL device named "hip" whose module loads always succeed: what the core chooses is what it
 * tries to load. */
static int g_fake_loads;

static void fake_destroy(tkrt_device_t* device) { free(device); }

static tkrt_status_t fake_module_load(tkrt_device_t* device, const tkrt_image_t* image,
                                      void** out_module) {
  (void)device;
  (void)image;
  ++g_fake_loads;
  *out_module = &g_fake_loads;
  return NULL;
}

static void fake_module_unload(tkrt_device_t* device, void* module) {
  (void)device;
  (void)module;
}

static tkrt_status_t fake_function_create(tkrt_device_t* device, void* module, const char* name,
                                          tkrt_hal_function_info_t* out_info) {
  (void)device;
  (void)name;
  out_info->handle = module;
  return NULL;
}

static void fake_function_destroy(tkrt_device_t* device, void* function) {
  (void)device;
  (void)function;
}

static const tkrt_hal_device_vtable_t fake_vtable = {
    .destroy = fake_destroy,
    .module_load = fake_module_load,
    .module_unload = fake_module_unload,
    .function_create = fake_function_create,
    .function_destroy = fake_function_destroy,
};

/* The real backend's descriptor: its image_rank decides what fits. */
extern const tkrt_hal_backend_t tkrt_hip_backend;

static void fake_fill_limits(tkrt_device_info_t* info) {
  info->warp_size = 64;
  info->max_threads_per_block = 1024;
  for (int i = 0; i < 3; ++i) {
    info->max_block_dim[i] = 1024;
    info->max_grid_dim[i] = 65535;
  }
  info->max_shared_per_block = 32768;
  info->max_shared_per_block_optin = 65536;
}

/* Prepares a one-image call on a stand-in HIP device whose arch is `device_arch`. */
static tkrt_status_t prepare_on(const char* device_arch, tkrt_image_kind_t kind,
                                const char* image_arch) {
  static const unsigned char bytes[] = {0x7f, 'E', 'L', 'F'}; /* never parsed by the fake */
  tkrt_kernel_image_t image;
  memset(&image, 0, sizeof(image));
  image.arch = image_arch;
  image.kind = kind;
  image.data = bytes;
  image.size = sizeof(bytes);
  tkrt_kernel_desc_t kernel_desc;
  tkrt_kernel_desc_init(&kernel_desc);
  kernel_desc.name = "kernel";
  kernel_desc.num_warps = 1;
  kernel_desc.images = &image;
  kernel_desc.image_count = 1;
  tkrt_kernel_t* kernel = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_kernel_create(&kernel_desc, &kernel));
  tkrt_config_desc_t config;
  memset(&config, 0, sizeof(config));
  config.kernel = kernel;
  config.grid[0] = config.grid[1] = config.grid[2] = 1;
  tkrt_call_desc_t call_desc;
  tkrt_call_desc_init(&call_desc);
  call_desc.configs = &config;
  call_desc.config_count = 1;
  tkrt_call_t* call = NULL;
  tkrt_status_t status = tkrt_call_create(&call_desc, &call);
  tkrt_kernel_release(kernel);
  if (status) return status;
  tkrt_device_t* device = calloc(1, sizeof(*device));
  if (!device) {
    tkrt_call_release(call);
    return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  }
  tkrt_hal_device_initialize(device, &tkrt_hip_backend, &fake_vtable, 0);
  snprintf(device->info.arch, sizeof(device->info.arch), "%s", device_arch);
  fake_fill_limits(&device->info);
  status = tkrt_call_prepare(call, device);
  tkrt_call_release(call);
  tkrt_device_release(device);
  return status;
}

/* An empty device arch (the HIP backend could not read gcnArchName safely) is unknown, not a
 * mismatch: any image of the backend is chosen, and the backend's load decides. */
static void test_image_choice_unknown_arch(void) {
  g_fake_loads = 0;
  EXPECT_OK(prepare_on("", TKRT_IMAGE_HSACO, "gfx90a"));
  CHECK(g_fake_loads == 1, "%d loads", g_fake_loads);
  EXPECT_OK(prepare_on("", TKRT_IMAGE_HSACO, NULL));
  EXPECT_OK(prepare_on("gfx90a", TKRT_IMAGE_HSACO, "gfx90a:xnack-"));
  CHECK(g_fake_loads == 3, "%d loads", g_fake_loads);
  /* A known arch still rules images out, and an unknown one does not admit other backends. */
  EXPECT_STATUS(prepare_on("gfx942", TKRT_IMAGE_HSACO, "gfx90a"), TKRT_STATUS_INVALID_ARGUMENT,
                "no image for this device");
  EXPECT_STATUS(prepare_on("", TKRT_IMAGE_PTX, "sm_90"), TKRT_STATUS_INVALID_ARGUMENT,
                "no image for this device");
  CHECK(g_fake_loads == 3, "%d loads", g_fake_loads);
}

/* ---------------------------------------------------------------- launches, stand-in runtime */

static int g_launches;
static unsigned g_launch_shared;
static unsigned g_stream_flags;
static int g_module_token;

static const char* fake_hip_error_name(hipError_t error) {
  (void)error;
  return "hipErrorFake";
}
static hipError_t fake_hip_get_device(int* device) {
  *device = 0;
  return hipSuccess;
}
static hipError_t fake_hip_set_device(int device) {
  (void)device;
  return hipSuccess;
}
static hipError_t fake_hip_module_load_data(hipModule_t* module, const void* image) {
  (void)image;
  *module = (hipModule_t)&g_module_token;
  return hipSuccess;
}
static hipError_t fake_hip_module_unload(hipModule_t module) {
  (void)module;
  return hipSuccess;
}
static hipError_t fake_hip_module_get_function(hipFunction_t* function, hipModule_t module,
                                               const char* name) {
  (void)name;
  *function = (hipFunction_t)module;
  return hipSuccess;
}
static hipError_t fake_hip_func_get_attribute(int* value, hipFunction_attribute attribute,
                                              hipFunction_t function) {
  (void)function;
  *value = attribute == HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES ? 1024 : 256;
  return hipSuccess;
}
static hipError_t fake_hip_launch(hipFunction_t f, unsigned int gx, unsigned int gy,
                                  unsigned int gz, unsigned int bx, unsigned int by,
                                  unsigned int bz, unsigned int shared_bytes, hipStream_t stream,
                                  void** params, void** extra) {
  (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz;
  (void)stream, (void)params, (void)extra;
  ++g_launches;
  g_launch_shared = shared_bytes;
  return hipSuccess;
}
static hipError_t fake_hip_stream_create(hipStream_t* stream, unsigned int flags) {
  g_stream_flags = flags;
  *stream = (hipStream_t)&g_stream_flags;
  return hipSuccess;
}

static uint32_t dynamic_limit(tkrt_function_t* function) {
  tkrt_function_attrs_t attrs;
  memset(&attrs, 0, sizeof(attrs));
  tkrt_status_t status = tkrt_function_get_attrs(function, &attrs);
  CHECK(!status, "%s", tkrt_status_message(status));
  tkrt_status_free(status);
  return attrs.max_dynamic_shared_bytes;
}

/* Dynamic shared memory above the current limit raises it at launch, up to the opt-in limit
 * minus static shared memory (as on CUDA); beyond it, OUT_OF_RANGE naming both numbers. Streams
 * are non-blocking, as on CUDA. */
static void test_launch_raises_dynamic_shared(void) {
  char path[1024];
  size_t size = 0;
  snprintf(path, sizeof(path), "%s/hsaco/gfx90a/kernel.hsaco", TKRT_TEST_VECTORS_DIR);
  unsigned char* hsaco = read_file(path, &size);
  if (!hsaco) TKRT_TEST_SKIP("the jaxlib HSACO vectors are not at %s/hsaco", TKRT_TEST_VECTORS_DIR);

  static tkrt_hip_symbols_t api;
  memset(&api, 0, sizeof(api));
  api.hipGetErrorName = fake_hip_error_name;
  api.hipGetDevice = fake_hip_get_device;
  api.hipSetDevice = fake_hip_set_device;
  api.hipModuleLoadData = fake_hip_module_load_data;
  api.hipModuleUnload = fake_hip_module_unload;
  api.hipModuleGetFunction = fake_hip_module_get_function;
  api.hipFuncGetAttribute = fake_hip_func_get_attribute;
  api.hipModuleLaunchKernel = fake_hip_launch;
  api.hipStreamCreateWithFlags = fake_hip_stream_create;
  static tkrt_hip_library_t library;
  memset(&library, 0, sizeof(library));
  library.opened_name = "a stand-in runtime";
  library.api = api;
  static tkrt_hip_device_t device;
  memset(&device, 0, sizeof(device));
  tkrt_hal_device_initialize(&device.base, &tkrt_hip_backend, &tkrt_hip_device_vtable, 0);
  tkrt_device_retain(&device.base); /* static: never destroyed */
  device.library = &library;
  device.api = &library.api;
  snprintf(device.arch_name, sizeof(device.arch_name), "gfx90a:sramecc+:xnack-");
  snprintf(device.base.info.arch, sizeof(device.base.info.arch), "gfx90a");
  fake_fill_limits(&device.base.info); /* 32 KiB per block, 64 KiB opt-in */

  /* Through the API layer, which keeps the one copy of the shared memory rule for every
   * backend; the backend's own methods run underneath. */
  tkrt_image_t image = {.kind = TKRT_IMAGE_HSACO, .data = hsaco, .size = size};
  tkrt_module_t* module = NULL;
  tkrt_function_t* function = NULL;
  tkrt_status_t status = tkrt_module_load(&device.base, &image, &module);
  CHECK(!status, "module load: %s", tkrt_status_message(status));
  tkrt_status_free(status);
  free(hsaco);
  if (!module) return;
  status = tkrt_module_get_function(module, "kernel", &function);
  CHECK(!status, "function get: %s", tkrt_status_message(status));
  tkrt_status_free(status);
  if (function) {
    CHECK(dynamic_limit(function) == 32768 - 1024, "initial limit %u", dynamic_limit(function));
    tkrt_launch_params_t params;
    memset(&params, 0, sizeof(params));
    params.grid[0] = params.grid[1] = params.grid[2] = 1;
    params.block[0] = 64;
    params.block[1] = params.block[2] = 1;
    params.shared_mem_bytes = 40000; /* over the per-block limit, within the opt-in one */
    EXPECT_OK(tkrt_launch(function, &params, NULL));
    CHECK(g_launches == 1 && g_launch_shared == 40000, "%d launches, %u bytes", g_launches,
          g_launch_shared);
    CHECK(dynamic_limit(function) == 65536 - 1024, "raised limit %u", dynamic_limit(function));
    params.shared_mem_bytes = 65536 - 1024;
    EXPECT_OK(tkrt_launch(function, &params, NULL));
    params.shared_mem_bytes = 65536 - 1024 + 1;
    EXPECT_STATUS(tkrt_launch(function, &params, NULL), TKRT_STATUS_OUT_OF_RANGE,
                  "64513 bytes of dynamic shared memory at launch");
    EXPECT_STATUS(tkrt_launch(function, &params, NULL), TKRT_STATUS_OUT_OF_RANGE,
                  "at most 64512");
    CHECK(g_launches == 2, "%d launches", g_launches);
    EXPECT_STATUS(tkrt_function_set_max_dynamic_shared(function, 64513), TKRT_STATUS_OUT_OF_RANGE,
                  "at most 64512");
    EXPECT_OK(tkrt_function_set_max_dynamic_shared(function, 100));
    CHECK(dynamic_limit(function) == 100, "set limit %u", dynamic_limit(function));
  }
  tkrt_module_unload(module);

  tkrt_stream_t stream = NULL;
  EXPECT_OK(tkrt_hip_stream_create(&device.base, &stream));
  CHECK(g_stream_flags == hipStreamNonBlocking, "stream flags %u", g_stream_flags);
}

TKRT_TEST_MAIN(TKRT_TEST_CASE(test_error_mapping), TKRT_TEST_CASE(test_arch_check),
               TKRT_TEST_CASE(test_library_names), TKRT_TEST_CASE(test_image_choice_unknown_arch),
               TKRT_TEST_CASE(test_launch_raises_dynamic_shared))
