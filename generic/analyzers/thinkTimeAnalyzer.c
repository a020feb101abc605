/*
 * thinkTimeAnalyzer.c --
 *
 *	ThinkTimeAnalyzer: closed-loop think time per process (or thread,
 *	device: any key field).  For each I/O after a key's first, the time
 *	from the completion (finishTime) of the key's previous I/O to this
 *	one's arrival (time), when it arrives at or after that completion;
 *	an I/O arriving while the previous one is still outstanding is
 *	counted apart.  Percentiles (within 1%), mean and count of the think
 *	times of every key together, and the fraction of I/Os issued while
 *	the previous one was outstanding.
 *
 *	One entry per key in a key table of at most -limit keys: the record
 *	with one key more stops the run with RUBICON LIMIT KEYS.
 */

#include <inttypes.h>
#include <stddef.h>
#include "analyzers.h"

typedef struct KeyThink {
    int64_t seen;		/* 1 once the key has an I/O. */
    int64_t firstArrival;	/* Its first I/O's time (split runs). */
    int64_t lastFinish;		/* Its last I/O's finishTime, or
				 * RB_ABSENT. */
} KeyThink;

typedef struct ThinkTimeState {
    char *by;			/* -by */
    int64_t limit;		/* -limit */
    int failed;			/* -limit was reached: ignore the rest. */
    int keyIndex;
    Rb_KeyTable keys;		/* key -> KeyThink */
    uint64_t followers;		/* I/Os after one with a known finish. */
    uint64_t overlapped;	/* Of those, arriving before it finished. */
    Rb_LogHist think;		/* Think times, ns. */
} ThinkTimeState;

static const Rb_Option thinkTimeOptions[] = {
    {"-by", RB_OPT_FIELD, offsetof(ThinkTimeState, by), "pid",
	"field whose values are the keys (pid, thread, deviceNo, ...)"},
    {"-limit", RB_OPT_INT, offsetof(ThinkTimeState, limit), "1000000",
	"most distinct keys held (the run stops beyond)"},
    {NULL}
};

static const char *const thinkTimeAttrs[] = {
    "ThinkTime", "MeanThinkTime", "ThinkTimeCount", "OverlappedFraction",
    "ThinkTimeKeys", NULL
};

/*
 * ThinkTimeStart --
 *	Checks -limit, resolves -by (integer or text) and empties the
 *	table and the histogram.
 */
static int
ThinkTimeStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ThinkTimeState *st = a->state;

    if (st->limit <= 0) {
	return RbKitOptionError(a, NULL, "-limit must be positive");
    }
    st->keyIndex = -1;
    if (Rb_AnalyzerTypedField(a, run, st->by, RB_FT_BIT(RB_FT_INT)
	    | RB_FT_BIT(RB_FT_STRING), &st->keyIndex) != TCL_OK
	    || st->keyIndex < 0) {
	return TCL_ERROR;
    }
    if (st->keys.valSize == 0) {
	Rb_KeyTableInit(&st->keys, sizeof(KeyThink));
    }
    Rb_KeyTableClear(&st->keys);
    Rb_LogHistReset(&st->think);
    st->followers = st->overlapped = 0;
    st->failed = 0;
    return TCL_OK;
}

/*
 * CountPair --
 *	Counts an I/O arriving at `arrival` after one of its key that
 *	finished at prevFinish (nothing when that is unknown).
 */
static void
CountPair(ThinkTimeState *st, int64_t prevFinish, int64_t arrival)
{
    int64_t ns;

    if (prevFinish == RB_ABSENT) {
	return;
    }
    st->followers++;
    if (arrival < prevFinish) {
	st->overlapped++;
    } else if (!__builtin_sub_overflow(arrival, prevFinish, &ns)) {
	Rb_LogHistAdd(&st->think, (double)ns);
    }
}

/*
 * ThinkTimeBatch --
 *	Pairs each selected I/O that has a key and a time with the previous
 *	I/O of its key, up to the first record whose key is one beyond
 *	-limit; that one stops the run with an error naming it.
 */
static void
ThinkTimeBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    ThinkTimeState *st = a->state;
    const int64_t *keys = b->col[st->keyIndex];
    const int64_t *times = b->col[RB_IO_TIME];
    const int64_t *finish = b->col[RB_IO_FINISH];
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int64_t key = keys[sel[j]], t = times[sel[j]];
	KeyThink *k;

	if (key == RB_ABSENT || t == RB_ABSENT) {
	    continue;
	}
	k = Rb_KeyTableFindLimited(&st->keys, key, st->limit);
	if (k == NULL) {
	    st->failed = 1;
	    RbKitKeyLimit(a, st->limit, st->by, b->firstRecord + sel[j], 88);
	    break;
	}
	if (k->seen) {
	    CountPair(st, k->lastFinish, t);
	} else {
	    k->seen = 1;
	    k->firstArrival = t;
	}
	k->lastFinish = finish[sel[j]];
    }
}

