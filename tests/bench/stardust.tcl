# stardust.tcl BUILD TRACE ?RUNS? -- the Stardust row of make bench:
# activity records per second through StardustDemandAnalyzer (the
# per-client accounting) over TRACE, a log from tests/stardust/sim.tcl,
# and, when the build has it (it needs SQLite), into the activity
# database through StardustDatabaseAnalyzer.  Medians of RUNS runs, in
# this process, net of nothing: reading is part of what Stardust did too.

lassign $argv build trace runs
if {$runs eq ""} {set runs 3}
lappend auto_path $build
package require rubicon

# median LIST -- the middle value (mean of the two middle ones if even).
proc median {values} {
    set s [lsort -real $values]
    set n [llength $s]
    expr {$n % 2 ? [lindex $s [expr {$n / 2}]]
	: ([lindex $s [expr {$n / 2 - 1}]] + [lindex $s [expr {$n / 2}]]) / 2.0}
}

# timeRun ANALYZER... -- seconds of one run of TRACE through a Flow of the
# given Analyzer (a command and its options); sets ::records.
proc timeRun {args} {
    rubicon::reset
    head [Flow sd [{*}$args]]
    set t0 [clock microseconds]
    set summary [rubicon::run -progress 0 $::trace]
    set t [expr {([clock microseconds] - $t0) / 1e6}]
    set ::records [dict get $summary records]
    rubicon::reset
    return $t
}

set haveDb [expr {[llength [lsearch -all -index 1 [rubicon::types analyzer] \
    StardustDatabaseAnalyzer]] > 0}]
set db [file join [file dirname $trace] bench-activity.db]
puts stderr "bench: Stardust accounting[expr {$haveDb ? " and database" : ""}] ($runs runs)"
for {set r 0} {$r < $runs} {incr r} {
    lappend demand [timeRun StardustDemandAnalyzer]
    if {$haveDb} {
	file delete $db
	lappend dbTimes [timeRun StardustDatabaseAnalyzer -output $db]
    }
}
file delete $db
set t [median $demand]
if {$haveDb} {
    set tDb [median $dbTimes]
    set dbText [format "into the SQLite database %.0f k records/s (%.2f s)" \
	[expr {$records / $tDb / 1e3}] $tDb]
} else {
    set dbText "database: StardustDatabaseAnalyzer not in this build (needs SQLite)"
}
puts [format "%-34s %9s   accounting %.0f k records/s (%d records); %s;\
    Stardust: 50 k/s, aim 500 k/s" \
    "(9) Stardust activity records" [format "%7.2f s" $t] \
    [expr {$records / $t / 1e3}] $records $dbText]
