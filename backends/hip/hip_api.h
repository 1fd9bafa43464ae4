/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt HIP backend: the part of the HIP runtime API (hip/hip_runtime_api.h) that the backend, its
 * tests and hip-over-cuda (test/hip/over_cuda) use, declared here so that no build needs ROCm's
 * headers (libamdhip64 is opened at run time anyway). Written from the HIP API reference and the
 * ROCm 5 to 7 headers as facts of the runtime's C ABI, which is the same for everything below from
 * ROCm 5.0 to 7 except where a comment says otherwise: type sizes, enumerator values, the two
 * hipDeviceProp_t layouts, and the prototype of every entry point (hip_symbols.h lists them).
 *
 * The ABI check (test/hip/hip_abi_check.c, CTest hip.abi) compiles these declarations beside
 * hip/hip_runtime_api.h wherever it is installed and fails on any difference in a value, size,
 * offset or prototype. For that, every name below is written through TKRT_HIP(name), which is the
 * name itself except when TKRT_ABI_CHECK is defined: then it is tkrt_abi_<name>, and the parameter
 * lists of the prototypes (written with the plain names) resolve to the header's own types.
 *
 * Add a declaration here (and to the lists the check walks) before using a new part of the API. */
#ifndef TKRT_BACKENDS_HIP_HIP_API_H_
#define TKRT_BACKENDS_HIP_HIP_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef TKRT_ABI_CHECK
#define TKRT_HIP(name) tkrt_abi_##name
#define TKRT_HIP_ENUMERATOR_(name, value) tkrt_abi_##name = (value),
#else
#define TKRT_HIP(name) name
#define TKRT_HIP_ENUMERATOR_(name, value) name = (value),
#endif

/* ---------------------------------------------------------------- types */

/* X(name, type): plain types. */
#define TKRT_HIP_SCALAR_TYPES(X) \
  X(hipDevice_t, int)            \
  X(hipDeviceptr_t, void*)

/* X(name, struct tag): opaque handles, pointers to incomplete structures (the header's tags;
 * hip-over-cuda completes two of them). */
#define TKRT_HIP_HANDLE_TYPES(X)         \
  X(hipStream_t, ihipStream_t)           \
  X(hipModule_t, ihipModule_t)           \
  X(hipFunction_t, ihipModuleSymbol_t)   \
  X(hipEvent_t, ihipEvent_t)             \
  X(hipGraph_t, ihipGraph)               \
  X(hipGraphExec_t, hipGraphExec)

#define TKRT_HIP_SCALAR_TYPEDEF_(name, type) typedef type TKRT_HIP(name);
#define TKRT_HIP_HANDLE_TYPEDEF_(name, tag) typedef struct tag* TKRT_HIP(name);
TKRT_HIP_SCALAR_TYPES(TKRT_HIP_SCALAR_TYPEDEF_)
TKRT_HIP_HANDLE_TYPES(TKRT_HIP_HANDLE_TYPEDEF_)
#undef TKRT_HIP_SCALAR_TYPEDEF_
#undef TKRT_HIP_HANDLE_TYPEDEF_

/* ---------------------------------------------------------------- enumerations: X(name, value) */

/* hipError_t: the values tkrt and hip-over-cuda name (hip_status.c maps numbers, including a few
 * newer ones this list leaves out). */
