/*
 * zipkin.c --
 *
 *	Reader "zipkin": Zipkin v2 JSON spans (a list of spans, or a list of
 *	traces each a list of spans) as Stardust activity records, so that
 *	flow graphs and A-to-B latencies work on traces from today's
 *	tracers.  Each span becomes a Call record at its timestamp and a
 *	Reply at timestamp + duration, under a breadcrumb of its own; a
 *	Stitch from the parent's breadcrumb to the child's links them.  The
 *	two halves of a shared span (a CLIENT and the SERVER with the same
 *	id) are two breadcrumbs, the server's stitched from the client's, and
 *	a child span hangs from the server half of its parent when there is
 *	one.  A span's remoteEndpoint becomes a RemoteEndpoint record just
 *	after its Call, so the flow graph shows the hop to the server even
 *	when the server reports no spans.  The client id (top 8 bits) is the trace's number in the file,
 *	from 1.  JSON is parsed with libjansson.
 */

#ifdef HAVE_JANSSON

#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <jansson.h>
#include "plugins/stardust/stardust.h"

typedef struct ZkSpan {
    const char *traceId, *id, *parentId, *kind, *name, *service;
    json_t *remote;		/* remoteEndpoint object, or NULL */
    int shared;
    int64_t ts, dur;		/* us; RB_ABSENT when missing */
    int64_t bc;
    int client;
    int parent;			/* Index of the parent half, or -1. */
} ZkSpan;

typedef struct ZkRec {
    int64_t time;		/* ns from the epoch */
    int64_t bc, pid;
    int type;			/* 0 Call, 1 Reply, 2 Stitch,
				 * 3 RemoteEndpoint */
    int span;			/* Its span (the child, for a Stitch). */
    int64_t seq;		/* Ties keep emission order. */
} ZkRec;

typedef struct ZkState {
    SdTypeSet *set;
    json_t *root;
    ZkSpan *spans;
    int nspans;
    ZkRec *recs;
    int nrecs, next;
    int64_t typeIds[4];
    int fService, fName, fSrcBc, fDstBc, fIpv4, fIpv6, fPort;
} ZkState;

static int
ZkSniff(const unsigned char *head, size_t n)
{
    size_t i = 0;

    while (i < n && isspace(head[i])) {
	i++;
    }
    if (i >= n || head[i] != '[') {
	return 0;
    }
    return memmem(head, n, "\"traceId\"", 9) != NULL ? 85 : 0;
}

static const char *
Str(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);

    return json_is_string(v) ? json_string_value(v) : NULL;
}

/*
 * Micros --
 *	A timestamp or duration in microseconds, absent unless it is an
 *	integer from 0 to what stays in range as nanoseconds when added to
 *	another.
 */
static int64_t
Micros(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    json_int_t us = json_is_integer(v) ? json_integer_value(v) : -1;

    return us >= 0 && us <= INT64_MAX / 2000 ? (int64_t)us : RB_ABSENT;
}

/*
 * CollectSpans --
 *	Appends the span objects of a list (or of each trace list in it).
 */
static void
CollectSpans(ZkState *st, json_t *list, int *cap)
{
    size_t i;
    json_t *v;

    json_array_foreach(list, i, v) {
	if (json_is_array(v)) {
	    CollectSpans(st, v, cap);
	} else if (json_is_object(v) && Str(v, "traceId") && Str(v, "id")) {
	    ZkSpan *s;
	    json_t *ep = json_object_get(v, "localEndpoint");

	    if (st->nspans == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		st->spans = Rb_ReallocArray(st->spans, *cap, sizeof(ZkSpan));
	    }
	    s = &st->spans[st->nspans++];
	    memset(s, 0, sizeof(*s));
	    s->traceId = Str(v, "traceId");
	    s->id = Str(v, "id");
	    s->parentId = Str(v, "parentId");
	    s->kind = Str(v, "kind");
	    s->name = Str(v, "name");
	    s->service = json_is_object(ep) ? Str(ep, "serviceName") : NULL;
	    ep = json_object_get(v, "remoteEndpoint");
	    s->remote = json_is_object(ep) && json_object_size(ep) ? ep : NULL;
	    s->shared = json_is_true(json_object_get(v, "shared"));
	    s->ts = Micros(v, "timestamp");
	    s->dur = Micros(v, "duration");
	    s->parent = -1;
	}
    }
}

