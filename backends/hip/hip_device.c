/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt HIP backend: the backend factory (probe, device creation), device attributes read in an
 * ABI-safe way across ROCm 5 to 7, and the device vtable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/hip/hip_internal.h"
#include "base/log.h"

/* ---------------------------------------------------------------- device attributes
 *
 * Why attributes one by one: ROCm 6 changed hipDeviceProp_t (new fields in the middle, gcnArchName
 * moved; the new layout is hipDeviceProp_tR0600 behind hipGetDevicePropertiesR0600), so a struct
 * compiled against one ROCm and filled by another is garbage. hipDeviceGetAttribute returns one int
 * per call and has no struct layout to disagree on.
 *
 * The numbers are hip_api.h's, not those of whichever header a build could find, so that the
 * meaning never depends on the build machine (hipDeviceAttribute_t's history is told there; the
 * ABI check hip.abi compares them with the installed ROCm headers, and they are the same in the
 * ROCm 7 headers). tkrt refuses runtimes older than 5.0 (hip_library.c), and a sanity check after
 * reading catches a future renumbering. */
typedef struct tkrt_hip_attribute_ids {
  hipDeviceAttribute_t cooperative_launch, cc_major, max_block_dim[3], max_grid_dim[3],
      max_threads_per_block, cc_minor, multiprocessor_count, max_shared_per_block,
      shared_per_block_optin, warp_size;
} tkrt_hip_attribute_ids_t;

static const tkrt_hip_attribute_ids_t tkrt_hip_attributes_rocm5_to_7 = {
    .cooperative_launch = hipDeviceAttributeCooperativeLaunch,
    .cc_major = hipDeviceAttributeComputeCapabilityMajor,
    .max_block_dim = {hipDeviceAttributeMaxBlockDimX, hipDeviceAttributeMaxBlockDimY,
                      hipDeviceAttributeMaxBlockDimZ},
    .max_grid_dim = {hipDeviceAttributeMaxGridDimX, hipDeviceAttributeMaxGridDimY,
                     hipDeviceAttributeMaxGridDimZ},
    .max_threads_per_block = hipDeviceAttributeMaxThreadsPerBlock,
    .cc_minor = hipDeviceAttributeComputeCapabilityMinor,
    .multiprocessor_count = hipDeviceAttributeMultiprocessorCount,
    .max_shared_per_block = hipDeviceAttributeMaxSharedMemoryPerBlock,
    .shared_per_block_optin = hipDeviceAttributeSharedMemPerBlockOptin,
    .warp_size = hipDeviceAttributeWarpSize,
};

/* The table for a runtime (hipRuntimeGetVersion): one so far; a future renumbering adds one. */
static const tkrt_hip_attribute_ids_t* tkrt_hip_attribute_ids(int runtime_version) {
  (void)runtime_version; /* >= 5.0 is guaranteed by hip_library.c */
  return &tkrt_hip_attributes_rocm5_to_7;
}

/* ---------------------------------------------------------------- gcnArchName
 *
 * No attribute returns the arch name (hipDeviceAttributeGcnArchName existed in ROCm 5 only, and
 * attributes are ints anyway), so it comes from the properties struct, read ABI-safely: the entry
 * point we call names the layout it fills (hipGetDevicePropertiesR0600 -> the ROCm 6 layout,
 * hipGetDeviceProperties in a library without R0600 -> the ROCm 5 layout), hip_api.h declares both
 * layouts (R0600 up to gcnArchName), the call writes into a buffer far larger than either, and the
 * result is cross-checked (warpSize field == the warp size attribute, name starts with "gfx" and
 * ends within its 256 bytes). If anything disagrees the name is left empty and info->arch is ""
 * (unknown): the device still works, image selection takes any HIP image (tkrt_image_fit in
 * core/call_launch.c), and only the pre-load arch check is skipped (the runtime still rejects
 * wrong code objects). */

