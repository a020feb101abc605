/*
 * schema.c --
 *
 *	magpie::schema NAME BODY: the event schema written in Tcl.  BODY is
 *	a script of four statements, evaluated in ::magpie::dsl:
 *
 *	    attribute NAME int|string
 *	    domain NAME {ATTR ...}
 *	    event TYPE ?-join {ATTR start|stop|basic ...}? ?-begin? ?-end?
 *		?-cswitch {CPU OLD NEW}? ?-intrbegin CPU? ?-intrend CPU?
 *		?-disk BYTES? ?-net BYTES? ?-startat {ATTR START}?
 *	    sync SOURCE ATTR DEST
 *	    stitch TX RX {ATTR ...}
 *
 *	The compiled schema holds the record schema that the "magpie" reader
 *	fills (time, machine, event and one field per attribute) and the
 *	join rules the request parser follows.  Schemas live in a process-
 *	wide registry because trace readers are process-wide too.
 */

#include <pthread.h>
#include <stdlib.h>
#include "plugins/magpie/magpie.h"

#define MAX_SCHEMAS 64
#define BUILDER_KEY "magpie::builder"

static pthread_mutex_t registryLock = PTHREAD_MUTEX_INITIALIZER;
static MgSchema *registry[MAX_SCHEMAS];
static int nregistry;

/* A schema being defined: the statements seen so far. */
typedef struct Builder {
    MgSchema *s;
    Tcl_Obj *eventOpts;		/* list of {TYPE optionList}, compiled last */
    Tcl_Obj *syncs;		/* list of {SOURCE ATTR DEST} */
    Tcl_Obj *stitches;		/* list of {TX RX {ATTR ...}} */
} Builder;

/*
 * MgParseSeconds --
 *	Parses decimal seconds with up to nine fractional digits, exactly
 *	(no floating point), into ns.  A leading '-' is allowed.
 * Results: characters consumed, 0 if s does not start with a number.
 */
int
MgParseSeconds(const char *s, int64_t *ns)
{
    const char *p = s;
    int64_t sec = 0, frac = 0;
    int neg = 0, digits = 0, fd = 0;

    if (*p == '-') {
	neg = 1;
	p++;
    }
    while (*p >= '0' && *p <= '9') {
	if (sec > (INT64_MAX / 1000000000 - 10) / 10) {
	    return 0;
	}
	sec = sec * 10 + (*p++ - '0');
	digits++;
    }
    if (*p == '.') {
	p++;
	while (*p >= '0' && *p <= '9') {
	    if (fd < 9) {
		frac = frac * 10 + (*p - '0');
		fd++;
	    }
	    p++;
	    digits++;
	}
    }
    if (digits == 0) {
	return 0;
    }
    while (fd++ < 9) {
	frac *= 10;
    }
    *ns = sec * 1000000000 + frac;
    if (neg) {
	*ns = -*ns;
    }
    return (int)(p - s);
}

/*
 * SchemaFree --
 *	Frees a compiled schema and drops its record schema.
 */
static void
SchemaFree(MgSchema *s)
{
    int i;

    for (i = 0; i < s->nevents; i++) {
	free(s->events[i].name);
	free(s->events[i].startName);
	if (s->events[i].joins) {
	    free(s->events[i].joins);
	}
    }
    if (s->events) {
	free(s->events);
    }
    for (i = 0; i < s->ndomains; i++) {
	free(s->domainNames[i]);
    }
    if (s->syncs) {
	free(s->syncs);
    }
    if (s->stitches) {
	free(s->stitches);
    }
    Rb_SchemaRelease(s->rec);
    free(s->name);
    free(s);
}

/*
 * MgSchemaRegistryFree --
 *	At exit: releases every registered schema.
 */
void
MgSchemaRegistryFree(void)
{
    MgSchema *s;

    for (;;) {
	pthread_mutex_lock(&registryLock);
	s = nregistry > 0 ? registry[--nregistry] : NULL;
	pthread_mutex_unlock(&registryLock);
	if (s == NULL) {
	    return;
	}
	MgSchemaRelease(s);	/* takes registryLock itself */
    }
}

/*
 * MgSchemaFind --
 *	The registered schema of that name, with a reference for the
 *	caller, or NULL.
 */
