# SPDX-License-Identifier: Apache-2.0
"""tkrt on Triton's own output, checked on an NVIDIA GPU (driven by test/gpu/run_triton.sh).

Launches add_kernel and three matmul_kernel variants with Triton's own launcher (Triton 3.6's
`kernel[grid](...)`, which compiles them into a private Triton cache) on fixed inputs, and writes the
inputs, Triton's outputs and a numpy reference as .bin files. Then runs tkrt (the C example and the
CLI, both on tkrt's public C API) on the cache entries, with the cubin and with the PTX alone, and
requires tkrt's outputs to be bit-identical to Triton's, and Triton's to match numpy. Then the
Python path (tkrt.triton, needs PYTHONPATH=python and TKRT_LIBRARY): add on a PyTorch tensor,
a CuPy array and a JAX array, one launch captured by torch.cuda.graph and replayed, and an
autotuned call over the three matmul variants, each bit-identical to Triton's own launch.

usage: python3 triton_gpu_check.py TKRT_BINARY TRITON_ADD_EXAMPLE WORKDIR
"""
import glob
import json
import os
import shutil
import subprocess
import sys

tkrt, example, work = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
cache = os.path.join(work, "triton-cache")
shutil.rmtree(cache, ignore_errors=True)
os.environ["TRITON_CACHE_DIR"] = cache
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX shares the GPU with torch

import numpy as np  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import tkrt.triton as tt  # noqa: E402

failures = []


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


def cache_entry(kernel):
    """The Triton cache folder that holds `kernel` (a CompiledKernel), found by its hash."""
    for path in glob.glob(os.path.join(cache, "*", "*.json")):
        if os.path.basename(path).startswith("__grp__"):
            continue
        with open(path) as f:
            if json.load(f).get("hash") == kernel.hash:
                return os.path.dirname(path)
    raise SystemExit("compiled kernel %s not found in %s" % (kernel.hash, cache))


def launch_with_triton(fn, grid, *args, **meta):
    """Triton's own launcher (the JIT function's `fn[grid](...)`): compiles into the private cache
    on first use and launches; returns the CompiledKernel and its cache folder."""
    kernel = fn[grid](*args, **meta)
    return kernel, cache_entry(kernel)


def save(name, tensor):
    path = os.path.join(work, name)
    tensor.detach().cpu().contiguous().numpy().tofile(path)
    return path


def run(args, label):
    print("$ tkrt " + " ".join(args[1:]) if args[0] == tkrt else "$ " + " ".join(args), flush=True)
    result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(result.stdout, end="", flush=True)
    if result.returncode != 0:
        failures.append("%s (exit %d)" % (label, result.returncode))
        print("FAIL: %s" % label, flush=True)
    else:
        print("ok: %s" % label, flush=True)
    return result.stdout


def ptx_only_copy(entry, name):
    """A copy of a cache entry without the cubin, so that tkrt must JIT the PTX."""
    dest = os.path.join(work, name)
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(entry, dest)
    for cubin in glob.glob(os.path.join(dest, "*.cubin")):
        os.remove(cubin)
    return dest


# ---------------------------------------------------------------- add
n = 1000003
torch.manual_seed(0)
x = torch.randn(n, device="cuda", dtype=torch.float32)
y = torch.randn(n, device="cuda", dtype=torch.float32)
out = torch.empty_like(x)
add, add_dir = launch_with_triton(add_kernel, (triton.cdiv(n, 1024), 1, 1), x, y, out, n,
                                  BLOCK=1024, num_warps=4)
torch.cuda.synchronize()
ref = x.cpu().numpy() + y.cpu().numpy()
if not np.array_equal(out.cpu().numpy().view(np.uint32), ref.view(np.uint32)):
    failures.append("Triton's add differs from numpy")
xs, ys, outs = save("add_x.bin", x), save("add_y.bin", y), save("add_triton_out.bin", out)
add_args = ["--arg", "x_ptr=@" + xs, "--arg", "y_ptr=@" + ys, "--arg", "out_ptr=zeros:%d" % (4 * n),
            "--arg", "n=%d" % n, "--expect", "out_ptr=" + outs, "--backend", "cuda"]
run([tkrt, "info", "--image", add_dir], "tkrt info on Triton's add cache entry")
run([tkrt, "info", "--triton-cache", cache], "tkrt info --triton-cache")
run([tkrt, "run", add_dir, "--grid", "cdiv(n, BLOCK)", "--const", "BLOCK=1024", "--image-kind", "cubin"]
    + add_args, "add, cubin, CLI: bit-identical to Triton's launcher")
