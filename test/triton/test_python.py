# SPDX-License-Identifier: Apache-2.0
"""tkrt.triton (the Python launch path) on the host backend, with NumPy arrays through DLPack.

Builds Triton-style kernel folders around host builds of Triton's add_kernel (BLOCK 256, 512,
1024), loads them from Python, launches on NumPy arrays and compares with NumPy bit for bit; an
autotuned in-place call over the three; hand-made DLPack capsules of both kinds; the error cases
(wrong device, dtype, argument count, scalar, alignment); Triton's real cache entry for add_kernel
(test/data/triton-3.6) with the host image beside it; loading from CompiledKernel-like
objects; and that `import tkrt` stays light.

usage: test_python.py HOST_256.so HOST_512.so HOST_1024.so [TRITON_VECTORS_DIR]
Needs TKRT_LIBRARY (libtkrt.so; else tkrt.triton takes the TKRT_XLA_LIBRARY libtkrt_xla.so, which
carries the same library) and NumPy >= 1.22; exits 77 (skipped) without NumPy.
"""
import base64
import collections
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import script_checks  # noqa: E402 - the scripts' own helpers (this folder)

np = script_checks.numpy_with_dlpack()

import tkrt  # noqa: E402
import tkrt.triton as tt  # noqa: E402
from tkrt import _arrays  # noqa: E402

HOST = sys.argv[1:4]
VECTORS = sys.argv[4] if len(sys.argv) > 4 else None
N = 5000
from script_checks import check, expect_raises  # noqa: E402


TTIR = ("module {\n  tt.func public @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, "
        "%y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out_ptr: !tt.ptr<f32> "
        "{tt.divisibility = 16 : i32}, %n: i32) attributes {noinline = false} {\n    tt.return\n  }\n}\n")


def host_json(num_warps):
  return json.dumps({"name": "add_kernel", "target": {"backend": "host", "arch": "any", "warp_size": 1},
                     "num_warps": num_warps, "num_ctas": 1, "num_stages": 1, "shared": 0})


def make_kernel_dir(root, name, host_image, num_warps):
  folder = os.path.join(root, name)
  os.makedirs(folder)
  with open(os.path.join(folder, "add_kernel.json"), "w") as f:
    f.write(host_json(num_warps))
  with open(os.path.join(folder, "add_kernel.ttir"), "w") as f:
    f.write(TTIR)
  shutil.copy(host_image, os.path.join(folder, "add_kernel.so"))
  return folder


def aligned(n, dtype=np.float32, offset=0):
  """n elements starting 64-byte aligned (plus `offset` bytes)."""
  item = np.dtype(dtype).itemsize
  raw = np.empty(n * item + 128 + offset, dtype=np.uint8)
  start = (-raw.ctypes.data) % 64 + offset
  return raw[start:start + n * item].view(dtype)


def inputs():
  x, y = aligned(N), aligned(N)
  x[:] = np.arange(N, dtype=np.float32) * np.float32(0.25)
  y[:] = np.float32(3.0) / (np.arange(N, dtype=np.float32) + np.float32(1))
  return x, y


def same_bits(a, b):
  return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))


# Hand-made DLPack producers: capsules over NumPy memory, of both kinds, with a chosen device.
PyCapsule_New = ctypes.pythonapi.PyCapsule_New
PyCapsule_New.restype = ctypes.py_object
PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class FakeArray:
  """An array that only speaks DLPack: `versioned` picks the capsule kind; device_type 2 claims
  CUDA memory. Keeps the structs alive; the capsules have no destructor (nothing to free)."""

  def __init__(self, base, versioned, device_type=1, device_id=0, name=None):
    self.base = base
    self.shape = (ctypes.c_int64 * 1)(base.size)
    self.versioned, self.name = versioned, name
    dl_type = {np.dtype(np.float32): (2, 32), np.dtype(np.float64): (2, 64)}[base.dtype]
    tensor = _arrays.DLTensor(base.ctypes.data, _arrays.DLDevice(device_type, device_id), 1,
                          _arrays.DLDataType(dl_type[0], dl_type[1], 1), self.shape, None, 0)
    if versioned:
      self.managed = _arrays.DLManagedTensorVersioned(_arrays.DLPackVersion(1, 0), None, None, 0, tensor)
    else:
      self.managed = _arrays.DLManagedTensor(tensor, None, None)

  def __dlpack__(self, stream=None, max_version=None):
    if self.name:
      name = self.name
    elif self.versioned:
      if not max_version:
        raise BufferError("this producer only makes versioned capsules")
      name = b"dltensor_versioned"
    else:
      name = b"dltensor"
    return PyCapsule_New(ctypes.addressof(self.managed), name, None)

  def __dlpack_device__(self):
    return (self.managed.dl_tensor.device.device_type, self.managed.dl_tensor.device.device_id)


