/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt wire: parsing jaxlib's serialized TritonAnyKernelCall (after inflating it) into the plain
 * records of wire/wire_parse.h. No tkrt objects are made here: wire_build.c does that. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/wire_internal.h"
#include "wire/wire_parse.h"
#include "wire/wire_proto.h"
#include "wire/wire_schema.h"
#include "tkrt/wire.h"

/* Caps on repeated fields, per message that holds them; real calls have tens of parameters and a
 * handful of configs. They do not bound memory on their own (65,536 configs of 65,536 parameters
 * each): the record budget (TKRT_WIRE_MAX_RECORD_BYTES, wp_budget_t below) does, across the whole
 * message. */
#define TKRT_WIRE_MAX_PARAMS 65536
#define TKRT_WIRE_MAX_CONFIGS 65536
#define TKRT_WIRE_MAX_ALIASES 65536
#define TKRT_WIRE_MAX_TKRT_IMAGES 1024

/* ---------------------------------------------------------------- schemas (for messages) */

#define TKRT_SCHEMA(var, message_name, ...)                                       \
  static const tkrt_wire_field_name_t var##_fields[] = {__VA_ARGS__};            \
  static const tkrt_wire_schema_t var = {message_name, var##_fields,             \
                                         sizeof(var##_fields) / sizeof(var##_fields[0])}

TKRT_SCHEMA(kAnySchema, "TritonAnyKernelCall", {1, "kernel_call"}, {2, "autotuned_kernel_call"},
            {3, "metadata"}, {4, "name"});
TKRT_SCHEMA(kCallSchema, "TritonKernelCall", {1, "kernel"}, {2, "grid_0"}, {3, "grid_1"},
            {4, "grid_2"}, {5, "parameters"});
TKRT_SCHEMA(kParamSchema, "Parameter", {1, "array"}, {2, "bool_"}, {3, "i32"}, {4, "u32"},
            {5, "i64"}, {6, "u64"}, {7, "f32"}, {8, "f64"}, {9, "tma_descriptor"});
TKRT_SCHEMA(kArraySchema, "Array", {1, "bytes_to_zero"}, {2, "ptr_divisibility"});
TKRT_SCHEMA(kTmaOuterSchema, "TmaParameter", {1, "descriptor"});
TKRT_SCHEMA(kTmaSchema, "TmaDescriptor", {1, "elem_type"}, {2, "swizzle"}, {3, "shape"},
            {4, "strides"}, {5, "block_shape"}, {6, "oob_fill"});
TKRT_SCHEMA(kKernelSchema, "TritonKernel", {1, "kernel_name"}, {2, "num_warps"},
            {3, "shared_mem_bytes"}, {4, "ptx"}, {5, "ttir"}, {6, "compute_capability"},
            {7, "cluster_dim_0"}, {8, "cluster_dim_1"}, {9, "cluster_dim_2"}, {10, "num_ctas"},
            {11, "module_image"}, {12, "global_scratch_size"}, {13, "global_scratch_align"},
            {1000, "tkrt_images"}, {1001, "tkrt_launch_flags"},
            {1002, "tkrt_profile_scratch_size"}, {1003, "tkrt_profile_scratch_align"},
            {1004, "tkrt_hidden_pointers"});
TKRT_SCHEMA(kModuleSchema, "ModuleImage", {1, "object_file"}, {2, "kernel_name"},
            {3, "shared_mem_bytes"});
TKRT_SCHEMA(kImageSchema, "TkrtImage", {1, "backend"}, {2, "arch"}, {3, "kind"}, {4, "data"},
            {5, "entry_name"}, {6, "shared_mem_bytes"}, {7, "source_path"});
TKRT_SCHEMA(kAutotunedSchema, "TritonAutotunedKernelCall", {1, "name"}, {2, "configs"},
            {3, "input_output_aliases"});
TKRT_SCHEMA(kConfigSchema, "Config", {1, "kernel_call"}, {2, "description"});
TKRT_SCHEMA(kAliasSchema, "InputOutputAlias", {1, "input_buffer_idx"}, {2, "output_buffer_idx"},
            {3, "buffer_size_bytes"});

/* The record budget of one decode (TKRT_WIRE_MAX_RECORD_BYTES): every repeated record is charged
 * when its field is read, before anything is allocated for it, with what it costs in the model
 * (array growth included: a grown array is charged whole, which also covers the old block that
 * realloc keeps until it has copied it) and later in the built call (see the WP_*_COST below).
 * Charges are never refunded (records discarded by a oneof switch still count), so the total
 * bounds the peak. */
typedef struct wp_budget {
  size_t used;
  size_t limit;
} wp_budget_t;

/* What one record costs once built (wire_build.c), beyond its parsed record: the builder's
 * tkrt_param_t and the call's deep copy; the builder's config and the call's, plus the kernel
 * object (its descriptor, image table, digest and side record; 512 bytes is generous); the call's
 * alias copy; the builder's image table entry, the kernel's copy and the side record's path slot. */
#define WP_PARAM_COST (2 * sizeof(tkrt_param_t))
#define WP_CONFIG_COST (2 * sizeof(tkrt_config_desc_t) + 512)
#define WP_ALIAS_COST (sizeof(tkrt_alias_t))
#define WP_IMAGE_COST (2 * sizeof(tkrt_kernel_image_t) + sizeof(char*))

static tkrt_status_t wp_charge(wp_budget_t* budget, const tkrt_wire_reader_t* r,
                               const tkrt_wire_field_t* f, size_t bytes) {
  if (bytes <= budget->limit - budget->used) {
    budget->used += bytes;
    return NULL;
  }
  return tkrt_wire_field_error_code(
      r, f, TKRT_STATUS_RESOURCE_EXHAUSTED,
      "the decoded records (parameters, configs, aliases, images, across the whole message) "
      "would exceed the limit of %zu bytes (TKRT_WIRE_MAX_RECORD_BYTES; %zu used) at offset %zu "
      "%s",
      budget->limit, budget->used, f->offset, r->where);
}

void* tkrt_wp_push(void** array, size_t* count, size_t* capacity, size_t size) {
  if (*count == *capacity) {
    size_t grown = *capacity ? *capacity * 2 : 4;
    void* bigger = realloc(*array, grown * size);
    if (!bigger) return NULL;
    *array = bigger;
    *capacity = grown;
  }
  void* slot = (uint8_t*)*array + *count * size;
  memset(slot, 0, size);
  ++*count;
  return slot;
}

/* tkrt_wp_push, after charging the budget for the grown array when it has to grow. */
static tkrt_status_t wp_push_charged(wp_budget_t* budget, const tkrt_wire_reader_t* r,
                                     const tkrt_wire_field_t* f, void** array, size_t* count,
                                     size_t* capacity, size_t size, size_t extra_cost,
                                     void** out_slot) {
  size_t cost = extra_cost;
  if (*count == *capacity) cost += (*capacity ? *capacity * 2 : 4) * size;
  TKRT_RETURN_IF_ERROR(wp_charge(budget, r, f, cost));
  *out_slot = tkrt_wp_push(array, count, capacity, size);
  return *out_slot ? NULL : TKRT_WIRE_OOM();
}

void tkrt_wp_params_free(tkrt_wp_kcall_t* call) {
  for (size_t i = 0; i < call->param_count; ++i) free(call->params[i].tma);
  free(call->params);
  call->params = NULL;
  call->param_count = call->param_capacity = 0;
}

static void wp_kernel_free(tkrt_wp_kernel_t* kernel) {
  free(kernel->images);
  memset(kernel, 0, sizeof(*kernel));
}

static void wp_kcall_free(tkrt_wp_kcall_t* call) {
  wp_kernel_free(&call->kernel);
  tkrt_wp_params_free(call);
  memset(call, 0, sizeof(*call));
}

static void wp_autotuned_free(tkrt_wp_autotuned_t* autotuned) {
  for (size_t i = 0; i < autotuned->config_count; ++i) wp_kcall_free(&autotuned->configs[i].call);
  free(autotuned->configs);
  free(autotuned->aliases);
  memset(autotuned, 0, sizeof(*autotuned));
}

static tkrt_wp_slice_t wp_slice(const tkrt_wire_field_t* field) {
  tkrt_wp_slice_t slice = {field->data, field->size, field->value_offset};
  return slice;
}

/* ---------------------------------------------------------------- parsing
 * Each parser reads one message; a field whose wire type does not match the schema is unknown
 * (libprotobuf does the same) and, like every unknown field, skipped. */

static tkrt_status_t wp_parse_module(const tkrt_wire_reader_t* parent,
                                     const tkrt_wire_field_t* outer, tkrt_wp_kernel_t* kernel) {
  tkrt_wire_reader_t r;
  tkrt_wire_reader_sub(&r, parent, outer, &kModuleSchema);
  if (!kernel->has_module) {
    kernel->has_module = true;
    kernel->module_offset = outer->value_offset;
  }
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    TKRT_RETURN_IF_ERROR(tkrt_wire_next_field(&r, &f));
    if (f.number == TKRT_F_MODULE_OBJECT_FILE && f.wire_type == TKRT_WIRE_LEN) {
      kernel->module_object = wp_slice(&f);
    } else if (f.number == TKRT_F_MODULE_KERNEL_NAME && f.wire_type == TKRT_WIRE_LEN) {
      TKRT_RETURN_IF_ERROR(tkrt_wire_check_string(&r, &f, true));
      kernel->module_name = wp_slice(&f);
    } else if (f.number == TKRT_F_MODULE_SHARED_MEM && f.wire_type == TKRT_WIRE_VARINT) {
      kernel->module_shared_mem = (uint32_t)f.value;
    }
  }
  return NULL;
}

static tkrt_status_t wp_parse_image(wp_budget_t* budget, const tkrt_wire_reader_t* parent,
                                    const tkrt_wire_field_t* outer, tkrt_wp_kernel_t* kernel) {
  if (kernel->image_count >= TKRT_WIRE_MAX_TKRT_IMAGES) {
    return tkrt_wire_field_error(parent, outer, "more than %d images at offset %zu %s",
                                 TKRT_WIRE_MAX_TKRT_IMAGES, outer->offset, parent->where);
  }
  void* pushed;
  TKRT_RETURN_IF_ERROR(wp_push_charged(budget, parent, outer, (void**)&kernel->images,
                                       &kernel->image_count, &kernel->image_capacity,
                                       sizeof(tkrt_wp_image_t), WP_IMAGE_COST, &pushed));
  tkrt_wp_image_t* image = pushed;
  image->offset = outer->value_offset;
  tkrt_wire_reader_t r;
  tkrt_wire_reader_sub(&r, parent, outer, &kImageSchema);
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    TKRT_RETURN_IF_ERROR(tkrt_wire_next_field(&r, &f));
    if (f.wire_type == TKRT_WIRE_LEN) {
      tkrt_wp_slice_t* slot = NULL;
      switch (f.number) {
        case TKRT_F_IMAGE_BACKEND: slot = &image->backend; break;
        case TKRT_F_IMAGE_ARCH: slot = &image->arch; break;
        case TKRT_F_IMAGE_DATA: image->data = wp_slice(&f); break;
        case TKRT_F_IMAGE_ENTRY_NAME: slot = &image->entry_name; break;
        case TKRT_F_IMAGE_SOURCE_PATH: slot = &image->source_path; break;
        default: break;
      }
      if (slot) {
        TKRT_RETURN_IF_ERROR(tkrt_wire_check_string(&r, &f, true));
        *slot = wp_slice(&f);
      }
    } else if (f.wire_type == TKRT_WIRE_VARINT) {
      if (f.number == TKRT_F_IMAGE_KIND) image->kind = f.value;
      if (f.number == TKRT_F_IMAGE_SHARED_MEM) image->shared_mem_bytes = (uint32_t)f.value;
    }
  }
  return NULL;
}

