/* tkrt core: decoding jaxlib's serialized TritonAnyKernelCall into a tkrt_call_t.
 * Two phases: the bytes are parsed into a plain model that mirrors the protobuf (so libprotobuf's
 * rules fall out naturally: singular messages merge, scalars overwrite, the last oneof member
 * wins), then the model is checked and turned into core objects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/wire_internal.h"
#include "core/wire_proto.h"
#include "core/wire_schema.h"
#include "tkrt/wire.h"

/* Caps on repeated fields, per message that holds them; real calls have tens of parameters and a
 * handful of configs. They do not bound memory on their own (65,536 configs of 65,536 parameters
 * each): the record budget (TKRT_WIRE_MAX_RECORD_BYTES, wd_budget_t below) does, across the whole
 * message. */
#define TKRT_WIRE_MAX_PARAMS 65536
#define TKRT_WIRE_MAX_CONFIGS 65536
#define TKRT_WIRE_MAX_ALIASES 65536
#define TKRT_WIRE_MAX_TKRT_IMAGES 1024
#define TKRT_WIRE_MAX_PATH 4096

#define TKRT_WIRE_OOM() TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory")

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
            {1000, "tkrt_images"}, {1001, "tkrt_launch_flags"});
TKRT_SCHEMA(kModuleSchema, "ModuleImage", {1, "object_file"}, {2, "kernel_name"},
            {3, "shared_mem_bytes"});
TKRT_SCHEMA(kImageSchema, "TkrtImage", {1, "backend"}, {2, "arch"}, {3, "kind"}, {4, "data"},
            {5, "entry_name"}, {6, "shared_mem_bytes"}, {7, "source_path"});
TKRT_SCHEMA(kAutotunedSchema, "TritonAutotunedKernelCall", {1, "name"}, {2, "configs"},
            {3, "input_output_aliases"});
TKRT_SCHEMA(kConfigSchema, "Config", {1, "kernel_call"}, {2, "description"});
TKRT_SCHEMA(kAliasSchema, "InputOutputAlias", {1, "input_buffer_idx"}, {2, "output_buffer_idx"},
            {3, "buffer_size_bytes"});

/* ---------------------------------------------------------------- the parsed model
 * Slices point into the (decompressed) message, which outlives the model. */

typedef struct wd_slice {
  const uint8_t* data;
  size_t size;
  size_t offset;
} wd_slice_t;

typedef struct wd_image {
  wd_slice_t backend, arch, data, entry_name, source_path;
  uint64_t kind;
  uint32_t shared_mem_bytes;
  size_t offset;
  bool consumed; /* its bytes became the HSACO_PATH image */
} wd_image_t;

typedef struct wd_kernel {
  bool present;
  size_t offset;
  wd_slice_t name, ptx, ttir;
  uint32_t num_warps, shared_mem_bytes, compute_capability, cluster_dims[3], num_ctas;
  uint32_t global_scratch_size, global_scratch_align, launch_flags, present_bits;
  bool has_module;
  size_t module_offset;
  wd_slice_t module_object, module_name;
  uint32_t module_shared_mem;
  wd_image_t* images;
  size_t image_count, image_capacity;
} wd_kernel_t;

typedef struct wd_tma {
  uint32_t elem_type, swizzle, oob_fill;
  uint32_t shape_count, strides_count, block_count;
  uint64_t shape[TKRT_TMA_MAX_RANK], strides[TKRT_TMA_MAX_RANK];
  uint32_t block_shape[TKRT_TMA_MAX_RANK];
} wd_tma_t;

/* Kept small (32 bytes): an empty Parameter is 2 input bytes. The TMA descriptor (128 bytes) is
 * out of line, so that only TMA parameters pay for it. */
typedef struct wd_param {
  uint32_t which;  /* the oneof member set last (a tkrt_param_kind_t), 0: none */
  uint32_t offset; /* messages are at most TKRT_WIRE_MAX_MESSAGE_SIZE bytes */
  uint64_t bits;   /* scalars: the varint or fixed bits; arrays: bytes_to_zero */
  uint64_t ptr_divisibility; /* arrays */
  wd_tma_t* tma;   /* TMA: owned, never NULL once which is TKRT_PARAM_TMA */
} wd_param_t;

