/*
 * engine.h --
 *
 *	The engine's private structures: DAG nodes (Filter, Mux,
 *	Transformer, sink, Flow), Flows with their Attributes, and the
 *	per-interpreter state that holds them.
 */

#ifndef RB_ENGINE_H
#define RB_ENGINE_H

#include "rbInt.h"

typedef enum NodeKind {
    NODE_FLOW, NODE_FILTER, NODE_MUX, NODE_TRANSFORMER, NODE_SINK,
    NODE_ANALYZER
} NodeKind;

typedef struct Rb_Engine Rb_Engine;

/* The most nodes a path through the DAG may have: every traversal of the DAG
 * recurses along paths, and a chain of some thousands of Filters or Muxes
 * would overflow the C stack.  RbNodeAddChild refuses an edge that would
 * make a longer one (RUBICON DAG DEPTH). */
#define RB_MAX_DAG_DEPTH 1000
typedef struct Rb_Node Rb_Node;
typedef struct MuxTable MuxTable;

/* A sink consumes records without being a Flow (e.g. TraceWriter). */
typedef struct Rb_SinkClass {
    const char *name;
    int (*start)(void *cd, const Rb_RunInfo *run, Rb_Error *err);
    int (*push)(void *cd, const Rb_Batch *b, const uint32_t *sel, int nsel,
	    Rb_Error *err);
    int (*end)(void *cd, const Rb_RunInfo *run, Rb_Error *err);
    void (*free)(void *cd);
} Rb_SinkClass;

struct Rb_Node {
    NodeKind kind;
    char *cmdName;
    Tcl_Command token;
    Rb_Engine *eng;
    int nchildren;
    Rb_Node **children;
    uint32_t *sel;		/* Output selection buffer (filters). */
    int visitMark;		/* For traversals. */
    int nparents;		/* Nodes that have it among their children. */
    uint64_t dupMark;		/* For the check of RbNodeAddChild. */
    Rb_Node *dupOrigin;
    uint64_t depthMark;		/* For the depth check of RbNodeAddChild: */
    int depthValue;		/* a path length worked out under it. */
    Rb_Node *nextNode;		/* All nodes of the engine. */

    /* NODE_FILTER */
    char *expr;
    char *schemaSpec;		/* -schema: NULL (io), run, or a name. */
    Rb_FilterProg *prog;
    Rb_Schema *progSchema;

    /* NODE_MUX */
    MuxTable *table;
    int parallel;		/* Its children run on the engine's threads
				 * (parallel.c), set for a run. */

    /* NODE_TRANSFORMER */
    Rb_Transformer *xf;
    Rb_Batch *out;

    /* NODE_SINK */
    const Rb_SinkClass *sinkClass;
    void *sinkData;

    /* NODE_FLOW */
    Rb_Flow *flow;

    /* NODE_ANALYZER: one Analyzer fed straight by a Mux or Filter (the
     * paper's wiring); it sets its Attributes on its own Flow. */
    Rb_Analyzer *analyzer;

    Rb_Error runErr;		/* A sink's failure during a run. */
    int failed;
};

struct Rb_Flow {
    char *name;
    Rb_Node *node;		/* Its DAG node (kind NODE_FLOW). */
    int nanalyzers;
    Rb_Analyzer **analyzers;
    uint64_t recordCount;	/* Records pushed to it (kept in the first
				 * cache line, with analyzers, which a
				 * Mux's push reads too: muxTable.c). */
    Tcl_HashTable attrs;	/* name -> Rb_Attribute * */
    Tcl_HashTable aliases;	/* paper name -> view of an Attribute in
				 * attrs under that name (AliasView) */
    Tcl_Interp *interp;
    int records;		/* Records seen in the last run (capped). */
};

