/*
 * coalesce.c --
 *
 *	CoalesceTransformer: merges sequential, adjacent I/Os on the same
 *	device and operation that arrive within a time window, to ask what
 *	the workload would look like if the application issued them as one.
 *	An I/O is held back while the next one may extend it: it grows by
 *	each I/O that starts where it ends, keeps the first one's times,
 *	and takes the last one's finish time.  It goes on when an I/O that
 *	does not extend it arrives on its device and operation, when the
 *	trace moves past its window, or at the end of the input.
 */

#include "transformers.h"

/* At most this many (device, operation) pairs are held at once: a flush
 * must fit in one output batch.  I/Os of further pairs go on unmerged. */
#define MAX_PENDING RB_BATCH_SIZE

typedef struct PendingKey {
    int64_t device;
    int64_t op;
} PendingKey;

typedef struct CoalesceState {
    int64_t window;		/* -window, ns */
    int64_t maxSize;		/* -maxsize, bytes; 0 for no limit */
    int tableInit;
    Tcl_HashTable table;	/* PendingKey -> index into the arrays */
    int npending;
    int nfields;
    int64_t *records;		/* npending rows of nfields values */
    int64_t *lastTime;		/* time of the last I/O merged in */
    Tcl_HashEntry **entries;
    int fTime, fFinish, fOp, fSize, fDev, fOff;
} CoalesceState;

static const Rb_Option coalesceOptions[] = {
    {"-window", RB_OPT_TIME, offsetof(CoalesceState, window), "0.01",
	"largest gap, in seconds, between I/Os that are merged"},
    {"-maxsize", RB_OPT_INT, offsetof(CoalesceState, maxSize), "0",
	"largest merged I/O in bytes (0: no limit)"},
    {NULL}
};

/*
 * CoalesceInit --
 *	Checks the options and makes the pending table.
 */
static int
CoalesceInit(Rb_Transformer *t, Tcl_Interp *interp)
{
    CoalesceState *st = t->state;

    if (st->window < 0 || st->maxSize < 0) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"-window and -maxsize must not be negative");
    }
    if (!st->tableInit) {
	Tcl_InitHashTable(&st->table, sizeof(PendingKey) / sizeof(int));
	st->tableInit = 1;
    }
    return TCL_OK;
}

/*
 * CoalesceStart --
 *	Empties the pending table and resolves the fields used.
 */
static int
CoalesceStart(Rb_Transformer *t, const Rb_RunInfo *run)
{
    CoalesceState *st = t->state;
    const Rb_Schema *s = run->schema;

    if (RbXfField(t, s, "time", &st->fTime) != TCL_OK
	    || RbXfField(t, s, "finishTime", &st->fFinish) != TCL_OK
	    || RbXfField(t, s, "op", &st->fOp) != TCL_OK
	    || RbXfField(t, s, "size", &st->fSize) != TCL_OK
	    || RbXfField(t, s, "deviceNo", &st->fDev) != TCL_OK
	    || RbXfField(t, s, "devOffset", &st->fOff) != TCL_OK) {
	return TCL_ERROR;
    }
    Tcl_DeleteHashTable(&st->table);
    Tcl_InitHashTable(&st->table, sizeof(PendingKey) / sizeof(int));
    st->npending = 0;
    st->nfields = s->nfields;
    st->records = Rb_ReallocArray(st->records,
	    (size_t)MAX_PENDING * s->nfields, sizeof(int64_t));
    st->lastTime = Rb_ReallocArray(st->lastTime, MAX_PENDING, sizeof(int64_t));
    st->entries = Rb_ReallocArray(st->entries, MAX_PENDING,
	    sizeof(Tcl_HashEntry *));
    return TCL_OK;
}

/*
 * Emit --
 *	Appends pending I/O p to out.
 */
static void
Emit(const CoalesceState *st, int p, Rb_Batch *out)
{
    int o = Rb_BatchAppend(out), f;
    const int64_t *rec = st->records + (size_t)p * st->nfields;

    for (f = 0; f < st->nfields; f++) {
	out->col[f][o] = rec[f];
    }
}

/*
 * Hold --
 *	Makes record i of in pending p (its values copied).
 */
static void
Hold(CoalesceState *st, int p, const Rb_Batch *in, int i)
{
    int64_t *rec = st->records + (size_t)p * st->nfields;
    int f;

    for (f = 0; f < st->nfields; f++) {
	rec[f] = in->col[f][i];
    }
    st->lastTime[p] = in->col[st->fTime][i];
}

/*
 * Drop --
 *	Removes pending p; the last one moves into its place.
 */
static void
Drop(CoalesceState *st, int p)
{
    int last = --st->npending;

    Tcl_DeleteHashEntry(st->entries[p]);
    if (p != last) {
	memcpy(st->records + (size_t)p * st->nfields,
		st->records + (size_t)last * st->nfields,
		st->nfields * sizeof(int64_t));
	st->lastTime[p] = st->lastTime[last];
	st->entries[p] = st->entries[last];
	Tcl_SetHashValue(st->entries[p], (ClientData)(intptr_t)p);
    }
}

/*
 * Extends --
 *	Whether record i of in continues pending p: it starts where p ends,
 *	within the window of p's last I/O, and the sum stays in -maxsize.
 */
static int
Extends(const CoalesceState *st, int p, const Rb_Batch *in, int i)
{
    const int64_t *rec = st->records + (size_t)p * st->nfields;
    int64_t gap = in->col[st->fTime][i] - st->lastTime[p];
    int64_t merged = rec[st->fSize] + in->col[st->fSize][i];

    return in->col[st->fOff][i] == rec[st->fOff] + rec[st->fSize]
	    && gap >= 0 && gap <= st->window
	    && (st->maxSize == 0 || merged <= st->maxSize);
}

