/*
 * txMixAnalyzer.c --
 *
 *	TxMixAnalyzer: cuts a stream of transactions (a type, a start time,
 *	an end time) into windows of fixed length and gives, per window i
 *	and type j, the count N_ij and summed response time T_ij, the total
 *	y_i = sum_j T_ij, and per resource r the mean utilization U_ir of
 *	the samples given with -utilization.  With -model it calibrates that
 *	transaction-mix model on every window and sets the fit, its residual
 *	series and its accuracy.  A transaction belongs to the window where
 *	it starts.  Memory grows with windows x types.
 *
 *	Mergeable, exactly: windows are numbered from the epoch (window 0 of
 *	a run is the first transaction's), response times are summed in
 *	integer ns, and a shard keeps the transactions outside its windows
 *	(before its first, or implausibly far after it) by type and window,
 *	and the rank of the first transaction of every cell, so that a merge
 *	places each cell where one pass would and orders the types by their
 *	first transaction as one pass does.
 */

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/txmix/txmix.h"

#define NS_PER_S 1e9
/* A window this far after the first is taken for a corrupt time. */
#define MAX_WINDOW 100000000

typedef struct TxMixState {
    int64_t windowNs;		/* -window */
    char *typeField;		/* -type */
    char *startField;		/* -start */
    char *endField;		/* -end */
    Tcl_Obj *utilization;	/* -utilization dict resource -> samples */
    char *model;		/* -model: a model name, or "" for none */
    char *method;		/* -method lar|ols */
    int intercept;		/* -intercept */
    int64_t maxTypes;		/* -maxtypes */
    int failed;			/* -maxtypes was passed: counting stopped. */

    int typeIndex, startIndex, endIndex;
    Rb_Schema *schema;		/* The run's, for type names. */
    int haveOrigin;
    int64_t originWin;		/* Window 0 counted from the epoch. */
    int64_t origin;		/* Start of window 0, ns. */
    int64_t seq;		/* Transactions so far (their rank). */
    Tcl_HashTable types;	/* type value -> column index */
    int typesInit;
    int ntypes;
    int64_t *typeKeys;		/* Column -> type value. */
    int64_t *typeFirst;		/* Column -> rank of its first transaction. */
    int nwin, winCap;
    double **count;		/* count[j][i] */
    int64_t **rtimeNs;		/* rtimeNs[j][i], summed response time */
    int64_t **first;		/* first[j][i]: rank of the cell's first
				 * transaction, 0 for none */
    Tcl_HashTable outside;	/* {type, window from the epoch} -> Cell:
				 * transactions outside the windows. */
} TxMixState;

/* Transactions of one type in one window. */
typedef struct Cell {
    double count;
    int64_t ns;
    int64_t first;
} Cell;

/* The key of an outside cell: a Tcl hash key of 4 ints. */
typedef struct CellKey {
    int64_t type, window;
} CellKey;

static const Rb_Option txMixOptions[] = {
    {"-window", RB_OPT_TIME, offsetof(TxMixState, windowNs), "300",
	"length of a window (5 minutes, as Kelly & Zhang's intervals)"},
    {"-type", RB_OPT_FIELD, offsetof(TxMixState, typeField), "deviceNo",
	"field holding the transaction type"},
    {"-start", RB_OPT_FIELD, offsetof(TxMixState, startField), "time",
	"field holding the start time"},
    {"-end", RB_OPT_FIELD, offsetof(TxMixState, endField), "finishTime",
	"field holding the completion time"},
    {"-utilization", RB_OPT_OBJ, offsetof(TxMixState, utilization), NULL,
	"dict: resource -> {time utilization ...}, times in seconds of "
	"trace time, utilizations in [0,1]"},
    {"-model", RB_OPT_STRING, offsetof(TxMixState, model), "",
	"model to calibrate on all windows (basic, extended, composite, "
	"composite-refit, naive, scalar-...); empty for none"},
    {"-method", RB_OPT_STRING, offsetof(TxMixState, method), "lar",
	"calibration: lar or ols"},
    {"-intercept", RB_OPT_BOOL, offsetof(TxMixState, intercept), "0",
	"whether the model has an intercept"},
    {"-maxtypes", RB_OPT_INT, offsetof(TxMixState, maxTypes), "10000",
     "most transaction types held; one more stops the run (RUBICON LIMIT KEYS)"},
    {NULL}
};

static const char *const txMixAttrs[] = {
    "TxMixCounts", "TxMixTimes", "TxMixMix", "TxMixResponse",
    "TxMixUtilization", "TxMixArrivalUtilization", "TxMixCoefficients", "TxMixFit",
    "TxMixError", "TxMixErrorUtilization", NULL
};

/*
 * FreeWindows --
 *	Frees the per-type window arrays, the type table and the outside
 *	cells.
 */
