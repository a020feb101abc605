/*
 * options.c --
 *
 *	Generic "-name value" options: a class describes them in a table of
 *	Rb_Option entries with offsets into its state, and the core parses,
 *	reports and frees them.  No class writes option-parsing code.
 */

#include <string.h>
#include "rbInt.h"

#define SLOT(state, opt, type) ((type *)((char *)(state) + (opt)->offset))

/*
 * FindOption --
 *	Looks name up in two tables (the class's and the core's extras);
 *	unique prefixes are accepted, as Tcl's own options are.
 * Results: the option, or NULL with an error listing the valid names.
 */
static const Rb_Option *
FindOption(Tcl_Interp *interp, const Rb_Option *opts, const Rb_Option *extra,
	const char *name, int *isExtra)
{
    const Rb_Option *tables[2] = {opts, extra}, *found = NULL, *o;
    size_t len = strlen(name);
    int t, matches = 0;
    Tcl_DString known;

    for (t = 0; t < 2; t++) {
	for (o = tables[t]; o && o->name; o++) {
	    if (strcmp(o->name, name) == 0) {
		*isExtra = t;
		return o;
	    }
	    if (len > 1 && strncmp(o->name, name, len) == 0) {
		found = o;
		*isExtra = t;
		matches++;
	    }
	}
    }
    if (matches == 1) {
	return found;
    }
    Tcl_DStringInit(&known);
    for (t = 0; t < 2; t++) {
	for (o = tables[t]; o && o->name; o++) {
	    if (Tcl_DStringLength(&known)) {
		Tcl_DStringAppend(&known, ", ", -1);
	    }
	    Tcl_DStringAppend(&known, o->name, -1);
	}
    }
    Rb_SetInterpError(interp, "RUBICON OPTION UNKNOWN",
	    "%s option \"%s\"; valid options: %s",
	    matches > 1 ? "ambiguous" : "unknown", name,
	    Tcl_DStringLength(&known) ? Tcl_DStringValue(&known) : "none");
    Tcl_DStringFree(&known);
    return NULL;
}

/*
 * SetOption --
 *	Parses value into the option's slot, replacing any previous value.
 * Results: TCL_OK, or TCL_ERROR with a message naming the option.
 */
static int
SetOption(Tcl_Interp *interp, const Rb_Option *o, void *state, Tcl_Obj *value)
{
    const char *s = Tcl_GetString(value);
    Tcl_WideInt w;
    double d;
    int b, n;
    int64_t ns;

    switch (o->type) {
    case RB_OPT_INT:
	if (Tcl_GetWideIntFromObj(NULL, value, &w) != TCL_OK) {
	    return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		    "%s expects an integer, got \"%s\"", o->name, s);
	}
	*SLOT(state, o, int64_t) = w;
	break;
    case RB_OPT_DOUBLE:
	if (Tcl_GetDoubleFromObj(NULL, value, &d) != TCL_OK) {
	    return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		    "%s expects a number, got \"%s\"", o->name, s);
	}
	*SLOT(state, o, double) = d;
	break;
    case RB_OPT_TIME:
	n = Rb_ParseTime(s, &ns);
	if (n == 0 || s[n] != '\0') {
	    return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		    "%s expects a time in seconds or [[[days] hours:] min:] "
		    "seconds, got \"%s\"", o->name, s);
	}
	*SLOT(state, o, int64_t) = ns;
	break;
    case RB_OPT_BOOL:
	if (Tcl_GetBooleanFromObj(NULL, value, &b) != TCL_OK) {
	    return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		    "%s expects a boolean, got \"%s\"", o->name, s);
	}
	*SLOT(state, o, int) = b;
	break;
    case RB_OPT_STRING:
    case RB_OPT_FIELD:
	free(*SLOT(state, o, char *));
	*SLOT(state, o, char *) = Rb_Strdup(s);
	break;
    case RB_OPT_OBJ:
	if (*SLOT(state, o, Tcl_Obj *)) {
	    Tcl_DecrRefCount(*SLOT(state, o, Tcl_Obj *));
	}
	Tcl_IncrRefCount(value);
	*SLOT(state, o, Tcl_Obj *) = value;
	break;
    }
    return TCL_OK;
}

/*
 * Rb_OptionsDefault --
 *	Stores every option's default value into a zeroed state.
 */
int
Rb_OptionsDefault(Tcl_Interp *interp, const Rb_Option *opts, void *state)
{
    const Rb_Option *o;

    for (o = opts; o && o->name; o++) {
	if (o->defValue != NULL) {
	    Tcl_Obj *v = Tcl_NewStringObj(o->defValue, -1);
	    int rc;

	    Tcl_IncrRefCount(v);
	    rc = SetOption(interp, o, state, v);
	    Tcl_DecrRefCount(v);
	    if (rc != TCL_OK) {
		return rc;
	    }
	}
    }
    return TCL_OK;
}

