/*
 * cacheCmd.c --
 *
 *	observer::cache: the buffer-cache model from Tcl.
 *
 *	  observer::cache ACCESSES ?-sizes LIST? ?-partition {W SIZE ...}?
 *			?-misses SIZE? ?-limit N? ?-policy NAME?
 *
 *	ACCESSES is a list whose elements are a block, or a pair
 *	{workload block}.  The answer is a dict: accesses, cold, shared
 *	{size hitRatio ...} for one cache shared by all, workloads {W
 *	{accesses N curve {size hitRatio ...}}} for each workload alone in
 *	its partition, with -partition the hits of that split, and with
 *	-misses the miss sequence ({workload block} pairs) of the shared
 *	cache of that size, or of the partitions when -partition is given.
 *	The model holds at most -limit blocks (default 10000000, counted in
 *	the shared cache and in each workload's partition); the access that
 *	would hold one more is an error, RUBICON LIMIT DISTINCT.
 *
 *	-policy lru (the default) answers from LRU stack distances, every
 *	size in one pass.  Any other policy of the kit's cache simulation
 *	(Rb_CacheSimCreate: fifo, clock, lfu, arc, s3fifo) replays the
 *	accesses through one simulated cache per size asked (and per
 *	partition), since those policies have no stack property.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "observer.h"

/*
 * CurveObj --
 *	{size hitRatio ...} for the given sizes, or, when none are given,
 *	for powers of two up to the largest distance seen.
 */
static Tcl_Obj *
CurveObj(const Rb_CacheCurve *c, const Tcl_WideInt *sizes, int nsizes)
{
    Tcl_Obj *out = Tcl_NewDictObj();
    int64_t s;
    int i;

    if (nsizes > 0) {
	for (i = 0; i < nsizes; i++) {
	    Tcl_DictObjPut(NULL, out, Tcl_NewWideIntObj(sizes[i]),
		    Tcl_NewDoubleObj(c->accesses ? (double) RbCacheCurveHits(c,
		    sizes[i]) / c->accesses : 0));
	}
	return out;
    }
    for (s = 1;; s *= 2) {
	Tcl_DictObjPut(NULL, out, Tcl_NewWideIntObj(s),
		Tcl_NewDoubleObj(c->accesses ? (double) RbCacheCurveHits(c, s)
		/ c->accesses : 0));
	if (s >= c->maxDistance) {
	    break;
	}
    }
    return out;
}

/*
 * CacheResult --
 *	The result of observer::cache once the accesses are in the model:
 *	the shared curve, each workload's, the hits of a partition (npart >
 *	0: share[w] blocks for workload w) and, with missSize >= 0, the
 *	misses in order ({workload block} pairs).
 * Results: a new dict.
 */
