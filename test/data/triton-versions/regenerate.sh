#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes test/data/triton-versions again, into a new folder: for each pinned Triton release, a
# virtual environment with that wheel (from the package index) runs make.py, which compiles the
# matrix kernels for sm_80, sm_90, gfx90a and gfx942 on the CPU (no GPU, no ROCm). Needs Python
# 3.9-3.12 with venv, network access to the package index, and for Triton 3.3 and 3.4 (which link
# AMD code with an external ld.lld, LLVM 17 or newer) TRITON_HIP_LLD_PATH naming one (default
# Debian's lld-19: /usr/lib/llvm-19/bin/ld.lld). About 2 GB of wheels; a few minutes.
#   test/data/triton-versions/regenerate.sh OUT [VERSION...]
# then compare OUT with test/data/triton-versions and copy what is wanted (README.md there).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:?usage: regenerate.sh OUT [VERSION...]}"
shift
# 3.1.0 is kept as a release tkrt refuses (one kernel); the rest are the supported ones.
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(3.1.0 3.2.0 3.3.1 3.4.0 3.5.1 3.6.0 3.7.1 3.8.0 3.9.0)
python="${PYTHON:-python3}"
export TRITON_HIP_LLD_PATH="${TRITON_HIP_LLD_PATH:-/usr/lib/llvm-19/bin/ld.lld}"
[ -x "$TRITON_HIP_LLD_PATH" ] || { echo "regenerate.sh: no ld.lld at $TRITON_HIP_LLD_PATH (apt-get install lld-19)"; exit 2; }
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for v in "${versions[@]}"; do
  "$python" -m venv "$work/venv-$v"
  "$work/venv-$v/bin/pip" install --quiet "triton==$v" "numpy==2.2.6" "setuptools==75.8.0"
  "$work/venv-$v/bin/python" "$here/make.py" --out "$out"
  rm -rf "$work/venv-$v"
done
echo "regenerate.sh: wrote ${versions[*]} under $out"
