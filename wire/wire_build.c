/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt wire: decoding a jaxlib blob into a tkrt_call_t. wire_parse.c turns the bytes into plain
 * records; this file checks them and builds the kernels (reading HSACO files, recognising images,
 * attaching each kernel's side record) and the call. */
#include <stdlib.h>
#include <string.h>

#include "core/kernel_record.h"
#include "wire/wire_internal.h"
#include "wire/wire_parse.h"
#include "wire/wire_schema.h"
#include "tkrt/wire.h"

#define TKRT_WIRE_MAX_PATH 4096

typedef struct wb_ctx {
  tkrt_wire_decode_options_t options;
  size_t hsaco_bytes; /* read from HSACO files so far, counted per kernel */
  /* NUL-terminated copies and file contents made while building; freed at the end. */
  void** allocs;
  size_t alloc_count, alloc_capacity;
} wb_ctx_t;

/* ---------------------------------------------------------------- strings */

static bool wb_track(wb_ctx_t* ctx, void* allocation) {
  void** slot = tkrt_wp_push((void**)&ctx->allocs, &ctx->alloc_count, &ctx->alloc_capacity,
                             sizeof(void*));
  if (!slot) return false;
  *slot = allocation;
  return true;
}

/* A NUL-terminated copy owned by ctx; NULL for an empty slice (proto3: absent). */
static tkrt_status_t wb_string(wb_ctx_t* ctx, tkrt_wp_slice_t slice, const char** out) {
  *out = NULL;
  if (slice.size == 0) return NULL;
  char* copy = malloc(slice.size + 1);
  if (!copy) return TKRT_WIRE_OOM();
  memcpy(copy, slice.data, slice.size);
  copy[slice.size] = '\0';
  if (!wb_track(ctx, copy)) {
    free(copy);
    return TKRT_WIRE_OOM();
  }
  *out = copy;
  return NULL;
}

static tkrt_status_t wb_arch_string(wb_ctx_t* ctx, const char* arch, const char** out) {
  *out = NULL;
  if (!arch[0]) return NULL;
  tkrt_wp_slice_t slice = {(const uint8_t*)arch, strlen(arch), 0};
  return wb_string(ctx, slice, out);
}

static bool wb_slice_equals(tkrt_wp_slice_t slice, const char* text) {
  return slice.size == strlen(text) && memcmp(slice.data, text, slice.size) == 0;
}

/* ---------------------------------------------------------------- the side record */

void tkrt_wire_side_record_free(void* record) { free(record); }

const tkrt_wire_side_record_t* tkrt_wire_side_record(const tkrt_kernel_t* kernel) {
  return tkrt_kernel_record(kernel, tkrt_wire_side_record_free);
}

const char* tkrt_wire_side_source_path(const tkrt_wire_side_record_t* side, size_t index) {
  return side && index < side->image_count ? side->source_paths[index] : NULL;
}

/* The kernel's side record, in one block: the record, its path table, then the paths. */
static tkrt_status_t wb_side_record(const tkrt_wp_kernel_t* k, const char* const* paths,
                                    size_t count, tkrt_wire_side_record_t** out_side) {
  size_t bytes = sizeof(tkrt_wire_side_record_t) + count * sizeof(const char*);
  for (size_t i = 0; i < count; ++i) bytes += paths[i] ? strlen(paths[i]) + 1 : 0;
  tkrt_wire_side_record_t* side = malloc(bytes);
  if (!side) return TKRT_WIRE_OOM();
  const char** table = (const char**)(side + 1);
  char* text = (char*)(table + count);
  side->present = k->present_bits;
  memcpy(side->cluster_dims, k->cluster_dims, sizeof(side->cluster_dims));
  side->image_count = count;
  side->source_paths = table;
  for (size_t i = 0; i < count; ++i) {
    table[i] = NULL;
    if (!paths[i]) continue;
    size_t n = strlen(paths[i]) + 1;
    memcpy(text, paths[i], n);
    table[i] = text;
    text += n;
  }
  *out_side = side;
  return NULL;
}

/* ---------------------------------------------------------------- kernels */

/* The backend that loads `kind` (the registry's answer): jaxlib's fields name formats, not
 * backends. */
static const char* wb_kind_backend(tkrt_image_kind_t kind) {
  tkrt_kernel_image_t probe = {.kind = kind};
  return tkrt_kernel_image_backend(&probe);
}

/* The image TritonKernel.ptx stands for: PTX text, or (ROCm) the HSACO file it names, whose path
 * goes to *source_path (left alone for PTX). */
static tkrt_status_t wb_build_ptx_image(wb_ctx_t* ctx, tkrt_wp_kernel_t* k, const char* where,
                                        tkrt_kernel_image_t* image, const char** source_path) {
  char arch[TKRT_WIRE_ARCH_MAX];
  if (tkrt_wire_ptx_field_is_text(k->ptx.data, k->ptx.size)) {
    tkrt_wire_cuda_arch(k->compute_capability, arch);
    image->backend = wb_kind_backend(TKRT_IMAGE_PTX);
    TKRT_RETURN_IF_ERROR(wb_arch_string(ctx, arch, &image->arch));
    image->kind = TKRT_IMAGE_PTX;
    image->data = k->ptx.data;
    image->size = k->ptx.size;
    image->origin = TKRT_IMAGE_ORIGIN_PTX_FIELD;
    return NULL;
  }

  /* One line that is not PTX: a path to an HSACO file (jaxlib's ROCm blobs). */
  if (memchr(k->ptx.data, 0, k->ptx.size) || k->ptx.size >= TKRT_WIRE_MAX_PATH) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "field 4 (TritonKernel.ptx) at offset %zu %s is neither PTX text nor "
                            "an HSACO file path (%zu bytes on one line%s)",
                            k->ptx.offset, where, k->ptx.size,
                            memchr(k->ptx.data, 0, k->ptx.size) ? ", with a NUL byte" : "");
  }
  const char* path;
  TKRT_RETURN_IF_ERROR(wb_string(ctx, k->ptx, &path));
  image->origin = TKRT_IMAGE_ORIGIN_HSACO_PATH;
  *source_path = path;
  image->backend = wb_kind_backend(TKRT_IMAGE_HSACO);
  image->kind = TKRT_IMAGE_HSACO;

  /* tkrt's encoder may have carried the file's bytes: prefer them, so that the blob replays
   * where the file does not exist. */
  for (size_t i = 0; i < k->image_count; ++i) {
    tkrt_wp_image_t* carried = &k->images[i];
    if (carried->consumed || !wb_slice_equals(carried->source_path, path)) continue;
    if (carried->data.size == 0) continue;
    carried->consumed = true;
    image->data = carried->data.data;
    image->size = carried->data.size;
    if (carried->kind != TKRT_IMAGE_AUTO) image->kind = (tkrt_image_kind_t)carried->kind;
    if (carried->backend.size) {
      TKRT_RETURN_IF_ERROR(wb_string(ctx, carried->backend, &image->backend));
    }
    TKRT_RETURN_IF_ERROR(wb_string(ctx, carried->arch, &image->arch));
    TKRT_RETURN_IF_ERROR(wb_string(ctx, carried->entry_name, &image->entry_name));
    image->shared_mem_bytes = carried->shared_mem_bytes;
    if (carried->kind > TKRT_IMAGE_HOST) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "field 3 (TkrtImage.kind): unknown image kind %llu in the image at "
                              "offset %zu %s",
                              (unsigned long long)carried->kind, carried->offset, where);
    }
    return NULL;
  }

  if (!ctx->options.read_hsaco_files) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_FAILED_PRECONDITION,
                            "TritonKernel.ptx (offset %zu %s) names the HSACO file '%s', and "
                            "reading files is off (tkrt_wire_decode_options_t.read_hsaco_files)",
                            k->ptx.offset, where, path);
  }
  /* The files of one decode total at most max_message_size, counted once per kernel (each kernel
   * keeps its own copy): otherwise a small blob of many configs naming one large file could make
   * the decode allocate that file's size once per config. */
  uint8_t* bytes = NULL;
  size_t size = 0;
  size_t left = ctx->options.max_message_size - ctx->hsaco_bytes;
  tkrt_status_t status = left == 0 ? TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED,
                                                      "no bytes left for '%s'", path)
                                   : tkrt_wire_read_file(ctx->options.base_dir, path, left,
                                                         &bytes, &size);
  if (status) {
    if (left < ctx->options.max_message_size) {
      return tkrt_status_annotate(status,
                                  "HSACO file named by TritonKernel.ptx (offset %zu %s; the HSACO "
                                  "files of one message total at most %zu bytes "
                                  "(max_message_size), %zu already read)",
                                  k->ptx.offset, where, ctx->options.max_message_size,
                                  ctx->hsaco_bytes);
    }
    return tkrt_status_annotate(status, "HSACO file named by TritonKernel.ptx (offset %zu %s)",
                                k->ptx.offset, where);
  }
  ctx->hsaco_bytes += size;
  if (!wb_track(ctx, bytes)) {
    free(bytes);
    return TKRT_WIRE_OOM();
  }
  tkrt_wire_image_facts_t facts;
  tkrt_wire_image_detect(bytes, size, &facts);
  if (facts.kind != TKRT_IMAGE_HSACO) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "'%s', named by TritonKernel.ptx (offset %zu %s), is not an HSACO "
                            "code object (no AMDGPU ELF header)",
                            path, k->ptx.offset, where);
  }
  image->data = bytes;
  image->size = size;
  return wb_arch_string(ctx, facts.arch, &image->arch);
}

