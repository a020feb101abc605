/*
 * blockevents.c --
 *
 *	Reader of the Linux block tracepoints as tracefs, trace-cmd report
 *	and perf script print them:
 *
 *	    fio-24913 [000] ..... 13024.286757: block_bio_queue: 254,0 RA 22056736 + 8 [fio]
 *	    fio-24913 [000] ..... 13024.286772: block_rq_issue: 254,0 RA 4096 () 22056736 + 8 be,0,4 [fio]
 *	    <idle>-0  [001] ..s1. 13024.287270: block_rq_complete: 254,0 RA () 22056736 + 8 be,0,4 [0]
 *
 *	Each event maps to the blktrace action it stands for (bio_queue Q,
 *	rq_issue D, rq_complete C, ...) and blkpair.c pairs them into I/O
 *	records.  Events of other subsystems in the same trace are counted
 *	("other-event").  See doc/blockevents.n.
 */

#include "io/ftrace.h"
#include "io/readers.h"

#define SECTOR 512

/* How an event prints its arguments after "MAJ,MIN RWBS". */
enum Form {
    BIO,	/* SECTOR + N [COMM] (or / NEW for a split, <- for a remap) */
    RQ,		/* BYTES (CMD) SECTOR + N [IOPRIO] [COMM] */
    RQ_ERROR,	/* (CMD) SECTOR + N [IOPRIO] [ERROR] */
    BIO_ERROR,	/* SECTOR + N [ERROR] */
    NONE	/* nothing the records keep */
};

static const struct {
    const char *name;
    char action;
    enum Form form;
} events[] = {
    {"bio_queue", 'Q', BIO},
    {"bio_backmerge", 'M', BIO},
    {"bio_frontmerge", 'F', BIO},
    {"split", 'X', BIO},
    {"bio_remap", 'A', BIO},
    {"rq_remap", 'A', BIO},
    {"rq_issue", 'D', RQ},
    {"rq_merge", 'M', RQ},
    {"rq_requeue", 'R', RQ_ERROR},
    {"rq_complete", 'C', RQ_ERROR},
    {"bio_complete", 'C', BIO_ERROR},
    {"rq_insert", 'I', RQ},
    {"getrq", 'G', BIO},
    {"bio_bounce", 'B', BIO},
};

/*
 * EventName --
 *	The block event a field names, "block_NAME:" (perf: "block:
 *	block_NAME:"), without the prefix and colon.
 * Results: the name in a static buffer, or NULL for another subsystem.
 */
static const char *
EventName(const char *s, char *buf, size_t bufLen)
{
    size_t len;

    if (strncmp(s, "block:", 6) == 0) {
	s += 6;
    }
    len = strlen(s);
    if (strncmp(s, "block_", 6) != 0 || len < 8 || s[len - 1] != ':'
	    || len - 7 >= bufLen) {
	return NULL;
    }
    memcpy(buf, s + 6, len - 7);
    buf[len - 7] = '\0';
    return buf;
}

/*
 * Tail --
 *	"block_NAME: MAJ,MIN RWBS ..." from field a on.
 */
