/*
 * run.c --
 *
 *	rubicon::run: reads traces (format sniffed or given), pushes their
 *	records through the DAG in batches, ends the Analyzers in dependency
 *	order, writes every Reporter, and returns a summary.  Progress is
 *	shown on a terminal; SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 or
 *	rubicon::cancel stops at a batch boundary with every result kept and
 *	marked partial; a second signal ends the process at once.
 */

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "engine.h"
#include "checkpoint.h"
#include "mpi.h"

static Rb_Engine *sigintEngine;

/* The last signal that stopped a run in this process, 0 if none: the
 * rubicon program exits 128 + it (rubicon::_signal). */
static volatile sig_atomic_t stoppedBySignal;

/* Signals received during the current run. */
static volatile sig_atomic_t signalsSeen;

/* The signals a run handles, all alike; the default action of each would
 * end the process and leave its temporary files. */
static const int runSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1};
#define NSIGNALS ((int)(sizeof(runSignals) / sizeof(runSignals[0])))

/*
 * OnSignal --
 *	A signal during a run (from its start to its last report): the
 *	first stops reading at the next batch boundary, and the run ends its
 *	analyzers and writes its reports (marked partial if reading was
 *	cut); a report being written when it comes is finished.  A second
 *	ends the process at once, status 128 + the signal, after removing
 *	every temporary file being written (RbTempRemoveAll).
 */
static void
OnSignal(int sig)
{
    static const char msg[] = "rubicon: second signal: stopped at once; "
	    "unfinished reports and traces removed\n";

    if (signalsSeen++ > 0) {
	RbTempRemoveAll();
	if (write(2, msg, sizeof(msg) - 1) < 0) {
	    /* Nothing more can be done. */
	}
	_exit(128 + sig);
    }
    if (sigintEngine) {
	sigintEngine->cancel = 1;
	stoppedBySignal = sig;
    }
}

/*
 * RbEndCheckLimit --
 *	While Analyzers end and Reporters write: whether a time limit on
 *	interp (rubicon -safe -timelimit) has passed by more than the grace
 *	given to ending a run, a tenth of the limit and at least 1 s, so
 *	that a run stopped by the limit while reading still writes what it
 *	read, and one that reaches it later ends within that grace.
 * Results: TCL_OK, or TCL_ERROR with RUBICON SAFE LIMIT TIME.
 */
int
RbEndCheckLimit(Tcl_Interp *interp)
{
    Tcl_Time deadline, now;
    double grace, over;

    if (!RbEndDeadline(interp, &deadline, &grace)) {
	return TCL_OK;
    }
    Tcl_GetTime(&now);
    over = (now.sec - deadline.sec) + (now.usec - deadline.usec) / 1e6;
    if (over <= 0) {
	return TCL_OK;
    }
    return Rb_SetInterpError(interp, "RUBICON SAFE LIMIT TIME",
	    "time limit reached: %.3g s past it, more than the %.3g s given "
	    "to end the analyzers and write the reports", over + grace, grace);
}

/*
 * RbEndDeadline --
 *	The time past which ending a run stops (RbEndCheckLimit): a time
 *	limit on interp plus its grace, a tenth of the limit's span in safe
 *	mode and at least 1 s.
 * Results: 1 with *deadline and *grace set, or 0 when interp has no time
 *	limit.
 */
int
RbEndDeadline(Tcl_Interp *interp, Tcl_Time *deadline, double *grace)
{
    Rb_Engine *eng = RbEngineGet(interp);
    Tcl_Time limit;
    double span, g;
    long usec;

    if (!Tcl_LimitTypeEnabled(interp, TCL_LIMIT_TIME)) {
	return 0;
    }
    Tcl_LimitGetTime(interp, &limit);
    span = eng->safe ? (limit.sec - eng->safeSince.sec)
	    + (limit.usec - eng->safeSince.usec) / 1e6 : 0;
    g = span / 10 > 1 ? span / 10 : 1;
    usec = limit.usec + (long) ((g - (double)(long) g) * 1e6);
    deadline->sec = limit.sec + (long) g + usec / 1000000;
    deadline->usec = usec % 1000000;
    *grace = g;
    return 1;
}

static double
Now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * RbRunInfoInit, RbRunInfoFree --
 *	An empty run description.
 */
void
RbRunInfoInit(Rb_RunInfo *run, Tcl_Interp *interp, Rb_Schema *schema)
{
    memset(run, 0, sizeof(*run));
    run->interp = interp;
    run->schema = schema;
    run->firstTime = INT64_MAX;
    run->lastTime = INT64_MIN;
    run->traces = "";
    run->config = Rb_Strdup("");
    run->skipCounts = Tcl_NewDictObj();
    Tcl_IncrRefCount(run->skipCounts);
}

void
RbRunInfoFree(Rb_RunInfo *run)
{
    free(run->config);
    run->config = NULL;
    if (run->skipCounts) {
	Tcl_DecrRefCount(run->skipCounts);
	run->skipCounts = NULL;
    }
}

typedef struct RunOpts {
    int merge;
    const char *format;
    Rb_OnError onError;
    int progress;
    Tcl_Obj *progressCmd;
    Tcl_Obj *records;
    Tcl_Obj *readerOpts;
    int batchSize;		/* Records per batch read (1..RB_BATCH_SIZE). */
    int64_t maxGap;		/* -maxgap in ns (0: none) */
    const char *checkpoint;	/* -checkpoint FILE */
    int64_t everyRecords;	/* -checkpointevery N (records) ... */
    double everySeconds;	/* ... or Ns, Nm, Nh (wall time) */
    const char *resume;		/* -resume FILE */
    int sweep;			/* -sweep */
    int threads;		/* -threads (0: one per online CPU) */
    int threadsGiven;
    int skimCount;		/* -skim {count fraction}; 0: read all */
    double skimFraction;
} RunOpts;

/* Checkpoints come every minute of wall time unless -checkpointevery
 * says otherwise (rubicon(n)). */
#define CKPT_DEFAULT_SECONDS 60.0

/*
 * ParseEvery --
 *	-checkpointevery: a count of records ("1000000"), or a time with its
 *	unit ("30s", "5m", "1h").
 * Results: TCL_OK, or TCL_ERROR saying what it takes.
 */
static int
ParseEvery(Tcl_Interp *interp, Tcl_Obj *obj, RunOpts *o)
{
    const char *s = Tcl_GetString(obj);
    char *end;
    double v = strtod(s, &end);
    Tcl_WideInt n;

    if (Tcl_GetWideIntFromObj(NULL, obj, &n) == TCL_OK && n > 0) {
	o->everyRecords = n;
	return TCL_OK;
    }
    if (end != s && v > 0 && end[0] != '\0' && end[1] == '\0'
	    && strchr("smh", end[0]) != NULL) {
	o->everySeconds = v * (end[0] == 'h' ? 3600 : end[0] == 'm' ? 60 : 1);
	o->everyRecords = 0;
	return TCL_OK;
    }
    return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
	    "-checkpointevery wants a number of records (1000000) or a time "
	    "(30s, 5m, 1h), not \"%s\"", s);
}

/*
 * ParseSkim --
 *	-skim {count fraction}: count from 1 to 4096 ranges, together a
 *	fraction in (0, 1] of the traces' bytes; {} reads everything.
 * Results: TCL_OK, or TCL_ERROR saying what it takes.
 */
static int
ParseSkim(Tcl_Interp *interp, Tcl_Obj *obj, RunOpts *o)
{
    Tcl_Obj **elems;
    int nelems;
    int count;
    double fraction;

    if (Tcl_ListObjGetElements(NULL, obj, &nelems, &elems) != TCL_OK) {
	nelems = -1;
    } else if (nelems == 0) {
	o->skimCount = 0;
	return TCL_OK;
    }
    if (nelems != 2
	    || Tcl_GetIntFromObj(NULL, elems[0], &count) != TCL_OK
	    || count < 1 || count > 4096
	    || Tcl_GetDoubleFromObj(NULL, elems[1], &fraction) != TCL_OK
	    || !(fraction > 0 && fraction <= 1)) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"-skim wants {COUNT FRACTION}: from 1 to 4096 ranges, together "
		"a fraction in (0, 1] of the bytes (or {} for all), not \"%s\"",
		Tcl_GetString(obj));
    }
    o->skimCount = count;
    o->skimFraction = fraction;
    return TCL_OK;
}

/*
 * ParseRunArgs --
 *	Options of rubicon::run; the rest are trace files.
 * Results: index of the first trace argument, or -1 with an error.
 */