/*
 * ThinkTimeEnd --
 *	Sets the percentiles, mean and count of the think times, the
 *	fraction of I/Os issued while their key's previous one was
 *	outstanding, and the number of keys.
 */
static int
ThinkTimeEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ThinkTimeState *st = a->state;
    const Rb_Moments *m = &st->think.moments;

    Rb_AnalyzerSet(a, Rb_LogHistAttr(&st->think, "ThinkTime", "s",
	    1.0 / RB_NS_PER_S, "percentiles of the time from a key's "
	    "completion to its next arrival (within 1%)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanThinkTime",
	    m->n ? m->mean / RB_NS_PER_S : 0.0, "s", "mean think time"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ThinkTimeCount", (double)m->n, "",
	    "think times measured"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("OverlappedFraction", st->followers
	    ? (double)st->overlapped / (double)st->followers : 0.0, "",
	    "fraction of I/Os issued while their key's previous I/O was "
	    "outstanding"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ThinkTimeKeys",
	    (double)st->keys.count, "", "number of distinct keys"));
    return TCL_OK;
}

/*
 * ThinkTimeMerge --
 *	merge hook: other's records follow a's, so each key's first I/O in
 *	other pairs with its last in a; more than -limit keys in all is an
 *	error.
 */
static int
ThinkTimeMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    ThinkTimeState *st = a->state;
    const ThinkTimeState *ost = other->state;
    uint64_t i;

    for (i = 0; i < ost->keys.cap; i++) {
	const KeyThink *ok;
	KeyThink *k;

	if (!ost->keys.used[i]) {
	    continue;
	}
	ok = Rb_KeyTableValue(&ost->keys, i);
	k = Rb_KeyTableFind(&st->keys, ost->keys.keys[i], 1);
	if (k->seen) {
	    CountPair(st, k->lastFinish, ok->firstArrival);
	    k->lastFinish = ok->lastFinish;
	} else {
	    *k = *ok;
	}
    }
    st->followers += ost->followers;
    st->overlapped += ost->overlapped;
    st->failed |= ost->failed;
    if (st->keys.count > (uint64_t)st->limit) {
	RbKitKeyLimit(a, st->limit, st->by, 0, 88);
	return TCL_ERROR;
    }
    return Rb_LogHistMerge(a, &st->think, &ost->think);
}

/*
 * ThinkTimeSerialize, ThinkTimeDeserialize --
 *	serialize and deserialize hooks: counts, the histogram and every
 *	key's first arrival and last completion.
 */
static int
ThinkTimeSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ThinkTimeState *st = a->state;

    Rb_BufPutInt(b, st->failed);
    RbKitPutCounters(b, &st->followers, 2);
    Rb_LogHistPut(b, &st->think);
    Rb_KeyTablePut(b, &st->keys, RbKitTextSchema(run, st->keyIndex));
    return TCL_OK;
}

static int
ThinkTimeDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ThinkTimeState *st = a->state;

    st->failed = (int)Rb_BufGetInt(b);
    RbKitGetCounters(b, &st->followers, 2);
    Rb_LogHistGet(b, &st->think);
    Rb_KeyTableGet(b, &st->keys, RbKitTextSchema(run, st->keyIndex));
    return TCL_OK;
}

/*
 * ThinkTimeFree --
 *	Frees the table and the histogram.
 */
static void
ThinkTimeFree(Rb_Analyzer *a)
{
    ThinkTimeState *st = a->state;

    Rb_KeyTableFree(&st->keys);
    Rb_LogHistFree(&st->think);
}

/*
 * Mergeable in time order: each key keeps its first arrival, so the pair
 * across a shard boundary is counted at the merge.
 */
const Rb_AnalyzerClass Rb_ThinkTimeAnalyzerClass = {
    .name = "ThinkTimeAnalyzer",
    .help = "closed-loop think time per process: completion to next "
	    "arrival, and the fraction overlapped",
    .stateSize = sizeof(ThinkTimeState),
    .options = thinkTimeOptions,
    .attrs = thinkTimeAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .start = ThinkTimeStart,
    .batch = ThinkTimeBatch,
    .end = ThinkTimeEnd,
    .merge = ThinkTimeMerge,
    .serialize = ThinkTimeSerialize,
    .deserialize = ThinkTimeDeserialize,
    .freeState = ThinkTimeFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_FINISH),
};