static tkrt_status_t wp_parse_kernel(wp_budget_t* budget, const tkrt_wire_reader_t* parent,
                                     const tkrt_wire_field_t* outer, tkrt_wp_kernel_t* kernel) {
  tkrt_wire_reader_t r;
  tkrt_wire_reader_sub(&r, parent, outer, &kKernelSchema);
  if (!kernel->present) {
    kernel->present = true;
    kernel->offset = outer->value_offset;
  }
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    TKRT_RETURN_IF_ERROR(tkrt_wire_next_field(&r, &f));
    if (f.wire_type == TKRT_WIRE_VARINT) {
      /* uint32 fields keep the low 32 bits, as libprotobuf does. */
      uint32_t v = (uint32_t)f.value;
      switch (f.number) {
        case TKRT_F_KERNEL_NUM_WARPS: kernel->num_warps = v; break;
        case TKRT_F_KERNEL_SHARED_MEM: kernel->shared_mem_bytes = v; break;
        case TKRT_F_KERNEL_CC: kernel->compute_capability = v; break;
        case TKRT_F_KERNEL_CLUSTER_0:
        case TKRT_F_KERNEL_CLUSTER_0 + 1:
        case TKRT_F_KERNEL_CLUSTER_0 + 2:
          kernel->cluster_dims[f.number - TKRT_F_KERNEL_CLUSTER_0] = v;
          break;
        case TKRT_F_KERNEL_NUM_CTAS:
          kernel->num_ctas = v;
          kernel->present_bits |= TKRT_WIRE_HAS_NUM_CTAS;
          break;
        case TKRT_F_KERNEL_SCRATCH_SIZE:
          kernel->global_scratch_size = v;
          kernel->present_bits |= TKRT_WIRE_HAS_GLOBAL_SCRATCH_SIZE;
          break;
        case TKRT_F_KERNEL_SCRATCH_ALIGN:
          kernel->global_scratch_align = v;
          kernel->present_bits |= TKRT_WIRE_HAS_GLOBAL_SCRATCH_ALIGN;
          break;
        case TKRT_F_KERNEL_TKRT_LAUNCH_FLAGS: kernel->launch_flags = v; break;
        case TKRT_F_KERNEL_TKRT_PROFILE_SCRATCH_SIZE: kernel->profile_scratch_size = v; break;
        case TKRT_F_KERNEL_TKRT_PROFILE_SCRATCH_ALIGN: kernel->profile_scratch_align = v; break;
        case TKRT_F_KERNEL_TKRT_HIDDEN_POINTERS: kernel->hidden_pointers = v; break;
        default: break;
      }
    } else if (f.wire_type == TKRT_WIRE_LEN) {
      switch (f.number) {
        case TKRT_F_KERNEL_NAME:
          TKRT_RETURN_IF_ERROR(tkrt_wire_check_string(&r, &f, true));
          kernel->name = wp_slice(&f);
          break;
        case TKRT_F_KERNEL_PTX:
          /* PTX text or an HSACO path; the NUL check is done once we know which. */
          TKRT_RETURN_IF_ERROR(tkrt_wire_check_string(&r, &f, false));
          kernel->ptx = wp_slice(&f);
          break;
        case TKRT_F_KERNEL_TTIR:
          TKRT_RETURN_IF_ERROR(tkrt_wire_check_string(&r, &f, true));
          kernel->ttir = wp_slice(&f);
          break;
        case TKRT_F_KERNEL_MODULE_IMAGE:
          TKRT_RETURN_IF_ERROR(wp_parse_module(&r, &f, kernel));
          break;
        case TKRT_F_KERNEL_TKRT_IMAGES:
          TKRT_RETURN_IF_ERROR(wp_parse_image(budget, &r, &f, kernel));
          break;
        default: break;
      }
    }
  }
  return NULL;
}

