/*
 * kitHelpers.c --
 *
 *	The few helpers the built-in Analyzer classes share: their option
 *	errors, the limits on keys and devices, lists of seconds, latency
 *	fields, and adding per-key counts of another shard.
 */

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "core/rbInt.h"
#include "toolbox/toolbox.h"

/*
 * RbKitDeviceLimit --
 *	Stops the run at record (RUBICON LIMIT KEYS): a class keeping state
 *	per device (the values of field) would hold one more than its -limit
 *	of them; bytes is what each costs, for the message.
 */
void
RbKitDeviceLimit(Rb_Analyzer *a, int64_t limit, const char *field,
	uint64_t record, int64_t bytes)
{
    Rb_AnalyzerError(a, "RUBICON LIMIT KEYS", "%s: more than -limit %" PRId64
	    " distinct devices (%s) at record %" PRIu64 " (raise -limit; each"
	    " device held costs up to about %" PRId64 " bytes)", a->cls->name,
	    limit, field, record, bytes);
}

/*
 * RbKitKeyLimit --
 *	Stops the run (RUBICON LIMIT KEYS): a class keeping state per value
 *	of field would hold one more than its -limit of them, at record (0:
 *	when merging shards); bytes is what each costs, for the message.
 */
void
RbKitKeyLimit(Rb_Analyzer *a, int64_t limit, const char *field,
	uint64_t record, int64_t bytes)
{
    char where[64];

    if (record > 0) {
	snprintf(where, sizeof(where), "at record %" PRIu64, record);
    } else {
	snprintf(where, sizeof(where), "in the merged shards");
    }
    Rb_AnalyzerError(a, "RUBICON LIMIT KEYS", "%s: more than -limit %"
	    PRId64 " distinct keys of %s %s (raise -limit; each key held "
	    "costs up to about %" PRId64 " bytes)", a->cls->name, limit, field,
	    where, bytes);
}

/*
 * RbKitAddCounts --
 *	The merge of two tables of uint64 counts per key (a later shard's
 *	into an earlier one's): block keys (map given) are keyed again with
 *	the device ids one pass over both shards gives (RbBlockMapAdopt), so
 *	that ties ordered by key come out as in one process; at most limit
 *	keys, field and bytes naming them in the error as RbKitKeyLimit does.
 * Results: TCL_OK, or TCL_ERROR with RUBICON LIMIT DEVICES or RUBICON
 *	LIMIT KEYS set on a.
 */
int
RbKitAddCounts(Rb_Analyzer *a, Rb_KeyTable *counts,
	const Rb_KeyTable *other, Rb_BlockMap *map, const Rb_BlockMap *omap,
	int64_t limit, const char *field, int64_t bytes)
{
    int64_t *devices = NULL;
    uint64_t i;

    if (map != NULL && (devices = RbBlockMapAdopt(map, omap, NULL))
	    == NULL) {
	Rb_AnalyzerError(a, "RUBICON LIMIT DEVICES",
		"%s: more than 32768 devices to merge", a->cls->name);
	return TCL_ERROR;
    }
    for (i = 0; i < other->cap; i++) {
	int64_t key;
	uint64_t *c;

	if (!other->used[i]) {
	    continue;
	}
	key = other->keys[i];
	if (devices != NULL) {
	    key = RbBlockRekey(map, devices, key);
	}
	if ((c = Rb_KeyTableFindLimited(counts, key, limit)) == NULL) {
	    free(devices);
	    RbKitKeyLimit(a, limit, field, 0, bytes);
	    return TCL_ERROR;
	}
	*c += *(const uint64_t *)Rb_KeyTableValue(other, i);
    }
    free(devices);
    return TCL_OK;
}

/*
 * RbKitOptionError --
 *	Reports a bad option value of analyzer a, prefixed with its class
 *	name: into interp when given (from init), else as an analyzer error
 *	(from start, where the engine collects it).
 * Results: TCL_ERROR, so callers can return it.
 */
int
RbKitOptionError(Rb_Analyzer *a, Tcl_Interp *interp, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (interp != NULL) {
	return Rb_SetInterpError(interp, "RUBICON ANALYZER OPTION", "%s: %s",
		a->cls->name, msg);
    }
    Rb_AnalyzerError(a, "RUBICON ANALYZER OPTION", "%s: %s", a->cls->name,
	    msg);
    return TCL_ERROR;
}

