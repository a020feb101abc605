/*
 * rubicon.h --
 *
 *	The public interface of Rubicon: records and schemas, batches with
 *	selection vectors, Attributes, and the class structures through which
 *	Analyzers, Reporters, Transformers and trace Readers are plugged in.
 *	The built-in kit uses exactly this header; an outside plugin includes
 *	it and links against nothing else (see rubiconDecls.h for stubs).
 *
 *	The full contract of each function (what it does, its Results and
 *	errors, its Side effects) is the header comment at its definition
 *	under generic/, in the style of Tcl's sources; the comment at each
 *	declaration here is a one-line reminder.  Names Rb_Xxx (and
 *	Rubicon_Init, Rubicon_SafeInit) are the public API, the functions
 *	of the stubs table that a plugin may call; names RbXxx are internal
 *	to the library, shared between its files, and may change freely.
 */

#ifndef RUBICON_H
#define RUBICON_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tcl.h>

#define RUBICON_VERSION "0.1"

/*
 * ---------------------------------------------------------------------
 * Errors.  Every failure that reaches a user carries an -errorcode list
 * (for example "RUBICON READER CORRUPT") and a message naming the file,
 * record or line and byte offset where that applies.
 * ---------------------------------------------------------------------
 */

typedef struct Rb_Error {
    char code[64];		/* Space-separated errorcode words. */
    char msg[1024];		/* Human-readable message. */
} Rb_Error;

/* Fills err (NULL: nothing) with an errorcode and a formatted message. */
void		Rb_SetError(Rb_Error *err, const char *code,
		    const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));
/* Moves err into interp's result and -errorcode; returns TCL_ERROR. */
int		Rb_ErrorToInterp(Tcl_Interp *interp, const Rb_Error *err);
/* Formats a message and errorcode into interp; returns TCL_ERROR. */
int		Rb_SetInterpError(Tcl_Interp *interp, const char *code,
		    const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));

/*
 * ---------------------------------------------------------------------
 * Memory.  One allocator for the core and every plugin: memory comes
 * zeroed and is released with free(); a request that cannot be met, or
 * whose size overflows (count * size past SIZE_MAX), ends the process
 * with a message naming the size, never returns NULL and never
 * allocates less than asked.  Sizes of arrays go through the Array
 * forms, which check the multiplication.
 * ---------------------------------------------------------------------
 */

/* n zeroed bytes. */
void *		Rb_Alloc(size_t n);
void *		Rb_Realloc(void *p, size_t n);	/* new bytes not zeroed */
char *		Rb_Strdup(const char *s);	/* NULL gives "" */
/* count * size zeroed bytes, the product checked. */
void *		Rb_AllocArray(size_t count, size_t size);
/* Rb_Realloc to count * size bytes, the product checked. */
void *		Rb_ReallocArray(void *p, size_t count, size_t size);

/*
 * ---------------------------------------------------------------------
 * Schemas.  A record is a time (int64 ns from the trace's epoch, field 0)
 * plus typed fields.  Every value is stored in an 8-byte slot: integers
 * as int64_t, doubles as their bit pattern, strings as an id interned in
 * the schema's string table.  RB_ABSENT marks a value the source lacked.
 * ---------------------------------------------------------------------
 */

#define RB_ABSENT	INT64_MIN
#define RB_MAX_FIELDS	64

typedef enum Rb_FieldType {
    RB_FT_INT = 0,		/* int64_t */
    RB_FT_DOUBLE = 1,		/* double stored bitwise in the slot */
    RB_FT_STRING = 2		/* id into the schema's string table */
} Rb_FieldType;

typedef enum Rb_Unit {
    RB_UNIT_NONE = 0,		/* a count, an id, a code */
    RB_UNIT_NS = 1,		/* a time or duration in nanoseconds;
				 * filter literals for it are seconds */
    RB_UNIT_BYTES = 2
} Rb_Unit;

typedef struct Rb_Field {
    char *name;
    Rb_FieldType type;
    Rb_Unit unit;
    char *help;
} Rb_Field;

typedef struct Rb_StrTab Rb_StrTab;

typedef struct Rb_Schema {
    char *name;
    int nfields;
    Rb_Field fields[RB_MAX_FIELDS];
    Rb_StrTab *strings;		/* Interned strings of RB_FT_STRING fields. */
    int refCount;
} Rb_Schema;

/* A schema holding field 0 "time", with one reference. */
Rb_Schema *	Rb_SchemaCreate(const char *name);
/* Appends a field; its index, or -1 if the name exists or it is full. */
int		Rb_SchemaAddField(Rb_Schema *s, const char *name,
		    Rb_FieldType type, Rb_Unit unit, const char *help);
/* A field's index by name (no case; the paper's aliases too), or -1. */
int		Rb_SchemaFieldIndex(const Rb_Schema *s, const char *name);
/* Takes a reference. */
void		Rb_SchemaRetain(Rb_Schema *s);
/* Drops a reference, freeing the schema at zero; NULL is allowed. */
void		Rb_SchemaRelease(Rb_Schema *s);
/* The id of a string of a RB_FT_STRING field, added if new. */
int64_t		Rb_SchemaIntern(Rb_Schema *s, const char *str, size_t len);
/* The text of an id, or "" for RB_ABSENT or an unknown id. */
const char *	Rb_SchemaString(const Rb_Schema *s, int64_t id);
char *		Rb_SchemaFieldList(const Rb_Schema *s);	/* malloc'd */

/*
 * The standard I/O schema.  Its field indices are fixed so that readers
 * and analyzers of block I/O traces need no lookup.  Times are ns from
 * the trace epoch; "time" is the enqueue (create) time.
 */

enum {
    RB_IO_TIME = 0,		/* enqueue (create) time, ns */
    RB_IO_START,		/* issue (start) time, ns */
    RB_IO_FINISH,		/* completion (finish) time, ns */
    RB_IO_DEVTYPE,		/* device / driver type code */
    RB_IO_QUEUELEN,		/* queue length seen at enqueue */
    RB_IO_OP,			/* RB_OP_READ or RB_OP_WRITE */
    RB_IO_SIZE,			/* bytes */
    RB_IO_DEVICE,		/* device number */
    RB_IO_OFFSET,		/* device offset, bytes */
    RB_IO_LVNO,			/* logical volume number */
    RB_IO_LVOFFSET,		/* logical volume offset, bytes */
    RB_IO_PID,
    RB_IO_THREAD,
    RB_IO_MACHINE,
    RB_IO_FLAGS,		/* source-specific flag bits */
    RB_IO_NFIELDS
};

#define RB_OP_READ	0
#define RB_OP_WRITE	1
#define RB_OP_DELETE	2	/* object traces only */

Rb_Schema *	Rb_IoSchema(void);	/* shared singleton, never freed */

/*
 * The object schema, of cache and key-value traces (oraclegeneral,
 * twitter): requests for whole objects named by an id.  Fixed indices as
 * for I/O; "op" has the index and meaning it has in the I/O schema
 * (plus RB_OP_DELETE), and "objectSize" answers to the name "size" too,
 * so that the classes reading op and size by index read objects.
 */
