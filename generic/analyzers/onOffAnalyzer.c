/*
 * onOffAnalyzer.c --
 *
 *	OnOffAnalyzer: ON/OFF activity periods.  An ON period is a stretch of
 *	activity with no idle gap longer than -idle; the gaps between ON
 *	periods are OFF periods.  An I/O keeps its period active from its
 *	arrival to its completion (when the trace has one), so a long I/O
 *	does not look like idleness.  At most -limit periods are kept for the
 *	OnPeriods table: the I/O that would begin one more stops the run with
 *	RUBICON LIMIT PERIODS.  The scalars are summed as periods close, not
 *	from the table.
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

typedef struct OnOffState {
    int64_t idle;		/* -idle, ns */
    int64_t start, end;		/* The open ON period (when open). */
    int open;
    uint64_t outOfOrder;	/* Arrivals before the open period. */
    int64_t limit;		/* -limit: most periods kept */
    int failed;			/* -limit was reached: ignore the rest. */
    int64_t *periods;		/* Closed periods: start, end pairs. */
    size_t nperiods, cap;
    Rb_Moments on, off;		/* Lengths of the closed ON periods and
				 * of the gaps between them, s. */
} OnOffState;

static const Rb_Option onOffOptions[] = {
    {"-idle", RB_OPT_TIME, offsetof(OnOffState, idle), "1",
	"a gap in activity longer than this ends an ON period"},
    {"-limit", RB_OPT_INT, offsetof(OnOffState, limit), "1000000",
	"most ON periods kept (the run stops beyond)"},
    {NULL}
};

static const char *const onOffAttrs[] = {
    "OnPeriods", "OnFraction", "MeanOnPeriod", "MeanOffPeriod", NULL
};

/*
 * OnOffInit --
 *	Checks the options.
 * Results: TCL_OK or TCL_ERROR with a message in interp.
 */
static int
OnOffInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    OnOffState *st = a->state;

    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    return TCL_OK;
}

/*
 * OnOffStart --
 *	Forgets the periods of a previous run.
 */
static int
OnOffStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    OnOffState *st = a->state;

    st->open = 0;
    st->nperiods = 0;
    st->outOfOrder = 0;
    st->failed = 0;
    Rb_MomentsReset(&st->on);
    Rb_MomentsReset(&st->off);
    return TCL_OK;
}

/*
 * ClosePeriod --
 *	Appends the open period to the closed ones (OnOffBatch keeps their
 *	number within -limit) and counts its length and the gap before it.
 */
static void
ClosePeriod(OnOffState *st)
{
    if (st->nperiods == st->cap) {
	st->cap = st->cap ? 2 * st->cap : 64;
	if (st->cap > (size_t)st->limit) {
	    st->cap = (size_t)st->limit;
	}
	st->periods = Rb_ReallocArray(st->periods, st->cap * 2,
		sizeof(int64_t));
    }
    st->periods[2 * st->nperiods] = st->start;
    st->periods[2 * st->nperiods + 1] = st->end;
    if (st->nperiods > 0) {
	Rb_MomentsAdd(&st->off, RbSecondsBetween(
		st->periods[2 * st->nperiods - 1], st->start));
    }
    Rb_MomentsAdd(&st->on, RbSecondsBetween(st->start, st->end));
    st->nperiods++;
    st->open = 0;
}

/*
 * OnOffBatch --
 *	Extends the open period with each selected I/O, or closes it and
 *	opens another when the I/O arrives more than -idle after the period's
 *	end.  An I/O arriving before the open period began (out of order) is
 *	counted apart and extends nothing, so periods stay disjoint.  The
 *	I/O that would begin period -limit + 1 stops the run with an error
 *	naming its record; the open period is left for OnOffEnd to close.
 */
