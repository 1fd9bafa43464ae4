# SPDX-License-Identifier: Apache-2.0
"""tkrt.STATS_FIELDS (python/tkrt) lists the counters of tkrt_xla_stats_t (xla/tkrt_xla.h) in order.

The Python package reads the C struct with ctypes, so the two must agree; a counter added in C
without its Python name fails here. Usage: check_stats_fields.py XLA_HEADER PYTHON_PACKAGE_DIR
"""
import re
import sys

header, package_dir = sys.argv[1], sys.argv[2]
text = open(header, encoding="utf-8").read()
body = re.search(r"typedef struct tkrt_xla_stats \{(.*?)\} tkrt_xla_stats_t;", text, re.S)
if not body:
  sys.exit(f"FAIL: no tkrt_xla_stats_t in {header}")
fields = re.findall(r"^\s*(\w+)\s+(\w+);", re.sub(r"/\*.*?\*/", "", body.group(1), flags=re.S),
                    re.M)
if not fields or fields[0] != ("size_t", "struct_size"):
  sys.exit(f"FAIL: tkrt_xla_stats_t does not start with size_t struct_size: {fields[:1]}")
others = [f for f in fields[1:] if f[0] != "uint64_t"]
if others:
  sys.exit(f"FAIL: tkrt.stats() reads uint64_t counters only; the header has {others}")
names = tuple(name for _, name in fields[1:])

sys.path.insert(0, package_dir)
import tkrt  # noqa: E402 - the package from the source tree; no library is loaded

if tuple(tkrt.STATS_FIELDS) != names:
  sys.exit(f"FAIL: tkrt.STATS_FIELDS in {tkrt.__file__} is\n  {tkrt.STATS_FIELDS}\n"
           f"but {header} has\n  {names}\nUpdate STATS_FIELDS (same names, same order).")
print(f"ok: {len(names)} counters agree: {', '.join(names)}")
