/*
 * node.c --
 *
 *	The DAG: Filter, Mux, Transformer, sink and Analyzer nodes, the head,
 *	and pushing batches with selection vectors (a Mux with a dispatch
 *	table hands them to muxTable.c).
 */

#include <string.h>
#include "engine.h"

Rb_Node *
RbNodeCreate(Rb_Engine *eng, NodeKind kind)
{
    Rb_Node *n = Rb_Alloc(sizeof(*n));

    n->kind = kind;
    n->eng = eng;
    n->nextNode = eng->nodes;
    eng->nodes = n;
    return n;
}

/*
 * RbNodeDetach --
 *	Removes n from every parent's children and from the head.
 */
void
RbNodeDetach(Rb_Node *n)
{
    Rb_Node *p;
    int i;

    /* nparents counts every place n is a child: none left, no search. */
    for (p = n->eng->nodes; p && n->nparents > 0; p = p->nextNode) {
	for (i = 0; i < p->nchildren; i++) {
	    if (p->children[i] == n) {
		memmove(&p->children[i], &p->children[i + 1],
			(p->nchildren - i - 1) * sizeof(Rb_Node *));
		p->nchildren--;
		n->nparents--;
		i--;
	    }
	}
    }
    if (n->eng->head == n) {
	n->eng->head = NULL;
    }
}

/*
 * RbNodeFree --
 *	Detaches and frees a node (not the Flow behind a flow node).
 */
void
RbNodeFree(Rb_Node *n)
{
    Rb_Node **pp;
    int i;

    RbNodeDetach(n);
    for (i = 0; i < n->nchildren; i++) {
	n->children[i]->nparents--;
    }
    for (pp = &n->eng->nodes; *pp; pp = &(*pp)->nextNode) {
	if (*pp == n) {
	    *pp = n->nextNode;
	    break;
	}
    }
    if (n->prog) {
	Rb_FilterFree(n->prog);
    }
    if (n->progSchema) {
	Rb_SchemaRelease(n->progSchema);
    }
    if (n->xf) {
	RbTransformerDelete(n->xf);
    }
    if (n->sinkClass && n->sinkClass->free) {
	n->sinkClass->free(n->sinkData);
    }
    Rb_BatchFree(n->out);
    RbMuxTableFree(n->table);
    free(n->expr);
    free(n->schemaSpec);
    free(n->sel);
    free(n->children);
    free(n->cmdName);
    free(n);
}

static Tcl_ObjCmdProc NodeObjCmd;

/*
 * RbNodeFromObj --
 *	The DAG node behind a command (Filter, Mux, Transformer, sink,
 *	Flow, or an Analyzer, whose node is made on first use).
 * Results: the node, or NULL with an error in interp.
 */
Rb_Node *
RbNodeFromObj(Tcl_Interp *interp, Tcl_Obj *obj)
{
    Tcl_CmdInfo info;
    Rb_Flow *flow;
    Rb_Analyzer *a;

    if (Tcl_GetCommandInfo(interp, Tcl_GetString(obj), &info)) {
	if (info.objProc == NodeObjCmd) {
	    return info.objClientData;
	}
	if ((flow = RbFlowFromCmdInfo(&info)) != NULL) {
	    return flow->node;
	}
	if ((a = RbAnalyzerFromCmdInfo(&info)) != NULL) {
	    return RbAnalyzerNode(a);
	}
    }
    Rb_SetInterpError(interp, "RUBICON DAG NODE",
	    "\"%s\" is not a Flow, Analyzer, Filter, Mux, Transformer or "
	    "TraceWriter", Tcl_GetString(obj));
    return NULL;
}

/*
 * PathBelow --
 *	The longest path from n down to a node with no children, in edges,
 *	or -1 when target is n or below it (an edge to n from target would
 *	close a cycle).  Each node is worked out once under mark; the
 *	recursion is as deep as the longest path, which RbNodeAddChild
 *	keeps within RB_MAX_DAG_DEPTH.
 */
static int
PathBelow(Rb_Node *n, Rb_Node *target, uint64_t mark)
{
    int i, longest = 0;

    if (n == target) {
	return -1;
    }
    if (n->depthMark == mark) {
	return n->depthValue;
    }
    for (i = 0; i < n->nchildren; i++) {
	int below = PathBelow(n->children[i], target, mark);

	if (below < 0) {
	    return -1;
	}
	longest = below + 1 > longest ? below + 1 : longest;
    }
    n->depthMark = mark;
    n->depthValue = longest;
    return longest;
}

/*
 * PathTo --
 *	The longest path from n down to target, in edges, or -1 when there
 *	is none; each node worked out once under mark.
 */
static int
PathTo(Rb_Node *n, Rb_Node *target, uint64_t mark)
{
    int i, longest = -1;

    if (n == target) {
	return 0;
    }
    if (n->depthMark == mark) {
	return n->depthValue;
    }
    for (i = 0; i < n->nchildren; i++) {
	int to = PathTo(n->children[i], target, mark);

	if (to >= 0 && to + 1 > longest) {
	    longest = to + 1;
	}
    }
    n->depthMark = mark;
    n->depthValue = longest;
    return longest;
}

/*
 * PathAbove --
 *	The longest path from any node down to n, in edges (0 when nothing
 *	feeds n).
 */
static int
PathAbove(Rb_Node *n)
{
    uint64_t mark = ++n->eng->dupGeneration;
    Rb_Node *p;
    int longest = 0;

    if (n->nparents == 0) {
	return 0;
    }
    for (p = n->eng->nodes; p; p = p->nextNode) {
	int to = PathTo(p, n, mark);

	longest = to > longest ? to : longest;
    }
    return longest;
}

/*
 * NodeName --
 *	A node's command for messages ("a node" when it has none, as when
 *	made from C).
 */
