/*
 * input.c --
 *
 *	Rb_Input: a byte stream over a trace file that is plain, gzip or
 *	bzip2, told apart by magic bytes.  Decompressed bytes land in one
 *	growable buffer that Read, Peek and GetLine consume from; the
 *	uncompressed offset and the line number are kept for error messages.
 *
 *	The decompressor (Produce) writes into a caller-given region and
 *	touches no consumer state, so it can later run on a second thread
 *	filling a queue of chunks without changing the consumer side.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <bzlib.h>
#include "core/rbInt.h"

#define CHUNK (1 << 20)		/* Size of raw reads and of the buffer. */
#define DIRECT_MIN (1 << 16)	/* Reads this large bypass the buffer. */

typedef enum { COMP_NONE, COMP_GZIP, COMP_BZIP2 } Compression;

struct Rb_Input {
    char *path;
    int fd;
    Compression comp;

    /* Compressed bytes read from the file but not yet decompressed. */
    unsigned char *raw;
    size_t rawPos, rawLen;
    int rawEof;			/* read() returned 0. */
    uint64_t rawOffset;		/* Compressed bytes read so far. */

    z_stream z;
    bz_stream bz;
    int streamOpen;		/* z or bz initialized. */
    int streamEnded;		/* Last member ended cleanly. */

    /* Decompressed bytes: buf[pos, len) not yet consumed. */
    char *buf;
    size_t pos, len, cap;
    uint64_t bufBase;		/* Stream offset of buf[0]. */
    uint64_t produced;		/* Decompressed bytes produced so far. */
    int eof;			/* No more bytes will come. */
    int failed;			/* A sticky error is in failure. */
    Rb_Error failure;

    uint64_t lineNo;
};

/*
 * SetFailure --
 *	Records a sticky error: the bytes produced before it stay readable,
 *	then every read reports it.
 */
static void
SetFailure(Rb_Input *in, const char *code, const char *what)
{
    in->failed = 1;
    in->eof = 1;
    Rb_SetError(&in->failure, code, "%s: %s", in->path, what);
}

/*
 * ReadFile --
 *	Reads up to cap bytes of the file into dst.
 * Results: bytes read, 0 at end of file, -1 on a read error (failure
 *	set).
 */
static ssize_t
ReadFile(Rb_Input *in, void *dst, size_t cap)
{
    ssize_t n;

    do {
	n = read(in->fd, dst, cap);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
	char what[512];

	snprintf(what, sizeof(what), "read error after %llu uncompressed "
		"bytes: %s", (unsigned long long)in->produced, strerror(errno));
	SetFailure(in, "RUBICON READER IO", what);
	return -1;
    }
    in->rawOffset += (uint64_t)n;
    if (n == 0) {
	in->rawEof = 1;
    }
    return n;
}

/*
 * FillRaw --
 *	Reads the next chunk of compressed bytes if the raw buffer is used
 *	up.
 * Results: 0 ok (possibly at end of file), -1 on a read error (failure
 *	set).
 */
static int
FillRaw(Rb_Input *in)
{
    ssize_t n;

    if (in->rawPos < in->rawLen || in->rawEof) {
	return 0;
    }
    n = ReadFile(in, in->raw, CHUNK);
    if (n < 0) {
	return -1;
    }
    in->rawPos = 0;
    in->rawLen = (size_t)n;
    return 0;
}

/*
 * StreamFailure --
 *	Sets the failure for a compressed stream that ends too early
 *	(truncated) or is corrupt (detail says how).
 */
static void
StreamFailure(Rb_Input *in, int truncated, const char *detail)
{
    char what[512];
    const char *kind = in->comp == COMP_GZIP ? "gzip" : "bzip2";

    if (truncated) {
	snprintf(what, sizeof(what), "%s data truncated after %llu "
		"uncompressed bytes", kind, (unsigned long long)in->produced);
	SetFailure(in, "RUBICON READER TRUNCATED", what);
    } else {
	snprintf(what, sizeof(what), "corrupt %s data (%s) after %llu "
		"uncompressed bytes, near compressed byte %llu", kind, detail,
		(unsigned long long)in->produced,
		(unsigned long long)(in->rawOffset - (in->rawLen - in->rawPos)));
	SetFailure(in, "RUBICON READER CORRUPT", what);
    }
}

/*
 * NextMember --
 *	After a compressed stream ended, decides whether another member
 *	follows (concatenated gzip or bzip2 files) and restarts the
 *	decompressor for it.
 * Results: 1 a new member started, 0 clean end of data, -1 failure set.
 */
