# SPDX-License-Identifier: Apache-2.0
"""Docs that run: the checks behind README.md and docs/*.md (issue 32).

Every fenced code block carries a mark after its language, in the fence's info string:

  ```sh run=NAME        executed in CI (`docs.py run NAME`: .ci/run runs each one), on the host
  ```c run=NAME         backend; sh blocks with bash -euo pipefail in the repository root and
  ```python run=NAME    the caller's environment, C blocks compiled against the build's libtkrt
                        and run, Python blocks with the checkout's package and the build's
                        libraries
  ```sh gpu=NAME        executed by test/gpu/all.sh docs on a GPU machine (same runner)
  ```c illustration     not run: an excerpt, a sketch with `...`, a diagram, a listing, output

A block without one of these marks fails `docs.py check`, as does a name used twice.

`check` also reads every link and inline code span (`...`) and fails on what names something
that is not there:
  - a relative link to a file of the repository;
  - a path into the repository (its first component a top-level entry: `core/call.c`,
    `test/gpu/run.sh`; build outputs, globs and placeholders are not paths);
  - a C name, `tkrt_*` or `TKRT_*`, that no source file, header or build file defines or uses;
  - a `tkrt <command> ...` command line whose command is not one of the tool's, or a `--flag`
    of it that its `--help` (or `tkrt help triton`) does not list;
  - a Python name `tkrt.NAME`, `tkrt.triton.NAME`, `tkrt.exchange.NAME` or `tt.NAME` (tt being
    tkrt.triton) the package does not have.

usage: docs.py check --tkrt BIN
       docs.py list
       docs.py run NAME --build DIR [--python PY]
Exit status: 0 all good, 1 findings (each printed as FILE:LINE: what), 2 bad usage.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MARKS = ("run", "gpu", "illustration")
FENCE = re.compile(r"^(\s*)(```+)(.*)$")


def doc_files():
  files = [os.path.join(ROOT, "README.md")]
  docs = os.path.join(ROOT, "docs")
  files += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
  return files


def rel(path):
  return os.path.relpath(path, ROOT)


class Block:
  def __init__(self, path, line, lang, mark, name, text):
    self.path, self.line, self.lang, self.mark, self.name, self.text = (
        path, line, lang, mark, name, text)

  def where(self):
    return f"{rel(self.path)}:{self.line}"


def parse(path):
  """(blocks, prose lines [(line number, text)], findings) of one markdown file."""
  blocks, prose, findings = [], [], []
  lines = open(path, encoding="utf-8").read().split("\n")
  i = 0
  while i < len(lines):
    m = FENCE.match(lines[i])
    if not m:
      prose.append((i + 1, lines[i]))
      i += 1
      continue
    start, fence, info = i + 1, m.group(2), m.group(3).split()
    body = []
    i += 1
    while i < len(lines) and not lines[i].strip().startswith(fence):
      body.append(lines[i][len(m.group(1)):] if lines[i].startswith(m.group(1)) else lines[i])
      i += 1
    if i == len(lines):
      findings.append(f"{rel(path)}:{start}: code block never closed")
    i += 1
    lang = info[0] if info and "=" not in info[0] and info[0] not in MARKS else ""
    words = info[1:] if lang else info
    mark = name = None
    for word in words:
      key, _, value = word.partition("=")
      if key in MARKS:
        mark, name = key, value or None
    if mark is None:
      findings.append(f"{rel(path)}:{start}: code block without a mark (```{lang} run=NAME, "
                      f"```{lang} gpu=NAME or ```{lang} illustration: see test/docs/docs.py)")
    elif mark != "illustration" and not name:
      findings.append(f"{rel(path)}:{start}: a {mark} block needs a name ({mark}=NAME)")
    elif mark != "illustration" and lang not in ("sh", "c", "python"):
      findings.append(f"{rel(path)}:{start}: a {mark} block must be sh, c or python, not "
                      f"{lang or 'unlabelled'}")
    blocks.append(Block(path, start, lang, mark, name, "\n".join(body) + "\n"))
  return blocks, prose, findings


# ---------------------------------------------------------------- inline references

SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
LINK = re.compile(r"\]\(([^)\s]+)\)")
TOP = None


def top_level():
  global TOP
  if TOP is None:
    TOP = {e for e in os.listdir(ROOT) if not e.startswith(".") and e != "build"} | {".ci"}
  return TOP


def path_finding(token):
  """Why `token`, read as a path into the repository, is wrong, or None (also when it is no such
  path: build outputs, globs, placeholders, URLs)."""
  token = token.strip().rstrip(".,;:)")
  if " " in token or any(c in token for c in "*?<>{}$[]|=~") or "://" in token:
    return None
  token = re.sub(r"(:\d+(-\d+)?|#[\w-]+)$", "", token)
  first = token.split("/")[0]
  if "/" not in token and not token.startswith(".ci"):
    return None
  if first not in top_level():
    return None
  target = os.path.join(ROOT, token)
  if os.path.exists(target) or os.path.islink(target):
    return None
  return f"`{token}` does not exist"


_NAMES = None


def known_names():
  """Every tkrt_* / TKRT_* word in the sources, headers, build and test files (not the docs)."""
  global _NAMES
  if _NAMES is None:
    names = set()
    word = re.compile(r"\b(?:tkrt|TKRT)_\w+")
    for base, dirs, files in os.walk(ROOT):
      dirs[:] = [d for d in dirs if d not in (".git", "build", "docs", "data")]
      for f in files:
        if f.endswith((".c", ".h", ".cc", ".py", ".sh", ".cmake", ".txt", ".json", ".map", ".in",
                       ".toml", ".cfg")) or f in ("run",):
          try:
            text = open(os.path.join(base, f), encoding="utf-8", errors="replace").read()
          except OSError:
            continue
          names.update(word.findall(text))
    _NAMES = names
  return _NAMES


def name_findings(token):
  out = []
  for name in re.findall(r"\b(?:tkrt|TKRT)_\w+", token):
    if name.endswith("_") or name.endswith("_*"):
      continue
    if name not in known_names():
      out.append(f"`{name}` is not in the sources")
  return out


_HELP = {}


def tool_help(tkrt, command):
  if command not in _HELP:
    args = [tkrt, "help", command] if command == "triton" else [tkrt, command, "--help"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=60)
    _HELP[command] = done.stdout + done.stderr if done.returncode == 0 else None
  return _HELP[command]


def command_findings(token, tkrt):
  """A `tkrt <command> ...` span: the command is the tool's, each --flag its help lists."""
  try:
    words = shlex.split(token)
  except ValueError:
    return []
  if len(words) < 2 or words[0] != "tkrt" or words[1].startswith("-"):
    return []
  out = []
  for command in words[1].split("|"):  # `tkrt run|tune --flag`: each of them
    if command in ("help",):
      continue
    text = tool_help(tkrt, command)
    if text is None:
      out.append(f"`tkrt {command}` is not a command of the tool")
      continue
    extra = tool_help(tkrt, "triton") or ""
    for w in words[2:]:
      if w == "--":
        break
      if w.startswith("--"):
        flag = w.split("=")[0]
        if not re.search(re.escape(flag) + r"(?![\w-])", text + extra):
          out.append(f"`tkrt {command}` has no flag {flag}")
  return out


