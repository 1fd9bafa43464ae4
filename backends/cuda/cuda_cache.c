/* tkrt CUDA backend: cubin cache files. One file per key, a fixed header (magic, version, sizes,
 * key, payload checksum) and the cubin; every failure is reported to the caller, never fatal. */
#include "backends/cuda/cuda_cache.h"
#include "hal/fs.h"

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

/* Reads exactly `size` bytes; short files are the caller's problem (checked via fstat). */
static int tkrt_cuda_read_all(int fd, void* buffer, size_t size) {
  uint8_t* at = buffer;
  while (size > 0) {
    ssize_t n = read(fd, at, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    at += n;
    size -= (size_t)n;
  }
  return 0;
}

static int tkrt_cuda_write_all(int fd, const void* buffer, size_t size) {
  const uint8_t* at = buffer;
  while (size > 0) {
    ssize_t n = write(fd, at, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    at += n;
    size -= (size_t)n;
  }
  return 0;
}

static void tkrt_cuda_payload_digest(const void* payload, size_t size,
                                     uint8_t digest[TKRT_CUDA_CACHE_DIGEST_SIZE]) {
  tkrt_sha256_t sha;
  tkrt_sha256_init(&sha);
  tkrt_sha256_update(&sha, payload, size);
  tkrt_sha256_final(&sha, digest);
}

tkrt_cuda_cache_result_t tkrt_cuda_cache_read(const char* dir, const tkrt_cuda_cache_key_t* key,
                                              void** out_payload, size_t* out_size, char* why,
                                              size_t why_capacity) {
  tkrt_cuda_cache_result_t result = TKRT_CUDA_CACHE_MISS;
  uint8_t* contents = NULL;
  int fd = -1;
  char path[PATH_MAX];
  tkrt_cuda_cache_why(why, why_capacity, "no entry");
  if (tkrt_cuda_cache_entry_path(dir, key, path, sizeof(path)) != 0) {
    tkrt_cuda_cache_why(why, why_capacity, "cache path too long");
    goto cleanup;
  }
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) tkrt_cuda_cache_why(why, why_capacity, "open: %s", strerror(errno));
    goto cleanup;
  }
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    tkrt_cuda_cache_why(why, why_capacity, "not a regular file");
    goto cleanup;
  }
  result = TKRT_CUDA_CACHE_CORRUPT;
  uint64_t file_size = (uint64_t)info.st_size;
  if (file_size < TKRT_CUDA_CACHE_HEADER_SIZE) {
    tkrt_cuda_cache_why(why, why_capacity, "truncated: %llu bytes, shorter than the header",
                        (unsigned long long)file_size);
    goto cleanup;
  }
  if (file_size - TKRT_CUDA_CACHE_HEADER_SIZE > TKRT_CUDA_CACHE_MAX_PAYLOAD) {
    tkrt_cuda_cache_why(why, why_capacity, "implausibly large: %llu bytes",
                        (unsigned long long)file_size);
    goto cleanup;
  }
  contents = malloc((size_t)file_size);
  if (!contents) {
    result = TKRT_CUDA_CACHE_MISS;
    tkrt_cuda_cache_why(why, why_capacity, "out of host memory");
    goto cleanup;
  }
  if (tkrt_cuda_read_all(fd, contents, (size_t)file_size) != 0) {
    tkrt_cuda_cache_why(why, why_capacity, "short read");
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
  if (fd >= 0) close(fd);
  free(contents);
  if (result == TKRT_CUDA_CACHE_CORRUPT) unlink(path);
  return result;
}

int tkrt_cuda_cache_write(const char* dir, const tkrt_cuda_cache_key_t* key, const void* payload,
                          size_t size, char* why, size_t why_capacity) {
  int result = -1;
  int fd = -1;
  char path[PATH_MAX];
  char temp[PATH_MAX];
  temp[0] = '\0';
  if ((uint64_t)size > TKRT_CUDA_CACHE_MAX_PAYLOAD) {
    tkrt_cuda_cache_why(why, why_capacity, "cubin of %zu bytes is too large to cache", size);
    goto cleanup;
  }
  if (tkrt_cuda_cache_entry_path(dir, key, path, sizeof(path)) != 0 ||
      snprintf(temp, sizeof(temp), "%s/.%s.XXXXXX", dir, key->hex) >= (int)sizeof(temp)) {
    temp[0] = '\0';
    tkrt_cuda_cache_why(why, why_capacity, "cache path too long");
    goto cleanup;
  }
  tkrt_status_t made = tkrt_fs_mkdirs(dir);
  if (made) {
    tkrt_cuda_cache_why(why, why_capacity, "%s", tkrt_status_message(made));
    tkrt_status_free(made);
    temp[0] = '\0';
    goto cleanup;
  }
  fd = mkstemp(temp);
  if (fd < 0) {
    tkrt_cuda_cache_why(why, why_capacity, "mkstemp in %s: %s", dir, strerror(errno));
    temp[0] = '\0';
    goto cleanup;
  }
  /* Entries hold compiled code, nothing private: let other users of a shared folder read them. */
  (void)fchmod(fd, 0644);
  uint8_t header[TKRT_CUDA_CACHE_HEADER_SIZE];
  memcpy(header, TKRT_CUDA_CACHE_MAGIC, 8);
  tkrt_cuda_put_u32(header + 8, TKRT_CUDA_CACHE_FORMAT_VERSION);
  tkrt_cuda_put_u32(header + 12, TKRT_CUDA_CACHE_HEADER_SIZE);
  tkrt_cuda_put_u64(header + 16, (uint64_t)size);
  memcpy(header + 24, key->digest, TKRT_CUDA_CACHE_DIGEST_SIZE);
  tkrt_cuda_payload_digest(payload, size, header + 56);
  if (tkrt_cuda_write_all(fd, header, sizeof(header)) != 0 ||
      tkrt_cuda_write_all(fd, payload, size) != 0) {
    tkrt_cuda_cache_why(why, why_capacity, "write %s: %s", temp, strerror(errno));
    goto cleanup;
  }
  /* fsync before rename: otherwise a crash can leave the new name pointing at empty blocks. */
  if (fsync(fd) != 0) {
    tkrt_cuda_cache_why(why, why_capacity, "fsync %s: %s", temp, strerror(errno));
    goto cleanup;
  }
  int closed = close(fd);
  fd = -1;
  if (closed != 0) {
    tkrt_cuda_cache_why(why, why_capacity, "close %s: %s", temp, strerror(errno));
    goto cleanup;
  }
  if (rename(temp, path) != 0) {
    tkrt_cuda_cache_why(why, why_capacity, "rename to %s: %s", path, strerror(errno));
    goto cleanup;
  }
  temp[0] = '\0';
  result = 0;
  tkrt_cuda_cache_why(why, why_capacity, "stored");

cleanup:
  if (fd >= 0) close(fd);
  if (temp[0]) unlink(temp);
  return result;
}
