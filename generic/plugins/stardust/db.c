/*
 * db.c --
 *
 *	StardustDatabaseAnalyzer: the activity database in SQLite, as
 *	Stardust kept it.  A table per record type of the type set (columns
 *	time, breadcrumb, client, pid, tid, then the type's attributes; the
 *	pid column tells the endpoints apart), the Stitch table being the
 *	stitch table; rows go in by prepared statements, 16 batches to a
 *	transaction; a breadcrumb index on every table is built after the load,
 *	when it is cheapest; views give virtual counters.  The file is
 *	written under a temporary name and renamed at the end of the run.
 *	Query it with the sqlite3 Tcl package or the sqlite3 program.
 *
 *	The name reaches SQLite as a plain file name, never a URI (a
 *	relative one is given as "./NAME", and the file SQLite opened is
 *	checked against it), so that "file:/elsewhere.db?..." cannot move
 *	the database out of safe mode's output directory; safe mode's
 *	-outlimit bounds it with max_page_count.
 *
 *	Mergeable, exactly: in a split run each shard's committed database
 *	file travels whole to the rank merging it, which appends its tables'
 *	rows to its own in their order; indexes, roll-up and views are built
 *	at the end from the merged rows, as one process builds them.
 */

#ifdef HAVE_SQLITE3

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>
#include "plugins/stardust/stardust.h"

typedef struct DbState {
    char *output;		/* -output */
    char *typeset;		/* -typeset */

    SdTypeSet *set;
    sqlite3 *db;
    char *tmpPath;
    sqlite3_stmt **insert;	/* per type of the set */
    int64_t *typeIds;		/* type name string id per type */
    int fields[SD_F_NFIXED];
    uint64_t rows;
    int batches;		/* in the open transaction */
    Tcl_Interp *interp;		/* The run's, for -outlimit. */
    int full;			/* An insert met the -outlimit bound. */
    char *partPath;		/* A later shard's database, received in a
				 * split run, waiting for the merge. */
} DbState;

static const Rb_Option dbOptions[] = {
    {"-output", RB_OPT_STRING, offsetof(DbState, output), "stardust.db",
     "the SQLite database file written"},
    {"-typeset", RB_OPT_STRING, offsetof(DbState, typeset), SD_DEFAULT_SET,
     "the type set whose record types become tables"},
    {NULL}
};

/* Batches per transaction: few commits, and a failed run loses little. */
#define TXN_BATCHES 16

static const char *const dbAttrs[] = {"DatabaseRows", "Database", NULL};

/*
 * The roll-up: for every stitched breadcrumb, the root requests its work
 * belongs to and the share each bears, by StardustDemandAnalyzer's rule
 * (a node with k parents gives each 1/k): the sum over the paths from a
 * root of the product of 1/k along them, paths cut at
 * SD_MAX_STITCH_DEPTH stitches.  Built after the load, in SQL, so it costs
 * disk rather than memory.  The sum is taken level by level: the weight
 * of (breadcrumb, root) at depth d + 1 is the sum over its parents of
 * their weight at depth d over k, which is the sum over the paths of that
 * length without listing them (their number can grow exponentially with
 * the depth where requests share stitched work, and grows without bound
 * through a cycle of stitches).
 */
static const char rollupHeadSql[] =
    "CREATE TEMP TABLE edges AS SELECT DISTINCT srcBreadcrumb AS src,"
    " dstBreadcrumb AS dst FROM Stitch WHERE src != dst AND src != 0"
    " AND dst != 0;"
    "CREATE INDEX temp.edges_src ON edges (src);"
    "CREATE TEMP TABLE indegree AS SELECT dst AS bc, COUNT(*) AS k"
    " FROM edges GROUP BY dst;"
    "CREATE UNIQUE INDEX temp.indegree_bc ON indegree (bc);"
    "CREATE TEMP TABLE lvl AS SELECT DISTINCT src AS bc, src AS root,"
    " 1.0 AS weight FROM edges WHERE src NOT IN (SELECT bc FROM indegree);"
    "CREATE TEMP TABLE acc AS SELECT bc, root, weight FROM lvl;";
