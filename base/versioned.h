/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: reading the versioned structs of the public API (those that start with struct_size).
 * A caller built against an older, smaller struct passes its own size: only that many bytes are
 * read, and the fields it does not know keep tkrt's defaults. */
#ifndef TKRT_BASE_VERSIONED_H_
#define TKRT_BASE_VERSIONED_H_

#include <stddef.h>
#include <string.h>

#include "tkrt/status.h"

/* Copies the caller's struct (`src`, whose first member is its struct_size) over `dst`, which
 * already holds the defaults, and sets dst's struct_size to the full size. A struct_size smaller
 * than the struct_size member itself means the caller never initialised it. */
static inline tkrt_status_t tkrt_versioned_read(void* dst, size_t dst_size, const void* src,
                                                const char* what) {
  size_t src_size;
  memcpy(&src_size, src, sizeof(src_size));
  if (src_size < sizeof(size_t)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "%s: struct_size is %zu; initialise the struct with its _init "
                            "function (or set struct_size to its sizeof)",
                            what, src_size);
  }
  memcpy(dst, src, src_size < dst_size ? src_size : dst_size);
  memcpy(dst, &dst_size, sizeof(dst_size));
  return NULL;
}

/* For structs where a struct_size of 0 means "this version" (tkrt_image_t, tkrt_launch_params_t,
 * tkrt_backend_info_t: often written with designated initialisers): copies the caller's struct
 * into `dst`, zero-filling fields it does not have. */
static inline tkrt_status_t tkrt_versioned_read_or_current(void* dst, size_t dst_size,
                                                           const void* src, const char* what) {
  size_t src_size;
  memcpy(&src_size, src, sizeof(src_size));
  if (src_size == 0 || src_size == dst_size) {
    memcpy(dst, src, dst_size);
    memcpy(dst, &dst_size, sizeof(dst_size));
    return NULL;
  }
  memset(dst, 0, dst_size);
  return tkrt_versioned_read(dst, dst_size, src, what);
}

/* How many bytes of an output struct the caller has room for: its struct_size (at most ours). */
static inline size_t tkrt_versioned_capacity(const void* out, size_t our_size) {
  size_t caller_size;
  memcpy(&caller_size, out, sizeof(caller_size));
  return caller_size < our_size ? caller_size : our_size;
}

#endif /* TKRT_BASE_VERSIONED_H_ */
