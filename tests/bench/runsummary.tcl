# runsummary.tcl -- for the scale-out rows of make bench: sources the
# configuration $env(RB_BENCH_CONFIG), runs it on the traces and, on rank
# 0 (the only rank that returns from a split run), writes the run's
# summary dict to $env(RB_BENCH_SUMMARY).
source $env(RB_BENCH_CONFIG)
set s [rubicon::run -progress 0 {*}$argv]
set f [open $env(RB_BENCH_SUMMARY) w]
puts $f $s
close $f
