/*
 * filterExec.c --
 *
 *	Running a compiled filter over a batch.  Work is done on whole
 *	selection vectors: a leaf is one tight loop over its input indices,
 *	chosen by a switch outside the loop, whose body writes the index
 *	unconditionally and advances the output count by the test's result
 *	(no branch per record).  An and feeds each child the previous
 *	child's output; an or runs each child on the input and merges the
 *	ascending lists.  Scratch lists live in the program, so a batch
 *	costs no allocation -- and one program must not run in two threads
 *	at once.
 */

#include <string.h>
#include "filter/filterInt.h"

/*
 * SELECT --
 *	The leaf loop: out gets the members i of in for which TEST (an
 *	expression of i) is true, or false when the leaf is negated.  out
 *	never runs ahead of in, so it needs no more room than nIn.
 */
#define SELECT(TEST)							\
    do {								\
	if (n->neg) {							\
	    for (k = 0; k < nIn; k++) {					\
		uint32_t i = in[k];					\
		out[nOut] = i;						\
		nOut += !(TEST);					\
	    }								\
	} else {							\
	    for (k = 0; k < nIn; k++) {					\
		uint32_t i = in[k];					\
		out[nOut] = i;						\
		nOut += (TEST);						\
	    }								\
	}								\
    } while (0)

/*
 * SELECT_CMP --
 *	SELECT for "A op B" with a run-time op, switched outside the loop.
 *	PRESENT is the test that both sides hold values.
 */
#define SELECT_CMP(A, B, PRESENT)					\
    switch (n->op) {							\
    case CMP_LT: SELECT(((A) < (B)) & (PRESENT)); break;		\
    case CMP_LE: SELECT(((A) <= (B)) & (PRESENT)); break;		\
    case CMP_GT: SELECT(((A) > (B)) & (PRESENT)); break;		\
    case CMP_GE: SELECT(((A) >= (B)) & (PRESENT)); break;		\
    case CMP_EQ: SELECT(((A) == (B)) & (PRESENT)); break;		\
    case CMP_NE: SELECT(((A) != (B)) & (PRESENT)); break;		\
    }

/*
 * AsDouble --
 *	The value of slot v as a double, for a field holding doubles
 *	(isDouble) or integers.
 */
static inline double
AsDouble(int64_t v, int isDouble)
{
    union { int64_t i; double d; } u;

    if (!isDouble) {
	return (double)v;
    }
    u.i = v;
    return u.d;
}

/*
 * EvalLeaf --
 *	Runs a leaf over in.
 * Results: the count of indices written to out.
 */
static int
EvalLeaf(const FNode *n, const Rb_Batch *b, const uint32_t *in, int nIn,
	uint32_t *out)
{
    const int64_t *col = b->col[n->field];
    int k, nOut = 0;

    switch (n->kind) {
    case FN_TRUE:
	memcpy(out, in, (size_t)nIn * sizeof(uint32_t));
	return nIn;
    case FN_FALSE:
	return 0;
    case FN_INT_EQ: {
	int64_t c = n->lo;

	SELECT(col[i] == c);
	break;
    }
    case FN_INT_NE: {
	int64_t c = n->lo;

	SELECT((col[i] != c) & (col[i] != RB_ABSENT));
	break;
    }
    case FN_INT_BITS: {
	int64_t mask = n->lo;

	SELECT(((col[i] & mask) != 0) & (col[i] != RB_ABSENT));
	break;
    }
    case FN_INT_GE: {
	int64_t lo = n->lo;

	SELECT(col[i] >= lo);
	break;
    }
    case FN_INT_RANGE: {
	/* One unsigned compare tests lo <= v <= hi; lo > RB_ABSENT, so an
	 * absent value wraps to above the span. */
	uint64_t lo = (uint64_t)n->lo, span = (uint64_t)n->hi - lo;

	SELECT((uint64_t)col[i] - lo <= span);
	break;
    }
    case FN_DBL_CMP: {
	double c = n->dlo;

	SELECT_CMP(AsDouble(col[i], 1), c, col[i] != RB_ABSENT);
	break;
    }
    case FN_DBL_RANGE: {
	double lo = n->dlo, hi = n->dhi;

	SELECT((AsDouble(col[i], 1) >= lo) & (AsDouble(col[i], 1) <= hi)
		& (col[i] != RB_ABSENT));
	break;
    }
    case FN_FF_INT: {
	const int64_t *col2 = b->col[n->field2];

	SELECT_CMP(col[i], col2[i],
		(col[i] != RB_ABSENT) & (col2[i] != RB_ABSENT));
	break;
    }
    case FN_FF_DBL: {
	const int64_t *col2 = b->col[n->field2];
	int d1 = n->dbl1, d2 = n->dbl2;

	SELECT_CMP(AsDouble(col[i], d1), AsDouble(col2[i], d2),
		(col[i] != RB_ABSENT) & (col2[i] != RB_ABSENT));
	break;
    }
    case FN_AND:
    case FN_OR:
	break;
    }
    return nOut;
}

/*
 * Scratch --
 *	Buffer which (0 or 1) of an and/or node's level.
 */
static inline uint32_t *
Scratch(const Rb_FilterProg *p, const FNode *n, int which)
{
    return p->scratch + ((size_t)n->level * 2 + which) * RB_BATCH_SIZE;
}

