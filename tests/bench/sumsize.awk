# sumsize.awk -- the awk baseline of the parse rows: sums one column (the
# request size: -v col=6 for the MSR CSV, -v col=3 for SPC) of a
# comma-separated trace and prints the total, which must equal the
# Bytes of sum.tcl's Flow (tests/bench.test checks it).
BEGIN { FS = "," }
{ s += $col }
END { printf "%.0f\n", s }