def per_launch_scalars(k, dev, x, y):
  """prepared(x, y, out, n) with any n: the kernel sees it and the grid follows it; scalar errors
  name the argument; nothing is enqueued by a refused launch."""
  small = k.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="host", n=100)
  out = aligned(N)
  for n in (100, N, 1500, 2049, N, 1):
    out.fill(0)
    small(x, y, out, n)
    dev.synchronize()
    check(same_bits(out[:n], (x + y)[:n]) and not out[n:].any(),
          f"per-launch n={n}: exactly n elements written (the grid follows n: cdiv(n, 1024))")
  out.fill(0)
  small(x, y, out)
  dev.synchronize()
  check(same_bits(out[:100], (x + y)[:100]) and not out[100:].any(),
        "arrays only: the prepared n=100")
  check(small.scalars == {"n": 100}, f"scalars keeps the prepared values ({small.scalars})")
  # i32 takes the signed range, Triton's rule for an i32 specialisation (issue 31, E15).
  # The rule and its message are the C library's (tkrt_triton_bound_launch): Python hands the
  # integer over (issue 32: value rules live in C only).
  for value, kind, fragment in ((2**31, tt.Error, "argument 3 (n: i32) = 2147483648 is out of range "
                                 "(-2147483648..2147483647) (Triton compiles an i32 parameter for "
                                 "Python integers in this range"),
                                (2**32 - 1, tt.Error, "4294967295 is out of range"),
                                (2**32, tt.Error, "4294967296 is out of range"),
                                (-2**31 - 1, tt.Error, "out of range"),
                                (1.5, TypeError, "argument 3 (n: i32) is 1.5, not an integer"),
                                ("5", TypeError, "argument 3 (n: i32) is '5', not an integer"),
                                (None, TypeError, "argument 3 (n: i32) is None, not an integer")):
    out.fill(0)
    e = expect_raises(kind, fragment, lambda: small(x, y, out, value), f"per-launch n={value!r} refused")
    if isinstance(e, tt.Error):
      check(e.code == "OUT_OF_RANGE", f"n={value}: OUT_OF_RANGE ({e.code})")
    dev.synchronize()
    check(not out.any(), f"n={value!r}: nothing enqueued")
  # Integers of other types (__index__, bool) are integers.
  out.fill(0)
  small(x, y, out, np.int64(2048))
  dev.synchronize()
  check(same_bits(out[:2048], (x + y)[:2048]) and not out[2048:].any(), "n as np.int64")
  # An argument Triton folded (an integer equal to 1): signature= places it, fixed= gives its value.
  folded = k.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="host",
                     signature=["x_ptr", "stride", "y_ptr", "out_ptr", "n"], fixed={"stride": 1})
  out.fill(0)
  folded(x, 1, y, out, 3000)
  dev.synchronize()
  check(same_bits(out[:3000], (x + y)[:3000]) and not out[3000:].any(),
        "a folded argument passed with its value")
  expect_raises(ValueError, "argument 1 (stride) is 2, but the kernel was specialised to stride=1",
                lambda: folded(x, 2, y, out, 3000), "a folded argument with another value")
  expect_raises(ValueError, "fixed= needs signature=",
                lambda: k.prepare("1", device="host", fixed={"stride": 1}), "fixed without signature")
  expect_raises(ValueError, "signature leaves out n",
                lambda: k.prepare("1", device="host", signature=["x_ptr", "y_ptr", "out_ptr"]),
                "a signature without every parameter")
  expect_raises(ValueError, "key names 'm', which is not a scalar parameter",
                lambda: tt.prepare(k.variant("1"), device="host", key=["m"]), "a key naming no scalar")


class ExchangeArray:
  """A test-only array type that offers DLPack's C exchange API (__dlpack_c_exchange_api__, a
  capsule "dlpack_exchange_api") over a NumPy array's memory: dltensor_from_py_object_no_sync fills
  a DLTensor view of the array, current_work_stream gives stream 0. Its functions are ctypes
  callbacks, so the native path's exchange-API reader runs on real memory."""

  def __init__(self, base):
    self.base = base
    self.shape = (ctypes.c_int64 * 1)(base.size)

  def __dlpack__(self, stream=None, max_version=None):  # the ctypes path reads this instead
    return self.base.__dlpack__()

  def __dlpack_device__(self):
    return (1, 0)


