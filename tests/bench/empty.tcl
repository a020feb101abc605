# empty.tcl -- one Flow with no Analyzers: the cost of reading and decoding
# the trace and pushing its batches, for parse and gzip throughput.
head [Flow nothing]