static int
ParseRunArgs(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[], RunOpts *o)
{
    static const char *const opts[] = {
	"-format", "-onerror", "-progress", "-progresscommand", "-records",
	"-readeroptions", "--", "-merge", "-checkpoint", "-checkpointevery",
	"-resume", "-batchsize", "-sweep", "-maxgap", "-threads", "-skim",
	NULL
    };
    static const char *const policies[] = {"stop", "skip", "warn", NULL};
    int i, idx, pol;

    memset(o, 0, sizeof(*o));
    o->progress = isatty(2);
    o->batchSize = RB_BATCH_SIZE;
    o->threads = 1;
    o->maxGap = RB_DEFAULT_MAX_GAP;
    o->everySeconds = CKPT_DEFAULT_SECONDS;
    for (i = 1; i < objc; i++) {
	const char *s = Tcl_GetString(objv[i]);

	if (s[0] != '-' || s[1] == '\0') {
	    break;		/* a trace; "-" is standard input */
	}
	if (Tcl_GetIndexFromObj(interp, objv[i], opts, "option", 0, &idx)
		!= TCL_OK) {
	    return -1;
	}
	if (idx == 6) {
	    return i + 1;
	}
	if (i + 1 >= objc) {
	    Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		    "option \"%s\" has no value", s);
	    return -1;
	}
	i++;
	switch (idx) {
	case 0: o->format = Tcl_GetString(objv[i]); break;
	case 1:
	    if (Tcl_GetIndexFromObj(interp, objv[i], policies, "policy", 0,
		    &pol) != TCL_OK) {
		return -1;
	    }
	    o->onError = (Rb_OnError)pol;
	    break;
	case 2:
	    if (Tcl_GetBooleanFromObj(interp, objv[i], &o->progress)
		    != TCL_OK) {
		return -1;
	    }
	    break;
	case 3: o->progressCmd = objv[i]; break;
	case 4: o->records = objv[i]; break;
	case 5: o->readerOpts = objv[i]; break;
	case 7:
	    if (Tcl_GetBooleanFromObj(interp, objv[i], &o->merge) != TCL_OK) {
		return -1;
	    }
	    break;
	case 8: o->checkpoint = Tcl_GetString(objv[i]); break;
	case 9:
	    if (ParseEvery(interp, objv[i], o) != TCL_OK) {
		return -1;
	    }
	    break;
	case 10: o->resume = Tcl_GetString(objv[i]); break;
	case 11:
	    if (Tcl_GetIntFromObj(NULL, objv[i], &o->batchSize) != TCL_OK
		    || o->batchSize < 1 || o->batchSize > RB_BATCH_SIZE) {
		Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
			"-batchsize wants an integer from 1 to %d, not \"%s\"",
			RB_BATCH_SIZE, Tcl_GetString(objv[i]));
		return -1;
	    }
	    break;
	case 12:
	    if (Tcl_GetBooleanFromObj(interp, objv[i], &o->sweep) != TCL_OK) {
		return -1;
	    }
	    break;
	case 13: {
	    double d;

	    if (Tcl_GetDoubleFromObj(NULL, objv[i], &d) != TCL_OK
		    || !(d >= 0 && d < 9e9)) {
		Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
			"-maxgap wants seconds >= 0 (0: no limit), not \"%s\"",
			Tcl_GetString(objv[i]));
		return -1;
	    }
	    o->maxGap = (int64_t)(d * 1e9);
	    break;
	}
	case 14:
	    if (Tcl_GetIntFromObj(NULL, objv[i], &o->threads) != TCL_OK
		    || o->threads < 0 || o->threads > 1024) {
		Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
			"-threads wants an integer >= 0 (0: one per CPU), "
			"not \"%s\"", Tcl_GetString(objv[i]));
		return -1;
	    }
	    o->threadsGiven = 1;
	    break;
	case 15:
	    if (ParseSkim(interp, objv[i], o) != TCL_OK) {
		return -1;
	    }
	    break;
	}
    }
    return i;
}

/*
 * RecordsToBatch --
 *	Appends records given as Tcl dicts ({time 1.5 size 4096 op read
 *	deviceNo 1 ...}) to b, starting at element *pos.  Fields in ns are
 *	given in seconds; op accepts read/write.
 * Results: TCL_OK or TCL_ERROR naming the record and field.
 */
static int
RecordsToBatch(Tcl_Interp *interp, Tcl_Obj *records, int *pos, Rb_Batch *b)
{
    Tcl_Obj **recs, **kv;
    int nrecs, nkv, k, f, i;

    if (Tcl_ListObjGetElements(interp, records, &nrecs, &recs) != TCL_OK) {
	return TCL_ERROR;
    }
    while (*pos < nrecs && b->n < b->cap) {
	if (Tcl_ListObjGetElements(interp, recs[*pos], &nkv, &kv) != TCL_OK
		|| nkv % 2) {
	    return Rb_SetInterpError(interp, "RUBICON RECORD FORMAT",
		    "record %d is not a dict of field value pairs", *pos + 1);
	}
	i = Rb_BatchAppend(b);
	for (k = 0; k < nkv; k += 2) {
	    const char *name = Tcl_GetString(kv[k]);
	    const char *val = Tcl_GetString(kv[k + 1]);
	    Rb_Field *field;
	    double d;

	    f = Rb_SchemaFieldIndex(b->schema, name);
	    if (f < 0) {
		char *known = Rb_SchemaFieldList(b->schema);

		Rb_SetInterpError(interp, "RUBICON RECORD FIELD",
			"record %d: unknown field \"%s\"; known fields: %s",
			*pos + 1, name, known);
		free(known);
		return TCL_ERROR;
	    }
	    field = &b->schema->fields[f];
	    if (field->type == RB_FT_STRING) {
		b->col[f][i] = Rb_SchemaIntern(b->schema, val, strlen(val));
	    } else if (strcasecmp(name, "op") == 0
		    && (strcasecmp(val, "read") == 0 || *val == 'R')) {
		b->col[f][i] = RB_OP_READ;
	    } else if (strcasecmp(name, "op") == 0
		    && (strcasecmp(val, "write") == 0 || *val == 'W')) {
		b->col[f][i] = RB_OP_WRITE;
	    } else if (Tcl_GetDoubleFromObj(NULL, kv[k + 1], &d) != TCL_OK) {
		return Rb_SetInterpError(interp, "RUBICON RECORD FORMAT",
			"record %d: field %s: \"%s\" is not a number",
			*pos + 1, name, val);
	    } else if (field->type == RB_FT_DOUBLE) {
		Rb_SetDouble(b, f, i, d);
	    } else if (field->unit == RB_UNIT_NS) {
		b->col[f][i] = (int64_t)llround(d * 1e9);
	    } else {
		Tcl_WideInt w;

		if (Tcl_GetWideIntFromObj(NULL, kv[k + 1], &w) == TCL_OK) {
		    b->col[f][i] = w;
		} else {
		    b->col[f][i] = (int64_t)d;
		}
	    }
	}
	(*pos)++;
    }
    return TCL_OK;
}

/*
 * RbProgressText --
 *	The progress line: the file, records read, the rate, and either the
 *	share of the file's total bytes read (raw of total, compressed bytes
 *	for a compressed file) with the time left at that pace, or, when
 *	the total is not known (a pipe), the uncompressed MB read and the
 *	time so far.  The final line gives the records, MB, rate and time.
 */
void
RbProgressText(char *buf, size_t size, const char *file, uint64_t records,
	uint64_t bytes, uint64_t raw, uint64_t total, double elapsed,
	int final)
{
    double rate = elapsed > 0 ? (double)records / elapsed : 0.0;

    if (final || total == 0 || raw > total) {
	snprintf(buf, size, "rubicon: %s: %llu records, %.1f MB, %.0f "
		"records/s, %.1f s", file, (unsigned long long)records,
		(double)bytes / 1e6, rate, elapsed);
    } else if (raw == 0) {
	snprintf(buf, size, "rubicon: %s: %llu records, 0.0%% of %.1f MB, "
		"%.0f records/s", file, (unsigned long long)records,
		(double)total / 1e6, rate);
    } else {
	snprintf(buf, size, "rubicon: %s: %llu records, %.1f%% of %.1f MB, "
		"%.0f records/s, %.0f s left", file,
		(unsigned long long)records, 100.0 * (double)raw
		/ (double)total, (double)total / 1e6, rate,
		elapsed * (double)(total - raw) / (double)raw);
    }
}

/*
 * Progress --
 *	Rewrites the one-line progress report on stderr (RbProgressText),
 *	padded so that a shorter line covers a longer one.
 */
static void
Progress(const char *file, uint64_t records, uint64_t bytes, uint64_t raw,
	uint64_t total, double elapsed, int final)
{
    char line[1024];

    RbProgressText(line, sizeof(line), strcmp(file, RB_INPUT_STDIN) == 0
	    ? "standard input" : file, records, bytes, raw, total, elapsed,
	    final);
    fprintf(stderr, "\r%s%s", line, final ? "\n" : "      ");
    fflush(stderr);
}

/*
 * ReachableFlows --
 *	Collects the flows reachable from n (each once): Flow nodes, and the
 *	Flows of the Analyzer nodes.
 */
