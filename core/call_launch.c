/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: launching one config of a kernel call. Per (call, device) state — image choice,
 * loaded modules, launch dims, global scratch — is built once and then read without locks on
 * every launch. The entry point that picks the config (tkrt_call_launch, through the tuner for
 * an autotuned call) is above, in core/tune/launch.c. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/call_internal.h"
#include "hal/hal.h"
#include "base/versioned.h"

#define TKRT_STACK_PARAMS 64
#define TKRT_STACK_TMA 4 /* TMA descriptors per launch kept on the stack */
#define TKRT_DEFAULT_SCRATCH_ALIGN 256u

void tkrt_call_launch_args_init(tkrt_call_launch_args_t* args) {
  memset(args, 0, sizeof(*args));
  args->struct_size = sizeof(*args);
}

static const char* tkrt_config_label(const tkrt_call_t* call, size_t index, char* buffer,
                                     size_t capacity) {
  const char* description = call->configs[index].description;
  if (call->desc.config_count == 1 && !call->desc.autotuned) {
    snprintf(buffer, capacity, "kernel '%s'", call->configs[index].kernel->desc.name);
  } else {
    snprintf(buffer, capacity, "config %zu%s%s%s (kernel '%s')", index,
             description && *description ? " '" : "", description ? description : "",
             description && *description ? "'" : "", call->configs[index].kernel->desc.name);
  }
  return buffer;
}

/* ---------------------------------------------------------------- choosing an image */

/* Ranks how well an image fits the device: 0 does not fit; higher is better (no JIT first). The
 * device's backend judges kinds and archs; an image that names its backend fits only that one. */
static int tkrt_image_fit(const tkrt_kernel_image_t* image, const tkrt_device_t* device) {
  if (image->backend && *image->backend &&
      strcmp(image->backend, tkrt_hal_device_backend_name(device)) != 0) {
    return 0;
  }
  return tkrt_hal_device_image_rank(device, image->kind, image->arch);
}

static tkrt_status_t tkrt_select_image(const tkrt_kernel_t* kernel, const tkrt_device_t* device,
                                       const tkrt_kernel_image_t** out_image) {
  const tkrt_device_info_t* info = tkrt_device_info(device);
  const tkrt_kernel_image_t* best = NULL;
  int best_rank = 0;
  for (size_t i = 0; i < kernel->desc.image_count; ++i) {
    int rank = tkrt_image_fit(&kernel->images[i], device);
    if (rank > best_rank) {
      best = &kernel->images[i];
      best_rank = rank;
    }
  }
  if (best) {
    *out_image = best;
    return NULL;
  }
  char have[512];
  size_t used = 0;
  have[0] = '\0';
  for (size_t i = 0; i < kernel->desc.image_count && used < sizeof(have); ++i) {
    const tkrt_kernel_image_t* image = &kernel->images[i];
    int n = snprintf(have + used, sizeof(have) - used, "%s%s %s%s%s", i ? ", " : "",
                     tkrt_kernel_image_backend(image), tkrt_image_kind_name(image->kind),
                     image->arch && *image->arch ? " for " : "", image->arch ? image->arch : "");
    if (n > 0) used += (size_t)n;
  }
  return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                          "no image for this device (%s %s); it has: %s",
                          info->backend, info->arch, have);
}

/* One module serves every config whose image has the same bytes (autotuned calls repeat one
 * image per config), so a call with many configs does not load, or hold open, one per config. */
static bool tkrt_same_image(const tkrt_kernel_image_t* a, const tkrt_kernel_image_t* b) {
  if (a == b) return true;
  return a->kind == b->kind && a->size == b->size &&
         (a->origin == TKRT_IMAGE_ORIGIN_API) == (b->origin == TKRT_IMAGE_ORIGIN_API) &&
         memcmp(a->data, b->data, a->size) == 0;
}

/* ---------------------------------------------------------------- per-device state */

static void tkrt_scratch_free(tkrt_device_t* device, tkrt_scratch_t* scratch) {
  if (scratch->allocation) tkrt_status_free(tkrt_memory_free(device, scratch->allocation));
  tkrt_scratch_block_t* block = atomic_load_explicit(&scratch->grown, memory_order_acquire);
  while (block) {
    tkrt_scratch_block_t* older = block->older;
    tkrt_status_free(tkrt_memory_free(device, block->allocation));
    free(block);
    block = older;
  }
}

static void tkrt_call_device_state_free(tkrt_call_device_state_t* state) {
  if (!state) return;
  for (size_t i = 0; i < state->config_count; ++i) tkrt_status_free(state->configs[i].unrunnable);
  tkrt_scratch_free(state->device, &state->scratch);
  tkrt_scratch_free(state->device, &state->profile);
  pthread_mutex_destroy(&state->grow_lock);
  for (size_t i = 0; i < state->module_count; ++i) tkrt_module_unload(state->modules[i]);
  free(state->modules);
  tkrt_device_release(state->device);
  free(state);
}

void tkrt_call_device_states_free(tkrt_call_t* call) {
  tkrt_call_device_state_t* state = atomic_load(&call->device_states);
  while (state) {
    tkrt_call_device_state_t* next = state->next;
    tkrt_call_device_state_free(state);
    state = next;
  }
}

/* ---------------------------------------------------------------- TMA descriptors */

/* jaxlib's TMA parameter (wire field 9) consumes the next buffer, whose address is the tensor's
 * base, like an array parameter; jax-triton lists the descriptor's shape (i32) and strides (i64)
 * as ordinary scalar parameters after it. */
/* The descriptor's rules and element sizes: tkrt_hal_tma_validate (hal/hal_tma.c), the one table
 * that the core and the backends that encode descriptors share. */
#define TKRT_TMA_BASE_ALIGN 16u

#define TKRT_TMA_INVALID(...)                                                     \
  TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "parameter %zu (TMA descriptor): " __VA_ARGS__)

/* Scales a grid in programs by the cluster into d->grid; *out_programs is the product (CTAs).
 * A dimension that overflows is INVALID_ARGUMENT naming it; `what` says whose grid it is. */
