/*
 * native.c --
 *
 *	Rubicon's own trace format: a gzip stream with a header (magic,
 *	version, epoch, schema) and blocks of up to RB_BATCH_SIZE records
 *	stored column by column as little-endian int64, so that reading a
 *	block is a copy per column.  Strings of RB_FT_STRING fields travel
 *	in the block that first uses them.  An end marker with the record
 *	count closes the stream.  See doc/native.n.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "io/ioInt.h"
#include "io/native.h"
#include "core/engine.h"

#define NATIVE_MAGIC	"RBNATIVE"
#define NATIVE_VERSION	1
#define BLOCK_MAGIC	"RBBK"
#define END_MAGIC	"RBEN"
#define BLOCK_MAX	RB_BATCH_SIZE	/* records per block */
#define NAME_MAX_LEN	65536		/* schema, field names and help */
#define STRING_MAX_LEN	(1 << 20)	/* one string field value */
#define STRINGS_MAX	(1 << 24)	/* distinct strings in a file */

/*
 * ToLe64, FromLe64 --
 *	Convert between host order and the file's little-endian order.
 */
static inline uint64_t
ToLe64(uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(v);
#else
    return v;
#endif
}

#define FromLe64 ToLe64

static inline uint32_t
GetLe32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16)
	    | ((uint32_t)p[3] << 24);
}

static inline uint64_t
GetLe64(const unsigned char *p)
{
    return GetLe32(p) | ((uint64_t)GetLe32(p + 4) << 32);
}

/*
 * ---------------------------------------------------------------------
 * Writer.
 * ---------------------------------------------------------------------
 */

struct Rb_NativeWriter {
    char *path;
    char *tmpPath;
    gzFile gz;
    Rb_Schema *schema;
    int64_t *cols;		/* BLOCK_MAX values per field */
    int64_t stringsWritten;	/* Ids below this are in the file. */
    uint64_t records;
    int failed;
    char why[256];		/* First failure, for the error message. */
    Rb_Engine *eng;		/* Charged for bytes written (-outlimit). */
    z_off_t charged;		/* Compressed bytes charged so far. */
    int limited;		/* Failed on the output limit. */
};

/*
 * WriteBytes --
 *	Appends n bytes to the stream; on failure marks w failed and keeps
 *	the first reason.
 */
static void
WriteBytes(Rb_NativeWriter *w, const void *p, size_t n)
{
    int errnum;
    const char *msg;

    if (w->failed || n == 0) {
	return;
    }
    if (gzwrite(w->gz, p, (unsigned)n) != (int)n) {
	msg = gzerror(w->gz, &errnum);
	w->failed = 1;
	snprintf(w->why, sizeof(w->why), "%s",
		errnum == Z_ERRNO ? strerror(errno) : msg);
    }
}

/*
 * EndMember --
 *	Ends the gzip member under way, so that the next bytes begin a new
 *	one: the header and every block are members of their own, where a
 *	split run can start reading (RbInputWindow, RB_WINDOW_BLOCKS).
 */
static void
EndMember(Rb_NativeWriter *w)
{
    int errnum, rc;

    if (w->failed) {
	return;
    }
    if ((rc = gzflush(w->gz, Z_FINISH)) != Z_OK) {
	const char *msg = gzerror(w->gz, &errnum);

	w->failed = 1;
	snprintf(w->why, sizeof(w->why), "%s",
		errnum == Z_ERRNO ? strerror(errno) : msg);
	return;
    }
    /* The member is on disk now: charge it to safe mode's -outlimit. */
    if (w->eng != NULL && gzoffset(w->gz) > w->charged) {
	z_off_t off = gzoffset(w->gz);

	if (!RbSafeOutputTake(w->eng, (uint64_t)(off - w->charged))) {
	    w->failed = w->limited = 1;
	    snprintf(w->why, sizeof(w->why), "output limit reached");
	}
	w->charged = off;
    }
}