static const char *
Tail(Rb_Reader *r, const Rb_TextLine *l, int a, Rb_BlkEvent *ev, char *why,
	size_t whyLen)
{
    char *const *f = l->field;
    int nf = l->nfields, i, ok;
    char name[32];
    const char *kind;
    int64_t v, len;
    size_t k;
    enum Form form = NONE;

    if (a >= nf) {
	snprintf(why, whyLen, "no event name after the time");
	return "short-line";
    }
    if (EventName(f[a], name, sizeof(name)) == NULL) {
	RbReaderCount(r, "other-event");
	return NULL;
    }
    for (k = 0; k < sizeof(events) / sizeof(events[0]); k++) {
	if (strcmp(events[k].name, name) == 0) {
	    ev->action = events[k].action;
	    form = events[k].form;
	    break;
	}
    }
    if (form == NONE) {
	return NULL;		/* plug, unplug, rq_error, ...: nothing kept */
    }
    i = a + 1;
    if (i + 2 > nf) {
	snprintf(why, whyLen, "%s without device and RWBS", f[a]);
	return "short-line";
    }
    if (!RbBlkParseDev(f[i], &ev->dev)) {
	snprintf(why, whyLen, "field %d \"%.20s\" is not a major,minor device",
		i + 1, f[i]);
	return "bad-field";
    }
    ev->flags = RbBlkRwbs(f[i + 1], &ok);
    if (!ok) {
	snprintf(why, whyLen, "field %d \"%.20s\" is not an RWBS string",
		i + 2, f[i + 1]);
	return "bad-field";
    }
    i += 2;
    if (form == RQ) {
	if (i >= nf) {
	    snprintf(why, whyLen, "%s without its byte count", f[a]);
	    return "short-line";
	}
	if ((kind = RbTextNumber(l, i, "bytes", 1, 1, &v, why, whyLen))
		!= NULL) {
	    return kind;
	}
	i++;
    }
    if (form == RQ || form == RQ_ERROR) {
	/* The command, "(...)", may hold blanks (a SCSI CDB in hex). */
	if (i >= nf || f[i][0] != '(') {
	    snprintf(why, whyLen, "%s without its \"(command)\"", f[a]);
	    return i >= nf ? "short-line" : "bad-field";
	}
	while (i < nf && f[i][strlen(f[i]) - 1] != ')') {
	    i++;
	}
	i++;
    }
    if (i + 3 > nf) {
	snprintf(why, whyLen, "%s without \"SECTOR + SECTORS\"", f[a]);
	return "short-line";
    }
    if ((kind = RbTextNumber(l, i, "sector", 1, 1, &v, why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, i + 2, "sectors", 1, 1, &len, why,
	    whyLen)) != NULL) {
	return kind;
    }
    if (v < 0 || len < 0 || len > INT64_MAX / SECTOR
	    || (strcmp(f[i + 1], "+") != 0 && (strcmp(f[i + 1], "/") != 0
	    || ev->action != 'X'))) {
	snprintf(why, whyLen, "fields %d to %d \"%.20s %.4s %.20s\" are not "
		"SECTOR + SECTORS", i + 1, i + 3, f[i], f[i + 1], f[i + 2]);
	return "bad-field";
    }
    ev->sector = (uint64_t)v;
    if (ev->action == 'X') {
	ev->fromSector = (uint64_t)len;
	return NULL;
    }
    if (len == 0) {
	ev->sector = RB_BLK_NOSECTOR;	/* a flush: no data */
    }
    ev->bytes = (uint64_t)len * SECTOR;
    i += 3;
    if (ev->action == 'A') {
	if (i + 3 > nf || strcmp(f[i], "<-") != 0
		|| !RbBlkParseDev(f[i + 1], &ev->fromDev)
		|| !RbParseInt(f[i + 2], &v) || v < 0) {
	    snprintf(why, whyLen, "a remap without \"<- (maj,min) sector\"");
	    return "bad-field";
	}
	ev->fromSector = (uint64_t)v;
    }
    if ((form == RQ_ERROR || form == BIO_ERROR) && nf > i
	    && f[nf - 1][0] == '[') {
	ev->error = atoi(f[nf - 1] + 1);
    }
    return NULL;
}

/*
 * LineOk --
 *	A sniffed line: an ftrace head and a block event.
 */
static int
LineOk(char **f, int nf)
{
    int64_t t;
    uint32_t pid;
    char name[32];
    int a = RbFtraceHead(f, nf, &t, &pid, NULL, 0);

    return a >= 0 && a < nf && EventName(f[a], name, sizeof(name)) != NULL;
}

/*
 * BlockeventsSniff --
 *	Above the generic ftrace event reader of the magpie plugin when the
 *	first events are all block events.
 */
static int
BlockeventsSniff(const unsigned char *head, size_t n)
{
    return RbTextSniff(head, n, 0, LineOk) * 95 / 100;
}

/*
 * BlockeventsOpen --
 *	Sets up the shared ftrace reading (ftrace.c) with this format's
 *	parse of what follows the line head.
 * Results: TCL_OK.
 */
static int
BlockeventsOpen(Rb_Reader *r, Rb_Error *err)
{
    return RbFtraceOpen(r, Tail);
}

const Rb_ReaderClass Rb_BlockeventsReaderClass = {
    "blockevents",
    "Linux block tracepoint text (tracefs, trace-cmd, perf), paired into "
	"one record per I/O",
    sizeof(RbFtraceState),
    BlockeventsSniff,
    BlockeventsOpen,
    RbFtraceNext,
    RbFtraceClose,
};