static tkrt_status_t tkrt_grid_scale(const uint32_t grid[3], const uint32_t cluster[3],
                                     const char* what, tkrt_launch_params_t* d,
                                     uint64_t* out_programs) {
  uint64_t programs = 1;
  for (int i = 0; i < 3; ++i) {
    uint64_t scaled = (uint64_t)grid[i] * cluster[i];
    if (scaled > UINT32_MAX) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%sgrid dimension %c (%u) times the cluster size (%u) overflows",
                              what, "xyz"[i], grid[i], cluster[i]);
    }
    d->grid[i] = (uint32_t)scaled;
    programs *= scaled;
  }
  *out_programs = programs;
  return NULL;
}

/* Scratch bytes for `programs` CTAs of `per_cta` bytes each; OUT_OF_RANGE when that overflows. */
static tkrt_status_t tkrt_scratch_size(uint64_t programs, uint32_t per_cta, const char* which,
                                       uint64_t* out_bytes) {
  if (per_cta && programs > (UINT64_MAX >> 1) / per_cta) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE,
                            "%s scratch of %u bytes for each of %llu programs overflows", which,
                            per_cta, (unsigned long long)programs);
  }
  *out_bytes = programs * per_cta;
  return NULL;
}

/* Computes the launch dims of a config on the device and checks them (no device work). */
static tkrt_status_t tkrt_config_resolve(const tkrt_call_t* call, size_t index,
                                         const tkrt_device_t* device,
                                         const tkrt_device_info_t* info,
                                         const tkrt_kernel_image_t* image,
                                         tkrt_config_state_t* cs) {
  const tkrt_config_desc_t* config = &call->configs[index];
  const tkrt_kernel_desc_t* kd = &config->kernel->desc;
  cs->tma_count = 0;
  for (size_t i = 0; i < config->param_count; ++i) {
    if (config->params[i].kind != TKRT_PARAM_TMA) continue;
    TKRT_RETURN_IF_ERROR(tkrt_hal_tma_validate(&config->params[i].value.tma, i));
    if (!(info->features & TKRT_DEVICE_FEATURE_TMA)) {
      const char* reason = tkrt_hal_device_tma_unsupported(device);
      if (reason) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                                "parameter %zu is a TMA descriptor (a tensor descriptor), which "
                                "the %s backend cannot build on device %d (%s): %s",
                                i, info->backend, info->ordinal, info->arch, reason);
      }
      return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                              "parameter %zu is a TMA descriptor, which the %s backend cannot build "
                              "on this device (%s): it needs a device with TMA (CUDA, compute "
                              "capability 9.0 or newer, and a driver with cuTensorMapEncodeTiled)",
                              i, info->backend, info->arch);
    }
    cs->tma_count++;
  }
  uint32_t cluster[3] = {1, 1, 1};
  if (kd->num_ctas > 1) {
    cluster[0] = kd->num_ctas;
  } else {
    /* Blobs from before num_ctas carry explicit cluster dims (wire fields 7-9); the decoder
     * leaves them 0 when the blob has num_ctas. */
    for (int i = 0; i < 3; ++i) cluster[i] = kd->cluster_dims[i] ? kd->cluster_dims[i] : 1;
  }
  memcpy(cs->cluster, cluster, sizeof(cluster));
  tkrt_launch_params_t* d = &cs->dims;
  memset(d, 0, sizeof(*d));
  uint64_t programs = 1;
  TKRT_RETURN_IF_ERROR(tkrt_grid_scale(config->grid, cluster, "", d, &programs));
  cs->empty_grid = programs == 0;
  uint64_t threads = (uint64_t)kd->num_warps * info->warp_size;
  uint32_t most = info->max_block_dim[0] < info->max_threads_per_block ? info->max_block_dim[0]
                                                                       : info->max_threads_per_block;
  if (threads > most) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "num_warps %u of kernel '%s' (warps of %u threads): block dimension x "
                            "is %llu; the device allows 1 to %u",
                            kd->num_warps, kd->name, info->warp_size,
                            (unsigned long long)threads, most);
  }
  d->block[0] = (uint32_t)threads;
  d->block[1] = d->block[2] = 1;
  if (cluster[0] * cluster[1] * cluster[2] > 1) {
    memcpy(d->cluster, cluster, sizeof(cluster));
    d->flags |= TKRT_LAUNCH_CLUSTER_SPREAD;
  }
  d->flags |= kd->launch_flags;
  d->shared_mem_bytes = image->shared_mem_bytes ? image->shared_mem_bytes : kd->shared_mem_bytes;
  TKRT_RETURN_IF_ERROR(
      tkrt_scratch_size(programs, kd->global_scratch_size, "global", &cs->scratch_bytes));
  TKRT_RETURN_IF_ERROR(
      tkrt_scratch_size(programs, kd->profile_scratch_size, "profile", &cs->profile_bytes));
  if (cs->empty_grid) {
    /* Nothing to check for this grid; whether the rest fits, for per-launch grids (with one
     * program per cluster: the grid that always fits the cluster shape). */
    tkrt_launch_params_t one = *d;
    memcpy(one.grid, cluster, sizeof(one.grid));
    tkrt_status_t fit = tkrt_hal_validate_launch(info, &one);
    cs->dims_fit = fit == NULL;
    tkrt_status_free(fit);
    return NULL;
  }
  TKRT_RETURN_IF_ERROR(tkrt_hal_validate_launch(info, d));
  cs->dims_fit = true;
  return NULL;
}

/* ---------------------------------------------------------------- loading images in parallel */

/* Loads run on at most this many threads (the calling one included): a PTX JIT is single-threaded
 * in the driver and takes tens to hundreds of milliseconds, so an autotuned call's configs load
 * about this many times faster; more threads would mostly contend for the host's cores. */
#define TKRT_LOAD_THREADS 8

