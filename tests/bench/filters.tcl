# filters.tcl -- N Filters of one kind under one Mux, each into a Flow
# with oneflow.tcl's analysis (RateAnalyzer, BandwidthAnalyzer), to
# measure the Filters compiled together against one Flow.  The kind and N
# come from the environment, RUBICON_BENCH_FILTERS="KIND N":
#   eq        deviceNo = k                       (k = 1..N)
#   range     devOffset in the k-th of N equal slices of the 1 TiB device
#   compound  deviceNo = k and size >= 0
lassign $env(RUBICON_BENCH_FILTERS) kind n
set slice [expr {(1 << 40) / $n}]
set branches {}
for {set k 1} {$k <= $n} {incr k} {
    switch -- $kind {
	eq {set expr "deviceNo = $k"}
	range {
	    set lo [expr {($k - 1) * $slice}]
	    set expr "devOffset >= $lo and devOffset < [expr {$lo + $slice}]"
	}
	compound {set expr "deviceNo = $k and size >= 0"}
    }
    lappend branches [Filter $expr [Flow f$k [RateAnalyzer] [BandwidthAnalyzer]]]
}
head [Mux {*}$branches]
