/* SPDX-License-Identifier: Apache-2.0 */
/* hip-over-cuda: a HIP runtime (built as libamdhip64.so.5/.6/.7) for tests, implemented on the CUDA
 * driver API (libcuda opened at run time), that presents an NVIDIA GPU as an AMD one.
 *
 * It exists so that tkrt's HIP backend runs real kernels on real hardware without an AMD GPU: the
 * backend opens this library as it would ROCm's, and every entry point it resolves does the work
 * on the GPU. The meaning of each call (arguments, error codes, attribute numbers) follows AMD's
 * own definitions (the ROCm headers, and hip/nvidia_detail/nvidia_hip_runtime_api.h, AMD's HIP on
 * NVIDIA), with these deliberate differences, all checked rather than assumed:
 *   - the device is an AMD one: gcnArchName (TKRT_HOC_ARCH, default gfx942:sramecc+:xnack-),
 *     warp size 64, 64 KiB of LDS per block with no opt-in step, ROCm's compute capability;
 *   - code objects are real AMDGPU ELF files (the caller's arch check and this loader's see a real
 *     gfx code object); the kernels run from the cubin of the same kernels that
 *     tkrt_hsaco_pack stored in the code object (section .tkrt.cubin);
 *   - a launch must have the wave64 shape (num_warps x 64 threads) and runs with num_warps x 32
 *     CUDA threads; anything else is refused (hipErrorInvalidConfiguration), except for kernels
 *     the pack step marked any-block (their CUDA build works with any block); a kernel whose CUDA
 *     build needs its own amount of dynamic shared memory (a Triton kernel: the cuda metadata's
 *     "shared") gets it from the pack step's cuda-shared rule.
 * Diagnostics of the emulation itself go to stderr, prefixed "tkrt hip-over-cuda:".
 *
 * Build variants (HOC_ROCM_MAJOR): 5 exports hipGetDeviceProperties with the ROCm 5 layout only;
 * 6 and 7 add hipGetDevicePropertiesR0600 (the ROCm 6 layout) and hipModuleLaunchCooperativeKernel,
 * as ROCm 6 and 7 do. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* No vendor header: the HIP runtime API and the CUDA driver API come from tkrt's own declarations
 * (the ones its backends use, checked against the vendors' headers by cuda.abi and hip.abi), so
 * this library builds on any machine. Every HIP entry point defined below is declared first by
 * TKRT_HIP_DECLARE_PROTOTYPES, so a definition that strays from hip_api.h does not compile. */
#include "backends/cuda/cuda_api.h"
#include "backends/hip/hip_api.h"
#include "test/hip/over_cuda/hoc_elf.h"

TKRT_HIP_DECLARE_PROTOTYPES()

#ifndef HOC_ROCM_MAJOR
#error "HOC_ROCM_MAJOR (5, 6 or 7) selects the ROCm version this build presents"
#endif

#define HOC_EXPORT __attribute__((visibility("default")))
#define HOC_MAX_DEVICES 16
/* Per-block LDS of every CDNA GPU; AMD has no opt-in beyond it. */
#define HOC_LDS_PER_BLOCK 65536
#define HOC_MAX_THREADS_PER_BLOCK 1024
#define HOC_DEFAULT_ARCH "gfx942:sramecc+:xnack-"

#if HOC_ROCM_MAJOR == 5
#define HOC_RUNTIME_VERSION 50731921 /* 5.7.31921 */
#elif HOC_ROCM_MAJOR == 6
#define HOC_RUNTIME_VERSION 60443483 /* 6.4.43483 */
#elif HOC_ROCM_MAJOR == 7
#define HOC_RUNTIME_VERSION 70051831 /* 7.0.51831 */
#else
#error "HOC_ROCM_MAJOR must be 5, 6 or 7"
#endif

/* The function attribute numbers are CUDA's in HIP (AMD keeps them equal on purpose). */
_Static_assert(HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ==
                   (int)CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "hipFunction_attribute");
_Static_assert(HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES == (int)CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
               "hipFunction_attribute");
_Static_assert(HIP_FUNC_ATTRIBUTE_NUM_REGS == (int)CU_FUNC_ATTRIBUTE_NUM_REGS,
               "hipFunction_attribute");
_Static_assert(HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ==
                   (int)CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, "hipFunction_attribute");
_Static_assert(hipStreamCaptureStatusActive == (int)CU_STREAM_CAPTURE_STATUS_ACTIVE &&
                   hipStreamCaptureStatusInvalidated == (int)CU_STREAM_CAPTURE_STATUS_INVALIDATED,
               "hipStreamCaptureStatus");
_Static_assert(hipStreamCaptureModeGlobal == (int)CU_STREAM_CAPTURE_MODE_GLOBAL &&
                   hipStreamCaptureModeThreadLocal == (int)CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
                   hipStreamCaptureModeRelaxed == (int)CU_STREAM_CAPTURE_MODE_RELAXED,
               "hipStreamCaptureMode");
_Static_assert(hipEventBlockingSync == (int)CU_EVENT_BLOCKING_SYNC &&
                   hipEventDisableTiming == (int)CU_EVENT_DISABLE_TIMING &&
                   hipEventInterprocess == (int)CU_EVENT_INTERPROCESS, "hipEvent flags");
/* The ROCm 5 properties layout (hip_api.h); its gcnArchName offset is the one ROCm 5 binaries
 * read. */
_Static_assert(offsetof(hipDeviceProp_tR0000, gcnArchName) == 396, "ROCm 5 hipDeviceProp_t layout");

/* ---------------------------------------------------------------- libcuda */

/* Every driver entry point used: X(name, symbol, abi). The symbol is the one cuda.h 13's macros
 * give for the name (cuMemAlloc -> cuMemAlloc_v2), looked up with dlsym, and called through the
 * prototype of that ABI variant (PFN_<name>_v<abi>, cuda_api.h). */
