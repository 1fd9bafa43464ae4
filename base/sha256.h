/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt: SHA-256 (FIPS 180-4) for content keys: call digests, tuning decisions, cache entries.
 * Not for security; a standard hash keeps keys stable across versions and processes. */
#ifndef TKRT_BASE_SHA256_H_
#define TKRT_BASE_SHA256_H_

#include <stddef.h>
#include <stdint.h>

typedef struct tkrt_sha256 {
  uint32_t state[8];
  uint64_t length; /* bytes hashed so far */
  uint8_t block[64];
  size_t used;
} tkrt_sha256_t;

void tkrt_sha256_init(tkrt_sha256_t* ctx);
void tkrt_sha256_update(tkrt_sha256_t* ctx, const void* data, size_t size);
void tkrt_sha256_final(tkrt_sha256_t* ctx, uint8_t out[32]);
/* Lower-case hex of `size` bytes into out (2*size+1 bytes). */
void tkrt_hex_encode(const uint8_t* bytes, size_t size, char* out);

#endif /* TKRT_BASE_SHA256_H_ */