static void
OnOffBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    OnOffState *st = a->state;
    const int64_t *times = b->col[RB_IO_TIME];
    const int64_t *finishes = b->col[RB_IO_FINISH];
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int64_t t = times[sel[j]], finish = finishes[sel[j]], gap;
	int64_t busyUntil = finish != RB_ABSENT && finish > t ? finish : t;

	if (t == RB_ABSENT) {
	    continue;
	}
	if (st->open && t < st->start) {
	    st->outOfOrder++;
	    continue;
	}
	if (st->open && t > st->end
		&& (__builtin_sub_overflow(t, st->end, &gap)
		|| gap > st->idle)) {
	    if ((int64_t)st->nperiods + 1 >= st->limit) {
		st->failed = 1;
		Rb_AnalyzerError(a, "RUBICON LIMIT PERIODS", "%s: more than "
			"-limit %" PRId64 " ON periods at record %" PRIu64
			" (raise -limit; each period kept costs 16 bytes)",
			a->cls->name, st->limit, b->firstRecord + sel[j]);
		break;
	    }
	    ClosePeriod(st);
	}
	if (!st->open) {
	    st->start = t;
	    st->end = busyUntil;
	    st->open = 1;
	} else if (busyUntil > st->end) {
	    st->end = busyUntil;
	}
    }
}

/*
 * OnOffEnd --
 *	Closes the last period and sets the table of periods (times in s
 *	from the run's first record), the fraction of the run spent ON, and
 *	the mean ON and OFF lengths.
 */
static int
OnOffEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    OnOffState *st = a->state;
    Rb_Attribute *table = Rb_AttrCreate("OnPeriods", RB_ATTR_TABLE, "s",
	    "ON periods: start and end in s from the run's first record");
    int64_t ref = RbRunTimesKnown(run) ? run->firstTime : 0;
    double seconds = RbRunSeconds(run);
    int startCol, endCol, lengthCol;
    size_t k;

    if (st->open) {
	ClosePeriod(st);
    }
    startCol = Rb_AttrAddColumn(table, "start", "s", 0);
    endCol = Rb_AttrAddColumn(table, "end", "s", 0);
    lengthCol = Rb_AttrAddColumn(table, "length", "s", 0);
    for (k = 0; k < st->nperiods; k++) {
	int64_t s0 = st->periods[2 * k], s1 = st->periods[2 * k + 1];
	int row = Rb_AttrAddRow(table);

	Rb_AttrSetNum(table, row, startCol, RbSecondsBetween(ref, s0));
	Rb_AttrSetNum(table, row, endCol, RbSecondsBetween(ref, s1));
	Rb_AttrSetNum(table, row, lengthCol, RbSecondsBetween(s0, s1));
    }
    Rb_AnalyzerSet(a, table);
    Rb_AnalyzerSet(a, Rb_AttrScalar("OnFraction",
	    seconds > 0 ? st->on.sum / seconds : 0.0, "",
	    "time in ON periods over the run's duration"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanOnPeriod", st->on.n ? st->on.mean : 0.0,
	    "s", "mean length of an ON period"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanOffPeriod", st->off.n ? st->off.mean : 0.0,
	    "s", "mean length of an OFF period between two ON periods"));
    return TCL_OK;
}

/*
 * OnOffFree --
 *	Frees the periods.
 */
static void
OnOffFree(Rb_Analyzer *a)
{
    OnOffState *st = a->state;

    free(st->periods);
    st->periods = NULL;
    st->cap = 0;
}

/*
 * Not mergeable: a period that spans a shard boundary, or shards that
 * interleave in time, would need the shards' periods joined and their
 * gaps re-measured against -idle; only time-ordered shards allow that.
 * Memory grows with the number of ON periods (16 bytes each), at most
 * -limit of them.
 */
const Rb_AnalyzerClass Rb_OnOffAnalyzerClass = {
    .name = "OnOffAnalyzer",
    .help = "ON/OFF activity periods with an idle threshold",
    .stateSize = sizeof(OnOffState),
    .options = onOffOptions,
    .attrs = onOffAttrs,
    .mergeable = 0,
    .perRecordState = 1,
    .init = OnOffInit,
    .start = OnOffStart,
    .batch = OnOffBatch,
    .end = OnOffEnd,
    .freeState = OnOffFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_FINISH),
};
