# safe.tcl --
#
#	rubicon -safe: runs an untrusted configuration in a Tcl safe
#	interpreter holding only the rubicon commands.  The engine lets it
#	read only the traces named on the command line and write only inside
#	one output directory (rubicon::_restrict, enforced in C); the Tcl
#	commands that reach outside (exec, open, socket, file, ...) fail with
#	a clear error.

namespace eval ::rubicon::safe {}

# denied CMD ARGS -- what a denied command does in the safe interpreter.
proc ::rubicon::safe::denied {cmd args} {
    return -code error -errorcode [list RUBICON SAFE DENIED $cmd] \
	"safe mode: \"$cmd\" is not allowed in a -safe configuration"
}

# rubicon::safe::run CONFIG TRACES RUNOPTS OUTDIR ?TIMELIMIT? ?MEMLIMIT?
#	?OUTLIMIT? ?QUIET? --
#	Evaluates the configuration text in a new safe interpreter with
#	::argv set to the traces; runs once over them if it did not run.
#	The configuration and its runs together may take TIMELIMIT seconds
#	(a Tcl time limit on the safe interpreter, which rubicon::run also
#	checks after every batch, and a watchdog that ends the process a
#	few seconds later if a system call blocks); the process may grow by
#	MEMLIMIT MB; its outputs may write OUTLIMIT MB.  0 is no limit.
#	Reaching one is an error of code RUBICON SAFE LIMIT TIME, MEMORY or
#	OUTPUT naming the limit.  An error of the configuration is
#	"NAME:LINE: message" (the line of the top-level statement that
#	failed), with its -errorcode and without the stack.  QUIET 1 (the
#	program's -quiet) leaves out the run summary.
proc ::rubicon::safe::run {config traces runOpts outdir {timelimit 0}
	{memlimit 0} {outlimit 0} {quiet 0}} {
    set traces [lmap t $traces {file normalize $t}]
    set outdir [file normalize $outdir]
    file mkdir $outdir
    set ch [open $config r]
    set script [read $ch]
    close $ch
    set child [interp create -safe]
    try {
	foreach cmd {exec open socket file cd glob load source pwd exit
		fconfigure encoding interp} {
	    interp alias $child $cmd {} ::rubicon::safe::denied $cmd
	}
	interp alias $child puts {} ::rubicon::safe::puts
	set lib [lindex [lsearch -inline -index 1 [info loaded] Rubicon] 0]
	load $lib Rubicon $child
	# The plugins, as loaded here (their SafeInit is their Init: the
	# engine restricts what they read and write).
	foreach loaded [info loaded] {
	    lassign $loaded file prefix
	    if {$prefix in {Magpie Stardust Observer Txmix}} {
		load $file $prefix $child
	    }
	}
	$child eval [list ::rubicon::_restrict -read $traces -write $outdir \
	    -memlimit $memlimit -outlimit $outlimit -timelimit $timelimit]
	$child eval [list set ::argv $traces]
	$child eval [list set ::argc [llength $traces]]
	$child eval [list set ::rubicon::config $config]
	set before [$child eval ::rubicon::lastrun]
	set here [pwd]
	cd $outdir
	if {$timelimit > 0} {
	    set end [expr {[clock milliseconds] + entier($timelimit * 1000)}]
	    interp limit $child time -seconds [expr {$end / 1000}] \
		-milliseconds [expr {$end % 1000}] -granularity 1
	}
	try {
	    # Caught in the child, where the options name the line of the
	    # statement that failed (a limit passes through the catch).
	    if {[$child eval [list ::catch $script ::rubicon::safeMsg \
		    ::rubicon::safeOpts]] == 1} {
		set opts [$child eval {set ::rubicon::safeOpts}]
		throw [dict get $opts -errorcode] "$config:[dict get $opts\
		    -errorline]: [$child eval {set ::rubicon::safeMsg}]"
	    }
	    if {[$child eval ::rubicon::lastrun] eq $before} {
		::rubicon::checkBatchRun $config \
		    [$child eval {::rubicon::dag head}] $traces
		set summary [$child eval [list ::rubicon::run {*}$runOpts {*}$traces]]
		if {!$quiet} {
		    ::rubicon::report $summary
		}
	    }
	} trap {TCL MEMORY} {msg} {
	    return -code error -errorcode {RUBICON SAFE LIMIT MEMORY} \
		"safe mode: memory limit reached (-memlimit $memlimit MB): $msg"
	} on error {msg opts} {
	    set ::rubicon::configFailed 1
	    if {$timelimit > 0 && [clock milliseconds] >= $end} {
		return -code error -errorcode {RUBICON SAFE LIMIT TIME} \
		    "safe mode: time limit reached (-timelimit $timelimit\
		    seconds): the configuration and its run were stopped"
	    }
	    return -options $opts $msg
	} finally {
	    cd $here
	}
    } finally {
	interp delete $child
    }
}

# puts in the safe interpreter: to stdout or stderr only.
proc ::rubicon::safe::puts {args} {
    set nonl [expr {[lindex $args 0] eq "-nonewline"}]
    if {$nonl} {set args [lrange $args 1 end]}
    switch [llength $args] {
	1 {set chan stdout}
	2 {set args [lassign $args chan]}
	default {return -code error "wrong # args: should be \"puts ?-nonewline? ?channel? string\""}
    }
    if {$chan ni {stdout stderr}} {
	denied "puts $chan"
    }
    if {$nonl} {::puts -nonewline $chan [lindex $args 0]} else {::puts $chan [lindex $args 0]}
}