static const char *
NodeName(const Rb_Node *n)
{
    return n->cmdName ? n->cmdName : "a node";
}

/*
 * MarkFed --
 *	Marks n and, when n is a Mux, every node a path of Muxes from it
 *	reaches (the nodes that get every record n gets), with mark and
 *	themselves as origin, appending them to *set.
 */
static void
MarkFed(Rb_Node *n, uint64_t mark, Rb_Node ***set, int *count)
{
    int i;

    if (n->dupMark == mark) {
	return;
    }
    n->dupMark = mark;
    n->dupOrigin = n;
    *set = Rb_ReallocArray(*set, *count + 1, sizeof(Rb_Node *));
    (*set)[(*count)++] = n;
    if (n->kind == NODE_MUX) {
	for (i = 0; i < n->nchildren; i++) {
	    MarkFed(n->children[i], mark, set, count);
	}
    }
}

/*
 * SecondCopy --
 *	Before the edge parent -> child is made: whether some node would
 *	then get every record of another twice, by two paths whose inner
 *	nodes are all Muxes (which copy each record to every child).  That
 *	is so when a node fed by child (child, and what Muxes below it
 *	reach) is already fed the same way by parent or, when parent is a
 *	Mux, by a node that feeds parent through Muxes.  Both sets are
 *	found upwards by scans of every node's children, marked with
 *	generation numbers in dupMark; a fresh child, whose only parents
 *	are inside what it feeds, needs no scan.
 * Results: the node that would get records twice, with *fromPtr the node
 *	whose records they are; NULL when there is none.
 */
static Rb_Node *
SecondCopy(Rb_Node *parent, Rb_Node *child, Rb_Node **fromPtr)
{
    Rb_Engine *eng = parent->eng;
    uint64_t fed = ++eng->dupGeneration, feeding = ++eng->dupGeneration;
    Rb_Node **set = NULL, *p, *twice = NULL;
    int n = 0, i, changed;

    MarkFed(child, fed, &set, &n);
    for (i = 0; i < n && set[i]->nparents == (set[i] != child); i++) {
    }
    free(set);
    if (i == n) {
	return NULL;
    }
    /* What feeds parent through Muxes, parent included. */
    parent->dupMark = feeding;
    for (changed = parent->kind == NODE_MUX; changed; ) {
	changed = 0;
	for (p = eng->nodes; p; p = p->nextNode) {
	    for (i = 0; i < p->nchildren && p->dupMark != feeding; i++) {
		Rb_Node *c = p->children[i];

		if (c->dupMark == feeding && c->kind == NODE_MUX) {
		    p->dupMark = feeding;
		    changed = 1;
		}
	    }
	}
    }
    /* What already feeds the fed nodes through Muxes: one of those
     * feeding parent would feed a node twice. */
    for (changed = 1; changed && twice == NULL; ) {
	changed = 0;
	for (p = eng->nodes; p && twice == NULL; p = p->nextNode) {
	    for (i = 0; i < p->nchildren; i++) {
		Rb_Node *c = p->children[i];

		if (c->dupMark != fed || p->dupMark == fed) {
		    continue;
		}
		if (p->dupMark == feeding) {
		    twice = c->dupOrigin;
		    *fromPtr = p;
		    break;
		}
		if (p->kind == NODE_MUX) {
		    p->dupMark = fed;
		    p->dupOrigin = c->dupOrigin;
		    changed = 1;
		}
	    }
	}
    }
    return twice;
}

/*
 * RbNodeAddChild --
 *	Connects parent -> child. Flows and sinks take no children; a
 *	connection that would close a cycle is refused, and so is one that
 *	would make a node get every record of another twice (the same node
 *	twice under one Mux, directly or through other Muxes: see Mux(n)),
 *	and one that would make a path through more than RB_MAX_DAG_DEPTH
 *	nodes.
 */
int
RbNodeAddChild(Tcl_Interp *interp, Rb_Node *parent, Rb_Node *child)
{
    Rb_Node *twice, *from;
    int below, above;

    if (parent->kind == NODE_FLOW || parent->kind == NODE_SINK
	    || parent->kind == NODE_ANALYZER) {
	return Rb_SetInterpError(interp, "RUBICON DAG NODE",
		"%s is a sink and cannot feed other nodes", parent->cmdName);
    }
    if ((below = PathBelow(child, parent, ++parent->eng->dupGeneration))
	    < 0) {
	return Rb_SetInterpError(interp, "RUBICON DAG CYCLE",
		"connecting %s to %s would make a cycle", parent->cmdName,
		child->cmdName);
    }
    if ((above = PathAbove(parent)) + below + 2 > RB_MAX_DAG_DEPTH) {
	return Rb_SetInterpError(interp, "RUBICON DAG DEPTH",
		"connecting %s to %s would make a path of %d nodes through "
		"the DAG; at most %d are allowed", NodeName(parent),
		NodeName(child), above + below + 2, RB_MAX_DAG_DEPTH);
    }
    if ((twice = SecondCopy(parent, child, &from)) != NULL) {
	return Rb_SetInterpError(interp, "RUBICON DAG DUPLICATE",
		"connecting %s to %s would give %s every record of %s twice, "
		"by two paths through Muxes; to count records twice on "
		"purpose, put a Filter or Transformer on one path",
		NodeName(parent), NodeName(child), NodeName(twice),
		NodeName(from));
    }
    parent->children = Rb_ReallocArray(parent->children, parent->nchildren + 1,
	    sizeof(Rb_Node *));
    parent->children[parent->nchildren++] = child;
    child->nparents++;
    return TCL_OK;
}

