/*
 * chrome.c --
 *
 *	Records as Chrome trace-event JSON (the "JSON Object Format" that
 *	chrome://tracing and the Perfetto UI open), for TraceWriter
 *	-format chrome.  Block I/O records become complete ("X") events on
 *	a track per device: one slice per I/O from enqueue to completion,
 *	holding a "queue" slice (enqueue to issue) and a "service" slice
 *	(issue to completion).  I/Os that overlap go on separate lanes
 *	(threads) of the device's process, the lowest free lane first, so
 *	slices on a lane never overlap.  Stardust records pair a span's
 *	Call and Reply into one slice on its process and thread, where
 *	child spans nest inside their parent (spans without process and
 *	thread, Zipkin's, go on a process per service).  Other event records (ftrace,
 *	Magpie) are instant ("i") events on their thread.  Only the lanes
 *	and the spans still open are kept: memory does not grow with the
 *	trace.  See doc/TraceWriter.n.
 */

#include "io/ioInt.h"
#include "io/chrome.h"

typedef struct Lanes {
    int pid;			/* Its process: 1, 2, ... in order seen. */
    int n, cap;
    int64_t *end;		/* When the last I/O of each lane ends. */
} Lanes;

typedef struct Span {
    int64_t start, pid, tid;
    int64_t name, service;	/* string ids, or RB_ABSENT */
} Span;

struct RbChromeWriter {
    FILE *fp;
    const Rb_Schema *schema;
    int io;			/* The I/O schema. */
    int first;			/* No event written yet. */
    Tcl_HashTable lanes;	/* deviceNo -> Lanes */
    Tcl_HashTable spans;	/* breadcrumb -> Span, Call seen */
    Tcl_HashTable threads;	/* "pid tid" seen, for thread names */
    Tcl_HashTable services;	/* service string id -> its process */
    int fType, fCrumb, fPid, fTid, fName, fService, fEvent, fThread;
    int64_t lastTime;
};

/*
 * PutMicros --
 *	ns as microseconds, the unit of "ts" and "dur", exactly (three
 *	decimals).
 */
static void
PutMicros(FILE *fp, int64_t ns)
{
    uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

    fprintf(fp, "%s%llu.%03llu", ns < 0 ? "-" : "",
	    (unsigned long long)(mag / 1000), (unsigned long long)(mag % 1000));
}

/*
 * Begin --
 *	Starts an event: the separator, ph, name, pid, tid and ts; the
 *	caller adds what else it has and closes the object.
 */
static void
Begin(RbChromeWriter *w, const char *ph, const char *name, int64_t pid,
	int64_t tid, int64_t ts)
{
    FILE *fp = w->fp;

    fputs(w->first ? "\n" : ",\n", fp);
    w->first = 0;
    fprintf(fp, "{\"ph\":\"%s\",\"name\":", ph);
    Rb_JsonString(fp, name);
    fprintf(fp, ",\"pid\":%lld,\"tid\":%lld,\"ts\":", (long long)pid,
	    (long long)tid);
    PutMicros(fp, ts);
}

/*
 * Meta --
 *	A metadata event naming a process (tid ignored) or a thread.
 */
static void
Meta(RbChromeWriter *w, const char *what, int64_t pid, int64_t tid,
	const char *name)
{
    Begin(w, "M", what, pid, tid, 0);
    fputs(",\"args\":{\"name\":", w->fp);
    Rb_JsonString(w->fp, name);
    fputs("}}", w->fp);
}

/*
 * Slice --
 *	A complete event from start to end (end absent: of no duration).
 */
static void
Slice(RbChromeWriter *w, const char *name, const char *cat, int64_t pid,
	int64_t tid, int64_t start, int64_t end)
{
    Begin(w, "X", name, pid, tid, start);
    fputs(",\"dur\":", w->fp);
    PutMicros(w->fp, end == RB_ABSENT || end < start ? 0 : end - start);
    fprintf(w->fp, ",\"cat\":\"%s\"", cat);
}

/*
 * FieldOf --
 *	The index of the first of the named fields the schema has, or -1.
 */