enum {
    RB_OBJ_TIME = 0,		/* request time, ns */
    RB_OBJ_ID,			/* object id: a numeric id as it is, a
				 * string key's Rb_ObjectKeyHash */
    RB_OBJ_KEYSIZE,		/* key bytes */
    RB_OBJ_VALUESIZE,		/* value bytes */
    RB_OBJ_TTL,			/* time to live, ns (0: none given) */
    RB_OBJ_OP,			/* RB_OP_READ, RB_OP_WRITE, RB_OP_DELETE */
    RB_OBJ_SIZE,		/* object bytes: key plus value */
    RB_OBJ_CLIENT,		/* client id */
    RB_OBJ_NAMESPACE,		/* text: the key's namespace */
    RB_OBJ_OPNAME,		/* text: the operation as the trace names it */
    RB_OBJ_NEXTACCESS,		/* the record number of the object's next
				 * request, as the trace gives it (-1:
				 * none) */
    RB_OBJ_NFIELDS
};

Rb_Schema *	Rb_ObjectSchema(void);	/* shared singleton, never freed */
/* The 64-bit FNV-1a hash of a string key of len bytes: its objectId. */
uint64_t	Rb_ObjectKeyHash(const char *key, size_t len);

/*
 * Named schemas, for compiling a Filter before any trace is read
 * ("Filter -schema stardust ...").  A plugin whose readers make records
 * of another schema registers a proc that returns it with a reference
 * for the caller; arg is the text after "name:" in the Filter's -schema,
 * or NULL.  Returns NULL with err set if arg names nothing.
 */
typedef Rb_Schema *(Rb_SchemaProc)(const char *arg, Rb_Error *err);
/* Names proc as the source of schema name; TCL_ERROR if it cannot. */
int		Rb_RegisterSchema(const char *name, Rb_SchemaProc *proc);

/*
 * ---------------------------------------------------------------------
 * Batches.  Records travel in columnar batches of up to RB_BATCH_SIZE,
 * with a selection vector (ascending record indices) saying which
 * records of the batch reach a node.  Nothing is allocated per record.
 * ---------------------------------------------------------------------
 */

#define RB_BATCH_SIZE 4096

/* Sets of fields (what a node reads) are bit masks of field indices. */
#define RB_FIELD_BIT(f)	((uint64_t)1 << (f))
#define RB_ALL_FIELDS	(~(uint64_t)0)

typedef struct Rb_Batch {
    Rb_Schema *schema;
    int n;			/* Records held. */
    int cap;			/* Capacity (RB_BATCH_SIZE). */
    int64_t *col[RB_MAX_FIELDS];/* col[field][record]; read-only slots
				 * of RB_ABSENT up to RB_IO_NFIELDS when
				 * the schema has fewer fields. */
    uint64_t firstRecord;	/* Stream index of record 0 (1-based). */
} Rb_Batch;

/* An empty batch of capacity cap (<= 0: RB_BATCH_SIZE), retaining schema. */
Rb_Batch *	Rb_BatchCreate(Rb_Schema *schema, int cap);
/* Frees a batch and releases its schema; NULL is allowed. */
void		Rb_BatchFree(Rb_Batch *b);
/* Empties a batch for reuse (n = 0). */
void		Rb_BatchClear(Rb_Batch *b);
/* Appends one record with every field RB_ABSENT; returns its index. */
int		Rb_BatchAppend(Rb_Batch *b);
/* Copies record i of src to a new record of dst (same schema). */
int		Rb_BatchCopyRecord(Rb_Batch *dst, const Rb_Batch *src, int i);

/* Reads double field f of record i (RB_ABSENT reads as -0.0). */
static inline double
Rb_GetDouble(const Rb_Batch *b, int f, int i)
{
    union { int64_t i; double d; } u;
    u.i = b->col[f][i];
    return u.d;
}

/* Stores d in double field f of record i (-0.0 as +0.0). */
static inline void
Rb_SetDouble(Rb_Batch *b, int f, int i, double d)
{
    union { int64_t i; double d; } u;
    /* -0.0 has the bit pattern of RB_ABSENT; store it as the equal +0.0. */
    u.d = d == 0 ? 0.0 : d;
    b->col[f][i] = u.i;
}

/* Value of field f of record i as a double (ints converted). */
double		Rb_FieldAsDouble(const Rb_Batch *b, int f, int i);

/*
 * ---------------------------------------------------------------------
 * Attributes.  Every result is a table of named columns, numeric or
 * text, tagged with a kind that tells a Reporter how to draw it.  A
 * scalar is one row of column "value"; a histogram has columns lo, hi,
 * count; a percentile summary p, value; a time series time, value (and
 * more columns if wanted).  Reporters walk columns and rows and never
 * special-case an Analyzer.
 * ---------------------------------------------------------------------
 */

typedef enum Rb_AttrKind {
    RB_ATTR_SCALAR = 0,
    RB_ATTR_VECTOR,
    RB_ATTR_HISTOGRAM,
    RB_ATTR_PERCENTILES,
    RB_ATTR_SERIES,
    RB_ATTR_TABLE,
    RB_ATTR_TEXT,
    RB_ATTR_HEATMAP		/* Cells of a two-dimensional histogram:
				 * columns xbin, ybin (bin numbers), xlo,
				 * xhi, ylo, yhi, count, then others. */
} Rb_AttrKind;

typedef struct Rb_Column {
    char *name;
    char *unit;			/* "bytes/s", "s", "" ... */
    int isText;
    double *num;		/* when !isText */
    char **text;		/* when isText */
} Rb_Column;

typedef struct Rb_Attribute {
    char *name;
    Rb_AttrKind kind;
    char *unit;			/* Unit of the main value. */
    char *help;			/* One line: what it measures. */
    int ncols;
    Rb_Column *cols;
    int nrows;
    int rowCap;
    char *text;			/* RB_ATTR_TEXT */
    int partial;		/* Computed on an interrupted run. */
    struct Rb_Analyzer *producer;
    int64_t elided;		/* RB_ATTR_SERIES: rows of empty intervals
				 * left out (Rb_AttrElideEmptyRuns). */
} Rb_Attribute;

/* A series of more than this many empty intervals in a row keeps the
 * first and the last of them and leaves out the rest, once the run's
 * Analyzers have ended (rubicon(n) SERIES). */
#define RB_SERIES_EMPTY_RUN 1024

/* "scalar", "vector" ... "text". */
const char *	Rb_AttrKindName(Rb_AttrKind kind);
/* An empty Attribute (no columns, no rows). */
Rb_Attribute *	Rb_AttrCreate(const char *name, Rb_AttrKind kind,
		    const char *unit, const char *help);
/* Adds a column; returns its index. */
int		Rb_AttrAddColumn(Rb_Attribute *a, const char *name,
		    const char *unit, int isText);
/* Appends a row of zeros/empty strings; returns its index. */
int		Rb_AttrAddRow(Rb_Attribute *a);
/* Sets a numeric cell; unchecked. */
void		Rb_AttrSetNum(Rb_Attribute *a, int row, int col, double v);
/* Sets a text cell to a copy of s; unchecked. */
void		Rb_AttrSetText(Rb_Attribute *a, int row, int col,
		    const char *s);
