/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt HAL: a bounded cache of encoded TMA descriptors, for backends whose encoder is host work
 * worth skipping (cuTensorMapEncodeTiled: steady launches of the same tensor encode the same
 * bytes). The encoder is a pure function of the descriptor and the base address, so an entry is
 * keyed by all of them and is never stale: a buffer freed and another allocated at the same
 * address with the same shape has the same descriptor.
 *
 * Set-associative: TKRT_HAL_TMA_CACHE_SETS sets of TKRT_HAL_TMA_CACHE_WAYS entries, each behind a
 * sequence lock. Readers take no lock and never wait: they copy an entry and keep it only if its
 * sequence number was even and unchanged around the copy. A writer claims an entry by moving its
 * sequence number to odd with one compare-and-swap; when another writer holds it, the new
 * descriptor is simply not cached this time. Every word is an atomic (relaxed), so the protocol
 * is free of data races in C11's sense (and under TSan). The backend's device owns one cache. */
#ifndef TKRT_HAL_HAL_TMA_CACHE_H_
#define TKRT_HAL_HAL_TMA_CACHE_H_

#include <stdatomic.h>
#include <stdint.h>

#include "hal/hal.h"

#define TKRT_HAL_TMA_CACHE_SETS 32
#define TKRT_HAL_TMA_CACHE_WAYS 4
/* The key: the descriptor's fields (entries past its rank zeroed) and the base, in 64-bit words:
 * type and swizzle, fill and rank, shape, strides, block shape, base. */
#define TKRT_HAL_TMA_KEY_WORDS (2 + 3 * 5 + 1)
#define TKRT_HAL_TMA_VALUE_WORDS (TKRT_HAL_TMA_DESC_MAX / 8)

typedef struct tkrt_hal_tma_cache_entry {
  atomic_uint_fast64_t sequence; /* even: stable; odd: being written; 0: never written */
  atomic_uint_fast64_t key[TKRT_HAL_TMA_KEY_WORDS];
  atomic_uint_fast64_t value[TKRT_HAL_TMA_VALUE_WORDS];
} tkrt_hal_tma_cache_entry_t;

typedef struct tkrt_hal_tma_cache {
  uint32_t value_size; /* bytes of one encoded descriptor (at most TKRT_HAL_TMA_DESC_MAX) */
  atomic_uint victim[TKRT_HAL_TMA_CACHE_SETS]; /* round-robin replacement within a set */
  /* Calls of the encoder (misses), for tests and logs; hits count nothing, so that steady
   * launches from many threads share no written cache line. */
  atomic_uint_fast64_t encodes;
  tkrt_hal_tma_cache_entry_t entries[TKRT_HAL_TMA_CACHE_SETS * TKRT_HAL_TMA_CACHE_WAYS];
} tkrt_hal_tma_cache_t;

/* The encoder a backend plugs in: encode_tma's contract (hal.h). */
typedef tkrt_status_t (*tkrt_hal_tma_encode_fn)(tkrt_device_t* device,
                                                const tkrt_tma_desc_t* desc,
                                                tkrt_deviceptr_t base, void* out);

/* Empties `cache` for descriptors of `value_size` bytes (<= TKRT_HAL_TMA_DESC_MAX, a multiple
 * of 8). */
void tkrt_hal_tma_cache_init(tkrt_hal_tma_cache_t* cache, uint32_t value_size);

/* Writes the descriptor of (desc, base) into `out` (value_size bytes, 8-byte aligned): the cached
 * bytes, or `encode`'s, which are then cached. An encoder error is returned and nothing is
 * cached. Thread-safe; lock-free. */
tkrt_status_t tkrt_hal_tma_cache_encode(tkrt_hal_tma_cache_t* cache, tkrt_device_t* device,
                                        const tkrt_tma_desc_t* desc, tkrt_deviceptr_t base,
                                        void* out, tkrt_hal_tma_encode_fn encode);

#endif /* TKRT_HAL_HAL_TMA_CACHE_H_ */
