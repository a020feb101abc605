/*
 * text.c --
 *
 *	What the line-oriented readers share: reading the next line and
 *	splitting it into fields, exact decimal parsing (times in the
 *	traces are decimal fractions; a double would round them), the
 *	malformed-line policy with the line number and byte offset, and
 *	sniffing by trying a format's line test on the first lines.
 */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include "io/text.h"

#define SNIFF_LINES 8

/*
 * RbTextSplit --
 *	Splits s in place into at most max fields: at every delim, or at
 *	runs of blanks when delim is 0.  Fields are trimmed of blanks; a
 *	last field beyond max keeps the rest of the line.
 * Results: the number of fields.
 */
int
RbTextSplit(char *s, char delim, char **field, int max)
{
    int nf = 0;

    if (delim == 0) {
	while (nf < max) {
	    while (*s == ' ' || *s == '\t') {
		s++;
	    }
	    if (*s == '\0') {
		break;
	    }
	    field[nf++] = s;
	    if (nf == max) {
		break;
	    }
	    while (*s != '\0' && *s != ' ' && *s != '\t') {
		s++;
	    }
	    if (*s != '\0') {
		*s++ = '\0';
	    }
	}
	return nf;
    }
    for (;;) {
	/* One pass to the delimiter (or, for the last field, the end):
	 * fields are short, so a loop beats strchr and strlen calls. */
	char *next = s, *end;
	int more;

	while (*next != '\0' && (*next != delim || nf + 1 >= max)) {
	    next++;
	}
	more = *next != '\0';
	*next = '\0';
	end = next;
	while (*s == ' ' || *s == '\t') {
	    s++;
	}
	while (end > s && (end[-1] == ' ' || end[-1] == '\t')) {
	    *--end = '\0';
	}
	field[nf++] = s;
	if (!more) {
	    return nf;
	}
	s = next + 1;
    }
}

/*
 * IsBlank --
 *	Whether a line holds nothing but blanks.
 */
static int
IsBlank(const char *s)
{
    while (*s == ' ' || *s == '\t') {
	s++;
    }
    return *s == '\0';
}

/*
 * TakeLine --
 *	Makes s (read at offset) the current line, split into tx->line,
 *	unless it is blank or a comment.
 * Results: 1 the line is taken, 0 it is to be left out.
 */
static inline int
TakeLine(Rb_Reader *r, Rb_Text *tx, char *s, uint64_t offset)
{
    if (IsBlank(s) || (tx->comment && *s == tx->comment)) {
	return 0;
    }
    tx->line.lineNo = Rb_InputLineNo(r->in);
    tx->line.offset = offset;
    tx->line.nfields = RbTextSplit(s, tx->delim, tx->line.field,
	    RB_TEXT_MAX_FIELDS);
    r->recordNo = tx->line.lineNo;
    return 1;
}

/*
 * NulByteBad --
 *	A line holding a NUL byte is malformed (kind nul-byte): parsers
 *	read lines as C strings and would see only the part before it.
 * Results: 0 the line has none; 1 it is reported through RbTextBad,
 *	with tx->pending set when reading must stop.
 */
static int
NulByteBad(Rb_Reader *r, Rb_Text *tx, const char *s, size_t len,
	uint64_t offset)
{
    size_t at = strlen(s);

    if (at == len) {
	return 0;
    }
    tx->line.lineNo = Rb_InputLineNo(r->in);
    tx->line.offset = offset;
    tx->pending.code[0] = '\0';
    RbTextBad(r, tx, "nul-byte", "a NUL byte at column %llu",
	    (unsigned long long)at + 1);
    return 1;
}

/*
 * RbTextNextLine --
 *	Reads the next line that is neither blank nor a comment and splits
 *	it into tx->line.
 * Results: 1 a line, 0 at the end, -1 on an input error (tx->pending
 *	set; tx->done).
 */
int
RbTextNextLine(Rb_Reader *r, Rb_Text *tx)
{
    return RbTextNextLineOr(r, tx, NULL, NULL);
}

/*
 * RbTextNextLineOr --
 *	As RbTextNextLine, but each line is first offered whole to take
 *	(unless NULL) with arg; a line it takes is not split.
 * Results: 2 take took a line (tx->line.lineNo and offset set), 1 a
 *	split line, 0 at the end, -1 on an input error (tx->pending set;
 *	tx->done).
 */