/* Far above either layout's size (about 800 and 1500 bytes). */
#define TKRT_HIP_PROPS_BUFFER 16384

static void tkrt_hip_read_arch_name(const tkrt_hip_symbols_t* api, int ordinal, int warp_size,
                                    char* out, size_t capacity) {
  out[0] = '\0';
  if (!api->hipGetDevicePropertiesR0600 && !api->hipGetDeviceProperties) return;
  size_t warp_offset = 0, name_offset = 0;
  if (api->hipGetDevicePropertiesR0600) {
    warp_offset = offsetof(hipDeviceProp_tR0600, warpSize);
    name_offset = offsetof(hipDeviceProp_tR0600, gcnArchName);
  } else {
    warp_offset = offsetof(hipDeviceProp_tR0000, warpSize);
    name_offset = offsetof(hipDeviceProp_tR0000, gcnArchName);
  }
  _Static_assert(TKRT_HIP_PROPS_BUFFER >= sizeof(hipDeviceProp_tR0600) &&
                     TKRT_HIP_PROPS_BUFFER >= sizeof(hipDeviceProp_tR0000),
                 "the buffer holds either layout");
  unsigned char* buffer = calloc(1, TKRT_HIP_PROPS_BUFFER);
  if (!buffer) return;
  hipError_t error = api->hipGetDevicePropertiesR0600
                         ? api->hipGetDevicePropertiesR0600((hipDeviceProp_tR0600*)buffer, ordinal)
                         : api->hipGetDeviceProperties((hipDeviceProp_tR0000*)buffer, ordinal);
  if (error == hipSuccess) {
    int reported_warp;
    memcpy(&reported_warp, buffer + warp_offset, sizeof(reported_warp));
    const char* name = (const char*)buffer + name_offset;
    if (reported_warp == warp_size && memchr(name, '\0', 256) && strncmp(name, "gfx", 3) == 0) {
      snprintf(out, capacity, "%s", name);
    }
  }
  free(buffer);
}

/* ---------------------------------------------------------------- the device */

tkrt_status_t tkrt_hip_scope_enter(tkrt_hip_device_t* device, tkrt_hip_device_scope_t* scope) {
  scope->switched = false;
  hipError_t error = device->api->hipGetDevice(&scope->previous);
  if (error != hipSuccess) scope->previous = -1;
  if (scope->previous == device->ordinal) return NULL;
  error = device->api->hipSetDevice(device->ordinal);
  if (error != hipSuccess) {
    return TKRT_HIP_STATUS(device->api, error, "hipSetDevice(%d)", device->ordinal);
  }
  scope->switched = true;
  return NULL;
}

void tkrt_hip_scope_exit(tkrt_hip_device_t* device, const tkrt_hip_device_scope_t* scope) {
  if (scope->switched && scope->previous >= 0) (void)device->api->hipSetDevice(scope->previous);
}

void tkrt_hip_destroy(tkrt_device_t* base) {
  free(tkrt_hip_device_cast(base));
}

static tkrt_status_t tkrt_hip_get_attribute(const tkrt_hip_device_t* device,
                                            hipDeviceAttribute_t attribute,
                                            const char* what, int* out) {
  hipError_t error = device->api->hipDeviceGetAttribute(out, attribute, device->ordinal);
  if (error != hipSuccess) {
    return TKRT_HIP_STATUS(device->api, error, "hipDeviceGetAttribute(%s = %d, device %d)", what,
                           (int)attribute, device->ordinal);
  }
  return NULL;
}

static uint32_t tkrt_hip_positive(int value) { return value > 0 ? (uint32_t)value : 0; }

