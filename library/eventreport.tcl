# eventreport.tcl --
#
#	rubicon report on Stardust activity records (binary or text,
#	Stardust(n)): requests per type with their latency percentiles, the
#	calls made inside them, the service graph, the flow graph and the
#	demand per client, in report.txt, report.json and report.html, from
#	a StardustFlowGraphAnalyzer and a StardustDemandAnalyzer.  The
#	configuration it runs is written to report.tcl (rubicon-report(n)).

namespace eval ::rubicon::tracereport {
    # Root requests whose points are kept for the request and call
    # figures (StardustFlowGraphAnalyzer -maxrequests): a bound on memory.
    variable eventRequests 100000
}

# tracereport::stardustConfig opts -- the text of report.tcl for Stardust
# activity records.
proc ::rubicon::tracereport::stardustConfig {opts} {
    variable eventRequests
    join [list \
	"# Rubicon configuration written by \"rubicon report\" (rubicon-report(n))" \
	"# for Stardust activity records.  Run: rubicon report.tcl TRACE..." \
	"# StardustFlowGraphAnalyzer (Stardust(n)) walks each root request's" \
	"# flow graph (the first $eventRequests kept for the per-request figures);" \
	"# StardustDemandAnalyzer bills CPU, disk and network to each client." \
	"# writeStardust writes report.txt, report.json and report.html into" \
	"# outdir." \
	"" \
	[list set outdir [dict get $opts -outdir]] \
	[list set reportOptions [dict create -top [dict get $opts -top]]] \
	"# StardustDemandAnalyzer cannot merge: a run split over MPI ranks" \
	"# leaves the demand out (and the report says so)." \
	"set demand \[expr {\[rubicon::mpi split\] ? {} : \[list \[StardustDemandAnalyzer\]\]}\]" \
	"set events \[Flow events \[StardustFlowGraphAnalyzer -maxrequests $eventRequests\] \\" \
	"    {*}\$demand\]" \
	"head \$events" \
	[runLine [dict get $opts -runoptions]] \
	"rubicon::tracereport::writeStardust \$summary \$events \$outdir \$reportOptions"] \n
}

# tracereport::pointParts point -- {kind service name} of a Stardust
# instrumentation point ("Call fe read": Call fe read; "Lookup": Lookup
# "" "").
proc ::rubicon::tracereport::pointParts {point} {
    list [lindex $point 0] [lindex $point 1] [lrange $point 2 end]
}