/*
 * NotADestination --
 *	The error for a Mux, Filter or Transformer given something that
 *	cannot take records (a Reporter, a number, a misspelt variable).
 * Results: TCL_ERROR, with RUBICON DAG NODE naming the object.
 */
static int
NotADestination(Tcl_Interp *interp, Rb_Node *n, Tcl_Obj *what)
{
    static const char *const kinds[] = {
	"Flow", "Filter", "Mux", "Transformer", "TraceWriter", "Analyzer"
    };

    return Rb_SetInterpError(interp, "RUBICON DAG NODE",
	    "%s %s: \"%s\" cannot take records; a %s sends them to Flows, "
	    "Analyzers, Filters, Muxes, Transformers and TraceWriters",
	    kinds[n->kind], n->cmdName ? n->cmdName : "", Tcl_GetString(what),
	    kinds[n->kind]);
}

/*
 * RbNodeChildrenArgs --
 *	Adds each argument (a node command, or a list of them) as a child.
 */
int
RbNodeChildrenArgs(Tcl_Interp *interp, Rb_Node *n, int objc,
	Tcl_Obj *const objv[])
{
    int i, j, nel;
    Tcl_Obj **elems;

    for (i = 0; i < objc; i++) {
	Rb_Node *child = RbNodeFromObj(interp, objv[i]);

	if (child == NULL) {
	    if (Tcl_ListObjGetElements(NULL, objv[i], &nel, &elems) != TCL_OK
		    || nel < 2) {
		return NotADestination(interp, n, objv[i]);
	    }
	    Tcl_ResetResult(interp);
	    for (j = 0; j < nel; j++) {
		if ((child = RbNodeFromObj(interp, elems[j])) == NULL) {
		    return NotADestination(interp, n, elems[j]);
		}
		if (RbNodeAddChild(interp, n, child) != TCL_OK) {
		    return TCL_ERROR;
		}
	    }
	    continue;
	}
	if (RbNodeAddChild(interp, n, child) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    return TCL_OK;
}

Tcl_Obj *
RbNodeChildrenObj(Rb_Node *n)
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);
    int i;

    for (i = 0; i < n->nchildren; i++) {
	Tcl_ListObjAppendElement(NULL, list,
		Tcl_NewStringObj(n->children[i]->cmdName, -1));
    }
    return list;
}

void
RbNodeClearMarks(Rb_Engine *eng)
{
    Rb_Node *n;

    for (n = eng->nodes; n; n = n->nextNode) {
	n->visitMark = 0;
    }
}

/*
 * MarkReached --
 *	Marks n and every node below it (visitMark 6); an Analyzer node
 *	marks its Flow's node too, as records reach that Flow through it.
 */
static void
MarkReached(Rb_Node *n)
{
    int i;

    if (n->visitMark == 6) {
	return;
    }
    n->visitMark = 6;
    if (n->kind == NODE_ANALYZER && n->analyzer->flow) {
	n->analyzer->flow->node->visitMark = 6;
    }
    for (i = 0; i < n->nchildren; i++) {
	MarkReached(n->children[i]);
    }
}

/*
 * RbNodesUnreached --
 *	The nodes no path from the head reaches: Filters, Muxes,
 *	Transformers, sinks and Analyzers wired into the DAG, and Flows that
 *	hold Analyzers but get no records.  The paper's own Figure 4 makes
 *	one (its disk 1 Filter); they are allowed, and the run summary
 *	names them.
 * Results: a new list of command names, oldest node first.
 * Side effects: clears the nodes' visit marks.
 */
Tcl_Obj *
RbNodesUnreached(Rb_Engine *eng)
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);
    Rb_Node *n;

    RbNodeClearMarks(eng);
    if (eng->head) {
	MarkReached(eng->head);
    }
    for (n = eng->nodes; n; n = n->nextNode) {
	if (n->visitMark != 6 && n->cmdName != NULL
		&& (n->kind != NODE_FLOW || n->flow->nanalyzers > 0)) {
	    Tcl_ListObjReplace(NULL, list, 0, 0, 1,
		    (Tcl_Obj *[]){Tcl_NewStringObj(n->cmdName, -1)});
	}
    }
    RbNodeClearMarks(eng);
    return list;
}

/*
 * FilterError --
 *	A Filter's compile error, its expression quoted at most 60
 *	characters long so that the reason (which follows it) is never cut
 *	from the message.
 * Results: TCL_ERROR.
 */
static int
FilterError(Tcl_Interp *interp, const Rb_Node *n, const Rb_Error *err)
{
    return Rb_SetInterpError(interp, err->code, "Filter \"%.60s%s\": %s",
	    n->expr, strlen(n->expr) > 60 ? "..." : "", err->msg);
}

/*
 * CompileFilter --
 *	(Re)compiles a filter node's expression against schema.
 */
static int
CompileFilter(Tcl_Interp *interp, Rb_Node *n, Rb_Schema *schema)
{
    Rb_Error err;
    Rb_FilterProg *prog = Rb_FilterCompile(schema, n->expr, &err);

    if (prog == NULL) {
	return FilterError(interp, n, &err);
    }
    if (n->prog) {
	Rb_FilterFree(n->prog);
	Rb_SchemaRelease(n->progSchema);
    }
    n->prog = prog;
    n->progSchema = schema;
    Rb_SchemaRetain(schema);
    return TCL_OK;
}

/*
 * CompileNamed --
 *	Compiles a filter node's expression against the schema its -schema
 *	names, before any run; with -schema run, not until a run starts.
 */
static int
CompileNamed(Tcl_Interp *interp, Rb_Node *n)
{
    Rb_Error err;
    Rb_Schema *schema;
    int rc;

    if (n->schemaSpec != NULL && strcmp(n->schemaSpec, "run") == 0) {
	return TCL_OK;
    }
    schema = RbNamedSchema(n->schemaSpec ? n->schemaSpec : "io", &err);
    if (schema == NULL) {
	return FilterError(interp, n, &err);
    }
    rc = CompileFilter(interp, n, schema);
    Rb_SchemaRelease(schema);
    return rc;
}

