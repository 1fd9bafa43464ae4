# SPDX-License-Identifier: Apache-2.0
"""tkrt.triton_launcher where Triton is not installed (CI): install() refuses, saying so, and
leaves nothing installed; stats() starts at zero. The launcher itself runs on the GPU
(test/gpu/run_launcher.sh). Skipped (77) where Triton is importable."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)
import script_checks  # noqa: E402
from script_checks import check, expect_raises  # noqa: E402

if importlib.util.find_spec("triton") is not None:
  print("skip: Triton is installed here (the launcher is tested on the GPU)")
  sys.exit(77)
import tkrt.triton_launcher as launcher  # noqa: E402

check(launcher.SUPPORTED_TRITON == ("3.6",), f"supported releases {launcher.SUPPORTED_TRITON}")
check(launcher.stats() == {"tkrt_kernels": 0, "tkrt_launches": 0, "fallback_kernels": 0,
                           "fallback_names": []}, f"stats start at zero ({launcher.stats()})")
expect_raises(RuntimeError, "Triton is not installed in this Python", launcher.install,
              "install() without Triton")
check(not launcher.installed(), "nothing installed after the refusal")
launcher.uninstall()  # nothing to give back: a no-op
check(not launcher.installed(), "uninstall() without install() is a no-op")
sys.exit(script_checks.finish("test_launcher"))
