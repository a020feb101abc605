/*
 * threadCpu.c --
 *
 *	ThreadCpuAnalyzer: CPU time per thread from context switches.  On
 *	each switch on a CPU, the time since that CPU's previous switch is
 *	charged to the thread switched out; the time before a CPU's first
 *	switch is unknown and not charged.  Works on ftrace records
 *	(sched_switch, prev_pid, next_pid, the defaults) and on Magpie
 *	event logs (give the field names and the switch event's name).
 *
 *	Mergeable: each CPU keeps its first switch (time and thread switched
 *	out) besides its last, so that a later shard's first interval on a
 *	CPU is charged at the merge as one pass charges it.
 */

#include <inttypes.h>
#include <stdlib.h>
#include "plugins/magpie/magpie.h"

typedef struct ThreadCpuState {
    char *eventField;		/* -eventfield */
    char *switchName;		/* -switch */
    char *cpuField;		/* -cpu */
    char *prevField;		/* -prev */
    char *nextField;		/* -next */
    char *idle;			/* -idle: the idle thread's id */
    int64_t limit;		/* -limit: most CPUs and most threads */
    int failed;			/* -limit was passed: counting stopped. */
    int fEvent, fCpu, fPrev, fNext;
    int64_t switchId;
    int64_t idleValue;
    Rb_Schema *schema;
    Tcl_HashTable cpus;		/* cpu value -> CpuSwitches */
    Tcl_HashTable threads;	/* thread value -> ThreadUse */
    int tablesInit;
    int64_t busyNs, idleNs;
} ThreadCpuState;

typedef struct ThreadUse {
    int64_t ns;
    int64_t switchesIn;
} ThreadUse;

/* A CPU's switches: its first (uncharged) and its last, ns. */
typedef struct CpuSwitches {
    int64_t first;
    int64_t firstPrev;		/* Thread switched out at first, or
				 * RB_ABSENT. */
    int64_t last;
} CpuSwitches;

static const Rb_Option threadCpuOptions[] = {
    {"-eventfield", RB_OPT_STRING, offsetof(ThreadCpuState, eventField),
     "event", "field holding the event name"},
    {"-switch", RB_OPT_STRING, offsetof(ThreadCpuState, switchName),
     "sched_switch", "name of the context-switch event"},
    {"-cpu", RB_OPT_STRING, offsetof(ThreadCpuState, cpuField), "cpu",
     "field holding the CPU"},
    {"-prev", RB_OPT_STRING, offsetof(ThreadCpuState, prevField),
     "prev_pid", "field of the thread switched out"},
    {"-next", RB_OPT_STRING, offsetof(ThreadCpuState, nextField),
     "next_pid", "field of the thread switched in"},
    {"-idle", RB_OPT_STRING, offsetof(ThreadCpuState, idle), "0",
     "id of the idle thread (its time is idle, not busy)"},
    {"-limit", RB_OPT_INT, offsetof(ThreadCpuState, limit), "1000000",
     "most CPUs and most threads held; one more stops the run"},
    {NULL}
};

static const char *const threadCpuAttrs[] = {
    "ThreadCpu", "BusyCpu", "IdleCpu", NULL
};

/*
 * FreeTables --
 *	Frees the per-CPU and per-thread tables.
 */
static void
FreeTables(ThreadCpuState *s)
{
    Tcl_HashSearch hs;
    Tcl_HashEntry *e;

    if (!s->tablesInit) {
	return;
    }
    for (e = Tcl_FirstHashEntry(&s->threads, &hs); e;
	    e = Tcl_NextHashEntry(&hs)) {
	free(Tcl_GetHashValue(e));
    }
    for (e = Tcl_FirstHashEntry(&s->cpus, &hs); e;
	    e = Tcl_NextHashEntry(&hs)) {
	free(Tcl_GetHashValue(e));
    }
    Tcl_DeleteHashTable(&s->threads);
    Tcl_DeleteHashTable(&s->cpus);
    s->tablesInit = 0;
}

/*
 * SlotKey --
 *	A record slot as a one-word hash key.
 */
static inline const char *
SlotKey(int64_t v)
{
    return (const char *)(intptr_t)v;
}

/*
 * ThreadCpuStart --
 *	Resolves the fields (the event text, the threads both integers or
 *	both text) and resets the tables.
 */
