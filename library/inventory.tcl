# inventory.tcl --
#
#	rubicon::inventory: reads a Linux system's own description of its
#	storage -- lsblk --json --bytes, LVM's JSON reports (lvs, pvs, vgs
#	with segment columns), dmsetup table -- and turns it into Flows: one
#	per disk, partition, logical volume and volume group, fed through a
#	VolumeMapTransformer filled from the segment tables.  The same plan
#	is either built at once (rubicon::inventory flows) or written out as
#	a config to keep (rubicon::inventory config, and the generator
#	scripts/rubicon-genconfig).  Store maps (a database's tables as
#	ranges of a device or volume) use the same machinery.
#
#	Every name read from an inventory is data: it reaches a generated
#	config only as a list element, and is never evaluated.  Device
#	numbers are the Linux kernel's dev_t, major << 20 | minor, which is
#	what blktrace records.

namespace eval ::rubicon::inventory {
    namespace export lsblk lvm dmsetup devno spec flows config stores \
	kit volumemap
    namespace ensemble create -command ::rubicon::inventory
}

# devno MAJOR MINOR -- the kernel dev_t of a device.
proc ::rubicon::inventory::devno {major minor} {
    expr {(wide($major) << 20) | wide($minor)}
}

# ReadFile path -- the whole text of a file.
proc ::rubicon::inventory::ReadFile {path} {
    set ch [open $path r]
    try {
	return [read $ch]
    } finally {
	close $ch
    }
}

# Json path -- a JSON file as nested dicts and lists (tcllib's json).
proc ::rubicon::inventory::Json {path} {
    if {[catch {package require json} msg]} {
	return -code error -errorcode {RUBICON INVENTORY JSON} \
	    "reading $path needs tcllib's json package: $msg"
    }
    if {[catch {json::json2dict [ReadFile $path]} data]} {
	return -code error -errorcode {RUBICON INVENTORY FORMAT} \
	    "$path: not JSON: $data"
    }
    return $data
}

# Fail what fmt args -- raises a format error about an inventory file.
proc ::rubicon::inventory::Fail {what args} {
    return -code error -level 2 -errorcode {RUBICON INVENTORY FORMAT} \
	"$what: [join $args]"
}

# MajMin what text -- the dev_t of "MAJOR:MINOR".
proc ::rubicon::inventory::MajMin {what text} {
    if {![regexp {^\s*(\d+):(\d+)\s*$} $text -> major minor]} {
	Fail $what "bad device number \"$text\""
    }
    devno [scan $major %d] [scan $minor %d]
}

# Bytes what text -- a size in bytes from LVM or lsblk: plain bytes, or
# LVM's "4.00m" style (lower-case units are powers of 1024, as --units
# prints them), "512B", or sectors "8s".
proc ::rubicon::inventory::Bytes {what text} {
    set text [string trim $text]
    if {[string is wide -strict $text]} {
	return $text
    }
    if {![regexp {^([0-9]+(?:\.[0-9]+)?)([bBsSkKmMgGtTpP])$} $text -> n unit]} {
	Fail $what "bad size \"$text\""
    }
    set mult [dict get {b 1 s 512 k 1024 m 1048576 g 1073741824
	t 1099511627776 p 1125899906842624} [string tolower $unit]]
    expr {wide(round($n * $mult))}
}

# Count what text -- a non-negative integer.
proc ::rubicon::inventory::Count {what text} {
    set text [string trim $text]
    if {![string is wide -strict $text] || $text < 0} {
	Fail $what "bad number \"$text\""
    }
    return $text
}

# lsblk PATH -- the block devices of "lsblk --json --bytes" (any columns
# that include NAME, MAJ:MIN and TYPE): a flat list of dicts
#   name N devno D majmin M:m type T size BYTES parent P path /dev/...
# in the order lsblk prints them, each device once (a logical volume
# spread over several disks appears under each of them in lsblk's tree).
proc ::rubicon::inventory::lsblk {path} {
    set data [Json $path]
    if {![dict exists $data blockdevices]} {
	Fail $path "no \"blockdevices\" (lsblk --json output expected)"
    }
    set out {}
    set seen {}
    set stack [lmap d [lreverse [dict get $data blockdevices]] {list $d ""}]
    while {[llength $stack]} {
	lassign [lindex $stack end] d parent
	set stack [lrange $stack 0 end-1]
	foreach key {name maj:min type} {
	    if {![dict exists $d $key]} {
		Fail $path "a device without \"$key\""
	    }
	}
	set name [dict get $d name]
	if {![dict exists $seen $name]} {
	    dict set seen $name 1
	    set size [expr {[dict exists $d size] && [dict get $d size] ne "null"
		? [Bytes $path [dict get $d size]] : 0}]
	    lappend out [dict create name $name \
		devno [MajMin $path [dict get $d maj:min]] \
		majmin [string trim [dict get $d maj:min]] \
		type [dict get $d type] size $size parent $parent \
		path [expr {[dict exists $d path] ? [dict get $d path]
			    : "/dev/$name"}]]
	}
	if {[dict exists $d children]} {
	    foreach c [lreverse [dict get $d children]] {
		lappend stack [list $c $name]
	    }
	}
    }
    return $out
}