/* Appends one value of a repeated varint field of the TMA descriptor (packed or not). */
static tkrt_status_t wp_tma_append(const tkrt_wire_reader_t* r, const tkrt_wire_field_t* f,
                                   uint64_t value, tkrt_wp_tma_t* tma) {
  uint32_t* count = f->number == TKRT_F_TMA_SHAPE     ? &tma->shape_count
                    : f->number == TKRT_F_TMA_STRIDES ? &tma->strides_count
                                                      : &tma->block_count;
  if (*count >= TKRT_TMA_MAX_RANK) {
    return tkrt_wire_field_error(r, f, "more than %d entries (rank > %d) at offset %zu %s",
                                 TKRT_TMA_MAX_RANK, TKRT_TMA_MAX_RANK, f->offset, r->where);
  }
  if (f->number == TKRT_F_TMA_SHAPE) tma->shape[*count] = value;
  if (f->number == TKRT_F_TMA_STRIDES) tma->strides[*count] = value;
  if (f->number == TKRT_F_TMA_BLOCK_SHAPE) tma->block_shape[*count] = (uint32_t)value;
  ++*count;
  return NULL;
}

static tkrt_status_t wp_parse_tma_descriptor(const tkrt_wire_reader_t* parent,
                                             const tkrt_wire_field_t* outer, tkrt_wp_tma_t* tma) {
  tkrt_wire_reader_t r;
  tkrt_wire_reader_sub(&r, parent, outer, &kTmaSchema);
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    TKRT_RETURN_IF_ERROR(tkrt_wire_next_field(&r, &f));
    bool repeated = f.number == TKRT_F_TMA_SHAPE || f.number == TKRT_F_TMA_STRIDES ||
                    f.number == TKRT_F_TMA_BLOCK_SHAPE;
    if (f.wire_type == TKRT_WIRE_VARINT) {
      switch (f.number) {
        case TKRT_F_TMA_ELEM_TYPE: tma->elem_type = (uint32_t)f.value; break;
        case TKRT_F_TMA_SWIZZLE: tma->swizzle = (uint32_t)f.value; break;
        case TKRT_F_TMA_OOB_FILL: tma->oob_fill = (uint32_t)f.value; break;
        default:
          if (repeated) TKRT_RETURN_IF_ERROR(wp_tma_append(&r, &f, f.value, tma));
          break;
      }
    } else if (f.wire_type == TKRT_WIRE_LEN && repeated) {
      /* Packed: libprotobuf accepts both encodings of a repeated scalar. */
      char desc[96];
      snprintf(desc, sizeof(desc), "field %u (TmaDescriptor.%s)", f.number,
               tkrt_wire_field_name(&kTmaSchema, f.number));
      tkrt_wire_reader_t packed;
      tkrt_wire_reader_sub(&packed, &r, &f, &kTmaSchema);
      while (!tkrt_wire_reader_done(&packed)) {
        uint64_t value;
        TKRT_RETURN_IF_ERROR(tkrt_wire_read_packed_varint(&packed, desc, &value));
        TKRT_RETURN_IF_ERROR(wp_tma_append(&r, &f, value, tma));
      }
    }
  }
  return NULL;
}

