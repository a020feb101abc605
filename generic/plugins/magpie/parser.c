/*
 * parser.c --
 *
 *	MagpieParserAnalyzer: the Magpie request parser.  Events, in
 *	timestamp order per machine, are joined into sets through shared
 *	attribute values while those values' valid-intervals are open: an
 *	attribute bound "start" opens an interval for its value, "stop"
 *	closes it, "basic" only joins.  Sets meeting through any value are
 *	merged (union-find, so joins are transitive).  A set with no open
 *	interval left can never grow: it is emitted as a request if it
 *	holds a seed (-begin) event (with -needend, and an -end event),
 *	else discarded and counted.  A set that no event has joined for
 *	-timeout of trace time is retired: its intervals are forgotten and
 *	it is emitted if it is a request, else counted (RetiredIncomplete).  Memory is therefore bounded by
 *	the sets in flight (-maxinflight) and the entries they hold
 *	(-maxevents), and with -timeout by the sets of the last -timeout.
 *
 *	CPU time comes from context switches: the time a CPU spends between
 *	two accounting points is charged to the set the running thread is
 *	bound to (the open interval of the thread's value), or, inside an
 *	interrupt-like context (-intrbegin .. -intrend on that CPU), to the
 *	set that context joined.  Disk and network bytes come from the
 *	attributes the schema names with -disk and -net.
 */

#include <limits.h>
#include <stdlib.h>
#include "plugins/magpie/magpie.h"

typedef struct Set {
    int parent;			/* Union-find parent; -1 when free. */
    int nextMember;		/* Members of a root, for freeing. */
    int lastMember;
    int open;			/* Intervals and contexts holding it. */
    int begin, end;
    int64_t machine;
    int64_t label;
    int64_t lastTime;		/* Its latest entry's time, ns. */
    int64_t cpuNs, diskOps, diskBytes, netPkts, netBytes;
    MgEvent *ev;		/* Its events and CPU charges. */
    int nev, capEv;
} Set;

typedef struct CpuState {
    int64_t thread;		/* Running thread, RB_ABSENT if unknown. */
    int64_t last;		/* Last accounting point, or RB_ABSENT. */
    int intrSet;		/* Set of the interrupt context, or -1. */
    uint64_t intrCtx;		/* Its id: record number of its begin. */
} CpuState;

/* Hash keys of three slots: machine, domain or 0, value. */
typedef struct Key3 {
    int64_t machine, domain, value;
} Key3;

#define KEY3_WORDS ((int)(sizeof(Key3) / sizeof(int)))

/* Hash key of one half of a packet of a stitch statement: which
 * statement, which half (0 sent, 1 received), the attribute values. */
typedef struct PacketKey {
    int64_t stitch, half, value[MG_MAX_STITCH_ATTRS];
} PacketKey;

#define PACKET_WORDS ((int)(sizeof(PacketKey) / sizeof(int)))

/* A packet half waiting for the other: the set it holds open, and its
 * event (where the request's hop entry goes when it is the reception). */
typedef struct PacketHalf {
    int set;
    int intr;
    uint64_t recNo;
    int64_t time, machine, thread;
} PacketHalf;

typedef struct ParserState {
    char *schemaName;		/* -schema */
    char *idle;			/* -idle */
    char *labelAttr;		/* -label */
    int64_t maxInFlight;	/* -maxinflight */
    int64_t maxEvents;		/* -maxevents */
    int64_t keep;		/* -keep */
    double threshold;		/* -threshold */
    int64_t cpuUnit;		/* -cpuunit, ns */
    int64_t byteUnit;		/* -byteunit */
    int64_t outliers;		/* -outliers */
    int64_t maxClusters;	/* -maxclusters */
    int64_t timeout;		/* -timeout ns, 0: none */
    int needEnd;		/* -needend: a request needs an end event */
    int64_t nextSweep;		/* Trace time of the next idle check. */
    uint64_t retired;		/* Sets retired by -timeout unended. */
    uint64_t retiredEmitted;	/* ... and emitted as requests. */

    MgSchema *mg;
    Rb_Schema *rec;
    int fMachine, fEvent, fLabel;
    int64_t idleValue;
    int *typeOf;		/* String id -> event type + 1. */
    int ntypeOf;

    Set *sets;
    int nsets, capSets, freeList;
    int inFlight, peakInFlight;
    int64_t held;		/* Entries of the sets in flight. */
    int tablesInit;
    MgKeyMap intervals;		/* open interval -> set index */
    Tcl_HashTable cpus;		/* Key3 {machine 0 cpu} -> CpuState */
    MgKeyMap running;		/* {machine 0 thread} -> its CpuState */
    Tcl_HashTable packets;	/* PacketKey -> PacketHalf */

    uint64_t events, unknown, complete, incomplete, discardedEvents;
    int64_t busyNs, accountedNs;
    uint64_t stitched;		/* Packets whose halves were matched. */
    uint64_t curRec;		/* Record being processed. */
    int failed;

    Rb_Attribute *requests;	/* Rows of emitted requests. */
    MgRequest *kept;		/* The requests listed, with their events. */
    int nkept;
    MgEvent *points;		/* Scratch: events with sync points. */
    int pointsCap;
    MgToken *tokens;		/* Scratch: a canonical form. */
    int tokensCap;
    MgClusterer *clusterer;
    int tooManyClusters;	/* A request found no cluster (-maxclusters). */
} ParserState;

static const Rb_Option parserOptions[] = {
    {"-schema", RB_OPT_STRING, offsetof(ParserState, schemaName), "",
     "the magpie::schema to parse by"},
    {"-idle", RB_OPT_STRING, offsetof(ParserState, idle), "0",
     "id of the idle thread (its CPU time is not busy)"},
    {"-label", RB_OPT_STRING, offsetof(ParserState, labelAttr), "",
     "attribute whose value on the begin event labels a request"},
    {"-maxinflight", RB_OPT_INT, offsetof(ParserState, maxInFlight),
     "1000000", "most event sets open at once before the run fails"},
    {"-maxevents", RB_OPT_INT, offsetof(ParserState, maxEvents),
     "1000000", "most events and CPU charges held by the sets in flight "
     "before the run fails"},
    {"-keep", RB_OPT_INT, offsetof(ParserState, keep), "1000",
     "most requests listed in the Requests table (all are counted)"},
    {"-threshold", RB_OPT_DOUBLE, offsetof(ParserState, threshold), "0.1",
     "a request joins the nearest cluster within this fraction of the "
     "larger form's distance from the null request"},
    {"-cpuunit", RB_OPT_TIME, offsetof(ParserState, cpuUnit), "0.001",
     "CPU time weighing as much as one event in the edit distance"},
    {"-byteunit", RB_OPT_INT, offsetof(ParserState, byteUnit), "8192",
     "bytes weighing as much as one event in the edit distance"},
    {"-outliers", RB_OPT_INT, offsetof(ParserState, outliers), "1",
     "requests of clusters at most this large are listed as outliers"},
    {"-maxclusters", RB_OPT_INT, offsetof(ParserState, maxClusters),
     "1000", "most clusters before the run fails"},
    {"-timeout", RB_OPT_TIME, offsetof(ParserState, timeout), "0",
     "retire an event set no event has joined for this long (trace "
     "time; 0: never)"},
    {"-needend", RB_OPT_BOOL, offsetof(ParserState, needEnd), "0",
     "a request needs an end event besides its seed (begin) event"},
    {NULL}
};

