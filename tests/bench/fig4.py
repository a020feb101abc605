"""fig4.py -- the Figure 4 analysis on an MSR-Cambridge-style CSV
(Timestamp in Windows 100 ns ticks,Hostname,DiskNumber,Type,Offset,Size,
ResponseTime): I/O count, bytes, rate and bandwidth of disk 1, disk 2 and
all disks, and count and bytes per 10 s interval.  Output as srtbase.c.

    python3 fig4.py trace.csv
"""
import sys
from collections import defaultdict

TICKS_PER_BIN = 10 * 10**7      # 10 s in 100 ns ticks


def main(path):
    count = defaultdict(int)
    nbytes = defaultdict(int)
    bins = defaultdict(lambda: [0, 0])
    first = last = None
    with open(path) as f:
        for line in f:
            ts, _host, disk, _type, _off, size, _resp = line.split(',')
            t = int(ts)
            size = int(size)
            if first is None:
                first = t
            last = t
            k = (t - first) // TICKS_PER_BIN
            groups = ('all', 'dev1') if disk == '1' else \
                ('all', 'dev2') if disk == '2' else ('all',)
            for g in groups:
                count[g] += 1
                nbytes[g] += size
                b = bins[g, k]
                b[0] += 1
                b[1] += size
    seconds = (last - first) / 1e7
    out = []
    for g in count:
        out.append('%s count %d bytes %d rate %.17g bandwidth %.17g'
                   % (g, count[g], nbytes[g], count[g] / seconds,
                      nbytes[g] / seconds))
    for (g, k), (n, b) in bins.items():
        out.append('%s bin %d %d %d' % (g, k, n, b))
    print('\n'.join(out))


main(sys.argv[1])
