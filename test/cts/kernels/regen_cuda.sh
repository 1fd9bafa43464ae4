#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates the CUDA conformance kernels from cts_cuda.cu: PTX (loaded through the driver's
# JIT and the PTX cache) and an sm_90a cubin (loaded as is). Both are committed, so building and
# testing tkrt never needs nvcc. Usage: test/cts/kernels/regen_cuda.sh [path/to/nvcc]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
nvcc="${1:-${NVCC:-/usr/local/cuda/bin/nvcc}}"
# -lineinfo off and no -G: small, deterministic output. sm_90a is what Triton emits for Hopper.
flags=(-arch=sm_90a -std=c++17 -O3)
"$nvcc" "${flags[@]}" --ptx -o "$here/cts_cuda.ptx" "$here/cts_cuda.cu"
"$nvcc" "${flags[@]}" -cubin -o "$here/cts_cuda_sm90a.cubin" "$here/cts_cuda.cu"
"$nvcc" --version | tail -n 1
echo "wrote $here/cts_cuda.ptx ($(wc -c < "$here/cts_cuda.ptx") bytes)"
echo "wrote $here/cts_cuda_sm90a.cubin ($(wc -c < "$here/cts_cuda_sm90a.cubin") bytes)"
