/*
 * types.c --
 *
 *	Activity-record type sets.  Stardust compiled records.txt (a type
 *	name, then attribute names and types) into its logging library;
 *	here the same declarations are made in Tcl with stardust::declare
 *	and a reader is told which set to use with -readeroptions {typeset
 *	NAME}.  Every set begins with the standard types, whose ids are
 *	fixed so that binary files written by any tool agree.
 */

#include <stdlib.h>
#include <string.h>
#include "plugins/stardust/stardust.h"

#define FIRST_USER_ID	100

typedef struct StdType {
    const char *name;
    const char *decl;		/* attr type attr type ... */
} StdType;

/* Ids are the position in this table, from 1. */
static const StdType standardTypes[] = {
    {"UserThreadSwitch", "cpu int oldTid int newTid int"},
    {"KernelProcessSwitch", "cpu int oldPid int newPid int"},
    {"BufferReadHit", "file long offset long size int"},
    {"BufferReadMiss", "file long offset long size int"},
    {"BufferWrite", "file long offset long size int"},
    {"BufferReadAhead", "file long offset long size int"},
    {"BufferFlush", "file long offset long size int"},
    {"BufferEvict", "file long offset long size int"},
    {"NetworkTransmit", "src int dst int bytes int"},
    {"DiskOpStart", "disk int ioId long offset long size int op byte"},
    {"DiskOpEnd", "disk int ioId long"},
    {"Call", "service string name string"},
    {"Reply", "service string name string"},
    {"Stitch", "srcBreadcrumb long dstBreadcrumb long"},
    {"RemoteEndpoint", "service string ipv4 string ipv6 string port int"},
    {"SpanSelf", "service string name string self long"},
    {NULL, NULL}
};

const char *const Sd_BufferTypes[6] = {
    "BufferReadHit", "BufferReadMiss", "BufferWrite", "BufferReadAhead",
    "BufferFlush", "BufferEvict"
};

static const char *const attrTypeNames[] = {
    "byte", "short", "int", "long", "string", NULL
};

/* Unused when Tcl is built without threads, where locking is a no-op. */
static Tcl_Mutex registryMutex __attribute__((unused));
static Tcl_HashTable registry;	/* set name -> current SdTypeSet * */
static int registryReady;

/*
 * Sd_AttrTypeName --
 *	The records.txt spelling of an attribute type.
 */
const char *
Sd_AttrTypeName(SdAttrType type)
{
    return attrTypeNames[type];
}

static char *
CopyString(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = Rb_Alloc(n);

    memcpy(p, s, n);
    return p;
}

/*
 * FreeSet --
 *	Frees a set that nothing refers to any more, with its schema
 *	reference.
 */
static void
FreeSet(SdTypeSet *set)
{
    int i, k;

    for (i = 0; i < set->ntypes; i++) {
	for (k = 0; k < set->types[i].nattrs; k++) {
	    free(set->types[i].attrs[k].name);
	}
	free(set->types[i].name);
    }
    free(set->types);
    if (set->schema) {
	Rb_SchemaRelease(set->schema);
    }
    free(set->name);
    free(set);
}

/*
 * BuildSchema --
 *	Makes the activity schema of a set: the fixed fields, then one field
 *	per distinct attribute name, and records each attribute's field.
 * Results: TCL_OK, or TCL_ERROR with err set when an attribute name is
 *	used with a string type in one record type and a number in another,
 *	clashes with a fixed field, or the schema would be too wide.
 */
