/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt CUDA backend: every driver entry point the backend calls, one X-macro line each, and the
 * process-wide table they are resolved into (see cuda_library.c for how). */
#ifndef TKRT_BACKENDS_CUDA_CUDA_SYMBOLS_H_
#define TKRT_BACKENDS_CUDA_CUDA_SYMBOLS_H_

#include <stddef.h>
#include <stdint.h>

#include "backends/cuda/cuda_api.h"
#include "tkrt/device.h"
#include "tkrt/status.h"

enum { TKRT_CUDA_OPTIONAL = 0, TKRT_CUDA_REQUIRED = 1 };

/* X(name, abi, kind)
 *   name: the base name handed to cuGetProcAddress ("cuMemAlloc", never "cuMemAlloc_v2").
 *   abi:  the CUDA version of the ABI variant whose prototype we call through. It names the
 *         typedef PFN_<name>_v<abi> of cuda_api.h (cudaTypedefs.h's name for it), so a number
 *         cuda_api.h does not declare does not compile, and the ABI check (cuda.abi) compares it
 *         with cudaTypedefs.h's, and with every later variant up to TKRT_CUDA_API_VERSION. It is the
 *         newest variant with that prototype, or an older one when later variants kept the same
 *         prototype (cuEventElapsedTime: v2000 and v12080 are call-compatible), which lets older
 *         drivers qualify. A driver older than `abi` cannot give us this prototype: the entry is
 *         treated as missing rather than resolved to an older, incompatible variant.
 *   kind: REQUIRED entries must resolve or the backend is unavailable; OPTIONAL ones stay NULL
 *         and switch off a feature bit (see tkrt_cuda_features).
 * Minimum driver: CUDA 12.0 (cuGetProcAddress_v2). */
#define TKRT_CUDA_SYMBOLS(X)                                   \
  X(cuGetErrorName, 6000, TKRT_CUDA_OPTIONAL)                  \
  X(cuGetErrorString, 6000, TKRT_CUDA_OPTIONAL)                \
  X(cuInit, 2000, TKRT_CUDA_REQUIRED)                          \
  X(cuDeviceGet, 2000, TKRT_CUDA_REQUIRED)                     \
  X(cuDeviceGetCount, 2000, TKRT_CUDA_REQUIRED)                \
  X(cuDeviceGetName, 2000, TKRT_CUDA_REQUIRED)                 \
  X(cuDeviceGetAttribute, 2000, TKRT_CUDA_REQUIRED)            \
  X(cuDeviceTotalMem, 3020, TKRT_CUDA_REQUIRED)                \
  X(cuDevicePrimaryCtxRetain, 7000, TKRT_CUDA_REQUIRED)        \
  X(cuDevicePrimaryCtxRelease, 11000, TKRT_CUDA_REQUIRED)      \
  X(cuCtxGetCurrent, 4000, TKRT_CUDA_REQUIRED)                 \
  X(cuCtxSetCurrent, 4000, TKRT_CUDA_REQUIRED)                 \
  X(cuModuleLoadData, 2000, TKRT_CUDA_REQUIRED)                \
  X(cuModuleUnload, 2000, TKRT_CUDA_REQUIRED)                  \
  X(cuModuleGetFunction, 2000, TKRT_CUDA_REQUIRED)             \
  X(cuFuncGetAttribute, 2020, TKRT_CUDA_REQUIRED)              \
  X(cuFuncSetAttribute, 9000, TKRT_CUDA_REQUIRED)              \
  X(cuLinkCreate, 6050, TKRT_CUDA_REQUIRED)                    \
  X(cuLinkAddData, 6050, TKRT_CUDA_REQUIRED)                   \
  X(cuLinkComplete, 5050, TKRT_CUDA_REQUIRED)                  \
  X(cuLinkDestroy, 5050, TKRT_CUDA_REQUIRED)                   \
  X(cuLaunchKernel, 4000, TKRT_CUDA_REQUIRED)                  \
  X(cuLaunchKernelEx, 11060, TKRT_CUDA_OPTIONAL)               \
  X(cuTensorMapEncodeTiled, 12000, TKRT_CUDA_OPTIONAL)         \
  X(cuMemAlloc, 3020, TKRT_CUDA_REQUIRED)                      \
  X(cuMemFree, 3020, TKRT_CUDA_REQUIRED)                       \
  X(cuMemHostAlloc, 2020, TKRT_CUDA_REQUIRED)                  \
  X(cuMemFreeHost, 2000, TKRT_CUDA_REQUIRED)                   \
  X(cuMemGetInfo, 3020, TKRT_CUDA_REQUIRED)                    \
  X(cuMemsetD8Async, 3020, TKRT_CUDA_REQUIRED)                 \
  X(cuMemcpyHtoDAsync, 3020, TKRT_CUDA_REQUIRED)               \
  X(cuMemcpyDtoHAsync, 3020, TKRT_CUDA_REQUIRED)               \
  X(cuMemcpyDtoDAsync, 3020, TKRT_CUDA_REQUIRED)               \
  X(cuStreamCreate, 2000, TKRT_CUDA_REQUIRED)                  \
  X(cuStreamDestroy, 4000, TKRT_CUDA_REQUIRED)                 \
  X(cuStreamSynchronize, 2000, TKRT_CUDA_REQUIRED)             \
  X(cuCtxSynchronize, 13000, TKRT_CUDA_OPTIONAL)               \
  X(cuStreamIsCapturing, 10000, TKRT_CUDA_REQUIRED)            \
  X(cuStreamGetDevice, 12080, TKRT_CUDA_OPTIONAL)              \
  X(cuStreamGetCtx, 12050, TKRT_CUDA_OPTIONAL)                 \
  X(cuStreamBeginCapture, 10010, TKRT_CUDA_OPTIONAL)           \
  X(cuStreamEndCapture, 10000, TKRT_CUDA_OPTIONAL)             \
  X(cuGraphInstantiateWithFlags, 11040, TKRT_CUDA_OPTIONAL)    \
  X(cuGraphDestroy, 10000, TKRT_CUDA_OPTIONAL)                 \
  X(cuGraphLaunch, 10000, TKRT_CUDA_OPTIONAL)                  \
  X(cuGraphExecDestroy, 10000, TKRT_CUDA_OPTIONAL)             \
  X(cuEventCreate, 2000, TKRT_CUDA_REQUIRED)                   \
  X(cuEventDestroy, 4000, TKRT_CUDA_REQUIRED)                  \
  X(cuEventRecord, 2000, TKRT_CUDA_REQUIRED)                   \
  X(cuEventSynchronize, 2000, TKRT_CUDA_REQUIRED)              \
  X(cuEventElapsedTime, 2000, TKRT_CUDA_REQUIRED)

