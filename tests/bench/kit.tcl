# kit.tcl -- every Analyzer class rubicon::types lists that can run on an
# I/O trace, each with its defaults, in one Flow: the cost of the whole kit
# per record.  Classes for other record schemas (a Magpie parser wants its
# event schema) cannot; each class is tried alone on one I/O record first,
# and those that fail are left out and named in kitSkipped, with why.

# kitAnalyzer CLASS FLOW -- a new CLASS Analyzer with its defaults, plus
# the least a class that cannot run on defaults alone needs (ShareAnalyzer
# needs a reference Flow: FLOW itself), and LiveAnalyzer a command that
# takes its interval rows instead of printing them among the results.
proc kitAnalyzer {class flow} {
    set required [dict create ShareAnalyzer [list -of $flow] \
	LiveAnalyzer [list -command {apply {args {}}}]]
    $class {*}[expr {[dict exists $required $class]
	? [dict get $required $class] : {}}]
}

# kitRuns CLASS -- "" if CLASS runs alone on one I/O record (ShareAnalyzer
# beside the BandwidthAnalyzer whose Bytes it reads), else the error.  The
# trial runs in a scratch interpreter: a run here would count as the
# config's own, and the rubicon program would then skip its run over the
# traces.
proc kitRuns {class} {
    set scratch [interp create]
    load {} Rubicon $scratch
    $scratch eval [list proc kitAnalyzer {class flow} [info body kitAnalyzer]]
    set failed [catch {
	$scratch eval [list apply {{class} {
	    set flow [Flow]
	    $flow add [kitAnalyzer $class $flow] [BandwidthAnalyzer]
	    head $flow
	    rubicon::run -progress 0 -records {{time 0 size 4096 deviceNo 1}}
	}} $class]
    } msg]
    interp delete $scratch
    expr {$failed ? $msg : ""}
}

set kitSkipped {}
set kitClasses {}
foreach entry [rubicon::types analyzer] {
    set class [lindex $entry 1]
    set why [kitRuns $class]
    if {$why eq ""} {
	lappend kitClasses $class
    } else {
	lappend kitSkipped $class $why
    }
}
set kit [Flow kit]
foreach class $kitClasses {
    $kit add [kitAnalyzer $class $kit]
}
head $kit
