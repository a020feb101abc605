/*
 * kitStats.c --
 *
 *	Exact moments of a stream of numbers, and the numeric-field lookup
 *	that the generic (by field name) analyzers share.
 */

#include <math.h>
#include "toolbox/toolbox.h"

/*
 * Rb_MomentsReset --
 *	Empties m: no values, minimum +inf, maximum -inf.
 * Results: none.
 * Side effects: none.
 */
void
Rb_MomentsReset(Rb_Moments *m)
{
    m->n = 0;
    m->sum = m->mean = m->m2 = 0.0;
    m->min = INFINITY;
    m->max = -INFINITY;
}

/*
 * Rb_MomentsMerge --
 *	Adds the values summarized by other to m (Chan et al.'s pairwise
 *	update of the mean and the sum of squared deviations).
 * Results: none.
 * Side effects: changes m.
 */
void
Rb_MomentsMerge(Rb_Moments *m, const Rb_Moments *other)
{
    double n1 = (double)m->n, n2 = (double)other->n, delta;

    if (other->n == 0) {
	return;
    }
    delta = other->mean - m->mean;
    m->m2 += other->m2 + delta * delta * n1 * n2 / (n1 + n2);
    m->mean += delta * n2 / (n1 + n2);
    m->n += other->n;
    m->sum += other->sum;
    if (other->min < m->min) {
	m->min = other->min;
    }
    if (other->max > m->max) {
	m->max = other->max;
    }
}

/*
 * RbMomentsAddMany --
 *	Rb_MomentsAdd of v[0], ..., v[n-1] (no NaN), as one group:
 *	their sum, extremes and squared deviations from their own mean in
 *	loops of four independent lanes, then the group merged into m as
 *	Rb_MomentsMerge merges (Chan et al.).  Welford's update divides once
 *	a value, each division waiting for the last; this divides once a
 *	group.  The moments equal those of adding one at a time up to
 *	rounding (the group's deviations are taken from its own mean, so the
 *	variance stays as accurate).
 * Results: none.
 * Side effects: changes m.
 */
void
RbMomentsAddMany(Rb_Moments *m, const double *v, int n)
{
    double s[4] = {0, 0, 0, 0}, q[4] = {0, 0, 0, 0};
    double lo[4], hi[4], mean;
    Rb_Moments g;
    int i, l;

    if (n < 4) {
	for (i = 0; i < n; i++) {
	    Rb_MomentsAdd(m, v[i]);
	}
	return;
    }
    for (l = 0; l < 4; l++) {
	lo[l] = hi[l] = v[l];
    }
    for (i = 0; i + 4 <= n; i += 4) {
	for (l = 0; l < 4; l++) {
	    s[l] += v[i + l];
	    lo[l] = v[i + l] < lo[l] ? v[i + l] : lo[l];
	    hi[l] = v[i + l] > hi[l] ? v[i + l] : hi[l];
	}
    }
    for (; i < n; i++) {
	s[0] += v[i];
	lo[0] = v[i] < lo[0] ? v[i] : lo[0];
	hi[0] = v[i] > hi[0] ? v[i] : hi[0];
    }
    g.n = (uint64_t)n;
    g.sum = (s[0] + s[1]) + (s[2] + s[3]);
    g.min = fmin(fmin(lo[0], lo[1]), fmin(lo[2], lo[3]));
    g.max = fmax(fmax(hi[0], hi[1]), fmax(hi[2], hi[3]));
    mean = g.sum / (double)n;
    for (i = 0; i + 4 <= n; i += 4) {
	for (l = 0; l < 4; l++) {
	    double d = v[i + l] - mean;

	    q[l] += d * d;
	}
    }
    for (; i < n; i++) {
	q[0] += (v[i] - mean) * (v[i] - mean);
    }
    g.mean = mean;
    g.m2 = (q[0] + q[1]) + (q[2] + q[3]);
    if (m->n == 0) {
	*m = g;
    } else {
	Rb_MomentsMerge(m, &g);
    }
}

/*
 * Rb_MomentsStddev --
 *	The population standard deviation of m's values (dividing by n).
 * Results: the deviation, 0 for fewer than two values.
 * Side effects: none.
 */
double
Rb_MomentsStddev(const Rb_Moments *m)
{
    return m->n > 1 ? sqrt(m->m2 / (double)m->n) : 0.0;
}

/*
 * RbKitNumericField --
 *	Resolves a field that must hold numbers (integers or doubles).
 * Results: TCL_OK with *index set, or TCL_ERROR with an analyzer error
 *	for an unknown or string field.
 */
int
RbKitNumericField(Rb_Analyzer *a, const Rb_RunInfo *run, const char *name,
	int *index)
{
    return Rb_AnalyzerTypedField(a, run, name,
	    RB_FT_BIT(RB_FT_INT) | RB_FT_BIT(RB_FT_DOUBLE), index);
}

/*
 * RbKitIntegerField --
 *	Resolves a field whose values a class reads as integers straight from
 *	the column (offsets, sizes, device numbers): a double's bit pattern
 *	or a string's id would be read as a wrong number.
 * Results: TCL_OK with *index set, or TCL_ERROR with an analyzer error
 *	for an unknown field or one that does not hold integers.
 */
int
RbKitIntegerField(Rb_Analyzer *a, const Rb_RunInfo *run, const char *name,
	int *index)
{
    return Rb_AnalyzerTypedField(a, run, name, RB_FT_BIT(RB_FT_INT), index);
}

/*
 * RbKitFieldScale --
 *	How a value of field index is reported: durations and times in
 *	seconds (scale 1e-9), bytes in bytes, others as they are.
 * Results: the scale; *unit set to the reported unit.
 */
double
RbKitFieldScale(const Rb_RunInfo *run, int index, const char **unit)
{
    switch (run->schema->fields[index].unit) {
    case RB_UNIT_NS:
	*unit = "s";
	return 1.0 / RB_NS_PER_S;
    case RB_UNIT_BYTES:
	*unit = "bytes";
	return 1.0;
    default:
	*unit = "";
	return 1.0;
    }
}
