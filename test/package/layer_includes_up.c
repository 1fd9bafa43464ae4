/* SPDX-License-Identifier: Apache-2.0 */
/* A backend-layer file that includes the core's public header: build.layering.includes_up
 * compiles it with the backends' include roots and must fail, naming tkrt/call.h
 * (cmake/TkrtLayers.cmake). The device layer's own headers are found. */
#include "hal/hal.h"
#include "tkrt/tma.h"
#include "tkrt/call.h"

int tkrt_backend_layer_includes_up(const tkrt_call_t* call);
int tkrt_backend_layer_includes_up(const tkrt_call_t* call) { return call != NULL; }
