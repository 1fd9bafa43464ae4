/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt core: constructors, accessors and digests for kernels and calls. Everything is deep-
 * copied at creation so that callers may free their descriptions right away. */
#include <stdlib.h>
#include <string.h>

#include "core/call_internal.h"
#include "registry/registry.h"
#include "base/versioned.h"

#define TKRT_OOM() TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory")

static int tkrt_dup_string(const char* src, const char** out) {
  if (!src) {
    *out = NULL;
    return 1;
  }
  size_t length = strlen(src);
  char* copy = malloc(length + 1);
  if (!copy) return 0;
  memcpy(copy, src, length + 1);
  *out = copy;
  return 1;
}

static int tkrt_dup_bytes(const void* src, size_t size, const void** out) {
  if (!src || size == 0) {
    *out = NULL;
    return 1;
  }
  void* copy = malloc(size);
  if (!copy) return 0;
  memcpy(copy, src, size);
  *out = copy;
  return 1;
}

const char* tkrt_param_kind_name(tkrt_param_kind_t kind) {
  switch (kind) {
    case TKRT_PARAM_ARRAY: return "array";
    case TKRT_PARAM_BOOL: return "bool";
    case TKRT_PARAM_I32: return "i32";
    case TKRT_PARAM_U32: return "u32";
    case TKRT_PARAM_I64: return "i64";
    case TKRT_PARAM_U64: return "u64";
    case TKRT_PARAM_F32: return "f32";
    case TKRT_PARAM_F64: return "f64";
    case TKRT_PARAM_TMA: return "tma_descriptor";
  }
  return "unknown";
}

const char* tkrt_kernel_image_backend(const tkrt_kernel_image_t* image) {
  if (image->backend && *image->backend) return image->backend;
  const tkrt_hal_backend_t* backend = tkrt_hal_registry_backend_for_kind(image->kind);
  return backend ? backend->name : "";
}

/* ---------------------------------------------------------------- digests
 * Every field that changes what runs is fed with a tag and a fixed width, so that different
 * descriptions can never produce the same byte stream. */

static void tkrt_digest_u64(tkrt_sha256_t* ctx, char tag, uint64_t value) {
  uint8_t bytes[9];
  bytes[0] = (uint8_t)tag;
  for (int i = 0; i < 8; ++i) bytes[1 + i] = (uint8_t)(value >> (8 * i));
  tkrt_sha256_update(ctx, bytes, sizeof(bytes));
}

static void tkrt_digest_bytes(tkrt_sha256_t* ctx, char tag, const void* data, size_t size) {
  tkrt_digest_u64(ctx, tag, size);
  if (size) tkrt_sha256_update(ctx, data, size);
}

static void tkrt_digest_string(tkrt_sha256_t* ctx, char tag, const char* text) {
  if (!text) {
    tkrt_digest_u64(ctx, (char)(tag | 0x80), 0);
    return;
  }
  tkrt_digest_bytes(ctx, tag, text, strlen(text));
}

static void tkrt_kernel_compute_digest(tkrt_kernel_t* kernel) {
  const tkrt_kernel_desc_t* d = &kernel->desc;
  tkrt_sha256_t ctx;
  tkrt_sha256_init(&ctx);
  tkrt_digest_string(&ctx, 'n', d->name);
  tkrt_digest_u64(&ctx, 'w', d->num_warps);
  tkrt_digest_u64(&ctx, 'c', d->num_ctas);
  for (int i = 0; i < 3; ++i) tkrt_digest_u64(&ctx, 'C', d->cluster_dims[i]);
  tkrt_digest_u64(&ctx, 's', d->shared_mem_bytes);
  tkrt_digest_u64(&ctx, 'g', d->global_scratch_size);
  tkrt_digest_u64(&ctx, 'a', d->global_scratch_align);
  tkrt_digest_u64(&ctx, 'f', d->launch_flags);
  tkrt_digest_u64(&ctx, 'i', d->image_count);
  for (size_t i = 0; i < d->image_count; ++i) {
    const tkrt_kernel_image_t* image = &d->images[i];
    tkrt_digest_string(&ctx, 'b', tkrt_kernel_image_backend(image));
    tkrt_digest_string(&ctx, 'r', image->arch);
    tkrt_digest_u64(&ctx, 'k', (uint64_t)image->kind);
    tkrt_digest_bytes(&ctx, 'd', image->data, image->size);
    tkrt_digest_string(&ctx, 'e', image->entry_name);
    tkrt_digest_u64(&ctx, 'S', image->shared_mem_bytes);
  }
  /* Appended after the images, and only when it matters (a size, or an alignment above 1), so
   * that kernels without profile scratch have one digest however they were described: decoded
   * from a blob (align 0) or loaded from Triton's output (align 1). */
  if (d->profile_scratch_size || d->profile_scratch_align > 1) {
    tkrt_digest_u64(&ctx, 'p', d->profile_scratch_size);
    tkrt_digest_u64(&ctx, 'A', d->profile_scratch_align);
  }
  /* Likewise the hidden pointers: only kernels of older Tritons, which declare fewer, add them. */
  if (d->hidden_pointers) {
    tkrt_digest_u64(&ctx, 'h', d->hidden_pointers);
  }
  tkrt_sha256_final(&ctx, kernel->digest);
}