static tkrt_status_t tkrt_hip_device_fill_info(tkrt_hip_device_t* device) {
  const tkrt_hip_symbols_t* api = device->api;
  const tkrt_hip_attribute_ids_t* ids = tkrt_hip_attribute_ids(device->library->runtime_version);
  tkrt_device_info_t* info = &device->base.info;
  int warp = 0, cooperative = 0, major = 0, minor = 0, sms = 0, threads = 0, shared = 0, optin = 0;
  int block[3] = {0, 0, 0}, grid[3] = {0, 0, 0};
  TKRT_RETURN_IF_ERROR(tkrt_hip_get_attribute(device, ids->warp_size, "warp size", &warp));
  TKRT_RETURN_IF_ERROR(
      tkrt_hip_get_attribute(device, ids->cooperative_launch, "cooperative launch", &cooperative));
  TKRT_RETURN_IF_ERROR(tkrt_hip_get_attribute(device, ids->cc_major, "major version", &major));
  TKRT_RETURN_IF_ERROR(tkrt_hip_get_attribute(device, ids->cc_minor, "minor version", &minor));
  TKRT_RETURN_IF_ERROR(
      tkrt_hip_get_attribute(device, ids->multiprocessor_count, "compute units", &sms));
  TKRT_RETURN_IF_ERROR(tkrt_hip_get_attribute(device, ids->max_threads_per_block,
                                              "max threads per block", &threads));
  TKRT_RETURN_IF_ERROR(tkrt_hip_get_attribute(device, ids->max_shared_per_block,
                                              "max shared memory per block", &shared));
  TKRT_RETURN_IF_ERROR(tkrt_hip_get_attribute(device, ids->shared_per_block_optin,
                                              "opt-in shared memory per block", &optin));
  for (int i = 0; i < 3; ++i) {
    TKRT_RETURN_IF_ERROR(
        tkrt_hip_get_attribute(device, ids->max_block_dim[i], "max block dim", &block[i]));
    TKRT_RETURN_IF_ERROR(
        tkrt_hip_get_attribute(device, ids->max_grid_dim[i], "max grid dim", &grid[i]));
  }
  char version[32];
  tkrt_hip_format_version(device->library->runtime_version, version, sizeof(version));
  if ((warp != 32 && warp != 64) || threads <= 0 || threads > 4096 || sms <= 0 ||
      block[0] <= 0 || grid[0] <= 0 || shared <= 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNAVAILABLE,
                            "HIP device %d reports implausible attributes (warp size %d, %d threads "
                            "per block, %d compute units): the HIP %s runtime in %s numbers "
                            "hipDeviceAttribute_t differently than tkrt expects",
                            device->ordinal, warp, threads, sms, version,
                            device->library->opened_name);
  }
  size_t total = 0;
  hipError_t error = api->hipDeviceTotalMem(&total, device->ordinal);
  if (error != hipSuccess) {
    return TKRT_HIP_STATUS(api, error, "hipDeviceTotalMem(device %d)", device->ordinal);
  }
  error = api->hipDeviceGetName(info->name, (int)sizeof(info->name), device->ordinal);
  if (error != hipSuccess) {
    return TKRT_HIP_STATUS(api, error, "hipDeviceGetName(device %d)", device->ordinal);
  }
  info->name[sizeof(info->name) - 1] = '\0';
  tkrt_hip_read_arch_name(api, device->ordinal, warp, device->arch_name,
                          sizeof(device->arch_name));
  tkrt_hip_arch_processor(device->arch_name, info->arch, sizeof(info->arch));
  info->cc_major = major;
  info->cc_minor = minor;
  info->warp_size = (uint32_t)warp;
  info->sm_count = (uint32_t)sms;
  info->max_threads_per_block = (uint32_t)threads;
  for (int i = 0; i < 3; ++i) {
    info->max_block_dim[i] = tkrt_hip_positive(block[i]);
    info->max_grid_dim[i] = tkrt_hip_positive(grid[i]);
  }
  /* AMD GPUs have no opt-in step: any launch may use the per-block LDS limit (64 KiB on CDNA). */
  info->max_shared_per_block = (uint32_t)shared;
  info->max_shared_per_block_optin = optin > shared ? (uint32_t)optin : (uint32_t)shared;
  info->max_cluster_size = 0;
  info->total_memory = total;
  info->driver_version = device->library->driver_version;
  info->features = 0;
  if (cooperative && api->hipModuleLaunchCooperativeKernel) {
    info->features |= TKRT_DEVICE_FEATURE_COOPERATIVE;
  }
  if (api->hipStreamIsCapturing && api->hipStreamBeginCapture && api->hipStreamEndCapture &&
      api->hipGraphInstantiateWithFlags && api->hipGraphLaunch && api->hipGraphExecDestroy &&
      api->hipGraphDestroy) {
    info->features |= TKRT_DEVICE_FEATURE_GRAPHS;
  }
  return NULL;
}

