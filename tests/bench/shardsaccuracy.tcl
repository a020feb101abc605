# shardsaccuracy.tcl TRACE -- for shardsaccuracy.sh: one run of
# ReuseDistanceAnalyzer exact, at -sample 0.1, 0.01 and 0.001 and with
# -samplesize 8192 over TRACE (zipfblocks' CSV), then for each sampled
# curve the mean and largest absolute error of hitRatio against the exact
# one over the cache sizes 1024, 2048 ... 524288 blocks, and the error at
# 1024.  One line.
set trace [lindex $argv 0]
set sizes {}
for {set c 1024} {$c <= 524288} {incr c $c} {lappend sizes $c}
set variants {exact {} 0.1 {-sample 0.1} 0.01 {-sample 0.01}
    0.001 {-sample 0.001} S8192 {-samplesize 8192}}
set flows {}
foreach {name opts} $variants {
    set flow($name) [Flow $name [ReuseDistanceAnalyzer -block 4096 \
	-limit 2000000 {*}$opts]]
    lappend flows $flow($name)
}
head [Mux {*}$flows]
rubicon::run -progress 0 -format csv -readeroptions {
    columns {time 1 device 2 offset 3 size 4} timeunit s header 0} $trace

# curve FLOW -- its HitRatioCurve as a dict cacheSize -> hitRatio.
proc curve {f} {
    set d {}
    foreach row [dict get [$f get HitRatioCurve] rows] {
	dict set d [expr {entier([lindex $row 0])}] [lindex $row 3]
    }
    return $d
}

set exact [curve $flow(exact)]
set line [file tail $trace]
foreach {name opts} [lrange $variants 2 end] {
    set got [curve $flow($name)]
    set sum 0.0
    set max 0.0
    foreach s $sizes {
	set e [expr {abs([dict get $got $s] - [dict get $exact $s])}]
	set sum [expr {$sum + $e}]
	set max [expr {max($max, $e)}]
	if {$s == 1024} {set first $e}
    }
    append line [format "  %s MAE %.4f max %.4f at1024 %.4f" $name \
	[expr {$sum / [llength $sizes]}] $max $first]
}
puts $line