/* A numeric cell; unchecked. */
double		Rb_AttrNum(const Rb_Attribute *a, int row, int col);
/* A column's index by name, or -1. */
int		Rb_AttrColumnIndex(const Rb_Attribute *a, const char *name);
/* Frees an Attribute nothing has taken over; NULL is allowed. */
void		Rb_AttrFree(Rb_Attribute *a);
/* The Tcl value: a number, a string or a dict of kind, unit, columns, rows. */
Tcl_Obj *	Rb_AttrToObj(const Rb_Attribute *a);

/* A scalar Attribute: one row of numeric column "value" holding v. */
Rb_Attribute *	Rb_AttrScalar(const char *name, double v, const char *unit,
		    const char *help);
/* A text Attribute holding a copy of text. */
Rb_Attribute *	Rb_AttrTextNew(const char *name, const char *text,
		    const char *help);

/*
 * ---------------------------------------------------------------------
 * Options.  A class describes its options in a table; the core parses
 * "-name value" pairs into the instance state at creation and for
 * configure, and answers cget, with no code in the class.
 * ---------------------------------------------------------------------
 */

typedef enum Rb_OptType {
    RB_OPT_INT,			/* int64_t */
    RB_OPT_DOUBLE,		/* double */
    RB_OPT_TIME,		/* int64_t ns; given as seconds or a time
				 * literal [[[days] hours:] min:] seconds */
    RB_OPT_STRING,		/* char *, malloc'd, freed by the core */
    RB_OPT_BOOL,		/* int */
    RB_OPT_FIELD,		/* char * field name, checked at start */
    RB_OPT_OBJ			/* Tcl_Obj *, ref-counted by the core */
} Rb_OptType;

typedef struct Rb_Option {
    const char *name;		/* "-interval" */
    Rb_OptType type;
    size_t offset;		/* offsetof(State, member) */
    const char *defValue;	/* NULL: zero / empty */
    const char *help;
} Rb_Option;

/*
 * ---------------------------------------------------------------------
 * Run context, given to every hook.
 * ---------------------------------------------------------------------
 */

typedef struct Rb_RunInfo {
    Tcl_Interp *interp;
    Rb_Schema *schema;		/* Schema of the records at the head. */
    int64_t epochNs;		/* Absolute time (Unix ns) of trace time 0,
				 * or 0 when unknown. */
    int64_t firstTime;		/* First and last record times seen; the
				 * engine updates both before each batch is
				 * pushed, and the RunInfo stays valid from
				 * start to end.  While records flow,
				 * firstTime stays the earliest time of the
				 * run's first batch (time bins align to
				 * it); at end it is the earliest read. */
    int64_t lastTime;
    uint64_t records;		/* Records read. */
    uint64_t skipped;		/* Malformed records skipped. */
    int partial;		/* Interrupted or failed before the end. */
    const char *traces;		/* Space-separated trace file names. */
    char *config;		/* The config script's name, or "". */
    Tcl_Obj *skipCounts;	/* dict: kind -> count */
} Rb_RunInfo;

/*
 * ---------------------------------------------------------------------
 * Byte buffers for an Analyzer's partial state in a split run (see the
 * serialize and deserialize hooks).  Integers and doubles are written as
 * 8 bytes, least significant first, so that machines of either byte
 * order can exchange them.  A read past the end sets bad and returns 0
 * (NULL for bytes): a hook reads on and checks bad once at the end.
 * ---------------------------------------------------------------------
 */

typedef struct Rb_Buf {
    unsigned char *data;	/* malloc'd; free with Rb_BufFree */
    size_t len;			/* Bytes written. */
    size_t cap;
    size_t pos;			/* Next byte to read. */
    int bad;			/* Read past the end or out of memory. */
} Rb_Buf;

/* Appends n bytes; sets bad instead when memory runs out. */
static inline void
Rb_BufPutBytes(Rb_Buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
	size_t cap = b->cap ? b->cap : 256;
	unsigned char *d;

	while (cap < b->len + n) {
	    cap *= 2;
	}
	if ((d = realloc(b->data, cap)) == NULL) {
	    b->bad = 1;
	    return;
	}
	b->data = d;
	b->cap = cap;
    }
    if (n > 0) {
	memcpy(b->data + b->len, p, n);
    }
    b->len += n;
}

/* Appends v as 8 bytes, least significant first. */
static inline void
Rb_BufPutInt(Rb_Buf *b, int64_t v)
{
    unsigned char c[8];
    int i;

    for (i = 0; i < 8; i++) {
	c[i] = (unsigned char)((uint64_t)v >> (8 * i));
    }
    Rb_BufPutBytes(b, c, 8);
}

/* Appends the bit pattern of d as Rb_BufPutInt does. */
static inline void
Rb_BufPutDouble(Rb_Buf *b, double d)
{
    union { int64_t i; double d; } u;

    u.d = d;
    Rb_BufPutInt(b, u.i);
}

/* A string as its length and bytes (no NUL). */
static inline void
Rb_BufPutString(Rb_Buf *b, const char *s, size_t n)
{
    Rb_BufPutInt(b, (int64_t)n);
    Rb_BufPutBytes(b, s, n);
}

/* The next n bytes (valid while the buffer is), or NULL with bad set. */
static inline const void *
Rb_BufGetBytes(Rb_Buf *b, size_t n)
{
    const unsigned char *p;

    if (b->bad || b->len - b->pos < n) {
	b->bad = 1;
	return NULL;
    }
    p = b->data + b->pos;
    b->pos += n;
    return p;
}

/* The next 8-byte integer, or 0 with bad set. */
static inline int64_t
Rb_BufGetInt(Rb_Buf *b)
{
    const unsigned char *c = (const unsigned char *)Rb_BufGetBytes(b, 8);
    uint64_t v = 0;
    int i;

    for (i = 0; c != NULL && i < 8; i++) {
	v |= (uint64_t)c[i] << (8 * i);
    }
    return (int64_t)v;
}

/* The next double, or 0 with bad set. */
static inline double
Rb_BufGetDouble(Rb_Buf *b)
{
    union { int64_t i; double d; } u;

    u.i = Rb_BufGetInt(b);
    return u.d;
}

/* A count of items that take at least each bytes apiece: 0 with bad set
 * when the buffer cannot hold that many (a corrupt count allocates
 * nothing). */
static inline int64_t
Rb_BufGetCount(Rb_Buf *b, size_t each)
{
    int64_t n = Rb_BufGetInt(b);

    if (n < 0 || (each > 0 && (uint64_t)n > (b->len - b->pos) / each)) {
	b->bad = 1;
	return 0;
    }
    return n;
}

/* A string written by Rb_BufPutString: its bytes (not NUL-terminated,
 * valid while the buffer is) and *n. */
static inline const char *
Rb_BufGetString(Rb_Buf *b, size_t *n)
{
    *n = (size_t)Rb_BufGetCount(b, 1);
    return (const char *)Rb_BufGetBytes(b, *n);
}