static void
ReachableFlows(Rb_Node *n, Rb_Flow ***flows, int *count, int *cap)
{
    int i;

    if (n->visitMark == 3) {
	return;
    }
    n->visitMark = 3;
    if (n->kind == NODE_FLOW) {
	if (*count == *cap) {
	    *cap = *cap ? 2 * *cap : 16;
	    *flows = Rb_ReallocArray(*flows, *cap, sizeof(Rb_Flow *));
	}
	(*flows)[(*count)++] = n->flow;
    }
    if (n->kind == NODE_ANALYZER && n->analyzer->flow) {
	ReachableFlows(n->analyzer->flow->node, flows, count, cap);
    }
    for (i = 0; i < n->nchildren; i++) {
	ReachableFlows(n->children[i], flows, count, cap);
    }
}

/*
 * SummaryObj --
 *	The dict rubicon::run returns.
 */
static Tcl_Obj *
SummaryObj(const Rb_RunInfo *run, Tcl_Obj *files, double seconds,
	const char *error)
{
    Tcl_Obj *d = Tcl_NewDictObj();

#define PUT(k, v) Tcl_DictObjPut(NULL, d, Tcl_NewStringObj(k, -1), v)
    PUT("records", Tcl_NewWideIntObj((Tcl_WideInt)run->records));
    PUT("skipped", Tcl_NewWideIntObj((Tcl_WideInt)run->skipped));
    PUT("skipcounts", Tcl_DuplicateObj(run->skipCounts));
    PUT("files", files);
    PUT("seconds", Tcl_NewDoubleObj(seconds));
    PUT("partial", Tcl_NewBooleanObj(run->partial));
    PUT("first", Tcl_NewDoubleObj(run->records ? run->firstTime / 1e9 : 0));
    PUT("last", Tcl_NewDoubleObj(run->records ? run->lastTime / 1e9 : 0));
    PUT("epoch", Tcl_NewDoubleObj(run->epochNs / 1e9));
    PUT("error", Tcl_NewStringObj(error ? error : "", -1));
#undef PUT
    return d;
}

/*
 * OneRankNote --
 *	After a split run: when one rank read every record and the others
 *	none (a trace that cannot be cut, most often a file compressed as
 *	one gzip member or bzip2 stream), says so with what to do.
 * Results: the note (a new object), or NULL when the work was shared.
 */
static Tcl_Obj *
OneRankNote(Tcl_Obj *ranks)
{
    int n, i;
    Tcl_Obj **counts;
    Tcl_WideInt c, total = 0;
    int busy = 0, who = 0;

    if (Tcl_ListObjGetElements(NULL, ranks, &n, &counts) != TCL_OK
	    || n < 2) {
	return NULL;
    }
    for (i = 0; i < n; i++) {
	if (Tcl_GetWideIntFromObj(NULL, counts[i], &c) == TCL_OK && c > 0) {
	    busy++;
	    who = i;
	    total += c;
	}
    }
    if (busy != 1) {
	return NULL;
    }
    return Tcl_ObjPrintf("rank %d of %d read all %" TCL_LL_MODIFIER "d "
	    "records and the others none, so the run was not shared out: a "
	    "file that cannot be cut (compressed as one gzip member or bzip2 "
	    "stream, as gzip and bzip2 write; a compressed SRT; a blktrace "
	    "file: SCALE-OUT in rubicon(n)) is read whole by one rank; "
	    "decompress such a file, or recompress it in several gzip members, "
	    "bzip2 streams or zstd frames (bgzip, pbzip2, pzstd) to share it "
	    "out", who, n,
	    total);
}

/*
 * RbMergeSkipCounts --
 *	Adds a reader's (or a rank's) per-kind skip counts into the run's.
 */
void
RbMergeSkipCounts(Rb_RunInfo *run, Tcl_Obj *counts)
{
    Tcl_DictSearch s;
    Tcl_Obj *k, *v, *old;
    int done;
    Tcl_WideInt a, b;

    if (Tcl_DictObjFirst(NULL, counts, &s, &k, &v, &done) != TCL_OK) {
	return;
    }
    for (; !done; Tcl_DictObjNext(&s, &k, &v, &done)) {
	a = 0;
	if (Tcl_DictObjGet(NULL, run->skipCounts, k, &old) == TCL_OK && old) {
	    Tcl_GetWideIntFromObj(NULL, old, &a);
	}
	Tcl_GetWideIntFromObj(NULL, v, &b);
	Tcl_DictObjPut(NULL, run->skipCounts, k, Tcl_NewWideIntObj(a + b));
    }
    Tcl_DictObjDone(&s);
}

/*
 * NoteBatch --
 *	Updates run times and counts from a batch just read.
 */
static void
NoteBatch(Rb_RunInfo *run, Rb_Batch *b)
{
    const int64_t *t = b->col[0];
    int64_t first = run->firstTime, last = run->lastTime;
    int i;

    b->firstRecord = run->records + 1;
    for (i = 0; i < b->n; i++) {
	/* RB_ABSENT is INT64_MIN: it never raises last, and is kept out
	 * of first. */
	int64_t lo = t[i] == RB_ABSENT ? INT64_MAX : t[i];

	first = lo < first ? lo : first;
	last = t[i] > last ? t[i] : last;
    }
    run->firstTime = first;
    run->lastTime = last;
    run->records += b->n;
}

/*
 * SetFilterTimeBase --
 *	Before a run's first records go down the DAG: makes every Filter's
 *	time constants count from base, the first record's time (the start
 *	of the trace, as the paper's filter language has it).
 */
static void
SetFilterTimeBase(Rb_Engine *eng, int64_t base)
{
    Rb_Node *n;

    for (n = eng->nodes; n; n = n->nextNode) {
	if (n->kind == NODE_FILTER && n->prog) {
	    RbFilterSetTimeBase(n->prog, base == INT64_MAX ? 0 : base);
	}
    }
}

/*
 * Failure --
 *	Keeps the first error of a run (message and -errorcode options) so
 *	that ending and reporting can go on before it is raised.
 */
typedef struct Failure {
    Tcl_Obj *result;
    Tcl_Obj *options;
} Failure;

static void
Capture(Tcl_Interp *interp, Failure *f)
{
    if (f->result != NULL) {
	return;
    }
    f->result = Tcl_GetObjResult(interp);
    Tcl_IncrRefCount(f->result);
    f->options = Tcl_GetReturnOptions(interp, TCL_ERROR);
    /* Where it is raised again, rubicon::run's caller is the place: the
     * line and stack of this moment would name line 1 of the script. */
    Tcl_DictObjRemove(NULL, f->options, Tcl_NewStringObj("-errorinfo", -1));
    Tcl_DictObjRemove(NULL, f->options, Tcl_NewStringObj("-errorline", -1));
    Tcl_IncrRefCount(f->options);
}

/*
 * A batch source: the next records of one reader, or of several merged
 * by time.  NextProc appends to b like Rb_ReaderNext; OffsetProc gives the
 * bytes read so far (for progress).
 */
typedef int (NextProc)(void *cd, Rb_Batch *b, Rb_Error *err);
typedef uint64_t (OffsetProc)(void *cd);

/*
 * RebaseTimes --
 *	Makes the times of records [from, b->n) of r count from the run's
 *	epoch (the first trace's) instead of r's own: each file of a run
 *	(SRT, MSR, a CSV with a descriptor, native) counts from an epoch of
 *	its own, and without this a later file's times would start again
 *	near 0.  The times are the I/O schema's three (enqueue, start,
 *	finish), or field 0 of another schema; absent ones stay absent.  An
 *	epoch of 0 (a format without absolute times, such as blkparse)
 *	changes nothing.
 */
static void
RebaseTimes(const Rb_Reader *r, int64_t runEpochNs, Rb_Batch *b, int from)
{
    static const int ioTimes[] = {RB_IO_TIME, RB_IO_START, RB_IO_FINISH};
    int64_t shift = r->epochNs - runEpochNs;
    int c, i, ncols = b->schema == Rb_IoSchema() ? 3 : 1;

    if (r->epochNs == 0 || runEpochNs == 0 || shift == 0) {
	return;
    }
    for (c = 0; c < ncols; c++) {
	int64_t *col = b->col[ncols == 3 ? ioTimes[c] : 0];

	for (i = from; i < b->n; i++) {
	    col[i] = col[i] == RB_ABSENT ? RB_ABSENT : col[i] + shift;
	}
    }
}

/*
 * TraceSource: one reader as a batch source, its times rebased.
 */
typedef struct TraceSource {
    Rb_Reader *r;
    int64_t runEpochNs;
} TraceSource;

static int
ReaderNextProc(void *cd, Rb_Batch *b, Rb_Error *err)
{
    TraceSource *src = cd;
    int from = b->n, n = Rb_ReaderNext(src->r, b, err);

    if (n > 0) {
	RebaseTimes(src->r, src->runEpochNs, b, from);
    }
    return n;
}