static void
FreeWindows(TxMixState *st)
{
    Tcl_HashSearch hs;
    Tcl_HashEntry *e;
    int j;

    for (j = 0; j < st->ntypes; j++) {
	free(st->count[j]);
	free(st->rtimeNs[j]);
	free(st->first[j]);
    }
    free(st->count);
    free(st->rtimeNs);
    free(st->first);
    free(st->typeKeys);
    free(st->typeFirst);
    st->count = NULL;
    st->rtimeNs = st->first = NULL;
    st->typeKeys = st->typeFirst = NULL;
    st->ntypes = st->nwin = st->winCap = 0;
    if (st->typesInit) {
	for (e = Tcl_FirstHashEntry(&st->outside, &hs); e;
		e = Tcl_NextHashEntry(&hs)) {
	    free(Tcl_GetHashValue(e));
	}
	Tcl_DeleteHashTable(&st->types);
	Tcl_DeleteHashTable(&st->outside);
	st->typesInit = 0;
    }
}

/*
 * LookupName --
 *	Index of name in a NULL-ended table, or -1.
 */
static int
LookupName(const char *const *names, const char *name)
{
    int i;

    for (i = 0; names[i]; i++) {
	if (strcmp(names[i], name) == 0) {
	    return i;
	}
    }
    return -1;
}

/*
 * TxMixInit --
 *	Checks -window, -model and -method.
 */
static int
TxMixInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    TxMixState *st = a->state;

    if (st->windowNs <= 0) {
	return Rb_SetInterpError(interp, "RUBICON ANALYZER OPTION",
		"TxMixAnalyzer: -window must be positive");
    }
    if (st->maxTypes <= 0) {
	return Rb_SetInterpError(interp, "RUBICON ANALYZER OPTION",
		"TxMixAnalyzer: -maxtypes must be positive");
    }
    if (st->model[0] && LookupName(Rb_TxmixModelNames, st->model) < 0) {
	return Rb_SetInterpError(interp, "RUBICON ANALYZER OPTION",
		"TxMixAnalyzer: unknown -model \"%s\"", st->model);
    }
    if (strcmp(st->method, "lar") != 0 && strcmp(st->method, "ols") != 0) {
	return Rb_SetInterpError(interp, "RUBICON ANALYZER OPTION",
		"TxMixAnalyzer: -method must be lar or ols, not \"%s\"",
		st->method);
    }
    return TCL_OK;
}

/*
 * TxMixStart --
 *	Resolves the fields and forgets the previous run's windows.
 */
static int
TxMixStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    TxMixState *st = a->state;

    if (TxMixInit(a, run->interp) != TCL_OK) {
	Rb_AnalyzerError(a, "RUBICON ANALYZER OPTION", "%s",
		Tcl_GetStringResult(run->interp));
	return TCL_ERROR;
    }
    /* Types are named by their integer or text; times are integer ns. */
    if (Rb_AnalyzerTypedField(a, run, st->typeField, RB_FT_BIT(RB_FT_INT)
	    | RB_FT_BIT(RB_FT_STRING), &st->typeIndex) != TCL_OK
	    || Rb_AnalyzerTypedField(a, run, st->startField,
	    RB_FT_BIT(RB_FT_INT), &st->startIndex) != TCL_OK
	    || Rb_AnalyzerTypedField(a, run, st->endField,
	    RB_FT_BIT(RB_FT_INT), &st->endIndex) != TCL_OK) {
	return TCL_ERROR;
    }
    FreeWindows(st);
    Tcl_InitHashTable(&st->types, TCL_ONE_WORD_KEYS);
    Tcl_InitHashTable(&st->outside, sizeof(CellKey) / sizeof(int));
    st->typesInit = 1;
    st->schema = run->schema;
    st->haveOrigin = 0;
    st->seq = 0;
    st->failed = 0;
    return TCL_OK;
}

/*
 * TypeColumn --
 *	The column of a type value, made on first sight.
 */
static int
TypeColumn(TxMixState *st, int64_t type, int64_t rank)
{
    int isNew, j;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(&st->types,
	    (const char *)(intptr_t)type, &isNew);

    if (!isNew) {
	return (int)(intptr_t)Tcl_GetHashValue(e);
    }
    j = st->ntypes++;
    Tcl_SetHashValue(e, (ClientData)(intptr_t)j);
    st->typeKeys = Rb_ReallocArray(st->typeKeys, st->ntypes, sizeof(int64_t));
    st->typeFirst = Rb_ReallocArray(st->typeFirst, st->ntypes,
	    sizeof(int64_t));
    st->count = Rb_ReallocArray(st->count, st->ntypes, sizeof(double *));
    st->rtimeNs = Rb_ReallocArray(st->rtimeNs, st->ntypes,
	    sizeof(int64_t *));
    st->first = Rb_ReallocArray(st->first, st->ntypes, sizeof(int64_t *));
    st->typeKeys[j] = type;
    st->typeFirst[j] = rank;
    st->count[j] = Rb_AllocArray(st->winCap + 1, sizeof(double));
    st->rtimeNs[j] = Rb_AllocArray(st->winCap + 1, sizeof(int64_t));
    st->first[j] = Rb_AllocArray(st->winCap + 1, sizeof(int64_t));
    return j;
}

/*
 * EnsureWindow --
 *	Grows every type's arrays to hold window w.
 */
