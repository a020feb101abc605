/*
 * streamAnalyzer.c --
 *
 *	StreamAnalyzer: interleaved sequential streams.  Several readers or
 *	writers may each go sequentially through one device at once, their
 *	I/Os interleaved; SeqRunAnalyzer, which compares an I/O only with the
 *	device's previous one, sees random I/O.  Here each device keeps the
 *	ends of its -streams most recently used streams, most recent first,
 *	and an I/O that starts at (or up to -gap bytes after) one of those
 *	ends continues that stream; otherwise it starts a stream, displacing
 *	the least recently used one when the table is full.  A stream's
 *	length is counted when it is displaced or when the run ends.  At
 *	most -limit devices are held: the I/O of one device more stops the
 *	run with RUBICON LIMIT KEYS.
 *
 *	For a split run (with -gap 0) each device also keeps what an
 *	earlier shard's streams can change in its shard: the streams it
 *	began while its table had room, what became of each, and how many
 *	streams ran beside an I/O while such a stream held one I/O
 *	(StreamMerge).
 */

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analyzers.h"
#include "core/mpi.h"

#define MAX_STREAMS 4096
#define LENGTH_BINS 64

typedef struct StreamEntry {
    int64_t end;		/* Offset + size of its last I/O. */
    uint64_t ios;
    uint64_t bytes;
    int64_t tag;		/* The early start that began it, or -1. */
} StreamEntry;

/*
 * The early starts of a device in its shard: the streams it began while
 * its table had room (the j-th is tag j), which alone may continue a
 * stream an earlier shard left in the table.  Arrays of 64-bit words.
 */
typedef struct StreamEarly {
    int64_t *starts;		/* Per early start: its offset, the streams
				 * of 2 or more I/Os in the table, k, and
				 * the k tags of early streams of one I/O. */
    size_t nstarts, startsLen, startsCap;
    int64_t *fates;		/* Per early start: I/Os and bytes of its
				 * stream when it ended, or -1 -1. */
    size_t fatesLen, fatesCap;
    int64_t *events;		/* Per I/O continuing a stream below early
				 * streams of one I/O: its interleaved
				 * count, k, and their k tags. */
    size_t eventsLen, eventsCap;
} StreamEarly;

/* The streams of one device and its counts. */
typedef struct StreamDevice {
    int64_t key;		/* Device number (or other -field value). */
    uint64_t ios;		/* I/Os seen. */
    uint64_t starts;		/* I/Os that started a stream. */
    uint64_t streams;		/* Finished streams of 2 or more I/Os, */
    uint64_t streamIos;		/* their I/Os */
    uint64_t streamBytes;	/* and bytes. */
    uint64_t peak;		/* Most streams seen interleaved. */
    StreamEarly *early;		/* Made at its first stream. */
    int n;			/* Entries in use, */
    StreamEntry entries[];	/* most recently used first. */
} StreamDevice;

typedef struct StreamState {
    char *field;		/* -field */
    char *offsetField;		/* -offsetField */
    int64_t gap;		/* -gap, bytes */
    int64_t streams;		/* -streams */
    int64_t limit;		/* -limit: most devices held */
    int failed;			/* -limit was reached: ignore the rest. */
    int keyIndex, offsetIndex;
    int keyIsText;
    Rb_KeyTable devices;	/* device -> StreamDevice * */
    StreamDevice *last;		/* Device of the previous I/O. */
    const Rb_RunInfo *run;	/* The run started. */
    unsigned char *raw;		/* Deserialized: its own state's bytes, */
    size_t rawLen;
    Rb_Buf *pending;		/* and (merged on a rank other than 0)
				 * those of the later shards, in order. */
    size_t npending;
    uint64_t lengths[LENGTH_BINS];	/* Finished streams by length: bin b
				 * holds lengths 2^b .. 2^(b+1)-1. */
} StreamState;

static const Rb_Option streamOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(StreamState, field), "deviceNo",
	"field whose value names the device the streams belong to"},
    {"-offsetField", RB_OPT_FIELD, offsetof(StreamState, offsetField),
	"devOffset", "field holding the I/O's offset in bytes"},
    {"-gap", RB_OPT_INT, offsetof(StreamState, gap), "0",
	"bytes an I/O may start after a stream's end and still continue it"},
    {"-streams", RB_OPT_INT, offsetof(StreamState, streams), "32",
	"streams remembered per device (least recently used displaced)"},
    {"-limit", RB_OPT_INT, offsetof(StreamState, limit), "100000",
	"most distinct devices held (the run stops beyond)"},
    {NULL}
};

static const char *const streamAttrs[] = {
    "Streams", "StreamFraction", "StreamLength", "StreamBytes",
    "PeakStreams", "StreamLengths", "StreamsByDevice", NULL
};

