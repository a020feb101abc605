# magpie.tcl BUILD LOG ?RUNS? -- the Magpie row of make bench: events per
# second through MagpieParserAnalyzer (tests/magpie/web.schema.tcl) over
# LOG, a simulated log from tests/magpie/sim.tcl, median of RUNS runs in
# this process, and the process's peak resident set (VmHWM) after them.
# The peak is of the whole process (Tcl, the package, reading buffers),
# an upper bound on the parser's working set; the same figure before the
# first run is printed beside it so the difference can be read off.

lassign $argv build log runs
if {$runs eq ""} {set runs 3}
lappend auto_path $build
package require rubicon
source [file join [file dirname [info script]] .. magpie web.schema.tcl]

# median LIST -- the middle value (mean of the two middle ones if even).
proc median {values} {
    set s [lsort -real $values]
    set n [llength $s]
    expr {$n % 2 ? [lindex $s [expr {$n / 2}]]
	: ([lindex $s [expr {$n / 2 - 1}]] + [lindex $s [expr {$n / 2}]]) / 2.0}
}

# peakKb -- this process's peak resident set in KB, from /proc (Linux);
# "" where there is no /proc.
proc peakKb {} {
    if {[catch {open /proc/self/status} f]} {return ""}
    set kb ""
    foreach line [split [read $f] \n] {
	if {[lindex $line 0] eq "VmHWM:"} {set kb [lindex $line 1]}
    }
    close $f
    return $kb
}

set before [peakKb]
puts stderr "bench: Magpie parser over [file tail $log] ($runs runs)"
for {set r 0} {$r < $runs} {incr r} {
    rubicon::reset
    set f [Flow p [MagpieParserAnalyzer -schema web]]
    head $f
    set t0 [clock microseconds]
    set summary [rubicon::run -progress 0 -format magpie \
	-readeroptions {schema web} $log]
    lappend times [expr {([clock microseconds] - $t0) / 1e6}]
    set events [dict get $summary records]
    set requests [expr {int([$f get RequestCount])}]
}
rubicon::reset
set t [median $times]
set after [peakKb]
puts [format "%-34s %9s   %.2f M events/s (%d events, %d requests, %.2f s);\
    peak RSS %s (%s before the run); paper: 1.2 M events in 5.6 s, 10 MB" \
    "(7) Magpie parser, 5 clients" [format "%7.2f s" $t] \
    [expr {$events / $t / 1e6}] $events $requests $t \
    [expr {$after eq "" ? "n/a" : [format "%.1f MB" [expr {$after / 1024.0}]]}] \
    [expr {$before eq "" ? "n/a" : [format "%.1f MB" [expr {$before / 1024.0}]]}]]