/*
 * Union --
 *	Merges two ascending index lists without duplicates into out.
 * Results: the count written.
 */
static int
Union(const uint32_t *a, int na, const uint32_t *b, int nb, uint32_t *out)
{
    int i = 0, j = 0, n = 0;

    while (i < na && j < nb) {
	uint32_t x = a[i], y = b[j];

	out[n++] = x < y ? x : y;
	i += x <= y;
	j += y <= x;
    }
    while (i < na) {
	out[n++] = a[i++];
    }
    while (j < nb) {
	out[n++] = b[j++];
    }
    return n;
}

/*
 * EvalAnd --
 *	Runs each child on the previous one's output, the last into out;
 *	stops as soon as nothing is left.
 * Results: the count written to out.
 */
static int
EvalAnd(const Rb_FilterProg *p, const FNode *n, const Rb_Batch *b,
	const uint32_t *in, int nIn, uint32_t *out)
{
    const uint32_t *cur = in;
    int j, nCur = nIn;

    for (j = 0; j < n->nkids && nCur > 0; j++) {
	uint32_t *dst = j == n->nkids - 1 ? out : Scratch(p, n, j & 1);

	nCur = RbFilterEval(p, n->kids[j], b, cur, nCur, dst);
	cur = dst;
    }
    return nCur;
}

/*
 * RbFilterEvalAndExcept --
 *	Runs the children of and node n but child skip on in, as EvalAnd
 *	does (skip -1: all of them).
 * Results: the count written to out.
 */
int
RbFilterEvalAndExcept(const Rb_FilterProg *p, const FNode *n, int skip,
	const Rb_Batch *b, const uint32_t *in, int nIn, uint32_t *out)
{
    const uint32_t *cur = in;
    int j, last = n->nkids - 1, done = 0, nCur = nIn;

    if (last == skip) {
	last--;
    }
    for (j = 0; j <= last && nCur > 0; j++) {
	uint32_t *dst;

	if (j == skip) {
	    continue;
	}
	dst = j == last ? out : Scratch(p, n, done++ & 1);
	nCur = RbFilterEval(p, n->kids[j], b, cur, nCur, dst);
	cur = dst;
    }
    if (cur != out) {
	memmove(out, cur, (size_t)nCur * sizeof(uint32_t));
    }
    return nCur;
}

/*
 * EvalOr --
 *	Runs each child on the input and merges its output into the
 *	accumulated union, which alternates between out and a scratch list;
 *	stops early once every input is selected.
 * Results: the count written to out.
 */
static int
EvalOr(const Rb_FilterProg *p, const FNode *n, const Rb_Batch *b,
	const uint32_t *in, int nIn, uint32_t *out)
{
    uint32_t *kidOut = Scratch(p, n, 0), *spare = Scratch(p, n, 1);
    uint32_t *acc = out;
    int j, nAcc;

    nAcc = RbFilterEval(p, n->kids[0], b, in, nIn, acc);
    for (j = 1; j < n->nkids && nAcc < nIn; j++) {
	int nKid = RbFilterEval(p, n->kids[j], b, in, nIn, kidOut);
	uint32_t *dst = acc == out ? spare : out;

	nAcc = Union(acc, nAcc, kidOut, nKid, dst);
	acc = dst;
    }
    if (acc != out) {
	memcpy(out, acc, (size_t)nAcc * sizeof(uint32_t));
    }
    return nAcc;
}

/*
 * RbFilterEval --
 *	Runs node n over the index list in (at most RB_BATCH_SIZE long),
 *	writing the selected indices to out, which must not alias in.
 * Results: the count written.
 */
int
RbFilterEval(const Rb_FilterProg *p, const FNode *n, const Rb_Batch *b,
	const uint32_t *in, int nIn, uint32_t *out)
{
    switch (n->kind) {
    case FN_AND:
	return EvalAnd(p, n, b, in, nIn, out);
    case FN_OR:
	return EvalOr(p, n, b, in, nIn, out);
    default:
	return EvalLeaf(n, b, in, nIn, out);
    }
}

/*
 * Rb_FilterSelect --
 *	Writes to selOut the members of selIn (ascending) that match.
 *	Longer inputs than the scratch lists are run in slices.  Not to be
 *	called on one program from two threads at once (it uses the
 *	program's scratch lists).
 * Results: the count written.
 * Side effects: writes selOut; may overwrite the program's scratch
 *	lists.
 */
int
Rb_FilterSelect(const Rb_FilterProg *p, const Rb_Batch *b,
	const uint32_t *selIn, int nIn, uint32_t *selOut)
{
    int off, nOut = 0;

    for (off = 0; off < nIn; off += RB_BATCH_SIZE) {
	int len = nIn - off < RB_BATCH_SIZE ? nIn - off : RB_BATCH_SIZE;

	nOut += RbFilterEval(p, p->root, b, selIn + off, len, selOut + nOut);
    }
    return nOut;
}

/*
 * Rb_FilterMatch --
 *	Tests one record, i of b, against the program.  Same threading rule
 *	as Rb_FilterSelect.
 * Results: 1 if it matches, else 0.
 * Side effects: may overwrite the program's scratch lists.
 */
int
Rb_FilterMatch(const Rb_FilterProg *p, const Rb_Batch *b, int i)
{
    uint32_t in = (uint32_t)i, out;

    return RbFilterEval(p, p->root, b, &in, 1, &out);
}
