/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt HIP backend: HSACO modules (the code object's target checked against the device before
 * loading) and kernel functions with their attributes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/hip/hip_internal.h"
#include "base/log.h"

typedef struct tkrt_hip_module {
  hipModule_t handle;
  void* image_copy; /* the code object bytes, kept for the module's lifetime (see below) */
} tkrt_hip_module_t;

/* ---------------------------------------------------------------- code object targets */

/* Compares a code object's target (processor and xnack/sramecc features) with a device's
 * gcnArchName before loading, so a mismatch gets a clear message instead of a load error. */
void tkrt_hip_arch_processor(const char* arch_name, char* out, size_t capacity) {
  size_t length = strcspn(arch_name, ":");
  snprintf(out, capacity, "%.*s", (int)length, arch_name);
}

/* The device's setting of a feature in a gcnArchName ("...:xnack-" -> OFF); UNSUPPORTED when the
 * name does not mention it (the processor lacks it, or the runtime leaves it unspecified). */
static tkrt_image_feature_t tkrt_hip_device_feature(const char* arch_name, const char* feature) {
  size_t n = strlen(feature);
  for (const char* p = strchr(arch_name, ':'); p; p = strchr(p + 1, ':')) {
    if (strncmp(p + 1, feature, n) == 0 && (p[1 + n] == '+' || p[1 + n] == '-') &&
        (p[2 + n] == ':' || p[2 + n] == '\0')) {
      return p[1 + n] == '+' ? TKRT_IMAGE_FEATURE_ON : TKRT_IMAGE_FEATURE_OFF;
    }
  }
  return TKRT_IMAGE_FEATURE_UNSUPPORTED;
}

/* A code object built with the feature on (off) cannot run where the device has it off (on). */
static bool tkrt_hip_feature_conflicts(tkrt_image_feature_t code, tkrt_image_feature_t device) {
  if (code != TKRT_IMAGE_FEATURE_ON && code != TKRT_IMAGE_FEATURE_OFF) return false;
  if (device != TKRT_IMAGE_FEATURE_ON && device != TKRT_IMAGE_FEATURE_OFF) return false;
  return code != device;
}

tkrt_status_t tkrt_hip_check_code_object(const tkrt_image_info_t* image,
                                         const char* device_arch_name, int ordinal) {
  if (image->kind != TKRT_IMAGE_HSACO) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "the hip backend loads HSACO code objects, not %s images",
                            tkrt_image_kind_name(image->kind));
  }
  if (!device_arch_name || !device_arch_name[0] || !image->arch[0]) return NULL;
  if (strstr(image->arch, "-generic")) return NULL; /* runs on a family: the runtime decides */
  char device_processor[64];
  tkrt_hip_arch_processor(device_arch_name, device_processor, sizeof(device_processor));
  if (strcmp(device_processor, image->arch) != 0) {
    return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                            "HSACO targets %s but device %d is %s (%s); recompile the kernel for "
                            "%s",
                            image->target, ordinal, device_processor, device_arch_name,
                            device_processor);
  }
  static const char* const names[2] = {"sramecc", "xnack"};
  const tkrt_image_feature_t code[2] = {image->sramecc, image->xnack};
  for (int i = 0; i < 2; ++i) {
    tkrt_image_feature_t device = tkrt_hip_device_feature(device_arch_name, names[i]);
    if (tkrt_hip_feature_conflicts(code[i], device)) {
      return TKRT_STATUS_MAKE(TKRT_STATUS_INVALID_ARGUMENT,
                              "HSACO targets %s but device %d is %s: the code object needs %s %s, "
                              "the device has it %s",
                              image->target, ordinal, device_arch_name, names[i],
                              tkrt_image_feature_name(code[i]), tkrt_image_feature_name(device));
    }
  }
  return NULL;
}

/* ---------------------------------------------------------------- modules */

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
  TKRT_LOG_AT(TKRT_LOG_DEBUG, "hip", "loaded a %zu-byte %s code object on device %d (%s)",
              image->size, info->target[0] ? info->target : "unknown-target", device->ordinal,
              device->arch_name[0] ? device->arch_name : "unknown arch");
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
                                                 hipFunction_attribute attribute, const char* what, int* out) {
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
      device, handle, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "static shared bytes",
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
      device, (hipFunction_t)function, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
      "max threads per block", &threads));
  TKRT_RETURN_IF_ERROR(tkrt_hip_function_attribute(
      device, (hipFunction_t)function, HIP_FUNC_ATTRIBUTE_NUM_REGS, "registers", &regs));
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
