/* tkrt HIP backend: device and pinned host memory, asynchronous memset and memcpy, and free/total
 * memory, each run with the device current on the calling thread. */
#include "backends/hip/hip_internal.h"

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
