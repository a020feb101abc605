/*
 * eventlog.c --
 *
 *	The "magpie" trace format: a text event log, one event per line,
 *
 *	    TIME, Provider/EventName, Attr1=Value1, Attr2=Value2, ...
 *
 *	with TIME in decimal seconds of the machine's own clock.  One file
 *	is one machine (named by the "machine" reader option, else by the
 *	file name up to its first dot).  Blank lines and lines starting
 *	with '#' are comments.
 *
 *	The record schema is fixed when the file is opened: with the reader
 *	option "schema NAME" it is that magpie::schema's, otherwise the
 *	attributes are discovered from the first megabyte of the file (an
 *	attribute whose every value there is an integer is an int field).
 *	An attribute the schema lacks is a malformed line
 *	("unknown-attribute"), as is a non-integer value of an int
 *	attribute ("bad-value").
 */

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include "plugins/magpie/magpie.h"

#define MAX_DISCOVERED	64

typedef struct LogState {
    MgLog lg;
} LogState;

/* Discovered record schemas, shared by every file with the same fields
 * so that the files of one run have one schema (the engine requires
 * it).  Held for the life of the process; there are few. */
static pthread_mutex_t discoveredLock = PTHREAD_MUTEX_INITIALIZER;
static Rb_Schema *discovered[MAX_DISCOVERED];
static int ndiscovered;

/*
 * MgEventLogSchemasFree --
 *	At exit: releases the discovered schemas.
 */
void
MgEventLogSchemasFree(void)
{
    pthread_mutex_lock(&discoveredLock);
    while (ndiscovered > 0) {
	Rb_SchemaRelease(discovered[--ndiscovered]);
    }
    pthread_mutex_unlock(&discoveredLock);
}

/*
 * SplitLine --
 *	Splits s in place at commas into at most max trimmed fields.
 * Results: the number of fields, or max + 1 when text is left after
 *	max fields (field[] holds the first max).
 */
static int
SplitLine(char *s, char **field, int max)
{
    int nf = 0;

    while (nf < max) {
	char *next, *end;

	while (*s == ' ' || *s == '\t') {
	    s++;
	}
	next = strchrnul(s, ',');
	end = next;
	while (end > s && isspace((unsigned char)end[-1])) {
	    end--;
	}
	field[nf++] = s;
	if (*next == '\0') {
	    *end = '\0';
	    return nf;
	}
	*end = '\0';
	s = next + 1;
    }
    return max + 1;
}

/*
 * MgIsComment --
 *	Blank lines and '#' lines carry no event.
 */
int
MgIsComment(const char *s)
{
    while (isspace((unsigned char)*s)) {
	s++;
    }
    return *s == '\0' || *s == '#';
}

/*
 * MgParseInt --
 *	A whole decimal integer (optionally signed) in s.
 * Results: 1 with *v set, or 0.
 */
int
MgParseInt(const char *s, int64_t *v)
{
    const char *p = s + (*s == '-');
    uint64_t u = 0;
    char *end;
    long long x;
    int n;

    /* Up to 18 digits cannot overflow: the common case, without strtoll;
     * anything else (spaces, '+', longer numbers) is strtoll's. */
    for (n = 0; n < 18 && *p >= '0' && *p <= '9'; n++) {
	u = u * 10 + (uint64_t)(*p++ - '0');
    }
    if (n > 0 && *p == '\0') {
	*v = *s == '-' ? -(int64_t)u : (int64_t)u;
	return 1;
    }
    if (*s == '\0') {
	return 0;
    }
    x = strtoll(s, &end, 10);
    if (*end != '\0' || x == (long long)RB_ABSENT) {
	return 0;
    }
    *v = x;
    return 1;
}

/*
 * CacheLookup --
 *	Finds key in a reader's name cache (magpie.h).
 * Results: 1 with *slot the slot holding key, or 0 with *slot the slot
 *	it would go in; *len is the key's length.
 */
