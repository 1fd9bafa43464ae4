#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates the CUDA build of the core test kernels, core_kernels.ptx, from core_kernels.cu.
# The PTX is committed, so building and testing tkrt never needs nvcc; the CUDA backend JIT-compiles
# it (and caches the result). Usage: test/core/kernels/regen_cuda.sh [path/to/nvcc]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
nvcc="${1:-${NVCC:-/usr/local/cuda/bin/nvcc}}"
# sm_90a is what Triton emits for Hopper; -lineinfo off and no -G: small, deterministic output.
"$nvcc" -arch=sm_90a -std=c++17 -O3 --ptx -o "$here/core_kernels.ptx" "$here/core_kernels.cu"
"$nvcc" --version | tail -n 1
echo "wrote $here/core_kernels.ptx ($(wc -c < "$here/core_kernels.ptx") bytes)"
