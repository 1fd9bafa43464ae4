/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt CUDA backend: the device (primary context, attributes), its vtable and memory. Modules live
 * in cuda_module.c, launches in cuda_launch.c, streams, graphs and events in cuda_stream.c. */
#include "backends/cuda/cuda_internal.h"

#include "base/fs.h"
#include "base/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const tkrt_hal_device_vtable_t tkrt_cuda_device_vtable; /* at the end of this file */

tkrt_cuda_device_t* tkrt_cuda_device_cast(tkrt_device_t* device) {
  assert(device && device->resource.vtable == &tkrt_cuda_device_vtable);
  return (tkrt_cuda_device_t*)device;
}

/* ---------------------------------------------------------------- creation */

static tkrt_status_t tkrt_cuda_attribute(const tkrt_cuda_device_t* device,
                                         CUdevice_attribute attribute, const char* what,
                                         int* out_value) {
  int value = 0;
  CUresult result = device->driver->cuDeviceGetAttribute(&value, attribute, device->device);
  if (result != CUDA_SUCCESS) {
    return TKRT_CUDA_STATUS(result, "cuDeviceGetAttribute(%s)", what);
  }
  *out_value = value;
  return NULL;
}

static uint32_t tkrt_cuda_clamp_u32(int value) { return value < 0 ? 0u : (uint32_t)value; }

static tkrt_status_t tkrt_cuda_device_query_info(tkrt_cuda_device_t* device) {
  tkrt_device_info_t* info = &device->base.info;
  const tkrt_cuda_driver_t* driver = device->driver;
  CUresult result = driver->cuDeviceGetName(info->name, (int)sizeof(info->name), device->device);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuDeviceGetName");
  info->name[sizeof(info->name) - 1] = '\0';

  static const struct {
    CUdevice_attribute attribute;
    const char* name;
  } queries[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "COMPUTE_CAPABILITY_MAJOR"},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "COMPUTE_CAPABILITY_MINOR"},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, "WARP_SIZE"},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT"},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK"},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, "MAX_BLOCK_DIM_X"},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, "MAX_BLOCK_DIM_Y"},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, "MAX_BLOCK_DIM_Z"},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "MAX_GRID_DIM_X"},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "MAX_GRID_DIM_Y"},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, "MAX_GRID_DIM_Z"},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "MAX_SHARED_MEMORY_PER_BLOCK"},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"},
      {CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, "COOPERATIVE_LAUNCH"},
      {CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, "CLUSTER_LAUNCH"},
  };
  enum { kCount = sizeof(queries) / sizeof(queries[0]) };
  int values[kCount];
  for (int i = 0; i < kCount; ++i) {
    TKRT_RETURN_IF_ERROR(tkrt_cuda_attribute(device, queries[i].attribute, queries[i].name,
                                             &values[i]));
  }
  info->cc_major = values[0];
  info->cc_minor = values[1];
  info->warp_size = tkrt_cuda_clamp_u32(values[2]);
  info->sm_count = tkrt_cuda_clamp_u32(values[3]);
  info->max_threads_per_block = tkrt_cuda_clamp_u32(values[4]);
  for (int i = 0; i < 3; ++i) {
    info->max_block_dim[i] = tkrt_cuda_clamp_u32(values[5 + i]);
    info->max_grid_dim[i] = tkrt_cuda_clamp_u32(values[8 + i]);
  }
  info->max_shared_per_block = tkrt_cuda_clamp_u32(values[11]);
  info->max_shared_per_block_optin = tkrt_cuda_clamp_u32(values[12]);
  if (info->max_shared_per_block_optin < info->max_shared_per_block) {
    info->max_shared_per_block_optin = info->max_shared_per_block;
  }
  info->features = tkrt_cuda_features(driver, info->cc_major, values[14], values[13]);
  /* 8 is the portable cluster size; larger ones need a per-kernel opt-in tkrt does not make. */
  info->max_cluster_size = (info->features & TKRT_DEVICE_FEATURE_CLUSTER) ? 8u : 0u;

  size_t total = 0;
  result = driver->cuDeviceTotalMem(&total, device->device);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuDeviceTotalMem");
  info->total_memory = total;
  info->driver_version = driver->driver_version;
  snprintf(info->arch, sizeof(info->arch), "sm_%d%d", info->cc_major, info->cc_minor);
  /* From Hopper on, Triton (and jaxlib) compile for the arch-specific target (sm_90a: wgmma,
   * setmaxnreg, TMA multicast); that code runs only on exactly this compute capability. */
  tkrt_cuda_arch_for_capability((uint32_t)(info->cc_major * 10 + info->cc_minor),
                                device->ptx_target, sizeof(device->ptx_target));
  return NULL;
}

