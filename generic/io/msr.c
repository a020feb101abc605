/*
 * msr.c --
 *
 *	Reader of the MSR Cambridge block traces (SNIA IOTTA): CSV lines
 *	"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime" with
 *	the timestamp a Windows FILETIME (100 ns ticks since 1601) and the
 *	response time in ticks.  Field mapping in doc/msr.n.
 */

#include "io/text.h"
#include "io/readers.h"

/* FILETIME ticks from 1601-01-01 to the Unix epoch. */
#define FILETIME_UNIX	116444736000000000LL
/* Ticks allowed either side of 1970 (about 126 years), so that the
 * difference of two times in ns cannot overflow an int64. */
#define FILETIME_RANGE	40000000000000000LL
/* Longest response time taken, ns (about 31 years). */
#define RESPONSE_MAX	1000000000000000000LL

/* The fast path's state: the last hostname and its hash, since a trace
 * names one or a few hosts over and over; the name and its comma as up
 * to 4 words, with masks of the bytes they use. */
typedef struct MsrFast {
    Rb_TextFast base;
    size_t hostLen;
    uint32_t hostHash;
    int hostWords;
    uint64_t hostWord[4], hostMask[4];
} MsrFast;

#define HOST_MAX 31		/* longest hostname the fast path keeps */

/*
 * SameHost --
 *	Whether p, in a line ending at end, starts with the last hostname
 *	and a comma, compared a word at a time (reading no further than
 *	RB_INPUT_PAD past the line's NUL).
 */
static inline int
SameHost(const MsrFast *mf, const char *p, const char *end)
{
    uint64_t w, diff = 0;
    int k;

    if (p + 8 * mf->hostWords > end + RB_INPUT_PAD) {
	return 0;
    }
    for (k = 0; k < mf->hostWords; k++) {
	memcpy(&w, p + 8 * k, 8);
	diff |= (w ^ mf->hostWord[k]) & mf->hostMask[k];
    }
    return mf->hostWords > 0 && diff == 0;
}

/*
 * KeepHost --
 *	Makes the hostLen bytes at host the last hostname.
 */
static void
KeepHost(MsrFast *mf, const char *host, size_t hostLen)
{
    char name[HOST_MAX + 1 + 32];
    int k;

    memset(name, 0, sizeof(name));
    memcpy(name, host, hostLen);
    mf->hostHash = RbHashName(name);
    name[hostLen] = ',';
    mf->hostLen = hostLen;
    mf->hostWords = (int)(hostLen + 8) / 8;
    for (k = 0; k < mf->hostWords; k++) {
	size_t used = hostLen + 1 - 8 * (size_t)k;

	memcpy(&mf->hostWord[k], name + 8 * k, 8);
	mf->hostMask[k] = used >= 8 ? ~0ULL : (1ULL << (8 * used)) - 1;
    }
}

typedef struct MsrState {
    Rb_Text tx;
    MsrFast fast;
} MsrState;

/*
 * IsReadWrite --
 *	Whether s is an MSR request type, "Read" or "Write" in any case.
 */
static int
IsReadWrite(const char *s)
{
    switch (*s) {
    case 'R': case 'r':
	return strcasecmp(s, "Read") == 0;
    case 'W': case 'w':
	return strcasecmp(s, "Write") == 0;
    }
    return 0;
}

/*
 * MsrLineOk --
 *	A sniffed line: seven fields, numbers where numbers belong and a
 *	Read/Write type.
 */
static int
MsrLineOk(char **f, int nf)
{
    int64_t v;

    return nf == 7 && RbParseInt(f[0], &v) && v > FILETIME_UNIX / 2
	    && RbParseInt(f[2], &v) && IsReadWrite(f[3])
	    && RbParseInt(f[4], &v) && RbParseInt(f[5], &v)
	    && RbParseInt(f[6], &v);
}

static int
MsrSniff(const unsigned char *head, size_t n)
{
    return RbTextSniff(head, n, ',', MsrLineOk) * 9 / 10;
}

/*
 * UnixNs --
 *	A FILETIME tick count as Unix nanoseconds.
 * Results: 1 with *ns set, 0 when it is out of the representable range.
 */
static int
UnixNs(int64_t ticks, int64_t *ns)
{
    int64_t rel;

    if (ticks < FILETIME_UNIX - FILETIME_RANGE
	    || ticks > FILETIME_UNIX + FILETIME_RANGE) {
	return 0;
    }
    rel = ticks - FILETIME_UNIX;
    *ns = rel * 100;
    return 1;
}

/*
 * MsrFastLine --
 *	The fast path (see Rb_TextFastProc) for the usual line: plain
 *	digits, a hostname without blanks at its ends, "Read" or "Write"
 *	as spelled, nothing out of range.  It gives what MsrParse gives on
 *	such a line; any other line is left to MsrParse.
 */
