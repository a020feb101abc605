/*
 * reporterJson.c --
 *
 *	ReporterJson: the whole report as one JSON document,
 *	    {"run": {...}, "flows": [{"name": ..., "attributes": [...]}]}
 *	with every Attribute's kind, unit, help, columns and rows, so that
 *	a program can read back everything the Tcl interface could.
 */

#include <inttypes.h>
#include "util.h"

/*
 * WriteRun --
 *	The "run" object: what was read, from where, and whether the run
 *	finished.
 */
static void
WriteRun(FILE *fp, const Rb_RunInfo *run)
{
    Tcl_DictSearch search;
    Tcl_Obj *key, *value;
    Tcl_WideInt count;
    int done, n = 0;

    fputs("{\n  \"run\": {\n    \"version\": ", fp);
    Rb_JsonString(fp, RUBICON_VERSION);
    fputs(",\n    \"traces\": ", fp);
    Rb_JsonString(fp, run->traces ? run->traces : "");
    fputs(",\n    \"config\": ", fp);
    Rb_JsonString(fp, run->config ? run->config : "");
    fprintf(fp, ",\n    \"records\": %llu,\n    \"skipped\": %llu",
	    (unsigned long long) run->records,
	    (unsigned long long) run->skipped);
    fputs(",\n    \"skipCounts\": {", fp);
    if (run->skipCounts != NULL && Tcl_DictObjFirst(NULL, run->skipCounts,
	    &search, &key, &value, &done) == TCL_OK) {
	for (; !done; Tcl_DictObjNext(&search, &key, &value, &done)) {
	    fputs(n++ ? ", " : "", fp);
	    Rb_JsonString(fp, Tcl_GetString(key));
	    if (Tcl_GetWideIntFromObj(NULL, value, &count) == TCL_OK) {
		fprintf(fp, ": %lld", (long long) count);
	    } else {
		fputs(": null", fp);
	    }
	}
	Tcl_DictObjDone(&search);
    }
    fprintf(fp, "},\n    \"epochNs\": %lld", (long long) run->epochNs);
    /* With no record read there is no first or last time. */
    if (run->records > 0 && run->firstTime <= run->lastTime) {
	fprintf(fp, ",\n    \"firstTime\": %lld,\n    \"lastTime\": %lld",
		(long long) run->firstTime, (long long) run->lastTime);
    } else {
	fputs(",\n    \"firstTime\": null,\n    \"lastTime\": null", fp);
    }
    fprintf(fp, ",\n    \"partial\": %s\n  }",
	    run->partial ? "true" : "false");
}

/*
 * WriteAttr --
 *	One Attribute object.  Cells are JSON numbers (null for NaN/Inf)
 *	or strings, following each column's type; a text Attribute has no
 *	columns and carries its string as "text".
 */
static void
WriteAttr(FILE *fp, const Rb_Attribute *a)
{
    int r, c;

    fputs("        {\"name\": ", fp);
    Rb_JsonString(fp, a->name);
    fputs(", \"kind\": ", fp);
    Rb_JsonString(fp, Rb_AttrKindName(a->kind));
    fputs(", \"unit\": ", fp);
    Rb_JsonString(fp, a->unit ? a->unit : "");
    fputs(",\n         \"help\": ", fp);
    Rb_JsonString(fp, a->help ? a->help : "");
    fprintf(fp, ", \"partial\": %s", a->partial ? "true" : "false");
    if (a->elided > 0) {
	fprintf(fp, ", \"elided\": %" PRId64, a->elided);
    }
    if (a->kind == RB_ATTR_TEXT) {
	fputs(",\n         \"text\": ", fp);
	Rb_JsonString(fp, a->text ? a->text : "");
    }
    fputs(",\n         \"columns\": [", fp);
    for (c = 0; c < a->ncols; c++) {
	fputs(c ? ", {\"name\": " : "{\"name\": ", fp);
	Rb_JsonString(fp, a->cols[c].name);
	fputs(", \"unit\": ", fp);
	Rb_JsonString(fp, RbReportColUnit(a, c));
	fprintf(fp, ", \"type\": \"%s\"}",
		a->cols[c].isText ? "text" : "number");
    }
    fputs("],\n         \"rows\": [", fp);
    for (r = 0; r < a->nrows; r++) {
	fputs(r ? ",\n           [" : "\n           [", fp);
	for (c = 0; c < a->ncols; c++) {
	    const Rb_Column *col = &a->cols[c];

	    fputs(c ? ", " : "", fp);
	    if (col->isText) {
		Rb_JsonString(fp, col->text[r] ? col->text[r] : "");
	    } else {
		RbReportJsonNum(fp, col->num[r]);
	    }
	}
	fputs("]", fp);
    }
    fputs("]}", fp);
}

/*
 * WriteDocument --
 *	The document body.  Every bound Flow is listed, with an empty
 *	"attributes" when it has none.
 */
static void
WriteDocument(FILE *fp, const Rb_RunInfo *run, const Rb_ReportSet *set)
{
    int i, j;

    WriteRun(fp, run);
    fputs(",\n  \"flows\": [", fp);
    for (i = 0; i < set->nflows; i++) {
	fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", fp);
	Rb_JsonString(fp, Rb_FlowName(set->flows[i]));
	fputs(", \"attributes\": [", fp);
	for (j = set->first[i]; j < set->first[i + 1]; j++) {
	    fputs(j > set->first[i] ? ",\n" : "\n", fp);
	    WriteAttr(fp, set->items[j].attr);
	}
	fputs("]}", fp);
    }
    fputs("]\n}\n", fp);
}

/*
 * JsonWrite --
 *	The write hook: the document to r->output through Rb_Out.
 * Results: TCL_OK or TCL_ERROR naming the file.
 */
static int
JsonWrite(Rb_Reporter *r, const Rb_RunInfo *run)
{
    return RbReportWriteFile(r, run, WriteDocument);
}

const Rb_ReporterClass Rb_ReporterJsonClass = {
    "ReporterJson",
    "JSON: run summary and every attribute's columns and rows",
    0,
    NULL,
    "rubicon.json",
    NULL,
    JsonWrite,
    NULL
};