static const char *const parserAttrs[] = {
    "Requests", "RequestCount", "IncompleteSets", "DiscardedEvents",
    "UnknownEvents", "CpuAccountedFraction", "BusyCpu", "PeakInFlight",
    "StitchedPackets", "UnmatchedPackets", "Clusters", "ClusterCount",
    "MeanDiameter", "MeanSeparation",
    "Outliers", "WorkloadModel", "ModelError", "RetiredIncomplete",
    "RetiredRequests", NULL
};

enum {
    COL_ID, COL_MACHINE, COL_LABEL, COL_BEGIN, COL_END, COL_LATENCY,
    COL_CPU, COL_DISKOPS, COL_DISKBYTES, COL_NETPKTS, COL_NETBYTES,
    COL_NEVENTS, COL_EVENTS, COL_CLUSTER, COL_CANONICAL
};

/*
 * NewRequestsTable --
 *	The empty Requests table with its columns.
 */
static Rb_Attribute *
NewRequestsTable(void)
{
    Rb_Attribute *t = Rb_AttrCreate("Requests", RB_ATTR_TABLE, "",
	    "each request extracted: times, resources, its events");

    Rb_AttrAddColumn(t, "id", "", 0);
    Rb_AttrAddColumn(t, "machine", "", 1);
    Rb_AttrAddColumn(t, "label", "", 1);
    Rb_AttrAddColumn(t, "begin", "s", 0);
    Rb_AttrAddColumn(t, "end", "s", 0);
    Rb_AttrAddColumn(t, "latency", "s", 0);
    Rb_AttrAddColumn(t, "cpu", "s", 0);
    Rb_AttrAddColumn(t, "diskOps", "", 0);
    Rb_AttrAddColumn(t, "diskBytes", "bytes", 0);
    Rb_AttrAddColumn(t, "netPackets", "", 0);
    Rb_AttrAddColumn(t, "netBytes", "bytes", 0);
    Rb_AttrAddColumn(t, "nevents", "", 0);
    Rb_AttrAddColumn(t, "events", "", 1);
    Rb_AttrAddColumn(t, "cluster", "", 0);
    Rb_AttrAddColumn(t, "canonical", "", 1);
    return t;
}

/*
 * FreeRun --
 *	Frees everything a run built (sets, tables, the schema reference).
 */
static void
FreeRun(ParserState *s)
{
    Tcl_HashSearch hs;
    Tcl_HashEntry *e;
    int i;

    for (i = 0; i < s->nsets; i++) {
	if (s->sets[i].ev) {
	    free(s->sets[i].ev);
	}
    }
    if (s->sets) {
	free(s->sets);
    }
    s->sets = NULL;
    s->nsets = s->capSets = 0;
    if (s->tablesInit) {
	for (e = Tcl_FirstHashEntry(&s->cpus, &hs); e;
		e = Tcl_NextHashEntry(&hs)) {
	    free(Tcl_GetHashValue(e));
	}
	MgKeyMapFree(&s->intervals);
	Tcl_DeleteHashTable(&s->cpus);
	MgKeyMapFree(&s->running);
	for (e = Tcl_FirstHashEntry(&s->packets, &hs); e;
		e = Tcl_NextHashEntry(&hs)) {
	    free(Tcl_GetHashValue(e));
	}
	Tcl_DeleteHashTable(&s->packets);
	s->tablesInit = 0;
    }
    if (s->typeOf) {
	free(s->typeOf);
    }
    s->typeOf = NULL;
    s->ntypeOf = 0;
    if (s->requests) {
	Rb_AttrFree(s->requests);
	s->requests = NULL;
    }
    for (i = 0; i < s->nkept; i++) {
	free(s->kept[i].ev);
    }
    if (s->kept) {
	free(s->kept);
    }
    s->kept = NULL;
    s->nkept = 0;
    if (s->points) {
	free(s->points);
    }
    s->points = NULL;
    s->pointsCap = 0;
    if (s->tokens) {
	free(s->tokens);
    }
    s->tokens = NULL;
    s->tokensCap = 0;
    MgClustererFree(s->clusterer);
    s->clusterer = NULL;
    MgSchemaRelease(s->mg);
    s->mg = NULL;
}

/*
 * ParserStart --
 *	Finds the schema, checks the run's records are Magpie events (time,
 *	machine, event ...) of it, and maps the interned event names to
 *	event types.
 */
