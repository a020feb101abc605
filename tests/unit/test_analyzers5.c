/*
 * test_analyzers5.c --
 *
 *	Unit tests of the Analyzer kit's per-interval statistics
 *	(SeriesAnalyzer): that two shards merged give the whole run's
 *	series, that shards of different statistics refuse to merge, and
 *	that the analyzer reads only the fields its statistics need; and
 *	the engine's check, at start, of the I/O fields a class reads by
 *	index against schemas wider and narrower than the I/O schema, and
 *	that a class declaring none reads absent values past a narrower one;
 *	and QueueDepthAnalyzer's shards merged as a split run's tree merges
 *	them, through a short middle shard.
 */

#include "kitTest.h"
#include <unistd.h>
#include "core/engine.h"

START_TEST(merge_series)
{
    CheckMerge(&Rb_SeriesAnalyzerClass, "-interval 0.1");
    CheckMerge(&Rb_SeriesAnalyzerClass, "-interval 0.1 -stats "
	    "{count responseTimeP99 responseTimeP50 sizeP90}");
}
END_TEST

START_TEST(merge_heatmap_and_grouped_classes)
{
    /* Partial states through serialize, deserialize and merge give the
     * whole run's Attributes (kitTest.h's CheckMerge). */
    CheckMerge(&Rb_HeatmapAnalyzerClass, "-xwidth 0.5 -ywidth 65536");
    CheckMerge(&Rb_HeatmapAnalyzerClass, "-x size -xbins log2 "
	    "-y responseTime -ybins log2");
    CheckMerge(RbKitGroupedClass(&Rb_ResponseTimeAnalyzerClass),
	    "-by deviceNo");
    CheckMerge(RbKitGroupedClass(&Rb_SizeHistogramAnalyzerClass),
	    "-by op");
    CheckMerge(RbKitGroupedClass(&Rb_RateAnalyzerClass),
	    "-by deviceNo -interval 0.1");
    CheckMerge(RbKitGroupedClass(&Rb_SizeAnalyzerClass), "");
}
END_TEST

/*
 * StreamIos --
 *	n I/Os 1 ms apart on two devices: four sequential streams, the
 *	last idle through the middle third, between random single I/Os
 *	(a third of them), so that streams and singles cross the first
 *	third, where CheckMergeOn cuts.
 */
static Rb_Batch *
StreamIos(int n)
{
    Rb_Batch *b = NewBatch(n);
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    int64_t next[4] = {0, 1 << 30, (int64_t)2 << 30, (int64_t)3 << 30};
    int k;

    for (k = 0; k < n; k++) {
	uint64_t r = NextRandom(&seed);
	int s = (int)(r % 4);

	if (r % 3 == 0) {
	    AddIo(b, (int64_t)k * MS, 0, 4096, (int64_t)(r >> 8 & 1),
		    (int64_t)(r >> 16 & 0xffff) * 8192 + 4096);
	    continue;
	}
	if (s == 3 && k > n / 4 && k < n / 2) {
	    s = 2;
	}
	AddIo(b, (int64_t)k * MS, 0, 4096, s & 1, next[s]);
	next[s] += 4096;
    }
    return b;
}

START_TEST(merge_streams_across_the_boundary)
{
    /* Streams left in a device's table by the first shard continue in
     * the second, or are displaced there (-streams 2 and 4). */
    CheckMergeOn(&Rb_StreamAnalyzerClass, "", StreamIos(3000), 3000);
    CheckMergeOn(&Rb_StreamAnalyzerClass, "-streams 4", StreamIos(3000),
	    3000);
    CheckMergeOn(&Rb_StreamAnalyzerClass, "-streams 2", StreamIos(3000),
	    3000);
    CheckMergeOn(&Rb_StreamAnalyzerClass, "-streams 3 -field op",
	    StreamIos(3000), 3000);
}
END_TEST