/* One distinct image of a state, loaded once for every config that uses it. */
typedef struct tkrt_image_load {
  const tkrt_kernel_image_t* image;
  tkrt_module_t* module; /* on success */
  tkrt_status_t status;  /* on failure (owned until taken) */
} tkrt_image_load_t;

typedef struct tkrt_load_batch {
  tkrt_device_t* device;
  tkrt_image_load_t* loads;
  size_t count;
  atomic_size_t next; /* the next load nobody took yet */
} tkrt_load_batch_t;

static void tkrt_image_load_run(tkrt_device_t* device, tkrt_image_load_t* load) {
  const tkrt_kernel_image_t* image = load->image;
  tkrt_image_t raw = {.kind = image->kind, .data = image->data, .size = image->size};
  /* Images decoded from a blob are loaded with the device's consent rules (native code). */
  load->status = image->origin == TKRT_IMAGE_ORIGIN_API
                     ? tkrt_module_load(device, &raw, &load->module)
                     : tkrt_hal_module_load_from_call(device, &raw, &load->module);
}

/* Each thread takes the next untaken load until none is left; every slot is written by the one
 * thread that took it and read after the joins. A slot that already has its module (shared from
 * another call's state) is skipped. */
static void* tkrt_load_worker(void* arg) {
  tkrt_load_batch_t* batch = arg;
  for (;;) {
    size_t i = atomic_fetch_add_explicit(&batch->next, 1, memory_order_relaxed);
    if (i >= batch->count) return NULL;
    if (!batch->loads[i].module) tkrt_image_load_run(batch->device, &batch->loads[i]);
  }
}

/* Runs every load, concurrently when there are several. The backends allow concurrent loads on
 * one device (CUDA: module loads on one context from several threads; the cubin cache's writes
 * are atomic renames); no lock is held meanwhile. A helper thread that cannot be started only
 * means fewer loads at once: the calling thread works through whatever is left. */
static void tkrt_load_images(tkrt_device_t* device, tkrt_image_load_t* loads, size_t count) {
  tkrt_load_batch_t batch = {.device = device, .loads = loads, .count = count};
  atomic_init(&batch.next, 0);
  pthread_t helpers[TKRT_LOAD_THREADS - 1];
  size_t needed = 0;
  for (size_t i = 0; i < count; ++i) needed += !loads[i].module;
  if (!needed) return;
  size_t wanted = needed < TKRT_LOAD_THREADS ? needed : TKRT_LOAD_THREADS;
  size_t started = 0;
  while (started + 1 < wanted &&
         pthread_create(&helpers[started], NULL, tkrt_load_worker, &batch) == 0) {
    ++started;
  }
  tkrt_load_worker(&batch);
  for (size_t i = 0; i < started; ++i) pthread_join(helpers[i], NULL);
}

/* Allocates `bytes` of scratch aligned to `align` (a power of two): *out_allocation is what to
 * free, *out_ptr the aligned start. Device allocations are at least 256-byte aligned, so only a
 * larger alignment costs slack. */
static tkrt_status_t tkrt_scratch_alloc(tkrt_device_t* device, const char* which, uint64_t bytes,
                                        uint32_t align, tkrt_deviceptr_t* out_allocation,
                                        tkrt_deviceptr_t* out_ptr) {
  size_t slack = align > TKRT_DEFAULT_SCRATCH_ALIGN ? align : 0;
  if (bytes > SIZE_MAX - slack) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE, "%s scratch of %llu bytes is too large",
                            which, (unsigned long long)bytes);
  }
  tkrt_deviceptr_t allocation = 0;
  tkrt_status_t status = tkrt_memory_alloc(device, (size_t)bytes + slack, &allocation);
  if (status) {
    return tkrt_status_annotate(status, "allocating %llu bytes of %s scratch",
                                (unsigned long long)bytes, which);
  }
  *out_allocation = allocation;
  *out_ptr = (allocation + align - 1) & ~(uint64_t)(align - 1);
  return NULL;
}

/* The module `donor` (a state of another call on the same device) loaded for `image`, retained
 * for the caller; NULL when it has none. */
static tkrt_module_t* tkrt_donor_module(const tkrt_call_device_state_t* donor,
                                        const tkrt_kernel_image_t* image) {
  for (size_t c = 0; donor && c < donor->config_count; ++c) {
    const tkrt_config_state_t* cs = &donor->configs[c];
    if (cs->function && cs->image && tkrt_same_image(cs->image, image)) {
      tkrt_module_t* module = cs->function->module;
      tkrt_hal_module_retain(module);
      return module;
    }
  }
  return NULL;
}

