# readall.tcl -- a Filter naming every field of the I/O schema (it passes
# nothing), so that a reader must deliver every column: the raw native
# row against cat, which reads every byte of the file.
set flow [Flow none [RateAnalyzer]]
head [Filter "time < 0 and startTime < 0 and finishTime < 0 and devType < 0
    and queueLen < 0 and op < 0 and size < 0 and deviceNo < 0
    and devOffset < 0 and lvNo < 0 and lvOffset < 0 and pid < 0
    and thread < 0 and machine < 0 and flags < 0" $flow]
