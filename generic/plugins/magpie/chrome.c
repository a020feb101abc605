/*
 * chrome.c --
 *
 *	magpie::chrome FLOW FILE ?ATTRIBUTE?: the requests a
 *	MagpieParserAnalyzer extracted, as Chrome trace-event JSON (what
 *	chrome://tracing and the Perfetto UI open), in the conventions of
 *	TraceWriter -format chrome: a process per machine, a thread per
 *	thread of the log (interrupt contexts apart), and on each thread a
 *	slice per request from its first to its last entry there, holding a
 *	"cpu" slice per CPU charge and an instant event per event.  The
 *	requests are the parser's result, made when the run ends, so they
 *	are written from the Flow after the run, not by a TraceWriter.
 *	The two JSON helpers repeat those of generic/io/chrome.c: a plugin
 *	uses only the public API of rubicon.h.
 */

#include <errno.h>
#include <unistd.h>
#include "plugins/magpie/magpie.h"

#define INTR_TID (1LL << 30)	/* interrupt contexts: INTR_TID + record,
				 * above any pid yet within 32 bits */

/*
 * PutMicros --
 *	ns as microseconds with three decimals (exact).
 */
static void
PutMicros(FILE *fp, int64_t ns)
{
    uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

    fprintf(fp, "%s%llu.%03llu", ns < 0 ? "-" : "",
	    (unsigned long long)(mag / 1000), (unsigned long long)(mag % 1000));
}

/*
 * Event --
 *	Starts an event object (with its separator); the caller closes it.
 */
static void
Event(FILE *fp, int *first, const char *ph, const char *name, int64_t pid,
	int64_t tid, int64_t ts)
{
    fputs(*first ? "\n" : ",\n", fp);
    *first = 0;
    fprintf(fp, "{\"ph\":\"%s\",\"name\":", ph);
    Rb_JsonString(fp, name);
    fprintf(fp, ",\"pid\":%lld,\"tid\":%lld,\"ts\":", (long long)pid,
	    (long long)tid);
    PutMicros(fp, ts);
}

/*
 * Tid --
 *	The Chrome thread of an entry: the thread's value, or INTR_TID plus
 *	the record that began its interrupt context.
 */
static int64_t
Tid(const MgEvent *e)
{
    return e->intr ? INTR_TID + e->thread : e->thread;
}

/*
 * WriteRequest --
 *	Request r: per thread it ran on (in order of first appearance), its
 *	slice there with the CPU charges and events inside.
 */
static void
WriteRequest(FILE *fp, int *first, const MgSchema *mg, const MgRequest *r,
	Tcl_HashTable *named)
{
    const Rb_Schema *rec = mg->rec;
    int tf = MgThreadField(mg), k, j;
    char label[64];
    const char *name;

    if (r->label != RB_ABSENT) {
	name = Rb_SchemaString(rec, r->label);
    } else {
	snprintf(label, sizeof(label), "request %lld", (long long)r->id);
	name = label;
    }
    for (k = 0; k < r->nev; k++) {
	const MgEvent *e = &r->ev[k];
	int64_t tid = Tid(e), pid = e->machine + 1, lo = INT64_MAX, hi = 0;
	char key[48];
	int isNew, seen = 0;

	if (e->thread == RB_ABSENT) {
	    continue;
	}
	for (j = 0; j < k && !seen; j++) {
	    seen = r->ev[j].thread != RB_ABSENT && Tid(&r->ev[j]) == tid
		    && r->ev[j].machine == e->machine;
	}
	if (seen) {
	    continue;		/* this thread's slice is written */
	}
	snprintf(key, sizeof(key), "%lld", (long long)pid);
	Tcl_CreateHashEntry(named, key, &isNew);
	if (isNew) {
	    Event(fp, first, "M", "process_name", pid, 0, 0);
	    fputs(",\"args\":{\"name\":", fp);
	    Rb_JsonString(fp, Rb_SchemaString(rec, e->machine));
	    fputs("}}", fp);
	}
	snprintf(key, sizeof(key), "%lld %lld", (long long)pid,
		(long long)tid);
	Tcl_CreateHashEntry(named, key, &isNew);
	if (isNew) {
	    char tname[64];

	    if (e->intr) {
		snprintf(tname, sizeof(tname), "interrupt at record %lld",
			(long long)e->thread);
	    } else if (tf >= 0 && rec->fields[tf].type == RB_FT_STRING) {
		snprintf(tname, sizeof(tname), "%.60s",
			Rb_SchemaString(rec, e->thread));
	    } else {
		snprintf(tname, sizeof(tname), "thread %lld",
			(long long)e->thread);
	    }
	    Event(fp, first, "M", "thread_name", pid, tid, 0);
	    fputs(",\"args\":{\"name\":", fp);
	    Rb_JsonString(fp, tname);
	    fputs("}}", fp);
	}
	for (j = k; j < r->nev; j++) {
	    const MgEvent *x = &r->ev[j];
	    int64_t from = x->kind == MG_CPU ? x->time - x->amount : x->time;

	    if (x->thread == RB_ABSENT || Tid(x) != tid
		    || x->machine != e->machine) {
		continue;
	    }
	    lo = from < lo ? from : lo;
	    hi = x->time > hi ? x->time : hi;
	}
	Event(fp, first, "X", name, pid, tid, lo);
	fputs(",\"dur\":", fp);
	PutMicros(fp, hi - lo);
	fprintf(fp, ",\"cat\":\"request\",\"args\":{\"id\":%lld}}",
		(long long)r->id);
	for (j = k; j < r->nev; j++) {
	    const MgEvent *x = &r->ev[j];

	    if (x->thread == RB_ABSENT || Tid(x) != tid
		    || x->machine != e->machine) {
		continue;
	    }
	    if (x->kind == MG_CPU) {
		Event(fp, first, "X", "cpu", pid, tid, x->time - x->amount);
		fputs(",\"dur\":", fp);
		PutMicros(fp, x->amount);
		fputs(",\"cat\":\"cpu\"}", fp);
	    } else if (x->kind == MG_EVENT) {
		Event(fp, first, "i", x->type >= 0 ? mg->events[x->type].name
			: "event", pid, tid, x->time);
		fprintf(fp, ",\"s\":\"t\",\"cat\":\"event\",\"args\":"
			"{\"record\":%llu}}", (unsigned long long)x->recNo);
	    }
	}
    }
}

