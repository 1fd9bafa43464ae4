/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt host backend: shared declarations for the device, module, stream and pool files.
 * The host backend runs tkrt host kernels (native shared objects) on the CPU like a GPU would. */
#ifndef TKRT_BACKENDS_HOST_HOST_INTERNAL_H_
#define TKRT_BACKENDS_HOST_HOST_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "hal/hal.h"
#include "tkrt/host_kernel.h"

/* Documented device limits (docs/host-backend.md), chosen to match an H100 so that a call that
 * validates here validates on a GPU too. */
#define TKRT_HOST_WARP_SIZE 32u
#define TKRT_HOST_MAX_THREADS_PER_BLOCK 1024u
#define TKRT_HOST_MAX_GRID_X 2147483647u
#define TKRT_HOST_MAX_GRID_YZ 65535u
#define TKRT_HOST_SHARED_DEFAULT (48u * 1024u)
#define TKRT_HOST_SHARED_OPTIN 232448u /* 227 KiB */
#define TKRT_HOST_MAX_CLUSTER 8u
#define TKRT_HOST_MAX_PARAMS 256u
#define TKRT_HOST_MAX_WORKERS 256u

/* ---------------------------------------------------------------- worker pool */

typedef struct tkrt_host_pool tkrt_host_pool_t;
/* Runs body(context, index, participant) for every index in [0, count): on the pool's workers
 * and on the calling thread. participant is in [0, tkrt_host_pool_participants(pool)). */
typedef void (*tkrt_host_pool_body_t)(void* context, uint64_t index, uint32_t participant);

tkrt_status_t tkrt_host_pool_create(uint32_t workers, tkrt_host_pool_t** out_pool);
void tkrt_host_pool_destroy(tkrt_host_pool_t* pool);
uint32_t tkrt_host_pool_participants(const tkrt_host_pool_t* pool);
void tkrt_host_pool_run(tkrt_host_pool_t* pool, uint64_t count, tkrt_host_pool_body_t body,
                        void* context);

/* ---------------------------------------------------------------- device */

typedef struct tkrt_host_stream tkrt_host_stream_t;

typedef struct tkrt_host_device {
  tkrt_device_t base;
  tkrt_host_pool_t* pool;
  tkrt_host_stream_t* default_stream;
  atomic_int capturing_streams; /* like CUDA's global capture mode: no allocation meanwhile */
  pthread_mutex_t streams_lock; /* guards `streams`, every stream of the device */
  tkrt_host_stream_t* streams;
} tkrt_host_device_t;

tkrt_host_device_t* tkrt_host_device_cast(tkrt_device_t* device);

/* Creates the host device (ordinal 0) with options->host_threads workers (host_device.c). */
tkrt_status_t tkrt_host_device_create(const tkrt_hal_backend_t* backend,
                                      const tkrt_device_options_t* options,
                                      tkrt_device_t** out_device);

/* ---------------------------------------------------------------- modules and functions */

typedef struct tkrt_host_function {
  const tkrt_host_kernel_desc_t* desc;
  uint32_t param_count;
  uint32_t param_size[TKRT_HOST_MAX_PARAMS];
  uint32_t param_offset[TKRT_HOST_MAX_PARAMS];
  uint32_t param_bytes; /* size of the packed parameter block */
} tkrt_host_function_t;

/* The device methods (host_backend.c, host_module.c, host_stream.c). */
TKRT_HAL_DECLARE_METHODS(tkrt_host)

/* Parses a Triton-style signature ("*fp32,i32") into parameter sizes and offsets. */
tkrt_status_t tkrt_host_parse_signature(const char* kernel, const char* signature,
                                        tkrt_host_function_t* function);

/* ---------------------------------------------------------------- streams, graphs, events */

#define TKRT_HOST_STREAM_MAGIC 0x7374726dU /* "strm" */
#define TKRT_HOST_EVENT_MAGIC 0x6576656eU  /* "even" */
#define TKRT_HOST_GRAPH_MAGIC 0x67726170U  /* "grap" */

