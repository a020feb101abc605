/*
 * blkparse.c --
 *
 *	Reader of blkparse's default text output, one event per line:
 *
 *	    8,16   5    2   0.000001850 18615  Q   R 1444645666 + 256 [java]
 *
 *	(device, CPU, sequence, seconds, pid, action, RWBS, sector + length
 *	in sectors, then the process, the error of a completion, or the
 *	origin of a remap).  Events are paired into I/O records by
 *	blkpair.c.  The per-CPU summary blkparse prints at the end is not
 *	data.  See doc/blkparse.n.
 */

#include "io/blkpair.h"
#include "io/readers.h"

#define SECTOR 512

typedef struct BlkparseState {
    Rb_Text tx;
    Rb_BlkPair *pair;
    int trailer;		/* In the closing summary. */
    int slow;			/* No fast path (RUBICON_TEXT_SLOW). */
} BlkparseState;

/*
 * RbBlkParseDev --
 *	"maj,min" (or "(maj,min)") as major << 20 | minor.
 * Results: 1 with *dev set, 0 otherwise.
 */
int
RbBlkParseDev(const char *s, uint32_t *dev)
{
    unsigned major, minor;
    char tail;
    int n = *s == '(' ? sscanf(s, "(%u,%u%c", &major, &minor, &tail)
	    : sscanf(s, "%u,%u%c", &major, &minor, &tail);

    if ((*s == '(' ? n != 3 || tail != ')' : n != 2) || major > 0xfff
	    || minor > 0xfffff) {
	return 0;
    }
    *dev = major << 20 | minor;
    return 1;
}

/*
 * BlkparseLineOk --
 *	A sniffed line: device, CPU, sequence, time, pid and an action.
 */
static int
BlkparseLineOk(char **f, int nf)
{
    uint32_t dev;
    int64_t v;

    return nf >= 7 && RbBlkParseDev(f[0], &dev) && RbParseInt(f[1], &v)
	    && RbParseInt(f[2], &v) && strchr(f[3], '.') != NULL
	    && RbParseScaled(f[3], 1000000000, &v) && RbParseInt(f[4], &v)
	    && strlen(f[5]) <= 2;
}

static int
BlkparseSniff(const unsigned char *head, size_t n)
{
    return RbTextSniff(head, n, 0, BlkparseLineOk) * 9 / 10;
}

/*
 * BlkparseOpen --
 *	Times count from the start of the trace (epoch 0).
 */
static int
BlkparseOpen(Rb_Reader *r, Rb_Error *err)
{
    BlkparseState *st = r->state;

    st->tx.delim = 0;
    st->tx.comment = '#';
    st->pair = RbBlkPairCreate();
    st->slow = getenv("RUBICON_TEXT_SLOW") != NULL;
    r->epochNs = 0;
    return TCL_OK;
}

/*
 * IsTrailer --
 *	Whether a line starts blkparse's closing summary ("CPU0 (sdb):",
 *	"Total (sdb):").
 */
static int
IsTrailer(const Rb_TextLine *l)
{
    const char *last = l->field[l->nfields - 1];

    return l->nfields >= 2 && (strncmp(l->field[0], "CPU", 3) == 0
	    || strcmp(l->field[0], "Total") == 0)
	    && last[strlen(last) - 1] == ':';
}

/*
 * ParseEvent --
 *	The fields of one event line into ev.
 * Results: NULL, or the malformed kind with why set.
 */
static const char *
ParseEvent(const Rb_TextLine *l, Rb_BlkEvent *ev, char *why, size_t whyLen)
{
    const char *kind;
    int64_t v;

    if ((kind = RbTextFields(l, 6, RB_TEXT_MAX_FIELDS, why, whyLen))
	    != NULL) {
	return kind;
    }
    if (!RbBlkParseDev(l->field[0], &ev->dev)) {
	snprintf(why, whyLen, "field 1 \"%.20s\" is not a major,minor device",
		l->field[0]);
	return "bad-field";
    }
    if ((kind = RbTextNumber(l, 3, "seconds", 1000000000, 0, &ev->time, why,
	    whyLen)) != NULL
	    || (kind = RbTextNumber(l, 4, "pid", 1, 1, &v, why, whyLen))
	    != NULL) {
	return kind;
    }
    ev->pid = (uint32_t)v;
    return RbBlkParseAction(l, 5, ev, why, whyLen);
}

/*
 * RbBlkParseAction --
 *	The part of a blkparse-style event line from its action (field a)
 *	on, "ACTION RWBS SECTOR + SECTORS [COMM]" and the other forms of
 *	doc/blkparse.n, into ev; the kernel's ftrace blk tracer prints the
 *	same after its own line head.
 * Results: NULL, or the malformed kind with why set.
 */