/*
 * ChromeCmd --
 *	magpie::chrome FLOW FILE ?ATTRIBUTE?: writes every request listed
 *	by the MagpieParserAnalyzer that set ATTRIBUTE (default Requests)
 *	on FLOW to FILE through Rb_Out (a temporary name renamed when whole;
 *	in safe mode only inside the output directory).
 * Results: the number of requests written.
 */
static int
ChromeCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    const char *attrName = objc == 4 ? Tcl_GetString(objv[3]) : "Requests";
    const char *path;
    const Rb_Attribute *attr;
    const MgSchema *mg;
    const MgRequest *r;
    Tcl_HashTable named;
    Rb_Out out;
    Rb_Flow *flow;
    FILE *fp;
    int64_t id;
    int first = 1;

    if (objc != 3 && objc != 4) {
	Tcl_WrongNumArgs(interp, 1, objv, "flow file ?attribute?");
	return TCL_ERROR;
    }
    if ((flow = Rb_FlowFromObj(interp, objv[1])) == NULL) {
	return TCL_ERROR;
    }
    attr = Rb_FlowGetAttr(flow, attrName);
    mg = attr ? MgParserSchema(attr->producer) : NULL;
    if (mg == NULL) {
	return Rb_SetInterpError(interp, "RUBICON MAGPIE REQUEST", "flow "
		"\"%s\" has no attribute \"%s\" set by a MagpieParserAnalyzer",
		Rb_FlowName(flow), attrName);
    }
    path = Tcl_GetString(objv[2]);
    if (Rb_OutOpen(interp, path, &out) != TCL_OK) {
	return TCL_ERROR;
    }
    fp = out.fp;
    Tcl_InitHashTable(&named, TCL_STRING_KEYS);
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"schema\":", fp);
    Rb_JsonString(fp, mg->rec->name);
    fputs("},\"traceEvents\":[", fp);
    for (id = 1; (r = MgParserRequest(attr->producer, id)) != NULL; id++) {
	WriteRequest(fp, &first, mg, r, &named);
    }
    fputs("\n]}\n", fp);
    Tcl_DeleteHashTable(&named);
    if (Rb_OutClose(interp, &out) != TCL_OK) {
	return TCL_ERROR;
    }
    Tcl_SetObjResult(interp, Tcl_NewWideIntObj(id - 1));
    return TCL_OK;
}

/*
 * MgChromeInitCmds --
 *	Creates magpie::chrome.
 */
int
MgChromeInitCmds(Tcl_Interp *interp)
{
    Tcl_CreateObjCommand(interp, "::magpie::chrome", ChromeCmd, NULL, NULL);
    return TCL_OK;
}
