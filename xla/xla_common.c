/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt xla: the shared state of the XLA targets. Everything on the launch path is lock-free:
 * the decode cache is insert-only open addressing with atomic slots, devices sit in an atomic
 * table indexed by ordinal, and the tuner is published once through an atomic pointer. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xla/xla_internal.h"

tkrt_xla_counters_t tkrt_xla_counters;

#define TKRT_XLA_COUNT(name) atomic_fetch_add_explicit(&tkrt_xla_counters.name, 1, memory_order_relaxed)

/* ---------------------------------------------------------------- decode cache */

/* Segment k has 2^(10+k) slots; a new segment opens when the newest is half full, so probes stay
 * short and the table never rehashes (entries cannot move while readers hold no lock). */
#define TKRT_XLA_SEGMENTS 16
#define TKRT_XLA_SEGMENT_BITS0 10

typedef struct tkrt_xla_segment {
  size_t mask;
  atomic_size_t used;
  _Atomic(tkrt_xla_entry_t*) slots[];
} tkrt_xla_segment_t;

static _Atomic(tkrt_xla_segment_t*) tkrt_xla_segments[TKRT_XLA_SEGMENTS];

static uint64_t tkrt_xla_mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

/* 8 bytes per step: blobs carry PTX and are tens of KiB, hashed on every legacy launch. */
static uint64_t tkrt_xla_hash(const unsigned char* bytes, size_t size) {
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
  return tkrt_xla_mix(h ^ tail ^ ((uint64_t)(size - i) << 56));
}

static bool tkrt_xla_entry_matches(const tkrt_xla_entry_t* e, uint64_t hash, const void* bytes,
                                   size_t size) {
  return e->hash == hash && e->size == size && memcmp(e->bytes, bytes, size) == 0;
}

static tkrt_xla_entry_t* tkrt_xla_cache_find(uint64_t hash, const void* bytes, size_t size) {
  for (int k = 0; k < TKRT_XLA_SEGMENTS; ++k) {
    tkrt_xla_segment_t* seg = atomic_load_explicit(&tkrt_xla_segments[k], memory_order_acquire);
    if (!seg) break;
    for (size_t i = hash & seg->mask;; i = (i + 1) & seg->mask) {
      tkrt_xla_entry_t* e = atomic_load_explicit(&seg->slots[i], memory_order_acquire);
      if (!e) break;
      if (tkrt_xla_entry_matches(e, hash, bytes, size)) return e;
    }
  }
  return NULL;
}

static tkrt_xla_segment_t* tkrt_xla_segment(int k) {
  tkrt_xla_segment_t* seg = atomic_load_explicit(&tkrt_xla_segments[k], memory_order_acquire);
  if (seg) return seg;
  size_t slots = (size_t)1 << (TKRT_XLA_SEGMENT_BITS0 + k);
  tkrt_xla_segment_t* fresh = calloc(1, sizeof(*fresh) + slots * sizeof(fresh->slots[0]));
  if (!fresh) return NULL;
  fresh->mask = slots - 1;
  tkrt_xla_segment_t* expected = NULL;
  if (atomic_compare_exchange_strong_explicit(&tkrt_xla_segments[k], &expected, fresh,
                                              memory_order_acq_rel, memory_order_acquire)) {
    return fresh;
  }
  free(fresh); /* another thread opened it first */
  return expected;
}

/* Publishes `entry`, or returns an equal entry that got there first (then `entry` is not
 * published and the caller frees it). NULL when the table is out of memory or full. */
static tkrt_xla_entry_t* tkrt_xla_cache_insert(tkrt_xla_entry_t* entry) {
  for (int k = 0; k < TKRT_XLA_SEGMENTS; ++k) {
    tkrt_xla_segment_t* seg = tkrt_xla_segment(k);
    if (!seg) return NULL;
    if (atomic_load_explicit(&seg->used, memory_order_relaxed) > (seg->mask + 1) / 2) continue;
    for (size_t i = entry->hash & seg->mask;; i = (i + 1) & seg->mask) {
      tkrt_xla_entry_t* seen = NULL;
      if (atomic_compare_exchange_strong_explicit(&seg->slots[i], &seen, entry,
                                                  memory_order_acq_rel, memory_order_acquire)) {
        atomic_fetch_add_explicit(&seg->used, 1, memory_order_relaxed);
        TKRT_XLA_COUNT(cache_entries);
        return entry;
      }
      if (tkrt_xla_entry_matches(seen, entry->hash, entry->bytes, entry->size)) return seen;
    }
  }
  return NULL;
}

