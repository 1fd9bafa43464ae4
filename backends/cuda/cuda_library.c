/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt CUDA backend: loading the driver (libcuda opened at run time once per process, every entry
 * point resolved through cuGetProcAddress), its feature bits, and the backend's log. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_internal.h"
#include "backends/cuda/cuda_symbols.h"
#include "base/dylib.h"
#include "base/log.h"

/* ---------------------------------------------------------------- the symbol table */

static const tkrt_cuda_symbol_info_t tkrt_cuda_symbol_table[] = {
#define TKRT_CUDA_SYMBOL_ROW(name, abi, kind) \
  {#name, abi, kind, offsetof(tkrt_cuda_driver_t, name)},
    TKRT_CUDA_SYMBOLS(TKRT_CUDA_SYMBOL_ROW)
#undef TKRT_CUDA_SYMBOL_ROW
};

const tkrt_cuda_symbol_info_t* tkrt_cuda_symbol_infos(size_t* out_count) {
  *out_count = sizeof(tkrt_cuda_symbol_table) / sizeof(tkrt_cuda_symbol_table[0]);
  return tkrt_cuda_symbol_table;
}

uint32_t tkrt_cuda_features(const tkrt_cuda_driver_t* driver, int cc_major, int cluster_launch,
                            int cooperative_launch) {
  uint32_t features = 0;
  if (driver->cuLaunchKernelEx) {
    if (cc_major >= 9 && cluster_launch) features |= TKRT_DEVICE_FEATURE_CLUSTER;
    if (cooperative_launch) features |= TKRT_DEVICE_FEATURE_COOPERATIVE;
    if (cc_major >= 9) features |= TKRT_DEVICE_FEATURE_PDL;
  }
  if (driver->cuTensorMapEncodeTiled && cc_major >= 9) features |= TKRT_DEVICE_FEATURE_TMA;
  if (driver->cuStreamBeginCapture && driver->cuStreamEndCapture &&
      driver->cuGraphInstantiateWithFlags && driver->cuGraphDestroy && driver->cuGraphLaunch &&
      driver->cuGraphExecDestroy) {
    features |= TKRT_DEVICE_FEATURE_GRAPHS;
  }
  return features;
}

/* ---------------------------------------------------------------- logging */

/* The backend's log goes through tkrt's (base/log.h); its call sites name their level. These
 * three keep the older names working: debug level, and the device option's "log everything". */
void tkrt_cuda_log_enable(void) { tkrt_log_raise_level(TKRT_LOG_DEBUG); }

int tkrt_cuda_log_enabled(void) { return tkrt_log_enabled(TKRT_LOG_DEBUG); }

void tkrt_cuda_log(const char* format, ...) {
  if (!tkrt_log_enabled(TKRT_LOG_DEBUG)) return;
  char line[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(line, sizeof(line), format, args);
  va_end(args);
  tkrt_log_message(TKRT_LOG_DEBUG, "cuda", "%s", line);
}

/* ---------------------------------------------------------------- loading the driver */

/* The driver, filled once by the load below; the outcome (loaded, or why not) is kept by the
 * open-once record (base/dylib.h), which turns it into a fresh status for every caller. */
static tkrt_cuda_driver_t tkrt_cuda_driver;
static tkrt_dylib_once_t tkrt_cuda_load_once = TKRT_DYLIB_ONCE_INIT;

/* The status' message after `context`, as an UNAVAILABLE load failure; frees the status. */
static tkrt_status_t tkrt_cuda_load_fail_status(const char* context, tkrt_status_t status) {
  tkrt_status_t failure =
      TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE, "%s%s", context, tkrt_status_message(status));
  tkrt_status_free(status);
  return failure;
}

static tkrt_status_t tkrt_cuda_load_driver(void* unused) {
  (void)unused;
  tkrt_cuda_driver_t* driver = &tkrt_cuda_driver;
  memset(driver, 0, sizeof(*driver));

  /* libcuda.so.1 is the driver's ABI name; plain libcuda.so only exists with development files.
   * A copy the process already loaded (XLA, PyTorch) is the same library, so taking it is free. */
  static const char* const names[] = {"libcuda.so.1", "libcuda.so"};
  void* library = NULL;
  const char* opened = NULL;
  tkrt_status_t status =
      tkrt_dylib_open(names, sizeof(names) / sizeof(names[0]), 1, &library, &opened);
  if (status) {
    return tkrt_cuda_load_fail_status("the CUDA driver library is not installed: ", status);
  }
  driver->library = opened;

  /* cuGetProcAddress_v2 (CUDA 12.0) is the one entry point taken by name; everything else goes
   * through it so that the ABI variant matches the prototype we call (see cuda_symbols.h). */
  PFN_cuGetProcAddress_v12000 get_proc =
      (PFN_cuGetProcAddress_v12000)tkrt_dylib_symbol(library, "cuGetProcAddress_v2");
  if (!get_proc) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE,
                            "%s has no cuGetProcAddress_v2: the CUDA driver is older than 12.0, "
                            "which tkrt needs",
                            opened);
  }
  /* LEGACY_STREAM: never the _ptsz variants. A NULL stream then means the legacy default stream,
   * which synchronises with other blocking streams, as for cuLaunchKernel called by name from
   * code built without --default-stream per-thread (jaxlib, Triton's launcher). DEFAULT would
   * mean the same here, but only by virtue of how this file is compiled. */
  const cuuint64_t flags = CU_GET_PROC_ADDRESS_LEGACY_STREAM;
  CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  void* entry = NULL;
  CUresult result = get_proc("cuDriverGetVersion", &entry, 2020, flags, &found);
  if (result != CUDA_SUCCESS || !entry) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE,
                            "%s: cuGetProcAddress(cuDriverGetVersion) failed (CUresult %d)", opened,
                            (int)result);
  }
  int driver_version = 0;
  result = ((PFN_cuDriverGetVersion_v2020)entry)(&driver_version);
  if (result != CUDA_SUCCESS) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE, "%s: cuDriverGetVersion failed (CUresult %d)",
                            opened, (int)result);
  }
  driver->driver_version = driver_version;
  /* Asking for a version above the driver's is CUDA_ERROR_INVALID_VALUE; above the API version
   * cuda_api.h declares would hand out prototypes this file was not compiled against. */
  driver->resolve_version =
      driver_version < TKRT_CUDA_API_VERSION ? driver_version : TKRT_CUDA_API_VERSION;

  char missing[512];
  missing[0] = '\0';
  size_t count;
  const tkrt_cuda_symbol_info_t* symbols = tkrt_cuda_symbol_infos(&count);
  for (size_t i = 0; i < count; ++i) {
    void** slot = (void**)((char*)driver + symbols[i].offset);
    entry = NULL;
    found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (symbols[i].abi <= driver->resolve_version) {
      result = get_proc(symbols[i].name, &entry, driver->resolve_version, flags, &found);
      if (result != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS) entry = NULL;
    }
    *slot = entry;
    if (!entry && symbols[i].kind == TKRT_CUDA_REQUIRED) {
      size_t used = strlen(missing);
      snprintf(missing + used, sizeof(missing) - used, "%s%s", used ? ", " : "",
               symbols[i].name);
    }
  }
  if (missing[0]) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE,
                            "%s (driver version %d) lacks required entry points: %s", opened,
                            driver_version, missing);
  }

  driver->cuCtxSynchronize_exported =
      (PFN_cuCtxSynchronize_v2000)tkrt_dylib_symbol(library, "cuCtxSynchronize");

  result = driver->cuInit(0);
  if (result != CUDA_SUCCESS) {
    char context[128];
    snprintf(context, sizeof(context), "%s (driver version %d): ", opened, driver_version);
    return tkrt_cuda_load_fail_status(context, TKRT_CUDA_STATUS(result, "cuInit"));
  }
  return NULL;
}

