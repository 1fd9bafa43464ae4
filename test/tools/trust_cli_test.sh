#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The trust-boundary repros of issue 12, end to end through the tkrt CLI. Each case runs under a
# timeout (a hang is a failure), in a private temporary folder, and checks the exit code, the
# message, and what must not happen (the marker file, the victim file, a leftover file).
#   trust_cli_test.sh TKRT TRUST_CASES EXAMPLE_CASES [CASE...]
# TRUST_CASES: make_trust_calls' output; EXAMPLE_CASES: examples/cases. With CASE names, runs only
# those (each is one CTest test, tools.trust.<case>).
set -uo pipefail
tkrt=$1 trust=$2 examples=$3
shift 3
work=$(mktemp -d "${TMPDIR:-/tmp}/tkrt-trust.XXXXXX")
chmod 700 "$work"
trap 'rm -rf "$work"' EXIT
export TKRT_TEST_MARKER="$work/marker"
unset TKRT_BACKEND TKRT_TUNE_DIR TKRT_TUNE_PIN TKRT_TRUST_SHARED_STORES
# fail, expect RC PATTERN... -- COMMAND... (20 s at most: a hang is a failure), run_cases.
EXPECT_TIMEOUT=20
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

no_marker() {
  if [ -e "$TKRT_TEST_MARKER" ]; then fail "the marker image was loaded: $*"; fi
  rm -f "$TKRT_TEST_MARKER"
}

# ---------------------------------------------------------------- 1: consent for native code

case_consent() {
  for c in tkrt_field module_image missing_kernel; do
    for command in run tune; do
      # The default backend order (cuda, hip, host) falls back to host on this machine.
      expect 3 "PERMISSION_DENIED" "--allow-native-code" -- "$tkrt" $command "$trust/$c" --store off
      no_marker "$command $c, default backend order"
      expect 3 "PERMISSION_DENIED" -- "$tkrt" $command "$trust/$c" --backend host --store off
      no_marker "$command $c --backend host"
    done
  done
  expect 3 "PERMISSION_DENIED" -- "$tkrt" run "$trust/unselected" --pin 0 --store off --backend host
  no_marker "a never-selected config"
  # dump and info never load anything.
  expect 0 "host host" -- "$tkrt" dump "$trust/module_image"
  expect 0 "marker_copy" -- "$tkrt" dump "$trust/tkrt_field" --json
  no_marker "dump"
  # The marker does work: with consent the image loads (and its constructor runs).
  expect 0 "matches bit for bit" -- "$tkrt" run "$trust/tkrt_field" --backend host --iterations 0 \
    --allow-native-code
  [ -e "$TKRT_TEST_MARKER" ] || fail "with --allow-native-code the marker image did not load"
  rm -f "$TKRT_TEST_MARKER"
  expect 0 "matches bit for bit" -- "$tkrt" run "$trust/module_image" --backend host \
    --iterations 0 --allow-native-code
  rm -f "$TKRT_TEST_MARKER"
  expect 3 "NOT_FOUND" "no_such_kernel" -- "$tkrt" run "$trust/missing_kernel" --backend host \
    --allow-native-code
  rm -f "$TKRT_TEST_MARKER"
}