/*
 * SetWriteError --
 *	err for w's first failure: RUBICON SAFE LIMIT OUTPUT when it was
 *	the output limit, else RUBICON NATIVE WRITE with the reason.
 */
static void
SetWriteError(Rb_NativeWriter *w, Rb_Error *err)
{
    if (w->limited) {
	RbSafeOutputSetError(w->eng, err, w->path);
    } else {
	Rb_SetError(err, "RUBICON NATIVE WRITE", "cannot write \"%s\": %s",
		w->path, w->why);
    }
}

static void
WriteU32(Rb_NativeWriter *w, uint32_t v)
{
    unsigned char b[4] = {v, v >> 8, v >> 16, v >> 24};

    WriteBytes(w, b, 4);
}

static void
WriteU64(Rb_NativeWriter *w, uint64_t v)
{
    uint64_t le = ToLe64(v);

    WriteBytes(w, &le, 8);
}

/*
 * WriteString --
 *	A length-prefixed string.
 */
static void
WriteString(Rb_NativeWriter *w, const char *s)
{
    size_t n = strlen(s);

    WriteU32(w, (uint32_t)n);
    WriteBytes(w, s, n);
}

/*
 * RbNativeWriterOpen --
 *	Creates "path.tmp-PID" (removing those of dead processes), or opens
 *	path itself when it is standard output ("-"), a device or a FIFO
 *	(RbOutCreate), and writes the header for schema and epochNs.  With
 *	interp, the bytes written are charged to its safe mode -outlimit.
 * Results: the writer, or NULL with err set naming path.
 * Side effects: retains schema until close.
 */
Rb_NativeWriter *
RbNativeWriterOpen(Tcl_Interp *interp, const char *path, Rb_Schema *schema,
	int64_t epochNs, Rb_Error *err)
{
    Rb_NativeWriter *w;
    int f, fd;

    w = Rb_Alloc(sizeof(*w));
    w->path = Rb_Strdup(path);
    w->eng = interp != NULL ? RbEngineGet(interp) : NULL;
    if (w->eng != NULL && w->eng->outLimit == 0) {
	w->eng = NULL;
    }
    fd = RbOutCreate(path, &w->tmpPath);
    /* Level 1: columns of integers compress well even at the fastest. */
    w->gz = fd < 0 ? NULL : gzdopen(fd, "wb1");
    if (w->gz == NULL) {
	Rb_SetError(err, "RUBICON NATIVE WRITE", "cannot write \"%s\": %s",
		path, errno ? strerror(errno) : "gzdopen failed");
	if (fd >= 0) {
	    close(fd);
	}
	if (w->tmpPath != NULL) {
	    unlink(w->tmpPath);
	}
	free(w->tmpPath);
	free(w->path);
	free(w);
	return NULL;
    }
    gzbuffer(w->gz, 1 << 20);
    w->schema = schema;
    Rb_SchemaRetain(schema);
    w->cols = Rb_AllocArray(BLOCK_MAX * schema->nfields, sizeof(int64_t));
    WriteBytes(w, NATIVE_MAGIC, 8);
    WriteU32(w, NATIVE_VERSION);
    WriteU64(w, (uint64_t)epochNs);
    WriteString(w, schema->name);
    WriteU32(w, (uint32_t)schema->nfields);
    for (f = 0; f < schema->nfields; f++) {
	WriteString(w, schema->fields[f].name);
	WriteU32(w, schema->fields[f].type);
	WriteU32(w, schema->fields[f].unit);
	WriteString(w, schema->fields[f].help);
    }
    EndMember(w);
    return w;
}

/*
 * WriteBlock --
 *	Writes n records already gathered in w->cols (field f at
 *	w->cols[f * BLOCK_MAX]), preceded by the strings they use that are
 *	not yet in the file.
 */
