# objectdata.tcl -- object traces for the tests of the object readers and
# analyses (cachetraces.test, objects.test): the CloudPhysics requests of
# data/cloudphysics/ parsed here, and a Twitter-format trace generated
# here.  Sourced after common.tcl.

testConstraint sampleData [file isdirectory [file join $::datadir cache]]
testConstraint mpirun [expr {[auto_execok mpirun] ne ""}]

# writeFile PATH TEXT -- TEXT written as is.
proc writeFile {path text} {
    set f [open $path wb]
    puts -nonewline $f $text
    close $f
    return $path
}

# The CloudPhysics CSV (version,time,op,size,lbn; time in s, op the SCSI
# opcode in hex, lbn in sectors): a list of {time op size lbn}.
proc cloudPhysicsCsv {} {
    set f [open [plainData cloudphysics/cloudphysics-vscsi-sample.csv.gz] rb]
    gets $f
    set out {}
    while {[gets $f line] >= 0} {
	lassign [split $line ,] ver t op size lbn
	lappend out [list $t $op $size $lbn]
    }
    close $f
    return $out
}

# A Twitter-format trace of 3000 requests generated here: 200 keys in
# three namespaces drawn by a fixed generator, the operations in turn,
# ten requests a second.
proc twitterTrace {path} {
    set ops {get get gets set get delete get incr get add}
    set seed 7
    set f [open $path w]
    for {set i 0} {$i < 3000} {incr i} {
	set seed [expr {($seed * 1103515245 + 12345) % 2147483648}]
	set k [expr {($seed >> 8) % 200}]
	set ns [lindex {a b c} [expr {$k % 3}]]
	set op [lindex $ops [expr {$i % 10}]]
	puts $f [format "%d,%s:k%d,%d,%d,%d,%s,%d" [expr {$i / 10}] $ns $k \
	    [expr {4 + $k % 5}] [expr {100 + $k}] [expr {$k % 7}] $op \
	    [expr {$op in {set add incr} ? 60 : 0}]]
    }
    close $f
}

# twitterRequests PATH -- the requests of a Twitter-format file, read
# here: a list of {time key opName}, time in s.
proc twitterRequests {path} {
    set f [open $path]
    set out {}
    while {[gets $f line] >= 0} {
	lassign [split $line ,] t key ks vs client op ttl
	lappend out [list $t $key $op]
    }
    close $f
    return $out
}
