/*
 * native.c --
 *
 *	Rubicon's own trace format: a header (magic, version, epoch, schema)
 *	and blocks of up to RB_BATCH_SIZE records stored column by column,
 *	so that reading a block is a copy (or a decompression) per column.
 *	Strings of RB_FT_STRING fields travel in the block that first uses
 *	them.  An end marker with the record count closes the file.
 *
 *	Version 2 (the default) is a plain file: a block's columns are raw,
 *	constant or zstd frames (nativeCols.c), each 8-byte aligned, so an
 *	uncompressed file is read through a memory map without a copy into
 *	a buffer, and the reader decodes only the columns the DAG reads, on
 *	a thread of its own for zstd.  Version 1 (written with -compression
 *	gzip) is the same records as a gzip stream, a member per block; it
 *	is still read and written.  See doc/native.n.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zlib.h>
#include "io/ioInt.h"
#include "io/native.h"
#include "io/nativeInt.h"
#include "core/engine.h"
#include "io/ring.h"

#define NATIVE_MAGIC	"RBNATIVE"
#define VERSION_GZIP	1		/* the gzip stream of members */
#define VERSION_COLUMNS	2		/* plain, columns encoded alone */
#define BLOCK_MAGIC	"RBBK"
#define END_MAGIC	"RBEN"
#define BLOCK_MAX	RB_BATCH_SIZE	/* records per block */
#define NAME_MAX_LEN	65536		/* schema, field names and help */
#define STRING_MAX_LEN	(1 << 20)	/* one string field value */
#define STRINGS_MAX	(1 << 24)	/* distinct strings in a file */
#define BLOCK_HEAD	24		/* version 2 block head, bytes */
#define END_LEN		16		/* version 2 end marker, bytes */
#define ZSTD_LEVEL	3		/* the writer's zstd level */
#define DECODE_AHEAD	4		/* blocks the decoding thread keeps
					 * ready */

/* Bytes to add to n to make it a multiple of 8. */
#define PAD8(n)		((8 - ((n) & 7)) & 7)

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
    int version;		/* VERSION_GZIP or VERSION_COLUMNS */
    gzFile gz;			/* Version 1's stream, */
    FILE *fp;			/* or version 2's file. */
    uint64_t written;		/* Bytes written to fp. */
    RbColCoder *coder;		/* Version 2's columns. */
    unsigned char *blk;		/* Version 2: the block being built. */
    size_t blkLen, blkCap;
    Rb_Schema *schema;
    int64_t *cols;		/* BLOCK_MAX values per field */
    int64_t stringsWritten;	/* Ids below this are in the file. */
    uint64_t records;
    Tcl_Interp *interp;		/* Whose -outlimit counts the bytes, or
				 * NULL. */
    int fd;			/* Version 1: the descriptor under gz. */
    uint64_t charged;		/* Version 1: bytes charged so far. */
    int failed;
    char why[256];		/* First failure, for the error message. */
};

/*
 * Fail --
 *	Marks w failed, keeping the first reason.
 */
static void
Fail(Rb_NativeWriter *w, const char *why)
{
    if (!w->failed) {
	w->failed = 1;
	snprintf(w->why, sizeof(w->why), "%s", why);
    }
}

/*
 * WriteBytes --
 *	Appends n bytes to the file (version 1: to the gzip stream); on
 *	failure marks w failed.
 */
static void
WriteBytes(Rb_NativeWriter *w, const void *p, size_t n)
{
    int errnum;
    const char *msg;

    if (w->failed || n == 0) {
	return;
    }
    if (w->fp != NULL) {
	if (fwrite(p, 1, n, w->fp) != n) {
	    Fail(w, strerror(errno));
	}
	w->written += n;
    } else if (gzwrite(w->gz, p, (unsigned)n) != (int)n) {
	msg = gzerror(w->gz, &errnum);
	Fail(w, errnum == Z_ERRNO ? strerror(errno) : msg);
    }
}

/*
 * WriterError --
 *	err for a writer that failed: RUBICON SAFE LIMIT OUTPUT when safe
 *	mode's -outlimit stopped it, else RUBICON NATIVE WRITE with the
 *	first reason.
 */
static void
WriterError(Rb_NativeWriter *w, Rb_Error *err)
{
    if (w->interp != NULL && RbSafeOutputReached(w->interp)) {
	RbSafeOutputSetError(RbEngineGet(w->interp), err, w->path);
    } else {
	Rb_SetError(err, "RUBICON NATIVE WRITE", "cannot write \"%s\": %s",
		w->path, w->why);
    }
}

/*
 * ChargeGz --
 *	Version 1: charges the file's bytes up to size (its length so far,
 *	all written by gzflush or gzclose) to the -outlimit of w's
 *	interpreter; past the limit marks w failed.
 */
static void
ChargeGz(Rb_NativeWriter *w, uint64_t size)
{
    if (w->interp == NULL || w->failed || size <= w->charged
	    || size == (uint64_t)-1) {
	return;
    }
    if (!RbSafeOutputTake(RbEngineGet(w->interp), size - w->charged)) {
	Fail(w, "output limit reached");
    }
    w->charged = size;
}

/*
 * EndMember --
 *	Version 1: ends the gzip member under way, so that the next bytes
 *	begin a new one: the header and every block are members of their
 *	own, where a split run can start reading (RbInputWindow,
 *	RB_WINDOW_BLOCKS).  Version 2: nothing.
 */
static void
EndMember(Rb_NativeWriter *w)
{
    int errnum, rc;

    if (w->failed || w->gz == NULL) {
	return;
    }
    if ((rc = gzflush(w->gz, Z_FINISH)) != Z_OK) {
	const char *msg = gzerror(w->gz, &errnum);

	Fail(w, errnum == Z_ERRNO ? strerror(errno) : msg);
    }
    ChargeGz(w, (uint64_t)lseek(w->fd, 0, SEEK_CUR));
}

static void
PutLe32(unsigned char *b, uint32_t v)
{
    b[0] = v;
    b[1] = v >> 8;
    b[2] = v >> 16;
    b[3] = v >> 24;
}

