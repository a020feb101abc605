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

/*
 * Rb_AttrKindName --
 *	Names a kind as Tcl values and Reporters show it: "scalar",
 *	"vector", "histogram", "percentiles", "series", "table" or "text".
 * Results: the name, a static string; kind must be an Rb_AttrKind.
 * Side effects: none.
 */
const char *
Rb_AttrKindName(Rb_AttrKind kind)
{
    return kindNames[kind];
}

/*
 * Rb_AttrCreate --
 *	Makes an empty Attribute (no columns, no rows) of that name, kind,
 *	unit and help (a NULL unit or help is taken as "").
 * Results: the Attribute; Rb_AttrFree frees it, and Rb_AnalyzerSet takes
 *	it over.
 * Side effects: allocates it and copies the strings.
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
 *	Adds a numeric or text column (isText non-zero) of that name and unit
 *	(NULL: ""), holding 0 or an empty string in each existing row.
 * Results: the column index.
 * Side effects: grows a->cols and allocates the column's values.
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
 *	Appends a row of zeros and empty strings (NULL text, shown as "").
 * Results: the row index.
 * Side effects: increments a->nrows; doubles every column's capacity
 *	when full.
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

/*
 * Rb_AttrSetNum --
 *	Stores v in a numeric column at row.  Nothing is checked: row and
 *	col must exist and col must be numeric.
 * Results: none.
 * Side effects: overwrites the cell.
 */
void
Rb_AttrSetNum(Rb_Attribute *a, int row, int col, double v)
{
    a->cols[col].num[row] = v;
}

/*
 * Rb_AttrSetText --
 *	Stores a copy of s (NULL: "") in a text column at row.  Nothing is
 *	checked: row and col must exist and col must be text.
 * Results: none.
 * Side effects: frees the cell's old text and allocates the copy.
 */
void
Rb_AttrSetText(Rb_Attribute *a, int row, int col, const char *s)
{
    free(a->cols[col].text[row]);
    a->cols[col].text[row] = Rb_Strdup(s);
}

/*
 * Rb_AttrNum --
 *	Reads a numeric cell.  Nothing is checked: row and col must exist
 *	and col must be numeric.
 * Results: the value.
 * Side effects: none.
 */
double
Rb_AttrNum(const Rb_Attribute *a, int row, int col)
{
    return a->cols[col].num[row];
}

/*
 * Rb_AttrColumnIndex --
 *	Finds a column by name (case matters).
 * Results: the index of the first column of that name, or -1.
 * Side effects: none.
 */
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

/*
 * RowEmpty --
 *	Whether row r of a has nothing but zeros and NaNs after its first
 *	(time) column; a text cell counts when it is empty.
 */
static int
RowEmpty(const Rb_Attribute *a, int r)
{
    int c;

    for (c = 1; c < a->ncols; c++) {
	const Rb_Column *col = &a->cols[c];

	if (col->isText ? (col->text[r] != NULL && *col->text[r])
		: (col->num[r] != 0 && !isnan(col->num[r]))) {
	    return 0;
	}
    }
    return 1;
}

/*
 * MoveRow --
 *	Row from of a becomes row to (to <= from); a text cell moves, so
 *	that row from holds none afterwards.
 */
static void
MoveRow(Rb_Attribute *a, int to, int from)
{
    int c;

    for (c = 0; c < a->ncols && to != from; c++) {
	Rb_Column *col = &a->cols[c];

	if (col->isText) {
	    free(col->text[to]);
	    col->text[to] = col->text[from];
	    col->text[from] = NULL;
	} else {
	    col->num[to] = col->num[from];
	}
    }
}

/*
 * RbAttrElideEmptyRuns --
 *	Keeps a series from growing with the idle time of a trace (or with
 *	one corrupt time far from the others): in a series Attribute whose
 *	first column is "time", every run of more than minRun consecutive
 *	empty rows keeps its first and its last row, so that a plot still
 *	draws the zeros, and the rows between are removed.  Reporters say
 *	how many were left out.
 * Results: the number of rows removed.
 * Side effects: compacts a's columns; adds the count to a->elided.
 */
int64_t
RbAttrElideEmptyRuns(Rb_Attribute *a, int minRun)
{
    int r, end, k, out = 0, c;
    int64_t removed = 0;

    if (a->kind != RB_ATTR_SERIES || a->ncols < 2 || a->cols[0].isText
	    || strcmp(a->cols[0].name, "time") != 0 || minRun < 2
	    || a->nrows <= minRun) {
	return 0;
    }
    for (r = 0; r < a->nrows; r = end) {
	/* Rows r .. end-1: one row that is not empty, or a run of empty
	 * ones, of which a long run keeps only its first and last. */
	end = r + 1;
	if (RowEmpty(a, r)) {
	    while (end < a->nrows && RowEmpty(a, end)) {
		end++;
	    }
	}
	for (k = r; k < end; k++) {
	    if (end - r > minRun && k != r && k != end - 1) {
		for (c = 0; c < a->ncols; c++) {
		    if (a->cols[c].isText) {
			free(a->cols[c].text[k]);
			a->cols[c].text[k] = NULL;
		    }
		}
		removed++;
	    } else {
		MoveRow(a, out++, k);
	    }
	}
    }
    a->nrows = out;
    a->elided += removed;
    return removed;
}

/*
 * Rb_AttrFree --
 *	Frees an Attribute that nothing has taken over (NULL: nothing); one
 *	given to Rb_AnalyzerSet belongs to its Flow.
 * Results: none.
 * Side effects: frees a, its columns, their values and texts, and its
 *	strings.
 */
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
 *	Makes a scalar Attribute: one row of one numeric column "value"
 *	holding v, the column's unit that of the Attribute.
 * Results: the Attribute, as from Rb_AttrCreate.
 * Side effects: allocates it.
 */
Rb_Attribute *
Rb_AttrScalar(const char *name, double v, const char *unit, const char *help)
{
    Rb_Attribute *a = Rb_AttrCreate(name, RB_ATTR_SCALAR, unit, help);

    Rb_AttrAddColumn(a, "value", unit, 0);
    Rb_AttrSetNum(a, Rb_AttrAddRow(a), 0, v);
    return a;
}

/*
 * Rb_AttrTextNew --
 *	Makes a text Attribute (RB_ATTR_TEXT, unit "") holding a copy of
 *	text (NULL: "") and no columns.
 * Results: the Attribute, as from Rb_AttrCreate.
 * Side effects: allocates it.
 */
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
 *	Converts an Attribute to a Tcl value: a scalar (one row, first column
 *	numeric) is its number, a text its string, anything else a dict
 *	{kind K unit U columns {..} rows {{..} ..}}.  Integral numbers below
 *	9e15 in magnitude become integers ("42", not "42.0").
 * Results: a new Tcl_Obj with a reference count of 0.
 * Side effects: none on a.
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
    if (a->elided > 0) {
	Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("elided", -1),
		Tcl_NewWideIntObj(a->elided));
    }
    return d;
}
