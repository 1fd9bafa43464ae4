/* SPDX-License-Identifier: Apache-2.0 */
/* Core TMA descriptor parameters (jaxlib's Parameter field 9): every validation error, named by
 * parameter, and UNIMPLEMENTED on devices without TMA (the host backend in CI). On a device with
 * TMA (CUDA, compute capability 9.0+: core.cuda.tma) it checks the per-launch checks instead: the
 * parameter consumes a buffer like an array parameter, and that buffer must be 16-byte aligned.
 * Real TMA kernels run against jaxlib in test/xla/test_tma.py. */
#include <stdint.h>

#include "test/core/core_test_util.h"

static tkrt_device_t* g_device;
static const tkrt_device_info_t* g_info;

/* The descriptor test/xla/test_tma.py runs: f32 (100, 200), row stride 200, box (32, 32), 128B
 * swizzle. */
static tkrt_param_t tma_param(void) {
  tkrt_param_t p = {.kind = TKRT_PARAM_TMA};
  tkrt_tma_desc_t* t = &p.value.tma;
  t->elem_type = 7;
  t->swizzle = 3;
  t->oob_fill = 0;
  t->rank = 2;
  t->shape[0] = 100;
  t->shape[1] = 200;
  t->strides[0] = 200;
  t->strides[1] = 1;
  t->block_shape[0] = 32;
  t->block_shape[1] = 32;
  return p;
}

static bool has_tma(void) { return (g_info->features & TKRT_DEVICE_FEATURE_TMA) != 0; }

/* Launches [scalar, TMA, array] with two buffers and expects `code` with `needle`. */
static void expect_launch(tkrt_param_t tma, tkrt_status_code_t code, const char* needle) {
  tkrt_param_t params[] = {core_i32(1), tma, core_array(0, 0)};
  tkrt_call_t* call = core_plain_call(core_kernel("count_programs", 1, 1, 0), 1, 1, 1, params, 3);
  ASSERT_TRUE(call != NULL);
  tkrt_deviceptr_t a = core_upload(g_device, NULL, 256);
  tkrt_buffer_t buffers[] = {{a, 256}, {a, 256}};
  EXPECT_STATUS(core_launch(call, g_device, NULL, buffers, 1, 1, NULL), code, needle);
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
}

static void test_tma_unimplemented_without_tma(void) {
  if (has_tma()) TKRT_TEST_SKIP("the %s device has TMA", g_info->backend);
  expect_launch(tma_param(), TKRT_STATUS_UNIMPLEMENTED, "parameter 1 is a TMA descriptor");
  if (strcmp(g_info->backend, "hip") == 0) {
    /* The backend says why: HIP has no equivalent yet (tkrt_hal_backend_t.tma_unsupported). */
    expect_launch(tma_param(), TKRT_STATUS_UNIMPLEMENTED,
                  "which the hip backend cannot build on device");
    expect_launch(tma_param(), TKRT_STATUS_UNIMPLEMENTED,
                  "the HIP backend has no tensor-descriptor (TMA) support yet");
  } else {
    expect_launch(tma_param(), TKRT_STATUS_UNIMPLEMENTED, "it needs a device with TMA");
  }
}

/* Launches tma_probe [TMA, counter, out] (CUDA; count_programs elsewhere, which the device
 * refuses before looking it up) with per-launch shapes and expects `code` with `needle`; on
 * success *out_desc gets the descriptor bytes the kernel saw. */
static void expect_shapes(const tkrt_tma_shape_t* shapes, size_t count, tkrt_status_code_t code,
                          const char* needle, uint64_t out_desc[16]) {
  tkrt_param_t params[] = {tma_param(), core_array(0, 4), core_array(0, 0)};
  tkrt_call_t* call = core_plain_call(
      core_kernel(has_tma() ? "tma_probe" : "count_programs", 1, 1, 0), 3, 1, 1, params, 3);
  ASSERT_TRUE(call != NULL);
  uint32_t garbage = 12345;
  tkrt_deviceptr_t a = core_upload(g_device, NULL, 100 * 200 * 4);
  tkrt_deviceptr_t counter = core_upload(g_device, &garbage, 4);
  tkrt_deviceptr_t desc = core_upload(g_device, NULL, 128);
  tkrt_buffer_t buffers[] = {{a, 100 * 200 * 4}, {counter, 4}, {desc, 128}};
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  args.device = g_device;
  args.buffers = buffers;
  args.input_count = 1;
  args.output_count = 2;
  args.tma_shapes = shapes;
  args.tma_shape_count = count;
  uint32_t value = 0;
  if (code == TKRT_STATUS_OK) {
    EXPECT_OK(tkrt_call_launch(call, &args));
    core_download(g_device, &value, counter, 4);
    EXPECT_EQ_U64(value, 1); /* zeroed, then program 0 counted */
    core_download(g_device, out_desc, desc, 128);
  } else {
    EXPECT_STATUS(tkrt_call_launch(call, &args), code, needle);
    core_download(g_device, &value, counter, 4);
    EXPECT_EQ_U64(value, 12345); /* nothing enqueued */
  }
  EXPECT_OK(tkrt_memory_free(g_device, a));
  EXPECT_OK(tkrt_memory_free(g_device, counter));
  EXPECT_OK(tkrt_memory_free(g_device, desc));
  tkrt_call_release(call);
}

