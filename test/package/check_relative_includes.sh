#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# No source file includes with a relative path that climbs out of its folder (#include "../...):
# every project include is written from the root of its layer's include root
# (cmake/TkrtLayers.cmake), which is what keeps the layering checkable. Usage:
# check_relative_includes.sh SOURCE_DIR. Exit 77 (skipped) outside a git checkout.
set -euo pipefail
cd "$1"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "not a git checkout: skipped"; exit 77; }
found=0
while IFS= read -r -d '' f; do
  case "$f" in
    shared/*|test/data/*) continue ;;
    *.c|*.h|*.cc|*.cpp|*.cu|*.hip) ;;
    *) continue ;;
  esac
  [ -f "$f" ] || continue
  if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\.\./' "$f"; then
    echo "  ^ in $f: a relative include that climbs out of its folder"
    found=$((found + 1))
  fi
done < <(git ls-files -z --cached --others --exclude-standard)
[ "$found" = 0 ] || { echo "FAIL: $found file(s) include with \"../\"; include from the layer's root instead"; exit 1; }
echo "ok: no #include climbs out of its folder"
