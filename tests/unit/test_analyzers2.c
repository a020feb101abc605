/*
 * test_analyzers2.c --
 *
 *	Unit tests of the Analyzer kit's generic (by field name), timing,
 *	spatial, temporal, burstiness, staged and top-K classes.  Each answer
 *	is worked out by hand in a comment, or by a short second
 *	implementation in this file that shares no code with the class.
 */

#include <zlib.h>
#include <math.h>
#include "kitTest.h"

/*
 * SetField --
 *	Sets field f of the last record of b.
 */
static void
SetField(Rb_Batch *b, int f, int64_t v)
{
    b->col[f][b->n - 1] = v;
}

/*
 * IosWithField --
 *	One read per value in vals, 1 s apart, with field f set to it.
 */
static Rb_Batch *
IosWithField(int f, const int64_t *vals, int n)
{
    Rb_Batch *b = NewBatch(n);
    int k;

    for (k = 0; k < n; k++) {
	AddIo(b, k * SEC, RB_OP_READ, 4096, 1, k * 4096);
	SetField(b, f, vals[k]);
    }
    return b;
}

/*
 * ---------------------------------------------------------------------
 * Generic analyzers by field name
 * ---------------------------------------------------------------------
 */

START_TEST(field_stats_of_queue_length)
{
    static const int64_t q[] = {2, 4, 4, 4, 5, 5, 7, 9, RB_ABSENT};
    Rb_Batch *b = IosWithField(RB_IO_QUEUELEN, q, 9);
    Rb_Flow *flow = RunAll(&Rb_FieldStatsAnalyzerClass, "-field queueLen",
	    b);

    /* The absent value is left out: 8 values, sum 40, mean 5; squared
     * deviations 9+1+1+1+0+0+4+16 = 32, population variance 32/8 = 4. */
    ck_assert_near(Scalar(flow, "FieldCount"), 8);
    ck_assert_near(Scalar(flow, "FieldSum"), 40);
    ck_assert_near(Scalar(flow, "FieldMean"), 5);
    ck_assert_near(Scalar(flow, "FieldMin"), 2);
    ck_assert_near(Scalar(flow, "FieldMax"), 9);
    ck_assert_near(Scalar(flow, "FieldStddev"), 2);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(field_stats_of_a_time_field_in_seconds)
{
    static const int64_t start[] = {1 * SEC, 3 * SEC};
    Rb_Batch *b = IosWithField(RB_IO_START, start, 2);
    Rb_Flow *flow = RunAll(&Rb_FieldStatsAnalyzerClass, "-field startTime",
	    b);

    /* Times are reported in seconds: mean (1 + 3) / 2 = 2 s. */
    ck_assert_near(Scalar(flow, "FieldMean"), 2);
    ck_assert_near(Scalar(flow, "FieldStddev"), 1);
    ck_assert_str_eq(Attr(flow, "FieldMean")->unit, "s");
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(field_stats_unknown_field_fails_at_start)
{
    Tcl_Interp *interp = rbtest_interp();
    Rb_Flow *flow = NewFlow(&Rb_FieldStatsAnalyzerClass, "-field nope",
	    NULL);
    Rb_RunInfo run;

    RbRunInfoInit(&run, interp, Rb_IoSchema());
    ck_assert_int_eq(RbFlowStart(flow, &run), TCL_ERROR);
    ck_assert_ptr_nonnull(strstr(Tcl_GetStringResult(interp), "nope"));
    RbRunInfoFree(&run);
    RbFlowDelete(flow);
}
END_TEST

START_TEST(field_histogram_log2_bins)
{
    static const int64_t sizes[] = {0, 1, 3, 4096, 5000, 8192};
    Rb_Batch *b = IosWithField(RB_IO_SIZE, sizes, 6);
    Rb_Flow *flow = RunAll(&Rb_FieldHistogramAnalyzerClass, "", b);
    const Rb_Attribute *h = Attr(flow, "FieldHistogram");

    /* Bins [0,1) [1,2) [2,4) ... [8192,16384): 15 rows; 0, 1 and 3 in the
     * first three, 4096 and 5000 in [4096,8192), 8192 in the last. */
    ck_assert_int_eq(h->nrows, 15);
    ck_assert_near(Cell(h, 0, "count"), 1);
    ck_assert_near(Cell(h, 1, "count"), 1);
    ck_assert_near(Cell(h, 2, "lo"), 2);
    ck_assert_near(Cell(h, 2, "count"), 1);
    ck_assert_near(Cell(h, 3, "count"), 0);
    ck_assert_near(Cell(h, 13, "lo"), 4096);
    ck_assert_near(Cell(h, 13, "count"), 2);
    ck_assert_near(Cell(h, 14, "hi"), 16384);
    ck_assert_near(Cell(h, 14, "count"), 1);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(field_histogram_linear_bins_with_negatives)
{
    static const int64_t q[] = {-3, -1, 0, 1, 2, 5};
    Rb_Batch *b = IosWithField(RB_IO_QUEUELEN, q, 6);
    Rb_Flow *flow = RunAll(&Rb_FieldHistogramAnalyzerClass,
	    "-field queueLen -bins linear -width 2", b);
    const Rb_Attribute *h = Attr(flow, "FieldHistogram");

    /* floor(v/2): -2 -1 0 0 1 2, so [-4,-2) 1, [-2,0) 1, [0,2) 2,
     * [2,4) 1, [4,6) 1. */
    ck_assert_int_eq(h->nrows, 5);
    ck_assert_near(Cell(h, 0, "lo"), -4);
    ck_assert_near(Cell(h, 0, "count"), 1);
    ck_assert_near(Cell(h, 1, "count"), 1);
    ck_assert_near(Cell(h, 2, "lo"), 0);
    ck_assert_near(Cell(h, 2, "count"), 2);
    ck_assert_near(Cell(h, 4, "hi"), 6);
    ck_assert_near(Scalar(flow, "FieldHistogramOutside"), 0);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(field_histogram_just_below_a_power_of_two)
{
    /* 2^53 - 1 is a double exactly; log2 of it rounds to 53, but it lies
     * in [2^52, 2^53): with 2^52 itself, 2 in that bin and none above. */
    static const int64_t sizes[] = {((int64_t)1 << 53) - 1,
	(int64_t)1 << 52};
    Rb_Batch *b = IosWithField(RB_IO_SIZE, sizes, 2);
    Rb_Flow *flow = RunAll(&Rb_FieldHistogramAnalyzerClass, "", b);
    const Rb_Attribute *h = Attr(flow, "FieldHistogram");

    ck_assert_int_eq(h->nrows, 1);
    ck_assert_near(Cell(h, 0, "lo"), 4503599627370496.0);
    ck_assert_near(Cell(h, 0, "count"), 2);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(field_histogram_of_response_times_in_microseconds)
{
    /* Record k is at k s; its finishTime k s + d ns for d below.  With
     * -base 1000 the bins are [0,1000) [1000,2000) [2000,4000)
     * [4000,8000) ns: 0 and 999, 1000 and 1999, 2000, 5000.  A finish
     * before its time and a missing one are left out. */
    static const int64_t d[] = {0, 999, 1000, 1999, 2000, 5000, -1, 0};
    int64_t finish[8];
    Rb_Batch *b;
    Rb_Flow *flow;
    const Rb_Attribute *h;
    int k;

    for (k = 0; k < 8; k++) {
	finish[k] = k * SEC + d[k];
    }
    finish[7] = RB_ABSENT;
    b = IosWithField(RB_IO_FINISH, finish, 8);
    flow = RunAll(&Rb_FieldHistogramAnalyzerClass,
	    "-field responseTime -base 1000", b);
    h = Attr(flow, "FieldHistogram");
    ck_assert_str_eq(h->unit, "ns");
    ck_assert_int_eq(h->nrows, 4);
    ck_assert_near(Cell(h, 0, "lo"), 0);
    ck_assert_near(Cell(h, 0, "hi"), 1000);
    ck_assert_near(Cell(h, 0, "count"), 2);
    ck_assert_near(Cell(h, 1, "lo"), 1000);
    ck_assert_near(Cell(h, 1, "count"), 2);
    ck_assert_near(Cell(h, 2, "hi"), 4000);
    ck_assert_near(Cell(h, 2, "count"), 1);
    ck_assert_near(Cell(h, 3, "lo"), 4000);
    ck_assert_near(Cell(h, 3, "hi"), 8000);
    ck_assert_near(Cell(h, 3, "count"), 1);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(field_histogram_rejects_bad_width)
{
    ck_assert_ptr_null(NewAnalyzer(&Rb_FieldHistogramAnalyzerClass,
	    "-bins linear -width 0"));
    ck_assert_ptr_null(NewAnalyzer(&Rb_FieldHistogramAnalyzerClass,
	    "-bins cubic"));
    ck_assert_ptr_null(NewAnalyzer(&Rb_FieldHistogramAnalyzerClass,
	    "-base 0"));
    ck_assert_ptr_null(NewAnalyzer(&Rb_FieldHistogramAnalyzerClass,
	    "-base -2"));
}
END_TEST

START_TEST(field_percentiles_within_one_percent)
{
    int64_t q[100];
    Rb_Batch *b;
    Rb_Flow *flow;
    const Rb_Attribute *p;
    int k;

    /* Values 1..100: the nearest-rank p-th percentile is p itself. */
    for (k = 0; k < 100; k++) {
	q[k] = 100 - k;
    }
    b = IosWithField(RB_IO_QUEUELEN, q, 100);
    flow = RunAll(&Rb_FieldPercentilesAnalyzerClass, "-field queueLen", b);
    p = Attr(flow, "FieldPercentiles");
    ck_assert_int_eq(p->nrows, 7);
    ck_assert_near(Cell(p, 0, "value"), 1);
    ck_assert_double_eq_tol(Cell(p, 1, "value"), 50, 0.5);
    ck_assert_double_eq_tol(Cell(p, 2, "value"), 90, 0.9);
    ck_assert_double_eq_tol(Cell(p, 4, "value"), 99, 0.99);
    ck_assert_near(Cell(p, 6, "value"), 100);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(field_percentiles_of_negative_values)
{
    int64_t q[21];
    Rb_Batch *b;
    Rb_Flow *flow;
    const Rb_Attribute *p;
    int k;

    /* -10..10: the median (rank ceil(10.5) = 11) is 0; p90 is rank
     * ceil(18.9) = 19, the value 8; p0 is -10. */
    for (k = 0; k < 21; k++) {
	q[k] = k - 10;
    }
    b = IosWithField(RB_IO_QUEUELEN, q, 21);
    flow = RunAll(&Rb_FieldPercentilesAnalyzerClass, "-field queueLen", b);
    p = Attr(flow, "FieldPercentiles");
    ck_assert_near(Cell(p, 0, "value"), -10);
    ck_assert_near(Cell(p, 1, "value"), 0);
    ck_assert_double_eq_tol(Cell(p, 2, "value"), 8, 0.08);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(distinct_exact)
{
    static const int64_t pids[] = {1, 2, 3, 2, 1, 7, RB_ABSENT};
    Rb_Batch *b = IosWithField(RB_IO_PID, pids, 7);
    Rb_Flow *flow = RunAll(&Rb_DistinctAnalyzerClass, "", b);

    /* {1, 2, 3, 7}; the absent pid is not a value. */
    ck_assert_near(Scalar(flow, "Distinct"), 4);
    ck_assert_near(Scalar(flow, "DistinctExact"), 1);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(distinct_estimate_past_the_limit)
{
    enum { N = 100000 };
    Rb_Batch *b = NewBatch(N);
    Rb_Flow *flow;
    double est;
    int k;

    /* 50000 distinct offsets, each twice: past -limit 1000 the count is a
     * HyperLogLog estimate, standard error 0.8%; 3 sigma is 2.5%. */
    for (k = 0; k < N; k++) {
	AddIo(b, k, RB_OP_READ, 512, 1, (int64_t)(k % (N / 2)) * 4096);
    }
    flow = RunAll(&Rb_DistinctAnalyzerClass,
	    "-field devOffset -limit 1000", b);
    est = Scalar(flow, "Distinct");
    ck_assert_msg(fabs(est - N / 2) <= 0.025 * N / 2, "estimate %g", est);
    ck_assert_near(Scalar(flow, "DistinctExact"), 0);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(merge_generic)
{
    CheckMerge(&Rb_FieldStatsAnalyzerClass, "-field size");
    CheckMerge(&Rb_FieldHistogramAnalyzerClass, "-field devOffset");
    CheckMerge(&Rb_FieldHistogramAnalyzerClass,
	    "-field finishTime -bins linear -width 1e6");
    CheckMerge(&Rb_FieldHistogramAnalyzerClass,
	    "-field responseTime -base 1000");
    CheckMerge(&Rb_FieldPercentilesAnalyzerClass, "-field startTime");
    CheckMerge(&Rb_DistinctAnalyzerClass, "-field devOffset");
    CheckMerge(&Rb_DistinctAnalyzerClass, "-field devOffset -limit 100");
}
END_TEST

/*
 * ---------------------------------------------------------------------
 * Timing
 * ---------------------------------------------------------------------
 */

/*
 * AddTimedIo --
 *	Appends a read to dev with enqueue, start and finish times in s.
 */
static void
AddTimedIo(Rb_Batch *b, int64_t dev, int64_t enq, int64_t start,
	int64_t finish)
{
    AddIo(b, enq * SEC, RB_OP_READ, 4096, dev, 0);
    SetField(b, RB_IO_START, start * SEC);
    SetField(b, RB_IO_FINISH, finish * SEC);
}

START_TEST(inter_arrival_mean_cv_percentiles)
{
    static const int64_t t[] = {0, 1, 3, 6, 10};
    Rb_Batch *b = NewBatch(5);
    Rb_Flow *flow;
    const Rb_Attribute *p;
    int k;

    /* Gaps 1, 2, 3, 4 s: mean 2.5; deviations -1.5 -0.5 0.5 1.5, variance
     * 5/4, CV sqrt(1.25) / 2.5 = 0.44721; median (rank 2) 2 s. */
    for (k = 0; k < 5; k++) {
	AddIo(b, t[k] * SEC, RB_OP_READ, 512, 1, 0);
    }
    flow = RunAll(&Rb_InterArrivalAnalyzerClass, "", b);
    ck_assert_near(Scalar(flow, "MeanInterArrival"), 2.5);
    ck_assert_double_eq_tol(Scalar(flow, "InterArrivalCV"),
	    sqrt(1.25) / 2.5, 1e-9);
    p = Attr(flow, "InterArrival");
    ck_assert_near(Cell(p, 0, "value"), 1);
    ck_assert_double_eq_tol(Cell(p, 1, "value"), 2, 0.02);
    ck_assert_near(Cell(p, 6, "value"), 4);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(utilization_is_union_of_busy_intervals)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *t;

    /* Device 1: [0,2) [1,3) [5,6) [4,5), the last issued before the one
     * enqueued ahead of it; union [0,3) + [4,6) = 5 s.  Device 2: [0,10)
     * and an empty I/O at 10 s.  The run lasts 10 s: utilizations 0.5
     * and 1, mean 0.75, busy 15 s. */
    AddTimedIo(b, 1, 0, 0, 2);
    AddTimedIo(b, 2, 0, 0, 10);
    AddTimedIo(b, 1, 1, 1, 3);
    AddTimedIo(b, 1, 2, 5, 6);
    AddTimedIo(b, 1, 3, 4, 5);
    AddTimedIo(b, 2, 10, 10, 10);
    flow = RunAll(&Rb_UtilizationAnalyzerClass, "", b);
    ck_assert_near(Scalar(flow, "Utilization"), 0.75);
    ck_assert_near(Scalar(flow, "BusyTime"), 15);
    t = Attr(flow, "UtilizationByDevice");
    ck_assert_int_eq(t->nrows, 2);
    ck_assert_near(Cell(t, 0, "device"), 1);
    ck_assert_near(Cell(t, 0, "busy"), 5);
    ck_assert_near(Cell(t, 0, "utilization"), 0.5);
    ck_assert_near(Cell(t, 1, "utilization"), 1);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(queue_depth_time_weighted)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *q;

    /* Outstanding [0,4) [1,2) [3,5) [7,8): depth 1 on [0,1) [2,3) [4,5)
     * [7,8) = 4 s, depth 2 on [1,2) [3,4) = 2 s, depth 0 on [5,7) = 2 s;
     * 8 s in all, mean (4 + 2*2) / 8 = 1. */
    AddTimedIo(b, 1, 0, 0, 4);
    AddTimedIo(b, 1, 1, 1, 2);
    AddTimedIo(b, 1, 3, 3, 5);
    AddTimedIo(b, 1, 7, 7, 8);
    flow = RunAll(&Rb_QueueDepthAnalyzerClass, "", b);
    q = Attr(flow, "QueueDepth");
    ck_assert_int_eq(q->nrows, 3);
    ck_assert_near(Cell(q, 0, "time"), 2);
    ck_assert_near(Cell(q, 1, "time"), 4);
    ck_assert_near(Cell(q, 2, "time"), 2);
    ck_assert_near(Cell(q, 1, "fraction"), 0.5);
    ck_assert_near(Scalar(flow, "MeanQueueDepth"), 1);
    ck_assert_near(Scalar(flow, "MaxQueueDepth"), 2);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

/*
 * ---------------------------------------------------------------------
 * Spatial
 * ---------------------------------------------------------------------
 */

START_TEST(footprint_counts_distinct_blocks)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;

    /* Device 1: blocks {0,1}, {1}, {0}; device 2: block 0 of its own.
     * 3 distinct 4 KiB blocks, 12288 bytes. */
    AddIo(b, 0, RB_OP_READ, 8192, 1, 0);
    AddIo(b, 1, RB_OP_READ, 4096, 1, 4096);
    AddIo(b, 2, RB_OP_WRITE, 10, 1, 1000);
    AddIo(b, 3, RB_OP_READ, 4096, 2, 0);
    flow = RunAll(&Rb_FootprintAnalyzerClass, "", b);
    ck_assert_near(Scalar(flow, "Footprint"), 3);
    ck_assert_near(Scalar(flow, "FootprintBytes"), 12288);
    ck_assert_near(Scalar(flow, "FootprintExact"), 1);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(alignment_fractions)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;

    /* (offset, size): (0, 4096) aligned; (512, 4096) offset; (0, 1000)
     * size; (512, 512) both.  Either 3/4, offset 2/4, size 2/4. */
    AddIo(b, 0, RB_OP_READ, 4096, 1, 0);
    AddIo(b, 1, RB_OP_READ, 4096, 1, 512);
    AddIo(b, 2, RB_OP_READ, 1000, 1, 0);
    AddIo(b, 3, RB_OP_READ, 512, 1, 512);
    flow = RunAll(&Rb_AlignmentAnalyzerClass, "", b);
    ck_assert_near(Scalar(flow, "UnalignedFraction"), 0.75);
    ck_assert_near(Scalar(flow, "UnalignedOffsetFraction"), 0.5);
    ck_assert_near(Scalar(flow, "UnalignedSizeFraction"), 0.5);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(seek_distance_per_device)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *p;

    /* Device 1 ends at 4096, then 8192: seeks 0 and 0 - 8192 = -8192.
     * Device 2 ends at 200, then starts at 1000: 800.  Interleaved, as
     * in a real trace.  Mean |d| = 8992 / 3; one in three is 0. */
    AddIo(b, 0, RB_OP_READ, 4096, 1, 0);
    AddIo(b, 1, RB_OP_READ, 100, 2, 100);
    AddIo(b, 2, RB_OP_READ, 4096, 1, 4096);
    AddIo(b, 3, RB_OP_READ, 100, 2, 1000);
    AddIo(b, 4, RB_OP_READ, 4096, 1, 0);
    flow = RunAll(&Rb_SeekDistanceAnalyzerClass, "", b);
    ck_assert_near(Scalar(flow, "MeanSeekDistance"), 8992.0 / 3);
    ck_assert_near(Scalar(flow, "ZeroSeekFraction"), 1.0 / 3);
    p = Attr(flow, "SeekDistance");
    ck_assert_near(Cell(p, 0, "value"), -8192);
    ck_assert_near(Cell(p, 1, "value"), 0);
    ck_assert_near(Cell(p, 6, "value"), 800);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(merge_spatial)
{
    CheckMerge(&Rb_AlignmentAnalyzerClass, "-block 1024");
}
END_TEST

/*
 * ---------------------------------------------------------------------
 * Temporal
 * ---------------------------------------------------------------------
 */

START_TEST(reuse_distance_by_hand)
{
    static const char seq[] = "ABCABBDA";
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *c, *h;
    int k;

    /* Blocks A B C A B B D A: A, B, C, D cold; then A after {B, C} is at
     * distance 3, B after {C, A} 3, B again 1, A after {B, D} 3.  Hits:
     * cache of 1 block 1, 2 blocks 1, 4 blocks (every distinct) 4. */
    for (k = 0; seq[k]; k++) {
	AddIo(b, k, RB_OP_READ, 512, 1, (seq[k] - 'A') * 512);
    }
    flow = RunAll(&Rb_ReuseDistanceAnalyzerClass, "-block 512 -sizes 3",
	    b);
    ck_assert_near(Scalar(flow, "ColdMisses"), 4);
    ck_assert_near(Scalar(flow, "BlockAccesses"), 8);
    c = Attr(flow, "HitRatioCurve");
    ck_assert_int_eq(c->nrows, 4);
    ck_assert_near(Cell(c, 0, "cacheSize"), 1);
    ck_assert_near(Cell(c, 0, "hits"), 1);
    ck_assert_near(Cell(c, 1, "hits"), 1);
    ck_assert_near(Cell(c, 2, "cacheSize"), 3);
    ck_assert_near(Cell(c, 2, "hits"), 4);
    ck_assert_near(Cell(c, 3, "cacheSize"), 4);
    ck_assert_near(Cell(c, 3, "hitRatio"), 0.5);
    h = Attr(flow, "ReuseDistance");
    /* Bins [1,2) 1 and [2,4) 3. */
    ck_assert_int_eq(h->nrows, 2);
    ck_assert_near(Cell(h, 0, "count"), 1);
    ck_assert_near(Cell(h, 1, "lo"), 2);
    ck_assert_near(Cell(h, 1, "count"), 3);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

/*
 * LruHits --
 *	Hits of a direct simulation of an LRU cache of capacity blocks over
 *	the block sequence: a doubly linked list in recency order and a hash
 *	table from block to list node.  Shares nothing with the analyzer.
 */
static uint64_t
LruHits(const int64_t *blocks, size_t n, size_t capacity)
{
    size_t tableSize = 1, i, cached = 0;
    int bits = 0;
    int64_t *keys;
    long *node, *prev, *next, head = -1, tail = -1;
    uint64_t hits = 0;

    while (tableSize < 4 * n) {
	tableSize *= 2;
	bits++;
    }
    keys = malloc(tableSize * sizeof(int64_t));
    node = malloc(tableSize * sizeof(long));
    prev = malloc(tableSize * sizeof(long));
    next = malloc(tableSize * sizeof(long));
    for (i = 0; i < tableSize; i++) {
	node[i] = -1;
    }
    for (i = 0; i < n; i++) {
	/* Multiplicative hashing: the product's top bits are well mixed. */
	size_t h = bits ? (size_t)(((uint64_t)blocks[i]
		* 0x9E3779B97F4A7C15ull) >> (64 - bits)) : 0;

	while (node[h] >= 0 && keys[h] != blocks[i]) {
	    h = (h + 1) & (tableSize - 1);
	}
	if (node[h] == 1) {
	    hits++;
	    /* Unlink h; it goes to the front below. */
	    if (prev[h] >= 0) next[prev[h]] = next[h]; else head = next[h];
	    if (next[h] >= 0) prev[next[h]] = prev[h]; else tail = prev[h];
	} else {
	    if (cached == capacity) {
		long victim = tail;

		tail = prev[victim];
		if (tail >= 0) next[tail] = -1; else head = -1;
		node[victim] = 0;
		cached--;
	    }
	    keys[h] = blocks[i];
	    cached++;
	}
	node[h] = 1;
	prev[h] = -1;
	next[h] = head;
	if (head >= 0) prev[head] = (long)h;
	head = (long)h;
	if (tail < 0) tail = (long)h;
    }
    free(keys);
    free(node);
    free(prev);
    free(next);
    return hits;
}

/*
 * HitsAt --
 *	The hits column of HitRatioCurve at a cache size.
 */
static double
HitsAt(const Rb_Attribute *curve, int64_t size)
{
    int r;

    for (r = 0; r < curve->nrows; r++) {
	if (Cell(curve, r, "cacheSize") == (double)size) {
	    return Cell(curve, r, "hits");
	}
    }
    ck_abort_msg("no cache size %lld in the curve", (long long)size);
    return 0;
}

/*
 * CheckAgainstLru --
 *	Runs ReuseDistanceAnalyzer with blocks of the given bytes on b and
 *	checks its hits equal direct LRU simulation at each size of sizes (a
 *	Tcl list).  Offsets in b must be block-aligned.
 */
static void
CheckAgainstLru(Rb_Batch *b, int64_t block, const char *sizes)
{
    char opts[256];
    int64_t *blocks = NULL, c;
    size_t n = 0;
    int i, k;
    Rb_Flow *flow;
    const char *p;
    char *end;

    for (i = 0; i < b->n; i++) {
	n += (size_t)((b->col[RB_IO_SIZE][i] + block - 1) / block);
    }
    blocks = malloc((n + 1) * sizeof(int64_t));
    for (n = 0, i = 0; i < b->n; i++) {
	int64_t first = b->col[RB_IO_OFFSET][i] / block;
	int64_t count = (b->col[RB_IO_SIZE][i] + block - 1) / block;

	for (k = 0; k < count; k++) {
	    blocks[n++] = first + k;
	}
    }
    snprintf(opts, sizeof(opts), "-block %lld -sizes {%s}", (long long)block,
	    sizes);
    flow = RunAll(&Rb_ReuseDistanceAnalyzerClass, opts, b);
    ck_assert_near(Scalar(flow, "BlockAccesses"), (double)n);
    for (p = sizes; (c = strtoll(p, &end, 10)), end != p; p = end) {
	ck_assert_msg(HitsAt(Attr(flow, "HitRatioCurve"), c)
		== (double)LruHits(blocks, n, (size_t)c),
		"cache of %lld blocks: %g, LRU %llu", (long long)c,
		HitsAt(Attr(flow, "HitRatioCurve"), c),
		(unsigned long long)LruHits(blocks, n, (size_t)c));
    }
    RbFlowDelete(flow);
    free(blocks);
}

START_TEST(reuse_distance_equals_lru_simulation_random)
{
    enum { N = 20000 };
    Rb_Batch *b = NewBatch(N);
    uint64_t seed = 12345;
    int k;

    /* A skewed random mix over 3000 blocks, 1 to 4 blocks per I/O. */
    for (k = 0; k < N; k++) {
	uint64_t r = NextRandom(&seed);
	int64_t block = (int64_t)((r % 3000) * ((r >> 20) % 3000) / 3000);

	AddIo(b, k, RB_OP_READ, 512 * (int64_t)(1 + (r >> 40) % 4), 1,
		block * 512);
    }
    CheckAgainstLru(b, 512, "1 2 3 10 100 1000 2999");
    Rb_BatchFree(b);
}
END_TEST

START_TEST(reuse_distance_equals_lru_simulation_cloudphysics)
{
    const char *path = rbtest_data("cloudphysics/cloudphysics-vscsi-sample.csv.gz");
    gzFile fp = gzopen(path, "r");
    char line[256];
    Rb_Batch *b = NewBatch(120000);
    long long version, t, reqSize, lbn;
    char op[8];

    /* CSV version,time,op,size,lbn: size in bytes, lbn in 512-byte
     * sectors.  Each I/O is placed at its sector's 4 KiB block, so that
     * offsets are block-aligned for the simulation. */
    ck_assert_msg(fp != NULL, "cannot open %s", path);
    ck_assert_ptr_nonnull(gzgets(fp, line, sizeof(line)));
    while (gzgets(fp, line, sizeof(line)) && b->n < b->cap) {
	if (sscanf(line, "%lld,%lld,%7[^,],%lld,%lld", &version, &t, op,
		&reqSize, &lbn) == 5) {
	    AddIo(b, t * 1000, RB_OP_READ, reqSize, 1, lbn / 8 * 4096);
	}
    }
    gzclose(fp);
    ck_assert_int_gt(b->n, 100000);
    CheckAgainstLru(b, 4096, "1 16 1000 10000 30000");
    Rb_BatchFree(b);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("analyzers2");
    TCase *tc;

    tc = tcase_create("generic");
    tcase_add_test(tc, field_stats_of_queue_length);
    tcase_add_test(tc, field_stats_of_a_time_field_in_seconds);
    tcase_add_test(tc, field_stats_unknown_field_fails_at_start);
    tcase_add_test(tc, field_histogram_log2_bins);
    tcase_add_test(tc, field_histogram_linear_bins_with_negatives);
    tcase_add_test(tc, field_histogram_just_below_a_power_of_two);
    tcase_add_test(tc, field_histogram_of_response_times_in_microseconds);
    tcase_add_test(tc, field_histogram_rejects_bad_width);
    tcase_add_test(tc, field_percentiles_within_one_percent);
    tcase_add_test(tc, field_percentiles_of_negative_values);
    tcase_add_test(tc, distinct_exact);
    tcase_add_test(tc, distinct_estimate_past_the_limit);
    tcase_add_test(tc, merge_generic);
    suite_add_tcase(s, tc);

    tc = tcase_create("timing");
    tcase_add_test(tc, inter_arrival_mean_cv_percentiles);
    tcase_add_test(tc, utilization_is_union_of_busy_intervals);
    tcase_add_test(tc, queue_depth_time_weighted);
    suite_add_tcase(s, tc);

    tc = tcase_create("spatial");
    tcase_add_test(tc, footprint_counts_distinct_blocks);
    tcase_add_test(tc, alignment_fractions);
    tcase_add_test(tc, seek_distance_per_device);
    tcase_add_test(tc, merge_spatial);
    suite_add_tcase(s, tc);

    tc = tcase_create("temporal");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, reuse_distance_by_hand);
    tcase_add_test(tc, reuse_distance_equals_lru_simulation_random);
    tcase_add_test(tc, reuse_distance_equals_lru_simulation_cloudphysics);
    suite_add_tcase(s, tc);
    return s;
}