START_TEST(merge_order_dependent_classes)
{
    /* Shards in time order whose boundary cuts through busy intervals,
     * periods and reused blocks give the whole run's Attributes. */
    CheckMerge(&Rb_PopularityAnalyzerClass, "");
    CheckMerge(&Rb_PopularityAnalyzerClass, "-key deviceNo");
    CheckMerge(&Rb_ReadAfterWriteAnalyzerClass, "-block 512");
    CheckMerge(&Rb_ReadAfterWriteAnalyzerClass, "");
    CheckMerge(&Rb_OnOffAnalyzerClass, "");
    CheckMerge(&Rb_OnOffAnalyzerClass, "-idle 0.0015");
    CheckMerge(&Rb_ReuseDistanceAnalyzerClass, "");
    CheckMerge(&Rb_UtilizationAnalyzerClass, "");
    CheckMerge(&Rb_UtilizationAnalyzerClass, "-field op");
    CheckMerge(&Rb_QueueDepthAnalyzerClass, "");
    CheckMerge(&Rb_StreamAnalyzerClass, "");
    CheckMerge(&Rb_StreamAnalyzerClass, "-streams 2");
    CheckMerge(&Rb_StreamAnalyzerClass, "-streams 4 -field op");
    /* The later shard past -boundary: its queue is taken over. */
    CheckMerge(&Rb_QueueDepthAnalyzerClass, "-boundary 0.1");
    CheckMerge(&Rb_UtilizationAnalyzerClass, "-boundary 0.1");
    CheckMerge(&Rb_ReuseDistanceAnalyzerClass, "-block 512 -sizes 100");
}
END_TEST

/*
 * Reserialize --
 *	other's state through serialize and deserialize into a fresh
 *	instance started on run, as a split run sends it (buf keeps the
 *	bytes, which must outlive the merge); its Flow in *flow.
 */
static Rb_Analyzer *
Reserialize(const Rb_AnalyzerClass *cls, const char *opts, Rb_RunInfo *run,
	Rb_Analyzer *other, Rb_Buf *buf, Rb_Flow **flow)
{
    Rb_Analyzer *c;

    memset(buf, 0, sizeof(*buf));
    ck_assert_int_eq(cls->serialize(other, run, buf), TCL_OK);
    *flow = NewFlow(cls, opts, &c);
    ck_assert_int_eq(RbFlowStart(*flow, run), TCL_OK);
    ck_assert_int_eq(cls->deserialize(c, run, buf), TCL_OK);
    ck_assert_int_eq(buf->pos, buf->len);
    return c;
}

/*
 * CheckTreeMerge --
 *	Three shards of batch b (n records, freed here) merged as a split
 *	run's tree merges ranks 0 to 2 of 4: the third into the second (3
 *	records only), then that into the first; the result against one
 *	instance on the whole batch.
 */
static void
CheckTreeMerge(const Rb_AnalyzerClass *cls, const char *opts, Rb_Batch *b,
	int n)
{
    const int cut1 = n / 3, cut2 = n / 3 + 3;
    uint32_t *sel = malloc(n * sizeof(uint32_t));
    Rb_Analyzer *a[3], *c;
    Rb_Flow *f[3], *fc, *whole;
    Rb_RunInfo run;
    Rb_Buf buf;
    int k;

    for (k = 0; k < n; k++) {
	sel[k] = k;
    }
    RbRunInfoInit(&run, rbtest_interp(), Rb_IoSchema());
    NoteTimes(&run, b);
    for (k = 0; k < 3; k++) {
	f[k] = NewFlow(cls, opts, &a[k]);
	ck_assert_int_eq(RbFlowStart(f[k], &run), TCL_OK);
    }
    PushSome(f[0], b, sel, cut1);
    PushSome(f[1], b, sel + cut1, cut2 - cut1);
    PushSome(f[2], b, sel + cut2, n - cut2);
    c = Reserialize(cls, opts, &run, a[2], &buf, &fc);
    ck_assert_int_eq(cls->merge(a[1], c), TCL_OK);
    RbFlowDelete(fc);
    Rb_BufFree(&buf);
    c = Reserialize(cls, opts, &run, a[1], &buf, &fc);
    ck_assert_int_eq(cls->merge(a[0], c), TCL_OK);
    RbFlowDelete(fc);
    Rb_BufFree(&buf);
    ck_assert_int_eq(RbFlowEnd(f[0], &run), TCL_OK);
    whole = RunAll(cls, opts, b);
    AssertSameAttrs(cls, f[0], whole);
    for (k = 0; k < 3; k++) {
	RbFlowDelete(f[k]);
    }
    RbFlowDelete(whole);
    RbRunInfoFree(&run);
    Rb_BatchFree(b);
    free(sel);
}

