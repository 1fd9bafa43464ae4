/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt runtime: preparing, the state query and the launch every frontend shares, with the two
 * conventions by which alias records name buffers (by size: typed FFI; by index: legacy). */
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime_internal.h"

#define TKRT_RUNTIME_STACK_ALIASES 32

void tkrt_runtime_launch_args_init(tkrt_runtime_launch_args_t* args) {
  memset(args, 0, sizeof(*args));
  args->struct_size = sizeof(*args);
}

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

/* The inputs an autotuned by-index launch must save around each config: a record's input when
 * an output was placed on it, i.e. its address is the record's output buffer's (jaxlib's test) or
 * any other buffer's (a frontend that wrote the output's ordinal instead of its buffer index).
 * Without sizes, buffers that share an address but no record are empty ones or one array passed
 * twice: neither is written through, so neither needs saving. */
static size_t tkrt_runtime_aliased_by_index(const tkrt_call_desc_t* desc,
                                            const tkrt_buffer_t* buffers, size_t count,
                                            tkrt_buffer_t* out) {
  size_t n = 0;
  for (size_t r = 0; r < desc->alias_count; ++r) {
    const tkrt_alias_t* alias = &desc->aliases[r];
    tkrt_deviceptr_t ptr = buffers[alias->input_index].ptr;
    /* input == output (an ordinal that happens to equal the input's index) counts as shared, as
     * in jaxlib: saving an input that was not overwritten costs a copy, not a result. */
    bool shared = ptr && buffers[alias->output_index].ptr == ptr;
    for (size_t j = 0; ptr && !shared && j < count; ++j) {
      shared = j != alias->input_index && buffers[j].ptr == ptr;
    }
    if (!shared) continue;
    out[n].ptr = ptr;
    out[n].size = alias->size_bytes ? alias->size_bytes : TKRT_BUFFER_SIZE_UNKNOWN;
    ++n;
  }
  return n;
}

tkrt_status_t tkrt_runtime_launch(tkrt_runtime_t* rt, const tkrt_runtime_launch_args_t* args) {
  if (!rt || !args || !args->call || !args->device) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_runtime_launch: %s is NULL",
                            !rt ? "the runtime" : !args ? "args" : !args->call ? "the call" : "the device");
  }
  if (args->struct_size != sizeof(*args)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_runtime_launch: args of %zu bytes; this tkrt has %zu (call "
                            "tkrt_runtime_launch_args_init)",
                            args->struct_size, sizeof(*args));
  }
  if (args->alias_mode != TKRT_RUNTIME_ALIAS_BY_SIZE && args->alias_mode != TKRT_RUNTIME_ALIAS_BY_INDEX) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_runtime_launch: alias mode %d",
                            (int)args->alias_mode);
  }
  const tkrt_call_desc_t* desc = tkrt_call_get_desc(args->call);
  tkrt_call_launch_args_t launch;
  tkrt_call_launch_args_init(&launch);
  launch.device = args->device;
  launch.stream = args->stream;
  launch.buffers = args->buffers;
  launch.input_count = args->input_count;
  launch.output_count = args->output_count;
  launch.scalars = args->scalars;
  launch.scalar_count = args->scalar_count;
  launch.decision = args->decision;
  launch.grid = args->grid;
  launch.grid_user = args->grid_user;
  launch.tma_shapes = args->tma_shapes;
  launch.tma_shape_count = args->tma_shape_count;
  if (desc->config_count <= 1) return tkrt_call_launch(args->call, &launch);

  TKRT_RETURN_IF_ERROR(tkrt_runtime_tuner(rt, &launch.tuner));
  if (args->alias_mode == TKRT_RUNTIME_ALIAS_BY_SIZE ||
      (tkrt_call_state(args->call, args->device, launch.tuner, NULL) & TKRT_CALL_STATE_DECIDED)) {
    /* Decided: the tuner never runs for the call here again, and only tuning reads the list. */
    return tkrt_call_launch(args->call, &launch);
  }
  size_t count = args->input_count + args->output_count;
  for (size_t r = 0; r < desc->alias_count; ++r) {
    const tkrt_alias_t* alias = &desc->aliases[r];
    if (alias->input_index >= count || alias->output_index >= count) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "alias record %zu names buffers %llu and %llu; the launch has %zu",
                              r, (unsigned long long)alias->input_index,
                              (unsigned long long)alias->output_index, count);
    }
  }
  tkrt_buffer_t stack[TKRT_RUNTIME_STACK_ALIASES];
  tkrt_buffer_t* aliased = desc->alias_count <= TKRT_RUNTIME_STACK_ALIASES
                               ? stack
                               : malloc(desc->alias_count * sizeof(*aliased));
  if (!aliased) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  /* Set even when empty: the records, not addresses and sizes, say which inputs to save. */
  launch.aliased_inputs = aliased;
  launch.aliased_input_count = tkrt_runtime_aliased_by_index(desc, args->buffers, count, aliased);
  tkrt_status_t status = tkrt_call_launch(args->call, &launch);
  if (aliased != stack) free(aliased);
  return status;
}
