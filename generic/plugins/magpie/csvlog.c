/*
 * csvlog.c --
 *
 *	The "magpiecsv" trace format: the Magpie event log as CSV
 *	(RFC 4180).  The first row is a header naming the columns,
 *
 *	    time,event,Attr1,Attr2,...
 *
 *	and every other row is one event: TIME in decimal seconds of the
 *	machine's own clock, the event type Provider/EventName, and the
 *	value of each attribute the event has (an empty cell: the event
 *	lacks it).  Fields may be quoted with '"', a quote inside doubled;
 *	a quoted field may hold commas and line breaks.  Every row has as
 *	many fields as the header.  Blank lines and lines starting with '#'
 *	outside a quoted field are comments.
 *
 *	As for the text form (eventlog.c), one file is one machine and the
 *	record schema is the "schema" reader option's magpie::schema (the
 *	header then names attributes of it, in any order) or is discovered:
 *	the header's attributes, in its order, an attribute int when its
 *	every value in the first megabyte is an integer.
 */

#include <strings.h>
#include "plugins/magpie/magpie.h"

/* A record may span lines (quoted line breaks) up to this size, so a
 * stray quote cannot make the reader hold the rest of the file. */
#define MAX_RECORD	(1 << 20)
#define MAX_COLUMNS	(MG_MAX_ATTRS + 2)

typedef struct CsvState {
    MgLog lg;
    int ncols;			/* Columns of the header. */
    int colField[MAX_COLUMNS];	/* Record field of each attribute column. */
    char *rec;			/* A record assembled from several lines. */
    size_t recLen, recCap;
} CsvState;

/*
 * QuoteOpenAfter --
 *	Whether a quoted field is open at the end of line s, given whether
 *	one was open at its start.  A quote opens a field only at the
 *	field's start (a stray one elsewhere is left for SplitRecord to
 *	report); inside, a doubled quote is a quote.
 */
static int
QuoteOpenAfter(const char *s, int open)
{
    int fieldStart = !open;

    for (; *s; s++) {
	if (open) {
	    if (*s == '"') {
		if (s[1] == '"') {
		    s++;
		} else {
		    open = 0;
		}
	    }
	} else if (*s == '"' && fieldStart) {
	    open = 1;
	}
	fieldStart = !open && *s == ',';
    }
    return open;
}

/*
 * SplitRecord --
 *	Splits a complete record in place into at most max fields,
 *	removing quotes and undoubling quotes inside quoted fields.
 * Results: NULL with *nf set, or the malformed-record kind
 *	("bad-quote", "field-count") with detail in why.
 */
static const char *
SplitRecord(char *s, char **field, int max, int *nf, char *why,
	size_t whyLen)
{
    char *p = s, *w, c;

    *nf = 0;
    for (;;) {
	if (*nf == max) {
	    snprintf(why, whyLen, "more than %d fields", max);
	    return "field-count";
	}
	field[(*nf)++] = w = p;
	if (*p == '"') {
	    for (p++; ; ) {
		if (*p == '\0') {
		    snprintf(why, whyLen, "field %d: quoted field not closed",
			    *nf);
		    return "bad-quote";
		}
		if (*p == '"') {
		    if (p[1] != '"') {
			p++;
			break;
		    }
		    p++;
		}
		*w++ = *p++;
	    }
	    if (*p != ',' && *p != '\0') {
		snprintf(why, whyLen, "field %d: text after the closing "
			"quote", *nf);
		return "bad-quote";
	    }
	} else {
	    while (*p != ',' && *p != '\0') {
		if (*p == '"') {
		    snprintf(why, whyLen, "field %d: a quote inside an "
			    "unquoted field", *nf);
		    return "bad-quote";
		}
		*w++ = *p++;
	    }
	}
	/* w may have caught up with p: read the separator first. */
	c = *p;
	*w = '\0';
	if (c == '\0') {
	    return NULL;
	}
	p++;
    }
}

/*
 * Append --
 *	Appends n bytes of s to the assembled record.
 */
static void
Append(CsvState *st, const char *s, size_t n)
{
    if (st->recLen + n + 1 > st->recCap) {
	st->recCap = 2 * (st->recLen + n + 1);
	st->rec = Rb_Realloc(st->rec, st->recCap);
    }
    memcpy(st->rec + st->recLen, s, n);
    st->recLen += n;
    st->rec[st->recLen] = '\0';
}

/*
 * NextRecord --
 *	Reads the next record that is not a comment, joining lines while a
 *	quoted field is open; sets r->recordNo to the line number of its
 *	first line and *offset to where it begins.
 * Results: the record text (valid until the next call), or NULL at the
 *	end of input (err->code empty) or on a read error (err set).  A
 *	record whose quote never closes is returned with *bad set.
 */