# tracereport::stardustFigures summary flow options -- every figure of a
# Stardust report, as a dict.
proc ::rubicon::tracereport::stardustFigures {summary flow options} {
    variable eventRequests
    # Each kept root request's points, in time order of first visit.
    set points {}
    foreach r [rowsOf $flow RequestPoints] {
	lassign $r req point t
	dict lappend points $req [list $t $point]
    }
    set types {}
    set calls {}
    set edges {}
    dict for {req pts} $points {
	set pts [lsort -real -index 0 $pts]
	lassign [lindex $pts 0] t0 first
	set at {}
	foreach p $pts {
	    dict set at [lindex $p 1] [lindex $p 0]
	}
	# A request's latency: from its first point, a Call, to the Reply
	# of the same service and name (a request without one, cut off by
	# the end of the trace, has none).
	lassign [pointParts $first] kind svc name
	if {$kind eq "Call" && [dict exists $at [list Reply $svc {*}$name]]} {
	    dict lappend types [list $svc $name] \
		[expr {[dict get $at [list Reply $svc {*}$name]] - $t0}]
	}
	# Each call inside it: Call to the matching Reply.  The service
	# graph: a Call made while another service's call is open (the
	# innermost, in time order) is that service calling this one.
	set open {}
	foreach p $pts {
	    lassign $p t point
	    lassign [pointParts $point] kind svc name
	    if {$kind eq "Call"} {
		set reply [list Reply $svc {*}$name]
		if {[dict exists $at $reply]} {
		    dict lappend calls [list $svc $name] \
			[expr {[dict get $at $reply] - $t}]
		}
		if {[llength $open] && [lindex $open end 0] ne $svc} {
		    dict incr edges [list [lindex $open end 0] $svc]
		}
		lappend open [list $svc $name]
	    } elseif {$kind eq "Reply"} {
		set i [lsearch -exact $open [list $svc $name]]
		if {$i >= 0} {
		    set open [lreplace $open $i end]
		}
	    }
	}
    }
    foreach var {types calls} {
	set nested {}
	dict for {k ds} [set $var] {dict set nested {*}$k $ds}
	set $var [durationRows $nested]
    }
    set flowEdges {}
    foreach e [rowsOf $flow FlowEdges] {
	lassign $e from to count mean
	lappend flowEdges [list $from $to [expr {int($count)}] $mean]
    }
    set graph [lsort -integer -decreasing -index 2 [lmap {k n} $edges {
	list {*}$k $n 0 0
    }]]
    set flowEdges [lsort -integer -decreasing -index 2 $flowEdges]
    # Demand per client (Stardust's accounting, thesis chapter 4).
    set demand [lsort -real -decreasing -index 2 [lmap r [rowsOf $flow ClientDemand] {
	lassign $r client requests cpu disk netBytes
	list [expr {int($client)}] [expr {int($requests)}] $cpu $disk \
	    [expr {wide($netBytes)}]
    }]]
    set walked [scalar $flow SelectedRequests]
    set cannot {}
    if {"ClientDemand" ni [$flow attributes]} {
	lappend cannot "demand per client: not computed in a run split over\
	    MPI ranks (StardustDemandAnalyzer cannot merge)"
    }
    dict create kind stardust \
	traces [lmap f [dict get $summary files] {
	    dict create path [lindex $f 0] format [lindex $f 1]
	}] \
	options [dict create top [dict get $options -top]] \
	overview [dict create records [dict get $summary records] \
	    skipped [dict get $summary skipped] \
	    epoch [dict get $summary epoch] \
	    span [expr {[dict get $summary records]
		? [dict get $summary last] - [dict get $summary first] : 0}] \
	    from [when $summary [dict get $summary first]] \
	    to [when $summary [dict get $summary last]] \
	    requests [expr {int($walked)}] kept [dict size $points] \
	    keptLimit $eventRequests \
	    clients [llength $demand] services [llength [lsort -unique \
		[lmap r $calls {lindex $r 0}]]] \
	    unattributedCpu [scalar $flow UnattributedCpu] \
	    unattributedDisk [scalar $flow UnattributedDisk]] \
	requests $types calls $calls serviceGraph $graph \
	flowEdges $flowEdges demand $demand cannot $cannot
}

# tracereport::eventHeadLines f -- the first lines of an event report:
# each trace and its format, and the time it covers.
proc ::rubicon::tracereport::eventHeadLines {f} {
    set ov [dict get $f overview]
    set lines {}
    foreach t [dict get $f traces] {
	lappend lines "trace     [dict get $t path] ([dict get $t format])"
    }
    lappend lines [format "time      %.6f s: %s to %s" [dict get $ov span] \
	[dict get $ov from] [dict get $ov to]]
}

# tracereport::stardustText f -- report.txt of a Stardust report.
proc ::rubicon::tracereport::stardustText {f} {
    set top [dict get $f options top]
    set ov [dict get $f overview]
    set lines [eventHeadLines $f]
    set kept [expr {[dict get $ov kept] < [dict get $ov requests]
	? " (the first [dict get $ov kept] kept for the figures below)" : ""}]
    lappend lines "records   [dict get $ov records] activity records,\
	[dict get $ov skipped] skipped; [dict get $ov requests] root\
	requests$kept, [dict get $ov clients] clients,\
	[dict get $ov services] services called"
    foreach {key title} {requests "Request type (first point)" calls "Call (Call to Reply, every service)"} {
	lappend lines "" {*}[durationLines $title [dict get $f $key] $top]
    }
    lappend lines "" [format "%-24s    %-24s %8s" "Service graph: caller" callee requests]
    foreach e [dict get $f serviceGraph] {
	lassign $e c s n
	lappend lines [format "%-24s -> %-24s %8d" [printable $c] [printable $s] $n]
    }
    lappend lines "" [format "%-32s    %-32s %8s %10s" "Flow graph: from" to count mean_ms]
    set rows [dict get $f flowEdges]
    foreach e [lrange $rows 0 [expr {$top - 1}]] {
	lassign $e from to n mean
	lappend lines [format "%-32s -> %-32s %8d %10.3f" \
	    [string range [printable $from] 0 31] [string range [printable $to] 0 31] \
	    $n [expr {$mean * 1e3}]]
    }
    if {[llength $rows] > $top} {
	lappend lines "([expr {[llength $rows] - $top}] more in report.json)"
    }
    lappend lines "" [format "%-10s %9s %10s %10s %12s" "Client" requests cpu_ms disk_ms net_bytes]
    foreach r [lrange [dict get $f demand] 0 [expr {$top - 1}]] {
	lassign $r c n cpu disk net
	lappend lines [format "%-10s %9d %10.3f %10.3f %12d" $c $n \
	    [expr {$cpu * 1e3}] [expr {$disk * 1e3}] $net]
    }
    if {[llength [dict get $f cannot]]} {
	lappend lines {*}[dict get $f cannot]
    } else {
	lappend lines [format "%-10s %9s %10.3f %10.3f" unattributed "" \
	    [expr {[dict get $ov unattributedCpu] * 1e3}] \
	    [expr {[dict get $ov unattributedDisk] * 1e3}]]
    }
    lappend lines "" \
	"Requests: root requests (breadcrumbs with no parent) by their first" \
	"point, latency from that Call to the Reply of the same service and" \
	"name; calls: every Call to its Reply within a request (the first" \
	"visit of each point); percentiles by nearest rank.  Service graph:" \
	"a Call made while a call of another service is open in the same" \
	"request (the innermost), counted per request.  Demand:" \
	"CPU, disk and network billed to each client through the request" \
	"graph (StardustDemandAnalyzer, Stardust(n))."
    join $lines \n
}