# tkrt.NAME, tkrt.triton.NAME, tkrt.exchange.NAME; tt.NAME only when called or a class (tt.func,
# tt.divisibility and tt.ptr are Triton IR's words, not tkrt.triton's).
FILE_SUFFIXES = ("h", "c", "so", "pc", "map", "json", "md", "py")
PY_NAME = re.compile(r"(?<![\w.])(tkrt\.triton|tkrt\.exchange|tkrt)\.([A-Za-z_]\w*)"
                     r"|(?<![\w.])tt\.([A-Z]\w*|\w+(?=\())")


def python_findings(spans, python, env):
  """[(where, span)] -> findings for Python names the package lacks (one interpreter run)."""
  wanted = {}
  for where, span in spans:
    for module, attr, tt_attr in PY_NAME.findall(span):
      if tt_attr:
        module, attr = "tkrt.triton", tt_attr
      if module == "tkrt" and attr in ("triton", "exchange"):
        continue
      if module == "tkrt" and attr in FILE_SUFFIXES:  # a file: tkrt.h, tkrt.pc, tkrt.map
        continue
      if module == "tkrt" and any(os.path.exists(os.path.join(ROOT, "python", "tkrt", attr + s))
                                  for s in (".py", ".c")):
        continue  # a module of the package (tkrt._native is built from _native.c)
      wanted.setdefault((module, attr), []).append(where)
  if not wanted:
    return []
  script = ("import importlib, json, sys\n"
            "pairs = json.loads(sys.argv[1])\n"
            "def has(module, attr):\n"
            "  if hasattr(importlib.import_module(module), attr):\n"
            "    return True\n"
            "  try:\n"
            "    importlib.import_module(module + '.' + attr)\n"
            "    return True\n"
            "  except ImportError:\n"
            "    return False\n"
            "missing = [p for p in pairs if not has(*p)]\n"
            "print(json.dumps(missing))\n")
  import json
  done = subprocess.run([python, "-c", script, json.dumps(sorted(wanted))], capture_output=True,
                        text=True, env=env, timeout=120)
  if done.returncode != 0:
    return [f"cannot import the package to check Python names: {done.stderr.strip()}"]
  out = []
  for module, attr in json.loads(done.stdout):
    for where in wanted[(module, attr)]:
      out.append(f"{where}: `{module}.{attr}` is not in the package")
  return out


