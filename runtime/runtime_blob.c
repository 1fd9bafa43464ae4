/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt runtime: the blob-to-call cache. Insert-only open addressing with atomic slots in segments
 * that never move, and a table from a blob's address to its entry that skips hashing the whole
 * blob on the launch path; everything lock-free. Entries live as long as the runtime. */
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime_internal.h"

static uint64_t tkrt_runtime_mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

/* 8 bytes per step: blobs carry PTX and are tens of KiB. */
static uint64_t tkrt_runtime_hash(const unsigned char* bytes, size_t size) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ size;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w;
    memcpy(&w, bytes + i, 8);
    h = (h ^ (w * 0x87c37b91114253d5ull)) * 0x4cf5ad432745937full;
    h = (h << 31) | (h >> 33);
  }
  uint64_t tail = 0;
  memcpy(&tail, bytes + i, size - i);
  return tkrt_runtime_mix(h ^ tail ^ ((uint64_t)(size - i) << 56));
}

static bool tkrt_runtime_entry_matches(const tkrt_runtime_entry_t* e, uint64_t hash,
                                       const void* bytes, size_t size) {
  return e->hash == hash && e->size == size && memcmp(e->bytes, bytes, size) == 0;
}

static tkrt_runtime_entry_t* tkrt_runtime_cache_find(tkrt_runtime_t* rt, uint64_t hash,
                                                     const void* bytes, size_t size) {
  for (int k = 0; k < TKRT_RUNTIME_SEGMENTS; ++k) {
    tkrt_runtime_segment_t* seg = atomic_load_explicit(&rt->segments[k], memory_order_acquire);
    if (!seg) break;
    for (size_t i = hash & seg->mask;; i = (i + 1) & seg->mask) {
      tkrt_runtime_entry_t* e = atomic_load_explicit(&seg->slots[i], memory_order_acquire);
      if (!e) break;
      if (tkrt_runtime_entry_matches(e, hash, bytes, size)) return e;
    }
  }
  return NULL;
}

static tkrt_runtime_segment_t* tkrt_runtime_segment(tkrt_runtime_t* rt, int k) {
  tkrt_runtime_segment_t* seg = atomic_load_explicit(&rt->segments[k], memory_order_acquire);
  if (seg) return seg;
  size_t slots = (size_t)1 << (TKRT_RUNTIME_SEGMENT_BITS0 + k);
  tkrt_runtime_segment_t* fresh = calloc(1, sizeof(*fresh) + slots * sizeof(fresh->slots[0]));
  if (!fresh) return NULL;
  fresh->mask = slots - 1;
  tkrt_runtime_segment_t* expected = NULL;
  if (atomic_compare_exchange_strong_explicit(&rt->segments[k], &expected, fresh,
                                              memory_order_acq_rel, memory_order_acquire)) {
    return fresh;
  }
  free(fresh); /* another thread opened it first */
  return expected;
}

/* Publishes `entry`, or returns an equal entry that got there first (then the caller frees
 * `entry`). NULL when out of memory or full. */
static tkrt_runtime_entry_t* tkrt_runtime_cache_insert(tkrt_runtime_t* rt,
                                                       tkrt_runtime_entry_t* entry) {
  for (int k = 0; k < TKRT_RUNTIME_SEGMENTS; ++k) {
    tkrt_runtime_segment_t* seg = tkrt_runtime_segment(rt, k);
    if (!seg) return NULL;
    if (atomic_load_explicit(&seg->used, memory_order_relaxed) > (seg->mask + 1) / 2) continue;
    for (size_t i = entry->hash & seg->mask;; i = (i + 1) & seg->mask) {
      tkrt_runtime_entry_t* seen = NULL;
      if (atomic_compare_exchange_strong_explicit(&seg->slots[i], &seen, entry,
                                                  memory_order_acq_rel, memory_order_acquire)) {
        atomic_fetch_add_explicit(&seg->used, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&rt->cache_entries, 1, memory_order_relaxed);
        return entry;
      }
      if (tkrt_runtime_entry_matches(seen, entry->hash, entry->bytes, entry->size)) return seen;
    }
  }
  return NULL;
}

static void tkrt_runtime_entry_free(tkrt_runtime_entry_t* entry) {
  if (!entry) return;
  tkrt_call_release(entry->pub.call);
  free(entry);
}

