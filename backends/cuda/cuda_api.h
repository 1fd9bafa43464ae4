/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt CUDA backend: the part of the CUDA driver API that the backend and its tests use, declared
 * here so that no build needs NVIDIA's headers (libcuda is opened at run time anyway). Written
 * from the CUDA Driver API reference and cuda.h / cudaTypedefs.h of CUDA 13.0 as facts of the
 * driver's ABI: type sizes, enumerator values, structure layouts and the prototype of each entry
 * point's ABI variant (PFN_<name>_v<version>, the names cudaTypedefs.h gives them).
 *
 * The ABI check (test/cuda/cuda_abi_check.c, CTest cuda.abi) compiles these declarations beside
 * cuda.h wherever it is installed and fails on any difference in a value, size, offset or
 * prototype. For that, every name below is written through TKRT_CU(name), which is the name itself
 * except when TKRT_ABI_CHECK is defined: then it is tkrt_abi_<name>, and the parameter lists of
 * the prototypes (written with the plain names) resolve to cuda.h's own types, so that a prototype
 * is compared as cuda.h spells it while each type name is compared on its own.
 *
 * Add a declaration here (and to the lists the check walks) before using a new part of the API. */
#ifndef TKRT_BACKENDS_CUDA_CUDA_API_H_
#define TKRT_BACKENDS_CUDA_CUDA_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef TKRT_ABI_CHECK
#define TKRT_CU(name) tkrt_abi_##name
#define TKRT_CU_ENUMERATOR_(name, value) tkrt_abi_##name = (value),
#else
#define TKRT_CU(name) name
#define TKRT_CU_ENUMERATOR_(name, value) name = (value),
#endif

/* The CUDA version whose driver API this file declares (cuda.h's CUDA_VERSION). cuGetProcAddress
 * is never asked for a newer version than this: a newer ABI variant of an entry point may have
 * another prototype (cuda_library.c). */
#define TKRT_CUDA_API_VERSION 13000

/* ---------------------------------------------------------------- types */

/* X(name, type): plain integer types. */
#define TKRT_CUDA_SCALAR_TYPES(X) \
  X(cuuint32_t, uint32_t)         \
  X(cuuint64_t, uint64_t)         \
  X(CUdevice, int)                \
  X(CUdeviceptr, unsigned long long)

/* X(name, struct tag): opaque handles, pointers to incomplete structures (cuda.h's tags). */
#define TKRT_CUDA_HANDLE_TYPES(X) \
  X(CUcontext, CUctx_st)          \
  X(CUmodule, CUmod_st)           \
  X(CUfunction, CUfunc_st)        \
  X(CUstream, CUstream_st)        \
  X(CUevent, CUevent_st)          \
  X(CUgraph, CUgraph_st)          \
  X(CUgraphExec, CUgraphExec_st)  \
  X(CUlinkState, CUlinkState_st)  \
  X(CUgreenCtx, CUgreenCtx_st)

#define TKRT_CU_SCALAR_TYPEDEF_(name, type) typedef type TKRT_CU(name);
#define TKRT_CU_HANDLE_TYPEDEF_(name, tag) typedef struct tag* TKRT_CU(name);
TKRT_CUDA_SCALAR_TYPES(TKRT_CU_SCALAR_TYPEDEF_)
TKRT_CUDA_HANDLE_TYPES(TKRT_CU_HANDLE_TYPEDEF_)
#undef TKRT_CU_SCALAR_TYPEDEF_
#undef TKRT_CU_HANDLE_TYPEDEF_

/* ---------------------------------------------------------------- enumerations
 * X(name, value). Each list is one cuda.h enumeration (its type named in the comment), or, for the
 * flag lists, enumerators and macros that cuda.h gives as plain numbers. */

