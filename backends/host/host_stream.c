/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt host backend: in-order streams (one thread each) running queued work items (launches, see
 * host_launch.c; memsets, copies, event records), events with real timestamps, and stream capture
 * into replayable graphs. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/host/host_internal.h"


static uint64_t tkrt_host_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---------------------------------------------------------------- handles */

/* A handle is looked up among the device's live streams, never dereferenced first: callers (the
 * Python package, a foreign framework's stream) can pass any integer, or a destroyed stream's. */
static tkrt_status_t tkrt_host_stream_resolve(tkrt_device_t* device, tkrt_stream_t handle,
                                              tkrt_host_stream_t** out_stream) {
  tkrt_host_device_t* host = tkrt_host_device_cast(device);
  if (!handle) {
    *out_stream = host->default_stream;
    return NULL;
  }
  tkrt_host_stream_t* found = NULL;
  pthread_mutex_lock(&host->streams_lock);
  for (tkrt_host_stream_t* stream = host->streams; stream; stream = stream->device_next) {
    if ((tkrt_stream_t)stream == handle) {
      found = stream;
      break;
    }
  }
  pthread_mutex_unlock(&host->streams_lock);
  if (!found) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "stream %p (%ju) is not a live stream of this host device (one it "
                            "created and did not destroy; 0 is the default stream)",
                            (void*)handle, (uintmax_t)(uintptr_t)handle);
  }
  *out_stream = found;
  return NULL;
}

static tkrt_status_t tkrt_host_event_resolve(tkrt_device_t* device, tkrt_event_t handle,
                                             tkrt_host_event_t** out_event) {
  tkrt_host_event_t* event = (tkrt_host_event_t*)handle;
  if (event->magic != TKRT_HOST_EVENT_MAGIC || event->device != tkrt_host_device_cast(device)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "event %p is not a live event of this host device", (void*)handle);
  }
  *out_event = event;
  return NULL;
}

/* ---------------------------------------------------------------- execution */

void tkrt_host_stream_set_error(tkrt_host_stream_t* stream, tkrt_status_t status) {
  pthread_mutex_lock(&stream->lock);
  if (!stream->error) {
    stream->error = status;
  } else {
    tkrt_status_free(status);
  }
  pthread_mutex_unlock(&stream->lock);
}

static void tkrt_host_execute(tkrt_host_stream_t* stream, tkrt_host_item_t* item) {
  switch (item->kind) {
    case TKRT_HOST_ITEM_LAUNCH: tkrt_host_execute_launch(stream, item); break;
    case TKRT_HOST_ITEM_MEMSET:
      memset(item->u.memset.dst, item->u.memset.value, item->u.memset.size);
      break;
    case TKRT_HOST_ITEM_MEMCPY:
      memmove(item->u.memcpy.dst, item->u.memcpy.src, item->u.memcpy.size);
      break;
    case TKRT_HOST_ITEM_EVENT: {
      tkrt_host_event_t* event = item->u.event.event;
      pthread_mutex_lock(&event->lock);
      /* Records on several streams may run out of order: only the newest one sets the time. */
      if (item->u.event.sequence > event->completed) {
        event->completed = item->u.event.sequence;
        event->time_ns = tkrt_host_now_ns();
      }
      --event->pending;
      pthread_cond_broadcast(&event->completed_cond);
      pthread_mutex_unlock(&event->lock);
      break;
    }
  }
}

static void* tkrt_host_stream_main(void* raw) {
  tkrt_host_stream_t* stream = raw;
  pthread_mutex_lock(&stream->lock);
  for (;;) {
    while (!stream->head && !stream->shutdown) pthread_cond_wait(&stream->work, &stream->lock);
    if (!stream->head) break; /* shutdown with nothing left to run */
    tkrt_host_item_t* item = stream->head;
    stream->head = item->next;
    if (!stream->head) stream->tail = NULL;
    stream->running = true;
    pthread_mutex_unlock(&stream->lock);
    tkrt_host_execute(stream, item);
    free(item);
    pthread_mutex_lock(&stream->lock);
    stream->running = false;
    if (!stream->head) pthread_cond_broadcast(&stream->idle);
  }
  pthread_mutex_unlock(&stream->lock);
  return NULL;
}