#define HOC_CU_FUNCTIONS(X)                                                                     \
  X(cuInit, "cuInit", 2000)                                                                     \
  X(cuDriverGetVersion, "cuDriverGetVersion", 2020)                                             \
  X(cuGetErrorName, "cuGetErrorName", 6000)                                                     \
  X(cuDeviceGet, "cuDeviceGet", 2000)                                                           \
  X(cuDeviceGetCount, "cuDeviceGetCount", 2000)                                                 \
  X(cuDeviceGetName, "cuDeviceGetName", 2000)                                                   \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", 3020)                                              \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", 2000)                                         \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 7000)                                 \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", 4000)                                                   \
  X(cuModuleLoadData, "cuModuleLoadData", 2000)                                                 \
  X(cuModuleUnload, "cuModuleUnload", 2000)                                                     \
  X(cuModuleGetFunction, "cuModuleGetFunction", 2000)                                           \
  X(cuFuncGetAttribute, "cuFuncGetAttribute", 2020)                                             \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", 9000)                                             \
  X(cuLaunchKernel, "cuLaunchKernel", 4000)                                                     \
  X(cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel", 9000)                               \
  X(cuMemAlloc, "cuMemAlloc_v2", 3020)                                                          \
  X(cuMemFree, "cuMemFree_v2", 3020)                                                            \
  X(cuMemHostAlloc, "cuMemHostAlloc", 2020)                                                     \
  X(cuMemFreeHost, "cuMemFreeHost", 2000)                                                       \
  X(cuMemGetInfo, "cuMemGetInfo_v2", 3020)                                                      \
  X(cuMemsetD8Async, "cuMemsetD8Async", 3020)                                                   \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", 3020)                                            \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", 3020)                                            \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", 3020)                                            \
  X(cuStreamCreate, "cuStreamCreate", 2000)                                                     \
  X(cuStreamDestroy, "cuStreamDestroy_v2", 4000)                                                \
  X(cuStreamSynchronize, "cuStreamSynchronize", 2000)                                           \
  X(cuCtxSynchronize, "cuCtxSynchronize", 2000)                                                 \
  X(cuStreamIsCapturing, "cuStreamIsCapturing", 10000)                                          \
  X(cuStreamGetDevice, "cuStreamGetDevice", 12080)                                              \
  X(cuStreamBeginCapture, "cuStreamBeginCapture_v2", 10010)                                     \
  X(cuStreamEndCapture, "cuStreamEndCapture", 10000)                                            \
  X(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", 11040)                          \
  X(cuGraphLaunch, "cuGraphLaunch", 10000)                                                      \
  X(cuGraphExecDestroy, "cuGraphExecDestroy", 10000)                                            \
  X(cuGraphDestroy, "cuGraphDestroy", 10000)                                                    \
  X(cuEventCreate, "cuEventCreate", 2000)                                                       \
  X(cuEventDestroy, "cuEventDestroy_v2", 4000)                                                  \
  X(cuEventRecord, "cuEventRecord", 2000)                                                       \
  X(cuEventSynchronize, "cuEventSynchronize", 2000)                                             \
  X(cuEventElapsedTime, "cuEventElapsedTime_v2", 2000)

typedef struct hoc_cuda {
#define HOC_CU_FIELD(name, symbol, abi) PFN_##name##_v##abi name;
  HOC_CU_FUNCTIONS(HOC_CU_FIELD)
#undef HOC_CU_FIELD
} hoc_cuda_t;

static struct {
  pthread_once_t once;
  hipError_t init_error; /* what hipInit and hipGetDeviceCount answer */
  hoc_cuda_t cu;
  int device_count;
  char arch_name[256]; /* the gcnArchName presented */
  char processor[64];  /* its processor part */
  pthread_mutex_t lock;
  CUcontext contexts[HOC_MAX_DEVICES]; /* primary contexts, retained on first use */
} hoc = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER};

static _Thread_local int hoc_current_device;

static void hoc_note(const char* format, ...) __attribute__((format(printf, 1, 2)));

static void hoc_note(const char* format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stderr, "tkrt hip-over-cuda: ");
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  va_end(args);
}

/* CUresult -> hipError_t, as AMD's HIP on NVIDIA translates them (hipCUResultTohipError). */
static hipError_t hoc_error(CUresult result) {
  switch (result) {
    case CUDA_SUCCESS: return hipSuccess;
    case CUDA_ERROR_INVALID_VALUE: return hipErrorInvalidValue;
    case CUDA_ERROR_OUT_OF_MEMORY: return hipErrorOutOfMemory;
    case CUDA_ERROR_NOT_INITIALIZED: return hipErrorNotInitialized;
    case CUDA_ERROR_DEINITIALIZED: return hipErrorDeinitialized;
    case CUDA_ERROR_NO_DEVICE: return hipErrorNoDevice;
    case CUDA_ERROR_INVALID_DEVICE: return hipErrorInvalidDevice;
    case CUDA_ERROR_INVALID_IMAGE: return hipErrorInvalidImage;
    case CUDA_ERROR_INVALID_CONTEXT: return hipErrorInvalidContext;
    case CUDA_ERROR_CONTEXT_ALREADY_CURRENT: return hipErrorContextAlreadyCurrent;
    case CUDA_ERROR_MAP_FAILED: return hipErrorMapFailed;
    case CUDA_ERROR_UNMAP_FAILED: return hipErrorUnmapFailed;
    case CUDA_ERROR_NO_BINARY_FOR_GPU: return hipErrorNoBinaryForGpu;
    case CUDA_ERROR_ECC_UNCORRECTABLE: return hipErrorECCNotCorrectable;
    case CUDA_ERROR_UNSUPPORTED_LIMIT: return hipErrorUnsupportedLimit;
    case CUDA_ERROR_CONTEXT_ALREADY_IN_USE: return hipErrorContextAlreadyInUse;
    case CUDA_ERROR_PEER_ACCESS_UNSUPPORTED: return hipErrorPeerAccessUnsupported;
    case CUDA_ERROR_INVALID_PTX: return hipErrorInvalidKernelFile;
    case CUDA_ERROR_INVALID_SOURCE: return hipErrorInvalidSource;
    case CUDA_ERROR_FILE_NOT_FOUND: return hipErrorFileNotFound;
    case CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND: return hipErrorSharedObjectSymbolNotFound;
    case CUDA_ERROR_SHARED_OBJECT_INIT_FAILED: return hipErrorSharedObjectInitFailed;
    case CUDA_ERROR_OPERATING_SYSTEM: return hipErrorOperatingSystem;
    case CUDA_ERROR_INVALID_HANDLE: return hipErrorInvalidHandle;
    case CUDA_ERROR_ILLEGAL_STATE: return hipErrorIllegalState;
    case CUDA_ERROR_NOT_FOUND: return hipErrorNotFound;
    case CUDA_ERROR_NOT_READY: return hipErrorNotReady;
    case CUDA_ERROR_ILLEGAL_ADDRESS: return hipErrorIllegalAddress;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: return hipErrorLaunchOutOfResources;
    case CUDA_ERROR_LAUNCH_TIMEOUT: return hipErrorLaunchTimeOut;
    case CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: return hipErrorPeerAccessAlreadyEnabled;
    case CUDA_ERROR_PEER_ACCESS_NOT_ENABLED: return hipErrorPeerAccessNotEnabled;
    case CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE: return hipErrorSetOnActiveProcess;
    case CUDA_ERROR_CONTEXT_IS_DESTROYED: return hipErrorContextIsDestroyed;
    case CUDA_ERROR_ASSERT: return hipErrorAssert;
    case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: return hipErrorHostMemoryAlreadyRegistered;
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: return hipErrorHostMemoryNotRegistered;
    case CUDA_ERROR_LAUNCH_FAILED: return hipErrorLaunchFailure;
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: return hipErrorCooperativeLaunchTooLarge;
    case CUDA_ERROR_NOT_SUPPORTED: return hipErrorNotSupported;
    case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: return hipErrorStreamCaptureUnsupported;
    case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: return hipErrorStreamCaptureInvalidated;
    case CUDA_ERROR_STREAM_CAPTURE_MERGE: return hipErrorStreamCaptureMerge;
    case CUDA_ERROR_STREAM_CAPTURE_UNMATCHED: return hipErrorStreamCaptureUnmatched;
    case CUDA_ERROR_STREAM_CAPTURE_UNJOINED: return hipErrorStreamCaptureUnjoined;
    case CUDA_ERROR_STREAM_CAPTURE_ISOLATION: return hipErrorStreamCaptureIsolation;
    case CUDA_ERROR_STREAM_CAPTURE_IMPLICIT: return hipErrorStreamCaptureImplicit;
    case CUDA_ERROR_CAPTURED_EVENT: return hipErrorCapturedEvent;
    case CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD: return hipErrorStreamCaptureWrongThread;
    case CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE: return hipErrorGraphExecUpdateFailure;
    /* Not in AMD's table (it has no driver-version errors); the nearest HIP meaning. */
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: return hipErrorInsufficientDriver;
    default: return hipErrorUnknown;
  }
}

