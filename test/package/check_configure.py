# SPDX-License-Identifier: Apache-2.0
"""tkrt.configure / configure_tuning reach libtkrt_xla's settings (tkrt_xla_configure), on a
machine without a GPU or JAX: good values are taken, bad names and values raise
ConfigurationError naming them. Usage: check_configure.py LIBTKRT_XLA PYTHON_PACKAGE_DIR
"""
import os
import sys

library, package_dir = sys.argv[1], sys.argv[2]
os.environ["TKRT_XLA_LIBRARY"] = library
sys.path.insert(0, package_dir)
import tkrt  # noqa: E402 - the package from the source tree, with the library given

failures = []


def refused(call, needle):
  try:
    call()
  except tkrt.ConfigurationError as e:
    if needle not in str(e):
      failures.append(f"the error '{e}' does not name {needle!r}")
    return
  failures.append(f"{needle!r}: accepted, expected ConfigurationError")


tkrt.configure_tuning(tune_dir="off", pin="*=0", policy="never", capture_policy="error",
                      prune_margin=-1)
tkrt.configure_tuning(prune_margin=0.5)
tkrt.configure(tune_prune_margin=None, tune_policy=None, tune_pin=None)
refused(lambda: tkrt.configure(tune_prune_margin="0.1x"), "tune_prune_margin=0.1x")
refused(lambda: tkrt.configure(tune_prune_margin="nan"), "tune_prune_margin=nan")
refused(lambda: tkrt.configure_tuning(policy="sometimes"), "tune_policy=sometimes")
refused(lambda: tkrt.configure(no_such_setting="1"), "no_such_setting")
if failures:
  sys.exit("FAIL:\n  " + "\n  ".join(failures))
print("ok: configure and configure_tuning take good values and refuse bad ones by name")
