/*
 * stardust.h --
 *
 *	Internal interface of the Stardust plugin: activity-record type sets
 *	(declared in Tcl, as Stardust's records.txt declared them), the
 *	activity schema every Stardust reader produces, and the request
 *	graph through which stitched sub-requests roll up to the request and
 *	client that caused them.  Only rubicon.h is used from the engine.
 */

#ifndef STARDUST_H
#define STARDUST_H

#include "rubicon.h"

/* Registers the plugin's classes and commands in interp (init.c). */
int		RbStardustInit(Tcl_Interp *interp);

/*
 * Fixed fields of the activity schema.  Payload attributes follow, one
 * field per distinct attribute name over all the types of a set.
 */
enum {
    SD_F_TIME = 0,		/* ns from cycle 0 */
    SD_F_TYPE,			/* type name (string) */
    SD_F_BREADCRUMB,		/* 64-bit request id */
    SD_F_CLIENT,		/* top 8 bits of the breadcrumb */
    SD_F_PID,
    SD_F_TID,
    SD_F_NFIXED
};

#define SD_MAX_ATTRS	16	/* attributes per record type */
#define SD_CLIENT(bc)	((int)((uint64_t)(bc) >> 56))

typedef enum SdAttrType {
    SD_BYTE = 0, SD_SHORT, SD_INT, SD_LONG, SD_STRING
} SdAttrType;

typedef struct SdAttr {
    char *name;
    SdAttrType type;
    int field;			/* Its field in the set's schema. */
} SdAttr;

typedef struct SdType {
    char *name;
    int id;			/* Type id in the binary form. */
    int nattrs;
    SdAttr attrs[SD_MAX_ATTRS];
} SdType;

/*
 * A type set is immutable once published: declaring a type makes a new
 * set that replaces the old under its name, so a reader holding the old
 * one keeps a consistent view.  Sets are process-wide because readers
 * open files without an interpreter.
 */
typedef struct SdTypeSet {
    char *name;
    int ntypes;
    SdType *types;
    Rb_Schema *schema;		/* Activity schema of these types. */
    int refCount;		/* Guarded by the registry's mutex. */
} SdTypeSet;

#define SD_DEFAULT_SET	"default"

/* types.c */
SdTypeSet *	Sd_TypeSetGet(const char *name);
void		Sd_TypeSetRelease(SdTypeSet *set);
SdTypeSet *	Sd_TypeSetFromOptions(Tcl_Obj *options, Rb_Error *err);
const SdType *	Sd_TypeById(const SdTypeSet *set, int id);
const SdType *	Sd_TypeByName(const SdTypeSet *set, const char *name);
const char *	Sd_AttrTypeName(SdAttrType type);
int		Sd_TypesInitCmds(Tcl_Interp *interp);

/* reader.c */
extern const Rb_ReaderClass Sd_BinaryReaderClass;
extern const Rb_ReaderClass Sd_TextReaderClass;

/* zipkin.c */
extern const Rb_ReaderClass Sd_ZipkinReaderClass;
extern const Rb_ReaderClass Sd_OtlpReaderClass;

#ifdef HAVE_JANSSON
#include <jansson.h>

/*
 * spans.c: spans of Zipkin v2 or OTLP JSON, linked, corrected for clock
 * skew and given their self time.  Times are ns since the epoch.
 */

typedef struct SdSpan {
    const char *traceId, *id, *parentId;
    const char *kind;		/* "SERVER", "CLIENT", "PRODUCER",
				 * "CONSUMER", or NULL */
    const char *name, *service;
    const char *host;		/* Its clock: address or host name. */
    const char *remoteService;	/* The peer it calls, or NULL. */
    json_t *remote;		/* Zipkin remoteEndpoint, or NULL */
    int shared;			/* Zipkin: the server half of an id. */
    int error;
    int64_t ts, dur;		/* ns; RB_ABSENT when missing */
    int64_t shift;		/* Added to ts for clock skew. */
    int64_t self;		/* ns, RB_ABSENT without a duration */
    int64_t bc;
    int client;			/* Its trace's number, 1..255. */
    int parent;			/* Index of the parent half, or -1. */
} SdSpan;

typedef struct SdSkew {
    const char *childHost, *parentHost;
    int count;
    int64_t sum, max;		/* ns of correction */
} SdSkew;

enum { SD_SPANS_ZIPKIN = 0, SD_SPANS_OTLP = 1 };

typedef struct SdSpanSet {
    int format;
    json_t *roots;		/* The parsed documents. */
    SdSpan *spans;
    int nspans, cap, ntraces;
    SdSkew *skew;
    int nskew, skewed;
} SdSpanSet;

