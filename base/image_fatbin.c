/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt base: the fatbin reader of the image inspector: the entries (sm_90a machine code,
 * compute_90 PTX) of a CUDA fat binary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/image_internal.h"


#define TKRT_FATBIN_MAGIC 0xBA55ED50u
#define TKRT_FATBIN_WRAPPER_MAGIC 0x466243B1u

static uint32_t tkrt_le32(const uint8_t* p) {
  return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t tkrt_le64(const uint8_t* p) {
  return (uint64_t)tkrt_le32(p + 4) << 32 | tkrt_le32(p);
}

/* The fatbin container as nvcc 13.0 writes it (checked on fatbins built here): a 16-byte header
 * (u32 magic, u16 version, u16 header size, u64 size of the entries), then entries each with a
 * header (u16 kind: 1 PTX, 2 ELF; u16 version; u32 header size; u64 payload size; ...; u32 SM at
 * +28; u32 flags at +40, where 0x100000 marks an 'a' and 0x200000 an 'f' variant). */
tkrt_status_t tkrt_image_fatbin_walk(const uint8_t* d, size_t size, tkrt_image_info_t* info) {
  if (size < 16) {
    return TKRT_IMAGE_INVALID("truncated fatbin header: %zu bytes, need 16 (at offset 0)", size);
  }
  if (tkrt_le32(d) == TKRT_FATBIN_WRAPPER_MAGIC) {
    /* The wrapper nvcc places in host objects points at the fatbin: nothing to read here. */
    if (info) snprintf(info->target, sizeof(info->target), "fatbin");
    return NULL;
  }
  uint32_t header_size = (uint32_t)d[6] | (uint32_t)d[7] << 8;
  uint64_t body_size = tkrt_le64(d + 8);
  if (header_size < 16 || header_size > size) {
    return TKRT_IMAGE_INVALID("fatbin header size %u at offset 6 is outside 16..%zu", header_size,
                              size);
  }
  if (!tkrt_image_range_ok(size, header_size, body_size)) {
    return TKRT_IMAGE_INVALID("fatbin size %llu at offset 8 runs past the end of the %zu-byte "
                              "image",
                              (tkrt_ull)body_size, size);
  }
  if (info) snprintf(info->target, sizeof(info->target), "fatbin");
  uint64_t end = header_size + body_size;
  uint64_t at = header_size;
  while (at < end) {
    if (end - at < 48) {
      return TKRT_IMAGE_INVALID("truncated fatbin entry header at offset %llu: %llu bytes left, "
                                "need 48",
                                (tkrt_ull)at, (tkrt_ull)(end - at));
    }
    const uint8_t* e = d + at;
    uint32_t kind = (uint32_t)e[0] | (uint32_t)e[1] << 8;
    uint32_t entry_header = tkrt_le32(e + 4);
    uint64_t payload = tkrt_le64(e + 8);
    if (entry_header < 48 || entry_header > end - at) {
      return TKRT_IMAGE_INVALID("fatbin entry at offset %llu has a header size of %u bytes "
                                "(need 48 to %llu)",
                                (tkrt_ull)at, entry_header, (tkrt_ull)(end - at));
    }
    if (payload > end - at - entry_header) {
      return TKRT_IMAGE_INVALID("fatbin entry at offset %llu: its %llu-byte payload runs past "
                                "the end of the fatbin",
                                (tkrt_ull)at, (tkrt_ull)payload);
    }
    uint32_t sm = tkrt_le32(e + 28);
    uint32_t flags = tkrt_le32(e + 40);
    if (info) {
      if (info->fatbin_entry_count < TKRT_IMAGE_FATBIN_ENTRIES_MAX) {
        const char* suffix = (flags & 0x100000u) ? "a" : (flags & 0x200000u) ? "f" : "";
        char* name = info->fatbin_entries[info->fatbin_entry_count];
        if (kind == 1) {
          snprintf(name, TKRT_IMAGE_FATBIN_ENTRY_NAME_MAX, "compute_%u%s", sm, suffix);
        } else if (kind == 2) {
          snprintf(name, TKRT_IMAGE_FATBIN_ENTRY_NAME_MAX, "sm_%u%s", sm, suffix);
        } else {
          snprintf(name, TKRT_IMAGE_FATBIN_ENTRY_NAME_MAX, "kind%u_%u", kind, sm);
        }
      }
      info->fatbin_entry_count++;
    }
    at += entry_header + payload;
  }
  return NULL;
}

