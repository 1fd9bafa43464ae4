/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt CUDA backend: CUresult -> tkrt status. Codes are matched by numeric value (cuda_api.h's,
 * checked against cuda.h by cuda.abi), so the table also names errors that an older driver does
 * not know. */
#include "backends/cuda/cuda_internal.h"

#include <stdarg.h>
#include <stdio.h>

#include "backends/cuda/cuda_symbols.h"

/* X(name, tkrt code). Values (cuda_api.h) are CUDA's ABI and never change meaning; every code not
 * listed here maps to INTERNAL. The table lists every CUresult of CUDA 13.0 (TKRT_CUDA_RESULTS,
 * whose every entry it must name: see the check below it).
 * A sticky device fault (illegal address, launch failure or timeout, device assert, illegal
 * instruction, ...) leaves the context unusable until the process restarts, so it is INTERNAL,
 * not ABORTED (which invites a retry) nor DEADLINE_EXCEEDED; XLA reports driver faults as
 * INTERNAL too. An uncorrectable ECC error is DATA_LOSS. The HIP backend maps the same errors
 * the same way (backends/hip/hip_status.c). */
#define TKRT_CUDA_ERRORS(X)                                         \
  X(CUDA_SUCCESS, OK)                                               \
  X(CUDA_ERROR_INVALID_VALUE, INVALID_ARGUMENT)                     \
  X(CUDA_ERROR_OUT_OF_MEMORY, RESOURCE_EXHAUSTED)                   \
  X(CUDA_ERROR_NOT_INITIALIZED, FAILED_PRECONDITION)                \
  X(CUDA_ERROR_DEINITIALIZED, UNAVAILABLE)                          \
  X(CUDA_ERROR_PROFILER_DISABLED, INTERNAL)                         \
  X(CUDA_ERROR_PROFILER_NOT_INITIALIZED, INTERNAL)                  \
  X(CUDA_ERROR_PROFILER_ALREADY_STARTED, INTERNAL)                  \
  X(CUDA_ERROR_PROFILER_ALREADY_STOPPED, INTERNAL)                  \
  X(CUDA_ERROR_STUB_LIBRARY, UNAVAILABLE)                           \
  X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, UNIMPLEMENTED)           \
  X(CUDA_ERROR_DEVICE_UNAVAILABLE, UNAVAILABLE)                     \
  X(CUDA_ERROR_NO_DEVICE, UNAVAILABLE)                              \
  X(CUDA_ERROR_INVALID_DEVICE, INVALID_ARGUMENT)                    \
  X(CUDA_ERROR_DEVICE_NOT_LICENSED, UNAVAILABLE)                    \
  X(CUDA_ERROR_INVALID_IMAGE, INVALID_ARGUMENT)                     \
  X(CUDA_ERROR_INVALID_CONTEXT, FAILED_PRECONDITION)                \
  X(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, INTERNAL)                   \
  X(CUDA_ERROR_MAP_FAILED, INTERNAL)                                \
  X(CUDA_ERROR_UNMAP_FAILED, INTERNAL)                              \
  X(CUDA_ERROR_ARRAY_IS_MAPPED, INTERNAL)                           \
  X(CUDA_ERROR_ALREADY_MAPPED, ALREADY_EXISTS)                      \
  X(CUDA_ERROR_NO_BINARY_FOR_GPU, INVALID_ARGUMENT)                 \
  X(CUDA_ERROR_ALREADY_ACQUIRED, ALREADY_EXISTS)                    \
  X(CUDA_ERROR_NOT_MAPPED, INTERNAL)                                \
  X(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, INTERNAL)                       \
  X(CUDA_ERROR_NOT_MAPPED_AS_POINTER, INTERNAL)                     \
  X(CUDA_ERROR_ECC_UNCORRECTABLE, DATA_LOSS)                        \
  X(CUDA_ERROR_UNSUPPORTED_LIMIT, UNIMPLEMENTED)                    \
  X(CUDA_ERROR_CONTEXT_ALREADY_IN_USE, INTERNAL)                    \
  X(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, UNIMPLEMENTED)              \
  X(CUDA_ERROR_INVALID_PTX, INVALID_ARGUMENT)                       \
  X(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, INTERNAL)                  \
  X(CUDA_ERROR_NVLINK_UNCORRECTABLE, DATA_LOSS)                     \
  X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, UNAVAILABLE)                 \
  X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, INVALID_ARGUMENT)           \
  X(CUDA_ERROR_JIT_COMPILATION_DISABLED, FAILED_PRECONDITION)       \
  X(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, INTERNAL)                 \
  X(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, INTERNAL)                  \
  X(CUDA_ERROR_CONTAINED, INTERNAL)                                 \
  X(CUDA_ERROR_INVALID_SOURCE, INVALID_ARGUMENT)                    \
  X(CUDA_ERROR_FILE_NOT_FOUND, NOT_FOUND)                           \
  X(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, NOT_FOUND)           \
  X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, INTERNAL)                 \
  X(CUDA_ERROR_OPERATING_SYSTEM, INTERNAL)                          \
  X(CUDA_ERROR_INVALID_HANDLE, INVALID_ARGUMENT)                    \
  X(CUDA_ERROR_ILLEGAL_STATE, FAILED_PRECONDITION)                  \
  X(CUDA_ERROR_LOSSY_QUERY, FAILED_PRECONDITION)                    \
  X(CUDA_ERROR_NOT_FOUND, NOT_FOUND)                                \
  X(CUDA_ERROR_NOT_READY, UNAVAILABLE)                              \
  X(CUDA_ERROR_ILLEGAL_ADDRESS, INTERNAL)                           \
  X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, RESOURCE_EXHAUSTED)         \
  X(CUDA_ERROR_LAUNCH_TIMEOUT, INTERNAL)                            \
  X(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, INTERNAL)             \
  X(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, ALREADY_EXISTS)         \
  X(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, FAILED_PRECONDITION)        \
  X(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, FAILED_PRECONDITION)         \
  X(CUDA_ERROR_CONTEXT_IS_DESTROYED, FAILED_PRECONDITION)           \
  X(CUDA_ERROR_ASSERT, INTERNAL)                                    \
  X(CUDA_ERROR_TOO_MANY_PEERS, RESOURCE_EXHAUSTED)                  \
  X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, ALREADY_EXISTS)      \
  X(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, FAILED_PRECONDITION)     \
  X(CUDA_ERROR_HARDWARE_STACK_ERROR, INTERNAL)                      \
  X(CUDA_ERROR_ILLEGAL_INSTRUCTION, INTERNAL)                       \
  X(CUDA_ERROR_MISALIGNED_ADDRESS, INTERNAL)                        \
  X(CUDA_ERROR_INVALID_ADDRESS_SPACE, INTERNAL)                     \
  X(CUDA_ERROR_INVALID_PC, INTERNAL)                                \
  X(CUDA_ERROR_LAUNCH_FAILED, INTERNAL)                             \
  X(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, INVALID_ARGUMENT)      \
  X(CUDA_ERROR_TENSOR_MEMORY_LEAK, INTERNAL)                        \
  X(CUDA_ERROR_NOT_PERMITTED, PERMISSION_DENIED)                    \
  X(CUDA_ERROR_NOT_SUPPORTED, UNIMPLEMENTED)                        \
  X(CUDA_ERROR_SYSTEM_NOT_READY, UNAVAILABLE)                       \
  X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, UNAVAILABLE)                 \
  X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, UNAVAILABLE)         \
  X(CUDA_ERROR_MPS_CONNECTION_FAILED, UNAVAILABLE)                  \
  X(CUDA_ERROR_MPS_RPC_FAILURE, INTERNAL)                           \
  X(CUDA_ERROR_MPS_SERVER_NOT_READY, UNAVAILABLE)                   \
  X(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, RESOURCE_EXHAUSTED)         \
  X(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED, RESOURCE_EXHAUSTED)     \
  X(CUDA_ERROR_MPS_CLIENT_TERMINATED, INTERNAL)                     \
  X(CUDA_ERROR_CDP_NOT_SUPPORTED, UNIMPLEMENTED)                    \
  X(CUDA_ERROR_CDP_VERSION_MISMATCH, INTERNAL)                      \
  X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, FAILED_PRECONDITION)     \
  X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, FAILED_PRECONDITION)     \
  X(CUDA_ERROR_STREAM_CAPTURE_MERGE, FAILED_PRECONDITION)           \
  X(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, FAILED_PRECONDITION)       \
  X(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, FAILED_PRECONDITION)        \
  X(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, FAILED_PRECONDITION)       \
  X(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, FAILED_PRECONDITION)        \
  X(CUDA_ERROR_CAPTURED_EVENT, FAILED_PRECONDITION)                 \
  X(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, FAILED_PRECONDITION)    \
  X(CUDA_ERROR_TIMEOUT, DEADLINE_EXCEEDED)                          \
  X(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, INTERNAL)                 \
  X(CUDA_ERROR_EXTERNAL_DEVICE, INTERNAL)                           \
  X(CUDA_ERROR_INVALID_CLUSTER_SIZE, INVALID_ARGUMENT)              \
  X(CUDA_ERROR_FUNCTION_NOT_LOADED, FAILED_PRECONDITION)            \
  X(CUDA_ERROR_INVALID_RESOURCE_TYPE, INVALID_ARGUMENT)             \
  X(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, INVALID_ARGUMENT)    \
  X(CUDA_ERROR_KEY_ROTATION, INTERNAL)                              \
  X(CUDA_ERROR_UNKNOWN, INTERNAL)

/* Both lists name the same results: one count, and each name's value is in a switch below (a name
 * missing from cuda_api.h does not compile, a value listed twice neither). */
#define TKRT_CUDA_COUNT_ONE(...) +1
_Static_assert(0 TKRT_CUDA_ERRORS(TKRT_CUDA_COUNT_ONE) == 0 TKRT_CUDA_RESULTS(TKRT_CUDA_COUNT_ONE),
               "TKRT_CUDA_ERRORS must map every CUresult of TKRT_CUDA_RESULTS");
#undef TKRT_CUDA_COUNT_ONE

tkrt_status_code_t tkrt_cuda_status_code(CUresult result) {
  switch ((int)result) {
#define TKRT_CUDA_ERROR_CODE(name, code) \
  case name:                             \
    return TKRT_STATUS_##code;
    TKRT_CUDA_ERRORS(TKRT_CUDA_ERROR_CODE)
#undef TKRT_CUDA_ERROR_CODE
    default:
      return TKRT_STATUS_INTERNAL;
  }
}

const char* tkrt_cuda_error_name(CUresult result) {
  switch ((int)result) {
#define TKRT_CUDA_ERROR_NAME(name, code) \
  case name:                             \
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