/* CUresult: every value of CUDA 13.0 (cuda_status.c maps and names each). */
#define TKRT_CUDA_RESULTS(X)                         \
  X(CUDA_SUCCESS, 0)                                 \
  X(CUDA_ERROR_INVALID_VALUE, 1)                     \
  X(CUDA_ERROR_OUT_OF_MEMORY, 2)                     \
  X(CUDA_ERROR_NOT_INITIALIZED, 3)                   \
  X(CUDA_ERROR_DEINITIALIZED, 4)                     \
  X(CUDA_ERROR_PROFILER_DISABLED, 5)                 \
  X(CUDA_ERROR_PROFILER_NOT_INITIALIZED, 6)          \
  X(CUDA_ERROR_PROFILER_ALREADY_STARTED, 7)          \
  X(CUDA_ERROR_PROFILER_ALREADY_STOPPED, 8)          \
  X(CUDA_ERROR_STUB_LIBRARY, 34)                     \
  X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, 36)       \
  X(CUDA_ERROR_DEVICE_UNAVAILABLE, 46)               \
  X(CUDA_ERROR_NO_DEVICE, 100)                       \
  X(CUDA_ERROR_INVALID_DEVICE, 101)                  \
  X(CUDA_ERROR_DEVICE_NOT_LICENSED, 102)             \
  X(CUDA_ERROR_INVALID_IMAGE, 200)                   \
  X(CUDA_ERROR_INVALID_CONTEXT, 201)                 \
  X(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, 202)         \
  X(CUDA_ERROR_MAP_FAILED, 205)                      \
  X(CUDA_ERROR_UNMAP_FAILED, 206)                    \
  X(CUDA_ERROR_ARRAY_IS_MAPPED, 207)                 \
  X(CUDA_ERROR_ALREADY_MAPPED, 208)                  \
  X(CUDA_ERROR_NO_BINARY_FOR_GPU, 209)               \
  X(CUDA_ERROR_ALREADY_ACQUIRED, 210)                \
  X(CUDA_ERROR_NOT_MAPPED, 211)                      \
  X(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, 212)             \
  X(CUDA_ERROR_NOT_MAPPED_AS_POINTER, 213)           \
  X(CUDA_ERROR_ECC_UNCORRECTABLE, 214)               \
  X(CUDA_ERROR_UNSUPPORTED_LIMIT, 215)               \
  X(CUDA_ERROR_CONTEXT_ALREADY_IN_USE, 216)          \
  X(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, 217)         \
  X(CUDA_ERROR_INVALID_PTX, 218)                     \
  X(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, 219)        \
  X(CUDA_ERROR_NVLINK_UNCORRECTABLE, 220)            \
  X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, 221)          \
  X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222)         \
  X(CUDA_ERROR_JIT_COMPILATION_DISABLED, 223)        \
  X(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, 224)       \
  X(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, 225)        \
  X(CUDA_ERROR_CONTAINED, 226)                       \
  X(CUDA_ERROR_INVALID_SOURCE, 300)                  \
  X(CUDA_ERROR_FILE_NOT_FOUND, 301)                  \
  X(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, 302)  \
  X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, 303)       \
  X(CUDA_ERROR_OPERATING_SYSTEM, 304)                \
  X(CUDA_ERROR_INVALID_HANDLE, 400)                  \
  X(CUDA_ERROR_ILLEGAL_STATE, 401)                   \
  X(CUDA_ERROR_LOSSY_QUERY, 402)                     \
  X(CUDA_ERROR_NOT_FOUND, 500)                       \
  X(CUDA_ERROR_NOT_READY, 600)                       \
  X(CUDA_ERROR_ILLEGAL_ADDRESS, 700)                 \
  X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 701)         \
  X(CUDA_ERROR_LAUNCH_TIMEOUT, 702)                  \
  X(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, 703)   \
  X(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, 704)     \
  X(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, 705)         \
  X(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, 708)          \
  X(CUDA_ERROR_CONTEXT_IS_DESTROYED, 709)            \
  X(CUDA_ERROR_ASSERT, 710)                          \
  X(CUDA_ERROR_TOO_MANY_PEERS, 711)                  \
  X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, 712)  \
  X(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, 713)      \
  X(CUDA_ERROR_HARDWARE_STACK_ERROR, 714)            \
  X(CUDA_ERROR_ILLEGAL_INSTRUCTION, 715)             \
  X(CUDA_ERROR_MISALIGNED_ADDRESS, 716)              \
  X(CUDA_ERROR_INVALID_ADDRESS_SPACE, 717)           \
  X(CUDA_ERROR_INVALID_PC, 718)                      \
  X(CUDA_ERROR_LAUNCH_FAILED, 719)                   \
  X(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, 720)    \
  X(CUDA_ERROR_TENSOR_MEMORY_LEAK, 721)              \
  X(CUDA_ERROR_NOT_PERMITTED, 800)                   \
  X(CUDA_ERROR_NOT_SUPPORTED, 801)                   \
  X(CUDA_ERROR_SYSTEM_NOT_READY, 802)                \
  X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 803)          \
  X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804)  \
  X(CUDA_ERROR_MPS_CONNECTION_FAILED, 805)           \
  X(CUDA_ERROR_MPS_RPC_FAILURE, 806)                 \
  X(CUDA_ERROR_MPS_SERVER_NOT_READY, 807)            \
  X(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, 808)         \
  X(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED, 809)     \
  X(CUDA_ERROR_MPS_CLIENT_TERMINATED, 810)           \
  X(CUDA_ERROR_CDP_NOT_SUPPORTED, 811)               \
  X(CUDA_ERROR_CDP_VERSION_MISMATCH, 812)            \
  X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, 900)      \
  X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, 901)      \
  X(CUDA_ERROR_STREAM_CAPTURE_MERGE, 902)            \
  X(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, 903)        \
  X(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, 904)         \
  X(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, 905)        \
  X(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, 906)         \
  X(CUDA_ERROR_CAPTURED_EVENT, 907)                  \
  X(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, 908)     \
  X(CUDA_ERROR_TIMEOUT, 909)                         \
  X(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, 910)       \
  X(CUDA_ERROR_EXTERNAL_DEVICE, 911)                 \
  X(CUDA_ERROR_INVALID_CLUSTER_SIZE, 912)            \
  X(CUDA_ERROR_FUNCTION_NOT_LOADED, 913)             \
  X(CUDA_ERROR_INVALID_RESOURCE_TYPE, 914)           \
  X(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, 915)  \
  X(CUDA_ERROR_KEY_ROTATION, 916)                    \
  X(CUDA_ERROR_UNKNOWN, 999)

