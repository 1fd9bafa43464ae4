/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt CUDA backend: the on-disk cache of cubins JIT-compiled from PTX. Pure file handling (no
 * driver calls), so tests exercise it without a GPU. */
#ifndef TKRT_BACKENDS_CUDA_CUDA_CACHE_H_
#define TKRT_BACKENDS_CUDA_CUDA_CACHE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sha256.h"

/* Entries live in the folder tkrt_device_options_t.cache_dir names (tkrt_options_from_environment:
 * $TKRT_CACHE_DIR/cubin, or $XDG_CACHE_HOME/tkrt/cubin, else $HOME/.cache/tkrt/cubin); folders are
 * created on first write. */

/* Bumped whenever the entry layout or what a key covers changes; old entries then just miss. */
#define TKRT_CUDA_CACHE_FORMAT_VERSION 1u
#define TKRT_CUDA_CACHE_MAGIC "TKRTCUBN"
#define TKRT_CUDA_CACHE_HEADER_SIZE 88u
/* Entries larger than this are treated as corrupt rather than read into memory. */
#define TKRT_CUDA_CACHE_DIGEST_SIZE 32
#define TKRT_CUDA_CACHE_MAX_PAYLOAD ((uint64_t)1 << 30)

typedef struct tkrt_cuda_cache_key {
  uint8_t digest[TKRT_CUDA_CACHE_DIGEST_SIZE];
  char hex[2 * TKRT_CUDA_CACHE_DIGEST_SIZE + 1];
} tkrt_cuda_cache_key_t;

typedef enum tkrt_cuda_cache_result {
  TKRT_CUDA_CACHE_HIT = 0,
  TKRT_CUDA_CACHE_MISS = 1,    /* no entry, or an entry of another format version */
  TKRT_CUDA_CACHE_CORRUPT = 2, /* an entry failed validation; it was removed */
  /* The folder or the entry is not trusted (another user owns it or can write it, see
   * docs/security.md): the entry is neither used nor removed. */
  TKRT_CUDA_CACHE_UNTRUSTED = 3,
} tkrt_cuda_cache_result_t;

/* The key covers the exact PTX bytes, the compile target ("sm_90a"), the driver version (its JIT
 * is what compiled the entry) and the cache format version. */
void tkrt_cuda_cache_key(const void* ptx, size_t ptx_size, const char* target,
                         int driver_version, tkrt_cuda_cache_key_t* out_key);

/* Reads <dir>/<key>.cubin: never through a symbolic link, never blocking on a FIFO, only a regular
 * file that this user (or root) owns and no other user can write, in a folder of which the same
 * holds (unless TKRT_TRUST_SHARED_STORES=1). HIT: *out_payload is a malloc'd copy of the cubin
 * (the caller frees it) and *out_size its size. The other results leave the out parameters
 * untouched and put the reason into `why` (always NUL-terminated); CORRUPT (which includes a link
 * or a FIFO under the entry's name) removes the bad entry. */
tkrt_cuda_cache_result_t tkrt_cuda_cache_read(const char* dir, bool shared_ok,
                                              const tkrt_cuda_cache_key_t* key,
                                              void** out_payload, size_t* out_size, char* why,
                                              size_t why_capacity);

/* Stores an entry atomically: the folder is created as needed (and must be trusted), the entry is
 * written to a new mkstemp file in the same folder, flushed with fsync and renamed into place, so
 * readers see either no entry or a complete one. Returns 0, or -1 with the reason in `why`. */
int tkrt_cuda_cache_write(const char* dir, bool shared_ok, const tkrt_cuda_cache_key_t* key,
                          const void* payload,
                          size_t size, char* why, size_t why_capacity);

/* Removes an entry (missing is fine). For entries the driver rejects although they validate. */
void tkrt_cuda_cache_remove(const char* dir, const tkrt_cuda_cache_key_t* key);

/* Path of an entry, for logs and tests. Returns 0, or -1 when it does not fit. */
int tkrt_cuda_cache_entry_path(const char* dir, const tkrt_cuda_cache_key_t* key, char* out,
                               size_t capacity);

#endif /* TKRT_BACKENDS_CUDA_CUDA_CACHE_H_ */