static void
EnsureWindow(TxMixState *st, int64_t w)
{
    int j;

    if (w < st->winCap) {
	if (w >= st->nwin) {
	    st->nwin = (int)w + 1;
	}
	return;
    }
    {
	int cap = st->winCap ? st->winCap : 64;

	while (cap <= w) {
	    cap *= 2;
	}
	for (j = 0; j < st->ntypes; j++) {
	    st->count[j] = Rb_ReallocArray(st->count[j], cap, sizeof(double));
	    st->rtimeNs[j] = Rb_ReallocArray(st->rtimeNs[j], cap,
		    sizeof(int64_t));
	    st->first[j] = Rb_ReallocArray(st->first[j], cap,
		    sizeof(int64_t));
	    memset(st->count[j] + st->winCap, 0,
		    sizeof(double) * (cap - st->winCap));
	    memset(st->rtimeNs[j] + st->winCap, 0,
		    sizeof(int64_t) * (cap - st->winCap));
	    memset(st->first[j] + st->winCap, 0,
		    sizeof(int64_t) * (cap - st->winCap));
	}
	st->winCap = cap;
    }
    st->nwin = (int)w + 1;
}

/*
 * Place --
 *	Adds n transactions of a type in the window `window` counted from
 *	the epoch, summing ns of response time, the first of them of rank
 *	`rank`: to the type's column when the window is one of the run's
 *	(from the first transaction's to MAX_WINDOW after it), else to the
 *	outside cells.
 */
static void
Place(TxMixState *st, int64_t type, int64_t window, double n, int64_t ns,
	int64_t rank)
{
    int64_t w = window - st->originWin;

    if (w >= 0 && w <= MAX_WINDOW) {
	int j = TypeColumn(st, type, rank);

	EnsureWindow(st, w);
	st->count[j][w] += n;
	st->rtimeNs[j][w] += ns;
	if (st->first[j][w] == 0 || rank < st->first[j][w]) {
	    st->first[j][w] = rank;
	}
	if (rank < st->typeFirst[j]) {
	    st->typeFirst[j] = rank;
	}
    } else {
	CellKey key;
	Tcl_HashEntry *e;
	Cell *c;
	int isNew;

	memset(&key, 0, sizeof(key));
	key.type = type;
	key.window = window;
	e = Tcl_CreateHashEntry(&st->outside, (const char *)&key, &isNew);
	if (isNew) {
	    c = Rb_Alloc(sizeof(Cell));
	    c->first = rank;
	    Tcl_SetHashValue(e, c);
	}
	c = Tcl_GetHashValue(e);
	c->count += n;
	c->ns += ns;
	c->first = rank < c->first ? rank : c->first;
    }
}

/*
 * WindowOf --
 *	The window of a time counted from the epoch (floor division).
 */
static int64_t
WindowOf(const TxMixState *st, int64_t t)
{
    return (t - ((t % st->windowNs) + st->windowNs) % st->windowNs)
	    / st->windowNs;
}

/*
 * TxMixBatch --
 *	Adds each selected transaction to its window and type.  Records
 *	missing the type or a time, or ending before they start, are not
 *	transactions and are passed over.
 */
static void
TxMixBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    TxMixState *st = a->state;
    const int64_t *type = b->col[st->typeIndex];
    const int64_t *t0 = b->col[st->startIndex];
    const int64_t *t1 = b->col[st->endIndex];
    int k;

    if (st->failed) {
	return;
    }
    for (k = 0; k < nsel; k++) {
	int i = sel[k];
	int64_t window;

	if (type[i] == RB_ABSENT || t0[i] == RB_ABSENT || t1[i] == RB_ABSENT
		|| t1[i] < t0[i]) {
	    continue;
	}
	window = WindowOf(st, t0[i]);
	if (!st->haveOrigin) {
	    st->originWin = window;
	    st->origin = window * st->windowNs;
	    st->haveOrigin = 1;
	}
	Place(st, type[i], window, 1.0, t1[i] - t0[i], ++st->seq);
	if (st->ntypes > st->maxTypes) {
	    st->failed = 1;
	    Rb_AnalyzerError(a, "RUBICON LIMIT KEYS", "%s: more than "
		    "-maxtypes %" PRId64 " transaction types at record %"
		    PRIu64 " (raise -maxtypes; each type costs 24 bytes per "
		    "window)", a->cls->name, st->maxTypes,
		    b->firstRecord + (uint64_t)i);
	    return;
	}
    }
}

/*
 * TxMixSerialize --
 *	The first window, the transactions' count, then every type's cells
 *	(count, ns, first rank) and the outside cells.
 */
static int
TxMixSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *buf)
{
    TxMixState *st = a->state;
    Tcl_HashSearch hs;
    Tcl_HashEntry *e;
    int i, j;

    Rb_BufPutInt(buf, st->haveOrigin);
    Rb_BufPutInt(buf, st->originWin);
    Rb_BufPutInt(buf, st->seq);
    Rb_BufPutInt(buf, st->ntypes);
    Rb_BufPutInt(buf, st->nwin);
    for (j = 0; j < st->ntypes; j++) {
	Rb_BufPutKey(buf, st->schema, st->typeIndex, st->typeKeys[j]);
	for (i = 0; i < st->nwin; i++) {
	    Rb_BufPutDouble(buf, st->count[j][i]);
	    Rb_BufPutInt(buf, st->rtimeNs[j][i]);
	    Rb_BufPutInt(buf, st->first[j][i]);
	}
    }
    Rb_BufPutInt(buf, st->outside.numEntries);
    for (e = Tcl_FirstHashEntry(&st->outside, &hs); e;
	    e = Tcl_NextHashEntry(&hs)) {
	const CellKey *key = (const CellKey *)Tcl_GetHashKey(&st->outside, e);
	const Cell *c = Tcl_GetHashValue(e);

	Rb_BufPutKey(buf, st->schema, st->typeIndex, key->type);
	Rb_BufPutInt(buf, key->window);
	Rb_BufPutDouble(buf, c->count);
	Rb_BufPutInt(buf, c->ns);
	Rb_BufPutInt(buf, c->first);
    }
    return TCL_OK;
}

