/*
 * canon.c --
 *
 *	What Magpie makes of a request once the parser has emitted it:
 *	synchronization points inserted by the schema's sync statements,
 *	the canonical form (scheduling artefacts removed: context switches
 *	dropped, each thread's CPU between two of its events summed, as if
 *	every thread had a CPU of its own; threads serialized by a
 *	depth-first walk of the fork tree), and the string-edit distance
 *	between canonical forms that the clustering uses.
 *
 *	The canonical form's text is a list of tokens, NAME?@RES?, where
 *	NAME is an event type, Signal, Wait, Resume, CPU (time a thread used
 *	after its last event), "(" or ")" around a thread forked at a Signal,
 *	and RES is a comma-separated list of cNN (CPU microseconds), dNN
 *	(disk bytes) and nNN (network bytes), each only when not zero.
 */

#include <math.h>
#include <stdlib.h>
#include "plugins/magpie/magpie.h"

static const char *const symNames[] = {
    NULL, "CPU", "Signal", "Wait", "Resume", "(", ")"
};

/*
 * IsDest --
 *	The sync statement that ev (an MG_EVENT) is the destination of,
 *	or -1.  A type is the destination of at most a few syncs.
 */
static int
IsDest(const MgSchema *s, const MgEvent *ev, int from)
{
    int y;

    for (y = from; y < s->nsyncs; y++) {
	if (s->syncs[y].dest == ev->type) {
	    return y;
	}
    }
    return -1;
}

/*
 * MgInsertSyncPoints --
 *	For each event of r that is the destination of a sync statement
 *	(source type, attribute, destination type), finds the latest
 *	earlier source event of r with the same attribute value, and
 *	inserts a Signal just after that source and a Wait and a Resume
 *	just before the destination.  The Signal is at the source's time on
 *	the source's thread; the Resume at the destination's time on its
 *	thread; the Wait when the destination's thread last ran or logged
 *	an event in the request before it (context switches aside: its
 *	last CPU charge ends where it was switched out), or at the Signal
 *	if the thread had not been seen yet.  Each point's amount is
 *	the record number of the event at the other end.
 * Side effects: r->ev is rewritten through *scratch (grown as needed);
 *	on return r->ev points into *scratch.
 */
void
MgInsertSyncPoints(const MgSchema *s, MgRequest *r, MgEvent **scratch,
	int *scratchCap)
{
    int *signalOf, *firstDest, *nextDest, i, k, n = 0, edges = 0, y;
    MgEvent *out;

    if (s->nsyncs == 0 || r->nev == 0) {
	return;
    }
    /* signalOf[i]: index of the source event that event i waits for. */
    signalOf = Rb_AllocArray(r->nev, sizeof(int));
    for (i = 0; i < r->nev; i++) {
	const MgEvent *d = &r->ev[i];

	signalOf[i] = -1;
	if (d->kind != MG_EVENT || d->syncVal == RB_ABSENT) {
	    continue;
	}
	for (y = IsDest(s, d, 0); y >= 0 && signalOf[i] < 0;
		y = IsDest(s, d, y + 1)) {
	    for (k = i - 1; k >= 0; k--) {
		const MgEvent *e = &r->ev[k];

		if (e->kind == MG_EVENT && e->type == s->syncs[y].source
			&& e->syncVal == d->syncVal) {
		    signalOf[i] = k;
		    edges++;
		    break;
		}
	    }
	}
    }
    if (edges == 0) {
	free(signalOf);
	return;
    }
    /* The destinations of each source, in record order. */
    firstDest = Rb_AllocArray(2 * (size_t)r->nev, sizeof(int));
    nextDest = firstDest + r->nev;
    for (i = 0; i < r->nev; i++) {
	firstDest[i] = -1;
    }
    for (k = r->nev - 1; k >= 0; k--) {
	if (signalOf[k] >= 0) {
	    nextDest[k] = firstDest[signalOf[k]];
	    firstDest[signalOf[k]] = k;
	}
    }
    if (*scratchCap < r->nev + 3 * edges) {
	*scratchCap = r->nev + 3 * edges;
	*scratch = Rb_ReallocArray(*scratch, *scratchCap, sizeof(MgEvent));
    }
    out = *scratch;
    for (i = 0; i < r->nev; i++) {
	const MgEvent *e = &r->ev[i];

	if (signalOf[i] >= 0) {
	    const MgEvent *src = &r->ev[signalOf[i]];
	    int64_t waitAt = src->time;

	    for (k = i - 1; k >= 0; k--) {
		const MgEvent *p = &r->ev[k];

		if (p->thread == e->thread && p->intr == e->intr
			&& p->machine == e->machine && (p->kind == MG_CPU
			|| (p->kind == MG_EVENT
			&& s->events[p->type].cswitchCpu < 0))) {
		    waitAt = p->time;
		    break;
		}
	    }
	    out[n] = *e;
	    out[n].kind = MG_WAIT;
	    out[n].time = waitAt;
	    out[n].amount = (int64_t)src->recNo;
	    n++;
	    out[n] = *e;
	    out[n].kind = MG_RESUME;
	    out[n].amount = (int64_t)src->recNo;
	    n++;
	}
	out[n++] = *e;
	for (k = firstDest[i]; k >= 0; k = nextDest[k]) {
	    out[n] = *e;
	    out[n].kind = MG_SIGNAL;
	    out[n].amount = (int64_t)r->ev[k].recNo;
	    n++;
	}
    }
    free(signalOf);
    free(firstDest);
    r->ev = out;
    r->nev = n;
}

