# main.tcl --
#
#	rubicon::main, the batch entry of the rubicon program:
#	    rubicon ?-safe? ?-outdir DIR? ?-timelimit S? ?-memlimit MB?
#		?-outlimit MB? ?-format F? ?-onerror P? ?-maxgap S? ?-every S?
#		?-quiet? ?-debug? ?-checkpoint FILE ?-checkpointevery N?
#		?-resume FILE? ?-sweep? ?-threads N? config.tcl ?trace ...?
#	The config script sees its traces in ::argv.  A script that builds a
#	DAG but does not call rubicon::run gets one run over all the traces
#	once it has finished (the paper's configurations never call it).

proc ::rubicon::usage {} {
    return -code error -errorcode USAGE "usage: rubicon ?-safe? ?-outdir DIR?\
	    ?-timelimit SECONDS? ?-memlimit MB? ?-outlimit MB? ?-format FORMAT?\
	    ?-every SECONDS? ?-onerror stop|skip|warn? ?-maxgap SECONDS? ?-quiet?\
	    ?-debug? ?-checkpoint FILE ?-checkpointevery N|Ns|Nm|Nh??\
	    ?-resume FILE? ?-sweep? ?-threads N? config.tcl ?trace ...?\
	    \n       rubicon convert ?-format F? ?-onerror P? ?-to native|csv|chrome?\
	    ?-compression zstd|none|gzip? ?-quiet?\
	    in ... out\
	    \n       rubicon info ?-json? ?-format F? ?-readeroptions D? trace ...\
	    \n       rubicon report ?options? trace ...   (see rubicon-report(n))\
	    \n       rubicon            (interactive shell)"
}

# rubicon::help -- the usage and where to read on, for rubicon --help.
proc ::rubicon::help {} {
    catch usage msg
    return "$msg

Documentation: man rubicon, and a page per class, format and command:
  man rubicon-SizeAnalyzer, man rubicon-csv (apropos rubicon lists them).
  Before installing, in the source tree: man -l doc/rubicon.n,
  man -l doc/SizeAnalyzer.n.
Examples: examples/ in the source tree (examples/demo.tcl, the paper's
  Figure 4 in examples/paper/figure4.tcl); make demo runs the demo.
Classes: rubicon::types in the interactive shell (rubicon with no
  arguments) lists every class with one line of help.
Version: rubicon --version"
}

