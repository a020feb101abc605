/*
 * groupBy.c --
 *
 *	The -by option of the statistics classes, written once for all of
 *	them: a class registered through RbKitGroupedClass gets -by field
 *	and -limit n.  Without -by the class runs as it is.  With it, the
 *	records are split by the value of the field, each value (key) gets
 *	an instance state of its own, fed by the class's own hooks with the
 *	sub-selection of each batch that carries that key, and at end every
 *	Attribute the class sets becomes one table with a row per key (see
 *	GroupTable for the shape).  The key table holds at most -limit keys;
 *	one more stops the run with RUBICON LIMIT KEYS, as TopKAnalyzer's.
 *
 *	The derived class's state is the base class's state followed by a
 *	GroupState, so the base's option offsets and hooks stay valid on
 *	the instance itself.
 */

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "toolbox/toolbox.h"

#define MAX_BASE_OPTIONS 14
#define MAX_GROUPED 8

typedef struct Group {
    void *state;		/* The base class's state for this key. */
} Group;

typedef struct GroupState {
    char *by;			/* -by: field name, or "" */
    int64_t limit;		/* -limit: most keys held */
    int byIndex;		/* Resolved at start, -1 without -by. */
    int failed;			/* -limit was passed: ignore the rest. */
    const Rb_RunInfo *run;	/* Of the current run (for merge). */
    Rb_KeyTable groups;		/* key -> Group * */
    Rb_RecentKeys *recent;	/* The groups found last (Group *). */
    Group **touched;		/* With -by only (made at start), each */
    uint32_t *sel;		/* RB_BATCH_SIZE long: not in every
				 * instance, which most have no -by. */
} GroupState;

/* A derived class: the Rb_AnalyzerClass first, so that a->cls leads to
 * it. */
typedef struct GroupedClass {
    Rb_AnalyzerClass cls;
    const Rb_AnalyzerClass *base;
    size_t groupOffset;		/* Of the GroupState in the state. */
    Rb_Option options[MAX_BASE_OPTIONS + 3];
    char help[300];
} GroupedClass;

static GroupedClass grouped[MAX_GROUPED];
static int ngrouped;

/*
 * Base, Groups --
 *	The base class of a's derived class, and a's GroupState.
 */
static const Rb_AnalyzerClass *
Base(const Rb_Analyzer *a)
{
    return ((const GroupedClass *)a->cls)->base;
}

static GroupState *
Groups(const Rb_Analyzer *a)
{
    return (GroupState *)((char *)a->state
	    + ((const GroupedClass *)a->cls)->groupOffset);
}

/*
 * SubAnalyzer --
 *	An analyzer like a whose state is one key's (for the base hooks),
 *	setting its Attributes on flow (NULL: a's own).
 */
static Rb_Analyzer
SubAnalyzer(const Rb_Analyzer *a, void *state, Rb_Flow *flow)
{
    Rb_Analyzer sub = *a;

    sub.state = state;
    sub.prefix = "";
    if (flow != NULL) {
	sub.flow = flow;
    }
    return sub;
}

/*
 * OptionSize --
 *	Bytes of an option's slot in the state.
 */
static size_t
OptionSize(Rb_OptType type)
{
    switch (type) {
    case RB_OPT_INT:
    case RB_OPT_TIME:
	return sizeof(int64_t);
    case RB_OPT_DOUBLE:
	return sizeof(double);
    case RB_OPT_BOOL:
	return sizeof(int);
    case RB_OPT_STRING:
    case RB_OPT_FIELD:
	return sizeof(char *);
    case RB_OPT_OBJ:
	return sizeof(Tcl_Obj *);
    }
    return 0;
}

/*
 * NewGroup --
 *	A key's state: zeroed, with a's base option values (shared, not
 *	owned: the core frees them with a), checked by the base's init and
 *	started on the run.
 * Results: the group, or NULL with an analyzer error when start fails.
 */