_Static_assert(TKRT_WIRE_MAX_MESSAGE_SIZE <= UINT32_MAX, "wd_param_t.offset is 32 bits");

typedef struct wd_kcall {
  bool present;
  size_t offset;
  wd_kernel_t kernel;
  uint32_t grid[3];
  wd_param_t* params;
  size_t param_count, param_capacity;
} wd_kcall_t;

typedef struct wd_config {
  size_t offset;
  wd_kcall_t call;
  wd_slice_t description;
} wd_config_t;

typedef struct wd_autotuned {
  wd_slice_t name;
  wd_config_t* configs;
  size_t config_count, config_capacity;
  tkrt_alias_t* aliases;
  size_t alias_count, alias_capacity;
} wd_autotuned_t;

typedef struct wd_any {
  uint32_t which; /* TKRT_F_ANY_KERNEL_CALL, TKRT_F_ANY_AUTOTUNED, or 0 */
  wd_kcall_t call;
  wd_autotuned_t autotuned;
  wd_slice_t metadata, name;
  bool has_metadata;
} wd_any_t;

/* The record budget of one decode (TKRT_WIRE_MAX_RECORD_BYTES): every repeated record is charged
 * when its field is read, before anything is allocated for it, with what it costs in the model
 * (array growth included: a grown array is charged whole, which also covers the old block that
 * realloc keeps until it has copied it) and later in the built call (see the WD_*_COST below).
 * Charges are never refunded (records discarded by a oneof switch still count), so the total
 * bounds the peak. */
typedef struct wd_budget {
  size_t used;
  size_t limit;
} wd_budget_t;

/* What one record costs once built, beyond its model record: the decoder's tkrt_param_t and the
 * call's deep copy; the decoder's config and the call's, plus the kernel object (its descriptor,
 * image table and digest; 512 bytes is generous); the call's alias copy; the decoder's image
 * table entry and the kernel's copy. */
#define WD_PARAM_COST (2 * sizeof(tkrt_param_t))
#define WD_CONFIG_COST (2 * sizeof(tkrt_config_desc_t) + 512)
#define WD_ALIAS_COST (sizeof(tkrt_alias_t))
#define WD_IMAGE_COST (2 * sizeof(tkrt_kernel_image_t))

