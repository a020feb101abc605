# killresume.tcl -- SIGKILL at random points of a long run, each resumed
# from its last checkpoint (or run afresh when none was written yet), and
# every Attribute compared with the run never stopped (rubicon(n),
# CHECKPOINTS).  checkpoint.test does this on the SRT trace in make check;
# this is the same on a generated trace of N records, run by hand:
#     tclsh tests/bench/killresume.tcl ?N? ?KILLS? ?NP?
# (defaults 5000000 records, 20 kills, 1 process; NP 2 runs each under
# mpirun -np 2 and kills one rank).  The configuration is mergeutil.tcl's:
# every class that merges, on all I/Os and on two devices.
set here [file dirname [file normalize [info script]]]
set top [file dirname [file dirname $here]]
lassign [concat $argv {5000000 20 1}] n kills np
set build [expr {[info exists env(RUBICON_BUILD)] ? $env(RUBICON_BUILD)
    : [file join $top build]}]
set bin [file join $build rubicon]
source [file join $top tests mergeutil.tcl]
set work [file join [expr {[info exists env(TMPDIR)] ? $env(TMPDIR) : "/tmp"}] rubicon-killresume]
file mkdir $work
# mergeutil.tcl's MSR generator: four disks of about a million blocks
# each, within every per-key class's default -limit.
set trace $work/t$n.csv
if {![file exists $trace]} {genMsr $trace $n}
set f [open $work/kit.tcl w]
puts $f $::kitConfig
close $f
set env(RB_DEV1) 0
set env(RB_DEV2) 1
set env(OMPI_ALLOW_RUN_AS_ROOT) 1
set env(OMPI_ALLOW_RUN_AS_ROOT_CONFIRM) 1
if {![info exists env(OMPI_MCA_pml)]} {set env(OMPI_MCA_pml) ob1}
set launch [expr {$np > 1 ? [list mpirun --oversubscribe -np $np $bin] : [list $bin]}]

proc dump {name args} {
    set ::env(RB_DUMP) $::work/$name.dump
    file delete $::env(RB_DUMP)
    set rc [catch {exec -ignorestderr {*}$::launch $::work/kit.tcl {*}$args 2>@1} out]
    if {$rc == 0} {
	set f [open $::env(RB_DUMP)]
	set out [read $f]
	close $f
    }
    list $rc $out
}

set t0 [clock milliseconds]
lassign [dump whole $trace] rc whole
set span [expr {[clock milliseconds] - $t0}]
if {$rc} {puts "the whole run failed: $whole"; exit 1}
puts "whole run: $span ms"
set every [expr {max(10000, $n / 10)}]
expr {srand(20261128)}
set equal 0
set resumed 0
for {set i 0} {$i < $kills} {incr i} {
    file delete -force {*}[glob -nocomplain -directory $work ck*]
    set ::env(RB_DUMP) $work/killed.dump
    set ch [open |[list {*}$launch $work/kit.tcl -checkpoint $work/ck \
	-checkpointevery $every $trace 2>@1] r]
    set at [expr {int(rand() * $span)}]
    after $at
    set pids {}
    catch {set pids [exec pgrep -f -- "^$bin $work/kit.tcl"]}
    if {[llength $pids]} {
	catch {exec kill -9 [lindex $pids [expr {int(rand() * [llength $pids])}]]}
    }
    catch {close $ch}
    set files [glob -nocomplain -tails -directory $work ck ck.0 ck.1]
    if {[llength $files]} {
	incr resumed
	lassign [dump again -resume $work/ck $trace] rc again
    } else {
	lassign [dump again $trace] rc again
    }
    lassign [compareDumps $whole $again] compared diffs
    set ok [expr {$rc == 0 && $diffs eq "" && $compared > 100}]
    incr equal $ok
    puts "kill [expr {$i + 1}] at $at ms: checkpoints {$files}, resumed run exit $rc, $compared Attributes compared, [expr {$ok ? "equal" : "DIFFERENT: [lrange $diffs 0 2]"}]"
}
puts "$equal of $kills equal the whole run; $resumed resumed from a checkpoint"
