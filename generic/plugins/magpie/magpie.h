/*
 * magpie.h --
 *
 *	Shared declarations of the Magpie plugin: the event schema written
 *	in Tcl (magpie::schema), compiled to the structures below, and the
 *	registration hooks of the plugin's readers and analyzers.  Only the
 *	public header rubicon.h is used.
 */

#ifndef MAGPIE_H
#define MAGPIE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rubicon.h"

/* Registers the plugin's classes and commands in interp (init.c). */
int		RbMagpieInit(Tcl_Interp *interp);

/* How an event's join attribute affects the value's valid-interval. */
typedef enum MgBinding {
    MG_BASIC = 0,		/* joins only while an interval is open */
    MG_START,			/* opens an interval for the value */
    MG_STOP			/* joins, then closes the interval */
} MgBinding;

typedef struct MgJoin {
    int field;			/* Record field of the attribute. */
    int domain;			/* Values compare within a domain. */
    MgBinding binding;
} MgJoin;

typedef struct MgEventType {
    char *name;			/* "Provider/EventName" */
    int njoins;
    MgJoin *joins;
    int begin;			/* Begins a request. */
    int end;			/* Ends a request. */
    int cswitchCpu;		/* Context switch: fields of the CPU, the */
    int cswitchOld;		/* thread switched out and the thread */
    int cswitchNew;		/* switched in; -1 when not a switch. */
    int intrBegin;		/* CPU field of an interrupt-like context */
    int intrEnd;		/* that begins / ends here, or -1. */
    int diskBytes;		/* Field of disk bytes, or -1. */
    int netBytes;		/* Field of network bytes, or -1. */
    int syncField;		/* Attribute of its sync statements, or -1. */
    int startField;		/* -startat: int attribute holding the start
				 * time (ns) of an event posted at its
				 * completion, or -1; */
    int startType;		/* the synthetic Start event's type. */
    char *startName;		/* Its name until compiled. */
} MgEventType;

/* sync SOURCE ATTR DEST: a Signal at SOURCE, Wait/Resume at DEST. */
typedef struct MgSync {
    int source;			/* Event type indices. */
    int dest;
    int field;
} MgSync;

/* stitch TX RX {ATTR ...}: a packet sent (TX) on one machine and
 * received (RX) on another, matched by equal values of the attributes;
 * it joins the request fragments of the two machines. */
#define MG_MAX_STITCH_ATTRS 4
#define MG_MAX_STITCHES 8

typedef struct MgStitch {
    int tx, rx;			/* Event type indices. */
    int nfields;
    int fields[MG_MAX_STITCH_ATTRS];
} MgStitch;

typedef struct MgSchema {
    char *name;
    int refCount;
    Rb_Schema *rec;		/* Record schema of this schema's events. */
    int fMachine;		/* Fields every event record has. */
    int fEvent;
    int nevents;
    MgEventType *events;
    int ndomains;
    /* At most RB_MAX_FIELDS domain statements, and a domain of its own
     * for each other join attribute. */
    char *domainNames[2 * RB_MAX_FIELDS];
    int fieldDomain[RB_MAX_FIELDS];	/* -1: not a join attribute */
    int threadDomain;		/* Domain of switched threads, or -1. */
    int nsyncs;
    MgSync *syncs;
    int nstitches;
    MgStitch *stitches;
} MgSchema;

/*
 * A request as the parser emits it: its entries in record order.  Besides
 * the events themselves there are the CPU charges the parser made to the
 * request (the time a thread or interrupt context ran between two
 * accounting points) and, inserted at emission, the synchronization
 * points of the schema's sync statements: a Signal just after the source
 * event, a Wait and a Resume just before the destination event.
 */
typedef enum MgKind {
    MG_EVENT = 0,		/* an event of the log */
    MG_CPU,			/* CPU time charged, ending at .time */
    MG_SIGNAL,			/* sync points */
    MG_WAIT,
    MG_RESUME,
    MG_HOP			/* a stitched packet received here; amount:
				 * the record that sent it */
} MgKind;

typedef struct MgEvent {
    uint64_t recNo;		/* Record number in the run (1-based); a
				 * charge or point has its event's number. */
    int64_t time;		/* ns, the machine's clock */
    int64_t machine;		/* String id in the run's schema. */
    int64_t thread;		/* Thread-domain value, interrupt context id
				 * (intr set), or RB_ABSENT. */
    int64_t amount;		/* MG_CPU: ns.  MG_EVENT: bytes of a -disk or
				 * -net event.  Sync points: the record number
				 * of the event at the other end. */
    int64_t syncVal;		/* MG_EVENT: value of its type's syncField. */
    int type;			/* Event type (of the event a point is at). */
    unsigned char kind;		/* MgKind */
    unsigned char intr;		/* thread is an interrupt-like context, named
				 * by the record number of its begin event */
} MgEvent;