/*
 * RbNodeStart --
 *	Prepares n and everything below it for a run: filters are compiled
 *	against the run's schema, Mux tables built, transformers, sinks and
 *	flows started. Each node is started once (visitMark).
 */
int
RbNodeStart(Tcl_Interp *interp, Rb_Node *n, const Rb_RunInfo *run)
{
    Rb_Error err;
    int i;

    if (n->visitMark) {
	return TCL_OK;
    }
    n->visitMark = 1;
    switch (n->kind) {
    case NODE_FILTER:
	if (n->progSchema != run->schema
		&& CompileFilter(interp, n, run->schema) != TCL_OK) {
	    return TCL_ERROR;
	}
	if (n->sel == NULL) {
	    n->sel = Rb_AllocArray(RB_BATCH_SIZE, sizeof(uint32_t));
	}
	break;
    case NODE_TRANSFORMER:
	n->failed = 0;
	Rb_BatchFree(n->out);
	n->out = Rb_BatchCreate(run->schema, RB_BATCH_SIZE
		* (n->xf->cls->maxExpand > 1 ? n->xf->cls->maxExpand : 1));
	if (n->xf->cls->start && n->xf->cls->start(n->xf, run) != TCL_OK) {
	    return Rb_SetInterpError(interp, n->xf->err.code[0]
		    ? n->xf->err.code : "RUBICON TRANSFORMER",
		    "%s: %s", n->cmdName, n->xf->err.msg);
	}
	if (n->sel == NULL) {
	    n->sel = Rb_AllocArray(n->out->cap, sizeof(uint32_t));
	    for (i = 0; i < n->out->cap; i++) {
		n->sel[i] = i;
	    }
	}
	break;
    case NODE_SINK:
	n->failed = 0;
	if (n->sinkClass->start(n->sinkData, run, &err) != TCL_OK) {
	    return Rb_ErrorToInterp(interp, &err);
	}
	break;
    case NODE_FLOW:
	if (RbFlowStart(n->flow, run) != TCL_OK) {
	    return TCL_ERROR;
	}
	break;
    case NODE_ANALYZER:
	if (n->analyzer->flow == NULL) {
	    return Rb_SetInterpError(interp, "RUBICON DAG NODE",
		    "%s is fed records but belongs to no Flow: make it with "
		    "\"%s $flow\" or add it to a Flow", n->cmdName,
		    n->analyzer->cls->name);
	}
	/* Its Flow starts once, however many of its analyzers are fed. */
	if (RbNodeStart(interp, n->analyzer->flow->node, run) != TCL_OK) {
	    return TCL_ERROR;
	}
	break;
    case NODE_MUX:
	break;
    }
    for (i = 0; i < n->nchildren; i++) {
	if (RbNodeStart(interp, n->children[i], run) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    if (n->kind == NODE_MUX) {
	RbMuxTableFree(n->table);
	n->table = RbMuxTableBuild(n, run->schema);
    }
    return TCL_OK;
}

/*
 * RbNodeFields --
 *	The fields that n and the nodes below it read, RB_FIELD_BIT of each:
 *	a Filter its expression's, a Mux table its key field, a Flow what
 *	its analyzers read (RbAnalyzerReads).  A Transformer, a sink, or
 *	an analyzer whose class declares nothing reads every field.  Call after
 *	RbNodeStart (filters compiled, Mux tables built) and
 *	RbNodeClearMarks; each node is visited once (visitMark 4).
 */
uint64_t
RbNodeFields(Rb_Node *n)
{
    uint64_t fields = 0;
    int i;

    if (n->visitMark == 4) {
	return 0;
    }
    n->visitMark = 4;
    switch (n->kind) {
    case NODE_FILTER:
	fields = RbFilterFields(n->prog);
	break;
    case NODE_MUX:
	if (n->table) {
	    fields = RbMuxTableFields(n->table);
	}
	break;
    case NODE_FLOW:
	for (i = 0; i < n->flow->nanalyzers; i++) {
	    fields |= RbAnalyzerReads(n->flow->analyzers[i]);
	}
	break;
    case NODE_ANALYZER:
	fields = RbAnalyzerReads(n->analyzer);
	break;
    case NODE_TRANSFORMER:
    case NODE_SINK:
	return RB_ALL_FIELDS;
    }
    for (i = 0; i < n->nchildren; i++) {
	fields |= RbNodeFields(n->children[i]);
    }
    return fields;
}

/*
 * RbNodePush --
 *	Delivers the selected records of b to n and on down the DAG.
 */
void
RbNodePush(Rb_Node *n, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    int i, m;

    if (nsel == 0) {
	return;
    }
    switch (n->kind) {
    case NODE_FLOW:
	RbFlowPush(n->flow, b, sel, nsel);
	return;
    case NODE_ANALYZER:
	RbAnalyzerPush(n->analyzer, b, sel, nsel);
	return;
    case NODE_FILTER:
	m = Rb_FilterSelect(n->prog, b, sel, nsel, n->sel);
	for (i = 0; i < n->nchildren && m > 0; i++) {
	    RbNodePush(n->children[i], b, n->sel, m);
	}
	return;
    case NODE_MUX:
	if (n->table) {
	    RbMuxDispatch(n, b, sel, nsel);
	    return;
	}
	if (n->parallel && RbParallelChildren(n, b, sel, nsel)) {
	    return;
	}
	for (i = 0; i < n->nchildren; i++) {
	    RbNodePush(n->children[i], b, sel, nsel);
	}
	return;
    case NODE_TRANSFORMER:
	/* Until the transform is done with sel: one that stops early
	 * (taken) is called again with the rest once out is passed on. */
	for (;;) {
	    Rb_BatchClear(n->out);
	    n->out->firstRecord = b->firstRecord;
	    n->xf->taken = -1;
	    if (n->xf->cls->transform(n->xf, b, sel, nsel, n->out)
		    != TCL_OK) {
		if (!n->failed) {
		    n->runErr = n->xf->err;
		    n->failed = 1;
		}
		n->eng->cancel = 2;
		return;
	    }
	    for (i = 0; i < n->nchildren; i++) {
		RbNodePush(n->children[i], n->out, n->sel, n->out->n);
	    }
	    if (n->xf->taken < 0 || n->xf->taken >= nsel) {
		return;
	    }
	    if (n->xf->taken == 0 && n->out->n == 0) {
		/* Called again, it would do the same. */
		if (!n->failed) {
		    Rb_SetError(&n->runErr, "RUBICON TRANSFORMER", "%s took "
			    "no record and emitted none", n->cmdName);
		    n->failed = 1;
		}
		n->eng->cancel = 2;
		return;
	    }
	    sel += n->xf->taken;
	    nsel -= n->xf->taken;
	}
    case NODE_SINK: {
	Rb_Error err;

	if (!n->failed && n->sinkClass->push(n->sinkData, b, sel, nsel,
		&err) != TCL_OK) {
	    n->runErr = err;
	    n->failed = 1;
	    n->eng->cancel = 2;
	}
	return;
    }
    }
}

/*
 * RbNodeFlush --
 *	At end of input: lets transformers emit what they hold back, pushes
 *	it on, then ends sinks. Depth-first, each node once (visitMark 2).
 */
int
RbNodeFlush(Tcl_Interp *interp, Rb_Node *n)
{
    int i;

    if (n->visitMark == 2) {
	return TCL_OK;
    }
    n->visitMark = 2;
    if (n->kind == NODE_TRANSFORMER && n->xf->cls->flush) {
	Rb_BatchClear(n->out);
	if (n->xf->cls->flush(n->xf, n->out) != TCL_OK) {
	    return Rb_SetInterpError(interp, "RUBICON TRANSFORMER",
		    "%s: %s", n->cmdName, n->xf->err.msg);
	}
	for (i = 0; i < n->nchildren; i++) {
	    RbNodePush(n->children[i], n->out, n->sel, n->out->n);
	}
    }
    for (i = 0; i < n->nchildren; i++) {
	if (RbNodeFlush(interp, n->children[i]) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    if (n->kind == NODE_SINK) {
	Rb_Error err;

	if (n->failed) {
	    return Rb_ErrorToInterp(interp, &n->runErr);
	}
	if (n->sinkClass->end(n->sinkData, NULL, &err) != TCL_OK) {
	    return Rb_ErrorToInterp(interp, &err);
	}
    }
    return TCL_OK;
}

/*
 * FilterConfigure --
 *	cget and configure of a Filter: -expr and -schema.  A new
 *	expression or schema is compiled first (against the run's schema
 *	once one has run) and the old kept if it is bad.
 */
static int
FilterConfigure(Tcl_Interp *interp, Rb_Node *n, int isCget, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const opts[] = {"-expr", "-schema", NULL};
    char **slot[2];
    char *old;
    int idx;

    slot[0] = &n->expr;
    slot[1] = &n->schemaSpec;
    if (objc == 0 && !isCget) {
	Tcl_SetObjResult(interp, Tcl_ObjPrintf("-expr {%s} -schema %s",
		n->expr, n->schemaSpec ? n->schemaSpec : "io"));
	return TCL_OK;
    }
    if (objc != (isCget ? 1 : 2)) {
	return Rb_SetInterpError(interp, "RUBICON OPTION UNKNOWN", isCget
		? "usage: %s cget -expr|-schema" : "usage: %s configure "
		"?-expr expression | -schema name?", n->cmdName);
    }
    if (Tcl_GetIndexFromObj(NULL, objv[0], opts, "option", 0, &idx)
	    != TCL_OK) {
	return Rb_SetInterpError(interp, "RUBICON OPTION UNKNOWN",
		"unknown option \"%s\"; valid options: -expr, -schema",
		Tcl_GetString(objv[0]));
    }
    if (isCget) {
	Tcl_SetObjResult(interp, Tcl_NewStringObj(*slot[idx] ? *slot[idx]
		: "io", -1));
	return TCL_OK;
    }
    old = *slot[idx];
    *slot[idx] = Rb_Strdup(Tcl_GetString(objv[1]));
    if ((n->progSchema && idx == 0 ? CompileFilter(interp, n, n->progSchema)
	    : CompileNamed(interp, n)) != TCL_OK) {
	free(*slot[idx]);
	*slot[idx] = old;
	return TCL_ERROR;
    }
    free(old);
    return TCL_OK;
}

/*
 * CheckTransformer --
 *	The check of a transformer's configure: the class's init hook.
 */
static int
CheckTransformer(void *checkData, Tcl_Interp *interp)
{
    Rb_Transformer *t = checkData;

    return t->cls->init(t, interp);
}

/*
 * NodeObjCmd --
 *	Object command of Filter, Mux, Transformer and sink nodes:
 *	    add node ...        more children
 *	    children            the children's commands
 *	    configure ?opts?    -expr for a Filter; class options otherwise
 *	    cget opt
 *	    kind                filter, mux, transformer or sink
 *	    destroy
 */
static int
NodeObjCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Rb_Node *n = cd;
    static const char *const subs[] = {
	"add", "cget", "children", "configure", "destroy", "kind", NULL
    };
    static const char *const kinds[] = {
	"flow", "filter", "mux", "transformer", "sink", "analyzer"
    };
    enum { SUB_ADD, SUB_CGET, SUB_CHILDREN, SUB_CONFIGURE, SUB_DESTROY,
	SUB_KIND };
    int idx;

    if (objc < 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "subcommand ?arg ...?");
	return TCL_ERROR;
    }
    if (Tcl_GetIndexFromObj(interp, objv[1], subs, "subcommand", 0, &idx)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    switch (idx) {
    case SUB_ADD:
	return RbNodeChildrenArgs(interp, n, objc - 2, objv + 2);
    case SUB_CHILDREN:
	Tcl_SetObjResult(interp, RbNodeChildrenObj(n));
	return TCL_OK;
    case SUB_KIND:
	Tcl_SetObjResult(interp, Tcl_NewStringObj(kinds[n->kind], -1));
	return TCL_OK;
    case SUB_DESTROY:
	Tcl_DeleteCommandFromToken(interp, n->token);
	return TCL_OK;
    case SUB_CGET:
    case SUB_CONFIGURE:
	if (n->kind == NODE_FILTER) {
	    return FilterConfigure(interp, n, idx == SUB_CGET, objc - 2,
		    objv + 2);
	}
	if (n->kind == NODE_TRANSFORMER) {
	    return RbOptionsCommand(interp, objc, objv, n->xf->cls->options,
		    n->xf->state, NULL, NULL,
		    n->xf->cls->init ? CheckTransformer : NULL, n->xf);
	}
	return Rb_SetInterpError(interp, "RUBICON OPTION UNKNOWN",
		"%s has no options", n->cmdName);
    }
    return TCL_OK;
}

static void
NodeDeleteProc(ClientData cd)
{
    Rb_Node *n = cd;

    n->token = NULL;
    RbNodeFree(n);
}

/*
 * NewNodeCmd --
 *	Gives a node its object command.
 */
static void
NewNodeCmd(Tcl_Interp *interp, Rb_Node *n, const char *base)
{
    n->token = RbEngineNewObject(interp, base, NodeObjCmd, n,
	    NodeDeleteProc, &n->cmdName);
}

/*
 * DiscardNode --
 *	Deletes a node just made whose children could not be attached,
 *	keeping the error that says why.
 * Results: TCL_ERROR.
 */
static int
DiscardNode(Tcl_Interp *interp, Rb_Node *n)
{
    Tcl_Obj *msg = Tcl_GetObjResult(interp);
    Tcl_Obj *opts = Tcl_GetReturnOptions(interp, TCL_ERROR);
    Tcl_Obj *code = NULL;

    Tcl_IncrRefCount(msg);
    Tcl_IncrRefCount(opts);
    Tcl_DictObjGet(NULL, opts, Tcl_NewStringObj("-errorcode", -1), &code);
    if (code) {
	Tcl_IncrRefCount(code);
    }
    Tcl_DeleteCommandFromToken(interp, n->token);
    Tcl_SetObjResult(interp, msg);
    /* Only the code: setting -errorinfo here would lose the script's
     * line, which Tcl adds as the error leaves this command. */
    if (code) {
	Tcl_SetObjErrorCode(interp, code);
	Tcl_DecrRefCount(code);
    }
    Tcl_DecrRefCount(msg);
    Tcl_DecrRefCount(opts);
    return TCL_ERROR;
}

/*
 * FilterCmd --
 *	"Filter ?-schema name? expression ?node ...?": compiles the
 *	expression now, against the I/O schema or the one -schema names
 *	(again at run time if the trace has another schema), so a bad
 *	expression fails here, naming the column and the known fields;
 *	with -schema run, not until a run starts.
 */
static int
FilterCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Rb_Engine *eng = RbEngineGet(interp);
    Rb_Node *n;
    const char *spec = NULL;
    int first = 1;

    if (objc >= 3 && strcmp(Tcl_GetString(objv[1]), "-schema") == 0) {
	spec = Tcl_GetString(objv[2]);
	first = 3;
    }
    if (objc <= first) {
	Tcl_WrongNumArgs(interp, 1, objv, "?-schema name? expression "
		"?node ...?");
	return TCL_ERROR;
    }
    n = RbNodeCreate(eng, NODE_FILTER);
    n->expr = Rb_Strdup(Tcl_GetString(objv[first]));
    n->schemaSpec = spec && strcmp(spec, "io") ? Rb_Strdup(spec) : NULL;
    if (CompileNamed(interp, n) != TCL_OK) {
	RbNodeFree(n);
	return TCL_ERROR;
    }
    NewNodeCmd(interp, n, "Filter");
    if (RbNodeChildrenArgs(interp, n, objc - first - 1, objv + first + 1)
	    != TCL_OK) {
	return DiscardNode(interp, n);
    }
    Tcl_SetObjResult(interp, Tcl_NewStringObj(n->cmdName, -1));
    return TCL_OK;
}

/*
 * MuxCmd --
 *	"Mux ?node ...?": copies its input to every child.
 */
static int
MuxCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Rb_Node *n = RbNodeCreate(RbEngineGet(interp), NODE_MUX);

    NewNodeCmd(interp, n, "Mux");
    if (RbNodeChildrenArgs(interp, n, objc - 1, objv + 1) != TCL_OK) {
	return DiscardNode(interp, n);
    }
    Tcl_SetObjResult(interp, Tcl_NewStringObj(n->cmdName, -1));
    return TCL_OK;
}

/*
 * HeadCmd --
 *	"head ?node?": sets (or returns) the node where records enter.
 */
static int
HeadCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Rb_Engine *eng = RbEngineGet(interp);
    Rb_Node *n;

    if (objc > 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "?node?");
	return TCL_ERROR;
    }
    if (objc == 2) {
	if ((n = RbNodeFromObj(interp, objv[1])) == NULL) {
	    return TCL_ERROR;
	}
	eng->head = n;
    }
    Tcl_SetObjResult(interp, Tcl_NewStringObj(eng->head ? eng->head->cmdName
	    : "", -1));
    return TCL_OK;
}

