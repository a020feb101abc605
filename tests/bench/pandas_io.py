"""pandas_io.py fig4|perdev TRACE.csv -- the Figure 4 or per-disk analysis
in pandas (python3-pandas), on an MSR-Cambridge-style CSV, written as a
pandas user would: read_csv, then groupby.  Output as srtbase.c (see
fig4.py and perdev.py for the same in plain Python).
"""
import sys

import pandas as pd

TICKS_PER_BIN = 10 * 10**7      # 10 s in 100 ns ticks


def main(mode, path):
    io = pd.read_csv(path, header=None, usecols=[0, 2, 5],
                     names=['ts', 'disk', 'size'],
                     dtype={'ts': 'int64', 'disk': 'int64', 'size': 'int64'})
    first = io['ts'].iloc[0]
    seconds = (io['ts'].iloc[-1] - first) / 1e7
    io['bin'] = (io['ts'] - first) // TICKS_PER_BIN
    if mode == 'fig4':
        parts = [io.assign(g='all')]
        for d in (1, 2):
            parts.append(io[io['disk'] == d].assign(g='dev%d' % d))
        grouped = pd.concat(parts, ignore_index=True)
    else:
        grouped = io.assign(g='dev' + io['disk'].astype(str))
    out = []
    totals = grouped.groupby('g', sort=False)['size'].agg(['count', 'sum'])
    for g, row in totals.iterrows():
        n, b = int(row['count']), int(row['sum'])
        out.append('%s count %d bytes %d rate %.17g bandwidth %.17g'
                   % (g, n, b, n / seconds, b / seconds))
    bins = grouped.groupby(['g', 'bin'], sort=False)['size'].agg(['count', 'sum'])
    for (g, k), row in bins.iterrows():
        out.append('%s bin %d %d %d' % (g, k, row['count'], row['sum']))
    print('\n'.join(out))


if len(sys.argv) != 3 or sys.argv[1] not in ('fig4', 'perdev'):
    sys.exit('usage: python3 pandas_io.py fig4|perdev trace.csv')
main(sys.argv[1], sys.argv[2])
