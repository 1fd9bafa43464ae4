/* SPDX-License-Identifier: Apache-2.0 */
/* The decoder on malformed and unusual input: every specific error message (with its offset),
 * libprotobuf's decoding rules (merge, last oneof member wins, unknown fields, packed/unpacked),
 * and sweeps of truncations and bit flips over the vectors that must never crash or leak.
 * Usage: wire_decode_errors_test VECTORS_DIR [case...]. */
#include <stddef.h>
#include <zlib.h>

#include "test/wire/wire_test_util.h"

/* Decodes raw bytes (format RAW, files off) and expects an error with code and text. */
#define EXPECT_DECODE_ERROR(bytes, size, code, needle)                                \
  do {                                                                                \
    tkrt_call_t* call_ = NULL;                                                        \
    tkrt_wire_decode_options_t o_;                                                    \
    tkrt_wire_decode_options_init(&o_);                                               \
    o_.read_hsaco_files = false;                                                      \
    EXPECT_STATUS(tkrt_wire_decode((bytes), (size), &o_, &call_), (code), (needle));  \
    EXPECT_TRUE(call_ == NULL);                                                       \
  } while (0)

static const uint8_t* u8(const char* s) { return (const uint8_t*)s; }

/* Decodes a message built in m; on failure records it. */
static tkrt_call_t* decode_msg(const wt_msg_t* m) {
  tkrt_call_t* call = NULL;
  tkrt_status_t status = wt_decode(m->data, m->size, &call);
  if (status) {
    tkrt_test_print_status_(__FILE__, __LINE__, "decode_msg", status);
    tkrt_status_free(status);
    ++tkrt_test_failed_;
    return NULL;
  }
  return call;
}

static const tkrt_config_desc_t* config0(const tkrt_call_t* call) {
  return &tkrt_call_get_desc(call)->configs[0];
}

static const tkrt_kernel_desc_t* kernel0(const tkrt_call_t* call) {
  return tkrt_kernel_get_desc(config0(call)->kernel);
}

/* ---------------------------------------------------------------- blob-level errors */

static void test_empty_and_zlib_errors(void) {
  EXPECT_DECODE_ERROR(NULL, 0, TKRT_STATUS_INVALID_ARGUMENT, "empty blob");
  EXPECT_DECODE_ERROR(u8("x"), 0, TKRT_STATUS_INVALID_ARGUMENT, "empty blob");
  /* A valid header followed by garbage. */
  EXPECT_DECODE_ERROR(u8("\x78\x9c\xff\xff\xff\xff"), 6, TKRT_STATUS_INVALID_ARGUMENT,
                      "zlib inflate failed: ");
  /* A whole stream with a corrupt Adler-32 check. */
  uint8_t z[64];
  uLongf z_size = sizeof(z);
  ASSERT_TRUE(compress2(z, &z_size, u8("\x22\x01x"), 3, -1) == Z_OK);
  z[z_size - 1] ^= 1;
  EXPECT_DECODE_ERROR(z, z_size, TKRT_STATUS_INVALID_ARGUMENT,
                      "zlib inflate failed: incorrect data check");
  z[z_size - 1] ^= 1;
  EXPECT_DECODE_ERROR(z, z_size - 3, TKRT_STATUS_INVALID_ARGUMENT,
                      "zlib inflate failed: truncated stream");
  uint8_t trailing[80];
  memcpy(trailing, z, z_size);
  memcpy(trailing + z_size, "junk", 4);
  EXPECT_DECODE_ERROR(trailing, z_size + 4, TKRT_STATUS_INVALID_ARGUMENT,
                      "zlib inflate failed: 4 trailing bytes");
  /* The compressed message has only the name: neither oneof member. */
  EXPECT_DECODE_ERROR(z, z_size, TKRT_STATUS_INVALID_ARGUMENT, "unknown kernel call type");
  /* An empty message compresses to a valid stream that decodes to nothing. */
  z_size = sizeof(z);
  ASSERT_TRUE(compress2(z, &z_size, u8(""), 0, -1) == Z_OK);
  EXPECT_DECODE_ERROR(z, z_size, TKRT_STATUS_INVALID_ARGUMENT, "unknown kernel call type");
}