proc ::rubicon::main {argList} {
    if {[lindex $argList 0] eq "convert"} {
	set convArgs [lrange $argList 1 end]
	set quiet [expr {"-quiet" in $convArgs}]
	set summary [convert {*}[lsearch -all -inline -not -exact $convArgs -quiet]]
	# Written to standard output ("-"), the trace keeps it to itself.
	if {!$quiet} {
	    report $summary [expr {[lindex $convArgs end] eq "-" ? "stderr" : "stdout"}]
	}
	return
    }
    switch -- [lindex $argList 0] {
	info {
	    puts [traceInfo {*}[lrange $argList 1 end]]
	    return
	}
	report {
	    tracereport::main [lrange $argList 1 end]
	    return
	}
    }
    set args $argList
    variable config
    set runOpts {}
    set safe 0
    set quiet 0
    set outdir .
    # Safe mode's defaults, stated in rubicon(n).
    array set limits {-timelimit 3600 -memlimit 4096 -outlimit 512}
    while {[string match -* [lindex $args 0]]} {
	set args [lassign $args opt]
	switch -- $opt {
	    -format - -onerror - -maxgap - -checkpoint - -checkpointevery - -resume
	    - -threads {
		set args [lassign $args val]
		lappend runOpts $opt $val
	    }
	    -quiet {lappend runOpts -progress 0; set quiet 1}
	    -every {
		set args [lassign $args every]
		if {![string is double -strict $every] || $every <= 0} {
		    return -code error -errorcode USAGE \
			"-every wants seconds > 0, not \"$every\""
		}
	    }
	    -sweep {lappend runOpts -sweep 1}
	    -safe {set safe 1}
	    -debug {set ::rubicon::debug 1}
	    -outdir {set args [lassign $args outdir]}
	    -timelimit - -memlimit - -outlimit {
		set args [lassign $args val]
		if {![string is double -strict $val] || $val < 0
			|| ($opt ne "-timelimit" && ![string is wide -strict $val])} {
		    return -code error -errorcode USAGE \
			"$opt wants a number >= 0 (0: no limit), not \"$val\""
		}
		set limits($opt) $val
		set given($opt) 1
	    }
	    -h - -help - --help {puts [help]; return}
	    -version - --version {puts "rubicon [package present rubicon]"; return}
	    default {usage}
	}
    }
    if {[llength $args] < 1} {usage}
    set traces [lassign $args config]
    if {![file readable $config]} {
	return -code error -errorcode {RUBICON CONFIG OPEN} \
	    "cannot read configuration script \"$config\""
    }
    set kind [notScript $config]
    if {$kind ne ""} {
	# Named by its content where it is a trace Rubicon reads (inside
	# its compression too), else by what the file is.
	set trace [tracereport::traceName $config]
	return -code error -errorcode {RUBICON CONFIG NOTSCRIPT} \
	    "[file tail $config] looks like [expr {$trace ne "" ? $trace
	    : $kind}], not a configuration script; to characterize it run:\
	    rubicon report $config"
    }
    set ::argv $traces
    set ::argc [llength $traces]
    set ::rubicon::runOptions $runOpts
    tracereport::notScript $config 0
    if {$safe && [info exists every]} {
	return -code error -errorcode USAGE "-every does not apply with -safe"
    }
    if {$safe} {
	return [::rubicon::safe::run $config $traces $runOpts $outdir \
	    $limits(-timelimit) $limits(-memlimit) $limits(-outlimit) $quiet]
    }
    if {[array size given]} {
	return -code error -errorcode USAGE \
	    "-timelimit, -memlimit and -outlimit apply only with -safe"
    }
    set before [lastrun]
    if {[catch {sourceConfig $config} msg opts]} {
	if {[lrange [dict get $opts -errorcode] 0 2] eq {TCL LOOKUP COMMAND}} {
	    tracereport::notScript $config 1
	}
	return -options [dict incr opts -level] $msg
    }
    if {[lastrun] eq $before} {
	checkBatchRun $config [dag head] $traces
	if {[info exists every]} {
	    # Per-interval rows beside the configuration's own DAG.
	    head [Mux [dag head] [Flow live [LiveAnalyzer -interval $every \
		-command ::rubicon::tracereport::liveRows]]]
	    lappend runOpts -batchsize 64
	}
	set summary [run {*}$runOpts {*}$traces]
	if {!$quiet} {
	    report $summary
	    if {[onTerminal stdout] && ![hasReporters]} {printScalars}
	}
    }
    return
}

