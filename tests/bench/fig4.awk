# fig4.awk -- the Figure 4 analysis on an MSR-Cambridge-style CSV
# (Timestamp in Windows 100 ns ticks,Hostname,DiskNumber,Type,Offset,Size,
# ResponseTime): I/O count, bytes, rate and bandwidth of disk 1, disk 2 and
# all disks, and count and bytes per 10 s interval.  Output as srtbase.c.
BEGIN { FS = "," }
{
    t = $1 / 1e7
    if (NR == 1) first = t
    last = t
    k = int((t - first) / 10)
    n["all"]++; b["all"] += $6; bn["all", k]++; bb["all", k] += $6
    if ($3 == 1) { n["dev1"]++; b["dev1"] += $6; bn["dev1", k]++; bb["dev1", k] += $6 }
    else if ($3 == 2) { n["dev2"]++; b["dev2"] += $6; bn["dev2", k]++; bb["dev2", k] += $6 }
}
END {
    s = last - first
    for (g in n) {
        printf "%s count %d bytes %.0f rate %.17g bandwidth %.17g\n", g, n[g], b[g], n[g] / s, b[g] / s
    }
    for (gk in bn) {
        split(gk, p, SUBSEP)
        printf "%s bin %d %d %.0f\n", p[1], p[2], bn[gk], bb[gk]
    }
}
