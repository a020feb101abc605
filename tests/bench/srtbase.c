/*
 * srtbase.c --
 *
 *	The hand-written C baselines of the benchmark: what a competent
 *	engineer would write to get I/O rate and bandwidth out of an SRT v7
 *	trace without Rubicon.  It reads the file with fread in large
 *	blocks, decodes only the words it needs, and keeps, per group, the
 *	count of I/Os, their bytes and both per 10 s interval of trace time.
 *
 *	srtbase fig4 trace.srt     groups dev1, dev2 and all (Figure 4)
 *	srtbase perdev trace.srt   one group per device number
 *	srtbase scan trace.srt     decodes every record, keeps nothing
 *	srtbase perstore4 trace.srt   one group per device number, with
 *	                           what RateAnalyzer, SizeAnalyzer,
 *	                           ReadFractionAnalyzer and SeqRunAnalyzer
 *	                           compute (perstore4.tcl)
 *
 *	A trace whose name ends in .csv is read as MSR Cambridge CSV
 *	(Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime, the
 *	time in 100 ns ticks) instead: blocks read with fread, lines found
 *	with memchr, the three fields needed parsed by hand.  One whose name
 *	ends in .rbn is Rubicon's native format (doc/native.n: gzip of a
 *	header and columnar blocks of 8-byte little-endian values), read
 *	with zlib's gzread a block at a time; its times are nanoseconds.
 *
 *	Output, one line per group and one per non-empty interval:
 *	    GROUP count N bytes B rate R bandwidth W
 *	(perstore4 adds: meansize S minsize S maxsize S reads N writes N
 *	runs N, a run being I/Os each starting where the one before on its
 *	device ended)
 *	    GROUP bin K COUNT BYTES
 *	Rates divide by the trace's duration (last enqueue time minus first),
 *	as Rubicon's RateAnalyzer and BandwidthAnalyzer do.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define REC_LEN		88
#define BLOCK_RECS	8192
#define BIN_SEC		10		/* Rubicon's default interval, s */
#define MAX_GROUPS	4096
#define READ_BIT	0x00080000u	/* is_read in the flags word */

typedef struct Group {
    char name[32];
    long long count, bytes;
    long long minSize, maxSize, reads, writes, runs;
    unsigned long long prevEnd;	/* offset + size of the previous I/O */
    long long nbins;
    long long (*bins)[2];	/* per interval: count, bytes */
} Group;

static Group groups[MAX_GROUPS];
static int ngroups;

/*
 * Be32 --
 *	The big-endian word at p.
 */
static inline uint32_t
Be32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16)
	    | ((uint32_t)p[2] << 8) | p[3];
}

/*
 * NewGroup --
 *	Adds an empty group called name; returns it.
 */
static Group *
NewGroup(const char *name)
{
    Group *g;

    if (ngroups == MAX_GROUPS) {
	fprintf(stderr, "srtbase: more than %d groups\n", MAX_GROUPS);
	exit(1);
    }
    g = &groups[ngroups++];
    snprintf(g->name, sizeof(g->name), "%s", name);
    return g;
}

/*
 * Add --
 *	Counts one I/O of size bytes in interval k of group g.
 */
static inline void
Add(Group *g, long long k, uint32_t size)
{
    g->count++;
    g->bytes += size;
    if (k >= g->nbins) {
	long long n = g->nbins ? g->nbins : 64;

	while (n <= k) {
	    n *= 2;
	}
	g->bins = realloc(g->bins, n * sizeof(*g->bins));
	if (g->bins == NULL) {
	    perror("srtbase");
	    exit(1);
	}
	memset(g->bins + g->nbins, 0, (n - g->nbins) * sizeof(*g->bins));
	g->nbins = n;
    }
    g->bins[k][0]++;
    g->bins[k][1] += size;
}

/*
 * DeviceGroup --
 *	The group of a device number (a small open-addressing table: device
 *	numbers are arbitrary 32-bit dev_t values).
 */
static Group *
DeviceGroup(uint32_t dev)
{
    static uint32_t keys[2 * MAX_GROUPS];
    static Group *vals[2 * MAX_GROUPS];
    uint32_t slot = (dev * 2654435761u) & (2 * MAX_GROUPS - 1);
    char name[32];

    while (vals[slot] != NULL) {
	if (keys[slot] == dev) {
	    return vals[slot];
	}
	slot = (slot + 1) & (2 * MAX_GROUPS - 1);
    }
    snprintf(name, sizeof(name), "dev%u", dev);
    keys[slot] = dev;
    vals[slot] = NewGroup(name);
    return vals[slot];
}

