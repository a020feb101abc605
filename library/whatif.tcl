# whatif.tcl --
#
#	observer::whatif encoding|move|upgrade MODEL ...: the high-level
#	What...if questions of Thereska's thesis, section 5.2.3 (a change
#	of data encoding, a workload moved to other storage-nodes, a
#	resource upgrade).  Each consults the resource models (observer::cpu
#	encoding, observer::network, observer::disk demand) for the demands
#	the change implies, solves the queueing network of MODEL (an
#	observer::model) before and after through its whatif method, and
#	names the bottleneck.  Observer(n), "High-level questions".

namespace eval ::observer {}

proc ::observer::whatif {question args} {
    switch -exact -- $question {
	encoding - move - upgrade {
	    return [WhatifAnswer {*}[Whatif_$question {*}$args]]
	}
	default {
	    return -code error -errorcode {RUBICON OBSERVER USAGE} \
		"unknown question \"$question\": must be encoding, move or upgrade"
	}
    }
}

# WhatifOptions ARGS ALLOWED -- a dict of the options in ARGS (each with
# a value, -apply without), refusing any not in ALLOWED.
proc ::observer::WhatifOptions {what argv allowed} {
    set opts {}
    for {set i 0} {$i < [llength $argv]} {incr i} {
	set o [lindex $argv $i]
	if {$o eq "-apply"} {
	    dict set opts -apply 1
	    continue
	}
	if {$o ni $allowed} {
	    return -code error -errorcode {RUBICON OBSERVER USAGE} \
		"observer::whatif $what: unknown option \"$o\": must be\
		[join [concat $allowed -apply] {, }]"
	}
	if {$i + 1 >= [llength $argv]} {
	    return -code error -errorcode {RUBICON OBSERVER USAGE} \
		"observer::whatif $what: option $o needs a value"
	}
	dict set opts $o [lindex $argv [incr i]]
    }
    return $opts
}

# WhatifAnswer MODEL CHANGES APPLY DEMANDS -- solves MODEL before and
# after CHANGES (the model's whatif) and adds what the resource models
# gave (demands) and the bottleneck after the change.
proc ::observer::WhatifAnswer {model changes apply demands} {
    set w [$model whatif {*}[expr {$apply ? {-apply} : {}}] {*}$changes]
    dict set w demands $demands
    dict set w bottleneck [dict get $w after bottleneck]
    return $w
}

# Whatif_encoding MODEL WORKLOAD ENCODING -readfraction F ?-cpu {CENTER
# MEASURED}? ?-network {CENTER BLOCK BANDWIDTH ?SETUP?}? ?-size B?
# ?-apply? -- "what if the data of WORKLOAD is encoded using ENCODING":
# its demand at the CPU center from the CPU model's measurements under
# ENCODING and the read fraction, at the network center from equations
# (5.1), (5.2) with the m-of-n the encoding's name begins with.
proc ::observer::Whatif_encoding {args} {
    if {[llength $args] < 3} {
	return -code error -errorcode {TCL WRONGARGS} {wrong # args: should\
	    be "observer::whatif encoding model workload encoding\
	    -readfraction F ?-cpu {center measured}? ?-network {center block\
	    bandwidth ?setup?}? ?-size B? ?-apply?"}
    }
    lassign $args model workload encoding
    set o [WhatifOptions encoding [lrange $args 3 end] \
	{-readfraction -cpu -network -size}]
    if {![dict exists $o -readfraction]} {
	return -code error -errorcode {RUBICON OBSERVER USAGE} \
	    "observer::whatif encoding needs -readfraction"
    }
    if {![dict exists $o -cpu] && ![dict exists $o -network]} {
	return -code error -errorcode {RUBICON OBSERVER USAGE} \
	    "observer::whatif encoding needs -cpu or -network (the models\
	    to consult)"
    }
    set f [dict get $o -readfraction]
    set changes {}
    set demands {}
    if {[dict exists $o -cpu]} {
	if {[llength [dict get $o -cpu]] != 2} {
	    return -code error -errorcode {RUBICON OBSERVER USAGE} \
		"observer::whatif encoding: -cpu wants {center measured}"
	}
	lassign [dict get $o -cpu] center measured
	set size [expr {[dict exists $o -size] ? [dict get $o -size] : -1}]
	set d [dict get [observer::cpu encoding $measured $encoding \
	    -readfraction $f -size $size] demand]
	lappend changes [list demand $workload $center $d]
	lappend demands $center $d
    }
    if {[dict exists $o -network]} {
	set net [dict get $o -network]
	if {[llength $net] < 3 || [llength $net] > 4} {
	    return -code error -errorcode {RUBICON OBSERVER USAGE} \
		"observer::whatif encoding: -network wants {center block\
		bandwidth ?setup?}"
	}
	if {![regexp {^([0-9]+)-of-([0-9]+)} $encoding -> m n]} {
	    return -code error -errorcode {RUBICON OBSERVER VALUE} \
		"observer::whatif encoding: the network model needs an\
		encoding named m-of-n..., not \"$encoding\""
	}
	lassign $net center block bandwidth setup
	if {$setup eq ""} {set setup 0}
	set d [dict get [observer::network -block $block -m $m -n $n \
	    -readfraction $f -bandwidth $bandwidth -setup $setup] time]
	lappend changes [list demand $workload $center $d]
	lappend demands $center $d
    }
    list $model $changes [dict exists $o -apply] $demands
}