/*
 * LongTailIos --
 *	n I/Os 1 ms apart, each outstanding 0.5 ms but the one before the
 *	first third's end (where CheckTreeMerge cuts), outstanding 50 ms.
 */
static Rb_Batch *
LongTailIos(int n)
{
    Rb_Batch *b = NewBatch(n);
    int k, i;

    for (k = 0; k < n; k++) {
	i = AddIo(b, SEC + (int64_t)k * MS, 0, 4096, 0, (int64_t)k * 4096);
	b->col[RB_IO_START][i] = b->col[RB_IO_TIME][i];
	b->col[RB_IO_FINISH][i] = b->col[RB_IO_TIME][i]
		+ (k == n / 3 - 1 ? 50 * MS : MS / 2);
    }
    return b;
}

START_TEST(merge_queue_depth_in_a_tree)
{
    Rb_Batch *b = LongTailIos(3000);
    Rb_Flow *whole = RunAll(&Rb_QueueDepthAnalyzerClass, "", b);
    const Rb_Attribute *q = Attr(whole, "QueueDepth");

    /* LongTailIos by hand: from 1 s to 3.9995 s (the last completion);
     * 2999 I/Os of 0.5 ms and one of 50 ms under which 49 of them fall
     * whole: 24.5 ms at depth 2, 1549.5 - 2 * 24.5 ms at depth 1, the
     * rest at 0. */
    ck_assert_int_eq(q->nrows, 3);
    ck_assert_near(Cell(q, 0, "time"), 1.4745);
    ck_assert_near(Cell(q, 1, "time"), 1.5005);
    ck_assert_near(Cell(q, 2, "time"), 0.0245);
    RbFlowDelete(whole);
    Rb_BatchFree(b);
    /* The middle shard (3 I/Os, shorter than the first shard's I/Os
     * still outstanding) keeps the third's early arrivals after its own,
     * for the merge into the first; within -boundary, and cut by it.
     * In LongTailIos the first shard's last I/O is outstanding through
     * the third's first 47 arrivals. */
    CheckTreeMerge(&Rb_QueueDepthAnalyzerClass, "", MixedIos(3000), 3000);
    CheckTreeMerge(&Rb_QueueDepthAnalyzerClass, "-boundary 0.5",
	    MixedIos(3000), 3000);
    CheckTreeMerge(&Rb_QueueDepthAnalyzerClass, "", LongTailIos(3000), 3000);
    CheckTreeMerge(&Rb_QueueDepthAnalyzerClass, "-boundary 0.5",
	    LongTailIos(3000), 3000);
}
END_TEST