# Rows data kinds -- the rows of an LVM JSON report ({"report": [{"lv":
# [...]}]}), from whichever of the named report kinds it holds.
proc ::rubicon::inventory::Rows {what data kinds} {
    if {![dict exists $data report]} {
	Fail $what "no \"report\" (LVM --reportformat json output expected)"
    }
    set rows {}
    foreach r [dict get $data report] {
	foreach k $kinds {
	    if {[dict exists $r $k]} {
		lappend rows {*}[dict get $r $k]
	    }
	}
    }
    return $rows
}

# Field what row key -- a column of a report row, which must be there.
proc ::rubicon::inventory::Field {what row key} {
    if {![dict exists $row $key]} {
	Fail $what "a row without \"$key\" (see rubicon-genconfig(n) for the\
	    columns to ask for)"
    }
    dict get $row $key
}

# DeviceByPath devices path -- the dev_t of a device named by path (or
# "MAJOR:MINOR"), looked up in lsblk's devices.
proc ::rubicon::inventory::DeviceByPath {what devices path} {
    if {[regexp {^\d+:\d+$} $path]} {
	return [MajMin $what $path]
    }
    foreach d $devices {
	if {[dict get $d path] eq $path || [dict get $d name] eq $path
		|| "/dev/mapper/[dict get $d name]" eq $path
		|| [dict get $d name] eq [file tail $path]} {
	    return [dict get $d devno]
	}
    }
    Fail $what "device \"$path\" is not in the lsblk inventory"
}

# lvm -lvs PATH ?-pvs PATH? ?-vgs PATH? -devices DEVICES --
#	The logical volumes of LVM's JSON reports, as volume dicts
#	    name VG/LV vg VG segments {{start B length B stripeSize B
#		devices {{devno offset} ...}} ...}
#	in bytes.  -lvs is "lvs --segments --reportformat json --units b
#	--nosuffix -o lv_name,vg_name,seg_start_pe,seg_size_pe,stripes,
#	stripe_size,devices"; -pvs gives pv_name and pe_start, -vgs
#	vg_name and vg_extent_size (the defaults, 1 MiB and 4 MiB, are used
#	without them); -devices (from lsblk) turns PV paths into numbers.
proc ::rubicon::inventory::lvm {args} {
    set opts [dict merge {-lvs "" -pvs "" -vgs "" -devices {}} $args]
    set devices [dict get $opts -devices]
    set peStart {}
    if {[dict get $opts -pvs] ne ""} {
	set what [dict get $opts -pvs]
	foreach row [Rows $what [Json $what] {pv}] {
	    dict set peStart [Field $what $row pv_name] \
		[Bytes $what [Field $what $row pe_start]]
	}
    }
    set extent {}
    if {[dict get $opts -vgs] ne ""} {
	set what [dict get $opts -vgs]
	foreach row [Rows $what [Json $what] {vg}] {
	    dict set extent [Field $what $row vg_name] \
		[Bytes $what [Field $what $row vg_extent_size]]
	}
    }
    set what [dict get $opts -lvs]
    set volumes {}
    foreach row [Rows $what [Json $what] {lv seg}] {
	set vg [Field $what $row vg_name]
	set name $vg/[Field $what $row lv_name]
	set ext [expr {[dict exists $extent $vg] ? [dict get $extent $vg]
		       : 4194304}]
	set nstripes [Count $what [Field $what $row stripes]]
	set startPe [Count $what [Field $what $row seg_start_pe]]
	set sizePe [Count $what [Field $what $row seg_size_pe]]
	set areas [PvAreas $what $row]
	if {[llength $areas] != $nstripes} {
	    Fail $what "$name: [llength $areas] devices for $nstripes stripes"
	}
	set seg [dict create start [expr {$startPe * $ext}] \
	    length [expr {$sizePe * $ext}] devices [lmap a $areas {
		lassign $a pv pe
		set base [expr {[dict exists $peStart $pv]
		    ? [dict get $peStart $pv] : 1048576}]
		list [DeviceByPath $what $devices $pv] \
		    [expr {$base + $pe * $ext}]
	    }]]
	if {$nstripes > 1} {
	    dict set seg stripeSize [Bytes $what [Field $what $row stripe_size]]
	}
	AddSegment volumes $name $vg $seg
    }
    lmap {name v} $volumes {
	dict set v segments [lsort -integer -index 1 [dict get $v segments]]
    }
}