#define TKRT_HIP_ERRORS(X)                       \
  X(hipSuccess, 0)                               \
  X(hipErrorInvalidValue, 1)                     \
  X(hipErrorOutOfMemory, 2)                      \
  X(hipErrorNotInitialized, 3)                   \
  X(hipErrorDeinitialized, 4)                    \
  X(hipErrorProfilerDisabled, 5)                 \
  X(hipErrorProfilerNotInitialized, 6)           \
  X(hipErrorProfilerAlreadyStarted, 7)           \
  X(hipErrorProfilerAlreadyStopped, 8)           \
  X(hipErrorInvalidConfiguration, 9)             \
  X(hipErrorInvalidPitchValue, 12)               \
  X(hipErrorInvalidSymbol, 13)                   \
  X(hipErrorInvalidDevicePointer, 17)            \
  X(hipErrorInvalidMemcpyDirection, 21)          \
  X(hipErrorInsufficientDriver, 35)              \
  X(hipErrorMissingConfiguration, 52)            \
  X(hipErrorPriorLaunchFailure, 53)              \
  X(hipErrorInvalidDeviceFunction, 98)           \
  X(hipErrorNoDevice, 100)                       \
  X(hipErrorInvalidDevice, 101)                  \
  X(hipErrorInvalidImage, 200)                   \
  X(hipErrorInvalidContext, 201)                 \
  X(hipErrorContextAlreadyCurrent, 202)          \
  X(hipErrorMapFailed, 205)                      \
  X(hipErrorUnmapFailed, 206)                    \
  X(hipErrorArrayIsMapped, 207)                  \
  X(hipErrorAlreadyMapped, 208)                  \
  X(hipErrorNoBinaryForGpu, 209)                 \
  X(hipErrorAlreadyAcquired, 210)                \
  X(hipErrorNotMapped, 211)                      \
  X(hipErrorNotMappedAsArray, 212)               \
  X(hipErrorNotMappedAsPointer, 213)             \
  X(hipErrorECCNotCorrectable, 214)              \
  X(hipErrorUnsupportedLimit, 215)               \
  X(hipErrorContextAlreadyInUse, 216)            \
  X(hipErrorPeerAccessUnsupported, 217)          \
  X(hipErrorInvalidKernelFile, 218)              \
  X(hipErrorInvalidGraphicsContext, 219)         \
  X(hipErrorInvalidSource, 300)                  \
  X(hipErrorFileNotFound, 301)                   \
  X(hipErrorSharedObjectSymbolNotFound, 302)     \
  X(hipErrorSharedObjectInitFailed, 303)         \
  X(hipErrorOperatingSystem, 304)                \
  X(hipErrorInvalidHandle, 400)                  \
  X(hipErrorIllegalState, 401)                   \
  X(hipErrorNotFound, 500)                       \
  X(hipErrorNotReady, 600)                       \
  X(hipErrorIllegalAddress, 700)                 \
  X(hipErrorLaunchOutOfResources, 701)           \
  X(hipErrorLaunchTimeOut, 702)                  \
  X(hipErrorPeerAccessAlreadyEnabled, 704)       \
  X(hipErrorPeerAccessNotEnabled, 705)           \
  X(hipErrorSetOnActiveProcess, 708)             \
  X(hipErrorContextIsDestroyed, 709)             \
  X(hipErrorAssert, 710)                         \
  X(hipErrorHostMemoryAlreadyRegistered, 712)    \
  X(hipErrorHostMemoryNotRegistered, 713)        \
  X(hipErrorLaunchFailure, 719)                  \
  X(hipErrorCooperativeLaunchTooLarge, 720)      \
  X(hipErrorNotSupported, 801)                   \
  X(hipErrorStreamCaptureUnsupported, 900)       \
  X(hipErrorStreamCaptureInvalidated, 901)       \
  X(hipErrorStreamCaptureMerge, 902)             \
  X(hipErrorStreamCaptureUnmatched, 903)         \
  X(hipErrorStreamCaptureUnjoined, 904)          \
  X(hipErrorStreamCaptureIsolation, 905)         \
  X(hipErrorStreamCaptureImplicit, 906)          \
  X(hipErrorCapturedEvent, 907)                  \
  X(hipErrorStreamCaptureWrongThread, 908)       \
  X(hipErrorGraphExecUpdateFailure, 910)         \
  X(hipErrorRuntimeMemory, 1052)                 \
  X(hipErrorRuntimeOther, 1053)                  \
  X(hipErrorUnknown, 999)

/* hipDeviceAttribute_t: renumbered once, before ROCm 5.0 (CUDA-compatible attributes from 0, AMD
 * ones from 10000); since then entries are only appended, and ROCm 6 turned removed ones into
 * hipDeviceAttributeUnused1..5 to keep every later value in place (hip_device.c). */
