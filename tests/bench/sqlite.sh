#!/bin/sh
# sqlite.sh QUERY.sql TRACE.csv -- the sqlite3 baseline as a user would run
# it: import the MSR-style CSV into an in-memory table, then run the query.
# The import is part of what is timed.
set -e
[ $# -eq 2 ] || { echo "usage: sqlite.sh query.sql trace.csv" >&2; exit 2; }
sqlite3 -batch :memory: <<SQL
CREATE TABLE io(ts INTEGER, host TEXT, disk INTEGER, type TEXT,
                off INTEGER, size INTEGER, resp INTEGER);
.import --csv $2 io
.read $1
SQL