/*
 * MgRequestEvents --
 *	Appends the record numbers of r's events (not its charges or
 *	points), space-separated, to out.
 * Results: how many.
 */
int
MgRequestEvents(const MgRequest *r, Tcl_DString *out)
{
    char buf[32];
    int k, n = 0;

    for (k = 0; k < r->nev; k++) {
	if (r->ev[k].kind == MG_EVENT) {
	    snprintf(buf, sizeof(buf), n++ ? " %llu" : "%llu",
		    (unsigned long long)r->ev[k].recNo);
	    Tcl_DStringAppend(out, buf, -1);
	}
    }
    return n;
}

/* A thread of a request while its canonical form is built. */
typedef struct CanonThread {
    int64_t machine;
    int64_t thread;
    int intr;
    int visited;
} CanonThread;

typedef struct Canon {
    const MgSchema *s;
    const MgRequest *r;
    CanonThread *threads;
    int nthreads;
    int *threadOf;		/* Entry index -> thread index. */
    MgToken *tok;
    int ntok, cap;
} Canon;

static void
Push(Canon *c, int sym, double cpu, double disk, double net)
{
    MgToken *t;

    if (c->ntok == c->cap) {
	c->cap = c->cap ? 2 * c->cap : 64;
	c->tok = Rb_ReallocArray(c->tok, c->cap, sizeof(MgToken));
    }
    t = &c->tok[c->ntok++];
    t->sym = sym;
    t->cpuNs = cpu;
    t->diskBytes = disk;
    t->netBytes = net;
}

/*
 * ThreadOfRecord --
 *	The thread of the MG_EVENT entry numbered recNo, or -1.
 */
static int
ThreadOfRecord(const Canon *c, uint64_t recNo)
{
    int i;

    for (i = 0; i < c->r->nev; i++) {
	if (c->r->ev[i].kind == MG_EVENT && c->r->ev[i].recNo == recNo) {
	    return c->threadOf[i];
	}
    }
    return -1;
}

static void	Serialize(Canon *c, int t);

/*
 * Fork --
 *	A Signal; then thread d (if any) in brackets, unless it is written
 *	already.
 */
static void
Fork(Canon *c, int d)
{
    Push(c, MG_SYM_SIGNAL, 0, 0, 0);
    if (d >= 0 && !c->threads[d].visited) {
	Push(c, MG_SYM_OPEN, 0, 0, 0);
	Serialize(c, d);
	Push(c, MG_SYM_CLOSE, 0, 0, 0);
    }
}

/*
 * IsTransmit --
 *	Whether events of type are the sending half of a stitch statement.
 */
static int
IsTransmit(const MgSchema *s, int type)
{
    int k;

    for (k = 0; k < s->nstitches; k++) {
	if (s->stitches[k].tx == type) {
	    return 1;
	}
    }
    return 0;
}

/*
 * Serialize --
 *	Appends thread t's tokens in its own order; at a Signal whose
 *	destination is on a thread not yet serialized, that thread follows
 *	at once in brackets (depth first).  A packet sent to another
 *	machine is a Signal too, its reception (a hop) a Wait and a Resume.
 *	Context switches are dropped and CPU charges summed into the
 *	thread's next event.
 */