static tkrt_status_t wd_charge(wd_budget_t* budget, const tkrt_wire_reader_t* r,
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

/* wd_push, after charging the budget for the grown array when it has to grow. */
static tkrt_status_t wd_push_charged(wd_budget_t* budget, const tkrt_wire_reader_t* r,
                                     const tkrt_wire_field_t* f, void** array, size_t* count,
                                     size_t* capacity, size_t size, size_t extra_cost,
                                     void** out_slot);

typedef struct wd_ctx {
  tkrt_wire_decode_options_t options;
  wd_budget_t budget;
  size_t hsaco_bytes; /* read from HSACO files so far, counted per kernel */
  /* NUL-terminated copies and file contents made while building; freed at the end. */
  void** allocs;
  size_t alloc_count, alloc_capacity;
} wd_ctx_t;

/* Grows *array (of element size `size`) to hold one more element, zeroed. */
static void* wd_push(void** array, size_t* count, size_t* capacity, size_t size) {
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

static tkrt_status_t wd_push_charged(wd_budget_t* budget, const tkrt_wire_reader_t* r,
                                     const tkrt_wire_field_t* f, void** array, size_t* count,
                                     size_t* capacity, size_t size, size_t extra_cost,
                                     void** out_slot) {
  size_t cost = extra_cost;
  if (*count == *capacity) cost += (*capacity ? *capacity * 2 : 4) * size;
  TKRT_RETURN_IF_ERROR(wd_charge(budget, r, f, cost));
  *out_slot = wd_push(array, count, capacity, size);
  return *out_slot ? NULL : TKRT_WIRE_OOM();
}

static void wd_params_free(wd_kcall_t* call) {
  for (size_t i = 0; i < call->param_count; ++i) free(call->params[i].tma);
  free(call->params);
  call->params = NULL;
  call->param_count = call->param_capacity = 0;
}

static void wd_kernel_free(wd_kernel_t* kernel) {
  free(kernel->images);
  memset(kernel, 0, sizeof(*kernel));
}

static void wd_kcall_free(wd_kcall_t* call) {
  wd_kernel_free(&call->kernel);
  wd_params_free(call);
  memset(call, 0, sizeof(*call));
}

static void wd_autotuned_free(wd_autotuned_t* autotuned) {
  for (size_t i = 0; i < autotuned->config_count; ++i) wd_kcall_free(&autotuned->configs[i].call);
  free(autotuned->configs);
  free(autotuned->aliases);
  memset(autotuned, 0, sizeof(*autotuned));
}

static wd_slice_t wd_slice(const tkrt_wire_field_t* field) {
  wd_slice_t slice = {field->data, field->size, field->value_offset};
  return slice;
}

/* ---------------------------------------------------------------- parsing
 * Each parser reads one message; a field whose wire type does not match the schema is unknown
 * (libprotobuf does the same) and, like every unknown field, skipped. */

static tkrt_status_t wd_parse_module(const tkrt_wire_reader_t* parent,
                                     const tkrt_wire_field_t* outer, wd_kernel_t* kernel) {
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
      kernel->module_object = wd_slice(&f);
    } else if (f.number == TKRT_F_MODULE_KERNEL_NAME && f.wire_type == TKRT_WIRE_LEN) {
      TKRT_RETURN_IF_ERROR(tkrt_wire_check_string(&r, &f, true));
      kernel->module_name = wd_slice(&f);
    } else if (f.number == TKRT_F_MODULE_SHARED_MEM && f.wire_type == TKRT_WIRE_VARINT) {
      kernel->module_shared_mem = (uint32_t)f.value;
    }
  }
  return NULL;
}

static tkrt_status_t wd_parse_image(wd_budget_t* budget, const tkrt_wire_reader_t* parent,
                                    const tkrt_wire_field_t* outer, wd_kernel_t* kernel) {
  if (kernel->image_count >= TKRT_WIRE_MAX_TKRT_IMAGES) {
    return tkrt_wire_field_error(parent, outer, "more than %d images at offset %zu %s",
                                 TKRT_WIRE_MAX_TKRT_IMAGES, outer->offset, parent->where);
  }
  void* pushed;
  TKRT_RETURN_IF_ERROR(wd_push_charged(budget, parent, outer, (void**)&kernel->images,
                                       &kernel->image_count, &kernel->image_capacity,
                                       sizeof(wd_image_t), WD_IMAGE_COST, &pushed));
  wd_image_t* image = pushed;
  image->offset = outer->value_offset;
  tkrt_wire_reader_t r;
  tkrt_wire_reader_sub(&r, parent, outer, &kImageSchema);
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    TKRT_RETURN_IF_ERROR(tkrt_wire_next_field(&r, &f));
    if (f.wire_type == TKRT_WIRE_LEN) {
      wd_slice_t* slot = NULL;
      switch (f.number) {
        case TKRT_F_IMAGE_BACKEND: slot = &image->backend; break;
        case TKRT_F_IMAGE_ARCH: slot = &image->arch; break;
        case TKRT_F_IMAGE_DATA: image->data = wd_slice(&f); break;
        case TKRT_F_IMAGE_ENTRY_NAME: slot = &image->entry_name; break;
        case TKRT_F_IMAGE_SOURCE_PATH: slot = &image->source_path; break;
        default: break;
      }
      if (slot) {
        TKRT_RETURN_IF_ERROR(tkrt_wire_check_string(&r, &f, true));
        *slot = wd_slice(&f);
      }
    } else if (f.wire_type == TKRT_WIRE_VARINT) {
      if (f.number == TKRT_F_IMAGE_KIND) image->kind = f.value;
      if (f.number == TKRT_F_IMAGE_SHARED_MEM) image->shared_mem_bytes = (uint32_t)f.value;
    }
  }
  return NULL;
}