#define TKRT_HIP_DEVICE_ATTRIBUTES(X)                  \
  X(hipDeviceAttributeEccEnabled, 0)                   \
  X(hipDeviceAttributeCanMapHostMemory, 3)             \
  X(hipDeviceAttributeClockRate, 5)                    \
  X(hipDeviceAttributeConcurrentKernels, 8)            \
  X(hipDeviceAttributeCooperativeLaunch, 10)           \
  X(hipDeviceAttributeIntegrated, 16)                  \
  X(hipDeviceAttributeL2CacheSize, 19)                 \
  X(hipDeviceAttributeComputeCapabilityMajor, 23)      \
  X(hipDeviceAttributeManagedMemory, 24)               \
  X(hipDeviceAttributeMaxBlockDimX, 26)                \
  X(hipDeviceAttributeMaxBlockDimY, 27)                \
  X(hipDeviceAttributeMaxBlockDimZ, 28)                \
  X(hipDeviceAttributeMaxGridDimX, 29)                 \
  X(hipDeviceAttributeMaxGridDimY, 30)                 \
  X(hipDeviceAttributeMaxGridDimZ, 31)                 \
  X(hipDeviceAttributeMaxThreadsPerBlock, 56)          \
  X(hipDeviceAttributeMaxThreadsPerMultiProcessor, 57) \
  X(hipDeviceAttributeMemoryBusWidth, 59)              \
  X(hipDeviceAttributeMemoryClockRate, 60)             \
  X(hipDeviceAttributeComputeCapabilityMinor, 61)      \
  X(hipDeviceAttributeMultiprocessorCount, 63)         \
  X(hipDeviceAttributePciBusId, 67)                    \
  X(hipDeviceAttributePciDeviceId, 68)                 \
  X(hipDeviceAttributePciDomainID, 69)                 \
  X(hipDeviceAttributeMaxRegistersPerBlock, 71)        \
  X(hipDeviceAttributeMaxSharedMemoryPerBlock, 74)     \
  X(hipDeviceAttributeSharedMemPerBlockOptin, 75)      \
  X(hipDeviceAttributeTotalConstantMemory, 83)         \
  X(hipDeviceAttributeUnifiedAddressing, 85)           \
  X(hipDeviceAttributeWarpSize, 87)

/* hipFunction_attribute: CUDA's CUfunction_attribute numbering. */
#define TKRT_HIP_FUNCTION_ATTRIBUTES(X)               \
  X(HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0)      \
  X(HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, 1)          \
  X(HIP_FUNC_ATTRIBUTE_NUM_REGS, 4)                   \
  X(HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 8)

/* hipStreamCaptureStatus, hipStreamCaptureMode. */
#define TKRT_HIP_CAPTURE_STATUSES(X)   \
  X(hipStreamCaptureStatusNone, 0)     \
  X(hipStreamCaptureStatusActive, 1)   \
  X(hipStreamCaptureStatusInvalidated, 2)
#define TKRT_HIP_CAPTURE_MODES(X)      \
  X(hipStreamCaptureModeGlobal, 0)     \
  X(hipStreamCaptureModeThreadLocal, 1) \
  X(hipStreamCaptureModeRelaxed, 2)

/* Flags (macros in the header): hipStreamCreateWithFlags, hipEventCreateWithFlags, hipHostMalloc;
 * and the integer values of hipModuleLaunchKernel's `extra` markers (HIP_LAUNCH_PARAM_*, pointers
 * in the header, with these values). */
#define TKRT_HIP_FLAGS(X)                          \
  X(hipStreamDefault, 0x0)                         \
  X(hipStreamNonBlocking, 0x1)                     \
  X(hipEventDefault, 0x0)                          \
  X(hipEventBlockingSync, 0x1)                     \
  X(hipEventDisableTiming, 0x2)                    \
  X(hipEventInterprocess, 0x4)                     \
  X(hipHostMallocDefault, 0x0)                     \
  X(hipHostMallocPortable, 0x1)                    \
  X(hipHostMallocMapped, 0x2)
#define TKRT_HIP_LAUNCH_PARAMS(X)                  \
  X(HIP_LAUNCH_PARAM_BUFFER_POINTER, 0x01)         \
  X(HIP_LAUNCH_PARAM_BUFFER_SIZE, 0x02)            \
  X(HIP_LAUNCH_PARAM_END, 0x03)

/* X(type name, enum tag, list). */
#define TKRT_HIP_ENUM_TYPES(X)                                                          \
  X(hipError_t, hipError_t, TKRT_HIP_ERRORS)                                            \
  X(hipDeviceAttribute_t, hipDeviceAttribute_t, TKRT_HIP_DEVICE_ATTRIBUTES)             \
  X(hipFunction_attribute, hipFunction_attribute, TKRT_HIP_FUNCTION_ATTRIBUTES)         \
  X(hipStreamCaptureStatus, hipStreamCaptureStatus, TKRT_HIP_CAPTURE_STATUSES)          \
  X(hipStreamCaptureMode, hipStreamCaptureMode, TKRT_HIP_CAPTURE_MODES)

