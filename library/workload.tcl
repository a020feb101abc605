# workload.tcl --
#
#	rubicon::workload load FILE: reads back the workload.tcl that
#	ReporterWorkload writes, a dict of Flow name -> characterization.
#	The file is data: it is parsed as a dict, never evaluated, so a
#	workload file from elsewhere cannot run commands.

namespace eval ::rubicon {}

proc ::rubicon::workload {subcommand args} {
    switch -exact -- $subcommand {
	load {
	    if {[llength $args] != 1} {
		return -code error -errorcode {TCL WRONGARGS} \
		    {wrong # args: should be "rubicon::workload load FILE"}
	    }
	    return [LoadWorkload [lindex $args 0]]
	}
	default {
	    return -code error -errorcode [list TCL LOOKUP SUBCOMMAND $subcommand] \
		"unknown subcommand \"$subcommand\": must be load"
	}
    }
}

# LoadWorkload -- the dict in FILE after its leading comment lines (only
# those: a flow name may hold a newline and a "#"); an error naming the
# file if it is not a dict of dicts.
proc ::rubicon::LoadWorkload {file} {
    set ch [open $file r]
    try {
	set text [read $ch]
    } finally {
	close $ch
    }
    regsub {^(?:[ \t]*#[^\n]*\n)*} $text {} body
    if {[catch {dict size $body}]} {
	return -code error -errorcode {RUBICON WORKLOAD FORMAT} \
	    "\"$file\" is not a rubicon workload: not a dict"
    }
    set workload [dict create]
    dict for {flow chars} $body {
	if {[catch {dict size $chars}]} {
	    return -code error -errorcode {RUBICON WORKLOAD FORMAT} \
		"\"$file\" is not a rubicon workload: flow \"$flow\" is not a dict"
	}
	dict set workload $flow [dict create {*}$chars]
    }
    return $workload
}
