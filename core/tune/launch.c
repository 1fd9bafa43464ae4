/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt tune: the launch entry (tkrt_call_launch). It checks the arguments, finds or builds the
 * call's state on the device, reads the decision (one atomic word) or has the tuner decide, and
 * launches the chosen config through the core (tkrt_call_launch_config). The tuner it consults
 * calls only down into the core, never back here. */
#include <stdatomic.h>
#include <stdbool.h>

#include "base/versioned.h"
#include "core/call_internal.h"
#include "core/tune/tune_internal.h"

/* TKRT_CALL_LAUNCH_ALIASES_BY_INDEX: every record must name buffers the launch has (checked
 * where the records are read: before the tuner decides). */
static tkrt_status_t tkrt_alias_records_check(const tkrt_call_t* call,
                                              const tkrt_call_launch_args_t* args) {
  size_t count = args->input_count + args->output_count;
  for (size_t r = 0; r < call->desc.alias_count; ++r) {
    const tkrt_alias_t* alias = &call->aliases[r];
    if (alias->input_index >= count || alias->output_index >= count) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "alias record %zu names buffers %llu and %llu; the launch has %zu",
                              r, (unsigned long long)alias->input_index,
                              (unsigned long long)alias->output_index, count);
    }
  }
  return NULL;
}

tkrt_status_t tkrt_call_launch(tkrt_call_t* call, const tkrt_call_launch_args_t* caller_args) {
  if (!call || !caller_args) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_call_launch: NULL argument");
  }
  /* The launch path: only a caller built against another version of the struct pays a copy. */
  const tkrt_call_launch_args_t* args = caller_args;
  tkrt_call_launch_args_t local;
  if (caller_args->struct_size != sizeof(local)) {
    tkrt_call_launch_args_init(&local);
    TKRT_RETURN_IF_ERROR(tkrt_versioned_read(&local, sizeof(local), caller_args, "tkrt_call_launch"));
    args = &local;
  }
  if (!args->device) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_call_launch: no device");
  }
  if (!args->buffers && args->input_count + args->output_count) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_call_launch: %zu buffers announced but none given",
                            args->input_count + args->output_count);
  }
  if ((!args->scalars && args->scalar_count) || (!args->tma_shapes && args->tma_shape_count)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_call_launch: %zu %s announced but none given",
                            args->scalars || !args->scalar_count ? args->tma_shape_count
                                                                 : args->scalar_count,
                            args->scalars || !args->scalar_count ? "per-launch TMA shapes"
                                                                 : "per-launch scalars");
  }
  tkrt_call_device_state_t* state = tkrt_call_device_state_find(call, args->device);
  if (!state && (args->flags & TKRT_CALL_LAUNCH_NO_WAIT)) return tkrt_status_would_wait();
  if (!state) {
    /* Building the state loads modules and allocates: both break a stream capture. */
    bool capturing = false;
    TKRT_RETURN_IF_ERROR(tkrt_stream_is_capturing(args->device, args->stream, &capturing));
    if (capturing) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                              "call '%s' is not prepared on %s device %d and the stream is "
                              "capturing; loading its kernels now would break the capture: call "
                              "tkrt_call_prepare (or launch once) before capturing",
                              tkrt_call_name(call),
                              tkrt_device_info(args->device)->backend,
                              tkrt_device_info(args->device)->ordinal);
    }
    TKRT_RETURN_IF_ERROR(tkrt_call_device_state_get(call, args->device, &state));
  }
  tkrt_launch_decision_t decision = {.config = 0, .source = TKRT_TUNE_SOURCE_SINGLE};
  if (state->config_count > 1) {
    /* (tuner id << 32) | (source << 24) | config: one word, read without a lock. */
    uint64_t tuner_id = args->tuner ? tkrt_autotuner_id(args->tuner) : 0;
    uint64_t word = atomic_load_explicit(&state->decision, memory_order_acquire);
    if (word && word >> 32 == tuner_id) {
      decision.config = (size_t)(word & 0xffffffu);
      decision.source = (tkrt_tune_source_t)((word >> 24) & 0xffu);
    } else if (args->flags & TKRT_CALL_LAUNCH_NO_WAIT) {
      return tkrt_status_would_wait();
    } else {
      if (args->flags & TKRT_CALL_LAUNCH_ALIASES_BY_INDEX) {
        TKRT_RETURN_IF_ERROR(tkrt_alias_records_check(call, args));
      }
      TKRT_RETURN_IF_ERROR(tkrt_autotuner_decide(args->tuner, call, state, args, &decision));
      if (!decision.provisional) {
        atomic_store_explicit(&state->decision,
                              tuner_id << 32 | (uint64_t)decision.source << 24 | decision.config,
                              memory_order_release);
      }
    }
  }
  size_t chosen = decision.config;
  const tkrt_config_state_t* cs = &state->configs[chosen];
  if (cs->unrunnable) {
    /* Copy the reason: the state keeps its own for later launches. */
    return TKRT_STATUS_MAKE(tkrt_status_code(cs->unrunnable), "%s",
                            tkrt_status_message(cs->unrunnable));
  }
  TKRT_RETURN_IF_ERROR(tkrt_call_launch_config(call, state, chosen, args));
  if (args->decision) *args->decision = decision;
  return NULL;
}
