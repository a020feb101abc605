# accounting.tcl -- Stardust on the simulated storage service: runs
# tests/stardust/sim.tcl, accounts its activity records per client and
# compares with the simulator's own truth; writes the request flow graph.
#
#   build/rubicon examples/stardust/accounting.tcl ?requests?
#
# Writes sim.sdact, truth.tcl and flow.dot in the current directory.

set here [file dirname [file normalize [info script]]]
set requests [expr {[llength $argv] ? [lindex $argv 0] : 600}]
exec [auto_execok tclsh] [file join $here .. .. tests stardust sim.tcl] \
    -requests $requests sim.sdact truth.tcl
source truth.tcl

set f [Flow service [StardustDemandAnalyzer -bandwidth 125e6] \
	   [StardustFlowGraphAnalyzer -maxrequests 1000]]
head $f
set run [rubicon::run -progress 0 sim.sdact]
puts "[dict get $run records] activity records in [format %.3f [dict get $run seconds]] s"

puts [format "%-6s %8s %12s %12s %10s %10s %14s" client requests \
	  "cpu (ms)" "truth" "disk (ms)" "truth" "net bytes"]
set d [$f get ClientDemand]
foreach row [dict get $d rows] {
    lassign $row client reqs cpu disk net
    set t [dict get $truth [expr {int($client)}]]
    puts [format "%-6d %8d %12.4f %12.4f %10.3f %10.3f %14.0f" \
	      [expr {int($client)}] [expr {int($reqs)}] [expr {$cpu * 1e3}] \
	      [expr {[dict get $t cpu] * 1e3}] [expr {$disk * 1e3}] \
	      [expr {[dict get $t disk] * 1e3}] $net]
}
puts "front end read, call to reply: [format %.3f [expr {
    [stardust::latency $f {Call frontend read} {Reply frontend read}] * 1e3}]] ms mean"
stardust::dot $f flow.dot
puts "flow graph: flow.dot"
