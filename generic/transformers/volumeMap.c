/*
 * volumeMap.c --
 *
 *	VolumeMapTransformer: physical device and offset to logical volume
 *	and offset, from the volumes' segment tables (linear and striped),
 *	as LVM and device-mapper lay them out.  A segment of a volume covers
 *	[start, start + length) of the volume; its bytes lie on one device
 *	(linear) or are dealt round-robin in stripeSize chunks over N
 *	devices (striped).  Each device area of a segment becomes one extent
 *	of a table sorted by (device, offset), searched per record.
 */

#include "transformers.h"

typedef struct Extent {
    int64_t device;
    int64_t devStart;		/* Byte offset of the area on the device. */
    int64_t devLen;		/* Bytes of the area (segment length / N). */
    int64_t lvNo;
    int64_t lvStart;		/* Volume offset where the segment begins. */
    int64_t stripeSize;		/* Chunk bytes; unused when nstripes is 1. */
    int nstripes;
    int stripe;			/* Which of the N areas this one is. */
} Extent;

typedef struct VolumeMapState {
    Tcl_Obj *map;		/* -map */
    char *unmapped;		/* -unmapped pass|drop */
    char *deviceField;		/* -devicefield, -offsetfield: read */
    char *offsetField;
    char *lvField;		/* -lvfield, -lvoffsetfield: written */
    char *lvOffsetField;
    int drop;
    int nextents;
    Extent *extents;
    int fDev, fOff, fLv, fLvOff;
} VolumeMapState;

static const Rb_Option volumeMapOptions[] = {
    {"-map", RB_OPT_OBJ, offsetof(VolumeMapState, map), "",
	"volumes: {lv N ?name S? segments {{start B length B ?stripeSize B?"
	" devices {{dev offset} ...}} ...}} ..."},
    {"-unmapped", RB_OPT_STRING, offsetof(VolumeMapState, unmapped), "pass",
	"records on no volume: pass (unchanged) or drop"},
    {"-devicefield", RB_OPT_FIELD, offsetof(VolumeMapState, deviceField),
	"deviceNo", "field holding the physical device"},
    {"-offsetfield", RB_OPT_FIELD, offsetof(VolumeMapState, offsetField),
	"devOffset", "field holding the byte offset on the device"},
    {"-lvfield", RB_OPT_FIELD, offsetof(VolumeMapState, lvField), "lvNo",
	"field that receives the volume number"},
    {"-lvoffsetfield", RB_OPT_FIELD, offsetof(VolumeMapState, lvOffsetField),
	"lvOffset", "field that receives the byte offset in the volume"},
    {NULL}
};

/*
 * CompareExtents --
 *	qsort order of extents: by device, then device offset.
 */
static int
CompareExtents(const void *a, const void *b)
{
    const Extent *x = a, *y = b;

    if (x->device != y->device) {
	return x->device < y->device ? -1 : 1;
    }
    if (x->devStart != y->devStart) {
	return x->devStart < y->devStart ? -1 : 1;
    }
    return 0;
}

/*
 * DictValue --
 *	The value under key in dict, into *value (NULL when absent and not
 *	required).
 * Results: TCL_OK, or TCL_ERROR when dict is not a dict or a required
 *	key is missing (the message names it).
 */
static int
DictValue(Tcl_Interp *interp, Tcl_Obj *dict, const char *key, int required,
	Tcl_Obj **value)
{
    Tcl_Obj *k = Tcl_NewStringObj(key, -1);
    int code;

    *value = NULL;
    Tcl_IncrRefCount(k);
    code = Tcl_DictObjGet(NULL, dict, k, value);
    Tcl_DecrRefCount(k);
    if (code != TCL_OK) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"-map: \"%s\" is not a dict (looking for \"%s\")",
		Tcl_GetString(dict), key);
    }
    if (*value == NULL && required) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"-map: missing \"%s\" in \"%s\"", key, Tcl_GetString(dict));
    }
    return code;
}

/*
 * DictCount --
 *	The non-negative integer under key in dict, or def when the key is
 *	absent and def >= 0 (a negative def makes the key required).
 */
static int
DictCount(Tcl_Interp *interp, Tcl_Obj *dict, const char *key, int64_t def,
	int64_t *value)
{
    Tcl_Obj *v;

    if (DictValue(interp, dict, key, def < 0, &v) != TCL_OK) {
	return TCL_ERROR;
    }
    if (v == NULL) {
	*value = def;
	return TCL_OK;
    }
    return RbXfGetCount(interp, v, key, value);
}

/*
 * DictList --
 *	The elements of the list under key in dict (required).
 */
