# perstore4.tcl -- per-store analysis as issue 23 states it: one Flow per
# store (device numbers 1..158 in the benchmark trace) behind an equality
# Filter, all fed by one 158-way Mux, each Flow with RateAnalyzer,
# SizeAnalyzer, ReadFractionAnalyzer and SeqRunAnalyzer.  The Flows are
# kept in the list stores.
set stores {}
set branches {}
for {set dev 1} {$dev <= 158} {incr dev} {
    set flow [Flow dev$dev [RateAnalyzer] [SizeAnalyzer] \
	[ReadFractionAnalyzer] [SeqRunAnalyzer]]
    lappend stores $flow
    lappend branches [Filter "deviceNo = $dev" $flow]
}
head [Mux {*}$branches]
