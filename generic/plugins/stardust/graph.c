/*
 * graph.c --
 *
 *	The request graph: a node per breadcrumb, an edge per Stitch record
 *	from the source breadcrumb to the destination.  Splits (a request
 *	fanning out to several sub-requests) and coalescing (several
 *	requests' work done as one, e.g. a write-back of blocks dirtied by
 *	three writes) live in the same graph: a sub-request's work rolls up
 *	whole to its one parent, and coalesced work is split equally among
 *	its parents, recursively, until it reaches root requests.  Stitches
 *	that would close a cycle or chain deeper than SD_MAX_STITCH_DEPTH
 *	are refused, so the graph is a DAG of bounded depth.
 */

#include <stdlib.h>
#include <string.h>
#include "plugins/stardust/stardust.h"

static void
FreeNode(SdNode *n)
{
    free(n->parents);
    free(n->children);
    free(n->inherit);
    free(n->shares);
    free(n);
}

/*
 * Sd_GraphInit, Sd_GraphFree --
 *	Make an empty graph; free every node.
 */
void
Sd_GraphInit(SdGraph *g)
{
    Tcl_InitHashTable(&g->nodes, TCL_ONE_WORD_KEYS);
    g->walk = 0;
}

void
Sd_GraphFree(SdGraph *g)
{
    Tcl_HashSearch s;
    Tcl_HashEntry *e;

    for (e = Tcl_FirstHashEntry(&g->nodes, &s); e; e = Tcl_NextHashEntry(&s)) {
	SdNode *n = Tcl_GetHashValue(e);

	FreeNode(n);
    }
    Tcl_DeleteHashTable(&g->nodes);
}

/*
 * Sd_GraphFind, Sd_GraphNode --
 *	The node of a breadcrumb: NULL if absent, or made on first use.
 */
SdNode *
Sd_GraphFind(const SdGraph *g, int64_t bc)
{
    Tcl_HashEntry *e = Tcl_FindHashEntry((Tcl_HashTable *)&g->nodes,
	    (const char *)(intptr_t)bc);

    return e ? Tcl_GetHashValue(e) : NULL;
}

SdNode *
Sd_GraphNode(SdGraph *g, int64_t bc)
{
    int isNew;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(&g->nodes,
	    (const char *)(intptr_t)bc, &isNew);
    SdNode *n;

    if (!isNew) {
	return Tcl_GetHashValue(e);
    }
    n = Rb_Alloc(sizeof(*n));
    n->bc = bc;
    n->lastTime = INT64_MIN;
    Tcl_SetHashValue(e, n);
    return n;
}

static void
Push(int64_t **arr, int *n, int *cap, int64_t v)
{
    int k;

    for (k = 0; k < *n; k++) {
	if ((*arr)[k] == v) {
	    return;
	}
    }
    if (*n == *cap) {
	*cap = *cap ? 2 * *cap : 2;
	*arr = Rb_ReallocArray(*arr, *cap, sizeof(int64_t));
    }
    (*arr)[(*n)++] = v;
}

/*
 * Below --
 *	The height of n (the longest chain of stitches under it), walking
 *	each node once per check; sets *found if target is under n.
 */
static unsigned
Below(SdGraph *g, SdNode *n, int64_t target, int *found)
{
    int k;

    if (n->mark == g->walk) {
	return n->height;
    }
    n->mark = g->walk;
    n->height = 0;
    for (k = 0; k < n->nchildren && !*found; k++) {
	SdNode *c = Sd_GraphFind(g, n->children[k]);
	unsigned h;

	if (c->bc == target) {
	    *found = 1;
	    break;
	}
	h = Below(g, c, target, found) + 1;
	if (h > n->height) {
	    n->height = h;
	}
    }
    return n->height;
}

/*
 * Deepen --
 *	Raises n's depth to at least d, and its descendants' after it.
 */
static void
Deepen(SdGraph *g, SdNode *n, int d)
{
    int k;

    if (d <= n->depth) {
	return;
    }
    n->depth = d;
    for (k = 0; k < n->nchildren; k++) {
	Deepen(g, Sd_GraphFind(g, n->children[k]), d + 1);
    }
}

/*
 * Sd_GraphStitch --
 *	Records that src caused dst.  A repeated stitch counts once; a
 *	self-stitch is ignored.  A stitch that would close a cycle (dst
 *	already causes src) or make a chain of more than
 *	SD_MAX_STITCH_DEPTH stitches is refused.  Roll-ups already computed
 *	are not revised, so stitch before asking for roots.
 * Results: SD_STITCH_OK, SD_STITCH_CYCLE or SD_STITCH_DEEP.
 */