static int
FieldOf(const Rb_Schema *s, const char *a, const char *b)
{
    int f = Rb_SchemaFieldIndex(s, a);

    return f >= 0 || b == NULL ? f : Rb_SchemaFieldIndex(s, b);
}

/*
 * RbChromeOpen --
 *	Starts a Chrome trace-event file on fp for records of schema s,
 *	whose times count from epochNs.
 * Results: the writer.
 */
RbChromeWriter *
RbChromeOpen(FILE *fp, const Rb_Schema *s, int64_t epochNs)
{
    RbChromeWriter *w = Rb_Alloc(sizeof(*w));
    uint64_t mag = epochNs < 0 ? -(uint64_t)epochNs : (uint64_t)epochNs;

    w->fp = fp;
    w->schema = s;
    w->io = s == Rb_IoSchema();
    w->first = 1;
    Tcl_InitHashTable(&w->lanes, TCL_ONE_WORD_KEYS);
    Tcl_InitHashTable(&w->spans, sizeof(int64_t) / sizeof(int));
    Tcl_InitHashTable(&w->threads, TCL_STRING_KEYS);
    Tcl_InitHashTable(&w->services, sizeof(int64_t) / sizeof(int));
    w->fType = FieldOf(s, "type", NULL);
    w->fCrumb = FieldOf(s, "breadcrumb", NULL);
    w->fPid = FieldOf(s, "pid", NULL);
    w->fTid = FieldOf(s, "tid", NULL);
    w->fThread = FieldOf(s, "Thread", "thread");
    w->fName = FieldOf(s, "name", NULL);
    w->fService = FieldOf(s, "service", NULL);
    w->fEvent = FieldOf(s, "event", "type");
    w->lastTime = INT64_MIN;
    fprintf(fp, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"schema\":");
    Rb_JsonString(fp, s->name);
    fprintf(fp, ",\"epoch\":\"%s%llu.%09llu\"},\"traceEvents\":[",
	    epochNs < 0 ? "-" : "", (unsigned long long)(mag / 1000000000),
	    (unsigned long long)(mag % 1000000000));
    return w;
}

/*
 * Lane --
 *	The lowest lane of device dev free at time t, taken until end.
 *	Devices are processes 1, 2, ... (a dev_t may not fit the 32 bits
 *	viewers give a pid), named after the device.
 * Results: the lane, from 1, with *pid set to the device's process; the
 *	process and thread are named when first used.
 */
static int
Lane(RbChromeWriter *w, int64_t dev, int64_t t, int64_t end, int *pid)
{
    int isNew, k;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(&w->lanes, (char *)(intptr_t)dev,
	    &isNew);
    Lanes *l;

    if (isNew) {
	char name[64];

	l = Rb_Alloc(sizeof(*l));
	l->pid = w->lanes.numEntries;
	Tcl_SetHashValue(e, l);
	/* As every report prints it and a Filter takes it: how a number
	 * splits into major and minor depends on the trace's system. */
	snprintf(name, sizeof(name), "deviceNo %lld", (long long)dev);
	Meta(w, "process_name", l->pid, 0, name);
    }
    l = Tcl_GetHashValue(e);
    *pid = l->pid;
    for (k = 0; k < l->n && l->end[k] > t; k++) {
	continue;
    }
    if (k == l->n) {
	char name[32];

	if (l->n == l->cap) {
	    l->cap = l->cap ? 2 * l->cap : 8;
	    l->end = Rb_Realloc(l->end, sizeof(int64_t) * l->cap);
	}
	l->n++;
	snprintf(name, sizeof(name), "lane %d", k + 1);
	Meta(w, "thread_name", l->pid, k + 1, name);
    }
    l->end[k] = end < t ? t : end;
    return k + 1;
}

/*
 * WriteIo --
 *	One I/O record: its slice on a lane of its device, with the queue
 *	and service phases inside.
 */
