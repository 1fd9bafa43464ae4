/* SPDX-License-Identifier: Apache-2.0 */
/* The jaxlib 0.11.2 vectors through the wire codec: call.pb and call.pb.z decode to the same call,
 * re-encoding gives call.pb byte for byte, and the decoded values match what the cases state.
 * Usage: wire_roundtrip_test VECTORS_DIR [case...]; exits 77 when the directory is missing. */
#include <math.h>

#include "test/wire/wire_test_util.h"

static void test_roundtrip_every_vector(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors at %s", g_vectors_dir ? g_vectors_dir : "?");
  for (size_t v = 0; v < WT_VECTOR_COUNT; ++v) {
    const char* name = kVectorNames[v];
    size_t raw_size = 0, z_size = 0;
    uint8_t* raw = wt_read_vector(name, "call.pb", &raw_size);
    uint8_t* z = wt_read_vector(name, "call.pb.z", &z_size);
    tkrt_call_t* from_z = NULL;
    tkrt_call_t* from_raw = NULL;
    void* encoded = NULL;
    size_t encoded_size = 0;
    void* encoded2 = NULL;
    size_t encoded2_size = 0;
    void* compressed = NULL;
    size_t compressed_size = 0;
    char why[128];
    if (!raw || !z) {
      TKRT_TEST_FAIL_("%s: cannot read call.pb / call.pb.z", name);
      goto next;
    }
    EXPECT_OK(wt_decode(z, z_size, &from_z));
    EXPECT_OK(wt_decode(raw, raw_size, &from_raw));
    if (!from_z || !from_raw) goto next;
    if (!wt_same_digest(from_z, from_raw)) TKRT_TEST_FAIL_("%s: digests differ", name);
    if (!wt_calls_equal(from_z, from_raw, why, sizeof(why))) {
      TKRT_TEST_FAIL_("%s: call.pb and call.pb.z decode differently: %s", name, why);
    }

    EXPECT_OK(wt_encode_raw(from_z, true, &encoded, &encoded_size));
    EXPECT_OK(wt_encode_raw(from_raw, true, &encoded2, &encoded2_size));
    if (!encoded || !encoded2) goto next;
    size_t diff = wt_first_diff(encoded, encoded_size, raw, raw_size);
    if (diff != (size_t)-1) {
      TKRT_TEST_FAIL_("%s: re-encoding differs from call.pb at byte %zu (%zu vs %zu bytes)", name,
                      diff, encoded_size, raw_size);
    } else if (wt_first_diff(encoded2, encoded2_size, raw, raw_size) != (size_t)-1) {
      TKRT_TEST_FAIL_("%s: re-encoding the call.pb decode differs from call.pb", name);
    } else {
      fprintf(stderr, "  %-18s decode(call.pb.z) -> encode == call.pb: %zu/%zu bytes identical\n",
              name, encoded_size, raw_size);
    }

    /* Compressed output decodes to the same call; with the zlib jaxlib used it is even the
     * same bytes (informational: another zlib build may compress differently). */
    tkrt_wire_encode_options_t options;
    tkrt_wire_encode_options_init(&options);
    EXPECT_OK(tkrt_wire_encode(from_z, &options, &compressed, &compressed_size));
    if (compressed) {
      tkrt_call_t* again = NULL;
      EXPECT_OK(wt_decode(compressed, compressed_size, &again));
      if (again && !wt_calls_equal(again, from_z, why, sizeof(why))) {
        TKRT_TEST_FAIL_("%s: compressed re-encoding decodes differently: %s", name, why);
      }
      tkrt_call_release(again);
      fprintf(stderr, "  %-18s compressed encode %s call.pb.z\n", name,
              wt_first_diff(compressed, compressed_size, z, z_size) == (size_t)-1
                  ? "== (byte-exact)"
                  : "!= (zlib build differs; content equal)");
    }

  next:
    tkrt_wire_free(encoded);
    tkrt_wire_free(encoded2);
    tkrt_wire_free(compressed);
    tkrt_call_release(from_z);
    tkrt_call_release(from_raw);
    free(raw);
    free(z);
  }
}

/* Decodes <name>/call.pb.z into *out; fails the case when it cannot. */
static bool load(const char* name, tkrt_call_t** out) {
  size_t size = 0;
  void* z = wt_read_vector(name, "call.pb.z", &size);
  if (!z) {
    TKRT_TEST_FAIL_("%s: cannot read call.pb.z", name);
    return false;
  }
  tkrt_status_t status = wt_decode(z, size, out);
  free(z);
  if (status) {
    tkrt_test_print_status_(__FILE__, __LINE__, name, status);
    tkrt_status_free(status);
    ++tkrt_test_failed_;
    return false;
  }
  return true;
}

