/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt HIP backend: the libamdhip64 entry points it uses, as an X-macro table (REQUIRED ones make
 * the backend unavailable when missing, OPTIONAL ones only turn a feature off). */
#ifndef TKRT_BACKENDS_HIP_HIP_SYMBOLS_H_
#define TKRT_BACKENDS_HIP_HIP_SYMBOLS_H_

#include <hip/hip_runtime_api.h>

/* Signatures are spelled out here rather than taken from the headers because the library found at
 * run time may be newer (ROCm 6, 7) than the headers we compile against (ROCm 5.2 on Debian):
 * every entry below has the same C ABI in ROCm 5.2 through 7. Enum parameters whose values we pin
 * ourselves (device attributes) are passed as int, which is how the C ABI passes those enums. */
#define TKRT_HIP_SYMBOLS(REQUIRED, OPTIONAL)                                                      \
  REQUIRED(hipInit, (unsigned int flags))                                                      \
  REQUIRED(hipGetDeviceCount, (int* count))                                                    \
  REQUIRED(hipRuntimeGetVersion, (int* version))                                               \
  REQUIRED(hipDriverGetVersion, (int* version))                                                \
  REQUIRED(hipGetDevice, (int* device))                                                        \
  OPTIONAL(hipStreamGetDevice, (hipStream_t stream, int* device))                              \
  REQUIRED(hipSetDevice, (int device))                                                         \
  REQUIRED(hipDeviceGetAttribute, (int* value, int attribute, int device))                     \
  REQUIRED(hipDeviceGetName, (char* name, int length, int device))                             \
  REQUIRED(hipDeviceTotalMem, (size_t* bytes, int device))                                     \
  REQUIRED(hipModuleLoadData, (hipModule_t * module, const void* image))                       \
  REQUIRED(hipModuleUnload, (hipModule_t module))                                              \
  REQUIRED(hipModuleGetFunction, (hipFunction_t * function, hipModule_t module, const char* name)) \
  REQUIRED(hipFuncGetAttribute, (int* value, int attribute, hipFunction_t function))           \
  REQUIRED(hipModuleLaunchKernel,                                                              \
           (hipFunction_t f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, \
            unsigned int by, unsigned int bz, unsigned int shared_bytes, hipStream_t stream,   \
            void** params, void** extra))                                                      \
  REQUIRED(hipMalloc, (void** ptr, size_t size))                                               \
  REQUIRED(hipFree, (void* ptr))                                                               \
  REQUIRED(hipHostMalloc, (void** ptr, size_t size, unsigned int flags))                       \
  REQUIRED(hipHostFree, (void* ptr))                                                           \
  REQUIRED(hipMemGetInfo, (size_t* free_bytes, size_t* total_bytes))                           \
  REQUIRED(hipMemsetD8Async, (hipDeviceptr_t dst, unsigned char value, size_t count,           \
                              hipStream_t stream))                                             \
  REQUIRED(hipMemcpyHtoDAsync, (hipDeviceptr_t dst, void* src, size_t size, hipStream_t stream)) \
  REQUIRED(hipMemcpyDtoHAsync, (void* dst, hipDeviceptr_t src, size_t size, hipStream_t stream)) \
  REQUIRED(hipMemcpyDtoDAsync, (hipDeviceptr_t dst, hipDeviceptr_t src, size_t size,           \
                                hipStream_t stream))                                           \
  REQUIRED(hipStreamCreateWithFlags, (hipStream_t * stream, unsigned int flags))               \
  REQUIRED(hipStreamDestroy, (hipStream_t stream))                                             \
  REQUIRED(hipStreamSynchronize, (hipStream_t stream))                                         \
  REQUIRED(hipEventCreateWithFlags, (hipEvent_t * event, unsigned int flags))                  \
  REQUIRED(hipEventDestroy, (hipEvent_t event))                                                \
  REQUIRED(hipEventRecord, (hipEvent_t event, hipStream_t stream))                             \
  REQUIRED(hipEventSynchronize, (hipEvent_t event))                                            \
  REQUIRED(hipEventElapsedTime, (float* ms, hipEvent_t start, hipEvent_t end))                 \
  /* ROCm 6+: the hipDeviceProp_t layout that has gcnArchName at a new offset. */               \
  OPTIONAL(hipGetDevicePropertiesR0600, (void* properties, int device))                        \
  /* ROCm 5 (kept in 6 for old binaries): the pre-6 hipDeviceProp_t layout. */                  \
  OPTIONAL(hipGetDeviceProperties, (void* properties, int device))                             \
  /* ROCm 6+ only; without it cooperative launches are UNIMPLEMENTED. */                        \
  OPTIONAL(hipModuleLaunchCooperativeKernel,                                                   \
           (hipFunction_t f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, \
            unsigned int by, unsigned int bz, unsigned int shared_bytes, hipStream_t stream,   \
            void** params))                                                                    \
  /* Stream capture and graphs (TKRT_DEVICE_FEATURE_GRAPHS needs all of them). */              \
  OPTIONAL(hipStreamIsCapturing, (hipStream_t stream, hipStreamCaptureStatus * status))        \
  OPTIONAL(hipStreamBeginCapture, (hipStream_t stream, hipStreamCaptureMode mode))             \
  OPTIONAL(hipStreamEndCapture, (hipStream_t stream, hipGraph_t * graph))                      \
  OPTIONAL(hipGraphInstantiateWithFlags,                                                       \
           (hipGraphExec_t * exec, hipGraph_t graph, unsigned long long flags))                \
  OPTIONAL(hipGraphLaunch, (hipGraphExec_t exec, hipStream_t stream))                          \
  OPTIONAL(hipGraphExecDestroy, (hipGraphExec_t exec))                                         \
  OPTIONAL(hipGraphDestroy, (hipGraph_t graph))

typedef struct tkrt_hip_symbols {
  /* Required too, resolved apart from the table because it returns a string. */
  const char* (*hipGetErrorName)(hipError_t error);
#define TKRT_HIP_FIELD(name, args) hipError_t(*name) args;
  TKRT_HIP_SYMBOLS(TKRT_HIP_FIELD, TKRT_HIP_FIELD)
#undef TKRT_HIP_FIELD
} tkrt_hip_symbols_t;

#endif /* TKRT_BACKENDS_HIP_HIP_SYMBOLS_H_ */
