# common.tcl -- shared set-up for the tcltest suites: loads the package
# from the build tree and knows where fixtures and the shared data live.
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
set ::shared [expr {[info exists ::env(RUBICON_SHARED)] && $::env(RUBICON_SHARED) ne ""
    ? $::env(RUBICON_SHARED) : [file normalize [file join $::testsDir .. .. shared]]}]
set ::srtTrace [file join $::shared data srt hourly.03126.srt.bz2]
set ::rubiconBin [file join $::env(RUBICON_BUILD) rubicon]
testConstraint srtData [file exists $::srtTrace]
testConstraint gnuplot [expr {[auto_execok gnuplot] ne ""}]

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
