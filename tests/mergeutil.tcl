# mergeutil.tcl -- what the tests of merged partial states share (split
# runs in mpi.test and hosts.test, checkpoints in checkpoint.test): a
# configuration with every class that merges, and the comparison of two
# dumps of its Attributes.

# A configuration with every class that merges: one Flow of all I/Os and
# one per device of the first two, fed by equality Filters through a Mux,
# and staged Share of the first device's bytes.  After the run, rank 0
# writes every Attribute of every Flow as a dict to $env(RB_DUMP).
set ::kitConfig {
    proc kit {name} {
	Flow $name [RateAnalyzer -interval 10] [BandwidthAnalyzer -interval 10] \
	    [SizeAnalyzer] [SizeAnalyzer -prefix Blk -block 4096] \
	    [ReadFractionAnalyzer] [ResponseTimeAnalyzer] \
	    [AlignmentAnalyzer] [FieldStatsAnalyzer -field size] \
	    [FieldPercentilesAnalyzer -field size] \
	    [FieldHistogramAnalyzer -field size] [SizeHistogramAnalyzer] \
	    [DistinctAnalyzer -field devOffset] [TopKAnalyzer -field deviceNo] \
	    [HotRegionAnalyzer] [SeriesAnalyzer -interval 10] \
	    [DispersionAnalyzer] [HurstAnalyzer] [SeqRunAnalyzer] \
	    [SeqRunAnalyzer -prefix Gap -gap 65536] [FootprintAnalyzer] \
	    [InterArrivalAnalyzer] [SeekDistanceAnalyzer] \
	    [ReReferenceAnalyzer] [PatternAnalyzer] [BlockLifetimeAnalyzer] \
	    [StrideAnalyzer] [StrideAnalyzer -prefix Pid -by pid] \
	    [EntropyAnalyzer] [EntropyAnalyzer -prefix Pid -field pid] \
	    [BalanceAnalyzer] [BalanceAnalyzer -prefix Pid -field pid] \
	    [SloAnalyzer -interval 10] \
	    [ServiceModelAnalyzer] [PeakRateAnalyzer] [ArrivalFitAnalyzer] \
	    [ThinkTimeAnalyzer]
    }
    set all [kit all]
    set dev1 [kit dev1]
    set dev2 [kit dev2]
    $dev1 add [ShareAnalyzer -attribute Bytes -of $all]
    head [Mux $all [Filter "deviceNo = $::env(RB_DEV1)" $dev1] \
	[Filter "deviceNo = $::env(RB_DEV2)" $dev2]]
    set summary [rubicon::run -progress 0 {*}$argv]
    set out [open $env(RB_DUMP) w]
    # (ranks, reduceseconds, mergeseconds, notes: how a split run went,
    # not a result)
    puts $out [list summary [dict remove $summary seconds ranks reduceseconds \
	mergeseconds notes]]
    foreach flow [list $all $dev1 $dev2] {
	foreach a [lsort [$flow attributes]] {
	    puts $out [list [$flow name].$a [$flow get $a]]
	}
    }
    close $out
}

# sameValues A B -- "" if the two values are equal word by word, numbers
# within 1e-12 relative (sums of fractions in another order), else where
# they first differ.
proc sameValues {a b} {
    if {[string is list $a] && [string is list $b] && [llength $a] > 1} {
	if {[llength $a] != [llength $b]} {
	    return "lengths [llength $a] and [llength $b]"
	}
	foreach x $a y $b {
	    set why [sameValues $x $y]
	    if {$why ne ""} {return $why}
	}
	return ""
    }
    if {$a eq $b} {return ""}
    if {[string is double -strict $a] && [string is double -strict $b]
	    && abs($a - $b) <= 1e-12 * max(abs($a), abs($b))} {
	return ""
    }
    return "$a against $b"
}

# compareDumps ONE SPLIT -- every Attribute of the single-process dump in
# the split one with the same value; returns the differences (empty when
# none) and, as a check that something was compared, the count.
proc compareDumps {one split} {
    set diffs {}
    foreach {k v} $one {
	if {![dict exists $split $k]} {
	    lappend diffs "$k missing"
	} elseif {[set why [sameValues $v [dict get $split $k]]] ne ""} {
	    lappend diffs "$k: $why"
	}
    }
    foreach k [dict keys $split] {
	if {![dict exists $one $k]} {lappend diffs "$k extra"}
    }
    return [list [llength [dict keys $one]] $diffs]
}

# genMsr PATH N ?SEED? -- N I/Os in the MSR Cambridge CSV format (Windows
# file time in 100 ns ticks, host, disk, Read/Write, offset, size,
# response time in ticks) on disks 0-3, 5-150 us apart, a third of them
# sequential, from a fixed linear congruential sequence.
proc genMsr {path n {seed 12345}} {
    set f [open $path w]
    fconfigure $f -buffering full
    set x $seed
    set t 133444736000000000
    set off {0 0 0 0}
    for {set i 0} {$i < $n} {incr i} {
	set x [expr {($x * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF}]
	set r [expr {$x >> 33}]
	incr t [expr {50 + $r % 1500}]
	set disk [expr {($r >> 11) % 4}]
	set size [expr {4096 << (($r >> 13) % 4)}]
	if {($r >> 15) % 3 == 0} {
	    set o [lindex $off $disk]
	} else {
	    set o [expr {(($r >> 17) % 1000000) * 4096}]
	}
	lset off $disk [expr {$o + $size}]
	puts $f "$t,gen,$disk,[expr {($r >> 20) % 3 ? "Write" : "Read"}],$o,$size,[expr {300 + ($r >> 22) % 20000}]"
    }
    close $f
}
