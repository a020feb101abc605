/*
 * reader.c --
 *
 *	Readers of Stardust activity records, binary ("stardust") and text
 *	("stardust-text").  Both produce the activity schema of a type set
 *	(reader option typeset, default "default"); doc/Stardust.n gives
 *	the layouts.  The binary form: a 16-byte file header ("STARDUST",
 *	then the cycle counter's ticks per second, u64), then records of a
 *	24-byte header (u64 cycle timestamp, u64 breadcrumb, u32 pid, u32
 *	tid), a u16 type id, a u16 payload length and the payload, the
 *	attributes in declared order (byte 1, short 2, int 4, long 8 bytes,
 *	string a u16 length and its bytes), all little-endian.
 */

#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "plugins/stardust/stardust.h"

#define SD_MAGIC	"STARDUST"
#define SD_FILE_HEADER	16
#define SD_REC_HEADER	28	/* 24-byte header + type id + length */

typedef struct SdReadState {
    SdTypeSet *set;
    uint64_t ticksPerSec;
    int64_t *typeIds;		/* Interned type name per set->types[i]. */
    unsigned char payload[65536];
    int done;
    int failed;			/* pending holds an error for next call. */
    Rb_Error pending;
} SdReadState;

static inline uint64_t
Le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    int k;

    for (k = n - 1; k >= 0; k--) {
	v = v << 8 | p[k];
    }
    return v;
}

/*
 * TicksToNs --
 *	A cycle-counter value in ns, exact for any 64-bit count, and
 *	clamped to INT64_MAX so that times are never negative and their
 *	differences never overflow.
 */
static int64_t
TicksToNs(uint64_t ticks, uint64_t perSec)
{
    unsigned __int128 ns = (unsigned __int128)ticks * 1000000000u / perSec;

    return ns > INT64_MAX ? INT64_MAX : (int64_t)ns;
}

/*
 * OpenSet --
 *	Takes the type set the options name, the schema from it, and
 *	interns each type's name once so that records store an id.
 */
static int
OpenSet(Rb_Reader *r, Rb_Error *err)
{
    SdReadState *st = r->state;
    int i;

    st->set = Sd_TypeSetFromOptions(r->options, err);
    if (st->set == NULL) {
	return TCL_ERROR;
    }
    r->schema = st->set->schema;
    Rb_SchemaRetain(r->schema);
    st->typeIds = Rb_AllocArray(st->set->ntypes + 1, sizeof(int64_t));
    for (i = 0; i < st->set->ntypes; i++) {
	st->typeIds[i] = Rb_SchemaIntern(r->schema, st->set->types[i].name,
		strlen(st->set->types[i].name));
    }
    return TCL_OK;
}

/*
 * PutHeader --
 *	Appends a record and fills its fixed fields.
 * Results: the record's index.
 */
static int
PutHeader(Rb_Batch *b, int64_t typeId, int64_t timeNs, uint64_t bc,
	int64_t pid, int64_t tid)
{
    int i = Rb_BatchAppend(b);

    b->col[SD_F_TIME][i] = timeNs;
    b->col[SD_F_TYPE][i] = typeId;
    b->col[SD_F_BREADCRUMB][i] = (int64_t)bc;
    b->col[SD_F_CLIENT][i] = SD_CLIENT(bc);
    b->col[SD_F_PID][i] = pid;
    b->col[SD_F_TID][i] = tid;
    return i;
}

/*
 * Fail --
 *	Ends a next call on the error in st->pending: records appended in
 *	this call are returned first and the error on the next call, so
 *	results up to the error stay usable.
 * Results: what next returns.
 */
static int
Fail(SdReadState *st, Rb_Batch *b, int start, Rb_Error *err)
{
    st->done = 1;
    if (b->n > start) {
	st->failed = 1;
	return b->n - start;
    }
    *err = st->pending;
    return -1;
}

/*
 * Resume --
 *	Starts a next call: reports an error held back by Fail.
 * Results: 1 if next must return -1 now (err set).
 */
static int
Resume(SdReadState *st, Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    if (st->failed) {
	st->failed = 0;
	*err = st->pending;
	return 1;
    }
    if (b->n == 0) {
	b->firstRecord = r->records + 1;
    }
    return 0;
}

