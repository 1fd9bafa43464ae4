/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: the inputs an autotuned launch would overwrite (those sharing memory with an
 * output), and saving and restoring them around every config while the autotuner benchmarks. */
#include "core/tune/alias_saves.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/call_internal.h"

static int tkrt_ranges_overlap(uint64_t a, uint64_t a_size, uint64_t b, uint64_t b_size) {
  if (a == b) return 1;
  return a < b + b_size && b < a + a_size;
}

static int tkrt_size_known(uint64_t size) { return size != TKRT_BUFFER_SIZE_UNKNOWN; }

/* Adds [ptr, ptr + size) to the inputs to save, unless a saved range already covers it (XLA's
 * legacy target may name the same memory twice: an input and the output placed on it). */
static tkrt_status_t tkrt_saves_add(tkrt_alias_saves_t* saves, tkrt_deviceptr_t ptr,
                                    uint64_t size) {
  for (size_t i = 0; i < saves->count; ++i) {
    tkrt_saved_input_t* s = &saves->inputs[i];
    if (ptr >= s->ptr && ptr + size <= s->ptr + s->size) return NULL;
    if (s->ptr >= ptr && s->ptr + s->size <= ptr + size) { /* the new range covers this one */
      s->ptr = ptr;
      s->size = size;
      return NULL;
    }
  }
  tkrt_saved_input_t* grown = realloc(saves->inputs, (saves->count + 1) * sizeof(*grown));
  if (!grown) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  saves->inputs = grown;
  saves->inputs[saves->count++] = (tkrt_saved_input_t){.ptr = ptr, .size = size};
  return NULL;
}

/* Finds the inputs that tuning would overwrite: the caller's list (args->aliased_inputs), else the
 * inputs whose memory overlaps an output's, by address at run time, with sizes from the buffers or
 * from the alias records (record indices are only trusted for sizes: some frontends write the
 * output's ordinal where jaxlib expects a buffer index). Empty buffers (size 0) never alias. When
 * an aliased input's size is unknown, nothing is saved and *out_unknown names it: the caller then
 * must not benchmark. */
tkrt_status_t tkrt_find_aliased_inputs(const tkrt_call_t* call,
                                              const tkrt_call_launch_args_t* args,
                                              tkrt_alias_saves_t* saves, char* out_unknown,
                                              size_t unknown_capacity) {
  const tkrt_buffer_t* buffers = args->buffers;
  tkrt_status_t status = NULL;
  saves->inputs = NULL;
  saves->count = 0;
  out_unknown[0] = '\0';
  if (args->aliased_inputs) {
    for (size_t i = 0; i < args->aliased_input_count && !status; ++i) {
      const tkrt_buffer_t* in = &args->aliased_inputs[i];
      if (!in->ptr || in->size == 0) continue;
      if (!tkrt_size_known(in->size)) {
        snprintf(out_unknown, unknown_capacity,
                 "aliased input 0x%llx (in-place entry %zu) has an unknown size",
                 (unsigned long long)in->ptr, i);
        break;
      }
      status = tkrt_saves_add(saves, in->ptr, in->size);
    }
  } else if (args->flags & TKRT_CALL_LAUNCH_ALIASES_BY_INDEX) {
    /* Without sizes, buffers that share an address but no record are empty ones or one array
     * passed twice: neither is written through, so neither needs saving. */
    size_t count = args->input_count + args->output_count;
    for (size_t r = 0; r < call->desc.alias_count && !status; ++r) {
      const tkrt_alias_t* alias = &call->aliases[r];
      tkrt_deviceptr_t ptr = buffers[alias->input_index].ptr;
      /* input == output (an ordinal that happens to equal the input's index) counts as shared,
       * as in jaxlib: saving an input that was not overwritten costs a copy, not a result. */
      bool shared = ptr && buffers[alias->output_index].ptr == ptr;
      for (size_t j = 0; ptr && !shared && j < count; ++j) {
        shared = j != alias->input_index && buffers[j].ptr == ptr;
      }
      if (!shared) continue;
      if (!alias->size_bytes) {
        snprintf(out_unknown, unknown_capacity,
                 "alias record %zu (input buffer %llu) has no size", r,
                 (unsigned long long)alias->input_index);
        break;
      }
      status = tkrt_saves_add(saves, ptr, alias->size_bytes);
    }
  } else {
    for (size_t i = 0; i < args->input_count && !status; ++i) {
      const tkrt_buffer_t* in = &buffers[i];
      if (!in->ptr || in->size == 0) continue;
      uint64_t hint = 0;
      for (size_t r = 0; r < call->desc.alias_count; ++r) {
        if (call->aliases[r].input_index == i && call->aliases[r].size_bytes > hint) {
          hint = call->aliases[r].size_bytes;
        }
      }
      uint64_t in_size = tkrt_size_known(in->size) ? in->size : hint;
      int aliased = 0;
      for (size_t o = 0; o < args->output_count && !aliased; ++o) {
        const tkrt_buffer_t* out = &buffers[args->input_count + o];
        if (!out->ptr || out->size == 0) continue;
        aliased = tkrt_ranges_overlap(in->ptr, in_size ? in_size : 1, out->ptr,
                                      tkrt_size_known(out->size) ? out->size : 1);
      }
      if (!aliased) continue;
      if (!in_size) {
        snprintf(out_unknown, unknown_capacity,
                 "input %zu shares memory with an output, but its size is unknown (no buffer "
                 "size and no alias record)",
                 i);
        break;
      }
      status = tkrt_saves_add(saves, in->ptr, in_size);
    }
  }
  if (status || out_unknown[0]) {
    free(saves->inputs);
    saves->inputs = NULL;
    saves->count = 0;
  }
  return status;
}