/* The resolved driver. Fields carry the API names, so `driver->cuMemAlloc(...)` reads like the
 * API. Filled once per process, read-only afterwards. */
typedef struct tkrt_cuda_driver {
  const char* library;  /* the soname that opened */
  int driver_version;   /* cuDriverGetVersion */
  int resolve_version;  /* min(driver_version, TKRT_CUDA_API_VERSION): what cuGetProcAddress is asked */
#define TKRT_CUDA_SYMBOL_FIELD(name, abi, kind) PFN_##name##_v##abi name;
  TKRT_CUDA_SYMBOLS(TKRT_CUDA_SYMBOL_FIELD)
#undef TKRT_CUDA_SYMBOL_FIELD
  /* cuCtxSynchronize's first prototype, CUresult (void), for drivers before 13.0, whose
   * cuGetProcAddress has no variant 13000 (above: taking the context). Taken by its exported
   * name, whose prototype never changes (new prototypes get new names, cuCtxSynchronize_v2); the
   * ABI check compares it with cudaTypedefs.h's PFN_cuCtxSynchronize_v2000. NULL when absent. */
  PFN_cuCtxSynchronize_v2000 cuCtxSynchronize_exported;
} tkrt_cuda_driver_t;

/* One row per X-macro line, for loops that resolve or report symbols. */
typedef struct tkrt_cuda_symbol_info {
  const char* name;
  int abi;
  int kind;
  size_t offset; /* of the field in tkrt_cuda_driver_t */
} tkrt_cuda_symbol_info_t;

const tkrt_cuda_symbol_info_t* tkrt_cuda_symbol_infos(size_t* out_count);

/* Loads and initialises the driver once per process. On success lends the table (valid for the
 * process lifetime); otherwise UNAVAILABLE with what was tried. Thread-safe. */
tkrt_status_t tkrt_cuda_driver_load(const tkrt_cuda_driver_t** out_driver);

/* The table once loaded, NULL before (or when loading failed). For error formatting only. */
const tkrt_cuda_driver_t* tkrt_cuda_driver_if_loaded(void);

/* TKRT_DEVICE_FEATURE_* bits that the resolved optional symbols and the compute capability allow.
 * cluster_launch / cooperative_launch are the device attributes (non-zero: supported). */
uint32_t tkrt_cuda_features(const tkrt_cuda_driver_t* driver, int cc_major, int cluster_launch,
                            int cooperative_launch);

/* Once a device is opened with tkrt_device_options_t.log, the backend reports library loads, cache
 * hits and misses, JIT times and similar on stderr for the rest of the process, one line each,
 * prefixed "tkrt: cuda: ". */
void tkrt_cuda_log_enable(void);
int tkrt_cuda_log_enabled(void);
void tkrt_cuda_log(const char* format, ...) TKRT_PRINTF_LIKE(1, 2);

#endif /* TKRT_BACKENDS_CUDA_CUDA_SYMBOLS_H_ */