static char *
NextRecord(Rb_Reader *r, uint64_t *offset, const char **bad, char *why,
	size_t whyLen, Rb_Error *err)
{
    CsvState *st = r->state;
    char *line;
    size_t len;

    *bad = NULL;
    do {
	*offset = Rb_InputOffset(r->in);
	line = Rb_InputGetLine(r->in, &len, err);
	if (line == NULL) {
	    return NULL;
	}
	r->recordNo = Rb_InputLineNo(r->in);
	if (strlen(line) != len) {
	    /* Parsers read C strings: a NUL byte would cut the line. */
	    snprintf(why, whyLen, "a NUL byte at column %zu",
		    strlen(line) + 1);
	    *bad = "nul-byte";
	    return line;
	}
    } while (MgIsComment(line));
    if (!QuoteOpenAfter(line, 0)) {
	return line;
    }
    st->recLen = 0;
    Append(st, line, len);
    for (;;) {
	line = Rb_InputGetLine(r->in, &len, err);
	if (line == NULL) {
	    if (err->code[0] != '\0') {
		return NULL;
	    }
	    snprintf(why, whyLen, "quoted field not closed at the end of "
		    "the file");
	    *bad = "bad-quote";
	    break;
	}
	if (st->recLen + len + 1 > MAX_RECORD) {
	    snprintf(why, whyLen, "quoted field not closed within %d bytes "
		    "(at line %llu)", MAX_RECORD,
		    (unsigned long long)Rb_InputLineNo(r->in));
	    *bad = "bad-quote";
	    break;
	}
	Append(st, "\n", 1);
	Append(st, line, len);
	if (!QuoteOpenAfter(line, 1)) {
	    break;
	}
    }
    return st->rec;
}

/*
 * CsvSniff --
 *	A first line (after comments) that is a header "time,event"...
 */
static int
CsvSniff(const unsigned char *head, size_t n)
{
    size_t i = 0;

    while (i < n) {
	size_t start = i;

	while (i < n && head[i] != '\n') {
	    i++;
	}
	while (start < i && (head[start] == ' ' || head[start] == '\t'
		|| head[start] == '\r')) {
	    start++;
	}
	if (start == i || head[start] == '#') {
	    i++;
	    continue;
	}
	if (i - start >= 10 && strncasecmp((const char *)head + start,
		"time,event", 10) == 0 && (i - start == 10
		|| head[start + 10] == ',' || head[start + 10] == '\r')) {
	    return 70;
	}
	return 0;
    }
    return 0;
}

/*
 * BufferRecord --
 *	The next record of a NUL-terminated buffer: cuts it at the line
 *	break that ends it (outside quotes), dropping a '\r' before it.
 * Results: the record, or NULL when none is left; *rest is where the
 *	next record begins.
 */
static char *
BufferRecord(char *buf, char **rest)
{
    char *line = buf, *nl;
    int open = 0;

    if (*buf == '\0') {
	return NULL;
    }
    for (;;) {
	nl = strchr(line, '\n');
	if (nl != NULL) {
	    *nl = '\0';
	}
	open = QuoteOpenAfter(line, open);
	if (nl == NULL) {
	    *rest = line + strlen(line);
	    break;
	}
	if (!open) {
	    *rest = nl + 1;
	    if (nl > buf && nl[-1] == '\r') {
		nl[-1] = '\0';
	    }
	    break;
	}
	*nl = '\n';
	line = nl + 1;
    }
    return buf;
}

/*
 * DiscoverSchema --
 *	The attributes of the header, typed by the rows of the first
 *	megabyte (peeked, not consumed): int when every non-empty value is
 *	an integer, else (or when none is seen) string.
 * Results: the shared record schema (retained), or NULL with err set.
 */
static Rb_Schema *
DiscoverSchema(Rb_Reader *r, Rb_Error *err)
{
    char *buf = (char *)Rb_Alloc(MG_DISCOVER_BYTES + 1), *rec, *rest, *nl;
    char *field[MAX_COLUMNS], *names[MAX_COLUMNS], why[128];
    int isInt[MAX_COLUMNS], seen[MAX_COLUMNS], nnames = -1, nf, k;
    long n = Rb_InputPeek(r->in, buf, MG_DISCOVER_BYTES, err);
    Rb_Schema *s;

    if (n < 0) {
	free(buf);
	return NULL;
    }
    buf[n] = '\0';
    /* A last line cut by the peek limit is not looked at. */
    if (n == MG_DISCOVER_BYTES && (nl = strrchr(buf, '\n')) != NULL) {
	nl[1] = '\0';
    }
    for (rec = BufferRecord(buf, &rest); rec != NULL;
	    rec = BufferRecord(rest, &rest)) {
	if (MgIsComment(rec) || SplitRecord(rec, field, MAX_COLUMNS, &nf,
		why, sizeof(why)) != NULL) {
	    continue;
	}
	if (nnames < 0) {
	    /* The header: its checks are made when it is read. */
	    nnames = 0;
	    for (k = 2; k < nf; k++) {
		names[nnames] = field[k];
		isInt[nnames] = 1;
		seen[nnames++] = 0;
	    }
	    continue;
	}
	for (k = 2; k < nf && k - 2 < nnames; k++) {
	    int64_t v;

	    if (field[k][0] != '\0') {
		seen[k - 2] = 1;
		isInt[k - 2] &= MgParseInt(field[k], &v);
	    }
	}
    }
    for (k = 0; k < nnames; k++) {
	isInt[k] &= seen[k];
    }
    s = MgLogSharedSchema(names, isInt, nnames < 0 ? 0 : nnames);
    free(buf);
    return s;
}

