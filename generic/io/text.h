/*
 * text.h --
 *
 *	Line-oriented trace input shared by the text readers (msr, spc,
 *	disksim, csv, blkparse): lines split into fields in place, exact
 *	decimal number parsing, content sniffing, and the loop that turns
 *	one line into one record with the malformed-line and out-of-order
 *	policy applied.
 */

#ifndef RB_TEXT_H
#define RB_TEXT_H

#include "io/ioInt.h"

#define RB_TEXT_MAX_FIELDS 64

/* One input line split into fields (pointers into the line, valid until
 * the next line is read). */
typedef struct Rb_TextLine {
    char *field[RB_TEXT_MAX_FIELDS];
    int nfields;
    uint64_t lineNo;		/* 1-based */
    uint64_t offset;		/* byte offset of the line's start */
} Rb_TextLine;

/* The state a text reader keeps inside its own state struct. */
typedef struct Rb_Text {
    char delim;			/* Field separator; 0 = runs of blanks. */
    char comment;		/* Lines starting with it are skipped; 0 none. */
    int done;
    int failed;			/* pending holds an error for the next call. */
    Rb_Error pending;
    Rb_TextLine line;
    struct Rb_TextFast *fast;	/* A reader's fast path, or NULL. */
    uint64_t fastLines;		/* Lines the fast path took, for tests. */
    uint64_t writes;		/* RB_FIELD_BITs of the fields its parse
				 * procs may write (0: any), each of which
				 * its fast path writes on every line it
				 * takes: the others are set absent once in
				 * a batch (RbSetAbsent). */
    RbAbsentBatches absent;
} Rb_Text;

/* Parses line into record i of b (appended with every field absent).
 * Returns NULL when the record is good, or the malformed kind
 * ("bad-field", "short-line", ...) with a detail in why. */
typedef const char *(Rb_TextParseProc)(Rb_Reader *r, Rb_TextLine *line,
		    Rb_Batch *b, int i, char *why, size_t whyLen);

/* A reader's fast path for the common form of its lines: parses the whole
 * line s of len bytes (NUL-terminated, not split) into record i of b,
 * appended with every field absent, and returns 1; or, for any line it
 * is not sure of (blank, comment, malformed, unusual but valid, holding
 * a NUL byte before s[len]), returns 0 without touching b, and the line
 * goes through the parse proc as if there were no fast path.  So a fast
 * path only has to agree with the parse proc on the lines it accepts. */
typedef int (Rb_TextFastProc)(Rb_Reader *r, struct Rb_TextFast *fast,
		    const char *s, size_t len, Rb_Batch *b, int i);

typedef struct Rb_TextFast {
    Rb_TextFastProc *proc;
} Rb_TextFast;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * RbTextNonDigits --
 *	The top bit of each byte of w (8 bytes of text, the first in the
 *	low byte) that is not an ASCII digit; a carry or borrow only
 *	reaches bytes after the first such byte, which callers do not use.
 */
static inline uint64_t
RbTextNonDigits(uint64_t w)
{
    return ((w + 0x4646464646464646ULL) | (w - 0x3030303030303030ULL) | w)
	    & 0x8080808080808080ULL;
}

/*
 * RbTextEight --
 *	The value of the n (1 to 8) digits starting at the low byte of w,
 *	with no branch per digit: the digits to the top bytes, then pairs,
 *	quads, eights.
 */
static inline uint64_t
RbTextEight(uint64_t w, int n)
{
    uint64_t d = (w << (8 * (8 - n))) & 0x0F0F0F0F0F0F0F0FULL;

    d = (d * 2561) >> 8;
    d = ((d & 0x00FF00FF00FF00FFULL) * 6553601) >> 16;
    return ((d & 0x0000FFFF0000FFFFULL) * 42949672960001ULL) >> 32;
}
#endif

/*
 * RbTextDigitRun --
 *	A run of 1 to 18 decimal digits (so that it fits in 60 bits) in a
 *	line from Rb_InputGetLine: it is read 8 bytes at a time, up to 15
 *	bytes past the run (within RB_INPUT_PAD), with no branch per digit.
 * Results: the first character after the run with *v set and *ndigits
 *	the run's length, or NULL for no digit or more than 18.
 */
static inline __attribute__((always_inline)) const char *
RbTextDigitRun(const char *p, int64_t *v, int *ndigits)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    static const uint64_t pow10[9] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
    };
    uint64_t w0, w1, w2, o;
    int n;

    memcpy(&w0, p, 8);
    if ((o = RbTextNonDigits(w0)) != 0) {
	n = __builtin_ctzll(o) >> 3;
	if (n == 0) {
	    return NULL;
	}
	*v = (int64_t)RbTextEight(w0, n);
	*ndigits = n;
	return p + n;
    }
    memcpy(&w1, p + 8, 8);
    if ((o = RbTextNonDigits(w1)) != 0) {
	n = __builtin_ctzll(o) >> 3;
	*v = (int64_t)(RbTextEight(w0, 8) * pow10[n]
		+ (n ? RbTextEight(w1, n) : 0));
	*ndigits = 8 + n;
	return p + 8 + n;
    }
    memcpy(&w2, p + 16, 8);
    o = RbTextNonDigits(w2);
    n = o ? __builtin_ctzll(o) >> 3 : 8;
    if (n > 2) {
	return NULL;
    }
    *v = (int64_t)((RbTextEight(w0, 8) * 100000000 + RbTextEight(w1, 8))
	    * pow10[n] + (n ? RbTextEight(w2, n) : 0));
    *ndigits = 16 + n;
    return p + 16 + n;