# AddSegment volumesVar name vg seg -- appends a segment (none when seg
# is empty) to the volume called name in the dict volumesVar, making the
# volume when new.
proc ::rubicon::inventory::AddSegment {volumesVar name vg seg} {
    upvar 1 $volumesVar volumes
    if {![dict exists $volumes $name]} {
	dict set volumes $name [dict create name $name vg $vg segments {}]
    }
    if {$seg ne ""} {
	set v [dict get $volumes $name]
	dict lappend v segments $seg
	dict set volumes $name $v
    }
}

# PvAreas what row -- the {pv firstExtent} areas of an lvs segment row,
# from "devices" ("/dev/sdb(128),/dev/sdc(0)") or else "seg_pe_ranges"
# ("/dev/sdb:128-383 /dev/sdc:0-255").
proc ::rubicon::inventory::PvAreas {what row} {
    if {[dict exists $row devices] && [string trim [dict get $row devices]] ne ""} {
	return [lmap d [split [string trim [dict get $row devices]] ,] {
	    if {![regexp {^(.+)\((\d+)\)$} [string trim $d] -> pv pe]} {
		Fail $what "bad devices entry \"$d\""
	    }
	    list $pv [scan $pe %d]
	}]
    }
    lmap r [split [string trim [Field $what $row seg_pe_ranges]] " "] {
	if {$r eq ""} continue
	if {![regexp {^(.+):(\d+)-(\d+)$} $r -> pv first last]} {
	    Fail $what "bad seg_pe_ranges entry \"$r\""
	}
	list $pv [scan $first %d]
    }
}

# dmsetup PATH ?-devices DEVICES? -- the device-mapper devices of
# "dmsetup table" output ("name: start length target args" in 512-byte
# sectors), as volume dicts like lvm's.  Linear and striped targets are
# mapped; a device with other targets (crypt, thin, raid...) is listed
# with only its linear and striped segments.  The volume group of an
# LVM device is the part of its name before the first single "-".
proc ::rubicon::inventory::dmsetup {path args} {
    set devices [expr {[dict exists $args -devices]
	? [dict get $args -devices] : {}}]
    set volumes {}
    set lineNo 0
    foreach line [split [ReadFile $path] \n] {
	incr lineNo
	if {[string trim $line] eq "" || [string trim $line] eq "No devices found"} {
	    continue
	}
	if {![regexp {^(.*?): (.*)$} $line -> name table]} {
	    Fail "$path:$lineNo" "expected \"name: start length target ...\""
	}
	set what "$path:$lineNo"
	set f [regexp -all -inline {\S+} $table]
	lassign $f start length target
	set start [expr {[Count $what $start] * 512}]
	set length [expr {[Count $what $length] * 512}]
	set vg ""
	if {[regexp {^((?:[^-]|--)+)-[^-]} $name -> vg]} {
	    set vg [string map {-- -} $vg]
	}
	AddSegment volumes $name $vg {}
	switch -- $target {
	    linear {
		if {[llength $f] != 5} {Fail $what "linear takes device offset"}
		set seg [dict create start $start length $length devices \
		    [list [list [DeviceByPath $what $devices [lindex $f 3]] \
			[expr {[Count $what [lindex $f 4]] * 512}]]]]
	    }
	    striped {
		set n [Count $what [lindex $f 3]]
		if {$n < 1 || [llength $f] != 5 + 2 * $n} {
		    Fail $what "striped takes #stripes chunk and a device\
			and offset per stripe"
		}
		set seg [dict create start $start length $length \
		    stripeSize [expr {[Count $what [lindex $f 4]] * 512}] \
		    devices [lmap {dev off} [lrange $f 5 end] {
			list [DeviceByPath $what $devices $dev] \
			    [expr {[Count $what $off] * 512}]
		    }]]
	    }
	    default continue
	}
	AddSegment volumes $name $vg $seg
    }
    dict values $volumes
}

