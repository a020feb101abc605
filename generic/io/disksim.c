/*
 * disksim.c --
 *
 *	Reader of DiskSim ASCII traces, also the input format of MQSim:
 *	lines "time device lba size type" separated by blanks, the LBA and
 *	size in 512-byte sectors and bit 0 of type set for a read.  DiskSim
 *	writes the time in milliseconds with a fraction; the MQSim traces
 *	write whole nanoseconds.  Field mapping and the evidence for the
 *	units in doc/disksim.n.
 */

#include "io/text.h"
#include "io/readers.h"

#define SECTOR 512

typedef struct DiskSimState {
    Rb_Text tx;
    Rb_TextFast fast;
    int64_t timeScale;		/* ns per unit of the time field */
} DiskSimState;

/*
 * DiskSimLineOk --
 *	A sniffed line: five blank-separated numbers, the first possibly
 *	with a fraction.
 */
static int
DiskSimLineOk(char **f, int nf)
{
    int64_t v;

    return nf == 5 && RbParseScaled(f[0], 1000000, &v)
	    && RbParseInt(f[1], &v) && RbParseInt(f[2], &v)
	    && RbParseInt(f[3], &v) && RbParseInt(f[4], &v);
}

static int
DiskSimSniff(const unsigned char *head, size_t n)
{
    return RbTextSniff(head, n, 0, DiskSimLineOk) * 7 / 10;
}

/*
 * DiskSimFastLine --
 *	The fast path (see Rb_TextFastProc) for the usual line: five plain
 *	numbers separated by blanks, a time with a fraction of at most 9
 *	digits; any other line is left to DiskSimParse.
 */
static int
DiskSimFastLine(Rb_Reader *r, Rb_TextFast *fast, const char *s, size_t len,
	Rb_Batch *b, int i)
{
    DiskSimState *st = r->state;
    const char *p = s;
    int64_t t, device, lba, size, type;
    int n;

    while (*p == ' ' || *p == '\t') {
	p++;
    }
    if ((p = RbTextDecimal(p, st->timeScale, &t)) == NULL
	    || (p = RbTextBlanks(p)) == NULL
	    || (p = RbTextDigitRun(p, &device, &n)) == NULL
	    || (p = RbTextBlanks(p)) == NULL
	    || (p = RbTextDigitRun(p, &lba, &n)) == NULL
	    || __builtin_mul_overflow(lba, SECTOR, &lba)
	    || (p = RbTextBlanks(p)) == NULL
	    || (p = RbTextDigitRun(p, &size, &n)) == NULL
	    || __builtin_mul_overflow(size, SECTOR, &size)
	    || (p = RbTextBlanks(p)) == NULL
	    || (p = RbTextDigitRun(p, &type, &n)) == NULL) {
	return 0;
    }
    while (*p == ' ' || *p == '\t') {
	p++;
    }
    if (p != s + len) {
	return 0;
    }
    b->col[RB_IO_TIME][i] = t;
    b->col[RB_IO_DEVICE][i] = device;
    b->col[RB_IO_OFFSET][i] = lba;
    b->col[RB_IO_SIZE][i] = size;
    b->col[RB_IO_OP][i] = (type & 1) ? RB_OP_READ : RB_OP_WRITE;
    b->col[RB_IO_FLAGS][i] = type;
    return 1;
}

/*
 * DiskSimOpen --
 *	Chooses the time unit: the readeroptions "timeunit" (ns, us, ms,
 *	s), else milliseconds when the first line's time has a fraction or
 *	exponent (DiskSim) and nanoseconds when it is whole (MQSim).
 * Results: TCL_OK, or TCL_ERROR for an unknown unit.
 */
static int
DiskSimOpen(Rb_Reader *r, Rb_Error *err)
{
    DiskSimState *st = r->state;
    Tcl_Obj *unit = RbReaderOption(r, "timeunit");
    char head[128];
    long n;

    st->tx.delim = 0;
    st->tx.comment = '#';
    st->fast.proc = DiskSimFastLine;
    if (getenv("RUBICON_TEXT_SLOW") == NULL) {
	st->tx.fast = &st->fast;
    }
    if (unit != NULL) {
	if (!RbTimeUnitScale(Tcl_GetString(unit), &st->timeScale)) {
	    Rb_SetError(err, "RUBICON READER OPTION", "%s: unknown timeunit "
		    "\"%s\": ns, us, ms or s", Rb_InputPath(r->in),
		    Tcl_GetString(unit));
	    return TCL_ERROR;
	}
	return TCL_OK;
    }
    n = Rb_InputPeek(r->in, head, sizeof(head) - 1, err);
    if (n < 0) {
	return TCL_ERROR;
    }
    head[n] = '\0';
    head[strcspn(head, " \t\n")] = '\0';
    st->timeScale = strpbrk(head, ".eE") ? 1000000 : 1;
    return TCL_OK;
}

/*
 * DiskSimParse --
 *	One line into record i.
 */
static const char *
DiskSimParse(Rb_Reader *r, Rb_TextLine *l, Rb_Batch *b, int i, char *why,
	size_t whyLen)
{
    DiskSimState *st = r->state;
    const char *kind;
    int64_t type;

    if ((kind = RbTextFields(l, 5, 5, why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 0, "time", st->timeScale, 0,
		&b->col[RB_IO_TIME][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 1, "device", 1, 1,
		&b->col[RB_IO_DEVICE][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 2, "lba", SECTOR, 1,
		&b->col[RB_IO_OFFSET][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 3, "size", SECTOR, 1,
		&b->col[RB_IO_SIZE][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 4, "type", 1, 1, &type, why,
		whyLen)) != NULL) {
	return kind;
    }
    b->col[RB_IO_OP][i] = (type & 1) ? RB_OP_READ : RB_OP_WRITE;
    b->col[RB_IO_FLAGS][i] = type;
    return NULL;
}

static int
DiskSimNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    return RbTextNext(r, &((DiskSimState *)r->state)->tx, b, DiskSimParse,
	    err);
}

const Rb_ReaderClass Rb_DiskSimReaderClass = {
    "disksim",
    "DiskSim/MQSim ASCII trace (time device lba sectors type)",
    sizeof(DiskSimState),
    DiskSimSniff,
    DiskSimOpen,
    DiskSimNext,
    NULL,
};