static int
BuildSchema(SdTypeSet *set, Rb_Error *err)
{
    Rb_Schema *s = Rb_SchemaCreate("stardust");
    int i, k, f;

    Rb_SchemaAddField(s, "type", RB_FT_STRING, RB_UNIT_NONE,
	    "activity record type");
    Rb_SchemaAddField(s, "breadcrumb", RB_FT_INT, RB_UNIT_NONE,
	    "request id (top 8 bits: client)");
    Rb_SchemaAddField(s, "client", RB_FT_INT, RB_UNIT_NONE,
	    "client id, the breadcrumb's top 8 bits");
    Rb_SchemaAddField(s, "pid", RB_FT_INT, RB_UNIT_NONE, "process id");
    Rb_SchemaAddField(s, "tid", RB_FT_INT, RB_UNIT_NONE, "thread id");
    for (i = 0; i < set->ntypes; i++) {
	SdType *t = &set->types[i];

	for (k = 0; k < t->nattrs; k++) {
	    SdAttr *at = &t->attrs[k];
	    Rb_FieldType ft = at->type == SD_STRING ? RB_FT_STRING : RB_FT_INT;

	    f = Rb_SchemaFieldIndex(s, at->name);
	    if (f >= 0 && f < SD_F_NFIXED) {
		Rb_SetError(err, "RUBICON STARDUST TYPE", "attribute \"%s\" "
			"of %s is a fixed field of every activity record",
			at->name, t->name);
		goto fail;
	    }
	    if (f >= 0 && s->fields[f].type != ft) {
		Rb_SetError(err, "RUBICON STARDUST TYPE", "attribute \"%s\" "
			"of %s is a %s here and of the other type elsewhere",
			at->name, t->name, Sd_AttrTypeName(at->type));
		goto fail;
	    }
	    if (f < 0) {
		f = Rb_SchemaAddField(s, at->name, ft, RB_UNIT_NONE,
			"activity record attribute");
	    }
	    if (f < 0) {
		Rb_SetError(err, "RUBICON STARDUST TYPE", "too many distinct "
			"attribute names (at most %d fields)", RB_MAX_FIELDS);
		goto fail;
	    }
	    at->field = f;
	}
    }
    set->schema = s;
    return TCL_OK;

  fail:
    Rb_SchemaRelease(s);
    return TCL_ERROR;
}

/*
 * ParseDecl --
 *	Fills t's attributes from a list "attr type attr type ...".
 * Results: TCL_OK, or TCL_ERROR with err set.
 */
static int
ParseDecl(SdType *t, int objc, Tcl_Obj *const objv[], Rb_Error *err)
{
    int k, j, idx;

    if (objc % 2 != 0 || objc / 2 > SD_MAX_ATTRS) {
	Rb_SetError(err, "RUBICON STARDUST TYPE", "type %s: attributes must "
		"be name/type pairs, at most %d", t->name, SD_MAX_ATTRS);
	return TCL_ERROR;
    }
    for (k = 0; k < objc; k += 2) {
	if (Tcl_GetIndexFromObj(NULL, objv[k + 1], attrTypeNames, "type", 0,
		&idx) != TCL_OK) {
	    Rb_SetError(err, "RUBICON STARDUST TYPE", "type %s: attribute "
		    "%s has type \"%s\"; must be byte, short, int, long or "
		    "string", t->name, Tcl_GetString(objv[k]),
		    Tcl_GetString(objv[k + 1]));
	    return TCL_ERROR;
	}
	for (j = 0; j < t->nattrs; j++) {
	    if (strcmp(t->attrs[j].name, Tcl_GetString(objv[k])) == 0) {
		Rb_SetError(err, "RUBICON STARDUST TYPE", "type %s: attribute "
			"%s declared twice", t->name, Tcl_GetString(objv[k]));
		return TCL_ERROR;
	    }
	}
	t->attrs[t->nattrs].name = CopyString(Tcl_GetString(objv[k]));
	t->attrs[t->nattrs].type = (SdAttrType)idx;
	t->nattrs++;
    }
    return TCL_OK;
}

/*
 * CopySet --
 *	A new set named name holding a copy of old's types (none if old is
 *	NULL) and room for one more.
 */
