/* SPDX-License-Identifier: Apache-2.0 */
// The few HIP device facilities the test kernels use, spelled with clang's AMDGPU builtins, so the
// kernels compile with a stock clang (-nogpuinc -nogpulib): no ROCm device headers or libraries.
#ifndef TKRT_TEST_HIP_KERNELS_HIP_DEVICE_H_
#define TKRT_TEST_HIP_KERNELS_HIP_DEVICE_H_

#include <stdint.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

// hsa_kernel_dispatch_packet_t: workgroup sizes (u16) at byte 4, grid sizes in work-items (u32) at
// byte 12, group segment size (static + dynamic LDS, u32) at byte 28.
__device__ static inline const uint8_t* dispatch_packet() {
  return (const uint8_t*)__builtin_amdgcn_dispatch_ptr();
}
__device__ static inline uint32_t block_dim_x() { return *(const uint16_t*)(dispatch_packet() + 4); }
__device__ static inline uint32_t grid_items(int d) {
  return *(const uint32_t*)(dispatch_packet() + 12 + 4 * d);
}
__device__ static inline uint32_t grid_blocks(int d) {
  return grid_items(d) / *(const uint16_t*)(dispatch_packet() + 4 + 2 * d);
}
__device__ static inline uint32_t group_segment_bytes() {
  return *(const uint32_t*)(dispatch_packet() + 28);
}
#define THREAD_X __builtin_amdgcn_workitem_id_x()
#define THREAD_Y __builtin_amdgcn_workitem_id_y()
#define THREAD_Z __builtin_amdgcn_workitem_id_z()
#define BLOCK_X __builtin_amdgcn_workgroup_id_x()
#define BLOCK_Y __builtin_amdgcn_workgroup_id_y()
#define BLOCK_Z __builtin_amdgcn_workgroup_id_z()

__device__ static inline void sync_threads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

__device__ static inline void atomic_add_u32(uint32_t* p, uint32_t v) {
  __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

#endif  // TKRT_TEST_HIP_KERNELS_HIP_DEVICE_H_
