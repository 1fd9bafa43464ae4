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

run_cases CLI options triton_options info_json info_backend_env errors save case_json dump_utf8 \
  -- "$@"
