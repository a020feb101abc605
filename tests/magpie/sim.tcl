# sim.tcl -- a simulated multi-threaded web server that writes a Magpie
# event log, and separately the truth: which request owns every event and
# what each request really demanded.
#
#   tclsh sim.tcl ?-types ABCDEF? ?-clients N? ?-requests N? ?-seed N?
#                 ?-machine NAME? -out DIR
#
# writes DIR/NAME.log (the event log, format "magpie"), DIR/NAME.events
# (per event line: line number and the ids of the requests owning it) and
# DIR/NAME.requests (per request: id type cpuNs diskOps diskBytes netPkts
# netBytes).  The server has 2 CPUs, 8 worker threads, 4 helper threads, a
# 5 ms quantum, a disk whose completions run a 100 us deferred procedure
# call on CPU 0 (interrupting whatever runs there), and sends 1460-byte
# packets.  Request types follow the Magpie paper:
#   A  one thread spins 30 ms          B  one thread spins 15 ms
#   C  static 12 KB file (disk, net)   D  static 5 KB file
#   E  two threads spin 15 ms at once  F  RPC-style hand-off to a helper

namespace eval sim {
    variable quantum 5000000
    variable dpcNs 100000
    variable diskNs 4000000
    variable thinkNs 1000000
    variable pktCpu 20000
}

# sim::program TYPE REQ CONN TASK IRP -- the worker's actions for a request.
proc sim::program {type req conn task irp} {
    variable pktCpu
    set p [list [list log Http/Request Conn=$conn]]
    switch $type {
	A {lappend p {spin 30000000}}
	B {lappend p {spin 15000000}}
	C - D {
	    set bytes [expr {$type eq "C" ? 12288 : 5120}]
	    lappend p {spin 1000000} [list disk $irp $bytes]
	    for {set left $bytes} {$left > 0} {incr left -1460} {
		lappend p [list spin $pktCpu] [list log Net/Send \
		    Conn=$conn Bytes=[expr {min($left, 1460)}]]
	    }
	}
	E {
	    lappend p [list post $task {{spin 15000000}}] {spin 15000000} \
		[list wait $task]
	}
	F {
	    lappend p {spin 2000000} [list post $task {{spin 10000000}}] \
		[list wait $task] {spin 3000000}
	}
    }
    lappend p [list log Http/Response Conn=$conn] finish
    return $p
}

# sim::emit EVENT ATTRS OWNERS -- writes one log line and its owners.
proc sim::emit {event attrs owners} {
    variable now; variable log; variable truth; variable line
    set text [format "%d.%09d, %s" [expr {$now / 1000000000}] \
	[expr {$now % 1000000000}] $event]
    foreach a $attrs {append text ", " $a}
    puts $log $text
    puts $truth "[incr line] [lsort -unique [lsearch -all -inline -not $owners {}]]"
}

# sim::owner TID -- the request a thread works for, or "".
proc sim::owner {tid} {
    variable bound
    expr {[info exists bound($tid)] ? $bound($tid) : ""}
}

proc sim::cswitch {cpu old new} {
    variable running
    emit Kernel/CSwitch [list Cpu=$cpu OldThread=$old NewThread=$new] \
	[list [owner $old] [owner $new]]
    set running($cpu) $new
}

# sim::step TID -- runs a thread's instant actions until it must spin
# or block. Results: run, block or pool.
proc sim::step {tid} {
    variable th; variable bound; variable now; variable tasks; variable ready
    variable disks; variable diskNs; variable reqs; variable helpers
    variable clients; variable thinkNs; variable timers; variable demand
    while 1 {
	set prog [dict get $th($tid) prog]
	if {[llength $prog] == 0} {
	    return [expr {$tid >= 200 ? [helperDone $tid] : "pool"}]
	}
	set act [lindex $prog 0]
	if {[lindex $act 0] eq "spin"} {
	    # left is -1 until the spin's demand is loaded.
	    set left [dict get $th($tid) left]
	    if {$left < 0} {
		dict set th($tid) left [lindex $act 1]
		return run
	    }
	    if {$left > 0} {
		return run
	    }
	}
	dict set th($tid) prog [lrange $prog 1 end]
	dict set th($tid) left -1
	set req [dict get $th($tid) req]
	switch [lindex $act 0] {
	    log {
		if {[lindex $act 1] eq "Http/Request"} {set bound($tid) $req}
		emit [lindex $act 1] [concat [lrange $act 2 end] Thread=$tid] $req
		if {[lindex $act 1] eq "Net/Send"} {
		    dict incr demand($req) netPkts
		    dict incr demand($req) netBytes [string range [lindex $act 3] 6 end]
		}
		if {[lindex $act 1] eq "Http/Response"} {unset bound($tid)}
	    }
	    disk {
		lassign $act - irp bytes
		emit Disk/Issue [list Thread=$tid Irp=$irp Bytes=$bytes] $req
		dict incr demand($req) diskOps
		dict incr demand($req) diskBytes $bytes
		set disks($irp) [list $tid $req]
		lappend timers [list [expr {$now + $diskNs}] disk $irp]
		return block
	    }
	    post {
		lassign $act - task hprog
		emit Work/Post [list Thread=$tid Task=$task] $req
		set tasks($task) [list waiter {} done 0]
		lappend helpers(queue) [list $task $req $hprog]
		wakeHelper
	    }
	    wait {
		set task [lindex $act 1]
		if {![dict get $tasks($task) done]} {
		    dict set tasks($task) waiter $tid
		    # Retry the wait when woken.
		    dict set th($tid) prog [linsert [dict get $th($tid) prog] 0 $act]
		    return block
		}
		emit Work/Join [list Thread=$tid Task=$task] $req
		unset tasks($task)
	    }
	    finish {
		set c [dict get $reqs($req) client]
		lappend timers [list [expr {$now + $thinkNs}] arrive $c]
		return [takeRequest $tid]
	    }
	}
    }
}