# tracereport::stardustJson f -- report.json of a Stardust report.
proc ::rubicon::tracereport::stardustJson {f} {
    eventJson $f stardust \
	[list cannot [jarr [lmap c [dict get $f cannot] {jstr $c}]]] {
	    requests {service name count mean p50 p90 p99 max}
	    calls {service name count mean p50 p90 p99 max}
	    serviceGraph {caller callee calls errors virtual}
	    flowEdges {from to count meanLatency}
	    demand {client requests cpu disk netBytes}
	}
}

# tracereport::stardustHtml f -- report.html of a Stardust report: one
# self-contained page.
proc ::rubicon::tracereport::stardustHtml {f} {
    set top [dict get $f options top]
    set out [eventHtmlHead "Rubicon Stardust report" "Requests and calls" \
	[stardustText $f]]
    append out [durationBars "requests by type" "p99 latency by call (ms)" \
	[dict get $f requests] [dict get $f calls] $top] "</section>\n"
    append out "<section id=\"servicegraph\"><h2>Service graph</h2>" \
	[svgGraph [dict get $f serviceGraph]] "</section>\n"
    append out "<section id=\"demand\"><h2>Demand per client</h2>" \
	[svgBars "CPU per client (ms)" [lmap r [lrange [dict get $f demand] 0 [expr {$top - 1}]] {
	    list "client [lindex $r 0]" [expr {[lindex $r 2] * 1e3}]
	}]] \
	[svgBars "disk per client (ms)" [lmap r [lrange [dict get $f demand] 0 [expr {$top - 1}]] {
	    list "client [lindex $r 0]" [expr {[lindex $r 3] * 1e3}]
	}]] "</section>\n</body></html>\n"
}

# tracereport::writeStardust summary flow outdir options -- writes the
# three reports (rank 0 of a split run) and prints report.txt.
proc ::rubicon::tracereport::writeStardust {summary flow outdir options} {
    if {[::rubicon::mpi rank] != 0} return
    writeEvents $outdir [stardustFigures $summary $flow $options] stardust
}

# ---- Magpie event logs ---------------------------------------------------------

# tracereport::magpieSchemaName file -- the one schema FILE defines (the
# name of its magpie::schema calls), or an error.
proc ::rubicon::tracereport::magpieSchemaName {file} {
    set ch [open $file]
    set text [read $ch]
    close $ch
    set names [lsort -unique [lmap {- n} [regexp -all -inline \
	{magpie::schema\s+([^\s\{\}\[\]$]+)} $text] {set n}]]
    if {[llength $names] != 1} {
	return -code error -errorcode USAGE "-schema $file: it defines\
	    [expr {[llength $names] ? "the schemas [join $names {, }]" : "no\
	    magpie::schema"}]; give -schemaname NAME"
    }
    lindex $names 0
}

