# all.tcl -- runs every tests/*.test file with tcltest, in one process,
# with temporary files under $TMPDIR (or /tmp), never in the work tree.
package require tcltest 2
namespace import tcltest::*
set tmp [file join [expr {[info exists ::env(TMPDIR)] ? $::env(TMPDIR) : "/tmp"}] rubicon-tests-[pid]]
file mkdir $tmp
configure -testdir [file dirname [file normalize [info script]]] -tmpdir $tmp {*}$argv
configure -singleproc 1
runAllTests
file delete -force $tmp