static Tcl_Obj *
CacheResult(Rb_CacheModel *m, Tcl_Obj *names, const Tcl_WideInt *sizes,
	int nsz, const Tcl_WideInt *share, int npart, Tcl_WideInt missSize)
{
    Tcl_Obj *out, *wls, *missObj;
    int i, nw = RbCacheModelWorkloads(m);

    out = Tcl_NewDictObj();
    wls = Tcl_NewDictObj();
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("accesses", -1),
	    Tcl_NewWideIntObj(RbCacheModelCurve(m, -1)->accesses));
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("cold", -1),
	    Tcl_NewWideIntObj(RbCacheModelCurve(m, -1)->cold));
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("shared", -1),
	    CurveObj(RbCacheModelCurve(m, -1), sizes, nsz));
    for (i = 0; i < nw; i++) {
	Tcl_Obj *w = Tcl_NewDictObj(), *name;
	const Rb_CacheCurve *c = RbCacheModelCurve(m, i);

	Tcl_ListObjIndex(NULL, names, i, &name);
	Tcl_DictObjPut(NULL, w, Tcl_NewStringObj("accesses", -1),
		Tcl_NewWideIntObj(c->accesses));
	Tcl_DictObjPut(NULL, w, Tcl_NewStringObj("curve", -1),
		CurveObj(c, sizes, nsz));
	Tcl_DictObjPut(NULL, wls, name, w);
    }
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("workloads", -1), wls);
    if (npart > 0) {
	int64_t hits = 0, total = RbCacheModelCurve(m, -1)->accesses;

	for (i = 0; i < nw; i++) {
	    hits += RbCacheCurveHits(RbCacheModelCurve(m, i), share[i]);
	}
	Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("partition", -1),
		Tcl_ObjPrintf("hits %" PRId64 " hitRatio %.17g", hits,
		total ? (double) hits / total : 0.0));
    }
    if (missSize >= 0) {
	int64_t k;

	missObj = Tcl_NewObj();
	for (k = 0; k < RbCacheModelLength(m); k++) {
	    int w = RbCacheModelWorkloadOf(m, k);
	    int64_t d = RbCacheModelDistance(m, npart > 0, k);
	    int64_t size = npart > 0 ? share[w] : missSize;
	    Tcl_Obj *name;

	    if (d == 0 || d > size) {
		Tcl_ListObjIndex(NULL, names, w, &name);
		Tcl_ListObjAppendElement(NULL, missObj, Tcl_NewListObj(2,
			(Tcl_Obj *[]) {name,
			Tcl_NewWideIntObj(RbCacheModelBlockOf(m, k))}));
	    }
	}
	Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("misses", -1), missObj);
    }
    return out;
}

/*
 * Replay --
 *	Feeds the accesses kept in m (of workload w only, or all when w <
 *	0) to caches under policy: one of size[0] blocks, or, when
 *	partitioned, one per workload of size[workload] blocks.  A size at
 *	least the distinct blocks of its stream behaves as a cache of
 *	exactly that many (nothing is ever evicted, whatever the policy),
 *	so it is simulated at that size; a size below 1 holds nothing.
 *	With missObj, appends each miss as {workload block}.
 * Results: the hits, or -1 with an error in interp when a cache cannot
 *	be made (policy unknown or size beyond the simulation's).
 */
static int64_t
Replay(Tcl_Interp *interp, Rb_CacheModel *m, const char *policy, int w,
	const Tcl_WideInt *size, int partitioned, Tcl_Obj *names,
	Tcl_Obj *missObj)
{
    int nw = RbCacheModelWorkloads(m), nsim = partitioned ? nw : 1, i;
    Rb_CacheSim **sim = Rb_AllocArray(nsim, sizeof(Rb_CacheSim *));
    int64_t k, hits = 0;

    for (i = 0; i < nsim; i++) {
	int64_t distinct = RbCacheModelCurve(m, partitioned ? i : w)->cold;
	int64_t s = size[partitioned ? i : 0];

	s = s > distinct ? distinct : s;
	sim[i] = NULL;
	if (s >= 1 && (sim[i] = Rb_CacheSimCreate(policy, s)) == NULL) {
	    Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE", "cannot "
		    "simulate a %s cache of %" PRId64 " blocks", policy,
		    (int64_t) s);
	    hits = -1;
	    goto done;
	}
    }
    for (k = 0; k < RbCacheModelLength(m); k++) {
	int wk = RbCacheModelWorkloadOf(m, k);
	Rb_CacheSim *c = sim[partitioned ? wk : 0];
	Tcl_Obj *name;

	if (w >= 0 && wk != w) {
	    continue;
	}
	if (c != NULL && Rb_CacheSimAccess(c, RbCacheModelBlockOf(m, k))) {
	    hits++;
	} else if (missObj != NULL) {
	    Tcl_ListObjIndex(NULL, names, wk, &name);
	    Tcl_ListObjAppendElement(NULL, missObj, Tcl_NewListObj(2,
		    (Tcl_Obj *[]) {name,
		    Tcl_NewWideIntObj(RbCacheModelBlockOf(m, k))}));
	}
    }
  done:
    for (i = 0; i < nsim; i++) {
	Rb_CacheSimFree(sim[i]);
    }
    free(sim);
    return hits;
}

