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
core="generic/core/error.c generic/core/schema.c generic/core/batch.c generic/core/timefmt.c"
io="generic/io/input.c generic/io/ring.c generic/io/zstdInput.c generic/io/srt.c generic/io/native.c generic/io/nativeCols.c generic/io/kit.c generic/io/reader.c
    generic/io/text.c generic/io/msr.c generic/io/spc.c generic/io/disksim.c generic/io/csv.c
    generic/io/blkpair.c generic/io/blkparse.c generic/io/blktrace.c
    generic/io/ftrace.c generic/io/blktracer.c generic/io/blockevents.c
    generic/io/fixed.c generic/io/alibaba.c generic/io/tencent.c
    generic/io/oracleGeneral.c generic/io/vscsi.c generic/io/twitter.c"
readers="msr spc disksim csv csvtrace blkparse blktrace blktracer blockevents
    alibaba tencent oraclegeneral vscsi twitter"
mkdir -p build/fuzz fuzz-out

build() {	# build NAME SOURCES...
    name=$1; shift
    echo "fuzz: building $name"
    clang $flags "$@" $libs -o build/fuzz/$name
}
build filter tests/fuzz/fuzz_filter.c generic/filter/filter*.c $core
build srt -DUSE_TCL_STUBS tests/fuzz/fuzz_srt.c $io $core
build native -DUSE_TCL_STUBS tests/fuzz/fuzz_native.c $io $core
for name in $readers; do
    build $name -DUSE_TCL_STUBS tests/fuzz/fuzz_$name.c $io $core
done
build magpie -DUSE_TCL_STUBS tests/fuzz/fuzz_magpie.c \
    generic/plugins/magpie/eventlog.c generic/plugins/magpie/schema.c $io $core
build magpiecsv -DUSE_TCL_STUBS tests/fuzz/fuzz_magpiecsv.c \
    generic/plugins/magpie/csvlog.c generic/plugins/magpie/eventlog.c \
    generic/plugins/magpie/schema.c $io $core

# The request-parser harnesses drive the whole package through its Tcl
# commands: every library source, compiled once (again when it or a
# header changes) with the harnesses' instrumentation.
libflags="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -D_GNU_SOURCE
    -DUSE_TCL_STUBS -Igeneric -I$tcl $(sed -n 's/^\(XLSX\|STARDUST\)_CFLAGS = //p' config.mk)"
liblibs="$(sed -n 's/^\(XLSX\|STARDUST\)_LIBS = //p' config.mk) -lpthread"
mkdir -p build/fuzz/lib
tclsh scripts/embed.tcl build/fuzz/lib/libscript.c library/*.tcl
echo "fuzz: building the library for the parser harnesses"
libobjs=""
for src in $(find generic -name '*.c' | sort) build/fuzz/lib/libscript.c; do
    obj=build/fuzz/lib/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')
    if ! [ "$obj" -nt "$src" ] || [ -n "$(find generic -name '*.h' -newer "$obj")" ]; then
	clang $libflags -c "$src" -o "$obj"
    fi
    libobjs="$libobjs $obj"
done
for name in magpieparser magpieschema; do
    echo "fuzz: building $name"
    clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Igeneric \
	-I$tcl tests/fuzz/fuzz_$name.c $libobjs $libs $liblibs \
	-o build/fuzz/$name
done

stardust="generic/plugins/stardust/reader.c generic/plugins/stardust/types.c"
build stardust -DUSE_TCL_STUBS tests/fuzz/fuzz_stardust.c $stardust $io $core
build stardust_text -DUSE_TCL_STUBS tests/fuzz/fuzz_stardust_text.c $stardust \
    $io $core
# The Zipkin reader needs libjansson (as the library build does).
zipkin=""
if [ -f /usr/include/jansson.h ]; then
    zipkin=zipkin
    build zipkin -DUSE_TCL_STUBS -DHAVE_JANSSON tests/fuzz/fuzz_zipkin.c \
	generic/plugins/stardust/zipkin.c generic/plugins/stardust/spans.c \
	$stardust $io $core -ljansson
else
    echo "fuzz: libjansson-dev is missing; skipping zipkin"
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
