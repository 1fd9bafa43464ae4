#!/usr/bin/env bash
# Copies the jaxlib vectors from ../shared (beside the checkout) into .gpu-vectors/ (ignored by
# git), so that a GPU machine that only receives the repository gets them: name .gpu-vectors in
# the device tool's `carry`. About 13 MB.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
src="${1:-$root/../shared/vectors/jaxlib-0.11.2}"
dst="$root/.gpu-vectors"
rm -rf "$dst"
mkdir -p "$dst"
for case in add_f32 scalars alias_inplace autotuned_alias cluster_num_ctas2 zeroed_accumulate \
            matmul_autotuned; do
  mkdir -p "$dst/$case"
  cp "$src/$case"/call.pb.z "$src/$case"/*.bin "$dst/$case/"
done
du -sh "$dst"
