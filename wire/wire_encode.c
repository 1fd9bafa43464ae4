/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt wire: encoding a tkrt_call_t as jaxlib's TritonAnyKernelCall. Fields go out in field-number
 * order with proto3's implicit-presence rule (zero scalars and empty strings omitted), exactly as
 * jaxlib's C++ serializer writes them, so decoded jaxlib blobs re-encode byte for byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/wire_internal.h"
#include "wire/wire_proto.h"
#include "wire/wire_schema.h"
#include "tkrt/wire.h"

/* The decoder refuses a string field that is not UTF-8 (as libprotobuf does for proto3 strings),
 * with the same check, so the encoder refuses to write one: whatever it returns decodes. `field`
 * is "Message.name"; `where` says which config or image. */
static tkrt_status_t we_check_utf8(const void* data, size_t size, const char* field,
                                   uint32_t number, const char* where) {
  size_t bad = tkrt_wire_utf8_check(data, size);
  if (bad == size) return NULL;
  return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                          "tkrt_wire_encode: field %u (%s) %s is not valid UTF-8: byte 0x%02x at "
                          "offset %zu of %zu; protobuf strings must be UTF-8 and the decoder "
                          "refuses them otherwise",
                          number, field, where, ((const uint8_t*)data)[bad], bad, size);
}

static tkrt_status_t we_string(tkrt_wire_writer_t* w, uint32_t number, const char* text,
                               const char* field, const char* where) {
  if (!text || !*text) return NULL;
  size_t size = strlen(text);
  TKRT_RETURN_IF_ERROR(we_check_utf8(text, size, field, number, where));
  tkrt_wire_put_bytes_field(w, number, text, size);
  return NULL;
}

static void we_uint(tkrt_wire_writer_t* w, uint32_t number, uint64_t value) {
  if (value) tkrt_wire_put_varint_field(w, number, value);
}

/* Which image goes to which field of TritonKernel. */
typedef struct we_plan {
  const tkrt_kernel_image_t* ptx;    /* field 4: PTX text, or an HSACO path */
  const char* ptx_path;              /* the HSACO path (from the side record), else NULL */
  const tkrt_kernel_image_t* module; /* field 11 */
} we_plan_t;

/* The path a decoded HSACO_PATH image came from, else NULL. */
static const char* we_hsaco_path(const tkrt_wire_side_record_t* side, const tkrt_kernel_desc_t* k,
                                 size_t index) {
  const char* path = tkrt_wire_side_source_path(side, index);
  return k->images[index].origin == TKRT_IMAGE_ORIGIN_HSACO_PATH && path && path[0] ? path : NULL;
}

static void we_plan_images(const tkrt_wire_side_record_t* side, const tkrt_kernel_desc_t* k,
                           we_plan_t* plan) {
  memset(plan, 0, sizeof(*plan));
  for (size_t i = 0; i < k->image_count; ++i) {
    const tkrt_kernel_image_t* image = &k->images[i];
    const char* path = we_hsaco_path(side, k, i);
    if (!plan->ptx && (image->origin == TKRT_IMAGE_ORIGIN_PTX_FIELD || path)) {
      plan->ptx = image;
      plan->ptx_path = path;
    }
    if (!plan->module && image->origin == TKRT_IMAGE_ORIGIN_MODULE_IMAGE) plan->module = image;
  }
  /* A call built in C: its PTX goes where jaxlib looks for PTX. Only API images move: one that
   * came from tkrt's field goes back there, so that re-encoding a decoded call is stable. */
  if (!plan->ptx) {
    for (size_t i = 0; i < k->image_count; ++i) {
      const tkrt_kernel_image_t* image = &k->images[i];
      if (image->kind == TKRT_IMAGE_PTX && image->origin == TKRT_IMAGE_ORIGIN_API) {
        plan->ptx = image;
        break;
      }
    }
  }
}

