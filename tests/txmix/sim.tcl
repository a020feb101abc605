# sim.tcl -- a simulator of a two-tier application (an application server
# and a database, each one FCFS server) under non-stationary load, for the
# transaction-mix models.  Transactions of four types arrive as a Poisson
# process whose rate is a sine wave over a rising ramp, with overload
# peaks in the second half; the mix drifts on periods of its own.  Each
# type has known service demands at the two tiers, drawn uniformly within
# +-20% of their mean.  Both tiers are FCFS single servers visited in the
# same order, so departures keep arrival order and Lindley's recursion
# gives every time exactly.
#
#   txmix::sim ?-duration s? ?-seed n? ?-scale f?
#
# returns a dict:
#   demands  {app {d1 d2 d3 d4} db {d1 d2 d3 d4}}  mean service demands, s
#   records  {type start response ...}             flat, in start order
#   util     {app {t u ...} db {t u ...}}          busy fraction per 10 s
namespace eval txmix {}

proc txmix::sim {args} {
    set opt [dict merge {-duration 14400 -seed 11 -scale 0.5} $args]
    set T [dict get $opt -duration]
    set scale [dict get $opt -scale]
    expr {srand([dict get $opt -seed])}
    set pi [expr {acos(-1)}]
    # Mean demands (s) per type at the application and database tiers.
    set dApp {0.025 0.050 0.0125 0.075}
    set dDb  {0.050 0.0125 0.100 0.025}
    # Mix weights drift on periods unrelated to the load's.
    set mixPeriod {2700 4100 5300 3300}
    set mixPhase {0.0 1.3 2.9 4.4}

    set lambdaMax [expr {60.0 * $scale}]
    set t 0.0
    set freeApp 0.0
    set freeDb 0.0
    set records {}
    set busyApp {}
    set busyDb {}
    while 1 {
	# Thinning: candidates at the maximum rate, kept with rate/max.
	set t [expr {$t - log(1.0 - rand()) / $lambdaMax}]
	if {$t >= $T} break
	set x [expr {$t / $T}]
	set rate [expr {$scale * (0.5 + 24.0 * $x * $x * $x)
	    * (1.0 + 0.35 * sin(2 * $pi * $t / 1800.0))}]
	# Overload peaks: five minutes in every half hour of the second half.
	if {$x > 0.5 && fmod($t, 1800.0) < 300.0} {
	    set rate [expr {$rate * 1.8}]
	}
	if {rand() * $lambdaMax >= $rate} continue
	set w {}
	set sum 0.0
	foreach p $mixPeriod ph $mixPhase {
	    set v [expr {1.0 + 0.6 * sin(2 * $pi * $t / $p + $ph)}]
	    lappend w $v
	    set sum [expr {$sum + $v}]
	}
	set u [expr {rand() * $sum}]
	set type 0
	foreach v $w {
	    if {$u < $v} break
	    set u [expr {$u - $v}]
	    incr type
	}
	if {$type > 3} {set type 3}
	set sApp [expr {[lindex $dApp $type] * (0.8 + 0.4 * rand())}]
	set sDb [expr {[lindex $dDb $type] * (0.8 + 0.4 * rand())}]
	set startApp [expr {max($t, $freeApp)}]
	set freeApp [expr {$startApp + $sApp}]
	set startDb [expr {max($freeApp, $freeDb)}]
	set freeDb [expr {$startDb + $sDb}]
	lappend records [expr {$type + 1}] $t [expr {$freeDb - $t}]
	lappend busyApp $startApp $freeApp
	lappend busyDb $startDb $freeDb
    }
    dict create demands [dict create app $dApp db $dDb] records $records \
	util [dict create app [txmix::BusyFraction $busyApp 10.0 $T] \
		db [txmix::BusyFraction $busyDb 10.0 $T]]
}

# txmix::BusyFraction intervals step T -- {time fraction ...}: for each
# step-long slot of 0..T, the share of it covered by the busy intervals
# (a flat list of start end, disjoint and in order); time is the slot's
# middle.
proc txmix::BusyFraction {intervals step T} {
    set n [expr {int(ceil($T / $step))}]
    set busy [lrepeat $n 0.0]
    foreach {a b} $intervals {
	set i [expr {int($a / $step)}]
	while {$i < $n && $a < $b} {
	    set end [expr {min($b, ($i + 1) * $step)}]
	    lset busy $i [expr {[lindex $busy $i] + $end - $a}]
	    set a $end
	    incr i
	}
    }
    set out {}
    for {set i 0} {$i < $n} {incr i} {
	lappend out [expr {($i + 0.5) * $step}] \
	    [expr {min(1.0, [lindex $busy $i] / $step)}]
    }
    return $out
}

# txmix::writeCsv records path -- writes type,start,response lines with a
# header, the form the csv reader's column map reads.
proc txmix::writeCsv {records path} {
    set f [open $path w]
    puts $f "type,start,response"
    foreach {type start resp} $records {
	puts $f [format "%d,%.9f,%.9f" $type $start $resp]
    }
    close $f
}
