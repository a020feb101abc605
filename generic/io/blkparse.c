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
} BlkparseState;

/*
 * ParseDev --
 *	"maj,min" (or "(maj,min)") as major << 20 | minor.
 * Results: 1 with *dev set, 0 otherwise.
 */
static int
ParseDev(const char *s, uint32_t *dev)
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

    return nf >= 7 && ParseDev(f[0], &dev) && Rb_ParseInt(f[1], &v)
	    && Rb_ParseInt(f[2], &v) && strchr(f[3], '.') != NULL
	    && Rb_ParseScaled(f[3], 1000000000, &v) && Rb_ParseInt(f[4], &v)
	    && strlen(f[5]) <= 2;
}

static int
BlkparseSniff(const unsigned char *head, size_t n)
{
    return Rb_TextSniff(head, n, 0, BlkparseLineOk) * 9 / 10;
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
    st->pair = Rb_BlkPairCreate();
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
    char *const *f = l->field;
    const char *kind;
    int64_t v, len;
    int ok;

    if ((kind = Rb_TextFields(l, 6, RB_TEXT_MAX_FIELDS, why, whyLen))
	    != NULL) {
	return kind;
    }
    if (!ParseDev(f[0], &ev->dev)) {
	snprintf(why, whyLen, "field 1 \"%.20s\" is not a major,minor device",
		f[0]);
	return "bad-field";
    }
    if ((kind = Rb_TextNumber(l, 3, "seconds", 1000000000, 0, &ev->time, why,
	    whyLen)) != NULL
	    || (kind = Rb_TextNumber(l, 4, "pid", 1, 1, &v, why, whyLen))
	    != NULL) {
	return kind;
    }
    ev->pid = (uint32_t)v;
    ev->action = f[5][1] == '\0' ? f[5][0] : '?';
    ev->sector = RB_BLK_NOSECTOR;
    if (!strchr("QMFXADRC", ev->action) || l->nfields < 7) {
	return NULL;
    }
    ev->flags = Rb_BlkRwbs(f[6], &ok);
    if (!ok) {
	snprintf(why, whyLen, "field 7 \"%.20s\" is not an RWBS string", f[6]);
	return "bad-field";
    }
    if (l->nfields < 8 || !Rb_ParseInt(f[7], &v) || v < 0) {
	return NULL;		/* no sector: a flush */
    }
    ev->sector = (uint64_t)v;
    if (l->nfields < 10 || (strcmp(f[8], "+") != 0 && strcmp(f[8], "/") != 0)) {
	/* "sector [error]": a completion without a length */
	if (ev->action == 'C' && l->nfields >= 9 && f[8][0] == '[') {
	    ev->error = atoi(f[8] + 1);
	}
	if (ev->action == 'A' || ev->action == 'X') {
	    snprintf(why, whyLen, "a remap or split without its second "
		    "sector");
	    return "bad-field";
	}
	return NULL;
    }
    if ((kind = Rb_TextNumber(l, 9, f[8][0] == '/' ? "split sector"
	    : "length", 1, 1, &len, why, whyLen)) != NULL) {
	return kind;
    }
    if (len < 0 || len > (INT64_MAX / SECTOR)) {
	snprintf(why, whyLen, "field 10 \"%.20s\" is out of range", f[9]);
	return "bad-field";
    }
    if (f[8][0] == '/') {
	ev->fromSector = (uint64_t)len;
	return ev->action == 'X' ? NULL : "bad-field";
    }
    ev->bytes = (uint64_t)len * SECTOR;
    if (ev->action == 'A') {
	if (l->nfields < 13 || strcmp(f[10], "<-") != 0
		|| !ParseDev(f[11], &ev->fromDev) || !Rb_ParseInt(f[12], &v)
		|| v < 0) {
	    snprintf(why, whyLen, "a remap without \"<- (maj,min) sector\"");
	    return "bad-field";
	}
	ev->fromSector = (uint64_t)v;
    }
    if (ev->action == 'C' && l->nfields >= 11 && f[10][0] == '[') {
	ev->error = atoi(f[10] + 1);
    }
    return NULL;
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
	int rc = Rb_TextNextLine(r, &st->tx);

	if (rc <= 0) {
	    return rc;
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
	if (Rb_TextBad(r, &st->tx, kind, "%s", why)) {
	    return -1;
	}
    }
}

static int
BlkparseNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    BlkparseState *st = r->state;

    return Rb_BlkPairNext(r, st->pair, &st->tx, b, NextEvent, err);
}

static void
BlkparseClose(Rb_Reader *r)
{
    Rb_BlkPairFree(((BlkparseState *)r->state)->pair);
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