const char *
RbBlkParseAction(const Rb_TextLine *l, int a, Rb_BlkEvent *ev, char *why,
	size_t whyLen)
{
    char *const *f = l->field + a;
    int nf = l->nfields - a;
    const char *kind;
    int64_t v, len;
    int ok;

    ev->action = nf >= 1 && f[0][0] != '\0' && f[0][1] == '\0' ? f[0][0]
	    : '?';
    ev->sector = RB_BLK_NOSECTOR;
    if (!strchr("QMFXADRC", ev->action) || nf < 2) {
	return NULL;
    }
    ev->flags = RbBlkRwbs(f[1], &ok);
    if (!ok) {
	snprintf(why, whyLen, "field %d \"%.20s\" is not an RWBS string",
		a + 2, f[1]);
	return "bad-field";
    }
    if (nf < 3 || !RbParseInt(f[2], &v) || v < 0) {
	return NULL;		/* no sector: a flush */
    }
    ev->sector = (uint64_t)v;
    if (nf < 5 || (strcmp(f[3], "+") != 0 && strcmp(f[3], "/") != 0)) {
	/* "sector [error]": a completion without a length */
	if (ev->action == 'C' && nf >= 4 && f[3][0] == '[') {
	    ev->error = atoi(f[3] + 1);
	}
	if (ev->action == 'A' || ev->action == 'X') {
	    snprintf(why, whyLen, "a remap or split without its second "
		    "sector");
	    return "bad-field";
	}
	return NULL;
    }
    if ((kind = RbTextNumber(l, a + 4, f[3][0] == '/' ? "split sector"
	    : "length", 1, 1, &len, why, whyLen)) != NULL) {
	return kind;
    }
    if (len < 0 || len > (INT64_MAX / SECTOR)) {
	snprintf(why, whyLen, "field %d \"%.20s\" is out of range", a + 5,
		f[4]);
	return "bad-field";
    }
    if (f[3][0] == '/') {
	ev->fromSector = (uint64_t)len;
	return ev->action == 'X' ? NULL : "bad-field";
    }
    ev->bytes = (uint64_t)len * SECTOR;
    if (ev->action == 'A') {
	if (nf < 8 || strcmp(f[5], "<-") != 0
		|| !RbBlkParseDev(f[6], &ev->fromDev) || !RbParseInt(f[7], &v)
		|| v < 0) {
	    snprintf(why, whyLen, "a remap without \"<- (maj,min) sector\"");
	    return "bad-field";
	}
	ev->fromSector = (uint64_t)v;
    }
    if (ev->action == 'C' && nf >= 6 && f[5][0] == '[') {
	ev->error = atoi(f[5] + 1);
    }
    return NULL;
}

/*
 * Word --
 *	p past a run of characters that are not blanks and the blanks
 *	after it.
 * Results: the start of the next field, or NULL when the run is empty
 *	or not followed by a blank.
 */
static inline const char *
Word(const char *p)
{
    const char *q = p;

    while (*q != ' ' && *q != '\t' && *q != '\0') {
	q++;
    }
    return q == p ? NULL : RbTextBlanks(q);
}

/*
 * FastRemap --
 *	The end of a remap line at p, " <- (maj,min) sector", into ev.
 * Results: the first character not read, or NULL for any other form.
 */
static const char *
FastRemap(const char *p, Rb_BlkEvent *ev)
{
    int64_t major, minor, from;
    int n;

    if ((p = RbTextBlanks(p)) == NULL || p[0] != '<' || p[1] != '-'
	    || (p = RbTextBlanks(p + 2)) == NULL || *p != '('
	    || (p = RbTextDigitRun(p + 1, &major, &n)) == NULL || *p != ','
	    || major > 0xfff
	    || (p = RbTextDigitRun(p + 1, &minor, &n)) == NULL || *p != ')'
	    || minor > 0xfffff || (p = RbTextBlanks(p + 1)) == NULL
	    || (p = RbTextDigitRun(p, &from, &n)) == NULL
	    || (*p != ' ' && *p != '\t' && *p != '\0')) {
	return NULL;
    }
    ev->fromDev = (uint32_t)(major << 20 | minor);
    ev->fromSector = (uint64_t)from;
    return p;
}

/*
 * FastAction --
 *	The fast path's part of a line from the action at p on (as
 *	RbBlkParseAction): an action with no sector, or "ACTION RWBS
 *	SECTOR + SECTORS" with a completion's "[error]" or a remap's
 *	origin after it.
 * Results: the first character not read, or NULL for any other form.
 */