static tkrt_status_t tkrt_call_device_state_create(tkrt_call_t* call, tkrt_device_t* device,
                                                   const tkrt_call_device_state_t* donor,
                                                   tkrt_call_device_state_t** out_state) {
  const tkrt_device_info_t* info = tkrt_device_info(device);
  size_t count = call->desc.config_count;
  tkrt_call_device_state_t* state = calloc(1, sizeof(*state) + count * sizeof(tkrt_config_state_t));
  if (!state) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  state->device = device;
  tkrt_device_retain(device);
  state->config_count = count;
  atomic_init(&state->decision, 0);
  pthread_mutex_init(&state->grow_lock, NULL);
  atomic_init(&state->scratch.grown, NULL);
  atomic_init(&state->profile.grown, NULL);
  state->scratch.align = state->profile.align = TKRT_DEFAULT_SCRATCH_ALIGN;
  state->modules = calloc(count, sizeof(*state->modules));
  tkrt_image_load_t* loads = calloc(count, sizeof(*loads));
  size_t* config_load = calloc(count, sizeof(*config_load)); /* config -> its entry in loads */
  const tkrt_kernel_image_t** images = calloc(count, sizeof(*images));
  size_t load_count = 0;
  tkrt_status_t status = NULL;
  if (!state->modules || !loads || !config_load || !images) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
    goto fail;
  }

  /* 1. Choose each config's image and check its launch dims (no device work). */
  size_t runnable = 0, first_unrunnable = count;
  uint64_t scratch_bytes = 0, profile_bytes = 0;
  size_t c = 0;
  for (c = 0; c < count; ++c) {
    tkrt_config_state_t* cs = &state->configs[c];
    const tkrt_kernel_t* kernel = call->configs[c].kernel;
    const tkrt_kernel_image_t* image = NULL;
    tkrt_status_t why = tkrt_select_image(kernel, device, &image);
    if (!why) why = tkrt_config_resolve(call, c, device, info, image, cs);
    if (why) {
      /* A config that does not fit this device is skipped (tuning picks among the others). */
      char label[160];
      cs->unrunnable = tkrt_status_annotate(why, "%s", tkrt_config_label(call, c, label,
                                                                          sizeof(label)));
      cs->function = NULL;
      if (first_unrunnable == count) first_unrunnable = c;
      continue;
    }
    images[c] = image;
    cs->image = image;
    size_t m = 0;
    while (m < load_count && !tkrt_same_image(loads[m].image, image)) ++m;
    if (m == load_count) {
      loads[load_count].image = image;
      loads[load_count++].module = tkrt_donor_module(donor, image); /* shared, or loaded below */
    }
    config_load[c] = m;
  }

  /* 2. Load each distinct image once (unless a donor has it), all at once. */
  if (load_count) tkrt_load_images(device, loads, load_count);
  for (size_t m = 0; m < load_count; ++m) {
    if (loads[m].module) state->modules[state->module_count++] = loads[m].module;
  }

  /* 3. In config order, so that the error is the one a load one after another would give: one
   * that fits but fails to load is an error (a JIT failure or a missing kernel is a bug, and a
   * transient failure must not quietly change which config runs). */
  for (c = 0; c < count; ++c) {
    tkrt_config_state_t* cs = &state->configs[c];
    if (cs->unrunnable) continue;
    tkrt_image_load_t* load = &loads[config_load[c]];
    if (load->status) {
      status = load->status;
      load->status = NULL;
      goto config_failed;
    }
    const tkrt_kernel_t* kernel = call->configs[c].kernel;
    const char* entry = images[c]->entry_name ? images[c]->entry_name : kernel->desc.name;
    status = tkrt_module_get_function(load->module, entry, &cs->function);
    if (status) goto config_failed;
    ++runnable;
    if (cs->scratch_bytes > scratch_bytes) scratch_bytes = cs->scratch_bytes;
    if (cs->profile_bytes > profile_bytes) profile_bytes = cs->profile_bytes;
    /* Every runnable config's alignment, whether its own grid needs scratch or not: a per-launch
     * grid may need it later, and grown allocations keep the alignment. */
    uint32_t align = kernel->desc.global_scratch_align;
    if (align > state->scratch.align) state->scratch.align = align;
    align = kernel->desc.profile_scratch_align;
    if (align > state->profile.align) state->profile.align = align;
  }
  if (runnable == 0) {
    /* Nothing can run here: report the first config's reason (the only one for plain calls). */
    tkrt_config_state_t* first = &state->configs[first_unrunnable];
    status = first->unrunnable;
    first->unrunnable = NULL;
    if (count > 1) {
      status = tkrt_status_annotate(status, "none of the %zu configs can run on %s device %d (%s)",
                                    count, info->backend, info->ordinal, info->arch);
    }
    goto fail;
  }
  /* One allocation each per (call, device), sized for the largest config's own grid, reused by
   * every launch; per-launch grids that need more grow it (tkrt_scratch_grow). */
  if (scratch_bytes) {
    status = tkrt_scratch_alloc(device, "global", scratch_bytes, state->scratch.align,
                                &state->scratch.allocation, &state->scratch.ptr);
    if (status) goto fail;
    state->scratch.capacity = scratch_bytes;
  }
  if (profile_bytes) {
    status = tkrt_scratch_alloc(device, "profile", profile_bytes, state->profile.align,
                                &state->profile.allocation, &state->profile.ptr);
    if (status) goto fail;
    state->profile.capacity = profile_bytes;
  }
  free(loads);
  free(config_load);
  free(images);
  *out_state = state;
  return NULL;

config_failed: {
  char label[160];
  status = tkrt_status_annotate(status, "%s", tkrt_config_label(call, c, label, sizeof(label)));
}
fail:
  /* Loaded modules are the state's (freed with it); failures nobody reported are dropped. */
  for (size_t m = 0; loads && m < load_count; ++m) tkrt_status_free(loads[m].status);
  free(loads);
  free(config_load);
  free(images);
  tkrt_call_device_state_free(state);
  return status;
}

tkrt_call_device_state_t* tkrt_call_device_state_find(tkrt_call_t* call,
                                                      const tkrt_device_t* device) {
  for (tkrt_call_device_state_t* state =
           atomic_load_explicit(&call->device_states, memory_order_acquire);
       state; state = state->next) {
    if (state->device == device) return state;
  }
  return NULL;
}

static tkrt_status_t tkrt_call_device_state_get_sharing(tkrt_call_t* call, tkrt_device_t* device,
                                                        const tkrt_call_t* donor,
                                                        tkrt_call_device_state_t** out_state);

tkrt_status_t tkrt_call_device_state_get(tkrt_call_t* call, tkrt_device_t* device,
                                         tkrt_call_device_state_t** out_state) {
  return tkrt_call_device_state_get_sharing(call, device, NULL, out_state);
}

static tkrt_status_t tkrt_call_device_state_get_sharing(tkrt_call_t* call, tkrt_device_t* device,
                                                        const tkrt_call_t* donor,
                                                        tkrt_call_device_state_t** out_state) {
  tkrt_call_device_state_t* state = tkrt_call_device_state_find(call, device);
  if (state) {
    *out_state = state;
    return NULL;
  }
  /* First use on this device: one thread builds the state, the others wait for it. */
  tkrt_status_t status = NULL;
  pthread_mutex_lock(&call->prepare_lock);
  state = tkrt_call_device_state_find(call, device);
  if (!state) {
    const tkrt_call_device_state_t* donor_state =
        donor ? tkrt_call_device_state_find((tkrt_call_t*)donor, device) : NULL;
    status = tkrt_call_device_state_create(call, device, donor_state, &state);
    if (!status) {
      state->next = atomic_load_explicit(&call->device_states, memory_order_relaxed);
      atomic_store_explicit(&call->device_states, state, memory_order_release);
    }
  }
  pthread_mutex_unlock(&call->prepare_lock);
  if (status) return status;
  *out_state = state;
  return NULL;
}

