/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: the layout of kernels and calls, shared by the constructors (call.c), the launch
 * path (call_launch.c) and the autotuner. */
#ifndef TKRT_CORE_CALL_INTERNAL_H_
#define TKRT_CORE_CALL_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>

#include "base/sha256.h"
#include "core/kernel_record.h"
#include "tkrt/autotune.h"
#include "tkrt/call.h"

struct tkrt_kernel_s {
  atomic_int ref_count;
  tkrt_kernel_desc_t desc; /* deep copy; pointers below are owned */
  tkrt_kernel_image_t* images;
  uint8_t digest[TKRT_DIGEST_SIZE];
  /* What the subsystem that made the kernel keeps beside it (the wire codec: what re-encoding
   * needs and what runs does not depend on); NULL for kernels built by C users. Immutable, owned,
   * not in the digest. record_free also says whose record it is. */
  void* record;
  void (*record_free)(void* record);
};

typedef struct tkrt_call_device_state tkrt_call_device_state_t;

struct tkrt_call_s {
  atomic_int ref_count;
  tkrt_call_desc_t desc; /* deep copy */
  tkrt_config_desc_t* configs;
  tkrt_alias_t* aliases;
  uint8_t digest[TKRT_DIGEST_SIZE];
  /* Per-device launch state: an immutable-once-published list, read without locks on the launch
   * path. `prepare_lock` serialises only its creation (first use of the call on a device). */
  _Atomic(tkrt_call_device_state_t*) device_states;
  pthread_mutex_t prepare_lock;
};

/* The call's name for messages: its own, else its first config's kernel's. */
static inline const char* tkrt_call_name(const tkrt_call_t* call) {
  return call->desc.name ? call->desc.name : call->configs[0].kernel->desc.name;
}

/* One config of a call, resolved for one device. */
typedef struct tkrt_config_state {
  tkrt_function_t* function; /* NULL when the config cannot run on this device */
  const tkrt_kernel_image_t* image; /* the image its function came from (runnable configs) */
  tkrt_status_t unrunnable;  /* why not (owned); NULL when runnable */
  tkrt_launch_params_t dims; /* grid (cluster-scaled), block, cluster, shared memory, flags */
  bool empty_grid;           /* a zero grid dimension: launches are no-ops */
  bool dims_fit;             /* dims with a 1-program grid pass tkrt_hal_validate_launch: a
                              * per-launch grid then needs only its own dimensions checked */
  uint64_t scratch_bytes;    /* global scratch this config needs */
  uint64_t profile_bytes;    /* profile scratch this config needs */
  uint32_t tma_count;        /* TMA descriptor parameters (0: the plain launch path) */
  uint32_t cluster[3];       /* what a per-launch grid is scaled by ({1,1,1}: no cluster) */
} tkrt_config_state_t;

/* A grown scratch allocation (per-launch grids that need more than prepare sized): published
 * with one release store, read with one acquire load; never freed before the state, because
 * kernels still queued may use an older one. */
typedef struct tkrt_scratch_block {
  struct tkrt_scratch_block* older;
  tkrt_deviceptr_t allocation;
  tkrt_deviceptr_t ptr;  /* aligned start within allocation */
  uint64_t capacity;     /* bytes usable from ptr */
} tkrt_scratch_block_t;

/* Global or profile scratch of a (call, device): the allocation made at prepare for the configs'
 * own grids (immutable; what launches without a grid callback use) and the newest grown one. */
typedef struct tkrt_scratch {
  tkrt_deviceptr_t allocation;
  tkrt_deviceptr_t ptr;
  uint64_t capacity;
  uint32_t align;
  _Atomic(tkrt_scratch_block_t*) grown; /* NULL until a launch needed more */
} tkrt_scratch_t;

struct tkrt_call_device_state {
  tkrt_call_device_state_t* next;
  tkrt_device_t* device; /* retained */
  tkrt_module_t** modules;
  size_t module_count;
  tkrt_scratch_t scratch; /* global scratch (the first hidden pointer) */
  tkrt_scratch_t profile; /* profile scratch (the second) */
  pthread_mutex_t grow_lock; /* serialises growing either scratch; launches never take it */
  /* The decided config, how it was decided and the tuner that decided it: (tuner id << 32) |
   * (tkrt_tune_source_t << 24) | config, 0 until known. One word, so a launch reads a consistent
   * decision without a lock; another tuner decides anew. Configs beyond 2^24 are refused at
   * call creation. */
  atomic_uint_fast64_t decision;
  size_t config_count;
  tkrt_config_state_t configs[];
};

/* Frees launch state (call_launch.c); called when the call is destroyed. */
void tkrt_call_device_states_free(tkrt_call_t* call);

/* The call's state on the device, NULL when it has none yet; lock-free. */
tkrt_call_device_state_t* tkrt_call_device_state_find(tkrt_call_t* call,
                                                      const tkrt_device_t* device);
/* Finds or creates the call's state on the device (loads modules, allocates scratch). */
tkrt_status_t tkrt_call_device_state_get(tkrt_call_t* call, tkrt_device_t* device,
                                         tkrt_call_device_state_t** out_state);

/* Checks the buffers against config `index` and enqueues its bytes_to_zero memsets and launch.
 * The config must be runnable. */
tkrt_status_t tkrt_call_launch_config(const tkrt_call_t* call,
                                      const tkrt_call_device_state_t* state, size_t index,
                                      const tkrt_call_launch_args_t* args);

/* SHA-256 over config `index` alone: its kernel, grid and parameters (call.c). */
void tkrt_config_digest(const tkrt_call_t* call, size_t index, uint8_t out[TKRT_DIGEST_SIZE]);

#endif /* TKRT_CORE_CALL_INTERNAL_H_ */