# volumemap VOLUMES -- the -map of a VolumeMapTransformer for volume
# dicts, numbering them 1, 2, ... in order (a volume's "lv" key, when it
# has one, is kept).
proc ::rubicon::inventory::volumemap {volumes} {
    set i 0
    lmap v $volumes {
	incr i
	dict create lv [expr {[dict exists $v lv] ? [dict get $v lv] : $i}] \
	    name [dict get $v name] segments [dict get $v segments]
    }
}

# kit KIND -- the Analyzers (command lists) of each generated Flow:
# request rate, size, sequential runs (by volume offset for volumes and
# stores), read share and response time.
proc ::rubicon::inventory::kit {kind} {
    set seq {SeqRunAnalyzer}
    if {$kind in {lv vg store}} {
	set seq {SeqRunAnalyzer -field lvNo -offsetField lvOffset}
    }
    list RateAnalyzer SizeAnalyzer $seq ReadFractionAnalyzer \
	ResponseTimeAnalyzer
}

# OrFilter field values -- "field = v1 or field = v2 ...".
proc ::rubicon::inventory::OrFilter {field values} {
    join [lmap v $values {string cat "$field = " [expr {wide($v)}]}] " or "
}

# spec ?-devices DEVICES? ?-volumes VOLUMES? -- the plan of a config:
# a dict of "map" (the VolumeMapTransformer -map, empty without
# volumes) and "flows", a list of {kind name filter}: a flow per disk
# (its own and its partitions' device numbers), per partition, per
# volume (lvNo), per volume group (its volumes' lvNo), and "all".
proc ::rubicon::inventory::spec {args} {
    set devices [expr {[dict exists $args -devices]
	? [dict get $args -devices] : {}}]
    set map [volumemap [expr {[dict exists $args -volumes]
	? [dict get $args -volumes] : {}}]]
    set flows {}
    foreach d $devices {
	if {[dict get $d type] ne "disk"} continue
	set nos [list [dict get $d devno]]
	foreach p $devices {
	    if {[dict get $p type] eq "part" && [dict get $p parent] eq [dict get $d name]} {
		lappend nos [dict get $p devno]
	    }
	}
	lappend flows [list disk [dict get $d name] [OrFilter deviceNo $nos]]
    }
    foreach p $devices {
	if {[dict get $p type] eq "part"} {
	    lappend flows [list part [dict get $p name] \
		[OrFilter deviceNo [list [dict get $p devno]]]]
	}
    }
    set groups {}
    foreach v $map {
	lappend flows [list lv [dict get $v name] \
	    [OrFilter lvNo [list [dict get $v lv]]]]
    }
    set i 0
    foreach v [expr {[dict exists $args -volumes] ? [dict get $args -volumes] : {}}] {
	set lv [dict get [lindex $map $i] lv]
	incr i
	if {[dict exists $v vg] && [dict get $v vg] ne ""} {
	    dict lappend groups [dict get $v vg] $lv
	}
    }
    dict for {vg lvs} $groups {
	lappend flows [list vg $vg [OrFilter lvNo $lvs]]
    }
    lappend flows [list all all ""]
    dict create map $map flows $flows
}

# flows ?-devices D? ?-volumes V? ?-kit CMDPREFIX? ?-reports PREFIX?
#	?-head BOOL? -- builds the plan of spec now: its Flows, a Mux of
#	Filters under a VolumeMapTransformer (when there are volumes) made
#	the head, and Reporters writing PREFIX.log, PREFIX.json and
#	PREFIX.csv (none with -reports "").  -kit is a command prefix
#	called with a kind that returns the Analyzer command lists (default
#	rubicon::inventory kit).  Returns a list of {kind name flow}.
proc ::rubicon::inventory::flows {args} {
    set opts [dict merge {-devices {} -volumes {} -kit ::rubicon::inventory::kit
	-reports inventory -head 1} $args]
    set plan [spec -devices [dict get $opts -devices] \
	-volumes [dict get $opts -volumes]]
    set out {}
    set branches {}
    foreach entry [dict get $plan flows] {
	lassign $entry kind name filter
	set analyzers [lmap a [{*}[dict get $opts -kit] $kind] {
	    uplevel #0 $a
	}]
	set f [::rubicon::Flow $name {*}$analyzers]
	lappend out [list $kind $name $f]
	lappend branches [expr {$filter eq "" ? $f
	    : [::rubicon::Filter $filter $f]}]
    }
    set top [::rubicon::Mux {*}$branches]
    if {[llength [dict get $plan map]]} {
	set top [::rubicon::VolumeMapTransformer -map [dict get $plan map] $top]
    }
    if {[dict get $opts -head]} {
	::rubicon::head $top
    }
    set prefix [dict get $opts -reports]
    if {$prefix ne ""} {
	set all [lmap e $out {lindex $e 2}]
	::rubicon::ReporterLog {*}$all -output $prefix.log
	::rubicon::ReporterJson {*}$all -output $prefix.json
	::rubicon::ReporterCsv {*}$all -output $prefix.csv
    }
    return $out
}