static void
Serialize(Canon *c, int t)
{
    const MgRequest *r = c->r;
    double cpu = 0;
    int i, k;

    c->threads[t].visited = 1;
    for (i = 0; i < r->nev; i++) {
	const MgEvent *e = &r->ev[i];
	const MgEventType *ty;

	if (c->threadOf[i] != t) {
	    continue;
	}
	switch (e->kind) {
	case MG_CPU:
	    cpu += (double)e->amount;
	    break;
	case MG_EVENT:
	    ty = &c->s->events[e->type];
	    if (ty->cswitchCpu >= 0) {
		break;
	    }
	    Push(c, e->type, cpu, ty->diskBytes >= 0 && e->amount > 0
		    ? (double)e->amount : 0, ty->netBytes >= 0 && e->amount > 0
		    ? (double)e->amount : 0);
	    cpu = 0;
	    if (IsTransmit(c->s, e->type)) {
		for (k = 0; k < r->nev; k++) {
		    if (r->ev[k].kind == MG_HOP
			    && r->ev[k].amount == (int64_t)e->recNo) {
			Fork(c, c->threadOf[k]);
		    }
		}
	    }
	    break;
	case MG_SIGNAL:
	    Fork(c, ThreadOfRecord(c, (uint64_t)e->amount));
	    break;
	case MG_HOP:
	    Push(c, MG_SYM_WAIT, 0, 0, 0);
	    Push(c, MG_SYM_RESUME, 0, 0, 0);
	    break;
	case MG_WAIT:
	    Push(c, MG_SYM_WAIT, 0, 0, 0);
	    break;
	case MG_RESUME:
	    Push(c, MG_SYM_RESUME, 0, 0, 0);
	    break;
	}
    }
    if (cpu > 0) {
	Push(c, MG_SYM_CPU, cpu, 0, 0);
    }
}

/*
 * MgCanonical --
 *	The canonical form of r (with its sync points inserted): the thread
 *	of its begin event first, other threads where a Signal or a packet
 *	sent to them forks them,
 *	threads no Signal reaches after it, in brackets, in the order they
 *	first appear.  CPU amounts are rounded to whole nanoseconds.
 * Results: the number of tokens, in *tokens (grown to *cap as needed).
 */
int
MgCanonical(const MgSchema *s, const MgRequest *r, MgToken **tokens,
	int *cap)
{
    Canon c;
    int i, k, root = -1;

    memset(&c, 0, sizeof(c));
    c.s = s;
    c.r = r;
    c.tok = *tokens;
    c.cap = *cap;
    c.threads = Rb_AllocArray(r->nev + 1, sizeof(CanonThread));
    c.threadOf = Rb_AllocArray(r->nev + 1, sizeof(int));
    for (i = 0; i < r->nev; i++) {
	const MgEvent *e = &r->ev[i];

	for (k = 0; k < c.nthreads; k++) {
	    if (c.threads[k].thread == e->thread
		    && c.threads[k].intr == e->intr
		    && c.threads[k].machine == e->machine) {
		break;
	    }
	}
	if (k == c.nthreads) {
	    c.threads[k].machine = e->machine;
	    c.threads[k].thread = e->thread;
	    c.threads[k].intr = e->intr;
	    c.nthreads++;
	}
	c.threadOf[i] = k;
	if (root < 0 && e->kind == MG_EVENT && s->events[e->type].begin) {
	    root = k;
	}
    }
    if (c.nthreads > 0) {
	Serialize(&c, root >= 0 ? root : 0);
    }
    for (k = 0; k < c.nthreads; k++) {
	if (!c.threads[k].visited) {
	    Push(&c, MG_SYM_OPEN, 0, 0, 0);
	    Serialize(&c, k);
	    Push(&c, MG_SYM_CLOSE, 0, 0, 0);
	}
    }
    free(c.threads);
    free(c.threadOf);
    *tokens = c.tok;
    *cap = c.cap;
    return c.ntok;
}

/*
 * AppendAmount --
 *	Appends ",<tag><value>" (the first without the comma, after "@").
 */