/*
 * SimCurveObj --
 *	{size hitRatio ...} of workload w (or the shared cache, w < 0) under
 *	policy, for the given sizes or, when none are given, powers of two
 *	up to the first at least the distinct blocks.
 * Results: a new dict, or NULL with an error in interp.
 */
static Tcl_Obj *
SimCurveObj(Tcl_Interp *interp, Rb_CacheModel *m, const char *policy,
	int w, const Tcl_WideInt *sizes, int nsizes)
{
    const Rb_CacheCurve *c = RbCacheModelCurve(m, w);
    Tcl_Obj *out = Tcl_NewDictObj();
    Tcl_WideInt s;
    int64_t hits;
    int i;

    for (i = 0, s = 1; nsizes > 0 ? i < nsizes : 1; i++, s *= 2) {
	Tcl_WideInt size = nsizes > 0 ? sizes[i] : s;

	hits = Replay(interp, m, policy, w, &size, 0, NULL, NULL);
	if (hits < 0) {
	    Tcl_IncrRefCount(out);
	    Tcl_DecrRefCount(out);
	    return NULL;
	}
	Tcl_DictObjPut(NULL, out, Tcl_NewWideIntObj(size), Tcl_NewDoubleObj(
		c->accesses ? (double) hits / c->accesses : 0));
	if (nsizes == 0 && s >= c->cold) {
	    break;
	}
    }
    return out;
}

/*
 * SimResult --
 *	The result of observer::cache under a policy other than LRU, with
 *	the keys of CacheResult, every hit counted by simulation.
 * Results: a new dict, or NULL with an error in interp.
 */
static Tcl_Obj *
SimResult(Tcl_Interp *interp, Rb_CacheModel *m, const char *policy,
	Tcl_Obj *names, const Tcl_WideInt *sizes, int nsz,
	const Tcl_WideInt *share, int npart, Tcl_WideInt missSize)
{
    Tcl_Obj *out = Tcl_NewDictObj(), *wls = Tcl_NewDictObj(), *curve;
    Tcl_Obj *missObj = missSize >= 0 ? Tcl_NewObj() : NULL;
    int i, nw = RbCacheModelWorkloads(m);
    int64_t total = RbCacheModelCurve(m, -1)->accesses, hits;

    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("accesses", -1),
	    Tcl_NewWideIntObj(total));
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("cold", -1),
	    Tcl_NewWideIntObj(RbCacheModelCurve(m, -1)->cold));
    if ((curve = SimCurveObj(interp, m, policy, -1, sizes, nsz)) == NULL) {
	goto fail;
    }
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("shared", -1), curve);
    for (i = 0; i < nw; i++) {
	Tcl_Obj *w = Tcl_NewDictObj(), *name;

	Tcl_ListObjIndex(NULL, names, i, &name);
	Tcl_DictObjPut(NULL, w, Tcl_NewStringObj("accesses", -1),
		Tcl_NewWideIntObj(RbCacheModelCurve(m, i)->accesses));
	if ((curve = SimCurveObj(interp, m, policy, i, sizes, nsz)) == NULL) {
	    Tcl_IncrRefCount(w);
	    Tcl_DecrRefCount(w);
	    goto fail;
	}
	Tcl_DictObjPut(NULL, w, Tcl_NewStringObj("curve", -1), curve);
	Tcl_DictObjPut(NULL, wls, name, w);
    }
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("workloads", -1), wls);
    wls = NULL;
    if (npart > 0 || missObj != NULL) {
	hits = Replay(interp, m, policy, -1, npart > 0 ? share : &missSize,
		npart > 0, names, missObj);
	if (hits < 0) {
	    goto fail;
	}
	if (npart > 0) {
	    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("partition", -1),
		    Tcl_ObjPrintf("hits %" PRId64 " hitRatio %.17g", hits,
		    total ? (double) hits / total : 0.0));
	}
	if (missObj != NULL) {
	    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("misses", -1),
		    missObj);
	    missObj = NULL;
	}
    }
    return out;
  fail:
    if (missObj != NULL) {
	Tcl_IncrRefCount(missObj);
	Tcl_DecrRefCount(missObj);
    }
    if (wls != NULL) {
	Tcl_IncrRefCount(wls);
	Tcl_DecrRefCount(wls);
    }
    Tcl_IncrRefCount(out);
    Tcl_DecrRefCount(out);
    return NULL;
}

