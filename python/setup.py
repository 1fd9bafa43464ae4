# SPDX-License-Identifier: Apache-2.0
"""Builds the tkrt wheel: CMake builds libtkrt_xla.so from this repository and the wheel carries it.

The package is pure Python (ctypes), but it is useless without its library, so the wheel is tagged
for the platform (py3-none-<platform>) and holds tkrt/libtkrt_xla.so next to tkrt/__init__.py.
Needs cmake, a C and a C++ compiler and zlib's headers; see python/README.md.
"""

import os
import re
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:  # setuptools >= 70.1 ships bdist_wheel itself; older ones use the wheel package's.
  from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:
  from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIB_NAME = "libtkrt_xla.so"


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


class BuildPyWithLibrary(build_py):
  """Copies the Python files, then builds libtkrt_xla.so with CMake and puts it in the package."""

  def run(self):
    super().run()
    build_temp = os.path.join(self.get_finalized_command("build").build_temp, "tkrt-xla")
    configure = ["cmake", "-S", os.path.join(ROOT, "xla"), "-B", build_temp,
                 "-DCMAKE_BUILD_TYPE=Release"]
    configure += os.environ.get("TKRT_CMAKE_ARGS", "").split()
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    for command in (configure, ["cmake", "--build", build_temp, "--target", "tkrt_xla",
                                "-j", jobs]):
      self.announce(" ".join(command), level=2)
      try:
        subprocess.run(command, check=True)
      except FileNotFoundError as e:
        raise RuntimeError("building the tkrt wheel needs cmake on PATH (apt-get install cmake "
                           "make gcc g++ zlib1g-dev)") from e
    built = os.path.join(build_temp, LIB_NAME)
    if not os.path.isfile(built):
      raise RuntimeError(f"CMake finished but {built} is missing")
    package_dir = os.path.join(self.build_lib, "tkrt")
    shutil.copy2(built, os.path.join(package_dir, LIB_NAME))
    shutil.copy2(os.path.join(ROOT, "LICENSE"), os.path.join(package_dir, "LICENSE"))


class WithLibrary(Distribution):
  """The wheel holds a native library, so its files go to platlib, like an extension's."""

  def has_ext_modules(self):
    return True


class PlatformWheel(bdist_wheel):
  """py3-none-<platform>: any Python 3 (ctypes only), but one platform (the .so inside)."""

  def get_tag(self):
    _, _, platform = super().get_tag()
    return "py3", "none", platform


setup(version=_version(), distclass=WithLibrary,
      cmdclass={"build_py": BuildPyWithLibrary, "bdist_wheel": PlatformWheel})