static void
WriteBlock(Rb_NativeWriter *w, int n)
{
    Rb_Schema *s = w->schema;
    int64_t maxId = -1, id;
    int f, i;

    for (f = 0; f < s->nfields; f++) {
	const int64_t *c = w->cols + (size_t)f * BLOCK_MAX;

	if (s->fields[f].type != RB_FT_STRING) {
	    continue;
	}
	for (i = 0; i < n; i++) {
	    if (c[i] != RB_ABSENT && c[i] > maxId) {
		maxId = c[i];
	    }
	}
    }
    WriteBytes(w, BLOCK_MAGIC, 4);
    WriteU32(w, maxId >= w->stringsWritten
	    ? (uint32_t)(maxId + 1 - w->stringsWritten) : 0);
    for (id = w->stringsWritten; id <= maxId; id++) {
	WriteString(w, Rb_SchemaString(s, id));
    }
    if (maxId >= w->stringsWritten) {
	w->stringsWritten = maxId + 1;
    }
    WriteU32(w, (uint32_t)n);
    for (f = 0; f < s->nfields; f++) {
	int64_t *c = w->cols + (size_t)f * BLOCK_MAX;

	for (i = 0; i < n; i++) {
	    c[i] = (int64_t)ToLe64((uint64_t)c[i]);
	}
	WriteBytes(w, c, sizeof(int64_t) * n);
    }
    EndMember(w);
    w->records += n;
}

/*
 * RbNativeWriterWrite --
 *	Appends the selected records of b, in blocks of at most BLOCK_MAX.
 * Results: TCL_OK, or TCL_ERROR with err set.
 */
int
RbNativeWriterWrite(Rb_NativeWriter *w, const Rb_Batch *b,
	const uint32_t *sel, int nsel, Rb_Error *err)
{
    int total = sel ? nsel : b->n;
    int done, n, f, i;

    if (b->schema->nfields != w->schema->nfields) {
	w->failed = 1;
	snprintf(w->why, sizeof(w->why), "a batch of another schema");
    }
    for (done = 0; done < total && !w->failed; done += n) {
	n = total - done < BLOCK_MAX ? total - done : BLOCK_MAX;
	for (f = 0; f < w->schema->nfields; f++) {
	    int64_t *c = w->cols + (size_t)f * BLOCK_MAX;
	    const int64_t *src = b->col[f];

	    if (sel == NULL) {
		memcpy(c, src + done, sizeof(int64_t) * n);
	    } else {
		for (i = 0; i < n; i++) {
		    c[i] = src[sel[done + i]];
		}
	    }
	}
	WriteBlock(w, n);
    }
    if (w->failed) {
	SetWriteError(w, err);
	return TCL_ERROR;
    }
    return TCL_OK;
}

/*
 * RbNativeWriterClose --
 *	Writes the end marker, closes the stream and renames the temporary
 *	file to the path; after any failure removes it instead.
 * Results: TCL_OK, or TCL_ERROR with err set naming the path.
 * Side effects: frees w.
 */
int
RbNativeWriterClose(Rb_NativeWriter *w, Rb_Error *err)
{
    int rc, result = TCL_OK;

    WriteBytes(w, END_MAGIC, 4);
    WriteU64(w, w->records);
    rc = gzclose(w->gz);
    if (!w->failed && rc != Z_OK) {
	w->failed = 1;
	snprintf(w->why, sizeof(w->why), "%s",
		rc == Z_ERRNO ? strerror(errno) : "gzclose failed");
    }
    if (!w->failed && w->tmpPath != NULL
	    && rename(w->tmpPath, w->path) != 0) {
	w->failed = 1;
	snprintf(w->why, sizeof(w->why), "rename: %s", strerror(errno));
    }
    if (w->failed) {
	if (w->tmpPath != NULL) {
	    unlink(w->tmpPath);
	}
	SetWriteError(w, err);
	result = TCL_ERROR;
    }
    Rb_SchemaRelease(w->schema);
    free(w->cols);
    free(w->tmpPath);
    free(w->path);
    free(w);
    return result;
}

/*
 * RbNativeWriterAbort --
 *	Gives up the file: the temporary file is removed and w freed, so an
 *	interrupted run leaves no trace file that looks whole.
 */
