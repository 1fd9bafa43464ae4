# SPDX-License-Identifier: Apache-2.0
"""Every Triton release's compile output in test/data/triton-versions, read by tkrt (no GPU):
for each kernel and target that release's make.py compiled (its manifest.json), the C library
loads it (tkrt.triton.load and `tkrt info --image`) and reads exactly what that release wrote:
the parameters (names, types, divisibility, tensor descriptors and their decomposed form), the
release and its hidden scratch pointers, num_warps / num_ctas / scratch, the images; the add
kernel of every release runs on the host backend (its C port, whose signature the loader checks
against that release's TTIR) against NumPy, bit for bit; each release's cache entry is listed by
`tkrt info --triton-cache` and passes the cache-entry check; releases and builds tkrt does not read
are refused by name.

  test_versions.py TKRT_CLI HOST_ADD_1024_IMAGE DATA_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)
import script_checks  # noqa: E402
from script_checks import check  # noqa: E402

np = script_checks.numpy_with_dlpack()  # skips (77) where this Python has no NumPy

import tkrt._lib as _lib  # noqa: E402
import tkrt.triton as tt  # noqa: E402

CLI, HOST_ADD, DATA = sys.argv[1], sys.argv[2], sys.argv[3]
# The releases the data must hold: every one tkrt reads, and one it refuses.
SUPPORTED = ("3.2", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "3.9")
REFUSED = ("3.1",)
# What each release's kernels declare after their parameters (tkrt_hidden_pointers_t).
HIDDEN = {"3.2": 2, "3.3": 1, "3.4": 1}  # 3.5 and newer: 0 (global and profile scratch)
HIDDEN_TEXT = {0: "the hidden global- and profile-scratch pointers",
               1: "the hidden global-scratch pointer", 2: "no hidden pointers"}
IMAGES = {"cuda": ("cubin", "ptx"), "hip": ("hsaco",)}



def release(version):
  return ".".join(version.split(".")[:2])


def cli(*args):
  done = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=60)
  return done.returncode, done.stdout + done.stderr


def expected_params(version, signature, target):
  """(name, type) of each parameter as that release's TTIR declares it for `target`; name None
  where Triton names the piece itself (a decomposed descriptor's shape, strides and flags)."""
  rel = release(version)
  named = rel not in ("3.2", "3.3", "3.4")  # older TTIRs name parameters %arg0, %arg1, ...
  out = []
  for name, kind in signature:
    if kind == "constexpr":
      continue
    m = re.fullmatch(r"tensordesc<(\w+)\[(\d+), (\d+)\]>", kind)
    if m and not target.startswith("cuda_sm90"):
      # No TMA here: Triton rewrote the descriptor into its decomposed form in the TTIR: base,
      # shape and strides (i64), the padding flag (3.5 and newer), the round-to-tf32 flag (3.7 and
      # newer), then the shape (i32) and strides (i64) it passes for the descriptor itself.
      rank = 2
      pieces = ["i64"] * (2 * rank) + ["i1"] * ((rel >= "3.5") + (rel >= "3.7"))
      pieces += ["i32"] * rank + ["i64"] * rank
      out += [(name, f"*{m.group(1)}")] + [(None, t) for t in pieces]
    else:
      out.append((name, kind))
  if named:
    return out
  # %argN, N counting the TTIR's parameters: a TMA descriptor's hidden shape and strides too.
  renamed, index = [], 0
  for name, kind in out:
    renamed.append((f"arg{index}" if name is not None else None, kind))
    m = re.fullmatch(r"tensordesc<\w+\[(\d+), (\d+)\]>", kind)
    index += 1 + (4 if m else 0)
  return renamed


def check_target(version, entry, target, info, folder):
  where = f"{version} {entry['kernel']}{'/' + entry['variant'] if entry['variant'] else ''} {target}"
  rel = release(version)
  try:
    k = tt.load(folder)
  except tt.Error as e:
    check(False, f"{where}: load: {e}")
    return
  check(k.name == info["name"], f"{where}: name {k.name!r}")
  want = expected_params(version, info["signature"], target)
  got = [(p.name, p.type) for p in k.params]
  got_named = [(n if w is not None else None, t) for (n, t), (w, _) in zip(got, want)]
  check(len(got) == len(want) and got_named == want, f"{where}: parameters {got} (want {want})")
  params = list(k.params)
  pointers = [p for p in params if p.type.startswith("*")]
  if entry["kernel"] != "desc":  # make.py marks every pointer 16-byte divisible
    check(pointers and all(p.divisibility == 16 for p in pointers),
          f"{where}: every pointer's tt.divisibility 16 ({[p.divisibility for p in pointers]})")
  check(k.num_warps == entry["options"]["num_warps"], f"{where}: num_warps {k.num_warps}")
  check(len(k.targets) == 1 and k.targets[0]["triton_release"] == rel,
        f"{where}: read as Triton {k.targets[0]['triton_release'] if k.targets else '?'}")
  backend = target.split("_")[0]
  check(sorted(k.targets[0]["image_kinds"]) == sorted(IMAGES[backend]),
        f"{where}: images {k.targets[0]['image_kinds']}")
  rc, text = cli("info", "--image", folder)
  check(rc == 0, f"{where}: tkrt info exit {rc}: {text[:300]}")
  hidden = HIDDEN.get(rel, 0)
  check(f"then {HIDDEN_TEXT[hidden]})" in text, f"{where}: hidden pointers in `tkrt info`: {text[:200]}")
  ctas = entry["options"].get("num_ctas", 1)
  check(f"num_warps {entry['options']['num_warps']}, num_ctas {ctas}" in text,
        f"{where}: launch line of `tkrt info`: {text[:400]}")
  scratch = int(re.search(r"global scratch (\d+) bytes", text).group(1))
  if entry["kernel"] == "scratch" and target == "cuda_sm90":
    check(scratch > 0 and hidden in (0, 1), f"{where}: on-device descriptors need global scratch "
          f"({scratch} bytes) and its pointer")
  elif entry["kernel"] != "scratch":
    check(scratch == 0, f"{where}: no global scratch ({scratch})")


def run_add_on_host(version, folder, work):
  """The release's add kernel with tkrt's C port of it beside its JSON, run on the host."""
  where = f"{version} add (host image)"
  copy = os.path.join(work, f"add-{version}")
  shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("cache"))
  shutil.copy(HOST_ADD, os.path.join(copy, "add_kernel.so"))
  try:
    k = tt.load(copy, allow_native_code=True)
    n = 100003
    rng = np.random.default_rng(int(version.replace(".", "")))
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, dtype=np.float32)
    count = k.params[3].name  # "n"; Triton 3.2 to 3.4 leave their TTIR's names: "arg3"
    check(count == ("arg3" if release(version) < "3.5" else "n"), f"{where}: the count is {count!r}")
    launch = k.prepare(f"cdiv({count}, BLOCK)", constants={"BLOCK": 1024}, device="host",
                       **{count: n})
    launch(x, y, out)
    check(np.array_equal(out, x + y), f"{where}: out == x + y bit for bit")
  except tt.Error as e:
    check(False, f"{where}: {e}")


