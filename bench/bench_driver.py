# SPDX-License-Identifier: Apache-2.0
"""Runs a tkrt_bench subcommand inside this Python process with jaxlib's legacy Triton custom call.

jaxlib's `triton_kernel_call` entry point is only reachable through Python
(`jax._src.lib.gpu_triton.get_custom_call()` returns it in a PyCapsule), so this driver takes the
raw function pointer out of the capsule, loads libtkrt_bench.so with ctypes and calls its
`bench_main`, which measures paths (a) to (d) of `launch` (or jaxlib's tuning in `tune`) in one
process, on the same stream, buffers and blob.

    python3 bench/bench_driver.py BUILD/bench/libtkrt_bench.so launch --json out.json ...
"""

import ctypes
import os
import sys


def jaxlib_custom_call():
  """(pointer, why_not): jaxlib's legacy triton_kernel_call, or 0 and the reason."""
  try:
    from jax._src.lib import gpu_triton  # noqa: PLC0415 - only when asked for
  except Exception as e:  # noqa: BLE001 - any import failure means "not measured"
    return 0, f"jax._src.lib.gpu_triton does not import: {e}"
  getter = getattr(gpu_triton, "get_custom_call", None)
  if getter is None:
    cuda = getattr(gpu_triton, "_cuda_triton", None)
    getter = getattr(cuda, "get_custom_call", None)
  if getter is None:
    return 0, "jaxlib's gpu_triton has no get_custom_call"
  capsule = getter()
  api = ctypes.pythonapi
  api.PyCapsule_GetName.restype = ctypes.c_char_p
  api.PyCapsule_GetName.argtypes = [ctypes.py_object]
  api.PyCapsule_GetPointer.restype = ctypes.c_void_p
  api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
  # The capsule's name (XLA uses "xla._CUSTOM_CALL_TARGET") must be passed back exactly.
  name = api.PyCapsule_GetName(capsule)
  pointer = api.PyCapsule_GetPointer(capsule, name)
  if not pointer:
    return 0, f"the capsule (name {name!r}) holds no pointer"
  print(f"bench_driver: jaxlib triton_kernel_call at {pointer:#x} (capsule {name.decode()!r})",
        flush=True)
  return pointer, None


def main(argv):
  if len(argv) < 3:
    print(__doc__, file=sys.stderr)
    return 2
  library, args = argv[1], argv[2:]
  # jaxlib reports its autotuning choice with absl LOG(INFO): let INFO through (before jax loads).
  os.environ["TF_CPP_MIN_LOG_LEVEL"] = "0"
  pointer, why = jaxlib_custom_call()
  lib = ctypes.CDLL(os.path.abspath(library), mode=os.RTLD_NOW | os.RTLD_LOCAL)
  lib.bench_main.restype = ctypes.c_int
  lib.bench_main.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.c_void_p,
                             ctypes.c_char_p]
  words = [b"tkrt_bench"] + [a.encode() for a in args]
  c_argv = (ctypes.c_char_p * (len(words) + 1))(*words, None)
  sys.stdout.flush()
  rc = lib.bench_main(len(words), c_argv, pointer or None, why.encode() if why else None)
  return rc


if __name__ == "__main__":
  sys.exit(main(sys.argv))
