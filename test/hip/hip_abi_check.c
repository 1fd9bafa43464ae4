/* SPDX-License-Identifier: Apache-2.0 */
/* The HIP ABI check (CTest hip.abi, run by cmake/TkrtAbiCheck.cmake): tkrt's declarations of the
 * HIP runtime API (backends/hip/hip_api.h, as tkrt_abi_<name>) beside ROCm's
 * hip/hip_runtime_api.h in one translation unit. It is only compiled: any difference in an
 * enumerator's value, a type's size or signedness, a hipDeviceProp_t layout's size or field
 * offsets, or an entry point's prototype is a static assertion that fails, naming what differs
 * ("tkrt-abi: ..."). hip.abi.catches_wrong compiles it again with one declaration of hip_api.h made
 * wrong and expects exactly that failure.
 *
 * Entry points and layouts that the installed headers do not have yet (ROCm 5.3's
 * hipStreamGetDevice, ROCm 6's R0600 layout and cooperative launch) are compared only with headers
 * that have them; CI's are ROCm 5.2 (Debian's libamdhip64-dev). */
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

/* The ROCm 5 properties layout and its getter under the names ROCm 6 gives them. */
#if HIP_VERSION_MAJOR < 6
typedef hipDeviceProp_t hipDeviceProp_tR0000;
/* Named by the ROCm 6 prototypes hip_api.h declares, which these headers cannot compare. */
typedef struct hipDeviceProp_tR0600 hipDeviceProp_tR0600;
#else
#undef hipGetDeviceProperties
#define hipGetDeviceProperties hipGetDevicePropertiesR0000
#endif

#define TKRT_ABI_CHECK 1
#include "backends/hip/hip_api.h"

#define TKRT_ABI_SAME(a, b) __builtin_types_compatible_p(a, b)

/* ---------------------------------------------------------------- values */

