/* Helpers shared by the core tests: a host device, kernels built from the core test image, and
 * device buffers filled from and read back to host arrays. */
#ifndef TKRT_TEST_CORE_UTIL_H_
#define TKRT_TEST_CORE_UTIL_H_

#include "test/harness.h"
#include "tkrt/tkrt.h"

static void* g_image;
static size_t g_image_size;

static inline int core_test_load_image(const char* path) {
  g_image = tkrt_test_read_file(path, &g_image_size);
  if (!g_image) fprintf(stderr, "cannot read %s\n", path);
  return g_image != NULL;
}

static inline tkrt_device_t* core_open_host(void) {
  tkrt_device_options_t options;
  tkrt_device_options_init(&options);
  options.backend = "host";
  tkrt_device_t* device = NULL;
  tkrt_status_t status = tkrt_device_open(&options, &device);
  if (status) {
    tkrt_test_print_status_(__FILE__, __LINE__, "tkrt_device_open", status);
    tkrt_status_free(status);
    ++tkrt_test_failed_;
  }
  return device;
}

/* A kernel from the core test image; shape fields as in a Triton compile. */
static inline tkrt_kernel_t* core_kernel(const char* name, uint32_t num_warps, uint32_t num_ctas,
                                  uint32_t shared) {
  tkrt_kernel_image_t image = {.backend = "host", .kind = TKRT_IMAGE_HOST, .data = g_image,
                               .size = g_image_size};
  tkrt_kernel_desc_t desc;
  tkrt_kernel_desc_init(&desc);
  desc.name = name;
  desc.num_warps = num_warps;
  desc.num_ctas = num_ctas;
  desc.present = TKRT_KERNEL_HAS_NUM_CTAS;
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
static inline tkrt_call_t* core_plain_call(tkrt_kernel_t* kernel, uint32_t gx, uint32_t gy, uint32_t gz,
                                    const tkrt_param_t* params, size_t count) {
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

static inline void core_download(tkrt_device_t* device, void* data, tkrt_deviceptr_t ptr, size_t size) {
  EXPECT_OK(tkrt_memcpy_dtoh_async(device, data, ptr, size, NULL));
  EXPECT_OK(tkrt_stream_synchronize(device, NULL));
}

static inline tkrt_status_t core_launch(tkrt_call_t* call, tkrt_device_t* device, tkrt_stream_t stream,
                                 const tkrt_buffer_t* buffers, size_t inputs, size_t outputs,
                                 tkrt_autotuner_t* tuner) {
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  args.device = device;
  args.stream = stream;
  args.buffers = buffers;
  args.input_count = inputs;
  args.output_count = outputs;
  args.tuner = tuner;
  return tkrt_call_launch(call, &args);
}

#endif /* TKRT_TEST_CORE_UTIL_H_ */