# DiskDemands REQUESTS OPTIONS -- the per-client demand (5.4, or the
# mean D' of (5.3) without quanta) of observer::disk demand.
proc ::observer::DiskDemands {requests options} {
    set a [observer::disk demand $requests {*}$options]
    set out {}
    dict for {client c} [dict get $a clients] {
	dict set out $client [expr {[dict exists $c demand]
	    ? [dict get $c demand] : [dict get $c service]}]
    }
    return $out
}

# DiskChanges MODEL CENTER DEMANDS -- demand changes at CENTER for the
# clients of DEMANDS that are workloads of MODEL (others are refused:
# a client of the disk the model does not know would be lost silently).
proc ::observer::DiskChanges {model center demands} {
    set changes {}
    dict for {client d} $demands {
	if {$client ni [$model workloads]} {
	    return -code error -errorcode {RUBICON OBSERVER VALUE} \
		"observer::whatif: disk client \"$client\" at $center is\
		not a workload of the model"
	}
	lappend changes [list demand $client $center $d]
    }
    return $changes
}

# Whatif_move MODEL WORKLOAD -from CENTERS -to CENTERS ?-disk {CENTER
# {REQUESTS ?OPTIONS?} ...}? ?-apply? -- "what if WORKLOAD is moved to
# the storage-nodes S": its demand at each -from center moves to the -to
# center in the same place (the model's move change); then, for each
# -disk center, the disk model on the requests that reach that disk
# after the move (every client's cache misses, the moved workload's
# among them) gives each client's demand there.
proc ::observer::Whatif_move {args} {
    if {[llength $args] < 2} {
	return -code error -errorcode {TCL WRONGARGS} {wrong # args: should\
	    be "observer::whatif move model workload -from centers -to\
	    centers ?-disk {center {requests ?options?} ...}? ?-apply?"}
    }
    lassign $args model workload
    set o [WhatifOptions move [lrange $args 2 end] {-from -to -disk}]
    if {![dict exists $o -from] || ![dict exists $o -to]
	    || [llength [dict get $o -from]] != [llength [dict get $o -to]]
	    || [llength [dict get $o -from]] == 0} {
	return -code error -errorcode {RUBICON OBSERVER USAGE} \
	    "observer::whatif move needs -from and -to, lists of centers of\
	    the same length"
    }
    set changes {}
    foreach from [dict get $o -from] to [dict get $o -to] {
	if {$to ni [$model centers]} {
	    lappend changes [list addcenter $to]
	}
	lappend changes [list move $workload $from $to]
    }
    set demands {}
    if {[dict exists $o -disk]} {
	foreach {center spec} [dict get $o -disk] {
	    set d [DiskDemands [lindex $spec 0] [lrange $spec 1 end]]
	    lappend changes {*}[DiskChanges $model $center $d]
	    lappend demands $center $d
	}
    }
    list $model $changes [dict exists $o -apply] $demands
}

# Whatif_upgrade MODEL CENTER ?-speed F? ?-disk {REQUESTS ?OPTIONS?}?
# ?-apply? -- "what if CENTER is upgraded": F times faster, or, for a
# disk, a new disk whose four parameters (-seqread ... in OPTIONS) give
# each client's demand through the disk model.
proc ::observer::Whatif_upgrade {args} {
    if {[llength $args] < 2} {
	return -code error -errorcode {TCL WRONGARGS} {wrong # args: should\
	    be "observer::whatif upgrade model center ?-speed F? ?-disk\
	    {requests ?options?}? ?-apply?"}
    }
    lassign $args model center
    set o [WhatifOptions upgrade [lrange $args 2 end] {-speed -disk}]
    if {[dict exists $o -speed] == [dict exists $o -disk]} {
	return -code error -errorcode {RUBICON OBSERVER USAGE} \
	    "observer::whatif upgrade needs one of -speed and -disk"
    }
    if {$center ni [$model centers]} {
	return -code error -errorcode {RUBICON OBSERVER VALUE} \
	    "observer::whatif upgrade: no center \"$center\" in the model"
    }
    if {[dict exists $o -speed]} {
	return [list $model [list [list speed $center [dict get $o -speed]]] \
	    [dict exists $o -apply] {}]
    }
    set spec [dict get $o -disk]
    set d [DiskDemands [lindex $spec 0] [lrange $spec 1 end]]
    list $model [DiskChanges $model $center $d] [dict exists $o -apply] \
	[list $center $d]
}
