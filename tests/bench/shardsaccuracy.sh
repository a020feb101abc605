#!/bin/sh
# shardsaccuracy.sh ?BUILD? ?NUMBERINGS? -- run by hand, not by make check
# or make bench (about 15 s a numbering on two cores): the accuracy of
# ReuseDistanceAnalyzer's SHARDS that ReuseDistanceAnalyzer(n) states.
# 4 M accesses over 1 M blocks with Zipf(0.9) popularity (zipfblocks.c),
# the same accesses under the identity block numbering and NUMBERINGS-1
# random ones (default 7 in all); a line per numbering: the mean and
# largest absolute error of hitRatio against the exact curve over the
# cache sizes 1024 ... 524288 blocks at -sample 0.1, 0.01, 0.001 and with
# -samplesize 8192 (shardsaccuracy.tcl).
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
count=${2:-7}
out=$build/shardsaccuracy
mkdir -p "$out"
gcc -O2 -o "$out/zipfblocks" "$here/zipfblocks.c" -lm
i=0
while [ "$i" -lt "$count" ]; do
    "$out/zipfblocks" 1000000 4000000 0.9 1 "$i" > "$out/zipf-perm$i.csv"
    printf 'numbering %d: ' "$i"
    "$build/rubicon" "$here/shardsaccuracy.tcl" "$out/zipf-perm$i.csv"
    rm -f "$out/zipf-perm$i.csv"
    i=$((i + 1))
done
