/*
 * reporterSpreadsheet.c --
 *
 *	ReporterSpreadsheet: an Excel .xlsx workbook through libxlsxwriter,
 *	compiled only where configure found it (HAVE_XLSXWRITER).  A "Run"
 *	sheet, then a sheet per Flow: the Flow's name, a table of its
 *	scalars, and a block per other Attribute (a title row, a header row
 *	of "column (unit)", its rows).  Numbers are numeric cells, so a
 *	spreadsheet can compute with them.
 */

#ifdef HAVE_XLSXWRITER

#include <ctype.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include "util.h"
#include "core/glue.h"
#include "xlsxGlue.h"

/* libxlsxwriter, once loaded (xlsxGlue.h). */
static const RbXlsxGlue *xl;

/* Excel's sheet names: at most 31 characters. */
#define SHEET_NAME_MAX 31

/*
 * One workbook being written: the cell formats and the sheet names
 * taken (Excel compares them without regard to case).
 */
typedef struct Book {
    lxw_workbook *wb;
    lxw_format *bold;
    Tcl_HashTable sheets;
} Book;

/*
 * SheetName --
 *	A unique, valid sheet name for a Flow: its name made file-safe
 *	(which also removes the []:*?/\ Excel forbids), cut to leave room
 *	for a "-N" suffix that makes repeats unique.
 * Results: the name, in out (initialized here).
 */
static const char *
SheetName(Book *book, const char *flow, Tcl_DString *out)
{
    Tcl_DString lower;
    char suffix[16];
    int isNew, len, n = 1;
    char *p;

    Tcl_DStringInit(out);
    RbReportSanitize(flow, out);
    if (Tcl_DStringLength(out) > SHEET_NAME_MAX - 4) {
	Tcl_DStringSetLength(out, SHEET_NAME_MAX - 4);
    }
    len = Tcl_DStringLength(out);
    for (;;) {
	Tcl_DStringInit(&lower);
	Tcl_DStringAppend(&lower, Tcl_DStringValue(out), -1);
	for (p = Tcl_DStringValue(&lower); *p; p++) {
	    *p = (char) tolower((unsigned char) *p);
	}
	Tcl_CreateHashEntry(&book->sheets, Tcl_DStringValue(&lower), &isNew);
	Tcl_DStringFree(&lower);
	if (isNew) {
	    return Tcl_DStringValue(out);
	}
	Tcl_DStringSetLength(out, len);
	snprintf(suffix, sizeof(suffix), "-%d", ++n);
	Tcl_DStringAppend(out, suffix, -1);
    }
}

/*
 * PutNum --
 *	A number as a numeric cell; NaN and infinities, which a workbook
 *	cannot hold as numbers, as the text RbReportNum gives them.
 */
static void
PutNum(lxw_worksheet *ws, lxw_row_t row, lxw_col_t col, double v)
{
    char buf[RB_NUMBUF];

    if (isfinite(v)) {
	xl->worksheet_write_number(ws, row, col, v, NULL);
    } else {
	xl->worksheet_write_string(ws, row, col, RbReportNum(v, buf), NULL);
    }
}

/*
 * PutRow --
 *	Writes up to four strings (NULL: skip) across a row, in format f.
 */
static void
PutRow(lxw_worksheet *ws, lxw_row_t row, lxw_format *f, const char *a,
	const char *b, const char *c, const char *d)
{
    const char *cells[4] = {a, b, c, d};
    int i;

    for (i = 0; i < 4; i++) {
	if (cells[i] != NULL && *cells[i] != '\0') {
	    xl->worksheet_write_string(ws, row, i, cells[i], f);
	}
    }
}

/*
 * WriteRunSheet --
 *	The "Run" sheet: what was read, from where, and whether the run
 *	finished.
 */