/*
 * RbTransformerCreate --
 *	Makes a transformer instance with "-opt value" arguments.
 */
Rb_Transformer *
RbTransformerCreate(Tcl_Interp *interp, const Rb_TransformerClass *cls,
	int objc, Tcl_Obj *const objv[])
{
    Rb_Transformer *t = Rb_Alloc(sizeof(*t));

    t->cls = cls;
    t->state = Rb_Alloc(cls->stateSize ? cls->stateSize : 1);
    if (RbOptionsDefault(interp, cls->options, t->state) != TCL_OK
	    || RbOptionsConfigure(interp, cls->options, t->state, objc, objv,
		    NULL, NULL, NULL, NULL) != TCL_OK
	    || (cls->init && cls->init(t, interp) != TCL_OK)) {
	RbTransformerDelete(t);
	return NULL;
    }
    return t;
}

void
RbTransformerDelete(Rb_Transformer *t)
{
    if (t->cls->freeState) {
	t->cls->freeState(t);
    }
    RbOptionsFree(t->cls->options, t->state);
    free(t->state);
    free(t->cmdName);
    free(t);
}

/*
 * TransformerClassCmd --
 *	"XTransformer ?-option value ...? ?node ...?".
 */
static int
TransformerClassCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    const Rb_TransformerClass *cls = cd;
    int nopt = RbOptionsSplit(objc - 1, objv + 1);
    Rb_Transformer *t = RbTransformerCreate(interp, cls, nopt, objv + 1);
    Rb_Node *n;

    if (t == NULL) {
	return TCL_ERROR;
    }
    n = RbNodeCreate(RbEngineGet(interp), NODE_TRANSFORMER);
    n->xf = t;
    NewNodeCmd(interp, n, cls->name);
    if (RbNodeChildrenArgs(interp, n, objc - 1 - nopt, objv + 1 + nopt)
	    != TCL_OK) {
	return DiscardNode(interp, n);
    }
    Tcl_SetObjResult(interp, Tcl_NewStringObj(n->cmdName, -1));
    return TCL_OK;
}