static uint64_t
ReaderOffsetProc(void *cd)
{
    return Rb_InputOffset(((TraceSource *)cd)->r->in);
}

/*
 * Merger: several readers of one schema merged by record time.  Each has
 * a batch of its own; records are copied in time order into the output
 * batch, ties going to the earlier file.  An error of one reader is
 * returned after the records merged before it have been delivered.
 */
typedef struct Merger {
    int n;
    Rb_Reader **readers;
    Rb_Batch **batches;
    int *pos;
    int *done;
    int failed;			/* an error is waiting in err */
    Rb_Error err;
    int64_t runEpochNs;		/* RebaseTimes */
} Merger;

static int
MergerNext(void *cd, Rb_Batch *out, Rb_Error *err)
{
    Merger *m = cd;
    int k, best;
    int64_t bestTime = 0;

    if (m->failed) {
	*err = m->err;
	return -1;
    }
    while (out->n < out->cap) {
	best = -1;
	for (k = 0; k < m->n; k++) {
	    if (m->done[k]) {
		continue;
	    }
	    if (m->pos[k] >= m->batches[k]->n) {
		Rb_BatchClear(m->batches[k]);
		m->pos[k] = 0;
		if (Rb_ReaderNext(m->readers[k], m->batches[k], &m->err) < 0) {
		    m->failed = 1;
		    break;
		}
		RebaseTimes(m->readers[k], m->runEpochNs, m->batches[k], 0);
		if (m->batches[k]->n == 0) {
		    m->done[k] = 1;
		    continue;
		}
	    }
	    if (best < 0 || m->batches[k]->col[0][m->pos[k]] < bestTime) {
		best = k;
		bestTime = m->batches[k]->col[0][m->pos[k]];
	    }
	}
	if (m->failed || best < 0) {
	    break;
	}
	Rb_BatchCopyRecord(out, m->batches[best], m->pos[best]++);
    }
    if (m->failed && out->n == 0) {
	*err = m->err;
	return -1;
    }
    return out->n;
}

static uint64_t
MergerOffset(void *cd)
{
    Merger *m = cd;
    uint64_t sum = 0;
    int k;

    for (k = 0; k < m->n; k++) {
	sum += Rb_InputOffset(m->readers[k]->in);
    }
    return sum;
}

/*
 * Pump: what moving batches from a source into the DAG needs to know.
 */
typedef struct Pump {
    Tcl_Interp *interp;
    Rb_Engine *eng;
    Rb_RunInfo *run;
    const RunOpts *o;
    Rb_Batch *batch;		/* The batch read last. */
    Rb_Batch *spare;		/* The other one, read into while the
				 * threads analyze batch (PumpRecords). */
    const uint32_t *ident;
    Failure *failure;
    int nbatches;
    double t0, lastProgress;
    Rb_Input *progressIn;	/* The file being read, for the share of */
    uint64_t progressTotal;	/* its size read (0: size not known). */
    int64_t gridFirst;		/* The run's first time held while reading
				 * (see PushBatch), or RB_ABSENT. */
    int64_t localFirst;		/* Earliest time read meanwhile. */
    int timeBaseSet;		/* Filters count time from the first batch */
    /* Checkpoints (checkpoint.c): */
    RbCkpt *ck;
    Rb_Flow **flows;
    int nflows;
    Tcl_Obj *files;		/* Files read so far. */
    int traceIndex;		/* The trace being read (merged: 0) ... */
    uint64_t traceRecords;	/* ... and its records read so far. */
    uint64_t skipLeft;		/* Records of it read before the checkpoint
				 * a resumed run started from: read again,
				 * not pushed. */
    Rb_Reader **readers;	/* The readers being read (their skip */
    int nreaders;		/* counts are not yet the run's). */
} Pump;

/*
 * PushBatch --
 *	Notes the times of the batch just read in the run and pushes it
 *	through the DAG.  While records flow, the run's first time stays
 *	that of the first batch (every Flow's time bins are aligned to it,
 *	even after an earlier record out of order, and every rank of a
 *	split run has it); the earliest time read is the summary's, set
 *	after reading.  The run's last time is at least that
 *	first time, so that the run's times stay known.  Before the first
 *	records go down, every Filter's time constants are made to count
 *	from that first time (the start of the trace).
 */
static void
PushBatch(Pump *p)
{
    NoteBatch(p->run, p->batch);
    if (p->gridFirst == RB_ABSENT && p->run->firstTime != INT64_MAX) {
	p->gridFirst = p->localFirst = p->run->firstTime;
    }
    if (p->gridFirst != RB_ABSENT) {
	if (p->run->firstTime < p->localFirst) {
	    p->localFirst = p->run->firstTime;
	}
	p->run->firstTime = p->gridFirst;
	if (p->run->lastTime < p->gridFirst) {
	    p->run->lastTime = p->gridFirst;
	}
    }
    if (!p->timeBaseSet && p->run->firstTime != INT64_MAX) {
	SetFilterTimeBase(p->eng, p->run->firstTime);
	p->timeBaseSet = 1;
    }
    RbNodePush(p->eng->head, p->batch, p->ident, p->batch->n);
}

/*
 * DropFront --
 *	In a resumed run: drops from the batch just read the records that
 *	the checkpoint's run had already pushed (p->skipLeft of them).  When
 *	the last is dropped, the readers forget the malformed records they
 *	counted on the way (the checkpoint holds those counts) and warn
 *	again from there.
 */
static void
DropFront(Pump *p, Rb_Batch *b)
{
    int k = p->skipLeft < (uint64_t)b->n ? (int)p->skipLeft : b->n, f, i;

    if (k < b->n) {
	for (f = 0; f < b->schema->nfields; f++) {
	    memmove(b->col[f], b->col[f] + k, (size_t)(b->n - k)
		    * sizeof(int64_t));
	}
    }
    b->n -= k;
    b->firstRecord += (uint64_t)k;
    p->skipLeft -= (uint64_t)k;
    for (i = 0; i < p->nreaders && p->skipLeft == 0; i++) {
	Rb_Reader *r = p->readers[i];

	r->skipped = 0;
	Tcl_DecrRefCount(r->skipCounts);
	r->skipCounts = Tcl_NewDictObj();
	Tcl_IncrRefCount(r->skipCounts);
	r->onError = p->o->onError;
    }
}

/*
 * TakeCheckpoint --
 *	Writes a checkpoint of the run at the batch boundary just passed:
 *	the position is the trace being read and its records so far; the
 *	skip counts are the run's and the open readers'.
 */
static int
TakeCheckpoint(Pump *p, uint64_t offset)
{
    Tcl_Obj *counts = Tcl_DuplicateObj(p->run->skipCounts);
    uint64_t skipped = p->run->skipped;
    Rb_RunInfo tmp;
    int i, rc;

    Tcl_IncrRefCount(counts);
    memset(&tmp, 0, sizeof(tmp));
    tmp.skipCounts = counts;
    for (i = 0; i < p->nreaders; i++) {
	skipped += p->readers[i]->skipped;
	RbMergeSkipCounts(&tmp, p->readers[i]->skipCounts);
    }
    rc = RbCkptWrite(p->interp, p->ck, p->flows, p->nflows, p->run,
	    p->gridFirst, p->localFirst, p->traceIndex, p->traceRecords,
	    offset, skipped, tmp.skipCounts, p->files, Now());
    Tcl_DecrRefCount(tmp.skipCounts);
    return rc;
}

/*
 * Settle --
 *	Waits for the batch handed out (RbParallelWait), if one is.
 * Results: 1, or 0 when its analysis stopped the run.
 */
static int
Settle(Pump *p)
{
    if (!RbParallelPending(p->eng)) {
	return 1;
    }
    RbParallelWait(p->eng);
    return p->eng->cancel == 0;
}

/*
 * PumpRecords --
 *	Reads batches from a source and pushes them through the DAG until
 *	the source ends, the run is cancelled or something fails; runs the
 *	progress command and shows progress on the way.  When the head's
 *	children run on threads (parallel.c) and no checkpoint is kept,
 *	the next batch is read into the other of two batches while the
 *	threads analyze the one before (RbParallelAsync): what is read is
 *	pushed only after that one is done (Settle), and the progress
 *	command and the interpreter's time limit wait for it too.  A batch
 *	read while the one before stopped the run is not pushed.
 */
