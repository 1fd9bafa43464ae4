# SPDX-License-Identifier: Apache-2.0
# What bench/run_gpu.sh and bench/run_perf.sh share; sourced, not run. After
#   root=...; bench_setup LOG_NAME DEFAULT_OUT "$@"
# the caller has $out (created; $OUT or DEFAULT_OUT), $vectors ($1 or test/data/jaxlib-0.11.2), $jobs,
# $python, $tables (emptied), stdout and stderr copied into $out/LOG_NAME, TKRT_BENCH_COMMIT and
# XLA_PYTHON_CLIENT_PREALLOCATE=false exported, and failures=0; then
#   bench_check_vectors   (exits when the jaxlib vectors are missing)
#   step NAME LIMIT COMMAND...   (runs a benchmark, under `timeout LIMIT` unless LIMIT is 0,
#                                 prints its output and appends its table to $tables)

bench_setup() {
  local log_name="$1" default_out="$2"
  shift 2
  out="${OUT:-$default_out}"
  vectors="${1:-$root/test/data/jaxlib-0.11.2}"
  jobs="${TKRT_BENCH_JOBS:-$(nproc 2>/dev/null || echo 8)}"
  python="${PYTHON:-python3}"
  mkdir -p "$out"
  tables="$out/tables.txt"
  : > "$tables"
  exec > >(tee "$out/$log_name") 2>&1
  tee_pid="${!:-}"
  trap 'exec 1>&- 2>&-; [[ -z "$tee_pid" ]] || wait "$tee_pid" 2>/dev/null || true' EXIT
  export TKRT_BENCH_COMMIT="${TKRT_BENCH_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  export XLA_PYTHON_CLIENT_PREALLOCATE=false
  failures=0
}

bench_check_vectors() {
  if [[ ! -f "$vectors/add_f32/call.pb.z" ]]; then
    echo "no vectors in $vectors (no add_f32/call.pb.z): give a folder like test/data/jaxlib-0.11.2"
    exit 1
  fi
}

step() {
  local name="$1" limit="$2" rc=0
  shift 2
  echo
  if [[ $limit == 0 ]]; then
    echo "==> $name: $*"
    "$@" > "$out/step.txt" 2>&1 || rc=$?
  else
    echo "==> $name (at most $limit s): $*"
    timeout --kill-after=10 "$limit" "$@" > "$out/step.txt" 2>&1 || rc=$?
  fi
  cat "$out/step.txt"
  { echo "## $name$([[ $rc == 0 ]] || echo " (exit $rc$([[ $rc == 124 ]] && echo ": timed out"))")"
    grep -v '^bench_driver:\|^==> ' "$out/step.txt" | grep -v '^I0000\|^W0000' | tail -n 90
    echo; } >> "$tables"
  rm -f "$out/step.txt"
  [[ $rc == 0 ]] || failures=$((failures + 1))
}
