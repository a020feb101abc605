# corpus.tcl -- the hostile-input corpus (issue 21, item 5), generated at
# test time into a directory: for every reader, a small valid trace and
# its damaged copies (empty, truncated, truncated gzip and bzip2, random
# bytes, NUL bytes, non-UTF-8, huge numbers, times going backwards,
# duplicated records, a 100 MB line), and every valid trace read with the
# wrong -format.  hostileCorpus returns one case per file with the outcome
# expected, worked out from how the file was made:
#   ok N          read to the end: N records, none skipped (either policy)
#   bad R O       record R (a line number for text) at byte offset O is
#                 malformed: under -onerror stop an error naming the file,
#                 the record and the offset; under skip N-1 records and 1
#                 skipped, where N is the format's record count
#   error         an error naming the file (a file the reader cannot read
#                 at all, or a damaged compressed stream); nothing else
#   any           read or refused, whichever, but never a crash: an error
#                 names the file
#   sum N         records + skipped = N under -onerror skip
# Seeds are written by this script (text formats, blkparse) or taken from
# the fuzz corpus and the fixtures (binary formats), whose record counts
# are stated beside them.

# The text formats: name, -format, -readeroptions, header lines, and a
# template for data line i (1-based) of a trace of one record per line.
# In a template %T is the time in the format's unit, %S the size and %O
# the offset; hugeField names the template key given 20 digits.
set ::hostileText {
    msr msr {} {} {%T,web,1,Read,%O,%S,100} S
    spc spc {} {} {0,%L,%S,R,%T} S
    disksim disksim {} {} {%T 0 %L 8 1} T
    csv csv {columns {time 1 size 2 offset 3} timeunit s} {} {%T,%S,%O} S
    magpie magpie {} {} {%T, Net/Send, Thread=4, Bytes=%S} T
    magpiecsv magpiecsv {} {time,event,Thread,Bytes} {%T,Net/Send,4,%S} T
    ftrace ftrace {} {} {  app-100   (  100) [000] ....  %T: tracing_mark_write: hello %S} T
    stardust-text stardust-text {} {#stardust} {%T 0x0100000000000001 7 1 DiskOpStart 1 %I %O %S 1} T
    alibaba alibaba {} {} {1,R,%O,%S,%T} S
    tencent tencent {} {} {%T,%L,8,0,5} L
    twitter twitter {namespace {: 1}} {} {%T,ns:k%I,4,%S,1,get,0} S
}

# The number of data records in every generated text trace.
set ::hostileN 6

# TimeOf FORMAT I -- the time of record I in the format's own unit: one
# second apart.
proc hostileTimeOf {format i} {
    switch $format {
	msr {return [expr {128166372000000000 + $i * 10000000}]}
	alibaba {return [expr {1577808000000000 + $i * 1000000}]}
	tencent {return [expr {1538323199 + $i}]}
	disksim {return [expr {$i * 1000}]}
	stardust-text {return [expr {$i * 1000000}]}
	default {return "$i.000001"}
    }
}

# hostileLine FORMAT TEMPLATE I ?KEY VALUE ...? -- data line I of a trace.
proc hostileLine {format template i args} {
    set v [dict create T [hostileTimeOf $format $i] S 4096 \
	O [expr {$i * 4096}] L [expr {$i * 8}] I $i]
    set v [dict merge $v $args]
    string map [list %T [dict get $v T] %S [dict get $v S] %O [dict get $v O] \
	%L [dict get $v L] %I [dict get $v I]] $template
}

# writeBytes PATH DATA -- writes DATA (a byte string) as is.
proc hostileWrite {path data} {
    set ch [open $path wb]
    puts -nonewline $ch $data
    close $ch
}

# hostileRandom N SEED -- N bytes from a fixed generator, none a newline.
proc hostileRandom {n seed} {
    set out {}
    for {set i 0} {$i < $n} {incr i} {
	set seed [expr {($seed * 1103515245 + 12345) % 2147483648}]
	set b [expr {($seed >> 16) & 0xff}]
	if {$b == 10} {set b 11}
	append out [binary format c $b]
    }
    return $out
}

# hostileCompress PATH PROGRAM -- PATH compressed by gzip or bzip2 into
# PATH.gz or PATH.bz2; returns the new name.
proc hostileCompress {path program} {
    set ext [dict get {gzip .gz bzip2 .bz2} $program]
    exec $program -c $path > $path$ext
    return $path$ext
}

# hostileCut PATH OUT KEEP -- the first KEEP bytes of PATH into OUT.
proc hostileCut {path out keep} {
    set ch [open $path rb]
    set data [read $ch]
    close $ch
    hostileWrite $out [string range $data 0 [expr {$keep - 1}]]
}

# hostileTextCases DIR -- the cases of the text formats.
proc hostileTextCases {dir} {
    set cases {}
    set N $::hostileN
    foreach {name format ro header template huge} $::hostileText {
	set base [file join $dir $name]
	set head [expr {[llength $header] ? "[join $header \n]\n" : ""}]
	set h [llength $header]
	set lines {}
	for {set i 1} {$i <= $N} {incr i} {
	    lappend lines [hostileLine $format $template $i]
	}
	set body "[join $lines \n]\n"
	# Byte offset of data line 3, the one the damaged copies replace.
	set off3 [expr {[string length $head]
	    + [string length [join [lrange $lines 0 1] \n]] + 1}]
	set c [list format $format ro $ro n $N]

	hostileWrite $base.valid $head$body
	lappend cases [dict merge $c [list file $base.valid expect [list ok $N]]]
	hostileWrite $base.crlf [string map [list \n \r\n] $head$body]
	lappend cases [dict merge $c [list file $base.crlf expect [list ok $N]]]
	# Empty: no records, or (magpiecsv, whose header is required) an
	# error naming the file.
	hostileWrite $base.empty ""
	lappend cases [dict merge $c [list file $base.empty expect \
	    [expr {$format eq "magpiecsv" ? "error" : "ok 0"}]]]
	if {$h} {
	    hostileWrite $base.headeronly $head
	    lappend cases [dict merge $c [list file $base.headeronly \
		expect {ok 0}]]
	}
	# Line 3 replaced: NUL bytes, bytes that are not UTF-8, random bytes,
	# a huge number, a negative size, a word for the time.
	set bad [dict create \
	    nul [string repeat \0 24] \
	    nonutf8 [hostileLine $format $template 3 T \xff\xfe\xc0\x80] \
	    random [hostileRandom 40 $h$N[string length $name]] \
	    huge [hostileLine $format $template 3 $huge 99999999999999999999] \
	    word [hostileLine $format $template 3 T soon]]
	dict for {kind line} $bad {
	    set data "$head[join [lreplace $lines 2 2 $line] \n]\n"
	    set f $base.$kind
	    hostileWrite $f [encoding convertto iso8859-1 $data]
	    set expect [list bad [expr {$h + 3}] $off3]
	    lappend cases [dict merge $c [list file $f expect $expect]]
	}
	# The last line cut to its first 8 bytes: a short record.
	set last [expr {[string length $head$body]
	    - [string length [lindex $lines end]] - 1}]
	hostileWrite $base.truncated [string range $head$body 0 [expr {$last + 7}]]
	lappend cases [dict merge $c [list file $base.truncated expect \
	    [list bad [expr {$h + $N}] $last]]]
	# Times going backwards: records 4 and 5 before 2 and 3.  The
	# record of time 2, the 4th line, is the first to go back; it and
	# the next (time 3) are out of order, time 6 is not.  Stardust
	# records need only be in time order per process (doc/Stardust.n)
	# and are delivered as they come.
	set back [lmap i {0 3 4 1 2 5} {lindex $lines $i}]
	hostileWrite $base.backwards "$head[join $back \n]\n"
	set off4 [expr {[string length $head]
	    + [string length [join [lrange $back 0 2] \n]] + 1}]
	lappend cases [dict merge $c [list file $base.backwards expect \
	    [expr {$format eq "stardust-text" ? [list ok $N]
		: [list back [expr {$h + 4}] $off4]}]]]
	set dup {}
	foreach l $lines {lappend dup $l $l}
	hostileWrite $base.duplicated "$head[join $dup \n]\n"
	lappend cases [dict merge $c [list file $base.duplicated \
	    expect [list ok [expr {2 * $N}]]]]
	# No newline at the end: the last line still counts.
	hostileWrite $base.nonewline "$head[join $lines \n]"
	lappend cases [dict merge $c [list file $base.nonewline \
	    expect [list ok $N]]]
	lappend cases {*}[hostileCompressedCases $base.valid $c $N]
    }
    return $cases
}

# hostileCompressedCases FILE C N -- a valid FILE gzip'd and bzip2'd
# whole (N records), cut in half, and with its compressed data overwritten
# by random bytes past the magic number.
proc hostileCompressedCases {file c n} {
    set cases {}
    foreach program {gzip bzip2} {
	set z [hostileCompress $file $program]
	lappend cases [dict merge $c [list file $z expect [list ok $n]]]
	set size [file size $z]
	set ext [file extension $z]
	hostileCut $z [file rootname $z].half$ext [expr {$size / 2}]
	lappend cases [dict merge $c [list file [file rootname $z].half$ext \
	    expect error]]
	hostileCut $z [file rootname $z].magic$ext 4
	lappend cases [dict merge $c [list file [file rootname $z].magic$ext \
	    expect error]]
	set ch [open $z rb]
	set data [read $ch]
	close $ch
	hostileWrite [file rootname $z].garbled$ext \
	    [string range $data 0 9][hostileRandom [expr {$size - 10}] $size]
	lappend cases [dict merge $c [list file [file rootname $z].garbled$ext \
	    expect error]]
    }
    return $cases
}

# The binary and JSON formats: name, -format, seed in tests/fuzz/corpus,
# records in the seed, bytes of header before the first record and bytes
# per record (0: records are not of fixed size).
# Record counts: five-records is five SRT records (its name; the SRT
# reader of common.tcl agrees); io-five.plain two blocks of five; mixed
# six records, one per activity record in the fuzz harness's seed;
# small.blktrace.0, CPU 0's events of blkparse/small.txt, 3 I/Os (the
# read of sector 5000 is issued and completed on CPU 1, so alone it stays
# incomplete); a
# blkparse trace of 3 Q/D/C triples is 3 I/Os; Zipkin's shared is three
# spans, each a Call, a Reply and a SpanSelf, two with a parent (a
# Stitch) and one with a remote endpoint: 12 records; the OTLP shop trace
# of tests/stardust is five spans, each a Call, a Reply and a SpanSelf,
# four with a parent and three with a peer.service: 22 records; the
# ftrace blk tracer's merge is two bios merged into one I/O, the block
# events' heads two I/Os; oraclegeneral's five five 24-byte records,
# vscsi's v1-five five 32-byte records (both written from their formats'
# descriptions, tests/fuzz/corpus).
set ::hostileBinary {
    srt srt fuzz/corpus/srt/five-records 5 ff 88
    native native fuzz/corpus/native/io-five.plain 10 0 0
    stardust stardust fuzz/corpus/stardust/mixed 6 0 0
    blktrace blktrace fixtures/blktrace/small.blktrace.0 3 0 0
    blkparse blkparse {} 3 0 0
    zipkin zipkin fuzz/corpus/zipkin/shared 12 0 0
    otlp otlp stardust/otlp-shop.json 22 0 0
    blktracer blktracer fuzz/corpus/blktracer/merge 1 0 0
    blockevents blockevents fuzz/corpus/blockevents/heads 2 0 0
    oraclegeneral oraclegeneral fuzz/corpus/oraclegeneral/five 5 0 24
    vscsi vscsi fuzz/corpus/vscsi/v1-five 5 0 32
}

# hostileBlkparse -- blkparse's text of 3 reads, each queued, issued and
# completed.
proc hostileBlkparse {} {
    set out {}
    for {set i 1} {$i <= 3} {incr i} {
	set s [expr {$i * 1000}]
	foreach {a pid end} {Q 100 app D 100 app C 0 0} t {1 2 3} {
	    append out [format "  8,16   0 %5d %5d.00000%d000 %5d  %s   R %d + 8 \[%s\]\n" \
		[incr seq] $i $t $pid $a $s $end]
	}
    }
    return $out
}

# hostileBinaryCases DIR TESTSDIR -- the cases of the binary formats.
proc hostileBinaryCases {dir tests} {
    set cases {}
    foreach {name format seed n head reclen} $::hostileBinary {
	if {$seed eq ""} {
	    set data [hostileBlkparse]
	} else {
	    set ch [open [file join $tests $seed] rb]
	    set data [read $ch]
	    close $ch
	}
	set size [string length $data]
	if {$head eq "ff"} {
	    # SRT: the records start after the header's form feed.
	    set head [expr {[string first \f $data] + 1}]
	}
	set base [file join $dir $name]
	set c [list format $format ro {} n $n]
	hostileWrite $base.valid $data
	lappend cases [dict merge $c [list file $base.valid expect [list ok $n]]]
	hostileWrite $base.empty ""
	lappend cases [dict merge $c [list file $base.empty expect any]]
	foreach keep [list 1 [expr {$size / 3}] [expr {$size / 2}] \
		[expr {$size - 1}]] {
	    hostileWrite $base.cut$keep [string range $data 0 [expr {$keep - 1}]]
	    # Fixed-size records: a cut inside the header is an error; one
	    # inside record R leaves R-1 whole records and R malformed.
	    set expect any
	    set r 0
	    if {$reclen && $keep <= $head} {
		set expect error
	    } elseif {$reclen && ($keep - $head) % $reclen} {
		set r [expr {($keep - $head) / $reclen + 1}]
		set expect [list bad $r [expr {$head + ($r - 1) * $reclen}]]
	    }
	    lappend cases [dict merge $c [list file $base.cut$keep n $r \
		expect $expect]]
	}
	# The body (past the first 16 bytes) zeroed, or random.
	hostileWrite $base.nul [string range $data 0 15][string repeat \0 [expr {$size - 16}]]
	lappend cases [dict merge $c [list file $base.nul expect any]]
	hostileWrite $base.random [string range $data 0 15][hostileRandom [expr {$size - 16}] 7]
	lappend cases [dict merge $c [list file $base.random expect any]]
	hostileWrite $base.allrandom [hostileRandom 4096 11]
	lappend cases [dict merge $c [list file $base.allrandom expect any]]
	if {$reclen} {
	    set recs {}
	    for {set i 0} {$i < $n} {incr i} {
		lappend recs [string range $data [expr {$head + $i * $reclen}] \
		    [expr {$head + ($i + 1) * $reclen - 1}]]
	    }
	    set h [string range $data 0 [expr {$head - 1}]]
	    hostileWrite $base.duplicated $h[join [lmap r $recs {string cat $r $r}] ""]
	    lappend cases [dict merge $c [list file $base.duplicated \
		expect [list ok [expr {2 * $n}]]]]
	    hostileWrite $base.backwards $h[join [lreverse $recs] ""]
	    lappend cases [dict merge $c [list file $base.backwards \
		expect [list sum $n]]]
	    # Half a record at the end: the n whole ones are read, then
	    # record n+1 is malformed.
	    hostileWrite $base.halfrecord $data[string range [lindex $recs 0] 0 [expr {$reclen / 2 - 1}]]
	    lappend cases [dict merge $c [list file $base.halfrecord \
		n [expr {$n + 1}] expect [list bad [expr {$n + 1}] \
		    [expr {$head + $n * $reclen}]]]]
	}
	lappend cases {*}[hostileCompressedCases $base.valid $c $n]
    }
    return $cases
}

# hostileWrongFormat CASES -- every valid trace read as every other
# format.
proc hostileWrongFormat {cases} {
    set valid [lmap c $cases {
	expr {[string match *.valid [dict get $c file]] ? $c : [continue]}
    }]
    set out {}
    foreach c $valid {
	foreach o $valid {
	    if {[dict get $o format] ne [dict get $c format]} {
		lappend out [dict create format [dict get $o format] \
		    ro [dict get $o ro] n 0 file [dict get $c file] expect any]
	    }
	}
    }
    return $out
}

# hostileCorpus DIR TESTSDIR -- writes the corpus into DIR; the cases.
# Seeds of the binary formats are read from TESTSDIR.
proc hostileCorpus {dir tests} {
    set cases [concat [hostileTextCases $dir] [hostileBinaryCases $dir $tests]]
    concat $cases [hostileWrongFormat $cases]
}