static void hoc_init_once(void) {
  const char* arch = getenv("TKRT_HOC_ARCH");
  snprintf(hoc.arch_name, sizeof(hoc.arch_name), "%s", arch && *arch ? arch : HOC_DEFAULT_ARCH);
  snprintf(hoc.processor, sizeof(hoc.processor), "%.*s", (int)strcspn(hoc.arch_name, ":"),
           hoc.arch_name);
  int major, minor;
  if (!hoc_arch_version(hoc.processor, &major, &minor)) {
    hoc_note("TKRT_HOC_ARCH='%s' is not a gcnArchName such as gfx942:sramecc+:xnack-",
             hoc.arch_name);
    hoc.init_error = hipErrorInvalidValue;
    return;
  }
  const char* path = getenv("TKRT_HOC_LIBCUDA");
  if (!path || !*path) path = "libcuda.so.1";
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    /* What ROCm answers on a machine without a GPU driver. */
    hoc_note("no GPU: cannot open %s (%s)", path, dlerror());
    hoc.init_error = hipErrorNoDevice;
    return;
  }
  const char* missing = NULL;
#define HOC_CU_RESOLVE(name, symbol, abi)                                              \
  *(void**)&hoc.cu.name = dlsym(handle, symbol);                                       \
  if (!hoc.cu.name && !missing) missing = symbol;
  HOC_CU_FUNCTIONS(HOC_CU_RESOLVE)
#undef HOC_CU_RESOLVE
  if (missing) {
    hoc_note("%s lacks %s: a CUDA 12 or newer driver is needed", path, missing);
    hoc.init_error = hipErrorInsufficientDriver;
    return;
  }
  CUresult result = hoc.cu.cuInit(0);
  int count = 0;
  if (result == CUDA_SUCCESS) result = hoc.cu.cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS) {
    const char* name = NULL;
    hoc.cu.cuGetErrorName(result, &name);
    hoc_note("the CUDA driver found no usable GPU: %s (%d)", name ? name : "?", (int)result);
    hoc.init_error = result == CUDA_ERROR_NO_DEVICE ? hipErrorNoDevice : hoc_error(result);
    return;
  }
  if (count <= 0) {
    hoc.init_error = hipErrorNoDevice;
    return;
  }
  hoc.device_count = count < HOC_MAX_DEVICES ? count : HOC_MAX_DEVICES;
  hoc.init_error = hipSuccess;
}

static hipError_t hoc_ready(void) {
  pthread_once(&hoc.once, hoc_init_once);
  return hoc.init_error;
}

/* Makes `device`'s primary context current on this thread: every driver call then works on the
 * device HIP's per-thread current device names. */
static hipError_t hoc_activate(int device) {
  hipError_t error = hoc_ready();
  if (error != hipSuccess) return error;
  if (device < 0 || device >= hoc.device_count) return hipErrorInvalidDevice;
  pthread_mutex_lock(&hoc.lock);
  CUresult result = CUDA_SUCCESS;
  if (!hoc.contexts[device]) {
    CUdevice cu_device;
    result = hoc.cu.cuDeviceGet(&cu_device, device);
    if (result == CUDA_SUCCESS) result = hoc.cu.cuDevicePrimaryCtxRetain(&hoc.contexts[device], cu_device);
  }
  CUcontext context = hoc.contexts[device];
  pthread_mutex_unlock(&hoc.lock);
  if (result == CUDA_SUCCESS) result = hoc.cu.cuCtxSetCurrent(context);
  return hoc_error(result);
}

static hipError_t hoc_activate_current(void) { return hoc_activate(hoc_current_device); }

static hipError_t hoc_cu_attribute(int* value, CUdevice_attribute attribute, int device) {
  hipError_t error = hoc_ready();
  if (error != hipSuccess) return error;
  if (device < 0 || device >= hoc.device_count) return hipErrorInvalidDevice;
  CUdevice cu_device;
  CUresult result = hoc.cu.cuDeviceGet(&cu_device, device);
  if (result == CUDA_SUCCESS) result = hoc.cu.cuDeviceGetAttribute(value, attribute, cu_device);
  return hoc_error(result);
}

/* ---------------------------------------------------------------- initialisation, versions */

HOC_EXPORT hipError_t hipInit(unsigned int flags) {
  if (flags != 0) return hipErrorInvalidValue;
  return hoc_ready();
}

HOC_EXPORT hipError_t hipGetDeviceCount(int* count) {
  if (!count) return hipErrorInvalidValue;
  hipError_t error = hoc_ready();
  *count = error == hipSuccess ? hoc.device_count : 0;
  return error;
}

HOC_EXPORT hipError_t hipRuntimeGetVersion(int* version) {
  if (!version) return hipErrorInvalidValue;
  *version = HOC_RUNTIME_VERSION;
  return hipSuccess;
}

/* ROCm answers its HIP version here too; the CUDA driver's own version is not an AMD fact. */
HOC_EXPORT hipError_t hipDriverGetVersion(int* version) {
  if (!version) return hipErrorInvalidValue;
  *version = HOC_RUNTIME_VERSION;
  return hipSuccess;
}

HOC_EXPORT hipError_t hipGetDevice(int* device) {
  if (!device) return hipErrorInvalidValue;
  hipError_t error = hoc_ready();
  if (error != hipSuccess) return error;
  *device = hoc_current_device;
  return hipSuccess;
}

HOC_EXPORT hipError_t hipSetDevice(int device) {
  hipError_t error = hoc_activate(device);
  if (error == hipSuccess) hoc_current_device = device;
  return error;
}

