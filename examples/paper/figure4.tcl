# First create the three Flows. The argument to the Flow command is
# the name to give the flow.
set flow1 [Flow disk1]
set flow2 [Flow disk2]
set flowIO [Flow IOsystem]

# Now create the Analyzers. The second argument to each Analyzer is
# the Flow to which the Analyzer should be attached.
set disk1_bw [BandwidthAnalyzer $flow1]
set disk1_rate [RateAnalyzer $flow1]
set disk2_rate [RateAnalyzer $flow2]
set IO_bw [BandwidthAnalyzer $flowIO]

# A Mux object, for sending records to each of the disk1 Analyzers.
# The Mux command has one argument, a list of the destination
# objects.
set disk1_mux [Mux "$disk1_bw $disk1_rate"]

# two Filters, one for each disk. The first argument is the filter
# expression, the second is the output object.
set disk1_filter [Filter "deviceNo = 1" $disk1_mux]
set disk2_filter [Filter "deviceNo = 2" $disk2_rate]

# The head of the DAG is a Mux, which replicates the record stream
# three times (once per disk, once for all IO's)
head [Mux "$disk1_mux $disk2_filter $IO_bw"]

# Finally, specify the reporters and the attributes to report.
# Reporters have two arguments, the list of flows, and the list of
# Attribute names.
ReporterGraph "$flow1 $flow2" "Bandwidth IORate"
set rl [ReporterLog "$flow1 $flowIO" "Bandwidth"]
# Set the output file to be used for the Log reporter.
$rl.setOutput "bw.log"