/*
 * StreamInit --
 *	Checks the options (the fields are checked at start).
 * Results: TCL_OK or TCL_ERROR with a message in interp.
 */
static int
StreamInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    StreamState *st = a->state;

    if (st->gap < 0) {
	return RbKitOptionError(a, interp, "-gap must not be negative");
    }
    if (st->streams < 1 || st->streams > MAX_STREAMS) {
	return RbKitOptionError(a, interp,
		"-streams must be between 1 and %d", MAX_STREAMS);
    }
    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    return TCL_OK;
}

/*
 * FreeEarly --
 *	Frees a device's early starts.
 */
static void
FreeEarly(StreamDevice *dev)
{
    if (dev->early != NULL) {
	free(dev->early->starts);
	free(dev->early->fates);
	free(dev->early->events);
	free(dev->early);
	dev->early = NULL;
    }
}

/*
 * FreePending --
 *	Frees the bytes kept of deserialized and deferred states.
 */
static void
FreePending(StreamState *st)
{
    size_t k;

    for (k = 0; k < st->npending; k++) {
	Rb_BufFree(&st->pending[k]);
    }
    free(st->pending);
    free(st->raw);
    st->pending = NULL;
    st->raw = NULL;
    st->npending = st->rawLen = 0;
}

/*
 * FreeDevices --
 *	Frees every device's streams and empties the table.
 */
static void
FreeDevices(StreamState *st)
{
    uint64_t i;

    for (i = 0; i < st->devices.cap; i++) {
	if (st->devices.used[i]) {
	    StreamDevice *dev = *(StreamDevice **)Rb_KeyTableValue(
		    &st->devices, i);

	    FreeEarly(dev);
	    free(dev);
	}
    }
    Rb_KeyTableClear(&st->devices);
    st->last = NULL;
}

/*
 * GapRefusal --
 *	The error of an instance with -gap above 0 in a split run.
 * Results: TCL_ERROR.
 */
static int
GapRefusal(Rb_Analyzer *a)
{
    Rb_AnalyzerError(a, "RUBICON SPLIT UNMERGEABLE", "%s: StreamAnalyzer "
	    "with -gap above 0 cannot merge partial results exactly, so a "
	    "run split over processes would be wrong; run it in one process "
	    "(mpirun -np 1, or without mpirun), or split it with -gap 0",
	    a->cmdName ? a->cmdName : a->cls->name);
    return TCL_ERROR;
}

/*
 * StreamStart --
 *	Checks the options, resolves the fields and forgets the streams of a
 *	previous run.
 * Results: TCL_OK, or TCL_ERROR when a field is unknown or an option bad.
 */
static int
StreamStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    StreamState *st = a->state;

    if (StreamInit(a, NULL) != TCL_OK) {
	return TCL_ERROR;
    }
    st->keyIndex = -1;
    if (Rb_AnalyzerField(a, run, st->field, &st->keyIndex) != TCL_OK
	    || st->keyIndex < 0
	    || RbKitIntegerField(a, run, st->offsetField, &st->offsetIndex)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    st->keyIsText = run->schema->fields[st->keyIndex].type == RB_FT_STRING;
    if (st->devices.valSize == 0) {
	Rb_KeyTableInit(&st->devices, sizeof(StreamDevice *));
    }
    FreeDevices(st);
    FreePending(st);
    memset(st->lengths, 0, sizeof(st->lengths));
    st->failed = 0;
    st->run = run;
    if (st->gap > 0 && RbMergeWanted()) {
	return GapRefusal(a);
    }
    return TCL_OK;
}

/*
 * FindDevice --
 *	The streams of device key, made empty if it is new and fewer than
 *	-limit devices are held.
 * Results: the streams, or NULL when key is new and the table is full.
 */
static StreamDevice *
FindDevice(StreamState *st, int64_t key)
{
    StreamDevice **dev;

    if (st->last != NULL && st->last->key == key) {
	return st->last;
    }
    dev = Rb_KeyTableFindLimited(&st->devices, key, st->limit);
    if (dev == NULL) {
	return NULL;
    }
    if (*dev == NULL) {
	*dev = Rb_Realloc(NULL, sizeof(StreamDevice)
		+ (size_t)st->streams * sizeof(StreamEntry));
	memset(*dev, 0, sizeof(StreamDevice));
	(*dev)->key = key;
	(*dev)->early = NULL;
    }
    st->last = *dev;
    return *dev;
}

/*
 * FinishStream --
 *	Counts the length of a stream that has ended (displaced, or the run
 *	is over).
 */
