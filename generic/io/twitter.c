/*
 * twitter.c --
 *
 *	Reader of Twitter's Twemcache traces (twitter/cache-trace): CSV
 *	lines "timestamp,anonymized key,key size,value size,client id,
 *	operation,TTL" with the timestamp and TTL in seconds, sizes in
 *	bytes, the operation one of get, gets, set, add, replace, cas,
 *	append, prepend, delete, incr, decr, and the TTL 0 for requests
 *	that are not writes.  Records of the object schema; the key's
 *	namespace is taken by the reader option namespace.  Field mapping
 *	in doc/twitter.n.
 */

#include <strings.h>
#include "io/text.h"
#include "io/readers.h"

/* Most distinct strings (namespaces and operation names) held in the
 * object schema's table; a namespace past them is left absent and
 * counted (namespace-limit). */
#define MAX_STRINGS 65536
/* Longest TTL and latest timestamp taken, s (about 290 years / 2). */
#define S_MAX 4000000000LL

static const struct {
    const char *name;
    int op;
} operations[] = {
    {"get", RB_OP_READ}, {"gets", RB_OP_READ},
    {"set", RB_OP_WRITE}, {"add", RB_OP_WRITE}, {"replace", RB_OP_WRITE},
    {"cas", RB_OP_WRITE}, {"append", RB_OP_WRITE},
    {"prepend", RB_OP_WRITE}, {"incr", RB_OP_WRITE},
    {"decr", RB_OP_WRITE}, {"delete", RB_OP_DELETE},
};

typedef struct TwitterState {
    Rb_Text tx;
    char *delims;		/* namespace: the delimiter characters, */
    int count;			/* and how many namespace fields; 0 none */
} TwitterState;

/*
 * Operation --
 *	The op code of an operation name (any case), or -1.
 */
static int
Operation(const char *s)
{
    size_t k;

    for (k = 0; k < sizeof(operations) / sizeof(operations[0]); k++) {
	if (strcasecmp(s, operations[k].name) == 0) {
	    return operations[k].op;
	}
    }
    return -1;
}

/*
 * TwitterLineOk --
 *	A sniffed line: seven fields, a number, a key, three whole numbers,
 *	an operation name, a whole number.
 */
static int
TwitterLineOk(char **f, int nf)
{
    int64_t v;

    return nf == 7 && RbParseScaled(f[0], 1000000000, &v) && f[1][0] != '\0'
	    && RbParseInt(f[2], &v) && RbParseInt(f[3], &v)
	    && RbParseInt(f[4], &v) && Operation(f[5]) >= 0
	    && RbParseInt(f[6], &v);
}

static int
TwitterSniff(const unsigned char *head, size_t n)
{
    return RbTextSniff(head, n, ',', TwitterLineOk) * 9 / 10;
}

/*
 * TwitterOpen --
 *	Reads the reader option namespace {DELIMITERS COUNT}.  The
 *	timestamps count from the start of the trace (epoch 0).
 */
static int
TwitterOpen(Rb_Reader *r, Rb_Error *err)
{
    TwitterState *st = r->state;
    Tcl_Obj *ns = RbReaderOption(r, "namespace"), **elem;
    int n, count;

    st->tx.delim = ',';
    st->tx.comment = '#';
    r->schema = Rb_ObjectSchema();
    r->epochNs = 0;
    if (ns == NULL) {
	return TCL_OK;
    }
    if (Tcl_ListObjGetElements(NULL, ns, &n, &elem) != TCL_OK || n != 2
	    || Tcl_GetCharLength(elem[0]) == 0
	    || Tcl_GetIntFromObj(NULL, elem[1], &count) != TCL_OK
	    || count < 1) {
	Rb_SetError(err, "RUBICON READER OPTION", "%s: twitter readeroptions: "
		"namespace must be {DELIMITERS COUNT}, a non-empty string of "
		"delimiter characters and a positive count, not \"%.60s\"",
		Rb_InputPath(r->in), Tcl_GetString(ns));
	return TCL_ERROR;
    }
    st->delims = Rb_Strdup(Tcl_GetString(elem[0]));
    st->count = count;
    return TCL_OK;
}

static void
TwitterClose(Rb_Reader *r)
{
    free(((TwitterState *)r->state)->delims);
}

/*
 * Namespace --
 *	The namespace of key: the text before its count-th delimiter (or
 *	its last, when it has fewer), interned in the object schema; or
 *	RB_ABSENT for a key without any delimiter, or when the table holds
 *	MAX_STRINGS strings already (counted as namespace-limit).
 */