static int
ThreadCpuStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ThreadCpuState *s = a->state;

    FreeTables(s);
    if (s->limit <= 0) {
	Rb_AnalyzerError(a, "RUBICON ANALYZER OPTION",
		"%s: -limit must be positive", a->cls->name);
	return TCL_ERROR;
    }
    s->failed = 0;
    /* Event names are text; threads are integers or text, both alike. */
    if (Rb_AnalyzerTypedField(a, run, s->eventField,
	    RB_FT_BIT(RB_FT_STRING), &s->fEvent) != TCL_OK
	    || Rb_AnalyzerField(a, run, s->cpuField, &s->fCpu) != TCL_OK
	    || Rb_AnalyzerTypedField(a, run, s->prevField, RB_FT_BIT(RB_FT_INT)
	    | RB_FT_BIT(RB_FT_STRING), &s->fPrev) != TCL_OK
	    || Rb_AnalyzerTypedField(a, run, s->nextField,
	    RB_FT_BIT(run->schema->fields[s->fPrev].type), &s->fNext)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    s->schema = run->schema;
    s->switchId = Rb_SchemaIntern(run->schema, s->switchName,
	    strlen(s->switchName));
    if (run->schema->fields[s->fPrev].type == RB_FT_STRING) {
	s->idleValue = Rb_SchemaIntern(run->schema, s->idle,
		strlen(s->idle));
    } else {
	s->idleValue = strtoll(s->idle, NULL, 10);
    }
    Tcl_InitHashTable(&s->cpus, TCL_ONE_WORD_KEYS);
    Tcl_InitHashTable(&s->threads, TCL_ONE_WORD_KEYS);
    s->tablesInit = 1;
    s->busyNs = s->idleNs = 0;
    return TCL_OK;
}

/*
 * Use --
 *	The usage entry of a thread, made on first sight.
 */
static ThreadUse *
Use(ThreadCpuState *s, int64_t thread)
{
    int isNew;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(&s->threads, SlotKey(thread),
	    &isNew);

    if (isNew) {
	Tcl_SetHashValue(e, Rb_Alloc(sizeof(ThreadUse)));
    }
    return Tcl_GetHashValue(e);
}

/*
 * Charge --
 *	Charges the interval from a CPU's previous switch at last to a switch
 *	at t that switched prev out: to the idle time or to prev.  Nothing
 *	for an unknown prev or a time going back.
 */
static void
Charge(ThreadCpuState *s, int64_t last, int64_t t, int64_t prev)
{
    if (prev == RB_ABSENT || t < last) {
	return;
    }
    if (prev == s->idleValue) {
	s->idleNs += t - last;
    } else {
	Use(s, prev)->ns += t - last;
	s->busyNs += t - last;
    }
}

/*
 * ThreadCpuRecord --
 *	Charges the interval since the CPU's last switch to the thread
 *	switched out.
 */
static void
ThreadCpuRecord(Rb_Analyzer *a, const Rb_Batch *b, int i)
{
    ThreadCpuState *s = a->state;
    int64_t t = b->col[0][i], cpu = b->col[s->fCpu][i];
    int64_t prev = b->col[s->fPrev][i], next = b->col[s->fNext][i];
    CpuSwitches *c;
    Tcl_HashEntry *e;
    int isNew;

    if (s->failed || b->col[s->fEvent][i] != s->switchId
	    || cpu == RB_ABSENT || t == RB_ABSENT) {
	return;
    }
    e = Tcl_CreateHashEntry(&s->cpus, SlotKey(cpu), &isNew);
    if (isNew) {
	c = Rb_Alloc(sizeof(CpuSwitches));
	c->first = t;
	c->firstPrev = prev;
	Tcl_SetHashValue(e, c);
    } else {
	c = Tcl_GetHashValue(e);
	Charge(s, c->last, t, prev);
    }
    c->last = t;
    if (next != RB_ABSENT && next != s->idleValue) {
	Use(s, next)->switchesIn++;
    }
    if (s->cpus.numEntries > s->limit || s->threads.numEntries > s->limit) {
	s->failed = 1;
	Rb_AnalyzerError(a, "RUBICON LIMIT KEYS", "%s: more than -limit %"
		PRId64 " %s at record %" PRIu64 " (raise -limit; each costs "
		"about 60 bytes)", a->cls->name, s->limit,
		s->cpus.numEntries > s->limit ? "CPUs" : "threads",
		b->firstRecord + (uint64_t)i);
    }
}