#define TKRT_HIP_ENUM_TYPEDEF_(name, tag, list) \
  typedef enum TKRT_HIP(tag) { list(TKRT_HIP_ENUMERATOR_) } TKRT_HIP(name);
TKRT_HIP_ENUM_TYPES(TKRT_HIP_ENUM_TYPEDEF_)
#undef TKRT_HIP_ENUM_TYPEDEF_
enum { TKRT_HIP_FLAGS(TKRT_HIP_ENUMERATOR_) };

#ifndef TKRT_ABI_CHECK
#define HIP_LAUNCH_PARAM_BUFFER_POINTER ((void*)(uintptr_t)0x01)
#define HIP_LAUNCH_PARAM_BUFFER_SIZE ((void*)(uintptr_t)0x02)
#define HIP_LAUNCH_PARAM_END ((void*)(uintptr_t)0x03)
#endif

/* ---------------------------------------------------------------- hipDeviceProp_t
 * Two layouts. The entry point names the one it fills: hipGetDeviceProperties the ROCm 5 one (the
 * hipDeviceProp_t of ROCm 5 headers, which ROCm 6 renamed hipDeviceProp_tR0000 and keeps for old
 * binaries), hipGetDevicePropertiesR0600 the ROCm 6 and 7 one (new fields in the middle). */

/* hipDeviceArch_t: 17 one-bit feature flags in one unsigned int. */
typedef struct TKRT_HIP(hipDeviceArch_t) {
  unsigned int flags;
} TKRT_HIP(hipDeviceArch_t);

/* The ROCm 5 layout, whole (hip-over-cuda fills all of it). */
typedef struct TKRT_HIP(hipDeviceProp_tR0000) {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  int memoryClockRate;
  int memoryBusWidth;
  size_t totalConstMem;
  int major;
  int minor;
  int multiProcessorCount;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  int computeMode;
  int clockInstructionRate;
  TKRT_HIP(hipDeviceArch_t) arch;
  int concurrentKernels;
  int pciDomainID;
  int pciBusID;
  int pciDeviceID;
  size_t maxSharedMemoryPerMultiProcessor;
  int isMultiGpuBoard;
  int canMapHostMemory;
  int gcnArch;
  char gcnArchName[256];
  int integrated;
  int cooperativeLaunch;
  int cooperativeMultiDeviceLaunch;
  int maxTexture1DLinear;
  int maxTexture1D;
  int maxTexture2D[2];
  int maxTexture3D[3];
  unsigned int* hdpMemFlushCntl;
  unsigned int* hdpRegFlushCntl;
  size_t memPitch;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int kernelExecTimeoutEnabled;
  int ECCEnabled;
  int tccDriver;
  int cooperativeMultiDeviceUnmatchedFunc;
  int cooperativeMultiDeviceUnmatchedGridDim;
  int cooperativeMultiDeviceUnmatchedBlockDim;
  int cooperativeMultiDeviceUnmatchedSharedMem;
  int isLargeBar;
  int asicRevision;
  int managedMemory;
  int directManagedMemAccessFromHost;
  int concurrentManagedAccess;
  int pageableMemoryAccess;
  int pageableMemoryAccessUsesHostPageTables;
} TKRT_HIP(hipDeviceProp_tR0000);

/* The ROCm 6 and 7 layout (hipDeviceProp_tR0600) up to and including gcnArchName, the last field
 * tkrt reads; the real structure goes on (the backend reads into a far larger buffer, and
 * hip-over-cuda writes only this much). */
