/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: what a call's published per-device state says (prepared? decided?), read without a
 * lock, for runtimes and adapters that would otherwise mirror it in bitmasks of their own. */
#include <stdatomic.h>

#include "core/call_internal.h"
#include "core/tune/tune_internal.h"

uint32_t tkrt_call_state(const tkrt_call_t* call, const tkrt_device_t* device,
                         const tkrt_autotuner_t* tuner, size_t* out_config) {
  if (!call || !device) return 0;
  /* The list is prepend-only and its entries immutable but for the decision word: the acquire
   * load pairs with the release store that published an entry (call_launch.c). */
  const tkrt_call_device_state_t* state =
      atomic_load_explicit(&((tkrt_call_t*)call)->device_states, memory_order_acquire);
  while (state && state->device != device) state = state->next;
  if (!state) return 0;
  if (state->config_count <= 1) {
    if (out_config) *out_config = 0;
    return TKRT_CALL_STATE_PREPARED | TKRT_CALL_STATE_DECIDED;
  }
  uint64_t word =
      atomic_load_explicit(&((tkrt_call_device_state_t*)state)->decision, memory_order_acquire);
  uint64_t tuner_id = tuner ? tkrt_autotuner_id(tuner) : 0;
  if (!word || !tuner_id || word >> 32 != tuner_id) return TKRT_CALL_STATE_PREPARED;
  if (out_config) *out_config = (size_t)(word & 0xffffffu);
  return TKRT_CALL_STATE_PREPARED | TKRT_CALL_STATE_DECIDED;
}
