# classmem.tcl -- one Analyzer class of the kit alone in one Flow over a
# trace, for classmem.sh, which measures the process's peak memory.
# Run as: rubicon classmem.tcl CLASS TRACE.  Prints "records N" or the
# error that stopped the run (a class reaching its -limit, say);
# CLASS -list prints the classes.
lassign $argv wanted trace
source [file join [file dirname [info script]] kit.tcl]
if {$wanted eq "-list"} {
    puts [join $kitClasses \n]
    exit 0
}
rubicon::reset
set flow [Flow]
$flow add [kitAnalyzer $wanted $flow]
head $flow
if {[catch {rubicon::run -progress 0 $trace} summary]} {
    puts "error [lindex $::errorCode 0] [lindex $::errorCode 1] [lindex $::errorCode 2]"
} else {
    puts "records [dict get $summary records]"
}
rubicon::reset