static atomic_int tkrt_cuda_load_logged;

/* What loading found, said once per process, after the once (a sink may block: never inside). */
static void tkrt_cuda_log_load(void) {
  const int loaded = tkrt_dylib_once_loaded(&tkrt_cuda_load_once);
  if (!tkrt_log_enabled(loaded ? TKRT_LOG_INFO : TKRT_LOG_DEBUG)) return;
  if (atomic_exchange(&tkrt_cuda_load_logged, 1)) return;
  if (loaded) {
    tkrt_log_message(TKRT_LOG_INFO, "cuda", "loaded %s (driver version %d)",
                     tkrt_cuda_driver.library, tkrt_cuda_driver.driver_version);
  } else {
    tkrt_log_message(TKRT_LOG_DEBUG, "cuda", "driver not loaded: %s",
                     tkrt_dylib_once_message(&tkrt_cuda_load_once));
  }
}

tkrt_status_t tkrt_cuda_driver_load(const tkrt_cuda_driver_t** out_driver) {
  tkrt_status_t status = tkrt_dylib_once(&tkrt_cuda_load_once, tkrt_cuda_load_driver, NULL, NULL);
  tkrt_cuda_log_load();
  if (status) return status;
  *out_driver = &tkrt_cuda_driver;
  return NULL;
}

const tkrt_cuda_driver_t* tkrt_cuda_driver_if_loaded(void) {
  return tkrt_dylib_once_loaded(&tkrt_cuda_load_once) ? &tkrt_cuda_driver : NULL;
}
