/*
 * reader.c --
 *
 *	The registry of trace formats, format sniffing, and the malformed-
 *	record policy shared by every reader.
 */

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "io/ioInt.h"

#define MAX_READERS 32

static const Rb_ReaderClass *readers[MAX_READERS];
static int nreaders;

/*
 * Rb_RegisterReader --
 *	Adds a trace format; a later class of the same name replaces the
 *	earlier.  The registry is process-wide (every interpreter sees it).
 * Results: TCL_OK, or TCL_ERROR (no message) when 32 formats are
 *	registered already.
 * Side effects: stores cls by reference (it must live as long as the
 *	process may read traces).
 */
int
Rb_RegisterReader(const Rb_ReaderClass *cls)
{
    int i;

    for (i = 0; i < nreaders; i++) {
	if (strcmp(readers[i]->name, cls->name) == 0) {
	    readers[i] = cls;
	    return TCL_OK;
	}
    }
    if (nreaders == MAX_READERS) {
	return TCL_ERROR;
    }
    readers[nreaders++] = cls;
    return TCL_OK;
}

/*
 * Rb_FindReader --
 *	Looks a registered format up by name, without regard to case.
 * Results: its class, or NULL.
 * Side effects: none.
 */
const Rb_ReaderClass *
Rb_FindReader(const char *name)
{
    int i;

    for (i = 0; i < nreaders; i++) {
	if (strcasecmp(readers[i]->name, name) == 0) {
	    return readers[i];
	}
    }
    return NULL;
}

/*
 * Rb_Readers --
 *	Lists the registered formats, in the order first registered.
 * Results: the registry's own array of classes (not to be freed; a
 *	later registration may change it); *count gets their number.
 * Side effects: none.
 */
const Rb_ReaderClass *const *
Rb_Readers(int *count)
{
    *count = nreaders;
    return readers;
}

/*
 * Rb_ReaderOpen --
 *	Opens path (plain, gzip or bzip2; "-" standard input) with the named
 *	format, or when format is NULL or "" the format whose sniffer gives
 *	the highest score over the first 4096 decompressed bytes; then calls
 *	the class's open hook.  A reader that sets no schema gets the I/O one.
 * Results: the reader, or NULL with err set: as Rb_InputOpen, RUBICON
 *	READER FORMAT for an unknown format (listing the known ones) or one
 *	no sniffer claims (naming the file), or the open hook's error.
 * Side effects: opens the input (see Rb_InputOpen); allocates the reader
 *	and its state; takes a reference to options.  Rb_ReaderClose frees it.
 */
Rb_Reader *
Rb_ReaderOpen(const char *path, const char *format, Rb_OnError onError,
	Tcl_Obj *options, Rb_Error *err)
{
    const Rb_ReaderClass *cls = NULL;
    unsigned char head[4096];
    Rb_Reader *r;
    Rb_Input *in;
    long n;
    int i, best = 0;

    in = Rb_InputOpen(path, err);
    if (in == NULL) {
	return NULL;
    }
    if (format != NULL && *format != '\0') {
	cls = Rb_FindReader(format);
	if (cls == NULL) {
	    Tcl_DString known;

	    Tcl_DStringInit(&known);
	    for (i = 0; i < nreaders; i++) {
		Tcl_DStringAppend(&known, i ? ", " : "", -1);
		Tcl_DStringAppend(&known, readers[i]->name, -1);
	    }
	    Rb_SetError(err, "RUBICON READER FORMAT",
		    "unknown trace format \"%s\"; known formats: %s", format,
		    Tcl_DStringValue(&known));
	    Tcl_DStringFree(&known);
	    Rb_InputClose(in);
	    return NULL;
	}
    } else {
	n = Rb_InputPeek(in, head, sizeof(head), err);
	if (n < 0) {
	    Rb_InputClose(in);
	    return NULL;
	}
	for (i = 0; i < nreaders; i++) {
	    int score = readers[i]->sniff ? readers[i]->sniff(head, n) : 0;

	    if (score > best) {
		best = score;
		cls = readers[i];
	    }
	}
	if (cls == NULL) {
	    Rb_SetError(err, "RUBICON READER FORMAT",
		    "%s: cannot tell the trace format from its content; "
		    "give it with -format", Rb_InputPath(in));
	    Rb_InputClose(in);
	    return NULL;
	}
    }
    r = Rb_Alloc(sizeof(*r));
    r->cls = cls;
    r->in = in;
    r->onError = onError;
    r->state = Rb_Alloc(cls->stateSize);
    r->skipCounts = Tcl_NewDictObj();
    Tcl_IncrRefCount(r->skipCounts);
    r->lastTime = INT64_MIN;
    r->maxGap = RB_DEFAULT_MAX_GAP;
    r->fields = RB_ALL_FIELDS;
    if (options != NULL) {
	r->options = options;
	Tcl_IncrRefCount(options);
    }
    if (cls->open(r, err) != TCL_OK) {
	Rb_ReaderClose(r);
	return NULL;
    }
    if (r->schema == NULL) {
	r->schema = Rb_IoSchema();
    }
    return r;
}

