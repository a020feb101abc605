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
} Rb_Text;

/* Parses line into record i of b (appended with every field absent).
 * Returns NULL when the record is good, or the malformed kind
 * ("bad-field", "short-line", ...) with a detail in why. */
typedef const char *(Rb_TextParseProc)(Rb_Reader *r, Rb_TextLine *line,
		    Rb_Batch *b, int i, char *why, size_t whyLen);

/* A reader's fast path for the common form of its lines: parses the whole
 * line s (NUL-terminated, not split) into record i of b, appended with
 * every field absent, and returns 1; or, for any line it is not sure of
 * (blank, comment, malformed, unusual but valid), returns 0 without
 * touching b, and the line goes through the parse proc as if there were
 * no fast path.  So a fast path only has to agree with the parse proc on
 * the lines it accepts. */
typedef int (Rb_TextFastProc)(Rb_Reader *r, struct Rb_TextFast *fast,
		    const char *s, Rb_Batch *b, int i);

typedef struct Rb_TextFast {
    Rb_TextFastProc *proc;
} Rb_TextFast;

/*
 * RbTextDigits --
 *	A run of 1 to 18 decimal digits (so that it fits in 60 bits) and
 *	then the character stop, in a line from Rb_InputGetLine: it is
 *	read 8 bytes at a time, up to 7 bytes past the run (RB_INPUT_PAD),
 *	with no branch per digit.
 * Results: the character after stop with *v set, or NULL.
 */
static inline const char *
RbTextDigits(const char *p, char stop, int64_t *v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    static const uint64_t pow10[9] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
    };
    uint64_t x = 0, w, d, other;
    int n, total = 0;

    do {
	memcpy(&w, p, 8);
	/* The top bit of each byte that is not a digit (above '9', below
	 * '0', or not ASCII); a carry or borrow only reaches bytes after
	 * the first such byte, which are not used. */
	other = ((w + 0x4646464646464646ULL) | (w - 0x3030303030303030ULL)
		| w) & 0x8080808080808080ULL;
	n = other ? __builtin_ctzll(other) >> 3 : 8;
	if (n == 0) {
	    break;
	}
	/* The n digits to the top bytes, then pairs, quads, eights. */
	d = (w << (8 * (8 - n))) & 0x0F0F0F0F0F0F0F0FULL;
	d = (d * 2561) >> 8;
	d = ((d & 0x00FF00FF00FF00FFULL) * 6553601) >> 16;
	d = ((d & 0x0000FFFF0000FFFFULL) * 42949672960001ULL) >> 32;
	x = x * pow10[n] + d;
	total += n;
	p += n;
    } while (n == 8 && total <= 18);
#else
    const char *start = p;
    uint64_t x = 0;
    unsigned d;
    int total;

    while ((d = (unsigned)(unsigned char)*p - '0') < 10) {
	x = x * 10 + d;
	p++;
    }
    total = (int)(p - start);
#endif
    if (total == 0 || total > 18 || *p != stop) {
	return NULL;
    }
    *v = (int64_t)x;
    return p + 1;
}

int		RbTextSplit(char *s, char delim, char **field, int max);
int		RbTextNextLine(Rb_Reader *r, Rb_Text *tx);
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

#endif /* RB_TEXT_H */
