# report.tcl --
#
#	"rubicon info" and "rubicon report": a first look at a block-I/O
#	trace without a configuration.  info runs one small DAG over each
#	trace and says what is in it; report writes a configuration
#	(report.tcl, the DAG it runs), runs it, and turns its Flows into
#	report.txt (iostat -x shaped), report.json and report.html.  See
#	rubicon-report(n).

namespace eval ::rubicon::tracereport {
    # The I/O fields info looks for, and what their absence means.
    variable fieldMeaning {
	startTime {no service start times: utilization, service time and
	    queue time are not available}
	finishTime {no completion times: await (response time), queue depth
	    and utilization are not available}
	queueLen {no queue length seen at enqueue}
	op {no operation: reads and writes cannot be told apart}
	size {no request sizes: bandwidth and sizes are not available}
	deviceNo {no device numbers: one device}
	devOffset {no offsets: sequentiality, footprint, reuse, cache and
	    popularity are not available}
	lvNo {no logical volumes: no per-volume table}
	lvOffset {no logical volume offsets}
	pid {no process ids: no per-process table}
	thread {no thread ids}
	machine {no machine ids}
    }
    # Most keys a per-key table holds (-limit of its Analyzers).
    variable keyLimit 100000
    # Most blocks the LRU curve and the popularity ranking hold
    # (-samplesize of ReuseDistanceAnalyzer and PopularityAnalyzer): exact
    # up to this many distinct blocks (1 GiB of 4 KiB blocks), a
    # fixed-size sample of them beyond.
    variable sampleSize 262144
    # The FIFO and S3-FIFO cache sizes: fractions of the distinct blocks.
    variable cacheFractions {0.001 0.01 0.1}
    # Most cells of each offset-by-time heat map (HeatmapAnalyzer
    # -maxcells): past it the bins widen.
    variable heatCells 16384
    # -sample auto: inputs of fewer bytes than this (or read from a pipe)
    # get no block sample; larger ones get one sized by a first pass that
    # counts their distinct blocks in a 1-in-autoProbe sample of their
    # extents of autoExtent blocks.  The first pass reads autoSkim (count
    # and fraction of the bytes, rubicon::run -skim) of traces that can be
    # cut in byte ranges, and half as much again, and extrapolates; {}:
    # it reads everything.
    variable autoBytes [expr {64 << 20}]
    variable autoProbe 64
    variable autoExtent 16
    variable autoSkim {16 0.0625}
}
if {![info exists ::rubicon::runOptions]} {
    set ::rubicon::runOptions {}
}

# ---- JSON text ------------------------------------------------------------

# tracereport::jstr s, jnum v -- s as a JSON string; v as a JSON number,
# null when it is not a finite number (NaN, Inf, empty): commands in C
# (reporters/traceReport.c), with jval and jrows.

# tracereport::jobj {key encoded ...} -- a JSON object of encoded values.
proc ::rubicon::tracereport::jobj {pairs} {
    set parts {}
    foreach {k v} $pairs {lappend parts "[jstr $k]: $v"}
    return "{[join $parts {, }]}"
}

# tracereport::jarr list -- a JSON array of encoded values.
proc ::rubicon::tracereport::jarr {items} {
    return "\[[join $items {, }]\]"
}

# tracereport::jval v -- a Tcl value as JSON: a number, or a string.
# tracereport::jrows rows -- a list of row lists as a JSON array of arrays,
# each value as jval gives it.  Both in C (reporters/traceReport.c), with
# jstr and jnum, so that a value alone and in a row are written alike.

# ---- Small helpers --------------------------------------------------------

# tracereport::compression path -- the compression of a trace file from its
# first bytes: gzip, bzip2, zstd or none ("unknown" for standard input).
proc ::rubicon::tracereport::compression {path} {
    if {$path eq "-"} {return unknown}
    set ch [open $path rb]
    set head [read $ch 4]
    close $ch
    binary scan $head H* hex
    switch -glob -- $hex {
	1f8b* {return gzip}
	425a68* {return bzip2}
	28b52ffd {return zstd}
	default {return none}
    }
}

# tracereport::devName format dev -- a device number as users of the
# format know it: "major,minor" for Linux traces (major << 20 | minor),
# "major/0xminor" for HP-UX SRT (8-bit major, 24-bit minor), else the number.
proc ::rubicon::tracereport::devName {format dev} {
    if {![string is wide -strict $dev]} {return $dev}
    switch -- $format {
	blkparse - blktrace - blktracer - blockevents - ftrace {
	    return "[expr {$dev >> 20}],[expr {$dev & 0xfffff}]"
	}
	srt {
	    return [format "%d/0x%06x" [expr {$dev >> 24}] [expr {$dev & 0xffffff}]]
	}
    }
    return $dev
}

# tracereport::bytes n -- n bytes in B, KiB, MiB, GiB.
proc ::rubicon::tracereport::bytes {n} {
    if {![string is double -strict $n]} {return -}
    foreach {unit div} {GiB 1073741824 MiB 1048576 KiB 1024} {
	if {abs($n) >= $div} {
	    return [format "%.1f %s" [expr {double($n) / $div}] $unit]
	}
    }
    return [format "%.0f B" $n]
}

# tracereport::when summary t -- a trace time (seconds from the epoch) as a
# UTC date when the trace has an epoch, else as seconds.
proc ::rubicon::tracereport::when {summary t} {
    set epoch [dict get $summary epoch]
    if {$epoch == 0} {return [format "%.6f s" $t]}
    set abs [expr {$epoch + $t}]
    set s [expr {int(floor($abs))}]
    return "[clock format $s -format {%Y-%m-%d %H:%M:%S} -gmt 1][string range \
	[format %.6f [expr {$abs - $s}]] 1 end] UTC"
}

# tracereport::rowsOf flow attr -- the rows of an Attribute ({} if unset).
proc ::rubicon::tracereport::rowsOf {flow attr} {
    if {$attr ni [$flow attributes]} {return {}}
    dict get [$flow get $attr] rows
}

# tracereport::get dict key ?default? -- dict value or default.
proc ::rubicon::tracereport::get {d key {default 0}} {
    if {[dict exists $d $key]} {return [dict get $d $key]}
    return $default
}

# tracereport::scalar flow attr -- a scalar Attribute, or "" when unset.
proc ::rubicon::tracereport::scalar {flow attr} {
    if {$attr ni [$flow attributes]} {return ""}
    $flow get $attr
}

# ---- rubicon info ---------------------------------------------------------

# rubicon::traceInfo ?-json? ?-format F? ?-readeroptions D? trace ... --
# one pass over each trace; returns the text (or JSON) of what it holds.
# The run replaces the DAG (rubicon::reset).
proc ::rubicon::traceInfo {args} {
    set json 0
    set runOpts {-onerror skip -progress 0}
    while {[string match -?* [lindex $args 0]]} {
	set args [lassign $args opt]
	switch -- $opt {
	    -json {set json 1}
	    -format - -readeroptions {
		set args [lassign $args val]
		lappend runOpts $opt $val
	    }
	    -quiet {}
	    default {
		return -code error -errorcode USAGE \
		    "usage: rubicon info ?-json? ?-format F? ?-readeroptions D? trace ..."
	    }
	}
    }
    if {![llength $args]} {
	return -code error -errorcode USAGE \
	    "usage: rubicon info ?-json? ?-format F? ?-readeroptions D? trace ..."
    }
    set facts {}
    foreach trace $args {
	lappend facts [tracereport::infoFacts $trace $runOpts]
    }
    if {$json} {
	if {[llength $facts] == 1} {return [tracereport::infoJson [lindex $facts 0]]}
	return [tracereport::jarr [lmap f $facts {tracereport::infoJson $f}]]
    }
    join [lmap f $facts {tracereport::infoText $f}] \n\n
}

# tracereport::infoFacts trace runOpts -- runs the info DAG over one trace;
# returns a dict of its facts.
proc ::rubicon::tracereport::infoFacts {trace runOpts} {
    variable fieldMeaning
    if {$trace ne "-" && ![file readable $trace]} {
	return -code error -errorcode {RUBICON RUN OPEN} \
	    "cannot read trace \"$trace\""
    }
    ::rubicon::reset
    set analyzers [list \
	[TopKAnalyzer -field deviceNo -k 10 -limit $::rubicon::tracereport::keyLimit] \
	[ReadFractionAnalyzer] [SizeAnalyzer]]
    foreach field [dict keys $fieldMeaning] {
	lappend analyzers [FieldStatsAnalyzer -field $field -prefix F$field]
    }
    set flow [Flow info {*}$analyzers]
    head $flow
    if {[catch {::rubicon::run {*}$runOpts $trace} summary opts]} {
	set code [dict get $opts -errorcode]
	if {$trace eq "-" || [lrange $code 0 1] ne {RUBICON ANALYZER}
		|| [lindex $code 2] ni {SCHEMA FIELD}} {
	    return -options $opts $summary
	}
	# Not block I/O: an event trace (Magpie, Stardust, Zipkin spans).
	return [eventFacts $trace $runOpts]
    }
    set format [lindex [dict get $summary files] 0 1]
    set records [dict get $summary records]
    set devices {}
    foreach r [rowsOf $flow TopKByRequests] {
	lassign $r key n bytes
	lappend devices [list [devName $format $key] $n $bytes]
    }
    set inTop 0
    foreach d $devices {incr inTop [lindex $d 1]}
    set has {}
    set lacks {}
    foreach {field meaning} $fieldMeaning {
	if {[scalar $flow F${field}FieldCount] > 0} {
	    lappend has $field
	} else {
	    lappend lacks $field [regsub -all {\s+} $meaning { }]
	}
    }
    set reads [scalar $flow Reads]
    set writes [scalar $flow Writes]
    set first [dict get $summary first]
    set last [dict get $summary last]
    dict create trace $trace format $format \
	compression [compression $trace] records $records \
	skipped [dict get $summary skipped] \
	skipcounts [dict get $summary skipcounts] \
	epoch [dict get $summary epoch] first $first last $last \
	span [expr {$records ? $last - $first : 0}] \
	from [when $summary $first] to [when $summary $last] \
	devices $devices deviceCount [scalar $flow Keys] \
	otherIos [expr {[scalar $flow FdeviceNoFieldCount] - $inTop}] \
	reads $reads writes $writes \
	otherOps [expr {$records - $reads - $writes}] \
	minSize [scalar $flow MinSize] maxSize [scalar $flow MaxSize] \
	meanSize [scalar $flow MeanSize] has $has lacks $lacks
}

# tracereport::eventFacts trace runOpts -- the facts of a trace whose
# records are events, not I/Os: format, records, span and the schema.
proc ::rubicon::tracereport::eventFacts {trace runOpts} {
    ::rubicon::reset
    head [Flow info [RateAnalyzer]]
    set summary [::rubicon::run {*}$runOpts $trace]
    set records [dict get $summary records]
    set first [dict get $summary first]
    set last [dict get $summary last]
    dict create trace $trace format [lindex [dict get $summary files] 0 1] \
	compression [compression $trace] records $records \
	skipped [dict get $summary skipped] \
	skipcounts [dict get $summary skipcounts] \
	epoch [dict get $summary epoch] first $first last $last \
	span [expr {$records ? $last - $first : 0}] \
	from [when $summary $first] to [when $summary $last] events 1
}