static tkrt_status_t wd_parse_kernel(wd_budget_t* budget, const tkrt_wire_reader_t* parent,
                                     const tkrt_wire_field_t* outer, wd_kernel_t* kernel) {
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
          kernel->present_bits |= TKRT_KERNEL_HAS_NUM_CTAS;
          break;
        case TKRT_F_KERNEL_SCRATCH_SIZE:
          kernel->global_scratch_size = v;
          kernel->present_bits |= TKRT_KERNEL_HAS_GLOBAL_SCRATCH_SIZE;
          break;
        case TKRT_F_KERNEL_SCRATCH_ALIGN:
          kernel->global_scratch_align = v;
          kernel->present_bits |= TKRT_KERNEL_HAS_GLOBAL_SCRATCH_ALIGN;
          break;
        case TKRT_F_KERNEL_TKRT_LAUNCH_FLAGS: kernel->launch_flags = v; break;
        default: break;
      }
    } else if (f.wire_type == TKRT_WIRE_LEN) {
      switch (f.number) {
        case TKRT_F_KERNEL_NAME:
          TKRT_RETURN_IF_ERROR(tkrt_wire_check_string(&r, &f, true));
          kernel->name = wd_slice(&f);
          break;
        case TKRT_F_KERNEL_PTX:
          /* PTX text or an HSACO path; the NUL check is done once we know which. */
          TKRT_RETURN_IF_ERROR(tkrt_wire_check_string(&r, &f, false));
          kernel->ptx = wd_slice(&f);
          break;
        case TKRT_F_KERNEL_TTIR:
          TKRT_RETURN_IF_ERROR(tkrt_wire_check_string(&r, &f, true));
          kernel->ttir = wd_slice(&f);
          break;
        case TKRT_F_KERNEL_MODULE_IMAGE:
          TKRT_RETURN_IF_ERROR(wd_parse_module(&r, &f, kernel));
          break;
        case TKRT_F_KERNEL_TKRT_IMAGES:
          TKRT_RETURN_IF_ERROR(wd_parse_image(budget, &r, &f, kernel));
          break;
        default: break;
      }
    }
  }
  return NULL;
}

/* Appends one value of a repeated varint field of the TMA descriptor (packed or not). */
static tkrt_status_t wd_tma_append(const tkrt_wire_reader_t* r, const tkrt_wire_field_t* f,
                                   uint64_t value, wd_tma_t* tma) {
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

static tkrt_status_t wd_parse_tma_descriptor(const tkrt_wire_reader_t* parent,
                                             const tkrt_wire_field_t* outer, wd_tma_t* tma) {
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
          if (repeated) TKRT_RETURN_IF_ERROR(wd_tma_append(&r, &f, f.value, tma));
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
        TKRT_RETURN_IF_ERROR(wd_tma_append(&r, &f, value, tma));
      }
    }
  }
  return NULL;
}

static tkrt_status_t wd_parse_tma(const tkrt_wire_reader_t* parent,
                                  const tkrt_wire_field_t* outer, wd_tma_t* tma) {
  tkrt_wire_reader_t r;
  tkrt_wire_reader_sub(&r, parent, outer, &kTmaOuterSchema);
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    TKRT_RETURN_IF_ERROR(tkrt_wire_next_field(&r, &f));
    if (f.number == TKRT_F_TMA_DESCRIPTOR && f.wire_type == TKRT_WIRE_LEN) {
      TKRT_RETURN_IF_ERROR(wd_parse_tma_descriptor(&r, &f, tma));
    }
  }
  return NULL;
}

static tkrt_status_t wd_parse_array(const tkrt_wire_reader_t* parent,
                                    const tkrt_wire_field_t* outer, wd_param_t* param) {
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

static tkrt_status_t wd_parse_param(wd_budget_t* budget, const tkrt_wire_reader_t* parent,
                                    const tkrt_wire_field_t* outer, wd_param_t* param) {
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
        TKRT_RETURN_IF_ERROR(wd_charge(budget, &r, &f, sizeof(*param->tma)));
        param->tma = calloc(1, sizeof(*param->tma));
        if (!param->tma) return TKRT_WIRE_OOM();
      }
      param->which = f.number;
    }
    if (f.number == TKRT_PARAM_ARRAY) {
      TKRT_RETURN_IF_ERROR(wd_parse_array(&r, &f, param));
    } else if (f.number == TKRT_PARAM_TMA) {
      TKRT_RETURN_IF_ERROR(wd_parse_tma(&r, &f, param->tma));
    } else {
      param->bits = f.value;
    }
  }
  /* A Parameter with no member set is an error only once the call is built (like jaxlib), so
   * that a kernel_call later replaced by another oneof member does not fail the decode. */
  return NULL;
}

