# sim.tcl -- a small distributed storage service that writes Stardust
# activity records and, separately, the true demand of every client.
#
#   tclsh sim.tcl ?-requests N? ?-seed S? ?-text 0|1? ?-gap MS?
#       OUT.sdact TRUTH.tcl
#
# The service: a front end (pid 100) and a metadata server (pid 200)
# share machine 1's one processor (KernelProcessSwitch between them,
# UserThreadSwitch among each one's threads); three storage nodes (pids
# 301-303) have a processor each (UserThreadSwitch only) and a disk.
# A read looks the object up at the metadata server (a disk read on a
# metadata-cache miss), then reads it from its storage node (a disk read
# on a buffer-cache miss).  A write looks up, writes to the primary's
# write-back cache, and the primary replicates it to the next node.
# Every 20 ms each storage node flushes its dirty blocks: one block is
# flushed under its own breadcrumb (delayed work), several are coalesced
# into one disk write under a new breadcrumb stitched from each, whose
# cost the truth splits equally among them.  Processors and disks serve
# in FIFO order; records are written in time order.  Requests arrive
# uniformly spaced between 0 and -gap ms apart (default 1: the disks
# saturate and queues grow; 20 keeps them short however long the run).
#
# Independent of Rubicon: the truth comes from the simulated work itself,
# never from the records.

set opts {-requests 300 -seed 7 -text 0 -gap 1}
while {[string match -* [lindex $argv 0]]} {
    dict set opts [lindex $argv 0] [lindex $argv 1]
    set argv [lrange $argv 2 end]
}
lassign $argv outPath truthPath
set seed [dict get $opts -seed]

# Standard type ids (fixed, see Stardust.n) and payload layouts.
array set typeId {UserThreadSwitch 1 KernelProcessSwitch 2 BufferReadHit 3
    BufferReadMiss 4 BufferWrite 5 BufferReadAhead 6 BufferFlush 7
    BufferEvict 8 NetworkTransmit 9 DiskOpStart 10 DiskOpEnd 11 Call 12
    Reply 13 Stitch 14}
array set layout {
    UserThreadSwitch {i i i} KernelProcessSwitch {i i i}
    BufferReadHit {w w i} BufferReadMiss {w w i} BufferWrite {w w i}
    BufferFlush {w w i} NetworkTransmit {i i i}
    DiskOpStart {i w w i c} DiskOpEnd {i w} Call {S S} Reply {S S}
    Stitch {w w}
}

proc rand {} {
    # Park-Miller minimal standard generator: repeatable everywhere.
    set ::seed [expr {($::seed * 16807) % 2147483647}]
    return [expr {$::seed / 2147483647.0}]
}

# --- output -----------------------------------------------------------

set out [open $outPath wb]
set ticksPerSec 2000000000
if {[dict get $opts -text]} {
    puts $out "#stardust ticks=$ticksPerSec"
} else {
    puts -nonewline $out [binary format a8w STARDUST $ticksPerSec]
}
set nrecords 0

# post T BC PID TID TYPE VALUES -- writes one activity record.
proc post {t bc pid tid type args} {
    global out typeId layout opts
    incr ::nrecords
    set ticks [expr {$t * 2}]
    if {[dict get $opts -text]} {
	set vals [lmap v $args {expr {[string is entier -strict $v] ? $v : "\"$v\""}}]
	puts $out [join [list $ticks $bc $pid $tid $type {*}$vals] " "]
	return
    }
    set payload ""
    foreach code $layout($type) v $args {
	if {$code eq "S"} {
	    append payload [binary format sa* [string length $v] $v]
	} else {
	    append payload [binary format $code $v]
	}
    }
    puts -nonewline $out [binary format wwiiss $ticks $bc $pid $tid \
	$typeId($type) [string length $payload]]$payload
}

# --- events -----------------------------------------------------------

set now 0
set events {}
set evSeq 0
# at T SCRIPT -- runs SCRIPT at time T (ns); equal times in FIFO order
# (the key is T * 10^6 + a sequence number).
proc at {t script} {
    set key [expr {$t * 1000000 + [incr ::evSeq]}]
    set i [lsearch -bisect -integer -index 0 $::events $key]
    set ::events [linsert $::events [expr {$i + 1}] [list $key $t $script]]
}

