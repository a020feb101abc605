# sim.tcl -- a simulated multi-threaded web server that writes a Magpie
# event log, and separately the truth: which request owns every event and
# what each request really demanded.
#
#   tclsh sim.tcl ?-types ABCDEF? ?-clients N? ?-requests N? ?-seed N?
#                 ?-machine NAME? ?-format text|csv? ?-backend NAME?
#                 ?-offsets {MACHINE NS ...}? ?-jitter F? -out DIR
#
# writes DIR/NAME.log (the event log, format "magpie"; with -format csv
# DIR/NAME.csv, format "magpiecsv", the same events), DIR/NAME.events
# (per event line: line number and the ids of the requests owning it) and
# DIR/NAME.requests (per request: id type cpuNs diskOps diskBytes netPkts
# netBytes).  The server has 2 CPUs, 8 worker threads, 4 helper threads, a
# 5 ms quantum, a disk whose completions run a 100 us deferred procedure
# call on CPU 0 (interrupting whatever runs there), and sends 1460-byte
# packets; Http/Request logs the URL /TYPE.  With -jitter F every spin
# lasts its nominal time times a uniform 1 +- F.  Request types follow the
# Magpie paper:
#   A  one thread spins 30 ms          B  one thread spins 15 ms
#   C  static 12 KB file (disk, net)   D  static 5 KB file
#   E  two threads spin 15 ms at once  F  RPC-style hand-off to a helper
#
# With -backend the files of C and D live on a second machine, the back
# end (2 CPUs, 4 worker threads 301-304, its own disk and deferred
# procedure calls): the front end's worker sends an RPC over one of 4
# connections (Rpc/Call, Rpc=conn, Seq=n), a back-end worker receives it
# (Rpc/Serve), reads the file and replies (Rpc/Reply), and the front end
# receives the reply (Rpc/Return) 150 us after each send.  The back end
# writes its own log and truth (DIR/BACKEND.log, .events); each machine's
# log times are its own clock, true time plus its -offsets entry (ns,
# default 0).  DIR/NAME.requests holds each request's whole demand.

namespace eval sim {
    variable quantum 5000000
    variable dpcNs 100000
    variable diskNs 4000000
    variable thinkNs 1000000
    variable pktCpu 20000
    variable netNs 150000
    # The attributes of the events, the columns of the CSV form.
    variable columns {Conn Thread Bytes Cpu OldThread NewThread Task Irp Url}
    variable rpcColumns {Rpc Seq}
}