/* ---------------------------------------------------------------- enqueueing */

tkrt_host_item_t* tkrt_host_item_new(tkrt_host_item_kind_t kind, size_t blob_bytes) {
  size_t bytes = sizeof(tkrt_host_item_t) + blob_bytes;
  tkrt_host_item_t* item = calloc(1, bytes);
  if (item) {
    item->kind = kind;
    item->bytes = bytes;
  }
  return item;
}

static tkrt_host_item_t* tkrt_host_item_clone(const tkrt_host_item_t* item) {
  tkrt_host_item_t* copy = malloc(item->bytes);
  if (copy) {
    memcpy(copy, item, item->bytes);
    copy->next = NULL;
  }
  return copy;
}

static void tkrt_host_items_free(tkrt_host_item_t* item) {
  while (item) {
    tkrt_host_item_t* next = item->next;
    free(item);
    item = next;
  }
}

/* Appends a chain of items to the stream's queue or, while capturing, to the graph. Event
 * records get their sequence numbers here, in the order the stream will run them. */
static void tkrt_host_stream_push_locked(tkrt_host_stream_t* stream, tkrt_host_item_t* first,
                                         tkrt_host_item_t* last) {
  if (stream->capture) {
    tkrt_host_graph_t* graph = stream->capture;
    if (graph->tail) {
      graph->tail->next = first;
    } else {
      graph->head = first;
    }
    graph->tail = last;
    return;
  }
  for (tkrt_host_item_t* item = first; item; item = item->next) {
    if (item->kind == TKRT_HOST_ITEM_EVENT) {
      tkrt_host_event_t* event = item->u.event.event;
      pthread_mutex_lock(&event->lock);
      item->u.event.sequence = ++event->recorded;
      ++event->pending;
      pthread_mutex_unlock(&event->lock);
    }
  }
  if (stream->tail) {
    stream->tail->next = first;
  } else {
    stream->head = first;
  }
  stream->tail = last;
  pthread_cond_signal(&stream->work);
}

tkrt_status_t tkrt_host_enqueue(tkrt_device_t* device, tkrt_stream_t handle,
                                       tkrt_host_item_t* item) {
  tkrt_host_stream_t* stream = NULL;
  tkrt_status_t status = tkrt_host_stream_resolve(device, handle, &stream);
  if (status) {
    free(item);
    return status;
  }
  pthread_mutex_lock(&stream->lock);
  tkrt_host_stream_push_locked(stream, item, item);
  pthread_mutex_unlock(&stream->lock);
  return NULL;
}

tkrt_status_t tkrt_host_memset_async(tkrt_device_t* device, tkrt_deviceptr_t dst, uint8_t value,
                                     size_t size, tkrt_stream_t stream) {
  tkrt_host_item_t* item = tkrt_host_item_new(TKRT_HOST_ITEM_MEMSET, 0);
  if (!item) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  item->u.memset.dst = (unsigned char*)(uintptr_t)dst;
  item->u.memset.size = size;
  item->u.memset.value = value;
  return tkrt_host_enqueue(device, stream, item);
}

tkrt_status_t tkrt_host_memcpy_async(tkrt_device_t* device, uint64_t dst, uint64_t src,
                                     size_t size, tkrt_hal_memcpy_kind_t kind,
                                     tkrt_stream_t stream) {
  (void)kind; /* host and "device" memory are the same memory */
  tkrt_host_item_t* item = tkrt_host_item_new(TKRT_HOST_ITEM_MEMCPY, 0);
  if (!item) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  item->u.memcpy.dst = (unsigned char*)(uintptr_t)dst;
  item->u.memcpy.src = (const unsigned char*)(uintptr_t)src;
  item->u.memcpy.size = size;
  return tkrt_host_enqueue(device, stream, item);
}