START_TEST(packed_pairs_round_trip)
{
    /* Pairs whose x falls back and whose y lies far from x, the extremes
     * included, then many of I/O-like times; bytes by hand for the
     * first: x 300 less 0, zigzag 600 = 0x258, LEB128 d8 04; y less x 0,
     * 00. */
    static const int64_t odd[][2] = {
	{300, 300}, {1700000000000000000LL, 1700000000000000001LL},
	{5, -7}, {INT64_MIN, INT64_MAX}, {INT64_MAX, INT64_MIN}, {0, 0}
    };
    const int nodd = 6, n = nodd + 1000;
    RbKitPacked l, cut;
    RbKitPackedIter it;
    Rb_Buf buf;
    int64_t x, y;
    int k;

    memset(&l, 0, sizeof(l));
    for (k = 0; k < n; k++) {
	RbKitPackedAppend(&l, k < nodd ? odd[k][0] : (int64_t)k * 50000,
		k < nodd ? odd[k][1] : (int64_t)k * 50000 + 3000000);
    }
    ck_assert_int_eq(l.bytes[0], 0xd8);
    ck_assert_int_eq(l.bytes[1], 0x04);
    ck_assert_int_eq(l.bytes[2], 0x00);
    memset(&buf, 0, sizeof(buf));
    RbKitPackedPut(&buf, &l);
    RbKitPackedFree(&l);
    RbKitPackedGet(&buf, &l);
    ck_assert_int_eq(buf.bad, 0);
    ck_assert_int_eq(buf.pos, buf.len);
    ck_assert_ptr_nonnull(l.in);
    /* Appending to a list read in place copies it first. */
    RbKitPackedAppend(&l, 7, 9);
    RbKitPackedBegin(&l, &it);
    for (k = 0; k < n; k++) {
	ck_assert_int_eq(RbKitPackedNext(&it, &x, &y), 1);
	ck_assert(x == (k < nodd ? odd[k][0] : (int64_t)k * 50000));
	ck_assert(y == (k < nodd ? odd[k][1] : (int64_t)k * 50000 + 3000000));
    }
    ck_assert_int_eq(RbKitPackedNext(&it, &x, &y), 1);
    ck_assert(x == 7 && y == 9);
    ck_assert_int_eq(RbKitPackedNext(&it, &x, &y), 0);
    ck_assert_int_eq(it.left, 0);
    /* A list one byte short ends early, with pairs left. */
    cut = l;
    cut.len--;
    RbKitPackedBegin(&cut, &it);
    for (k = 0; RbKitPackedNext(&it, &x, &y); k++) {
    }
    ck_assert_int_eq(k, n);
    ck_assert_int_eq(it.left, 1);
    RbKitPackedFree(&l);
    Rb_BufFree(&buf);
}
END_TEST

START_TEST(merge_series_of_other_statistics_fails)
{
    Tcl_Interp *interp = rbtest_interp();
    Rb_Analyzer *a1, *a2;
    Rb_Flow *f1 = NewFlow(&Rb_SeriesAnalyzerClass, "-stats count", &a1);
    Rb_Flow *f2 = NewFlow(&Rb_SeriesAnalyzerClass, "-stats meanSize", &a2);
    Rb_RunInfo run;
    Tcl_Obj *options, *key, *code = NULL;

    RbRunInfoInit(&run, interp, Rb_IoSchema());
    ck_assert_int_eq(RbFlowStart(f1, &run), TCL_OK);
    ck_assert_int_eq(RbFlowStart(f2, &run), TCL_OK);
    ck_assert_int_eq(Rb_SeriesAnalyzerClass.merge(a1, a2), TCL_ERROR);
    ck_assert_int_eq(RbAnalyzerTakeError(interp, a1), TCL_ERROR);
    options = Tcl_GetReturnOptions(interp, TCL_ERROR);
    Tcl_IncrRefCount(options);
    key = Tcl_NewStringObj("-errorcode", -1);
    Tcl_IncrRefCount(key);
    ck_assert_int_eq(Tcl_DictObjGet(NULL, options, key, &code), TCL_OK);
    ck_assert_ptr_nonnull(code);
    ck_assert_str_eq(Tcl_GetString(code), "RUBICON MERGE MISMATCH");
    Tcl_DecrRefCount(key);
    Tcl_DecrRefCount(options);
    RbRunInfoFree(&run);
    RbFlowDelete(f1);
    RbFlowDelete(f2);
}
END_TEST

/*
 * ReadsFor --
 *	The fields a SeriesAnalyzer with -stats stats reads, once started.
 */
