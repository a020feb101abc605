/*
 * serviceModelAnalyzer.c --
 *
 *	ServiceModelAnalyzer: the least-squares line time = a + b * size
 *	through the I/Os' service (or response, or queueing) times against
 *	their sizes, for reads, writes and all I/Os: the intercept a is the
 *	positioning cost (s), the slope b the transfer time per byte, 1/b
 *	the transfer rate.
 *
 *	The fit needs only the count and the sums of x, y, x^2, xy and y^2.
 *	They are kept as exact 128-bit integers (bytes and ns), so that the
 *	sums of shards add to those of one pass exactly and the fit does
 *	not lose precision to cancellation.
 */

#include <math.h>
#include <stddef.h>
#include "analyzers.h"

/* Largest size (bytes) and duration (ns) counted: 2^40 each, so that
 * the sums of squares hold 2^47 I/Os without overflow. */
#define MAX_MODEL_VALUE ((int64_t)1 << 40)

enum { OP_READS, OP_WRITES, OP_ALL, NOPS };

static const char *const opNames[NOPS] = {"read", "write", "all"};

typedef struct ModelSums {
    int64_t n;
    Sum128 x, y, xx, xy, yy;	/* Sizes x in bytes, times y in ns. */
} ModelSums;

typedef struct ServiceModelState {
    char *fieldName;		/* -field */
    int from, to;
    int64_t skipped;		/* Sizes or times out of range. */
    ModelSums sums[NOPS];
} ServiceModelState;

static const Rb_Option serviceModelOptions[] = {
    {"-field", RB_OPT_STRING, offsetof(ServiceModelState, fieldName),
	"serviceTime", "time fitted: serviceTime, responseTime or queueTime"},
    {NULL}
};

static const char *const serviceModelAttrs[] = {
    "ServiceModel", "ServiceModelSkipped", NULL
};

/*
 * ServiceModelInit --
 *	Checks -field.
 */
static int
ServiceModelInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    ServiceModelState *st = a->state;

    return RbKitLatencyField(a, interp, st->fieldName, &st->from, &st->to);
}

/*
 * ServiceModelStart --
 *	Checks -field and empties the sums for a new run.
 */
static int
ServiceModelStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ServiceModelState *st = a->state;

    if (ServiceModelInit(a, NULL) != TCL_OK) {
	return TCL_ERROR;
    }
    memset(st->sums, 0, sizeof(st->sums));
    st->skipped = 0;
    return TCL_OK;
}

/*
 * AddPoint --
 *	Adds the point (x, y) to s.
 */
static inline void
AddPoint(ModelSums *s, int64_t x, int64_t y)
{
    s->n++;
    s->x += x;
    s->y += y;
    s->xx += (Sum128)x * x;
    s->xy += (Sum128)x * y;
    s->yy += (Sum128)y * y;
}

/*
 * ServiceModelBatch --
 *	Adds each selected I/O with a size and a measured time to the sums
 *	of all I/Os and of its operation.  An I/O without a size or either
 *	time is left out; one whose size or time is negative or above 2^40
 *	is left out and counted as skipped.
 */
static void
ServiceModelBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    ServiceModelState *st = a->state;
    const int64_t *from = b->col[st->from], *to = b->col[st->to];
    const int64_t *sizes = b->col[RB_IO_SIZE], *ops = b->col[RB_IO_OP];
    int j;

    for (j = 0; j < nsel; j++) {
	int64_t reqSize = sizes[sel[j]], op = ops[sel[j]], ns;

	if (reqSize == RB_ABSENT || from[sel[j]] == RB_ABSENT
		|| to[sel[j]] == RB_ABSENT) {
	    continue;
	}
	if (!RbLatencyNs(from[sel[j]], to[sel[j]], &ns) || reqSize < 0
		|| reqSize > MAX_MODEL_VALUE || ns > MAX_MODEL_VALUE) {
	    st->skipped++;
	    continue;
	}
	AddPoint(&st->sums[OP_ALL], reqSize, ns);
	if (op == RB_OP_READ) {
	    AddPoint(&st->sums[OP_READS], reqSize, ns);
	} else if (op == RB_OP_WRITE) {
	    AddPoint(&st->sums[OP_WRITES], reqSize, ns);
	}
    }
}

/*
 * CoSum --
 *	n * sab - sa * sb (n^2 times the co-moment of a and b), exactly when
 *	it fits in 128 bits, else in long double.
 */
static long double
CoSum(int64_t n, Sum128 sab, Sum128 sa, Sum128 sb)
{
    Sum128 p, q, r;

    if (!__builtin_mul_overflow((Sum128)n, sab, &p)
	    && !__builtin_mul_overflow(sa, sb, &q)
	    && !__builtin_sub_overflow(p, q, &r)) {
	return (long double)r;
    }
    return (long double)n * (long double)sab
	    - (long double)sa * (long double)sb;
}

/*
 * FitRow --
 *	Adds the fit of s as a row of table t (columns in the order made by
 *	ServiceModelEnd): op, n, intercept (s), slope (s/byte), transfer rate
 *	(bytes/s), R^2.  Without two distinct sizes the line is undefined:
 *	intercept, slope, rate and R^2 are NaN; the rate is NaN too when the
 *	slope is not positive, and R^2 when every time is the same.
 */
