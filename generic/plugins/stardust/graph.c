/*
 * graph.c --
 *
 *	The request graph: a node per breadcrumb, an edge per Stitch record
 *	from the source breadcrumb to the destination.  Splits (a request
 *	fanning out to several sub-requests) and coalescing (several
 *	requests' work done as one, e.g. a write-back of blocks dirtied by
 *	three writes) live in the same graph: a sub-request's work rolls up
 *	whole to its one parent, and coalesced work is split equally among
 *	its parents, recursively, until it reaches root requests.
 */

#include <stdlib.h>
#include <string.h>
#include "plugins/stardust/stardust.h"

/*
 * Sd_GraphInit, Sd_GraphFree --
 *	Make an empty graph; free every node.
 */
void
Sd_GraphInit(SdGraph *g)
{
    Tcl_InitHashTable(&g->nodes, TCL_ONE_WORD_KEYS);
}

void
Sd_GraphFree(SdGraph *g)
{
    Tcl_HashSearch s;
    Tcl_HashEntry *e;

    for (e = Tcl_FirstHashEntry(&g->nodes, &s); e; e = Tcl_NextHashEntry(&s)) {
	SdNode *n = Tcl_GetHashValue(e);

	free(n->parents);
	free(n->children);
	free(n->shares);
	free(n);
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
    n = calloc(1, sizeof(*n));
    n->bc = bc;
    n->firstTime = INT64_MAX;
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
	*arr = realloc(*arr, *cap * sizeof(int64_t));
    }
    (*arr)[(*n)++] = v;
}

/*
 * Sd_GraphStitch --
 *	Records that src caused dst.  A repeated stitch counts once; a
 *	self-stitch is ignored.  Roll-ups already computed are not revised,
 *	so stitch before asking for roots.
 */
void
Sd_GraphStitch(SdGraph *g, int64_t src, int64_t dst)
{
    SdNode *s, *d;

    if (src == dst) {
	return;
    }
    s = Sd_GraphNode(g, src);
    d = Sd_GraphNode(g, dst);
    Push(&d->parents, &d->nparents, &d->capParents, src);
    Push(&s->children, &s->nchildren, &s->capChildren, dst);
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
    *list = realloc(*list, (*n + 1) * sizeof(SdShare));
    (*list)[*n].root = root;
    (*list)[*n].weight = w;
    (*n)++;
}

/*
 * Sd_GraphRoots --
 *	The root requests a node's work belongs to, with the fraction each
 *	bears (summing to 1).  A node without parents is its own root; a
 *	node with k parents gives each 1/k, passed on through the parent's
 *	own roots.  A stitch cycle is broken where it is found: that node
 *	counts as a root.
 * Results: the share list (owned by the node) and its length.
 */
const SdShare *
Sd_GraphRoots(SdGraph *g, SdNode *n, int *count)
{
    int k, j;

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
		    ps[j].weight / n->nparents);
	}
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
