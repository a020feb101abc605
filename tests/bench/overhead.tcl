# overhead.tcl -- the per-record cost of an equality Filter and of a Mux
# per output, timed inside one rubicon process (no start-up in the
# numbers).  Run as: rubicon overhead.tcl RUNS TRACE
#
# Variants, each over the whole trace, RUNS times, interleaved so that a
# slow spell of the machine hits them all alike:
#   base      head -> one empty Flow
#   filter    head -> Filter "deviceNo = 1" -> one empty Flow
#   chain16   head -> 16 Filters "machine = 7" in a row -> one empty Flow
#   muxN      head -> Mux -> N empty Flows (N = 1 2 4 8 16)
# Empty Flows keep the Analyzers' cost out of the differences.  One
# Filter costs a few ns against about 100 ns of reading a record, less
# than the run-to-run noise of a shared machine; the chain of 16 (every
# record of the benchmark trace has machine 7, so each Filter sees every
# record) makes the difference large enough to measure.
# Prints one line per variant: name, median, fastest and slowest
# microseconds, records.
lassign $argv runs trace

set variants {
    base   {head [Flow]}
    filter {head [Filter "deviceNo = 1" [Flow]]}
    chain16 {
	set node [Flow]
	for {set i 0} {$i < 16} {incr i} {set node [Filter "machine = 7" $node]}
	head $node
    }
}
foreach n {1 2 4 8 16} {
    lappend variants mux$n [list apply {{n} {
	set flows {}
	for {set i 0} {$i < $n} {incr i} {lappend flows [Flow]}
	head [Mux {*}$flows]
    }} $n]
}

# median LIST -- the middle value (mean of the two middle ones if even).
proc median {values} {
    set s [lsort -real $values]
    set n [llength $s]
    expr {$n % 2 ? [lindex $s [expr {$n / 2}]]
	: ([lindex $s [expr {$n / 2 - 1}]] + [lindex $s [expr {$n / 2}]]) / 2.0}
}

for {set r 0} {$r < $runs} {incr r} {
    foreach {name build} $variants {
	rubicon::reset
	uplevel #0 $build
	set t0 [clock microseconds]
	set summary [rubicon::run -progress 0 $trace]
	lappend times($name) [expr {[clock microseconds] - $t0}]
	set records [dict get $summary records]
    }
}
rubicon::reset
foreach {name build} $variants {
    set s [lsort -integer $times($name)]
    puts "$name [median $s] [lindex $s 0] [lindex $s end] $records"
}