/*
 * CsvNext --
 *	The next line of an MSR CSV trace fp: its time in microseconds
 *	(ticks / 10), disk number, size, offset and whether it is a read.
 * Results: 1, or 0 at the end of the file.
 */
static int
CsvNext(FILE *fp, long long *t, uint32_t *dev, uint32_t *size,
	unsigned long long *offset, int *isRead)
{
    static char buf[1 << 20];
    static size_t pos, len;
    unsigned long long v[7];
    char *p, *nl;
    int f;

    nl = memchr(buf + pos, '\n', len - pos);
    if (nl == NULL) {
	memmove(buf, buf + pos, len - pos);
	len -= pos;
	pos = 0;
	len += fread(buf + len, 1, sizeof(buf) - len - 1, fp);
	if (len == 0) {
	    return 0;
	}
	nl = memchr(buf, '\n', len);
	if (nl == NULL) {
	    nl = buf + len;	/* a last line without a newline */
	    buf[len++] = '\n';
	}
    }
    p = buf + pos;
    for (f = 0; f < 7; f++) {
	unsigned long long x = 0;

	if (f == 3) {
	    *isRead = *p == 'R';
	}
	if (f == 1 || f == 3) {
	    while (*p != ',') {
		p++;
	    }
	} else {
	    for (; *p >= '0' && *p <= '9'; p++) {
		x = x * 10 + (unsigned long long)(*p - '0');
	    }
	}
	v[f] = x;
	p++;
    }
    pos = (size_t)(nl - buf) + 1;
    *t = (long long)(v[0] / 10);
    *dev = (uint32_t)v[2];
    *size = (uint32_t)v[5];
    *offset = v[4];
    return 1;
}

/*
 * The native format's reader: the file, the columns the modes read
 * (index in the header's field list) and the current block.
 */
typedef struct Native {
    gzFile gz;
    const char *path;
    uint32_t nfields;
    int time, dev, size, offset, op;
    int64_t *block;			/* nfields x n values, columnar */
    uint32_t n, next;			/* records in it, the next one */
} Native;

/*
 * GzExact --
 *	Reads n bytes of the native file into p, or exits naming it.
 */
static void
GzExact(Native *nv, void *p, unsigned n)
{
    if (gzread(nv->gz, p, n) != (int)n) {
	fprintf(stderr, "srtbase: %s: truncated native file\n", nv->path);
	exit(1);
    }
}

/*
 * GzU32 --
 *	The next little-endian 32-bit word of the native file.
 */
static uint32_t
GzU32(Native *nv)
{
    unsigned char b[4];

    GzExact(nv, b, 4);
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16
	    | (uint32_t)b[3] << 24;
}

/*
 * GzString --
 *	Reads a native string (u32 length, bytes) into buf (cap bytes,
 *	NUL-terminated, the rest skipped).
 */
static void
GzString(Native *nv, char *buf, size_t cap)
{
    uint32_t len = GzU32(nv), i;
    char c;

    for (i = 0; i < len; i++) {
	GzExact(nv, &c, 1);
	if (i + 1 < cap) {
	    buf[i] = c;
	}
    }
    buf[len < cap ? len : cap - 1] = '\0';
}

/*
 * NativeOpen --
 *	Opens a native trace and finds the fields the modes read.
 */
