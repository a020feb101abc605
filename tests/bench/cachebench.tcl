# cachebench.tcl BUILD TRACE ?RUNS? ?OBJTRACE? -- the cache, heat-map and percentile
# rows of make bench (issue 18, item 6), on TRACE, the Zipf block trace
# run.sh writes with genzipf.  Each program is a separate process, timed
# by its CPU user time (/usr/bin/time; wall-clock time if it is missing:
# the machine may be shared), RUNS times (default 3) with the rounds
# interleaved, and the medians are printed as rows of bench.tcl's table:
#   exact LRU (ReuseDistanceAnalyzer) against stackdist.c, a hand-written
#     C Fenwick-tree stack: ns per block access and their ratio (aim
#     <= 1.2); the two hit-ratio curves must be equal, or the benchmark
#     stops (a fast baseline computing something else means nothing);
#   SHARDS at -sample 0.01 and 0.001, and CacheSimAnalyzer under each
#     policy at 5 cache sizes: ns per block access, and the ratio to the
#     C stack;
#   HeatmapAnalyzer (time x devOffset) and SeriesAnalyzer's per-interval
#     responseTimeP99: ns per record;
#   an empty Flow: the cost of reading the trace, which every row
#     includes ("net" figures subtract it).
# With OBJTRACE (the generated oracleGeneral trace of 10 M requests with
# Zipf popularity over 1 M objects of 4, 8 or 16 KiB: issue 31), the
# object rows:
#   CacheSimAnalyzer LRU, S3-FIFO and SIEVE of 256 MB of objects of
#     their own sizes against objlru.c, a hand-written C LRU of objects:
#     ns per request and the ratio to the C LRU (aim <= 1.2), medians of
#     RUNS; the LRU's hits must equal the C program's, or the benchmark
#     stops;
#   a sweep of 4 policies by 2 sizes (cache.tcl's sweep row) in one
#     process and under mpirun -np 2 (rubicon::run -sweep 1), one run
#     each: the speedup by wall-clock time around the command (what an
#     idle machine shows), and by CPU user time, one process's against
#     the busier rank's (what a shared machine can still show); the two
#     curves must be equal.
# Run alone as tclsh tests/bench/cachebench.tcl build bench-data/zipf8m.srt.

lassign $argv build trace runs objTrace
if {$runs eq ""} {set runs 3}
set here [file dirname [file normalize [info script]]]
set rubicon [list [file join $build rubicon] -quiet [file join $here cache.tcl] $trace]
set stackdist [list [file join $build bench stackdist] $trace]
set haveTime [file executable /usr/bin/time]
set scratch [file join [file dirname $trace] cachebench.tmp]

# median LIST -- the middle value (mean of the two middle ones if even).
proc median {values} {
    set s [lsort -real $values]
    set n [llength $s]
    expr {$n % 2 ? [lindex $s [expr {$n / 2}]]
	: ([lindex $s [expr {$n / 2 - 1}]] + [lindex $s [expr {$n / 2}]]) / 2.0}
}

# cpu ROW CMD -- runs CMD (a list; ROW, if not "", in RUBICON_BENCH_CACHE)
# with its stdout kept in ::out(ROW-or-c) and returns its CPU user
# seconds.  A failing command stops the benchmark.
proc cpu {row cmd} {
    global haveTime scratch out
    set env [expr {$row eq "" ? {} : [list env RUBICON_BENCH_CACHE=$row]}]
    set t0 [clock microseconds]
    set timer [expr {$haveTime
	? [list /usr/bin/time -f %U -o $scratch.time] : {}}]
    if {[catch {exec {*}$env {*}$timer {*}$cmd >$scratch 2>@stderr} msg]} {
	puts stderr "bench: [join $cmd] ($row) failed: $msg"
	exit 1
    }
    set wall [expr {([clock microseconds] - $t0) / 1e6}]
    set f [open $scratch]
    set out([expr {$row eq "" ? "c" : $row}]) [read $f]
    close $f
    if {!$haveTime} {
	return $wall
    }
    set f [open $scratch.time]
    set user [lindex [split [string trim [read $f]] \n] end]
    close $f
    # /usr/bin/time counts in hundredths: a shorter run reads 0.00, taken
    # as 0.01 so that the ratios stay finite (on the tests' tiny trace).
    return [expr {max($user, 0.01)}]
}

set policies {lru fifo clock lfu arc s3fifo}
set rows [list none lru shards0.01 shards0.001 \
    {*}[lmap p $policies {string cat sim- $p}] heatmap p99]
puts stderr "bench: cache rows on [file tail $trace]\
    ([expr {[llength $rows] + 1}] programs x $runs runs)"
