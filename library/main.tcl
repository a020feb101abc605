# main.tcl --
#
#	rubicon::main, the batch entry of the rubicon program:
#	    rubicon ?-safe? ?-outdir DIR? ?-timelimit S? ?-memlimit MB?
#		?-format F? ?-onerror P? ?-quiet? ?-checkpoint FILE
#		?-checkpointevery N? ?-resume FILE? config.tcl ?trace ...?
#	The config script sees its traces in ::argv.  A script that builds a
#	DAG but does not call rubicon::run gets one run over all the traces
#	once it has finished (the paper's configurations never call it).

proc ::rubicon::usage {} {
    return -code error -errorcode USAGE "usage: rubicon ?-safe? ?-outdir DIR?\
	    ?-timelimit SECONDS? ?-memlimit MB? ?-format FORMAT?\
	    ?-onerror stop|skip|warn? ?-quiet? ?-checkpoint FILE\
	    ?-checkpointevery N|Ns|Nm|Nh?? ?-resume FILE? config.tcl ?trace ...?\
	    \n       rubicon convert ?-format F? ?-onerror P? ?-to native|csv|chrome?\
	    ?-compression zstd|none|gzip? ?-quiet?\
	    in ... out\
	    \n       rubicon            (interactive shell)"
}

proc ::rubicon::main {argList} {
    if {[lindex $argList 0] eq "convert"} {
	set convArgs [lrange $argList 1 end]
	set quiet [expr {"-quiet" in $convArgs}]
	set summary [convert {*}[lsearch -all -inline -not -exact $convArgs -quiet]]
	if {!$quiet} {report $summary}
	return
    }
    set args $argList
    variable config
    set runOpts {}
    set safe 0
    set quiet 0
    set outdir .
    # Safe mode's defaults, stated in rubicon(n).
    array set limits {-timelimit 3600 -memlimit 4096}
    while {[string match -* [lindex $args 0]]} {
	set args [lassign $args opt]
	switch -- $opt {
	    -format - -onerror - -checkpoint - -checkpointevery - -resume {
		set args [lassign $args val]
		lappend runOpts $opt $val
	    }
	    -quiet {lappend runOpts -progress 0; set quiet 1}
	    -safe {set safe 1}
	    -outdir {set args [lassign $args outdir]}
	    -timelimit - -memlimit {
		set args [lassign $args val]
		if {![string is double -strict $val] || $val < 0
			|| ($opt eq "-memlimit" && ![string is wide -strict $val])} {
		    return -code error -errorcode USAGE \
			"$opt wants a number >= 0 (0: no limit), not \"$val\""
		}
		set limits($opt) $val
		set given($opt) 1
	    }
	    -h - -help - --help {puts [catch usage msg; set msg]; return}
	    default {usage}
	}
    }
    if {[llength $args] < 1} {usage}
    set traces [lassign $args config]
    if {![file readable $config]} {
	return -code error -errorcode {RUBICON CONFIG OPEN} \
	    "cannot read configuration script \"$config\""
    }
    set ::argv $traces
    set ::argc [llength $traces]
    set ::rubicon::runOptions $runOpts
    if {$safe} {
	return [::rubicon::safe::run $config $traces $runOpts $outdir \
	    $limits(-timelimit) $limits(-memlimit)]
    }
    if {[info exists given(-timelimit)] || [info exists given(-memlimit)]} {
	return -code error -errorcode USAGE \
	    "-timelimit and -memlimit apply only with -safe"
    }
    set before [lastrun]
    sourceConfig $config
    if {[lastrun] eq $before && [llength $traces] && [dag head] ne ""} {
	set summary [run {*}$runOpts {*}$traces]
	if {!$quiet} {
	    report $summary
	    if {[onTerminal stdout] && ![hasReporters]} {printScalars}
	}
    }
    return
}

# rubicon::onTerminal chan -- whether chan is a terminal (only a tty
# channel has -mode).
proc ::rubicon::onTerminal {chan} {
    expr {![catch {fconfigure $chan -mode}]}
}

# rubicon::hasReporters -- whether a Reporter exists (its object command
# is named after its class).
proc ::rubicon::hasReporters {} {
    foreach t [types] {
	if {[lindex $t 0] eq "reporter"
		&& [llength [info commands ::rubicon::obj::[lindex $t 1]*]]} {
	    return 1
	}
    }
    return 0
}

# rubicon::printScalars -- each Flow's scalar Attributes on stdout, for a
# configuration without Reporters run on a terminal.
proc ::rubicon::printScalars {} {
    set flows [lsort -dictionary [info commands ::rubicon::obj::flow*]]
    foreach f $flows {
	set lines {}
	foreach a [$f attributes] {
	    set info [$f info $a]
	    if {[dict get $info kind] ne "scalar"} continue
	    set v [$f get $a]
	    if {[string is double -strict $v] && $v != floor($v)} {
		set v [format %.10g $v]
	    }
	    lappend lines [format "  %-24s %s %s" $a $v [dict get $info unit]]
	}
	if {[llength $lines]} {
	    puts "Flow [$f name]"
	    puts [join [lmap l $lines {string trimright $l}] \n]
	}
    }
}

# rubicon::sourceConfig path -- sources a configuration script; an error
# in it names the file and the line of the statement that failed
# ("cfg.tcl:12: ..."), keeping its -errorcode.
proc ::rubicon::sourceConfig {path} {
    if {[catch {uplevel #0 [list source $path]} msg opts]} {
	# The outermost frame in the file is its top-level statement.
	set info [dict get $opts -errorinfo]
	set mark "(file \"$path\" line "
	set at [string last $mark $info]
	if {$at >= 0 && [scan [string range $info \
		[expr {$at + [string length $mark]}] end] %d line] == 1} {
	    set msg "$path:$line: $msg"
	}
	dict unset opts -errorinfo
	return -options [dict incr opts -level] $msg
    }
}

# rubicon::report summary -- prints a run summary on stdout.
proc ::rubicon::report {summary} {
    dict with summary {
	puts [format "rubicon: %d records read, %d skipped%s in %.2f s" \
	    $records $skipped [expr {$partial ? " (partial)" : ""}] $seconds]
	if {$skipped} {
	    dict for {kind n} $skipcounts {puts "  skipped $n $kind"}
	}
	if {[info exists unreached] && [llength $unreached]} {
	    puts "  not reached from the head (no records):\
		    [join [lmap n $unreached {namespace tail $n}] {, }]"
	}
    }
}
