/*
 * devLatency.c --
 *
 *	A second example Analyzer, built into the same plugin as largeIo.c:
 *	it keeps its state in the analyzer toolbox of rubicon.h (a key table
 *	of logarithmic histograms, moments and time bins), as the built-in
 *	classes do, and merges for split runs.
 *
 *	    Flow lat [DevLatencyAnalyzer -interval 60]
 *
 *	Attributes: DeviceLatency (a table: deviceNo, I/Os, median and 99th
 *	percentile response time in s), LatencyMean and LatencyStddev (s, over
 *	every I/O), and LatencyIOSeries (I/Os per second in each -interval).
 */

#include "rubicon.h"

/* At most this many devices are kept (the per-key limit every per-key
 * structure documents); I/Os of further devices count in the totals. */
#define DEV_LIMIT 4096

typedef struct DevLatencyState {
    int64_t interval;		/* -interval, ns */
    Rb_KeyTable devices;	/* deviceNo -> Rb_LogHist of response time */
    Rb_Moments all;		/* Response times of every I/O, in s. */
    Rb_TimeBins ios;		/* I/Os per interval. */
} DevLatencyState;

static const Rb_Option devLatencyOptions[] = {
    {"-interval", RB_OPT_TIME, offsetof(DevLatencyState, interval), "1",
     "length of the series' intervals"},
    {NULL}
};

static const char *const devLatencyAttrs[] = {
    "DeviceLatency", "LatencyMean", "LatencyStddev", "LatencyIOSeries", NULL
};

static int
DevLatencyStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    DevLatencyState *s = a->state;

    if (s->interval <= 0) {
	Rb_AnalyzerError(a, "RUBICON ANALYZER OPTION",
		"-interval must be positive");
	return TCL_ERROR;
    }
    Rb_KeyTableInit(&s->devices, sizeof(Rb_LogHist));
    Rb_MomentsReset(&s->all);
    Rb_TimeBinsStart(&s->ios, s->interval, run);
    return TCL_OK;
}

/*
 * DevLatencyBatch --
 *	Counts each selected I/O that has a response time (finishTime minus
 *	time) in its device's histogram, the moments and its interval.
 */
static void
DevLatencyBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int n)
{
    DevLatencyState *s = a->state;
    const int64_t *time = b->col[RB_IO_TIME];
    const int64_t *finish = b->col[RB_IO_FINISH];
    const int64_t *dev = b->col[RB_IO_DEVICE];
    int k;

    Rb_TimeBinsAddColumn(&s->ios, time, NULL, sel, n);
    for (k = 0; k < n; k++) {
	int i = sel[k];
	Rb_LogHist *h;
	double rt;

	if (time[i] == RB_ABSENT || finish[i] == RB_ABSENT
		|| finish[i] < time[i]) {
	    continue;
	}
	rt = (double)(finish[i] - time[i]) / 1e9;
	Rb_MomentsAdd(&s->all, rt);
	h = Rb_KeyTableFindLimited(&s->devices, dev[i], DEV_LIMIT);
	if (h != NULL) {
	    Rb_LogHistAdd(h, rt);
	}
    }
}

static int
DevLatencyEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    DevLatencyState *s = a->state;
    Rb_Attribute *t = Rb_AttrCreate("DeviceLatency", RB_ATTR_TABLE, "s",
	    "I/Os and median and 99th percentile response time per device");
    uint64_t *slots = Rb_KeyTableSortedSlots(&s->devices), i;

    Rb_AttrAddColumn(t, "deviceNo", "", 0);
    Rb_AttrAddColumn(t, "ios", "I/Os", 0);
    Rb_AttrAddColumn(t, "p50", "s", 0);
    Rb_AttrAddColumn(t, "p99", "s", 0);
    for (i = 0; i < s->devices.count; i++) {
	const Rb_LogHist *h = Rb_KeyTableValue(&s->devices, slots[i]);
	int row = Rb_AttrAddRow(t);

	Rb_AttrSetNum(t, row, 0, (double)s->devices.keys[slots[i]]);
	Rb_AttrSetNum(t, row, 1, (double)h->moments.n);
	Rb_AttrSetNum(t, row, 2, Rb_LogHistPercentile(h, 50));
	Rb_AttrSetNum(t, row, 3, Rb_LogHistPercentile(h, 99));
    }
    free(slots);
    Rb_AnalyzerSet(a, t);
    Rb_AnalyzerSet(a, Rb_AttrScalar("LatencyMean", s->all.mean, "s",
	    "mean response time"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("LatencyStddev",
	    Rb_MomentsStddev(&s->all), "s",
	    "standard deviation of the response time"));
    Rb_AnalyzerSet(a, Rb_TimeBinsSeries(&s->ios, run, "LatencyIOSeries",
	    "I/Os/s", "I/Os per second in each interval"));
    return TCL_OK;
}