/* One level deeper (run SD_MAX_STITCH_DEPTH times). */
static const char rollupStepSql[] =
    "CREATE TEMP TABLE nxt AS SELECT e.dst AS bc, p.root AS root,"
    " SUM(p.weight / i.k) AS weight FROM lvl p"
    " JOIN edges e ON e.src = p.bc JOIN indegree i ON i.bc = e.dst"
    " GROUP BY e.dst, p.root;"
    "INSERT INTO acc SELECT bc, root, weight FROM nxt;"
    "DROP TABLE temp.lvl; ALTER TABLE temp.nxt RENAME TO lvl;";
static const char rollupTailSql[] =
    "CREATE TABLE rollup AS SELECT bc AS breadcrumb, root,"
    " (root >> 56) & 255 AS client, SUM(weight) AS weight FROM acc"
    " GROUP BY bc, root;"
    "CREATE INDEX rollup_breadcrumb ON rollup (breadcrumb);"
    "DROP TABLE temp.edges; DROP TABLE temp.indegree;"
    "DROP TABLE temp.lvl; DROP TABLE temp.acc;";

/*
 * Virtual counters.  A record's breadcrumb found in rollup counts for
 * its roots' clients by their shares; one not stitched counts whole for
 * its own client.
 */
#define ROLLED(alias) " LEFT JOIN rollup r ON r.breadcrumb = " alias \
    ".breadcrumb"
static const char viewsSql[] =
    "CREATE VIEW client_network AS SELECT COALESCE(r.client, n.client)"
    " AS client, SUM(COALESCE(r.weight, 1.0)) AS transmits,"
    " SUM(COALESCE(r.weight, 1.0) * n.bytes) AS bytes"
    " FROM NetworkTransmit n" ROLLED("n") " GROUP BY 1;"
    "CREATE VIEW disk_service AS SELECT s.breadcrumb AS breadcrumb,"
    " s.client AS client, s.disk AS disk, s.ioId AS ioId, s.size AS size,"
    " e.time - s.time AS service_ns FROM DiskOpStart s JOIN DiskOpEnd e"
    " ON e.disk = s.disk AND e.ioId = s.ioId;"
    "CREATE VIEW client_disk AS SELECT COALESCE(r.client, d.client)"
    " AS client, SUM(COALESCE(r.weight, 1.0)) AS ops,"
    " SUM(COALESCE(r.weight, 1.0) * d.service_ns) / 1e9 AS service_s"
    " FROM disk_service d" ROLLED("d") " GROUP BY 1;"
    "CREATE VIEW buffer_accesses AS"
    " SELECT time, breadcrumb, client, 'ReadHit' AS kind, file, offset, size"
    " FROM BufferReadHit UNION ALL SELECT time, breadcrumb, client,"
    " 'ReadMiss', file, offset, size FROM BufferReadMiss UNION ALL"
    " SELECT time, breadcrumb, client, 'Write', file, offset, size FROM"
    " BufferWrite UNION ALL SELECT time, breadcrumb, client, 'ReadAhead',"
    " file, offset, size FROM BufferReadAhead UNION ALL SELECT time,"
    " breadcrumb, client, 'Flush', file, offset, size FROM BufferFlush"
    " UNION ALL SELECT time, breadcrumb, client, 'Evict', file, offset, size"
    " FROM BufferEvict;"
    "CREATE VIEW client_buffer AS SELECT COALESCE(r.client, b.client)"
    " AS client, b.kind AS kind, SUM(COALESCE(r.weight, 1.0)) AS accesses"
    " FROM buffer_accesses b" ROLLED("b") " GROUP BY 1, 2;";

/*
 * CloseDb --
 *	Finalizes statements and closes the database; removes the
 *	temporary file unless keep.
 */
