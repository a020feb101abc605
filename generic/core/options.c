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
 * One option value, of whichever type its Rb_Option says.
 */
typedef union OptValue {
    int64_t i;			/* RB_OPT_INT, RB_OPT_TIME */
    double d;			/* RB_OPT_DOUBLE */
    int b;			/* RB_OPT_BOOL */
    char *s;			/* RB_OPT_STRING, RB_OPT_FIELD (malloc'd) */
    Tcl_Obj *obj;		/* RB_OPT_OBJ (one reference held) */
} OptValue;

/*
 * The value an option slot held before a configure changed it, so that a
 * refused configure can put it back.
 */
typedef struct OptUndo {
    const Rb_Option *opt;
    void *state;		/* The state the slot is in. */
    OptValue old;
} OptUndo;

/*
 * ParseOption --
 *	Converts value to the option's type, checking it.
 * Results: TCL_OK with *v set (a string copied, an object with a
 *	reference for the caller), or TCL_ERROR with a message naming the
 *	option and *v untouched.
 */
static int
ParseOption(Tcl_Interp *interp, const Rb_Option *o, Tcl_Obj *value,
	OptValue *v)
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
	v->i = w;
	break;
    case RB_OPT_DOUBLE:
	if (Tcl_GetDoubleFromObj(NULL, value, &d) != TCL_OK) {
	    return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		    "%s expects a number, got \"%s\"", o->name, s);
	}
	v->d = d;
	break;
    case RB_OPT_TIME:
	n = Rb_ParseTime(s, &ns);
	if (n == 0 || s[n] != '\0') {
	    return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		    "%s expects a time in seconds or [[[days] hours:] min:] "
		    "seconds, got \"%s\"", o->name, s);
	}
	v->i = ns;
	break;
    case RB_OPT_BOOL:
	if (Tcl_GetBooleanFromObj(NULL, value, &b) != TCL_OK) {
	    return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		    "%s expects a boolean, got \"%s\"", o->name, s);
	}
	v->b = b;
	break;
    case RB_OPT_STRING:
    case RB_OPT_FIELD:
	v->s = Rb_Strdup(s);
	break;
    case RB_OPT_OBJ:
	Tcl_IncrRefCount(value);
	v->obj = value;
	break;
    }
    return TCL_OK;
}

/*
 * LoadOption, StoreOption --
 *	Read and write an option's slot in state.  Storing does not free
 *	what the slot held: the caller owns both values.
 */
static OptValue
LoadOption(const Rb_Option *o, void *state)
{
    OptValue v;

    memset(&v, 0, sizeof(v));
    switch (o->type) {
    case RB_OPT_INT:
    case RB_OPT_TIME:
	v.i = *SLOT(state, o, int64_t);
	break;
    case RB_OPT_DOUBLE:
	v.d = *SLOT(state, o, double);
	break;
    case RB_OPT_BOOL:
	v.b = *SLOT(state, o, int);
	break;
    case RB_OPT_STRING:
    case RB_OPT_FIELD:
	v.s = *SLOT(state, o, char *);
	break;
    case RB_OPT_OBJ:
	v.obj = *SLOT(state, o, Tcl_Obj *);
	break;
    }
    return v;
}

static void
StoreOption(const Rb_Option *o, void *state, OptValue v)
{
    switch (o->type) {
    case RB_OPT_INT:
    case RB_OPT_TIME:
	*SLOT(state, o, int64_t) = v.i;
	break;
    case RB_OPT_DOUBLE:
	*SLOT(state, o, double) = v.d;
	break;
    case RB_OPT_BOOL:
	*SLOT(state, o, int) = v.b;
	break;
    case RB_OPT_STRING:
    case RB_OPT_FIELD:
	*SLOT(state, o, char *) = v.s;
	break;
    case RB_OPT_OBJ:
	*SLOT(state, o, Tcl_Obj *) = v.obj;
	break;
    }
}

/*
 * FreeOptionValue --
 *	Releases what a value of the option's type holds (a string or an
 *	object reference); nothing for numbers.
 */
static void
FreeOptionValue(const Rb_Option *o, OptValue v)
{
    if (o->type == RB_OPT_STRING || o->type == RB_OPT_FIELD) {
	free(v.s);
    } else if (o->type == RB_OPT_OBJ && v.obj != NULL) {
	Tcl_DecrRefCount(v.obj);
    }
}

/*
 * SetOption --
 *	Parses value into the option's slot, replacing (and freeing) any
 *	previous value.
 * Results: TCL_OK, or TCL_ERROR with a message naming the option and the
 *	slot unchanged.
 */
static int
SetOption(Tcl_Interp *interp, const Rb_Option *o, void *state, Tcl_Obj *value)
{
    OptValue v;

    if (ParseOption(interp, o, value, &v) != TCL_OK) {
	return TCL_ERROR;
    }
    FreeOptionValue(o, LoadOption(o, state));
    StoreOption(o, state, v);
    return TCL_OK;
}

/*
 * RbOptionsDefault --
 *	Stores every option's default value into a zeroed state.
 */