static void
PumpRecords(Pump *p, NextProc *next, OffsetProc *offset, void *cd,
	const char *label)
{
    Rb_Batch *bufs[2];
    Rb_Error err;
    int shown = 0, async, cur = 0, got;

    async = p->ck == NULL && RbParallelAsync(p->eng, 1);
    if (async && p->spare == NULL) {
	p->spare = Rb_BatchCreate(p->batch->schema, p->batch->cap);
    }
    bufs[0] = p->batch;
    bufs[1] = p->spare;
    for (;;) {
	Rb_Batch *b = bufs[cur];

	if (!RbParallelPending(p->eng) && p->eng->cancel) {
	    break;
	}
	Rb_BatchClear(b);
	got = next(cd, b, &err);
	if (!Settle(p)) {
	    break;
	}
	if (got < 0) {
	    Rb_ErrorToInterp(p->interp, &err);
	    Capture(p->interp, p->failure);
	    break;
	}
	if (b->n == 0) {
	    break;
	}
	if (p->skipLeft > 0) {
	    DropFront(p, b);
	    if (b->n == 0) {
		continue;
	    }
	}
	p->batch = b;
	PushBatch(p);
	cur ^= async;
	p->traceRecords += (uint64_t)b->n;
	if (p->ck && RbCkptDue(p->ck, p->run->records, Now())
		&& TakeCheckpoint(p, offset(cd)) != TCL_OK) {
	    Capture(p->interp, p->failure);
	    break;
	}
	/* A time limit on the interpreter (rubicon -safe -timelimit) covers
	 * the run too, though reading runs no Tcl command. */
	if (Tcl_LimitTypeEnabled(p->interp, TCL_LIMIT_TIME)) {
	    if (!Settle(p)) {
		break;
	    }
	    if (Tcl_LimitCheck(p->interp) != TCL_OK) {
		Capture(p->interp, p->failure);
		break;
	    }
	}
	RbMpiHeartbeat();
	if ((++p->nbatches & 15) == 0 && p->o->progressCmd) {
	    if (!Settle(p)) {
		break;
	    }
	    if (Tcl_EvalObjEx(p->interp, p->o->progressCmd, TCL_EVAL_GLOBAL)
		    != TCL_OK) {
		Capture(p->interp, p->failure);
		break;
	    }
	}
	if (p->o->progress) {
	    double now = Now();

	    if (now - p->lastProgress > 0.5) {
		Progress(label, p->run->records, offset(cd), p->progressIn
			? RbInputRawOffset(p->progressIn) : 0,
			p->progressTotal, now - p->t0, 0);
		p->lastProgress = now;
		shown = 1;
	    }
	}
    }
    RbParallelAsync(p->eng, 0);
    p->batch = bufs[0];
    if (shown) {
	Progress(label, p->run->records, offset(cd), 0, 0, Now() - p->t0, 1);
    }
}

/*
 * FinishReader --
 *	Adds a reader's skip counts to the run and closes it.
 */
static void
FinishReader(Rb_RunInfo *run, Rb_Reader *r)
{
    run->skipped += r->skipped;
    RbMergeSkipCounts(run, r->skipCounts);
    Rb_ReaderClose(r);
}

/*
 * OpenReader --
 *	Rb_ReaderOpen with the run's options, -maxgap included.
 */
static Rb_Reader *
OpenReader(const char *path, const RunOpts *o, Rb_Error *err)
{
    Rb_Reader *r = Rb_ReaderOpen(path, o->format, o->onError, o->readerOpts,
	    err);

    if (r != NULL) {
	r->maxGap = o->maxGap;
    }
    return r;
}

/*
 * OpenLike --
 *	Opens another trace of the run; its schema must be the run's, and
 *	it decodes the given fields (those the DAG reads).
 * Results: the reader, or NULL with the failure captured.
 */
static Rb_Reader *
OpenLike(Tcl_Interp *interp, const char *path, const RunOpts *o,
	Rb_Schema *schema, uint64_t fields, const char *firstPath,
	Failure *failure)
{
    Rb_Error err;
    Rb_Reader *r = OpenReader(path, o, &err);

    if (r == NULL) {
	Rb_ErrorToInterp(interp, &err);
	Capture(interp, failure);
	return NULL;
    }
    if (r->schema != schema) {
	Rb_ReaderClose(r);
	Rb_SetInterpError(interp, "RUBICON RUN SCHEMA",
		"%s has a different record schema from %s; run them "
		"separately", path, firstPath);
	Capture(interp, failure);
	return NULL;
    }
    r->fields = fields;
    return r;
}

/*
 * SplitShard --
 *	Whether this run is split over MPI ranks (see mpi.c), and if so this
 *	rank's share of the n trace files, *npieces pieces (whole files or
 *	byte ranges).  Records given in Tcl, -merge and standard input are
 *	read by rank 0 alone, and a rank other than 0 then has nothing to do
 *	and ends at once.  A sweep (-sweep 1) gives every rank every file
 *	whole: its Analyzers share the work out among themselves.
 * Results: 1 for a split run, else 0.
 */
static int
SplitShard(RunOpts *o, int n, Tcl_Obj *const paths[], RbMpiPiece **pieces,
	int *npieces)
{
    int i, whole = o->merge || o->records != NULL || n == 0
	    || o->skimCount > 0;

    *pieces = NULL;
    *npieces = 0;
    for (i = 0; i < n; i++) {
	whole |= strcmp(Tcl_GetString(paths[i]), "-") == 0;
    }
    if (!RbMpiSplit()) {
	return 0;
    }
    if (whole) {
	if (RbMpiRank() != 0) {
	    RbMpiWorkerExit(0);
	}
	RbMpiSplitOver();	/* no rank is left to share a later run */
	return 0;
    }
    if (o->sweep) {
	*pieces = Rb_Alloc((n + 1) * sizeof(RbMpiPiece));
	for (i = 0; i < n; i++) {
	    memset(&(*pieces)[i], 0, sizeof(RbMpiPiece));
	    (*pieces)[i].file = i;
	}
	*npieces = n;
	RbMpiSetSweep(1);
    } else {
	*npieces = RbMpiShard(n, paths, o->format, o->readerOpts,
		RbMpiRank(), RbMpiSize(), pieces);
    }
    if (RbMpiRank() != 0) {
	o->progress = 0;
    }
    return 1;
}

/*
 * SeedFirstTime --
 *	In a split run: sets the run's first time to what one process holds
 *	while reading (the earliest time of the first batch of the first
 *	trace, see PushBatch), read from first, so that every rank bins
 *	time alike whichever records it reads itself.
 */
static void
SeedFirstTime(Rb_RunInfo *run, Rb_Reader *first)
{
    Rb_Batch *b = Rb_BatchCreate(first->schema, RB_BATCH_SIZE);
    Rb_RunInfo probe;
    Rb_Error err;

    memset(&probe, 0, sizeof(probe));
    probe.firstTime = INT64_MAX;
    probe.lastTime = INT64_MIN;
    if (Rb_ReaderNext(first, b, &err) > 0) {
	NoteBatch(&probe, b);
	run->firstTime = probe.firstTime;
    }
    Rb_BatchFree(b);
}

/*
 * Trace: what a run reads, in order.  Each is a file (a byte range of it
 * in a split run), or all of the files merged by record time.
 */
typedef struct Trace {
    const char *path;		/* NULL: the files merged (-merge 1) */
    const RbMpiPiece *piece;	/* Split run: the rank's range, or NULL */
} Trace;

/*
 * OpenTrace --
 *	The reader of one trace of the run: the first trace's reader, already
 *	open, for the first; another of the same schema for the rest; its
 *	input cut to the rank's byte range in a split run.
 * Results: the reader, or NULL with the failure captured.
 */
static Rb_Reader *
OpenTrace(Pump *p, const Trace *t, Rb_Reader **firstOpen, Rb_Schema *schema,
	uint64_t fields, const char *firstPath)
{
    Rb_Reader *r = *firstOpen;
    Rb_Error err;

    *firstOpen = NULL;
    if (r == NULL && (r = OpenLike(p->interp, t->path, p->o, schema, fields,
	    firstPath, p->failure)) == NULL) {
	return NULL;
    }
    if (t->piece && t->piece->kind && RbInputWindow(r->in, t->piece->begin,
	    t->piece->end, t->piece->kind == 2 ? RB_WINDOW_SRT
	    : t->piece->kind == 3 ? RB_WINDOW_BLOCKS : t->piece->kind == 4
	    ? RB_WINDOW_SRT_RESYNC : t->piece->kind == 5 ? RB_WINDOW_FIXED
	    : RB_WINDOW_LINES, &err)
	    != TCL_OK) {
	Rb_ErrorToInterp(p->interp, &err);
	Capture(p->interp, p->failure);
	Rb_ReaderClose(r);
	return NULL;
    }
    return r;
}

/*
 * StartPrefix, EndPrefix --
 *	In a resumed run, around the reading of the trace it resumes in:
 *	its readers skip malformed records silently while the records read
 *	before are read again (they warned then); at the end, a trace that
 *	ended before them is an error (it cannot be the checkpoint's).
 */