static tkrt_status_t wb_build_kernel(wb_ctx_t* ctx, tkrt_wp_kernel_t* k, size_t call_offset,
                                     const char* where, tkrt_kernel_t** out_kernel) {
  tkrt_status_t status = NULL;
  tkrt_kernel_image_t* images = NULL;
  const char** paths = NULL; /* per image, for the side record */
  tkrt_wire_side_record_t* side = NULL;
  if (!k->present) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "TritonKernelCall at offset %zu %s has no kernel (field 1)",
                            call_offset, where);
  }
  images = calloc(k->image_count + 2, sizeof(*images));
  paths = calloc(k->image_count + 2, sizeof(*paths));
  if (!images || !paths) {
    status = TKRT_WIRE_OOM();
    goto cleanup;
  }
  size_t count = 0;

  if (k->ptx.size) {
    status = wb_build_ptx_image(ctx, k, where, &images[count], &paths[count]);
    if (status) goto cleanup;
    ++count;
  }
  if (k->has_module) {
    tkrt_kernel_image_t* image = &images[count];
    if (k->module_object.size == 0) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "field 11 (TritonKernel.module_image) at offset %zu %s has no "
                                "object_file",
                                k->module_offset, where);
      goto cleanup;
    }
    tkrt_wire_image_facts_t facts;
    tkrt_wire_image_detect(k->module_object.data, k->module_object.size, &facts);
    image->kind = facts.kind;
    /* jaxlib hands module_image to the driver that runs its PTX, which detects the format
     * itself. */
    image->backend = facts.backend ? facts.backend : wb_kind_backend(TKRT_IMAGE_PTX);
    if ((status = wb_arch_string(ctx, facts.arch, &image->arch))) goto cleanup;
    image->data = k->module_object.data;
    image->size = k->module_object.size;
    if ((status = wb_string(ctx, k->module_name, &image->entry_name))) goto cleanup;
    image->shared_mem_bytes = k->module_shared_mem;
    image->origin = TKRT_IMAGE_ORIGIN_MODULE_IMAGE;
    ++count;
  }
  for (size_t i = 0; i < k->image_count; ++i) {
    tkrt_wp_image_t* carried = &k->images[i];
    if (carried->consumed) continue;
    if (carried->kind > TKRT_IMAGE_HOST) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "field 3 (TkrtImage.kind): unknown image kind %llu in the image "
                                "at offset %zu %s",
                                (unsigned long long)carried->kind, carried->offset, where);
      goto cleanup;
    }
    if (carried->data.size == 0) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "field %d (TritonKernel.tkrt_images) at offset %zu %s has no "
                                "data",
                                TKRT_WIRE_IMAGE_FIELD, carried->offset, where);
      goto cleanup;
    }
    const char** source_path = &paths[count];
    tkrt_kernel_image_t* image = &images[count++];
    image->kind = (tkrt_image_kind_t)carried->kind;
    image->data = carried->data.data;
    image->size = carried->data.size;
    image->shared_mem_bytes = carried->shared_mem_bytes;
    image->origin = TKRT_IMAGE_ORIGIN_TKRT_FIELD;
    if ((status = wb_string(ctx, carried->backend, &image->backend)) ||
        (status = wb_string(ctx, carried->arch, &image->arch)) ||
        (status = wb_string(ctx, carried->entry_name, &image->entry_name)) ||
        (status = wb_string(ctx, carried->source_path, source_path))) {
      goto cleanup;
    }
  }
  if (count == 0) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "TritonKernel at offset %zu %s has no image: ptx (field 4) and "
                              "module_image (field 11) are both absent",
                              k->offset, where);
    goto cleanup;
  }

  tkrt_kernel_desc_t desc;
  tkrt_kernel_desc_init(&desc);
  if ((status = wb_string(ctx, k->name, &desc.name))) goto cleanup;
  if ((status = wb_string(ctx, k->ttir, &desc.ttir))) goto cleanup;
  desc.num_warps = k->num_warps;
  desc.num_ctas = k->num_ctas;
  /* A blob that has num_ctas (even 0 or 1) does not use the legacy cluster dims: they are left 0
   * here, so that the launch and the digest need no presence bit, and kept in the side record. */
  if (!(k->present_bits & TKRT_WIRE_HAS_NUM_CTAS)) {
    memcpy(desc.cluster_dims, k->cluster_dims, sizeof(desc.cluster_dims));
  }
  desc.shared_mem_bytes = k->shared_mem_bytes;
  desc.compute_capability = k->compute_capability;
  desc.global_scratch_size = k->global_scratch_size;
  desc.global_scratch_align = k->global_scratch_align;
  desc.launch_flags = k->launch_flags;
  desc.profile_scratch_size = k->profile_scratch_size;
  desc.profile_scratch_align = k->profile_scratch_align;
  desc.hidden_pointers = k->hidden_pointers;
  desc.images = images;
  desc.image_count = count;
  if ((status = wb_side_record(k, paths, count, &side))) goto cleanup;
  status = tkrt_kernel_create_with_record(&desc, side, tkrt_wire_side_record_free, out_kernel);
  if (status) {
    status = tkrt_status_annotate(status, "TritonKernel at offset %zu %s", k->offset, where);
    goto cleanup;
  }
  side = NULL; /* the kernel's now */

