/*
 * entropyAnalyzer.c --
 *
 *	EntropyAnalyzer: the Shannon entropy, in bits, of the distribution
 *	of the accesses over a field's values (pid, size, deviceNo ...) or,
 *	by default, over the blocks the I/Os touch; and the entropy
 *	normalized by its maximum, log2 of the distinct values.  Exact:
 *	one count per distinct key in a key table of at most -limit keys;
 *	the record with one key more stops the run (RUBICON LIMIT KEYS).
 */

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

typedef struct EntropyState {
    Rb_BlockMap map;		/* -deviceField, -offsetField, -block */
    char *field;		/* -field: a field, or "" for blocks */
    int64_t limit;		/* -limit: most distinct keys held */
    int keyIndex;		/* -1: blocks */
    int failed;
    uint64_t accesses;
    Rb_KeyTable counts;		/* key -> uint64 accesses */
} EntropyState;

static const Rb_Option entropyOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(EntropyState, field), "",
	"field whose values are counted; empty: the blocks the I/Os touch"},
    {"-block", RB_OPT_INT, offsetof(EntropyState, map.block), "4096",
	"block size in bytes (block keys)"},
    {"-deviceField", RB_OPT_FIELD, offsetof(EntropyState, map.deviceField),
	"deviceNo", "field naming the device (block keys)"},
    {"-offsetField", RB_OPT_FIELD, offsetof(EntropyState, map.offsetField),
	"devOffset", "field holding the offset in bytes (block keys)"},
    {"-limit", RB_OPT_INT, offsetof(EntropyState, limit), "10000000",
	"most distinct keys held (the run stops beyond)"},
    {NULL}
};

static const char *const entropyAttrs[] = {
    "Entropy", "NormalizedEntropy", "EntropyKeys", "EntropyAccesses", NULL
};

/*
 * EntropyInit --
 *	Checks -limit and -block.
 */
static int
EntropyInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    EntropyState *st = a->state;

    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    if (st->map.block <= 0) {
	return RbKitOptionError(a, interp,
		"-block must be a positive number of bytes");
    }
    return TCL_OK;
}

/*
 * EntropyStart --
 *	Resolves the key (a field, or the block fields) and empties the
 *	counts.
 */
static int
EntropyStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    EntropyState *st = a->state;

    if (EntropyInit(a, NULL) != TCL_OK) {
	return TCL_ERROR;
    }
    st->keyIndex = -1;
    if (st->field != NULL && st->field[0] != '\0') {
	if (Rb_AnalyzerTypedField(a, run, st->field, RB_FT_BIT(RB_FT_INT)
		| RB_FT_BIT(RB_FT_STRING), &st->keyIndex) != TCL_OK) {
	    st->keyIndex = -1;
	    return TCL_ERROR;
	}
    } else if (RbBlockKeysStart(a, &st->map, run, "-field") != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->counts.valSize == 0) {
	Rb_KeyTableInit(&st->counts, sizeof(uint64_t));
    }
    Rb_KeyTableClear(&st->counts);
    st->accesses = 0;
    st->failed = 0;
    return TCL_OK;
}

/*
 * CountKey --
 *	Counts n accesses to key; record 0 means while merging.
 * Results: 1, or 0 (with the run stopped) when key is one past -limit.
 */
static int
CountKey(Rb_Analyzer *a, int64_t key, uint64_t n, uint64_t record)
{
    EntropyState *st = a->state;
    uint64_t *c = Rb_KeyTableFindLimited(&st->counts, key, st->limit);

    if (c == NULL) {
	st->failed = 1;
	RbKitKeyLimit(a, st->limit, st->keyIndex >= 0 ? st->field : "blocks",
		record, 30);
	return 0;
    }
    *c += n;
    st->accesses += n;
    return 1;
}

/*
 * EntropyBatch --
 *	Counts each selected record's key (records without one are left
 *	out), or each block its I/O touches.
 */
