/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt wire: zlib framing of jaxlib blobs. Inflation is bounded so that a tiny blob cannot
 * expand into an unbounded allocation (deflate reaches ratios above 1000:1). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "wire/wire_internal.h"

bool tkrt_wire_is_zlib(const uint8_t* data, size_t size) {
  if (size < 2) return false;
  unsigned cmf = data[0], flg = data[1];
  return (cmf & 0x0f) == 8 && (cmf >> 4) <= 7 && ((cmf << 8) | flg) % 31 == 0;
}

tkrt_status_t tkrt_wire_inflate(const uint8_t* data, size_t size, size_t limit,
                                uint8_t** out_data, size_t* out_size) {
  z_stream stream;
  memset(&stream, 0, sizeof(stream));
  if (inflateInit(&stream) != Z_OK) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED,
                            "zlib inflate failed: inflateInit: out of memory");
  }
  tkrt_status_t status = NULL;
  /* A first guess of 4x, grown by doubling up to the limit. */
  size_t capacity = size <= limit / 4 ? size * 4 + 256 : limit;
  if (capacity > limit) capacity = limit;
  if (capacity == 0) capacity = 1;
  uint8_t* out = malloc(capacity);
  size_t produced = 0;
  if (!out) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
    goto cleanup;
  }
  const uint8_t* in = data;
  size_t in_left = size;
  for (;;) {
    if (produced == capacity) {
      if (capacity >= limit) {
        /* The buffer is full at the limit: the stream may still end here (exactly `limit`
         * bytes) only if inflate reports the end without needing more room. Probe with one
         * byte of scratch. */
        uint8_t probe;
        stream.next_out = &probe;
        stream.avail_out = 1;
        stream.next_in = (Bytef*)(uintptr_t)in;
        stream.avail_in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
        int rc = inflate(&stream, Z_NO_FLUSH);
        in += (size_t)(stream.next_in - (const Bytef*)in);
        in_left = size - (size_t)(in - data);
        if (rc == Z_STREAM_END && stream.avail_out == 1) goto ended;
        if (stream.avail_out == 0) {
          status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                    "zlib inflate failed: the decompressed message exceeds the "
                                    "limit of %zu bytes",
                                    limit);
        } else if (rc == Z_OK || rc == Z_BUF_ERROR) {
          status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                    "zlib inflate failed: truncated stream (the input ends after "
                                    "%zu bytes, before the end of the zlib stream)",
                                    size);
        } else {
          status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "zlib inflate failed: %s",
                                    stream.msg ? stream.msg : "corrupt data");
        }
        goto cleanup;
      }
      size_t grown = capacity > limit / 2 ? limit : capacity * 2;
      uint8_t* bigger = realloc(out, grown);
      if (!bigger) {
        status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
        goto cleanup;
      }
      out = bigger;
      capacity = grown;
    }
    size_t room = capacity - produced;
    stream.next_out = out + produced;
    stream.avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
    stream.next_in = (Bytef*)(uintptr_t)in;
    stream.avail_in = in_left > UINT_MAX ? UINT_MAX : (uInt)in_left;
    uInt avail_out_before = stream.avail_out;
    uInt avail_in_before = stream.avail_in;
    int rc = inflate(&stream, Z_NO_FLUSH);
    produced += avail_out_before - stream.avail_out;
    in += avail_in_before - stream.avail_in;
    in_left -= avail_in_before - stream.avail_in;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR) {
      /* No progress possible: either the output is full (grow and retry) or the input ended
       * before the stream did. */
      if (produced == capacity) continue;
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "zlib inflate failed: truncated stream (the input ends after "
                                "%zu bytes, before the end of the zlib stream)",
                                size);
      goto cleanup;
    }
    if (rc == Z_NEED_DICT) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "zlib inflate failed: the stream needs a preset dictionary");
      goto cleanup;
    }
    if (rc == Z_MEM_ERROR) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "zlib inflate failed: %s",
                                stream.msg ? stream.msg : "out of memory");
      goto cleanup;
    }
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "zlib inflate failed: %s",
                              stream.msg ? stream.msg : "corrupt data");
    goto cleanup;
  }
ended:
  if (in_left != 0) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "zlib inflate failed: %zu trailing bytes after the end of the zlib "
                              "stream at offset %zu of the blob",
                              in_left, size - in_left);
    goto cleanup;
  }
  *out_data = out;
  *out_size = produced;
  out = NULL;

cleanup:
  inflateEnd(&stream);
  free(out);
  return status;
}

tkrt_status_t tkrt_wire_deflate(const uint8_t* data, size_t size, int level, uint8_t** out_data,
                                size_t* out_size) {
  if (size > ULONG_MAX / 2) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "message of %zu bytes is too large",
                            size);
  }
  uLongf bound = compressBound((uLong)size);
  uint8_t* out = malloc(bound ? bound : 1);
  if (!out) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  /* compress2 uses the defaults Python's zlib.compress uses (window 15, memLevel 8), so level -1
   * reproduces jaxlib's blobs byte for byte with the same zlib. */
  int rc = compress2(out, &bound, data, (uLong)size, level);
  if (rc != Z_OK) {
    free(out);
    return TKRT_STATUS_MAKE(rc == Z_MEM_ERROR ? TKRT_STATUS_RESOURCE_EXHAUSTED
                                              : TKRT_STATUS_INTERNAL,
                            "zlib compress failed (%d)", rc);
  }
  *out_data = out;
  *out_size = bound;
  return NULL;
}
