/*
 * input.c --
 *
 *	Rb_Input: a byte stream over a trace file that is plain, gzip,
 *	bzip2 or zstd, told apart by magic bytes.  Decompressed bytes land in one
 *	growable buffer that Read, Peek and GetLine consume from; the
 *	uncompressed offset and the line number are kept for error messages.
 *
 *	The decompressor (a Decoder, Produce) writes into a caller-given
 *	region and touches no consumer state.  For compressed input it
 *	runs on a thread of its own filling a ring of chunks (ring.c) when a
 *	second core is online, unless the environment variable
 *	RUBICON_THREADS is 0; the consumer side is the same either way.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <bzlib.h>
#include "core/rbInt.h"
#include "io/ring.h"
#include "io/zstdInput.h"

#define CHUNK (1 << 20)		/* Size of raw reads and of the buffer. */
#define DIRECT_MIN (1 << 16)	/* Reads this large bypass the buffer. */
#define RING_CHUNKS 4		/* Chunks of CHUNK bytes decompressed ahead. */

typedef enum { COMP_NONE, COMP_GZIP, COMP_BZIP2, COMP_ZSTD } Compression;

static const char *const compNames[] = {"none", "gzip", "bzip2", "zstd"};

/*
 * The producer side: the file and its decompressor.  Only the thread
 * that decompresses touches it (after open), until Produce has returned
 * 0; then the consumer reads eof, failed and failure.
 */
typedef struct Decoder {
    const char *path;		/* The Rb_Input's. */
    int fd;
    Compression comp;

    /* Compressed bytes read from the file but not yet decompressed. */
    unsigned char *raw;
    size_t rawPos, rawLen;
    int rawEof;			/* read() returned 0. */
    uint64_t rawOffset;		/* Compressed bytes read so far. */

    z_stream z;
    bz_stream bz;
    RbZstd *zs;
    int streamOpen;		/* z, bz or zs initialized. */
    int streamEnded;		/* Last member ended cleanly. */

    uint64_t produced;		/* Decompressed bytes produced so far. */
    uint64_t limit;		/* Plain data ends at this offset (a
				 * window, RbInputWindow); 0: none. */
    uint64_t stopRaw;		/* Compressed window: at the first member
				 * end at or past this offset, mark is set
				 * (and with stopExact the data end); 0:
				 * none. */
    int stopExact;
    int markSet;		/* mark holds the decompressed offset of */
    uint64_t mark;		/* that member end. */
    uint64_t winRaw;		/* Compressed offset the window starts at. */
    uint64_t rawSize;		/* The file's size (compressed window). */
    int cut;			/* The data ended at the window's end. */
    int eof;			/* No more bytes will come. */
    int failed;			/* failure holds the error that ended them. */
    Rb_Error failure;
} Decoder;

struct Rb_Input {
    char *path;
    Decoder dec;
    Rb_Ring *ring;		/* The thread running dec, or NULL: inline. */

    /* Decompressed bytes: buf[pos, len) not yet consumed. */
    char *buf;
    size_t pos, len, cap;
    uint64_t bufBase;		/* Stream offset of buf[0]. */
    uint64_t taken;		/* Decompressed bytes taken from dec. */
    int eof;			/* No more bytes will come. */
    int failed;			/* A sticky error is in failure. */
    Rb_Error failure;

    uint64_t lineNo;

    /* A window (RbInputWindow). */
    int windowed;
    int cutLines;		/* Data end after the first newline at or
				 * after dec.mark (compressed lines). */
    int cutDone;		/* ... and they have. */
    uint64_t winFrom;		/* Plain: the file offset it starts at, */
    uint64_t winTo;		/* (plain blocks: and ends at), */
    uint64_t winHead;		/* and where the header ended. */
    int winMode;
    int winShort;		/* Plain: it ends before the file does. */
    int basesKnown;		/* lineBase, offBase computed (lazily: */
    uint64_t lineBase, offBase;	/* they are for messages only). */
    size_t recLen;		/* Fixed-length records: their length
				 * (RbInputSetRecordLength); 0 else. */
    int cutFixed;		/* A zstd window of fixed-length records:
				 * its data end at the first record boundary
				 * at or after dec.mark, */
    uint64_t fixedSkip;		/* the first being this far into it. */
};

/*
 * SetFailure --
 *	Records a sticky error: the bytes produced before it stay readable,
 *	then every read reports it.
 */
static void
SetFailure(Decoder *d, const char *code, const char *what)
{
    d->failed = 1;
    d->eof = 1;
    Rb_SetError(&d->failure, code, "%s: %s", d->path, what);
}

/*
 * ReadFile --
 *	Reads up to cap bytes of the file into dst.
 * Results: bytes read, 0 at end of file, -1 on a read error (failure
 *	set).
 */