static void
StartPrefix(Pump *p)
{
    int i;

    for (i = 0; i < p->nreaders && p->skipLeft > 0; i++) {
	if (p->readers[i]->onError == RB_ONERROR_WARN) {
	    p->readers[i]->onError = RB_ONERROR_SKIP;
	}
    }
}

static void
EndPrefix(Pump *p, const char *what)
{
    if (p->skipLeft > 0 && p->failure->result == NULL && !p->eng->cancel) {
	Rb_SetInterpError(p->interp, "RUBICON CHECKPOINT MISMATCH",
		"%s ended %llu records before where the checkpoint's run had "
		"read it to", what, (unsigned long long)p->skipLeft);
	Capture(p->interp, p->failure);
    }
    p->skipLeft = 0;
}

/*
 * ReadMerged --
 *	Reads every trace at once, merged by record time (ties in the order
 *	given), through one pump.
 */
static void
ReadMerged(Pump *p, int n, Tcl_Obj *const paths[], Rb_Reader *first,
	Rb_Schema *schema, uint64_t fields, Tcl_Obj *files)
{
    Merger m;
    int i;

    memset(&m, 0, sizeof(m));
    m.runEpochNs = p->run->epochNs;
    m.readers = Rb_AllocArray(n, sizeof(Rb_Reader *));
    m.batches = Rb_AllocArray(n, sizeof(Rb_Batch *));
    m.pos = Rb_AllocArray(n, sizeof(int));
    m.done = Rb_AllocArray(n, sizeof(int));
    for (i = 0; i < n; i++) {
	Rb_Reader *r = i == 0 ? first : OpenLike(p->interp,
		Tcl_GetString(paths[i]), p->o, schema, fields,
		Tcl_GetString(paths[0]), p->failure);

	if (r == NULL) {
	    break;
	}
	m.readers[m.n] = r;
	m.batches[m.n++] = Rb_BatchCreate(schema, RB_BATCH_SIZE);
	Tcl_ListObjAppendElement(NULL, files, Tcl_NewListObj(2, (Tcl_Obj *[]){
		paths[i], Tcl_NewStringObj(r->cls->name, -1)}));
    }
    p->traceIndex = 0;
    p->traceRecords = p->skipLeft;
    p->readers = m.readers;
    p->nreaders = m.n;
    StartPrefix(p);
    if (p->failure->result == NULL) {
	PumpRecords(p, MergerNext, MergerOffset, &m, "merged traces");
    }
    EndPrefix(p, "the merged traces");
    p->nreaders = 0;
    for (i = 0; i < m.n; i++) {
	FinishReader(p->run, m.readers[i]);
	Rb_BatchFree(m.batches[i]);
    }
    free(m.readers);
    free(m.batches);
    free(m.pos);
    free(m.done);
}

/*
 * FileSize --
 *	The size of a regular file, for the share of it read: path, or
 *	standard input for "-"; 0 for anything else (a pipe).
 */
static uint64_t
FileSize(const char *path)
{
    struct stat sb;
    int rc = strcmp(path, RB_INPUT_STDIN) == 0 ? fstat(0, &sb)
	    : stat(path, &sb);

    return rc == 0 && S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : 0;
}

/*
 * ReadTraces --
 *	The one read loop of a run: the records given in Tcl first, then
 *	each trace in turn (the files in sequence; with cut, the pieces of
 *	them: a split run's rank's, or a -skim run's ranges; or all of them
 *	merged), until the end, a failure or a cancel.  Each file read is
 *	added to files as {path format}.
 * Side effects: first (the first trace's open reader, or NULL) is
 *	closed; the run's counts and times are updated.
 */
static void
ReadTraces(Pump *p, int n, Tcl_Obj *const paths[], Rb_Reader *first,
	Rb_Schema *schema, uint64_t fields, const RbMpiPiece *pieces,
	int npieces, int cut, Tcl_Obj *files)
{
    int recPos = 0, k, ntraces, lastFile = -1;
    Trace *traces;
    TraceSource src;

    while (p->o->records && !p->eng->cancel) {
	Rb_BatchClear(p->batch);
	if (RecordsToBatch(p->interp, p->o->records, &recPos, p->batch)
		!= TCL_OK) {
	    Capture(p->interp, p->failure);
	    break;
	}
	if (p->batch->n == 0) {
	    break;
	}
	PushBatch(p);
    }
    if (p->o->merge && n > 1) {
	if (p->failure->result == NULL) {
	    ReadMerged(p, n, paths, first, schema, fields, files);
	} else {
	    Rb_ReaderClose(first);
	}
	return;
    }
    ntraces = cut ? npieces : n;
    traces = Rb_AllocArray(ntraces + 1, sizeof(Trace));
    for (k = 0; k < ntraces; k++) {
	traces[k].path = Tcl_GetString(paths[cut ? pieces[k].file : k]);
	traces[k].piece = cut ? &pieces[k] : NULL;
    }
    /* A resumed run starts in the trace its checkpoint was taken in. */
    k = p->ck && p->ck->resumed ? p->ck->file : 0;
    if (k > 0) {
	Rb_ReaderClose(first);
	first = NULL;
    }
    for (; k < ntraces && p->failure->result == NULL
	    && !p->eng->cancel; k++) {
	Rb_Reader *r = OpenTrace(p, &traces[k], &first, schema, fields,
		Tcl_GetString(paths[0]));

	if (r == NULL) {
	    break;
	}
	if (!cut || pieces[k].file != lastFile) {
	    /* A file once, however many pieces of it are read. */
	    Tcl_ListObjAppendElement(NULL, files, Tcl_NewListObj(2,
		    (Tcl_Obj *[]){Tcl_NewStringObj(traces[k].path, -1),
		    Tcl_NewStringObj(r->cls->name, -1)}));
	    lastFile = cut ? pieces[k].file : -1;
	}
	src.r = r;
	src.runEpochNs = p->run->epochNs;
	p->traceIndex = k;
	p->traceRecords = p->skipLeft;
	p->readers = &src.r;
	p->nreaders = 1;
	p->progressIn = r->in;
	p->progressTotal = cut ? 0 : FileSize(traces[k].path);
	StartPrefix(p);
	PumpRecords(p, ReaderNextProc, ReaderOffsetProc, &src, traces[k].path);
	p->progressIn = NULL;
	p->progressTotal = 0;
	EndPrefix(p, traces[k].path);
	p->nreaders = 0;
	FinishReader(p->run, r);
    }
    Rb_ReaderClose(first);
    free(traces);
}

/*
 * CheckRunArgs --
 *	What must hold before a run: not already running, a head, something
 *	to read, readable traces (safe mode), standard input at most once.
 * Results: TCL_OK, or TCL_ERROR saying what is wrong.
 */
static int
CheckRunArgs(Tcl_Interp *interp, Rb_Engine *eng, const RunOpts *o, int n,
	Tcl_Obj *const paths[])
{
    int i, stdins = 0;

    if (eng->running) {
	return Rb_SetInterpError(interp, "RUBICON RUN BUSY",
		"rubicon::run is already running");
    }
    if (eng->head == NULL) {
	return Rb_SetInterpError(interp, "RUBICON RUN NOHEAD",
		"no head node: build a DAG and call \"head node\" first");
    }
    if (n == 0 && o->records == NULL) {
	return Rb_SetInterpError(interp, "RUBICON RUN NOTRACE",
		"no trace files given");
    }
    if (o->skimCount > 0 && (o->merge || o->records != NULL
	    || o->checkpoint != NULL || o->resume != NULL)) {
	return Rb_SetInterpError(interp, "RUBICON RUN NOSKIM",
		"-skim reads parts of trace files in turn: not with %s",
		o->merge ? "-merge" : o->records != NULL ? "-records"
		: o->checkpoint != NULL ? "-checkpoint" : "-resume");
    }
    for (i = 0; i < n; i++) {
	if (Rb_SafeCheckRead(interp, Tcl_GetString(paths[i])) != TCL_OK) {
	    return TCL_ERROR;
	}
	if (strcmp(Tcl_GetString(paths[i]), RB_INPUT_STDIN) == 0
		&& o->skimCount > 0) {
	    return Rb_SetInterpError(interp, "RUBICON RUN NOSKIM",
		    "-skim cannot read standard input (\"-\") in parts");
	}
	if (strcmp(Tcl_GetString(paths[i]), RB_INPUT_STDIN) == 0
		&& stdins++) {
	    return Rb_SetInterpError(interp, "RUBICON RUN STDIN",
		    "standard input (\"-\") is given more than once: it can "
		    "be read only once");
	}
    }
    return TCL_OK;
}

/*
 * StartDag --
 *	Before reading: starts every node from the head, collects the Flows
 *	the DAG reaches, checks the end order of staged analysis (and, in a
 *	split run, that every Analyzer can merge), and works out the fields
 *	the DAG reads (and the time), which readers need decode.
 * Results: TCL_OK with *flows, *nflows and *fields set, or TCL_ERROR.
 */
