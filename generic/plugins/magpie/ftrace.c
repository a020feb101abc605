/*
 * ftrace.c --
 *
 *	The "ftrace" trace format: Linux ftrace text output (the "trace"
 *	file), the modern equivalent of the kernel events Magpie used.
 *	Lines look like
 *
 *	    TASK-PID  (TGID) [CPU] FLAGS  SECONDS: EVENT: ARGS
 *
 *	where the TGID and FLAGS columns are optional.  sched_switch and
 *	sched_wakeup arguments and tracing_mark_write (application marker)
 *	text become fields; other events keep their name, CPU and task.
 *	Times are seconds since boot, so the trace epoch is boot.
 */

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include "plugins/magpie/magpie.h"

enum {
    FT_TIME = 0, FT_MACHINE, FT_EVENT, FT_CPU, FT_PID, FT_TASK,
    FT_PREV_COMM, FT_PREV_PID, FT_PREV_STATE, FT_NEXT_COMM, FT_NEXT_PID,
    FT_WAKE_COMM, FT_WAKE_PID, FT_TARGET_CPU, FT_MARKER, FT_NFIELDS
};

typedef struct FtraceState {
    int64_t machine;
    int64_t switchId;		/* Interned event names compared per line. */
    int64_t wakeupId;
    int64_t markId;
    int failed;
    Rb_Error pending;
} FtraceState;

static pthread_once_t schemaOnce = PTHREAD_ONCE_INIT;
static Rb_Schema *ftraceSchema;

/*
 * MakeSchema --
 *	The one record schema of every ftrace file, made once.
 */
static void
MakeSchema(void)
{
    static const struct { const char *name; Rb_FieldType type;
	    const char *help; } f[] = {
	{"machine", RB_FT_STRING, "machine (trace file)"},
	{"event", RB_FT_STRING, "event name (sched_switch, ...)"},
	{"cpu", RB_FT_INT, "CPU the event was logged on"},
	{"pid", RB_FT_INT, "thread (pid) running when it was logged"},
	{"task", RB_FT_STRING, "command name of that thread"},
	{"prev_comm", RB_FT_STRING, "sched_switch: thread switched out"},
	{"prev_pid", RB_FT_INT, "sched_switch: its pid"},
	{"prev_state", RB_FT_STRING, "sched_switch: its state (R, S, D...)"},
	{"next_comm", RB_FT_STRING, "sched_switch: thread switched in"},
	{"next_pid", RB_FT_INT, "sched_switch: its pid"},
	{"wake_comm", RB_FT_STRING, "sched_wakeup: thread woken"},
	{"wake_pid", RB_FT_INT, "sched_wakeup: its pid"},
	{"target_cpu", RB_FT_INT, "sched_wakeup: CPU it will run on"},
	{"marker", RB_FT_STRING, "tracing_mark_write: application text"},
    };
    size_t i;

    ftraceSchema = Rb_SchemaCreate("ftrace");
    for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
	Rb_SchemaAddField(ftraceSchema, f[i].name, f[i].type, RB_UNIT_NONE,
		f[i].help);
    }
}

/*
 * MgFtraceSchemaFree --
 *	At exit: releases the ftrace schema, if it was made.
 */
void
MgFtraceSchemaFree(void)
{
    if (ftraceSchema != NULL) {
	Rb_SchemaRelease(ftraceSchema);
	ftraceSchema = NULL;
    }
}

/*
 * FindCpu --
 *	The " [NNN]" CPU column of a line.
 * Results: pointer to its '[', or NULL.
 */
static char *
FindCpu(char *line)
{
    char *p = line;

    while ((p = strchr(p, '[')) != NULL) {
	char *q = p + 1;

	while (isdigit((unsigned char)*q)) {
	    q++;
	}
	if (q > p + 1 && *q == ']' && p > line && p[-1] == ' ') {
	    return p;
	}
	p++;
    }
    return NULL;
}

/*
 * FtraceSniff --
 *	"# tracer:" heads a trace file; otherwise a line with a CPU column
 *	and an event after a timestamp.
 */