static int
CacheLookup(MgCacheSlot *cache, const char *key, MgCacheSlot **slot,
	size_t *len)
{
    uint64_t head = 0, tail = 0, h;

    /* The hash mixes the length and the first and last 8 bytes: enough
     * to tell names and values apart, without a step per byte. */
    *len = strlen(key);
    memcpy(&head, key, *len < 8 ? *len : 8);
    if (*len > 8) {
	memcpy(&tail, key + *len - 8, 8);
    }
    h = (head * 0x9E3779B97F4A7C15ull) ^ (tail * 0xC2B2AE3D27D4EB4Full)
	    ^ *len;
    h ^= h >> 29;
    *slot = &cache[(h * 0x9E3779B97F4A7C15ull) >> (64 - MG_CACHE_BITS)];
    return (*slot)->len == *len && memcmp((*slot)->key, key, *len) == 0;
}

/*
 * CacheFill --
 *	Remembers key (of length len, NUL-terminated) as id in slot, unless
 *	it is empty or too long to keep.
 */
static void
CacheFill(MgCacheSlot *slot, const char *key, size_t len, int64_t id)
{
    if (len > 0 && len <= MG_CACHE_KEY) {
	slot->id = id;
	slot->len = (unsigned char)len;
	memcpy(slot->key, key, len);
    }
}

/*
 * MgLogField --
 *	The field of an attribute name, as Rb_SchemaFieldIndex finds it,
 *	remembered in the reader's cache: the schema lookup compares the
 *	name with every field's without regard to case, and doing that on
 *	every attribute of every line was a quarter of the parser's time.
 * Results: the field index, or -1.
 */
int
MgLogField(Rb_Reader *r, MgLog *lg, const char *name)
{
    MgCacheSlot *slot;
    size_t len;
    int f;

    if (CacheLookup(lg->fieldCache, name, &slot, &len)) {
	return (int)slot->id;
    }
    f = Rb_SchemaFieldIndex(r->schema, name);
    if (f >= 0) {
	CacheFill(slot, name, len, f);
    }
    return f;
}

/*
 * MgLogIntern --
 *	The interned id of text (an event name or a string value), as
 *	Rb_SchemaIntern gives it, remembered in the reader's cache.
 * Results: the id.  Side effects: text may be added to the schema's
 *	string table.
 */
int64_t
MgLogIntern(Rb_Reader *r, MgLog *lg, const char *text)
{
    MgCacheSlot *slot;
    size_t len;
    int64_t id;

    if (CacheLookup(lg->stringCache, text, &slot, &len)) {
	return slot->id;
    }
    id = Rb_SchemaIntern(r->schema, text, len);
    CacheFill(slot, text, len, id);
    return id;
}

/*
 * LogSniff --
 *	A first event line "number, Word/Word" (after comments).
 */
static int
LogSniff(const unsigned char *head, size_t n)
{
    size_t i = 0;
    int64_t t;
    char line[512];

    while (i < n) {
	size_t k = 0;

	while (i < n && head[i] != '\n' && k < sizeof(line) - 1) {
	    line[k++] = (char)head[i++];
	}
	line[k] = '\0';
	i++;
	if (MgIsComment(line)) {
	    continue;
	}
	{
	    int used = MgParseSeconds(line, &t);
	    const char *p = line + used, *slash;

	    if (used == 0 || *p != ',') {
		return 0;
	    }
	    p++;
	    while (*p == ' ') {
		p++;
	    }
	    slash = strchr(p, '/');
	    return slash != NULL && slash > p && strchr(p, ',') != NULL
		    && slash < strchr(p, ',') && strchr(p, '=') != NULL
		    ? 60 : 0;
	}
    }
    return 0;
}

/*
 * MgLogSharedSchema --
 *	The record schema with fields time, machine, event and the named
 *	attributes (int where isInt), shared by every file that has the
 *	same attributes; made on first use.
 * Results: the schema, retained for the caller.
 */
