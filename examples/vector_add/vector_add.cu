/* SPDX-License-Identifier: Apache-2.0 */
// The example's kernel for the CUDA backend (compiled to vector_add.ptx by regen_ptx.sh):
// one block of threads adds 1024 elements, like Triton's add example.
extern "C" __global__ void vector_add(const float* x, const float* y, float* out, int n) {
  long long begin = (long long)blockIdx.x * 1024;
  for (long long i = begin + threadIdx.x; i < begin + 1024 && i < n; i += blockDim.x) {
    out[i] = x[i] + y[i];
  }
}
