/*
 * zipkin.c --
 *
 *	Readers "zipkin" (Zipkin v2 JSON spans: a list of spans, or a list
 *	of traces each a list of spans) and "otlp" (OpenTelemetry's OTLP
 *	JSON, as the collector's file exporter writes it) as Stardust
 *	activity records, so that flow graphs and A-to-B latencies work on
 *	traces from today's tracers.  The spans are parsed, linked and
 *	corrected for clock skew by spans.c.  Each span becomes a Call
 *	record at its timestamp and a Reply at timestamp + duration, under a
 *	breadcrumb of its own; a Stitch from the parent's breadcrumb to the
 *	child's links them.  The two halves of a shared span (a CLIENT and
 *	the SERVER with the same id) are two breadcrumbs, the server's
 *	stitched from the client's, and a child span hangs from the server
 *	half of its parent when there is one.  A span's remoteEndpoint
 *	becomes a RemoteEndpoint record just after its Call, so the flow
 *	graph shows the hop to the server even when the server reports no
 *	spans.  With the Reply comes a SpanSelf record carrying the span's
 *	self time (spans.c), for StardustDemandAnalyzer.  The client id (top
 *	8 bits) is the trace's number in the file, from 1.  JSON is parsed
 *	with libjansson.
 */

#ifdef HAVE_JANSSON

#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "plugins/stardust/stardust.h"

typedef struct ZkRec {
    int64_t time;		/* ns since the epoch, then from the first */
    int64_t bc, pid;
    int type;			/* 0 Call, 1 Reply, 2 Stitch,
				 * 3 RemoteEndpoint, 4 SpanSelf */
    int span;			/* Its span (the child, for a Stitch). */
    int64_t seq;		/* Ties keep emission order. */
} ZkRec;

typedef struct ZkState {
    SdTypeSet *set;
    SdSpanSet spans;
    ZkRec *recs;
    int nrecs, next;
    int64_t typeIds[5];
    int fService, fName, fSrcBc, fDstBc, fIpv4, fIpv6, fPort, fSelf;
} ZkState;

/*
 * ZkSniff, OtlpSniff --
 *	How sure each reader is that a file's head is its format.
 */
static int
ZkSniff(const unsigned char *head, size_t n)
{
    return Sd_SpansSniff(head, n) == SD_SPANS_ZIPKIN ? 85 : 0;
}

static int
OtlpSniff(const unsigned char *head, size_t n)
{
    return Sd_SpansSniff(head, n) == SD_SPANS_OTLP ? 85 : 0;
}

