/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: the jaxlib wire format. Decodes the opaque blob of jaxlib's Triton custom calls (a zlib-
 * compressed TritonAnyKernelCall protobuf) into a tkrt_call_t, and encodes a tkrt_call_t back.
 *
 * Decoding follows libprotobuf's rules (any field order, unknown fields skipped, last oneof member
 * wins, singular messages merge) and checks every length: any malformed input is INVALID_ARGUMENT
 * with a message that names the field and the byte offset in the decompressed message.
 * Compatibility facts and tkrt's own image field: docs/wire.md. */
#ifndef TKRT_WIRE_H_
#define TKRT_WIRE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/api.h"
#include "tkrt/call.h"
#include "tkrt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Field number, in TritonKernel, of tkrt's own repeated image message (jaxlib does not use it, so
 * its decoders skip it). Layout in docs/wire.md. */
#define TKRT_WIRE_IMAGE_FIELD 1000

/* Default of tkrt_wire_decode_options_t.max_message_size (256 MiB): the largest decompressed
 * message (and HSACO file) a decode accepts unless the caller asks for more. Real calls are far
 * smaller (jaxlib's largest vector, an autotuned matmul, is 252 KB); the decoder's memory grows with
 * this limit (see TKRT_WIRE_MAX_RECORD_BYTES), and so does what a small zlib blob (1032:1 at
 * most) can make it allocate. */
#define TKRT_WIRE_DEFAULT_MESSAGE_SIZE ((size_t)256 << 20)

/* Hard upper bound of max_message_size (1 GiB): larger requests are clamped to it. */
#define TKRT_WIRE_MAX_MESSAGE_SIZE ((size_t)1 << 30)

/* Budget of decoded records for one decode, across the whole message (64 MiB): parameters,
 * configs (with their kernels), input/output aliases and tkrt images each cost the bytes their
 * records take in the decoder and in the resulting call (about 320 bytes per parameter, 1.2 KiB per
 * config), counted when the field is read, whatever config it is in. Input bytes alone do not bound
 * this (an empty Parameter is 2 bytes), so the budget does: a message that needs more fails with
 * RESOURCE_EXHAUSTED naming the field and its offset, before allocating. It allows about 200,000
 * parameters or 50,000 configs in total. With it, a decode uses at most about 4 times the
 * decompressed message size plus this budget, plus the HSACO files it reads (at most
 * max_message_size in total, counted once per kernel that uses a file). */
#define TKRT_WIRE_MAX_RECORD_BYTES ((size_t)64 << 20)

typedef enum tkrt_wire_format {
  TKRT_WIRE_FORMAT_AUTO = 0, /* zlib when the first two bytes are a valid RFC 1950 header, else raw */
  TKRT_WIRE_FORMAT_ZLIB = 1, /* always inflate (what jaxlib accepts) */
  TKRT_WIRE_FORMAT_RAW = 2,  /* a serialized TritonAnyKernelCall, never inflated */
} tkrt_wire_format_t;

typedef struct tkrt_wire_decode_options {
  size_t struct_size;
  tkrt_wire_format_t format; /* default AUTO */
  /* ROCm blobs put the PATH of an .hsaco file in TritonKernel.ptx. When true (default) the file is
   * read once, at decode, and its bytes kept in the call; it is never deleted (jaxlib deletes it).
   * When false, such a blob decodes only if tkrt's image field carries the bytes for that path,
   * else FAILED_PRECONDITION: use false for blobs from untrusted sources. */
  bool read_hsaco_files;
  /* Relative HSACO paths are resolved against this directory; NULL: the working directory. */
  const char* base_dir;
  /* Largest accepted decompressed message, and total size of the HSACO files one decode reads
   * (a file counts once per kernel that names it); 0: TKRT_WIRE_DEFAULT_MESSAGE_SIZE (the
   * default). Larger values are clamped to TKRT_WIRE_MAX_MESSAGE_SIZE. */
  size_t max_message_size;
} tkrt_wire_decode_options_t;

/* Fills the defaults above and struct_size. */
TKRT_API void tkrt_wire_decode_options_init(tkrt_wire_decode_options_t* options);

/* Decodes a jaxlib blob (zlib or raw, see options->format; NULL options: defaults) into a new call.
 * Errors: INVALID_ARGUMENT for every malformed input ("empty blob", "zlib inflate failed: ...",
 * "unknown kernel call type", "unknown scalar parameter type", truncations, bad lengths, ...), with
 * the field and the byte offset in the decompressed message; RESOURCE_EXHAUSTED when the decoded
 * records would exceed TKRT_WIRE_MAX_RECORD_BYTES (with the field and offset) or memory runs out;
 * NOT_FOUND (or PERMISSION_DENIED) for
 * an HSACO path that does not exist (cannot be read); FAILED_PRECONDITION for an HSACO path when
 * read_hsaco_files is off and the blob does not carry the bytes. *out_call is written only on
 * success; the caller releases it with tkrt_call_release. Thread-safe: no shared state. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_wire_decode(const void* bytes, size_t size,
                                        const tkrt_wire_decode_options_t* options,
                                        tkrt_call_t** out_call);

typedef struct tkrt_wire_encode_options {
  size_t struct_size;
  bool compress;  /* default true: zlib (RFC 1950), as the custom call's opaque attribute */
  int zlib_level; /* default -1 (zlib's default, what jaxlib uses); 0-9 otherwise */
  /* Default true: images that the jaxlib fields cannot carry (host ELF, cubin and HSACO bytes
   * built by a C user, every image after the first PTX and module_image, the bytes behind an HSACO
   * path) are written to tkrt's image field, so that the blob replays anywhere. When false only
   * the jaxlib fields are written and such images are dropped. */
  bool include_tkrt_images;
} tkrt_wire_encode_options_t;

TKRT_API void tkrt_wire_encode_options_init(tkrt_wire_encode_options_t* options);

/* Serializes a call as a TritonAnyKernelCall, fields in field-number order as jaxlib writes them.
 * On success *out_bytes (free with tkrt_wire_free) and *out_size are written. A call decoded from
 * a jaxlib blob encodes back to the same bytes (uncompressed; compressed too with the same zlib):
 * what only that needs (an HSACO path, optional fields present as 0) is kept with each decoded
 * kernel, not in its tkrt_kernel_desc_t, so a kernel rebuilt from its description with
 * tkrt_kernel_create encodes like one built in C (same call, same digest; bytes may differ).
 * Which image goes to which field: docs/wire.md. INVALID_ARGUMENT when include_tkrt_images is off
 * and a kernel has no image that jaxlib's fields can carry. Thread-safe. */
TKRT_MUST_USE TKRT_API tkrt_status_t tkrt_wire_encode(const tkrt_call_t* call,
                                        const tkrt_wire_encode_options_t* options,
                                        void** out_bytes, size_t* out_size);

/* Frees a buffer returned by tkrt_wire_encode. NULL is fine. */
TKRT_API void tkrt_wire_free(void* bytes);

#ifdef __cplusplus
}
#endif

#endif /* TKRT_WIRE_H_ */
