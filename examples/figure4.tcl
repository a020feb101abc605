# figure4.tcl --
#
#	The configuration of Figure 4 of the Rubicon paper, as printed:
#	bandwidth and I/O rate for device 1, device 2 and all devices, shown
#	as graphs and written to a log.
#
#	rubicon examples/figure4.tcl tests/fixtures/fig4.srt

set flow1 [Flow [BandwidthAnalyzer] [RateAnalyzer]]
set flow2 [Flow [BandwidthAnalyzer] [RateAnalyzer]]
set flow3 [Flow [BandwidthAnalyzer] [RateAnalyzer]]

head [Mux [Filter "deviceNo = 1" $flow1] \
	  [Filter "deviceNo = 2" $flow2] \
	  $flow3]

set rg [ReporterGraph $flow1 $flow2 $flow3]
set rl [ReporterLog $flow1 $flow2 $flow3]
$rl.setOutput "bw.log"
