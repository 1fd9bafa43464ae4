/* tkrt HIP backend: HSACO modules (target checked before loading), kernel functions, their
 * attributes and dynamic shared memory limit, and launches. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backends/hip/hip_internal.h"

/* hipFunction_attribute values: CUDA's CUfunction_attribute numbering, identical in ROCm 5 to 7. */
enum {
  TKRT_HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  TKRT_HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  TKRT_HIP_FUNC_ATTRIBUTE_NUM_REGS = 4,
};
static_assert(HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK == 0, "hipFunction_attribute moved");
static_assert(HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES == 1, "hipFunction_attribute moved");
static_assert(HIP_FUNC_ATTRIBUTE_NUM_REGS == 4, "hipFunction_attribute moved");

typedef struct tkrt_hip_module {
  hipModule_t handle;
  void* image_copy; /* the code object bytes, kept for the module's lifetime (see below) */
} tkrt_hip_module_t;

static const char* tkrt_hip_kind_description(tkrt_image_kind_t kind) {
  switch (kind) {
    case TKRT_IMAGE_PTX: return "CUDA PTX";
    case TKRT_IMAGE_CUBIN: return "a CUDA cubin";
    case TKRT_IMAGE_FATBIN: return "a CUDA fatbin";
    case TKRT_IMAGE_HOST: return "a host-backend shared object";
    default: return "not a GPU image";
  }
}

tkrt_status_t tkrt_hip_module_load(tkrt_device_t* base, const tkrt_image_t* image,
                                   void** out_module) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  if (image->kind != TKRT_IMAGE_HSACO) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "the hip backend cannot load a %s image (%s); it loads HSACO code "
                            "objects",
                            tkrt_image_kind_name(image->kind),
                            tkrt_hip_kind_description(image->kind));
  }
  tkrt_status_t status = NULL;
  tkrt_hip_module_t* module = NULL;
  tkrt_image_info_t* info = calloc(1, sizeof(*info));
  if (!info) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  status = tkrt_image_inspect(image->data, image->size, info);
  if (status) goto cleanup;
  if (info->kind != TKRT_IMAGE_HSACO) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "the image was given as HSACO but its bytes are a %s image",
                              tkrt_image_kind_name(info->kind));
    goto cleanup;
  }
  status = tkrt_hip_check_code_object(info, device->arch_name, device->ordinal);
  if (status) goto cleanup;

  module = calloc(1, sizeof(*module));
  if (module) module->image_copy = malloc(image->size);
  if (!module || !module->image_copy) {
    status = TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
    goto cleanup;
  }
  /* Some ROCm versions load code objects lazily from the caller's buffer, so the bytes must
   * outlive the call; tkrt promises callers the opposite, hence the copy. */
  memcpy(module->image_copy, image->data, image->size);
  tkrt_hip_device_scope_t scope;
  status = tkrt_hip_scope_enter(device, &scope);
  if (status) goto cleanup;
  hipError_t error = device->api->hipModuleLoadData(&module->handle, module->image_copy);
  tkrt_hip_scope_exit(device, &scope);
  if (error != hipSuccess) {
    status = TKRT_HIP_STATUS(device->api, error, "hipModuleLoadData (%s code object on %s)",
                             info->target[0] ? info->target : "unknown-target",
                             device->arch_name[0] ? device->arch_name : "this device");
    goto cleanup;
  }
  *out_module = module;
  module = NULL;

cleanup:
  if (module) {
    free(module->image_copy);
    free(module);
  }
  free(info);
  return status;
}

void tkrt_hip_module_unload(tkrt_device_t* base, void* opaque) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_module_t* module = opaque;
  if (!module) return;
  tkrt_hip_device_scope_t scope;
  tkrt_status_t status = tkrt_hip_scope_enter(device, &scope);
  if (!status) {
    (void)device->api->hipModuleUnload(module->handle); /* unload cannot report failure */
    tkrt_hip_scope_exit(device, &scope);
  }
  tkrt_status_free(status);
  free(module->image_copy);
  free(module);
}

static tkrt_status_t tkrt_hip_function_attribute(tkrt_hip_device_t* device, hipFunction_t f,
                                                 int attribute, const char* what, int* out) {
  hipError_t error = device->api->hipFuncGetAttribute(out, attribute, f);
  if (error != hipSuccess) {
    return TKRT_HIP_STATUS(device->api, error, "hipFuncGetAttribute(%s)", what);
  }
  return NULL;
}

