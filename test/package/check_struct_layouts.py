# SPDX-License-Identifier: Apache-2.0
"""The ctypes mirrors of tkrt's C structs (python/tkrt) agree with the C layouts: every field's
offset and size, and the struct's size for mirrors of a whole struct (those marked "the start of"
mirror a prefix only). The layouts come from struct_layouts (a C program built against the
headers). Usage: check_struct_layouts.py STRUCT_LAYOUTS_PROGRAM PYTHON_PACKAGE_DIR
"""
import ctypes
import re
import subprocess
import sys

program, package_dir = sys.argv[1], sys.argv[2]
sys.path.insert(0, package_dir)
import tkrt  # noqa: E402 - the package from the source tree; no library is loaded

sizes, fields = {}, {}
for line in subprocess.run([program], check=True, capture_output=True, text=True).stdout.splitlines():
  parts = line.split()
  if len(parts) == 2:
    sizes[parts[0]] = int(parts[1])
  else:
    struct, field = parts[0].split(".")
    fields.setdefault(struct, []).append((field, int(parts[1]), int(parts[2])))

# Every ctypes mirror in the package's modules, found by its comment "# <C type>" or
# "# the start of <C type>".
import importlib  # noqa: E402
import os  # noqa: E402
mirrors = []
package_files = sorted(f for f in os.listdir(os.path.join(package_dir, "tkrt")) if f.endswith(".py"))
for file in package_files:
  module = importlib.import_module("tkrt." + file[:-3]) if file != "__init__.py" else tkrt
  source = open(module.__file__, encoding="utf-8").read()
  for name, prefix, c_type in re.findall(
      r"class (\w+)\(ctypes\.Structure\):  # (the start of )?(tkrt_\w+)", source):
    mirrors.append((getattr(module, name), c_type, bool(prefix)))

failures = []
for cls, c_type, prefix in mirrors:
  if c_type not in sizes:
    failures.append(f"{cls.__name__} mirrors {c_type}, which struct_layouts.c does not list")
    continue
  names = [f[0] for f in cls._fields_]
  c_names = [f[0] for f in fields[c_type]]
  if names != c_names:
    failures.append(f"{cls.__name__}: fields {names} but struct_layouts.c lists {c_names}")
    continue
  for field, offset, size in fields[c_type]:
    got = getattr(cls, field)
    if (got.offset, got.size) != (offset, size):
      failures.append(f"{cls.__name__}.{field}: ctypes offset {got.offset} size {got.size}, "
                      f"C {c_type}.{field} offset {offset} size {size}")
  if not prefix and ctypes.sizeof(cls) != sizes[c_type]:
    failures.append(f"{cls.__name__}: ctypes size {ctypes.sizeof(cls)}, C sizeof({c_type}) "
                    f"{sizes[c_type]} (a field missing from the mirror?)")
if len(mirrors) < 14:
  failures.append(f"only {len(mirrors)} mirrors found in {package_files}")
if failures:
  sys.exit("FAIL:\n  " + "\n  ".join(failures))
print(f"ok: {len(mirrors)} ctypes mirrors agree with the C layouts: "
      + ", ".join(c for _, c, _ in mirrors))
