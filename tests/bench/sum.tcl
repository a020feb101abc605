# sum.tcl -- one Flow summing the request sizes (BandwidthAnalyzer's
# Bytes): the same work as sumsize.awk, so the parse rows compare like
# with like.
set flow [Flow sum [BandwidthAnalyzer]]
head $flow
