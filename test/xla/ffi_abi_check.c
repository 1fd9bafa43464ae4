/* SPDX-License-Identifier: Apache-2.0 */
/* Checks tkrt's own XLA FFI declarations (xla/xla_ffi_abi.h) against jaxlib's real header:
 * every struct size, every field offset and every enum value we declare. Built on the GPU
 * machine with -I <jaxlib>/include; both headers fit in one translation unit because ours uses
 * other names. Prints one row per check; exits 1 on any mismatch. */
#include <stddef.h>
#include <stdio.h>

#include "xla/ffi/api/c_api.h"
#include "xla/xla_ffi_abi.h"

static int failures, checks;

static void row(const char* what, long long ours, long long theirs) {
  ++checks;
  int ok = ours == theirs;
  if (!ok) ++failures;
  printf("%-58s %8lld %8lld  %s\n", what, ours, theirs, ok ? "ok" : "MISMATCH");
}

#define SIZE(ours, theirs) row("sizeof " #theirs, (long long)sizeof(ours), (long long)sizeof(theirs))
#define FIELD(ours, of, theirs, tf) \
  row(#theirs "." #tf, (long long)offsetof(ours, of), (long long)offsetof(theirs, tf))
#define VALUE(ours, theirs) row(#theirs, (long long)(ours), (long long)(theirs))
#define STRUCT_SIZE(ours, of, theirs)                                                  \
  row(#theirs "_STRUCT_SIZE", (long long)TKRT_FFI_STRUCT_SIZE(ours, of), \
      (long long)theirs##_STRUCT_SIZE)

int main(void) {
  printf("%-58s %8s %8s\n", "check", "tkrt", "jaxlib");
  VALUE(TKRT_FFI_API_MAJOR, XLA_FFI_API_MAJOR);
  VALUE(TKRT_FFI_API_MINOR, XLA_FFI_API_MINOR);

  SIZE(tkrt_ffi_internal_extension_t, XLA_FFI_InternalExtension);
  FIELD(tkrt_ffi_internal_extension_t, type, XLA_FFI_InternalExtension, type);
  FIELD(tkrt_ffi_internal_extension_t, next, XLA_FFI_InternalExtension, next);
  VALUE(TKRT_FFI_EXTENSION_METADATA, XLA_FFI_Extension_Metadata);

  SIZE(tkrt_ffi_api_version_t, XLA_FFI_Api_Version);
  STRUCT_SIZE(tkrt_ffi_api_version_t, minor_version, XLA_FFI_Api_Version);
  FIELD(tkrt_ffi_api_version_t, extension_start, XLA_FFI_Api_Version, extension_start);
  FIELD(tkrt_ffi_api_version_t, major_version, XLA_FFI_Api_Version, major_version);
  FIELD(tkrt_ffi_api_version_t, minor_version, XLA_FFI_Api_Version, minor_version);

  VALUE(TKRT_FFI_ERROR_INVALID_ARGUMENT, XLA_FFI_Error_Code_INVALID_ARGUMENT);
  VALUE(TKRT_FFI_ERROR_FAILED_PRECONDITION, XLA_FFI_Error_Code_FAILED_PRECONDITION);
  VALUE(TKRT_FFI_ERROR_RESOURCE_EXHAUSTED, XLA_FFI_Error_Code_RESOURCE_EXHAUSTED);
  VALUE(TKRT_FFI_ERROR_INTERNAL, XLA_FFI_Error_Code_INTERNAL);
  VALUE(TKRT_FFI_ERROR_UNAUTHENTICATED, XLA_FFI_Error_Code_UNAUTHENTICATED);

  SIZE(tkrt_ffi_error_create_args_t, XLA_FFI_Error_Create_Args);
  STRUCT_SIZE(tkrt_ffi_error_create_args_t, errc, XLA_FFI_Error_Create_Args);
  FIELD(tkrt_ffi_error_create_args_t, message, XLA_FFI_Error_Create_Args, message);
  FIELD(tkrt_ffi_error_create_args_t, errc, XLA_FFI_Error_Create_Args, errc);
  SIZE(tkrt_ffi_error_get_details_args_t, XLA_FFI_Error_GetDetails_Args);
  FIELD(tkrt_ffi_error_get_details_args_t, error, XLA_FFI_Error_GetDetails_Args, error);
  FIELD(tkrt_ffi_error_get_details_args_t, message, XLA_FFI_Error_GetDetails_Args, message);
  FIELD(tkrt_ffi_error_get_details_args_t, errc, XLA_FFI_Error_GetDetails_Args, errc);
  SIZE(tkrt_ffi_error_destroy_args_t, XLA_FFI_Error_Destroy_Args);
  STRUCT_SIZE(tkrt_ffi_error_destroy_args_t, error, XLA_FFI_Error_Destroy_Args);
  FIELD(tkrt_ffi_error_destroy_args_t, error, XLA_FFI_Error_Destroy_Args, error);

  VALUE(TKRT_FFI_DTYPE_PRED, XLA_FFI_DataType_PRED);
  VALUE(TKRT_FFI_DTYPE_S8, XLA_FFI_DataType_S8);
  VALUE(TKRT_FFI_DTYPE_S16, XLA_FFI_DataType_S16);
  VALUE(TKRT_FFI_DTYPE_S32, XLA_FFI_DataType_S32);
  VALUE(TKRT_FFI_DTYPE_S64, XLA_FFI_DataType_S64);
  VALUE(TKRT_FFI_DTYPE_U8, XLA_FFI_DataType_U8);
  VALUE(TKRT_FFI_DTYPE_U16, XLA_FFI_DataType_U16);
  VALUE(TKRT_FFI_DTYPE_U32, XLA_FFI_DataType_U32);
  VALUE(TKRT_FFI_DTYPE_U64, XLA_FFI_DataType_U64);
  VALUE(TKRT_FFI_DTYPE_F16, XLA_FFI_DataType_F16);
  VALUE(TKRT_FFI_DTYPE_F32, XLA_FFI_DataType_F32);
  VALUE(TKRT_FFI_DTYPE_F64, XLA_FFI_DataType_F64);
  VALUE(TKRT_FFI_DTYPE_C64, XLA_FFI_DataType_C64);
  VALUE(TKRT_FFI_DTYPE_BF16, XLA_FFI_DataType_BF16);
  VALUE(TKRT_FFI_DTYPE_TOKEN, XLA_FFI_DataType_TOKEN);
  VALUE(TKRT_FFI_DTYPE_C128, XLA_FFI_DataType_C128);
  VALUE(TKRT_FFI_DTYPE_F8E5M2, XLA_FFI_DataType_F8E5M2);
  VALUE(TKRT_FFI_DTYPE_F8E4M3FN, XLA_FFI_DataType_F8E4M3FN);
  VALUE(TKRT_FFI_DTYPE_S4, XLA_FFI_DataType_S4);
  VALUE(TKRT_FFI_DTYPE_U4, XLA_FFI_DataType_U4);
  VALUE(TKRT_FFI_DTYPE_F8E4M3B11FNUZ, XLA_FFI_DataType_F8E4M3B11FNUZ);
  VALUE(TKRT_FFI_DTYPE_F8E5M2FNUZ, XLA_FFI_DataType_F8E5M2FNUZ);
  VALUE(TKRT_FFI_DTYPE_F8E4M3FNUZ, XLA_FFI_DataType_F8E4M3FNUZ);
  VALUE(TKRT_FFI_DTYPE_S2, XLA_FFI_DataType_S2);
  VALUE(TKRT_FFI_DTYPE_U2, XLA_FFI_DataType_U2);
  VALUE(TKRT_FFI_DTYPE_F8E4M3, XLA_FFI_DataType_F8E4M3);
  VALUE(TKRT_FFI_DTYPE_F8E3M4, XLA_FFI_DataType_F8E3M4);
  VALUE(TKRT_FFI_DTYPE_S1, XLA_FFI_DataType_S1);
  VALUE(TKRT_FFI_DTYPE_U1, XLA_FFI_DataType_U1);
  VALUE(TKRT_FFI_DTYPE_F4E2M1FN, XLA_FFI_DataType_F4E2M1FN);
  VALUE(TKRT_FFI_DTYPE_F8E8M0FNU, XLA_FFI_DataType_F8E8M0FNU);

  SIZE(tkrt_ffi_buffer_t, XLA_FFI_Buffer);
  STRUCT_SIZE(tkrt_ffi_buffer_t, dims, XLA_FFI_Buffer);
  FIELD(tkrt_ffi_buffer_t, dtype, XLA_FFI_Buffer, dtype);
  FIELD(tkrt_ffi_buffer_t, data, XLA_FFI_Buffer, data);
  FIELD(tkrt_ffi_buffer_t, rank, XLA_FFI_Buffer, rank);
  FIELD(tkrt_ffi_buffer_t, dims, XLA_FFI_Buffer, dims);
  VALUE(TKRT_FFI_ARG_BUFFER, XLA_FFI_ArgType_BUFFER);
  VALUE(TKRT_FFI_RET_BUFFER, XLA_FFI_RetType_BUFFER);
  VALUE(TKRT_FFI_ATTR_ARRAY, XLA_FFI_AttrType_ARRAY);
  VALUE(TKRT_FFI_ATTR_DICTIONARY, XLA_FFI_AttrType_DICTIONARY);
  VALUE(TKRT_FFI_ATTR_SCALAR, XLA_FFI_AttrType_SCALAR);
  VALUE(TKRT_FFI_ATTR_STRING, XLA_FFI_AttrType_STRING);

  SIZE(tkrt_ffi_byte_span_t, XLA_FFI_ByteSpan);
  FIELD(tkrt_ffi_byte_span_t, len, XLA_FFI_ByteSpan, len);
  SIZE(tkrt_ffi_scalar_t, XLA_FFI_Scalar);
  FIELD(tkrt_ffi_scalar_t, value, XLA_FFI_Scalar, value);
  SIZE(tkrt_ffi_array_t, XLA_FFI_Array);
  FIELD(tkrt_ffi_array_t, size, XLA_FFI_Array, size);
  FIELD(tkrt_ffi_array_t, data, XLA_FFI_Array, data);
  SIZE(tkrt_ffi_type_id_t, XLA_FFI_TypeId);
  SIZE(tkrt_ffi_type_info_t, XLA_FFI_TypeInfo);
  STRUCT_SIZE(tkrt_ffi_type_info_t, deleter, XLA_FFI_TypeInfo);
  FIELD(tkrt_ffi_type_info_t, deleter, XLA_FFI_TypeInfo, deleter);

  VALUE(TKRT_FFI_STAGE_INSTANTIATE, XLA_FFI_ExecutionStage_INSTANTIATE);
  VALUE(TKRT_FFI_STAGE_PREPARE, XLA_FFI_ExecutionStage_PREPARE);
  VALUE(TKRT_FFI_STAGE_INITIALIZE, XLA_FFI_ExecutionStage_INITIALIZE);
  VALUE(TKRT_FFI_STAGE_EXECUTE, XLA_FFI_ExecutionStage_EXECUTE);
  VALUE(TKRT_FFI_STAGE_RECORD, XLA_FFI_ExecutionStage_RECORD);

  SIZE(tkrt_ffi_args_t, XLA_FFI_Args);
  STRUCT_SIZE(tkrt_ffi_args_t, args, XLA_FFI_Args);
  FIELD(tkrt_ffi_args_t, size, XLA_FFI_Args, size);
  FIELD(tkrt_ffi_args_t, types, XLA_FFI_Args, types);
  FIELD(tkrt_ffi_args_t, args, XLA_FFI_Args, args);
  SIZE(tkrt_ffi_rets_t, XLA_FFI_Rets);
  STRUCT_SIZE(tkrt_ffi_rets_t, rets, XLA_FFI_Rets);
  FIELD(tkrt_ffi_rets_t, size, XLA_FFI_Rets, size);
  FIELD(tkrt_ffi_rets_t, types, XLA_FFI_Rets, types);
  FIELD(tkrt_ffi_rets_t, rets, XLA_FFI_Rets, rets);
  SIZE(tkrt_ffi_attrs_t, XLA_FFI_Attrs);
  STRUCT_SIZE(tkrt_ffi_attrs_t, attrs, XLA_FFI_Attrs);
  FIELD(tkrt_ffi_attrs_t, size, XLA_FFI_Attrs, size);
  FIELD(tkrt_ffi_attrs_t, types, XLA_FFI_Attrs, types);
  FIELD(tkrt_ffi_attrs_t, names, XLA_FFI_Attrs, names);
  FIELD(tkrt_ffi_attrs_t, attrs, XLA_FFI_Attrs, attrs);

  SIZE(tkrt_ffi_call_frame_t, XLA_FFI_CallFrame);
  STRUCT_SIZE(tkrt_ffi_call_frame_t, attrs, XLA_FFI_CallFrame);
  FIELD(tkrt_ffi_call_frame_t, extension_start, XLA_FFI_CallFrame, extension_start);
  FIELD(tkrt_ffi_call_frame_t, api, XLA_FFI_CallFrame, api);
  FIELD(tkrt_ffi_call_frame_t, ctx, XLA_FFI_CallFrame, ctx);
  FIELD(tkrt_ffi_call_frame_t, stage, XLA_FFI_CallFrame, stage);
  FIELD(tkrt_ffi_call_frame_t, args, XLA_FFI_CallFrame, args);
  FIELD(tkrt_ffi_call_frame_t, rets, XLA_FFI_CallFrame, rets);
  FIELD(tkrt_ffi_call_frame_t, attrs, XLA_FFI_CallFrame, attrs);
  FIELD(tkrt_ffi_call_frame_t, future, XLA_FFI_CallFrame, future);

  SIZE(tkrt_ffi_handler_bundle_t, XLA_FFI_Handler_Bundle);
  FIELD(tkrt_ffi_handler_bundle_t, instantiate, XLA_FFI_Handler_Bundle, instantiate);
  FIELD(tkrt_ffi_handler_bundle_t, prepare, XLA_FFI_Handler_Bundle, prepare);
  FIELD(tkrt_ffi_handler_bundle_t, initialize, XLA_FFI_Handler_Bundle, initialize);
  FIELD(tkrt_ffi_handler_bundle_t, execute, XLA_FFI_Handler_Bundle, execute);
  FIELD(tkrt_ffi_handler_bundle_t, record, XLA_FFI_Handler_Bundle, record);
  VALUE(TKRT_FFI_TRAIT_COMMAND_BUFFER_COMPATIBLE, XLA_FFI_HANDLER_TRAITS_COMMAND_BUFFER_COMPATIBLE);
  SIZE(tkrt_ffi_traits_t, XLA_FFI_Handler_Traits);

  SIZE(tkrt_ffi_type_register_args_t, XLA_FFI_Type_Register_Args);
  row("XLA_FFI_Type_Register_Args_STRUCT_SIZE", (long long)TKRT_FFI_TYPE_REGISTER_ARGS_SIZE,
      (long long)XLA_FFI_Type_Register_Args_STRUCT_SIZE);
  FIELD(tkrt_ffi_type_register_args_t, name, XLA_FFI_Type_Register_Args, name);
  FIELD(tkrt_ffi_type_register_args_t, type_id, XLA_FFI_Type_Register_Args, type_id);
  FIELD(tkrt_ffi_type_register_args_t, type_info, XLA_FFI_Type_Register_Args, type_info);

  SIZE(tkrt_ffi_state_set_args_t, XLA_FFI_State_Set_Args);
  STRUCT_SIZE(tkrt_ffi_state_set_args_t, state, XLA_FFI_State_Set_Args);
  FIELD(tkrt_ffi_state_set_args_t, ctx, XLA_FFI_State_Set_Args, ctx);
  FIELD(tkrt_ffi_state_set_args_t, stage, XLA_FFI_State_Set_Args, stage);
  FIELD(tkrt_ffi_state_set_args_t, type_id, XLA_FFI_State_Set_Args, type_id);
  FIELD(tkrt_ffi_state_set_args_t, state, XLA_FFI_State_Set_Args, state);
  SIZE(tkrt_ffi_state_get_args_t, XLA_FFI_State_Get_Args);
  STRUCT_SIZE(tkrt_ffi_state_get_args_t, state, XLA_FFI_State_Get_Args);
  FIELD(tkrt_ffi_state_get_args_t, ctx, XLA_FFI_State_Get_Args, ctx);
  FIELD(tkrt_ffi_state_get_args_t, stage, XLA_FFI_State_Get_Args, stage);
  FIELD(tkrt_ffi_state_get_args_t, type_id, XLA_FFI_State_Get_Args, type_id);
  FIELD(tkrt_ffi_state_get_args_t, state, XLA_FFI_State_Get_Args, state);
  SIZE(tkrt_ffi_stream_get_args_t, XLA_FFI_Stream_Get_Args);
  STRUCT_SIZE(tkrt_ffi_stream_get_args_t, stream, XLA_FFI_Stream_Get_Args);
  FIELD(tkrt_ffi_stream_get_args_t, ctx, XLA_FFI_Stream_Get_Args, ctx);
  FIELD(tkrt_ffi_stream_get_args_t, stream, XLA_FFI_Stream_Get_Args, stream);
  SIZE(tkrt_ffi_device_ordinal_get_args_t, XLA_FFI_DeviceOrdinal_Get_Args);
  STRUCT_SIZE(tkrt_ffi_device_ordinal_get_args_t, device_ordinal, XLA_FFI_DeviceOrdinal_Get_Args);
  FIELD(tkrt_ffi_device_ordinal_get_args_t, ctx, XLA_FFI_DeviceOrdinal_Get_Args, ctx);
  FIELD(tkrt_ffi_device_ordinal_get_args_t, device_ordinal, XLA_FFI_DeviceOrdinal_Get_Args,
        device_ordinal);

  SIZE(tkrt_ffi_metadata_t, XLA_FFI_Metadata);
  STRUCT_SIZE(tkrt_ffi_metadata_t, traits, XLA_FFI_Metadata);
  FIELD(tkrt_ffi_metadata_t, api_version, XLA_FFI_Metadata, api_version);
  FIELD(tkrt_ffi_metadata_t, traits, XLA_FFI_Metadata, traits);
  FIELD(tkrt_ffi_metadata_t, state_type_id, XLA_FFI_Metadata, state_type_id);
  SIZE(tkrt_ffi_metadata_extension_t, XLA_FFI_Metadata_Extension);
  STRUCT_SIZE(tkrt_ffi_metadata_extension_t, metadata, XLA_FFI_Metadata_Extension);
  FIELD(tkrt_ffi_metadata_extension_t, metadata, XLA_FFI_Metadata_Extension, metadata);

  SIZE(tkrt_ffi_api_t, XLA_FFI_Api);
  STRUCT_SIZE(tkrt_ffi_api_t, invoke_context_find_extension, XLA_FFI_Api);
  FIELD(tkrt_ffi_api_t, extension_start, XLA_FFI_Api, extension_start);
  FIELD(tkrt_ffi_api_t, api_version, XLA_FFI_Api, api_version);
  FIELD(tkrt_ffi_api_t, internal_api, XLA_FFI_Api, internal_api);
  FIELD(tkrt_ffi_api_t, error_create, XLA_FFI_Api, XLA_FFI_Error_Create);
  FIELD(tkrt_ffi_api_t, error_get_details, XLA_FFI_Api, XLA_FFI_Error_GetDetails);
  FIELD(tkrt_ffi_api_t, error_destroy, XLA_FFI_Api, XLA_FFI_Error_Destroy);
  FIELD(tkrt_ffi_api_t, handler_register, XLA_FFI_Api, XLA_FFI_Handler_Register);
  FIELD(tkrt_ffi_api_t, stream_get, XLA_FFI_Api, XLA_FFI_Stream_Get);
  FIELD(tkrt_ffi_api_t, type_register, XLA_FFI_Api, XLA_FFI_Type_Register);
  FIELD(tkrt_ffi_api_t, invoke_context_get, XLA_FFI_Api, XLA_FFI_InvokeContext_Get);
  FIELD(tkrt_ffi_api_t, state_set, XLA_FFI_Api, XLA_FFI_State_Set);
  FIELD(tkrt_ffi_api_t, state_get, XLA_FFI_Api, XLA_FFI_State_Get);
  FIELD(tkrt_ffi_api_t, device_memory_allocate, XLA_FFI_Api, XLA_FFI_DeviceMemory_Allocate);
  FIELD(tkrt_ffi_api_t, device_memory_free, XLA_FFI_Api, XLA_FFI_DeviceMemory_Free);
  FIELD(tkrt_ffi_api_t, thread_pool_schedule, XLA_FFI_Api, XLA_FFI_ThreadPool_Schedule);
  FIELD(tkrt_ffi_api_t, thread_pool_num_threads, XLA_FFI_Api, XLA_FFI_ThreadPool_NumThreads);
  FIELD(tkrt_ffi_api_t, future_create, XLA_FFI_Api, XLA_FFI_Future_Create);
  FIELD(tkrt_ffi_api_t, future_set_available, XLA_FFI_Api, XLA_FFI_Future_SetAvailable);
  FIELD(tkrt_ffi_api_t, future_set_error, XLA_FFI_Api, XLA_FFI_Future_SetError);
  FIELD(tkrt_ffi_api_t, run_id_get, XLA_FFI_Api, XLA_FFI_RunId_Get);
  FIELD(tkrt_ffi_api_t, device_ordinal_get, XLA_FFI_Api, XLA_FFI_DeviceOrdinal_Get);
  FIELD(tkrt_ffi_api_t, invoke_context_find_extension, XLA_FFI_Api,
        XLA_FFI_InvokeContext_FindExtension);

  printf("%d checks, %d mismatches\n", checks, failures);
  return failures ? 1 : 0;
}
