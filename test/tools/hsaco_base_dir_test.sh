#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 23 D15: with --read-hsaco-paths, a relative HSACO path in a call is read from the call
# file's folder, not from the current directory. make_trust_calls' hsaco_path case names
# "no-such-folder/../../kernel.hsaco"; it is copied to blobs/case/ (with its no-such-folder), the
# real HSACO goes to blobs/kernel.hsaco, and the commands run from elsewhere/, where the same
# relative path leads to a decoy (not an HSACO).
#   hsaco_base_dir_test.sh TKRT TRUST_CASES HSACO
set -uo pipefail
tkrt=$1 trust=$2 hsaco=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/tkrt-hsaco-base.XXXXXX")
trap 'rm -rf "$work"' EXIT
EXPECT_TIMEOUT=20
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

mkdir -p "$work/blobs/case/no-such-folder" "$work/elsewhere/no-such-folder"
cp "$trust/hsaco_path/call.pb" "$work/blobs/case/"
cp "$hsaco" "$work/blobs/kernel.hsaco"
echo "a decoy beside the current directory, not an HSACO" > "$work/kernel.hsaco"
size=$(stat -c %s "$hsaco")

case_relative_to_blob() {
  cd "$work/elsewhere" || return
  # The case folder, the call file, by relative and absolute paths.
  for call in ../blobs/case ../blobs/case/call.pb "$work/blobs/case" "$work/blobs/case/call.pb"; do
    expect 0 "image: hip hsaco for gfx942, $size bytes" -- "$tkrt" dump "$call" --read-hsaco-paths
  done
  # From the call's own folder the name is the file's alone (no folder part).
  cd "$work/blobs/case" || return
  expect 0 "image: hip hsaco for gfx942, $size bytes" -- "$tkrt" dump call.pb --read-hsaco-paths
  # Without --read-hsaco-paths nothing is read, wherever the file is.
  cd "$work/elsewhere" || return
  expect 3 "FAILED_PRECONDITION" "--read-hsaco-paths" -- "$tkrt" dump ../blobs/case
}

case_missing_names_blob_folder() {
  # The file missing beside the call is NOT_FOUND, naming the path under the call's folder (the
  # decoy the current directory leads to is never read).
  mv "$work/blobs/kernel.hsaco" "$work/blobs/moved.hsaco"
  cd "$work/elsewhere" || return
  expect 3 "NOT_FOUND" "../blobs/case/no-such-folder/../../kernel.hsaco" "!decoy" -- \
    "$tkrt" dump ../blobs/case --read-hsaco-paths
  mv "$work/blobs/moved.hsaco" "$work/blobs/kernel.hsaco"
}

run_cases "HSACO base folder" relative_to_blob missing_names_blob_folder -- "${@:4}"