typedef struct Due {
    int64_t time;		/* The pending I/O's first time. */
    int index;
} Due;

/*
 * DueByTime, DueByIndex --
 *	qsort orders of due pending I/Os: oldest first; highest index first.
 */
static int
DueByTime(const void *a, const void *b)
{
    const Due *x = a, *y = b;

    if (x->time != y->time) {
	return x->time < y->time ? -1 : 1;
    }
    return x->index - y->index;
}

static int
DueByIndex(const void *a, const void *b)
{
    return ((const Due *)b)->index - ((const Due *)a)->index;
}

/*
 * EmitDue --
 *	Emits, oldest first and as far as out has room, every pending I/O
 *	whose window closed before time now (all of them when now is
 *	INT64_MAX), and drops them from the table.
 * Results: how many were due but did not fit.
 */
static int
EmitDue(CoalesceState *st, int64_t now, Rb_Batch *out)
{
    Due *due = Rb_AllocArray(st->npending + 1, sizeof(Due));
    int n = 0, k, p;

    for (p = 0; p < st->npending; p++) {
	if (now == INT64_MAX || st->lastTime[p] + st->window < now) {
	    due[n].time = st->records[(size_t)p * st->nfields + st->fTime];
	    due[n++].index = p;
	}
    }
    qsort(due, n, sizeof(Due), DueByTime);
    for (k = 0; k < n && out->n < out->cap; k++) {
	Emit(st, due[k].index, out);
    }
    /* Dropping the highest index first means the swap-removal never
     * moves an entry that is still to be dropped. */
    qsort(due, k, sizeof(Due), DueByIndex);
    for (p = 0; p < k; p++) {
	Drop(st, due[p].index);
    }
    free(due);
    return n - k;
}

/*
 * CoalesceTransform --
 *	Merges each selected I/O into its device and operation's pending
 *	I/O or holds it; then lets go of the I/Os whose window has passed.
 *	I/Os without a device, operation, offset or size pass unchanged.
 */
static int
CoalesceTransform(Rb_Transformer *t, const Rb_Batch *in, const uint32_t *sel,
	int nsel, Rb_Batch *out)
{
    CoalesceState *st = t->state;
    int64_t now = INT64_MIN;
    int j;

    for (j = 0; j < nsel; j++) {
	int i = sel[j], isNew, p;
	PendingKey key;
	Tcl_HashEntry *h;
	int64_t *rec;

	key.device = in->col[st->fDev][i];
	key.op = in->col[st->fOp][i];
	if (key.device == RB_ABSENT || key.op == RB_ABSENT
		|| in->col[st->fOff][i] == RB_ABSENT
		|| in->col[st->fSize][i] == RB_ABSENT
		|| in->col[st->fTime][i] == RB_ABSENT) {
	    Rb_BatchCopyRecord(out, in, i);
	    continue;
	}
	if (in->col[st->fTime][i] > now) {
	    now = in->col[st->fTime][i];
	}
	h = Tcl_FindHashEntry(&st->table, (const char *)&key);
	if (h == NULL) {
	    if (st->npending >= MAX_PENDING) {
		Rb_BatchCopyRecord(out, in, i);
		continue;
	    }
	    p = st->npending++;
	    h = Tcl_CreateHashEntry(&st->table, (const char *)&key, &isNew);
	    Tcl_SetHashValue(h, (ClientData)(intptr_t)p);
	    st->entries[p] = h;
	    Hold(st, p, in, i);
	    continue;
	}
	p = (int)(intptr_t)Tcl_GetHashValue(h);
	if (!Extends(st, p, in, i)) {
	    Emit(st, p, out);
	    Hold(st, p, in, i);
	    continue;
	}
	rec = st->records + (size_t)p * st->nfields;
	rec[st->fSize] += in->col[st->fSize][i];
	rec[st->fFinish] = in->col[st->fFinish][i];
	st->lastTime[p] = in->col[st->fTime][i];
    }
    if (now != INT64_MIN) {
	EmitDue(st, now, out);
    }
    return TCL_OK;
}

/*
 * CoalesceFlush --
 *	End of input: every pending I/O goes on, oldest first.
 */
static int
CoalesceFlush(Rb_Transformer *t, Rb_Batch *out)
{
    CoalesceState *st = t->state;

    if (EmitDue(st, INT64_MAX, out) > 0) {
	Rb_SetError(&t->err, "RUBICON TRANSFORMER FLUSH",
		"%d held I/Os do not fit the output batch", st->npending);
	return TCL_ERROR;
    }
    return TCL_OK;
}

/*
 * CoalesceFree --
 *	Frees the pending table.
 */
static void
CoalesceFree(Rb_Transformer *t)
{
    CoalesceState *st = t->state;

    if (st->tableInit) {
	Tcl_DeleteHashTable(&st->table);
	st->tableInit = 0;
    }
    free(st->records);
    free(st->lastTime);
    free(st->entries);
}

const Rb_TransformerClass Rb_CoalesceTransformerClass = {
    "CoalesceTransformer",
    "merges sequential adjacent I/Os on one device and operation within "
	"a time window",
    sizeof(CoalesceState), coalesceOptions,
    CoalesceInit, CoalesceStart, CoalesceTransform, CoalesceFlush,
    CoalesceFree,
    2
};