/* Frees the data and zeroes the buffer. */
static inline void
Rb_BufFree(Rb_Buf *b)
{
    free(b->data);
    memset(b, 0, sizeof(*b));
}

/* Appends a value of field `field` of schema s: for a text field the
 * string its id stands for (an id means nothing in another process),
 * else the integer; RB_ABSENT stays absent. */
void		Rb_BufPutKey(Rb_Buf *b, const Rb_Schema *s, int field,
		    int64_t value);
/* Reads a value Rb_BufPutKey wrote for that field, interning a string in
 * s again; 0 with bad set when the bytes are not such a value. */
int64_t		Rb_BufGetKey(Rb_Buf *b, Rb_Schema *s, int field);

/*
 * ---------------------------------------------------------------------
 * Analyzers.  An Analyzer lives in a Flow and sees the records reaching
 * it.  A class supplies a per-record hook, a per-batch hook, or both (the
 * engine calls the batch hook if present, else the record hook for each
 * selected record).  At end it sets Attributes on its Flow.
 * ---------------------------------------------------------------------
 */

typedef struct Rb_Flow Rb_Flow;
typedef struct Rb_Analyzer Rb_Analyzer;

typedef struct Rb_AnalyzerClass {
    const char *name;		/* Tcl command, e.g. "BandwidthAnalyzer". */
    const char *help;		/* One line for rubicon::types. */
    size_t stateSize;		/* Bytes of zeroed per-instance state. */
    const Rb_Option *options;	/* NULL-name-terminated, or NULL. */
    const char *const *attrs;	/* Attribute names it sets, NULL-ended; a
				 * name may be a glob pattern (string
				 * match) for names made from options. */
    int mergeable;		/* Partial states can be merged. */
    int perRecordState;		/* Memory grows with distinct keys/records
				 * (documented in the man page). */

    /* After options are parsed, at creation and at each configure; checks
     * them and may derive state from them.  When it refuses a configure,
     * the core puts every option back and calls it once more, so state it
     * derives follows the restored values.  Optional. */
    int (*init)(Rb_Analyzer *a, Tcl_Interp *interp);
    /* Before the first record of a run; resets state. Optional. */
    int (*start)(Rb_Analyzer *a, const Rb_RunInfo *run);
    void (*record)(Rb_Analyzer *a, const Rb_Batch *b, int i);
    void (*batch)(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	    int nsel);
    /* After the last record: compute and Rb_AnalyzerSet attributes. */
    int (*end)(Rb_Analyzer *a, const Rb_RunInfo *run);
    /* Merge another instance's partial state into a. Optional. */
    int (*merge)(Rb_Analyzer *a, const Rb_Analyzer *other);
    /* Frees what the state points to (not the state itself). Optional. */
    void (*freeState)(Rb_Analyzer *a);
    /* The fields its record and batch hooks read by fixed index,
     * RB_FIELD_BIT of each index of the I/O schema (RB_IO_SIZE ...); 0
     * (the default) means every field, unchecked: an I/O index past the
     * run's schema then reads RB_ABSENT.  Before the start hook
     * the engine checks that the run's schema has each declared field
     * other than the time (field 0 of every schema) at its I/O index,
     * with its I/O name, type and unit, else fails with RUBICON ANALYZER
     * SCHEMA: a class that reads only the time and fields its options
     * name declares RB_FIELD_BIT(RB_IO_TIME).  With some declared, the
     * fields its start hook resolves with Rb_AnalyzerField (those its
     * options name) count as read too.  Readers may leave the fields
     * that nothing in the DAG reads undecoded. */
    uint64_t fields;
    /* Split runs (mpirun -np N rubicon ...).  Each rank feeds its shard
     * of the traces, in time order, through its own instance; then the
     * partial states are reduced in rank order to rank 0, which alone
     * calls end.  serialize appends the state after the last record of a
     * shard to buf (before end, after start); deserialize restores it
     * into an instance made with the same options and started on the
     * same run, which is then merged into the instance holding the
     * shards before it: merge(a, other) with other's records after a's.
     * A class that sets mergeable needs all three for a split run; an
     * order-dependent class keeps the boundary state merge needs (first
     * and last accesses, open runs) so that the merged result equals the
     * one of a single process.  Both return TCL_OK, or TCL_ERROR with
     * an analyzer error; deserialize also fails when buf->bad is set
     * after reading.  buf's bytes stay valid until the deserialized
     * instance has been merged, so deserialize may leave a large array
     * where it lies in them (read it in place in merge) rather than
     * copy it; nothing but merge and freeState is called on that
     * instance.  A string id (RB_FT_STRING) means nothing in
     * another process: write the string (Rb_SchemaString of run->schema)
     * and intern it again on reading. */
    int (*serialize)(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *buf);
    int (*deserialize)(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *buf);
} Rb_AnalyzerClass;

struct Rb_Analyzer {
    const Rb_AnalyzerClass *cls;
    void *state;		/* cls->stateSize bytes, options included */
    Rb_Flow *flow;		/* The Flow it belongs to (NULL until added). */
    char *cmdName;		/* Its Tcl command. */
    char *prefix;		/* Prepended to attribute names ("" default). */
    Tcl_Command token;
    void *engine;		/* Core-private. */
};

/* Makes the class's command and lists it in rubicon::types. */
int		Rb_RegisterAnalyzer(Tcl_Interp *interp,
		    const Rb_AnalyzerClass *cls);
/* Sets (replacing) an Attribute on the analyzer's Flow; takes ownership. */
void		Rb_AnalyzerSet(Rb_Analyzer *a, Rb_Attribute *attr);
/* Resolves a field name against the run's schema: TCL_OK with *index
 * set, or TCL_ERROR with *index = -1 and an analyzer error recorded. */
int		Rb_AnalyzerField(Rb_Analyzer *a, const Rb_RunInfo *run,
		    const char *fieldName, int *index);
/* RB_FT_BIT(RB_FT_INT) | ...: a set of field types. */
#define RB_FT_BIT(type)	(1u << (type))
/* Rb_AnalyzerField for a field whose values a class reads as one of the
 * types in the set: else TCL_ERROR with *index = -1 and an analyzer
 * error RUBICON ANALYZER OPTION naming the class, the field and its type
 * (a double's bit pattern or a string's id read as an integer would give
 * wrong numbers). */
int		Rb_AnalyzerTypedField(Rb_Analyzer *a, const Rb_RunInfo *run,
		    const char *fieldName, unsigned types, int *index);
/* Staged analysis: a needs attribute attrName of flow before its end. */
int		Rb_AnalyzerNeeds(Rb_Analyzer *a, Rb_Flow *flow,
		    const char *attrName);
/* The Flow a command names, or NULL with RUBICON FLOW UNKNOWN in interp. */
Rb_Flow *	Rb_FlowFromObj(Tcl_Interp *interp, Tcl_Obj *obj);
/* The Flow's Attribute of that name (or the paper's alias), or NULL. */
const Rb_Attribute *Rb_FlowGetAttr(const Rb_Flow *flow, const char *name);
/* The Flow's name. */
const char *	Rb_FlowName(const Rb_Flow *flow);
/* A Flow outside the DAG for an end hook's Attributes (grouped analyzers). */
Rb_Flow *	Rb_FlowScratchCreate(Tcl_Interp *interp);
/* Frees the Attributes set on a scratch Flow. */
void		Rb_FlowScratchClear(Rb_Flow *flow);
/* Frees a scratch Flow. */
void		Rb_FlowScratchFree(Rb_Flow *flow);
/* Error raised from an analyzer hook.  From start or end the hook then
 * returns TCL_ERROR; from a record or batch hook the run stops at the end
 * of the current batch and raises it (results are kept, marked partial). */