static void
FinishStream(StreamState *st, StreamDevice *dev, const StreamEntry *e)
{
    if (e->tag >= 0 && dev->early != NULL) {
	dev->early->fates[2 * e->tag] = (int64_t)e->ios;
	dev->early->fates[2 * e->tag + 1] = (int64_t)e->bytes;
    }
    st->lengths[63 - __builtin_clzll(e->ios)]++;
    if (e->ios >= 2) {
	dev->streams++;
	dev->streamIos += e->ios;
	dev->streamBytes += e->bytes;
    }
}

/*
 * PushWord --
 *	Appends v to a growable array of words.
 */
static void
PushWord(int64_t **words, size_t *n, size_t *cap, int64_t v)
{
    if (*n == *cap) {
	*cap = *cap ? 2 * *cap : 16;
	*words = Rb_ReallocArray(*words, *cap, sizeof(int64_t));
    }
    (*words)[(*n)++] = v;
}

/*
 * PushSingles --
 *	Appends the number, then the tags, of the early streams of one I/O
 *	among the device's first n entries.
 */
static void
PushSingles(const StreamDevice *dev, int n, int64_t **words, size_t *len,
	size_t *cap)
{
    int i, k = 0;

    for (i = 0; i < n; i++) {
	k += dev->entries[i].tag >= 0 && dev->entries[i].ios == 1;
    }
    PushWord(words, len, cap, k);
    for (i = 0; i < n && k > 0; i++) {
	if (dev->entries[i].tag >= 0 && dev->entries[i].ios == 1) {
	    PushWord(words, len, cap, dev->entries[i].tag);
	}
    }
}

/*
 * NoteEarlyStart --
 *	Before the device, whose table has room, begins a stream at
 *	offset: notes the start (StreamEarly).
 * Results: its tag.
 */
static int64_t
NoteEarlyStart(StreamDevice *dev, int64_t offset)
{
    StreamEarly *e = dev->early;
    int64_t longer = 0;
    int i;

    if (e == NULL) {
	e = dev->early = Rb_Alloc(sizeof(StreamEarly));
	memset(e, 0, sizeof(StreamEarly));
    }
    for (i = 0; i < dev->n; i++) {
	longer += dev->entries[i].ios >= 2;
    }
    PushWord(&e->starts, &e->startsLen, &e->startsCap, offset);
    PushWord(&e->starts, &e->startsLen, &e->startsCap, longer);
    PushSingles(dev, dev->n, &e->starts, &e->startsLen, &e->startsCap);
    PushWord(&e->fates, &e->fatesLen, &e->fatesCap, -1);
    PushWord(&e->fates, &e->fatesLen, &e->fatesCap, -1);
    return (int64_t)e->nstarts++;
}

/*
 * StreamIo --
 *	Continues the stream whose end the I/O at offset (of reqSize bytes)
 *	follows most closely within -gap (the most recent one of equals),
 *	or starts a new stream.
 */
static void
StreamIo(StreamState *st, StreamDevice *dev, int64_t offset,
	int64_t reqSize)
{
    uint64_t gap = (uint64_t)st->gap, bestDistance = UINT64_MAX;
    int64_t end = (int64_t)((uint64_t)offset + (uint64_t)reqSize);
    StreamEntry found;
    int i, best = -1;

    for (i = 0; i < dev->n; i++) {
	/* Unsigned arithmetic: no overflow on wild offsets.  Whether an end
	 * lies before the offset is a coin toss on random I/O, so that test
	 * is made without a branch; the one left is rarely taken. */
	uint64_t distance = (uint64_t)offset - (uint64_t)dev->entries[i].end;
	int near = (offset >= dev->entries[i].end) & (distance <= gap);

	distance = near ? distance : UINT64_MAX;
	if (distance < bestDistance) {
	    best = i;
	    bestDistance = distance;
	    if (distance == 0) {
		break;
	    }
	}
    }
    dev->ios++;
    if (best >= 0) {
	uint64_t interleaved = 1;

	/* The streams more recent than this one each had an I/O since
	 * its previous I/O: those of 2 or more I/Os run beside it. */
	int singles = 0;

	for (i = 0; i < best; i++) {
	    interleaved += dev->entries[i].ios >= 2;
	    singles += dev->entries[i].tag >= 0 && dev->entries[i].ios == 1;
	}
	if (singles > 0) {
	    StreamEarly *e = dev->early;

	    PushWord(&e->events, &e->eventsLen, &e->eventsCap,
		    (int64_t)interleaved);
	    PushSingles(dev, best, &e->events, &e->eventsLen,
		    &e->eventsCap);
	}
	if (interleaved > dev->peak) {
	    dev->peak = interleaved;
	}
	found = dev->entries[best];
	found.ios++;
	found.bytes += (uint64_t)reqSize;
	found.end = end;
    } else {
	dev->starts++;
	if (dev->n == st->streams) {
	    FinishStream(st, dev, &dev->entries[--dev->n]);
	    found.tag = -1;
	} else {
	    found.tag = NoteEarlyStart(dev, offset);
	}
	best = dev->n++;
	found.ios = 1;
	found.bytes = (uint64_t)reqSize;
	found.end = end;
    }
    memmove(&dev->entries[1], &dev->entries[0], best * sizeof(StreamEntry));
    dev->entries[0] = found;
}

