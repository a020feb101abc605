# characterize.tcl --
#
#	Runs the whole Analyzer kit per device and per logical volume on a
#	block-I/O trace and writes a readable report: characterize.log (every
#	Attribute), characterize.json, graphs/ and a one-page summary table
#	(characterize.txt) on stdout.
#
#	rubicon examples/characterize.tcl TRACE
#
#	Pass 1 discovers the devices and volumes; pass 2 has a Flow of the
#	full kit for each, fed through one Mux of equality Filters.

if {[llength $argv] != 1} {
    puts stderr "usage: rubicon examples/characterize.tcl TRACE"
    exit 2
}
set trace [lindex $argv 0]

source [file join [file dirname [info script]] srtNames.tcl]

# Pass 1: which devices and volumes are there?
set keys [srtKeys $trace]
set devices [dict get $keys devices]
set volumes [dict get $keys volumes]

# The kit.  This trace records no volume offsets (lv_offset is zero in
# every record; see doc/srt.n), so a volume's spatial statistics use the
# physical device and offset of its I/Os.
proc kit {name devField offField} {
    Flow $name \
	[RateAnalyzer -interval 60] [BandwidthAnalyzer -interval 60] \
	[SeriesAnalyzer -interval 60 \
	    -stats {readFraction meanSize responseTime}] \
	[SizeAnalyzer] [SizeHistogramAnalyzer] [ReadFractionAnalyzer] \
	[SeqRunAnalyzer -field $devField -offsetField $offField] \
	[ResponseTimeAnalyzer] \
	[ResponseTimeAnalyzer -from startTime -prefix Service] \
	[ResponseTimeAnalyzer -to startTime -prefix Queue] \
	[InterArrivalAnalyzer] \
	[UtilizationAnalyzer -field $devField] \
	[QueueDepthAnalyzer] \
	[FieldHistogramAnalyzer -field queueLen -bins linear -width 1 -prefix QueueLen] \
	[FieldStatsAnalyzer -field queueLen -prefix QueueLen] \
	[FieldPercentilesAnalyzer -field size -prefix Size] \
	[DistinctAnalyzer -field pid -prefix Pids] \
	[SeekDistanceAnalyzer -field $devField -offsetField $offField] \
	[FootprintAnalyzer -field $devField -offsetField $offField] \
	[AlignmentAnalyzer -offsetField $offField] \
	[ReuseDistanceAnalyzer -field $devField -offsetField $offField] \
	[StreamAnalyzer -field $devField -offsetField $offField] \
	[HotRegionAnalyzer -field $devField -offsetField $offField] \
	[ReReferenceAnalyzer -field $devField -offsetField $offField] \
	[ReadAfterWriteAnalyzer -field $devField -offsetField $offField] \
	[WorkingSetAnalyzer -field $devField -offsetField $offField] \
	[OnOffAnalyzer] [DispersionAnalyzer] [HurstAnalyzer] \
	[TopKAnalyzer -field pid -prefix Pid]
}

set branches {}
set devFlows {}
foreach dev $devices {
    set f [kit [devName $dev] deviceNo devOffset]
    lappend devFlows $f
    lappend branches [Filter "deviceNo = $dev" $f]
}
set lvFlows {}
foreach lv $volumes {
    set f [kit [lvName $lv] deviceNo devOffset]
    lappend lvFlows $f
    lappend branches [Filter "lvNo = $lv" $f]
}
set all [kit "all devices" deviceNo devOffset]
head [Mux {*}$branches $all]

ReporterLog $all {*}$devFlows {*}$lvFlows -output characterize.log
ReporterJson $all {*}$devFlows {*}$lvFlows -output characterize.json
ReporterGraph {*}$devFlows -output graphs \
    -attributes {Rate MeanSize ReadFraction SeqRunLength Utilization
		 MeanQueueDepth InterArrivalCV UnalignedFraction}
# The same Attributes again, in every other format, from this one run: a
# tidy CSV, a page with tables and plots, a workbook (when libxlsxwriter
# was found at build time), and each Flow as a Tcl workload dict and a
# fio job that replays it.
ReporterCsv $all {*}$devFlows {*}$lvFlows -output characterize.csv
ReporterHtml $all {*}$lvFlows -output characterize.html
if {[llength [info commands ReporterSpreadsheet]]} {
    ReporterSpreadsheet $all {*}$devFlows {*}$lvFlows -output characterize.xlsx
}
ReporterWorkload $all {*}$lvFlows -output workload

set summary [rubicon::run $trace]

# The value of percentile p (a row of a percentile Attribute), in ms.
proc pctMs {f attr p} {
    foreach row [dict get [$f get $attr] rows] {
	if {[lindex $row 0] == $p} {
	    return [expr {1000.0 * [lindex $row 1]}]
	}
    }
    return 0
}

# Hit ratio of the largest cache size in the curve not above n blocks.
proc hitRatio {f n} {
    set best 0
    foreach row [dict get [$f get HitRatioCurve] rows] {
	lassign $row size bytes hits ratio
	if {$size <= $n} {
	    set best $ratio
	}
    }
    return $best
}

# One line per Flow.  "seq" counts I/Os that continue the device's previous
# one (SeqRunAnalyzer), "stream" those that continue any of up to 32
# interleaved sequential streams (StreamAnalyzer); "hot10" is the share of
# accesses that fell in the 10 busiest 1 MiB regions (HotRegionAnalyzer).
proc table {title flows} {
    set fmt "%-16s %8s %8s %7s %6s %6s %6s %8s %8s %6s %6s %6s %9s %7s %6s"
    set lines [list $title [format $fmt "" I/Os rate size reads seq stream \
	"resp p90" "svc p90" util depth IA-CV "footprint" "hit 64M" hot10]]
    lappend lines [format $fmt "" "" (I/O/s) (KB) (%) (%) (%) (ms) (ms) (%) "" "" (MB) (%) (%)]
    foreach f $flows {
	if {[$f get Count] == 0} continue
	lappend lines [format \
	    "%-16s %8d %8.3f %7.1f %6.1f %6.1f %6.1f %8.2f %8.2f %6.1f %6.2f %6.2f %9.1f %7.1f %6.1f" \
	    [$f name] [$f get Count] [$f get Rate] \
	    [expr {[$f get MeanSize] / 1024.0}] \
	    [expr {100.0 * [$f get ReadFraction]}] \
	    [expr {100.0 * [$f get SeqFraction]}] \
	    [expr {100.0 * [$f get StreamFraction]}] \
	    [pctMs $f ResponseTime 90] [pctMs $f ServiceResponseTime 90] \
	    [expr {100.0 * [$f get Utilization]}] [$f get MeanQueueDepth] \
	    [$f get InterArrivalCV] \
	    [expr {[$f get FootprintBytes] / 1048576.0}] \
	    [expr {100.0 * [hitRatio $f 16384]}] \
	    [expr {100.0 * [$f get HotRegionFraction]}]]
    }
    join $lines \n
}
set out [join [list \
    [table "Per device" [list {*}$devFlows $all]] "" \
    [table "Per logical volume" $lvFlows]] \n]
puts $out
set ch [open characterize.txt w]
puts $ch $out
close $ch
rubicon::report $summary
puts "wrote characterize.txt, .log, .json, .csv, .html, .xlsx, graphs/ and workload/"
