#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Python wheel as a user builds it: from a fresh copy of the source tree (no build folders),
# with pip offline (--no-build-isolation: Debian's python3-setuptools and python3-wheel), installed
# into an empty --target and into a virtual environment, and used from there with a clean
# environment. The wheel must be tagged cpXY-cpXY-manylinux_X_Y_<arch> (with tkrt._native, built
# where the Python has its headers; py3-none-... without) with X.Y the newest GLIBC
# symbol version its binaries import (read here with readelf, independently of setup.py), carry
# libtkrt_xla.so, the tool (tkrt/bin/tkrt, tkrt/lib/libtkrt.so.0) and LICENSE in its .dist-info,
# need no C++ runtime, report the version it was built from, and give pip users a `tkrt` command.
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

# Without setuptools or wheel, setup.py says so in one line (which packages, for which Python).
for missing in setuptools wheel; do
  rc=0
  err="$(cd "$work/src/python" && "$python" - "$missing" 2>&1 <<'PY'
import sys
for name in ("setuptools", "setuptools.command.bdist_wheel") if sys.argv[1] == "setuptools" else \
            ("wheel", "setuptools.command.bdist_wheel"):
  sys.modules[name] = None  # import of it fails as if it were not installed
sys.argv = ["setup.py", "--version"]
exec(compile(open("setup.py").read(), "setup.py", "exec"))
PY
)" || rc=$?
  if [ "$rc" != 1 ] || [ "$(wc -l <<<"$err")" != 1 ] ||
     ! grep -q "needs setuptools (61 or newer) and wheel in .*($missing is missing)" <<<"$err"; then
    echo "FAIL: setup.py without $missing exited $rc with: $err"
    exit 1
  fi
  echo "ok: without $missing: $err"
done