static void tkrt_xla_entry_free(tkrt_xla_entry_t* entry) {
  if (!entry) return;
  tkrt_call_release(entry->call);
  free(entry);
}

/* The legacy custom call hands over the same opaque pointer on every execution (it is the
 * instruction's backend config, alive as long as the executable), possibly from several XLA
 * threads; so does the FFI one when XLA ran no instantiate stage. A table from that address to
 * its entry skips hashing the whole blob. The address is the key, kept in the slot: many call
 * sites of one program often carry the same blob (a kernel called in a loop, a chain of layers),
 * each at its own address, and all of them must hit. A key lives in one of TKRT_XLA_POINTER_PROBE
 * slots from its home slot (the first free one, else the home slot is overwritten), so call sites
 * whose addresses share a home slot do not evict each other. A hit compares the whole blob with
 * the entry's copy (memcmp: ~20 ns for a 2.4 KiB blob, about a tenth of hashing it), so it
 * returns only an entry decoded from exactly these bytes: a different blob written at a reused
 * address is looked up afresh, however much of it (size, header, checksum) matches the old one,
 * and so is a slot read while another thread rewrites it (key and entry are two atomic words): a
 * race costs at most a full lookup, never a wrong entry. */
#define TKRT_XLA_POINTER_SLOTS 2048
#define TKRT_XLA_POINTER_PROBE 8

typedef struct tkrt_xla_pointer_slot {
  _Atomic(const void*) key;
  _Atomic(tkrt_xla_entry_t*) entry;
} tkrt_xla_pointer_slot_t;

static tkrt_xla_pointer_slot_t tkrt_xla_by_pointer[TKRT_XLA_POINTER_SLOTS];

static size_t tkrt_xla_pointer_slot(const void* bytes, size_t size) {
  return (size_t)(tkrt_xla_mix((uint64_t)(uintptr_t)bytes ^ size) % TKRT_XLA_POINTER_SLOTS);
}

static void tkrt_xla_remember_pointer(tkrt_xla_entry_t* entry, const void* bytes, size_t size) {
  size_t home = tkrt_xla_pointer_slot(bytes, size);
  tkrt_xla_pointer_slot_t* slot = &tkrt_xla_by_pointer[home];
  for (size_t i = 0; i < TKRT_XLA_POINTER_PROBE; ++i) {
    tkrt_xla_pointer_slot_t* s = &tkrt_xla_by_pointer[(home + i) % TKRT_XLA_POINTER_SLOTS];
    const void* key = atomic_load_explicit(&s->key, memory_order_relaxed);
    if (key == bytes || key == NULL) {
      slot = s;
      break;
    }
  }
  atomic_store_explicit(&slot->entry, entry, memory_order_release);
  atomic_store_explicit(&slot->key, bytes, memory_order_release);
}