static Group *
NewGroup(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    const Rb_AnalyzerClass *base = Base(a);
    Group *g = Rb_Realloc(NULL, sizeof(Group));
    const Rb_Option *o;
    Rb_Analyzer sub;

    memset(g, 0, sizeof(*g));
    g->state = Rb_Realloc(NULL, base->stateSize);
    memset(g->state, 0, base->stateSize);
    for (o = base->options; o != NULL && o->name != NULL; o++) {
	memcpy((char *)g->state + o->offset, (char *)a->state + o->offset,
		OptionSize(o->type));
    }
    sub = SubAnalyzer(a, g->state, NULL);
    if ((base->init != NULL && base->init(&sub, NULL) != TCL_OK)
	    || (base->start != NULL && base->start(&sub, run) != TCL_OK)) {
	if (base->freeState != NULL) {
	    base->freeState(&sub);
	}
	free(g->state);
	free(g);
	return NULL;
    }
    return g;
}

/*
 * FreeGroups --
 *	Frees every key's state and empties the key table.
 */
static void
FreeGroups(Rb_Analyzer *a)
{
    const Rb_AnalyzerClass *base = Base(a);
    GroupState *gs = Groups(a);
    uint64_t i;

    for (i = 0; i < gs->groups.cap; i++) {
	Group *g;

	if (!gs->groups.used[i]) {
	    continue;
	}
	g = *(Group **)Rb_KeyTableValue(&gs->groups, i);
	if (base->freeState != NULL) {
	    Rb_Analyzer sub = SubAnalyzer(a, g->state, NULL);

	    base->freeState(&sub);
	}
	free(g->state);
	free(g);
    }
    Rb_KeyTableClear(&gs->groups);
    RbRecentClear(gs->recent);
}

/*
 * FindGroup --
 *	The group of key, made and started when new and the table holds
 *	fewer than -limit keys.
 * Results: the group, or NULL (with an analyzer error) when the key is
 *	one past -limit or its start failed.
 */
static Group *
FindGroup(Rb_Analyzer *a, int64_t key, uint64_t record)
{
    GroupState *gs = Groups(a);
    Group *g = (Group *)(intptr_t)RbRecentGet(gs->recent, key), **slot;

    if (g != NULL) {
	return g;
    }
    if ((slot = Rb_KeyTableFind(&gs->groups, key, 0)) != NULL) {
	RbRecentPut(gs->recent, key, (int64_t)(intptr_t)*slot);
	return *slot;
    }
    if ((int64_t)gs->groups.count >= gs->limit) {
	RbKitKeyLimit(a, gs->limit, gs->by, record,
		(int64_t)(Base(a)->stateSize + sizeof(Group) + 40));
	return NULL;
    }
    slot = Rb_KeyTableFind(&gs->groups, key, 1);
    *slot = NewGroup(a, gs->run);
    if (*slot == NULL) {
	Rb_KeyTableRemove(&gs->groups, key);
	return NULL;
    }
    return *slot;
}

/*
 * GroupedInit --
 *	Checks -limit, then the base's options.
 */
static int
GroupedInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    const Rb_AnalyzerClass *base = Base(a);

    if (Groups(a)->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    return base->init != NULL ? base->init(a, interp) : TCL_OK;
}

/*
 * GroupedStart --
 *	Starts the base state (which checks its options and fields), then
 *	resolves -by and forgets the keys of an earlier run.
 * Results: TCL_OK or TCL_ERROR with an analyzer error.
 */
static int
GroupedStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    const Rb_AnalyzerClass *base = Base(a);
    GroupState *gs = Groups(a);

    if (gs->groups.valSize == 0) {
	Rb_KeyTableInit(&gs->groups, sizeof(Group *));
    }
    FreeGroups(a);
    gs->byIndex = -1;
    gs->failed = 0;
    gs->run = run;
    if (gs->limit <= 0) {
	return RbKitOptionError(a, NULL, "-limit must be positive");
    }
    if (base->start != NULL && base->start(a, run) != TCL_OK) {
	return TCL_ERROR;
    }
    if (gs->by != NULL && gs->by[0] != '\0') {
	if (Rb_AnalyzerTypedField(a, run, gs->by, RB_FT_BIT(RB_FT_INT)
		| RB_FT_BIT(RB_FT_STRING), &gs->byIndex) != TCL_OK) {
	    gs->byIndex = -1;
	    return TCL_ERROR;
	}
	if (gs->sel == NULL) {
	    gs->recent = Rb_Alloc(sizeof(Rb_RecentKeys));
	    RbRecentClear(gs->recent);
	    gs->touched = Rb_AllocArray(RB_BATCH_SIZE, sizeof(Group *));
	    gs->sel = Rb_AllocArray(RB_BATCH_SIZE, sizeof(uint32_t));
	}
    }
    return TCL_OK;
}