/*
 * TxMixDeserialize --
 *	Restores what TxMixSerialize wrote into a started instance.
 */
static int
TxMixDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *buf)
{
    TxMixState *st = a->state;
    int64_t ntypes, nwin, n, i, j;

    st->haveOrigin = (int)Rb_BufGetInt(buf);
    st->originWin = Rb_BufGetInt(buf);
    st->origin = st->originWin * st->windowNs;
    st->seq = Rb_BufGetInt(buf);
    ntypes = Rb_BufGetCount(buf, 8);
    nwin = Rb_BufGetInt(buf);
    if (nwin < 0 || nwin > MAX_WINDOW + 1 || (ntypes > 0
	    && (uint64_t)nwin > (buf->len - buf->pos) / 24 / ntypes)) {
	buf->bad = 1;
    }
    for (j = 0; j < ntypes && !buf->bad; j++) {
	int64_t type = Rb_BufGetKey(buf, st->schema, st->typeIndex);

	for (i = 0; i < nwin && !buf->bad; i++) {
	    double count = Rb_BufGetDouble(buf);
	    int64_t ns = Rb_BufGetInt(buf), first = Rb_BufGetInt(buf);

	    if (count != 0.0) {
		Place(st, type, st->originWin + i, count, ns, first);
	    }
	}
    }
    n = Rb_BufGetCount(buf, 40);
    for (i = 0; i < n && !buf->bad; i++) {
	int64_t type = Rb_BufGetKey(buf, st->schema, st->typeIndex);
	int64_t window = Rb_BufGetInt(buf);
	double count = Rb_BufGetDouble(buf);
	int64_t ns = Rb_BufGetInt(buf);

	Place(st, type, window, count, ns, Rb_BufGetInt(buf));
    }
    return TCL_OK;		/* the core reports a short buffer */
}

/*
 * TxMixMerge --
 *	Adds a later shard's cells, each at its window counted from the
 *	epoch and with its transactions ranked after this shard's.
 */
static int
TxMixMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    TxMixState *st = a->state, *o = other->state;
    int64_t base = st->seq;
    Tcl_HashSearch hs;
    Tcl_HashEntry *e;
    int i, j;

    if (!o->haveOrigin) {
	return TCL_OK;
    }
    if (!st->haveOrigin) {
	st->originWin = o->originWin;
	st->origin = o->origin;
	st->haveOrigin = 1;
    }
    for (j = 0; j < o->ntypes; j++) {
	for (i = 0; i < o->nwin; i++) {
	    if (o->count[j][i] != 0.0) {
		Place(st, o->typeKeys[j], o->originWin + i, o->count[j][i],
			o->rtimeNs[j][i], base + o->first[j][i]);
	    }
	}
    }
    for (e = Tcl_FirstHashEntry(&o->outside, &hs); e;
	    e = Tcl_NextHashEntry(&hs)) {
	const CellKey *key = (const CellKey *)Tcl_GetHashKey(&o->outside, e);
	const Cell *c = Tcl_GetHashValue(e);

	Place(st, key->type, key->window, c->count, c->ns, base + c->first);
    }
    st->seq += o->seq;
    if (st->ntypes > st->maxTypes) {
	Rb_AnalyzerError(a, "RUBICON LIMIT KEYS", "%s: more than -maxtypes %"
		PRId64 " transaction types in the merged shards (raise "
		"-maxtypes)", a->cls->name, st->maxTypes);
	return TCL_ERROR;
    }
    return TCL_OK;
}

/* A column and the rank of its first transaction, for sorting. */
typedef struct ColumnRank {
    int64_t first;
    int column;
} ColumnRank;

/*
 * CompareFirst --
 *	qsort order of columns by the rank of their first transaction.
 */
static int
CompareFirst(const void *p, const void *q)
{
    int64_t x = ((const ColumnRank *)p)->first;
    int64_t y = ((const ColumnRank *)q)->first;

    return (x > y) - (x < y);
}

/*
 * SortColumns --
 *	Orders the type columns by their first transaction, as one pass
 *	makes them (a merge may make them in another order).
 */
