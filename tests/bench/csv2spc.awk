# csv2spc.awk -- rewrites the benchmark's MSR-style CSV
# (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime, times in
# Windows 100 ns ticks) as an SPC trace of the same records
# (ASU,LBA,Size,Opcode,Timestamp; doc/spc.n), for the SPC parse row.
# The timestamp is seconds from the first record's whole second, written
# from the tick count's digits: 18-digit tick counts do not fit a double
# exactly, so they are never converted to one.  Offsets are multiples of
# 512 (gensrt.c), so LBA = Offset / 512 is exact.
BEGIN { FS = "," }
{
    n = length($1)
    sec = substr($1, 1, n - 7) + 0
    if (NR == 1) sec0 = sec
    printf "%d,%.0f,%d,%s,%d.%s\n", $3, $5 / 512, $6, \
	tolower(substr($4, 1, 1)), sec - sec0, substr($1, n - 6)
}