# rubicon::checkBatchRun config head traces -- after a configuration that
# did not run itself: an error when there is nothing to run, a DAG without
# a head or no trace (rubicon(n), ERRORS), rather than ending with nothing
# done.
proc ::rubicon::checkBatchRun {config head traces} {
    if {$head eq ""} {
	return -code error -errorcode {RUBICON RUN NOHEAD} \
	    "$config: nothing to run: the configuration never calls\
	    \"head NODE\" (the node records enter the DAG at)"
    }
    if {![llength $traces]} {
	return -code error -errorcode {RUBICON RUN NOTRACE} \
	    "$config: no trace to read: rubicon $config TRACE ...\
	    (- reads standard input)"
    }
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
# configuration without Reporters run on a terminal; the others (tables,
# histograms, series, ...) by name, kind and size, with how to see them.
proc ::rubicon::printScalars {} {
    set flows [lsort -dictionary [info commands ::rubicon::obj::flow*]]
    set others 0
    foreach f $flows {
	set lines {}
	foreach a [$f attributes] {
	    set info [$f info $a]
	    set kind [dict get $info kind]
	    if {$kind ne "scalar"} {
		set rows [dict get $info rows]
		lappend lines [format "  %-24s (%s, %d row%s)" $a $kind $rows \
		    [expr {$rows == 1 ? "" : "s"}]]
		incr others
		continue
	    }
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
    if {$others} {
	puts "(to see their rows, add \"ReporterLog \$flow\" to the\
	    configuration, or ReporterCsv or ReporterHtml to write them to\
	    files: rubicon-ReporterLog(n))"
    }
}

# rubicon::sourceConfig path -- sources a configuration script; an error
# in it names the file and the line of the statement that failed
# ("cfg.tcl:12: ..."), keeping its -errorcode, and sets configFailed (the
# rubicon program then prints the message alone); an unknown command close
# to a class's name says which ("did you mean SizeAnalyzer?").  The stack
# of the error is kept only under -debug or RUBICON_DEBUG (rubicon(n)).
proc ::rubicon::sourceConfig {path} {
    if {[catch {uplevel #0 [list source $path]} msg opts]} {
	variable configFailed 1
	# The outermost frame in the file is its top-level statement.
	set info [dict get $opts -errorinfo]
	set mark "(file \"$path\" line "
	set at [string last $mark $info]
	set code [dict get $opts -errorcode]
	if {[lrange $code 0 2] eq {TCL LOOKUP COMMAND}} {
	    set near [nearClasses [lindex $code 3]]
	    if {[llength $near]} {
		append msg " (did you mean [join $near { or }]?)"
	    }
	}
	if {$at >= 0 && [scan [string range $info \
		[expr {$at + [string length $mark]}] end] %d line] == 1} {
	    set msg "$path:$line: $msg"
	}
	if {![debugging]} {dict unset opts -errorinfo}
	return -options [dict incr opts -level] $msg
    }
}

# rubicon::debugging -- whether the program shows the Tcl stack of an
# error (-debug, or RUBICON_DEBUG set and not 0).
proc ::rubicon::debugging {} {
    expr {[info exists ::rubicon::debug] || ([info exists ::env(RUBICON_DEBUG)]
	&& $::env(RUBICON_DEBUG) ni {"" 0})}
}

# rubicon::nearClasses name -- the classes and core commands
# (rubicon::types, not its readers) whose names are within two edits of
# name (one for a name of five letters or fewer), case ignored; closest
# first.
proc ::rubicon::nearClasses {name} {
    set most [expr {[string length $name] > 5 ? 2 : 1}]
    set found {}
    foreach t [types] {
	lassign $t kind class
	if {$kind eq "reader"} continue
	set d [editDistance [string tolower $name] [string tolower $class]]
	if {$d <= $most && $class ne $name} {lappend found [list $d $class]}
    }
    set found [lsort -integer -index 0 $found]
    # A name that differs in case only is the one meant.
    if {[lindex $found 0 0] == 0} {
	set found [lsearch -all -inline -index 0 $found 0]
    }
    lmap f $found {lindex $f 1}
}

# rubicon::editDistance a b -- the Levenshtein distance of two strings.
proc ::rubicon::editDistance {a b} {
    set prev {}
    for {set j 0} {$j <= [string length $b]} {incr j} {lappend prev $j}
    for {set i 1} {$i <= [string length $a]} {incr i} {
	set row [list $i]
	set ca [string index $a [expr {$i - 1}]]
	for {set j 1} {$j <= [string length $b]} {incr j} {
	    set cost [expr {$ca ne [string index $b [expr {$j - 1}]]}]
	    lappend row [expr {min([lindex $prev $j] + 1, [lindex $row end] + 1,
		[lindex $prev [expr {$j - 1}]] + $cost)}]
	}
	set prev $row
    }
    lindex $prev end
}

# rubicon::notScript path -- what the file looks like when it is plainly
# not a Tcl script (a compressed or binary file, or a text trace by its
# first line), else "".
proc ::rubicon::notScript {path} {
    set ch [open $path rb]
    set head [read $ch 4096]
    close $ch
    foreach {magic what} {
	"\x1f\x8b" "a gzip-compressed file" BZh "a bzip2-compressed file"
	"\xfd7zXZ" "an xz-compressed file" "\x28\xb5\x2f\xfd" "a zstd-compressed file"
    } {
	if {[string first $magic $head] == 0} {return $what}
    }
    if {[string first \0 $head] >= 0} {
	return "a binary file (an SRT or blktrace trace?)"
    }
    set line [lindex [split $head \n] 0]
    # Each trace's line below starts, after blanks, with a digit or a
    # point: a script does not, and is spared compiling the expressions
    # (a twentieth of a run's start-up).
    if {![string match {[0-9.]*} [string trimleft $line]]} {
	return ""
    }
    foreach {re what} {
	{^\d+,[^,]*,\d+,(Read|Write),\d+,\d+,\d+\r?$} "an MSR trace"
	{^\d+,\d+,\d+,[rRwW],[0-9.]+\r?$} "an SPC trace"
	{^\s*\d+,\d+\s+\d+\s+\d+\s+[0-9.]+\s+\d+\s+[A-Z]+\s} "blkparse output"
	{^\s*[0-9.]+\s+\d+\s+\d+\s+\d+\s+\d+\s*$} "a DiskSim trace"
    } {
	if {[regexp $re $line]} {return $what}
    }
    return ""
}

# rubicon::report summary -- prints a run summary on chan (stdout): records and
# skipped records, then every kind counted (malformed records skipped,
# and well-formed input that yields no record: requests incomplete at the
# end, completions of requests issued before the trace, lost events),
# whether or not anything was skipped.
proc ::rubicon::report {summary {chan stdout}} {
    dict with summary {
	puts $chan [format "rubicon: %d records read, %d skipped%s in %.2f s" \
	    $records $skipped [expr {$partial ? " (partial)" : ""}] $seconds]
	if {[dict size $skipcounts]} {
	    puts $chan "  counted by kind: [join [lmap {kind n} $skipcounts {
		list $n $kind}] {, }]"
	}
	if {[info exists unreached] && [llength $unreached]} {
	    puts $chan "  not reached from the head (no records):\
		    [join [lmap n $unreached {nodeLabel $n}] {, }]"
	}
	if {[info exists notes]} {
	    foreach note $notes {puts $chan "  note: $note"}
	}
    }
}

# rubicon::nodeLabel node -- a node as the user wrote it: "Flow disk1",
# "Filter {deviceNo = 1} -> Flow disk1", "SizeAnalyzer in Flow all",
# "Mux -> Flow disk2" (the first Flow below it).
proc ::rubicon::nodeLabel {node} {
    if {[info commands $node] eq ""} {return [namespace tail $node]}
    if {![catch {$node name} name]} {return "Flow $name"}
    if {![catch {$node class} class]} {
	if {![catch {$node flow} flow] && $flow ne ""} {
	    return "$class in [nodeLabel $flow]"
	}
	return $class
    }
    set label [regsub {\d+$} [namespace tail $node] ""]
    if {![catch {$node cget -expr} expr]} {append label " {$expr}"}
    set below [flowBelow $node 64]
    if {$below ne ""} {append label " -> Flow [$below name]"}
    return $label
}

# rubicon::flowBelow node depth -- the first Flow reached from node's
# children (depth first, at most depth levels; an Analyzer leads to its
# Flow), or "".
proc ::rubicon::flowBelow {node depth} {
    if {$depth <= 0 || [catch {$node children} children]} {return ""}
    foreach c $children {
	if {![catch {$c name}]} {return $c}
	if {![catch {$c flow} f] && $f ne ""} {return $f}
	set f [flowBelow $c [expr {$depth - 1}]]
	if {$f ne ""} {return $f}
    }
    return ""
}