void		Rb_AnalyzerError(Rb_Analyzer *a, const char *code,
		    const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));
/* For long loops in end hooks: whether the run's time limit
 * and the grace given to ending it have passed.  Cheap (one clock read),
 * call it every few thousand steps.  Returns 1 after recording the
 * analyzer error RUBICON SAFE LIMIT TIME (the hook then returns
 * TCL_ERROR), else 0; always 0 without a time limit. */
int		Rb_AnalyzerPastLimit(Rb_Analyzer *a);

/*
 * ---------------------------------------------------------------------
 * Reporters.  Bound to Flows (and optionally Attribute names), a Reporter
 * writes one format after each run.  Output goes through Rb_Out, which
 * writes to a temporary name and renames on success.
 * ---------------------------------------------------------------------
 */

typedef struct Rb_Reporter Rb_Reporter;

typedef struct Rb_ReporterClass {
    const char *name;		/* "ReporterLog" */
    const char *help;
    size_t stateSize;
    const Rb_Option *options;	/* "-output" is always provided. */
    const char *defaultOutput;	/* e.g. "rubicon.log"; "-" is stdout */
    int (*init)(Rb_Reporter *r, Tcl_Interp *interp);	/* as an
				 * Analyzer's init; optional */
    /* Writes the report; output path is r->output. */
    int (*write)(Rb_Reporter *r, const Rb_RunInfo *run);
    void (*freeState)(Rb_Reporter *r);
} Rb_ReporterClass;

struct Rb_Reporter {
    const Rb_ReporterClass *cls;
    void *state;
    char *output;		/* Output path (file, prefix or directory). */
    int nflows;
    Rb_Flow **flows;
    int nattrs;			/* 0: every Attribute of every Flow. */
    char **attrs;
    char *cmdName;
    Tcl_Command token;
    Tcl_Interp *interp;
    Tcl_Obj *attrList;		/* Core-private: -attributes as given. */
};

/* Makes the class's command and lists it in rubicon::types. */
int		Rb_RegisterReporter(Tcl_Interp *interp,
		    const Rb_ReporterClass *cls);

/* Calls fn for every (flow, attribute) the reporter is bound to, in flow
 * order, then in the order of -attributes if given, else by name.  Stops
 * at and returns a result that is not TCL_OK. */
typedef int (Rb_AttrVisitor)(Rb_Reporter *r, const Rb_Flow *flow,
	const Rb_Attribute *attr, void *cd);
/* Walks the bound (flow, attribute) pairs as above. */
int		Rb_ReporterEach(Rb_Reporter *r, Rb_AttrVisitor *fn, void *cd);
/* Writes s to fp as a JSON string literal (valid JSON whatever s holds). */
void		Rb_JsonString(FILE *fp, const char *s);

/* Cache simulation: one block cache of a given size under a replacement
 * policy, the simulation CacheSimAnalyzer(n) runs, for plugins that feed
 * it their own access sequences.  An opaque handle. */
typedef struct Rb_CacheSim Rb_CacheSim;
/* An empty cache of blocks (1 to 2**28) blocks under policy "lru",
 * "fifo", "clock", "lfu", "arc" or "s3fifo"; NULL for another name or
 * size. */
Rb_CacheSim *	Rb_CacheSimCreate(const char *policy, int64_t blocks);
/* One access of block: 1 for a hit, 0 for a miss (the block comes in). */
int		Rb_CacheSimAccess(Rb_CacheSim *sim, int64_t block);
/* Frees the cache (NULL is ignored). */
void		Rb_CacheSimFree(Rb_CacheSim *sim);

/* Safe output: data goes to "path.tmp-PID"; Rb_OutClose renames it to
 * path if every write succeeded, else removes it and sets an error that
 * names path.  "-" means stdout; stdout and a path that exists and is not
 * a regular file (a device, a FIFO) are written in place (tmpPath NULL). */
typedef struct Rb_Out {
    FILE *fp;
    char *path;
    char *tmpPath;
    int failed;
} Rb_Out;

/* Opens path.tmp-PID for writing (or stdout); TCL_ERROR in interp if not. */
int		Rb_OutOpen(Tcl_Interp *interp, const char *path, Rb_Out *out);
/* Closes and renames to path, or removes it and fails naming path. */
int		Rb_OutClose(Tcl_Interp *interp, Rb_Out *out);
/* Closes and removes the temporary file: nothing appears under path. */
void		Rb_OutAbort(Rb_Out *out);
/* Safe mode (rubicon -safe -outdir DIR): TCL_OK if the interpreter may
 * write the file at path (inside DIR), else TCL_ERROR with RUBICON SAFE
 * DENIED in interp; always TCL_OK outside safe mode.  Rb_OutOpen checks
 * it; a plugin that writes files another way checks each path itself. */
int		Rb_SafeCheckWrite(Tcl_Interp *interp, const char *path);
/* Safe mode: TCL_OK if the interpreter may read the file at path (one of
 * the traces named on the command line), else TCL_ERROR with RUBICON SAFE
 * DENIED in interp; always TCL_OK outside safe mode.  A plugin command
 * that reads a file by name checks it. */
int		Rb_SafeCheckRead(Tcl_Interp *interp, const char *path);
/* Safe mode's -outlimit: the bytes outputs may still write (-1: no
 * limit). */
Tcl_WideInt	Rb_SafeOutputLeft(Tcl_Interp *interp);
/* Charges bytes written to path other than through Rb_Out (a library
 * writing by name) to -outlimit: TCL_ERROR with RUBICON SAFE LIMIT OUTPUT
 * in interp when past the limit. */
int		Rb_SafeOutputCharge(Tcl_Interp *interp, const char *path,
		    Tcl_WideInt bytes);

/*
 * ---------------------------------------------------------------------
 * Trace input.  Rb_Input is a byte stream over a file that is plain,
 * gzip or bzip2 (sniffed), keeping the uncompressed offset for errors.
 * ---------------------------------------------------------------------
 */

typedef struct Rb_Input Rb_Input;

/* The path that names standard input (a pipe: read once, never seeked). */
#define RB_INPUT_STDIN "-"

/* Opens a trace file (or "-"); NULL with err set if it cannot. */
Rb_Input *	Rb_InputOpen(const char *path, Rb_Error *err);
/* Reads up to n bytes; returns count, 0 at end, -1 on error (err set,
 * naming the file and how far reading got). */
long		Rb_InputRead(Rb_Input *in, void *buf, size_t n, Rb_Error *err);
/* Reads exactly n bytes; 1 ok, 0 clean EOF before any byte, -1 short or
 * error. */
