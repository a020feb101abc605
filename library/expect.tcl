# expect.tcl --
#
#	observer::expect check|learn: structural expectations, as Thereska's
#	thesis describes them (section 3.4 and Figure 3.6; section 6.1 for
#	checking them).  An expectation is a directed graph of instrumentation
#	points whose edges say how a request of one type is expected to flow:
#	how many times it takes the edge (Figure 3.6: a write under 3-way
#	replication contacts three storage-nodes), the probability that it
#	takes it at all, and how long the edge takes.  check diffs each
#	request's own flow graph (StardustFlowGraphAnalyzer's RequestEdges)
#	against it; learn bootstraps one from the requests of a run (6.1:
#	"initial expectations may be bootstrapped").  Observer(n),
#	"Structural expectations".

namespace eval ::observer {}

proc ::observer::expect {what args} {
    switch -exact -- $what {
	check {return [ExpectCheck {*}$args]}
	learn {return [ExpectLearn {*}$args]}
	default {
	    return -code error -errorcode {RUBICON OBSERVER USAGE} \
		"unknown subcommand \"$what\": must be check or learn"
	}
    }
}

# ExpectUsage MSG -- raises RUBICON OBSERVER USAGE.
proc ::observer::ExpectUsage {msg} {
    return -level 2 -code error -errorcode {RUBICON OBSERVER USAGE} $msg
}

# ExpectValue MSG -- raises RUBICON OBSERVER VALUE.
proc ::observer::ExpectValue {msg} {
    return -level 2 -code error -errorcode {RUBICON OBSERVER VALUE} $msg
}

# ExpectOptions WHAT ARGV DEFAULTS -- the options of ARGV (each with a
# value) over DEFAULTS, refusing one DEFAULTS lacks.
proc ::observer::ExpectOptions {what argv defaults} {
    if {[llength $argv] % 2} {
	ExpectUsage "observer::expect $what: option \"[lindex $argv end]\"\
	    wants a value"
    }
    foreach {k v} $argv {
	if {![dict exists $defaults $k]} {
	    ExpectUsage "observer::expect $what: unknown option \"$k\":\
		must be [join [dict keys $defaults] {, }]"
	}
	dict set defaults $k $v
    }
    return $defaults
}

# ExpectRequests FLOW CALL -- the root requests of FLOW (a Flow holding a
# StardustFlowGraphAnalyzer's RequestPoints and RequestEdges) whose first
# point matches the glob CALL: a dict from each to a dict from its edges
# {from to} to the latencies of their traversals, in the order met.  A
# request that reached one point only has no edges.
proc ::observer::ExpectRequests {flow call} {
    foreach attr {RequestPoints RequestEdges} {
	if {[catch {$flow get $attr} table($attr)]} {
	    ExpectUsage "observer::expect: \"$flow\" has no $attr (give a\
		Flow holding a StardustFlowGraphAnalyzer, after a run)"
	}
    }
    # Each request's first point: the one it reached earliest.
    set first {}
    foreach row [dict get $table(RequestPoints) rows] {
	lassign $row req point t
	if {![dict exists $first $req] || $t < [lindex [dict get $first $req] 1]} {
	    dict set first $req [list $point $t]
	}
    }
    set requests {}
    dict for {req pt} $first {
	if {[string match $call [lindex $pt 0]]} {
	    dict set requests $req {}
	}
    }
    foreach row [dict get $table(RequestEdges) rows] {
	lassign $row req from to latency
	if {[dict exists $requests $req]} {
	    dict update requests $req edges {
		dict lappend edges [list $from $to] $latency
	    }
	}
    }
    return $requests
}