static void
SortColumns(TxMixState *st)
{
    ColumnRank *order;
    void **tmp;
    int64_t *keys;
    void **arrays[3];
    int j, k;

    if (st->ntypes == 0) {
	return;			/* No columns (their arrays are NULL). */
    }
    order = Rb_AllocArray(st->ntypes, sizeof(ColumnRank));
    tmp = Rb_AllocArray(st->ntypes, sizeof(void *));
    keys = Rb_AllocArray(st->ntypes, sizeof(int64_t));
    for (j = 0; j < st->ntypes; j++) {
	order[j].first = st->typeFirst[j];
	order[j].column = j;
    }
    qsort(order, st->ntypes, sizeof(ColumnRank), CompareFirst);
    arrays[0] = (void **)st->count;
    arrays[1] = (void **)st->rtimeNs;
    arrays[2] = (void **)st->first;
    for (k = 0; k < 3; k++) {
	for (j = 0; j < st->ntypes; j++) {
	    tmp[j] = arrays[k][order[j].column];
	}
	memcpy(arrays[k], tmp, st->ntypes * sizeof(void *));
    }
    for (j = 0; j < st->ntypes; j++) {
	keys[j] = st->typeKeys[order[j].column];
	st->typeFirst[j] = order[j].first;
	Tcl_SetHashValue(Tcl_FindHashEntry(&st->types,
		(const char *)(intptr_t)keys[j]), (ClientData)(intptr_t)j);
    }
    memcpy(st->typeKeys, keys, st->ntypes * sizeof(int64_t));
    free(order);
    free(tmp);
    free(keys);
}

/*
 * TypeName --
 *	The printable name of type column j (the string of a string field).
 */
static void
TypeName(const TxMixState *st, int j, char *buf, size_t n)
{
    const Rb_Field *f = &st->schema->fields[st->typeIndex];

    if (f->type == RB_FT_STRING) {
	const char *s = Rb_SchemaString(st->schema, st->typeKeys[j]);

	snprintf(buf, n, "%s", s ? s : "?");
    } else {
	snprintf(buf, n, "%lld", (long long)st->typeKeys[j]);
    }
}

/*
 * WindowTable --
 *	A table attribute: window start time, then one column per type.
 */
static Rb_Attribute *
WindowTable(const TxMixState *st, const char *name, double **cells,
	const char *unit, const char *help)
{
    Rb_Attribute *attr = Rb_AttrCreate(name, RB_ATTR_TABLE, unit, help);
    char buf[256];
    int i, j;

    Rb_AttrAddColumn(attr, "time", "s", 0);
    for (j = 0; j < st->ntypes; j++) {
	TypeName(st, j, buf, sizeof(buf));
	Rb_AttrAddColumn(attr, buf, unit, 0);
    }
    for (i = 0; i < st->nwin; i++) {
	int row = Rb_AttrAddRow(attr);

	Rb_AttrSetNum(attr, row, 0,
		(double)(st->origin + (int64_t)i * st->windowNs) / NS_PER_S);
	for (j = 0; j < st->ntypes; j++) {
	    Rb_AttrSetNum(attr, row, 1 + j, cells[j][i]);
	}
    }
    return attr;
}

/*
 * MixTable --
 *	The paper's view of a nonstationary mix (Figures 2, 9 and 11): per
 *	window its start, its throughput (transactions per second) and each
 *	type's fraction of its transactions (NaN in a window without any).
 * Results: the new Attribute.
 */
static Rb_Attribute *
MixTable(const TxMixState *st)
{
    Rb_Attribute *attr = Rb_AttrCreate("TxMixMix", RB_ATTR_TABLE, "",
	    "throughput (transactions/s) and each type's fraction of the "
	    "transactions per window");
    double seconds = (double)st->windowNs / NS_PER_S;
    char buf[256];
    int i, j;

    Rb_AttrAddColumn(attr, "time", "s", 0);
    Rb_AttrAddColumn(attr, "throughput", "1/s", 0);
    for (j = 0; j < st->ntypes; j++) {
	TypeName(st, j, buf, sizeof(buf));
	Rb_AttrAddColumn(attr, buf, "", 0);
    }
    for (i = 0; i < st->nwin; i++) {
	int row = Rb_AttrAddRow(attr);
	double total = 0;

	for (j = 0; j < st->ntypes; j++) {
	    total += st->count[j][i];
	}
	Rb_AttrSetNum(attr, row, 0,
		(double)(st->origin + (int64_t)i * st->windowNs) / NS_PER_S);
	Rb_AttrSetNum(attr, row, 1, total / seconds);
	for (j = 0; j < st->ntypes; j++) {
	    Rb_AttrSetNum(attr, row, 2 + j, total > 0
		    ? st->count[j][i] / total : NAN);
	}
    }
    return attr;
}

/*
 * WindowUtilization --
 *	Fills U (nwin x R) with the mean of each resource's samples in each
 *	window; a window without samples keeps the previous window's value
 *	(utilization is sampled more coarsely than transactions arrive).
 * Results: TCL_OK with *R and names set, or TCL_ERROR (analyzer error).
 */
