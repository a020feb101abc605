# rate.tcl -- one RateAnalyzer in one Flow: what the native-format rows
# of make bench time on each format (the issue that asked for version 2
# measured reading the native file so).
set flow [Flow rate [RateAnalyzer]]
head $flow