# sim::helperDone TID -- a helper finished its task: logs Work/Done, wakes
# the waiter, and takes the next task. Results: what step returns.
proc sim::helperDone {tid} {
    variable th; variable bound; variable tasks; variable ready
    set task [dict get $th($tid) task]
    emit Work/Done [list Thread=$tid Task=$task] [dict get $th($tid) req]
    unset bound($tid)
    dict set tasks($task) done 1
    set w [dict get $tasks($task) waiter]
    if {$w ne ""} {lappend ready $w}
    return [takeTask $tid]
}

# sim::takeTask TID -- a helper takes the next posted task, if any.
proc sim::takeTask {tid} {
    variable helpers; variable th; variable bound
    if {[llength $helpers(queue)] == 0} {
	lappend helpers(free) $tid
	dict set th($tid) prog {}
	return pool
    }
    lassign [lindex $helpers(queue) 0] task req hprog
    set helpers(queue) [lrange $helpers(queue) 1 end]
    dict set th($tid) req $req
    dict set th($tid) task $task
    dict set th($tid) prog $hprog
    dict set th($tid) left -1
    set bound($tid) $req
    emit Work/Start [list Thread=$tid Task=$task] $req
    return [step $tid]
}

proc sim::wakeHelper {} {
    variable helpers; variable ready; variable th
    if {[llength $helpers(free)] && [llength $helpers(queue)]} {
	set h [lindex $helpers(free) 0]
	set helpers(free) [lrange $helpers(free) 1 end]
	dict set th($h) prog {}
	dict set th($h) wake 1
	lappend ready $h
    }
}

# sim::takeRequest TID -- a worker takes the next queued request.
proc sim::takeRequest {tid} {
    variable queue; variable workers; variable th; variable reqs
    if {[llength $queue] == 0} {
	lappend workers $tid
	dict set th($tid) prog {}
	return pool
    }
    set req [lindex $queue 0]
    set queue [lrange $queue 1 end]
    dict set th($tid) req $req
    dict set th($tid) prog [dict get $reqs($req) prog]
    return [step $tid]
}

# sim::dispatch -- runs instant work on every CPU and fills idle CPUs.
proc sim::dispatch {} {
    variable running; variable ready; variable th; variable dpcEnd
    variable quantumEnd; variable quantum; variable now; variable helpers
    set changed 1
    while {$changed} {
	set changed 0
	foreach cpu {0 1} {
	    set tid $running($cpu)
	    if {$tid != 0} {
		if {[dict exists $th($tid) wake]} {
		    dict unset th($tid) wake
		    set r [takeTask $tid]
		} else {
		    set r [step $tid]
		}
		if {$r eq "run"} continue
		set next 0
		if {[llength $ready]} {
		    set next [lindex $ready 0]
		    set ready [lrange $ready 1 end]
		}
		cswitch $cpu $tid $next
		set quantumEnd($cpu) [expr {$now + $quantum}]
		set changed 1
	    } elseif {[llength $ready]} {
		set next [lindex $ready 0]
		set ready [lrange $ready 1 end]
		cswitch $cpu 0 $next
		set quantumEnd($cpu) [expr {$now + $quantum}]
		set changed 1
	    }
	}
    }
}