/*
 * Partition --
 *	The selected records of a batch by key (of one field): each
 *	distinct key in order of first appearance, its records' positions
 *	in the selection in order.  The statistics classes of one Flow with
 *	the same -by get the same records one after another, in one push
 *	(RbFlowPushId): the first works out the partition, and those after
 *	in the same push use it, each key's records handed on in place.
 *	One per thread (a Flow is pushed by one thread at a time).
 */
typedef struct Partition {
    int field, ndistinct;
    uint64_t push;			/* The Flow push it was made in
					 * (RbFlowPushId), 0: none. */
    int64_t dkey[RB_BATCH_SIZE];	/* The distinct keys, */
    uint32_t first[RB_BATCH_SIZE];	/* the position of each's first
					 * record, */
    uint32_t start[RB_BATCH_SIZE + 1];	/* and its positions' range in */
    uint32_t order[RB_BATCH_SIZE];	/* order. */
    int32_t id[RB_BATCH_SIZE];		/* Each position's key's index in
					 * dkey, -1 when absent. */
    uint32_t psel[RB_BATCH_SIZE];	/* The selection by key (at the
					 * positions of order): each key's
					 * records, handed to the base
					 * hooks as they are. */
    /* Building: key -> index, a slot in use when its stamp is current. */
    int64_t hkey[2 * RB_BATCH_SIZE];
    int32_t hid[2 * RB_BATCH_SIZE];
    uint32_t hstamp[2 * RB_BATCH_SIZE];
    uint32_t stamp;
} Partition;

static pthread_key_t partitionKey;
static pthread_once_t partitionOnce = PTHREAD_ONCE_INIT;

static void
PartitionKeyInit(void)
{
    pthread_key_create(&partitionKey, free);
}

static Partition *
ThePartition(void)
{
    Partition *p;

    pthread_once(&partitionOnce, PartitionKeyInit);
    if ((p = pthread_getspecific(partitionKey)) == NULL) {
	p = Rb_Alloc(sizeof(Partition));
	p->field = -1;
	p->push = 0;
	pthread_setspecific(partitionKey, p);
    }
    return p;
}

/*
 * PartitionHolds --
 *	Whether p is the partition of this analyzer's records by field:
 *	made by one before it in the same Flow push, which gets them all
 *	the same records.  Outside a push (an Analyzer a Mux or Filter
 *	feeds itself) it is made anew.
 */
static int
PartitionHolds(const Partition *p, int field)
{
    return p->field == field && p->push != 0 && p->push == RbFlowPushId();
}

/*
 * BuildPartition --
 *	Makes p the partition of these records by field.
 */
static void
BuildPartition(Partition *p, int field, const int64_t *keys,
	const uint32_t *sel, int nsel)
{
    uint32_t mask = 2 * RB_BATCH_SIZE - 1, count[RB_BATCH_SIZE];
    int j, d, n = 0;

    if (++p->stamp == 0) {
	memset(p->hstamp, 0, sizeof(p->hstamp));
	p->stamp = 1;
    }
    /* The records before the first with the field (all of them for a
     * field the trace lacks, as pid and lvNo in most block traces): one
     * look each, and nothing to order when none has it. */
    for (j = 0; j < nsel && keys[sel[j]] == RB_ABSENT; j++) {
	continue;
    }
    if (j < nsel) {
	memset(p->id, 0xff, (size_t)j * sizeof(p->id[0]));	/* -1: absent */
    }
    for (; j < nsel; j++) {
	int64_t key = keys[sel[j]];
	uint32_t h;

	if (key == RB_ABSENT) {
	    p->id[j] = -1;
	    continue;
	}
	for (h = (uint32_t)Rb_HashKey(key) & mask;
		p->hstamp[h] == p->stamp && p->hkey[h] != key;
		h = (h + 1) & mask) {
	}
	if (p->hstamp[h] != p->stamp) {
	    p->hstamp[h] = p->stamp;
	    p->hkey[h] = key;
	    p->hid[h] = n;
	    p->dkey[n] = key;
	    p->first[n] = (uint32_t)j;
	    count[n++] = 0;
	}
	p->id[j] = p->hid[h];
	count[p->id[j]]++;
    }
    p->start[0] = 0;
    for (d = 0; d < n; d++) {
	p->start[d + 1] = p->start[d] + count[d];
	count[d] = p->start[d];
    }
    for (j = 0; n > 0 && j < nsel; j++) {
	if (p->id[j] >= 0) {
	    p->psel[count[p->id[j]]] = sel[j];
	    p->order[count[p->id[j]]++] = (uint32_t)j;
	}
    }
    p->field = field;
    p->ndistinct = n;
    p->push = RbFlowPushId();
}

