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
    Rb_KeyTable prevEnd;	/* device -> offset + size of its last I/O */
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
	return Rb_KitOptionError(a, NULL, "-limit must be positive");
    }
    if (Rb_KitNumericField(a, run, st->field, &st->keyIndex) != TCL_OK
	    || Rb_KitIntegerField(a, run, st->offsetField, &st->offsetIndex)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->prevEnd.valSize == 0) {
	Rb_KeyTableInit(&st->prevEnd, sizeof(int64_t));
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
		Rb_KitDeviceLimit(a, st->limit, st->field, b->firstRecord + i, 45);
		break;
	    }
	}
	if (!isNew) {
	    d = (double)offset - (double)*end;
	    Rb_LogHistAdd(&st->distances, d);
	    Rb_MomentsAdd(&st->magnitude, fabs(d));
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
 * Not mergeable: the seek to a device's first I/O in a shard comes from
 * its last I/O in the shard before.
 */
const Rb_AnalyzerClass Rb_SeekDistanceAnalyzerClass = {
    .name = "SeekDistanceAnalyzer",
    .help = "seek distance per device from the previous I/O's end",
    .stateSize = sizeof(SeekDistanceState),
    .options = seekDistanceOptions,
    .attrs = seekDistanceAttrs,
    .mergeable = 0,
    .perRecordState = 1,
    .start = SeekDistanceStart,
    .batch = SeekDistanceBatch,
    .end = SeekDistanceEnd,
    .freeState = SeekDistanceFree,
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