/* What the engine keeps for each analyzer (a->engine). */
typedef struct AnalyzerPriv {
    int nneeds;
    Rb_Flow **needFlows;
    char **needAttrs;
    int mark;
    Rb_Engine *eng;
    char *errorMsg;		/* Set by Rb_AnalyzerError in a hook. */
    char *errorCode;
    uint64_t resolved;		/* RB_FIELD_BIT of each field resolved
				 * with Rb_AnalyzerField since start. */
    struct Rb_Node *node;	/* Its DAG node, made the first time a Mux
				 * or Filter names it; NULL until then. */
    uint64_t given;		/* Records given to it since start. */
    uint64_t present;		/* RB_FIELD_BIT of each declared field
				 * present in one of them at least. */
    int mergeFailed;		/* A shard's state failed to merge into it
				 * in this run: later shards are not merged
				 * (its results lack them, marked partial). */
} AnalyzerPriv;

struct Rb_Engine {
    Tcl_Interp *interp;
    Rb_Node *head;
    Rb_Node *nodes;
    uint64_t dupGeneration;	/* Last mark of RbNodeAddChild's check. */
    int nreporters;
    Rb_Reporter **reporters;
    int nanalyzers;
    Rb_Analyzer **analyzers;	/* Every live analyzer. */
    int counter;
    volatile int cancel;	/* 1 interrupted, 2 failed: stop reading */
    struct RbPool *pool;	/* The threads of rubicon::run -threads, for
				 * a run (parallel.c), or NULL. */
    int threadsUsed;		/* With -threads, the threads the run used
				 * (the summary's "threads"); else 0. */
    int running;
    int reading;		/* records are being pushed */
    Rb_Analyzer *stoppedBy;	/* analyzer whose error stopped the run */
    Tcl_Obj *lastRun;		/* Summary dict of the last run. */
    Tcl_HashTable classes;	/* command name -> ClassEntry */
    int deferImports;		/* Rubicon_Init: classes imported at its end */
    int npending;
    const char **pending;	/* their names */

    /* Safe mode (safe.c): set once by rubicon::_restrict, never lifted. */
    int safe;
    Tcl_Obj *safeReads;		/* normalized trace paths that may be read */
    char *safeWriteDir;		/* real path of the one writable directory */
    Tcl_Time safeSince;		/* when safe mode began (RbEndCheckLimit) */
    uint64_t outLimit;		/* -outlimit in bytes, 0: none */
    uint64_t outWritten;	/* bytes charged against it */
    int outReached;		/* a write was refused for the limit */
};

typedef enum ClassKind {
    CLASS_ANALYZER, CLASS_REPORTER, CLASS_TRANSFORMER, CLASS_CORE
} ClassKind;

typedef struct ClassEntry {
    ClassKind kind;
    const char *name;
    const char *help;
    const void *cls;
} ClassEntry;

Rb_Engine *	RbEngineGet(Tcl_Interp *interp);
void		RbEngineImportPending(Rb_Engine *eng);
/* Charges n bytes about to be written to eng's -outlimit (safe.c): 1 when
 * they fit, else 0 and the limit is marked reached. */
int		RbSafeOutputTake(Rb_Engine *eng, uint64_t n);
/* Sets err to RUBICON SAFE LIMIT OUTPUT naming path and eng's limit. */
void		RbSafeOutputSetError(Rb_Engine *eng, Rb_Error *err,
		    const char *path);
char *		RbEngineNewName(Rb_Engine *eng, const char *base);
Tcl_Command	RbEngineNewObject(Tcl_Interp *interp, const char *base,
		    Tcl_ObjCmdProc *proc, ClientData cd,
		    Tcl_CmdDeleteProc *deleteProc, char **cmdName);
void		RbEngineAddClass(Rb_Engine *eng, ClassKind kind,
		    const char *name, const char *help, const void *cls);
int		RbEngineRegister(Tcl_Interp *interp, ClassKind kind,
		    const char *name, const char *help, Tcl_ObjCmdProc *proc,
		    const void *cls);

/* Nodes (node.c). */
Rb_Node *	RbNodeCreate(Rb_Engine *eng, NodeKind kind);
Rb_Node *	RbNodeFromObj(Tcl_Interp *interp, Tcl_Obj *obj);
int		RbNodeAddChild(Tcl_Interp *interp, Rb_Node *parent,
		    Rb_Node *child);
void		RbNodeDetach(Rb_Node *n);
void		RbNodeFree(Rb_Node *n);
int		RbNodeStart(Tcl_Interp *interp, Rb_Node *n,
		    const Rb_RunInfo *run);
