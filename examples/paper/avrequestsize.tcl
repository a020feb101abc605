# avrequestsize.tcl --
#
#	The paper's extension examples at work: AnalyzerAvRequestSize (its
#	Figure 6) on disk 1 and on all I/O, reported by ReporterSimple (its
#	Figure 7).  Build the package first (make in this directory, or the
#	top-level make, which puts it in build/paper).
#
#	rubicon examples/paper/avrequestsize.tcl trace ...

package require paperexample

set disk1 [Flow disk1]
set all [Flow all]
set disk1_size [AnalyzerAvRequestSize $disk1]
set all_size [AnalyzerAvRequestSize $all]
head [Mux "[Filter "deviceNo = 1" $disk1_size] $all_size"]
set rs [ReporterSimple "$disk1 $all" "AvRequestSize"]
$rs.setOutput "avrequestsize.txt"
