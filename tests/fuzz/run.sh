#!/bin/sh
# run.sh -- builds every libFuzzer harness with clang and runs each for
# FUZZ_SECONDS (default 60) on a copy of its committed seed corpus, so
# new inputs land in fuzz-out/ (git-ignored), not in the tree.  Crashes
# are written to fuzz-out/<name>/ and stop the run with a non-zero exit;
# add them to tests/fuzz/corpus/<name>/ and to the unit tests once fixed.
set -e
cd "$(dirname "$0")/../.."
secs=${FUZZ_SECONDS:-60}
command -v clang >/dev/null || { echo "fuzz: clang is needed (apt-get install clang)"; exit 1; }
tcl=/usr/include/tcl8.6
flags="-g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Igeneric -I$tcl"
libs="-ltcl8.6 -ltclstub8.6 -lz -lbz2 -lzstd -lm -lpthread"
readers="msr spc disksim csv csvtrace blkparse blktrace blktracer blockevents
    alibaba tencent oraclegeneral vscsi twitter"
mkdir -p build/fuzz/lib fuzz-out

# Every harness links the whole library, compiled once (again when a
# source or a header changes) with the harnesses' instrumentation, so a
# reader that calls into the engine links as it does in the program.
# RB_MULTIARCH as the Makefile gives it (glue.c: where an installed
# program finds its package).
multiarch=$(clang -print-multiarch 2>/dev/null || true)
libflags="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -D_GNU_SOURCE
    -DUSE_TCL_STUBS -DRB_MULTIARCH=\"$multiarch\" -Igeneric -I$tcl $(sed -n 's/^\(XLSX\|STARDUST\)_CFLAGS = //p' config.mk)"
liblibs="$(sed -n 's/^\(XLSX\|STARDUST\)_LIBS = //p' config.mk) -lpthread"
tclsh scripts/embed.tcl build/fuzz/lib/libscript.c library/*.tcl
echo "fuzz: building the library"
libobjs=""
for src in $(find generic -name '*.c' | sort) build/fuzz/lib/libscript.c; do
    obj=build/fuzz/lib/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')
    if ! [ "$obj" -nt "$src" ] || [ -n "$(find generic -name '*.h' -newer "$obj")" ]; then
	clang $libflags -c "$src" -o "$obj"
    fi
    libobjs="$libobjs $obj"
done

build() {	# build NAME FLAGS...
    name=$1; shift
    echo "fuzz: building $name"
    clang $flags "$@" tests/fuzz/fuzz_$name.c $libobjs $libs $liblibs \
	-o build/fuzz/$name
}
# The library calls Tcl through the stubs table: a harness either fills it
# itself (-DUSE_TCL_STUBS: it calls libtcl directly, then Tcl_InitStubs)
# or loads the package (the request parsers: Rubicon_Init fills it).
for name in filter srt native $readers magpie magpiecsv stardust \
	stardust_text; do
    build $name -DUSE_TCL_STUBS
done
build magpieparser
build magpieschema
zipkin=""
if grep -q HAVE_JANSSON config.mk; then
    zipkin=zipkin
    build zipkin -DUSE_TCL_STUBS -DHAVE_JANSSON
else
    echo "fuzz: built without libjansson; skipping zipkin"
fi

status=0
# FUZZ_ONLY="msr csv" runs only those harnesses.
for name in ${FUZZ_ONLY:-filter srt native $readers magpie magpiecsv \
	magpieparser magpieschema stardust stardust_text $zipkin}; do
    work=fuzz-out/$name
    mkdir -p $work/corpus $work/crashes
    cp -r tests/fuzz/corpus/$name/. $work/corpus/
    dict=""
    [ -f tests/fuzz/$name.dict ] && dict="-dict=tests/fuzz/$name.dict"
    echo "fuzz: $name for $secs s"
    if ! build/fuzz/$name $dict -max_total_time=$secs -print_final_stats=1 \
	    -artifact_prefix=$work/crashes/ $work/corpus > $work/log 2>&1; then
	status=1
	echo "fuzz: $name FOUND A CRASH; see $work/log and $work/crashes/"
    fi
    runs=$(grep -E 'stat::number_of_executed_units' $work/log | awk '{print $2}')
    echo "fuzz: $name: ${runs:-?} runs"
done
exit $status
