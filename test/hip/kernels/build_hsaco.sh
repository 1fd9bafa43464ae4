#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the HIP test kernels (test/cts/kernels/cts_hip.hip, test/core/kernels/core_kernels.hip)
# into gfx90a code objects, written beside their sources, with a stock
# clang (Debian's clang-14 and lld; no ROCm device libraries needed). The outputs are committed, so
# the GPU machine (which has no clang for AMDGPU) needs none; CI re-runs this with --check and fails
# when a committed file differs from a fresh build.
# Usage: test/hip/kernels/build_hsaco.sh [--check]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
check=0
if [[ "${1:-}" == --check ]]; then check=1; shift; fi
test_dir="$(cd "$here/../.." && pwd)"
clang="${CLANG:-$(command -v clang-14 || command -v clang)}"
# -ffp-contract=off: adds round like the host and CUDA builds (no FMA contraction).
flags=(-x hip --offload-arch=gfx90a --cuda-device-only --no-gpu-bundle-output -nogpulib -nogpuinc
       -O3 -ffp-contract=off -std=c++17 -I "$here")
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
status=0
for source in cts/kernels/cts_hip core/kernels/core_kernels; do
  built="$tmp/$(basename "$source")_gfx90a.hsaco"
  committed="$test_dir/${source}_gfx90a.hsaco"
  "$clang" "${flags[@]}" -o "$built" "$test_dir/$source.hip"
  if [[ "$check" == 1 ]]; then
    if ! cmp -s "$built" "$committed"; then
      echo "$committed is not what $source.hip builds to: run $0" >&2
      status=1
    fi
  else
    cp "$built" "$committed"
    echo "wrote $committed ($(wc -c < "$committed") bytes)"
  fi
done
[[ "$check" == 0 ]] || { [[ "$status" != 0 ]] || echo "HSACO files are current ($("$clang" --version | head -n 1))"; }
exit "$status"
