# SPDX-License-Identifier: Apache-2.0
"""What the Python test scripts of test/triton (and test/gpu/torch_host_reads.py) share: check()
prints one ok/FAIL line per check and remembers the failures, expect_raises() checks an exception's
kind and text, finish() prints the summary and gives the exit status, numpy_with_dlpack() gives
NumPy or skips the script (exit 77). Imported from the scripts' own folder (Python puts a script's
folder first on sys.path)."""
import sys

failures = []
checks = 0


def tkrt_records():
  """A list that collects every record of logger "tkrt" from now on, at every level (the logger's
  level set to DEBUG, not passed on to the root logger's handlers)."""
  import logging
  records = []

  class Collect(logging.Handler):
    def emit(self, record):
      records.append(record)

  logger = logging.getLogger("tkrt")
  logger.addHandler(Collect())
  logger.setLevel(logging.DEBUG)
  logger.propagate = False
  return records


def numpy_with_dlpack():
  """NumPy, when it is installed for this Python and has __dlpack__ (1.22 or newer: tkrt.triton
  reads arrays through DLPack); otherwise the script is skipped (exit 77, CTest's SKIP code)."""
  try:
    import numpy
  except ImportError:
    print("skipped: NumPy is not installed for", sys.executable)
    sys.exit(77)
  if not hasattr(numpy.ndarray, "__dlpack__"):
    print("skipped: NumPy", numpy.__version__, "has no __dlpack__ (needs >= 1.22)")
    sys.exit(77)
  return numpy


def check(condition, label):
  global checks
  checks += 1
  print(("ok: " if condition else "FAIL: ") + label, flush=True)
  if not condition:
    failures.append(label)


def expect_raises(kind, fragment, fn, label):
  """Runs fn(), which must raise `kind` with `fragment` in its text; returns the exception."""
  try:
    fn()
  except kind as e:
    check(fragment in str(e), f"{label}: {kind.__name__} says {fragment!r} (got: {e})")
    return e
  except Exception as e:  # noqa: BLE001
    check(False, f"{label}: expected {kind.__name__} with {fragment!r}, got {type(e).__name__}: {e}")
    return e
  check(False, f"{label}: expected {kind.__name__} with {fragment!r}, nothing raised")
  return None


def finish(name):
  """Prints `name`'s summary (and every failure again); 0 when every check passed, else 1."""
  print()
  if failures:
    print(f"{name}: {len(failures)} of {checks} checks FAILED")
    for f in failures:
      print("  " + f)
    return 1
  print(f"{name}: all {checks} checks passed")
  return 0