HOC_EXPORT const char* hipGetErrorName(hipError_t error) {
  switch (error) {
#define HOC_NAME(name) \
  case name: return #name;
    HOC_NAME(hipSuccess) HOC_NAME(hipErrorInvalidValue) HOC_NAME(hipErrorOutOfMemory)
    HOC_NAME(hipErrorNotInitialized) HOC_NAME(hipErrorDeinitialized)
    HOC_NAME(hipErrorInvalidConfiguration) HOC_NAME(hipErrorInvalidDevicePointer)
    HOC_NAME(hipErrorInvalidMemcpyDirection) HOC_NAME(hipErrorInsufficientDriver)
    HOC_NAME(hipErrorPriorLaunchFailure) HOC_NAME(hipErrorInvalidDeviceFunction)
    HOC_NAME(hipErrorNoDevice) HOC_NAME(hipErrorInvalidDevice) HOC_NAME(hipErrorInvalidImage)
    HOC_NAME(hipErrorInvalidContext) HOC_NAME(hipErrorContextAlreadyCurrent)
    HOC_NAME(hipErrorMapFailed) HOC_NAME(hipErrorUnmapFailed) HOC_NAME(hipErrorNoBinaryForGpu)
    HOC_NAME(hipErrorECCNotCorrectable) HOC_NAME(hipErrorUnsupportedLimit)
    HOC_NAME(hipErrorContextAlreadyInUse) HOC_NAME(hipErrorPeerAccessUnsupported)
    HOC_NAME(hipErrorInvalidKernelFile) HOC_NAME(hipErrorInvalidSource)
    HOC_NAME(hipErrorFileNotFound) HOC_NAME(hipErrorSharedObjectSymbolNotFound)
    HOC_NAME(hipErrorSharedObjectInitFailed) HOC_NAME(hipErrorOperatingSystem)
    HOC_NAME(hipErrorInvalidHandle) HOC_NAME(hipErrorIllegalState) HOC_NAME(hipErrorNotFound)
    HOC_NAME(hipErrorNotReady) HOC_NAME(hipErrorIllegalAddress)
    HOC_NAME(hipErrorLaunchOutOfResources) HOC_NAME(hipErrorLaunchTimeOut)
    HOC_NAME(hipErrorPeerAccessAlreadyEnabled) HOC_NAME(hipErrorPeerAccessNotEnabled)
    HOC_NAME(hipErrorSetOnActiveProcess) HOC_NAME(hipErrorContextIsDestroyed)
    HOC_NAME(hipErrorAssert) HOC_NAME(hipErrorHostMemoryAlreadyRegistered)
    HOC_NAME(hipErrorHostMemoryNotRegistered) HOC_NAME(hipErrorLaunchFailure)
    HOC_NAME(hipErrorCooperativeLaunchTooLarge) HOC_NAME(hipErrorNotSupported)
    HOC_NAME(hipErrorStreamCaptureUnsupported) HOC_NAME(hipErrorStreamCaptureInvalidated)
    HOC_NAME(hipErrorStreamCaptureMerge) HOC_NAME(hipErrorStreamCaptureUnmatched)
    HOC_NAME(hipErrorStreamCaptureUnjoined) HOC_NAME(hipErrorStreamCaptureIsolation)
    HOC_NAME(hipErrorStreamCaptureImplicit) HOC_NAME(hipErrorCapturedEvent)
    HOC_NAME(hipErrorStreamCaptureWrongThread) HOC_NAME(hipErrorGraphExecUpdateFailure)
    HOC_NAME(hipErrorUnknown)
#undef HOC_NAME
    default: return "hipErrorUnknown";
  }
}

/* ---------------------------------------------------------------- device attributes */

HOC_EXPORT hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attribute,
                                            int device) {
  if (!value) return hipErrorInvalidValue;
  hipError_t error = hoc_ready();
  if (error != hipSuccess) return error;
  if (device < 0 || device >= hoc.device_count) return hipErrorInvalidDevice;
  int major = 0, minor = 0;
  hoc_arch_version(hoc.processor, &major, &minor);
  /* What an AMD GPU answers (wave64, CDNA limits, ROCm's compute capability); the rest is the
   * NVIDIA GPU's own figure, where the two mean the same thing. */
  switch (attribute) {
    case hipDeviceAttributeWarpSize: *value = 64; return hipSuccess;
    case hipDeviceAttributeMaxThreadsPerBlock:
    case hipDeviceAttributeMaxBlockDimX:
    case hipDeviceAttributeMaxBlockDimY:
    case hipDeviceAttributeMaxBlockDimZ: *value = HOC_MAX_THREADS_PER_BLOCK; return hipSuccess;
    case hipDeviceAttributeMaxSharedMemoryPerBlock:
    case hipDeviceAttributeSharedMemPerBlockOptin: *value = HOC_LDS_PER_BLOCK; return hipSuccess;
    case hipDeviceAttributeComputeCapabilityMajor: *value = major; return hipSuccess;
    case hipDeviceAttributeComputeCapabilityMinor: *value = minor; return hipSuccess;
    case hipDeviceAttributeMaxGridDimX:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, device);
    case hipDeviceAttributeMaxGridDimY:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, device);
    case hipDeviceAttributeMaxGridDimZ:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, device);
    case hipDeviceAttributeMultiprocessorCount:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
    case hipDeviceAttributeCooperativeLaunch:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, device);
    case hipDeviceAttributeClockRate:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, device);
    case hipDeviceAttributeMemoryClockRate:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, device);
    case hipDeviceAttributeMemoryBusWidth:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, device);
    case hipDeviceAttributeL2CacheSize:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device);
    case hipDeviceAttributeMaxThreadsPerMultiProcessor:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, device);
    case hipDeviceAttributeTotalConstantMemory:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, device);
    case hipDeviceAttributeMaxRegistersPerBlock:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, device);
    case hipDeviceAttributeConcurrentKernels:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, device);
    case hipDeviceAttributePciBusId:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, device);
    case hipDeviceAttributePciDeviceId:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, device);
    case hipDeviceAttributePciDomainID:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, device);
    case hipDeviceAttributeIntegrated:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_INTEGRATED, device);
    case hipDeviceAttributeCanMapHostMemory:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, device);
    case hipDeviceAttributeEccEnabled:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_ECC_ENABLED, device);
    case hipDeviceAttributeUnifiedAddressing:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, device);
    case hipDeviceAttributeManagedMemory:
      return hoc_cu_attribute(value, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, device);
    default:
      /* Not emulated: refuse rather than answer something made up. */
      return hipErrorInvalidValue;
  }
}

HOC_EXPORT hipError_t hipDeviceGetName(char* name, int length, int device) {
  if (!name || length <= 0) return hipErrorInvalidValue;
  hipError_t error = hoc_ready();
  if (error != hipSuccess) return error;
  if (device < 0 || device >= hoc.device_count) return hipErrorInvalidDevice;
  CUdevice cu_device;
  char nvidia[128];
  CUresult result = hoc.cu.cuDeviceGet(&cu_device, device);
  if (result == CUDA_SUCCESS) result = hoc.cu.cuDeviceGetName(nvidia, sizeof(nvidia), cu_device);
  if (result != CUDA_SUCCESS) return hoc_error(result);
  snprintf(name, (size_t)length, "AMD %s (hip-over-cuda on %s)", hoc.processor, nvidia);
  return hipSuccess;
}

