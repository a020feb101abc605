# oneflow.tcl -- the analysis of perstore.tcl done once for every record:
# one Flow, RateAnalyzer and BandwidthAnalyzer, no Filters, no Mux.  The
# per-store run is measured against this.
set flow [Flow all [RateAnalyzer] [BandwidthAnalyzer]]
head $flow