MgSchema *
MgSchemaFind(const char *name)
{
    MgSchema *found = NULL;
    int i;

    pthread_mutex_lock(&registryLock);
    for (i = 0; i < nregistry; i++) {
	if (strcmp(registry[i]->name, name) == 0) {
	    found = registry[i];
	    found->refCount++;
	    break;
	}
    }
    pthread_mutex_unlock(&registryLock);
    return found;
}

/*
 * MgNamedRecordSchema --
 *	The record schema of the Magpie schema arg names, for "Filter
 *	-schema magpie:NAME ..." (Rb_RegisterSchema).  A log read without
 *	a declared schema has the attributes of its header, unknown before
 *	the run: that is "-schema run".
 * Results: the schema with a reference for the caller, or NULL with
 *	err set (RUBICON FILTER SCHEMA).
 */
Rb_Schema *
MgNamedRecordSchema(const char *arg, Rb_Error *err)
{
    MgSchema *mg = arg && *arg ? MgSchemaFind(arg) : NULL;
    Rb_Schema *rec;

    if (mg == NULL) {
	Rb_SetError(err, "RUBICON FILTER SCHEMA", "no Magpie schema "
		"\"%.64s\": name one magpie::schema defined, as "
		"magpie:NAME (for a log read without one, use -schema run)",
		arg ? arg : "");
	return NULL;
    }
    rec = mg->rec;
    Rb_SchemaRetain(rec);
    MgSchemaRelease(mg);
    return rec;
}

/*
 * MgSchemaRelease --
 *	Drops a reference; the schema is freed when neither the registry
 *	nor any run holds it.
 */
void
MgSchemaRelease(MgSchema *s)
{
    int last;

    if (s == NULL) {
	return;
    }
    pthread_mutex_lock(&registryLock);
    last = --s->refCount == 0;
    pthread_mutex_unlock(&registryLock);
    if (last) {
	SchemaFree(s);
    }
}

/*
 * Register --
 *	Puts s in the registry (which holds its one reference), replacing
 *	and releasing a schema of the same name.
 * Results: TCL_OK, or TCL_ERROR when the registry is full.
 */
static int
Register(Tcl_Interp *interp, MgSchema *s)
{
    MgSchema *old = NULL;
    int i;

    pthread_mutex_lock(&registryLock);
    for (i = 0; i < nregistry; i++) {
	if (strcmp(registry[i]->name, s->name) == 0) {
	    old = registry[i];
	    registry[i] = s;
	    break;
	}
    }
    if (old == NULL && nregistry == MAX_SCHEMAS) {
	pthread_mutex_unlock(&registryLock);
	return Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		"too many Magpie schemas (at most %d)", MAX_SCHEMAS);
    }
    if (old == NULL) {
	registry[nregistry++] = s;
    }
    pthread_mutex_unlock(&registryLock);
    MgSchemaRelease(old);
    return TCL_OK;
}

/*
 * MgSchemaEventIndex --
 *	The index of event type name in s, or -1.
 */
int
MgSchemaEventIndex(const MgSchema *s, const char *name)
{
    int i;

    for (i = 0; i < s->nevents; i++) {
	if (strcmp(s->events[i].name, name) == 0) {
	    return i;
	}
    }
    return -1;
}

static Builder *
CurrentBuilder(Tcl_Interp *interp)
{
    Builder *b = Tcl_GetAssocData(interp, BUILDER_KEY, NULL);

    if (b == NULL) {
	Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		"schema statements are only valid inside magpie::schema");
    }
    return b;
}

/*
 * AttributeField --
 *	The record field of attribute name, added as type when new.
 * Results: the index, or -1 with an error in interp.
 */
static int
AttributeField(Tcl_Interp *interp, MgSchema *s, const char *name,
	Rb_FieldType type)
{
    int f = Rb_SchemaFieldIndex(s->rec, name);

    if (f >= 0) {
	return f;
    }
    f = Rb_SchemaAddField(s->rec, name, type, type == RB_FT_INT
	    && strstr(name, "Bytes") != NULL ? RB_UNIT_BYTES : RB_UNIT_NONE,
	    "event attribute");
    if (f < 0) {
	Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		"schema \"%s\" has too many attributes (at most %d fields)",
		s->name, RB_MAX_FIELDS);
    }
    return f;
}

