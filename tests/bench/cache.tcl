# cache.tcl -- one row of the benchmark's cache, heat-map and percentile
# rows: a Flow with the analyzer RUBICON_BENCH_CACHE names, run over the
# traces given as arguments (rubicon -quiet cache.tcl TRACE...).
#   none           an empty Flow (the cost of reading)
#   lru            ReuseDistanceAnalyzer, exact; prints the hit-ratio
#                  curve as stackdist.c does, to be compared with it
#   shards0.01     the same with -sample 0.01
#   shards0.001    the same with -sample 0.001
#   lru fifo clock lfu arc s3fifo, prefixed sim-
#                  CacheSimAnalyzer -policy P -sizes $cacheSizes
#   obj-lru obj-s3fifo obj-sieve, obj-none
#                  CacheSimAnalyzer -key objectId -sizeField objectSize
#                  -sizes 256MB -policy P over an oracleGeneral trace
#                  (read with -format oraclegeneral): each record one
#                  request to its object, of its size (objlru.c's
#                  simulation); prints the hits; obj-none an empty Flow
#   sweep          CacheSimAnalyzer over objects as above, -policy
#                  $sweepPolicies -sizes $sweepSizes, run with -sweep 1
#                  (under mpirun, a sweep); prints the curve
#   heatmap        HeatmapAnalyzer with its defaults (time x devOffset)
#   p99            SeriesAnalyzer -stats responseTimeP99
# Every row prints "accesses A records R": block accesses (0 when the
# analyzer does not count them) and records read.
set cacheSizes {1024 4096 16384 65536 262144}
set sweepPolicies {lru s3fifo sieve 2q}
set sweepSizes {64MB 1GB}
set objOptions {-key objectId -sizeField objectSize}
set row $env(RUBICON_BENCH_CACHE)
set runOptions {}
switch -glob -- $row {
    none {set a {}}
    obj-none {
	set a {}
	set runOptions {-format oraclegeneral}
    }
    obj-* {
	set a [CacheSimAnalyzer {*}$objOptions -sizes 256MB \
	    -policy [string range $row 4 end]]
	set runOptions {-format oraclegeneral}
    }
    sweep {
	set a [CacheSimAnalyzer {*}$objOptions -policy $sweepPolicies \
	    -sizes $sweepSizes]
	set runOptions {-sweep 1 -format oraclegeneral}
    }
    lru {set a [ReuseDistanceAnalyzer]}
    shards* {set a [ReuseDistanceAnalyzer -sample [string range $row 6 end]]}
    sim-* {
	set a [CacheSimAnalyzer -policy [string range $row 4 end] \
	    -sizes $cacheSizes]
    }
    heatmap {set a [HeatmapAnalyzer]}
    p99 {set a [SeriesAnalyzer -stats responseTimeP99]}
    default {error "cache.tcl: unknown row \"$row\""}
}
set flow [Flow cache {*}$a]
head $flow
set summary [rubicon::run -progress 0 {*}$runOptions {*}$argv]
set accesses 0
if {[string match shards* $row] || $row eq "lru"} {
    set accesses [expr {round([$flow get BlockAccesses])}]
} elseif {[string match sim-* $row] || ([string match obj-* $row]
	&& $row ne "obj-none") || $row eq "sweep"} {
    set accesses [expr {round([$flow get BlockAccesses])}]
}
puts "accesses $accesses records [dict get $summary records]"
if {[string match obj-* $row] && $row ne "obj-none"} {
    puts "hits [expr {round([lindex [dict get [$flow get HitRatioCurve] rows] 0 2])}]"
}
if {$row eq "sweep"} {
    puts [dict get [$flow get HitRatioCurve] rows]
}
if {$row eq "lru"} {
    puts "accesses $accesses cold [expr {round([$flow get ColdMisses])}]\
	distinct [lindex [dict get [$flow get HitRatioCurve] rows] end 0]"
    foreach r [dict get [$flow get HitRatioCurve] rows] {
	lassign $r size - hits ratio byteRatio
	puts [format "%d %d %.9f %.9f" [expr {round($size)}] \
	    [expr {round($hits)}] $ratio $byteRatio]
    }
}
