#!/bin/sh
# lsan-check.sh DIR -- after make check's AddressSanitizer pass over the
# tcltest files: the leak reports (and any other AddressSanitizer report)
# in DIR (ASAN_OPTIONS log_path) that involve Rubicon's code (a frame in
# generic/ or unix/).  The pass runs
# tclsh with libasan preloaded, so every program a test starts (gnuplot,
# fio, python3, sqlite3, dot, a shell) is leak-checked too; their leaks
# are theirs and are left out, as is every report without a Rubicon
# frame.  Prints one "lsan: N passed, N failed" line (failed: the reports
# kept, each printed) for tests/summary.sh; exits 1 if any.
dir=$1
bad=0
for f in "$dir"/log.*; do
    [ -f "$f" ] || continue
    if grep -Eq 'LeakSanitizer|ERROR: AddressSanitizer' "$f" && grep -Eq ' (generic|unix)/[A-Za-z0-9_/]+\.c:' "$f"; then
	echo "==== leak report $f"
	cat "$f"
	bad=$((bad + 1))
    fi
done
echo "lsan: $((bad == 0)) passed, $bad failed"
[ "$bad" -eq 0 ]