# tracereport::infoText facts -- the facts as lines of text.
proc ::rubicon::tracereport::infoText {f} {
    if {[dict exists $f events]} {
	dict with f {}
	set lines [list "trace        $trace" \
	    "format       $format (sniffed), compression $compression" \
	    "records      $records events read, $skipped malformed and skipped"]
	if {$records} {
	    lappend lines [format "span         %.6f s: %s to %s" $span $from $to]
	}
	lappend lines "kind         events, not block I/O: no devices, sizes or\
	    operations; rubicon report gives the requests and demand of span\
	    files, Stardust records and Magpie logs (with -schema FILE)"
	return [join $lines \n]
    }
    dict with f {}
    set lines [list "trace        $trace" \
	"format       $format (sniffed), compression $compression"]
    set line "records      $records read, $skipped malformed and skipped"
    if {[llength $skipcounts]} {
	append line "; counted apart: " \
	    [join [lmap {k n} $skipcounts {list $n $k}] {, }]
    }
    lappend lines $line
    if {$records} {
	lappend lines [format "span         %.6f s: %s to %s" $span $from $to]
    }
    set devs [lmap d $devices {
	lassign $d name n
	format "%s (%d)" $name $n
    }]
    set line "devices      [expr {$deviceCount eq {} ? 0 : $deviceCount}]"
    if {[llength $devs]} {append line ": " [join $devs {, }]}
    if {$otherIos > 0} {
	append line ", and $otherIos I/Os on the other\
	    [expr {$deviceCount - [llength $devices]}]"
    }
    lappend lines $line
    if {$records} {
	lappend lines [format "operations   %d reads (%.1f%%), %d writes (%.1f%%), %d other" \
	    $reads [expr {100.0 * $reads / $records}] \
	    $writes [expr {100.0 * $writes / $records}] $otherOps]
    }
    if {$minSize ne ""} {
	lappend lines "sizes        [bytes $minSize] to [bytes $maxSize],\
	    mean [bytes $meanSize]"
    }
    lappend lines "fields       [join $has {, }]"
    foreach {field meaning} $lacks {
	lappend lines "lacks        $field: $meaning"
    }
    join $lines \n
}

# tracereport::infoJson facts -- the facts as a JSON object.
proc ::rubicon::tracereport::infoJson {f} {
    if {[dict exists $f events]} {
	set pairs [list kind [jstr events]]
	foreach k {trace format compression from to} {
	    lappend pairs $k [jstr [dict get $f $k]]
	}
	foreach k {records skipped epoch first last span} {
	    lappend pairs $k [jnum [dict get $f $k]]
	}
	return [jobj $pairs]
    }
    set pairs {}
    foreach k {trace format compression} {
	lappend pairs $k [jstr [dict get $f $k]]
    }
    foreach k {records skipped epoch first last span} {
	lappend pairs $k [jnum [dict get $f $k]]
    }
    set sc {}
    foreach {k n} [dict get $f skipcounts] {lappend sc $k [jnum $n]}
    lappend pairs skipcounts [jobj $sc] \
	from [jstr [dict get $f from]] to [jstr [dict get $f to]] \
	deviceCount [jnum [dict get $f deviceCount]] \
	devices [jarr [lmap d [dict get $f devices] {
	    lassign $d name n bytes
	    jobj [list name [jstr $name] ios [jnum $n] bytes [jnum $bytes]]
	}]] otherIos [jnum [dict get $f otherIos]]
    foreach k {reads writes otherOps minSize maxSize meanSize} {
	lappend pairs $k [jnum [dict get $f $k]]
    }
    lappend pairs has [jarr [lmap h [dict get $f has] {jstr $h}]] \
	lacks [jobj [concat {*}[lmap {k m} [dict get $f lacks] {
	    list $k [jstr $m]
	}]]]
    jobj $pairs
}

# tracereport::sniff path -- the format Rubicon reads path as, from its
# first batch of records; "" when it is not a trace Rubicon reads.  The
# DAG is replaced (rubicon::reset).
proc ::rubicon::tracereport::sniff {path} {
    ::rubicon::reset
    head [Flow sniff]
    set code [catch {::rubicon::run -progress 0 -onerror stop \
	-progresscommand ::rubicon::cancel $path} summary]
    ::rubicon::reset
    if {$code || [dict get $summary records] == 0} {return ""}
    lindex [dict get $summary files] 0 1
}

# tracereport::notScript path failed -- called before a configuration
# script is sourced (failed 0) and after sourcing failed on an unknown
# command (failed 1): when path is a trace Rubicon can read (before
# sourcing, only a compressed or binary file is tried), prints a hint to
# run "rubicon report" on it and exits with status 2.
proc ::rubicon::tracereport::notScript {path failed} {
    if {!$failed} {
	set ch [open $path rb]
	set head [read $ch 4096]
	close $ch
	if {[compression $path] eq "none" && [string first \0 $head] < 0} {
	    return
	}
    }
    set what [traceName $path]
    if {$what eq ""} {return}
    puts stderr "rubicon: [file tail $path] looks like $what,\
	not a configuration script; to characterize it run:\
	rubicon report [list $path]"
    exit 2
}

# tracereport::runLine runOptions -- report.tcl's line that runs the
# DAG: rubicon::run with the report's run options (-format, -onerror,
# -readeroptions ...), then the program's, over the traces given.
proc ::rubicon::tracereport::runLine {runOptions} {
    set run {set summary [rubicon::run}
    foreach {k v} $runOptions {
	append run " " [list $k $v]
    }
    append run { {*}$rubicon::runOptions {*}$argv]}
}

# tracereport::headBytes path n -- the first n bytes of path, through
# gzip if it is so compressed ("" when it cannot be read).
proc ::rubicon::tracereport::headBytes {path n} {
    set ch [open $path rb]
    try {
	if {[compression $path] eq "gzip"} {zlib push gunzip $ch}
	return [read $ch $n]
    } on error {} {
	return ""
    } finally {
	close $ch
    }
}

