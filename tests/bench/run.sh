#!/bin/sh
# run.sh BUILD -- make bench: builds the baselines, generates the inputs
# in bench-data/ (kept between runs, regenerated when the generator
# changes), then times Rubicon against them (bench.tcl) and prints one
# table.  Takes about six minutes on two quiet cores (most of it awk,
# Python and sqlite3 on the 10 M-line CSV); the first run adds half a
# minute to generate the inputs.
set -e
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case $build in /*) ;; *) build=$root/$build ;; esac
data=$root/bench-data
out=$build/bench

[ -x "$build/rubicon" ] || { echo "bench: $build/rubicon is missing; run make first" >&2; exit 1; }
for tool in gcc awk python3 gzip zcat tclsh; do
    command -v $tool >/dev/null 2>&1 || { echo "bench: $tool is needed and not installed" >&2; exit 1; }
done
if ! command -v sqlite3 >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "bench: installing sqlite3 for the SQL baseline" >&2
	apt-get install -y -q sqlite3 >/dev/null 2>&1 || \
	    echo "bench: could not install sqlite3; its row will be skipped" >&2
    else
	echo "bench: sqlite3 is not installed (apt-get install sqlite3); its row will be skipped" >&2
    fi
fi

make -s -C "$here" OUT="$out" CFLAGS="-O2 -Wall -Wextra"

# fresh FILE -- true when FILE exists and is newer than the generator, so
# that a changed generator never leaves stale inputs behind.
fresh() { [ -s "$1" ] && [ "$1" -nt "$out/gensrt" ]; }

mkdir -p "$data"
# Every input is written under a temporary name and renamed when complete:
# an interrupted run never leaves a half-written file that looks reusable.
if ! fresh "$data/t10m.srt" || ! fresh "$data/t10m.csv"; then
    echo "bench: generating 10 M records as SRT and CSV in $data" >&2
    "$out/gensrt" -n 10000000 -srt "$data/t10m.srt.tmp" -csv "$data/t10m.csv.tmp"
    mv "$data/t10m.csv.tmp" "$data/t10m.csv"
    mv "$data/t10m.srt.tmp" "$data/t10m.srt"
fi
if ! fresh "$data/t1m.srt"; then
    echo "bench: generating 1 M records as SRT" >&2
    "$out/gensrt" -n 1000000 -srt "$data/t1m.srt.tmp"
    mv "$data/t1m.srt.tmp" "$data/t1m.srt"
fi
if ! fresh "$data/t200k.srt"; then
    echo "bench: generating 200 k records as SRT for the analyzer kit" >&2
    "$out/gensrt" -n 200000 -srt "$data/t200k.srt.tmp"
    mv "$data/t200k.srt.tmp" "$data/t200k.srt"
fi
if ! [ -s "$data/t1m.srt.gz" ] || ! [ "$data/t1m.srt.gz" -nt "$data/t1m.srt" ]; then
    echo "bench: compressing the 1 M-record trace with gzip" >&2
    gzip -c "$data/t1m.srt" > "$data/t1m.srt.gz.tmp"
    mv "$data/t1m.srt.gz.tmp" "$data/t1m.srt.gz"
fi

exec tclsh "$here/bench.tcl" "$build" "$data"
