/* SPDX-License-Identifier: Apache-2.0 */
/* ROCm blobs (an HSACO path in TritonKernel.ptx) and tkrt's own image field (TritonKernel field
 * 1000): files are read once and never deleted, image bytes travel in the blob so that it replays
 * anywhere, decoders that skip the field see the jaxlib call unchanged, and calls built in C
 * survive an encode/decode round trip. Usage: wire_tkrt_images_test VECTORS_DIR [case...]. */
#include <stdint.h>
#include <unistd.h>

#include "test/wire/wire_test_util.h"

/* ---------------------------------------------------------------- helpers */

static char g_tmp[256]; /* a private temporary directory, removed at the end */

static bool make_tmp(void) {
  if (g_tmp[0]) return true;
  snprintf(g_tmp, sizeof(g_tmp), "/tmp/tkrt-wire-test-XXXXXX");
  if (!mkdtemp(g_tmp)) {
    g_tmp[0] = '\0';
    return false;
  }
  return true;
}

static bool write_file(const char* path, const void* data, size_t size) {
  FILE* file = fopen(path, "wb");
  if (!file) return false;
  bool ok = fwrite(data, 1, size, file) == size;
  return fclose(file) == 0 && ok;
}

static bool file_exists(const char* path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* Any{kernel_call{kernel{name, warps 4, ptx: path_or_ptx}, grid 98, params: array, array, i32,
 * array}} as jaxlib's ROCm path builds it. */
static void rocm_blob(wt_msg_t* m, const char* ptx_field) {
  wt_msg_t k, call;
  wt_msg_init(&k);
  wt_msg_init(&call);
  wt_str(&k, 1, "add_kernel");
  wt_varint(&k, 2, 4);
  wt_str(&k, 4, ptx_field);
  wt_sub(&call, 1, &k);
  wt_varint(&call, 2, 98);
  wt_varint(&call, 3, 1);
  wt_varint(&call, 4, 1);
  wt_bytes(&call, 5, "\x0a\x02\x10\x10", 4);
  wt_bytes(&call, 5, "\x0a\x02\x10\x10", 4);
  wt_bytes(&call, 5, "\x18\xa3\x8d\x06", 4);
  wt_bytes(&call, 5, "\x0a\x02\x10\x10", 4);
  wt_sub(m, 1, &call);
  wt_msg_free(&k);
  wt_msg_free(&call);
}

static tkrt_status_t decode_with(const wt_msg_t* m, bool read_files, const char* base_dir,
                                 tkrt_call_t** out) {
  tkrt_wire_decode_options_t options;
  tkrt_wire_decode_options_init(&options);
  options.read_hsaco_files = read_files;
  options.base_dir = base_dir;
  return tkrt_wire_decode(m->data, m->size, &options, out);
}

/* Copies the vector's HSACO for `arch` to <tmp>/<arch>.hsaco; returns its bytes. */
static uint8_t* stage_hsaco(const char* arch, char* path, size_t path_capacity, size_t* size) {
  char rel[64];
  snprintf(rel, sizeof(rel), "hsaco/%s", arch);
  uint8_t* bytes = wt_read_vector(rel, "kernel.hsaco", size);
  if (!bytes || !make_tmp()) {
    free(bytes);
    return NULL;
  }
  snprintf(path, path_capacity, "%s/%s.hsaco", g_tmp, arch);
  if (!write_file(path, bytes, *size)) {
    free(bytes);
    return NULL;
  }
  return bytes;
}

/* ---------------------------------------------------------------- HSACO paths */

static void test_hsaco_path_read_once_never_deleted(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  static const char* const arches[] = {"gfx942", "gfx90a"};
  for (size_t a = 0; a < 2; ++a) {
    char path[512];
    size_t size = 0;
    uint8_t* bytes = stage_hsaco(arches[a], path, sizeof(path), &size);
    ASSERT_TRUE(bytes != NULL);
    wt_msg_t m;
    wt_msg_init(&m);
    rocm_blob(&m, path);
    tkrt_call_t* call = NULL;
    EXPECT_OK(decode_with(&m, true, NULL, &call));
    if (call) {
      const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(tkrt_call_get_desc(call)->configs[0].kernel);
      ASSERT_TRUE(k->image_count == 1);
      const tkrt_kernel_image_t* image = &k->images[0];
      EXPECT_EQ_U64(image->kind, TKRT_IMAGE_HSACO);
      EXPECT_EQ_U64(image->origin, TKRT_IMAGE_ORIGIN_HSACO_PATH);
      EXPECT_STREQ(image->backend, "hip");
      EXPECT_STREQ(image->arch, arches[a]);
      EXPECT_STREQ(wt_source_path(tkrt_call_get_desc(call)->configs[0].kernel, 0), path);
      EXPECT_TRUE(wt_bytes_eq(image->data, image->size, bytes, size));
      EXPECT_EQ_U64(tkrt_call_get_desc(call)->configs[0].param_count, 4);
    }
    /* jaxlib deletes the file after reading it; tkrt must not. */
    EXPECT_TRUE(file_exists(path));
    tkrt_call_release(call);
    wt_msg_free(&m);
    free(bytes);
  }

  /* A relative path resolves against base_dir, and is kept as written. */
  wt_msg_t m;
  wt_msg_init(&m);
  rocm_blob(&m, "gfx942.hsaco");
  tkrt_call_t* call = NULL;
  EXPECT_OK(decode_with(&m, true, g_tmp, &call));
  if (call) {
    const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(tkrt_call_get_desc(call)->configs[0].kernel);
    EXPECT_STREQ(wt_source_path(tkrt_call_get_desc(call)->configs[0].kernel, 0), "gfx942.hsaco");
    EXPECT_STREQ(k->images[0].arch, "gfx942");
  }
  tkrt_call_release(call);
  call = NULL;
  EXPECT_STATUS(decode_with(&m, true, "/nonexistent-tkrt-base", &call), TKRT_STATUS_NOT_FOUND,
                "/nonexistent-tkrt-base/gfx942.hsaco");
  wt_msg_free(&m);

  /* A file that is not an HSACO, and a directory. */
  char path[512];
  snprintf(path, sizeof(path), "%s/not-hsaco.bin", g_tmp);
  ASSERT_TRUE(write_file(path, "\x7f" "ELF but not really", 20));
  wt_msg_init(&m);
  rocm_blob(&m, path);
  EXPECT_STATUS(decode_with(&m, true, NULL, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "is not an HSACO code object");
  wt_msg_free(&m);
  unlink(path);
  wt_msg_init(&m);
  rocm_blob(&m, g_tmp);
  EXPECT_STATUS(decode_with(&m, true, NULL, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "is not a regular file");
  wt_msg_free(&m);
  /* A FIFO with no writer: rejected at once, not waited on. */
  snprintf(path, sizeof(path), "%s/fifo", g_tmp);
  ASSERT_TRUE(mkfifo(path, 0600) == 0);
  wt_msg_init(&m);
  rocm_blob(&m, path);
  EXPECT_STATUS(decode_with(&m, true, NULL, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "is not a regular file");
  wt_msg_free(&m);
  unlink(path);
}

static void test_hsaco_bytes_travel_in_the_blob(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  char path[512];
  size_t size = 0;
  uint8_t* bytes = stage_hsaco("gfx942", path, sizeof(path), &size);
  ASSERT_TRUE(bytes != NULL);
  wt_msg_t m;
  wt_msg_init(&m);
  rocm_blob(&m, path);
  tkrt_call_t* from_file = NULL;
  tkrt_call_t* from_blob = NULL;
  tkrt_call_t* after_delete = NULL;
  void* with_bytes = NULL;
  void* path_only = NULL;
  void* again = NULL;
  size_t with_bytes_size = 0, path_only_size = 0, again_size = 0;
  char why[128];
  EXPECT_OK(decode_with(&m, true, NULL, &from_file));
  if (!from_file) goto done;
  EXPECT_OK(wt_encode_raw(from_file, true, &with_bytes, &with_bytes_size));
  EXPECT_OK(wt_encode_raw(from_file, false, &path_only, &path_only_size));
  if (!with_bytes || !path_only) goto done;
  /* Without tkrt's field the encoding is exactly the jaxlib blob; with it, the bytes follow. */
  EXPECT_TRUE(wt_first_diff(path_only, path_only_size, m.data, m.size) == (size_t)-1);
  EXPECT_TRUE(with_bytes_size > path_only_size + size);

  /* The carried bytes are used instead of the file, even with file reading off. */
  wt_msg_t carried = {with_bytes, with_bytes_size, with_bytes_size, false};
  EXPECT_OK(decode_with(&carried, false, NULL, &from_blob));
  if (from_blob) {
    EXPECT_TRUE(wt_same_digest(from_file, from_blob));
    if (!wt_calls_equal(from_file, from_blob, why, sizeof(why))) {
      TKRT_TEST_FAIL_("carried bytes decode differently: %s", why);
    }
    EXPECT_OK(wt_encode_raw(from_blob, true, &again, &again_size));
    EXPECT_TRUE(again && wt_first_diff(again, again_size, with_bytes, with_bytes_size) ==
                             (size_t)-1);
  }

  /* The file goes away (we remove our own copy): the blob with bytes still decodes; the one
   * without is NOT_FOUND, naming the path. */
  ASSERT_TRUE(unlink(path) == 0);
  EXPECT_OK(decode_with(&carried, true, NULL, &after_delete));
  if (after_delete) EXPECT_TRUE(wt_same_digest(after_delete, from_file));
  wt_msg_t lean = {path_only, path_only_size, path_only_size, false};
  tkrt_call_t* none = NULL;
  EXPECT_STATUS(decode_with(&lean, true, NULL, &none), TKRT_STATUS_NOT_FOUND, path);

done:
  tkrt_call_release(from_file);
  tkrt_call_release(from_blob);
  tkrt_call_release(after_delete);
  tkrt_wire_free(with_bytes);
  tkrt_wire_free(path_only);
  tkrt_wire_free(again);
  wt_msg_free(&m);
  free(bytes);
}

/* ---------------------------------------------------------------- stripping field 1000 */

enum { M_ANY, M_AUTOTUNED, M_CONFIG, M_CALL, M_KERNEL, M_LEAF };

/* Copies a message, dropping TritonKernel field `drop`. Only the generic field reader (which skips
 * any field by its wire type) and the schema's nesting are used: what a decoder that does not know
 * the field does. */
static bool strip_field(const uint8_t* data, size_t size, int type, uint32_t drop,
                        wt_msg_t* out) {
  tkrt_wire_reader_t r;
  tkrt_wire_reader_init(&r, data, size, "in the message", NULL);
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    tkrt_status_t status = tkrt_wire_next_field(&r, &f);
    if (status) {
      tkrt_status_free(status);
      return false;
    }
    if (type == M_KERNEL && f.number == drop) continue;
    int child = M_LEAF;
    if (f.wire_type == TKRT_WIRE_LEN) {
      if (type == M_ANY) child = f.number == 1 ? M_CALL : f.number == 2 ? M_AUTOTUNED : M_LEAF;
      if (type == M_AUTOTUNED && f.number == 2) child = M_CONFIG;
      if (type == M_CONFIG && f.number == 1) child = M_CALL;
      if (type == M_CALL && f.number == 1) child = M_KERNEL;
    }
    if (child == M_LEAF) {
      tkrt_wire_put_raw(out, data + f.offset, f.end_offset - f.offset);
      continue;
    }
    wt_msg_t sub;
    wt_msg_init(&sub);
    bool ok = strip_field(f.data, f.size, child, drop, &sub);
    if (ok) wt_sub(out, f.number, &sub);
    wt_msg_free(&sub);
    if (!ok) return false;
  }
  return true;
}

/* A fake host ELF header (x86-64) and cubin header (EM_CUDA): the codec carries bytes, it does not
 * load them. */
static const uint8_t kHostElf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                     3,    0,   62,  0};
static const uint8_t kCubin[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x33, 7, 0, 0, 0, 0, 0, 0, 0,
                                   2,    0,   190, 0};

/* The call with every kernel given extra API images (host ELF, cubin). */
static tkrt_status_t add_images(const tkrt_call_t* call, tkrt_call_t** out) {
  const tkrt_call_desc_t* d = tkrt_call_get_desc(call);
  tkrt_config_desc_t configs[8];
  if (d->config_count > 8) return TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "too many configs");
  tkrt_status_t status = NULL;
  size_t made = 0;
  for (size_t c = 0; c < d->config_count; ++c) {
    configs[c] = d->configs[c];
    const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(d->configs[c].kernel);
    tkrt_kernel_image_t images[4];
    memcpy(images, k->images, k->image_count * sizeof(images[0]));
    tkrt_kernel_image_t host = {NULL, "x86_64", TKRT_IMAGE_HOST, kHostElf, sizeof(kHostElf),
                                "add_kernel_host", 0, TKRT_IMAGE_ORIGIN_API};
    tkrt_kernel_image_t cubin = {"cuda", "sm_90a", TKRT_IMAGE_CUBIN, kCubin, sizeof(kCubin),
                                 NULL, 128, TKRT_IMAGE_ORIGIN_API};
    images[k->image_count] = host;
    images[k->image_count + 1] = cubin;
    tkrt_kernel_desc_t desc = *k;
    desc.images = images;
    desc.image_count = k->image_count + 2;
    status = tkrt_kernel_create(&desc, &configs[c].kernel);
    if (status) break;
    ++made;
  }
  if (!status) {
    tkrt_call_desc_t desc = *d;
    desc.configs = configs;
    status = tkrt_call_create(&desc, out);
  }
  for (size_t c = 0; c < made; ++c) tkrt_kernel_release(configs[c].kernel);
  return status;
}

static void test_strip_tkrt_field_gives_the_jaxlib_call(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  static const char* const names[] = {"add_f32", "autotuned_alias", "tma_param"};
  for (size_t v = 0; v < 3; ++v) {
    size_t raw_size = 0;
    uint8_t* raw = wt_read_vector(names[v], "call.pb", &raw_size);
    tkrt_call_t* original = NULL;
    tkrt_call_t* extended = NULL;
    tkrt_call_t* full = NULL;
    tkrt_call_t* stripped_call = NULL;
    void* blob = NULL;
    void* lean = NULL;
    size_t blob_size = 0, lean_size = 0;
    wt_msg_t stripped;
    wt_msg_init(&stripped);
    char why[128];
    if (!raw) {
      TKRT_TEST_FAIL_("%s missing", names[v]);
      goto next;
    }
    EXPECT_OK(wt_decode(raw, raw_size, &original));
    if (!original) goto next;
    EXPECT_OK(add_images(original, &extended));
    if (!extended) goto next;
    EXPECT_OK(wt_encode_raw(extended, true, &blob, &blob_size));
    EXPECT_OK(wt_encode_raw(extended, false, &lean, &lean_size));
    if (!blob || !lean) goto next;

    /* A decoder that skips field 1000 sees exactly the jaxlib message. */
    EXPECT_TRUE(strip_field(blob, blob_size, M_ANY, TKRT_WIRE_IMAGE_FIELD, &stripped));
    EXPECT_TRUE(wt_first_diff(stripped.data, stripped.size, raw, raw_size) == (size_t)-1);
    EXPECT_TRUE(wt_first_diff(lean, lean_size, raw, raw_size) == (size_t)-1);
    EXPECT_OK(wt_decode(stripped.data, stripped.size, &stripped_call));
    if (stripped_call) {
      EXPECT_TRUE(wt_same_digest(stripped_call, original));
      if (!wt_calls_equal(stripped_call, original, why, sizeof(why))) {
        TKRT_TEST_FAIL_("%s: stripped call differs: %s", names[v], why);
      }
    }

    /* tkrt's decoder sees the extra images, with everything they said. */
    EXPECT_OK(wt_decode(blob, blob_size, &full));
    if (full) {
      EXPECT_TRUE(wt_same_digest(full, extended));
      const tkrt_call_desc_t* d = tkrt_call_get_desc(full);
      for (size_t c = 0; c < d->config_count; ++c) {
        const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(d->configs[c].kernel);
        ASSERT_TRUE(k->image_count == 3);
        EXPECT_EQ_U64(k->images[0].origin, TKRT_IMAGE_ORIGIN_PTX_FIELD);
        EXPECT_EQ_U64(k->images[1].origin, TKRT_IMAGE_ORIGIN_TKRT_FIELD);
        EXPECT_EQ_U64(k->images[1].kind, TKRT_IMAGE_HOST);
        EXPECT_TRUE(k->images[1].backend == NULL);
        EXPECT_STREQ(k->images[1].arch, "x86_64");
        EXPECT_STREQ(k->images[1].entry_name, "add_kernel_host");
        EXPECT_TRUE(wt_bytes_eq(k->images[1].data, k->images[1].size, kHostElf, sizeof(kHostElf)));
        EXPECT_EQ_U64(k->images[2].kind, TKRT_IMAGE_CUBIN);
        EXPECT_STREQ(k->images[2].backend, "cuda");
        EXPECT_EQ_U64(k->images[2].shared_mem_bytes, 128);
      }
      void* again = NULL;
      size_t again_size = 0;
      EXPECT_OK(wt_encode_raw(full, true, &again, &again_size));
      EXPECT_TRUE(again && wt_first_diff(again, again_size, blob, blob_size) == (size_t)-1);
      tkrt_wire_free(again);
    }
    fprintf(stderr, "  %-16s jaxlib %zu bytes, with tkrt images %zu bytes, stripped == call.pb\n",
            names[v], raw_size, blob_size);
  next:
    tkrt_call_release(original);
    tkrt_call_release(extended);
    tkrt_call_release(full);
    tkrt_call_release(stripped_call);
    tkrt_wire_free(blob);
    tkrt_wire_free(lean);
    wt_msg_free(&stripped);
    free(raw);
  }
}

/* ---------------------------------------------------------------- calls built in C */

static tkrt_status_t build_c_call(bool with_ptx, tkrt_call_t** out) {
  /* PTX first: a decoded kernel lists its images in field order (ptx, module_image, tkrt's). The
   * PTX's arch is what compute_capability says, as a decoder derives it. */
  tkrt_kernel_image_t images[2] = {
      {NULL, "sm_80", TKRT_IMAGE_PTX, ".version 8.7\n.target sm_80\n", 27, NULL, 0,
       TKRT_IMAGE_ORIGIN_API},
      {NULL, "x86_64", TKRT_IMAGE_HOST, kHostElf, sizeof(kHostElf), NULL, 0,
       TKRT_IMAGE_ORIGIN_API},
  };
  tkrt_kernel_desc_t kd;
  tkrt_kernel_desc_init(&kd);
  kd.name = "c_kernel";
  kd.num_warps = 8;
  kd.num_ctas = 0;
  kd.cluster_dims[0] = 2;
  kd.cluster_dims[1] = 1;
  kd.cluster_dims[2] = 1;
  kd.shared_mem_bytes = 49152;
  kd.compute_capability = 80;
  kd.global_scratch_size = 4096;
  kd.global_scratch_align = 256;
  kd.launch_flags = 1;
  /* Profile scratch (tkrt's fields 1002/1003); without it, Triton's loader's "none" (size 0,
   * align 1), which must digest as a decoded kernel's (align 0) does. */
  kd.profile_scratch_size = with_ptx ? 512 : 0;
  kd.profile_scratch_align = with_ptx ? 128 : 1;
  /* Without profile scratch: a Triton 3.3/3.4 kernel, one hidden pointer (tkrt's field 1004). */
  kd.hidden_pointers = with_ptx ? TKRT_HIDDEN_POINTERS_GLOBAL_PROFILE : TKRT_HIDDEN_POINTERS_GLOBAL;
  kd.ttir = "module {}";
  kd.images = with_ptx ? images : images + 1;
  kd.image_count = with_ptx ? 2 : 1;
  tkrt_kernel_t* kernel = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_kernel_create(&kd, &kernel));
  if (wt_side(kernel) != NULL) TKRT_TEST_FAIL_("a kernel built in C has a side record");

  tkrt_param_t params[10];
  memset(params, 0, sizeof(params));
  params[0].kind = TKRT_PARAM_ARRAY;
  params[0].value.array.bytes_to_zero = 64;
  params[0].value.array.ptr_divisibility = 16;
  params[1].kind = TKRT_PARAM_ARRAY; /* both 0: an empty submessage */
  params[2].kind = TKRT_PARAM_BOOL;
  params[2].value.b = true;
  params[3].kind = TKRT_PARAM_I32;
  params[3].value.i32 = INT32_MIN;
  params[4].kind = TKRT_PARAM_U32;
  params[4].value.u32 = 0; /* a oneof member: present even when 0 */
  params[5].kind = TKRT_PARAM_I64;
  params[5].value.i64 = INT64_MIN;
  params[6].kind = TKRT_PARAM_U64;
  params[6].value.u64 = UINT64_MAX;
  params[7].kind = TKRT_PARAM_F32;
  params[7].value.f32 = -0.0f;
  params[8].kind = TKRT_PARAM_F64;
  params[8].value.f64 = 3.5e300;
  params[9].kind = TKRT_PARAM_TMA;
  params[9].value.tma.elem_type = 6;
  params[9].value.tma.swizzle = 2;
  params[9].value.tma.oob_fill = 1;
  params[9].value.tma.rank = 3;
  for (int i = 0; i < 3; ++i) {
    params[9].value.tma.shape[i] = (uint64_t)1 << (40 + i);
    params[9].value.tma.strides[i] = (uint64_t)1 << (10 * i);
    params[9].value.tma.block_shape[i] = 256u >> i;
  }
  tkrt_config_desc_t configs[2] = {
      {kernel, {7, 8, 9}, params, 10, "first config"},
      {kernel, {1, 0, 0}, params, 3, NULL},
  };
  tkrt_alias_t aliases[2] = {{0, 1, 4096}, {0, 0, 0}};
  tkrt_call_desc_t cd;
  tkrt_call_desc_init(&cd);
  cd.name = "c_call";
  cd.metadata = "meta\0data";
  cd.metadata_size = 9;
  cd.autotuned = true;
  cd.autotune_name = "tuning";
  cd.configs = configs;
  cd.config_count = 2;
  cd.aliases = aliases;
  cd.alias_count = 2;
  tkrt_status_t status = tkrt_call_create(&cd, out);
  tkrt_kernel_release(kernel);
  return status;
}

