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