static void
CloseDb(DbState *st, int keep)
{
    int k;

    if (st->insert != NULL) {
	for (k = 0; k < st->set->ntypes; k++) {
	    sqlite3_finalize(st->insert[k]);
	}
	free(st->insert);
	st->insert = NULL;
    }
    free(st->typeIds);
    st->typeIds = NULL;
    if (st->db != NULL) {
	sqlite3_close(st->db);
	st->db = NULL;
    }
    if (st->tmpPath != NULL) {
	if (!keep) {
	    unlink(st->tmpPath);
	}
	free(st->tmpPath);
	st->tmpPath = NULL;
    }
    if (st->set != NULL) {
	Sd_TypeSetRelease(st->set);
	st->set = NULL;
    }
    if (st->partPath != NULL) {
	unlink(st->partPath);
	free(st->partPath);
	st->partPath = NULL;
    }
}

static void
DbFree(Rb_Analyzer *a)
{
    CloseDb(a->state, 0);
}

/*
 * LimitError --
 *	The database met max_page_count, set from safe mode's -outlimit:
 *	records the analyzer error RUBICON SAFE LIMIT OUTPUT (once).
 */
static void
LimitError(Rb_Analyzer *a, DbState *st)
{
    if (st->full) {
	return;
    }
    st->full = 1;
    /* Charging more than is left marks the limit reached and words the
     * message. */
    Rb_SafeOutputCharge(st->interp, st->output, INT64_MAX);
    Rb_AnalyzerError(a, "RUBICON SAFE LIMIT OUTPUT", "%s",
	    Tcl_GetStringResult(st->interp));
    Tcl_ResetResult(st->interp);
}

/*
 * Exec --
 *	Runs SQL; on failure records an analyzer error quoting SQLite (the
 *	output limit's when the database is full under -outlimit).
 */
static int
Exec(Rb_Analyzer *a, DbState *st, const char *sql)
{
    char *msg = NULL;
    int rc = sqlite3_exec(st->db, sql, NULL, NULL, &msg);

    if (rc == SQLITE_FULL && st->interp != NULL
	    && Rb_SafeOutputLeft(st->interp) >= 0) {
	sqlite3_free(msg);
	LimitError(a, st);
	return TCL_ERROR;
    }
    if (rc != SQLITE_OK) {
	Rb_AnalyzerError(a, "RUBICON STARDUST DATABASE", "%s: %s",
		st->output, msg ? msg : sqlite3_errmsg(st->db));
	sqlite3_free(msg);
	return TCL_ERROR;
    }
    return TCL_OK;
}

/*
 * CreateTables --
 *	A table and a prepared insert per record type.
 */
static int
CreateTables(Rb_Analyzer *a, DbState *st, const Rb_RunInfo *run)
{
    Tcl_DString create, insert;
    int k, j;

    st->insert = Rb_AllocArray(st->set->ntypes, sizeof(sqlite3_stmt *));
    st->typeIds = Rb_AllocArray(st->set->ntypes, sizeof(int64_t));
    Tcl_DStringInit(&create);
    Tcl_DStringInit(&insert);
    for (k = 0; k < st->set->ntypes; k++) {
	const SdType *t = &st->set->types[k];

	st->typeIds[k] = Rb_SchemaIntern(run->schema, t->name,
		strlen(t->name));
	Tcl_DStringSetLength(&create, 0);
	Tcl_DStringSetLength(&insert, 0);
	Tcl_DStringAppend(&create, "CREATE TABLE \"", -1);
	Tcl_DStringAppend(&create, t->name, -1);
	Tcl_DStringAppend(&create, "\" (time INTEGER, breadcrumb INTEGER, "
		"client INTEGER, pid INTEGER, tid INTEGER", -1);
	Tcl_DStringAppend(&insert, "INSERT INTO \"", -1);
	Tcl_DStringAppend(&insert, t->name, -1);
	Tcl_DStringAppend(&insert, "\" VALUES (?,?,?,?,?", -1);
	for (j = 0; j < t->nattrs; j++) {
	    Tcl_DStringAppend(&create, ", \"", -1);
	    Tcl_DStringAppend(&create, t->attrs[j].name, -1);
	    Tcl_DStringAppend(&create, t->attrs[j].type == SD_STRING
		    ? "\" TEXT" : "\" INTEGER", -1);
	    Tcl_DStringAppend(&insert, ",?", 2);
	}
	Tcl_DStringAppend(&create, ")", 1);
	Tcl_DStringAppend(&insert, ")", 1);
	if (Exec(a, st, Tcl_DStringValue(&create)) != TCL_OK) {
	    goto fail;
	}
	if (sqlite3_prepare_v2(st->db, Tcl_DStringValue(&insert), -1,
		&st->insert[k], NULL) != SQLITE_OK) {
	    Rb_AnalyzerError(a, "RUBICON STARDUST DATABASE", "%s: %s",
		    st->output, sqlite3_errmsg(st->db));
	    goto fail;
	}
    }
    Tcl_DStringFree(&create);
    Tcl_DStringFree(&insert);
    return TCL_OK;

  fail:
    Tcl_DStringFree(&create);
    Tcl_DStringFree(&insert);
    return TCL_ERROR;
}