static void
WriteRunSheet(Book *book, const Rb_RunInfo *run)
{
    lxw_worksheet *ws = xl->workbook_add_worksheet(book->wb, "Run");
    Tcl_DictSearch search;
    Tcl_Obj *key, *value;
    Tcl_WideInt count;
    lxw_row_t row = 0;
    int done, isNew;

    /* "History" is reserved by Excel; "Run" is this sheet. */
    Tcl_CreateHashEntry(&book->sheets, "history", &isNew);
    Tcl_CreateHashEntry(&book->sheets, "run", &isNew);
    xl->worksheet_set_column(ws, 0, 0, 18, NULL);
    xl->worksheet_set_column(ws, 1, 1, 40, NULL);
    PutRow(ws, row++, book->bold, "Rubicon " RUBICON_VERSION " report",
	    NULL, NULL, NULL);
    PutRow(ws, row++, book->bold, "traces", NULL, NULL, NULL);
    PutRow(ws, row - 1, NULL, NULL, run->traces, NULL, NULL);
    PutRow(ws, row++, book->bold, "config", NULL, NULL, NULL);
    PutRow(ws, row - 1, NULL, NULL, run->config, NULL, NULL);
    PutRow(ws, row, book->bold, "records", NULL, NULL, NULL);
    xl->worksheet_write_number(ws, row++, 1, (double) run->records, NULL);
    PutRow(ws, row, book->bold, "skipped", NULL, NULL, NULL);
    xl->worksheet_write_number(ws, row++, 1, (double) run->skipped, NULL);
    if (run->skipCounts != NULL && Tcl_DictObjFirst(NULL, run->skipCounts,
	    &search, &key, &value, &done) == TCL_OK) {
	for (; !done; Tcl_DictObjNext(&search, &key, &value, &done)) {
	    PutRow(ws, row, NULL, "skipped:", Tcl_GetString(key), NULL, NULL);
	    if (Tcl_GetWideIntFromObj(NULL, value, &count) == TCL_OK) {
		xl->worksheet_write_number(ws, row, 2, (double) count, NULL);
	    }
	    row++;
	}
	Tcl_DictObjDone(&search);
    }
    if (run->records > 0 && run->firstTime <= run->lastTime) {
	PutRow(ws, row, book->bold, "first time (s)", NULL, NULL, NULL);
	xl->worksheet_write_number(ws, row++, 1, run->firstTime / 1e9, NULL);
	PutRow(ws, row, book->bold, "last time (s)", NULL, NULL, NULL);
	xl->worksheet_write_number(ws, row++, 1, run->lastTime / 1e9, NULL);
    }
    PutRow(ws, row++, book->bold, "partial", run->partial ? "yes" : "no",
	    NULL, NULL);
}

/*
 * WriteBlock --
 *	A non-scalar Attribute from row on: a title row (name, kind, unit,
 *	help), a header row, then its rows; a text Attribute's string goes
 *	in the cell under its title.  Rows past Excel's last are left out
 *	and counted in a final row.
 * Results: the first row after the block.
 */
static lxw_row_t
WriteBlock(Book *book, lxw_worksheet *ws, lxw_row_t row,
	const Rb_Attribute *a)
{
    Tcl_DString head;
    int r, c;

    PutRow(ws, row++, book->bold, a->name, Rb_AttrKindName(a->kind),
	    a->unit, a->help);
    if (a->kind == RB_ATTR_TEXT) {
	PutRow(ws, row++, NULL, a->text, NULL, NULL, NULL);
	return row;
    }
    for (c = 0; c < a->ncols; c++) {
	const char *unit = RbReportColUnit(a, c);

	Tcl_DStringInit(&head);
	Tcl_DStringAppend(&head, a->cols[c].name, -1);
	if (*unit) {
	    Tcl_DStringAppend(&head, " (", 2);
	    Tcl_DStringAppend(&head, unit, -1);
	    Tcl_DStringAppend(&head, ")", 1);
	}
	xl->worksheet_write_string(ws, row, c, Tcl_DStringValue(&head),
		book->bold);
	Tcl_DStringFree(&head);
    }
    row++;
    for (r = 0; r < a->nrows; r++) {
	if (row >= LXW_ROW_MAX - 1) {
	    char note[96];

	    snprintf(note, sizeof(note), "%d more rows: past the last row "
		    "of a sheet", a->nrows - r);
	    xl->worksheet_write_string(ws, row++, 0, note, NULL);
	    break;
	}
	for (c = 0; c < a->ncols; c++) {
	    if (a->cols[c].isText) {
		xl->worksheet_write_string(ws, row, c, a->cols[c].text[r]
			? a->cols[c].text[r] : "", NULL);
	    } else {
		PutNum(ws, row, c, a->cols[c].num[r]);
	    }
	}
	row++;
    }
    return row;
}