static void tkrt_param_digest(tkrt_sha256_t* ctx, const tkrt_param_t* p) {
  tkrt_digest_u64(ctx, 'K', (uint64_t)p->kind);
  switch (p->kind) {
    case TKRT_PARAM_ARRAY:
      tkrt_digest_u64(ctx, 'z', p->value.array.bytes_to_zero);
      tkrt_digest_u64(ctx, 'v', p->value.array.ptr_divisibility);
      break;
    case TKRT_PARAM_BOOL: tkrt_digest_u64(ctx, 'B', p->value.b ? 1 : 0); break;
    case TKRT_PARAM_I32: tkrt_digest_u64(ctx, 'V', (uint32_t)p->value.i32); break;
    case TKRT_PARAM_U32: tkrt_digest_u64(ctx, 'V', p->value.u32); break;
    case TKRT_PARAM_I64: tkrt_digest_u64(ctx, 'V', (uint64_t)p->value.i64); break;
    case TKRT_PARAM_U64: tkrt_digest_u64(ctx, 'V', p->value.u64); break;
    case TKRT_PARAM_F32: tkrt_digest_bytes(ctx, 'V', &p->value.f32, sizeof(float)); break;
    case TKRT_PARAM_F64: tkrt_digest_bytes(ctx, 'V', &p->value.f64, sizeof(double)); break;
    case TKRT_PARAM_TMA: {
      const tkrt_tma_desc_t* t = &p->value.tma;
      tkrt_digest_u64(ctx, 'T', t->elem_type);
      tkrt_digest_u64(ctx, 'T', t->swizzle);
      tkrt_digest_u64(ctx, 'T', t->oob_fill);
      tkrt_digest_u64(ctx, 'T', t->rank);
      for (uint32_t i = 0; i < t->rank && i < TKRT_TMA_MAX_RANK; ++i) {
        tkrt_digest_u64(ctx, 'x', t->shape[i]);
        tkrt_digest_u64(ctx, 'y', t->strides[i]);
        tkrt_digest_u64(ctx, 'q', t->block_shape[i]);
      }
      break;
    }
  }
}

/* One config of a call on its own (its kernel, grid and parameters; not the call's other configs
 * or aliases): what the tuning database keys a config's time by (core/tune/decide.c), so that
 * adding a config to a call does not retime the others. */
void tkrt_config_digest(const tkrt_call_t* call, size_t index, uint8_t out[TKRT_DIGEST_SIZE]) {
  const tkrt_config_desc_t* config = &call->configs[index];
  tkrt_sha256_t ctx;
  tkrt_sha256_init(&ctx);
  tkrt_sha256_update(&ctx, config->kernel->digest, TKRT_DIGEST_SIZE);
  for (int i = 0; i < 3; ++i) tkrt_digest_u64(&ctx, 'G', config->grid[i]);
  tkrt_digest_u64(&ctx, 'P', config->param_count);
  for (size_t i = 0; i < config->param_count; ++i) tkrt_param_digest(&ctx, &config->params[i]);
  tkrt_sha256_final(&ctx, out);
}

/* ---------------------------------------------------------------- kernels */

uint32_t tkrt_hidden_pointer_count(uint32_t hidden_pointers) {
  return hidden_pointers == TKRT_HIDDEN_POINTERS_NONE     ? 0
         : hidden_pointers == TKRT_HIDDEN_POINTERS_GLOBAL ? 1
                                                           : 2;
}

void tkrt_kernel_desc_init(tkrt_kernel_desc_t* desc) {
  memset(desc, 0, sizeof(*desc));
  desc->struct_size = sizeof(*desc);
}