tkrt_status_t tkrt_call_prepare(tkrt_call_t* call, tkrt_device_t* device) {
  if (!call || !device) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_call_prepare: NULL argument");
  }
  tkrt_call_device_state_t* state;
  return tkrt_call_device_state_get(call, device, &state);
}

tkrt_status_t tkrt_call_prepare_sharing(tkrt_call_t* call, tkrt_device_t* device,
                                        const tkrt_call_t* source) {
  if (!call || !device) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_call_prepare_sharing: NULL argument");
  }
  tkrt_call_device_state_t* state;
  return tkrt_call_device_state_get_sharing(call, device, source, &state);
}

/* ---------------------------------------------------------------- per-launch grids */

/* The scratch that holds `needed` bytes, read without a lock: the allocation made at prepare or
 * the newest grown one (capacities only grow); 0 when neither is large enough. */
static tkrt_deviceptr_t tkrt_scratch_find(tkrt_scratch_t* scratch, uint64_t needed) {
  if (needed <= scratch->capacity) return scratch->ptr;
  tkrt_scratch_block_t* block = atomic_load_explicit(&scratch->grown, memory_order_acquire);
  return block && needed <= block->capacity ? block->ptr : 0;
}

/* Grows a scratch to hold `needed` bytes for a launch on args->stream: never while that stream
 * captures (allocating would break the capture, and a graph must not depend on a launch-time
 * allocation). The new allocation is at least twice the old, so that grids that keep growing
 * allocate a logarithmic number of times; the old ones stay until the state is freed, since
 * kernels already queued may still use them. */
static tkrt_status_t tkrt_scratch_grow(const tkrt_call_t* call, tkrt_call_device_state_t* state,
                                       tkrt_scratch_t* scratch, const char* which,
                                       uint64_t needed, const tkrt_call_launch_args_t* args,
                                       tkrt_deviceptr_t* out_ptr) {
  bool capturing = false;
  TKRT_RETURN_IF_ERROR(tkrt_stream_is_capturing(args->device, args->stream, &capturing));
  pthread_mutex_lock(&state->grow_lock);
  tkrt_status_t status = NULL;
  tkrt_deviceptr_t ptr = tkrt_scratch_find(scratch, needed);
  if (!ptr) {
    tkrt_scratch_block_t* newest = atomic_load_explicit(&scratch->grown, memory_order_relaxed);
    uint64_t held = newest ? newest->capacity : scratch->capacity;
    if (capturing) {
      const tkrt_device_info_t* info = tkrt_device_info(args->device);
      status = TKRT_STATUS_MAKE(
          TKRT_STATUS_FAILED_PRECONDITION,
          "call '%s' needs %llu bytes of %s scratch for this launch's grid on %s device %d and "
          "holds %llu; the stream is capturing, and allocating more now would break the capture: "
          "launch once with the largest grid first, outside the capture",
          tkrt_call_name(call), (unsigned long long)needed, which, info->backend, info->ordinal,
          (unsigned long long)held);
      goto done;
    }
    tkrt_scratch_block_t* block = calloc(1, sizeof(*block));
    if (!block) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
      goto done;
    }
    uint64_t bytes = held <= UINT64_MAX / 4 && held * 2 > needed ? held * 2 : needed;
    status = tkrt_scratch_alloc(args->device, which, bytes, scratch->align, &block->allocation,
                                &block->ptr);
    if (status && bytes > needed) {
      /* Not room for the doubling: exactly what this launch needs. */
      tkrt_status_free(status);
      bytes = needed;
      status = tkrt_scratch_alloc(args->device, which, bytes, scratch->align, &block->allocation,
                                  &block->ptr);
    }
    if (status) {
      free(block);
      status = tkrt_status_annotate(status, "call '%s': growing %s scratch from %llu bytes",
                                    tkrt_call_name(call), which, (unsigned long long)held);
      goto done;
    }
    block->capacity = bytes;
    block->older = newest;
    atomic_store_explicit(&scratch->grown, block, memory_order_release);
    ptr = block->ptr;
  }
  *out_ptr = ptr;
done:
  pthread_mutex_unlock(&state->grow_lock);
  return status;
}

/* The scratch pointer for `needed` bytes (0 when none is needed), growing it when it must. */
static tkrt_status_t tkrt_scratch_for_launch(const tkrt_call_t* call,
                                             tkrt_call_device_state_t* state,
                                             tkrt_scratch_t* scratch, const char* which,
                                             uint64_t needed, const tkrt_call_launch_args_t* args,
                                             tkrt_deviceptr_t* out_ptr) {
  *out_ptr = 0;
  if (!needed) return NULL;
  *out_ptr = tkrt_scratch_find(scratch, needed);
  if (*out_ptr) return NULL;
  if (args->flags & TKRT_CALL_LAUNCH_NO_WAIT) return tkrt_status_would_wait();
  return tkrt_scratch_grow(call, state, scratch, which, needed, args, out_ptr);
}

/* A launch with a grid callback: asks it for config `index`'s grid (pre-filled with the config's
 * own), then computes what tkrt_config_resolve computes once for fixed grids: the scaled grid,
 * whether it is empty, the launch checks, and the scratch it needs (grown when needed). *out_empty
 * set: a zero grid, nothing to launch. Nothing is enqueued here. */
