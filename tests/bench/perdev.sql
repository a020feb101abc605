-- perdev.sql -- per-disk I/O count, bytes, rate and bandwidth, and count
-- and bytes per 10 s interval, on the table io that sqlite.sh imports from
-- an MSR-Cambridge-style CSV.  Output as srtbase.c.
CREATE TEMP VIEW span AS
    SELECT min(ts) AS first, (max(ts) - min(ts)) / 1e7 AS seconds FROM io;
SELECT printf('dev%d count %d bytes %d rate %.17g bandwidth %.17g',
              disk, count(*), sum(size), count(*) / seconds, sum(size) / seconds)
    FROM io, span GROUP BY disk;
SELECT printf('dev%d bin %d %d %d', disk, (ts - first) / 100000000, count(*), sum(size))
    FROM io, span GROUP BY disk, (ts - first) / 100000000;
