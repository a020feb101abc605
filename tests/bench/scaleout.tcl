# scaleout.tcl BUILD DATA RUNS -- the scale-out rows of make bench: a run
# in one process against the same run split over 2 MPI ranks (mpirun -np
# 2), for the streaming kit's mergeable classes (splitkit.tcl) on the 10
# M-record trace cut by byte ranges, and for Figure 4 (fig4.tcl) over the
# same records as four files.  Each rank runs under /usr/bin/time (wall,
# user and system CPU, peak RSS); rank 0's summary gives the reduction and
# merge times.  Medians of RUNS runs, 1 and 2 ranks interleaved.  Prints
# the rows in the table's layout; its stderr says what it is doing.  The
# PML is ob1 (shared memory) unless OMPI_MCA_pml says otherwise.
lassign $argv build data runs
set here [file dirname [file normalize [info script]]]
set rubicon [file join $build rubicon]
set tmp [file join $data scaleout.tmp]
file mkdir $tmp
set ::env(OMPI_ALLOW_RUN_AS_ROOT) 1
set ::env(OMPI_ALLOW_RUN_AS_ROOT_CONFIRM) 1
# On one machine the ranks talk through shared memory (the ob1 PML's vader
# transport) whatever Open MPI chooses; left to choose, it first probes
# for PSM, PSM2 and OFI network adapters (the cm PML), a quarter second of
# each rank's MPI_Init here.
if {![info exists ::env(OMPI_MCA_pml)]} {
    set ::env(OMPI_MCA_pml) ob1
}

proc median {values} {
    set s [lsort -real $values]
    set n [llength $s]
    expr {$n % 2 ? [lindex $s [expr {$n / 2}]]
	: ([lindex $s [expr {$n / 2 - 1}]] + [lindex $s [expr {$n / 2}]]) / 2.0}
}

# runOnce NP CONFIG TRACES -- one run on NP ranks (1: one process, no
# mpirun); a dict: wall (s, around the whole command), rank (per rank
# {elapsed user sys peakKB}), summary (rank 0's).
proc runOnce {np config traces} {
    global tmp rubicon here
    foreach old [glob -nocomplain -directory $tmp rank.*] {
	file delete $old
    }
    set ::env(RB_BENCH_CONFIG) $config
    set ::env(RB_BENCH_SUMMARY) [file join $tmp summary]
    set cmd [list sh -c {exec /usr/bin/time -f "%e %U %S %M" \
	-o "$0.${OMPI_COMM_WORLD_RANK:-0}" "$@"} [file join $tmp rank] \
	$rubicon -quiet [file join $here runsummary.tcl] {*}$traces]
    if {$np > 1} {
	set cmd [list mpirun --oversubscribe -np $np {*}$cmd]
    }
    set t0 [clock microseconds]
    if {[catch {exec {*}$cmd >/dev/null 2>@stderr} msg]} {
	puts stderr "bench: [join $cmd] failed: $msg"
	exit 1
    }
    set wall [expr {([clock microseconds] - $t0) / 1e6}]
    set ranks {}
    for {set r 0} {$r < $np} {incr r} {
	set f [open [file join $tmp rank.$r]]
	lappend ranks [lrange [string trim [read $f]] end-3 end]
	close $f
    }
    set f [open [file join $tmp summary]]
    set summary [read $f]
    close $f
    dict create wall $wall rank $ranks summary $summary
}