const char *	Sd_JsonStr(json_t *obj, const char *key);
int		Sd_SpansSniff(const unsigned char *head, size_t n);
int		Sd_SpansParse(SdSpanSet *set, const char *buf, size_t len,
		    const char *path, Rb_Error *err);
void		Sd_SpansFree(SdSpanSet *set);
int		Sd_SpansInitCmds(Tcl_Interp *interp);
#endif

/*
 * graph.c: the request graph.  Each breadcrumb is a node; a Stitch record
 * makes its source a parent of its destination.  A node with several
 * parents is work coalesced from several requests: its demand is split
 * equally among them, recursively, down to root requests.
 */

typedef struct SdShare {
    int64_t root;		/* Root breadcrumb. */
    double weight;		/* Fraction of the node's work it bears. */
} SdShare;

/*
 * A stitch that would close a cycle, or make a chain of stitches from a
 * root longer than SD_MAX_STITCH_DEPTH, is refused: the graph stays a
 * DAG of bounded depth, so every walk over it is bounded.
 */
#define SD_MAX_STITCH_DEPTH 64

enum { SD_STITCH_OK = 0, SD_STITCH_CYCLE, SD_STITCH_DEEP };

typedef struct SdNode {
    int64_t bc;
    int nparents, capParents;
    int64_t *parents;
    int nchildren, capChildren;
    int64_t *children;
    int depth;			/* Longest stitch chain from a root. */
    int ninherit;		/* Parents already retired ... */
    int nInheritShares;
    SdShare *inherit;		/* ... and the sum of their roll-ups. */
    double cpu, disk;		/* seconds */
    double netBytes;
    double buf[6];		/* Buffer-cache accesses by kind. */
    double pend[3];		/* cpu, disk, netBytes since the last prune */
    double acc[3];		/* A root's total, sub-requests included. */
    int64_t lastTime;		/* Last activity of the node, ns. */
    size_t logHead;		/* Its newest buffer access + 1, 0 none. */
    int nshares;		/* Roll-up, computed on demand. */
    SdShare *shares;
    int state;			/* 0 unresolved, 1 resolving, 2 done */
    unsigned mark, height;	/* Scratch of Sd_GraphStitch's check. */
} SdNode;

typedef struct SdGraph {
    Tcl_HashTable nodes;	/* breadcrumb -> SdNode * */
    unsigned walk;		/* Generation of the last check walk. */
} SdGraph;

void		Sd_GraphInit(SdGraph *g);
void		Sd_GraphFree(SdGraph *g);
SdNode *	Sd_GraphNode(SdGraph *g, int64_t bc);
SdNode *	Sd_GraphFind(const SdGraph *g, int64_t bc);
int		Sd_GraphStitch(SdGraph *g, int64_t src, int64_t dst);
void		Sd_GraphInherit(SdNode *n, const SdShare *shares, int count);
void		Sd_GraphRemove(SdGraph *g, SdNode *n);
const SdShare *	Sd_GraphRoots(SdGraph *g, SdNode *n, int *count);
void		Sd_GraphForgetRoots(SdGraph *g);

/* accounting.c, flowgraph.c, db.c (with HAVE_SQLITE3) */
extern const Rb_AnalyzerClass Sd_DemandAnalyzerClass;
extern const Rb_AnalyzerClass Sd_FlowGraphAnalyzerClass;
extern const Rb_AnalyzerClass Sd_DatabaseAnalyzerClass;	/* db.c */

/*
 * SdFields: the field indices an analyzer needs, resolved by name once
 * at start, and the interned ids of the standard type names.
 */
typedef struct SdFields {
    int type, bc, pid, tid;
    int cpu, oldPid, newPid, oldTid, newTid;
    int disk, ioId, bytes, src, dst, srcBc, dstBc, file, offset, size;
    int service, name, self;
    int64_t tSpanSelf;		/* A span's self time (ns in self). */
    int64_t tUserSwitch, tKernelSwitch, tDiskStart, tDiskEnd, tNet, tStitch;
    int64_t tCall, tReply;
    int64_t tBuffer[6];		/* ReadHit ReadMiss Write ReadAhead
				 * Flush Evict */
} SdFields;

extern const char *const Sd_BufferTypes[6];
int		Sd_CheckSchema(Rb_Analyzer *a, const Rb_RunInfo *run);
int		Sd_ResolveFields(Rb_Analyzer *a, const Rb_RunInfo *run,
		    SdFields *f);

#endif /* STARDUST_H */
