/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt runtime: the object's layout, shared by its settings and devices (runtime.c), its blob
 * cache (runtime_blob.c) and its launch (runtime_launch.c). */
#ifndef TKRT_RUNTIME_INTERNAL_H_
#define TKRT_RUNTIME_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "tkrt/autotune.h"
#include "tkrt/call.h"
#include "tkrt/device.h"
#include "tkrt/environment.h"
#include "tkrt/log.h"
#include "tkrt/runtime.h"
#include "tkrt/settings.h"
#include "tkrt/wire.h"

/* Device keys: key 0 is "the settings' backend list" (backend NULL), the others one backend name
 * each, assigned on first use and never moved. */
#define TKRT_RUNTIME_DEVICE_KEYS 8
/* Blob cache: segment k has 2^(10+k) slots; a new segment opens when the newest is half full, so
 * probes stay short and entries never move while readers hold no lock. */
#define TKRT_RUNTIME_SEGMENTS 16
#define TKRT_RUNTIME_SEGMENT_BITS0 10
#define TKRT_RUNTIME_POINTER_SLOTS 2048
#define TKRT_RUNTIME_POINTER_PROBE 8

/* One cached call: the public part first (a lent tkrt_runtime_call_t* is the entry's address). */
typedef struct tkrt_runtime_entry {
  tkrt_runtime_call_t pub;
  uint64_t hash;
  size_t size;                      /* blob bytes; 0 for adopted calls */
  struct tkrt_runtime_entry* adopted_next;
  unsigned char bytes[];            /* the blob, compared on lookup */
} tkrt_runtime_entry_t;

typedef struct tkrt_runtime_segment {
  size_t mask;
  atomic_size_t used;
  _Atomic(tkrt_runtime_entry_t*) slots[];
} tkrt_runtime_segment_t;

typedef struct tkrt_runtime_pointer_slot {
  _Atomic(const void*) key;
  _Atomic(tkrt_runtime_entry_t*) entry;
} tkrt_runtime_pointer_slot_t;

struct tkrt_runtime_s {
  atomic_int ref_count;
  uint64_t id; /* process-unique: keys the per-thread stream cache */
  /* Settings: written under `lock` while not frozen; read without it once frozen. */
  pthread_mutex_t lock;
  atomic_bool frozen;
  tkrt_device_options_t device;
  tkrt_autotuner_options_t tuner;
  char backend[256], cache_dir[4096], hip_library[1024], store_dir[4096], pins[2048];
  char environment_error[512]; /* why the environment could not be used (default instance) */
  _Atomic(tkrt_autotuner_t*) tuner_object;
  /* Devices: names of keys 1.. (written under `lock` before key_count publishes them). */
  char key_names[TKRT_RUNTIME_DEVICE_KEYS][TKRT_BACKEND_NAME_MAX];
  atomic_int key_count;
  _Atomic(tkrt_device_t*) devices[TKRT_RUNTIME_DEVICE_KEYS][TKRT_RUNTIME_MAX_ORDINALS];
  /* Blob cache and address table. */
  _Atomic(tkrt_runtime_segment_t*) segments[TKRT_RUNTIME_SEGMENTS];
  tkrt_runtime_pointer_slot_t by_pointer[TKRT_RUNTIME_POINTER_SLOTS];
  tkrt_runtime_entry_t* adopted; /* under `lock` */
  /* Counters. */
  atomic_uint_fast64_t devices_opened, blobs_decoded, cache_entries, blob_hashes;
};

/* Fills the derived fields of entry->pub from its call (runtime_blob.c). */
tkrt_status_t tkrt_runtime_entry_describe(tkrt_runtime_entry_t* entry);
/* Frees every cached and adopted entry (runtime_blob.c); the runtime is being destroyed. */
void tkrt_runtime_entries_free(tkrt_runtime_t* runtime);

#endif /* TKRT_RUNTIME_INTERNAL_H_ */
