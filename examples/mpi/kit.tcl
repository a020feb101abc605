# kit.tcl --
#
#	The mergeable kit over every I/O of the traces, for one process or
#	a split run; rank 0 writes kit.json.
#
#	rubicon examples/mpi/kit.tcl TRACE ...
#	mpirun -np 2 build/rubicon examples/mpi/kit.tcl TRACE ...
#	mpirun --hostfile examples/mpi/hostfile -np 4 \
#	    build/rubicon examples/mpi/kit.tcl /shared/traces/day*.srt

set all [Flow all [RateAnalyzer] [BandwidthAnalyzer] [SizeAnalyzer] \
    [ReadFractionAnalyzer] [ResponseTimeAnalyzer] [SeqRunAnalyzer] \
    [FootprintAnalyzer] [SeekDistanceAnalyzer] [InterArrivalAnalyzer] \
    [TopKAnalyzer -field deviceNo]]
head $all
ReporterJson $all -output kit.json