static uint64_t
ReadsFor(const char *stats)
{
    Tcl_Interp *interp = rbtest_interp();
    Tcl_Obj *opts = Tcl_ObjPrintf("-stats {%s}", stats);
    Rb_Analyzer *a;
    Rb_Flow *f;
    Rb_RunInfo run;
    uint64_t reads;

    Tcl_IncrRefCount(opts);
    f = NewFlow(&Rb_SeriesAnalyzerClass, Tcl_GetString(opts), &a);
    RbRunInfoInit(&run, interp, Rb_IoSchema());
    ck_assert_int_eq(RbFlowStart(f, &run), TCL_OK);
    reads = RbAnalyzerReads(a);
    RbRunInfoFree(&run);
    RbFlowDelete(f);
    Tcl_DecrRefCount(opts);
    return reads;
}

START_TEST(series_read_only_the_fields_their_statistics_need)
{
    uint64_t t = RB_FIELD_BIT(RB_IO_TIME), size = RB_FIELD_BIT(RB_IO_SIZE);
    uint64_t op = RB_FIELD_BIT(RB_IO_OP), fin = RB_FIELD_BIT(RB_IO_FINISH);

    ck_assert_uint_eq(ReadsFor("count"), t);
    ck_assert_uint_eq(ReadsFor("rate count"), t);
    ck_assert_uint_eq(ReadsFor("bandwidth"), t | size);
    ck_assert_uint_eq(ReadsFor("meanSize"), t | size);
    ck_assert_uint_eq(ReadsFor("readFraction"), t | op);
    ck_assert_uint_eq(ReadsFor("readByteFraction"), t | op | size);
    ck_assert_uint_eq(ReadsFor("responseTime"), t | fin);
    ck_assert_uint_eq(ReadsFor("count responseTime readFraction"),
	    t | fin | op);
}
END_TEST

/*
 * WideIoSchema --
 *	A copy of the I/O schema with one more field, "latency", a double:
 *	a schema other than the I/O one whose first fields are the I/O ones.
 */
static Rb_Schema *
WideIoSchema(void)
{
    const Rb_Schema *io = Rb_IoSchema();
    Rb_Schema *s = Rb_SchemaCreate("iowide");
    int f;

    for (f = 1; f < io->nfields; f++) {
	Rb_SchemaAddField(s, io->fields[f].name, io->fields[f].type,
		io->fields[f].unit, io->fields[f].help);
    }
    Rb_SchemaAddField(s, "latency", RB_FT_DOUBLE, RB_UNIT_NONE, NULL);
    return s;
}

/*
 * StartOn --
 *	Starts a flow of one analyzer of cls with opts on records of schema.
 * Results: the errorcode, "" when it started.
 */
static const char *
StartOn(Rb_Schema *schema, const Rb_AnalyzerClass *cls, const char *opts)
{
    static char code[64];
    Tcl_Interp *interp = rbtest_interp();
    Rb_Flow *f = NewFlow(cls, opts, NULL);
    Rb_RunInfo run;

    code[0] = 0;
    RbRunInfoInit(&run, interp, schema);
    if (RbFlowStart(f, &run) != TCL_OK) {
	Tcl_Obj *options = Tcl_GetReturnOptions(interp, TCL_ERROR);
	Tcl_Obj *key = Tcl_NewStringObj("-errorcode", -1), *value = NULL;

	Tcl_IncrRefCount(options);
	Tcl_IncrRefCount(key);
	Tcl_DictObjGet(NULL, options, key, &value);
	snprintf(code, sizeof(code), "%s", value ? Tcl_GetString(value) : "?");
	Tcl_DecrRefCount(key);
	Tcl_DecrRefCount(options);
    }
    RbRunInfoFree(&run);
    RbFlowDelete(f);
    return code;
}