static ssize_t
ReadFile(Decoder *d, void *dst, size_t cap)
{
    ssize_t n;

    do {
	n = read(d->fd, dst, cap);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
	char what[512];

	snprintf(what, sizeof(what), "read error after %llu uncompressed "
		"bytes: %s", (unsigned long long)d->produced, strerror(errno));
	SetFailure(d, "RUBICON READER IO", what);
	return -1;
    }
    /* Atomic: RbInputRawOffset reads it from the consumer's thread. */
    __atomic_store_n(&d->rawOffset, d->rawOffset + (uint64_t)n,
	    __ATOMIC_RELAXED);
    if (n == 0) {
	d->rawEof = 1;
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
FillRaw(Decoder *d)
{
    ssize_t n;

    if (d->rawPos < d->rawLen || d->rawEof) {
	return 0;
    }
    n = ReadFile(d, d->raw, CHUNK);
    if (n < 0) {
	return -1;
    }
    d->rawPos = 0;
    d->rawLen = (size_t)n;
    return 0;
}

/*
 * StreamFailure --
 *	Sets the failure for a compressed stream that ends too early
 *	(truncated) or is corrupt (detail says how).
 */
static void
StreamFailure(Decoder *d, int truncated, const char *detail)
{
    char what[512];
    const char *kind = compNames[d->comp];

    if (truncated) {
	snprintf(what, sizeof(what), "%s data truncated after %llu "
		"uncompressed bytes", kind, (unsigned long long)d->produced);
	SetFailure(d, "RUBICON READER TRUNCATED", what);
    } else {
	snprintf(what, sizeof(what), "corrupt %s data (%s) after %llu "
		"uncompressed bytes%s, near compressed byte %llu", kind, detail,
		(unsigned long long)d->produced, d->winRaw ? " of this rank's "
		"members" : "",
		(unsigned long long)(d->rawOffset - (d->rawLen - d->rawPos)));
	SetFailure(d, "RUBICON READER CORRUPT", what);
    }
}

/*
 * NextMember --
 *	After a compressed stream ended, decides whether another member
 *	follows (concatenated gzip or bzip2 files, zstd frames) and
 *	restarts the decompressor for it.
 * Results: 1 a new member started, 0 clean end of data, -1 failure set.
 */
static int
NextMember(Decoder *d)
{
    unsigned char c;

    if (FillRaw(d) < 0) {
	return -1;
    }
    if (d->rawPos == d->rawLen) {
	return 0;
    }
    c = d->raw[d->rawPos];
    if (d->comp == COMP_GZIP) {
	if (c != 0x1f) {
	    StreamFailure(d, 0, "trailing bytes after the last gzip member");
	    return -1;
	}
	inflateReset(&d->z);
    } else if (d->comp == COMP_ZSTD) {
	if (c != 0x28 && (c & 0xf0) != 0x50) {	/* a frame's magic */
	    StreamFailure(d, 0, "trailing bytes after the last zstd frame");
	    return -1;
	}
	/* libzstd starts the next frame by itself. */
    } else {
	if (c != 'B') {
	    StreamFailure(d, 0, "trailing bytes after the last bzip2 stream");
	    return -1;
	}
	BZ2_bzDecompressEnd(&d->bz);
	memset(&d->bz, 0, sizeof(d->bz));
	if (BZ2_bzDecompressInit(&d->bz, 0, 0) != BZ_OK) {
	    d->streamOpen = 0;
	    StreamFailure(d, 0, "cannot restart the bzip2 decompressor");
	    return -1;
	}
    }
    d->streamEnded = 0;
    return 1;
}

/*
 * Produce --
 *	Writes up to cap decompressed bytes to dst.
 * Results: bytes written; 0 means end of data or failure (d->eof set,
 *	d->failed tells which).
 */
static size_t
Produce(Decoder *d, char *dst, size_t cap)
{
    size_t got = 0;
    int rc;

    while (got == 0 && !d->eof) {
	if (d->comp == COMP_NONE) {
	    if (d->rawPos < d->rawLen) {
		/* The bytes read at open to sniff the compression. */
		got = d->rawLen - d->rawPos;
		if (got > cap) {
		    got = cap;
		}
		memcpy(dst, d->raw + d->rawPos, got);
		d->rawPos += got;
	    } else {
		/* Plain data goes straight to dst, not through raw. */
		ssize_t n;

		if (d->limit != 0 && d->produced + cap > d->limit) {
		    cap = d->limit > d->produced ? d->limit - d->produced : 0;
		}
		n = cap > 0 ? ReadFile(d, dst, cap) : 0;

		if (n <= 0) {
		    d->eof = 1;
		    break;
		}
		got = (size_t)n;
	    }
	    break;
	}
	if (d->streamEnded && d->stopRaw != 0 && !d->markSet
		&& d->rawOffset - (d->rawLen - d->rawPos) >= d->stopRaw) {
	    /* The member that ends here is a window's last. */
	    d->mark = d->produced;
	    d->markSet = 1;
	    if (d->stopExact) {
		d->cut = d->rawOffset - (d->rawLen - d->rawPos) < d->rawSize;
		d->eof = 1;
		break;
	    }
	}
	if (d->streamEnded) {
	    rc = NextMember(d);
	    if (rc <= 0) {
		d->eof = 1;
		break;
	    }
	}
	if (FillRaw(d) < 0) {
	    break;
	}
	if (d->rawPos == d->rawLen) {
	    StreamFailure(d, 1, NULL);
	    break;
	}
	if (d->comp == COMP_GZIP) {
	    d->z.next_in = d->raw + d->rawPos;
	    d->z.avail_in = (uInt)(d->rawLen - d->rawPos);
	    d->z.next_out = (Bytef *)dst;
	    d->z.avail_out = (uInt)cap;
	    rc = inflate(&d->z, Z_NO_FLUSH);
	    d->rawPos = d->rawLen - d->z.avail_in;
	    got = cap - d->z.avail_out;
	    if (rc == Z_BUF_ERROR && got == 0) {
		/* Input was available yet nothing moved: never loop on it. */
		StreamFailure(d, 0, "inflate makes no progress");
		return 0;
	    }
	    if (rc == Z_STREAM_END) {
		d->streamEnded = 1;
	    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
		d->produced += got;
		StreamFailure(d, 0, d->z.msg ? d->z.msg : "inflate error");
		return got;
	    }
	} else if (d->comp == COMP_ZSTD) {
	    const char *msg = NULL;
	    size_t used;
	    RbZstdStatus zrc = RbZstdDecompress(d->zs, d->raw + d->rawPos,
		    d->rawLen - d->rawPos, &used, dst, cap, &got, &msg);

	    d->rawPos += used;
	    if (zrc == RB_ZSTD_FRAME_END) {
		d->streamEnded = 1;
	    } else if (zrc == RB_ZSTD_ERROR) {
		d->produced += got;
		StreamFailure(d, 0, msg);
		return got;
	    } else if (used == 0 && got == 0) {
		/* All the input was taken and the frame needs more. */
		if (d->rawPos < d->rawLen) {
		    StreamFailure(d, 0, "zstd makes no progress");
		    return 0;
		}
	    }
	} else {
	    d->bz.next_in = (char *)d->raw + d->rawPos;
	    d->bz.avail_in = (unsigned)(d->rawLen - d->rawPos);
	    d->bz.next_out = dst;
	    d->bz.avail_out = (unsigned)cap;
	    rc = BZ2_bzDecompress(&d->bz);
	    d->rawPos = d->rawLen - d->bz.avail_in;
	    got = cap - d->bz.avail_out;
	    if (rc == BZ_STREAM_END) {
		d->streamEnded = 1;
	    } else if (rc != BZ_OK) {
		d->produced += got;
		StreamFailure(d, 0, rc == BZ_DATA_ERROR_MAGIC
			? "bad stream magic" : "data error");
		return got;
	    }
	}
    }
    d->produced += got;
    return got;
}

/*
 * ProduceInRing --
 *	Produce as the ring's thread calls it.
 */
static size_t
ProduceInRing(void *cd, char *dst, size_t cap)
{
    return Produce(cd, dst, cap);
}

/*
 * Obtain --
 *	Writes up to cap decompressed bytes to dst, from the ring when a
 *	thread decompresses, else from Produce here.
 * Results: bytes written; 0 at the end of data or on a failure, when the
 *	decoder's failure becomes the stream's (sticky).
 */
static size_t
Obtain(Rb_Input *in, char *dst, size_t cap)
{
    size_t got;

    if (in->eof) {
	return 0;
    }
    got = in->ring ? RbRingTake(in->ring, dst, cap)
	    : Produce(&in->dec, dst, cap);
    if (got > 0 && in->cutLines && in->dec.markSet) {
	/* A window of compressed lines ends after the first newline at or
	 * after its last member's end (mark is set, on the producer's
	 * side, before any byte past it is produced). */
	uint64_t from = in->dec.mark > in->taken ? in->dec.mark : in->taken;

	if (from < in->taken + got) {
	    char *nl = memchr(dst + (from - in->taken), '\n',
		    (size_t)(in->taken + got - from));

	    if (nl != NULL) {
		got = (size_t)(nl - dst) + 1;
		in->cutDone = 1;
		in->taken += got;
		in->eof = 1;
		return got;
	    }
	}
    }
    if (got > 0 && in->cutFixed && in->dec.markSet) {
	/* A window of fixed-length records ends at the first record
	 * boundary at or after its last frame's end (mark is set before
	 * any byte past it is produced). */
	uint64_t mark = in->dec.mark, cut = in->fixedSkip;

	if (mark > cut) {
	    cut += (mark - cut + in->recLen - 1) / in->recLen * in->recLen;
	}
	if (in->taken + got >= cut) {
	    got = cut > in->taken ? (size_t)(cut - in->taken) : 0;
	    in->cutDone = 1;
	    in->taken += got;
	    in->eof = 1;
	    return got;
	}
    }
    if (got == 0) {
	in->eof = 1;
	if (in->dec.failed) {
	    in->failed = 1;
	    in->failure = in->dec.failure;
	}
    }
    in->taken += got;
    return got;
}

/*
 * StartThread --
 *	Moves the decompression of a compressed stream to a thread of its
 *	own when a second core is online and RUBICON_THREADS is not 0;
 *	otherwise, or if the thread cannot start, it stays inline.
 */
static void
StartThread(Rb_Input *in)
{
    const char *env = getenv("RUBICON_THREADS");

    if (in->dec.comp == COMP_NONE || sysconf(_SC_NPROCESSORS_ONLN) < 2
	    || (env != NULL && strcmp(env, "0") == 0)) {
	return;
    }
    in->ring = RbRingStart(ProduceInRing, &in->dec, CHUNK, RING_CHUNKS);
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
	    in->buf = Rb_Realloc(in->buf, in->cap + 1 + RB_INPUT_PAD);
	}
    }
    got = Obtain(in, in->buf + in->len, in->cap - in->len);
    in->len += got;
    memset(in->buf + in->len, 0, RB_INPUT_PAD);	/* defined, for tools */
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
 * FillHead --
 *	Reads until the raw buffer holds the MAGIC_LEN bytes that tell the
 *	compression, or the file ends: a pipe may deliver fewer bytes per
 *	read.
 * Results: 0 ok, -1 on a read error (failure set).
 */
#define MAGIC_LEN 4
static int
FillHead(Decoder *d)
{
    while (d->rawLen < MAGIC_LEN && !d->rawEof) {
	ssize_t n = ReadFile(d, d->raw + d->rawLen, CHUNK - d->rawLen);

	if (n < 0) {
	    return -1;
	}
	d->rawLen += (size_t)n;
    }
    return 0;
}

/*
 * OpenRegular --
 *	Opens path for reading only if it is a regular file: opened without
 *	blocking (a FIFO with no writer, a device, would otherwise hang the
 *	open) and checked with fstat, then set back to blocking reads.
 * Results: a descriptor, or -1 with errno set (EINVAL: not a regular
 *	file).
 */
static int
OpenRegular(const char *path)
{
    struct stat st;
    int fd, flags;

    do {
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
	return -1;
    }
    if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
	errno = EINVAL;
    } else if (fstat(fd, &st) == 0 && (flags = fcntl(fd, F_GETFL)) >= 0
	    && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0) {
	return fd;
    }
    flags = errno;
    close(fd);
    errno = flags;
    return -1;
}