static int
DictList(Tcl_Interp *interp, Tcl_Obj *dict, const char *key, int *objc,
	Tcl_Obj ***objv)
{
    Tcl_Obj *v;

    if (DictValue(interp, dict, key, 1, &v) != TCL_OK) {
	return TCL_ERROR;
    }
    if (Tcl_ListObjGetElements(NULL, v, objc, objv) != TCL_OK) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"-map: \"%s\" of \"%s\" is not a list", key,
		Tcl_GetString(dict));
    }
    return TCL_OK;
}

/*
 * AddSegment --
 *	Appends the extents of one segment of volume lvNo to *ext.
 * Results: TCL_OK, or TCL_ERROR with a message (a striped segment
 *	whose length is not a whole number of stripe rows, a device entry
 *	that is not {device offset}).
 */
static int
AddSegment(Tcl_Interp *interp, int64_t lvNo, Tcl_Obj *seg, Extent **ext,
	int *next)
{
    int64_t start, length, stripeSize, nstripes, devOff;
    Tcl_WideInt dev;
    Tcl_Obj **devv, **pair;
    int devc, npair, k;

    if (DictCount(interp, seg, "start", -1, &start) != TCL_OK
	    || DictCount(interp, seg, "length", -1, &length) != TCL_OK
	    || DictCount(interp, seg, "stripeSize", 0, &stripeSize) != TCL_OK
	    || DictList(interp, seg, "devices", &devc, &devv) != TCL_OK) {
	return TCL_ERROR;
    }
    if (DictCount(interp, seg, "stripes", devc, &nstripes) != TCL_OK) {
	return TCL_ERROR;
    }
    if (devc == 0 || nstripes != devc) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"-map: volume %lld segment at %lld has %d devices for %lld "
		"stripes", (long long)lvNo, (long long)start, devc,
		(long long)nstripes);
    }
    if (devc > 1 && (stripeSize <= 0 || length % (stripeSize * devc))) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"-map: volume %lld segment at %lld: length %lld is not a "
		"whole number of %d stripes of %lld bytes", (long long)lvNo,
		(long long)start, (long long)length, devc,
		(long long)stripeSize);
    }
    for (k = 0; k < devc; k++) {
	Extent *e;

	if (Tcl_ListObjGetElements(interp, devv[k], &npair, &pair) != TCL_OK
		|| npair != 2
		|| Tcl_GetWideIntFromObj(NULL, pair[0], &dev)
		    != TCL_OK
		|| RbXfGetCount(interp, pair[1], "device offset", &devOff)
		    != TCL_OK) {
	    return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		    "-map: volume %lld: bad device entry \"%s\": must be "
		    "{deviceNo offset}", (long long)lvNo,
		    Tcl_GetString(devv[k]));
	}
	*ext = Rb_ReallocArray(*ext, *next + 1, sizeof(Extent));
	e = &(*ext)[(*next)++];
	e->device = dev;
	e->devStart = devOff;
	e->devLen = length / devc;
	e->lvNo = lvNo;
	e->lvStart = start;
	e->stripeSize = stripeSize;
	e->nstripes = devc;
	e->stripe = k;
    }
    return TCL_OK;
}

/*
 * ParseMap --
 *	Builds the sorted extent table from a -map value.
 * Results: TCL_OK with *extPtr (malloc'd) and *nPtr, or TCL_ERROR with a
 *	message; two volumes claiming the same device bytes is an error.
 */
static int
ParseMap(Tcl_Interp *interp, Tcl_Obj *map, Extent **extPtr, int *nPtr)
{
    Tcl_Obj **lvv, **segv;
    int lvc, segc, i, j, next = 0;
    Extent *ext = NULL;
    int64_t lvNo;

    if (map == NULL) {
	*extPtr = NULL;
	*nPtr = 0;
	return TCL_OK;
    }
    if (Tcl_ListObjGetElements(NULL, map, &lvc, &lvv) != TCL_OK) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"-map: \"%s\" is not a list of volumes", Tcl_GetString(map));
    }
    for (i = 0; i < lvc; i++) {
	if (DictCount(interp, lvv[i], "lv", -1, &lvNo) != TCL_OK
		|| DictList(interp, lvv[i], "segments", &segc, &segv)
		    != TCL_OK) {
	    goto fail;
	}
	for (j = 0; j < segc; j++) {
	    if (AddSegment(interp, lvNo, segv[j], &ext, &next) != TCL_OK) {
		goto fail;
	    }
	}
    }
    if (next > 0) {
	qsort(ext, next, sizeof(Extent), CompareExtents);
    }
    for (i = 1; i < next; i++) {
	if (ext[i].device == ext[i - 1].device
		&& ext[i].devStart < ext[i - 1].devStart + ext[i - 1].devLen) {
	    Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		    "-map: volumes %lld and %lld overlap on device %lld at "
		    "offset %lld", (long long)ext[i - 1].lvNo,
		    (long long)ext[i].lvNo, (long long)ext[i].device,
		    (long long)ext[i].devStart);
	    goto fail;
	}
    }
    *extPtr = ext;
    *nPtr = next;
    return TCL_OK;

  fail:
    free(ext);
    return TCL_ERROR;
}