typedef struct MgRequest {
    int64_t id;			/* 1, 2, ... in order of emission */
    int64_t machine;		/* String id in the run's schema. */
    int64_t label;		/* -label value, or RB_ABSENT */
    int64_t cpuNs, diskOps, diskBytes, netPkts, netBytes;
    int cluster;		/* Cluster index (0-based), -1 if none. */
    int nev;
    MgEvent *ev;
} MgRequest;

/*
 * Canonical form: a request's tokens, each an event (with the CPU its
 * thread used since the thread's previous event, and its bytes), a sync
 * point, or a bracket around a thread forked at a Signal.
 */
enum {
    MG_SYM_CPU = -1,		/* CPU left after a thread's last event */
    MG_SYM_SIGNAL = -2,
    MG_SYM_WAIT = -3,
    MG_SYM_RESUME = -4,
    MG_SYM_OPEN = -5,		/* "(" a forked thread begins */
    MG_SYM_CLOSE = -6		/* ")" */
};

typedef struct MgToken {
    int sym;			/* Event type index, or MG_SYM_* */
    double cpuNs, diskBytes, netBytes;
} MgToken;

/* Costs of the edit distance: a token weighs 1 plus its resources in
 * these units; see MgEditDistance. */
typedef struct MgCost {
    double cpuUnit;		/* ns */
    double byteUnit;		/* bytes */
} MgCost;

/* canon.c */
void		MgInsertSyncPoints(const MgSchema *s, MgRequest *r,
		    MgEvent **scratch, int *scratchCap);
int		MgRequestEvents(const MgRequest *r, Tcl_DString *out);
int		MgCanonical(const MgSchema *s, const MgRequest *r,
		    MgToken **tokens, int *cap);
void		MgTokensString(const MgSchema *s, const MgToken *t, int n,
		    Tcl_DString *out);
double		MgTokenWeight(const MgToken *t, const MgCost *c);
double		MgTokensWeight(const MgToken *t, int n, const MgCost *c);
double		MgEditDistance(const MgToken *a, int na, const MgToken *b,
		    int nb, const MgCost *c);
int		MgCanonInitCmds(Tcl_Interp *interp);

/* cluster.c: incremental behavioural clustering and the workload model. */
typedef struct MgClusterer MgClusterer;
MgClusterer *	MgClustererNew(const MgSchema *s, const MgCost *cost,
		    double threshold, int outliers, int maxClusters);
int		MgClustererAdd(MgClusterer *c, const MgRequest *r,
		    const MgToken *t, int n, const char *text,
		    const char *labelText);
void		MgClustererReport(MgClusterer *c, Rb_Analyzer *a, int partial);
void		MgClustererFree(MgClusterer *c);

/* parser.c: the requests a MagpieParserAnalyzer listed in full (-keep)
 * in its last run, for drawing; NULL if a is not one or id not kept. */
const MgRequest *MgParserRequest(const Rb_Analyzer *a, int64_t id);
const MgSchema *MgParserSchema(const Rb_Analyzer *a);
const MgRequest *MgFlowRequest(Tcl_Interp *interp, Tcl_Obj *flowObj,
		    Tcl_Obj *idObj, const char *attrName, const char *code,
		    const MgSchema **mg);
int		MgParserInitCmds(Tcl_Interp *interp);
int		MgThreadField(const MgSchema *mg);

/* Registry of schemas defined by magpie::schema (process-wide, as trace
 * readers are; a later definition of a name replaces the earlier). */
MgSchema *	MgSchemaFind(const char *name);	/* retained, or NULL */
void		MgSchemaRelease(MgSchema *s);
void		MgSchemaRegistryFree(void);
void		MgFtraceSchemaFree(void);
void		MgEventLogSchemasFree(void);
Rb_Schema *	MgNamedRecordSchema(const char *arg, Rb_Error *err);
int		MgSchemaEventIndex(const MgSchema *s, const char *name);
int		MgSchemaInitCmds(Tcl_Interp *interp);

/* The plugin's readers and analyzers. */
extern const Rb_ReaderClass MgEventLogReaderClass;
extern const Rb_ReaderClass MgCsvLogReaderClass;
extern const Rb_ReaderClass MgFtraceReaderClass;
extern const Rb_AnalyzerClass MgThreadCpuAnalyzerClass;
extern const Rb_AnalyzerClass MgParserAnalyzerClass;

/* magpie::timeline (timelineDraw.c): draws a listed request. */
int		MgTimelineInitCmds(Tcl_Interp *interp);

/* chrome.c */
int		MgChromeInitCmds(Tcl_Interp *interp);

/* Memory comes from the core's allocator (Rb_Alloc, Rb_AllocArray ...,
 * released with free()), which takes a size_t: Tcl_Alloc's unsigned int
 * would cut a request above 4 GiB short. */

/* Parses decimal seconds ("12.000345") into ns; returns chars used or 0. */
int		MgParseSeconds(const char *s, int64_t *ns);

