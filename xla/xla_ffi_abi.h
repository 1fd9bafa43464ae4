/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt xla: our own C declarations of the XLA FFI ABI (api_version 4 custom calls), written from
 * the layout facts of jaxlib 0.11.2's xla/ffi/api/c_api.h (FFI API 0.4). Only what libtkrt_xla
 * uses is typed; unused function-table entries are plain pointers so that the offsets of the
 * ones we call stay right. test/xla/ffi_abi_check.c compares every size and offset with the
 * real header on the GPU machine. */
#ifndef TKRT_XLA_FFI_ABI_H_
#define TKRT_XLA_FFI_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The FFI API version these declarations describe; reported in handler metadata. */
#define TKRT_FFI_API_MAJOR 0
#define TKRT_FFI_API_MINOR 4

/* XLA sizes a versioned struct up to and including its last field at the time of writing, so
 * a newer XLA can append fields. */
#define TKRT_FFI_STRUCT_SIZE(type, last_field) \
  (offsetof(type, last_field) + sizeof(((type*)0)->last_field))

typedef struct tkrt_ffi_api tkrt_ffi_api_t;
typedef struct tkrt_ffi_error tkrt_ffi_error_t;     /* opaque, owned by XLA */
typedef struct tkrt_ffi_ctx tkrt_ffi_ctx_t;         /* XLA_FFI_ExecutionContext / InvokeContext */
typedef struct tkrt_ffi_future tkrt_ffi_future_t;   /* opaque */

/* Internal extensions chained from a call frame; type 1 asks the handler for its metadata. */
typedef enum tkrt_ffi_internal_extension_type {
  TKRT_FFI_EXTENSION_METADATA = 1,
} tkrt_ffi_internal_extension_type_t;

typedef struct tkrt_ffi_internal_extension {
  size_t struct_size;
  tkrt_ffi_internal_extension_type_t type;
  struct tkrt_ffi_internal_extension* next;
} tkrt_ffi_internal_extension_t;

typedef struct tkrt_ffi_api_version {
  size_t struct_size;
  tkrt_ffi_internal_extension_t* extension_start;
  int major_version;
  int minor_version;
} tkrt_ffi_api_version_t;

/* Error codes: absl numbering, the same as tkrt_status_code_t. */
typedef enum tkrt_ffi_error_code {
  TKRT_FFI_ERROR_OK = 0,
  TKRT_FFI_ERROR_CANCELLED = 1,
  TKRT_FFI_ERROR_UNKNOWN = 2,
  TKRT_FFI_ERROR_INVALID_ARGUMENT = 3,
  TKRT_FFI_ERROR_DEADLINE_EXCEEDED = 4,
  TKRT_FFI_ERROR_NOT_FOUND = 5,
  TKRT_FFI_ERROR_ALREADY_EXISTS = 6,
  TKRT_FFI_ERROR_PERMISSION_DENIED = 7,
  TKRT_FFI_ERROR_RESOURCE_EXHAUSTED = 8,
  TKRT_FFI_ERROR_FAILED_PRECONDITION = 9,
  TKRT_FFI_ERROR_ABORTED = 10,
  TKRT_FFI_ERROR_OUT_OF_RANGE = 11,
  TKRT_FFI_ERROR_UNIMPLEMENTED = 12,
  TKRT_FFI_ERROR_INTERNAL = 13,
  TKRT_FFI_ERROR_UNAVAILABLE = 14,
  TKRT_FFI_ERROR_DATA_LOSS = 15,
  TKRT_FFI_ERROR_UNAUTHENTICATED = 16,
} tkrt_ffi_error_code_t;

typedef struct tkrt_ffi_error_create_args {
  size_t struct_size;
  tkrt_ffi_internal_extension_t* extension_start;
  const char* message; /* copied by XLA */
  tkrt_ffi_error_code_t errc;
} tkrt_ffi_error_create_args_t;

