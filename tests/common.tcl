# common.tcl -- shared set-up for the tcltest suites: loads the package
# from the build tree and knows where fixtures and the data live.
package require tcltest 2
namespace import -force ::tcltest::*
if {![info exists ::env(RUBICON_BUILD)]} {
    set ::env(RUBICON_BUILD) [file normalize [file join [file dirname [info script]] .. build]]
}
if {$::env(RUBICON_BUILD) ni $::auto_path} {
    lappend ::auto_path $::env(RUBICON_BUILD)
}
package require rubicon
set ::testsDir [file dirname [file normalize [info script]]]
set ::fixtures [file join $::testsDir fixtures]
# The real traces kept in the repository (data/README.md); RUBICON_DATA
# names another copy of that folder.
set ::datadir [expr {[info exists ::env(RUBICON_DATA)] && $::env(RUBICON_DATA) ne ""
    ? $::env(RUBICON_DATA) : [file normalize [file join $::testsDir .. data]]}]
set ::srtTrace [file join $::datadir srt hourly.03126.srt.bz2]
set ::rubiconBin [file join $::env(RUBICON_BUILD) rubicon]
testConstraint srtData [file exists $::srtTrace]
testConstraint gnuplot [expr {[auto_execok gnuplot] ne ""}]
# plainBuild: not the ASan/UBSan pass (make check-asan preloads libasan),
# for the few tests too slow to run under it.
testConstraint plainBuild [expr {![info exists ::env(LD_PRELOAD)]
    || ![string match *asan* $::env(LD_PRELOAD)]}]

# A fresh temporary directory for one test.
proc tmpdir {name} {
    set d [file join [temporaryDirectory] rbtest-[pid]-$name]
    file delete -force $d
    file mkdir $d
    lappend ::tmpdirs $d
    return $d
}

# rbCleanup -- removes the test file's temporary directories and ends it.
proc rbCleanup {} {
    foreach d [lsort -unique $::tmpdirs] {file delete -force $d}
    file delete -force [file join [temporaryDirectory] data-plain]
    set ::tmpdirs {}
    rubicon::reset
    cleanupTests
}
set ::tmpdirs {}

# readSrt PATH -- a deliberately simple second SRT reader (not Rubicon's):
# returns a list of dicts {enq issue done size dev read lv off pid mach ql
# flags} with times in microseconds since the Unix epoch.
proc readSrt {path} {
    if {[string match *.bz2 $path]} {
	set ch [open |[list bzip2 -dc $path] rb]
    } else {
	set ch [open $path rb]
    }
    set data [read $ch]
    close $ch
    set pos [expr {[string first \f $data] + 1}]
    set out {}
    while {$pos + 88 <= [string length $data]} {
	binary scan $data @${pos}IuIuIuIuIuIuIuIuIuIuIuIuIuIuIuIuIuIu \
	    len vt sec usec leave ret size mach dev w9 w10 flags w12 ql pid lv offHi offLo
	lappend out [dict create enq [expr {$sec * 1000000 + $usec}] \
	    issue [expr {$sec * 1000000 + $usec + $leave}] \
	    done [expr {$sec * 1000000 + $usec + $ret}] size $size dev $dev \
	    read [expr {($flags >> 19) & 1}] lv $lv \
	    off [expr {($offHi << 32) | $offLo}] pid $pid mach $mach ql $ql \
	    flags $flags]
	incr pos $len
    }
    return $out
}

# plainData REL -- the path of data/REL as published: the file itself, or
# for a gzip-compressed one (REL ends in .gz) a decompressed copy made once
# per test process under the temporary directory, for tests that read it
# with awk, head or Tcl, or that cut and split its bytes.
proc plainData {rel} {
    set src [file join $::datadir $rel]
    if {![string match *.gz $rel]} {return $src}
    set dst [file join [temporaryDirectory] data-plain [file rootname $rel]]
    if {![file exists $dst]} {
	file mkdir [file dirname $dst]
	set in [open $src rb]
	zlib push gunzip $in
	set out [open $dst.part wb]
	fcopy $in $out
	close $in
	close $out
	file rename -force $dst.part $dst
    }
    return $dst
}

# plainDir REL -- a directory holding every file of data/REL as published
# (see plainData), for tests that name its files without .gz.
proc plainDir {rel} {
    set dir [file join [temporaryDirectory] data-plain $rel]
    foreach f [glob -directory [file join $::datadir $rel] *] {
	if {[string match *.gz $f]} {
	    plainData $rel/[file tail $f]
	} else {
	    file mkdir $dir
	    file copy -force $f $dir
	}
    }
    return $dir
}

# splitmix64 N -- the splitmix64 finalizer of the 64-bit value N, written
# from its published definition (Steele, Lea and Flood, OOPSLA 2014;
# Vigna's splitmix64.c), for checking which blocks a -blocksize sample
# keeps.
proc splitmix64 {x} {
    set m 0xFFFFFFFFFFFFFFFF
    set x [expr {($x + 0x9E3779B97F4A7C15) & $m}]
    set x [expr {(($x ^ ($x >> 30)) * 0xBF58476D1CE4E5B9) & $m}]
    set x [expr {(($x ^ ($x >> 27)) * 0x94D049BB133111EB) & $m}]
    expr {$x ^ ($x >> 31)}
}

# blockSampleDevHash DEV -- the hash of device DEV that SampleTransformer
# -blocksize mixes with each block number (SampleTransformer(n)): block B
# is kept in a 1-in-N sample when [splitmix64 [expr {$devHash ^ B}]] is at
# most (2^64 - 1) / N.
proc blockSampleDevHash {dev} {
    splitmix64 [expr {$dev ^ 0x2545F4914F6CDD1D}]
}
