/*
 * balanceAnalyzer.c --
 *
 *	BalanceAnalyzer: how evenly the load spreads over the values of a
 *	field (devices by default; pid, lvNo, machine ...).  Per key its
 *	I/Os and bytes; over the keys, by I/Os and by bytes, the ratio of
 *	the largest load to the mean, the coefficient of variation and
 *	Jain's fairness index (sum x)^2 / (n sum x^2).  Only keys that
 *	appear count: a device with no I/O in the trace is unknown to it.
 *	One entry per key in a key table of at most -limit keys.
 */

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

typedef struct KeyLoad {
    uint64_t ios, bytes;
} KeyLoad;

typedef struct BalanceState {
    char *field;		/* -field */
    int64_t limit;		/* -limit: most distinct keys held */
    int failed;
    int keyIndex;
    int keyIsText;
    Rb_KeyTable keys;		/* key -> KeyLoad */
} BalanceState;

static const Rb_Option balanceOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(BalanceState, field), "deviceNo",
	"field whose values share the load (deviceNo, lvNo, pid, ...)"},
    {"-limit", RB_OPT_INT, offsetof(BalanceState, limit), "1000000",
	"most distinct keys held (the run stops beyond)"},
    {NULL}
};

static const char *const balanceAttrs[] = {
    "LoadByKey", "IoMaxToMean", "ByteMaxToMean", "IoCoV", "ByteCoV",
    "IoFairness", "ByteFairness", "BalanceKeys", NULL
};

/*
 * BalanceInit --
 *	Checks -limit.
 */
static int
BalanceInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    BalanceState *st = a->state;

    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    return TCL_OK;
}

/*
 * BalanceStart --
 *	Resolves the field and empties the table.
 */
static int
BalanceStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    BalanceState *st = a->state;

    if (BalanceInit(a, NULL) != TCL_OK
	    || Rb_AnalyzerTypedField(a, run, st->field, RB_FT_BIT(RB_FT_INT)
	    | RB_FT_BIT(RB_FT_STRING), &st->keyIndex) != TCL_OK) {
	st->keyIndex = -1;
	return TCL_ERROR;
    }
    st->keyIsText = run->schema->fields[st->keyIndex].type == RB_FT_STRING;
    if (st->keys.valSize == 0) {
	Rb_KeyTableInit(&st->keys, sizeof(KeyLoad));
    }
    Rb_KeyTableClear(&st->keys);
    st->failed = 0;
    return TCL_OK;
}

/*
 * BalanceBatch --
 *	Counts each selected record with a key as one I/O of its key, and
 *	its size in bytes when it has one >= 0.  The record of a key one
 *	past -limit stops the run.
 */
static void
BalanceBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    BalanceState *st = a->state;
    const int64_t *keys = b->col[st->keyIndex];
    const int64_t *sizes = b->col[RB_IO_SIZE];
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int64_t key = keys[sel[j]], reqSize = sizes[sel[j]];
	KeyLoad *l;

	if (key == RB_ABSENT) {
	    continue;
	}
	if ((l = Rb_KeyTableFindLimited(&st->keys, key, st->limit)) == NULL) {
	    st->failed = 1;
	    RbKitKeyLimit(a, st->limit, st->field, b->firstRecord + sel[j],
		    40);
	    break;
	}
	l->ios++;
	if (reqSize != RB_ABSENT && reqSize >= 0) {
	    l->bytes += (uint64_t)reqSize;
	}
    }
}

/*
 * Spread --
 *	Max over mean, coefficient of variation (population standard
 *	deviation over mean) and Jain's index of the loads of the n keys
 *	(member `bytes` when byBytes, else `ios`); all 0 when n or the total
 *	is 0.
 */
static void
Spread(const Rb_KeyTable *t, int byBytes, double *maxToMean, double *cov,
	double *fairness)
{
    double sum = 0.0, sumSq = 0.0, dev2 = 0.0, max = 0.0;
    double n = (double)t->count, mean;
    uint64_t i;
    int pass;

    *maxToMean = *cov = *fairness = 0.0;
    /* Pass 0: sums and maximum; pass 1: squared deviations from the
     * mean (accurate when the keys are nearly even). */
    for (pass = 0; pass < 2; pass++) {
	mean = n > 0 ? sum / n : 0.0;
	for (i = 0; i < t->cap; i++) {
	    if (t->used[i]) {
		const KeyLoad *l = Rb_KeyTableValue(t, i);
		double x = (double)(byBytes ? l->bytes : l->ios);

		if (pass == 0) {
		    sum += x;
		    sumSq += x * x;
		    max = x > max ? x : max;
		} else {
		    dev2 += (x - mean) * (x - mean);
		}
	    }
	}
	if (sum == 0) {
	    return;
	}
    }
    *maxToMean = max / mean;
    *cov = sqrt(dev2 / n) / mean;
    *fairness = sum * sum / (n * sumSq);
}

/*
 * CompareKeys --
 *	qsort_r order of key table slots: by key.
 */
static int
CompareKeys(const void *p, const void *q, void *table)
{
    const Rb_KeyTable *t = table;
    int64_t k1 = t->keys[*(const uint64_t *)p];
    int64_t k2 = t->keys[*(const uint64_t *)q];

    return (k1 > k2) - (k1 < k2);
}

/*
 * LoadTable --
 *	The per-key table, in key order (string ids' order for text): key,
 *	I/Os, bytes and their shares of the totals.
 */
