/* tkrt CUDA backend: a small SHA-256 (FIPS 180-4) for PTX cache keys and cache entry checksums,
 * so the backend needs no crypto library. Not constant-time; nothing secret is hashed. */
#ifndef TKRT_BACKENDS_CUDA_CUDA_SHA256_H_
#define TKRT_BACKENDS_CUDA_CUDA_SHA256_H_

#include <stddef.h>
#include <stdint.h>

#define TKRT_CUDA_SHA256_SIZE 32

typedef struct tkrt_cuda_sha256 {
  uint32_t state[8];
  uint64_t length; /* bytes absorbed so far */
  uint8_t block[64];
  size_t used; /* bytes waiting in `block` */
} tkrt_cuda_sha256_t;

void tkrt_cuda_sha256_init(tkrt_cuda_sha256_t* sha);
void tkrt_cuda_sha256_update(tkrt_cuda_sha256_t* sha, const void* data, size_t size);
void tkrt_cuda_sha256_final(tkrt_cuda_sha256_t* sha, uint8_t digest[TKRT_CUDA_SHA256_SIZE]);
/* One-shot convenience. */
void tkrt_cuda_sha256(const void* data, size_t size, uint8_t digest[TKRT_CUDA_SHA256_SIZE]);

#endif /* TKRT_BACKENDS_CUDA_CUDA_SHA256_H_ */