/*
 * AttributeCmd --
 *	attribute NAME int|string: declares an attribute and its type (an
 *	attribute used without a declaration is a string, one named as
 *	-disk or -net bytes an int).
 */
static int
AttributeCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const types[] = {"int", "string", NULL};
    Builder *b = CurrentBuilder(interp);
    int t;

    if (b == NULL) {
	return TCL_ERROR;
    }
    if (objc != 3) {
	Tcl_WrongNumArgs(interp, 1, objv, "name int|string");
	return TCL_ERROR;
    }
    if (Tcl_GetIndexFromObj(interp, objv[2], types, "type", 0, &t)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    if (Rb_SchemaFieldIndex(b->s->rec, Tcl_GetString(objv[1])) >= 0) {
	return Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		"attribute \"%s\" is declared twice or is a reserved field",
		Tcl_GetString(objv[1]));
    }
    return AttributeField(interp, b->s, Tcl_GetString(objv[1]),
	    t == 0 ? RB_FT_INT : RB_FT_STRING) < 0 ? TCL_ERROR : TCL_OK;
}

/*
 * DomainOf --
 *	The join domain of field f: its declared domain, else a domain of
 *	its own named after it.
 */
static int
DomainOf(MgSchema *s, int f)
{
    if (s->fieldDomain[f] < 0) {
	s->domainNames[s->ndomains] = Rb_Strdup(s->rec->fields[f].name);
	s->fieldDomain[f] = s->ndomains++;
    }
    return s->fieldDomain[f];
}

/*
 * DomainCmd --
 *	domain NAME {ATTR ...}: values of these attributes are compared
 *	with each other (a thread id is "NewThread" in one event and
 *	"Thread" in another).
 */
static int
DomainCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Builder *b = CurrentBuilder(interp);
    Tcl_Obj **attrs;
    int n, i, d;

    if (b == NULL) {
	return TCL_ERROR;
    }
    if (objc != 3) {
	Tcl_WrongNumArgs(interp, 1, objv, "name attributes");
	return TCL_ERROR;
    }
    if (Tcl_ListObjGetElements(interp, objv[2], &n, &attrs) != TCL_OK) {
	return TCL_ERROR;
    }
    if (b->s->ndomains >= RB_MAX_FIELDS) {
	return Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		"more than %d domain statements", RB_MAX_FIELDS);
    }
    d = b->s->ndomains++;
    b->s->domainNames[d] = Rb_Strdup(Tcl_GetString(objv[1]));
    for (i = 0; i < n; i++) {
	int f = AttributeField(interp, b->s, Tcl_GetString(attrs[i]),
		RB_FT_STRING);

	if (f < 0) {
	    return TCL_ERROR;
	}
	if (b->s->fieldDomain[f] >= 0) {
	    return Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		    "attribute \"%s\" is in two domains",
		    Tcl_GetString(attrs[i]));
	}
	b->s->fieldDomain[f] = d;
    }
    return TCL_OK;
}

/*
 * EventCmd --
 *	event TYPE ?options?: kept as given; compiled when the whole body
 *	has run, so attribute declarations may come in any order.
 */
static int
EventCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Builder *b = CurrentBuilder(interp);

    if (b == NULL) {
	return TCL_ERROR;
    }
    if (objc < 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "type ?options?");
	return TCL_ERROR;
    }
    Tcl_ListObjAppendElement(NULL, b->eventOpts,
	    Tcl_NewListObj(objc - 1, objv + 1));
    return TCL_OK;
}

/*
 * SyncCmd --
 *	sync SOURCE ATTR DEST: a synchronization from SOURCE to DEST events
 *	sharing ATTR.
 */
static int
SyncCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Builder *b = CurrentBuilder(interp);

    if (b == NULL) {
	return TCL_ERROR;
    }
    if (objc != 4) {
	Tcl_WrongNumArgs(interp, 1, objv, "sourceEvent attribute destEvent");
	return TCL_ERROR;
    }
    Tcl_ListObjAppendElement(NULL, b->syncs, Tcl_NewListObj(3, objv + 1));
    return TCL_OK;
}