/*
 * DevLatencyMerge --
 *	Adds the state of a later shard: histograms device by device (each
 *	merge is exact, the buckets being fixed), moments and bins.
 */
static int
DevLatencyMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    DevLatencyState *s = a->state;
    const DevLatencyState *o = other->state;
    uint64_t i;

    for (i = 0; i < o->devices.cap; i++) {
	Rb_LogHist *h;

	if (!o->devices.used[i]) {
	    continue;
	}
	h = Rb_KeyTableFindLimited(&s->devices, o->devices.keys[i],
		DEV_LIMIT);
	if (h != NULL && Rb_LogHistMerge(a, h,
		Rb_KeyTableValue(&o->devices, i)) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    Rb_MomentsMerge(&s->all, &o->all);
    return Rb_TimeBinsMerge(a, &s->ios, &o->ios);
}

/*
 * DevLatencySerialize, DevLatencyDeserialize --
 *	The state as bytes: the table's values hold pointers, so each
 *	device goes as its number and its histogram's Put.
 */
static int
DevLatencySerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    DevLatencyState *s = a->state;
    uint64_t i;

    Rb_BufPutInt(b, (int64_t)s->devices.count);
    for (i = 0; i < s->devices.cap; i++) {
	if (s->devices.used[i]) {
	    Rb_BufPutInt(b, s->devices.keys[i]);
	    Rb_LogHistPut(b, Rb_KeyTableValue(&s->devices, i));
	}
    }
    Rb_MomentsPut(b, &s->all);
    Rb_TimeBinsPut(b, &s->ios);
    return TCL_OK;
}

static int
DevLatencyDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    DevLatencyState *s = a->state;
    int64_t n = Rb_BufGetCount(b, 16), i;

    for (i = 0; i < n && !b->bad; i++) {
	int64_t dev = Rb_BufGetInt(b);

	Rb_LogHistGet(b, Rb_KeyTableFind(&s->devices, dev, 1));
    }
    Rb_MomentsGet(b, &s->all);
    Rb_TimeBinsGet(b, &s->ios);
    return b->bad ? TCL_ERROR : TCL_OK;
}

static void
DevLatencyFree(Rb_Analyzer *a)
{
    DevLatencyState *s = a->state;
    uint64_t i;

    for (i = 0; i < s->devices.cap; i++) {
	if (s->devices.used[i]) {
	    Rb_LogHistFree(Rb_KeyTableValue(&s->devices, i));
	}
    }
    Rb_KeyTableFree(&s->devices);
    Rb_TimeBinsFree(&s->ios);
}

const Rb_AnalyzerClass devLatencyClass = {
    .name = "DevLatencyAnalyzer",
    .help = "example plugin: response-time percentiles per device, "
	    "from the analyzer toolbox",
    .stateSize = sizeof(DevLatencyState),
    .options = devLatencyOptions,
    .attrs = devLatencyAttrs,
    .mergeable = 1,
    .start = DevLatencyStart,
    .batch = DevLatencyBatch,
    .end = DevLatencyEnd,
    .merge = DevLatencyMerge,
    .serialize = DevLatencySerialize,
    .deserialize = DevLatencyDeserialize,
    .freeState = DevLatencyFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_FINISH)
	    | RB_FIELD_BIT(RB_IO_DEVICE),
};
