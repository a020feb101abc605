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
#include <string.h>
#include "rubicon.h"

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
    char *domainNames[RB_MAX_FIELDS];
    int fieldDomain[RB_MAX_FIELDS];	/* -1: not a join attribute */
    int threadDomain;		/* Domain of switched threads, or -1. */
    int nsyncs;
    MgSync *syncs;
    int nstitches;
    MgStitch *stitches;
} MgSchema;

/* Registry of schemas defined by magpie::schema (process-wide, as trace
 * readers are; a later definition of a name replaces the earlier). */
MgSchema *	MgSchemaFind(const char *name);	/* retained, or NULL */
void		MgSchemaRelease(MgSchema *s);
int		MgSchemaEventIndex(const MgSchema *s, const char *name);
int		MgSchemaInitCmds(Tcl_Interp *interp);

/* The plugin's readers and analyzers. */
extern const Rb_ReaderClass MgEventLogReaderClass;
extern const Rb_ReaderClass MgCsvLogReaderClass;
extern const Rb_ReaderClass MgFtraceReaderClass;
extern const Rb_AnalyzerClass MgThreadCpuAnalyzerClass;
extern const Rb_AnalyzerClass MgParserAnalyzerClass;

/* Allocation that cannot fail (Tcl panics when memory is exhausted). */
static inline void *
MgAlloc(size_t n)
{
    void *p = Tcl_Alloc(n ? n : 1);

    memset(p, 0, n);
    return p;
}

static inline void *
MgRealloc(void *p, size_t n)
{
    return Tcl_Realloc(p, n ? n : 1);
}

static inline char *
MgStrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = Tcl_Alloc(n);

    memcpy(d, s, n);
    return d;
}

#define MgFree(p) Tcl_Free((char *)(p))

/* Parses decimal seconds ("12.000345") into ns; returns chars used or 0. */
int		MgParseSeconds(const char *s, int64_t *ns);

/*
 * What the event-log readers (eventlog.c: text, csvlog.c: CSV) share:
 * records of fields time, machine, event and one per attribute, of a
 * declared magpie::schema or of a record schema discovered from the
 * file's first megabyte; one file per machine.
 */
#define MG_DISCOVER_BYTES	(1 << 20)
#define MG_MAX_ATTRS		(RB_MAX_FIELDS - 3)

typedef struct MgLog {
    MgSchema *mg;		/* Declared schema, or NULL (discovered). */
    int fMachine, fEvent;
    int64_t machine;		/* Interned machine name. */
    int failed;			/* pending holds an error for next call. */
    Rb_Error pending;
} MgLog;

/* Discovers the attributes of a file (the reader's own syntax). */
typedef Rb_Schema *(MgDiscoverProc)(Rb_Reader *r, Rb_Error *err);

int		MgParseInt(const char *s, int64_t *v);
int		MgIsComment(const char *s);
Rb_Schema *	MgLogSharedSchema(char **names, const int *isInt, int n);
int		MgLogOpen(Rb_Reader *r, MgLog *lg, MgDiscoverProc *discover,
		    Rb_Error *err);
const char *	MgLogTimeEvent(Rb_Reader *r, MgLog *lg, Rb_Batch *b, int i,
		    const char *time, const char *event, char *why,
		    size_t whyLen);
const char *	MgLogValue(Rb_Reader *r, Rb_Batch *b, int i, int f,
		    const char *value, char *why, size_t whyLen);
int		MgLogKeep(Rb_Reader *r, MgLog *lg, Rb_Batch *b, int start,
		    const char *bad, const char *why, uint64_t offset,
		    Rb_Error *err);
int		MgLogFail(MgLog *lg, Rb_Batch *b, int start, Rb_Error *err);

#endif /* MAGPIE_H */
