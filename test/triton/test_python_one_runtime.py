# SPDX-License-Identifier: Apache-2.0
"""One tkrt per process (issue 32): JAX's targets (libtkrt_xla.so), tkrt.triton and the C API share
one libtkrt, so one default runtime: its devices, its tuner and decisions, its settings table and
its log. On the host backend:

- one libtkrt.so is mapped, and libtkrt_xla.so resolves tkrt's API to it;
- tkrt.configure (libtkrt_xla's tkrt_xla_configure) and tkrt.triton.configure write one settings
  table (each one's value read back through the C API's tkrt_runtime_get_options);
- an autotuned call prepared by tkrt.triton, serialized (tkrt_wire_encode) and launched through the
  XLA legacy target, is decided there; tkrt.triton's launch of the same call then takes that
  decision (the same report, the same measured times: nothing benchmarked again), and the device
  the target opened is the one tkrt.triton uses (one device opened in the process).

usage: test_python_one_runtime.py HOST_256.so HOST_512.so HOST_1024.so
Needs TKRT_XLA_LIBRARY (and TKRT_LIBRARY) and NumPy >= 1.22 (else exits 77, skipped).
"""
import ctypes
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import script_checks  # noqa: E402 - the scripts' own helpers (this folder)

np = script_checks.numpy_with_dlpack()

from host_add import BLOCKS, aligned, kernel_dirs  # noqa: E402
from script_checks import check  # noqa: E402

import tkrt  # noqa: E402
import tkrt.exchange as tx  # noqa: E402
import tkrt.triton as tt  # noqa: E402
from tkrt import _lib  # noqa: E402

N = 20000


def runtime_options(core):
  """The default runtime's device and tuner options, read through the C API."""
  device = _lib.versioned(_lib.DeviceOptions, core.tkrt_device_options_init)
  tuner = _lib.versioned(_lib.TunerOptions, core.tkrt_autotuner_options_init)
  core.tkrt_runtime_get_options(core.tkrt_runtime_default(), ctypes.addressof(device),
                                ctypes.addressof(tuner))
  return device, tuner


def main():
  for name in ("TKRT_TUNE_DIR", "TKRT_TUNE_POLICY", "TKRT_TUNE_PIN", "TKRT_BACKEND"):
    os.environ.pop(name, None)
  core, xla = tkrt.load_core_library(), tkrt.load_library()
  core.tkrt_runtime_default.restype = ctypes.c_void_p
  core.tkrt_runtime_get_options.argtypes = [ctypes.c_void_p] * 3
  core.tkrt_runtime_get_options.restype = None
  core.tkrt_runtime_set_options.argtypes = [ctypes.c_void_p] * 3
  core.tkrt_runtime_set_options.restype = ctypes.c_void_p
  core.tkrt_device_options_init.argtypes = [ctypes.c_void_p]
  core.tkrt_autotuner_options_init.argtypes = [ctypes.c_void_p]

  # ---- one library
  mapped = {line.split()[-1] for line in open("/proc/self/maps") if "/libtkrt.so" in line}
  check(len(mapped) == 1, f"one libtkrt.so mapped ({sorted(mapped)})")
  address = lambda lib, name: ctypes.cast(getattr(lib, name), ctypes.c_void_p).value  # noqa: E731
  check(address(xla, "tkrt_runtime_default") == address(core, "tkrt_runtime_default"),
        "libtkrt_xla.so resolves tkrt's API to the libtkrt tkrt.triton loaded")

  # ---- one settings table: each API's value read back through the other and the C API
  tt.configure(tune_dir="off", target_ms=1)
  tkrt.configure(tune_prune_margin="-1", backend="host")  # backend: the XLA targets' own list
  device, tuner = runtime_options(core)
  check(tuner.store_dir == b"off" and tuner.prune_margin == -1.0 and tuner.target_ms == 1.0,
        f"tt.configure and tkrt.configure wrote one table (store {tuner.store_dir!r}, prune "
        f"margin {tuner.prune_margin}, target {tuner.target_ms} ms)")
  # Host images in a serialized call load only with consent, which no setting gives: the C API.
  device.allow_native_code_from_calls = True
  device.backend = b"host"
  status = core.tkrt_runtime_set_options(core.tkrt_runtime_default(), ctypes.addressof(device),
                                         ctypes.addressof(tuner))
  check(not status, "the default runtime takes host images from calls (before any device opens)")

  work = tempfile.mkdtemp(prefix="tkrt-one-runtime-")
  try:
    kernels = [tt.load(folder, allow_native_code=True) for folder in kernel_dirs(work, HOST)]
    variants = [k.variant("cdiv(n, BLOCK)", {"BLOCK": b}) for k, b in zip(kernels, BLOCKS)]
    launch = tt.prepare(variants, device="host", n=N)  # the default runtime's tuner
    # The same call, serialized as jaxlib's custom call carries it.
    core.tkrt_wire_encode.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                      ctypes.POINTER(ctypes.c_void_p),
                                      ctypes.POINTER(ctypes.c_size_t)]
    core.tkrt_wire_encode.restype = ctypes.c_void_p
    core.tkrt_wire_free.argtypes = [ctypes.c_void_p]
    data, size = ctypes.c_void_p(), ctypes.c_size_t()
    status = core.tkrt_wire_encode(launch._call, None, ctypes.byref(data), ctypes.byref(size))
    check(not status, "tkrt_wire_encode of tkrt.triton's call")
    blob = ctypes.string_at(data, size.value)
    core.tkrt_wire_free(data)

    # ---- decided through the XLA legacy target (api_version 1: errors go to the log)
    x, y, out = aligned(N), aligned(N), aligned(N)
    x[:] = np.arange(N, dtype=np.float32)
    y[:] = 0.5
    out.fill(np.nan)
    buffers = (ctypes.c_void_p * 3)(x.ctypes.data, y.ctypes.data, out.ctypes.data)
    xla.tkrt_xla_legacy_call.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p,
                                         ctypes.c_size_t, ctypes.c_void_p]
    xla.tkrt_xla_legacy_call.restype = None
    xla.tkrt_xla_legacy_call(None, buffers, blob, len(blob), None)
    tt.device("host").synchronize()
    tkrt.flush_logs()
    check(np.array_equal(out, x + y), "the XLA target launched the call: out == x + y")
    by_xla = tx.xla_tune_report(blob, max_configs=3)
    check(by_xla["source"] == "tuned" and all(t >= 0 for t in by_xla["times_ms"]),
          f"the XLA target tuned it ({by_xla['source']}, {by_xla['times_ms']})")

    # ---- tkrt.triton's launch of the same call takes that decision
    out2 = aligned(N)
    launch(x, y, out2)
    by_triton = launch.tune_report()
    check(np.array_equal(out2, x + y), "tkrt.triton's launch computed x + y")
    check(by_triton["source"] == by_xla["source"] and by_triton["chosen"] == by_xla["chosen"]
          and by_triton["times_ms"] == by_xla["times_ms"],
          f"tkrt.triton's launch took the XLA target's decision, benchmarking nothing "
          f"(config {by_triton['chosen']}, times {by_triton['times_ms']} == {by_xla['times_ms']})")
    check(tkrt.stats()["devices_opened"] == 1,
          f"one device opened in the process ({tkrt.stats()['devices_opened']}): the target's is "
          f"tkrt.triton's")
  finally:
    shutil.rmtree(work, ignore_errors=True)
  return script_checks.finish("test_python_one_runtime")


HOST = sys.argv[1:4]
if __name__ == "__main__":
  sys.exit(main())
