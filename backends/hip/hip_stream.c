/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt HIP backend: streams, stream capture into HIP graphs (when the runtime has it), and events
 * for ordering and timing. */
#include <stdlib.h>

#include "backends/hip/hip_internal.h"

/* A captured graph and its executable instance: tkrt hands out one handle for both. */
typedef struct tkrt_hip_graph {
  hipGraph_t graph;
  hipGraphExec_t exec;
} tkrt_hip_graph_t;

static tkrt_status_t tkrt_hip_no_graphs(const tkrt_hip_device_t* device, const char* what) {
  return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                          "%s: %s lacks the HIP stream-capture and graph entry points", what,
                          device->library->opened_name);
}

tkrt_status_t tkrt_hip_stream_create(tkrt_device_t* base, tkrt_stream_t* out_stream) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_device_scope_t scope;
  TKRT_RETURN_IF_ERROR(tkrt_hip_scope_enter(device, &scope));
  hipStream_t stream = NULL;
  /* Non-blocking, as on CUDA: no implicit synchronisation with the null stream, which other
   * libraries in the process may be using for unrelated work. tkrt never relies on that ordering:
   * every operation names its stream, and hipFree waits for the whole device whatever the flags.
   * Code that mixes the null stream (tkrt's NULL stream) with these orders them with events. */
  hipError_t error = device->api->hipStreamCreateWithFlags(&stream, hipStreamNonBlocking);
  tkrt_hip_scope_exit(device, &scope);
  if (error != hipSuccess) {
    return TKRT_HIP_STATUS(device->api, error,
                           "hipStreamCreateWithFlags(hipStreamNonBlocking) on HIP device %d",
                           device->ordinal);
  }
  *out_stream = (tkrt_stream_t)stream;
  return NULL;
}

tkrt_status_t tkrt_hip_stream_destroy(tkrt_device_t* base, tkrt_stream_t stream) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  return TKRT_HIP_STATUS(device->api, device->api->hipStreamDestroy((hipStream_t)stream),
                         "hipStreamDestroy");
}

tkrt_status_t tkrt_hip_stream_synchronize(tkrt_device_t* base, tkrt_stream_t stream) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_device_scope_t scope;
  TKRT_RETURN_IF_ERROR(tkrt_hip_scope_enter(device, &scope));
  hipError_t error = device->api->hipStreamSynchronize((hipStream_t)stream);
  tkrt_hip_scope_exit(device, &scope);
  return TKRT_HIP_STATUS(device->api, error, "hipStreamSynchronize");
}

tkrt_status_t tkrt_hip_device_synchronize(tkrt_device_t* base) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_device_scope_t scope;
  TKRT_RETURN_IF_ERROR(tkrt_hip_scope_enter(device, &scope));
  hipError_t error = device->api->hipDeviceSynchronize();
  tkrt_hip_scope_exit(device, &scope);
  return TKRT_HIP_STATUS(device->api, error, "hipDeviceSynchronize");
}

tkrt_status_t tkrt_hip_stream_is_capturing(tkrt_device_t* base, tkrt_stream_t stream,
                                           bool* out_capturing) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  if (!device->api->hipStreamIsCapturing) {
    *out_capturing = false; /* a runtime without capture cannot be capturing */
    return NULL;
  }
  hipStreamCaptureStatus capture = hipStreamCaptureStatusNone;
  hipError_t error = device->api->hipStreamIsCapturing((hipStream_t)stream, &capture);
  if (error != hipSuccess) {
    return TKRT_HIP_STATUS(device->api, error, "hipStreamIsCapturing");
  }
  /* An invalidated capture is still a capture: work enqueued now would not run. */
  *out_capturing = capture != hipStreamCaptureStatusNone;
  return NULL;
}

tkrt_status_t tkrt_hip_stream_begin_capture(tkrt_device_t* base, tkrt_stream_t stream) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  if (!(device->base.info.features & TKRT_DEVICE_FEATURE_GRAPHS)) {
    return tkrt_hip_no_graphs(device, "stream capture");
  }
  /* Thread-local mode: other threads may keep using the runtime while this one captures. */
  return TKRT_HIP_STATUS(device->api,
                         device->api->hipStreamBeginCapture((hipStream_t)stream,
                                                            hipStreamCaptureModeThreadLocal),
                         "hipStreamBeginCapture");
}