/*
 * WriteFlowSheet --
 *	Flow i's sheet: its name, its scalars as a table (Attribute, Value,
 *	Unit, Meaning), then a block per other Attribute, a blank row
 *	between.
 */
static void
WriteFlowSheet(Book *book, const Rb_ReportSet *set, int i)
{
    const char *flow = Rb_FlowName(set->flows[i]);
    Tcl_DString name;
    lxw_worksheet *ws;
    lxw_row_t row = 0;
    int j, scalars = 0;

    ws = xl->workbook_add_worksheet(book->wb, SheetName(book, flow, &name));
    Tcl_DStringFree(&name);
    xl->worksheet_set_column(ws, 0, 0, 22, NULL);
    xl->worksheet_set_column(ws, 1, 3, 16, NULL);
    PutRow(ws, row, book->bold, "Flow", NULL, NULL, NULL);
    xl->worksheet_write_string(ws, row++, 1, flow, NULL);
    row++;
    for (j = set->first[i]; j < set->first[i + 1]; j++) {
	const Rb_Attribute *a = set->items[j].attr;

	if (a->kind != RB_ATTR_SCALAR || a->nrows < 1 || a->ncols < 1) {
	    continue;
	}
	if (scalars++ == 0) {
	    PutRow(ws, row++, book->bold, "Attribute", "Value", "Unit",
		    "Meaning");
	}
	PutRow(ws, row, NULL, a->name, NULL, RbReportColUnit(a, 0), a->help);
	if (a->cols[0].isText) {
	    PutRow(ws, row, NULL, NULL, a->cols[0].text[0], NULL, NULL);
	} else {
	    PutNum(ws, row, 1, a->cols[0].num[0]);
	}
	row++;
    }
    for (j = set->first[i]; j < set->first[i + 1]; j++) {
	if (set->items[j].attr->kind != RB_ATTR_SCALAR) {
	    row = WriteBlock(book, ws, row + 1, set->items[j].attr);
	}
    }
}

/*
 * SpreadsheetWrite --
 *	The write hook: the workbook is written by libxlsxwriter to the
 *	temporary name Rb_Out made, and renamed by Rb_OutClose only when
 *	libxlsxwriter succeeded.
 * Results: TCL_OK, or TCL_ERROR naming r->output.
 */
/*
 * ZipUnpacked --
 *	The sum of the uncompressed sizes of the entries of the zip file at
 *	path (a workbook), from its central directory: what libxlsxwriter
 *	wrote to its temporary files before compressing them.
 * Results: the bytes, or 0 when the directory cannot be read.
 */
static Tcl_WideInt
ZipUnpacked(const char *path)
{
    unsigned char end[22], ent[46];
    Tcl_WideInt sum = 0;
    uint32_t at;
    unsigned n, i;
    FILE *f = fopen(path, "rb");

    /* libxlsxwriter writes no zip comment: the end record is the last
     * 22 bytes. */
    if (f == NULL || fseek(f, -22, SEEK_END) != 0
	    || fread(end, 1, 22, f) != 22
	    || memcmp(end, "PK\5\6", 4) != 0) {
	if (f != NULL) {
	    fclose(f);
	}
	return 0;
    }
    n = end[10] | end[11] << 8;
    at = end[16] | end[17] << 8 | end[18] << 16 | (uint32_t)end[19] << 24;
    for (i = 0; i < n; i++) {
	if (fseek(f, (long)at, SEEK_SET) != 0 || fread(ent, 1, 46, f) != 46
		|| memcmp(ent, "PK\1\2", 4) != 0) {
	    break;
	}
	sum += ent[24] | ent[25] << 8 | ent[26] << 16
		| (Tcl_WideInt)ent[27] << 24;
	at += 46 + (ent[28] | ent[29] << 8) + (ent[30] | ent[31] << 8)
		+ (ent[32] | ent[33] << 8);
    }
    fclose(f);
    return sum;
}

