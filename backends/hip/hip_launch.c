/* SPDX-License-Identifier: Apache-2.0 */
/* tkrt HIP backend: launches (hipModuleLaunchKernel, hipModuleLaunchCooperativeKernel where the
 * runtime and device have it), with the device current on the calling thread. */
#include "backends/hip/hip_internal.h"

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