void
RbNativeWriterAbort(Rb_NativeWriter *w)
{
    Rb_Error ignored;

    if (w == NULL) {
	return;
    }
    if (!w->failed) {
	w->failed = 1;
	snprintf(w->why, sizeof(w->why), "abandoned");
    }
    RbNativeWriterClose(w, &ignored);
}

/*
 * ---------------------------------------------------------------------
 * Reader.
 * ---------------------------------------------------------------------
 */

typedef struct NativeState {
    int64_t *block;		/* Current block, field f at f * blockN. */
    int blockN;			/* Records in it. */
    int blockPos;		/* Records of it already delivered. */
    uint64_t blockNo;		/* Blocks read (1-based number of block). */
    uint64_t blockOffset;	/* Byte offset of the current block. */
    uint64_t inBlocks;		/* Records in the blocks read. */
    int64_t *strMap;		/* File string id -> schema string id. */
    int64_t nstr, strCap;
    int stringFields;		/* The schema has RB_FT_STRING fields. */
    int done;
    int failed;			/* pending holds an error for next call. */
    Rb_Error pending;
} NativeState;

/*
 * NativeSniff --
 *	The decompressed stream begins with "RBNATIVE".
 */
static int
NativeSniff(const unsigned char *head, size_t n)
{
    return n >= 8 && memcmp(head, NATIVE_MAGIC, 8) == 0 ? 100 : 0;
}

/*
 * ReadPart --
 *	Reads exactly n bytes of the part of the file named by what.
 * Results: 1 ok, 0 or -1 with err set naming the file, what was being
 *	read and where.
 */
/*
 * FileBase --
 *	For messages: what to add to an offset of the input to make it the
 *	file's (in a split run's range of a compressed file, RbInputBases).
 */
static uint64_t
FileBase(Rb_Reader *r)
{
    uint64_t lines, bytes;

    RbInputBases(r->in, &lines, &bytes);
    return bytes;
}

static int
ReadPart(Rb_Reader *r, void *buf, size_t n, const char *what, Rb_Error *err)
{
    uint64_t at = Rb_InputOffset(r->in);
    Rb_Error inner;
    int rc;

    inner.code[0] = '\0';
    rc = Rb_InputReadFull(r->in, buf, n, &inner);
    if (rc == 1) {
	return 1;
    }
    at += FileBase(r);
    if (rc == 0) {
	Rb_SetError(err, "RUBICON READER TRUNCATED", "%s: the data ends "
		"before the %s at byte offset %llu", Rb_InputPath(r->in), what,
		(unsigned long long)at);
    } else {
	Rb_SetError(err, inner.code, "%s (reading the %s at byte offset "
		"%llu)", inner.msg, what, (unsigned long long)at);
    }
    return rc;
}

/*
 * ReadU32, ReadString --
 *	A little-endian 32-bit word; a length-prefixed string of at most
 *	max bytes, malloc'd into *sp.
 * Results: 1 ok, else 0/-1 with err set.
 */
static int
ReadU32(Rb_Reader *r, uint32_t *v, const char *what, Rb_Error *err)
{
    unsigned char b[4];
    int rc = ReadPart(r, b, 4, what, err);

    *v = GetLe32(b);
    return rc;
}

static int
ReadString(Rb_Reader *r, char **sp, uint32_t max, const char *what,
	Rb_Error *err)
{
    uint32_t n;
    int rc;

    *sp = NULL;
    if ((rc = ReadU32(r, &n, what, err)) != 1) {
	return rc;
    }
    if (n > max) {
	Rb_SetError(err, "RUBICON READER CORRUPT", "%s: %s of %u bytes at "
		"byte offset %llu is longer than %u", Rb_InputPath(r->in),
		what, n, (unsigned long long)(Rb_InputOffset(r->in) - 4), max);
	return -1;
    }
    *sp = Rb_Alloc(n + 1);
    if ((rc = ReadPart(r, *sp, n, what, err)) != 1) {
	free(*sp);
	*sp = NULL;
	return rc;
    }
    if (memchr(*sp, '\0', n) != NULL) {
	Rb_SetError(err, "RUBICON READER CORRUPT", "%s: %s at byte offset "
		"%llu contains a NUL byte", Rb_InputPath(r->in), what,
		(unsigned long long)(Rb_InputOffset(r->in) - n));
	free(*sp);
	*sp = NULL;
	return -1;
    }
    return 1;
}