# tracereport::spanKind path -- zipkin or otlp when path (plain or gzip)
# opens as a Zipkin v2 or OTLP JSON span file, else "".  It reads the
# first 64 KiB only and runs nothing: a run here would be the process's
# first, which under mpirun is the one split over the ranks.
proc ::rubicon::tracereport::spanKind {path} {
    set head [headBytes $path 65536]
    if {[regexp {^\s*\{\s*"resourceSpans"} $head]} {return otlp}
    if {[regexp {^\s*\[\s*[\[\{]} $head] && [string first "\"traceId\"" $head] >= 0} {
	return zipkin
    }
    return ""
}

# tracereport::traceName path -- "an SRT trace" when the file's content
# (decompressed) is a trace Rubicon reads, else "".
proc ::rubicon::tracereport::traceName {path} {
    set format [sniff $path]
    if {$format eq ""} {return ""}
    set names {msr MSR srt SRT spc SPC disksim DiskSim csv CSV
	native {Rubicon native} chrome {Chrome trace-event}}
    set name [get $names $format $format]
    set article [expr {[string match -nocase {[aeiou]*} $name]
	|| $name in {MSR SRT SPC} ? "an" : "a"}]
    return "$article $name trace"
}

# ---- rubicon report -------------------------------------------------------

# tracereport::main argList -- "rubicon report ?options? trace ...":
# writes OUTDIR/report.tcl, the configuration of the report, and runs it
# as "rubicon report.tcl trace ..." would.
proc ::rubicon::tracereport::main {argList} {
    set usage "usage: rubicon report ?-by device|volume|pid|op|none?\
	?-interval SECONDS? ?-top N? ?-sample N|auto? ?-threads N? ?-live SECONDS?\
	?-format F? ?-readeroptions DICT? ?-schema FILE ?-schemaname N?\
	?-label ATTR??\
	?-onerror stop|skip|warn? ?-quiet? ?-outdir DIR? trace ..."
    set opts {-by device -interval 10 -top 10 -outdir rubicon-report
	-quiet 0 -runoptions {} -sample auto -threads 0 -live 0 -schema "" -schemaname ""
	-label ""}
    set args $argList
    while {[string match -?* [lindex $args 0]]} {
	set args [lassign $args opt]
	if {$opt eq "-quiet"} {
	    dict set opts -quiet 1
	    continue
	}
	if {![llength $args]} {
	    return -code error -errorcode USAGE "$opt wants a value; $usage"
	}
	set args [lassign $args val]
	switch -- $opt {
	    -by {
		if {$val ni {device volume pid op none}} {
		    return -code error -errorcode USAGE \
			"bad -by \"$val\": must be device, volume, pid, op or none"
		}
		dict set opts -by $val
	    }
	    -interval {
		if {![string is double -strict $val] || $val <= 0} {
		    return -code error -errorcode USAGE \
			"-interval wants seconds > 0, not \"$val\""
		}
		dict set opts -interval $val
	    }
	    -top - -sample {
		if {$opt eq "-sample" && $val eq "auto"} {
		    dict set opts -sample auto
		    continue
		}
		if {![string is integer -strict $val] || $val < 1} {
		    return -code error -errorcode USAGE \
			"$opt wants an integer >= 1[expr {$opt eq "-sample"
			? " or auto" : ""}], not \"$val\""
		}
		dict set opts $opt $val
	    }
	    -threads {
		if {![string is integer -strict $val] || $val < 0} {
		    return -code error -errorcode USAGE \
			"-threads wants an integer >= 0 (0: one per CPU), not \"$val\""
		}
		dict set opts -threads $val
	    }
	    -live {
		if {![string is double -strict $val] || $val <= 0} {
		    return -code error -errorcode USAGE \
			"-live wants seconds > 0, not \"$val\""
		}
		dict set opts -live $val
	    }
	    -outdir - -label - -schemaname {dict set opts $opt $val}
	    -schema {
		if {![file readable $val]} {
		    return -code error -errorcode USAGE \
			"-schema wants a readable schema file (a Tcl script\
			calling magpie::schema), not \"$val\""
		}
		dict set opts -schema $val
	    }
	    -format - -readeroptions - -onerror {
		dict lappend opts -runoptions $opt $val
	    }
	    default {return -code error -errorcode USAGE $usage}
	}
    }
    if {![llength $args]} {
	return -code error -errorcode USAGE $usage
    }
    foreach t $args {
	if {$t ne "-" && ![file readable $t]} {
	    return -code error -errorcode {RUBICON RUN OPEN} \
		"cannot read trace \"$t\""
	}
    }
    set outdir [dict get $opts -outdir]
    set t0 [lindex $args 0]
    set spanFormat [expr {$t0 eq "-" || [dict exists [dict get $opts -runoptions] -format]
	? "" : [spanKind $t0]}]
    if {$spanFormat in {zipkin otlp}} {
	foreach t $args {
	    if {$t eq "-"} {
		return -code error -errorcode USAGE "a span report reads\
		    files: save the spans from standard input to a file first"
	    }
	}
	file mkdir $outdir
	set script [file join $outdir report.tcl]
	writeFile $script [spanConfig $opts]
    } elseif {[dict get $opts -schema] ne ""} {
	if {[dict get $opts -schemaname] eq ""} {
	    dict set opts -schemaname [magpieSchemaName [dict get $opts -schema]]
	}
	file mkdir $outdir
	set script [file join $outdir report.tcl]
	writeFile $script [magpieConfig $opts]
    } elseif {$t0 ne "-" && [eventKind $t0 [dict get $opts -runoptions]] eq "stardust"} {
	file mkdir $outdir
	set script [file join $outdir report.tcl]
	writeFile $script [stardustConfig $opts]
    } else {
	if {[dict get $opts -sample] eq "auto"} {
	    dict set opts -sample [autoSample $args $opts]
	}
	file mkdir $outdir
	set script [file join $outdir report.tcl]
	writeFile $script [config $opts]
    }
    set ::argv $args
    set ::argc [llength $args]
    # Threads: one per CPU by default, but one per rank of a split run
    # (its ranks share the machine's CPUs).
    set threads [dict get $opts -threads]
    if {$threads == 0 && [::rubicon::mpi size] > 1} {
	set threads 1
    }
    set ::rubicon::runOptions [concat [expr {[dict get $opts -quiet]
	? {-progress 0} : {}}] [list -threads $threads]]
    set ::rubicon::tracereport::quiet [dict get $opts -quiet]
    ::rubicon::reset
    if {[catch {::rubicon::sourceConfig $script} msg opts]} {
	set code [dict get $opts -errorcode]
	if {[lrange $code 0 1] in {{RUBICON ANALYZER} {RUBICON FILTER}}
		&& [lindex $code 2] in {SCHEMA FIELD}
		&& [regexp {schema "([^"]+)"|known fields: time, } $msg]} {
	    return -code error -errorcode {RUBICON REPORT EVENTS} \
		"[join $args {, }]: events, not block I/O: rubicon report\
		characterizes block-I/O traces, Zipkin or OTLP span files and\
		Stardust activity records, and Magpie logs given their event\
		schema, -schema FILE (rubicon info describes any trace)"
	}
	return -options [dict incr opts -level] $msg
    }
}

# tracereport::autoSample traces opts -- the N of "-sample auto": 1 (no
# block sample) for standard input, a pipe, a run split over MPI ranks (whose
# ranks could not agree on an estimate before the run) or inputs smaller
# than autoBytes.  Else a first pass over the traces estimates their
# distinct 4 KiB blocks D (skimBlocks, or probeBlocks where the traces
# cannot be cut), and N is the largest power of two with D / N >= 2
# sampleSize: the per-block Analyzers' own fixed-size samples (sampleSize
# blocks) are then drawn from at least twice as many.
proc ::rubicon::tracereport::autoSample {traces opts} {
    variable autoBytes
    variable sampleSize
    if {[::rubicon::mpi split]} {return 1}
    set bytes 0
    foreach t $traces {
	if {$t eq "-" || ![file isfile $t]} {return 1}
	incr bytes [file size $t]
    }
    if {$bytes < $autoBytes} {return 1}
    set d [skimBlocks $traces $opts]
    if {$d eq ""} {
	if {![dict get $opts -quiet]} {
	    puts stderr "rubicon report: a first pass counts the distinct\
		blocks to size the block sample (-sample N sets it)"
	}
	set d [probeBlocks $traces $opts]
    }
    set n 1
    while {$d / (2.0 * $n) >= 2 * $sampleSize} {
	set n [expr {2 * $n}]
    }
    return $n
}

# tracereport::probeBlocks traces opts -- the first pass of "-sample
# auto": an estimate of the distinct 4 KiB blocks the traces touch.  Of
# their extents of autoExtent blocks it keeps 1 in autoProbe by hash
# (SampleTransformer -blocksize), the parts of I/Os on them, and counts
# the distinct blocks in those (FootprintAnalyzer): a block is counted
# exactly when its extent is kept, 1 time in autoProbe, so autoProbe
# times the count estimates them all, with a hash an extent rather than
# a block (the pass costs little more than the read).  skim: the byte
# ranges read (rubicon::run -skim); {}: all of the traces.
proc ::rubicon::tracereport::probeBlocks {traces opts {skim {}}} {
    variable autoProbe
    variable autoExtent
    ::rubicon::reset
    set probe [::rubicon::Flow probe [::rubicon::FootprintAnalyzer -limit 65536]]
    # Under a Mux, the sample runs on a thread of its own while the run's
    # thread reads (rubicon::run -threads).
    ::rubicon::head [::rubicon::Mux [::rubicon::SampleTransformer \
	-blocksize [expr {4096 * $autoExtent}] -every $autoProbe $probe]]
    # Malformed records are warned of in the report's own pass, not twice.
    set runOpts [dict get $opts -runoptions]
    if {[dict exists $runOpts -onerror]
	    && [dict get $runOpts -onerror] eq "warn"} {
	dict set runOpts -onerror skip
    }
    set code [catch {
	::rubicon::run {*}$runOpts -threads [dict get $opts -threads] \
	    {*}[expr {[dict get $opts -quiet] ? {-progress 0} : {}}] \
	    -skim $skim {*}$traces
	set d [expr {[$probe get Footprint] * $autoProbe}]
    } msg ropts]
    ::rubicon::reset
    if {$code} {return -options $ropts $msg}
    return $d
}

# tracereport::skimBlocks traces opts -- the first pass of "-sample auto"
# on a part of the traces: probeBlocks over the autoSkim byte ranges
# (count C, fraction F; rubicon::run -skim) gives D1, over every other
# one of them (C / 2 ranges, F / 2) D2; D1 (1 / F)^b, with b = log2(D1
# / D2) held to [0, 1], estimates the distinct blocks of the whole: they
# grow with the bytes read as (bytes)^b, as b in [0, 1] spans a working
# set read again and again (b 0) and blocks never read twice (b 1).
# Empty when autoSkim is {} or a trace cannot be cut in byte ranges
# (compressed text, blkparse text and the like: RUBICON RUN NOSKIM).
proc ::rubicon::tracereport::skimBlocks {traces opts} {
    variable autoSkim
    if {![llength $autoSkim]} {return ""}
    lassign $autoSkim count fraction
    if {![dict get $opts -quiet]} {
	puts stderr "rubicon report: a first look at [format %.3g\
	    [expr {100.0 * $fraction}]]% of the trace estimates its distinct\
	    blocks to size the block sample (-sample N sets it)"
    }
    if {[catch {probeBlocks $traces $opts $autoSkim} d1 ropts]} {
	if {[lrange [dict get $ropts -errorcode] 0 2] eq {RUBICON RUN NOSKIM}} {
	    return ""
	}
	return -options $ropts $d1
    }
    if {$count < 2} {
	return $d1
    }
    set d2 [probeBlocks $traces $opts \
	[list [expr {$count / 2}] [expr {$fraction / 2}]]]
    if {$d2 <= 0 || $d1 <= $d2} {
	return $d1
    }
    set b [expr {min(1.0, log(double($d1) / $d2) / log(2))}]
    expr {$d1 * pow(1.0 / $fraction, $b)}
}

# tracereport::liveRows from to rows -- a LiveAnalyzer's -command: prints
# one interval's rows (key, IO/s, MB/s, read share, await mean and p99 in
# ms, queue depth) on stdout as they come.
proc ::rubicon::tracereport::liveRows {from to rows} {
    set len [expr {$to - $from}]
    set out [list [format "interval %.6g-%.6g s %9s %8s %6s %8s %8s %7s" \
	$from $to IO/s MB/s %read await aw99 aqu-sz]]
    foreach r $rows {
	lassign $r key ios reads bytes mean p99 depth
	lappend out [format "  %-24s %9.2f %8.2f %6.1f %8s %8s %7s" $key \
	    [expr {$ios / $len}] [expr {$bytes / $len / 1048576.0}] \
	    [expr {100.0 * $reads / $ios}] [cell [scaled $mean 1e3] %.3f] \
	    [cell [scaled $p99 1e3] %.3f] [cell $depth %.3f]]
    }
    puts [join $out \n]
    flush stdout
}

# tracereport::writeFile path text -- writes text to path through a
# temporary file renamed into place.
proc ::rubicon::tracereport::writeFile {path text} {
    set tmp $path.tmp-[pid]
    set ch [open $tmp w]
    fconfigure $ch -encoding utf-8
    puts -nonewline $ch $text
    close $ch
    file rename -force $tmp $path
}

# tracereport::keyField by -- the I/O field a -by value groups by ("" for
# none).
proc ::rubicon::tracereport::keyField {by} {
    dict get {device deviceNo volume lvNo pid pid op op none ""} $by
}

# tracereport::config opts -- the text of report.tcl: a configuration
# that builds the report's DAG, runs it over its ::argv and writes the
# report (tracereport::write).
proc ::rubicon::tracereport::config {opts} {
    variable keyLimit
    variable sampleSize
    variable cacheFractions
    variable heatCells
    set by [dict get $opts -by]
    set key [keyField $by]
    set iv [dict get $opts -interval]
    set sample [dict get $opts -sample]
    set by_ [expr {$key eq "" ? "" : " -by $key -limit $keyLimit"}]
    set lines [list \
	"# Rubicon configuration written by \"rubicon report\" (rubicon-report(n))." \
	"# Run: rubicon report.tcl TRACE...  It builds the DAG below, runs it" \
	"# over the traces, and writes report.txt, report.json and report.html" \
	"# into outdir from its Flows.  Change an Analyzer's options, add one" \
	"# (rubicon::types analyzer lists them), or add a Reporter, and run it again." \
	"" \
	[list set outdir [dict get $opts -outdir]] \
	[list set reportOptions [dict create -by $by -interval $iv \
	    -top [dict get $opts -top] -sample $sample]] \
	"" \
	"# The whole trace: overview, per-interval series, distributions," \
	"# burstiness." \
	"set total \[Flow total \\" \
	"    \[SeriesAnalyzer -interval $iv -stats {count rate bandwidth responseTime responseTimeP50 responseTimeP99}\] \\" \
	"    \[SizeAnalyzer\] \[ReadFractionAnalyzer\] \[ResponseTimeAnalyzer\] \\" \
	"    \[SizeHistogramAnalyzer\] \[QueueDepthAnalyzer\] \\" \
	"    \[HeatmapAnalyzer -x time -y devOffset -xwidth $iv -maxcells $heatCells\] \\" \
	"    \[HeatmapAnalyzer -key deviceNo -x time -y devOffset -xwidth $iv -maxcells $heatCells -prefix Device\] \\" \
	"    \[FieldHistogramAnalyzer -field responseTime -base 1000 -prefix Latency\] \\" \
	"    \[HurstAnalyzer\] \[PeakRateAnalyzer -windows {0.001 0.01 0.1 1 10}\] \\" \
	"    \[FieldStatsAnalyzer -field startTime -prefix StartTime\]\]" \
	"" \
	"# Per block: footprint (exact up to $sampleSize blocks, HyperLogLog beyond)," \
	"# popularity, read-after-write, LRU reuse distances (exact up to $sampleSize distinct blocks," \
	"# a fixed-size sample of that many blocks by hash beyond; exact in a" \
	"# run split over MPI ranks, as a sample cannot merge), FIFO and S3-FIFO" \
	"# caches of $cacheFractions of the distinct blocks (the same sample)[expr {$sample > 1 ? ", on 1 block in $sample by hash (SampleTransformer -blocksize)" : ""}]." \
	"# FIFO and S3-FIFO depend on the order of all accesses: a run split" \
	"# over MPI ranks cannot merge them and leaves them out." \
	"set cacheSims {}" \
	"if {!\[rubicon::mpi split\]} {" \
	"    lappend cacheSims \[CacheSimAnalyzer -policy {fifo s3fifo} -prefix Fifo \\" \
	"\t-sizes {$cacheFractions} -samplesize $sampleSize\]" \
	"}" \
	"set sampled \[expr {\[rubicon::mpi split\] ? {} : {-samplesize $sampleSize}}\]" \
	"set blocks \[Flow blocks \[FootprintAnalyzer -limit $sampleSize\] \[PopularityAnalyzer {*}\$sampled\] \\" \
	"    \[ReadAfterWriteAnalyzer {*}\$sampled\] \[ReuseDistanceAnalyzer {*}\$sampled\] \\" \
	"    {*}\$cacheSims\]" \
	"" \
	"# One row per [expr {$key eq {} ? {run} : $key}]: all I/Os (their mean response time, for the" \
	"# queue depth, without percentiles), then reads and writes apart." \
	"set keyed \[Flow keyed \\"]
    set keyedAnalyzers [list "\[RateAnalyzer$by_ -interval $iv\]" \
	"\[ResponseTimeAnalyzer$by_ -percentiles 0\]"]
    if {$by eq "device"} {
	lappend keyedAnalyzers \
	    "\[UtilizationAnalyzer -field deviceNo -limit $keyLimit\]" \
	    "\[SeqRunAnalyzer -field deviceNo -offsetField devOffset -limit $keyLimit\]"
    } elseif {$by eq "volume"} {
	lappend keyedAnalyzers \
	    "\[SeqRunAnalyzer -field lvNo -offsetField lvOffset -limit $keyLimit\]"
    }
    if {[dict get $opts -live] > 0} {
	lappend keyedAnalyzers "\[LiveAnalyzer -interval [dict get $opts -live]\
	    -field [expr {$key eq {} ? {deviceNo} : $key}]\
	    -command rubicon::tracereport::liveRows\]"
    }
    lappend lines "    [join $keyedAnalyzers " \\\n    "]\]"
    foreach op {reads writes} {
	lappend lines "set $op \[Flow $op \[RateAnalyzer$by_ -interval $iv\]\
	    \[BandwidthAnalyzer$by_ -interval $iv\] \[SizeAnalyzer$by_\]\
	    \[ResponseTimeAnalyzer$by_\]\]"
    }
    set branches {{[Filter read $reads]} {[Filter write $writes]} {$keyed} {$total}}
    set flowNames {total keyed reads writes blocks}
    if {$sample > 1} {
	lappend branches "\[SampleTransformer -blocksize 4096 -every $sample \$blocks\]" \
	    {$blockcount}
	lappend flowNames blockcount
	lappend lines "" \
	    "# Every block access, counted before the sample (BlockAccesses, a" \
	    "# sum per I/O): how many accesses the sample has against the 1 in" \
	    "# $sample expected, for SHARDS_adj." \
	    "set blockcount \[Flow blockcount \[SizeAnalyzer -block 4096\]\]"
    } else {
	lappend branches {$blocks}
    }
    foreach {name field} {processes pid volumes lvNo} {
	if {$field eq $key} continue
	lappend lines "" "# Per [expr {$field eq {pid} ? {process} : {logical volume}}]\
	    (shown where the trace has the field)." \
	    "set $name \[Flow $name \[RateAnalyzer -by $field -limit $keyLimit -interval 86400\]\
	    \[BandwidthAnalyzer -by $field -limit $keyLimit -interval 86400\]\
	    \[ReadFractionAnalyzer -by $field -limit $keyLimit\]\
	    \[ResponseTimeAnalyzer -by $field -limit $keyLimit\]\]"
	lappend branches "\$$name"
	lappend flowNames $name
    }
    lappend lines "" "head \[Mux [join $branches]\]" ""
    set ro [dict get $opts -runoptions]
    if {[dict get $opts -live] > 0} {
	# Small batches, so that rows come while a pipe is slow.
	set ro [linsert $ro 0 -batchsize 64]
    }
    lappend lines [runLine $ro] \
	"rubicon::tracereport::write \$summary \$outdir \$reportOptions \\" \
	"    \[dict create [join [lmap f $flowNames {string cat $f " \$" $f}]]\]"
    join $lines \n
}

# tracereport::adjusted ratio adj -- a hit ratio or top share of a block
# sample adjusted as SHARDS_adj adjusts (adj: the sample's block accesses
# over the expected; see figures), within [0, 1]; ratio as it is without
# adj or when it is not a number.
proc ::rubicon::tracereport::adjusted {ratio adj} {
    if {$adj eq "" || ![finite $ratio]} {return $ratio}
    expr {min(1.0, max(0.0, 1.0 - (1.0 - $ratio) * $adj))}
}

# tracereport::sampledRows n adj all rows -- {size bytes hits ratio} rows of
# a hit-ratio curve behind a 1-in-n block sample: sizes times n, the ratio
# adjusted, hits that ratio of all block accesses (without adj, the
# sample's hits times n).
proc ::rubicon::tracereport::sampledRows {n adj all rows} {
    if {$n == 1} {return $rows}
    lmap r $rows {
	lassign $r size bytes hits ratio
	set ratio [adjusted $ratio $adj]
	list [expr {$n * $size}] [expr {$n * $bytes}] \
	    [expr {$adj ne "" && [finite $ratio] ? round($ratio * $all)
		: [scaled $hits $n]}] $ratio
    }
}

# tracereport::perKey flow attr ?col? -- a per-key Attribute as a dict
# key -> value.  Without -by (key "all") a scalar is one key; from a
# percentile Attribute col names the percentile (p99).
proc ::rubicon::tracereport::perKey {flow attr {col value}} {
    if {$attr ni [$flow attributes]} {return {}}
    set t [$flow get $attr]
    if {![dict exists $t kind]} {return [dict create all $t]}
    set cols [dict get $t columns]
    if {[dict get $t kind] eq "percentiles"} {
	foreach r [dict get $t rows] {
	    if {"p[lindex $r 0]" eq $col} {return [dict create all [lindex $r 1]]}
	}
	return {}
    }
    set i [lsearch -exact $cols $col]
    set out {}
    foreach r [dict get $t rows] {dict set out [lindex $r 0] [lindex $r $i]}
    return $out
}

# tracereport::scaled v factor -- v * factor, or "" when v is not a number
# (an I/O class with no value measured).
proc ::rubicon::tracereport::scaled {v factor} {
    if {![string is double -strict $v] || [string match -nocase *n* $v]} {
	return ""
    }
    expr {$v * $factor}
}

# tracereport::deviceRows summary flows format by -- the rows of the
# iostat-shaped table, busiest first: a list of dicts.
proc ::rubicon::tracereport::deviceRows {summary flows format by} {
    set span [expr {[dict get $summary last] - [dict get $summary first]}]
    set keyed [dict get $flows keyed]
    set count [perKey $keyed Count]
    set rtCount [perKey $keyed ResponseTimeCount]
    set rtMean [perKey $keyed MeanResponseTime]
    set util [perKey $keyed UtilizationByDevice utilization]
    set runs [perKey $keyed SeqRunsByDevice runs]
    set hasStart [expr {[scalar [dict get $flows total] StartTimeFieldCount] > 0}]
    foreach op {reads writes} {
	set f [dict get $flows $op]
	set n($op) [perKey $f Count]
	set rate($op) [perKey $f Rate]
	set bw($op) [perKey $f Bandwidth]
	set size($op) [perKey $f MeanSize]
	set await($op) [perKey $f MeanResponseTime]
	set p99($op) [perKey $f ResponseTime p99]
	set measured($op) [perKey $f ResponseTimeCount]
    }
    set rows {}
    dict for {key ios} $count {
	set row [dict create key $key \
	    name [expr {$by eq "device" ? [devName $format $key] : $key}] \
	    ios $ios]
	foreach op {reads writes} c {r w} {
	    dict set row $op [get $n($op) $key]
	    dict set row ${c}_s [get $rate($op) $key]
	    dict set row ${c}MB_s [expr {[get $bw($op) $key] / 1048576.0}]
	    dict set row ${c}areq_kB [scaled [get $size($op) $key ""] [expr {1 / 1024.0}]]
	    set m [get $measured($op) $key]
	    dict set row ${c}_await_ms [expr {$m ? [scaled [get $await($op) $key ""] 1000] : ""}]
	    dict set row ${c}_await_p99_ms [expr {$m ? [scaled [get $p99($op) $key ""] 1000] : ""}]
	}
	set m [get $rtCount $key]
	dict set row aqu_sz [expr {$m && $span > 0
	    ? $m * [get $rtMean $key] / $span : ""}]
	dict set row util_pct [expr {$hasStart && [dict exists $util $key]
	    ? 100.0 * [dict get $util $key] : ""}]
	dict set row seq_pct [expr {[dict exists $runs $key] && $ios
	    ? 100.0 * ($ios - [dict get $runs $key]) / $ios : ""}]
	lappend rows $row
    }
    lsort -command [list apply {{a b} {
	set d [expr {[dict get $b ios] - [dict get $a ios]}]
	if {$d} {return [expr {$d > 0 ? 1 : -1}]}
	string compare [dict get $a key] [dict get $b key]
    }}] $rows
}

# tracereport::groupRows summary flow format -- rows of a per-process or
# per-volume table, busiest first; format names volumes as devices (an
# empty format leaves keys as they are).
proc ::rubicon::tracereport::groupRows {summary flow format} {
    set count [perKey $flow Count]
    set rate [perKey $flow Rate]
    set bw [perKey $flow Bandwidth]
    set rf [perKey $flow ReadFraction]
    set mean [perKey $flow MeanResponseTime]
    set p99 [perKey $flow ResponseTime p99]
    set measured [perKey $flow ResponseTimeCount]
    set rows {}
    dict for {key ios} $count {
	set m [get $measured $key]
	lappend rows [dict create key $key name [devName $format $key] \
	    ios $ios iops [get $rate $key] \
	    MB_s [expr {[get $bw $key] / 1048576.0}] \
	    read_pct [scaled [get $rf $key ""] 100] \
	    await_ms [expr {$m ? [scaled [get $mean $key ""] 1000] : ""}] \
	    await_p99_ms [expr {$m ? [scaled [get $p99 $key ""] 1000] : ""}]]
    }
    lsort -command [list apply {{a b} {
	set d [expr {[dict get $b ios] - [dict get $a ios]}]
	if {$d} {return [expr {$d > 0 ? 1 : -1}]}
	string compare [dict get $a key] [dict get $b key]
    }}] $rows
}

# tracereport::figures summary flows options -- every figure of the
# report, as a dict (what report.json holds).
proc ::rubicon::tracereport::figures {summary flows options} {
    set total [dict get $flows total]
    set format [lindex [dict get $summary files] 0 1]
    set by [dict get $options -by]
    set records [dict get $summary records]
    set first [dict get $summary first]
    set last [dict get $summary last]
    set span [expr {$records ? $last - $first : 0}]
    set measured [scalar $total ResponseTimeCount]
    set hasStart [expr {[scalar $total StartTimeFieldCount] > 0}]
    set ov [dict create records $records \
	skipped [dict get $summary skipped] \
	skipcounts [dict get $summary skipcounts] \
	partial [dict get $summary partial] \
	epoch [dict get $summary epoch] first $first last $last span $span \
	from [when $summary $first] to [when $summary $last] \
	reads [scalar $total Reads] writes [scalar $total Writes] \
	readFraction [scalar $total ReadFraction] \
	meanSize [scalar $total MeanSize] minSize [scalar $total MinSize] \
	maxSize [scalar $total MaxSize] \
	iops [expr {$span > 0 ? $records / $span : ""}] \
	responseTimesMeasured $measured]
    if {$measured} {
	dict set ov meanResponseTime [scalar $total MeanResponseTime]
	foreach r [rowsOf $total ResponseTime] {
	    dict set ov responseTimeP[lindex $r 0] [lindex $r 1]
	}
	dict set ov meanQueueDepth [scalar $total MeanQueueDepth]
	dict set ov maxQueueDepth [scalar $total MaxQueueDepth]
    }
    set f [dict create overview $ov \
	traces [lmap t [dict get $summary files] {
	    dict create path [lindex $t 0] format [lindex $t 1]
	}] \
	options [dict create by $by interval [dict get $options -interval] \
	    top [dict get $options -top] sample [dict get $options -sample]] \
	table [deviceRows $summary $flows $format $by]]
    foreach name {processes volumes} {
	if {[dict exists $flows $name]} {
	    dict set f $name [groupRows $summary [dict get $flows $name] \
		[expr {$name eq "volumes" ? $format : ""}]]
	}
    }
    set series {}
    set cols {IntervalCount IntervalRate IntervalBandwidth
	IntervalResponseTime IntervalResponseTimeP50 IntervalResponseTimeP99}
    foreach c $cols {set s($c) [rowsOf $total $c]}
    set n [llength $s(IntervalCount)]
    for {set i 0} {$i < $n} {incr i} {
	set row [list [lindex $s(IntervalCount) $i 0]]
	foreach c $cols {lappend row [lindex $s($c) $i 1]}
	lappend series $row
    }
    dict set f series [dict create \
	columns {time count iops bandwidth meanResponseTime p50 p99} rows $series]
    dict set f sizeHistogram [rowsOf $total SizeHistogram]
    dict set f responseTimePercentiles [rowsOf $total ResponseTime]
    dict set f queueDepth [rowsOf $total QueueDepth]
    dict set f heatmap [lmap r [rowsOf $total Heatmap] {lrange $r 2 6}]
    # Per device: {key timeLo timeHi offsetLo offsetHi count} rows.
    dict set f deviceHeatmaps [lmap r [rowsOf $total DeviceHeatmap] {
	concat [lindex $r 0] [lrange $r 3 7]
    }]
    # The log2 latency histogram, in microseconds: the non-empty bins of
    # power-of-two microseconds, [0, 1) the first (ns in the Attribute).
    dict set f latencyHistogram [lmap r [rowsOf $total LatencyFieldHistogram] {
	if {[lindex $r 2] == 0} continue
	list [expr {[lindex $r 0] / 1e3}] [expr {[lindex $r 1] / 1e3}] \
	    [expr {int([lindex $r 2])}]
    }]
    # Behind a sample of 1 block in N (by hash), a count of blocks
    # estimates N times as many, and a cache of S blocks stands for one of
    # N S (as SHARDS scales its sizes).  Hit ratios and top shares are
    # adjusted as SHARDS_adj adjusts (Waldspurger et al., FAST 2017): the
    # sample's block accesses Bs against the B / N expected of all B
    # (blockcount), the difference counted as hits of the smallest cache
    # (as accesses to the most popular blocks), B / N the denominator:
    # ratio' = 1 - (1 - ratio) Bs N / B.
    set blocks [dict get $flows blocks]
    set n [dict get $options -sample]
    set adj ""
    set all 0
    if {$n > 1 && [dict exists $flows blockcount]} {
	set all [scalar [dict get $flows blockcount] BlockAccesses]
	set seen [scalar $blocks BlockAccesses]
	if {[finite $all] && $all > 0 && [finite $seen]} {
	    set adj [expr {$seen * $n / double($all)}]
	}
    }
    set scaleRows [list ::rubicon::tracereport::sampledRows $n $adj $all]
    dict set f cache [dict create sample $n sampleAdjust $adj \
	footprintBytes [scaled [scalar $blocks FootprintBytes] $n] \
	lru [{*}$scaleRows [lmap r [rowsOf $blocks HitRatioCurve] {lrange $r 0 3}]] \
	lruSampleRate [scalar $blocks SampleRate] \
	fifo [{*}$scaleRows [lmap r [rowsOf $blocks FifoHitRatioCurve] {
	    expr {[lindex $r 5] eq "fifo" ? [lrange $r 0 3] : [continue]}
	}]] \
	fifoSampleRate [scalar $blocks FifoSampleRate] \
	s3fifo [{*}$scaleRows [lmap r [rowsOf $blocks FifoHitRatioCurve] {
	    expr {[lindex $r 5] eq "s3fifo" ? [lrange $r 0 3] : [continue]}
	}]]]
    dict set f popularity [dict create sample $n \
	distinctKeys [scaled [scalar $blocks DistinctKeys] $n] \
	sampleRate [scalar $blocks KeySampleRate] \
	top1PercentShare [adjusted [scalar $blocks Top1PercentShare] $adj] \
	top10PercentShare [adjusted [scalar $blocks Top10PercentShare] $adj] \
	zipfExponent [scalar $blocks ZipfExponent] \
	zipfFitR2 [scalar $blocks ZipfFitR2] \
	rankFrequency [lmap r [rowsOf $blocks RankFrequency] {
	    list [lindex $r 0] [lindex $r 3]
	}]]
    dict set f burstiness [dict create \
	hurstRescaledRange [scalar $total HurstRescaledRange] \
	hurstVarianceTime [scalar $total HurstVarianceTime] \
	peakToMean [lmap r [rowsOf $total PeakRate] {
	    list [lindex $r 0] [lindex $r 3]
	}]]
    dict set f readAfterWrite [dict create sample $n \
	sampleRate [scalar $blocks ReadAfterWriteSampleRate] \
	readAfterWriteFraction [scalar $blocks ReadAfterWriteFraction] \
	overwriteFraction [scalar $blocks OverwriteFraction]]
    set cannot {}
    if {!$measured} {
	lappend cannot "await, latency percentiles, queue depth: the trace\
	    has no completion times"
    }
    if {!$hasStart} {
	lappend cannot "%util, service and queue time: the trace has no\
	    service start (issue) times"
    }
    foreach name {processes volumes} what {"process ids" "logical volumes"} \
	    table {"per-process table" "per-volume table"} {
	if {[dict exists $f $name] && ![llength [dict get $f $name]]} {
	    lappend cannot "$table: the trace has no $what"
	}
    }
    if {$records && $by ne "none" && ![llength [dict get $f table]]} {
	lappend cannot "per-$by table: the trace has no [keyField $by]\
	    (rubicon report -by none gives one row for the whole trace)"
    }
    if {$records && ![llength [dict get $f cache fifo]]} {
	lappend cannot "FIFO and S3-FIFO hit ratios: not simulated in a run split\
	    over MPI ranks (they cannot merge)"
    }
    dict set f cannot $cannot
    return $f
}

# tracereport::jdict d -- a flat dict of numbers and strings as a JSON
# object.
proc ::rubicon::tracereport::jdict {d} {
    jobj [concat {*}[lmap {k v} $d {list $k [jval $v]}]]
}

# tracereport::json figures -- report.json's text.
proc ::rubicon::tracereport::json {f} {
    set ov [dict get $f overview]
    set sc [dict get $ov skipcounts]
    dict unset ov skipcounts
    set ovj [string range [jdict $ov] 0 end-1]
    append ovj ", \"skipcounts\": [jdict $sc]" \}
    set pairs [list \
	traces [jarr [lmap t [dict get $f traces] {jdict $t}]] \
	options [jdict [dict get $f options]] \
	overview $ovj \
	table [jarr [lmap r [dict get $f table] {jdict $r}]]]
    foreach name {processes volumes} {
	if {[dict exists $f $name]} {
	    lappend pairs $name [jarr [lmap r [dict get $f $name] {jdict $r}]]
	}
    }
    set s [dict get $f series]
    lappend pairs series [jobj [list \
	columns [jarr [lmap c [dict get $s columns] {jstr $c}]] \
	rows [jrows [dict get $s rows]]]]
    foreach {k cols} {
	sizeHistogram {lo hi count}
	responseTimePercentiles {p seconds}
	queueDepth {lo hi seconds fraction}
	heatmap {timeLo timeHi offsetLo offsetHi count}
	deviceHeatmaps {key timeLo timeHi offsetLo offsetHi count}
	latencyHistogram {loUs hiUs count}
    } {
	lappend pairs $k [jobj [list \
	    columns [jarr [lmap c $cols {jstr $c}]] \
	    rows [jrows [dict get $f $k]]]]
    }
    foreach {k tables} {
	cache {lru fifo s3fifo} popularity rankFrequency
	burstiness peakToMean readAfterWrite {}
    } {
	set d [dict get $f $k]
	set inner {}
	dict for {name v} $d {
	    lappend inner $name [expr {$name in $tables ? [jrows $v] : [jval $v]}]
	}
	lappend pairs $k [jobj $inner]
    }
    lappend pairs cannot [jarr [lmap c [dict get $f cannot] {
	jstr [regsub -all {\s+} $c { }]
    }]]
    return [jobj $pairs]\n
}

# tracereport::cell v fmt -- v formatted, or "-" when not a number.
proc ::rubicon::tracereport::cell {v fmt} {
    if {![string is double -strict $v] || [string match -nocase *n* $v]} {
	return -
    }
    format $fmt $v
}

# tracereport::usec v -- a bucket bound in microseconds: an integer, or
# a fraction below 1.
proc ::rubicon::tracereport::usec {v} {
    if {$v >= 1} {return [format %.0f $v]}
    format %.4g $v
}

# tracereport::latencyLines figures -- the log2 latency histogram as
# biolatency prints it: buckets [2^k, 2^(k+1)) us, their counts and a bar
# of up to 40 stars scaled to the largest.
proc ::rubicon::tracereport::latencyLines {f} {
    set rows [dict get $f latencyHistogram]
    set max [tcl::mathfunc::max 1 {*}[lmap r $rows {lindex $r 2}]]
    set lines [list "latency histogram (enqueue to completion):" \
	[format "%21s : %-8s %s" usecs count distribution]]
    foreach r $rows {
	lassign $r lo hi n
	set hiShown [expr {$hi >= 2 ? [usec [expr {$hi - 1}]] : [usec $hi]}]
	set stars [expr {int(40.0 * $n / $max)}]
	if {$n > 0 && $stars == 0} {set stars 1}
	lappend lines [format "%10s -> %-7s : %-8d |%-40s|" [usec $lo] \
	    $hiShown $n [string repeat * $stars]]
    }
    return $lines
}

# tracereport::text figures ?hist? -- report.txt's text (without the
# latency histogram when hist is 0).
proc ::rubicon::tracereport::text {f {hist 1}} {
    set ov [dict get $f overview]
    set top [dict get $f options top]
    set lines {}
    foreach t [dict get $f traces] {
	set path [dict get $t path]
	if {$path eq "-"} {set path "standard input"}
	lappend lines "trace     $path ([dict get $t format])"
    }
    dict with ov {}
    set line "records   $records, $skipped malformed and skipped"
    if {[llength $skipcounts]} {
	append line "; counted apart: " \
	    [join [lmap {k n} $skipcounts {list $n $k}] {, }]
    }
    if {$partial} {append line ", partial (the run was stopped)"}
    lappend lines $line
    if {$records} {
	lappend lines [format "span      %.3f s, %s to %s" $span $from $to]
	lappend lines [format "I/Os      %s IO/s; %d reads (%s%%), %d writes;\
	    size %s to %s, mean %s" [cell $iops %.2f] $reads \
	    [cell [scaled $readFraction 100] %.1f] $writes \
	    [bytes $minSize] [bytes $maxSize] [bytes $meanSize]]
    }
    if {$responseTimesMeasured} {
	lappend lines [format "latency   mean %s ms, p50 %s ms, p99 %s ms,\
	    max %s ms (enqueue to completion)" \
	    [cell [scaled $meanResponseTime 1e3] %.3f] \
	    [cell [scaled $responseTimeP50 1e3] %.3f] \
	    [cell [scaled $responseTimeP99 1e3] %.3f] \
	    [cell [scaled $responseTimeP100 1e3] %.3f]]
	lappend lines [format "queue     mean depth %s, max %s" \
	    [cell $meanQueueDepth %.3f] $maxQueueDepth]
    }
    set by [dict get $f options by]
    set rows [dict get $f table]
    set head [format "%-16s %9s %9s %8s %8s %8s %8s %8s %8s %8s %8s %7s %6s %6s" \
	[expr {$by eq "none" ? "" : [string totitle $by]}] \
	r/s w/s rMB/s wMB/s rareq-sz wareq-sz r_await r_aw99 w_await w_aw99 \
	aqu-sz %util %seq]
    lappend lines "" $head
    foreach r [lrange $rows 0 [expr {$top - 1}]] {
	dict with r {}
	lappend lines [format "%-16s %9s %9s %8s %8s %8s %8s %8s %8s %8s %8s %7s %6s %6s" \
	    $name [cell $r_s %.2f] [cell $w_s %.2f] [cell $rMB_s %.2f] \
	    [cell $wMB_s %.2f] [cell $rareq_kB %.1f] [cell $wareq_kB %.1f] \
	    [cell $r_await_ms %.2f] [cell $r_await_p99_ms %.2f] \
	    [cell $w_await_ms %.2f] [cell $w_await_p99_ms %.2f] \
	    [cell $aqu_sz %.2f] [cell $util_pct %.1f] [cell $seq_pct %.1f]]
    }
    if {[llength $rows] > $top} {
	lappend lines "([expr {[llength $rows] - $top}] more in report.json)"
    }
    foreach name {processes volumes} title {Process Volume} {
	if {![dict exists $f $name] || ![llength [dict get $f $name]]} continue
	set rows [dict get $f $name]
	lappend lines "" [format "%-16s %9s %9s %8s %7s %8s %8s" \
	    $title I/Os IO/s MB/s %read await aw99]
	foreach r [lrange $rows 0 [expr {$top - 1}]] {
	    dict with r {}
	    lappend lines [format "%-16s %9d %9s %8s %7s %8s %8s" $name $ios \
		[cell $iops %.2f] [cell $MB_s %.2f] [cell $read_pct %.1f] \
		[cell $await_ms %.2f] [cell $await_p99_ms %.2f]]
	}
	if {[llength $rows] > $top} {
	    lappend lines "([expr {[llength $rows] - $top}] more in report.json)"
	}
    }
    lappend lines "" \
	"r/s, w/s: I/Os per second over the span; MB: 2^20 bytes; rareq-sz," \
	"wareq-sz: mean size in KiB; r_await, w_await: mean response time" \
	"(enqueue to completion) in ms, r_aw99, w_aw99: its 99th percentile;" \
	"aqu-sz: mean I/Os outstanding (summed response time over the span);" \
	"%seq: I/Os that continue the device's previous one."
    if {$hist && [llength [dict get $f latencyHistogram]]} {
	lappend lines "" {*}[latencyLines $f]
    }
    foreach c [dict get $f cannot] {
	lappend lines "not known: [regsub -all {\s+} $c { }]"
    }
    join $lines \n
}

# tracereport::write summary outdir options flows -- writes report.txt
# (also on stdout unless -quiet), report.json and report.html into
# outdir from the report's Flows (on rank 0 of a split run only).
proc ::rubicon::tracereport::write {summary outdir options flows} {
    if {[::rubicon::mpi rank] != 0} return
    file mkdir $outdir
    set f [figures $summary $flows $options]
    set txt [text $f]
    writeFile [file join $outdir report.txt] $txt\n
    writeFile [file join $outdir report.json] [json $f]
    writeFile [file join $outdir report.html] [html $f]
    variable quiet
    if {![info exists quiet] || !$quiet} {
	puts $txt
	puts "wrote [file join $outdir report.txt], report.json, report.html, report.tcl"
    }
    return $f
}

# ---- Span reports -----------------------------------------------------------

# tracereport::spanConfig opts -- the text of report.tcl for Zipkin or
# OTLP span files: stardust::spans over each, then writeSpans.
# tracereport::eventKind path runOptions -- "stardust" when the trace
# holds Stardust activity records: by -format, else by its first bytes as
# the readers sniff them (not by a run, under mpirun: the first run is the
# split one, so a bzip2 or zstd file there needs -format).
proc ::rubicon::tracereport::eventKind {path runOptions} {
    if {[dict exists $runOptions -format]} {
	return [expr {[dict get $runOptions -format] in {stardust stardust-text}
	    ? "stardust" : ""}]
    }
    if {[compression $path] ni {none gzip}} {
	# bzip2 or zstd: sniffed by a run, in one process only.
	if {[::rubicon::mpi size] > 1} {return ""}
	return [expr {[sniff $path] in {stardust stardust-text}
	    ? "stardust" : ""}]
    }
    set head [headBytes $path 9]
    expr {$head eq "#stardust" || [string range $head 0 7] eq "STARDUST"
	? "stardust" : ""}
}
proc ::rubicon::tracereport::spanConfig {opts} {
    join [list \
	"# Rubicon configuration written by \"rubicon report\" (rubicon-report(n))" \
	"# for span traces (Zipkin v2 or OTLP JSON).  Run: rubicon report.tcl FILE..." \
	"# stardust::spans (Stardust(n)) reads each file and answers its requests," \
	"# operations, self time per service and service graph; writeSpans adds" \
	"# them up and writes report.txt, report.json and report.html into outdir." \
	"# The run reads the files' span records (Stardust Call and Reply records)" \
	"# for the time they cover." \
	"" \
	[list set outdir [dict get $opts -outdir]] \
	[list set reportOptions [dict create -top [dict get $opts -top]]] \
	"head \[Flow events \[RateAnalyzer\]\]" \
	"set summary \[rubicon::run {*}\$rubicon::runOptions {*}\$argv\]" \
	"set spans {}" \
	"foreach trace \$argv {" \
	"    lappend spans \$trace \[stardust::spans \$trace\]" \
	"}" \
	"rubicon::tracereport::writeSpans \$summary \$spans \$outdir \$reportOptions"] \n
}

# tracereport::nearestRank sorted p -- the p-th percentile (nearest rank)
# of a sorted list.
proc ::rubicon::tracereport::nearestRank {sorted p} {
    set n [llength $sorted]
    set i [expr {max(0, int(ceil($p / 100.0 * $n)) - 1)}]
    lindex $sorted $i
}

# tracereport::durationRows dict -- {service {name {durations}}} (of all
# files, lists concatenated) as rows {service name count mean p50 p90 p99
# max} (seconds), most first (ties by service and name).
proc ::rubicon::tracereport::durationRows {d} {
    set rows {}
    dict for {svc names} $d {
	dict for {name ds} $names {
	    set l [lsort -real $ds]
	    lappend rows [list $svc $name [llength $l] \
		[expr {[tcl::mathop::+ {*}$l] / [llength $l]}] \
		[nearestRank $l 50] [nearestRank $l 90] [nearestRank $l 99] \
		[lindex $l end]]
	}
    }
    lsort -command [list apply {{a b} {
	set d [expr {[lindex $b 2] - [lindex $a 2]}]
	if {$d} {return [expr {$d > 0 ? 1 : -1}]}
	string compare [lrange $a 0 1] [lrange $b 0 1]
    }}] $rows
}

# tracereport::spanFigures spans options -- every figure of a span report
# from {path stardust::spans-dict ...}: a dict (report.json's content).
proc ::rubicon::tracereport::spanFigures {summary spans options} {
    set traces {}
    set req {}
    set ops {}
    set svc {}
    set edges {}
    set skew 0
    foreach {path d} $spans {
	lappend traces [dict create path $path format [dict get $d format] \
	    spans [dict get $d spans] traces [dict get $d traces]]
	incr skew [dict get $d skew count]
	foreach {key var} {requests req operations ops} {
	    dict for {s names} [dict get $d $key] {
		dict for {n ds} $names {
		    dict lappend $var [list $s $n] {*}$ds
		}
	    }
	}
	dict for {s v} [dict get $d services] {
	    dict set svc $s spans [expr {[get [get $svc $s {}] spans] + [dict get $v spans]}]
	    dict set svc $s self [expr {[get [get $svc $s {}] self] + [dict get $v self]}]
	}
	foreach e [dict get $d serviceGraph edges] {
	    set k [list [dict get $e client] [dict get $e server]]
	    foreach c {requests errors virtual} {
		dict set edges $k $c [expr {[get [get $edges $k {}] $c] + [dict get $e edge $c]}]
	    }
	}
    }
    foreach var {req ops} {
	set nested {}
	dict for {k ds} [set $var] {dict set nested {*}$k $ds}
	set $var [durationRows $nested]
    }
    set total 0.0
    dict for {s v} $svc {set total [expr {$total + [dict get $v self]}]}
    set demand [lsort -real -decreasing -index 2 [lmap {s v} $svc {
	list $s [dict get $v spans] [dict get $v self] \
	    [expr {$total > 0 ? [dict get $v self] / $total : 0.0}]
    }]]
    set graph [lsort -command [list apply {{a b} {
	set d [expr {[lindex $b 2] - [lindex $a 2]}]
	if {$d} {return [expr {$d > 0 ? 1 : -1}]}
	string compare [lrange $a 0 1] [lrange $b 0 1]
    }}] [lmap {k v} $edges {
	list {*}$k [dict get $v requests] [dict get $v errors] [dict get $v virtual]
    }]]
    dict create kind spans traces $traces \
	options [dict create top [dict get $options -top]] \
	overview [dict create files [llength $traces] \
	    records [dict get $summary records] \
	    epoch [dict get $summary epoch] \
	    first [dict get $summary first] last [dict get $summary last] \
	    span [expr {[dict get $summary records]
		? [dict get $summary last] - [dict get $summary first] : 0}] \
	    from [when $summary [dict get $summary first]] \
	    to [when $summary [dict get $summary last]] \
	    spans [tcl::mathop::+ 0 {*}[lmap t $traces {dict get $t spans}]] \
	    traces [tcl::mathop::+ 0 {*}[lmap t $traces {dict get $t traces}]] \
	    requests [tcl::mathop::+ 0 {*}[lmap r $req {lindex $r 2}]] \
	    services [dict size $svc] edges [llength $graph] \
	    skewCorrections $skew selfSeconds $total] \
	requests $req operations $ops serviceGraph $graph demand $demand
}

# tracereport::printable s -- s with each run of white space and control
# characters (a span name may hold a line break) as one space.
proc ::rubicon::tracereport::printable {s} {
    regsub -all {[[:space:][:cntrl:]]+} $s { }
}

# tracereport::spanText figures -- report.txt of a span report.
proc ::rubicon::tracereport::spanText {f} {
    set top [dict get $f options top]
    set lines {}
    foreach t [dict get $f traces] {
	lappend lines "trace     [dict get $t path] ([dict get $t format]): [dict get $t spans] spans, [dict get $t traces] traces"
    }
    set ov [dict get $f overview]
    lappend lines [format "time      %.6f s: %s to %s" [dict get $ov span] \
	[dict get $ov from] [dict get $ov to]]
    lappend lines "spans     [dict get $ov spans] in [dict get $ov traces] traces;\
	[dict get $ov requests] requests (root spans), [dict get $ov services]\
	services, [dict get $ov edges] service-graph edges,\
	[dict get $ov skewCorrections] clock-skew corrections"
    foreach {key title} {requests "Request type (root span)" operations "Operation (every span)"} {
	lappend lines "" {*}[durationLines $title [dict get $f $key] $top]
    }
    lappend lines "" [format "%-24s    %-24s %8s %7s %8s" client server requests errors virtual]
    foreach e [dict get $f serviceGraph] {
	lassign $e c sv n err v
	lappend lines [format "%-24s -> %-24s %8d %7d %8d" [printable $c] \
	    [printable $sv] $n $err $v]
    }
    lappend lines "" [format "%-32s %7s %10s %7s" "Service (demand: self time)" spans self_ms %self]
    foreach r [lrange [dict get $f demand] 0 [expr {$top - 1}]] {
	lassign $r s n self share
	lappend lines [format "%-32s %7d %10.3f %7.1f" [printable $s] $n [expr {$self * 1e3}] [expr {100 * $share}]]
    }
    lappend lines "" \
	"Requests: root spans (no parent) by service and name; operations:" \
	"every span with a duration; percentiles by nearest rank.  Service" \
	"graph: client to server service, as OpenTelemetry's service-graph" \
	"connector counts them (virtual: to a remote service no span answers)." \
	"Self time: a span's duration less its children's (Stardust(n))."
    join $lines \n
}

# tracereport::spanJson figures -- report.json of a span report.
proc ::rubicon::tracereport::spanJson {f} {
    eventJson $f spans {} {
	requests {service name count mean p50 p90 p99 max}
	operations {service name count mean p50 p90 p99 max}
	serviceGraph {client server requests errors virtual}
	demand {service spans selfSeconds share}
    }
}

# tracereport::eventJson f kind extra tables -- report.json of an event
# report: kind, traces, options and overview, the pairs extra (name and
# JSON text), then each of tables (name and columns) as columns and rows.
proc ::rubicon::tracereport::eventJson {f kind extra tables} {
    set pairs [list kind [jstr $kind] \
	traces [jarr [lmap t [dict get $f traces] {jdict $t}]] \
	options [jdict [dict get $f options]] \
	overview [jdict [dict get $f overview]] {*}$extra]
    foreach {k cols} $tables {
	lappend pairs $k [jobj [list \
	    columns [jarr [lmap c $cols {jstr $c}]] \
	    rows [jrows [dict get $f $k]]]]
    }
    return [jobj $pairs]\n
}

# tracereport::svgBars title rows -- a horizontal bar chart of {label
# value} rows, longest bar the largest value.
proc ::rubicon::tracereport::svgBars {title rows} {
    set W 640; set L 200; set R 60; set bh 18
    set H [expr {40 + $bh * max(1, [llength $rows])}]
    set out "<figure><svg width=\"$W\" height=\"$H\" role=\"img\" aria-label=\"[esc $title]\">"
    append out "<text x=\"[expr {$W / 2}]\" y=\"16\" text-anchor=\"middle\" class=\"t\">[esc $title]</text>"
    set max [tcl::mathfunc::max 1e-300 {*}[lmap r $rows {lindex $r 1}]]
    set y 28
    foreach r $rows {
	lassign $r label v
	set w [expr {max(1.0, ($W - $L - $R) * $v / $max)}]
	append out "<text x=\"[expr {$L - 4}]\" y=\"[expr {$y + 13}]\" text-anchor=\"end\">[esc [string range $label 0 30]]</text>"
	append out [format "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#1f77b4\"/>" $L $y $w [expr {$bh - 3}]]
	append out [format "<text x=\"%.1f\" y=\"%d\">%.4g</text>" [expr {$L + $w + 4}] [expr {$y + 13}] $v]
	incr y $bh
    }
    append out "</svg></figure>"
}

# tracereport::svgGraph edges -- the service graph: services on a circle,
# an arrow per edge labelled with its requests.
proc ::rubicon::tracereport::svgGraph {edges} {
    set W 640; set H 480
    set nodes {}
    foreach e $edges {
	foreach n [lrange $e 0 1] {
	    if {$n ni $nodes} {lappend nodes $n}
	}
    }
    set out "<figure><svg width=\"$W\" height=\"$H\" role=\"img\" aria-label=\"service graph\">"
    append out "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#666\"/></marker></defs>"
    append out "<text x=\"[expr {$W / 2}]\" y=\"16\" text-anchor=\"middle\" class=\"t\">Service graph (requests per edge)</text>"
    set n [llength $nodes]
    set pi [expr {acos(-1)}]
    set i 0
    foreach node $nodes {
	set a [expr {2 * $pi * $i / max(1, $n) - $pi / 2}]
	set pos($node) [list [expr {$W / 2 + 220 * cos($a)}] [expr {$H / 2 + 10 + 190 * sin($a)}]]
	incr i
    }
    foreach e $edges {
	lassign $e c s req
	lassign $pos($c) x1 y1
	lassign $pos($s) x2 y2
	set len [expr {max(1e-9, hypot($x2 - $x1, $y2 - $y1))}]
	# Stop short of the node's dot.
	set x2s [expr {$x2 - 8 * ($x2 - $x1) / $len}]
	set y2s [expr {$y2 - 8 * ($y2 - $y1) / $len}]
	append out [format "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#666\" marker-end=\"url(#arrow)\"/>" $x1 $y1 $x2s $y2s]
	append out [format "<text x=\"%.1f\" y=\"%.1f\" fill=\"#d62728\">%d</text>" \
	    [expr {($x1 + $x2) / 2}] [expr {($y1 + $y2) / 2}] $req]
    }
    foreach node $nodes {
	lassign $pos($node) x y
	append out [format "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"#1f77b4\"/>" $x $y]
	append out [format "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>" $x [expr {$y - 10}] [esc $node]]
    }
    append out "</svg></figure>"
}

# tracereport::durationLines title rows top -- the text table of
# durationRows rows: the first top, and how many more report.json has.
proc ::rubicon::tracereport::durationLines {title rows top} {
    set lines [list [format "%-40s %7s %9s %9s %9s %9s %9s" $title count \
	mean_ms p50_ms p90_ms p99_ms max_ms]]
    foreach r [lrange $rows 0 [expr {$top - 1}]] {
	lassign $r s n c mean p50 p90 p99 max
	lappend lines [format "%-40s %7d %9.3f %9.3f %9.3f %9.3f %9.3f" \
	    [string range [printable "$s: $n"] 0 39] $c [expr {$mean * 1e3}] \
	    [expr {$p50 * 1e3}] [expr {$p90 * 1e3}] [expr {$p99 * 1e3}] \
	    [expr {$max * 1e3}]]
    }
    if {[llength $rows] > $top} {
	lappend lines "([expr {[llength $rows] - $top}] more in report.json)"
    }
    return $lines
}

# tracereport::eventHtmlHead title heading txt -- the start of an event
# report's page: its head, the overview (txt up to its first blank line)
# and the section "requests" opened under heading with the rest of txt.
proc ::rubicon::tracereport::eventHtmlHead {title heading txt} {
    set out "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
	<title>[esc $title]</title><style>\
	body{font-family:sans-serif;margin:1.5em;max-width:60em}\
	pre{font-size:12px;overflow-x:auto}\
	svg text{font-size:11px}svg .t{font-size:13px;font-weight:bold}\
	</style></head><body>\n<h1>[esc $title]</h1>\n"
    set cut [string first "\n\n" $txt]
    append out "<section id=\"overview\"><h2>Overview</h2><pre>[esc [string range $txt 0 $cut]]</pre></section>\n" \
	"<section id=\"requests\"><h2>[esc $heading]</h2><pre>[esc [string range $txt $cut+2 end]]</pre>"
}

# tracereport::durationBars countTitle p99Title types ops top -- bars of
# the requests per type and of each operation's p99 (durationRows rows).
proc ::rubicon::tracereport::durationBars {countTitle p99Title types ops top} {
    string cat [svgBars $countTitle [lmap r [lrange $types 0 [expr {$top - 1}]] {
	    list "[lindex $r 0]: [lindex $r 1]" [lindex $r 2]
	}]] \
	[svgBars $p99Title [lmap r [lrange $ops 0 [expr {$top - 1}]] {
	    list "[lindex $r 0]: [lindex $r 1]" [expr {[lindex $r 6] * 1e3}]
	}]]
}

# tracereport::writeEvents outdir f kind -- writes report.txt,
# report.json and report.html of figures f with kind's Text, Json and
# Html procedures (span, stardust), and prints report.txt unless quiet.
proc ::rubicon::tracereport::writeEvents {outdir f kind} {
    file mkdir $outdir
    set txt [${kind}Text $f]
    writeFile [file join $outdir report.txt] $txt\n
    writeFile [file join $outdir report.json] [${kind}Json $f]
    writeFile [file join $outdir report.html] [${kind}Html $f]
    variable quiet
    if {![info exists quiet] || !$quiet} {
	puts $txt
	puts "wrote [file join $outdir report.txt], report.json, report.html, report.tcl"
    }
    return $f
}

# tracereport::spanHtml figures -- report.html of a span report.
proc ::rubicon::tracereport::spanHtml {f} {
    set top [dict get $f options top]
    set out [eventHtmlHead "Rubicon span report" "Requests and operations" \
	[spanText $f]]
    append out [durationBars "requests by type (root spans)" \
	"p99 span duration by operation (ms)" [dict get $f requests] \
	[dict get $f operations] $top] "</section>\n"
    append out "<section id=\"servicegraph\"><h2>Service graph</h2>" \
	[svgGraph [dict get $f serviceGraph]] "</section>\n"
    append out "<section id=\"demand\"><h2>Demand per service</h2>" \
	[svgBars "self time per service (ms)" [lmap r [lrange [dict get $f demand] 0 [expr {$top - 1}]] {
	    list [lindex $r 0] [expr {[lindex $r 2] * 1e3}]
	}]] "</section>\n</body></html>\n"
}

# tracereport::writeSpans spans outdir options -- writes report.txt (also
# on stdout unless -quiet), report.json and report.html of span files.
proc ::rubicon::tracereport::writeSpans {summary spans outdir options} {
    if {[::rubicon::mpi rank] != 0} return
    writeEvents $outdir [spanFigures $summary $spans $options] span
}

# ---- report.html ------------------------------------------------------------

# tracereport::esc s -- s escaped for HTML text.
proc ::rubicon::tracereport::esc {s} {
    string map {& &amp; < &lt; > &gt; \" &quot;} $s
}

# tracereport::finite v -- whether v is a finite number.
proc ::rubicon::tracereport::finite {v} {
    expr {[string is double -strict $v] && ![string match -nocase *n* $v]}
}

# tracereport::axisLabel log v -- the label of an axis position v (10^v
# on a log axis).
proc ::rubicon::tracereport::axisLabel {log v} {
    if {$log} {set v [expr {10 ** $v}]}
    format %.4g $v
}

# tracereport::svgPlot title xlabel ylabel series ?logx? ?logy? ?bars? --
# an inline SVG chart.  series is a list of {name points}, points a list of
# {x y}; points with a non-finite value, or not positive on a log axis, are
# left out.  bars draws the first series as bars.
proc ::rubicon::tracereport::svgPlot {title xlabel ylabel series {logx 0} {logy 0} {bars 0}} {
    set W 640; set H 260; set L 70; set R 20; set T 28; set B 42
    set xs {}; set ys {}
    set clean {}
    foreach s $series {
	lassign $s name pts
	set keep {}
	foreach p $pts {
	    lassign $p x y
	    if {![finite $x] || ![finite $y]} continue
	    if {($logx && $x <= 0) || ($logy && $y <= 0)} continue
	    set x [expr {$logx ? log10($x) : double($x)}]
	    set y [expr {$logy ? log10($y) : double($y)}]
	    lappend keep [list $x $y]
	    lappend xs $x; lappend ys $y
	}
	lappend clean [list $name $keep]
    }
    set out "<figure><svg width=\"$W\" height=\"$H\" role=\"img\" aria-label=\"[esc $title]\">"
    append out "<text x=\"[expr {$W / 2}]\" y=\"16\" text-anchor=\"middle\" class=\"t\">[esc $title]</text>"
    if {![llength $xs]} {
	append out "<text x=\"[expr {$W / 2}]\" y=\"[expr {$H / 2}]\" text-anchor=\"middle\">no data</text></svg></figure>"
	return $out
    }
    set x0 [tcl::mathfunc::min {*}$xs]; set x1 [tcl::mathfunc::max {*}$xs]
    set y0 [expr {$logy ? [tcl::mathfunc::min {*}$ys] : min(0.0, [tcl::mathfunc::min {*}$ys])}]
    set y1 [tcl::mathfunc::max {*}$ys]
    if {$x1 == $x0} {
	set x0 [expr {$x0 - 0.5}]
	set x1 [expr {$x1 + 0.5}]
    }
    if {$bars} {
	# Room for the end bars' halves.
	set pad [expr {($x1 - $x0) / (2.0 * max(1, [llength [lindex $clean 0 1]] - 1))}]
	set x0 [expr {$x0 - $pad}]
	set x1 [expr {$x1 + $pad}]
    }
    if {$y1 == $y0} {set y1 [expr {$y0 + 1}]}
    set sx [expr {($W - $L - $R) / ($x1 - $x0)}]
    set sy [expr {($H - $T - $B) / ($y1 - $y0)}]
    set px [list apply {{L x0 sx x} {format %.1f [expr {$L + ($x - $x0) * $sx}]}} $L $x0 $sx]
    set py [list apply {{H B y0 sy y} {format %.1f [expr {$H - $B - ($y - $y0) * $sy}]}} $H $B $y0 $sy]
    append out "<rect x=\"$L\" y=\"$T\" width=\"[expr {$W - $L - $R}]\" height=\"[expr {$H - $T - $B}]\" class=\"f\"/>"
    # Axis labels: the ends and middle of each axis, 10^v on log axes.
    foreach v [list $x0 [expr {($x0 + $x1) / 2}] $x1] {
	set lab [axisLabel $logx $v]
	append out "<text x=\"[{*}$px $v]\" y=\"[expr {$H - $B + 14}]\" text-anchor=\"middle\">$lab</text>"
    }
    foreach v [list $y0 [expr {($y0 + $y1) / 2}] $y1] {
	set lab [axisLabel $logy $v]
	append out "<text x=\"[expr {$L - 4}]\" y=\"[{*}$py $v]\" text-anchor=\"end\">$lab</text>"
    }
    append out "<text x=\"[expr {$W / 2}]\" y=\"[expr {$H - 6}]\" text-anchor=\"middle\">[esc $xlabel][expr {$logx ? { (log)} : {}}]</text>"
    append out "<text x=\"12\" y=\"[expr {$H / 2}]\" transform=\"rotate(-90 12 [expr {$H / 2}])\" text-anchor=\"middle\">[esc $ylabel][expr {$logy ? { (log)} : {}}]</text>"
    set colors {#1f77b4 #d62728 #2ca02c #9467bd}
    set i 0
    foreach s $clean {
	lassign $s name pts
	set c [lindex $colors [expr {$i % 4}]]
	if {$bars && $i == 0} {
	    set bw [expr {max(1.0, ($W - $L - $R) / max(1.0, [llength $pts]) - 1)}]
	    foreach p $pts {
		lassign $p x y
		set top [{*}$py $y]
		append out "<rect x=\"[format %.1f [expr {[{*}$px $x] - $bw / 2}]]\" y=\"$top\" width=\"[format %.1f $bw]\" height=\"[format %.1f [expr {max(0, [{*}$py $y0] - $top)}]]\" fill=\"$c\"/>"
	    }
	} elseif {[llength $pts]} {
	    set d [join [lmap p $pts {string cat [{*}$px [lindex $p 0]] , [{*}$py [lindex $p 1]]}]]
	    append out "<polyline fill=\"none\" stroke=\"$c\" stroke-width=\"1.5\" points=\"$d\"/>"
	    if {[llength $pts] <= 60} {
		# Few points: mark each (one alone draws no line).
		foreach p $pts {
		    append out "<circle cx=\"[{*}$px [lindex $p 0]]\" cy=\"[{*}$py [lindex $p 1]]\" r=\"2.5\" fill=\"$c\"/>"
		}
	    }
	}
	if {[llength $clean] > 1} {
	    append out "<text x=\"[expr {$W - $R - 4}]\" y=\"[expr {$T + 14 + 14 * $i}]\" text-anchor=\"end\" fill=\"$c\">[esc $name]</text>"
	}
	incr i
    }
    append out "</svg></figure>"
}

# tracereport::svgHeatmap cells -- the offset-by-time heat map: cells
# {timeLo timeHi offsetLo offsetHi count}, shaded by log count.
proc ::rubicon::tracereport::svgHeatmap {cells {title "I/Os by offset (GiB) and time (s)"}} {
    set W 640; set H 300; set L 70; set R 20; set T 28; set B 42
    set out "<figure><svg width=\"$W\" height=\"$H\" role=\"img\" aria-label=\"[esc $title]\">"
    append out "<text x=\"[expr {$W / 2}]\" y=\"16\" text-anchor=\"middle\" class=\"t\">[esc $title]</text>"
    if {![llength $cells]} {
	return "$out<text x=\"[expr {$W / 2}]\" y=\"[expr {$H / 2}]\" text-anchor=\"middle\">no data</text></svg></figure>"
    }
    # The cells' rectangles, in C (traceReport.c): a heat map has up to
    # -maxcells of them.
    lassign [heatrects $cells $W $H $L $R $T $B] t0 t1 o0 o1 rects
    append out $rects
    append out "<text x=\"$L\" y=\"[expr {$H - $B + 14}]\">[format %.4g $t0]</text>"
    append out "<text x=\"[expr {$W - $R}]\" y=\"[expr {$H - $B + 14}]\" text-anchor=\"end\">[format %.4g $t1]</text>"
    append out "<text x=\"[expr {$L - 4}]\" y=\"[expr {$H - $B}]\" text-anchor=\"end\">[format %.4g [expr {$o0 / 1073741824.0}]]</text>"
    append out "<text x=\"[expr {$L - 4}]\" y=\"[expr {$T + 10}]\" text-anchor=\"end\">[format %.4g [expr {$o1 / 1073741824.0}]]</text>"
    append out "</svg></figure>"
}

# tracereport::skewed values -- whether values span more than two decades
# (a log axis shows them better).
proc ::rubicon::tracereport::skewed {values} {
    set v [lmap x $values {expr {[finite $x] && $x > 0 ? $x : [continue]}}]
    if {[llength $v] < 2} {return 0}
    expr {[tcl::mathfunc::max {*}$v] > 100 * [tcl::mathfunc::min {*}$v]}
}

# tracereport::zipfLine rows alpha -- points {rank count} of the line of
# slope -alpha (log-log) through the first row's count, at the rows' ranks.
proc ::rubicon::tracereport::zipfLine {rows alpha} {
    if {![llength $rows] || ![finite $alpha]} {return {}}
    set c1 [lindex $rows 0 1]
    lmap r $rows {
	list [lindex $r 0] [expr {$c1 * pow([lindex $r 0], -$alpha)}]
    }
}

# tracereport::html figures -- report.html: one self-contained page (styles
# and SVG plots inline, nothing fetched).
proc ::rubicon::tracereport::html {f} {
    set ov [dict get $f overview]
    set out "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
	<title>Rubicon report</title><style>\
	body{font-family:sans-serif;margin:1.5em;max-width:60em}\
	pre{font-size:12px;overflow-x:auto}\
	svg text{font-size:11px}svg .t{font-size:13px;font-weight:bold}\
	svg .f{fill:#fafafa;stroke:#ccc}table{border-collapse:collapse}\
	td,th{padding:2px 6px;border-bottom:1px solid #ddd;text-align:right}\
	</style></head><body>\n<h1>Rubicon report</h1>\n"
    set txt [text $f 0]
    set cut [string first "\n\n" $txt]
    append out "<section id=\"overview\"><h2>Overview</h2><pre>[esc [string range $txt 0 $cut]]</pre></section>\n"
    append out "<section id=\"table\"><h2>Per [esc [dict get $f options by]]</h2><pre>[esc [string range $txt $cut+2 end]]</pre></section>\n"
    set rows [dict get $f series rows]
    set iops [lmap r $rows {list [lindex $r 0] [lindex $r 2]}]
    set mbs [lmap r $rows {list [lindex $r 0] [expr {[finite [lindex $r 3]] ? [lindex $r 3] / 1048576.0 : "nan"}]}]
    set p50 [lmap r $rows {list [lindex $r 0] [scaled [lindex $r 5] 1e3]}]
    set p99 [lmap r $rows {list [lindex $r 0] [scaled [lindex $r 6] 1e3]}]
    append out "<section id=\"series\"><h2>Per interval ([dict get $f options interval] s)</h2>" \
	[svgPlot "I/Os per second" "time (s)" IO/s [list [list IOPS $iops]]] \
	[svgPlot "MB per second" "time (s)" MB/s [list [list MB/s $mbs]]] \
	[svgPlot "latency p50 and p99" "time (s)" ms [list [list p50 $p50] [list p99 $p99]] \
	    0 [skewed [concat {*}[lmap p $p99 {lindex $p 1}]]]] "</section>\n"
    set pct [lmap r [dict get $f responseTimePercentiles] {list [lindex $r 0] [scaled [lindex $r 1] 1e3]}]
    set sizes [lmap r [dict get $f sizeHistogram] {list [lindex $r 0] [lindex $r 2]}]
    append out "<section id=\"distributions\"><h2>Latency and size</h2>" \
	[svgPlot "response time by percentile" "percentile" ms [list [list latency $pct]] \
	    0 [skewed [lmap p $pct {lindex $p 1}]]] \
	[svgPlot "request sizes" "size (bytes)" I/Os [list [list I/Os $sizes]] 1 \
	    [skewed [lmap p $sizes {lindex $p 1}]] 1] "</section>\n"
    set lh [dict get $f latencyHistogram]
    append out "<section id=\"latencyhist\"><h2>Latency histogram</h2>"
    if {[llength $lh]} {
	append out "<pre>[esc [join [latencyLines $f] \n]]</pre>" \
	    [svgPlot "I/Os by response time (log2 buckets)" "response time (us)" I/Os \
		[list [list I/Os [lmap r $lh {
		    list [expr {[lindex $r 0] > 0 ? [lindex $r 0] : [lindex $r 1] / 2.0}] [lindex $r 2]
		}]]] 1 [skewed [lmap r $lh {lindex $r 2}]] 1]
    } else {
	append out "<p>The trace has no completion times.</p>"
    }
    append out "</section>\n"
    append out "<section id=\"heatmap\"><h2>Offset by time</h2>" \
	[svgHeatmap [dict get $f heatmap]] "</section>\n"
    set nmaps [expr {min([dict get $f options top], 4)}]
    append out "<section id=\"deviceheatmaps\"><h2>Offset by time, busiest devices</h2>"
    set shown 0
    foreach row [dict get $f table] {
	if {$shown >= $nmaps || [dict get $f options by] ne "device"} break
	set key [dict get $row key]
	set cells [lmap c [dict get $f deviceHeatmaps] {
	    expr {[lindex $c 0] == $key ? [lrange $c 1 end] : [continue]}
	}]
	if {![llength $cells]} continue
	append out "<h3>[esc [dict get $row name]]</h3>" \
	    [svgHeatmap $cells "[dict get $row name]: I/Os by offset (GiB) and time (s)"]
	incr shown
    }
    if {!$shown} {
	append out "<p>No per-device offsets: the table is not per device,\
	    or the trace has no device numbers.</p>"
    }
    append out "</section>\n"
    set qd [lmap r [dict get $f queueDepth] {list [lindex $r 0] [lindex $r 3]}]
    append out "<section id=\"queue\"><h2>Queue depth</h2>" \
	[svgPlot "share of time at each queue depth" "I/Os outstanding" "share of time" \
	    [list [list depth $qd]] 0 [skewed [lmap p $qd {lindex $p 1}]] 1] "</section>\n"
    set cache [dict get $f cache]
    set curves {}
    foreach {k name} {lru LRU fifo FIFO s3fifo S3-FIFO} {
	lappend curves [list $name [lmap r [dict get $cache $k] {
	    list [lindex $r 1] [lindex $r 3]
	}]]
    }
    set rate [dict get $cache lruSampleRate]
    set frate [dict get $cache fifoSampleRate]
    append out "<section id=\"cache\"><h2>Cacheability</h2>" \
	"<p>Footprint [esc [bytes [dict get $cache footprintBytes]]]; LRU from\
	reuse distances ([expr {[finite $rate] && $rate < 1
	    ? "SHARDS-sampled at rate [format %.4g $rate]" : "exact"}]),\
	FIFO and S3-FIFO simulated at\
	[join [lmap x $::rubicon::tracereport::cacheFractions {
	    string cat [expr {$x * 100}] %
	}] {, }] of the distinct 4 KiB blocks ([expr {[finite $frate] && $frate < 1
	    ? "on a sample of the blocks by hash, rate [format %.4g $frate]" : "exact"}])[expr {
	    [dict get $cache sample] > 1 ? ", behind a sample of 1 block in\
	    [dict get $cache sample] by hash, sizes and footprint scaled by\
	    [dict get $cache sample][expr {[dict get $cache sampleAdjust] ne ""
		? ", hit ratios adjusted for the accesses the sample missed or\
		over-counted (SHARDS_adj)" : ""}]" : ""}].</p>" \
	[svgPlot "hit ratio by cache size" "cache size (bytes)" "hit ratio" $curves 1] \
	"</section>\n"
    set pop [dict get $f popularity]
    append out "<section id=\"popularity\"><h2>Popularity</h2><p>" \
	[esc [format "%s distinct blocks; the top 1%% take %s%% of accesses, the top 10%% %s%%;\
	    Zipf exponent %s (R\u00b2 %s)" [dict get $pop distinctKeys] \
	    [cell [scaled [dict get $pop top1PercentShare] 100] %.1f] \
	    [cell [scaled [dict get $pop top10PercentShare] 100] %.1f] \
	    [cell [dict get $pop zipfExponent] %.3f] [cell [dict get $pop zipfFitR2] %.3f]]] \
	"</p>" [svgPlot "accesses by rank" rank accesses [list \
	    [list accesses [dict get $pop rankFrequency]] \
	    [list "Zipf slope from rank 1" [zipfLine [dict get $pop rankFrequency] \
		[dict get $pop zipfExponent]]]] 1 1] "</section>\n"
    set b [dict get $f burstiness]
    append out "<section id=\"burstiness\"><h2>Burstiness</h2><p>" \
	[esc [format "Hurst parameter %s (rescaled range), %s (variance-time)" \
	    [cell [dict get $b hurstRescaledRange] %.3f] \
	    [cell [dict get $b hurstVarianceTime] %.3f]]] "</p>" \
	[svgPlot "peak-to-mean I/O rate by window" "window (s)" "peak / mean" \
	    [list [list peak [dict get $b peakToMean]]] 1 1] "</section>\n"
    set raw [dict get $f readAfterWrite]
    append out "<section id=\"readafterwrite\"><h2>Read after write</h2><p>" \
	[esc [format "%s%% of block reads read a block written earlier in the run;\
	    %s%% of block writes overwrite one." \
	    [cell [scaled [dict get $raw readAfterWriteFraction] 100] %.1f] \
	    [cell [scaled [dict get $raw overwriteFraction] 100] %.1f]]] \
	"</p></section>\n"
    append out "<section id=\"cannot\"><h2>What this trace cannot tell</h2><ul>"
    foreach c [dict get $f cannot] {
	append out "<li>[esc [regsub -all {\s+} $c { }]]</li>"
    }
    if {![llength [dict get $f cannot]]} {append out "<li>nothing the report looks for is missing</li>"}
    append out "</ul></section>\n</body></html>\n"
}