/*
 * StitchCmd --
 *	stitch TX RX {ATTR ...}: TX events on one machine and RX events on
 *	another with equal values of the attributes are one packet's
 *	transmission and reception.  The attributes are declared (as
 *	strings) if new.
 */
static int
StitchCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    Builder *b = CurrentBuilder(interp);
    Tcl_Obj **attrs;
    int n, k;

    if (b == NULL) {
	return TCL_ERROR;
    }
    if (objc != 4) {
	Tcl_WrongNumArgs(interp, 1, objv, "txEvent rxEvent attributes");
	return TCL_ERROR;
    }
    if (Tcl_ListObjGetElements(interp, objv[3], &n, &attrs) != TCL_OK) {
	return TCL_ERROR;
    }
    if (n < 1 || n > MG_MAX_STITCH_ATTRS) {
	return Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		"stitch %s %s: give 1 to %d attributes that identify a "
		"packet", Tcl_GetString(objv[1]), Tcl_GetString(objv[2]),
		MG_MAX_STITCH_ATTRS);
    }
    for (k = 0; k < n; k++) {
	if (AttributeField(interp, b->s, Tcl_GetString(attrs[k]),
		RB_FT_STRING) < 0) {
	    return TCL_ERROR;
	}
    }
    Tcl_ListObjGetElements(NULL, b->stitches, &n, &attrs);
    if (n == MG_MAX_STITCHES) {
	return Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		"at most %d stitch statements", MG_MAX_STITCHES);
    }
    Tcl_ListObjAppendElement(NULL, b->stitches, Tcl_NewListObj(3, objv + 1));
    return TCL_OK;
}

/*
 * CompileStitches --
 *	Turns the builder's stitch statements into the schema's table.
 * Results: TCL_OK, or TCL_ERROR for an undeclared event.
 */
static int
CompileStitches(Tcl_Interp *interp, Builder *b)
{
    MgSchema *s = b->s;
    Tcl_Obj **w, **sw, **attrs;
    int n, i, ns, k;

    Tcl_ListObjGetElements(NULL, b->stitches, &n, &w);
    s->stitches = (MgStitch *)Rb_AllocArray(n, sizeof(MgStitch));
    for (i = 0; i < n; i++) {
	MgStitch *st = &s->stitches[i];

	Tcl_ListObjGetElements(NULL, w[i], &ns, &sw);
	Tcl_ListObjGetElements(NULL, sw[2], &st->nfields, &attrs);
	st->tx = MgSchemaEventIndex(s, Tcl_GetString(sw[0]));
	st->rx = MgSchemaEventIndex(s, Tcl_GetString(sw[1]));
	if (st->tx < 0 || st->rx < 0 || st->tx == st->rx) {
	    return Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		    "stitch %s %s: both events must be declared, and differ",
		    Tcl_GetString(sw[0]), Tcl_GetString(sw[1]));
	}
	for (k = 0; k < st->nfields; k++) {
	    st->fields[k] = Rb_SchemaFieldIndex(s->rec,
		    Tcl_GetString(attrs[k]));
	}
	s->nstitches++;
    }
    return TCL_OK;
}

/*
 * FieldArg --
 *	The field of the attribute named by option value v (type given for
 *	a new one).
 */
static int
FieldArg(Tcl_Interp *interp, MgSchema *s, Tcl_Obj *v, Rb_FieldType type,
	int *f)
{
    *f = AttributeField(interp, s, Tcl_GetString(v), type);
    return *f < 0 ? TCL_ERROR : TCL_OK;
}

/*
 * CompileEvent --
 *	Fills ev from {TYPE ?options?}.
 * Results: TCL_OK, or TCL_ERROR naming the event and the bad option.
 */
