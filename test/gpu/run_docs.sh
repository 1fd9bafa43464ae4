#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The docs' GPU blocks (issue 32): every code block of README.md and docs/*.md marked `gpu=NAME`
# (test/docs/docs.py list), run as CI runs the `run` ones, with the checkout's Python package over
# libtkrt.so and libtkrt_xla.so built in build/gpu-triton (run_triton.sh's build, incremental
# after it) and this machine's JAX. Prints "DOCS: PASS" or "DOCS: FAIL (...)". Writes a copy of
# everything to $OUT/docs.log when OUT is set.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build/gpu-triton"
jobs="${TKRT_GPU_JOBS:-$(nproc 2>/dev/null || echo 8)}"
if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT"
  exec > >(tee "$OUT/docs.log") 2>&1
fi
fail() { echo "DOCS: FAIL ($1)"; exit 1; }

mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTKRT_BACKEND_HIP=OFF -DTKRT_BUILD_XLA=ON \
  -DTKRT_WARNINGS_AS_ERRORS=ON -DPython3_EXECUTABLE="$(command -v python3)" ${TKRT_GPU_CMAKE_ARGS:-} \
  > "$build/docs-configure.log" 2>&1 || { tail -n 40 "$build/docs-configure.log"; fail "configure"; }
cmake --build "$build" -j "$jobs" --target tkrt tkrt_xla tkrt_cli > "$build/docs-build.log" 2>&1 \
  || { tail -n 40 "$build/docs-build.log"; fail "build"; }
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