static void expect_array(const tkrt_param_t* p, uint64_t bytes_to_zero, uint64_t divisibility) {
  EXPECT_EQ_U64(p->kind, TKRT_PARAM_ARRAY);
  EXPECT_EQ_U64(p->value.array.bytes_to_zero, bytes_to_zero);
  EXPECT_EQ_U64(p->value.array.ptr_divisibility, divisibility);
}

static void expect_ptx_kernel(const tkrt_kernel_t* kernel, const char* name, uint32_t warps) {
  const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(kernel);
  EXPECT_STREQ(k->name, name);
  EXPECT_EQ_U64(k->num_warps, warps);
  EXPECT_EQ_U64(k->compute_capability, 90);
  EXPECT_TRUE(k->ttir != NULL);
  ASSERT_TRUE(k->image_count == 1);
  const tkrt_kernel_image_t* image = &k->images[0];
  EXPECT_EQ_U64(image->kind, TKRT_IMAGE_PTX);
  EXPECT_EQ_U64(image->origin, TKRT_IMAGE_ORIGIN_PTX_FIELD);
  EXPECT_STREQ(image->backend, "cuda");
  EXPECT_STREQ(image->arch, "sm_90a");
  EXPECT_TRUE(image->size > 0 && memchr(image->data, '\n', image->size) != NULL);
  EXPECT_TRUE(wt_source_path(kernel, 0) == NULL);
}

static void test_facts_add_f32(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  tkrt_call_t* call = NULL;
  if (!load("add_f32", &call)) return;
  const tkrt_call_desc_t* d = tkrt_call_get_desc(call);
  EXPECT_TRUE(!d->autotuned);
  EXPECT_EQ_U64(d->config_count, 1);
  EXPECT_EQ_U64(d->alias_count, 0);
  const tkrt_config_desc_t* c = &d->configs[0];
  const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(c->kernel);
  expect_ptx_kernel(c->kernel, "add_kernel", 4);
  EXPECT_EQ_U64(k->num_ctas, 1);
  ASSERT_TRUE(wt_side(c->kernel) != NULL);
  EXPECT_EQ_U64(wt_side(c->kernel)->present, TKRT_WIRE_HAS_NUM_CTAS);
  EXPECT_EQ_U64(c->grid[0], 98);
  EXPECT_EQ_U64(c->grid[1], 1);
  EXPECT_EQ_U64(c->grid[2], 1);
  ASSERT_TRUE(c->param_count == 4);
  expect_array(&c->params[0], 0, 16);
  expect_array(&c->params[1], 0, 16);
  EXPECT_EQ_U64(c->params[2].kind, TKRT_PARAM_I32);
  EXPECT_EQ_U64(c->params[2].value.i32, 100003);
  expect_array(&c->params[3], 0, 16);
  tkrt_call_release(call);
}

static void test_facts_scalars(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  tkrt_call_t* call = NULL;
  if (!load("scalars", &call)) return;
  const tkrt_config_desc_t* c = &tkrt_call_get_desc(call)->configs[0];
  const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(c->kernel);
  expect_ptx_kernel(c->kernel, "scalars_kernel", 4);
  EXPECT_EQ_U64(k->shared_mem_bytes, 2048);
  ASSERT_TRUE(c->param_count == 10);
  expect_array(&c->params[0], 0, 16);
  EXPECT_EQ_U64(c->params[1].kind, TKRT_PARAM_I32);
  EXPECT_TRUE(c->params[1].value.i32 == -3);
  EXPECT_EQ_U64(c->params[2].kind, TKRT_PARAM_U32);
  EXPECT_TRUE(c->params[2].value.u32 == 3000000000u);
  EXPECT_EQ_U64(c->params[3].kind, TKRT_PARAM_I64);
  EXPECT_TRUE(c->params[3].value.i64 == -((int64_t)1 << 40));
  EXPECT_EQ_U64(c->params[4].kind, TKRT_PARAM_I64);
  EXPECT_TRUE(c->params[4].value.i64 == ((int64_t)1 << 62) + 5);
  EXPECT_EQ_U64(c->params[5].kind, TKRT_PARAM_F32);
  EXPECT_TRUE(c->params[5].value.f32 == 0.5f);
  EXPECT_EQ_U64(c->params[6].kind, TKRT_PARAM_F64);
  EXPECT_TRUE(c->params[6].value.f64 == 1e-300);
  EXPECT_EQ_U64(c->params[7].kind, TKRT_PARAM_I32);
  EXPECT_EQ_U64(c->params[7].value.i32, 100003);
  expect_array(&c->params[8], 0, 16);
  expect_array(&c->params[9], 0, 16);
  EXPECT_EQ_U64(c->grid[0], 196);
  tkrt_call_release(call);
}

