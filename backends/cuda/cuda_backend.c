/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt CUDA backend: its descriptor (always compiled: what images it runs and how their archs are
 * named need no CUDA header) and its factory, which opens the driver only when a build has it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal/hal.h"

#if TKRT_HAVE_BACKEND_CUDA
#include "backends/cuda/cuda_internal.h"
#endif

extern const tkrt_hal_backend_t tkrt_cuda_backend;
void tkrt_cuda_arch_for_capability(uint32_t compute_capability, char* out, size_t capacity);

/* Parses "sm_90", "sm_90a", "sm_100f" into 90 and the suffix; 0 when the text is not of that
 * form. */
static int tkrt_cuda_parse_sm(const char* arch, char* out_suffix) {
  *out_suffix = '\0';
  if (!arch || strncmp(arch, "sm_", 3) != 0) return 0;
  char* end = NULL;
  long value = strtol(arch + 3, &end, 10);
  if (end == arch + 3 || value <= 0 || value > 10000) return 0;
  if (*end == 'a' || *end == 'f') *out_suffix = *end++;
  return *end ? 0 : (int)value;
}

/* Machine code ranks over PTX (no JIT). An "a" (arch-specific) image runs on exactly its
 * compute capability; an "f" (family) one on later minors of its major; a plain cubin on later
 * minors of its major, plain PTX on anything at least as new. Fatbins: the driver picks. */
static int tkrt_cuda_image_rank(const tkrt_device_info_t* info, tkrt_image_kind_t kind,
                                const char* arch) {
  if (kind != TKRT_IMAGE_PTX && kind != TKRT_IMAGE_CUBIN && kind != TKRT_IMAGE_FATBIN) return 0;
  int rank = kind == TKRT_IMAGE_PTX ? 1 : 2;
  if (!info || !arch || !*arch || kind == TKRT_IMAGE_FATBIN) return rank;
  char suffix;
  int want = tkrt_cuda_parse_sm(arch, &suffix);
  int have = info->cc_major * 10 + info->cc_minor;
  if (!want) return rank; /* an arch spelling we do not know: let the driver judge */
  if (suffix == 'a') return have == want ? rank : 0;
  if (kind == TKRT_IMAGE_PTX && suffix != 'f') return have >= want ? rank : 0;
  return have / 10 == want / 10 && have >= want ? rank : 0;
}

/* What jaxlib compiles PTX for: sm_XY, and the arch-specific sm_XYa from Hopper (9.0) on. */
void tkrt_cuda_arch_for_capability(uint32_t compute_capability, char* out, size_t capacity) {
  if (compute_capability == 0) {
    if (capacity) out[0] = '\0';
    return;
  }
  snprintf(out, capacity, "sm_%u%s", compute_capability, compute_capability >= 90 ? "a" : "");
}

/* Triton's target.arch for CUDA is the compute capability (90); its images say sm_90 or sm_90a. */
static void tkrt_cuda_triton_arch_name(const char* triton_arch, char* out, size_t capacity) {
  snprintf(out, capacity, "sm_%s", triton_arch);
}

static bool tkrt_cuda_triton_image_matches(const tkrt_image_info_t* info,
                                           const char* triton_arch) {
  char* end = NULL;
  unsigned long want = strtoul(triton_arch, &end, 10);
  return !(end != triton_arch && *end == '\0' && info->sm && info->sm != want);
}

/* cuda.cache_dir (the JIT cache folder; "off": none) and cuda.trust_shared_cache (0 or 1). */
static tkrt_status_t tkrt_cuda_parse_param(const char* key, const char* value,
                                           tkrt_device_options_t* options) {
  if (strcmp(key, "cache_dir") == 0) {
    options->cache_dir = value;
    return NULL;
  }
  if (strcmp(key, "trust_shared_cache") == 0) {
    if (strcmp(value, "0") != 0 && strcmp(value, "1") != 0) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "backend parameter cuda.trust_shared_cache is '%s'; expected 0 or 1",
                              value);
    }
    options->trust_shared_cache = value[0] == '1';
    return NULL;
  }
  return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                          "unknown backend parameter cuda.%s; the cuda backend takes cache_dir "
                          "and trust_shared_cache",
                          key);
}

static const tkrt_hal_image_format_t kCudaFormats[] = {
    {.kind = TKRT_IMAGE_CUBIN, .triton_extension = ".cubin", .triton_asm_key = "cubin"},
    {.kind = TKRT_IMAGE_PTX, .triton_extension = ".ptx", .triton_asm_key = "ptx"},
    {.kind = TKRT_IMAGE_FATBIN},
};
/* kDLCUDA, kDLCUDAManaged */
static const int32_t kCudaDlpackTypes[] = {2, 13};

#if TKRT_HAVE_BACKEND_CUDA

static tkrt_status_t tkrt_cuda_count_devices(const tkrt_cuda_driver_t** out_driver,
                                             int* out_count) {
  const tkrt_cuda_driver_t* driver = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_cuda_driver_load(&driver));
  int count = 0;
  CUresult result = driver->cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS) {
    tkrt_status_t status = TKRT_CUDA_STATUS(result, "cuDeviceGetCount");
    tkrt_status_t unavailable =
        TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE, "%s", tkrt_status_message(status));
    tkrt_status_free(status);
    return unavailable;
  }
  if (count <= 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE,
                            "the CUDA driver (%s, version %d) reports no device",
                            driver->library, driver->driver_version);
  }
  *out_driver = driver;
  *out_count = count;
  return NULL;
}