/*
 * VolumeMapInit --
 *	Parses -map and -unmapped (at creation and after configure); the
 *	old table stays in force if the new one is bad.
 */
static int
VolumeMapInit(Rb_Transformer *t, Tcl_Interp *interp)
{
    VolumeMapState *st = t->state;
    Extent *ext = NULL;
    int n = 0, drop;

    if (RbXfUnmappedPolicy(interp, st->unmapped, &drop) != TCL_OK
	    || ParseMap(interp, st->map, &ext, &n) != TCL_OK) {
	return TCL_ERROR;
    }
    free(st->extents);
    st->extents = ext;
    st->nextents = n;
    st->drop = drop;
    return TCL_OK;
}

/*
 * VolumeMapStart --
 *	Resolves the four fields against the run's schema.
 */
static int
VolumeMapStart(Rb_Transformer *t, const Rb_RunInfo *run)
{
    VolumeMapState *st = t->state;

    if (RbXfField(t, run->schema, st->deviceField, &st->fDev) != TCL_OK
	    || RbXfField(t, run->schema, st->offsetField, &st->fOff)
		!= TCL_OK
	    || RbXfField(t, run->schema, st->lvField, &st->fLv) != TCL_OK
	    || RbXfField(t, run->schema, st->lvOffsetField, &st->fLvOff)
		!= TCL_OK) {
	return TCL_ERROR;
    }
    return TCL_OK;
}

/*
 * FindExtent --
 *	The extent holding byte offset of device, by binary search.
 * Results: the extent, or NULL when no volume covers that byte.
 */
static const Extent *
FindExtent(const VolumeMapState *st, int64_t device, int64_t offset)
{
    int lo = 0, hi = st->nextents - 1, found = -1;

    while (lo <= hi) {
	int mid = lo + (hi - lo) / 2;
	const Extent *e = &st->extents[mid];

	if (e->device < device
		|| (e->device == device && e->devStart <= offset)) {
	    found = mid;
	    lo = mid + 1;
	} else {
	    hi = mid - 1;
	}
    }
    if (found < 0) {
	return NULL;
    }
    {
	const Extent *e = &st->extents[found];

	if (e->device != device || offset - e->devStart >= e->devLen) {
	    return NULL;
	}
	return e;
    }
}

/*
 * VolumeOffset --
 *	The volume offset of byte rel of extent e's device area: chunk c of
 *	stripe k is chunk c * N + k of the segment.
 */
static int64_t
VolumeOffset(const Extent *e, int64_t rel)
{
    int64_t chunk, within;

    if (e->nstripes == 1) {
	return e->lvStart + rel;
    }
    chunk = rel / e->stripeSize;
    within = rel % e->stripeSize;
    return e->lvStart + (chunk * e->nstripes + e->stripe) * e->stripeSize
	    + within;
}

/*
 * VolumeMapTransform --
 *	Copies each selected record, setting its volume and volume offset
 *	from the extent holding its first byte.  An I/O that runs past the
 *	end of a stripe chunk keeps its size: the volume offset is where it
 *	starts.
 */
static int
VolumeMapTransform(Rb_Transformer *t, const Rb_Batch *in,
	const uint32_t *sel, int nsel, Rb_Batch *out)
{
    VolumeMapState *st = t->state;
    int j;

    for (j = 0; j < nsel; j++) {
	int i = sel[j], o;
	int64_t dev = in->col[st->fDev][i], off = in->col[st->fOff][i];
	const Extent *e = NULL;

	if (dev != RB_ABSENT && off != RB_ABSENT && off >= 0) {
	    e = FindExtent(st, dev, off);
	}
	if (e == NULL && st->drop) {
	    continue;
	}
	o = Rb_BatchCopyRecord(out, in, i);
	if (e != NULL) {
	    out->col[st->fLv][o] = e->lvNo;
	    out->col[st->fLvOff][o] = VolumeOffset(e, off - e->devStart);
	}
    }
    return TCL_OK;
}

/*
 * VolumeMapFree --
 *	Frees the extent table.
 */
static void
VolumeMapFree(Rb_Transformer *t)
{
    VolumeMapState *st = t->state;

    free(st->extents);
    st->extents = NULL;
}

const Rb_TransformerClass Rb_VolumeMapTransformerClass = {
    "VolumeMapTransformer",
    "sets lvNo and lvOffset from device and offset by linear and striped "
	"volume segment tables",
    sizeof(VolumeMapState), volumeMapOptions,
    VolumeMapInit, VolumeMapStart, VolumeMapTransform, NULL, VolumeMapFree,
    1
};
