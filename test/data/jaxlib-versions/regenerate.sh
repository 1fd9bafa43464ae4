#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes test/data/jaxlib-versions again, into a new folder: for each pinned jaxlib release, a
# virtual environment with that jaxlib and its CUDA 12 plugin (from the package index, no GPU
# needed: jaxlib's serializer runs on the CPU) runs make.py, which serializes the matrix calls with
# jaxlib's own classes and writes the release's embedded call schema (extract_schema.py). Needs
# Python 3.12 with venv (PYTHON) and network access to the package index.
#   test/data/jaxlib-versions/regenerate.sh OUT [VERSION...]
# then compare OUT with test/data/jaxlib-versions and copy what is wanted.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:?usage: regenerate.sh OUT [VERSION...]}"
shift
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(0.4.31 0.4.38 0.5.3 0.6.2 0.7.2 0.8.3 0.9.2 0.10.2 0.11.2 0.12.0.1)
python="${PYTHON:-python3.12}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for v in "${versions[@]}"; do
  "$python" -m venv "$work/venv-$v"
  "$work/venv-$v/bin/pip" install --quiet --no-deps "jaxlib==$v" "jax-cuda12-plugin==$v"
  "$work/venv-$v/bin/pip" install --quiet "numpy==2.2.6" "protobuf==5.29.3"
  "$work/venv-$v/bin/python" "$here/make.py" --ptx "$here/../triton-3.6/add/cuda_sm90/add_kernel.ptx" --out "$out"
  rm -rf "$work/venv-$v"
done
echo "regenerate.sh: wrote ${versions[*]} under $out"