typedef struct TKRT_HIP(hipDeviceProp_tR0600) {
  char name[256];
  char uuid[16];
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem, sharedMemPerBlock;
  int regsPerBlock, warpSize;
  size_t memPitch;
  int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
  size_t totalConstMem;
  int major, minor;
  size_t textureAlignment, texturePitchAlignment;
  int deviceOverlap, multiProcessorCount, kernelExecTimeoutEnabled, integrated, canMapHostMemory,
      computeMode, maxTexture1D, maxTexture1DMipmap, maxTexture1DLinear, maxTexture2D[2],
      maxTexture2DMipmap[2], maxTexture2DLinear[3], maxTexture2DGather[2], maxTexture3D[3],
      maxTexture3DAlt[3], maxTextureCubemap, maxTexture1DLayered[2], maxTexture2DLayered[3],
      maxTextureCubemapLayered[2], maxSurface1D, maxSurface2D[2], maxSurface3D[3],
      maxSurface1DLayered[2], maxSurface2DLayered[3], maxSurfaceCubemap,
      maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, tccDriver,
      asyncEngineCount, unifiedAddressing, memoryClockRate, memoryBusWidth, l2CacheSize,
      persistingL2CacheMaxSize, maxThreadsPerMultiProcessor, streamPrioritiesSupported,
      globalL1CacheSupported, localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID,
      hostNativeAtomicSupported, singleToDoublePrecisionPerfRatio, pageableMemoryAccess,
      concurrentManagedAccess, computePreemptionSupported, canUseHostPointerForRegisteredMem,
      cooperativeLaunch, cooperativeMultiDeviceLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost,
      maxBlocksPerMultiProcessor, accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported, sparseHipArraySupported, hostRegisterReadOnlySupported,
      timelineSemaphoreInteropSupported, memoryPoolsSupported, gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingHipArraySupported, ipcEventSupported, clusterLaunch, unifiedFunctionPointers;
  int reserved[63];
  int hipReserved[32];
  char gcnArchName[256];
} TKRT_HIP(hipDeviceProp_tR0600);

/* ROCm 6's header puts these two fields, the ones tkrt reads, here; the ABI check compares the
 * whole prefix with a ROCm 6 or newer header where one is installed. */
_Static_assert(offsetof(TKRT_HIP(hipDeviceProp_tR0600), warpSize) == 308, "R0600 layout");
_Static_assert(offsetof(TKRT_HIP(hipDeviceProp_tR0600), gcnArchName) == 1160, "R0600 layout");

/* ---------------------------------------------------------------- entry points
 * X(name, parameters): every one returns hipError_t except hipGetErrorName (declared apart). The
 * lists split by the ROCm headers that first declare an entry: the ABI check compares each one
 * with the installed header that has it. */
#define TKRT_HIP_FUNCTIONS_ROCM5(X)                                                               \
  X(hipInit, (unsigned int flags))                                                                \
  X(hipGetDeviceCount, (int* count))                                                              \
  X(hipRuntimeGetVersion, (int* runtimeVersion))                                                  \
  X(hipDriverGetVersion, (int* driverVersion))                                                    \
  X(hipGetDevice, (int* deviceId))                                                                \
  X(hipSetDevice, (int deviceId))                                                                 \
  X(hipDeviceGetAttribute, (int* pi, hipDeviceAttribute_t attr, int deviceId))                   \
  X(hipDeviceGetName, (char* name, int len, hipDevice_t device))                                  \
  X(hipDeviceTotalMem, (size_t * bytes, hipDevice_t device))                                      \
  X(hipGetDeviceProperties, (hipDeviceProp_tR0000 * prop, int deviceId))                          \
  X(hipModuleLoadData, (hipModule_t * module, const void* image))                                 \
  X(hipModuleUnload, (hipModule_t module))                                                        \
  X(hipModuleGetFunction, (hipFunction_t * function, hipModule_t module, const char* kname))      \
  X(hipFuncGetAttribute, (int* value, hipFunction_attribute attrib, hipFunction_t hfunc))         \
  X(hipModuleLaunchKernel,                                                                        \
    (hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,        \
     unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,                      \
     unsigned int sharedMemBytes, hipStream_t stream, void** kernelParams, void** extra))         \
  X(hipMalloc, (void** ptr, size_t size))                                                         \
  X(hipFree, (void* ptr))                                                                         \
  X(hipHostMalloc, (void** ptr, size_t size, unsigned int flags))                                 \
  X(hipHostFree, (void* ptr))                                                                     \
  X(hipMemGetInfo, (size_t * free, size_t* total))                                                \
  X(hipMemsetD8Async, (hipDeviceptr_t dest, unsigned char value, size_t count, hipStream_t stream)) \
  X(hipMemcpyHtoDAsync, (hipDeviceptr_t dst, void* src, size_t sizeBytes, hipStream_t stream))    \
  X(hipMemcpyDtoHAsync, (void* dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream))    \
  X(hipMemcpyDtoDAsync,                                                                           \
    (hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream))               \
  X(hipStreamCreateWithFlags, (hipStream_t * stream, unsigned int flags))                         \
  X(hipStreamDestroy, (hipStream_t stream))                                                       \
  X(hipStreamSynchronize, (hipStream_t stream))                                                   \
  X(hipDeviceSynchronize, (void))                                                                 \
  X(hipStreamIsCapturing, (hipStream_t stream, hipStreamCaptureStatus * pCaptureStatus))          \
  X(hipStreamBeginCapture, (hipStream_t stream, hipStreamCaptureMode mode))                       \
  X(hipStreamEndCapture, (hipStream_t stream, hipGraph_t * pGraph))                               \
  X(hipGraphInstantiateWithFlags,                                                                 \
    (hipGraphExec_t * pGraphExec, hipGraph_t graph, unsigned long long flags))                    \
  X(hipGraphLaunch, (hipGraphExec_t graphExec, hipStream_t stream))                               \
  X(hipGraphExecDestroy, (hipGraphExec_t graphExec))                                              \
  X(hipGraphDestroy, (hipGraph_t graph))                                                          \
  X(hipEventCreateWithFlags, (hipEvent_t * event, unsigned int flags))                            \
  X(hipEventDestroy, (hipEvent_t event))                                                          \
  X(hipEventRecord, (hipEvent_t event, hipStream_t stream))                                       \
  X(hipEventSynchronize, (hipEvent_t event))                                                      \
  X(hipEventElapsedTime, (float* ms, hipEvent_t start, hipEvent_t stop))