# sim::run OPTIONS -- simulates and writes the three files.
proc sim::run {args} {
    variable now 0; variable line 0; variable log; variable truth
    variable th; variable bound; variable running; variable ready {}
    variable timers {}; variable queue {}; variable workers {}
    variable reqs; variable demand; variable disks; variable tasks
    variable helpers; variable dpcEnd; variable quantumEnd; variable dpcNs
    variable quantum
    array unset th; array unset bound; array unset reqs; array unset demand
    array unset disks; array unset tasks; array unset helpers
    set o [dict merge {-types ABCDEF -clients 1 -requests 60 -seed 1
	-machine web1 -out .} $args]
    expr {srand([dict get $o -seed])}
    set name [dict get $o -machine]
    set log [open [file join [dict get $o -out] $name.log] w]
    set truth [open [file join [dict get $o -out] $name.events] w]
    foreach w {101 102 103 104 105 106 107 108} {
	set th($w) {prog {} left -1 req {}}
	lappend workers $w
    }
    set helpers(free) {}
    set helpers(queue) {}
    foreach h {201 202 203 204} {
	set th($h) {prog {} left -1 req {} task {}}
	lappend helpers(free) $h
    }
    foreach cpu {0 1} {
	set running($cpu) 0
	set dpcEnd($cpu) -1
	set quantumEnd($cpu) 0
    }
    set types [split [dict get $o -types] ""]
    set nreq [dict get $o -requests]
    set issued 0
    for {set c 1} {$c <= [dict get $o -clients]} {incr c} {
	lappend timers [list [expr {$c * 1000}] arrive $c]
    }
    while 1 {
	dispatch
	# The next instant anything happens.
	set next {}
	foreach t $timers {
	    if {$next eq "" || [lindex $t 0] < $next} {set next [lindex $t 0]}
	}
	foreach cpu {0 1} {
	    if {$dpcEnd($cpu) >= 0} {
		set t $dpcEnd($cpu)
	    } elseif {$running($cpu) != 0} {
		set t [expr {$now + max(0, [dict get $th($running($cpu)) left])}]
		if {[llength $ready] && $quantumEnd($cpu) < $t} {
		    set t [expr {max($now, $quantumEnd($cpu))}]
		}
	    } else {
		continue
	    }
	    if {$next eq "" || $t < $next} {set next $t}
	}
	if {$next eq ""} break
	set dt [expr {$next - $now}]
	foreach cpu {0 1} {
	    set tid $running($cpu)
	    if {$tid != 0 && $dpcEnd($cpu) < 0} {
		dict set th($tid) left [expr {[dict get $th($tid) left] - $dt}]
		set req [dict get $th($tid) req]
		dict incr demand($req) cpuNs $dt
	    }
	}
	set now $next
	foreach cpu {0 1} {
	    if {$dpcEnd($cpu) == $now} {
		lassign $disks($dpcIrp($cpu)) tid req
		emit Kernel/DpcEnd [list Cpu=$cpu Irp=$dpcIrp($cpu)] $req
		unset disks($dpcIrp($cpu))
		set dpcEnd($cpu) -1
		lappend ready $tid
	    }
	    # Preempt at the end of a quantum when others wait.
	    set tid $running($cpu)
	    if {$tid != 0 && $dpcEnd($cpu) < 0 && [llength $ready]
		    && $quantumEnd($cpu) <= $now
		    && [dict get $th($tid) left] > 0} {
		set next [lindex $ready 0]
		set ready [lrange $ready 1 end]
		lappend ready $tid
		cswitch $cpu $tid $next
		set quantumEnd($cpu) [expr {$now + $quantum}]
	    }
	}
	set later {}
	foreach t [lsort -integer -index 0 $timers] {
	    lassign $t when kind data
	    if {$when != $now} {
		lappend later $t
		continue
	    }
	    switch $kind {
		arrive {
		    if {$issued >= $nreq} continue
		    set req [incr issued]
		    set type [lindex $types [expr {int(rand() * [llength $types])}]]
		    set reqs($req) [dict create client $data type $type \
			prog [program $type $req $req $req $req]]
		    set demand($req) {cpuNs 0 diskOps 0 diskBytes 0 netPkts 0 netBytes 0}
		    lappend queue $req
		    if {[llength $workers]} {
			set w [lindex $workers 0]
			set workers [lrange $workers 1 end]
			set req [lindex $queue 0]
			set queue [lrange $queue 1 end]
			dict set th($w) req $req
			dict set th($w) prog [dict get $reqs($req) prog]
			lappend ready $w
		    }
		}
		disk {
		    # The completion's DPC runs on CPU 0, after any DPC there.
		    if {$dpcEnd(0) >= 0} {
			lappend later [list $dpcEnd(0) disk $data]
			continue
		    }
		    set req [lindex $disks($data) 1]
		    emit Kernel/DpcBegin [list Cpu=0 Irp=$data] $req
		    set dpcEnd(0) [expr {$now + $dpcNs}]
		    set dpcIrp(0) $data
		    dict incr demand($req) cpuNs $dpcNs
		}
	    }
	}
	set timers $later
    }
    close $log
    close $truth
    set f [open [file join [dict get $o -out] $name.requests] w]
    foreach req [lsort -integer [array names reqs]] {
	puts $f [list $req [dict get $reqs($req) type] {*}[dict values $demand($req)]]
    }
    close $f
}

if {[info exists argv0] && [file tail $argv0] eq "sim.tcl"} {
    sim::run {*}$argv
}
