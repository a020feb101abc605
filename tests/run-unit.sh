#!/bin/sh
# run-unit.sh BUILD BIN... -- runs check unit-test programs; prints one
# "unit: N passed, N failed" line (with VALGRIND=1, under memcheck).
build=$1; shift
pass=0; fail=0
for t in "$@"; do
    name=$(basename "$t")
    if [ -n "$VALGRIND" ]; then
        command -v valgrind >/dev/null || { echo "unit: valgrind not installed, skipped"; exit 0; }
        out=$(CK_FORK=no valgrind -q --error-exitcode=99 --leak-check=full \
              --errors-for-leak-kinds=definite "$t" 2>&1); rc=$?
    else
        out=$("$t" 2>&1); rc=$?
    fi
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks: ' | tail -n 1)
    n=$(printf '%s' "$line" | sed -n 's/.*Checks: \([0-9]*\).*/\1/p')
    f=$(printf '%s' "$line" | sed -n 's/.*Failures: \([0-9]*\).*/\1/p')
    e=$(printf '%s' "$line" | sed -n 's/.*Errors: \([0-9]*\).*/\1/p')
    n=${n:-0}; f=${f:-0}; e=${e:-0}
    bad=$((f + e))
    if [ "$rc" != 0 ] && [ "$bad" = 0 ]; then bad=1; fi
    if [ -z "$line" ]; then bad=1; n=0; f=0; e=0; fi
    pass=$((pass + n - (f + e))); fail=$((fail + bad))
    if [ "$bad" != 0 ]; then
        printf '%s\n' "$out" | grep -vE '^[0-9]+%: Checks' | tail -n 40
        echo "FAILED $name (exit $rc)"
    fi
done
echo "unit: $pass passed, $fail failed"