/*
 * Rb_RegisterTransformer --
 *	Makes the class's command (in ::rubicon, exported) and lists it in
 *	rubicon::types.
 * Results: TCL_OK always.
 * Side effects: as Rb_RegisterAnalyzer: creates or replaces the command
 *	and imports it globally; the class is kept by reference.
 */
int
Rb_RegisterTransformer(Tcl_Interp *interp, const Rb_TransformerClass *cls)
{
    return RbEngineRegister(interp, CLASS_TRANSFORMER, cls->name, cls->help,
	    TransformerClassCmd, cls);
}

/*
 * RbNodeCreateSink --
 *	Makes a sink node with its command (used by TraceWriter).
 */
Rb_Node *
RbNodeCreateSink(Tcl_Interp *interp, const Rb_SinkClass *cls, void *data)
{
    Rb_Node *n = RbNodeCreate(RbEngineGet(interp), NODE_SINK);

    n->sinkClass = cls;
    n->sinkData = data;
    NewNodeCmd(interp, n, cls->name);
    return n;
}

/*
 * DotText --
 *	Appends s to a quoted DOT string, its quotes and backslashes
 *	escaped.
 */
static void
DotText(Tcl_DString *ds, const char *s)
{
    for (; *s; s++) {
	if (*s == '"' || *s == '\\') {
	    Tcl_DStringAppend(ds, "\\", 1);
	}
	Tcl_DStringAppend(ds, s, 1);
    }
}