static tkrt_status_t wp_parse_tma(const tkrt_wire_reader_t* parent,
                                  const tkrt_wire_field_t* outer, tkrt_wp_tma_t* tma) {
  tkrt_wire_reader_t r;
  tkrt_wire_reader_sub(&r, parent, outer, &kTmaOuterSchema);
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    TKRT_RETURN_IF_ERROR(tkrt_wire_next_field(&r, &f));
    if (f.number == TKRT_F_TMA_DESCRIPTOR && f.wire_type == TKRT_WIRE_LEN) {
      TKRT_RETURN_IF_ERROR(wp_parse_tma_descriptor(&r, &f, tma));
    }
  }
  return NULL;
}

static tkrt_status_t wp_parse_array(const tkrt_wire_reader_t* parent,
                                    const tkrt_wire_field_t* outer, tkrt_wp_param_t* param) {
  tkrt_wire_reader_t r;
  tkrt_wire_reader_sub(&r, parent, outer, &kArraySchema);
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    TKRT_RETURN_IF_ERROR(tkrt_wire_next_field(&r, &f));
    if (f.wire_type != TKRT_WIRE_VARINT) continue;
    if (f.number == TKRT_F_ARRAY_BYTES_TO_ZERO) param->bits = f.value;
    if (f.number == TKRT_F_ARRAY_PTR_DIVISIBILITY) param->ptr_divisibility = f.value;
  }
  return NULL;
}