/*
 * DbInit --
 *	Checks -output, at creation and configure: in safe mode the database
 *	must lie inside the output directory (the default, stardust.db, is
 *	written to the current directory, which safe mode makes that one).
 *	A configure that fails keeps the previous value; DbStart checks
 *	again, as the directory may have changed since.
 */
static int
DbInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    DbState *st = a->state;

    return Rb_SafeCheckWrite(interp, st->output);
}

/*
 * DbStart --
 *	Opens a fresh database under a temporary name, made for bulk loading
 *	(no journal, no syncs: a failed run leaves nothing under -output).
 */
static int
DbStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    DbState *st = a->state;
    char real[PATH_MAX];
    const char *opened;
    Tcl_WideInt left;
    struct stat sb;
    size_t n;
    int k;
    static const char *const fixed[SD_F_NFIXED] = {
	"time", "breadcrumb", "client", "pid", "tid", "type"
    };

    CloseDb(st, 0);
    st->rows = 0;
    st->batches = 0;
    if (Sd_CheckSchema(a, run) != TCL_OK) {
	return TCL_ERROR;
    }
    if (Rb_SafeCheckWrite(run->interp, st->output) != TCL_OK) {
	Rb_AnalyzerError(a, "RUBICON SAFE DENIED", "%s",
		Tcl_GetStringResult(run->interp));
	return TCL_ERROR;
    }
    for (k = 0; k < SD_F_NFIXED; k++) {
	if (Rb_AnalyzerField(a, run, fixed[k], &st->fields[k]) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    st->set = Sd_TypeSetGet(st->typeset);
    /* Named for the instance too: a split run's merge starts another
     * instance of the same -output in this process.  A relative name
     * gets "./", so that SQLite never reads it as a "file:" URI. */
    n = strlen(st->output) + 64;
    st->tmpPath = Rb_Alloc(n);
    snprintf(st->tmpPath, n, "%s%s.tmp-%d-%lx",
	    st->output[0] == '/' ? "" : "./", st->output, (int)getpid(),
	    (unsigned long)(uintptr_t)st);
    if (stat(st->output, &sb) == 0 && !S_ISREG(sb.st_mode)) {
	Rb_AnalyzerError(a, "RUBICON STARDUST DATABASE", "%s: not a regular "
		"file; a database is written only to one", st->output);
	CloseDb(st, 0);
	return TCL_ERROR;
    }
    unlink(st->tmpPath);
    /* One thread uses the connection: no SQLite mutexes.  No URI flag,
     * and no link followed. */
    if (sqlite3_open_v2(st->tmpPath, &st->db, SQLITE_OPEN_READWRITE
	    | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
	    NULL) != SQLITE_OK) {
	Rb_AnalyzerError(a, "RUBICON STARDUST DATABASE", "%s: %s",
		st->output, sqlite3_errmsg(st->db));
	CloseDb(st, 0);
	return TCL_ERROR;
    }
    opened = sqlite3_db_filename(st->db, "main");
    if (opened == NULL || realpath(st->tmpPath, real) == NULL
	    || strcmp(opened, real) != 0) {
	Rb_AnalyzerError(a, "RUBICON STARDUST DATABASE", "%s: SQLite opened "
		"\"%s\", not the file named", st->output,
		opened ? opened : "");
	CloseDb(st, 0);
	return TCL_ERROR;
    }
    st->interp = run->interp;
    st->full = 0;
    left = run->interp ? Rb_SafeOutputLeft(run->interp) : -1;
    if (left >= 0) {
	char *sql = sqlite3_mprintf("PRAGMA page_size=4096; "
		"PRAGMA max_page_count=%lld;", (long long)(left / 4096));
	int rc = Exec(a, st, sql);

	sqlite3_free(sql);
	if (rc != TCL_OK) {
	    CloseDb(st, 0);
	    return TCL_ERROR;
	}
    }
    /* temp_store=MEMORY: SQLite's temporary tables and indices (sorts
     * for CREATE INDEX) stay in memory, bounded by -memlimit, instead
     * of files in /tmp that no -outlimit sees. */
    if (Exec(a, st, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
	    " PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536;"
	    " PRAGMA temp_store=MEMORY;")
	    != TCL_OK || CreateTables(a, st, run) != TCL_OK) {
	CloseDb(st, 0);
	return TCL_ERROR;
    }
    return TCL_OK;
}

/*
 * DbBatch --
 *	Inserts the selected records, TXN_BATCHES batches to a transaction.
 *	A record whose type is not in the set (another set's schema) is left
 *	out.
 */
static void
DbBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    DbState *st = a->state;
    int j, k, x;

    if (st->db == NULL) {
	return;
    }
    if (st->batches++ == 0) {
	sqlite3_exec(st->db, "BEGIN", NULL, NULL, NULL);
    }
    for (j = 0; j < nsel; j++) {
	int i = (int)sel[j];
	int64_t type = b->col[st->fields[5]][i];
	const SdType *t;
	sqlite3_stmt *s;

	for (k = 0; k < st->set->ntypes && st->typeIds[k] != type; k++) {
	}
	if (k == st->set->ntypes) {
	    continue;
	}
	t = &st->set->types[k];
	s = st->insert[k];
	for (x = 0; x < 5; x++) {
	    sqlite3_bind_int64(s, x + 1, b->col[st->fields[x]][i]);
	}
	for (x = 0; x < t->nattrs; x++) {
	    int64_t v = b->col[t->attrs[x].field][i];

	    if (v == RB_ABSENT) {
		sqlite3_bind_null(s, x + 6);
	    } else if (t->attrs[x].type == SD_STRING) {
		sqlite3_bind_text(s, x + 6, Rb_SchemaString(b->schema, v), -1,
			SQLITE_STATIC);
	    } else {
		sqlite3_bind_int64(s, x + 6, v);
	    }
	}
	x = sqlite3_step(s);
	sqlite3_reset(s);
	if (x == SQLITE_DONE) {
	    st->rows++;
	} else if (x == SQLITE_FULL && !st->full) {
	    LimitError(a, st);
	}
    }
    if (st->batches == TXN_BATCHES) {
	sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	st->batches = 0;
    }
}