static tkrt_status_t wd_parse_kcall(wd_budget_t* budget, const tkrt_wire_reader_t* parent,
                                    const tkrt_wire_field_t* outer, wd_kcall_t* call) {
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
      TKRT_RETURN_IF_ERROR(wd_parse_kernel(budget, &r, &f, &call->kernel));
    } else if (f.number >= TKRT_F_CALL_GRID_0 && f.number <= TKRT_F_CALL_GRID_0 + 2 &&
               f.wire_type == TKRT_WIRE_VARINT) {
      call->grid[f.number - TKRT_F_CALL_GRID_0] = (uint32_t)f.value;
    } else if (f.number == TKRT_F_CALL_PARAMETERS && f.wire_type == TKRT_WIRE_LEN) {
      if (call->param_count >= TKRT_WIRE_MAX_PARAMS) {
        return tkrt_wire_field_error(&r, &f, "more than %d parameters at offset %zu %s",
                                     TKRT_WIRE_MAX_PARAMS, f.offset, r.where);
      }
      void* pushed;
      TKRT_RETURN_IF_ERROR(wd_push_charged(budget, &r, &f, (void**)&call->params,
                                           &call->param_count, &call->param_capacity,
                                           sizeof(wd_param_t), WD_PARAM_COST, &pushed));
      wd_param_t* param = pushed;
      TKRT_RETURN_IF_ERROR(wd_parse_param(budget, &r, &f, param));
    }
  }
  return NULL;
}

static tkrt_status_t wd_parse_config(wd_budget_t* budget, const tkrt_wire_reader_t* parent,
                                     const tkrt_wire_field_t* outer, wd_config_t* config) {
  tkrt_wire_reader_t r;
  tkrt_wire_reader_sub(&r, parent, outer, &kConfigSchema);
  config->offset = outer->value_offset;
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    TKRT_RETURN_IF_ERROR(tkrt_wire_next_field(&r, &f));
    if (f.wire_type != TKRT_WIRE_LEN) continue;
    if (f.number == TKRT_F_CONFIG_KERNEL_CALL) {
      TKRT_RETURN_IF_ERROR(wd_parse_kcall(budget, &r, &f, &config->call));
    } else if (f.number == TKRT_F_CONFIG_DESCRIPTION) {
      TKRT_RETURN_IF_ERROR(tkrt_wire_check_string(&r, &f, true));
      config->description = wd_slice(&f);
    }
  }
  return NULL;
}

