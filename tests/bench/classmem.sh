#!/bin/sh
# classmem.sh ?N? -- the peak resident memory of each Analyzer class of
# the kit alone, over generated SRT traces of N/2 and N records (default
# 10 M; gensrt's mix: 158 devices, Zipf popularity, half sequential), one
# process per class and length, by /usr/bin/time.  A streaming class
# keeps the same memory at both lengths; a per-block or per-key class
# grows with the distinct keys up to its documented -limit (its man
# page's MEMORY section), where it stops the run with RUBICON LIMIT.
# Prints "class rss-at-N/2 rss-at-N growth outcome", RSS in MB.  Run by
# hand (not by make check or make bench: about 100 runs).
set -e
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
n=${1:-10000000}
build=${RUBICON_BUILD:-$top/build}
work=${TMPDIR:-/tmp}/rubicon-classmem
mkdir -p "$work"
cc -O2 -o "$work/gensrt" "$here/gensrt.c" -lm
[ -s "$work/full.srt" ] || "$work/gensrt" -n "$n" -srt "$work/full.srt"
[ -s "$work/half.srt" ] || "$work/gensrt" -n $((n / 2)) -srt "$work/half.srt"
classes=$("$build/rubicon" "$here/classmem.tcl" -list "$work/half.srt")
printf "%-28s %10s %10s %8s  %s\n" class "MB@N/2" "MB@N" growth outcome
for c in $classes; do
    line=""
    for t in half full; do
	out=$(/usr/bin/time -f "rss %M" "$build/rubicon" "$here/classmem.tcl" "$c" "$work/$t.srt" 2>&1 | tail -n 2)
	rss=$(echo "$out" | sed -n 's/^rss //p')
	line="$line $rss"
	outcome=$(echo "$out" | grep -v '^rss ' | tail -n 1)
    done
    echo "$c $line" | awk -v o="$outcome" \
	'{printf "%-28s %10.1f %10.1f %8.2f  %s\n", $1, $2 / 1024, $3 / 1024, $3 / $2, o}'
done