tkrt_status_t tkrt_hip_device_create(const tkrt_hal_backend_t* backend,
                                     const tkrt_device_options_t* options,
                                     tkrt_device_t** out_device) {
  int ordinal = options->ordinal;
  const tkrt_hip_library_t* library = NULL;
  TKRT_RETURN_IF_ERROR(tkrt_hip_library_get(options->hip_library, &library));
  if (ordinal < 0 || ordinal >= library->device_count) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE,
                            "HIP device %d does not exist: the HIP runtime has %d device%s",
                            ordinal, library->device_count, library->device_count == 1 ? "" : "s");
  }
  tkrt_hip_device_t* device = calloc(1, sizeof(*device));
  if (!device) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  tkrt_hal_device_initialize(&device->base, backend, &tkrt_hip_device_vtable, ordinal);
  device->library = library;
  device->api = &library->api;
  device->ordinal = ordinal;
  tkrt_status_t status = tkrt_hip_device_fill_info(device);
  if (status) goto cleanup;
  TKRT_LOG_AT(TKRT_LOG_INFO, "hip", "device %d: %s, %s, %u CUs", ordinal, device->base.info.name,
              device->base.info.arch, device->base.info.sm_count);
  *out_device = &device->base;
  return NULL;

cleanup:
  free(device);
  return status;
}

/* ---------------------------------------------------------------- memory */

/* Device and pinned host memory, asynchronous memset and memcpy, and free/total memory, each run
 * with the device current on the calling thread. */
tkrt_status_t tkrt_hip_memory_alloc(tkrt_device_t* base, size_t size, tkrt_deviceptr_t* out_ptr) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_device_scope_t scope;
  TKRT_RETURN_IF_ERROR(tkrt_hip_scope_enter(device, &scope));
  void* ptr = NULL;
  hipError_t error = device->api->hipMalloc(&ptr, size);
  tkrt_hip_scope_exit(device, &scope);
  if (error != hipSuccess) {
    return TKRT_HIP_STATUS(device->api, error, "hipMalloc(%zu bytes) on HIP device %d", size,
                           device->ordinal);
  }
  *out_ptr = (tkrt_deviceptr_t)(uintptr_t)ptr;
  return NULL;
}

tkrt_status_t tkrt_hip_memory_free(tkrt_device_t* base, tkrt_deviceptr_t ptr) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_device_scope_t scope;
  TKRT_RETURN_IF_ERROR(tkrt_hip_scope_enter(device, &scope));
  hipError_t error = device->api->hipFree((void*)(uintptr_t)ptr);
  tkrt_hip_scope_exit(device, &scope);
  return TKRT_HIP_STATUS(device->api, error, "hipFree(0x%llx)", (unsigned long long)ptr);
}

tkrt_status_t tkrt_hip_host_alloc(tkrt_device_t* base, size_t size, void** out_ptr) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_device_scope_t scope;
  TKRT_RETURN_IF_ERROR(tkrt_hip_scope_enter(device, &scope));
  void* ptr = NULL;
  /* hipHostMallocDefault: page-locked and usable by every device for async copies. */
  hipError_t error = device->api->hipHostMalloc(&ptr, size, 0);
  tkrt_hip_scope_exit(device, &scope);
  if (error != hipSuccess) {
    return TKRT_HIP_STATUS(device->api, error, "hipHostMalloc(%zu bytes)", size);
  }
  *out_ptr = ptr;
  return NULL;
}

