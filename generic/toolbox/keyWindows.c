/*
 * keyWindows.c --
 *
 *	Windows of keys: a table of the keys of each window of trace time
 *	(one window of -interval after another, counted from the run's
 *	first record time), reduced to a row of figures when the records
 *	move past it: the per-window series of OneHitWonderAnalyzer and
 *	ObjectSizeAnalyzer.  A window's figures need all of its keys, and
 *	in a split run a window may straddle two shards; so the first
 *	window a shard sees (head) stays open as well as its current one
 *	(tail), and a merge joins the earlier shards' tail with the later
 *	shard's head before reducing them.
 */

#include <stdlib.h>
#include <string.h>
#include "toolbox.h"

/*
 * RbKeyTableJoin --
 *	Adds the keys of later (a table of the same value size, whose
 *	records follow t's) to t: with addValues, values are uint64 counts
 *	and add; else a key's value in later replaces its value in t.
 * Results: 1, or 0 when t would hold more than limit keys (t then holds
 *	some of later's keys).
 */
int
RbKeyTableJoin(Rb_KeyTable *t, const Rb_KeyTable *later, int addValues,
	int64_t limit)
{
    uint64_t slot;

    for (slot = 0; slot < later->cap; slot++) {
	const void *src;
	void *dst;

	if (!later->used[slot]) {
	    continue;
	}
	src = Rb_KeyTableValue(later, slot);
	if ((dst = Rb_KeyTableFindLimited(t, later->keys[slot], limit))
		== NULL) {
	    return 0;
	}
	if (addValues) {
	    *(uint64_t *)dst += *(const uint64_t *)src;
	} else {
	    memcpy(dst, src, t->valSize);
	}
    }
    return 1;
}

/*
 * EmptyWindow --
 *	Makes w hold no window, keeping its table's memory.
 */
static void
EmptyWindow(RbKeyWindow *w)
{
    w->no = -1;
    w->sums[0] = w->sums[1] = 0;
    Rb_KeyTableClear(&w->keys);
}

/*
 * RbKeyWindowsStart --
 *	Empties kw for a run: windows of interval ns (0: none) counted from
 *	run's first record time, tables of valSize-byte values (uint64
 *	counts that add when addValues, else values that the later replace),
 *	rows of width figures made by close.
 */
void
RbKeyWindowsStart(RbKeyWindows *kw, int64_t interval, const Rb_RunInfo *run,
	size_t valSize, int addValues, int width, RbKeyWindowClose *close)
{
    if (kw->head.keys.valSize == 0) {
	Rb_KeyTableInit(&kw->head.keys, valSize);
	Rb_KeyTableInit(&kw->tail.keys, valSize);
    }
    EmptyWindow(&kw->head);
    EmptyWindow(&kw->tail);
    kw->interval = interval;
    kw->run = run;
    kw->addValues = addValues;
    kw->width = width;
    kw->close = close;
    kw->nrows = 0;
}

/*
 * CloseInto --
 *	Appends the row of window w to kw's closed rows.
 */
static void
CloseInto(RbKeyWindows *kw, const RbKeyWindow *w)
{
    size_t stride = (size_t)kw->width + 1;
    double *row;

    if (kw->nrows == kw->rowCap) {
	kw->rowCap = kw->rowCap ? 2 * kw->rowCap : 64;
	kw->rows = Rb_ReallocArray(kw->rows, kw->rowCap,
		stride * sizeof(double));
    }
    row = kw->rows + stride * kw->nrows++;
    row[0] = (double)w->no;
    kw->close(w, row + 1);
}

/*
 * Retire --
 *	The records have moved past the current window: it becomes the head
 *	when there is none yet, else it is closed into a row.  The tail is
 *	then empty.
 */
static void
Retire(RbKeyWindows *kw)
{
    if (kw->tail.no < 0) {
	return;
    }
    if (kw->head.no < 0) {
	RbKeyWindow t = kw->head;

	kw->head = kw->tail;
	kw->tail = t;
    } else {
	CloseInto(kw, &kw->tail);
    }
    EmptyWindow(&kw->tail);
}

/*
 * RbKeyWindowsAt --
 *	The window of a record at time t, which becomes the current one when
 *	it is later (a time before the current window counts in it).
 * Results: the current window (kw->tail).
 */
RbKeyWindow *
RbKeyWindowsAt(RbKeyWindows *kw, int64_t t)
{
    int64_t first = kw->run->firstTime;
    int64_t w = t > first ? (t - first) / kw->interval : 0;

    if (w > kw->tail.no) {
	Retire(kw);
	kw->tail.no = w;
    }
    return &kw->tail;
}

/*
 * CopyWindow --
 *	Makes dst (empty) a copy of src.
 * Results: 1, or 0 past limit keys.
 */
static int
CopyWindow(RbKeyWindows *kw, RbKeyWindow *dst, const RbKeyWindow *src,
	int64_t limit)
{
    dst->no = src->no;
    dst->sums[0] = src->sums[0];
    dst->sums[1] = src->sums[1];
    return RbKeyTableJoin(&dst->keys, &src->keys, kw->addValues, limit);
}

/*
 * RbKeyWindowsMerge --
 *	Adds the windows of other (a later shard's) to kw: other's first
 *	window joins kw's current one when they are the same window.
 * Results: 1, or 0 when a window would hold more than limit keys.
 */
