/*
 * pow2Hist.c --
 *
 *	Counts of non-negative integers in power-of-two bins, [0,1), [1,2),
 *	[2,4) ... [2^62, 2^63): the object size distributions of
 *	ObjectSizeAnalyzer and the reuse times of ReuseTimeAnalyzer.
 */

#include "toolbox.h"

/*
 * RbPow2Bin --
 *	The bin of v >= 0: 0 for 0, else 1 + floor(log2 v).
 */
int
RbPow2Bin(int64_t v)
{
    return v <= 0 ? 0 : 64 - __builtin_clzll((uint64_t)v);
}

/*
 * RbPow2HistAttr --
 *	A histogram Attribute of counts[RB_POW2_BINS] (columns lo, hi, count,
 *	lo and hi in unit times scale), up to the last bin that holds any.
 * Results: the new Attribute.
 */
Rb_Attribute *
RbPow2HistAttr(const char *name, const uint64_t *counts, const char *unit,
	double scale, const char *help)
{
    Rb_Attribute *h = Rb_AttrCreate(name, RB_ATTR_HISTOGRAM, unit, help);
    int lo = Rb_AttrAddColumn(h, "lo", unit, 0);
    int hi = Rb_AttrAddColumn(h, "hi", unit, 0);
    int cc = Rb_AttrAddColumn(h, "count", "", 0);
    int top = RB_POW2_BINS - 1, k;

    while (top > 0 && counts[top] == 0) {
	top--;
    }
    for (k = 0; k <= top; k++) {
	int r = Rb_AttrAddRow(h);

	Rb_AttrSetNum(h, r, lo, k == 0 ? 0
		: scale * (double)((uint64_t)1 << (k - 1)));
	Rb_AttrSetNum(h, r, hi, scale * (double)((uint64_t)1 << k));
	Rb_AttrSetNum(h, r, cc, (double)counts[k]);
    }
    return h;
}
