# SPDX-License-Identifier: Apache-2.0
# What the CLI test scripts share (sourced by cli_test.sh and trust_cli_test.sh): fail, expect
# and run_cases. They count failures in $failures and name the case running in $current.
failures=0

# fail MESSAGE: reports a failure of the current case.
fail() {
  echo "FAIL [$current]: $*" >&2
  failures=$((failures + 1))
}

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

# run_cases WHAT ALL_CASES... -- [CASE...]: runs case_<name> for each CASE named (all of
# ALL_CASES when none is), then exits 1 if any failed, else prints "all WHAT cases passed".
run_cases() {
  local what=$1 all=() cases=()
  shift
  while [ "$1" != "--" ]; do
    all+=("$1")
    shift
  done
  shift
  cases=("$@")
  [ ${#cases[@]} -gt 0 ] || cases=("${all[@]}")
  for current in "${cases[@]}"; do
    echo "== $current"
    "case_$current"
  done
  if [ "$failures" -gt 0 ]; then
    echo "$failures failure(s)" >&2
    exit 1
  fi
  echo "all $what cases passed"
}