int
RbKeyWindowsMerge(RbKeyWindows *kw, const RbKeyWindows *other,
	int64_t limit)
{
    const RbKeyWindow *first = other->head.no >= 0 ? &other->head
	    : &other->tail;
    size_t stride = (size_t)kw->width + 1, k;

    if (other->tail.no < 0) {
	return 1;
    }
    if (kw->tail.no >= 0 && first->no == kw->tail.no) {
	kw->tail.sums[0] += first->sums[0];
	kw->tail.sums[1] += first->sums[1];
	if (!RbKeyTableJoin(&kw->tail.keys, &first->keys, kw->addValues,
		limit)) {
	    return 0;
	}
    } else {
	Retire(kw);
	if (!CopyWindow(kw, &kw->tail, first, limit)) {
	    return 0;
	}
    }
    if (first == &other->tail) {
	return 1;
    }
    Retire(kw);
    for (k = 0; k < other->nrows; k++) {
	if (kw->nrows == kw->rowCap) {
	    kw->rowCap = kw->rowCap ? 2 * kw->rowCap : 64;
	    kw->rows = Rb_ReallocArray(kw->rows, kw->rowCap,
		    stride * sizeof(double));
	}
	memcpy(kw->rows + stride * kw->nrows++, other->rows + stride * k,
		stride * sizeof(double));
    }
    return CopyWindow(kw, &kw->tail, &other->tail, limit);
}

/*
 * RbKeyWindowsSeries --
 *	A series Attribute of every window from the first to the last: a
 *	column time (the window's start, s from the first record), then one
 *	per name of cols (width of them, units in units), a window without
 *	records all zeros.
 * Results: the new Attribute.
 */
Rb_Attribute *
RbKeyWindowsSeries(const RbKeyWindows *kw, const char *name,
	const char *unit, const char *help, const char *const *cols,
	const char *const *units)
{
    Rb_Attribute *s = Rb_AttrCreate(name, RB_ATTR_SERIES, unit, help);
    size_t stride = (size_t)kw->width + 1, n = 0, k;
    const RbKeyWindow *open[2];
    double *all, *row;
    int64_t w = 0;
    int c;

    Rb_AttrAddColumn(s, "time", "s", 0);
    for (c = 0; c < kw->width; c++) {
	Rb_AttrAddColumn(s, cols[c], units[c], 0);
    }
    /* The head, the closed windows and the tail, in order. */
    all = Rb_AllocArray(kw->nrows + 2, stride * sizeof(double));
    open[0] = &kw->head;
    open[1] = &kw->tail;
    if (open[0]->no >= 0) {
	all[0] = (double)open[0]->no;
	kw->close(open[0], all + 1);
	n++;
    }
    if (kw->nrows > 0) {
	memcpy(all + stride * n, kw->rows, kw->nrows * stride
		* sizeof(double));
	n += kw->nrows;
    }
    if (open[1]->no >= 0) {
	row = all + stride * n++;
	row[0] = (double)open[1]->no;
	kw->close(open[1], row + 1);
    }
    for (k = 0; k < n; k++) {
	row = all + stride * k;
	for (; (double)w <= row[0]; w++) {
	    int r = Rb_AttrAddRow(s);

	    Rb_AttrSetNum(s, r, 0, (double)w * (double)kw->interval
		    / RB_NS_PER_S);
	    for (c = 0; c < kw->width && (double)w == row[0]; c++) {
		Rb_AttrSetNum(s, r, c + 1, row[c + 1]);
	    }
	}
    }
    free(all);
    return s;
}

/*
 * RbKeyWindowsPut, RbKeyWindowsGet --
 *	A shard's windows for a split run: the head and tail (number, sums,
 *	keys; text keys as strings of textSchema when given) and the closed
 *	rows.  Get reads into windows started like the writer's.
 */
void
RbKeyWindowsPut(Rb_Buf *b, const RbKeyWindows *kw,
	const Rb_Schema *textSchema)
{
    const RbKeyWindow *w[2];
    size_t k, n = kw->nrows * ((size_t)kw->width + 1);
    int i;

    w[0] = &kw->head;
    w[1] = &kw->tail;
    for (i = 0; i < 2; i++) {
	Rb_BufPutInt(b, w[i]->no);
	Rb_BufPutDouble(b, w[i]->sums[0]);
	Rb_BufPutDouble(b, w[i]->sums[1]);
	Rb_KeyTablePut(b, &w[i]->keys, textSchema);
    }
    Rb_BufPutInt(b, (int64_t)kw->nrows);
    for (k = 0; k < n; k++) {
	Rb_BufPutDouble(b, kw->rows[k]);
    }
}

void
RbKeyWindowsGet(Rb_Buf *b, RbKeyWindows *kw, Rb_Schema *textSchema)
{
    RbKeyWindow *w[2];
    size_t stride = (size_t)kw->width + 1, k;
    int64_t nrows;
    int i;

    w[0] = &kw->head;
    w[1] = &kw->tail;
    for (i = 0; i < 2; i++) {
	w[i]->no = Rb_BufGetInt(b);
	w[i]->sums[0] = Rb_BufGetDouble(b);
	w[i]->sums[1] = Rb_BufGetDouble(b);
	Rb_KeyTableGet(b, &w[i]->keys, textSchema);
    }
    nrows = Rb_BufGetCount(b, 8 * stride);
    if (b->bad || nrows == 0) {
	return;
    }
    kw->rows = Rb_ReallocArray(kw->rows, (size_t)nrows,
	    stride * sizeof(double));
    kw->rowCap = kw->nrows = (size_t)nrows;
    for (k = 0; k < (size_t)nrows * stride; k++) {
	kw->rows[k] = Rb_BufGetDouble(b);
    }
}

/*
 * RbKeyWindowsFree --
 *	Frees kw's memory; kw is empty and reusable afterwards.
 */
void
RbKeyWindowsFree(RbKeyWindows *kw)
{
    Rb_KeyTableFree(&kw->head.keys);
    Rb_KeyTableFree(&kw->tail.keys);
    free(kw->rows);
    kw->rows = NULL;
    kw->nrows = kw->rowCap = 0;
}
