#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates inplace.ptx from inplace.cu (needs nvcc; the PTX is committed).
set -euo pipefail
cd "$(dirname "$0")"
nvcc -arch=sm_80 --ptx -o inplace.ptx inplace.cu