int
RbTextNextLineOr(Rb_Reader *r, Rb_Text *tx, Rb_TextTakeProc *take,
	void *arg)
{
    for (;;) {
	uint64_t offset = Rb_InputOffset(r->in);
	size_t len;
	char *s = Rb_InputGetLine(r->in, &len, &tx->pending);

	if (s == NULL) {
	    tx->done = 1;
	    return tx->pending.code[0] ? -1 : 0;
	}
	if (take != NULL && take(r, s, len, arg)) {
	    tx->line.lineNo = r->recordNo = Rb_InputLineNo(r->in);
	    tx->line.offset = offset;
	    tx->fastLines++;
	    return 2;
	}
	if (NulByteBad(r, tx, s, len, offset)) {
	    if (tx->pending.code[0]) {
		tx->done = 1;
		return -1;
	    }
	    continue;
	}
	if (TakeLine(r, tx, s, offset)) {
	    return 1;
	}
    }
}

/*
 * RbTextBad --
 *	Reports the current line as malformed of the given kind through
 *	Rb_ReaderBad, naming its line number and byte offset.
 * Results: 1 when reading must stop (the error is in tx->pending), 0 to
 *	skip the line and go on.
 */
int
RbTextBad(Rb_Reader *r, Rb_Text *tx, const char *kind, const char *fmt, ...)
{
    char detail[512];
    uint64_t lines, bytes;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    /* In a split run's range: the file's line and offset (the lines
     * before the range are counted on the error path only). */
    RbInputBases(r->in, &lines, &bytes);
    r->recordNo = tx->line.lineNo;	/* Rb_ReaderBad adds lines */
    return Rb_ReaderBad(r, &tx->pending, kind, tx->line.offset + bytes,
	    "line %llu: %s", (unsigned long long)(tx->line.lineNo + lines),
	    detail);
}

/*
 * RbTextFinish --
 *	Ends a next call on the error in tx->pending: the records appended
 *	in this call (from index start) are returned first and the error on
 *	the next call, so results up to the error stay usable.
 * Results: what a reader's next returns.
 */
int
RbTextFinish(Rb_Text *tx, Rb_Batch *b, int start, Rb_Error *err)
{
    return RbReaderFail(&tx->done, &tx->failed, &tx->pending, b, start,
	    err);
}

/*
 * RbTextKeep --
 *	Applies the time rules to the last record of b (index i): a time
 *	earlier than the previous record's is reported ("out-of-order")
 *	and, under skip, dropped, under warn delivered as it is (never
 *	reordered); one later than it by more than -maxgap ("time-jump",
 *	RbTimeJumps) is reported and dropped unless reading stops.
 * Results: 0 go on, -1 reading must stop (tx->pending set).
 */
int
RbTextKeep(Rb_Reader *r, Rb_Text *tx, Rb_Batch *b, int i)
{
    int64_t t = b->col[RB_IO_TIME][i];

    if (t >= r->lastTime && !RbTimeJumps(r, t)) {
	r->lastTime = t;
	return 0;
    }
    if (t >= r->lastTime) {
	if (RbTextBad(r, tx, "time-jump", "time jumps %.9f s past the "
		"record before, more than -maxgap %.9g s",
		((double)t - (double)r->lastTime) / 1e9,
		(double)r->maxGap / 1e9)) {
	    b->n--;
	    return -1;
	}
	b->n--;
	return 0;
    }
    if (RbTextBad(r, tx, "out-of-order", "time goes back %.9f s",
	    ((double)r->lastTime - (double)t) / 1e9)) {
	b->n--;
	return -1;
    }
    if (r->onError != RB_ONERROR_WARN) {
	b->n--;
    }
    return 0;
}

/*
 * ClearRecords --
 *	Makes every field of records from to to-1 of b absent, a column at
 *	a time: what Rb_BatchAppend does a record at a time.  With
 *	tx->writes, only the fields the parse procs may write: the others
 *	are absent in the whole batch already (PrepareAbsent).
 */
static void
ClearRecords(const Rb_Text *tx, Rb_Batch *b, int from, int to)
{
    int f, i;

    for (f = 0; f < b->schema->nfields; f++) {
	int64_t *c = b->col[f];

	if (tx->writes != 0 && !(tx->writes & RB_FIELD_BIT(f))) {
	    continue;
	}
	/* Four at a time, which the compiler stores as vectors. */
	for (i = from; i + 4 <= to; i += 4) {
	    c[i] = c[i + 1] = c[i + 2] = c[i + 3] = RB_ABSENT;
	}
	for (; i < to; i++) {
	    c[i] = RB_ABSENT;
	}
    }
}

