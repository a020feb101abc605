# demo.tcl --
#
#	Characterizes a block-I/O trace per device and per logical volume,
#	in the shape of Table 2 of the Rubicon paper: sequential run length,
#	request rate and request size for each, plus graphs and a JSON copy.
#
#	rubicon examples/demo.tcl TRACE
#
#	Two runs show the interactive style: the first discovers which
#	devices and volumes the trace touches, the second has a Flow for
#	each, fed through one Mux of equality Filters (a dispatch table).

if {[llength $argv] != 1} {
    puts stderr "usage: rubicon examples/demo.tcl TRACE"
    exit 2
}
set trace [lindex $argv 0]

source [file join [file dirname [info script]] srtNames.tcl]

# Pass 1: which devices and volumes are there?
set keys [srtKeys $trace]
set devices [dict get $keys devices]
set volumes [dict get $keys volumes]

# Pass 2: one Flow per device and per volume, and one for everything.
proc kit {name} {
    Flow $name [RateAnalyzer] [SizeAnalyzer] [SeqRunAnalyzer] \
	[ReadFractionAnalyzer] [ResponseTimeAnalyzer]
}
set branches {}
set devFlows {}
foreach dev $devices {
    set f [kit [devName $dev]]
    lappend devFlows $f
    lappend branches [Filter "deviceNo = $dev" $f]
}
set lvFlows {}
foreach lv $volumes {
    set f [kit [lvName $lv]]
    $f configure -name [lvName $lv]
    lappend lvFlows $f
    lappend branches [Filter "lvNo = $lv" $f]
}
set all [kit "all devices"]
head [Mux {*}$branches $all]

ReporterJson $all {*}$devFlows {*}$lvFlows -output demo.json
ReporterGraph {*}$devFlows -output graphs \
    -attributes {Rate MeanSize SeqRunLength ReadFraction}
ReporterLog $all -output summary.log

set summary [rubicon::run $trace]

# Table 2: per device and per logical volume.
proc table {title flows} {
    set lines [list $title [format "%-16s %8s %10s %10s %10s %8s %10s" \
	"" "I/Os" "seq run" "rate" "size" "reads" "resp p90"]]
    lappend lines [format "%-16s %8s %10s %10s %10s %8s %10s" \
	"" "" "(I/Os)" "(I/O/s)" "(KB)" "(%)" "(ms)"]
    foreach f $flows {
	if {[$f get Count] == 0} continue
	set p90 [lindex [dict get [$f get ResponseTime] rows] 2 1]
	lappend lines [format "%-16s %8d %10.2f %10.3f %10.1f %8.1f %10.2f" \
	    [$f name] [$f get Count] [$f get SeqRunLength] [$f get Rate] \
	    [expr {[$f get MeanSize] / 1024.0}] \
	    [expr {100.0 * [$f get ReadFraction]}] [expr {1000 * $p90}]]
    }
    join $lines \n
}
set out [join [list \
    [table "Per device" [list {*}$devFlows $all]] "" \
    [table "Per logical volume" $lvFlows]] \n]
puts $out
set ch [open table2.txt w]
puts $ch $out
close $ch
rubicon::report $summary
puts "wrote table2.txt, summary.log, demo.json and graphs/ (PNG and SVG)"