# measure CONFIG TRACES -- RUNS runs at 1 and at 2 ranks, interleaved;
# the medians as a dict: wall1 wall2, cpu1 (user + system), cpu2 (of each
# rank), rss1 rss2 (MB, of each rank), seconds1 seconds2 (the summary's:
# inside rubicon::run, so without starting the processes and MPI), merge
# reduce (s, rank 0's, 2 ranks), records (per rank at 2).
proc measure {config traces} {
    global runs
    for {set i 0} {$i < $runs} {incr i} {
	foreach np {1 2} {
	    set r [runOnce $np $config $traces]
	    lappend m(wall$np) [dict get $r wall]
	    set k 0
	    foreach rank [dict get $r rank] {
		lassign $rank elapsed user sys kb
		lappend m(cpu$np,$k) [expr {$user + $sys}]
		lappend m(rss$np,$k) [expr {$kb / 1024.0}]
		incr k
	    }
	    set s [dict get $r summary]
	    lappend m(seconds$np) [dict get $s seconds]
	    if {$np == 2} {
		lappend m(merge) [dict get $s mergeseconds]
		lappend m(reduce) [dict get $s reduceseconds]
		set records [dict get $s ranks]
	    } else {
		set total [dict get $s records]
	    }
	}
    }
    set out [dict create records $records total $total]
    foreach key [array names m] {
	dict set out $key [median $m($key)]
    }
    return $out
}

# row LABEL M -- the two lines of one case.
proc row {label m} {
    dict with m {
	set speed [expr {$wall1 / $wall2}]
	set cpuSpeed [expr {${cpu1,0} / max(${cpu2,0}, ${cpu2,1})}]
	puts [format "%-34s %9s   1 process: wall %.2f s, CPU %.2f s, peak RSS %.1f MB" \
	    $label [format "%7.2f s" $wall1] $wall1 ${cpu1,0} ${rss1,0}]
	puts [format "%-34s %9s   2 ranks: wall %.2f s, speedup %.2f (CPU of the\
	    slower rank: %.2f); CPU %.2f + %.2f s" \
	    "" [format "%7.2f s" $wall2] $wall2 $speed $cpuSpeed ${cpu2,0} ${cpu2,1}]
	puts [format "%-34s %9s   inside rubicon::run (no process or MPI start):\
	    1 process %.2f s, 2 ranks %.2f s, speedup %.2f" \
	    "" "" $seconds1 $seconds2 [expr {$seconds1 / $seconds2}]]
	puts [format "%-34s %9s   peak RSS per rank %.1f, %.1f MB; records %s;\
	    merge %.4f s (%.3f%% of the run), reduction %.3f s (%.2f%%, waiting included)" \
	    "" "" ${rss2,0} ${rss2,1} [join $records " + "] $merge \
	    [expr {100 * $merge / $seconds2}] $reduce [expr {100 * $reduce / $seconds2}]]
    }
}

set kitConfig [file join $here splitkit.tcl]
set probe [interp create]
$probe eval [list set auto_path [list $build {*}$auto_path]]
$probe eval {package require rubicon; namespace import rubicon::*}
$probe eval [list source $kitConfig]
set classes [$probe eval {set splitClasses}]
set leftOut [$probe eval {set splitLeftOut}]
interp delete $probe
set ::env(RB_BENCH_CLASSES) $classes
set big [file join $data t10m.srt]
set parts [lsort [glob [file join $data t10m-part*.srt]]]

puts stderr "bench: split runs, streaming kit on 10 M records, 1 and 2 ranks ($runs runs)"
set kit [measure $kitConfig [list $big]]
puts stderr "bench: split runs, Figure 4 over [llength $parts] files, 1 and 2 ranks ($runs runs)"
set fig4 [measure [file join $here fig4.tcl] $parts]
file delete -force $tmp

puts [format "%-34s %9s   (Open MPI, PML %s, 2 ranks on this machine's 2 cores;\
    medians of %d runs; wall times suffer from other load, CPU times less)" \
    "(11) one run split over MPI ranks" "" $::env(OMPI_MCA_pml) $runs]
row "    streaming kit, 10 M records" $kit
puts [format "%-34s %9s   (%d mergeable classes: %s%s)" "" "" [llength $classes] \
    [join [lmap c $classes {string map {Analyzer ""} $c}] ", "] \
    [expr {[llength $leftOut] ? "; left out, not mergeable: [join $leftOut {, }]" : ""}]]
row "    Figure 4, 4 files of 2.5 M" $fig4