/* Element types of buffers (XLA PrimitiveType numbers). */
typedef enum tkrt_ffi_dtype {
  TKRT_FFI_DTYPE_INVALID = 0,
  TKRT_FFI_DTYPE_PRED = 1,
  TKRT_FFI_DTYPE_S8 = 2,
  TKRT_FFI_DTYPE_S16 = 3,
  TKRT_FFI_DTYPE_S32 = 4,
  TKRT_FFI_DTYPE_S64 = 5,
  TKRT_FFI_DTYPE_U8 = 6,
  TKRT_FFI_DTYPE_U16 = 7,
  TKRT_FFI_DTYPE_U32 = 8,
  TKRT_FFI_DTYPE_U64 = 9,
  TKRT_FFI_DTYPE_F16 = 10,
  TKRT_FFI_DTYPE_F32 = 11,
  TKRT_FFI_DTYPE_F64 = 12,
  TKRT_FFI_DTYPE_C64 = 15,
  TKRT_FFI_DTYPE_BF16 = 16,
  TKRT_FFI_DTYPE_TOKEN = 17,
  TKRT_FFI_DTYPE_C128 = 18,
  TKRT_FFI_DTYPE_F8E5M2 = 19,
  TKRT_FFI_DTYPE_F8E4M3FN = 20,
  TKRT_FFI_DTYPE_S4 = 21,
  TKRT_FFI_DTYPE_U4 = 22,
  TKRT_FFI_DTYPE_F8E4M3B11FNUZ = 23,
  TKRT_FFI_DTYPE_F8E5M2FNUZ = 24,
  TKRT_FFI_DTYPE_F8E4M3FNUZ = 25,
  TKRT_FFI_DTYPE_S2 = 26,
  TKRT_FFI_DTYPE_U2 = 27,
  TKRT_FFI_DTYPE_F8E4M3 = 28,
  TKRT_FFI_DTYPE_F8E3M4 = 29,
  TKRT_FFI_DTYPE_S1 = 30,
  TKRT_FFI_DTYPE_U1 = 31,
  TKRT_FFI_DTYPE_F4E2M1FN = 32,
  TKRT_FFI_DTYPE_F8E8M0FNU = 33,
} tkrt_ffi_dtype_t;

typedef struct tkrt_ffi_buffer {
  size_t struct_size;
  tkrt_ffi_internal_extension_t* extension_start;
  tkrt_ffi_dtype_t dtype;
  void* data;
  int64_t rank;
  int64_t* dims; /* rank entries */
} tkrt_ffi_buffer_t;

typedef enum tkrt_ffi_arg_type { TKRT_FFI_ARG_BUFFER = 1 } tkrt_ffi_arg_type_t;
typedef enum tkrt_ffi_ret_type { TKRT_FFI_RET_BUFFER = 1 } tkrt_ffi_ret_type_t;

typedef enum tkrt_ffi_attr_type {
  TKRT_FFI_ATTR_ARRAY = 1,
  TKRT_FFI_ATTR_DICTIONARY = 2,
  TKRT_FFI_ATTR_SCALAR = 3,
  TKRT_FFI_ATTR_STRING = 4,
} tkrt_ffi_attr_type_t;

/* Not NUL-terminated. */
typedef struct tkrt_ffi_byte_span {
  const char* ptr;
  size_t len;
} tkrt_ffi_byte_span_t;

typedef struct tkrt_ffi_scalar {
  tkrt_ffi_dtype_t dtype;
  void* value;
} tkrt_ffi_scalar_t;

typedef struct tkrt_ffi_array {
  tkrt_ffi_dtype_t dtype;
  size_t size;
  void* data;
} tkrt_ffi_array_t;

typedef struct tkrt_ffi_type_id {
  int64_t type_id; /* 0: unknown (XLA assigns one at registration) */
} tkrt_ffi_type_id_t;

typedef struct tkrt_ffi_type_info {
  size_t struct_size;
  tkrt_ffi_internal_extension_t* extension_start;
  void (*deleter)(void* object);
} tkrt_ffi_type_info_t;

typedef enum tkrt_ffi_stage {
  TKRT_FFI_STAGE_INSTANTIATE = 0,
  TKRT_FFI_STAGE_PREPARE = 1,
  TKRT_FFI_STAGE_INITIALIZE = 2,
  TKRT_FFI_STAGE_EXECUTE = 3,
  TKRT_FFI_STAGE_RECORD = 4,
} tkrt_ffi_stage_t;

typedef struct tkrt_ffi_args {
  size_t struct_size;
  tkrt_ffi_internal_extension_t* extension_start;
  int64_t size;
  tkrt_ffi_arg_type_t* types;
  void** args; /* tkrt_ffi_buffer_t* each */
} tkrt_ffi_args_t;

typedef struct tkrt_ffi_rets {
  size_t struct_size;
  tkrt_ffi_internal_extension_t* extension_start;
  int64_t size;
  tkrt_ffi_ret_type_t* types;
  void** rets; /* tkrt_ffi_buffer_t* each */
} tkrt_ffi_rets_t;

typedef struct tkrt_ffi_attrs {
  size_t struct_size;
  tkrt_ffi_internal_extension_t* extension_start;
  int64_t size;
  tkrt_ffi_attr_type_t* types;
  tkrt_ffi_byte_span_t** names;
  void** attrs; /* STRING: tkrt_ffi_byte_span_t*; SCALAR: tkrt_ffi_scalar_t*; ... */
} tkrt_ffi_attrs_t;