# config ?-devices D? ?-volumes V? ?-reports PREFIX? ?-source TEXT? --
#	The plan of spec as the text of a config script to keep and run
#	with "rubicon CONFIG TRACE...".  Every name and number is written
#	as a list element, so a name is never substituted or run.
proc ::rubicon::inventory::config {args} {
    set opts [dict merge {-devices {} -volumes {} -reports inventory
	-source ""} $args]
    set plan [spec -devices [dict get $opts -devices] \
	-volumes [dict get $opts -volumes]]
    set lines [list \
	"# Rubicon configuration generated from a system's inventory." \
	"# Run: rubicon THIS-FILE TRACE...   (deviceNo is major << 20 | minor)"]
    if {[dict get $opts -source] ne ""} {
	lappend lines [list set inventorySource [dict get $opts -source]]
    }
    lappend lines "" [list set volumeMap {}]
    foreach v [dict get $plan map] {
	lappend lines [list lappend volumeMap $v]
    }
    lappend lines [list set flows {}] [list set branches {}]
    foreach entry [dict get $plan flows] {
	lassign $entry kind name filter
	set analyzers [lmap a [kit $kind] {string cat \[ [list {*}$a] \]}]
	lappend lines "" "# $kind" \
	    "set f \[[list Flow $name] [join $analyzers]\]" \
	    {lappend flows $f}
	if {$filter eq ""} {
	    lappend lines {lappend branches $f}
	} else {
	    lappend lines "lappend branches \[[list Filter $filter] \$f\]"
	}
    }
    lappend lines ""
    if {[llength [dict get $plan map]]} {
	lappend lines {head [VolumeMapTransformer -map $volumeMap [Mux {*}$branches]]}
    } else {
	lappend lines {head [Mux {*}$branches]}
    }
    set prefix [dict get $opts -reports]
    if {$prefix ne ""} {
	foreach {cls ext} {ReporterLog log ReporterJson json ReporterCsv csv} {
	    lappend lines "$cls {*}\$flows [list -output $prefix.$ext]"
	}
    }
    return [join $lines \n]\n
}

# stores STORES ?-on device|volume? -- a store map: STORES is a list of
# {name N ?device D | volume V? start B length B}, a database's tables
# and indexes as byte ranges of a device (deviceNo, devOffset) or of a
# logical volume (lvNo, lvOffset, after a volume map).  Returns a dict:
#   map       the -map of a VolumeMapTransformer that writes each
#             store's number into lvNo and its offset into lvOffset
#   options   the VolumeMapTransformer options reading the right fields
#   stores    a list of {number name filter}, filter "lvNo = number"
# Store numbers are 1, 2, ... in order; Filters on them are equality
# Filters, so a Mux of many stores costs about what one Filter does.
proc ::rubicon::inventory::stores {stores args} {
    set on [expr {[dict exists $args -on] ? [dict get $args -on] : "device"}]
    if {$on ni {device volume}} {
	return -code error -errorcode {RUBICON INVENTORY OPTION} \
	    "bad -on \"$on\": must be device or volume"
    }
    set key [expr {$on eq "device" ? "device" : "volume"}]
    set map {}
    set out {}
    set i 0
    foreach s $stores {
	incr i
	foreach k [list name $key start length] {
	    if {![dict exists $s $k]} {
		Fail "store $i" "missing \"$k\""
	    }
	}
	set start [Count "store $i" [dict get $s start]]
	lappend map [dict create lv $i name [dict get $s name] segments \
	    [list [dict create start 0 length [Count "store $i" [dict get $s length]] \
		devices [list [list [expr {wide([dict get $s $key])}] $start]]]]]
	lappend out [list $i [dict get $s name] "lvNo = $i"]
    }
    set options [expr {$on eq "device" ? {} :
	{-devicefield lvNo -offsetfield lvOffset}}]
    dict create map $map options $options stores $out
}