/*
 * Rb_InputOpen --
 *	Opens path, or standard input when path is "-" (RB_INPUT_STDIN),
 *	and tells its compression from its first bytes.  Standard input is
 *	read through a duplicate of descriptor 0, named "standard input" in
 *	messages.
 * Results: the stream, or NULL with err set ("RUBICON READER OPEN" and
 *	the system's reason when the file cannot be opened or read).
 * Side effects: opens a descriptor and reads the first bytes; for a
 *	compressed file with a second core online (and RUBICON_THREADS
 *	not 0) starts a decompression thread.  Rb_InputClose undoes it all.
 */
Rb_Input *
Rb_InputOpen(const char *path, Rb_Error *err)
{
    return RbInputOpenFile(path, 0, err);
}

/*
 * RbInputOpenFile --
 *	Rb_InputOpen, and with regularOnly set a file a reader opens on its
 *	own (one the user did not name: a blktrace's per-CPU siblings) must
 *	be a regular file, never a FIFO or a device that could block or
 *	endlessly feed the open or the reads.
 * Results: as Rb_InputOpen's; "not a regular file" when refused.
 */
Rb_Input *
RbInputOpenFile(const char *path, int regularOnly, Rb_Error *err)
{
    Rb_Input *in;
    Decoder *d;
    int fd, isStdin = strcmp(path, RB_INPUT_STDIN) == 0;
    const char *name = isStdin ? "standard input" : path;

    if (regularOnly && !isStdin) {
	fd = OpenRegular(path);
    } else {
	do {
	    fd = isStdin ? dup(0) : open(path, O_RDONLY);
	} while (fd < 0 && errno == EINTR);
    }
    if (fd < 0) {
	Rb_SetError(err, "RUBICON READER OPEN", "cannot open trace \"%s\": %s",
		name, errno == EINVAL && regularOnly ? "not a regular file"
		: strerror(errno));
	return NULL;
    }
    in = Rb_Alloc(sizeof(*in));
    in->path = Rb_Strdup(name);
    d = &in->dec;
    d->path = in->path;
    d->fd = fd;
    d->raw = Rb_Alloc(CHUNK);
    in->cap = CHUNK;
    /* +1: room for a final NUL; the pad for parsers reading ahead. */
    in->buf = Rb_Alloc(in->cap + 1 + RB_INPUT_PAD);
    if (FillHead(d) < 0) {
	Rb_SetError(err, "RUBICON READER OPEN", "cannot read trace \"%s\": %s",
		name, strerror(errno));
	Rb_InputClose(in);
	return NULL;
    }
    if (d->rawLen >= 2 && d->raw[0] == 0x1f && d->raw[1] == 0x8b) {
	d->comp = COMP_GZIP;
	if (inflateInit2(&d->z, 15 + 16) != Z_OK) {
	    Rb_SetError(err, "RUBICON READER OPEN", "%s: cannot start the "
		    "gzip decompressor", path);
	    Rb_InputClose(in);
	    return NULL;
	}
	d->streamOpen = 1;
    } else if (d->rawLen >= 3 && memcmp(d->raw, "BZh", 3) == 0) {
	d->comp = COMP_BZIP2;
	if (BZ2_bzDecompressInit(&d->bz, 0, 0) != BZ_OK) {
	    Rb_SetError(err, "RUBICON READER OPEN", "%s: cannot start the "
		    "bzip2 decompressor", path);
	    Rb_InputClose(in);
	    return NULL;
	}
	d->streamOpen = 1;
    } else if (RbZstdIsMagic(d->raw, d->rawLen)) {
	d->comp = COMP_ZSTD;
	if ((d->zs = RbZstdCreate()) == NULL) {
	    Rb_SetError(err, "RUBICON READER OPEN", "%s: cannot start the "
		    "zstd decompressor", path);
	    Rb_InputClose(in);
	    return NULL;
	}
	d->streamOpen = 1;
    }
    StartThread(in);
    return in;
}

