#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Triton version matrix on the GPU (issue 34): every release's CUDA output in
# test/data/triton-versions (3.2 to 3.9, sm_90 machine code and sm_80 through its PTX) launched
# through the CLI and through tkrt.triton's bound launch against NumPy references, with none of
# those Tritons installed (test/gpu/versions_gpu_check.py); then every jaxlib release's calls in
# test/data/jaxlib-versions (0.4.31 to 0.12) through `tkrt run` on CUDA. Builds in build/gpu-triton (as
# run_triton.sh; incremental after it). Prints a line per release and target and "VERSIONS: PASS"
# or "VERSIONS: FAIL (...)". Writes a copy of everything to $OUT/versions.log when OUT is set.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_begin versions VERSIONS
gpu_build tkrt tkrt_cli tkrt_python_native triton_add_host_1024
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
gpu_python_env
export TKRT_TUNE_DIR=off TKRT_CACHE_DIR="$work/cache"
# The host-side matrix first (as CI runs it), then the GPU launches.
python3 "$root/test/triton/test_versions.py" "$build/tools/tkrt" \
  "$build/test/triton/triton_add_host_1024.so" "$root/test/data/triton-versions" > "$build/versions-host.log" 2>&1 \
  || { grep -E "FAIL|Triton 3|Error" "$build/versions-host.log" | tail -n 30; tail -n 5 "$build/versions-host.log"
       fail "test_versions.py on the host backend"; }
grep -E "^  Triton 3|checks passed" "$build/versions-host.log"
python3 "$here/versions_gpu_check.py" "$build/tools/tkrt" "$root/test/data/triton-versions" "$work/files" \
  || fail "the Triton releases (above)"
# Every jaxlib release's calls (test/data/jaxlib-versions), as that jaxlib serialized them, run on
# CUDA by `tkrt run` against NumPy's outputs, bit for bit (the autotuned one tunes, in place).
failed=""
count=0
for case in "$root"/test/data/jaxlib-versions/*/add_f32 "$root"/test/data/jaxlib-versions/*/autotuned_alias; do
  release="$(basename "$(dirname "$case")")"
  if "$build/tools/tkrt" run "$case" --backend cuda --store off --iterations 0 > "$work/run.txt" 2>&1 \
     && grep -q "bit for bit" "$work/run.txt"; then
    count=$((count + 1))
  else
    failed="$failed $release/$(basename "$case")"
    tail -n 5 "$work/run.txt"
  fi
done
echo "VERSIONS: jaxlib: $count calls of $(ls -d "$root"/test/data/jaxlib-versions/*/ | wc -l) releases run on CUDA${failed:+; FAILED:$failed}"
[[ -z "$failed" ]] || fail "jaxlib releases:$failed"
echo "VERSIONS: PASS"