static int
ParserStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ParserState *s = a->state;
    int i;

    FreeRun(s);
    if (!(s->threshold >= 0) || s->cpuUnit <= 0 || s->byteUnit <= 0
	    || s->outliers < 0 || s->keep < 0 || s->maxClusters < 1
	    || s->timeout < 0) {
	Rb_AnalyzerError(a, "RUBICON MAGPIE OPTION", "-threshold, "
		"-outliers, -keep and -timeout must not be negative, "
		"-cpuunit, -byteunit and -maxclusters must be positive");
	return TCL_ERROR;
    }
    if (run->schema->nfields < 3
	    || strcmp(run->schema->fields[1].name, "machine") != 0
	    || strcmp(run->schema->fields[2].name, "event") != 0) {
	char *known = Rb_SchemaFieldList(run->schema);

	Rb_AnalyzerError(a, "RUBICON ANALYZER SCHEMA", "%s reads Magpie "
		"events, not records of schema \"%s\" (its fields: %s); run "
		"it on a Magpie event log", a->cls->name, run->schema->name,
		known);
	free(known);
	return TCL_ERROR;
    }
    s->mg = MgSchemaFind(s->schemaName);
    if (s->mg == NULL) {
	Rb_AnalyzerError(a, "RUBICON MAGPIE SCHEMA", "no Magpie schema "
		"\"%s\" (give -schema, defined by magpie::schema)",
		s->schemaName);
	return TCL_ERROR;
    }
    s->rec = run->schema;
    if (Rb_AnalyzerField(a, run, "machine", &s->fMachine) != TCL_OK
	    || Rb_AnalyzerField(a, run, "event", &s->fEvent) != TCL_OK) {
	return TCL_ERROR;
    }
    if (run->schema != s->mg->rec) {
	Rb_AnalyzerError(a, "RUBICON MAGPIE SCHEMA", "the records are not "
		"of Magpie schema \"%s\" (read them with -readeroptions "
		"{schema %s})", s->schemaName, s->schemaName);
	return TCL_ERROR;
    }
    s->fLabel = -1;
    if (*s->labelAttr && Rb_AnalyzerField(a, run, s->labelAttr,
	    &s->fLabel) != TCL_OK) {
	return TCL_ERROR;
    }
    /* The idle id is compared as the switch events' thread field is typed. */
    s->idleValue = strtoll(s->idle, NULL, 10);
    for (i = 0; i < s->mg->nevents; i++) {
	const MgEventType *ev = &s->mg->events[i];
	int64_t id = Rb_SchemaIntern(run->schema, ev->name,
		strlen(ev->name));

	if (ev->cswitchNew >= 0) {
	    s->idleValue = run->schema->fields[ev->cswitchNew].type
		    == RB_FT_INT ? strtoll(s->idle, NULL, 10)
		    : Rb_SchemaIntern(run->schema, s->idle, strlen(s->idle));
	}
	if (id >= s->ntypeOf) {
	    int n = (int)id + 64;

	    s->typeOf = Rb_ReallocArray(s->typeOf, n, sizeof(int));
	    memset(s->typeOf + s->ntypeOf, 0, (n - s->ntypeOf) * sizeof(int));
	    s->ntypeOf = n;
	}
	s->typeOf[id] = i + 1;
    }
    Tcl_InitHashTable(&s->cpus, KEY3_WORDS);
    Tcl_InitHashTable(&s->packets, PACKET_WORDS);
    s->tablesInit = 1;
    s->freeList = -1;
    s->inFlight = s->peakInFlight = 0;
    s->held = 0;
    s->events = s->unknown = s->complete = s->incomplete = 0;
    s->discardedEvents = 0;
    s->busyNs = s->accountedNs = 0;
    s->stitched = 0;
    s->retired = s->retiredEmitted = 0;
    s->nextSweep = RB_ABSENT;
    s->failed = 0;
    s->requests = NewRequestsTable();
    {
	MgCost cost;

	cost.cpuUnit = (double)s->cpuUnit;
	cost.byteUnit = (double)s->byteUnit;
	s->clusterer = MgClustererNew(s->mg, &cost, s->threshold,
		(int)(s->outliers < 1000 ? s->outliers : 1000),
		s->maxClusters < INT_MAX ? (int)s->maxClusters : INT_MAX);
	s->tooManyClusters = 0;
    }
    return TCL_OK;
}

/*
 * Find --
 *	The root of set x, compressing the path.
 */
static int
Find(ParserState *s, int x)
{
    int root = x;

    while (s->sets[root].parent != root) {
	root = s->sets[root].parent;
    }
    while (s->sets[x].parent != root) {
	int next = s->sets[x].parent;

	s->sets[x].parent = root;
	x = next;
    }
    return root;
}

/*
 * NewSet --
 *	A fresh root set on machine, from the free list or the array end.
 */
static int
NewSet(ParserState *s, int64_t machine)
{
    int x;
    Set *set;

    if (s->freeList >= 0) {
	x = s->freeList;
	s->freeList = s->sets[x].nextMember;
    } else {
	if (s->nsets == s->capSets) {
	    s->capSets = s->capSets ? 2 * s->capSets : 256;
	    s->sets = Rb_ReallocArray(s->sets, s->capSets, sizeof(Set));
	}
	x = s->nsets++;
	s->sets[x].ev = NULL;
	s->sets[x].capEv = 0;
    }
    set = &s->sets[x];
    {
	MgEvent *ev = set->ev;
	int cap = set->capEv;

	memset(set, 0, sizeof(*set));
	set->ev = ev;
	set->capEv = cap;
    }
    set->parent = x;
    set->nextMember = -1;
    set->lastMember = x;
    set->machine = machine;
    set->label = RB_ABSENT;
    set->lastTime = INT64_MIN;
    if (++s->inFlight > s->peakInFlight) {
	s->peakInFlight = s->inFlight;
    }
    return x;
}

/*
 * Reserve --
 *	Makes room for n more entries in set x.
 */
static void
Reserve(ParserState *s, int x, int n)
{
    Set *set = &s->sets[x];

    if (set->nev + n > set->capEv) {
	while (set->nev + n > set->capEv) {
	    set->capEv = set->capEv ? 2 * set->capEv : 16;
	}
	set->ev = Rb_ReallocArray(set->ev, set->capEv, sizeof(MgEvent));
    }
}

/*
 * AddEntry --
 *	Appends an event or a CPU charge to root set x, on a thread (or an
 *	interrupt context if intr) of a machine.
 * Results: the entry, its amount 0 and its sync value absent.
 */
static MgEvent *
AddEntry(ParserState *s, int x, MgKind kind, uint64_t recNo, int64_t t,
	int type, int64_t machine, int64_t thread, int intr)
{
    MgEvent *e;

    Reserve(s, x, 1);
    s->held++;
    e = &s->sets[x].ev[s->sets[x].nev++];
    if (t != RB_ABSENT && t > s->sets[x].lastTime) {
	s->sets[x].lastTime = t;
    }
    e->recNo = recNo;
    e->time = t;
    e->machine = machine;
    e->thread = thread;
    e->amount = 0;
    e->syncVal = RB_ABSENT;
    e->type = type;
    e->kind = (unsigned char)kind;
    e->intr = (unsigned char)intr;
    return e;
}

/*
 * Union --
 *	Merges the sets of roots a and b.
 * Results: the surviving root (the one holding more events, so fewer
 *	are copied).
 */
static int
Union(ParserState *s, int a, int b)
{
    Set *ra, *rb;

    if (a == b) {
	return a;
    }
    if (s->sets[a].nev < s->sets[b].nev) {
	int tmp = a;

	a = b;
	b = tmp;
    }
    Reserve(s, a, s->sets[b].nev);
    memcpy(s->sets[a].ev + s->sets[a].nev, s->sets[b].ev,
	    s->sets[b].nev * sizeof(MgEvent));
    s->sets[a].nev += s->sets[b].nev;
    ra = &s->sets[a];
    rb = &s->sets[b];
    /* A request stitched across machines is named by the machine it
     * began on. */
    if (!ra->begin && rb->begin) {
	ra->machine = rb->machine;
    }
    ra->open += rb->open;
    if (rb->lastTime > ra->lastTime) {
	ra->lastTime = rb->lastTime;
    }
    ra->begin |= rb->begin;
    ra->end |= rb->end;
    if (ra->label == RB_ABSENT) {
	ra->label = rb->label;
    }
    ra->cpuNs += rb->cpuNs;
    ra->diskOps += rb->diskOps;
    ra->diskBytes += rb->diskBytes;
    ra->netPkts += rb->netPkts;
    ra->netBytes += rb->netBytes;
    rb->nev = 0;
    rb->parent = a;
    s->sets[ra->lastMember].nextMember = b;
    ra->lastMember = rb->lastMember;
    s->inFlight--;
    return a;
}

/*
 * FreeSet --
 *	Returns root x and every set merged into it to the free list.
 */