static tkrt_status_t we_tkrt_image(tkrt_wire_writer_t* w, const tkrt_kernel_image_t* image,
                                   size_t index, const char* source_path, const char* where) {
  char at[128];
  snprintf(at, sizeof(at), "of image %zu %s", index, where);
  size_t start = tkrt_wire_begin_message(w, TKRT_F_KERNEL_TKRT_IMAGES);
  TKRT_RETURN_IF_ERROR(
      we_string(w, TKRT_F_IMAGE_BACKEND, image->backend, "TkrtImage.backend", at));
  TKRT_RETURN_IF_ERROR(we_string(w, TKRT_F_IMAGE_ARCH, image->arch, "TkrtImage.arch", at));
  we_uint(w, TKRT_F_IMAGE_KIND, (uint64_t)image->kind);
  if (image->size) tkrt_wire_put_bytes_field(w, TKRT_F_IMAGE_DATA, image->data, image->size);
  TKRT_RETURN_IF_ERROR(
      we_string(w, TKRT_F_IMAGE_ENTRY_NAME, image->entry_name, "TkrtImage.entry_name", at));
  we_uint(w, TKRT_F_IMAGE_SHARED_MEM, image->shared_mem_bytes);
  TKRT_RETURN_IF_ERROR(
      we_string(w, TKRT_F_IMAGE_SOURCE_PATH, source_path, "TkrtImage.source_path", at));
  tkrt_wire_end_message(w, start);
  return NULL;
}

