#!/usr/bin/env bash
# Regenerates inplace.ptx from inplace.cu (needs nvcc; the PTX is committed).
set -euo pipefail
cd "$(dirname "$0")"
nvcc -arch=sm_80 --ptx -o inplace.ptx inplace.cu