/*
 * SameAsIoSchema --
 *	Whether s has exactly the fields of the standard I/O schema.
 */
static int
SameAsIoSchema(const Rb_Schema *s)
{
    const Rb_Schema *io = Rb_IoSchema();
    int f;

    if (s->nfields != io->nfields) {
	return 0;
    }
    for (f = 0; f < s->nfields; f++) {
	if (strcmp(s->fields[f].name, io->fields[f].name) != 0
		|| s->fields[f].type != io->fields[f].type
		|| s->fields[f].unit != io->fields[f].unit) {
	    return 0;
	}
    }
    return 1;
}

/*
 * ReadSchema --
 *	Reads the schema part of the header into a new schema.
 * Results: TCL_OK with *sp set, or TCL_ERROR with err set.
 */
static int
ReadSchema(Rb_Reader *r, Rb_Schema **sp, Rb_Error *err)
{
    Rb_Schema *s = NULL;
    char *name = NULL, *help = NULL;
    uint32_t nfields, type, unit, f;

    *sp = NULL;
    if (ReadString(r, &name, NAME_MAX_LEN, "schema name", err) != 1
	    || ReadU32(r, &nfields, "field count", err) != 1) {
	goto fail;
    }
    if (nfields < 1 || nfields > RB_MAX_FIELDS) {
	Rb_SetError(err, "RUBICON READER CORRUPT", "%s: the header declares "
		"%u fields (1 to %d allowed)", Rb_InputPath(r->in), nfields,
		RB_MAX_FIELDS);
	goto fail;
    }
    s = Rb_SchemaCreate(name);
    free(name);
    name = NULL;
    for (f = 0; f < nfields; f++) {
	if (ReadString(r, &name, NAME_MAX_LEN, "field name", err) != 1
		|| ReadU32(r, &type, "field type", err) != 1
		|| ReadU32(r, &unit, "field unit", err) != 1
		|| ReadString(r, &help, NAME_MAX_LEN, "field help", err) != 1) {
	    goto fail;
	}
	if (type > RB_FT_STRING || unit > RB_UNIT_BYTES) {
	    Rb_SetError(err, "RUBICON READER CORRUPT", "%s: field \"%s\" has "
		    "unknown type %u or unit %u", Rb_InputPath(r->in), name,
		    type, unit);
	    goto fail;
	}
	if (f == 0) {
	    if (strcmp(name, "time") != 0 || type != RB_FT_INT
		    || unit != RB_UNIT_NS) {
		Rb_SetError(err, "RUBICON READER CORRUPT", "%s: field 0 is "
			"\"%s\", not the integer time in ns",
			Rb_InputPath(r->in), name);
		goto fail;
	    }
	} else if (Rb_SchemaAddField(s, name, type, unit, help) < 0) {
	    Rb_SetError(err, "RUBICON READER CORRUPT", "%s: field \"%s\" "
		    "appears twice", Rb_InputPath(r->in), name);
	    goto fail;
	}
	free(name);
	free(help);
	name = help = NULL;
    }
    *sp = s;
    return TCL_OK;

  fail:
    free(name);
    free(help);
    if (s != NULL) {
	Rb_SchemaRelease(s);
    }
    return TCL_ERROR;
}

/*
 * NativeOpen --
 *	Reads the header: magic, version, epoch and schema.  A schema equal
 *	to the I/O schema becomes Rb_IoSchema() itself.
 * Results: TCL_OK, or TCL_ERROR with err set.
 */
