/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt HIP backend: turns hipError_t values into tkrt statuses that keep the HIP error name and
 * the operation that failed. */
#include <stdarg.h>
#include <stdio.h>

#include "backends/hip/hip_internal.h"

/* By numeric value: these values mirror the CUDA runtime's and have not changed from ROCm 5.0 to
 * ROCm 7 (checked against the 5.2 headers and the current ROCm headers). */
tkrt_status_code_t tkrt_hip_status_code(int error) {
  switch (error) {
    case 0: /* hipSuccess */
      return TKRT_STATUS_OK;
    case 1:   /* hipErrorInvalidValue */
    case 9:   /* hipErrorInvalidConfiguration */
    case 12:  /* hipErrorInvalidPitchValue */
    case 13:  /* hipErrorInvalidSymbol */
    case 17:  /* hipErrorInvalidDevicePointer */
    case 21:  /* hipErrorInvalidMemcpyDirection */
    case 98:  /* hipErrorInvalidDeviceFunction */
    case 101: /* hipErrorInvalidDevice */
    case 200: /* hipErrorInvalidImage */
    case 201: /* hipErrorInvalidContext */
    case 209: /* hipErrorNoBinaryForGpu: the code object is not for this GPU */
    case 218: /* hipErrorInvalidKernelFile */
    case 300: /* hipErrorInvalidSource */
    case 400: /* hipErrorInvalidHandle */
    case 720: /* hipErrorCooperativeLaunchTooLarge */
    case 911: /* hipErrorInvalidChannelDescriptor */
    case 912: /* hipErrorInvalidTexture */
      return TKRT_STATUS_INVALID_ARGUMENT;
    case 2:    /* hipErrorOutOfMemory */
    case 701:  /* hipErrorLaunchOutOfResources */
    case 1052: /* hipErrorRuntimeMemory */
      return TKRT_STATUS_RESOURCE_EXHAUSTED;
    case 3:   /* hipErrorNotInitialized */
    case 4:   /* hipErrorDeinitialized */
    case 35:  /* hipErrorInsufficientDriver */
    case 100: /* hipErrorNoDevice */
      return TKRT_STATUS_UNAVAILABLE;
    case 301: /* hipErrorFileNotFound */
    case 302: /* hipErrorSharedObjectSymbolNotFound */
    case 500: /* hipErrorNotFound */
      return TKRT_STATUS_NOT_FOUND;
    case 5:   /* hipErrorProfilerDisabled */
    case 6:   /* hipErrorProfilerNotInitialized */
    case 7:   /* hipErrorProfilerAlreadyStarted */
    case 8:   /* hipErrorProfilerAlreadyStopped */
    case 52:  /* hipErrorMissingConfiguration */
    case 202: /* hipErrorContextAlreadyCurrent */
    case 207: /* hipErrorArrayIsMapped */
    case 208: /* hipErrorAlreadyMapped */
    case 210: /* hipErrorAlreadyAcquired */
    case 211: /* hipErrorNotMapped */
    case 212: /* hipErrorNotMappedAsArray */
    case 213: /* hipErrorNotMappedAsPointer */
    case 216: /* hipErrorContextAlreadyInUse */
    case 401: /* hipErrorIllegalState */
    case 709: /* hipErrorContextIsDestroyed: as CUDA_ERROR_CONTEXT_IS_DESTROYED */
    case 600: /* hipErrorNotReady: work not finished (e.g. an event not yet reached) */
    case 704: /* hipErrorPeerAccessAlreadyEnabled */
    case 705: /* hipErrorPeerAccessNotEnabled */
    case 708: /* hipErrorSetOnActiveProcess */
    case 712: /* hipErrorHostMemoryAlreadyRegistered */
    case 713: /* hipErrorHostMemoryNotRegistered */
    case 900: /* hipErrorStreamCaptureUnsupported */
    case 901: /* hipErrorStreamCaptureInvalidated */
    case 902: /* hipErrorStreamCaptureMerge */
    case 903: /* hipErrorStreamCaptureUnmatched */
    case 904: /* hipErrorStreamCaptureUnjoined */
    case 905: /* hipErrorStreamCaptureIsolation */
    case 906: /* hipErrorStreamCaptureImplicit */
    case 907: /* hipErrorCapturedEvent */
    case 908: /* hipErrorStreamCaptureWrongThread */
    case 910: /* hipErrorGraphExecUpdateFailure */
      return TKRT_STATUS_FAILED_PRECONDITION;
    case 215: /* hipErrorUnsupportedLimit */
    case 217: /* hipErrorPeerAccessUnsupported */
    case 801: /* hipErrorNotSupported */
      return TKRT_STATUS_UNIMPLEMENTED;
    /* A sticky device fault: the context is unusable until the process restarts, so INTERNAL,
     * not ABORTED (which invites a retry); the CUDA backend maps the same errors the same way
     * (backends/cuda/cuda_status.c), and XLA reports driver faults as INTERNAL too. */
    case 53:  /* hipErrorPriorLaunchFailure */
    case 700: /* hipErrorIllegalAddress */
    case 702: /* hipErrorLaunchTimeOut */
    case 710: /* hipErrorAssert */
    case 719: /* hipErrorLaunchFailure */
      return TKRT_STATUS_INTERNAL;
    case 214: /* hipErrorECCNotCorrectable: as CUDA_ERROR_ECC_UNCORRECTABLE */
      return TKRT_STATUS_DATA_LOSS;
    case 205:  /* hipErrorMapFailed */
    case 206:  /* hipErrorUnmapFailed */
    case 219:  /* hipErrorInvalidGraphicsContext */
    case 303:  /* hipErrorSharedObjectInitFailed */
    case 304:  /* hipErrorOperatingSystem */
    case 1053: /* hipErrorRuntimeOther */
      return TKRT_STATUS_INTERNAL;
    case 999: /* hipErrorUnknown */
    default:
      return TKRT_STATUS_UNKNOWN;
  }
}

tkrt_status_t tkrt_hip_make_status(const tkrt_hip_symbols_t* api, int error, const char* file,
                                   int line, const char* operation_format, ...) {
  if (error == 0) return NULL;
  char operation[384];
  va_list args;
  va_start(args, operation_format);
  vsnprintf(operation, sizeof(operation), operation_format, args);
  va_end(args);
  const char* name = api && api->hipGetErrorName ? api->hipGetErrorName((hipError_t)error) : NULL;
  tkrt_status_code_t code = tkrt_hip_status_code(error);
  if (name) return tkrt_status_make(code, file, line, "%s: %s (%d)", operation, name, error);
  return tkrt_status_make(code, file, line, "%s: hipError %d", operation, error);
}
