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
 */

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analyzers.h"

#define MAX_STREAMS 4096
#define LENGTH_BINS 64

typedef struct StreamEntry {
    int64_t end;		/* Offset + size of its last I/O. */
    uint64_t ios;
    uint64_t bytes;
} StreamEntry;

/* The streams of one device and its counts. */
typedef struct StreamDevice {
    int64_t key;		/* Device number (or other -field value). */
    uint64_t ios;		/* I/Os seen. */
    uint64_t starts;		/* I/Os that started a stream. */
    uint64_t streams;		/* Finished streams of 2 or more I/Os, */
    uint64_t streamIos;		/* their I/Os */
    uint64_t streamBytes;	/* and bytes. */
    uint64_t peak;		/* Most streams seen interleaved. */
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
 * FreeDevices --
 *	Frees every device's streams and empties the table.
 */
static void
FreeDevices(StreamState *st)
{
    uint64_t i;

    for (i = 0; i < st->devices.cap; i++) {
	if (st->devices.used[i]) {
	    free(*(StreamDevice **)Rb_KeyTableValue(&st->devices, i));
	}
    }
    Rb_KeyTableClear(&st->devices);
    st->last = NULL;
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
    memset(st->lengths, 0, sizeof(st->lengths));
    st->failed = 0;
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
    st->lengths[63 - __builtin_clzll(e->ios)]++;
    if (e->ios >= 2) {
	dev->streams++;
	dev->streamIos += e->ios;
	dev->streamBytes += e->bytes;
    }
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
	for (i = 0; i < best; i++) {
	    interleaved += dev->entries[i].ios >= 2;
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
		    109 + 24 * (int64_t)st->streams);
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
    Rb_KeyTableFree(&st->devices);
}

/*
 * Not mergeable: a stream that crosses a shard boundary would be counted
 * as two, and which stream an I/O continues depends on every I/O of its
 * device before it.
 */
const Rb_AnalyzerClass Rb_StreamAnalyzerClass = {
    .name = "StreamAnalyzer",
    .help = "interleaved sequential streams per device: streams, fraction "
	    "of I/Os that continue one, mean and distribution of lengths",
    .stateSize = sizeof(StreamState),
    .options = streamOptions,
    .attrs = streamAttrs,
    .mergeable = 0,
    .perRecordState = 1,
    .init = StreamInit,
    .start = StreamStart,
    .batch = StreamBatch,
    .end = StreamEnd,
    .freeState = StreamFree,
    /* And the -field and -offsetField it resolves at start. */
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
