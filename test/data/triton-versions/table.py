#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The compatibility tables of docs/compatibility.md, made from the test data so that they cannot
drift from it: Triton's releases from test/data/triton-versions (each release's manifest.json and
the files Triton wrote), jaxlib's from test/data/jaxlib-versions (each release's embedded call
schema, schema.txt).

  table.py                     print the tables
  table.py --check DOC         exit 1 when DOC's tables (between their markers) are not these
  table.py --write DOC         replace DOC's tables with these
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
JAXLIB = os.path.join(HERE, "..", "jaxlib-versions")
# Each table between its markers: (begin, end, maker).
BEGIN = "<!-- triton-versions table: made by test/data/triton-versions/table.py; do not edit -->"
END = "<!-- end of triton-versions table -->"
JAXLIB_BEGIN = "<!-- jaxlib-versions table: made by test/data/triton-versions/table.py; do not edit -->"
JAXLIB_END = "<!-- end of jaxlib-versions table -->"
TARGETS = ("cuda_sm80", "cuda_sm90", "hip_gfx90a", "hip_gfx942")


def versions():
  return sorted((v for v in os.listdir(HERE) if re.fullmatch(r"\d+\.\d+\.\d+", v)),
                key=lambda v: tuple(int(x) for x in v.split(".")))


def entry_params(ptx_path, name):
  """The .param count of the kernel's .entry in the PTX: what the kernel really takes."""
  with open(ptx_path) as f:
    text = f.read()
  m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\((.*?)\)", text, re.S)
  return len(re.findall(r"\.param\s", m.group(1))) if m else None


def ttir_signature(path, name):
  with open(path) as f:
    text = f.read()
  m = re.search(r"tt\.func public @" + re.escape(name) + r"\((.*?)\)\s*attributes", text, re.S)
  sig = re.sub(r'loc\((?:[^()]|\([^()]*\))*\)', "", m.group(1)) if m else ""
  return re.findall(r"%([\w.]+):\s*([^,{]+?)\s*(?:\{[^}]*\})?\s*(?:,|$)", sig)


def meta(version, kernel, target, variant=None):
  folder = os.path.join(HERE, version, kernel, *([variant] if variant else []), target)
  if not os.path.isdir(folder):
    return None, None
  jsons = [f for f in os.listdir(folder) if f.endswith(".json") and not f.startswith("__grp__")]
  with open(os.path.join(folder, jsons[0])) as f:
    return folder, json.load(f)


def row(version):
  with open(os.path.join(HERE, version, "manifest.json")) as f:
    manifest = json.load(f)
  rel = ".".join(version.split(".")[:2])
  cells = [f"{rel} ({version})"]
  # Which kernels compiled for which target.
  for target in TARGETS:
    done = sum(1 for e in manifest["kernels"] if "name" in e["targets"].get(target, {}))
    cells.append(str(done) if done else "-")
  folder, add = meta(version, "add", "cuda_sm90")
  oldest, newest = supported()
  read = oldest <= tuple(int(x) for x in rel.split(".")) <= newest
  cells.append("yes" if "triton_version" in add else
               "no (recognised by its fields)" if read else "no")
  # Hidden pointers: the PTX's .entry parameters beyond the kernel's own 4.
  hidden = entry_params(os.path.join(folder, "add_kernel.ptx"), "add_kernel") - 4
  cells.append({0: "none", 1: "global", 2: "global, profile"}.get(hidden, str(hidden)))
  params = ttir_signature(os.path.join(folder, "add_kernel.ttir"), "add_kernel")
  cells.append("%argN" if params and params[0][0] == "arg0" else "source names")
  folder, cluster = meta(version, "cluster", "cuda_sm90")
  cells.append("-" if not cluster else "cluster_dims" if "cluster_dims" in cluster else "num_ctas")
  folder, scratch = meta(version, "scratch", "cuda_sm90")
  cells.append(f"{scratch['global_scratch_size']} B" if scratch and scratch.get("global_scratch_size")
               else "-")
  folder, desc = meta(version, "desc", "cuda_sm90")
  cells.append(f"TMA ({len(desc.get('tensordesc_meta') or [])} meta)" if desc else "-")
  folder, desc80 = meta(version, "desc", "cuda_sm80")
  if desc80:
    sig = ttir_signature(os.path.join(folder, "desc_copy_kernel.ttir"), "desc_copy_kernel")
    per = len(sig) // 2
    flags = sum(1 for _, t in sig[:per] if t.strip() == "i1")
    cells.append(f"{per} params ({flags} flag{'s' if flags != 1 else ''})")
  else:
    cells.append("-")
  cells.append("read" if read else "refused")
  return cells