static tkrt_status_t wp_parse_param(wp_budget_t* budget, const tkrt_wire_reader_t* parent,
                                    const tkrt_wire_field_t* outer, tkrt_wp_param_t* param) {
  tkrt_wire_reader_t r;
  tkrt_wire_reader_sub(&r, parent, outer, &kParamSchema);
  param->offset = (uint32_t)outer->value_offset;
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    TKRT_RETURN_IF_ERROR(tkrt_wire_next_field(&r, &f));
    uint32_t expected;
    switch (f.number) {
      case TKRT_PARAM_ARRAY:
      case TKRT_PARAM_TMA: expected = TKRT_WIRE_LEN; break;
      case TKRT_PARAM_F32: expected = TKRT_WIRE_I32; break;
      case TKRT_PARAM_F64: expected = TKRT_WIRE_I64; break;
      case TKRT_PARAM_BOOL:
      case TKRT_PARAM_I32:
      case TKRT_PARAM_U32:
      case TKRT_PARAM_I64:
      case TKRT_PARAM_U64: expected = TKRT_WIRE_VARINT; break;
      default: continue; /* unknown field */
    }
    if (f.wire_type != expected) continue;
    /* Switching oneof members clears the previous one; the same message member merges. */
    if (param->which != f.number) {
      uint32_t offset = param->offset;
      free(param->tma);
      memset(param, 0, sizeof(*param));
      param->offset = offset;
      if (f.number == TKRT_PARAM_TMA) {
        TKRT_RETURN_IF_ERROR(wp_charge(budget, &r, &f, sizeof(*param->tma)));
        param->tma = calloc(1, sizeof(*param->tma));
        if (!param->tma) return TKRT_WIRE_OOM();
      }
      param->which = f.number;
    }
    if (f.number == TKRT_PARAM_ARRAY) {
      TKRT_RETURN_IF_ERROR(wp_parse_array(&r, &f, param));
    } else if (f.number == TKRT_PARAM_TMA) {
      TKRT_RETURN_IF_ERROR(wp_parse_tma(&r, &f, param->tma));
    } else {
      param->bits = f.value;
    }
  }
  /* A Parameter with no member set is an error only once the call is built (like jaxlib), so
   * that a kernel_call later replaced by another oneof member does not fail the decode. */
  return NULL;
}