/*
 * PrepareAbsent --
 *	With tx->writes: the first time b comes (of the last two), sets the
 *	fields no parse proc writes absent over b's whole capacity; they
 *	stay so.
 */
static void
PrepareAbsent(Rb_Text *tx, Rb_Batch *b)
{
    if (tx->writes != 0) {
	RbSetAbsent(&tx->absent, b, ~tx->writes);
    }
}

/*
 * SlowLine --
 *	A line the fast path did not take (or every line without one):
 *	left out when it holds a NUL byte, is blank or is a comment, else
 *	split and parsed with parse into record i of b.
 * Results: 1 record i is appended (b->n is i + 1), 0 the line is left
 *	out or skipped as malformed (b->n is i), -1 reading must stop
 *	(tx->pending set).
 */
static int
SlowLine(Rb_Reader *r, Rb_Text *tx, char *s, size_t len, uint64_t offset,
	Rb_Batch *b, int i, Rb_TextParseProc *parse)
{
    char why[256];
    const char *kind;

    if (NulByteBad(r, tx, s, len, offset)) {
	return tx->pending.code[0] ? -1 : 0;
    }
    if (!TakeLine(r, tx, s, offset)) {
	return 0;
    }
    if (tx->writes != 0) {
	ClearRecords(tx, b, i, i + 1);
    }
    b->n = i + 1;
    why[0] = '\0';
    kind = parse(r, &tx->line, b, i, why, sizeof(why));
    if (kind == NULL) {
	return 1;
    }
    b->n = i;
    ClearRecords(tx, b, i, i + 1);
    return RbTextBad(r, tx, kind, "%s", why) ? -1 : 0;
}

/*
 * RbTextNext --
 *	The next of a reader with one record per line: parses lines with
 *	the fast path, else parse, until b is full or the input ends,
 *	applying the error policy to malformed lines and to times that go
 *	back.
 * Results: records appended, 0 at the end, -1 on error (err set).
 */
int
RbTextNext(Rb_Reader *r, Rb_Text *tx, Rb_Batch *b, Rb_TextParseProc *parse,
	Rb_Error *err)
{
    Rb_TextFast *fast = tx->fast;
    int start = b->n, rc = 0;

    if (tx->failed) {
	tx->failed = 0;
	*err = tx->pending;
	return -1;
    }
    if (tx->done) {
	return 0;
    }
    if (b->n == 0) {
	b->firstRecord = r->records + 1;
    }
    /* Records are appended by b->n++ onto these, and a record not kept
     * is cleared again.  With tx->writes the fast path writes each of
     * them, and SlowLine clears a record before the parse proc. */
    PrepareAbsent(tx, b);
    if (tx->writes == 0) {
	ClearRecords(tx, b, b->n, b->cap);
    }
    while (b->n < b->cap) {
	uint64_t offset = Rb_InputOffset(r->in);
	size_t len;
	char *s = Rb_InputGetLine(r->in, &len, &tx->pending);
	int i = b->n;
	int64_t t;

	if (s == NULL) {
	    tx->done = 1;
	    if (tx->pending.code[0]) {
		rc = -1;
	    }
	    break;
	}
	if (fast != NULL && fast->proc(r, fast, s, len, b, i)) {
	    b->n = i + 1;
	    tx->fastLines++;
	} else if ((rc = SlowLine(r, tx, s, len, offset, b, i, parse)) <= 0) {
	    if (rc < 0) {
		break;
	    }
	    continue;
	}
	/* The out-of-order rule (RbTextKeep), its common case inline. */
	t = b->col[RB_IO_TIME][i];
	if (t >= r->lastTime && !RbTimeJumps(r, t)) {
	    r->lastTime = t;
	    continue;
	}
	tx->line.lineNo = Rb_InputLineNo(r->in);
	tx->line.offset = offset;
	if ((rc = RbTextKeep(r, tx, b, i)) < 0) {
	    break;
	}
	if (b->n == i) {
	    ClearRecords(tx, b, i, i + 1);	/* out of order or late, dropped */
	}
    }
    r->recordNo = Rb_InputLineNo(r->in);
    if (rc < 0) {
	return RbTextFinish(tx, b, start, err);
    }
    return b->n - start;
}

/*
 * PlainInt --
 *	Whether s is an optionally signed run of 1 to 18 decimal digits
 *	and nothing else (so that its value fits in 60 bits).
 * Results: 1 with *neg and *value (the magnitude) set, else 0.
 */