static tkrt_status_t we_kernel(tkrt_wire_writer_t* w, const tkrt_kernel_t* kernel,
                               const tkrt_wire_encode_options_t* options, const char* where) {
  const tkrt_kernel_desc_t* k = tkrt_kernel_get_desc(kernel);
  /* A decoded kernel: what the blob had, from its side record; built in C: the description. */
  const tkrt_wire_side_record_t* side = tkrt_wire_side_record(kernel);
  uint32_t present = side ? side->present : 0;
  const uint32_t* cluster_dims = side ? side->cluster_dims : k->cluster_dims;
  we_plan_t plan;
  we_plan_images(side, k, &plan);
  if (!options->include_tkrt_images && !plan.ptx && !plan.module) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "kernel '%s': none of its %zu images fits jaxlib's fields (PTX text, "
                            "an HSACO path, module_image); set include_tkrt_images to carry them",
                            k->name ? k->name : "", k->image_count);
  }
  size_t start = tkrt_wire_begin_message(w, TKRT_F_CALL_KERNEL);
  TKRT_RETURN_IF_ERROR(
      we_string(w, TKRT_F_KERNEL_NAME, k->name, "TritonKernel.kernel_name", where));
  we_uint(w, TKRT_F_KERNEL_NUM_WARPS, k->num_warps);
  we_uint(w, TKRT_F_KERNEL_SHARED_MEM, k->shared_mem_bytes);
  if (plan.ptx) {
    if (plan.ptx_path) {
      TKRT_RETURN_IF_ERROR(we_string(w, TKRT_F_KERNEL_PTX, plan.ptx_path,
                                     "TritonKernel.ptx, an HSACO path,", where));
    } else if (plan.ptx->size) {
      /* PTX text goes into a proto3 string field too. */
      TKRT_RETURN_IF_ERROR(we_check_utf8(plan.ptx->data, plan.ptx->size,
                                         "TritonKernel.ptx, PTX text,", TKRT_F_KERNEL_PTX, where));
      tkrt_wire_put_bytes_field(w, TKRT_F_KERNEL_PTX, plan.ptx->data, plan.ptx->size);
    }
  }
  TKRT_RETURN_IF_ERROR(we_string(w, TKRT_F_KERNEL_TTIR, k->ttir, "TritonKernel.ttir", where));
  we_uint(w, TKRT_F_KERNEL_CC, k->compute_capability);
  for (uint32_t i = 0; i < 3; ++i) we_uint(w, TKRT_F_KERNEL_CLUSTER_0 + i, cluster_dims[i]);
  /* proto3 `optional`: written when the blob had it, even as 0, or when not 0. */
  if ((present & TKRT_WIRE_HAS_NUM_CTAS) || k->num_ctas) {
    tkrt_wire_put_varint_field(w, TKRT_F_KERNEL_NUM_CTAS, k->num_ctas);
  }
  if (plan.module) {
    size_t module = tkrt_wire_begin_message(w, TKRT_F_KERNEL_MODULE_IMAGE);
    if (plan.module->size) {
      tkrt_wire_put_bytes_field(w, TKRT_F_MODULE_OBJECT_FILE, plan.module->data,
                                plan.module->size);
    }
    TKRT_RETURN_IF_ERROR(we_string(w, TKRT_F_MODULE_KERNEL_NAME, plan.module->entry_name,
                                   "ModuleImage.kernel_name", where));
    we_uint(w, TKRT_F_MODULE_SHARED_MEM, plan.module->shared_mem_bytes);
    tkrt_wire_end_message(w, module);
  }
  if ((present & TKRT_WIRE_HAS_GLOBAL_SCRATCH_SIZE) || k->global_scratch_size) {
    tkrt_wire_put_varint_field(w, TKRT_F_KERNEL_SCRATCH_SIZE, k->global_scratch_size);
  }
  if ((present & TKRT_WIRE_HAS_GLOBAL_SCRATCH_ALIGN) || k->global_scratch_align) {
    tkrt_wire_put_varint_field(w, TKRT_F_KERNEL_SCRATCH_ALIGN, k->global_scratch_align);
  }
  if (options->include_tkrt_images) {
    /* The bytes behind an HSACO path first: the decoder takes the first entry naming the path,
     * and this order is what it produces again (stable round trips). */
    if (plan.ptx_path && plan.ptx->size) {
      TKRT_RETURN_IF_ERROR(we_tkrt_image(w, plan.ptx, (size_t)(plan.ptx - k->images),
                                         plan.ptx_path, where));
    }
    for (size_t i = 0; i < k->image_count; ++i) {
      const tkrt_kernel_image_t* image = &k->images[i];
      if (image == plan.ptx || image == plan.module) continue;
      TKRT_RETURN_IF_ERROR(
          we_tkrt_image(w, image, i, tkrt_wire_side_source_path(side, i), where));
    }
  }
  we_uint(w, TKRT_F_KERNEL_TKRT_LAUNCH_FLAGS, k->launch_flags);
  /* Profile scratch (proton-instrumented kernels): jaxlib has no field for it; without it such a
   * kernel would write through a null pointer. Written only when it matters. */
  if (k->profile_scratch_size || k->profile_scratch_align > 1) {
    we_uint(w, TKRT_F_KERNEL_TKRT_PROFILE_SCRATCH_SIZE, k->profile_scratch_size);
    we_uint(w, TKRT_F_KERNEL_TKRT_PROFILE_SCRATCH_ALIGN, k->profile_scratch_align);
  }
  /* A kernel of an older Triton declares fewer hidden pointers than jaxlib passes. */
  if (k->hidden_pointers) we_uint(w, TKRT_F_KERNEL_TKRT_HIDDEN_POINTERS, k->hidden_pointers);
  tkrt_wire_end_message(w, start);
  return NULL;
}

static void we_packed(tkrt_wire_writer_t* w, uint32_t number, const uint64_t* values,
                      const uint32_t* values32, uint32_t count) {
  if (count == 0) return;
  size_t start = tkrt_wire_begin_message(w, number);
  for (uint32_t i = 0; i < count; ++i) tkrt_wire_put_varint(w, values ? values[i] : values32[i]);
  tkrt_wire_end_message(w, start);
}

