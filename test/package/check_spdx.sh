#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every source file tkrt ships (C, headers, kernels, CMake, shell, Python, TOML) carries the
# Apache-2.0 SPDX line near its top. Usage: check_spdx.sh SOURCE_DIR. Exit 77 (skipped) outside a
# git checkout, since the file list comes from git.
set -euo pipefail
cd "$1"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "not a git checkout: skipped"; exit 77; }
missing=0
while IFS= read -r -d '' f; do
  case "$f" in
    shared/*) continue ;;
    *.c|*.h|*.cu|*.hip|*.sh|*.py|*.cmake|*.toml|*.in|*CMakeLists.txt|.ci/run) ;;
    *) continue ;;
  esac
  [ -f "$f" ] || continue
  if ! head -n 3 "$f" | grep -q "SPDX-License-Identifier: Apache-2.0"; then
    echo "no SPDX-License-Identifier line in the first 3 lines: $f"
    missing=$((missing + 1))
  fi
done < <(git ls-files -z)
[ "$missing" = 0 ] || { echo "FAIL: $missing file(s) without the SPDX line"; exit 1; }
echo "ok: every source file carries SPDX-License-Identifier: Apache-2.0"
