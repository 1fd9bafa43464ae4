/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt CUDA backend: cubin cache files. One file per key, a fixed header (magic, version, sizes,
 * key, payload checksum) and the cubin; every failure is reported to the caller, never fatal. */
#include "backends/cuda/cuda_cache.h"
#include "base/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tkrt/api.h"

/* Header layout, little-endian:
 *   0  magic "TKRTCUBN"          8 bytes
 *   8  format version            u32
 *  12  header size (88)          u32
 *  16  payload size              u64
 *  24  key digest                32 bytes (guards against a file renamed to another key)
 *  56  SHA-256 of the payload    32 bytes
 *  88  payload (the cubin) */
_Static_assert(sizeof(TKRT_CUDA_CACHE_MAGIC) - 1 == 8, "the magic is 8 bytes");
_Static_assert(TKRT_CUDA_CACHE_HEADER_SIZE == 8 + 4 + 4 + 8 + 2 * TKRT_CUDA_CACHE_DIGEST_SIZE,
               "header layout");

static void tkrt_cuda_cache_why(char* why, size_t capacity, const char* format, ...)
    TKRT_PRINTF_LIKE(3, 4);

static void tkrt_cuda_cache_why(char* why, size_t capacity, const char* format, ...) {
  if (!why || capacity == 0) return;
  va_list args;
  va_start(args, format);
  vsnprintf(why, capacity, format, args);
  va_end(args);
}

static void tkrt_cuda_put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> 8 * i);
}

static void tkrt_cuda_put_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (uint8_t)(v >> 8 * i);
}

static uint32_t tkrt_cuda_get_u32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= (uint32_t)p[i] << 8 * i;
  return v;
}

static uint64_t tkrt_cuda_get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= (uint64_t)p[i] << 8 * i;
  return v;
}

void tkrt_cuda_cache_key(const void* ptx, size_t ptx_size, const char* target,
                         int driver_version, tkrt_cuda_cache_key_t* out_key) {
  /* Every variable-length part is length-prefixed, so no two inputs frame to the same bytes. */
  char prefix[128];
  int prefix_size = snprintf(prefix, sizeof(prefix), "tkrt-cubin-cache/%u/%s/%d/",
                             TKRT_CUDA_CACHE_FORMAT_VERSION, target ? target : "", driver_version);
  if (prefix_size < 0) prefix_size = 0;
  if ((size_t)prefix_size >= sizeof(prefix)) prefix_size = (int)sizeof(prefix) - 1;
  uint8_t lengths[16];
  tkrt_cuda_put_u64(lengths, (uint64_t)prefix_size);
  tkrt_cuda_put_u64(lengths + 8, (uint64_t)ptx_size);
  tkrt_sha256_t sha;
  tkrt_sha256_init(&sha);
  tkrt_sha256_update(&sha, lengths, sizeof(lengths));
  tkrt_sha256_update(&sha, prefix, (size_t)prefix_size);
  tkrt_sha256_update(&sha, ptx, ptx_size);
  tkrt_sha256_final(&sha, out_key->digest);
  tkrt_hex_encode(out_key->digest, sizeof(out_key->digest), out_key->hex);
}

int tkrt_cuda_cache_entry_path(const char* dir, const tkrt_cuda_cache_key_t* key, char* out,
                               size_t capacity) {
  int written = snprintf(out, capacity, "%s/%s.cubin", dir, key->hex);
  return written < 0 || (size_t)written >= capacity ? -1 : 0;
}

void tkrt_cuda_cache_remove(const char* dir, const tkrt_cuda_cache_key_t* key) {
  char path[PATH_MAX];
  if (tkrt_cuda_cache_entry_path(dir, key, path, sizeof(path)) == 0) unlink(path);
}

static void tkrt_cuda_payload_digest(const void* payload, size_t size,
                                     uint8_t digest[TKRT_CUDA_CACHE_DIGEST_SIZE]) {
  tkrt_sha256_t sha;
  tkrt_sha256_init(&sha);
  tkrt_sha256_update(&sha, payload, size);
  tkrt_sha256_final(&sha, digest);
}