/*
 * Rb_InputRead --
 *	Copies up to n bytes to buf, stopping short only at the end of the
 *	data or at a failure.
 * Results: bytes copied; 0 at end; -1 when a failure comes before any
 *	byte (err set, naming the file and how far reading got).  A failure
 *	after some bytes is reported by the next call.
 * Side effects: consumes the bytes returned (Rb_InputOffset advances);
 *	reads and decompresses more of the file.
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
		k = Obtain(in, dst + done, n - done);
		in->bufBase = in->taken;
		if (k == 0) {
		    break;
		}
		done += k;
		continue;
	    }
	    in->bufBase = in->taken;
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
 *	ends inside the n bytes ("RUBICON READER TRUNCATED", naming the
 *	file and the offsets) or on a failure (err set either way).
 * Side effects: as Rb_InputRead: consumes what it read, even when short.
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
 *	be of any length; a last line without a newline is returned too,
 *	unless the stream failed after it (then it is dropped and the
 *	failure reported).
 * Results: the line, or NULL at end (err->code left empty) or on a
 *	failure (err set).
 * Side effects: clears err->code; consumes the line and its newline;
 *	counts it in Rb_InputLineNo; may grow the stream's buffer to hold a
 *	long line.
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
	if (n == 0 || in->failed) {
	    /* A last line cut short by a damaged or truncated stream is
	     * not a record: the stream's failure is reported instead. */
	    in->pos += n;
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
 * Side effects: reads and decompresses ahead into the stream's buffer;
 *	consumes nothing.
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
 * NextBoundary --
 *	The offset of the first record boundary at or after `at` in a plain
 *	file of size bytes, by reading it (pread, not disturbing the
 *	stream): for lines (srtFrom == 0) just after the first newline at
 *	or after at - 1; for SRT records, walking their big-endian length
 *	words from the first record at srtFrom.
 * Results: 1 with *bound set (size when none is left), or 0 when a
 *	length word is not a record's (the file cannot be split there).
 */
static int
NextBoundary(int fd, uint64_t at, uint64_t size, uint64_t srtFrom,
	uint64_t *bound)
{
    unsigned char buf[65536];
    uint64_t pos = srtFrom ? srtFrom : (at > 0 ? at - 1 : 0);
    ssize_t n;

    if (at == 0 || at >= size) {
	*bound = at >= size ? size : 0;
	return 1;
    }
    while (pos < size) {
	n = pread(fd, buf, sizeof(buf), (off_t)pos);
	if (n <= 0) {
	    return 0;
	}
	if (srtFrom == 0) {
	    unsigned char *nl = memchr(buf, '\n', (size_t)n);

	    if (nl != NULL) {
		*bound = pos + (uint64_t)(nl - buf) + 1;
		return 1;
	    }
	    pos += (uint64_t)n;
	    continue;
	}
	/* Walk whole length words held in buf. */
	{
	    size_t p = 0;

	    while (p + 4 <= (size_t)n) {
		uint32_t len = (uint32_t)buf[p] << 24 | (uint32_t)buf[p + 1]
			<< 16 | (uint32_t)buf[p + 2] << 8 | buf[p + 3];

		if (pos + p >= at) {
		    *bound = pos + p;
		    return 1;
		}
		if (len < 8 || len > 65536) {
		    return 0;
		}
		p += len;
	    }
	    if (p == 0) {
		break;		/* a length word cut by the end of file */
	    }
	    pos += p;
	}
    }
    *bound = size;
    return 1;
}

/*
 * An SRT file is cut where the records' length and type words line up
 * (SrtResync) rather than by walking every record from the header
 * (NextBoundary), which read the file up to the cut on every rank but
 * the first.  A v7 I/O record begins with 88 and 0x00070001; others
 * with a length of 8 to 65536 bytes.
 */
#define RESYNC_CHAIN 64		/* Records a chain must pass. */
#define RESYNC_SCAN 65536	/* Bytes after `at` where another chain
				 * is looked for (a record is at most
				 * this long, so a record boundary lies
				 * in them). */
#define RESYNC_BUF (RESYNC_SCAN + 4 * 65536)

/*
 * SrtHeadAt --
 *	Whether the 8 bytes at p begin a v7 I/O record.
 */
static int
SrtHeadAt(const unsigned char *p)
{
    return p[0] == 0 && p[1] == 0 && p[2] == 0 && p[3] == 88
	    && p[4] == 0 && p[5] == 7 && p[6] == 0 && p[7] == 1;
}

/*
 * SrtLen --
 *	The length word of the record at p, or 0 when its length and type
 *	words are not a well-formed record's (a v7 I/O record has 88
 *	bytes, another 8 to 65536).
 */
static uint32_t
SrtLen(const unsigned char *p)
{
    uint32_t len = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16
	    | (uint32_t)p[2] << 8 | p[3];
    uint32_t vt = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16
	    | (uint32_t)p[6] << 8 | p[7];

    return (vt == 0x00070001u ? len != 88 : len < 8 || len > 65536)
	    ? 0 : len;
}

/*
 * SrtChainAt --
 *	Whether the records chained by their length words from buf[p] are
 *	all well-formed (SrtLen), for RESYNC_CHAIN records or to the end of
 *	buf's n bytes.
 */
static int
SrtChainAt(const unsigned char *buf, size_t n, size_t p)
{
    int k;

    for (k = 0; k < RESYNC_CHAIN && p + 8 <= n; k++) {
	uint32_t len = SrtLen(buf + p);

	if (len == 0) {
	    return 0;
	}
	p += len;
    }
    return 1;
}

/*
 * SrtResync --
 *	A record boundary of a plain SRT file at or after `at` (after the
 *	header), found without reading the records before it: the first
 *	offset where a v7 I/O record's length and type words begin a chain
 *	of well-formed records (SrtChainAt).  Refused as ambiguous when a
 *	v7 I/O head that the chain steps over begins another such chain
 *	within RESYNC_SCAN bytes (a record boundary lies there, so one of
 *	the two is false: record contents imitating record heads).  The
 *	split run checks the cut all the same: the window before it must
 *	end exactly there (RbInputWindowShort).
 * Results: 1 with *bound set; 0 when none or an ambiguous one was
 *	found, or the file ends too soon to tell (NextBoundary walks
 *	instead).
 */
static int
SrtResync(int fd, uint64_t at, uint64_t size, uint64_t *bound)
{
    unsigned char *buf = Rb_Alloc(RESYNC_BUF);
    ssize_t got = pread(fd, buf, RESYNC_BUF, (off_t)at);
    size_t n = got > 0 ? (size_t)got : 0, p, q = 0, next = 0;
    int found = 0, ok = 1;

    if (n < RESYNC_BUF && at + n < size) {
	n = 0;			/* a short read: walk instead */
    }
    for (p = 0; p < RESYNC_SCAN && p + 8 <= n && ok; p++) {
	if (!SrtHeadAt(buf + p)) {
	    continue;
	}
	if (!found) {
	    if (SrtChainAt(buf, n, p)) {
		found = 1;
		q = next = p;
	    }
	    continue;
	}
	while (next < p && next + 8 <= n) {
	    uint32_t len = SrtLen(buf + next);

	    if (len == 0) {
		ok = 0;		/* the chain breaks down further on */
		break;
	    }
	    next += len;
	}
	if (ok && next != p && SrtChainAt(buf, n, p)) {
	    ok = 0;		/* two chains that do not join */
	}
    }
    free(buf);
    if (found && ok) {
	*bound = at + q;
	return 1;
    }
    return 0;
}

