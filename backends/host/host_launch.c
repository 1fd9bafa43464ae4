/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt host backend: launches. A launch is packed into a work item on the stream; when the
 * stream's thread reaches it, every program of the grid runs as a C call on the worker pool, each
 * with its own block of shared memory. */
#include <stdlib.h>
#include <string.h>

#include "backends/host/host_internal.h"

typedef struct tkrt_host_launch_run {
  const tkrt_host_item_t* item;
  void* const* params;
  unsigned char* arena;
  size_t stride;
} tkrt_host_launch_run_t;

static void tkrt_host_run_program(void* context, uint64_t index, uint32_t participant) {
  const tkrt_host_launch_run_t* run = context;
  const tkrt_host_item_t* item = run->item;
  tkrt_host_program_t program;
  uint64_t gx = item->u.launch.grid[0], gy = item->u.launch.grid[1];
  program.pid[0] = (uint32_t)(index % gx);
  program.pid[1] = (uint32_t)(index / gx % gy);
  program.pid[2] = (uint32_t)(index / (gx * gy));
  memcpy(program.num_programs, item->u.launch.grid, sizeof(program.num_programs));
  memcpy(program.block, item->u.launch.block, sizeof(program.block));
  memcpy(program.cluster, item->u.launch.cluster, sizeof(program.cluster));
  program.shared = run->arena ? run->arena + run->stride * participant : NULL;
  program.shared_bytes = item->u.launch.shared_bytes;
  item->u.launch.function->desc->fn(run->params, &program);
}

void tkrt_host_execute_launch(tkrt_host_stream_t* stream, tkrt_host_item_t* item) {
  const tkrt_host_function_t* function = item->u.launch.function;
  tkrt_host_pool_t* pool = stream->device->pool;
  tkrt_host_launch_run_t run = {.item = item};
  if (item->u.launch.shared_bytes) {
    run.stride = ((size_t)item->u.launch.shared_bytes + 63u) & ~(size_t)63u;
    size_t needed = run.stride * tkrt_host_pool_participants(pool);
    if (needed > stream->shared_arena_size) {
      unsigned char* arena = aligned_alloc(64, needed);
      if (!arena) {
        tkrt_host_stream_set_error(
            stream, TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED,
                                     "host stream could not allocate %zu bytes of shared memory "
                                     "for kernel '%s'; the launch did not run",
                                     needed, function->desc->name));
        return;
      }
      free(stream->shared_arena);
      stream->shared_arena = arena;
      stream->shared_arena_size = needed;
    }
    run.arena = stream->shared_arena;
  }
  void* params[TKRT_HOST_MAX_PARAMS];
  for (uint32_t i = 0; i < function->param_count; ++i) {
    params[i] = item->blob + function->param_offset[i];
  }
  run.params = params;
  uint64_t count = (uint64_t)item->u.launch.grid[0] * item->u.launch.grid[1] *
                   item->u.launch.grid[2];
  tkrt_host_pool_run(pool, count, tkrt_host_run_program, &run);
}

tkrt_status_t tkrt_host_launch(tkrt_device_t* device, void* raw_function,
                               const tkrt_launch_params_t* params, tkrt_stream_t stream) {
  tkrt_host_function_t* function = raw_function;
  const char* name = function->desc->name;
  if (params->param_count < function->param_count) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "host kernel '%s' declares %u parameters (%s) but %u were given", name,
                            function->param_count, function->desc->signature,
                            params->param_count);
  }
  for (uint32_t i = 0; i < function->param_count; ++i) {
    if (!params->params[i]) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "parameter %u of '%s' is NULL", i,
                              name);
    }
  }
  tkrt_host_item_t* item = tkrt_host_item_new(TKRT_HOST_ITEM_LAUNCH, function->param_bytes);
  if (!item) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  item->u.launch.function = function;
  memcpy(item->u.launch.grid, params->grid, sizeof(params->grid));
  memcpy(item->u.launch.block, params->block, sizeof(params->block));
  for (int i = 0; i < 3; ++i) {
    item->u.launch.cluster[i] = params->cluster[i] ? params->cluster[i] : 1;
  }
  item->u.launch.shared_bytes = function->desc->static_shared_bytes + params->shared_mem_bytes;
  for (uint32_t i = 0; i < function->param_count; ++i) {
    memcpy(item->blob + function->param_offset[i], params->params[i], function->param_size[i]);
  }
  return tkrt_host_enqueue(device, stream, item);
}