tkrt_status_t tkrt_xla_entry_get(const void* bytes, size_t size, tkrt_xla_entry_t** out_entry) {
  if (!bytes || size == 0) {
    /* jaxlib's wording for the same input. */
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "empty blob: the custom call carries no serialized kernel call");
  }
  size_t home = tkrt_xla_pointer_slot(bytes, size);
  for (size_t i = 0; i < TKRT_XLA_POINTER_PROBE; ++i) {
    tkrt_xla_pointer_slot_t* slot = &tkrt_xla_by_pointer[(home + i) % TKRT_XLA_POINTER_SLOTS];
    const void* key = atomic_load_explicit(&slot->key, memory_order_acquire);
    if (key == NULL) break; /* keys fill a run of slots from their home slot */
    if (key != bytes) continue;
    tkrt_xla_entry_t* seen = atomic_load_explicit(&slot->entry, memory_order_acquire);
    if (seen && seen->size == size && memcmp(seen->bytes, bytes, size) == 0) {
      *out_entry = seen;
      return NULL;
    }
    break;
  }
  TKRT_XLA_COUNT(blob_hashes);
  uint64_t hash = tkrt_xla_hash(bytes, size);
  tkrt_xla_entry_t* found = tkrt_xla_cache_find(hash, bytes, size);
  if (found) {
    tkrt_xla_remember_pointer(found, bytes, size);
    *out_entry = found;
    return NULL;
  }
  tkrt_xla_entry_t* entry = calloc(1, sizeof(*entry) + size);
  if (!entry) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  tkrt_wire_decode_options_t options;
  tkrt_wire_decode_options_init(&options);
  options.format = TKRT_WIRE_FORMAT_ZLIB; /* what jaxlib accepts */
  tkrt_status_t status = tkrt_wire_decode(bytes, size, &options, &entry->call);
  if (status) {
    free(entry);
    return tkrt_status_annotate(status, "decoding the opaque blob (%zu bytes)", size);
  }
  TKRT_XLA_COUNT(decoded);
  entry->hash = hash;
  entry->size = size;
  memcpy(entry->bytes, bytes, size);
  const tkrt_call_desc_t* desc = tkrt_call_get_desc(entry->call);
  entry->autotuned = desc->config_count > 1;
  for (size_t c = 0; c < desc->config_count; ++c) {
    size_t arrays = 0;
    for (size_t p = 0; p < desc->configs[c].param_count; ++p) {
      tkrt_param_kind_t kind = desc->configs[c].params[p].kind;
      arrays += kind == TKRT_PARAM_ARRAY || kind == TKRT_PARAM_TMA; /* TMA: consumes a buffer too */
    }
    if (arrays > entry->array_params) entry->array_params = arrays;
  }
  /* Alias records name buffers by index into XLA's operands-then-results list; the legacy target
   * must read every buffer they name. Indices far beyond any real custom call are a broken blob:
   * reading them would walk off XLA's pointer array. */
  entry->legacy_buffers = entry->array_params;
  for (size_t r = 0; r < desc->alias_count; ++r) {
    const tkrt_alias_t* alias = &desc->aliases[r];
    if (alias->input_index >= TKRT_XLA_MAX_ALIAS_INDEX ||
        alias->output_index >= TKRT_XLA_MAX_ALIAS_INDEX) {
      tkrt_xla_entry_free(entry);
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "alias record %zu names buffers %llu and %llu; custom calls have "
                              "fewer than %d buffers",
                              r, (unsigned long long)alias->input_index,
                              (unsigned long long)alias->output_index, TKRT_XLA_MAX_ALIAS_INDEX);
    }
    size_t highest = (size_t)(alias->input_index > alias->output_index ? alias->input_index
                                                                        : alias->output_index);
    if (highest + 1 > entry->legacy_buffers) entry->legacy_buffers = highest + 1;
  }
  entry->label = desc->name && *desc->name ? desc->name
                 : desc->autotune_name && *desc->autotune_name
                     ? desc->autotune_name
                     : tkrt_kernel_get_desc(desc->configs[0].kernel)->name;
  atomic_init(&entry->decided_on, 0);
  atomic_init(&entry->prepared_on, 0);
  tkrt_xla_entry_t* winner = tkrt_xla_cache_insert(entry);
  if (!winner) {
    tkrt_xla_entry_free(entry);
    return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED,
                            "the decode cache cannot hold another call (out of host memory)");
  }
  if (winner != entry) tkrt_xla_entry_free(entry);
  tkrt_xla_remember_pointer(winner, bytes, size);
  *out_entry = winner;
  return NULL;
}

/* ---------------------------------------------------------------- devices */

static _Atomic(tkrt_device_t*) tkrt_xla_devices[TKRT_XLA_MAX_DEVICES];

