/*
 * test_blockio.c --
 *
 *	Unit tests of the block-I/O pattern classes (PatternAnalyzer,
 *	BlockLifetimeAnalyzer, StrideAnalyzer, EntropyAnalyzer,
 *	BalanceAnalyzer): that shards merged, cut at every place of a small
 *	trace made to have strided runs, sequential runs and overwrites
 *	across the cuts, give what one pass over the whole gives, merged
 *	left to right and nested as a split run's tree merges them; and a
 *	hand-worked StrideAnalyzer case whose runs join only across a cut.
 *	(Hand-worked values of every class on tiny inputs, and the
 *	comparison with plain Tcl on real traces, are in kitblockio.test.)
 */

#include "kitTest.h"
#include <string.h>

/* The designed trace: op, size, device, offset per I/O, 1 ms apart. */
static const int64_t designed[][4] = {
    {1, 4096, 0, 0}, {1, 4096, 0, 8192}, {0, 512, 1, 90000},
    {1, 4096, 0, 16384}, {0, 512, 1, 80000}, {1, 4096, 0, 24576},
    {0, 512, 1, 70000}, {1, 4096, 0, 28672}, {1, 512, 1, 60000},
    {1, 4096, 0, 32768}, {1, 4096, 0, 0}, {1, 512, 1, 50000},
    {0, 4096, 0, 8192}, {1, 4096, 0, 16384}, {0, 512, 1, 50512},
    {1, 4096, 0, 24576}, {1, 512, 1, 40000}, {1, 4096, 0, 32768},
    {0, 1024, 1, 30000}, {1, 8192, 0, 0}, {0, 512, 1, 20000},
    {1, 4096, 0, 4096}, {1, 512, 1, 10000}, {0, 4096, 0, 8192},
};
enum { NDESIGNED = sizeof(designed) / sizeof(designed[0]) };

/*
 * DesignedBatch --
 *	The designed trace as a batch; pid cycles 7, 8, 9.
 */
static Rb_Batch *
DesignedBatch(void)
{
    Rb_Batch *b = NewBatch(NDESIGNED);
    int k;

    for (k = 0; k < NDESIGNED; k++) {
	int i = AddIo(b, SEC + k * MS, (int)designed[k][0], designed[k][1],
		designed[k][2], designed[k][3]);

	b->col[RB_IO_PID][i] = 7 + k % 3;
    }
    return b;
}

/*
 * SameAttrs --
 *	Every attribute of the class in whole is the same in merged: numbers
 *	within 1e-9 relative, text equal.
 */
static void
SameAttrs(const Rb_AnalyzerClass *cls, Rb_Flow *merged, Rb_Flow *whole,
	const char *where)
{
    const char *const *name;

    for (name = cls->attrs; *name; name++) {
	const Rb_Attribute *m = Attr(merged, *name), *w = Attr(whole, *name);
	int r, c;

	ck_assert_msg(m->nrows == w->nrows, "%s %s %s: %d rows, whole %d",
		cls->name, *name, where, m->nrows, w->nrows);
	for (c = 0; c < w->ncols; c++) {
	    for (r = 0; r < w->nrows; r++) {
		if (w->cols[c].isText) {
		    ck_assert_str_eq(m->cols[c].text[r], w->cols[c].text[r]);
		    continue;
		}
		ck_assert_msg(fabs(m->cols[c].num[r] - w->cols[c].num[r])
			<= 1e-9 * (1.0 + fabs(w->cols[c].num[r])),
			"%s %s %s row %d col %d: merged %.12g, whole %.12g",
			cls->name, *name, where, r, c, m->cols[c].num[r],
			w->cols[c].num[r]);
	    }
	}
    }
}

/*
 * Shard --
 *	A started flow of one cls analyzer fed I/Os from..to-1 of b.
 */
static Rb_Flow *
Shard(const Rb_AnalyzerClass *cls, const char *opts, Rb_RunInfo *run,
	const Rb_Batch *b, const uint32_t *sel, int from, int to,
	Rb_Analyzer **a)
{
    Rb_Flow *f = NewFlow(cls, opts, a);

    ck_assert_int_eq(RbFlowStart(f, run), TCL_OK);
    if (to > from) {
	PushSome(f, b, sel + from, to - from);
    }
    return f;
}

/*
 * MergeInto --
 *	Merges later's state into a as a split run does: serialized, read
 *	back into a fresh instance, merged.
 */
static void
MergeInto(const Rb_AnalyzerClass *cls, const char *opts, Rb_RunInfo *run,
	Rb_Analyzer *a, Rb_Analyzer *later)
{
    Rb_Buf buf;
    Rb_Analyzer *c;
    Rb_Flow *f = NewFlow(cls, opts, &c);

    memset(&buf, 0, sizeof(buf));
    ck_assert_int_eq(cls->serialize(later, run, &buf), TCL_OK);
    ck_assert_int_eq(RbFlowStart(f, run), TCL_OK);
    ck_assert_int_eq(cls->deserialize(c, run, &buf), TCL_OK);
    ck_assert_int_eq(buf.bad, 0);
    ck_assert_int_eq((int)buf.pos, (int)buf.len);
    ck_assert_int_eq(cls->merge(a, c), TCL_OK);
    Rb_BufFree(&buf);
    RbFlowDelete(f);
}

/*
 * CheckEveryCut --
 *	For every pair of cuts 0 <= i <= j <= n of the designed trace: three
 *	shards merged as (A + B) + C and as A + (B + C) equal one pass.  For
 *	a class whose state only adds up (orderFree), two shards cut at every
 *	place (j = n) suffice.
 */