static int
NativeOpen(Rb_Reader *r, Rb_Error *err)
{
    NativeState *st = r->state;
    unsigned char head[20];
    Rb_Schema *s;
    uint32_t version;
    int f;

    if (ReadPart(r, head, sizeof(head), "native header", err) != 1) {
	return TCL_ERROR;
    }
    if (memcmp(head, NATIVE_MAGIC, 8) != 0) {
	Rb_SetError(err, "RUBICON READER FORMAT", "%s: not a native Rubicon "
		"trace (no \"%s\" magic)", Rb_InputPath(r->in), NATIVE_MAGIC);
	return TCL_ERROR;
    }
    version = GetLe32(head + 8);
    if (version != NATIVE_VERSION) {
	Rb_SetError(err, "RUBICON READER FORMAT", "%s: native format version "
		"%u is not supported (only %d)", Rb_InputPath(r->in), version,
		NATIVE_VERSION);
	return TCL_ERROR;
    }
    r->epochNs = (int64_t)GetLe64(head + 12);
    if (ReadSchema(r, &s, err) != TCL_OK) {
	return TCL_ERROR;
    }
    if (SameAsIoSchema(s)) {
	Rb_SchemaRelease(s);
	s = Rb_IoSchema();
    }
    r->schema = s;
    for (f = 0; f < s->nfields; f++) {
	if (s->fields[f].type == RB_FT_STRING) {
	    st->stringFields = 1;
	}
    }
    st->block = Rb_AllocArray(BLOCK_MAX * s->nfields, sizeof(int64_t));
    return TCL_OK;
}

/*
 * BadBlock --
 *	A broken block: counted through Rb_ReaderBad, and fatal since the
 *	next block cannot be found.
 * Results: -1 (st->pending set).
 */
static int
BadBlock(Rb_Reader *r, NativeState *st, const char *detail)
{
    r->recordNo = st->inBlocks + 1;
    RbReaderBadFatal(r, &st->pending, "bad-block", st->blockOffset
	    + FileBase(r),
	    "block %llu: %s", (unsigned long long)st->blockNo, detail);
    return -1;
}

/*
 * ReadStrings --
 *	Reads the block's new strings into the schema and the id map.
 * Results: 1 ok, else -1 with st->pending set.
 */
static int
ReadStrings(Rb_Reader *r, NativeState *st, uint32_t count)
{
    char *text;
    uint32_t i;

    if (count > 0 && !st->stringFields) {
	return BadBlock(r, st, "strings in a schema without string fields");
    }
    if (count > STRINGS_MAX - st->nstr) {
	return BadBlock(r, st, "too many strings");
    }
    for (i = 0; i < count; i++) {
	if (ReadString(r, &text, STRING_MAX_LEN, "block string",
		&st->pending) != 1) {
	    return -1;
	}
	if (st->nstr == st->strCap) {
	    st->strCap = st->strCap ? 2 * st->strCap : 256;
	    st->strMap = Rb_ReallocArray(st->strMap, st->strCap,
		    sizeof(int64_t));
	}
	st->strMap[st->nstr++] = Rb_SchemaIntern(r->schema, text, strlen(text));
	free(text);
    }
    return 1;
}

/*
 * ReadBlock --
 *	Reads the next block into st->block, or the end marker.
 * Results: 1 a block, 0 the end, -1 on error (st->pending set).
 */