HOC_EXPORT hipError_t hipDeviceTotalMem(size_t* bytes, int device) {
  if (!bytes) return hipErrorInvalidValue;
  hipError_t error = hoc_ready();
  if (error != hipSuccess) return error;
  if (device < 0 || device >= hoc.device_count) return hipErrorInvalidDevice;
  CUdevice cu_device;
  CUresult result = hoc.cu.cuDeviceGet(&cu_device, device);
  if (result == CUDA_SUCCESS) result = hoc.cu.cuDeviceTotalMem(bytes, cu_device);
  return hoc_error(result);
}

/* The fields both properties layouts share, read once for either. */
typedef struct hoc_props {
  char name[256];
  size_t total_memory;
  int multiprocessors, grid[3], clock_khz, memory_clock_khz, bus_width, l2_bytes,
      threads_per_multiprocessor, cooperative, major, minor, pci_bus, pci_device, pci_domain;
} hoc_props_t;

static hipError_t hoc_read_props(int device, hoc_props_t* out) {
  memset(out, 0, sizeof(*out));
  hipError_t error = hipDeviceGetName(out->name, sizeof(out->name), device);
  if (error == hipSuccess) error = hipDeviceTotalMem(&out->total_memory, device);
  struct {
    hipDeviceAttribute_t attribute;
    int* value;
  } reads[] = {
      {hipDeviceAttributeMultiprocessorCount, &out->multiprocessors},
      {hipDeviceAttributeMaxGridDimX, &out->grid[0]},
      {hipDeviceAttributeMaxGridDimY, &out->grid[1]},
      {hipDeviceAttributeMaxGridDimZ, &out->grid[2]},
      {hipDeviceAttributeClockRate, &out->clock_khz},
      {hipDeviceAttributeMemoryClockRate, &out->memory_clock_khz},
      {hipDeviceAttributeMemoryBusWidth, &out->bus_width},
      {hipDeviceAttributeL2CacheSize, &out->l2_bytes},
      {hipDeviceAttributeMaxThreadsPerMultiProcessor, &out->threads_per_multiprocessor},
      {hipDeviceAttributeCooperativeLaunch, &out->cooperative},
      {hipDeviceAttributeComputeCapabilityMajor, &out->major},
      {hipDeviceAttributeComputeCapabilityMinor, &out->minor},
      {hipDeviceAttributePciBusId, &out->pci_bus},
      {hipDeviceAttributePciDeviceId, &out->pci_device},
      {hipDeviceAttributePciDomainID, &out->pci_domain},
  };
  for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]) && error == hipSuccess; ++i) {
    error = hipDeviceGetAttribute(reads[i].value, reads[i].attribute, device);
  }
  return error;
}

/* The ROCm 5 layout (hipDeviceProp_t of ROCm 5 headers; R0000, hip_api.h). ROCm 6 and 7 keep this
 * entry point, with this layout, for binaries built against ROCm 5. */
HOC_EXPORT hipError_t hipGetDeviceProperties(hipDeviceProp_tR0000* properties, int device) {
  if (!properties) return hipErrorInvalidValue;
  hoc_props_t p;
  hipError_t error = hoc_read_props(device, &p);
  if (error != hipSuccess) return error;
  memset(properties, 0, sizeof(*properties));
  snprintf(properties->name, sizeof(properties->name), "%s", p.name);
  properties->totalGlobalMem = p.total_memory;
  properties->sharedMemPerBlock = HOC_LDS_PER_BLOCK;
  properties->warpSize = 64;
  properties->maxThreadsPerBlock = HOC_MAX_THREADS_PER_BLOCK;
  for (int i = 0; i < 3; ++i) {
    properties->maxThreadsDim[i] = HOC_MAX_THREADS_PER_BLOCK;
    properties->maxGridSize[i] = p.grid[i];
  }
  properties->clockRate = p.clock_khz;
  properties->memoryClockRate = p.memory_clock_khz;
  properties->memoryBusWidth = p.bus_width;
  properties->major = p.major;
  properties->minor = p.minor;
  properties->multiProcessorCount = p.multiprocessors;
  properties->l2CacheSize = p.l2_bytes;
  properties->maxThreadsPerMultiProcessor = p.threads_per_multiprocessor;
  properties->pciDomainID = p.pci_domain;
  properties->pciBusID = p.pci_bus;
  properties->pciDeviceID = p.pci_device;
  properties->maxSharedMemoryPerMultiProcessor = HOC_LDS_PER_BLOCK;
  properties->gcnArch = p.major * 100 + p.minor * 10;
  snprintf(properties->gcnArchName, sizeof(properties->gcnArchName), "%s", hoc.arch_name);
  properties->cooperativeLaunch = p.cooperative;
  return hipSuccess;
}

#if HOC_ROCM_MAJOR >= 6
/* hipDeviceProp_tR0600 of ROCm 6 and 7 (hip_api.h: up to and including gcnArchName): the fields
 * are written only this far, so a caller's struct of the full size (larger) is never overrun. */
typedef hipDeviceProp_tR0600 hoc_props_r0600_t;

HOC_EXPORT hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600* out, int device) {
  if (!out) return hipErrorInvalidValue;
  hoc_props_t p;
  hipError_t error = hoc_read_props(device, &p);
  if (error != hipSuccess) return error;
  hoc_props_r0600_t properties;
  memset(&properties, 0, sizeof(properties));
  snprintf(properties.name, sizeof(properties.name), "%s", p.name);
  properties.totalGlobalMem = p.total_memory;
  properties.sharedMemPerBlock = HOC_LDS_PER_BLOCK;
  properties.warpSize = 64;
  properties.maxThreadsPerBlock = HOC_MAX_THREADS_PER_BLOCK;
  for (int i = 0; i < 3; ++i) {
    properties.maxThreadsDim[i] = HOC_MAX_THREADS_PER_BLOCK;
    properties.maxGridSize[i] = p.grid[i];
  }
  properties.clockRate = p.clock_khz;
  properties.major = p.major;
  properties.minor = p.minor;
  properties.multiProcessorCount = p.multiprocessors;
  properties.pciBusID = p.pci_bus;
  properties.pciDeviceID = p.pci_device;
  properties.pciDomainID = p.pci_domain;
  properties.memoryClockRate = p.memory_clock_khz;
  properties.memoryBusWidth = p.bus_width;
  properties.l2CacheSize = p.l2_bytes;
  properties.maxThreadsPerMultiProcessor = p.threads_per_multiprocessor;
  properties.sharedMemPerMultiprocessor = HOC_LDS_PER_BLOCK;
  properties.cooperativeLaunch = p.cooperative;
  properties.sharedMemPerBlockOptin = HOC_LDS_PER_BLOCK;
  snprintf(properties.gcnArchName, sizeof(properties.gcnArchName), "%s", hoc.arch_name);
  memcpy(out, &properties, sizeof(properties));
  return hipSuccess;
}
#endif