Rb_Schema *
MgLogSharedSchema(char **names, const int *isInt, int n)
{
    Rb_Schema *s = NULL;
    int i, j;

    pthread_mutex_lock(&discoveredLock);
    for (j = 0; j < ndiscovered && s == NULL; j++) {
	Rb_Schema *c = discovered[j];

	if (c->nfields != n + 3) {
	    continue;
	}
	for (i = 0; i < n; i++) {
	    if (strcmp(c->fields[i + 3].name, names[i]) != 0
		    || (c->fields[i + 3].type == RB_FT_INT) != isInt[i]) {
		break;
	    }
	}
	if (i == n) {
	    s = c;
	}
    }
    if (s == NULL) {
	s = Rb_SchemaCreate("magpie");
	Rb_SchemaAddField(s, "machine", RB_FT_STRING, RB_UNIT_NONE,
		"machine (log file) the event came from");
	Rb_SchemaAddField(s, "event", RB_FT_STRING, RB_UNIT_NONE,
		"event type, Provider/EventName");
	for (i = 0; i < n; i++) {
	    if (Rb_SchemaAddField(s, names[i], isInt[i] ? RB_FT_INT
		    : RB_FT_STRING, RB_UNIT_NONE, "event attribute") < 0) {
		/* Names differing only in case share the first's field. */
		continue;
	    }
	}
	if (ndiscovered < MAX_DISCOVERED) {
	    discovered[ndiscovered++] = s;
	    Rb_SchemaRetain(s);
	}
    } else {
	Rb_SchemaRetain(s);
    }
    pthread_mutex_unlock(&discoveredLock);
    return s;
}

/*
 * DiscoverSchema --
 *	Reads the attribute names and types of the first lines of the input
 *	without consuming them.
 * Results: the shared record schema with those fields (retained), or
 *	NULL with err set.
 */
static Rb_Schema *
DiscoverSchema(Rb_Reader *r, Rb_Error *err)
{
    char *buf = (char *)Rb_Alloc(MG_DISCOVER_BYTES + 1), *line, *nl;
    char *names[MG_MAX_ATTRS];
    int isInt[MG_MAX_ATTRS], nnames = 0, i, k;
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
    for (line = buf; line != NULL && *line; line = nl) {
	char *field[MG_MAX_ATTRS + 2];
	int nf;

	nl = strchr(line, '\n');
	if (nl != NULL) {
	    *nl++ = '\0';
	}
	if (MgIsComment(line)) {
	    continue;
	}
	nf = SplitLine(line, field, MG_MAX_ATTRS + 2);
	if (nf > MG_MAX_ATTRS + 2) {
	    nf = MG_MAX_ATTRS + 2;	/* a sample: the rest is read later */
	}
	for (k = 2; k < nf; k++) {
	    char *eq = strchr(field[k], '=');
	    int64_t v;

	    if (eq == NULL || eq == field[k]) {
		continue;
	    }
	    *eq = '\0';
	    for (i = 0; i < nnames && strcmp(names[i], field[k]) != 0; i++) {
	    }
	    if (i == nnames) {
		if (nnames == MG_MAX_ATTRS) {
		    continue;
		}
		names[nnames] = field[k];
		isInt[nnames++] = 1;
	    }
	    if (!MgParseInt(eq + 1, &v)) {
		isInt[i] = 0;
	    }
	}
    }
    s = MgLogSharedSchema(names, isInt, nnames);
    free(buf);
    return s;
}

/*
 * OptionString --
 *	The value of key in the reader options, or NULL.
 */
static const char *
OptionString(Rb_Reader *r, const char *key)
{
    Tcl_Obj *v = NULL, *k;

    if (r->options == NULL) {
	return NULL;
    }
    k = Tcl_NewStringObj(key, -1);
    Tcl_IncrRefCount(k);
    if (Tcl_DictObjGet(NULL, r->options, k, &v) != TCL_OK) {
	v = NULL;
    }
    Tcl_DecrRefCount(k);
    return v ? Tcl_GetString(v) : NULL;
}

/*
 * MgLogOpen --
 *	Fixes the record schema (the "schema" reader option's, else the one
 *	discover finds), the machine (the "machine" option, else the file
 *	name up to its first dot) and the reorder window (the "reorder"
 *	option, seconds, default 1).
 * Results: TCL_OK, or TCL_ERROR for an unknown schema name, a bad
 *	reorder window or a failed discovery (err set).
 */
