# SPDX-License-Identifier: Apache-2.0
"""Builds the tkrt wheel: CMake builds libtkrt_xla.so and the tkrt tool from this repository and
the wheel carries them.

The package is Python (ctypes) plus tkrt._native, tkrt.triton's launch path in C (tkrt/_native.c,
built as an optional extension for the Python that builds the wheel: without CPython's headers the
wheel is built without it and tkrt.triton launches through ctypes). The wheel is tagged for the
platform: cpXY-cpXY-manylinux_<X>_<Y>_<arch> with the extension (py3-none-... without it), where
glibc X.Y is the newest symbol version the shipped binaries import (read from their ELF
version-needs sections after the build, never guessed). It holds tkrt/libtkrt_xla.so next to
tkrt/__init__.py, tkrt itself as tkrt/lib/libtkrt.so.0, which libtkrt_xla.so and tkrt._native link
(run path $ORIGIN/lib: one tkrt per process), and the tool as tkrt/bin/tkrt (run as the `tkrt`
console command, tkrt/_cli.py; run path $ORIGIN/../lib).
Needs cmake (3.25 or newer), a C and a C++ compiler and zlib's headers; see python/README.md.
"""

import os
import re
import shutil
import struct
import subprocess
import sys

_NEEDS = (f"building the tkrt wheel needs setuptools (61 or newer) and wheel in {sys.executable}: "
          "pip install setuptools wheel, or on Debian/Ubuntu apt-get install python3-setuptools "
          "python3-wheel and build with /usr/bin/python3")
try:
  import setuptools
  from setuptools import Distribution, Extension, setup
  from setuptools.command.build_ext import build_ext
  from setuptools.command.build_py import build_py
except ImportError:
  sys.exit(f"error: {_NEEDS} (setuptools is missing)")
try:  # setuptools >= 70.1 ships bdist_wheel itself; older ones use the wheel package's.
  from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:
  try:
    from wheel.bdist_wheel import bdist_wheel
  except ImportError:
    sys.exit(f"error: {_NEEDS} (wheel is missing)")
if int(re.match(r"\d+", setuptools.__version__).group(0)) < 61:  # reads [project] from pyproject
  sys.exit(f"error: {_NEEDS} (this setuptools is {setuptools.__version__})")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIB_NAME = "libtkrt_xla.so"
TOOL = ("bin", "tkrt")                   # in the package: tkrt/bin/tkrt
TOOL_LIB = ("lib", "libtkrt.so.0")       # its run path is $ORIGIN/../lib (CMakeLists.txt)
# Libraries every glibc system has (manylinux's list, less the C++ runtime, which the wheel's
# binaries must not need: a wheel whose binaries need anything else is tagged plain linux_<arch>).
SYSTEM_LIBS = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
               "libz.so.1"}
OLDEST_GLIBC = (2, 17)  # manylinux2014: no tag older than that is claimed


def _read(path):
  with open(path, encoding="utf-8") as f:
    return f.read()


def _version():
  """tkrt.__version__, which must equal the version in the top-level CMakeLists.txt."""
  init = _read(os.path.join(HERE, "tkrt", "__init__.py"))
  package = re.search(r'^__version__ = "([^"]+)"', init, re.M)
  if not package:
    raise RuntimeError("python/tkrt/__init__.py has no __version__ line")
  cmake_file = os.path.join(ROOT, "CMakeLists.txt")
  if not os.path.isfile(cmake_file):
    raise RuntimeError(f"{cmake_file} is missing: the wheel is built from a tkrt checkout "
                       "(pip wheel ./python), not from a copy of python/ alone")
  cmake = re.search(r"project\(tkrt VERSION ([0-9.]+)", _read(cmake_file))
  if not cmake or cmake.group(1) != package.group(1):
    raise RuntimeError(f"tkrt.__version__ is {package.group(1)} but CMakeLists.txt says "
                       f"{cmake.group(1) if cmake else '(no project version)'}; make them agree")
  return package.group(1)