static const char *
FastAction(const char *p, Rb_BlkEvent *ev)
{
    char rwbs[16];
    int64_t sector, len;
    const char *q;
    int n, ok;

    ev->action = *p;
    ev->sector = RB_BLK_NOSECTOR;
    if (strchr("QMFXADRC", *p) == NULL) {
	return p + 1;
    }
    if (*p == 'X' || (p = RbTextBlanks(p + 1)) == NULL) {
	return NULL;
    }
    for (q = p; *q != ' ' && *q != '\t' && *q != '\0'; q++) {
	continue;
    }
    if (q - p >= (int)sizeof(rwbs)) {
	return NULL;
    }
    memcpy(rwbs, p, (size_t)(q - p));
    rwbs[q - p] = '\0';
    ev->flags = RbBlkRwbs(rwbs, &ok);
    if (!ok || (p = RbTextBlanks(q)) == NULL
	    || (p = RbTextDigitRun(p, &sector, &n)) == NULL
	    || (p = RbTextBlanks(p)) == NULL || p[0] != '+'
	    || (p = RbTextBlanks(p + 1)) == NULL
	    || (p = RbTextDigitRun(p, &len, &n)) == NULL
	    || (*p != ' ' && *p != '\t' && *p != '\0')
	    || len > INT64_MAX / SECTOR) {
	return NULL;
    }
    ev->sector = (uint64_t)sector;
    ev->bytes = (uint64_t)len * SECTOR;
    if (ev->action == 'A') {
	return FastRemap(p, ev);
    }
    if (ev->action == 'C' && (q = RbTextBlanks(p)) != NULL && *q == '[') {
	/* "[digits]" or "[-digits]", which atoi reads as they are. */
	int neg = q[1] == '-';
	int64_t error;

	if ((q = RbTextDigitRun(q + 1 + neg, &error, &n)) == NULL || n > 9
		|| *q != ']') {
	    return NULL;
	}
	ev->error = neg ? -(int)error : (int)error;
    }
    return p;
}

/*
 * BlkparseFastLine --
 *	The fast path (an Rb_TextTakeProc, arg the event): a line with a
 *	plain "maj,min" device, time and pid and a single-letter action,
 *	into the event as ParseEvent would give it; any other line is left
 *	to ParseEvent.
 */
static int
BlkparseFastLine(Rb_Reader *r, const char *s, size_t len, void *arg)
{
    Rb_BlkEvent *ev = arg;
    const char *p = s;
    int64_t major, minor, t, pid;
    int n;

    while (*p == ' ' || *p == '\t') {
	p++;
    }
    if ((p = RbTextDigitRun(p, &major, &n)) == NULL || *p != ','
	    || major > 0xfff
	    || (p = RbTextDigitRun(p + 1, &minor, &n)) == NULL
	    || minor > 0xfffff || (p = RbTextBlanks(p)) == NULL
	    || (p = Word(p)) == NULL || (p = Word(p)) == NULL
	    || (p = RbTextDecimal(p, 1000000000, &t)) == NULL
	    || (p = RbTextBlanks(p)) == NULL
	    || (p = RbTextDigitRun(p, &pid, &n)) == NULL
	    || (p = RbTextBlanks(p)) == NULL || *p == '\0'
	    || (p[1] != ' ' && p[1] != '\t' && p[1] != '\0')) {
	return 0;
    }
    memset(ev, 0, sizeof(*ev));
    if ((p = FastAction(p, ev)) == NULL
	    || strlen(p) != (size_t)(s + len - p)) {
	return 0;
    }
    ev->dev = (uint32_t)(major << 20 | minor);
    ev->time = t;
    ev->pid = (uint32_t)pid;
    return 1;
}

/*
 * NextEvent --
 *	The next event line, skipping the closing summary and applying the
 *	error policy to malformed lines.
 * Results: 1, 0 at the end, -1 on error (tx.pending set).
 */
static int
NextEvent(Rb_Reader *r, Rb_BlkEvent *ev)
{
    BlkparseState *st = r->state;
    char why[256];

    for (;;) {
	const char *kind;
	int rc = RbTextNextLineOr(r, &st->tx, st->trailer || st->slow ? NULL
		: BlkparseFastLine, ev);

	if (rc <= 0) {
	    return rc;
	}
	if (rc == 2) {
	    ev->recNo = st->tx.line.lineNo;
	    ev->offset = st->tx.line.offset;
	    return 1;
	}
	if (st->trailer || IsTrailer(&st->tx.line)) {
	    st->trailer = 1;
	    continue;
	}
	why[0] = '\0';
	memset(ev, 0, sizeof(*ev));
	kind = ParseEvent(&st->tx.line, ev, why, sizeof(why));
	if (kind == NULL) {
	    ev->recNo = st->tx.line.lineNo;
	    ev->offset = st->tx.line.offset;
	    return 1;
	}
	if (RbTextBad(r, &st->tx, kind, "%s", why)) {
	    return -1;
	}
    }
}

static int
BlkparseNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    BlkparseState *st = r->state;

    return RbBlkPairNext(r, st->pair, &st->tx, b, NextEvent, err);
}

static void
BlkparseClose(Rb_Reader *r)
{
    RbBlkPairFree(((BlkparseState *)r->state)->pair);
}

const Rb_ReaderClass Rb_BlkparseReaderClass = {
    "blkparse",
    "blkparse default text output, Q/D/C paired into one record per I/O",
    sizeof(BlkparseState),
    BlkparseSniff,
    BlkparseOpen,
    BlkparseNext,
    BlkparseClose,
};