static inline int
PlainInt(const char *s, int *neg, uint64_t *value)
{
    uint64_t x = 0;
    int n = 0;

    *neg = *s == '-';
    s += *s == '-' || *s == '+';
    for (; (unsigned)(*s - '0') < 10 && n < 18; s++, n++) {
	x = x * 10 + (uint64_t)(*s - '0');
    }
    *value = x;
    return n > 0 && *s == '\0';
}

/*
 * RbParseScaled --
 *	Parses a decimal number (sign, digits, fraction, exponent) and
 *	multiplies it by scale exactly, rounding the result to the nearest
 *	integer: "0.011413" seconds at scale 1e9 is 11413000 ns.
 * Results: 1 with *v set, 0 if s is not such a number or the result
 *	does not fit an int64 (RB_ABSENT excluded).
 */
int
RbParseScaled(const char *s, int64_t scale, int64_t *v)
{
    const __int128 limit = (__int128)1 << 120;
    __int128 m = 0, q = 1;
    int neg = 0, sawDigit = 0, digits = 0, exp = 0, eneg = 0, edigits = 0;
    uint64_t whole, scaled;

    /* The common case, a whole number that fits: no 128-bit work. */
    if (scale >= 1 && scale <= 1000000000000LL && PlainInt(s, &neg, &whole)
	    && !__builtin_mul_overflow(whole, (uint64_t)scale, &scaled)
	    && scaled <= (uint64_t)INT64_MAX) {
	*v = neg ? -(int64_t)scaled : (int64_t)scaled;
	return 1;
    }
    if (*s == '-' || *s == '+') {
	neg = *s++ == '-';
    }
    /* More than 24 significant digits is refused as soon as it is seen,
     * before m (< 10^25) could overflow. */
    for (; isdigit((unsigned char)*s); s++) {
	sawDigit = 1;
	if ((digits += m != 0 || *s != '0') > 24) {
	    return 0;
	}
	m = m * 10 + (*s - '0');
    }
    if (*s == '.') {
	for (s++; isdigit((unsigned char)*s); s++) {
	    sawDigit = 1;
	    if ((digits += m != 0 || *s != '0') > 24) {
		return 0;
	    }
	    m = m * 10 + (*s - '0');
	    exp--;
	}
    }
    if (!sawDigit || digits > 24 || exp < -40 || scale < 1
	    || scale > 1000000000000LL) {
	return 0;
    }
    if (*s == 'e' || *s == 'E') {
	int e = 0;

	if (*++s == '-' || *s == '+') {
	    eneg = *s++ == '-';
	}
	for (; isdigit((unsigned char)*s) && edigits < 3; s++, edigits++) {
	    e = e * 10 + (*s - '0');
	}
	if (edigits == 0) {
	    return 0;
	}
	exp += eneg ? -e : e;
    }
    if (*s != '\0') {
	return 0;
    }
    m *= scale;
    for (; exp > 0 && m != 0; exp--) {
	if (m > limit / 10) {
	    return 0;
	}
	m *= 10;
    }
    if (exp < -38) {
	*v = 0;		/* below any unit this reader scales to */
	return 1;
    }
    for (; exp < 0; exp++) {
	q *= 10;
    }
    m = (m + q / 2) / q;
    if (m > INT64_MAX) {
	return 0;
    }
    *v = neg ? -(int64_t)m : (int64_t)m;
    return 1;
}

/*
 * RbParseInt --
 *	A whole decimal number, optionally signed.
 * Results: 1 with *v set, 0 otherwise (also on overflow and for the
 *	value of RB_ABSENT).
 */
int
RbParseInt(const char *s, int64_t *v)
{
    const char *p = s + (*s == '-' || *s == '+');
    uint64_t whole;
    int neg;

    if (PlainInt(s, &neg, &whole)) {
	*v = neg ? -(int64_t)whole : (int64_t)whole;
	return 1;
    }

    if (!isdigit((unsigned char)*p)) {
	return 0;
    }
    for (; *p; p++) {
	if (!isdigit((unsigned char)*p)) {
	    return 0;
	}
    }
    return RbParseScaled(s, 1, v);
}

/*
 * RbParseHex --
 *	A hexadecimal number with or without "0x".
 * Results: 1 with *v set, 0 otherwise or above INT64_MAX.
 */