START_TEST(io_fields_checked_against_wider_and_narrower_schemas)
{
    Rb_Schema *wide = WideIoSchema(), *narrow = Rb_SchemaCreate("narrow");

    Rb_SchemaAddField(narrow, "size", RB_FT_INT, RB_UNIT_BYTES, NULL);
    /* The I/O fields at their places: accepted. */
    ck_assert_str_eq(StartOn(wide, &Rb_SizeAnalyzerClass, ""), "");
    ck_assert_str_eq(StartOn(wide, &Rb_UtilizationAnalyzerClass, ""), "");
    /* size at field 1, not 6: refused, though the name is there. */
    ck_assert_str_eq(StartOn(narrow, &Rb_SizeAnalyzerClass, ""),
	    "RUBICON ANALYZER SCHEMA");
    ck_assert_str_eq(StartOn(narrow, &Rb_RateAnalyzerClass, ""), "");
    /* An offset field of doubles would be read as their bit patterns. */
    ck_assert_str_eq(StartOn(wide, &Rb_SeekDistanceAnalyzerClass,
	    "-offsetField latency"), "RUBICON ANALYZER OPTION");
    ck_assert_str_eq(StartOn(wide, &Rb_SeqRunAnalyzerClass,
	    "-offsetField latency"), "RUBICON ANALYZER OPTION");
    ck_assert_str_eq(StartOn(wide, &Rb_FieldStatsAnalyzerClass,
	    "-field latency"), "");
    Rb_SchemaRelease(wide);
    Rb_SchemaRelease(narrow);
}
END_TEST

/*
 * An outside-style class that declares no fields (fields mask 0, so the
 * engine checks nothing) and reads I/O fields by index anyway: size and
 * flags, the last I/O field.  It counts the records it saw and those
 * whose size and flags were both RB_ABSENT.
 */
static long probeRecords, probeAbsent;

static void
ProbeRecord(Rb_Analyzer *a, const Rb_Batch *b, int i)
{
    (void)a;
    probeRecords++;
    probeAbsent += b->col[RB_IO_SIZE][i] == RB_ABSENT
	    && b->col[RB_IO_FLAGS][i] == RB_ABSENT;
}

static const Rb_AnalyzerClass probeClass = {
    .name = "AbsentProbeAnalyzer",
    .help = "reads I/O size and flags by index, declaring nothing",
    .record = ProbeRecord,
};

START_TEST(undeclared_io_fields_past_a_narrow_schema_read_absent)
{
    Tcl_Interp *interp = rbtest_interp();
    char path[] = "/tmp/rbnarrowXXXXXX";
    int fd = mkstemp(path);
    /* Three records of a three-field schema: time, machine, event. */
    const char csv[] = "time,event\n1.0,A\n1.5,B\n2.0,A\n";
    Tcl_Obj *script;

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, csv, sizeof(csv) - 1), (int)sizeof(csv) - 1);
    close(fd);
    ck_assert_int_eq(Rb_RegisterAnalyzer(interp, &probeClass), TCL_OK);
    script = Tcl_ObjPrintf("head [Flow probe [AbsentProbeAnalyzer]]\n"
	    "rubicon::run -progress 0 -format magpiecsv %s\n"
	    "rubicon::reset", path);
    Tcl_IncrRefCount(script);
    ck_assert_msg(Tcl_EvalObjEx(interp, script, 0) == TCL_OK, "run: %s",
	    Tcl_GetStringResult(interp));
    Tcl_DecrRefCount(script);
    unlink(path);
    ck_assert_int_eq(probeRecords, 3);
    ck_assert_int_eq(probeAbsent, 3);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("analyzers5");
    TCase *tc;

    tc = tcase_create("series");
    tcase_add_test(tc, merge_series);
    tcase_add_test(tc, merge_heatmap_and_grouped_classes);
    tcase_add_test(tc, merge_series_of_other_statistics_fails);
    tcase_add_test(tc, merge_order_dependent_classes);
    tcase_add_test(tc, merge_queue_depth_in_a_tree);
    tcase_add_test(tc, packed_pairs_round_trip);
    tcase_add_test(tc, merge_streams_across_the_boundary);
    tcase_add_test(tc, series_read_only_the_fields_their_statistics_need);
    suite_add_tcase(s, tc);
    tc = tcase_create("schema");
    tcase_add_test(tc, io_fields_checked_against_wider_and_narrower_schemas);
    tcase_add_test(tc, undeclared_io_fields_past_a_narrow_schema_read_absent);
    suite_add_tcase(s, tc);
    return s;
}
