# SPDX-License-Identifier: Apache-2.0
"""Every Triton release's CUDA compile output in test/data/triton-versions, launched on this GPU
without that Triton installed (issue 34): each kernel and CUDA target (sm_90 as machine code, sm_80
through its PTX) through the CLI (`tkrt run ... --expect`) and through the C library's bound
launch (tkrt.triton on PyTorch tensors), against NumPy references computed here, bit for bit.

  versions_gpu_check.py TKRT_CLI DATA_DIR OUT_DIR

Prints a line per release and target ("VERSIONS: 3.6.0 cuda_sm90: 5 kernels, 10 launches PASS")
and "VERSIONS: PASS" or "VERSIONS: FAIL (...)".
"""
import json
import os
import re
import subprocess
import sys

import numpy as np
import torch

import tkrt.triton as tt

CLI, DATA, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
N = 100003        # elements of the vector kernels
M_, N_ = 64, 128  # the copies' matrix (tiles of 32 x 64)
failures = []


def fail(label):
  failures.append(label)
  print("FAIL: " + label, flush=True)


def cli(*args):
  done = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=300)
  return done.returncode, done.stdout + done.stderr


def save(name, array):
  path = os.path.join(OUT, name)
  array.tofile(path)
  return path


def names(folder):
  """The kernel's parameter names as tkrt reads them (Triton 3.2-3.4: %argN)."""
  return [p.name for p in tt.load(folder).params]


def run_vector(where, folders, blocks, alpha, x, y, want):
  """add (alpha None) or axpy over `folders` (variants, BLOCK from `blocks`): CLI, then tt."""
  launches = 0
  first = names(folders[0])
  xp, yp, op = first[:3]
  count = first[-1]
  args = []
  for folder, block in zip(folders, blocks):
    args += [folder, "--grid", f"cdiv({count}, BLOCK)", "--const", f"BLOCK={block}"]
  args += ["--backend", "cuda", "--store", "off", "--iterations", "0",
           "--arg", f"{xp}=@{save('x.bin', x)}", "--arg", f"{yp}=@{save('y.bin', y)}",
           "--arg", f"{op}=zeros:{4 * N}", "--arg", f"{count}={N}",
           "--min-elements", f"{xp}={count}", "--min-elements", f"{yp}={count}",
           "--min-elements", f"{op}={count}", "--expect", f"{op}={save('want.bin', want)}"]
  if alpha is not None:
    args += ["--arg", f"{first[3]}={alpha}"]
  rc, text = cli("run", *args)
  if rc != 0:
    fail(f"{where}: tkrt run exit {rc}: {text[-600:]}")
  launches += 1
  kernels = [tt.load(f) for f in folders]
  variants = [k.variant(f"cdiv({count}, BLOCK)", constants={"BLOCK": b})
              for k, b in zip(kernels, blocks)]
  scalars = {count: N}
  if alpha is not None:
    scalars[first[3]] = alpha
  launch = tt.prepare(variants, device="cuda:0", **scalars)
  tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
  out = torch.full((N,), float("nan"), device="cuda")
  launch(tx, ty, out)
  torch.cuda.synchronize()
  got = out.cpu().numpy()
  if not np.array_equal(got, want):
    fail(f"{where}: bound launch: {int((got != want).sum())} elements differ")
  launch.close()
  return launches + 1


def run_scratch(where, folder, a):
  """The on-device-descriptor copy (out = 2 * in, tiles of 32 x 64; global scratch on sm_90)."""
  params = names(folder)
  want = a * 2
  rc, text = cli("run", folder, "--grid", "cdiv(%s, 32), cdiv(%s, 64)" % (params[2], params[3]),
                 "--backend", "cuda", "--store", "off", "--iterations", "0",
                 "--arg", f"{params[0]}=@{save('a.bin', a)}", "--arg", f"{params[1]}=zeros:{a.nbytes}",
                 "--arg", f"{params[2]}={M_}", "--arg", f"{params[3]}={N_}",
                 "--expect", f"{params[1]}={save('want2.bin', want)}")
  if rc != 0:
    fail(f"{where}: tkrt run exit {rc}: {text[-600:]}")
  k = tt.load(folder)
  launch = k.prepare(f"cdiv({params[2]}, 32), cdiv({params[3]}, 64)", device="cuda:0",
                     **{params[2]: M_, params[3]: N_})
  out = torch.zeros((M_, N_), device="cuda")
  launch(torch.from_numpy(a).cuda(), out)
  torch.cuda.synchronize()
  if not np.array_equal(out.cpu().numpy(), want):
    fail(f"{where}: bound launch: the copy differs")
  launch.close()
  return 2


