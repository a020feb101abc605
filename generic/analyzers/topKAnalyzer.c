/*
 * topKAnalyzer.c --
 *
 *	TopKAnalyzer: the K keys (processes, threads, machines: any field)
 *	with the most requests and the K with the most bytes.  Counts are
 *	exact, one entry per distinct key in a key table of at most -limit
 *	keys: the record with one key more stops the run with RUBICON LIMIT
 *	KEYS rather than letting a field with a value per record exhaust
 *	memory.
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

typedef struct KeyCounts {
    uint64_t requests, bytes;
} KeyCounts;

typedef struct TopKState {
    char *field;		/* -field */
    int64_t k;			/* -k */
    int64_t limit;		/* -limit: most distinct keys held */
    int failed;			/* -limit was reached: ignore the rest. */
    int keyIndex;
    int keyIsText;
    Rb_KeyTable keys;		/* key -> KeyCounts */
    uint64_t requests, bytes;
} TopKState;

static const Rb_Option topKOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(TopKState, field), "pid",
	"field whose values are the keys (pid, thread, machine, ...)"},
    {"-k", RB_OPT_INT, offsetof(TopKState, k), "10",
	"number of keys listed"},
    {"-limit", RB_OPT_INT, offsetof(TopKState, limit), "1000000",
	"most distinct keys held (the run stops beyond)"},
    {NULL}
};

static const char *const topKAttrs[] = {
    "TopKByRequests", "TopKByBytes", "Keys", NULL
};

/*
 * TopKStart --
 *	Checks -k and -limit, resolves the field and empties the table.
 */
static int
TopKStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    TopKState *st = a->state;

    if (st->k <= 0) {
	return RbKitOptionError(a, NULL, "-k must be positive");
    }
    if (st->limit <= 0) {
	return RbKitOptionError(a, NULL, "-limit must be positive");
    }
    st->keyIndex = -1;
    if (Rb_AnalyzerField(a, run, st->field, &st->keyIndex) != TCL_OK
	    || st->keyIndex < 0) {
	return TCL_ERROR;
    }
    st->keyIsText = run->schema->fields[st->keyIndex].type == RB_FT_STRING;
    if (st->keys.valSize == 0) {
	Rb_KeyTableInit(&st->keys, sizeof(KeyCounts));
    }
    Rb_KeyTableClear(&st->keys);
    st->requests = st->bytes = 0;
    st->failed = 0;
    return TCL_OK;
}

/*
 * TopKBatch --
 *	Counts each selected record with a key, and its size when it has a
 *	non-negative one, up to the first record whose key is one beyond
 *	-limit; that one stops the run with an error naming it.
 */
static void
TopKBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    TopKState *st = a->state;
    const int64_t *keys = b->col[st->keyIndex];
    const int64_t *sizes = b->col[RB_IO_SIZE];
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int64_t key = keys[sel[j]], reqSize = sizes[sel[j]];
	KeyCounts *c;

	if (key == RB_ABSENT) {
	    continue;
	}
	c = Rb_KeyTableFindLimited(&st->keys, key, st->limit);
	if (c == NULL) {
	    st->failed = 1;
	    RbKitKeyLimit(a, st->limit, st->field, b->firstRecord + sel[j],
		    67);
	    break;
	}
	c->requests++;
	st->requests++;
	if (reqSize != RB_ABSENT && reqSize >= 0) {
	    c->bytes += (uint64_t)reqSize;
	    st->bytes += (uint64_t)reqSize;
	}
    }
}

/*
 * CompareSlots --
 *	Order of two slots of t: most requests (bytes when byBytes) first,
 *	ties by key so that the order is repeatable.
 */
static int
CompareSlots(const Rb_KeyTable *t, uint64_t s1, uint64_t s2, int byBytes)
{
    const KeyCounts *c1 = Rb_KeyTableValue(t, s1);
    const KeyCounts *c2 = Rb_KeyTableValue(t, s2);
    uint64_t v1 = byBytes ? c1->bytes : c1->requests;
    uint64_t v2 = byBytes ? c2->bytes : c2->requests;

    if (v1 != v2) {
	return v1 > v2 ? -1 : 1;
    }
    return (t->keys[s1] > t->keys[s2]) - (t->keys[s1] < t->keys[s2]);
}

/*
 * ByRequests, ByBytes --
 *	qsort_r orders of slot numbers (CompareSlots by requests, by bytes).
 */
static int
ByRequests(const void *p, const void *q, void *t)
{
    return CompareSlots(t, *(const uint64_t *)p, *(const uint64_t *)q, 0);
}

static int
ByBytes(const void *p, const void *q, void *t)
{
    return CompareSlots(t, *(const uint64_t *)p, *(const uint64_t *)q, 1);
}

/*
 * TopTable --
 *	A table of the first -k keys of slots (sorted by cmp): key,
 *	requests, bytes and their shares of the totals.
 */
