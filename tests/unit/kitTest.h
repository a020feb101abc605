/*
 * kitTest.h --
 *
 *	Scaffolding shared by the unit tests of the Analyzer kit
 *	(test_analyzers*.c): I/O records made by hand, a Flow with one
 *	analyzer run over them through the engine's C interface, attribute
 *	lookups, and the check that merging two shards equals one run.
 */

#ifndef KITTEST_H
#define KITTEST_H

#include <math.h>
#include "rbtest.h"
#include "core/rbInt.h"
#include "analyzers/analyzers.h"

#define SEC 1000000000LL
#define MS 1000000LL

/*
 * AddIo --
 *	Appends an I/O record: enqueue time, op, size, device and offset;
 *	every other field absent.
 * Results: the record's index.
 */
static inline int
AddIo(Rb_Batch *b, int64_t timeNs, int op, int64_t reqSize, int64_t dev,
	int64_t offset)
{
    int i = Rb_BatchAppend(b);

    ck_assert_int_ge(i, 0);
    b->col[RB_IO_TIME][i] = timeNs;
    b->col[RB_IO_OP][i] = op;
    b->col[RB_IO_SIZE][i] = reqSize;
    b->col[RB_IO_DEVICE][i] = dev;
    b->col[RB_IO_OFFSET][i] = offset;
    return i;
}

/*
 * NewBatch --
 *	An empty I/O batch that holds n records.
 */
static inline Rb_Batch *
NewBatch(int n)
{
    return Rb_BatchCreate(Rb_IoSchema(), n);
}

/*
 * NoteTimes --
 *	Widens the run's first and last times to cover b, as the engine does
 *	for each batch before pushing it.
 */
static inline void
NoteTimes(Rb_RunInfo *run, const Rb_Batch *b)
{
    int i;

    for (i = 0; i < b->n; i++) {
	int64_t t = b->col[RB_IO_TIME][i];

	if (t == RB_ABSENT) {
	    continue;
	}
	if (t < run->firstTime) {
	    run->firstTime = t;
	}
	if (t > run->lastTime) {
	    run->lastTime = t;
	}
    }
}

/*
 * NewAnalyzer --
 *	An analyzer of cls made with the options in the Tcl list opts.
 * Results: the analyzer, or NULL with an error in the interpreter.
 */
static inline Rb_Analyzer *
NewAnalyzer(const Rb_AnalyzerClass *cls, const char *opts)
{
    Tcl_Interp *interp = rbtest_interp();
    Tcl_Obj *list = Tcl_NewStringObj(opts ? opts : "", -1);
    Tcl_Obj **objv;
    int objc;
    Rb_Analyzer *a;

    Tcl_IncrRefCount(list);
    ck_assert_int_eq(Tcl_ListObjGetElements(interp, list, &objc, &objv),
	    TCL_OK);
    a = RbAnalyzerCreate(interp, cls, objc, objv);
    Tcl_DecrRefCount(list);
    return a;
}

/*
 * NewFlow --
 *	A flow holding one analyzer of cls with options opts.
 */
static inline Rb_Flow *
NewFlow(const Rb_AnalyzerClass *cls, const char *opts, Rb_Analyzer **aPtr)
{
    Tcl_Interp *interp = rbtest_interp();
    Rb_Flow *flow = RbFlowCreate(interp, "test");
    Rb_Analyzer *a = NewAnalyzer(cls, opts);

    ck_assert_msg(a != NULL, "create %s %s: %s", cls->name, opts,
	    Tcl_GetStringResult(interp));
    ck_assert_int_eq(RbFlowAddAnalyzer(interp, flow, a), TCL_OK);
    if (aPtr) {
	*aPtr = a;
    }
    return flow;
}

/*
 * PushAll --
 *	Pushes every record of b to flow (sel NULL) or the nsel in sel.
 */
static inline void
PushSome(Rb_Flow *flow, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    uint32_t *all = NULL;
    int i;

    if (sel == NULL) {
	all = malloc(sizeof(uint32_t) * (b->n + 1));
	for (i = 0; i < b->n; i++) {
	    all[i] = i;
	}
	sel = all;
	nsel = b->n;
    }
    RbFlowPush(flow, b, sel, nsel);
    free(all);
}

/*
 * RunSome --
 *	Runs the selected records of b (all with sel NULL) through a new flow
 *	with one analyzer of cls.  The run covers all of b's times, as the
 *	run of a per-device flow covers the whole trace.
 * Results: the flow, holding the attributes; the caller deletes it.
 */
