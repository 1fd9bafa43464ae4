/* SPDX-License-Identifier: Apache-2.0 */
/* The encoded TMA descriptor cache (hal/hal_tma_cache.h) with an encoder of its own in place of
 * cuTensorMapEncodeTiled: it writes bytes derived from every input, so a wrong hit shows as wrong
 * bytes, and counts its calls, so a hit shows as no call. No device: the cache never touches it.
 * The threaded case is the TSan preset's check of the sequence locks. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "hal/hal_tma_cache.h"
#include "test/harness.h"
#include "tkrt/call.h"

#define VALUE_SIZE 128

static atomic_int g_encodes;
static atomic_int g_fail_next; /* the next encode fails (once) */

/* 16 words, each a different mix of the inputs the cache must key by (entries past the rank are
 * not inputs: they are ignored here as the real encoder ignores them). */
static void expected_bytes(const tkrt_tma_desc_t* d, tkrt_deviceptr_t base, uint64_t out[16]) {
  uint64_t h = base ^ ((uint64_t)d->elem_type << 8) ^ ((uint64_t)d->swizzle << 16) ^
               ((uint64_t)d->oob_fill << 24) ^ ((uint64_t)d->rank << 32);
  for (uint32_t i = 0; i < d->rank; ++i) {
    h = h * 31 + d->shape[i];
    h = h * 31 + d->strides[i];
    h = h * 31 + d->block_shape[i];
  }
  for (int w = 0; w < 16; ++w) {
    h ^= h >> 29;
    h *= 0x9e3779b97f4a7c15u;
    out[w] = h + (uint64_t)w;
  }
}

static tkrt_status_t fake_encode(tkrt_device_t* device, const struct tkrt_tma_desc* desc,
                                 tkrt_deviceptr_t base, void* out) {
  (void)device;
  int fail = 1;
  if (atomic_compare_exchange_strong(&g_fail_next, &fail, 0)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "fake encode refused base 0x%llx",
                            (unsigned long long)base);
  }
  atomic_fetch_add(&g_encodes, 1);
  uint64_t bytes[16];
  expected_bytes(desc, base, bytes);
  memcpy(out, bytes, VALUE_SIZE);
  return NULL;
}

static tkrt_tma_desc_t desc_2d(uint64_t rows, uint64_t cols) {
  tkrt_tma_desc_t d;
  memset(&d, 0, sizeof(d));
  d.elem_type = 6;
  d.swizzle = 3;
  d.rank = 2;
  d.shape[0] = rows;
  d.shape[1] = cols;
  d.strides[0] = cols;
  d.strides[1] = 1;
  d.block_shape[0] = 64;
  d.block_shape[1] = 64;
  return d;
}

/* One lookup; checks the bytes against the encoder's for the same inputs. */
static void expect_encode(tkrt_hal_tma_cache_t* cache, const tkrt_tma_desc_t* d,
                          tkrt_deviceptr_t base) {
  _Alignas(128) uint64_t got[16];
  uint64_t want[16];
  memset(got, 0xee, sizeof(got));
  EXPECT_OK(tkrt_hal_tma_cache_encode(cache, NULL, d, base, got, fake_encode));
  expected_bytes(d, base, want);
  EXPECT_TRUE(memcmp(got, want, sizeof(want)) == 0);
}

static tkrt_hal_tma_cache_t* new_cache(void) {
  tkrt_hal_tma_cache_t* cache = malloc(sizeof(*cache));
  if (cache) tkrt_hal_tma_cache_init(cache, VALUE_SIZE);
  atomic_store(&g_encodes, 0);
  atomic_store(&g_fail_next, 0);
  return cache;
}

static void test_steady_launches_encode_once(void) {
  tkrt_hal_tma_cache_t* cache = new_cache();
  ASSERT_TRUE(cache != NULL);
  tkrt_tma_desc_t d = desc_2d(512, 256);
  for (int i = 0; i < 5; ++i) expect_encode(cache, &d, 0x10000);
  EXPECT_EQ_U64(atomic_load(&g_encodes), 1);
  EXPECT_EQ_U64(atomic_load(&cache->encodes), 1);
  /* Entries past the rank are not inputs: garbage there is the same descriptor. */
  tkrt_tma_desc_t garbage = d;
  garbage.shape[3] = 7;
  garbage.strides[4] = 9;
  garbage.block_shape[2] = 11;
  expect_encode(cache, &garbage, 0x10000);
  EXPECT_EQ_U64(atomic_load(&g_encodes), 1);
  free(cache);
}