static int
CompileEvent(Tcl_Interp *interp, MgSchema *s, Tcl_Obj *spec, MgEventType *ev)
{
    static const char *const opts[] = {
	"-join", "-begin", "-end", "-cswitch", "-intrbegin", "-intrend",
	"-disk", "-net", "-startat", NULL
    };
    static const char *const bindings[] = {"basic", "start", "stop", NULL};
    Tcl_Obj **w, **jw;
    int n, i, k, idx, nj;

    Tcl_ListObjGetElements(NULL, spec, &n, &w);
    ev->name = Rb_Strdup(Tcl_GetString(w[0]));
    ev->cswitchCpu = ev->cswitchOld = ev->cswitchNew = -1;
    ev->intrBegin = ev->intrEnd = ev->diskBytes = ev->netBytes = -1;
    ev->syncField = ev->startField = ev->startType = -1;
    for (i = 1; i < n; i++) {
	if (Tcl_GetIndexFromObj(interp, w[i], opts, "option", 0, &idx)
		!= TCL_OK) {
	    goto bad;
	}
	if (idx != 1 && idx != 2 && i + 1 >= n) {
	    Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		    "option %s needs a value", opts[idx]);
	    goto bad;
	}
	switch (idx) {
	case 0:
	    if (Tcl_ListObjGetElements(interp, w[++i], &nj, &jw) != TCL_OK) {
		goto bad;
	    }
	    if (nj % 2) {
		Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
			"-join wants pairs of attribute and binding");
		goto bad;
	    }
	    if (ev->joins != NULL) {
		/* A second list would be written past the first's
		 * allocation (found by fuzz_magpieschema). */
		Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
			"-join given twice (one list holds every join)");
		goto bad;
	    }
	    ev->joins = (MgJoin *)Rb_AllocArray(nj / 2, sizeof(MgJoin));
	    for (k = 0; k < nj; k += 2) {
		MgJoin *j = &ev->joins[ev->njoins++];
		int bi;

		if (FieldArg(interp, s, jw[k], RB_FT_STRING, &j->field)
			!= TCL_OK || Tcl_GetIndexFromObj(interp, jw[k + 1],
			bindings, "binding", 0, &bi) != TCL_OK) {
		    goto bad;
		}
		j->binding = (MgBinding)bi;
		j->domain = DomainOf(s, j->field);
	    }
	    break;
	case 1:
	    ev->begin = 1;
	    break;
	case 2:
	    ev->end = 1;
	    break;
	case 3:
	    if (Tcl_ListObjGetElements(interp, w[++i], &nj, &jw) != TCL_OK) {
		goto bad;
	    }
	    if (nj != 3) {
		Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
			"-cswitch wants {cpuAttr oldThreadAttr newThreadAttr}");
		goto bad;
	    }
	    if (FieldArg(interp, s, jw[0], RB_FT_STRING, &ev->cswitchCpu)
		    != TCL_OK
		    || FieldArg(interp, s, jw[1], RB_FT_STRING,
			&ev->cswitchOld) != TCL_OK
		    || FieldArg(interp, s, jw[2], RB_FT_STRING,
			&ev->cswitchNew) != TCL_OK) {
		goto bad;
	    }
	    break;
	case 4:
	    if (FieldArg(interp, s, w[++i], RB_FT_STRING, &ev->intrBegin)
		    != TCL_OK) {
		goto bad;
	    }
	    break;
	case 5:
	    if (FieldArg(interp, s, w[++i], RB_FT_STRING, &ev->intrEnd)
		    != TCL_OK) {
		goto bad;
	    }
	    break;
	case 6:
	case 7:
	    if (FieldArg(interp, s, w[++i], RB_FT_INT, idx == 6
		    ? &ev->diskBytes : &ev->netBytes) != TCL_OK) {
		goto bad;
	    }
	    if (s->rec->fields[idx == 6 ? ev->diskBytes
		    : ev->netBytes].type != RB_FT_INT) {
		Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
			"byte count attribute \"%s\" must be an int",
			Tcl_GetString(w[i]));
		goto bad;
	    }
	    break;
	case 8:
	    if (Tcl_ListObjGetElements(interp, w[++i], &nj, &jw) != TCL_OK) {
		goto bad;
	    }
	    if (nj != 2 || ev->startName != NULL) {
		Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
			"-startat wants one {startTimeAttr startEvent}");
		goto bad;
	    }
	    if (FieldArg(interp, s, jw[0], RB_FT_INT, &ev->startField)
		    != TCL_OK) {
		goto bad;
	    }
	    if (s->rec->fields[ev->startField].type != RB_FT_INT) {
		Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
			"start time attribute \"%s\" must be an int (ns)",
			Tcl_GetString(jw[0]));
		goto bad;
	    }
	    ev->startName = Rb_Strdup(Tcl_GetString(jw[1]));
	    break;
	}
    }
    return TCL_OK;

  bad:
    Tcl_AppendObjToErrorInfo(interp, Tcl_ObjPrintf(
	    "\n    (in event \"%s\")", Tcl_GetString(w[0])));
    return TCL_ERROR;
}

