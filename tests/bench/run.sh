#!/bin/sh
# run.sh BUILD -- make bench: builds the baselines, generates the inputs
# in bench-data/ (kept between runs, regenerated when the generator
# changes), then times Rubicon against them (bench.tcl) and prints one
# table.  Takes under ten minutes on two quiet cores (most of it awk,
# Python and sqlite3 on the 10 M-line CSV), plus about six minutes of CPU
# for the cache rows (cachebench.tcl: CacheSimAnalyzer simulates its five
# cache sizes exactly under six policies, 10 M block accesses each); the
# first run adds about three minutes to generate the inputs (the Magpie
# and Stardust simulators are Tcl).
set -e
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case $build in /*) ;; *) build=$root/$build ;; esac
data=$root/bench-data
out=$build/bench

[ -x "$build/rubicon" ] || { echo "bench: $build/rubicon is missing; run make first" >&2; exit 1; }
for tool in gcc awk python3 gzip zcat bzip2 tclsh; do
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

# pandas and DuckDB, the tools users compare with, when they can be had:
# python3-pandas from Debian (as root), DuckDB's Node.js package from the
# npm registry into bench-data/duckdb.  Their rows are skipped, with a
# note, when not.
if ! python3 -c 'import pandas' 2>/dev/null && ! /usr/bin/python3 -c 'import pandas' 2>/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "bench: installing python3-pandas for the pandas baseline" >&2
	apt-get install -y -q python3-pandas >/dev/null 2>&1 || \
	    echo "bench: could not install python3-pandas; its rows will be skipped" >&2
    fi
fi
if command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1 && \
	! [ -d "$root/bench-data/duckdb/node_modules/@duckdb/node-api" ]; then
    echo "bench: installing DuckDB (@duckdb/node-api) from the npm registry" >&2
    mkdir -p "$root/bench-data/duckdb"
    npm install --prefix "$root/bench-data/duckdb" --no-audit --no-fund -s \
	@duckdb/node-api >/dev/null 2>&1 || \
	echo "bench: could not install @duckdb/node-api; its rows will be skipped" >&2
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
# The 100 M-line CSV (5.8 GB, about four minutes to write) only on
# request: RUBICON_BENCH_BIG=1 make bench.
if [ -n "$RUBICON_BENCH_BIG" ] && ! fresh "$data/t100m.csv"; then
    echo "bench: generating 100 M records as CSV in $data (5.8 GB)" >&2
    "$out/gensrt" -n 100000000 -csv "$data/t100m.csv.tmp"
    mv "$data/t100m.csv.tmp" "$data/t100m.csv"
fi
# The scale-out rows' four files: the 10 M records cut in four, in order.
if ! [ -s "$data/t10m-part3.srt" ] || ! [ "$data/t10m-part3.srt" -nt "$data/t10m.srt" ]; then
    echo "bench: cutting the 10 M-record trace into four files" >&2
    tclsh "$here/splitsrt.tcl" "$data/t10m.srt" 4 "$data/t10m-part"
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
# The cache rows' trace: 8 M I/Os (10 M block accesses) with Zipf
# popularity over 1 M blocks (genzipf.c), 700 MB.
if ! [ -s "$data/zipf8m.srt" ] || ! [ "$data/zipf8m.srt" -nt "$out/genzipf" ]; then
    echo "bench: generating 8 M Zipf block I/Os as SRT for the cache rows" >&2
    "$out/genzipf" -n 8000000 -blocks 1000000 -s 0.9 "$data/zipf8m.srt.tmp"
    mv "$data/zipf8m.srt.tmp" "$data/zipf8m.srt"
fi
# The object cache rows' trace, as issue 31 asks: a generated
# oracleGeneral trace of 10 M requests with Zipf popularity over 1 M
# objects (genzipf.c -oracle), 240 MB.
if ! [ -s "$data/zipf10m.oracleGeneral" ] || ! [ "$data/zipf10m.oracleGeneral" -nt "$out/genzipf" ]; then
    echo "bench: generating 10 M Zipf requests as oracleGeneral for the object cache rows" >&2
    "$out/genzipf" -n 10000000 -blocks 1000000 -s 0.9 -oracle "$data/zipf10m.oracleGeneral.tmp"
    mv "$data/zipf10m.oracleGeneral.tmp" "$data/zipf10m.oracleGeneral"
    rm -f "$data/zipf10m.srt"
fi
if ! [ -s "$data/t1m.srt.gz" ] || ! [ "$data/t1m.srt.gz" -nt "$data/t1m.srt" ]; then
    echo "bench: compressing the 1 M-record trace with gzip" >&2
    gzip -c "$data/t1m.srt" > "$data/t1m.srt.gz.tmp"
    mv "$data/t1m.srt.gz.tmp" "$data/t1m.srt.gz"
fi

if ! [ -s "$data/t1m.srt.bz2" ] || ! [ "$data/t1m.srt.bz2" -nt "$data/t1m.srt" ]; then
    echo "bench: compressing the 1 M-record trace with bzip2" >&2
    bzip2 -c "$data/t1m.srt" > "$data/t1m.srt.bz2.tmp"
    mv "$data/t1m.srt.bz2.tmp" "$data/t1m.srt.bz2"
fi

# The parse rows' inputs, 1 M records each: the first million lines of
# the CSV, the same records as SPC, and the 1 M-record trace converted to
# the native format of version 1 (gzip).
if ! [ -s "$data/t1m.csv" ] || ! [ "$data/t1m.csv" -nt "$data/t10m.csv" ]; then
    echo "bench: taking the first 1 M records of the CSV" >&2
    head -n 1000000 "$data/t10m.csv" > "$data/t1m.csv.tmp"
    mv "$data/t1m.csv.tmp" "$data/t1m.csv"
fi
if ! [ -s "$data/t1m.spc" ] || ! [ "$data/t1m.spc" -nt "$data/t1m.csv" ] || \
	! [ "$data/t1m.spc" -nt "$here/csv2spc.awk" ]; then
    echo "bench: writing the same 1 M records as SPC" >&2
    awk -f "$here/csv2spc.awk" "$data/t1m.csv" > "$data/t1m.spc.tmp"
    mv "$data/t1m.spc.tmp" "$data/t1m.spc"
fi
if ! [ -s "$data/t1m.rbn.gz" ] || ! [ "$data/t1m.rbn.gz" -nt "$data/t1m.srt" ] || \
	! [ "$data/t1m.rbn.gz" -nt "$build/rubicon" ]; then
    echo "bench: converting the 1 M-record trace to gzipped native" >&2
    # convert writes under a temporary name itself; the .tmp suffix would
    # hide the .gz from it, so the old file is removed first instead.
    rm -f "$data/t1m.rbn.gz"
    "$build/rubicon" convert -compression gzip "$data/t1m.srt" "$data/t1m.rbn.gz" >/dev/null
fi
# The native rows' inputs: the 10 M records in the native format, its
# columns zstd-compressed (the default), raw (read through a memory map)
# and gzip (version 1, which the C baseline srtbase reads).
for c in zstd none gzip; do
    f=$data/t10m-$c.rbn
    if ! [ -s "$f" ] || ! [ "$f" -nt "$data/t10m.srt" ] || ! [ "$f" -nt "$build/rubicon" ]; then
	echo "bench: converting the 10 M-record trace to native, -compression $c (about 15 s)" >&2
	rm -f "$f"
	"$build/rubicon" convert -compression $c "$data/t10m.srt" "$f" >/dev/null
    fi
done
rm -f "$data/t10m.rbn"
# The Magpie row's log: tests/magpie/sim.tcl, 5 clients, 92,000 requests
# (about 1 M events: the paper's run had 1.2 M).  The simulator
# is Tcl and slow (about 20 k events a second), so the log is kept.
MAGPIE_REQUESTS=92000
if ! [ -s "$data/magpie/web1.log" ] || ! [ "$data/magpie/web1.log" -nt "$root/tests/magpie/sim.tcl" ]; then
    echo "bench: simulating a Magpie log (5 clients, $MAGPIE_REQUESTS requests; about a minute)" >&2
    rm -rf "$data/magpie.tmp"
    mkdir -p "$data/magpie.tmp"
    tclsh "$root/tests/magpie/sim.tcl" -clients 5 -requests $MAGPIE_REQUESTS \
	-seed 7 -out "$data/magpie.tmp"
    rm -rf "$data/magpie"
    mv "$data/magpie.tmp" "$data/magpie"
fi
# The Stardust row's activity records: tests/stardust/sim.tcl, 8,000
# requests (about 300 k records), kept for the same reason.
if ! [ -s "$data/stardust.sdact" ] || ! [ "$data/stardust.sdact" -nt "$root/tests/stardust/sim.tcl" ]; then
    echo "bench: simulating Stardust activity records (8000 requests)" >&2
    tclsh "$root/tests/stardust/sim.tcl" -requests 8000 -seed 7 \
	"$data/stardust.sdact.tmp" "$data/stardust.truth.tcl"
    mv "$data/stardust.sdact.tmp" "$data/stardust.sdact"
fi

exec tclsh "$here/bench.tcl" "$build" "$data"
