/* SPDX-License-Identifier: Apache-2.0 */
// Conformance-suite kernels for the CUDA backend: the table in README.md, bit for bit the same
// results as cts_host.c. Regenerate cts_cuda.ptx and cts_cuda_sm90a.cubin with regen_cuda.sh.
//
// Every kernel works with any block size (the suite launches 128 threads, or 1 for
// cts_write_pid) and ignores trailing parameters it does not declare (the core always appends
// two hidden pointers; the driver reads only the declared ones).
#include <stdint.h>

#define CTS_BLOCK 1024

// out[i] = x[i] + y[i] for i in [pid*1024, pid*1024 + 1024) and i < n.
extern "C" __global__ void cts_add_f32(const float* x, const float* y, float* out, int32_t n) {
  const int64_t begin = (int64_t)blockIdx.x * CTS_BLOCK;
  for (int64_t i = begin + threadIdx.x; i < begin + CTS_BLOCK && i < n; i += blockDim.x) {
    // __fadd_rn: no contraction into an FMA with anything else, round to nearest like the host.
    out[i] = __fadd_rn(x[i], y[i]);
  }
}

// out[(z*gy + y)*gx + x] = x | y << 10 | z << 20: every program of a 3-D grid ran once.
extern "C" __global__ void cts_write_pid(uint32_t* out) {
  if (threadIdx.x != 0 || threadIdx.y != 0 || threadIdx.z != 0) return;
  const uint64_t linear =
      ((uint64_t)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  out[linear] = blockIdx.x | blockIdx.y << 10 | blockIdx.z << 20;
}

// One program per `words` chunk, staged through dynamic shared memory and written back
// reversed: out[pid*words + i] = in[pid*words + words-1-i]. Needs 4*words bytes of it.
extern "C" __global__ void cts_smem_reverse(const uint32_t* in, uint32_t* out, uint32_t words) {
  extern __shared__ uint32_t staged[];
  const uint64_t base = (uint64_t)blockIdx.x * words;
  for (uint32_t i = threadIdx.x; i < words; i += blockDim.x) staged[i] = in[base + i];
  __syncthreads();
  for (uint32_t i = threadIdx.x; i < words; i += blockDim.x) out[base + i] = staged[words - 1 - i];
}

// out[pid.x] = (rank of this block in its cluster) | (cluster index << 8), clusters along x.
// Read from the PTX special registers, so a launch without a cluster (rank 0, one block per
// cluster) gives the same answer as the host backend's cluster of 1.
extern "C" __global__ void cts_cluster_rank(uint32_t* out) {
  if (threadIdx.x != 0) return;
  uint32_t rank, cluster;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cluster));
  out[blockIdx.x] = rank | cluster << 8;
}

// Scalars of every kind: out[0..5] = the values widened to u64 bit patterns (f32 as its bits).
extern "C" __global__ void cts_scalars(uint64_t* out, int32_t i32, uint32_t u32, int64_t i64,
                                       uint64_t u64, float f32, double f64) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  out[0] = (uint64_t)(int64_t)i32;
  out[1] = u32;
  out[2] = (uint64_t)i64;
  out[3] = u64;
  out[4] = __float_as_uint(f32);
  out[5] = (uint64_t)__double_as_longlong(f64);
}
