/*
 * timefmt.c --
 *
 *	Time literals of the filter language and options:
 *	[[[days] hours:] min:] seconds, seconds possibly fractional.
 */

#include <ctype.h>
#include <math.h>
#include <string.h>
#include "rbInt.h"

/*
 * ParseNumber --
 *	Reads an unsigned decimal, possibly fractional, at s.
 * Results: characters consumed (0 if none); *v and *isInt set.
 */
static int
ParseNumber(const char *s, double *v, int *isInt)
{
    const char *p = s;
    double x = 0, scale;

    *isInt = 1;
    while (isdigit((unsigned char)*p)) {
	x = x * 10 + (*p++ - '0');
    }
    if (*p == '.' && isdigit((unsigned char)p[1])) {
	*isInt = 0;
	p++;
	for (scale = 0.1; isdigit((unsigned char)*p); scale /= 10) {
	    x += (*p++ - '0') * scale;
	}
    }
    if (p == s) {
	return 0;
    }
    *v = x;
    return (int)(p - s);
}

/*
 * Rb_ParseTime --
 *	Parses a time literal: "S", "M:S", "H:M:S" or "D H:M:S".  Hours and
 *	minutes must be whole; only the last part may have a fraction.
 * Results: characters consumed, or 0 if s does not start with a time
 *	or the time does not fit in int64 nanoseconds.  *ns gets the value
 *	in nanoseconds (rounded to the nearest).
 * Side effects: sets *ns only when it returns more than 0.
 */
int
Rb_ParseTime(const char *s, int64_t *ns)
{
    double parts[3], days = 0, v, total;
    int nparts = 0, n, isInt, lastInt = 1;
    const char *p = s, *q;

    n = ParseNumber(p, &v, &isInt);
    if (n == 0) {
	return 0;
    }
    /* "D H:M:S": a whole number, blanks, then H:M:S with two colons. */
    q = p + n;
    if (isInt && (*q == ' ' || *q == '\t')) {
	const char *r = q;
	double h;
	int hi, m;

	while (*r == ' ' || *r == '\t') {
	    r++;
	}
	m = ParseNumber(r, &h, &hi);
	if (m > 0 && hi && r[m] == ':') {
	    const char *colon2 = strchr(r + m + 1, ':');
	    const char *end = r + m + 1;

	    while (isdigit((unsigned char)*end)) {
		end++;
	    }
	    if (colon2 == end) {
		days = v;
		p = r;
		n = ParseNumber(p, &v, &isInt);
	    }
	}
    }
    for (;;) {
	if (nparts == 3) {
	    return 0;
	}
	parts[nparts++] = v;
	lastInt = isInt;
	p += n;
	if (*p != ':' || !isInt) {
	    break;
	}
	n = ParseNumber(p + 1, &v, &isInt);
	if (n == 0) {
	    break;
	}
	p++;
    }
    (void)lastInt;
    total = days * 86400.0;
    switch (nparts) {
    case 1: total += parts[0]; break;
    case 2: total += parts[0] * 60 + parts[1]; break;
    default: total += parts[0] * 3600 + parts[1] * 60 + parts[2]; break;
    }
    /* Beyond 2^63 ns (about 292 years) llround's result is unspecified. */
    if (!(total * 1e9 < 9223372036854775808.0)) {
	return 0;
    }
    *ns = (int64_t)llround(total * 1e9);
    return (int)(p - s);
}

/*
 * Rb_FormatTime --
 *	Formats ns as seconds with six decimals ("1.500000"), the value
 *	rounded to the microsecond.
 * Results: none.
 * Side effects: writes at most n bytes, NUL included, to buf (cut short
 *	if it does not fit).
 */
void
Rb_FormatTime(int64_t ns, char *buf, size_t n)
{
    snprintf(buf, n, "%.6f", (double)ns / 1e9);
}