# The CacheSim rows (6 policies x 5 sizes, about 2 CPU-minutes a round)
# run in the first round only, to keep make bench under ten minutes:
# their figures are single runs, said so in their rows.
for {set r 0} {$r < $runs} {incr r} {
    lappend times(c) [cpu "" $stackdist]
    foreach row $rows {
	if {$r == 0 || ![string match sim-* $row]} {
	    lappend times($row) [cpu $row $rubicon]
	}
    }
}
file delete $scratch $scratch.time
foreach name [array names times] {
    set t($name) [median $times($name)]
}

# The curves: stackdist's output is cache.tcl's lru output but for its
# first line.
set rbLines [split [string trim $out(lru)] \n]
set cLines [split [string trim $out(c)] \n]
if {[lrange $rbLines 1 end] ne $cLines} {
    puts stderr "bench: the exact LRU curves differ: rubicon\
	[lindex $rbLines 1], C [lindex $cLines 0]; first rows\
	[lrange $rbLines 2 4] / [lrange $cLines 1 3]"
    exit 1
}
lassign [lindex $cLines 0] - accesses - cold - distinct
set records [lindex $out(none) 3]
foreach row [lrange $rows 1 end-2] {
    if {[lindex $out($row) 1] != $accesses} {
	puts stderr "bench: $row counted [lindex $out($row) 1] block\
	    accesses, not $accesses"
	exit 1
    }
}

proc s {v} {format "%7.2f s" $v}
proc ns {seconds n} {expr {$seconds * 1e9 / $n}}
set unit [expr {$haveTime ? "CPU user time" : "wall-clock time (no /usr/bin/time)"}]
set cNs [ns $t(c) $accesses]
set readNs [ns $t(none) $accesses]
puts [format "%-34s %9s   %d records, %d block accesses, %d distinct blocks\
    (Zipf 0.9); %s, medians of %d" \
    "(10) cache curves, Zipf trace" "" $records $accesses $distinct $unit $runs]
set ratio [expr {$t(lru) / $t(c)}]
puts [format "%-34s %9s %9s %6.2f   %.0f vs C %.0f ns per access (aim <= 1.2: %s);\
    net of reading %.0f ns; curves equal (%d rows)" \
    "    exact LRU vs C Fenwick stack" [s $t(lru)] [s $t(c)] $ratio \
    [ns $t(lru) $accesses] $cNs [expr {$ratio <= 1.2 ? "met" : "NOT met"}] \
    [expr {[ns $t(lru) $accesses] - $readNs}] [llength $cLines]]
foreach rate {0.01 0.001} {
    set row shards$rate
    puts [format "%-34s %9s %9s %6.2f   %.0f ns per access, net %.0f;\
	%.1fx faster than exact LRU (net %.1fx)" \
	"    SHARDS -sample $rate" [s $t($row)] "" [expr {$t($row) / $t(c)}] \
	[ns $t($row) $accesses] [expr {[ns $t($row) $accesses] - $readNs}] \
	[expr {$t(lru) / $t($row)}] \
	[expr {($t(lru) - $t(none)) / max(1e-9, $t($row) - $t(none))}]]
}
foreach p $policies {
    set row sim-$p
    set net [expr {[ns $t($row) $accesses] - $readNs}]
    puts [format "%-34s %9s %9s %6.2f   %.0f ns per access, net %.0f\
	(%.0f per access per cache size)" \
	"    CacheSim $p, 5 sizes (1 run)" [s $t($row)] "" \
	[expr {$t($row) / $t(c)}] [ns $t($row) $accesses] $net [expr {$net / 5}]]
}
foreach {row label} {heatmap "    Heatmap, time x devOffset" \
	p99 "    Series -stats responseTimeP99"} {
    puts [format "%-34s %9s %9s %6s   %.0f ns per record, net %.0f" \
	$label [s $t($row)] "" "" [ns $t($row) $records] \
	[expr {[ns $t($row) $records] - [ns $t(none) $records]}]]
}
puts [format "%-34s %9s %9s %6s   %.0f ns per record, %.0f per block access\
    (ratio column: / C stack; net: less this)" \
    "    empty Flow (reading)" [s $t(none)] "" "" [ns $t(none) $records] $readNs]

if {$objTrace eq ""} {
    exit 0
}

# The object rows.
set rubicon [list [file join $build rubicon] -quiet [file join $here cache.tcl] $objTrace]
set capacity [expr {256 * 1024 * 1024}]
set objlru [list [file join $build bench objlru] $objTrace $capacity]
set objRows {obj-none obj-lru obj-s3fifo obj-sieve}
puts stderr "bench: object cache rows on [file tail $objTrace]\
    ([expr {[llength $objRows] + 1}] programs x $runs runs, then a sweep at 1 and 2 ranks)"