int
RbOptionsDefault(Tcl_Interp *interp, const Rb_Option *opts, void *state)
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
 * RbOptionsConfigure --
 *	Applies "-name value" pairs from objv, all or none, as Tk's
 *	configure does.  Names are looked up in opts, then in extra (core
 *	options such as -output), each with its own state pointer.  With
 *	every value stored, check (the class's init hook, which validates
 *	the options together and derives state from them) is called when
 *	not NULL.  If a name is unknown, a value does not parse or check
 *	refuses, every slot touched gets its previous value back and check
 *	is called once more, so that state derived from the options
 *	matches the restored values; the first error is kept.
 * Results: TCL_OK, or TCL_ERROR with a message and every option as it
 *	was before the call.
 * Side effects: previous string and object values are freed on success,
 *	the new ones on failure.
 */
int
RbOptionsConfigure(Tcl_Interp *interp, const Rb_Option *opts, void *state,
	int objc, Tcl_Obj *const objv[], const Rb_Option *extra,
	void *extraState, Rb_OptionsCheckProc *check, void *checkData)
{
    OptUndo *undo;
    int i, n = 0, isExtra, checked = 0, rc = TCL_OK;

    if (objc % 2) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"option \"%s\" has no value", Tcl_GetString(objv[objc - 1]));
    }
    undo = Rb_AllocArray(objc / 2 + 1, sizeof(OptUndo));
    for (i = 0; i < objc; i += 2) {
	const Rb_Option *o = FindOption(interp, opts, extra,
		Tcl_GetString(objv[i]), &isExtra);
	OptValue v;

	if (o == NULL || ParseOption(interp, o, objv[i + 1], &v) != TCL_OK) {
	    rc = TCL_ERROR;
	    break;
	}
	undo[n].opt = o;
	undo[n].state = isExtra ? extraState : state;
	undo[n].old = LoadOption(o, undo[n].state);
	StoreOption(o, undo[n].state, v);
	n++;
    }
    if (rc == TCL_OK && check != NULL) {
	checked = 1;
	rc = check(checkData, interp);
    }
    if (rc == TCL_OK) {
	for (i = 0; i < n; i++) {
	    FreeOptionValue(undo[i].opt, undo[i].old);
	}
    } else {
	Tcl_InterpState refusal = Tcl_SaveInterpState(interp, rc);

	for (i = n - 1; i >= 0; i--) {
	    FreeOptionValue(undo[i].opt, LoadOption(undo[i].opt,
		    undo[i].state));
	    StoreOption(undo[i].opt, undo[i].state, undo[i].old);
	}
	if (checked) {
	    (void)check(checkData, interp);
	}
	rc = Tcl_RestoreInterpState(interp, refusal);
    }
    free(undo);
    return rc;
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
 * RbOptionsCget --
 *	Sets the interpreter result to one option's value.
 */
int
RbOptionsCget(Tcl_Interp *interp, const Rb_Option *opts, void *state,
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
 * RbOptionsCommand --
 *	The cget and configure subcommands that every object with options
 *	shares (Analyzers, Reporters, Transformers): "cget -name" and
 *	"configure -name" give one value, "configure" every option with its
 *	value (the class's, then the core's extra ones), and "configure
 *	-name value ..." applies all or none (RbOptionsConfigure, with
 *	check).  objv is the whole command, objv[1] the subcommand.
 * Results: TCL_OK with the value or values, or TCL_ERROR.
 * Side effects: a configure with values changes the options.
 */
int
RbOptionsCommand(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[],
	const Rb_Option *opts, void *state, const Rb_Option *extra,
	void *extraState, Rb_OptionsCheckProc *check, void *checkData)
{
    int isCget = strcmp(Tcl_GetString(objv[1]), "cget") == 0, isExtra;
    const Rb_Option *o;
    Tcl_Obj *list;

    if (isCget && objc != 3) {
	Tcl_WrongNumArgs(interp, 2, objv, "option");
	return TCL_ERROR;
    }
    if (objc == 3) {
	o = FindOption(interp, opts, extra, Tcl_GetString(objv[2]), &isExtra);
	if (o == NULL) {
	    return TCL_ERROR;
	}
	Tcl_SetObjResult(interp, OptionValue(o, isExtra ? extraState : state));
	return TCL_OK;
    }
    if (objc == 2) {
	list = RbOptionsList(opts, state);
	Tcl_ListObjAppendList(NULL, list, RbOptionsList(extra, extraState));
	Tcl_SetObjResult(interp, list);
	return TCL_OK;
    }
    return RbOptionsConfigure(interp, opts, state, objc - 2, objv + 2, extra,
	    extraState, check, checkData);
}

/*
 * RbOptionsList --
 *	All options and values as a flat "-name value ..." list.
 */
Tcl_Obj *
RbOptionsList(const Rb_Option *opts, void *state)
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
 * RbOptionsFree --
 *	Releases string and object option values held in state.
 */
void
RbOptionsFree(const Rb_Option *opts, void *state)
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
 * RbOptionsSplit --
 *	Where the leading "-opt value" pairs of objv end: the index of the
 *	first argument that is not an option name (does not start with '-'
 *	followed by a letter).
 */
int
RbOptionsSplit(int objc, Tcl_Obj *const objv[])
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
