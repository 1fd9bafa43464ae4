/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the core tests: the backend and kernel image a test program runs with, the
 * device, kernels built from the image, and device buffers filled from and read back to host
 * arrays. The same programs run on every backend that has a build of the core test kernels.
 *
 * Usage: <test> <kernel image> [--backend=NAME] [case...]
 * The image's bytes decide what it is (a host shared object, CUDA PTX, ...): tkrt_image_inspect,
 * as TKRT_IMAGE_AUTO would. The backend is --backend=NAME, else $TKRT_CORE_TEST_BACKEND, else the
 * backend the image is for (the host backend for the host image). A backend that has no device
 * here makes the program exit 77 (CTest's skip). */
#ifndef TKRT_TEST_CORE_UTIL_H_
#define TKRT_TEST_CORE_UTIL_H_

#include <stdbool.h>

#include "test/harness.h"
#include "tkrt/tkrt.h"

#define CORE_BACKEND_OPTION "--backend="

static void* g_image;
static size_t g_image_size;
static tkrt_image_info_t g_image_info;   /* what the image's bytes say it is */
static char g_backend[TKRT_BACKEND_NAME_MAX]; /* the backend the tests run on */

/* The kernel image as a kernel description carries it: kind and arch from the bytes, the
 * backend derived from the kind. */
static inline tkrt_kernel_image_t core_image(void) {
  tkrt_kernel_image_t image = {.kind = g_image_info.kind, .arch = g_image_info.arch,
                               .data = g_image, .size = g_image_size};
  return image;
}

/* Reads and inspects the image named by argv[1], picks the backend, and removes a --backend=
 * option from argv so that the rest are case names (or a test's own arguments). Returns 0, or
 * the exit code for a usage error (2). */
static inline int core_test_init(int* argc, char** argv) {
  if (*argc < 2) {
    fprintf(stderr, "usage: %s <kernel image> [" CORE_BACKEND_OPTION "NAME] [case...]\n",
            argv[0]);
    return 2;
  }
  const char* backend = getenv("TKRT_CORE_TEST_BACKEND");
  int kept = 2;
  for (int i = 2; i < *argc; ++i) {
    if (strncmp(argv[i], CORE_BACKEND_OPTION, strlen(CORE_BACKEND_OPTION)) == 0) {
      backend = argv[i] + strlen(CORE_BACKEND_OPTION);
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  argv[kept] = NULL;
  g_image = tkrt_test_read_file(argv[1], &g_image_size);
  if (!g_image) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  tkrt_status_t status = tkrt_image_inspect(g_image, g_image_size, &g_image_info);
  if (status) {
    tkrt_test_print_status_(__FILE__, __LINE__, "tkrt_image_inspect", status);
    tkrt_status_free(status);
    return 2;
  }
  tkrt_kernel_image_t image = core_image();
  const char* image_backend = tkrt_kernel_image_backend(&image);
  if (!backend || !*backend) backend = image_backend;
  if (strlen(backend) >= sizeof(g_backend)) {
    fprintf(stderr, "backend name '%s' is too long\n", backend);
    return 2;
  }
  snprintf(g_backend, sizeof(g_backend), "%s", backend);
  if (strcmp(g_backend, image_backend) != 0) {
    fprintf(stderr, "%s is a %s image for the %s backend, not for %s\n", argv[1],
            tkrt_image_kind_name(g_image_info.kind), image_backend, g_backend);
    return 2;
  }
  return 0;
}

/* Opens a device of the chosen backend. NULL with *out_exit_code set when it cannot: 77 when
 * the backend has no device here (UNAVAILABLE), else 1. */
static inline tkrt_device_t* core_open_device_or_exit_code(int* out_exit_code) {
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  /* The environment's settings (TKRT_CACHE_DIR, TKRT_LOG, TKRT_HIP_LIBRARY, ...), as the tools
   * pass them; the backend is this program's choice. */
  tkrt_status_free(tkrt_options_from_environment(&options, NULL));
  options.backend = g_backend;
  tkrt_device_t* device = NULL;
  tkrt_status_t status = tkrt_device_open(&options, &device);
  if (status) {
    char* text = tkrt_status_to_string(status);
    int unavailable = tkrt_status_code(status) == TKRT_STATUS_UNAVAILABLE;
    fprintf(stderr, "%s backend: %s%s\n", g_backend, text ? text : "(no memory)",
            unavailable ? " (skipping)" : "");
    free(text);
    tkrt_status_free(status);
    *out_exit_code = unavailable ? 77 : 1;
    return NULL;
  }
  *out_exit_code = 0;
  return device;
}

/* Opens the first device of a test program and says what it runs on. */
static inline tkrt_device_t* core_open_main_device(int* out_exit_code) {
  tkrt_device_t* device = core_open_device_or_exit_code(out_exit_code);
  if (!device) {
    if (*out_exit_code == 77) printf("0 passed, 0 failed, 1 skipped\n");
    return NULL;
  }
  const tkrt_device_info_t* info = tkrt_device_info(device);
  fprintf(stderr, "core tests on the %s backend: %s (%s), warp %u; kernels: %s %s\n",
          info->backend, info->name, info->arch, info->warp_size,
          tkrt_image_kind_name(g_image_info.kind), g_image_info.arch);
  return device;
}

/* The whole main of a core test program: reads the image (core_test_init), opens the first
 * device into *device (then calls `opened`, if given), runs the cases named on the command line
 * (all by default), releases the device and the image. Returns the exit code. */
static inline int core_test_run(int argc, char** argv, tkrt_device_t** device,
                                void (*opened)(void), const tkrt_test_case_t* cases,
                                size_t count) {
  int exit_code = core_test_init(&argc, argv);
  if (exit_code) return exit_code;
  *device = core_open_main_device(&exit_code);
  if (*device) {
    if (opened) opened();
    exit_code = tkrt_test_main(argc - 1, argv + 1, cases, count);
    tkrt_device_release(*device);
    *device = NULL;
  }
  free(g_image);
  g_image = NULL;
  return exit_code;
}

/* Another device of the chosen backend, inside a test case (a failure counts). */
static inline tkrt_device_t* core_open_device(void) {
  int exit_code = 0;
  tkrt_device_t* device = core_open_device_or_exit_code(&exit_code);
  if (!device) ++tkrt_test_failed_;
  return device;
}

/* A kernel from the core test image; shape fields as in a Triton compile. */
static inline tkrt_kernel_t* core_kernel(const char* name, uint32_t num_warps, uint32_t num_ctas,
                                         uint32_t shared) {
  tkrt_kernel_image_t image = core_image();
  tkrt_kernel_desc_t desc;
  tkrt_kernel_desc_init(&desc);
  desc.name = name;
  desc.num_warps = num_warps;
  desc.num_ctas = num_ctas;
  desc.shared_mem_bytes = shared;
  desc.images = &image;
  desc.image_count = 1;
  tkrt_kernel_t* kernel = NULL;
  tkrt_status_t status = tkrt_kernel_create(&desc, &kernel);
  if (status) {
    tkrt_test_print_status_(__FILE__, __LINE__, "tkrt_kernel_create", status);
    tkrt_status_free(status);
    ++tkrt_test_failed_;
  }
  return kernel;
}

static inline tkrt_param_t core_array(uint64_t divisibility, uint64_t bytes_to_zero) {
  tkrt_param_t p = {.kind = TKRT_PARAM_ARRAY};
  p.value.array.ptr_divisibility = divisibility;
  p.value.array.bytes_to_zero = bytes_to_zero;
  return p;
}

static inline tkrt_param_t core_i32(int32_t v) {
  tkrt_param_t p = {.kind = TKRT_PARAM_I32};
  p.value.i32 = v;
  return p;
}

static inline tkrt_param_t core_u32(uint32_t v) {
  tkrt_param_t p = {.kind = TKRT_PARAM_U32};
  p.value.u32 = v;
  return p;
}

/* A plain (single-config) call; takes over the kernel reference. */
static inline tkrt_call_t* core_plain_call(tkrt_kernel_t* kernel, uint32_t gx, uint32_t gy,
                                           uint32_t gz, const tkrt_param_t* params,
                                           size_t count) {
  if (!kernel) return NULL;
  tkrt_config_desc_t config = {.kernel = kernel, .grid = {gx, gy, gz}, .params = params,
                               .param_count = count};
  tkrt_call_desc_t desc;
  tkrt_call_desc_init(&desc);
  desc.name = "test_call";
  desc.configs = &config;
  desc.config_count = 1;
  tkrt_call_t* call = NULL;
  tkrt_status_t status = tkrt_call_create(&desc, &call);
  tkrt_kernel_release(kernel);
  if (status) {
    tkrt_test_print_status_(__FILE__, __LINE__, "tkrt_call_create", status);
    tkrt_status_free(status);
    ++tkrt_test_failed_;
  }
  return call;
}

/* Device memory is only ever touched through tkrt's copies: on a GPU backend a device address
 * is not a host pointer. */
static inline tkrt_deviceptr_t core_upload(tkrt_device_t* device, const void* data, size_t size) {
  tkrt_deviceptr_t ptr = 0;
  tkrt_status_t status = tkrt_memory_alloc(device, size, &ptr);
  if (!status && data) status = tkrt_memcpy_htod_async(device, ptr, data, size, NULL);
  if (!status && !data) status = tkrt_memset_async(device, ptr, 0, size, NULL);
  if (!status) status = tkrt_stream_synchronize(device, NULL);
  if (status) {
    tkrt_test_print_status_(__FILE__, __LINE__, "upload", status);
    tkrt_status_free(status);
    ++tkrt_test_failed_;
  }
  return ptr;
}

static inline void core_download(tkrt_device_t* device, void* data, tkrt_deviceptr_t ptr,
                                 size_t size) {
  EXPECT_OK(tkrt_memcpy_dtoh_async(device, data, ptr, size, NULL));
  EXPECT_OK(tkrt_stream_synchronize(device, NULL));
}

/* One tkrt_call_launch; `decision` (may be NULL) receives what the core decided. */
static inline tkrt_status_t core_launch_decided(tkrt_call_t* call, tkrt_device_t* device,
                                                tkrt_stream_t stream, const tkrt_buffer_t* buffers,
                                                size_t inputs, size_t outputs,
                                                tkrt_autotuner_t* tuner,
                                                tkrt_launch_decision_t* decision) {
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  args.device = device;
  args.stream = stream;
  args.buffers = buffers;
  args.input_count = inputs;
  args.output_count = outputs;
  args.tuner = tuner;
  args.decision = decision;
  return tkrt_call_launch(call, &args);
}

static inline tkrt_status_t core_launch(tkrt_call_t* call, tkrt_device_t* device,
                                        tkrt_stream_t stream, const tkrt_buffer_t* buffers,
                                        size_t inputs, size_t outputs, tkrt_autotuner_t* tuner) {
  return core_launch_decided(call, device, stream, buffers, inputs, outputs, tuner, NULL);
}

/* The autotuned in-place call the core tests share: x += y over n floats, three configs
 * (inplace_add_128/512/2048, each with its own grid and described by its kernel name), parameters
 * x, y, n, the config's spin in microseconds, and a launch counter (counter[config] counts the
 * config's launches). */
typedef struct core_inplace_spec {
  int32_t n;
  uint32_t micros[3];          /* delay of each config: makes one clearly fastest */
  uint32_t warps[3];           /* 0: 4 warps */
  uint32_t shared[3];          /* dynamic shared memory per config */
  uint64_t counter_zero_bytes; /* bytes_to_zero of the counter (a memset per launch) */
  bool alias_record;           /* declare (input 0, output 0) as jax-triton does */
} core_inplace_spec_t;

static inline tkrt_call_t* core_inplace_call(const core_inplace_spec_t* spec) {
  static const char* names[3] = {"inplace_add_128", "inplace_add_512", "inplace_add_2048"};
  static const uint32_t blocks[3] = {128, 512, 2048};
  tkrt_param_t params[3][5];
  tkrt_config_desc_t configs[3];
  for (int c = 0; c < 3; ++c) {
    params[c][0] = core_array(16, 0);
    params[c][1] = core_array(16, 0);
    params[c][2] = core_i32(spec->n);
    params[c][3] = core_u32(spec->micros[c]);
    params[c][4] = core_array(0, spec->counter_zero_bytes);
    configs[c] = (tkrt_config_desc_t){
        .kernel = core_kernel(names[c], spec->warps[c] ? spec->warps[c] : 4, 1, spec->shared[c]),
        .grid = {((uint32_t)spec->n + blocks[c] - 1) / blocks[c], 1, 1},
        .params = params[c], .param_count = 5, .description = names[c]};
  }
  tkrt_alias_t alias = {0, 0, (uint64_t)spec->n * 4};
  tkrt_call_desc_t desc;
  tkrt_call_desc_init(&desc);
  desc.name = "inplace";
  desc.autotuned = true;
  desc.configs = configs;
  desc.config_count = 3;
  desc.aliases = spec->alias_record ? &alias : NULL;
  desc.alias_count = spec->alias_record ? 1 : 0;
  tkrt_call_t* call = NULL;
  EXPECT_OK(tkrt_call_create(&desc, &call));
  for (int c = 0; c < 3; ++c) tkrt_kernel_release(configs[c].kernel);
  return call;
}

/* A tuner for tests: no store (unless `store_dir`), no environment, short benchmarks. */
static inline tkrt_autotuner_t* core_tuner(const char* store_dir, double target_ms,
                                           uint32_t max_iterations) {
  tkrt_autotuner_options_t options;
  tkrt_autotuner_options_init(&options);
  options.store_dir = store_dir ? store_dir : "off";
  options.target_ms = target_ms;
  options.max_iterations = max_iterations;
  tkrt_autotuner_t* tuner = NULL;
  EXPECT_OK(tkrt_autotuner_create(&options, &tuner));
  return tuner;
}

#endif /* TKRT_TEST_CORE_UTIL_H_ */