int		Rb_InputReadFull(Rb_Input *in, void *buf, size_t n,
		    Rb_Error *err);
/* Next line without its newline (NUL-terminated, valid until the next
 * call); NULL at end or error (err->code[0] != 0 on error). */
char *		Rb_InputGetLine(Rb_Input *in, size_t *len, Rb_Error *err);
/* First up to n bytes of the decompressed stream, without consuming. */
long		Rb_InputPeek(Rb_Input *in, void *buf, size_t n, Rb_Error *err);
uint64_t	Rb_InputOffset(const Rb_Input *in);	/* uncompressed */
uint64_t	Rb_InputLineNo(const Rb_Input *in);	/* of last line */
/* The name for messages ("standard input" for "-"). */
const char *	Rb_InputPath(const Rb_Input *in);
const char *	Rb_InputCompression(const Rb_Input *in); /* none gzip bzip2 */
/* Closes and frees the stream; NULL is allowed. */
void		Rb_InputClose(Rb_Input *in);

/*
 * Error policy for malformed records.
 */

typedef enum Rb_OnError {
    RB_ONERROR_STOP = 0,
    RB_ONERROR_SKIP,
    RB_ONERROR_WARN
} Rb_OnError;

typedef struct Rb_Reader Rb_Reader;

typedef struct Rb_ReaderClass {
    const char *name;		/* "srt", "native", "msr", ... */
    const char *help;
    size_t stateSize;
    /* Confidence 0..100 that head (first bytes, decompressed) is ours. */
    int (*sniff)(const unsigned char *head, size_t n);
    /* Opens: reads any header, sets r->schema and r->epochNs. */
    int (*open)(Rb_Reader *r, Rb_Error *err);
    /* Appends up to b->cap - b->n records; returns the number appended,
     * 0 at end of input, -1 on error (err set). Malformed records go
     * through Rb_ReaderBad. */
    int (*next)(Rb_Reader *r, Rb_Batch *b, Rb_Error *err);
    void (*close)(Rb_Reader *r);
} Rb_ReaderClass;

struct Rb_Reader {
    const Rb_ReaderClass *cls;
    void *state;
    Rb_Input *in;
    Rb_Schema *schema;		/* Set by open. */
    int64_t epochNs;		/* Absolute Unix ns of time 0, or 0. */
    uint64_t records;		/* Good records delivered. */
    uint64_t recordNo;		/* Records (or lines) seen, for errors. */
    Rb_OnError onError;
    uint64_t skipped;
    Tcl_Obj *skipCounts;	/* dict kind -> count, owned */
    Tcl_Obj *options;		/* Reader-specific options dict, or NULL. */
    int64_t lastTime;		/* For out-of-order detection. */
    uint64_t fields;		/* Fields the DAG reads (RB_FIELD_BIT of
				 * each; all unless the engine narrows it):
				 * a reader may set the others RB_ABSENT
				 * instead of decoding them. */
    int64_t maxGap;		/* ns: a record later than the one before
				 * by more is malformed ("time-jump");
				 * 0: no limit.  RB_DEFAULT_MAX_GAP unless
				 * rubicon::run -maxgap says otherwise. */
};

/* The default -maxgap: seven days, in ns. */
#define RB_DEFAULT_MAX_GAP ((int64_t)7 * 86400 * 1000000000)

/* Adds (or replaces) a format; TCL_ERROR when the registry is full. */
int		Rb_RegisterReader(const Rb_ReaderClass *cls);
/* A format by name (no case), or NULL. */
const Rb_ReaderClass *Rb_FindReader(const char *name);
/* The registered formats; *count gets their number. */
const Rb_ReaderClass *const *Rb_Readers(int *count);
/* Opens path with the named reader, or sniffs when format is NULL. */
Rb_Reader *	Rb_ReaderOpen(const char *path, const char *format,
		    Rb_OnError onError, Tcl_Obj *options, Rb_Error *err);
/* Appends the next records to b: count, 0 at end, -1 with err set. */
int		Rb_ReaderNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err);
/* Closes the reader and its input; NULL is allowed. */
void		Rb_ReaderClose(Rb_Reader *r);
/* A malformed record of the given kind ("short-record", "bad-length",
 * "out-of-order", ...): counts it and applies the policy.  Returns 1
 * when reading must stop (err set, naming file, record and offset), 0 to
 * skip it and go on. */
int		Rb_ReaderBad(Rb_Reader *r, Rb_Error *err, const char *kind,
		    uint64_t offset, const char *fmt, ...)
		    __attribute__((format(printf, 5, 6)));
/* The -maxgap guard every reader applies: a record of time t (starting
 * at byte offset) later than last, the time of the record before, by
 * more than r->maxGap is a malformed record of kind "time-jump" (through
 * Rb_ReaderBad).  Never one when last is INT64_MIN (no record yet), t is
 * before last, or r->maxGap is 0.  Returns 0 to keep the record, 1 to
 * skip it, -1 when reading must stop (err set). */
int		Rb_ReaderTimeJump(Rb_Reader *r, Rb_Error *err, int64_t t,
		    int64_t last, uint64_t offset);

/*
 * ---------------------------------------------------------------------
 * Transformers rewrite records on the way: in-batch to out-batch.
 * ---------------------------------------------------------------------
 */

typedef struct Rb_Transformer Rb_Transformer;

typedef struct Rb_TransformerClass {
    const char *name;
    const char *help;
    size_t stateSize;
    const Rb_Option *options;
    /* As an Analyzer's init: checks options, at creation and configure. */
    int (*init)(Rb_Transformer *t, Tcl_Interp *interp);
    int (*start)(Rb_Transformer *t, const Rb_RunInfo *run);
    /* Appends transformed records of in[sel] to out (which has room for
     * at least nsel * maxExpand records); returns 0 or -1 with error.
     * One that fills out before it is done with sel sets t->taken to the
     * count of sel it is done with: the engine passes out on and calls
     * it again with the rest (the record at sel[taken] first), on an
     * empty out. */
    int (*transform)(Rb_Transformer *t, const Rb_Batch *in,
	    const uint32_t *sel, int nsel, Rb_Batch *out);
    /* End of input: emit anything held back. Optional. */
    int (*flush)(Rb_Transformer *t, Rb_Batch *out);
    void (*freeState)(Rb_Transformer *t);
    int maxExpand;		/* Out records per in record at most (>=1). */
} Rb_TransformerClass;

struct Rb_Transformer {
    const Rb_TransformerClass *cls;
    void *state;
    char *cmdName;
    Rb_Error err;
    int taken;			/* Set by a transform that stopped early
				 * (see transform); -1 before each call. */
};

/* Makes the class's command and lists it in rubicon::types. */
int		Rb_RegisterTransformer(Tcl_Interp *interp,
		    const Rb_TransformerClass *cls);

/*
 * ---------------------------------------------------------------------
 * Time literals and numbers shared by the filter language and options.
 * ---------------------------------------------------------------------
 */

/* Parses "[[[days] hours:] min:] seconds" (seconds may be fractional)
 * into ns. Returns chars consumed, 0 if not a time. */
