# perdev.awk -- per-disk I/O count, bytes, rate and bandwidth, and count
# and bytes per 10 s interval, on an MSR-Cambridge-style CSV (see
# fig4.awk).  Output as srtbase.c.
BEGIN { FS = "," }
{
    t = $1 / 1e7
    if (NR == 1) first = t
    last = t
    k = int((t - first) / 10)
    g = "dev" $3
    n[g]++; b[g] += $6; bn[g, k]++; bb[g, k] += $6
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