static int
FtraceSniff(const unsigned char *head, size_t n)
{
    char buf[1024];
    size_t k = n < sizeof(buf) - 1 ? n : sizeof(buf) - 1;
    char *cpu;

    if (n >= 9 && memcmp(head, "# tracer:", 9) == 0) {
	return 90;
    }
    memcpy(buf, head, k);
    buf[k] = '\0';
    if (strchr(buf, '\n')) {
	*strchr(buf, '\n') = '\0';
    }
    cpu = FindCpu(buf);
    return cpu != NULL && strstr(cpu, ": ") != NULL ? 40 : 0;
}

static int
FtraceOpen(Rb_Reader *r, Rb_Error *err)
{
    FtraceState *st = r->state;
    const char *path = Rb_InputPath(r->in), *base, *dot;
    Tcl_Obj *v = NULL, *key;

    pthread_once(&schemaOnce, MakeSchema);
    r->schema = ftraceSchema;
    Rb_SchemaRetain(r->schema);
    key = Tcl_NewStringObj("machine", -1);
    Tcl_IncrRefCount(key);
    if (r->options == NULL
	    || Tcl_DictObjGet(NULL, r->options, key, &v) != TCL_OK) {
	v = NULL;
    }
    Tcl_DecrRefCount(key);
    if (v != NULL) {
	st->machine = Rb_SchemaIntern(r->schema, Tcl_GetString(v),
		strlen(Tcl_GetString(v)));
    } else {
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dot = strchr(base, '.');
	st->machine = Rb_SchemaIntern(r->schema, base,
		dot ? (size_t)(dot - base) : strlen(base));
    }
    st->switchId = Rb_SchemaIntern(r->schema, "sched_switch", 12);
    st->wakeupId = Rb_SchemaIntern(r->schema, "sched_wakeup", 12);
    st->markId = Rb_SchemaIntern(r->schema, "tracing_mark_write", 18);
    r->epochNs = 0;
    return TCL_OK;
}

/*
 * Between --
 *	The text after key and up to the next stop (or the end), interned
 *	into field f of record i; for an int field, parsed.
 * Results: 1, or 0 if key is missing or an int is malformed.
 */
static int
Between(Rb_Reader *r, Rb_Batch *b, int i, int f, const char *args,
	const char *key, const char *stop)
{
    const char *p = strstr(args, key), *e;
    char *end;

    if (p == NULL) {
	return 0;
    }
    p += strlen(key);
    e = stop ? strstr(p, stop) : NULL;
    if (e == NULL) {
	e = p + strcspn(p, " ");
    }
    if (r->schema->fields[f].type == RB_FT_INT) {
	long long v = strtoll(p, &end, 10);

	if (end != e || end == p) {
	    return 0;
	}
	b->col[f][i] = v;
    } else {
	b->col[f][i] = Rb_SchemaIntern(r->schema, p, (size_t)(e - p));
    }
    return 1;
}

/*
 * ParseLine --
 *	Fills record i from one trace line.
 * Results: NULL, or the malformed-line kind.
 */