/*
 * Rb_OptionsConfigure --
 *	Applies "-name value" pairs from objv.  Names are looked up in opts,
 *	then in extra (core options such as -output), each with its own
 *	state pointer.
 * Results: TCL_OK or TCL_ERROR with a message.
 */
int
Rb_OptionsConfigure(Tcl_Interp *interp, const Rb_Option *opts, void *state,
	int objc, Tcl_Obj *const objv[], const Rb_Option *extra,
	void *extraState)
{
    int i, isExtra;

    if (objc % 2) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"option \"%s\" has no value", Tcl_GetString(objv[objc - 1]));
    }
    for (i = 0; i < objc; i += 2) {
	const Rb_Option *o = FindOption(interp, opts, extra,
		Tcl_GetString(objv[i]), &isExtra);

	if (o == NULL || SetOption(interp, o, isExtra ? extraState : state,
		objv[i + 1]) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    return TCL_OK;
}

/*
 * OptionValue --
 *	The current value of an option as a Tcl value.
 */
static Tcl_Obj *
OptionValue(const Rb_Option *o, void *state)
{
    char buf[64];

    switch (o->type) {
    case RB_OPT_INT:
	return Tcl_NewWideIntObj(*SLOT(state, o, int64_t));
    case RB_OPT_DOUBLE:
	return Tcl_NewDoubleObj(*SLOT(state, o, double));
    case RB_OPT_TIME:
	Rb_FormatTime(*SLOT(state, o, int64_t), buf, sizeof(buf));
	return Tcl_NewStringObj(buf, -1);
    case RB_OPT_BOOL:
	return Tcl_NewBooleanObj(*SLOT(state, o, int));
    case RB_OPT_STRING:
    case RB_OPT_FIELD: {
	const char *s = *SLOT(state, o, char *);
	return Tcl_NewStringObj(s ? s : "", -1);
    }
    case RB_OPT_OBJ: {
	Tcl_Obj *v = *SLOT(state, o, Tcl_Obj *);
	return v ? v : Tcl_NewObj();
    }
    }
    return Tcl_NewObj();
}

/*
 * Rb_OptionsCget --
 *	Sets the interpreter result to one option's value.
 */
int
Rb_OptionsCget(Tcl_Interp *interp, const Rb_Option *opts, void *state,
	Tcl_Obj *name)
{
    int isExtra;
    const Rb_Option *o = FindOption(interp, opts, NULL, Tcl_GetString(name),
	    &isExtra);

    if (o == NULL) {
	return TCL_ERROR;
    }
    Tcl_SetObjResult(interp, OptionValue(o, state));
    return TCL_OK;
}

/*
 * Rb_OptionsList --
 *	All options and values as a flat "-name value ..." list.
 */
Tcl_Obj *
Rb_OptionsList(const Rb_Option *opts, void *state)
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);
    const Rb_Option *o;

    for (o = opts; o && o->name; o++) {
	Tcl_ListObjAppendElement(NULL, list, Tcl_NewStringObj(o->name, -1));
	Tcl_ListObjAppendElement(NULL, list, OptionValue(o, state));
    }
    return list;
}

/*
 * Rb_OptionsFree --
 *	Releases string and object option values held in state.
 */
void
Rb_OptionsFree(const Rb_Option *opts, void *state)
{
    const Rb_Option *o;

    for (o = opts; o && o->name; o++) {
	if (o->type == RB_OPT_STRING || o->type == RB_OPT_FIELD) {
	    free(*SLOT(state, o, char *));
	    *SLOT(state, o, char *) = NULL;
	} else if (o->type == RB_OPT_OBJ && *SLOT(state, o, Tcl_Obj *)) {
	    Tcl_DecrRefCount(*SLOT(state, o, Tcl_Obj *));
	    *SLOT(state, o, Tcl_Obj *) = NULL;
	}
    }
}

/*
 * Rb_OptionsSplit --
 *	Where the leading "-opt value" pairs of objv end: the index of the
 *	first argument that is not an option name (does not start with '-'
 *	followed by a letter).
 */
int
Rb_OptionsSplit(int objc, Tcl_Obj *const objv[])
{
    int i = 0;

    while (i + 1 < objc) {
	const char *s = Tcl_GetString(objv[i]);

	if (s[0] != '-' || !((s[1] >= 'a' && s[1] <= 'z')
		|| (s[1] >= 'A' && s[1] <= 'Z'))) {
	    break;
	}
	i += 2;
    }
    return i;
}