int
MgLogOpen(Rb_Reader *r, MgLog *lg, MgDiscoverProc *discover, Rb_Error *err)
{
    const char *schemaName = OptionString(r, "schema");
    const char *machine = OptionString(r, "machine");
    const char *reorder = OptionString(r, "reorder");
    const char *path = Rb_InputPath(r->in), *base, *dot;

    lg->reorderNs = 1000000000;
    lg->maxSeen = RB_ABSENT;
    if (reorder != NULL && (MgParseSeconds(reorder, &lg->reorderNs)
	    != (int)strlen(reorder) || lg->reorderNs < 0)) {
	Rb_SetError(err, "RUBICON READER OPTION", "%s: reorder must be "
		"non-negative decimal seconds, not \"%s\"", path, reorder);
	return TCL_ERROR;
    }
    if (schemaName != NULL) {
	lg->mg = MgSchemaFind(schemaName);
	if (lg->mg == NULL) {
	    Rb_SetError(err, "RUBICON MAGPIE SCHEMA", "%s: no Magpie schema "
		    "\"%s\" (define it with magpie::schema)", path,
		    schemaName);
	    return TCL_ERROR;
	}
	r->schema = lg->mg->rec;
	Rb_SchemaRetain(r->schema);
    } else {
	r->schema = discover(r, err);
	if (r->schema == NULL) {
	    return TCL_ERROR;
	}
    }
    lg->nstarts = 0;
    if (lg->mg != NULL) {
	int k;

	for (k = 0; k < lg->mg->nevents; k++) {
	    const MgEventType *ev = &lg->mg->events[k];
	    const char *to;

	    if (ev->startType < 0) {
		continue;
	    }
	    to = lg->mg->events[ev->startType].name;
	    lg->startFrom[lg->nstarts] = Rb_SchemaIntern(r->schema,
		    ev->name, strlen(ev->name));
	    lg->startTo[lg->nstarts] = Rb_SchemaIntern(r->schema, to,
		    strlen(to));
	    lg->startField[lg->nstarts++] = ev->startField;
	}
    }
    lg->fMachine = Rb_SchemaFieldIndex(r->schema, "machine");
    lg->fEvent = Rb_SchemaFieldIndex(r->schema, "event");
    if (machine == NULL) {
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dot = strchr(base, '.');
	lg->machine = Rb_SchemaIntern(r->schema, base,
		dot ? (size_t)(dot - base) : strlen(base));
    } else {
	lg->machine = Rb_SchemaIntern(r->schema, machine, strlen(machine));
    }
    r->epochNs = 0;
    return TCL_OK;
}

/*
 * MgLogTimeEvent --
 *	Sets the time, machine and event of record i of b.
 * Results: NULL, or the malformed-record kind with detail in why.
 */
const char *
MgLogTimeEvent(Rb_Reader *r, MgLog *lg, Rb_Batch *b, int i,
	const char *time, const char *event, char *why, size_t whyLen)
{
    int64_t t;
    int used = MgParseSeconds(time, &t);

    if (used == 0 || time[used] != '\0') {
	snprintf(why, whyLen, "time \"%.40s\" is not decimal seconds", time);
	return "bad-time";
    }
    if (event == NULL || event[0] == '\0') {
	snprintf(why, whyLen, "no event name");
	return "short-record";
    }
    b->col[0][i] = t;
    b->col[lg->fMachine][i] = lg->machine;
    b->col[lg->fEvent][i] = MgLogIntern(r, lg, event);
    return NULL;
}

/*
 * MgLogValue --
 *	Sets attribute field f of record i of b from its text.
 * Results: NULL, or "bad-value" (an int field's value is not an
 *	integer) with detail in why.
 */
const char *
MgLogValue(Rb_Reader *r, MgLog *lg, Rb_Batch *b, int i, int f,
	const char *value, char *why, size_t whyLen)
{
    int64_t v;

    if (r->schema->fields[f].type == RB_FT_INT) {
	if (!MgParseInt(value, &v)) {
	    snprintf(why, whyLen, "%.40s=\"%.40s\" is not an integer",
		    r->schema->fields[f].name, value);
	    return "bad-value";
	}
	b->col[f][i] = v;
    } else {
	b->col[f][i] = MgLogIntern(r, lg, value);
    }
    return NULL;
}

