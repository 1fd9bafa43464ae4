# SPDX-License-Identifier: Apache-2.0
"""Every jaxlib release's serialized calls in test/data/jaxlib-versions, decoded and run by tkrt
(no GPU): each release's schema (the call proto its CUDA plugin embeds) has the fields that
release is known to write; `tkrt dump --json` decodes each call with that release's fields
(cluster dims until 0.7, num_ctas from 0.8, TMA descriptors from 0.11) and every scalar exactly;
the plain and the autotuned in-place call run on the host backend (jaxlib's bytes decoded, the C
port of add_kernel attached by jaxlib_attach_host, replayed by `tkrt run`) against NumPy's
outputs, bit for bit.

  test_jaxlib_versions.py TKRT_CLI ATTACH_TOOL HOST_ADD_1024_IMAGE DATA_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

CLI, ATTACH, HOST_ADD, DATA = sys.argv[1:5]
# The releases the data must hold, oldest to newest (test/data/jaxlib-versions/regenerate.sh).
RELEASES = ("0.4.31", "0.4.38", "0.5.3", "0.6.2", "0.7.2", "0.8.3", "0.9.2", "0.10.2", "0.11.2",
            "0.12.0.1")
failures = []


def check(ok, label):
  print(("ok: " if ok else "FAIL: ") + label, flush=True)
  if not ok:
    failures.append(label)


def parts(version):
  return tuple(int(x) for x in version.split(".")[:3])


def cli(*args):
  done = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=120)
  return done.returncode, done.stdout, done.stderr


def check_schema(version, text):
  """The TritonKernel and Parameter fields of this release (read from its plugin)."""
  p = parts(version)
  kernel = text.split("message TritonKernel\n")[1].split("\nmessage ")[0]
  fields = set(int(n) for n in re.findall(r"^\s+(\d+) \w+:", kernel, re.M))
  reserved = set(int(n) for n in re.findall(r"^\s+reserved (\d+)", kernel, re.M))
  want = {1, 2, 3, 4, 5, 6}
  if p < (0, 9, 0):
    want |= {7, 8, 9}           # cluster_dim_0..2
  if p >= (0, 8, 0):
    want |= {10}                # num_ctas
  if p >= (0, 11, 0):
    want |= {11, 12, 13}        # module_image, global_scratch_size/align
  check(fields == want, f"{version}: TritonKernel fields {sorted(fields)} (want {sorted(want)})")
  if p >= (0, 9, 0):
    check(reserved == {7, 8, 9}, f"{version}: cluster_dim fields reserved ({sorted(reserved)})")
  check(("tensor_descriptor" in text) == (p >= (0, 11, 0)),
        f"{version}: Parameter.tensor_descriptor (field 9) from 0.11")


def dump(version, case):
  rc, out, err = cli("dump", os.path.join(DATA, version, case), "--json")
  check(rc == 0, f"{version} {case}: tkrt dump exit {rc} {err[:300]}")
  return json.loads(out) if rc == 0 else None


def check_decode(version):
  p = parts(version)
  d = dump(version, "add_f32")
  if d:
    c = d["configs"][0]
    check(c["kernel_name"] == "add_kernel" and c["num_warps"] == 4 and c["grid"] == [5, 1, 1],
          f"{version} add_f32: kernel, warps, grid ({c['kernel_name']}, {c['num_warps']}, {c['grid']})")
    if p < (0, 8, 0):  # cluster_dim_0..2 = 1, no num_ctas field
      check(c["num_ctas"] == 0 and c["cluster_dims"] == [1, 1, 1],
            f"{version} add_f32: cluster dims 1x1x1, no num_ctas ({c['num_ctas']}, {c['cluster_dims']})")
    else:
      check(c["num_ctas"] == 1 and c["cluster_dims"] == [0, 0, 0],
            f"{version} add_f32: num_ctas 1, no cluster dims ({c['num_ctas']}, {c['cluster_dims']})")
    check([q["kind"] for q in c["parameters"]] == ["array"] * 3 + ["i32"]
          and c["parameters"][3]["value"] == 4099, f"{version} add_f32: parameters")
  d = dump(version, "scalars")
  if d:
    values = [q["value"] for q in d["configs"][0]["parameters"][1:]]
    kinds = [q["kind"] for q in d["configs"][0]["parameters"][1:]]
    check(kinds == ["i32", "u32", "i64", "u64", "f32", "f64"] and
          values == [-3, 3000000000, -2**40, 2**63 + 5, 0.5, 1e-300],
          f"{version} scalars: every kind decoded exactly ({list(zip(kinds, values))})")
    check(d["configs"][0]["grid"] == [1, 2, 3], f"{version} scalars: grid 1x2x3")
  d = dump(version, "autotuned_alias")
  if d:
    check(len(d["configs"]) == 2 and d.get("aliases") and d["aliases"][0]["input_index"] == 0
          and d["aliases"][0]["size_bytes"] == 4099 * 4,
          f"{version} autotuned_alias: 2 configs and the alias record ({d.get('aliases')})")
  tma = os.path.join(DATA, version, "tma_param")
  check(os.path.isdir(tma) == (p >= (0, 11, 0)), f"{version}: a TMA case exactly from 0.11")
  if os.path.isdir(tma):
    d = dump(version, "tma_param")
    if d:
      t = d["configs"][0]["parameters"][1]
      check(t["kind"] == "tma_descriptor" and t["value"]["block_shape"] == [32, 64]
            and t["value"]["shape"] == [64, 128], f"{version} tma_param: the descriptor ({t})")


def check_run(version, work):
  for case in ("add_f32", "autotuned_alias"):
    src = os.path.join(DATA, version, case)
    dst = os.path.join(work, f"{version}-{case}")
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("call.pb", "call.pb.z"))
    done = subprocess.run([ATTACH, os.path.join(src, "call.pb.z"), os.path.join(dst, "call.pb.z"),
                           HOST_ADD], capture_output=True, text=True, timeout=60)
    check(done.returncode == 0, f"{version} {case}: attach the host image {done.stderr[:300]}")
    rc, out, err = cli("run", dst, "--backend", "host", "--allow-native-code", "--store", "off",
                       "--iterations", "0")
    check(rc == 0 and "bit for bit" in out + err,
          f"{version} {case}: runs on the host, outputs as NumPy's (exit {rc}) {(out + err)[-400:]}")


def main():
  versions = sorted((v for v in os.listdir(DATA) if re.fullmatch(r"\d+\.\d+\.\d+(\.\d+)?", v)),
                    key=parts)
  check(tuple(versions) == RELEASES, f"the data holds every release ({versions})")
  counts = {}
  with tempfile.TemporaryDirectory(prefix="tkrt-jaxlib-versions.") as work:
    for version in versions:
      before = len(failures)
      with open(os.path.join(DATA, version, "schema.txt")) as f:
        check_schema(version, f.read())
      with open(os.path.join(DATA, version, "targets.json")) as f:
        targets = json.load(f)
      check(targets["legacy"] == ["triton_kernel_call"] and
            targets["ffi"] == (["triton_kernel_call_ffi"] if parts(version) >= (0, 10, 0) else []),
            f"{version}: XLA targets {targets} (the FFI one from 0.10)")
      check_decode(version)
      check_run(version, work)
      counts[version] = len(failures) - before
  for version, failed in counts.items():
    print(f"  jaxlib {version}: {'PASS' if not failed else f'{failed} FAILED'}")
  print(f"test_jaxlib_versions: {len(failures)} failures" if failures else
        "test_jaxlib_versions: all checks passed")
  sys.exit(1 if failures else 0)


if __name__ == "__main__":
  main()