/* CUdevice_attribute: the attributes the backend and hip-over-cuda read. */
#define TKRT_CUDA_DEVICE_ATTRIBUTES(X)                        \
  X(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1)             \
  X(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 2)                   \
  X(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 3)                   \
  X(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 4)                   \
  X(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 5)                    \
  X(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 6)                    \
  X(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 7)                    \
  X(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 8)       \
  X(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, 9)             \
  X(CU_DEVICE_ATTRIBUTE_WARP_SIZE, 10)                        \
  X(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 12)          \
  X(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 13)                       \
  X(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 16)             \
  X(CU_DEVICE_ATTRIBUTE_INTEGRATED, 18)                       \
  X(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, 19)              \
  X(CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, 31)               \
  X(CU_DEVICE_ATTRIBUTE_ECC_ENABLED, 32)                      \
  X(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 33)                       \
  X(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, 34)                    \
  X(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 36)                \
  X(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 37)          \
  X(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 38)                    \
  X(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 39)   \
  X(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 41)               \
  X(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, 50)                    \
  X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 75)         \
  X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 76)         \
  X(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, 83)                   \
  X(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 95)               \
  X(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 97) \
  X(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 120)

/* CUfunction_attribute. */
#define TKRT_CUDA_FUNCTION_ATTRIBUTES(X)              \
  X(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0)       \
  X(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, 1)           \
  X(CU_FUNC_ATTRIBUTE_NUM_REGS, 4)                    \
  X(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 8)

/* CUjit_option. */
#define TKRT_CUDA_JIT_OPTIONS(X)              \
  X(CU_JIT_INFO_LOG_BUFFER, 3)                \
  X(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, 4)     \
  X(CU_JIT_ERROR_LOG_BUFFER, 5)               \
  X(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, 6)    \
  X(CU_JIT_TARGET, 9)                         \
  X(CU_JIT_LOG_VERBOSE, 12)

/* CUjitInputType. */
#define TKRT_CUDA_JIT_INPUT_TYPES(X) X(CU_JIT_INPUT_PTX, 1)

/* CUstreamCaptureStatus. */
#define TKRT_CUDA_CAPTURE_STATUSES(X)     \
  X(CU_STREAM_CAPTURE_STATUS_NONE, 0)     \
  X(CU_STREAM_CAPTURE_STATUS_ACTIVE, 1)   \
  X(CU_STREAM_CAPTURE_STATUS_INVALIDATED, 2)

