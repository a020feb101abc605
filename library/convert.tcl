# convert.tcl --
#
#	rubicon::convert, behind "rubicon convert IN... OUT": reads traces of
#	any readable format and writes their records to the native format
#	or to CSV (every field of the schema, a header row), through a
#	TraceWriter in a child interpreter so the caller's DAG is left alone.

# rubicon::convert ?-format F? ?-onerror P? ?-readeroptions D?
#	?-to native|csv|chrome? ?-compression zstd|none|gzip? ?-progress bool?
#	in ?in ...? out
# An input "-" is standard input.  Returns the run summary.  OUT is CSV when it ends in .csv or with
# "-to csv", else the native format (-compression: TraceWriter's); on
# any error no OUT is left.
proc ::rubicon::convert {args} {
    set usage "usage: rubicon::convert ?-format F? ?-onerror stop|skip|warn?\
	    ?-readeroptions dict? ?-to native|csv|chrome?\
	    ?-compression zstd|none|gzip? ?-progress bool? in ?in ...? out"
    set runOpts {-progress 0}
    set writerOpts {}
    # "-" alone is a trace: standard input
    while {[string match -?* [lindex $args 0]]} {
	set args [lassign $args opt]
	if {$opt eq "--"} break
	if {[llength $args] == 0} {
	    return -code error -errorcode {RUBICON CONVERT USAGE} $usage
	}
	set args [lassign $args val]
	switch -- $opt {
	    -format - -onerror - -readeroptions - -progress {lappend runOpts $opt $val}
	    -to {lappend writerOpts -format $val}
	    -compression {lappend writerOpts -compression $val}
	    default {return -code error -errorcode {RUBICON CONVERT USAGE} $usage}
	}
    }
    if {[llength $args] < 2} {
	return -code error -errorcode {RUBICON CONVERT USAGE} $usage
    }
    set out [lindex $args end]
    set ins [lrange $args 0 end-1]
    set child [interp create]
    try {
	set loaded 0
	foreach pkg [info loaded] {
	    if {[lindex $pkg 1] eq "Rubicon"} {
		load [lindex $pkg 0] Rubicon $child
		set loaded 1
		break
	    }
	}
	if {!$loaded} {
	    $child eval [list set ::auto_path $::auto_path]
	    $child eval {package require rubicon}
	}
	$child eval [list head [$child eval \
	    [list TraceWriter -output $out {*}$writerOpts]]]
	return [$child eval [list rubicon::run {*}$runOpts {*}$ins]]
    } finally {
	interp delete $child
    }
}