run([tkrt, "run", ptx_only_copy(add_dir, "add_ptx"), "--grid", "cdiv(n, BLOCK)", "--const", "BLOCK=1024"]
    + add_args, "add, PTX only, CLI: bit-identical to Triton's launcher")
run([example, "--backend", "cuda", "--kernel", add_dir], "add, cubin, C API example")
run([example, "--backend", "cuda", "--kernel", ptx_only_copy(add_dir, "add_ptx_example")],
    "add, PTX only, C API example")

# ---------------------------------------------------------------- matmul: three variants
M, N, K = 1024, 512, 768
a = torch.randn((M, K), device="cuda", dtype=torch.float16)
b = torch.randn((K, N), device="cuda", dtype=torch.float16)
a_path, b_path = save("mm_a.bin", a), save("mm_b.bin", b)
reference = (a.float().cpu().numpy() @ b.float().cpu().numpy()).astype(np.float16)
save("mm_numpy.bin", torch.from_numpy(reference))
configs = [(64, 128, 64, 4, 3), (128, 128, 64, 8, 3), (64, 64, 32, 4, 4)]
variants = []
for i, (bm, bn, bk, warps, stages) in enumerate(configs):
    c = torch.empty((M, N), device="cuda", dtype=torch.float16)
    kernel, entry = launch_with_triton(matmul_kernel, (M // bm, N // bn, 1), a, b, c, M, N, K,
                                       BM=bm, BN=bn, BK=bk, num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    c_path = save("mm_triton_out%d.bin" % i, c)
    err = np.abs(c.cpu().numpy().astype(np.float32) - reference.astype(np.float32)).max()
    if err > 0.25:
        failures.append("Triton's matmul variant %d is off numpy by %g" % (i, err))
    const = "BM=%d,BN=%d,BK=%d" % (bm, bn, bk)
    variants.append((entry, const))
    mm_args = ["--grid", "cdiv(M, BM), cdiv(N, BN)", "--const", const,
               "--arg", "a_ptr=@" + a_path, "--arg", "b_ptr=@" + b_path,
               "--arg", "c_ptr=zeros:%d" % (2 * M * N), "--arg", "M=%d" % M, "--arg", "N=%d" % N,
               "--arg", "K=%d" % K, "--expect", "c_ptr=" + c_path, "--backend", "cuda"]
    run([tkrt, "run", entry, "--image-kind", "cubin"] + mm_args,
        "matmul variant %d (%s, num_warps %d, num_stages %d), cubin: bit-identical to Triton" % (i, const, warps, stages))
    run([tkrt, "run", ptx_only_copy(entry, "mm_ptx%d" % i)] + mm_args,
        "matmul variant %d, PTX only: bit-identical to Triton" % i)

tune = [tkrt, "tune"]
for entry, const in variants:
    tune += [entry, "--const", const]
tune[3:3] = ["--grid", "cdiv(M, BM), cdiv(N, BN)"]
tune += ["--arg", "a_ptr=@" + a_path, "--arg", "b_ptr=@" + b_path, "--arg", "c_ptr=zeros:%d" % (2 * M * N),
         "--arg", "M=%d" % M, "--arg", "N=%d" % N, "--arg", "K=%d" % K,
         "--expect", "c_ptr=" + os.path.join(work, "mm_numpy.bin"), "--rtol", "0.01", "--atol", "0.25",
         "--store", "off", "--backend", "cuda", "--save", "c_ptr=" + os.path.join(work, "mm_tuned.bin")]
text = run(tune, "matmul autotuned over 3 variants: within tolerance of numpy")
chosen = None
for line in text.splitlines():
    if line.startswith("variant: "):
        chosen = int(line.split()[1])
if chosen is not None:
    tuned = np.fromfile(os.path.join(work, "mm_tuned.bin"), dtype=np.uint16)
    triton_out = np.fromfile(os.path.join(work, "mm_triton_out%d.bin" % chosen), dtype=np.uint16)
    if np.array_equal(tuned, triton_out):
        print("ok: the autotuned call's result is bit-identical to Triton's variant %d" % chosen)
    else:
        failures.append("the autotuned result differs from Triton's variant %d" % chosen)
else:
    failures.append("tkrt tune printed no chosen variant")


# ---------------------------------------------------------------- the Python path (tkrt.triton)
def python_check(label, fn):
    try:
        ok, detail = fn()
    except Exception as e:  # noqa: BLE001 - report and go on
        ok, detail = False, "%s: %s" % (type(e).__name__, e)
    print("%s: %s%s" % ("ok" if ok else "FAIL", label, " (%s)" % detail if detail else ""), flush=True)
    if not ok:
        failures.append(label)


triton_bits = out.cpu().numpy().view(np.uint32)
dev = tt.device("cuda")
py_add = tt.load(add).prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device=dev, n=n)
print("tkrt.triton: %r on %r" % (py_add.kernel, dev), flush=True)


def torch_add():
    o = torch.full_like(x, float("nan"))
    py_add(x, y, o)
    torch.cuda.synchronize()
    fast, slow = tt.array_info(x), tt.array_info(x, dlpack_only=True)
    same_info = fast[:3] == slow[:3]
    return (np.array_equal(o.cpu().numpy().view(np.uint32), triton_bits) and same_info,
            "fast path %s, DLPack %s" % (fast, slow))


def torch_add_full_args_on_stream():
    o = torch.zeros_like(x)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        py_add(x, y, o, n)  # Triton's argument list; the current stream is `side`
    torch.cuda.synchronize()
    return np.array_equal(o.cpu().numpy().view(np.uint32), triton_bits), None


def from_asm():
    written = tt.load(add, cache_dir=os.path.join(work, "no-cache"))  # not found: written from asm
    o = torch.zeros_like(x)
    written.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device=dev, n=n)(x, y, o)
    torch.cuda.synchronize()
    return np.array_equal(o.cpu().numpy().view(np.uint32), triton_bits), written.source