static void
SdClose(Rb_Reader *r)
{
    SdReadState *st = r->state;

    if (st->set) {
	Sd_TypeSetRelease(st->set);
    }
    free(st->typeIds);
}

static int
BinarySniff(const unsigned char *head, size_t n)
{
    return n >= 8 && memcmp(head, SD_MAGIC, 8) == 0 ? 95 : 0;
}

/*
 * BinaryOpen --
 *	Reads the file header: magic and ticks per second.
 */
static int
BinaryOpen(Rb_Reader *r, Rb_Error *err)
{
    SdReadState *st = r->state;
    unsigned char head[SD_FILE_HEADER];
    int got = Rb_InputReadFull(r->in, head, sizeof(head), err);

    if (got < 0) {
	return TCL_ERROR;
    }
    if (got == 0 || memcmp(head, SD_MAGIC, 8) != 0) {
	Rb_SetError(err, "RUBICON READER FORMAT", "%s: not a Stardust "
		"activity file (no STARDUST header)", Rb_InputPath(r->in));
	return TCL_ERROR;
    }
    st->ticksPerSec = Le(head + 8, 8);
    if (st->ticksPerSec == 0) {
	Rb_SetError(err, "RUBICON READER CORRUPT", "%s: ticks per second is "
		"0 in the header", Rb_InputPath(r->in));
	return TCL_ERROR;
    }
    return OpenSet(r, err);
}

/*
 * DecodePayload --
 *	Stores the attributes of type t from payload p (len bytes) into
 *	record i.
 * Results: 1 if the payload held exactly the declared attributes.
 */
static int
DecodePayload(Rb_Batch *b, int i, const SdType *t, const unsigned char *p,
	size_t len)
{
    static const int width[] = {1, 2, 4, 8};
    size_t pos = 0;
    int k;

    for (k = 0; k < t->nattrs; k++) {
	const SdAttr *at = &t->attrs[k];

	if (at->type == SD_STRING) {
	    size_t n;

	    if (pos + 2 > len) {
		return 0;
	    }
	    n = Le(p + pos, 2);
	    if (pos + 2 + n > len) {
		return 0;
	    }
	    b->col[at->field][i] = Rb_SchemaIntern(b->schema,
		    (const char *)p + pos + 2, n);
	    pos += 2 + n;
	} else {
	    int w = width[at->type];
	    uint64_t v;

	    if (pos + w > len) {
		return 0;
	    }
	    v = Le(p + pos, w);
	    /* Sign-extend: records.txt types are signed C integers. */
	    if (w < 8 && (v >> (8 * w - 1)) & 1) {
		v |= ~0ull << (8 * w);
	    }
	    b->col[at->field][i] = (int64_t)v;
	    pos += w;
	}
    }
    return pos == len;
}

/*
 * KeepTime --
 *	The -maxgap guard for the record just appended to b (which began at
 *	byte offset): a time later than the latest so far by more than
 *	-maxgap is a "time-jump" (Rb_ReaderTimeJump) and the record is
 *	removed.  Stardust records of many threads need not be in time
 *	order, so an earlier time is kept and leaves the latest as it is.
 * Results: 0 go on, -1 reading must stop (err set).
 */
static int
KeepTime(Rb_Reader *r, Rb_Batch *b, uint64_t offset, Rb_Error *err)
{
    int64_t t = b->col[0][b->n - 1];
    int rc = Rb_ReaderTimeJump(r, err, t, r->lastTime, offset);

    if (rc != 0) {
	b->n--;
	return rc < 0 ? -1 : 0;
    }
    if (t > r->lastTime) {
	r->lastTime = t;
    }
    return 0;
}

/*
 * BinaryNext --
 *	Decodes records until the batch is full or the input ends.  An
 *	unknown type id or a payload that does not match its declaration is
 *	a bad record ("unknown-type", "bad-payload") that may be skipped,
 *	since the length word finds the next; a cut-off record stops.
 */