static tkrt_status_t wd_parse_alias(const tkrt_wire_reader_t* parent,
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

static tkrt_status_t wd_parse_autotuned(wd_budget_t* budget, const tkrt_wire_reader_t* parent,
                                        const tkrt_wire_field_t* outer,
                                        wd_autotuned_t* autotuned) {
  tkrt_wire_reader_t r;
  tkrt_wire_reader_sub(&r, parent, outer, &kAutotunedSchema);
  while (!tkrt_wire_reader_done(&r)) {
    tkrt_wire_field_t f;
    TKRT_RETURN_IF_ERROR(tkrt_wire_next_field(&r, &f));
    if (f.wire_type != TKRT_WIRE_LEN) continue;
    if (f.number == TKRT_F_AUTOTUNED_NAME) {
      TKRT_RETURN_IF_ERROR(tkrt_wire_check_string(&r, &f, true));
      autotuned->name = wd_slice(&f);
    } else if (f.number == TKRT_F_AUTOTUNED_CONFIGS) {
      if (autotuned->config_count >= TKRT_WIRE_MAX_CONFIGS) {
        return tkrt_wire_field_error(&r, &f, "more than %d configs at offset %zu %s",
                                     TKRT_WIRE_MAX_CONFIGS, f.offset, r.where);
      }
      void* pushed;
      TKRT_RETURN_IF_ERROR(wd_push_charged(budget, &r, &f, (void**)&autotuned->configs,
                                           &autotuned->config_count, &autotuned->config_capacity,
                                           sizeof(wd_config_t), WD_CONFIG_COST, &pushed));
      wd_config_t* config = pushed;
      TKRT_RETURN_IF_ERROR(wd_parse_config(budget, &r, &f, config));
    } else if (f.number == TKRT_F_AUTOTUNED_ALIASES) {
      if (autotuned->alias_count >= TKRT_WIRE_MAX_ALIASES) {
        return tkrt_wire_field_error(&r, &f, "more than %d aliases at offset %zu %s",
                                     TKRT_WIRE_MAX_ALIASES, f.offset, r.where);
      }
      void* pushed;
      TKRT_RETURN_IF_ERROR(wd_push_charged(budget, &r, &f, (void**)&autotuned->aliases,
                                           &autotuned->alias_count, &autotuned->alias_capacity,
                                           sizeof(tkrt_alias_t), WD_ALIAS_COST, &pushed));
      tkrt_alias_t* alias = pushed;
      TKRT_RETURN_IF_ERROR(wd_parse_alias(&r, &f, alias));
    }
  }
  return NULL;
}

static tkrt_status_t wd_parse_any(wd_budget_t* budget, const uint8_t* data, size_t size,
                                  const char* where, wd_any_t* any) {
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
          wd_kcall_free(&any->call);
          wd_autotuned_free(&any->autotuned);
          any->which = f.number;
        }
        if (f.number == TKRT_F_ANY_KERNEL_CALL) {
          TKRT_RETURN_IF_ERROR(wd_parse_kcall(budget, &r, &f, &any->call));
        } else {
          TKRT_RETURN_IF_ERROR(wd_parse_autotuned(budget, &r, &f, &any->autotuned));
        }
        break;
      case TKRT_F_ANY_METADATA:
        any->metadata = wd_slice(&f);
        any->has_metadata = true;
        break;
      case TKRT_F_ANY_NAME:
        TKRT_RETURN_IF_ERROR(tkrt_wire_check_string(&r, &f, true));
        any->name = wd_slice(&f);
        break;
      default: break;
    }
  }
  return NULL;
}

/* ---------------------------------------------------------------- building core objects */

static bool wd_track(wd_ctx_t* ctx, void* allocation) {
  void** slot = wd_push((void**)&ctx->allocs, &ctx->alloc_count, &ctx->alloc_capacity,
                        sizeof(void*));
  if (!slot) return false;
  *slot = allocation;
  return true;
}

/* A NUL-terminated copy owned by ctx; NULL for an empty slice (proto3: absent). */
static tkrt_status_t wd_string(wd_ctx_t* ctx, wd_slice_t slice, const char** out) {
  *out = NULL;
  if (slice.size == 0) return NULL;
  char* copy = malloc(slice.size + 1);
  if (!copy) return TKRT_WIRE_OOM();
  memcpy(copy, slice.data, slice.size);
  copy[slice.size] = '\0';
  if (!wd_track(ctx, copy)) {
    free(copy);
    return TKRT_WIRE_OOM();
  }
  *out = copy;
  return NULL;
}

static tkrt_status_t wd_arch_string(wd_ctx_t* ctx, const char* arch, const char** out) {
  *out = NULL;
  if (!arch[0]) return NULL;
  wd_slice_t slice = {(const uint8_t*)arch, strlen(arch), 0};
  return wd_string(ctx, slice, out);
}

static bool wd_slice_equals(wd_slice_t slice, const char* text) {
  return slice.size == strlen(text) && memcmp(slice.data, text, slice.size) == 0;
}

