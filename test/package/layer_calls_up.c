/* SPDX-License-Identifier: Apache-2.0 */
/* A base-layer object that calls up into the core: build.layering.calls_up links it with the
 * base layer alone and must fail, naming tkrt_call_prepare (cmake/TkrtLayers.cmake). */
#include "tkrt/call.h"

tkrt_status_t tkrt_base_layer_calls_up(tkrt_call_t* call, tkrt_device_t* device);

tkrt_status_t tkrt_base_layer_calls_up(tkrt_call_t* call, tkrt_device_t* device) {
  return tkrt_call_prepare(call, device);
}