# A Triton output folder with the marker image as its host image (<stem>.so beside the JSON): it
# loads only with --allow-native-code; `info` lists it without loading it.
case_triton_consent() {
  local image=${TKRT_TEST_MARKER_IMAGE:-}
  [ -f "$image" ] || { fail "TKRT_TEST_MARKER_IMAGE (the marker host image) is not set"; return; }
  local dir="$work/triton_marker"
  mkdir -p "$dir"
  cp "$image" "$dir/marker_copy.so"
  printf '{"name": "marker_copy", "target": {"backend": "host", "arch": "any", "warp_size": 1}, "num_warps": 1, "num_ctas": 1, "num_stages": 1, "shared": 0}' \
    > "$dir/marker_copy.json"
  printf 'module {\n  tt.func public @marker_copy(%%in: !tt.ptr<i8>, %%out: !tt.ptr<i8>) {\n    tt.return\n  }\n}\n' \
    > "$dir/marker_copy.ttir"
  head -c 64 /dev/urandom > "$work/in64.bin"
  local args=(--grid 64 --arg "in=@$work/in64.bin" --arg out=zeros:64 --iterations 0)
  for command in run tune; do
    expect 3 "PERMISSION_DENIED" "marker_copy.so, a host image: native code" "--allow-native-code" \
      -- "$tkrt" $command "$dir" "${args[@]}" --backend host --store off
    no_marker "$command on a Triton folder without consent"
    expect 3 "PERMISSION_DENIED" -- "$tkrt" $command "$dir" "${args[@]}" --store off
    no_marker "$command on a Triton folder, default backend order"
    expect 3 "PERMISSION_DENIED" -- "$tkrt" $command "$dir" "${args[@]}" --image-kind host \
      --backend host --store off
    no_marker "$command --image-kind host (asking for the kind is not consent)"
  done
  expect 0 "image 0: host host" "native code: run and tune take it only with --allow-native-code" \
    -- "$tkrt" info --image "$dir"
  no_marker "info --image on a Triton folder"
  expect 0 "matches bit for bit" -- "$tkrt" run "$dir" "${args[@]}" --backend host \
    --expect "out=$work/in64.bin" --allow-native-code
  [ -e "$TKRT_TEST_MARKER" ] || fail "with --allow-native-code the Triton folder's image did not load"
  rm -f "$TKRT_TEST_MARKER"
}

# ---------------------------------------------------------------- 2: the decision store

# Tunes the example call once into $1 and prints the entry's key.
store_key() {
  timeout 60 "$tkrt" tune "$examples/autotuned_inplace" --store "$1" --target-ms 0.2 \
    --allow-native-code >/dev/null 2>&1 || { fail "tune into $1 failed"; return; }
  local entry
  entry=$(ls "$1" | grep '\.decision$' | head -n1)
  echo "${entry%.decision}"
}