cleanup:
  tkrt_wire_side_record_free(side);
  free(paths);
  free(images);
  return status;
}

/* ---------------------------------------------------------------- parameters and the call */

static tkrt_status_t wb_build_params(const tkrt_wp_kcall_t* call, const char* where,
                                     tkrt_param_t** out_params) {
  *out_params = NULL;
  if (call->param_count == 0) return NULL;
  tkrt_param_t* params = calloc(call->param_count, sizeof(*params));
  if (!params) return TKRT_WIRE_OOM();
  for (size_t i = 0; i < call->param_count; ++i) {
    const tkrt_wp_param_t* src = &call->params[i];
    tkrt_param_t* dst = &params[i];
    dst->kind = (tkrt_param_kind_t)src->which;
    switch (src->which) {
      case TKRT_PARAM_ARRAY:
        /* Checked here too (tkrt_call_create does), to say where the parameter is. */
        if (src->ptr_divisibility & (src->ptr_divisibility - 1)) {
          free(params);
          return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                  "parameter %zu (TritonKernelCall.parameters at offset %zu %s): "
                                  "ptr_divisibility %llu is not a power of two",
                                  i, (size_t)src->offset, where,
                                  (unsigned long long)src->ptr_divisibility);
        }
        dst->value.array.bytes_to_zero = src->bits;
        dst->value.array.ptr_divisibility = src->ptr_divisibility;
        break;
      case TKRT_PARAM_BOOL: dst->value.b = src->bits != 0; break;
      /* int32: a negative value is a sign-extended 10-byte varint; keep the low 32 bits. */
      case TKRT_PARAM_I32: dst->value.i32 = (int32_t)(uint32_t)src->bits; break;
      case TKRT_PARAM_U32: dst->value.u32 = (uint32_t)src->bits; break;
      case TKRT_PARAM_I64: dst->value.i64 = (int64_t)src->bits; break;
      case TKRT_PARAM_U64: dst->value.u64 = src->bits; break;
      case TKRT_PARAM_F32: {
        uint32_t bits = (uint32_t)src->bits;
        memcpy(&dst->value.f32, &bits, sizeof(bits));
        break;
      }
      case TKRT_PARAM_F64: memcpy(&dst->value.f64, &src->bits, sizeof(src->bits)); break;
      case TKRT_PARAM_TMA: {
        const tkrt_wp_tma_t* t = src->tma;
        if (t->shape_count != t->strides_count || t->shape_count != t->block_count ||
            t->shape_count == 0) {
          free(params);
          return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                  "parameter %zu (TritonKernelCall.parameters at offset %zu %s): "
                                  "TMA descriptor has %u shape, %u strides and %u block_shape "
                                  "entries; they must be equal and at least 1",
                                  i, (size_t)src->offset, where, t->shape_count, t->strides_count,
                                  t->block_count);
        }
        tkrt_tma_desc_t* d = &dst->value.tma;
        d->elem_type = t->elem_type;
        d->swizzle = t->swizzle;
        d->oob_fill = t->oob_fill;
        d->rank = t->shape_count;
        memcpy(d->shape, t->shape, sizeof(d->shape));
        memcpy(d->strides, t->strides, sizeof(d->strides));
        memcpy(d->block_shape, t->block_shape, sizeof(d->block_shape));
        break;
      }
      default:
        free(params);
        return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "unknown scalar parameter type: parameter %zu (TritonKernelCall."
                                "parameters at offset %zu %s) has no value set",
                                i, (size_t)src->offset, where);
    }
  }
  *out_params = params;
  return NULL;
}