/*
 * SetSyncField --
 *	Records that event type takes part in a sync through field; the
 *	parser keeps one such value per event, so every sync of a type
 *	must use the same attribute.
 */
static int
SetSyncField(Tcl_Interp *interp, MgSchema *s, int type, int field)
{
    MgEventType *ev = &s->events[type];

    if (ev->syncField >= 0 && ev->syncField != field) {
	return Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		"event \"%s\" takes part in syncs through two attributes, "
		"\"%s\" and \"%s\" (one per event type)", ev->name,
		s->rec->fields[ev->syncField].name, s->rec->fields[field].name);
    }
    ev->syncField = field;
    return TCL_OK;
}

/*
 * Compile --
 *	Turns the builder's events and syncs into the schema's tables, and
 *	checks that every context switch names threads of one domain.
 */
static int
Compile(Tcl_Interp *interp, Builder *b)
{
    MgSchema *s = b->s;
    Tcl_Obj **w, **sw;
    int n, i, ns;

    Tcl_ListObjGetElements(NULL, b->eventOpts, &n, &w);
    s->events = (MgEventType *)Rb_AllocArray(n, sizeof(MgEventType));
    s->threadDomain = -1;
    for (i = 0; i < n; i++) {
	MgEventType *ev = &s->events[i];

	if (CompileEvent(interp, s, w[i], ev) != TCL_OK) {
	    s->nevents = i + 1;
	    return TCL_ERROR;
	}
	s->nevents = i + 1;
	if (MgSchemaEventIndex(s, ev->name) != i) {
	    return Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		    "event \"%s\" is declared twice", ev->name);
	}
	if (ev->cswitchCpu >= 0) {
	    int dOld = DomainOf(s, ev->cswitchOld);
	    int dNew = DomainOf(s, ev->cswitchNew);

	    if (dOld != dNew || (s->threadDomain >= 0
		    && s->threadDomain != dNew)) {
		return Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
			"event \"%s\": the threads of every -cswitch must be "
			"in one domain (declare one with \"domain\")",
			ev->name);
	    }
	    s->threadDomain = dNew;
	}
    }
    for (i = 0, ns = 0; i < s->nevents; i++) {
	MgEventType *ev = &s->events[i];

	if (ev->startName == NULL) {
	    continue;
	}
	if (++ns > MG_MAX_STARTS) {
	    return Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		    "event \"%s\": more than %d events with -startat",
		    ev->name, MG_MAX_STARTS);
	}
	ev->startType = MgSchemaEventIndex(s, ev->startName);
	if (ev->startType < 0 || ev->startType == i
		|| s->events[ev->startType].startName != NULL) {
	    return Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		    "event \"%s\": -startat names \"%s\", which must be "
		    "another declared event without -startat", ev->name,
		    ev->startName);
	}
    }
    Tcl_ListObjGetElements(NULL, b->syncs, &n, &w);
    s->syncs = (MgSync *)Rb_AllocArray(n, sizeof(MgSync));
    for (i = 0; i < n; i++) {
	MgSync *y = &s->syncs[i];

	Tcl_ListObjGetElements(NULL, w[i], &ns, &sw);
	y->source = MgSchemaEventIndex(s, Tcl_GetString(sw[0]));
	y->dest = MgSchemaEventIndex(s, Tcl_GetString(sw[2]));
	y->field = Rb_SchemaFieldIndex(s->rec, Tcl_GetString(sw[1]));
	if (y->source < 0 || y->dest < 0 || y->field < 0) {
	    return Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		    "sync %s %s %s: both events must be declared and the "
		    "attribute used", Tcl_GetString(sw[0]),
		    Tcl_GetString(sw[1]), Tcl_GetString(sw[2]));
	}
	if (SetSyncField(interp, s, y->source, y->field) != TCL_OK
		|| SetSyncField(interp, s, y->dest, y->field) != TCL_OK) {
	    return TCL_ERROR;
	}
	s->nsyncs++;
    }
    return CompileStitches(interp, b);
}