/*
 * SrtCut --
 *	Where a split run cuts a plain SRT file whose header ends at here,
 *	for the cut point at: the header's end, the file's end, else a
 *	record boundary within 64 KiB after at (SrtResync, or NextBoundary
 *	when that cannot tell), so that cut points at least 64 KiB apart
 *	give cuts in the same order.
 * Results: 1 with *cut set, 0 when no record boundary was found.
 */
static int
SrtCut(int fd, uint64_t at, uint64_t size, uint64_t here, uint64_t *cut)
{
    if (at <= here || at >= size) {
	*cut = at <= here ? here : size;
	return 1;
    }
    return SrtResync(fd, at, size, cut)
	    || NextBoundary(fd, at, size, here, cut);
}

/*
 * DecodeRange --
 *	Decompresses, by pread (not disturbing the stream), the gzip members,
 *	bzip2 streams or zstd frames that begin at compressed byte at: one (once), or
 *	all of them up to byte to, where one must end.  Counts the bytes and
 *	newlines they give and keeps the first four bytes.
 * Results: 1 when they end cleanly there (their checksums good), else 0.
 */
typedef struct DecodeCount {
    uint64_t bytes, newlines;
    unsigned char head[4];
} DecodeCount;

static int
DecodeRange(int fd, Compression comp, uint64_t at, uint64_t to, int once,
	DecodeCount *c)
{
    enum { RAW = 65536, OUT = 262144 };
    unsigned char *raw = Rb_Alloc(RAW), *out = Rb_Alloc(OUT);
    size_t have = 0, used = 0;
    uint64_t pos = at;
    z_stream z;
    bz_stream bz;
    RbZstd *zs = NULL;
    int ok = 0, open;

    memset(c, 0, sizeof(*c));
    memset(&z, 0, sizeof(z));
    memset(&bz, 0, sizeof(bz));
    if (comp == COMP_ZSTD) {
	open = (zs = RbZstdCreate()) != NULL;
    } else {
	open = comp == COMP_GZIP ? inflateInit2(&z, 15 + 16) == Z_OK
		: BZ2_bzDecompressInit(&bz, 0, 0) == BZ_OK;
    }
    while (open) {
	size_t made, took, k;
	int rc, ended;
	unsigned char *p;

	if (used == have) {
	    ssize_t n = pos < to ? pread(fd, raw, to - pos < RAW
		    ? (size_t)(to - pos) : RAW, (off_t)pos) : 0;

	    if (n <= 0) {
		break;		/* the input ends inside a member */
	    }
	    have = (size_t)n;
	    used = 0;
	    pos += (uint64_t)n;
	}
	if (comp == COMP_GZIP) {
	    z.next_in = raw + used;
	    z.avail_in = (uInt)(have - used);
	    z.next_out = out;
	    z.avail_out = OUT;
	    rc = inflate(&z, Z_NO_FLUSH);
	    took = (have - used) - z.avail_in;
	    made = OUT - z.avail_out;
	    ended = rc == Z_STREAM_END;
	    rc = ended || rc == Z_OK || rc == Z_BUF_ERROR;
	} else if (comp == COMP_ZSTD) {
	    const char *msg;
	    RbZstdStatus zrc = RbZstdDecompress(zs, raw + used, have - used,
		    &took, out, OUT, &made, &msg);

	    ended = zrc == RB_ZSTD_FRAME_END;
	    rc = zrc != RB_ZSTD_ERROR;
	} else {
	    bz.next_in = (char *)raw + used;
	    bz.avail_in = (unsigned)(have - used);
	    bz.next_out = (char *)out;
	    bz.avail_out = OUT;
	    rc = BZ2_bzDecompress(&bz);
	    took = (have - used) - bz.avail_in;
	    made = OUT - bz.avail_out;
	    ended = rc == BZ_STREAM_END;
	    rc = ended || rc == BZ_OK;
	}
	used += took;
	if (!rc || (took == 0 && made == 0 && !ended)) {
	    break;		/* corrupt, or no progress */
	}
	for (k = 0; k < made && c->bytes + k < 4; k++) {
	    c->head[c->bytes + k] = out[k];
	}
	c->bytes += made;
	for (p = out; (p = memchr(p, '\n', (size_t)(out + made - p))) != NULL;
		p++) {
	    c->newlines++;
	}
	if (!ended) {
	    continue;
	}
	if (once || pos - (have - used) >= to) {
	    ok = 1;
	    break;
	}
	if (comp == COMP_GZIP) {
	    inflateReset(&z);
	} else if (comp == COMP_BZIP2) {
	    BZ2_bzDecompressEnd(&bz);
	    memset(&bz, 0, sizeof(bz));
	    open = BZ2_bzDecompressInit(&bz, 0, 0) == BZ_OK;
	}
    }
    if (comp == COMP_GZIP) {
	inflateEnd(&z);
    } else if (comp == COMP_ZSTD) {
	RbZstdFree(zs);
    } else if (open) {
	BZ2_bzDecompressEnd(&bz);
    }
    free(raw);
    free(out);
    return ok;
}

/*
 * IsMemberHead --
 *	Whether the n bytes at p can begin a gzip member (magic, deflate,
 *	no reserved flag), a bzip2 stream ("BZh", a level, then the magic
 *	of a block or of the end of the stream) or a zstd data frame
 *	(RbZstdIsFrameHead).
 */
static int
IsMemberHead(const unsigned char *p, size_t n, Compression comp)
{
    if (n < 10) {
	return 0;
    }
    if (comp == COMP_GZIP) {
	return p[0] == 0x1f && p[1] == 0x8b && p[2] == 8
		&& (p[3] & 0xe0) == 0;
    }
    if (comp == COMP_ZSTD) {
	return RbZstdIsFrameHead(p, n);
    }
    return p[0] == 'B' && p[1] == 'Z' && p[2] == 'h' && p[3] >= '1'
	    && p[3] <= '9' && (memcmp(p + 4, "\x31\x41\x59\x26\x53\x59", 6)
	    == 0 || memcmp(p + 4, "\x17\x72\x45\x38\x50\x90", 6) == 0);
}

/*
 * FindMember --
 *	The first gzip member (bzip2 stream, zstd frame) of the file that begins at or
 *	after compressed byte from and before to: a place that looks like
 *	one (IsMemberHead) is one when it decompresses to a clean end, its
 *	checksum good (a false match inside compressed data would have to
 *	pass the CRC as well).  With blocks, it must also begin with a
 *	native block ("RBBK") or the end marker ("RBEN").
 * Results: 1 with *at set, or 0 when there is none.
 */
static int
FindMember(int fd, Compression comp, uint64_t from, uint64_t to,
	uint64_t size, int blocks, uint64_t *at)
{
    enum { STEP = 65536 };
    unsigned char *buf = Rb_Alloc(STEP + 16);
    uint64_t pos;
    int found = 0;

    for (pos = from; pos < to && !found; pos += STEP) {
	ssize_t n = pread(fd, buf, STEP + 16, (off_t)pos);
	size_t i;

	if (n <= 0) {
	    break;
	}
	for (i = 0; i < STEP && i < (size_t)n && pos + i < to; i++) {
	    DecodeCount c;

	    if (IsMemberHead(buf + i, (size_t)n - i, comp)
		    && DecodeRange(fd, comp, pos + i, size, 1, &c)
		    && (!blocks || (c.bytes >= 4
		    && (memcmp(c.head, "RBBK", 4) == 0
		    || memcmp(c.head, "RBEN", 4) == 0)))) {
		*at = pos + i;
		found = 1;
		break;
	    }
	}
    }
    free(buf);
    return found;
}

