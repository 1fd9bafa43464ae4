#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# An installed tkrt works where it lands and after the prefix is moved: the tool finds libtkrt.so
# through its relative run path ($ORIGIN/../lib), with no LD_LIBRARY_PATH, and (given the Python
# folder) the installed tkrt Python package loads its libtkrt_xla.so from beside itself.
# Usage: check_installed.sh PREFIX WORK_DIR [PYTHON_INSTALL_DIR relative to PREFIX] [PYTHON]
set -euo pipefail
prefix="$(realpath -m "$1")" work="$(realpath -m "$2")" pydir="${3:-}" python="$(command -v "${4:-python3}")"
rm -rf "$work"
mkdir -p "$work"
cp -a "$prefix" "$work/moved"
tool="$work/moved/bin/tkrt"

echo "== ldd $tool"
ldd "$tool"
resolved="$(ldd "$tool" | awk '$1 ~ /^libtkrt\.so/ { print $3 }')"
case "$resolved" in
  "$work/moved/"*) ;;
  *) echo "FAIL: libtkrt.so resolves to '$resolved', not into the moved prefix $work/moved"; exit 1 ;;
esac
echo "== $tool info"
env -i PATH=/usr/bin:/bin "$tool" info
env -i PATH=/usr/bin:/bin "$tool" info | grep -q "host" || { echo "FAIL: no host backend listed"; exit 1; }

if [ -n "$pydir" ]; then
  echo "== import tkrt from $work/moved/$pydir"
  env -i PATH=/usr/bin:/bin HOME="$work" PYTHONPATH="$work/moved/$pydir" "$python" - "$work/moved/$pydir" <<'PY'
import os, sys
import tkrt
expected = os.path.join(sys.argv[1], "tkrt", "libtkrt_xla.so")
assert tkrt.library_path() == expected, f"library_path() is {tkrt.library_path()}, not {expected}"
line = tkrt.version()
assert line.split()[1] == tkrt.__version__, (line, tkrt.__version__)
import tkrt.triton as tt  # the Python launch path ships with the package
assert tt.__file__.startswith(os.path.dirname(tkrt.__file__)), tt.__file__
assert callable(tt.load) and callable(tt.prepare), "tkrt.triton lacks load/prepare"
print(f"ok: {line} from {tkrt.library_path()}")
PY
fi
echo "ok: the installed prefix works after a move"
