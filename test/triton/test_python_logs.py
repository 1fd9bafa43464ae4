# SPDX-License-Identifier: Apache-2.0
"""The library's log reaches Python's `logging` (logger "tkrt"): a real warning of the tuner (a
decision store that is a file, not a folder) from a tkrt.triton launch on the host backend, with
nothing on stderr; debug lines of module loads; a message logged on a native thread; an error of
the XLA adapter's legacy target (api_version 1, which has no error channel); levels set from
Python and refused when wrong; TKRT_LOG=foo refused naming the variable; and, unrouted, the same
warning as a line on stderr.

usage: test_python_logs.py HOST_256.so HOST_512.so HOST_1024.so
Needs TKRT_XLA_LIBRARY (libtkrt_xla.so), TKRT_LIBRARY (libtkrt.so, tkrt.triton's library) and NumPy >= 1.22; exits 77 (skipped) without NumPy.
"""
import ctypes
import logging
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import script_checks  # noqa: E402 - the scripts' own helpers (this folder)

np = script_checks.numpy_with_dlpack()

import tkrt  # noqa: E402
import tkrt.triton as tt  # noqa: E402

HOST = sys.argv[1:4]
N = 4096
from host_add import aligned, kernel_dir  # noqa: E402
from script_checks import check  # noqa: E402


class Records(logging.Handler):
  def __init__(self):
    super().__init__(logging.DEBUG)
    self.records = []

  def emit(self, record):
    self.records.append(record)

  def of(self, component, level=None):
    return [r for r in self.records if getattr(r, "tkrt_component", None) == component
            and (level is None or r.levelno == level)]


class StderrCapture:
  """The process's file descriptor 2, captured (C writes there, not to sys.stderr)."""

  def __enter__(self):
    sys.stderr.flush()
    self.file = tempfile.TemporaryFile()
    self.saved = os.dup(2)
    os.dup2(self.file.fileno(), 2)
    return self

  def __exit__(self, *exc):
    sys.stderr.flush()
    os.dup2(self.saved, 2)
    os.close(self.saved)
    self.file.seek(0)
    self.text = self.file.read().decode(errors="replace")
    self.file.close()


def tuned_launch(kernels, store):
  """Prepares the 3 variants with a tuner whose store is `store`, launches x += y once, checks."""
  tuner = tt.Tuner(store_dir=store, target_ms=1)
  variants = [k.variant("cdiv(n, BLOCK)", {"BLOCK": b}) for k, b in zip(kernels, (256, 512, 1024))]
  launch = tt.prepare(variants, device="host", inout=["x_ptr"], tuner=tuner, n=N)
  x, y = aligned(N), aligned(N)
  x[:] = np.arange(N, dtype=np.float32)
  y[:] = 2.0
  want = x + y
  launch(x, y, x)
  tt.device("host").synchronize()
  check(np.array_equal(x, want), "the tuned launch computed x + y")