# tracereport::magpieConfig opts -- the text of report.tcl for a Magpie
# event log read by a schema.
proc ::rubicon::tracereport::magpieConfig {opts} {
    variable eventRequests
    set name [dict get $opts -schemaname]
    set label [expr {[dict get $opts -label] ne ""
	? [list -label [dict get $opts -label]] : {}}]
    set ro [dict get $opts -runoptions]
    dict set ro -readeroptions [dict merge [expr {[dict exists $ro -readeroptions]
	? [dict get $ro -readeroptions] : {}}] [list schema $name]]
    join [list \
	"# Rubicon configuration written by \"rubicon report\" (rubicon-report(n))" \
	"# for a Magpie event log.  Run: rubicon report.tcl LOG..." \
	"# The schema file defines how events join into requests (Magpie(n));" \
	"# MagpieParserAnalyzer extracts the requests (the first $eventRequests" \
	"# listed), their resources and their clusters; writeMagpie writes" \
	"# report.txt, report.json and report.html into outdir." \
	"" \
	[list source [file normalize [dict get $opts -schema]]] \
	[list set outdir [dict get $opts -outdir]] \
	[list set reportOptions [dict create -top [dict get $opts -top] \
	    -label [dict get $opts -label]]] \
	"set requests \[Flow requests \[MagpieParserAnalyzer -schema [list $name] -keep $eventRequests $label\]\]" \
	"head \$requests" \
	[runLine $ro] \
	"rubicon::tracereport::writeMagpie \$summary \$requests \$outdir \$reportOptions"] \n
}

# tracereport::magpieFigures summary flow options -- every figure of a
# Magpie report, as a dict.
proc ::rubicon::tracereport::magpieFigures {summary flow options} {
    variable eventRequests
    set table [$flow get Requests]
    set cols [dict get $table columns]
    foreach c {machine label latency cpu diskOps diskBytes netBytes cluster} {
	set at($c) [lsearch -exact $cols $c]
    }
    set byLabel [expr {[dict get $options -label] ne ""}]
    set latencies {}
    set use {}
    foreach r [dict get $table rows] {
	set machine [lindex $r $at(machine)]
	set type [expr {$byLabel ? [lindex $r $at(label)]
	    : "cluster [expr {int([lindex $r $at(cluster)])}]"}]
	set k [list $machine $type]
	dict lappend latencies $k [lindex $r $at(latency)]
	foreach c {cpu diskOps diskBytes netBytes} {
	    dict set use $k $c [expr {[get [get $use $k {}] $c 0.0] + [lindex $r $at($c)]}]
	}
	dict set use $k n [expr {[get [get $use $k {}] n] + 1}]
    }
    # durationRows wants {machine {type latencies}}.
    set dur {}
    dict for {k l} $latencies {dict set dur {*}$k $l}
    set demand [lsort -real -decreasing -index 3 [lmap {k v} $use {
	set n [dict get $v n]
	list {*}$k $n [expr {[dict get $v cpu] / $n}] \
	    [expr {[dict get $v diskOps] / $n}] [expr {[dict get $v diskBytes] / $n}] \
	    [expr {[dict get $v netBytes] / $n}]
    }]]
    set ccols [dict get [$flow get Clusters] columns]
    set clusters [lmap r [rowsOf $flow Clusters] {
	set row {}
	foreach c {cluster size fraction contents cpu diskBytes netBytes representative} {
	    lappend row [lindex $r [lsearch -exact $ccols $c]]
	}
	lset row 0 [expr {int([lindex $row 0])}]
	lset row 1 [expr {int([lindex $row 1])}]
	set row
    }]
    dict create kind magpie \
	traces [lmap f [dict get $summary files] {
	    dict create path [lindex $f 0] format [lindex $f 1]
	}] \
	options [dict create top [dict get $options -top] \
	    label [dict get $options -label]] \
	overview [dict create events [dict get $summary records] \
	    skipped [dict get $summary skipped] \
	    span [expr {[dict get $summary records]
		? [dict get $summary last] - [dict get $summary first] : 0}] \
	    from [when $summary [dict get $summary first]] \
	    to [when $summary [dict get $summary last]] \
	    requests [expr {int([$flow get RequestCount])}] \
	    listed [llength [dict get $table rows]] listLimit $eventRequests \
	    clusters [expr {int([$flow get ClusterCount])}] \
	    machines [dict size $dur] \
	    busyCpu [$flow get BusyCpu] \
	    cpuAccounted [$flow get CpuAccountedFraction] \
	    incompleteSets [expr {int([$flow get IncompleteSets])}] \
	    unknownEvents [expr {int([$flow get UnknownEvents])}]] \
	requests [durationRows $dur] demand $demand clusters $clusters
}

