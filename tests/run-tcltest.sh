#!/bin/sh
# run-tcltest.sh BUILD SHARED -- runs tests/*.test with tclsh against the
# package in BUILD; prints "tcltest: N passed, N failed".
build=$1; shared=$2
here=$(cd "$(dirname "$0")" && pwd)
out=$(RUBICON_BUILD=$(cd "$build" && pwd) RUBICON_SHARED=$(cd "$shared" 2>/dev/null && pwd) \
      tclsh "$here/all.tcl" 2>&1); rc=$?
printf '%s\n' "$out" | grep -E '^(==== |---- |Test file error|.*FAILED|Error)' | head -n 80
tot=$(printf '%s\n' "$out" | grep -E 'Total[[:space:]]+[0-9]+' | tail -n 1)
p=$(printf '%s' "$tot" | sed -n 's/.*Passed[[:space:]]*\([0-9]*\).*/\1/p')
f=$(printf '%s' "$tot" | sed -n 's/.*Failed[[:space:]]*\([0-9]*\).*/\1/p')
p=${p:-0}; f=${f:-0}
errs=$(printf '%s\n' "$out" | grep -c '^Test file error' )
if [ -z "$tot" ] || [ "$rc" != 0 ]; then f=$((f + 1)); printf '%s\n' "$out" | tail -n 20; fi
echo "tcltest: $p passed, $((f + errs)) failed"
