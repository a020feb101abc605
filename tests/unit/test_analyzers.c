/*
 * test_analyzers.c --
 *
 *	Unit tests of the built-in Analyzer kit (generic/analyzers).  Each
 *	test builds a few I/O records by hand, runs them through a Flow with
 *	the engine's C interface, and checks the Attributes against answers
 *	worked out in the comments.
 */

#include <math.h>
#include "kitTest.h"

/*
 * ---------------------------------------------------------------------
 * RateAnalyzer
 * ---------------------------------------------------------------------
 */

/* Five I/Os at 100, 100.5, 101, 101.5 and 102 s. */
static Rb_Batch *
FiveEvenIos(void)
{
    Rb_Batch *b = NewBatch(0);
    int k;

    for (k = 0; k < 5; k++) {
	AddIo(b, 100 * SEC + k * SEC / 2, RB_OP_READ, 4096, 1, k * 4096);
    }
    return b;
}

START_TEST(rate_is_ios_over_run_duration)
{
    Rb_Batch *b = FiveEvenIos();
    Rb_Flow *flow = RunAll(&Rb_RateAnalyzerClass, "", b);

    /* 5 I/Os over 102 - 100 = 2 s: 2.5 I/Os per second. */
    ck_assert_near(Scalar(flow, "Rate"), 2.5);
    ck_assert_near(Scalar(flow, "Count"), 5);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(rate_series_bins_from_run_start)
{
    Rb_Batch *b = FiveEvenIos();
    Rb_Flow *flow = RunAll(&Rb_RateAnalyzerClass, "-interval 1", b);
    const Rb_Attribute *s = Attr(flow, "RateSeries");

    /* Intervals from the first record (100 s): [0,1) holds 100 and 100.5,
     * [1,2) 101 and 101.5, [2,3) 102: 2, 2, 1 I/Os per second. */
    ck_assert_int_eq(s->kind, RB_ATTR_SERIES);
    ck_assert_int_eq(s->nrows, 3);
    ck_assert_near(Cell(s, 0, "time"), 0);
    ck_assert_near(Cell(s, 1, "time"), 1);
    ck_assert_near(Cell(s, 2, "time"), 2);
    ck_assert_near(Cell(s, 0, "value"), 2);
    ck_assert_near(Cell(s, 1, "value"), 2);
    ck_assert_near(Cell(s, 2, "value"), 1);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(rate_series_of_late_flow_lines_up_with_run)
{
    Rb_Batch *b = FiveEvenIos();
    uint32_t odd[] = {1, 3};
    Rb_Flow *flow = RunSome(&Rb_RateAnalyzerClass, "-interval 1", b, odd, 2);
    const Rb_Attribute *s = Attr(flow, "RateSeries");

    /* Only 100.5 and 101.5 reach this flow, but the bins start at the
     * run's first time, 100 s, and cover the run to 102 s: 1, 1, 0. */
    ck_assert_int_eq(s->nrows, 3);
    ck_assert_near(Cell(s, 0, "time"), 0);
    ck_assert_near(Cell(s, 0, "value"), 1);
    ck_assert_near(Cell(s, 1, "value"), 1);
    ck_assert_near(Cell(s, 2, "time"), 2);
    ck_assert_near(Cell(s, 2, "value"), 0);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(rate_per_device_rates_add_up)
{
    Rb_Batch *b = FiveEvenIos();
    uint32_t dev1[] = {0, 2, 4}, dev2[] = {1, 3};
    Rb_Flow *all = RunAll(&Rb_RateAnalyzerClass, "", b);
    Rb_Flow *f1 = RunSome(&Rb_RateAnalyzerClass, "", b, dev1, 3);
    Rb_Flow *f2 = RunSome(&Rb_RateAnalyzerClass, "", b, dev2, 2);

    /* Both divide by the run's 2 s: 3/2 + 2/2 = 5/2. */
    ck_assert_near(Scalar(f1, "Rate"), 1.5);
    ck_assert_near(Scalar(f2, "Rate"), 1.0);
    ck_assert_near(Scalar(f1, "Rate") + Scalar(f2, "Rate"),
	    Scalar(all, "Rate"));
    RbFlowDelete(all);
    RbFlowDelete(f1);
    RbFlowDelete(f2);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(rate_skips_records_without_time)
{
    Rb_Batch *b = FiveEvenIos();
    Rb_Flow *flow;
    int i = AddIo(b, 0, RB_OP_READ, 4096, 1, 0);

    b->col[RB_IO_TIME][i] = RB_ABSENT;
    flow = RunAll(&Rb_RateAnalyzerClass, "", b);
    ck_assert_near(Scalar(flow, "Count"), 5);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(rate_survives_corrupt_times)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;

    /* Times at both ends of int64: their difference overflows, so the
     * far one is left out of the series, but every I/O is counted. */
    AddIo(b, INT64_MIN + 1, RB_OP_READ, 4096, 1, 0);
    AddIo(b, INT64_MIN + 2, RB_OP_READ, 4096, 1, 0);
    AddIo(b, INT64_MAX, RB_OP_READ, 4096, 1, 0);
    flow = RunAll(&Rb_RateAnalyzerClass, "", b);
    ck_assert_near(Scalar(flow, "Count"), 3);
    ck_assert_int_eq(Attr(flow, "RateSeries")->nrows, 1);
    ck_assert_near(Cell(Attr(flow, "RateSeries"), 0, "value"), 0.2);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(rate_rejects_nonpositive_interval)
{
    ck_assert_ptr_null(NewAnalyzer(&Rb_RateAnalyzerClass, "-interval 0"));
    ck_assert_ptr_nonnull(strstr(Tcl_GetStringResult(rbtest_interp()),
	    "-interval"));
}
END_TEST

START_TEST(rate_of_empty_run_is_zero)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow = RunAll(&Rb_RateAnalyzerClass, "", b);

    ck_assert_near(Scalar(flow, "Rate"), 0);
    ck_assert_near(Scalar(flow, "Count"), 0);
    ck_assert_int_eq(Attr(flow, "RateSeries")->nrows, 0);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

/*
 * ---------------------------------------------------------------------
 * BandwidthAnalyzer
 * ---------------------------------------------------------------------
 */

START_TEST(bandwidth_is_bytes_over_run_duration)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *s;
    int i;

    AddIo(b, 0, RB_OP_READ, 4096, 1, 0);
    AddIo(b, 1 * SEC, RB_OP_WRITE, 8192, 1, 0);
    AddIo(b, 2 * SEC, RB_OP_READ, 4096, 1, 0);
    i = AddIo(b, 2 * SEC, RB_OP_READ, 0, 1, 0);
    b->col[RB_IO_SIZE][i] = RB_ABSENT;
    flow = RunAll(&Rb_BandwidthAnalyzerClass, "-interval 1", b);

    /* 4096 + 8192 + 4096 = 16384 bytes over 2 s: 8192 B/s; the record
     * without a size is skipped. */
    ck_assert_near(Scalar(flow, "Bandwidth"), 8192);
    ck_assert_near(Scalar(flow, "Bytes"), 16384);
    /* One I/O per 1 s interval: 4096, 8192, 4096 B/s. */
    s = Attr(flow, "BandwidthSeries");
    ck_assert_int_eq(s->nrows, 3);
    ck_assert_near(Cell(s, 0, "value"), 4096);
    ck_assert_near(Cell(s, 1, "value"), 8192);
    ck_assert_near(Cell(s, 2, "value"), 4096);
    ck_assert_near(Cell(s, 2, "time"), 2);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(bandwidth_series_exact_when_times_cross_bins_both_ways)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *s;

    /* Out of order, and on the bin edges: the bins are [100,101),
     * [101,102), [102,103) s from the run's first time, 100 s. */
    AddIo(b, 100 * SEC + SEC / 2, RB_OP_READ, 1, 1, 0);
    AddIo(b, 101 * SEC, RB_OP_READ, 10, 1, 0);
    AddIo(b, 100 * SEC, RB_OP_READ, 100, 1, 0);
    AddIo(b, 102 * SEC - 1, RB_OP_READ, 1000, 1, 0);
    AddIo(b, 102 * SEC, RB_OP_READ, 10000, 1, 0);
    AddIo(b, 101 * SEC - 1, RB_OP_READ, 100000, 1, 0);
    flow = RunAll(&Rb_BandwidthAnalyzerClass, "-interval 1", b);

    /* [100,101): 1 + 100 + 100000; [101,102): 10 + 1000; [102,103):
     * 10000 bytes, each over 1 s. */
    s = Attr(flow, "BandwidthSeries");
    ck_assert_int_eq(s->nrows, 3);
    ck_assert_near(Cell(s, 0, "value"), 100101);
    ck_assert_near(Cell(s, 1, "value"), 1010);
    ck_assert_near(Cell(s, 2, "value"), 10000);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(bandwidth_series_default_interval_is_10s)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *s;

    AddIo(b, 0, RB_OP_READ, 1000, 1, 0);
    AddIo(b, 9 * SEC, RB_OP_READ, 1000, 1, 0);
    AddIo(b, 25 * SEC, RB_OP_READ, 5000, 1, 0);
    flow = RunAll(&Rb_BandwidthAnalyzerClass, "", b);

    /* [0,10): 2000 bytes / 10 s = 200 B/s; [10,20): 0; [20,30): 500. */
    s = Attr(flow, "BandwidthSeries");
    ck_assert_int_eq(s->nrows, 3);
    ck_assert_near(Cell(s, 0, "value"), 200);
    ck_assert_near(Cell(s, 1, "value"), 0);
    ck_assert_near(Cell(s, 2, "value"), 500);
    ck_assert_near(Cell(s, 1, "time"), 10);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

/*
 * ---------------------------------------------------------------------
 * SizeAnalyzer, ReadFractionAnalyzer
 * ---------------------------------------------------------------------
 */

START_TEST(size_mean_min_max)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;

    AddIo(b, 0, RB_OP_READ, 512, 1, 0);
    AddIo(b, 1, RB_OP_READ, 4096, 1, 0);
    AddIo(b, 2, RB_OP_WRITE, 65536, 1, 0);
    flow = RunAll(&Rb_SizeAnalyzerClass, "", b);

    /* (512 + 4096 + 65536) / 3 = 70144 / 3. */
    ck_assert_near(Scalar(flow, "MeanSize"), 70144.0 / 3.0);
    ck_assert_near(Scalar(flow, "MinSize"), 512);
    ck_assert_near(Scalar(flow, "MaxSize"), 65536);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(size_of_no_ios_is_zero)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow = RunAll(&Rb_SizeAnalyzerClass, "", b);

    ck_assert_near(Scalar(flow, "MeanSize"), 0);
    ck_assert_near(Scalar(flow, "MinSize"), 0);
    ck_assert_near(Scalar(flow, "MaxSize"), 0);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(read_fraction_by_count_and_bytes)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    int i;

    AddIo(b, 0, RB_OP_READ, 4096, 1, 0);
    AddIo(b, 1, RB_OP_READ, 4096, 1, 0);
    AddIo(b, 2, RB_OP_READ, 8192, 1, 0);
    AddIo(b, 3, RB_OP_WRITE, 65536, 1, 0);
    i = AddIo(b, 4, RB_OP_WRITE, 1, 1, 0);
    b->col[RB_IO_OP][i] = RB_ABSENT;
    flow = RunAll(&Rb_ReadFractionAnalyzerClass, "", b);

    /* 3 reads of 16384 bytes, 1 write of 65536 (the op-less I/O counts
     * toward neither): 3/4 by count, 16384 / 81920 = 0.2 by bytes. */
    ck_assert_near(Scalar(flow, "ReadFraction"), 0.75);
    ck_assert_near(Scalar(flow, "ReadByteFraction"), 0.2);
    ck_assert_near(Scalar(flow, "Reads"), 3);
    ck_assert_near(Scalar(flow, "Writes"), 1);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

/*
 * ---------------------------------------------------------------------
 * SeqRunAnalyzer
 * ---------------------------------------------------------------------
 */

START_TEST(seqrun_interleaved_devices)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *t;

    /* Device 1: 0, 4096, 8192 (one run of 3), then 100000, 104096 (a run
     * of 2), 4096 bytes each.  Device 2: 0, then 50000, 58192 (runs of 1
     * and 2), 8192 bytes each.  Interleaved, so only per-device state
     * sees the runs. */
    AddIo(b, 1, RB_OP_READ, 4096, 1, 0);
    AddIo(b, 2, RB_OP_READ, 8192, 2, 0);
    AddIo(b, 3, RB_OP_READ, 4096, 1, 4096);
    AddIo(b, 4, RB_OP_READ, 8192, 2, 50000);
    AddIo(b, 5, RB_OP_READ, 4096, 1, 8192);
    AddIo(b, 6, RB_OP_READ, 8192, 2, 58192);
    AddIo(b, 7, RB_OP_READ, 4096, 1, 100000);
    AddIo(b, 8, RB_OP_READ, 4096, 1, 104096);
    flow = RunAll(&Rb_SeqRunAnalyzerClass, "", b);

    /* 8 I/Os in 4 runs: 2 per run; 5*4096 + 3*8192 = 45056 bytes / 4 =
     * 11264 per run; 4 of 8 I/Os continue a run. */
    ck_assert_near(Scalar(flow, "SeqRuns"), 4);
    ck_assert_near(Scalar(flow, "SeqRunLength"), 2);
    ck_assert_near(Scalar(flow, "SeqRunBytes"), 11264);
    ck_assert_near(Scalar(flow, "SeqFraction"), 0.5);
    t = Attr(flow, "SeqRunsByDevice");
    ck_assert_int_eq(t->kind, RB_ATTR_TABLE);
    ck_assert_int_eq(t->nrows, 2);
    ck_assert_near(Cell(t, 0, "device"), 1);
    ck_assert_near(Cell(t, 0, "ios"), 5);
    ck_assert_near(Cell(t, 0, "runs"), 2);
    ck_assert_near(Cell(t, 0, "meanRunLength"), 2.5);
    ck_assert_near(Cell(t, 1, "device"), 2);
    ck_assert_near(Cell(t, 1, "ios"), 3);
    ck_assert_near(Cell(t, 1, "runs"), 2);
    ck_assert_near(Cell(t, 1, "meanRunLength"), 1.5);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

/* One device: 4096-byte I/Os at 0, 4608, 8704+512, then 512 back from
 * the previous end, then 513 past it. */
static Rb_Batch *
GappyIos(void)
{
    Rb_Batch *b = NewBatch(0);

    AddIo(b, 1, RB_OP_READ, 4096, 7, 0);	/* ends 4096 */
    AddIo(b, 2, RB_OP_READ, 4096, 7, 4608);	/* 512 past; ends 8704 */
    AddIo(b, 3, RB_OP_READ, 4096, 7, 9216);	/* 512 past; ends 13312 */
    AddIo(b, 4, RB_OP_READ, 4096, 7, 12800);	/* 512 back; ends 16896 */
    AddIo(b, 5, RB_OP_READ, 4096, 7, 17409);	/* 513 past */
    return b;
}

START_TEST(seqrun_gap_tolerance)
{
    Rb_Batch *b = GappyIos();
    Rb_Flow *exact = RunAll(&Rb_SeqRunAnalyzerClass, "", b);
    Rb_Flow *gap512 = RunAll(&Rb_SeqRunAnalyzerClass, "-gap 512", b);

    /* Without a gap no I/O starts where the previous ended: 5 runs. With
     * -gap 512 the first four are one run and the 513-byte jump starts a
     * second: 2 runs, 5/2 I/Os each, 3 of 5 continue. */
    ck_assert_near(Scalar(exact, "SeqRuns"), 5);
    ck_assert_near(Scalar(exact, "SeqFraction"), 0);
    ck_assert_near(Scalar(gap512, "SeqRuns"), 2);
    ck_assert_near(Scalar(gap512, "SeqRunLength"), 2.5);
    ck_assert_near(Scalar(gap512, "SeqFraction"), 0.6);
    RbFlowDelete(exact);
    RbFlowDelete(gap512);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(seqrun_by_logical_volume)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    int i, k;

    /* Every I/O is on device 1 at a scattered device offset, but on two
     * logical volumes each read sequentially: lv 10 at 0, 1000, 2000
     * and lv 20 at 0, 1000 (1000-byte I/Os), so 2 runs of 5 I/Os. */
    for (k = 0; k < 5; k++) {
	i = AddIo(b, k, RB_OP_READ, 1000, 1, (int64_t)k * 999983);
	b->col[RB_IO_LVNO][i] = (k % 2) ? 20 : 10;
	b->col[RB_IO_LVOFFSET][i] = (k / 2) * 1000;
    }
    flow = RunAll(&Rb_SeqRunAnalyzerClass,
	    "-field lvNo -offsetField lvOffset", b);
    ck_assert_near(Scalar(flow, "SeqRuns"), 2);
    ck_assert_near(Scalar(flow, "SeqRunLength"), 2.5);
    ck_assert_near(Cell(Attr(flow, "SeqRunsByDevice"), 1, "device"), 20);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(seqrun_skips_ios_without_offset)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    int i;

    AddIo(b, 1, RB_OP_READ, 4096, 1, 0);
    i = AddIo(b, 2, RB_OP_READ, 4096, 1, 0);
    b->col[RB_IO_OFFSET][i] = RB_ABSENT;
    AddIo(b, 3, RB_OP_READ, 4096, 1, 4096);
    flow = RunAll(&Rb_SeqRunAnalyzerClass, "", b);

    /* The offset-less I/O neither breaks nor joins the run: 1 run of 2. */
    ck_assert_near(Scalar(flow, "SeqRuns"), 1);
    ck_assert_near(Scalar(flow, "SeqRunLength"), 2);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(seqrun_many_devices)
{
    Rb_Batch *b = NewBatch(3000);
    Rb_Flow *flow;
    const Rb_Attribute *t;
    int k, dev;

    /* 1000 devices, each read 3 times sequentially, round robin: 1000
     * runs of 3 (and the device table must grow many times). */
    for (k = 0; k < 3; k++) {
	for (dev = 0; dev < 1000; dev++) {
	    AddIo(b, k * 1000 + dev, RB_OP_READ, 512, dev * 7919, k * 512);
	}
    }
    flow = RunAll(&Rb_SeqRunAnalyzerClass, "", b);
    ck_assert_near(Scalar(flow, "SeqRuns"), 1000);
    ck_assert_near(Scalar(flow, "SeqRunLength"), 3);
    t = Attr(flow, "SeqRunsByDevice");
    ck_assert_int_eq(t->nrows, 1000);
    for (dev = 0; dev < 1000; dev++) {
	ck_assert_near(Cell(t, dev, "device"), dev * 7919);
	ck_assert_near(Cell(t, dev, "ios"), 3);
    }
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(seqrun_unknown_field_fails_at_start)
{
    Tcl_Interp *interp = rbtest_interp();
    Rb_Flow *flow = NewFlow(&Rb_SeqRunAnalyzerClass, "-field noSuchField",
	    NULL);
    Rb_RunInfo run;

    RbRunInfoInit(&run, interp, Rb_IoSchema());
    ck_assert_int_eq(RbFlowStart(flow, &run), TCL_ERROR);
    ck_assert_ptr_nonnull(strstr(Tcl_GetStringResult(interp),
	    "noSuchField"));
    RbRunInfoFree(&run);
    RbFlowDelete(flow);
}
END_TEST

START_TEST(seqrun_merges_a_run_across_the_boundary)
{
    Tcl_Interp *interp = rbtest_interp();
    Rb_Batch *b = NewBatch(0);
    Rb_Analyzer *a1, *a2;
    Rb_Flow *f1 = NewFlow(&Rb_SeqRunAnalyzerClass, "", &a1);
    Rb_Flow *f2 = NewFlow(&Rb_SeqRunAnalyzerClass, "", &a2);
    Rb_RunInfo run;
    uint32_t firstShard[] = {0, 1}, secondShard[] = {2, 3, 4};

    /* Device 1: 0+4K, 4K+4K | 8K+4K (continues), 100K+4K (new run);
     * device 2 only in the second shard: 0+4K.  One pass: device 1 has
     * runs {0,4K,8K} and {100K}, device 2 one run: 3 runs of 5 I/Os. */
    AddIo(b, 1 * SEC, RB_OP_READ, 4096, 1, 0);
    AddIo(b, 2 * SEC, RB_OP_READ, 4096, 1, 4096);
    AddIo(b, 3 * SEC, RB_OP_READ, 4096, 1, 8192);
    AddIo(b, 4 * SEC, RB_OP_READ, 4096, 1, 102400);
    AddIo(b, 5 * SEC, RB_OP_READ, 4096, 2, 0);
    RbRunInfoInit(&run, interp, Rb_IoSchema());
    NoteTimes(&run, b);
    ck_assert_int_eq(RbFlowStart(f1, &run), TCL_OK);
    ck_assert_int_eq(RbFlowStart(f2, &run), TCL_OK);
    PushSome(f1, b, firstShard, 2);
    PushSome(f2, b, secondShard, 3);
    ck_assert_int_eq(Rb_SeqRunAnalyzerClass.merge(a1, a2), TCL_OK);
    ck_assert_int_eq(RbFlowEnd(f1, &run), TCL_OK);
    ck_assert_near(Scalar(f1, "SeqRuns"), 3);
    ck_assert_near(Scalar(f1, "SeqFraction"), 2.0 / 5.0);
    RbRunInfoFree(&run);
    RbFlowDelete(f1);
    RbFlowDelete(f2);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(merge_order_dependent)
{
    CheckMerge(&Rb_SeqRunAnalyzerClass, "");
    CheckMerge(&Rb_SeqRunAnalyzerClass, "-gap 65536");
    CheckMerge(&Rb_FootprintAnalyzerClass, "");
    CheckMerge(&Rb_FootprintAnalyzerClass, "-block 512");
    CheckMerge(&Rb_InterArrivalAnalyzerClass, "");
    CheckMerge(&Rb_SeekDistanceAnalyzerClass, "");
    CheckMerge(&Rb_ReReferenceAnalyzerClass, "");
    CheckMerge(&Rb_ReReferenceAnalyzerClass, "-block 65536");
    CheckMerge(&Rb_WorkingSetAnalyzerClass, "-window 0.1");
    CheckMerge(&Rb_WorkingSetAnalyzerClass, "-window 10");
    CheckMerge(&Rb_WorkingSetAnalyzerClass, "-window 0.001 -block 512");
}
END_TEST

/*
 * ---------------------------------------------------------------------
 * SizeHistogramAnalyzer
 * ---------------------------------------------------------------------
 */

static Rb_Batch *
HistogramIos(void)
{
    Rb_Batch *b = NewBatch(0);
    static const int64_t sizes[] = {512, 1024, 1500, 4096, 4096};
    int k;

    for (k = 0; k < 5; k++) {
	AddIo(b, k, RB_OP_READ, sizes[k], 1, 0);
    }
    return b;
}

START_TEST(size_histogram_log2_bins)
{
    Rb_Batch *b = HistogramIos();
    Rb_Flow *flow = RunAll(&Rb_SizeHistogramAnalyzerClass, "", b);
    const Rb_Attribute *h = Attr(flow, "SizeHistogram");

    /* [512,1024): 512; [1024,2048): 1024, 1500; [2048,4096): none;
     * [4096,8192): 4096 twice. */
    ck_assert_int_eq(h->kind, RB_ATTR_HISTOGRAM);
    ck_assert_int_eq(h->nrows, 4);
    ck_assert_near(Cell(h, 0, "lo"), 512);
    ck_assert_near(Cell(h, 0, "hi"), 1024);
    ck_assert_near(Cell(h, 0, "count"), 1);
    ck_assert_near(Cell(h, 1, "lo"), 1024);
    ck_assert_near(Cell(h, 1, "count"), 2);
    ck_assert_near(Cell(h, 2, "lo"), 2048);
    ck_assert_near(Cell(h, 2, "count"), 0);
    ck_assert_near(Cell(h, 3, "lo"), 4096);
    ck_assert_near(Cell(h, 3, "hi"), 8192);
    ck_assert_near(Cell(h, 3, "count"), 2);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(size_histogram_linear_bins)
{
    Rb_Batch *b = HistogramIos();
    Rb_Flow *flow = RunAll(&Rb_SizeHistogramAnalyzerClass,
	    "-bins linear -width 1000", b);
    const Rb_Attribute *h = Attr(flow, "SizeHistogram");

    /* [0,1000): 512; [1000,2000): 1024, 1500; [2000,3000) and
     * [3000,4000): none; [4000,5000): 4096 twice. */
    ck_assert_int_eq(h->nrows, 5);
    ck_assert_near(Cell(h, 0, "lo"), 0);
    ck_assert_near(Cell(h, 0, "hi"), 1000);
    ck_assert_near(Cell(h, 0, "count"), 1);
    ck_assert_near(Cell(h, 1, "count"), 2);
    ck_assert_near(Cell(h, 3, "count"), 0);
    ck_assert_near(Cell(h, 4, "lo"), 4000);
    ck_assert_near(Cell(h, 4, "count"), 2);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(size_histogram_zero_size_bin)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *h;

    AddIo(b, 0, RB_OP_WRITE, 0, 1, 0);
    AddIo(b, 1, RB_OP_WRITE, 3, 1, 0);
    flow = RunAll(&Rb_SizeHistogramAnalyzerClass, "", b);
    h = Attr(flow, "SizeHistogram");

    /* [0,1): the 0-byte I/O; [1,2): none; [2,4): 3. */
    ck_assert_int_eq(h->nrows, 3);
    ck_assert_near(Cell(h, 0, "hi"), 1);
    ck_assert_near(Cell(h, 0, "count"), 1);
    ck_assert_near(Cell(h, 2, "lo"), 2);
    ck_assert_near(Cell(h, 2, "count"), 1);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(size_histogram_rejects_bad_bins)
{
    ck_assert_ptr_null(NewAnalyzer(&Rb_SizeHistogramAnalyzerClass,
	    "-bins cubic"));
    ck_assert_ptr_nonnull(strstr(Tcl_GetStringResult(rbtest_interp()),
	    "log2 or linear"));
    ck_assert_ptr_null(NewAnalyzer(&Rb_SizeHistogramAnalyzerClass,
	    "-bins linear -width 0"));
}
END_TEST

/*
 * ---------------------------------------------------------------------
 * ResponseTimeAnalyzer
 * ---------------------------------------------------------------------
 */

START_TEST(response_time_small)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *p;
    int k, i;

    /* Response times 1, 2, 3, 4 ms; one I/O finishing before it was
     * enqueued and one without a finish time are skipped. */
    for (k = 1; k <= 4; k++) {
	i = AddIo(b, k * SEC, RB_OP_READ, 4096, 1, 0);
	b->col[RB_IO_FINISH][i] = k * SEC + k * MS;
    }
    i = AddIo(b, 5 * SEC, RB_OP_READ, 4096, 1, 0);
    b->col[RB_IO_FINISH][i] = 4 * SEC;
    AddIo(b, 6 * SEC, RB_OP_READ, 4096, 1, 0);
    flow = RunAll(&Rb_ResponseTimeAnalyzerClass, "", b);

    /* Mean (1+2+3+4)/4 = 2.5 ms, exact; min 1 ms and max 4 ms exact;
     * median is rank ceil(0.5 * 4) = 2, i.e. 2 ms within 1%. */
    ck_assert_near(Scalar(flow, "ResponseTimeCount"), 4);
    ck_assert_near(Scalar(flow, "MeanResponseTime"), 0.0025);
    p = Attr(flow, "ResponseTime");
    ck_assert_int_eq(p->kind, RB_ATTR_PERCENTILES);
    ck_assert_int_eq(p->nrows, 7);
    ck_assert_near(Cell(p, 0, "p"), 0);
    ck_assert_double_eq(Cell(p, 0, "value"), 0.001);
    ck_assert_near(Cell(p, 1, "p"), 50);
    ck_assert_double_le(fabs(Cell(p, 1, "value") - 0.002), 0.01 * 0.002);
    ck_assert_near(Cell(p, 6, "p"), 100);
    ck_assert_double_eq(Cell(p, 6, "value"), 0.004);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

static int
CompareInt64(const void *p, const void *q)
{
    int64_t x = *(const int64_t *)p, y = *(const int64_t *)q;

    return (x > y) - (x < y);
}

START_TEST(response_time_percentiles_within_one_percent)
{
    enum { N = 5000 };
    /* Percentiles in thousandths, as the analyzer reports them. */
    static const int64_t permille[] = {0, 500, 900, 950, 990, 999, 1000};
    Rb_Batch *b1 = NewBatch(N / 2), *b2 = NewBatch(N - N / 2);
    int64_t *ns = malloc(N * sizeof(int64_t)), sum = 0;
    uint64_t seed = 88172645463325252ull;
    Tcl_Interp *interp = rbtest_interp();
    Rb_Analyzer *a;
    Rb_Flow *flow = NewFlow(&Rb_ResponseTimeAnalyzerClass, "", &a);
    const Rb_Attribute *p;
    Rb_RunInfo run;
    int k, i;

    /* Log-uniform from 1 us to 10 s, with some exact repeats and zeros. */
    for (k = 0; k < N; k++) {
	double u = (double)(NextRandom(&seed) >> 11) / 9007199254740992.0;
	Rb_Batch *b = k < N / 2 ? b1 : b2;

	ns[k] = (k % 97 == 0) ? 0 : (k % 13 == 0) ? 5 * MS
		: (int64_t)pow(10.0, 3.0 + 7.0 * u);
	sum += ns[k];
	i = AddIo(b, (int64_t)k * MS, RB_OP_READ, 4096, 1, 0);
	b->col[RB_IO_FINISH][i] = (int64_t)k * MS + ns[k];
    }
    RbRunInfoInit(&run, interp, Rb_IoSchema());
    ck_assert_int_eq(RbFlowStart(flow, &run), TCL_OK);
    PushSome(flow, b1, NULL, 0);
    PushSome(flow, b2, NULL, 0);
    ck_assert_int_eq(RbFlowEnd(flow, &run), TCL_OK);

    /* The exact nearest-rank percentile: rank ceil(p/100 N), from 1. */
    qsort(ns, N, sizeof(int64_t), CompareInt64);
    p = Attr(flow, "ResponseTime");
    ck_assert_int_eq(p->nrows, 7);
    for (k = 0; k < 7; k++) {
	int64_t rank = (permille[k] * N + 999) / 1000;
	double exact = (double)ns[rank < 1 ? 0 : rank - 1] / 1e9;
	double got = Cell(p, k, "value");

	ck_assert_double_eq_tol(Cell(p, k, "p"), permille[k] / 10.0, 1e-12);
	ck_assert_msg(fabs(got - exact) <= 0.01 * exact * (1 + 1e-9),
		"p%g: got %.9g, exact %.9g", permille[k] / 10.0, got, exact);
    }
    ck_assert_double_eq(Cell(p, 0, "value"), (double)ns[0] / 1e9);
    ck_assert_double_eq(Cell(p, 6, "value"), (double)ns[N - 1] / 1e9);
    ck_assert_near(Scalar(flow, "MeanResponseTime"),
	    (double)sum / N / 1e9);
    ck_assert_near(Scalar(flow, "ResponseTimeCount"), N);
    RbRunInfoFree(&run);
    RbFlowDelete(flow);
    Rb_BatchFree(b1);
    Rb_BatchFree(b2);
    free(ns);
}
END_TEST

START_TEST(response_time_service_and_queue_time)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *service, *queue;
    int i;

    /* Enqueued at 0, issued at 3 ms, done at 10 ms; and 1 s, 1.001 s,
     * 1.005 s.  Service times 7 and 4 ms: mean 5.5 ms.  Queue times 3
     * and 1 ms: mean 2 ms. */
    i = AddIo(b, 0, RB_OP_READ, 4096, 1, 0);
    b->col[RB_IO_START][i] = 3 * MS;
    b->col[RB_IO_FINISH][i] = 10 * MS;
    i = AddIo(b, SEC, RB_OP_READ, 4096, 1, 0);
    b->col[RB_IO_START][i] = SEC + 1 * MS;
    b->col[RB_IO_FINISH][i] = SEC + 5 * MS;
    service = RunAll(&Rb_ResponseTimeAnalyzerClass, "-from startTime", b);
    queue = RunAll(&Rb_ResponseTimeAnalyzerClass, "-to startTime", b);
    ck_assert_near(Scalar(service, "MeanResponseTime"), 0.0055);
    ck_assert_double_eq(Cell(Attr(service, "ResponseTime"), 6, "value"),
	    0.007);
    ck_assert_near(Scalar(queue, "MeanResponseTime"), 0.002);
    ck_assert_double_eq(Cell(Attr(queue, "ResponseTime"), 0, "value"),
	    0.001);
    RbFlowDelete(service);
    RbFlowDelete(queue);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(response_time_rejects_non_time_field)
{
    Tcl_Interp *interp = rbtest_interp();
    Rb_Flow *flow = NewFlow(&Rb_ResponseTimeAnalyzerClass, "-to size", NULL);
    Rb_RunInfo run;

    RbRunInfoInit(&run, interp, Rb_IoSchema());
    ck_assert_int_eq(RbFlowStart(flow, &run), TCL_ERROR);
    ck_assert_ptr_nonnull(strstr(Tcl_GetStringResult(interp),
	    "not a time"));
    RbRunInfoFree(&run);
    RbFlowDelete(flow);
}
END_TEST

START_TEST(response_time_of_nothing_has_no_percentiles)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;

    AddIo(b, 0, RB_OP_READ, 4096, 1, 0);	/* no finish time */
    flow = RunAll(&Rb_ResponseTimeAnalyzerClass, "", b);
    ck_assert_int_eq(Attr(flow, "ResponseTime")->nrows, 0);
    ck_assert_near(Scalar(flow, "ResponseTimeCount"), 0);
    ck_assert_near(Scalar(flow, "MeanResponseTime"), 0);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

/*
 * ---------------------------------------------------------------------
 * Merging: two instances on halves of the records, merged, give what one
 * instance gives on all of them.
 * ---------------------------------------------------------------------
 */

START_TEST(merge_rate)
{
    CheckMerge(&Rb_RateAnalyzerClass, "-interval 0.1");
}
END_TEST

START_TEST(merge_bandwidth)
{
    CheckMerge(&Rb_BandwidthAnalyzerClass, "-interval 0.25");
}
END_TEST

START_TEST(merge_size)
{
    CheckMerge(&Rb_SizeAnalyzerClass, "");
}
END_TEST

START_TEST(merge_read_fraction)
{
    CheckMerge(&Rb_ReadFractionAnalyzerClass, "");
}
END_TEST

START_TEST(merge_size_histogram)
{
    CheckMerge(&Rb_SizeHistogramAnalyzerClass, "");
    CheckMerge(&Rb_SizeHistogramAnalyzerClass, "-bins linear -width 3000");
}
END_TEST

START_TEST(merge_response_time)
{
    CheckMerge(&Rb_ResponseTimeAnalyzerClass, "");
    CheckMerge(&Rb_ResponseTimeAnalyzerClass, "-from startTime");
}
END_TEST

START_TEST(merge_misaligned_series_fails)
{
    Tcl_Interp *interp = rbtest_interp();
    Rb_Batch *b = NewBatch(0);
    Rb_Analyzer *a1, *a2;
    Rb_Flow *f1 = NewFlow(&Rb_RateAnalyzerClass, "", &a1);
    Rb_Flow *f2 = NewFlow(&Rb_RateAnalyzerClass, "", &a2);
    Rb_RunInfo run1, run2;
    uint32_t first = 0, second = 1;

    /* Shards whose runs begin 3 s apart have 10 s bins that do not line
     * up; merging them would misplace counts, so it fails. */
    AddIo(b, 0, RB_OP_READ, 4096, 1, 0);
    AddIo(b, 3 * SEC, RB_OP_READ, 4096, 1, 0);
    RbRunInfoInit(&run1, interp, Rb_IoSchema());
    RbRunInfoInit(&run2, interp, Rb_IoSchema());
    ck_assert_int_eq(RbFlowStart(f1, &run1), TCL_OK);
    ck_assert_int_eq(RbFlowStart(f2, &run2), TCL_OK);
    PushSome(f1, b, &first, 1);
    PushSome(f2, b, &second, 1);
    ck_assert_int_eq(Rb_RateAnalyzerClass.merge(a1, a2), TCL_ERROR);
    RbRunInfoFree(&run1);
    RbRunInfoFree(&run2);
    RbFlowDelete(f1);
    RbFlowDelete(f2);
    Rb_BatchFree(b);
}
END_TEST

/*
 * ---------------------------------------------------------------------
 * The kit as a whole
 * ---------------------------------------------------------------------
 */

START_TEST(kit_registers_every_class)
{
    static const char *const names[] = {
	"RateAnalyzer", "BandwidthAnalyzer", "SizeAnalyzer",
	"ReadFractionAnalyzer", "SeqRunAnalyzer", "SizeHistogramAnalyzer",
	"ResponseTimeAnalyzer", "ShareAnalyzer", NULL
    };
    Tcl_Interp *interp = rbtest_interp();
    Tcl_CmdInfo info;
    char cmd[64];
    int k;

    /* Each class is a command in ::rubicon. */
    for (k = 0; names[k]; k++) {
	snprintf(cmd, sizeof(cmd), "::rubicon::%s", names[k]);
	ck_assert_msg(Tcl_GetCommandInfo(interp, cmd, &info),
		"%s not registered", cmd);
    }
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("analyzers");
    TCase *tc;

    tc = tcase_create("rate");
    tcase_add_test(tc, rate_is_ios_over_run_duration);
    tcase_add_test(tc, rate_series_bins_from_run_start);
    tcase_add_test(tc, rate_series_of_late_flow_lines_up_with_run);
    tcase_add_test(tc, rate_per_device_rates_add_up);
    tcase_add_test(tc, rate_skips_records_without_time);
    tcase_add_test(tc, rate_survives_corrupt_times);
    tcase_add_test(tc, rate_rejects_nonpositive_interval);
    tcase_add_test(tc, rate_of_empty_run_is_zero);
    suite_add_tcase(s, tc);

    tc = tcase_create("bandwidth");
    tcase_add_test(tc, bandwidth_is_bytes_over_run_duration);
    tcase_add_test(tc, bandwidth_series_exact_when_times_cross_bins_both_ways);
    tcase_add_test(tc, bandwidth_series_default_interval_is_10s);
    suite_add_tcase(s, tc);

    tc = tcase_create("size");
    tcase_add_test(tc, size_mean_min_max);
    tcase_add_test(tc, size_of_no_ios_is_zero);
    tcase_add_test(tc, read_fraction_by_count_and_bytes);
    suite_add_tcase(s, tc);

    tc = tcase_create("seqrun");
    tcase_add_test(tc, seqrun_interleaved_devices);
    tcase_add_test(tc, seqrun_gap_tolerance);
    tcase_add_test(tc, seqrun_by_logical_volume);
    tcase_add_test(tc, seqrun_skips_ios_without_offset);
    tcase_add_test(tc, seqrun_many_devices);
    tcase_add_test(tc, seqrun_unknown_field_fails_at_start);
    tcase_add_test(tc, seqrun_merges_a_run_across_the_boundary);
    tcase_add_test(tc, merge_order_dependent);
    suite_add_tcase(s, tc);

    tc = tcase_create("histogram");
    tcase_add_test(tc, size_histogram_log2_bins);
    tcase_add_test(tc, size_histogram_linear_bins);
    tcase_add_test(tc, size_histogram_zero_size_bin);
    tcase_add_test(tc, size_histogram_rejects_bad_bins);
    suite_add_tcase(s, tc);

    tc = tcase_create("responsetime");
    tcase_add_test(tc, response_time_small);
    tcase_add_test(tc, response_time_percentiles_within_one_percent);
    tcase_add_test(tc, response_time_service_and_queue_time);
    tcase_add_test(tc, response_time_rejects_non_time_field);
    tcase_add_test(tc, response_time_of_nothing_has_no_percentiles);
    suite_add_tcase(s, tc);

    tc = tcase_create("merge");
    tcase_add_test(tc, merge_rate);
    tcase_add_test(tc, merge_bandwidth);
    tcase_add_test(tc, merge_size);
    tcase_add_test(tc, merge_read_fraction);
    tcase_add_test(tc, merge_size_histogram);
    tcase_add_test(tc, merge_response_time);
    tcase_add_test(tc, merge_misaligned_series_fails);
    suite_add_tcase(s, tc);

    tc = tcase_create("kit");
    tcase_add_test(tc, kit_registers_every_class);
    suite_add_tcase(s, tc);
    return s;
}
