/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt wire: what the jaxlib codec's decoder and encoder share: zlib framing, recognising image
 * bytes (PTX text, cubin, fatbin, HSACO, host ELF), and the side record of decoded kernels. */
#ifndef TKRT_WIRE_INTERNAL_H_
#define TKRT_WIRE_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/call.h"
#include "tkrt/device.h"
#include "tkrt/status.h"

/* ---------------------------------------------------------------- zlib (wire_zlib.c) */

/* True when the first two bytes are a valid RFC 1950 header (deflate, window <= 32 KiB, check
 * bits). A jaxlib message never looks like one: it starts with field 1 or 2, length-delimited. */
bool tkrt_wire_is_zlib(const uint8_t* data, size_t size);

/* Inflates one whole zlib stream into a malloc'ed buffer of at most `limit` bytes. Trailing bytes
 * after the stream, truncation and corruption are INVALID_ARGUMENT "zlib inflate failed: ...". */
tkrt_status_t tkrt_wire_inflate(const uint8_t* data, size_t size, size_t limit,
                                uint8_t** out_data, size_t* out_size);

/* Deflates into a malloc'ed zlib stream (RFC 1950) at `level` (-1: zlib's default). */
tkrt_status_t tkrt_wire_deflate(const uint8_t* data, size_t size, int level, uint8_t** out_data,
                                size_t* out_size);

/* ---------------------------------------------------------------- images (wire_image.c) */

#define TKRT_WIRE_ARCH_MAX 32

/* What the bytes of an image are: kind (AUTO when unrecognised), its backend ("cuda", "hip",
 * "host", or NULL), and the architecture when the header says it ("gfx942", "x86_64"), else "". */
typedef struct tkrt_wire_image_facts {
  tkrt_image_kind_t kind;
  const char* backend;
  char arch[TKRT_WIRE_ARCH_MAX];
} tkrt_wire_image_facts_t;

void tkrt_wire_image_detect(const uint8_t* data, size_t size, tkrt_wire_image_facts_t* facts);

/* Whether TritonKernel.ptx holds PTX text rather than a file path (ROCm). PTX always has several
 * lines (.version, .target, .address_size ...); a path has none. */
bool tkrt_wire_ptx_field_is_text(const uint8_t* data, size_t size);

/* "sm_90a" for compute capability 90 and above (jaxlib compiles for sm_XYa there), "sm_86"
 * below; "" for 0. */
void tkrt_wire_cuda_arch(uint32_t compute_capability, char arch[TKRT_WIRE_ARCH_MAX]);

/* Reads a whole regular file (1 to `limit` bytes) into a malloc'ed buffer with tkrt_fs_read_file
 * (base/fs.h). `path` is relative to base_dir when not absolute. Never modifies or removes the
 * file. Errors: NOT_FOUND when it does not exist, PERMISSION_DENIED, INVALID_ARGUMENT (not a
 * regular file, empty, too large), DATA_LOSS (changed size while read). */
tkrt_status_t tkrt_wire_read_file(const char* base_dir, const char* path, size_t limit,
                                  uint8_t** out_data, size_t* out_size);

/* ---------------------------------------------------------------- side record (wire_build.c)
 * What re-encoding a decoded kernel needs to reproduce its bytes and what runs does not depend on,
 * so it stays out of tkrt_kernel_desc_t: the decoder attaches it to every kernel it builds
 * (tkrt_kernel_create_with_record), the encoder reads it back; kernels built in C have none. It
 * does not enter the digest. */

/* proto3 `optional` fields of TritonKernel that the blob had, even as 0 (written back when set). */
enum {
  TKRT_WIRE_HAS_NUM_CTAS = 1u << 0,
  TKRT_WIRE_HAS_GLOBAL_SCRATCH_SIZE = 1u << 1,
  TKRT_WIRE_HAS_GLOBAL_SCRATCH_ALIGN = 1u << 2,
};

typedef struct tkrt_wire_side_record {
  uint32_t present;         /* TKRT_WIRE_HAS_* */
  uint32_t cluster_dims[3]; /* fields 7-9 as written; the public ones are 0 when num_ctas is */
  size_t image_count;       /* the kernel's; source_paths has one entry per image */
  /* Per image: the HSACO path TritonKernel.ptx named (origin HSACO_PATH) or TkrtImage.source_path
   * (origin TKRT_FIELD); NULL when none. */
  const char* const* source_paths;
} tkrt_wire_side_record_t;

/* The record's free function; it also identifies the codec's records (tkrt_kernel_record). */
void tkrt_wire_side_record_free(void* record);

/* The side record of a decoded kernel; NULL for a kernel built in C. */
const tkrt_wire_side_record_t* tkrt_wire_side_record(const tkrt_kernel_t* kernel);

/* The source path of image `index` (see above), or NULL (also when `side` is NULL). */
const char* tkrt_wire_side_source_path(const tkrt_wire_side_record_t* side, size_t index);

#endif /* TKRT_WIRE_INTERNAL_H_ */
