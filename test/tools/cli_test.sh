#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The tkrt CLI's behaviour end to end (issue 16): argument parsing (getopt_long), --version,
# info --json, TKRT_BACKEND, case.json, --save, dump --json's UTF-8, error order and wording.
# Each case runs in a private temporary folder and checks exit codes and output.
#   cli_test.sh TKRT EXAMPLE_CASES TRUST_CASES SOURCE_DIR TRITON_ADD_DIR [CASE...]
# EXAMPLE_CASES: examples/cases (host calls); TRUST_CASES: make_trust_calls' output; SOURCE_DIR:
# the checkout (examples/calls/inplace.ptx); the jaxlib calls carrying only PTX come from
# $TKRT_TEST_VECTORS_DIR (CTest sets it from TKRT_TEST_DATA_DIR), else test/data/jaxlib-0.11.2;
# TRITON_ADD_DIR: examples/triton_add/add_kernel (Triton's add_kernel with a host image; its case
# is skipped when absent). With CASE names, runs only those (each is one CTest test,
# tools.cli.<case>).
set -uo pipefail
tkrt=$1 examples=$2 trust=$3 source=$4 triton_add=$5
shift 5
vectors="${TKRT_TEST_VECTORS_DIR:-$source/test/data/jaxlib-0.11.2}"
work=$(mktemp -d "${TMPDIR:-/tmp}/tkrt-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset TKRT_BACKEND TKRT_TUNE_DIR TKRT_TUNE_PIN TKRT_TRUST_SHARED_STORES
export TKRT_TUNE_DIR=off
# fail, expect RC PATTERN... -- COMMAND... (60 s at most), run_cases.
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

# json_check COMMAND...: stdout must be valid JSON (python3 -m json.tool); left in $json.
json_check() {
  json=$(timeout 60 "$@" 2>"$work/stderr")
  local rc=$?
  [ "$rc" = 0 ] || { fail "exit $rc: $* ($(cat "$work/stderr"))"; return; }
  python3 -m json.tool <<<"$json" >/dev/null || fail "not valid JSON: $*"$'\n'"$json"
}

# json_get EXPR: evaluates the Python expression on the parsed $json (as j).
json_get() {
  python3 -c 'import json, sys; j = json.loads(sys.stdin.read()); print(eval(sys.argv[1]))' "$1" \
    <<<"$json"
}

# ---------------------------------------------------------------- getopt_long

case_options() {
  local v="$examples/vector_add"
  # --opt=value and --opt value mean the same.
  expect 0 "matches bit for bit" "mean of 3 launches" -- "$tkrt" run "$v" --iterations=3 \
    --backend=host --allow-native-code
  expect 0 "mean of 2 launches" -- "$tkrt" run --iterations 2 --backend host "$v" --allow-native-code
  expect 0 "decided by: pinned" -- "$tkrt" run "$examples/autotuned_inplace" --pin=1 --store=off \
    --iterations=0 --allow-native-code
  expect 0 "within tolerance" "rtol 1e-06" -- "$tkrt" run "$v" --rtol=1e-6 --dtype=f32 \
    --iterations=0 --allow-native-code
  expect 0 "decision NOT stored" -- "$tkrt" tune "$examples/autotuned_inplace" --store=off \
    --target-ms=0.5 --max-iterations=5 --allow-native-code
  # Pruning: the table says which configs were dropped after the first round, and a negative
  # margin (flag or TKRT_TUNE_PRUNE_MARGIN) times every config fully.
  expect 0 "in two rounds" "timed launches in all" -- "$tkrt" tune "$examples/autotuned_inplace" \
    --store=off --target-ms=1000 --max-iterations=40 --prune-margin=0.25 --allow-native-code
  expect 0 "(40 timed launches per config)" "!pruned" -- "$tkrt" tune \
    "$examples/autotuned_inplace" --store=off --target-ms=1000 --max-iterations=40 \
    --prune-margin=-1 --allow-native-code
  expect 0 "(40 timed launches per config)" "!in two rounds" -- env TKRT_TUNE_PRUNE_MARGIN=-1 \
    "$tkrt" tune "$examples/autotuned_inplace" --store=off --target-ms=1000 --max-iterations=40 \
    --allow-native-code
  expect 3 "TKRT_TUNE_PRUNE_MARGIN is 'lots'" -- env TKRT_TUNE_PRUNE_MARGIN=lots "$tkrt" tune \
    "$examples/autotuned_inplace" --store=off --allow-native-code
  expect 2 "bad --prune-margin 'x'" -- "$tkrt" tune "$examples/autotuned_inplace" --prune-margin=x
  expect 2 "unknown option '--prune-margin'" -- "$tkrt" run "$examples/autotuned_inplace" \
    --prune-margin=1
  # Unknown options, abbreviations, missing and unwanted values: exit 2 naming the option.
  expect 2 "unknown option '--frobnicate'" -- "$tkrt" run "$v" --frobnicate
  expect 2 "unknown option '--frobnicate'" -- "$tkrt" run "$v" --frobnicate=1
  expect 2 "unknown option '-x'" -- "$tkrt" run "$v" -x
  expect 2 "unknown option '--iter'" "did you mean --iterations?" -- "$tkrt" run "$v" --iter=3
  expect 2 "--iterations needs a value" -- "$tkrt" run "$v" --iterations
  expect 2 "--allow-native-code takes no value (got 'yes')" -- "$tkrt" run "$v" \
    --allow-native-code=yes
  expect 2 "bad --iterations 'x'" -- "$tkrt" run "$v" --iterations=x
  expect 2 "unknown option '--iterations'" -- "$tkrt" tune "$v" --iterations 3
  expect 2 "unexpected argument 'extra'" -- "$tkrt" run "$v" extra
  expect 2 "unknown option '--frobnicate'" -- "$tkrt" info --frobnicate
  expect 2 "unknown option '--js'" -- "$tkrt" dump "$v" --js
  expect 2 "--image needs a value" -- "$tkrt" info --image
  # `--` ends the options: a call named like an option.
  mkdir -p "$work/-odd" && cp "$v"/* "$work/-odd/"
  expect 0 "matches bit for bit" -- "$tkrt" run --iterations=0 --allow-native-code -- "$work/-odd"
  expect 0 "plain call" -- "$tkrt" dump -- "$work/-odd"
  # help and version
  expect 0 "--version" "--opt=value" -- "$tkrt" --help
  expect 0 "tkrt 0." -- "$tkrt" --version
  expect 0 "usage: tkrt run" -- "$tkrt" run -h
}

case_triton_options() {
  if [ ! -f "$triton_add/cuda_sm90/add_kernel.json" ]; then
    echo "skip: $triton_add has no Triton add_kernel (the Triton 3.6 vectors are absent)"
    return
  fi
  local args=(--arg=x_ptr=zeros:400 --arg y_ptr=zeros:400 --arg=out_ptr=zeros:400 --arg=n=100)
  expect 0 "variant 0: grid 1 x 1 x 1" "timing: " -- "$tkrt" run "$triton_add" \
    "--grid=cdiv(n, BLOCK)" --const=BLOCK=1024 "${args[@]}" --backend=host --iterations=2 --allow-native-code
  expect 2 "unknown option '--in'" "did you mean --inout?" -- "$tkrt" run "$triton_add" \
    --grid 1 "${args[@]}" --in out_ptr
  expect 2 "unknown option '--frobnicate'" -- "$tkrt" run "$triton_add" --grid 1 --frobnicate
  # The options run and tune share with serialized calls are checked by the same code.
  expect 2 "bad --policy 'sometimes' (auto or never)" -- "$tkrt" run "$triton_add" --grid 1 \
    --policy sometimes
  expect 2 "bad --iterations '99999999999' (a whole number from 0 to 1000000)" -- \
    "$tkrt" run "$triton_add" --grid 1 --iterations 99999999999
  expect 2 "bad --max-iterations '0' (1 to 1000000)" -- "$tkrt" tune "$triton_add" --grid 1 \
    --max-iterations 0
  expect 0 "Triton kernel add_kernel" -- "$tkrt" info "--image=$triton_add"
  expect 2 "--json describes backends and image files" -- "$tkrt" info --image "$triton_add" --json
  expect 0 "tkrt run KERNEL" -- "$tkrt" help triton
}

# ---------------------------------------------------------------- info

case_info_json() {
  json_check "$tkrt" info --json
  [ "$(json_get 'j["backends"][0]["name"]')" = cuda ] || fail "default order: cuda first: $json"
  local host
  host=$(json_get '[b for b in j["backends"] if b["name"] == "host"][0]')
  grep -q "'available': True" <<<"$host" || fail "host is not available: $host"
  [ "$(json_get '[b for b in j["backends"] if b["name"] == "host"][0]["devices"][0]["arch"]')" = \
    "$(uname -m)" ] || fail "host device arch: $json"
  json_get '[b for b in j["backends"] if b["name"] == "host"][0]["devices"][0]["limits"]["warp_size"]' \
    >/dev/null || fail "no limits.warp_size: $json"
  [ "$(json_get 'type(j["backends"][0]["devices"][0]["features"]) if j["backends"][0]["devices"] else list')" \
    = "<class 'list'>" ] || fail "features is not a list"
  # An image, as JSON.
  json_check "$tkrt" info --json --image "$source/examples/calls/inplace.ptx"
  [ "$(json_get 'j["kind"]')" = ptx ] || fail "inplace.ptx kind: $json"
  [ "$(json_get 'j["target"]')" = sm_80 ] || fail "inplace.ptx target: $json"
  [ "$(json_get 'j["kernel_count"] == len(j["kernels"]) > 0')" = True ] || fail "kernels: $json"
  expect 3 "INVALID_ARGUMENT" -- "$tkrt" info --json --image "$trust/tkrt_field/in0.bin"
}

case_info_backend_env() {
  # TKRT_BACKEND=host: host is listed first, in text and JSON.
  local first
  first=$(TKRT_BACKEND=host "$tkrt" info | sed -n 's/^\([a-z]*\): \(un\)\{0,1\}available.*/\1/p' | head -n1)
  [ "$first" = host ] || fail "TKRT_BACKEND=host: first backend listed is '$first'"
  json_check env TKRT_BACKEND=host "$tkrt" info --json
  [ "$(json_get 'j["backends"][0]["name"]')" = host ] || fail "TKRT_BACKEND=host JSON: $json"
  json_check env TKRT_BACKEND=hip,host "$tkrt" info --json
  [ "$(json_get '",".join(b["name"] for b in j["backends"])')" = hip,host,cuda ] ||
    fail "TKRT_BACKEND=hip,host order: $json"
  # An unknown backend is an error naming the variable and the value.
  expect 3 "INVALID_ARGUMENT" "TKRT_BACKEND=bogus" "unknown backend 'bogus'" -- \
    env TKRT_BACKEND=bogus "$tkrt" info
  expect 3 "TKRT_BACKEND=bogus" -- env TKRT_BACKEND=bogus "$tkrt" info --json
}

# info on Triton output prints strings from the kernel's files and a cache's folder names escaped
# (\xNN, as dump does): a JSON whose hash and triton_version hold terminal escapes, a HIP JSON
# whose target.arch does, and a cache folder named with one (issue 23, D4).
case_info_escapes() {
  if [ ! -f "$triton_add/cuda_sm90/add_kernel.json" ]; then
    echo "skip: $triton_add has no Triton add_kernel"
    return
  fi
  cp -r "$triton_add/cuda_sm90" "$work/k" && cp -r "$triton_add/hip_gfx942" "$work/h"
  python3 - "$work" <<'PY'
import json, sys
for sub, edit in (("k", lambda d: d.update(hash="\x1b[2J" + d["hash"], triton_version="3.6.0\x1b]0;t\x07")),
                  ("h", lambda d: d["target"].update(arch="gfx942\x1b[2J"))):
    path = sys.argv[1] + "/" + sub + "/add_kernel.json"
    d = json.load(open(path))
    edit(d)
    json.dump(d, open(path, "w"))
PY
  local out
  out=$("$tkrt" info --image "$work/k" 2>&1)
  grep -qF '(hash \x1b[2J26d88513' <<<"$out" || fail "hash not escaped: $out"
  grep -qF 'triton 3.6.0\x1b]0;t\x07' <<<"$out" || fail "triton_version not escaped: $out"
  if grep -q $'\x1b' <<<"$out"; then fail "info --image wrote a raw escape byte: $out"; fi
  out=$("$tkrt" info --image "$work/h" 2>&1)
  grep -qF 'gfx942\x1b[2J' <<<"$out" || fail "HIP arch not escaped: $out"
  if grep -q $'\x1b' <<<"$out"; then fail "info --image (HIP) wrote a raw escape byte: $out"; fi
  mkdir -p "$work/cache/"$'\x1b[2Jx'
  cp "$work/k/add_kernel.json" "$work/k/add_kernel.cubin" "$work/cache/"$'\x1b[2Jx/'
  out=$("$tkrt" info --triton-cache "$work/cache" 2>&1)
  grep -qF "$work/cache/\x1b[2Jx/add_kernel.json" <<<"$out" || fail "cache folder not escaped: $out"
  if grep -q $'\x1b' <<<"$out"; then fail "info --triton-cache wrote a raw escape byte: $out"; fi
}

# ---------------------------------------------------------------- errors

case_errors() {
  # Piped together, stdout's lines come before the error that followed them.
  "$tkrt" run "$examples/vector_add" --backend host --iterations 0 >"$work/both" 2>&1
  local device error
  device=$(grep -n '^device:' "$work/both" | cut -d: -f1)
  error=$(grep -n '^tkrt run: PERMISSION_DENIED' "$work/both" | cut -d: -f1)
  [ -n "$device" ] && [ -n "$error" ] && [ "$device" -lt "$error" ] ||
    fail "the device line does not come before the error: $(cat "$work/both")"
  "$tkrt" run "$vectors/add_f32" --backend host --iterations 0 2>&1 | cat >"$work/piped"
  device=$(grep -n '^device:' "$work/piped" | cut -d: -f1)
  error=$(grep -n '^tkrt run: INVALID_ARGUMENT' "$work/piped" | cut -d: -f1)
  [ -n "$device" ] && [ -n "$error" ] && [ "$device" -lt "$error" ] ||
    fail "piped: the device line does not come before the error: $(cat "$work/piped")"
  # A context that repeats the message it wraps is said once.
  expect 3 "kernel 'add_kernel': no image for this device (host" \
    "!kernel 'add_kernel': kernel 'add_kernel'" -- "$tkrt" run "$vectors/add_f32" --backend host
  # A folder without a call: both names, no doubled slash.
  mkdir -p "$work/nocall"
  expect 3 "NOT_FOUND" "$work/nocall/ holds no serialized call" "call.pb.z" "call.pb " "!//" -- \
    "$tkrt" run "$work/nocall/"
  expect 3 "NOT_FOUND" "neither call.pb.z nor call.pb" -- "$tkrt" dump "$work/nocall"
  expect 3 "NOT_FOUND" "neither call.pb.z nor call.pb" -- "$tkrt" tune "$work/nocall"
}

# ---------------------------------------------------------------- --json, timing, numbering

# run --json and tune --json (issue 27): stdout is one JSON object (the lines for people go to
# stderr), with the decision, every config's time and launches, the outputs and the timing
# (median, min, p90, mean and the launch counts).
case_json_output() {
  local a="$examples/autotuned_inplace"
  json_check "$tkrt" run "$examples/vector_add" --json --iterations 7 --allow-native-code
  [ "$(json_get 'j["command"], j["result"], j["decision"]["source"], j["decision"]["config"]')" = \
    "('run', 'ok', 'single', 0)" ] || fail "run --json: $json"
  [ "$(json_get 'j["outputs"][0]["matches"], j["outputs"][0]["bytes"]')" = "(True, 400012)" ] ||
    fail "run --json outputs: $json"
  [ "$(json_get 'j["timing"]["launches"], j["timing"]["samples"], j["timing"]["launches_per_sample"]')" = \
    "(7, 7, [1, 1])" ] || fail "run --json timing counts: $json"
  [ "$(json_get 'all(j["timing"][k] >= 0 for k in ("mean_ms", "median_ms", "min_ms", "p90_ms")) and j["timing"]["min_ms"] <= j["timing"]["median_ms"] <= j["timing"]["p90_ms"]')" = True ] ||
    fail "run --json timing: $json"
  grep -q '^device: host' "$work/stderr" || fail "run --json: the text report is not on stderr"
  # --iterations 0: no timing (null).
  json_check "$tkrt" run "$examples/vector_add" --json --iterations 0 --allow-native-code
  [ "$(json_get 'j["timing"]')" = None ] || fail "run --json --iterations 0: $json"
  # tune: every config with its mean and launch count; the chosen one marked; pinned run.
  json_check "$tkrt" tune "$a" --json --store off --target-ms 1000 --max-iterations 16 \
    --prune-margin -1 --allow-native-code
  [ "$(json_get 'j["command"], j["decision"]["source"], j["decision"]["config_count"], len(j["configs"])')" = \
    "('tune', 'tuned', 3, 3)" ] || fail "tune --json: $json"
  [ "$(json_get 'all(c["mean_ms"] is not None and c["launches"] == 16 for c in j["configs"])')" = True ] ||
    fail "tune --json configs: $json"
  [ "$(json_get '[c["index"] for c in j["configs"] if c["chosen"]] == [j["decision"]["config"]]')" = True ] ||
    fail "tune --json chosen: $json"
  json_check "$tkrt" run "$a" --json --pin 2 --store off --iterations 3 --allow-native-code
  [ "$(json_get 'j["decision"]["source"], j["decision"]["config"], j["timing"]["launches"]')" = \
    "('pinned', 2, 3)" ] || fail "run --json --pin 2: $json"
  # A mismatch: exit 1, the JSON says so.
  json=$("$tkrt" run "$examples/vector_add" --json --iterations 0 --allow-native-code \
    --expect "$examples/vector_add/in0.bin" 2>/dev/null)
  [ $? = 1 ] || fail "run --json with a mismatch: exit code"
  [ "$(json_get 'j["result"], j["outputs"][0]["matches"]')" = "('mismatch', False)" ] ||
    fail "run --json mismatch: $json"
  # The text: median, min, p90 and mean with their launch counts.
  expect 0 "mean of 5 launches, device events); median" "min " "p90 " "over 5 samples of 1 launch" \
    -- "$tkrt" run "$examples/vector_add" --iterations 5 --allow-native-code
  # Triton's output, when present.
  if [ -f "$triton_add/cuda_sm90/add_kernel.json" ]; then
    json_check "$tkrt" run "$triton_add" --grid 'cdiv(n, BLOCK)' --const BLOCK=1024 \
      --arg x_ptr=zeros:400 --arg y_ptr=zeros:400 --arg out_ptr=zeros:400 --arg n=100 \
      --backend host --iterations 4 --allow-native-code --json
    [ "$(json_get 'j["kernel"], j["decision"]["source"], j["timing"]["launches"], len(j["configs"])')" = \
      "('add_kernel', 'single', 4, 1)" ] || fail "triton run --json: $json"
  fi
}

# Configs are numbered from 0 everywhere (issue 27): the progress lines, the table, the decision.
case_numbering() {
  expect 0 "pass 1, config 0 of 0..2" "pass 2, config 2 of 0..2" "!config 3" "config: " \
    -- "$tkrt" tune "$examples/autotuned_inplace" --store off --target-ms 1 --allow-native-code
  expect 0 "config: 2 of 0..2 " "decided by: pinned" -- "$tkrt" run "$examples/autotuned_inplace" \
    --pin 2 --store off --iterations 0 --allow-native-code
  expect 0 "not benchmarked: config 2 is pinned" -- env 'TKRT_TUNE_PIN=*=2' "$tkrt" tune \
    "$examples/autotuned_inplace" --store off --allow-native-code
}

# tune's table shows every config's time, beyond 256 (issue 23, D14): a 1014-config call.
case_tune_many() {
  local m="$trust/many_configs"
  "$tkrt" tune "$m" --store off --target-ms 0 --max-iterations 1 --prune-margin -1 \
    --allow-native-code >"$work/out" 2>"$work/err" || fail "tune of 1014 configs: exit $?: $(cat "$work/err")"
  [ "$(grep -c '^[ *] [0-9]* *config [0-9]' "$work/out")" = 1014 ] ||
    fail "the table does not have 1014 rows: $(head -c 2000 "$work/out")"
  if grep -q 'skipped' "$work/out"; then fail "configs shown as skipped: $(grep skipped "$work/out" | head)"; fi
  grep -q '^\* [0-9]* *config [0-9]* .* [0-9]\.[0-9]\{4\}$' "$work/out" ||
    fail "the chosen row has no time: $(grep '^\*' "$work/out")"
  grep -q '^  1013 config 1013 ' "$work/out" || fail "no row for config 1013"
  json_check "$tkrt" tune "$m" --json --store off --target-ms 0 --max-iterations 1 --prune-margin -1 \
    --allow-native-code
  [ "$(json_get 'len(j["configs"]), all(c["mean_ms"] is not None for c in j["configs"])')" = \
    "(1014, True)" ] || fail "tune --json of 1014 configs: $(head -c 2000 <<<"$json")"
  [ "$(json_get 'j["configs"][j["decision"]["config"]]["chosen"]')" = True ] || fail "chosen config"
}

# Usage mistakes exit 2, those the library finds in a flag too (issue 27, docs/security.md), and
# refused values are named (issue 23, D16).
case_exit_codes() {
  local a="$examples/autotuned_inplace"
  expect 2 "bad --backend ''" "leave the option out" -- "$tkrt" run "$a" --backend '' --allow-native-code
  expect 2 "bad --backend 'host,'" -- "$tkrt" run "$a" --backend host, --allow-native-code
  expect 2 "bad --backend ',,'" -- "$tkrt" tune "$a" --backend=,, --allow-native-code
  expect 2 "INVALID_ARGUMENT" "--backend: unknown backend 'foo'" "tkrt run --help" -- \
    "$tkrt" run "$a" --backend foo --allow-native-code
  expect 2 "OUT_OF_RANGE" "--device" "not ordinal 5" -- "$tkrt" run "$a" --backend host --device 5 \
    --allow-native-code
  expect 2 "OUT_OF_RANGE" "--pin 7" "the call has 3 configs" -- "$tkrt" run "$a" --pin 7 \
    --store off --allow-native-code
  # Flags that disagree with the files or name buffers that do not exist: exit 2; a case.json
  # that does is the case's error (exit 3).
  local v="$examples/vector_add"
  expect 2 "--out-size 4 for output 0 disagrees" -- "$tkrt" run "$v" --out-size 4 --allow-native-code
  expect 2 "alias 5:0 names a buffer that does not exist" -- "$tkrt" run "$v" --alias 5:0 \
    --allow-native-code
  expect 2 "the size of output 0 is unknown" -- "$tkrt" run "$v/call.pb.z" --in "$v/in0.bin" \
    --in "$v/in1.bin" --out-size 0 --allow-native-code
  # An unavailable backend is not a usage mistake: the environment, not the flag, is at fault.
  expect 3 "TKRT_BACKEND=bogus" -- env TKRT_BACKEND=bogus "$tkrt" info
  if [ -f "$triton_add/cuda_sm90/add_kernel.json" ]; then
    local args=(--grid 1 --arg x_ptr=zeros:4 --arg y_ptr=zeros:4 --arg out_ptr=zeros:4 --arg n=1)
    expect 2 "bad --backend ''" -- "$tkrt" run "$triton_add" "${args[@]}" --backend ''
    expect 2 "unknown backend 'foo'" -- "$tkrt" run "$triton_add" "${args[@]}" --backend foo \
      --allow-native-code
    expect 2 "--pin 3" -- "$tkrt" run "$triton_add" "${args[@]}" --backend host --pin 3 \
      --allow-native-code --store off
    expect 2 "kernel 'add_kernel' has no parameter 'm'" -- "$tkrt" run "$triton_add" "${args[@]}" \
      --arg m=1 --backend host --allow-native-code
    expect 2 "grid expression" -- "$tkrt" run "$triton_add" --grid 'cdiv(' --arg x_ptr=zeros:4 \
      --arg y_ptr=zeros:4 --arg out_ptr=zeros:4 --arg n=1 --backend host --allow-native-code
    expect 2 "bad byte count" -- "$tkrt" run "$triton_add" --grid 1 --arg x_ptr=zeros:-4 \
      --arg y_ptr=zeros:4 --arg out_ptr=zeros:4 --arg n=1 --backend host --allow-native-code
  fi
}

# The environment's settings as the tool reads them (tkrt_options_from_environment): every on/off
# setting reads the same words in any case; bad values are refused naming the variable and the
# value (issue 23 D16, issue 27).
case_env_settings() {
  local a="$examples/autotuned_inplace" word
  for word in on ON True yes 1 off FALSE No 0; do
    expect 0 "host: available" -- env TKRT_LOG=$word TKRT_TRUST_SHARED_STORES=$word "$tkrt" info
  done
  expect 3 "INVALID_ARGUMENT" "TKRT_LOG is 'foo'" -- env TKRT_LOG=foo "$tkrt" info
  local backend
  for backend in ',' ' ' 'host,,cuda' 'host,'; do
    expect 3 "INVALID_ARGUMENT" "TKRT_BACKEND is '$backend'" -- env "TKRT_BACKEND=$backend" "$tkrt" info
  done
  expect 0 "host: available" -- env TKRT_BACKEND= "$tkrt" info
  expect 3 "TKRT_TRUST_SHARED_STORES is 'maybe'" -- env TKRT_TRUST_SHARED_STORES=maybe "$tkrt" info
  expect 3 "TKRT_TRUST_SHARED_STORES is 'maybe'" "!device:" -- env TKRT_TRUST_SHARED_STORES=maybe \
    "$tkrt" run "$a" --iterations 0 --allow-native-code
  # TKRT_TUNE_POLICY ignores case; NEVER runs config 0 untuned.
  expect 0 "config: 0 of 0..2" "decided by: default" -- env TKRT_TUNE_POLICY=NEVER "$tkrt" run "$a" \
    --iterations 0 --allow-native-code
  expect 3 "TKRT_TUNE_POLICY is 'sometimes'" -- env TKRT_TUNE_POLICY=sometimes "$tkrt" run "$a" \
    --iterations 0 --allow-native-code
  # TKRT_TUNE_PIN: a config index is a whole number; no sign, no wrap past 2^64.
  local pin
  for pin in '*=-1' '*=18446744073709551617' '*=+1' '*=1x' '*='; do
    expect 3 "INVALID_ARGUMENT" "TKRT_TUNE_PIN) entry '$pin'" "!device:" -- env "TKRT_TUNE_PIN=$pin" \
      "$tkrt" run "$a" --iterations 0 --allow-native-code
  done
  expect 0 "config: 2 of 0..2" "decided by: pinned" -- env 'TKRT_TUNE_PIN=*= 2 ' "$tkrt" run "$a" \
    --iterations 0 --allow-native-code
  expect 3 "OUT_OF_RANGE" -- env 'TKRT_TUNE_PIN=*=18446744073709551615' "$tkrt" run "$a" \
    --iterations 0 --allow-native-code
}

# Triton's output is recognised by Triton's own files only: a <stem>.json with a <stem>.cubin,
# .ptx, .hsaco, .ttir or .so beside it (issue 27; issue 23 D16 for the folder named like a .json).
case_triton_detect() {
  # The repository root (CMakePresets.json and other JSON) is no Triton output.
  expect 3 "NOT_FOUND" "holds no serialized call" "!CMakePresets" -- "$tkrt" run "$source" \
    --iterations 0
  # A case folder's case.json is not kernel metadata, even without a call beside it.
  mkdir -p "$work/caseonly" && printf '{"name": "x"}\n' >"$work/caseonly/case.json"
  expect 3 "holds no serialized call" "!field 'name'" -- "$tkrt" run "$work/caseonly"
  # A stray JSON next to no image: not Triton output, for run and info.
  printf '{"name": "k"}\n' >"$work/stray.json"
  expect 3 "not Triton compile output" -- "$tkrt" run "$work/stray.json"
  expect 3 "not a kernel image" -- "$tkrt" info --image "$work/stray.json"
  # Triton options with something that is not Triton output: exit 2 naming the path.
  mkdir -p "$work/empty.json"
  expect 2 "--grid is for Triton compile output, and '$work/empty.json' is none" -- \
    "$tkrt" run "$work/empty.json" --grid 1
  expect 2 "--arg is for Triton compile output" -- "$tkrt" tune "$source" --arg=n=1
  if [ -f "$triton_add/cuda_sm90/add_kernel.json" ]; then
    # A folder named like a .json holding Triton output is a folder like any other.
    cp -r "$triton_add" "$work/add_kernel.json"
    expect 0 "kernel add_kernel, 1 variant" "decided by: single" -- "$tkrt" run \
      "$work/add_kernel.json" --grid 1 --arg x_ptr=zeros:4 --arg y_ptr=zeros:4 \
      --arg out_ptr=zeros:4 --arg n=1 --backend host --allow-native-code --iterations 0
    expect 0 "Triton kernel add_kernel" -- "$tkrt" info --image "$work/add_kernel.json"
  fi
}

# info --image on what is no kernel image (issue 27): text, and an ELF file without tkrt's
# host kernels (the tool itself), are "not a kernel image".
case_not_an_image() {
  expect 3 "INVALID_ARGUMENT" "$source/README.md: not a kernel image" "!PTX image" -- \
    "$tkrt" info --image "$source/README.md"
  expect 3 "not a kernel image: an ELF file" "defines no tkrt host kernels" "!: host image" -- \
    "$tkrt" info --image "$tkrt"
  expect 3 "not a kernel image" -- "$tkrt" info --image "$tkrt" --json
  expect 0 "ptx image" -- "$tkrt" info --image "$source/examples/calls/inplace.ptx"
}

# --version and -V print the library's version (tkrt_version, issue 27); a libtkrt.so of another
# version than the tool's headers is reported on stderr.
case_version() {
  local want
  want=$(sed -n 's/^#define TKRT_VERSION_STRING "\(.*\)"$/\1/p' "$source/include/tkrt/api.h")
  expect 0 "tkrt $want" "!warning" -- "$tkrt" --version
  expect 0 "tkrt $want" -- "$tkrt" -V
  [ "$("$tkrt" -V 2>&1)" = "$("$tkrt" --version 2>&1)" ] || fail "-V and --version differ"
  if [ -n "${TKRT_TEST_OTHER_VERSION:-}" ] && [ -f "$TKRT_TEST_OTHER_VERSION" ]; then
    expect 0 "tkrt 9.8.7" "warning: this tool was built for libtkrt $want but runs with libtkrt 9.8.7" \
      -- env LD_PRELOAD="$TKRT_TEST_OTHER_VERSION" "$tkrt" --version
  else
    echo "skip: no other-version library (TKRT_TEST_OTHER_VERSION)"
  fi
}

# Help (issue 27): `tkrt help CMD` is CMD's --help; the top-level help lists every variable of
# the settings table (core/settings.c), TRITON_CACHE_DIR included; a mistyped command gets a
# suggestion and exit 2.
case_help_texts() {
  local c
  for c in info dump run tune; do
    [ "$("$tkrt" help $c)" = "$("$tkrt" $c --help)" ] || fail "tkrt help $c differs from $c --help"
    expect 0 "usage: tkrt $c" -- "$tkrt" help $c
  done
  [ "$("$tkrt" help triton)" = "$("$tkrt" info --triton-cache --help)" ] || fail "help triton"
  expect 0 "tkrt run KERNEL" -- "$tkrt" help triton
  expect 2 "no help on 'rnu' (did you mean 'run'?)" -- "$tkrt" help rnu
  expect 0 "commands:" "settings" -- "$tkrt" help
  local help names name
  help=$("$tkrt" --help)
  names=$(grep -o '\.env = "[A-Z_]*"' "$source/core/settings.c" | sed 's/.*"\(.*\)"/\1/' | sort -u)
  [ "$(wc -w <<<"$names")" -ge 15 ] || fail "found only: $names"
  for name in $names; do
    grep -q "^  $name " <<<"$help" || fail "--help does not list $name"
  done
  # Mistyped commands: a suggestion, exit 2; unknown ones: the list.
  expect 2 "unknown command 'rnu' (did you mean 'run'?)" -- "$tkrt" rnu
  expect 2 "unknown command 'tun' (did you mean 'tune'?)" -- "$tkrt" tun
  expect 2 "unknown command 'dupm' (did you mean 'dump'?)" -- "$tkrt" dupm
  expect 2 "unknown command 'frobnicate'" "!did you mean" "commands: info, dump, run, tune" -- \
    "$tkrt" frobnicate
  expect 2 "usage: tkrt" -- "$tkrt"
  expect 2 "--completion takes the shell: bash" -- "$tkrt" --completion zsh
}

# The bash completion and the man page (issue 27), generated from the tool's own tables: valid
# bash that completes commands, options and values; a man page groff reads without a warning,
# with every command's section and every setting.
case_completion_man() {
  "$tkrt" --completion bash >"$work/tkrt.bash" || fail "--completion bash failed"
  bash -n "$work/tkrt.bash" || fail "the completion script is not valid bash"
  # complete WORDS...: what the script offers for the last word.
  complete_words() {
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tkrt;
             printf "%s\n" "${COMPREPLY[@]}"' complete "$work/tkrt.bash" "$@"
  }
  [ "$(complete_words tkrt ru)" = run ] || fail "tkrt ru<TAB>: $(complete_words tkrt ru)"
  complete_words tkrt run x --it | grep -x -- --iterations >/dev/null || fail "run --it<TAB>"
  complete_words tkrt run x --js | grep -x -- --json >/dev/null || fail "run --js<TAB>"
  complete_words tkrt tune x --gr | grep -x -- --grid >/dev/null || fail "tune --gr<TAB> (Triton's options)"
  complete_words tkrt tune x --target | grep -x -- --target-ms >/dev/null || fail "tune --target<TAB>"
  [ "$(complete_words tkrt run x --backend h | tr '\n' ' ')" = "hip host " ] || fail "--backend h<TAB>"
  [ "$(complete_words tkrt help tr)" = triton ] || fail "help tr<TAB>"
  complete_words tkrt info --tri | grep -x -- --triton-cache >/dev/null || fail "info --tri<TAB>"
  "$tkrt" --help-man >"$work/tkrt.1" || fail "--help-man failed"
  local c name
  for c in info dump run tune; do
    grep -q "^\.SS tkrt $c\$" "$work/tkrt.1" || fail "the man page has no section for $c"
    grep -q "^\.B $c\$" "$work/tkrt.1" || fail "the man page's COMMANDS lacks $c"
  done
  for name in $("$tkrt" --help | sed -n 's/^  \([A-Z][A-Z_]*\) .*/\1/p'); do
    grep -q "^\.B $name\$" "$work/tkrt.1" || fail "the man page's ENVIRONMENT lacks $name"
  done
  if command -v groff >/dev/null 2>&1; then
    local warnings
    warnings=$(groff -man -ww -z "$work/tkrt.1" 2>&1)
    [ -z "$warnings" ] || fail "groff warns about the man page: $warnings"
    groff -man -Tutf8 "$work/tkrt.1" 2>/dev/null | grep -q "tkrt tune" || fail "groff renders no 'tkrt tune'"
  else
    echo "note: groff is absent; the man page is checked by its sections only"
  fi
  # What the build generated (and cmake --install installs) is the same text.
  local generated
  generated="$(dirname "$tkrt")/generated"
  if [ -d "$generated" ]; then
    cmp -s "$generated/tkrt.bash" "$work/tkrt.bash" || fail "$generated/tkrt.bash is stale"
    cmp -s "$generated/tkrt.1" "$work/tkrt.1" || fail "$generated/tkrt.1 is stale"
  fi
}

# ---------------------------------------------------------------- --save

case_save() {
  local v="$examples/vector_add"
  # A folder that does not exist yet is made (with its parents); the output is written into it.
  expect 0 "written to $work/new/deeper/out0.bin" "!//" -- "$tkrt" run "$v" --iterations 0 \
    --save "$work/new/deeper/" --allow-native-code
  cmp -s "$work/new/deeper/out0.bin" "$v/out0.bin" || fail "--save wrote other bytes"
  [ "$(ls -A "$work/new/deeper")" = out0.bin ] || fail "--save left other files"
  # A folder that cannot be made: NOT_FOUND naming it, exit 3, and nothing run.
  : >"$work/plainfile"
  expect 3 "NOT_FOUND" "--save" "$work/plainfile/sub" "!device:" -- "$tkrt" run "$v" \
    --iterations 0 --save "$work/plainfile/sub/out" --allow-native-code
  [ -f "$work/plainfile" ] && [ ! -s "$work/plainfile" ] || fail "the file in the way was changed"
  expect 3 "--save" "exists and is not a folder" -- "$tkrt" run "$v" --iterations 0 \
    --save "$work/plainfile" --allow-native-code
}

# ---------------------------------------------------------------- case.json

# make_case NAME JSON: a copy of examples/cases/vector_add with JSON as its case.json.
make_case() {
  mkdir -p "$work/$1"
  cp "$examples/vector_add"/* "$work/$1/"
  printf '%s\n' "$2" >"$work/$1/case.json"
}

case_case_json() {
  local f32='"dtype": "float32", "shape": [100003]'
  local io="\"inputs\": [{\"file\": \"in0.bin\", $f32}, {\"file\": \"in1.bin\", $f32}]"
  # Files, dtypes and shapes from case.json: bit for bit when it names no tolerance.
  make_case plain "{\"name\": \"vadd\", \"note\": \"out = a + b\", $io,
    \"outputs\": [{\"file\": \"out0.bin\", $f32}], \"proto_bytes\": 1}"
  expect 0 "case: vadd: out = a + b ($work/plain/case.json)" "matches bit for bit" -- \
    "$tkrt" run "$work/plain" --iterations 0 --allow-native-code
  # Its tolerances and dtypes; flags override them.
  make_case tol "{$io, \"rtol\": 1e-6, \"outputs\": [{\"file\": \"out0.bin\", $f32, \"atol\": 0.25}]}"
  expect 0 "within tolerance: 0 of 100003 f32 elements outside rtol 1e-06 atol 0.25" -- \
    "$tkrt" run "$work/tol" --iterations 0 --allow-native-code
  expect 0 "outside rtol 0.5 atol 0.25" -- "$tkrt" run "$work/tol" --rtol 0.5 --iterations 0 \
    --allow-native-code
  expect 0 "0 of 50001 f64 elements outside rtol 1e-06 atol 0" -- "$tkrt" run "$work/tol" \
    --atol 0 --dtype f64 --iterations 0 --allow-native-code
  make_case ints "{$io, \"outputs\": [{\"file\": \"out0.bin\", \"dtype\": \"int32\", \"shape\": [100003], \"rtol\": 0.1}]}"
  expect 0 "int32 elements have no tolerance; comparing bit for bit" "matches bit for bit" -- \
    "$tkrt" run "$work/ints" --iterations 0 --allow-native-code
  # Its files: what the case names, in its order (here the inputs swapped: the same sum).
  make_case order "{\"inputs\": [{\"file\": \"in1.bin\"}, {\"file\": \"in0.bin\"}], \"outputs\": [{\"file\": \"in0.bin\"}]}"
  expect 1 "output 0: MISMATCH" -- "$tkrt" run "$work/order" --iterations 0 --allow-native-code
  expect 0 "matches bit for bit" -- "$tkrt" run "$work/order" --expect "$work/order/out0.bin" \
    --iterations 0 --allow-native-code
  # Its aliases are used (an alias naming a missing input fails) unless --alias is given.
  make_case alias "{$io, \"outputs\": [{\"file\": \"out0.bin\"}], \"aliases\": [{\"input\": 5, \"output\": 0}]}"
  expect 3 "alias 5:0 names a buffer that does not exist" -- "$tkrt" run "$work/alias" \
    --iterations 0 --allow-native-code
  expect 0 "matches bit for bit" -- "$tkrt" run "$work/alias" --alias 0:0 --iterations 0 \
    --allow-native-code
  make_case alias2 "{$io, \"outputs\": [{\"file\": \"out0.bin\"}], \"aliases\": [{\"input\": 1, \"output\": 0}]}"
  expect 0 "matches bit for bit" -- "$tkrt" run "$work/alias2" --iterations 0 --allow-native-code
  # A case that does not fit its files, or names files elsewhere, or is not JSON: exit 3.
  make_case shape "{$io, \"outputs\": [{\"file\": \"out0.bin\", \"dtype\": \"float64\", \"shape\": [100003]}]}"
  expect 3 "INVALID_ARGUMENT" "case.json: outputs[0]: $work/shape/out0.bin has 400012 bytes, but 100003 float64 elements" -- \
    "$tkrt" run "$work/shape" --allow-native-code
  make_case escape "{\"inputs\": [{\"file\": \"../plain/in0.bin\"}]}"
  expect 3 "inputs[0].file: expected the name of a file in the case folder" -- \
    "$tkrt" run "$work/escape" --allow-native-code
  make_case missing "{\"inputs\": [{\"file\": \"nope.bin\", $f32}]}"
  expect 3 "NOT_FOUND" "nope.bin" -- "$tkrt" run "$work/missing" --allow-native-code
  make_case dtype "{\"outputs\": [{\"file\": \"out0.bin\", \"dtype\": \"complex64\"}]}"
  expect 3 "outputs[0].dtype: expected float16" -- "$tkrt" run "$work/dtype" --allow-native-code
  make_case tolbad "{\"rtol\": -1}"
  expect 3 "case.json: rtol: expected a number >= 0" -- "$tkrt" run "$work/tolbad" --allow-native-code
  make_case broken "{\"inputs\": [}"
  expect 3 "INVALID_ARGUMENT" "case.json:1:" -- "$tkrt" run "$work/broken" --allow-native-code
  make_case fifo "{}" && rm "$work/fifo/case.json" && mkfifo "$work/fifo/case.json"
  expect 3 "is a FIFO" -- "$tkrt" run "$work/fifo" --allow-native-code
  # A case names files in its folder: symbolic links there are not followed (a case someone
  # else made cannot point at the user's other files), for case.json and the files it lists.
  make_case linked "{}" && rm "$work/linked/case.json" &&
    ln -s "$work/plain/case.json" "$work/linked/case.json"
  expect 3 "case.json is a symbolic link, which is not followed here" -- \
    "$tkrt" run "$work/linked" --allow-native-code
  make_case linked_input "{$io, \"outputs\": [{\"file\": \"out0.bin\", $f32}]}" &&
    rm "$work/linked_input/in0.bin" && ln -s "$work/plain/in0.bin" "$work/linked_input/in0.bin"
  expect 3 "in0.bin is a symbolic link, which is not followed here" -- \
    "$tkrt" run "$work/linked_input" --allow-native-code
  # tune reads it too.
  expect 0 "case: vadd" "nothing to tune" "matches bit for bit" -- "$tkrt" tune "$work/plain" \
    --store off --allow-native-code
}

# ---------------------------------------------------------------- dump --json

case_dump_utf8() {
  json_check "$tkrt" dump --json "$trust/utf8_name"
  # UTF-8 comes back as itself (raw in the JSON text); control characters are escaped.
  [ "$(json_get 'ascii(j["name"])')" = "'caf\xe9 \u20ac \x01'" ] ||
    fail "name: $(json_get 'ascii(j["name"])')"
  grep -qF '"name": "café € \u0001"' <<<"$json" || fail "raw JSON: $json"
  if grep -q $'\x1b' <<<"$json"; then fail "dump --json wrote a raw escape byte"; fi
  # Bytes that are not UTF-8 (a lone 0xff, a cut sequence, an encoded surrogate) become U+FFFD,
  # one per byte; valid sequences (up to 4 bytes) stay; metadata_hex has the exact bytes.
  [ "$(json_get 'ascii(j["metadata"])')" = \
    "'ok \xe9 \ufffd\ufffd( \ufffd\ufffd\ufffd \U0001f600'" ] ||
    fail "metadata: $(json_get 'ascii(j["metadata"])')"
  [ "$(json_get 'j["metadata_hex"]')" = 6f6b20c3a920ffc32820eda08020f09f9880 ] ||
    fail "metadata_hex: $(json_get 'j["metadata_hex"]')"
  json_check "$tkrt" dump --json "$examples/autotuned_inplace"
  [ "$(json_get 'j["metadata_size"] * 2 == len(j["metadata_hex"])')" = True ] ||
    fail "metadata_hex: $json"
}

run_cases CLI options triton_options info_json info_backend_env info_escapes json_output numbering \
  tune_many exit_codes env_settings triton_detect not_an_image errors save case_json dump_utf8 version \
  help_texts completion_man \
  -- "$@"