static tkrt_status_t wb_build_call(wb_ctx_t* ctx, tkrt_wp_any_t* any, const char* where,
                                   tkrt_call_t** out_call) {
  tkrt_status_t status = NULL;
  tkrt_config_desc_t* configs = NULL;
  size_t config_count = 0;
  tkrt_wp_kcall_t* single = NULL;

  tkrt_call_desc_t desc;
  tkrt_call_desc_init(&desc);
  if (any->which == TKRT_F_ANY_KERNEL_CALL) {
    config_count = 1;
    single = &any->call;
  } else if (any->which == TKRT_F_ANY_AUTOTUNED) {
    config_count = any->autotuned.config_count;
    if (config_count == 0) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "TritonAutotunedKernelCall has no configs (field 2)");
    }
    desc.autotuned = true;
  } else {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "unknown kernel call type: neither "
                            "kernel_call (1) nor autotuned_kernel_call (2) is set %s",
                            where);
  }
  configs = calloc(config_count, sizeof(*configs));
  if (!configs) return TKRT_WIRE_OOM();

  for (size_t c = 0; c < config_count; ++c) {
    tkrt_wp_kcall_t* call = single ? single : &any->autotuned.configs[c].call;
    size_t call_offset = single ? call->offset : any->autotuned.configs[c].offset;
    if (!call->present) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "config %zu (TritonAutotunedKernelCall.configs at offset %zu %s) "
                                "has no kernel_call",
                                c, call_offset, where);
      goto cleanup;
    }
    status = wb_build_kernel(ctx, &call->kernel, call->offset, where, &configs[c].kernel);
    if (status) goto cleanup;
    memcpy(configs[c].grid, call->grid, sizeof(configs[c].grid));
    tkrt_param_t* params = NULL;
    status = wb_build_params(call, where, &params);
    if (status) goto cleanup;
    configs[c].params = params;
    configs[c].param_count = call->param_count;
    tkrt_wp_params_free(call); /* built: its records go before the next config's are built */
    if (!single) {
      status = wb_string(ctx, any->autotuned.configs[c].description, &configs[c].description);
      if (status) goto cleanup;
    }
  }
  if (!single) {
    if ((status = wb_string(ctx, any->autotuned.name, &desc.autotune_name))) goto cleanup;
    desc.aliases = any->autotuned.aliases;
    desc.alias_count = any->autotuned.alias_count;
  }
  if ((status = wb_string(ctx, any->name, &desc.name))) goto cleanup;
  if (any->metadata.size) {
    desc.metadata = any->metadata.data;
    desc.metadata_size = any->metadata.size;
  }
  desc.configs = configs;
  desc.config_count = config_count;
  status = tkrt_call_create(&desc, out_call);