def run_desc(where, folder, a):
  """The host-descriptor copy (out = in + 1) through TMA descriptors (sm_90): CLI --desc."""
  params = names(folder)
  want = a + 1
  rc, text = cli("run", folder, "--grid", "2, 2", "--backend", "cuda", "--store", "off",
                 "--iterations", "0", "--arg", f"{params[0]}=@{save('a.bin', a)}",
                 "--desc", f"{params[0]}={M_}x{N_}",
                 "--arg", f"{params[1]}=zeros:{a.nbytes}", "--desc", f"{params[1]}={M_}x{N_}",
                 "--expect", f"{params[1]}={save('want3.bin', want)}")
  if rc != 0:
    fail(f"{where}: tkrt run exit {rc}: {text[-600:]}")
  return 1


def main():
  os.makedirs(OUT, exist_ok=True)
  rng = np.random.default_rng(34)
  x = rng.standard_normal(N, dtype=np.float32)
  y = rng.standard_normal(N, dtype=np.float32)
  a = rng.standard_normal((M_, N_), dtype=np.float32)
  versions = sorted((v for v in os.listdir(DATA) if re.fullmatch(r"\d+\.\d+\.\d+", v)),
                    key=lambda v: tuple(int(p) for p in v.split(".")))
  summary = []
  for version in versions:
    if version.startswith("3.1."):
      continue  # refused by name (test/triton/test_versions.py); nothing to launch
    with open(os.path.join(DATA, version, "manifest.json")) as f:
      manifest = json.load(f)
    for target in ("cuda_sm90", "cuda_sm80"):
      before, launches, kernels = len(failures), 0, 0
      for entry in manifest["kernels"]:
        if target not in entry["targets"] or "error" in entry["targets"][target]:
          continue
        if entry["variant"] and entry["variant"] != "b256_w2":
          continue  # axpy's variants run together, as one autotuned call
        where = f"{version} {entry['kernel']} {target}"
        base = os.path.join(DATA, version, entry["kernel"])
        try:
          if entry["kernel"] in ("add", "cluster"):
            launches += run_vector(where, [os.path.join(base, target)], [1024], None, x, y, x + y)
          elif entry["kernel"] == "axpy":
            folders = [os.path.join(base, v, target) for v in ("b256_w2", "b1024_w4")]
            # alpha 2: a power of two, so alpha * x + y is exact whether or not Triton fused it.
            launches += run_vector(where, folders, [256, 1024], 2.0, x, y, 2 * x + y)
          elif entry["kernel"] == "scratch":
            launches += run_scratch(where, os.path.join(base, target), a)
          elif entry["kernel"] == "desc":
            if target != "cuda_sm90":
              continue  # decomposed by Triton into plain parameters: covered on the host
            launches += run_desc(where, os.path.join(base, target), a)
          kernels += 1
        except Exception as e:  # noqa: BLE001 - one kernel's failure must not hide the others
          fail(f"{where}: {type(e).__name__}: {e}")
      verdict = "PASS" if len(failures) == before else f"{len(failures) - before} FAILED"
      line = f"VERSIONS: {version} {target}: {kernels} kernels, {launches} launches {verdict}"
      summary.append(line)
      print(line, flush=True)
  print()
  print("\n".join(summary))
  print("VERSIONS: Triton releases PASS" if not failures else
        f"VERSIONS: FAIL ({len(failures)} failures)")
  sys.exit(1 if failures else 0)


if __name__ == "__main__":
  main()
