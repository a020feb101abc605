#!/bin/sh
# run-tcltest.sh BUILD ?JOBS? -- runs tests/*.test with tclsh against the
# package in BUILD, one tclsh per file, JOBS files at a time (default 2);
# prints the failures, the skipped tests by the constraint that skipped
# them, and one "tcltest: N passed, N failed, N skipped" line; exits 1 when
# a test failed or a test file did not run to its end.
# Files start longest first, by the times the last run left in
# BUILD/tcltest-times (by size on a first run), so the last file to start
# is a short one.
build=$1; jobs=${2:-2}
here=$(cd "$(dirname "$0")" && pwd)
RUBICON_BUILD=$(cd "$build" && pwd)
export RUBICON_BUILD
out=$RUBICON_BUILD/tcltest-out
rm -rf "$out"; mkdir -p "$out"
times=$RUBICON_BUILD/tcltest-times

for f in "$here"/*.test; do
    name=$(basename "$f")
    t=$(awk -v n="$name" '$2 == n {print $1}' "$times" 2>/dev/null)
    [ -n "$t" ] || t=$(($(wc -c < "$f") / 1000))
    echo "$t $name"
done | sort -rn | awk '{print $2}' |
    xargs -P "$jobs" -n 1 sh -c '
	start=$(date +%s)
	tclsh "$0/all.tcl" -file "$2" > "$1/$2.out" 2>&1
	echo $? > "$1/$2.rc"
	echo "$(($(date +%s) - start)) $2" > "$1/$2.time"' "$here" "$out"

cat "$out"/*.time > "$times" 2>/dev/null
pass=0; fail=0; skip=0
for f in "$here"/*.test; do
    name=$(basename "$f")
    o=$out/$name.out
    grep -E '^(==== |---- |Test file error|.*FAILED|Error)' "$o" | head -n 80
    tot=$(grep -E 'Total[[:space:]]+[0-9]+' "$o" | tail -n 1)
    p=$(printf '%s' "$tot" | sed -n 's/.*Passed[[:space:]]*\([0-9]*\).*/\1/p')
    n=$(printf '%s' "$tot" | sed -n 's/.*Failed[[:space:]]*\([0-9]*\).*/\1/p')
    errs=$(grep -c '^Test file error' "$o")
    rc=$(cat "$out/$name.rc" 2>/dev/null)
    k=$(printf '%s' "$tot" | sed -n 's/.*Skipped[[:space:]]*\([0-9]*\).*/\1/p')
    p=${p:-0}; n=${n:-0}; k=${k:-0}
    if [ -z "$tot" ] || [ "$rc" != 0 ]; then
	n=$((n + 1)); echo "---- $name: exit ${rc:-none}"; tail -n 20 "$o"
    fi
    pass=$((pass + p)); fail=$((fail + n + errs)); skip=$((skip + k))
done
# tcltest lists, after its Total line, "Number of tests skipped for each
# constraint:" and a "<count> <constraint>" line each.
for f in "$out"/*.test.out; do
    awk '/^Number of tests skipped for each constraint:/ {on = 1; next}
	 on && /^[[:space:]]+[0-9]+[[:space:]]+[^[:space:]]+$/ {print $2, $1; next}
	 {on = 0}' "$f"
done | awk '{n[$1] += $2} END {for (c in n) printf "%s%s %d", (k++ ? ", " : ""), c, n[c]; if (k) print ""}' |
    sed 's/^/tcltest skipped (by constraint): /'
echo "tcltest: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