cleanup:
  for (size_t c = 0; c < config_count; ++c) {
    tkrt_kernel_release(configs[c].kernel); /* the call holds its own references */
    free((void*)configs[c].params);
  }
  free(configs);
  return status;
}

/* ---------------------------------------------------------------- entry points */

void tkrt_wire_decode_options_init(tkrt_wire_decode_options_t* options) {
  if (!options) return;
  memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  options->format = TKRT_WIRE_FORMAT_AUTO;
  options->read_hsaco_files = true;
  options->base_dir = NULL;
  options->max_message_size = TKRT_WIRE_DEFAULT_MESSAGE_SIZE;
}

tkrt_status_t tkrt_wire_decode(const void* bytes, size_t size,
                               const tkrt_wire_decode_options_t* options,
                               tkrt_call_t** out_call) {
  if (!out_call || (!bytes && size)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_wire_decode: NULL argument");
  }
  wb_ctx_t ctx;
  memset(&ctx, 0, sizeof(ctx));
  tkrt_wire_decode_options_init(&ctx.options);
  if (options) {
    /* Callers built against an older header pass a shorter struct: keep our defaults for the
     * fields they do not know. */
    if (options->struct_size < sizeof(size_t)) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "tkrt_wire_decode: options->struct_size %zu is too small (call "
                              "tkrt_wire_decode_options_init)",
                              options->struct_size);
    }
    size_t n = options->struct_size < sizeof(ctx.options) ? options->struct_size
                                                          : sizeof(ctx.options);
    memcpy(&ctx.options, options, n);
    ctx.options.struct_size = sizeof(ctx.options);
  }
  if (ctx.options.max_message_size == 0) {
    ctx.options.max_message_size = TKRT_WIRE_DEFAULT_MESSAGE_SIZE;
  } else if (ctx.options.max_message_size > TKRT_WIRE_MAX_MESSAGE_SIZE) {
    ctx.options.max_message_size = TKRT_WIRE_MAX_MESSAGE_SIZE;
  }
  if (ctx.options.format != TKRT_WIRE_FORMAT_AUTO && ctx.options.format != TKRT_WIRE_FORMAT_ZLIB &&
      ctx.options.format != TKRT_WIRE_FORMAT_RAW) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_wire_decode: unknown format %d", (int)ctx.options.format);
  }
  if (size == 0) return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "empty blob");

  tkrt_wp_any_t any;
  memset(&any, 0, sizeof(any));
  tkrt_status_t status =
      tkrt_wp_parse(bytes, size, ctx.options.format, ctx.options.max_message_size, &any);
  if (!status) status = wb_build_call(&ctx, &any, any.where, out_call);
  tkrt_wp_any_free(&any);
  for (size_t i = 0; i < ctx.alloc_count; ++i) free(ctx.allocs[i]);
  free(ctx.allocs);
  return status;
}