def elf_needs(path):
  """(NEEDED libraries, {(library, symbol version)}) of an ELF file, from its dynamic section and
  its GNU version-needs section (what the dynamic loader checks before it runs anything)."""
  with open(path, "rb") as f:
    data = f.read()
  if data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
    raise RuntimeError(f"{path} is not an ELF file")
  e = "<" if data[5] == 1 else ">"
  if data[4] == 2:  # ELFCLASS64
    (shoff,), (shentsize, shnum) = struct.unpack_from(e + "Q", data, 0x28), \
        struct.unpack_from(e + "HH", data, 0x3A)
    section, dyn = e + "IIQQQQIIQQ", e + "qQ"
  else:
    (shoff,), (shentsize, shnum) = struct.unpack_from(e + "I", data, 0x20), \
        struct.unpack_from(e + "HH", data, 0x2E)
    section, dyn = e + "IIIIIIIIII", e + "iI"
  # Fields used: 1 type, 4 offset, 5 size, 6 link (the string table), 7 info (verneed count).
  sections = [struct.unpack_from(section, data, shoff + i * shentsize) for i in range(shnum)]

  def string(table, offset):
    start = sections[table][4] + offset
    return data[start:data.index(b"\0", start)].decode("ascii")

  needed, versions = [], set()
  for sh in sections:
    kind, offset, size, link, info = sh[1], sh[4], sh[5], sh[6], sh[7]
    if kind == 6:  # SHT_DYNAMIC
      for pos in range(offset, offset + size, struct.calcsize(dyn)):
        tag, value = struct.unpack_from(dyn, data, pos)
        if tag == 0:
          break
        if tag == 1:  # DT_NEEDED
          needed.append(string(link, value))
    elif kind == 0x6ffffffe:  # SHT_GNU_verneed: Elf_Verneed entries, each with Elf_Vernaux ones
      pos = offset
      for _ in range(info):
        _, count, file_name, aux, next_entry = struct.unpack_from(e + "HHIII", data, pos)
        library, apos = string(link, file_name), pos + aux
        for _ in range(count):
          _, _, _, name, next_aux = struct.unpack_from(e + "IHHII", data, apos)
          versions.add((library, string(link, name)))
          apos += next_aux
        pos += next_entry
  return needed, versions


def glibc_baseline(paths, also_shipped=()):
  """(major, minor) of the newest GLIBC_x.y symbol version the files import (at least
  OLDEST_GLIBC), and the NEEDED libraries that are neither system libraries nor shipped (the
  files themselves and `also_shipped`, names)."""
  newest, foreign = OLDEST_GLIBC, set()
  shipped = {os.path.basename(p) for p in paths} | set(also_shipped)
  for path in paths:
    needed, versions = elf_needs(path)
    foreign.update(n for n in needed if n not in SYSTEM_LIBS and n not in shipped
                   and not re.match(r"ld-linux.*\.so\.\d+$|ld64\.so\.\d+$", n))
    for _, name in versions:
      if name == "GLIBC_PRIVATE":
        raise RuntimeError(f"{path} imports GLIBC_PRIVATE symbols: it would load only with the "
                           "exact glibc it was built on")
      m = re.fullmatch(r"GLIBC_(\d+)\.(\d+)(?:\.\d+)?", name)
      if m:
        newest = max(newest, (int(m.group(1)), int(m.group(2))))
  return newest, sorted(foreign)


class BuildPyWithLibrary(build_py):
  """Copies the Python files, then builds libtkrt_xla.so and the tkrt tool with CMake and puts
  them in the package."""

  def run(self):
    super().run()
    build_temp = os.path.join(self.get_finalized_command("build").build_temp, "tkrt-cmake")
    # The whole project (tool and its library too), with nothing the wheel does not carry. Built
    # with the install run path, so the tool finds lib/libtkrt.so.0 relative to itself.
    configure = ["cmake", "-S", ROOT, "-B", build_temp, "-DCMAKE_BUILD_TYPE=Release",
                 "-DTKRT_BUILD_XLA=ON", "-DTKRT_BUILD_TOOLS=ON", "-DBUILD_TESTING=OFF",
                 "-DTKRT_BUILD_EXAMPLES=OFF", "-DTKRT_BUILD_BENCHMARKS=OFF",
                 "-DCMAKE_INSTALL_BINDIR=bin", "-DCMAKE_INSTALL_LIBDIR=lib",
                 "-DCMAKE_BUILD_WITH_INSTALL_RPATH=ON"]
    configure += os.environ.get("TKRT_CMAKE_ARGS", "").split()
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    for command in (configure, ["cmake", "--build", build_temp, "--target", "tkrt_xla",
                                "tkrt_cli", "-j", jobs]):
      self.announce(" ".join(command), level=2)
      try:
        subprocess.run(command, check=True)
      except FileNotFoundError as e:
        raise RuntimeError("building the tkrt wheel needs cmake (3.25 or newer) on PATH "
                           "(apt-get install cmake make gcc g++ zlib1g-dev)") from e
    package_dir = os.path.join(self.build_lib, "tkrt")
    shipped = []
    for built, inside in ((os.path.join(build_temp, "xla", LIB_NAME), (LIB_NAME,)),
                          (os.path.join(build_temp, "tools", "tkrt"), TOOL),
                          (os.path.join(build_temp, TOOL_LIB[1]), TOOL_LIB)):
      if not os.path.isfile(built):
        raise RuntimeError(f"CMake finished but {built} is missing")
      target = os.path.join(package_dir, *inside)
      os.makedirs(os.path.dirname(target), exist_ok=True)
      shutil.copy2(built, target)  # follows libtkrt.so.0's link: the wheel holds the file itself
      shipped.append(target)
    glibc, foreign = glibc_baseline(shipped)
    self.distribution.tkrt_cmake_build = build_temp  # where tkrt._native finds libtkrt to link
    self.distribution.tkrt_glibc = glibc
    self.distribution.tkrt_foreign_libs = foreign
    self.announce(f"tkrt: the binaries need glibc {glibc[0]}.{glibc[1]}"
                  + (f" and {', '.join(foreign)}" if foreign else ""), level=2)


