# oracle.tcl -- the utilization part of the Composite transaction-mix
# model on real data: 360 two-minute intervals of an Oracle OLTP database
# on a 4-way server (data/perfmodels/oracle-oltp-2min.csv:
# timestamp, db_time, cpu_time, call_rate, exec_rate, lio_rate, txn_rate,
# cpu_util).  There are no per-transaction records, only per-interval
# rates, so the "mix" N_i of interval i is its four rates per second:
# user calls, executions, logical I/Os (in thousands, so that no column
# dominates n_i = sum_j N_ij by its unit alone) and transactions.  y_i is
# db_time (DB time per second: the mean number of active sessions, i.e.
# the summed response time of the interval's work per second) and U_i the
# host CPU utilization, cpu_util / 100.
#
#   tclsh examples/txmix/oracle.tcl ?CSV? ?OUTPUT-PREFIX?
#
# Calibrates on the first half of the intervals (07:00-13:00) and predicts
# the second half (13:00-19:00):
#   - the utilization regression U_i = b_0 + sum_j b_j N_ij by LAR
#     (txmix::lar), with the OLS fit on the same rows for comparison;
#   - Basic, Extended (measured U), Composite as Kelly and Zhang define
#     it (Extended's coefficients, calibrated on measured U, applied to
#     U predicted by the regression above, clamped to [0, 0.999]) and
#     the composite-refit variant (coefficients calibrated on that
#     predicted U) by txmix::fit, LAR, no intercept;
# prints a table of accuracy (normalized aggregate error sum|e|/sum y and
# median |e|/y) on the calibration prefix and the predicted suffix, and
# writes PREFIX-oracle-MODEL.dat/.gp in ReporterTxmix's layout (run
# gnuplot on a .gp for the scatter with y = x, 2x, x/2, the residual
# series and the CDF of |e|/y).  ReporterTxmix itself draws a Flow's
# TxMixFit attribute, which needs per-transaction records; these files
# are written here from txmix::fit's predictions instead.
#
# Set ::oracleQuiet to 1 before sourcing to run without printing; the
# results are left in the globals ::oracle (a dict, see the end).
if {[info exists ::env(RUBICON_BUILD)]} {
    lappend auto_path $::env(RUBICON_BUILD)
}
lappend auto_path [file join [file dirname [info script]] .. .. build]
package require rubicon

namespace eval oracleExample {}

# oracleExample::readCsv PATH -- the CSV as a dict: times (seconds from the
# first interval), stamps, N (rows of 4 rates), y (db_time), U (rows of
# one utilization), cpuUtil (percent, as read).
proc oracleExample::readCsv {path} {
    set f [open $path]
    set header [split [gets $f] ,]
    set want {timestamp db_time cpu_time call_rate exec_rate lio_rate txn_rate cpu_util}
    if {$header ne $want} {
	close $f
	error "$path: header is \"[join $header ,]\", expected \"[join $want ,]\""
    }
    set d [dict create times {} stamps {} N {} y {} U {} cpuUtil {}]
    set t0 {}
    set line 1
    while {[gets $f row] >= 0} {
	incr line
	if {[string trim $row] eq ""} continue
	set v [split $row ,]
	if {[llength $v] != 8} {
	    close $f
	    error "$path line $line: [llength $v] fields, expected 8"
	}
	lassign $v ts db cpu call exec lio txn util
	set t [clock scan $ts -format {%Y-%m-%d %H:%M:%S} -gmt 1]
	if {$t0 eq ""} {set t0 $t}
	dict lappend d times [expr {$t - $t0}]
	dict lappend d stamps $ts
	dict lappend d N [list [expr {double($call)}] [expr {double($exec)}] \
	    [expr {$lio / 1000.0}] [expr {double($txn)}]]
	dict lappend d y [expr {double($db)}]
	dict lappend d U [list [expr {$util / 100.0}]]
	dict lappend d cpuUtil [expr {double($util)}]
    }
    close $f
    return $d
}

# oracleExample::writePlots BASE TIMES Y YHAT -- BASE.dat and BASE.gp as
# ReporterTxmix writes them: time y predicted residual, then the sorted
# |e|/y with its cumulative fraction; the script draws the three views.
proc oracleExample::writePlots {base name times y yhat} {
    set f [open $base.dat w]
    puts $f "# time y predicted residual"
    set rel {}
    foreach t $times yi $y pi $yhat {
	puts $f [format "%.9g %.9g %.9g %.9g" $t $yi $pi [expr {$yi - $pi}]]
	if {$yi > 0} {lappend rel [expr {abs($yi - $pi) / $yi}]}
    }
    puts $f "\n\n# |e|/y cumulative-fraction"
    set rel [lsort -real $rel]
    set n [llength $rel]
    set i 0
    foreach r $rel {
	puts $f [format "%.9g %.9g" $r [expr {double([incr i]) / $n}]]
    }
    close $f
    set f [open $base.gp w]
    puts $f [string map [list @DAT@ $base.dat @BASE@ $base @NAME@ $name] {set terminal png size 800,600
dat = '@DAT@'
set output '@BASE@-scatter.png'
set title '@NAME@: measured vs predicted DB time per second'
set xlabel 'predicted (s/s)'
set ylabel 'measured y (s/s)'
set key top left
plot dat index 0 using 3:2 with points pt 7 ps 0.5 title 'intervals', x title 'y = x', 2*x title 'y = 2x', x/2 title 'y = x/2'
set output '@BASE@-residuals.png'
set title '@NAME@: residuals'
set xlabel 'time (s)'
set ylabel 'y - predicted (s/s)'
plot dat index 0 using 1:4 with impulses title 'residual'
set output '@BASE@-cdf.png'
set title '@NAME@: CDF of relative error'
set xlabel '|e|/y'
set ylabel 'fraction of intervals'
set logscale x
plot dat index 1 using 1:2 with steps title '|e|/y'}]
    close $f
}