tkrt_status_t tkrt_hip_host_free(tkrt_device_t* base, void* ptr) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  return TKRT_HIP_STATUS(device->api, device->api->hipHostFree(ptr), "hipHostFree(%p)", ptr);
}

tkrt_status_t tkrt_hip_memory_info(tkrt_device_t* base, size_t* out_free, size_t* out_total) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_device_scope_t scope;
  TKRT_RETURN_IF_ERROR(tkrt_hip_scope_enter(device, &scope));
  size_t free_bytes = 0, total_bytes = 0;
  hipError_t error = device->api->hipMemGetInfo(&free_bytes, &total_bytes);
  tkrt_hip_scope_exit(device, &scope);
  if (error != hipSuccess) {
    return TKRT_HIP_STATUS(device->api, error, "hipMemGetInfo on HIP device %d", device->ordinal);
  }
  *out_free = free_bytes;
  *out_total = total_bytes;
  return NULL;
}

tkrt_status_t tkrt_hip_memset_async(tkrt_device_t* base, tkrt_deviceptr_t dst, uint8_t value,
                                    size_t size, tkrt_stream_t stream) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_device_scope_t scope;
  TKRT_RETURN_IF_ERROR(tkrt_hip_scope_enter(device, &scope));
  hipError_t error = device->api->hipMemsetD8Async((hipDeviceptr_t)(uintptr_t)dst, value, size,
                                                   (hipStream_t)stream);
  tkrt_hip_scope_exit(device, &scope);
  return TKRT_HIP_STATUS(device->api, error, "hipMemsetD8Async(0x%llx, %u, %zu bytes)",
                         (unsigned long long)dst, (unsigned)value, size);
}

tkrt_status_t tkrt_hip_memcpy_async(tkrt_device_t* base, uint64_t dst, uint64_t src, size_t size,
                                    tkrt_hal_memcpy_kind_t kind, tkrt_stream_t stream) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  const tkrt_hip_symbols_t* api = device->api;
  void* d = (void*)(uintptr_t)dst;
  void* s = (void*)(uintptr_t)src;
  hipStream_t hip_stream = (hipStream_t)stream;
  tkrt_hip_device_scope_t scope;
  TKRT_RETURN_IF_ERROR(tkrt_hip_scope_enter(device, &scope));
  hipError_t error = hipErrorInvalidMemcpyDirection;
  const char* operation = "memcpy";
  switch (kind) {
    case TKRT_HAL_MEMCPY_HTOD:
      operation = "hipMemcpyHtoDAsync";
      error = api->hipMemcpyHtoDAsync(d, s, size, hip_stream);
      break;
    case TKRT_HAL_MEMCPY_DTOH:
      operation = "hipMemcpyDtoHAsync";
      error = api->hipMemcpyDtoHAsync(d, s, size, hip_stream);
      break;
    case TKRT_HAL_MEMCPY_DTOD:
      operation = "hipMemcpyDtoDAsync";
      error = api->hipMemcpyDtoDAsync(d, s, size, hip_stream);
      break;
  }
  tkrt_hip_scope_exit(device, &scope);
  return TKRT_HIP_STATUS(api, error, "%s(0x%llx <- 0x%llx, %zu bytes)", operation,
                         (unsigned long long)dst, (unsigned long long)src, size);
}

/* ---------------------------------------------------------------- vtable */

const tkrt_hal_device_vtable_t tkrt_hip_device_vtable = {
    TKRT_HAL_REQUIRED_ENTRIES(tkrt_hip)
    .function_set_shared_limit = tkrt_hip_function_set_shared_limit,
    .encode_tma = NULL, /* HIP has no TMA descriptors */
};
