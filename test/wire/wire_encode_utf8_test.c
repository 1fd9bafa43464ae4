/* SPDX-License-Identifier: Apache-2.0 */
/* The encoder and the decoder agree on strings: tkrt_wire_encode refuses a string field that is not
 * UTF-8, naming the field, exactly when tkrt_wire_decode would refuse the same bytes in that field.
 * For every string field the encoder writes and a table of valid and invalid sequences, the test
 * encodes the call, then encodes it again with a same-length placeholder, patches the sequence
 * into the blob and decodes that: both must succeed or both must fail. */
#include <inttypes.h>

#include "wire/wire_proto.h"
#include "test/harness.h"
#include "test/wire/wire_test_util.h"

static const uint8_t kHostElf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                     3,    0,   62,  0};
static const uint8_t kCubin[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x33, 7, 0, 0, 0, 0, 0, 0, 0,
                                   2,    0,   190, 0};

/* The string fields the encoder writes, with the name its error gives. */
typedef enum field {
  F_CALL_NAME,
  F_AUTOTUNE_NAME,
  F_DESCRIPTION,
  F_KERNEL_NAME,
  F_TTIR,
  F_PTX_TEXT,
  F_MODULE_KERNEL_NAME,
  F_IMAGE_ARCH,
  F_IMAGE_ENTRY_NAME,
  F_COUNT
} field_t;

static const char* const kFieldNames[F_COUNT] = {
    "TritonAnyKernelCall.name", "TritonAutotunedKernelCall.name", "Config.description",
    "TritonKernel.kernel_name", "TritonKernel.ttir",              "TritonKernel.ptx, PTX text",
    "ModuleImage.kernel_name",  "TkrtImage.arch",                 "TkrtImage.entry_name",
};

typedef struct sequence {
  const char* bytes;
  bool valid;
  const char* what;
} sequence_t;

static const sequence_t kSequences[] = {
    {"plain", true, "ASCII"},
    {"caf\xc3\xa9", true, "2-byte U+00E9"},
    {"\xe2\x82\xac", true, "3-byte U+20AC"},
    {"\xed\x9f\xbf", true, "U+D7FF, below the surrogates"},
    {"\xee\x80\x80", true, "U+E000, above the surrogates"},
    {"\xf0\x9f\x98\x80", true, "4-byte U+1F600"},
    {"\xf4\x8f\xbf\xbf", true, "U+10FFFF, the last code point"},
    {"caf\xe9", false, "Latin-1"},
    {"\xff", false, "0xff"},
    {"\x80", false, "a lone continuation byte"},
    {"\xc3", false, "a truncated 2-byte sequence"},
    {"\xe2\x82", false, "a truncated 3-byte sequence"},
    {"\xc0\xaf", false, "an overlong 2-byte '/'"},
    {"\xe0\x80\xaf", false, "an overlong 3-byte '/'"},
    {"\xf0\x80\x80\xaf", false, "an overlong 4-byte '/'"},
    {"\xed\xa0\x80", false, "a surrogate U+D800"},
    {"\xf4\x90\x80\x80", false, "U+110000"},
    {"\xf8\x88\x80\x80\x80", false, "a 5-byte form"},
};
#define SEQUENCE_COUNT (sizeof(kSequences) / sizeof(kSequences[0]))

/* The field's text: a unique marker around the sequence, so the placeholder is found in the blob.
 * PTX text keeps a newline so the decoder takes it for text, not for an HSACO path. */
static void field_text(field_t field, const char* middle, char* out, size_t capacity) {
  snprintf(out, capacity, "%s<<utf8:%s>>%s", field == F_PTX_TEXT ? "// " : "", middle,
           field == F_PTX_TEXT ? "\n.version 8.7\n.target sm_80\n" : "");
}

/* An autotuned call with a PTX image, a module image and a host image (carried in tkrt's field),
 * whose `field` holds `text`; every other string is valid. */