# oracleExample::run CSV PREFIX ?FRACTION? -- everything above; returns
# the results dict.
proc oracleExample::run {csv prefix {fraction 0.5}} {
    set d [readCsv $csv]
    set m [llength [dict get $d y]]
    set ntrain [expr {int($m * $fraction)}]
    set train {}
    for {set i 0} {$i < $m} {incr i} {lappend train [expr {$i < $ntrain}]}
    set N [dict get $d N]
    set U [dict get $d U]
    set u [lmap r $U {lindex $r 0}]

    # The utilization regression on the calibration prefix, by LAR and
    # (for comparison) OLS; its predictions on every interval, clamped
    # as the Composite model clamps them.
    set Ntr [lrange $N 0 $ntrain-1]
    set utr [lrange $u 0 $ntrain-1]
    set ular [txmix::lar $Ntr $utr -intercept 1]
    set uols [txmix::ols $Ntr $utr -intercept 1]
    set b [dict get $ular coefficients]
    set uhat {}
    foreach row $N {
	set p [lindex $b 0]
	foreach bj [lrange $b 1 end] nj $row {set p [expr {$p + $bj * $nj}]}
	lappend uhat [expr {min(max($p, 0.0), 0.999)}]
    }
    set uacc [txmix::accuracy $u $uhat -mask [lmap t $train {expr {!$t}}]]
    set uaccTrain [txmix::accuracy $u $uhat -mask $train]

    set fits {}
    foreach model {basic extended composite composite-refit} {
	set r [txmix::fit $N [dict get $d y] -utilization $U -model $model \
	    -method lar -train $train]
	dict set fits $model $r
	writePlots $prefix-oracle-$model "oracle $model" \
	    [dict get $d times] [dict get $d y] [dict get $r predicted]
    }
    return [dict create data $d intervals $m ntrain $ntrain train $train \
	ular $ular uols $uols uhat $uhat uaccTrain $uaccTrain uacc $uacc \
	fits $fits \
	meanCpuUtil [expr {[tcl::mathop::+ {*}[dict get $d cpuUtil]] / $m}]]
}

# oracleExample::report RESULT -- the printed summary.
proc oracleExample::report {res} {
    set d [dict get $res data]
    set m [dict get $res intervals]
    set ntrain [dict get $res ntrain]
    set stamps [dict get $d stamps]
    puts [format "%d intervals, %s to %s; mean cpu_util %.2f%%" $m \
	[lindex $stamps 0] [lindex $stamps end] [dict get $res meanCpuUtil]]
    puts [format "calibrated on the first %d (to %s), predicting the last %d" \
	$ntrain [lindex $stamps $ntrain-1] [expr {$m - $ntrain}]]
    puts ""
    puts "utilization regression U = b0 + b.N (LAR, calibration prefix):"
    set names {b0 call/s exec/s kLIO/s txn/s}
    foreach n $names c [dict get $res ular coefficients] \
	    o [dict get $res uols coefficients] {
	puts [format "  %-7s %12.4e   (OLS %12.4e)" $n $c $o]
    }
    puts [format "  sum |e|: LAR %.6f, OLS coefficients %.6f" \
	[dict get $res ular objective] [dict get $res uols sae]]
    puts ""
    puts [format "%-26s %-19s   %s" "" "calibration prefix" "predicted suffix"]
    puts [format "%-26s %9s %9s   %9s %9s" model "agg err" "med |e|/y" \
	"agg err" "med |e|/y"]
    puts [format "%-26s %9.4f %9.4f   %9.4f %9.4f" "utilization (U from N)" \
	[dict get $res uaccTrain aggregate] [dict get $res uaccTrain median] \
	[dict get $res uacc aggregate] [dict get $res uacc median]]
    foreach model {basic extended composite composite-refit} label {
	"Basic (db_time)" "Extended (measured U)" "Composite (predicted U)"
	"Composite-refit"
    } {
	set r [dict get $res fits $model]
	puts [format "%-26s %9.4f %9.4f   %9.4f %9.4f" $label \
	    [dict get $r train aggregate] [dict get $r train median] \
	    [dict get $r test aggregate] [dict get $r test median]]
    }
}

if {[info exists argv0] && [file normalize $argv0] eq [file normalize [info script]]
	|| [info exists ::oracleQuiet]} {
    set csv [expr {[llength $argv] > 0 ? [lindex $argv 0]
	: [file join [file dirname [info script]] .. .. data perfmodels oracle-oltp-2min.csv]}]
    set prefix [expr {[llength $argv] > 1 ? [lindex $argv 1] : "txmix"}]
    set ::oracle [oracleExample::run $csv $prefix]
    if {!([info exists ::oracleQuiet] && $::oracleQuiet)} {
	oracleExample::report $::oracle
    }
}