/*
 * GroupedBatch --
 *	Without -by, the base's batch hook.  With it, splits the selected
 *	records by key (Partition: each key's records stay ascending) and
 *	gives each key's records to the base hook on that key's state, the
 *	keys in order of their first record.  Records without the field are
 *	left out.  A key past -limit stops the run at its first record:
 *	the records before it are counted.
 */
static void
GroupedBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    const Rb_AnalyzerClass *base = Base(a);
    GroupState *gs = Groups(a);
    const int64_t *keys;
    Partition *p;
    int d, nd, pos = 0;
    uint32_t upTo = (uint32_t)nsel, k;

    if (gs->byIndex < 0) {
	base->batch(a, b, sel, nsel);
	return;
    }
    if (gs->failed) {
	return;
    }
    keys = b->col[gs->byIndex];
    p = ThePartition();
    if (!PartitionHolds(p, gs->byIndex)) {
	BuildPartition(p, gs->byIndex, keys, sel, nsel);
    }
    for (nd = 0; nd < p->ndistinct; nd++) {
	Group *g = FindGroup(a, p->dkey[nd],
		b->firstRecord + sel[p->first[nd]]);

	if (g == NULL) {
	    gs->failed = 1;
	    upTo = p->first[nd];
	    break;
	}
	gs->touched[nd] = g;
    }
    for (d = 0; d < nd; d++) {
	Rb_Analyzer sub = SubAnalyzer(a, gs->touched[d]->state, NULL);
	int n = 0;

	if (upTo == (uint32_t)nsel) {
	    /* Every record of the key: its part of the partition's. */
	    base->batch(&sub, b, p->psel + p->start[d],
		    (int)(p->start[d + 1] - p->start[d]));
	    continue;
	}
	for (k = p->start[d]; k < p->start[d + 1] && p->order[k] < upTo;
		k++) {
	    gs->sel[pos + n++] = sel[p->order[k]];
	}
	base->batch(&sub, b, gs->sel + pos, n);
	pos += n;
    }
}

/*
 * RbKitKeyOrder --
 *	qsort_r order of key table slots: numbers increasing, text keys
 *	(run's schema given) by their strings.  cd points to two pointers:
 *	the table and the schema (NULL for numbers).
 */
int
RbKitKeyOrder(const void *p, const void *q, void *cd)
{
    const void *const *ctx = cd;
    const Rb_KeyTable *t = ctx[0];
    const Rb_Schema *text = ctx[1];
    int64_t k1 = t->keys[*(const uint64_t *)p];
    int64_t k2 = t->keys[*(const uint64_t *)q];

    if (text != NULL) {
	const char *s1 = Rb_SchemaString(text, k1);
	const char *s2 = Rb_SchemaString(text, k2);

	return strcmp(s1 ? s1 : "", s2 ? s2 : "");
    }
    return (k1 > k2) - (k1 < k2);
}

/*
 * PercentileColumn --
 *	The column name of percentile p in a grouped percentile table: p50,
 *	p99.9, ...
 */
static void
PercentileColumn(double p, char *buf, size_t n)
{
    snprintf(buf, n, "p%g", p);
}

/*
 * SetKey --
 *	Puts the key (text, or the number when keyText is NULL) in column 0
 *	of a row of table.
 */