static void we_param(tkrt_wire_writer_t* w, const tkrt_param_t* p) {
  size_t start = tkrt_wire_begin_message(w, TKRT_F_CALL_PARAMETERS);
  switch (p->kind) {
    case TKRT_PARAM_ARRAY: {
      /* A oneof member is written even when empty: an Array with both fields 0. */
      size_t array = tkrt_wire_begin_message(w, TKRT_PARAM_ARRAY);
      we_uint(w, TKRT_F_ARRAY_BYTES_TO_ZERO, p->value.array.bytes_to_zero);
      we_uint(w, TKRT_F_ARRAY_PTR_DIVISIBILITY, p->value.array.ptr_divisibility);
      tkrt_wire_end_message(w, array);
      break;
    }
    case TKRT_PARAM_BOOL: tkrt_wire_put_varint_field(w, TKRT_PARAM_BOOL, p->value.b ? 1 : 0); break;
    /* int32 negatives are sign-extended to 64 bits: a 10-byte varint, as libprotobuf writes. */
    case TKRT_PARAM_I32:
      tkrt_wire_put_varint_field(w, TKRT_PARAM_I32, (uint64_t)(int64_t)p->value.i32);
      break;
    case TKRT_PARAM_U32: tkrt_wire_put_varint_field(w, TKRT_PARAM_U32, p->value.u32); break;
    case TKRT_PARAM_I64:
      tkrt_wire_put_varint_field(w, TKRT_PARAM_I64, (uint64_t)p->value.i64);
      break;
    case TKRT_PARAM_U64: tkrt_wire_put_varint_field(w, TKRT_PARAM_U64, p->value.u64); break;
    case TKRT_PARAM_F32: {
      uint32_t bits;
      memcpy(&bits, &p->value.f32, sizeof(bits));
      tkrt_wire_put_fixed32_field(w, TKRT_PARAM_F32, bits);
      break;
    }
    case TKRT_PARAM_F64: {
      uint64_t bits;
      memcpy(&bits, &p->value.f64, sizeof(bits));
      tkrt_wire_put_fixed64_field(w, TKRT_PARAM_F64, bits);
      break;
    }
    case TKRT_PARAM_TMA: {
      const tkrt_tma_desc_t* t = &p->value.tma;
      uint32_t rank = t->rank < TKRT_TMA_MAX_RANK ? t->rank : TKRT_TMA_MAX_RANK;
      size_t outer = tkrt_wire_begin_message(w, TKRT_PARAM_TMA);
      size_t inner = tkrt_wire_begin_message(w, TKRT_F_TMA_DESCRIPTOR);
      we_uint(w, TKRT_F_TMA_ELEM_TYPE, t->elem_type);
      we_uint(w, TKRT_F_TMA_SWIZZLE, t->swizzle);
      we_packed(w, TKRT_F_TMA_SHAPE, t->shape, NULL, rank);
      we_packed(w, TKRT_F_TMA_STRIDES, t->strides, NULL, rank);
      we_packed(w, TKRT_F_TMA_BLOCK_SHAPE, NULL, t->block_shape, rank);
      we_uint(w, TKRT_F_TMA_OOB_FILL, t->oob_fill);
      tkrt_wire_end_message(w, inner);
      tkrt_wire_end_message(w, outer);
      break;
    }
  }
  tkrt_wire_end_message(w, start);
}

static tkrt_status_t we_kernel_call(tkrt_wire_writer_t* w, uint32_t number,
                                    const tkrt_config_desc_t* config,
                                    const tkrt_wire_encode_options_t* options, const char* where) {
  size_t start = tkrt_wire_begin_message(w, number);
  TKRT_RETURN_IF_ERROR(we_kernel(w, config->kernel, options, where));
  for (uint32_t i = 0; i < 3; ++i) we_uint(w, TKRT_F_CALL_GRID_0 + i, config->grid[i]);
  for (size_t i = 0; i < config->param_count; ++i) we_param(w, &config->params[i]);
  tkrt_wire_end_message(w, start);
  return NULL;
}

void tkrt_wire_encode_options_init(tkrt_wire_encode_options_t* options) {
  if (!options) return;
  memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  options->compress = true;
  options->zlib_level = -1;
  options->include_tkrt_images = true;
}

