/* SPDX-License-Identifier: Apache-2.0 */
/* Core launches: jaxlib's launch semantics (buffers, scalars, hidden pointers, block and cluster
 * shapes, bytes_to_zero, global scratch) and every validation error, on any backend (host in CI,
 * CUDA on the GPU machine); limits come from the device's info. */
#include <stdint.h>

#include "test/core/core_test_util.h"

static tkrt_device_t* g_device;
static const tkrt_device_info_t* g_info;

static void test_validate_too_few_buffers(void) {
  tkrt_param_t params[] = {core_array(16, 0), core_array(16, 0), core_array(16, 0), core_i32(8),
                           core_u32(0), core_array(0, 0)};
  tkrt_call_t* call = core_plain_call(core_kernel("add_128", 4, 1, 0), 1, 1, 1, params, 6);
  ASSERT_TRUE(call != NULL);
  tkrt_deviceptr_t a = core_upload(g_device, NULL, 64);
  tkrt_buffer_t buffers[] = {{a, 64}, {a, 64}};
  EXPECT_STATUS(core_launch(call, g_device, NULL, buffers, 2, 0, NULL),
                TKRT_STATUS_INVALID_ARGUMENT,
                "has 4 array parameters but only 2 buffers were given (parameter 2 has no buffer)");
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
}