def check(tkrt, python, env):
  findings, names, py_spans = [], {}, []
  for path in doc_files():
    blocks, prose, found = parse(path)
    findings += found
    for b in blocks:
      if b.name:
        if b.name in names:
          findings.append(f"{b.where()}: block name {b.name} also used at {names[b.name]}")
        names[b.name] = b.where()
    generated = rel(path) == "docs/settings.md"  # checked against the table itself
    for number, line in prose:
      for target in LINK.findall(SPAN.sub("", line)):
        if "://" in target or target.startswith(("#", "mailto:")):
          continue
        local = os.path.normpath(os.path.join(os.path.dirname(path), target.split("#")[0]))
        if not os.path.exists(local):
          findings.append(f"{rel(path)}:{number}: link to {target}, which does not exist")
      for span in SPAN.findall(line):
        where = f"{rel(path)}:{number}"
        problem = path_finding(span)
        if problem:
          findings.append(f"{where}: {problem}")
        if not generated:
          findings += [f"{where}: {p}" for p in name_findings(span)]
        findings += [f"{where}: {p}" for p in command_findings(span, tkrt)]
        py_spans.append((where, span))
  findings += python_findings(py_spans, python, env)
  return findings


# ---------------------------------------------------------------- running blocks


def find_block(name):
  for path in doc_files():
    for b in parse(path)[0]:
      if b.name == name:
        return b
  return None


def run_block(block, build, python, env):
  env = dict(env)
  env["TKRT_DOCS_BUILD"] = build
  print(f"docs: running {block.mark}={block.name} ({block.where()})", flush=True)
  if block.lang == "sh":
    # As a reader runs it: with the caller's environment only (a block that needs the checkout's
    # package or a library says so itself, as the README's do).
    plain = dict(os.environ)
    plain["TKRT_DOCS_BUILD"] = build
    return subprocess.run(["bash", "-euo", "pipefail", "-c", block.text], cwd=ROOT,
                          env=plain).returncode
  if block.lang == "python":
    return subprocess.run([python, "-c", block.text], cwd=ROOT, env=env).returncode
  with tempfile.TemporaryDirectory(prefix="tkrt-docs-") as work:
    source = os.path.join(work, "block.c")
    open(source, "w").write(block.text)
    exe = os.path.join(work, "block")
    cc = env.get("CC", "cc")
    done = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", exe, source,
                           "-I", os.path.join(ROOT, "include"), "-L", build, "-ltkrt",
                           "-Wl,-rpath," + build], cwd=ROOT, env=env)
    if done.returncode != 0:
      return done.returncode
    return subprocess.run([exe], cwd=ROOT, env=env).returncode


def package_env(build):
  env = dict(os.environ)
  env["PYTHONPATH"] = os.path.join(ROOT, "python") + (
      os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
  if build:
    core = os.path.join(build, "libtkrt.so.0")
    if os.path.exists(core):
      env["TKRT_LIBRARY"] = core
    xla = os.path.join(build, "xla", "libtkrt_xla.so")
    if os.path.exists(xla):
      env["TKRT_XLA_LIBRARY"] = xla
  return env


def main(argv):
  if not argv or argv[0] not in ("check", "list", "run"):
    print(__doc__, file=sys.stderr)
    return 2
  opts, rest, i = {}, [], 1
  while i < len(argv):
    if argv[i] in ("--tkrt", "--build", "--python") and i + 1 < len(argv):
      opts[argv[i][2:]] = argv[i + 1]
      i += 2
    else:
      rest.append(argv[i])
      i += 1
  python = opts.get("python", sys.executable)
  build = os.path.abspath(opts["build"]) if "build" in opts else ""
  if argv[0] == "list":
    for path in doc_files():
      for b in parse(path)[0]:
        print(f"{b.where()}: {b.lang or '-'} {b.mark or 'UNMARKED'}{'=' + b.name if b.name else ''}")
    return 0
  if argv[0] == "check":
    if "tkrt" not in opts:
      print("docs.py check: --tkrt BIN is required", file=sys.stderr)
      return 2
    findings = check(opts["tkrt"], python, package_env(build))
    for f in findings:
      print(f)
    print(f"docs: {len(findings)} finding(s) in {len(doc_files())} files")
    return 1 if findings else 0
  if len(rest) != 1 or not build:
    print("docs.py run: NAME and --build DIR are required", file=sys.stderr)
    return 2
  block = find_block(rest[0])
  if block is None or block.mark not in ("run", "gpu"):
    print(f"docs.py run: no run or gpu block named {rest[0]}", file=sys.stderr)
    return 2
  return run_block(block, build, python, package_env(build))


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