/*
 * StreamBatch --
 *	Passes each selected I/O to its device's streams.  I/Os without a
 *	device, offset or size, or with a negative size, are skipped.  The
 *	I/O of a device one beyond -limit stops the run with an error naming
 *	its record.
 */
static void
StreamBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    StreamState *st = a->state;
    const int64_t *keys = b->col[st->keyIndex];
    const int64_t *offsets = b->col[st->offsetIndex];
    const int64_t *sizes = b->col[RB_IO_SIZE];
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int64_t key = keys[sel[j]], offset = offsets[sel[j]];
	int64_t reqSize = sizes[sel[j]];
	StreamDevice *dev;

	if (key == RB_ABSENT || offset == RB_ABSENT || reqSize == RB_ABSENT
		|| reqSize < 0) {
	    continue;
	}
	dev = FindDevice(st, key);
	if (dev == NULL) {
	    st->failed = 1;
	    RbKitDeviceLimit(a, st->limit, st->field, b->firstRecord + sel[j],
		    117 + 32 * (int64_t)st->streams);
	    break;
	}
	StreamIo(st, dev, offset, reqSize);
    }
}

/*
 * CompareDevices --
 *	qsort order of device pointers: by key.
 */
static int
CompareDevices(const void *p, const void *q)
{
    const StreamDevice *d1 = *(StreamDevice *const *)p;
    const StreamDevice *d2 = *(StreamDevice *const *)q;

    return (d1->key > d2->key) - (d1->key < d2->key);
}

/*
 * LengthHistogram --
 *	The StreamLengths attribute: finished streams (single I/Os included)
 *	per power-of-two range of lengths, from the first non-empty range to
 *	the last.
 */
static Rb_Attribute *
LengthHistogram(const StreamState *st)
{
    Rb_Attribute *attr = Rb_AttrCreate("StreamLengths", RB_ATTR_HISTOGRAM,
	    "IOs", "number of streams per range of lengths in I/Os");
    int loCol = Rb_AttrAddColumn(attr, "lo", "IOs", 0);
    int hiCol = Rb_AttrAddColumn(attr, "hi", "IOs", 0);
    int countCol = Rb_AttrAddColumn(attr, "count", "", 0);
    int first = 0, last = LENGTH_BINS - 1, k;

    while (first < LENGTH_BINS && st->lengths[first] == 0) {
	first++;
    }
    while (last >= first && st->lengths[last] == 0) {
	last--;
    }
    for (k = first; k <= last; k++) {
	int row = Rb_AttrAddRow(attr);

	Rb_AttrSetNum(attr, row, loCol, ldexp(1.0, k));
	Rb_AttrSetNum(attr, row, hiCol, ldexp(1.0, k + 1));
	Rb_AttrSetNum(attr, row, countCol, (double)st->lengths[k]);
    }
    return attr;
}

/*
 * Ratio --
 *	n / d, or 0 when d is 0.
 */
static double
Ratio(uint64_t n, uint64_t d)
{
    return d ? (double)n / (double)d : 0.0;
}

/*
 * StreamEnd --
 *	Ends the streams still open, then sets the totals over all devices,
 *	the length histogram and the per-device table (in device order).
 */
