# perstore.tcl -- the paper's per-store (DSS) case: one Flow per store
# (device numbers 1..158 in the benchmark trace), each behind an equality
# Filter, all fed by one 158-way Mux.  RateAnalyzer and BandwidthAnalyzer
# in each Flow.  The Flows are kept in the list stores.
set stores {}
set branches {}
for {set dev 1} {$dev <= 158} {incr dev} {
    set flow [Flow dev$dev [RateAnalyzer] [BandwidthAnalyzer]]
    lappend stores $flow
    lappend branches [Filter "deviceNo = $dev" $flow]
}
head [Mux {*}$branches]
