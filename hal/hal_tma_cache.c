/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt HAL: the encoded TMA descriptor cache (hal_tma_cache.h): a set-associative table whose
 * entries are sequence locks, read without locks or waits. */
#include "hal/hal_tma_cache.h"

#include <string.h>

#include "tkrt/tma.h"

_Static_assert(TKRT_HAL_TMA_DESC_MAX % 8 == 0, "descriptors are copied in 64-bit words");
_Static_assert((TKRT_HAL_TMA_CACHE_SETS & (TKRT_HAL_TMA_CACHE_SETS - 1)) == 0,
               "the set count is a power of two");

void tkrt_hal_tma_cache_init(tkrt_hal_tma_cache_t* cache, uint32_t value_size) {
  cache->value_size = value_size;
  atomic_init(&cache->encodes, 0);
  for (size_t s = 0; s < TKRT_HAL_TMA_CACHE_SETS; ++s) atomic_init(&cache->victim[s], 0);
  for (size_t e = 0; e < TKRT_HAL_TMA_CACHE_SETS * TKRT_HAL_TMA_CACHE_WAYS; ++e) {
    tkrt_hal_tma_cache_entry_t* entry = &cache->entries[e];
    atomic_init(&entry->sequence, 0);
    for (size_t w = 0; w < TKRT_HAL_TMA_KEY_WORDS; ++w) atomic_init(&entry->key[w], 0);
    for (size_t w = 0; w < TKRT_HAL_TMA_VALUE_WORDS; ++w) atomic_init(&entry->value[w], 0);
  }
}

/* Every input of the encoder, with the entries past the rank zeroed (callers may leave anything
 * there); the rank is in the key, so descriptors of different ranks never compare equal. */
static void tkrt_tma_key(const tkrt_tma_desc_t* desc, tkrt_deviceptr_t base,
                         uint64_t key[TKRT_HAL_TMA_KEY_WORDS]) {
  memset(key, 0, TKRT_HAL_TMA_KEY_WORDS * sizeof(uint64_t));
  key[0] = (uint64_t)desc->elem_type | (uint64_t)desc->swizzle << 32;
  key[1] = (uint64_t)desc->oob_fill | (uint64_t)desc->rank << 32;
  uint32_t rank = desc->rank < TKRT_TMA_MAX_RANK ? desc->rank : TKRT_TMA_MAX_RANK;
  for (uint32_t i = 0; i < rank; ++i) {
    key[2 + i] = desc->shape[i];
    key[2 + TKRT_TMA_MAX_RANK + i] = desc->strides[i];
    key[2 + 2 * TKRT_TMA_MAX_RANK + i] = desc->block_shape[i];
  }
  key[TKRT_HAL_TMA_KEY_WORDS - 1] = base;
}

static inline uint64_t tkrt_tma_mix(uint64_t h, uint64_t word) {
  h ^= word;
  h *= 0xbf58476d1ce4e5b9u;
  return h ^ (h >> 31);
}

/* The set of a key: a hash of its words up to the rank (those past it are zero in every key of
 * that rank, which the hash includes); lookups still compare every word. */
static size_t tkrt_tma_key_set(const uint64_t key[TKRT_HAL_TMA_KEY_WORDS], uint32_t rank) {
  uint64_t h = 0x9e3779b97f4a7c15u;
  h = tkrt_tma_mix(h, key[0]);
  h = tkrt_tma_mix(h, key[1]);
  for (uint32_t i = 0; i < rank; ++i) {
    h = tkrt_tma_mix(h, key[2 + i]);
    h = tkrt_tma_mix(h, key[2 + TKRT_TMA_MAX_RANK + i]);
    h = tkrt_tma_mix(h, key[2 + 2 * TKRT_TMA_MAX_RANK + i]);
  }
  h = tkrt_tma_mix(h, key[TKRT_HAL_TMA_KEY_WORDS - 1]);
  return (size_t)(h >> 32) & (TKRT_HAL_TMA_CACHE_SETS - 1);
}

/* Copies the entry's value into `out` when it holds `key`: a consistent copy (the sequence was
 * even and did not change around it), else a miss. */