static void test_validate_divisibility(void) {
  tkrt_param_t params[] = {core_array(16, 0)};
  tkrt_call_t* call = core_plain_call(core_kernel("count_programs", 1, 1, 0), 1, 1, 1, params, 1);
  ASSERT_TRUE(call != NULL);
  tkrt_deviceptr_t a = core_upload(g_device, NULL, 256);
  tkrt_buffer_t misaligned = {a + 4, 16};
  EXPECT_STATUS(core_launch(call, g_device, NULL, &misaligned, 1, 0, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, "parameter 0 (0x");
  EXPECT_STATUS(core_launch(call, g_device, NULL, &misaligned, 1, 0, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, ") is not divisible by 16");
  uint32_t value = 0;
  core_download(g_device, &value, a, 4);
  EXPECT_EQ_U64(value, 0); /* nothing ran */
  /* An empty buffer (XLA's empty optional operands) may sit at any address: not checked. */
  tkrt_buffer_t empty = {a + 4, 0};
  EXPECT_OK(core_launch(call, g_device, NULL, &empty, 1, 0, NULL));
  EXPECT_OK(tkrt_stream_synchronize(g_device, NULL));
  EXPECT_OK(tkrt_memset_async(g_device, a, 0, 256, NULL));
  tkrt_buffer_t aligned = {a + 16, 16};
  EXPECT_OK(core_launch(call, g_device, NULL, &aligned, 1, 0, NULL));
  core_download(g_device, &value, a + 16, 4);
  EXPECT_EQ_U64(value, 1);
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
}

static void test_validate_empty_grid_is_a_noop(void) {
  /* A null (zero-size) buffer passes the divisibility check, and an empty grid runs nothing:
   * not even the bytes_to_zero memset. */
  tkrt_param_t params[] = {core_array(16, 0)};
  tkrt_call_t* call = core_plain_call(core_kernel("count_programs", 4, 1, 0), 0, 5, 1, params, 1);
  ASSERT_TRUE(call != NULL);
  tkrt_buffer_t null_buffer = {0, 0};
  EXPECT_OK(core_launch(call, g_device, NULL, &null_buffer, 1, 0, NULL));
  tkrt_call_release(call);
  tkrt_param_t zeroed[] = {core_array(16, 4)};
  call = core_plain_call(core_kernel("count_programs", 4, 1, 0), 3, 0, 1, zeroed, 1);
  ASSERT_TRUE(call != NULL);
  uint32_t seven = 7, value = 0;
  tkrt_deviceptr_t a = core_upload(g_device, &seven, 4);
  tkrt_buffer_t buffer = {a, 4};
  EXPECT_OK(core_launch(call, g_device, NULL, &buffer, 0, 1, NULL));
  core_download(g_device, &value, a, 4);
  EXPECT_EQ_U64(value, 7);
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
}

static void test_validate_grid_limits_after_cluster_scaling(void) {
  tkrt_param_t params[] = {core_array(0, 0)};
  tkrt_deviceptr_t a = core_upload(g_device, NULL, 64);
  tkrt_buffer_t buffer = {a, 64};
  char expected[160];
  uint32_t over_y = g_info->max_grid_dim[1] + 1;
  tkrt_call_t* call =
      core_plain_call(core_kernel("count_programs", 4, 1, 0), 1, over_y, 1, params, 1);
  snprintf(expected, sizeof(expected), "grid dimension y is %u, over the %s device limit of %u",
           over_y, g_info->backend, g_info->max_grid_dim[1]);
  EXPECT_STATUS(core_launch(call, g_device, NULL, &buffer, 1, 0, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, expected);
  tkrt_call_release(call);
  /* The most CTAs that fit in x with one more cluster of 4's worth: they fit before the cluster
   * scaling, not after it. */
  ASSERT_TRUE(g_info->max_cluster_size >= 4);
  uint32_t fits_x = g_info->max_grid_dim[0] / 4 + 1;
  ASSERT_TRUE(fits_x <= g_info->max_grid_dim[0] && (uint64_t)fits_x * 4 <= UINT32_MAX);
  call = core_plain_call(core_kernel("count_programs", 4, 4, 0), fits_x, 1, 1, params, 1);
  snprintf(expected, sizeof(expected), "grid dimension x is %u, over the %s device limit of %u",
           fits_x * 4, g_info->backend, g_info->max_grid_dim[0]);
  EXPECT_STATUS(core_launch(call, g_device, NULL, &buffer, 1, 0, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, expected);
  tkrt_call_release(call);
  /* Past 2^32 CTAs once scaled: refused before the limits are even compared. */
  call = core_plain_call(core_kernel("count_programs", 4, 4, 0), 1u << 30, 1, 1, params, 1);
  EXPECT_STATUS(core_launch(call, g_device, NULL, &buffer, 1, 0, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, "overflows");
  tkrt_call_release(call);
  uint32_t big_cluster = g_info->max_cluster_size * 2;
  call = core_plain_call(core_kernel("count_programs", 4, big_cluster, 0), 2, 1, 1, params, 1);
  snprintf(expected, sizeof(expected), "has %u blocks, over the device limit of %u", big_cluster,
           g_info->max_cluster_size);
  EXPECT_STATUS(core_launch(call, g_device, NULL, &buffer, 1, 0, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, expected);
  tkrt_call_release(call);
  /* Twice the widest block, in warps of the device's size. */
  uint32_t too_many_warps = g_info->max_block_dim[0] / g_info->warp_size * 2;
  call = core_plain_call(core_kernel("count_programs", too_many_warps, 1, 0), 2, 1, 1, params, 1);
  snprintf(expected, sizeof(expected), "block dimension x is %u; the device allows 1 to %u",
           too_many_warps * g_info->warp_size, g_info->max_block_dim[0]);
  EXPECT_STATUS(core_launch(call, g_device, NULL, &buffer, 1, 0, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, expected);
  tkrt_call_release(call);
  /* Nothing above ran: the accumulator is still zero. */
  uint32_t value = 1;
  core_download(g_device, &value, a, 4);
  EXPECT_EQ_U64(value, 0);
  EXPECT_OK(tkrt_memory_free(g_device, a));
}

/* An arch of the device's own backend that is not the device's, spelled so that the core can
 * tell (an unknown CUDA spelling would be left to the driver): the next SM number, arch-specific. */
static void core_other_arch(char* out, size_t capacity) {
  if (strcmp(g_info->backend, "cuda") == 0) {
    snprintf(out, capacity, "sm_%da", g_info->cc_major * 10 + g_info->cc_minor + 1);
  } else {
    snprintf(out, capacity, "not-%s", g_info->arch);
  }
}

/* A kernel named `name` whose only image is `image`; the call takes one array parameter. */
static tkrt_call_t* call_with_image(const char* name, const tkrt_kernel_image_t* image,
                                    const tkrt_param_t* params) {
  tkrt_kernel_desc_t desc;
  tkrt_kernel_desc_init(&desc);
  desc.name = name;
  desc.num_warps = 4;
  desc.images = image;
  desc.image_count = 1;
  tkrt_kernel_t* kernel = NULL;
  EXPECT_OK(tkrt_kernel_create(&desc, &kernel));
  return core_plain_call(kernel, 1, 1, 1, params, 1);
}

/* A num_warps whose block is over the device's thread limit is named as such (the audit saw
 * num_warps >= 2^27 reported as an odd block dimension). */
static void test_validate_num_warps_names_itself(void) {
  tkrt_param_t params[] = {core_array(0, 0)};
  tkrt_deviceptr_t a = core_upload(g_device, NULL, 64);
  tkrt_buffer_t buffer = {a, 64};
  uint32_t too_many = g_info->max_threads_per_block / g_info->warp_size + 1;
  static const uint32_t warps[2] = {0, 1u << 27};
  for (int i = 0; i < 2; ++i) {
    uint32_t n = i == 0 ? too_many : warps[1];
    tkrt_call_t* call = core_plain_call(core_kernel("count_programs", n, 1, 0), 1, 1, 1, params, 1);
    ASSERT_TRUE(call != NULL);
    char expected[96];
    snprintf(expected, sizeof(expected), "num_warps %u of kernel 'count_programs'", n);
    EXPECT_STATUS(core_launch(call, g_device, NULL, &buffer, 1, 0, NULL),
                  TKRT_STATUS_INVALID_ARGUMENT, expected);
    tkrt_call_release(call);
  }
  EXPECT_OK(tkrt_memory_free(g_device, a));
}

static void test_validate_shared_memory_and_images(void) {
  tkrt_param_t params[] = {core_array(0, 4)};
  tkrt_deviceptr_t a = core_upload(g_device, NULL, 64);
  tkrt_buffer_t buffer = {a, 64};
  char expected[256];
  uint32_t limit = g_info->max_shared_per_block_optin;
  tkrt_call_t* call =
      core_plain_call(core_kernel("count_programs", 4, 1, limit + 1), 1, 1, 1, params, 1);
  snprintf(expected, sizeof(expected),
           "dynamic shared memory of %u bytes is over the device limit of %u bytes", limit + 1,
           limit);
  EXPECT_STATUS(core_launch(call, g_device, NULL, &buffer, 1, 0, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, expected);
  tkrt_call_release(call);
  /* Exactly the limit runs (the kernel has no static shared memory): 2 programs counted. */
  call = core_plain_call(core_kernel("count_programs", 4, 1, limit), 2, 1, 1, params, 1);
  EXPECT_OK(core_launch(call, g_device, NULL, &buffer, 0, 1, NULL));
  uint32_t value = 0;
  core_download(g_device, &value, a, 4);
  EXPECT_EQ_U64(value, 2);
  tkrt_call_release(call);

  /* Only an image for another backend: CUDA PTX on the host device, a host image elsewhere. */
  const char ptx[] = ".version 8.7\n.target sm_90a\n";
  const char elf[] = "\177ELF";
  int on_host = strcmp(g_info->backend, "host") == 0;
  tkrt_kernel_image_t foreign = {.kind = on_host ? TKRT_IMAGE_PTX : TKRT_IMAGE_HOST,
                                 .arch = on_host ? "sm_90a" : NULL,
                                 .data = on_host ? ptx : elf,
                                 .size = on_host ? sizeof(ptx) - 1 : sizeof(elf) - 1};
  call = call_with_image("k", &foreign, params);
  snprintf(expected, sizeof(expected), "kernel 'k': no image for this device (%s %s)",
           g_info->backend, g_info->arch);
  EXPECT_STATUS(core_launch(call, g_device, NULL, &buffer, 1, 0, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, expected);
  EXPECT_STATUS(tkrt_call_prepare(call, g_device), TKRT_STATUS_INVALID_ARGUMENT,
                on_host ? "it has: cuda ptx for sm_90a" : "it has: host host");
  tkrt_call_release(call);

  /* The right backend and kind, built for another arch of it. */
  char other_arch[sizeof(g_info->arch) + 8];
  core_other_arch(other_arch, sizeof(other_arch));
  tkrt_kernel_image_t wrong_arch = core_image();
  wrong_arch.arch = other_arch;
  call = call_with_image("count_programs", &wrong_arch, params);
  snprintf(expected, sizeof(expected), "it has: %s %s for %s", g_info->backend,
           tkrt_image_kind_name(wrong_arch.kind), other_arch);
  EXPECT_STATUS(core_launch(call, g_device, NULL, &buffer, 1, 0, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, expected);
  tkrt_call_release(call);

  call = core_plain_call(core_kernel("no_such_kernel", 4, 1, 0), 1, 1, 1, params, 1);
  EXPECT_STATUS(core_launch(call, g_device, NULL, &buffer, 1, 0, NULL), TKRT_STATUS_NOT_FOUND,
                "no_such_kernel");
  tkrt_call_release(call);
  /* None of the refused calls ran or zeroed its buffer. */
  core_download(g_device, &value, a, 4);
  EXPECT_EQ_U64(value, 2);
  EXPECT_OK(tkrt_memory_free(g_device, a));
}

static void test_bytes_to_zero_before_every_launch(void) {
  tkrt_param_t params[] = {core_array(16, 4)};
  tkrt_call_t* call = core_plain_call(core_kernel("count_programs", 4, 1, 0), 10, 2, 1, params, 1);
  ASSERT_TRUE(call != NULL);
  uint32_t garbage = 12345, value = 0;
  tkrt_deviceptr_t a = core_upload(g_device, &garbage, 4);
  tkrt_buffer_t buffer = {a, 4};
  for (int i = 0; i < 3; ++i) {
    EXPECT_OK(core_launch(call, g_device, NULL, &buffer, 0, 1, NULL));
    core_download(g_device, &value, a, 4);
    EXPECT_EQ_U64(value, 20);
  }
  tkrt_buffer_t small = {a, 2};
  EXPECT_STATUS(core_launch(call, g_device, NULL, &small, 0, 1, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "bytes_to_zero is 4 but its buffer is smaller");
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
}

static void test_launch_shape_hidden_params_and_scratch(void) {
  tkrt_kernel_image_t image = core_image();
  tkrt_kernel_desc_t desc;
  tkrt_kernel_desc_init(&desc);
  desc.name = "launch_probe";
  desc.num_warps = 4;
  desc.num_ctas = 2;
  desc.shared_mem_bytes = 1000;
  desc.global_scratch_size = 64;
  desc.global_scratch_align = 1024;
  desc.images = &image;
  desc.image_count = 1;
  tkrt_kernel_t* kernel = NULL;
  ASSERT_OK(tkrt_kernel_create(&desc, &kernel));
  tkrt_param_t params[] = {core_array(16, 0)};
  tkrt_call_t* call = core_plain_call(kernel, 3, 2, 1, params, 1);
  ASSERT_TRUE(call != NULL);
  tkrt_deviceptr_t a = core_upload(g_device, NULL, 64);
  tkrt_buffer_t buffer = {a, 64};
  uint32_t out[11] = {0}, first_scratch[2];
  for (int launch = 0; launch < 2; ++launch) {
    EXPECT_OK(core_launch(call, g_device, NULL, &buffer, 0, 1, NULL));
    core_download(g_device, out, a, sizeof(out));
    EXPECT_EQ_U64(out[0], 6); /* grid x 3, times the cluster of 2 */
    EXPECT_EQ_U64(out[1], 2);
    EXPECT_EQ_U64(out[2], 1);
    EXPECT_EQ_U64(out[3], 4 * g_info->warp_size); /* num_warps x warp size */
    EXPECT_EQ_U64(out[4], 2);
    EXPECT_EQ_U64(out[5], 1);
    EXPECT_EQ_U64(out[6], 1);
    EXPECT_EQ_U64(out[7], 1000); /* dynamic shared memory */
    EXPECT_EQ_U64(out[10], 1); /* profile scratch is null */
    uint64_t scratch = (uint64_t)out[9] << 32 | out[8];
    EXPECT_TRUE(scratch != 0 && scratch % 1024 == 0);
    if (launch == 0) {
      memcpy(first_scratch, &out[8], sizeof(first_scratch));
      /* 12 programs x 64 bytes, each program's word written. */
      uint32_t words[12 * 16];
      core_download(g_device, words, scratch, sizeof(words));
      for (uint32_t p = 0; p < 12; ++p) EXPECT_EQ_U64(words[p * 16], p + 1);
    } else {
      /* Allocated once per (call, device), reused. */
      EXPECT_TRUE(memcmp(first_scratch, &out[8], sizeof(first_scratch)) == 0);
    }
  }
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
}

static void test_legacy_cluster_dims(void) {
  tkrt_kernel_image_t image = core_image();
  tkrt_kernel_desc_t desc;
  tkrt_kernel_desc_init(&desc);
  desc.name = "launch_probe";
  desc.num_warps = 2;
  desc.cluster_dims[0] = 2; /* num_ctas absent: the old fields 7-9 apply */
  desc.images = &image;
  desc.image_count = 1;
  tkrt_kernel_t* kernel = NULL;
  ASSERT_OK(tkrt_kernel_create(&desc, &kernel));
  tkrt_param_t params[] = {core_array(0, 0)};
  tkrt_call_t* call = core_plain_call(kernel, 4, 1, 1, params, 1);
  tkrt_deviceptr_t a = core_upload(g_device, NULL, 64);
  tkrt_buffer_t buffer = {a, 64};
  uint32_t out[11];
  EXPECT_OK(core_launch(call, g_device, NULL, &buffer, 0, 1, NULL));
  core_download(g_device, out, a, sizeof(out));
  EXPECT_EQ_U64(out[0], 8);
  EXPECT_EQ_U64(out[3], 2 * g_info->warp_size);
  EXPECT_EQ_U64(out[4], 2);
  EXPECT_EQ_U64(out[8] | out[9], 0); /* no global scratch asked for: null */
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
}

static void test_scalars_packed_by_type(void) {
  tkrt_param_t params[8];
  params[0] = core_array(16, 0);
  params[1] = (tkrt_param_t){.kind = TKRT_PARAM_BOOL, .value.b = true};
  params[2] = core_i32(-3);
  params[3] = core_u32(3000000000u);
  params[4] = (tkrt_param_t){.kind = TKRT_PARAM_I64, .value.i64 = -(INT64_C(1) << 40)};
  params[5] = (tkrt_param_t){.kind = TKRT_PARAM_U64, .value.u64 = (UINT64_C(1) << 62) + 5};
  params[6] = (tkrt_param_t){.kind = TKRT_PARAM_F32, .value.f32 = 0.5f};
  params[7] = (tkrt_param_t){.kind = TKRT_PARAM_F64, .value.f64 = 1e-300};
  tkrt_call_t* call = core_plain_call(core_kernel("scalars", 4, 1, 0), 1, 1, 1, params, 8);
  tkrt_deviceptr_t a = core_upload(g_device, NULL, 7 * 8);
  tkrt_buffer_t buffers[] = {{a, 56}, {a, 56}}; /* the extra buffer is not passed */
  EXPECT_OK(core_launch(call, g_device, NULL, buffers, 0, 2, NULL));
  uint64_t out[7];
  core_download(g_device, out, a, sizeof(out));
  float f = 0.5f;
  double d = 1e-300;
  uint32_t fbits;
  uint64_t dbits;
  memcpy(&fbits, &f, 4);
  memcpy(&dbits, &d, 8);
  EXPECT_EQ_U64(out[0], 1);
  EXPECT_EQ_U64(out[1], (uint64_t)(int64_t)-3);
  EXPECT_EQ_U64(out[2], 3000000000u);
  EXPECT_EQ_U64(out[3], (uint64_t)-(INT64_C(1) << 40));
  EXPECT_EQ_U64(out[4], (UINT64_C(1) << 62) + 5);
  EXPECT_EQ_U64(out[5], fbits);
  EXPECT_EQ_U64(out[6], dbits);
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
}

static void test_capture_needs_prepare(void) {
  tkrt_param_t params[] = {core_array(16, 4)};
  tkrt_call_t* call = core_plain_call(core_kernel("count_programs", 4, 1, 0), 5, 1, 1, params, 1);
  ASSERT_TRUE(call != NULL);
  tkrt_deviceptr_t a = core_upload(g_device, NULL, 4);
  tkrt_buffer_t buffer = {a, 4};
  tkrt_stream_t stream = NULL;
  ASSERT_OK(tkrt_stream_create(g_device, &stream));
  ASSERT_OK(tkrt_stream_begin_capture(g_device, stream));
  EXPECT_STATUS(core_launch(call, g_device, stream, &buffer, 0, 1, NULL),
                TKRT_STATUS_FAILED_PRECONDITION, "tkrt_call_prepare");
  tkrt_graph_t* graph = NULL;
  EXPECT_OK(tkrt_stream_end_capture(g_device, stream, &graph));
  EXPECT_OK(tkrt_graph_destroy(g_device, graph));
  /* Prepared first, the same launch captures, and the graph replays it (zeroing included). */
  EXPECT_OK(tkrt_call_prepare(call, g_device));
  EXPECT_OK(tkrt_call_prepare(call, g_device));
  ASSERT_OK(tkrt_stream_begin_capture(g_device, stream));
  EXPECT_OK(core_launch(call, g_device, stream, &buffer, 0, 1, NULL));
  graph = NULL;
  EXPECT_OK(tkrt_stream_end_capture(g_device, stream, &graph));
  uint32_t value = 99;
  for (int replay = 0; replay < 2 && graph; ++replay) {
    EXPECT_OK(tkrt_graph_launch(g_device, graph, stream));
    EXPECT_OK(tkrt_memcpy_dtoh_async(g_device, &value, a, 4, stream));
    EXPECT_OK(tkrt_stream_synchronize(g_device, stream));
    EXPECT_EQ_U64(value, 5);
  }
  EXPECT_OK(tkrt_graph_destroy(g_device, graph));
  EXPECT_OK(tkrt_stream_destroy(g_device, stream));
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
}

static void test_objects_reject_bad_descriptions(void) {
  tkrt_kernel_desc_t desc;
  tkrt_kernel_desc_init(&desc);
  tkrt_kernel_t* kernel = NULL;
  EXPECT_STATUS(tkrt_kernel_create(&desc, &kernel), TKRT_STATUS_INVALID_ARGUMENT, "no name");
  desc.name = "k";
  EXPECT_STATUS(tkrt_kernel_create(&desc, &kernel), TKRT_STATUS_INVALID_ARGUMENT, "num_warps is 0");
  desc.num_warps = 4;
  EXPECT_STATUS(tkrt_kernel_create(&desc, &kernel), TKRT_STATUS_INVALID_ARGUMENT, "no module image");
  tkrt_call_desc_t call_desc;
  tkrt_call_desc_init(&call_desc);
  tkrt_call_t* call = NULL;
  EXPECT_STATUS(tkrt_call_create(&call_desc, &call), TKRT_STATUS_INVALID_ARGUMENT, "no kernel configuration");
  tkrt_kernel_t* real = core_kernel("count_programs", 4, 1, 0);
  tkrt_param_t bad = core_array(12, 0);
  tkrt_config_desc_t configs[2] = {{.kernel = real, .grid = {1, 1, 1}, .params = &bad, .param_count = 1},
                                   {.kernel = real, .grid = {1, 1, 1}}};
  call_desc.configs = configs;
  call_desc.config_count = 1;
  EXPECT_STATUS(tkrt_call_create(&call_desc, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "ptr_divisibility 12 is not a power of two");
  call_desc.config_count = 2;
  configs[0].param_count = 0;
  EXPECT_STATUS(tkrt_call_create(&call_desc, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "exactly one config, not 2");
  call_desc.autotuned = true;
  EXPECT_OK(tkrt_call_create(&call_desc, &call));
  /* Digests depend on what runs, not on names. */
  tkrt_call_t* renamed = NULL;
  call_desc.name = "another name";
  EXPECT_OK(tkrt_call_create(&call_desc, &renamed));
  EXPECT_TRUE(call && renamed && memcmp(tkrt_call_digest(call), tkrt_call_digest(renamed), 32) == 0);
  configs[1].grid[0] = 2;
  tkrt_call_t* regridded = NULL;
  EXPECT_OK(tkrt_call_create(&call_desc, &regridded));
  EXPECT_TRUE(call && regridded && memcmp(tkrt_call_digest(call), tkrt_call_digest(regridded), 32) != 0);
  tkrt_call_release(call);
  tkrt_call_release(renamed);
  tkrt_call_release(regridded);
  tkrt_kernel_release(real);
}

/* The device's description, for the cases. */
static void set_info(void) { g_info = tkrt_device_info(g_device); }

int main(int argc, char** argv) {
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(test_validate_too_few_buffers),
      TKRT_TEST_CASE(test_validate_divisibility),
      TKRT_TEST_CASE(test_validate_empty_grid_is_a_noop),
      TKRT_TEST_CASE(test_validate_grid_limits_after_cluster_scaling),
      TKRT_TEST_CASE(test_validate_num_warps_names_itself),
      TKRT_TEST_CASE(test_validate_shared_memory_and_images),
      TKRT_TEST_CASE(test_bytes_to_zero_before_every_launch),
      TKRT_TEST_CASE(test_launch_shape_hidden_params_and_scratch),
      TKRT_TEST_CASE(test_legacy_cluster_dims),
      TKRT_TEST_CASE(test_scalars_packed_by_type),
      TKRT_TEST_CASE(test_capture_needs_prepare),
      TKRT_TEST_CASE(test_objects_reject_bad_descriptions),
  };
  return core_test_run(argc, argv, &g_device, set_info, cases, sizeof(cases) / sizeof(cases[0]));
}
