/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt runtime: preparing, the state query and the launch every frontend shares (the core's
 * launch with the runtime's tuner). */
#include <stdlib.h>
#include <string.h>

#include "base/versioned.h"
#include "runtime/runtime_internal.h"

uint32_t tkrt_runtime_call_state(const tkrt_runtime_t* runtime, const tkrt_call_t* call,
                                 const tkrt_device_t* device, size_t* out_config) {
  if (!runtime) return 0;
  const tkrt_autotuner_t* tuner =
      atomic_load_explicit(&((tkrt_runtime_t*)runtime)->tuner_object, memory_order_acquire);
  return tkrt_call_state(call, device, tuner, out_config);
}

tkrt_status_t tkrt_runtime_prepare(tkrt_runtime_t* runtime, tkrt_call_t* call,
                                   tkrt_device_t* device, tkrt_stream_t stream, int* out_prepared) {
  if (!runtime || !call || !device) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_runtime_prepare: NULL argument");
  }
  /* Loading modules and allocating scratch would break a capture: then the first launch outside
   * one does it (and a captured launch before that says why it cannot run). */
  bool capturing = false;
  TKRT_RETURN_IF_ERROR(tkrt_stream_is_capturing(device, stream, &capturing));
  if (!capturing) TKRT_RETURN_IF_ERROR(tkrt_call_prepare(call, device));
  if (out_prepared) *out_prepared = !capturing;
  return NULL;
}

tkrt_status_t tkrt_runtime_launch(tkrt_runtime_t* rt, tkrt_call_t* call,
                                  const tkrt_call_launch_args_t* args) {
  if (!rt || !call || !args) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_runtime_launch: %s is NULL",
                            !rt ? "the runtime" : !call ? "the call" : "args");
  }
  if (args->tuner || tkrt_call_get_desc(call)->config_count <= 1) {
    return tkrt_call_launch(call, args);
  }
  /* The runtime's tuner decides: the caller's arguments (of the caller's version) with it. */
  tkrt_call_launch_args_t launch;
  tkrt_call_launch_args_init(&launch);
  TKRT_RETURN_IF_ERROR(tkrt_versioned_read(&launch, sizeof(launch), args, "tkrt_runtime_launch"));
  TKRT_RETURN_IF_ERROR(tkrt_runtime_tuner(rt, &launch.tuner));
  return tkrt_call_launch(call, &launch);
}