int		Rb_ParseTime(const char *s, int64_t *ns);
/* Writes ns as seconds with six decimals to buf (n bytes). */
void		Rb_FormatTime(int64_t ns, char *buf, size_t n);

/*
 * ---------------------------------------------------------------------
 * Filters (the language of Rubicon's Appendix B), compiled once.
 * ---------------------------------------------------------------------
 */

typedef struct Rb_FilterProg Rb_FilterProg;

/* Compiles expr against schema.  On error returns NULL and sets err with
 * code "RUBICON FILTER SYNTAX" or "RUBICON FILTER FIELD", a message
 * giving the 1-based column, and for an unknown field the known fields. */
Rb_FilterProg *	Rb_FilterCompile(Rb_Schema *schema, const char *expr,
		    Rb_Error *err);
/* Writes to selOut the members of selIn (ascending) that match; returns
 * their count. selOut must hold nIn entries and may not alias selIn. */
int		Rb_FilterSelect(const Rb_FilterProg *p, const Rb_Batch *b,
		    const uint32_t *selIn, int nIn, uint32_t *selOut);
/* 1 if record i of b matches, else 0. */
int		Rb_FilterMatch(const Rb_FilterProg *p, const Rb_Batch *b, int i);
/* 1 if the program is exactly "field = integer constant". */
int		Rb_FilterIsEquality(const Rb_FilterProg *p, int *field,
		    int64_t *value);
/* The expression the program was compiled from. */
const char *	Rb_FilterSource(const Rb_FilterProg *p);
/* Frees a program and releases its schema; NULL is allowed. */
void		Rb_FilterFree(Rb_FilterProg *p);

/*
 * ---------------------------------------------------------------------
 * The analyzer toolbox: what the built-in Analyzers keep their state in,
 * for any Analyzer author.  Time bins (sums per interval of trace time),
 * moments (exact count, sum, mean, variance, min, max), logarithmic
 * histograms (percentiles within 1% in bounded memory) and key tables
 * (int64 key -> fixed-size value), each with a merge for split runs and
 * a Put/Get pair that writes its state to an Rb_Buf and reads it back.
 * The structures are plain data: zero one (or call its Init/Reset) in
 * the start hook, free it in freeState.  Their fields may be read; they
 * are changed only through these functions.  doc/toolbox.3 tells more.
 * ---------------------------------------------------------------------
 */

/*
 * Time bins: sums of a non-negative quantity per interval of trace time.
 * Bin k covers [origin + k*interval, origin + (k+1)*interval); the origin
 * is the run's first record time, so the bins of every Flow (and of every
 * shard of a split run) line up.  Memory grows with the run's duration
 * divided by the interval, never with the number of records, and is
 * capped at RB_MAX_TIME_BINS bins (values beyond are counted in totals
 * but left out of the series).
 */
#define RB_MAX_TIME_BINS ((int64_t)1 << 20)

typedef struct Rb_TimeBins {
    int64_t interval;		/* ns, > 0 */
    int64_t origin;		/* Start of bin 0 (when hasOrigin). */
    int hasOrigin;
    int64_t lo;			/* Bin index of sums[0]. */
    int64_t n;			/* Bins held. */
    int64_t cap;
    uint64_t *sums;
    const Rb_RunInfo *run;	/* The run given to start (see
				 * Rb_TimeBinsSetOrigin). */
    int64_t curStart, curEnd;	/* Times [curStart, curEnd) of bin curK,
				 * the bin added to last: records come in
				 * time order, so most adds land there
				 * without a division.  Empty when equal
				 * (as in a zeroed struct). */
    int64_t curK;
} Rb_TimeBins;

/* Empties tb for a run with bins of interval ns (> 0); keeps its memory. */
void		Rb_TimeBinsStart(Rb_TimeBins *tb, int64_t interval,
		    const Rb_RunInfo *run);
/* Fixes the origin (the run's first time, else t) if not yet fixed. */
void		Rb_TimeBinsSetOrigin(Rb_TimeBins *tb, int64_t t);
/* Grows the held bins to include bin k; 0 when past RB_MAX_TIME_BINS. */
int		Rb_TimeBinsCover(Rb_TimeBins *tb, int64_t k);
/* Adds each selected record's value (1 each when value is NULL) to the
 * bin of its time; returns the sum added. */
uint64_t	Rb_TimeBinsAddColumn(Rb_TimeBins *tb, const int64_t *time,
		    const int64_t *value, const uint32_t *sel, int nsel);
/* Adds other's bins into tb (same interval, aligned origins). */
int		Rb_TimeBinsMerge(Rb_Analyzer *a, Rb_TimeBins *tb,
		    const Rb_TimeBins *other);
/* Adds other's counters bin number by bin number (no time alignment). */
uint64_t	Rb_TimeBinsAddBins(Rb_TimeBins *tb,
		    const Rb_TimeBins *other);
/* The sums of the run's intervals in time order (malloc'd, *n of them). */
double *	Rb_TimeBinsValues(const Rb_TimeBins *tb,
		    const Rb_RunInfo *run, int64_t *n,
		    double *startSeconds);
/* As Rb_TimeBinsValues, over the intervals grid's series shows. */
double *	Rb_TimeBinsValuesOn(const Rb_TimeBins *tb,
		    const Rb_TimeBins *grid, const Rb_RunInfo *run, int64_t *n,
		    double *startSeconds);
/* The bin numbers grid's series shows: *kFirst and *n. */
int		Rb_TimeBinsRange(const Rb_TimeBins *grid,
		    const Rb_RunInfo *run, int64_t *kFirst, int64_t *n,
		    double *startSeconds);
/* A series Attribute (time, value per second) of the bins. */
Rb_Attribute *	Rb_TimeBinsSeries(const Rb_TimeBins *tb,
		    const Rb_RunInfo *run, const char *name,
		    const char *unit, const char *help);
/* The largest interval's sum over the mean interval's. */
double		Rb_TimeBinsPeakToMean(const Rb_TimeBins *tb,
		    const Rb_RunInfo *run);
/* Frees the bins' memory. */
void		Rb_TimeBinsFree(Rb_TimeBins *tb);
/* Writes tb's state to b (a split run's partial state). */
void		Rb_TimeBinsPut(Rb_Buf *b, const Rb_TimeBins *tb);
/* Reads what Rb_TimeBinsPut wrote into a started tb. */
void		Rb_TimeBinsGet(Rb_Buf *b, Rb_TimeBins *tb);

/*
 * Moments: exact count, sum, minimum, maximum, mean and variance of a
 * stream of numbers (Welford's update, Chan et al.'s merge), so that the
 * variance stays accurate when the mean is large.  Add with
 * Rb_MomentsAdd (inline, below).
 */
typedef struct Rb_Moments {
    uint64_t n;
    double sum, mean, m2, min, max;
} Rb_Moments;

/* Empties m (min +inf, max -inf). */
void		Rb_MomentsReset(Rb_Moments *m);
/* Adds other's numbers into m. */
void		Rb_MomentsMerge(Rb_Moments *m, const Rb_Moments *other);
/* The population standard deviation (dividing by n), 0 below two. */
double		Rb_MomentsStddev(const Rb_Moments *m);
/* Writes m to b. */
void		Rb_MomentsPut(Rb_Buf *b, const Rb_Moments *m);
/* Reads what Rb_MomentsPut wrote. */
void		Rb_MomentsGet(Rb_Buf *b, Rb_Moments *m);