static void test_facts_zeroed_accumulate(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  tkrt_call_t* call = NULL;
  if (!load("zeroed_accumulate", &call)) return;
  const tkrt_config_desc_t* c = &tkrt_call_get_desc(call)->configs[0];
  expect_ptx_kernel(c->kernel, "accumulate_kernel", 4);
  EXPECT_EQ_U64(tkrt_kernel_get_desc(c->kernel)->shared_mem_bytes, 16);
  ASSERT_TRUE(c->param_count == 3);
  expect_array(&c->params[0], 0, 16);
  EXPECT_EQ_U64(c->params[1].value.i32, 100003);
  expect_array(&c->params[2], 4, 16);
  tkrt_call_release(call);
}

static void test_facts_alias_inplace(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  tkrt_call_t* call = NULL;
  if (!load("alias_inplace", &call)) return;
  const tkrt_config_desc_t* c = &tkrt_call_get_desc(call)->configs[0];
  expect_ptx_kernel(c->kernel, "inc_inplace_kernel", 4);
  EXPECT_EQ_U64(c->grid[0], 391);
  ASSERT_TRUE(c->param_count == 3);
  expect_array(&c->params[0], 0, 16);
  expect_array(&c->params[1], 0, 16);
  EXPECT_EQ_U64(c->params[2].value.i32, 100003);
  tkrt_call_release(call);
}

static void test_facts_cluster_num_ctas2(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  tkrt_call_t* call = NULL;
  if (!load("cluster_num_ctas2", &call)) return;
  const tkrt_config_desc_t* c = &tkrt_call_get_desc(call)->configs[0];
  const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(c->kernel);
  expect_ptx_kernel(c->kernel, "add_kernel", 4);
  EXPECT_EQ_U64(k->num_ctas, 2);
  ASSERT_TRUE(wt_side(c->kernel) != NULL);
  EXPECT_TRUE(wt_side(c->kernel)->present & TKRT_WIRE_HAS_NUM_CTAS);
  EXPECT_EQ_U64(k->cluster_dims[0], 0);
  EXPECT_EQ_U64(wt_side(c->kernel)->cluster_dims[0], 0);
  EXPECT_EQ_U64(c->grid[0], 98);
  tkrt_call_release(call);
}

static void test_facts_autotuned_alias(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  tkrt_call_t* call = NULL;
  if (!load("autotuned_alias", &call)) return;
  const tkrt_call_desc_t* d = tkrt_call_get_desc(call);
  EXPECT_TRUE(d->autotuned);
  EXPECT_STREQ(d->autotune_name, " (inc_inplace_kernel) {'n': 100003}");
  ASSERT_TRUE(d->config_count == 3);
  static const uint32_t grids[3] = {782, 196, 49};
  static const uint32_t warps[3] = {4, 4, 8};
  static const char* const blocks[3] = {"BLOCK: 128,", "BLOCK: 512,", "BLOCK: 2048,"};
  for (size_t i = 0; i < 3; ++i) {
    const tkrt_config_desc_t* c = &d->configs[i];
    expect_ptx_kernel(c->kernel, "inc_inplace_kernel", warps[i]);
    EXPECT_EQ_U64(c->grid[0], grids[i]);
    EXPECT_EQ_U64(c->param_count, 3);
    EXPECT_TRUE(c->description && strstr(c->description, blocks[i]) != NULL);
  }
  ASSERT_TRUE(d->alias_count == 1);
  EXPECT_EQ_U64(d->aliases[0].input_index, 0);
  EXPECT_EQ_U64(d->aliases[0].output_index, 0);
  EXPECT_EQ_U64(d->aliases[0].size_bytes, 400012);
  tkrt_call_release(call);
}