static int
WindowUtilization(Rb_Analyzer *a, Tcl_Interp *interp, double **Uout,
	int *Rout, Tcl_Obj ***names)
{
    TxMixState *st = a->state;
    Tcl_DictSearch search;
    Tcl_Obj *key, *samples;
    int done, R, r = 0, i;
    double *U, *sum, *cnt;

    *Uout = NULL;
    *Rout = 0;
    *names = NULL;
    if (st->utilization == NULL) {
	return TCL_OK;
    }
    if (Tcl_DictObjSize(interp, st->utilization, &R) != TCL_OK) {
	Rb_AnalyzerError(a, "RUBICON ANALYZER OPTION",
		"TxMixAnalyzer: -utilization is not a dict");
	return TCL_ERROR;
    }
    U = Rb_AllocArray((size_t)st->nwin * R + 1, sizeof(double));
    sum = Rb_AllocArray(st->nwin + 1, sizeof(double));
    cnt = Rb_AllocArray(st->nwin + 1, sizeof(double));
    *names = Rb_AllocArray(R + 1, sizeof(Tcl_Obj *));
    Tcl_DictObjFirst(interp, st->utilization, &search, &key, &samples,
	    &done);
    for (; !done; Tcl_DictObjNext(&search, &key, &samples, &done), r++) {
	Tcl_Obj **v;
	int nv, k;
	double last = 0.0;

	(*names)[r] = key;
	if (Tcl_ListObjGetElements(NULL, samples, &nv, &v) != TCL_OK
		|| nv % 2 != 0) {
	    goto bad;
	}
	memset(sum, 0, sizeof(double) * st->nwin);
	memset(cnt, 0, sizeof(double) * st->nwin);
	for (k = 0; k < nv; k += 2) {
	    double t, u;
	    int64_t w;

	    if (Tcl_GetDoubleFromObj(NULL, v[k], &t) != TCL_OK
		    || Tcl_GetDoubleFromObj(NULL, v[k + 1], &u) != TCL_OK) {
		goto bad;
	    }
	    w = (int64_t)floor((t * NS_PER_S - (double)st->origin)
		    / (double)st->windowNs);
	    if (w >= 0 && w < st->nwin) {
		sum[w] += u;
		cnt[w] += 1.0;
	    }
	}
	for (i = 0; i < st->nwin; i++) {
	    if (cnt[i] > 0) {
		last = sum[i] / cnt[i];
	    }
	    U[(size_t)i * R + r] = last;
	}
    }
    Tcl_DictObjDone(&search);
    free(sum);
    free(cnt);
    *Uout = U;
    *Rout = R;
    return TCL_OK;

  bad:
    Tcl_DictObjDone(&search);
    free(U);
    free(sum);
    free(cnt);
    free(*names);
    *names = NULL;
    Rb_AnalyzerError(a, "RUBICON ANALYZER OPTION",
	    "TxMixAnalyzer: -utilization samples of \"%s\" must be a list of "
	    "time utilization pairs of numbers", Tcl_GetString(key));
    return TCL_ERROR;
}

/*
 * UtilOrder --
 *	qsort order of {utilization, transactions} pairs by utilization.
 */
static int
UtilOrder(const void *p, const void *q)
{
    double a = ((const double *) p)[0], b = ((const double *) q)[0];

    return (a > b) - (a < b);
}

/*
 * ArrivalUtilization --
 *	Kelly & Zhang's Figures 1 and 8: per resource, the CDF of the
 *	utilization seen by arriving transactions, each transaction seeing
 *	its window's U_ir.  A table of rows {resource, utilization,
 *	fraction}: the share of transactions whose window's utilization is
 *	at most that, one row per distinct utilization of a window with
 *	transactions.
 */
static Rb_Attribute *
ArrivalUtilization(const TxMixState *st, const double *N, const double *U,
	int R, Tcl_Obj **resNames)
{
    Rb_Attribute *attr = Rb_AttrCreate("TxMixArrivalUtilization",
	    RB_ATTR_TABLE, "", "CDF of the utilization seen by arriving "
	    "transactions, per resource (Kelly & Zhang Figures 1, 8)");
    double *pairs = Rb_AllocArray(2 * (size_t)st->nwin + 1, sizeof(double));
    int r, i, j, k, np;

    Rb_AttrAddColumn(attr, "resource", "", 1);
    Rb_AttrAddColumn(attr, "utilization", "", 0);
    Rb_AttrAddColumn(attr, "fraction", "", 0);
    for (r = 0; r < R; r++) {
	double total = 0, cum = 0;

	for (i = np = 0; i < st->nwin; i++) {
	    double n = 0;

	    for (j = 0; j < st->ntypes; j++) {
		n += N[(size_t)i * st->ntypes + j];
	    }
	    if (n > 0) {
		pairs[2 * np] = U[(size_t)i * R + r];
		pairs[2 * np + 1] = n;
		total += n;
		np++;
	    }
	}
	qsort(pairs, np, 2 * sizeof(double), UtilOrder);
	for (k = 0; k < np; k++) {
	    int row;

	    cum += pairs[2 * k + 1];
	    if (k + 1 < np && pairs[2 * k + 2] == pairs[2 * k]) {
		continue;
	    }
	    row = Rb_AttrAddRow(attr);
	    Rb_AttrSetText(attr, row, 0, Tcl_GetString(resNames[r]));
	    Rb_AttrSetNum(attr, row, 1, pairs[2 * k]);
	    Rb_AttrSetNum(attr, row, 2, cum / total);
	}
    }
    free(pairs);
    return attr;
}

/*
 * SetFit --
 *	Calibrates the -model on every window and sets TxMixCoefficients
 *	(term, value), TxMixFit (time, y, predicted, residual) and
 *	TxMixError (sum |e| / sum y, with the median |e|/y and order
 *	statistics as further columns).
 */
