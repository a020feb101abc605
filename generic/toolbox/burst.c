/*
 * burst.c --
 *
 *	What DispersionAnalyzer and HurstAnalyzer share: both count records
 *	per -base interval (an Rb_TotalState, as RateAnalyzer does) and at
 *	end look at the counts aggregated over blocks of m intervals.  And
 *	the least-squares statistics of paired series that they and
 *	CorrelationAnalyzer use.
 */

#include <math.h>
#include "toolbox/toolbox.h"

/*
 * RbBurstStart --
 *	start hook: checks -base and empties the counts.
 */
int
RbBurstStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    Rb_TotalState *st = a->state;

    if (st->interval <= 0) {
	return RbKitOptionError(a, NULL, "-base must be a positive time");
    }
    return RbTotalStart(a, run);
}

/*
 * RbBlockSums --
 *	The moments of the sums of x over consecutive, complete blocks of m
 *	values (a trailing incomplete block is left out).
 */
void
RbBlockSums(const double *x, int64_t n, int64_t m, Rb_Moments *sums)
{
    int64_t blk, k;

    Rb_MomentsReset(sums);
    for (blk = 0; blk + m <= n; blk += m) {
	double sum = 0;

	for (k = blk; k < blk + m; k++) {
	    sum += x[k];
	}
	Rb_MomentsAdd(sums, sum);
    }
}

/*
 * CrossSums --
 *	The sums of squared and cross deviations from the means of x and y
 *	over n points.
 */
static void
CrossSums(const double *x, const double *y, int64_t n, double *sxx,
	double *sxy, double *syy)
{
    double mx = 0, my = 0;
    int64_t k;

    *sxx = *sxy = *syy = 0;
    for (k = 0; k < n; k++) {
	mx += x[k] / (double)n;
	my += y[k] / (double)n;
    }
    for (k = 0; k < n; k++) {
	*sxx += (x[k] - mx) * (x[k] - mx);
	*sxy += (x[k] - mx) * (y[k] - my);
	*syy += (y[k] - my) * (y[k] - my);
    }
}

/*
 * RbFitSlope --
 *	The least-squares slope of y on x over n points.
 * Results: the slope, NaN for fewer than two distinct x.
 */
double
RbFitSlope(const double *x, const double *y, int n)
{
    double sxx, sxy, syy;

    CrossSums(x, y, n, &sxx, &sxy, &syy);
    return sxx > 0 ? sxy / sxx : NAN;
}

/*
 * RbPearson --
 *	Pearson's correlation coefficient of x and y over n points.
 * Results: a value in [-1, 1], NaN when either does not vary.
 */
double
RbPearson(const double *x, const double *y, int64_t n)
{
    double sxx, sxy, syy;

    CrossSums(x, y, n, &sxx, &sxy, &syy);
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}
