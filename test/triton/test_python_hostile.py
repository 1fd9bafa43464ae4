# SPDX-License-Identifier: Apache-2.0
"""tkrt.triton (the Python launch path) driven with hostile objects (issue 23): names, metadata,
asm, Triton cache entries planted by another user, streams, device names, strings with NUL bytes,
and integers at every boundary of their types. Each must end in a clean exception that names the
culprit, with nothing launched and nothing left on disk: tkrt's temporary folders are made in a
private folder (tempfile.tempdir) that must be empty after every case.

The cache cases that need another user's files chown them to uid 54321 (CI runs as root); run
as another user they are skipped, with a note. The stream case that reaches the host backend's
own stream check (a handle Python does not know, passed straight to the C launch) runs in a
child process, so a crash fails the check instead of killing this test.

usage: test_python_hostile.py HOST_256.so HOST_512.so HOST_1024.so TRITON_VECTORS_DIR
Needs TKRT_LIBRARY (libtkrt.so; else tkrt.triton takes the TKRT_XLA_LIBRARY libtkrt_xla.so, which
carries the same library) and NumPy >= 1.22; exits 77 (skipped) without NumPy.
"""
import base64
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.join(HERE, "..", "..", "python")
sys.path.insert(0, PACKAGE)

import script_checks  # noqa: E402 - the scripts' own helpers (this folder)

np = script_checks.numpy_with_dlpack()

import tkrt.triton as tt  # noqa: E402

if len(sys.argv) != 5:
  print(__doc__)
  sys.exit(2)
HOST = sys.argv[1:4]
VECTORS = sys.argv[4]
N = 5000
OTHER_UID = 54321
from script_checks import check  # noqa: E402
TMP = None  # the private temporary folder tkrt.triton writes into (tempfile.tempdir)


def leftovers():
  return sorted(os.listdir(TMP))


def hostile(kind, fragment, fn, label):
  """fn() must raise `kind` with `fragment` in its message, and leave TMP empty."""
  error = None
  try:
    fn()
  except kind as e:
    error = e
    check(fragment in str(e), f"{label}: {kind.__name__} says {fragment!r} (got: {e})")
  except Exception as e:  # noqa: BLE001
    error = e
    check(False, f"{label}: expected {kind.__name__} with {fragment!r}, got {type(e).__name__}: {e}")
  else:
    check(False, f"{label}: expected {kind.__name__} with {fragment!r}, nothing raised")
  left = leftovers()
  check(not left, f"{label}: nothing left in the temporary folder ({left})")
  for name in left:
    shutil.rmtree(os.path.join(TMP, name), ignore_errors=True)
  return error


def aligned(n, dtype=np.float32):
  item = np.dtype(dtype).itemsize
  raw = np.empty(n * item + 128, dtype=np.uint8)
  start = (-raw.ctypes.data) % 64
  return raw[start:start + n * item].view(dtype)


def inputs():
  x, y = aligned(N), aligned(N)
  x[:] = np.arange(N, dtype=np.float32) * np.float32(0.5)
  y[:] = np.float32(2.0) / (np.arange(N, dtype=np.float32) + np.float32(1))
  return x, y


def same_bits(a, b):
  return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))


def triton_folder(hash_hex):
  """The folder Triton 3.6 gives a cache entry: base32 of the hash's bytes, unpadded."""
  return base64.b32encode(bytes.fromhex(hash_hex)).decode().rstrip("=")


def copy_entry(src, dst):
  """A copy of a kernel folder that this user may change (the test data may be read-only)."""
  shutil.copytree(src, dst)
  os.chmod(dst, 0o755)
  for name in os.listdir(dst):
    os.chmod(os.path.join(dst, name), 0o644)


def chown_tree(path, uid):
  for root, dirs, files in os.walk(path):
    for name in dirs + files:
      os.lchown(os.path.join(root, name), uid, -1)
  os.lchown(path, uid, -1)


Compiled = collections.namedtuple("Compiled", "name hash asm metadata metadata_group")


def main():
  global TMP
  work = tempfile.mkdtemp(prefix="tkrt_hostile_")
  TMP = os.path.join(work, "tmp")
  os.mkdir(TMP)
  tempfile.tempdir = TMP  # tkrt.triton's folders written out from asm go here
  try:
    run(work)
  finally:
    tempfile.tempdir = None
    shutil.rmtree(work, ignore_errors=True)
  if script_checks.finish("test_python_hostile"):
    sys.exit(1)


