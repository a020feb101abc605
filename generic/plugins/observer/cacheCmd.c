/*
 * cacheCmd.c --
 *
 *	observer::cache: the buffer-cache model from Tcl.
 *
 *	  observer::cache ACCESSES ?-sizes LIST? ?-partition {W SIZE ...}?
 *			?-misses SIZE? ?-limit N?
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
 * RbObsCacheCmd --
 *	Runs the model over the accesses and answers as described above.
 */
int
RbObsCacheCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const opts[] = {"-sizes", "-partition", "-misses",
	"-limit", NULL};
    Tcl_Obj **acc, **sz, **part = NULL, *out, *names;
    Tcl_WideInt *sizes = NULL, missSize = -1, *share = NULL;
    Tcl_WideInt limit = 10000000;
    Tcl_HashTable ids;
    Rb_CacheModel *m;
    int nacc, nsz = 0, npart = 0, i, idx, rc = TCL_ERROR, nw;

    if (objc < 2 || objc % 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "accesses ?-sizes list? "
		"?-partition {workload size ...}? ?-misses size? "
		"?-limit blocks?");
	return TCL_ERROR;
    }
    if (Tcl_ListObjGetElements(interp, objv[1], &nacc, &acc) != TCL_OK) {
	return TCL_ERROR;
    }
    for (i = 2; i < objc; i += 2) {
	if (Tcl_GetIndexFromObj(interp, objv[i], opts, "option", 0, &idx)
		!= TCL_OK) {
	    return TCL_ERROR;
	}
	if (idx == 0 && Tcl_ListObjGetElements(interp, objv[i + 1], &nsz, &sz)
		!= TCL_OK) {
	    return TCL_ERROR;
	}
	if (idx == 1 && (Tcl_ListObjGetElements(interp, objv[i + 1], &npart,
		&part) != TCL_OK || npart % 2)) {
	    return npart % 2 ? Rb_SetInterpError(interp,
		    "RUBICON OBSERVER USAGE", "-partition takes workload "
		    "size pairs") : TCL_ERROR;
	}
	if (idx == 2 && (Tcl_GetWideIntFromObj(interp, objv[i + 1], &missSize)
		!= TCL_OK)) {
	    return TCL_ERROR;
	}
	if (idx == 3 && (Tcl_GetWideIntFromObj(interp, objv[i + 1], &limit)
		!= TCL_OK || limit <= 0)) {
	    return limit <= 0 ? Rb_SetInterpError(interp,
		    "RUBICON OBSERVER USAGE", "-limit must be positive")
		    : TCL_ERROR;
	}
    }
    sizes = Rb_AllocArray(nsz + 1, sizeof(Tcl_WideInt));
    for (i = 0; i < nsz; i++) {
	if (Tcl_GetWideIntFromObj(interp, sz[i], &sizes[i]) != TCL_OK) {
	    free(sizes);
	    return TCL_ERROR;
	}
    }
    Tcl_InitHashTable(&ids, TCL_STRING_KEYS);
    names = Tcl_NewObj();
    Tcl_IncrRefCount(names);
    m = RbCacheModelCreate(missSize >= 0);
    RbCacheModelLimit(m, limit);
    for (i = 0; i < nacc; i++) {
	Tcl_Obj **pair, *wname;
	int np, isNew;
	Tcl_WideInt block;
	Tcl_HashEntry *e;

	if (Tcl_ListObjGetElements(interp, acc[i], &np, &pair) != TCL_OK) {
	    goto done;
	}
	if (np != 1 && np != 2) {
	    Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE", "access %d "
		    "is \"%s\": expected block or {workload block}", i + 1,
		    Tcl_GetString(acc[i]));
	    goto done;
	}
	if (Tcl_GetWideIntFromObj(interp, pair[np - 1], &block) != TCL_OK) {
	    goto done;
	}
	wname = np == 2 ? pair[0] : Tcl_NewStringObj("all", -1);
	e = Tcl_CreateHashEntry(&ids, Tcl_GetString(wname), &isNew);
	if (isNew) {
	    Tcl_SetHashValue(e, (ClientData) (intptr_t) ids.numEntries - 1);
	    Tcl_ListObjAppendElement(NULL, names, wname);
	} else if (np == 1) {
	    Tcl_DecrRefCount(wname);
	}
	if (!RbCacheModelAccess(m, (int) (intptr_t) Tcl_GetHashValue(e),
		block)) {
	    Rb_SetInterpError(interp, "RUBICON LIMIT DISTINCT",
		    "observer::cache: more than -limit %" PRId64 " blocks "
		    "held (shared and per workload) at access %d (raise "
		    "-limit)", (int64_t) limit, i + 1);
	    goto done;
	}
    }
    nw = RbCacheModelWorkloads(m);
    share = Rb_AllocArray(nw + 1, sizeof(Tcl_WideInt));
    memset(share, 0, (nw + 1) * sizeof(Tcl_WideInt));
    for (i = 0; i < npart; i += 2) {
	Tcl_HashEntry *e = Tcl_FindHashEntry(&ids, Tcl_GetString(part[i]));

	if (e == NULL) {
	    Rb_SetInterpError(interp, "RUBICON OBSERVER WORKLOAD", "no "
		    "accesses by workload \"%s\" to give a partition",
		    Tcl_GetString(part[i]));
	    goto done;
	}
	if (Tcl_GetWideIntFromObj(interp, part[i + 1],
		&share[(intptr_t) Tcl_GetHashValue(e)]) != TCL_OK) {
	    goto done;
	}
    }
    out = CacheResult(m, names, sizes, nsz, share, npart, missSize);
    Tcl_SetObjResult(interp, out);
    rc = TCL_OK;
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
