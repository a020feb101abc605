# streamkit.tcl -- the streaming part of the Analyzer kit in one Flow:
# every class kit.tcl runs whose memory does not grow with what it has
# seen ($analyzer perrecordstate is 0), for the peak-RSS row of make bench
# on 100 M records.  The per-block and per-key analyzers are left out:
# their memory grows with the distinct blocks, up to their -limit.
source [file join [file dirname [info script]] kit.tcl]
rubicon::reset
set streamClasses {}
set flow [Flow streamkit]
foreach class $kitClasses {
    set a [kitAnalyzer $class $flow]
    if {[$a perrecordstate]} {
	$a destroy
    } else {
	$flow add $a
	lappend streamClasses $class
    }
}
head $flow