static Rb_Attribute *
TopTable(TopKState *st, const Rb_RunInfo *run, const char *name,
	uint64_t *slots, int (*cmp)(const void *, const void *, void *))
{
    Rb_Attribute *table = Rb_AttrCreate(name, RB_ATTR_TABLE, "",
	    "keys with the most requests or bytes");
    int keyCol = Rb_AttrAddColumn(table, "key", "", st->keyIsText);
    int reqCol = Rb_AttrAddColumn(table, "requests", "", 0);
    int bytesCol = Rb_AttrAddColumn(table, "bytes", "bytes", 0);
    int reqFracCol = Rb_AttrAddColumn(table, "requestFraction", "", 0);
    int bytesFracCol = Rb_AttrAddColumn(table, "byteFraction", "", 0);
    uint64_t i;

    qsort_r(slots, st->keys.count, sizeof(uint64_t), cmp, &st->keys);
    for (i = 0; i < st->keys.count && i < (uint64_t)st->k; i++) {
	const KeyCounts *c = Rb_KeyTableValue(&st->keys, slots[i]);
	int64_t key = st->keys.keys[slots[i]];
	int row = Rb_AttrAddRow(table);

	if (st->keyIsText) {
	    const char *text = Rb_SchemaString(run->schema, key);

	    Rb_AttrSetText(table, row, keyCol, text ? text : "");
	} else {
	    Rb_AttrSetNum(table, row, keyCol, (double)key);
	}
	Rb_AttrSetNum(table, row, reqCol, (double)c->requests);
	Rb_AttrSetNum(table, row, bytesCol, (double)c->bytes);
	Rb_AttrSetNum(table, row, reqFracCol, st->requests
		? (double)c->requests / (double)st->requests : 0.0);
	Rb_AttrSetNum(table, row, bytesFracCol, st->bytes
		? (double)c->bytes / (double)st->bytes : 0.0);
    }
    return table;
}

/*
 * TopKEnd --
 *	Sets both top-K tables and the number of distinct keys.
 */
static int
TopKEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    TopKState *st = a->state;
    uint64_t *slots = Rb_KeyTableSortedSlots(&st->keys);

    Rb_AnalyzerSet(a, TopTable(st, run, "TopKByRequests", slots,
	    ByRequests));
    Rb_AnalyzerSet(a, TopTable(st, run, "TopKByBytes", slots, ByBytes));
    Rb_AnalyzerSet(a, Rb_AttrScalar("Keys", (double)st->keys.count, "",
	    "number of distinct keys"));
    free(slots);
    return TCL_OK;
}

/*
 * TopKMerge --
 *	Adds the per-key counts of other (a shard's partial state) into a;
 *	more than -limit keys in all is an error.
 */
static int
TopKMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    TopKState *st = a->state;
    const TopKState *ost = other->state;
    uint64_t i;

    for (i = 0; i < ost->keys.cap; i++) {
	const KeyCounts *oc;
	KeyCounts *c;

	if (!ost->keys.used[i]) {
	    continue;
	}
	oc = Rb_KeyTableValue(&ost->keys, i);
	c = Rb_KeyTableFind(&st->keys, ost->keys.keys[i], 1);
	c->requests += oc->requests;
	c->bytes += oc->bytes;
    }
    st->requests += ost->requests;
    st->bytes += ost->bytes;
    if (st->keys.count > (uint64_t)st->limit) {
	Rb_AnalyzerError(a, "RUBICON LIMIT KEYS", "%s: more than -limit %"
		PRId64 " distinct keys of %s in the merged shards (raise "
		"-limit)", a->cls->name, st->limit, st->field);
	return TCL_ERROR;
    }
    return TCL_OK;
}

/*
 * TopKFree --
 *	Frees the table.
 */
static void
TopKFree(Rb_Analyzer *a)
{
    TopKState *st = a->state;

    Rb_KeyTableFree(&st->keys);
}


/*
 * TopKSerialize, TopKDeserialize --
 *	serialize and deserialize hooks: the partial state of a shard.
 */
static int
TopKSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    TopKState *st = a->state;

    Rb_BufPutInt(b, st->failed);
    RbKitPutCounters(b, &st->requests, 2);
    Rb_KeyTablePut(b, &st->keys, RbKitTextSchema(run, st->keyIndex));
    return TCL_OK;
}

static int
TopKDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    TopKState *st = a->state;

    st->failed = (int)Rb_BufGetInt(b);
    RbKitGetCounters(b, &st->requests, 2);
    Rb_KeyTableGet(b, &st->keys, RbKitTextSchema(run, st->keyIndex));
    return TCL_OK;
}

/*
 * Mergeable: per-key counts add exactly (keys of a text field are
 * string ids of the one schema the shards share).
 */
const Rb_AnalyzerClass Rb_TopKAnalyzerClass = {
    .name = "TopKAnalyzer",
    .help = "top K processes, threads or machines by requests and bytes",
    .stateSize = sizeof(TopKState),
    .options = topKOptions,
    .attrs = topKAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .start = TopKStart,
    .batch = TopKBatch,
    .end = TopKEnd,
    .merge = TopKMerge,
    .serialize = TopKSerialize,
    .deserialize = TopKDeserialize,
    .freeState = TopKFree,
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
