/*
 * traceWriter.c --
 *
 *	TraceWriter, a DAG sink that writes the records reaching it to a
 *	trace file: the native format (gzip, re-readable by every tool of
 *	the package) or CSV with a header row naming the schema's fields
 *	(re-readable by the csv reader without a column map).  A filtered
 *	or transformed sub-trace can so be saved:
 *
 *	    head [Mux [Filter "read" [TraceWriter -output reads.rbn.gz]] $flow]
 *
 *	The file is written under a temporary name and renamed when the run
 *	ends; a run that fails or is interrupted leaves no file.
 *
 *	The command is made by RbIoCommandsInit, which Rubicon_Init calls for
 *	every interpreter.  In safe mode the output must lie inside the
 *	output directory.
 */

#include <errno.h>
#include <unistd.h>
#include "io/ioInt.h"
#include "io/native.h"
#include "io/readers.h"
#include "io/chrome.h"
#include "core/engine.h"

enum { FORMAT_NATIVE, FORMAT_CSV, FORMAT_CHROME };

typedef struct TraceWriter {
    char *path;
    int format;			/* FORMAT_* */
    int compression;		/* Native: RB_NATIVE_ZSTD ... */
    const Rb_RunInfo *run;	/* Valid from start to end. */
    Rb_Schema *schema;
    Rb_NativeWriter *native;
    FILE *fp;			/* CSV or Chrome JSON */
    RbChromeWriter *chrome;
    char *tmpPath;
} TraceWriter;

/*
 * CsvAbort --
 *	Closes and removes an unfinished CSV or Chrome file.
 */
static void
CsvAbort(TraceWriter *tw)
{
    if (tw->chrome != NULL) {
	RbChromeClose(tw->chrome, 1);
	tw->chrome = NULL;
    }
    if (tw->fp != NULL) {
	fclose(tw->fp);
	unlink(tw->tmpPath);
	tw->fp = NULL;
    }
    RbTempForget(tw->tmpPath);
    free(tw->tmpPath);
    tw->tmpPath = NULL;
}

/*
 * Abandon --
 *	Gives up whatever file a previous run left open (a run whose sink
 *	failed is not ended).
 */
static void
Abandon(TraceWriter *tw)
{
    RbNativeWriterAbort(tw->native);
    tw->native = NULL;
    CsvAbort(tw);
}

/*
 * WriteCsvText --
 *	A CSV cell holding text, quoted when it has a comma, quote or line
 *	break, begins or ends with a blank (which a reader would trim) or
 *	is empty (an empty cell is an absent value).
 */
static void
WriteCsvText(FILE *fp, const char *s)
{
    size_t n = strlen(s);

    if (strpbrk(s, ",\"\r\n") == NULL && n > 0 && s[0] != ' '
	    && s[0] != '\t' && s[n - 1] != ' ' && s[n - 1] != '\t') {
	fputs(s, fp);
	return;
    }
    putc('"', fp);
    for (; *s; s++) {
	if (*s == '"') {
	    putc('"', fp);
	}
	putc(*s, fp);
    }
    putc('"', fp);
}

/*
 * WriteCsvDescriptor --
 *	The first line of a CSV trace, a comment that the csv reader takes
 *	to restore what the cells alone would lose: the epoch and the
 *	schema, its name and each field's type, unit and help, as a Tcl
 *	dict (see doc/csv.n):
 *
 *	    # rubicon-trace schema io epoch 1053255845.000000000 fields
 *		{{time int ns {enqueue time}} ...}
 */
static void
WriteCsvDescriptor(FILE *fp, const Rb_Schema *s, int64_t epochNs)
{
    static const char *const types[] = {"int", "double", "string"};
    static const char *const units[] = {"none", "ns", "bytes"};
    Tcl_Obj *d = Tcl_NewListObj(0, NULL), *fields = Tcl_NewListObj(0, NULL);
    uint64_t mag = epochNs < 0 ? -(uint64_t)epochNs : (uint64_t)epochNs;
    char epoch[48], *p;
    int f;

    Tcl_IncrRefCount(d);
    snprintf(epoch, sizeof(epoch), "%s%llu.%09llu", epochNs < 0 ? "-" : "",
	    (unsigned long long)(mag / 1000000000),
	    (unsigned long long)(mag % 1000000000));
    for (f = 0; f < s->nfields; f++) {
	Tcl_Obj *fd[4];

	fd[0] = Tcl_NewStringObj(s->fields[f].name, -1);
	fd[1] = Tcl_NewStringObj(types[s->fields[f].type], -1);
	fd[2] = Tcl_NewStringObj(units[s->fields[f].unit], -1);
	fd[3] = Tcl_NewStringObj(s->fields[f].help ? s->fields[f].help : "",
		-1);
	Tcl_ListObjAppendElement(NULL, fields, Tcl_NewListObj(4, fd));
    }
    Tcl_ListObjAppendElement(NULL, d, Tcl_NewStringObj("schema", -1));
    Tcl_ListObjAppendElement(NULL, d, Tcl_NewStringObj(s->name, -1));
    Tcl_ListObjAppendElement(NULL, d, Tcl_NewStringObj("epoch", -1));
    Tcl_ListObjAppendElement(NULL, d, Tcl_NewStringObj(epoch, -1));
    Tcl_ListObjAppendElement(NULL, d, Tcl_NewStringObj("fields", -1));
    Tcl_ListObjAppendElement(NULL, d, fields);
    fputs("# rubicon-trace ", fp);
    /* A line break in a help text would end the comment. */
    for (p = Tcl_GetString(d); *p; p++) {
	putc(*p == '\n' || *p == '\r' ? ' ' : *p, fp);
    }
    putc('\n', fp);
    Tcl_DecrRefCount(d);
}