static void
NativeOpen(Native *nv, const char *path)
{
    char magic[8], name[256];
    int64_t epoch;
    uint32_t f;

    memset(nv, 0, sizeof(*nv));
    nv->path = path;
    nv->time = nv->dev = nv->size = nv->offset = nv->op = -1;
    if ((nv->gz = gzopen(path, "rb")) == NULL) {
	perror(path);
	exit(1);
    }
    gzbuffer(nv->gz, 1 << 20);
    GzExact(nv, magic, 8);
    if (memcmp(magic, "RBNATIVE", 8) != 0 || GzU32(nv) != 1) {
	fprintf(stderr, "srtbase: %s: not a version 1 native file\n", path);
	exit(1);
    }
    GzExact(nv, &epoch, 8);
    GzString(nv, name, sizeof(name));
    nv->nfields = GzU32(nv);
    for (f = 0; f < nv->nfields; f++) {
	GzString(nv, name, sizeof(name));
	GzU32(nv);			/* type */
	GzU32(nv);			/* unit */
	if (strcmp(name, "time") == 0) nv->time = (int)f;
	if (strcmp(name, "deviceNo") == 0) nv->dev = (int)f;
	if (strcmp(name, "size") == 0) nv->size = (int)f;
	if (strcmp(name, "devOffset") == 0) nv->offset = (int)f;
	if (strcmp(name, "op") == 0) nv->op = (int)f;
	GzString(nv, name, sizeof(name));	/* help */
    }
    if (nv->time < 0 || nv->dev < 0 || nv->size < 0 || nv->offset < 0
	    || nv->op < 0) {
	fprintf(stderr, "srtbase: %s: not an I/O trace\n", path);
	exit(1);
    }
    nv->block = malloc((size_t)nv->nfields * 4096 * sizeof(int64_t));
    if (nv->block == NULL) {
	perror("srtbase");
	exit(1);
    }
}

/*
 * NativeNext --
 *	The next record of a native trace (its time in ns), reading a block
 *	when the one in hand is used up.
 * Results: 1, or 0 at the end marker.
 */
static int
NativeNext(Native *nv, long long *t, uint32_t *dev, uint32_t *size,
	unsigned long long *offset, int *isRead)
{
    const int64_t *b = nv->block;
    size_t n;

    while (nv->next == nv->n) {
	char magic[4], skip[64];
	uint32_t s;

	GzExact(nv, magic, 4);
	if (memcmp(magic, "RBEN", 4) == 0) {
	    return 0;
	}
	if (memcmp(magic, "RBBK", 4) != 0) {
	    fprintf(stderr, "srtbase: %s: bad block\n", nv->path);
	    exit(1);
	}
	for (s = GzU32(nv); s > 0; s--) {
	    GzString(nv, skip, sizeof(skip));
	}
	nv->n = GzU32(nv);
	if (nv->n == 0 || nv->n > 4096) {
	    fprintf(stderr, "srtbase: %s: bad block\n", nv->path);
	    exit(1);
	}
	GzExact(nv, nv->block, nv->nfields * nv->n * sizeof(int64_t));
	nv->next = 0;
    }
    n = nv->n;
    *t = b[nv->time * n + nv->next];
    *dev = (uint32_t)b[nv->dev * n + nv->next];
    *size = (uint32_t)b[nv->size * n + nv->next];
    *offset = (unsigned long long)b[nv->offset * n + nv->next];
    *isRead = b[nv->op * n + nv->next] == 0;
    nv->next++;
    return 1;
}

/*
 * Count --
 *	Counts one I/O of device dev, size bytes, at offset and a read or
 *	not, in interval k, in the groups of mode (fig4: dev1, dev2 and
 *	all; perdev: its device's; perstore4: its device's, with sizes,
 *	reads and runs).
 */
static inline void
Count(int mode, Group *dev1, Group *dev2, Group *all, uint32_t dev,
	long long k, uint32_t size, unsigned long long offset, int isRead)
{
    Group *g;

    if (mode == '4') {
	g = DeviceGroup(dev);
	if (g->count == 0 || offset != g->prevEnd) {
	    g->runs++;
	}
	if (g->count == 0 || (long long)size < g->minSize) {
	    g->minSize = size;
	}
	if (g->count == 0 || (long long)size > g->maxSize) {
	    g->maxSize = size;
	}
	g->prevEnd = offset + size;
	g->reads += isRead;
	g->writes += !isRead;
	Add(g, k, size);
    } else if (mode == 'f') {
	if (dev == 1) {
	    Add(dev1, k, size);
	} else if (dev == 2) {
	    Add(dev2, k, size);
	}
	Add(all, k, size);
    } else if (mode == 'p') {
	Add(DeviceGroup(dev), k, size);
    }
}

/*
 * main --
 *	Reads the trace, groups its I/Os and prints the results.
 */
