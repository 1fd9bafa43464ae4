#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copies the HIP headers of this machine (Debian's libamdhip64-dev: /usr/include/hip) into
# build/hip-include, for test/gpu/run_hip.sh on a GPU machine without ROCm: carry build/hip-include
# there with the working tree. Usage: test/hip/over_cuda/stage_hip_headers.sh [SOURCE_INCLUDE_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
source_dir="${1:-/usr/include}"
if [[ ! -f "$source_dir/hip/hip_runtime_api.h" ]]; then
  echo "no $source_dir/hip/hip_runtime_api.h (apt-get install libamdhip64-dev)" >&2
  exit 1
fi
rm -rf "$root/build/hip-include"
mkdir -p "$root/build/hip-include"
cp -r "$source_dir/hip" "$root/build/hip-include/hip"
echo "copied $source_dir/hip to $root/build/hip-include/hip ($(du -sh "$root/build/hip-include" | cut -f1))"
