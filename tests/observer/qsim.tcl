# qsim.tcl -- a small stochastic simulation of a queueing network, kept
# apart from the Observer solvers so that it can check them.  It reads a
# model's [$m describe] dict and simulates the network event by event:
# every workload visits its centers (those where it has demand) in the
# order given, queueing centers serve by processor sharing, delay centers
# serve everyone at once, and service times are exponential with mean
# demand / speed.  Closed workloads think (exponentially, mean Z) between
# cycles; open workloads arrive as a Poisson stream and leave after the
# last center.  These are the BCMP conditions under which MVA is exact,
# so the simulation converges to MVA's answer.
#
#   qsim::run DESCRIPTION ?-events N? ?-seed S? ?-warmup FRACTION?
#
# returns {workloads {W {throughput X response R}} centers {C {utilization U}}}
# where response excludes think time (from Little's law on the jobs in
# the system) and the first FRACTION of events is discarded.

namespace eval qsim {}

proc qsim::Exp {mean} {
    expr {-log(1.0 - rand()) * $mean}
}

proc qsim::run {desc args} {
    set opt [dict merge {-events 200000 -seed 1 -warmup 0.1} $args]
    expr {srand([dict get $opt -seed])}
    set centers [dict get $desc centers]
    # Per workload: its route (centers with demand) and mean service at each.
    set wls {}
    dict for {w spec} [dict get $desc workloads] {
	set route {}
	dict for {c d} [dict get $desc demands $w] {
	    set speed [dict get $centers $c speed]
	    if {$d > 0} {lappend route $c [expr {double($d) / $speed}]}
	}
	dict set wls $w route $route
	if {[dict exists $spec open]} {
	    dict set wls $w open [dict get $spec open]
	    set n 0
	} else {
	    dict set wls $w think [dict get $spec think]
	    set n [dict get $spec closed]
	}
	# count(stage): jobs at each route stage; stage -1 is thinking.
	set count($w,-1) $n
	for {set j 0} {$j < [llength $route] / 2} {incr j} {set count($w,$j) 0}
	set done($w) 0
	set area($w) 0.0
	# A closed workload with no think time goes straight to stage 0.
	if {![dict exists $spec open] && [dict get $spec think] == 0} {
	    set count($w,0) $n
	    set count($w,-1) 0
	}
    }
    foreach c [dict keys $centers] {
	set busy($c) 0.0
	set atCenter($c) 0
    }
    dict for {w spec} $wls {
	set j 0
	set inSys($w) 0
	foreach {c s} [dict get $spec route] {
	    incr atCenter($c) $count($w,$j)
	    incr inSys($w) $count($w,$j)
	    incr j
	}
    }
    set now 0.0
    set events [dict get $opt -events]
    set warm [expr {int($events * [dict get $opt -warmup])}]
    set t0 0.0
    for {set e 0} {$e < $events} {incr e} {
	if {$e == $warm} {
	    set t0 $now
	    foreach w [dict keys $wls] {set done($w) 0; set area($w) 0.0}
	    foreach c [dict keys $centers] {set busy($c) 0.0}
	}
	# Rates of every possible next event.
	set rates {}
	set total 0.0
	dict for {w spec} $wls {
	    if {[dict exists $spec open]} {
		set r [dict get $spec open]
		if {$r > 0} {lappend rates $r $w -1}
	    } elseif {$count($w,-1) > 0} {
		set r [expr {$count($w,-1) / double([dict get $spec think])}]
		lappend rates $r $w -1
	    }
	    set j 0
	    foreach {c s} [dict get $spec route] {
		set n $count($w,$j)
		if {$n > 0} {
		    if {[dict get $centers $c type] eq "delay"} {
			set r [expr {$n / $s}]
		    } else {
			set r [expr {double($n) / $atCenter($c) / $s}]
		    }
		    lappend rates $r $w $j
		}
		incr j
	    }
	}
	foreach {r w j} $rates {set total [expr {$total + $r}]}
	if {$total == 0} break
	set dt [Exp [expr {1.0 / $total}]]
	# Time-weighted jobs in the system and busy time, before the jump.
	foreach w [dict keys $wls] {
	    set area($w) [expr {$area($w) + $inSys($w) * $dt}]
	}
	foreach c [dict keys $centers] {
	    if {$atCenter($c) > 0} {set busy($c) [expr {$busy($c) + $dt}]}
	}
	set now [expr {$now + $dt}]
	# Pick the event in proportion to its rate.
	set x [expr {rand() * $total}]
	foreach {r w j} $rates {
	    set x [expr {$x - $r}]
	    if {$x <= 0} break
	}
	set route [dict get $wls $w route]
	set last [expr {[llength $route] / 2 - 1}]
	if {$j >= 0} {
	    incr count($w,$j) -1
	    incr atCenter([lindex $route [expr {2 * $j}]]) -1
	    incr inSys($w) -1
	} elseif {![dict exists $wls $w open]} {
	    incr count($w,-1) -1
	}
	if {$j == $last} {
	    incr done($w)
	    if {[dict exists $wls $w open]} continue
	    if {[dict get $wls $w think] > 0} {
		incr count($w,-1)
		continue
	    }
	    set j -1
	}
	if {$last < 0} continue
	incr j
	incr count($w,$j)
	incr inSys($w)
	incr atCenter([lindex $route [expr {2 * $j}]])
    }
    set span [expr {$now - $t0}]
    set out {}
    dict for {w spec} $wls {
	set x [expr {$done($w) / $span}]
	dict set out workloads $w throughput $x
	dict set out workloads $w response [expr {$x > 0 ? $area($w) / $span / $x : 0}]
    }
    foreach c [dict keys $centers] {
	dict set out centers $c utilization [expr {$busy($c) / $span}]
    }
    return $out
}
