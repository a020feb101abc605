# kitclasses.tcl -- what each Analyzer class of the kit costs alone: one
# run per class over the trace, each class in one Flow by itself, timed
# inside one rubicon process, and a run with an empty Flow for the cost
# of reading.  Run as: rubicon kitclasses.tcl TRACE
# Prints "class microseconds records" lines, the empty Flow as "(none)";
# a class of the kit that cannot run alone (ShareAnalyzer reads another
# Analyzer's Attribute) as "class - -", one kit.tcl left out as
# "class skipped -".
lassign $argv trace
source [file join [file dirname [info script]] kit.tcl]

foreach {class why} $kitSkipped {
    puts "$class skipped -"
}
foreach class [list (none) {*}$kitClasses] {
    rubicon::reset
    set flow [Flow]
    if {$class ne "(none)"} {
	$flow add [kitAnalyzer $class $flow]
    }
    head $flow
    set t0 [clock microseconds]
    if {[catch {rubicon::run -progress 0 $trace} summary]} {
	puts "$class - -"
	continue
    }
    puts "$class [expr {[clock microseconds] - $t0}] [dict get $summary records]"
}
rubicon::reset
