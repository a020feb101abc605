/*
 * attr.c --
 *
 *	Attributes: typed results stored as tables of named columns, and
 *	their conversion to Tcl values.
 */

#include <math.h>
#include <string.h>
#include "rbInt.h"

static const char *const kindNames[] = {
    "scalar", "vector", "histogram", "percentiles", "series", "table", "text",
    "heatmap"
};

const char *
Rb_AttrKindName(Rb_AttrKind kind)
{
    return kindNames[kind];
}

/*
 * Rb_AttrCreate --
 *	Returns an empty Attribute (no columns, no rows).
 */
Rb_Attribute *
Rb_AttrCreate(const char *name, Rb_AttrKind kind, const char *unit,
	const char *help)
{
    Rb_Attribute *a = Rb_Alloc(sizeof(*a));

    a->name = Rb_Strdup(name);
    a->kind = kind;
    a->unit = Rb_Strdup(unit ? unit : "");
    a->help = Rb_Strdup(help ? help : "");
    return a;
}

/*
 * Rb_AttrAddColumn --
 *	Adds a numeric or text column, filled with 0 / "" for existing rows.
 * Results: the column index.
 */
int
Rb_AttrAddColumn(Rb_Attribute *a, const char *name, const char *unit,
	int isText)
{
    Rb_Column *c;

    a->cols = Rb_ReallocArray(a->cols, a->ncols + 1, sizeof(Rb_Column));
    c = &a->cols[a->ncols];
    memset(c, 0, sizeof(*c));
    c->name = Rb_Strdup(name);
    c->unit = Rb_Strdup(unit ? unit : "");
    c->isText = isText;
    if (a->rowCap > 0) {
	if (isText) {
	    c->text = Rb_AllocArray(a->rowCap, sizeof(char *));
	} else {
	    c->num = Rb_AllocArray(a->rowCap, sizeof(double));
	}
    }
    return a->ncols++;
}

/*
 * Rb_AttrAddRow --
 *	Appends a row of zeros and empty strings.
 * Results: the row index.
 */
int
Rb_AttrAddRow(Rb_Attribute *a)
{
    int c;

    if (a->nrows == a->rowCap) {
	int cap = a->rowCap ? 2 * a->rowCap : 16;

	for (c = 0; c < a->ncols; c++) {
	    Rb_Column *col = &a->cols[c];

	    if (col->isText) {
		col->text = Rb_ReallocArray(col->text, cap, sizeof(char *));
		memset(col->text + a->rowCap, 0,
			(cap - a->rowCap) * sizeof(char *));
	    } else {
		col->num = Rb_ReallocArray(col->num, cap, sizeof(double));
		memset(col->num + a->rowCap, 0,
			(cap - a->rowCap) * sizeof(double));
	    }
	}
	a->rowCap = cap;
    }
    return a->nrows++;
}

void
Rb_AttrSetNum(Rb_Attribute *a, int row, int col, double v)
{
    a->cols[col].num[row] = v;
}

void
Rb_AttrSetText(Rb_Attribute *a, int row, int col, const char *s)
{
    free(a->cols[col].text[row]);
    a->cols[col].text[row] = Rb_Strdup(s);
}

double
Rb_AttrNum(const Rb_Attribute *a, int row, int col)
{
    return a->cols[col].num[row];
}

int
Rb_AttrColumnIndex(const Rb_Attribute *a, const char *name)
{
    int c;

    for (c = 0; c < a->ncols; c++) {
	if (strcmp(a->cols[c].name, name) == 0) {
	    return c;
	}
    }
    return -1;
}

void
Rb_AttrFree(Rb_Attribute *a)
{
    int c, r;

    if (a == NULL) {
	return;
    }
    for (c = 0; c < a->ncols; c++) {
	if (a->cols[c].isText) {
	    for (r = 0; r < a->nrows; r++) {
		free(a->cols[c].text[r]);
	    }
	    free(a->cols[c].text);
	} else {
	    free(a->cols[c].num);
	}
	free(a->cols[c].name);
	free(a->cols[c].unit);
    }
    free(a->cols);
    free(a->name);
    free(a->unit);
    free(a->help);
    free(a->text);
    free(a);
}

/*
 * Rb_AttrScalar --
 *	A one-row Attribute with column "value".
 */
Rb_Attribute *
Rb_AttrScalar(const char *name, double v, const char *unit, const char *help)
{
    Rb_Attribute *a = Rb_AttrCreate(name, RB_ATTR_SCALAR, unit, help);

    Rb_AttrAddColumn(a, "value", unit, 0);
    Rb_AttrSetNum(a, Rb_AttrAddRow(a), 0, v);
    return a;
}

Rb_Attribute *
Rb_AttrTextNew(const char *name, const char *text, const char *help)
{
    Rb_Attribute *a = Rb_AttrCreate(name, RB_ATTR_TEXT, "", help);

    a->text = Rb_Strdup(text);
    return a;
}

/*
 * NumObj --
 *	A double as a Tcl value: integral values become wide integers so that
 *	counts read back as "42", not "42.0".
 */
static Tcl_Obj *
NumObj(double v)
{
    if (isfinite(v) && v == floor(v) && fabs(v) < 9.0e15) {
	return Tcl_NewWideIntObj((Tcl_WideInt)v);
    }
    return Tcl_NewDoubleObj(v);
}

/*
 * Rb_AttrToObj --
 *	Tcl value of an Attribute: a scalar is its number, a text its string,
 *	anything else a dict {kind K unit U columns {..} rows {{..} ..}}.
 */
Tcl_Obj *
Rb_AttrToObj(const Rb_Attribute *a)
{
    Tcl_Obj *d, *cols, *rows, *row;
    int c, r;

    if (a->kind == RB_ATTR_SCALAR && a->nrows == 1 && a->ncols >= 1
	    && !a->cols[0].isText) {
	return NumObj(a->cols[0].num[0]);
    }
    if (a->kind == RB_ATTR_TEXT) {
	return Tcl_NewStringObj(a->text ? a->text : "", -1);
    }
    d = Tcl_NewDictObj();
    cols = Tcl_NewListObj(0, NULL);
    rows = Tcl_NewListObj(0, NULL);
    for (c = 0; c < a->ncols; c++) {
	Tcl_ListObjAppendElement(NULL, cols,
		Tcl_NewStringObj(a->cols[c].name, -1));
    }
    for (r = 0; r < a->nrows; r++) {
	row = Tcl_NewListObj(0, NULL);
	for (c = 0; c < a->ncols; c++) {
	    Tcl_ListObjAppendElement(NULL, row, a->cols[c].isText
		    ? Tcl_NewStringObj(a->cols[c].text[r]
			    ? a->cols[c].text[r] : "", -1)
		    : NumObj(a->cols[c].num[r]));
	}
	Tcl_ListObjAppendElement(NULL, rows, row);
    }
    Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("kind", -1),
	    Tcl_NewStringObj(kindNames[a->kind], -1));
    Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("unit", -1),
	    Tcl_NewStringObj(a->unit, -1));
    Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("columns", -1), cols);
    Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("rows", -1), rows);
    return d;
}
