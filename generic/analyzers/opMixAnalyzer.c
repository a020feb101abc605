/*
 * opMixAnalyzer.c --
 *
 *	OpMixAnalyzer: the operation mix of a trace (requests per operation
 *	name, e.g. get, set, delete of a key-value cache) and its write
 *	ratio, the share of requests whose op is write.  A statistics class
 *	with -by (groupBy.c): "operation mix and write ratio per namespace"
 *	is OpMixAnalyzer -by namespace.
 */

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analyzers.h"

/* Most distinct operation names held (the run stops beyond). */
#define MAX_OPS 1024

typedef struct OpMixState {
    char *field;		/* -field: the operation's name */
    int fieldIndex;
    int failed;
    uint64_t requests, reads, writes, deletes;
    Rb_KeyTable ops;		/* operation -> uint64 requests */
} OpMixState;

static const Rb_Option opMixOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(OpMixState, field), "opName",
	"field naming the operation (op for block traces)"},
    {NULL}
};

static const char *const opMixAttrs[] = {
    "OpMix", "WriteRatio", "Requests", "Reads", "Writes", "Deletes", NULL
};

/*
 * OpMixStart --
 *	Resolves -field (integer or text) and empties the counts.
 */
static int
OpMixStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    OpMixState *st = a->state;

    if (Rb_AnalyzerTypedField(a, run, st->field, RB_FT_BIT(RB_FT_INT)
	    | RB_FT_BIT(RB_FT_STRING), &st->fieldIndex) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->ops.valSize == 0) {
	Rb_KeyTableInit(&st->ops, sizeof(uint64_t));
    }
    Rb_KeyTableClear(&st->ops);
    st->requests = st->reads = st->writes = st->deletes = 0;
    st->failed = 0;
    return TCL_OK;
}

/*
 * OpMixBatch --
 *	Counts each selected record by its operation's name (records
 *	without one are left out) and by op.
 */
static void
OpMixBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    OpMixState *st = a->state;
    const int64_t *names = b->col[st->fieldIndex], *op = b->col[RB_IO_OP];
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int i = (int)sel[j];
	uint64_t *c;

	if (names[i] == RB_ABSENT) {
	    continue;
	}
	if ((c = Rb_KeyTableFindLimited(&st->ops, names[i], MAX_OPS))
		== NULL) {
	    st->failed = 1;
	    RbKitKeyLimit(a, MAX_OPS, st->field,
		    b->firstRecord + (uint64_t)i, 24);
	    break;
	}
	(*c)++;
	st->requests++;
	st->reads += op[i] == RB_OP_READ;
	st->writes += op[i] == RB_OP_WRITE;
	st->deletes += op[i] == RB_OP_DELETE;
    }
}

/*
 * OpMixEnd --
 *	Sets the OpMix table (a row per operation, in name order) and the
 *	counts and write ratio.
 */
static int
OpMixEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    OpMixState *st = a->state;
    Rb_Schema *text = RbKitTextSchema(run, st->fieldIndex);
    Rb_Attribute *mix = Rb_AttrCreate("OpMix", RB_ATTR_TABLE, "",
	    "requests per operation and their share");
    int nc = Rb_AttrAddColumn(mix, st->field, "", text != NULL);
    int rc = Rb_AttrAddColumn(mix, "requests", "", 0);
    int sc = Rb_AttrAddColumn(mix, "share", "", 0);
    uint64_t *slots = Rb_KeyTableSortedSlots(&st->ops), s;
    const void *ctx[2];

    ctx[0] = &st->ops;
    ctx[1] = text;
    qsort_r(slots, st->ops.count, sizeof(uint64_t), RbKitKeyOrder, ctx);
    for (s = 0; s < st->ops.count; s++) {
	int64_t name = st->ops.keys[slots[s]];
	uint64_t n = *(uint64_t *)Rb_KeyTableValue(&st->ops, slots[s]);
	int r = Rb_AttrAddRow(mix);

	if (text != NULL) {
	    const char *str = Rb_SchemaString(text, name);

	    Rb_AttrSetText(mix, r, nc, str ? str : "");
	} else {
	    Rb_AttrSetNum(mix, r, nc, (double)name);
	}
	Rb_AttrSetNum(mix, r, rc, (double)n);
	Rb_AttrSetNum(mix, r, sc, (double)n / (double)st->requests);
    }
    free(slots);
    Rb_AnalyzerSet(a, mix);
    Rb_AnalyzerSet(a, Rb_AttrScalar("WriteRatio", st->requests
	    ? (double)st->writes / (double)st->requests : 0, "",
	    "share of the requests that are writes"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("Requests", (double)st->requests, "",
	    "requests counted"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("Reads", (double)st->reads, "",
	    "requests whose op is read"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("Writes", (double)st->writes, "",
	    "requests whose op is write"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("Deletes", (double)st->deletes, "",
	    "requests whose op is delete"));
    return TCL_OK;
}

/*
 * OpMixSerialize, OpMixDeserialize, OpMixMerge --
 *	Split runs: the counts, and the count per operation (a text name as
 *	its string); merged by adding name by name.
 */
static int
OpMixSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    OpMixState *st = a->state;

    RbKitPutCounters(b, &st->requests, 4);
    Rb_KeyTablePut(b, &st->ops, RbKitTextSchema(run, st->fieldIndex));
    return TCL_OK;
}

static int
OpMixDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    OpMixState *st = a->state;

    RbKitGetCounters(b, &st->requests, 4);
    Rb_KeyTableGet(b, &st->ops, RbKitTextSchema(run, st->fieldIndex));
    return TCL_OK;
}

static int
OpMixMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    OpMixState *st = a->state;
    const OpMixState *ost = other->state;

    if (RbKitAddCounts(a, &st->ops, &ost->ops, NULL, NULL, MAX_OPS,
	    st->field, 24) != TCL_OK) {
	return TCL_ERROR;
    }
    st->requests += ost->requests;
    st->reads += ost->reads;
    st->writes += ost->writes;
    st->deletes += ost->deletes;
    return TCL_OK;
}

static void
OpMixFree(Rb_Analyzer *a)
{
    OpMixState *st = a->state;

    Rb_KeyTableFree(&st->ops);
}

const Rb_AnalyzerClass Rb_OpMixAnalyzerClass = {
    .name = "OpMixAnalyzer",
    .help = "operation mix (requests per operation name) and write ratio",
    .stateSize = sizeof(OpMixState),
    .options = opMixOptions,
    .attrs = opMixAttrs,
    .mergeable = 1,
    .init = NULL,
    .start = OpMixStart,
    .batch = OpMixBatch,
    .end = OpMixEnd,
    .merge = OpMixMerge,
    .serialize = OpMixSerialize,
    .deserialize = OpMixDeserialize,
    .freeState = OpMixFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_OP),
};
