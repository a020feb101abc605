# splitsrt.tcl IN N PREFIX -- cuts the SRT trace IN (88-byte records after
# the header's form feed, as gensrt writes) into N files PREFIX0.srt ...
# of consecutive records, each with IN's header: the time-ordered files of
# one trace that the scale-out rows of make bench give a split run.
lassign $argv in n prefix
set f [open $in rb]
set body [expr {[string first \f [read $f 65536]] + 1}]
seek $f 0
set header [read $f $body]
set nrec [expr {([file size $in] - $body) / 88}]
for {set i 0} {$i < $n} {incr i} {
    set from [expr {$nrec * $i / $n}]
    set to [expr {$nrec * ($i + 1) / $n}]
    set out [open $prefix$i.srt.tmp wb]
    puts -nonewline $out $header
    seek $f [expr {$body + 88 * $from}]
    fcopy $f $out -size [expr {88 * ($to - $from)}]
    close $out
    file rename -force $prefix$i.srt.tmp $prefix$i.srt
}
close $f
