/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt HIP backend: the libamdhip64 entry points it uses, as an X-macro table (REQUIRED ones make
 * the backend unavailable when missing, OPTIONAL ones only turn a feature off). */
#ifndef TKRT_BACKENDS_HIP_HIP_SYMBOLS_H_
#define TKRT_BACKENDS_HIP_HIP_SYMBOLS_H_

#include "backends/hip/hip_api.h"

/* REQUIRED(name) / OPTIONAL(name): the entry points resolved from libamdhip64, each called through
 * tkrt_hip_pfn_<name> (hip_api.h, whose prototypes the ABI check compares with the ROCm headers:
 * the C ABI of each is the same in ROCm 5.0 through 7). */
#define TKRT_HIP_SYMBOLS(REQUIRED, OPTIONAL)                                                     \
  REQUIRED(hipInit)                                                                             \
  REQUIRED(hipGetDeviceCount)                                                                   \
  REQUIRED(hipRuntimeGetVersion)                                                                \
  REQUIRED(hipDriverGetVersion)                                                                 \
  REQUIRED(hipGetDevice)                                                                        \
  /* ROCm 5.3+ */                                                                               \
  OPTIONAL(hipStreamGetDevice)                                                                  \
  REQUIRED(hipSetDevice)                                                                        \
  REQUIRED(hipDeviceGetAttribute)                                                               \
  REQUIRED(hipDeviceGetName)                                                                    \
  REQUIRED(hipDeviceTotalMem)                                                                   \
  REQUIRED(hipModuleLoadData)                                                                   \
  REQUIRED(hipModuleUnload)                                                                     \
  REQUIRED(hipModuleGetFunction)                                                                \
  REQUIRED(hipFuncGetAttribute)                                                                 \
  REQUIRED(hipModuleLaunchKernel)                                                               \
  REQUIRED(hipMalloc)                                                                           \
  REQUIRED(hipFree)                                                                             \
  REQUIRED(hipHostMalloc)                                                                       \
  REQUIRED(hipHostFree)                                                                         \
  REQUIRED(hipMemGetInfo)                                                                       \
  REQUIRED(hipMemsetD8Async)                                                                    \
  REQUIRED(hipMemcpyHtoDAsync)                                                                  \
  REQUIRED(hipMemcpyDtoHAsync)                                                                  \
  REQUIRED(hipMemcpyDtoDAsync)                                                                  \
  REQUIRED(hipStreamCreateWithFlags)                                                            \
  REQUIRED(hipStreamDestroy)                                                                    \
  REQUIRED(hipStreamSynchronize)                                                                \
  REQUIRED(hipDeviceSynchronize)                                                                \
  REQUIRED(hipEventCreateWithFlags)                                                             \
  REQUIRED(hipEventDestroy)                                                                     \
  REQUIRED(hipEventRecord)                                                                      \
  REQUIRED(hipEventSynchronize)                                                                 \
  REQUIRED(hipEventElapsedTime)                                                                 \
  /* ROCm 6+: the hipDeviceProp_t layout that has gcnArchName at a new offset. */              \
  OPTIONAL(hipGetDevicePropertiesR0600)                                                         \
  /* ROCm 5 (kept in 6 for old binaries): the pre-6 hipDeviceProp_t layout. */                 \
  OPTIONAL(hipGetDeviceProperties)                                                              \
  /* ROCm 6+ only; without it cooperative launches are UNIMPLEMENTED. */                        \
  OPTIONAL(hipModuleLaunchCooperativeKernel)                                                    \
  /* Stream capture and graphs (TKRT_DEVICE_FEATURE_GRAPHS needs all of them). */              \
  OPTIONAL(hipStreamIsCapturing)                                                                \
  OPTIONAL(hipStreamBeginCapture)                                                               \
  OPTIONAL(hipStreamEndCapture)                                                                 \
  OPTIONAL(hipGraphInstantiateWithFlags)                                                        \
  OPTIONAL(hipGraphLaunch)                                                                      \
  OPTIONAL(hipGraphExecDestroy)                                                                 \
  OPTIONAL(hipGraphDestroy)

typedef struct tkrt_hip_symbols {
  /* Required too, resolved apart from the table because it returns a string. */
  tkrt_hip_pfn_hipGetErrorName hipGetErrorName;
#define TKRT_HIP_FIELD(name) tkrt_hip_pfn_##name name;
  TKRT_HIP_SYMBOLS(TKRT_HIP_FIELD, TKRT_HIP_FIELD)
#undef TKRT_HIP_FIELD
} tkrt_hip_symbols_t;

#endif /* TKRT_BACKENDS_HIP_HIP_SYMBOLS_H_ */