tkrt_status_t tkrt_cuda_device_create(const tkrt_hal_backend_t* backend,
                                      const tkrt_cuda_driver_t* driver,
                                      const tkrt_device_options_t* options,
                                      tkrt_device_t** out_device) {
  tkrt_status_t status = NULL;
  int ordinal = options->ordinal;
  tkrt_cuda_device_t* device = calloc(1, sizeof(*device));
  if (!device) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  tkrt_hal_device_initialize(&device->base, backend, &tkrt_cuda_device_vtable, ordinal);
  device->driver = driver;
  device->trust_shared_cache = options->trust_shared_cache;
  if (options->cache_dir && *options->cache_dir && !tkrt_fs_is_off(options->cache_dir)) {
    device->cache_dir = strdup(options->cache_dir);
    if (!device->cache_dir) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
      goto cleanup;
    }
  }

  CUresult result = driver->cuDeviceGet(&device->device, ordinal);
  if (result != CUDA_SUCCESS) {
    status = TKRT_CUDA_STATUS(result, "cuDeviceGet(%d)", ordinal);
    goto cleanup;
  }
  /* The primary context is the one the CUDA runtime, XLA and PyTorch use: sharing it lets their
   * streams, events and allocations work with ours. */
  CUcontext context = NULL;
  result = driver->cuDevicePrimaryCtxRetain(&context, device->device);
  if (result != CUDA_SUCCESS) {
    status = TKRT_CUDA_STATUS(result, "cuDevicePrimaryCtxRetain(device %d)", ordinal);
    goto cleanup;
  }
  device->context = context;
  status = tkrt_cuda_device_query_info(device);
  if (status) goto cleanup;
  if (device->base.info.features & TKRT_DEVICE_FEATURE_TMA) {
    device->tma_cache = malloc(sizeof(*device->tma_cache));
    if (!device->tma_cache) {
      status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
      goto cleanup;
    }
    tkrt_hal_tma_cache_init(device->tma_cache, (uint32_t)sizeof(CUtensorMap));
  }
  TKRT_LOG_AT(TKRT_LOG_INFO, "cuda",
              "device %d: %s, %s (PTX compiled for %s), %u SMs, driver %d, features 0x%x",
              ordinal, device->base.info.name, device->base.info.arch, device->ptx_target,
              device->base.info.sm_count, driver->driver_version, device->base.info.features);
  *out_device = &device->base;
  return NULL;

cleanup:
  tkrt_cuda_destroy(&device->base);
  return tkrt_status_annotate(status, "creating CUDA device %d", ordinal);
}

/* Tolerates a half-built device: the one cleanup path of creation. */
void tkrt_cuda_destroy(tkrt_device_t* base) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  if (device->context) {
    CUresult result = device->driver->cuDevicePrimaryCtxRelease(device->device);
    /* At process exit the driver may already be torn down (DEINITIALIZED); nothing to do then. */
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_DEINITIALIZED) {
      TKRT_LOG_AT(TKRT_LOG_WARN, "cuda", "cuDevicePrimaryCtxRelease(device %d) failed: CUresult %d",
                  base->info.ordinal, (int)result);
    }
  }
  free(device->tma_cache);
  free(device->cache_dir);
  free(device);
}

/* ---------------------------------------------------------------- memory */

tkrt_status_t tkrt_cuda_memory_alloc(tkrt_device_t* base, size_t size,
                                            tkrt_deviceptr_t* out_ptr) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUdeviceptr ptr = 0;
  CUresult result = device->driver->cuMemAlloc(&ptr, size);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuMemAlloc(%zu bytes)", size);
  *out_ptr = (tkrt_deviceptr_t)ptr;
  return NULL;
}