static int
StartDag(Tcl_Interp *interp, Rb_Engine *eng, Rb_RunInfo *run, int split,
	Rb_Flow ***flows, int *nflows, uint64_t *fields)
{
    int capFlows = 0;

    RbNodeClearMarks(eng);
    if (RbNodeStart(interp, eng->head, run) != TCL_OK) {
	return TCL_ERROR;
    }
    RbNodeClearMarks(eng);
    ReachableFlows(eng->head, flows, nflows, &capFlows);
    if (RbEndAnalyzers(interp, eng, *flows, *nflows, run, 1) != TCL_OK
	    || (split && RbMpiCheckSplit(interp, eng, *flows, *nflows, 0)
		!= TCL_OK)) {
	return TCL_ERROR;
    }
    RbNodeClearMarks(eng);
    *fields = RbNodeFields(eng->head) | RB_FIELD_BIT(0);
    return TCL_OK;
}

/*
 * NodeFailure --
 *	After reading: the error of an analyzer that stopped the run, or of
 *	a sink or transformer that failed (which stops a run like a bad
 *	read), unless a failure is already kept.
 */
static void
NodeFailure(Tcl_Interp *interp, Rb_Engine *eng, Failure *failure)
{
    Rb_Node *n;

    if (failure->result == NULL && eng->stoppedBy != NULL) {
	RbAnalyzerTakeError(interp, eng->stoppedBy);
	Capture(interp, failure);
    }
    for (n = eng->nodes; failure->result == NULL && eng->cancel == 2 && n;
	    n = n->nextNode) {
	if (n->failed) {
	    Rb_ErrorToInterp(interp, &n->runErr);
	    Capture(interp, failure);
	}
    }
}

/*
 * ElideSeries --
 *	Once every Analyzer has ended (staged ones read whole series), leaves
 *	out the middle of each long run of empty intervals in the flows'
 *	series Attributes (RbAttrElideEmptyRuns), before reports are written.
 */
static void
ElideSeries(Rb_Flow **flows, int nflows)
{
    int i;

    for (i = 0; i < nflows; i++) {
	Tcl_HashSearch s;
	Tcl_HashEntry *e;

	for (e = Tcl_FirstHashEntry(&flows[i]->attrs, &s); e;
		e = Tcl_NextHashEntry(&s)) {
	    RbAttrElideEmptyRuns(Tcl_GetHashValue(e), RB_SERIES_EMPTY_RUN);
	}
    }
}

/*
 * EndRun --
 *	After reading: flushes transformers and sinks, ends the analyzers in
 *	dependency order, writes the reports (marked partial when the run
 *	failed, a split run's too: what was computed is kept), and keeps the
 *	summary as rubicon::lastrun's.
 * Results: TCL_OK with the summary, or TCL_ERROR with the run's first
 *	failure (a read error, an analyzer's, a report's).
 */
static int
EndRun(Tcl_Interp *interp, Rb_Engine *eng, Rb_RunInfo *run, Rb_Flow **flows,
	int nflows, int split, Failure *failure, Tcl_Obj *files, double t0)
{
    Rb_Node *n;
    Tcl_Obj *notes = Tcl_NewListObj(0, NULL), *note;

    for (n = eng->nodes; n; n = n->nextNode) {
	n->visitMark = 0;
    }
    if (RbNodeFlush(interp, eng->head) != TCL_OK
	    && failure->result == NULL) {
	Capture(interp, failure);
	run->partial = 1;
    }
    if (RbEndAnalyzers(interp, eng, flows, nflows, run, 0) != TCL_OK
	    && failure->result == NULL) {
	Capture(interp, failure);
    }
    RbAnalyzersBlind(flows, nflows, run, notes);
    ElideSeries(flows, nflows);
    if (RbReportersWrite(interp, eng, run) != TCL_OK
	    && failure->result == NULL) {
	Capture(interp, failure);
    }
    eng->running = 0;
    if (eng->lastRun) {
	Tcl_DecrRefCount(eng->lastRun);
    }
    eng->lastRun = SummaryObj(run, files, Now() - t0,
	    failure->result ? Tcl_GetString(failure->result) : NULL);
    Tcl_DictObjPut(NULL, eng->lastRun, Tcl_NewStringObj("unreached", -1),
	    RbNodesUnreached(eng));
    if (eng->threadsUsed > 0) {
	/* -threads given: the threads the records were analyzed on. */
	Tcl_DictObjPut(NULL, eng->lastRun, Tcl_NewStringObj("threads", -1),
		Tcl_NewIntObj(eng->threadsUsed));
    }
    if (split && RbMpiRankRecords() != NULL) {
	/* How the records were shared out: each rank's count. */
	double reduce, merge;

	Tcl_DictObjPut(NULL, eng->lastRun, Tcl_NewStringObj("ranks", -1),
		Tcl_DuplicateObj(RbMpiRankRecords()));
	RbMpiReduceTimes(&reduce, &merge);
	Tcl_DictObjPut(NULL, eng->lastRun, Tcl_NewStringObj("reduceseconds",
		-1), Tcl_NewDoubleObj(reduce));
	Tcl_DictObjPut(NULL, eng->lastRun, Tcl_NewStringObj("mergeseconds",
		-1), Tcl_NewDoubleObj(merge));
	note = OneRankNote(RbMpiRankRecords());
	if (note != NULL) {
	    Tcl_Channel err = Tcl_GetStdChannel(TCL_STDERR);

	    Tcl_ListObjAppendElement(NULL, notes, note);
	    if (err != NULL) {
		Tcl_WriteChars(err, "rubicon: note: ", -1);
		Tcl_WriteObj(err, note);
		Tcl_WriteChars(err, "\n", 1);
		Tcl_Flush(err);
	    }
	}
    }
    Tcl_DictObjPut(NULL, eng->lastRun, Tcl_NewStringObj("notes", -1), notes);
    Tcl_IncrRefCount(eng->lastRun);
    if (failure->result) {
	Tcl_SetObjResult(interp, failure->result);
	Tcl_SetReturnOptions(interp, failure->options);
	Tcl_DecrRefCount(failure->result);
	Tcl_DecrRefCount(failure->options);
	return TCL_ERROR;
    }
    Tcl_SetObjResult(interp, eng->lastRun);
    return TCL_OK;
}

/*
 * RunCmd --
 *	rubicon::run ?-format F? ?-onerror stop|skip|warn? ?-progress bool?
 *	    ?-progresscommand script? ?-records list? ?-readeroptions dict?
 *	    ?-merge bool? ?-sweep bool? ?--? ?trace ...?
 *	Traces are read one after another, or with -merge 1 merged by record
 *	time (ties in the order given).  Under mpirun with several ranks the
 *	run is split over them (SplitShard, mpi.c): each reads its share,
 *	and rank 0 alone ends the analyzers with every rank's results.
 * Results: the summary dict; on a read error, the error (after ending
 *	analyzers and writing reports on what was read, marked partial).
 */