/*
 * StitchesInfo --
 *	The stitch statements of s as a list of {TX RX {ATTR ...}}.
 */
static Tcl_Obj *
StitchesInfo(const MgSchema *s)
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);
    int i, k;

    for (i = 0; i < s->nstitches; i++) {
	const MgStitch *st = &s->stitches[i];
	Tcl_Obj *attrs = Tcl_NewListObj(0, NULL);

	for (k = 0; k < st->nfields; k++) {
	    Tcl_ListObjAppendElement(NULL, attrs, Tcl_NewStringObj(
		    s->rec->fields[st->fields[k]].name, -1));
	}
	Tcl_ListObjAppendElement(NULL, list, Tcl_NewListObj(3, (Tcl_Obj *[]){
		Tcl_NewStringObj(s->events[st->tx].name, -1),
		Tcl_NewStringObj(s->events[st->rx].name, -1), attrs}));
    }
    return list;
}

/*
 * SchemaInfo --
 *	A dict describing s: fields {name type ...}, events {TYPE {joins
 *	{attr binding ...} begin 0|1 end 0|1 ...}}, domains, syncs, stitches.
 */
static Tcl_Obj *
SchemaInfo(const MgSchema *s)
{
    static const char *const bindings[] = {"basic", "start", "stop"};
    Tcl_Obj *d = Tcl_NewDictObj(), *fields = Tcl_NewListObj(0, NULL);
    Tcl_Obj *events = Tcl_NewDictObj(), *domains = Tcl_NewDictObj();
    Tcl_Obj *syncs = Tcl_NewListObj(0, NULL);
    int i, k;

    for (i = 0; i < s->rec->nfields; i++) {
	Tcl_ListObjAppendElement(NULL, fields,
		Tcl_NewStringObj(s->rec->fields[i].name, -1));
	Tcl_ListObjAppendElement(NULL, fields, Tcl_NewStringObj(
		s->rec->fields[i].type == RB_FT_INT ? "int" : "string", -1));
    }
    for (i = 0; i < s->nevents; i++) {
	const MgEventType *ev = &s->events[i];
	Tcl_Obj *e = Tcl_NewDictObj(), *j = Tcl_NewListObj(0, NULL);

	for (k = 0; k < ev->njoins; k++) {
	    Tcl_ListObjAppendElement(NULL, j, Tcl_NewStringObj(
		    s->rec->fields[ev->joins[k].field].name, -1));
	    Tcl_ListObjAppendElement(NULL, j, Tcl_NewStringObj(
		    bindings[ev->joins[k].binding], -1));
	}
	Tcl_DictObjPut(NULL, e, Tcl_NewStringObj("joins", -1), j);
	Tcl_DictObjPut(NULL, e, Tcl_NewStringObj("begin", -1),
		Tcl_NewIntObj(ev->begin));
	Tcl_DictObjPut(NULL, e, Tcl_NewStringObj("end", -1),
		Tcl_NewIntObj(ev->end));
	Tcl_DictObjPut(NULL, e, Tcl_NewStringObj("cswitch", -1),
		Tcl_NewIntObj(ev->cswitchCpu >= 0));
	Tcl_DictObjPut(NULL, events, Tcl_NewStringObj(ev->name, -1), e);
    }
    for (i = 0; i < s->rec->nfields; i++) {
	if (s->fieldDomain[i] >= 0) {
	    Tcl_Obj *key = Tcl_NewStringObj(
		    s->domainNames[s->fieldDomain[i]], -1);

	    Tcl_DictObjPut(NULL, domains, key, Tcl_NewStringObj(
		    s->rec->fields[i].name, -1));
	}
    }
    for (i = 0; i < s->nsyncs; i++) {
	Tcl_ListObjAppendElement(NULL, syncs, Tcl_ObjPrintf("%s %s %s",
		s->events[s->syncs[i].source].name,
		s->rec->fields[s->syncs[i].field].name,
		s->events[s->syncs[i].dest].name));
    }
    Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("fields", -1), fields);
    Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("events", -1), events);
    Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("syncs", -1), syncs);
    Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("stitches", -1),
	    StitchesInfo(s));
    return d;
}