static void
WriteIo(RbChromeWriter *w, const Rb_Batch *b, int i)
{
    int64_t t = b->col[RB_IO_TIME][i], d = b->col[RB_IO_START][i];
    int64_t c = b->col[RB_IO_FINISH][i], dev = b->col[RB_IO_DEVICE][i];
    int64_t end = c != RB_ABSENT ? c : d != RB_ABSENT ? d : t;
    int64_t op = b->col[RB_IO_OP][i];
    const char *sep = "";
    int lane, pid, f;

    if (dev == RB_ABSENT) {
	dev = 0;
    }
    lane = Lane(w, dev, t, end, &pid);
    Slice(w, op == RB_OP_READ ? "read" : op == RB_OP_WRITE ? "write" : "io",
	    "io", pid, lane, t, end);
    fputs(",\"args\":{", w->fp);
    for (f = 0; f < b->schema->nfields; f++) {
	int64_t v = b->col[f][i];

	if (v != RB_ABSENT && f != RB_IO_TIME) {
	    fprintf(w->fp, "%s\"%s\":%lld", sep, b->schema->fields[f].name,
		    (long long)v);
	    sep = ",";
	}
    }
    fputs("}}", w->fp);
    if (d != RB_ABSENT && d >= t && (c == RB_ABSENT || c >= d)) {
	Slice(w, "queue", "io", pid, lane, t, d);
	fputs("}", w->fp);
	if (c != RB_ABSENT) {
	    Slice(w, "service", "io", pid, lane, d, c);
	    fputs("}", w->fp);
	}
    }
}

/*
 * Str --
 *	Field f of record i as text ("" when absent or no such field).
 */
static const char *
Str(const Rb_Batch *b, int f, int i, char *buf, size_t len)
{
    int64_t v;

    if (f < 0 || (v = b->col[f][i]) == RB_ABSENT) {
	return "";
    }
    if (b->schema->fields[f].type == RB_FT_STRING) {
	return Rb_SchemaString(b->schema, v);
    }
    snprintf(buf, len, "%lld", (long long)v);
    return buf;
}

/*
 * Int --
 *	Field f of record i, or 0 when absent or no such field.
 */
static int64_t
Int(const Rb_Batch *b, int f, int i)
{
    return f < 0 || b->col[f][i] == RB_ABSENT
	    || b->schema->fields[f].type != RB_FT_INT ? 0 : b->col[f][i];
}

/*
 * EndSpan --
 *	Writes the slice of an open span, ended at end.
 */
static void
EndSpan(RbChromeWriter *w, const Span *sp, int64_t crumb, int64_t end,
	int complete)
{
    const char *name = sp->name != RB_ABSENT
	    ? Rb_SchemaString(w->schema, sp->name) : "span";

    Slice(w, name, "span", sp->pid, sp->tid, sp->start, end);
    /* As a string: breadcrumbs pass 2^53, where JSON numbers round. */
    fprintf(w->fp, ",\"args\":{\"breadcrumb\":\"%lld\"", (long long)crumb);
    if (sp->service != RB_ABSENT) {
	fputs(",\"service\":", w->fp);
	Rb_JsonString(w->fp, Rb_SchemaString(w->schema, sp->service));
    }
    fprintf(w->fp, "%s}}", complete ? "" : ",\"incomplete\":true");
}

/*
 * ServicePid --
 *	The process standing for a service, for spans that carry no
 *	process or thread (Zipkin's): 1, 2, ... in the order services
 *	appear, each named after its service.
 */
static int64_t
ServicePid(RbChromeWriter *w, int64_t service)
{
    int isNew;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(&w->services, (char *)&service,
	    &isNew);

    if (isNew) {
	Tcl_SetHashValue(e, (ClientData)(intptr_t)w->services.numEntries);
	Meta(w, "process_name", w->services.numEntries, 0,
		Rb_SchemaString(w->schema, service));
    }
    return (intptr_t)Tcl_GetHashValue(e);
}

/*
 * WriteEvent --
 *	One event record: a Stardust Call opens a span, its Reply writes
 *	it; any other record is an instant event on its thread.
 */