/* ---------------------------------------------------------------- streams */

tkrt_status_t tkrt_host_stream_new(tkrt_host_device_t* device, tkrt_host_stream_t** out_stream) {
  tkrt_host_stream_t* stream = calloc(1, sizeof(*stream));
  if (!stream) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  stream->magic = TKRT_HOST_STREAM_MAGIC;
  stream->device = device;
  pthread_mutex_init(&stream->lock, NULL);
  pthread_cond_init(&stream->work, NULL);
  pthread_cond_init(&stream->idle, NULL);
  int error = pthread_create(&stream->thread, NULL, tkrt_host_stream_main, stream);
  if (error != 0) {
    pthread_cond_destroy(&stream->idle);
    pthread_cond_destroy(&stream->work);
    pthread_mutex_destroy(&stream->lock);
    free(stream);
    return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED,
                            "could not start the host stream thread (error %d)", error);
  }
  pthread_mutex_lock(&device->streams_lock);
  stream->device_next = device->streams;
  device->streams = stream;
  pthread_mutex_unlock(&device->streams_lock);
  *out_stream = stream;
  return NULL;
}

static void tkrt_host_stream_wait_idle_locked(tkrt_host_stream_t* stream) {
  while (stream->head || stream->running) pthread_cond_wait(&stream->idle, &stream->lock);
}

void tkrt_host_stream_delete(tkrt_host_stream_t* stream) {
  tkrt_host_device_t* device = stream->device;
  pthread_mutex_lock(&device->streams_lock);
  for (tkrt_host_stream_t** link = &device->streams; *link; link = &(*link)->device_next) {
    if (*link == stream) {
      *link = stream->device_next;
      break;
    }
  }
  pthread_mutex_unlock(&device->streams_lock);
  pthread_mutex_lock(&stream->lock);
  stream->shutdown = true; /* the thread runs what is queued, then exits */
  pthread_cond_signal(&stream->work);
  pthread_mutex_unlock(&stream->lock);
  pthread_join(stream->thread, NULL);
  if (stream->capture) {
    tkrt_host_items_free(stream->capture->head);
    free(stream->capture);
    atomic_fetch_sub(&device->capturing_streams, 1);
  }
  tkrt_status_free(stream->error);
  free(stream->shared_arena);
  stream->magic = 0;
  pthread_cond_destroy(&stream->idle);
  pthread_cond_destroy(&stream->work);
  pthread_mutex_destroy(&stream->lock);
  free(stream);
}

void tkrt_host_device_drain(tkrt_host_device_t* device) {
  pthread_mutex_lock(&device->streams_lock);
  for (tkrt_host_stream_t* stream = device->streams; stream; stream = stream->device_next) {
    pthread_mutex_lock(&stream->lock);
    tkrt_host_stream_wait_idle_locked(stream);
    pthread_mutex_unlock(&stream->lock);
  }
  pthread_mutex_unlock(&device->streams_lock);
}

tkrt_status_t tkrt_host_stream_create(tkrt_device_t* device, tkrt_stream_t* out_stream) {
  tkrt_host_stream_t* stream = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_host_stream_new(tkrt_host_device_cast(device), &stream));
  *out_stream = (tkrt_stream_t)stream;
  return NULL;
}

tkrt_status_t tkrt_host_stream_destroy(tkrt_device_t* device, tkrt_stream_t handle) {
  tkrt_host_stream_t* stream = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_host_stream_resolve(device, handle, &stream));
  if (stream == tkrt_host_device_cast(device)->default_stream) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "the default stream cannot be destroyed");
  }
  tkrt_host_stream_delete(stream);
  return NULL;
}

tkrt_status_t tkrt_host_stream_synchronize(tkrt_device_t* device, tkrt_stream_t handle) {
  tkrt_host_stream_t* stream = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_host_stream_resolve(device, handle, &stream));
  pthread_mutex_lock(&stream->lock);
  if (stream->capture) {
    pthread_mutex_unlock(&stream->lock);
    return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                            "cannot synchronize a stream that is capturing");
  }
  tkrt_host_stream_wait_idle_locked(stream);
  tkrt_status_t error = stream->error;
  stream->error = NULL;
  pthread_mutex_unlock(&stream->lock);
  return error;
}

