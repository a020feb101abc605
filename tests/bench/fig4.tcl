# fig4.tcl -- the shape of examples/modern.tcl (the analysis of the paper's Figure 4) for
# the benchmark: BandwidthAnalyzer and RateAnalyzer in three Flows behind a
# Mux with two equality Filters, without the Reporters (a benchmark times
# the analysis, not gnuplot).  The Flows are named after what they see so
# that tests/bench.test can compare them with the baselines.
set flow1 [Flow dev1 [BandwidthAnalyzer] [RateAnalyzer]]
set flow2 [Flow dev2 [BandwidthAnalyzer] [RateAnalyzer]]
set flow3 [Flow all [BandwidthAnalyzer] [RateAnalyzer]]

head [Mux [Filter "deviceNo = 1" $flow1] \
	  [Filter "deviceNo = 2" $flow2] \
	  $flow3]