static tkrt_status_t tkrt_launch_grid(const tkrt_call_t* call, tkrt_call_device_state_t* state,
                                      size_t index, const tkrt_call_launch_args_t* args,
                                      tkrt_launch_params_t* out_dims, bool* out_empty,
                                      tkrt_deviceptr_t* out_scratch,
                                      tkrt_deviceptr_t* out_profile) {
  const tkrt_config_desc_t* config = &call->configs[index];
  const tkrt_config_state_t* cs = &state->configs[index];
  const tkrt_kernel_desc_t* kd = &config->kernel->desc;
  char label[160];
  uint32_t grid[3];
  memcpy(grid, config->grid, sizeof(grid));
  tkrt_status_t status = args->grid(args->grid_user, index, grid);
  if (status) {
    return tkrt_status_annotate(status, "the grid callback for %s",
                                tkrt_config_label(call, index, label, sizeof(label)));
  }
  *out_dims = cs->dims;
  uint64_t programs = 0;
  status = tkrt_grid_scale(grid, cs->cluster, "per-launch ", out_dims, &programs);
  if (!status && programs) {
    /* Only the grid differs from the config's dims, which prepare validated (when its own grid
     * was not empty) without a cluster: a grid within the device's limits needs nothing more. The
     * rest, and any doubt, goes through the full check and its messages. */
    const tkrt_device_info_t* info = tkrt_device_info(args->device);
    bool grid_only = cs->dims_fit && !(out_dims->cluster[0] | out_dims->cluster[1] |
                                       out_dims->cluster[2]);
    for (int i = 0; grid_only && i < 3; ++i) {
      grid_only = out_dims->grid[i] >= 1 && out_dims->grid[i] <= info->max_grid_dim[i];
    }
    if (!grid_only) status = tkrt_hal_validate_launch(info, out_dims);
  }
  uint64_t scratch_bytes = 0, profile_bytes = 0;
  if (!status) status = tkrt_scratch_size(programs, kd->global_scratch_size, "global", &scratch_bytes);
  if (!status) status = tkrt_scratch_size(programs, kd->profile_scratch_size, "profile", &profile_bytes);
  if (status) {
    return tkrt_status_annotate(status, "per-launch grid (%u, %u, %u) of %s", grid[0], grid[1],
                                grid[2], tkrt_config_label(call, index, label, sizeof(label)));
  }
  *out_empty = programs == 0;
  if (*out_empty) return NULL;
  TKRT_RETURN_IF_ERROR(tkrt_scratch_for_launch(call, state, &state->scratch, "global",
                                               scratch_bytes, args, out_scratch));
  return tkrt_scratch_for_launch(call, state, &state->profile, "profile", profile_bytes, args,
                                 out_profile);
}

/* ---------------------------------------------------------------- launching */

/* Config `index`'s TMA parameter `i` with the launch's shape k merged in, validated. *out is the
 * call's descriptor when the launch gives none (or rank 0) for it. */
static tkrt_status_t tkrt_tma_for_launch(const tkrt_call_t* call, size_t index, size_t i,
                                         size_t k, const tkrt_call_launch_args_t* args,
                                         const tkrt_tma_desc_t** out, tkrt_tma_desc_t* merged) {
  const tkrt_tma_desc_t* own = &call->configs[index].params[i].value.tma;
  *out = own;
  if (k >= args->tma_shape_count || args->tma_shapes[k].rank == 0) return NULL;
  const tkrt_tma_shape_t* shape = &args->tma_shapes[k];
  char label[160];
  if (shape->rank != own->rank) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "per-launch TMA shape %zu (parameter %zu of %s) has rank %u; the "
                            "parameter's is %u",
                            k, i, tkrt_config_label(call, index, label, sizeof(label)),
                            shape->rank, own->rank);
  }
  if (shape->fill > 2) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "per-launch TMA shape %zu (parameter %zu of %s) has fill %u; 0 (the "
                            "call's), 1 (zeros) or 2 (NaN)",
                            k, i, tkrt_config_label(call, index, label, sizeof(label)),
                            shape->fill);
  }
  *merged = *own;
  memcpy(merged->shape, shape->shape, sizeof(merged->shape));
  memcpy(merged->strides, shape->strides, sizeof(merged->strides));
  if (shape->fill) merged->oob_fill = shape->fill - 1;
  tkrt_status_t status = tkrt_hal_tma_validate(merged, i);
  if (status) {
    return tkrt_status_annotate(status, "per-launch TMA shape %zu of %s", k,
                                tkrt_config_label(call, index, label, sizeof(label)));
  }
  *out = merged;
  return NULL;
}

/* The bytes a TMA descriptor's tensor spans from its base, (1 + sum (shape[d] - 1) * strides[d])
 * elements, must lie in its buffer where the buffer's size is known: the copy engine reads and
 * writes anywhere in the described tensor, so a shape larger than the buffer would reach memory
 * outside it. The descriptor was validated (rank 1..5, shapes >= 1). */
static tkrt_status_t tkrt_tma_within_buffer(const tkrt_tma_desc_t* tma, const tkrt_buffer_t* buffer,
                                            size_t i) {
  if (buffer->size == TKRT_BUFFER_SIZE_UNKNOWN) return NULL;
  uint64_t last = 0, term = 0, bytes = 0;
  bool overflow = false;
  for (uint32_t d = 0; d < tma->rank && !overflow; ++d) {
    overflow = __builtin_mul_overflow(tma->shape[d] - 1, tma->strides[d], &term) ||
               __builtin_add_overflow(last, term, &last);
  }
  overflow = overflow || __builtin_add_overflow(last, 1, &last) ||
             __builtin_mul_overflow(last, (uint64_t)tkrt_hal_tma_element_bytes(tma->elem_type),
                                    &bytes);
  if (overflow || bytes > buffer->size) {
    return TKRT_TMA_INVALID("its shape and strides span %s%llu bytes but its buffer holds %llu",
                            i, overflow ? "more than " : "",
                            (unsigned long long)(overflow ? UINT64_MAX : bytes),
                            (unsigned long long)buffer->size);
  }
  return NULL;
}