/*
 * ZstdFixedPlan --
 *	For a zstd file of size bytes, walks its frames from the start by
 *	their headers (RbZstdFrameAt): the first frame beginning at or after
 *	byte begin (*at, size when none), the decompressed bytes before it
 *	(*before), and the first frame beginning at or after byte end
 *	(*stop, 0 when none); the walk stops there.
 * Results: 1, or 0 when a frame walked is malformed or does not declare
 *	its content size (the decompressed offsets are then unknown).
 */
static int
ZstdFixedPlan(int fd, uint64_t size, uint64_t begin, uint64_t end,
	uint64_t *at, uint64_t *before, uint64_t *stop)
{
    uint64_t pos = 0, sum = 0, content, next;

    *at = size;
    *before = 0;
    *stop = 0;
    while (pos < size) {
	if (!RbZstdFrameAt(fd, pos, size, &content, &next)
		|| content == UINT64_MAX || next <= pos) {
	    return 0;
	}
	if (pos >= begin && *at == size) {
	    *at = pos;
	    *before = sum;
	}
	if (pos >= end) {
	    *stop = pos;
	    break;		/* the frames past it are not this window's */
	}
	sum += content;
	pos = next;
    }
    return 1;
}

/*
 * RbInputZstdSized --
 *	Whether in is a zstd file of fixed-length records every frame of
 *	which declares its content size: a split run may then cut it at
 *	frames (RbInputWindow, RB_WINDOW_FIXED).
 */
int
RbInputZstdSized(const Rb_Input *in)
{
    struct stat sb;
    uint64_t at, before, stop;

    return in->dec.comp == COMP_ZSTD && in->recLen > 0
	    && fstat(in->dec.fd, &sb) == 0 && S_ISREG(sb.st_mode)
	    && ZstdFixedPlan(in->dec.fd, (uint64_t)sb.st_size,
		(uint64_t)sb.st_size, (uint64_t)sb.st_size, &at, &before,
		&stop);
}

/*
 * CompressedWindow --
 *	RbInputWindow of a gzip, bzip2 or zstd stream, whose reader has read its
 *	header.  The window's members are those that begin in [begin, end)
 *	(a range beginning at 0 holds the first); with none, the window is
 *	empty.  Its data are those of its members, and past them:
 *	- lines (RB_WINDOW_LINES): the window starts just after the first
 *	  newline at or after its first member's start (at the file's start
 *	  for the first member) and ends just after the first newline at or
 *	  after its last member's end (or at the end of the data), reading
 *	  on into the next member to finish a line.  Windows that tile a
 *	  file so give each line to exactly one of them (a line begun in an
 *	  earlier member belongs to the earlier window);
 *	- blocks (RB_WINDOW_BLOCKS, the native format, whose every member
 *	  after the header's begins a block): exactly its members' data.
 *	Decompressed offsets and line numbers then count from the window's
 *	first member (RbInputBases gives the true ones, for messages).
 * Results: TCL_OK, or TCL_ERROR with err set (SRT, a pipe).
 */
static int
CompressedWindow(Rb_Input *in, uint64_t begin, uint64_t end, int mode,
	Rb_Error *err)
{
    Decoder *d = &in->dec;
    uint64_t here = Rb_InputOffset(in), lineNo = in->lineNo, at = 0, size;
    uint64_t before = 0, stopAt = 0, skip = 0;
    struct stat sb;

    if (mode == RB_WINDOW_SRT || fstat(d->fd, &sb) != 0
	    || !S_ISREG(sb.st_mode)) {
	Rb_SetError(err, "RUBICON READER SPLIT", "%s: this compressed %s "
		"cannot be read from the middle", in->path,
		mode == RB_WINDOW_SRT ? "SRT trace" : "stream");
	return TCL_ERROR;
    }
    size = (uint64_t)sb.st_size;
    if (in->ring != NULL) {
	RbRingStop(in->ring);	/* what it decompressed ahead is dropped */
	in->ring = NULL;
    }
    in->windowed = 1;
    in->winMode = mode;
    in->pos = in->len = 0;
    if (mode == RB_WINDOW_FIXED) {
	/* Frames known by their headers, each declaring its size, so that
	 * the window's first record boundary is known (RbInputZstdSized). */
	if (d->comp != COMP_ZSTD || in->recLen == 0
		|| !ZstdFixedPlan(d->fd, size, begin, end, &at, &before,
		&stopAt)) {
	    Rb_SetError(err, "RUBICON READER SPLIT", "%s: this compressed "
		    "file of fixed-length records cannot be read from the "
		    "middle (zstd frames that declare their sizes can)",
		    in->path);
	    return TCL_ERROR;
	}
	if (end <= begin || at >= end || at >= size) {
	    in->eof = d->eof = 1;	/* no frame begins in the range */
	    d->cut = 1;
	    return TCL_OK;
	}
    } else if (end <= begin || (begin > 0 && !FindMember(d->fd, d->comp,
	    begin, end < size ? end : size, size, mode == RB_WINDOW_BLOCKS,
	    &at))) {
	in->eof = d->eof = 1;	/* no member begins in the range */
	d->cut = 1;
	return TCL_OK;
    }
    if (lseek(d->fd, (off_t)at, SEEK_SET) < 0) {
	Rb_SetError(err, "RUBICON READER IO", "%s: cannot seek to byte "
		"offset %llu", in->path, (unsigned long long)at);
	return TCL_ERROR;
    }
    if (d->comp == COMP_GZIP) {
	inflateReset(&d->z);
    } else if (d->comp == COMP_ZSTD) {
	RbZstdReset(d->zs);
    } else {
	BZ2_bzDecompressEnd(&d->bz);
	memset(&d->bz, 0, sizeof(d->bz));
	if (BZ2_bzDecompressInit(&d->bz, 0, 0) != BZ_OK) {
	    d->streamOpen = 0;
	    Rb_SetError(err, "RUBICON READER OPEN", "%s: cannot restart the "
		    "bzip2 decompressor", in->path);
	    return TCL_ERROR;
	}
    }
    d->rawPos = d->rawLen = 0;
    d->rawEof = d->streamEnded = d->eof = d->failed = 0;
    d->rawOffset = d->winRaw = at;
    d->produced = 0;
    d->stopRaw = mode == RB_WINDOW_FIXED ? stopAt : end < size ? end : 0;
    d->stopExact = mode == RB_WINDOW_BLOCKS;
    d->markSet = d->cut = 0;
    d->rawSize = size;
    in->bufBase = in->taken = 0;
    in->eof = in->failed = 0;
    in->cutLines = mode == RB_WINDOW_LINES;
    in->cutDone = 0;
    in->cutFixed = mode == RB_WINDOW_FIXED;
    if (at == 0) {
	skip = here;		/* the file's first member: its header */
    } else if (mode == RB_WINDOW_FIXED) {
	/* The first record that begins in the window: records run from
	 * the header's end (here) in steps of recLen. */
	skip = before < here ? here - before
		: (in->recLen - (before - here) % in->recLen) % in->recLen;
    }
    in->fixedSkip = skip;
    StartThread(in);
    if (at == 0 || mode == RB_WINDOW_FIXED) {
	/* Pass over the header again, or to the first record. */
	char buf[4096];

	while (skip > 0) {
	    long n = Rb_InputRead(in, buf, skip < sizeof(buf)
		    ? (size_t)skip : sizeof(buf), NULL);

	    if (n <= 0) {
		break;
	    }
	    skip -= (uint64_t)n;
	}
	in->lineNo = lineNo;
    } else if (mode == RB_WINDOW_LINES) {
	Rb_Error ignored;

	/* The end of a line begun in an earlier member (a failure stays
	 * sticky for the reader to report). */
	(void)Rb_InputGetLine(in, NULL, &ignored);
	in->lineNo = 0;
    }
    return TCL_OK;
}