static int
BinaryNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    SdReadState *st = r->state;
    unsigned char h[SD_REC_HEADER];
    int start = b->n;

    if (Resume(st, r, b, err)) {
	return -1;
    }
    while (!st->done && b->n < b->cap) {
	uint64_t offset = Rb_InputOffset(r->in);
	int got = Rb_InputReadFull(r->in, h, sizeof(h), &st->pending), i, tix;
	size_t len = 0;
	const SdType *t;

	if (got == 0) {
	    st->done = 1;
	    break;
	}
	r->recordNo++;
	if (got > 0) {
	    len = Le(h + 26, 2);
	    got = len == 0 ? 1 : Rb_InputReadFull(r->in, st->payload, len,
		    &st->pending);
	    if (got == 0) {
		Rb_SetError(&st->pending, "RUBICON READER TRUNCATED", "%s: "
			"record %llu at byte offset %llu ends before its "
			"payload (short-record)", Rb_InputPath(r->in),
			(unsigned long long)r->recordNo,
			(unsigned long long)offset);
		got = -1;
	    }
	}
	if (got < 0) {
	    return Fail(st, b, start, err);
	}
	t = Sd_TypeById(st->set, (int)Le(h + 24, 2));
	if (t == NULL) {
	    if (Rb_ReaderBad(r, err, "unknown-type", offset, "type id %d is "
		    "not declared in type set %s", (int)Le(h + 24, 2),
		    st->set->name)) {
		return -1;
	    }
	    continue;
	}
	tix = (int)(t - st->set->types);
	i = PutHeader(b, st->typeIds[tix], TicksToNs(Le(h, 8),
		st->ticksPerSec), Le(h + 8, 8), (int64_t)(uint32_t)Le(h + 16, 4),
		(int64_t)(uint32_t)Le(h + 20, 4));
	if (!DecodePayload(b, i, t, st->payload, len)) {
	    b->n--;
	    if (Rb_ReaderBad(r, err, "bad-payload", offset, "%zu payload "
		    "bytes do not hold the attributes of %s", len, t->name)) {
		return -1;
	    }
	} else if (KeepTime(r, b, offset, err) < 0) {
	    return -1;
	}
    }
    return b->n - start;
}

const Rb_ReaderClass Sd_BinaryReaderClass = {
    .name = "stardust",
    .help = "Stardust activity records, binary (typeset in -readeroptions)",
    .stateSize = sizeof(SdReadState),
    .sniff = BinarySniff,
    .open = BinaryOpen,
    .next = BinaryNext,
    .close = SdClose,
};

/*
 * ---------------------------------------------------------------------
 * Text form: "#stardust ticks=N" (optional; default 1e9 ticks per
 * second), then one record per line: ticks breadcrumb pid tid Type
 * value..., values in declared order; strings bare or "quoted" with \"
 * and \\; numbers decimal or 0x hex.  Blank lines and # comments skip.
 * ---------------------------------------------------------------------
 */

static int
TextSniff(const unsigned char *head, size_t n)
{
    return n >= 9 && memcmp(head, "#stardust", 9) == 0 ? 90 : 0;
}

static int
TextOpen(Rb_Reader *r, Rb_Error *err)
{
    SdReadState *st = r->state;
    char head[256];
    long n = Rb_InputPeek(r->in, head, sizeof(head) - 1, err);
    const char *p;

    if (n < 0) {
	return TCL_ERROR;
    }
    head[n] = '\0';
    st->ticksPerSec = 1000000000u;
    if (strncmp(head, "#stardust", 9) == 0
	    && (p = strstr(head, "ticks=")) != NULL
	    && (strchr(head, '\n') == NULL || p < strchr(head, '\n'))) {
	st->ticksPerSec = strtoull(p + 6, NULL, 0);
	if (st->ticksPerSec == 0) {
	    Rb_SetError(err, "RUBICON READER CORRUPT", "%s: ticks per second "
		    "is 0 in the header", Rb_InputPath(r->in));
	    return TCL_ERROR;
	}
    }
    return OpenSet(r, err);
}

/*
 * NextToken --
 *	The next whitespace-delimited or double-quoted token of *pp, with
 *	quotes and escapes removed in place; *pp moves past it.
 * Results: the token (NUL-terminated), or NULL at the end of the line.
 */
static char *
NextToken(char **pp, size_t *lenPtr)
{
    char *p = *pp, *tok, *out;

    while (*p == ' ' || *p == '\t' || *p == '\r') {
	p++;
    }
    if (*p == '\0') {
	*pp = p;
	return NULL;
    }
    if (*p != '"') {
	tok = p;
	while (*p && *p != ' ' && *p != '\t' && *p != '\r') {
	    p++;
	}
	*lenPtr = (size_t)(p - tok);
	if (*p) {
	    *p++ = '\0';
	}
	*pp = p;
	return tok;
    }
    tok = out = ++p;
    while (*p && *p != '"') {
	if (*p == '\\' && p[1]) {
	    p++;
	}
	*out++ = *p++;
    }
    if (*p != '"') {
	return NULL;
    }
    *lenPtr = (size_t)(out - tok);
    *out = '\0';
    *pp = p + 1;
    return tok;
}

