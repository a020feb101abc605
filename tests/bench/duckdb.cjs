// duckdb.cjs fig4|perdev TRACE.csv -- the Figure 4 or per-disk analysis
// in DuckDB (its Node.js package, @duckdb/node-api, which run.sh installs
// from the npm registry into bench-data/duckdb), on an MSR-Cambridge-style
// CSV: the same SQL as fig4.sql and perdev.sql, with DuckDB reading the
// CSV itself (read_csv, the way its users load a trace).  Output as
// srtbase.c.  NODE_PATH must name the node_modules holding the package.
const { DuckDBInstance } = require('@duckdb/node-api');

const [mode, path] = process.argv.slice(2);
if (!['fig4', 'perdev'].includes(mode) || !path) {
    console.error('usage: node duckdb.cjs fig4|perdev trace.csv');
    process.exit(2);
}
const load = `CREATE TABLE io AS SELECT * FROM read_csv(${quote(path)},
    header = false, columns = {'ts': 'BIGINT', 'host': 'VARCHAR',
    'disk': 'BIGINT', 'type': 'VARCHAR', 'off': 'BIGINT', 'size': 'BIGINT',
    'resp': 'BIGINT'})`;
const grouped = mode === 'fig4'
    ? `SELECT 'all' AS g, ts, size FROM io UNION ALL
       SELECT 'dev' || disk, ts, size FROM io WHERE disk IN (1, 2)`
    : `SELECT 'dev' || disk AS g, ts, size FROM io`;
const span = `SELECT min(ts) AS first, (max(ts) - min(ts)) / 1e7 AS seconds FROM io`;

function quote(s) { return "'" + s.replace(/'/g, "''") + "'"; }

async function main() {
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    await con.run(load);
    const totals = await con.runAndReadAll(`
        SELECT printf('%s count %d bytes %d rate %.17g bandwidth %.17g',
               g, count(*), sum(size), count(*) / seconds, sum(size) / seconds)
        FROM (${grouped}), (${span}) GROUP BY g, seconds`);
    const bins = await con.runAndReadAll(`
        SELECT printf('%s bin %d %d %d', g, (ts - first) // 100000000,
               count(*), sum(size))
        FROM (${grouped}), (${span}) GROUP BY g, first, (ts - first) // 100000000`);
    const out = [];
    for (const r of totals.getRows()) out.push(r[0]);
    for (const r of bins.getRows()) out.push(r[0]);
    process.stdout.write(out.join('\n') + '\n');
}

main().catch((e) => { console.error('duckdb.cjs: ' + e.message); process.exit(1); });
