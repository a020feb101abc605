# rubicon.tcl --
#
#	The Tcl half of the rubicon package: the paper's "$obj.method args"
#	calling form, the global names of the configuration language, and
#	small helpers for interactive use.

namespace eval ::rubicon {
    variable config ""
}

# Every class command (Flow, Filter, Mux, head, each Analyzer, Reporter and
# Transformer) is exported from ::rubicon and imported into the global
# namespace when it is registered (init.c), as the paper's configurations
# call them unqualified.

# "$rl.setOutput bw.log" (the paper's Figure 4) is "$rl setOutput bw.log":
# an unknown command of the form OBJECT.METHOD whose OBJECT is a rubicon
# object is dispatched to it; anything else goes to the usual unknown.
if {[llength [info commands ::rubicon::_unknown]] == 0} {
    if {[llength [info commands ::unknown]]} {
	rename ::unknown ::rubicon::_unknown
    } else {
	# An interpreter without Tcl_Init (an embedding, a C unit test).
	proc ::rubicon::_unknown {cmd args} {
	    return -code error -errorcode [list TCL LOOKUP COMMAND $cmd] \
		"invalid command name \"$cmd\""
	}
    }
    proc ::unknown {args} {
	set cmd [lindex $args 0]
	if {[regexp {^(::rubicon::obj::[^.]+)\.([A-Za-z_]+)$} $cmd -> obj method]
		&& [llength [info commands $obj]]} {
	    return [uplevel 1 [list $obj $method {*}[lrange $args 1 end]]]
	}
	uplevel 1 [list ::rubicon::_unknown {*}$args]
    }
}

# rubicon::formats -- the trace formats that can be read.
proc ::rubicon::formats {} {
    lmap t [types reader] {lindex $t 1}
}

# rubicon::reset -- deletes every rubicon object (flows, nodes, analyzers,
# reporters) so an interactive session can start over.
proc ::rubicon::reset {} {
    foreach cmd [info commands ::rubicon::obj::*] {
	catch {rename $cmd {}}
    }
    return
}