static void tkrt_kernel_destroy(tkrt_kernel_t* kernel) {
  if (!kernel) return;
  if (kernel->images) {
    for (size_t i = 0; i < kernel->desc.image_count; ++i) {
      tkrt_kernel_image_t* image = &kernel->images[i];
      free((void*)image->backend);
      free((void*)image->arch);
      free((void*)image->data);
      free((void*)image->entry_name);
    }
    free(kernel->images);
  }
  if (kernel->record) kernel->record_free(kernel->record);
  free((void*)kernel->desc.name);
  free((void*)kernel->desc.ttir);
  free(kernel);
}

tkrt_status_t tkrt_kernel_create(const tkrt_kernel_desc_t* caller_desc,
                                 tkrt_kernel_t** out_kernel) {
  return tkrt_kernel_create_with_record(caller_desc, NULL, NULL, out_kernel);
}

tkrt_status_t tkrt_kernel_create_with_record(const tkrt_kernel_desc_t* caller_desc, void* record,
                                             void (*record_free)(void* record),
                                             tkrt_kernel_t** out_kernel) {
  if (!caller_desc || !out_kernel || (record && !record_free)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_kernel_create: NULL argument");
  }
  tkrt_kernel_desc_t local;
  tkrt_kernel_desc_init(&local);
  TKRT_RETURN_IF_ERROR(
      tkrt_versioned_read(&local, sizeof(local), caller_desc, "tkrt_kernel_create"));
  const tkrt_kernel_desc_t* desc = &local;
  if (!desc->name || !*desc->name) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "kernel has no name");
  }
  if (desc->num_warps == 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "kernel '%s': num_warps is 0",
                            desc->name);
  }
  if (desc->image_count == 0 || !desc->images) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "kernel '%s' has no module image",
                            desc->name);
  }
  if (desc->global_scratch_align & (desc->global_scratch_align - 1)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "kernel '%s': global_scratch_align %u is not a power of two",
                            desc->name, desc->global_scratch_align);
  }
  if (desc->profile_scratch_align & (desc->profile_scratch_align - 1)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "kernel '%s': profile_scratch_align %u is not a power of two",
                            desc->name, desc->profile_scratch_align);
  }
  if (desc->hidden_pointers > TKRT_HIDDEN_POINTERS_NONE) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "kernel '%s': hidden_pointers %u is not a tkrt_hidden_pointers_t "
                            "(0, 1 or 2)",
                            desc->name, desc->hidden_pointers);
  }
  /* Scratch the kernel has no pointer for could not reach it: a contradiction, not a default. */
  uint32_t hidden = tkrt_hidden_pointer_count(desc->hidden_pointers);
  if ((hidden < 1 && desc->global_scratch_size) || (hidden < 2 && desc->profile_scratch_size)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "kernel '%s' needs %s scratch (%u bytes) but declares %u hidden "
                            "scratch pointer%s",
                            desc->name, hidden < 1 && desc->global_scratch_size ? "global" : "profile",
                            hidden < 1 && desc->global_scratch_size ? desc->global_scratch_size
                                                                    : desc->profile_scratch_size,
                            hidden, hidden == 1 ? "" : "s");
  }
  for (size_t i = 0; i < desc->image_count; ++i) {
    if (!desc->images[i].data || desc->images[i].size == 0) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "kernel '%s': image %zu is empty",
                              desc->name, i);
    }
  }

  tkrt_kernel_t* kernel = calloc(1, sizeof(*kernel));
  if (!kernel) return TKRT_OOM();
  atomic_init(&kernel->ref_count, 1);
  kernel->desc = *desc;
  kernel->desc.struct_size = sizeof(kernel->desc);
  kernel->desc.name = kernel->desc.ttir = NULL;
  kernel->desc.images = NULL;
  kernel->desc.image_count = 0;
  if (!tkrt_dup_string(desc->name, &kernel->desc.name) ||
      !tkrt_dup_string(desc->ttir, &kernel->desc.ttir)) {
    goto oom;
  }
  kernel->images = calloc(desc->image_count, sizeof(*kernel->images));
  if (!kernel->images) goto oom;
  kernel->desc.images = kernel->images;
  kernel->desc.image_count = desc->image_count;
  for (size_t i = 0; i < desc->image_count; ++i) {
    const tkrt_kernel_image_t* src = &desc->images[i];
    tkrt_kernel_image_t* dst = &kernel->images[i];
    dst->kind = src->kind;
    dst->size = src->size;
    dst->shared_mem_bytes = src->shared_mem_bytes;
    dst->origin = src->origin;
    if (!tkrt_dup_string(src->backend, &dst->backend) || !tkrt_dup_string(src->arch, &dst->arch) ||
        !tkrt_dup_bytes(src->data, src->size, &dst->data) ||
        !tkrt_dup_string(src->entry_name, &dst->entry_name)) {
      goto oom;
    }
  }
  tkrt_kernel_compute_digest(kernel);
  /* Attached last: until here a failure leaves the record with the caller. */
  kernel->record = record;
  kernel->record_free = record_free;
  *out_kernel = kernel;
  return NULL;