tkrt_status_t tkrt_hip_stream_end_capture(tkrt_device_t* base, tkrt_stream_t stream,
                                          void** out_graph) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  const tkrt_hip_symbols_t* api = device->api;
  if (!(device->base.info.features & TKRT_DEVICE_FEATURE_GRAPHS)) {
    return tkrt_hip_no_graphs(device, "stream capture");
  }
  tkrt_status_t status = NULL;
  tkrt_hip_graph_t* graph = calloc(1, sizeof(*graph));
  hipGraph_t captured = NULL;
  /* End the capture even when out of memory, so the stream is usable again. */
  hipError_t error = api->hipStreamEndCapture((hipStream_t)stream, &captured);
  if (error != hipSuccess) {
    status = TKRT_HIP_STATUS(api, error, "hipStreamEndCapture");
    goto cleanup;
  }
  if (!graph) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
    goto cleanup;
  }
  tkrt_hip_device_scope_t scope;
  status = tkrt_hip_scope_enter(device, &scope);
  if (status) goto cleanup;
  error = api->hipGraphInstantiateWithFlags(&graph->exec, captured, 0);
  tkrt_hip_scope_exit(device, &scope);
  if (error != hipSuccess) {
    status = TKRT_HIP_STATUS(api, error, "hipGraphInstantiateWithFlags");
    goto cleanup;
  }
  graph->graph = captured;
  *out_graph = graph;
  return NULL;

cleanup:
  if (captured) (void)api->hipGraphDestroy(captured);
  free(graph);
  return status;
}

tkrt_status_t tkrt_hip_graph_launch(tkrt_device_t* base, void* opaque, tkrt_stream_t stream) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_graph_t* graph = opaque;
  if (!(device->base.info.features & TKRT_DEVICE_FEATURE_GRAPHS)) {
    return tkrt_hip_no_graphs(device, "graph launch");
  }
  tkrt_hip_device_scope_t scope;
  TKRT_RETURN_IF_ERROR(tkrt_hip_scope_enter(device, &scope));
  hipError_t error = device->api->hipGraphLaunch(graph->exec, (hipStream_t)stream);
  tkrt_hip_scope_exit(device, &scope);
  return TKRT_HIP_STATUS(device->api, error, "hipGraphLaunch");
}

tkrt_status_t tkrt_hip_graph_destroy(tkrt_device_t* base, void* opaque) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_graph_t* graph = opaque;
  if (!(device->base.info.features & TKRT_DEVICE_FEATURE_GRAPHS)) {
    return tkrt_hip_no_graphs(device, "graph destroy");
  }
  hipError_t exec_error = device->api->hipGraphExecDestroy(graph->exec);
  hipError_t graph_error = device->api->hipGraphDestroy(graph->graph);
  free(graph);
  if (exec_error != hipSuccess) {
    return TKRT_HIP_STATUS(device->api, exec_error, "hipGraphExecDestroy");
  }
  return TKRT_HIP_STATUS(device->api, graph_error, "hipGraphDestroy");
}

tkrt_status_t tkrt_hip_event_create(tkrt_device_t* base, tkrt_event_t* out_event) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_device_scope_t scope;
  TKRT_RETURN_IF_ERROR(tkrt_hip_scope_enter(device, &scope));
  hipEvent_t event = NULL;
  hipError_t error = device->api->hipEventCreateWithFlags(&event, 0); /* timing enabled */
  tkrt_hip_scope_exit(device, &scope);
  if (error != hipSuccess) {
    return TKRT_HIP_STATUS(device->api, error, "hipEventCreateWithFlags on HIP device %d",
                           device->ordinal);
  }
  *out_event = (tkrt_event_t)event;
  return NULL;
}

tkrt_status_t tkrt_hip_event_destroy(tkrt_device_t* base, tkrt_event_t event) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  return TKRT_HIP_STATUS(device->api, device->api->hipEventDestroy((hipEvent_t)event),
                         "hipEventDestroy");
}

tkrt_status_t tkrt_hip_event_record(tkrt_device_t* base, tkrt_event_t event,
                                    tkrt_stream_t stream) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_device_scope_t scope;
  TKRT_RETURN_IF_ERROR(tkrt_hip_scope_enter(device, &scope));
  hipError_t error = device->api->hipEventRecord((hipEvent_t)event, (hipStream_t)stream);
  tkrt_hip_scope_exit(device, &scope);
  return TKRT_HIP_STATUS(device->api, error, "hipEventRecord");
}

tkrt_status_t tkrt_hip_event_synchronize(tkrt_device_t* base, tkrt_event_t event) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  return TKRT_HIP_STATUS(device->api, device->api->hipEventSynchronize((hipEvent_t)event),
                         "hipEventSynchronize");
}

tkrt_status_t tkrt_hip_event_elapsed_ms(tkrt_device_t* base, tkrt_event_t start, tkrt_event_t end,
                                        float* out_ms) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  float ms = 0.0f;
  hipError_t error = device->api->hipEventElapsedTime(&ms, (hipEvent_t)start, (hipEvent_t)end);
  if (error != hipSuccess) return TKRT_HIP_STATUS(device->api, error, "hipEventElapsedTime");
  *out_ms = ms;
  return NULL;
}
