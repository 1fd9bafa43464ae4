#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates vector_add.ptx from vector_add.cu (needs nvcc; the PTX is committed).
set -euo pipefail
cd "$(dirname "$0")"
nvcc -arch=sm_80 --ptx -o vector_add.ptx vector_add.cu