/*
 * HeaderError --
 *	Sets err for a bad header line.
 * Results: TCL_ERROR.
 */
static int
HeaderError(Rb_Reader *r, uint64_t offset, const char *what,
	const char *name, Rb_Error *err)
{
    Rb_SetError(err, "RUBICON READER FORMAT", "%s: line %llu at byte offset "
	    "%llu: the CSV header %s \"%.60s\" (it is time,event,Attr,...)",
	    Rb_InputPath(r->in), (unsigned long long)r->recordNo,
	    (unsigned long long)offset, what, name);
    return TCL_ERROR;
}

/*
 * CsvOpen --
 *	Fixes the record schema and the machine, then reads the header and
 *	maps its attribute columns to record fields.
 * Results: TCL_OK, or TCL_ERROR with err set (no header, a header not
 *	"time,event,...", a repeated column, an attribute the declared
 *	schema lacks).
 */
static int
CsvOpen(Rb_Reader *r, Rb_Error *err)
{
    CsvState *st = r->state;
    char *rec, *field[MAX_COLUMNS], why[160];
    const char *bad;
    uint64_t offset;
    int nf, k, j;

    if (MgLogOpen(r, &st->lg, DiscoverSchema, err) != TCL_OK) {
	return TCL_ERROR;
    }
    rec = NextRecord(r, &offset, &bad, why, sizeof(why), err);
    if (rec == NULL) {
	if (err->code[0] == '\0') {
	    Rb_SetError(err, "RUBICON READER FORMAT", "%s: no CSV header "
		    "(time,event,Attr,...)", Rb_InputPath(r->in));
	}
	return TCL_ERROR;
    }
    if (bad == NULL) {
	bad = SplitRecord(rec, field, MAX_COLUMNS, &nf, why, sizeof(why));
    }
    if (bad != NULL) {
	return HeaderError(r, offset, "is malformed:", why, err);
    }
    if (nf < 2 || strcasecmp(field[0], "time") != 0
	    || strcasecmp(field[1], "event") != 0) {
	return HeaderError(r, offset, "does not begin time,event:", field[0],
		err);
    }
    st->ncols = nf;
    for (k = 2; k < nf; k++) {
	for (j = 2; j < k; j++) {
	    if (strcmp(field[j], field[k]) == 0) {
		return HeaderError(r, offset, "repeats column", field[k],
			err);
	    }
	}
	st->colField[k] = Rb_SchemaFieldIndex(r->schema, field[k]);
	if (st->colField[k] <= st->lg.fEvent) {
	    return HeaderError(r, offset, "names an attribute the schema "
		    "lacks:", field[k], err);
	}
    }
    return TCL_OK;
}

/*
 * ParseRecord --
 *	Fills record i of b from one CSV record (modified in place).
 * Results: NULL, or the malformed-record kind with detail in why.
 */
static const char *
ParseRecord(Rb_Reader *r, char *rec, Rb_Batch *b, int i, char *why,
	size_t whyLen)
{
    CsvState *st = r->state;
    char *field[MAX_COLUMNS];
    int nf, k;
    const char *bad = SplitRecord(rec, field, st->ncols, &nf, why, whyLen);

    if (bad != NULL) {
	return bad;
    }
    if (nf != st->ncols) {
	snprintf(why, whyLen, "%d fields where the header has %d", nf,
		st->ncols);
	return "field-count";
    }
    bad = MgLogTimeEvent(r, &st->lg, b, i, field[0], field[1], why, whyLen);
    for (k = 2; bad == NULL && k < nf; k++) {
	if (field[k][0] != '\0') {
	    bad = MgLogValue(r, &st->lg, b, i, st->colField[k], field[k], why,
		    whyLen);
	}
    }
    return bad;
}

/*
 * CsvNext --
 *	Appends events until the batch is full or the file ends.
 */
static int
CsvNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    CsvState *st = r->state;

    return MgLogNext(r, &st->lg, b, err, NextRecord, ParseRecord);
}

/*
 * CsvClose --
 *	Frees the record buffer and drops the declared schema.
 */
static void
CsvClose(Rb_Reader *r)
{
    CsvState *st = r->state;

    if (st->rec != NULL) {
	free(st->rec);
    }
    MgSchemaRelease(st->lg.mg);
    MgLogFree(&st->lg);
}

const Rb_ReaderClass MgCsvLogReaderClass = {
    .name = "magpiecsv",
    .help = "Magpie event log as CSV: header time,event,Attr,...; one "
	    "file per machine",
    .stateSize = sizeof(CsvState),
    .sniff = CsvSniff,
    .open = CsvOpen,
    .next = CsvNext,
    .close = CsvClose,
};
