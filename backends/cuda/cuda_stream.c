/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt CUDA backend: streams, stream capture into CUDA graphs, and events. Handles are the
 * driver's own (tkrt_stream_t is a CUstream, tkrt_event_t a CUevent, a graph a CUgraphExec). */
#include "backends/cuda/cuda_internal.h"

static tkrt_status_t tkrt_cuda_graphs_missing(const tkrt_cuda_device_t* device) {
  return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                          "the CUDA driver (version %d) lacks the graph entry points needed for "
                          "stream capture",
                          device->driver->driver_version);
}

tkrt_status_t tkrt_cuda_stream_create(tkrt_device_t* base, tkrt_stream_t* out_stream) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUstream stream = NULL;
  /* NON_BLOCKING: no implicit synchronisation with the legacy default stream, which other
   * libraries in the process may be using for unrelated work. */
  CUresult result = device->driver->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuStreamCreate(NON_BLOCKING)");
  *out_stream = (tkrt_stream_t)stream;
  return NULL;
}

tkrt_status_t tkrt_cuda_stream_destroy(tkrt_device_t* base, tkrt_stream_t stream) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUresult result = device->driver->cuStreamDestroy((CUstream)stream);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuStreamDestroy");
  return NULL;
}

tkrt_status_t tkrt_cuda_stream_synchronize(tkrt_device_t* base, tkrt_stream_t stream) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUresult result = device->driver->cuStreamSynchronize((CUstream)stream);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuStreamSynchronize");
  return NULL;
}

/* Every stream of the device's context, the streams other libraries made on it included. */
tkrt_status_t tkrt_cuda_device_synchronize(tkrt_device_t* base) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUresult result;
  if (device->driver->cuCtxSynchronize) {
    result = device->driver->cuCtxSynchronize(device->context);
  } else if (device->driver->cuCtxSynchronize_exported) {
    result = device->driver->cuCtxSynchronize_exported(); /* the context activate made current */
  } else {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                            "the CUDA driver (version %d) has no cuCtxSynchronize",
                            device->driver->driver_version);
  }
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuCtxSynchronize");
  return NULL;
}

/* cuStreamIsCapturing, not cuStreamGetCtx: asking a capturing stream for its context is the
 * driver pitfall the issue warns about, and the device's primary context is known anyway. */
tkrt_status_t tkrt_cuda_stream_is_capturing(tkrt_device_t* base, tkrt_stream_t stream,
                                            bool* out_capturing) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult result = device->driver->cuStreamIsCapturing((CUstream)stream, &capture);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuStreamIsCapturing");
  /* An invalidated capture still owns the stream until it is ended: report it as capturing so
   * callers do not run work that would be dropped. */
  *out_capturing = capture != CU_STREAM_CAPTURE_STATUS_NONE;
  return NULL;
}

tkrt_status_t tkrt_cuda_stream_begin_capture(tkrt_device_t* base, tkrt_stream_t stream) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  if (!(device->base.info.features & TKRT_DEVICE_FEATURE_GRAPHS)) {
    return tkrt_cuda_graphs_missing(device);
  }
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  /* THREAD_LOCAL: calls that are unsafe during capture (module loads, cuMemAlloc, synchronous
   * copies) fail when made by this thread, which is what breaks a capture in practice, while
   * other threads of the process (XLA's, the user's) are left alone, unlike GLOBAL. RELAXED would
   * let this thread's unsafe calls through silently. The capture must end on this thread. */
  CUresult result =
      device->driver->cuStreamBeginCapture((CUstream)stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  if (result != CUDA_SUCCESS) {
    return TKRT_CUDA_STATUS(result, "cuStreamBeginCapture(THREAD_LOCAL)");
  }
  return NULL;
}

tkrt_status_t tkrt_cuda_stream_end_capture(tkrt_device_t* base, tkrt_stream_t stream,
                                           void** out_graph) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  const tkrt_cuda_driver_t* driver = device->driver;
  if (!(device->base.info.features & TKRT_DEVICE_FEATURE_GRAPHS)) {
    return tkrt_cuda_graphs_missing(device);
  }
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  tkrt_status_t status = NULL;
  CUgraph graph = NULL;
  CUresult result = driver->cuStreamEndCapture((CUstream)stream, &graph);
  if (result != CUDA_SUCCESS) {
    graph = NULL; /* an invalidated capture may still hand back nothing usable */
    status = TKRT_CUDA_STATUS(result, "cuStreamEndCapture");
    goto cleanup;
  }
  if (!graph) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                              "cuStreamEndCapture returned no graph: the capture was invalidated");
    goto cleanup;
  }
  /* Instantiate at once: the HAL's graph is the executable one, and the CUgraph template is of
   * no further use. */
  CUgraphExec exec = NULL;
  result = driver->cuGraphInstantiateWithFlags(&exec, graph, 0);
  if (result != CUDA_SUCCESS) {
    status = TKRT_CUDA_STATUS(result, "cuGraphInstantiateWithFlags");
    goto cleanup;
  }
  *out_graph = exec;

cleanup:
  if (graph) driver->cuGraphDestroy(graph);
  return status;
}

tkrt_status_t tkrt_cuda_graph_launch(tkrt_device_t* base, void* graph, tkrt_stream_t stream) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  if (!device->driver->cuGraphLaunch) return tkrt_cuda_graphs_missing(device);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUresult result = device->driver->cuGraphLaunch((CUgraphExec)graph, (CUstream)stream);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuGraphLaunch");
  return NULL;
}

tkrt_status_t tkrt_cuda_graph_destroy(tkrt_device_t* base, void* graph) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  if (!device->driver->cuGraphExecDestroy) return tkrt_cuda_graphs_missing(device);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUresult result = device->driver->cuGraphExecDestroy((CUgraphExec)graph);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuGraphExecDestroy");
  return NULL;
}

tkrt_status_t tkrt_cuda_event_create(tkrt_device_t* base, tkrt_event_t* out_event) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUevent event = NULL;
  /* DEFAULT keeps timing on: tkrt events exist for elapsed times (the autotuner). */
  CUresult result = device->driver->cuEventCreate(&event, CU_EVENT_DEFAULT);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuEventCreate");
  *out_event = (tkrt_event_t)event;
  return NULL;
}

tkrt_status_t tkrt_cuda_event_destroy(tkrt_device_t* base, tkrt_event_t event) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUresult result = device->driver->cuEventDestroy((CUevent)event);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuEventDestroy");
  return NULL;
}

tkrt_status_t tkrt_cuda_event_record(tkrt_device_t* base, tkrt_event_t event,
                                     tkrt_stream_t stream) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUresult result = device->driver->cuEventRecord((CUevent)event, (CUstream)stream);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuEventRecord");
  return NULL;
}

tkrt_status_t tkrt_cuda_event_synchronize(tkrt_device_t* base, tkrt_event_t event) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUresult result = device->driver->cuEventSynchronize((CUevent)event);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuEventSynchronize");
  return NULL;
}

tkrt_status_t tkrt_cuda_event_elapsed_ms(tkrt_device_t* base, tkrt_event_t start,
                                         tkrt_event_t end, float* out_ms) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  float ms = 0.0f;
  CUresult result = device->driver->cuEventElapsedTime(&ms, (CUevent)start, (CUevent)end);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuEventElapsedTime");
  *out_ms = ms;
  return NULL;
}