# sim::program TYPE REQ CONN TASK IRP -- the worker's actions for a request.
proc sim::program {type req conn task irp} {
    variable pktCpu; variable back
    set p [list [list log Http/Request Conn=$conn Url=/$type]]
    switch $type {
	A {lappend p {spin 30000000}}
	B {lappend p {spin 15000000}}
	C - D {
	    set bytes [expr {$type eq "C" ? 12288 : 5120}]
	    if {$back eq ""} {
		lappend p {spin 1000000} [list disk $irp $bytes]
	    } else {
		lappend p {spin 1000000} [list rpc $bytes $irp] rpcreturn
	    }
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

# sim::jitter NS -- a spin's demand, varied uniformly by up to -jitter
# (a fraction) when that is not 0; whole microseconds, as a log shows.
proc sim::jitter {ns} {
    variable jitter
    if {$jitter == 0} {return $ns}
    expr {max(1, round($ns * (1 + $jitter * (2 * rand() - 1)) / 1000)) * 1000}
}

# sim::machineOf TID -- the machine a thread runs on.
proc sim::machineOf {tid} {
    variable front; variable back
    expr {$tid >= 300 ? $back : $front}
}

# sim::emit MACHINE EVENT ATTRS OWNERS -- writes one line of a machine's
# log, at its own clock, and the line's owners.  The CSV form quotes
# every event name (RFC 4180 allows it) so that the reader's unquoting is
# exercised on every line.
proc sim::emit {m event attrs owners} {
    variable now; variable log; variable truth; variable line
    variable format; variable csvColumns; variable offset
    set clock [expr {$now + $offset($m)}]
    set time [format "%d.%09d" [expr {$clock / 1000000000}] \
	[expr {$clock % 1000000000}]]
    if {$format eq "csv"} {
	set cells {}
	foreach a $attrs {
	    lassign [split $a =] name value
	    dict set cells $name $value
	}
	set text "$time,\"$event\""
	foreach c $csvColumns {
	    append text , [expr {[dict exists $cells $c] ? [dict get $cells $c] : ""}]
	}
    } else {
	set text "$time, $event"
	foreach a $attrs {append text ", " $a}
    }
    puts $log($m) $text
    puts $truth($m) "[incr line($m)] [lsort -unique [lsearch -all -inline -not $owners {}]]"
}

# sim::owner TID -- the request a thread works for, or "".
proc sim::owner {tid} {
    variable bound
    expr {[info exists bound($tid)] ? $bound($tid) : ""}
}

# sim::cswitch CPU OLD NEW -- CPU is MACHINE:N.
proc sim::cswitch {cpu old new} {
    variable running
    lassign [split $cpu :] m n
    emit $m Kernel/CSwitch [list Cpu=$n OldThread=$old NewThread=$new] \
	[list [owner $old] [owner $new]]
    set running($cpu) $new
}

# sim::step TID -- runs a thread's instant actions until it must spin
# or block. Results: run, block or pool.
proc sim::step {tid} {
    variable th; variable bound; variable now; variable tasks; variable ready
    variable disks; variable diskNs; variable reqs; variable helpers
    variable clients; variable thinkNs; variable timers; variable demand
    variable netNs; variable rpcSeq
    set m [machineOf $tid]
    while 1 {
	set prog [dict get $th($tid) prog]
	if {[llength $prog] == 0} {
	    if {$tid >= 300} {
		return [takeRpc $tid]
	    }
	    return [expr {$tid >= 200 ? [helperDone $tid] : "pool"}]
	}
	set act [lindex $prog 0]
	if {[lindex $act 0] eq "spin"} {
	    # left is -1 until the spin's demand is loaded.
	    set left [dict get $th($tid) left]
	    if {$left < 0} {
		dict set th($tid) left [jitter [lindex $act 1]]
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
		if {[lindex $act 1] in {Http/Request Rpc/Serve}} {
		    set bound($tid) $req
		}
		emit $m [lindex $act 1] [concat [lrange $act 2 end] Thread=$tid] $req
		if {[lindex $act 1] eq "Net/Send"} {
		    dict incr demand($req) netPkts
		    dict incr demand($req) netBytes [string range [lindex $act 3] 6 end]
		}
		if {[lindex $act 1] eq "Http/Response"} {unset bound($tid)}
	    }
	    disk {
		lassign $act - irp bytes
		emit $m Disk/Issue [list Thread=$tid Irp=$irp Bytes=$bytes] $req
		dict incr demand($req) diskOps
		dict incr demand($req) diskBytes $bytes
		set disks($irp) [list $tid $req $m]
		lappend timers [list [expr {$now + $diskNs}] disk $irp]
		return block
	    }
	    rpc {
		# The call goes over one of 4 connections to the back end.
		lassign $act - bytes irp
		set conn [expr {$req % 4 + 1}]
		set seq [incr rpcSeq($conn)]
		emit $m Rpc/Call [list Thread=$tid Rpc=$conn Seq=$seq Bytes=200] $req
		lappend timers [list [expr {$now + $netNs}] serve \
		    [list $conn $seq $req $tid $bytes $irp]]
		return block
	    }
	    rpcreturn {
		lassign [dict get $th($tid) reply] conn seq bytes
		emit $m Rpc/Return [list Thread=$tid Rpc=$conn Seq=$seq Bytes=$bytes] $req
	    }
	    reply {
		lassign $act - conn bytes client
		set seq [incr rpcSeq($conn)]
		emit $m Rpc/Reply [list Thread=$tid Rpc=$conn Seq=$seq Bytes=$bytes] $req
		unset bound($tid)
		lappend timers [list [expr {$now + $netNs}] return \
		    [list $client $conn $seq $bytes]]
	    }
	    post {
		lassign $act - task hprog
		emit $m Work/Post [list Thread=$tid Task=$task] $req
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
		emit $m Work/Join [list Thread=$tid Task=$task] $req
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
    emit [machineOf $tid] Work/Done [list Thread=$tid Task=$task] \
	[dict get $th($tid) req]
    unset bound($tid)
    dict set tasks($task) done 1
    set w [dict get $tasks($task) waiter]
    if {$w ne ""} {lappend ready([machineOf $w]) $w}
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
    emit [machineOf $tid] Work/Start [list Thread=$tid Task=$task] $req
    return [step $tid]
}

proc sim::wakeHelper {} {
    variable helpers; variable ready; variable th; variable front
    if {[llength $helpers(free)] && [llength $helpers(queue)]} {
	set h [lindex $helpers(free) 0]
	set helpers(free) [lrange $helpers(free) 1 end]
	dict set th($h) prog {}
	dict set th($h) wake 1
	lappend ready($front) $h
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

# sim::rpcProgram CONN SEQ REQ CLIENT BYTES IRP -- a back-end worker's
# actions for an RPC: receive it, read the file, reply.
proc sim::rpcProgram {conn seq req client bytes irp} {
    list [list log Rpc/Serve Rpc=$conn Seq=$seq Bytes=200] {spin 500000} \
	[list disk $irp $bytes] {spin 200000} [list reply $conn $bytes $client]
}

# sim::takeRpc TID -- a back-end worker takes the next RPC received.
proc sim::takeRpc {tid} {
    variable rpcQueue; variable rpcWorkers; variable th
    if {[llength $rpcQueue] == 0} {
	lappend rpcWorkers $tid
	dict set th($tid) prog {}
	return pool
    }
    lassign [lindex $rpcQueue 0] req prog
    set rpcQueue [lrange $rpcQueue 1 end]
    dict set th($tid) req $req
    dict set th($tid) prog $prog
    dict set th($tid) left -1
    return [step $tid]
}

# sim::dispatch -- runs instant work on every CPU and fills idle CPUs.
proc sim::dispatch {} {
    variable running; variable ready; variable th; variable dpcEnd
    variable quantumEnd; variable quantum; variable now; variable helpers
    variable cpus
    set changed 1
    while {$changed} {
	set changed 0
	foreach cpu $cpus {
	    set m [lindex [split $cpu :] 0]
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
		if {[llength $ready($m)]} {
		    set next [lindex $ready($m) 0]
		    set ready($m) [lrange $ready($m) 1 end]
		}
		cswitch $cpu $tid $next
		set quantumEnd($cpu) [expr {$now + $quantum}]
		set changed 1
	    } elseif {[llength $ready($m)]} {
		set next [lindex $ready($m) 0]
		set ready($m) [lrange $ready($m) 1 end]
		cswitch $cpu 0 $next
		set quantumEnd($cpu) [expr {$now + $quantum}]
		set changed 1
	    }
	}
    }
}

# sim::run OPTIONS -- simulates and writes the files.
proc sim::run {args} {
    variable now 0; variable line; variable log; variable truth
    variable th; variable bound; variable running; variable ready
    variable timers {}; variable queue {}; variable workers {}
    variable reqs; variable demand; variable disks; variable tasks
    variable helpers; variable dpcEnd; variable quantumEnd; variable dpcNs
    variable quantum; variable format; variable columns; variable rpcColumns
    variable front; variable back; variable offset; variable cpus
    variable csvColumns; variable jitter
    variable rpcQueue {}; variable rpcWorkers {}; variable rpcSeq
    foreach v {th bound reqs demand disks tasks helpers line log truth
	    running ready dpcEnd dpcIrp quantumEnd offset rpcSeq} {
	array unset $v
    }
    set o [dict merge {-types ABCDEF -clients 1 -requests 60 -seed 1
	-machine web1 -out . -format text -backend {} -offsets {}
	-jitter 0} $args]
    set jitter [dict get $o -jitter]
    expr {srand([dict get $o -seed])}
    set front [dict get $o -machine]
    set back [dict get $o -backend]
    set format [dict get $o -format]
    set machines [concat $front $back]
    set csvColumns [expr {$back eq "" ? $columns
	: [concat $columns $rpcColumns]}]
    set cpus {}
    foreach m $machines {
	set offset($m) [expr {[dict exists $o -offsets $m]
	    ? [dict get $o -offsets $m] : 0}]
	set line($m) 0
	set ready($m) {}
	if {$format eq "csv"} {
	    set log($m) [open [file join [dict get $o -out] $m.csv] w]
	    puts $log($m) [join [list time event {*}$csvColumns] ,]
	} else {
	    set log($m) [open [file join [dict get $o -out] $m.log] w]
	}
	set truth($m) [open [file join [dict get $o -out] $m.events] w]
	foreach cpu {0 1} {
	    lappend cpus $m:$cpu
	    set running($m:$cpu) 0
	    set dpcEnd($m:$cpu) -1
	    set quantumEnd($m:$cpu) 0
	}
    }
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
    if {$back ne ""} {
	foreach w {301 302 303 304} {
	    set th($w) {prog {} left -1 req {}}
	    lappend rpcWorkers $w
	}
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
	foreach cpu $cpus {
	    set m [lindex [split $cpu :] 0]
	    if {$dpcEnd($cpu) >= 0} {
		set t $dpcEnd($cpu)
	    } elseif {$running($cpu) != 0} {
		set t [expr {$now + max(0, [dict get $th($running($cpu)) left])}]
		if {[llength $ready($m)] && $quantumEnd($cpu) < $t} {
		    set t [expr {max($now, $quantumEnd($cpu))}]
		}
	    } else {
		continue
	    }
	    if {$next eq "" || $t < $next} {set next $t}
	}
	if {$next eq ""} break
	set dt [expr {$next - $now}]
	foreach cpu $cpus {
	    set tid $running($cpu)
	    if {$tid != 0 && $dpcEnd($cpu) < 0} {
		dict set th($tid) left [expr {[dict get $th($tid) left] - $dt}]
		set req [dict get $th($tid) req]
		dict incr demand($req) cpuNs $dt
	    }
	}
	set now $next
	foreach cpu $cpus {
	    set m [lindex [split $cpu :] 0]
	    if {$dpcEnd($cpu) == $now} {
		lassign $disks($dpcIrp($cpu)) tid req
		emit $m Kernel/DpcEnd [list Cpu=[lindex [split $cpu :] 1] \
		    Irp=$dpcIrp($cpu)] $req
		unset disks($dpcIrp($cpu))
		set dpcEnd($cpu) -1
		lappend ready($m) $tid
	    }
	    # Preempt at the end of a quantum when others wait.
	    set tid $running($cpu)
	    if {$tid != 0 && $dpcEnd($cpu) < 0 && [llength $ready($m)]
		    && $quantumEnd($cpu) <= $now
		    && [dict get $th($tid) left] > 0} {
		set next [lindex $ready($m) 0]
		set ready($m) [lrange $ready($m) 1 end]
		lappend ready($m) $tid
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
			lappend ready($front) $w
		    }
		}
		disk {
		    # The completion's DPC runs on CPU 0 of the disk's
		    # machine, after any DPC there.
		    lassign $disks($data) - req m
		    if {$dpcEnd($m:0) >= 0} {
			lappend later [list $dpcEnd($m:0) disk $data]
			continue
		    }
		    emit $m Kernel/DpcBegin [list Cpu=0 Irp=$data] $req
		    set dpcEnd($m:0) [expr {$now + $dpcNs}]
		    set dpcIrp($m:0) $data
		    dict incr demand($req) cpuNs $dpcNs
		}
		serve {
		    # An RPC reaches the back end.
		    lassign $data conn seq req client bytes irp
		    lappend rpcQueue [list $req \
			[rpcProgram $conn $seq $req $client $bytes $irp]]
		    if {[llength $rpcWorkers]} {
			set w [lindex $rpcWorkers 0]
			set rpcWorkers [lrange $rpcWorkers 1 end]
			lassign [lindex $rpcQueue 0] req prog
			set rpcQueue [lrange $rpcQueue 1 end]
			dict set th($w) req $req
			dict set th($w) prog $prog
			lappend ready($back) $w
		    }
		}
		return {
		    # A reply reaches the front end's waiting worker.
		    lassign $data client conn seq bytes
		    dict set th($client) reply [list $conn $seq $bytes]
		    lappend ready($front) $client
		}
	    }
	}
	set timers $later
    }
    foreach m $machines {
	close $log($m)
	close $truth($m)
    }
    set f [open [file join [dict get $o -out] $front.requests] w]
    foreach req [lsort -integer [array names reqs]] {
	puts $f [list $req [dict get $reqs($req) type] {*}[dict values $demand($req)]]
    }
    close $f
}

if {[info exists argv0] && [file tail $argv0] eq "sim.tcl"} {
    sim::run {*}$argv
}
