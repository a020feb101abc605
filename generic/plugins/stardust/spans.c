/*
 * spans.c --
 *
 *	The span model shared by the span-trace readers (Zipkin v2 JSON and
 *	OpenTelemetry's OTLP JSON) and by stardust::spans: spans parsed from
 *	either format into SdSpan, each linked to its parent, corrected for
 *	clock skew between hosts, and given its self time.
 *
 *	Clock skew.  A child span that starts before its parent was timed
 *	by a clock behind its parent's.  The child is kept and attached;
 *	it and every span below it are moved later (the whole subtree, so
 *	that the order within it, consistent as recorded, is kept) so that
 *	it starts with its parent, or, for the server half of a shared
 *	Zipkin span shorter than its client half, so that it sits in the
 *	middle of the client (Zipkin's own correction: the network time
 *	split evenly).
 *	Each correction is counted for its pair of hosts (child's, parent's)
 *	with the shift as an estimate of how far the child's clock is
 *	behind: a lower bound, since any larger skew is also consistent.
 *
 *	Self time.  A span's duration less the time covered by its
 *	children's intervals (their union, clipped to the span), so that
 *	concurrent children are not subtracted twice.
 */

#ifdef HAVE_JANSSON

#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>
#include "plugins/stardust/stardust.h"

/*
 * The latency buckets of the OpenTelemetry service-graph connector's
 * default configuration, in seconds.
 */
static const double defaultBuckets[] = {
    0.002, 0.004, 0.006, 0.008, 0.01, 0.05, 0.1, 0.2, 0.4, 0.8, 1, 1.4, 2,
    5, 10, 15
};

/*
 * Sd_JsonStr --
 *	The string at key of a JSON object, or NULL.
 */
const char *
Sd_JsonStr(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);

    return json_is_string(v) ? json_string_value(v) : NULL;
}


/*
 * Micros --
 *	A Zipkin timestamp or duration (microseconds) in nanoseconds, absent
 *	unless it is an integer from 0 to what stays in range when added to
 *	another.
 */
static int64_t
Micros(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    json_int_t us = json_is_integer(v) ? json_integer_value(v) : -1;

    return us >= 0 && us <= INT64_MAX / 2000 ? (int64_t)us * 1000
	    : RB_ABSENT;
}

/*
 * Nanos --
 *	An OTLP fixed64 time (nanoseconds since the epoch), which the JSON
 *	mapping writes as a decimal string and some writers as a number.
 */
static int64_t
Nanos(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);

    if (json_is_integer(v)) {
	return json_integer_value(v) >= 0 ? (int64_t)json_integer_value(v)
		: RB_ABSENT;
    }
    if (json_is_string(v)) {
	const char *s = json_string_value(v);
	char *end;
	long long n;

	errno = 0;
	n = strtoll(s, &end, 10);
	if (*s && *end == '\0' && errno == 0 && n >= 0) {
	    return (int64_t)n;
	}
    }
    return RB_ABSENT;
}

/*
 * NewSpan --
 *	Appends a span to the set, blank: no parent, no self time.
 */
static SdSpan *
NewSpan(SdSpanSet *set)
{
    SdSpan *s;

    if (set->nspans == set->cap) {
	set->cap = set->cap ? 2 * set->cap : 256;
	set->spans = Rb_ReallocArray(set->spans, set->cap, sizeof(SdSpan));
    }
    s = &set->spans[set->nspans++];
    memset(s, 0, sizeof(*s));
    s->parent = -1;
    s->self = RB_ABSENT;
    return s;
}

/*
 * CollectZipkin --
 *	Appends the span objects of a Zipkin list (or of each trace list in
 *	it).  A span is in error when it has an "error" tag.
 */
static void
CollectZipkin(SdSpanSet *set, json_t *list)
{
    size_t i;
    json_t *v;

    json_array_foreach(list, i, v) {
	if (json_is_array(v)) {
	    CollectZipkin(set, v);
	} else if (json_is_object(v) && Sd_JsonStr(v, "traceId")
		&& Sd_JsonStr(v, "id")) {
	    json_t *ep = json_object_get(v, "localEndpoint");
	    json_t *tags = json_object_get(v, "tags");
	    SdSpan *s = NewSpan(set);

	    s->traceId = Sd_JsonStr(v, "traceId");
	    s->id = Sd_JsonStr(v, "id");
	    s->parentId = Sd_JsonStr(v, "parentId");
	    s->kind = Sd_JsonStr(v, "kind");
	    s->name = Sd_JsonStr(v, "name");
	    if (json_is_object(ep)) {
		s->service = Sd_JsonStr(ep, "serviceName");
		s->host = Sd_JsonStr(ep, "ipv4") ? Sd_JsonStr(ep, "ipv4")
			: Sd_JsonStr(ep, "ipv6");
	    }
	    ep = json_object_get(v, "remoteEndpoint");
	    s->remote = json_is_object(ep) && json_object_size(ep) ? ep : NULL;
	    s->remoteService = s->remote
		    ? Sd_JsonStr(s->remote, "serviceName") : NULL;
	    s->shared = json_is_true(json_object_get(v, "shared"));
	    s->error = json_is_object(tags)
		    && json_object_get(tags, "error") != NULL;
	    s->ts = Micros(v, "timestamp");
	    s->dur = Micros(v, "duration");
	}
    }
}

