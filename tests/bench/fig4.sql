-- fig4.sql -- the Figure 4 analysis in SQL, on the table io that
-- sqlite.sh imports from an MSR-Cambridge-style CSV: I/O count, bytes,
-- rate and bandwidth of disk 1, disk 2 and all disks, and count and bytes
-- per 10 s interval (ts is in Windows 100 ns ticks).  Output as srtbase.c.
CREATE TEMP VIEW span AS
    SELECT min(ts) AS first, (max(ts) - min(ts)) / 1e7 AS seconds FROM io;
CREATE TEMP VIEW grouped AS
    SELECT 'all' AS g, ts, size FROM io
    UNION ALL
    SELECT 'dev' || disk, ts, size FROM io WHERE disk IN (1, 2);
SELECT printf('%s count %d bytes %d rate %.17g bandwidth %.17g',
              g, count(*), sum(size), count(*) / seconds, sum(size) / seconds)
    FROM grouped, span GROUP BY g;
SELECT printf('%s bin %d %d %d', g, (ts - first) / 100000000, count(*), sum(size))
    FROM grouped, span GROUP BY g, (ts - first) / 100000000;