# ExpectEdges SPECS -- the expectation's edges checked: a dict from
# {from to} to a dict of min, max ("" for no bound), probability and
# latency ("" when not given).
proc ::observer::ExpectEdges {specs} {
    set edges {}
    foreach spec $specs {
	if {[catch {dict size $spec}] || ![dict exists $spec from]
		|| ![dict exists $spec to]} {
	    ExpectValue "an expected edge is a dict with from and to: \"$spec\""
	}
	set e [dict create min 0 max "" probability "" latency ""]
	dict for {k v} $spec {
	    switch -exact -- $k {
		from - to {}
		count - min - max {
		    if {![string is entier -strict $v] || $v < 0} {
			ExpectValue "edge [dict get $spec from] -> [dict get $spec to]:\
			    $k wants a count >= 0, not \"$v\""
		    }
		}
		probability {
		    if {![string is double -strict $v] || $v < 0 || $v > 1} {
			ExpectValue "edge [dict get $spec from] -> [dict get $spec to]:\
			    probability wants a number in \[0, 1\], not \"$v\""
		    }
		    dict set e probability $v
		}
		latency {
		    set bad [expr {[llength $v] ni {1 2}}]
		    foreach x $v {
			if {![string is double -strict $x] || $x < 0} {
			    set bad 1
			}
		    }
		    if {$bad} {
			ExpectValue "edge [dict get $spec from] -> [dict get $spec to]:\
			    latency wants {mean ?stddev?} in seconds, not \"$v\""
		    }
		    dict set e latency $v
		}
		default {
		    ExpectValue "edge [dict get $spec from] -> [dict get $spec to]:\
			unknown key \"$k\": must be from, to, count, min, max,\
			probability or latency"
		}
	    }
	}
	if {[dict exists $spec count]} {
	    if {[dict exists $spec min] || [dict exists $spec max]} {
		ExpectValue "edge [dict get $spec from] -> [dict get $spec to]:\
		    count is min and max at once; give one or the others"
	    }
	    dict set e min [dict get $spec count]
	    dict set e max [dict get $spec count]
	}
	if {[dict exists $spec min]} {dict set e min [dict get $spec min]}
	if {[dict exists $spec max]} {dict set e max [dict get $spec max]}
	if {[dict get $e max] ne "" && [dict get $e max] < [dict get $e min]} {
	    ExpectValue "edge [dict get $spec from] -> [dict get $spec to]:\
		max [dict get $e max] is below min [dict get $e min]"
	}
	set key [list [dict get $spec from] [dict get $spec to]]
	if {[dict exists $edges $key]} {
	    ExpectValue "edge [join $key { -> }] is expected twice"
	}
	dict set edges $key $e
    }
    return $edges
}

# ExpectRange E -- an expected edge's count as text: "3", "1..3", "1..".
proc ::observer::ExpectRange {e} {
    set lo [dict get $e min]
    set hi [dict get $e max]
    if {$lo eq $hi} {return $lo}
    return $lo..$hi
}