static void
AppendAmount(Tcl_DString *out, int *first, char tag, double v)
{
    char buf[48], *p = buf + sizeof(buf);

    if (v == 0) {
	return;
    }
    if (v == floor(v) && fabs(v) < 1e15) {
	/* Every token's amounts go through here, for every request: the
	 * digits by hand, as "%lld" would print them, without snprintf. */
	unsigned long long u = (unsigned long long)fabs(v);

	do {
	    *--p = (char)('0' + u % 10);
	    u /= 10;
	} while (u != 0);
	if (v < 0) {
	    *--p = '-';
	}
	*--p = tag;
	*--p = *first ? '@' : ',';
	Tcl_DStringAppend(out, p, (int)(buf + sizeof(buf) - p));
    } else {
	snprintf(buf, sizeof(buf), "%s%c%.3f", *first ? "@" : ",", tag, v);
	Tcl_DStringAppend(out, buf, -1);
    }
    *first = 0;
}

/*
 * MgTokensString --
 *	Appends the text of n tokens (see the file comment) to out.
 */
void
MgTokensString(const MgSchema *s, const MgToken *t, int n, Tcl_DString *out)
{
    int i;

    for (i = 0; i < n; i++) {
	int first = 1;

	if (i > 0) {
	    Tcl_DStringAppend(out, " ", 1);
	}
	Tcl_DStringAppend(out, t[i].sym >= 0 ? s->events[t[i].sym].name
		: symNames[-t[i].sym], -1);
	AppendAmount(out, &first, 'c', t[i].cpuNs / 1e3);
	AppendAmount(out, &first, 'd', t[i].diskBytes);
	AppendAmount(out, &first, 'n', t[i].netBytes);
    }
}

/*
 * MgTokenWeight --
 *	The cost of inserting or deleting token t: 1 for the token itself
 *	plus its resources in the cost's units.
 */
double
MgTokenWeight(const MgToken *t, const MgCost *c)
{
    return 1.0 + t->cpuNs / c->cpuUnit
	    + (t->diskBytes + t->netBytes) / c->byteUnit;
}

/*
 * MgTokensWeight --
 *	The distance of a form from the null request: the sum of its
 *	tokens' weights.
 */
double
MgTokensWeight(const MgToken *t, int n, const MgCost *c)
{
    double w = 0;
    int i;

    for (i = 0; i < n; i++) {
	w += MgTokenWeight(&t[i], c);
    }
    return w;
}

/*
 * Substitute --
 *	The cost of replacing token a by b: 1 if they are different events
 *	or points, plus the differences of their resources in the cost's
 *	units.  With the weight above this is an L1 distance between tokens
 *	(the null token weighing nothing), so the edit distance built on it
 *	is a metric.
 */
static double
Substitute(const MgToken *a, const MgToken *b, const MgCost *c)
{
    return (a->sym != b->sym ? 1.0 : 0.0)
	    + fabs(a->cpuNs - b->cpuNs) / c->cpuUnit
	    + (fabs(a->diskBytes - b->diskBytes)
	    + fabs(a->netBytes - b->netBytes)) / c->byteUnit;
}

/*
 * MgEditDistance --
 *	The string-edit distance between two canonical forms: the cheapest
 *	sequence of insertions and deletions (MgTokenWeight) and
 *	substitutions (Substitute) turning a into b (dynamic programming,
 *	two rows, O(na nb) time).
 */
double
MgEditDistance(const MgToken *a, int na, const MgToken *b, int nb,
	const MgCost *c)
{
    double *prev, *cur, d;
    int i, j;

    prev = Rb_AllocArray(nb + 1, sizeof(double));
    cur = Rb_AllocArray(nb + 1, sizeof(double));
    prev[0] = 0;
    for (j = 1; j <= nb; j++) {
	prev[j] = prev[j - 1] + MgTokenWeight(&b[j - 1], c);
    }
    for (i = 1; i <= na; i++) {
	double wa = MgTokenWeight(&a[i - 1], c);
	double *tmp;

	cur[0] = prev[0] + wa;
	for (j = 1; j <= nb; j++) {
	    double del = prev[j] + wa;
	    double ins = cur[j - 1] + MgTokenWeight(&b[j - 1], c);
	    double sub = prev[j - 1] + Substitute(&a[i - 1], &b[j - 1], c);

	    cur[j] = del < ins ? (del < sub ? del : sub) : (ins < sub ? ins
		    : sub);
	}
	tmp = prev;
	prev = cur;
	cur = tmp;
    }
    d = prev[nb];
    free(prev);
    free(cur);
    return d;
}

/*
 * ParseForm --
 *	Tokens from the text of a canonical form; names are numbered in
 *	*names (shared by the forms being compared).
 * Results: TCL_OK with *tokens and *n set (free *tokens), or TCL_ERROR
 *	naming the bad token.
 */
