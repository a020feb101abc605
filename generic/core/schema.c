/*
 * schema.c --
 *
 *	Record schemas: named, typed fields looked up once at configuration,
 *	an interned string table for text fields, and the standard I/O schema.
 */

#include <string.h>
#include <strings.h>
#include "rbInt.h"

static int	NameIndex(const Rb_Schema *s, const char *name);

struct Rb_StrTab {
    Tcl_HashTable byText;	/* text -> id */
    char **texts;		/* id -> text */
    int64_t n, cap;
};

/*
 * Rb_SchemaCreate --
 *	Makes a schema called name holding only field 0, "time" (an
 *	integer in ns), and an empty string table.
 * Results: the schema, with one reference for the caller.
 * Side effects: allocates it; Rb_SchemaRelease frees it.
 */
Rb_Schema *
Rb_SchemaCreate(const char *name)
{
    Rb_Schema *s = Rb_Alloc(sizeof(*s));

    s->name = Rb_Strdup(name);
    s->refCount = 1;
    s->strings = Rb_Alloc(sizeof(Rb_StrTab));
    Tcl_InitHashTable(&s->strings->byText, TCL_STRING_KEYS);
    Rb_SchemaAddField(s, "time", RB_FT_INT, RB_UNIT_NS,
	    "record time, ns from the trace epoch");
    return s;
}

/*
 * Rb_SchemaAddField --
 *	Appends a field of that name, type, unit and help (NULL: "").
 * Results: its index, or -1 if a field of that name (without regard to
 *	case) exists or the schema has RB_MAX_FIELDS already.
 * Side effects: copies name and help into the schema; nothing on -1.
 */
int
Rb_SchemaAddField(Rb_Schema *s, const char *name, Rb_FieldType type,
	Rb_Unit unit, const char *help)
{
    Rb_Field *f;

    if (s->nfields >= RB_MAX_FIELDS || NameIndex(s, name) >= 0) {
	return -1;
    }
    f = &s->fields[s->nfields];
    f->name = Rb_Strdup(name);
    f->type = type;
    f->unit = unit;
    f->help = Rb_Strdup(help ? help : "");
    return s->nfields++;
}

/*
 * NameIndex --
 *	The index of the field of exactly that name (without regard to
 *	case), or -1.
 */
static int
NameIndex(const Rb_Schema *s, const char *name)
{
    int i;

    for (i = 0; i < s->nfields; i++) {
	if (strcasecmp(s->fields[i].name, name) == 0) {
	    return i;
	}
    }
    return -1;
}

/*
 * The field names of the paper's filter language (its Appendix B) that
 * the I/O schema calls otherwise.
 */
static const struct { const char *alias, *name; } fieldAliases[] = {
    {"createTime", "time"},
    {"offset", "devOffset"},
    {"startAddress", "devOffset"},
    {"lvDeviceNo", "lvNo"},
    {"operation", "op"},
    {"reqSize", "size"},
    {"qlen", "queueLen"},
    {"size", "objectSize"},
    {"key", "objectId"},
};

/*
 * Rb_SchemaFieldIndex --
 *	Looks a field up by name, without regard to case; a name of the
 *	paper's filter language (createTime, offset, startAddress,
 *	lvDeviceNo, operation, reqSize, qlen) finds the field it stands for
 *	when the schema has no field of that name itself, as do "size"
 *	(objectSize) and "key" (objectId) in the object schema.
 * Results: the index or -1.
 * Side effects: none.
 */
int
Rb_SchemaFieldIndex(const Rb_Schema *s, const char *name)
{
    int i = NameIndex(s, name);
    size_t a;

    for (a = 0; i < 0 && a < sizeof(fieldAliases) / sizeof(fieldAliases[0]);
	    a++) {
	if (strcasecmp(fieldAliases[a].alias, name) == 0) {
	    i = NameIndex(s, fieldAliases[a].name);
	}
    }
    return i;
}

/*
 * Rb_SchemaFieldList --
 *	Lists the field names in order, for error messages that list the
 *	known fields.
 * Results: a string "a, b, c" that the caller frees with free().
 * Side effects: allocates the string.
 */
char *
Rb_SchemaFieldList(const Rb_Schema *s)
{
    size_t n = 1;
    char *buf;
    int i;

    for (i = 0; i < s->nfields; i++) {
	n += strlen(s->fields[i].name) + 2;
    }
    buf = Rb_Alloc(n);
    for (i = 0; i < s->nfields; i++) {
	if (i) {
	    strcat(buf, ", ");
	}
	strcat(buf, s->fields[i].name);
    }
    return buf;
}

