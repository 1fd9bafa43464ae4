#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `tkrt tune-db`: merge takes the median per config and device, import checks the whole file
# first (nothing written for a bad one), export and show leave out forged store entries (a link,
# a record under another record's name, another user's or a world-writable file).
# Usage: tunedb_cli_test.sh TKRT
set -euo pipefail
tkrt=$1
work=$(mktemp -d /tmp/tkrt-tunedb.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
a=$(printf 'ab%.0s' {1..32})
c=$(printf 'cd%.0s' {1..32})
printf 'tkrt-tune-db 1\ntiming %s x86_64 0 2 0.5 10\n' "$a" >"$work/r0.db"
printf 'tkrt-tune-db 1\n# rank 1\ntiming %s x86_64 0 2 1.5 4\ntiming %s sm_90 12040 132 2 7\n' "$a" "$c" >"$work/r1.db"
printf 'tkrt-tune-db 1\ntiming %s x86_64 0 2 0.75 9\n\n' "$a" >"$work/r2.db"

"$tkrt" tune-db merge -o "$work/merged.db" "$work/r0.db" "$work/r1.db" "$work/r2.db"
expected=$(printf 'tkrt-tune-db 1\ntiming %s x86_64 0 2 0.75 4\ntiming %s sm_90 12040 132 2 7' "$a" "$c")
[ "$(cat "$work/merged.db")" = "$expected" ] || fail "merge: $(cat "$work/merged.db")"
# Two inputs: the mean of the two middle values.
"$tkrt" tune-db merge -o "$work/two.db" "$work/r0.db" "$work/r1.db"
grep -q "^timing $a x86_64 0 2 1 4\$" "$work/two.db" || fail "merge of two: $(cat "$work/two.db")"

out=$("$tkrt" tune-db import "$work/merged.db" "$work/store")
[ "$out" = "imported 2 records into $work/store" ] || fail "import: $out"
[ "$("$tkrt" tune-db export "$work/store")" = "$expected" ] || fail "export after import"
"$tkrt" tune-db show "$work/store" | grep -q "^$work/store: 2 records\$" || fail "show"

# A bad file is refused naming the line, and nothing is written.
printf 'tkrt-tune-db 1\ntiming %s x86_64 0 2 0.5 10\ntiming %s x86_64 0 2 inf 1\n' "$a" "$c" >"$work/bad.db"
set +e
err=$("$tkrt" tune-db import "$work/bad.db" "$work/fresh" 2>&1)
rc=$?
set -e
[ $rc = 3 ] || fail "bad import exit $rc"
grep -q "bad.db, line 3: the time is not a finite non-negative number" <<<"$err" || fail "bad import: $err"
[ ! -e "$work/fresh" ] || fail "bad import wrote $work/fresh"
set +e
"$tkrt" tune-db merge -o "$work/x.db" "$work/r0.db" "$work/bad.db" 2>/dev/null
rc=$?
set -e
[ $rc = 3 ] && [ ! -e "$work/x.db" ] || fail "merge of a bad input: exit $rc"

# Forged store entries are left out of export and counted by show.
entry=$(ls "$work/store" | grep '\.timing$' | head -n1)
other=$(ls "$work/store" | grep '\.timing$' | tail -n1)
cp "$work/store/$other" "$work/store/$(printf '0%.0s' {1..64}).timing"   # another record's content
ln -s "$work/store/$entry" "$work/store/$(printf '1%.0s' {1..64}).timing"  # a link
cp "$work/store/$entry" "$work/store/$(printf '2%.0s' {1..64}).timing"
chmod 0666 "$work/store/$(printf '2%.0s' {1..64}).timing"                  # anyone may write it
[ "$("$tkrt" tune-db export "$work/store" 2>/dev/null)" = "$expected" ] || fail "export with forged entries"
"$tkrt" tune-db show "$work/store" | grep -q "^$work/store: 2 records, 3 entries refused\$" ||
  fail "show with forged entries: $("$tkrt" tune-db show "$work/store")"

# A store folder others can write is refused unless TKRT_TRUST_SHARED_STORES=1, as for the tuner
# (show, export and import alike).
mkdir -m 0700 "$work/shared"
"$tkrt" tune-db import "$work/merged.db" "$work/shared" >/dev/null
chmod 0777 "$work/shared"
for cmd in "show $work/shared" "export $work/shared" "import $work/merged.db $work/shared"; do
  set +e
  err=$(env -u TKRT_TRUST_SHARED_STORES "$tkrt" tune-db $cmd 2>&1 >/dev/null)
  rc=$?
  set -e
  [ $rc != 0 ] || fail "tune-db $cmd: a shared folder was trusted"
  grep -q "TKRT_TRUST_SHARED_STORES" <<<"$err" || fail "tune-db $cmd: $err"
done
[ "$(TKRT_TRUST_SHARED_STORES=1 "$tkrt" tune-db export "$work/shared")" = "$expected" ] ||
  fail "export of a trusted shared folder"
TKRT_TRUST_SHARED_STORES=1 "$tkrt" tune-db show "$work/shared" | grep -q "^$work/shared: 2 records\$" ||
  fail "show of a trusted shared folder"
out=$(TKRT_TRUST_SHARED_STORES=1 "$tkrt" tune-db import "$work/merged.db" "$work/shared")
[ "$out" = "imported 2 records into $work/shared" ] || fail "import into a trusted shared folder: $out"
# The default folder (TKRT_TUNE_DIR) too.
[ "$(TKRT_TUNE_DIR="$work/shared" TKRT_TRUST_SHARED_STORES=1 "$tkrt" tune-db export)" = "$expected" ] ||
  fail "export of the trusted shared default folder"
chmod 0700 "$work/shared"

# Issue 31, E12: several records of one config and device are one by the same rule everywhere
# (the median): show FILE, import then export, and merge agree.
printf 'tkrt-tune-db 1\ntiming %s x86_64 0 2 0.5 10\ntiming %s x86_64 0 2 1.5 4\ntiming %s x86_64 0 2 0.75 9\n' \
  "$a" "$a" "$a" >"$work/dup.db"
"$tkrt" tune-db show "$work/dup.db" | grep -qE "^${a:0:16} +x86_64 +0 +2 +0.75 +4\$" ||
  fail "show of duplicates: $("$tkrt" tune-db show "$work/dup.db")"
"$tkrt" tune-db show "$work/dup.db" | grep -q "^$work/dup.db: 1 record\$" || fail "show counts one record"
out=$("$tkrt" tune-db import "$work/dup.db" "$work/dupstore")
[ "$out" = "imported 1 record into $work/dupstore" ] || fail "import of duplicates: $out"
[ "$("$tkrt" tune-db export "$work/dupstore")" = "$(printf 'tkrt-tune-db 1\ntiming %s x86_64 0 2 0.75 4' "$a")" ] ||
  fail "import keeps the median of duplicates: $("$tkrt" tune-db export "$work/dupstore")"

# E11: an import that fails partway says exactly how many records landed (each is a whole file);
# here the second record's file name is taken by a folder. Stale temporary files of a writer
# killed mid-write (older than 10 minutes) are removed; a fresh one (a writer at work) is not.
e=$(printf 'ef%.0s' {1..32})
printf 'tkrt-tune-db 1\ntiming %s x86_64 0 2 0.5 10\ntiming %s x86_64 0 2 1.5 4\ntiming %s x86_64 0 2 2.5 4\n' \
  "$a" "$c" "$e" >"$work/three.db"
printf 'tkrt-tune-db 1\ntiming %s x86_64 0 2 1.5 4\n' "$c" >"$work/second.db"
"$tkrt" tune-db import "$work/second.db" "$work/probe" >/dev/null
second=$(ls "$work/probe")
mkdir -p "$work/partial/$second"
stale=".$(printf '3%.0s' {1..64}).timing.AbC123"
fresh=".$(printf '4%.0s' {1..64}).timing.XyZ789"
touch -d '1 hour ago' "$work/partial/$stale"
touch "$work/partial/$fresh"
set +e
err=$("$tkrt" tune-db import "$work/three.db" "$work/partial" 2>&1)
rc=$?
set -e
[ $rc != 0 ] || fail "a partial import succeeded"
grep -q "importing $work/three.db into $work/partial: 1 of 3 records written (each a whole file), the others not" <<<"$err" ||
  fail "a partial import says how many landed: $err"
[ ! -e "$work/partial/$stale" ] || fail "a stale temporary file was left"
[ -e "$work/partial/$fresh" ] || fail "a fresh temporary file was removed"
[ "$(find "$work/partial" -maxdepth 1 -type f -name '*.timing' | wc -l)" = 1 ] ||
  fail "partial import: $(ls -a "$work/partial")"

# E14: a write past the file-size limit fails with an error (not SIGXFSZ) and leaves no temporary.
mkdir "$work/limited"
if [ "${TKRT_TEST_SANITIZE:-}" != thread ]; then
set +e
err=$(ulimit -f 0; "$tkrt" tune-db merge -o "$work/limited/out.db" "$work/r0.db" "$work/r1.db" 2>&1)
rc=$?
set -e
[ $rc != 0 ] && [ $rc -lt 128 ] || fail "merge under ulimit -f 0: exit $rc (a signal?)"
grep -q "File too large" <<<"$err" || fail "merge under ulimit -f 0: $err"
[ -z "$(ls -A "$work/limited")" ] || fail "merge under ulimit -f 0 left $(ls -A "$work/limited")"
fi

# Usage errors.
set +e
"$tkrt" tune-db >/dev/null 2>&1; [ $? = 2 ] || fail "no subcommand"
"$tkrt" tune-db merge "$work/r0.db" >/dev/null 2>&1; [ $? = 2 ] || fail "merge without -o"
"$tkrt" tune-db show --bogus >/dev/null 2>&1; [ $? = 2 ] || fail "unknown option"
set -e
echo "tunedb_cli_test: ok"
