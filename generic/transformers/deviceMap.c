/*
 * deviceMap.c --
 *
 *	DeviceMapTransformer: renames device numbers (or the values of any
 *	integer field) from a dict, e.g. to give two traces of one machine
 *	the same numbering, or to fold several paths to a LUN into one.
 */

#include "transformers.h"

typedef struct DevicePair {
    int64_t from;
    int64_t to;
} DevicePair;

typedef struct DeviceMapState {
    Tcl_Obj *map;		/* -map {from to ...} */
    char *field;		/* -field */
    char *unmapped;		/* -unmapped pass|drop */
    int drop;
    int npairs;
    DevicePair *pairs;		/* sorted by from */
    int fField;
} DeviceMapState;

static const Rb_Option deviceMapOptions[] = {
    {"-map", RB_OPT_OBJ, offsetof(DeviceMapState, map), "",
	"dict of old number -> new number"},
    {"-field", RB_OPT_FIELD, offsetof(DeviceMapState, field), "deviceNo",
	"integer field renumbered"},
    {"-unmapped", RB_OPT_STRING, offsetof(DeviceMapState, unmapped), "pass",
	"records whose number is not in the map: pass (unchanged) or drop"},
    {NULL}
};

/*
 * ComparePairs --
 *	qsort order of map pairs by old number.
 */
static int
ComparePairs(const void *a, const void *b)
{
    const DevicePair *x = a, *y = b;

    return x->from < y->from ? -1 : x->from > y->from;
}

/*
 * DeviceMapInit --
 *	Parses -map into a sorted table (the old one stays if the new map is
 *	bad) and -unmapped.
 */
static int
DeviceMapInit(Rb_Transformer *t, Tcl_Interp *interp)
{
    DeviceMapState *st = t->state;
    Tcl_Obj **objv;
    int objc, i, drop;
    DevicePair *pairs;

    if (RbXfUnmappedPolicy(interp, st->unmapped, &drop) != TCL_OK
	    || Tcl_ListObjGetElements(interp, st->map, &objc, &objv)
		!= TCL_OK) {
	return TCL_ERROR;
    }
    if (objc % 2) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"-map must be a dict of old number -> new number");
    }
    pairs = Rb_AllocArray(objc / 2 + 1, sizeof(DevicePair));
    for (i = 0; i < objc; i += 2) {
	Tcl_WideInt from, to;

	if (Tcl_GetWideIntFromObj(NULL, objv[i], &from) != TCL_OK
		|| Tcl_GetWideIntFromObj(NULL, objv[i + 1], &to) != TCL_OK) {
	    free(pairs);
	    return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		    "-map: \"%s %s\" is not a pair of integers",
		    Tcl_GetString(objv[i]), Tcl_GetString(objv[i + 1]));
	}
	pairs[i / 2].from = from;
	pairs[i / 2].to = to;
    }
    qsort(pairs, objc / 2, sizeof(DevicePair), ComparePairs);
    for (i = 1; i < objc / 2; i++) {
	if (pairs[i].from == pairs[i - 1].from) {
	    long long dup = (long long)pairs[i].from;

	    free(pairs);
	    return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		    "-map: %lld is mapped twice", dup);
	}
    }
    free(st->pairs);
    st->pairs = pairs;
    st->npairs = objc / 2;
    st->drop = drop;
    return TCL_OK;
}

/*
 * DeviceMapStart --
 *	Resolves -field.
 */
static int
DeviceMapStart(Rb_Transformer *t, const Rb_RunInfo *run)
{
    DeviceMapState *st = t->state;

    return RbXfField(t, run->schema, st->field, &st->fField);
}

/*
 * DeviceMapTransform --
 *	Copies the selected records with the field renumbered.
 */
static int
DeviceMapTransform(Rb_Transformer *t, const Rb_Batch *in,
	const uint32_t *sel, int nsel, Rb_Batch *out)
{
    DeviceMapState *st = t->state;
    int j;

    for (j = 0; j < nsel; j++) {
	int i = sel[j], o;
	DevicePair key;
	const DevicePair *hit;

	key.from = in->col[st->fField][i];
	hit = bsearch(&key, st->pairs, st->npairs, sizeof(DevicePair),
		ComparePairs);
	if (hit == NULL && st->drop) {
	    continue;
	}
	o = Rb_BatchCopyRecord(out, in, i);
	if (hit != NULL) {
	    out->col[st->fField][o] = hit->to;
	}
    }
    return TCL_OK;
}

/*
 * DeviceMapFree --
 *	Frees the table.
 */
static void
DeviceMapFree(Rb_Transformer *t)
{
    DeviceMapState *st = t->state;

    free(st->pairs);
    st->pairs = NULL;
}

const Rb_TransformerClass Rb_DeviceMapTransformerClass = {
    "DeviceMapTransformer",
    "renumbers devices (or any integer field) from a dict",
    sizeof(DeviceMapState), deviceMapOptions,
    DeviceMapInit, DeviceMapStart, DeviceMapTransform, NULL, DeviceMapFree,
    1
};