static tkrt_status_t build_call(field_t field, const char* text, tkrt_call_t** out) {
  const char* s[F_COUNT] = {
      "call", "tuning", "second config", "kernel", "module {}",
      "// ptx\n.version 8.7\n.target sm_80\n", "module_entry", "x86_64", "host_entry",
  };
  s[field] = text;
  tkrt_kernel_image_t images[3] = {
      {NULL, "sm_80", TKRT_IMAGE_PTX, s[F_PTX_TEXT], strlen(s[F_PTX_TEXT]), NULL, 0,
       TKRT_IMAGE_ORIGIN_API},
      {NULL, "sm_80", TKRT_IMAGE_CUBIN, kCubin, sizeof(kCubin), s[F_MODULE_KERNEL_NAME], 0,
       TKRT_IMAGE_ORIGIN_MODULE_IMAGE},
      {"host", s[F_IMAGE_ARCH], TKRT_IMAGE_HOST, kHostElf, sizeof(kHostElf),
       s[F_IMAGE_ENTRY_NAME], 0, TKRT_IMAGE_ORIGIN_API},
  };
  tkrt_kernel_desc_t kd;
  tkrt_kernel_desc_init(&kd);
  kd.name = s[F_KERNEL_NAME];
  kd.num_warps = 4;
  kd.compute_capability = 80;
  kd.ttir = s[F_TTIR];
  kd.images = images;
  kd.image_count = 3;
  tkrt_kernel_t* kernel = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_kernel_create(&kd, &kernel));

  tkrt_param_t param;
  memset(&param, 0, sizeof(param));
  param.kind = TKRT_PARAM_ARRAY;
  tkrt_config_desc_t configs[2] = {
      {kernel, {1, 1, 1}, &param, 1, "first config"},
      {kernel, {2, 1, 1}, &param, 1, s[F_DESCRIPTION]},
  };
  tkrt_call_desc_t cd;
  tkrt_call_desc_init(&cd);
  cd.name = s[F_CALL_NAME];
  cd.autotuned = true;
  cd.autotune_name = s[F_AUTOTUNE_NAME];
  cd.configs = configs;
  cd.config_count = 2;
  tkrt_status_t status = tkrt_call_create(&cd, out);
  tkrt_kernel_release(kernel);
  return status;
}

static size_t find_bytes(const uint8_t* hay, size_t hay_size, const char* needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; i + n <= hay_size; ++i) {
    if (memcmp(hay + i, needle, n) == 0) return i;
  }
  return SIZE_MAX;
}

/* What the decoder says about `bytes` in `field`: the call encoded with a placeholder of the same
 * length, the placeholder replaced by the bytes. NULL when it decodes. */
static tkrt_status_t decode_patched(field_t field, const char* bytes) {
  char filler[16];
  size_t n = strlen(bytes);
  memset(filler, 'Z', n);
  filler[n] = '\0';
  char placeholder[128];
  field_text(field, filler, placeholder, sizeof(placeholder));
  tkrt_call_t* call = NULL;
  TKRT_RETURN_IF_ERROR(build_call(field, placeholder, &call));
  void* blob = NULL;
  size_t size = 0;
  tkrt_status_t status = wt_encode_raw(call, true, &blob, &size);
  tkrt_call_release(call);
  if (status) return status;
  char marker[32];
  snprintf(marker, sizeof(marker), "<<utf8:%s>>", filler);
  /* Kernel fields appear once per config (both configs share the kernel): patch every copy. */
  size_t copies = 0;
  for (size_t at = 0; at < size;) {
    size_t found = find_bytes((uint8_t*)blob + at, size - at, marker);
    if (found == SIZE_MAX) break;
    memcpy((uint8_t*)blob + at + found + strlen("<<utf8:"), bytes, n);
    at += found + 1;
    ++copies;
  }
  if (copies == 0) {
    tkrt_wire_free(blob);
    return TKRT_STATUS_MAKE(TKRT_STATUS_INTERNAL, "placeholder for %s not found in the blob",
                            kFieldNames[field]);
  }
  tkrt_call_t* back = NULL;
  status = wt_decode(blob, size, &back);
  tkrt_call_release(back);
  tkrt_wire_free(blob);
  return status;
}

