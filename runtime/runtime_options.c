/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt runtime: reading the runtime's options back, for frontends that add fields no setting
 * names (libtkrt_xla's decision exchange) before tkrt_runtime_set_options. */
#include "runtime/runtime_internal.h"

void tkrt_runtime_get_options(tkrt_runtime_t* runtime, tkrt_device_options_t* device,
                              tkrt_autotuner_options_t* tuner) {
  if (!runtime) return;
  pthread_mutex_lock(&runtime->lock);
  if (device) *device = runtime->device;
  if (tuner) *tuner = runtime->tuner;
  pthread_mutex_unlock(&runtime->lock);
}