static int
NextMember(Rb_Input *in)
{
    unsigned char c;

    if (FillRaw(in) < 0) {
	return -1;
    }
    if (in->rawPos == in->rawLen) {
	return 0;
    }
    c = in->raw[in->rawPos];
    if (in->comp == COMP_GZIP) {
	if (c != 0x1f) {
	    StreamFailure(in, 0, "trailing bytes after the last gzip member");
	    return -1;
	}
	inflateReset(&in->z);
    } else {
	if (c != 'B') {
	    StreamFailure(in, 0, "trailing bytes after the last bzip2 stream");
	    return -1;
	}
	BZ2_bzDecompressEnd(&in->bz);
	memset(&in->bz, 0, sizeof(in->bz));
	if (BZ2_bzDecompressInit(&in->bz, 0, 0) != BZ_OK) {
	    in->streamOpen = 0;
	    StreamFailure(in, 0, "cannot restart the bzip2 decompressor");
	    return -1;
	}
    }
    in->streamEnded = 0;
    return 1;
}

/*
 * Produce --
 *	Writes up to cap decompressed bytes to dst.
 * Results: bytes written; 0 means end of data or failure (in->eof set,
 *	in->failed tells which).
 */
static size_t
Produce(Rb_Input *in, char *dst, size_t cap)
{
    size_t got = 0;
    int rc;

    while (got == 0 && !in->eof) {
	if (in->comp == COMP_NONE) {
	    if (in->rawPos < in->rawLen) {
		/* The bytes read at open to sniff the compression. */
		got = in->rawLen - in->rawPos;
		if (got > cap) {
		    got = cap;
		}
		memcpy(dst, in->raw + in->rawPos, got);
		in->rawPos += got;
	    } else {
		/* Plain data goes straight to dst, not through raw. */
		ssize_t n = ReadFile(in, dst, cap);

		if (n <= 0) {
		    in->eof = 1;
		    break;
		}
		got = (size_t)n;
	    }
	    break;
	}
	if (in->streamEnded) {
	    rc = NextMember(in);
	    if (rc <= 0) {
		in->eof = 1;
		break;
	    }
	}
	if (FillRaw(in) < 0) {
	    break;
	}
	if (in->rawPos == in->rawLen) {
	    StreamFailure(in, 1, NULL);
	    break;
	}
	if (in->comp == COMP_GZIP) {
	    in->z.next_in = in->raw + in->rawPos;
	    in->z.avail_in = (uInt)(in->rawLen - in->rawPos);
	    in->z.next_out = (Bytef *)dst;
	    in->z.avail_out = (uInt)cap;
	    rc = inflate(&in->z, Z_NO_FLUSH);
	    in->rawPos = in->rawLen - in->z.avail_in;
	    got = cap - in->z.avail_out;
	    if (rc == Z_BUF_ERROR && got == 0) {
		/* Input was available yet nothing moved: never loop on it. */
		StreamFailure(in, 0, "inflate makes no progress");
		return 0;
	    }
	    if (rc == Z_STREAM_END) {
		in->streamEnded = 1;
	    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
		in->produced += got;
		StreamFailure(in, 0, in->z.msg ? in->z.msg : "inflate error");
		return got;
	    }
	} else {
	    in->bz.next_in = (char *)in->raw + in->rawPos;
	    in->bz.avail_in = (unsigned)(in->rawLen - in->rawPos);
	    in->bz.next_out = dst;
	    in->bz.avail_out = (unsigned)cap;
	    rc = BZ2_bzDecompress(&in->bz);
	    in->rawPos = in->rawLen - in->bz.avail_in;
	    got = cap - in->bz.avail_out;
	    if (rc == BZ_STREAM_END) {
		in->streamEnded = 1;
	    } else if (rc != BZ_OK) {
		in->produced += got;
		StreamFailure(in, 0, rc == BZ_DATA_ERROR_MAGIC
			? "bad stream magic" : "data error");
		return got;
	    }
	}
    }
    in->produced += got;
    return got;
}

/*
 * Compact --
 *	Moves the unconsumed bytes to the start of the buffer.
 */
static void
Compact(Rb_Input *in)
{
    memmove(in->buf, in->buf + in->pos, in->len - in->pos);
    in->bufBase += in->pos;
    in->len -= in->pos;
    in->pos = 0;
}