def cupy_add():
    import cupy
    cx, cy = cupy.from_dlpack(x), cupy.from_dlpack(y)
    torch.cuda.synchronize()
    co = cupy.zeros(n, dtype=cupy.float32)
    with cupy.cuda.Stream(non_blocking=True) as stream:
        py_add(cx, cy, co)  # on cupy's current stream
        stream.synchronize()
    return np.array_equal(cupy.asnumpy(co).view(np.uint32), triton_bits), "stream %#x" % stream.ptr


def jax_add():
    import jax
    import jax.numpy as jnp
    jx, jy = jnp.asarray(x.cpu().numpy()), jnp.asarray(y.cpu().numpy())
    jo = jnp.zeros(n, dtype=jnp.float32) + 0  # a buffer of its own
    jo.block_until_ready()
    py_add(jx, jy, jo)  # DLPack; JAX has no current stream: the legacy default stream
    dev.synchronize()
    return (np.array_equal(np.asarray(jo).view(np.uint32), triton_bits),
            "jax %s on %s" % (jax.__version__, jo.devices()))


def graph_capture():
    o = torch.zeros_like(x)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        py_add(x, y, o)  # only enqueues: recorded into the graph
    torch.cuda.synchronize()
    recorded_only = not o.any().item()
    graph.replay()
    torch.cuda.synchronize()
    return (recorded_only and np.array_equal(o.cpu().numpy().view(np.uint32), triton_bits),
            "nothing ran at capture: %s" % recorded_only)


def wrong_device_and_dtype():
    messages = []
    for args in ((x.cpu(), y, out), (x.double(), y, out)):
        try:
            py_add(*args)
            messages.append("no error")
        except (ValueError, TypeError, tt.Error) as e:  # a dtype is the C library's rule
            messages.append(str(e))
    ok = "is on cpu:0" in messages[0] and "the kernel takes fp32" in messages[1]
    return ok, " | ".join(messages)


def autotuned_matmul():
    tuned = tt.prepare([tt.load(entry).variant("cdiv(M, BM), cdiv(N, BN)", const)
                        for entry, const in variants],
                       device=dev, tuner=tt.Tuner(store_dir="off"), M=M, N=N, K=K)
    c = torch.zeros((M, N), device="cuda", dtype=torch.float16)
    tuned(a, b, c)
    torch.cuda.synchronize()
    report = tuned.tune_report()
    want = np.fromfile(os.path.join(work, "mm_triton_out%d.bin" % report["chosen"]), dtype=np.uint16)
    first = np.array_equal(c.cpu().numpy().view(np.uint16).ravel(), want)
    c.zero_()
    tuned(a, b, c)  # the decision, no tuning
    torch.cuda.synchronize()
    again = np.array_equal(c.cpu().numpy().view(np.uint16).ravel(), want)
    return first and again and report["source"] == "tuned", str(report)


def cache_entry_by_hash():
    # Triton's real cache: the entry tkrt derives from the hash (base32 of its bytes) is the one
    # Triton's metadata_group names, and both are trusted (this user's, not writable by others).
    import base64
    import collections
    import warnings
    Compiled = collections.namedtuple("Compiled", "name hash asm metadata metadata_group")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an entry refused as untrusted fails the check
        by_group = tt.load(add)
        by_hash = tt.load(Compiled(add.name, add.hash, {}, add.metadata, None))  # {}: no asm to fall back on
    folder = base64.b32encode(bytes.fromhex(add.hash)).decode().rstrip("=")
    ok = (by_hash.source == by_group.source
          and os.path.basename(os.path.dirname(by_hash.source)) == folder)
    return ok, by_hash.source