/*
 * Rb_ReaderNext --
 *	Appends the next records to b (up to b->cap - b->n) through the
 *	class's next hook.
 * Results: count appended, 0 at end, -1 on error (err set by the hook,
 *	e.g. RUBICON READER CORRUPT from Rb_ReaderBad).
 * Side effects: consumes input; adds the count to r->records; malformed
 *	records are counted (and under "warn" reported) by Rb_ReaderBad.
 */
int
Rb_ReaderNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    int n = r->cls->next(r, b, err);

    if (n > 0) {
	r->records += n;
    }
    return n;
}

/*
 * Rb_ReaderClose --
 *	Ends a reader from Rb_ReaderOpen (NULL: nothing).
 * Results: none.
 * Side effects: calls the class's close hook, closes the input, releases
 *	the reader's schema (unless it is the I/O one), its options and skip
 *	counts, and frees the reader.
 */
void
Rb_ReaderClose(Rb_Reader *r)
{
    if (r == NULL) {
	return;
    }
    if (r->cls->close) {
	r->cls->close(r);
    }
    Rb_InputClose(r->in);
    if (r->schema != NULL && r->schema != Rb_IoSchema()) {
	Rb_SchemaRelease(r->schema);
    }
    Tcl_DecrRefCount(r->skipCounts);
    if (r->options) {
	Tcl_DecrRefCount(r->options);
    }
    free(r->state);
    free(r);
}

/*
 * Rb_ReaderBad --
 *	Handles a malformed record of the given kind: counts it, and under
 *	"stop" sets err naming the file, record and byte offset.  Under
 *	"warn" the message also goes to stderr.  An "out-of-order" record
 *	under "warn" is delivered by the reader, so it is not counted in
 *	r->skipped.
 * Results: 1 to stop reading (err set: RUBICON READER CORRUPT, naming
 *	the file, record number, byte offset, detail and kind), 0 to skip
 *	the record and go on.
 * Side effects: counts kind in r->skipCounts; unless stopping,
 *	increments r->skipped (but for a delivered record); under "warn"
 *	writes the message to stderr.
 */
int
Rb_ReaderBad(Rb_Reader *r, Rb_Error *err, const char *kind, uint64_t offset,
	const char *fmt, ...)
{
    char detail[512];
    uint64_t before, bytes;
    int delivered;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    RbReaderCount(r, kind);
    /* In a split run's range: the file's record number, the records
     * before the range counted here, on the error path only. */
    RbInputBases(r->in, &before, &bytes);
    r->recordNo += before;
    if (r->onError == RB_ONERROR_STOP) {
	Rb_SetError(err, "RUBICON READER CORRUPT",
		"%s: record %llu at byte offset %llu: %s (%s)",
		Rb_InputPath(r->in), (unsigned long long)r->recordNo,
		(unsigned long long)offset, detail, kind);
	return 1;
    }
    /* Under "warn" an out-of-order record is still delivered (readers
     * do not reorder), so it is counted by kind but not as skipped. */
    delivered = r->onError == RB_ONERROR_WARN
	    && strcmp(kind, "out-of-order") == 0;
    if (!delivered) {
	r->skipped++;
    }
    if (r->onError == RB_ONERROR_WARN) {
	fprintf(stderr, "rubicon: warning: %s: record %llu at byte offset "
		"%llu: %s (%s), %s\n", Rb_InputPath(r->in),
		(unsigned long long)r->recordNo, (unsigned long long)offset,
		detail, kind, delivered ? "delivered as is" : "skipped");
    }
    return 0;
}

/*
 * Rb_ReaderTimeJump --
 *	The -maxgap guard, shared by every reader: a record of time t
 *	later than last (the time of the record before) by more than
 *	r->maxGap is malformed, of kind "time-jump" (RbTimeJumps), and goes
 *	through Rb_ReaderBad like any other.
 * Results: 0 keep the record, 1 skip it, -1 stop reading (err set,
 *	naming the file, record and byte offset).
 * Side effects: on a jump, what Rb_ReaderBad does (counts the kind,
 *	r->skipped, a warning under "warn").
 */
int
Rb_ReaderTimeJump(Rb_Reader *r, Rb_Error *err, int64_t t, int64_t last,
	uint64_t offset)
{
    if (r->maxGap <= 0 || last == INT64_MIN || t < last
	    || (uint64_t)t - (uint64_t)last <= (uint64_t)r->maxGap) {
	return 0;
    }
    return Rb_ReaderBad(r, err, "time-jump", offset, "time jumps %.9f s "
	    "past the record before, more than -maxgap %.9g s",
	    ((double)t - (double)last) / 1e9, (double)r->maxGap / 1e9)
	    ? -1 : 1;
}
