# SPDX-License-Identifier: Apache-2.0
# The CLI test scripts' shared check (sourced by cli_test.sh and trust_cli_test.sh, which define
# fail MESSAGE).
# expect RC PATTERN... -- COMMAND...: runs COMMAND with no input under a timeout of
# $EXPECT_TIMEOUT seconds (default 60; running past it is a hang, a failure), checks its exit code
# and that its output (stdout + stderr, in the order written) contains every PATTERN (fixed
# strings; a pattern starting with '!' must NOT appear).
expect() {
  local rc=$1
  shift
  local patterns=()
  while [ "$1" != "--" ]; do
    patterns+=("$1")
    shift
  done
  shift
  local out got
  out=$(timeout "${EXPECT_TIMEOUT:-60}" "$@" 2>&1 </dev/null)
  got=$?
  if [ "$got" = 124 ]; then
    fail "timed out (hang): $*"
    return
  fi
  if [ "$got" != "$rc" ]; then
    fail "exit $got, expected $rc: $*"$'\n'"$out"
    return
  fi
  local p
  for p in "${patterns[@]}"; do
    if [ "${p:0:1}" = '!' ]; then
      if grep -qF -- "${p:1}" <<<"$out"; then fail "output has '${p:1}': $*"$'\n'"$out"; fi
    elif ! grep -qF -- "$p" <<<"$out"; then
      fail "output lacks '$p': $*"$'\n'"$out"
    fi
  done
}
