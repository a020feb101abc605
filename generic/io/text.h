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

int		Rb_TextSplit(char *s, char delim, char **field, int max);
int		Rb_TextNextLine(Rb_Reader *r, Rb_Text *tx);
int		Rb_TextBad(Rb_Reader *r, Rb_Text *tx, const char *kind,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int		Rb_TextFinish(Rb_Text *tx, Rb_Batch *b, int start,
		    Rb_Error *err);
int		Rb_TextKeep(Rb_Reader *r, Rb_Text *tx, Rb_Batch *b, int i);
int		Rb_TextNext(Rb_Reader *r, Rb_Text *tx, Rb_Batch *b,
		    Rb_TextParseProc *parse, Rb_Error *err);

const char *	Rb_TextFields(const Rb_TextLine *line, int min, int max,
		    char *why, size_t whyLen);
const char *	Rb_TextNumber(const Rb_TextLine *line, int idx,
		    const char *name, int64_t scale, int whole, int64_t *v,
		    char *why, size_t whyLen);
int		Rb_ParseInt(const char *s, int64_t *v);
int		Rb_ParseHex(const char *s, int64_t *v);
int		Rb_ParseScaled(const char *s, int64_t scale, int64_t *v);
int		Rb_TimeUnitScale(const char *name, int64_t *scale);
int		Rb_TextSniff(const unsigned char *head, size_t n, char delim,
		    int (*lineOk)(char **field, int nfields));
uint32_t	Rb_HashName(const char *s);

#endif /* RB_TEXT_H */