static int
ReadBlock(Rb_Reader *r, NativeState *st)
{
    const Rb_Schema *s = r->schema;
    unsigned char magic[4], extra;
    uint32_t count, n;
    uint64_t total;
    char what[64];
    int f, i, rc, late;

    st->blockOffset = Rb_InputOffset(r->in);
    st->blockNo++;
    snprintf(what, sizeof(what), "block %llu", (unsigned long long)st->blockNo);
    if ((rc = ReadPart(r, magic, 4, what, &st->pending)) != 1) {
	/* A split run's range ends between blocks, before the file. */
	return rc == 0 && RbInputWindowCut(r->in, &late) ? 0 : -1;
    }
    if (memcmp(magic, END_MAGIC, 4) == 0) {
	if (ReadPart(r, &total, 8, "end marker", &st->pending) != 1) {
	    return -1;
	}
	total = FromLe64(total);
	RbInputWindowCut(r->in, &late);
	if (total != st->inBlocks && !late) {
	    char detail[128];

	    snprintf(detail, sizeof(detail), "the end marker counts %llu "
		    "records, the blocks hold %llu", (unsigned long long)total,
		    (unsigned long long)st->inBlocks);
	    return BadBlock(r, st, detail);
	}
	switch (Rb_InputRead(r->in, &extra, 1, &st->pending)) {
	case 0:
	    return 0;
	case -1:
	    return -1;
	default:
	    return BadBlock(r, st, "data follows the end marker");
	}
    }
    if (memcmp(magic, BLOCK_MAGIC, 4) != 0) {
	return BadBlock(r, st, "no block magic");
    }
    if (ReadU32(r, &count, what, &st->pending) != 1
	    || ReadStrings(r, st, count) != 1
	    || ReadU32(r, &n, what, &st->pending) != 1) {
	return -1;
    }
    if (n < 1 || n > BLOCK_MAX) {
	return BadBlock(r, st, "record count out of range");
    }
    if (ReadPart(r, st->block, sizeof(int64_t) * n * s->nfields, what,
	    &st->pending) != 1) {
	return -1;
    }
    for (f = 0; f < s->nfields; f++) {
	int64_t *c = st->block + (size_t)f * n;

	for (i = 0; i < (int)n; i++) {
	    c[i] = (int64_t)FromLe64((uint64_t)c[i]);
	}
	if (s->fields[f].type != RB_FT_STRING) {
	    continue;
	}
	for (i = 0; i < (int)n; i++) {
	    if (c[i] == RB_ABSENT) {
		continue;
	    }
	    if (c[i] < 0 || c[i] >= st->nstr) {
		return BadBlock(r, st, "a string id that was never defined");
	    }
	    c[i] = st->strMap[c[i]];
	}
    }
    st->blockN = (int)n;
    st->blockPos = 0;
    st->inBlocks += n;
    return 1;
}

/*
 * NativeNext --
 *	Copies records from the current block into the batch, reading
 *	blocks as needed.
 * Results: records appended, 0 at the end, -1 on error (err set).  An
 *	error after some records of this call is reported by the next call.
 */
static int
NativeNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    NativeState *st = r->state;
    int start = b->n, k, f, rc;

    if (st->failed) {
	st->failed = 0;
	*err = st->pending;
	return -1;
    }
    if (b->n == 0) {
	b->firstRecord = r->records + 1;
    }
    while (!st->done && b->n < b->cap) {
	if (st->blockPos == st->blockN) {
	    rc = ReadBlock(r, st);
	    if (rc <= 0) {
		st->done = 1;
		if (rc < 0) {
		    if (b->n > start) {
			st->failed = 1;
			break;
		    }
		    *err = st->pending;
		    return -1;
		}
		break;
	    }
	}
	k = st->blockN - st->blockPos;
	if (k > b->cap - b->n) {
	    k = b->cap - b->n;
	}
	for (f = 0; f < r->schema->nfields; f++) {
	    memcpy(b->col[f] + b->n,
		    st->block + (size_t)f * st->blockN + st->blockPos,
		    sizeof(int64_t) * k);
	}
	b->n += k;
	st->blockPos += k;
    }
    r->recordNo = st->inBlocks - (st->blockN - st->blockPos);
    return b->n - start;
}

/*
 * NativeClose --
 *	Frees the reader state's buffers.
 */
static void
NativeClose(Rb_Reader *r)
{
    NativeState *st = r->state;

    free(st->block);
    free(st->strMap);
}

const Rb_ReaderClass Rb_NativeReaderClass = {
    "native",
    "Rubicon's native format (gzip, columnar int64 blocks)",
    sizeof(NativeState),
    NativeSniff,
    NativeOpen,
    NativeNext,
    NativeClose,
};
