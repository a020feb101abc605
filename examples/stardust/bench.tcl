# bench.tcl -- records per second through the Stardust analyzers and into
# the activity database, on the simulator's trace (best of three runs,
# reading included).
#
#   build/rubicon examples/stardust/bench.tcl ?requests? ?dir?
#
# 6000 requests make about 230,000 activity records.

set here [file dirname [file normalize [info script]]]
set requests [expr {[llength $argv] > 0 ? [lindex $argv 0] : 6000}]
set dir [expr {[llength $argv] > 1 ? [lindex $argv 1] : "."}]
set trace [file join $dir stardust-bench.sdact]
if {![file exists $trace]} {
    exec [auto_execok tclsh] [file join $here .. .. tests stardust sim.tcl] \
	-requests $requests $trace [file join $dir stardust-bench-truth.tcl]
}

# bench LABEL CLASS ?OPTION VALUE ...? -- one analyzer alone in a Flow.
proc bench {label args} {
    global trace
    rubicon::reset
    head [Flow b [{*}$args]]
    set best Inf
    foreach i {1 2 3} {
	set r [rubicon::run -progress 0 $trace]
	set best [expr {min($best, [dict get $r seconds])}]
    }
    puts [format "stardust %-26s %8d records %7.3f s %9.0f records/s" $label \
	      [dict get $r records] $best [expr {[dict get $r records] / $best}]]
}

bench "read (RateAnalyzer)" RateAnalyzer
bench StardustDemandAnalyzer StardustDemandAnalyzer
bench StardustFlowGraphAnalyzer StardustFlowGraphAnalyzer
if {[llength [info commands StardustDatabaseAnalyzer]]} {
    set db [file join $dir stardust-bench.db]
    bench "StardustDatabaseAnalyzer" StardustDatabaseAnalyzer -output $db
    file delete $db
} else {
    puts "stardust StardustDatabaseAnalyzer: not built (no SQLite)"
}