/*
 * Logarithmic histograms: percentiles of an unbounded stream of numbers
 * in bounded memory, within a relative error RB_LOGHIST_ALPHA of the
 * exact nearest-rank order statistic; count, sum, minimum and maximum
 * exact.  Buckets are fixed (not data-dependent), so histograms merge
 * exactly.
 */
#define RB_LOGHIST_ALPHA 0.01

typedef struct Rb_LogHist {
    Rb_Moments moments;
    uint64_t zeros;		/* Values equal to 0. */
    Rb_TimeBins bucket[2];	/* Counts of positive [0] and negative [1]
				 * values by bucket number (used as growable
				 * arrays; their interval is unused). */
} Rb_LogHist;

/* Empties h, keeping its memory (a zeroed struct is also empty). */
void		Rb_LogHistReset(Rb_LogHist *h);
/* Counts v (NaN and infinities are ignored). */
void		Rb_LogHistAdd(Rb_LogHist *h, double v);
/* Adds other's counts into h. */
int		Rb_LogHistMerge(Rb_Analyzer *a, Rb_LogHist *h,
		    const Rb_LogHist *other);
/* The p-th percentile (0 <= p <= 100); NaN when empty. */
double		Rb_LogHistPercentile(const Rb_LogHist *h, double p);
/* A percentile table Attribute (p, value * scale). */
Rb_Attribute *	Rb_LogHistAttr(const Rb_LogHist *h, const char *name,
		    const char *unit, double scale, const char *help);
/* Frees the buckets. */
void		Rb_LogHistFree(Rb_LogHist *h);
/* Writes h to b. */
void		Rb_LogHistPut(Rb_Buf *b, const Rb_LogHist *h);
/* Reads what Rb_LogHistPut wrote into an empty h. */
void		Rb_LogHistGet(Rb_Buf *b, Rb_LogHist *h);

/*
 * Key tables: open-addressing hash tables from an int64 key to a value of
 * a fixed size, zeroed when the key is first seen.  Slot i is in use when
 * used[i]; its key is keys[i], its value Rb_KeyTableValue(t, i).  Finding
 * may grow the table and move every value: do not keep value pointers
 * across a Find that creates.  Bound the memory with Rb_KeyTableFindLimited
 * and a documented -limit.
 */
typedef struct Rb_KeyTable {
    size_t valSize;
    uint64_t cap;		/* Power of two, or 0 before first use. */
    uint64_t count;		/* Keys held. */
    int64_t *keys;
    unsigned char *used;
    unsigned char *vals;
} Rb_KeyTable;

/* Makes t an empty table of values of valSize bytes. */
void		Rb_KeyTableInit(Rb_KeyTable *t, size_t valSize);
/* key's value; absent: a new zeroed one if create, else NULL. */
void *		Rb_KeyTableFind(Rb_KeyTable *t, int64_t key, int create);
/* As Rb_KeyTableFind creating, but NULL once limit keys are held. */
void *		Rb_KeyTableFindLimited(Rb_KeyTable *t, int64_t key,
		    int64_t limit);
/* Removes key if present. */
void		Rb_KeyTableRemove(Rb_KeyTable *t, int64_t key);
/* Empties t, keeping its memory. */
void		Rb_KeyTableClear(Rb_KeyTable *t);
/* The slots in use in increasing key order (malloc'd, t->count). */
uint64_t *	Rb_KeyTableSortedSlots(const Rb_KeyTable *t);
/* Frees t's arrays; t is empty and reusable afterwards. */
void		Rb_KeyTableFree(Rb_KeyTable *t);
/* Writes t (keys as strings of textSchema when given; values, which
 * must be plain data without pointers, as 64-bit words or bytes) to b. */
void		Rb_KeyTablePut(Rb_Buf *b, const Rb_KeyTable *t,
		    const Rb_Schema *textSchema);
/* Reads what Rb_KeyTablePut wrote, adding to t (same value size). */
void		Rb_KeyTableGet(Rb_Buf *b, Rb_KeyTable *t,
		    Rb_Schema *textSchema);

/*
 * Package entry point.
 */

/* Loads the package into interp. */
int		Rubicon_Init(Tcl_Interp *interp);
/* Loads the package into a safe interp. */
int		Rubicon_SafeInit(Tcl_Interp *interp);

#include "rubiconDecls.h"

/*
 * ---------------------------------------------------------------------
 * The toolbox's inline functions, after the stubs table whose entries
 * they call.
 * ---------------------------------------------------------------------
 */

/*
 * Rb_FloorDiv --
 *	a / b rounded toward minus infinity (b > 0), so that times before
 *	a time bin origin fall in negative bins rather than in bin 0.
 */
static inline int64_t
Rb_FloorDiv(int64_t a, int64_t b)
{
    int64_t q = a / b;

    return (a % b < 0) ? q - 1 : q;
}

/*
 * Rb_TimeBinOf --
 *	The bin of time t (origin set).
 * Results: 1 with *k set, or 0 when t is too far from the origin for
 *	int64 arithmetic (a corrupt time).
 */
static inline int
Rb_TimeBinOf(const Rb_TimeBins *tb, int64_t t, int64_t *k)
{
    int64_t ns;

    if (__builtin_sub_overflow(t, tb->origin, &ns)) {
	return 0;
    }
    *k = Rb_FloorDiv(ns, tb->interval);
    return 1;
}

/*
 * Rb_TimeBinsSlot --
 *	The counter of bin k, the held range grown to include it.
 * Results: a pointer, or NULL when k lies too far from the held bins.
 */
static inline uint64_t *
Rb_TimeBinsSlot(Rb_TimeBins *tb, int64_t k)
{
    if ((k < tb->lo || k >= tb->lo + tb->n) && !Rb_TimeBinsCover(tb, k)) {
	return NULL;
    }
    return &tb->sums[k - tb->lo];
}

/*
 * Rb_MomentsAdd --
 *	Adds x to the moments.
 */
static inline void
Rb_MomentsAdd(Rb_Moments *m, double x)
{
    double delta = x - m->mean;

    m->n++;
    m->sum += x;
    m->mean += delta / (double)m->n;
    m->m2 += delta * (x - m->mean);
    if (x < m->min) {
	m->min = x;
    }
    if (x > m->max) {
	m->max = x;
    }
}

/*
 * Rb_KeyTableValue --
 *	The value in slot of t (a slot in use).
 */
static inline void *
Rb_KeyTableValue(const Rb_KeyTable *t, uint64_t slot)
{
    return t->vals + slot * t->valSize;
}

/*
 * Rb_HashKey --
 *	A well-mixed 64-bit hash of key (the splitmix64 finalizer), for
 *	table slots, sampling and HyperLogLog.
 */
static inline uint64_t
Rb_HashKey(int64_t key)
{
    uint64_t z = (uint64_t)key + 0x9E3779B97F4A7C15ull;

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif /* RUBICON_H */