typedef struct tkrt_ffi_call_frame {
  size_t struct_size;
  tkrt_ffi_internal_extension_t* extension_start;
  const tkrt_ffi_api_t* api;
  tkrt_ffi_ctx_t* ctx;
  tkrt_ffi_stage_t stage;
  tkrt_ffi_args_t args;
  tkrt_ffi_rets_t rets;
  tkrt_ffi_attrs_t attrs;
  tkrt_ffi_future_t* future; /* out; beyond the struct size XLA checks (it ends at attrs) */
} tkrt_ffi_call_frame_t;

typedef tkrt_ffi_error_t* tkrt_ffi_handler_t(tkrt_ffi_call_frame_t* call_frame);

typedef struct tkrt_ffi_handler_bundle {
  tkrt_ffi_handler_t* instantiate; /* optional */
  tkrt_ffi_handler_t* prepare;     /* optional */
  tkrt_ffi_handler_t* initialize;  /* optional */
  tkrt_ffi_handler_t* execute;     /* required */
  tkrt_ffi_handler_t* record;      /* optional */
} tkrt_ffi_handler_bundle_t;

/* Handler traits: COMMAND_BUFFER_COMPATIBLE means every call launches the same device work, so
 * XLA may capture it into a command buffer (CUDA graph) and replay it. */
enum { TKRT_FFI_TRAIT_COMMAND_BUFFER_COMPATIBLE = 1u << 0 };
typedef uint32_t tkrt_ffi_traits_t;

typedef struct tkrt_ffi_type_register_args {
  size_t struct_size;
  tkrt_ffi_internal_extension_t* extension_start;
  tkrt_ffi_byte_span_t name;
  tkrt_ffi_type_id_t* type_id; /* in-out */
  const tkrt_ffi_type_info_t* type_info;
} tkrt_ffi_type_register_args_t;
/* XLA's declared size of this struct ends at type_id although type_info follows (that is how
 * jaxlib 0.11.2's header sizes it); pass what XLA expects. */
#define TKRT_FFI_TYPE_REGISTER_ARGS_SIZE TKRT_FFI_STRUCT_SIZE(tkrt_ffi_type_register_args_t, type_id)

typedef struct tkrt_ffi_state_set_args {
  size_t struct_size;
  tkrt_ffi_internal_extension_t* extension_start;
  tkrt_ffi_ctx_t* ctx;
  tkrt_ffi_stage_t stage;
  tkrt_ffi_type_id_t* type_id;
  void* state;
} tkrt_ffi_state_set_args_t;

typedef struct tkrt_ffi_state_get_args {
  size_t struct_size;
  tkrt_ffi_internal_extension_t* extension_start;
  tkrt_ffi_ctx_t* ctx;
  tkrt_ffi_stage_t stage;
  tkrt_ffi_type_id_t* type_id;
  void* state; /* out */
} tkrt_ffi_state_get_args_t;

typedef struct tkrt_ffi_stream_get_args {
  size_t struct_size;
  tkrt_ffi_internal_extension_t* extension_start;
  tkrt_ffi_ctx_t* ctx;
  void* stream; /* out: CUstream / hipStream_t */
} tkrt_ffi_stream_get_args_t;

typedef struct tkrt_ffi_device_ordinal_get_args {
  size_t struct_size;
  tkrt_ffi_internal_extension_t* extension_start;
  tkrt_ffi_ctx_t* ctx;
  int32_t device_ordinal; /* out */
} tkrt_ffi_device_ordinal_get_args_t;

/* What a handler reports when XLA calls it with the metadata extension (at registration). */
typedef struct tkrt_ffi_metadata {
  size_t struct_size; /* XLA's size covers up to traits; state_type_id when larger */
  tkrt_ffi_api_version_t api_version;
  tkrt_ffi_traits_t traits;
  tkrt_ffi_type_id_t state_type_id;
} tkrt_ffi_metadata_t;

typedef struct tkrt_ffi_metadata_extension {
  tkrt_ffi_internal_extension_t extension_base;
  tkrt_ffi_metadata_t* metadata;
} tkrt_ffi_metadata_extension_t;

/* The metadata struct of a metadata query's extension, or NULL when the extension or the struct
 * is too small to hold what a handler must answer (up to `traits`). */