tkrt_status_t tkrt_xla_device_get(int ordinal, tkrt_device_t** out_device) {
  if (ordinal < 0 || ordinal >= TKRT_XLA_MAX_DEVICES) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE,
                            "device ordinal %d is outside the %d devices tkrt's XLA targets handle",
                            ordinal, TKRT_XLA_MAX_DEVICES);
  }
  tkrt_device_t* device = atomic_load_explicit(&tkrt_xla_devices[ordinal], memory_order_acquire);
  if (device) {
    *out_device = device;
    return NULL;
  }
  /* First use of the ordinal: open outside any lock; a thread that loses the race releases its
   * handle (opening is idempotent: tkrt devices share the driver's primary context). */
  tkrt_device_options_t options = tkrt_xla_settings()->device;
  const char* environment_error = tkrt_xla_settings_error();
  if (environment_error) {
    /* Refused rather than run with settings the user did not ask for. */
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt's settings from the environment: %s",
                            environment_error);
  }
  options.ordinal = ordinal;
  tkrt_device_t* opened = NULL;
  tkrt_status_t status = tkrt_device_open(&options, &opened);
  if (status) return tkrt_status_annotate(status, "opening device %d for XLA", ordinal);
  tkrt_device_t* expected = NULL;
  if (atomic_compare_exchange_strong_explicit(&tkrt_xla_devices[ordinal], &expected, opened,
                                              memory_order_acq_rel, memory_order_acquire)) {
    TKRT_XLA_COUNT(devices_opened);
    *out_device = opened;
  } else {
    tkrt_device_release(opened);
    *out_device = expected;
  }
  return NULL;
}

/* ---------------------------------------------------------------- the autotuner */

static _Atomic(tkrt_autotuner_t*) tkrt_xla_tuner;
static pthread_mutex_t tkrt_xla_tuner_lock = PTHREAD_MUTEX_INITIALIZER;

/* One tuner for the process, created on the first autotuned launch from the settings (see
 * tkrt_xla_configure). */
static tkrt_status_t tkrt_xla_tuner_get(tkrt_autotuner_t** out_tuner) {
  tkrt_autotuner_t* tuner = atomic_load_explicit(&tkrt_xla_tuner, memory_order_acquire);
  if (tuner) {
    *out_tuner = tuner;
    return NULL;
  }
  tkrt_status_t status = NULL;
  pthread_mutex_lock(&tkrt_xla_tuner_lock);
  tuner = atomic_load_explicit(&tkrt_xla_tuner, memory_order_acquire);
  if (!tuner) {
    tkrt_autotuner_options_t options = tkrt_xla_settings()->tuner;
    status = tkrt_autotuner_create(&options, &tuner);
    if (!status) atomic_store_explicit(&tkrt_xla_tuner, tuner, memory_order_release);
  }
  pthread_mutex_unlock(&tkrt_xla_tuner_lock);
  if (status) return tkrt_status_annotate(status, "creating the autotuner");
  *out_tuner = tuner;
  return NULL;
}

/* ---------------------------------------------------------------- launching */

tkrt_status_t tkrt_xla_launch(tkrt_xla_entry_t* entry, tkrt_device_t* device,
                              tkrt_stream_t stream, const tkrt_buffer_t* buffers,
                              size_t input_count, size_t output_count,
                              const tkrt_buffer_t* aliased_inputs, size_t aliased_input_count) {
  tkrt_launch_decision_t decision;
  tkrt_call_launch_args_t args;
  tkrt_call_launch_args_init(&args);
  args.device = device;
  args.stream = stream;
  args.buffers = buffers;
  args.input_count = input_count;
  args.output_count = output_count;
  args.aliased_inputs = aliased_inputs;
  args.aliased_input_count = aliased_input_count;
  if (entry->autotuned) {
    TKRT_RETURN_IF_ERROR(tkrt_xla_tuner_get(&args.tuner));
    args.decision = &decision;
  }
  TKRT_RETURN_IF_ERROR(tkrt_call_launch(entry->call, &args));
  /* The core says what it decided (once per call and device, plus every capture without a
   * decision); the counters follow it. A decision that is not provisional stays cached in the
   * call's state for this device (the process has one tuner and one device per ordinal). */
  if (entry->autotuned && !decision.provisional) {
    int ordinal = tkrt_device_info(device)->ordinal;
    uint_fast64_t bit = (uint_fast64_t)1 << (unsigned)ordinal;
    if (ordinal >= 0 && ordinal < TKRT_XLA_MAX_DEVICES &&
        !(atomic_load_explicit(&entry->decided_on, memory_order_relaxed) & bit)) {
      atomic_fetch_or_explicit(&entry->decided_on, bit, memory_order_relaxed);
    }
  }
  if (entry->autotuned && decision.decided) {
    if (decision.source == TKRT_TUNE_SOURCE_FALLBACK) {
      TKRT_XLA_COUNT(unknown_size_fallbacks);
    } else if (decision.provisional) {
      TKRT_XLA_COUNT(capture_fallbacks);
    } else if (!decision.capturing) {
      TKRT_XLA_COUNT(tuned_in_execute);
    }
  }
  return NULL;
}

