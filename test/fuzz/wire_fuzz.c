/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target for the jaxlib wire decoder. Beyond "no crash, no leak" it checks that errors
 * carry an expected code and that every accepted input re-encodes to a fixed point: decode(x) ->
 * encode -> decode gives the same call, and encoding that again gives the same bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tkrt/call.h"
#include "tkrt/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void tkrt_fuzz_fail(const char* what, tkrt_status_t status) {
  char* text = tkrt_status_to_string(status);
  fprintf(stderr, "wire_fuzz: %s: %s\n", what, text ? text : "(no status)");
  free(text);
  abort();
}

static tkrt_status_t tkrt_fuzz_encode(const tkrt_call_t* call, bool compress, void** out,
                                      size_t* out_size) {
  tkrt_wire_encode_options_t options;
  tkrt_wire_encode_options_init(&options);
  options.compress = compress;
  return tkrt_wire_encode(call, &options, out, out_size);
}

static tkrt_status_t tkrt_fuzz_decode(const void* data, size_t size, tkrt_call_t** out) {
  tkrt_wire_decode_options_t options;
  tkrt_wire_decode_options_init(&options);
  options.read_hsaco_files = false;            /* never touch the file system */
  options.max_message_size = (size_t)8 << 20;  /* keep each run fast */
  return tkrt_wire_decode(data, size, &options, out);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tkrt_call_t* call = NULL;
  tkrt_status_t status = tkrt_fuzz_decode(data, size, &call);
  if (status) {
    tkrt_status_code_t code = tkrt_status_code(status);
    if (call) tkrt_fuzz_fail("a failed decode wrote *out_call", status);
    /* RESOURCE_EXHAUSTED: the record budget (TKRT_WIRE_MAX_RECORD_BYTES), which a zlib input
     * of 8 MiB of empty Parameters reaches. */
    if (code != TKRT_STATUS_INVALID_ARGUMENT && code != TKRT_STATUS_FAILED_PRECONDITION &&
        code != TKRT_STATUS_RESOURCE_EXHAUSTED) {
      tkrt_fuzz_fail("unexpected error code", status);
    }
    if (!tkrt_status_message(status)[0]) tkrt_fuzz_fail("empty error message", status);
    tkrt_status_free(status);
    return 0;
  }

  void* first = NULL;
  void* second = NULL;
  void* packed = NULL;
  size_t first_size = 0, second_size = 0, packed_size = 0;
  tkrt_call_t* again = NULL;
  tkrt_call_t* unpacked = NULL;
  if ((status = tkrt_fuzz_encode(call, false, &first, &first_size))) {
    tkrt_fuzz_fail("encoding a decoded call", status);
  }
  if ((status = tkrt_fuzz_decode(first, first_size, &again))) {
    tkrt_fuzz_fail("decoding a re-encoded call", status);
  }
  if (memcmp(tkrt_call_digest(call), tkrt_call_digest(again), TKRT_DIGEST_SIZE) != 0) {
    tkrt_fuzz_fail("re-encoding changed the call", NULL);
  }
  if ((status = tkrt_fuzz_encode(again, false, &second, &second_size))) {
    tkrt_fuzz_fail("encoding the re-decoded call", status);
  }
  if (first_size != second_size || memcmp(first, second, first_size) != 0) {
    tkrt_fuzz_fail("encoding is not a fixed point", NULL);
  }
  /* The compressed path too, for small inputs (deflate dominates the run time otherwise). */
  if (first_size < 4096) {
    if ((status = tkrt_fuzz_encode(call, true, &packed, &packed_size))) {
      tkrt_fuzz_fail("compressed encoding", status);
    }
    if ((status = tkrt_fuzz_decode(packed, packed_size, &unpacked))) {
      tkrt_fuzz_fail("decoding the compressed encoding", status);
    }
    if (memcmp(tkrt_call_digest(call), tkrt_call_digest(unpacked), TKRT_DIGEST_SIZE) != 0) {
      tkrt_fuzz_fail("compressed round trip changed the call", NULL);
    }
  }
  tkrt_call_release(unpacked);
  tkrt_call_release(again);
  tkrt_call_release(call);
  tkrt_wire_free(first);
  tkrt_wire_free(second);
  tkrt_wire_free(packed);
  return 0;
}
