/*
 * seekDistanceAnalyzer.c --
 *
 *	SeekDistanceAnalyzer: per device, the distance in bytes from where
 *	the device's previous I/O ended to where the next one starts
 *	(negative for a backward seek), in arrival order.  At most -limit
 *	devices are held: the I/O of one device more stops the run with
 *	RUBICON LIMIT KEYS.
 */

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include "analyzers.h"

typedef struct SeekDistanceState {
    char *field;		/* -field */
    char *offsetField;		/* -offsetField */
    int64_t limit;		/* -limit: most devices held */
    int failed;			/* -limit was reached: ignore the rest. */
    int keyIndex, offsetIndex;
    Rb_KeyTable prevEnd;	/* device -> offset + size of its last I/O,
				 * then the offset of its first (for a split
				 * run: the seek from the shard before) */
    Rb_LogHist distances;	/* Signed, bytes. */
    Rb_Moments magnitude;	/* |distance| */
} SeekDistanceState;

static const Rb_Option seekDistanceOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(SeekDistanceState, field), "deviceNo",
	"field naming the device"},
    {"-offsetField", RB_OPT_FIELD, offsetof(SeekDistanceState, offsetField),
	"devOffset", "field holding the offset in bytes"},
    {"-limit", RB_OPT_INT, offsetof(SeekDistanceState, limit), "1000000",
	"most distinct devices held (the run stops beyond)"},
    {NULL}
};

static const char *const seekDistanceAttrs[] = {
    "SeekDistance", "MeanSeekDistance", "ZeroSeekFraction", NULL
};

/*
 * SeekDistanceStart --
 *	Checks -limit, resolves the fields and forgets the devices of a
 *	previous run.
 */
static int
SeekDistanceStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    SeekDistanceState *st = a->state;

    if (st->limit <= 0) {
	return RbKitOptionError(a, NULL, "-limit must be positive");
    }
    if (RbKitNumericField(a, run, st->field, &st->keyIndex) != TCL_OK
	    || RbKitIntegerField(a, run, st->offsetField, &st->offsetIndex)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->prevEnd.valSize == 0) {
	Rb_KeyTableInit(&st->prevEnd, 2 * sizeof(int64_t));
    }
    Rb_KeyTableClear(&st->prevEnd);
    Rb_LogHistReset(&st->distances);
    Rb_MomentsReset(&st->magnitude);
    st->failed = 0;
    return TCL_OK;
}

/*
 * SeekDistanceBatch --
 *	Counts the seek before each selected I/O that has a predecessor on
 *	its device.  I/Os without a device, offset or size, or with a
 *	negative size, are skipped.  The I/O of a device one beyond -limit
 *	stops the run with an error naming its record.
 */
static void
SeekDistanceBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    SeekDistanceState *st = a->state;
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int i = sel[j];
	int64_t key = b->col[st->keyIndex][i];
	int64_t offset = b->col[st->offsetIndex][i];
	int64_t reqSize = b->col[RB_IO_SIZE][i];
	int64_t *end;
	int isNew;
	double d;

	if (key == RB_ABSENT || offset == RB_ABSENT || reqSize == RB_ABSENT
		|| reqSize < 0) {
	    continue;
	}
	end = Rb_KeyTableFind(&st->prevEnd, key, 0);
	isNew = end == NULL;
	if (isNew) {
	    end = Rb_KeyTableFindLimited(&st->prevEnd, key, st->limit);
	    if (end == NULL) {
		st->failed = 1;
		RbKitDeviceLimit(a, st->limit, st->field, b->firstRecord + i, 45);
		break;
	    }
	}
	if (!isNew) {
	    d = (double)offset - (double)*end;
	    Rb_LogHistAdd(&st->distances, d);
	    Rb_MomentsAdd(&st->magnitude, fabs(d));
	} else {
	    end[1] = offset;
	}
	*end = (int64_t)((uint64_t)offset + (uint64_t)reqSize);
    }
}

/*
 * SeekDistanceEnd --
 *	Sets the signed distance percentiles, the mean magnitude and the
 *	fraction of I/Os that start exactly where the previous one ended.
 */
