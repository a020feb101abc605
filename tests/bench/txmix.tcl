# txmix.tcl BUILD ?RUNS? -- the transaction-mix row of make bench: the
# time txmix::lar takes to calibrate a model on 2,000 windows of 100
# transaction types (median of RUNS runs).  The data are synthetic but
# shaped like the real thing: per window a count of each type (skewed:
# a few types are common), a known cost per type, and a sum of response
# times that is the linear model plus noise, so the fit has a right
# answer to check against (the residuals and the median coefficient
# error are printed: a fast wrong answer must not look good).

lassign $argv build runs
if {$runs eq ""} {set runs 3}
lappend auto_path $build
package require rubicon

# median LIST -- the middle value (mean of the two middle ones if even).
proc median {values} {
    set s [lsort -real $values]
    set n [llength $s]
    expr {$n % 2 ? [lindex $s [expr {$n / 2}]]
	: ([lindex $s [expr {$n / 2 - 1}]] + [lindex $s [expr {$n / 2}]]) / 2.0}
}

# A fixed seed: every run and every machine fits the same matrix.
expr {srand(11)}
set windows 2000
set types 100
set cost {}
for {set j 0} {$j < $types} {incr j} {
    lappend cost [expr {0.005 + 0.1 * rand()}]
}
set X {}
set y {}
for {set i 0} {$i < $windows} {incr i} {
    set row {}
    set sum 0.0
    for {set j 0} {$j < $types} {incr j} {
	# Mean count 40/(j+1) + 1: type 0 common, the tail rare.
	set n [expr {int(rand() * 2 * (40.0 / ($j + 1) + 1))}]
	lappend row $n
	set sum [expr {$sum + $n * [lindex $cost $j]}]
    }
    lappend X $row
    # Multiplicative noise of up to +-5%.
    lappend y [expr {$sum * (0.95 + 0.1 * rand())}]
}

puts stderr "bench: LAR calibration, $windows windows x $types types ($runs runs)"
for {set r 0} {$r < $runs} {incr r} {
    set t0 [clock microseconds]
    set fit [txmix::lar $X $y]
    lappend times [expr {([clock microseconds] - $t0) / 1e6}]
}
set errs [lmap c [dict get $fit coefficients] truth $cost {
    expr {abs($c - $truth) / $truth}
}]
set ysum [tcl::mathop::+ {*}$y]
puts [format "%-34s %9s   %d simplex iterations; residuals %.1f%% of y\
    (noise +-5%%), median coefficient error %.1f%%" \
    "(8) LAR calibration, 2000 x 100" [format "%7.2f s" [median $times]] \
    [dict get $fit iterations] [expr {[dict get $fit objective] / $ysum * 100}] \
    [expr {[median $errs] * 100}]]
