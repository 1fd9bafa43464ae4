#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The docs' GPU blocks (issue 32): every code block of README.md and docs/*.md marked `gpu=NAME`
# (test/docs/docs.py list), run as CI runs the `run` ones, with the checkout's Python package over
# libtkrt.so and libtkrt_xla.so built in build/gpu-triton (run_triton.sh's build, incremental
# after it) and this machine's JAX. Prints "DOCS: PASS" or "DOCS: FAIL (...)". Writes a copy of
# everything to $OUT/docs.log when OUT is set.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
gpu_begin docs DOCS
gpu_build tkrt tkrt_xla tkrt_cli
python3 "$root/test/docs/docs.py" check --tkrt "$build/tools/tkrt" --python "$(command -v python3)" \
  --build "$build" || fail "docs.py check"
blocks="$(python3 "$root/test/docs/docs.py" list | sed -n 's/.* gpu=\([A-Za-z0-9_.-]*\)$/\1/p')"
[[ -n "$blocks" ]] || fail "no gpu blocks found"
failed=""
for block in $blocks; do
  python3 "$root/test/docs/docs.py" run "$block" --build "$build" || failed="$failed $block"
done
[[ -z "$failed" ]] || fail "blocks:$failed"
echo "DOCS: PASS ($(echo $blocks | wc -w) gpu blocks: $(echo $blocks))"