oom:
  tkrt_kernel_destroy(kernel);
  return TKRT_OOM();
}

void tkrt_kernel_retain(tkrt_kernel_t* kernel) {
  if (kernel) atomic_fetch_add_explicit(&kernel->ref_count, 1, memory_order_relaxed);
}

void tkrt_kernel_release(tkrt_kernel_t* kernel) {
  if (kernel && atomic_fetch_sub_explicit(&kernel->ref_count, 1, memory_order_acq_rel) == 1) {
    tkrt_kernel_destroy(kernel);
  }
}

const tkrt_kernel_desc_t* tkrt_kernel_get_desc(const tkrt_kernel_t* kernel) {
  return kernel ? &kernel->desc : NULL;
}

const void* tkrt_kernel_record(const tkrt_kernel_t* kernel, void (*record_free)(void* record)) {
  return kernel && kernel->record && kernel->record_free == record_free ? kernel->record : NULL;
}

/* ---------------------------------------------------------------- calls */

void tkrt_call_desc_init(tkrt_call_desc_t* desc) {
  memset(desc, 0, sizeof(*desc));
  desc->struct_size = sizeof(*desc);
}

static void tkrt_call_destroy(tkrt_call_t* call) {
  if (!call) return;
  tkrt_call_device_states_free(call);
  pthread_mutex_destroy(&call->prepare_lock);
  if (call->configs) {
    for (size_t i = 0; i < call->desc.config_count; ++i) {
      tkrt_kernel_release(call->configs[i].kernel);
      free((void*)call->configs[i].params);
      free((void*)call->configs[i].description);
    }
    free(call->configs);
  }
  free(call->aliases);
  free((void*)call->desc.name);
  free((void*)call->desc.autotune_name);
  free((void*)call->desc.metadata);
  free(call);
}

static tkrt_status_t tkrt_check_param(const tkrt_param_t* p, size_t config, size_t index) {
  switch (p->kind) {
    case TKRT_PARAM_ARRAY: {
      uint64_t d = p->value.array.ptr_divisibility;
      if (d & (d - 1)) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "config %zu parameter %zu: ptr_divisibility %llu is not a power "
                                "of two",
                                config, index, (unsigned long long)d);
      }
      return NULL;
    }
    case TKRT_PARAM_BOOL:
    case TKRT_PARAM_I32:
    case TKRT_PARAM_U32:
    case TKRT_PARAM_I64:
    case TKRT_PARAM_U64:
    case TKRT_PARAM_F32:
    case TKRT_PARAM_F64: return NULL;
    case TKRT_PARAM_TMA:
      if (p->value.tma.rank == 0 || p->value.tma.rank > TKRT_TMA_MAX_RANK) {
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "config %zu parameter %zu: TMA descriptor rank %u is not in "
                                "1..%d",
                                config, index, p->value.tma.rank, TKRT_TMA_MAX_RANK);
      }
      return NULL;
  }
  return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                          "config %zu parameter %zu: unknown parameter kind %d", config, index,
                          (int)p->kind);
}