typedef enum tkrt_host_item_kind {
  TKRT_HOST_ITEM_LAUNCH,
  TKRT_HOST_ITEM_MEMSET,
  TKRT_HOST_ITEM_MEMCPY,
  TKRT_HOST_ITEM_EVENT,
} tkrt_host_item_kind_t;

typedef struct tkrt_host_event {
  uint32_t magic;
  tkrt_host_device_t* device;
  pthread_mutex_t lock;
  pthread_cond_t completed_cond;
  uint64_t recorded;  /* records enqueued (or captured and replayed): the latest's sequence */
  uint64_t completed; /* the highest sequence that ran */
  uint64_t pending;   /* records queued on some stream and not run yet (they point here) */
  uint64_t time_ns;   /* when the highest sequence ran, CLOCK_MONOTONIC */
} tkrt_host_event_t;

typedef struct tkrt_host_item {
  struct tkrt_host_item* next;
  tkrt_host_item_kind_t kind;
  size_t bytes; /* allocation size, for cloning into and out of graphs */
  union {
    struct {
      tkrt_host_function_t* function;
      uint32_t grid[3], block[3], cluster[3];
      uint32_t shared_bytes; /* static + dynamic, per program */
    } launch;
    struct {
      unsigned char* dst;
      size_t size;
      uint8_t value;
    } memset;
    struct {
      unsigned char* dst;
      const unsigned char* src;
      size_t size;
    } memcpy;
    struct {
      tkrt_host_event_t* event;
      uint64_t sequence; /* 0 inside a graph: numbered when replayed */
    } event;
  } u;
  _Alignas(16) unsigned char blob[]; /* packed launch parameters */
} tkrt_host_item_t;

typedef struct tkrt_host_graph {
  uint32_t magic;
  tkrt_host_item_t* head;
  tkrt_host_item_t* tail;
} tkrt_host_graph_t;

struct tkrt_host_stream {
  uint32_t magic;
  tkrt_host_device_t* device;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t work; /* an item was queued, or shutdown */
  pthread_cond_t idle; /* the queue drained */
  tkrt_host_item_t* head;
  tkrt_host_item_t* tail;
  bool running;
  bool shutdown;
  tkrt_host_graph_t* capture; /* non-NULL while capturing */
  tkrt_status_t error;        /* sticky asynchronous error, reported by the next synchronize */
  unsigned char* shared_arena; /* per-participant shared memory, owned by the stream thread */
  size_t shared_arena_size;
  tkrt_host_stream_t* device_next;
};

/* host_stream.c: a new work item with `blob_bytes` of packed parameters; queueing it on a stream
 * (or into the graph the stream captures), which takes the item; a stream's sticky error. */
tkrt_host_item_t* tkrt_host_item_new(tkrt_host_item_kind_t kind, size_t blob_bytes);
tkrt_status_t tkrt_host_enqueue(tkrt_device_t* device, tkrt_stream_t handle,
                                tkrt_host_item_t* item);
void tkrt_host_stream_set_error(tkrt_host_stream_t* stream, tkrt_status_t status);
/* host_launch.c: runs a launch item on the device's worker pool (the stream's thread). */
void tkrt_host_execute_launch(tkrt_host_stream_t* stream, tkrt_host_item_t* item);


tkrt_status_t tkrt_host_stream_new(tkrt_host_device_t* device, tkrt_host_stream_t** out_stream);
/* Drains the stream, stops its thread and frees it (and a graph it was capturing). */
void tkrt_host_stream_delete(tkrt_host_stream_t* stream);
/* Waits for every stream of the device (module unload, device destroy). */
void tkrt_host_device_drain(tkrt_host_device_t* device);

#endif /* TKRT_BACKENDS_HOST_HOST_INTERNAL_H_ */