/*
 * Rb_SchemaRetain --
 *	Takes a reference to s, to be dropped with Rb_SchemaRelease.
 * Results: none.
 * Side effects: increments s->refCount.
 */
void
Rb_SchemaRetain(Rb_Schema *s)
{
    s->refCount++;
}

/*
 * Rb_SchemaRelease --
 *	Drops a reference to s (NULL: nothing).  The I/O singleton holds
 *	about 2^30 references of its own and is never freed.
 * Results: none.
 * Side effects: decrements s->refCount; at zero frees the schema, its
 *	fields' names and help, and its interned strings (every id and
 *	Rb_SchemaString of it is then void).
 */
void
Rb_SchemaRelease(Rb_Schema *s)
{
    int i;

    if (s == NULL || --s->refCount > 0) {
	return;
    }
    for (i = 0; i < s->nfields; i++) {
	free(s->fields[i].name);
	free(s->fields[i].help);
    }
    for (i = 0; i < s->strings->n; i++) {
	free(s->strings->texts[i]);
    }
    free(s->strings->texts);
    Tcl_DeleteHashTable(&s->strings->byText);
    free(s->strings);
    free(s->name);
    free(s);
}

/*
 * Rb_SchemaIntern --
 *	Looks up a string (len bytes, need not be NUL-terminated; it ends at
 *	an embedded NUL) in the schema's string table.
 * Results: its id: 0, 1, 2 ... in the order strings were first seen.
 * Side effects: adds a copy of the string to the table the first time
 *	it is seen (it stays until the schema is freed).
 */
int64_t
Rb_SchemaIntern(Rb_Schema *s, const char *str, size_t len)
{
    Rb_StrTab *t = s->strings;
    Tcl_HashEntry *e;
    char small[256], *key = small;
    int isNew;
    int64_t id;

    if (len >= sizeof(small)) {
	key = Rb_Alloc(len + 1);
    }
    memcpy(key, str, len);
    key[len] = '\0';
    e = Tcl_CreateHashEntry(&t->byText, key, &isNew);
    if (isNew) {
	if (t->n == t->cap) {
	    t->cap = t->cap ? 2 * t->cap : 64;
	    t->texts = Rb_ReallocArray(t->texts, t->cap, sizeof(char *));
	}
	t->texts[t->n] = Rb_Strdup(key);
	Tcl_SetHashValue(e, (ClientData)(intptr_t)t->n);
	id = t->n++;
    } else {
	id = (int64_t)(intptr_t)Tcl_GetHashValue(e);
    }
    if (key != small) {
	free(key);
    }
    return id;
}

/*
 * RbSchemaLookup --
 *	Rb_SchemaIntern without adding: the id of a string of len bytes
 *	(ending at an embedded NUL), or -1 when s's table lacks it.
 */
int64_t
RbSchemaLookup(const Rb_Schema *s, const char *str, size_t len)
{
    char small[256], *key = small;
    Tcl_HashEntry *e;

    if (len >= sizeof(small)) {
	key = Rb_Alloc(len + 1);
    }
    memcpy(key, str, len);
    key[len] = '\0';
    e = Tcl_FindHashEntry((Tcl_HashTable *)&s->strings->byText, key);
    if (key != small) {
	free(key);
    }
    return e ? (int64_t)(intptr_t)Tcl_GetHashValue(e) : -1;
}

/*
 * RbSchemaStringCount --
 *	The number of strings in s's table.
 */
int64_t
RbSchemaStringCount(const Rb_Schema *s)
{
    return s->strings->n;
}

/*
 * Rb_SchemaString --
 *	Gives the text of an id that Rb_SchemaIntern returned for s.
 * Results: the text, owned by the schema and valid while it lives; ""
 *	for RB_ABSENT or an id s never gave.
 * Side effects: none.
 */
const char *
Rb_SchemaString(const Rb_Schema *s, int64_t id)
{
    if (id < 0 || id >= s->strings->n) {
	return "";
    }
    return s->strings->texts[id];
}

/*
 * Rb_IoSchema --
 *	Gives the standard block-I/O schema: "time" then the fields of the
 *	RB_IO_* indices in order (startTime, finishTime ... flags), all
 *	integers.
 * Results: the process-wide schema "io"; callers may retain and release
 *	it but it is never freed.
 * Side effects: the first call creates it.
 */