def check_cache(version, cache_root):
  where = f"{version} cache"
  entries = os.listdir(cache_root)
  check(len(entries) == 1, f"{where}: one entry ({entries})")
  entry = os.path.join(cache_root, entries[0])
  files = sorted(os.listdir(entry))
  check("__grp__add_kernel.json" in files and "add_kernel.json" in files,
        f"{where}: Triton's layout (__grp__ file and metadata): {files}")
  rc, text = cli("info", "--triton-cache", cache_root)
  check(rc == 0 and "add_kernel" in text and entries[0] in text,
        f"{where}: `tkrt info --triton-cache` lists the kernel: {text[:300]}")
  rc, text = cli("info", "--triton-cache", cache_root, "--kernel", "add_kernel")
  check(rc == 0 and entries[0] in text, f"{where}: --kernel add_kernel finds it: {text[:300]}")
  with open(os.path.join(entry, "add_kernel.json")) as f:
    digest = json.load(f)["hash"]
  try:
    check(tt.load(entry).name == "add_kernel", f"{where}: tkrt.triton.load reads the entry")
  except tt.Error as e:
    check(False, f"{where}: tkrt.triton.load: {e}")
  api = _lib.api()
  status = api.triton_cache_entry_check(entry.encode(), b"add_kernel", digest.encode(), 1)
  try:
    if status:
      _lib.raise_status(status)
    check(True, f"{where}: tkrt_triton_cache_entry_check accepts the entry")
  except tt.Error as e:
    check(False, f"{where}: tkrt_triton_cache_entry_check: {e}")
  status = api.triton_cache_entry_check(entry.encode(), b"add_kernel", b"0" * 64, 1)
  check(bool(status), f"{where}: the entry check refuses another hash")
  if status:
    api.status_free(status)
  return entry