/* ---------------------------------------------------------------- modules and functions */

struct ihipModuleSymbol_t {
  CUfunction function;
  struct ihipModule_t* module;
  bool any_block;           /* exempt from the wave64 rule (pack step's launch rules) */
  bool has_cuda_shared;     /* the CUDA build's own dynamic shared memory (launch rules) */
  unsigned int cuda_shared;
  int static_shared;        /* bytes, from the cubin */
  _Atomic int dynamic_set;  /* the CUDA dynamic shared memory limit set so far (0: default) */
  struct ihipModuleSymbol_t* next;
  char name[];
};

struct ihipModule_t {
  CUmodule module;
  int device;
  uint8_t* hsaco; /* a copy of the code object: kernel lookups check its symbols */
  size_t hsaco_size;
  pthread_mutex_t lock;
  struct ihipModuleSymbol_t* functions;
};

HOC_EXPORT hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
  if (!module || !image) return hipErrorInvalidValue;
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  /* No size comes with the image: the ELF headers give it, as for ROCm's loader. */
  size_t size = hoc_elf_size(image, SIZE_MAX);
  uint16_t machine = 0;
  uint32_t flags = 0;
  if (!size || !hoc_elf_header(image, size, &machine, &flags) || machine != HOC_EM_AMDGPU) {
    hoc_note("hipModuleLoadData: the image is not an AMDGPU ELF code object");
    return hipErrorInvalidImage;
  }
  const char* processor = hoc_amdgpu_processor(flags);
  if (!processor || strcmp(processor, hoc.processor) != 0) {
    hoc_note("hipModuleLoadData: the code object is for %s (e_flags 0x%x), the device is %s",
             processor ? processor : "an unknown processor", (unsigned)flags, hoc.arch_name);
    return hipErrorNoBinaryForGpu;
  }
  const uint8_t* cubin = NULL;
  size_t cubin_size = 0;
  if (!hoc_elf_section(image, size, HOC_SECTION_CUBIN, &cubin, &cubin_size)) {
    hoc_note("hipModuleLoadData: the %s code object has no %s section: add the cubin of the same "
             "kernels with tkrt_hsaco_pack", processor, HOC_SECTION_CUBIN);
    return hipErrorInvalidImage;
  }
  struct ihipModule_t* created = calloc(1, sizeof(*created));
  if (created) created->hsaco = malloc(size);
  if (!created || !created->hsaco) {
    free(created);
    return hipErrorOutOfMemory;
  }
  memcpy(created->hsaco, image, size);
  created->hsaco_size = size;
  created->device = hoc_current_device;
  CUresult result = hoc.cu.cuModuleLoadData(&created->module, cubin);
  if (result != CUDA_SUCCESS) {
    hoc_note("hipModuleLoadData: the CUDA driver refused the packed cubin (%d)", (int)result);
    free(created->hsaco);
    free(created);
    return hoc_error(result);
  }
  pthread_mutex_init(&created->lock, NULL);
  *module = created;
  return hipSuccess;
}

HOC_EXPORT hipError_t hipModuleUnload(hipModule_t module) {
  if (!module) return hipErrorInvalidHandle;
  hipError_t error = hoc_activate(module->device);
  if (error != hipSuccess) return error;
  CUresult result = hoc.cu.cuModuleUnload(module->module);
  for (struct ihipModuleSymbol_t* f = module->functions; f;) {
    struct ihipModuleSymbol_t* next = f->next;
    free(f);
    f = next;
  }
  pthread_mutex_destroy(&module->lock);
  free(module->hsaco);
  free(module);
  return hoc_error(result);
}

HOC_EXPORT hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module,
                                           const char* name) {
  if (!function || !module || !name) return hipErrorInvalidValue;
  char descriptor[512];
  if (snprintf(descriptor, sizeof(descriptor), "%s.kd", name) >= (int)sizeof(descriptor)) {
    return hipErrorInvalidValue;
  }
  /* The AMD loader finds a kernel by its descriptor symbol; a kernel the code object lacks is not
   * found, whatever the cubin holds. */
  if (!hoc_elf_has_symbol(module->hsaco, module->hsaco_size, descriptor)) return hipErrorNotFound;
  hipError_t error = hoc_activate(module->device);
  if (error != hipSuccess) return error;
  pthread_mutex_lock(&module->lock);
  struct ihipModuleSymbol_t* found = module->functions;
  while (found && strcmp(found->name, name) != 0) found = found->next;
  CUresult result = CUDA_SUCCESS;
  if (!found) {
    CUfunction cu_function = NULL;
    int static_shared = 0;
    result = hoc.cu.cuModuleGetFunction(&cu_function, module->module, name);
    if (result == CUDA_ERROR_NOT_FOUND) {
      hoc_note("hipModuleGetFunction: '%s' is in the code object but not in its packed cubin",
               name);
    }
    if (result == CUDA_SUCCESS) {
      result = hoc.cu.cuFuncGetAttribute(&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                         cu_function);
    }
    if (result == CUDA_SUCCESS) {
      found = calloc(1, sizeof(*found) + strlen(name) + 1);
      if (!found) {
        pthread_mutex_unlock(&module->lock);
        return hipErrorOutOfMemory;
      }
      found->function = cu_function;
      found->module = module;
      found->static_shared = static_shared;
      const uint8_t* rules = NULL;
      size_t rules_size = 0;
      if (hoc_elf_section(module->hsaco, module->hsaco_size, HOC_SECTION_LAUNCH, &rules,
                          &rules_size)) {
        found->any_block = hoc_launch_any_block(rules, rules_size, name);
        found->has_cuda_shared =
            hoc_launch_cuda_shared(rules, rules_size, name, &found->cuda_shared);
      }
      strcpy(found->name, name);
      found->next = module->functions;
      module->functions = found;
    }
  }
  pthread_mutex_unlock(&module->lock);
  if (result != CUDA_SUCCESS) return hoc_error(result);
  *function = found;
  return hipSuccess;
}

HOC_EXPORT hipError_t hipFuncGetAttribute(int* value, hipFunction_attribute attribute,
                                          hipFunction_t function) {
  if (!value || !function) return hipErrorInvalidValue;
  hipError_t error = hoc_activate(function->module->device);
  if (error != hipSuccess) return error;
  int cuda_value = 0;
  CUresult result =
      hoc.cu.cuFuncGetAttribute(&cuda_value, (CUfunction_attribute)attribute, function->function);
  if (result != CUDA_SUCCESS) return hoc_error(result);
  switch (attribute) {
    case HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      /* In AMD threads: a wave64 launch runs half as many CUDA threads. */
      if (!function->any_block) cuda_value *= 2;
      *value = cuda_value < HOC_MAX_THREADS_PER_BLOCK ? cuda_value : HOC_MAX_THREADS_PER_BLOCK;
      return hipSuccess;
    case HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      *value = HOC_LDS_PER_BLOCK - function->static_shared;
      return hipSuccess;
    default:
      *value = cuda_value;
      return hipSuccess;
  }
}