tkrt_status_t tkrt_hip_function_create(tkrt_device_t* base, void* opaque, const char* name,
                                       tkrt_hal_function_info_t* out_info) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_module_t* module = opaque;
  hipFunction_t handle = NULL;
  hipError_t error = device->api->hipModuleGetFunction(&handle, module->handle, name);
  if (error != hipSuccess) {
    tkrt_status_t status =
        TKRT_HIP_STATUS(device->api, error, "hipModuleGetFunction('%s')", name);
    if (error == hipErrorNotFound || error == hipErrorInvalidDeviceFunction) {
      tkrt_status_free(status);
      status = TKRT_STATUS_MAKE(TKRT_STATUS_NOT_FOUND, "no kernel named '%s' in the module: %s",
                                name, device->api->hipGetErrorName(error));
    }
    return status;
  }
  int static_shared = 0;
  TKRT_RETURN_IF_ERROR(tkrt_hip_function_attribute(
      device, handle, TKRT_HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "static shared bytes",
      &static_shared));
  out_info->handle = handle; /* the runtime's handle lives as long as its module */
  out_info->static_shared_bytes = static_shared > 0 ? (uint32_t)static_shared : 0;
  /* HIP needs no opt-in call for module kernels (hipFuncSetAttribute takes a host-side kernel
   * stub of the runtime API, not a hipFunction_t, and AMD hardware lets every launch use the full
   * per-block LDS): the limit is tkrt's bookkeeping, starting, as on CUDA, at the per-block limit
   * minus static shared memory. */
  uint32_t limit = device->base.info.max_shared_per_block;
  out_info->dynamic_shared_limit =
      limit > out_info->static_shared_bytes ? limit - out_info->static_shared_bytes : 0;
  return NULL;
}

void tkrt_hip_function_destroy(tkrt_device_t* device, void* function) {
  (void)device;
  (void)function;
}

tkrt_status_t tkrt_hip_function_attrs(tkrt_device_t* base, void* function,
                                      tkrt_function_attrs_t* out_attrs) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  int threads = 0, regs = 0;
  TKRT_RETURN_IF_ERROR(tkrt_hip_function_attribute(
      device, (hipFunction_t)function, TKRT_HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
      "max threads per block", &threads));
  TKRT_RETURN_IF_ERROR(tkrt_hip_function_attribute(
      device, (hipFunction_t)function, TKRT_HIP_FUNC_ATTRIBUTE_NUM_REGS, "registers", &regs));
  out_attrs->max_threads_per_block = threads > 0 ? (uint32_t)threads : 0;
  out_attrs->num_regs = regs > 0 ? (uint32_t)regs : 0;
  return NULL;
}

tkrt_status_t tkrt_hip_function_set_shared_limit(tkrt_device_t* device, void* function,
                                                 uint32_t bytes) {
  (void)device;
  (void)function;
  (void)bytes;
  return NULL; /* see tkrt_hip_function_create */
}

tkrt_status_t tkrt_hip_launch(tkrt_device_t* base, void* function,
                              const tkrt_launch_params_t* params, tkrt_stream_t stream) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  if (params->flags & TKRT_LAUNCH_PDL) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                            "HIP has no programmatic dependent launch (TKRT_LAUNCH_PDL)");
  }
  bool cooperative = (params->flags & TKRT_LAUNCH_COOPERATIVE) != 0;
  if (cooperative && !(device->base.info.features & TKRT_DEVICE_FEATURE_COOPERATIVE)) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_UNIMPLEMENTED,
                            "cooperative launches need hipModuleLaunchCooperativeKernel (ROCm 6+) "
                            "and a device that supports them; %s on device %d has %s",
                            device->library->opened_name, device->ordinal,
                            device->api->hipModuleLaunchCooperativeKernel
                                ? "the entry point but the device does not support them"
                                : "no such entry point");
  }
  tkrt_hip_device_scope_t scope;
  TKRT_RETURN_IF_ERROR(tkrt_hip_scope_enter(device, &scope));
  hipStream_t hip_stream = (hipStream_t)stream;
  hipError_t error;
  if (cooperative) {
    error = device->api->hipModuleLaunchCooperativeKernel(
        (hipFunction_t)function, params->grid[0], params->grid[1], params->grid[2], params->block[0],
        params->block[1], params->block[2], params->shared_mem_bytes, hip_stream, params->params);
  } else {
    error = device->api->hipModuleLaunchKernel(
        (hipFunction_t)function, params->grid[0], params->grid[1], params->grid[2], params->block[0],
        params->block[1], params->block[2], params->shared_mem_bytes, hip_stream, params->params,
        NULL);
  }
  tkrt_hip_scope_exit(device, &scope);
  if (error != hipSuccess) {
    return TKRT_HIP_STATUS(device->api, error,
                           "%s (grid %ux%ux%u, block %ux%ux%u, %u bytes shared)",
                           cooperative ? "hipModuleLaunchCooperativeKernel" : "hipModuleLaunchKernel",
                           params->grid[0], params->grid[1], params->grid[2], params->block[0],
                           params->block[1], params->block[2], params->shared_mem_bytes);
  }
  return NULL;
}