def check_refusals(work, data_versions):
  # A release tkrt does not read, as that release wrote it.
  for version in data_versions:
    if release(version) not in REFUSED:
      continue
    folder = os.path.join(DATA, version, "add", "cuda_sm90")
    try:
      tt.load(folder)
      check(False, f"{version}: loaded")
    except tt.Error as e:
      check(e.code == "UNIMPLEMENTED" and "no field 'triton_version'" in str(e)
            and "Triton 3.1 or older" in str(e) and "3.2 to 3.9" in str(e),
            f"{version}: refused by name ({e.code}: {e})")
    rc, text = cli("info", "--image", folder)
    check(rc == 3 and "UNIMPLEMENTED" in text and "Triton 3.1 or older" in text,
          f"{version}: `tkrt info` refuses it (exit {rc}): {text[:200]}")
  # A newer release than tkrt reads, an unreadable version, an instrumented build, an im2col
  # descriptor: each refused naming the field, nothing loaded.
  base = os.path.join(DATA, "3.9.0", "desc", "cuda_sm90")
  cases = (
      (lambda d: d.update(triton_version="3.10.0"), "UNIMPLEMENTED",
       "field 'triton_version' is \"3.10.0\": Triton 3.10, which tkrt does not read"),
      (lambda d: d.update(triton_version="4.0.1"), "UNIMPLEMENTED", "Triton 4.0, which tkrt does not read"),
      (lambda d: d.update(triton_version="three"), "INVALID_ARGUMENT",
       "field 'triton_version' is \"three\"; it must be Triton's version"),
      (lambda d: d.update(instrumentation_mode="gsan"), "UNIMPLEMENTED",
       "field 'instrumentation_mode' is \"gsan\" (Triton 3.9): an instrumented kernel"),
      (lambda d: d["tensordesc_meta"][1].update(is_im2col=True), "UNIMPLEMENTED",
       "field 'tensordesc_meta[1].is_im2col' is true: an im2col tensor descriptor"),
      # Descriptors without meta are passed decomposed: 3.9's decomposed list has a flag more
      # than the one tkrt builds (3.5/3.6's).
      (lambda d: d.update(tensordesc_meta=[]), "UNIMPLEMENTED",
       "is a tensor descriptor and field 'tensordesc_meta' is empty (passed decomposed), but "
       "Triton 3.9 decomposes descriptors into another parameter list"),
  )
  for i, (edit, code, fragment) in enumerate(cases):
    folder = os.path.join(work, f"refuse{i}")
    shutil.copytree(base, folder)
    path = os.path.join(folder, "desc_copy_kernel.json")
    with open(path) as f:
      meta = json.load(f)
    edit(meta)
    with open(path, "w") as f:
      json.dump(meta, f)
    try:
      tt.load(folder)
      check(False, f"refusal {i}: loaded")
    except tt.Error as e:
      check(e.code == code and fragment in str(e), f"refusal {i}: {e.code}: {e}")
  # 3.6's output with its descriptors decomposed (no meta) is what tkrt builds: it loads.
  folder = os.path.join(work, "decomposed-3.6")
  shutil.copytree(os.path.join(DATA, "3.6.0", "desc", "cuda_sm90"), folder)
  path = os.path.join(folder, "desc_copy_kernel.json")
  with open(path) as f:
    meta = json.load(f)
  meta["tensordesc_meta"] = []
  with open(path, "w") as f:
    json.dump(meta, f)
  try:
    k = tt.load(folder)
    check([p.type for p in k.params] == ["tensordesc<fp32[32, 64]>"] * 2,
          f"3.6 decomposed descriptors load: {[p.type for p in k.params]}")
  except tt.Error as e:
    check(False, f"3.6 decomposed descriptors: {e}")
  # Targets of releases with different hidden pointers cannot be one kernel.
  mixed = os.path.join(work, "mixed")
  shutil.copytree(os.path.join(DATA, "3.4.0", "add", "cuda_sm90"), os.path.join(mixed, "a"),
                  ignore=shutil.ignore_patterns("cache"))
  shutil.copytree(os.path.join(DATA, "3.5.1", "add", "hip_gfx942"), os.path.join(mixed, "b"),
                  ignore=shutil.ignore_patterns("cache"))
  try:
    tt.load(mixed)
    check(False, "mixed releases: loaded")
  except tt.Error as e:
    check("inconsistent targets" in str(e) and
          "is Triton 3.4's output (hidden scratch pointers: 1) but" in str(e), f"mixed releases refused: {e}")


