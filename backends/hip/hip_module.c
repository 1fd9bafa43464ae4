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

typedef struct tkrt_hip_function {
  hipFunction_t handle;
  uint32_t static_shared_bytes;
  /* The dynamic shared memory limit, kept by tkrt itself: HIP needs no opt-in call for module
   * kernels (hipFuncSetAttribute takes a host-side kernel stub of the runtime API, not a
   * hipFunction_t, and AMD hardware lets every launch use the full per-block LDS). It behaves as
   * on CUDA: it starts at the per-block limit minus static shared memory, the caller may set it
   * up to the opt-in limit minus static, and a launch above it raises it there by itself. */
  _Atomic uint32_t max_dynamic_shared_bytes;
  struct tkrt_hip_function* next;
} tkrt_hip_function_t;

typedef struct tkrt_hip_module {
  hipModule_t handle;
  void* image_copy; /* the code object bytes, kept for the module's lifetime (see below) */
  pthread_mutex_t lock;
  tkrt_hip_function_t* functions;
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
  pthread_mutex_init(&module->lock, NULL);
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
  for (tkrt_hip_function_t* f = module->functions; f;) {
    tkrt_hip_function_t* next = f->next;
    free(f);
    f = next;
  }
  tkrt_hip_device_scope_t scope;
  tkrt_status_t status = tkrt_hip_scope_enter(device, &scope);
  if (!status) {
    (void)device->api->hipModuleUnload(module->handle); /* unload cannot report failure */
    tkrt_hip_scope_exit(device, &scope);
  }
  tkrt_status_free(status);
  pthread_mutex_destroy(&module->lock);
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

tkrt_status_t tkrt_hip_function_get(tkrt_device_t* base, void* opaque, const char* name,
                                    void** out_function) {
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
  tkrt_hip_function_t* function = calloc(1, sizeof(*function));
  if (!function) return TKRT_STATUS_MAKE(TKRT_STATUS_RESOURCE_EXHAUSTED, "out of host memory");
  function->handle = handle;
  function->static_shared_bytes = static_shared > 0 ? (uint32_t)static_shared : 0;
  uint32_t limit = device->base.info.max_shared_per_block;
  atomic_init(&function->max_dynamic_shared_bytes,
              limit > function->static_shared_bytes ? limit - function->static_shared_bytes : 0);
  pthread_mutex_lock(&module->lock);
  function->next = module->functions;
  module->functions = function;
  pthread_mutex_unlock(&module->lock);
  *out_function = function;
  return NULL;
}

tkrt_status_t tkrt_hip_function_attrs(tkrt_device_t* base, void* opaque,
                                      tkrt_function_attrs_t* out_attrs) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_function_t* function = opaque;
  int threads = 0, regs = 0;
  TKRT_RETURN_IF_ERROR(tkrt_hip_function_attribute(
      device, function->handle, TKRT_HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
      "max threads per block", &threads));
  TKRT_RETURN_IF_ERROR(tkrt_hip_function_attribute(
      device, function->handle, TKRT_HIP_FUNC_ATTRIBUTE_NUM_REGS, "registers", &regs));
  out_attrs->static_shared_bytes = function->static_shared_bytes;
  out_attrs->max_threads_per_block = threads > 0 ? (uint32_t)threads : 0;
  out_attrs->num_regs = regs > 0 ? (uint32_t)regs : 0;
  out_attrs->max_dynamic_shared_bytes =
      atomic_load_explicit(&function->max_dynamic_shared_bytes, memory_order_relaxed);
  return NULL;
}

/* The most dynamic shared memory the function may use: the opt-in limit minus static. */
static uint32_t tkrt_hip_dynamic_shared_available(const tkrt_hip_device_t* device,
                                                  const tkrt_hip_function_t* function) {
  uint32_t optin = device->base.info.max_shared_per_block_optin;
  return optin > function->static_shared_bytes ? optin - function->static_shared_bytes : 0;
}

static tkrt_status_t tkrt_hip_dynamic_shared_too_large(const tkrt_hip_device_t* device,
                                                       const tkrt_hip_function_t* function,
                                                       uint32_t bytes, const char* what) {
  return TKRT_STATUS_MAKE(TKRT_STATUS_OUT_OF_RANGE,
                          "%u bytes of dynamic shared memory %s; HIP device %d allows %u (its "
                          "%u-byte per-block limit minus %u bytes of static shared memory)",
                          bytes, what, device->ordinal,
                          tkrt_hip_dynamic_shared_available(device, function),
                          device->base.info.max_shared_per_block_optin,
                          function->static_shared_bytes);
}

tkrt_status_t tkrt_hip_function_set_max_dynamic_shared(tkrt_device_t* base, void* opaque,
                                                       uint32_t bytes) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_function_t* function = opaque;
  if (bytes > tkrt_hip_dynamic_shared_available(device, function)) {
    return tkrt_hip_dynamic_shared_too_large(device, function, bytes, "asked for");
  }
  atomic_store_explicit(&function->max_dynamic_shared_bytes, bytes, memory_order_relaxed);
  return NULL;
}

tkrt_status_t tkrt_hip_launch(tkrt_device_t* base, void* opaque,
                              const tkrt_launch_params_t* params, tkrt_stream_t stream) {
  tkrt_hip_device_t* device = tkrt_hip_device_cast(base);
  tkrt_hip_function_t* function = opaque;
  if (params->shared_mem_bytes >
      atomic_load_explicit(&function->max_dynamic_shared_bytes, memory_order_relaxed)) {
    /* Raised by itself, as the CUDA and host backends do (the core checked only the device's
     * opt-in limit, not this function's static share of it). Straight to the most the function
     * may use, like CUDA: the limit reserves nothing, and later launches then skip this. One
     * atomic store, no lock: racing launches store the same value. */
    uint32_t available = tkrt_hip_dynamic_shared_available(device, function);
    if (params->shared_mem_bytes > available) {
      return tkrt_hip_dynamic_shared_too_large(device, function, params->shared_mem_bytes,
                                               "at launch");
    }
    atomic_store_explicit(&function->max_dynamic_shared_bytes, available, memory_order_relaxed);
  }
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
        function->handle, params->grid[0], params->grid[1], params->grid[2], params->block[0],
        params->block[1], params->block[2], params->shared_mem_bytes, hip_stream, params->params);
  } else {
    error = device->api->hipModuleLaunchKernel(
        function->handle, params->grid[0], params->grid[1], params->grid[2], params->block[0],
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