static tkrt_status_t wp_parse_kcall(wp_budget_t* budget, const tkrt_wire_reader_t* parent,
                                    const tkrt_wire_field_t* outer, tkrt_wp_kcall_t* call) {
  tkrt_wire_reader_t r;
  tkrt_wire_reader_sub(&r, parent, outer, &kCallSchema);
  if (!call->present) {
    call->present = true;
    call->offset = outer->value_offset;
  }
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    TKRT_RETURN_IF_ERROR(tkrt_wire_next_field(&r, &f));
    if (f.number == TKRT_F_CALL_KERNEL && f.wire_type == TKRT_WIRE_LEN) {
      TKRT_RETURN_IF_ERROR(wp_parse_kernel(budget, &r, &f, &call->kernel));
    } else if (f.number >= TKRT_F_CALL_GRID_0 && f.number <= TKRT_F_CALL_GRID_0 + 2 &&
               f.wire_type == TKRT_WIRE_VARINT) {
      call->grid[f.number - TKRT_F_CALL_GRID_0] = (uint32_t)f.value;
    } else if (f.number == TKRT_F_CALL_PARAMETERS && f.wire_type == TKRT_WIRE_LEN) {
      if (call->param_count >= TKRT_WIRE_MAX_PARAMS) {
        return tkrt_wire_field_error(&r, &f, "more than %d parameters at offset %zu %s",
                                     TKRT_WIRE_MAX_PARAMS, f.offset, r.where);
      }
      void* pushed;
      TKRT_RETURN_IF_ERROR(wp_push_charged(budget, &r, &f, (void**)&call->params,
                                           &call->param_count, &call->param_capacity,
                                           sizeof(tkrt_wp_param_t), WP_PARAM_COST, &pushed));
      tkrt_wp_param_t* param = pushed;
      TKRT_RETURN_IF_ERROR(wp_parse_param(budget, &r, &f, param));
    }
  }
  return NULL;
}