/* CUstreamCaptureMode. */
#define TKRT_CUDA_CAPTURE_MODES(X)         \
  X(CU_STREAM_CAPTURE_MODE_GLOBAL, 0)      \
  X(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, 1) \
  X(CU_STREAM_CAPTURE_MODE_RELAXED, 2)

/* CUdriverProcAddressQueryResult. */
#define TKRT_CUDA_PROC_ADDRESS_RESULTS(X)        \
  X(CU_GET_PROC_ADDRESS_SUCCESS, 0)              \
  X(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, 1)     \
  X(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, 2)

/* CUlaunchAttributeID. */
#define TKRT_CUDA_LAUNCH_ATTRIBUTE_IDS(X)                        \
  X(CU_LAUNCH_ATTRIBUTE_COOPERATIVE, 2)                          \
  X(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, 4)                    \
  X(CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, 5) \
  X(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, 6)

/* CUclusterSchedulingPolicy. */
#define TKRT_CUDA_CLUSTER_POLICIES(X)       \
  X(CU_CLUSTER_SCHEDULING_POLICY_DEFAULT, 0) \
  X(CU_CLUSTER_SCHEDULING_POLICY_SPREAD, 1)

/* CUtensorMapDataType: 0..12 are the types the backend encodes (cuda_launch.c sizes them). */
#define TKRT_CUDA_TENSOR_MAP_DATA_TYPES(X)        \
  X(CU_TENSOR_MAP_DATA_TYPE_UINT8, 0)             \
  X(CU_TENSOR_MAP_DATA_TYPE_UINT16, 1)            \
  X(CU_TENSOR_MAP_DATA_TYPE_UINT32, 2)            \
  X(CU_TENSOR_MAP_DATA_TYPE_INT32, 3)             \
  X(CU_TENSOR_MAP_DATA_TYPE_UINT64, 4)            \
  X(CU_TENSOR_MAP_DATA_TYPE_INT64, 5)             \
  X(CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 6)           \
  X(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 7)           \
  X(CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 8)           \
  X(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 9)          \
  X(CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ, 10)      \
  X(CU_TENSOR_MAP_DATA_TYPE_TFLOAT32, 11)         \
  X(CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ, 12)

/* CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill. */
#define TKRT_CUDA_TENSOR_MAP_INTERLEAVES(X) X(CU_TENSOR_MAP_INTERLEAVE_NONE, 0)
#define TKRT_CUDA_TENSOR_MAP_SWIZZLES(X) \
  X(CU_TENSOR_MAP_SWIZZLE_NONE, 0)       \
  X(CU_TENSOR_MAP_SWIZZLE_32B, 1)        \
  X(CU_TENSOR_MAP_SWIZZLE_64B, 2)        \
  X(CU_TENSOR_MAP_SWIZZLE_128B, 3)
#define TKRT_CUDA_TENSOR_MAP_L2_PROMOTIONS(X) X(CU_TENSOR_MAP_L2_PROMOTION_L2_128B, 2)
#define TKRT_CUDA_TENSOR_MAP_OOB_FILLS(X)   \
  X(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, 0) \
  X(CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA, 1)

/* Flags and numbers: CUstream_flags, CUevent_flags, CUdriverProcAddress_flags (enumerators in
 * cuda.h), cuMemHostAlloc's flags, the JIT's accelerated-target offset, the tensor map's size in
 * 64-bit words and the cuLaunchKernel `extra` markers' integer values (macros in cuda.h). */
#define TKRT_CUDA_FLAGS(X)                     \
  X(CU_STREAM_DEFAULT, 0x0)                    \
  X(CU_STREAM_NON_BLOCKING, 0x1)               \
  X(CU_EVENT_DEFAULT, 0x0)                     \
  X(CU_EVENT_BLOCKING_SYNC, 0x1)               \
  X(CU_EVENT_DISABLE_TIMING, 0x2)              \
  X(CU_EVENT_INTERPROCESS, 0x4)                \
  X(CU_GET_PROC_ADDRESS_DEFAULT, 0)            \
  X(CU_GET_PROC_ADDRESS_LEGACY_STREAM, 1)      \
  X(CU_MEMHOSTALLOC_PORTABLE, 0x01)            \
  X(CU_MEMHOSTALLOC_DEVICEMAP, 0x02)           \
  X(CU_COMPUTE_ACCELERATED_TARGET_BASE, 0x10000) \
  X(CU_TENSOR_MAP_NUM_QWORDS, 16)              \
  X(CU_LAUNCH_PARAM_END_AS_INT, 0x00)          \
  X(CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT, 0x01) \
  X(CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT, 0x02)