static int
SetFit(Rb_Analyzer *a, const TxData *d, Tcl_Obj **resNames)
{
    TxMixState *st = a->state;
    TxModel model = LookupName(Rb_TxmixModelNames, st->model);
    TxMethod method = strcmp(st->method, "ols") == 0 ? TX_OLS : TX_LAR;
    TxFit fit;
    TxAccuracy acc;
    Rb_Attribute *attr;
    char err[200], **terms, buf[300];
    double *yhat;
    int t, i, row;

    if (RbTxmixFit(d, model, method, st->intercept, NULL, &fit, err,
	    sizeof(err)) != 0) {
	Rb_AnalyzerError(a, "RUBICON TXMIX FIT", "TxMixAnalyzer: %s", err);
	return TCL_ERROR;
    }
    RbTxmixModelTerms(model, d->J, d->R, st->intercept, &terms);
    attr = Rb_AttrCreate("TxMixCoefficients", RB_ATTR_TABLE, "s",
	    "calibrated coefficients: per-type service time (N), waiting "
	    "(Q) or utilization (U) terms");
    Rb_AttrAddColumn(attr, "term", "", 1);
    Rb_AttrAddColumn(attr, "value", "s", 0);
    for (t = 0; t < fit.p; t++) {
	/* Name a type or resource term by its type or resource. */
	int k = atoi(terms[t] + 1);

	if (terms[t][0] == 'N' && terms[t][1] != '\0') {
	    char name[256];

	    TypeName(st, k, name, sizeof(name));
	    snprintf(buf, sizeof(buf), "N:%s", name);
	} else if ((terms[t][0] == 'Q' || terms[t][0] == 'U') && resNames) {
	    snprintf(buf, sizeof(buf), "%c:%s", terms[t][0],
		    Tcl_GetString(resNames[k]));
	} else {
	    snprintf(buf, sizeof(buf), "%s", terms[t]);
	}
	row = Rb_AttrAddRow(attr);
	Rb_AttrSetText(attr, row, 0, buf);
	Rb_AttrSetNum(attr, row, 1, fit.coef[t]);
	free(terms[t]);
    }
    free(terms);
    Rb_AnalyzerSet(a, attr);

    yhat = Rb_AllocArray(d->m + 1, sizeof(double));
    RbTxmixPredict(d, &fit, 0, d->m, yhat);
    attr = Rb_AttrCreate("TxMixFit", RB_ATTR_SERIES, "s",
	    "per window: measured and predicted summed response time");
    Rb_AttrAddColumn(attr, "time", "s", 0);
    Rb_AttrAddColumn(attr, "y", "s", 0);
    Rb_AttrAddColumn(attr, "predicted", "s", 0);
    Rb_AttrAddColumn(attr, "residual", "s", 0);
    for (i = 0; i < d->m; i++) {
	row = Rb_AttrAddRow(attr);
	Rb_AttrSetNum(attr, row, 0,
		(double)(st->origin + (int64_t)i * st->windowNs) / NS_PER_S);
	Rb_AttrSetNum(attr, row, 1, d->y[i]);
	Rb_AttrSetNum(attr, row, 2, yhat[i]);
	Rb_AttrSetNum(attr, row, 3, d->y[i] - yhat[i]);
    }
    Rb_AnalyzerSet(a, attr);

    RbTxmixAccuracy(d->m, d->y, yhat, NULL, &acc);
    attr = Rb_AttrCreate("TxMixError", RB_ATTR_SCALAR, "",
	    "normalized aggregate error sum|e|/sum y, and order statistics "
	    "of |e|/y");
    Rb_AttrAddColumn(attr, "value", "", 0);
    Rb_AttrAddColumn(attr, "median", "", 0);
    Rb_AttrAddColumn(attr, "p10", "", 0);
    Rb_AttrAddColumn(attr, "p90", "", 0);
    Rb_AttrAddColumn(attr, "max", "", 0);
    row = Rb_AttrAddRow(attr);
    Rb_AttrSetNum(attr, row, 0, acc.aggregate);
    Rb_AttrSetNum(attr, row, 1, acc.median);
    Rb_AttrSetNum(attr, row, 2, acc.p10);
    Rb_AttrSetNum(attr, row, 3, acc.p90);
    Rb_AttrSetNum(attr, row, 4, acc.max);
    Rb_AnalyzerSet(a, attr);
    if (d->R > 0) {
	/* Kelly & Zhang's Figure 17: the error against utilization. */
	attr = Rb_AttrCreate("TxMixErrorUtilization", RB_ATTR_TABLE, "",
		"per window with transactions: |e|/y and the utilization of "
		"each resource (Kelly & Zhang Figure 17)");
	Rb_AttrAddColumn(attr, "time", "s", 0);
	Rb_AttrAddColumn(attr, "error", "", 0);
	for (t = 0; t < d->R; t++) {
	    Rb_AttrAddColumn(attr, Tcl_GetString(resNames[t]), "", 0);
	}
	for (i = 0; i < d->m; i++) {
	    if (!(d->y[i] > 0)) {
		continue;
	    }
	    row = Rb_AttrAddRow(attr);
	    Rb_AttrSetNum(attr, row, 0, (double)(st->origin
		    + (int64_t)i * st->windowNs) / NS_PER_S);
	    Rb_AttrSetNum(attr, row, 1, fabs(d->y[i] - yhat[i]) / d->y[i]);
	    for (t = 0; t < d->R; t++) {
		Rb_AttrSetNum(attr, row, 2 + t, d->U[(size_t)i * d->R + t]);
	    }
	}
	Rb_AnalyzerSet(a, attr);
    }
    free(yhat);
    RbTxmixFitFree(&fit);
    return TCL_OK;
}

