# clusters.tcl -- Magpie on a web server's event log: extracts the
# requests, reduces each to its canonical form, clusters the forms and
# prints the clusters in the shape of the Magpie paper's TPC-C table
# (size, contents by URL, distance from the null request, diameter,
# minimum separation), then the workload model's error and the outliers.
#
#   build/rubicon examples/magpie/clusters.tcl ?log? ?threshold?
#
# The log defaults to web1.log beside this script, written by the
# simulator of tests/magpie (see the log's first lines).

set here [file dirname [file normalize [info script]]]
set log [expr {[llength $argv] > 0 ? [lindex $argv 0]
    : [file join $here web1.log]}]
set threshold [expr {[llength $argv] > 1 ? [lindex $argv 1] : 0.1}]
source [file join $here web.schema.tcl]

set f [Flow web [MagpieParserAnalyzer -schema web -label Url \
    -threshold $threshold]]
head $f
set run [rubicon::run -progress 0 -format magpie \
    -readeroptions {schema web} $log]

# rows ATTR -- a table Attribute's rows as dicts.
proc rows {attr} {
    lmap r [dict get $attr rows] {
	set d {}
	foreach c [dict get $attr columns] v $r {dict set d $c $v}
	set d
    }
}

puts "[file tail $log]: [dict get $run records] events,\
    [expr {int([$f get RequestCount])}] requests,\
    [expr {int([$f get ClusterCount])}] clusters (threshold $threshold)"
puts ""
puts [format "%-7s %5s  %-24s %7s %9s %10s %9s" cluster size contents \
    d(0) diameter "min. sep." "cpu (ms)"]
foreach c [rows [$f get Clusters]] {
    puts [format "%-7d %5d  %-24s %7.2f %9.2f %10.2f %9.3f" \
	[dict get $c cluster] [dict get $c size] [dict get $c contents] \
	[dict get $c d0] [dict get $c diameter] [dict get $c separation] \
	[expr {[dict get $c cpu] * 1e3}]]
}
puts ""
puts "Representatives (canonical forms):"
foreach c [rows [$f get Clusters]] {
    puts "  [dict get $c cluster]: [dict get $c representative]"
}
puts ""
puts "Workload model (each representative times its cluster's size):"
foreach m [rows [$f get WorkloadModel]] {
    puts [format "  %-10s parsed %14.6f  model %14.6f  error %6.2f%%" \
	[dict get $m resource] [dict get $m parsed] [dict get $m model] \
	[expr {[dict get $m error] * 100}]]
}
set outliers [rows [$f get Outliers]]
puts ""
puts "Outliers: [expr {[llength $outliers] ? "" : "none"}]"
foreach o $outliers {
    puts "  request [dict get $o id] (cluster [dict get $o cluster]):\
	events [dict get $o events]"
}
