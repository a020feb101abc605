# magpie.tcl BUILD LOG ?RUNS? -- the Magpie row of make bench: events per
# second through MagpieParserAnalyzer (tests/magpie/web.schema.tcl) over
# LOG, a simulated log from tests/magpie/sim.tcl, median of RUNS runs in
# this process, by the wall clock and by the CPU time the process used
# (the machine may be shared), and the process's peak resident set
# (VmHWM) after them.
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

# cpuSeconds -- user and system CPU time of this process so far (Linux
# /proc, in clock ticks of 1/100 s); "" where there is no /proc.
proc cpuSeconds {} {
    if {[catch {open /proc/self/stat} f]} {return ""}
    set stat [read $f]
    close $f
    # The fields after the command name, which is in parentheses.
    set rest [string range $stat [expr {[string last ) $stat] + 2}] end]
    expr {([lindex $rest 11] + [lindex $rest 12]) / 100.0}
}

set before [peakKb]
puts stderr "bench: Magpie parser over [file tail $log] ($runs runs)"
for {set r 0} {$r < $runs} {incr r} {
    rubicon::reset
    set f [Flow p [MagpieParserAnalyzer -schema web]]
    head $f
    set t0 [clock microseconds]
    set c0 [cpuSeconds]
    set summary [rubicon::run -progress 0 -format magpie \
	-readeroptions {schema web} $log]
    lappend times [expr {([clock microseconds] - $t0) / 1e6}]
    if {$c0 ne ""} {lappend cpus [expr {[cpuSeconds] - $c0}]}
    set events [dict get $summary records]
    set requests [expr {int([$f get RequestCount])}]
}
rubicon::reset
set t [median $times]
set cpu [expr {[info exists cpus] ? [median $cpus] : 0}]
set after [peakKb]
puts [format "%-34s %9s   %.2f M events/s (%d events, %d requests, %.2f s;\
    CPU %s); peak RSS %s (%s before the run); paper: 1.2 M events in\
    5.6 s, 10 MB" \
    "(7) Magpie parser, 5 clients" [format "%7.2f s" $t] \
    [expr {$events / $t / 1e6}] $events $requests $t \
    [expr {$cpu > 0 ? [format "%.2f s, %.2f M events/s" $cpu \
	[expr {$events / $cpu / 1e6}]] : "n/a"}] \
    [expr {$after eq "" ? "n/a" : [format "%.1f MB" [expr {$after / 1024.0}]]}] \
    [expr {$before eq "" ? "n/a" : [format "%.1f MB" [expr {$before / 1024.0}]]}]]
