#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Python wheel as a user builds it: from a fresh copy of the source tree (no build folders),
# with pip offline (--no-build-isolation: Debian's python3-setuptools and python3-wheel), installed
# into an empty --target and imported from there with a clean environment. The wheel must carry
# libtkrt_xla.so, be tagged for the platform, and report the version it was built from.
# Usage: check_wheel.sh SOURCE_DIR WORK_DIR [PYTHON]. Exits 77 (skipped) without pip/setuptools/wheel.
set -euo pipefail
src="$(realpath -m "$1")" work="$(realpath -m "$2")" python="$(command -v "${3:-python3}")"
echo "python: $python"
# setuptools before pip: Debian's setuptools refuses to load after pip has imported distutils.
if ! "$python" -c 'import setuptools, wheel' 2>/dev/null || ! "$python" -m pip --version >/dev/null 2>&1; then
  echo "skipped: $python lacks pip, setuptools or wheel (apt-get install python3-pip python3-setuptools python3-wheel)"
  exit 77
fi
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
rm -rf "$work"
mkdir -p "$work/src"
tar -C "$src" --exclude=./.git --exclude=./build --exclude='./build-*' --exclude=./python/build \
    --exclude='./python/*.egg-info' -cf - . | tar -C "$work/src" -xf -

"$python" -m pip wheel --no-build-isolation --no-deps "$work/src/python" -w "$work/dist"
wheels=("$work"/dist/tkrt-*.whl)
if [ "${#wheels[@]}" -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
  echo "FAIL: expected one tkrt wheel in $work/dist, found: ${wheels[*]}"
  exit 1
fi
case "$(basename "${wheels[0]}")" in
  tkrt-*-py3-none-linux_*.whl) ;;
  *) echo "FAIL: ${wheels[0]} is not tagged py3-none-linux_<arch>"; exit 1 ;;
esac
"$python" -m zipfile -l "${wheels[0]}"
"$python" -m pip install --no-deps --target "$work/target" "${wheels[0]}"

# Outside the source tree, with nothing from the caller's environment (no TKRT_XLA_LIBRARY).
cd "$work"
env -i PATH=/usr/bin:/bin HOME="$work" PYTHONPATH="$work/target" "$python" - "$work/target" <<'PY'
import os, sys
import tkrt
target = sys.argv[1]
expected = os.path.join(target, "tkrt", "libtkrt_xla.so")
assert tkrt.__file__.startswith(target), f"imported {tkrt.__file__}, not the installed copy"
assert tkrt.library_path() == expected, f"library_path() is {tkrt.library_path()}, not {expected}"
line = tkrt.version()
assert line.startswith("tkrt-xla ") and line.split()[1] == tkrt.__version__, \
    f"version() says {line!r} but tkrt.__version__ is {tkrt.__version__}"
stats = tkrt.stats()
assert list(stats) == list(tkrt.STATS_FIELDS) and not any(stats.values()), stats
import tkrt.triton as tt  # the Python launch path ships with the package
assert tt.__file__.startswith(os.path.dirname(tkrt.__file__)), tt.__file__
assert callable(tt.load) and callable(tt.prepare), "tkrt.triton lacks load/prepare"
try:
  import jax  # noqa: F401
  have_jax = True
except ImportError:
  have_jax = False
if not have_jax:
  for name in ("register", "route_jaxlib_targets", "use_for_jax_triton"):
    try:
      getattr(tkrt, name)()
    except ImportError as e:
      assert "needs JAX" in str(e), e
    else:
      raise AssertionError(f"tkrt.{name}() without JAX did not raise ImportError")
print(f"ok: tkrt {tkrt.__version__} from {tkrt.__file__}; version() = {line!r}; "
      f"{len(stats)} counters; JAX {'present' if have_jax else 'absent: ImportError as expected'}")
PY