/* The image TritonKernel.ptx stands for: PTX text, or (ROCm) the HSACO file it names. */
static tkrt_status_t wd_build_ptx_image(wd_ctx_t* ctx, wd_kernel_t* k, const char* where,
                                        tkrt_kernel_image_t* image) {
  char arch[TKRT_WIRE_ARCH_MAX];
  if (tkrt_wire_ptx_field_is_text(k->ptx.data, k->ptx.size)) {
    tkrt_wire_cuda_arch(k->compute_capability, arch);
    image->backend = "cuda";
    TKRT_RETURN_IF_ERROR(wd_arch_string(ctx, arch, &image->arch));
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
  TKRT_RETURN_IF_ERROR(wd_string(ctx, k->ptx, &path));
  image->origin = TKRT_IMAGE_ORIGIN_HSACO_PATH;
  image->source_path = path;
  image->backend = "hip";
  image->kind = TKRT_IMAGE_HSACO;

  /* tkrt's encoder may have carried the file's bytes: prefer them, so that the blob replays
   * where the file does not exist. */
  for (size_t i = 0; i < k->image_count; ++i) {
    wd_image_t* carried = &k->images[i];
    if (carried->consumed || !wd_slice_equals(carried->source_path, path)) continue;
    if (carried->data.size == 0) continue;
    carried->consumed = true;
    image->data = carried->data.data;
    image->size = carried->data.size;
    if (carried->kind != TKRT_IMAGE_AUTO) image->kind = (tkrt_image_kind_t)carried->kind;
    if (carried->backend.size) TKRT_RETURN_IF_ERROR(wd_string(ctx, carried->backend, &image->backend));
    TKRT_RETURN_IF_ERROR(wd_string(ctx, carried->arch, &image->arch));
    TKRT_RETURN_IF_ERROR(wd_string(ctx, carried->entry_name, &image->entry_name));
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
  if (!wd_track(ctx, bytes)) {
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
  return wd_arch_string(ctx, facts.arch, &image->arch);
}

static tkrt_status_t wd_build_kernel(wd_ctx_t* ctx, wd_kernel_t* k, size_t call_offset,
                                     const char* where, tkrt_kernel_t** out_kernel) {
  tkrt_status_t status = NULL;
  tkrt_kernel_image_t* images = NULL;
  if (!k->present) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "TritonKernelCall at offset %zu %s has no kernel (field 1)",
                            call_offset, where);
  }
  images = calloc(k->image_count + 2, sizeof(*images));
  if (!images) return TKRT_WIRE_OOM();
  size_t count = 0;

  if (k->ptx.size) {
    status = wd_build_ptx_image(ctx, k, where, &images[count]);
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
    /* jaxlib hands module_image to the CUDA driver, which detects the format itself. */
    image->backend = facts.backend ? facts.backend : "cuda";
    if ((status = wd_arch_string(ctx, facts.arch, &image->arch))) goto cleanup;
    image->data = k->module_object.data;
    image->size = k->module_object.size;
    if ((status = wd_string(ctx, k->module_name, &image->entry_name))) goto cleanup;
    image->shared_mem_bytes = k->module_shared_mem;
    image->origin = TKRT_IMAGE_ORIGIN_MODULE_IMAGE;
    ++count;
  }
  for (size_t i = 0; i < k->image_count; ++i) {
    wd_image_t* carried = &k->images[i];
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
    tkrt_kernel_image_t* image = &images[count++];
    image->kind = (tkrt_image_kind_t)carried->kind;
    image->data = carried->data.data;
    image->size = carried->data.size;
    image->shared_mem_bytes = carried->shared_mem_bytes;
    image->origin = TKRT_IMAGE_ORIGIN_TKRT_FIELD;
    if ((status = wd_string(ctx, carried->backend, &image->backend)) ||
        (status = wd_string(ctx, carried->arch, &image->arch)) ||
        (status = wd_string(ctx, carried->entry_name, &image->entry_name)) ||
        (status = wd_string(ctx, carried->source_path, &image->source_path))) {
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
  if ((status = wd_string(ctx, k->name, &desc.name))) goto cleanup;
  if ((status = wd_string(ctx, k->ttir, &desc.ttir))) goto cleanup;
  desc.num_warps = k->num_warps;
  desc.num_ctas = k->num_ctas;
  memcpy(desc.cluster_dims, k->cluster_dims, sizeof(desc.cluster_dims));
  desc.shared_mem_bytes = k->shared_mem_bytes;
  desc.compute_capability = k->compute_capability;
  desc.global_scratch_size = k->global_scratch_size;
  desc.global_scratch_align = k->global_scratch_align;
  desc.launch_flags = k->launch_flags;
  desc.present = k->present_bits;
  desc.images = images;
  desc.image_count = count;
  status = tkrt_kernel_create(&desc, out_kernel);
  if (status) {
    status = tkrt_status_annotate(status, "TritonKernel at offset %zu %s", k->offset, where);
  }

cleanup:
  free(images);
  return status;
}

static tkrt_status_t wd_build_params(const wd_kcall_t* call, const char* where,
                                     tkrt_param_t** out_params) {
  *out_params = NULL;
  if (call->param_count == 0) return NULL;
  tkrt_param_t* params = calloc(call->param_count, sizeof(*params));
  if (!params) return TKRT_WIRE_OOM();
  for (size_t i = 0; i < call->param_count; ++i) {
    const wd_param_t* src = &call->params[i];
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
        const wd_tma_t* t = src->tma;
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

static tkrt_status_t wd_build_call(wd_ctx_t* ctx, wd_any_t* any, const char* where,
                                   tkrt_call_t** out_call) {
  tkrt_status_t status = NULL;
  tkrt_config_desc_t* configs = NULL;
  size_t config_count = 0;
  wd_kcall_t* single = NULL;

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
    wd_kcall_t* call = single ? single : &any->autotuned.configs[c].call;
    size_t call_offset = single ? call->offset : any->autotuned.configs[c].offset;
    if (!call->present) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                                "config %zu (TritonAutotunedKernelCall.configs at offset %zu %s) "
                                "has no kernel_call",
                                c, call_offset, where);
      goto cleanup;
    }
    status = wd_build_kernel(ctx, &call->kernel, call->offset, where, &configs[c].kernel);
    if (status) goto cleanup;
    memcpy(configs[c].grid, call->grid, sizeof(configs[c].grid));
    tkrt_param_t* params = NULL;
    status = wd_build_params(call, where, &params);
    if (status) goto cleanup;
    configs[c].params = params;
    configs[c].param_count = call->param_count;
    wd_params_free(call); /* built: the model's records go before the next config's are built */
    if (!single) {
      status = wd_string(ctx, any->autotuned.configs[c].description, &configs[c].description);
      if (status) goto cleanup;
    }
  }
  if (!single) {
    if ((status = wd_string(ctx, any->autotuned.name, &desc.autotune_name))) goto cleanup;
    desc.aliases = any->autotuned.aliases;
    desc.alias_count = any->autotuned.alias_count;
  }
  if ((status = wd_string(ctx, any->name, &desc.name))) goto cleanup;
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
  wd_ctx_t ctx;
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

  tkrt_status_t status = NULL;
  uint8_t* inflated = NULL;
  wd_any_t any;
  memset(&any, 0, sizeof(any));
  const uint8_t* message = bytes;
  size_t message_size = size;
  const char* where = "in the message";

  bool compressed = ctx.options.format == TKRT_WIRE_FORMAT_ZLIB ||
                    (ctx.options.format == TKRT_WIRE_FORMAT_AUTO &&
                     tkrt_wire_is_zlib(bytes, size));
  if (compressed) {
    status = tkrt_wire_inflate(bytes, size, ctx.options.max_message_size, &inflated,
                               &message_size);
    if (status) goto cleanup;
    message = inflated;
    where = "in the decompressed message";
  } else if (size > ctx.options.max_message_size) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "message of %zu bytes exceeds the limit of %zu bytes", size,
                              ctx.options.max_message_size);
    goto cleanup;
  }

  ctx.budget.limit = TKRT_WIRE_MAX_RECORD_BYTES;
  status = wd_parse_any(&ctx.budget, message, message_size, where, &any);
  if (status) goto cleanup;
  status = wd_build_call(&ctx, &any, where, out_call);

cleanup:
  wd_kcall_free(&any.call);
  wd_autotuned_free(&any.autotuned);
  for (size_t i = 0; i < ctx.alloc_count; ++i) free(ctx.allocs[i]);
  free(ctx.allocs);
  free(inflated);
  return status;
}