/*
 * DbEnd --
 *	Builds the breadcrumb indexes and the views, closes the database
 *	and renames it to -output.
 */
static int
DbEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    DbState *st = a->state;
    Tcl_DString sql;
    int k, ok = 1;

    if (st->db == NULL) {
	Rb_AnalyzerSet(a, Rb_AttrScalar("DatabaseRows", 0, "", "rows "
		"inserted into the activity database"));
	return TCL_OK;
    }
    Tcl_DStringInit(&sql);
    Tcl_DStringAppend(&sql, st->batches ? "" : "BEGIN;", -1);
    st->batches = 0;
    for (k = 0; k < st->set->ntypes; k++) {
	const char *name = st->set->types[k].name;

	Tcl_DStringAppend(&sql, "CREATE INDEX \"", -1);
	Tcl_DStringAppend(&sql, name, -1);
	Tcl_DStringAppend(&sql, "_breadcrumb\" ON \"", -1);
	Tcl_DStringAppend(&sql, name, -1);
	Tcl_DStringAppend(&sql, "\" (breadcrumb);", -1);
    }
    Tcl_DStringAppend(&sql, "CREATE INDEX Stitch_dst ON Stitch "
	    "(dstBreadcrumb);", -1);
    Tcl_DStringAppend(&sql, rollupHeadSql, -1);
    for (k = 0; k < SD_MAX_STITCH_DEPTH; k++) {
	Tcl_DStringAppend(&sql, rollupStepSql, -1);
    }
    Tcl_DStringAppend(&sql, rollupTailSql, -1);
    Tcl_DStringAppend(&sql, viewsSql, -1);
    Tcl_DStringAppend(&sql, "COMMIT;", -1);
    ok = Exec(a, st, Tcl_DStringValue(&sql)) == TCL_OK;
    Tcl_DStringFree(&sql);
    for (k = 0; k < st->set->ntypes; k++) {
	sqlite3_finalize(st->insert[k]);
	st->insert[k] = NULL;
    }
    if (ok && sqlite3_close(st->db) == SQLITE_OK) {
	struct stat sb;

	st->db = NULL;
	if (st->interp != NULL && stat(st->tmpPath, &sb) == 0
		&& Rb_SafeOutputCharge(st->interp, st->output,
		(Tcl_WideInt)sb.st_size) != TCL_OK) {
	    Rb_AnalyzerError(a, "RUBICON SAFE LIMIT OUTPUT", "%s",
		    Tcl_GetStringResult(st->interp));
	    Tcl_ResetResult(st->interp);
	    ok = 0;
	} else if (rename(st->tmpPath, st->output) != 0) {
	    Rb_AnalyzerError(a, "RUBICON STARDUST DATABASE", "%s: cannot "
		    "rename the finished database into place", st->output);
	    ok = 0;
	}
    } else {
	ok = 0;
    }
    CloseDb(st, 0);
    if (!ok) {
	return TCL_ERROR;
    }
    Rb_AnalyzerSet(a, Rb_AttrScalar("DatabaseRows", (double)st->rows, "",
	    "rows inserted into the activity database"));
    Rb_AnalyzerSet(a, Rb_AttrTextNew("Database", st->output,
	    "the activity database file"));
    return TCL_OK;
}