int
RbParseHex(const char *s, int64_t *v)
{
    uint64_t x = 0;
    int n = 0;

    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
	s += 2;
    }
    for (; *s; s++, n++) {
	int d = isdigit((unsigned char)*s) ? *s - '0'
		: (*s >= 'a' && *s <= 'f') ? *s - 'a' + 10
		: (*s >= 'A' && *s <= 'F') ? *s - 'A' + 10 : -1;

	if (d < 0 || x > (uint64_t)INT64_MAX >> 4) {
	    return 0;
	}
	x = x << 4 | (uint64_t)d;
    }
    if (n == 0) {
	return 0;
    }
    *v = (int64_t)x;
    return 1;
}

/*
 * RbTimeUnitScale --
 *	Nanoseconds in one unit named ns, us, ms, s, or ticks (Windows
 *	100 ns ticks).
 * Results: 1 with *scale set, 0 for an unknown name.
 */
int
RbTimeUnitScale(const char *name, int64_t *scale)
{
    static const struct { const char *name; int64_t ns; } units[] = {
	{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000},
	{"ticks", 100},
    };
    size_t i;

    for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
	if (strcmp(name, units[i].name) == 0) {
	    *scale = units[i].ns;
	    return 1;
	}
    }
    return 0;
}

/*
 * RbTextSniff --
 *	Tries lineOk on the first few complete lines of head (blank and
 *	'#' lines left out), split at delim as the reader would.
 * Results: the percentage of those lines lineOk accepts; 0 when there
 *	are none.
 */
int
RbTextSniff(const unsigned char *head, size_t n, char delim,
	int (*lineOk)(char **field, int nfields))
{
    char *copy = Rb_Alloc(n + 1), *line, *nl;
    char *field[RB_TEXT_MAX_FIELDS];
    int tried = 0, ok = 0;

    memcpy(copy, head, n);
    for (line = copy; tried < SNIFF_LINES && line < copy + n; line = nl + 1) {
	nl = memchr(line, '\n', (size_t)(copy + n - line));
	if (nl == NULL) {
	    if (n >= 4096 || tried > 0) {
		break;		/* a cut-off last line proves nothing */
	    }
	    nl = copy + n;
	}
	*nl = '\0';
	if (nl > line && nl[-1] == '\r') {
	    nl[-1] = '\0';
	}
	if (IsBlank(line) || *line == '#') {
	    continue;
	}
	tried++;
	ok += lineOk(field, RbTextSplit(line, delim, field, RB_TEXT_MAX_FIELDS));
    }
    free(copy);
    return tried ? 100 * ok / tried : 0;
}

/*
 * RbHashName --
 *	FNV-1a 32-bit hash of a name, for sources that identify a machine
 *	by name while the I/O schema holds an integer: the same name gives
 *	the same number in every file and run.
 */
uint32_t
RbHashName(const char *s)
{
    uint32_t h = 2166136261u;

    for (; *s; s++) {
	h = (h ^ (unsigned char)*s) * 16777619u;
    }
    return h;
}

/*
 * RbTextFields --
 *	Checks that line has between min and max fields.
 * Results: NULL, or the kind "short-line" or "long-line" with why set.
 */
const char *
RbTextFields(const Rb_TextLine *line, int min, int max, char *why,
	size_t whyLen)
{
    if (line->nfields >= min && line->nfields <= max) {
	return NULL;
    }
    if (min == max) {
	snprintf(why, whyLen, "%d fields, not %d", line->nfields, min);
    } else {
	snprintf(why, whyLen, "%d fields, not %d to %d", line->nfields, min,
		max);
    }
    return line->nfields < min ? "short-line" : "long-line";
}

/*
 * RbTextNumber --
 *	Field idx (0-based) of line as a decimal number times scale; with
 *	whole set, a fraction or exponent is refused.
 * Results: NULL with *v set, or the kind "bad-field" with why naming
 *	the field (1-based, as a user counts columns) and its text.
 */
const char *
RbTextNumber(const Rb_TextLine *line, int idx, const char *name,
	int64_t scale, int whole, int64_t *v, char *why, size_t whyLen)
{
    const char *s = line->field[idx];
    int64_t scaled;

    /* A whole number times scale is what RbParseScaled would give:
     * the exact product when its magnitude fits (INT64_MIN does not). */
    if (whole ? RbParseInt(s, v) && scale >= 1 && scale <= 1000000000000LL
		&& !__builtin_mul_overflow(*v, scale, &scaled)
		&& scaled != INT64_MIN && (*v = scaled, 1)
	    : RbParseScaled(s, scale, v)) {
	return NULL;
    }
    snprintf(why, whyLen, "field %d (%s) \"%.40s\" is not %s", idx + 1, name,
	    s, whole ? "a whole number in range" : "a number in range");
    return "bad-field";
}