static int
RunCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Rb_Engine *eng = RbEngineGet(interp);
    RunOpts o;
    Rb_RunInfo run;
    Rb_Reader *reader = NULL;
    Rb_Error err;
    Rb_Flow **flows = NULL;
    int nflows = 0, first, n, k, rc = TCL_OK, split, npieces, threads;
    Pump pump;
    uint32_t *ident;
    struct sigaction sa, oldSa[NSIGNALS];
    Tcl_Obj *files, *script;
    Failure failure = {NULL, NULL};
    Tcl_DString traces;
    Rb_Schema *schema = Rb_IoSchema();
    uint64_t fields;
    RbMpiPiece *pieces = NULL;
    double t0 = Now();
    RbCkpt ck;

    if ((first = ParseRunArgs(interp, objc, objv, &o)) < 0
	    || CheckRunArgs(interp, eng, &o, objc - first, objv + first)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    n = objc - first;
    split = SplitShard(&o, n, objv + first, &pieces, &npieces);
    /* Before the DAG starts: Analyzers ask whether their state will be
     * merged (RbMergeWanted, RbShardFirst). */
    RbCkptInit(&ck, o.checkpoint, o.everyRecords, o.everySeconds, o.resume);
    if (split) {
	RbCkptSplit(&ck, RbMpiRank(), RbMpiSize(), pieces, npieces);
    }
    if (RbCkptCheckInputs(interp, &ck, n, objv + first, split,
	    o.records != NULL) != TCL_OK) {
	free(pieces);
	RbCkptDone(&ck, 0);
	if (split && RbMpiRank() != 0) {
	    RbMpiWorkerExit(0);	/* every rank refuses alike; 0 says why */
	}
	return TCL_ERROR;
    }

    /* Open the first trace now: its schema is the run's. */
    if (n > 0) {
	reader = OpenReader(Tcl_GetString(objv[first]), &o, &err);
	if (reader == NULL) {
	    free(pieces);
	    RbCkptDone(&ck, 0);
	    return Rb_ErrorToInterp(interp, &err);
	}
	schema = reader->schema;
    }
    /* After the first trace opened: an unreadable one says so, not that
     * it cannot be cut. */
    if (o.skimCount > 0 && RbSkimPieces(interp, n, objv + first, o.format,
	    o.readerOpts, o.skimCount, o.skimFraction, &pieces, &npieces)
	    != TCL_OK) {
	Rb_ReaderClose(reader);
	RbCkptDone(&ck, 0);
	return TCL_ERROR;
    }
    RbRunInfoInit(&run, interp, schema);
    Tcl_DStringInit(&traces);
    for (k = first; k < objc; k++) {
	Tcl_DStringAppendElement(&traces, Tcl_GetString(objv[k]));
    }
    run.traces = Tcl_DStringValue(&traces);
    script = Tcl_GetVar2Ex(interp, "::rubicon::config", NULL, TCL_GLOBAL_ONLY);
    if (script) {
	free(run.config);
	run.config = Rb_Strdup(Tcl_GetString(script));
    }
    if (reader) {
	run.epochNs = reader->epochNs;
    }
    if (StartDag(interp, eng, &run, split, &flows, &nflows, &fields)
	    != TCL_OK) {
	rc = TCL_ERROR;
	goto done;
    }
    if (ck.active) {
	Tcl_Obj *runOpts = Tcl_ObjPrintf("-format {%s} -onerror %d -merge %d "
		"-readeroptions {%s}", o.format ? o.format : "", (int)o.onError,
		o.merge, o.readerOpts ? Tcl_GetString(o.readerOpts) : "");

	Tcl_IncrRefCount(runOpts);
	rc = RbCkptCheck(interp, &ck, eng, flows, nflows, run.config, n,
		objv + first, runOpts);
	Tcl_DecrRefCount(runOpts);
	if (rc == TCL_OK) {
	    rc = RbCkptLoad(interp, &ck);
	}
	if (split) {
	    /* Every rank goes on, or none (rank 0 says why). */
	    rc = RbCkptAgree(interp, &ck, rc);
	}
	if (rc != TCL_OK) {
	    goto done;
	}
    }
    if (reader) {
	reader->fields = fields;
    }
    if (split) {
	SeedFirstTime(&run, reader);
	Rb_ReaderClose(reader);
	reader = NULL;
    }

    eng->running = 1;
    eng->reading = 1;
    eng->stoppedBy = NULL;
    eng->cancel = 0;
    sigintEngine = eng;
    signalsSeen = 0;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = OnSignal;
    for (k = 0; k < NSIGNALS; k++) {
	sigaction(runSignals[k], &sa, &oldSa[k]);
    }

    memset(&pump, 0, sizeof(pump));
    pump.interp = interp;
    pump.eng = eng;
    pump.run = &run;
    pump.o = &o;
    pump.batch = Rb_BatchCreate(schema, o.batchSize);
    pump.ident = ident = Rb_AllocArray(RB_BATCH_SIZE, sizeof(uint32_t));
    for (k = 0; k < RB_BATCH_SIZE; k++) {
	ident[k] = k;
    }
    pump.failure = &failure;
    pump.t0 = pump.lastProgress = t0;
    pump.gridFirst = pump.localFirst = RB_ABSENT;
    if (split && run.firstTime != INT64_MAX) {
	pump.gridFirst = pump.localFirst = run.firstTime;
    }
    files = Tcl_NewListObj(0, NULL);
    Tcl_IncrRefCount(files);
    if (ck.active) {
	pump.ck = &ck;
	pump.flows = flows;
	pump.nflows = nflows;
	pump.files = files;
    }
    if (ck.resumed) {
	/* Time bins and Filters count from the interrupted run's start. */
	if (ck.gridFirst != INT64_MAX && ck.gridFirst != RB_ABSENT) {
	    run.firstTime = ck.gridFirst;
	    pump.gridFirst = pump.localFirst = ck.gridFirst;
	}
	pump.skipLeft = ck.fileRecords;
    }
    threads = RbParallelStart(eng, o.threads);
    eng->threadsUsed = o.threadsGiven ? threads : 0;
    ReadTraces(&pump, n, objv + first, reader, schema, fields, pieces,
	    npieces, split || o.skimCount > 0, files);
    RbParallelEnd(eng);
    reader = NULL;
    if (ck.path && eng->cancel == 1 && failure.result == NULL
	    && TakeCheckpoint(&pump, 0) != TCL_OK) {
	/* Stopped by a signal or rubicon::cancel: resume from here. */
	Capture(interp, &failure);
    }
    if (pump.gridFirst != RB_ABSENT) {
	run.firstTime = pump.localFirst;	/* the earliest time read */
    }
    eng->reading = 0;
    NodeFailure(interp, eng, &failure);
    run.partial = (failure.result != NULL || eng->cancel != 0);
    if (ck.resumed) {
	/* A resumed rank holds its whole share before the ranks merge. */
	Tcl_Obj *all;

	if (RbCkptMergeBefore(interp, &ck, flows, nflows, &run) != TCL_OK
		&& failure.result == NULL) {
	    Capture(interp, &failure);
	    run.partial = 1;
	}
	all = RbCkptFiles(&ck, files);
	Tcl_IncrRefCount(all);
	Tcl_DecrRefCount(files);
	files = all;
    }
    if (split) {
	/* Rank 0 goes on with every rank's results; the others end, and
	 * remove their checkpoints once their share is merged. */
	RbMpiRemoveAfterSend(ck.path && !run.partial ? ck.path : NULL);
	RbMpiReduce(interp, flows, nflows, &run, files, &failure.result,
		&failure.options);
	run.partial |= (failure.result != NULL);
    }
    if (run.records == 0) {
	run.firstTime = run.lastTime = 0;
    }
    rc = EndRun(interp, eng, &run, flows, nflows, split, &failure, files,
	    pump.t0);
    for (k = 0; k < NSIGNALS; k++) {
	sigaction(runSignals[k], &oldSa[k], NULL);
    }
    sigintEngine = NULL;
    RbCkptDone(&ck, !run.partial && rc == TCL_OK);
    Tcl_DecrRefCount(files);
    Rb_BatchFree(pump.batch);
    Rb_BatchFree(pump.spare);
    free(ident);

  done:
    RbCkptDone(&ck, 0);
    eng->reading = 0;
    eng->stoppedBy = NULL;
    eng->running = 0;
    Rb_ReaderClose(reader);
    free(flows);
    RbRunInfoFree(&run);
    Tcl_DStringFree(&traces);
    free(pieces);
    RbMpiSetSweep(0);
    if (split && RbMpiRank() != 0) {
	RbMpiWorkerExit(0);	/* failed before reading, as rank 0 did */
    }
    return rc;
}

/*
 * CancelCmd --
 *	rubicon::cancel: the running rubicon::run stops at the next batch
 *	boundary, as on SIGINT.
 */
static int
CancelCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    RbEngineGet(interp)->cancel = 1;
    return TCL_OK;
}

/*
 * RbRunSignal, RbRunNoteSignal --
 *	The last signal that stopped a run in this process (0 if none), and
 *	making one stop it as if received here (rank 0 of a split run one of
 *	whose ranks a signal stopped: the results lack the rest of that
 *	rank's share, and the program must not exit 0).
 */
int
RbRunSignal(void)
{
    return stoppedBySignal;
}

void
RbRunNoteSignal(int sig)
{
    stoppedBySignal = sig;
}

/*
 * SignalCmd --
 *	rubicon::_signal: the number of the last signal that stopped a run
 *	in this process, 0 if none.  The rubicon program
 *	exits with 128 plus it, as a shell reports a process the signal
 *	killed, so that scripts can tell an interrupted run.
 */
static int
SignalCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Tcl_SetObjResult(interp, Tcl_NewIntObj(stoppedBySignal));
    return TCL_OK;
}

/*
 * LastRunCmd --
 *	rubicon::lastrun: the summary dict of the last run ("" if none).
 */
static int
LastRunCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Rb_Engine *eng = RbEngineGet(interp);

    if (eng->lastRun) {
	Tcl_SetObjResult(interp, eng->lastRun);
    }
    return TCL_OK;
}

int
RbRunInitCmds(Tcl_Interp *interp)
{
    Tcl_CreateObjCommand(interp, "::rubicon::run", RunCmd, NULL, NULL);
    Tcl_CreateObjCommand(interp, "::rubicon::cancel", CancelCmd, NULL, NULL);
    Tcl_CreateObjCommand(interp, "::rubicon::_signal", SignalCmd, NULL, NULL);
    Tcl_CreateObjCommand(interp, "::rubicon::lastrun", LastRunCmd, NULL,
	    NULL);
    return TCL_OK;
}
