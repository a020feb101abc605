/*
 * test_analyzers4.c --
 *
 *	Unit tests of the Analyzer kit's interleaved sequential streams
 *	(StreamAnalyzer) and hot regions (HotRegionAnalyzer).  Each answer
 *	is worked out by hand in a comment.
 */

#include "kitTest.h"

#define KB 1024LL
#define MB (1024LL * 1024)

/*
 * AddReads --
 *	Appends 4 KiB reads on device dev at the given offsets, one per ms
 *	after the batch's last record.
 */
static void
AddReads(Rb_Batch *b, int64_t dev, const int64_t *offsets, int n)
{
    int k;

    for (k = 0; k < n; k++) {
	AddIo(b, (b->n + 1) * MS, RB_OP_READ, 4 * KB, dev, offsets[k]);
    }
}

/*
 * LengthCount --
 *	The count of the StreamLengths row whose range starts at lo (0 when
 *	there is no such row).
 */
static double
LengthCount(Rb_Flow *flow, double lo)
{
    const Rb_Attribute *h = Attr(flow, "StreamLengths");
    int row;

    for (row = 0; row < h->nrows; row++) {
	if (Cell(h, row, "lo") == lo) {
	    return Cell(h, row, "count");
	}
    }
    return 0;
}

/*
 * ---------------------------------------------------------------------
 * StreamAnalyzer
 * ---------------------------------------------------------------------
 */

