#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copies the jaxlib vectors from ../shared (beside the checkout) into .gpu-vectors/ (ignored by
# git), so that a GPU machine that only receives the repository gets them: name .gpu-vectors in
# the device tool's `carry`. About 13 MB. Each copy keeps its case.json (which `tkrt run` reads:
# files, dtypes, shapes) with what the vectors' README says in prose added as the fields tkrt
# reads: the tolerances of the atomic reduction and the fp16 matmul, and alias_inplace's alias
# (XLA's input_output_alias, which its plain call does not carry).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
src="${1:-$root/../shared/vectors/jaxlib-0.11.2}"
dst="$root/.gpu-vectors"
rm -rf "$dst"
mkdir -p "$dst"
for case in add_f32 scalars alias_inplace autotuned_alias cluster_num_ctas2 zeroed_accumulate \
            matmul_autotuned; do
  mkdir -p "$dst/$case"
  cp "$src/$case"/call.pb.z "$src/$case"/case.json "$src/$case"/*.bin "$dst/$case/"
done
python3 - "$dst" <<'EOF'
import json, sys
extra = {
    "alias_inplace": {"aliases": [{"input": 0, "output": 0}]},
    "zeroed_accumulate": {"rtol": 1e-3, "atol": 1e-3},
    "matmul_autotuned": {"rtol": 2e-2, "atol": 2e-2},
}
for case, fields in extra.items():
    path = f"{sys.argv[1]}/{case}/case.json"
    with open(path) as f:
        data = json.load(f)
    data.update(fields)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
EOF
du -sh "$dst"