def supported():
  """TKRT_TRITON_OLDEST / _NEWEST from include/tkrt/triton.h: the releases the loader reads."""
  with open(os.path.join(HERE, "..", "..", "..", "include", "tkrt", "triton.h")) as f:
    text = f.read()
  found = dict(re.findall(r'#define TKRT_TRITON_(OLDEST|NEWEST) "(\d+\.\d+)"', text))
  return tuple(tuple(int(x) for x in found[k].split(".")) for k in ("OLDEST", "NEWEST"))


def table():
  head = ["Triton", "sm_80", "sm_90", "gfx90a", "gfx942", "triton_version", "hidden pointers",
          "TTIR names", "cluster field", "global scratch (sm_90)", "host descriptors (sm_90)",
          "decomposed descriptor (sm_80)", "tkrt"]
  lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
  for version in versions():
    lines.append("| " + " | ".join(row(version)) + " |")
  return "\n".join(lines) + "\n"


def jaxlib_table():
  """Per jaxlib release: the TritonKernel / Parameter fields its call schema has."""
  releases = sorted((v for v in os.listdir(JAXLIB) if re.fullmatch(r"\d+\.\d+\.\d+(\.\d+)?", v)),
                    key=lambda v: tuple(int(x) for x in v.split(".")))
  columns = (("cluster_dim_0..2 (7-9)", "cluster_dim_0"), ("num_ctas (10)", "num_ctas"),
             ("module_image (11)", "module_image"),
             ("global_scratch_size/align (12, 13)", "global_scratch_size"),
             ("Parameter.tensor_descriptor (9)", "tensor_descriptor"))
  head = ["jaxlib"] + [c for c, _ in columns] + ["XLA targets", "cases", "tkrt"]
  lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
  for release in releases:
    with open(os.path.join(JAXLIB, release, "schema.txt")) as f:
      schema = f.read()
    kernel = schema.split("message TritonKernel\n")[1].split("\nmessage ")[0]
    cells = [release]
    for _, field in columns:
      text = schema if field == "tensor_descriptor" else kernel
      has = re.search(r"^\s+\d+ " + field + ":", text, re.M) is not None
      reserved = field == "cluster_dim_0" and re.search(r"^\s+reserved 7", kernel, re.M)
      cells.append("yes" if has else ("reserved" if reserved else "-"))
    with open(os.path.join(JAXLIB, release, "targets.json")) as f:
      targets = json.load(f)
    cells.append(", ".join(targets["legacy"] + [t + " (FFI)" for t in targets["ffi"]]))
    cases = sorted(c for c in os.listdir(os.path.join(JAXLIB, release))
                   if os.path.isdir(os.path.join(JAXLIB, release, c)))
    cells += [", ".join(cases), "decoded, run"]
    lines.append("| " + " | ".join(cells) + " |")
  return "\n".join(lines) + "\n"


def replace(current, begin, end, text, doc):
  if begin not in current or end not in current:
    raise SystemExit(f"table.py: {doc} has no table markers ({begin!r} ... {end!r})")
  start = current.index(begin) + len(begin) + 1
  stop = current.index(end)
  return current[:start] + text + current[stop:]


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  group = parser.add_mutually_exclusive_group()
  group.add_argument("--check", metavar="DOC")
  group.add_argument("--write", metavar="DOC")
  args = parser.parse_args()
  text, jax = table(), jaxlib_table()
  doc = args.check or args.write
  if not doc:
    sys.stdout.write(text + "\n" + jax)
    return 0
  with open(doc) as f:
    current = f.read()
  made = replace(replace(current, BEGIN, END, text, doc), JAXLIB_BEGIN, JAXLIB_END, jax, doc)
  if args.check:
    if made != current:
      print(f"table.py: {doc}'s tables are not the ones the data makes; run "
            f"test/data/triton-versions/table.py --write {doc}")
      return 1
    print(f"table.py: {doc}'s tables match the data ({len(versions())} Triton releases, "
          f"{jax.count(chr(10)) - 2} jaxlib releases)")
    return 0
  with open(doc, "w") as f:
    f.write(made)
  return 0


if __name__ == "__main__":
  sys.exit(main())