static void
FreeSet(ParserState *s, int x)
{
    int m = x;

    s->inFlight--;
    s->held -= s->sets[x].nev;	/* Its members hold none. */
    while (m >= 0) {
	int next = s->sets[m].nextMember;

	s->sets[m].parent = -1;
	s->sets[m].nev = 0;
	s->sets[m].nextMember = s->freeList;
	s->freeList = m;
	m = next;
    }
}

/*
 * CompareEntries --
 *	Record order; at one record, CPU charged up to it comes first, then
 *	a packet hop received there, then the event; charges to different
 *	threads in thread order.
 */
static int
CompareEntries(const void *x, const void *y)
{
    const MgEvent *a = x, *b = y;
    int ra = a->kind == MG_CPU ? 0 : a->kind == MG_HOP ? 1 : 2;
    int rb = b->kind == MG_CPU ? 0 : b->kind == MG_HOP ? 1 : 2;

    if (a->recNo != b->recNo) {
	return a->recNo < b->recNo ? -1 : 1;
    }
    if (ra != rb) {
	return ra - rb;
    }
    if (a->machine != b->machine) {
	return a->machine < b->machine ? -1 : 1;
    }
    if (a->intr != b->intr) {
	return a->intr - b->intr;
    }
    return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/*
 * SortEntries --
 *	Puts n entries in the order of CompareEntries, keeping entries that
 *	compare equal in their order.  A set's entries are runs already in
 *	order, one per merged set, and most requests have a few dozen: an
 *	insertion sort is then cheaper than qsort's merge sort (stable too,
 *	so the result is the same).
 */
static void
SortEntries(MgEvent *ev, int n)
{
    int i, j;

    if (n > 64) {
	qsort(ev, n, sizeof(MgEvent), CompareEntries);
	return;
    }
    for (i = 1; i < n; i++) {
	MgEvent e = ev[i];

	for (j = i; j > 0 && CompareEntries(&ev[j - 1], &e) > 0; j--) {
	    ev[j] = ev[j - 1];
	}
	ev[j] = e;
    }
}

/*
 * MgThreadField --
 *	A record field of the schema's thread domain (its values all have
 *	that field's type), or -1.
 */
int
MgThreadField(const MgSchema *mg)
{
    int f;

    for (f = 0; f < mg->rec->nfields; f++) {
	if (mg->threadDomain >= 0 && mg->fieldDomain[f] == mg->threadDomain) {
	    return f;
	}
    }
    return -1;
}

/*
 * LabelText --
 *	The text of a request's label, or NULL if it has none.
 */
static const char *
LabelText(const ParserState *s, int64_t label, char *buf, size_t size)
{
    if (label == RB_ABSENT) {
	return NULL;
    }
    if (s->rec->fields[s->fLabel].type == RB_FT_STRING) {
	return Rb_SchemaString(s->rec, label);
    }
    snprintf(buf, size, "%lld", (long long)label);
    return buf;
}

/*
 * AddRow --
 *	Lists request r, of canonical form text, in the Requests table and
 *	keeps a copy of it with its events for MgParserRequest.
 */
static void
AddRow(ParserState *s, const MgRequest *r, const char *label,
	const char *text)
{
    Rb_Attribute *t = s->requests;
    Tcl_DString ids;
    MgRequest *copy;
    int64_t first = INT64_MAX, last = INT64_MIN;
    int row, k, nev;

    for (k = 0; k < r->nev; k++) {
	const MgEvent *e = &r->ev[k];

	/* Begin and end are of the request's own machine's clock (a
	 * stitched request's other machines keep theirs). */
	if (e->kind == MG_EVENT && e->machine == r->machine) {
	    first = e->time < first ? e->time : first;
	    last = e->time > last ? e->time : last;
	}
    }
    Tcl_DStringInit(&ids);
    nev = MgRequestEvents(r, &ids);
    row = Rb_AttrAddRow(t);
    Rb_AttrSetNum(t, row, COL_ID, (double)r->id);
    Rb_AttrSetText(t, row, COL_MACHINE, Rb_SchemaString(s->rec,
	    r->machine));
    if (label != NULL) {
	Rb_AttrSetText(t, row, COL_LABEL, label);
    }
    Rb_AttrSetNum(t, row, COL_BEGIN, first / 1e9);
    Rb_AttrSetNum(t, row, COL_END, last / 1e9);
    Rb_AttrSetNum(t, row, COL_LATENCY, (last - first) / 1e9);
    Rb_AttrSetNum(t, row, COL_CPU, r->cpuNs / 1e9);
    Rb_AttrSetNum(t, row, COL_DISKOPS, (double)r->diskOps);
    Rb_AttrSetNum(t, row, COL_DISKBYTES, (double)r->diskBytes);
    Rb_AttrSetNum(t, row, COL_NETPKTS, (double)r->netPkts);
    Rb_AttrSetNum(t, row, COL_NETBYTES, (double)r->netBytes);
    Rb_AttrSetNum(t, row, COL_NEVENTS, nev);
    Rb_AttrSetText(t, row, COL_EVENTS, Tcl_DStringValue(&ids));
    Rb_AttrSetNum(t, row, COL_CLUSTER, r->cluster + 1);
    Rb_AttrSetText(t, row, COL_CANONICAL, text);
    Tcl_DStringFree(&ids);

    s->kept = Rb_ReallocArray(s->kept, s->nkept + 1, sizeof(MgRequest));
    copy = &s->kept[s->nkept++];
    *copy = *r;
    copy->ev = Rb_AllocArray(r->nev, sizeof(MgEvent));
    memcpy(copy->ev, r->ev, r->nev * sizeof(MgEvent));
}

/*
 * Emit --
 *	A complete request: puts its entries in record order, inserts its
 *	sync points, derives its canonical form, clusters it, and lists it
 *	in the Requests table while under -keep.
 */
static void
Emit(ParserState *s, int x)
{
    Set *set = &s->sets[x];
    MgRequest req;
    Tcl_DString text;
    const char *label;
    char buf[32];
    int n;

    s->complete++;
    s->accountedNs += set->cpuNs;
    SortEntries(set->ev, set->nev);
    memset(&req, 0, sizeof(req));
    req.id = (int64_t)s->complete;
    req.machine = set->machine;
    req.label = set->label;
    req.cpuNs = set->cpuNs;
    req.diskOps = set->diskOps;
    req.diskBytes = set->diskBytes;
    req.netPkts = set->netPkts;
    req.netBytes = set->netBytes;
    req.nev = set->nev;
    req.ev = set->ev;
    MgInsertSyncPoints(s->mg, &req, &s->points, &s->pointsCap);
    n = MgCanonical(s->mg, &req, &s->tokens, &s->tokensCap);
    Tcl_DStringInit(&text);
    MgTokensString(s->mg, s->tokens, n, &text);
    label = LabelText(s, req.label, buf, sizeof(buf));
    req.cluster = MgClustererAdd(s->clusterer, &req, s->tokens, n,
	    Tcl_DStringValue(&text), label);
    if (req.cluster < 0) {
	s->tooManyClusters = 1;
    }
    if ((int64_t)s->requests->nrows < s->keep) {
	AddRow(s, &req, label, Tcl_DStringValue(&text));
    }
    Tcl_DStringFree(&text);
}

/*
 * MgParserRequest --
 *	Request id of a MagpieParserAnalyzer's last run, with its events
 *	and sync points, if it was listed (-keep); else NULL.
 */
const MgRequest *
MgParserRequest(const Rb_Analyzer *a, int64_t id)
{
    const ParserState *s;

    if (a == NULL || a->cls != &MgParserAnalyzerClass) {
	return NULL;
    }
    s = a->state;
    return id >= 1 && id <= s->nkept ? &s->kept[id - 1] : NULL;
}

/*
 * MgParserSchema --
 *	The Magpie schema of a MagpieParserAnalyzer's last run, or NULL.
 */
const MgSchema *
MgParserSchema(const Rb_Analyzer *a)
{
    return a != NULL && a->cls == &MgParserAnalyzerClass
	    ? ((const ParserState *)a->state)->mg : NULL;
}

/*
 * CountEvents --
 *	The events of a set (its CPU charges aside).
 */
static uint64_t
CountEvents(const Set *set)
{
    uint64_t n = 0;
    int k;

    for (k = 0; k < set->nev; k++) {
	n += set->ev[k].kind == MG_EVENT;
    }
    return n;
}

/*
 * IsRequest --
 *	Whether a set that can grow no more is a request: it holds the
 *	seed event (Magpie section 3.2: an event that occurs only and
 *	always within a request; here the schema's -begin events), and
 *	with -needend an -end event too.
 */
static int
IsRequest(const ParserState *s, const Set *set)
{
    return set->begin && (set->end || !s->needEnd);
}

/*
 * Settle --
 *	Called when root x may have lost its last open interval: a set
 *	nothing holds open is emitted if it began and ended, else
 *	discarded; either way it is freed.
 */
static void
Settle(ParserState *s, int x)
{
    Set *set = &s->sets[x];

    if (set->parent != x || set->open > 0) {
	return;
    }
    if (IsRequest(s, set)) {
	Emit(s, x);
    } else {
	s->incomplete++;
	s->discardedEvents += CountEvents(set);
    }
    FreeSet(s, x);
}

static Key3
MakeKey(int64_t machine, int64_t domain, int64_t value)
{
    Key3 k;

    memset(&k, 0, sizeof(k));
    k.machine = machine;
    k.domain = domain;
    k.value = value;
    return k;
}

/*
 * Bound --
 *	The root set holding the open interval of (domain, value) on
 *	machine, or -1.
 */
static int
Bound(ParserState *s, int64_t machine, int domain, int64_t value)
{
    MgKeySlot *e = MgKeyMapFind(&s->intervals, machine, domain, value);

    return e ? Find(s, (int)e->data) : -1;
}

/*
 * Cpu --
 *	The state of a CPU of a machine, made on first sight.
 */
static CpuState *
Cpu(ParserState *s, int64_t machine, int64_t cpu)
{
    Key3 k = MakeKey(machine, 0, cpu);
    int isNew;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(&s->cpus, (char *)&k, &isNew);

    if (isNew) {
	CpuState *c = Rb_Alloc(sizeof(CpuState));

	c->thread = RB_ABSENT;
	c->last = RB_ABSENT;
	c->intrSet = -1;
	Tcl_SetHashValue(e, c);
    }
    return Tcl_GetHashValue(e);
}

/*
 * Charge --
 *	Charges the CPU's time since its last accounting point to the
 *	interrupt context's set, else to the set its running thread is
 *	bound to; the time counts as busy unless the idle thread ran.
 */
static void
Charge(ParserState *s, int64_t machine, CpuState *c, int64_t t)
{
    int target = -1;
    int64_t d;

    if (c->last != RB_ABSENT && t > c->last) {
	d = t - c->last;
	if (c->intrSet >= 0) {
	    target = Find(s, c->intrSet);
	    s->busyNs += d;
	} else if (c->thread != RB_ABSENT && c->thread != s->idleValue) {
	    s->busyNs += d;
	    if (s->mg->threadDomain >= 0) {
		target = Bound(s, machine, s->mg->threadDomain, c->thread);
	    }
	}
	if (target >= 0) {
	    MgEvent *e = AddEntry(s, target, MG_CPU, s->curRec, t, -1,
		    machine, c->intrSet >= 0 ? (int64_t)c->intrCtx : c->thread,
		    c->intrSet >= 0);

	    e->amount = d;
	    s->sets[target].cpuNs += d;
	}
    }
    if (c->last == RB_ABSENT || t > c->last) {
	c->last = t;
    }
}

/*
 * ChargeThread --
 *	Before a thread's binding changes: charges the CPU it is running
 *	on (if any) up to t, so time before the change goes to the old
 *	binding.
 */
static void
ChargeThread(ParserState *s, int64_t machine, int64_t thread, int64_t t)
{
    MgKeySlot *e = MgKeyMapFind(&s->running, machine, 0, thread);

    if (e != NULL) {
	Charge(s, machine, (CpuState *)e->data, t);
    }
}

/*
 * ContextSwitch --
 *	Charges the CPU up to the switch, records the new running thread,
 *	and adds the event to the sets of both threads' bindings.
 */
static void
ContextSwitch(ParserState *s, const MgEventType *ev, int type,
	const Rb_Batch *b, int i, int64_t machine, int64_t t)
{
    int64_t cpu = b->col[ev->cswitchCpu][i];
    int64_t old = b->col[ev->cswitchOld][i], nw = b->col[ev->cswitchNew][i];
    uint64_t recNo = b->firstRecord + i;
    CpuState *c;
    MgKeySlot *e;
    int so, sn, isNew;

    if (cpu == RB_ABSENT) {
	return;
    }
    c = Cpu(s, machine, cpu);
    Charge(s, machine, c, t);
    if (c->thread != RB_ABSENT) {
	e = MgKeyMapFind(&s->running, machine, 0, c->thread);
	if (e != NULL && (CpuState *)e->data == c) {
	    MgKeyMapDelete(&s->running, e);
	}
    }
    c->thread = nw;
    if (nw != RB_ABSENT && nw != s->idleValue) {
	e = MgKeyMapPut(&s->running, machine, 0, nw, &isNew);
	e->data = (intptr_t)c;
    }
    if (s->mg->threadDomain < 0) {
	return;
    }
    so = old == RB_ABSENT ? -1 : Bound(s, machine, s->mg->threadDomain, old);
    sn = nw == RB_ABSENT ? -1 : Bound(s, machine, s->mg->threadDomain, nw);
    if (so >= 0) {
	AddEntry(s, so, MG_EVENT, recNo, t, type, machine, old, 0);
    }
    if (sn >= 0 && sn != so) {
	AddEntry(s, sn, MG_EVENT, recNo, t, type, machine, nw, 0);
    }
}

/*
 * Release --
 *	Drops one hold on the set that x belongs to; remembers its root in
 *	settle[] so it can be settled once the event is done.
 */
static void
Release(ParserState *s, int x, int *settle, int *nsettle)
{
    int root = Find(s, x);

    s->sets[root].open--;
    settle[(*nsettle)++] = root;
}

/*
 * Stitch --
 *	Cross-machine stitching: the event, record i of b, is one half of
 *	a packet of stitch statement k (sent when isTx).  If the other half
 *	has been seen, on any machine and in either order (the machines'
 *	clocks differ), the two halves' sets are merged and the other
 *	half's hold is dropped; otherwise this half holds its set open
 *	until the other comes.  An event lacking an attribute of the
 *	statement is no packet half.  A matched packet adds an MG_HOP entry
 *	to the request at its reception, naming the sending record.
 * Results: the root of the event's set.
 */
static int
Stitch(ParserState *s, int k, int isTx, const Rb_Batch *b, int i,
	int64_t machine, int64_t thread, int intr, int target, int *settle,
	int *nsettle)
{
    const MgStitch *st = &s->mg->stitches[k];
    uint64_t recNo = b->firstRecord + i;
    PacketKey key;
    PacketHalf *h;
    MgEvent *hop;
    Tcl_HashEntry *e;
    int j, isNew;

    memset(&key, 0, sizeof(key));
    key.stitch = k;
    for (j = 0; j < st->nfields; j++) {
	key.value[j] = b->col[st->fields[j]][i];
	if (key.value[j] == RB_ABSENT) {
	    return target;
	}
    }
    key.half = isTx;		/* the other half: 1 received, 0 sent */
    e = Tcl_FindHashEntry(&s->packets, (char *)&key);
    if (e != NULL) {
	h = Tcl_GetHashValue(e);
	Tcl_DeleteHashEntry(e);
	target = Find(s, Union(s, target, Find(s, h->set)));
	Release(s, h->set, settle, nsettle);
	s->stitched++;
	if (isTx) {
	    hop = AddEntry(s, target, MG_HOP, h->recNo, h->time, st->tx,
		    h->machine, h->thread, h->intr);
	    hop->amount = (int64_t)recNo;
	} else {
	    hop = AddEntry(s, target, MG_HOP, recNo, b->col[0][i], st->tx,
		    machine, thread, intr);
	    hop->amount = (int64_t)h->recNo;
	}
	free(h);
	return target;
    }
    key.half = !isTx;		/* this half */
    e = Tcl_CreateHashEntry(&s->packets, (char *)&key, &isNew);
    if (isNew) {
	Tcl_SetHashValue(e, Rb_Alloc(sizeof(PacketHalf)));
    } else {
	/* The same packet sent (or received) again: the newer holds. */
	Release(s, ((PacketHalf *)Tcl_GetHashValue(e))->set, settle,
		nsettle);
    }
    h = Tcl_GetHashValue(e);
    h->set = target;
    h->recNo = recNo;
    h->time = b->col[0][i];
    h->machine = machine;
    h->thread = thread;
    h->intr = intr;
    s->sets[target].open++;
    return target;
}

/*
 * Join --
 *	Processes an ordinary event: finds the sets its attribute values
 *	are open in, merges them (or starts a set), applies its start and
 *	stop bindings and interrupt context, and accounts its resources.
 */
static void
Join(ParserState *s, const MgEventType *ev, int type, const Rb_Batch *b,
	int i, int64_t machine, int64_t t)
{
    const MgSchema *mg = s->mg;
    int settle[2 * RB_MAX_FIELDS + 4 + MG_MAX_STITCHES], nsettle = 0;
    int target = -1, k, x;
    CpuState *c = NULL;
    int64_t thread = RB_ABSENT;
    int intr = 0;
    MgEvent *entry;

    for (k = 0; k < ev->njoins; k++) {
	const MgJoin *j = &ev->joins[k];
	int64_t v = b->col[j->field][i];

	if (v == RB_ABSENT) {
	    continue;
	}
	if (j->domain == mg->threadDomain && thread == RB_ABSENT) {
	    /* Charged up to every event of a thread, not only where its
	     * binding changes, so the canonical form knows the CPU the
	     * thread used between any two of its events. */
	    thread = v;
	    ChargeThread(s, machine, v, t);
	}
	if (j->binding == MG_START) {
	    continue;
	}
	x = Bound(s, machine, j->domain, v);
	if (x >= 0) {
	    target = target < 0 ? x : Union(s, Find(s, target), x);
	}
    }
    if (ev->intrBegin >= 0 && b->col[ev->intrBegin][i] != RB_ABSENT) {
	c = Cpu(s, machine, b->col[ev->intrBegin][i]);
	Charge(s, machine, c, t);
    }
    if (ev->intrEnd >= 0 && b->col[ev->intrEnd][i] != RB_ABSENT) {
	c = Cpu(s, machine, b->col[ev->intrEnd][i]);
	Charge(s, machine, c, t);
	if (c->intrSet >= 0) {
	    x = Find(s, c->intrSet);
	    target = target < 0 ? x : Union(s, Find(s, target), x);
	    thread = (int64_t)c->intrCtx;
	    intr = 1;
	}
    }
    target = target < 0 ? NewSet(s, machine) : Find(s, target);

    for (k = 0; k < ev->njoins; k++) {
	const MgJoin *j = &ev->joins[k];
	int64_t v = b->col[j->field][i];
	MgKeySlot *e;
	int isNew;

	if (v == RB_ABSENT || j->binding == MG_BASIC) {
	    continue;
	}
	if (j->binding == MG_START) {
	    e = MgKeyMapPut(&s->intervals, machine, j->domain, v, &isNew);
	    if (!isNew) {
		Release(s, (int)e->data, settle, &nsettle);
	    }
	    e->data = target;
	    s->sets[Find(s, target)].open++;
	} else {
	    e = MgKeyMapFind(&s->intervals, machine, j->domain, v);
	    if (e != NULL) {
		x = (int)e->data;
		MgKeyMapDelete(&s->intervals, e);
		Release(s, x, settle, &nsettle);
	    }
	}
    }
    if (ev->intrEnd >= 0 && c != NULL && c->intrSet >= 0) {
	Release(s, c->intrSet, settle, &nsettle);
	c->intrSet = -1;
    }
    if (ev->intrBegin >= 0 && c != NULL) {
	if (c->intrSet >= 0) {
	    Release(s, c->intrSet, settle, &nsettle);
	}
	c->intrSet = target;
	c->intrCtx = b->firstRecord + i;
	s->sets[target].open++;
	thread = (int64_t)c->intrCtx;
	intr = 1;
    }

    target = Find(s, target);
    entry = AddEntry(s, target, MG_EVENT, b->firstRecord + i, t, type,
	    machine, thread, intr);
    if (ev->syncField >= 0) {
	entry->syncVal = b->col[ev->syncField][i];
    }
    if (ev->begin) {
	s->sets[target].begin = 1;
	if (s->fLabel >= 0 && s->sets[target].label == RB_ABSENT) {
	    s->sets[target].label = b->col[s->fLabel][i];
	}
    }
    if (ev->end) {
	s->sets[target].end = 1;
    }
    if (ev->diskBytes >= 0 && b->col[ev->diskBytes][i] != RB_ABSENT) {
	entry->amount = b->col[ev->diskBytes][i];
	s->sets[target].diskOps++;
	s->sets[target].diskBytes += entry->amount;
    }
    if (ev->netBytes >= 0 && b->col[ev->netBytes][i] != RB_ABSENT) {
	entry->amount = b->col[ev->netBytes][i];
	s->sets[target].netPkts++;
	s->sets[target].netBytes += entry->amount;
    }
    /* Stitching merges sets, which may move the entry: it comes last. */
    for (k = 0; k < mg->nstitches; k++) {
	if (mg->stitches[k].tx == type || mg->stitches[k].rx == type) {
	    target = Stitch(s, k, mg->stitches[k].tx == type, b, i, machine,
		    thread, intr, target, settle, &nsettle);
	}
    }
    settle[nsettle++] = target;
    for (k = 0; k < nsettle; k++) {
	x = settle[k];
	if (s->sets[x].parent >= 0) {
	    Settle(s, Find(s, x));
	}
    }
}

/*
 * Biggest --
 *	The root set in flight holding the most entries.
 */
static int
Biggest(ParserState *s)
{
    int x, big = -1;

    for (x = 0; x < s->nsets; x++) {
	if (s->sets[x].parent == x
		&& (big < 0 || s->sets[x].nev > s->sets[big].nev)) {
	    big = x;
	}
    }
    return big;
}

/*
 * FirstRecord --
 *	The record number of a set's first event.
 */
static uint64_t
FirstRecord(const Set *set)
{
    uint64_t first = UINT64_MAX;
    int k;

    for (k = 0; k < set->nev; k++) {
	if (set->ev[k].recNo < first) {
	    first = set->ev[k].recNo;
	}
    }
    return first;
}

/*
 * Retire --
 *	Ends root set x though something may still hold it open: its open
 *	intervals, the interrupt contexts bound to it and its packet halves
 *	are forgotten, then it is emitted if it began and ended, else
 *	counted and discarded.
 */
static void
Retire(ParserState *s, int x)
{
    Tcl_HashSearch hs;
    Tcl_HashEntry *e;
    size_t i;

    if (s->intervals.slots != NULL) {
	for (i = 0; i <= s->intervals.mask; i++) {
	    /* A deletion may move a later entry into slot i: look again. */
	    while (s->intervals.slots[i].used
		    && Find(s, (int)s->intervals.slots[i].data) == x) {
		MgKeyMapDelete(&s->intervals, &s->intervals.slots[i]);
	    }
	}
    }
    for (e = Tcl_FirstHashEntry(&s->cpus, &hs); e;
	    e = Tcl_NextHashEntry(&hs)) {
	CpuState *c = Tcl_GetHashValue(e);

	if (c->intrSet >= 0 && s->sets[c->intrSet].parent >= 0
		&& Find(s, c->intrSet) == x) {
	    c->intrSet = -1;
	}
    }
    for (e = Tcl_FirstHashEntry(&s->packets, &hs); e;
	    e = Tcl_NextHashEntry(&hs)) {
	PacketHalf *h = Tcl_GetHashValue(e);

	if (h->set >= 0 && s->sets[h->set].parent >= 0
		&& Find(s, h->set) == x) {
	    free(h);
	    Tcl_DeleteHashEntry(e);
	}
    }
    if (IsRequest(s, &s->sets[x])) {
	s->retiredEmitted++;
	Emit(s, x);
    } else {
	s->retired++;
	s->discardedEvents += CountEvents(&s->sets[x]);
    }
    FreeSet(s, x);
}

/*
 * RetireIdle --
 *	With -timeout, at most every half timeout of trace time: retires
 *	every set no entry has joined since t - timeout.
 */
static void
RetireIdle(ParserState *s, int64_t t)
{
    int x;

    if (s->timeout <= 0 || (s->nextSweep != RB_ABSENT && t < s->nextSweep)) {
	return;
    }
    s->nextSweep = t + (s->timeout > 1 ? s->timeout / 2 : 1);
    for (x = 0; x < s->nsets; x++) {
	if (s->sets[x].parent == x && s->sets[x].lastTime < t - s->timeout) {
	    Retire(s, x);
	}
    }
}

/*
 * ParserRecord --
 *	One event: a context switch or an ordinary event of the schema;
 *	events of types the schema does not name are counted and ignored.
 */
static void
ParserRecord(Rb_Analyzer *a, const Rb_Batch *b, int i)
{
    ParserState *s = a->state;
    int64_t id = b->col[s->fEvent][i], machine = b->col[s->fMachine][i];
    int64_t t = b->col[0][i];
    const MgEventType *ev;
    int type;

    if (s->failed) {
	return;
    }
    s->events++;
    s->curRec = b->firstRecord + i;
    if (id < 0 || id >= s->ntypeOf || s->typeOf[id] == 0
	    || t == RB_ABSENT) {
	s->unknown++;
	return;
    }
    RetireIdle(s, t);
    type = s->typeOf[id] - 1;
    ev = &s->mg->events[type];
    if (ev->cswitchCpu >= 0) {
	ContextSwitch(s, ev, type, b, i, machine, t);
    } else {
	Join(s, ev, type, b, i, machine, t);
    }
    if (s->tooManyClusters) {
	s->failed = 1;
	Rb_AnalyzerError(a, "RUBICON MAGPIE CLUSTERS", "more than %lld "
		"clusters at record %llu (raise -threshold or -maxclusters)",
		(long long)s->maxClusters,
		(unsigned long long)(b->firstRecord + i));
    } else if (s->inFlight > s->maxInFlight) {
	s->failed = 1;
	Rb_AnalyzerError(a, "RUBICON MAGPIE INFLIGHT", "more than %lld "
		"event sets in flight at record %llu (raise -maxinflight, or "
		"check that the schema's stop bindings close intervals)",
		(long long)s->maxInFlight,
		(unsigned long long)(b->firstRecord + i));
    } else if (s->held > s->maxEvents) {
	int big = Biggest(s);

	s->failed = 1;
	Rb_AnalyzerError(a, "RUBICON MAGPIE INFLIGHT", "more than %lld "
		"events and CPU charges held by the sets in flight at record "
		"%llu; the largest, first seen at record %llu, holds %d "
		"(raise -maxevents, or check that the schema's stop bindings "
		"close its intervals)", (long long)s->maxEvents,
		(unsigned long long)(b->firstRecord + i),
		(unsigned long long)FirstRecord(&s->sets[big]),
		s->sets[big].nev);
    }
}

/*
 * ParserEnd --
 *	Discards the sets still open, then sets the Attributes.
 */
static int
ParserEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ParserState *s = a->state;
    int x;

    for (x = 0; x < s->nsets; x++) {
	if (s->sets[x].parent == x) {
	    s->incomplete++;
	    s->discardedEvents += CountEvents(&s->sets[x]);
	    FreeSet(s, x);
	}
    }
    s->requests->partial = run->partial || s->failed;
    Rb_AnalyzerSet(a, s->requests);
    MgClustererReport(s->clusterer, a, run->partial || s->failed);
    s->requests = NULL;
    Rb_AnalyzerSet(a, Rb_AttrScalar("RequestCount", (double)s->complete, "",
	    "requests extracted (a seed (begin) event, with -needend an "
	    "end event too; all intervals closed)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("IncompleteSets",
	    (double)s->incomplete, "", "event sets discarded without a "
	    "seed (or, with -needend, an end), or still open at the end of "
	    "the log"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("DiscardedEvents",
	    (double)s->discardedEvents, "", "events of discarded sets"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("UnknownEvents", (double)s->unknown,
	    "", "events of types the schema does not declare"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("BusyCpu", s->busyNs / 1e9, "s",
	    "non-idle CPU time seen between context switches"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("CpuAccountedFraction", s->busyNs
	    ? (double)s->accountedNs / s->busyNs : 0.0, "",
	    "share of busy CPU time accounted to extracted requests"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("PeakInFlight",
	    (double)s->peakInFlight, "", "most event sets open at once"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("StitchedPackets", (double)s->stitched,
	    "", "packets whose sending and receiving events were matched "
	    "(stitch statements)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("RetiredIncomplete",
	    (double)s->retired, "", "event sets retired by -timeout "
	    "that were not requests (their events are discarded)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("RetiredRequests",
	    (double)s->retiredEmitted, "", "requests emitted when -timeout "
	    "retired them with intervals still open (counted in "
	    "RequestCount too)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("UnmatchedPackets",
	    (double)s->packets.numEntries, "", "packet halves whose other "
	    "half never came"));
    return s->failed ? TCL_ERROR : TCL_OK;
}

/*
 * MgFlowRequest --
 *	For the commands given FLOW ID ?ATTRIBUTE?: request id as listed by
 *	the MagpieParserAnalyzer that set attribute attrName on the flow,
 *	and (in *mg) its schema.
 * Results: the request, or NULL with an error of the given code in
 *	interp (no such flow or attribute, a request not listed).
 */
const MgRequest *
MgFlowRequest(Tcl_Interp *interp, Tcl_Obj *flowObj, Tcl_Obj *idObj,
	const char *attrName, const char *code, const MgSchema **mg)
{
    const Rb_Attribute *attr;
    const MgRequest *r;
    Rb_Flow *flow = Rb_FlowFromObj(interp, flowObj);
    Tcl_WideInt id;

    if (flow == NULL || Tcl_GetWideIntFromObj(interp, idObj, &id)
	    != TCL_OK) {
	return NULL;
    }
    attr = Rb_FlowGetAttr(flow, attrName);
    *mg = attr ? MgParserSchema(attr->producer) : NULL;
    if (*mg == NULL) {
	Rb_SetInterpError(interp, code, "flow \"%s\" has no attribute \"%s\" "
		"set by a MagpieParserAnalyzer", Rb_FlowName(flow), attrName);
	return NULL;
    }
    r = MgParserRequest(attr->producer, id);
    if (r == NULL) {
	Rb_SetInterpError(interp, code, "request %lld is not listed (the "
		"parser keeps the first -keep)", (long long)id);
    }
    return r;
}

/*
 * RequestCmd --
 *	magpie::request FLOW ID ?ATTRIBUTE?: the entries of request ID as
 *	listed by the MagpieParserAnalyzer that set ATTRIBUTE (default
 *	Requests) on FLOW, in order: {kind time thread event record amount}
 *	with kind event, cpu, signal, wait or resume; thread is the thread's
 *	value, or intr:N for the interrupt context begun at record N;
 *	amount is the CPU (s) of a charge, the bytes of an event, the
 *	record at the other end of a sync point.
 */
static int
RequestCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const kinds[] = {
	"event", "cpu", "signal", "wait", "resume", "hop"
    };
    const MgRequest *r;
    const MgSchema *mg;
    Tcl_Obj *out;
    int k;

    if (objc != 3 && objc != 4) {
	Tcl_WrongNumArgs(interp, 1, objv, "flow id ?attribute?");
	return TCL_ERROR;
    }
    r = MgFlowRequest(interp, objv[1], objv[2], objc == 4
	    ? Tcl_GetString(objv[3]) : "Requests", "RUBICON MAGPIE REQUEST",
	    &mg);
    if (r == NULL) {
	return TCL_ERROR;
    }
    out = Tcl_NewListObj(0, NULL);
    for (k = 0; k < r->nev; k++) {
	const MgEvent *e = &r->ev[k];
	const Rb_Schema *rec = mg->rec;
	Tcl_Obj *item[6];

	item[0] = Tcl_NewStringObj(kinds[e->kind], -1);
	item[1] = Tcl_NewDoubleObj(e->time / 1e9);
	if (e->intr) {
	    item[2] = Tcl_ObjPrintf("intr:%lld", (long long)e->thread);
	} else if (e->thread == RB_ABSENT) {
	    item[2] = Tcl_NewStringObj("", 0);
	} else if (MgThreadField(mg) >= 0
		&& rec->fields[MgThreadField(mg)].type == RB_FT_STRING) {
	    item[2] = Tcl_NewStringObj(Rb_SchemaString(rec, e->thread), -1);
	} else {
	    item[2] = Tcl_NewWideIntObj(e->thread);
	}
	item[3] = Tcl_NewStringObj(e->type >= 0 ? mg->events[e->type].name
		: "", -1);
	item[4] = Tcl_NewWideIntObj((Tcl_WideInt)e->recNo);
	item[5] = e->kind == MG_CPU ? Tcl_NewDoubleObj(e->amount / 1e9)
		: Tcl_NewWideIntObj(e->amount);
	Tcl_ListObjAppendElement(NULL, out, Tcl_NewListObj(6, item));
    }
    Tcl_SetObjResult(interp, out);
    return TCL_OK;
}

/*
 * MgParserInitCmds --
 *	Creates magpie::request.
 */
int
MgParserInitCmds(Tcl_Interp *interp)
{
    Tcl_CreateObjCommand(interp, "::magpie::request", RequestCmd, NULL,
	    NULL);
    return TCL_OK;
}

static void
ParserFree(Rb_Analyzer *a)
{
    FreeRun(a->state);
}

const Rb_AnalyzerClass MgParserAnalyzerClass = {
    .name = "MagpieParserAnalyzer",
    .help = "Magpie: join events into requests by a magpie::schema; "
	    "per-request CPU, disk, network",
    .stateSize = sizeof(ParserState),
    .options = parserOptions,
    .attrs = parserAttrs,
    .perRecordState = 0,
    .start = ParserStart,
    .record = ParserRecord,
    .end = ParserEnd,
    .freeState = ParserFree,
};