Rb_Schema *
Rb_IoSchema(void)
{
    static Rb_Schema *io = NULL;
    static const struct { const char *name; Rb_Unit unit; const char *help; }
    fields[] = {
	{"startTime", RB_UNIT_NS, "issue (start) time, ns"},
	{"finishTime", RB_UNIT_NS, "completion (finish) time, ns"},
	{"devType", RB_UNIT_NONE, "device or driver type code"},
	{"queueLen", RB_UNIT_NONE, "queue length seen at enqueue"},
	{"op", RB_UNIT_NONE, "0 read, 1 write (filter words read, write)"},
	{"size", RB_UNIT_BYTES, "request size, bytes"},
	{"deviceNo", RB_UNIT_NONE, "device number"},
	{"devOffset", RB_UNIT_BYTES, "device offset, bytes"},
	{"lvNo", RB_UNIT_NONE, "logical volume number"},
	{"lvOffset", RB_UNIT_BYTES, "logical volume offset, bytes"},
	{"pid", RB_UNIT_NONE, "process id"},
	{"thread", RB_UNIT_NONE, "thread id"},
	{"machine", RB_UNIT_NONE, "machine id"},
	{"flags", RB_UNIT_NONE, "source-specific flag bits"},
    };
    size_t i;

    if (io == NULL) {
	io = Rb_SchemaCreate("io");
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
	    Rb_SchemaAddField(io, fields[i].name, RB_FT_INT, fields[i].unit,
		    fields[i].help);
	}
	io->refCount = 1 << 30;
    }
    return io;
}

/*
 * Rb_ObjectSchema --
 *	Gives the object schema of cache and key-value traces: "time" then
 *	the fields of the RB_OBJ_* indices in order (objectId, keySize ...
 *	nextAccess); namespace and opName are text, the others integers.
 * Results: the process-wide schema "object"; callers may retain and
 *	release it but it is never freed.  Its string table holds the
 *	operation names and namespaces of every run of the process (readers
 *	bound the namespaces: RB_OBJ_MAX_STRINGS).
 * Side effects: the first call creates it.
 */
Rb_Schema *
Rb_ObjectSchema(void)
{
    static Rb_Schema *obj = NULL;
    static const struct {
	const char *name;
	Rb_FieldType type;
	Rb_Unit unit;
	const char *help;
    } fields[] = {
	{"objectId", RB_FT_INT, RB_UNIT_NONE, "object id: a numeric id as "
	    "the trace gives it, or the 64-bit FNV-1a hash of a string key"},
	{"keySize", RB_FT_INT, RB_UNIT_BYTES, "key size, bytes"},
	{"valueSize", RB_FT_INT, RB_UNIT_BYTES, "value size, bytes"},
	{"ttl", RB_FT_INT, RB_UNIT_NS, "time to live, ns (0: none)"},
	{"op", RB_FT_INT, RB_UNIT_NONE, "0 read, 1 write, 2 delete (filter "
	    "words read, write, delete)"},
	{"objectSize", RB_FT_INT, RB_UNIT_BYTES, "object size (key plus "
	    "value), bytes; also called size"},
	{"client", RB_FT_INT, RB_UNIT_NONE, "client id"},
	{"namespace", RB_FT_STRING, RB_UNIT_NONE, "the key's namespace "
	    "(reader option namespace)"},
	{"opName", RB_FT_STRING, RB_UNIT_NONE, "the operation as the trace "
	    "names it (get, set, ...)"},
	{"nextAccess", RB_FT_INT, RB_UNIT_NONE, "record number of the "
	    "object's next request as the trace gives it, -1 none"},
    };
    size_t i;

    if (obj == NULL) {
	obj = Rb_SchemaCreate("object");
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
	    Rb_SchemaAddField(obj, fields[i].name, fields[i].type,
		    fields[i].unit, fields[i].help);
	}
	obj->refCount = 1 << 30;
    }
    return obj;
}

/*
 * Rb_ObjectKeyHash --
 *	The objectId of a string key: the 64-bit FNV-1a hash of its len
 *	bytes (offset basis 14695981039346656037, prime 1099511628211; for
 *	each byte, xor it in, then multiply modulo 2^64), as a uint64 (an
 *	int64 field holds its bit pattern).  Two keys share an id with a
 *	chance of about n^2 / 2^65 among n keys.
 * Results: the hash.
 * Side effects: none.
 */
uint64_t
Rb_ObjectKeyHash(const char *key, size_t len)
{
    uint64_t h = 14695981039346656037ULL;
    size_t i;

    for (i = 0; i < len; i++) {
	h ^= (unsigned char)key[i];
	h *= 1099511628211ULL;
    }
    return h;
}

/*
 * The registry of named schemas: process-wide, as readers are.
 */
#define MAX_SCHEMAS 16