static int
ParseForm(Tcl_Interp *interp, Tcl_Obj *form, Tcl_HashTable *names,
	MgToken **tokens, int *n)
{
    Tcl_Obj **w;
    int nw, i, isNew;

    if (Tcl_ListObjGetElements(interp, form, &nw, &w) != TCL_OK) {
	return TCL_ERROR;
    }
    *tokens = Rb_AllocArray(nw, sizeof(MgToken));
    *n = nw;
    for (i = 0; i < nw; i++) {
	const char *text = Tcl_GetString(w[i]);
	const char *at = strchr(text, '@');
	Tcl_DString name;
	Tcl_HashEntry *e;
	MgToken *t = &(*tokens)[i];

	Tcl_DStringInit(&name);
	Tcl_DStringAppend(&name, text, at ? (int)(at - text) : -1);
	e = Tcl_CreateHashEntry(names, Tcl_DStringValue(&name), &isNew);
	if (isNew) {
	    Tcl_SetHashValue(e, (ClientData)(intptr_t)names->numEntries);
	}
	Tcl_DStringFree(&name);
	t->sym = (int)(intptr_t)Tcl_GetHashValue(e);
	while (at != NULL) {
	    char *end;
	    double v = strtod(at + 2, &end);

	    if (end == at + 2 || (*end != ',' && *end != '\0')
		    || !(at[1] == 'c' || at[1] == 'd' || at[1] == 'n')) {
		free(*tokens);
		*tokens = NULL;
		return Rb_SetInterpError(interp, "RUBICON MAGPIE FORM",
			"bad token \"%s\" (word %d): resources are "
			"@cMICROSECONDS,dBYTES,nBYTES", text, i + 1);
	    }
	    if (at[1] == 'c') {
		t->cpuNs = v * 1e3;
	    } else if (at[1] == 'd') {
		t->diskBytes = v;
	    } else {
		t->netBytes = v;
	    }
	    at = *end == ',' ? end : NULL;
	}
    }
    return TCL_OK;
}

/*
 * DistanceCmd --
 *	magpie::distance FORM1 FORM2 ?-cpuunit SECONDS? ?-byteunit BYTES?:
 *	the edit distance between two canonical forms given as text (the
 *	distance from the null request when one is empty).
 */
static int
DistanceCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const opts[] = {"-cpuunit", "-byteunit", NULL};
    MgCost cost = {1e6, 8192};
    Tcl_HashTable names;
    MgToken *a = NULL, *b = NULL;
    int na, nb, i, idx, rc = TCL_ERROR;
    double v;

    if (objc < 3 || objc % 2 == 0) {
	Tcl_WrongNumArgs(interp, 1, objv,
		"form1 form2 ?-cpuunit seconds? ?-byteunit bytes?");
	return TCL_ERROR;
    }
    for (i = 3; i < objc; i += 2) {
	if (Tcl_GetIndexFromObj(interp, objv[i], opts, "option", 0, &idx)
		!= TCL_OK || Tcl_GetDoubleFromObj(interp, objv[i + 1], &v)
		!= TCL_OK) {
	    return TCL_ERROR;
	}
	if (!(v > 0)) {
	    return Rb_SetInterpError(interp, "RUBICON MAGPIE FORM",
		    "%s must be positive", opts[idx]);
	}
	if (idx == 0) {
	    cost.cpuUnit = v * 1e9;
	} else {
	    cost.byteUnit = v;
	}
    }
    Tcl_InitHashTable(&names, TCL_STRING_KEYS);
    if (ParseForm(interp, objv[1], &names, &a, &na) == TCL_OK
	    && ParseForm(interp, objv[2], &names, &b, &nb) == TCL_OK) {
	Tcl_SetObjResult(interp, Tcl_NewDoubleObj(MgEditDistance(a, na, b,
		nb, &cost)));
	rc = TCL_OK;
    }
    if (a) {
	free(a);
    }
    if (b) {
	free(b);
    }
    Tcl_DeleteHashTable(&names);
    return rc;
}

/*
 * MgCanonInitCmds --
 *	Creates magpie::distance.
 */
int
MgCanonInitCmds(Tcl_Interp *interp)
{
    Tcl_CreateObjCommand(interp, "::magpie::distance", DistanceCmd, NULL,
	    NULL);
    return TCL_OK;
}