void		RbNodePush(Rb_Node *n, const Rb_Batch *b, const uint32_t *sel,
		    int nsel);
int		RbNodeFlush(Tcl_Interp *interp, Rb_Node *n);
uint64_t	RbNodeFields(Rb_Node *n);
int		RbNodeChildrenArgs(Tcl_Interp *interp, Rb_Node *n, int objc,
		    Tcl_Obj *const objv[]);
Tcl_Obj *	RbNodeChildrenObj(Rb_Node *n);
int		RbDagDot(Tcl_Interp *interp, Rb_Engine *eng);
int		RbNodeInitCmds(Tcl_Interp *interp);
void		RbNodeClearMarks(Rb_Engine *eng);
Tcl_Obj *	RbNodesUnreached(Rb_Engine *eng);
Rb_Node *	RbNodeCreateSink(Tcl_Interp *interp, const Rb_SinkClass *cls,
		    void *data);

/* The Filters under a Mux compiled together (muxTable.c). */
MuxTable *	RbMuxTableBuild(Rb_Node *mux, const Rb_Schema *schema);
void		RbMuxTableFree(MuxTable *t);
uint64_t	RbMuxTableFields(const MuxTable *t);
void		RbMuxPushChild(Rb_Node *mux, int c, const Rb_Batch *b,
		    const uint32_t *sel, int nsel, uint32_t *scratch);
int		RbParallelStart(Rb_Engine *eng, int threads);
void		RbParallelEnd(Rb_Engine *eng);
int		RbParallelChildren(Rb_Node *mux, const Rb_Batch *b,
		    const uint32_t *sel, int nsel);
int		RbParallelAsync(Rb_Engine *eng, int on);
int		RbParallelPending(const Rb_Engine *eng);
void		RbParallelWait(Rb_Engine *eng);
void		RbMuxDispatch(Rb_Node *mux, const Rb_Batch *b,
		    const uint32_t *sel, int nsel);

/* Flows (flow.c). */
int		RbFlowInitCmds(Tcl_Interp *interp);
void		RbFlowClearAttrs(Rb_Flow *flow);
void		RbFlowRemoveAnalyzer(Rb_Flow *flow, Rb_Analyzer *a);
Rb_Flow *	RbFlowFromCmdInfo(const Tcl_CmdInfo *info);
const char *	RbAttrCanonicalName(const char *name);

/* Analyzers (analyzer.c). */
int		RbAnalyzerStartAll(Tcl_Interp *interp, Rb_Analyzer *a,
		    const Rb_RunInfo *run);
int		RbEndAnalyzers(Tcl_Interp *interp, Rb_Engine *eng,
		    Rb_Flow **flows, int nflows, const Rb_RunInfo *run,
		    int dryRun);
int		RbAnalyzerTakeError(Tcl_Interp *interp, Rb_Analyzer *a);
uint64_t	RbAnalyzerReads(const Rb_Analyzer *a);
Rb_Analyzer *	RbAnalyzerFromCmdInfo(const Tcl_CmdInfo *info);
Rb_Node *	RbAnalyzerNode(Rb_Analyzer *a);
void		RbAnalyzerPush(Rb_Analyzer *a, const Rb_Batch *b,
		    const uint32_t *sel, int nsel);
void		RbAnalyzersBlind(Rb_Flow **flows, int nflows,
		    const Rb_RunInfo *run, Tcl_Obj *notes);

/* Reporters (reporter.c) and the run driver (run.c). */
int		RbReportersWrite(Tcl_Interp *interp, Rb_Engine *eng,
		    const Rb_RunInfo *run);
void		RbReporterRemoveFlow(Rb_Engine *eng, Rb_Flow *flow);
int		RbRunInitCmds(Tcl_Interp *interp);
int		RbEndCheckLimit(Tcl_Interp *interp);
int		RbEndDeadline(Tcl_Interp *interp, Tcl_Time *deadline,
		    double *grace);
int		RbSafeInitCmds(Tcl_Interp *interp);

#endif /* RB_ENGINE_H */