/*
 * Attribute --
 *	The string value of key in an OTLP attribute list ([{key, value:
 *	{stringValue}}]), or NULL.
 */
static const char *
Attribute(json_t *attrs, const char *key)
{
    size_t i;
    json_t *a;

    json_array_foreach(attrs, i, a) {
	const char *k = Sd_JsonStr(a, "key");
	json_t *v = json_object_get(a, "value");

	if (k && strcmp(k, key) == 0 && json_is_object(v)) {
	    return Sd_JsonStr(v, "stringValue");
	}
    }
    return NULL;
}

/*
 * CollectOtlp --
 *	Appends the spans of one OTLP export request, {"resourceSpans":
 *	[{resource: {attributes}, scopeSpans: [{scope, spans: [...]}]}]}.
 *	The service is the resource's service.name, the host its host.name;
 *	the kind (an integer enum in OTLP JSON: 2 server, 3 client, 4
 *	producer, 5 consumer; the enum's names, SPAN_KIND_SERVER ..., are
 *	taken too, as protobuf's JSON printers may write them) is named as
 *	Zipkin names it, internal and unspecified spans having none; status
 *	code 2 (or STATUS_CODE_ERROR) is an error; a client
 *	span's peer.service attribute is its remote service.
 */
static void
CollectOtlp(SdSpanSet *set, json_t *request)
{
    static const char *const kinds[] = {NULL, NULL, "SERVER", "CLIENT",
	"PRODUCER", "CONSUMER"};
    json_t *rss = json_object_get(request, "resourceSpans"), *rs;
    size_t i, j, k;

    json_array_foreach(rss, i, rs) {
	json_t *res = json_object_get(rs, "resource");
	json_t *attrs = json_object_get(res, "attributes");
	const char *service = Attribute(attrs, "service.name");
	const char *host = Attribute(attrs, "host.name");
	json_t *ss, *sp;

	json_array_foreach(json_object_get(rs, "scopeSpans"), j, ss) {
	    json_array_foreach(json_object_get(ss, "spans"), k, sp) {
		json_t *kind = json_object_get(sp, "kind");
		json_t *status = json_object_get(sp, "status");
		json_t *code = json_object_get(status, "code");
		const char *parent = Sd_JsonStr(sp, "parentSpanId");
		int64_t start, end;
		SdSpan *s;

		if (!Sd_JsonStr(sp, "traceId") || !Sd_JsonStr(sp, "spanId")) {
		    continue;
		}
		s = NewSpan(set);
		s->traceId = Sd_JsonStr(sp, "traceId");
		s->id = Sd_JsonStr(sp, "spanId");
		s->parentId = parent && *parent ? parent : NULL;
		s->name = Sd_JsonStr(sp, "name");
		s->service = service;
		s->host = host;
		if (json_is_integer(kind) && json_integer_value(kind) >= 0
			&& json_integer_value(kind) <= 5) {
		    s->kind = kinds[json_integer_value(kind)];
		} else if (json_is_string(kind) && strncmp(json_string_value(
			kind), "SPAN_KIND_", 10) == 0) {
		    int e;

		    for (e = 2; e <= 5; e++) {
			if (strcmp(json_string_value(kind) + 10, kinds[e]) == 0) {
			    s->kind = kinds[e];
			}
		    }
		}
		s->remoteService = Attribute(json_object_get(sp,
			"attributes"), "peer.service");
		s->error = (json_is_integer(code)
			&& json_integer_value(code) == 2) || (json_is_string(code)
			&& strcmp(json_string_value(code), "STATUS_CODE_ERROR")
			== 0);
		start = Nanos(sp, "startTimeUnixNano");
		end = Nanos(sp, "endTimeUnixNano");
		s->ts = start;
		s->dur = start != RB_ABSENT && end != RB_ABSENT && end >= start
			? end - start : RB_ABSENT;
	    }
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
FindHalf(Tcl_HashTable *byId, const char *trace, const char *id,
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
 *	Gives every span a breadcrumb and client (its trace's number in the
 *	file, from 1, modulo 255) and finds its parent half.  A span id
 *	seen twice with the same sharedness keeps the first.
 */
static void
Link(SdSpanSet *set)
{
    Tcl_HashTable byId, traces;
    Tcl_HashEntry *e;
    Tcl_DString key;
    int i, isNew;
    int64_t seq = 0;

    Tcl_InitHashTable(&byId, TCL_STRING_KEYS);
    Tcl_InitHashTable(&traces, TCL_STRING_KEYS);
    Tcl_DStringInit(&key);
    for (i = 0; i < set->nspans; i++) {
	SdSpan *s = &set->spans[i];

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
    set->ntraces = traces.numEntries;
    for (i = 0; i < set->nspans; i++) {
	SdSpan *s = &set->spans[i];

	if (s->shared) {
	    s->parent = FindHalf(&byId, s->traceId, s->id, 0);
	    if (s->parent == i) {
		s->parent = -1;
	    }
	}
	if (s->parent < 0 && s->parentId != NULL) {
	    s->parent = FindHalf(&byId, s->traceId, s->parentId, 1);
	    if (s->parent == i) {
		s->parent = -1;
	    }
	}
    }
    Tcl_DStringFree(&key);
    Tcl_DeleteHashTable(&byId);
    Tcl_DeleteHashTable(&traces);
}

/*
 * Host --
 *	What names a span's clock: its host address, else its service.
 */
static const char *
Host(const SdSpan *s)
{
    return s->host ? s->host : s->service ? s->service : "";
}

/*
 * Depths --
 *	The number of ancestors of each span, at most nspans (a cycle of
 *	parent ids, which only a broken file has, stops there).
 */
static int *
Depths(const SdSpanSet *set)
{
    int *depth = Rb_AllocArray((set->nspans + 1), sizeof(int));
    int i, up, d;

    for (i = 0; i < set->nspans; i++) {
	for (d = 0, up = set->spans[i].parent; up >= 0 && d < set->nspans;
		up = set->spans[up].parent) {
	    d++;
	}
	depth[i] = d;
    }
    return depth;
}

/*
 * CompareDepth --
 *	qsort order of span indices: shallower first, then file order (by
 *	sortDepth, set by the caller).
 */
static const int *sortDepth;

static int
CompareDepth(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    if (sortDepth[x] != sortDepth[y]) {
	return sortDepth[x] < sortDepth[y] ? -1 : 1;
    }
    return x < y ? -1 : x > y;
}

/*
 * NoteSkew --
 *	Counts a correction of shift ns for the host pair (child, parent).
 */
static void
NoteSkew(SdSpanSet *set, const char *child, const char *parent,
	int64_t shift)
{
    SdSkew *k;
    int i;

    for (i = 0; i < set->nskew; i++) {
	k = &set->skew[i];
	if (strcmp(k->childHost, child) == 0
		&& strcmp(k->parentHost, parent) == 0) {
	    break;
	}
    }
    if (i == set->nskew) {
	set->skew = Rb_ReallocArray(set->skew, (set->nskew + 1), sizeof(SdSkew));
	k = &set->skew[set->nskew++];
	memset(k, 0, sizeof(*k));
	k->childHost = child;
	k->parentHost = parent;
    }
    k = &set->skew[i];
    k->count++;
    k->sum += shift;
    if (shift > k->max) {
	k->max = shift;
    }
    set->skewed++;
}

/*
 * CorrectSkew --
 *	Parents before children, moves each child that starts before its
 *	parent (see the file's comment), carrying a parent's move to its
 *	children.  Leaves each span's move in shift and the timestamps
 *	corrected.
 */
static void
CorrectSkew(SdSpanSet *set)
{
    int n = set->nspans, i, *order = Rb_AllocArray((n + 1), sizeof(int));
    int *depth = Depths(set);

    for (i = 0; i < n; i++) {
	order[i] = i;
    }
    sortDepth = depth;
    qsort(order, n, sizeof(int), CompareDepth);
    for (i = 0; i < n; i++) {
	SdSpan *s = &set->spans[order[i]], *p;
	int64_t target, shift;

	if (s->parent < 0 || s->ts == RB_ABSENT) {
	    continue;
	}
	p = &set->spans[s->parent];
	if (p->shift != 0) {
	    s->shift = p->shift;
	    s->ts += p->shift;
	}
	if (p->ts == RB_ABSENT) {
	    continue;
	}
	if (s->ts >= p->ts) {
	    continue;
	}
	/* Both moved by the parent's shift: this is the raw order. */
	target = p->ts;
	if (s->shared && s->dur != RB_ABSENT && p->dur != RB_ABSENT
		&& s->dur <= p->dur) {
	    target = p->ts + (p->dur - s->dur) / 2;
	}
	shift = target - s->ts;
	s->ts = target;
	s->shift += shift;
	NoteSkew(set, Host(s), Host(p), shift);
    }
    free(order);
    free(depth);
}

typedef struct Interval {
    int64_t lo, hi;
} Interval;

/*
 * CompareInterval --
 *	qsort order of intervals by start.
 */
static int
CompareInterval(const void *a, const void *b)
{
    const Interval *x = a, *y = b;

    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * ChildIndex --
 *	The children of every span: those of span i are kids[first[i]] to
 *	kids[first[i + 1] - 1].  Both arrays are malloc'd.
 */
static void
ChildIndex(const SdSpanSet *set, int **firstPtr, int **kidsPtr)
{
    int n = set->nspans, i;
    int *first = Rb_AllocArray(n + 2, sizeof(int));
    int *kids = Rb_AllocArray((n + 1), sizeof(int));
    int *fill = Rb_AllocArray((n + 1), sizeof(int));

    for (i = 0; i < n; i++) {
	if (set->spans[i].parent >= 0) {
	    first[set->spans[i].parent + 1]++;
	}
    }
    for (i = 0; i < n; i++) {
	first[i + 1] += first[i];
    }
    memcpy(fill, first, sizeof(int) * (n + 1));
    for (i = 0; i < n; i++) {
	if (set->spans[i].parent >= 0) {
	    kids[fill[set->spans[i].parent]++] = i;
	}
    }
    free(fill);
    *firstPtr = first;
    *kidsPtr = kids;
}

/*
 * SelfTimes --
 *	Each span's self time: its duration less the union of its
 *	children's intervals clipped to its own.
 */
static void
SelfTimes(SdSpanSet *set)
{
    int n = set->nspans, i, j, *first, *kids;
    Interval *iv = Rb_AllocArray((n + 1), sizeof(Interval));

    ChildIndex(set, &first, &kids);
    for (i = 0; i < n; i++) {
	SdSpan *s = &set->spans[i];
	int64_t lo, hi, covered = 0, end = INT64_MIN;
	int m = 0;

	if (s->ts == RB_ABSENT || s->dur == RB_ABSENT) {
	    continue;
	}
	lo = s->ts;
	hi = s->ts + s->dur;
	for (j = first[i]; j < first[i + 1]; j++) {
	    const SdSpan *c = &set->spans[kids[j]];

	    if (c->ts == RB_ABSENT || c->dur == RB_ABSENT) {
		continue;
	    }
	    iv[m].lo = c->ts > lo ? c->ts : lo;
	    iv[m].hi = c->ts + c->dur < hi ? c->ts + c->dur : hi;
	    if (iv[m].hi > iv[m].lo) {
		m++;
	    }
	}
	qsort(iv, m, sizeof(Interval), CompareInterval);
	for (j = 0; j < m; j++) {
	    if (iv[j].lo > end) {
		covered += iv[j].hi - iv[j].lo;
		end = iv[j].hi;
	    } else if (iv[j].hi > end) {
		covered += iv[j].hi - end;
		end = iv[j].hi;
	    }
	}
	s->self = s->dur - covered;
    }
    free(first);
    free(kids);
    free(iv);
}

/*
 * Sd_SpansSniff --
 *	Which span format a file's head looks like: SD_SPANS_ZIPKIN (a JSON
 *	list with "traceId"), SD_SPANS_OTLP (an object with
 *	"resourceSpans"), or -1.
 */
int
Sd_SpansSniff(const unsigned char *head, size_t n)
{
    size_t i = 0;

    while (i < n && isspace(head[i])) {
	i++;
    }
    if (i < n && head[i] == '[' && memmem(head, n, "\"traceId\"", 9)) {
	return SD_SPANS_ZIPKIN;
    }
    if (i < n && head[i] == '{' && memmem(head, n, "\"resourceSpans\"", 15)) {
	return SD_SPANS_OTLP;
    }
    return -1;
}

/*
 * Sd_SpansParse --
 *	Parses buf as Zipkin v2 JSON (one list) or OTLP JSON (one export
 *	request, or several one after another as the collector's file
 *	exporter writes them, a line each), then links, corrects and
 *	times the spans.  The set keeps the parsed JSON (its strings are
 *	the spans').
 * Results: TCL_OK, or TCL_ERROR with err naming path, line, column and
 *	byte offset.
 */
int
Sd_SpansParse(SdSpanSet *set, const char *buf, size_t len,
	const char *path, Rb_Error *err)
{
    json_error_t jerr;
    size_t at = 0;
    int format = Sd_SpansSniff((const unsigned char *)buf,
	    len < 4096 ? len : 4096);

    memset(set, 0, sizeof(*set));
    set->format = format;
    set->roots = json_array();
    if (format != SD_SPANS_OTLP) {
	json_t *root = json_loadb(buf, len, 0, &jerr);

	if (root == NULL || !json_is_array(root)) {
	    Rb_SetError(err, "RUBICON READER CORRUPT", "%s: line %d column "
		    "%d (byte offset %d): %s", path, jerr.line, jerr.column,
		    jerr.position, root ? "Zipkin v2 JSON is a list of spans"
		    : jerr.text);
	    if (root) {
		json_decref(root);
	    }
	    return TCL_ERROR;
	}
	json_array_append_new(set->roots, root);
	CollectZipkin(set, root);
    } else {
	while (at < len) {
	    json_t *root;

	    while (at < len && isspace((unsigned char)buf[at])) {
		at++;
	    }
	    if (at == len) {
		break;
	    }
	    root = json_loadb(buf + at, len - at, JSON_DISABLE_EOF_CHECK,
		    &jerr);
	    if (root == NULL || !json_is_object(root)) {
		int line = 1, col0 = 0;
		size_t k;

		/* Where the request starts, so that the place is the file's. */
		for (k = 0; k < at; k++) {
		    if (buf[k] == '\n') {
			line++;
			col0 = 0;
		    } else {
			col0++;
		    }
		}
		if (root != NULL) {
		    jerr.line = 1;
		    jerr.column = 1;
		    jerr.position = 0;
		}
		Rb_SetError(err, "RUBICON READER CORRUPT", "%s: line %d column "
			"%d (byte offset %lu): %s", path, line + jerr.line - 1,
			jerr.line == 1 ? col0 + jerr.column : jerr.column,
			(unsigned long)(at + jerr.position), root ? "an OTLP "
			"request is an object with resourceSpans" : jerr.text);
		if (root) {
		    json_decref(root);
		}
		return TCL_ERROR;
	    }
	    json_array_append_new(set->roots, root);
	    CollectOtlp(set, root);
	    at += jerr.position;
	}
    }
    Link(set);
    CorrectSkew(set);
    SelfTimes(set);
    return TCL_OK;
}

/*
 * Sd_SpansFree --
 *	Frees what a span set holds.
 */
void
Sd_SpansFree(SdSpanSet *set)
{
    if (set->roots) {
	json_decref(set->roots);
    }
    free(set->spans);
    free(set->skew);
    memset(set, 0, sizeof(*set));
}

/*
 * S --
 *	A new string object ("" for NULL).
 */
static Tcl_Obj *
S(const char *s)
{
    return Tcl_NewStringObj(s ? s : "", -1);
}

/*
 * DictAdd --
 *	Adds v to the number at the nkeys keys of dict d (0 when absent);
 *	a count of "spans" stays an integer.  The keys may be new objects:
 *	they are released here.
 */
static void
DictAdd(Tcl_Obj *d, int nkeys, Tcl_Obj *const keys[], double v)
{
    int isCount = v == 1 && strcmp(Tcl_GetString(keys[nkeys - 1]),
	    "spans") == 0;
    Tcl_Obj *old = NULL;
    int i;

    for (i = 0; i < nkeys; i++) {
	Tcl_IncrRefCount(keys[i]);
    }
    old = d;
    for (i = 0; i < nkeys && old != NULL; i++) {
	Tcl_Obj *in = NULL;

	if (Tcl_DictObjGet(NULL, old, keys[i], &in) != TCL_OK) {
	    in = NULL;
	}
	old = in;
    }
    if (old != NULL) {
	double x;

	Tcl_GetDoubleFromObj(NULL, old, &x);
	v += x;
    }
    Tcl_DictObjPutKeyList(NULL, d, nkeys, keys, isCount
	    ? Tcl_NewWideIntObj((Tcl_WideInt) v) : Tcl_NewDoubleObj(v));
    for (i = 0; i < nkeys; i++) {
	Tcl_DecrRefCount(keys[i]);
    }
}

/*
 * Put --
 *	Sets key of dict d to v; the key object is released when d already
 *	held the key (Tcl keeps its own).
 */
static void
Put(Tcl_Obj *d, const char *key, Tcl_Obj *v)
{
    Tcl_Obj *k = S(key);

    Tcl_IncrRefCount(k);
    Tcl_DictObjPut(NULL, d, k, v);
    Tcl_DecrRefCount(k);
}

/*
 * Get --
 *	The value of key in dict d, or NULL.
 */
static Tcl_Obj *
Get(Tcl_Obj *d, const char *key)
{
    Tcl_Obj *k = S(key), *v = NULL;

    Tcl_IncrRefCount(k);
    Tcl_DictObjGet(NULL, d, k, &v);
    Tcl_DecrRefCount(k);
    return v;
}

/*
 * SelfTimeDicts --
 *	endpoints {service {endpoint {spans n self s duration s}}},
 *	services {service {spans n self s}} and clients {client {service
 *	self-seconds}} from the spans with a duration.
 */
static void
SelfTimeDicts(const SdSpanSet *set, Tcl_Obj *out)
{
    Tcl_Obj *eps = Tcl_NewDictObj(), *svcs = Tcl_NewDictObj();
    Tcl_Obj *clients = Tcl_NewDictObj();
    int i;

    for (i = 0; i < set->nspans; i++) {
	const SdSpan *s = &set->spans[i];
	Tcl_Obj *svc, *ep, *k[3];

	if (s->self == RB_ABSENT) {
	    continue;
	}
	svc = S(s->service);
	ep = S(s->name);
	Tcl_IncrRefCount(svc);
	Tcl_IncrRefCount(ep);
	DictAdd(eps, 3, (k[0] = svc, k[1] = ep, k[2] = S("spans"), k), 1);
	DictAdd(eps, 3, (k[2] = S("self"), k), s->self / 1e9);
	DictAdd(eps, 3, (k[2] = S("duration"), k), s->dur / 1e9);
	DictAdd(svcs, 2, (k[1] = S("spans"), k), 1);
	DictAdd(svcs, 2, (k[1] = S("self"), k), s->self / 1e9);
	DictAdd(clients, 2, (k[0] = Tcl_NewIntObj(s->client), k[1] = svc, k),
		s->self / 1e9);
	Tcl_DecrRefCount(svc);
	Tcl_DecrRefCount(ep);
    }
    Tcl_DictObjPut(NULL, out, S("endpoints"), eps);
    Tcl_DictObjPut(NULL, out, S("services"), svcs);
    Tcl_DictObjPut(NULL, out, S("clients"), clients);
}

/*
 * SameType --
 *	Whether two spans have the same service and name.
 */
static int
SameType(const SdSpan *a, const SdSpan *b)
{
    return strcmp(a->service ? a->service : "", b->service ? b->service
	    : "") == 0 && strcmp(a->name ? a->name : "", b->name ? b->name
	    : "") == 0;
}

/*
 * ByType --
 *	qsort_r order of span indexes: by service, then name, then index
 *	(file order within a type).
 */
static int
ByType(const void *p, const void *q, void *cd)
{
    const SdSpan *spans = cd;
    int a = *(const int *)p, b = *(const int *)q, c;
    const char *sa = spans[a].service ? spans[a].service : "";
    const char *sb = spans[b].service ? spans[b].service : "";

    if ((c = strcmp(sa, sb)) != 0) {
	return c;
    }
    sa = spans[a].name ? spans[a].name : "";
    sb = spans[b].name ? spans[b].name : "";
    if ((c = strcmp(sa, sb)) != 0) {
	return c;
    }
    return (a > b) - (a < b);
}

/*
 * RequestDicts --
 *	Sets key of out to {service {name {duration-seconds ...}}}: the
 *	spans with a duration (with rootsOnly, the requests: the spans
 *	with no parent) by service and name, their durations in file order.
 */
static void
RequestDicts(const SdSpanSet *set, Tcl_Obj *out, const char *key,
	int rootsOnly)
{
    Tcl_Obj *req = Tcl_NewDictObj();
    int *roots = Rb_AllocArray(set->nspans + 1, sizeof(int));
    int n = 0, i, j;

    for (i = 0; i < set->nspans; i++) {
	if ((!rootsOnly || set->spans[i].parent < 0)
		&& set->spans[i].dur != RB_ABSENT) {
	    roots[n++] = i;
	}
    }
    qsort_r(roots, n, sizeof(int), ByType, set->spans);
    for (i = 0; i < n; i = j) {
	const SdSpan *s = &set->spans[roots[i]];
	Tcl_Obj *list = Tcl_NewListObj(0, NULL), *k[2];

	for (j = i; j < n && SameType(s, &set->spans[roots[j]]); j++) {
	    Tcl_ListObjAppendElement(NULL, list,
		    Tcl_NewDoubleObj(set->spans[roots[j]].dur / 1e9));
	}
	k[0] = S(s->service ? s->service : "");
	k[1] = S(s->name ? s->name : "");
	Tcl_IncrRefCount(k[0]);
	Tcl_IncrRefCount(k[1]);
	Tcl_DictObjPutKeyList(NULL, req, 2, k, list);
	Tcl_DecrRefCount(k[0]);
	Tcl_DecrRefCount(k[1]);
    }
    free(roots);
    Tcl_DictObjPut(NULL, out, S(key), req);
}

/*
 * ServerOf --
 *	For a client (or producer) span, the span that serves it: a shared
 *	server half, or a server (consumer) child.  -1 when none.
 */
static int
ServerOf(const SdSpanSet *set, const int *firstKid, const int *kids, int i)
{
    const char *want = strcmp(set->spans[i].kind, "PRODUCER") == 0
	    ? "CONSUMER" : "SERVER";
    int j;

    for (j = firstKid[i]; j < firstKid[i + 1]; j++) {
	const SdSpan *c = &set->spans[kids[j]];

	if (c->kind && strcmp(c->kind, want) == 0) {
	    return kids[j];
	}
    }
    return -1;
}

/*
 * Observe --
 *	Counts seconds in the histogram which of an edge dict: the first
 *	bucket whose bound is not below it, else the last (over every
 *	bound).
 */
static void
Observe(Tcl_Obj *edge, const char *which, const double *bounds,
	int nbounds, double seconds)
{
    Tcl_Obj *h = Get(edge, which), **v;
    int n, b;

    if (h == NULL) {
	h = Tcl_NewListObj(0, NULL);
	for (b = 0; b <= nbounds; b++) {
	    Tcl_ListObjAppendElement(NULL, h, Tcl_NewIntObj(0));
	}
    } else if (Tcl_IsShared(h)) {
	h = Tcl_DuplicateObj(h);
    }
    for (b = 0; b < nbounds && seconds > bounds[b]; b++) {
    }
    Tcl_ListObjGetElements(NULL, h, &n, &v);
    {
	int c;

	Tcl_GetIntFromObj(NULL, v[b], &c);
	Tcl_ListObjReplace(NULL, h, b, 1, 1,
		(Tcl_Obj *[]) {Tcl_NewIntObj(c + 1)});
    }
    Put(edge, which, h);
}

/*
 * ServiceGraph --
 *	The service graph as OpenTelemetry's service-graph connector builds
 *	it: an edge from a client span's service to the service of the
 *	server span that serves it (or producer to consumer), counting
 *	requests, failed requests (either side in error) and histograms of
 *	the client's and the server's durations over bounds (a count per
 *	bucket, le each bound, then one over the last).  A client span no
 *	server answered makes an edge to its remote service (Zipkin's
 *	remoteEndpoint, OTLP's peer.service), a virtual node, as the
 *	connector does; without one it makes none.
 */
static Tcl_Obj *
ServiceGraph(const SdSpanSet *set, const double *bounds, int nbounds)
{
    int n = set->nspans, i, *first, *kids;
    Tcl_Obj *edges = Tcl_NewDictObj(), *list = Tcl_NewListObj(0, NULL);
    Tcl_DictSearch search;
    Tcl_Obj *key, *value;
    int done;

    ChildIndex(set, &first, &kids);
    for (i = 0; i < n; i++) {
	const SdSpan *c = &set->spans[i], *sv;
	const char *server;
	Tcl_Obj *k, *edge = NULL;
	int j, virtual = 0, v;

	if (c->kind == NULL || (strcmp(c->kind, "CLIENT") != 0
		&& strcmp(c->kind, "PRODUCER") != 0)) {
	    continue;
	}
	j = ServerOf(set, first, kids, i);
	sv = j >= 0 ? &set->spans[j] : NULL;
	server = sv ? sv->service : c->remoteService;
	if (server == NULL) {
	    continue;
	}
	virtual = sv == NULL;
	k = Tcl_NewListObj(0, NULL);
	Tcl_ListObjAppendElement(NULL, k, S(c->service));
	Tcl_ListObjAppendElement(NULL, k, S(server));
	Tcl_IncrRefCount(k);
	Tcl_DictObjGet(NULL, edges, k, &edge);
	edge = edge ? Tcl_DuplicateObj(edge) : Tcl_NewDictObj();
	for (v = 0; v < 3; v++) {
	    static const char *const counts[] = {"requests", "errors",
		"virtual"};
	    Tcl_Obj *o = Get(edge, counts[v]);
	    int x = 0, add = v == 0 ? 1 : v == 1
		    ? (c->error || (sv && sv->error)) : virtual;

	    if (o) {
		Tcl_GetIntFromObj(NULL, o, &x);
	    }
	    Put(edge, counts[v], Tcl_NewIntObj(x + add));
	}
	if (c->dur != RB_ABSENT) {
	    Observe(edge, "clientHistogram", bounds, nbounds, c->dur / 1e9);
	}
	if (sv && sv->dur != RB_ABSENT) {
	    Observe(edge, "serverHistogram", bounds, nbounds, sv->dur / 1e9);
	}
	Tcl_DictObjPut(NULL, edges, k, edge);
	Tcl_DecrRefCount(k);
    }
    Tcl_DictObjFirst(NULL, edges, &search, &key, &value, &done);
    for (; !done; Tcl_DictObjNext(&search, &key, &value, &done)) {
	Tcl_Obj *row = Tcl_NewDictObj(), **kv;
	int nkv;

	Tcl_ListObjGetElements(NULL, key, &nkv, &kv);
	Tcl_DictObjPut(NULL, row, S("client"), kv[0]);
	Tcl_DictObjPut(NULL, row, S("server"), kv[1]);
	Tcl_DictObjPut(NULL, row, S("edge"), value);
	Tcl_ListObjAppendElement(NULL, list, row);
    }
    Tcl_DictObjDone(&search);
    Tcl_DecrRefCount(edges);
    free(first);
    free(kids);
    return list;
}

/*
 * SpansCmd --
 *	stardust::spans FILE ?-buckets LIST?: reads a Zipkin v2 or OTLP
 *	JSON file (in safe mode, one of the named traces) and returns a dict: format, spans, traces, skew {count N
 *	pairs {{childHost H parentHost H count n meanSeconds s maxSeconds
 *	s} ...}}, endpoints, services, clients (self time, see
 *	SelfTimeDicts), and serviceGraph {buckets LIST edges {{client C
 *	server S edge {requests n errors n virtual n clientHistogram L
 *	serverHistogram L}} ...}}.
 */
static int
SpansCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Tcl_Channel ch;
    Tcl_Obj *data, *out, *pairs, *sg, *bl;
    SdSpanSet set;
    Rb_Error err;
    double *bounds;
    int nbounds = (int)(sizeof(defaultBuckets) / sizeof(double)), i;
    const char *bytes;
    int len;

    if (objc != 2 && objc != 4) {
	Tcl_WrongNumArgs(interp, 1, objv, "file ?-buckets list?");
	return TCL_ERROR;
    }
    bounds = Rb_Alloc(sizeof(defaultBuckets));
    memcpy(bounds, defaultBuckets, sizeof(defaultBuckets));
    if (objc == 4) {
	Tcl_Obj **v;

	if (strcmp(Tcl_GetString(objv[2]), "-buckets") != 0
		|| Tcl_ListObjGetElements(interp, objv[3], &nbounds, &v)
		!= TCL_OK) {
	    free(bounds);
	    return Rb_SetInterpError(interp, "RUBICON STARDUST USAGE",
		    "expected -buckets {seconds ...}");
	}
	bounds = Rb_ReallocArray(bounds, (nbounds + 1), sizeof(double));
	for (i = 0; i < nbounds; i++) {
	    if (Tcl_GetDoubleFromObj(interp, v[i], &bounds[i]) != TCL_OK
		    || (i > 0 && !(bounds[i] > bounds[i - 1]))) {
		free(bounds);
		return Rb_SetInterpError(interp, "RUBICON STARDUST USAGE",
			"-buckets must be increasing numbers of seconds");
	    }
	}
    }
    /* In C, past the safe interpreter's rules: safe mode's own check. */
    ch = Rb_SafeCheckRead(interp, Tcl_GetString(objv[1])) != TCL_OK ? NULL
	    : Tcl_FSOpenFileChannel(interp, objv[1], "r", 0);
    if (ch == NULL) {
	free(bounds);
	return TCL_ERROR;
    }
    Tcl_SetChannelOption(NULL, ch, "-translation", "binary");
    data = Tcl_NewObj();
    Tcl_IncrRefCount(data);
    if (Tcl_ReadChars(ch, data, -1, 0) < 0) {
	Tcl_Close(NULL, ch);
	Tcl_DecrRefCount(data);
	free(bounds);
	return Rb_SetInterpError(interp, "RUBICON STARDUST READ",
		"%s: %s", Tcl_GetString(objv[1]), Tcl_PosixError(interp));
    }
    Tcl_Close(NULL, ch);
    bytes = (const char *)Tcl_GetByteArrayFromObj(data, &len);
    if (Sd_SpansParse(&set, bytes, (size_t)len, Tcl_GetString(objv[1]),
	    &err) != TCL_OK) {
	Sd_SpansFree(&set);
	Tcl_DecrRefCount(data);
	free(bounds);
	Rb_ErrorToInterp(interp, &err);
	return TCL_ERROR;
    }
    out = Tcl_NewDictObj();
    Tcl_DictObjPut(NULL, out, S("format"), S(set.format == SD_SPANS_OTLP
	    ? "otlp" : "zipkin"));
    Tcl_DictObjPut(NULL, out, S("spans"), Tcl_NewIntObj(set.nspans));
    Tcl_DictObjPut(NULL, out, S("traces"), Tcl_NewIntObj(set.ntraces));
    pairs = Tcl_NewListObj(0, NULL);
    for (i = 0; i < set.nskew; i++) {
	const SdSkew *k = &set.skew[i];
	Tcl_Obj *p = Tcl_NewDictObj();

	Tcl_DictObjPut(NULL, p, S("childHost"), S(k->childHost));
	Tcl_DictObjPut(NULL, p, S("parentHost"), S(k->parentHost));
	Tcl_DictObjPut(NULL, p, S("count"), Tcl_NewIntObj(k->count));
	Tcl_DictObjPut(NULL, p, S("meanSeconds"),
		Tcl_NewDoubleObj(k->sum / 1e9 / k->count));
	Tcl_DictObjPut(NULL, p, S("maxSeconds"),
		Tcl_NewDoubleObj(k->max / 1e9));
	Tcl_ListObjAppendElement(NULL, pairs, p);
    }
    {
	Tcl_Obj *sk = Tcl_NewDictObj();

	Tcl_DictObjPut(NULL, sk, S("count"), Tcl_NewIntObj(set.skewed));
	Tcl_DictObjPut(NULL, sk, S("pairs"), pairs);
	Tcl_DictObjPut(NULL, out, S("skew"), sk);
    }
    SelfTimeDicts(&set, out);
    RequestDicts(&set, out, "requests", 1);
    RequestDicts(&set, out, "operations", 0);
    sg = Tcl_NewDictObj();
    bl = Tcl_NewListObj(0, NULL);
    for (i = 0; i < nbounds; i++) {
	Tcl_ListObjAppendElement(NULL, bl, Tcl_NewDoubleObj(bounds[i]));
    }
    Tcl_DictObjPut(NULL, sg, S("buckets"), bl);
    Tcl_DictObjPut(NULL, sg, S("edges"), ServiceGraph(&set, bounds,
	    nbounds));
    Tcl_DictObjPut(NULL, out, S("serviceGraph"), sg);
    Sd_SpansFree(&set);
    Tcl_DecrRefCount(data);
    free(bounds);
    Tcl_SetObjResult(interp, out);
    return TCL_OK;
}

/*
 * Sd_SpansInitCmds --
 *	Creates stardust::spans.
 */
int
Sd_SpansInitCmds(Tcl_Interp *interp)
{
    Tcl_CreateObjCommand(interp, "::stardust::spans", SpansCmd, NULL, NULL);
    return TCL_OK;
}

#endif /* HAVE_JANSSON */
