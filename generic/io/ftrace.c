/*
 * ftrace.c --
 *
 *	The line head of Linux ftrace text and the reading loop shared by
 *	the blk tracer and block tracepoint readers.  tracefs prints
 *
 *	    fio-24862   [000] d..1. 12998.438229: ...
 *
 *	(task and pid, an optional "(TGID)", the CPU, optional irq flags,
 *	seconds on the trace clock); trace-cmd report leaves the flags out
 *	and perf script writes "fio 24862 [000] 12998.438229: ...".  What
 *	follows is the reader's.  Events are paired into I/O records by
 *	blkpair.c.
 */

#include <ctype.h>
#include "io/ftrace.h"

/*
 * IsCpu --
 *	Whether s is a CPU column, "[" digits "]".
 */
static int
IsCpu(const char *s)
{
    const char *p = s + 1;

    if (*s != '[') {
	return 0;
    }
    while (isdigit((unsigned char)*p)) {
	p++;
    }
    return p > s + 1 && p[0] == ']' && p[1] == '\0';
}

/*
 * PidOf --
 *	The pid of a task column: "TASK-PID" (tracefs, trace-cmd; the task
 *	name may hold dashes) or plain digits (perf script).
 * Results: 1 with *pid set, 0 otherwise.
 */
static int
PidOf(const char *s, uint32_t *pid)
{
    const char *dash = strrchr(s, '-');
    int64_t v;

    if (!RbParseInt(dash ? dash + 1 : s, &v) || v < 0 || v > UINT32_MAX) {
	return 0;
    }
    *pid = (uint32_t)v;
    return 1;
}

/*
 * RbFtraceHead --
 *	Parses the head of an ftrace line split at blanks (f, nf): the
 *	first "[CPU]" column after the task (a task name may hold blanks),
 *	then the timestamp, "SECONDS:", right after it or after the flags.
 *	The timestamp's colon is cut off in place.
 * Results: the index of the first field after the timestamp, or -1
 *	with why (when not NULL) saying what is missing.
 */
int
RbFtraceHead(char **f, int nf, int64_t *time, uint32_t *pid, char *why,
	size_t whyLen)
{
    int c, p, t;
    size_t len;

    for (c = 1; c < nf && !IsCpu(f[c]); c++) {
	continue;
    }
    if (c >= nf) {
	if (why) {
	    snprintf(why, whyLen, "no [CPU] column after the task");
	}
	return -1;
    }
    p = c - 1;
    if (p > 0 && f[p][0] == '(') {
	p--;			/* "TASK-PID (TGID) [CPU]" */
    }
    if (!PidOf(f[p], pid)) {
	if (why) {
	    snprintf(why, whyLen, "field %d \"%.30s\" is not TASK-PID", p + 1,
		    f[p]);
	}
	return -1;
    }
    t = c + 1;
    if (t < nf && (len = strlen(f[t])) > 0 && f[t][len - 1] != ':') {
	t++;			/* the irq flags */
    }
    if (t >= nf || (len = strlen(f[t])) < 2 || f[t][len - 1] != ':') {
	if (why) {
	    snprintf(why, whyLen, "no \"SECONDS:\" after the CPU column");
	}
	return -1;
    }
    f[t][len - 1] = '\0';
    if (!RbParseScaled(f[t], 1000000000, time) || *time < 0) {
	if (why) {
	    snprintf(why, whyLen, "field %d \"%.30s\" is not a time in "
		    "seconds", t + 1, f[t]);
	}
	return -1;
    }
    return t + 1;
}

/*
 * IsLost --
 *	Whether a line is tracefs's note of an overrun ring buffer,
 *	"CPU:1 [LOST 1234 EVENTS]".
 */
static int
IsLost(const Rb_TextLine *l)
{
    return l->nfields >= 2 && strncmp(l->field[0], "CPU:", 4) == 0
	    && strcmp(l->field[1], "[LOST") == 0;
}

/*
 * NextEvent --
 *	The next block event of the trace, applying the error policy to
 *	malformed lines; lines of lost events are counted ("lost-events").
 * Results: 1, 0 at the end, -1 on error (tx.pending set).
 */
static int
NextEvent(Rb_Reader *r, Rb_BlkEvent *ev)
{
    RbFtraceState *st = r->state;
    Rb_TextLine *l = &st->tx.line;
    char why[256];

    for (;;) {
	const char *kind;
	int a, rc = RbTextNextLine(r, &st->tx);

	if (rc <= 0) {
	    return rc;
	}
	if (IsLost(l)) {
	    RbReaderNote(r, "lost-events", l->offset, "the kernel's ring "
		    "buffer overran: events are missing here");
	    continue;
	}
	why[0] = '\0';
	memset(ev, 0, sizeof(*ev));
	a = RbFtraceHead(l->field, l->nfields, &ev->time, &ev->pid, why,
		sizeof(why));
	if (a < 0) {
	    kind = l->nfields < 4 ? "short-line" : "bad-field";
	} else {
	    kind = st->tail(r, l, a, ev, why, sizeof(why));
	}
	if (kind == NULL) {
	    ev->recNo = l->lineNo;
	    ev->offset = l->offset;
	    return 1;
	}
	if (RbTextBad(r, &st->tx, kind, "%s", why)) {
	    return -1;
	}
    }
}

/*
 * RbFtraceOpen --
 *	Sets up a reader whose state is an RbFtraceState, with tail parsing
 *	what follows each line's head.  Times are seconds on the trace
 *	clock (since boot for the default clock); the epoch is 0.
 */
int
RbFtraceOpen(Rb_Reader *r, RbFtraceTailProc *tail)
{
    RbFtraceState *st = r->state;

    st->tx.delim = 0;
    st->tx.comment = '#';
    st->pair = RbBlkPairCreate();
    st->tail = tail;
    r->epochNs = 0;
    return TCL_OK;
}

/*
 * RbFtraceNext --
 *	A reader's next: events paired into records by blkpair.c.
 */
int
RbFtraceNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    RbFtraceState *st = r->state;

    return RbBlkPairNext(r, st->pair, &st->tx, b, NextEvent, err);
}

/*
 * RbFtraceClose --
 *	Frees the requests still held.
 */
void
RbFtraceClose(Rb_Reader *r)
{
    RbBlkPairFree(((RbFtraceState *)r->state)->pair);
}