static int
SeekDistanceEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    SeekDistanceState *st = a->state;
    uint64_t n = st->distances.moments.n;

    Rb_AnalyzerSet(a, Rb_LogHistAttr(&st->distances, "SeekDistance",
	    "bytes", 1.0, "percentiles of the signed seek distance "
	    "(within 1%)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanSeekDistance",
	    n ? st->magnitude.mean : 0.0, "bytes",
	    "mean absolute seek distance"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ZeroSeekFraction",
	    n ? (double)st->distances.zeros / (double)n : 0.0, "",
	    "fraction of seeks of distance 0 (sequential I/Os)"));
    return TCL_OK;
}

/*
 * SeekDistanceFree --
 *	Frees the device table and the buckets.
 */
static void
SeekDistanceFree(Rb_Analyzer *a)
{
    SeekDistanceState *st = a->state;

    Rb_KeyTableFree(&st->prevEnd);
    Rb_LogHistFree(&st->distances);
}

/*
 * SeekDistanceSerialize, SeekDistanceDeserialize --
 *	serialize and deserialize hooks: per device the end of its last I/O
 *	and the offset of its first, and the distances.
 */
static int
SeekDistanceSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    SeekDistanceState *st = a->state;

    Rb_BufPutInt(b, st->failed);
    Rb_KeyTablePut(b, &st->prevEnd, NULL);
    Rb_LogHistPut(b, &st->distances);
    Rb_MomentsPut(b, &st->magnitude);
    return TCL_OK;
}

static int
SeekDistanceDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    SeekDistanceState *st = a->state;

    st->failed = (int)Rb_BufGetInt(b);
    Rb_KeyTableGet(b, &st->prevEnd, NULL);
    Rb_LogHistGet(b, &st->distances);
    Rb_MomentsGet(b, &st->magnitude);
    return TCL_OK;
}

/*
 * SeekDistanceMerge --
 *	merge hook: other's I/Os follow a's, so each device's first I/O in
 *	other seeks from the end of its last I/O in a, as in one pass.
 * Results: TCL_OK, or TCL_ERROR when the devices exceed -limit.
 */
static int
SeekDistanceMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    SeekDistanceState *st = a->state;
    const SeekDistanceState *ost = other->state;
    uint64_t i;

    for (i = 0; i < ost->prevEnd.cap; i++) {
	const int64_t *oend;
	int64_t *end;

	if (!ost->prevEnd.used[i]) {
	    continue;
	}
	oend = Rb_KeyTableValue(&ost->prevEnd, i);
	end = Rb_KeyTableFind(&st->prevEnd, ost->prevEnd.keys[i], 0);
	if (end != NULL) {
	    double d = (double)oend[1] - (double)end[0];

	    Rb_LogHistAdd(&st->distances, d);
	    Rb_MomentsAdd(&st->magnitude, fabs(d));
	    end[0] = oend[0];
	    continue;
	}
	end = Rb_KeyTableFindLimited(&st->prevEnd, ost->prevEnd.keys[i],
		st->limit);
	if (end == NULL) {
	    Rb_AnalyzerError(a, "RUBICON LIMIT KEYS", "%s: more than -limit "
		    "%" PRId64 " devices in the merged shards (raise -limit)",
		    a->cls->name, st->limit);
	    return TCL_ERROR;
	}
	end[0] = oend[0];
	end[1] = oend[1];
    }
    st->failed |= ost->failed;
    Rb_MomentsMerge(&st->magnitude, &ost->magnitude);
    return Rb_LogHistMerge(a, &st->distances, &ost->distances);
}

/*
 * Mergeable in time order: the seek to a device's first I/O in a shard
 * comes from its last I/O in the shard before (SeekDistanceMerge).
 */
const Rb_AnalyzerClass Rb_SeekDistanceAnalyzerClass = {
    .name = "SeekDistanceAnalyzer",
    .help = "seek distance per device from the previous I/O's end",
    .stateSize = sizeof(SeekDistanceState),
    .options = seekDistanceOptions,
    .attrs = seekDistanceAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .start = SeekDistanceStart,
    .batch = SeekDistanceBatch,
    .end = SeekDistanceEnd,
    .freeState = SeekDistanceFree,
    .merge = SeekDistanceMerge,
    .serialize = SeekDistanceSerialize,
    .deserialize = SeekDistanceDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