static inline Rb_Flow *
RunSome(const Rb_AnalyzerClass *cls, const char *opts, const Rb_Batch *b,
	const uint32_t *sel, int nsel)
{
    Tcl_Interp *interp = rbtest_interp();
    Rb_Flow *flow = NewFlow(cls, opts, NULL);
    Rb_RunInfo run;

    RbRunInfoInit(&run, interp, Rb_IoSchema());
    ck_assert_msg(RbFlowStart(flow, &run) == TCL_OK, "start: %s",
	    Tcl_GetStringResult(interp));
    NoteTimes(&run, b);
    PushSome(flow, b, sel, nsel);
    ck_assert_msg(RbFlowEnd(flow, &run) == TCL_OK, "end: %s",
	    Tcl_GetStringResult(interp));
    RbRunInfoFree(&run);
    return flow;
}

static inline Rb_Flow *
RunAll(const Rb_AnalyzerClass *cls, const char *opts, const Rb_Batch *b)
{
    return RunSome(cls, opts, b, NULL, 0);
}

/*
 * Attr, Scalar, Cell --
 *	An attribute of flow (which must exist), a scalar's value, and the
 *	number in a named column of a row.
 */
static inline const Rb_Attribute *
Attr(Rb_Flow *flow, const char *name)
{
    const Rb_Attribute *a = Rb_FlowGetAttr(flow, name);

    ck_assert_msg(a != NULL, "attribute %s not set", name);
    return a;
}

static inline double
Scalar(Rb_Flow *flow, const char *name)
{
    const Rb_Attribute *a = Attr(flow, name);

    ck_assert_int_eq(a->kind, RB_ATTR_SCALAR);
    return Rb_AttrNum(a, 0, 0);
}

static inline double
Cell(const Rb_Attribute *a, int row, const char *col)
{
    int c = Rb_AttrColumnIndex(a, col);

    ck_assert_msg(c >= 0, "%s has no column %s", a->name, col);
    ck_assert_int_lt(row, a->nrows);
    return Rb_AttrNum(a, row, c);
}

#define ck_assert_near(x, y) \
    ck_assert_double_eq_tol((x), (y), 1e-9 * (1.0 + fabs((double)(y))))

/*
 * NextRandom --
 *	xorshift64*: a fixed pseudo-random sequence for repeatable tests.
 */