/*
 * SchemaCmd --
 *	magpie::schema NAME BODY: defines (or replaces) a schema; returns
 *	NAME.  magpie::schema NAME: the schema as a dict.
 */
static int
SchemaCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Builder b;
    MgSchema *s;
    char recName[256];
    int rc, i;

    if (objc != 2 && objc != 3) {
	Tcl_WrongNumArgs(interp, 1, objv, "name ?body?");
	return TCL_ERROR;
    }
    if (objc == 2) {
	s = MgSchemaFind(Tcl_GetString(objv[1]));
	if (s == NULL) {
	    return Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		    "no Magpie schema \"%s\"", Tcl_GetString(objv[1]));
	}
	Tcl_SetObjResult(interp, SchemaInfo(s));
	MgSchemaRelease(s);
	return TCL_OK;
    }
    if (Tcl_GetAssocData(interp, BUILDER_KEY, NULL) != NULL) {
	return Rb_SetInterpError(interp, "RUBICON MAGPIE SCHEMA",
		"magpie::schema cannot be nested");
    }
    s = (MgSchema *)Rb_Alloc(sizeof(MgSchema));
    s->name = Rb_Strdup(Tcl_GetString(objv[1]));
    s->refCount = 1;
    snprintf(recName, sizeof(recName), "magpie:%s", s->name);
    s->rec = Rb_SchemaCreate(recName);
    s->fMachine = Rb_SchemaAddField(s->rec, "machine", RB_FT_STRING,
	    RB_UNIT_NONE, "machine (log file) the event came from");
    s->fEvent = Rb_SchemaAddField(s->rec, "event", RB_FT_STRING,
	    RB_UNIT_NONE, "event type, Provider/EventName");
    for (i = 0; i < RB_MAX_FIELDS; i++) {
	s->fieldDomain[i] = -1;
    }
    b.s = s;
    b.eventOpts = Tcl_NewListObj(0, NULL);
    b.syncs = Tcl_NewListObj(0, NULL);
    b.stitches = Tcl_NewListObj(0, NULL);
    Tcl_IncrRefCount(b.eventOpts);
    Tcl_IncrRefCount(b.syncs);
    Tcl_IncrRefCount(b.stitches);
    Tcl_SetAssocData(interp, BUILDER_KEY, NULL, &b);
    rc = Tcl_EvalObjEx(interp, Tcl_NewListObj(4, (Tcl_Obj *[]){
	    Tcl_NewStringObj("namespace", -1), Tcl_NewStringObj("eval", -1),
	    Tcl_NewStringObj("::magpie::dsl", -1), objv[2]}), 0);
    Tcl_DeleteAssocData(interp, BUILDER_KEY);
    if (rc == TCL_OK) {
	rc = Compile(interp, &b);
    }
    Tcl_DecrRefCount(b.eventOpts);
    Tcl_DecrRefCount(b.syncs);
    Tcl_DecrRefCount(b.stitches);
    if (rc == TCL_OK) {
	rc = Register(interp, s);
    }
    if (rc != TCL_OK) {
	Tcl_AppendObjToErrorInfo(interp, Tcl_ObjPrintf(
		"\n    (in Magpie schema \"%s\")", s->name));
	MgSchemaRelease(s);
	return TCL_ERROR;
    }
    Tcl_SetObjResult(interp, objv[1]);
    return TCL_OK;
}

/*
 * MgSchemaInitCmds --
 *	Creates magpie::schema and the statements of its body.
 */
int
MgSchemaInitCmds(Tcl_Interp *interp)
{
    Tcl_CreateObjCommand(interp, "::magpie::schema", SchemaCmd, NULL, NULL);
    Tcl_CreateObjCommand(interp, "::magpie::dsl::attribute", AttributeCmd,
	    NULL, NULL);
    Tcl_CreateObjCommand(interp, "::magpie::dsl::domain", DomainCmd, NULL,
	    NULL);
    Tcl_CreateObjCommand(interp, "::magpie::dsl::event", EventCmd, NULL,
	    NULL);
    Tcl_CreateObjCommand(interp, "::magpie::dsl::sync", SyncCmd, NULL, NULL);
    Tcl_CreateObjCommand(interp, "::magpie::dsl::stitch", StitchCmd, NULL,
	    NULL);
    return TCL_OK;
}