static int
StreamEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    StreamState *st = a->state;
    StreamDevice **devs = Rb_AllocArray(st->devices.count + 1,
	    sizeof(StreamDevice *));
    uint64_t i, n = 0, ios = 0, starts = 0, streams = 0, streamIos = 0;
    uint64_t streamBytes = 0, peak = 0;
    Rb_Attribute *table;
    int devCol, iosCol, streamsCol, fracCol, lengthCol, peakCol;

    for (i = 0; i < st->devices.cap; i++) {
	StreamDevice *dev;

	if (!st->devices.used[i]) {
	    continue;
	}
	dev = *(StreamDevice **)Rb_KeyTableValue(&st->devices, i);
	while (dev->n > 0) {
	    FinishStream(st, dev, &dev->entries[--dev->n]);
	}
	devs[n++] = dev;
	ios += dev->ios;
	starts += dev->starts;
	streams += dev->streams;
	streamIos += dev->streamIos;
	streamBytes += dev->streamBytes;
	if (dev->peak > peak) {
	    peak = dev->peak;
	}
    }
    qsort(devs, n, sizeof(StreamDevice *), CompareDevices);

    Rb_AnalyzerSet(a, Rb_AttrScalar("Streams", (double)streams, "",
	    "number of sequential streams of 2 or more I/Os"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("StreamFraction",
	    Ratio(ios - starts, ios), "",
	    "fraction of I/Os that continue a stream"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("StreamLength",
	    Ratio(streamIos, streams), "IOs",
	    "mean number of I/Os per stream of 2 or more I/Os"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("StreamBytes",
	    Ratio(streamBytes, streams), "bytes",
	    "mean bytes per stream of 2 or more I/Os"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("PeakStreams", (double)peak, "",
	    "most streams of one device seen interleaved"));
    Rb_AnalyzerSet(a, LengthHistogram(st));

    table = Rb_AttrCreate("StreamsByDevice", RB_ATTR_TABLE, "",
	    "sequential streams of each device");
    devCol = Rb_AttrAddColumn(table, "device", "", st->keyIsText);
    iosCol = Rb_AttrAddColumn(table, "ios", "", 0);
    streamsCol = Rb_AttrAddColumn(table, "streams", "", 0);
    fracCol = Rb_AttrAddColumn(table, "streamFraction", "", 0);
    lengthCol = Rb_AttrAddColumn(table, "meanLength", "IOs", 0);
    peakCol = Rb_AttrAddColumn(table, "peakStreams", "", 0);
    for (i = 0; i < n; i++) {
	int row = Rb_AttrAddRow(table);

	if (st->keyIsText) {
	    const char *name = Rb_SchemaString(run->schema, devs[i]->key);

	    Rb_AttrSetText(table, row, devCol, name ? name : "");
	} else {
	    Rb_AttrSetNum(table, row, devCol, (double)devs[i]->key);
	}
	Rb_AttrSetNum(table, row, iosCol, (double)devs[i]->ios);
	Rb_AttrSetNum(table, row, streamsCol, (double)devs[i]->streams);
	Rb_AttrSetNum(table, row, fracCol,
		Ratio(devs[i]->ios - devs[i]->starts, devs[i]->ios));
	Rb_AttrSetNum(table, row, lengthCol,
		Ratio(devs[i]->streamIos, devs[i]->streams));
	Rb_AttrSetNum(table, row, peakCol, (double)devs[i]->peak);
    }
    Rb_AnalyzerSet(a, table);
    free(devs);
    return TCL_OK;
}

/*
 * StreamFree --
 *	Frees the devices and their streams.
 */
static void
StreamFree(Rb_Analyzer *a)
{
    StreamState *st = a->state;

    FreeDevices(st);
    FreePending(st);
    Rb_KeyTableFree(&st->devices);
}

/*
 * PutWords, GetWords --
 *	A count and that many 64-bit words; Get returns them malloc'd (NULL
 *	for none), *n and *cap set.
 */
static void
PutWords(Rb_Buf *b, const int64_t *words, size_t n)
{
    size_t i;

    Rb_BufPutInt(b, (int64_t)n);
    for (i = 0; i < n; i++) {
	Rb_BufPutInt(b, words[i]);
    }
}

static int64_t *
GetWords(Rb_Buf *b, size_t *n, size_t *cap)
{
    int64_t count = Rb_BufGetCount(b, 8), i, *words = NULL;

    if (count > 0) {
	words = Rb_AllocArray((size_t)count, sizeof(int64_t));
	for (i = 0; i < count; i++) {
	    words[i] = Rb_BufGetInt(b);
	}
    }
    *n = *cap = (size_t)count;
    return words;
}

/*
 * PutState --
 *	The lengths, then each device: key, counts, streams (with their
 *	tags) and early starts.
 */
static void
PutState(const StreamState *st, const Rb_Schema *textSchema, Rb_Buf *b)
{
    uint64_t i;
    int k;

    RbKitPutCounters(b, st->lengths, LENGTH_BINS);
    Rb_BufPutInt(b, (int64_t)st->devices.count);
    for (i = 0; i < st->devices.cap; i++) {
	const StreamDevice *dev;
	const StreamEarly *e;

	if (!st->devices.used[i]) {
	    continue;
	}
	dev = *(StreamDevice *const *)Rb_KeyTableValue(&st->devices, i);
	RbKitPutKey(b, textSchema, dev->key);
	RbKitPutCounters(b, &dev->ios, 6);
	Rb_BufPutInt(b, dev->n);
	for (k = 0; k < dev->n; k++) {
	    RbKitPutCounters(b, &dev->entries[k], 4);
	}
	e = dev->early;
	Rb_BufPutInt(b, e ? (int64_t)e->nstarts : 0);
	PutWords(b, e ? e->starts : NULL, e ? e->startsLen : 0);
	PutWords(b, e ? e->fates : NULL, e ? e->fatesLen : 0);
	PutWords(b, e ? e->events : NULL, e ? e->eventsLen : 0);
    }
}

/*
 * GetState --
 *	Reads what PutState wrote into st (started, no devices).
 */
static void
GetState(StreamState *st, Rb_Schema *textSchema, Rb_Buf *b)
{
    int64_t n, i, k;

    RbKitGetCounters(b, st->lengths, LENGTH_BINS);
    n = Rb_BufGetCount(b, 8 * 12);
    for (i = 0; i < n && !b->bad; i++) {
	StreamDevice *dev = FindDevice(st, RbKitGetKey(b, textSchema));
	StreamEarly *e;
	int64_t count;

	if (dev == NULL) {
	    b->bad = 1;
	    return;
	}
	RbKitGetCounters(b, &dev->ios, 6);
	count = Rb_BufGetInt(b);
	if (count < 0 || count > st->streams) {
	    b->bad = 1;
	    return;
	}
	for (k = 0; k < count; k++) {
	    RbKitGetCounters(b, &dev->entries[k], 4);
	}
	dev->n = (int)count;
	e = dev->early = Rb_Alloc(sizeof(StreamEarly));
	e->nstarts = (size_t)Rb_BufGetInt(b);
	e->starts = GetWords(b, &e->startsLen, &e->startsCap);
	e->fates = GetWords(b, &e->fatesLen, &e->fatesCap);
	e->events = GetWords(b, &e->eventsLen, &e->eventsCap);
	if (e->fatesLen != 2 * e->nstarts) {
	    b->bad = 1;
	}
    }
    st->last = NULL;
}

/*
 * StreamSerialize, StreamDeserialize --
 *	serialize and deserialize hooks: the state (PutState), then the
 *	states of later shards a rank other than 0 merged, as bytes.
 *	Deserialize keeps the state's own bytes too, for a rank that passes
 *	them on.
 */
static int
StreamSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    StreamState *st = a->state;
    size_t k;

    if (st->gap > 0) {
	return GapRefusal(a);
    }
    PutState(st, st->keyIsText ? run->schema : NULL, b);
    Rb_BufPutInt(b, (int64_t)st->npending);
    for (k = 0; k < st->npending; k++) {
	Rb_BufPutString(b, (const char *)st->pending[k].data,
		st->pending[k].len);
    }
    return TCL_OK;
}

static int
StreamDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    StreamState *st = a->state;
    size_t from = b->pos, len;
    int64_t n, k;

    if (st->gap > 0) {
	return GapRefusal(a);
    }
    GetState(st, st->keyIsText ? run->schema : NULL, b);
    if (b->bad) {
	return TCL_OK;
    }
    st->rawLen = b->pos - from;
    st->raw = Rb_Alloc(st->rawLen + 1);
    memcpy(st->raw, b->data + from, st->rawLen);
    n = Rb_BufGetCount(b, 8);
    st->pending = Rb_AllocArray((size_t)n + 1, sizeof(Rb_Buf));
    for (k = 0; k < n && !b->bad; k++) {
	const char *bytes = Rb_BufGetString(b, &len);

	memset(&st->pending[k], 0, sizeof(Rb_Buf));
	if (bytes != NULL) {
	    Rb_BufPutBytes(&st->pending[k], bytes, len);
	    st->npending++;
	}
    }
    return TCL_OK;
}

/*
 * Revive --
 *	Passes other's early starts of a device, in order, to the streams
 *	the shards before left in its table (ghosts, most recent first,
 *	below every stream of other's): the j-th continues the most recent
 *	ghost ending at its offset (carry[j] gets that ghost's I/Os and
 *	bytes, and the streams beside it, other's and the ghosts above it,
 *	are a peak candidate),
 *	else it takes a place and, the table full, displaces the oldest
 *	ghost, which ends there.
 * Results: the starts that continued a ghost; *ng the ghosts left.
 */
static uint64_t
Revive(StreamState *st, StreamDevice *dev, const StreamEarly *oe,
	StreamEntry *ghosts, int *ng, int64_t *carry)
{
    uint64_t revived = 0;
    size_t p = 0, j;
    int g, t;

    for (j = 0; j < oe->nstarts; j++) {
	int64_t offset = oe->starts[p], longer = oe->starts[p + 1];
	int64_t k = oe->starts[p + 2];
	const int64_t *tags = &oe->starts[p + 3];

	p += 3 + (size_t)k;
	for (g = 0; g < *ng && ghosts[g].end != offset; g++) {
	}
	if (g < *ng) {
	    uint64_t beside = 1 + (uint64_t)longer;

	    for (t = 0; t < g; t++) {
		beside += ghosts[t].ios >= 2;
	    }
	    carry[2 * j] = (int64_t)ghosts[g].ios;
	    carry[2 * j + 1] = (int64_t)ghosts[g].bytes;
	    memmove(&ghosts[g], &ghosts[g + 1],
		    (size_t)(*ng - g - 1) * sizeof(StreamEntry));
	    (*ng)--;
	    revived++;
	    for (t = 0; t < k; t++) {
		beside += carry[2 * tags[t]] > 0;
	    }
	    if (beside > dev->peak) {
		dev->peak = beside;
	    }
	} else if ((int64_t)j + 1 + *ng > st->streams) {
	    FinishStream(st, dev, &ghosts[--(*ng)]);
	}
    }
    return revived;
}

/*
 * Settle --
 *	Corrects what other counted of its streams that continued a ghost
 *	(carry): the I/Os beside them while they held one I/O, and the
 *	length of those that ended in other (those still open get the
 *	carry in the table, ApplyDevice).
 */
static void
Settle(StreamState *st, StreamDevice *dev, const StreamEarly *oe,
	const int64_t *carry)
{
    size_t p = 0, j;

    while (p < oe->eventsLen) {
	uint64_t beside = (uint64_t)oe->events[p];
	int64_t k = oe->events[p + 1], t;

	for (t = 0; t < k; t++) {
	    beside += carry[2 * oe->events[p + 2 + t]] > 0;
	}
	if (beside > dev->peak) {
	    dev->peak = beside;
	}
	p += 2 + (size_t)k;
    }
    for (j = 0; j < oe->nstarts; j++) {
	int64_t ios = oe->fates[2 * j], bytes = oe->fates[2 * j + 1];
	int64_t ci = carry[2 * j], cb = carry[2 * j + 1];

	if (ci == 0 || ios < 0) {
	    continue;
	}
	st->lengths[63 - __builtin_clzll((uint64_t)ios)]--;
	st->lengths[63 - __builtin_clzll((uint64_t)(ios + ci))]++;
	if (ios >= 2) {
	    dev->streamIos += (uint64_t)ci;
	    dev->streamBytes += (uint64_t)cb;
	} else {
	    dev->streams++;
	    dev->streamIos += (uint64_t)(ios + ci);
	    dev->streamBytes += (uint64_t)(bytes + cb);
	}
    }
}

/*
 * ApplyDevice --
 *	Merges into dev the same device of a later shard, od: the streams
 *	dev holds are ghosts for od's early starts (Revive, Settle); the
 *	table becomes od's streams, carries added, over the ghosts left.
 */
static void
ApplyDevice(StreamState *st, StreamDevice *dev, const StreamDevice *od)
{
    static const StreamEarly none;
    const StreamEarly *oe = od->early ? od->early : &none;
    StreamEntry *ghosts = Rb_AllocArray((size_t)dev->n + 1,
	    sizeof(StreamEntry));
    int64_t *carry = Rb_AllocArray(2 * oe->nstarts + 2, sizeof(int64_t));
    int ng = dev->n, k;
    uint64_t revived;

    memcpy(ghosts, dev->entries, (size_t)dev->n * sizeof(StreamEntry));
    for (k = 0; k < ng; k++) {
	ghosts[k].tag = -1;
    }
    memset(carry, 0, (2 * oe->nstarts + 2) * sizeof(int64_t));
    if (od->peak > dev->peak) {
	dev->peak = od->peak;
    }
    revived = Revive(st, dev, oe, ghosts, &ng, carry);
    Settle(st, dev, oe, carry);
    while (ng > 0 && od->n + ng > st->streams) {
	/* Not reached while od holds its shard's first starts; keeps the
	 * table within -streams whatever it holds. */
	FinishStream(st, dev, &ghosts[--ng]);
    }
    for (k = 0; k < od->n; k++) {
	dev->entries[k] = od->entries[k];
	if (od->entries[k].tag >= 0) {
	    dev->entries[k].ios += (uint64_t)carry[2 * od->entries[k].tag];
	    dev->entries[k].bytes +=
		    (uint64_t)carry[2 * od->entries[k].tag + 1];
	}
	dev->entries[k].tag = -1;
    }
    memcpy(&dev->entries[od->n], ghosts, (size_t)ng * sizeof(StreamEntry));
    dev->n = od->n + ng;
    dev->ios += od->ios;
    dev->starts += od->starts - revived;
    dev->streams += od->streams;
    dev->streamIos += od->streamIos;
    dev->streamBytes += od->streamBytes;
    FreeEarly(dev);
    free(ghosts);
    free(carry);
}

/*
 * ApplyState --
 *	Merges a later shard's state o into a's, device by device.
 * Results: TCL_OK, or TCL_ERROR past -limit devices.
 */
static int
ApplyState(Rb_Analyzer *a, const StreamState *o)
{
    StreamState *st = a->state;
    uint64_t i;
    int k;

    for (k = 0; k < LENGTH_BINS; k++) {
	st->lengths[k] += o->lengths[k];
    }
    for (i = 0; i < o->devices.cap; i++) {
	const StreamDevice *od;
	StreamDevice *dev;

	if (!o->devices.used[i]) {
	    continue;
	}
	od = *(StreamDevice *const *)Rb_KeyTableValue(&o->devices, i);
	if ((dev = FindDevice(st, od->key)) == NULL) {
	    Rb_AnalyzerError(a, "RUBICON LIMIT KEYS", "%s: more than -limit "
		    "%" PRId64 " devices in the merged shards (raise -limit)",
		    a->cls->name, st->limit);
	    return TCL_ERROR;
	}
	ApplyDevice(st, dev, od);
    }
    st->last = NULL;
    return TCL_OK;
}

/*
 * ApplyBytes --
 *	ApplyState of a state kept as bytes.
 */
static int
ApplyBytes(Rb_Analyzer *a, const Rb_Buf *bytes)
{
    StreamState *st = a->state, tmp;
    Rb_Buf b = *bytes;
    int code;

    memset(&tmp, 0, sizeof(tmp));
    tmp.streams = st->streams;
    tmp.limit = st->limit;
    Rb_KeyTableInit(&tmp.devices, sizeof(StreamDevice *));
    b.pos = 0;
    GetState(&tmp, st->keyIsText ? st->run->schema : NULL, &b);
    if (b.bad) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH", "%s: a shard's state "
		"is cut short", a->cls->name);
	code = TCL_ERROR;
    } else {
	code = ApplyState(a, &tmp);
    }
    FreeDevices(&tmp);
    Rb_KeyTableFree(&tmp.devices);
    return code;
}

