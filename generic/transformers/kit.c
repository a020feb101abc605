/*
 * kit.c --
 *
 *	Registers the built-in Transformer classes, and the helpers the
 *	classes of this folder share.
 */

#include <stdlib.h>
#include "core/rbInt.h"
#include "transformers.h"

static const Rb_TransformerClass *const kitClasses[] = {
    &Rb_VolumeMapTransformerClass,
    &Rb_CoalesceTransformerClass,
    &Rb_DeviceMapTransformerClass,
    &Rb_TimeTransformerClass,
    &Rb_SampleTransformerClass,
    &Rb_SplitTransformerClass,
};

/*
 * RbTransformerClassBuiltin --
 *	Whether cls is a built-in class (whose hooks keep to their own
 *	state: parallel.c).
 */
int
RbTransformerClassBuiltin(const Rb_TransformerClass *cls)
{
    size_t i;

    for (i = 0; i < sizeof(kitClasses) / sizeof(kitClasses[0]); i++) {
	if (cls == kitClasses[i]) {
	    return 1;
	}
    }
    return 0;
}

/*
 * RbTransformerKitInit --
 *	Registers every built-in Transformer class with interp.
 * Results: TCL_OK, or TCL_ERROR from the first registration that fails.
 * Side effects: creates the classes' Tcl commands.
 */
int
RbTransformerKitInit(Tcl_Interp *interp)
{
    size_t i;

    for (i = 0; i < sizeof(kitClasses) / sizeof(kitClasses[0]); i++) {
	if (Rb_RegisterTransformer(interp, kitClasses[i]) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    return TCL_OK;
}

/*
 * RbXfField --
 *	Looks a field up by name in the schema of the run.
 * Results: TCL_OK with *index set, or TCL_ERROR with t->err naming the
 *	field and the known ones.
 */
int
RbXfField(Rb_Transformer *t, const Rb_Schema *schema, const char *name,
	int *index)
{
    char *known;

    *index = Rb_SchemaFieldIndex(schema, name);
    if (*index >= 0) {
	return TCL_OK;
    }
    known = Rb_SchemaFieldList(schema);
    Rb_SetError(&t->err, "RUBICON TRANSFORMER FIELD",
	    "unknown field \"%s\"; known fields: %s", name, known);
    free(known);
    return TCL_ERROR;
}

/*
 * RbXfUnmappedPolicy --
 *	Parses what to do with a record a map does not cover.
 * Results: TCL_OK with *drop 0 (pass it on unchanged) or 1 (drop it);
 *	TCL_ERROR with a message in interp.
 */
int
RbXfUnmappedPolicy(Tcl_Interp *interp, const char *value, int *drop)
{
    if (value == NULL || strcmp(value, "pass") == 0) {
	*drop = 0;
    } else if (strcmp(value, "drop") == 0) {
	*drop = 1;
    } else {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"bad -unmapped \"%s\": must be pass or drop", value);
    }
    return TCL_OK;
}

/*
 * RbXfGetCount --
 *	A Tcl value as a non-negative 64-bit integer.
 * Results: TCL_OK with *value set, or TCL_ERROR with a message saying
 *	which value was bad.
 */
int
RbXfGetCount(Tcl_Interp *interp, Tcl_Obj *obj, const char *what,
	int64_t *value)
{
    Tcl_WideInt w;

    if (Tcl_GetWideIntFromObj(NULL, obj, &w) != TCL_OK || w < 0) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"bad %s \"%s\": must be a non-negative integer", what,
		Tcl_GetString(obj));
    }
    *value = (int64_t)w;
    return TCL_OK;
}
