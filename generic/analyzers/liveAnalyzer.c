/*
 * liveAnalyzer.c --
 *
 *	LiveAnalyzer: per-interval rows while a run goes.  I/Os are binned
 *	by enqueue time into intervals of -interval trace seconds from the
 *	run's first record (as the series of the other Analyzers are); per
 *	key (the -field value, deviceNo by default) an interval keeps its
 *	I/Os, reads, bytes, and the response times in a logarithmic
 *	histogram.  When the first I/O of a later interval arrives, the
 *	finished interval (and the empty ones after it) is reported, by
 *	calling -command or by writing rows to standard output, and its
 *	state is emptied: memory holds one interval's keys, never more.
 */

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include "analyzers.h"

typedef struct LiveKey {
    uint64_t ios, reads, measured;
    double bytes, sumRt;	/* bytes; response times, s */
    Rb_LogHist rt;		/* response times, s */
} LiveKey;

typedef struct LiveState {
    int64_t interval;		/* -interval, ns */
    char *field;		/* -field */
    Tcl_Obj *command;		/* -command, or NULL */
    int64_t limit;		/* -limit: most keys in one interval */
    int index;
    const Rb_RunInfo *run;
    int started;		/* Whether cur is set. */
    int64_t cur;		/* Index of the interval being counted. */
    uint64_t reported;		/* Intervals reported. */
    uint64_t late;		/* I/Os of an interval already reported. */
    int failed;
    Rb_KeyTable keys;		/* key -> LiveKey, the current interval */
} LiveState;

static const Rb_Option liveOptions[] = {
    {"-interval", RB_OPT_TIME, offsetof(LiveState, interval), "1",
	"length of one interval (trace time)"},
    {"-field", RB_OPT_FIELD, offsetof(LiveState, field), "deviceNo",
	"field whose values are the rows of an interval"},
    {"-command", RB_OPT_OBJ, offsetof(LiveState, command), "",
	"command called with each interval (else rows on stdout)"},
    {"-limit", RB_OPT_INT, offsetof(LiveState, limit), "100000",
	"most distinct keys in one interval (the run stops beyond)"},
    {NULL}
};

static const char *const liveAttrs[] = {
    "LiveIntervals", "LiveLate", NULL
};

/*
 * EmptyKeys --
 *	Frees every key's histogram and empties the table.
 */
static void
EmptyKeys(LiveState *st)
{
    uint64_t i;

    for (i = 0; i < st->keys.cap; i++) {
	if (st->keys.used[i]) {
	    Rb_LogHistFree(&((LiveKey *)Rb_KeyTableValue(&st->keys, i))->rt);
	}
    }
    Rb_KeyTableClear(&st->keys);
}

/*
 * LiveStart --
 *	Checks the options, resolves -field and forgets a previous run.
 */
static int
LiveStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    LiveState *st = a->state;

    if (st->interval <= 0) {
	return RbKitOptionError(a, NULL, "-interval must be positive");
    }
    if (st->limit <= 0) {
	return RbKitOptionError(a, NULL, "-limit must be positive");
    }
    if (RbKitNumericField(a, run, st->field, &st->index) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->keys.valSize == 0) {
	Rb_KeyTableInit(&st->keys, sizeof(LiveKey));
    }
    EmptyKeys(st);
    st->run = run;
    st->started = 0;
    st->reported = 0;
    st->late = 0;
    st->failed = 0;
    return TCL_OK;
}

/*
 * Report --
 *	Reports interval cur: calls -command with its start and end (seconds
 *	from the run's first record) and a list of rows {key ios reads bytes
 *	meanResponse p99Response queueDepth} in key order (response times
 *	in seconds, empty when none was measured; the queue depth is the
 *	response times summed over the interval's length), or writes the
 *	rows to standard output.  Empties the interval.
 * Results: TCL_OK, or TCL_ERROR when the command failed (the run stops
 *	with its error).
 */