/*
 * ParseEvent --
 *	Fills record i of b from one line (modified in place).
 * Results: NULL, or the malformed-line kind with detail in why.
 */
static const char *
ParseEvent(Rb_Reader *r, char *line, Rb_Batch *b, int i, char *why,
	size_t whyLen)
{
    LogState *st = r->state;
    char *field[RB_MAX_FIELDS + 2];
    int nf = SplitLine(line, field, RB_MAX_FIELDS + 2), k, f;
    const char *bad = MgLogTimeEvent(r, &st->lg, b, i, field[0],
	    nf < 2 ? NULL : field[1], why, whyLen);

    if (bad == NULL && nf > RB_MAX_FIELDS + 2) {
	snprintf(why, whyLen, "more than %d attributes", RB_MAX_FIELDS);
	return "bad-attribute";
    }
    for (k = 2; bad == NULL && k < nf; k++) {
	char *eq = strchr(field[k], '=');

	if (eq == NULL) {
	    snprintf(why, whyLen, "\"%.40s\" is not Attribute=Value",
		    field[k]);
	    return "bad-attribute";
	}
	*eq = '\0';
	f = MgLogField(r, &st->lg, field[k]);
	if (f <= st->lg.fEvent) {
	    snprintf(why, whyLen, "attribute \"%.40s\" is not in the schema",
		    field[k]);
	    return "unknown-attribute";
	}
	bad = MgLogValue(r, &st->lg, b, i, f, eq + 1, why, whyLen);
    }
    return bad;
}

/*
 * LogFail --
 *	Ends a next call on the error in err: records appended in this call
 *	are returned first and the error on the next call, so results up to
 *	the error stay usable.
 * Results: what next returns.
 */
static int
LogFail(MgLog *lg, Rb_Batch *b, int start, Rb_Error *err)
{
    if (b->n > start) {
	lg->pending = *err;
	lg->failed = 1;
	return b->n - start;
    }
    return -1;
}

/*
 * Hold --
 *	Moves record i of b (the last) into the reorder buffer, after the
 *	held records of no later time, so that ties keep their file order.
 */
static void
Hold(MgLog *lg, Rb_Batch *b, int i)
{
    int64_t t = b->col[0][i];
    int k, f;

    lg->ncols = b->schema->nfields;
    if (lg->nheld == lg->capHeld) {
	lg->capHeld = lg->capHeld ? 2 * lg->capHeld : 64;
	lg->held = Rb_ReallocArray(lg->held, (size_t)lg->capHeld
		* (size_t)lg->ncols, sizeof(int64_t));
    }
    for (k = lg->nheld; k > 0 && lg->held[(size_t)(k - 1) * lg->ncols] > t;
	    k--) {
    }
    memmove(lg->held + (size_t)(k + 1) * lg->ncols,
	    lg->held + (size_t)k * lg->ncols,
	    sizeof(int64_t) * (size_t)(lg->nheld - k) * lg->ncols);
    for (f = 0; f < lg->ncols; f++) {
	lg->held[(size_t)k * lg->ncols + f] = b->col[f][i];
    }
    lg->nheld++;
    b->n--;
}

/*
 * Release --
 *	Appends to b, while it has room, the held records that no record
 *	within the window can precede any more: those at or before the
 *	latest time read less the window, or all of them at the end.
 */
static void
Release(Rb_Reader *r, MgLog *lg, Rb_Batch *b)
{
    int k = 0, f;

    while (k < lg->nheld && b->n < b->cap) {
	const int64_t *rec = lg->held + (size_t)k * lg->ncols;
	int i;

	if (!lg->eof && rec[0] > lg->maxSeen - lg->reorderNs) {
	    break;
	}
	i = Rb_BatchAppend(b);
	for (f = 0; f < lg->ncols; f++) {
	    b->col[f][i] = rec[f];
	}
	r->lastTime = rec[0];
	k++;
    }
    if (k > 0) {
	memmove(lg->held, lg->held + (size_t)k * lg->ncols,
		sizeof(int64_t) * (size_t)(lg->nheld - k) * lg->ncols);
	lg->nheld -= k;
    }
}