static void
WriteEvent(RbChromeWriter *w, const Rb_Batch *b, int i)
{
    char buf[32], key[48];
    const char *type = Str(b, w->fType, i, buf, sizeof(buf));
    int64_t t = b->col[0][i], pid = Int(b, w->fPid, i);
    int64_t tid = Int(b, w->fTid >= 0 ? w->fTid : w->fThread >= 0
	    ? w->fThread : w->fPid, i);
    Tcl_HashEntry *e;
    int isNew;

    if (w->fCrumb >= 0 && b->col[w->fCrumb][i] != RB_ABSENT
	    && (strcmp(type, "Call") == 0 || strcmp(type, "Reply") == 0)) {
	int64_t crumb = b->col[w->fCrumb][i];

	if (type[0] == 'C') {
	    Span *sp;

	    e = Tcl_CreateHashEntry(&w->spans, (char *)&crumb, &isNew);
	    if (!isNew) {
		free(Tcl_GetHashValue(e));
	    }
	    sp = Rb_Alloc(sizeof(*sp));
	    sp->start = t;
	    sp->pid = pid;
	    sp->tid = tid;
	    sp->name = w->fName >= 0 ? b->col[w->fName][i] : RB_ABSENT;
	    sp->service = w->fService >= 0 ? b->col[w->fService][i]
		    : RB_ABSENT;
	    if (pid == 0 && tid == 0 && sp->service != RB_ABSENT) {
		sp->pid = ServicePid(w, sp->service);
	    }
	    Tcl_SetHashValue(e, sp);
	} else if ((e = Tcl_FindHashEntry(&w->spans, (char *)&crumb))
		!= NULL) {
	    Span *sp = Tcl_GetHashValue(e);

	    EndSpan(w, sp, crumb, t, 1);
	    free(sp);
	    Tcl_DeleteHashEntry(e);
	}
	return;
    }
    snprintf(key, sizeof(key), "%lld %lld", (long long)pid, (long long)tid);
    Tcl_CreateHashEntry(&w->threads, key, &isNew);
    if (isNew && w->fThread >= 0 && w->fTid < 0
	    && b->schema->fields[w->fThread].type == RB_FT_STRING) {
	Meta(w, "thread_name", pid, tid, Str(b, w->fThread, i, buf,
		sizeof(buf)));
    }
    Begin(w, "i", w->fEvent >= 0 ? Str(b, w->fEvent, i, buf, sizeof(buf))
	    : "event", pid, tid, t);
    fputs(",\"s\":\"t\",\"cat\":\"event\"}", w->fp);
}

/*
 * RbChromeWrite --
 *	Writes the selected records of b (all when sel is NULL).
 */
void
RbChromeWrite(RbChromeWriter *w, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    int k;

    for (k = 0; k < nsel; k++) {
	int i = sel ? (int)sel[k] : k;

	if (b->col[0][i] > w->lastTime) {
	    w->lastTime = b->col[0][i];
	}
	if (w->io) {
	    WriteIo(w, b, i);
	} else {
	    WriteEvent(w, b, i);
	}
    }
}

/*
 * RbChromeClose --
 *	Writes the spans still open (ended at the last record's time,
 *	marked incomplete) and the end of the file, then frees w; with
 *	abandon set, only frees it.
 */
void
RbChromeClose(RbChromeWriter *w, int abandon)
{
    Tcl_HashSearch s;
    Tcl_HashEntry *e;

    for (e = Tcl_FirstHashEntry(&w->spans, &s); e; e = Tcl_NextHashEntry(&s)) {
	Span *sp = Tcl_GetHashValue(e);

	if (!abandon) {
	    EndSpan(w, sp, *(int64_t *)Tcl_GetHashKey(&w->spans, e),
		    w->lastTime, 0);
	}
	free(sp);
    }
    for (e = Tcl_FirstHashEntry(&w->lanes, &s); e; e = Tcl_NextHashEntry(&s)) {
	Lanes *l = Tcl_GetHashValue(e);

	free(l->end);
	free(l);
    }
    if (!abandon) {
	fputs("\n]}\n", w->fp);
    }
    Tcl_DeleteHashTable(&w->spans);
    Tcl_DeleteHashTable(&w->lanes);
    Tcl_DeleteHashTable(&w->threads);
    Tcl_DeleteHashTable(&w->services);
    free(w);
}