# tracereport::magpieText f -- report.txt of a Magpie report.
proc ::rubicon::tracereport::magpieText {f} {
    set top [dict get $f options top]
    set ov [dict get $f overview]
    set lines [eventHeadLines $f]
    set listed [expr {[dict get $ov listed] < [dict get $ov requests]
	? " (the first [dict get $ov listed] in the figures below)" : ""}]
    lappend lines "events    [dict get $ov events] read, [dict get $ov skipped]\
	skipped, [dict get $ov unknownEvents] of undeclared types;\
	[dict get $ov requests] requests$listed in [dict get $ov clusters]\
	clusters on [dict get $ov machines] machines;\
	[dict get $ov incompleteSets] incomplete event sets" \
	[format "cpu       %.6f s busy, %.1f%% of it accounted to requests" \
	    [dict get $ov busyCpu] [expr {100 * [dict get $ov cpuAccounted]}]]
    set by [expr {[dict get $f options label] ne ""
	? "by [dict get $f options label]" : "by cluster"}]
    lappend lines "" {*}[durationLines "Request type ($by)" [dict get $f requests] $top]
    lappend lines "" [format "%-40s %7s %9s %8s %11s %11s" \
	"Demand per request ($by)" count cpu_ms diskOps diskBytes netBytes]
    foreach r [lrange [dict get $f demand] 0 [expr {$top - 1}]] {
	lassign $r m type n cpu ops disk net
	lappend lines [format "%-40s %7d %9.3f %8.2f %11.0f %11.0f" \
	    [string range [printable "$m: $type"] 0 39] $n [expr {$cpu * 1e3}] \
	    $ops $disk $net]
    }
    lappend lines "" [format "%-8s %6s %7s %9s %11s %11s  %s" Cluster size share \
	cpu_ms diskBytes netBytes contents]
    foreach r [lrange [dict get $f clusters] 0 [expr {$top - 1}]] {
	lassign $r c n share contents cpu disk net
	lappend lines [format "%-8d %6d %6.1f%% %9.3f %11.0f %11.0f  %s" $c $n \
	    [expr {100 * $share}] [expr {$cpu * 1e3}] $disk $net \
	    [string range [printable $contents] 0 40]]
    }
    lappend lines "" \
	"Requests: Magpie's, joined from the events by the schema (Magpie(n));" \
	"latency from the seed event to the end event, percentiles by nearest" \
	"rank; demand: the mean CPU, disk and network per request of a type." \
	"A request's events on other machines are joined into it, so its" \
	"path through services is its cluster's representative form (report.json)."
    join $lines \n
}

# tracereport::magpieJson f -- report.json of a Magpie report.
proc ::rubicon::tracereport::magpieJson {f} {
    eventJson $f magpie {} {
	requests {machine type count mean p50 p90 p99 max}
	demand {machine type requests cpu diskOps diskBytes netBytes}
	clusters {cluster size fraction contents cpu diskBytes netBytes representative}
    }
}

# tracereport::magpieHtml f -- report.html of a Magpie report.
proc ::rubicon::tracereport::magpieHtml {f} {
    set top [dict get $f options top]
    set out [eventHtmlHead "Rubicon Magpie report" "Requests" [magpieText $f]]
    append out [durationBars "requests by type" "p99 latency by type (ms)" \
	[dict get $f requests] [dict get $f requests] $top] "</section>\n"
    append out "<section id=\"demand\"><h2>Demand per request</h2>" \
	[svgBars "CPU per request (ms)" [lmap r [lrange [dict get $f demand] 0 [expr {$top - 1}]] {
	    list "[lindex $r 0]: [lindex $r 1]" [expr {[lindex $r 3] * 1e3}]
	}]] "</section>\n"
    append out "<section id=\"clusters\"><h2>Clusters</h2>" \
	[svgBars "requests per cluster" [lmap r [lrange [dict get $f clusters] 0 [expr {$top - 1}]] {
	    list "cluster [lindex $r 0]" [lindex $r 1]
	}]] "</section>\n</body></html>\n"
}

# tracereport::writeMagpie summary flow outdir options -- writes the
# three reports (rank 0) and prints report.txt.
proc ::rubicon::tracereport::writeMagpie {summary flow outdir options} {
    if {[::rubicon::mpi rank] != 0} return
    writeEvents $outdir [magpieFigures $summary $flow $options] magpie
}