tkrt_status_t tkrt_cuda_memory_free(tkrt_device_t* base, tkrt_deviceptr_t ptr) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUresult result = device->driver->cuMemFree((CUdeviceptr)ptr);
  if (result != CUDA_SUCCESS) {
    return TKRT_CUDA_STATUS(result, "cuMemFree(0x%llx)", (unsigned long long)ptr);
  }
  return NULL;
}

tkrt_status_t tkrt_cuda_host_alloc(tkrt_device_t* base, size_t size, void** out_ptr) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  void* ptr = NULL;
  /* PORTABLE: pinned for every context, so buffers may feed copies on any device. */
  CUresult result = device->driver->cuMemHostAlloc(&ptr, size, CU_MEMHOSTALLOC_PORTABLE);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuMemHostAlloc(%zu bytes)", size);
  *out_ptr = ptr;
  return NULL;
}

tkrt_status_t tkrt_cuda_host_free(tkrt_device_t* base, void* ptr) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUresult result = device->driver->cuMemFreeHost(ptr);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuMemFreeHost(%p)", ptr);
  return NULL;
}

tkrt_status_t tkrt_cuda_memory_info(tkrt_device_t* base, size_t* out_free,
                                           size_t* out_total) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  size_t free_bytes = 0, total_bytes = 0;
  CUresult result = device->driver->cuMemGetInfo(&free_bytes, &total_bytes);
  if (result != CUDA_SUCCESS) return TKRT_CUDA_STATUS(result, "cuMemGetInfo");
  *out_free = free_bytes;
  *out_total = total_bytes;
  return NULL;
}

tkrt_status_t tkrt_cuda_memset_async(tkrt_device_t* base, tkrt_deviceptr_t dst,
                                            uint8_t value, size_t size, tkrt_stream_t stream) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUresult result =
      device->driver->cuMemsetD8Async((CUdeviceptr)dst, value, size, (CUstream)stream);
  if (result != CUDA_SUCCESS) {
    return TKRT_CUDA_STATUS(result, "cuMemsetD8Async(0x%llx, %u, %zu bytes)",
                            (unsigned long long)dst, value, size);
  }
  return NULL;
}

tkrt_status_t tkrt_cuda_memcpy_async(tkrt_device_t* base, uint64_t dst, uint64_t src,
                                            size_t size, tkrt_hal_memcpy_kind_t kind,
                                            tkrt_stream_t stream) {
  tkrt_cuda_device_t* device = tkrt_cuda_device_cast(base);
  const tkrt_cuda_driver_t* driver = device->driver;
  TKRT_RETURN_IF_ERROR(tkrt_cuda_device_activate(device));
  CUstream cu_stream = (CUstream)stream;
  CUresult result = CUDA_ERROR_INVALID_VALUE;
  const char* operation = "memcpy";
  switch (kind) {
    case TKRT_HAL_MEMCPY_HTOD:
      operation = "cuMemcpyHtoDAsync";
      result = driver->cuMemcpyHtoDAsync((CUdeviceptr)dst, (const void*)(uintptr_t)src, size,
                                         cu_stream);
      break;
    case TKRT_HAL_MEMCPY_DTOH:
      operation = "cuMemcpyDtoHAsync";
      result = driver->cuMemcpyDtoHAsync((void*)(uintptr_t)dst, (CUdeviceptr)src, size,
                                         cu_stream);
      break;
    case TKRT_HAL_MEMCPY_DTOD:
      operation = "cuMemcpyDtoDAsync";
      result = driver->cuMemcpyDtoDAsync((CUdeviceptr)dst, (CUdeviceptr)src, size, cu_stream);
      break;
  }
  if (result != CUDA_SUCCESS) {
    return TKRT_CUDA_STATUS(result, "%s(dst 0x%llx, src 0x%llx, %zu bytes)", operation,
                            (unsigned long long)dst, (unsigned long long)src, size);
  }
  return NULL;
}

/* ---------------------------------------------------------------- vtable */

static const tkrt_hal_device_vtable_t tkrt_cuda_device_vtable = {
    TKRT_HAL_REQUIRED_ENTRIES(tkrt_cuda)
    .function_set_shared_limit = tkrt_cuda_function_set_shared_limit,
    .encode_tma = tkrt_cuda_encode_tma,
};
