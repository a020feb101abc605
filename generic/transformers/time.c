/*
 * time.c --
 *
 *	TimeTransformer: shifts and scales the times of records (time,
 *	startTime, finishTime): t' = t * scale + shift.  Scaling by 0.5
 *	replays a trace twice as fast; shifting aligns two traces.
 */

#include "transformers.h"

static const char *const timeFields[] = {"time", "startTime", "finishTime"};
#define NTIMEFIELDS 3

typedef struct TimeState {
    double shift;		/* -shift, seconds */
    double scale;		/* -scale */
    int64_t shiftNs;
    int nfields;
    int fields[NTIMEFIELDS];
} TimeState;

static const Rb_Option timeOptions[] = {
    {"-shift", RB_OPT_DOUBLE, offsetof(TimeState, shift), "0",
	"seconds added to every time (may be negative)"},
    {"-scale", RB_OPT_DOUBLE, offsetof(TimeState, scale), "1",
	"factor every time is multiplied by, before the shift (> 0)"},
    {NULL}
};

/*
 * TimeInit --
 *	Checks that the scale keeps times in order and the shift is a
 *	number of nanoseconds that fits.
 */
static int
TimeInit(Rb_Transformer *t, Tcl_Interp *interp)
{
    TimeState *st = t->state;

    if (!(st->scale > 0) || !isfinite(st->scale)) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"-scale must be a positive number, not %g", st->scale);
    }
    if (!(fabs(st->shift) < 9.2e9)) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"-shift %g is out of range", st->shift);
    }
    st->shiftNs = llround(st->shift * 1e9);
    return TCL_OK;
}

/*
 * TimeStart --
 *	Finds which of the time fields the run's schema has ("time" at
 *	least).
 */
static int
TimeStart(Rb_Transformer *t, const Rb_RunInfo *run)
{
    TimeState *st = t->state;
    int k, f;

    st->nfields = 0;
    for (k = 0; k < NTIMEFIELDS; k++) {
	f = Rb_SchemaFieldIndex(run->schema, timeFields[k]);
	if (f >= 0) {
	    st->fields[st->nfields++] = f;
	}
    }
    if (st->nfields == 0) {
	return RbXfField(t, run->schema, "time", &f);
    }
    return TCL_OK;
}

/*
 * NewTime --
 *	value * scale + shift into *result.
 * Results: 1, or 0 when the result does not fit in int64 ns (or would
 *	read as absent).
 */
static int
NewTime(const TimeState *st, int64_t value, int64_t *result)
{
    double v;

    if (st->scale == 1.0) {
	return !__builtin_add_overflow(value, st->shiftNs, result)
		&& *result != RB_ABSENT;
    }
    v = (double)value * st->scale + (double)st->shiftNs;
    if (!(v > -9.2e18 && v < 9.2e18)) {
	return 0;
    }
    *result = llround(v);
    return 1;
}

/*
 * TimeTransform --
 *	Copies the selected records with new times; absent times stay
 *	absent.
 * Results: TCL_ERROR when a new time would overflow.
 */
static int
TimeTransform(Rb_Transformer *t, const Rb_Batch *in, const uint32_t *sel,
	int nsel, Rb_Batch *out)
{
    TimeState *st = t->state;
    int j, k;

    for (j = 0; j < nsel; j++) {
	int o = Rb_BatchCopyRecord(out, in, sel[j]);

	for (k = 0; k < st->nfields; k++) {
	    int64_t *slot = &out->col[st->fields[k]][o];

	    if (*slot != RB_ABSENT && !NewTime(st, *slot, slot)) {
		Rb_SetError(&t->err, "RUBICON TRANSFORMER RANGE",
			"record %llu: time %lld ns scaled by %g and shifted "
			"by %g s does not fit in 64 bits",
			(unsigned long long)(in->firstRecord + sel[j]),
			(long long)*slot, st->scale, st->shift);
		return TCL_ERROR;
	    }
	}
    }
    return TCL_OK;
}

const Rb_TransformerClass Rb_TimeTransformerClass = {
    "TimeTransformer",
    "shifts and scales time, startTime and finishTime",
    sizeof(TimeState), timeOptions,
    TimeInit, TimeStart, TimeTransform, NULL, NULL,
    1
};