/*
 * FindHalf --
 *	The span of trace/id: its server (shared) half if wantServer and
 *	there is one, else its other half.
 * Results: an index into spans, or -1.
 */
static int
FindHalf(ZkState *st, Tcl_HashTable *byId, const char *trace, const char *id,
	int wantServer)
{
    Tcl_DString key;
    Tcl_HashEntry *e;
    int idx = -1, k;

    Tcl_DStringInit(&key);
    Tcl_DStringAppend(&key, trace, -1);
    Tcl_DStringAppend(&key, "/", 1);
    Tcl_DStringAppend(&key, id, -1);
    for (k = wantServer ? 1 : 0; k >= 0 && idx < 0; k--) {
	Tcl_DStringAppend(&key, k ? "/s" : "/c", 2);
	e = Tcl_FindHashEntry(byId, Tcl_DStringValue(&key));
	if (e != NULL) {
	    idx = (int)(intptr_t)Tcl_GetHashValue(e);
	}
	Tcl_DStringSetLength(&key, Tcl_DStringLength(&key) - 2);
    }
    Tcl_DStringFree(&key);
    return idx;
}

/*
 * Link --
 *	Gives every span a breadcrumb and client and finds its parent half.
 *	A span id seen twice with the same sharedness keeps the first.
 */
static void
Link(ZkState *st)
{
    Tcl_HashTable byId, traces;
    Tcl_HashEntry *e;
    Tcl_DString key;
    int i, isNew;
    int64_t seq = 0;

    Tcl_InitHashTable(&byId, TCL_STRING_KEYS);
    Tcl_InitHashTable(&traces, TCL_STRING_KEYS);
    Tcl_DStringInit(&key);
    for (i = 0; i < st->nspans; i++) {
	ZkSpan *s = &st->spans[i];

	e = Tcl_CreateHashEntry(&traces, s->traceId, &isNew);
	if (isNew) {
	    Tcl_SetHashValue(e, (ClientData)(intptr_t)((traces.numEntries - 1)
		    % 255 + 1));
	}
	s->client = (int)(intptr_t)Tcl_GetHashValue(e);
	s->bc = (int64_t)((uint64_t)s->client << 56 | (uint64_t)++seq);
	Tcl_DStringSetLength(&key, 0);
	Tcl_DStringAppend(&key, s->traceId, -1);
	Tcl_DStringAppend(&key, "/", 1);
	Tcl_DStringAppend(&key, s->id, -1);
	Tcl_DStringAppend(&key, s->shared ? "/s" : "/c", 2);
	e = Tcl_CreateHashEntry(&byId, Tcl_DStringValue(&key), &isNew);
	if (isNew) {
	    Tcl_SetHashValue(e, (ClientData)(intptr_t)i);
	}
    }
    for (i = 0; i < st->nspans; i++) {
	ZkSpan *s = &st->spans[i];

	if (s->shared) {
	    s->parent = FindHalf(st, &byId, s->traceId, s->id, 0);
	    if (s->parent == i) {
		s->parent = -1;
	    }
	}
	if (s->parent < 0 && s->parentId != NULL) {
	    s->parent = FindHalf(st, &byId, s->traceId, s->parentId, 1);
	}
    }
    Tcl_DStringFree(&key);
    Tcl_DeleteHashTable(&byId);
    Tcl_DeleteHashTable(&traces);
}

static void
AddRec(ZkState *st, int *cap, int64_t timeUs, int64_t bc, int type,
	int span)
{
    ZkRec *r;

    if (st->nrecs == *cap) {
	*cap = *cap ? 2 * *cap : 512;
	st->recs = Rb_ReallocArray(st->recs, *cap, sizeof(ZkRec));
    }
    r = &st->recs[st->nrecs];
    r->time = timeUs;
    r->bc = bc;
    r->type = type;
    r->span = span;
    r->seq = st->nrecs++;
}