static int
SpreadsheetWrite(Rb_Reporter *r, const Rb_RunInfo *run)
{
    Tcl_DString dir;
    lxw_workbook_options opts = {0};
    struct stat sb;
    Rb_ReportSet set;
    Rb_Out out;
    Book book;
    lxw_error err;
    int i;

    if (strcmp(r->output, "-") == 0) {
	return Rb_SetInterpError(r->interp, "RUBICON REPORTER OUTPUT",
		"a workbook cannot go to standard output: give -output "
		"FILE.xlsx");
    }
    if (xl == NULL) {
	Tcl_Obj *why = NULL;
	RbXlsxGlueTableProc *table = (RbXlsxGlueTableProc *)RbGlueLoad(
		r->interp, RB_XLSX_GLUE_LIB, RB_XLSX_GLUE_SYM, &why);
	const RbXlsxGlue *g = table ? table() : NULL;

	if (g == NULL || g->version != RB_XLSX_GLUE_VERSION) {
	    Rb_SetInterpError(r->interp, "RUBICON REPORTER XLSX",
		    "writing report \"%s\" failed: cannot load Rubicon's "
		    "libxlsxwriter glue (%s)", r->output, why
		    ? Tcl_GetString(why) : RB_XLSX_GLUE_LIB
		    " is not this version's");
	    if (why != NULL) {
		Tcl_DecrRefCount(why);
	    }
	    return TCL_ERROR;
	}
	xl = g;
    }
    if (RbReportCollect(r, &set) != TCL_OK) {
	return TCL_ERROR;
    }
    if (Rb_OutOpen(r->interp, r->output, &out) != TCL_OK) {
	RbReportSetFree(&set);
	return TCL_ERROR;
    }
    /* Rows go out in order, so the workbook need not sit in memory. */
    opts.constant_memory = LXW_TRUE;
    /* libxlsxwriter's temporary files go beside the output (in safe mode,
     * inside -outdir), not to /tmp; a device or FIFO is written in place
     * (out.tmpPath NULL) and leaves them in the default place. */
    Tcl_DStringInit(&dir);
    if (out.tmpPath != NULL) {
	const char *slash = strrchr(out.tmpPath, '/');

	if (slash == NULL) {
	    Tcl_DStringAppend(&dir, ".", 1);
	} else {
	    Tcl_DStringAppend(&dir, out.tmpPath,
		    slash == out.tmpPath ? 1 : (int)(slash - out.tmpPath));
	}
	opts.tmpdir = Tcl_DStringValue(&dir);
    }
    book.wb = xl->workbook_new_opt(out.tmpPath ? out.tmpPath : out.path, &opts);
    if (book.wb == NULL) {
	Rb_OutAbort(&out);
	RbReportSetFree(&set);
	Tcl_DStringFree(&dir);
	return Rb_SetInterpError(r->interp, "RUBICON OUTPUT WRITE",
		"writing report \"%s\" failed: cannot create the workbook",
		r->output);
    }
    book.bold = xl->workbook_add_format(book.wb);
    xl->format_set_bold(book.bold);
    Tcl_InitHashTable(&book.sheets, TCL_STRING_KEYS);
    WriteRunSheet(&book, run);
    for (i = 0; i < set.nflows; i++) {
	WriteFlowSheet(&book, &set, i);
    }
    Tcl_DeleteHashTable(&book.sheets);
    RbReportSetFree(&set);
    err = xl->workbook_close(book.wb);
    Tcl_DStringFree(&dir);
    if (err != LXW_NO_ERROR) {
	Rb_OutAbort(&out);
	return Rb_SetInterpError(r->interp, "RUBICON OUTPUT WRITE",
		"writing report \"%s\" failed: %s; nothing was left under "
		"that name", r->output, xl->lxw_strerror(err));
    }
    /* libxlsxwriter wrote by name, past Rb_Out's count of bytes: the
     * workbook, and its temporaries (the parts before compression). */
    if (out.tmpPath != NULL && stat(out.tmpPath, &sb) == 0
	    && Rb_SafeOutputCharge(r->interp, r->output,
	    (Tcl_WideInt) sb.st_size + ZipUnpacked(out.tmpPath)) != TCL_OK) {
	Rb_OutAbort(&out);
	return TCL_ERROR;
    }
    return Rb_OutClose(r->interp, &out);
}

const Rb_ReporterClass Rb_ReporterSpreadsheetClass = {
    "ReporterSpreadsheet",
    "Excel .xlsx workbook: a Run sheet and a sheet per flow",
    0,
    NULL,
    "rubicon.xlsx",
    NULL,
    SpreadsheetWrite,
    NULL
};

#endif /* HAVE_XLSXWRITER */