static void test_every_input_is_in_the_key(void) {
  tkrt_hal_tma_cache_t* cache = new_cache();
  ASSERT_TRUE(cache != NULL);
  tkrt_tma_desc_t base = desc_2d(512, 256);
  expect_encode(cache, &base, 0x10000);
  tkrt_tma_desc_t variants[9];
  for (int v = 0; v < 9; ++v) variants[v] = base;
  variants[0].elem_type = 7;
  variants[1].swizzle = 2;
  variants[2].oob_fill = 1;
  variants[3].shape[0] = 513;
  variants[4].shape[1] = 128;
  variants[5].strides[0] = 320;
  variants[6].block_shape[1] = 32;
  variants[7].rank = 3;
  variants[7].shape[2] = 1;
  variants[7].strides[2] = 1;
  variants[7].block_shape[2] = 1;
  variants[8].block_shape[0] = 128;
  for (int v = 0; v < 9; ++v) {
    expect_encode(cache, &variants[v], 0x10000);
    EXPECT_EQ_U64(atomic_load(&g_encodes), 2 + v);
  }
  expect_encode(cache, &base, 0x20000); /* another base */
  EXPECT_EQ_U64(atomic_load(&g_encodes), 11);
  /* All still there (11 keys, 128 entries: unless two sets filled up, which 11 keys cannot). */
  expect_encode(cache, &base, 0x10000);
  for (int v = 0; v < 9; ++v) expect_encode(cache, &variants[v], 0x10000);
  EXPECT_TRUE(atomic_load(&g_encodes) <= 11 + 2);
  free(cache);
}

static void test_encoder_errors_are_returned_and_not_cached(void) {
  tkrt_hal_tma_cache_t* cache = new_cache();
  ASSERT_TRUE(cache != NULL);
  tkrt_tma_desc_t d = desc_2d(64, 64);
  _Alignas(128) uint64_t out[16];
  atomic_store(&g_fail_next, 1);
  EXPECT_STATUS(tkrt_hal_tma_cache_encode(cache, NULL, &d, 0x40000, out, fake_encode),
                TKRT_STATUS_INVALID_ARGUMENT, "fake encode refused base 0x40000");
  EXPECT_EQ_U64(atomic_load(&cache->encodes), 0);
  expect_encode(cache, &d, 0x40000); /* encoded now, not a cached failure */
  EXPECT_EQ_U64(atomic_load(&g_encodes), 1);
  free(cache);
}

static void test_size_is_bounded(void) {
  tkrt_hal_tma_cache_t* cache = new_cache();
  ASSERT_TRUE(cache != NULL);
  enum { capacity = TKRT_HAL_TMA_CACHE_SETS * TKRT_HAL_TMA_CACHE_WAYS, keys = capacity * 4 };
  tkrt_tma_desc_t d = desc_2d(1024, 1024);
  for (int k = 0; k < keys; ++k) expect_encode(cache, &d, 0x100000 + (uint64_t)k * 1024);
  EXPECT_EQ_U64(atomic_load(&g_encodes), keys);
  /* Four times as many keys as entries: at most `capacity` of them can still be held. */
  for (int k = 0; k < keys; ++k) expect_encode(cache, &d, 0x100000 + (uint64_t)k * 1024);
  EXPECT_TRUE(atomic_load(&g_encodes) >= 2 * keys - capacity);
  /* and the newest is held again. */
  int before = atomic_load(&g_encodes);
  expect_encode(cache, &d, 0x100000 + (uint64_t)(keys - 1) * 1024);
  EXPECT_EQ_U64(atomic_load(&g_encodes), before);
  free(cache);
}

typedef struct worker {
  tkrt_hal_tma_cache_t* cache;
  int seed;
  int wrong;
} worker_t;

/* Many threads over more keys than a set holds (so entries are rewritten while others read
 * them): every answer must be the exact bytes of its own key. */
static void* worker_run(void* arg) {
  worker_t* w = arg;
  uint64_t state = (uint64_t)w->seed * 2654435761u + 1;
  for (int i = 0; i < 20000; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    uint64_t k = (state >> 33) % 600;
    tkrt_tma_desc_t d = desc_2d(64 + k % 7, 64);
    tkrt_deviceptr_t base = 0x1000000 + (k / 7) * 4096;
    _Alignas(128) uint64_t got[16];
    uint64_t want[16];
    tkrt_status_t status = tkrt_hal_tma_cache_encode(w->cache, NULL, &d, base, got, fake_encode);
    expected_bytes(&d, base, want);
    if (status || memcmp(got, want, sizeof(want)) != 0) ++w->wrong;
    tkrt_status_free(status);
  }
  return NULL;
}

static void test_concurrent_readers_and_writers(void) {
  tkrt_hal_tma_cache_t* cache = new_cache();
  ASSERT_TRUE(cache != NULL);
  enum { threads = 4 };
  pthread_t ids[threads];
  worker_t workers[threads];
  for (int t = 0; t < threads; ++t) {
    workers[t] = (worker_t){.cache = cache, .seed = t + 1};
    ASSERT_TRUE(pthread_create(&ids[t], NULL, worker_run, &workers[t]) == 0);
  }
  for (int t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
  for (int t = 0; t < threads; ++t) EXPECT_EQ_U64(workers[t].wrong, 0);
  EXPECT_TRUE(atomic_load(&g_encodes) < threads * 20000); /* some hits */
  free(cache);
}

TKRT_TEST_MAIN(TKRT_TEST_CASE(test_steady_launches_encode_once),
               TKRT_TEST_CASE(test_every_input_is_in_the_key),
               TKRT_TEST_CASE(test_encoder_errors_are_returned_and_not_cached),
               TKRT_TEST_CASE(test_size_is_bounded),
               TKRT_TEST_CASE(test_concurrent_readers_and_writers))