static tkrt_status_t wp_parse_config(wp_budget_t* budget, const tkrt_wire_reader_t* parent,
                                     const tkrt_wire_field_t* outer, tkrt_wp_config_t* config) {
  tkrt_wire_reader_t r;
  tkrt_wire_reader_sub(&r, parent, outer, &kConfigSchema);
  config->offset = outer->value_offset;
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    TKRT_RETURN_IF_ERROR(tkrt_wire_next_field(&r, &f));
    if (f.wire_type != TKRT_WIRE_LEN) continue;
    if (f.number == TKRT_F_CONFIG_KERNEL_CALL) {
      TKRT_RETURN_IF_ERROR(wp_parse_kcall(budget, &r, &f, &config->call));
    } else if (f.number == TKRT_F_CONFIG_DESCRIPTION) {
      TKRT_RETURN_IF_ERROR(tkrt_wire_check_string(&r, &f, true));
      config->description = wp_slice(&f);
    }
  }
  return NULL;
}

static tkrt_status_t wp_parse_alias(const tkrt_wire_reader_t* parent,
                                    const tkrt_wire_field_t* outer, tkrt_alias_t* alias) {
  tkrt_wire_reader_t r;
  tkrt_wire_reader_sub(&r, parent, outer, &kAliasSchema);
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    TKRT_RETURN_IF_ERROR(tkrt_wire_next_field(&r, &f));
    if (f.wire_type != TKRT_WIRE_VARINT) continue;
    if (f.number == TKRT_F_ALIAS_INPUT) alias->input_index = f.value;
    if (f.number == TKRT_F_ALIAS_OUTPUT) alias->output_index = f.value;
    if (f.number == TKRT_F_ALIAS_SIZE) alias->size_bytes = f.value;
  }
  return NULL;
}

static tkrt_status_t wp_parse_autotuned(wp_budget_t* budget, const tkrt_wire_reader_t* parent,
                                        const tkrt_wire_field_t* outer,
                                        tkrt_wp_autotuned_t* autotuned) {
  tkrt_wire_reader_t r;
  tkrt_wire_reader_sub(&r, parent, outer, &kAutotunedSchema);
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    TKRT_RETURN_IF_ERROR(tkrt_wire_next_field(&r, &f));
    if (f.wire_type != TKRT_WIRE_LEN) continue;
    if (f.number == TKRT_F_AUTOTUNED_NAME) {
      TKRT_RETURN_IF_ERROR(tkrt_wire_check_string(&r, &f, true));
      autotuned->name = wp_slice(&f);
    } else if (f.number == TKRT_F_AUTOTUNED_CONFIGS) {
      if (autotuned->config_count >= TKRT_WIRE_MAX_CONFIGS) {
        return tkrt_wire_field_error(&r, &f, "more than %d configs at offset %zu %s",
                                     TKRT_WIRE_MAX_CONFIGS, f.offset, r.where);
      }
      void* pushed;
      TKRT_RETURN_IF_ERROR(wp_push_charged(budget, &r, &f, (void**)&autotuned->configs,
                                           &autotuned->config_count, &autotuned->config_capacity,
                                           sizeof(tkrt_wp_config_t), WP_CONFIG_COST, &pushed));
      tkrt_wp_config_t* config = pushed;
      TKRT_RETURN_IF_ERROR(wp_parse_config(budget, &r, &f, config));
    } else if (f.number == TKRT_F_AUTOTUNED_ALIASES) {
      if (autotuned->alias_count >= TKRT_WIRE_MAX_ALIASES) {
        return tkrt_wire_field_error(&r, &f, "more than %d aliases at offset %zu %s",
                                     TKRT_WIRE_MAX_ALIASES, f.offset, r.where);
      }
      void* pushed;
      TKRT_RETURN_IF_ERROR(wp_push_charged(budget, &r, &f, (void**)&autotuned->aliases,
                                           &autotuned->alias_count, &autotuned->alias_capacity,
                                           sizeof(tkrt_alias_t), WP_ALIAS_COST, &pushed));
      tkrt_alias_t* alias = pushed;
      TKRT_RETURN_IF_ERROR(wp_parse_alias(&r, &f, alias));
    }
  }
  return NULL;
}