static SdTypeSet *
CopySet(const char *name, const SdTypeSet *old)
{
    SdTypeSet *set = Rb_Alloc(sizeof(*set));
    int i, k, n = old ? old->ntypes : 0;

    set->name = CopyString(name);
    set->types = Rb_AllocArray(n + 1, sizeof(SdType));
    for (i = 0; i < n; i++) {
	set->types[i] = old->types[i];
	set->types[i].name = CopyString(old->types[i].name);
	for (k = 0; k < old->types[i].nattrs; k++) {
	    set->types[i].attrs[k].name = CopyString(old->types[i].attrs[k].name);
	}
    }
    set->ntypes = n;
    set->refCount = 1;
    return set;
}

/*
 * AddType --
 *	Appends a type to a set still being built (room for it reserved by
 *	CopySet).  id 0 takes the next free id from FIRST_USER_ID.
 * Results: TCL_OK, or TCL_ERROR with err set (name or id in use, bad
 *	declaration).
 */
static int
AddType(SdTypeSet *set, const char *name, int id, Tcl_Obj *decl,
	Rb_Error *err)
{
    SdType *t = &set->types[set->ntypes];
    Tcl_Obj **objv;
    int objc, i;

    if (Sd_TypeByName(set, name) != NULL) {
	Rb_SetError(err, "RUBICON STARDUST TYPE", "type %s is already "
		"declared in set %s", name, set->name);
	return TCL_ERROR;
    }
    if (id == 0) {
	id = FIRST_USER_ID;
	for (i = 0; i < set->ntypes; i++) {
	    if (set->types[i].id >= id) {
		id = set->types[i].id + 1;
	    }
	}
    }
    if (id < 1 || id > 65535 || Sd_TypeById(set, id) != NULL) {
	Rb_SetError(err, "RUBICON STARDUST TYPE", "type id %d of %s is in "
		"use or outside 1..65535", id, name);
	return TCL_ERROR;
    }
    memset(t, 0, sizeof(*t));
    t->name = CopyString(name);
    t->id = id;
    if (Tcl_ListObjGetElements(NULL, decl, &objc, &objv) != TCL_OK
	    || ParseDecl(t, objc, objv, err) != TCL_OK) {
	if (!err->code[0]) {
	    Rb_SetError(err, "RUBICON STARDUST TYPE", "type %s: the "
		    "attributes are not a list", name);
	}
	for (i = 0; i < t->nattrs; i++) {
	    free(t->attrs[i].name);
	}
	free(t->name);
	return TCL_ERROR;
    }
    set->ntypes++;
    return TCL_OK;
}

/*
 * StandardSet --
 *	A new set holding the standard types.
 */
static SdTypeSet *
StandardSet(const char *name)
{
    SdTypeSet *set = CopySet(name, NULL);
    Rb_Error err;
    int i;

    free(set->types);
    set->types = Rb_AllocArray(
	    sizeof(standardTypes) / sizeof(standardTypes[0]), sizeof(SdType));
    for (i = 0; standardTypes[i].name; i++) {
	Tcl_Obj *decl = Tcl_NewStringObj(standardTypes[i].decl, -1);

	Tcl_IncrRefCount(decl);
	err.code[0] = '\0';
	AddType(set, standardTypes[i].name, i + 1, decl, &err);
	Tcl_DecrRefCount(decl);
    }
    BuildSchema(set, &err);
    return set;
}

/*
 * CurrentSet --
 *	The registry's set of that name, made with the standard types on
 *	first use.  Caller holds the mutex.
 */
static SdTypeSet *
CurrentSet(const char *name)
{
    Tcl_HashEntry *e;
    int isNew;

    if (!registryReady) {
	Tcl_InitHashTable(&registry, TCL_STRING_KEYS);
	registryReady = 1;
    }
    e = Tcl_CreateHashEntry(&registry, name, &isNew);
    if (isNew) {
	Tcl_SetHashValue(e, StandardSet(name));
    }
    return Tcl_GetHashValue(e);
}

/*
 * Sd_TypeSetGet --
 *	The current set of that name, with a reference the caller releases.
 */