tkrt_status_t tkrt_call_create(const tkrt_call_desc_t* caller_desc, tkrt_call_t** out_call) {
  if (!caller_desc || !out_call) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_call_create: NULL argument");
  }
  tkrt_call_desc_t local;
  tkrt_call_desc_init(&local);
  TKRT_RETURN_IF_ERROR(tkrt_versioned_read(&local, sizeof(local), caller_desc, "tkrt_call_create"));
  const tkrt_call_desc_t* desc = &local;
  if (desc->config_count == 0 || !desc->configs) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "call has no kernel configuration");
  }
  if (desc->config_count >= (1u << 24)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "call has %zu configs; at most %u are supported", desc->config_count,
                            (1u << 24) - 1);
  }
  if (!desc->autotuned && desc->config_count != 1) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "a call that is not autotuned has exactly one config, not %zu",
                            desc->config_count);
  }
  if (desc->alias_count && !desc->aliases) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "%zu aliases but no alias array",
                            desc->alias_count);
  }
  for (size_t c = 0; c < desc->config_count; ++c) {
    const tkrt_config_desc_t* config = &desc->configs[c];
    if (!config->kernel) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "config %zu has no kernel", c);
    }
    if (config->param_count && !config->params) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "config %zu: %zu parameters but no parameter array", c,
                              config->param_count);
    }
    for (size_t i = 0; i < config->param_count; ++i) {
      TKRT_RETURN_IF_ERROR(tkrt_check_param(&config->params[i], c, i));
    }
  }

  tkrt_call_t* call = calloc(1, sizeof(*call));
  if (!call) return TKRT_OOM();
  atomic_init(&call->ref_count, 1);
  atomic_init(&call->device_states, NULL);
  pthread_mutex_init(&call->prepare_lock, NULL);
  call->desc = *desc;
  call->desc.struct_size = sizeof(call->desc);
  call->desc.name = call->desc.autotune_name = NULL;
  call->desc.metadata = NULL;
  call->desc.configs = NULL;
  call->desc.config_count = 0;
  call->desc.aliases = NULL;
  if (!tkrt_dup_string(desc->name, &call->desc.name) ||
      !tkrt_dup_string(desc->autotune_name, &call->desc.autotune_name) ||
      !tkrt_dup_bytes(desc->metadata, desc->metadata_size, &call->desc.metadata)) {
    goto oom;
  }
  if (!call->desc.metadata) call->desc.metadata_size = 0;
  call->configs = calloc(desc->config_count, sizeof(*call->configs));
  if (!call->configs) goto oom;
  call->desc.configs = call->configs;
  call->desc.config_count = desc->config_count;
  for (size_t c = 0; c < desc->config_count; ++c) {
    const tkrt_config_desc_t* src = &desc->configs[c];
    tkrt_config_desc_t* dst = &call->configs[c];
    memcpy(dst->grid, src->grid, sizeof(dst->grid));
    dst->kernel = src->kernel;
    tkrt_kernel_retain(dst->kernel);
    dst->param_count = src->param_count;
    if (!tkrt_dup_bytes(src->params, src->param_count * sizeof(tkrt_param_t),
                        (const void**)&dst->params) ||
        !tkrt_dup_string(src->description, &dst->description)) {
      goto oom;
    }
  }
  if (desc->alias_count) {
    call->aliases = malloc(desc->alias_count * sizeof(*call->aliases));
    if (!call->aliases) goto oom;
    memcpy(call->aliases, desc->aliases, desc->alias_count * sizeof(*call->aliases));
  }
  call->desc.aliases = call->aliases;

  tkrt_sha256_t ctx;
  tkrt_sha256_init(&ctx);
  tkrt_digest_u64(&ctx, 'N', call->desc.config_count);
  for (size_t c = 0; c < call->desc.config_count; ++c) {
    const tkrt_config_desc_t* config = &call->configs[c];
    tkrt_sha256_update(&ctx, config->kernel->digest, TKRT_DIGEST_SIZE);
    for (int i = 0; i < 3; ++i) tkrt_digest_u64(&ctx, 'G', config->grid[i]);
    tkrt_digest_u64(&ctx, 'P', config->param_count);
    for (size_t i = 0; i < config->param_count; ++i) tkrt_param_digest(&ctx, &config->params[i]);
  }
  tkrt_digest_u64(&ctx, 'A', call->desc.alias_count);
  for (size_t i = 0; i < call->desc.alias_count; ++i) {
    tkrt_digest_u64(&ctx, 'I', call->aliases[i].input_index);
    tkrt_digest_u64(&ctx, 'O', call->aliases[i].output_index);
    tkrt_digest_u64(&ctx, 'Z', call->aliases[i].size_bytes);
  }
  tkrt_sha256_final(&ctx, call->digest);
  *out_call = call;
  return NULL;

oom:
  tkrt_call_destroy(call);
  return TKRT_OOM();
}

void tkrt_call_retain(tkrt_call_t* call) {
  if (call) atomic_fetch_add_explicit(&call->ref_count, 1, memory_order_relaxed);
}

void tkrt_call_release(tkrt_call_t* call) {
  if (call && atomic_fetch_sub_explicit(&call->ref_count, 1, memory_order_acq_rel) == 1) {
    tkrt_call_destroy(call);
  }
}

const tkrt_call_desc_t* tkrt_call_get_desc(const tkrt_call_t* call) {
  return call ? &call->desc : NULL;
}

const uint8_t* tkrt_call_digest(const tkrt_call_t* call) { return call ? call->digest : NULL; }