/* X(type name, enum tag, list): the enumerated types and their lists. */
#define TKRT_CUDA_ENUM_TYPES(X)                                                        \
  X(CUresult, cudaError_enum, TKRT_CUDA_RESULTS)                                       \
  X(CUdevice_attribute, CUdevice_attribute_enum, TKRT_CUDA_DEVICE_ATTRIBUTES)          \
  X(CUfunction_attribute, CUfunction_attribute_enum, TKRT_CUDA_FUNCTION_ATTRIBUTES)    \
  X(CUjit_option, CUjit_option_enum, TKRT_CUDA_JIT_OPTIONS)                            \
  X(CUjitInputType, CUjitInputType_enum, TKRT_CUDA_JIT_INPUT_TYPES)                    \
  X(CUstreamCaptureStatus, CUstreamCaptureStatus_enum, TKRT_CUDA_CAPTURE_STATUSES)     \
  X(CUstreamCaptureMode, CUstreamCaptureMode_enum, TKRT_CUDA_CAPTURE_MODES)            \
  X(CUdriverProcAddressQueryResult, CUdriverProcAddressQueryResult_enum,               \
    TKRT_CUDA_PROC_ADDRESS_RESULTS)                                                    \
  X(CUlaunchAttributeID, CUlaunchAttributeID_enum, TKRT_CUDA_LAUNCH_ATTRIBUTE_IDS)     \
  X(CUclusterSchedulingPolicy, CUclusterSchedulingPolicy_enum, TKRT_CUDA_CLUSTER_POLICIES) \
  X(CUtensorMapDataType, CUtensorMapDataType_enum, TKRT_CUDA_TENSOR_MAP_DATA_TYPES)    \
  X(CUtensorMapInterleave, CUtensorMapInterleave_enum, TKRT_CUDA_TENSOR_MAP_INTERLEAVES) \
  X(CUtensorMapSwizzle, CUtensorMapSwizzle_enum, TKRT_CUDA_TENSOR_MAP_SWIZZLES)        \
  X(CUtensorMapL2promotion, CUtensorMapL2promotion_enum, TKRT_CUDA_TENSOR_MAP_L2_PROMOTIONS) \
  X(CUtensorMapFloatOOBfill, CUtensorMapFloatOOBfill_enum, TKRT_CUDA_TENSOR_MAP_OOB_FILLS)

#define TKRT_CU_ENUM_TYPEDEF_(name, tag, list) \
  typedef enum TKRT_CU(tag) { list(TKRT_CU_ENUMERATOR_) } TKRT_CU(name);
TKRT_CUDA_ENUM_TYPES(TKRT_CU_ENUM_TYPEDEF_)
#undef TKRT_CU_ENUM_TYPEDEF_
enum { TKRT_CUDA_FLAGS(TKRT_CU_ENUMERATOR_) };

#ifndef TKRT_ABI_CHECK
/* cuLaunchKernel's `extra` markers are pointers with these values. */
#define CU_LAUNCH_PARAM_END ((void*)(uintptr_t)CU_LAUNCH_PARAM_END_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void*)(uintptr_t)CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void*)(uintptr_t)CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT)
#endif

/* ---------------------------------------------------------------- structures */

/* CUlaunchAttributeValue: a 64-byte union; the members tkrt sets, and one with a pointer, which
 * gives the union (and CUlaunchAttribute) cuda.h's 8-byte alignment. */
typedef union TKRT_CU(CUlaunchAttributeValue_union) {
  char pad[64];
  int cooperative;
  struct {
    TKRT_CU(CUevent) event;
    int flags;
    int triggerAtBlockStart;
  } programmaticEvent;
  struct {
    unsigned int x;
    unsigned int y;
    unsigned int z;
  } clusterDim;
  TKRT_CU(CUclusterSchedulingPolicy) clusterSchedulingPolicyPreference;
  int programmaticStreamSerializationAllowed;
} TKRT_CU(CUlaunchAttributeValue);

typedef struct TKRT_CU(CUlaunchAttribute_st) {
  TKRT_CU(CUlaunchAttributeID) id;
  char pad[8 - sizeof(TKRT_CU(CUlaunchAttributeID))];
  TKRT_CU(CUlaunchAttributeValue) value;
} TKRT_CU(CUlaunchAttribute);