tkrt_cuda_cache_result_t tkrt_cuda_cache_read(const char* dir, bool shared_ok,
                                              const tkrt_cuda_cache_key_t* key,
                                              void** out_payload, size_t* out_size, char* why,
                                              size_t why_capacity) {
  tkrt_cuda_cache_result_t result = TKRT_CUDA_CACHE_MISS;
  uint8_t* contents = NULL;
  size_t file_size = 0;
  int dir_fd = -1;
  char path[PATH_MAX], name[2 * TKRT_CUDA_CACHE_DIGEST_SIZE + 8];
  tkrt_cuda_cache_why(why, why_capacity, "no entry");
  snprintf(name, sizeof(name), "%s.cubin", key->hex);
  if (tkrt_cuda_cache_entry_path(dir, key, path, sizeof(path)) != 0) {
    tkrt_cuda_cache_why(why, why_capacity, "cache path too long");
    goto cleanup;
  }
  tkrt_status_t status = tkrt_fs_open_trusted_dir(dir, shared_ok, &dir_fd);
  if (!status) {
    status = tkrt_fs_read_file_at(dir_fd, name, path,
                                  TKRT_CUDA_CACHE_HEADER_SIZE + TKRT_CUDA_CACHE_MAX_PAYLOAD,
                                  TKRT_FS_READ_NOFOLLOW | TKRT_FS_READ_TRUSTED |
                                      (shared_ok ? TKRT_FS_READ_SHARED_OK : 0u),
                                  (void**)&contents, &file_size);
  }
  if (status) {
    tkrt_status_code_t code = tkrt_status_code(status);
    if (code != TKRT_STATUS_NOT_FOUND) {
      tkrt_cuda_cache_why(why, why_capacity, "%s", tkrt_status_message(status));
    }
    if (code == TKRT_STATUS_PERMISSION_DENIED) {
      /* The folder or the entry is not trusted (or not readable): neither used nor removed. */
      result = TKRT_CUDA_CACHE_UNTRUSTED;
    } else if (code == TKRT_STATUS_FAILED_PRECONDITION || code == TKRT_STATUS_INVALID_ARGUMENT ||
               code == TKRT_STATUS_OUT_OF_RANGE) {
      result = dir_fd >= 0 ? TKRT_CUDA_CACHE_CORRUPT : TKRT_CUDA_CACHE_MISS;
    }
    tkrt_status_free(status);
    goto cleanup;
  }
  result = TKRT_CUDA_CACHE_CORRUPT;
  if (file_size < TKRT_CUDA_CACHE_HEADER_SIZE) {
    tkrt_cuda_cache_why(why, why_capacity, "truncated: %llu bytes, shorter than the header",
                        (unsigned long long)file_size);
    goto cleanup;
  }
  if (memcmp(contents, TKRT_CUDA_CACHE_MAGIC, 8) != 0) {
    tkrt_cuda_cache_why(why, why_capacity, "bad magic");
    goto cleanup;
  }
  uint32_t version = tkrt_cuda_get_u32(contents + 8);
  if (version != TKRT_CUDA_CACHE_FORMAT_VERSION) {
    /* Another tkrt version's entry, not damage: it is simply replaced. */
    result = TKRT_CUDA_CACHE_MISS;
    tkrt_cuda_cache_why(why, why_capacity, "entry of format version %u", version);
    goto cleanup;
  }
  uint32_t header_size = tkrt_cuda_get_u32(contents + 12);
  uint64_t payload_size = tkrt_cuda_get_u64(contents + 16);
  if (header_size != TKRT_CUDA_CACHE_HEADER_SIZE ||
      payload_size != file_size - TKRT_CUDA_CACHE_HEADER_SIZE) {
    tkrt_cuda_cache_why(why, why_capacity,
                        "size mismatch: header says %u + %llu bytes, file has %llu", header_size,
                        (unsigned long long)payload_size, (unsigned long long)file_size);
    goto cleanup;
  }
  if (memcmp(contents + 24, key->digest, TKRT_CUDA_CACHE_DIGEST_SIZE) != 0) {
    tkrt_cuda_cache_why(why, why_capacity, "the entry belongs to another key");
    goto cleanup;
  }
  uint8_t checksum[TKRT_CUDA_CACHE_DIGEST_SIZE];
  tkrt_cuda_payload_digest(contents + TKRT_CUDA_CACHE_HEADER_SIZE, (size_t)payload_size, checksum);
  if (memcmp(contents + 56, checksum, TKRT_CUDA_CACHE_DIGEST_SIZE) != 0) {
    tkrt_cuda_cache_why(why, why_capacity, "payload checksum mismatch");
    goto cleanup;
  }
  memmove(contents, contents + TKRT_CUDA_CACHE_HEADER_SIZE, (size_t)payload_size);
  *out_payload = contents;
  *out_size = (size_t)payload_size;
  contents = NULL;
  result = TKRT_CUDA_CACHE_HIT;
  tkrt_cuda_cache_why(why, why_capacity, "hit");

cleanup:
  free(contents);
  /* unlinkat in the folder we checked: removes a planted link or FIFO itself, not its target. */
  if (result == TKRT_CUDA_CACHE_CORRUPT && dir_fd >= 0) unlinkat(dir_fd, name, 0);
  if (dir_fd >= 0) close(dir_fd);
  return result;
}