static void
AddRec(ZkState *st, int *cap, int64_t time, int64_t bc, int type,
	int span)
{
    ZkRec *r;

    if (st->nrecs == *cap) {
	*cap = *cap ? 2 * *cap : 512;
	st->recs = Rb_ReallocArray(st->recs, *cap, sizeof(ZkRec));
    }
    r = &st->recs[st->nrecs];
    r->time = time;
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
 *	Times are the skew-corrected ones, so that a child never starts
 *	before the parent it is stitched from.
 */
static void
MakeRecords(ZkState *st)
{
    SdSpan *spans = st->spans.spans;
    int i, cap = 0, n = st->spans.nspans;

    for (i = 0; i < n; i++) {
	SdSpan *s = &spans[i];
	int64_t at = s->ts;
	int up, hops;

	/* Without a timestamp, the stitch takes the nearest ancestor's. */
	for (up = s->parent, hops = 0; at == RB_ABSENT && up >= 0
		&& hops < n; up = spans[up].parent, hops++) {
	    at = spans[up].ts;
	}
	if (at == RB_ABSENT) {
	    continue;
	}
	if (s->parent >= 0) {
	    AddRec(st, &cap, at, spans[s->parent].bc, 2, i);
	}
	if (s->ts == RB_ABSENT) {
	    continue;
	}
	AddRec(st, &cap, at, s->bc, 0, i);
	if (s->remote != NULL || s->remoteService != NULL) {
	    AddRec(st, &cap, at, s->bc, 3, i);
	}
	if (s->dur != RB_ABSENT) {
	    AddRec(st, &cap, at + s->dur, s->bc, 1, i);
	    AddRec(st, &cap, at + s->dur, s->bc, 4, i);
	}
    }
    if (st->nrecs > 1) {	/* recs is NULL when there are none */
	qsort(st->recs, st->nrecs, sizeof(ZkRec), CompareRec);
    }
}

/*
 * ZkOpen --
 *	Reads and parses the whole file (spans must be linked before any is
 *	emitted), and sorts the records by time.  The epoch is the earliest
 *	record's time.
 */
static int
ZkOpen(Rb_Reader *r, Rb_Error *err)
{
    ZkState *st = r->state;
    size_t have = 0, cap = 1 << 16;
    char *buf = Rb_Alloc(cap);
    long got;
    int i, rc;
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
    rc = Sd_SpansParse(&st->spans, buf, have, Rb_InputPath(r->in), err);
    free(buf);
    if (rc != TCL_OK) {
	return TCL_ERROR;
    }
    MakeRecords(st);
    for (i = 0; i < st->nrecs; i++) {
	if (st->recs[i].time < first) {
	    first = st->recs[i].time;
	}
    }
    r->epochNs = st->nrecs ? first : 0;
    for (i = 0; i < st->nrecs; i++) {
	st->recs[i].time -= first;
    }
    st->set = Sd_TypeSetGet(SD_DEFAULT_SET);
    r->schema = st->set->schema;
    Rb_SchemaRetain(r->schema);
    st->typeIds[0] = Rb_SchemaIntern(r->schema, "Call", 4);
    st->typeIds[1] = Rb_SchemaIntern(r->schema, "Reply", 5);
    st->typeIds[2] = Rb_SchemaIntern(r->schema, "Stitch", 6);
    st->typeIds[3] = Rb_SchemaIntern(r->schema, "RemoteEndpoint", 14);
    st->typeIds[4] = Rb_SchemaIntern(r->schema, "SpanSelf", 8);
    st->fService = Rb_SchemaFieldIndex(r->schema, "service");
    st->fName = Rb_SchemaFieldIndex(r->schema, "name");
    st->fSrcBc = Rb_SchemaFieldIndex(r->schema, "srcBreadcrumb");
    st->fDstBc = Rb_SchemaFieldIndex(r->schema, "dstBreadcrumb");
    st->fIpv4 = Rb_SchemaFieldIndex(r->schema, "ipv4");
    st->fIpv6 = Rb_SchemaFieldIndex(r->schema, "ipv6");
    st->fPort = Rb_SchemaFieldIndex(r->schema, "port");
    st->fSelf = Rb_SchemaFieldIndex(r->schema, "self");
    return TCL_OK;
}

/*
 * SpanName --
 *	"kind name" in lower case kind ("server get /x"), or either alone.
 */
static void
SpanName(const SdSpan *s, Tcl_DString *ds)
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
	const SdSpan *s = &st->spans.spans[x->span];
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
	} else if (x->type == 3 && s->remote == NULL) {
	    InternStr(b, st->fService, i, s->remoteService);
	} else if (x->type == 3) {
	    json_t *port = json_object_get(s->remote, "port");

	    InternStr(b, st->fService, i, Sd_JsonStr(s->remote, "serviceName"));
	    InternStr(b, st->fIpv4, i, Sd_JsonStr(s->remote, "ipv4"));
	    InternStr(b, st->fIpv6, i, Sd_JsonStr(s->remote, "ipv6"));
	    if (json_is_integer(port) && json_integer_value(port) >= 0
		    && json_integer_value(port) <= 65535) {
		b->col[st->fPort][i] = (int64_t)json_integer_value(port);
	    }
	} else {
	    if (x->type == 4) {
		b->col[st->fSelf][i] = s->self;
	    }
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

    Sd_SpansFree(&st->spans);
    if (st->set) {
	Sd_TypeSetRelease(st->set);
    }
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

const Rb_ReaderClass Sd_OtlpReaderClass = {
    .name = "otlp",
    .help = "OpenTelemetry OTLP JSON spans (resourceSpans/scopeSpans/"
	    "spans) as Stardust Call, Reply, Stitch and RemoteEndpoint "
	    "records",
    .stateSize = sizeof(ZkState),
    .sniff = OtlpSniff,
    .open = ZkOpen,
    .next = ZkNext,
    .close = ZkClose,
};

#endif /* HAVE_JANSSON */
