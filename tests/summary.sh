#!/bin/sh
# summary.sh RESULTS -- adds up the "...: N passed, N failed" lines and
# prints the one closing line; exits non-zero when anything failed.
awk '/[0-9]+ passed, [0-9]+ failed/ {
        for (i = 1; i <= NF; i++) {
            if ($(i) ~ /^passed,?$/) p += $(i-1)
            if ($(i) ~ /^failed$/) f += $(i-1)
        }
     }
     END { printf "%d passed, %d failed\n", p, f; exit (f > 0) }' "$1"