static void
SetKey(Rb_Attribute *table, int row, const char *keyText, double keyNum)
{
    if (keyText != NULL) {
	Rb_AttrSetText(table, row, 0, keyText);
    } else {
	Rb_AttrSetNum(table, row, 0, keyNum);
    }
}

/*
 * MakeColumns --
 *	Gives table the value columns for Attributes like attr (see
 *	AddKeyRows) and attr's unit.
 */
static void
MakeColumns(Rb_Attribute *table, const Rb_Attribute *attr)
{
    const char *unit = attr->unit ? attr->unit : "";
    char name[32];
    int r, c;

    table->unit = Rb_Realloc(table->unit, strlen(unit) + 1);
    strcpy(table->unit, unit);
    if (attr->kind == RB_ATTR_SCALAR) {
	Rb_AttrAddColumn(table, "value", unit, 0);
    } else if (attr->kind == RB_ATTR_PERCENTILES) {
	for (r = 0; r < attr->nrows; r++) {
	    PercentileColumn(Rb_AttrNum(attr, r, 0), name, sizeof(name));
	    Rb_AttrAddColumn(table, name, unit, 0);
	}
    } else {
	for (c = 0; c < attr->ncols; c++) {
	    Rb_AttrAddColumn(table, attr->cols[c].name, attr->cols[c].unit,
		    attr->cols[c].isText);
	}
    }
}

/*
 * AddKeyRows --
 *	Appends to table the rows of one key's Attribute attr (NULL: the key
 *	has none), the key in column 0: a scalar as one row of its value, a
 *	percentile summary as one row with a column per percentile (NaN
 *	where the key's summary has no rows), any other kind as its own
 *	rows.  The value columns are made on the first call that has
 *	Attribute rows to show (*made set).
 */
static void
AddKeyRows(Rb_Attribute *table, const Rb_Attribute *attr, int *made,
	const char *keyText, double keyNum)
{
    int r, c, row;
    char name[32];

    if (attr == NULL) {
	return;
    }
    if (!*made && (attr->kind == RB_ATTR_SCALAR || attr->nrows > 0)) {
	*made = 1;
	MakeColumns(table, attr);
    }
    if (attr->kind != RB_ATTR_SCALAR && attr->kind != RB_ATTR_PERCENTILES) {
	for (r = 0; r < attr->nrows; r++) {
	    row = Rb_AttrAddRow(table);
	    SetKey(table, row, keyText, keyNum);
	    for (c = 0; c < attr->ncols && c + 1 < table->ncols; c++) {
		if (attr->cols[c].isText) {
		    Rb_AttrSetText(table, row, c + 1, attr->cols[c].text[r]);
		} else {
		    Rb_AttrSetNum(table, row, c + 1, attr->cols[c].num[r]);
		}
	    }
	}
	return;
    }
    row = Rb_AttrAddRow(table);
    SetKey(table, row, keyText, keyNum);
    for (c = 1; c < table->ncols; c++) {
	Rb_AttrSetNum(table, row, c, NAN);
    }
    if (attr->kind == RB_ATTR_SCALAR) {
	if (table->ncols > 1 && attr->nrows > 0) {
	    Rb_AttrSetNum(table, row, 1, Rb_AttrNum(attr, 0, 0));
	}
	return;
    }
    for (r = 0; r < attr->nrows; r++) {
	PercentileColumn(Rb_AttrNum(attr, r, 0), name, sizeof(name));
	c = Rb_AttrColumnIndex(table, name);
	if (c > 0) {
	    Rb_AttrSetNum(table, row, c, Rb_AttrNum(attr, r, 1));
	}
    }
}

/*
 * GroupedEnd --
 *	Without -by, the base's end hook.  With it, runs the base end hook
 *	on each key's state (in key order) into a scratch Flow, and sets
 *	each Attribute the base declares as a table of every key's rows.
 */