/*
 * Fill --
 *	Makes room at the end of the buffer (compacting, or growing when
 *	the unconsumed bytes fill it) and appends decompressed bytes.
 * Results: bytes added; 0 at end of data or on failure.
 */
static size_t
Fill(Rb_Input *in)
{
    size_t got;

    if (in->len == in->cap) {
	if (in->pos > 0) {
	    Compact(in);
	} else {
	    in->cap *= 2;
	    in->buf = Rb_Realloc(in->buf, in->cap + 1);
	}
    }
    got = Produce(in, in->buf + in->len, in->cap - in->len);
    in->len += got;
    return got;
}

/*
 * ReportEnd --
 *	At the end of the buffered data: copies the sticky failure to err.
 * Results: -1 after a failure, 0 at a clean end.
 */
static int
ReportEnd(Rb_Input *in, Rb_Error *err)
{
    if (in->failed) {
	if (err != NULL) {
	    *err = in->failure;
	}
	return -1;
    }
    return 0;
}

/*
 * Rb_InputOpen --
 *	Opens path and tells its compression from its first bytes.
 * Results: the stream, or NULL with err set ("RUBICON READER OPEN" and
 *	the system's reason when the file cannot be opened or read).
 */
Rb_Input *
Rb_InputOpen(const char *path, Rb_Error *err)
{
    Rb_Input *in;
    int fd;

    do {
	fd = open(path, O_RDONLY);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
	Rb_SetError(err, "RUBICON READER OPEN", "cannot open trace \"%s\": %s",
		path, strerror(errno));
	return NULL;
    }
    in = Rb_Alloc(sizeof(*in));
    in->path = Rb_Strdup(path);
    in->fd = fd;
    in->raw = Rb_Alloc(CHUNK);
    in->cap = CHUNK;
    in->buf = Rb_Alloc(in->cap + 1);	/* +1: room for a final NUL */
    if (FillRaw(in) < 0) {
	Rb_SetError(err, "RUBICON READER OPEN", "cannot read trace \"%s\": %s",
		path, strerror(errno));
	Rb_InputClose(in);
	return NULL;
    }
    if (in->rawLen >= 2 && in->raw[0] == 0x1f && in->raw[1] == 0x8b) {
	in->comp = COMP_GZIP;
	if (inflateInit2(&in->z, 15 + 16) != Z_OK) {
	    Rb_SetError(err, "RUBICON READER OPEN", "%s: cannot start the "
		    "gzip decompressor", path);
	    Rb_InputClose(in);
	    return NULL;
	}
	in->streamOpen = 1;
    } else if (in->rawLen >= 3 && memcmp(in->raw, "BZh", 3) == 0) {
	in->comp = COMP_BZIP2;
	if (BZ2_bzDecompressInit(&in->bz, 0, 0) != BZ_OK) {
	    Rb_SetError(err, "RUBICON READER OPEN", "%s: cannot start the "
		    "bzip2 decompressor", path);
	    Rb_InputClose(in);
	    return NULL;
	}
	in->streamOpen = 1;
    }
    return in;
}

/*
 * Rb_InputRead --
 *	Copies up to n bytes to buf, stopping short only at the end of the
 *	data or at a failure.
 * Results: bytes copied; 0 at end; -1 when a failure comes before any
 *	byte (err set, naming the file and how far reading got).  A failure
 *	after some bytes is reported by the next call.
 */
long
Rb_InputRead(Rb_Input *in, void *buf, size_t n, Rb_Error *err)
{
    char *dst = buf;
    size_t done = 0, k;

    while (done < n) {
	if (in->pos == in->len) {
	    in->pos = in->len = 0;
	    if (n - done >= DIRECT_MIN) {
		/* A large read skips the buffer: one copy fewer. */
		k = Produce(in, dst + done, n - done);
		in->bufBase = in->produced;
		if (k == 0) {
		    break;
		}
		done += k;
		continue;
	    }
	    in->bufBase = in->produced;
	    if (Fill(in) == 0) {
		break;
	    }
	}
	k = in->len - in->pos;
	if (k > n - done) {
	    k = n - done;
	}
	memcpy(dst + done, in->buf + in->pos, k);
	in->pos += k;
	done += k;
    }
    if (done == 0 && n > 0) {
	return ReportEnd(in, err);
    }
    return (long)done;
}

/*
 * Rb_InputReadFull --
 *	Reads exactly n bytes.
 * Results: 1 ok; 0 at a clean end before any byte; -1 when the data
 *	ends inside the n bytes ("RUBICON READER TRUNCATED") or on a
 *	failure (err set either way).
 */