/*
 * WriterStart --
 *	Opens the file for the run's schema and epoch.
 */
static int
WriterStart(void *cd, const Rb_RunInfo *run, Rb_Error *err)
{
    TraceWriter *tw = cd;
    int f;

    Abandon(tw);
    tw->run = run;
    tw->schema = run->schema;
    if (tw->format == FORMAT_NATIVE) {
	tw->native = RbNativeWriterOpen(tw->path, run->schema, run->epochNs,
		tw->compression, err);
	return tw->native ? TCL_OK : TCL_ERROR;
    }
    tw->tmpPath = Rb_Alloc(strlen(tw->path) + 32);
    RbOutRemoveStale(tw->path);
    sprintf(tw->tmpPath, "%s.tmp-%ld", tw->path, (long)getpid());
    tw->fp = fopen(tw->tmpPath, "w");
    if (tw->fp == NULL) {
	Rb_SetError(err, "RUBICON TRACEWRITER", "cannot write \"%s\": %s",
		tw->path, strerror(errno));
	free(tw->tmpPath);
	tw->tmpPath = NULL;
	return TCL_ERROR;
    }
    RbTempAdd(tw->tmpPath);
    if (tw->format == FORMAT_CHROME) {
	tw->chrome = RbChromeOpen(tw->fp, run->schema, run->epochNs);
	return TCL_OK;
    }
    WriteCsvDescriptor(tw->fp, run->schema, run->epochNs);
    for (f = 0; f < run->schema->nfields; f++) {
	if (f > 0) {
	    putc(',', tw->fp);
	}
	WriteCsvText(tw->fp, run->schema->fields[f].name);
    }
    putc('\n', tw->fp);
    return TCL_OK;
}

/*
 * WriterPush --
 *	Writes the selected records: one native block append, or one CSV
 *	row each (an absent value is an empty cell).
 */
static int
WriterPush(void *cd, const Rb_Batch *b, const uint32_t *sel, int nsel,
	Rb_Error *err)
{
    TraceWriter *tw = cd;
    const Rb_Schema *s = b->schema;
    int k, f;

    if (tw->native != NULL) {
	if (RbNativeWriterWrite(tw->native, b, sel, nsel, err) != TCL_OK) {
	    /* The engine ends no sink that failed: remove the file now. */
	    Abandon(tw);
	    return TCL_ERROR;
	}
	return TCL_OK;
    }
    if (tw->chrome != NULL) {
	RbChromeWrite(tw->chrome, b, sel, nsel);
    }
    for (k = 0; k < nsel && tw->chrome == NULL; k++) {
	int i = sel ? (int)sel[k] : k;

	for (f = 0; f < s->nfields; f++) {
	    int64_t v = b->col[f][i];

	    if (f > 0) {
		putc(',', tw->fp);
	    }
	    if (v == RB_ABSENT) {
		continue;
	    }
	    switch (s->fields[f].type) {
	    case RB_FT_DOUBLE:
		fprintf(tw->fp, "%.17g", Rb_GetDouble(b, f, i));
		break;
	    case RB_FT_STRING:
		WriteCsvText(tw->fp, Rb_SchemaString(s, v));
		break;
	    default:
		fprintf(tw->fp, "%lld", (long long)v);
		break;
	    }
	}
	putc('\n', tw->fp);
    }
    if (ferror(tw->fp)) {
	Rb_SetError(err, "RUBICON TRACEWRITER", "cannot write \"%s\": %s",
		tw->path, strerror(errno));
	CsvAbort(tw);
	return TCL_ERROR;
    }
    return TCL_OK;
}

/*
 * WriterEnd --
 *	Finishes the file and renames it into place; after a partial run
 *	(an error or an interrupt) the file is removed instead, so that no
 *	sub-trace looks whole that is not.
 */