/*
 * DotNode --
 *	Writes n and its edges in DOT, once per node.
 */
static void
DotNode(Tcl_DString *ds, Rb_Node *n)
{
    char buf[512];
    int i;

    if (n->visitMark) {
	return;
    }
    n->visitMark = 1;
    switch (n->kind) {
    case NODE_FLOW: {
	Tcl_DString label;

	Tcl_DStringInit(&label);
	Tcl_DStringAppend(&label, "Flow ", -1);
	Tcl_DStringAppend(&label, n->flow->name, -1);
	for (i = 0; i < n->flow->nanalyzers; i++) {
	    Tcl_DStringAppend(&label, "\\n", -1);
	    Tcl_DStringAppend(&label, n->flow->analyzers[i]->cls->name, -1);
	}
	snprintf(buf, sizeof(buf), "  \"%s\" [shape=box, label=\"",
		n->cmdName ? n->cmdName : n->flow->name);
	Tcl_DStringAppend(ds, buf, -1);
	for (const char *p = Tcl_DStringValue(&label); *p; p++) {
	    if (*p == '"') {
		Tcl_DStringAppend(ds, "\\", 1);
	    }
	    Tcl_DStringAppend(ds, p, 1);
	}
	Tcl_DStringAppend(ds, "\"];\n", -1);
	Tcl_DStringFree(&label);
	break;
    }
    case NODE_FILTER:
	Tcl_DStringAppend(ds, "  \"", -1);
	Tcl_DStringAppend(ds, n->cmdName, -1);
	Tcl_DStringAppend(ds, "\" [shape=diamond, label=\"", -1);
	DotText(ds, n->expr);
	Tcl_DStringAppend(ds, "\"];\n", -1);
	break;
    case NODE_MUX:
	snprintf(buf, sizeof(buf), "  \"%s\" [shape=triangle, label=\"Mux\"];\n",
		n->cmdName);
	Tcl_DStringAppend(ds, buf, -1);
	break;
    case NODE_TRANSFORMER:
	snprintf(buf, sizeof(buf), "  \"%s\" [shape=hexagon, label=\"%s\"];\n",
		n->cmdName, n->xf->cls->name);
	Tcl_DStringAppend(ds, buf, -1);
	break;
    case NODE_SINK:
	snprintf(buf, sizeof(buf), "  \"%s\" [shape=cylinder, label=\"%s\"];\n",
		n->cmdName, n->sinkClass->name);
	Tcl_DStringAppend(ds, buf, -1);
	break;
    case NODE_ANALYZER:
	snprintf(buf, sizeof(buf), "  \"%s\" [shape=box, label=\"%s\\n"
		"(Flow %.200s)\"];\n", n->cmdName, n->analyzer->cls->name,
		n->analyzer->flow ? n->analyzer->flow->name : "none");
	Tcl_DStringAppend(ds, buf, -1);
	break;
    }
    for (i = 0; i < n->nchildren; i++) {
	snprintf(buf, sizeof(buf), "  \"%s\" -> \"%s\";\n", n->cmdName,
		n->children[i]->cmdName ? n->children[i]->cmdName : "?");
	Tcl_DStringAppend(ds, buf, -1);
	DotNode(ds, n->children[i]);
    }
}