/* ---------------------------------------------------------------- legacy device lookup */

/* The last stream this thread asked about: XLA launches on a handful of long-lived streams, and
 * a stream never changes device, so the backends are asked once per stream change, not per
 * launch. */
static _Thread_local void* tkrt_xla_last_stream;
static _Thread_local int tkrt_xla_last_ordinal;

tkrt_status_t tkrt_xla_stream_ordinal(void* stream, int* out_ordinal) {
  if (stream && stream == tkrt_xla_last_stream) {
    *out_ordinal = tkrt_xla_last_ordinal;
    return NULL;
  }
  const tkrt_xla_settings_t* settings = tkrt_xla_settings();
  TKRT_RETURN_IF_ERROR(
      tkrt_native_stream_ordinal(settings->device.backend, (tkrt_stream_t)stream, out_ordinal));
  tkrt_xla_last_stream = stream;
  tkrt_xla_last_ordinal = *out_ordinal;
  return NULL;
}

/* ---------------------------------------------------------------- exported helpers */

void tkrt_xla_get_stats(tkrt_xla_stats_t* stats) {
  if (!stats || stats->struct_size < sizeof(size_t)) return;
  tkrt_xla_stats_t s;
  memset(&s, 0, sizeof(s));
  tkrt_xla_counters_t* c = &tkrt_xla_counters;
  s.struct_size = stats->struct_size < sizeof(s) ? stats->struct_size : sizeof(s);
  s.instantiated = atomic_load(&c->instantiated);
  s.initialized = atomic_load(&c->initialized);
  s.executed = atomic_load(&c->executed);
  s.executed_captured = atomic_load(&c->executed_captured);
  s.legacy_executed = atomic_load(&c->legacy_executed);
  s.decoded = atomic_load(&c->decoded);
  s.cache_entries = atomic_load(&c->cache_entries);
  s.tuned_in_execute = atomic_load(&c->tuned_in_execute);
  s.capture_fallbacks = atomic_load(&c->capture_fallbacks);
  s.errors = atomic_load(&c->errors);
  s.devices_opened = atomic_load(&c->devices_opened);
  s.legacy_status_fallback = atomic_load(&c->legacy_status_fallback);
  s.unknown_size_fallbacks = atomic_load(&c->unknown_size_fallbacks);
  s.blob_hashes = atomic_load(&c->blob_hashes);
  s.prepared = atomic_load(&c->prepared);
  memcpy(stats, &s, s.struct_size);
}

#ifdef TKRT_PROFILE
atomic_uint_fast64_t tkrt_xla_profile_counters[TKRT_XLA_PROF_COUNT];
#endif

size_t tkrt_xla_profile(uint64_t* values, const char** names, size_t capacity,
                        double* ticks_per_us, int reset) {
#ifdef TKRT_PROFILE
  static const char* const kNames[] = {
#define TKRT_XLA_PROFILE_NAME(name) #name,
      TKRT_XLA_PROFILE_STAGES(TKRT_XLA_PROFILE_NAME)
#undef TKRT_XLA_PROFILE_NAME
  };
  return tkrt_profile_read(tkrt_xla_profile_counters, kNames, TKRT_XLA_PROF_COUNT, values, names,
                           capacity, ticks_per_us, reset);
#else
  (void)values, (void)names, (void)capacity, (void)reset;
  if (ticks_per_us) *ticks_per_us = 0;
  return 0;
#endif
}

const char* tkrt_xla_version(void) {
  return "tkrt-xla " TKRT_VERSION_STRING " ffi " "0.4";
}