/*
 * CacheOpts --
 *	The options of observer::cache as parsed.
 */
typedef struct CacheOpts {
    Tcl_Obj **sz, **part;
    int nsz, npart;
    Tcl_WideInt missSize, limit;
    const char *policy;
} CacheOpts;

/*
 * ParseCacheOpts --
 *	Reads the options of observer::cache (objv[2..]) into o.
 * Results: TCL_OK, or TCL_ERROR with an error in interp.
 */
static int
ParseCacheOpts(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[],
	CacheOpts *o)
{
    static const char *const opts[] = {"-sizes", "-partition", "-misses",
	"-limit", "-policy", NULL};
    static const char *const policies[] = {"lru", "fifo", "clock", "lfu",
	"arc", "s3fifo", NULL};
    int i, idx, p;

    memset(o, 0, sizeof(*o));
    o->missSize = -1;
    o->limit = 10000000;
    o->policy = "lru";
    for (i = 2; i < objc; i += 2) {
	if (Tcl_GetIndexFromObj(interp, objv[i], opts, "option", 0, &idx)
		!= TCL_OK) {
	    return TCL_ERROR;
	}
	if (idx == 0 && Tcl_ListObjGetElements(interp, objv[i + 1], &o->nsz,
		&o->sz) != TCL_OK) {
	    return TCL_ERROR;
	}
	if (idx == 1 && (Tcl_ListObjGetElements(interp, objv[i + 1],
		&o->npart, &o->part) != TCL_OK || o->npart % 2)) {
	    return o->npart % 2 ? Rb_SetInterpError(interp,
		    "RUBICON OBSERVER USAGE", "-partition takes workload "
		    "size pairs") : TCL_ERROR;
	}
	if (idx == 2 && (Tcl_GetWideIntFromObj(interp, objv[i + 1],
		&o->missSize) != TCL_OK)) {
	    return TCL_ERROR;
	}
	if (idx == 3 && (Tcl_GetWideIntFromObj(interp, objv[i + 1],
		&o->limit) != TCL_OK || o->limit <= 0)) {
	    return o->limit <= 0 ? Rb_SetInterpError(interp,
		    "RUBICON OBSERVER USAGE", "-limit must be positive")
		    : TCL_ERROR;
	}
	if (idx == 4) {
	    if (Tcl_GetIndexFromObj(interp, objv[i + 1], policies, "policy",
		    0, &p) != TCL_OK) {
		return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
			"bad policy \"%s\": must be lru, fifo, clock, lfu, "
			"arc or s3fifo", Tcl_GetString(objv[i + 1]));
	    }
	    o->policy = policies[p];
	}
    }
    return TCL_OK;
}

/*
 * FeedAccesses --
 *	Feeds every access of the list to m, naming each workload on first
 *	sight in ids (name -> index) and names.
 * Results: TCL_OK, or TCL_ERROR with an error in interp.
 */
