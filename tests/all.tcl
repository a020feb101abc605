# all.tcl -- runs every tests/*.test file with tcltest.
package require tcltest 2
namespace import tcltest::*
configure -testdir [file dirname [file normalize [info script]]] {*}$argv
configure -singleproc 1
runAllTests
