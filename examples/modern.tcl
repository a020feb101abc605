# modern.tcl --
#
#	What the comments of the Rubicon paper's Figure 4 describe (bandwidth
#	and I/O rate for device 1, device 2 and all devices, shown as graphs
#	and written to a log), written in the modern object style: Analyzers
#	given to their Flows, the Flows as the DAG's destinations.  The
#	paper's own configuration is examples/paper/figure4.tcl.
#
#	rubicon examples/modern.tcl tests/fixtures/fig4.srt

set flow1 [Flow [BandwidthAnalyzer] [RateAnalyzer]]
set flow2 [Flow [BandwidthAnalyzer] [RateAnalyzer]]
set flow3 [Flow [BandwidthAnalyzer] [RateAnalyzer]]

head [Mux [Filter "deviceNo = 1" $flow1] \
	  [Filter "deviceNo = 2" $flow2] \
	  $flow3]

set rg [ReporterGraph $flow1 $flow2 $flow3]
set rl [ReporterLog $flow1 $flow2 $flow3]
$rl configure -output bw.log