"$python" -m pip wheel --no-build-isolation --no-deps "$work/src/python" -w "$work/dist"
wheels=("$work"/dist/tkrt-*.whl)
if [ "${#wheels[@]}" -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
  echo "FAIL: expected one tkrt wheel in $work/dist, found: ${wheels[*]}"
  exit 1
fi
wheel="${wheels[0]}"
"$python" -m zipfile -l "$wheel"
version="$(sed -n 's/^__version__ = "\([^"]*\)".*/\1/p' "$src/python/tkrt/__init__.py")"
arch="$(uname -m)"
tag="$(basename "$wheel")"
# tkrt._native (tkrt.triton's C launch path) is built where this Python's headers are: the wheel
# is then for this CPython (cpXY-cpXY), else for any Python 3 (py3-none, ctypes only).
native="$("$python" -c 'import os, sysconfig; print(int(os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h"))))')"
abi="$("$python" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')"
want_tag="py3-none"
[ "$native" = 1 ] && want_tag="$abi-$abi"
if [[ ! "$tag" =~ ^tkrt-${version//./\\.}-${want_tag}-manylinux_([0-9]+)_([0-9]+)_${arch}\.whl$ ]]; then
  echo "FAIL: $tag is not tkrt-$version-$want_tag-manylinux_X_Y_$arch.whl (Python.h present: $native)"
  exit 1
fi
tag_glibc="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
"$python" -m zipfile -e "$wheel" "$work/unpacked"
unpacked="$work/unpacked" dist_info="$work/unpacked/tkrt-$version.dist-info"
native_so=()
if [ "$native" = 1 ]; then
  native_so=("$unpacked"/tkrt/_native.*.so)
  if [ ! -f "${native_so[0]}" ]; then
    echo "FAIL: this Python has its headers but the wheel carries no tkrt/_native.*.so"
    exit 1
  fi
  native_so=("tkrt/$(basename "${native_so[0]}")")
  echo "ok: the wheel carries ${native_so[0]} and is tagged $want_tag"
fi

# Contents: every module of python/tkrt, the library, the tool with its library (executable in
# the archive, so pip keeps the bit), LICENSE in .dist-info (the repository's, named by
# License-File), the console entry point, and the metadata a package index shows.
"$python" - "$wheel" "$src/LICENSE" "$tag" "$src/python/tkrt" <<'PY'
import os, sys, zipfile
wheel, license_file, tag, package = sys.argv[1:]
z = zipfile.ZipFile(wheel)
names = set(z.namelist())
dist = next(n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info"))
problems = []
modules = [(f"tkrt/{f}", False) for f in sorted(os.listdir(package)) if f.endswith(".py")]
for name, executable in modules + [("tkrt/libtkrt_xla.so", True), ("tkrt/bin/tkrt", True),
                                   ("tkrt/lib/libtkrt.so.0", True)]:
  if name not in names:
    problems.append(f"{name} is missing")
  elif executable and not (z.getinfo(name).external_attr >> 16) & 0o100:
    problems.append(f"{name} is not executable in the archive")
licence = [n for n in (f"{dist}/LICENSE", f"{dist}/licenses/LICENSE") if n in names]
if not licence:
  problems.append(f"no LICENSE in {dist}")
elif z.read(licence[0]) != open(license_file, "rb").read():
  problems.append(f"{licence[0]} differs from the repository's LICENSE")
metadata = z.read(f"{dist}/METADATA").decode()
for line in ("License-File: LICENSE", "Requires-Python: >=3.9", "License: Apache-2.0",
             "Classifier: Operating System :: POSIX :: Linux",
             "Classifier: Programming Language :: Python :: 3 :: Only"):
  if line not in metadata.splitlines():
    problems.append(f"METADATA lacks '{line}'")
entry_points = z.read(f"{dist}/entry_points.txt").decode().split()
if entry_points[:4] != ["[console_scripts]", "tkrt", "=", "tkrt._cli:main"]:
  problems.append(f"entry_points.txt is {entry_points}, not the console script tkrt = tkrt._cli:main")
wheel_tag = [l.split(": ", 1)[1] for l in z.read(f"{dist}/WHEEL").decode().splitlines()
             if l.startswith("Tag: ")]
if [f"tkrt-x-{t}.whl" for t in wheel_tag] != ["tkrt-x-" + tag.split("-", 2)[2]]:
  problems.append(f"WHEEL says Tag: {wheel_tag}, the file name {tag}")
if problems:
  sys.exit("FAIL: " + "; ".join(problems))
print(f"ok: {len(names)} files, {licence[0]}, License-File, console script tkrt, tag {wheel_tag[0]}")
PY

# The binaries: NEEDED only system libraries every glibc system has (no libstdc++, no libgcc_s)
# and the wheel's own libtkrt.so.0; the tag's glibc is the newest GLIBC_x.y they import (never
# below 2.17, setup.py's floor).
command -v readelf >/dev/null || { echo "FAIL: readelf (binutils) is needed to check the wheel's binaries"; exit 1; }
newest="2.17"
for elf in tkrt/libtkrt_xla.so tkrt/bin/tkrt tkrt/lib/libtkrt.so.0 "${native_so[@]}"; do
  needed="$(readelf -d "$unpacked/$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')"
  echo "$elf: NEEDED $needed"
  for lib in $needed; do
    case "$lib" in
      libc.so.6|libm.so.6|libdl.so.2|libpthread.so.0|librt.so.1|libz.so.1|ld-linux*.so.*) ;;
      libtkrt.so.0) [ "$elf" != tkrt/lib/libtkrt.so.0 ] || { echo "FAIL: $elf needs $lib"; exit 1; } ;;
      *) echo "FAIL: $elf needs $lib, which is not a system library every glibc system has"; exit 1 ;;
    esac
  done
  versions="$(readelf -V "$unpacked/$elf" | grep -o 'Name: GLIBC_[0-9.]*' | sed 's/Name: GLIBC_//' | sort -uV | tr '\n' ' ')"
  echo "$elf: GLIBC $versions"
  for v in $versions; do
    v="$(cut -d. -f1,2 <<<"$v")"
    newest="$(printf '%s\n%s\n' "$newest" "$v" | sort -V | tail -n1)"
  done
done
if [ "$newest" != "$tag_glibc" ]; then
  echo "FAIL: the binaries need glibc $newest but the wheel is tagged manylinux_${tag_glibc/./_}"
  exit 1
fi
echo "ok: the binaries need glibc $newest, as the tag says; no C++ runtime"
if [ "$(readelf -d "$unpacked/tkrt/bin/tkrt" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')" != '$ORIGIN/../lib' ]; then
  echo "FAIL: tkrt/bin/tkrt's run path is not \$ORIGIN/../lib:"; readelf -d "$unpacked/tkrt/bin/tkrt" | grep -E 'RPATH|RUNPATH'
  exit 1
fi
# One tkrt per process (issue 32): libtkrt_xla.so and tkrt._native link the wheel's
# tkrt/lib/libtkrt.so.0 (NEEDED, found through $ORIGIN/lib) rather than carry a copy of tkrt.
for elf in tkrt/libtkrt_xla.so "${native_so[@]}"; do
  readelf -d "$unpacked/$elf" | grep -q 'NEEDED.*\[libtkrt\.so\.0\]' ||
    { echo "FAIL: $elf does not link libtkrt.so.0"; exit 1; }
  runpath="$(readelf -d "$unpacked/$elf" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')"
  case ":$runpath:" in
    *':$ORIGIN/lib:'*) ;;
    *) echo "FAIL: $elf's run path ($runpath) lacks \$ORIGIN/lib"; exit 1 ;;
  esac
  if nm -D --defined-only "$unpacked/$elf" | grep -q ' tkrt_runtime_default$'; then
    echo "FAIL: $elf carries its own copy of tkrt (it defines tkrt_runtime_default)"; exit 1
  fi
