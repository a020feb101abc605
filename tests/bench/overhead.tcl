# overhead.tcl -- the per-record cost of one equality Filter and of a Mux
# per output, timed inside one rubicon process (no start-up in the
# numbers).  Run as: rubicon overhead.tcl RUNS TRACE
#
# Variants, each over the whole trace, RUNS times, interleaved so that a
# slow spell of the machine hits them all alike:
#   base      head -> one empty Flow
#   filter    head -> Filter "deviceNo = 1" -> one empty Flow
#   muxN      head -> Mux -> N empty Flows (N = 1 2 4 8 16)
# Empty Flows keep the Analyzers' cost out of the difference.  Prints one
# line per variant: name, median microseconds, records.
lassign $argv runs trace

set variants {
    base   {head [Flow]}
    filter {head [Filter "deviceNo = 1" [Flow]]}
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
    puts "$name [median $times($name)] $records"
}
