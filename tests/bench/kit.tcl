# kit.tcl -- every Analyzer class rubicon::types lists, each with its
# defaults, in one Flow: the cost of the whole kit per record.  A class
# that cannot run on defaults alone gets the least it needs (listed in
# required below); a new class of that kind stops the config with a
# message rather than silently leaving the kit incomplete.
set kit [Flow kit]
set required [dict create ShareAnalyzer [list -of $kit]]
foreach entry [rubicon::types analyzer] {
    set class [lindex $entry 1]
    $kit add [$class {*}[expr {[dict exists $required $class]
	    ? [dict get $required $class] : {}}]]
}
head $kit