/* The CUDA block and dynamic shared memory for an AMD launch, or an error (reported) when the
 * shape breaks the wave64 rule or the AMD limits; raises the CUDA dynamic shared memory limit past
 * 48 KiB, which AMD launches use without an opt-in step. */
static hipError_t hoc_prepare_launch(hipFunction_t f, const char* entry, unsigned int bx,
                                     unsigned int by, unsigned int bz, unsigned int shared,
                                     unsigned int* out_cuda_bx, unsigned int* out_cuda_shared) {
  if ((uint64_t)bx * by * bz > HOC_MAX_THREADS_PER_BLOCK || bx == 0 || by == 0 || bz == 0) {
    return hipErrorInvalidConfiguration;
  }
  unsigned int cuda_bx = bx;
  if (!f->any_block && !hoc_wave64_block(bx, by, bz, &cuda_bx)) {
    hoc_note("%s('%s'): block %ux%ux%u is not num_warps x 64 threads in x (the wave64 rule), so it "
             "has no CUDA equivalent; refused", entry, f->name, bx, by, bz);
    return hipErrorInvalidConfiguration;
  }
  if ((uint64_t)shared + (uint64_t)f->static_shared > HOC_LDS_PER_BLOCK) {
    hoc_note("%s('%s'): %u bytes of dynamic LDS plus %d static exceed the %d-byte block limit",
             entry, f->name, shared, f->static_shared, HOC_LDS_PER_BLOCK);
    return hipErrorInvalidValue;
  }
  /* The HIP amount sizes the AMD code's LDS; a Triton kernel's CUDA build may need another. */
  unsigned int cuda_shared = f->has_cuda_shared ? f->cuda_shared : shared;
  if ((int)cuda_shared > atomic_load(&f->dynamic_set) && cuda_shared > 48 * 1024) {
    CUresult result = hoc.cu.cuFuncSetAttribute(
        f->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)cuda_shared);
    if (result != CUDA_SUCCESS) return hoc_error(result);
    atomic_store(&f->dynamic_set, (int)cuda_shared);
  }
  *out_cuda_bx = cuda_bx;
  *out_cuda_shared = cuda_shared;
  return hipSuccess;
}

HOC_EXPORT hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx, unsigned int gy,
                                            unsigned int gz, unsigned int bx, unsigned int by,
                                            unsigned int bz, unsigned int shared,
                                            hipStream_t stream, void** params, void** extra) {
  if (!f) return hipErrorInvalidHandle;
  /* HIP's rule: arguments come either as a pointer array or as one packed buffer, not both. */
  if (params && extra) return hipErrorInvalidValue;
  void* cuda_extra[5];
  if (extra) {
    void* buffer = NULL;
    void* size = NULL;
    for (size_t i = 0; extra[i] != HIP_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_POINTER) {
        buffer = extra[i + 1];
      } else if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_SIZE) {
        size = extra[i + 1];
      } else {
        return hipErrorInvalidValue;
      }
    }
    if (!buffer || !size) return hipErrorInvalidValue;
    cuda_extra[0] = CU_LAUNCH_PARAM_BUFFER_POINTER;
    cuda_extra[1] = buffer;
    cuda_extra[2] = CU_LAUNCH_PARAM_BUFFER_SIZE;
    cuda_extra[3] = size;
    cuda_extra[4] = CU_LAUNCH_PARAM_END;
  }
  hipError_t error = hoc_activate(f->module->device);
  unsigned int cuda_bx = 0, cuda_shared = 0;
  if (error == hipSuccess) {
    error = hoc_prepare_launch(f, "hipModuleLaunchKernel", bx, by, bz, shared, &cuda_bx,
                               &cuda_shared);
  }
  if (error != hipSuccess) return error;
  return hoc_error(hoc.cu.cuLaunchKernel(f->function, gx, gy, gz, cuda_bx, by, bz, cuda_shared,
                                         (CUstream)stream, params, extra ? cuda_extra : NULL));
}

#if HOC_ROCM_MAJOR >= 6
HOC_EXPORT hipError_t hipModuleLaunchCooperativeKernel(hipFunction_t f, unsigned int gx,
                                                       unsigned int gy, unsigned int gz,
                                                       unsigned int bx, unsigned int by,
                                                       unsigned int bz, unsigned int shared,
                                                       hipStream_t stream, void** params) {
  if (!f) return hipErrorInvalidHandle;
  hipError_t error = hoc_activate(f->module->device);
  unsigned int cuda_bx = 0, cuda_shared = 0;
  if (error == hipSuccess) {
    error = hoc_prepare_launch(f, "hipModuleLaunchCooperativeKernel", bx, by, bz, shared,
                               &cuda_bx, &cuda_shared);
  }
  if (error != hipSuccess) return error;
  return hoc_error(hoc.cu.cuLaunchCooperativeKernel(f->function, gx, gy, gz, cuda_bx, by, bz,
                                                    cuda_shared, (CUstream)stream, params));
}
#endif

/* ---------------------------------------------------------------- memory */

HOC_EXPORT hipError_t hipMalloc(void** ptr, size_t size) {
  if (!ptr) return hipErrorInvalidValue;
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  if (size == 0) {
    *ptr = NULL; /* HIP: a zero-byte allocation succeeds with a null pointer */
    return hipSuccess;
  }
  CUdeviceptr device_ptr = 0;
  CUresult result = hoc.cu.cuMemAlloc(&device_ptr, size);
  if (result != CUDA_SUCCESS) return hoc_error(result);
  *ptr = (void*)(uintptr_t)device_ptr;
  return hipSuccess;
}

HOC_EXPORT hipError_t hipFree(void* ptr) {
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess || !ptr) return error;
  return hoc_error(hoc.cu.cuMemFree((CUdeviceptr)(uintptr_t)ptr));
}

HOC_EXPORT hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags) {
  if (!ptr) return hipErrorInvalidValue;
  /* hipHostMallocDefault is portable and mapped on ROCm; other flags are not emulated. */
  if (flags & ~(unsigned)(hipHostMallocPortable | hipHostMallocMapped)) return hipErrorNotSupported;
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  if (size == 0) {
    *ptr = NULL;
    return hipSuccess;
  }
  return hoc_error(
      hoc.cu.cuMemHostAlloc(ptr, size, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
}

HOC_EXPORT hipError_t hipHostFree(void* ptr) {
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess || !ptr) return error;
  return hoc_error(hoc.cu.cuMemFreeHost(ptr));
}

HOC_EXPORT hipError_t hipMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  if (!free_bytes || !total_bytes) return hipErrorInvalidValue;
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  return hoc_error(hoc.cu.cuMemGetInfo(free_bytes, total_bytes));
}