/* keymap.c: (machine, domain, value) -> a pointer-sized value. */
typedef struct MgKeySlot {
    int64_t machine, domain, value;
    intptr_t data;
    int used;
} MgKeySlot;

typedef struct MgKeyMap {
    MgKeySlot *slots;		/* mask + 1 of them, or NULL when new. */
    size_t mask;
    size_t count;		/* Entries in use. */
} MgKeyMap;

MgKeySlot *	MgKeyMapFind(const MgKeyMap *m, int64_t machine,
		    int64_t domain, int64_t value);
MgKeySlot *	MgKeyMapPut(MgKeyMap *m, int64_t machine, int64_t domain,
		    int64_t value, int *isNew);
void		MgKeyMapDelete(MgKeyMap *m, MgKeySlot *e);
void		MgKeyMapFree(MgKeyMap *m);

/*
 * What the event-log readers (eventlog.c: text, csvlog.c: CSV) share:
 * records of fields time, machine, event and one per attribute, of a
 * declared magpie::schema or of a record schema discovered from the
 * file's first megabyte; one file per machine.
 */
#define MG_DISCOVER_BYTES	(1 << 20)
#define MG_MAX_ATTRS		(RB_MAX_FIELDS - 3)

/*
 * A reader's memory of names it has looked up: attribute name to field
 * index, event name or string value to interned id.  Direct-mapped by a
 * hash of the exact bytes, each slot holding its own copy of a short key,
 * so a hit costs one pass over the name and a compare, and a miss or a
 * long key simply takes the schema's own lookup.  Fixed size.
 */
#define MG_CACHE_BITS		9
#define MG_CACHE_SLOTS		(1 << MG_CACHE_BITS)
#define MG_CACHE_KEY		23

typedef struct MgCacheSlot {
    int64_t id;			/* Field index or interned id. */
    unsigned char len;		/* Key length; 0: empty slot. */
    char key[MG_CACHE_KEY];
} MgCacheSlot;

#define MG_MAX_STARTS 16	/* event types with -startat per schema */

typedef struct MgLog {
    MgSchema *mg;		/* Declared schema, or NULL (discovered). */
    int fMachine, fEvent;
    int64_t machine;		/* Interned machine name. */
    int failed;			/* pending holds an error for next call. */
    Rb_Error pending;
    MgCacheSlot fieldCache[MG_CACHE_SLOTS];  /* Attribute -> field. */
    MgCacheSlot stringCache[MG_CACHE_SLOTS]; /* Text -> interned id. */
    int64_t reorderNs;		/* Window of the "reorder" option. */
    int64_t maxSeen;		/* Latest time read, RB_ABSENT before. */
    int64_t *held;		/* Records held to be sorted: ncols values */
    int nheld, capHeld, ncols;	/* each, in time order. */
    int eof;
    /* Events posted at completion (-startat of a declared schema): the
     * event's id, its Start event's id, the start time's field. */
    int nstarts;
    int64_t startFrom[MG_MAX_STARTS], startTo[MG_MAX_STARTS];
    int startField[MG_MAX_STARTS];
} MgLog;

/* Discovers the attributes of a file (the reader's own syntax). */
typedef Rb_Schema *(MgDiscoverProc)(Rb_Reader *r, Rb_Error *err);
/* Reads the next record that is not a comment, setting where it began
 * (and r->recordNo); returns NULL at the end (err->code empty) or on a
 * read error, or the record with *bad set when it is malformed already. */
typedef char *(MgRecordProc)(Rb_Reader *r, uint64_t *offset,
	const char **bad, char *why, size_t whyLen, Rb_Error *err);
/* Fills record i of b from a record's text (modified in place); returns
 * NULL or the malformed-record kind with detail in why. */
typedef const char *(MgParseProc)(Rb_Reader *r, char *rec, Rb_Batch *b,
	int i, char *why, size_t whyLen);

int		MgParseInt(const char *s, int64_t *v);
int		MgLogField(Rb_Reader *r, MgLog *lg, const char *name);
int64_t		MgLogIntern(Rb_Reader *r, MgLog *lg, const char *text);
int		MgIsComment(const char *s);
Rb_Schema *	MgLogSharedSchema(char **names, const int *isInt, int n);
int		MgLogOpen(Rb_Reader *r, MgLog *lg, MgDiscoverProc *discover,
		    Rb_Error *err);
const char *	MgLogTimeEvent(Rb_Reader *r, MgLog *lg, Rb_Batch *b, int i,
		    const char *time, const char *event, char *why,
		    size_t whyLen);
const char *	MgLogValue(Rb_Reader *r, MgLog *lg, Rb_Batch *b, int i, int f,
		    const char *value, char *why, size_t whyLen);
int		MgLogNext(Rb_Reader *r, MgLog *lg, Rb_Batch *b,
		    Rb_Error *err, MgRecordProc *getRecord,
		    MgParseProc *parse);
void		MgLogFree(MgLog *lg);

#endif /* MAGPIE_H */