static int
MsrFastLine(Rb_Reader *r, Rb_TextFast *fast, const char *s, size_t len,
	Rb_Batch *b, int i)
{
    MsrFast *mf = (MsrFast *)fast;
    const char *p, *host;
    int64_t ticks, device, offset, size, resp, ns;
    size_t hostLen;
    int op;

    if ((p = RbTextDigits(s, ',', &ticks)) == NULL) {
	return 0;
    }
    host = p;
    if (SameHost(mf, p, s + len)) {
	hostLen = mf->hostLen;
	p += hostLen;
    } else {
	for (; *p != ',' && *p != '\0'; p++) {
	    continue;
	}
	hostLen = (size_t)(p - host);
	if (*p != ',' || hostLen == 0 || hostLen > HOST_MAX
		|| host[0] == ' ' || host[0] == '\t' || p[-1] == ' '
		|| p[-1] == '\t') {
	    return 0;
	}
    }
    if ((p = RbTextDigits(p + 1, ',', &device)) == NULL) {
	return 0;
    }
    /* Fixed-length compares (inlined), safe within RB_INPUT_PAD. */
    if (memcmp(p, "Read,", 5) == 0) {
	op = RB_OP_READ;
	p += 5;
    } else if (memcmp(p, "Write,", 6) == 0) {
	op = RB_OP_WRITE;
	p += 6;
    } else {
	return 0;
    }
    if ((p = RbTextDigits(p, ',', &offset)) == NULL
	    || (p = RbTextDigits(p, ',', &size)) == NULL
	    || (p = RbTextDigits(p, '\0', &resp)) == NULL || p != s + len + 1
	    || resp > RESPONSE_MAX / 100 || !UnixNs(ticks, &ns)) {
	return 0;
    }
    if (hostLen != mf->hostLen || !SameHost(mf, host, s + len)) {
	KeepHost(mf, host, hostLen);
    }
    b->col[RB_IO_TIME][i] = ns - r->epochNs;
    b->col[RB_IO_FINISH][i] = ns - r->epochNs + resp * 100;
    b->col[RB_IO_OP][i] = op;
    b->col[RB_IO_MACHINE][i] = mf->hostHash;
    b->col[RB_IO_DEVICE][i] = device;
    b->col[RB_IO_OFFSET][i] = offset;
    b->col[RB_IO_SIZE][i] = size;
    return 1;
}

/*
 * MsrOpen --
 *	Takes the epoch from the first line's timestamp, truncated to the
 *	second; a first line that cannot be read leaves epoch 0 and is
 *	reported by next like any other bad line.
 */
static int
MsrOpen(Rb_Reader *r, Rb_Error *err)
{
    MsrState *st = r->state;
    char head[64];
    long n;
    int64_t ticks, ns;

    st->tx.delim = ',';
    st->tx.comment = '#';
    st->fast.base.proc = MsrFastLine;
    /* The fields MsrFastLine and MsrParse write; the rest stay absent. */
    st->tx.writes = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_FINISH)
	    | RB_FIELD_BIT(RB_IO_OP) | RB_FIELD_BIT(RB_IO_MACHINE)
	    | RB_FIELD_BIT(RB_IO_DEVICE) | RB_FIELD_BIT(RB_IO_OFFSET)
	    | RB_FIELD_BIT(RB_IO_SIZE);
    if (getenv("RUBICON_TEXT_SLOW") == NULL) {
	st->tx.fast = &st->fast.base;
    }
    n = Rb_InputPeek(r->in, head, sizeof(head) - 1, err);
    if (n < 0) {
	return TCL_ERROR;
    }
    head[n] = '\0';
    head[strcspn(head, ",\n")] = '\0';
    if (RbParseInt(head, &ticks) && UnixNs(ticks, &ns)) {
	r->epochNs = ns - ((ns % 1000000000) + 1000000000) % 1000000000;
    }
    return TCL_OK;
}

/*
 * MsrParse --
 *	One CSV line into record i.
 */
static const char *
MsrParse(Rb_Reader *r, Rb_TextLine *l, Rb_Batch *b, int i, char *why,
	size_t whyLen)
{
    const char *kind;
    int64_t ticks, ns, resp;
    char *type;

    if ((kind = RbTextFields(l, 7, 7, why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 0, "Timestamp", 1, 1, &ticks, why,
		whyLen)) != NULL
	    || (kind = RbTextNumber(l, 2, "DiskNumber", 1, 1,
		&b->col[RB_IO_DEVICE][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 4, "Offset", 1, 1,
		&b->col[RB_IO_OFFSET][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 5, "Size", 1, 1,
		&b->col[RB_IO_SIZE][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 6, "ResponseTime", 100, 1, &resp, why,
		whyLen)) != NULL) {
	return kind;
    }
    if (!UnixNs(ticks, &ns)) {
	snprintf(why, whyLen, "Timestamp %lld is not a time between 1843 and "
		"2096", (long long)ticks);
	return "bad-field";
    }
    if (resp < 0 || resp > RESPONSE_MAX) {
	snprintf(why, whyLen, "ResponseTime %s is out of range",
		l->field[6]);
	return "bad-field";
    }
    type = l->field[3];
    if (!IsReadWrite(type)) {
	snprintf(why, whyLen, "Type \"%.20s\" is neither Read nor Write", type);
	return "bad-op";
    }
    b->col[RB_IO_TIME][i] = ns - r->epochNs;
    b->col[RB_IO_FINISH][i] = ns - r->epochNs + resp;
    b->col[RB_IO_OP][i] = strcasecmp(type, "Read") == 0
	    ? RB_OP_READ : RB_OP_WRITE;
    b->col[RB_IO_MACHINE][i] = RbHashName(l->field[1]);
    return NULL;
}

static int
MsrNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    return RbTextNext(r, &((MsrState *)r->state)->tx, b, MsrParse, err);
}

const Rb_ReaderClass Rb_MsrReaderClass = {
    "msr",
    "MSR Cambridge block trace (CSV, Windows 100 ns ticks)",
    sizeof(MsrState),
    MsrSniff,
    MsrOpen,
    MsrNext,
    NULL,
};