def _make_exchange_api():
  calls = collections.Counter()

  class Header(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("prev", ctypes.c_void_p)]

  to_tensor = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(_arrays.DLTensor))
  stream_of = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int32, ctypes.c_int32,
                               ctypes.POINTER(ctypes.c_void_p))

  class Api(ctypes.Structure):
    _fields_ = [("header", Header), ("allocator", ctypes.c_void_p), ("from_py", ctypes.c_void_p),
                ("to_py", ctypes.c_void_p), ("dltensor_from_py_object_no_sync", to_tensor),
                ("current_work_stream", stream_of)]

  def fill(obj, out):
    calls["dltensor"] += 1
    base = obj.base
    out[0] = _arrays.DLTensor(base.ctypes.data, _arrays.DLDevice(1, 0), 1, _arrays.DLDataType(2, 32, 1),
                          obj.shape, None, 0)
    return 0

  def stream(device_type, device_id, out):
    calls["stream"] += 1
    out[0] = None
    return 0

  api = Api(Header(1, 2, None), None, None, None, to_tensor(fill), stream_of(stream))
  capsule = PyCapsule_New(ctypes.addressof(api), b"dlpack_exchange_api", None)
  ExchangeArray.__dlpack_c_exchange_api__ = capsule
  ExchangeArray._api = api  # alive with the class
  return calls


def exchange_api(add, dev, x, y):
  calls = _make_exchange_api()
  out = aligned(N)
  add(ExchangeArray(x), ExchangeArray(y), ExchangeArray(out))
  dev.synchronize()
  check(same_bits(out, x + y), "arrays of a type with DLPack's C exchange API")
  if tt.launch_path == "native":
    check(calls["dltensor"] == 3, f"the native path read them through dltensor_from_py_object_no_sync "
          f"({dict(calls)})")
    info = tt._native._array(ExchangeArray(x))
    check(info[:5] == (x.ctypes.data, 4 * N, 1, 0, (2 << 8) | 32) and info[5] == _arrays.READ_EXCHANGE,
          f"tkrt._native reads address, extent, device and dtype through the API ({info})")


def main():
  work = tempfile.mkdtemp(prefix="tkrt_py_")
  try:
    run(work)
  finally:
    shutil.rmtree(work, ignore_errors=True)
  if script_checks.finish("test_python"):
    sys.exit(1)