/*
 * StreamMerge --
 *	merge hook: other's I/Os follow a's.  On rank 0, whose state is of
 *	the first shard and so whole, other's state and those it carries
 *	are merged in (ApplyState); on another rank, whose table the
 *	shards before it would change, other's states are kept as bytes
 *	for rank 0.
 * Results: TCL_OK, or TCL_ERROR with -gap above 0 (RUBICON SPLIT
 *	UNMERGEABLE) or past -limit devices.
 */
static int
StreamMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    StreamState *st = a->state;
    const StreamState *ost = other->state;
    size_t k;

    if (st->gap > 0) {
	return GapRefusal(a);
    }
    if (RbMpiRank() != 0) {
	st->pending = Rb_ReallocArray(st->pending,
		st->npending + ost->npending + 1, sizeof(Rb_Buf));
	memset(&st->pending[st->npending], 0, sizeof(Rb_Buf));
	Rb_BufPutBytes(&st->pending[st->npending++], ost->raw, ost->rawLen);
	for (k = 0; k < ost->npending; k++) {
	    memset(&st->pending[st->npending], 0, sizeof(Rb_Buf));
	    Rb_BufPutBytes(&st->pending[st->npending++],
		    ost->pending[k].data, ost->pending[k].len);
	}
	return TCL_OK;
    }
    if (ApplyState(a, ost) != TCL_OK) {
	return TCL_ERROR;
    }
    for (k = 0; k < ost->npending; k++) {
	if (ApplyBytes(a, &ost->pending[k]) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    return TCL_OK;
}


/*
 * Mergeable in time order with -gap 0: a shard's early starts are
 * settled against the streams the shards before it left (StreamMerge).
 */
const Rb_AnalyzerClass Rb_StreamAnalyzerClass = {
    .name = "StreamAnalyzer",
    .help = "interleaved sequential streams per device: streams, fraction "
	    "of I/Os that continue one, mean and distribution of lengths",
    .stateSize = sizeof(StreamState),
    .options = streamOptions,
    .attrs = streamAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .init = StreamInit,
    .start = StreamStart,
    .batch = StreamBatch,
    .end = StreamEnd,
    .freeState = StreamFree,
    .merge = StreamMerge,
    .serialize = StreamSerialize,
    .deserialize = StreamDeserialize,
    /* And the -field and -offsetField it resolves at start. */
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
