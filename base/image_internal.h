/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt base: what the image inspector's format readers share (image_info.c dispatches to
 * image_elf.c, image_ptx.c and image_fatbin.c). Every offset read from the bytes is bounds-checked
 * before use: the bytes are untrusted. */
#ifndef TKRT_BASE_IMAGE_INTERNAL_H_
#define TKRT_BASE_IMAGE_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/image_detect.h"
#include "tkrt/image.h"

#define TKRT_IMAGE_INVALID(...) TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, __VA_ARGS__)

typedef unsigned long long tkrt_ull;

/* True when [offset, offset + length) lies inside an object of `size` bytes (no overflow). */
static inline bool tkrt_image_range_ok(uint64_t size, uint64_t offset, uint64_t length) {
  return offset <= size && length <= size - offset;
}

static inline void tkrt_image_copy(char* dst, size_t capacity, const char* src, size_t length) {
  if (length >= capacity) length = capacity - 1;
  memcpy(dst, src, length);
  dst[length] = '\0';
}

/* True when name[0, length) starts with `prefix`. */
static inline bool tkrt_image_has_prefix(const char* name, size_t length, const char* prefix) {
  size_t n = strlen(prefix);
  return length >= n && memcmp(name, prefix, n) == 0;
}

/* Where kernel names go: the caller's visitor, until it asks to stop. */
typedef struct tkrt_image_sink {
  tkrt_image_kernel_visitor_t visit;
  void* user;
  bool stopped;
} tkrt_image_sink_t;

static inline void tkrt_image_emit(tkrt_image_sink_t* sink, const char* name, size_t length) {
  if (sink->stopped || length == 0) return;
  if (!sink->visit(name, length, sink->user)) sink->stopped = true;
}

/* The format readers: fill `info` (optional: NULL when only names are wanted) and send the kernel
 * names to `sink`. */
tkrt_status_t tkrt_image_elf_walk(const void* data, size_t size, tkrt_image_kind_t kind,
                                  tkrt_image_info_t* info, tkrt_image_sink_t* sink);
tkrt_status_t tkrt_image_ptx_walk(const char* text, size_t size, tkrt_image_info_t* info,
                                  tkrt_image_sink_t* sink);
tkrt_status_t tkrt_image_fatbin_walk(const uint8_t* data, size_t size, tkrt_image_info_t* info);

#endif /* TKRT_BASE_IMAGE_INTERNAL_H_ */