static void
EntropyBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    EntropyState *st = a->state;
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	uint64_t record = b->firstRecord + sel[j];
	int64_t first, count, k;

	if (st->keyIndex >= 0) {
	    int64_t key = b->col[st->keyIndex][sel[j]];

	    if (key != RB_ABSENT) {
		CountKey(a, key, 1, record);
	    }
	    continue;
	}
	if (!RbBlockRange(&st->map, b, sel[j], &first, &count)) {
	    continue;
	}
	for (k = 0; k < count && CountKey(a, first + k, 1, record); k++) {
	}
    }
}

/*
 * EntropyEnd --
 *	Sets H = -sum p log2 p over the keys' shares p of the accesses, H
 *	over log2 of the number of keys (0 with fewer than two), and the
 *	counts.
 */
static int
EntropyEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    EntropyState *st = a->state;
    uint64_t i, n = st->counts.count;
    double h = 0.0, total = (double)st->accesses;

    for (i = 0; i < st->counts.cap; i++) {
	if (st->counts.used[i]) {
	    double p = (double)*(const uint64_t *)Rb_KeyTableValue(
		    &st->counts, i) / total;

	    h -= p * log2(p);
	}
    }
    Rb_AnalyzerSet(a, Rb_AttrScalar("Entropy", h, "bits",
	    "Shannon entropy of the accesses' distribution over the keys"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("NormalizedEntropy",
	    n >= 2 ? h / log2((double)n) : 0.0, "",
	    "entropy over its maximum log2(keys): 1 for a uniform "
	    "distribution"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("EntropyKeys", (double)n, "",
	    "distinct keys accessed"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("EntropyAccesses", total, "",
	    "accesses counted (block accesses for block keys)"));
    return TCL_OK;
}

/*
 * EntropyFree --
 *	Frees the counts and the device map.
 */
static void
EntropyFree(Rb_Analyzer *a)
{
    EntropyState *st = a->state;

    Rb_KeyTableFree(&st->counts);
    RbBlockMapFree(&st->map);
}

/*
 * EntropySerialize, EntropyDeserialize --
 *	serialize and deserialize hooks: the devices (block keys), the
 *	counts and the total.
 */
static int
EntropySerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    EntropyState *st = a->state;

    Rb_BufPutInt(b, st->failed);
    Rb_BufPutInt(b, (int64_t)st->accesses);
    if (st->keyIndex < 0) {
	RbBlockMapPut(b, &st->map);
    }
    Rb_KeyTablePut(b, &st->counts, RbKitTextSchema(run, st->keyIndex));
    return TCL_OK;
}

static int
EntropyDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    EntropyState *st = a->state;

    st->failed = (int)Rb_BufGetInt(b);
    st->accesses = (uint64_t)Rb_BufGetInt(b);
    if (st->keyIndex < 0) {
	RbBlockMapGet(b, &st->map);
    }
    Rb_KeyTableGet(b, &st->counts, RbKitTextSchema(run, st->keyIndex));
    return TCL_OK;
}

/*
 * EntropyMerge --
 *	merge hook: adds other's counts (block keys renumbered to a's
 *	devices); more than -limit keys in all is an error.
 */
static int
EntropyMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    EntropyState *st = a->state;
    const EntropyState *ost = other->state;

    st->failed |= ost->failed;
    if (RbKitAddCounts(a, &st->counts, &ost->counts,
	    st->keyIndex < 0 ? &st->map : NULL, &ost->map, st->limit,
	    st->keyIndex >= 0 ? st->field : "blocks", 30) != TCL_OK) {
	return TCL_ERROR;
    }
    st->accesses += ost->accesses;
    return TCL_OK;
}

/*
 * Mergeable: per-key counts add exactly, whatever the order (block keys
 * renumbered as FootprintAnalyzer does).
 */
const Rb_AnalyzerClass Rb_EntropyAnalyzerClass = {
    .name = "EntropyAnalyzer",
    .help = "Shannon entropy (bits) of the accesses over blocks or a "
	    "field's values, and normalized entropy",
    .stateSize = sizeof(EntropyState),
    .options = entropyOptions,
    .attrs = entropyAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .init = EntropyInit,
    .start = EntropyStart,
    .batch = EntropyBatch,
    .end = EntropyEnd,
    .freeState = EntropyFree,
    .merge = EntropyMerge,
    .serialize = EntropySerialize,
    .deserialize = EntropyDeserialize,
    /* And size, device and offset for block keys (start resolves
     * them). */
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
