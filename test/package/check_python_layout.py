# SPDX-License-Identifier: Apache-2.0
"""The Python package's layout (issue 32): every module of python/tkrt declares __all__, each
name in it is defined there, and no module reaches into another's private names: no
`from .m import _x`, no `m._x` on a module of the package (the C extension tkrt._native excepted:
its underscore functions are its interface). Reads the sources (ast); imports nothing.
usage: check_python_layout.py PYTHON_PACKAGE_DIR
"""
import ast
import os
import sys

package = os.path.join(sys.argv[1], "tkrt")
modules = sorted(f[:-3] for f in os.listdir(package) if f.endswith(".py"))
failures = []
for name in modules:
  path = os.path.join(package, name + ".py")
  tree = ast.parse(open(path, encoding="utf-8").read(), path)
  defined, exported, aliases = set(), None, {}
  for node in ast.walk(tree):
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node in tree.body:
      defined.add(node.name)
    elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node in tree.body:
      targets = node.targets if isinstance(node, ast.Assign) else [node.target]
      for t in targets:
        for n in ast.walk(t):
          if isinstance(n, ast.Name):
            defined.add(n.id)
            if n.id == "__all__" and isinstance(node.value, (ast.List, ast.Tuple)):
              exported = [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    elif isinstance(node, ast.ImportFrom) and node.level >= 1:
      for alias in node.names:
        local = alias.asname or alias.name
        if node in tree.body:
          defined.add(local)
        if node.module is None:  # from . import m: a module of the package
          aliases[local] = alias.name
        elif alias.name.startswith("_") and alias.name != "__version__":
          failures.append(f"{name}.py:{node.lineno}: imports {alias.name} from "
                          f".{node.module}, a private name of another module")
  if exported is None:
    failures.append(f"{name}.py: no __all__")
  else:
    for e in exported:
      if e not in defined:
        failures.append(f"{name}.py: __all__ names {e}, which the module does not define")
  for node in ast.walk(tree):
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
        and node.value.id in aliases and aliases[node.value.id] != "_native"
        and node.attr.startswith("_") and not node.attr.startswith("__")):
      failures.append(f"{name}.py:{node.lineno}: {node.value.id}.{node.attr} is a private name "
                      f"of tkrt.{aliases[node.value.id]}")
for f in failures:
  print("FAIL:", f)
print(f"python layout: {len(modules)} modules, {len(failures)} problem(s)")
sys.exit(1 if failures else 0)