typedef struct TKRT_CU(CUlaunchConfig_st) {
  unsigned int gridDimX;
  unsigned int gridDimY;
  unsigned int gridDimZ;
  unsigned int blockDimX;
  unsigned int blockDimY;
  unsigned int blockDimZ;
  unsigned int sharedMemBytes;
  TKRT_CU(CUstream) hStream;
  TKRT_CU(CUlaunchAttribute) * attrs;
  unsigned int numAttrs;
} TKRT_CU(CUlaunchConfig);

/* An opaque 128-byte descriptor, aligned to 128 bytes as cuda.h 13 declares it (12: 64). */
typedef struct TKRT_CU(CUtensorMap_st) {
  _Alignas(128) TKRT_CU(cuuint64_t) opaque[16];
} TKRT_CU(CUtensorMap);

/* ---------------------------------------------------------------- entry points
 * X(name, abi, parameters): the prototype of ABI variant `abi` of each entry point, as
 * PFN_<name>_v<abi>. Every one returns CUresult. */
#define TKRT_CUDA_FUNCTIONS(X)                                                                    \
  X(cuGetProcAddress, 12000,                                                                      \
    (const char* symbol, void** pfn, int driverVersion, cuuint64_t flags,                         \
     CUdriverProcAddressQueryResult* symbolFound))                                                \
  X(cuDriverGetVersion, 2020, (int* driverVersion))                                               \
  X(cuGetErrorName, 6000, (CUresult error, const char** pStr))                                    \
  X(cuGetErrorString, 6000, (CUresult error, const char** pStr))                                  \
  X(cuInit, 2000, (unsigned int Flags))                                                           \
  X(cuDeviceGet, 2000, (CUdevice * device, int ordinal))                                          \
  X(cuDeviceGetCount, 2000, (int* count))                                                         \
  X(cuDeviceGetName, 2000, (char* name, int len, CUdevice dev))                                   \
  X(cuDeviceGetAttribute, 2000, (int* pi, CUdevice_attribute attrib, CUdevice dev))               \
  X(cuDeviceTotalMem, 3020, (size_t * bytes, CUdevice dev))                                       \
  X(cuDevicePrimaryCtxRetain, 7000, (CUcontext * pctx, CUdevice dev))                             \
  X(cuDevicePrimaryCtxRelease, 11000, (CUdevice dev))                                             \
  X(cuCtxGetCurrent, 4000, (CUcontext * pctx))                                                    \
  X(cuCtxSetCurrent, 4000, (CUcontext ctx))                                                       \
  X(cuModuleLoadData, 2000, (CUmodule * module, const void* image))                               \
  X(cuModuleUnload, 2000, (CUmodule hmod))                                                        \
  X(cuModuleGetFunction, 2000, (CUfunction * hfunc, CUmodule hmod, const char* name))             \
  X(cuFuncGetAttribute, 2020, (int* pi, CUfunction_attribute attrib, CUfunction hfunc))           \
  X(cuFuncSetAttribute, 9000, (CUfunction hfunc, CUfunction_attribute attrib, int value))         \
  X(cuLinkCreate, 6050,                                                                           \
    (unsigned int numOptions, CUjit_option* options, void** optionValues, CUlinkState* stateOut)) \
  X(cuLinkAddData, 6050,                                                                          \
    (CUlinkState state, CUjitInputType type, void* data, size_t size, const char* name,           \
     unsigned int numOptions, CUjit_option* options, void** optionValues))                        \
  X(cuLinkComplete, 5050, (CUlinkState state, void** cubinOut, size_t* sizeOut))                  \
  X(cuLinkDestroy, 5050, (CUlinkState state))                                                     \
  X(cuLaunchKernel, 4000,                                                                         \
    (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,           \
     unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,                      \
     unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra))           \
  X(cuLaunchCooperativeKernel, 9000,                                                              \
    (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,           \
     unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,                      \
     unsigned int sharedMemBytes, CUstream hStream, void** kernelParams))                         \
  X(cuLaunchKernelEx, 11060,                                                                      \
    (const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra))              \
  X(cuTensorMapEncodeTiled, 12000,                                                                \
    (CUtensorMap * tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,          \
     void* globalAddress, const cuuint64_t* globalDim, const cuuint64_t* globalStrides,           \
     const cuuint32_t* boxDim, const cuuint32_t* elementStrides, CUtensorMapInterleave interleave, \
     CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,                              \
     CUtensorMapFloatOOBfill oobFill))                                                            \
  X(cuMemAlloc, 3020, (CUdeviceptr * dptr, size_t bytesize))                                      \
  X(cuMemFree, 3020, (CUdeviceptr dptr))                                                          \
  X(cuMemHostAlloc, 2020, (void** pp, size_t bytesize, unsigned int Flags))                       \
  X(cuMemFreeHost, 2000, (void* p))                                                               \
  X(cuMemGetInfo, 3020, (size_t * free, size_t* total))                                           \
  X(cuMemsetD8Async, 3020,                                                                        \
    (CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream))                        \
  X(cuMemcpyHtoDAsync, 3020,                                                                      \
    (CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, CUstream hStream))             \
  X(cuMemcpyDtoHAsync, 3020,                                                                      \
    (void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream))                   \
  X(cuMemcpyDtoDAsync, 3020,                                                                      \
    (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream))           \
  X(cuStreamCreate, 2000, (CUstream * phStream, unsigned int Flags))                              \
  X(cuStreamDestroy, 4000, (CUstream hStream))                                                    \
  X(cuStreamSynchronize, 2000, (CUstream hStream))                                                \
  X(cuCtxSynchronize, 13000, (CUcontext ctx))                                                     \
  X(cuStreamIsCapturing, 10000, (CUstream hStream, CUstreamCaptureStatus * captureStatus))        \
  X(cuStreamGetDevice, 12080, (CUstream hStream, CUdevice * device))                              \
  X(cuStreamGetCtx, 12050, (CUstream hStream, CUcontext * pctx, CUgreenCtx * pGreenCtx))          \
  X(cuStreamBeginCapture, 10010, (CUstream hStream, CUstreamCaptureMode mode))                    \
  X(cuStreamEndCapture, 10000, (CUstream hStream, CUgraph * phGraph))                             \
  X(cuGraphInstantiateWithFlags, 11040,                                                           \
    (CUgraphExec * phGraphExec, CUgraph hGraph, unsigned long long flags))                        \
  X(cuGraphDestroy, 10000, (CUgraph hGraph))                                                      \
  X(cuGraphLaunch, 10000, (CUgraphExec hGraph, CUstream hStream))                                 \
  X(cuGraphExecDestroy, 10000, (CUgraphExec hGraphExec))                                          \
  X(cuEventCreate, 2000, (CUevent * phEvent, unsigned int Flags))                                 \
  X(cuEventDestroy, 4000, (CUevent hEvent))                                                       \
  X(cuEventRecord, 2000, (CUevent hEvent, CUstream hStream))                                      \
  X(cuEventSynchronize, 2000, (CUevent hEvent))                                                   \
  X(cuEventElapsedTime, 2000, (float* pMilliseconds, CUevent hStart, CUevent hEnd))

