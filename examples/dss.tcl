# dss.tcl --
#
#	Characterizes a database's I/O per store -- each table, index and
#	temporary-space partition -- in the shape of Table 2 of the Rubicon
#	paper: sequential run length, request rate and request size, with
#	the read share, one row per store.
#
#	rubicon examples/dss.tcl STORES TRACE
#
#	STORES holds one store per line as a dict {name N device D start B
#	length B}: a byte range of a device (tests/fixtures/mkdss.tcl writes
#	one with 160 stores and a trace to go with it).  A store map turns
#	each I/O's device and offset into a store number (in lvNo) and an
#	offset within the store (in lvOffset), so the per-store Filters are
#	equality Filters that one Mux dispatches by table lookup.  Writes
#	dss-table2.txt and dss.json; the rows are left in $table2.

if {[llength $argv] != 2} {
    puts stderr "usage: rubicon examples/dss.tcl STORES TRACE"
    exit 2
}
lassign $argv storesFile trace

set ch [open $storesFile r]
set stores [lmap line [split [read $ch] \n] {
    if {[string trim $line] eq ""} continue
    set line
}]
close $ch

set storeMap [rubicon::inventory stores $stores -on device]
set flows {}
set branches {}
foreach s [dict get $storeMap stores] {
    lassign $s number name filter
    set f [Flow $name [RateAnalyzer] [SizeAnalyzer] [ReadFractionAnalyzer] \
	[SeqRunAnalyzer -field lvNo -offsetField lvOffset]]
    lappend flows $f
    lappend branches [Filter $filter $f]
}
head [VolumeMapTransformer -map [dict get $storeMap map] -unmapped drop \
	  {*}[dict get $storeMap options] [Mux {*}$branches]]
ReporterJson {*}$flows -output dss.json

set summary [rubicon::run -progress 0 $trace]

# Table 2: one row per store that saw I/O, busiest first.
set table2 {}
foreach f $flows {
    if {[$f get Count] == 0} continue
    lappend table2 [list [$f name] [expr {int([$f get Count])}] \
	[$f get SeqRunLength] [$f get Rate] [$f get MeanSize] \
	[$f get ReadFraction]]
}
set table2 [lsort -integer -decreasing -index 1 $table2]
set lines [list [format "%-24s %8s %10s %10s %10s %8s" \
    store I/Os "seq run" rate size reads]]
lappend lines [format "%-24s %8s %10s %10s %10s %8s" "" "" (I/Os) (I/O/s) (KB) (%)]
foreach row $table2 {
    lassign $row name count seqRun rate reqSize reads
    lappend lines [format "%-24s %8d %10.2f %10.3f %10.1f %8.1f" \
	$name $count $seqRun $rate [expr {$reqSize / 1024.0}] \
	[expr {100.0 * $reads}]]
}
set ch [open dss-table2.txt w]
puts $ch [join $lines \n]
close $ch
if {![info exists ::dssQuiet]} {
    puts [join $lines \n]
    puts "[llength $table2] of [llength $flows] stores saw I/O;\
	wrote dss-table2.txt and dss.json"
}