static void test_size_limit(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  size_t raw_size = 0, z_size = 0;
  uint8_t* raw = wt_read_vector("add_f32", "call.pb", &raw_size);
  uint8_t* z = wt_read_vector("add_f32", "call.pb.z", &z_size);
  ASSERT_TRUE(raw && z);
  tkrt_wire_decode_options_t options;
  tkrt_wire_decode_options_init(&options);
  tkrt_call_t* call = NULL;
  options.max_message_size = raw_size - 1;
  EXPECT_STATUS(tkrt_wire_decode(z, z_size, &options, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "exceeds the limit of 11315 bytes");
  EXPECT_STATUS(tkrt_wire_decode(raw, raw_size, &options, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "exceeds the limit of 11315 bytes");
  options.max_message_size = raw_size; /* exactly the limit is fine */
  EXPECT_OK(tkrt_wire_decode(z, z_size, &options, &call));
  tkrt_call_release(call);
  call = NULL;
  /* A zlib bomb: 64 MiB of zeros compress to ~64 KiB; the default-limited decoder stops at 1 MiB
   * here without allocating the rest. */
  size_t bomb_size = (size_t)64 << 20;
  uint8_t* zeros = calloc(1, bomb_size);
  uLongf packed_size = compressBound(bomb_size);
  uint8_t* packed = malloc(packed_size);
  ASSERT_TRUE(zeros && packed);
  ASSERT_TRUE(compress2(packed, &packed_size, zeros, bomb_size, 9) == Z_OK);
  options.max_message_size = (size_t)1 << 20;
  EXPECT_STATUS(tkrt_wire_decode(packed, packed_size, &options, &call),
                TKRT_STATUS_INVALID_ARGUMENT, "exceeds the limit of 1048576 bytes");
  free(zeros);
  free(packed);
  free(raw);
  free(z);
}

static void test_options_struct_size(void) {
  /* An older caller's shorter struct: fields it does not have keep their defaults. */
  wt_msg_t m;
  wt_msg_init(&m);
  wt_min_call(&m, NULL);
  tkrt_wire_decode_options_t options;
  memset(&options, 0xff, sizeof(options));
  options.struct_size = offsetof(tkrt_wire_decode_options_t, format) + sizeof(options.format);
  options.format = TKRT_WIRE_FORMAT_RAW;
  tkrt_call_t* call = NULL;
  EXPECT_OK(tkrt_wire_decode(m.data, m.size, &options, &call));
  tkrt_call_release(call);
  call = NULL;
  options.struct_size = 0;
  EXPECT_STATUS(tkrt_wire_decode(m.data, m.size, &options, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "struct_size");
  tkrt_wire_decode_options_init(&options);
  options.format = (tkrt_wire_format_t)7;
  EXPECT_STATUS(tkrt_wire_decode(m.data, m.size, &options, &call), TKRT_STATUS_INVALID_ARGUMENT,
                "unknown format 7");
  EXPECT_STATUS(tkrt_wire_decode(m.data, m.size, NULL, NULL), TKRT_STATUS_INVALID_ARGUMENT,
                "NULL argument");
  wt_msg_free(&m);
}

/* ---------------------------------------------------------------- wire-level errors */

static void test_wire_errors_name_field_and_offset(void) {
  EXPECT_DECODE_ERROR(u8("\x0a\x03\x10\xff\xff"), 5, TKRT_STATUS_INVALID_ARGUMENT,
                      "field 2 (TritonKernelCall.grid_0): truncated varint at offset 3 in the "
                      "message");
  EXPECT_DECODE_ERROR(u8("\x0a\x05\x2a\x84\x07\x00\x00"), 7, TKRT_STATUS_INVALID_ARGUMENT,
                      "field 5 (TritonKernelCall.parameters): length 900 exceeds the 2 bytes "
                      "left at offset 5 in the message");
  EXPECT_DECODE_ERROR(u8("\x0a\x02\x0b\x0c"), 4, TKRT_STATUS_INVALID_ARGUMENT,
                      "field 1 (TritonKernelCall.kernel): wire type 3 (group) at offset 2 in the "
                      "message is not supported");
  EXPECT_DECODE_ERROR(u8("\x9b\x06"), 2, TKRT_STATUS_INVALID_ARGUMENT,
                      "field 99 (unknown in TritonAnyKernelCall): wire type 3 (group) at offset 0");
  EXPECT_DECODE_ERROR(u8("\x0c"), 1, TKRT_STATUS_INVALID_ARGUMENT,
                      "wire type 4 (end group) at offset 0 in the message without a group");
  EXPECT_DECODE_ERROR(u8("\x0e"), 1, TKRT_STATUS_INVALID_ARGUMENT,
                      "invalid wire type 6 at offset 0");
  EXPECT_DECODE_ERROR(u8("\x22\x01x\x0f"), 4, TKRT_STATUS_INVALID_ARGUMENT,
                      "invalid wire type 7 at offset 3");
  EXPECT_DECODE_ERROR(u8("\x02\x00"), 2, TKRT_STATUS_INVALID_ARGUMENT,
                      "invalid field number 0 at offset 0");
  EXPECT_DECODE_ERROR(u8("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"), 12,
                      TKRT_STATUS_INVALID_ARGUMENT,
                      "field 1 (TritonAnyKernelCall.kernel_call): varint longer than 10 bytes at "
                      "offset 1");
  EXPECT_DECODE_ERROR(u8("\xff"), 1, TKRT_STATUS_INVALID_ARGUMENT,
                      "truncated varint (field tag) at offset 0 in the message");
  EXPECT_DECODE_ERROR(u8("\x80\x80\x80\x80\x80\x01"), 6, TKRT_STATUS_INVALID_ARGUMENT,
                      "field tag 34359738368 at offset 0 in the message is out of range");
  EXPECT_DECODE_ERROR(u8("\x22\x05x"), 3, TKRT_STATUS_INVALID_ARGUMENT,
                      "field 4 (TritonAnyKernelCall.name): length 5 exceeds the 1 bytes left at "
                      "offset 2");
  EXPECT_DECODE_ERROR(u8("\x22"), 1, TKRT_STATUS_INVALID_ARGUMENT,
                      "field 4 (TritonAnyKernelCall.name): truncated varint (length) at offset 1");

  /* fixed32 and fixed64 with too few bytes, inside a Parameter. */
  wt_msg_t m, extra;
  wt_msg_init(&m);
  wt_msg_init(&extra);
  wt_bytes(&extra, 5, "\x3d\x00\x00", 3); /* Parameter{f32: 2 of 4 bytes} */
  wt_min_call(&m, &extra);
  EXPECT_DECODE_ERROR(m.data, m.size, TKRT_STATUS_INVALID_ARGUMENT,
                      "field 7 (Parameter.f32): fixed32 value needs 4 bytes but 2 are left");
  wt_msg_free(&m);
  wt_msg_free(&extra);
  wt_msg_init(&m);
  wt_msg_init(&extra);
  wt_bytes(&extra, 5, "\x41\x00\x00\x00\x00\x00\x00\x00", 8);
  wt_min_call(&m, &extra);
  EXPECT_DECODE_ERROR(m.data, m.size, TKRT_STATUS_INVALID_ARGUMENT,
                      "field 8 (Parameter.f64): fixed64 value needs 8 bytes but 7 are left");
  wt_msg_free(&m);
  wt_msg_free(&extra);

  /* Offsets in a compressed blob are those of the decompressed message. */
  uint8_t z[64];
  uLongf z_size = sizeof(z);
  ASSERT_TRUE(compress2(z, &z_size, u8("\x0a\x03\x10\xff\xff"), 5, -1) == Z_OK);
  EXPECT_DECODE_ERROR(z, z_size, TKRT_STATUS_INVALID_ARGUMENT,
                      "truncated varint at offset 3 in the decompressed message");
}

static void test_strings(void) {
  wt_msg_t m, k, call;
  wt_msg_init(&m);
  wt_msg_init(&k);
  wt_msg_init(&call);
  wt_bytes(&k, 1, "ab\xc3\x28", 4); /* invalid UTF-8 */
  wt_sub(&call, 1, &k);
  wt_sub(&m, 1, &call);
  EXPECT_DECODE_ERROR(m.data, m.size, TKRT_STATUS_INVALID_ARGUMENT,
                      "field 1 (TritonKernel.kernel_name): invalid UTF-8 in a string at offset 8");
  wt_msg_free(&m);
  wt_msg_free(&k);
  wt_msg_free(&call);

  wt_msg_init(&m);
  wt_bytes(&m, 4, "a\0b", 3);
  EXPECT_DECODE_ERROR(m.data, m.size, TKRT_STATUS_INVALID_ARGUMENT,
                      "field 4 (TritonAnyKernelCall.name): NUL byte in a string at offset 3");
  wt_msg_free(&m);
  /* Overlong, surrogate and out-of-range encodings are invalid too. */
  static const char* const bad[] = {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    wt_msg_init(&m);
    wt_str(&m, 4, bad[i]);
    EXPECT_DECODE_ERROR(m.data, m.size, TKRT_STATUS_INVALID_ARGUMENT, "invalid UTF-8");
    wt_msg_free(&m);
  }
  /* Valid multi-byte UTF-8 passes. */
  wt_msg_init(&m);
  wt_min_call(&m, NULL);
  wt_str(&m, 4, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  tkrt_call_t* c = decode_msg(&m);
  if (c) EXPECT_STREQ(tkrt_call_get_desc(c)->name, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  tkrt_call_release(c);
  wt_msg_free(&m);
}

/* ---------------------------------------------------------------- semantic errors */

static void test_semantic_errors(void) {
  wt_msg_t m, extra, k, call;

  EXPECT_DECODE_ERROR(u8("\x22\x01x"), 3, TKRT_STATUS_INVALID_ARGUMENT,
                      "unknown kernel call type");
  EXPECT_DECODE_ERROR(u8("\xa2\x06\x01x"), 4, TKRT_STATUS_INVALID_ARGUMENT,
                      "unknown kernel call type");

  /* Parameter 1 has no member set. */
  wt_msg_init(&m);
  wt_msg_init(&extra);
  wt_bytes(&extra, 5, "\x0a\x00", 2);
  wt_bytes(&extra, 5, "", 0);
  wt_min_call(&m, &extra);
  EXPECT_DECODE_ERROR(m.data, m.size, TKRT_STATUS_INVALID_ARGUMENT,
                      "unknown scalar parameter type: parameter 1 ");
  wt_msg_free(&m);
  wt_msg_free(&extra);

  /* ...but not when that kernel_call is replaced by a later oneof member (jaxlib never sees it). */
  wt_msg_init(&m);
  wt_msg_init(&extra);
  wt_bytes(&extra, 5, "", 0);
  wt_min_call(&m, &extra);
  wt_msg_t autotuned, config, good;
  wt_msg_init(&autotuned);
  wt_msg_init(&config);
  wt_msg_init(&good);
  wt_min_call(&good, NULL); /* Any{1: call}: reuse its payload as the config's kernel_call */
  tkrt_wire_put_raw(&config, good.data, good.size);
  wt_sub(&autotuned, 2, &config);
  wt_sub(&m, 2, &autotuned);
  tkrt_call_t* c = decode_msg(&m);
  if (c) EXPECT_TRUE(tkrt_call_get_desc(c)->autotuned);
  tkrt_call_release(c);
  wt_msg_free(&m);
  wt_msg_free(&extra);
  wt_msg_free(&autotuned);
  wt_msg_free(&config);
  wt_msg_free(&good);

  /* A TritonKernelCall with no kernel. */
  EXPECT_DECODE_ERROR(u8("\x0a\x02\x10\x01"), 4, TKRT_STATUS_INVALID_ARGUMENT,
                      "TritonKernelCall at offset 2 in the message has no kernel (field 1)");
  /* A kernel with no image. */
  wt_msg_init(&m);
  wt_msg_init(&k);
  wt_msg_init(&call);
  wt_str(&k, 1, "k");
  wt_varint(&k, 2, 4);
  wt_sub(&call, 1, &k);
  wt_sub(&m, 1, &call);
  EXPECT_DECODE_ERROR(m.data, m.size, TKRT_STATUS_INVALID_ARGUMENT,
                      "TritonKernel at offset 4 in the message has no image");
  wt_msg_free(&m);
  wt_msg_free(&call);
  /* module_image without object_file. */
  wt_msg_init(&m);
  wt_msg_init(&call);
  wt_str(&k, 11, "\x12\x01x");
  wt_sub(&call, 1, &k);
  wt_sub(&m, 1, &call);
  EXPECT_DECODE_ERROR(m.data, m.size, TKRT_STATUS_INVALID_ARGUMENT,
                      "field 11 (TritonKernel.module_image) at offset 11 in the message has no "
                      "object_file");
  wt_msg_free(&m);
  wt_msg_free(&k);
  wt_msg_free(&call);
  /* Kernel without a name, and with num_warps 0: the constructor's check, located. */
  wt_msg_init(&m);
  wt_msg_init(&k);
  wt_msg_init(&call);
  wt_varint(&k, 2, 4);
  wt_str(&k, 4, ".version 8.7\n");
  wt_sub(&call, 1, &k);
  wt_sub(&m, 1, &call);
  EXPECT_DECODE_ERROR(m.data, m.size, TKRT_STATUS_INVALID_ARGUMENT,
                      "TritonKernel at offset 4 in the message: kernel has no name");
  wt_msg_free(&m);
  wt_msg_free(&k);
  wt_msg_free(&call);

  /* Autotuned: no configs; a config with no kernel_call. */
  EXPECT_DECODE_ERROR(u8("\x12\x00"), 2, TKRT_STATUS_INVALID_ARGUMENT,
                      "TritonAutotunedKernelCall has no configs");
  EXPECT_DECODE_ERROR(u8("\x12\x04\x12\x02\x12\x00"), 6, TKRT_STATUS_INVALID_ARGUMENT,
                      "config 0 (TritonAutotunedKernelCall.configs at offset 4 in the message) has "
                      "no kernel_call");

  /* ptr_divisibility that is not a power of two (the constructor's rule), located. */
  wt_msg_init(&m);
  wt_msg_init(&extra);
  wt_bytes(&extra, 5, "\x0a\x02\x10\x03", 4);
  wt_min_call(&m, &extra);
  EXPECT_DECODE_ERROR(m.data, m.size, TKRT_STATUS_INVALID_ARGUMENT, "power of two");
  wt_msg_free(&m);
  wt_msg_free(&extra);
}

static void test_hsaco_path_errors(void) {
  wt_msg_t m, k, call;
  wt_msg_init(&m);
  wt_msg_init(&k);
  wt_msg_init(&call);
  wt_str(&k, 1, "k");
  wt_varint(&k, 2, 4);
  wt_str(&k, 4, "/nonexistent-tkrt-dir/kernel.hsaco");
  wt_sub(&call, 1, &k);
  wt_sub(&m, 1, &call);
  tkrt_call_t* c = NULL;
  EXPECT_STATUS(tkrt_wire_decode(m.data, m.size, NULL, &c), TKRT_STATUS_NOT_FOUND,
                "/nonexistent-tkrt-dir/kernel.hsaco");
  EXPECT_DECODE_ERROR(m.data, m.size, TKRT_STATUS_FAILED_PRECONDITION,
                      "names the HSACO file '/nonexistent-tkrt-dir/kernel.hsaco', and reading "
                      "files is off");
  wt_msg_free(&m);
  wt_msg_free(&k);
  wt_msg_free(&call);
  /* A one-line value with a NUL byte is neither PTX nor a path. */
  wt_msg_init(&m);
  wt_msg_init(&k);
  wt_msg_init(&call);
  wt_str(&k, 1, "k");
  wt_varint(&k, 2, 4);
  wt_bytes(&k, 4, "a\0b", 3);
  wt_sub(&call, 1, &k);
  wt_sub(&m, 1, &call);
  EXPECT_DECODE_ERROR(m.data, m.size, TKRT_STATUS_INVALID_ARGUMENT,
                      "is neither PTX text nor an HSACO file path");
  wt_msg_free(&m);
  wt_msg_free(&k);
  wt_msg_free(&call);
}

/* ---------------------------------------------------------------- TMA */

static void tma_call(wt_msg_t* m, const wt_msg_t* desc) {
  wt_msg_t outer, param, extra;
  wt_msg_init(&outer);
  wt_msg_init(&param);
  wt_msg_init(&extra);
  wt_sub(&outer, 1, desc);
  wt_sub(&param, 9, &outer);
  wt_sub(&extra, 5, &param);
  wt_min_call(m, &extra);
  wt_msg_free(&outer);
  wt_msg_free(&param);
  wt_msg_free(&extra);
}

static void test_tma_packed_unpacked_and_rank(void) {
  /* Packed and unpacked encodings of the same descriptor decode alike. */
  wt_msg_t packed_desc, unpacked_desc, m1, m2;
  wt_msg_init(&packed_desc);
  wt_msg_init(&unpacked_desc);
  wt_msg_init(&m1);
  wt_msg_init(&m2);
  wt_varint(&packed_desc, 1, 7);
  wt_varint(&packed_desc, 2, 3);
  wt_bytes(&packed_desc, 3, "\x40\x80\x01", 3);
  wt_bytes(&packed_desc, 4, "\x80\x01\x01", 3);
  wt_bytes(&packed_desc, 5, "\x20\x40", 2);
  wt_varint(&packed_desc, 6, 1);
  wt_varint(&unpacked_desc, 6, 1);
  wt_varint(&unpacked_desc, 3, 64);
  wt_varint(&unpacked_desc, 4, 128);
  wt_varint(&unpacked_desc, 5, 32);
  wt_varint(&unpacked_desc, 1, 7);
  wt_varint(&unpacked_desc, 3, 128);
  wt_varint(&unpacked_desc, 4, 1);
  wt_bytes(&unpacked_desc, 5, "\x40", 1); /* mixed: packed after unpacked appends */
  wt_varint(&unpacked_desc, 2, 3);
  tma_call(&m1, &packed_desc);
  tma_call(&m2, &unpacked_desc);
  tkrt_call_t* a = decode_msg(&m1);
  tkrt_call_t* b = decode_msg(&m2);
  if (a && b) {
    const tkrt_tma_desc_t* t = &config0(a)->params[0].value.tma;
    EXPECT_EQ_U64(config0(a)->params[0].kind, TKRT_PARAM_TMA);
    EXPECT_EQ_U64(t->rank, 2);
    EXPECT_EQ_U64(t->shape[1], 128);
    EXPECT_EQ_U64(t->strides[0], 128);
    EXPECT_EQ_U64(t->block_shape[1], 64);
    EXPECT_EQ_U64(t->oob_fill, 1);
    EXPECT_TRUE(wt_same_digest(a, b));
    /* Both re-encode packed, as jaxlib writes. */
    void* ea = NULL;
    void* eb = NULL;
    size_t na = 0, nb = 0;
    EXPECT_OK(wt_encode_raw(a, true, &ea, &na));
    EXPECT_OK(wt_encode_raw(b, true, &eb, &nb));
    EXPECT_TRUE(ea && eb && wt_first_diff(ea, na, eb, nb) == (size_t)-1);
    EXPECT_TRUE(ea && wt_first_diff(ea, na, m1.data, m1.size) == (size_t)-1);
    tkrt_wire_free(ea);
    tkrt_wire_free(eb);
  }
  tkrt_call_release(a);
  tkrt_call_release(b);
  wt_msg_free(&m1);
  wt_msg_free(&m2);
  wt_msg_free(&packed_desc);
  wt_msg_free(&unpacked_desc);

  /* Rank 6, packed and unpacked. */
  wt_msg_t desc, m;
  wt_msg_init(&desc);
  wt_msg_init(&m);
  wt_bytes(&desc, 3, "\x01\x02\x03\x04\x05\x06", 6);
  tma_call(&m, &desc);
  EXPECT_DECODE_ERROR(m.data, m.size, TKRT_STATUS_INVALID_ARGUMENT,
                      "field 3 (TmaDescriptor.shape): more than 5 entries (rank > 5)");
  wt_msg_free(&desc);
  wt_msg_free(&m);
  wt_msg_init(&desc);
  wt_msg_init(&m);
  for (int i = 0; i < 6; ++i) wt_varint(&desc, 5, 8);
  tma_call(&m, &desc);
  EXPECT_DECODE_ERROR(m.data, m.size, TKRT_STATUS_INVALID_ARGUMENT,
                      "field 5 (TmaDescriptor.block_shape): more than 5 entries (rank > 5)");
  wt_msg_free(&desc);
  wt_msg_free(&m);
  /* Counts that disagree, and a truncated packed varint. */
  wt_msg_init(&desc);
  wt_msg_init(&m);
  wt_bytes(&desc, 3, "\x01\x02", 2);
  wt_bytes(&desc, 4, "\x01", 1);
  wt_bytes(&desc, 5, "\x01\x02", 2);
  tma_call(&m, &desc);
  EXPECT_DECODE_ERROR(m.data, m.size, TKRT_STATUS_INVALID_ARGUMENT,
                      "TMA descriptor has 2 shape, 1 strides and 2 block_shape entries");
  wt_msg_free(&desc);
  wt_msg_free(&m);
  wt_msg_init(&desc);
  wt_msg_init(&m);
  wt_bytes(&desc, 4, "\x01\x80", 2);
  tma_call(&m, &desc);
  EXPECT_DECODE_ERROR(m.data, m.size, TKRT_STATUS_INVALID_ARGUMENT,
                      "field 4 (TmaDescriptor.strides): truncated varint in packed data");
  wt_msg_free(&desc);
  wt_msg_free(&m);
}

/* ---------------------------------------------------------------- libprotobuf's rules */

static void test_singular_messages_merge(void) {
  /* TritonKernel split over two occurrences; TritonKernelCall too; a later grid_0 overwrites. */
  wt_msg_t k1, k2, call1, call2, m;
  wt_msg_init(&k1);
  wt_msg_init(&k2);
  wt_msg_init(&call1);
  wt_msg_init(&call2);
  wt_msg_init(&m);
  wt_str(&k1, 1, "first");
  wt_varint(&k1, 2, 4);
  wt_varint(&k1, 10, 2);
  wt_str(&k2, 4, ".version 8.7\n.target sm_80\n");
  wt_varint(&k2, 6, 80);
  wt_str(&k2, 1, "merged");
  wt_sub(&call1, 1, &k1);
  wt_varint(&call1, 2, 5);
  wt_bytes(&call1, 5, "\x18\x07", 2);
  wt_sub(&call2, 1, &k2);
  wt_varint(&call2, 2, 7);
  wt_varint(&call2, 3, 2);
  wt_bytes(&call2, 5, "\x20\x09", 2);
  wt_sub(&m, 1, &call1);
  wt_str(&m, 4, "old name");
  wt_sub(&m, 1, &call2);
  wt_str(&m, 4, "new name");
  tkrt_call_t* c = decode_msg(&m);
  if (c) {
    const tkrt_kernel_desc_t* k = kernel0(c);
    EXPECT_STREQ(k->name, "merged");
    EXPECT_EQ_U64(k->num_warps, 4);
    EXPECT_EQ_U64(k->num_ctas, 2);
    EXPECT_EQ_U64(k->compute_capability, 80);
    EXPECT_STREQ(k->images[0].arch, "sm_80");
    EXPECT_EQ_U64(config0(c)->grid[0], 7);
    EXPECT_EQ_U64(config0(c)->grid[1], 2);
    EXPECT_EQ_U64(config0(c)->param_count, 2); /* repeated fields append */
    EXPECT_EQ_U64(config0(c)->params[1].value.u32, 9);
    EXPECT_STREQ(tkrt_call_get_desc(c)->name, "new name");
  }
  tkrt_call_release(c);
  wt_msg_free(&k1);
  wt_msg_free(&k2);
  wt_msg_free(&call1);
  wt_msg_free(&call2);
  wt_msg_free(&m);
}

static void test_oneof_last_member_wins(void) {
  wt_msg_t m, extra;
  wt_msg_init(&m);
  wt_msg_init(&extra);
  /* i32 then f32: f32. */
  wt_bytes(&extra, 5, "\x18\x05\x3d\x00\x00\xc0\x3f", 7);
  /* f32 then i32: i32. */
  wt_bytes(&extra, 5, "\x3d\x00\x00\xc0\x3f\x18\x05", 7);
  /* Array{btz 4} then Array{div 16}: one merged array. */
  wt_bytes(&extra, 5, "\x0a\x02\x08\x04\x0a\x02\x10\x10", 8);
  /* Array{btz 4}, i32, Array{div 16}: the i32 cleared the first array. */
  wt_bytes(&extra, 5, "\x0a\x02\x08\x04\x18\x01\x0a\x02\x10\x10", 10);
  /* An empty Array submessage is an array with both fields 0. */
  wt_bytes(&extra, 5, "\x0a\x00", 2);
  /* i32 -3 written as 5-byte uint32 varint: the low 32 bits count. */
  wt_bytes(&extra, 5, "\x18\xfd\xff\xff\xff\x0f", 6);
  /* bool 2 is true; u64 0 is present (a oneof member). */
  wt_bytes(&extra, 5, "\x10\x02", 2);
  wt_bytes(&extra, 5, "\x30\x00", 2);
  wt_min_call(&m, &extra);
  tkrt_call_t* c = decode_msg(&m);
  if (c) {
    const tkrt_config_desc_t* cfg = config0(c);
    ASSERT_TRUE(cfg->param_count == 8);
    EXPECT_EQ_U64(cfg->params[0].kind, TKRT_PARAM_F32);
    EXPECT_TRUE(cfg->params[0].value.f32 == 1.5f);
    EXPECT_EQ_U64(cfg->params[1].kind, TKRT_PARAM_I32);
    EXPECT_EQ_U64(cfg->params[1].value.i32, 5);
    EXPECT_EQ_U64(cfg->params[2].kind, TKRT_PARAM_ARRAY);
    EXPECT_EQ_U64(cfg->params[2].value.array.bytes_to_zero, 4);
    EXPECT_EQ_U64(cfg->params[2].value.array.ptr_divisibility, 16);
    EXPECT_EQ_U64(cfg->params[3].value.array.bytes_to_zero, 0);
    EXPECT_EQ_U64(cfg->params[3].value.array.ptr_divisibility, 16);
    EXPECT_EQ_U64(cfg->params[4].kind, TKRT_PARAM_ARRAY);
    EXPECT_EQ_U64(cfg->params[4].value.array.ptr_divisibility, 0);
    EXPECT_EQ_U64(cfg->params[5].kind, TKRT_PARAM_I32);
    EXPECT_TRUE(cfg->params[5].value.i32 == -3);
    EXPECT_EQ_U64(cfg->params[6].kind, TKRT_PARAM_BOOL);
    EXPECT_TRUE(cfg->params[6].value.b);
    EXPECT_EQ_U64(cfg->params[7].kind, TKRT_PARAM_U64);
    /* The canonical re-encoding: -3 as a 10-byte varint, the empty array as "0a 00". */
    void* e = NULL;
    size_t n = 0;
    EXPECT_OK(wt_encode_raw(c, true, &e, &n));
    static const uint8_t neg3[] = {0x2a, 0x0b, 0x18, 0xfd, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    static const uint8_t empty_array[] = {0x2a, 0x02, 0x0a, 0x00, 0x2a, 0x0b};
    bool found_neg = false, found_empty = false;
    for (size_t i = 0; e && i + sizeof(neg3) <= n; ++i) {
      found_neg |= memcmp((uint8_t*)e + i, neg3, sizeof(neg3)) == 0;
      found_empty |= memcmp((uint8_t*)e + i, empty_array, sizeof(empty_array)) == 0;
    }
    EXPECT_TRUE(found_neg);
    EXPECT_TRUE(found_empty);
    tkrt_wire_free(e);
  }
  tkrt_call_release(c);
  wt_msg_free(&m);
  wt_msg_free(&extra);

  /* TritonAnyKernelCall: autotuned then kernel_call: a plain call. */
  wt_msg_t any, config, autotuned, plain;
  wt_msg_init(&any);
  wt_msg_init(&config);
  wt_msg_init(&autotuned);
  wt_msg_init(&plain);
  wt_min_call(&plain, NULL); /* "0a <len> <TritonKernelCall>" */
  tkrt_wire_put_raw(&config, plain.data, plain.size); /* Config{kernel_call: ...} */
  wt_sub(&autotuned, 2, &config);
  wt_sub(&any, 2, &autotuned);
  tkrt_wire_put_raw(&any, plain.data, plain.size);
  c = decode_msg(&any);
  if (c) {
    EXPECT_TRUE(!tkrt_call_get_desc(c)->autotuned);
    EXPECT_EQ_U64(tkrt_call_get_desc(c)->config_count, 1);
  }
  tkrt_call_release(c);
  wt_msg_free(&any);
  wt_msg_free(&config);
  wt_msg_free(&autotuned);
  wt_msg_free(&plain);
}

/* Unknown fields of every wire type at every level, wrong wire types on known fields, and
 * fields in reverse order: all decode to the same call as the clean message. */
static void unknowns(wt_msg_t* m) {
  wt_varint(m, 99, 12345);
  tkrt_wire_put_fixed64_field(m, 98, 0x0102030405060708ull);
  wt_str(m, 97, "unknown bytes");
  tkrt_wire_put_fixed32_field(m, 96, 0xdeadbeef);
  wt_varint(m, 536870911, 1); /* the largest field number */
}

static void test_unknown_fields_and_order(void) {
  wt_msg_t clean, noisy;
  wt_msg_init(&clean);
  wt_msg_init(&noisy);
  wt_min_call(&clean, NULL);
  {
    wt_msg_t k, call, array, param, tma;
    wt_msg_init(&k);
    wt_msg_init(&call);
    wt_msg_init(&array);
    wt_msg_init(&param);
    wt_msg_init(&tma);
    /* Reverse field order, unknowns everywhere, wrong wire types on known numbers. */
    unknowns(&k);
    wt_varint(&k, 6, 90);
    wt_str(&k, 2, "num_warps as bytes is unknown");
    wt_str(&k, 4, ".version 8.7\n.target sm_90a\n");
    wt_varint(&k, 2, 4);
    wt_varint(&k, 1, 77); /* kernel_name as a varint is unknown */
    wt_str(&k, 1, "k");
    unknowns(&k);
    unknowns(&call);
    wt_varint(&call, 4, 1);
    wt_varint(&call, 3, 1);
    wt_varint(&call, 2, 1);
    wt_varint(&call, 5, 1); /* parameters as a varint is unknown */
    wt_sub(&call, 1, &k);
    unknowns(&noisy);
    wt_sub(&noisy, 1, &call);
    unknowns(&noisy);
    wt_msg_free(&k);
    wt_msg_free(&call);
    wt_msg_free(&array);
    wt_msg_free(&param);
    wt_msg_free(&tma);
  }
  tkrt_call_t* a = decode_msg(&clean);
  tkrt_call_t* b = decode_msg(&noisy);
  char why[128] = "";
  if (a && b) {
    EXPECT_TRUE(wt_same_digest(a, b));
    if (!wt_calls_equal(a, b, why, sizeof(why))) TKRT_TEST_FAIL_("differ: %s", why);
    void* e = NULL;
    size_t n = 0;
    EXPECT_OK(wt_encode_raw(b, true, &e, &n));
    EXPECT_TRUE(e && wt_first_diff(e, n, clean.data, clean.size) == (size_t)-1);
    tkrt_wire_free(e);
  }
  tkrt_call_release(a);
  tkrt_call_release(b);
  wt_msg_free(&clean);
  wt_msg_free(&noisy);

  /* Unknown fields inside Parameter, Array and the TMA messages. */
  wt_msg_t m, extra;
  wt_msg_init(&m);
  wt_msg_init(&extra);
  {
    wt_msg_t array, param;
    wt_msg_init(&array);
    wt_msg_init(&param);
    unknowns(&array);
    wt_varint(&array, 2, 16);
    unknowns(&param);
    wt_sub(&param, 1, &array);
    unknowns(&param);
    wt_sub(&extra, 5, &param);
    wt_msg_free(&array);
    wt_msg_free(&param);
  }
  wt_min_call(&m, &extra);
  tkrt_call_t* c = decode_msg(&m);
  if (c) {
    EXPECT_EQ_U64(config0(c)->param_count, 1);
    EXPECT_EQ_U64(config0(c)->params[0].value.array.ptr_divisibility, 16);
  }
  tkrt_call_release(c);
  wt_msg_free(&m);
  wt_msg_free(&extra);
}

static void test_kernel_fields(void) {
  /* Legacy cluster dims, optional fields present as 0, global scratch, module_image (cubin),
   * and the arch for several compute capabilities. */
  static const uint8_t cubin_header[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x33, 7, 0, 0, 0, 0,
                                           0,    0,   0,   0,   2, 0xbe, 0};
  wt_msg_t k, call, m, module;
  wt_msg_init(&k);
  wt_msg_init(&call);
  wt_msg_init(&m);
  wt_msg_init(&module);
  wt_str(&k, 1, "k");
  wt_varint(&k, 2, 8);
  wt_varint(&k, 3, 1024);
  wt_str(&k, 4, ".version 8.0\n.target sm_86\n");
  wt_str(&k, 5, "ttir text");
  wt_varint(&k, 6, 86);
  wt_varint(&k, 7, 2);
  wt_varint(&k, 8, 1);
  wt_varint(&k, 9, 1);
  wt_varint(&k, 10, 0);
  wt_bytes(&module, 1, cubin_header, sizeof(cubin_header));
  wt_str(&module, 2, "entry");
  wt_varint(&module, 3, 4096);
  wt_sub(&k, 11, &module);
  wt_varint(&k, 12, 0);
  wt_varint(&k, 13, 0);
  wt_sub(&call, 1, &k);
  wt_varint(&call, 2, 3);
  wt_sub(&m, 1, &call);
  tkrt_call_t* c = decode_msg(&m);
  if (c) {
    const tkrt_kernel_desc_t* d = kernel0(c);
    /* num_ctas is on the wire, so the legacy dims do not apply: 0 in the description, kept as
     * written in the side record (the encoding below gives them back). */
    const tkrt_wire_side_record_t* side = wt_side(config0(c)->kernel);
    ASSERT_TRUE(side != NULL);
    EXPECT_EQ_U64(side->cluster_dims[0], 2);
    EXPECT_EQ_U64(side->cluster_dims[1], 1);
    EXPECT_EQ_U64(side->cluster_dims[2], 1);
    EXPECT_EQ_U64(d->cluster_dims[0] | d->cluster_dims[1] | d->cluster_dims[2], 0);
    EXPECT_EQ_U64(side->present, TKRT_WIRE_HAS_NUM_CTAS | TKRT_WIRE_HAS_GLOBAL_SCRATCH_SIZE |
                                     TKRT_WIRE_HAS_GLOBAL_SCRATCH_ALIGN);
    EXPECT_EQ_U64(d->num_ctas, 0);
    EXPECT_STREQ(d->ttir, "ttir text");
    EXPECT_EQ_U64(d->shared_mem_bytes, 1024);
    ASSERT_TRUE(d->image_count == 2);
    EXPECT_STREQ(d->images[0].arch, "sm_86");
    EXPECT_EQ_U64(d->images[1].kind, TKRT_IMAGE_CUBIN);
    EXPECT_EQ_U64(d->images[1].origin, TKRT_IMAGE_ORIGIN_MODULE_IMAGE);
    EXPECT_STREQ(d->images[1].backend, "cuda");
    EXPECT_STREQ(d->images[1].entry_name, "entry");
    EXPECT_EQ_U64(d->images[1].shared_mem_bytes, 4096);
    EXPECT_EQ_U64(d->images[1].size, sizeof(cubin_header));
    void* e = NULL;
    size_t n = 0;
    EXPECT_OK(wt_encode_raw(c, true, &e, &n));
    EXPECT_TRUE(e && wt_first_diff(e, n, m.data, m.size) == (size_t)-1);
    tkrt_wire_free(e);
  }
  tkrt_call_release(c);
  wt_msg_free(&k);
  wt_msg_free(&call);
  wt_msg_free(&m);
  wt_msg_free(&module);

  /* Legacy cluster dims without num_ctas (a blob from before it): they are the cluster, in the
   * description, and the call has the digest of the same kernel built in C. */
  wt_msg_init(&k);
  wt_msg_init(&call);
  wt_msg_init(&m);
  wt_min_kernel(&k);
  wt_varint(&k, 7, 2);
  wt_varint(&k, 8, 1);
  wt_varint(&k, 9, 1);
  wt_sub(&call, 1, &k);
  wt_varint(&call, 2, 3);
  wt_sub(&m, 1, &call);
  c = decode_msg(&m);
  if (c) {
    const tkrt_kernel_desc_t* d = kernel0(c);
    EXPECT_EQ_U64(d->cluster_dims[0], 2);
    EXPECT_EQ_U64(d->cluster_dims[1], 1);
    EXPECT_EQ_U64(d->cluster_dims[2], 1);
    EXPECT_EQ_U64(d->num_ctas, 0);
    ASSERT_TRUE(wt_side(config0(c)->kernel) != NULL);
    EXPECT_EQ_U64(wt_side(config0(c)->kernel)->present, 0);
    tkrt_kernel_t* kernel = NULL;
    tkrt_call_t* built = NULL;
    EXPECT_OK(tkrt_kernel_create(d, &kernel));
    if (kernel) {
      EXPECT_TRUE(wt_side(kernel) == NULL); /* built in C: no side record */
      tkrt_call_desc_t cd = *tkrt_call_get_desc(c);
      tkrt_config_desc_t config = *config0(c);
      config.kernel = kernel;
      cd.configs = &config;
      EXPECT_OK(tkrt_call_create(&cd, &built));
    }
    if (built) EXPECT_TRUE(wt_same_digest(c, built));
    void* e = NULL;
    size_t n = 0;
    if (built) EXPECT_OK(wt_encode_raw(built, true, &e, &n));
    EXPECT_TRUE(e && wt_first_diff(e, n, m.data, m.size) == (size_t)-1);
    tkrt_wire_free(e);
    tkrt_call_release(built);
    tkrt_kernel_release(kernel);
  }
  tkrt_call_release(c);
  wt_msg_free(&k);
  wt_msg_free(&call);
  wt_msg_free(&m);

  static const struct {
    uint32_t cc;
    const char* arch;
  } arches[] = {{75, "sm_75"}, {89, "sm_89"}, {90, "sm_90a"}, {100, "sm_100a"}, {120, "sm_120a"}};
  for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); ++i) {
    wt_msg_init(&k);
    wt_msg_init(&call);
    wt_msg_init(&m);
    wt_str(&k, 1, "k");
    wt_varint(&k, 2, 4);
    wt_str(&k, 4, "//\n.version 8.7\n");
    wt_varint(&k, 6, arches[i].cc);
    wt_sub(&call, 1, &k);
    wt_sub(&m, 1, &call);
    c = decode_msg(&m);
    if (c) EXPECT_STREQ(kernel0(c)->images[0].arch, arches[i].arch);
    tkrt_call_release(c);
    wt_msg_free(&k);
    wt_msg_free(&call);
    wt_msg_free(&m);
  }
  /* No compute capability: any arch. */
  wt_msg_init(&k);
  wt_msg_init(&call);
  wt_msg_init(&m);
  wt_str(&k, 1, "k");
  wt_varint(&k, 2, 4);
  wt_str(&k, 4, ".version 8.7");
  wt_sub(&call, 1, &k);
  wt_sub(&m, 1, &call);
  c = decode_msg(&m);
  if (c) {
    EXPECT_TRUE(kernel0(c)->images[0].arch == NULL);
    EXPECT_EQ_U64(kernel0(c)->images[0].kind, TKRT_IMAGE_PTX);
  }
  tkrt_call_release(c);
  wt_msg_free(&k);
  wt_msg_free(&call);
  wt_msg_free(&m);
}

/* ---------------------------------------------------------------- sweeps over the vectors */

static bool acceptable(tkrt_status_t status) {
  tkrt_status_code_t code = tkrt_status_code(status);
  return code == TKRT_STATUS_OK || code == TKRT_STATUS_INVALID_ARGUMENT ||
         code == TKRT_STATUS_FAILED_PRECONDITION;
}

static void sweep_one(const uint8_t* data, size_t size, size_t* ok, size_t* failed,
                      const char* what, size_t at) {
  tkrt_call_t* call = NULL;
  tkrt_status_t status = wt_decode(data, size, &call);
  if (!acceptable(status)) {
    char* text = tkrt_status_to_string(status);
    TKRT_TEST_FAIL_("%s at %zu: unexpected %s", what, at, text ? text : "?");
    free(text);
  }
  if (status) {
    ++*failed;
    EXPECT_TRUE(call == NULL);
    /* Every error names where: an offset, or the blob-level reason. */
    const char* msg = tkrt_status_message(status);
    if (tkrt_status_code(status) == TKRT_STATUS_INVALID_ARGUMENT &&
        !strstr(msg, "offset") && !strstr(msg, "zlib") && !strstr(msg, "empty blob") &&
        !strstr(msg, "unknown kernel call type") && !strstr(msg, "no configs")) {
      TKRT_TEST_FAIL_("%s at %zu: error without a location: %s", what, at, msg);
    }
  } else {
    ++*ok;
    /* A successful decode re-encodes, and that re-encoding is a fixed point. */
    void* e = NULL;
    size_t n = 0;
    EXPECT_OK(wt_encode_raw(call, true, &e, &n));
    tkrt_call_t* again = NULL;
    if (e) EXPECT_OK(wt_decode(e, n, &again));
    if (again && !wt_same_digest(call, again)) {
      TKRT_TEST_FAIL_("%s at %zu: re-encoding changes the call", what, at);
    }
    tkrt_call_release(again);
    tkrt_wire_free(e);
  }
  tkrt_status_free(status);
  tkrt_call_release(call);
}

static void test_truncations(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  for (size_t v = 0; v < WT_VECTOR_COUNT; ++v) {
    const char* name = kVectorNames[v];
    for (int compressed = 0; compressed < 2; ++compressed) {
      size_t size = 0;
      uint8_t* data = wt_read_vector(name, compressed ? "call.pb.z" : "call.pb", &size);
      if (!data) {
        TKRT_TEST_FAIL_("%s: missing", name);
        continue;
      }
      /* Every prefix near both ends, and a stride through the middle. */
      size_t stride = size / 400 + 1;
      size_t ok = 0, failed = 0;
      for (size_t n = 0; n < size; n += (n < 300 || size - n < 300) ? 1 : stride) {
        /* A copy of exactly n bytes, so that ASan catches any read past the end. */
        uint8_t* prefix = malloc(n ? n : 1);
        memcpy(prefix, data, n);
        sweep_one(prefix, n, &ok, &failed, compressed ? "compressed prefix" : "prefix", n);
        free(prefix);
      }
      if (compressed && ok) TKRT_TEST_FAIL_("%s: %zu truncated zlib streams decoded", name, ok);
      fprintf(stderr, "  %-18s %s prefixes: %zu rejected, %zu decoded\n", name,
              compressed ? "call.pb.z" : "call.pb  ", failed, ok);
      free(data);
    }
  }
}

static void test_bit_flips(void) {
  if (!wt_have_vectors()) TKRT_TEST_SKIP("no vectors");
  for (size_t v = 0; v < WT_VECTOR_COUNT; ++v) {
    const char* name = kVectorNames[v];
    for (int compressed = 0; compressed < 2; ++compressed) {
      size_t size = 0;
      uint8_t* data = wt_read_vector(name, compressed ? "call.pb.z" : "call.pb", &size);
      if (!data) continue;
      /* All bits of the first 160 bytes (the structure), then a stride of bytes. */
      size_t ok = 0, failed = 0;
      size_t stride = size / 200 + 1;
      for (size_t i = 0; i < size; i += i < 160 ? 1 : stride) {
        for (int bit = 0; bit < 8; ++bit) {
          data[i] ^= (uint8_t)(1u << bit);
          sweep_one(data, size, &ok, &failed, compressed ? "compressed flip" : "flip", i);
          data[i] ^= (uint8_t)(1u << bit);
        }
      }
      fprintf(stderr, "  %-18s %s bit flips: %zu rejected, %zu decoded\n", name,
              compressed ? "call.pb.z" : "call.pb  ", failed, ok);
      free(data);
    }
  }
}

int main(int argc, char** argv) {
  g_vectors_dir = argc > 1 ? argv[1] : NULL;
  static const tkrt_test_case_t cases[] = {
      TKRT_TEST_CASE(test_empty_and_zlib_errors),
      TKRT_TEST_CASE(test_size_limit),
      TKRT_TEST_CASE(test_options_struct_size),
      TKRT_TEST_CASE(test_wire_errors_name_field_and_offset),
      TKRT_TEST_CASE(test_strings),
      TKRT_TEST_CASE(test_semantic_errors),
      TKRT_TEST_CASE(test_hsaco_path_errors),
      TKRT_TEST_CASE(test_tma_packed_unpacked_and_rank),
      TKRT_TEST_CASE(test_singular_messages_merge),
      TKRT_TEST_CASE(test_oneof_last_member_wins),
      TKRT_TEST_CASE(test_unknown_fields_and_order),
      TKRT_TEST_CASE(test_kernel_fields),
      TKRT_TEST_CASE(test_truncations),
      TKRT_TEST_CASE(test_bit_flips),
  };
  return tkrt_test_main(argc > 1 ? argc - 1 : argc, argc > 1 ? argv + 1 : argv, cases,
                        sizeof(cases) / sizeof(cases[0]));
}