/*
 * Commit --
 *	Ends the load's open transaction, if any.
 */
static int
Commit(Rb_Analyzer *a, DbState *st)
{
    if (st->batches == 0) {
	return TCL_OK;
    }
    st->batches = 0;
    return Exec(a, st, "COMMIT");
}

/*
 * DbSerialize --
 *	The rows loaded and the shard's database file, committed and closed
 *	(this process ends after sending it), as bytes; the file is removed.
 */
static int
DbSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *buf)
{
    DbState *st = a->state;
    Tcl_Channel ch;
    Tcl_Obj *data;
    char *path;
    int len, ok;

    Rb_BufPutInt(buf, (int64_t)st->rows);
    if (st->db == NULL) {
	Rb_BufPutString(buf, "", 0);
	return TCL_OK;
    }
    if (Commit(a, st) != TCL_OK) {
	return TCL_ERROR;
    }
    path = Rb_Strdup(st->tmpPath);
    CloseDb(st, 1);
    data = Tcl_NewObj();
    Tcl_IncrRefCount(data);
    ch = Tcl_OpenFileChannel(NULL, path, "r", 0);
    ok = ch != NULL && Tcl_SetChannelOption(NULL, ch, "-translation",
	    "binary") == TCL_OK && Tcl_ReadChars(ch, data, -1, 0) >= 0;
    if (ch != NULL) {
	Tcl_Close(NULL, ch);
    }
    unlink(path);
    if (ok) {
	const unsigned char *bytes = Tcl_GetByteArrayFromObj(data, &len);

	Rb_BufPutString(buf, (const char *)bytes, (size_t)len);
    } else {
	Rb_AnalyzerError(a, "RUBICON STARDUST DATABASE", "%s: cannot read "
		"back the shard's database %s", st->output, path);
    }
    Tcl_DecrRefCount(data);
    free(path);
    return ok ? TCL_OK : TCL_ERROR;
}