def main():
  for name in ("TKRT_LOG", "TKRT_TUNE_DIR", "TKRT_TUNE_POLICY", "TKRT_TUNE_PIN"):
    os.environ.pop(name, None)
  records = Records()
  logger = logging.getLogger("tkrt")
  logger.addHandler(records)
  logger.setLevel(logging.DEBUG)
  logger.propagate = False
  work = tempfile.mkdtemp(prefix="tkrt-python-logs-")
  try:
    kernels = [tt.load(kernel_dir(work, f"v{b}", HOST[i], 2 << i), allow_native_code=True)
               for i, b in enumerate((256, 512, 1024))]
    not_a_folder = os.path.join(work, "store-file")
    with open(not_a_folder, "w") as f:
      f.write("a file, not a folder\n")

    # ---- a real warning of the tuner, routed by default: in logging, not on stderr
    with StderrCapture() as err:
      tuned_launch(kernels, not_a_folder)
    warnings = records.of("tune", logging.WARNING)
    check(len(warnings) == 1 and "tuning decision store: " in warnings[0].getMessage()
          and not_a_folder in warnings[0].getMessage(),
          f"the tuner's store warning is one WARNING record on logger 'tkrt' "
          f"({[r.getMessage() for r in warnings]})")
    check(warnings and warnings[0].name == "tkrt" and warnings[0].getMessage().startswith("tune: "),
          "the record names the component")
    check("tkrt:" not in err.text, f"nothing on stderr while routed ({err.text!r})")
    check(not records.of("host", logging.DEBUG), "debug lines stay in the library at the default level")

    # ---- debug, from the threads that load a call's modules (not Python's)
    tkrt.set_log_level("DEBUG")
    before = len(records.records)
    tuned_launch(kernels, "off")
    loads = [r for r in records.records[before:] if getattr(r, "tkrt_component", None) == "host"
             and "host image from memory" in r.getMessage()]
    check(len(loads) == 3, f"three module loads logged at debug, on threads "
          f"{sorted(set(r.threadName for r in loads))} (the loaders' or the caller's)")
    tkrt.set_log_level("warn")

    # ---- a message from a thread that Python's threading did not start (pthread_create)
    lib = tkrt.load_library()
    libc = ctypes.CDLL(None)
    lib.tkrt_log_message.restype = None

    @ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)
    def native_thread(arg):
      lib.tkrt_log_message(2, b"test", b"from a native thread %s", b"(pthread)")  # warn
      return None

    thread = ctypes.c_ulong()
    check(libc.pthread_create(ctypes.byref(thread), None, native_thread, None) == 0, "pthread_create")
    libc.pthread_join(thread, None)  # through ctypes.CDLL: the GIL is released while it waits
    # Logged on a thread without the GIL: queued in the library, delivered by tkrt's drain thread
    # or, as here, by flush_logs (a raw ctypes call is no tkrt call, which would flush itself).
    tkrt.flush_logs()
    native = records.of("test", logging.WARNING)
    check(len(native) == 1 and native[0].getMessage() == "test: from a native thread (pthread)",
          f"a message logged on a native thread is a record ({[(r.threadName, r.getMessage()) for r in native]})")

    # ---- the XLA adapter's legacy target, api_version 1: its error has only the log
    before = len(records.records)
    lib.tkrt_xla_legacy_call(None, None, b"not a call", 10, None)
    tkrt.flush_logs()  # logged with the GIL released (CDLL): queued until delivered
    errors = records.of("xla", logging.ERROR)
    check(len(records.records) == before + 1 and len(errors) == 1
          and "tkrt_triton_kernel_call_legacy" in errors[0].getMessage(),
          f"an api_version 1 error of the XLA adapter is an ERROR record "
          f"({[r.getMessage() for r in errors]})")

    # ---- levels: refused when wrong, off drops warnings
    for bad in ("loud", "", "2"):
      try:
        tkrt.set_log_level(bad)
        check(False, f"set_log_level({bad!r}) refused")
      except tkrt.ConfigurationError as e:
        check(f"'{bad}'" in str(e), f"set_log_level({bad!r}) refused naming the value ({e})")
    try:
      tkrt.configure(log="sometimes")
      check(False, "configure(log='sometimes') refused")
    except tkrt.ConfigurationError as e:
      check("log=sometimes" in str(e), f"configure(log='sometimes') refused ({e})")
    tkrt.set_log_level("off")
    before = len(records.records)
    tuned_launch(kernels, not_a_folder)
    check(len(records.records) == before, "at level off the store warning is dropped")
    tkrt.set_log_level("warn")

    # ---- TKRT_LOG: read by tkrt_options_from_environment, refused naming the variable
    os.environ["TKRT_LOG"] = "foo"
    try:
      tt.Tuner(store_dir="off")
      check(False, "TKRT_LOG=foo refused")
    except tt.Error as e:
      check("TKRT_LOG is 'foo'" in str(e) and "INVALID_ARGUMENT" in str(e),
            f"TKRT_LOG=foo refused naming the variable ({e})")
    os.environ["TKRT_LOG"] = "Info"
    tt.Tuner(store_dir="off")
    os.environ.pop("TKRT_LOG")
    # tkrt.triton's library (libtkrt.so) read it; libtkrt_xla reads it on its own first use.
    check(tkrt.load_core_library().tkrt_log_get_level() == 3,
          "TKRT_LOG=Info sets the level of tkrt.triton's library to info (3)")
    tkrt.set_log_level("warn")

    # ---- unrouted: the same warning is a line on stderr, and logging hears nothing
    tkrt.route_logs_to_python(False)
    before = len(records.records)
    with StderrCapture() as err:
      tuned_launch(kernels, not_a_folder)
    check(len(records.records) == before, "unrouted: no record")
    check(err.text.startswith("tkrt: tune: warning: tuning decision store: ") and not_a_folder in err.text,
          f"unrouted: one line on stderr ({err.text!r})")
    tkrt.route_logs_to_python(True)
  finally:
    shutil.rmtree(work, ignore_errors=True)
  return script_checks.finish("test_python_logs")


if __name__ == "__main__":
  sys.exit(main())