/*
 * DotName --
 *	The DOT node of a Flow (drawn first if the DAG does not reach it).
 */
static const char *
DotName(Tcl_DString *ds, Rb_Flow *flow)
{
    DotNode(ds, flow->node);
    return flow->node->cmdName ? flow->node->cmdName : flow->name;
}

/*
 * DotResults --
 *	What flows after the records: a dashed edge from each other Flow
 *	an Analyzer reads an Attribute of at its end (staged analysis, as
 *	declared when a run starts) to the Analyzer's node or Flow,
 *	labelled with the Attribute; and each Reporter, with a dotted edge
 *	from each Flow it reports.
 */
static void
DotResults(Tcl_DString *ds, Rb_Engine *eng)
{
    char buf[512];
    int i, k;

    for (i = 0; i < eng->nanalyzers; i++) {
	Rb_Analyzer *a = eng->analyzers[i];
	AnalyzerPriv *priv = a->engine;

	for (k = 0; k < priv->nneeds; k++) {
	    const char *from, *to;

	    if (priv->needFlows[k] == a->flow && priv->node == NULL) {
		continue;	/* its own Flow: no edge to draw */
	    }
	    from = DotName(ds, priv->needFlows[k]);
	    to = priv->node ? priv->node->cmdName
		    : a->flow ? DotName(ds, a->flow) : a->cmdName;
	    snprintf(buf, sizeof(buf), "  \"%s\" -> \"%s\" [style=dashed, "
		    "label=\"", from, to);
	    Tcl_DStringAppend(ds, buf, -1);
	    DotText(ds, priv->needAttrs[k]);
	    Tcl_DStringAppend(ds, "\"];\n", -1);
	}
    }
    for (i = 0; i < eng->nreporters; i++) {
	Rb_Reporter *r = eng->reporters[i];

	snprintf(buf, sizeof(buf), "  \"%s\" [shape=note, label=\"%s\\n",
		r->cmdName, r->cls->name);
	Tcl_DStringAppend(ds, buf, -1);
	DotText(ds, r->output ? r->output : "stdout");
	Tcl_DStringAppend(ds, "\"];\n", -1);
	for (k = 0; k < r->nflows; k++) {
	    snprintf(buf, sizeof(buf), "  \"%s\" -> \"%s\" [style=dotted];\n",
		    DotName(ds, r->flows[k]), r->cmdName);
	    Tcl_DStringAppend(ds, buf, -1);
	}
    }
}

/*
 * RbDagDot --
 *	Sets the interpreter result to the DAG from the head in DOT, with
 *	the staged dependencies and the Reporters (DotResults).
 */
int
RbDagDot(Tcl_Interp *interp, Rb_Engine *eng)
{
    Tcl_DString ds;

    Tcl_DStringInit(&ds);
    Tcl_DStringAppend(&ds, "digraph rubicon {\n  rankdir=LR;\n"
	    "  \"trace\" [shape=plaintext];\n", -1);
    RbNodeClearMarks(eng);
    if (eng->head) {
	Tcl_DStringAppend(&ds, "  \"trace\" -> \"", -1);
	Tcl_DStringAppend(&ds, eng->head->cmdName, -1);
	Tcl_DStringAppend(&ds, "\";\n", -1);
	DotNode(&ds, eng->head);
    }
    DotResults(&ds, eng);
    Tcl_DStringAppend(&ds, "}\n", -1);
    RbNodeClearMarks(eng);
    Tcl_DStringResult(interp, &ds);
    return TCL_OK;
}

int
RbNodeInitCmds(Tcl_Interp *interp)
{
    Rb_Engine *eng = RbEngineGet(interp);

    Tcl_CreateObjCommand(interp, "::rubicon::Filter", FilterCmd, NULL, NULL);
    Tcl_CreateObjCommand(interp, "::rubicon::Mux", MuxCmd, NULL, NULL);
    Tcl_CreateObjCommand(interp, "::rubicon::head", HeadCmd, NULL, NULL);
    RbEngineAddClass(eng, CLASS_CORE, "Filter",
	    "Filter ?-schema name? expression ?node ...?: passes records "
	    "matching the expression", NULL);
    RbEngineAddClass(eng, CLASS_CORE, "Mux",
	    "Mux ?node ...?: copies records to every child", NULL);
    RbEngineAddClass(eng, CLASS_CORE, "head",
	    "head node: where records enter the DAG", NULL);
    return TCL_OK;
}