/* Per-launch shapes (tkrt_call_launch_args_t.tma_shapes): on a device without TMA the parameter
 * itself is refused first, whatever the shapes say (the call cannot be prepared there). */
static void test_tma_shapes_per_launch(void) {
  tkrt_tma_shape_t shape = {.rank = 2, .shape = {50, 200}, .strides = {200, 1}};
  if (!has_tma()) {
    shape.rank = 3; /* a mismatch too: the device's refusal still comes first */
    expect_shapes(&shape, 1, TKRT_STATUS_UNIMPLEMENTED, "parameter 0 is a TMA descriptor", NULL);
    return;
  }
  /* The kernel gets this launch's descriptor: another shape, other bytes; the same shape again
   * (from the backend's cache on CUDA), the same bytes. */
  uint64_t half[16], own[16], again[16];
  expect_shapes(&shape, 1, TKRT_STATUS_OK, NULL, half);
  tkrt_tma_shape_t keep = {.rank = 0}; /* rank 0: the call's own */
  expect_shapes(&keep, 1, TKRT_STATUS_OK, NULL, own);
  EXPECT_TRUE(memcmp(half, own, sizeof(own)) != 0);
  expect_shapes(&shape, 1, TKRT_STATUS_OK, NULL, again);
  EXPECT_TRUE(memcmp(half, again, sizeof(again)) == 0);
  tkrt_tma_shape_t wrong_rank = {.rank = 3, .shape = {2, 50, 200}, .strides = {10000, 200, 1}};
  expect_shapes(&wrong_rank, 1, TKRT_STATUS_INVALID_ARGUMENT,
                "per-launch TMA shape 0 (parameter 0 of kernel 'tma_probe') has rank 3; the "
                "parameter's is 2", NULL);
  tkrt_tma_shape_t bad_stride = shape;
  bad_stride.strides[1] = 2;
  expect_shapes(&bad_stride, 1, TKRT_STATUS_INVALID_ARGUMENT,
                "the innermost stride (strides[1]) is 2", NULL);
  expect_shapes(&bad_stride, 1, TKRT_STATUS_INVALID_ARGUMENT, "per-launch TMA shape 0 of kernel",
                NULL);
  tkrt_tma_shape_t zero = shape;
  zero.shape[0] = 0;
  expect_shapes(&zero, 1, TKRT_STATUS_INVALID_ARGUMENT,
                "parameter 0 (TMA descriptor): shape[0] is 0", NULL);
  /* The tensor must lie in its buffer (100 x 200 f32, 80000 bytes): one row more is refused,
   * and so is a span that overflows 64 bits, before anything is enqueued. */
  tkrt_tma_shape_t too_big = {.rank = 2, .shape = {101, 200}, .strides = {200, 1}};
  expect_shapes(&too_big, 1, TKRT_STATUS_INVALID_ARGUMENT,
                "parameter 0 (TMA descriptor): its shape and strides span 80800 bytes but its "
                "buffer holds 80000", NULL);
  tkrt_tma_shape_t huge = {.rank = 2, .shape = {UINT64_C(1) << 32, 200},
                           .strides = {(UINT64_C(1) << 38) - 4, 1}};
  expect_shapes(&huge, 1, TKRT_STATUS_INVALID_ARGUMENT,
                "its shape and strides span more than 18446744073709551615 bytes", NULL);
  tkrt_tma_shape_t two[] = {shape, shape};
  expect_shapes(two, 2, TKRT_STATUS_INVALID_ARGUMENT,
                "2 per-launch TMA shapes given; kernel 'tma_probe' has 1 TMA parameters", NULL);
}