static int
WriterEnd(void *cd, const Rb_RunInfo *unused, Rb_Error *err)
{
    TraceWriter *tw = cd;
    int rc = TCL_OK;

    if (tw->run != NULL && tw->run->partial) {
	Abandon(tw);
	return TCL_OK;
    }
    if (tw->native != NULL) {
	rc = RbNativeWriterClose(tw->native, err);
	tw->native = NULL;
    } else if (tw->fp != NULL) {
	int bad;

	if (tw->chrome != NULL) {
	    RbChromeClose(tw->chrome, 0);
	    tw->chrome = NULL;
	}
	bad = fclose(tw->fp) != 0;

	tw->fp = NULL;
	if (bad || rename(tw->tmpPath, tw->path) != 0) {
	    Rb_SetError(err, "RUBICON TRACEWRITER", "cannot write \"%s\": %s",
		    tw->path, strerror(errno));
	    unlink(tw->tmpPath);
	    rc = TCL_ERROR;
	}
	RbTempForget(tw->tmpPath);
	free(tw->tmpPath);
	tw->tmpPath = NULL;
    }
    tw->run = NULL;
    return rc;
}

/*
 * WriterFree --
 *	Frees the writer when its node is deleted.
 */
static void
WriterFree(void *cd)
{
    TraceWriter *tw = cd;

    Abandon(tw);
    free(tw->path);
    free(tw);
}

static const Rb_SinkClass traceWriterClass = {
    "TraceWriter", WriterStart, WriterPush, WriterEnd, WriterFree,
};

/*
 * TraceWriterCmd --
 *	"TraceWriter -output file ?-format native|csv|chrome?
 *	?-compression zstd|none|gzip?": a sink node.  The format defaults to
 *	csv for a name ending in .csv, chrome for .json, else native;
 *	-compression (native only) to zstd.
 */
static int
TraceWriterCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const opts[] = {"-output", "-format", "-compression",
	    NULL};
    static const char *const formats[] = {"native", "csv", "chrome", NULL};
    /* In the order of RB_NATIVE_ZSTD, RB_NATIVE_NONE, RB_NATIVE_GZIP. */
    static const char *const compressions[] = {"zstd", "none", "gzip", NULL};
    const char *path = NULL;
    int i, idx, format = -1, compression = -1;
    TraceWriter *tw;

    if (objc % 2 == 0) {
	Tcl_WrongNumArgs(interp, 1, objv, "-output file ?-format "
		"native|csv|chrome? ?-compression zstd|none|gzip?");
	return TCL_ERROR;
    }
    for (i = 1; i < objc; i += 2) {
	if (Tcl_GetIndexFromObj(interp, objv[i], opts, "option", 0, &idx)
		!= TCL_OK) {
	    return TCL_ERROR;
	}
	if (idx == 0) {
	    path = Tcl_GetString(objv[i + 1]);
	} else if (idx == 1) {
	    if (Tcl_GetIndexFromObj(interp, objv[i + 1], formats, "format",
		    0, &format) != TCL_OK) {
		return TCL_ERROR;
	    }
	} else if (Tcl_GetIndexFromObj(interp, objv[i + 1], compressions,
		"compression", 0, &compression) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    if (path == NULL || *path == '\0') {
	return Rb_SetInterpError(interp, "RUBICON TRACEWRITER",
		"TraceWriter needs -output file");
    }
    if (Rb_SafeCheckWrite(interp, path) != TCL_OK) {
	return TCL_ERROR;
    }
    if (format < 0) {
	size_t n = strlen(path);

	format = n >= 4 && strcasecmp(path + n - 4, ".csv") == 0 ? FORMAT_CSV
		: n >= 5 && strcasecmp(path + n - 5, ".json") == 0
		? FORMAT_CHROME : FORMAT_NATIVE;
    }
    if (compression >= 0 && format != FORMAT_NATIVE) {
	return Rb_SetInterpError(interp, "RUBICON TRACEWRITER",
		"-compression is for the native format, not %s",
		formats[format]);
    }
    tw = Rb_Alloc(sizeof(*tw));
    tw->path = Rb_Strdup(path);
    tw->format = format;
    tw->compression = compression >= 0 ? compression : RB_NATIVE_ZSTD;
    RbNodeCreateSink(interp, &traceWriterClass, tw);
    return TCL_OK;
}

/*
 * RbIoCommandsInit --
 *	Makes ::rubicon::TraceWriter in interp and lists it in
 *	rubicon::types (called by Rubicon_Init for every interpreter).
 */
int
RbIoCommandsInit(Tcl_Interp *interp)
{
    Tcl_CreateObjCommand(interp, "::rubicon::TraceWriter", TraceWriterCmd,
	    NULL, NULL);
    RbEngineAddClass(RbEngineGet(interp), CLASS_CORE, "TraceWriter",
	    "TraceWriter -output file ?-format native|csv|chrome? "
	    "?-compression zstd|none|gzip?: writes the "
	    "records reaching it to a trace file", NULL);
    return TCL_OK;
}