/*
 * FixedBoundary --
 *	The first record boundary at or after byte at of a plain file of
 *	size bytes whose records, of in->recLen bytes, start where its
 *	header ends (the stream's offset now): *bound, size when none is
 *	left.
 * Results: 1.
 */
static int
FixedBoundary(const Rb_Input *in, uint64_t at, uint64_t size,
	uint64_t *bound)
{
    uint64_t head = Rb_InputOffset(in), n;

    if (at <= head) {
	*bound = head;
	return 1;
    }
    n = (at - head + in->recLen - 1) / in->recLen;
    *bound = n > (size - head) / in->recLen ? size
	    : head + n * in->recLen;
    return 1;
}

/*
 * RbInputSetRecordLength, RbInputRecordLength --
 *	A reader of fixed-length records (fixed.h) tells its input their
 *	length once it knows it, so that a split run may cut a plain file
 *	at whole records (RbInputWindow, RB_WINDOW_FIXED).
 */
void
RbInputSetRecordLength(Rb_Input *in, size_t len)
{
    in->recLen = len;
}

size_t
RbInputRecordLength(const Rb_Input *in)
{
    return in->recLen;
}

/*
 * RbInputWindow --
 *	Limits a stream, whose reader has read its header, to its share of
 *	the byte range [begin, end) of the file.  A compressed one
 *	(CompressedWindow) is cut at gzip members, bzip2 streams or zstd
 *	frames.  A
 *	plain one reads the records that begin in the range:
 *	the stream moves to the first record boundary at or after begin
 *	(and after the header) and ends at the first one at or after end,
 *	so that windows that tile a file give each record to exactly one
 *	of them.  Records are lines, (srt) length-prefixed SRT records, or
 *	records of a fixed length (RB_WINDOW_FIXED).
 *	Line and record numbers then count from the window's start (for
 *	messages RbInputBases gives the lines before it); byte offsets stay
 *	those of the file.
 * Results: TCL_OK, or TCL_ERROR with err set when the stream cannot be
 *	split so (mode RB_WINDOW_LINES, RB_WINDOW_SRT, RB_WINDOW_SRT_RESYNC,
 *	RB_WINDOW_FIXED or RB_WINDOW_BLOCKS).  RB_WINDOW_SRT walks the
 *	records from the header to find the boundaries; RB_WINDOW_SRT_RESYNC
 *	finds them where the record heads line up (SrtCut), and the reader
 *	then checks that the window's last record ends exactly at its end
 *	(RbInputWindowShort).
 */
int
RbInputWindow(Rb_Input *in, uint64_t begin, uint64_t end, int mode,
	Rb_Error *err)
{
    Decoder *d = &in->dec;
    uint64_t here = Rb_InputOffset(in), from, to, size;
    int srt = mode == RB_WINDOW_SRT || mode == RB_WINDOW_SRT_RESYNC;
    int found;
    off_t sz;

    if (d->comp != COMP_NONE) {
	return CompressedWindow(in, begin, end, mode, err);
    }
    if (mode == RB_WINDOW_BLOCKS && in->ring == NULL) {
	/* Native format 2: its reader walks its blocks (RbInputBlockWindow). */
	in->windowed = 1;
	in->winMode = mode;
	in->winFrom = begin;
	in->winTo = end;
	return TCL_OK;
    }
    if (mode == RB_WINDOW_BLOCKS || in->ring != NULL
	    || (sz = lseek(d->fd, 0, SEEK_END)) < 0) {
	Rb_SetError(err, "RUBICON READER SPLIT", "%s: cannot be read from "
		"the middle", in->path);
	return TCL_ERROR;
    }
    size = (uint64_t)sz;
    if (mode == RB_WINDOW_FIXED) {
	/* Whole records from the data's start: the first boundary at or
	 * after each cut, as arithmetic. */
	found = in->recLen > 0 && FixedBoundary(in, begin, size, &from)
		&& FixedBoundary(in, end, size, &to);
    } else if (mode == RB_WINDOW_SRT_RESYNC) {
	/* Each cut found from its own bytes (SrtCut), so that the windows
	 * on each side of it agree. */
	found = SrtCut(d->fd, begin, size, here, &from)
		&& SrtCut(d->fd, end, size, here, &to);
    } else {
	found = NextBoundary(d->fd, begin > here ? begin : here, size,
		srt ? here : 0, &from)
		&& NextBoundary(d->fd, end > from ? end : from, size,
		srt ? from : 0, &to);
    }
    if (!found) {
	Rb_SetError(err, "RUBICON READER SPLIT", "%s: no record boundary "
		"found near byte offset %llu", in->path,
		(unsigned long long)begin);
	return TCL_ERROR;
    }
    if (from < here) {
	from = here;
    }
    if (lseek(d->fd, (off_t)from, SEEK_SET) < 0) {
	Rb_SetError(err, "RUBICON READER IO", "%s: cannot seek to byte "
		"offset %llu", in->path, (unsigned long long)from);
	return TCL_ERROR;
    }
    d->rawPos = d->rawLen = 0;
    d->rawEof = d->eof = 0;
    d->produced = from;
    d->limit = to > from ? to : from;
    in->pos = in->len = 0;
    in->bufBase = in->taken = from;
    in->eof = 0;
    in->lineNo = 0;
    in->windowed = 1;
    in->winMode = mode;
    in->winFrom = from;
    in->winHead = here;
    in->winShort = to < size;
    if (to <= from) {
	in->eof = d->eof = 1;
    }
    return TCL_OK;
}

/*
 * CountSrtRecords --
 *	The SRT records between byte from (a record's start) and byte to,
 *	by walking their big-endian length words, as NextBoundary does.
 */
static uint64_t
CountSrtRecords(int fd, uint64_t from, uint64_t to)
{
    unsigned char word[4];
    uint64_t n = 0;

    while (from < to && pread(fd, word, 4, (off_t)from) == 4) {
	uint32_t len = (uint32_t)word[0] << 24 | (uint32_t)word[1] << 16
		| (uint32_t)word[2] << 8 | word[3];

	if (len < 8) {
	    break;
	}
	from += len;
	n++;
    }
    return n;
}