HOC_EXPORT hipError_t hipMemsetD8Async(hipDeviceptr_t dst, unsigned char value, size_t count,
                                       hipStream_t stream) {
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  return hoc_error(
      hoc.cu.cuMemsetD8Async((CUdeviceptr)(uintptr_t)dst, value, count, (CUstream)stream));
}

HOC_EXPORT hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void* src, size_t size,
                                         hipStream_t stream) {
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  return hoc_error(
      hoc.cu.cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)dst, src, size, (CUstream)stream));
}

HOC_EXPORT hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t size,
                                         hipStream_t stream) {
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  return hoc_error(
      hoc.cu.cuMemcpyDtoHAsync(dst, (CUdeviceptr)(uintptr_t)src, size, (CUstream)stream));
}

HOC_EXPORT hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t size,
                                         hipStream_t stream) {
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  return hoc_error(hoc.cu.cuMemcpyDtoDAsync((CUdeviceptr)(uintptr_t)dst,
                                            (CUdeviceptr)(uintptr_t)src, size, (CUstream)stream));
}

/* ---------------------------------------------------------------- streams, capture, graphs
 * HIP's stream, event and graph handles are the CUDA ones, cast: NULL is the null stream in both. */

HOC_EXPORT hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned int flags) {
  if (!stream || (flags & ~(unsigned)hipStreamNonBlocking)) return hipErrorInvalidValue;
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  CUstream created = NULL;
  CUresult result = hoc.cu.cuStreamCreate(
      &created, flags & hipStreamNonBlocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT);
  if (result != CUDA_SUCCESS) return hoc_error(result);
  *stream = (hipStream_t)created;
  return hipSuccess;
}

HOC_EXPORT hipError_t hipStreamDestroy(hipStream_t stream) {
  if (!stream) return hipErrorInvalidHandle;
  hipError_t error = hoc_ready();
  if (error != hipSuccess) return error;
  return hoc_error(hoc.cu.cuStreamDestroy((CUstream)stream));
}

HOC_EXPORT hipError_t hipStreamSynchronize(hipStream_t stream) {
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  return hoc_error(hoc.cu.cuStreamSynchronize((CUstream)stream));
}

HOC_EXPORT hipError_t hipDeviceSynchronize(void) {
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  return hoc_error(hoc.cu.cuCtxSynchronize());
}

/* The device a stream belongs to (ROCm 5.3+; HIP-on-NVIDIA: cuStreamGetDevice). */
HOC_EXPORT hipError_t hipStreamGetDevice(hipStream_t stream, int* device) {
  if (!device) return hipErrorInvalidValue;
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  CUdevice cu_device = 0;
  CUresult result = hoc.cu.cuStreamGetDevice((CUstream)stream, &cu_device);
  if (result != CUDA_SUCCESS) return hoc_error(result);
  *device = (int)cu_device;
  return hipSuccess;
}

HOC_EXPORT hipError_t hipStreamIsCapturing(hipStream_t stream, hipStreamCaptureStatus* status) {
  if (!status) return hipErrorInvalidValue;
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult result = hoc.cu.cuStreamIsCapturing((CUstream)stream, &capture);
  if (result != CUDA_SUCCESS) return hoc_error(result);
  *status = (hipStreamCaptureStatus)capture;
  return hipSuccess;
}

HOC_EXPORT hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode) {
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  return hoc_error(hoc.cu.cuStreamBeginCapture((CUstream)stream, (CUstreamCaptureMode)mode));
}

HOC_EXPORT hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t* graph) {
  if (!graph) return hipErrorInvalidValue;
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  CUgraph captured = NULL;
  CUresult result = hoc.cu.cuStreamEndCapture((CUstream)stream, &captured);
  if (result != CUDA_SUCCESS) return hoc_error(result);
  *graph = (hipGraph_t)captured;
  return hipSuccess;
}

HOC_EXPORT hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t* exec, hipGraph_t graph,
                                                   unsigned long long flags) {
  if (!exec || !graph) return hipErrorInvalidValue;
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  CUgraphExec created = NULL;
  CUresult result = hoc.cu.cuGraphInstantiateWithFlags(&created, (CUgraph)graph, flags);
  if (result != CUDA_SUCCESS) return hoc_error(result);
  *exec = (hipGraphExec_t)created;
  return hipSuccess;
}

HOC_EXPORT hipError_t hipGraphLaunch(hipGraphExec_t exec, hipStream_t stream) {
  if (!exec) return hipErrorInvalidValue;
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  return hoc_error(hoc.cu.cuGraphLaunch((CUgraphExec)exec, (CUstream)stream));
}

HOC_EXPORT hipError_t hipGraphExecDestroy(hipGraphExec_t exec) {
  if (!exec) return hipErrorInvalidValue;
  hipError_t error = hoc_ready();
  if (error != hipSuccess) return error;
  return hoc_error(hoc.cu.cuGraphExecDestroy((CUgraphExec)exec));
}

HOC_EXPORT hipError_t hipGraphDestroy(hipGraph_t graph) {
  if (!graph) return hipErrorInvalidValue;
  hipError_t error = hoc_ready();
  if (error != hipSuccess) return error;
  return hoc_error(hoc.cu.cuGraphDestroy((CUgraph)graph));
}

/* ---------------------------------------------------------------- events */

HOC_EXPORT hipError_t hipEventCreateWithFlags(hipEvent_t* event, unsigned flags) {
  const unsigned known = hipEventBlockingSync | hipEventDisableTiming | hipEventInterprocess;
  if (!event || (flags & ~known)) return hipErrorInvalidValue;
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  CUevent created = NULL;
  CUresult result = hoc.cu.cuEventCreate(&created, flags);
  if (result != CUDA_SUCCESS) return hoc_error(result);
  *event = (hipEvent_t)created;
  return hipSuccess;
}

HOC_EXPORT hipError_t hipEventDestroy(hipEvent_t event) {
  if (!event) return hipErrorInvalidHandle;
  hipError_t error = hoc_ready();
  if (error != hipSuccess) return error;
  return hoc_error(hoc.cu.cuEventDestroy((CUevent)event));
}

HOC_EXPORT hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  if (!event) return hipErrorInvalidHandle;
  hipError_t error = hoc_activate_current();
  if (error != hipSuccess) return error;
  return hoc_error(hoc.cu.cuEventRecord((CUevent)event, (CUstream)stream));
}

HOC_EXPORT hipError_t hipEventSynchronize(hipEvent_t event) {
  if (!event) return hipErrorInvalidHandle;
  hipError_t error = hoc_ready();
  if (error != hipSuccess) return error;
  return hoc_error(hoc.cu.cuEventSynchronize((CUevent)event));
}

HOC_EXPORT hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  if (!ms) return hipErrorInvalidValue;
  if (!start || !stop) return hipErrorInvalidHandle;
  hipError_t error = hoc_ready();
  if (error != hipSuccess) return error;
  return hoc_error(hoc.cu.cuEventElapsedTime(ms, (CUevent)start, (CUevent)stop));
}