static int
GroupedEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    const Rb_AnalyzerClass *base = Base(a);
    GroupState *gs = Groups(a);
    const char *const *name;
    Rb_Schema *text;
    Rb_Attribute *tables[32];
    int made[32], n = 0, i, rc = TCL_OK;
    uint64_t *slots, s;
    const void *ctx[2];
    Rb_Flow *scratch;

    if (gs->byIndex < 0) {
	return base->end(a, run);
    }
    text = RbKitTextSchema(run, gs->byIndex);
    for (name = base->attrs; name != NULL && *name != NULL && n < 32;
	    name++) {
	char help[300];

	snprintf(help, sizeof(help), "%s per %s", *name, gs->by);
	tables[n] = Rb_AttrCreate(*name, RB_ATTR_TABLE, "", help);
	Rb_AttrAddColumn(tables[n], gs->by, "", text != NULL);
	made[n++] = 0;
    }
    scratch = Rb_FlowScratchCreate(run->interp);
    slots = Rb_KeyTableSortedSlots(&gs->groups);
    ctx[0] = &gs->groups;
    ctx[1] = text;
    qsort_r(slots, gs->groups.count, sizeof(uint64_t), RbKitKeyOrder, ctx);
    for (s = 0; s < gs->groups.count && rc == TCL_OK; s++) {
	int64_t key = gs->groups.keys[slots[s]];
	Group *g = *(Group **)Rb_KeyTableValue(&gs->groups, slots[s]);
	Rb_Analyzer sub = SubAnalyzer(a, g->state, scratch);
	const char *keyText = NULL;

	if (text != NULL) {
	    keyText = Rb_SchemaString(text, key);
	    keyText = keyText ? keyText : "";
	}
	rc = base->end(&sub, run);
	for (i = 0; i < n; i++) {
	    AddKeyRows(tables[i], Rb_FlowGetAttr(scratch, tables[i]->name),
		    &made[i], keyText, (double)key);
	}
	Rb_FlowScratchClear(scratch);
    }
    free(slots);
    Rb_FlowScratchFree(scratch);
    for (i = 0; i < n; i++) {
	if (!made[i]) {
	    Rb_AttrAddColumn(tables[i], "value", "", 0);
	}
	Rb_AnalyzerSet(a, tables[i]);
    }
    return rc;
}

/*
 * GroupedMerge --
 *	Without -by, the base's merge.  With it, merges each key's state of
 *	other into the same key's here (started empty when new); more than
 *	-limit keys in all is an error.
 */