# --- truth ------------------------------------------------------------

# shares($bc): list of {rootBreadcrumb weight}, as the service knows it.
proc root {bc} {set ::shares($bc) [list [list $bc 1.0]]}
proc child {parent bc} {set ::shares($bc) $::shares($parent)}
proc coalesced {parents bc} {
    set k [llength $parents]
    set l {}
    foreach p $parents {
	foreach s $::shares($p) {lappend l [list [lindex $s 0] [expr {[lindex $s 1] / $k}]]}
    }
    set ::shares($bc) $l
}
proc bill {bc resource amount} {
    foreach s $::shares($bc) {
	lassign $s r w
	set c [expr {$r >> 56}]
	set cur [expr {[dict exists $::demand $c $resource] ? [dict get $::demand $c $resource] : 0.0}]
	dict set ::demand $c $resource [expr {$cur + $w * $amount}]
    }
}
set demand {}

# --- processors -------------------------------------------------------
#
# cpuState(m): {busy curPid}; per process curTid(pid).  A burst is
# {pid tid bc dur pre post done}: pre records are posted at its start,
# post records at its end, then done runs.

array set machineOf {100 1 200 1 301 2 302 3 303 4}
array set kernelSched {1 1 2 0 3 0 4 0}
foreach m {1 2 3 4} {set cpuBusy($m) 0; set cpuPid($m) 0; set cpuQueue($m) {}}
foreach p {100 200 301 302 303} {set curTid($p) 0; set nextTid($p) 0}

proc pickThread {pid} {
    # Four threads per process, taken in turn.
    set ::nextTid($pid) [expr {$::nextTid($pid) % 4 + 1}]
}

proc burst {pid bc dur pre post done} {
    set m $::machineOf($pid)
    lappend ::cpuQueue($m) [list $pid [pickThread $pid] $bc $dur $pre $post $done]
    if {!$::cpuBusy($m)} {startBurst $m}
}

proc startBurst {m} {
    global now cpuQueue cpuBusy cpuPid curTid kernelSched
    if {[llength $cpuQueue($m)] == 0} {
	# Idle: the process leaves the processor.
	set pid $cpuPid($m)
	if {$kernelSched($m)} {
	    if {$pid} {post $now 0 $pid 0 KernelProcessSwitch $m $pid 0}
	    set cpuPid($m) 0
	} elseif {$pid && $curTid($pid)} {
	    post $now 0 $pid $curTid($pid) UserThreadSwitch $m $curTid($pid) 0
	    set curTid($pid) 0
	}
	set cpuBusy($m) 0
	return
    }
    set cpuQueue($m) [lassign $cpuQueue($m) b]
    lassign $b pid tid bc dur pre post done
    set cpuBusy($m) 1
    if {$kernelSched($m) && $cpuPid($m) != $pid} {
	post $now 0 $pid 0 KernelProcessSwitch $m $cpuPid($m) $pid
    }
    set cpuPid($m) $pid
    if {$curTid($pid) != $tid} {
	# The switch names the request the new thread takes up.
	post $now $bc $pid $tid UserThreadSwitch $m $curTid($pid) $tid
	set curTid($pid) $tid
    }
    foreach r $pre {post $now $bc $pid $tid {*}$r}
    bill $bc cpu [expr {$dur / 1e9}]
    at [expr {$now + $dur}] [list endBurst $m $pid $tid $bc $post $done]
}

proc endBurst {m pid tid bc post done} {
    foreach r $post {post $::now $bc $pid $tid {*}$r}
    uplevel #0 $done
    startBurst $m
}

# --- network and disks ------------------------------------------------

# send: the NetworkTransmit record, billed, for a burst's post list.
proc send {bc src dst bytes} {
    bill $bc netBytes $bytes
    list NetworkTransmit $src $dst $bytes
}
proc netDelay {bytes} {expr {50000 + $bytes * 8}}   ;# 50 us + 1 Gb/s