array unset times
for {set r 0} {$r < $runs} {incr r} {
    lappend times(c) [cpu "" $objlru]
    foreach row $objRows {
	lappend times($row) [cpu $row $rubicon]
    }
}
foreach name [array names times] {
    set t($name) [median $times($name)]
}
lassign $out(c) - requests - cHits
if {[lindex $out(obj-lru) 1] != $requests || [lindex $out(obj-lru) 5] != $cHits} {
    puts stderr "bench: CacheSim LRU counted [lindex $out(obj-lru) 1] requests and\
	[lindex $out(obj-lru) 5] hits, the C LRU $requests and $cHits"
    exit 1
}

# The sweep, by wall-clock time around the whole command.
set ::env(OMPI_ALLOW_RUN_AS_ROOT) 1
set ::env(OMPI_ALLOW_RUN_AS_ROOT_CONFIRM) 1
if {![info exists ::env(OMPI_MCA_pml)]} {
    set ::env(OMPI_MCA_pml) ob1
}
# sweep NP -- {wall cpu curve} of the sweep row on NP ranks (1: one
# process, no mpirun): cpu is the largest rank's CPU user time.
proc sweep {np} {
    global scratch rubicon haveTime
    foreach old [glob -nocomplain $scratch.rank.*] {
	file delete $old
    }
    set cmd $rubicon
    if {$haveTime} {
	set cmd [list sh -c {exec /usr/bin/time -f %U \
	    -o "$0.${OMPI_COMM_WORLD_RANK:-0}" "$@"} $scratch.rank {*}$cmd]
    }
    if {$np > 1} {
	set cmd [list mpirun --oversubscribe -np $np {*}$cmd]
    }
    set t0 [clock microseconds]
    if {[catch {exec env RUBICON_BENCH_CACHE=sweep {*}$cmd >$scratch 2>@stderr} msg]} {
	puts stderr "bench: [join $cmd] (sweep) failed: $msg"
	exit 1
    }
    set wall [expr {([clock microseconds] - $t0) / 1e6}]
    set f [open $scratch]
    set curve [lindex [split [string trim [read $f]] \n] end]
    close $f
    set cpu 0
    for {set r 0} {$haveTime && $r < $np} {incr r} {
	set f [open $scratch.rank.$r]
	set cpu [expr {max($cpu, [lindex [split [string trim [read $f]] \n] end])}]
	close $f
	file delete $scratch.rank.$r
    }
    list $wall $cpu $curve
}
set haveMpi [expr {[auto_execok mpirun] ne ""}]
lassign [sweep 1] sweepWall1 sweepCpu1 curve1
if {$haveMpi} {
    lassign [sweep 2] sweepWall2 sweepCpu2 curve2
    if {$curve1 ne $curve2} {
	puts stderr "bench: the sweep's curves at 1 and 2 ranks differ"
	exit 1
    }
}
file delete $scratch $scratch.time

set cNs [ns $t(c) $requests]
set readNs [ns $t(obj-none) $requests]
puts [format "%-34s %9s   %d requests to objects of 4-16 KiB (Zipf 0.9), 256 MB\
    caches; %s, medians of %d" "(10b) object caches, Zipf trace" "" \
    $requests $unit $runs]
puts [format "%-34s %9s %9s %6s   %.0f ns per request, %d hits" \
    "    C LRU of objects (objlru.c)" [s $t(c)] "" "" $cNs $cHits]
foreach {row label} {obj-lru LRU obj-s3fifo S3-FIFO obj-sieve SIEVE} {
    set ratio [expr {$t($row) / $t(c)}]
    puts [format "%-34s %9s %9s %6.2f   %.0f ns per request (aim <= 1.2 x C LRU:\
	%s); net of reading %.0f" "    CacheSim $label, 256 MB" [s $t($row)] [s $t(c)] \
	$ratio [ns $t($row) $requests] [expr {$ratio <= 1.2 ? "met" : "NOT met"}] \
	[expr {[ns $t($row) $requests] - $readNs}]]
}
puts [format "%-34s %9s %9s %6s   %.0f ns per request" \
    "    empty Flow (reading)" [s $t(obj-none)] "" "" $readNs]
if {$haveMpi} {
    puts [format "%-34s %9s %9s %6.2f   speedup of 2 ranks (-sweep 1) over one\
	process, wall-clock, one run each; by CPU user time of the busier rank\
	%.2f (%.2f s against %.2f s); curves equal (%d rows)" \
	"    sweep 4 policies x 2 sizes" [s $sweepWall2] [s $sweepWall1] \
	[expr {$sweepWall1 / $sweepWall2}] \
	[expr {$sweepCpu2 > 0 ? $sweepCpu1 / $sweepCpu2 : 0}] $sweepCpu2 $sweepCpu1 \
	[llength $curve1]]
} else {
    puts [format "%-34s %9s   one process; 2 ranks skipped: needs mpirun (openmpi-bin)" \
	"    sweep 4 policies x 2 sizes" [s $sweepWall1]]
}