static void
FitRow(Rb_Attribute *t, const char *op, const ModelSums *s)
{
    long double sxx = CoSum(s->n, s->xx, s->x, s->x);
    long double sxy = CoSum(s->n, s->xy, s->x, s->y);
    long double syy = CoSum(s->n, s->yy, s->y, s->y);
    double slope = NAN, intercept = NAN, rate = NAN, r2 = NAN;
    int row = Rb_AttrAddRow(t);

    if (s->n >= 2 && sxx > 0) {
	long double b = sxy / sxx;

	slope = (double)(b / RB_NS_PER_S);
	intercept = (double)(((long double)s->y - b * (long double)s->x)
		/ (long double)s->n / RB_NS_PER_S);
	rate = slope > 0 ? 1.0 / slope : NAN;
	if (syy > 0) {
	    r2 = (double)(sxy / sxx * (sxy / syy));
	}
    }
    Rb_AttrSetText(t, row, 0, op);
    Rb_AttrSetNum(t, row, 1, (double)s->n);
    Rb_AttrSetNum(t, row, 2, intercept);
    Rb_AttrSetNum(t, row, 3, slope);
    Rb_AttrSetNum(t, row, 4, rate);
    Rb_AttrSetNum(t, row, 5, r2);
}

/*
 * ServiceModelEnd --
 *	Sets the ServiceModel table (rows read, write, all) and the count
 *	of skipped I/Os.
 */
static int
ServiceModelEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ServiceModelState *st = a->state;
    Rb_Attribute *t = Rb_AttrCreate("ServiceModel", RB_ATTR_TABLE, "s",
	    "least-squares fit of time = intercept + slope * size");
    int op;

    Rb_AttrAddColumn(t, "op", "", 1);
    Rb_AttrAddColumn(t, "n", "", 0);
    Rb_AttrAddColumn(t, "intercept", "s", 0);
    Rb_AttrAddColumn(t, "slope", "s/byte", 0);
    Rb_AttrAddColumn(t, "transferRate", "bytes/s", 0);
    Rb_AttrAddColumn(t, "r2", "", 0);
    for (op = 0; op < NOPS; op++) {
	FitRow(t, opNames[op], &st->sums[op]);
    }
    Rb_AnalyzerSet(a, t);
    Rb_AnalyzerSet(a, Rb_AttrScalar("ServiceModelSkipped",
	    (double)st->skipped, "", "I/Os left out: negative or huge "
	    "size or time"));
    return TCL_OK;
}

/*
 * ServiceModelMerge --
 *	merge hook: the sums add.
 */
static int
ServiceModelMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    ServiceModelState *st = a->state;
    const ServiceModelState *ost = other->state;
    int op;

    st->skipped += ost->skipped;
    for (op = 0; op < NOPS; op++) {
	ModelSums *s = &st->sums[op];
	const ModelSums *o = &ost->sums[op];

	s->n += o->n;
	s->x += o->x;
	s->y += o->y;
	s->xx += o->xx;
	s->xy += o->xy;
	s->yy += o->yy;
    }
    return TCL_OK;
}

/*
 * ServiceModelSerialize, ServiceModelDeserialize --
 *	serialize and deserialize hooks: the skipped count and the sums.
 */
static int
ServiceModelSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ServiceModelState *st = a->state;
    int op;

    Rb_BufPutInt(b, st->skipped);
    for (op = 0; op < NOPS; op++) {
	const ModelSums *s = &st->sums[op];

	Rb_BufPutInt(b, s->n);
	RbKitPut128(b, s->x);
	RbKitPut128(b, s->y);
	RbKitPut128(b, s->xx);
	RbKitPut128(b, s->xy);
	RbKitPut128(b, s->yy);
    }
    return TCL_OK;
}

static int
ServiceModelDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ServiceModelState *st = a->state;
    int op;

    st->skipped = Rb_BufGetInt(b);
    for (op = 0; op < NOPS; op++) {
	ModelSums *s = &st->sums[op];

	s->n = Rb_BufGetInt(b);
	s->x = RbKitGet128(b);
	s->y = RbKitGet128(b);
	s->xx = RbKitGet128(b);
	s->xy = RbKitGet128(b);
	s->yy = RbKitGet128(b);
    }
    return TCL_OK;
}

/*
 * Mergeable: the integer sums of the shards add to those of one pass
 * exactly, so the merged fit is the single process's.
 */
const Rb_AnalyzerClass Rb_ServiceModelAnalyzerClass = {
    .name = "ServiceModelAnalyzer",
    .help = "least-squares fit of service time = positioning + size / "
	    "transfer rate, per operation",
    .stateSize = sizeof(ServiceModelState),
    .options = serviceModelOptions,
    .attrs = serviceModelAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .init = ServiceModelInit,
    .start = ServiceModelStart,
    .batch = ServiceModelBatch,
    .end = ServiceModelEnd,
    .merge = ServiceModelMerge,
    .serialize = ServiceModelSerialize,
    .deserialize = ServiceModelDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_START)
	    | RB_FIELD_BIT(RB_IO_FINISH) | RB_FIELD_BIT(RB_IO_OP)
	    | RB_FIELD_BIT(RB_IO_SIZE),
};