def run(work):
  # ---- import tkrt stays light
  light = subprocess.run([sys.executable, "-c",
                          "import sys, tkrt; print(sorted(m for m in ('tkrt.triton', 'numpy', "
                          "'torch', 'cupy', 'jax', 'triton') if m in sys.modules))"],
                         env=dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "..", "python")),
                         stdout=subprocess.PIPE, text=True)
  check(light.stdout.strip() == "[]", f"import tkrt imports nothing heavy ({light.stdout.strip()})")
  check(tkrt.triton is tt, "tkrt.triton is reachable as an attribute")
  # ---- tkrt.triton needs only libtkrt.so: with TKRT_LIBRARY and no TKRT_XLA_LIBRARY it opens
  # the host device and maps no libtkrt_xla.so
  if os.environ.get("TKRT_LIBRARY"):
    env = {k: v for k, v in os.environ.items() if k != "TKRT_XLA_LIBRARY"}
    env["PYTHONPATH"] = os.path.join(HERE, "..", "..", "python")
    alone = subprocess.run([sys.executable, "-c",
                            "import tkrt.triton as tt; tt.device('host').synchronize(); "
                            "print(sorted(set(line.split()[-1].rsplit('/', 1)[-1] for line in "
                            "open('/proc/self/maps') if 'libtkrt' in line)))"],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(alone.returncode == 0 and "libtkrt.so" in alone.stdout and "xla" not in alone.stdout,
          f"tkrt.triton runs on libtkrt.so alone ({alone.stdout.strip()})")
  else:
    print("note: TKRT_LIBRARY is not set; tkrt.triton runs on the libtkrt_xla.so it names")

  # ---- the launch path: tkrt._native when the build made it (TKRT_EXPECT_LAUNCH_PATH, set by CMake),
  # ctypes when TKRT_PYTHON_LAUNCH=ctypes asks for it
  wanted = os.environ.get("TKRT_EXPECT_LAUNCH_PATH")
  if wanted:
    check(tt.launch_path == wanted, f"tkrt.triton.launch_path is {wanted!r} ({tt.launch_path!r}, "
          f"{tt.launch_path_reason})")
  check((tt.launch_path == "native") == (tt.launch_path_reason is None),
        f"launch_path_reason says why not native ({tt.launch_path_reason})")
  if tt.launch_path == "native":
    check(issubclass(tt.PreparedLaunch, tt._native.Launcher)
          and tt.PreparedLaunch.__flags__ & (1 << 11),  # Py_TPFLAGS_HAVE_VECTORCALL
          "PreparedLaunch is the native launcher, called through vectorcall")

  for value, fragment in (("bogus", "TKRT_PYTHON_LAUNCH='bogus': expected native or ctypes"),
                          ("ctypes", "ctypes TKRT_PYTHON_LAUNCH=ctypes")):
    probe = subprocess.run([sys.executable, "-c", "import tkrt.triton as tt; "
                            "print(tt.launch_path, tt.launch_path_reason)"],
                           env=dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "..", "python"),
                                    TKRT_PYTHON_LAUNCH=value),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(fragment in probe.stdout, f"TKRT_PYTHON_LAUNCH={value}: {probe.stdout.strip()[-200:]}")
  probe = subprocess.run([sys.executable, "-c", "import tkrt.triton"],
                         env=dict({k: v for k, v in os.environ.items() if k != "TKRT_NATIVE_MODULE"},
                                  PYTHONPATH=os.path.join(HERE, "..", "..", "python"),
                                  TKRT_NATIVE_MODULE=os.path.join(HERE, "no_such_module.so"),
                                  TKRT_PYTHON_LAUNCH="native"),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
  check(probe.returncode != 0 and "TKRT_PYTHON_LAUNCH=native but tkrt._native cannot be used"
        in probe.stdout, f"TKRT_PYTHON_LAUNCH=native without the extension: ImportError "
        f"({probe.stdout.strip()[-200:]})")

  dev = tt.device("host")
  check(dev.backend == "host" and dev.ordinal == 0 and tt.device("cpu") is dev,
        f"tkrt.triton.device('host') opens the host device once ({dev!r})")

  # The host images are native code: taken only with consent (this test built them).
  expect_raises(tt.Error, "v256/add_kernel.so, a host image: native code",
                lambda: tt.load(make_kernel_dir(work, "v256", HOST[0], 2)), "a host-only folder without consent")
  kernels = [tt.load(os.path.join(work, "v256"), allow_native_code=True)]
  kernels += [tt.load(make_kernel_dir(work, f"v{b}", HOST[i + 1], 4 << i), allow_native_code=True)
              for i, b in enumerate((512, 1024))]
  k = kernels[2]
  check(k.name == "add_kernel" and [p.type for p in k.params] == ["*fp32", "*fp32", "*fp32", "i32"]
        and k.params[0].divisibility == 16 and k.num_warps == 8,
        f"load: name, parameters, num_warps ({k!r})")

  # ---- a single launch through DLPack
  x, y = inputs()
  out = aligned(N)
  out.fill(np.nan)
  add = k.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="host", n=N)
  add(x, y, out)
  add.synchronize()
  check(same_bits(out, x + y), "prepared launch on NumPy arrays: out == x + y bit for bit")
  r = tt.array_info(x)
  check(r[0] == x.ctypes.data and r[1] == (1, 0) and r[2] == "fp32" and r[3] == 4 * N
        and r[4] in ("dlpack", "dlpack_versioned"), f"array_info reads NumPy through DLPack ({r})")
  strided = x[::2]
  r = tt.array_info(strided)
  check(r[3] == 4 * (2 * (strided.size - 1) + 1), f"array_info: extent of a strided view ({r[3]})")
  reversed_view = x[::-1]
  r = tt.array_info(reversed_view)
  # The pointer is the view's first element, as Triton passes data_ptr() (issue 31, E4); the
  # extent counts from it upward (the others lie below it).
  check(r[0] == reversed_view.ctypes.data == x.ctypes.data + 4 * (N - 1) and r[3] == 4,
        f"array_info: a negative stride starts at the view's first element ({r[0]:#x}, {r[3]})")

  # Triton-style: every argument, scalars equal to the prepared ones.
  out.fill(0)
  add(x, y, out, N)
  add.synchronize()
  check(same_bits(out, x + y), "launch with Triton's full argument list")
  # An explicit stream of the device.
  stream = dev.create_stream()
  out.fill(0)
  add(x, y, out, stream=stream)
  dev.synchronize(stream)
  check(same_bits(out, x + y), "launch on an explicit stream")
  dev.destroy_stream(stream)

  # Grids: a tuple and a callable (Triton's lambda META: ...).
  out.fill(0)
  k.prepare((5,), device="host", n=N)(x, y, out)
  dev.synchronize()
  check(same_bits(out, x + y), "grid as a tuple of ints")
  out.fill(0)
  k.prepare(lambda meta: ((meta["n"] + meta["BLOCK"] - 1) // meta["BLOCK"],), constants="BLOCK=1024",
            device="host", n=N)(x, y, out)
  dev.synchronize()
  check(same_bits(out, x + y), "grid as a callable of the scalars and constants")
  out.fill(0)
  k.prepare((2,), device="host", n=N)(x, y, out)
  dev.synchronize()
  check(same_bits(out[:2048], (x + y)[:2048]) and not out[2048:].any(),
        "a smaller grid covers only its programs (the grid is really used)")

  # Hand-made capsules: "dltensor" and "dltensor_versioned".
  for versioned in (False, True):
    out.fill(0)
    add(FakeArray(x, versioned), FakeArray(y, versioned), FakeArray(out, versioned))
    dev.synchronize()
    check(same_bits(out, x + y), f"DLPack capsule {'dltensor_versioned' if versioned else 'dltensor'}")

  per_launch_scalars(k, dev, x, y)
  exchange_api(add, dev, x, y)

  # ---- errors, with what is wrong named
  expect_raises(TypeError, "missing out_ptr", lambda: add(x, y), "a missing argument")
  expect_raises(TypeError, "takes its 3 arrays (x_ptr, y_ptr, out_ptr) or all 4 arguments",
                lambda: add(x, y, out, N, 1), "too many arguments")
  # The dtype rule is the C library's (tkrt_triton_arg_t.dtype): tt.Error INVALID_ARGUMENT.
  expect_raises(tt.Error, "argument 1 (y_ptr: *fp32): the array's elements are fp64; the kernel "
                "takes fp32", lambda: add(x, y.astype(np.float64), out), "wrong dtype")
  expect_raises(tt.Error, "the array's elements are i32; the kernel takes fp32",
                lambda: add(x, np.zeros(N, np.int32), out), "wrong dtype (int32)")
  expect_raises(tt.Error, "the array's elements are complex64; the kernel takes fp32",
                lambda: add(x, np.zeros(N, np.complex64), out), "wrong dtype (complex64)")
  expect_raises(ValueError, "argument 2 (out_ptr: *fp32) is on cuda:0, but the launch is prepared for host:0",
                lambda: add(x, y, FakeArray(out, True, device_type=2)), "wrong device")
  expect_raises(TypeError, "argument 0 (x_ptr: *fp32) is a list, not an array",
                lambda: add(list(x), y, out), "not an array")
  expect_raises(TypeError, "not an unused DLPack capsule",
                lambda: add(FakeArray(x, False, name=b"used_dltensor"), y, out), "a used capsule")
  misaligned = aligned(N, offset=4)
  e = expect_raises(tt.Error, "argument 0 (x_ptr: *fp32) = ", lambda: add(misaligned, y, out),
                    "tt.divisibility checked at launch, naming the argument")
  check(e is not None and "is not a multiple of 16" in str(e), f"... and the rule ({e})")
  check(isinstance(e, tt.Error) and e.code == "INVALID_ARGUMENT", "errors carry the status code")
  expect_raises(tt.Error, "kernel 'add_kernel' has no parameter 'm'",
                lambda: k.prepare("1", device="host", n=N, m=3), "an unknown scalar")
  no_n = k.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="host")
  expect_raises(tt.Error, "argument 3 (n: i32) has no value", lambda: no_n(x, y, out),
                "a scalar given neither at prepare nor at launch")
  expect_raises(tt.Error, "unknown name 'BLOK'",
                lambda: k.prepare("cdiv(n, BLOK)", constants={"BLOCK": 1024}, device="host", n=N),
                "an unknown name in the grid")
  expect_raises(tt.Error, "scalar 'n' is i32; 8589934592 is out of range",
                lambda: k.prepare("1", device="host", n=1 << 33), "a scalar out of range")
  expect_raises(tt.Error, "NOT_FOUND", lambda: tt.load(os.path.join(work, "nothing.json")),
                "loading a missing file")
  expect_raises(ValueError, "unknown image kind 'elf'", lambda: tt.load(work, image_kinds=["elf"]),
                "an unknown image kind")
  # Nothing was written by the refused launches.
  out.fill(0)
  try:
    add(x, y.astype(np.float64), out)
  except tt.Error:
    pass
  dev.synchronize()
  check(not out.any(), "a refused launch enqueues nothing")

  # ---- Tuner keywords are read by tkrt's settings table (docs/settings.md): words in any case,
  # bad values refused naming the setting and the value.
  tt.Tuner(store_dir="off", policy="NEVER", capture_policy="Error", prune_margin=-1, target_ms=2)
  expect_raises(tt.Error, "tune_policy is 'sometimes'", lambda: tt.Tuner(policy="sometimes"),
                "Tuner(policy='sometimes')")
  expect_raises(tt.Error, "capture_policy is 'later'", lambda: tt.Tuner(capture_policy="later"),
                "Tuner(capture_policy='later')")
  expect_raises(tt.Error, "tune_prune_margin is 'nan'", lambda: tt.Tuner(prune_margin=float("nan")),
                "Tuner(prune_margin=nan)")
  expect_raises(tt.Error, "target_ms is '-1'", lambda: tt.Tuner(target_ms=-1), "Tuner(target_ms=-1)")

  # ---- autotuned, in place (x += y) over the three variants
  tuner = tt.Tuner(store_dir="off", target_ms=1)
  variants = [kk.variant("cdiv(n, BLOCK)", {"BLOCK": b}) for kk, b in zip(kernels, (256, 512, 1024))]
  tuned = tt.prepare(variants, device="host", inout=["x_ptr"], tuner=tuner, n=N)
  x2, y2 = inputs()
  want = x2 + y2
  tuned(x2, y2, x2)
  dev.synchronize()
  report = tuned.tune_report()
  check(same_bits(x2, want), "autotuned in-place launch: x + y exactly once (x restored while tuning)")
  check(report["source"] == "tuned" and 0 <= report["chosen"] < 3 and len(report["times_ms"]) == 3,
        f"autotuned: the tuner benchmarked the 3 variants ({report})")
  x2, y2 = inputs()
  tuned(x2, y2, x2)
  dev.synchronize()
  check(same_bits(x2, want), "autotuned: later launches use the decision")
  # ---- autotuned with a tuning key: each value of n decided once, in place, per-launch n
  keyed = tt.prepare(variants, device="host", inout=["x_ptr"], tuner=tt.Tuner(store_dir="off",
                     target_ms=1), key=["n"], n=N)
  check(keyed.key == ("n",) and "key ['n']" in repr(keyed), f"key= is kept ({keyed!r})")
  for n in (N, 3000, N, 3000, 700):
    x2, y2 = inputs()
    want = x2 + y2
    keyed(x2, y2, x2, n)
    dev.synchronize()
    check(same_bits(x2[:n], want[:n]) and same_bits(x2[n:], inputs()[0][n:]),
          f"autotuned with key n={n}: x[:n] += y[:n] exactly once, the rest untouched")
  # ---- tkrt.triton.configure: the default runtime's settings, in a fresh process (this one's
  # runtime is in use), refused when wrong and once a device is open; tune_policy
  # never: an autotuned call without a Tuner runs the default config untuned
  settle = subprocess.run([sys.executable, "-c", r"""
import tkrt.triton as tt
def refused(label, **kw):
  try:
    tt.configure(**kw)
    print(label, "accepted")
  except tt.Error as e:
    print(label, e.code, e.message)
refused("policy", tune_policy="sometimes")
refused("name", no_such_setting="1")
tt.configure(backend="host", tune_policy="Never", tune_prune_margin=0.5, tune_dir="off")
dev = tt.device()
print("device", dev.backend, dev.ordinal)
refused("late", tune_policy="auto")
import os, sys, numpy as np
kernels = [tt.load(os.path.join(sys.argv[1], f"v{b}"), allow_native_code=True) for b in (256, 512)]
launch = tt.prepare([k.variant("cdiv(n, BLOCK)", {"BLOCK": b}) for k, b in zip(kernels, (256, 512))],
                    device="host", n=4096)
x = np.zeros(4096 + 16, np.float32)[16:]
launch(x, x, x)
print("source", launch.tune_report()["source"])
tt.configure(log="warn")
print("log later: fine")
""", work], env=dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "..", "python")),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
  said = settle.stdout
  check(settle.returncode == 0 and "policy INVALID_ARGUMENT" in said and "'sometimes'" in said
        and "name INVALID_ARGUMENT" in said and "no_such_setting" in said
        and "device host 0" in said and "late FAILED_PRECONDITION" in said
        and "log later: fine" in said and "source default" in said,
        f"configure sets the default runtime before its first device, refuses bad ones ({said!r})")
  if VECTORS:
    matmul = tt.load(os.path.join(VECTORS, "matmul", "cuda_sm90"))
    expect_raises(tt.Error, "declares 6 parameters; variant 0 declares 4",
                  lambda: tt.prepare([variants[0], matmul.variant("1")], device="host", n=N),
                  "variants of different kernels")

  # ---- Triton's own cache entry with the host image beside it
  if VECTORS and os.path.isdir(os.path.join(VECTORS, "add", "cuda_sm90")):
    with open(os.path.join(VECTORS, "add", "cuda_sm90", "add_kernel.json")) as f:
      meta = json.load(f)
    # Triton 3.6 names a cache entry's folder base32(hash bytes), unpadded.
    folder = base64.b32encode(bytes.fromhex(meta["hash"])).decode().rstrip("=")
    entry = os.path.join(work, "cache", folder)
    shutil.copytree(os.path.join(VECTORS, "add", "cuda_sm90"), entry)
    shutil.copy(HOST[2], os.path.join(entry, "add_kernel.so"))
    # Without consent the .so is left out and named; on the host backend that is refused.
    plain = tt.load(entry)
    check(plain.targets[0]["native_code_left_out"] == os.path.join(entry, "add_kernel.so")
          and plain.targets[0]["image_kinds"] == ["cubin", "ptx"],
          f"Triton's cache entry without consent: the host image is left out ({plain.targets[0]})")
    expect_raises(tt.Error, "tkrt.triton.load(..., allow_native_code=True) takes it",
                  lambda: plain.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="host", n=N),
                  "the host backend and a left-out host image")
    real = tt.load(entry, allow_native_code=True)
    check(real.targets[0]["native_code_left_out"] is None and "host" in real.targets[0]["image_kinds"],
          "with allow_native_code=True the host image is taken")
    check([t["backend"] for t in real.targets] == ["cuda"] and real.targets[0]["triton_version"].startswith("3.6"),
          f"Triton 3.6's cache entry loads ({real!r})")
    out.fill(0)
    real.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="host", n=N)(x, y, out)
    dev.synchronize()
    check(same_bits(out, x + y), "Triton's cache entry + host image: out == x + y")
    # A CompiledKernel from triton.compile: by its metadata_group, by its hash, from its asm.
    Compiled = collections.namedtuple("Compiled", "name hash asm metadata metadata_group")
    by_group = Compiled("add_kernel", meta["hash"], {}, {},
                        {"add_kernel.json": os.path.join(entry, "add_kernel.json")})
    check(tt.load(by_group).source == os.path.join(entry, "add_kernel.json"), "CompiledKernel: metadata_group")
    by_hash = Compiled("add_kernel", meta["hash"], {}, {}, None)
    check(tt.load(by_hash, cache_dir=os.path.join(work, "cache")).source == os.path.join(entry, "add_kernel.json"),
          "CompiledKernel: found in the cache by its hash")
    Metadata = collections.namedtuple("Metadata", sorted(meta))
    Target = collections.namedtuple("GPUTarget", "backend arch warp_size")
    fields = dict(meta, target=Target(**meta["target"]))
    asm = {}
    for ext, binary in (("cubin", True), ("ptx", False), ("ttir", False)):
      with open(os.path.join(entry, "add_kernel." + ext), "rb" if binary else "r") as f:
        asm[ext] = f.read()
    from_asm = tt.load(Compiled("add_kernel", "nowhere", asm, Metadata(**fields), None),
                       cache_dir=os.path.join(work, "empty"))
    check(from_asm.params == real.params and from_asm.targets[0]["arch"] == real.targets[0]["arch"],
          f"CompiledKernel outside any cache: written out from its asm ({from_asm!r})")
    check(not os.path.exists(from_asm.source), "the folder written out from the asm is removed once loaded")
    # Its source's constexprs (src.constants: keyed (index,) from Triton 3.3, by name in 3.2):
    # a grid names them without constants=, a callable grid sees them, and another value is
    # refused by the C library, naming both (it would compute a grid of another BLOCK over code
    # compiled for 1024). Non-integer constexprs and tuple paths are not grid names: left out.
    Src = collections.namedtuple("Src", "fn constants")
    Fn = collections.namedtuple("Fn", "arg_names")
    WithSrc = collections.namedtuple("WithSrc", "name hash asm metadata metadata_group src")
    group = {"add_kernel.json": os.path.join(entry, "add_kernel.json")}
    arg_names = ["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"]
    for label, constants in (("3.3+ index keys", {(4,): 1024, (0, 1): 7, (9,): 3}),
                             ("3.2 name keys", {"BLOCK": 1024, "DTYPE": "fp16", "NONE": None})):
      compiled = WithSrc("add_kernel", meta["hash"], {}, {}, group,
                         Src(Fn(arg_names), constants))
      known = tt.load(compiled, allow_native_code=True)
      check(known.constants == {"BLOCK": 1024}, f"{label}: Kernel.constants {known.constants}")
      out.fill(0)
      known.prepare("cdiv(n, BLOCK)", device="host", n=N)(x, y, out)
      dev.synchronize()
      check(same_bits(out, x + y), f"{label}: prepare(grid) without constants=: out == x + y")
      out.fill(0)
      known.prepare(lambda meta: ((meta["n"] + meta["BLOCK"] - 1) // meta["BLOCK"],),
                    device="host", n=N)(x, y, out)
      dev.synchronize()
      check(same_bits(out, x + y), f"{label}: a Triton-style grid callable sees BLOCK")
      expect_raises(tt.Error, "constants \"BLOCK=2048\": kernel 'add_kernel' was compiled with "
                    "BLOCK=1024, not 2048",
                    lambda: known.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 2048},
                                          device="host", n=N),
                    f"{label}: constants= with another BLOCK is refused")
    # A Triton-style grid callable is called again at each launch given every argument, with
    # that launch's meta-parameters (its arguments, arrays too, the constexprs, num_warps):
    # prepared for n = 1024 (one program), a launch with n = N covers all N. The arrays-only form
    # keeps prepare's grid. A callable that returns no grid is refused before anything runs.
    calls = []
    def grid(meta):
      calls.append(sorted(meta))
      return ((meta["n"] + meta["BLOCK"] - 1) // meta["BLOCK"],)
    known = tt.load(WithSrc("add_kernel", meta["hash"], {}, {}, group,
                            Src(Fn(arg_names), {(4,): 1024})), allow_native_code=True)
    per_launch = known.prepare(grid, device="host", n=1024)
    out.fill(0)
    per_launch(x, y, out, N)
    check(same_bits(out, x + y), "a grid callable follows the launch's n (all N elements)")
    check(calls and {"x_ptr", "y_ptr", "out_ptr", "n", "BLOCK", "num_warps"} <= set(calls[-1]),
          f"its meta holds the arguments, the constexprs and num_warps ({calls[-1] if calls else None})")
    out.fill(0)
    per_launch(x, y, out)
    check(same_bits(out[:1024], (x + y)[:1024]) and not out[1024:].any(),
          "the arrays-only form keeps prepare's grid (one program of 1024)")
    # launch_grid: the caller's grid for this launch (what Triton's launcher hands over).
    plain = known.prepare("cdiv(n, BLOCK)", device="host", n=N)
    out.fill(0)
    plain.launch_grid((1,), x, y, out, N)
    check(same_bits(out[:1024], (x + y)[:1024]) and not out[1024:].any(),
          f"launch_grid((1,), ...) runs one program whatever n says ({tt.launch_path} path)")
    expect_raises(TypeError, "launch_grid takes all 4 arguments", lambda: plain.launch_grid(1, x, y, out),
                  "launch_grid without every argument")
    expect_raises(ValueError, "grid", lambda: plain.launch_grid((1, 2, 3, 4), x, y, out, N),
                  "launch_grid with 4 dimensions")
    expect_raises(ValueError, "grid", lambda: plain.launch_grid((2**32,), x, y, out, N),
                  "launch_grid with a dimension of 2^32")
    bad = known.prepare(lambda meta: (1,) if meta["n"] == 1024 else "many", device="host", n=1024)
    expect_raises(TypeError, "the grid callable returned 'many'", lambda: bad(x, y, out, N),
                  "a grid callable that returns no grid")
    expect_raises(ValueError, "variant grids mix callables with the expression",
                  lambda: tt.prepare([known.variant(grid), known.variant("cdiv(n, BLOCK)")],
                                     device="host", n=N),
                  "callables and expressions are not mixed")
    check(tt.load(by_group).constants == {}, "a CompiledKernel without src: no constants known")
    # A cache's entries are read as the C loader reads files: a symbolic link is not followed
    # and a FIFO does not block; neither is taken for the kernel's entry.
    for kind in ("symlink", "fifo"):
      fake = os.path.join(work, "cache_" + kind, folder)
      os.makedirs(fake)
      planted = os.path.join(fake, "add_kernel.json")
      os.symlink(os.path.join(entry, "add_kernel.json"), planted) if kind == "symlink" else os.mkfifo(planted)
      expect_raises(ValueError, "no name or no asm", lambda: tt.load(by_hash, cache_dir=os.path.dirname(fake)),
                    f"a {kind} in the cache is not read as the kernel's entry")
    # The kernel's name names the files written out: it cannot lead out of the new folder.
    evil = Compiled("../evil", "nowhere", asm, Metadata(**dict(fields, name="../evil")), None)
    expect_raises(ValueError, "is not an identifier",
                  lambda: tt.load(evil, cache_dir=os.path.join(work, "empty")),
                  "a compiled kernel named '../evil' is refused before anything is written")
  else:
    print("note: no Triton 3.6 vectors given; the cache-entry checks are not run")


if __name__ == "__main__":
  main()
