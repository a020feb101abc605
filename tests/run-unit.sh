#!/bin/sh
# run-unit.sh BUILD BIN... -- runs check unit-test programs, JOBS at a time
# (default 2), longest first by the times the last run left in
# BUILD/unit-times; prints the failures and one "unit: N passed, N failed"
# line (with VALGRIND=1, under memcheck).
build=$1; shift
jobs=${JOBS:-2}
if [ -n "$VALGRIND" ] && ! command -v valgrind >/dev/null; then
    echo "unit: valgrind not installed, skipped"; exit 0
fi
out=$build/unit-out${VALGRIND:+-valgrind}
times=$build/unit-times${VALGRIND:+-valgrind}
rm -rf "$out"; mkdir -p "$out"

for t in "$@"; do
    s=$(awk -v n="$(basename "$t")" '$2 == n {print $1}' "$times" 2>/dev/null)
    echo "${s:-0} $t"
done | sort -rn | awk '{print $2}' |
    xargs -P "$jobs" -n 1 sh -c '
	name=$(basename "$1")
	start=$(date +%s)
	if [ -n "$VALGRIND" ]; then
	    CK_FORK=no valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite "$1" > "$0/$name.out" 2>&1
	else
	    "$1" > "$0/$name.out" 2>&1
	fi
	echo $? > "$0/$name.rc"
	echo "$(($(date +%s) - start)) $name" > "$0/$name.time"' "$out"

cat "$out"/*.time > "$times" 2>/dev/null
pass=0; fail=0
for t in "$@"; do
    name=$(basename "$t")
    rc=$(cat "$out/$name.rc" 2>/dev/null)
    line=$(grep -E '^[0-9]+%: Checks: ' "$out/$name.out" 2>/dev/null | tail -n 1)
    n=$(printf '%s' "$line" | sed -n 's/.*Checks: \([0-9]*\).*/\1/p')
    f=$(printf '%s' "$line" | sed -n 's/.*Failures: \([0-9]*\).*/\1/p')
    e=$(printf '%s' "$line" | sed -n 's/.*Errors: \([0-9]*\).*/\1/p')
    n=${n:-0}; f=${f:-0}; e=${e:-0}
    bad=$((f + e))
    if [ "$rc" != 0 ] && [ "$bad" = 0 ]; then bad=1; fi
    if [ -z "$line" ]; then bad=1; n=0; f=0; e=0; fi
    pass=$((pass + n - (f + e))); fail=$((fail + bad))
    if [ "$bad" != 0 ]; then
	grep -vE '^[0-9]+%: Checks' "$out/$name.out" 2>/dev/null | tail -n 40
	echo "FAILED $name (exit ${rc:-none})"
    fi
done
echo "unit: $pass passed, $fail failed, 0 skipped"
[ "$fail" = 0 ]