static tkrt_status_t wp_parse_any(wp_budget_t* budget, const uint8_t* data, size_t size,
                                  const char* where, tkrt_wp_any_t* any) {
  tkrt_wire_reader_t r;
  tkrt_wire_reader_init(&r, data, size, where, &kAnySchema);
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    TKRT_RETURN_IF_ERROR(tkrt_wire_next_field(&r, &f));
    if (f.wire_type != TKRT_WIRE_LEN) continue;
    switch (f.number) {
      case TKRT_F_ANY_KERNEL_CALL:
      case TKRT_F_ANY_AUTOTUNED:
        if (any->which != f.number) {
          wp_kcall_free(&any->call);
          wp_autotuned_free(&any->autotuned);
          any->which = f.number;
        }
        if (f.number == TKRT_F_ANY_KERNEL_CALL) {
          TKRT_RETURN_IF_ERROR(wp_parse_kcall(budget, &r, &f, &any->call));
        } else {
          TKRT_RETURN_IF_ERROR(wp_parse_autotuned(budget, &r, &f, &any->autotuned));
        }
        break;
      case TKRT_F_ANY_METADATA:
        any->metadata = wp_slice(&f);
        any->has_metadata = true;
        break;
      case TKRT_F_ANY_NAME:
        TKRT_RETURN_IF_ERROR(tkrt_wire_check_string(&r, &f, true));
        any->name = wp_slice(&f);
        break;
      default: break;
    }
  }
  return NULL;
}

/* ---------------------------------------------------------------- entry points */

tkrt_status_t tkrt_wp_parse(const uint8_t* bytes, size_t size, tkrt_wire_format_t format,
                            size_t max_message_size, tkrt_wp_any_t* any) {
  const uint8_t* message = bytes;
  size_t message_size = size;
  any->where = "in the message";
  bool compressed = format == TKRT_WIRE_FORMAT_ZLIB ||
                    (format == TKRT_WIRE_FORMAT_AUTO && tkrt_wire_is_zlib(bytes, size));
  if (compressed) {
    TKRT_RETURN_IF_ERROR(
        tkrt_wire_inflate(bytes, size, max_message_size, &any->inflated, &message_size));
    message = any->inflated;
    any->where = "in the decompressed message";
  } else if (size > max_message_size) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "message of %zu bytes exceeds the limit of %zu bytes", size,
                            max_message_size);
  }
  wp_budget_t budget = {0, TKRT_WIRE_MAX_RECORD_BYTES};
  return wp_parse_any(&budget, message, message_size, any->where, any);
}

void tkrt_wp_any_free(tkrt_wp_any_t* any) {
  wp_kcall_free(&any->call);
  wp_autotuned_free(&any->autotuned);
  free(any->inflated);
  memset(any, 0, sizeof(*any));
}