int
Rb_InputReadFull(Rb_Input *in, void *buf, size_t n, Rb_Error *err)
{
    uint64_t start = Rb_InputOffset(in);
    long got = Rb_InputRead(in, buf, n, err);

    if (got < 0) {
	return -1;
    }
    if ((size_t)got == n) {
	return 1;
    }
    if (got == 0 && n > 0) {
	return 0;
    }
    if (ReportEnd(in, err) == 0) {
	Rb_SetError(err, "RUBICON READER TRUNCATED", "%s: data ends after "
		"%llu bytes, inside %zu bytes read from byte offset %llu",
		in->path, (unsigned long long)Rb_InputOffset(in), n,
		(unsigned long long)start);
    }
    return -1;
}

/*
 * Rb_InputGetLine --
 *	Returns the next line without its "\n" or "\r\n", NUL-terminated,
 *	valid until the next call on in; *len gets its length.  Lines may
 *	be of any length; a last line without a newline is returned too.
 * Results: the line, or NULL at end (err->code left empty) or on a
 *	failure (err set).
 */
char *
Rb_InputGetLine(Rb_Input *in, size_t *len, Rb_Error *err)
{
    size_t scanned = 0;
    char *line, *nl;
    size_t n;

    if (err != NULL) {
	err->code[0] = '\0';
    }
    for (;;) {
	nl = memchr(in->buf + in->pos + scanned, '\n',
		in->len - in->pos - scanned);
	if (nl != NULL) {
	    break;
	}
	scanned = in->len - in->pos;
	if (Fill(in) == 0) {
	    break;
	}
    }
    line = in->buf + in->pos;
    if (nl != NULL) {
	n = (size_t)(nl - line);
	in->pos += n + 1;
    } else {
	n = in->len - in->pos;
	if (n == 0) {
	    ReportEnd(in, err);
	    return NULL;
	}
	in->pos += n;
    }
    if (n > 0 && line[n - 1] == '\r') {
	n--;
    }
    line[n] = '\0';		/* buf has one spare byte past cap */
    in->lineNo++;
    if (len != NULL) {
	*len = n;
    }
    return line;
}

/*
 * Rb_InputPeek --
 *	Copies up to n of the next bytes to buf without consuming them;
 *	before any read these are the first bytes of the decompressed
 *	stream, which is what format sniffers look at.
 * Results: bytes copied (fewer at the end of data), or -1 on a failure
 *	before any byte (err set).
 */
long
Rb_InputPeek(Rb_Input *in, void *buf, size_t n, Rb_Error *err)
{
    size_t have;

    while (in->len - in->pos < n) {
	if (in->pos > 0 && in->cap - in->pos < n) {
	    Compact(in);
	}
	if (Fill(in) == 0) {
	    break;
	}
    }
    have = in->len - in->pos;
    if (have == 0 && n > 0 && in->failed) {
	return ReportEnd(in, err);
    }
    if (have > n) {
	have = n;
    }
    memcpy(buf, in->buf + in->pos, have);
    return (long)have;
}

/*
 * Rb_InputOffset --
 *	Uncompressed bytes consumed so far.
 */
uint64_t
Rb_InputOffset(const Rb_Input *in)
{
    return in->bufBase + in->pos;
}

/*
 * Rb_InputLineNo --
 *	Number (1-based) of the line Rb_InputGetLine returned last.
 */
uint64_t
Rb_InputLineNo(const Rb_Input *in)
{
    return in->lineNo;
}

const char *
Rb_InputPath(const Rb_Input *in)
{
    return in->path;
}

/*
 * Rb_InputCompression --
 *	"none", "gzip" or "bzip2".
 */
const char *
Rb_InputCompression(const Rb_Input *in)
{
    static const char *const names[] = {"none", "gzip", "bzip2"};

    return names[in->comp];
}

/*
 * Rb_InputClose --
 *	Closes the file and frees the stream.  NULL is allowed.
 */
void
Rb_InputClose(Rb_Input *in)
{
    if (in == NULL) {
	return;
    }
    if (in->streamOpen) {
	if (in->comp == COMP_GZIP) {
	    inflateEnd(&in->z);
	} else {
	    BZ2_bzDecompressEnd(&in->bz);
	}
    }
    close(in->fd);
    free(in->raw);
    free(in->buf);
    free(in->path);
    free(in);
}