static Rb_Attribute *
LoadTable(const BalanceState *st, const Rb_RunInfo *run)
{
    Rb_Attribute *table = Rb_AttrCreate("LoadByKey", RB_ATTR_TABLE, "",
	    "I/Os and bytes of each key");
    int keyCol = Rb_AttrAddColumn(table, st->field, "", st->keyIsText);
    int iosCol = Rb_AttrAddColumn(table, "ios", "", 0);
    int bytesCol = Rb_AttrAddColumn(table, "bytes", "bytes", 0);
    int ioShareCol = Rb_AttrAddColumn(table, "ioShare", "", 0);
    int byteShareCol = Rb_AttrAddColumn(table, "byteShare", "", 0);
    uint64_t *slots = Rb_KeyTableSortedSlots(&st->keys), i;
    uint64_t ios = 0, bytes = 0;

    qsort_r(slots, st->keys.count, sizeof(uint64_t), CompareKeys,
	    (void *)&st->keys);
    for (i = 0; i < st->keys.count; i++) {
	const KeyLoad *l = Rb_KeyTableValue(&st->keys, slots[i]);

	ios += l->ios;
	bytes += l->bytes;
    }
    for (i = 0; i < st->keys.count; i++) {
	const KeyLoad *l = Rb_KeyTableValue(&st->keys, slots[i]);
	int64_t key = st->keys.keys[slots[i]];
	int row = Rb_AttrAddRow(table);

	if (st->keyIsText) {
	    const char *text = Rb_SchemaString(run->schema, key);

	    Rb_AttrSetText(table, row, keyCol, text ? text : "");
	} else {
	    Rb_AttrSetNum(table, row, keyCol, (double)key);
	}
	Rb_AttrSetNum(table, row, iosCol, (double)l->ios);
	Rb_AttrSetNum(table, row, bytesCol, (double)l->bytes);
	Rb_AttrSetNum(table, row, ioShareCol,
		ios ? (double)l->ios / (double)ios : 0.0);
	Rb_AttrSetNum(table, row, byteShareCol,
		bytes ? (double)l->bytes / (double)bytes : 0.0);
    }
    free(slots);
    return table;
}

/*
 * BalanceEnd --
 *	Sets the per-key table and the three spread measures by I/Os and
 *	by bytes.
 */
static int
BalanceEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    BalanceState *st = a->state;
    double m[2][3];
    int by;

    for (by = 0; by < 2; by++) {
	Spread(&st->keys, by, &m[by][0], &m[by][1], &m[by][2]);
    }
    Rb_AnalyzerSet(a, LoadTable(st, run));
    Rb_AnalyzerSet(a, Rb_AttrScalar("IoMaxToMean", m[0][0], "",
	    "I/Os of the busiest key over the mean per key"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ByteMaxToMean", m[1][0], "",
	    "bytes of the busiest key over the mean per key"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("IoCoV", m[0][1], "",
	    "coefficient of variation of the I/Os per key"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ByteCoV", m[1][1], "",
	    "coefficient of variation of the bytes per key"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("IoFairness", m[0][2], "",
	    "Jain's fairness index of the I/Os per key (1: even, 1/n: one "
	    "key has all)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ByteFairness", m[1][2], "",
	    "Jain's fairness index of the bytes per key"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("BalanceKeys", (double)st->keys.count,
	    "", "distinct keys with at least one I/O"));
    return TCL_OK;
}

/*
 * BalanceFree --
 *	Frees the table.
 */
static void
BalanceFree(Rb_Analyzer *a)
{
    BalanceState *st = a->state;

    Rb_KeyTableFree(&st->keys);
}

/*
 * BalanceSerialize, BalanceDeserialize --
 *	serialize and deserialize hooks: the per-key loads.
 */
static int
BalanceSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    BalanceState *st = a->state;

    Rb_BufPutInt(b, st->failed);
    Rb_KeyTablePut(b, &st->keys, RbKitTextSchema(run, st->keyIndex));
    return TCL_OK;
}

static int
BalanceDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    BalanceState *st = a->state;

    st->failed = (int)Rb_BufGetInt(b);
    Rb_KeyTableGet(b, &st->keys, RbKitTextSchema(run, st->keyIndex));
    return TCL_OK;
}

/*
 * BalanceMerge --
 *	merge hook: adds other's per-key loads; more than -limit keys in
 *	all is an error.
 */
static int
BalanceMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    BalanceState *st = a->state;
    const BalanceState *ost = other->state;
    uint64_t i;

    st->failed |= ost->failed;
    for (i = 0; i < ost->keys.cap; i++) {
	const KeyLoad *o;
	KeyLoad *l;

	if (!ost->keys.used[i]) {
	    continue;
	}
	o = Rb_KeyTableValue(&ost->keys, i);
	l = Rb_KeyTableFindLimited(&st->keys, ost->keys.keys[i], st->limit);
	if (l == NULL) {
	    RbKitKeyLimit(a, st->limit, st->field, 0, 40);
	    return TCL_ERROR;
	}
	l->ios += o->ios;
	l->bytes += o->bytes;
    }
    return TCL_OK;
}

/*
 * Mergeable: per-key loads add exactly, whatever the order.
 */
const Rb_AnalyzerClass Rb_BalanceAnalyzerClass = {
    .name = "BalanceAnalyzer",
    .help = "load balance over devices or a field's values: per key I/Os "
	    "and bytes, max/mean, CoV, Jain's fairness",
    .stateSize = sizeof(BalanceState),
    .options = balanceOptions,
    .attrs = balanceAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .init = BalanceInit,
    .start = BalanceStart,
    .batch = BalanceBatch,
    .end = BalanceEnd,
    .freeState = BalanceFree,
    .merge = BalanceMerge,
    .serialize = BalanceSerialize,
    .deserialize = BalanceDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