/* Every stream of the device (the default one is among them): idle, and its first deferred
 * error, as a stream synchronize reports it. */
tkrt_status_t tkrt_host_device_synchronize(tkrt_device_t* base) {
  tkrt_host_device_t* device = tkrt_host_device_cast(base);
  tkrt_status_t first = NULL;
  pthread_mutex_lock(&device->streams_lock);
  for (tkrt_host_stream_t* stream = device->streams; stream; stream = stream->device_next) {
    pthread_mutex_lock(&stream->lock);
    if (!stream->capture) {
      tkrt_host_stream_wait_idle_locked(stream);
      if (stream->error && !first) {
        first = stream->error;
        stream->error = NULL;
      }
    }
    pthread_mutex_unlock(&stream->lock);
  }
  pthread_mutex_unlock(&device->streams_lock);
  return first;
}

tkrt_status_t tkrt_host_stream_is_capturing(tkrt_device_t* device, tkrt_stream_t handle,
                                            bool* out_capturing) {
  tkrt_host_stream_t* stream = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_host_stream_resolve(device, handle, &stream));
  pthread_mutex_lock(&stream->lock);
  *out_capturing = stream->capture != NULL;
  pthread_mutex_unlock(&stream->lock);
  return NULL;
}

tkrt_status_t tkrt_host_stream_begin_capture(tkrt_device_t* device, tkrt_stream_t handle) {
  tkrt_host_stream_t* stream = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_host_stream_resolve(device, handle, &stream));
  tkrt_host_graph_t* graph = calloc(1, sizeof(*graph));
  if (!graph) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  graph->magic = TKRT_HOST_GRAPH_MAGIC;
  pthread_mutex_lock(&stream->lock);
  if (stream->capture) {
    pthread_mutex_unlock(&stream->lock);
    free(graph);
    return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION, "the stream is already capturing");
  }
  stream->capture = graph;
  atomic_fetch_add(&stream->device->capturing_streams, 1);
  pthread_mutex_unlock(&stream->lock);
  return NULL;
}

tkrt_status_t tkrt_host_stream_end_capture(tkrt_device_t* device, tkrt_stream_t handle,
                                           void** out_graph) {
  tkrt_host_stream_t* stream = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_host_stream_resolve(device, handle, &stream));
  pthread_mutex_lock(&stream->lock);
  tkrt_host_graph_t* graph = stream->capture;
  stream->capture = NULL;
  pthread_mutex_unlock(&stream->lock);
  if (!graph) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION, "the stream is not capturing");
  }
  atomic_fetch_sub(&stream->device->capturing_streams, 1);
  *out_graph = graph;
  return NULL;
}

tkrt_status_t tkrt_host_graph_launch(tkrt_device_t* device, void* raw_graph,
                                     tkrt_stream_t handle) {
  tkrt_host_graph_t* graph = raw_graph;
  if (graph->magic != TKRT_HOST_GRAPH_MAGIC) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%p is not a host graph", raw_graph);
  }
  tkrt_host_stream_t* stream = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_host_stream_resolve(device, handle, &stream));
  tkrt_host_item_t *first = NULL, *last = NULL;
  for (const tkrt_host_item_t* item = graph->head; item; item = item->next) {
    tkrt_host_item_t* copy = tkrt_host_item_clone(item);
    if (!copy) {
      tkrt_host_items_free(first);
      return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
    }
    if (last) {
      last->next = copy;
    } else {
      first = copy;
    }
    last = copy;
  }
  if (!first) return NULL;
  pthread_mutex_lock(&stream->lock);
  tkrt_host_stream_push_locked(stream, first, last);
  pthread_mutex_unlock(&stream->lock);
  return NULL;
}