static void test_facts_matmul_autotuned(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  tkrt_call_t* call = NULL;
  if (!load("matmul_autotuned", &call)) return;
  const tkrt_call_desc_t* d = tkrt_call_get_desc(call);
  EXPECT_TRUE(d->autotuned);
  ASSERT_TRUE(d->config_count == 4);
  bool grids_differ = false, warps_differ = false, smem_differ = false;
  for (size_t i = 0; i < 4; ++i) {
    const tkrt_config_desc_t* c = &d->configs[i];
    const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(c->kernel);
    EXPECT_EQ_U64(k->images[0].kind, TKRT_IMAGE_PTX);
    EXPECT_TRUE(c->grid[0] >= 1 && c->grid[1] >= 1);
    const tkrt_config_desc_t* c0 = &d->configs[0];
    const tkrt_kernel_desc_t* k0 = tkrt_kernel_get_desc(c0->kernel);
    grids_differ |= memcmp(c->grid, c0->grid, sizeof(c->grid)) != 0;
    warps_differ |= k->num_warps != k0->num_warps;
    smem_differ |= k->shared_mem_bytes != k0->shared_mem_bytes;
    fprintf(stderr, "  config %zu: grid %ux%ux%u, %u warps, %u B shared, %zu params\n", i,
            c->grid[0], c->grid[1], c->grid[2], k->num_warps, k->shared_mem_bytes,
            c->param_count);
  }
  EXPECT_TRUE(grids_differ);
  EXPECT_TRUE(warps_differ);
  EXPECT_TRUE(smem_differ);
  tkrt_call_release(call);
}

static void test_facts_tma_param(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  tkrt_call_t* call = NULL;
  if (!load("tma_param", &call)) return;
  const tkrt_call_desc_t* d = tkrt_call_get_desc(call);
  EXPECT_STREQ(d->name, "tma_case");
  EXPECT_TRUE(d->metadata_size == 4 && memcmp(d->metadata, "meta", 4) == 0);
  const tkrt_config_desc_t* c = &d->configs[0];
  const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(c->kernel);
  EXPECT_STREQ(k->name, "k");
  EXPECT_TRUE(k->ttir == NULL);
  EXPECT_STREQ(k->images[0].arch, "sm_90a");
  EXPECT_EQ_U64(c->grid[0], 1);
  EXPECT_EQ_U64(c->grid[1], 2);
  EXPECT_EQ_U64(c->grid[2], 3);
  ASSERT_TRUE(c->param_count == 3);
  expect_array(&c->params[0], 0, 16);
  EXPECT_EQ_U64(c->params[1].kind, TKRT_PARAM_TMA);
  const tkrt_tma_desc_t* t = &c->params[1].value.tma;
  EXPECT_EQ_U64(t->elem_type, 7);
  EXPECT_EQ_U64(t->swizzle, 3);
  EXPECT_EQ_U64(t->oob_fill, 0);
  ASSERT_TRUE(t->rank == 2);
  EXPECT_EQ_U64(t->shape[0], 64);
  EXPECT_EQ_U64(t->shape[1], 128);
  EXPECT_EQ_U64(t->strides[0], 128);
  EXPECT_EQ_U64(t->strides[1], 1);
  EXPECT_EQ_U64(t->block_shape[0], 32);
  EXPECT_EQ_U64(t->block_shape[1], 64);
  EXPECT_EQ_U64(c->params[2].kind, TKRT_PARAM_I32);
  EXPECT_EQ_U64(c->params[2].value.i32, 5);
  tkrt_call_release(call);
}

/* The vectors' digests, pinned: they key stored tuning decisions and TKRT_TUNE_PIN prefixes, so a
 * change must be deliberate (update the table and say so). A digest covers the public description
 * only: the same call with its kernels rebuilt in C, without the codec's side record, has the same
 * digest. */