static void test_c_built_call_round_trip(void) {
  for (int with_ptx = 0; with_ptx < 2; ++with_ptx) {
    tkrt_call_t* call = NULL;
    tkrt_call_t* back = NULL;
    void* blob = NULL;
    void* again = NULL;
    size_t blob_size = 0, again_size = 0;
    char why[128];
    ASSERT_OK(build_c_call(with_ptx, &call));
    tkrt_wire_encode_options_t options;
    tkrt_wire_encode_options_init(&options); /* compressed, with tkrt images */
    EXPECT_OK(tkrt_wire_encode(call, &options, &blob, &blob_size));
    if (blob) EXPECT_TRUE(blob_size >= 2 && ((uint8_t*)blob)[0] == 0x78);
    if (blob) EXPECT_OK(wt_decode(blob, blob_size, &back));
    if (back) {
      EXPECT_TRUE(wt_same_digest(call, back));

      const tkrt_call_desc_t* d = tkrt_call_get_desc(back);
      EXPECT_STREQ(d->name, "c_call");
      EXPECT_TRUE(d->metadata_size == 9 && memcmp(d->metadata, "meta\0data", 9) == 0);
      EXPECT_STREQ(d->autotune_name, "tuning");
      EXPECT_STREQ(d->configs[0].description, "first config");
      EXPECT_TRUE(d->configs[1].description == NULL);
      EXPECT_EQ_U64(d->alias_count, 2);
      const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(d->configs[0].kernel);
      EXPECT_EQ_U64(k->launch_flags, 1);
      EXPECT_EQ_U64(k->profile_scratch_size, with_ptx ? 512 : 0);
      EXPECT_EQ_U64(k->profile_scratch_align, with_ptx ? 128 : 0);
      EXPECT_EQ_U64(k->hidden_pointers, with_ptx ? 0 : 1);
      EXPECT_EQ_U64(k->cluster_dims[0], 2);
      EXPECT_STREQ(k->ttir, "module {}");
      if (with_ptx) {
        /* The C user's PTX went to TritonKernel.ptx, where jaxlib finds it. */
        ASSERT_TRUE(k->image_count == 2);
        EXPECT_EQ_U64(k->images[0].origin, TKRT_IMAGE_ORIGIN_PTX_FIELD);
        EXPECT_EQ_U64(k->images[1].origin, TKRT_IMAGE_ORIGIN_TKRT_FIELD);
        EXPECT_EQ_U64(k->images[1].kind, TKRT_IMAGE_HOST);
      } else {
        ASSERT_TRUE(k->image_count == 1);
        EXPECT_EQ_U64(k->images[0].origin, TKRT_IMAGE_ORIGIN_TKRT_FIELD);
      }
      const tkrt_param_t* p = d->configs[0].params;
      EXPECT_TRUE(p[3].value.i32 == INT32_MIN);
      EXPECT_TRUE(p[5].value.i64 == INT64_MIN);
      EXPECT_TRUE(p[6].value.u64 == UINT64_MAX);
      uint32_t bits;
      memcpy(&bits, &p[7].value.f32, 4);
      EXPECT_EQ_U64(bits, 0x80000000u);
      EXPECT_EQ_U64(p[9].value.tma.shape[2], (uint64_t)1 << 42);
      /* Stable from here on: decoded calls re-encode to the same bytes. */
      void* first = NULL;
      size_t first_size = 0;
      tkrt_call_t* third = NULL;
      EXPECT_OK(wt_encode_raw(back, true, &first, &first_size));
      if (first) EXPECT_OK(wt_decode(first, first_size, &third));
      if (third) {
        EXPECT_OK(wt_encode_raw(third, true, &again, &again_size));
        EXPECT_TRUE(again && wt_first_diff(again, again_size, first, first_size) == (size_t)-1);
        if (!wt_calls_equal(third, back, why, sizeof(why))) TKRT_TEST_FAIL_("differ: %s", why);
      }
      tkrt_call_release(third);
      tkrt_wire_free(first);
    }
    tkrt_call_release(call);
    tkrt_call_release(back);
    tkrt_wire_free(blob);
    tkrt_wire_free(again);
  }
}