/*
 * SynthStart --
 *	After a good record was held (it was the last of b, which has room
 *	again): if it is an event posted at its completion (-startat), the
 *	synthetic Start event of Magpie section 3.2, a copy of it of the
 *	Start type at the start time it carries, is held too, so that it
 *	comes out in its place in time.  A start time that is missing,
 *	later than the event or earlier than the reorder window allows goes
 *	through the error policy (the completion event stays).
 * Results: 0 to go on, or what next returns when reading must stop.
 */
static int
SynthStart(Rb_Reader *r, MgLog *lg, Rb_Batch *b, int start, uint64_t offset,
	Rb_Error *err)
{
    int i = b->n - 1, k, f, j, nf = b->schema->nfields;
    int64_t t0, rec[RB_MAX_FIELDS];
    char why[160];

    for (k = 0; k < lg->nstarts; k++) {
	if (b->col[lg->fEvent][i] == lg->startFrom[k]) {
	    break;
	}
    }
    if (k == lg->nstarts) {
	Hold(lg, b, i);
	return 0;
    }
    t0 = b->col[lg->startField[k]][i];
    if (t0 == RB_ABSENT || t0 > b->col[0][i]
	    || t0 < lg->maxSeen - lg->reorderNs) {
	Hold(lg, b, i);
	snprintf(why, sizeof(why), "start time %s of an event posted at "
		"completion is %s", r->schema->fields[lg->startField[k]].name,
		t0 == RB_ABSENT ? "missing" : t0 > b->col[0][i]
		? "later than the event" : "earlier than the reorder window "
		"allows (raise the reader's reorder option)");
	return Rb_ReaderBad(r, err, "bad-start", offset, "%s", why)
		? LogFail(lg, b, start, err) : 0;
    }
    /* The Start is held first, so that at an equal time it precedes the
     * event it starts. */
    for (f = 0; f < nf; f++) {
	rec[f] = b->col[f][i];
    }
    b->col[0][i] = t0;
    b->col[lg->fEvent][i] = lg->startTo[k];
    Hold(lg, b, i);
    j = Rb_BatchAppend(b);
    for (f = 0; f < nf; f++) {
	b->col[f][j] = rec[f];
    }
    Hold(lg, b, j);
    return 0;
}

/*
 * LogKeep --
 *	Settles the record just appended to b and parsed (bad is NULL or
 *	its malformed-record kind, why the detail, offset where it began):
 *	a record earlier than the latest time read less the reorder window
 *	is out of order, one later than it by more than -maxgap a
 *	"time-jump" (Rb_ReaderTimeJump); a bad record is removed and goes
 *	through the error policy; a good one is held until its place in
 *	time is certain, with its synthetic Start event if it has one
 *	(SynthStart).
 * Results: 0 to go on, or what next returns when reading must stop
 *	(never 0).
 */
static int
LogKeep(Rb_Reader *r, MgLog *lg, Rb_Batch *b, int start, const char *bad,
	const char *why, uint64_t offset, Rb_Error *err)
{
    int i = b->n - 1;

    if (bad == NULL && lg->maxSeen != RB_ABSENT
	    && b->col[0][i] < lg->maxSeen - lg->reorderNs) {
	bad = "out-of-order";
	why = "time goes backwards by more than the reorder window";
	if (r->onError == RB_ONERROR_WARN) {
	    Rb_ReaderBad(r, err, bad, offset, "%s", why);
	    Hold(lg, b, i);
	    return 0;
	}
    }
    if (bad != NULL) {
	b->n--;
	return Rb_ReaderBad(r, err, bad, offset, "%s", why)
		? LogFail(lg, b, start, err) : 0;
    }
    if (lg->maxSeen != RB_ABSENT) {
	int rc = Rb_ReaderTimeJump(r, err, b->col[0][i], lg->maxSeen,
		offset);

	if (rc != 0) {
	    b->n--;
	    return rc < 0 ? LogFail(lg, b, start, err) : 0;
	}
    }
    if (lg->maxSeen == RB_ABSENT || b->col[0][i] > lg->maxSeen) {
	lg->maxSeen = b->col[0][i];
    }
    return SynthStart(r, lg, b, start, offset, err);
}