static bool tkrt_tma_entry_read(tkrt_hal_tma_cache_entry_t* entry,
                                const uint64_t key[TKRT_HAL_TMA_KEY_WORDS], uint64_t* out,
                                size_t value_words) {
  uint_fast64_t before = atomic_load_explicit(&entry->sequence, memory_order_acquire);
  if (before == 0 || (before & 1)) return false;
  for (size_t w = 0; w < TKRT_HAL_TMA_KEY_WORDS; ++w) {
    if (atomic_load_explicit(&entry->key[w], memory_order_relaxed) != key[w]) return false;
  }
  for (size_t w = 0; w < value_words; ++w) {
    out[w] = atomic_load_explicit(&entry->value[w], memory_order_relaxed);
  }
  atomic_thread_fence(memory_order_acquire);
  return atomic_load_explicit(&entry->sequence, memory_order_relaxed) == before;
}

/* Stores (key, value) in one way of the set, an empty one first, else round robin; gives up when
 * another writer holds that entry. */
static void tkrt_tma_entry_write(tkrt_hal_tma_cache_t* cache, size_t set,
                                 const uint64_t key[TKRT_HAL_TMA_KEY_WORDS],
                                 const uint64_t* value, size_t value_words) {
  tkrt_hal_tma_cache_entry_t* ways = &cache->entries[set * TKRT_HAL_TMA_CACHE_WAYS];
  tkrt_hal_tma_cache_entry_t* entry = NULL;
  for (size_t w = 0; w < TKRT_HAL_TMA_CACHE_WAYS && !entry; ++w) {
    if (atomic_load_explicit(&ways[w].sequence, memory_order_relaxed) == 0) entry = &ways[w];
  }
  if (!entry) {
    unsigned turn = atomic_fetch_add_explicit(&cache->victim[set], 1, memory_order_relaxed);
    entry = &ways[turn % TKRT_HAL_TMA_CACHE_WAYS];
  }
  uint_fast64_t sequence = atomic_load_explicit(&entry->sequence, memory_order_relaxed);
  if ((sequence & 1) ||
      !atomic_compare_exchange_strong_explicit(&entry->sequence, &sequence, sequence + 1,
                                               memory_order_relaxed, memory_order_relaxed)) {
    return;
  }
  /* Odd before any word changes: a reader that sees a new word sees the odd sequence after. */
  atomic_thread_fence(memory_order_release);
  for (size_t w = 0; w < TKRT_HAL_TMA_KEY_WORDS; ++w) {
    atomic_store_explicit(&entry->key[w], key[w], memory_order_relaxed);
  }
  for (size_t w = 0; w < value_words; ++w) {
    atomic_store_explicit(&entry->value[w], value[w], memory_order_relaxed);
  }
  atomic_store_explicit(&entry->sequence, sequence + 2, memory_order_release);
}

tkrt_status_t tkrt_hal_tma_cache_encode(tkrt_hal_tma_cache_t* cache, tkrt_device_t* device,
                                        const tkrt_tma_desc_t* desc, tkrt_deviceptr_t base,
                                        void* out, tkrt_hal_tma_encode_fn encode) {
  uint64_t key[TKRT_HAL_TMA_KEY_WORDS];
  tkrt_tma_key(desc, base, key);
  size_t set =
      tkrt_tma_key_set(key, desc->rank < TKRT_TMA_MAX_RANK ? desc->rank : TKRT_TMA_MAX_RANK);
  size_t value_words = cache->value_size / 8;
  uint64_t value[TKRT_HAL_TMA_VALUE_WORDS];
  for (size_t w = 0; w < TKRT_HAL_TMA_CACHE_WAYS; ++w) {
    if (tkrt_tma_entry_read(&cache->entries[set * TKRT_HAL_TMA_CACHE_WAYS + w], key, value,
                            value_words)) {
      memcpy(out, value, cache->value_size);
      return NULL;
    }
  }
  TKRT_RETURN_IF_ERROR(encode(device, desc, base, out));
  atomic_fetch_add_explicit(&cache->encodes, 1, memory_order_relaxed);
  memcpy(value, out, cache->value_size);
  tkrt_tma_entry_write(cache, set, key, value, value_words);
  return NULL;
}