SdTypeSet *
Sd_TypeSetGet(const char *name)
{
    SdTypeSet *set;

    Tcl_MutexLock(&registryMutex);
    set = CurrentSet(name);
    set->refCount++;
    Tcl_MutexUnlock(&registryMutex);
    return set;
}

/*
 * Sd_TypeSetRelease --
 *	Drops a reference; the set is freed when it has been replaced and
 *	no reader holds it.
 */
void
Sd_TypeSetRelease(SdTypeSet *set)
{
    int last;

    Tcl_MutexLock(&registryMutex);
    last = --set->refCount == 0;
    Tcl_MutexUnlock(&registryMutex);
    if (last) {
	FreeSet(set);
    }
}

/*
 * Sd_TypeSetFromOptions --
 *	The set a reader's options name with "typeset" (default "default").
 * Results: a referenced set, or NULL with err set for a malformed dict.
 */
SdTypeSet *
Sd_TypeSetFromOptions(Tcl_Obj *options, Rb_Error *err)
{
    Tcl_Obj *key, *val = NULL;
    const char *name = SD_DEFAULT_SET;

    if (options != NULL) {
	key = Tcl_NewStringObj("typeset", -1);
	Tcl_IncrRefCount(key);
	if (Tcl_DictObjGet(NULL, options, key, &val) != TCL_OK) {
	    Tcl_DecrRefCount(key);
	    Rb_SetError(err, "RUBICON READER OPTION", "reader options must "
		    "be a dict, not \"%s\"", Tcl_GetString(options));
	    return NULL;
	}
	Tcl_DecrRefCount(key);
	if (val != NULL) {
	    name = Tcl_GetString(val);
	}
    }
    return Sd_TypeSetGet(name);
}

const SdType *
Sd_TypeById(const SdTypeSet *set, int id)
{
    int i;

    for (i = 0; i < set->ntypes; i++) {
	if (set->types[i].id == id) {
	    return &set->types[i];
	}
    }
    return NULL;
}

const SdType *
Sd_TypeByName(const SdTypeSet *set, const char *name)
{
    int i;

    for (i = 0; i < set->ntypes; i++) {
	if (strcmp(set->types[i].name, name) == 0) {
	    return &set->types[i];
	}
    }
    return NULL;
}

/*
 * SetOption --
 *	Parses "?-set name? ?-id n?" from objv[1..]; returns the index of
 *	the first other argument, or -1 with an error in interp.
 */
static int
SetOption(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[],
	const char **setName, int *id)
{
    static const char *const opts[] = {"-set", "-id", NULL};
    int i = 1, idx;

    while (i + 1 < objc && Tcl_GetString(objv[i])[0] == '-') {
	if (Tcl_GetIndexFromObj(interp, objv[i], opts, "option", 0, &idx)
		!= TCL_OK) {
	    return -1;
	}
	if (idx == 0) {
	    *setName = Tcl_GetString(objv[i + 1]);
	} else if (id == NULL) {
	    Rb_SetInterpError(interp, "RUBICON OPTION UNKNOWN",
		    "-id is only for stardust::declare");
	    return -1;
	} else if (Tcl_GetIntFromObj(interp, objv[i + 1], id) != TCL_OK) {
	    return -1;
	}
	i += 2;
    }
    return i;
}

/*
 * DeclareCmd --
 *	stardust::declare ?-set NAME? ?-id N? TYPE {attr type ...}
 *	Declares a record type in a set (default "default"), replacing the
 *	set with one that has it.  Returns the type's id.
 */