/*
 * DbDeserialize --
 *	Writes a later shard's database where this (started) instance keeps
 *	its own, which it no longer needs, for DbMerge to read.
 */
static int
DbDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *buf)
{
    DbState *st = a->state;
    size_t n;
    const char *bytes;
    char *path;
    Tcl_Channel ch;
    int ok;

    st->rows = (uint64_t)Rb_BufGetInt(buf);
    bytes = Rb_BufGetString(buf, &n);
    if (bytes == NULL || n == 0 || st->tmpPath == NULL) {
	return TCL_OK;		/* nothing loaded, or a short buffer */
    }
    path = Rb_Strdup(st->tmpPath);
    CloseDb(st, 1);
    ch = Tcl_OpenFileChannel(NULL, path, "w", 0600);
    ok = ch != NULL && Tcl_SetChannelOption(NULL, ch, "-translation",
	    "binary") == TCL_OK && Tcl_Write(ch, bytes, (int)n) == (int)n;
    if (ch != NULL && Tcl_Close(NULL, ch) != TCL_OK) {
	ok = 0;
    }
    st->partPath = path;
    if (!ok) {
	Rb_AnalyzerError(a, "RUBICON STARDUST DATABASE", "%s: cannot write "
		"a shard's database to %s", st->output, path);
	return TCL_ERROR;
    }
    return TCL_OK;
}

/*
 * DbMerge --
 *	Appends a later shard's rows to each table, in their order.
 */
static int
DbMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    DbState *st = a->state;
    const DbState *o = other->state;
    Tcl_DString sql;
    char *attach;
    int k, rc;

    st->rows += o->rows;
    if (o->partPath == NULL) {
	return TCL_OK;
    }
    if (st->db == NULL || Commit(a, st) != TCL_OK) {
	if (st->db == NULL) {
	    Rb_AnalyzerError(a, "RUBICON STARDUST DATABASE", "%s: no database "
		    "open to merge a shard into", st->output);
	}
	return TCL_ERROR;
    }
    attach = sqlite3_mprintf("ATTACH %Q AS part;", o->partPath);
    rc = Exec(a, st, attach);
    sqlite3_free(attach);
    if (rc != TCL_OK) {
	return TCL_ERROR;
    }
    Tcl_DStringInit(&sql);
    Tcl_DStringAppend(&sql, "BEGIN;", -1);
    for (k = 0; k < st->set->ntypes; k++) {
	const char *name = st->set->types[k].name;

	Tcl_DStringAppend(&sql, "INSERT INTO main.\"", -1);
	Tcl_DStringAppend(&sql, name, -1);
	Tcl_DStringAppend(&sql, "\" SELECT * FROM part.\"", -1);
	Tcl_DStringAppend(&sql, name, -1);
	Tcl_DStringAppend(&sql, "\" ORDER BY rowid;", -1);
    }
    Tcl_DStringAppend(&sql, "COMMIT;", -1);
    rc = Exec(a, st, Tcl_DStringValue(&sql));
    Tcl_DStringFree(&sql);
    if (rc != TCL_OK) {
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    }
    sqlite3_exec(st->db, "DETACH part", NULL, NULL, NULL);
    return rc;
}

const Rb_AnalyzerClass Sd_DatabaseAnalyzerClass = {
    .name = "StardustDatabaseAnalyzer",
    .help = "Stardust: activity records into an SQLite database (table per "
	    "type, breadcrumb indexes, counter views)",
    .stateSize = sizeof(DbState),
    .options = dbOptions,
    .attrs = dbAttrs,
    .mergeable = 1,
    .init = DbInit,
    .start = DbStart,
    .batch = DbBatch,
    .end = DbEnd,
    .merge = DbMerge,
    .freeState = DbFree,
    .serialize = DbSerialize,
    .deserialize = DbDeserialize,
};

#endif /* HAVE_SQLITE3 */