static const char *
ParseLine(Rb_Reader *r, char *line, Rb_Batch *b, int i)
{
    FtraceState *st = r->state;
    char *cpu = FindCpu(line), *p, *dash, *task, *ev, *args, *end;
    int64_t t, evId;
    int used;

    if (cpu == NULL) {
	return "no-cpu";
    }
    /* TASK-PID, then an optional "(TGID)" column. */
    p = cpu - 1;
    while (p > line && p[-1] == ' ') {
	p--;
    }
    if (p > line && p[-1] == ')') {
	while (p > line && p[-1] != '(') {
	    p--;
	}
	if (p > line) {
	    p--;
	}
	while (p > line && p[-1] == ' ') {
	    p--;
	}
    }
    *p = '\0';
    dash = strrchr(line, '-');
    if (dash == NULL) {
	return "bad-task";
    }
    b->col[FT_PID][i] = strtoll(dash + 1, &end, 10);
    if (end == dash + 1 || *end != '\0') {
	return "bad-task";
    }
    task = line;
    while (*task == ' ') {
	task++;
    }
    b->col[FT_TASK][i] = Rb_SchemaIntern(r->schema, task,
	    (size_t)(dash - task));
    b->col[FT_CPU][i] = strtoll(cpu + 1, NULL, 10);

    /* Optional flags, then "SECONDS:". */
    p = strchr(cpu, ']') + 1;
    for (;;) {
	while (*p == ' ') {
	    p++;
	}
	used = MgParseSeconds(p, &t);
	if (used > 0 && p[used] == ':') {
	    p += used + 1;
	    break;
	}
	if (*p == '\0') {
	    return "bad-time";
	}
	p += strcspn(p, " ");
    }
    while (*p == ' ') {
	p++;
    }
    ev = p;
    args = strchr(ev, ':');
    if (args == NULL) {
	return "bad-event";
    }
    *args++ = '\0';
    while (*args == ' ') {
	args++;
    }
    b->col[0][i] = t;
    b->col[FT_MACHINE][i] = st->machine;
    evId = Rb_SchemaIntern(r->schema, ev, strlen(ev));
    b->col[FT_EVENT][i] = evId;
    if (evId == st->switchId) {
	if (!Between(r, b, i, FT_PREV_COMM, args, "prev_comm=", " prev_pid=")
		|| !Between(r, b, i, FT_PREV_PID, args, "prev_pid=", NULL)
		|| !Between(r, b, i, FT_PREV_STATE, args, "prev_state=",
		    NULL)
		|| !Between(r, b, i, FT_NEXT_COMM, args, "next_comm=",
		    " next_pid=")
		|| !Between(r, b, i, FT_NEXT_PID, args, "next_pid=", NULL)) {
	    return "bad-sched-switch";
	}
    } else if (evId == st->wakeupId) {
	if (!Between(r, b, i, FT_WAKE_COMM, args, "comm=", " pid=")
		|| !Between(r, b, i, FT_WAKE_PID, args, " pid=", NULL)) {
	    return "bad-sched-wakeup";
	}
	Between(r, b, i, FT_TARGET_CPU, args, "target_cpu=", NULL);
    } else if (evId == st->markId) {
	b->col[FT_MARKER][i] = Rb_SchemaIntern(r->schema, args,
		strlen(args));
    }
    return NULL;
}

/*
 * FtraceNext --
 *	Appends events until the batch is full or the file ends; '#'
 *	header lines and blank lines are skipped.
 * Results: records appended, 0 at the end, -1 on error (err set).
 */
static int
FtraceNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    FtraceState *st = r->state;
    int start = b->n;
    size_t len;

    if (st->failed) {
	st->failed = 0;
	*err = st->pending;
	return -1;
    }
    while (b->n < b->cap) {
	uint64_t offset = Rb_InputOffset(r->in);
	const char *bad;
	char *line;
	int i, stop = 0;

	err->code[0] = '\0';
	line = Rb_InputGetLine(r->in, &len, err);
	if (line == NULL) {
	    stop = err->code[0] != '\0';
	} else {
	    /* ParseLine reads a C string: a NUL byte would cut the line. */
	    int nul = strlen(line) != len;

	    r->recordNo++;
	    while (*line == ' ' || *line == '\t') {
		line++;
	    }
	    if (!nul && (*line == '#' || *line == '\0' || *line == '\r')) {
		continue;
	    }
	    i = Rb_BatchAppend(b);
	    bad = nul ? "nul-byte" : ParseLine(r, line, b, i);
	    if (bad == NULL && b->col[0][i] < r->lastTime) {
		bad = "out-of-order";
		if (r->onError == RB_ONERROR_WARN) {
		    Rb_ReaderBad(r, err, bad, offset, "time goes backwards");
		    continue;
		}
	    }
	    if (bad == NULL) {
		int rc = Rb_ReaderTimeJump(r, err, b->col[0][i],
			r->lastTime, offset);

		if (rc == 0) {
		    r->lastTime = b->col[0][i];
		    continue;
		}
		b->n--;
		if (rc > 0) {
		    continue;
		}
		stop = 1;
	    } else {
		b->n--;
		stop = Rb_ReaderBad(r, err, bad, offset, "not an ftrace "
			"event line (%s)", bad);
	    }
	    if (!stop) {
		continue;
	    }
	}
	if (stop && b->n > start) {
	    st->pending = *err;
	    st->failed = 1;
	}
	if (stop) {
	    return b->n > start ? b->n - start : -1;
	}
	break;
    }
    return b->n - start;
}

const Rb_ReaderClass MgFtraceReaderClass = {
    .name = "ftrace",
    .help = "Linux ftrace text: sched_switch, sched_wakeup, "
	    "tracing_mark_write markers",
    .stateSize = sizeof(FtraceState),
    .sniff = FtraceSniff,
    .open = FtraceOpen,
    .next = FtraceNext,
};