def run(work):
  source = os.path.join(VECTORS, "add", "cuda_sm90")
  with open(os.path.join(source, "add_kernel.json")) as f:
    meta = json.load(f)
  asm = {}
  for ext, binary in (("cubin", True), ("ptx", False), ("ttir", False)):
    with open(os.path.join(source, "add_kernel." + ext), "rb" if binary else "r") as f:
      asm[ext] = f.read()
  good_hash = meta["hash"]

  # ---------------------------------------------------------------- compiled objects
  outside = os.path.join(work, "outside")
  for name, kind, fragment in (("../../outside/x", ValueError, "is not an identifier"),
                               ("a/b", ValueError, "is not an identifier"),
                               ("x\x00y", ValueError, "is not an identifier"),
                               ("add kernel", ValueError, "is not an identifier"),
                               (5, ValueError, "is not an identifier")):
    obj = Compiled(name, good_hash, asm, dict(meta, name=name), None)
    hostile(kind, fragment, lambda: tt.load(obj, cache_dir=os.path.join(work, "nocache")),
            f"a compiled kernel named {name!r}")
  check(not os.path.exists(outside), "no name led a file out of the cache or the temporary folder")
  # The name in the metadata (the object has none) is checked as well.
  Bare = collections.namedtuple("Bare", "asm metadata")
  hostile(ValueError, "'../evil' is not an identifier",
          lambda: tt.load(Bare(asm, dict(meta, name="../evil")), cache_dir=os.path.join(work, "nocache")),
          "a metadata name '../evil'")
  # Metadata and asm of the wrong shapes (D9: asm = 5 left an empty folder behind).
  for label, obj, kind, fragment in (
      ("asm = 5", Compiled("add_kernel", "nowhere", 5, meta, None), TypeError, "asm is a int"),
      ("asm a list", Compiled("add_kernel", "nowhere", ["cubin"], meta, None), TypeError, "asm is a list"),
      ("asm['cubin'] = 5", Compiled("add_kernel", "nowhere", {"cubin": 5}, meta, None), TypeError,
       "asm['cubin'] is a int"),
      ("asm['ptx'] an object", Compiled("add_kernel", "nowhere", dict(asm, ptx=object()), meta, None),
       TypeError, "asm['ptx'] is a object"),
      ("metadata = 5", Compiled("add_kernel", "nowhere", asm, 5, None), TypeError, "metadata is a int"),
      ("empty asm", Compiled("add_kernel", "nowhere", {}, meta, None), ValueError, "no name or no asm")):
    hostile(kind, fragment, lambda: tt.load(obj, cache_dir=os.path.join(work, "nocache")), label)
  # Well-formed but wrong: the C loader refuses, and the written folder is removed.
  hostile(tt.Error, "add_kernel", lambda: tt.load(
      Compiled("add_kernel", "nowhere", {"ttir": "not a module"}, meta, None),
      cache_dir=os.path.join(work, "nocache")), "asm the loader refuses")
  hostile(tt.Error, "INVALID_ARGUMENT", lambda: tt.load(
      Compiled("add_kernel", "nowhere", asm, dict(meta, num_warps="many"), None),
      cache_dir=os.path.join(work, "nocache")), "metadata the loader refuses")
  # D8: a path with a NUL byte (C would read the part before it).
  hostile(ValueError, "contains a NUL byte", lambda: tt.load(source + "\x00/ignored"), "a path with a NUL byte")
  hostile(ValueError, "contains a NUL byte",
          lambda: tt.load(Compiled("add_kernel", good_hash, asm, meta, None), cache_dir=work + "\x00x"),
          "a cache_dir with a NUL byte")
  hostile(TypeError, "is neither a path nor a compiled Triton kernel", lambda: tt.load(os.fsencode(source)),
          "a bytes path")

  # ---------------------------------------------------------------- Triton caches (D2)
  is_root = os.geteuid() == 0
  cache = os.path.join(work, "cache")
  entry = os.path.join(cache, triton_folder(good_hash))
  copy_entry(source, entry)
  shutil.copy(HOST[2], os.path.join(entry, "add_kernel.so"))  # BLOCK 1024
  os.chmod(cache, 0o755)
  os.chmod(entry, 0o755)
  # Another user's folder, sorted before the real one, with a copy of the JSON (same hash) and
  # its own host image (BLOCK 256: under the 1024 grid it would cover a quarter of the output).
  planted = os.path.join(cache, "0000")
  copy_entry(source, planted)
  shutil.copy(HOST[0], os.path.join(planted, "add_kernel.so"))
  if is_root:
    chown_tree(planted, OTHER_UID)
  by_hash = Compiled("add_kernel", good_hash, asm, meta, None)
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    k = tt.load(by_hash, cache_dir=cache, allow_native_code=True)
  check(k.source == os.path.join(entry, "add_kernel.json") and not caught,
        f"the entry is the folder Triton names after the hash, not the one sorted first ({k.source})")
  x, y = inputs()
  out = aligned(N)
  out.fill(-1)
  k.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="host", n=N)(x, y, out)
  tt.device("host").synchronize()
  check(same_bits(out, x + y), "the user's own host image ran (the planted BLOCK-256 one would leave 3/4 unwritten)")

  def refused(label, fragment, obj=by_hash, cache_dir=cache, env=None):
    """The entry is not used: a RuntimeWarning says why, and the kernel comes from the asm (no
    host image: the planted .so is not loaded)."""
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
      with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernel = tt.load(obj, cache_dir=cache_dir, allow_native_code=True)
    finally:
      for key, value in saved.items():
        if value is None:
          os.environ.pop(key, None)
        else:
          os.environ[key] = value
    said = " | ".join(str(w.message) for w in caught)
    check(fragment in said and kernel.source != os.path.join(entry, "add_kernel.json")
          and "host" not in kernel.targets[0]["image_kinds"],
          f"{label}: not used, the asm is ({fragment!r} in: {said})")
    left = leftovers()
    check(not left, f"{label}: nothing left in the temporary folder ({left})")
    return kernel

  if is_root:
    chown_tree(entry, OTHER_UID)
    refused("the hash's folder owned by another user", f"is not trusted: another user owns it (owner uid {OTHER_UID}")
    # The shared-cache switch the C stores read trusts it (links and FIFOs still refused).
    os.environ["TKRT_TRUST_SHARED_STORES"] = "1"
    try:
      shared = tt.load(by_hash, cache_dir=cache, allow_native_code=True)
    finally:
      del os.environ["TKRT_TRUST_SHARED_STORES"]
    check(shared.source == os.path.join(entry, "add_kernel.json"),
          "TKRT_TRUST_SHARED_STORES=1: another user's entry is trusted on request")
    chown_tree(entry, 0)
    os.lchown(os.path.join(entry, "add_kernel.so"), OTHER_UID, -1)
    refused("another user's host image in the user's folder", "add_kernel.so is not trusted: another user owns it")
    os.lchown(os.path.join(entry, "add_kernel.so"), 0, -1)
    os.chown(cache, OTHER_UID, -1)
    refused("a cache folder another user owns", "another user owns its cache folder")
    os.chown(cache, 0, -1)
  else:
    print(f"note: not root: the cases with files of another user (uid {OTHER_UID}) are not run")
  os.chmod(entry, 0o775)
  refused("a group-writable entry folder", f"is not trusted: other users can write it (owner uid {os.geteuid()}, mode 0775)")
  os.chmod(entry, 0o757)
  refused("a world-writable entry folder", f"is not trusted: other users can write it (owner uid {os.geteuid()}, mode 0757)")
  os.chmod(entry, 0o755)
  os.chmod(os.path.join(entry, "add_kernel.json"), 0o666)
  refused("a world-writable JSON", "add_kernel.json is not trusted: other users can write it")
  os.chmod(os.path.join(entry, "add_kernel.json"), 0o644)
  # A link among the entry's files leads elsewhere: refused, even when shared caches are trusted.
  ptx = os.path.join(entry, "add_kernel.ptx")
  os.rename(ptx, ptx + ".real")
  os.symlink(ptx + ".real", ptx)
  refused("a symbolic link among the entry's files (TKRT_TRUST_SHARED_STORES=1)",
          "/add_kernel.ptx is a symbolic link", env={"TKRT_TRUST_SHARED_STORES": "1"})
  os.remove(ptx)
  os.rename(ptx + ".real", ptx)
  os.chmod(cache, 0o777)
  refused("a cache folder anyone can write, not sticky", "other users can write its cache folder")
  os.chmod(cache, 0o1777)
  sticky = tt.load(by_hash, cache_dir=cache, allow_native_code=True)
  check(sticky.source == os.path.join(entry, "add_kernel.json"),
        "a sticky cache folder (like /tmp): the user's own entry is used")
  os.chmod(cache, 0o755)
  # The entry's JSON must carry the kernel's hash and name.
  other_hash = "00" * 32
  relabelled = os.path.join(cache, triton_folder(other_hash))
  copy_entry(source, relabelled)
  os.chmod(relabelled, 0o755)
  refused("a JSON whose hash is not the folder's", "names another kernel or hash",
          obj=Compiled("add_kernel", other_hash, asm, meta, None))
  # A link as the entry folder.
  linked = os.path.join(cache, triton_folder("11" * 32))
  os.symlink(entry, linked)
  refused("the hash's folder is a symbolic link", "not a folder",
          obj=Compiled("add_kernel", "11" * 32, asm, meta, None))
  # metadata_group pointing into an untrusted folder.
  os.chmod(entry, 0o777)
  refused("metadata_group in a folder anyone can write", "other users can write it",
          obj=Compiled("add_kernel", good_hash, asm, meta,
                       {"add_kernel.json": os.path.join(entry, "add_kernel.json")}), cache_dir=None)
  os.chmod(entry, 0o755)
  # A hash that is not hex is not a folder name: no lookup, the asm is written out.
  odd = tt.load(Compiled("add_kernel", "../../x", asm, meta, None), cache_dir=cache)
  check(odd.source != os.path.join(entry, "add_kernel.json") and not leftovers(),
        "a hash that is not hex names no folder (the asm is used)")

  # ---------------------------------------------------------------- devices (D3, issue 27)
  for spec, kind, fragment in (("host:4294967296", ValueError, "not an integer in 0..2147483647"),
                               ("host:2147483648", ValueError, "not an integer in 0..2147483647"),
                               ("host:-1", ValueError, "decimal digits"),
                               ("host: 1", ValueError, "decimal digits"),
                               ("host:1_0", ValueError, "decimal digits"),
                               ("host:", ValueError, "decimal digits"),
                               ("", ValueError, "unknown device"),
                               ("foo", ValueError, "unknown device"),
                               ("host\x00junk", ValueError, "unknown device"),
                               ("cuda,host", ValueError, "unknown device"),
                               (1.5, TypeError, "device must be")):
    hostile(kind, fragment, lambda: tt.device(spec), f"device {spec!r}")
  check(tt.device("cpu") is tt.device("host"), "'cpu' is the host device")
  try:
    gpu = tt.device("gpu")
    check(gpu.backend in ("cuda", "hip"), f"'gpu' opens a GPU backend ({gpu!r})")
  except tt.Error as e:
    check(e.code == "UNAVAILABLE" and "cuda: " in str(e) and "hip: " in str(e)
          and "host: " not in str(e), f"'gpu' without a GPU is an error, cuda and hip tried, never "
          f"the host backend ({e})")

  # ---------------------------------------------------------------- a kernel to launch
  host_dir = os.path.join(work, "v1024")
  os.makedirs(host_dir)
  with open(os.path.join(host_dir, "add_kernel.json"), "w") as f:
    json.dump({"name": "add_kernel", "target": {"backend": "host", "arch": "any", "warp_size": 1},
               "num_warps": 8, "num_ctas": 1, "num_stages": 1, "shared": 0}, f)
  shutil.copy(os.path.join(source, "add_kernel.ttir"), host_dir)
  shutil.copy(HOST[2], os.path.join(host_dir, "add_kernel.so"))
  kernel = tt.load(host_dir, allow_native_code=True)
  dev = tt.device("host")

  # Integers at every boundary of i32 (n): the signed range of the width, Triton's rule for an i32
  # specialisation (issue 31, E15); declared unsigned, 0..2^32-1.
  # The range rule is the C library's (issue 32: value rules live in C only); Python refuses only
  # integers no C integer holds (beyond 64 bits).
  i32_range = "(-2147483648..2147483647)"
  for value in (-2**31 - 1, 2**31, 2**32 - 1, np.uint32(2**32 - 1), 2**32, 2**63 - 1, 2**63,
                2**64 - 1):
    hostile(tt.Error, f"scalar 'n' is i32; {value} is out of range {i32_range} (Triton compiles",
            lambda: kernel.prepare((1,), device="host", n=value), f"n = {value}")
  for value in (2**64 + 5, -2**63 - 1, 10**30):
    hostile(tt.Error, f"scalar 'n': {value} does not fit in 64 bits",
            lambda: kernel.prepare((1,), device="host", n=value), f"n = {value}")
  for value in (-2**31, 0, 2**31 - 1, True, np.int64(7), np.uint32(2**31 - 1)):
    launch = kernel.prepare((1,), device="host", n=value)
    check(launch.scalars["n"] == value, f"n = {value!r} ({type(value).__name__}) is taken")
  for value in (0, 2**31, 2**32 - 1, np.uint32(2**32 - 1)):
    launch = kernel.prepare((1,), device="host", unsigned=["n"], n=value)
    check(launch.scalars["n"] == value, f"unsigned n = {value!r} is taken")
  for value in (-1, 2**32):
    hostile(tt.Error, f"scalar 'n' is i32; {value} is out of range (0..4294967295)",
            lambda: kernel.prepare((1,), device="host", unsigned=["n"], n=value),
            f"unsigned n = {value}")
  hostile(tt.Error, "unsigned scalar 'x_ptr' is *fp32; only integer scalar parameters",
          lambda: kernel.prepare((1,), device="host", unsigned=["x_ptr"], n=1),
          "unsigned= naming a pointer")
  # The same at the boundaries of i1, i8, i16, i64 and for a float parameter: a kernel whose TTIR
  # declares them (its CUDA images do not run on the host: in-range values get that far).
  wide = os.path.join(work, "wide")
  copy_entry(source, wide)
  ttir = os.path.join(wide, "add_kernel.ttir")
  with open(ttir) as f:
    text = f.read()
  with open(ttir, "w") as f:
    f.write(text.replace("%n: i32 ", "%n: i32, %b: i1, %c: i8, %d: i16, %e: i64, %f: f32 ", 1))
  wide_kernel = tt.load(wide)
  check([p.type for p in wide_kernel.params][3:] == ["i32", "i1", "i8", "i16", "i64", "fp32"],
        "a kernel declaring i1, i8, i16, i64 and f32 scalars")
  fine = dict(n=1, b=1, c=-128, d=32767, e=-2**63, f=2**70)
  hostile(tt.Error, "no image for this device",
          lambda: wide_kernel.prepare((1,), device="host", **fine),
          "in-range values reach the device check (f = 2**70 as a float)")
  for scalar, value, bounds in (("b", 2, "(0..1)"), ("b", -1, "(0..1)"), ("c", 128, "(-128..127)"),
                                ("c", -129, "(-128..127)"), ("d", 32768, "(-32768..32767)"),
                                ("d", -32769, "(-32768..32767)"),
                                ("e", 2**63, "(-9223372036854775808..9223372036854775807)")):
    hostile(tt.Error, f"scalar '{scalar}' is {wide_kernel.params[[p.name for p in wide_kernel.params].index(scalar)].type}; "
            f"{value} is out of range {bounds}",
            lambda: wide_kernel.prepare((1,), device="host", **dict(fine, **{scalar: value})),
            f"{scalar} = {value}")
  hostile(tt.Error, "scalar 'e': -9223372036854775809 does not fit in 64 bits",
          lambda: wide_kernel.prepare((1,), device="host", **dict(fine, e=-2**63 - 1)),
          "e = -2**63 - 1")
  # An unsigned i64 takes 0..2^64-1 (values from 2^63 passed as their bits, is_uint64), and no
  # negative value.
  for value in (2**63, 2**64 - 1):
    hostile(tt.Error, "no image for this device",
            lambda: wide_kernel.prepare((1,), device="host", unsigned=["e"], **dict(fine, e=value)),
            f"unsigned e = {value} reaches the device check")
  hostile(tt.Error, "scalar 'e' is i64; -1 is out of range (0..18446744073709551615)",
          lambda: wide_kernel.prepare((1,), device="host", unsigned=["e"], **dict(fine, e=-1)),
          "unsigned e = -1")
  hostile(tt.Error, "too large for a float",
          lambda: wide_kernel.prepare((1,), device="host", **dict(fine, f=10**400)), "f = 10**400")
  # More integer scalars than a grid expression can name (254, with num_warps and num_stages):
  # an expression grid is refused naming the first one left out and the limit (numbers pass on
  # to the device check).
  many = os.path.join(work, "many")
  copy_entry(source, many)
  with open(os.path.join(many, "add_kernel.ttir"), "w") as f:
    f.write(text.replace("%n: i32 ", "%n: i32, " + ", ".join(f"%p{i}: i32" for i in range(300))
                         + " ", 1))
  many_kernel = tt.load(many)
  values = dict(n=1, **{f"p{i}": 1 for i in range(300)})
  hostile(tt.Error, "integer scalar 'p253' is beyond the 254 a grid expression can name",
          lambda: many_kernel.prepare("p299", device="host", **values), "300 integer scalars")
  hostile(tt.Error, "no image for this device",
          lambda: many_kernel.prepare((1,), device="host", **values),
          "300 integer scalars with a numeric grid")
  hostile(tt.Error, "scalar 'zz': 18446744073709551616 does not fit in 64 bits",
          lambda: kernel.prepare((1,), device="host", n=1, zz=2**64), "an unknown scalar beyond int64")
  hostile(ValueError, "scalar name 'a b' is not an identifier",
          lambda: kernel.prepare((1,), device="host", n=1, **{"a b": 1}), "a scalar name with a space")
  hostile(TypeError, "neither an integer nor a float",
          lambda: kernel.prepare((1,), device="host", n="5"), "a scalar given as a string")

  # Constants (D7): integers only; bool is 1 or 0.
  hostile(TypeError, "constant BLOCK=1.9 is a float, not an integer",
          lambda: kernel.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1.9}, device="host", n=N),
          "constants={'BLOCK': 1.9}")
  hostile(TypeError, "constant BLOCK='1024' is a str",
          lambda: kernel.prepare("cdiv(n, BLOCK)", constants={"BLOCK": "1024"}, device="host", n=N),
          "a constant given as a string")
  hostile(ValueError, "constant name 'A=1,BLOCK' is not an identifier",
          lambda: kernel.prepare("cdiv(n, BLOCK)", constants={"A=1,BLOCK": 1024}, device="host", n=N),
          "a constant name that would inject another")
  hostile(ValueError, "outside the 64-bit signed range",
          lambda: kernel.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 2**63}, device="host", n=N),
          "a constant beyond int64")
  hostile(TypeError, "constants must be a dict",
          lambda: kernel.prepare("1", constants=5, device="host", n=N), "constants = 5")
  with_bool = kernel.prepare("cdiv(n, BLOCK) * EVEN", constants={"BLOCK": 1024, "EVEN": True},
                             device="host", n=N)
  out = aligned(N)
  x, y = inputs()
  with_bool(x, y, out)
  dev.synchronize()
  check(same_bits(out, x + y), "a boolean constant is 1 in the grid")

  # Strings with NUL bytes (D8) never reach C cut short.
  for label, fn in (("a grid", lambda: kernel.prepare("cdiv(n, 1024)\x00junk", device="host", n=N)),
                    ("a constants text", lambda: kernel.prepare("1", constants="BLOCK=1\x00", device="host", n=N)),
                    ("an inout name", lambda: kernel.prepare("1", device="host", inout=["out_ptr\x00x"], n=N)),
                    ("a call name", lambda: tt.prepare(kernel.variant("1"), device="host", name="a\x00b", n=N))):
    hostile(ValueError, "contains a NUL byte", fn, f"{label} with a NUL byte")
  hostile(TypeError, "must be tkrt.triton.Variant objects",
          lambda: tt.prepare([kernel], device="host", n=N), "a kernel where a variant is expected")

  # Streams (D6).
  add = kernel.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="host", n=N)
  out.fill(-1)
  for stream, kind, fragment in ((-1, ValueError, "not an integer in 0..2^64-1"),
                                 (2**64, ValueError, "not an integer in 0..2^64-1"),
                                 (True, TypeError, "stream must be an int"),
                                 (1.5, TypeError, "stream must be an int"),
                                 ("0", TypeError, "stream must be an int"),
                                 (12345, ValueError, "is not a stream of host:0")):
    hostile(kind, fragment, lambda: add(x, y, out, stream=stream), f"stream={stream!r}")
  hostile(ValueError, "is not a stream of host:0", lambda: dev.synchronize(12345), "synchronize(12345)")
  hostile(ValueError, "is not a stream of host:0", lambda: dev.destroy_stream(12345), "destroy_stream(12345)")
  hostile(ValueError, "cannot be destroyed", lambda: dev.destroy_stream(0), "destroy_stream(0)")
  stream = dev.create_stream()
  dev.destroy_stream(stream)
  hostile(ValueError, "is not a stream of host:0", lambda: add(x, y, out, stream=stream),
          "a destroyed stream")
  dev.synchronize()
  check((out == -1).all(), "no refused launch wrote anything")
  # The host backend's own check (the loaders helper's C fix), past Python's: in a child, so that
  # a crash (SIGSEGV before the fix) fails this check rather than the whole test.
  child = subprocess.run(
      [sys.executable, "-c", CHILD_STREAM, host_dir], env=dict(os.environ, PYTHONPATH=PACKAGE),
      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
  check(child.returncode == 0 and "refused: INVALID_ARGUMENT" in child.stdout,
        f"an unknown stream handle given to the C launch on the host backend is INVALID_ARGUMENT, "
        f"not a crash (exit {child.returncode}: {child.stdout.strip()[-300:]})")

  # Arrays shorter than the launch touches: refused when the caller declares the extent (the C
  # library's check, issue 32: Python reads the extents and passes them).
  sized = kernel.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="host", n=N,
                         min_elements={"x_ptr": N, "y_ptr": N, "out_ptr": N})
  out.fill(-1)
  hostile(tt.Error, f"argument 2 (out_ptr: *fp32) spans {4 * (N - 1)} bytes; the launch was "
          f"prepared with min_elements out_ptr={N} ({N} elements, {4 * N} bytes)",
          lambda: sized(x, y, out[:N - 1]), "a short output array")
  hostile(tt.Error, "argument 0 (x_ptr: *fp32) spans 0 bytes",
          lambda: sized(x[:0], y, out), "an empty input array")
  dev.synchronize()
  check((out == -1).all(), "the refused short launches wrote nothing")
  sized(x, y, out)
  dev.synchronize()
  check(same_bits(out, x + y), "arrays of the declared extent launch")
  # An expression of the integer scalars: the extent follows each launch's n.
  follows = kernel.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="host",
                           min_elements={"x_ptr": "n", "y_ptr": "n", "out_ptr": "n"})
  follows(x[:N // 2], y[:N // 2], out[:N // 2], N // 2)
  hostile(tt.Error, f"argument 2 (out_ptr: *fp32) spans {2 * N} bytes; the launch was prepared "
          f"with min_elements out_ptr=n ({N} elements, {4 * N} bytes)",
          lambda: follows(x, y, out[:N // 2], N), "an expression extent at a larger n")
  hostile(tt.Error, "min_elements names 'n', which is not a pointer parameter",
          lambda: kernel.prepare("1", device="host", n=N, min_elements={"n": 5}), "min_elements naming a scalar")
  hostile(tt.Error, "min_elements x_ptr=-1 is -1 elements",
          lambda: kernel.prepare("1", device="host", n=N, min_elements={"x_ptr": -1}), "min_elements = -1")
  hostile(tt.Error, "min_elements y_ptr=n,n",
          lambda: kernel.prepare("1", device="host", n=N, min_elements={"y_ptr": "n,n"}),
          "min_elements with two expressions")
  hostile(tt.Error, "min_elements x_ptr=m",
          lambda: kernel.prepare("1", device="host", n=N, min_elements={"x_ptr": "m"}),
          "min_elements naming no scalar")
  big = kernel.prepare("1", device="host", n=N, min_elements={"x_ptr": 5 * 2**30})
  hostile(tt.Error, "(5368709120 elements, 21474836480 bytes)", lambda: big(x, y, out),
          "min_elements beyond 2^32 elements is a count, not a grid dimension")


# Run in a child: the C launch with a stream handle Python would refuse.
CHILD_STREAM = r"""
import sys, ctypes, numpy as np
import tkrt.triton as tt
from tkrt import _lib
k = tt.load(sys.argv[1], allow_native_code=True)
add = k.prepare("cdiv(n, BLOCK)", constants={"BLOCK": 1024}, device="host", n=5000)
x = np.zeros(5000 + 64, np.float32)
args = (_lib.TritonArg * 4)()
for i in range(3):
  args[i].kind, args[i].ptr, args[i].size = _lib.ARG_POINTER, x.ctypes.data, x.nbytes
args[3].kind, args[3].i = _lib.ARG_INT, 5000
status = _lib.api().bound_launch(add._bound, 12345, args, 4, None)
if not status:
  print("accepted: the launch took stream 12345")
  sys.exit(1)
try:
  _lib.raise_status(status)
except tt.Error as e:
  print("refused:", e)
"""


if __name__ == "__main__":
  main()