static int64_t
Namespace(Rb_Reader *r, TwitterState *st, const char *key,
	uint64_t offset)
{
    Rb_Schema *s = r->schema;
    const char *p, *end = NULL;
    int seen = 0;
    int64_t id;

    for (p = key; *p != '\0' && seen < st->count; p++) {
	if (strchr(st->delims, *p) != NULL) {
	    end = p;
	    seen++;
	}
    }
    if (end == NULL) {
	return RB_ABSENT;
    }
    id = RbSchemaLookup(s, key, (size_t)(end - key));
    if (id >= 0) {
	return id;
    }
    if (RbSchemaStringCount(s) >= MAX_STRINGS) {
	RbReaderNote(r, "namespace-limit", offset, "more than 65536 distinct "
		"namespaces and operation names: this namespace is left "
		"absent");
	return RB_ABSENT;
    }
    return Rb_SchemaIntern(s, key, (size_t)(end - key));
}

/*
 * TwitterParse --
 *	One CSV line into record i.
 */
static const char *
TwitterParse(Rb_Reader *r, Rb_TextLine *l, Rb_Batch *b, int i, char *why,
	size_t whyLen)
{
    TwitterState *st = r->state;
    const char *kind, *key = l->field[1], *opName = l->field[5];
    int64_t keySize, valueSize, ttl;
    int op;

    if ((kind = RbTextFields(l, 7, 7, why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 0, "timestamp", 1000000000, 0,
		&b->col[RB_OBJ_TIME][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 2, "key size", 1, 1, &keySize, why,
		whyLen)) != NULL
	    || (kind = RbTextNumber(l, 3, "value size", 1, 1, &valueSize,
		why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 4, "client id", 1, 1,
		&b->col[RB_OBJ_CLIENT][i], why, whyLen)) != NULL
	    || (kind = RbTextNumber(l, 6, "TTL", 1, 1, &ttl, why, whyLen))
		!= NULL) {
	return kind;
    }
    if (key[0] == '\0') {
	snprintf(why, whyLen, "the key is empty");
	return "bad-field";
    }
    if (keySize < 0 || valueSize < 0 || keySize > INT32_MAX
	    || valueSize > INT32_MAX) {
	snprintf(why, whyLen, "%s size %lld is out of range", keySize < 0
		|| keySize > INT32_MAX ? "key" : "value", (long long)(keySize
		< 0 || keySize > INT32_MAX ? keySize : valueSize));
	return "bad-field";
    }
    if (ttl < 0 || ttl > S_MAX || b->col[RB_OBJ_TIME][i] < 0
	    || b->col[RB_OBJ_TIME][i] > S_MAX * 1000000000) {
	snprintf(why, whyLen, "%s is out of range", ttl < 0 || ttl > S_MAX
		? "TTL" : "timestamp");
	return "bad-field";
    }
    if ((op = Operation(opName)) < 0) {
	snprintf(why, whyLen, "operation \"%.20s\" is none of get, gets, set, "
		"add, replace, cas, append, prepend, delete, incr, decr",
		opName);
	return "bad-op";
    }
    b->col[RB_OBJ_ID][i] = (int64_t)Rb_ObjectKeyHash(key, strlen(key));
    b->col[RB_OBJ_KEYSIZE][i] = keySize;
    b->col[RB_OBJ_VALUESIZE][i] = valueSize;
    b->col[RB_OBJ_SIZE][i] = keySize + valueSize;
    b->col[RB_OBJ_TTL][i] = ttl * 1000000000;
    b->col[RB_OBJ_OP][i] = op;
    b->col[RB_OBJ_OPNAME][i] = Rb_SchemaIntern(r->schema, opName,
	    strlen(opName));
    if (st->count > 0) {
	b->col[RB_OBJ_NAMESPACE][i] = Namespace(r, st, key, l->offset);
    }
    return NULL;
}

static int
TwitterNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    return RbTextNext(r, &((TwitterState *)r->state)->tx, b, TwitterParse,
	    err);
}

const Rb_ReaderClass Rb_TwitterReaderClass = {
    "twitter",
    "Twitter Twemcache object trace (CSV timestamp,key,key size,value "
	"size,client,operation,TTL)",
    sizeof(TwitterState),
    TwitterSniff,
    TwitterOpen,
    TwitterNext,
    TwitterClose,
};
