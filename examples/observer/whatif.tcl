# whatif.tcl -- Observer end to end: characterize a block-I/O trace,
# derive a queueing model from it, and answer three what-if questions,
# each predicted by the model (MVA) and simulated (tests/observer/qsim.tcl)
# side by side.
#
#   tclsh examples/observer/whatif.tcl ?TRACE? ?CACHE-BLOCKS? ?EVENTS?
#
# TRACE defaults to tests/fixtures/fig4.srt.  The model: every I/O is a
# job of one closed workload "io" that visits the devices; a device's
# demand is its utilization over the system's I/O rate (the service
# demand law D = U / X, which folds in its share of the visits).  The
# population is the mean number of I/Os in the system (Little: N = X R,
# rounded, at least 1) and the think time what makes the measured rate
# and response time consistent with it (R = N / X - Z).
#
# The questions:
#   1. the busiest device's disks twice as fast;
#   2. twice the population (twice the clients);
#   3. each device's cache (CACHE-BLOCKS 4 KiB blocks, default 512)
#      doubled: from ObserverCacheAnalyzer's curve per device, the
#      device's misses and so its disk demand shrink by
#      (1 - h(2C)) / (1 - h(C)).
#
# The "model:" lines print the numbers the model was built from, and the
# "answer:" lines the predictions, in Tcl's exact number format, so a
# reader (and tests/observerWhatif.test) can rebuild the same model.

set here [file dirname [file normalize [info script]]]
if {[info exists env(RUBICON_BUILD)]} {
    lappend auto_path $env(RUBICON_BUILD)
} else {
    lappend auto_path [file join $here .. .. build]
}
package require rubicon
source [file join $here .. .. tests observer qsim.tcl]

set trace [expr {[llength $argv] > 0 ? [lindex $argv 0]
    : [file join $here .. .. tests fixtures fig4.srt]}]
set cacheBlocks [expr {[llength $argv] > 1 ? [lindex $argv 1] : 512}]
set events [expr {[llength $argv] > 2 ? [lindex $argv 2] : 60000}]

# Pass 1: the devices, from the per-device utilization table.
set scan [Flow scan [UtilizationAnalyzer]]
head $scan
rubicon::run -progress 0 $trace
set devices [lmap row [dict get [$scan get UtilizationByDevice] rows] {
    expr {int([lindex $row 0])}
}]
rubicon::reset

# Pass 2: a Flow per device (rate, utilization, response time) through a
# Mux of equality Filters, and one for every I/O with the cache curve of
# each device's own cache.
set filters {}
foreach dev $devices {
    set flow($dev) [Flow dev$dev [RateAnalyzer] [UtilizationAnalyzer] \
	[ResponseTimeAnalyzer]]
    lappend filters [Filter "deviceNo = $dev" $flow($dev)]
}
set all [Flow all [RateAnalyzer] [ResponseTimeAnalyzer] \
    [ObserverCacheAnalyzer -partition deviceNo \
	-sizes [list $cacheBlocks [expr {2 * $cacheBlocks}]]]]
head [Mux {*}$filters $all]
rubicon::run -progress 0 $trace

# hitRatio CURVE DEV SIZE -- the hit ratio of device DEV's cache of SIZE
# blocks, from the CacheCurve table.
proc hitRatio {curve dev size} {
    foreach row [dict get $curve rows] {
	lassign $row w blocks hits ratio
	if {$w eq $dev && $blocks == $size} {return $ratio}
    }
    error "no cache curve row for device $dev at $size blocks"
}

set X [$all get Rate]
set R [$all get MeanResponseTime]
set N [expr {max(1, round($X * $R))}]
set Z [expr {max(0.0, $N / $X - $R)}]
set curve [$all get CacheCurve]

puts [format "%-10s %10s %8s %10s %12s %8s" device rate/s util \
    "resp (ms)" "demand (ms)" "cache x2"]
set m [observer::model]
$m workload io -closed $N -think $Z
set demands {}
set cacheScale {}
foreach dev $devices {
    set U [$flow($dev) get Utilization]
    $m center d$dev
    $m demand io d$dev -utilization $U -throughput $X
    set D [$m demand io d$dev]
    set h1 [hitRatio $curve $dev $cacheBlocks]
    set h2 [hitRatio $curve $dev [expr {2 * $cacheBlocks}]]
    set scale [expr {$h1 < 1 ? (1 - $h2) / (1 - $h1) : 1.0}]
    lappend demands d$dev $D
    lappend cacheScale d$dev $scale
    puts [format "%-10s %10.3f %8.4f %10.3f %12.4f %8.4f" d$dev \
	[$flow($dev) get Rate] $U [expr {[$flow($dev) get MeanResponseTime] * 1e3}] \
	[expr {$D * 1e3}] $scale]
}
set busiest [lindex [lsort -stride 2 -index 1 -real -decreasing $demands] 0]
puts "measured: throughput $X/s, response [format %.3f [expr {$R * 1e3}]] ms"
puts "model: population $N think $Z demands [list $demands]"
puts "model: cacheScale [list $cacheScale] busiest $busiest"

# The three questions as what-if changes.
set questions [list \
    "$busiest twice as fast" [list [list speed $busiest 2]] \
    "population doubled" [list [list population io [expr {2 * $N}]]] \
    "caches doubled" [lmap {c s} $cacheScale {
	list demand io $c [expr {[dict get $demands $c] * $s}]
    }]]

# simulate MODEL -- qsim's throughput and response of workload io.
proc simulate {m} {
    set s [qsim::run [$m describe] -events $::events -seed 11]
    list [dict get $s workloads io throughput] [dict get $s workloads io response]
}

set base [$m solve]
lassign [simulate $m] simX simR
puts ""
puts [format "%-24s %12s %12s %12s %12s" question "X predicted" "X simulated" \
    "R predicted" "R simulated"]
puts [format "%-24s %12.4f %12.4f %12.4f %12.4f" "as measured" \
    [dict get $base workloads io throughput] $simX \
    [expr {[dict get $base workloads io response] * 1e3}] [expr {$simR * 1e3}]]
set answers {}
foreach {question changes} $questions {
    set w [$m whatif {*}$changes]
    set after [dict get $w after workloads io]
    set copy [$m copy]
    $copy whatif -apply {*}$changes
    lassign [simulate $copy] simX simR
    $copy delete
    puts [format "%-24s %12.4f %12.4f %12.4f %12.4f" $question \
	[dict get $after throughput] $simX \
	[expr {[dict get $after response] * 1e3}] [expr {$simR * 1e3}]]
    lappend answers [list $changes [dict get $after throughput] \
	[dict get $after response]]
}
puts "(response times in ms, think time excluded)"
foreach a $answers {
    puts "answer: [list {*}$a]"
}
$m delete