/*
 * ThreadCpuSerialize --
 *	Busy and idle time, each CPU's first and last switch, each thread's
 *	time and switches in (CPUs and threads by value, text as text).
 */
static int
ThreadCpuSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *buf)
{
    ThreadCpuState *s = a->state;
    Tcl_HashSearch hs;
    Tcl_HashEntry *e;

    Rb_BufPutInt(buf, s->busyNs);
    Rb_BufPutInt(buf, s->idleNs);
    Rb_BufPutInt(buf, s->cpus.numEntries);
    for (e = Tcl_FirstHashEntry(&s->cpus, &hs); e;
	    e = Tcl_NextHashEntry(&hs)) {
	const CpuSwitches *c = Tcl_GetHashValue(e);

	Rb_BufPutKey(buf, s->schema, s->fCpu,
		(int64_t)(intptr_t)Tcl_GetHashKey(&s->cpus, e));
	Rb_BufPutInt(buf, c->first);
	Rb_BufPutKey(buf, s->schema, s->fPrev, c->firstPrev);
	Rb_BufPutInt(buf, c->last);
    }
    Rb_BufPutInt(buf, s->threads.numEntries);
    for (e = Tcl_FirstHashEntry(&s->threads, &hs); e;
	    e = Tcl_NextHashEntry(&hs)) {
	const ThreadUse *u = Tcl_GetHashValue(e);

	Rb_BufPutKey(buf, s->schema, s->fPrev,
		(int64_t)(intptr_t)Tcl_GetHashKey(&s->threads, e));
	Rb_BufPutInt(buf, u->ns);
	Rb_BufPutInt(buf, u->switchesIn);
    }
    return TCL_OK;
}

/*
 * ThreadCpuDeserialize --
 *	Restores what ThreadCpuSerialize wrote into a started instance.
 */
static int
ThreadCpuDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *buf)
{
    ThreadCpuState *s = a->state;
    int64_t n, k;

    s->busyNs = Rb_BufGetInt(buf);
    s->idleNs = Rb_BufGetInt(buf);
    n = Rb_BufGetCount(buf, 32);
    for (k = 0; k < n && !buf->bad; k++) {
	int64_t cpu = Rb_BufGetKey(buf, s->schema, s->fCpu);
	CpuSwitches *c = Rb_Alloc(sizeof(CpuSwitches));
	int isNew;

	c->first = Rb_BufGetInt(buf);
	c->firstPrev = Rb_BufGetKey(buf, s->schema, s->fPrev);
	c->last = Rb_BufGetInt(buf);
	Tcl_SetHashValue(Tcl_CreateHashEntry(&s->cpus, SlotKey(cpu),
		&isNew), c);
	if (!isNew) {
	    buf->bad = 1;	/* a CPU twice: not what serialize wrote */
	}
    }
    n = Rb_BufGetCount(buf, 24);
    for (k = 0; k < n && !buf->bad; k++) {
	ThreadUse *u = Use(s, Rb_BufGetKey(buf, s->schema, s->fPrev));

	u->ns += Rb_BufGetInt(buf);
	u->switchesIn += Rb_BufGetInt(buf);
    }
    return TCL_OK;		/* the core reports a short buffer */
}

/*
 * ThreadCpuMerge --
 *	Adds a later shard's times and switches; a CPU's first switch there
 *	charges the interval since its last switch here, as in one pass.
 */
static int
ThreadCpuMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    ThreadCpuState *s = a->state;
    ThreadCpuState *o = other->state;
    Tcl_HashSearch hs;
    Tcl_HashEntry *e;

    s->busyNs += o->busyNs;
    s->idleNs += o->idleNs;
    for (e = Tcl_FirstHashEntry(&o->threads, &hs); e;
	    e = Tcl_NextHashEntry(&hs)) {
	const ThreadUse *from = Tcl_GetHashValue(e);
	ThreadUse *u = Use(s, (int64_t)(intptr_t)Tcl_GetHashKey(&o->threads,
		e));

	u->ns += from->ns;
	u->switchesIn += from->switchesIn;
    }
    for (e = Tcl_FirstHashEntry(&o->cpus, &hs); e;
	    e = Tcl_NextHashEntry(&hs)) {
	const CpuSwitches *from = Tcl_GetHashValue(e);
	int isNew;
	Tcl_HashEntry *here = Tcl_CreateHashEntry(&s->cpus,
		Tcl_GetHashKey(&o->cpus, e), &isNew);
	CpuSwitches *c;

	if (isNew) {
	    c = Rb_Alloc(sizeof(CpuSwitches));
	    *c = *from;
	    Tcl_SetHashValue(here, c);
	} else {
	    c = Tcl_GetHashValue(here);
	    Charge(s, c->last, from->first, from->firstPrev);
	    c->last = from->last;
	}
    }
    if (s->cpus.numEntries > s->limit || s->threads.numEntries > s->limit) {
	Rb_AnalyzerError(a, "RUBICON LIMIT KEYS", "%s: more than -limit %"
		PRId64 " CPUs or threads in the merged shards (raise -limit)",
		a->cls->name, s->limit);
	return TCL_ERROR;
    }
    return TCL_OK;
}

