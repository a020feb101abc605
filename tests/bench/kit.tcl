# kit.tcl -- every Analyzer class rubicon::types lists, each with its
# defaults, in one Flow: the cost of the whole kit per record.

# kitAnalyzer CLASS FLOW -- a new CLASS Analyzer with its defaults, plus
# the least a class that cannot run on defaults alone needs (ShareAnalyzer
# needs a reference Flow: FLOW itself).  A new class of that kind fails
# the run with its own message, so the kit is never silently incomplete.
proc kitAnalyzer {class flow} {
    set required [dict create ShareAnalyzer [list -of $flow]]
    $class {*}[expr {[dict exists $required $class]
	? [dict get $required $class] : {}}]
}

set kit [Flow kit]
foreach entry [rubicon::types analyzer] {
    $kit add [kitAnalyzer [lindex $entry 1] $kit]
}
head $kit
