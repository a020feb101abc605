# observer.tcl BUILD DATA -- the Observer rows of make bench: exact MVA for
# 1000 customers on 100 centers, and ObserverCacheAnalyzer's one-pass
# cache curve over the 10 M records of DATA/t10m.srt (one access each:
# -spanning 0), net of reading them (the same run with an empty Flow).
# MVA: medians of 3 runs; the cache curve: one run of each (two passes
# over 10 M records take long enough that one run is not noise, and three
# would cost make bench a minute).  Prints the rows in bench.tcl's layout.

lassign $argv build data
set runs 3
set cacheRuns 1
lappend auto_path $build
package require rubicon
set big [file join $data t10m.srt]

# median LIST -- the middle value (mean of the two middle ones if even).
proc median {values} {
    set s [lsort -real $values]
    set n [llength $s]
    expr {$n % 2 ? [lindex $s [expr {$n / 2}]]
	: ([lindex $s [expr {$n / 2 - 1}]] + [lindex $s [expr {$n / 2}]]) / 2.0}
}

# seconds SCRIPT -- wall-clock seconds of evaluating SCRIPT at top level.
proc seconds {script} {
    set t0 [clock microseconds]
    uplevel #0 $script
    expr {([clock microseconds] - $t0) / 1e6}
}

# MVA: one closed class of 1000 on 100 queueing centers, demands 1..100 ms
# in a fixed pseudo-random order so that every run solves the same net.
expr {srand(1)}
set m [observer::model]
$m workload w -closed 1000 -think 1.0
for {set c 0} {$c < 100} {incr c} {
    $m center c$c
    $m demand w c$c [expr {0.001 * (1 + int(rand() * 100))}]
}
puts stderr "bench: exact and approximate MVA ($runs runs)"
for {set r 0} {$r < $runs} {incr r} {
    lappend exact [seconds {set exactAnswer [$m solve -method exact]}]
    lappend approx [seconds {set approxAnswer [$m solve -method approx]}]
}
set xExact [dict get $exactAnswer workloads w throughput]
set xApprox [dict get $approxAnswer workloads w throughput]
$m delete

if {![file exists $big]} {
    puts stderr "bench: $big is missing; run make bench once to generate it"
    exit 1
}
puts stderr "bench: cache curve over $big ($cacheRuns run x 2)"
for {set r 0} {$r < $cacheRuns} {incr r} {
    rubicon::reset
    head [Flow empty]
    lappend empty [seconds {rubicon::run -progress 0 $big}]
    rubicon::reset
    set f [Flow cache [ObserverCacheAnalyzer -spanning 0]]
    head $f
    lappend cache [seconds {rubicon::run -progress 0 $big}]
    set rows [dict get [$f get CacheCurve] rows]
    set accesses [lindex $rows end 4]
    set lastRatio [lindex $rows end 3]
}
rubicon::reset

set tExact [median $exact]
set tApprox [median $approx]
set tCache [median $cache]
set tEmpty [median $empty]
puts [format "%-34s %9s   %s; approximate MVA %.4f s; X %.4f vs %.4f jobs/s" \
    "(6) exact MVA, N 1000, 100 centers" [format "%.4f s" $tExact] \
    [dict get $exactAnswer method] $tApprox $xExact $xApprox]
puts [format "%-34s %9s   %.0f accesses; %.0f ns per access net of\
    reading (empty Flow %.2f s); hit ratio %.3f at the largest size" \
    "    cache curve, 10 M accesses" [format "%7.2f s" $tCache] $accesses \
    [expr {($tCache - $tEmpty) * 1e9 / $accesses}] $tEmpty $lastRatio]
