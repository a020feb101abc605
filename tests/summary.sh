#!/bin/sh
# summary.sh RESULTS -- adds up the "...: N passed, N failed, N skipped"
# lines, repeats the reasons tests were skipped, and prints the one closing
# line "N passed, N failed, N skipped"; exits non-zero when anything failed.
grep 'skipped (by constraint):' "$1"
awk '/[0-9]+ passed, [0-9]+ failed/ {
        for (i = 1; i <= NF; i++) {
            if ($(i) ~ /^passed,?$/) p += $(i-1)
            if ($(i) ~ /^failed,?$/) f += $(i-1)
            if ($(i) ~ /^skipped,?$/ && $(i-1) ~ /^[0-9]+$/) s += $(i-1)
        }
     }
     END { printf "%d passed, %d failed, %d skipped\n", p, f, s; exit (f > 0) }' "$1"