void tkrt_runtime_entries_free(tkrt_runtime_t* rt) {
  for (int k = 0; k < TKRT_RUNTIME_SEGMENTS; ++k) {
    tkrt_runtime_segment_t* seg = atomic_load(&rt->segments[k]);
    if (!seg) break;
    for (size_t i = 0; i <= seg->mask; ++i) tkrt_runtime_entry_free(atomic_load(&seg->slots[i]));
    free(seg);
  }
  while (rt->adopted) {
    tkrt_runtime_entry_t* next = rt->adopted->adopted_next;
    tkrt_runtime_entry_free(rt->adopted);
    rt->adopted = next;
  }
}

/* Frontends hand over the same blob address on every execution of a call site (XLA's backend
 * config, alive as long as the executable), and many call sites of one program carry the same
 * blob, each at its own address: the address is the key, kept in the slot, within
 * TKRT_RUNTIME_POINTER_PROBE slots of its home slot (the first free one, else the home slot is
 * overwritten). A hit compares the whole blob with the entry's copy (memcmp: about a tenth of
 * hashing it), so it returns only an entry decoded from exactly these bytes: a different blob at
 * a reused address is looked up afresh, and so is a slot read while another thread rewrites it
 * (key and entry are two atomic words): a race costs a full lookup, never a wrong entry. */
static size_t tkrt_runtime_pointer_home(const void* bytes, size_t size) {
  return (size_t)(tkrt_runtime_mix((uint64_t)(uintptr_t)bytes ^ size) % TKRT_RUNTIME_POINTER_SLOTS);
}

static void tkrt_runtime_remember_pointer(tkrt_runtime_t* rt, tkrt_runtime_entry_t* entry,
                                          const void* bytes, size_t size) {
  size_t home = tkrt_runtime_pointer_home(bytes, size);
  tkrt_runtime_pointer_slot_t* slot = &rt->by_pointer[home];
  for (size_t i = 0; i < TKRT_RUNTIME_POINTER_PROBE; ++i) {
    tkrt_runtime_pointer_slot_t* s = &rt->by_pointer[(home + i) % TKRT_RUNTIME_POINTER_SLOTS];
    const void* key = atomic_load_explicit(&s->key, memory_order_relaxed);
    if (key == bytes || key == NULL) {
      slot = s;
      break;
    }
  }
  atomic_store_explicit(&slot->entry, entry, memory_order_release);
  atomic_store_explicit(&slot->key, bytes, memory_order_release);
}

tkrt_status_t tkrt_runtime_entry_describe(tkrt_runtime_entry_t* entry) {
  const tkrt_call_desc_t* desc = tkrt_call_get_desc(entry->pub.call);
  entry->pub.autotuned = desc->config_count > 1;
  for (size_t c = 0; c < desc->config_count; ++c) {
    size_t arrays = 0;
    for (size_t p = 0; p < desc->configs[c].param_count; ++p) {
      tkrt_param_kind_t kind = desc->configs[c].params[p].kind;
      arrays += kind == TKRT_PARAM_ARRAY || kind == TKRT_PARAM_TMA; /* TMA: takes a buffer too */
    }
    if (arrays > entry->pub.array_params) entry->pub.array_params = arrays;
  }
  /* Records name buffers by index into the operands-then-results list; a launch by index must
   * read every buffer they name. Indices far beyond any real call are a broken blob: reading them
   * would walk off the caller's pointer array. */
  entry->pub.indexed_buffers = entry->pub.array_params;
  for (size_t r = 0; r < desc->alias_count; ++r) {
    const tkrt_alias_t* alias = &desc->aliases[r];
    if (alias->input_index >= TKRT_RUNTIME_MAX_ALIAS_INDEX ||
        alias->output_index >= TKRT_RUNTIME_MAX_ALIAS_INDEX) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "alias record %zu names buffers %llu and %llu; custom calls have "
                              "fewer than %d buffers",
                              r, (unsigned long long)alias->input_index,
                              (unsigned long long)alias->output_index, TKRT_RUNTIME_MAX_ALIAS_INDEX);
    }
    size_t highest = (size_t)(alias->input_index > alias->output_index ? alias->input_index
                                                                        : alias->output_index);
    if (highest + 1 > entry->pub.indexed_buffers) entry->pub.indexed_buffers = highest + 1;
  }
  entry->pub.label = desc->name && *desc->name ? desc->name
                     : desc->autotune_name && *desc->autotune_name
                         ? desc->autotune_name
                         : tkrt_kernel_get_desc(desc->configs[0].kernel)->name;
  return NULL;
}