static struct {
    char name[32];
    Rb_SchemaProc *proc;
} namedSchemas[MAX_SCHEMAS];
static int nNamedSchemas;
TCL_DECLARE_MUTEX(namedMutex)

/*
 * Rb_RegisterSchema --
 *	Makes proc the source of schema name; a later registration of the
 *	same name replaces the earlier.
 * Results: TCL_OK, or TCL_ERROR (no message) if the name has 32 bytes or
 *	more or 16 names are registered already.
 * Side effects: adds or replaces the entry in the process-wide table
 *	of named schemas (under a mutex).
 */
int
Rb_RegisterSchema(const char *name, Rb_SchemaProc *proc)
{
    int i, rc = TCL_OK;

    if (strlen(name) >= sizeof(namedSchemas[0].name)) {
	return TCL_ERROR;
    }
    Tcl_MutexLock(&namedMutex);
    for (i = 0; i < nNamedSchemas; i++) {
	if (strcmp(namedSchemas[i].name, name) == 0) {
	    break;
	}
    }
    if (i == MAX_SCHEMAS) {
	rc = TCL_ERROR;
    } else {
	strcpy(namedSchemas[i].name, name);
	namedSchemas[i].proc = proc;
	if (i == nNamedSchemas) {
	    nNamedSchemas++;
	}
    }
    Tcl_MutexUnlock(&namedMutex);
    return rc;
}

/*
 * RbNamedSchema --
 *	The schema spec names: "io", or "name" or "name:arg" of a registered
 *	schema.
 * Results: the schema with a reference for the caller, or NULL with a
 *	"RUBICON FILTER SCHEMA" error listing the names known.
 */
Rb_Schema *
RbNamedSchema(const char *spec, Rb_Error *err)
{
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    Rb_SchemaProc *proc = NULL;
    char known[MAX_SCHEMAS * 34 + 8];
    int i;

    if (strcmp(spec, "io") == 0) {
	Rb_SchemaRetain(Rb_IoSchema());
	return Rb_IoSchema();
    }
    if (strcmp(spec, "object") == 0) {
	Rb_SchemaRetain(Rb_ObjectSchema());
	return Rb_ObjectSchema();
    }
    strcpy(known, "io, run, object");
    Tcl_MutexLock(&namedMutex);
    for (i = 0; i < nNamedSchemas; i++) {
	if (strlen(namedSchemas[i].name) == len
		&& strncmp(namedSchemas[i].name, spec, len) == 0) {
	    proc = namedSchemas[i].proc;
	}
	strcat(known, ", ");
	strcat(known, namedSchemas[i].name);
    }
    Tcl_MutexUnlock(&namedMutex);
    if (proc == NULL) {
	Rb_SetError(err, "RUBICON FILTER SCHEMA", "unknown schema \"%.64s\"; "
		"known schemas: %s", spec, known);
	return NULL;
    }
    return proc(colon ? colon + 1 : NULL, err);
}

/*
 * Rb_BufPutKey --
 *	Appends the value of field `field` of schema s to a split run's
 *	partial state: absent, the string of a text field's id (ids are
 *	numbered by each process in its own order), or the integer.
 * Results: none.
 * Side effects: grows b; sets b->bad when memory runs out.
 */
void
Rb_BufPutKey(Rb_Buf *b, const Rb_Schema *s, int field, int64_t value)
{
    if (value == RB_ABSENT) {
	Rb_BufPutInt(b, 0);
    } else if (s->fields[field].type == RB_FT_STRING) {
	const char *text = Rb_SchemaString(s, value);

	Rb_BufPutInt(b, 2);
	Rb_BufPutString(b, text, strlen(text));
    } else {
	Rb_BufPutInt(b, 1);
	Rb_BufPutInt(b, value);
    }
}

/*
 * Rb_BufGetKey --
 *	Reads a value that Rb_BufPutKey wrote, for field `field` of s.
 * Results: the value (RB_ABSENT for an absent one); 0 with b->bad set
 *	when the bytes run short or are not such a value.
 * Side effects: interns a string in s.
 */
int64_t
Rb_BufGetKey(Rb_Buf *b, Rb_Schema *s, int field)
{
    int64_t tag = Rb_BufGetInt(b);

    if (tag == 0) {
	return RB_ABSENT;
    } else if (tag == 1 && s->fields[field].type != RB_FT_STRING) {
	return Rb_BufGetInt(b);
    } else if (tag == 2 && s->fields[field].type == RB_FT_STRING) {
	size_t n;
	const char *text = Rb_BufGetString(b, &n);

	return text ? Rb_SchemaIntern(s, text, n) : 0;
    }
    b->bad = 1;
    return 0;
}
