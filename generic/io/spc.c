/*
 * spc.c --
 *
 *	Reader of the UMass Trace Repository / SPC block traces: CSV lines
 *	"ASU,LBA,Size,Opcode,Timestamp" with optional further fields, the
 *	LBA in 512-byte sectors, the size in bytes, the opcode r or w and
 *	the timestamp in seconds from the start of the trace.  Field
 *	mapping in doc/spc.n.
 */

#include "io/text.h"
#include "io/readers.h"

#define SECTOR 512

typedef struct SpcState {
    Rb_Text tx;
    Rb_TextFast fast;
} SpcState;

/*
 * IsOpcode --
 *	Whether s is an SPC opcode: r or w in either case.
 */
static int
IsOpcode(const char *s)
{
    return (s[0] == 'r' || s[0] == 'R' || s[0] == 'w' || s[0] == 'W')
	    && s[1] == '\0';
}

/*
 * SpcLineOk --
 *	A sniffed line: five or more fields, whole ASU, LBA and size, an
 *	r/w opcode and a decimal timestamp.
 */
static int
SpcLineOk(char **f, int nf)
{
    int64_t v;

    return nf >= 5 && RbParseInt(f[0], &v) && RbParseInt(f[1], &v)
	    && RbParseInt(f[2], &v) && IsOpcode(f[3])
	    && RbParseScaled(f[4], 1000000000, &v);
}

static int
SpcSniff(const unsigned char *head, size_t n)
{
    return RbTextSniff(head, n, ',', SpcLineOk) * 85 / 100;
}

/*
 * SpcFastLine --
 *	The fast path (see Rb_TextFastProc) for the usual line: plain
 *	digits, no blanks, r/R/w/W, a timestamp of digits with a fraction
 *	of at most 9; any other line is left to SpcParse.
 */
static int
SpcFastLine(Rb_Reader *r, Rb_TextFast *fast, const char *s, size_t len,
	Rb_Batch *b, int i)
{
    const char *p, *end = s + len;
    int64_t asu, lba, size, t;
    int op;

    if ((p = RbTextDigits(s, ',', &asu)) == NULL
	    || (p = RbTextDigits(p, ',', &lba)) == NULL
	    || __builtin_mul_overflow(lba, SECTOR, &lba)
	    || (p = RbTextDigits(p, ',', &size)) == NULL
	    || ((p[0] | 0x20) != 'r' && (p[0] | 0x20) != 'w') || p[1] != ','
	    || (op = p[0] | 0x20, p = RbTextDecimal(p + 2, 1000000000, &t))
	    == NULL
	    || (*p == ',' ? strlen(p) != (size_t)(end - p) : p != end)) {
	return 0;
    }
    b->col[RB_IO_DEVICE][i] = asu;
    b->col[RB_IO_OFFSET][i] = lba;
    b->col[RB_IO_SIZE][i] = size;
    b->col[RB_IO_TIME][i] = t;
    b->col[RB_IO_OP][i] = op == 'r' ? RB_OP_READ : RB_OP_WRITE;
    return 1;
}

/*
 * SpcOpen --
 *	Comma-separated lines; the timestamps count from the start of the
 *	trace, whose absolute time the format does not give (epoch 0).
 */
static int
SpcOpen(Rb_Reader *r, Rb_Error *err)
{
    SpcState *st = r->state;

    st->tx.delim = ',';
    st->tx.comment = '#';
    st->fast.proc = SpcFastLine;
    if (getenv("RUBICON_TEXT_SLOW") == NULL) {
	st->tx.fast = &st->fast;
    }
    r->epochNs = 0;
    return TCL_OK;
}

/*
 * SpcParse --
 *	One line into record i; fields after the timestamp are not part of
 *	the record.
 */
static const char *
SpcParse(Rb_Reader *r, Rb_TextLine *l, Rb_Batch *b, int i, char *why,
	size_t whyLen)
{
    const char *kind;

    if ((kind = RbTextFields(l, 5, RB_TEXT_MAX_FIELDS, why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 0, "ASU", 1, 1,
		&b->col[RB_IO_DEVICE][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 1, "LBA", SECTOR, 1,
		&b->col[RB_IO_OFFSET][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 2, "Size", 1, 1,
		&b->col[RB_IO_SIZE][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 4, "Timestamp", 1000000000, 0,
		&b->col[RB_IO_TIME][i], why, whyLen)) != NULL) {
	return kind;
    }
    if (!IsOpcode(l->field[3])) {
	snprintf(why, whyLen, "Opcode \"%.20s\" is neither r nor w",
		l->field[3]);
	return "bad-op";
    }
    b->col[RB_IO_OP][i] = (l->field[3][0] | 0x20) == 'r'
	    ? RB_OP_READ : RB_OP_WRITE;
    return NULL;
}

static int
SpcNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    return RbTextNext(r, &((SpcState *)r->state)->tx, b, SpcParse, err);
}

const Rb_ReaderClass Rb_SpcReaderClass = {
    "spc",
    "UMass/SPC block trace (CSV ASU,LBA,Size,Opcode,Timestamp in s)",
    sizeof(SpcState),
    SpcSniff,
    SpcOpen,
    SpcNext,
    NULL,
};