START_TEST(three_interleaved_streams_by_hand)
{
    /* Streams A from 0, B from 100 KiB, C from 1 MiB, round robin, a
     * random read R at 50 MiB among them:
     *   A0 B0 C0 A1 B1 C1 A2 B2 R C2 A3
     * 11 I/Os, 4 start a stream (A0 B0 C0 R), 7 continue one: 7/11.
     * Streams of 2 or more I/Os: A (4), B (3), C (3): 3 streams, mean
     * 10/3 I/Os, 40 KiB / 3.  Lengths: R alone in [1,2), B and C in
     * [2,4), A in [4,8).  Interleaving: at C1, B and A have each had
     * 2 I/Os since C0, so 3 streams run side by side; never more. */
    static const int64_t offsets[] = {0, 100 * KB, MB, 4 * KB,
	104 * KB, MB + 4 * KB, 8 * KB, 108 * KB, 50 * MB, MB + 8 * KB,
	12 * KB};
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *t;

    AddReads(b, 1, offsets, 11);
    flow = RunAll(&Rb_StreamAnalyzerClass, "", b);
    ck_assert_near(Scalar(flow, "Streams"), 3);
    ck_assert_near(Scalar(flow, "StreamFraction"), 7.0 / 11);
    ck_assert_near(Scalar(flow, "StreamLength"), 10.0 / 3);
    ck_assert_near(Scalar(flow, "StreamBytes"), 40.0 * KB / 3);
    ck_assert_near(Scalar(flow, "PeakStreams"), 3);
    ck_assert_near(LengthCount(flow, 1), 1);
    ck_assert_near(LengthCount(flow, 2), 2);
    ck_assert_near(LengthCount(flow, 4), 1);
    ck_assert_int_eq(Attr(flow, "StreamLengths")->nrows, 3);
    t = Attr(flow, "StreamsByDevice");
    ck_assert_int_eq(t->nrows, 1);
    ck_assert_near(Cell(t, 0, "ios"), 11);
    ck_assert_near(Cell(t, 0, "streams"), 3);
    ck_assert_near(Cell(t, 0, "peakStreams"), 3);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(streams_of_each_device_are_apart)
{
    /* The same two sequential reads on devices 1 and 2, alternating:
     * each device has one stream of 2; nothing is interleaved within a
     * device, so the peak is 1.  Device 2's second read starts where
     * device 1's first ended but on another device: no continuation. */
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *t;

    AddIo(b, 1 * MS, RB_OP_READ, 4 * KB, 1, 0);
    AddIo(b, 2 * MS, RB_OP_READ, 4 * KB, 2, 0);
    AddIo(b, 3 * MS, RB_OP_READ, 4 * KB, 1, 4 * KB);
    AddIo(b, 4 * MS, RB_OP_READ, 4 * KB, 2, 4 * KB);
    AddIo(b, 5 * MS, RB_OP_READ, 4 * KB, 2, 20 * KB);
    flow = RunAll(&Rb_StreamAnalyzerClass, "", b);
    ck_assert_near(Scalar(flow, "Streams"), 2);
    ck_assert_near(Scalar(flow, "StreamFraction"), 2.0 / 5);
    ck_assert_near(Scalar(flow, "PeakStreams"), 1);
    t = Attr(flow, "StreamsByDevice");
    ck_assert_int_eq(t->nrows, 2);
    ck_assert_near(Cell(t, 0, "device"), 1);
    ck_assert_near(Cell(t, 0, "streamFraction"), 0.5);
    ck_assert_near(Cell(t, 1, "device"), 2);
    ck_assert_near(Cell(t, 1, "ios"), 3);
    ck_assert_near(Cell(t, 1, "streamFraction"), 1.0 / 3);
    ck_assert_near(Cell(t, 1, "meanLength"), 2);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(stream_gap_tolerance_is_forward_only)
{
    /* 4 KiB reads at 0, 8, 16, 12.5 and 24 KiB + 1.  With -gap 4096
     * the second starts 4096 after the first's end (4 KiB) and the third
     * 4096 after the second's (12 KiB): one stream of 3.  12.5 KiB lies
     * before the stream's end (20 KiB): a new stream, however small the
     * step back.  24 KiB + 1 is 4097 past 20 KiB (and 7.5 KiB + 1 past
     * 16.5 KiB): new.  2 of 5 continue.  With -gap 0 nothing
     * continues. */
    static const int64_t offsets[] = {0, 8 * KB, 16 * KB, 12 * KB + 512,
	24 * KB + 1};
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;

    AddReads(b, 1, offsets, 5);
    flow = RunAll(&Rb_StreamAnalyzerClass, "-gap 4096", b);
    ck_assert_near(Scalar(flow, "Streams"), 1);
    ck_assert_near(Scalar(flow, "StreamLength"), 3);
    ck_assert_near(Scalar(flow, "StreamFraction"), 2.0 / 5);
    ck_assert_near(LengthCount(flow, 1), 2);
    RbFlowDelete(flow);

    flow = RunAll(&Rb_StreamAnalyzerClass, "-gap 0", b);
    ck_assert_near(Scalar(flow, "Streams"), 0);
    ck_assert_near(Scalar(flow, "StreamFraction"), 0);
    ck_assert_near(Scalar(flow, "StreamLength"), 0);
    ck_assert_near(Scalar(flow, "PeakStreams"), 0);
    ck_assert_near(LengthCount(flow, 1), 5);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(stream_continues_the_closest_end)
{
    /* -gap 8192.  B reads at 8 KiB (ends 12 KiB), then A at 0 (ends
     * 4 KiB), the most recent.  A read at 12 KiB is within the gap of
     * both ends, 8 KiB past A's and 0 past B's: it continues B, the
     * closer (most-recent-first would have taken A).  A read at 6 KiB
     * lies before B's new end and 2 KiB past A's: it continues A.  Two
     * streams of 2; at A's second read B has had 2 I/Os since A's first:
     * 2 streams interleaved. */
    static const int64_t offsets[] = {8 * KB, 0, 12 * KB, 6 * KB};
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;

    AddReads(b, 1, offsets, 4);
    flow = RunAll(&Rb_StreamAnalyzerClass, "-gap 8192", b);
    ck_assert_near(Scalar(flow, "Streams"), 2);
    ck_assert_near(Scalar(flow, "StreamLength"), 2);
    ck_assert_near(Scalar(flow, "StreamFraction"), 0.5);
    ck_assert_near(Scalar(flow, "PeakStreams"), 2);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(stream_table_displaces_least_recently_used)
{
    /* -streams 2, streams A from 0, B from 1 MiB, C from 2 MiB:
     *   A0 B0 A1 C0 A2 B1
     * A0, B0 fill the table (B, A); A1 continues A (A, B); C0 is new and
     * displaces B, the least recently used (first-in-first-out would
     * have displaced A); A2 continues A (A, C); B1 starts where B0 ended
     * but B is gone: a new stream, displacing C.  One stream of 3 (A);
     * B0, C0 and B1 alone; 2 of 6 continue. */
    static const int64_t offsets[] = {0, MB, 4 * KB, 2 * MB, 8 * KB,
	MB + 4 * KB};
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;

    AddReads(b, 1, offsets, 6);
    flow = RunAll(&Rb_StreamAnalyzerClass, "-streams 2", b);
    ck_assert_near(Scalar(flow, "Streams"), 1);
    ck_assert_near(Scalar(flow, "StreamLength"), 3);
    ck_assert_near(Scalar(flow, "StreamFraction"), 2.0 / 6);
    ck_assert_near(LengthCount(flow, 1), 3);
    ck_assert_near(LengthCount(flow, 2), 1);
    RbFlowDelete(flow);

    /* With room for 3 nothing is displaced: A (3) and B (2), C alone. */
    flow = RunAll(&Rb_StreamAnalyzerClass, "-streams 3", b);
    ck_assert_near(Scalar(flow, "Streams"), 2);
    ck_assert_near(Scalar(flow, "StreamFraction"), 3.0 / 6);
    ck_assert_near(Scalar(flow, "StreamLength"), 2.5);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(round_robin_streams_beyond_the_table_are_lost)
{
    /* Three streams round robin, 3 reads each, with -streams 2: each
     * read finds its stream displaced by the two others since its last
     * read, so all 9 start streams.  -streams 3 holds them: 3 streams
     * of 3, 6 of 9 continue. */
    static const int64_t offsets[] = {0, MB, 2 * MB, 4 * KB, MB + 4 * KB,
	2 * MB + 4 * KB, 8 * KB, MB + 8 * KB, 2 * MB + 8 * KB};
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;

    AddReads(b, 1, offsets, 9);
    flow = RunAll(&Rb_StreamAnalyzerClass, "-streams 2", b);
    ck_assert_near(Scalar(flow, "Streams"), 0);
    ck_assert_near(Scalar(flow, "StreamFraction"), 0);
    ck_assert_near(LengthCount(flow, 1), 9);
    RbFlowDelete(flow);
    flow = RunAll(&Rb_StreamAnalyzerClass, "-streams 3", b);
    ck_assert_near(Scalar(flow, "Streams"), 3);
    ck_assert_near(Scalar(flow, "StreamFraction"), 6.0 / 9);
    ck_assert_near(Scalar(flow, "StreamLength"), 3);
    ck_assert_near(Scalar(flow, "PeakStreams"), 3);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(stream_options_are_checked)
{
    Tcl_Interp *interp = rbtest_interp();

    ck_assert_ptr_null(NewAnalyzer(&Rb_StreamAnalyzerClass, "-streams 0"));
    ck_assert_str_eq(Tcl_GetStringResult(interp),
	    "StreamAnalyzer: -streams must be between 1 and 4096");
    ck_assert_ptr_null(NewAnalyzer(&Rb_StreamAnalyzerClass, "-gap -1"));
    ck_assert_ptr_null(NewAnalyzer(&Rb_HotRegionAnalyzerClass,
	    "-region 0"));
    ck_assert_ptr_null(NewAnalyzer(&Rb_HotRegionAnalyzerClass, "-top 0"));
    ck_assert_ptr_null(NewAnalyzer(&Rb_HotRegionAnalyzerClass,
	    "-limit 0"));
}
END_TEST

/*
 * ---------------------------------------------------------------------
 * HotRegionAnalyzer
 * ---------------------------------------------------------------------
 */

START_TEST(hot_regions_by_hand)
{
    /* 1 MiB regions.  Device 1: 4 KiB at 0 (region 0), 4 KiB at 1.5 MiB
     * (region 1), 4 KiB at 1 MiB - 2 KiB (2 KiB in each of regions 0 and
     * 1).  Device 2: three 512-byte reads at 0.  Region accesses:
     * (2, 0) 3 with 1536 bytes; (1, 0) 2 with 6 KiB; (1, 1 MiB) 2 with
     * 6 KiB; 7 in all.  -top 2: (2, 0), then the tie by device and
     * offset: (1, 0).  The top 2 hold 5 of 7. */
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *t;

    AddIo(b, 1, RB_OP_READ, 4 * KB, 1, 0);
    AddIo(b, 2, RB_OP_READ, 4 * KB, 1, 3 * MB / 2);
    AddIo(b, 3, RB_OP_WRITE, 4 * KB, 1, MB - 2 * KB);
    AddIo(b, 4, RB_OP_READ, 512, 2, 0);
    AddIo(b, 5, RB_OP_READ, 512, 2, 0);
    AddIo(b, 6, RB_OP_READ, 512, 2, 0);
    flow = RunAll(&Rb_HotRegionAnalyzerClass, "-top 2", b);
    t = Attr(flow, "HotRegions");
    ck_assert_int_eq(t->nrows, 2);
    ck_assert_near(Cell(t, 0, "device"), 2);
    ck_assert_near(Cell(t, 0, "offset"), 0);
    ck_assert_near(Cell(t, 0, "accesses"), 3);
    ck_assert_near(Cell(t, 0, "bytes"), 1536);
    ck_assert_near(Cell(t, 0, "fraction"), 3.0 / 7);
    ck_assert_near(Cell(t, 1, "device"), 1);
    ck_assert_near(Cell(t, 1, "offset"), 0);
    ck_assert_near(Cell(t, 1, "accesses"), 2);
    ck_assert_near(Cell(t, 1, "bytes"), 6 * KB);
    ck_assert_near(Scalar(flow, "HotRegionFraction"), 5.0 / 7);
    ck_assert_near(Scalar(flow, "RegionAccesses"), 7);
    ck_assert_near(Scalar(flow, "HotRegionError"), 0);
    RbFlowDelete(flow);

    /* -top 5 lists all three; the third is (1, 1 MiB). */
    flow = RunAll(&Rb_HotRegionAnalyzerClass, "-top 5", b);
    t = Attr(flow, "HotRegions");
    ck_assert_int_eq(t->nrows, 3);
    ck_assert_near(Cell(t, 2, "offset"), MB);
    ck_assert_near(Cell(t, 2, "bytes"), 6 * KB);
    ck_assert_near(Scalar(flow, "HotRegionFraction"), 1);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(hot_regions_past_the_limit_undercount_within_the_error)
{
    /* -limit 2, 4 KiB regions, accesses to regions a a b c a d a (a at
     * 0, b 4 KiB, c 8 KiB, d 12 KiB).  a:2 b:1 fill the table; c finds
     * it full: every count drops by 1, b leaves (a:1), error 1; a:2;
     * d:1 enters; a:3.  Truth a 4, d 1: each listed count is at most 1
     * (the error) below it.  7 accesses, the two listed hold 4. */
    static const int64_t region[] = {0, 0, 1, 2, 0, 3, 0};
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *t;
    int k;

    for (k = 0; k < 7; k++) {
	AddIo(b, k, RB_OP_READ, 4 * KB, 1, region[k] * 4 * KB);
    }
    flow = RunAll(&Rb_HotRegionAnalyzerClass, "-limit 2 -region 4096", b);
    t = Attr(flow, "HotRegions");
    ck_assert_int_eq(t->nrows, 2);
    ck_assert_near(Cell(t, 0, "offset"), 0);
    ck_assert_near(Cell(t, 0, "accesses"), 3);
    ck_assert_near(Cell(t, 1, "offset"), 12 * KB);
    ck_assert_near(Cell(t, 1, "accesses"), 1);
    ck_assert_near(Scalar(flow, "HotRegionError"), 1);
    ck_assert_near(Scalar(flow, "RegionAccesses"), 7);
    ck_assert_near(Scalar(flow, "HotRegionFraction"), 4.0 / 7);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(merge_hot_regions)
{
    CheckMerge(&Rb_HotRegionAnalyzerClass, "-region 4096 -top 20");
}
END_TEST

START_TEST(merge_hot_regions_past_the_limit)
{
    /* -limit 3, 4 KiB regions a (0), b (4 KiB), c (8 KiB) of device 1,
     * x of device 9.  Shard 1 sees a a b: a:2 b:1.  Shard 2 sees x c c a
     * (device 9 first, so its numbering of devices differs): x:1 c:2
     * a:1.  The sums a:3 b:1 c:2 x:1 are 4 regions; the fourth largest
     * count, 1, comes off every count: a:2 c:1, error 1.  Truth a 3,
     * c 2, each within 1 of its count. */
    Tcl_Interp *interp = rbtest_interp();
    Rb_Batch *b = NewBatch(0);
    Rb_Analyzer *a1, *a2;
    Rb_Flow *f1 = NewFlow(&Rb_HotRegionAnalyzerClass,
	    "-limit 3 -region 4096", &a1);
    Rb_Flow *f2 = NewFlow(&Rb_HotRegionAnalyzerClass,
	    "-limit 3 -region 4096", &a2);
    static const uint32_t sel1[] = {0, 1, 2}, sel2[] = {3, 4, 5, 6};
    const Rb_Attribute *t;
    Rb_RunInfo run;

    AddIo(b, 0, RB_OP_READ, 4 * KB, 1, 0);
    AddIo(b, 1, RB_OP_READ, 4 * KB, 1, 0);
    AddIo(b, 2, RB_OP_READ, 4 * KB, 1, 4 * KB);
    AddIo(b, 3, RB_OP_READ, 4 * KB, 9, 0);
    AddIo(b, 4, RB_OP_READ, 4 * KB, 1, 8 * KB);
    AddIo(b, 5, RB_OP_READ, 4 * KB, 1, 8 * KB);
    AddIo(b, 6, RB_OP_READ, 4 * KB, 1, 0);
    RbRunInfoInit(&run, interp, Rb_IoSchema());
    NoteTimes(&run, b);
    ck_assert_int_eq(RbFlowStart(f1, &run), TCL_OK);
    ck_assert_int_eq(RbFlowStart(f2, &run), TCL_OK);
    PushSome(f1, b, sel1, 3);
    PushSome(f2, b, sel2, 4);
    ck_assert_int_eq(Rb_HotRegionAnalyzerClass.merge(a1, a2), TCL_OK);
    ck_assert_int_eq(RbFlowEnd(f1, &run), TCL_OK);
    t = Attr(f1, "HotRegions");
    ck_assert_int_eq(t->nrows, 2);
    ck_assert_near(Cell(t, 0, "device"), 1);
    ck_assert_near(Cell(t, 0, "offset"), 0);
    ck_assert_near(Cell(t, 0, "accesses"), 2);
    ck_assert_near(Cell(t, 1, "offset"), 8 * KB);
    ck_assert_near(Cell(t, 1, "accesses"), 1);
    ck_assert_near(Scalar(f1, "HotRegionError"), 1);
    ck_assert_near(Scalar(f1, "RegionAccesses"), 7);
    RbRunInfoFree(&run);
    RbFlowDelete(f1);
    RbFlowDelete(f2);
    Rb_BatchFree(b);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("analyzers4");
    TCase *tc;

    tc = tcase_create("streams");
    tcase_add_test(tc, three_interleaved_streams_by_hand);
    tcase_add_test(tc, streams_of_each_device_are_apart);
    tcase_add_test(tc, stream_gap_tolerance_is_forward_only);
    tcase_add_test(tc, stream_continues_the_closest_end);
    tcase_add_test(tc, stream_table_displaces_least_recently_used);
    tcase_add_test(tc, round_robin_streams_beyond_the_table_are_lost);
    tcase_add_test(tc, stream_options_are_checked);
    suite_add_tcase(s, tc);

    tc = tcase_create("hot regions");
    tcase_add_test(tc, hot_regions_by_hand);
    tcase_add_test(tc, hot_regions_past_the_limit_undercount_within_the_error);
    tcase_add_test(tc, merge_hot_regions);
    tcase_add_test(tc, merge_hot_regions_past_the_limit);
    suite_add_tcase(s, tc);
    return s;
}