# ExpectCheck EXPECTATION FLOW ?-call GLOB? ?-tolerance P? ?-spread F? --
# see Observer(n).
proc ::observer::ExpectCheck {args} {
    if {[llength $args] < 2} {
	ExpectUsage "wrong # args: should be \"observer::expect check\
	    expectation flow ?-call glob? ?-tolerance p? ?-spread f?\""
    }
    lassign $args specs flow
    set o [ExpectOptions check [lrange $args 2 end] \
	{-call * -tolerance 0 -spread 0.1}]
    set tolerance [dict get $o -tolerance]
    if {![string is double -strict $tolerance] || $tolerance < 0
	    || $tolerance > 1} {
	ExpectValue "-tolerance wants a number in \[0, 1\], not \"$tolerance\""
    }
    set expected [ExpectEdges $specs]
    set requests [ExpectRequests $flow [dict get $o -call]]
    set n [dict size $requests]
    set deviations {}
    set kinds [dict create unexpected 0 missing 0 count 0]
    set conforming 0
    set reached [dict create]
    set latencies [dict create]
    dict for {req edges} $requests {
	set before [llength $deviations]
	dict for {key lats} $edges {
	    dict incr reached $key
	    dict lappend latencies $key {*}$lats
	    if {![dict exists $expected $key]} {
		lappend deviations [list $req unexpected {*}$key {} [llength $lats]]
		dict incr kinds unexpected
	    }
	}
	dict for {key e} $expected {
	    set seen [expr {[dict exists $edges $key]
		? [llength [dict get $edges $key]] : 0}]
	    set hi [dict get $e max]
	    if {$seen < [dict get $e min] || ($hi ne "" && $seen > $hi)} {
		set kind [expr {$seen == 0 ? "missing" : "count"}]
		lappend deviations [list $req $kind {*}$key [ExpectRange $e] $seen]
		dict incr kinds $kind
	    }
	}
	if {[llength $deviations] == $before} {
	    incr conforming
	}
    }
    # Over the requests: each edge's share of requests taking it, against
    # its expected probability; and its mean latency against the expected
    # (observer::mismatch, one standard deviation).
    set probability {}
    set predicted {}
    set observed {}
    dict for {key e} $expected {
	set p [dict get $e probability]
	if {$p ne "" && $n > 0} {
	    set f [expr {([dict exists $reached $key]
		? [dict get $reached $key] : 0) / double($n)}]
	    set tol [expr {$tolerance > 0 ? $tolerance
		: 2 * sqrt($p * (1 - $p) / $n)}]
	    if {abs($f - $p) > $tol + 1e-12} {
		lappend probability [list {*}$key $p $f]
	    }
	}
	if {[dict get $e latency] ne ""} {
	    set name [join $key " -> "]
	    dict set predicted $name [dict get $e latency]
	    if {[dict exists $latencies $key]} {
		set l [dict get $latencies $key]
		dict set observed $name [expr {[::tcl::mathop::+ {*}$l]
		    / double([llength $l])}]
	    }
	}
    }
    set performance {}
    if {[dict size $predicted] > 0} {
	set performance [observer::mismatch $predicted $observed \
	    -spread [dict get $o -spread]]
    }
    dict create requests $n conforming $conforming kinds $kinds \
	deviations $deviations probability $probability \
	performance $performance
}

# ExpectLearn FLOW ?-call GLOB? -- see Observer(n).
proc ::observer::ExpectLearn {args} {
    if {[llength $args] < 1} {
	ExpectUsage "wrong # args: should be \"observer::expect learn flow\
	    ?-call glob?\""
    }
    set flow [lindex $args 0]
    set o [ExpectOptions learn [lrange $args 1 end] {-call *}]
    set requests [ExpectRequests $flow [dict get $o -call]]
    set n [dict size $requests]
    set counts [dict create]
    set latencies [dict create]
    dict for {req edges} $requests {
	dict for {key lats} $edges {
	    dict lappend counts $key [llength $lats]
	    dict lappend latencies $key {*}$lats
	}
    }
    set specs {}
    foreach key [lsort [dict keys $counts]] {
	set c [dict get $counts $key]
	# A request that never takes the edge counts 0.
	set lo [expr {[llength $c] < $n ? 0 : [tcl::mathfunc::min {*}$c]}]
	set hi [tcl::mathfunc::max {*}$c]
	set spec [dict create from [lindex $key 0] to [lindex $key 1]]
	if {$lo == $hi} {
	    dict set spec count $lo
	} else {
	    dict set spec min $lo
	    dict set spec max $hi
	}
	dict set spec probability [expr {[llength $c] / double($n)}]
	set l [dict get $latencies $key]
	set mean [expr {[::tcl::mathop::+ {*}$l] / double([llength $l])}]
	if {[llength $l] > 1} {
	    set ss 0.0
	    foreach x $l {set ss [expr {$ss + ($x - $mean) ** 2}]}
	    dict set spec latency [list $mean [expr {sqrt($ss / ([llength $l] - 1))}]]
	} else {
	    dict set spec latency [list $mean]
	}
	lappend specs $spec
    }
    return $specs
}