static void test_digests_pinned(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  static const struct {
    const char* name;
    const char* digest;
  } kPinned[] = {
      {"add_f32", "b31ffdc0a530be0cf07294f48dc79418a94bfa7c05fa54757ba801d7ede4f9f1"},
      {"alias_inplace", "9dbdd691942e84b28638b6f79bfa54f084f2c7a79e5246a271b85cf9b5de06c9"},
      {"autotuned_alias", "7432127356c5494d80126cabc84bade8b83958dce7df70f97124af8e6fe12d82"},
      {"cluster_num_ctas2", "a6276fa73a9a37e19df6bab954de860bb774534533f07b1089a460be6287ce57"},
      {"matmul_autotuned", "38715414380f799deda00034834a49bcea22535aeff4cc956e2b45878a96b218"},
      {"scalars", "6cf5e776076bc2550f446278fbd34a216665919e6888d2a3cf174db22196af1d"},
      {"tma_param", "0745b6cb93afaecca76d910997474c6324fb096cf9d8a3ace036c39a460279de"},
      {"zeroed_accumulate", "fe4c5b2a8fa86f3eb4948adc205f49a745d432a0f1add6b7febd6ce1460938b0"},
  };
  for (size_t v = 0; v < sizeof(kPinned) / sizeof(kPinned[0]); ++v) {
    tkrt_call_t* call = NULL;
    if (!load(kPinned[v].name, &call)) continue;
    char hex[2 * TKRT_DIGEST_SIZE + 1];
    for (int i = 0; i < TKRT_DIGEST_SIZE; ++i) {
      snprintf(hex + 2 * i, 3, "%02x", tkrt_call_digest(call)[i]);
    }
    if (strcmp(hex, kPinned[v].digest) != 0) {
      TKRT_TEST_FAIL_("%s: digest %s, pinned %s", kPinned[v].name, hex, kPinned[v].digest);
    }
    const tkrt_call_desc_t* d = tkrt_call_get_desc(call);
    tkrt_config_desc_t configs[8];
    size_t made = 0;
    ASSERT_TRUE(d->config_count <= 8);
    for (; made < d->config_count; ++made) {
      configs[made] = d->configs[made];
      configs[made].kernel = NULL;
      EXPECT_OK(tkrt_kernel_create(tkrt_kernel_get_desc(d->configs[made].kernel),
                                   &configs[made].kernel));
      if (!configs[made].kernel) break;
      EXPECT_TRUE(wt_side(configs[made].kernel) == NULL);
      EXPECT_TRUE(wt_side(d->configs[made].kernel) != NULL);
    }
    if (made == d->config_count) {
      tkrt_call_desc_t cd = *d;
      cd.configs = configs;
      tkrt_call_t* rebuilt = NULL;
      EXPECT_OK(tkrt_call_create(&cd, &rebuilt));
      if (rebuilt && !wt_same_digest(call, rebuilt)) {
        TKRT_TEST_FAIL_("%s: the side record changed the digest", kPinned[v].name);
      }
      tkrt_call_release(rebuilt);
    }
    for (size_t c = 0; c < made; ++c) tkrt_kernel_release(configs[c].kernel);
    tkrt_call_release(call);
  }
}

/* The explicit formats: ZLIB refuses raw bytes, RAW refuses compressed ones, both as
 * INVALID_ARGUMENT; each accepts its own. */
static void test_explicit_formats(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  size_t raw_size = 0, z_size = 0;
  uint8_t* raw = wt_read_vector("add_f32", "call.pb", &raw_size);
  uint8_t* z = wt_read_vector("add_f32", "call.pb.z", &z_size);
  ASSERT_TRUE(raw && z);
  tkrt_wire_decode_options_t options;
  tkrt_wire_decode_options_init(&options);
  tkrt_call_t* call = NULL;
  options.format = TKRT_WIRE_FORMAT_ZLIB;
  EXPECT_STATUS(tkrt_wire_decode(raw, raw_size, &options, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "zlib inflate failed: incorrect header check");
  EXPECT_OK(tkrt_wire_decode(z, z_size, &options, &call));
  tkrt_call_release(call);
  call = NULL;
  options.format = TKRT_WIRE_FORMAT_RAW;
  EXPECT_STATUS(tkrt_wire_decode(z, z_size, &options, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "in the message");
  EXPECT_OK(tkrt_wire_decode(raw, raw_size, &options, &call));
  tkrt_call_release(call);
  free(raw);
  free(z);
}

int main(int argc, char** argv) {
  g_vectors_dir = argc > 1 ? argv[1] : NULL;
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(test_roundtrip_every_vector), TKRT_TEST_CASE(test_facts_add_f32),
      TKRT_TEST_CASE(test_facts_scalars),          TKRT_TEST_CASE(test_facts_zeroed_accumulate),
      TKRT_TEST_CASE(test_facts_alias_inplace),    TKRT_TEST_CASE(test_facts_cluster_num_ctas2),
      TKRT_TEST_CASE(test_facts_autotuned_alias),  TKRT_TEST_CASE(test_facts_matmul_autotuned),
      TKRT_TEST_CASE(test_facts_tma_param),        TKRT_TEST_CASE(test_explicit_formats),
      TKRT_TEST_CASE(test_digests_pinned),
  };
  /* argv[1] is the vectors directory; later arguments select cases. */
  return tkrt_test_main(argc > 1 ? argc - 1 : argc, argc > 1 ? argv + 1 : argv, cases,
                        sizeof(cases) / sizeof(cases[0]));
}