#define TKRT_ABI_VALUE(name, value)                                  \
  _Static_assert((long long)(name) == (long long)(tkrt_abi_##name), \
                 "tkrt-abi: the value of " #name " differs from hip_runtime_api.h");
#define TKRT_ABI_ENUM_VALUES(name, tag, list) list(TKRT_ABI_VALUE)
TKRT_HIP_ENUM_TYPES(TKRT_ABI_ENUM_VALUES)
TKRT_HIP_FLAGS(TKRT_ABI_VALUE)

/* The `extra` markers are pointers in the header; tkrt's are the same numbers. (GCC folds the
 * casts into a constant; clang does not, so there this comparison is left to GCC builds, CI's.) */
#if !defined(__clang__)
#define TKRT_ABI_POINTER_VALUE(name, value)                          \
  _Static_assert((uintptr_t)(name) == (uintptr_t)(value),           \
                 "tkrt-abi: the value of " #name " differs from hip_runtime_api.h");
TKRT_HIP_LAUNCH_PARAMS(TKRT_ABI_POINTER_VALUE)
#endif

/* ---------------------------------------------------------------- types */

#define TKRT_ABI_TYPE(name, ...)                         \
  _Static_assert(TKRT_ABI_SAME(tkrt_abi_##name, name), \
                 "tkrt-abi: the type " #name " differs from hip_runtime_api.h");
TKRT_HIP_SCALAR_TYPES(TKRT_ABI_TYPE)
TKRT_HIP_HANDLE_TYPES(TKRT_ABI_TYPE)

#define TKRT_ABI_ENUM_TYPE(name, tag, list)                                                     \
  _Static_assert(sizeof(tkrt_abi_##name) == sizeof(name) &&                                     \
                     TKRT_ABI_SAME(tkrt_abi_##name, unsigned int) ==                            \
                         TKRT_ABI_SAME(name, unsigned int) &&                                   \
                     TKRT_ABI_SAME(tkrt_abi_##name, int) == TKRT_ABI_SAME(name, int),          \
                 "tkrt-abi: the enumerated type " #name " differs from hip_runtime_api.h");
TKRT_HIP_ENUM_TYPES(TKRT_ABI_ENUM_TYPE)

/* ---------------------------------------------------------------- hipDeviceProp_t layouts */

#define TKRT_ABI_STRUCT(type, vendor)                                                    \
  _Static_assert(sizeof(tkrt_abi_##type) == sizeof(vendor) &&                            \
                     _Alignof(tkrt_abi_##type) == _Alignof(vendor),                      \
                 "tkrt-abi: the size or alignment of " #type " differs from hip_runtime_api.h");
#define TKRT_ABI_FIELD(type, vendor, field)                                              \
  _Static_assert(offsetof(tkrt_abi_##type, field) == offsetof(vendor, field) &&          \
                     sizeof(((tkrt_abi_##type*)0)->field) == sizeof(((vendor*)0)->field), \
                 "tkrt-abi: the offset or size of " #type "." #field                     \
                 " differs from hip_runtime_api.h");

TKRT_ABI_STRUCT(hipDeviceArch_t, hipDeviceArch_t)

#define TKRT_ABI_R0000(field) TKRT_ABI_FIELD(hipDeviceProp_tR0000, hipDeviceProp_tR0000, field)
TKRT_ABI_STRUCT(hipDeviceProp_tR0000, hipDeviceProp_tR0000)
TKRT_ABI_R0000(name)
TKRT_ABI_R0000(totalGlobalMem)
TKRT_ABI_R0000(sharedMemPerBlock)
TKRT_ABI_R0000(regsPerBlock)
TKRT_ABI_R0000(warpSize)
TKRT_ABI_R0000(maxThreadsPerBlock)
TKRT_ABI_R0000(maxThreadsDim)
TKRT_ABI_R0000(maxGridSize)
TKRT_ABI_R0000(clockRate)
TKRT_ABI_R0000(memoryClockRate)
TKRT_ABI_R0000(memoryBusWidth)
TKRT_ABI_R0000(totalConstMem)
TKRT_ABI_R0000(major)
TKRT_ABI_R0000(minor)
TKRT_ABI_R0000(multiProcessorCount)
TKRT_ABI_R0000(l2CacheSize)
TKRT_ABI_R0000(maxThreadsPerMultiProcessor)
TKRT_ABI_R0000(computeMode)
TKRT_ABI_R0000(clockInstructionRate)
TKRT_ABI_R0000(arch)
TKRT_ABI_R0000(concurrentKernels)
TKRT_ABI_R0000(pciDomainID)
TKRT_ABI_R0000(pciBusID)
TKRT_ABI_R0000(pciDeviceID)
TKRT_ABI_R0000(maxSharedMemoryPerMultiProcessor)
TKRT_ABI_R0000(isMultiGpuBoard)
TKRT_ABI_R0000(canMapHostMemory)
TKRT_ABI_R0000(gcnArch)
TKRT_ABI_R0000(gcnArchName)
TKRT_ABI_R0000(integrated)
TKRT_ABI_R0000(cooperativeLaunch)
TKRT_ABI_R0000(cooperativeMultiDeviceLaunch)
TKRT_ABI_R0000(maxTexture1DLinear)
TKRT_ABI_R0000(maxTexture1D)
TKRT_ABI_R0000(maxTexture2D)
TKRT_ABI_R0000(maxTexture3D)
TKRT_ABI_R0000(hdpMemFlushCntl)
TKRT_ABI_R0000(hdpRegFlushCntl)
TKRT_ABI_R0000(memPitch)
TKRT_ABI_R0000(textureAlignment)
TKRT_ABI_R0000(texturePitchAlignment)
TKRT_ABI_R0000(kernelExecTimeoutEnabled)
TKRT_ABI_R0000(ECCEnabled)
TKRT_ABI_R0000(tccDriver)
TKRT_ABI_R0000(cooperativeMultiDeviceUnmatchedFunc)
TKRT_ABI_R0000(cooperativeMultiDeviceUnmatchedGridDim)
TKRT_ABI_R0000(cooperativeMultiDeviceUnmatchedBlockDim)
TKRT_ABI_R0000(cooperativeMultiDeviceUnmatchedSharedMem)
TKRT_ABI_R0000(isLargeBar)
TKRT_ABI_R0000(asicRevision)
TKRT_ABI_R0000(managedMemory)
TKRT_ABI_R0000(directManagedMemAccessFromHost)
TKRT_ABI_R0000(concurrentManagedAccess)
TKRT_ABI_R0000(pageableMemoryAccess)
TKRT_ABI_R0000(pageableMemoryAccessUsesHostPageTables)

#if HIP_VERSION_MAJOR >= 6
/* tkrt declares the R0600 layout up to gcnArchName: every field of that prefix. */
#define TKRT_ABI_R0600(field) TKRT_ABI_FIELD(hipDeviceProp_tR0600, hipDeviceProp_tR0600, field)
TKRT_ABI_R0600(name)
TKRT_ABI_R0600(totalGlobalMem)
TKRT_ABI_R0600(sharedMemPerBlock)
TKRT_ABI_R0600(warpSize)
TKRT_ABI_R0600(maxThreadsPerBlock)
TKRT_ABI_R0600(maxGridSize)
TKRT_ABI_R0600(clockRate)
TKRT_ABI_R0600(major)
TKRT_ABI_R0600(minor)
TKRT_ABI_R0600(multiProcessorCount)
TKRT_ABI_R0600(concurrentKernels)
TKRT_ABI_R0600(pciBusID)
TKRT_ABI_R0600(pciDeviceID)
TKRT_ABI_R0600(pciDomainID)
TKRT_ABI_R0600(memoryClockRate)
TKRT_ABI_R0600(memoryBusWidth)
TKRT_ABI_R0600(l2CacheSize)
TKRT_ABI_R0600(maxThreadsPerMultiProcessor)
TKRT_ABI_R0600(sharedMemPerMultiprocessor)
TKRT_ABI_R0600(cooperativeLaunch)
TKRT_ABI_R0600(sharedMemPerBlockOptin)
TKRT_ABI_R0600(unifiedFunctionPointers)
TKRT_ABI_R0600(reserved)
TKRT_ABI_R0600(hipReserved)
TKRT_ABI_R0600(gcnArchName)
#endif

/* ---------------------------------------------------------------- entry points */

/* The prototypes (their parameters written with the header's types: see hip_api.h) against the
 * header's declarations; each type name they use is compared above. */
#define TKRT_ABI_FUNCTION(name, params)                                    \
  _Static_assert(TKRT_ABI_SAME(tkrt_abi_pfn_##name, __typeof__(&name)), \
                 "tkrt-abi: the prototype of " #name " differs from hip_runtime_api.h");
TKRT_HIP_FUNCTIONS_ROCM5(TKRT_ABI_FUNCTION)
#if HIP_VERSION >= 50300000
TKRT_HIP_FUNCTIONS_ROCM5_3(TKRT_ABI_FUNCTION)
#endif
#if HIP_VERSION_MAJOR >= 6
TKRT_HIP_FUNCTIONS_ROCM6(TKRT_ABI_FUNCTION)
#endif
_Static_assert(TKRT_ABI_SAME(tkrt_abi_tkrt_hip_pfn_hipGetErrorName, __typeof__(&hipGetErrorName)),
               "tkrt-abi: the prototype of hipGetErrorName differs from hip_runtime_api.h");