/*
 * RbKitParseSeconds --
 *	Reads a list option of durations in seconds (-thresholds, -windows):
 *	each a positive number of at most 10^9 seconds, kept as ns (at least
 *	1 ns).
 * Results: the number of durations (> 0) with *ns set to a malloc'd
 *	array (when ns is not NULL), or -1 when obj is empty or holds
 *	anything else.
 */
int
RbKitParseSeconds(Tcl_Obj *obj, int64_t **ns)
{
    Tcl_Obj **objv;
    double s;
    int objc, i;

    if (obj == NULL || Tcl_ListObjGetElements(NULL, obj, &objc, &objv)
	    != TCL_OK || objc == 0) {
	return -1;
    }
    for (i = 0; i < objc; i++) {
	if (Tcl_GetDoubleFromObj(NULL, objv[i], &s) != TCL_OK || !(s > 0)
		|| s > 1e9) {
	    return -1;
	}
    }
    if (ns != NULL) {
	*ns = Rb_AllocArray((size_t)objc, sizeof(int64_t));
	for (i = 0; i < objc; i++) {
	    Tcl_GetDoubleFromObj(NULL, objv[i], &s);
	    (*ns)[i] = (int64_t)llround(s * RB_NS_PER_S);
	    if ((*ns)[i] < 1) {
		(*ns)[i] = 1;
	    }
	}
    }
    return objc;
}

/* The durations a field option may name: from one time field to another,
 * found by name (in the I/O schema for RbKitLatencyField; in the run's,
 * where it has no field of that name, for RbKitDurationField). */
static const struct {
    const char *name, *from, *to;
} durationFields[] = {
    {"responseTime", "time", "finishTime"},
    {"serviceTime", "startTime", "finishTime"},
    {"queueTime", "time", "startTime"},
};

/*
 * RbKitDurationField --
 *	Resolves a field option that may name a duration (responseTime,
 *	serviceTime, queueTime; any case) when the run's schema has no field
 *	of that name.
 * Results: 1 with *from and *to set to the two integer time fields; 0
 *	when name is a field of the schema or no duration (*from and *to
 *	-1); -1 with an analyzer error when a time field is missing.
 */
int
RbKitDurationField(Rb_Analyzer *a, const Rb_RunInfo *run, const char *name,
	int *from, int *to)
{
    size_t d;

    *from = *to = -1;
    if (name == NULL || Rb_SchemaFieldIndex(run->schema, name) >= 0) {
	return 0;
    }
    for (d = 0; d < sizeof(durationFields) / sizeof(durationFields[0]);
	    d++) {
	if (strcasecmp(name, durationFields[d].name) == 0) {
	    return RbKitIntegerField(a, run, durationFields[d].from, from)
		    != TCL_OK || RbKitIntegerField(a, run,
		    durationFields[d].to, to) != TCL_OK ? -1 : 1;
	}
    }
    return 0;
}

/*
 * RbKitLatencyField --
 *	Resolves a -field naming a duration of an I/O: responseTime (time to
 *	finishTime), serviceTime (startTime to finishTime) or queueTime
 *	(time to startTime).
 * Results: TCL_OK with *from and *to set to I/O field indices, or
 *	TCL_ERROR with an option error (into interp when given, see
 *	RbKitOptionError).
 */
int
RbKitLatencyField(Rb_Analyzer *a, Tcl_Interp *interp, const char *name,
	int *from, int *to)
{
    size_t i;

    for (i = 0; i < sizeof(durationFields) / sizeof(durationFields[0]);
	    i++) {
	if (name != NULL && strcmp(name, durationFields[i].name) == 0) {
	    *from = Rb_SchemaFieldIndex(Rb_IoSchema(), durationFields[i].from);
	    *to = Rb_SchemaFieldIndex(Rb_IoSchema(), durationFields[i].to);
	    return TCL_OK;
	}
    }
    return RbKitOptionError(a, interp, "bad -field \"%s\": must be "
	    "responseTime, serviceTime or queueTime", name ? name : "");
}