tkrt_status_t tkrt_call_launch_config(const tkrt_call_t* call,
                                      const tkrt_call_device_state_t* state, size_t index,
                                      const tkrt_call_launch_args_t* args) {
  const tkrt_config_desc_t* config = &call->configs[index];
  const tkrt_config_state_t* cs = &state->configs[index];
  size_t buffer_count = args->input_count + args->output_count;
  uint64_t stack_values[TKRT_STACK_PARAMS];
  void* stack_params[TKRT_STACK_PARAMS];
  uint64_t* values = stack_values;
  void** params = stack_params;
  uint32_t hidden = tkrt_hidden_pointer_count(config->kernel->desc.hidden_pointers);
  size_t total = config->param_count + hidden;
  tkrt_status_t status = NULL;
  char label[160];
  /* TMA parameters' values (see below): on the stack for the usual few, else on the heap. */
  _Alignas(128) unsigned char tma_stack[TKRT_STACK_TMA * TKRT_HAL_TMA_DESC_MAX];
  const uint32_t tma_size = tkrt_hal_device_tma_size(args->device);
  unsigned char* tma_slots = tma_stack;
  uint32_t tma_next = 0;
  /* Per-launch TMA shapes merged and validated once, kept for the pack (the first few). */
  tkrt_tma_desc_t tma_merged[TKRT_STACK_TMA];
  const tkrt_tma_desc_t* tma_descs[TKRT_STACK_TMA];

  /* Validate every parameter before enqueueing anything. */
  size_t next_buffer = 0;
  size_t next_scalar = 0;
  size_t next_tma = 0;
  for (size_t i = 0; i < config->param_count; ++i) {
    const tkrt_param_t* p = &config->params[i];
    if (p->kind != TKRT_PARAM_ARRAY && p->kind != TKRT_PARAM_TMA) {
      /* A per-launch scalar takes the place of the call's value: same kind only. */
      size_t k = next_scalar++;
      if (k < args->scalar_count && args->scalars[k].kind && args->scalars[k].kind != p->kind) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "per-launch scalar %zu (parameter %zu of %s) is %s; the parameter "
                                "is %s",
                                k, i, tkrt_config_label(call, index, label, sizeof(label)),
                                tkrt_param_kind_name(args->scalars[k].kind),
                                tkrt_param_kind_name(p->kind));
      }
      continue;
    }
    if (next_buffer >= buffer_count) {
      size_t arrays = 0;
      for (size_t j = 0; j < config->param_count; ++j) {
        arrays += config->params[j].kind == TKRT_PARAM_ARRAY || config->params[j].kind == TKRT_PARAM_TMA;
      }
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "%s has %zu array%s parameters but only %zu buffers were given "
                              "(parameter %zu has no buffer)",
                              tkrt_config_label(call, index, label, sizeof(label)), arrays,
                              cs->tma_count ? " and TMA" : "", buffer_count, i);
    }
    const tkrt_buffer_t* buffer = &args->buffers[next_buffer++];
    if (p->kind == TKRT_PARAM_TMA) {
      const tkrt_tma_desc_t* tma = &p->value.tma;
      if (args->tma_shape_count) {
        size_t k = next_tma++;
        tkrt_tma_desc_t merged;
        tkrt_tma_desc_t* into = k < TKRT_STACK_TMA ? &tma_merged[k] : &merged;
        TKRT_RETURN_IF_ERROR(tkrt_tma_for_launch(call, index, i, k, args, &tma, into));
        if (k < TKRT_STACK_TMA) tma_descs[k] = tma;
      }
      if (!buffer->ptr || buffer->ptr % TKRT_TMA_BASE_ALIGN != 0) {
        return TKRT_TMA_INVALID("its buffer's address 0x%llx is not %u-byte aligned", i,
                                (unsigned long long)buffer->ptr, TKRT_TMA_BASE_ALIGN);
      }
      TKRT_RETURN_IF_ERROR(tkrt_tma_within_buffer(tma, buffer, i));
      continue;
    }
    uint64_t divisibility = p->value.array.ptr_divisibility;
    /* An empty buffer may sit at any address (XLA places empty optional operands anywhere) and
     * is never read, so its address is not checked. */
    /* A mask for powers of two (Triton's 16): no division per launch. */
    if (divisibility > 1 && buffer->size != 0 &&
        ((divisibility & (divisibility - 1)) == 0 ? (buffer->ptr & (divisibility - 1)) != 0
                                                   : buffer->ptr % divisibility != 0)) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "parameter %zu (0x%llx) is not divisible by %llu", i,
                              (unsigned long long)buffer->ptr, (unsigned long long)divisibility);
    }
    uint64_t zero = p->value.array.bytes_to_zero;
    if (zero && (!buffer->ptr ||
                 (buffer->size != TKRT_BUFFER_SIZE_UNKNOWN && zero > buffer->size))) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "parameter %zu: bytes_to_zero is %llu but its buffer %s", i,
                              (unsigned long long)zero,
                              buffer->ptr ? "is smaller" : "is null");
    }
  }
  if (args->scalar_count > next_scalar) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "%zu per-launch scalars given; %s has %zu scalar parameters",
                            args->scalar_count,
                            tkrt_config_label(call, index, label, sizeof(label)), next_scalar);
  }
  if (args->tma_shape_count > next_tma) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "%zu per-launch TMA shapes given; %s has %zu TMA parameters",
                            args->tma_shape_count,
                            tkrt_config_label(call, index, label, sizeof(label)), next_tma);
  }
  /* The grid, its checks and the scratch: the config's, resolved at prepare, or this launch's. */
  const tkrt_launch_params_t* dims = &cs->dims;
  tkrt_deviceptr_t scratch = cs->scratch_bytes ? state->scratch.ptr : 0;
  tkrt_deviceptr_t profile = cs->profile_bytes ? state->profile.ptr : 0;
  tkrt_launch_params_t launch;
  if (args->grid) {
    bool empty = false;
    /* Growing scratch takes the state's lock and publishes atomically: the state is shared. */
    TKRT_RETURN_IF_ERROR(tkrt_launch_grid(call, (tkrt_call_device_state_t*)state, index, args,
                                          &launch, &empty, &scratch, &profile));
    if (empty) return NULL;
  } else {
    if (cs->empty_grid) return NULL;
    launch = *dims;
  }

  if (total > TKRT_STACK_PARAMS) {
    values = malloc(total * sizeof(*values));
    params = malloc(total * sizeof(*params));
    if (!values || !params) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
      goto done;
    }
  }
  /* TMA parameters are passed by value: 128 bytes (a CUtensorMap), 128-byte aligned, one slot each
   * outside `values`. Only calls with TMA parameters pay for it. The descriptor is encoded on the
   * host for this launch's buffer; cuLaunchKernel copies parameter values when it is called, so
   * the bytes may be freed on return, and under stream capture the driver copies them into the
   * graph's kernel node: a captured launch keeps the descriptor of the buffers it was captured
   * with, exactly as its array parameters keep their addresses. */
  if (cs->tma_count) {
    uint32_t align = tkrt_hal_device_tma_align(args->device);
    if (cs->tma_count > TKRT_STACK_TMA || tma_size > TKRT_HAL_TMA_DESC_MAX || align > 128) {
      tma_slots = aligned_alloc(align > 128 ? align : 128,
                                ((size_t)cs->tma_count * tma_size + 127) / 128 * 128);
    }
    if (!tma_slots) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
      goto done;
    }
  }
  /* Pack: every value sits in its own 8-byte slot; the HAL copies them at launch. */
  next_buffer = 0;
  next_scalar = 0;
  next_tma = 0;
  for (size_t i = 0; i < config->param_count; ++i) {
    const tkrt_param_t* p = &config->params[i];
    void* slot = &values[i];
    values[i] = 0;
    if (args->scalar_count && p->kind != TKRT_PARAM_ARRAY && p->kind != TKRT_PARAM_TMA) {
      /* A per-launch value (validated above: same kind). */
      size_t k = next_scalar++;
      if (k < args->scalar_count && args->scalars[k].kind) {
        const tkrt_scalar_t* v = &args->scalars[k];
        if (p->kind == TKRT_PARAM_BOOL) {
          *(uint8_t*)slot = v->value.b ? 1 : 0;
        } else {
          memcpy(slot, &v->value, p->kind == TKRT_PARAM_I32 || p->kind == TKRT_PARAM_U32 ||
                                          p->kind == TKRT_PARAM_F32
                                      ? 4
                                      : 8);
        }
        params[i] = slot;
        continue;
      }
    }
    switch (p->kind) {
      case TKRT_PARAM_ARRAY: {
        const tkrt_buffer_t* buffer = &args->buffers[next_buffer++];
        values[i] = buffer->ptr;
        break; /* bytes_to_zero: enqueued below, once every descriptor is encoded */
      }
      case TKRT_PARAM_BOOL: *(uint8_t*)slot = p->value.b ? 1 : 0; break;
      case TKRT_PARAM_I32: memcpy(slot, &p->value.i32, 4); break;
      case TKRT_PARAM_U32: memcpy(slot, &p->value.u32, 4); break;
      case TKRT_PARAM_I64: memcpy(slot, &p->value.i64, 8); break;
      case TKRT_PARAM_U64: memcpy(slot, &p->value.u64, 8); break;
      case TKRT_PARAM_F32: memcpy(slot, &p->value.f32, 4); break;
      case TKRT_PARAM_F64: memcpy(slot, &p->value.f64, 8); break;
      case TKRT_PARAM_TMA: {
        const tkrt_buffer_t* buffer = &args->buffers[next_buffer++];
        slot = tma_slots + (size_t)tma_next++ * tma_size;
        const tkrt_tma_desc_t* tma = &p->value.tma;
        tkrt_tma_desc_t merged;
        if (args->tma_shape_count) {
          /* Merged and validated above: kept for the first few, merged again past them. */
          size_t k = next_tma++;
          if (k < TKRT_STACK_TMA) {
            tma = tma_descs[k];
          } else {
            status = tkrt_tma_for_launch(call, index, i, k, args, &tma, &merged);
            if (status) goto done;
          }
        }
        status = tkrt_hal_device_encode_tma(args->device, tma, buffer->ptr, slot);
        if (status) {
          status = tkrt_status_annotate(status, "parameter %zu (TMA descriptor) of %s", i,
                                        tkrt_config_label(call, index, label, sizeof(label)));
          goto done;
        }
        break;
      }
    }
    params[i] = slot;
  }
  /* Only now the memsets (bytes_to_zero): a descriptor the backend refused to encode above must
   * leave the buffers as they were (nothing enqueued on error). */
  for (size_t i = 0; i < config->param_count; ++i) {
    const tkrt_param_t* p = &config->params[i];
    if (p->kind != TKRT_PARAM_ARRAY || !p->value.array.bytes_to_zero) continue;
    status = tkrt_memset_async(args->device, values[i], 0, p->value.array.bytes_to_zero,
                               args->stream);
    if (status) {
      status = tkrt_status_annotate(status, "zeroing %llu bytes of parameter %zu",
                                    (unsigned long long)p->value.array.bytes_to_zero, i);
      goto done;
    }
  }
  /* The hidden pointers the kernel declares (its Triton's): global, then profile scratch. */
  const tkrt_deviceptr_t scratch_pointers[2] = {scratch, profile};
  for (uint32_t h = 0; h < hidden; ++h) {
    values[config->param_count + h] = scratch_pointers[h];
    params[config->param_count + h] = &values[config->param_count + h];
  }

  launch.params = params;
  launch.param_count = (uint32_t)total;
  status = tkrt_hal_function_launch(cs->function, &launch, args->stream);
  if (status) {
    status = tkrt_status_annotate(status, "launching %s",
                                  tkrt_config_label(call, index, label, sizeof(label)));
  }

done:
  if (tma_slots != tma_stack) free(tma_slots);
  if (values != stack_values) free(values);
  if (params != stack_params) free(params);
  return status;
}