/*
 * ParseNumber --
 *	A decimal or 0x integer token.  Unsigned 64-bit values (breadcrumbs
 *	with a client id of 128 or more) wrap to their bit pattern.
 * Results: 1 on success.
 */
static int
ParseNumber(const char *tok, int64_t *v)
{
    char *end;

    errno = 0;
    if (tok[0] == '-') {
	*v = strtoll(tok, &end, 0);
    } else {
	*v = (int64_t)strtoull(tok, &end, 0);
    }
    return errno == 0 && *end == '\0' && end != tok;
}

/*
 * ParseLine --
 *	Decodes one text record into a new record of b.
 * Results: NULL on success, else what was wrong (the record is
 *	removed).
 */
static const char *
ParseLine(SdReadState *st, Rb_Batch *b, char *line)
{
    char *tok[5];
    int64_t num[4], v;
    const SdType *t;
    size_t len;
    int i, k;

    for (k = 0; k < 5; k++) {
	tok[k] = NextToken(&line, &len);
	if (tok[k] == NULL) {
	    return "fewer than five header columns";
	}
	if (k < 4 && !ParseNumber(tok[k], &num[k])) {
	    return "a header column is not an integer";
	}
    }
    t = Sd_TypeByName(st->set, tok[4]);
    if (t == NULL) {
	return "record type not declared in the type set";
    }
    i = PutHeader(b, st->typeIds[t - st->set->types],
	    TicksToNs((uint64_t)num[0], st->ticksPerSec), (uint64_t)num[1],
	    num[2], num[3]);
    for (k = 0; k < t->nattrs; k++) {
	char *val = NextToken(&line, &len);

	if (val == NULL) {
	    b->n--;
	    return "fewer values than the type declares";
	}
	if (t->attrs[k].type == SD_STRING) {
	    b->col[t->attrs[k].field][i] = Rb_SchemaIntern(b->schema, val,
		    len);
	} else if (ParseNumber(val, &v)) {
	    b->col[t->attrs[k].field][i] = v;
	} else {
	    b->n--;
	    return "a numeric attribute is not an integer";
	}
    }
    if (NextToken(&line, &len) != NULL) {
	b->n--;
	return "more values than the type declares";
    }
    return NULL;
}

static int
TextNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    SdReadState *st = r->state;
    int start = b->n;

    if (Resume(st, r, b, err)) {
	return -1;
    }
    while (!st->done && b->n < b->cap) {
	size_t len;
	uint64_t offset = Rb_InputOffset(r->in);
	char *line = Rb_InputGetLine(r->in, &len, &st->pending), *p;
	const char *why;

	if (line == NULL) {
	    if (st->pending.code[0]) {
		return Fail(st, b, start, err);
	    }
	    st->done = 1;
	    break;
	}
	r->recordNo = Rb_InputLineNo(r->in);
	for (p = line; *p == ' ' || *p == '\t'; p++) {
	}
	if (strlen(line) != len) {
	    /* ParseLine reads a C string: a NUL byte would cut the line. */
	    why = "a NUL byte in the line";
	} else if (*p == '\0' || *p == '#' || *p == '\r') {
	    continue;
	} else {
	    why = ParseLine(st, b, p);
	}
	if (why != NULL && Rb_ReaderBad(r, err, "bad-line", offset,
		"line %llu: %s", (unsigned long long)r->recordNo, why)) {
	    return -1;
	}
	if (why == NULL && KeepTime(r, b, offset, err) < 0) {
	    return -1;
	}
    }
    return b->n - start;
}

const Rb_ReaderClass Sd_TextReaderClass = {
    .name = "stardust-text",
    .help = "Stardust activity records, one per line (typeset in "
	    "-readeroptions)",
    .stateSize = sizeof(SdReadState),
    .sniff = TextSniff,
    .open = TextOpen,
    .next = TextNext,
    .close = SdClose,
};