/* ROCm 5.3 and later. */
#define TKRT_HIP_FUNCTIONS_ROCM5_3(X) X(hipStreamGetDevice, (hipStream_t stream, hipDevice_t * device))

/* ROCm 6 and later. */
#define TKRT_HIP_FUNCTIONS_ROCM6(X)                                                               \
  X(hipGetDevicePropertiesR0600, (hipDeviceProp_tR0600 * prop, int deviceId))                     \
  X(hipModuleLaunchCooperativeKernel,                                                             \
    (hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,        \
     unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,                      \
     unsigned int sharedMemBytes, hipStream_t stream, void** kernelParams))

/* tkrt_hip_pfn_<name>: a pointer to the entry point (the backend's table, hip_symbols.h). */
/* (The names are pasted right here: ROCm 6 makes a macro of hipGetDeviceProperties.) */
#ifdef TKRT_ABI_CHECK
#define TKRT_HIP_PFN_TYPEDEF_(name, params) typedef hipError_t (*tkrt_abi_pfn_##name) params;
#else
#define TKRT_HIP_PFN_TYPEDEF_(name, params) typedef hipError_t (*tkrt_hip_pfn_##name) params;
#endif
TKRT_HIP_FUNCTIONS_ROCM5(TKRT_HIP_PFN_TYPEDEF_)
TKRT_HIP_FUNCTIONS_ROCM5_3(TKRT_HIP_PFN_TYPEDEF_)
TKRT_HIP_FUNCTIONS_ROCM6(TKRT_HIP_PFN_TYPEDEF_)
#undef TKRT_HIP_PFN_TYPEDEF_
typedef const char* (*TKRT_HIP(tkrt_hip_pfn_hipGetErrorName))(hipError_t hip_error);

#ifndef TKRT_ABI_CHECK
/* Prototypes, for hip-over-cuda, which defines these functions (the backend only ever calls them
 * through pointers: hip_symbols.h). */
#define TKRT_HIP_PROTOTYPE_(name, params) hipError_t name params;
#define TKRT_HIP_DECLARE_PROTOTYPES()                 \
  TKRT_HIP_FUNCTIONS_ROCM5(TKRT_HIP_PROTOTYPE_)       \
  TKRT_HIP_FUNCTIONS_ROCM5_3(TKRT_HIP_PROTOTYPE_)     \
  TKRT_HIP_FUNCTIONS_ROCM6(TKRT_HIP_PROTOTYPE_)       \
  const char* hipGetErrorName(hipError_t hip_error);
#endif

#endif /* TKRT_BACKENDS_HIP_HIP_API_H_ */
