/* SPDX-License-Identifier: Apache-2.0 */
// CUDA kernels of the autotuned example (compiled to inplace.ptx by regen_ptx.sh): x += y in
// place, one block per BLOCK elements, in three block sizes.
#define INPLACE_ADD(BLOCK)                                                                 \
  extern "C" __global__ void inplace_add_##BLOCK(float* x, const float* y, int n) {        \
    long long begin = (long long)blockIdx.x * BLOCK;                                       \
    for (long long i = begin + threadIdx.x; i < begin + BLOCK && i < n; i += blockDim.x) { \
      x[i] += y[i];                                                                        \
    }                                                                                      \
  }
INPLACE_ADD(128)
INPLACE_ADD(512)
INPLACE_ADD(2048)
