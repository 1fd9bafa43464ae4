/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: aliased (in-place) inputs of an autotuned launch: finding them, and saving and
 * restoring them around every config the autotuner runs (alias_saves.c). */
#ifndef TKRT_CORE_TUNE_ALIAS_SAVES_H_
#define TKRT_CORE_TUNE_ALIAS_SAVES_H_

#include <stddef.h>
#include <stdint.h>

#include "tkrt/call.h"

typedef struct tkrt_saved_input {
  tkrt_deviceptr_t ptr;   /* the input */
  uint64_t size;
  tkrt_deviceptr_t copy;  /* device copy, or 0 */
  void* host_copy;        /* pinned host copy when device memory ran out */
} tkrt_saved_input_t;

typedef struct tkrt_alias_saves {
  tkrt_saved_input_t* inputs;
  size_t count;
} tkrt_alias_saves_t;

/* Finds the inputs that tuning would overwrite: the caller's list (args->aliased_inputs), else the
 * inputs whose memory overlaps an output's, by address at run time, with sizes from the buffers or
 * from the alias records. Empty buffers never alias. When an aliased input's size is unknown,
 * nothing is saved and `out_unknown` says which: the caller must not benchmark then. */
tkrt_status_t tkrt_find_aliased_inputs(const tkrt_call_t* call,
                                       const tkrt_call_launch_args_t* args,
                                       tkrt_alias_saves_t* saves, char* out_unknown,
                                       size_t unknown_capacity);
/* Copies every found input (device memory, else pinned host memory), in stream order. */
tkrt_status_t tkrt_alias_save(const tkrt_call_launch_args_t* args, tkrt_alias_saves_t* saves);
/* Copies the saved inputs back, in stream order. */
tkrt_status_t tkrt_alias_restore(const tkrt_call_launch_args_t* args,
                                 const tkrt_alias_saves_t* saves);
/* Frees the copies and the list (only once the stream no longer uses them). */
void tkrt_alias_saves_free(tkrt_device_t* device, tkrt_alias_saves_t* saves);

#endif /* TKRT_CORE_TUNE_ALIAS_SAVES_H_ */