set ioSeq 0
foreach d {1 2 3 4} {set diskBusy($d) 0; set diskQueue($d) {}}
# disk D BC SIZE OP DONE -- a FIFO disk; the driver (pid 900+D) posts
# start and end, without a processor of its own.
proc disk {d bc size op done} {
    lappend ::diskQueue($d) [list $bc $size $op $done [incr ::ioSeq]]
    if {!$::diskBusy($d)} {startDisk $d}
}
proc startDisk {d} {
    global now diskQueue diskBusy
    if {[llength $diskQueue($d)] == 0} {set diskBusy($d) 0; return}
    set diskQueue($d) [lassign $diskQueue($d) io]
    lassign $io bc size op done id
    set diskBusy($d) 1
    set svc [expr {2000000 + int(6000000 * [rand]) + $size * 10}]
    post $now $bc [expr {900 + $d}] 1 DiskOpStart $d $id [expr {int([rand] * 1e6) * 4096}] $size $op
    bill $bc disk [expr {$svc / 1e9}]
    at [expr {$now + $svc}] [list endDisk $d $bc $id $done]
}
proc endDisk {d bc id done} {
    post $::now $bc [expr {900 + $d}] 1 DiskOpEnd $d $id
    uplevel #0 $done
    startDisk $d
}

# --- the service ------------------------------------------------------

set bcSeq 0
proc newBc {client} {expr {($client << 56) | [incr ::bcSeq]}}
# Breadcrumbs the service makes for itself (coalesced flushes) carry
# client 127; they always have parents, so no client 127 appears.
set sysClient 127
set coalescedFlushes 0

# Client request: Call at the front end, metadata lookup, data.
proc request {client op obj size} {
    set bc [newBc $client]
    root $bc
    burst 100 $bc 40000 [list [list Call frontend $op]] {} \
	[list lookup $client $bc $op $obj $size]
}

proc lookup {client bc op obj size} {
    set mbc [newBc $client]
    child $bc $mbc
    set msg 256
    burst 100 $bc 10000 [list [list Stitch $bc $mbc]] \
	[list [send $bc 1 1 $msg]] \
	[list at [expr {$::now + [netDelay $msg]}] \
	     [list mdsServe $client $bc $mbc $op $obj $size]]
}

proc mdsServe {client bc mbc op obj size} {
    set k [expr {$obj % 3}]
    set done [list mdsReply $client $bc $mbc $op $obj $size]
    if {[rand] < 0.3} {
	burst 200 $mbc 30000 [list [list Call mds lookup]] \
	    [list [list BufferReadMiss 7 [expr {$obj * 512}] 512]] \
	    [list disk 1 $mbc 512 0 $done]
    } else {
	burst 200 $mbc 30000 [list [list Call mds lookup] \
	    [list BufferReadHit 7 [expr {$obj * 512}] 512]] {} $done
    }
}

proc mdsReply {client bc mbc op obj size} {
    set msg 256
    burst 200 $mbc 8000 {} [list [list Reply mds lookup] [send $mbc 1 1 $msg]] \
	[list at [expr {$::now + [netDelay $msg]}] \
	     [list dataPhase $client $bc $op $obj $size]]
}

proc dataPhase {client bc op obj size} {
    set node [expr {$obj % 3 + 2}]
    set sbc [newBc $client]
    child $bc $sbc
    set msg [expr {$op eq "write" ? $size + 128 : 128}]
    burst 100 $bc 15000 [list [list Stitch $bc $sbc]] \
	[list [send $bc 1 $node $msg]] \
	[list at [expr {$::now + [netDelay $msg]}] \
	     [list storage$op $client $bc $sbc $node $obj $size]]
}

proc storageread {client bc sbc node obj size} {
    set pid [expr {299 + $node}]
    set done [list storageReply $client $bc $sbc $node $size]
    if {[rand] < 0.5} {
	burst $pid $sbc 25000 [list [list Call storage read]] \
	    [list [list BufferReadMiss $obj 0 $size]] \
	    [list disk $node $sbc $size 0 $done]
    } else {
	burst $pid $sbc 25000 [list [list Call storage read] \
	    [list BufferReadHit $obj 0 $size]] {} $done
    }
}

proc storageReply {client bc sbc node size} {
    set pid [expr {299 + $node}]
    burst $pid $sbc 10000 {} [list [list Reply storage read] \
	[send $sbc $node 1 $size]] \
	[list at [expr {$::now + [netDelay $size]}] [list finish $bc read]]
}