static void
CheckEveryCut(const Rb_AnalyzerClass *cls, const char *opts, int orderFree)
{
    Tcl_Interp *interp = rbtest_interp();
    Rb_Batch *b = DesignedBatch();
    Rb_Flow *whole = RunAll(cls, opts, b);
    uint32_t sel[NDESIGNED];
    Rb_RunInfo run;
    int i, j, k, nested;

    for (k = 0; k < NDESIGNED; k++) {
	sel[k] = k;
    }
    RbRunInfoInit(&run, interp, Rb_IoSchema());
    NoteTimes(&run, b);
    for (i = 0; i <= NDESIGNED; i++) {
	for (j = orderFree ? NDESIGNED : i; j <= NDESIGNED; j++) {
	    for (nested = 0; nested < 2; nested++) {
		Rb_Analyzer *a1, *a2, *a3;
		Rb_Flow *f1 = Shard(cls, opts, &run, b, sel, 0, i, &a1);
		Rb_Flow *f2 = Shard(cls, opts, &run, b, sel, i, j, &a2);
		Rb_Flow *f3 = Shard(cls, opts, &run, b, sel, j, NDESIGNED,
			&a3);
		char where[64];

		if (nested) {
		    MergeInto(cls, opts, &run, a2, a3);
		    MergeInto(cls, opts, &run, a1, a2);
		} else {
		    MergeInto(cls, opts, &run, a1, a2);
		    MergeInto(cls, opts, &run, a1, a3);
		}
		ck_assert_int_eq(RbFlowEnd(f1, &run), TCL_OK);
		snprintf(where, sizeof(where), "cuts %d %d%s", i, j,
			nested ? " nested" : "");
		SameAttrs(cls, f1, whole, where);
		RbFlowDelete(f1);
		RbFlowDelete(f2);
		RbFlowDelete(f3);
	    }
	}
    }
    RbRunInfoFree(&run);
    RbFlowDelete(whole);
    Rb_BatchFree(b);
}

START_TEST(merge_at_every_cut)
{
    CheckEveryCut(&Rb_PatternAnalyzerClass, "", 0);
    CheckEveryCut(&Rb_PatternAnalyzerClass, "-gap 512", 0);
    CheckEveryCut(&Rb_BlockLifetimeAnalyzerClass, "", 0);
    CheckEveryCut(&Rb_BlockLifetimeAnalyzerClass, "-block 512", 0);
    CheckEveryCut(&Rb_StrideAnalyzerClass, "-k 100", 0);
    CheckEveryCut(&Rb_StrideAnalyzerClass, "-by pid -k 100", 0);
    CheckEveryCut(&Rb_EntropyAnalyzerClass, "", 1);
    CheckEveryCut(&Rb_EntropyAnalyzerClass, "-field pid", 1);
    CheckEveryCut(&Rb_BalanceAnalyzerClass, "", 1);
    CheckEveryCut(&Rb_BalanceAnalyzerClass, "-field pid", 1);
}
END_TEST

/*
 * Offsets 0, 10, 20, 30, 40, 50 (size 1) on one device: the I/Os from 20
 * on are strided (stride 10, not the previous size 1), one run of 4.
 * Cut in three shards at every place and merged both ways, the shards
 * alone see fewer strides (none, when no shard holds three I/Os); merged,
 * the four strided I/Os and the run of 4 come back.
 */
START_TEST(stride_runs_join_across_cuts)
{
    Tcl_Interp *interp = rbtest_interp();
    Rb_Batch *b = NewBatch(6);
    uint32_t sel[6] = {0, 1, 2, 3, 4, 5};
    Rb_RunInfo run;
    int i, j, k, nested;

    for (k = 0; k < 6; k++) {
	AddIo(b, SEC + k * MS, 0, 1, 3, 10 * k);
    }
    RbRunInfoInit(&run, interp, Rb_IoSchema());
    NoteTimes(&run, b);
    for (i = 0; i <= 6; i++) {
	for (j = i; j <= 6; j++) {
	    for (nested = 0; nested < 2; nested++) {
		const Rb_AnalyzerClass *cls = &Rb_StrideAnalyzerClass;
		Rb_Analyzer *a1, *a2, *a3;
		Rb_Flow *f1 = Shard(cls, "", &run, b, sel, 0, i, &a1);
		Rb_Flow *f2 = Shard(cls, "", &run, b, sel, i, j, &a2);
		Rb_Flow *f3 = Shard(cls, "", &run, b, sel, j, 6, &a3);

		if (nested) {
		    MergeInto(cls, "", &run, a2, a3);
		    MergeInto(cls, "", &run, a1, a2);
		} else {
		    MergeInto(cls, "", &run, a1, a2);
		    MergeInto(cls, "", &run, a1, a3);
		}
		ck_assert_int_eq(RbFlowEnd(f1, &run), TCL_OK);
		ck_assert_msg(Scalar(f1, "StridedIOs") == 4
			&& Scalar(f1, "LongestStridedRun") == 4,
			"cuts %d %d%s: %g strided, longest %g", i, j,
			nested ? " nested" : "", Scalar(f1, "StridedIOs"),
			Scalar(f1, "LongestStridedRun"));
		ck_assert_near(Scalar(f1, "StridedFraction"), 4.0 / 6);
		ck_assert_near(Cell(Attr(f1, "TopStrides"), 0, "stride"), 10);
		ck_assert_near(Cell(Attr(f1, "TopStrides"), 0, "ios"), 4);
		RbFlowDelete(f1);
		RbFlowDelete(f2);
		RbFlowDelete(f3);
	    }
	}
    }
    RbRunInfoFree(&run);
    Rb_BatchFree(b);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("blockio");
    TCase *tc = tcase_create("merge");

    /* Some 4,000 merges: seconds under the sanitizers. */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, merge_at_every_cut);
    tcase_add_test(tc, stride_runs_join_across_cuts);
    suite_add_tcase(s, tc);
    return s;
}