static int
Report(Rb_Analyzer *a)
{
    LiveState *st = a->state;
    Tcl_Interp *interp = st->run->interp;
    double len = (double)st->interval / RB_NS_PER_S;
    double from = (double)st->cur * len, to = from + len;
    uint64_t *slots = Rb_KeyTableSortedSlots(&st->keys), k;
    Tcl_Obj *rows = Tcl_NewListObj(0, NULL);
    int code = TCL_OK;

    Tcl_IncrRefCount(rows);
    for (k = 0; k < st->keys.count; k++) {
	LiveKey *key = Rb_KeyTableValue(&st->keys, slots[k]);
	Tcl_Obj *row[7];

	row[0] = Tcl_NewWideIntObj(st->keys.keys[slots[k]]);
	row[1] = Tcl_NewWideIntObj((Tcl_WideInt)key->ios);
	row[2] = Tcl_NewWideIntObj((Tcl_WideInt)key->reads);
	row[3] = Tcl_NewDoubleObj(key->bytes);
	if (key->measured > 0) {
	    row[4] = Tcl_NewDoubleObj(key->sumRt / (double)key->measured);
	    row[5] = Tcl_NewDoubleObj(Rb_LogHistPercentile(&key->rt, 99));
	    row[6] = Tcl_NewDoubleObj(key->sumRt / len);
	} else {
	    row[4] = Tcl_NewObj();
	    row[5] = Tcl_NewObj();
	    row[6] = Tcl_NewObj();
	}
	Tcl_ListObjAppendElement(NULL, rows, Tcl_NewListObj(7, row));
    }
    free(slots);
    EmptyKeys(st);
    st->reported++;
    if (st->command != NULL && Tcl_GetCharLength(st->command) > 0) {
	Tcl_Obj *cmd = Tcl_DuplicateObj(st->command);

	Tcl_IncrRefCount(cmd);
	Tcl_ListObjAppendElement(NULL, cmd, Tcl_NewDoubleObj(from));
	Tcl_ListObjAppendElement(NULL, cmd, Tcl_NewDoubleObj(to));
	Tcl_ListObjAppendElement(NULL, cmd, rows);
	code = Tcl_EvalObjEx(interp, cmd, TCL_EVAL_GLOBAL);
	Tcl_DecrRefCount(cmd);
	if (code != TCL_OK) {
	    Rb_AnalyzerError(a, "RUBICON ANALYZER COMMAND", "%s: -command: %s",
		    a->cls->name, Tcl_GetStringResult(interp));
	}
    } else {
	Tcl_Channel out = Tcl_GetStdChannel(TCL_STDOUT);
	int n, i;
	Tcl_Obj **rowv;
	char line[256];

	Tcl_ListObjGetElements(NULL, rows, &n, &rowv);
	snprintf(line, sizeof(line), "interval %.6g-%.6g s: %" PRIu64
		" keys\n", from, to, (uint64_t)n);
	if (out != NULL) {
	    Tcl_WriteChars(out, line, -1);
	    for (i = 0; i < n; i++) {
		Tcl_WriteObj(out, rowv[i]);
		Tcl_WriteChars(out, "\n", 1);
	    }
	    Tcl_Flush(out);
	}
    }
    Tcl_DecrRefCount(rows);
    return code;
}

/*
 * LiveBatch --
 *	Counts each selected I/O in its key of the current interval,
 *	reporting the intervals that ended before it.  An I/O earlier than
 *	the current interval (out of order) is counted in it and in
 *	LiveLate.
 */
static void
LiveBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    LiveState *st = a->state;
    const int64_t *keys = b->col[st->index];
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int i = sel[j];
	int64_t t = b->col[RB_IO_TIME][i];
	int64_t finish = b->col[RB_IO_FINISH][i];
	int64_t size = b->col[RB_IO_SIZE][i];
	int64_t bin;
	LiveKey *key;

	if (t == RB_ABSENT || keys[i] == RB_ABSENT) {
	    continue;
	}
	bin = t >= st->run->firstTime
		? (t - st->run->firstTime) / st->interval : 0;
	if (!st->started) {
	    st->started = 1;
	    st->cur = bin;
	}
	while (bin > st->cur) {
	    if (Report(a) != TCL_OK) {
		st->failed = 1;
		return;
	    }
	    st->cur++;
	}
	if (bin < st->cur) {
	    st->late++;
	}
	key = Rb_KeyTableFindLimited(&st->keys, keys[i], st->limit);
	if (key == NULL) {
	    st->failed = 1;
	    RbKitKeyLimit(a, st->limit, st->field, b->firstRecord + i, 1000);
	    return;
	}
	key->ios++;
	if (b->col[RB_IO_OP][i] == RB_OP_READ) {
	    key->reads++;
	}
	if (size != RB_ABSENT && size > 0) {
	    key->bytes += (double)size;
	}
	if (finish != RB_ABSENT && finish >= t) {
	    double rt = (double)(finish - t) / RB_NS_PER_S;

	    key->measured++;
	    key->sumRt += rt;
	    Rb_LogHistAdd(&key->rt, rt);
	}
    }
}

/*
 * LiveEnd --
 *	Reports the last interval and sets LiveIntervals and LiveLate.
 */
static int
LiveEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    LiveState *st = a->state;

    (void)run;
    if (st->started && !st->failed && Report(a) != TCL_OK) {
	return TCL_ERROR;
    }
    Rb_AnalyzerSet(a, Rb_AttrScalar("LiveIntervals", (double)st->reported,
	    "", "intervals reported"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("LiveLate", (double)st->late, "",
	    "I/Os counted in a later interval than their own (out of order)"));
    return TCL_OK;
}

/*
 * LiveFree --
 *	Frees the interval's keys.
 */
static void
LiveFree(Rb_Analyzer *a)
{
    LiveState *st = a->state;

    EmptyKeys(st);
    Rb_KeyTableFree(&st->keys);
}

const Rb_AnalyzerClass Rb_LiveAnalyzerClass = {
    .name = "LiveAnalyzer",
    .help = "per-interval rows (I/Os, bytes, await, queue depth per key) "
	"reported while the run goes",
    .stateSize = sizeof(LiveState),
    .options = liveOptions,
    .attrs = liveAttrs,
    .mergeable = 0,
    .perRecordState = 0,
    .start = LiveStart,
    .batch = LiveBatch,
    .end = LiveEnd,
    .freeState = LiveFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_FINISH)
	| RB_FIELD_BIT(RB_IO_OP) | RB_FIELD_BIT(RB_IO_SIZE),
};