static void test_tma_validation_names_the_parameter(void) {
  tkrt_param_t p;
  p = tma_param(); p.value.tma.elem_type = 13;
  expect_launch(p, TKRT_STATUS_INVALID_ARGUMENT, "parameter 1 (TMA descriptor): element type 13 is not supported");
  p = tma_param(); p.value.tma.swizzle = 4;
  expect_launch(p, TKRT_STATUS_INVALID_ARGUMENT, "parameter 1 (TMA descriptor): swizzle 4 is not one of");
  p = tma_param(); p.value.tma.oob_fill = 2;
  expect_launch(p, TKRT_STATUS_INVALID_ARGUMENT, "parameter 1 (TMA descriptor): oob_fill 2 is not 0");
  p = tma_param(); p.value.tma.elem_type = 3; p.value.tma.oob_fill = 1;
  expect_launch(p, TKRT_STATUS_INVALID_ARGUMENT, "oob_fill 1 (NaN) needs a floating-point element type");
  p = tma_param(); p.value.tma.shape[0] = 0;
  expect_launch(p, TKRT_STATUS_INVALID_ARGUMENT, "parameter 1 (TMA descriptor): shape[0] is 0");
  p = tma_param(); p.value.tma.block_shape[0] = 257;
  expect_launch(p, TKRT_STATUS_INVALID_ARGUMENT, "block_shape[0] is 257; it must be in 1..256");
  p = tma_param(); p.value.tma.strides[1] = 2;
  expect_launch(p, TKRT_STATUS_INVALID_ARGUMENT, "the innermost stride (strides[1]) is 2");
  p = tma_param(); p.value.tma.strides[0] = 201; /* 804 bytes */
  expect_launch(p, TKRT_STATUS_INVALID_ARGUMENT, "strides[0] is 201 elements (804 bytes)");
  p = tma_param(); p.value.tma.swizzle = 0; p.value.tma.block_shape[1] = 3; /* 12 bytes */
  expect_launch(p, TKRT_STATUS_INVALID_ARGUMENT, "innermost block dimension is 12 bytes, not a multiple of 16");
  p = tma_param(); p.value.tma.block_shape[1] = 64; /* 256 bytes under a 128-byte swizzle */
  expect_launch(p, TKRT_STATUS_INVALID_ARGUMENT, "256 bytes, more than the 128-byte span of swizzle 3");
  /* The rank is checked when the call is made. */
  p = tma_param();
  p.value.tma.rank = 6;
  tkrt_kernel_t* kernel = core_kernel("count_programs", 1, 1, 0);
  ASSERT_TRUE(kernel != NULL);
  tkrt_config_desc_t config = {.kernel = kernel, .grid = {1, 1, 1}, .params = &p, .param_count = 1};
  tkrt_call_desc_t desc;
  tkrt_call_desc_init(&desc);
  desc.configs = &config;
  desc.config_count = 1;
  tkrt_call_t* call = NULL;
  EXPECT_STATUS(tkrt_call_create(&desc, &call), TKRT_STATUS_INVALID_ARGUMENT, "TMA descriptor rank 6");
  tkrt_kernel_release(kernel);
}

static void test_tma_consumes_an_aligned_buffer(void) {
  if (!has_tma()) TKRT_TEST_SKIP("the %s device has no TMA", g_info->backend);
  tkrt_param_t params[] = {tma_param(), core_array(0, 0)};
  tkrt_call_t* call = core_plain_call(core_kernel("count_programs", 1, 1, 0), 1, 1, 1, params, 2);
  ASSERT_TRUE(call != NULL);
  tkrt_deviceptr_t a = core_upload(g_device, NULL, 256);
  /* The descriptor's buffer of unknown size: these cases are about the buffer count and the base
   * alignment, checked before the span (a 256-byte size would be refused for its 80000-byte span). */
  tkrt_buffer_t one[] = {{a, TKRT_BUFFER_SIZE_UNKNOWN}};
  EXPECT_STATUS(core_launch(call, g_device, NULL, one, 1, 0, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "has 2 array and TMA parameters but only 1 buffers were given (parameter 1 has no "
                "buffer)");
  tkrt_buffer_t misaligned[] = {{a + 8, TKRT_BUFFER_SIZE_UNKNOWN}, {a, 256}};
  EXPECT_STATUS(core_launch(call, g_device, NULL, misaligned, 1, 1, NULL),
                TKRT_STATUS_INVALID_ARGUMENT,
                "parameter 0 (TMA descriptor): its buffer's address 0x");
  EXPECT_STATUS(core_launch(call, g_device, NULL, misaligned, 1, 1, NULL),
                TKRT_STATUS_INVALID_ARGUMENT, "is not 16-byte aligned");
  uint32_t value = 0;
  core_download(g_device, &value, a, 4);
  EXPECT_EQ_U64(value, 0); /* nothing ran */
  EXPECT_OK(tkrt_memory_free(g_device, a));
  tkrt_call_release(call);
}

/* The device's description, for the cases. */
static void set_info(void) { g_info = tkrt_device_info(g_device); }

int main(int argc, char** argv) {
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(test_tma_unimplemented_without_tma),
      TKRT_TEST_CASE(test_tma_validation_names_the_parameter),
      TKRT_TEST_CASE(test_tma_consumes_an_aligned_buffer),
      TKRT_TEST_CASE(test_tma_shapes_per_launch),
  };
  return core_test_run(argc, argv, &g_device, set_info, cases, sizeof(cases) / sizeof(cases[0]));
}
