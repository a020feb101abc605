"""perdev.py -- per-disk I/O count, bytes, rate and bandwidth, and count and
bytes per 10 s interval, on an MSR-Cambridge-style CSV (see fig4.py).
Output as srtbase.c.

    python3 perdev.py trace.csv
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
            g = 'dev' + disk
            count[g] += 1
            nbytes[g] += size
            b = bins[g, (t - first) // TICKS_PER_BIN]
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
