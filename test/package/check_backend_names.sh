#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Backends own their facts: no file outside backends/ and the registry names a backend. Fails on
# a string literal "cuda", "hip", "host" or "null" on a non-comment line of base, hal, core, wire,
# triton, runtime, xla, tools or python/tkrt, except where EXEMPT below says why. A layer above
# the registry asks it instead (tkrt_backend_describe, tkrt_backend_resolve, the descriptor
# fields). Usage: check_backend_names.sh SOURCE_DIR. Exit 77 (skipped) outside a git checkout.
set -euo pipefail
cd "$1"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "not a git checkout: skipped"; exit 77; }

# file:literal pairs that may stay, each with its reason.
EXEMPT=(
  # The public image kinds' names (TKRT_IMAGE_HOST is "host"): a format fact beside the detector
  # that recognises the kinds, used by backends and layers alike (tkrt_image_kind_name).
  'base/image_info.c:host'
  # JSON's own literal null, not the null backend.
  'base/json.c:null'
  'tools/tkrt_main.c:null'
  'tools/tkrt_run.c:null'
)

exempt() {
  local pair
  for pair in "${EXEMPT[@]}"; do [[ "$pair" == "$1:$2" ]] && return 0; done
  return 1
}

found=0
while IFS= read -r -d '' f; do
  case "$f" in
    base/*|hal/*|core/*|wire/*|triton/*|runtime/*|xla/*|tools/*|python/tkrt/*) ;;
    *) continue ;;
  esac
  case "$f" in
    *.c|*.h|*.cc|*.cpp|*.py) ;;
    *) continue ;;
  esac
  [ -f "$f" ] || continue
  # Non-comment lines: drop lines that start a comment (C: //, /*, *; Python: #), then
  # trailing // and # comments.
  while IFS=: read -r line text; do
    for name in cuda hip host null; do
      if [[ "$text" == *"\"$name\""* ]] && ! exempt "$f" "$name"; then
        echo "$f:$line: names the backend \"$name\": ask the registry or the backend instead"
        found=$((found + 1))
      fi
    done
  done < <(grep -nE '"(cuda|hip|host|null)"' "$f" |
           grep -vE '^[0-9]+:[[:space:]]*(/\*|\*|//|#)' |
           sed -E 's#[[:space:]]//[^"]*$##; s#[[:space:]]\#[^"]*$##' || true)
done < <(git ls-files -z --cached --others --exclude-standard)
[ "$found" = 0 ] || { echo "FAIL: $found line(s) outside backends/ and registry/ name a backend"; exit 1; }
echo "ok: no file outside backends/ and registry/ names a backend (exemptions: ${#EXEMPT[@]})"