def gpu_alias_and_sizes():
    # "gpu" is the first GPU backend, never the host; min_elements refuses a short output.
    same = tt.device("gpu") is dev
    sized = tt.load(add).prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device=dev, n=n,
                                 min_elements={"x_ptr": n, "y_ptr": n, "out_ptr": n})
    o = torch.zeros(n, device="cuda", dtype=torch.float32)
    try:
        sized(x, y, o[:n - 1])
        refused = "no error"
    except tt.Error as e:  # the extent rule is the C library's (INVALID_ARGUMENT)
        refused = str(e)
    sized(x, y, o)
    torch.cuda.synchronize()
    ok = (same and "spans %d bytes" % (4 * (n - 1)) in refused
          and np.array_equal(o.cpu().numpy().view(np.uint32), triton_bits))
    return ok, "gpu is cuda:0: %s; %s" % (same, refused)


def compiled_constants():
    """Triton's own CompiledKernel (`add_kernel[grid](..., BLOCK=1024)`) gives its constexprs:
    prepare(grid) needs no constants=, and BLOCK=2048 is refused naming both values."""
    k = tt.load(add)
    o = torch.full_like(x, float("nan"))
    k.prepare("cdiv(n, BLOCK)", device=dev, n=n)(x, y, o)
    torch.cuda.synchronize()
    same = np.array_equal(o.cpu().numpy().view(np.uint32), triton_bits)
    try:
        k.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 2048}, device=dev, n=n)
        refused = "not refused"
    except tt.Error as e:
        refused = str(e) if "compiled with BLOCK=1024, not 2048" in str(e) else "wrong message: %s" % e
    return (k.constants.get("BLOCK") == 1024 and same and "not 2048" in refused,
            "constants %s, bit-identical %s, BLOCK=2048: %s" % (k.constants, same, refused[-120:]))


def grid_callable_per_launch():
    """A Triton-style grid callable (triton.cdiv of the meta-parameters), prepared for one program
    of 1024 and called again at a launch given every argument: covers all n, bit-identical to
    Triton's own launch; the arrays-only launch (native path) keeps prepare's grid."""
    launch = tt.load(add).prepare(lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),),
                                  device=dev, n=1024)
    o = torch.full_like(x, float("nan"))
    launch(x, y, o, n)
    torch.cuda.synchronize()
    full = np.array_equal(o.cpu().numpy().view(np.uint32), triton_bits)
    o2 = torch.zeros_like(x)
    launch(x, y, o2)
    torch.cuda.synchronize()
    first = o2.cpu().numpy()
    kept = (np.array_equal(first[:1024].view(np.uint32), triton_bits[:1024])
            and not first[1024:].any())
    return full and kept, "per-launch grid %s, arrays-only keeps one program %s" % (full, kept)


python_check("tkrt.triton: add on PyTorch tensors, bit-identical to Triton's launcher", torch_add)
python_check("tkrt.triton: a Triton-style grid callable follows each launch's arguments",
             grid_callable_per_launch)
python_check("tkrt.triton: Triton's CompiledKernel gives its constexprs (no constants=; another "
             "value refused)", compiled_constants)
python_check("tkrt.triton: a CompiledKernel's cache entry found by its hash as Triton names it",
             cache_entry_by_hash)
python_check("tkrt.triton: device 'gpu' and min_elements on PyTorch tensors", gpu_alias_and_sizes)
python_check("tkrt.triton: Triton's argument list on a side stream", torch_add_full_args_on_stream)
python_check("tkrt.triton: a CompiledKernel outside any cache (written from its asm)", from_asm)
python_check("tkrt.triton: add on CuPy arrays (CuPy's current stream)", cupy_add)
python_check("tkrt.triton: add on JAX arrays (DLPack)", jax_add)
python_check("tkrt.triton: one launch captured by torch.cuda.graph, then replayed", graph_capture)
python_check("tkrt.triton: wrong device and dtype are refused", wrong_device_and_dtype)
python_check("tkrt.triton: matmul autotuned over 3 variants, bit-identical to Triton's chosen one",
             autotuned_matmul)

print()
if failures:
    print("run_triton: %d FAILED:" % len(failures))
    for f in failures:
        print("  " + f)
    sys.exit(1)
print("run_triton: all checks passed")