void tkrt_alias_saves_free(tkrt_device_t* device, tkrt_alias_saves_t* saves) {
  for (size_t i = 0; i < saves->count; ++i) {
    if (saves->inputs[i].copy) tkrt_status_free(tkrt_memory_free(device, saves->inputs[i].copy));
    if (saves->inputs[i].host_copy) {
      tkrt_status_free(tkrt_host_free(device, saves->inputs[i].host_copy));
    }
  }
  free(saves->inputs);
  saves->inputs = NULL;
  saves->count = 0;
}

tkrt_status_t tkrt_alias_save(const tkrt_call_launch_args_t* args,
                                     tkrt_alias_saves_t* saves) {
  for (size_t i = 0; i < saves->count; ++i) {
    tkrt_saved_input_t* s = &saves->inputs[i];
    tkrt_status_t status = tkrt_memory_alloc(args->device, s->size, &s->copy);
    if (status && tkrt_status_code(status) == TKRT_STATUS_RESOURCE_EXHAUSTED) {
      /* Device memory is short: keep the copy in pinned host memory instead. */
      tkrt_status_free(status);
      status = tkrt_host_alloc(args->device, s->size, &s->host_copy);
      if (!status) status = tkrt_memcpy_dtoh_async(args->device, s->host_copy, s->ptr, s->size,
                                                   args->stream);
    } else if (!status) {
      status = tkrt_memcpy_dtod_async(args->device, s->copy, s->ptr, s->size, args->stream);
    }
    if (status) {
      return tkrt_status_annotate(status, "saving aliased input 0x%llx (%llu bytes)",
                                  (unsigned long long)s->ptr, (unsigned long long)s->size);
    }
  }
  return NULL;
}

tkrt_status_t tkrt_alias_restore(const tkrt_call_launch_args_t* args,
                                        const tkrt_alias_saves_t* saves) {
  for (size_t i = 0; i < saves->count; ++i) {
    const tkrt_saved_input_t* s = &saves->inputs[i];
    tkrt_status_t status =
        s->copy ? tkrt_memcpy_dtod_async(args->device, s->ptr, s->copy, s->size, args->stream)
                : tkrt_memcpy_htod_async(args->device, s->ptr, s->host_copy, s->size, args->stream);
    if (status) {
      return tkrt_status_annotate(status, "restoring aliased input 0x%llx",
                                  (unsigned long long)s->ptr);
    }
  }
  return NULL;
}
