/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt wire: the decoder's parsed records, shared by the parser (wire_parse.c: bytes to records, no
 * tkrt objects) and the builder (wire_build.c: records to kernels and calls). */
#ifndef TKRT_WIRE_PARSE_H_
#define TKRT_WIRE_PARSE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tkrt/call.h"
#include "tkrt/status.h"
#include "tkrt/wire.h"

#define TKRT_WIRE_OOM() TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory")

/* The records mirror the protobuf messages, so that libprotobuf's rules fall out of the parser
 * naturally (singular messages merge, scalars overwrite, the last oneof member wins); whether the
 * result makes a valid call is the builder's question. Slices point into the (decompressed)
 * message, which the records own or the caller keeps alive. Offsets are those of the field's
 * value, for the builder's error messages. */

typedef struct tkrt_wp_slice {
  const uint8_t* data;
  size_t size;
  size_t offset;
} tkrt_wp_slice_t;

/* TritonKernel.tkrt_images (field 1000). */
typedef struct tkrt_wp_image {
  tkrt_wp_slice_t backend, arch, data, entry_name, source_path;
  uint64_t kind;
  uint32_t shared_mem_bytes;
  size_t offset;
  bool consumed; /* the builder made its bytes the HSACO_PATH image */
} tkrt_wp_image_t;

typedef struct tkrt_wp_kernel {
  bool present;
  size_t offset;
  tkrt_wp_slice_t name, ptx, ttir;
  uint32_t num_warps, shared_mem_bytes, compute_capability, cluster_dims[3], num_ctas;
  uint32_t global_scratch_size, global_scratch_align, launch_flags;
  uint32_t profile_scratch_size, profile_scratch_align; /* tkrt's fields 1002, 1003 */
  uint32_t hidden_pointers;                             /* tkrt's field 1004 */
  uint32_t present_bits; /* TKRT_WIRE_HAS_* (wire/wire_internal.h): optional fields seen */
  bool has_module;
  size_t module_offset;
  tkrt_wp_slice_t module_object, module_name;
  uint32_t module_shared_mem;
  tkrt_wp_image_t* images;
  size_t image_count, image_capacity;
} tkrt_wp_kernel_t;

typedef struct tkrt_wp_tma {
  uint32_t elem_type, swizzle, oob_fill;
  uint32_t shape_count, strides_count, block_count;
  uint64_t shape[TKRT_TMA_MAX_RANK], strides[TKRT_TMA_MAX_RANK];
  uint32_t block_shape[TKRT_TMA_MAX_RANK];
} tkrt_wp_tma_t;

/* Kept small (32 bytes): an empty Parameter is 2 input bytes. The TMA descriptor (128 bytes) is
 * out of line, so that only TMA parameters pay for it. */
typedef struct tkrt_wp_param {
  uint32_t which;  /* the oneof member set last (a tkrt_param_kind_t), 0: none */
  uint32_t offset; /* messages are at most TKRT_WIRE_MAX_MESSAGE_SIZE bytes */
  uint64_t bits;   /* scalars: the varint or fixed bits; arrays: bytes_to_zero */
  uint64_t ptr_divisibility; /* arrays */
  tkrt_wp_tma_t* tma;        /* TMA: owned, never NULL once which is TKRT_PARAM_TMA */
} tkrt_wp_param_t;

_Static_assert(TKRT_WIRE_MAX_MESSAGE_SIZE <= UINT32_MAX, "tkrt_wp_param_t.offset is 32 bits");

typedef struct tkrt_wp_kcall {
  bool present;
  size_t offset;
  tkrt_wp_kernel_t kernel;
  uint32_t grid[3];
  tkrt_wp_param_t* params;
  size_t param_count, param_capacity;
} tkrt_wp_kcall_t;

typedef struct tkrt_wp_config {
  size_t offset;
  tkrt_wp_kcall_t call;
  tkrt_wp_slice_t description;
} tkrt_wp_config_t;

typedef struct tkrt_wp_autotuned {
  tkrt_wp_slice_t name;
  tkrt_wp_config_t* configs;
  size_t config_count, config_capacity;
  tkrt_alias_t* aliases;
  size_t alias_count, alias_capacity;
} tkrt_wp_autotuned_t;

/* TritonAnyKernelCall, and the message it was parsed from. */
typedef struct tkrt_wp_any {
  uint32_t which; /* TKRT_F_ANY_KERNEL_CALL, TKRT_F_ANY_AUTOTUNED, or 0 */
  tkrt_wp_kcall_t call;
  tkrt_wp_autotuned_t autotuned;
  tkrt_wp_slice_t metadata, name;
  bool has_metadata;
  const char* where;  /* "in the message" or "in the decompressed message", for errors */
  uint8_t* inflated;  /* the decompressed message the slices point into; NULL when raw */
} tkrt_wp_any_t;

/* Parses a blob into `any` (zeroed by the caller): inflated when `format` says so (AUTO: when it
 * starts with a zlib header), at most max_message_size bytes of message, and every repeated record
 * charged to the record budget (TKRT_WIRE_MAX_RECORD_BYTES) with what it will cost built too.
 * Slices of a raw message point into `bytes`, which must outlive `any`. Strings are checked (UTF-8,
 * no NUL where tkrt keeps a C string) but not copied. Errors name the field and offset; `any` must
 * be freed with tkrt_wp_any_free whatever the result. */
tkrt_status_t tkrt_wp_parse(const uint8_t* bytes, size_t size, tkrt_wire_format_t format,
                            size_t max_message_size, tkrt_wp_any_t* any);

void tkrt_wp_any_free(tkrt_wp_any_t* any);

/* Frees the parameters of one call record (the builder drops each config's once it is built). */
void tkrt_wp_params_free(tkrt_wp_kcall_t* call);

/* Grows *array (of element size `size`) to hold one more element, zeroed; NULL when out of
 * memory (the array is unchanged). */
void* tkrt_wp_push(void** array, size_t* count, size_t* capacity, size_t size);

#endif /* TKRT_WIRE_PARSE_H_ */
