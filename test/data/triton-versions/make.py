#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compiles tkrt's version-matrix kernels with the Triton this Python has, for CUDA (sm_80,
sm_90) and AMD (gfx90a, gfx942), without a GPU, into OUT/<triton version>/.

  python make.py --out DIR          (run by regenerate.sh, once per pinned Triton)

For each kernel K and target T it writes K/T/ with Triton's own files for that compile, byte for
byte as Triton's cache holds them (<name>.json, .ttir, .source and .cubin/.ptx or .hsaco), and
for the add kernel K/T/cache/ with the whole cache entry (the hash-named folder, every file in it
and its __grp__ file). manifest.json
lists what was compiled, with what constexprs, options and signature (the parameters in order,
as [name, type] pairs), and what this version
lacks (with the reason), so that the tests know what to expect without guessing.

The kernels (see README.md beside this file for what each one checks):
  add      x + y, 1024 per program (every version)
  axpy     alpha * x + y, an autotuned kernel's configs: BLOCK 256 / 1024, 2 / 4 warps, key n
  scratch  a copy through on-device tensor descriptors: global scratch (3.3 and newer)
  desc     a copy through host tensor descriptors (TensorDescriptor: 3.4 and newer)
  cluster  the add kernel with num_ctas = 2, a thread-block cluster (CUDA sm_90)
"""

import argparse
import json
import os
import shutil
import sys
import tempfile

CACHE = tempfile.mkdtemp(prefix="tkrt-triton-versions.")
os.environ["TRITON_CACHE_DIR"] = CACHE  # before Triton is imported: its cache manager reads it
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # 3.9 warns when unset; fusion on, as before

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

VERSION = tuple(int(x) for x in triton.__version__.split(".")[:2])

TARGETS = {
    "cuda_sm80": GPUTarget("cuda", 80, 32),
    "cuda_sm90": GPUTarget("cuda", 90, 32),
    "hip_gfx90a": GPUTarget("hip", "gfx90a", 64),
    "hip_gfx942": GPUTarget("hip", "gfx942", 64),
}


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
           mask=mask)


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
  offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
  mask = offs < n
  x = tl.load(x_ptr + offs, mask=mask)
  y = tl.load(y_ptr + offs, mask=mask)
  tl.store(out_ptr + offs, alpha * x + y, mask=mask)


def _device_desc():
  if hasattr(tl, "make_tensor_descriptor"):
    return tl.make_tensor_descriptor
  return getattr(tl, "_experimental_make_tensor_descriptor", None)


MAKE_DESC = _device_desc()

if MAKE_DESC is not None:

  @triton.jit
  def scratch_copy_kernel(in_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # Row-major M x N fp32; each program copies one BM x BN tile through descriptors it makes
    # itself (on sm_90: TMA descriptors written to global scratch).
    src = MAKE_DESC(in_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = MAKE_DESC(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    m = tl.program_id(0) * BM
    n = tl.program_id(1) * BN
    dst.store([m, n], src.load([m, n]) * 2.0)


@triton.jit
def desc_copy_kernel(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
  m = tl.program_id(0) * BM
  n = tl.program_id(1) * BN
  out_desc.store([m, n], in_desc.load([m, n]) + 1.0)


def _attrs(fn, target, signature):
  """Every pointer parameter 16-byte divisible, as Triton's launcher and jax-triton specialise."""
  pointers = [i for i, name in enumerate(fn.arg_names) if signature[name].startswith("*")]
  if VERSION >= (3, 3):
    return {(i,): [["tt.divisibility", 16]] for i in pointers}
  if VERSION < (3, 2):
    from triton.compiler.compiler import AttrsDescriptor
    return AttrsDescriptor(divisible_by_16=set(pointers))
  from triton.compiler.compiler import make_backend
  cls = type(make_backend(target).get_attrs_descriptor([], []))
  return cls.from_hints({i: 16 for i in pointers})


def compile_kernel(fn, types, constexprs, target, options):
  signature = {name: "constexpr" if name in constexprs else types[name] for name in fn.arg_names}
  attrs = _attrs(fn, target, signature)
  if VERSION >= (3, 3):
    source = ASTSource(fn=fn, signature=signature, constexprs=dict(constexprs), attrs=attrs)
  elif VERSION < (3, 2):  # 3.1 and older: signature and constants by parameter index
    index = {name: i for i, name in enumerate(fn.arg_names)}
    source = ASTSource(fn=fn, signature={index[k]: v for k, v in signature.items()
                                         if v != "constexpr"},
                       constants={index[k]: v for k, v in constexprs.items()}, attrs=attrs)
  else:  # 3.2: the signature lists only the runtime parameters; constants go by name
    source = ASTSource(fn=fn, signature={k: v for k, v in signature.items() if v != "constexpr"},
                       constants=dict(constexprs), attrs=attrs)
  return triton.compile(source, target=target, options=dict(options)), signature


# What the loader reads (the cache copy of the add kernel keeps every file).
KEPT = ("json", "ttir", "source", "cubin", "ptx", "hsaco")