/*
 * LogOpen --
 *	Fixes the record schema (declared or discovered) and the machine.
 */
static int
LogOpen(Rb_Reader *r, Rb_Error *err)
{
    LogState *st = r->state;

    return MgLogOpen(r, &st->lg, DiscoverSchema, err);
}

/*
 * MgLogNext --
 *	The next hook of an event-log reader: appends events until the
 *	batch is full or the input ends, each record read by getRecord and
 *	parsed by parse; malformed ones go through the error policy.  Good
 *	records pass through the reorder buffer, so those out of order by
 *	no more than the window come out sorted by time.
 * Results: records appended, 0 at the end, -1 on error (err set).
 */
int
MgLogNext(Rb_Reader *r, MgLog *lg, Rb_Batch *b, Rb_Error *err,
	MgRecordProc *getRecord, MgParseProc *parse)
{
    int start = b->n;
    char *rec, why[160];

    if (lg->failed) {
	lg->failed = 0;
	*err = lg->pending;
	return -1;
    }
    while (b->n < b->cap) {
	uint64_t offset;
	const char *bad;
	int i, rc;

	Release(r, lg, b);
	if (b->n == b->cap || lg->eof) {
	    break;
	}
	rec = getRecord(r, &offset, &bad, why, sizeof(why), err);
	if (rec == NULL) {
	    if (err->code[0] != '\0') {
		return LogFail(lg, b, start, err);
	    }
	    lg->eof = 1;
	    Release(r, lg, b);
	    break;
	}
	i = Rb_BatchAppend(b);
	if (bad == NULL) {
	    bad = parse(r, rec, b, i, why, sizeof(why));
	}
	rc = LogKeep(r, lg, b, start, bad, why, offset, err);
	if (rc != 0) {
	    return rc;
	}
    }
    return b->n - start;
}

/*
 * MgLogFree --
 *	Frees the reorder buffer of an event log.
 */
void
MgLogFree(MgLog *lg)
{
    if (lg->held != NULL) {
	free(lg->held);
	lg->held = NULL;
    }
    lg->nheld = lg->capHeld = 0;
}

/*
 * NextLine --
 *	The next line that is not a comment (every line counts as a record
 *	for error messages), and where it begins.
 * Results: the line, or NULL at the end (err->code empty) or on a read
 *	error.
 */
static char *
NextLine(Rb_Reader *r, uint64_t *offset, const char **bad, char *why,
	size_t whyLen, Rb_Error *err)
{
    char *line;
    size_t len;

    *bad = NULL;
    do {
	*offset = Rb_InputOffset(r->in);
	line = Rb_InputGetLine(r->in, &len, err);
	if (line == NULL) {
	    return NULL;
	}
	r->recordNo++;
	if (strlen(line) != len) {
	    /* Parsers read C strings: a NUL byte would cut the line. */
	    snprintf(why, whyLen, "a NUL byte at column %zu",
		    strlen(line) + 1);
	    *bad = "nul-byte";
	    return line;
	}
    } while (MgIsComment(line));
    return line;
}

/*
 * LogNext --
 *	Appends events until the batch is full or the file ends.
 */
static int
LogNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    LogState *st = r->state;

    return MgLogNext(r, &st->lg, b, err, NextLine, ParseEvent);
}

/*
 * LogClose --
 *	Drops the declared schema (the engine releases the record schema).
 */
static void
LogClose(Rb_Reader *r)
{
    LogState *st = r->state;

    MgSchemaRelease(st->lg.mg);
    MgLogFree(&st->lg);
}

const Rb_ReaderClass MgEventLogReaderClass = {
    .name = "magpie",
    .help = "Magpie event log: TIME, Provider/Event, Attr=Value, ... "
	    "(one file per machine)",
    .stateSize = sizeof(LogState),
    .sniff = LogSniff,
    .open = LogOpen,
    .next = LogNext,
    .close = LogClose,
};
