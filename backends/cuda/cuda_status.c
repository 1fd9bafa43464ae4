/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt CUDA backend: CUresult -> tkrt status. Codes are matched by numeric value, so the table
 * also names errors that an older cuda.h (or the loaded driver) does not know. */
#include "backends/cuda/cuda_internal.h"

#include <stdarg.h>
#include <stdio.h>

#include "backends/cuda/cuda_symbols.h"

/* X(value, name, tkrt code). Values are CUDA's ABI and never change meaning; every code not
 * listed here maps to INTERNAL. The table lists every CUresult of CUDA 13.0.
 * A sticky device fault (illegal address, launch failure or timeout, device assert, illegal
 * instruction, ...) leaves the context unusable until the process restarts, so it is INTERNAL,
 * not ABORTED (which invites a retry) nor DEADLINE_EXCEEDED; XLA reports driver faults as
 * INTERNAL too. An uncorrectable ECC error is DATA_LOSS. The HIP backend maps the same errors
 * the same way (backends/hip/hip_status.c). */
#define TKRT_CUDA_ERRORS(X) \
  X(0, CUDA_SUCCESS, OK)                                              \
  X(1, CUDA_ERROR_INVALID_VALUE, INVALID_ARGUMENT)                    \
  X(2, CUDA_ERROR_OUT_OF_MEMORY, RESOURCE_EXHAUSTED)                  \
  X(3, CUDA_ERROR_NOT_INITIALIZED, FAILED_PRECONDITION)               \
  X(4, CUDA_ERROR_DEINITIALIZED, UNAVAILABLE)                         \
  X(5, CUDA_ERROR_PROFILER_DISABLED, INTERNAL)                        \
  X(6, CUDA_ERROR_PROFILER_NOT_INITIALIZED, INTERNAL)                 \
  X(7, CUDA_ERROR_PROFILER_ALREADY_STARTED, INTERNAL)                 \
  X(8, CUDA_ERROR_PROFILER_ALREADY_STOPPED, INTERNAL)                 \
  X(34, CUDA_ERROR_STUB_LIBRARY, UNAVAILABLE)                         \
  X(36, CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, UNIMPLEMENTED)         \
  X(46, CUDA_ERROR_DEVICE_UNAVAILABLE, UNAVAILABLE)                   \
  X(100, CUDA_ERROR_NO_DEVICE, UNAVAILABLE)                           \
  X(101, CUDA_ERROR_INVALID_DEVICE, INVALID_ARGUMENT)                 \
  X(102, CUDA_ERROR_DEVICE_NOT_LICENSED, UNAVAILABLE)                 \
  X(200, CUDA_ERROR_INVALID_IMAGE, INVALID_ARGUMENT)                  \
  X(201, CUDA_ERROR_INVALID_CONTEXT, FAILED_PRECONDITION)             \
  X(202, CUDA_ERROR_CONTEXT_ALREADY_CURRENT, INTERNAL)                \
  X(205, CUDA_ERROR_MAP_FAILED, INTERNAL)                             \
  X(206, CUDA_ERROR_UNMAP_FAILED, INTERNAL)                           \
  X(207, CUDA_ERROR_ARRAY_IS_MAPPED, INTERNAL)                        \
  X(208, CUDA_ERROR_ALREADY_MAPPED, ALREADY_EXISTS)                   \
  X(209, CUDA_ERROR_NO_BINARY_FOR_GPU, INVALID_ARGUMENT)              \
  X(210, CUDA_ERROR_ALREADY_ACQUIRED, ALREADY_EXISTS)                 \
  X(211, CUDA_ERROR_NOT_MAPPED, INTERNAL)                             \
  X(212, CUDA_ERROR_NOT_MAPPED_AS_ARRAY, INTERNAL)                    \
  X(213, CUDA_ERROR_NOT_MAPPED_AS_POINTER, INTERNAL)                  \
  X(214, CUDA_ERROR_ECC_UNCORRECTABLE, DATA_LOSS)                     \
  X(215, CUDA_ERROR_UNSUPPORTED_LIMIT, UNIMPLEMENTED)                 \
  X(216, CUDA_ERROR_CONTEXT_ALREADY_IN_USE, INTERNAL)                 \
  X(217, CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, UNIMPLEMENTED)           \
  X(218, CUDA_ERROR_INVALID_PTX, INVALID_ARGUMENT)                    \
  X(219, CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, INTERNAL)               \
  X(220, CUDA_ERROR_NVLINK_UNCORRECTABLE, DATA_LOSS)                  \
  X(221, CUDA_ERROR_JIT_COMPILER_NOT_FOUND, UNAVAILABLE)              \
  X(222, CUDA_ERROR_UNSUPPORTED_PTX_VERSION, INVALID_ARGUMENT)        \
  X(223, CUDA_ERROR_JIT_COMPILATION_DISABLED, FAILED_PRECONDITION)    \
  X(224, CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, INTERNAL)              \
  X(225, CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, INTERNAL)               \
  X(226, CUDA_ERROR_CONTAINED, INTERNAL)                              \
  X(300, CUDA_ERROR_INVALID_SOURCE, INVALID_ARGUMENT)                 \
  X(301, CUDA_ERROR_FILE_NOT_FOUND, NOT_FOUND)                        \
  X(302, CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, NOT_FOUND)        \
  X(303, CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, INTERNAL)              \
  X(304, CUDA_ERROR_OPERATING_SYSTEM, INTERNAL)                       \
  X(400, CUDA_ERROR_INVALID_HANDLE, INVALID_ARGUMENT)                 \
  X(401, CUDA_ERROR_ILLEGAL_STATE, FAILED_PRECONDITION)               \
  X(402, CUDA_ERROR_LOSSY_QUERY, FAILED_PRECONDITION)                 \
  X(500, CUDA_ERROR_NOT_FOUND, NOT_FOUND)                             \
  X(600, CUDA_ERROR_NOT_READY, UNAVAILABLE)                           \
  X(700, CUDA_ERROR_ILLEGAL_ADDRESS, INTERNAL)                        \
  X(701, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, RESOURCE_EXHAUSTED)      \
  X(702, CUDA_ERROR_LAUNCH_TIMEOUT, INTERNAL)                         \
  X(703, CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, INTERNAL)          \
  X(704, CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, ALREADY_EXISTS)      \
  X(705, CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, FAILED_PRECONDITION)     \
  X(708, CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, FAILED_PRECONDITION)      \
  X(709, CUDA_ERROR_CONTEXT_IS_DESTROYED, FAILED_PRECONDITION)        \
  X(710, CUDA_ERROR_ASSERT, INTERNAL)                                 \
  X(711, CUDA_ERROR_TOO_MANY_PEERS, RESOURCE_EXHAUSTED)               \
  X(712, CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, ALREADY_EXISTS)   \
  X(713, CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, FAILED_PRECONDITION)  \
  X(714, CUDA_ERROR_HARDWARE_STACK_ERROR, INTERNAL)                   \
  X(715, CUDA_ERROR_ILLEGAL_INSTRUCTION, INTERNAL)                    \
  X(716, CUDA_ERROR_MISALIGNED_ADDRESS, INTERNAL)                     \
  X(717, CUDA_ERROR_INVALID_ADDRESS_SPACE, INTERNAL)                  \
  X(718, CUDA_ERROR_INVALID_PC, INTERNAL)                             \
  X(719, CUDA_ERROR_LAUNCH_FAILED, INTERNAL)                          \
  X(720, CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, INVALID_ARGUMENT)   \
  X(721, CUDA_ERROR_TENSOR_MEMORY_LEAK, INTERNAL)                     \
  X(800, CUDA_ERROR_NOT_PERMITTED, PERMISSION_DENIED)                 \
  X(801, CUDA_ERROR_NOT_SUPPORTED, UNIMPLEMENTED)                     \
  X(802, CUDA_ERROR_SYSTEM_NOT_READY, UNAVAILABLE)                    \
  X(803, CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, UNAVAILABLE)              \
  X(804, CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, UNAVAILABLE)      \
  X(805, CUDA_ERROR_MPS_CONNECTION_FAILED, UNAVAILABLE)               \
  X(806, CUDA_ERROR_MPS_RPC_FAILURE, INTERNAL)                        \
  X(807, CUDA_ERROR_MPS_SERVER_NOT_READY, UNAVAILABLE)                \
  X(808, CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, RESOURCE_EXHAUSTED)      \
  X(809, CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED, RESOURCE_EXHAUSTED)  \
  X(810, CUDA_ERROR_MPS_CLIENT_TERMINATED, INTERNAL)                  \
  X(811, CUDA_ERROR_CDP_NOT_SUPPORTED, UNIMPLEMENTED)                 \
  X(812, CUDA_ERROR_CDP_VERSION_MISMATCH, INTERNAL)                   \
  X(900, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, FAILED_PRECONDITION)  \
  X(901, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, FAILED_PRECONDITION)  \
  X(902, CUDA_ERROR_STREAM_CAPTURE_MERGE, FAILED_PRECONDITION)        \
  X(903, CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, FAILED_PRECONDITION)    \
  X(904, CUDA_ERROR_STREAM_CAPTURE_UNJOINED, FAILED_PRECONDITION)     \
  X(905, CUDA_ERROR_STREAM_CAPTURE_ISOLATION, FAILED_PRECONDITION)    \
  X(906, CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, FAILED_PRECONDITION)     \
  X(907, CUDA_ERROR_CAPTURED_EVENT, FAILED_PRECONDITION)              \
  X(908, CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, FAILED_PRECONDITION) \
  X(909, CUDA_ERROR_TIMEOUT, DEADLINE_EXCEEDED)                       \
  X(910, CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, INTERNAL)              \
  X(911, CUDA_ERROR_EXTERNAL_DEVICE, INTERNAL)                        \
  X(912, CUDA_ERROR_INVALID_CLUSTER_SIZE, INVALID_ARGUMENT)           \
  X(913, CUDA_ERROR_FUNCTION_NOT_LOADED, FAILED_PRECONDITION)         \
  X(914, CUDA_ERROR_INVALID_RESOURCE_TYPE, INVALID_ARGUMENT)          \
  X(915, CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, INVALID_ARGUMENT) \
  X(916, CUDA_ERROR_KEY_ROTATION, INTERNAL)                           \
  X(999, CUDA_ERROR_UNKNOWN, INTERNAL)                               