/*
 * TxMixEnd --
 *	Sets the window tables, the utilization table when samples were
 *	given, and the model's fit when -model names one.
 */
static int
TxMixEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    TxMixState *st = a->state;
    Rb_Attribute *attr;
    Tcl_Obj **resNames;
    double *N, *U, *y, **secs;
    int R, i, j, r, row, result = TCL_OK;

    SortColumns(st);
    secs = Rb_AllocArray(st->ntypes + 1, sizeof(double *));
    for (j = 0; j < st->ntypes; j++) {
	secs[j] = Rb_AllocArray(st->nwin + 1, sizeof(double));
	for (i = 0; i < st->nwin; i++) {
	    secs[j][i] = (double)st->rtimeNs[j][i] / NS_PER_S;
	}
    }
    Rb_AnalyzerSet(a, WindowTable(st, "TxMixCounts", st->count, "",
	    "transactions per window (N_ij) by type"));
    Rb_AnalyzerSet(a, WindowTable(st, "TxMixTimes", secs, "s",
	    "summed response time per window (T_ij) by type"));
    Rb_AnalyzerSet(a, MixTable(st));
    for (j = 0; j < st->ntypes; j++) {
	free(secs[j]);
    }
    free(secs);
    if (WindowUtilization(a, run->interp, &U, &R, &resNames) != TCL_OK) {
	return TCL_ERROR;
    }
    N = Rb_AllocArray((size_t)st->nwin * st->ntypes + 1, sizeof(double));
    y = Rb_AllocArray(st->nwin + 1, sizeof(double));
    attr = Rb_AttrCreate("TxMixResponse", RB_ATTR_SERIES, "s",
	    "per window: summed response time y_i and transactions n_i");
    Rb_AttrAddColumn(attr, "time", "s", 0);
    Rb_AttrAddColumn(attr, "value", "s", 0);
    Rb_AttrAddColumn(attr, "count", "", 0);
    for (i = 0; i < st->nwin; i++) {
	double n = 0.0;
	int64_t ns = 0;

	for (j = 0; j < st->ntypes; j++) {
	    N[(size_t)i * st->ntypes + j] = st->count[j][i];
	    ns += st->rtimeNs[j][i];
	    n += st->count[j][i];
	}
	y[i] = (double)ns / NS_PER_S;
	row = Rb_AttrAddRow(attr);
	Rb_AttrSetNum(attr, row, 0,
		(double)(st->origin + (int64_t)i * st->windowNs) / NS_PER_S);
	Rb_AttrSetNum(attr, row, 1, y[i]);
	Rb_AttrSetNum(attr, row, 2, n);
    }
    Rb_AnalyzerSet(a, attr);
    if (U) {
	attr = Rb_AttrCreate("TxMixUtilization", RB_ATTR_TABLE, "",
		"mean utilization per window (U_ir) by resource");
	Rb_AttrAddColumn(attr, "time", "s", 0);
	for (r = 0; r < R; r++) {
	    Rb_AttrAddColumn(attr, Tcl_GetString(resNames[r]), "", 0);
	}
	for (i = 0; i < st->nwin; i++) {
	    row = Rb_AttrAddRow(attr);
	    Rb_AttrSetNum(attr, row, 0, (double)(st->origin
		    + (int64_t)i * st->windowNs) / NS_PER_S);
	    for (r = 0; r < R; r++) {
		Rb_AttrSetNum(attr, row, 1 + r, U[(size_t)i * R + r]);
	    }
	}
	Rb_AnalyzerSet(a, attr);
	Rb_AnalyzerSet(a, ArrivalUtilization(st, N, U, R, resNames));
    }
    if (st->model[0] && st->nwin > 0) {
	TxData d = {st->nwin, st->ntypes, R, N, U, y};

	result = SetFit(a, &d, resNames);
    }
    free(N);
    free(U);
    free(y);
    free(resNames);
    return result;
}

/*
 * TxMixFree --
 *	Frees the windows.
 */
static void
TxMixFree(Rb_Analyzer *a)
{
    FreeWindows(a->state);
}

static const Rb_AnalyzerClass txMixAnalyzerClass = {
    .name = "TxMixAnalyzer",
    .help = "transaction-mix windows (counts, response times, "
	    "utilizations per window) and Kelly-Zhang model fits",
    .stateSize = sizeof(TxMixState),
    .options = txMixOptions,
    .attrs = txMixAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .init = TxMixInit,
    .start = TxMixStart,
    .batch = TxMixBatch,
    .end = TxMixEnd,
    .merge = TxMixMerge,
    .freeState = TxMixFree,
    .serialize = TxMixSerialize,
    .deserialize = TxMixDeserialize,
};

/*
 * RbTxmixAnalyzerInit --
 *	Registers the TxMixAnalyzer class.
 */
int
RbTxmixAnalyzerInit(Tcl_Interp *interp)
{
    return Rb_RegisterAnalyzer(interp, &txMixAnalyzerClass);
}