# A write dirties the primary's cache and is replicated to the next node.
proc storagewrite {client bc sbc node obj size} {
    set pid [expr {299 + $node}]
    set rnode [expr {($node - 1) % 3 + 2}]
    set rbc [newBc $client]
    child $sbc $rbc
    lappend ::dirty($node) [list $sbc $size]
    burst $pid $sbc 30000 [list [list Call storage write] \
	[list BufferWrite $obj 0 $size] [list Stitch $sbc $rbc]] \
	[list [send $sbc $node $rnode [expr {$size + 128}]]] \
	[list at [expr {$::now + [netDelay [expr {$size + 128}]]}] \
	     [list replica $client $bc $sbc $rbc $node $rnode $obj $size]]
}

proc replica {client bc sbc rbc node rnode obj size} {
    set pid [expr {299 + $rnode}]
    lappend ::dirty($rnode) [list $rbc $size]
    burst $pid $rbc 20000 [list [list Call replica write] \
	[list BufferWrite $obj 0 $size]] [list [list Reply replica write] \
	[send $rbc $rnode $node 128]] \
	[list at [expr {$::now + [netDelay 128]}] \
	     [list writeAck $client $bc $sbc $node]]
}

proc writeAck {client bc sbc node} {
    set pid [expr {299 + $node}]
    burst $pid $sbc 8000 {} [list [list Reply storage write] \
	[send $sbc $node 1 128]] \
	[list at [expr {$::now + [netDelay 128]}] [list finish $bc write]]
}

proc finish {bc op} {
    burst 100 $bc 12000 {} [list [list Reply frontend $op]] {}
}

# The write-back flusher of a storage node.
proc flush {node} {
    set pid [expr {299 + $node}]
    set blocks [expr {[info exists ::dirty($node)] ? $::dirty($node) : {}}]
    set ::dirty($node) {}
    if {[llength $blocks] == 1} {
	# Delayed work under the original breadcrumb.
	lassign [lindex $blocks 0] fbc bytes
	set pre [list [list BufferFlush 0 0 $bytes]]
    } elseif {[llength $blocks] > 1} {
	set fbc [expr {($::sysClient << 56) | [incr ::bcSeq]}]
	incr ::coalescedFlushes
	coalesced [lmap b $blocks {lindex $b 0}] $fbc
	set pre [lmap b $blocks {list Stitch [lindex $b 0] $fbc}]
	set bytes 0
	foreach b $blocks {incr bytes [lindex $b 1]}
	lappend pre [list BufferFlush 0 0 $bytes]
    }
    if {[llength $blocks]} {
	burst $pid $fbc 20000 $pre {} [list disk $node $fbc $bytes 1 {}]
    }
    if {$::now < $::endTime} {
	at [expr {$::now + 20000000}] [list flush $node]
    }
}

# --- workload ---------------------------------------------------------
#
# Client 1 reads 4 KiB, client 2 writes 16 KiB, client 3 mixes 64 KiB.

set t 0
for {set n 0} {$n < [dict get $opts -requests]} {incr n} {
    set t [expr {$t + int([dict get $opts -gap] * 1000000 * [rand])}]
    set client [expr {$n % 3 + 1}]
    switch $client {
	1 {set op read; set size 4096}
	2 {set op write; set size 16384}
	3 {set op [expr {[rand] < 0.5 ? "read" : "write"}]; set size 65536}
    }
    at $t [list request $client $op [expr {int([rand] * 1000)}] $size]
}
set endTime [expr {$t + 200000000}]
foreach node {2 3 4} {at [expr {20000000 + $node * 1000000}] [list flush $node]}

while {[llength $events]} {
    set events [lassign $events ev]
    lassign $ev - now script
    uplevel #0 $script
}
close $out

set f [open $truthPath w]
puts $f "# true per-client demand: client -> {cpu s disk s netBytes bytes}"
puts $f [list set truth $demand]
puts $f [list set records $nrecords]
puts $f [list set coalescedFlushes $coalescedFlushes]
puts $f [list set breadcrumbs $bcSeq]
close $f