static int
CompareRec(const void *a, const void *b)
{
    const ZkRec *x = a, *y = b;

    if (x->time != y->time) {
	return x->time < y->time ? -1 : 1;
    }
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * MakeRecords --
 *	The activity records of every span, in time order: for a child, the
 *	Stitch from its parent comes just before its Call.  A span without
 *	a timestamp has no Call or Reply, only its Stitch (at its nearest
 *	ancestor's time), so that the graph through it stays connected.
 */
static void
MakeRecords(ZkState *st)
{
    int i, cap = 0;

    for (i = 0; i < st->nspans; i++) {
	ZkSpan *s = &st->spans[i];
	int64_t at = s->ts;
	int up, hops;

	/* Without a timestamp, the stitch takes the nearest ancestor's. */
	for (up = s->parent, hops = 0; at == RB_ABSENT && up >= 0
		&& hops < st->nspans; up = st->spans[up].parent, hops++) {
	    at = st->spans[up].ts;
	}
	if (at == RB_ABSENT) {
	    continue;
	}
	if (s->parent >= 0) {
	    AddRec(st, &cap, at, st->spans[s->parent].bc, 2, i);
	}
	if (s->ts == RB_ABSENT) {
	    continue;
	}
	AddRec(st, &cap, at, s->bc, 0, i);
	if (s->remote != NULL) {
	    AddRec(st, &cap, at, s->bc, 3, i);
	}
	if (s->dur != RB_ABSENT) {
	    AddRec(st, &cap, at + s->dur, s->bc, 1, i);
	}
    }
    if (st->nrecs > 1) {	/* recs is NULL when there are none */
	qsort(st->recs, st->nrecs, sizeof(ZkRec), CompareRec);
    }
}

/*
 * ZkOpen --
 *	Reads and parses the whole file (spans must be linked before any is
 *	emitted), assigns breadcrumbs, and sorts the records by time.  The
 *	epoch is the earliest timestamp, to the microsecond.
 */
static int
ZkOpen(Rb_Reader *r, Rb_Error *err)
{
    ZkState *st = r->state;
    size_t have = 0, cap = 1 << 16;
    char *buf = Rb_Alloc(cap);
    json_error_t jerr;
    long got;
    int i, capSpans = 0;
    int64_t first = INT64_MAX;

    while ((got = Rb_InputRead(r->in, buf + have, cap - have, err)) > 0) {
	have += (size_t)got;
	if (have == cap) {
	    cap *= 2;
	    buf = Rb_Realloc(buf, cap);
	}
    }
    if (got < 0) {
	free(buf);
	return TCL_ERROR;
    }
    st->root = json_loadb(buf, have, 0, &jerr);
    free(buf);
    if (st->root == NULL || !json_is_array(st->root)) {
	Rb_SetError(err, "RUBICON READER CORRUPT", "%s: line %d column %d "
		"(byte offset %d): %s", Rb_InputPath(r->in), jerr.line,
		jerr.column, jerr.position, st->root ? "Zipkin v2 JSON is a "
		"list of spans" : jerr.text);
	return TCL_ERROR;
    }
    CollectSpans(st, st->root, &capSpans);
    Link(st);
    MakeRecords(st);
    for (i = 0; i < st->nrecs; i++) {
	if (st->recs[i].time < first) {
	    first = st->recs[i].time;
	}
    }
    r->epochNs = st->nrecs ? first * 1000 : 0;
    for (i = 0; i < st->nrecs; i++) {
	st->recs[i].time = (st->recs[i].time - first) * 1000;
    }
    st->set = Sd_TypeSetGet(SD_DEFAULT_SET);
    r->schema = st->set->schema;
    Rb_SchemaRetain(r->schema);
    st->typeIds[0] = Rb_SchemaIntern(r->schema, "Call", 4);
    st->typeIds[1] = Rb_SchemaIntern(r->schema, "Reply", 5);
    st->typeIds[2] = Rb_SchemaIntern(r->schema, "Stitch", 6);
    st->typeIds[3] = Rb_SchemaIntern(r->schema, "RemoteEndpoint", 14);
    st->fService = Rb_SchemaFieldIndex(r->schema, "service");
    st->fName = Rb_SchemaFieldIndex(r->schema, "name");
    st->fSrcBc = Rb_SchemaFieldIndex(r->schema, "srcBreadcrumb");
    st->fDstBc = Rb_SchemaFieldIndex(r->schema, "dstBreadcrumb");
    st->fIpv4 = Rb_SchemaFieldIndex(r->schema, "ipv4");
    st->fIpv6 = Rb_SchemaFieldIndex(r->schema, "ipv6");
    st->fPort = Rb_SchemaFieldIndex(r->schema, "port");
    return TCL_OK;
}

/*
 * SpanName --
 *	"kind name" in lower case kind ("server get /x"), or either alone.
 */
static void
SpanName(const ZkSpan *s, Tcl_DString *ds)
{
    const char *k;

    Tcl_DStringSetLength(ds, 0);
    if (s->kind != NULL) {
	for (k = s->kind; *k; k++) {
	    char c = (char)tolower((unsigned char)*k);

	    Tcl_DStringAppend(ds, &c, 1);
	}
	if (s->name != NULL && *s->name) {
	    Tcl_DStringAppend(ds, " ", 1);
	}
    }
    Tcl_DStringAppend(ds, s->name ? s->name : "", -1);
}

/*
 * InternStr --
 *	Sets string field f of record i to text, or leaves it absent.
 */
static void
InternStr(Rb_Batch *b, int f, int i, const char *text)
{
    if (text != NULL) {
	b->col[f][i] = Rb_SchemaIntern(b->schema, text, strlen(text));
    }
}

static int
ZkNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    ZkState *st = r->state;
    int start = b->n;
    Tcl_DString name;

    if (b->n == 0) {
	b->firstRecord = r->records + 1;
    }
    Tcl_DStringInit(&name);
    while (st->next < st->nrecs && b->n < b->cap) {
	const ZkRec *x = &st->recs[st->next++];
	const ZkSpan *s = &st->spans[x->span];
	int i = Rb_BatchAppend(b);

	r->recordNo++;
	b->col[SD_F_TIME][i] = x->time;
	b->col[SD_F_TYPE][i] = st->typeIds[x->type];
	b->col[SD_F_BREADCRUMB][i] = x->bc;
	b->col[SD_F_CLIENT][i] = SD_CLIENT(x->bc);
	b->col[SD_F_PID][i] = 0;
	b->col[SD_F_TID][i] = 0;
	if (x->type == 2) {
	    b->col[st->fSrcBc][i] = x->bc;
	    b->col[st->fDstBc][i] = s->bc;
	} else if (x->type == 3) {
	    json_t *port = json_object_get(s->remote, "port");

	    InternStr(b, st->fService, i, Str(s->remote, "serviceName"));
	    InternStr(b, st->fIpv4, i, Str(s->remote, "ipv4"));
	    InternStr(b, st->fIpv6, i, Str(s->remote, "ipv6"));
	    if (json_is_integer(port) && json_integer_value(port) >= 0
		    && json_integer_value(port) <= 65535) {
		b->col[st->fPort][i] = (int64_t)json_integer_value(port);
	    }
	} else {
	    SpanName(s, &name);
	    b->col[st->fService][i] = Rb_SchemaIntern(b->schema,
		    s->service ? s->service : "", s->service
		    ? strlen(s->service) : 0);
	    b->col[st->fName][i] = Rb_SchemaIntern(b->schema,
		    Tcl_DStringValue(&name), (size_t)Tcl_DStringLength(&name));
	}
    }
    Tcl_DStringFree(&name);
    return b->n - start;
}

static void
ZkClose(Rb_Reader *r)
{
    ZkState *st = r->state;

    if (st->root) {
	json_decref(st->root);
    }
    if (st->set) {
	Sd_TypeSetRelease(st->set);
    }
    free(st->spans);
    free(st->recs);
}

const Rb_ReaderClass Sd_ZipkinReaderClass = {
    .name = "zipkin",
    .help = "Zipkin v2 JSON spans as Stardust Call, Reply, Stitch and "
	    "RemoteEndpoint records",
    .stateSize = sizeof(ZkState),
    .sniff = ZkSniff,
    .open = ZkOpen,
    .next = ZkNext,
    .close = ZkClose,
};

#endif /* HAVE_JANSSON */