static void
WriteU32(Rb_NativeWriter *w, uint32_t v)
{
    unsigned char b[4];

    PutLe32(b, v);
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
 *	(RbOutCreate), and writes the header for schema and epochNs:
 *	version 1 for RB_NATIVE_GZIP, else version 2 with columns compressed
 *	by zstd or not at all.
 * Results: the writer, or NULL with err set naming path.
 * Side effects: retains schema until close.
 */
Rb_NativeWriter *
RbNativeWriterOpen(Tcl_Interp *interp, const char *path, Rb_Schema *schema,
	int64_t epochNs, int compression, Rb_Error *err)
{
    static const char zeros[8] = {0};
    Rb_NativeWriter *w;
    int f, fd;

    w = Rb_Alloc(sizeof(*w));
    w->interp = interp;
    w->path = Rb_Strdup(path);
    w->version = compression == RB_NATIVE_GZIP ? VERSION_GZIP
	    : VERSION_COLUMNS;
    errno = 0;
    /* A temporary beside path, or path itself when it is "-", a device
     * or a FIFO (RbOutCreate: tmpPath NULL). */
    fd = RbOutCreate(path, &w->tmpPath);
    w->fd = fd;
    if (fd >= 0 && w->version == VERSION_GZIP) {
	/* Level 1: columns of integers compress well even at the fastest.
	 * The compressed bytes are charged to -outlimit as each member
	 * ends (ChargeGz). */
	w->gz = gzdopen(fd, "wb1");
	if (w->gz != NULL) {
	    gzbuffer(w->gz, 1 << 20);
	}
    } else if (fd >= 0) {
	/* Every byte charged to interp's -outlimit as it is written. */
	w->fp = RbOutFdopen(interp, fd);
	if (w->fp == NULL) {
	    fd = -1;		/* closed by RbOutFdopen */
	} else {
	    setvbuf(w->fp, NULL, _IOFBF, 1 << 20);
	    w->coder = RbColCoderCreate(compression == RB_NATIVE_ZSTD
		    ? ZSTD_LEVEL : 0);
	}
    }
    if (w->gz == NULL && w->fp == NULL) {
	Rb_SetError(err, "RUBICON NATIVE WRITE", "cannot write \"%s\": %s",
		path, errno ? strerror(errno) : "cannot open it");
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
    if (w->tmpPath != NULL) {
	RbTempAdd(w->tmpPath);
    }
    w->schema = schema;
    Rb_SchemaRetain(schema);
    w->cols = Rb_AllocArray(BLOCK_MAX * schema->nfields, sizeof(int64_t));
    WriteBytes(w, NATIVE_MAGIC, 8);
    WriteU32(w, (uint32_t)w->version);
    if (w->version == VERSION_COLUMNS) {
	WriteU32(w, compression == RB_NATIVE_ZSTD ? 1 : 0);
    }
    WriteU64(w, (uint64_t)epochNs);
    WriteString(w, schema->name);
    WriteU32(w, (uint32_t)schema->nfields);
    for (f = 0; f < schema->nfields; f++) {
	WriteString(w, schema->fields[f].name);
	WriteU32(w, schema->fields[f].type);
	WriteU32(w, schema->fields[f].unit);
	WriteString(w, schema->fields[f].help);
    }
    if (w->version == VERSION_COLUMNS) {
	WriteBytes(w, zeros, PAD8(w->written));
    }
    EndMember(w);
    return w;
}

/*
 * BlockRoom --
 *	Version 2: makes room for n more bytes of the block being built.
 * Results: where they go.
 */
static unsigned char *
BlockRoom(Rb_NativeWriter *w, size_t n)
{
    if (w->blkLen + n + 8 > w->blkCap) {
	w->blkCap = 2 * (w->blkLen + n + 8);
	w->blk = Rb_Realloc(w->blk, w->blkCap);
    }
    return w->blk + w->blkLen;
}

/*
 * BlockAppend --
 *	Version 2: appends n bytes and the zeros that make the block's
 *	length a multiple of 8.
 */
static void
BlockAppend(Rb_NativeWriter *w, const void *p, size_t n)
{
    unsigned char *at = BlockRoom(w, n);

    memcpy(at, p, n);
    memset(at + n, 0, PAD8(n));
    w->blkLen += n + PAD8(n);
}

/*
 * WriteColumnsBlock --
 *	Version 2: the block of the n records in w->cols, its new strings
 *	(count S, first..S-1 of the schema's ids) and each column encoded
 *	by RbColEncode.  Layout in doc/native.n.
 */
static void
WriteColumnsBlock(Rb_NativeWriter *w, int n, int64_t first, uint32_t count)
{
    Rb_Schema *s = w->schema;
    size_t table = BLOCK_HEAD, strBytes = 0;
    unsigned char *p;
    int64_t id;
    int f;

    w->blkLen = 0;
    p = BlockRoom(w, BLOCK_HEAD + 8 * (size_t)s->nfields);
    memset(p, 0, BLOCK_HEAD + 8 * (size_t)s->nfields);
    memcpy(p, BLOCK_MAGIC, 4);
    PutLe32(p + 8, (uint32_t)n);
    PutLe32(p + 12, count);
    w->blkLen = BLOCK_HEAD + 8 * (size_t)s->nfields;
    for (id = first; id < first + count; id++) {
	const char *text = Rb_SchemaString(s, id);
	size_t len = strlen(text);

	p = BlockRoom(w, 4 + len);
	PutLe32(p, (uint32_t)len);
	memcpy(p + 4, text, len);
	w->blkLen += 4 + len;
	strBytes += 4 + len;
    }
    p = BlockRoom(w, 0);
    memset(p, 0, PAD8(strBytes));
    w->blkLen += PAD8(strBytes);
    PutLe32(w->blk + 16, (uint32_t)strBytes);
    for (f = 0; f < s->nfields; f++) {
	const void *payload;
	size_t len;
	int kind = RbColEncode(w->coder, w->cols + (size_t)f * BLOCK_MAX, n,
		&payload, &len);

	PutLe32(w->blk + table + 8 * f, (uint32_t)kind);
	PutLe32(w->blk + table + 8 * f + 4, (uint32_t)len);
	BlockAppend(w, payload, len);
    }
    PutLe32(w->blk + 4, (uint32_t)w->blkLen);
    WriteBytes(w, w->blk, w->blkLen);
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
    int64_t maxId = -1, id, first = w->stringsWritten;
    uint32_t count;
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
    count = maxId >= first ? (uint32_t)(maxId + 1 - first) : 0;
    if (maxId >= first) {
	w->stringsWritten = maxId + 1;
    }
    w->records += n;
    if (w->version == VERSION_COLUMNS) {
	WriteColumnsBlock(w, n, first, count);
	return;
    }
    WriteBytes(w, BLOCK_MAGIC, 4);
    WriteU32(w, count);
    for (id = first; id < first + count; id++) {
	WriteString(w, Rb_SchemaString(s, id));
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
	Fail(w, "a batch of another schema");
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
	WriterError(w, err);
	return TCL_ERROR;
    }
    return TCL_OK;
}

/*
 * RbNativeWriterClose --
 *	Writes the end marker, closes the file and renames it to the path;
 *	after any failure removes it instead.
 * Results: TCL_OK, or TCL_ERROR with err set naming the path.
 * Side effects: frees w.
 */
int
RbNativeWriterClose(Rb_NativeWriter *w, Rb_Error *err)
{
    int rc, result = TCL_OK;

    WriteBytes(w, END_MAGIC, 4);
    if (w->version == VERSION_COLUMNS) {
	WriteU32(w, 0);
    }
    WriteU64(w, w->records);
    if (w->fp != NULL) {
	if (fclose(w->fp) != 0) {
	    Fail(w, strerror(errno));
	}
    } else {
	struct stat sb;

	rc = gzclose(w->gz);
	if (rc != Z_OK) {
	    Fail(w, rc == Z_ERRNO ? strerror(errno) : "gzclose failed");
	}
	/* The last member's bytes (a path written in place, a device or
	 * FIFO, has no length to charge). */
	if (w->tmpPath != NULL && stat(w->tmpPath, &sb) == 0) {
	    ChargeGz(w, (uint64_t)sb.st_size);
	}
    }
    if (!w->failed && w->tmpPath != NULL
	    && rename(w->tmpPath, w->path) != 0) {
	char why[200];

	snprintf(why, sizeof(why), "rename: %s", strerror(errno));
	Fail(w, why);
    }
    if (w->failed) {
	if (w->tmpPath != NULL) {
	    unlink(w->tmpPath);
	}
	WriterError(w, err);
	result = TCL_ERROR;
    }
    Rb_SchemaRelease(w->schema);
    RbColCoderFree(w->coder);
    free(w->blk);
    free(w->cols);
    if (w->tmpPath != NULL) {
	RbTempForget(w->tmpPath);
    }
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
    Fail(w, "abandoned");
    RbNativeWriterClose(w, &ignored);
}

/*
 * ---------------------------------------------------------------------
 * Reader.
 * ---------------------------------------------------------------------
 */

/*
 * Version 2 is read a block at a time into a Decoded: its columns the
 * DAG reads, each either in the memory map (a raw column) or decoded
 * into the storage after it.  A Walk makes them, on the decoding
 * thread (a ring of DECODE_AHEAD of them) or inline.
 */
enum { DEC_BLOCK, DEC_END, DEC_BAD, DEC_ERROR };

typedef struct Decoded {
    int status;			/* DEC_BLOCK, or how the blocks ended: */
    Rb_Error err;		/* DEC_ERROR: the error; DEC_BAD: msg is
				 * what is wrong with the block */
    int n;			/* Records. */
    uint64_t blockNo;		/* 1-based, from the window's first. */
    uint64_t offset;		/* The block's byte offset. */
    uint64_t before;		/* Records in the blocks before it. */
    const int64_t *col[RB_MAX_FIELDS];	/* NULL: not decoded. */
    uint64_t at[RB_MAX_FIELDS];	/* A raw column of a mapped file: its
				 * byte offset (it is read from there by
				 * pread), else 0. */
    unsigned char isConst[RB_MAX_FIELDS];	/* A constant column: */
    int64_t constant[RB_MAX_FIELDS];	/* its value (col unused). */
} Decoded;

/* Bytes of a Decoded before its storage (BLOCK_MAX values per field). */
#define DECODED_HEAD	((sizeof(Decoded) + 63) & ~(size_t)63)

typedef struct Walk {
    const char *path;
    const unsigned char *map;	/* The whole file, or NULL: blocks come */
    uint64_t size;		/* from in, through buf. */
    Rb_Input *in;
    unsigned char *buf;
    size_t bufCap;
    uint64_t pos;		/* Map: the next block's offset. */
    uint64_t first;		/* The first block's offset. */
    int windowed;		/* A split run's range: the blocks that */
    uint64_t winBegin, winEnd;	/* begin in [winBegin, winEnd). */
    uint64_t blockNo, inBlocks;	/* Blocks and records walked. */
    uint64_t fields;		/* Decoded: RB_FIELD_BIT of each. */
    Rb_Reader *r;		/* Inline: strings are interned through it
				 * (NULL on the thread, whose schema has
				 * no string fields). */
    struct NativeState *st;
    RbColCoder *coder;
    int ended;			/* The thread has made its last. */
    const Rb_Schema *schema;	/* The file's (for PreadBlock). */
    int fd;			/* Pread walk (a mapped file of raw
				 * columns): the file, else -1. */
    uint64_t bufAt;		/* Pread walk: the file offset of buf. */
} Walk;

typedef struct NativeState {
    int version;
    int zstd;			/* Version 2: written with zstd. */
    int64_t *block;		/* Version 1: current block, field f at
				 * f * blockN. */
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

    /* Version 2. */
    Walk walk;
    int started;		/* The walk has begun (first next call). */
    Rb_Ring *ring;		/* The decoding thread, or NULL: inline. */
    Decoded *cur;		/* The current block. */
    Decoded *inlineDec;
    struct RingWalk *ringWalk;	/* The thread's walk. */
    unsigned char *map;
    size_t mapLen;
    int fd;			/* The mapped file's descriptor. */
    unsigned char *gapBuf;	/* RAW_GAP bytes: what lies between raw
				 * columns read together (ReadRaw). */
    RbAbsentBatches absent;	/* Batches whose columns not decoded are
				 * absent (RbSetAbsent). */
    const Rb_Batch *constIn[RB_MAX_FIELDS];	/* Column f of this batch
						 * holds constOf[f] over its
						 * capacity. */
    int64_t constOf[RB_MAX_FIELDS];
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
 * OpenWalk --
 *	Version 2, its header read: maps an uncompressed regular file
 *	(blocks are then read in place), else leaves the blocks to come
 *	through the input stream.
 * Results: TCL_OK.
 */
static int
OpenWalk(Rb_Reader *r, NativeState *st)
{
    Walk *w = &st->walk;
    int fd = RbInputPlainFd(r->in);
    struct stat sb;

    w->path = Rb_InputPath(r->in);
    w->in = r->in;
    w->fd = -1;
    w->first = w->pos = Rb_InputOffset(r->in);
    if (fd >= 0 && fstat(fd, &sb) == 0 && sb.st_size > 0
	    && (uint64_t)sb.st_size == (size_t)sb.st_size) {
	void *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE,
		fd, 0);

	if (map != MAP_FAILED) {
	    madvise(map, (size_t)sb.st_size, MADV_SEQUENTIAL);
	    st->map = map;
	    st->mapLen = (size_t)sb.st_size;
	    st->fd = fd;
	    w->map = map;
	    w->size = (uint64_t)sb.st_size;
	}
    }
    return TCL_OK;
}

/*
 * AddString --
 *	A string of the file's table: interned into the schema, its id
 *	mapped.
 */
static void
AddString(Rb_Reader *r, NativeState *st, const char *text, size_t len)
{
    if (st->nstr == st->strCap) {
	st->strCap = st->strCap ? 2 * st->strCap : 256;
	st->strMap = Rb_ReallocArray(st->strMap, st->strCap, sizeof(int64_t));
    }
    st->strMap[st->nstr++] = Rb_SchemaIntern(r->schema, text, len);
}

/*
 * WalkFail --
 *	Ends the walk on d: status DEC_BAD (a broken block; fmt says what is
 *	wrong) or DEC_ERROR with code (the whole message).
 */
static void
WalkFail(Decoded *d, int status, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void
WalkFail(Decoded *d, int status, const char *code, const char *fmt, ...)
{
    va_list ap;

    d->status = status;
    snprintf(d->err.code, sizeof(d->err.code), "%s", code);
    va_start(ap, fmt);
    vsnprintf(d->err.msg, sizeof(d->err.msg), fmt, ap);
    va_end(ap);
}

static int	WalkBytes(Walk *w, Decoded *d, const unsigned char **p,
		    uint32_t *len);

/*
 * HeadInMap, LengthOk --
 *	Of a mapped file: whether the next block's first 8 bytes (or the end
 *	marker's) are there; whether a block length n is one a block can
 *	have and the file holds it from w->pos.
 * Results: 1, or 0 with d's status set.
 */
static int
HeadInMap(Walk *w, Decoded *d)
{
    if (w->size - w->pos < 8) {
	WalkFail(d, DEC_ERROR, "RUBICON READER TRUNCATED", "%s: the data "
		"ends before block %llu or the end marker, at byte offset "
		"%llu", w->path, (unsigned long long)d->blockNo,
		(unsigned long long)w->pos);
	return 0;
    }
    return 1;
}

static int
LengthOk(Walk *w, Decoded *d, uint32_t n)
{
    if (n < BLOCK_HEAD || n % 8 != 0 || n > (1u << 30)) {
	WalkFail(d, DEC_BAD, "", "a block length of %u bytes", n);
	return 0;
    }
    if (w->map != NULL && w->size - w->pos < n) {
	WalkFail(d, DEC_ERROR, "RUBICON READER TRUNCATED", "%s: the data "
		"ends inside block %llu (%u bytes from byte offset %llu; "
		"the file has %llu)", w->path,
		(unsigned long long)d->blockNo, n,
		(unsigned long long)w->pos, (unsigned long long)w->size);
	return 0;
    }
    return 1;
}

/*
 * PreadAt --
 *	Reads n bytes at file offset off into buf.
 * Results: 1, or 0 (the file ended, or an error) with d's status set.
 */
static int
PreadAt(Walk *w, Decoded *d, void *buf, size_t n, uint64_t off)
{
    ssize_t got = pread(w->fd, buf, n, (off_t)off);

    if (got == (ssize_t)n) {
	return 1;
    }
    WalkFail(d, DEC_ERROR, "RUBICON READER TRUNCATED", "%s: cannot read "
	    "block %llu (%zu bytes at byte offset %llu): %s", w->path,
	    (unsigned long long)d->blockNo, n, (unsigned long long)off,
	    got < 0 ? strerror(errno) : "the file is shorter");
    return 0;
}

/*
 * PreadBlock --
 *	WalkBytes for a mapped file of raw columns: reads the next block's
 *	head, column table and strings, and each column DecodeBlock will
 *	decode, into w->buf at their places in the block, with pread: not
 *	the raw columns, which ReadRaw reads into the batch.  Through the
 *	map, the head and each constant column cost a page fault, which
 *	maps the pages around as well.
 * Results: as WalkBytes.
 */
static int
PreadBlock(Walk *w, Decoded *d, const unsigned char **p, uint32_t *len)
{
    unsigned char head[END_LEN];
    const Rb_Schema *s = w->schema;
    uint32_t n, recs, strBytes, kind, clen;
    size_t q, table = BLOCK_HEAD + 8 * (size_t)s->nfields;
    int f;

    if (!HeadInMap(w, d) || !PreadAt(w, d, head, 8, w->pos)) {
	return 0;
    }
    if (memcmp(head, BLOCK_MAGIC, 4) != 0) {
	/* The end marker, or no magic: as the map sees them. */
	w->fd = -1;
	return WalkBytes(w, d, p, len);
    }
    n = GetLe32(head + 4);
    if (!LengthOk(w, d, n)) {
	return 0;
    }
    if (w->bufCap < n) {
	free(w->buf);
	w->buf = Rb_Alloc(n);
	w->bufCap = n;
    }
    memcpy(w->buf, head, 8);
    if (!PreadAt(w, d, w->buf + 8, (n < table ? n : table) - 8,
	    w->pos + 8)) {
	return 0;
    }
    if (n < table) {
	/* Too short for its column table: DecodeBlock says so. */
	goto done;
    }
    recs = GetLe32(w->buf + 8);
    strBytes = GetLe32(w->buf + 16);
    q = table;
    if (strBytes > 0) {
	if (strBytes > n - table) {
	    WalkFail(d, DEC_BAD, "", "its strings run past its end");
	    return 0;
	}
	if (!PreadAt(w, d, w->buf + q, strBytes, w->pos + q)) {
	    return 0;
	}
    }
    q += strBytes + PAD8(strBytes);
    for (f = 0; f < s->nfields && q <= n; f++) {
	int raw;

	kind = GetLe32(w->buf + BLOCK_HEAD + 8 * f);
	clen = GetLe32(w->buf + BLOCK_HEAD + 8 * f + 4);
	if (clen > n - q) {
	    break;			/* DecodeBlock says so. */
	}
#if __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__
	raw = kind == RB_NCOL_RAW && clen == sizeof(int64_t) * recs
		&& s->fields[f].type != RB_FT_STRING;
#else
	raw = 0;
#endif
	if ((w->fields & RB_FIELD_BIT(f)) && !raw && clen > 0
		&& !PreadAt(w, d, w->buf + q, clen, w->pos + q)) {
	    return 0;
	}
	q += clen + PAD8(clen);
    }
  done:
    w->bufAt = w->pos;
    w->pos += n;
    *p = w->buf;
    *len = n;
    return 1;
}

/*
 * WalkBytes --
 *	The next block's bytes (*p, *len; in the map, or read into w->buf),
 *	or the end marker's, which ends the walk.
 * Results: 1 a block; 0 the end or a failure, with d's status set.
 */
static int
WalkBytes(Walk *w, Decoded *d, const unsigned char **p, uint32_t *len)
{
    unsigned char head[END_LEN];
    const unsigned char *at = head;
    uint64_t total;
    uint32_t n;
    Rb_Error err;
    int rc;

    if (w->fd >= 0) {
	return PreadBlock(w, d, p, len);
    }
    if (w->map != NULL) {
	if (!HeadInMap(w, d)) {
	    return 0;
	}
	at = w->map + w->pos;
    } else if ((rc = Rb_InputReadFull(w->in, head, 8, &err)) != 1) {
	if (rc == 0) {
	    WalkFail(d, DEC_ERROR, "RUBICON READER TRUNCATED", "%s: the data "
		    "ends before block %llu or the end marker, at byte offset "
		    "%llu", w->path, (unsigned long long)d->blockNo,
		    (unsigned long long)d->offset);
	} else {
	    d->status = DEC_ERROR;
	    d->err = err;
	}
	return 0;
    }
    if (memcmp(at, END_MAGIC, 4) == 0) {
	if (w->map != NULL ? w->size - w->pos < END_LEN
		: Rb_InputReadFull(w->in, head + 8, 8, &err) != 1) {
	    WalkFail(d, DEC_ERROR, "RUBICON READER TRUNCATED", "%s: the data "
		    "ends inside the end marker at byte offset %llu", w->path,
		    (unsigned long long)d->offset);
	    return 0;
	}
	total = GetLe64(at + 8);
	d->status = DEC_END;
	if (total != w->inBlocks && !(w->windowed
		&& w->winBegin > w->first)) {
	    WalkFail(d, DEC_BAD, "", "the end marker counts %llu records, "
		    "the blocks hold %llu", (unsigned long long)total,
		    (unsigned long long)w->inBlocks);
	} else if (w->map != NULL ? w->size - w->pos > END_LEN
		: Rb_InputRead(w->in, head, 1, &err) != 0) {
	    WalkFail(d, DEC_BAD, "", "data follows the end marker");
	}
	return 0;
    }
    if (memcmp(at, BLOCK_MAGIC, 4) != 0) {
	WalkFail(d, DEC_BAD, "", "no block magic");
	return 0;
    }
    n = GetLe32(at + 4);
    if (!LengthOk(w, d, n)) {
	return 0;
    }
    if (w->map != NULL) {
	w->pos += n;
    } else {
	if (w->bufCap < n) {
	    free(w->buf);
	    w->buf = Rb_Alloc(n);
	    w->bufCap = n;
	}
	memcpy(w->buf, head, 8);
	if ((rc = Rb_InputReadFull(w->in, w->buf + 8, n - 8, &err)) != 1) {
	    if (rc == 0 || strcmp(err.code, "RUBICON READER TRUNCATED") == 0) {
		WalkFail(d, DEC_ERROR, "RUBICON READER TRUNCATED", "%s: the "
			"data ends inside block %llu (%u bytes from byte "
			"offset %llu)", w->path,
			(unsigned long long)d->blockNo, n,
			(unsigned long long)d->offset);
	    } else {
		d->status = DEC_ERROR;
		d->err = err;
	    }
	    return 0;
	}
	at = w->buf;
    }
    *p = at;
    *len = n;
    return 1;
}

/*
 * DecodeBlock --
 *	Decodes the block p[0..len) into d: its strings (inline only), and
 *	the columns in w->fields.  A raw column of a mapped file is used
 *	where it lies.
 * Results: 1, or 0 with d's status DEC_BAD.
 */
static int
DecodeBlock(Walk *w, const Rb_Schema *s, Decoded *d, const unsigned char *p,
	uint32_t len)
{
    int64_t *store = (int64_t *)((char *)d + DECODED_HEAD);
    uint32_t n = GetLe32(p + 8), count = GetLe32(p + 12);
    uint32_t strBytes = GetLe32(p + 16), kind, clen, i;
    size_t q = BLOCK_HEAD + 8 * (size_t)s->nfields;
    char why[256];
    int f;

    if (n < 1 || n > BLOCK_MAX) {
	WalkFail(d, DEC_BAD, "", "record count out of range");
	return 0;
    }
    if (q > len || strBytes > len - q) {
	WalkFail(d, DEC_BAD, "", "its strings run past its end");
	return 0;
    }
    if (count > 0) {
	const unsigned char *at = p + q, *end = at + strBytes;

	if (w->r == NULL || !w->st->stringFields) {
	    WalkFail(d, DEC_BAD, "", "strings in a schema without string "
		    "fields");
	    return 0;
	}
	if (count > STRINGS_MAX - w->st->nstr) {
	    WalkFail(d, DEC_BAD, "", "too many strings");
	    return 0;
	}
	for (i = 0; i < count; i++) {
	    uint32_t slen;

	    if (end - at < 4 || (slen = GetLe32(at)) > (size_t)(end - at) - 4
		    || slen > STRING_MAX_LEN || memchr(at + 4, '\0', slen)) {
		WalkFail(d, DEC_BAD, "", "string %u of the block is broken",
			i + 1);
		return 0;
	    }
	    AddString(w->r, w->st, (const char *)at + 4, slen);
	    at += 4 + slen;
	}
    }
    q += strBytes + PAD8(strBytes);
    for (f = 0; f < s->nfields; f++) {
	const unsigned char *src = p + q;
	int64_t *dst = store + (size_t)f * BLOCK_MAX;

	kind = GetLe32(p + BLOCK_HEAD + 8 * f);
	clen = GetLe32(p + BLOCK_HEAD + 8 * f + 4);
	if (q > len || clen > len - q) {
	    WalkFail(d, DEC_BAD, "", "column \"%s\" runs past its end",
		    s->fields[f].name);
	    return 0;
	}
	q += clen + PAD8(clen);
	d->col[f] = NULL;
	d->at[f] = 0;
	if (!(w->fields & RB_FIELD_BIT(f))) {
	    if (kind >= RB_NCOL_KINDS) {
		WalkFail(d, DEC_BAD, "", "column \"%s\": unknown encoding %u",
			s->fields[f].name, kind);
		return 0;
	    }
	    continue;
	}
	d->isConst[f] = kind == RB_NCOL_CONST && clen == sizeof(int64_t)
		&& s->fields[f].type != RB_FT_STRING;
	if (d->isConst[f]) {
	    d->constant[f] = (int64_t)GetLe64(src);
	    d->col[f] = dst;
	    continue;
	}
#if __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__
	if (kind == RB_NCOL_RAW && clen == sizeof(int64_t) * n
		&& s->fields[f].type != RB_FT_STRING) {
	    /* 8-byte aligned: blocks and columns start at multiples of 8. */
	    if (w->fd >= 0) {
		/* Not read (PreadBlock): ReadRaw reads it from the file. */
		d->at[f] = w->bufAt + (uint64_t)(src - p);
		d->col[f] = (const int64_t *)(const void *)(w->map + d->at[f]);
	    } else {
		d->col[f] = (const int64_t *)(const void *)src;
		d->at[f] = w->map != NULL ? (uint64_t)(src - w->map) : 0;
	    }
	    continue;
	}
#endif
	if (!RbColDecode(w->coder, (int)kind, src, clen, dst, (int)n, why,
		sizeof(why))) {
	    WalkFail(d, DEC_BAD, "", "column \"%s\": %s", s->fields[f].name,
		    why);
	    return 0;
	}
	if (s->fields[f].type == RB_FT_STRING) {
	    for (i = 0; i < n; i++) {
		if (dst[i] == RB_ABSENT) {
		    continue;
		}
		if (dst[i] < 0 || dst[i] >= w->st->nstr) {
		    WalkFail(d, DEC_BAD, "", "a string id that was never "
			    "defined");
		    return 0;
		}
		dst[i] = w->st->strMap[dst[i]];
	    }
	}
	d->col[f] = dst;
    }
    if (q != len) {
	WalkFail(d, DEC_BAD, "", "its columns end at byte %zu of its %u",
		q, len);
	return 0;
    }
    d->n = (int)n;
    return 1;
}

/*
 * WalkNext --
 *	Makes d the next block of the walk (of its window, in a split run),
 *	or says how the walk ended (d->status).
 */
static void
WalkNext(Walk *w, const Rb_Schema *s, Decoded *d)
{
    const unsigned char *p;
    uint32_t len;

    for (;;) {
	d->status = DEC_BLOCK;
	d->n = 0;
	d->blockNo = w->blockNo + 1;
	d->offset = w->map != NULL ? w->pos : Rb_InputOffset(w->in);
	d->before = w->inBlocks;
	if (w->windowed && d->offset >= w->winEnd) {
	    d->status = DEC_END;	/* the next rank's blocks */
	    return;
	}
	if (!WalkBytes(w, d, &p, &len)) {
	    return;
	}
	if (w->windowed && d->offset < w->winBegin) {
	    continue;			/* an earlier rank's block */
	}
	if (DecodeBlock(w, s, d, p, len)) {
	    w->blockNo++;
	    w->inBlocks += (uint64_t)d->n;
	}
	return;
    }
}

/*
 * DecodeInRing --
 *	The decoding thread's producer: the next block into the ring's
 *	chunk, or the end of the walk as its last chunk.
 */
typedef struct RingWalk {
    Walk *walk;
    const Rb_Schema *schema;
} RingWalk;


static size_t
DecodeInRing(void *cd, char *dst, size_t cap)
{
    RingWalk *rw = cd;
    Decoded *d = (Decoded *)(void *)dst;

    if (rw->walk->ended) {
	return 0;
    }
    WalkNext(rw->walk, rw->schema, d);
    if (d->status != DEC_BLOCK) {
	rw->walk->ended = 1;
    }
    return cap;
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
    unsigned char head[20], pad[8];
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
    if (version != VERSION_GZIP && version != VERSION_COLUMNS) {
	Rb_SetError(err, "RUBICON READER FORMAT", "%s: native format version "
		"%u is not supported (only %d and %d)", Rb_InputPath(r->in),
		version, VERSION_GZIP, VERSION_COLUMNS);
	return TCL_ERROR;
    }
    st->version = (int)version;
    if (version == VERSION_GZIP) {
	r->epochNs = (int64_t)GetLe64(head + 12);
    } else {
	st->zstd = GetLe32(head + 12) == 1;
	memcpy(pad, head + 16, 4);
	if (ReadPart(r, pad + 4, 4, "native header", err) != 1) {
	    return TCL_ERROR;
	}
	r->epochNs = (int64_t)GetLe64(pad);
    }
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
    if (version == VERSION_GZIP) {
	st->block = Rb_AllocArray(BLOCK_MAX * s->nfields, sizeof(int64_t));
	return TCL_OK;
    }
    /* Zeros to a multiple of 8 bytes: blocks are 8-byte aligned. */
    if (ReadPart(r, pad, PAD8(Rb_InputOffset(r->in)), "native header",
	    err) != 1) {
	return TCL_ERROR;
    }
    return OpenWalk(r, st);
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
 * StartWalk --
 *	Version 2, at the first next call (when r->fields, what the DAG
 *	reads, and a split run's window are known): decodes those fields
 *	and the time, on a thread of its own for a mapped zstd file without
 *	string fields when a second core is online and RUBICON_THREADS is
 *	not 0, else inline.
 * Results: TCL_OK, or TCL_ERROR with st->pending set (a window of a file
 *	that is not mapped).
 */
static int
StartWalk(Rb_Reader *r, NativeState *st)
{
    Walk *w = &st->walk;
    int nf = r->schema->nfields;
    uint64_t all = nf >= 64 ? RB_ALL_FIELDS : RB_FIELD_BIT(nf) - 1;
    size_t chunk = DECODED_HEAD + sizeof(int64_t) * BLOCK_MAX * nf;
    const char *env = getenv("RUBICON_THREADS");

    st->started = 1;
    w->fields = (r->fields | RB_FIELD_BIT(RB_IO_TIME)) & all;
    w->coder = RbColCoderCreate(0);
    if (RbInputBlockWindow(r->in, &w->winBegin, &w->winEnd)) {
	if (w->map == NULL) {
	    Rb_SetError(&st->pending, "RUBICON READER SPLIT", "%s: cannot be "
		    "read from the middle", w->path);
	    return TCL_ERROR;
	}
	w->windowed = 1;
    }
    if (w->map != NULL && st->zstd && !st->stringFields
	    && sysconf(_SC_NPROCESSORS_ONLN) >= 2
	    && (env == NULL || strcmp(env, "0") != 0)) {
	RingWalk *rw = Rb_Alloc(sizeof(*rw));

	rw->walk = w;
	rw->schema = r->schema;
	st->ring = RbRingStart(DecodeInRing, rw, chunk, DECODE_AHEAD);
	if (st->ring != NULL) {
	    st->ringWalk = rw;
	    return TCL_OK;
	}
	free(rw);
    }
    w->r = r;
    w->st = st;
    w->schema = r->schema;
    if (w->map != NULL && !st->zstd) {
	w->fd = st->fd;
    }
    st->inlineDec = Rb_Alloc(chunk);
    return TCL_OK;
}

/*
 * NextDecoded --
 *	Makes st->cur the next decoded block.
 * Results: 1 a block, 0 the end, -1 on error (st->pending set).
 */
static int
NextDecoded(Rb_Reader *r, NativeState *st)
{
    Decoded *d;
    size_t len;

    if (st->ring != NULL) {
	if (st->cur != NULL) {
	    RbRingRelease(st->ring);
	}
	st->cur = (Decoded *)(void *)RbRingPeek(st->ring, &len);
	if (st->cur == NULL) {
	    return 0;
	}
    } else {
	WalkNext(&st->walk, r->schema, st->inlineDec);
	st->cur = st->inlineDec;
    }
    d = st->cur;
    st->blockNo = d->blockNo;
    st->blockOffset = d->offset;
    st->inBlocks = d->before;
    switch (d->status) {
    case DEC_BLOCK:
	st->blockN = d->n;
	st->blockPos = 0;
	st->inBlocks += (uint64_t)d->n;
	return 1;
    case DEC_END:
	return 0;
    case DEC_BAD:
	return BadBlock(r, st, d->err.msg);
    default:
	st->pending = d->err;
	return -1;
    }
}

/*
 * PrepareAbsent --
 *	The first time b comes, sets the columns not decoded to RB_ABSENT
 *	over its whole capacity: they are never written, so they stay so
 *	(RbSetAbsent).
 */
static void
PrepareAbsent(NativeState *st, Rb_Batch *b)
{
    RbSetAbsent(&st->absent, b, ~st->walk.fields);
}

/*
 * DropJumps --
 *	The -maxgap guard over the records from to b->n - 1 just copied
 *	into b (native files carry no per-record check of their own): a
 *	record whose time is later than the latest before it by more than
 *	-maxgap is "time-jump" (Rb_ReaderTimeJump) and is removed from the
 *	batch, the records after it moving down.  first is the file's
 *	record number of record from, for errors; the byte offset named is
 *	that of the block the records came from.  A time before the latest
 *	(native files may hold any order) is delivered and leaves the
 *	latest as it is.
 * Results: 0, or -1 when reading must stop (st->pending set, b->n cut
 *	to the records before the bad one).
 */
static int
DropJumps(Rb_Reader *r, NativeState *st, Rb_Batch *b, int from,
	uint64_t first)
{
    const int64_t *time = b->col[0];
    int64_t last = r->lastTime;
    int i, w, f, nf = r->schema->nfields;

    for (i = from; i < b->n; i++) {
	if (time[i] < last) {
	    continue;
	}
	if (r->maxGap > 0 && last != INT64_MIN && (uint64_t)time[i]
		- (uint64_t)last > (uint64_t)r->maxGap) {
	    break;
	}
	last = time[i];
    }
    if (i == b->n) {
	r->lastTime = last;
	return 0;
    }
    /* The slow path, from the first jump on. */
    for (w = i; i < b->n; i++) {
	int rc = 0;

	if (time[i] >= last) {
	    r->recordNo = first + (uint64_t)(i - from);
	    rc = Rb_ReaderTimeJump(r, &st->pending, time[i], last,
		    st->blockOffset + FileBase(r));
	    if (rc < 0) {
		b->n = w;
		r->lastTime = last;
		return -1;
	    }
	    if (rc == 0) {
		last = time[i];
	    }
	}
	if (rc > 0) {
	    continue;
	}
	if (w != i) {
	    for (f = 0; f < nf; f++) {
		b->col[f][w] = b->col[f][i];
	    }
	}
	w++;
    }
    b->n = w;
    r->lastTime = last;
    return 0;
}

/*
 * ReadRaw --
 *	Copies raw columns of a mapped file into the batch: pread copies
 *	from the page cache, as read(2) does for cat, where the map would
 *	take a page fault for every few pages first.  The pieces (in file
 *	order) go in as few preadv calls as their gaps allow: a gap of at
 *	most RAW_GAP bytes (the other columns between, or the rest of a
 *	block partly delivered) is read into scratch, one system call for
 *	the lot rather than one per column.  Any short read falls back to
 *	the map.
 * Results: none.
 */
typedef struct RawPiece {
    int64_t *to;		/* In the batch. */
    const int64_t *src;		/* In the map. */
    uint64_t off;		/* The file offset of src. */
    size_t bytes;
} RawPiece;

#define RAW_GAP 65536

static void
ReadRaw(NativeState *st, const RawPiece *pc, int n)
{
    struct iovec iov[2 * RB_MAX_FIELDS];	/* Below Linux's IOV_MAX, 1024. */
    int i = 0, j, k, niov;

    if (n > 1 && st->gapBuf == NULL) {
	st->gapBuf = Rb_Alloc(RAW_GAP);
    }
    while (i < n) {
	uint64_t end = pc[i].off;

	niov = 0;
	for (j = i; j < n; j++) {
	    if (j > i) {
		if (pc[j].off < end || pc[j].off - end > RAW_GAP
			|| niov + 2 > (int)(sizeof(iov) / sizeof(iov[0]))) {
		    break;
		}
		if (pc[j].off > end) {
		    iov[niov].iov_base = st->gapBuf;
		    iov[niov++].iov_len = (size_t)(pc[j].off - end);
		}
	    }
	    iov[niov].iov_base = pc[j].to;
	    iov[niov++].iov_len = pc[j].bytes;
	    end = pc[j].off + pc[j].bytes;
	}
	if (preadv(st->fd, iov, niov, (off_t)pc[i].off)
		!= (ssize_t)(end - pc[i].off)) {
	    for (k = i; k < j; k++) {
		memcpy(pc[k].to, pc[k].src, pc[k].bytes);
	    }
	}
	i = j;
    }
}

/*
 * NextColumns --
 *	Version 2's next: copies the decoded columns of the current block
 *	into the batch, taking blocks as needed.
 * Results: as NativeNext.
 */
static int
NextColumns(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    NativeState *st = r->state;
    RawPiece raw[RB_MAX_FIELDS];
    int start = b->n, k, k2, f, rc, from, nraw = 0;
    uint64_t first;

    if (!st->started && StartWalk(r, st) != TCL_OK) {
	st->done = 1;
	*err = st->pending;
	return -1;
    }
    PrepareAbsent(st, b);
    while (!st->done && b->n < b->cap) {
	if (st->blockPos == st->blockN) {
	    rc = NextDecoded(r, st);
	    if (rc <= 0) {
		if (rc == 0) {
		    st->done = 1;
		    break;
		}
		return RbReaderFail(&st->done, &st->failed, &st->pending, b,
			start, err);
	    }
	}
	k = st->blockN - st->blockPos;
	if (k > b->cap - b->n) {
	    k = b->cap - b->n;
	}
	for (f = 0; f < r->schema->nfields; f++) {
	    size_t bytes = sizeof(int64_t) * k;
	    int64_t *to = b->col[f] + b->n;
	    int i;

	    if (st->cur->col[f] == NULL) {
		continue;
	    }
	    if (st->cur->isConst[f]) {
		int64_t v = st->cur->constant[f];

		/* Filled over the batch's capacity once, then left as long
		 * as this reader writes nothing else there: nothing
		 * downstream writes a reader's batch, but a later trace's
		 * times are moved in place (RebaseTimes, fields 0-2), so
		 * those are kept only when absent, which it leaves. */
		if (st->constIn[f] == b && st->constOf[f] == v) {
		    continue;
		}
		if (v == RB_ABSENT || f > RB_IO_FINISH) {
		    to = b->col[f];
		    k2 = b->cap;
		    st->constIn[f] = b;
		    st->constOf[f] = v;
		} else {
		    k2 = k;
		    st->constIn[f] = NULL;
		}
		for (i = 0; i < k2; i++) {
		    to[i] = v;
		}
		continue;
	    }
	    st->constIn[f] = NULL;
	    if (st->cur->at[f] == 0) {
		memcpy(to, st->cur->col[f] + st->blockPos, bytes);
		continue;
	    }
	    raw[nraw].to = to;
	    raw[nraw].src = st->cur->col[f] + st->blockPos;
	    raw[nraw].off = st->cur->at[f] + sizeof(int64_t) * st->blockPos;
	    raw[nraw].bytes = bytes;
	    nraw++;
	}
	ReadRaw(st, raw, nraw);
	nraw = 0;
	from = b->n;
	b->n += k;
	first = st->inBlocks - (uint64_t)(st->blockN - st->blockPos) + 1;
	st->blockPos += k;
	if (DropJumps(r, st, b, from, first) < 0) {
	    return RbReaderFail(&st->done, &st->failed, &st->pending, b,
		    start, err);
	}
    }
    r->recordNo = st->inBlocks - (uint64_t)(st->blockN - st->blockPos);
    return b->n - start;
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
    int start = b->n, k, f, rc, from;
    uint64_t first;

    if (st->failed) {
	st->failed = 0;
	*err = st->pending;
	return -1;
    }
    if (b->n == 0) {
	b->firstRecord = r->records + 1;
    }
    if (st->version == VERSION_COLUMNS) {
	return st->done ? 0 : NextColumns(r, b, err);
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
	from = b->n;
	b->n += k;
	first = st->inBlocks - (uint64_t)(st->blockN - st->blockPos) + 1;
	st->blockPos += k;
	if (DropJumps(r, st, b, from, first) < 0) {
	    st->done = 1;
	    if (b->n > start) {
		st->failed = 1;
		break;
	    }
	    *err = st->pending;
	    return -1;
	}
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

    if (st->ring != NULL) {
	RbRingStop(st->ring);
    }
    free(st->ringWalk);
    free(st->inlineDec);
    RbColCoderFree(st->walk.coder);
    free(st->walk.buf);
    free(st->gapBuf);
    if (st->map != NULL) {
	munmap(st->map, st->mapLen);
    }
    free(st->block);
    free(st->strMap);
}

/*
 * RbNativeSplittable --
 *	Whether a split run may cut r's file into ranges of blocks: a
 *	version 1 file that is gzip (a member per block), or a mapped
 *	version 2 file, without string fields (a later block may use
 *	strings an earlier one defined).
 */
int
RbNativeSplittable(const Rb_Reader *r)
{
    const NativeState *st = r->state;

    if (r->cls != &Rb_NativeReaderClass || st->stringFields) {
	return 0;
    }
    return st->version == VERSION_GZIP
	    ? strcmp(Rb_InputCompression(r->in), "gzip") == 0
	    : st->map != NULL;
}

const Rb_ReaderClass Rb_NativeReaderClass = {
    "native",
    "Rubicon's native format (columnar int64 blocks, zstd, raw or gzip)",
    sizeof(NativeState),
    NativeSniff,
    NativeOpen,
    NativeNext,
    NativeClose,
};