static inline tkrt_ffi_metadata_t* tkrt_ffi_metadata_of(const tkrt_ffi_internal_extension_t* ext) {
  const tkrt_ffi_metadata_extension_t* m = (const tkrt_ffi_metadata_extension_t*)ext;
  if (ext->struct_size < TKRT_FFI_STRUCT_SIZE(tkrt_ffi_metadata_extension_t, metadata) ||
      !m->metadata ||
      m->metadata->struct_size < TKRT_FFI_STRUCT_SIZE(tkrt_ffi_metadata_t, traits)) {
    return NULL;
  }
  return m->metadata;
}

/* Answers a metadata query (`md` from tkrt_ffi_metadata_of) as a command-buffer-compatible
 * handler of FFI API 0.4 whose instantiate stage makes states of type `state_type_id` (0: none);
 * the type id is written only when the struct reaches that far. */
static inline void tkrt_ffi_metadata_answer(tkrt_ffi_metadata_t* md, int64_t state_type_id) {
  md->api_version = (tkrt_ffi_api_version_t){
      .struct_size = TKRT_FFI_STRUCT_SIZE(tkrt_ffi_api_version_t, minor_version),
      .extension_start = NULL,
      .major_version = TKRT_FFI_API_MAJOR,
      .minor_version = TKRT_FFI_API_MINOR,
  };
  md->traits = TKRT_FFI_TRAIT_COMMAND_BUFFER_COMPATIBLE;
  if (md->struct_size >= TKRT_FFI_STRUCT_SIZE(tkrt_ffi_metadata_t, state_type_id)) {
    md->state_type_id.type_id = state_type_id;
  }
}

typedef tkrt_ffi_error_t* tkrt_ffi_error_create_fn(tkrt_ffi_error_create_args_t* args);
typedef tkrt_ffi_error_t* tkrt_ffi_type_register_fn(tkrt_ffi_type_register_args_t* args);
typedef tkrt_ffi_error_t* tkrt_ffi_state_set_fn(tkrt_ffi_state_set_args_t* args);
typedef tkrt_ffi_error_t* tkrt_ffi_state_get_fn(tkrt_ffi_state_get_args_t* args);
typedef tkrt_ffi_error_t* tkrt_ffi_stream_get_fn(tkrt_ffi_stream_get_args_t* args);
typedef tkrt_ffi_error_t* tkrt_ffi_device_ordinal_get_fn(tkrt_ffi_device_ordinal_get_args_t* args);
/* Error_GetDetails and Error_Destroy take an args struct that begins like the others and then
 * holds the error; we only destroy errors that XLA's own calls return to us. */
typedef struct tkrt_ffi_error_destroy_args {
  size_t struct_size;
  tkrt_ffi_internal_extension_t* extension_start;
  tkrt_ffi_error_t* error;
} tkrt_ffi_error_destroy_args_t;
typedef struct tkrt_ffi_error_get_details_args {
  size_t struct_size;
  tkrt_ffi_internal_extension_t* extension_start;
  tkrt_ffi_error_t* error;
  const char* message;        /* out; valid while the error lives */
  tkrt_ffi_error_code_t errc; /* out */
} tkrt_ffi_error_get_details_args_t;
typedef void tkrt_ffi_error_destroy_fn(tkrt_ffi_error_destroy_args_t* args);
typedef void tkrt_ffi_error_get_details_fn(tkrt_ffi_error_get_details_args_t* args);

/* The API table XLA passes in every call frame. Order and count of entries are ABI. */
struct tkrt_ffi_api {
  size_t struct_size;
  tkrt_ffi_internal_extension_t* extension_start;
  tkrt_ffi_api_version_t api_version;
  const void* internal_api;
  tkrt_ffi_error_create_fn* error_create;
  tkrt_ffi_error_get_details_fn* error_get_details;
  tkrt_ffi_error_destroy_fn* error_destroy;
  void* handler_register; /* unused: registration goes through jax.ffi */
  tkrt_ffi_stream_get_fn* stream_get;
  tkrt_ffi_type_register_fn* type_register;
  void* invoke_context_get;
  tkrt_ffi_state_set_fn* state_set;
  tkrt_ffi_state_get_fn* state_get;
  void* device_memory_allocate;
  void* device_memory_free;
  void* thread_pool_schedule;
  void* thread_pool_num_threads;
  void* future_create;
  void* future_set_available;
  void* future_set_error;
  void* run_id_get;
  tkrt_ffi_device_ordinal_get_fn* device_ordinal_get;
  void* invoke_context_find_extension; /* last entry of FFI API 0.4 */
};

#ifdef __cplusplus
}
#endif

#endif /* TKRT_XLA_FFI_ABI_H_ */
