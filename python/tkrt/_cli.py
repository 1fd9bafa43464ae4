# SPDX-License-Identifier: Apache-2.0
"""The wheel's `tkrt` console command: replaces this Python process with the tkrt tool the wheel
carries (tkrt/bin/tkrt, which finds its library in tkrt/lib), so arguments, standard streams,
signals and the exit status are the tool's own. `tkrt --help` lists what it does."""

import os
import sys

__all__ = ["TOOL", "main"]

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "tkrt")


def main(argv=None):
  """Runs TOOL with argv (default: this command's arguments); returns only when it cannot."""
  args = sys.argv[1:] if argv is None else list(argv)
  if not os.path.isfile(TOOL):
    print(f"tkrt: {TOOL} does not exist: this copy of the tkrt package has no command-line tool "
          f"(the wheel carries one; cmake --install puts it in <prefix>/bin/tkrt)", file=sys.stderr)
    return 127
  sys.stdout.flush()
  sys.stderr.flush()
  try:
    os.execv(TOOL, ["tkrt"] + args)
  except OSError as e:
    print(f"tkrt: cannot run {TOOL}: {e.strerror or e}", file=sys.stderr)
    return 126
  return 126  # not reached: execv returns only by raising


if __name__ == "__main__":
  sys.exit(main())
