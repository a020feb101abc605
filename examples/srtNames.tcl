# srtNames.tcl --
#
#	Helpers shared by the examples that read HP SRT traces: HP-UX names
#	for devices and LVM volumes, and a first pass that lists the devices
#	and volumes a trace touches.

# devName DEV -- "dev MAJOR/0xMINOR": an HP-UX dev_t is an 8-bit major and
# a 24-bit minor.
proc devName {dev} {
    format "dev %d/0x%06x" [expr {$dev >> 24}] [expr {$dev & 0xffffff}]
}

# lvName LV -- "vgVV/lvolLL": an LVM volume's dev_t has major 64 and minor
# 0xVV00LL.
proc lvName {lv} {
    if {($lv >> 24) == 64} {
	return [format "vg%02d/lvol%d" [expr {($lv >> 16) & 0xff}] [expr {$lv & 0xff}]]
    }
    return [format "lv 0x%08x" $lv]
}

# srtKeys TRACE -- runs once over the trace and returns a dict with the
# sorted lists of its "devices" and "volumes" (then deletes the DAG).
proc srtKeys {trace} {
    set scan [Flow scan [SeqRunAnalyzer -field deviceNo] \
			[SeqRunAnalyzer -field lvNo -prefix LV]]
    head $scan
    rubicon::run -progress 0 $trace
    set keys [dict create \
	devices [lmap row [dict get [$scan get SeqRunsByDevice] rows] {lindex $row 0}] \
	volumes [lmap row [dict get [$scan get LVSeqRunsByDevice] rows] {lindex $row 0}]]
    rubicon::reset
    return $keys
}