def main():
  versions = sorted((v for v in os.listdir(DATA) if re.fullmatch(r"\d+\.\d+\.\d+", v)),
                    key=lambda v: tuple(int(x) for x in v.split(".")))
  have = {release(v) for v in versions}
  check(set(SUPPORTED) | set(REFUSED) <= have, f"the data holds every release ({sorted(have)})")
  counts = {}
  with tempfile.TemporaryDirectory(prefix="tkrt-versions.") as work:
    for version in versions:
      if release(version) in REFUSED:
        continue
      with open(os.path.join(DATA, version, "manifest.json")) as f:
        manifest = json.load(f)
      check(manifest["triton"] == version, f"{version}: manifest of {manifest['triton']}")
      before = len(script_checks.failures)
      loaded = 0
      for entry in manifest["kernels"]:
        for target, info in sorted(entry["targets"].items()):
          if "error" in info:
            continue  # what this release cannot compile is recorded in the manifest
          parts = [DATA, version, entry["kernel"]] + ([entry["variant"]] if entry["variant"] else [])
          check_target(version, entry, target, info, os.path.join(*parts, target))
          loaded += 1
      run_add_on_host(version, os.path.join(DATA, version, "add", "cuda_sm90"), work)
      for target in ("cuda_sm90", "hip_gfx942"):
        cache = os.path.join(DATA, version, "add", target, "cache")
        if os.path.isdir(cache):
          # A copy with this user's modes (a checkout's may be group-writable).
          copy = os.path.join(work, f"cache-{version}-{target}")
          shutil.copytree(cache, copy)
          for folder, dirs, files in os.walk(copy):
            os.chmod(folder, 0o755)
            for name in files:
              os.chmod(os.path.join(folder, name), 0o644)
          check_cache(f"{version} {target}", copy)
      counts[version] = (loaded, len(script_checks.failures) - before)
    check_refusals(work, versions)
  for version, (loaded, failed) in counts.items():
    print(f"  Triton {version}: {loaded} outputs loaded, {'PASS' if not failed else f'{failed} FAILED'}")
  sys.exit(script_checks.finish("test_versions"))


if __name__ == "__main__":
  main()