tkrt_status_code_t tkrt_cuda_status_code(CUresult result) {
  switch ((int)result) {
#define TKRT_CUDA_ERROR_CODE(value, name, code) \
  case value:                                   \
    return TKRT_STATUS_##code;
    TKRT_CUDA_ERRORS(TKRT_CUDA_ERROR_CODE)
#undef TKRT_CUDA_ERROR_CODE
    default:
      return TKRT_STATUS_INTERNAL;
  }
}

const char* tkrt_cuda_error_name(CUresult result) {
  switch ((int)result) {
#define TKRT_CUDA_ERROR_NAME(value, name, code) \
  case value:                                   \
    return #name;
    TKRT_CUDA_ERRORS(TKRT_CUDA_ERROR_NAME)
#undef TKRT_CUDA_ERROR_NAME
    default:
      return NULL;
  }
}

tkrt_status_t tkrt_cuda_status_make(CUresult result, const char* file, int line,
                                    const char* operation_format, ...) {
  char operation[512];
  va_list args;
  va_start(args, operation_format);
  vsnprintf(operation, sizeof(operation), operation_format, args);
  va_end(args);

  const char* name = NULL;
  const char* description = NULL;
  const tkrt_cuda_driver_t* driver = tkrt_cuda_driver_if_loaded();
  /* The driver's own strings first: a newer driver knows codes this table does not. */
  if (driver && driver->cuGetErrorName && driver->cuGetErrorName(result, &name) != CUDA_SUCCESS) {
    name = NULL;
  }
  if (driver && driver->cuGetErrorString &&
      driver->cuGetErrorString(result, &description) != CUDA_SUCCESS) {
    description = NULL;
  }
  if (!name) name = tkrt_cuda_error_name(result);
  char unnamed[32];
  if (!name) {
    snprintf(unnamed, sizeof(unnamed), "CUDA error %d", (int)result);
    name = unnamed;
  }
  return tkrt_status_make(tkrt_cuda_status_code(result), file, line, "%s failed: %s%s%s%s",
                          operation, name, description ? " (" : "",
                          description ? description : "", description ? ")" : "");
}