#else
    const char *start = p;
    uint64_t x = 0;
    unsigned d;

    while ((d = (unsigned)(unsigned char)*p - '0') < 10) {
	x = x * 10 + d;
	if (++p - start > 18) {
	    return NULL;
	}
    }
    if (p == start) {
	return NULL;
    }
    *v = (int64_t)x;
    *ndigits = (int)(p - start);
    return p;
#endif
}

/*
 * RbTextDigits --
 *	A run of 1 to 18 decimal digits (RbTextDigitRun) and then the
 *	character stop.
 * Results: the character after stop with *v set, or NULL.
 */
static inline __attribute__((always_inline)) const char *
RbTextDigits(const char *p, char stop, int64_t *v)
{
    int64_t x;
    int n;

    p = RbTextDigitRun(p, &x, &n);
    if (p == NULL || *p != stop) {
	return NULL;
    }
    *v = x;
    return p + 1;
}

/*
 * RbTextDecimal --
 *	A plain decimal number from a line from Rb_InputGetLine: 1 to 18
 *	digits, then optionally a point and 1 to 9 more (24 digits at most,
 *	as RbParseScaled takes them), times scale (1 to 10^9 with a
 *	fraction, to 10^12 without) and rounded to the nearest integer, a
 *	half up, as RbParseScaled rounds it.
 * Results: the first character after the number with *v set, or NULL
 *	for any other form or a result beyond int64 (RbParseScaled then
 *	decides).
 */
static inline __attribute__((always_inline)) const char *
RbTextDecimal(const char *p, int64_t scale, int64_t *v)
{
    static const int64_t pow10[10] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
	1000000000,
    };
    int64_t whole, frac, part;
    int nw, nf;

    if ((p = RbTextDigitRun(p, &whole, &nw)) == NULL
	    || __builtin_mul_overflow(whole, scale, &whole)) {
	return NULL;
    }
    if (*p != '.') {
	*v = whole;
	return p;
    }
    if ((p = RbTextDigitRun(p + 1, &frac, &nf)) == NULL || nf > 9
	    || nw + nf > 24 || scale > 1000000000) {
	return NULL;
    }
    /* whole + round(frac * scale / 10^nf), halves up: the whole part
     * adds an integer, which does not change the rounding; frac * scale
     * < 10^18. */
    part = (frac * scale + pow10[nf] / 2) / pow10[nf];
    if (__builtin_add_overflow(whole, part, v)) {
	return NULL;
    }
    return p;
}

/*
 * RbTextBlanks --
 *	p past a run of one or more blanks (spaces, tabs).
 * Results: the first character after the run, or NULL when p is not
 *	at a blank.
 */
static inline const char *
RbTextBlanks(const char *p)
{
    if (*p != ' ' && *p != '\t') {
	return NULL;
    }
    do {
	p++;
    } while (*p == ' ' || *p == '\t');
    return p;
}

/* Offers the whole line s of len bytes to a reader's fast path, which
 * returns 1 when it took it (see RbTextNextLineOr). */
typedef int (Rb_TextTakeProc)(Rb_Reader *r, const char *s, size_t len,
		    void *arg);

int		RbTextSplit(char *s, char delim, char **field, int max);
int		RbTextNextLine(Rb_Reader *r, Rb_Text *tx);
int		RbTextNextLineOr(Rb_Reader *r, Rb_Text *tx,
		    Rb_TextTakeProc *take, void *arg);
int		RbTextBad(Rb_Reader *r, Rb_Text *tx, const char *kind,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int		RbTextFinish(Rb_Text *tx, Rb_Batch *b, int start,
		    Rb_Error *err);
int		RbTextKeep(Rb_Reader *r, Rb_Text *tx, Rb_Batch *b, int i);
int		RbTextNext(Rb_Reader *r, Rb_Text *tx, Rb_Batch *b,
		    Rb_TextParseProc *parse, Rb_Error *err);

const char *	RbTextFields(const Rb_TextLine *line, int min, int max,
		    char *why, size_t whyLen);
const char *	RbTextNumber(const Rb_TextLine *line, int idx,
		    const char *name, int64_t scale, int whole, int64_t *v,
		    char *why, size_t whyLen);
int		RbParseInt(const char *s, int64_t *v);
int		RbParseHex(const char *s, int64_t *v);
int		RbParseScaled(const char *s, int64_t scale, int64_t *v);
int		RbTimeUnitScale(const char *name, int64_t *scale);
int		RbTextSniff(const unsigned char *head, size_t n, char delim,
		    int (*lineOk)(char **field, int nfields));
uint32_t	RbHashName(const char *s);

/*
 * The cloud block traces published as CSV of five fields (blockCsv.c):
 * where each field is, what the publisher calls it, the unit of offset
 * and size in bytes and the largest timestamp magnitude taken (about 146
 * years either side of 1970 in the timestamp's unit, so that times in ns
 * and their differences fit an int64).
 */
typedef struct Rb_BlockCsv {
    int device, offset, size, time;	/* 0-based columns */
    const char *deviceName, *offsetName, *sizeName, *timeName;
    int64_t unit;
    int64_t timeRange;
} Rb_BlockCsv;

int		RbBlockCsvOpen(Rb_Reader *r, Rb_Text *tx,
		    const Rb_BlockCsv *c, int64_t *time, int *found,
		    Rb_Error *err);
const char *	RbBlockCsvParse(const Rb_BlockCsv *c, Rb_TextLine *l,
		    Rb_Batch *b, int i, int64_t *time, char *why,
		    size_t whyLen);

#endif /* RB_TEXT_H */
