# splitkit.tcl -- the streaming kit (streamkit.tcl: every class of the
# kit whose memory does not grow with what it has seen) less the classes
# that cannot merge partial results ($analyzer mergeable is 0), which a
# split run refuses: what the scale-out rows of make bench run at 1 and 2
# ranks.  $splitClasses lists the classes kept, $splitLeftOut the
# streaming ones left out.  Working the list out (kit.tcl) runs each class
# on one record; under mpirun that first run would end the other ranks
# (rubicon(n), SCALE-OUT), so scaleout.tcl works it out beforehand and
# gives it in the environment variable RB_BENCH_CLASSES.
if {[info exists env(RB_BENCH_CLASSES)]} {
    set splitClasses $env(RB_BENCH_CLASSES)
    set splitLeftOut {}
    set flow [Flow splitkit]
    foreach class $splitClasses {
	$flow add [$class {*}[expr {$class eq "ShareAnalyzer"
	    ? [list -of $flow] : {}}]]
    }
    head $flow
    return
}
source [file join [file dirname [info script]] kit.tcl]
rubicon::reset
set splitClasses {}
set splitLeftOut {}
set flow [Flow splitkit]
foreach class $kitClasses {
    set a [kitAnalyzer $class $flow]
    if {[$a perrecordstate]} {
	$a destroy
    } elseif {![$a mergeable]} {
	$a destroy
	lappend splitLeftOut $class
    } else {
	$flow add $a
	lappend splitClasses $class
    }
}
head $flow