static int
GroupedMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    const Rb_AnalyzerClass *base = Base(a);
    GroupState *gs = Groups(a);
    const GroupState *ogs = Groups(other);
    uint64_t i;

    if (gs->byIndex < 0) {
	return base->merge(a, other);
    }
    gs->failed |= ogs->failed;
    for (i = 0; i < ogs->groups.cap; i++) {
	const Group *og;
	Group *g;
	Rb_Analyzer sub, osub;

	if (!ogs->groups.used[i]) {
	    continue;
	}
	og = *(Group **)Rb_KeyTableValue(&ogs->groups, i);
	if ((g = FindGroup(a, ogs->groups.keys[i], 0)) == NULL) {
	    return TCL_ERROR;
	}
	sub = SubAnalyzer(a, g->state, NULL);
	osub = SubAnalyzer(other, og->state, NULL);
	if (base->merge(&sub, &osub) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    return TCL_OK;
}

/*
 * GroupedSerialize, GroupedDeserialize --
 *	Without -by, the base's hooks.  With it, the number of keys, then
 *	each key and its state as the base writes it.
 */
static int
GroupedSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    const Rb_AnalyzerClass *base = Base(a);
    GroupState *gs = Groups(a);
    Rb_Schema *text;
    uint64_t i;

    if (gs->byIndex < 0) {
	return base->serialize(a, run, b);
    }
    text = RbKitTextSchema(run, gs->byIndex);
    Rb_BufPutInt(b, gs->failed);
    Rb_BufPutInt(b, (int64_t)gs->groups.count);
    for (i = 0; i < gs->groups.cap; i++) {
	Group *g;
	Rb_Analyzer sub;

	if (!gs->groups.used[i]) {
	    continue;
	}
	g = *(Group **)Rb_KeyTableValue(&gs->groups, i);
	sub = SubAnalyzer(a, g->state, NULL);
	RbKitPutKey(b, text, gs->groups.keys[i]);
	if (base->serialize(&sub, run, b) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    return TCL_OK;
}

static int
GroupedDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    const Rb_AnalyzerClass *base = Base(a);
    GroupState *gs = Groups(a);
    Rb_Schema *text;
    int64_t n, j;

    if (gs->byIndex < 0) {
	return base->deserialize(a, run, b);
    }
    text = RbKitTextSchema(run, gs->byIndex);
    gs->failed = (int)Rb_BufGetInt(b);
    n = Rb_BufGetCount(b, 8);
    for (j = 0; j < n && !b->bad; j++) {
	int64_t key = RbKitGetKey(b, text);
	Group *g;
	Rb_Analyzer sub;

	if (b->bad || (g = FindGroup(a, key, 0)) == NULL) {
	    return TCL_ERROR;
	}
	sub = SubAnalyzer(a, g->state, NULL);
	if (base->deserialize(&sub, run, b) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    return b->bad ? TCL_ERROR : TCL_OK;
}

/*
 * GroupedFree --
 *	Frees the keys' states, the key table, the -by scratch arrays and
 *	the base's own state.
 */
static void
GroupedFree(Rb_Analyzer *a)
{
    const Rb_AnalyzerClass *base = Base(a);
    GroupState *gs = Groups(a);

    if (gs->groups.valSize != 0) {
	FreeGroups(a);
	Rb_KeyTableFree(&gs->groups);
    }
    free(gs->recent);
    free(gs->touched);
    free(gs->sel);
    if (base->freeState != NULL) {
	base->freeState(a);
    }
}

/*
 * RbKitGroupedClass --
 *	The class base with -by and -limit added (made once per base).
 * Results: the derived class, or base itself when it cannot be derived
 *	(too many options or classes: a build-time mistake).
 */
const Rb_AnalyzerClass *
RbKitGroupedClass(const Rb_AnalyzerClass *base)
{
    GroupedClass *gc;
    const Rb_Option *o;
    int i, n = 0;
    size_t align = sizeof(void *) > sizeof(int64_t)
	    ? sizeof(void *) : sizeof(int64_t);

    for (i = 0; i < ngrouped; i++) {
	if (grouped[i].base == base) {
	    return &grouped[i].cls;
	}
    }
    for (o = base->options; o != NULL && o->name != NULL; o++) {
	n++;
    }
    if (ngrouped == MAX_GROUPED || n > MAX_BASE_OPTIONS
	    || base->batch == NULL || base->end == NULL) {
	return base;
    }
    gc = &grouped[ngrouped++];
    gc->base = base;
    gc->groupOffset = (base->stateSize + align - 1) / align * align;
    for (i = 0; i < n; i++) {
	gc->options[i] = base->options[i];
    }
    gc->options[n].name = "-by";
    gc->options[n].type = RB_OPT_FIELD;
    gc->options[n].offset = gc->groupOffset + offsetof(GroupState, by);
    gc->options[n].defValue = "";
    gc->options[n].help = "field whose values split the statistics into "
	    "one row per value (empty: not split)";
    n++;
    gc->options[n].name = "-limit";
    gc->options[n].type = RB_OPT_INT;
    gc->options[n].offset = gc->groupOffset + offsetof(GroupState, limit);
    gc->options[n].defValue = "10000";
    gc->options[n].help = "most distinct -by values held (the run stops "
	    "beyond)";
    snprintf(gc->help, sizeof(gc->help), "%s (-by field: one row per "
	    "value)", base->help);
    gc->cls = *base;
    gc->cls.help = gc->help;
    gc->cls.stateSize = gc->groupOffset + sizeof(GroupState);
    gc->cls.options = gc->options;
    gc->cls.init = GroupedInit;
    gc->cls.start = GroupedStart;
    gc->cls.record = NULL;
    gc->cls.batch = GroupedBatch;
    gc->cls.end = GroupedEnd;
    gc->cls.merge = base->merge != NULL ? GroupedMerge : NULL;
    gc->cls.serialize = base->serialize != NULL ? GroupedSerialize : NULL;
    gc->cls.deserialize = base->deserialize != NULL
	    ? GroupedDeserialize : NULL;
    gc->cls.freeState = GroupedFree;
    return &gc->cls;
}