done
echo "ok: libtkrt_xla.so and tkrt._native link the wheel's libtkrt.so.0 (one tkrt per process)"

"$python" -m pip install --no-deps --no-index --target "$work/target" "$wheel"

# Outside the source tree, with nothing from the caller's environment (no TKRT_XLA_LIBRARY).
cd "$work"
env -i PATH=/usr/bin:/bin HOME="$work" PYTHONPATH="$work/target" "$python" - "$work/target" "$native" <<'PY'
import os, sys
import tkrt
target = sys.argv[1]
want_path = "native" if sys.argv[2] == "1" else "ctypes"
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
core = os.path.join(target, "tkrt", "lib", "libtkrt.so.0")  # tkrt.triton's library: the wheel's
assert tkrt.core_library_path() == core, f"core_library_path() is {tkrt.core_library_path()}"
tt.device("host").synchronize()
assert tt.launch_path == want_path, (tt.launch_path, tt.launch_path_reason)
assert [l for l in open("/proc/self/maps") if l.rstrip().endswith(core)], "libtkrt.so.0 not mapped"
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
print(f"ok: tkrt {tkrt.__version__} from {tkrt.__file__}; launch path {tt.launch_path}; version() = {line!r}; "
      f"{len(stats)} counters; JAX {'present' if have_jax else 'absent: ImportError as expected'}")
PY

# The console command, as pip users get it: the script pip generated in --target's bin/ (with
# PYTHONPATH), then a virtual environment's bin/tkrt (pip comes from the system's site-packages:
# --without-pip needs no ensurepip). Each runs the wheel's own tool and passes its exit status on.
echo "== $work/target/bin/tkrt"
ldd "$work/target/tkrt/bin/tkrt"
resolved="$(realpath -m "$(ldd "$work/target/tkrt/bin/tkrt" | awk '$1 == "libtkrt.so.0" { print $3 }')")"
[ "$resolved" = "$work/target/tkrt/lib/libtkrt.so.0" ] ||
  { echo "FAIL: the installed tool loads libtkrt.so.0 from '$resolved', not from its package"; exit 1; }
check_command() {  # NAME ENV...: `tkrt --version`, `tkrt info`, and a usage mistake's exit status
  local name="$1" out rc
  shift
  out="$(env -i "$@" tkrt --version)"
  [ "$out" = "tkrt $version" ] || { echo "FAIL: $name: tkrt --version printed '$out', not 'tkrt $version'"; exit 1; }
  out="$(env -i "$@" tkrt info)"
  grep -q "^host" <<<"$out" || { echo "FAIL: $name: tkrt info lists no host backend:"; echo "$out"; exit 1; }
  rc=0; env -i "$@" tkrt no-such-command >/dev/null 2>&1 || rc=$?
  [ "$rc" = 2 ] || { echo "FAIL: $name: tkrt no-such-command exited $rc, not 2 (bad usage)"; exit 1; }
  echo "ok: $name: $(env -i "$@" sh -c 'command -v tkrt') --version, info, exit status 2 on a usage mistake"
}
check_command "pip install --target" PATH="$work/target/bin:/usr/bin:/bin" HOME="$work" PYTHONPATH="$work/target"
"$python" -m venv --without-pip --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install --no-deps --no-index "$wheel"
check_command "virtual environment" PATH="$work/venv/bin:/usr/bin:/bin" HOME="$work"
# A copy of the package without the tool (as cmake --install lays it out): a clear message.
mkdir -p "$work/notool"
cp -r "$work/target/tkrt" "$work/notool/tkrt"
rm -r "$work/notool/tkrt/bin"
rc=0; err="$(env -i PATH=/usr/bin:/bin PYTHONPATH="$work/notool" "$python" -m tkrt._cli --version 2>&1)" || rc=$?
if [ "$rc" != 127 ] || ! grep -q "has no command-line tool" <<<"$err"; then
  echo "FAIL: tkrt._cli without its tool exited $rc: $err"
  exit 1
fi
echo "ok: without its tool, the command says: $err"