tkrt_status_t tkrt_host_graph_destroy(tkrt_device_t* device, void* raw_graph) {
  (void)device;
  tkrt_host_graph_t* graph = raw_graph;
  if (graph->magic != TKRT_HOST_GRAPH_MAGIC) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%p is not a host graph", raw_graph);
  }
  tkrt_host_items_free(graph->head);
  graph->magic = 0;
  free(graph);
  return NULL;
}

/* ---------------------------------------------------------------- events */

tkrt_status_t tkrt_host_event_create(tkrt_device_t* device, tkrt_event_t* out_event) {
  tkrt_host_event_t* event = calloc(1, sizeof(*event));
  if (!event) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  event->magic = TKRT_HOST_EVENT_MAGIC;
  event->device = tkrt_host_device_cast(device);
  pthread_mutex_init(&event->lock, NULL);
  pthread_cond_init(&event->completed_cond, NULL);
  *out_event = (tkrt_event_t)event;
  return NULL;
}

static void tkrt_host_event_wait_locked(tkrt_host_event_t* event) {
  while (event->completed < event->recorded) {
    pthread_cond_wait(&event->completed_cond, &event->lock);
  }
}

tkrt_status_t tkrt_host_event_destroy(tkrt_device_t* device, tkrt_event_t handle) {
  tkrt_host_event_t* event = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_host_event_resolve(device, handle, &event));
  /* Queued records still point at the event, on whatever stream: let them all run first (not
   * just the newest). Graphs that captured a record of this event must be destroyed before the
   * event, as with CUDA. */
  pthread_mutex_lock(&event->lock);
  while (event->pending > 0) pthread_cond_wait(&event->completed_cond, &event->lock);
  pthread_mutex_unlock(&event->lock);
  event->magic = 0;
  pthread_cond_destroy(&event->completed_cond);
  pthread_mutex_destroy(&event->lock);
  free(event);
  return NULL;
}

tkrt_status_t tkrt_host_event_record(tkrt_device_t* device, tkrt_event_t handle,
                                     tkrt_stream_t stream) {
  tkrt_host_event_t* event = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_host_event_resolve(device, handle, &event));
  tkrt_host_item_t* item = tkrt_host_item_new(TKRT_HOST_ITEM_EVENT, 0);
  if (!item) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  item->u.event.event = event;
  return tkrt_host_enqueue(device, stream, item);
}

tkrt_status_t tkrt_host_event_synchronize(tkrt_device_t* device, tkrt_event_t handle) {
  tkrt_host_event_t* event = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_host_event_resolve(device, handle, &event));
  pthread_mutex_lock(&event->lock);
  tkrt_host_event_wait_locked(event);
  pthread_mutex_unlock(&event->lock);
  return NULL;
}

static tkrt_status_t tkrt_host_event_time(tkrt_host_event_t* event, const char* which,
                                          uint64_t* out_ns) {
  pthread_mutex_lock(&event->lock);
  uint64_t recorded = event->recorded, completed = event->completed, time_ns = event->time_ns;
  pthread_mutex_unlock(&event->lock);
  if (recorded == 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION, "the %s event was never recorded",
                            which);
  }
  if (completed < recorded) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                            "the %s event has not completed yet (synchronize it first)", which);
  }
  *out_ns = time_ns;
  return NULL;
}

tkrt_status_t tkrt_host_event_elapsed_ms(tkrt_device_t* device, tkrt_event_t start,
                                         tkrt_event_t end, float* out_ms) {
  tkrt_host_event_t *start_event = NULL, *end_event = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_host_event_resolve(device, start, &start_event));
  TKRT_RETURN_IF_ERROR(tkrt_host_event_resolve(device, end, &end_event));
  uint64_t start_ns = 0, end_ns = 0;
  TKRT_RETURN_IF_ERROR(tkrt_host_event_time(start_event, "start", &start_ns));
  TKRT_RETURN_IF_ERROR(tkrt_host_event_time(end_event, "end", &end_ns));
  *out_ms = (float)(((double)end_ns - (double)start_ns) / 1e6);
  return NULL;
}