static int
DeclareCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    const char *setName = SD_DEFAULT_SET;
    SdTypeSet *old, *set;
    Tcl_HashEntry *e;
    Rb_Error err;
    int id = 0, i;

    i = SetOption(interp, objc, objv, &setName, &id);
    if (i < 0) {
	return TCL_ERROR;
    }
    if (objc - i != 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "?-set name? ?-id n? type attrs");
	return TCL_ERROR;
    }
    err.code[0] = '\0';
    Tcl_MutexLock(&registryMutex);
    old = CurrentSet(setName);
    set = CopySet(setName, old);
    if (AddType(set, Tcl_GetString(objv[i]), id, objv[i + 1], &err)
	    != TCL_OK || BuildSchema(set, &err) != TCL_OK) {
	Tcl_MutexUnlock(&registryMutex);
	FreeSet(set);
	return Rb_ErrorToInterp(interp, &err);
    }
    id = set->types[set->ntypes - 1].id;
    e = Tcl_FindHashEntry(&registry, setName);
    Tcl_SetHashValue(e, set);
    if (--old->refCount == 0) {
	FreeSet(old);
    }
    Tcl_MutexUnlock(&registryMutex);
    Tcl_SetObjResult(interp, Tcl_NewIntObj(id));
    return TCL_OK;
}

/*
 * SetFromArgs --
 *	The set named by "?-set NAME?", the only arguments a listing
 *	command takes.
 * Results: a referenced set, or NULL with an error in interp.
 */
static SdTypeSet *
SetFromArgs(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    const char *setName = SD_DEFAULT_SET;
    int i = SetOption(interp, objc, objv, &setName, NULL);

    if (i < 0) {
	return NULL;
    }
    if (i != objc) {
	Tcl_WrongNumArgs(interp, 1, objv, "?-set name?");
	return NULL;
    }
    return Sd_TypeSetGet(setName);
}

/*
 * TypesCmd --
 *	stardust::types ?-set NAME?: the set's types as a list of
 *	{name id {attr type ...}}, standard types first.
 */
static int
TypesCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    SdTypeSet *set = SetFromArgs(interp, objc, objv);
    Tcl_Obj *list;
    int i, k;

    if (set == NULL) {
	return TCL_ERROR;
    }
    list = Tcl_NewListObj(0, NULL);
    for (i = 0; i < set->ntypes; i++) {
	Tcl_Obj *decl = Tcl_NewListObj(0, NULL);

	for (k = 0; k < set->types[i].nattrs; k++) {
	    Tcl_ListObjAppendElement(NULL, decl,
		    Tcl_NewStringObj(set->types[i].attrs[k].name, -1));
	    Tcl_ListObjAppendElement(NULL, decl, Tcl_NewStringObj(
		    Sd_AttrTypeName(set->types[i].attrs[k].type), -1));
	}
	Tcl_ListObjAppendElement(NULL, list, Tcl_NewListObj(3, (Tcl_Obj *[]){
		Tcl_NewStringObj(set->types[i].name, -1),
		Tcl_NewIntObj(set->types[i].id), decl}));
    }
    Sd_TypeSetRelease(set);
    Tcl_SetObjResult(interp, list);
    return TCL_OK;
}

/*
 * FieldsCmd --
 *	stardust::fields ?-set NAME?: the field names of the set's activity
 *	schema, as Filters and analyzers see them.
 */
static int
FieldsCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    SdTypeSet *set = SetFromArgs(interp, objc, objv);
    Tcl_Obj *list;
    int i;

    if (set == NULL) {
	return TCL_ERROR;
    }
    list = Tcl_NewListObj(0, NULL);
    for (i = 0; i < set->schema->nfields; i++) {
	Tcl_ListObjAppendElement(NULL, list,
		Tcl_NewStringObj(set->schema->fields[i].name, -1));
    }
    Sd_TypeSetRelease(set);
    Tcl_SetObjResult(interp, list);
    return TCL_OK;
}

/*
 * Sd_TypesInitCmds --
 *	Creates stardust::declare, stardust::types and stardust::fields.
 */
int
Sd_TypesInitCmds(Tcl_Interp *interp)
{
    Tcl_CreateObjCommand(interp, "::stardust::declare", DeclareCmd, NULL,
	    NULL);
    Tcl_CreateObjCommand(interp, "::stardust::types", TypesCmd, NULL, NULL);
    Tcl_CreateObjCommand(interp, "::stardust::fields", FieldsCmd, NULL,
	    NULL);
    return TCL_OK;
}