tkrt_status_t tkrt_wire_encode(const tkrt_call_t* call, const tkrt_wire_encode_options_t* options,
                               void** out_bytes, size_t* out_size) {
  if (!call || !out_bytes || !out_size) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT, "tkrt_wire_encode: NULL argument");
  }
  tkrt_wire_encode_options_t opts;
  tkrt_wire_encode_options_init(&opts);
  if (options) {
    if (options->struct_size < sizeof(size_t)) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "tkrt_wire_encode: options->struct_size %zu is too small (call "
                              "tkrt_wire_encode_options_init)",
                              options->struct_size);
    }
    size_t n = options->struct_size < sizeof(opts) ? options->struct_size : sizeof(opts);
    memcpy(&opts, options, n);
    opts.struct_size = sizeof(opts);
  }
  if (opts.compress && (opts.zlib_level < -1 || opts.zlib_level > 9)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "tkrt_wire_encode: zlib_level %d is not in -1..9", opts.zlib_level);
  }

  const tkrt_call_desc_t* d = tkrt_call_get_desc(call);
  tkrt_status_t status = NULL;
  tkrt_wire_writer_t w;
  tkrt_wire_writer_init(&w);
  if (!d->autotuned) {
    /* jaxlib's TritonKernelCall has no description or aliases: they are not written. */
    status = we_kernel_call(&w, TKRT_F_ANY_KERNEL_CALL, &d->configs[0], &opts, "of the call");
    if (status) goto cleanup;
  } else {
    size_t autotuned = tkrt_wire_begin_message(&w, TKRT_F_ANY_AUTOTUNED);
    status = we_string(&w, TKRT_F_AUTOTUNED_NAME, d->autotune_name,
                       "TritonAutotunedKernelCall.name", "of the call");
    if (status) goto cleanup;
    for (size_t c = 0; c < d->config_count; ++c) {
      char where[64];
      snprintf(where, sizeof(where), "of config %zu", c);
      size_t config = tkrt_wire_begin_message(&w, TKRT_F_AUTOTUNED_CONFIGS);
      status = we_kernel_call(&w, TKRT_F_CONFIG_KERNEL_CALL, &d->configs[c], &opts, where);
      if (status) goto cleanup;
      status = we_string(&w, TKRT_F_CONFIG_DESCRIPTION, d->configs[c].description,
                         "Config.description", where);
      if (status) goto cleanup;
      tkrt_wire_end_message(&w, config);
    }
    for (size_t i = 0; i < d->alias_count; ++i) {
      size_t alias = tkrt_wire_begin_message(&w, TKRT_F_AUTOTUNED_ALIASES);
      we_uint(&w, TKRT_F_ALIAS_INPUT, d->aliases[i].input_index);
      we_uint(&w, TKRT_F_ALIAS_OUTPUT, d->aliases[i].output_index);
      we_uint(&w, TKRT_F_ALIAS_SIZE, d->aliases[i].size_bytes);
      tkrt_wire_end_message(&w, alias);
    }
    tkrt_wire_end_message(&w, autotuned);
  }
  if (d->metadata_size) {
    tkrt_wire_put_bytes_field(&w, TKRT_F_ANY_METADATA, d->metadata, d->metadata_size);
  }
  status = we_string(&w, TKRT_F_ANY_NAME, d->name, "TritonAnyKernelCall.name", "of the call");
  if (status) goto cleanup;
  if (w.failed) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED,
                              "out of host memory while encoding the call");
    goto cleanup;
  }

  if (opts.compress) {
    uint8_t* compressed = NULL;
    size_t compressed_size = 0;
    status = tkrt_wire_deflate(w.data, w.size, opts.zlib_level, &compressed, &compressed_size);
    if (status) goto cleanup;
    *out_bytes = compressed;
    *out_size = compressed_size;
  } else {
    /* An empty message (impossible for a valid call) still returns a freeable buffer. */
    if (!w.data) {
      w.data = malloc(1);
      if (!w.data) {
        status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
        goto cleanup;
      }
    }
    *out_bytes = w.data;
    *out_size = w.size;
    w.data = NULL;
  }

cleanup:
  tkrt_wire_writer_free(&w);
  return status;
}

void tkrt_wire_free(void* bytes) { free(bytes); }