# Paths of this machine that Triton writes into its output (debug locations, extern_libs): each
# is replaced by a neutral path of the same length, so offsets inside binaries stay valid.
_PRIVATE = sorted({os.path.dirname(os.path.dirname(os.path.abspath(triton.__file__))),
                   os.path.dirname(os.path.abspath(__file__)), sys.prefix}, key=len, reverse=True)


def scrub_file(path):
  with open(path, "rb") as f:
    data = f.read()
  clean = data
  for private in _PRIVATE:
    clean = clean.replace(private.encode(), ("/" + "_" * (len(private) - 1)).encode())
  if clean != data:
    with open(path, "wb") as f:
      f.write(clean)


def _meta(compiled, name):
  md = compiled.metadata
  return md.get(name) if isinstance(md, dict) else getattr(md, name, None)


def cache_folder(compiled):
  name, digest = _meta(compiled, "name"), _meta(compiled, "hash")
  for folder, _, files in os.walk(CACHE):
    if name + ".json" in files:
      with open(os.path.join(folder, name + ".json")) as f:
        if json.load(f).get("hash") == digest:
          return folder
  raise RuntimeError(f"{name} ({digest}) is not in Triton's cache {CACHE}")


def cases():
  """(kernel folder, variant or None, fn, types, constexprs, options, targets, why-not)."""
  f32 = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
  every = list(TARGETS)
  if VERSION < (3, 2):  # a version tkrt refuses: one kernel, to test the refusal
    return [("add", None, add_kernel, f32, {"BLOCK": 1024}, {"num_warps": 4}, ["cuda_sm90"], None)]
  out = [("add", None, add_kernel, f32, {"BLOCK": 1024}, {"num_warps": 4}, every, None)]
  axpy_types = dict(f32, alpha="fp32")
  for block, warps in ((256, 2), (1024, 4)):
    out.append(("axpy", f"b{block}_w{warps}", axpy_kernel, axpy_types, {"BLOCK": block},
                {"num_warps": warps}, every, None))
  if MAKE_DESC is not None:
    out.append(("scratch", None, scratch_copy_kernel,
                {"in_ptr": "*fp32", "out_ptr": "*fp32", "M": "i32", "N": "i32"},
                {"BM": 32, "BN": 64}, {"num_warps": 4}, every, None))
  else:
    out.append(("scratch", None, None, None, None, None, [],
                "no on-device tensor descriptors (tl.make_tensor_descriptor, 3.3's "
                "tl._experimental_make_tensor_descriptor) in this version"))
  if VERSION >= (3, 4):
    desc = "tensordesc<fp32[32, 64]>"
    out.append(("desc", None, desc_copy_kernel, {"in_desc": desc, "out_desc": desc},
                {"BM": 32, "BN": 64}, {"num_warps": 4}, every, None))
  else:
    out.append(("desc", None, None, None, None, None, [],
                "no host TensorDescriptor (triton.tools.tensor_descriptor) in this version; its "
                "experimental descriptors are not a launch contract tkrt takes"))
  out.append(("cluster", None, add_kernel, f32, {"BLOCK": 1024}, {"num_warps": 4, "num_ctas": 2},
              ["cuda_sm90"], None))
  return out


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--out", required=True)
  args = parser.parse_args()
  root = os.path.join(args.out, triton.__version__)
  if os.path.exists(root):
    sys.exit(f"make.py: {root} exists; regenerate into a new folder")
  manifest = {"triton": triton.__version__, "kernels": []}
  for kernel, variant, fn, types, constexprs, options, targets, why in cases():
    entry = {"kernel": kernel, "variant": variant, "constexprs": constexprs, "options": options,
             "targets": {}, "missing": why}
    for target_name in targets:
      where = os.path.join(root, kernel, *([variant] if variant else []), target_name)
      try:
        compiled, signature = compile_kernel(fn, types, constexprs, TARGETS[target_name], options)
      except Exception as e:  # noqa: BLE001 (a version that cannot: recorded, not hidden)
        entry["targets"][target_name] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
        print(f"{triton.__version__} {kernel} {variant or ''} {target_name}: cannot: {e}"[:400])
        continue
      folder = cache_folder(compiled)
      os.makedirs(where)
      name = _meta(compiled, "name")
      for file_name in sorted(os.listdir(folder)):
        if file_name.startswith(name + ".") and file_name.rsplit(".", 1)[1] in KEPT:
          shutil.copyfile(os.path.join(folder, file_name), os.path.join(where, file_name))
      if kernel == "add":  # the cache entry as Triton keeps it: hash-named folder, __grp__ file
        shutil.copytree(folder, os.path.join(where, "cache", os.path.basename(folder)))
      for folder_now, _, files in os.walk(where):
        for file_name in files:
          scrub_file(os.path.join(folder_now, file_name))
      entry["targets"][target_name] = {"name": name, "signature": list(signature.items()),
                                       "cache_folder": os.path.basename(folder)}
      print(f"{triton.__version__} {kernel} {variant or ''} {target_name}: {name}")
    manifest["kernels"].append(entry)
  with open(os.path.join(root, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1, sort_keys=True)
    f.write("\n")


if __name__ == "__main__":
  main()
