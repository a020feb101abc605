# zipkin.tcl -- the request flow graph of a Zipkin v2 trace (for example
# the SmartThings OAuth authorization trace in data/zipkin),
# as DOT, and as PNG when Graphviz is installed.
#
#   build/rubicon examples/stardust/zipkin.tcl TRACE.json ?OUT.dot?

lassign $argv trace out
if {$out eq ""} {set out [file rootname [file tail $trace]].dot}
set f [Flow trace [StardustFlowGraphAnalyzer] [StardustDemandAnalyzer]]
head $f
rubicon::run -progress 0 -format zipkin $trace
set edges [dict get [$f get FlowEdges] rows]
puts "[llength $edges] edges; slowest:"
foreach e [lrange [lsort -real -decreasing -index 3 $edges] 0 4] {
    lassign $e from to n mean
    puts [format "  %9.3f ms  %s -> %s" [expr {$mean * 1e3}] $from $to]
}
stardust::dot $f $out
puts "wrote $out"
if {[auto_execok dot] ne ""} {
    exec dot -Tpng -o [file rootname $out].png $out
    puts "wrote [file rootname $out].png"
}