/* (The names are pasted right here: cuda.h makes macros of some entry points' names.) */
#ifdef TKRT_ABI_CHECK
#define TKRT_CU_PFN_TYPEDEF_(name, abi, params) \
  typedef CUresult (*tkrt_abi_PFN_##name##_v##abi) params;
#else
#define TKRT_CU_PFN_TYPEDEF_(name, abi, params) typedef CUresult (*PFN_##name##_v##abi) params;
#endif
TKRT_CUDA_FUNCTIONS(TKRT_CU_PFN_TYPEDEF_)
/* Entry points taken by their exported name rather than through cuGetProcAddress, with the
 * prototype that name keeps (E(name, abi, params), not X: the check's generator of later variants
 * reads only X lines, and a name's prototype never changes). cuCtxSynchronize: cuGetProcAddress
 * gives variant 13000 (taking the context) for version 13.0 and later, and drivers before 13.0
 * have only this one (cuda_symbols.h). */
#define TKRT_CUDA_EXPORTED_FUNCTIONS(E) E(cuCtxSynchronize, 2000, (void))
TKRT_CUDA_EXPORTED_FUNCTIONS(TKRT_CU_PFN_TYPEDEF_)
#undef TKRT_CU_PFN_TYPEDEF_

#endif /* TKRT_BACKENDS_CUDA_CUDA_API_H_ */