static void test_encoder_refuses_exactly_what_the_decoder_refuses(void) {
  for (int f = 0; f < F_COUNT; ++f) {
    for (size_t i = 0; i < SEQUENCE_COUNT; ++i) {
      const sequence_t* seq = &kSequences[i];
      /* The sequences are chosen by hand; the shared checker must classify them the same way. */
      EXPECT_TRUE((tkrt_wire_utf8_check((const uint8_t*)seq->bytes, strlen(seq->bytes)) ==
                   strlen(seq->bytes)) == seq->valid);
      char text[128];
      field_text((field_t)f, seq->bytes, text, sizeof(text));
      tkrt_call_t* call = NULL;
      ASSERT_OK(build_call((field_t)f, text, &call));
      void* blob = NULL;
      size_t size = 0;
      tkrt_status_t encoded = wt_encode_raw(call, true, &blob, &size);
      tkrt_status_t decoded = decode_patched((field_t)f, seq->bytes);
      if (decoded && !strstr(tkrt_status_message(decoded), "invalid UTF-8")) {
        char* t = tkrt_status_to_string(decoded);
        TKRT_TEST_FAIL_("%s with %s: the patched blob failed for another reason: %s",
                        kFieldNames[f], seq->what, t);
        free(t);
      }
      if ((encoded == NULL) != (decoded == NULL)) {
        TKRT_TEST_FAIL_("%s with %s: the encoder %s but the decoder %s", kFieldNames[f],
                        seq->what, encoded ? "refused" : "accepted",
                        decoded ? "refused" : "accepted");
      }
      if ((encoded == NULL) != seq->valid) {
        TKRT_TEST_FAIL_("%s with %s: the encoder %s", kFieldNames[f], seq->what,
                        encoded ? "refused valid UTF-8" : "accepted invalid UTF-8");
      }
      if (encoded) {
        const char* message = tkrt_status_message(encoded);
        EXPECT_EQ_U64(tkrt_status_code(encoded), TKRT_STATUS_INVALID_ARGUMENT);
        if (!strstr(message, kFieldNames[f]) || !strstr(message, "not valid UTF-8")) {
          TKRT_TEST_FAIL_("%s with %s: the error does not name the field: %s", kFieldNames[f],
                          seq->what, message);
        }
        EXPECT_TRUE(blob == NULL && size == 0); /* out-params untouched on error */
      } else {
        /* What the encoder wrote decodes, with the string intact. */
        tkrt_call_t* back = NULL;
        EXPECT_OK(wt_decode(blob, size, &back));
        if (back && f == F_DESCRIPTION) {
          EXPECT_STREQ(tkrt_call_get_desc(back)->configs[1].description, text);
        }
        if (back && f == F_CALL_NAME) EXPECT_STREQ(tkrt_call_get_desc(back)->name, text);
        tkrt_call_release(back);
      }
      tkrt_status_free(encoded);
      tkrt_status_free(decoded);
      tkrt_wire_free(blob);
      tkrt_call_release(call);
    }
  }
}

/* The case: a config description in Latin-1, compressed as tkrt_wire_encode's default. */
static void test_latin1_description_is_refused_with_its_config(void) {
  tkrt_call_t* call = NULL;
  ASSERT_OK(build_call(F_DESCRIPTION, "block 64, \xe9t\xe9", &call));
  tkrt_wire_encode_options_t options;
  tkrt_wire_encode_options_init(&options);
  void* blob = NULL;
  size_t size = 0;
  EXPECT_STATUS(tkrt_wire_encode(call, &options, &blob, &size), TKRT_STATUS_INVALID_ARGUMENT,
                "field 2 (Config.description) of config 1 is not valid UTF-8: byte 0xe9 at "
                "offset 10 of 13");
  EXPECT_TRUE(blob == NULL);
  tkrt_call_release(call);
}

TKRT_TEST_MAIN(TKRT_TEST_CASE(test_encoder_refuses_exactly_what_the_decoder_refuses),
               TKRT_TEST_CASE(test_latin1_description_is_refused_with_its_config))