static tkrt_status_t tkrt_cuda_probe(const tkrt_device_options_t* options,
                                     int* out_device_count) {
  (void)options;
  const tkrt_cuda_driver_t* driver = NULL;
  int count = 0;
  TKRT_RETURN_IF_ERROR(tkrt_cuda_count_devices(&driver, &count));
  *out_device_count = count;
  return NULL;
}

static tkrt_status_t tkrt_cuda_backend_device_create(const tkrt_device_options_t* options,
                                                     tkrt_device_t** out_device) {
  const tkrt_cuda_driver_t* driver = NULL;
  int count = 0;
  TKRT_RETURN_IF_ERROR(tkrt_cuda_count_devices(&driver, &count));
  int ordinal = options->ordinal;
  if (ordinal < 0 || ordinal >= count) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE,
                            "CUDA device %d does not exist: %d device%s visible (ordinals 0 to "
                            "%d; CUDA_VISIBLE_DEVICES may hide others)",
                            ordinal, count, count == 1 ? " is" : "s are", count - 1);
  }
  return tkrt_cuda_device_create(&tkrt_cuda_backend, driver, options, out_device);
}

/* cuStreamGetDevice (driver 12.8+) answers directly. Older drivers: the stream's context (or,
 * while it captures, where cuStreamGetCtx misbehaves, the current one) compared with each
 * device's primary context, the one XLA and tkrt share. */
static tkrt_status_t tkrt_cuda_native_stream_ordinal(void* stream, int* out_ordinal) {
  const tkrt_cuda_driver_t* driver = tkrt_cuda_driver_if_loaded();
  if (!driver) {
    /* The stream came from a driver someone loaded: if it is loaded, load our table of it. */
    tkrt_status_t status = tkrt_cuda_driver_load(&driver);
    if (status) {
      return tkrt_status_annotate(status, "the CUDA driver is not usable in this process");
    }
  }
  CUdevice device = -1;
  if (driver->cuStreamGetDevice &&
      driver->cuStreamGetDevice((CUstream)stream, &device) == CUDA_SUCCESS) {
    *out_ordinal = (int)device;
    return NULL;
  }
  CUcontext context = NULL;
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  if (stream && driver->cuStreamGetCtx &&
      driver->cuStreamIsCapturing((CUstream)stream, &capture) == CUDA_SUCCESS &&
      capture == CU_STREAM_CAPTURE_STATUS_NONE) {
    CUgreenCtx green = NULL;
    if (driver->cuStreamGetCtx((CUstream)stream, &context, &green) != CUDA_SUCCESS) context = NULL;
  }
  if (!context && driver->cuCtxGetCurrent(&context) != CUDA_SUCCESS) context = NULL;
  int count = 0;
  if (context && driver->cuDeviceGetCount(&count) == CUDA_SUCCESS) {
    for (int i = 0; i < count; ++i) {
      CUdevice candidate;
      CUcontext primary = NULL;
      if (driver->cuDeviceGet(&candidate, i) != CUDA_SUCCESS ||
          driver->cuDevicePrimaryCtxRetain(&primary, candidate) != CUDA_SUCCESS) {
        continue;
      }
      driver->cuDevicePrimaryCtxRelease(candidate);
      if (primary == context) {
        *out_ordinal = i;
        return NULL;
      }
    }
  }
  return TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND,
                          "the CUDA driver cannot tell which device stream %p belongs to", stream);
}

#endif

const tkrt_hal_backend_t tkrt_cuda_backend = {
    .name = "cuda",
    .compiled = TKRT_HAVE_BACKEND_CUDA,
#if TKRT_HAVE_BACKEND_CUDA
    .probe = tkrt_cuda_probe,
    .device_create = tkrt_cuda_backend_device_create,
    .native_stream_ordinal = tkrt_cuda_native_stream_ordinal,
#endif
    .image_rank = tkrt_cuda_image_rank,
    .formats.arch_for_capability = tkrt_cuda_arch_for_capability,
    .tma_descriptor_size = 128, /* a CUtensorMap, passed by value as one kernel parameter */
    /* cuda.h 13 declares CUtensorMap _Alignas(128) (12: 64), and cuTensorMapEncodeTiled may
     * assume it. */
    .tma_descriptor_align = 128,
    .foreign_streams = true,
    .formats.image_formats = kCudaFormats,
    .formats.image_format_count = sizeof(kCudaFormats) / sizeof(kCudaFormats[0]),
    .formats.dlpack_device_types = kCudaDlpackTypes,
    .formats.dlpack_device_type_count = sizeof(kCudaDlpackTypes) / sizeof(kCudaDlpackTypes[0]),
    .formats.triton_target = "cuda",
    .formats.triton_output_versioned = true,
    .formats.triton_arch_is_integer = true,
    .formats.triton_arch_expected = "the compute capability as an integer (e.g. 90)",
    .formats.triton_arch_name = tkrt_cuda_triton_arch_name,
    .formats.triton_image_matches = tkrt_cuda_triton_image_matches,
    .parse_param = tkrt_cuda_parse_param,
};
