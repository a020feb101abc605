/*
 * test_analyzers6.c --
 *
 *	Unit tests of the block-I/O objective and model classes
 *	(SloAnalyzer, ServiceModelAnalyzer, PeakRateAnalyzer,
 *	ArrivalFitAnalyzer, ThinkTimeAnalyzer): that two shards, the second
 *	sent as bytes, merge to the whole run's Attributes; that a peak
 *	window cut by the shard boundary is joined again; and the think time
 *	paired across the boundary.
 */

#include "kitTest.h"

START_TEST(merge_block_io_classes)
{
    CheckMerge(&Rb_SloAnalyzerClass, "-thresholds {0.005 0.01} "
	    "-interval 0.1 -target 0.5");
    CheckMerge(&Rb_SloAnalyzerClass, "-field queueTime -thresholds 0.0005");
    CheckMerge(&Rb_ServiceModelAnalyzerClass, "");
    CheckMerge(&Rb_ServiceModelAnalyzerClass, "-field responseTime");
    CheckMerge(&Rb_PeakRateAnalyzerClass,
	    "-windows {0.0005 0.003 0.01 0.1 1 10}");
    CheckMerge(&Rb_ArrivalFitAnalyzerClass, "");
    CheckMerge(&Rb_ArrivalFitAnalyzerClass, "-field size");
    CheckMerge(&Rb_ThinkTimeAnalyzerClass, "-by deviceNo");
}
END_TEST

/*
 * MergeTwo --
 *	Runs cls with opts over records [0, cut) and [cut, n) of b in two
 *	instances, merges the second into the first and ends it.
 * Results: the first flow, holding the merged Attributes.
 */
static Rb_Flow *
MergeTwo(const Rb_AnalyzerClass *cls, const char *opts, Rb_Batch *b,
	int cut)
{
    Tcl_Interp *interp = rbtest_interp();
    Rb_Analyzer *a1, *a2;
    Rb_Flow *f1 = NewFlow(cls, opts, &a1), *f2 = NewFlow(cls, opts, &a2);
    uint32_t sel[16];
    Rb_RunInfo run;
    int k;

    for (k = 0; k < b->n; k++) {
	sel[k] = k;
    }
    RbRunInfoInit(&run, interp, Rb_IoSchema());
    NoteTimes(&run, b);
    ck_assert_int_eq(RbFlowStart(f1, &run), TCL_OK);
    ck_assert_int_eq(RbFlowStart(f2, &run), TCL_OK);
    PushSome(f1, b, sel, cut);
    PushSome(f2, b, sel + cut, b->n - cut);
    ck_assert_int_eq(cls->merge(a1, a2), TCL_OK);
    ck_assert_int_eq(RbFlowEnd(f1, &run), TCL_OK);
    RbRunInfoFree(&run);
    RbFlowDelete(f2);
    return f1;
}

/*
 * Four I/Os at 0, 0.2, 0.4 and 1.5 s of 100, 200, 300 and 400 bytes:
 * the 1 s window [0, 1) holds 3 I/Os and 600 bytes whichever record the
 * shards are cut at, and [1, 2) 1 I/O of 400 bytes.
 */
START_TEST(peak_window_cut_by_the_boundary)
{
    Rb_Batch *b = NewBatch(4);
    int cut;

    AddIo(b, 0, RB_OP_READ, 100, 1, 0);
    AddIo(b, 200 * MS, RB_OP_READ, 200, 1, 0);
    AddIo(b, 400 * MS, RB_OP_READ, 300, 1, 0);
    AddIo(b, 1500 * MS, RB_OP_READ, 400, 1, 0);
    for (cut = 0; cut <= 4; cut++) {
	Rb_Flow *f = MergeTwo(&Rb_PeakRateAnalyzerClass, "-windows 1", b,
		cut);
	const Rb_Attribute *t = Attr(f, "PeakRate");

	ck_assert_double_eq(Cell(t, 0, "peakCount"), 3);
	ck_assert_double_eq(Cell(t, 0, "peakBytes"), 600);
	/* 2 windows in the run: the mean window holds 2 I/Os, 500 bytes. */
	ck_assert_near(Cell(t, 0, "rateToMean"), 1.5);
	ck_assert_near(Cell(t, 0, "bandwidthToMean"), 1.2);
	RbFlowDelete(f);
    }
    Rb_BatchFree(b);
}
END_TEST

/*
 * pid 7: I/Os at 0 s (done 1 s), 3 s (done 3.5 s) and 3.2 s; pid 8 at
 * 2 s.  Think time 2 s (1 to 3); the third arrives while the second is
 * outstanding: 1 of 2 followers overlapped, wherever the cut falls.
 */
START_TEST(think_time_paired_across_the_boundary)
{
    Rb_Batch *b = NewBatch(4);
    int cut, i;

    i = AddIo(b, 0, RB_OP_READ, 512, 1, 0);
    b->col[RB_IO_FINISH][i] = 1 * SEC;
    b->col[RB_IO_PID][i] = 7;
    i = AddIo(b, 2 * SEC, RB_OP_READ, 512, 1, 0);
    b->col[RB_IO_FINISH][i] = 2 * SEC + MS;
    b->col[RB_IO_PID][i] = 8;
    i = AddIo(b, 3 * SEC, RB_OP_READ, 512, 1, 0);
    b->col[RB_IO_FINISH][i] = 3500 * MS;
    b->col[RB_IO_PID][i] = 7;
    i = AddIo(b, 3200 * MS, RB_OP_READ, 512, 1, 0);
    b->col[RB_IO_PID][i] = 7;
    for (cut = 0; cut <= 4; cut++) {
	Rb_Flow *f = MergeTwo(&Rb_ThinkTimeAnalyzerClass, "", b, cut);

	ck_assert_double_eq(Scalar(f, "ThinkTimeCount"), 1);
	ck_assert_near(Scalar(f, "MeanThinkTime"), 2.0);
	ck_assert_near(Scalar(f, "OverlappedFraction"), 0.5);
	ck_assert_double_eq(Scalar(f, "ThinkTimeKeys"), 2);
	RbFlowDelete(f);
    }
    Rb_BatchFree(b);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("analyzers6");
    TCase *tc;

    tc = tcase_create("merge");
    tcase_add_test(tc, merge_block_io_classes);
    tcase_add_test(tc, peak_window_cut_by_the_boundary);
    tcase_add_test(tc, think_time_paired_across_the_boundary);
    suite_add_tcase(s, tc);
    return s;
}
