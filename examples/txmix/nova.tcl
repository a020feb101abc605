# nova.tcl -- the Basic transaction-mix model on a real log: OpenStack
# nova-api requests (data/logs/openstack-nova-2k.log.gz).  A
# request's type is its method and URL with ids replaced by {id}; its
# response time is the "time:" field; the line is written at completion,
# so it started that long before the line's timestamp.  Windows are 10 s:
# the log covers a few minutes of a busy controller.
#
#   tclsh examples/txmix/nova.tcl ?LOG? ?OUTPUT-PREFIX?
#
# prints the per-type service times, the accuracy, and writes
# PREFIX-nova.dat/.gp (run gnuplot on the .gp for the residual plots).
lappend auto_path [file join [file dirname [info script]] .. .. build]
package require rubicon

set log [expr {[llength $argv] > 0 ? [lindex $argv 0]
    : [file join [file dirname [info script]] .. .. data logs openstack-nova-2k.log.gz]}]
set prefix [expr {[llength $argv] > 1 ? [lindex $argv 1] : "txmix"}]

set types {}
set records {}
set epoch {}
set f [open $log]
if {[string match *.gz $log]} {zlib push gunzip $f}
while {[gets $f line] >= 0} {
    if {![regexp {(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.(\d+) .*"(GET|POST|PUT|DELETE|HEAD) (\S+) HTTP[^"]*" status: \d+ len: \d+ time: ([\d.]+)} \
	    $line -> ts frac method url rt]} {
	continue
    }
    # The query string and the metadata key do not change the work much;
    # without merging them most types would occur once.
    regsub {\?.*} $url {} url
    regsub {^(/(latest|openstack)/[^/]*)/.*} $url {\1/*} url
    regsub -all {/[0-9a-f]{8}-[0-9a-f-]{27,}|/[0-9a-f]{32}|/\d+(?=/|$)} $url {/{id}} pattern
    set key "$method $pattern"
    if {![dict exists $types $key]} {
	dict set types $key [expr {[dict size $types] + 1}]
    }
    set end [expr {[clock scan $ts -format {%Y-%m-%d %H:%M:%S} -gmt 1] + "0.$frac"}]
    if {$epoch eq ""} {set epoch [expr {int($end)}]}
    set end [expr {$end - $epoch}]
    lappend records [list time [expr {$end - $rt}] finishTime $end \
	deviceNo [dict get $types $key]]
}
close $f
set records [lsort -real -index 1 $records]
set shift [expr {min(0.0, [lindex $records 0 1])}]
set records [lmap r $records {
    dict set r time [expr {[dict get $r time] - $shift}]
    dict set r finishTime [expr {[dict get $r finishTime] - $shift}]
}]

set flow [Flow nova [TxMixAnalyzer -window 10 -model basic]]
head $flow
set rep [ReporterTxmix $flow]
$rep configure -output $prefix
rubicon::run -progress 0 -records $records

puts "[llength $records] requests of [dict size $types] types:"
set names [dict create]
dict for {k v} $types {dict set names $v $k}
foreach row [dict get [$flow get TxMixCoefficients] rows] {
    lassign $row term value
    puts [format "  %-10s %8.4f s  %s" $term $value \
	[dict get $names [string range $term 2 end]]]
}
puts [format "normalized aggregate error %.3f" [$flow get TxMixError]]