class BuildNative(build_ext):
  """Builds tkrt._native (optional: a failure leaves the ctypes path) against the libtkrt.so.0
  that build_py built (it links it: run path $ORIGIN/lib, where the wheel puts it) and adds its
  glibc needs to the wheel's tag."""

  def run(self):
    build_temp = getattr(self.distribution, "tkrt_cmake_build", None)
    if build_temp is None:  # build_ext alone: build_py (which runs CMake) first
      self.run_command("build_py")
      build_temp = self.distribution.tkrt_cmake_build
    for extension in self.extensions:
      extension.library_dirs = [build_temp]
    super().run()
    built = [self.get_ext_fullpath(e.name) for e in self.extensions]
    built = [b for b in built if os.path.isfile(b)]
    self.distribution.tkrt_native = bool(built)
    if built:
      glibc, foreign = glibc_baseline(built, also_shipped=(TOOL_LIB[1],))
      self.distribution.tkrt_glibc = max(getattr(self.distribution, "tkrt_glibc", glibc), glibc)
      self.distribution.tkrt_foreign_libs = sorted(
          set(getattr(self.distribution, "tkrt_foreign_libs", [])) | set(foreign))


NATIVE = Extension("tkrt._native", sources=["tkrt/_native.c"],
                   include_dirs=[os.path.join(ROOT, "include")], libraries=["tkrt"],
                   extra_compile_args=["-std=c11", "-fvisibility=hidden"],
                   extra_link_args=["-Wl,-rpath,$ORIGIN/lib", "-Wl,--enable-new-dtags"],
                   optional=True)


class WithLibrary(Distribution):
  """The wheel holds a native library, so its files go to platlib, like an extension's."""

  def has_ext_modules(self):
    return True


class PlatformWheel(bdist_wheel):
  """cpXY-cpXY-manylinux_X_Y_<arch> with tkrt._native (that CPython), py3-none-... without it
  (any Python 3, ctypes only); one platform (the binaries inside), glibc X.Y or newer (what they
  import)."""

  def get_tag(self):
    impl, abi, platform = super().get_tag()
    if not getattr(self.distribution, "tkrt_native", False):
      impl, abi = "py3", "none"
    glibc = getattr(self.distribution, "tkrt_glibc", None)
    if glibc is None:
      raise RuntimeError("the wheel's tag is asked for before its binaries were built")
    if not platform.startswith("linux_"):
      raise RuntimeError(f"the tkrt wheel is built for Linux only (platform tag {platform})")
    foreign = self.distribution.tkrt_foreign_libs
    if foreign:  # not manylinux: say so, and keep the plain tag
      print(f"warning: tkrt: the binaries need {', '.join(foreign)}, which a manylinux system "
            f"need not have: the wheel is tagged {platform}", file=sys.stderr)
      return impl, abi, platform
    return impl, abi, f"manylinux_{glibc[0]}_{glibc[1]}_{platform[len('linux_'):]}"


setup(version=_version(), distclass=WithLibrary, ext_modules=[NATIVE],
      cmdclass={"build_py": BuildPyWithLibrary, "build_ext": BuildNative,
                "bdist_wheel": PlatformWheel})