int
main(int argc, char **argv)
{
    static unsigned char buf[BLOCK_RECS * REC_LEN];
    Group *dev1 = NULL, *dev2 = NULL, *all = NULL;
    long long first = 0, last = 0, records = 0;
    double seconds;
    size_t got, i;
    FILE *fp;
    int c, mode, gi, csv, native;
    long long perSec = 1000000;		/* time units per second */
    long long k;

    if (argc != 3 || (strcmp(argv[1], "fig4") && strcmp(argv[1], "perdev")
	    && strcmp(argv[1], "scan") && strcmp(argv[1], "perstore4"))) {
	fprintf(stderr, "usage: srtbase fig4|perdev|perstore4|scan "
		"trace.srt|trace.csv|trace.rbn\n");
	return 2;
    }
    mode = strcmp(argv[1], "perstore4") == 0 ? '4' : argv[1][0];
    csv = strlen(argv[2]) > 4
	    && strcmp(argv[2] + strlen(argv[2]) - 4, ".csv") == 0;
    native = strlen(argv[2]) > 4
	    && strcmp(argv[2] + strlen(argv[2]) - 4, ".rbn") == 0;
    if ((fp = fopen(argv[2], "rb")) == NULL) {
	perror(argv[2]);
	return 1;
    }
    if (mode == 'f') {
	dev1 = NewGroup("dev1");
	dev2 = NewGroup("dev2");
	all = NewGroup("all");
    }
    if (csv) {
	unsigned long long offset;
	long long t;
	uint32_t dev, size;
	int isRead;

	while (CsvNext(fp, &t, &dev, &size, &offset, &isRead)) {
	    if (records++ == 0) {
		first = t;
	    }
	    last = t;
	    Count(mode, dev1, dev2, all, dev,
		    (t - first) / (BIN_SEC * 1000000LL), size, offset, isRead);
	}
    } else if (native) {
	unsigned long long offset;
	long long t;
	uint32_t dev, size;
	int isRead;
	Native nv;

	NativeOpen(&nv, argv[2]);
	while (NativeNext(&nv, &t, &dev, &size, &offset, &isRead)) {
	    if (records++ == 0) {
		first = t;
	    }
	    last = t;
	    Count(mode, dev1, dev2, all, dev,
		    (t - first) / (BIN_SEC * 1000000000LL), size, offset,
		    isRead);
	}
	gzclose(nv.gz);
	perSec = 1000000000;
    } else {
	while ((c = getc(fp)) != EOF && c != '\f') {
	}
	while ((got = fread(buf, REC_LEN, BLOCK_RECS, fp)) > 0) {
	    for (i = 0; i < got; i++) {
		const unsigned char *r = buf + i * REC_LEN;
		long long t = (long long)Be32(r + 8) * 1000000 + Be32(r + 12);
		uint32_t size = Be32(r + 24), dev = Be32(r + 32);

		if (Be32(r) != REC_LEN || Be32(r + 4) != 0x00070001) {
		    fprintf(stderr, "srtbase: %s: record %lld is not a v7 "
			    "I/O record\n", argv[2], records + 1);
		    return 1;
		}
		if (records++ == 0) {
		    first = t;
		}
		last = t;
		Count(mode, dev1, dev2, all, dev,
			(t - first) / (BIN_SEC * 1000000LL), size,
			(unsigned long long)Be32(r + 64) << 32
			| Be32(r + 68), (Be32(r + 44) & READ_BIT) != 0);
	    }
	}
    }
    fclose(fp);

    seconds = (double)(last - first) / (double)perSec;
    for (gi = 0; gi < ngroups; gi++) {
	Group *g = &groups[gi];

	printf("%s count %lld bytes %lld rate %.17g bandwidth %.17g",
		g->name, g->count, g->bytes,
		seconds > 0 ? g->count / seconds : 0.0,
		seconds > 0 ? g->bytes / seconds : 0.0);
	if (mode == '4') {
	    printf(" meansize %.17g minsize %lld maxsize %lld reads %lld "
		    "writes %lld runs %lld", (double)g->bytes / g->count,
		    g->minSize, g->maxSize, g->reads, g->writes, g->runs);
	}
	printf("\n");
	for (k = 0; k < g->nbins; k++) {
	    if (g->bins[k][0] > 0) {
		printf("%s bin %lld %lld %lld\n", g->name, k, g->bins[k][0],
			g->bins[k][1]);
	    }
	}
    }
    if (mode == 's') {
	printf("records %lld seconds %.6f\n", records, seconds);
    }
    return 0;
}