int
Sd_GraphStitch(SdGraph *g, int64_t src, int64_t dst)
{
    SdNode *s, *d;
    int found = 0;
    unsigned height;

    if (src == dst) {
	return SD_STITCH_OK;
    }
    s = Sd_GraphNode(g, src);
    d = Sd_GraphNode(g, dst);
    g->walk++;
    height = Below(g, d, src, &found);
    if (found) {
	return SD_STITCH_CYCLE;
    }
    if (s->depth + 1 + height > SD_MAX_STITCH_DEPTH) {
	return SD_STITCH_DEEP;
    }
    Push(&d->parents, &d->nparents, &d->capParents, src);
    Push(&s->children, &s->nchildren, &s->capChildren, dst);
    Deepen(g, d, s->depth + 1);
    return SD_STITCH_OK;
}

/*
 * Drop --
 *	Removes v from a list of breadcrumbs.
 */
static void
Drop(int64_t *arr, int *n, int64_t v)
{
    int k;

    for (k = 0; k < *n; k++) {
	if (arr[k] == v) {
	    arr[k] = arr[--*n];
	    return;
	}
    }
}

/*
 * Sd_GraphRemove --
 *	Removes a node that has no children (its work billed) from the
 *	graph and from its parents' child lists, and frees it.
 */
void
Sd_GraphRemove(SdGraph *g, SdNode *n)
{
    Tcl_HashEntry *e = Tcl_FindHashEntry(&g->nodes,
	    (const char *)(intptr_t)n->bc);
    int k;

    for (k = 0; k < n->nparents; k++) {
	SdNode *p = Sd_GraphFind(g, n->parents[k]);

	if (p != NULL) {
	    Drop(p->children, &p->nchildren, n->bc);
	}
    }
    for (k = 0; k < n->nchildren; k++) {
	SdNode *c = Sd_GraphFind(g, n->children[k]);

	if (c != NULL) {
	    Drop(c->parents, &c->nparents, n->bc);
	}
    }
    Tcl_DeleteHashEntry(e);
    FreeNode(n);
}

/*
 * AddShare --
 *	Adds weight w of root to a share list.
 */
static void
AddShare(SdShare **list, int *n, int64_t root, double w)
{
    int k;

    for (k = 0; k < *n; k++) {
	if ((*list)[k].root == root) {
	    (*list)[k].weight += w;
	    return;
	}
    }
    *list = Rb_ReallocArray(*list, *n + 1, sizeof(SdShare));
    (*list)[*n].root = root;
    (*list)[*n].weight = w;
    (*n)++;
}

/*
 * Sd_GraphInherit --
 *	Records that a parent already retired, whose roll-up was shares,
 *	caused n: it counts as one more parent.
 */
void
Sd_GraphInherit(SdNode *n, const SdShare *shares, int count)
{
    int j;

    for (j = 0; j < count; j++) {
	AddShare(&n->inherit, &n->nInheritShares, shares[j].root,
		shares[j].weight);
    }
    n->ninherit++;
}

/*
 * Sd_GraphRoots --
 *	The root requests a node's work belongs to, with the fraction each
 *	bears (summing to 1).  A node without parents is its own root; a
 *	node with k parents gives each 1/k, passed on through the parent's
 *	own roots; a retired parent passes on the roll-up it had.  (A cycle,
 *	which Sd_GraphStitch refuses, would be broken where found.)
 * Results: the share list (owned by the node) and its length.
 */
const SdShare *
Sd_GraphRoots(SdGraph *g, SdNode *n, int *count)
{
    int k, j, nall = n->nparents + n->ninherit;

    if (n->state == 2) {
	*count = n->nshares;
	return n->shares;
    }
    n->state = 1;
    for (k = 0; k < n->nparents; k++) {
	SdNode *p = Sd_GraphNode(g, n->parents[k]);
	const SdShare *ps;
	int np;

	if (p->state == 1) {
	    continue;
	}
	ps = Sd_GraphRoots(g, p, &np);
	for (j = 0; j < np; j++) {
	    AddShare(&n->shares, &n->nshares, ps[j].root,
		    ps[j].weight / nall);
	}
    }
    for (j = 0; j < n->nInheritShares; j++) {
	AddShare(&n->shares, &n->nshares, n->inherit[j].root,
		n->inherit[j].weight / nall);
    }
    if (n->nshares == 0) {
	AddShare(&n->shares, &n->nshares, n->bc, 1.0);
    } else {
	double total = 0;

	/* Parents skipped for a cycle leave the sum short: rescale. */
	for (j = 0; j < n->nshares; j++) {
	    total += n->shares[j].weight;
	}
	for (j = 0; j < n->nshares; j++) {
	    n->shares[j].weight /= total;
	}
    }
    n->state = 2;
    *count = n->nshares;
    return n->shares;
}

/*
 * Sd_GraphForgetRoots --
 *	Drops every computed roll-up, so that stitches added since are
 *	taken into account the next time roots are asked for.
 */
void
Sd_GraphForgetRoots(SdGraph *g)
{
    Tcl_HashSearch s;
    Tcl_HashEntry *e;

    for (e = Tcl_FirstHashEntry(&g->nodes, &s); e; e = Tcl_NextHashEntry(&s)) {
	SdNode *n = Tcl_GetHashValue(e);

	free(n->shares);
	n->shares = NULL;
	n->nshares = 0;
	n->state = 0;
    }
}