static void test_encode_options_and_errors(void) {
  tkrt_call_t* call = NULL;
  ASSERT_OK(build_c_call(false, &call));
  void* blob = NULL;
  size_t size = 0;
  /* Only a host image and no tkrt field: nothing jaxlib could load. */
  tkrt_wire_encode_options_t options;
  tkrt_wire_encode_options_init(&options);
  options.include_tkrt_images = false;
  EXPECT_STATUS(tkrt_wire_encode(call, &options, &blob, &size), TKRT_STATUS_INVALID_ARGUMENT,
                "kernel 'c_kernel': none of its 1 images fits jaxlib's fields");
  EXPECT_TRUE(blob == NULL);
  tkrt_wire_encode_options_init(&options);
  options.zlib_level = 12;
  EXPECT_STATUS(tkrt_wire_encode(call, &options, &blob, &size), TKRT_STATUS_INVALID_ARGUMENT,
                "zlib_level 12");
  options.struct_size = 1;
  EXPECT_STATUS(tkrt_wire_encode(call, &options, &blob, &size), TKRT_STATUS_INVALID_ARGUMENT,
                "struct_size");
  EXPECT_STATUS(tkrt_wire_encode(NULL, NULL, &blob, &size), TKRT_STATUS_INVALID_ARGUMENT,
                "NULL argument");
  EXPECT_STATUS(tkrt_wire_encode(call, NULL, NULL, &size), TKRT_STATUS_INVALID_ARGUMENT,
                "NULL argument");
  /* Every zlib level decodes back. */
  for (int level = -1; level <= 9; ++level) {
    tkrt_wire_encode_options_init(&options);
    options.zlib_level = level;
    blob = NULL;
    EXPECT_OK(tkrt_wire_encode(call, &options, &blob, &size));
    tkrt_call_t* back = NULL;
    if (blob) EXPECT_OK(wt_decode(blob, size, &back));
    if (back) EXPECT_TRUE(wt_same_digest(back, call));
    tkrt_call_release(back);
    tkrt_wire_free(blob);
  }
  tkrt_wire_free(NULL);
  tkrt_call_release(call);
}

int main(int argc, char** argv) {
  g_vectors_dir = argc > 1 ? argv[1] : NULL;
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(test_hsaco_path_read_once_never_deleted),
      TKRT_TEST_CASE(test_hsaco_bytes_travel_in_the_blob),
      TKRT_TEST_CASE(test_strip_tkrt_field_gives_the_jaxlib_call),
      TKRT_TEST_CASE(test_c_built_call_round_trip),
      TKRT_TEST_CASE(test_encode_options_and_errors),
  };
  int rc = tkrt_test_main(argc > 1 ? argc - 1 : argc, argc > 1 ? argv + 1 : argv, cases,
                          sizeof(cases) / sizeof(cases[0]));
  if (g_tmp[0]) {
    /* Our own files only. */
    char path[600];
    static const char* const files[] = {"gfx942.hsaco", "gfx90a.hsaco", "not-hsaco.bin", "fifo"};
    for (size_t i = 0; i < 4; ++i) {
      snprintf(path, sizeof(path), "%s/%s", g_tmp, files[i]);
      unlink(path);
    }
    rmdir(g_tmp);
  }
  return rc;
}