static inline uint64_t
NextRandom(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/*
 * MixedIos --
 *	n pseudo-random I/Os over about n ms: sizes, ops, devices, offsets
 *	and finish times all vary.
 */
static inline Rb_Batch *
MixedIos(int n)
{
    Rb_Batch *b = NewBatch(n);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    int64_t t = 5 * SEC;
    int k, i;

    for (k = 0; k < n; k++) {
	uint64_t r = NextRandom(&seed);

	t += (int64_t)(r % (2 * MS));
	i = AddIo(b, t, (int)(r >> 20 & 1), 512 << (r >> 21 & 7),
		(int64_t)(r >> 24 & 3), (int64_t)(r >> 26 & 1023) * 512);
	b->col[RB_IO_START][i] = t + (int64_t)(r >> 36 & 0xfffff);
	b->col[RB_IO_FINISH][i] = b->col[RB_IO_START][i]
		+ (int64_t)(r >> 40 & 0xffffff);
    }
    return b;
}

/*
 * AssertSameAttrs --
 *	Every attribute the class sets in f2 (the whole run) is the same in
 *	f1 (the merged shards).
 */
static inline void
AssertSameAttr(const Rb_AnalyzerClass *cls, Rb_Flow *f1, Rb_Flow *f2,
	const char *name);

static inline void
AssertSameAttrs(const Rb_AnalyzerClass *cls, Rb_Flow *f1, Rb_Flow *f2)
{
    const char *const *name;
    const char **names;
    int i, n;

    for (name = cls->attrs; *name; name++) {
	if (strchr(*name, '*') == NULL) {
	    /* Options may leave some unset (SeriesAnalyzer -stats). */
	    if (Rb_FlowGetAttr(f2, *name) != NULL) {
		AssertSameAttr(cls, f1, f2, *name);
	    }
	    continue;
	}
	/* A pattern: every attribute of the whole run it matches. */
	names = RbFlowAttrNames(f2, &n);
	for (i = 0; i < n; i++) {
	    if (Tcl_StringMatch(names[i], *name)) {
		AssertSameAttr(cls, f1, f2, names[i]);
	    }
	}
	free((void *)names);
    }
}

/*
 * AssertSameAttr --
 *	One attribute is the same in both flows: numbers within 1e-9
 *	relative (NaN with NaN), text equal.
 */
static inline void
AssertSameAttr(const Rb_AnalyzerClass *cls, Rb_Flow *f1, Rb_Flow *f2,
	const char *name)
{
    int r, c;

    {
	const Rb_Attribute *a1 = Attr(f1, name), *a2 = Attr(f2, name);

	ck_assert_int_eq(a1->nrows, a2->nrows);
	ck_assert_int_eq(a1->ncols, a2->ncols);
	ck_assert_str_eq(a1->text ? a1->text : "", a2->text ? a2->text : "");
	for (r = 0; r < a1->nrows; r++) {
	    for (c = 0; c < a1->ncols; c++) {
		double x, y;

		ck_assert_int_eq(a1->cols[c].isText, a2->cols[c].isText);
		if (a1->cols[c].isText) {
		    ck_assert_str_eq(a1->cols[c].text[r], a2->cols[c].text[r]);
		    continue;
		}
		x = Rb_AttrNum(a1, r, c);
		y = Rb_AttrNum(a2, r, c);
		ck_assert_msg(fabs(x - y) <= 1e-9 * (1.0 + fabs(y))
			|| (isnan(x) && isnan(y)),
			"%s %s row %d col %d: merged %.12g, whole %.12g",
			cls->name, name, r, c, x, y);
	    }
	}
    }
}

/*
 * CheckMerge --
 *	Runs cls (with opts) on the first and second parts of a batch in
 *	two instances, serializes the second into a third (as a split run
 *	sends it between ranks), merges that into the first, and compares with
 *	one instance run on the whole batch.  All three see the same run, as
 *	shards of one run would.
 */
static inline void
CheckMerge(const Rb_AnalyzerClass *cls, const char *opts)
{
    enum { N = 3000 };
    Tcl_Interp *interp = rbtest_interp();
    Rb_Batch *b = MixedIos(N);
    uint32_t *sel = malloc(N * sizeof(uint32_t));
    Rb_Analyzer *a1, *a2;
    Rb_Flow *f1 = NewFlow(cls, opts, &a1), *f2 = NewFlow(cls, opts, &a2);
    Rb_Flow *whole;
    Rb_RunInfo run;
    int k;

    for (k = 0; k < N; k++) {
	sel[k] = k;
    }
    ck_assert_int_eq(cls->mergeable, 1);
    ck_assert_ptr_nonnull(cls->merge);
    RbRunInfoInit(&run, interp, Rb_IoSchema());
    NoteTimes(&run, b);
    ck_assert_int_eq(RbFlowStart(f1, &run), TCL_OK);
    ck_assert_int_eq(RbFlowStart(f2, &run), TCL_OK);
    PushSome(f1, b, sel, N / 3);
    PushSome(f2, b, sel + N / 3, N - N / 3);
    if (cls->serialize != NULL) {
	/* As a split run does: the second shard's state as bytes, into a
	 * fresh instance started on the same run. */
	Rb_Buf buf;
	Rb_Analyzer *a3;
	Rb_Flow *f3 = NewFlow(cls, opts, &a3);

	memset(&buf, 0, sizeof(buf));
	ck_assert_int_eq(cls->serialize(a2, &run, &buf), TCL_OK);
	ck_assert_int_eq(RbFlowStart(f3, &run), TCL_OK);
	ck_assert_int_eq(cls->deserialize(a3, &run, &buf), TCL_OK);
	ck_assert_int_eq(buf.bad, 0);
	ck_assert_int_eq(buf.pos, buf.len);
	ck_assert_int_eq(cls->merge(a1, a3), TCL_OK);
	Rb_BufFree(&buf);
	RbFlowDelete(f3);
    } else {
	ck_assert_int_eq(cls->merge(a1, a2), TCL_OK);
    }
    ck_assert_int_eq(RbFlowEnd(f1, &run), TCL_OK);
    whole = RunAll(cls, opts, b);
    AssertSameAttrs(cls, f1, whole);
    RbRunInfoFree(&run);
    RbFlowDelete(f1);
    RbFlowDelete(f2);
    RbFlowDelete(whole);
    Rb_BatchFree(b);
    free(sel);
}

#endif /* KITTEST_H */