/*
 * RbInputBases --
 *	For a message from inside a window: *lines gets the number of lines
 *	(of SRT records, in an SRT window) of the file before the window's
 *	first (add it to Rb_InputLineNo or the reader's record number),
 *	*bytes the decompressed bytes before it (add it to Rb_InputOffset;
 *	0 for a plain file, whose offsets are the file's already).  Worked
 *	out on the first call by reading the file up to the window (for a
 *	compressed one, decompressing its earlier members), so only error
 *	paths pay for it.
 * Results: none; both 0 outside a window, or when they cannot be read.
 */
void
RbInputBases(Rb_Input *in, uint64_t *lines, uint64_t *bytes)
{
    if (!in->basesKnown && in->windowed) {
	in->basesKnown = 1;
	if (in->dec.comp == COMP_NONE && (in->winMode == RB_WINDOW_SRT
		|| in->winMode == RB_WINDOW_SRT_RESYNC)) {
	    in->lineBase = CountSrtRecords(in->dec.fd, in->winHead,
		    in->winFrom);
	} else if (in->dec.comp == COMP_NONE
		&& in->winMode == RB_WINDOW_FIXED && in->recLen > 0) {
	    in->lineBase = (in->winFrom - in->winHead) / in->recLen;
	} else if (in->dec.comp == COMP_NONE
		&& in->winMode == RB_WINDOW_LINES) {
	    char *buf = Rb_Alloc(65536);
	    uint64_t pos = 0;

	    while (pos < in->winFrom) {
		uint64_t want = in->winFrom - pos < 65536 ? in->winFrom - pos
			: 65536;
		ssize_t n = pread(in->dec.fd, buf, (size_t)want, (off_t)pos);
		char *p;

		if (n <= 0) {
		    break;
		}
		for (p = buf; (p = memchr(p, '\n', (size_t)(buf + n - p)))
			!= NULL; p++) {
		    in->lineBase++;
		}
		pos += (uint64_t)n;
	    }
	    free(buf);
	} else if (in->dec.comp != COMP_NONE && in->dec.winRaw > 0) {
	    DecodeCount c;

	    if (DecodeRange(in->dec.fd, in->dec.comp, 0, in->dec.winRaw, 0,
		    &c)) {
		in->offBase = c.bytes;
		/* The line cut by the window's start is the one before.
		 * (Native blocks' record numbers stay the window's.) */
		in->lineBase = in->winMode == RB_WINDOW_LINES
			? c.newlines + 1 : 0;
	    }
	}
    }
    *lines = in->lineBase;
    *bytes = in->offBase;
}

/*
 * RbInputWindowShort --
 *	Whether a plain window ends before its file does: then a record cut
 *	by its end means the cut was not at a record boundary (the SRT
 *	reader stops the run with RUBICON READER SPLIT).
 */
int
RbInputWindowShort(const Rb_Input *in)
{
    return in->windowed && in->dec.comp == COMP_NONE && in->winShort;
}

/*
 * RbInputWindowCut --
 *	Whether the data of a window ended before the file's (a compressed
 *	window at its last member or line); *late gets whether it started
 *	after the file's first member or record.
 */
int
RbInputWindowCut(const Rb_Input *in, int *late)
{
    *late = in->windowed && (in->dec.winRaw > 0 || in->winFrom > 0);
    return in->cutDone || in->dec.cut;
}

/*
 * RbInputBlockWindow --
 *	The byte range [*begin, *end) of a plain file that RbInputWindow
 *	gave in mode RB_WINDOW_BLOCKS: native format 2 reads the blocks that
 *	begin in it.
 * Results: 1 with the range set, 0 when there is no such window.
 */
int
RbInputBlockWindow(const Rb_Input *in, uint64_t *begin, uint64_t *end)
{
    if (!in->windowed || in->winMode != RB_WINDOW_BLOCKS
	    || in->dec.comp != COMP_NONE) {
	return 0;
    }
    *begin = in->winFrom;
    *end = in->winTo;
    return 1;
}

/*
 * RbInputPlainFd --
 *	The descriptor of an uncompressed regular file, for a reader that
 *	maps it (native format 2): the stream's own reads stay usable.
 * Results: the descriptor, or -1 (compressed, a pipe or a device).
 */
int
RbInputPlainFd(const Rb_Input *in)
{
    struct stat sb;

    if (in->dec.comp != COMP_NONE || fstat(in->dec.fd, &sb) != 0
	    || !S_ISREG(sb.st_mode)) {
	return -1;
    }
    return in->dec.fd;
}

/*
 * Rb_InputOffset --
 *	Tells how far reading has got, in the decompressed data, for
 *	messages that name a byte offset.
 * Results: bytes consumed so far (returned by reads and lines, not
 *	peeked).
 * Side effects: none.
 */
uint64_t
Rb_InputOffset(const Rb_Input *in)
{
    return in->bufBase + in->pos;
}

/*
 * RbInputRawOffset --
 *	Tells how many bytes of the file (compressed bytes of a compressed
 *	one) have been read, for progress; the decompressing thread may be
 *	ahead of what the reader has consumed.
 * Results: bytes read from the file so far.
 * Side effects: none.
 */
uint64_t
RbInputRawOffset(const Rb_Input *in)
{
    return __atomic_load_n(&in->dec.rawOffset, __ATOMIC_RELAXED);
}

/*
 * Rb_InputLineNo --
 *	Tells which line Rb_InputGetLine returned last, for messages.
 * Results: its number, 1-based; 0 before the first line.
 * Side effects: none.
 */
uint64_t
Rb_InputLineNo(const Rb_Input *in)
{
    return in->lineNo;
}

/*
 * Rb_InputPath --
 *	Names the stream for messages: the path it was opened with, or
 *	"standard input" for "-".
 * Results: the name, owned by in and valid until Rb_InputClose.
 * Side effects: none.
 */
const char *
Rb_InputPath(const Rb_Input *in)
{
    return in->path;
}

/*
 * Rb_InputCompression --
 *	Tells what compression Rb_InputOpen found in the first bytes.
 * Results: "none", "gzip", "bzip2" or "zstd", a static string.
 * Side effects: none.
 */
const char *
Rb_InputCompression(const Rb_Input *in)
{
    return compNames[in->dec.comp];
}

/*
 * Rb_InputClose --
 *	Ends a stream from Rb_InputOpen (NULL: nothing).
 * Results: none.
 * Side effects: stops the decompression thread if there is one (after
 *	the chunk it is on) and the decompressor, closes the descriptor and
 *	frees the stream; lines and Rb_InputPath of it are then void.
 */
void
Rb_InputClose(Rb_Input *in)
{
    if (in == NULL) {
	return;
    }
    if (in->ring != NULL) {
	RbRingStop(in->ring);
    }
    if (in->dec.streamOpen) {
	if (in->dec.comp == COMP_GZIP) {
	    inflateEnd(&in->dec.z);
	} else if (in->dec.comp == COMP_ZSTD) {
	    RbZstdFree(in->dec.zs);
	} else {
	    BZ2_bzDecompressEnd(&in->dec.bz);
	}
    }
    close(in->dec.fd);
    free(in->dec.raw);
    free(in->buf);
    free(in->path);
    free(in);
}