typedef struct Row {
    int64_t thread;
    const char *name;		/* A text thread's text, else NULL. */
    const ThreadUse *use;
} Row;

/* Threads by number, or text threads by text (the ids of text are
 * numbered in another order by each process of a split run). */
static int
CompareRows(const void *x, const void *y)
{
    const Row *a = x, *b = y;

    if (a->name != NULL) {
	return strcmp(a->name, b->name);
    }
    return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/*
 * ThreadCpuEnd --
 *	Sets ThreadCpu (thread, cpu in s, switches in, by thread), BusyCpu
 *	and IdleCpu (s).
 */
static int
ThreadCpuEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ThreadCpuState *s = a->state;
    int isText = s->schema->fields[s->fPrev].type == RB_FT_STRING;
    Rb_Attribute *table = Rb_AttrCreate("ThreadCpu", RB_ATTR_TABLE, "s",
	    "CPU time of each thread from context switches");
    Row *rows = Rb_AllocArray(s->threads.numEntries, sizeof(Row));
    Tcl_HashSearch hs;
    Tcl_HashEntry *e;
    int n = 0, k;

    Rb_AttrAddColumn(table, "thread", "", 1);
    Rb_AttrAddColumn(table, "cpu", "s", 0);
    Rb_AttrAddColumn(table, "switchesIn", "", 0);
    for (e = Tcl_FirstHashEntry(&s->threads, &hs); e;
	    e = Tcl_NextHashEntry(&hs)) {
	rows[n].thread = (int64_t)(intptr_t)Tcl_GetHashKey(&s->threads, e);
	rows[n].name = isText ? Rb_SchemaString(s->schema, rows[n].thread)
		: NULL;
	rows[n++].use = Tcl_GetHashValue(e);
    }
    qsort(rows, n, sizeof(Row), CompareRows);
    for (k = 0; k < n; k++) {
	int r = Rb_AttrAddRow(table);
	char buf[32];

	if (isText) {
	    Rb_AttrSetText(table, r, 0, rows[k].name);
	} else {
	    snprintf(buf, sizeof(buf), "%lld", (long long)rows[k].thread);
	    Rb_AttrSetText(table, r, 0, buf);
	}
	Rb_AttrSetNum(table, r, 1, rows[k].use->ns / 1e9);
	Rb_AttrSetNum(table, r, 2, (double)rows[k].use->switchesIn);
    }
    free(rows);
    Rb_AnalyzerSet(a, table);
    Rb_AnalyzerSet(a, Rb_AttrScalar("BusyCpu", s->busyNs / 1e9, "s",
	    "CPU time of every non-idle thread"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("IdleCpu", s->idleNs / 1e9, "s",
	    "CPU time of the idle thread"));
    return TCL_OK;
}

static void
ThreadCpuFree(Rb_Analyzer *a)
{
    FreeTables(a->state);
}

const Rb_AnalyzerClass MgThreadCpuAnalyzerClass = {
    .name = "ThreadCpuAnalyzer",
    .help = "CPU time per thread from context-switch events",
    .stateSize = sizeof(ThreadCpuState),
    .options = threadCpuOptions,
    .attrs = threadCpuAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .start = ThreadCpuStart,
    .record = ThreadCpuRecord,
    .end = ThreadCpuEnd,
    .merge = ThreadCpuMerge,
    .freeState = ThreadCpuFree,
    .serialize = ThreadCpuSerialize,
    .deserialize = ThreadCpuDeserialize,
};