case_store_symlinks() {
  local store="$work/store" victim="$work/victim"
  mkdir -m 700 "$store"
  local key
  key=$(store_key "$store")
  [ -n "$key" ] || { fail "tuning into the store left no entry"; return; }
  printf 'precious\n' >"$victim"
  rm -f "$store"/*
  # The old temporary name, .<key>.<pid>.tmp, linked to the victim, for the pid tkrt will have.
  expect 0 "decision stored in" -- sh -c 'ln -s "$1" "$2/.$3.$$.tmp"; exec "$4" tune "$5" \
      --store "$2" --target-ms 0.2 --allow-native-code' sh "$victim" "$store" "$key" "$tkrt" \
    "$examples/autotuned_inplace"
  [ "$(cat "$victim")" = precious ] || fail "the victim file was written through a planted link"
  # A dangling <key>.lock link: its target must not be created; the store is not used.
  rm -f "$store"/* "$store"/.[!.]*
  ln -s "$work/created-by-tkrt" "$store/$key.lock"
  expect 0 "symbolic link" "decision NOT stored" -- "$tkrt" tune "$examples/autotuned_inplace" \
    --store "$store" --target-ms 0.2 --allow-native-code
  [ ! -e "$work/created-by-tkrt" ] || fail "a dangling lock link made tkrt create its target"
  # A link as the entry itself: not followed, reported, retuned and replaced.
  rm -f "$store"/*
  cp "$victim" "$work/victim2"
  ln -s "$work/victim2" "$store/$key.decision"
  expect 0 "symbolic link" "decided by: tuned" -- "$tkrt" run "$examples/autotuned_inplace" \
    --store "$store" --iterations 0 --allow-native-code
  [ "$(cat "$work/victim2")" = precious ] || fail "the entry link's target was changed"
  [ -f "$store/$key.decision" ] && [ ! -L "$store/$key.decision" ] || fail "the link was not replaced"
}

case_store_untrusted() {
  local store="$work/shared"
  mkdir -m 700 "$store"
  local key
  key=$(store_key "$store")
  [ -n "$key" ] || { fail "tuning into the store left no entry"; return; }
  # An entry that other users can write is ignored (and retuned); trusted with the opt-in.
  chmod 666 "$store/$key.decision"
  expect 0 "not trusted" "other users can write it" "decided by: tuned" -- "$tkrt" run \
    "$examples/autotuned_inplace" --store "$store" --iterations 0 --allow-native-code
  chmod 666 "$store/$key.decision"
  expect 0 "decided by: store" -- env TKRT_TRUST_SHARED_STORES=1 "$tkrt" run \
    "$examples/autotuned_inplace" --store "$store" --iterations 0 --allow-native-code
  # Every on/off word, in any case (issue 23 D16, issue 27): on trusts it, off does not, and a
  # word that is neither is refused naming the variable and the value, nothing run.
  local word
  for word in ON True yes 1; do
    chmod 666 "$store/$key.decision"
    expect 0 "decided by: store" -- env TKRT_TRUST_SHARED_STORES=$word "$tkrt" run \
      "$examples/autotuned_inplace" --store "$store" --iterations 0 --allow-native-code
  done
  for word in Off FALSE no 0; do
    chmod 666 "$store/$key.decision"
    expect 0 "not trusted" "decided by: tuned" -- env TKRT_TRUST_SHARED_STORES=$word "$tkrt" run \
      "$examples/autotuned_inplace" --store "$store" --iterations 0 --allow-native-code
  done
  chmod 666 "$store/$key.decision"
  expect 3 "INVALID_ARGUMENT" "TKRT_TRUST_SHARED_STORES is 'maybe'" "!device:" -- \
    env TKRT_TRUST_SHARED_STORES=maybe "$tkrt" run "$examples/autotuned_inplace" \
    --store "$store" --iterations 0 --allow-native-code
  # A folder that other users can write is not used at all.
  chmod 777 "$store"
  expect 0 "not trusted" "decided by: tuned" -- "$tkrt" run "$examples/autotuned_inplace" \
    --store "$store" --iterations 0 --allow-native-code
  chmod 700 "$store"
  if [ "$(id -u)" = 0 ]; then
    # Another user's entry (root can make one) is ignored.
    chown 65534 "$store/$key.decision"
    expect 0 "another user owns it" "decided by: tuned" -- "$tkrt" run \
      "$examples/autotuned_inplace" --store "$store" --iterations 0 --allow-native-code
  fi
}

case_store_fifo() {
  local store="$work/fifo-store"
  mkdir -m 700 "$store"
  local key
  key=$(store_key "$store")
  [ -n "$key" ] || { fail "tuning into the store left no entry"; return; }
  rm -f "$store/$key.decision"
  mkfifo "$store/$key.decision"
  expect 0 "is a FIFO" "decided by: tuned" -- "$tkrt" run "$examples/autotuned_inplace" \
    --store "$store" --iterations 0 --allow-native-code
  rm -f "$store"/*
  mkfifo "$store/$key.lock"
  expect 0 "is a FIFO" "decision NOT stored" -- "$tkrt" tune "$examples/autotuned_inplace" \
    --store "$store" --target-ms 0.2 --allow-native-code
}

case_store_readonly() {
  [ "$(id -u)" = 0 ] || { echo "skip: needs root to run as another user"; return; }
  command -v setpriv >/dev/null || { echo "skip: no setpriv"; return; }
  local store="$work/ro-store"
  mkdir -m 755 "$store"
  local key
  key=$(store_key "$store")
  [ -n "$key" ] || { fail "tuning into the store left no entry"; return; }
  rm -f "$store/$key.lock"
  chmod 555 "$store"
  chmod 755 "$work"
  # Root's read-only store, read by another user: the decision is used, nothing retuned.
  expect 0 "decided by: store" -- setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$tkrt" run "$examples/autotuned_inplace" --store "$store" --iterations 0 --allow-native-code
  chmod 700 "$work"
}

# ---------------------------------------------------------------- 4, 5, 6: files and options

case_files() {
  local f="$work/fifo"
  mkfifo "$f"
  expect 3 "INVALID_ARGUMENT" "is a FIFO" -- "$tkrt" dump "$f"
  expect 3 "is a FIFO" -- "$tkrt" info --image "$f"
  expect 3 "is a FIFO" -- "$tkrt" run "$examples/vector_add" --in "$f" --allow-native-code
  expect 3 "is a FIFO" -- "$tkrt" run "$examples/vector_add" --expect "$f" --allow-native-code
  expect 3 "INVALID_ARGUMENT" "is a folder" -- "$tkrt" info --image "$work"
  expect 3 "is a character device" -- "$tkrt" run "$examples/vector_add" --in /dev/zero \
    --allow-native-code
  : >"$work/empty"
  expect 3 "INVALID_ARGUMENT" "is empty" -- "$tkrt" run "$examples/vector_add/call.pb.z" \
    --in "$work/empty" --in "$examples/vector_add/in1.bin" --out-size 4 --allow-native-code
  expect 3 "is empty" -- "$tkrt" run "$examples/vector_add/call.pb.z" --in /proc/self/status \
    --in "$examples/vector_add/in1.bin" --out-size 4 --allow-native-code
  # A 2 GiB (sparse) file is refused from its size, before reading.
  truncate -s 2G "$work/huge"
  expect 3 "OUT_OF_RANGE" "more than the" -- "$tkrt" dump "$work/huge"
}

case_options() {
  local v="$examples/vector_add"
  expect 2 "bad --out-size '99999999999999999999'" -- "$tkrt" run "$v" --out-size 99999999999999999999
  expect 2 "bad --device '4294967296'" -- "$tkrt" run "$v" --device 4294967296
  expect 2 "bad --iterations '99999999999'" -- "$tkrt" run "$v" --iterations 99999999999
  expect 2 "bad --iterations '-1'" -- "$tkrt" run "$v" --iterations -1
  expect 2 "bad --pin '1x'" -- "$tkrt" run "$v" --pin 1x
  expect 2 "output 0 is aliased twice" -- "$tkrt" run "$v" --alias 0:0 --alias 1:0
  expect 2 "bad --alias '0:99999999999999999999'" -- "$tkrt" run "$v" --alias 0:99999999999999999999
  expect 2 "bad --max-iterations" -- "$tkrt" tune "$v" --max-iterations 0
}

case_dump_escapes() {
  # A call whose strings hold a terminal escape: the text dump shows it as \x1b, never raw.
  local out
  out=$(timeout 20 "$tkrt" dump "$trust/escape_name" 2>&1)
  if grep -q $'\x1b' <<<"$out"; then fail "dump printed a raw escape byte"; fi
  grep -qF '\x1b' <<<"$out" || fail "dump did not show the escape as \\x1b: $out"
}

case_hsaco_paths() {
  # A ROCm-style call naming a file by path: the CLI does not read it unless asked.
  expect 3 "FAILED_PRECONDITION" "--read-hsaco-paths" -- "$tkrt" dump "$trust/hsaco_path"
  expect 3 "NOT_FOUND" -- "$tkrt" dump "$trust/hsaco_path" --read-hsaco-paths
}

case_save() {
  local out="$work/saved"
  mkdir -m 700 "$out"
  expect 0 "written to $out/out0.bin" -- "$tkrt" run "$examples/vector_add" --iterations 0 \
    --save "$out" --allow-native-code
  cmp -s "$out/out0.bin" "$examples/vector_add/out0.bin" || fail "--save wrote other bytes"
  [ -z "$(ls -A "$out" | grep -v '^out0.bin$')" ] || fail "--save left other files: $(ls -A "$out")"
  # An output that cannot be written: an error naming it, and nothing left behind.
  mkdir "$out/blocked" && mkdir "$out/blocked/out0.bin"
  expect 3 "out0.bin" -- "$tkrt" run "$examples/vector_add" --iterations 0 --save "$out/blocked" \
    --allow-native-code
  [ "$(ls -A "$out/blocked")" = out0.bin ] || fail "--save left a temporary file: $(ls -A "$out/blocked")"
}

run_cases trust consent triton_consent store_symlinks store_untrusted store_fifo store_readonly \
  files options dump_escapes hsaco_paths save -- "$@"