static int
FeedAccesses(Tcl_Interp *interp, Rb_CacheModel *m, int nacc,
	Tcl_Obj **acc, Tcl_HashTable *ids, Tcl_Obj *names, Tcl_WideInt limit)
{
    int i;

    for (i = 0; i < nacc; i++) {
	Tcl_Obj **pair, *wname;
	int np, isNew;
	Tcl_WideInt block;
	Tcl_HashEntry *e;

	if (Tcl_ListObjGetElements(interp, acc[i], &np, &pair) != TCL_OK) {
	    return TCL_ERROR;
	}
	if (np != 1 && np != 2) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		    "access %d is \"%s\": expected block or {workload "
		    "block}", i + 1, Tcl_GetString(acc[i]));
	}
	if (Tcl_GetWideIntFromObj(interp, pair[np - 1], &block) != TCL_OK) {
	    return TCL_ERROR;
	}
	wname = np == 2 ? pair[0] : Tcl_NewStringObj("all", -1);
	e = Tcl_CreateHashEntry(ids, Tcl_GetString(wname), &isNew);
	if (isNew) {
	    Tcl_SetHashValue(e, (ClientData) (intptr_t) ids->numEntries - 1);
	    Tcl_ListObjAppendElement(NULL, names, wname);
	} else if (np == 1) {
	    Tcl_DecrRefCount(wname);
	}
	if (!RbCacheModelAccess(m, (int) (intptr_t) Tcl_GetHashValue(e),
		block)) {
	    return Rb_SetInterpError(interp, "RUBICON LIMIT DISTINCT",
		    "observer::cache: more than -limit %" PRId64 " blocks "
		    "held (shared and per workload) at access %d (raise "
		    "-limit)", (int64_t) limit, i + 1);
	}
    }
    return TCL_OK;
}

/*
 * RbObsCacheCmd --
 *	Runs the model over the accesses and answers as described above.
 */
int
RbObsCacheCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    Tcl_Obj **acc, *out, *names;
    Tcl_WideInt *sizes = NULL, *share = NULL;
    Tcl_HashTable ids;
    Rb_CacheModel *m;
    CacheOpts o;
    int nacc, i, rc = TCL_ERROR, nw, lru;

    if (objc < 2 || objc % 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "accesses ?-sizes list? "
		"?-partition {workload size ...}? ?-misses size? "
		"?-limit blocks? ?-policy name?");
	return TCL_ERROR;
    }
    if (Tcl_ListObjGetElements(interp, objv[1], &nacc, &acc) != TCL_OK
	    || ParseCacheOpts(interp, objc, objv, &o) != TCL_OK) {
	return TCL_ERROR;
    }
    lru = strcmp(o.policy, "lru") == 0;
    sizes = Rb_AllocArray(o.nsz + 1, sizeof(Tcl_WideInt));
    for (i = 0; i < o.nsz; i++) {
	if (Tcl_GetWideIntFromObj(interp, o.sz[i], &sizes[i]) != TCL_OK) {
	    free(sizes);
	    return TCL_ERROR;
	}
    }
    Tcl_InitHashTable(&ids, TCL_STRING_KEYS);
    names = Tcl_NewObj();
    Tcl_IncrRefCount(names);
    m = RbCacheModelCreate(o.missSize >= 0 || !lru);
    RbCacheModelLimit(m, o.limit);
    if (FeedAccesses(interp, m, nacc, acc, &ids, names, o.limit)
	    != TCL_OK) {
	goto done;
    }
    nw = RbCacheModelWorkloads(m);
    share = Rb_AllocArray(nw + 1, sizeof(Tcl_WideInt));
    memset(share, 0, (nw + 1) * sizeof(Tcl_WideInt));
    for (i = 0; i < o.npart; i += 2) {
	Tcl_HashEntry *e = Tcl_FindHashEntry(&ids, Tcl_GetString(o.part[i]));

	if (e == NULL) {
	    Rb_SetInterpError(interp, "RUBICON OBSERVER WORKLOAD", "no "
		    "accesses by workload \"%s\" to give a partition",
		    Tcl_GetString(o.part[i]));
	    goto done;
	}
	if (Tcl_GetWideIntFromObj(interp, o.part[i + 1],
		&share[(intptr_t) Tcl_GetHashValue(e)]) != TCL_OK) {
	    goto done;
	}
    }
    out = lru ? CacheResult(m, names, sizes, o.nsz, share, o.npart,
	    o.missSize) : SimResult(interp, m, o.policy, names, sizes, o.nsz,
	    share, o.npart, o.missSize);
    if (out != NULL) {
	Tcl_SetObjResult(interp, out);
	rc = TCL_OK;
    }
  done:
    RbCacheModelFree(m);
    Tcl_DeleteHashTable(&ids);
    Tcl_DecrRefCount(names);
    free(sizes);
    if (share) {
	free(share);
    }
    return rc;
}
