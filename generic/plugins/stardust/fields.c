/*
 * fields.c --
 *
 *	What the Stardust analyzers look up once per run: the field indices
 *	of the activity schema and the interned ids of the standard record
 *	type names, so that per record a type test is an integer compare.
 */

#include <stdlib.h>
#include <string.h>
#include "plugins/stardust/stardust.h"

/*
 * Sd_CheckSchema --
 *	Checks that the run reads activity records: the fixed fields of the
 *	activity schema at their places (any type set's schema has them).
 * Results: TCL_OK, or TCL_ERROR with an analyzer error RUBICON ANALYZER
 *	SCHEMA naming the class and the run's schema with its fields.
 */
int
Sd_CheckSchema(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    static const char *const fixed[SD_F_NFIXED] = {
	"time", "type", "breadcrumb", "client", "pid", "tid"
    };
    const Rb_Schema *s = run->schema;
    char *known;
    int f;

    for (f = 1; f < SD_F_NFIXED && f < s->nfields; f++) {
	if (strcmp(s->fields[f].name, fixed[f]) != 0) {
	    break;
	}
    }
    if (f == SD_F_NFIXED) {
	return TCL_OK;
    }
    known = Rb_SchemaFieldList(s);
    Rb_AnalyzerError(a, "RUBICON ANALYZER SCHEMA", "%s reads Stardust "
	    "activity records, not records of schema \"%s\" (its fields: "
	    "%s); run it on a Stardust trace", a->cls->name, s->name, known);
    free(known);
    return TCL_ERROR;
}

/*
 * TypeId --
 *	The string id of a type name in the run's schema (interned now if
 *	no record has carried it yet, so it compares unequal to nothing).
 */
static int64_t
TypeId(const Rb_RunInfo *run, const char *name)
{
    return Rb_SchemaIntern(run->schema, name, strlen(name));
}

/*
 * Sd_ResolveFields --
 *	Fills f for the run's schema.  The fixed fields must exist (the run
 *	reads activity records); payload fields the type set lacks are -1.
 * Results: TCL_OK, or TCL_ERROR with an analyzer error.
 */
int
Sd_ResolveFields(Rb_Analyzer *a, const Rb_RunInfo *run, SdFields *f)
{
    const Rb_Schema *s = run->schema;
    int k;

    if (Rb_AnalyzerField(a, run, "type", &f->type) != TCL_OK
	    || Rb_AnalyzerField(a, run, "breadcrumb", &f->bc) != TCL_OK
	    || Rb_AnalyzerField(a, run, "pid", &f->pid) != TCL_OK
	    || Rb_AnalyzerField(a, run, "tid", &f->tid) != TCL_OK) {
	return TCL_ERROR;
    }
    f->cpu = Rb_SchemaFieldIndex(s, "cpu");
    f->oldPid = Rb_SchemaFieldIndex(s, "oldPid");
    f->newPid = Rb_SchemaFieldIndex(s, "newPid");
    f->oldTid = Rb_SchemaFieldIndex(s, "oldTid");
    f->newTid = Rb_SchemaFieldIndex(s, "newTid");
    f->disk = Rb_SchemaFieldIndex(s, "disk");
    f->ioId = Rb_SchemaFieldIndex(s, "ioId");
    f->bytes = Rb_SchemaFieldIndex(s, "bytes");
    f->src = Rb_SchemaFieldIndex(s, "src");
    f->dst = Rb_SchemaFieldIndex(s, "dst");
    f->srcBc = Rb_SchemaFieldIndex(s, "srcBreadcrumb");
    f->dstBc = Rb_SchemaFieldIndex(s, "dstBreadcrumb");
    f->file = Rb_SchemaFieldIndex(s, "file");
    f->offset = Rb_SchemaFieldIndex(s, "offset");
    f->size = Rb_SchemaFieldIndex(s, "size");
    f->service = Rb_SchemaFieldIndex(s, "service");
    f->name = Rb_SchemaFieldIndex(s, "name");
    f->self = Rb_SchemaFieldIndex(s, "self");
    f->tUserSwitch = TypeId(run, "UserThreadSwitch");
    f->tKernelSwitch = TypeId(run, "KernelProcessSwitch");
    f->tDiskStart = TypeId(run, "DiskOpStart");
    f->tDiskEnd = TypeId(run, "DiskOpEnd");
    f->tNet = TypeId(run, "NetworkTransmit");
    f->tStitch = TypeId(run, "Stitch");
    f->tCall = TypeId(run, "Call");
    f->tReply = TypeId(run, "Reply");
    f->tSpanSelf = TypeId(run, "SpanSelf");
    for (k = 0; k < 6; k++) {
	f->tBuffer[k] = TypeId(run, Sd_BufferTypes[k]);
    }
    return TCL_OK;
}