int tkrt_cuda_cache_write(const char* dir, bool shared_ok, const tkrt_cuda_cache_key_t* key,
                          const void* payload,
                          size_t size, char* why, size_t why_capacity) {
  if ((uint64_t)size > TKRT_CUDA_CACHE_MAX_PAYLOAD) {
    tkrt_cuda_cache_why(why, why_capacity, "cubin of %zu bytes is too large to cache", size);
    return -1;
  }
  char path[PATH_MAX], name[2 * TKRT_CUDA_CACHE_DIGEST_SIZE + 8];
  snprintf(name, sizeof(name), "%s.cubin", key->hex);
  if (tkrt_cuda_cache_entry_path(dir, key, path, sizeof(path)) != 0) {
    tkrt_cuda_cache_why(why, why_capacity, "cache path too long");
    return -1;
  }
  tkrt_status_t status = tkrt_fs_mkdirs(dir);
  int dir_fd = -1;
  if (!status) status = tkrt_fs_open_trusted_dir(dir, shared_ok, &dir_fd);
  if (!status) {
    close(dir_fd);
    uint8_t header[TKRT_CUDA_CACHE_HEADER_SIZE];
    memcpy(header, TKRT_CUDA_CACHE_MAGIC, 8);
    tkrt_cuda_put_u32(header + 8, TKRT_CUDA_CACHE_FORMAT_VERSION);
    tkrt_cuda_put_u32(header + 12, TKRT_CUDA_CACHE_HEADER_SIZE);
    tkrt_cuda_put_u64(header + 16, (uint64_t)size);
    memcpy(header + 24, key->digest, TKRT_CUDA_CACHE_DIGEST_SIZE);
    tkrt_cuda_payload_digest(payload, size, header + 56);
    const tkrt_fs_piece_t pieces[2] = {{header, sizeof(header)}, {payload, size}};
    /* Entries hold compiled code, nothing private: other users of a shared folder may read
     * them (and will use them only when they opt in to trusting it). */
    status = tkrt_fs_write_file_atomic(dir, name, pieces, 2, 0644);
  }
  if (status) {
    tkrt_cuda_cache_why(why, why_capacity, "%s", tkrt_status_message(status));
    tkrt_status_free(status);
    return -1;
  }
  tkrt_cuda_cache_why(why, why_capacity, "stored");
  return 0;
}