tkrt_status_t tkrt_runtime_call_from_blob(tkrt_runtime_t* rt, const void* bytes, size_t size,
                                          const tkrt_runtime_call_t** out_call) {
  if (!rt || !out_call) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_runtime_call_from_blob: NULL argument");
  }
  if (!bytes || size == 0) {
    /* jaxlib's wording for the same input. */
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "empty blob: the custom call carries no serialized kernel call");
  }
  size_t home = tkrt_runtime_pointer_home(bytes, size);
  for (size_t i = 0; i < TKRT_RUNTIME_POINTER_PROBE; ++i) {
    tkrt_runtime_pointer_slot_t* slot = &rt->by_pointer[(home + i) % TKRT_RUNTIME_POINTER_SLOTS];
    const void* key = atomic_load_explicit(&slot->key, memory_order_acquire);
    if (key == NULL) break; /* keys fill a run of slots from their home slot */
    if (key != bytes) continue;
    tkrt_runtime_entry_t* seen = atomic_load_explicit(&slot->entry, memory_order_acquire);
    if (seen && seen->size == size && memcmp(seen->bytes, bytes, size) == 0) {
      *out_call = &seen->pub;
      return NULL;
    }
    break;
  }
  atomic_fetch_add_explicit(&rt->blob_hashes, 1, memory_order_relaxed);
  uint64_t hash = tkrt_runtime_hash(bytes, size);
  tkrt_runtime_entry_t* found = tkrt_runtime_cache_find(rt, hash, bytes, size);
  if (found) {
    tkrt_runtime_remember_pointer(rt, found, bytes, size);
    *out_call = &found->pub;
    return NULL;
  }
  tkrt_runtime_entry_t* entry = calloc(1, sizeof(*entry) + size);
  if (!entry) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  tkrt_wire_decode_options_t options;
  tkrt_wire_decode_options_init(&options);
  options.format = TKRT_WIRE_FORMAT_ZLIB; /* what jaxlib's custom calls carry */
  tkrt_status_t status = tkrt_wire_decode(bytes, size, &options, &entry->pub.call);
  if (status) {
    free(entry);
    return tkrt_status_annotate(status, "decoding the opaque blob (%zu bytes)", size);
  }
  atomic_fetch_add_explicit(&rt->blobs_decoded, 1, memory_order_relaxed);
  entry->hash = hash;
  entry->size = size;
  memcpy(entry->bytes, bytes, size);
  if ((status = tkrt_runtime_entry_describe(entry))) {
    tkrt_runtime_entry_free(entry);
    return status;
  }
  tkrt_runtime_entry_t* winner = tkrt_runtime_cache_insert(rt, entry);
  if (!winner) {
    tkrt_runtime_entry_free(entry);
    return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED,
                            "the blob cache cannot hold another call (out of host memory)");
  }
  if (winner != entry) tkrt_runtime_entry_free(entry);
  tkrt_runtime_remember_pointer(rt, winner, bytes, size);
  *out_call = &winner->pub;
  return NULL;
}

tkrt_status_t tkrt_runtime_call_adopt(tkrt_runtime_t* rt, tkrt_call_t* call,
                                      const tkrt_runtime_call_t** out_call) {
  if (!rt || !call || !out_call) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_runtime_call_adopt: NULL argument");
  }
  tkrt_runtime_entry_t* entry = calloc(1, sizeof(*entry));
  if (!entry) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  tkrt_call_retain(call);
  entry->pub.call = call;
  tkrt_status_t status = tkrt_runtime_entry_describe(entry);
  if (status) {
    tkrt_runtime_entry_free(entry);
    return status;
  }
  pthread_mutex_lock(&rt->lock);
  entry->adopted_next = rt->adopted;
  rt->adopted = entry;
  pthread_mutex_unlock(&rt->lock);
  *out_call = &entry->pub;
  return NULL;
}
