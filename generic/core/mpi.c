/*
 * mpi.c --
 *
 *	Split runs on Open MPI: "mpirun -np N rubicon config.tcl trace ..."
 *	runs the same configuration on every rank.  Each rank reads a
 *	contiguous, time-ordered share of the traces (whole files balanced
 *	by size), then the ranks' partial Analyzer states are serialized and
 *	reduced in rank order along a binomial tree to rank 0, which alone
 *	ends the Analyzers, writes the Reporters and returns the summary.
 *	The other ranks end their process once their state is sent.
 *	Without mpirun, or with one rank, nothing here changes a run.
 */

#include <fcntl.h>
#include <time.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine.h"
#include "mpi.h"
#include "io/native.h"

#ifdef HAVE_MPI
#include "glue.h"
#include "mpiGlue.h"
#endif

#define MSG_VERSION 4
#define MSG_TAG 1717
#define BEAT_TAG 1718		/* "still here", while reading or waiting */

/* The seconds a rank waits for a rank it merges from (a child in the
 * reduction tree) without hearing from it (no state, no heartbeat) before
 * it ends the job: the environment's RUBICON_MPI_SILENCE, or this. */
#define SILENCE_DEFAULT 60.0

static int mpiRank = 0, mpiSize = 1, mpiActive = 0;
static int splitDone = 0;
static int sweepRun = 0;		/* The split run going on is a sweep. */
static Tcl_Obj *rankRecords = NULL;	/* Records each rank read, in rank
					 * order (rank 0, after a split run). */
static int shardSignal, shardSignalRank;	/* The first signal that
					 * stopped a rank of this rank's subtree,
					 * and that rank (sent up with the state). */
static double lastBeat;			/* When this rank last sent one. */
static int reducing;			/* In RbMpiReduce. */
static double reduceSeconds, mergeSeconds;	/* Rank 0's last reduction:
					 * all of it (waiting for the others
					 * included), and the deserializing and
					 * merging in it. */

static double
Now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

#ifdef HAVE_MPI
/*
 * FinalizeAtExit --
 *	atexit handler: ends MPI once, so that mpirun sees a clean exit.
 */
static const RbMpiGlue *mpi;		/* The glue's table, once loaded. */

static void
FinalizeAtExit(void)
{
    mpi->finalize();
}
#endif

/*
 * RbMpiInit --
 *	Joins the MPI job when the process was launched by mpirun (Open
 *	MPI's environment says so): loads the glue to libmpi (LoadGlue) and
 *	calls MPI_Init; otherwise does nothing, so that a plain run neither
 *	loads nor links the MPI runtime.  Does its work once per process.
 * Results: TCL_OK, or TCL_ERROR (in interp) when the process was
 *	started by mpirun and the glue cannot be loaded: each rank would
 *	otherwise run the whole job alone.
 * Side effects: MPI_Init; on ranks other than 0, stdout goes to
 *	/dev/null (only rank 0 writes results).
 */
static int
RbMpiInit(Tcl_Interp *interp)
{
#ifdef HAVE_MPI
    static int tried = 0;
    int fd;
    Tcl_Obj *why = NULL;

    if (tried) {
	return TCL_OK;
    }
    if (getenv("OMPI_COMM_WORLD_SIZE") == NULL && getenv("PMIX_RANK") == NULL) {
	tried = 1;
	return TCL_OK;
    }
    if (mpi == NULL) {
	RbMpiGlueTableProc *table = (RbMpiGlueTableProc *)RbGlueLoad(interp,
		RB_MPI_GLUE_LIB, RB_MPI_GLUE_SYM, &why);

	mpi = table ? table() : NULL;
	if (mpi != NULL && mpi->version != RB_MPI_GLUE_VERSION) {
	    mpi = NULL;
	    why = Tcl_ObjPrintf("%s is not this version's", RB_MPI_GLUE_LIB);
	    Tcl_IncrRefCount(why);
	}
    }
    if (mpi == NULL) {
	Tcl_SetObjResult(interp, Tcl_ObjPrintf("started by mpirun, but "
		"cannot load Rubicon's MPI glue, which split runs need (%s)",
		Tcl_GetString(why)));
	Tcl_SetErrorCode(interp, "RUBICON", "MPI", "GLUE", NULL);
	Tcl_DecrRefCount(why);
	return TCL_ERROR;
    }
    tried = 1;
    if (mpi->init(&mpiRank, &mpiSize) != 0) {
	mpiRank = 0;
	mpiSize = 1;
	return TCL_OK;
    }
    mpiActive = 1;
    atexit(FinalizeAtExit);
    if (mpiRank != 0 && (fd = open("/dev/null", O_WRONLY)) >= 0) {
	fflush(stdout);
	dup2(fd, 1);
	close(fd);
    }
#endif
    return TCL_OK;
}

int
RbMpiRank(void)
{
    return mpiRank;
}

int
RbMpiSize(void)
{
    return mpiSize;
}

/*
 * RbMpiSplit --
 *	Whether a run should be split over the ranks: MPI is active with more
 *	than one rank, and no split run has happened yet in this process (the
 *	other ranks end after the first; a later run is rank 0's alone).
 */
int
RbMpiSplit(void)
{
    return mpiActive && mpiSize > 1 && !splitDone;
}

/*
 * RbMergeWanted, RbShardFirst, RbSetCheckpointMode --
 *	Whether partial states will be merged in the run going on or next
 *	(a split run, or one that takes or resumes from checkpoints), and
 *	whether this process's records come first in it; run.c says when a
 *	run checkpoints or resumes.
 */
static int ckptMode = 0;

void
RbSetCheckpointMode(int checkpointing, int resumed)
{
    (void)resumed;
    ckptMode = checkpointing;
}

int
RbMergeWanted(void)
{
    return RbMpiSplit() || ckptMode;
}

int
RbShardFirst(void)
{
    /* A checkpoint's state is merged, at the end of the run resumed from
     * it, into an empty one as a later shard's would be: it keeps what a
     * later shard keeps. */
    return RbMpiSplit() ? mpiRank == 0 && !ckptMode : !ckptMode;
}

/*
 * RbMpiSplitOver --
 *	A run that is not split happened first (records given in Tcl,
 *	-merge, standard input): the other ranks have ended at it, so every
 *	later run is rank 0's alone, as after a split run.
 */
void
RbMpiSplitOver(void)
{
    splitDone = 1;
}

/*
 * RbMpiSweep, RbMpiSetSweep --
 *	Whether the split run going on is a sweep (rubicon::run -sweep 1):
 *	every rank reads every trace whole, and the Analyzers, all of them
 *	CacheSimAnalyzers, each simulate their share of the caches; set by
 *	the run driver for the run.
 */
int
RbMpiSweep(void)
{
    return sweepRun;
}

void
RbMpiSetSweep(int on)
{
    sweepRun = on;
}

/*
 * SplitKind --
 *	How a trace may be cut by byte ranges (RbInputWindow): 1 for text of
 *	one record per line (msr, spc, disksim, csv, alibaba, tencent,
 *	twitter), plain or gzip/bzip2/zstd (cut at members or frames,
 *	RB_WINDOW_LINES); 2 for plain SRT; 3 for the native
 *	format without string fields (cut at its blocks: RbNativeSplittable;
 *	a later block may use strings an earlier one defined); 5 for
 *	records of a fixed length (vscsi, oraclegeneral: their readers set
 *	it, RbInputSetRecordLength), plain or in zstd frames that each
 *	declare their size (RbInputZstdSized: the decompressed offset of a
 *	frame, and so its first record boundary, is then known without
 *	decompressing); else 0 (it is read whole by one rank: gzip or bzip2
 *	of fixed-length records, whose members need not end at a record's
 *	end).  (RbMpiShard makes 2 into 4, SRT
 *	cut where the record heads line up, when the cut points are far
 *	enough apart for that: RB_RESYNC_SPACING.)  With plainLines (-skim),
 *	0 also for compressed text, whose members (the unit a range of it is
 *	read in) are most often the whole file.
 */
static int
SplitKind(const char *path, const char *format, Tcl_Obj *readerOpts,
	int plainLines)
{
    static const char *const lines[] = {"msr", "spc", "disksim", "csv",
	"alibaba", "tencent", "twitter", NULL};
    Rb_Error err;
    Rb_Reader *r = Rb_ReaderOpen(path, format, RB_ONERROR_STOP, readerOpts,
	    &err);
    const char *comp;
    int kind = 0, i;

    if (r == NULL) {
	return 0;
    }
    comp = Rb_InputCompression(r->in);
    for (i = 0; lines[i]; i++) {
	kind = strcmp(r->cls->name, lines[i]) == 0 ? 1 : kind;
    }
    if (plainLines && kind == 1 && strcmp(comp, "none") != 0) {
	kind = 0;
    } else if (strcmp(r->cls->name, "native") == 0) {
	kind = RbNativeSplittable(r) ? 3 : 0;
    } else if (strcmp(comp, "none") == 0) {
	kind = strcmp(r->cls->name, "srt") == 0 ? 2
		: RbInputRecordLength(r->in) > 0 ? 5 : kind;
    } else if (RbInputZstdSized(r->in)) {
	kind = 5;		/* fixed-length records in sized zstd frames */
    }
    Rb_ReaderClose(r);
    return kind;
}

/*
 * FileSizes --
 *	The sizes of the n traces (1 for one that is empty or cannot be
 *	read: it goes whole to a piece), and their total in *total.
 * Results: the sizes (malloc'd).
 */
static uint64_t *
FileSizes(int n, Tcl_Obj *const paths[], uint64_t *total)
{
    uint64_t *sizes = Rb_Alloc((n + 1) * sizeof(uint64_t));
    int i;

    *total = 0;
    for (i = 0; i < n; i++) {
	struct stat sb;

	sizes[i] = stat(Tcl_GetString(paths[i]), &sb) == 0 && sb.st_size > 0
		? (uint64_t)sb.st_size : 1;
	*total += sizes[i];
    }
    return sizes;
}

/*
 * RbMpiShard --
 *	The share of n trace files (in time order) that a rank reads.  The
 *	files' bytes, end to end, are cut into size equal ranges, rank r
 *	taking the r-th.  A file that can be cut by byte ranges (SplitKind)
 *	is cut there, each piece then reading its records (RbInputWindow:
 *	those that begin in it; for a compressed file, those of the members
 *	that begin in it);
 *	any other file goes whole to the rank whose range holds its middle
 *	byte.  So ranks get records in order, and a rank may get none.
 * Results: the number of pieces, *pieces (malloc'd) in order: file
 *	index, byte range (end 0: the whole file) and kind.
 */
int
RbMpiShard(int n, Tcl_Obj *const paths[], const char *format,
	Tcl_Obj *readerOpts, int rank, int size, RbMpiPiece **pieces)
{
    uint64_t total, before = 0, lo, hi;
    uint64_t *sizes = FileSizes(n, paths, &total);
    int i, count = 0;

    *pieces = Rb_Alloc((n + 1) * sizeof(RbMpiPiece));
    lo = (uint64_t)((unsigned __int128)total * rank / size);
    hi = (uint64_t)((unsigned __int128)total * (rank + 1) / size);
    for (i = 0; i < n; before += sizes[i], i++) {
	uint64_t a = before > lo ? before : lo;
	uint64_t b = before + sizes[i] < hi ? before + sizes[i] : hi;
	int kind;

	if (b <= a) {
	    continue;		/* no byte of this file in our range */
	}
	kind = (a > before || b < before + sizes[i])
		? SplitKind(Tcl_GetString(paths[i]), format, readerOpts, 0) : 0;
	if (kind == 2 && total / (uint64_t)size >= RB_RESYNC_SPACING) {
	    kind = 4;		/* cut where record heads line up */
	}
	if (kind == 0) {
	    /* Whole: ours if its middle byte is in our range. */
	    uint64_t mid = before + sizes[i] / 2;

	    if (mid < lo || mid >= hi) {
		continue;
	    }
	    a = before;
	    b = before;
	} else {
	    a -= before;
	    b -= before;
	}
	(*pieces)[count].file = i;
	(*pieces)[count].begin = kind ? a : 0;
	(*pieces)[count].end = kind ? b : 0;
	(*pieces)[count].kind = kind;
	count++;
    }
    free(sizes);
    return count;
}

/*
 * RbSkimPieces --
 *	The pieces rubicon::run -skim {count fraction} reads: count byte
 *	ranges of the n traces' bytes end to end, range j starting at j /
 *	count of them and holding fraction / count of them (a byte at
 *	least), each range's records being those that begin in it (as a
 *	split run's rank reads its range, RbMpiShard).  A range cuts a file
 *	only where the file can be cut: uncompressed lines, SRT, native
 *	blocks, fixed-length records (SplitKind with plainLines); a file a range
 *	holds whole is read whole.
 * Results: TCL_OK with *pieces (malloc'd, in order) and *npieces, or
 *	TCL_ERROR (RUBICON RUN NOSKIM) naming the file that cannot be cut.
 */
int
RbSkimPieces(Tcl_Interp *interp, int n, Tcl_Obj *const paths[],
	const char *format, Tcl_Obj *readerOpts, int count, double fraction,
	RbMpiPiece **pieces, int *npieces)
{
    uint64_t total, *sizes = FileSizes(n, paths, &total), len;
    int *kinds = Rb_Alloc((n + 1) * sizeof(int)), i, j, cap = count + n;

    *pieces = Rb_Alloc((size_t)cap * sizeof(RbMpiPiece));
    *npieces = 0;
    for (i = 0; i < n; i++) {
	kinds[i] = -1;		/* not yet asked */
    }
    len = (uint64_t)((double)total * fraction / count);
    len = len > 0 ? len : 1;
    for (j = 0; j < count; j++) {
	uint64_t lo = (uint64_t)((unsigned __int128)total * j / count);
	uint64_t hi = lo + len, before = 0;

	for (i = 0; i < n; before += sizes[i], i++) {
	    uint64_t a = before > lo ? before : lo;
	    uint64_t b = before + sizes[i] < hi ? before + sizes[i] : hi;
	    RbMpiPiece *pc;
	    int kind = 0;

	    if (b <= a) {
		continue;
	    }
	    if (a > before || b < before + sizes[i]) {
		if (kinds[i] < 0) {
		    kinds[i] = SplitKind(Tcl_GetString(paths[i]), format,
			    readerOpts, 1);
		}
		if ((kind = kinds[i]) == 0) {
		    free(sizes);
		    free(kinds);
		    free(*pieces);
		    *pieces = NULL;
		    return Rb_SetInterpError(interp, "RUBICON RUN NOSKIM",
			    "-skim cannot read a byte range of \"%s\": only "
			    "uncompressed text, SRT, native and fixed-length "
			    "record traces can be cut",
			    Tcl_GetString(paths[i]));
		}
		if (kind == 2 && len >= RB_RESYNC_SPACING
			&& total / (uint64_t)count - len >= RB_RESYNC_SPACING) {
		    kind = 4;	/* cut where record heads line up */
		}
	    }
	    if (*npieces == cap) {
		cap *= 2;
		*pieces = Rb_Realloc(*pieces, (size_t)cap * sizeof(RbMpiPiece));
	    }
	    pc = &(*pieces)[(*npieces)++];
	    pc->file = i;
	    pc->begin = kind ? a - before : 0;
	    pc->end = kind ? b - before : 0;
	    pc->kind = kind;
	}
    }
    free(sizes);
    free(kinds);
    return TCL_OK;
}

/*
 * RbMpiCheckSplit --
 *	Before reading: refuses a split run (or, with checkpoint, a run that
 *	checkpoints or resumes) whose DAG holds something that cannot be
 *	merged, so that no wrong answer is computed.  Every rank
 *	evaluates the same configuration, so every rank refuses alike.
 * Results: TCL_OK, or TCL_ERROR with RUBICON SPLIT UNMERGEABLE naming the
 *	object and its class.
 */
int
RbMpiCheckSplit(Tcl_Interp *interp, Rb_Engine *eng, Rb_Flow **flows,
	int nflows, int checkpoint)
{
    Rb_Node *n;
    int i, j;

    for (i = 0; i < nflows; i++) {
	for (j = 0; j < flows[i]->nanalyzers; j++) {
	    Rb_Analyzer *a = flows[i]->analyzers[j];
	    const Rb_AnalyzerClass *c = a->cls;

	    if ((!c->mergeable || !c->merge || !c->serialize
		    || !c->deserialize) && checkpoint) {
		return Rb_SetInterpError(interp,
			"RUBICON CHECKPOINT UNMERGEABLE", "%s: class %s cannot "
			"save and merge partial results, so its run cannot be "
			"checkpointed or resumed; run it without -checkpoint",
			a->cmdName ? a->cmdName : c->name, c->name);
	    }
	    if (sweepRun && strcmp(c->name, "CacheSimAnalyzer") != 0) {
		return Rb_SetInterpError(interp, "RUBICON SPLIT UNMERGEABLE",
			"%s: a sweep (-sweep 1) gives every process the whole "
			"trace, which only CacheSimAnalyzers share out; run "
			"%s in another run", a->cmdName ? a->cmdName
			: c->name, c->name);
	    }
	    if (sweepRun) {
		continue;
	    }
	    if (!c->mergeable || !c->merge || !c->serialize
		    || !c->deserialize) {
		return Rb_SetInterpError(interp, "RUBICON SPLIT UNMERGEABLE",
			"%s: class %s cannot merge partial results, so a run "
			"split over %d processes would be wrong; run it in "
			"one process (mpirun -np 1, or without mpirun)",
			a->cmdName ? a->cmdName : c->name, c->name, mpiSize);
	    }
	}
    }
    for (n = eng->nodes; n; n = n->nextNode) {
	const char *why = NULL, *cls = "";

	if (n->visitMark != 3) {
	    continue;		/* not reachable from the head */
	}
	if (n->kind == NODE_SINK) {
	    why = "each process would write its own share";
	    cls = n->sinkClass->name;
	} else if (n->kind == NODE_TRANSFORMER && n->xf->cls->flush) {
	    why = "it holds records back across a shard boundary";
	    cls = n->xf->cls->name;
	} else if (n->kind == NODE_TRANSFORMER
		&& strcmp(n->xf->cls->name, "SampleTransformer") == 0
		&& RbOptionsCget(interp, n->xf->cls->options, n->xf->state,
		Tcl_NewStringObj("-key", -1)) == TCL_OK
		&& *Tcl_GetStringResult(interp) == '\0') {
	    why = "without -key it counts every record before its own";
	    cls = n->xf->cls->name;
	}
	Tcl_ResetResult(interp);
	if (why && checkpoint) {
	    return Rb_SetInterpError(interp, "RUBICON CHECKPOINT UNMERGEABLE",
		    "%s: a %s cannot be checkpointed: %s; run it without "
		    "-checkpoint", n->cmdName ? n->cmdName : cls, cls,
		    strcmp(why, "each process would write its own share") == 0
		    ? "what it wrote before the checkpoint would be written "
		    "again" : why);
	}
	if (why) {
	    return Rb_SetInterpError(interp, "RUBICON SPLIT UNMERGEABLE",
		    "%s: a %s cannot be split over %d processes: %s; run it "
		    "in one process (mpirun -np 1, or without mpirun)",
		    n->cmdName ? n->cmdName : cls, cls, mpiSize, why);
	}
    }
    return TCL_OK;
}

/*
 * RbPutObj, RbGetObj --
 *	A Tcl value as its string.
 */
void
RbPutObj(Rb_Buf *b, Tcl_Obj *obj)
{
    int len;
    const char *s = Tcl_GetStringFromObj(obj, &len);

    Rb_BufPutString(b, s, (size_t)len);
}

Tcl_Obj *
RbGetObj(Rb_Buf *b)
{
    size_t len;
    const char *s = Rb_BufGetString(b, &len);

    return Tcl_NewStringObj(s ? s : "", s ? (int)len : 0);
}

/*
 * RbSerializeFlows --
 *	The Flows' part of a shard's state (a split run's message, a
 *	checkpoint): their number, then each Flow's record count and its
 *	Analyzers' states (class name, length, the class's bytes), in DAG
 *	order.
 * Results: TCL_OK, or TCL_ERROR with the analyzer's error in interp.
 */
int
RbSerializeFlows(Tcl_Interp *interp, Rb_Flow **flows, int nflows,
	const Rb_RunInfo *run, Rb_Buf *b)
{
    int i, j;

    Rb_BufPutInt(b, nflows);
    for (i = 0; i < nflows; i++) {
	Rb_BufPutInt(b, (int64_t)flows[i]->recordCount);
	Rb_BufPutInt(b, flows[i]->nanalyzers);
	for (j = 0; j < flows[i]->nanalyzers; j++) {
	    Rb_Analyzer *a = flows[i]->analyzers[j];
	    size_t lenAt;
	    int64_t len;
	    int k;

	    Rb_BufPutString(b, a->cls->name, strlen(a->cls->name));
	    lenAt = b->len;
	    Rb_BufPutInt(b, 0);
	    if (a->cls->serialize(a, run, b) != TCL_OK) {
		return RbAnalyzerTakeError(interp, a) == TCL_OK
			? Rb_SetInterpError(interp, "RUBICON MERGE SERIALIZE",
			"%s: cannot serialize its state", a->cmdName)
			: TCL_ERROR;
	    }
	    if (b->bad) {
		return Rb_SetInterpError(interp, "RUBICON MERGE SERIALIZE",
			"out of memory serializing %s", a->cmdName);
	    }
	    len = (int64_t)(b->len - lenAt - 8);
	    for (k = 0; k < 8; k++) {
		b->data[lenAt + k] = (unsigned char)((uint64_t)len >> (8 * k));
	    }
	}
    }
    return TCL_OK;
}

/*
 * Serialize --
 *	A rank's message: format version, its failure (if any), the run
 *	counts, the files it read, the records each rank of its subtree
 *	read, each Flow's record count and each
 *	Analyzer's state (class name, then the class's bytes), Flows and
 *	Analyzers in DAG order, the same on every rank.
 * Results: TCL_OK, or TCL_ERROR with the analyzer's error in interp.
 */
#ifdef HAVE_MPI
static int
Serialize(Tcl_Interp *interp, Rb_Flow **flows, int nflows,
	const Rb_RunInfo *run, Tcl_Obj *files, Tcl_Obj *errResult,
	Tcl_Obj *errOptions, Rb_Buf *b)
{
    Rb_BufPutInt(b, MSG_VERSION);
    Rb_BufPutInt(b, errResult != NULL);
    if (errResult) {
	RbPutObj(b, errResult);
	RbPutObj(b, errOptions);
    }
    Rb_BufPutInt(b, (int64_t)run->records);
    Rb_BufPutInt(b, (int64_t)run->skipped);
    Rb_BufPutInt(b, run->firstTime);
    Rb_BufPutInt(b, run->lastTime);
    Rb_BufPutInt(b, run->partial);
    Rb_BufPutInt(b, RbRunSignal() ? RbRunSignal() : shardSignal);
    Rb_BufPutInt(b, RbRunSignal() ? mpiRank : shardSignalRank);
    RbPutObj(b, run->skipCounts);
    RbPutObj(b, files);
    RbPutObj(b, rankRecords);
    return RbSerializeFlows(interp, flows, nflows, run, b);
}
#endif

/*
 * RbCloneAnalyzer --
 *	A fresh instance of a's class with a's options, started on run:
 *	what a shard's state is deserialized into before it is merged.
 * Results: the instance, or NULL with an error in interp.
 */
Rb_Analyzer *
RbCloneAnalyzer(Tcl_Interp *interp, Rb_Analyzer *a, const Rb_RunInfo *run)
{
    Tcl_Obj *opts = RbOptionsList(a->cls->options, a->state), **ov;
    Rb_Analyzer *c;
    int oc;

    Tcl_IncrRefCount(opts);
    Tcl_ListObjGetElements(NULL, opts, &oc, &ov);
    c = RbAnalyzerCreate(interp, a->cls, oc, ov);
    Tcl_DecrRefCount(opts);
    if (c == NULL) {
	return NULL;
    }
    c->cmdName = Rb_Strdup(a->cmdName ? a->cmdName : a->cls->name);
    if (RbAnalyzerStartAll(interp, c, run) != TCL_OK) {
	RbAnalyzerDelete(c);
	return NULL;
    }
    return c;
}

/*
 * RbMergeState --
 *	Merges a later shard's state of an Analyzer (len bytes at data, as
 *	its serialize hook wrote them) into `into`, an instance of the same
 *	class and options as like (often like itself): a clone of like
 *	takes the bytes through deserialize and is merged into `into`.
 *	from names the shard in errors ("rank 3", "checkpoint").
 * Results: TCL_OK, or TCL_ERROR with the error in interp.
 */
int
RbMergeState(Tcl_Interp *interp, Rb_Analyzer *into, Rb_Analyzer *like,
	const Rb_RunInfo *run, const unsigned char *data, size_t len,
	const char *from)
{
    Rb_Analyzer *c;
    Rb_Buf part;
    int rc;

    memset(&part, 0, sizeof(part));
    part.data = (unsigned char *)data;
    part.len = data ? len : 0;
    if ((c = RbCloneAnalyzer(interp, like, run)) == NULL) {
	return TCL_ERROR;
    }
    rc = like->cls->deserialize(c, run, &part);
    if (rc == TCL_OK && ((data == NULL && len > 0) || part.bad
	    || part.pos != part.len)) {
	Rb_AnalyzerError(c, "RUBICON MERGE MISMATCH", "state from %s is %s",
		from, part.bad || data == NULL ? "truncated"
		: "longer than its class reads");
	rc = TCL_ERROR;
    }
    if (rc != TCL_OK) {
	RbAnalyzerTakeError(interp, c);
	RbAnalyzerDelete(c);
	return TCL_ERROR;
    }
    rc = like->cls->merge(into, c);
    RbAnalyzerDelete(c);
    if (rc != TCL_OK || RbAnalyzerTakeError(interp, into) != TCL_OK) {
	if (rc != TCL_OK && RbAnalyzerTakeError(interp, into) == TCL_OK) {
	    Rb_SetInterpError(interp, "RUBICON MERGE MISMATCH",
		    "%s: cannot merge the state of %s", like->cmdName, from);
	}
	return TCL_ERROR;
    }
    return TCL_OK;
}

#ifdef HAVE_MPI
/*
 * MergeMessage --
 *	Merges a later shard's message (from rank `from`) into this rank's
 *	state: counts and times into run, its files after ours, each
 *	Analyzer's state through deserialize and merge.  A failure the shard
 *	reported is kept in *errResult (the earliest rank's wins).
 * Results: TCL_OK, or TCL_ERROR (a merge that failed) with the error in
 *	interp.
 */
static int
MergeMessage(Tcl_Interp *interp, Rb_Flow **flows, int nflows,
	Rb_RunInfo *run, Tcl_Obj *files, Tcl_Obj **errResult,
	Tcl_Obj **errOptions, Rb_Buf *b, int from)
{
    int i, j, nf, failed, sig, sigRank;
    int64_t first, last;
    Tcl_Obj *counts, *theirFiles, **fv, *firstErr = NULL, *firstOpts = NULL;
    const unsigned char *bytes;

    if (Rb_BufGetInt(b) != MSG_VERSION) {
	return Rb_SetInterpError(interp, "RUBICON MERGE MISMATCH",
		"rank %d sent partial results of another format version "
		"(mixed rubicon builds?)", from);
    }
    if ((failed = (int)Rb_BufGetInt(b)) != 0) {
	Tcl_Obj *r = RbGetObj(b), *o = RbGetObj(b);

	if (*errResult == NULL) {
	    *errResult = r;
	    *errOptions = o;
	    Tcl_IncrRefCount(r);
	    Tcl_IncrRefCount(o);
	} else {
	    Tcl_DecrRefCount(Tcl_NewListObj(2, (Tcl_Obj *[]){r, o}));
	}
    }
    {
	/* In a sweep every rank read the same records. */
	uint64_t records = (uint64_t)Rb_BufGetInt(b);
	uint64_t skipped = (uint64_t)Rb_BufGetInt(b);

	if (!sweepRun) {
	    run->records += records;
	    run->skipped += skipped;
	}
    }
    first = Rb_BufGetInt(b);
    last = Rb_BufGetInt(b);
    run->firstTime = first < run->firstTime ? first : run->firstTime;
    run->lastTime = last > run->lastTime ? last : run->lastTime;
    run->partial |= (int)Rb_BufGetInt(b);
    sig = (int)Rb_BufGetInt(b);
    sigRank = (int)Rb_BufGetInt(b);
    if (sig != 0 && shardSignal == 0) {
	shardSignal = sig;
	shardSignalRank = sigRank;
    }
    counts = RbGetObj(b);
    if (!sweepRun) {
	RbMergeSkipCounts(run, counts);
    }
    Tcl_DecrRefCount(Tcl_NewListObj(1, &counts));
    theirFiles = RbGetObj(b);
    Tcl_IncrRefCount(theirFiles);
    if (!sweepRun
	    && Tcl_ListObjGetElements(NULL, theirFiles, &nf, &fv) == TCL_OK) {
	for (i = 0; i < nf; i++) {
	    Tcl_Obj *last = NULL;
	    int n;

	    /* A file cut between ranks is listed once. */
	    if (Tcl_ListObjLength(NULL, files, &n) == TCL_OK && n > 0) {
		Tcl_ListObjIndex(NULL, files, n - 1, &last);
	    }
	    if (last == NULL || strcmp(Tcl_GetString(last),
		    Tcl_GetString(fv[i])) != 0) {
		Tcl_ListObjAppendElement(NULL, files, fv[i]);
	    }
	}
    }
    Tcl_DecrRefCount(theirFiles);
    {
	Tcl_Obj *theirs = RbGetObj(b);

	/* Their ranks follow ours. */
	Tcl_IncrRefCount(theirs);
	if (Tcl_ListObjGetElements(NULL, theirs, &nf, &fv) == TCL_OK) {
	    Tcl_ListObjReplace(NULL, rankRecords, INT_MAX, 0, nf, fv);
	}
	Tcl_DecrRefCount(theirs);
    }
    nf = (int)Rb_BufGetInt(b);
    if (nf == 0 && failed) {
	return TCL_OK;		/* it could not even serialize its state */
    }
    if (nf != nflows) {
	return Rb_SetInterpError(interp, "RUBICON MERGE MISMATCH",
		"rank %d has %d Flows, rank 0 has %d: every rank must build "
		"the same DAG", from, nf, nflows);
    }
    for (i = 0; i < nflows && !b->bad; i++) {
	uint64_t flowRecords = (uint64_t)Rb_BufGetInt(b);

	if (!sweepRun) {
	    flows[i]->recordCount += flowRecords;
	}
	if (Rb_BufGetInt(b) != flows[i]->nanalyzers) {
	    return Rb_SetInterpError(interp, "RUBICON MERGE MISMATCH",
		    "rank %d has another number of Analyzers in Flow %s: "
		    "every rank must build the same DAG", from,
		    flows[i]->name);
	}
	for (j = 0; j < flows[i]->nanalyzers; j++) {
	    Rb_Analyzer *a = flows[i]->analyzers[j];
	    size_t nameLen, len;
	    const char *name = Rb_BufGetString(b, &nameLen);
	    char fromText[32];

	    len = (size_t)Rb_BufGetCount(b, 1);
	    if (b->bad || nameLen != strlen(a->cls->name)
		    || memcmp(name, a->cls->name, nameLen) != 0) {
		return Rb_SetInterpError(interp, "RUBICON MERGE MISMATCH",
			"rank %d sent no state of class %s for %s: every "
			"rank must build the same DAG", from, a->cls->name,
			a->cmdName);
	    }
	    snprintf(fromText, sizeof(fromText), "rank %d", from);
	    bytes = (const unsigned char *)Rb_BufGetBytes(b, len);
	    if (((AnalyzerPriv *)a->engine)->mergeFailed) {
		continue;	/* its results already lack a shard */
	    }
	    if (RbMergeState(interp, a, a, run, bytes, len, fromText)
		    != TCL_OK) {
		/* The others merge on: keep this first failure. */
		((AnalyzerPriv *)a->engine)->mergeFailed = 1;
		RbErrorKeep(interp, &firstErr, &firstOpts);
	    }
	}
    }
    if (RbErrorRaise(interp, &firstErr, &firstOpts) != TCL_OK) {
	return TCL_ERROR;
    }
    if (b->bad) {
	return Rb_SetInterpError(interp, "RUBICON MERGE MISMATCH",
		"partial results from rank %d are truncated", from);
    }
    return TCL_OK;
}
#endif

#ifdef HAVE_MPI
/*
 * Doze --
 *	A millisecond's sleep between polls.  Open MPI waits by spinning,
 *	which on a machine with no core to spare takes the CPU from the
 *	ranks still reading; a rank that has finished its share polls for
 *	its partner instead, at most a millisecond late.
 */
static void
Doze(void)
{
    struct timespec ts = {0, 1000000};

    nanosleep(&ts, NULL);
}

/*
 * Silence --
 *	RUBICON_MPI_SILENCE seconds if set to a positive number, else
 *	SILENCE_DEFAULT.
 */
static double
Silence(void)
{
    const char *s = getenv("RUBICON_MPI_SILENCE");
    double v = s ? atof(s) : 0;

    return v > 0 ? v : SILENCE_DEFAULT;
}

/*
 * DrainBeats --
 *	Receives every heartbeat rank from has sent.
 * Results: 1 if there was one.
 */
static int
DrainBeats(int from)
{
    int beat, heard = 0;

    while (mpi->iprobe(from, BEAT_TAG, NULL) == 1) {
	mpi->recv(&beat, 1, RB_MPI_INT, from, BEAT_TAG);
	heard = 1;
    }
    return heard;
}

/*
 * WaitProbe --
 *	MPI_Probe of rank from's message, dozing between polls; meanwhile
 *	this rank's own heartbeats go on.  A rank that sends neither its
 *	state nor a heartbeat for Silence() seconds (stopped with SIGSTOP,
 *	hung, or on a machine that went away without its connection
 *	closing) ends the job: the message names it, and every rank exits.
 */
static int
WaitProbe(int from)
{
    int bytes = 0;
    double heard = Now(), silence = Silence();

    for (;;) {
	if (mpi->iprobe(from, MSG_TAG, &bytes) == 1) {
	    return bytes;
	}
	if (DrainBeats(from)) {
	    heard = Now();
	} else if (Now() - heard > silence) {
	    fprintf(stderr, "rubicon: rank %d: rank %d has sent nothing for "
		    "%g s (stopped or hung; RUBICON_MPI_SILENCE): ending the "
		    "job\n", mpiRank, from, silence);
	    RbMpiAbort(1);
	}
	RbMpiHeartbeat();
	Doze();
    }
}

/*
 * SendWaiting --
 *	MPI_Send of b's bytes to rank to, dozing while it is under way.
 */
static void
SendWaiting(Rb_Buf *b, int to)
{
    void *req = mpi->isend(b->data, (int)b->len, RB_MPI_BYTE, to, MSG_TAG);

    while (req != NULL && !mpi->test(req)) {
	Doze();
    }
}
#endif

/*
 * RbMpiAgree --
 *	In a split run, before reading: every rank says whether it can go
 *	on (ok; if not, its error is in interp) and adds its *count (the
 *	checkpoints it found, say), which becomes the sum over the ranks.
 *	When some rank cannot go on, every rank gets TCL_ERROR, and rank
 *	0's interp holds the error of the first rank that failed, with its
 *	error code, named ("rank N: ...") when it is not rank 0's own.
 * Results: TCL_OK when every rank can go on.
 */
#define AGREE_LEN 2048

int
RbMpiAgree(Tcl_Interp *interp, int ok, int *count)
{
#ifdef HAVE_MPI
    int in[2], out[2], r;
    char msg[AGREE_LEN], *all = NULL;

    if (!mpiActive || mpiSize < 2) {
	return ok ? TCL_OK : TCL_ERROR;
    }
    in[0] = !ok;
    in[1] = *count;
    mpi->allreduceSum(in, out, 2);
    *count = out[1];
    if (out[0] == 0) {
	return TCL_OK;
    }
    memset(msg, 0, sizeof(msg));
    if (!ok) {
	Tcl_Obj *opts = Tcl_GetReturnOptions(interp, TCL_ERROR), *code = NULL;
	size_t len;

	Tcl_IncrRefCount(opts);
	Tcl_DictObjGet(NULL, opts, Tcl_NewStringObj("-errorcode", -1), &code);
	snprintf(msg, sizeof(msg) / 4, "%s", code ? Tcl_GetString(code)
		: "RUBICON");
	len = strlen(msg) + 1;
	snprintf(msg + len, sizeof(msg) - len, "%s",
		Tcl_GetStringResult(interp));
	Tcl_DecrRefCount(opts);
    }
    if (mpiRank == 0) {
	all = Rb_Alloc((size_t)AGREE_LEN * mpiSize);
    }
    mpi->gather(msg, AGREE_LEN, RB_MPI_CHAR, all, 0);
    for (r = 1; all != NULL && ok && r < mpiSize; r++) {
	const char *m = all + (size_t)r * AGREE_LEN;

	if (*m != '\0') {
	    Tcl_SetObjResult(interp, Tcl_ObjPrintf("rank %d: %s", r,
		    m + strlen(m) + 1));
	    Tcl_SetObjErrorCode(interp, Tcl_NewStringObj(m, -1));
	    break;
	}
    }
    free(all);
    return TCL_ERROR;
#else
    return ok ? TCL_OK : TCL_ERROR;
#endif
}

/*
 * RbMpiRemoveAfterSend --
 *	On a rank other than 0 of a split run: the file (its checkpoint) to
 *	remove once its state has reached its parent in the reduction; NULL
 *	for none.
 */
static char *removeAfterSend;

void
RbMpiRemoveAfterSend(const char *path)
{
    free(removeAfterSend);
    removeAfterSend = path ? Rb_Strdup(path) : NULL;
}

/*
 * RbMpiHeartbeat --
 *	During a split run, on a rank other than 0: at most once a second,
 *	tells the rank it will send its state to (its parent in the
 *	reduction tree) that it is alive, so that the parent can tell a slow
 *	rank from a stopped one (WaitProbe).  Cheap enough to call per
 *	batch.
 */
void
RbMpiHeartbeat(void)
{
#ifdef HAVE_MPI
    static int beat = 1;
    void *req;
    double now;

    if (!mpiActive || mpiRank == 0 || mpiSize < 2
	    || !(RbMpiSplit() || reducing)) {
	return;
    }
    now = Now();
    if (now - lastBeat < 1.0) {
	return;
    }
    lastBeat = now;
    req = mpi->isend(&beat, 1, RB_MPI_INT, mpiRank - (mpiRank & -mpiRank),
	    BEAT_TAG);
    if (req != NULL) {
	mpi->requestFree(req);
    }
#endif
}

/*
 * RbMpiReduce --
 *	After a rank has read its shard: reduces every rank's partial state
 *	in rank order to rank 0 along a binomial tree (O(log N) steps: at
 *	step s a rank that is a multiple of 2s receives from rank + s, whose
 *	records follow its own, and merges).  On rank 0 the run, files and
 *	Analyzers then hold the whole; a failure of any rank is in
 *	*errResult, *errOptions (naming the rank).  A rank other than 0
 *	sends its state and ends its process.
 * Results: TCL_OK, or TCL_ERROR when a merge fails (error in interp).
 */
int
RbMpiReduce(Tcl_Interp *interp, Rb_Flow **flows, int nflows, Rb_RunInfo *run,
	Tcl_Obj *files, Tcl_Obj **errResult, Tcl_Obj **errOptions)
{
#ifdef HAVE_MPI
    int step, rc = TCL_OK, merged;
    double t0 = Now(), t1;
    Rb_Buf b;

    splitDone = 1;
    reducing = 1;
    shardSignal = shardSignalRank = 0;
    mergeSeconds = 0;
    if (rankRecords != NULL) {
	Tcl_DecrRefCount(rankRecords);
    }
    rankRecords = Tcl_NewListObj(1, (Tcl_Obj *[]){
	    Tcl_NewWideIntObj((Tcl_WideInt)run->records)});
    Tcl_IncrRefCount(rankRecords);
    if (*errResult != NULL && mpiRank != 0) {
	/* Name the rank in the message the user will see. */
	Tcl_Obj *named = Tcl_ObjPrintf("rank %d: %s", mpiRank,
		Tcl_GetString(*errResult));

	Tcl_DecrRefCount(*errResult);
	*errResult = named;
	Tcl_IncrRefCount(named);
    }
    for (step = 1; step < mpiSize; step *= 2) {
	if (mpiRank % (2 * step) == 0) {
	    int count, from = mpiRank + step;

	    if (from >= mpiSize) {
		continue;
	    }
	    count = WaitProbe(from);
	    memset(&b, 0, sizeof(b));
	    b.data = Rb_Alloc(count > 0 ? count : 1);
	    b.len = b.cap = (size_t)count;
	    mpi->recv(b.data, count, RB_MPI_BYTE, from, MSG_TAG);
	    DrainBeats(from);
	    /* After a failed merge the later shards still merge into every
	     * Analyzer but the one that failed (MergeMessage), so that what
	     * was computed is reported, marked partial. */
	    t1 = Now();
	    merged = MergeMessage(interp, flows, nflows, run, files,
		    errResult, errOptions, &b, from);
	    mergeSeconds += Now() - t1;
	    if (merged != TCL_OK && rc == TCL_OK) {
		/* Pass the first merge failure on as this rank's own. */
		rc = TCL_ERROR;
		if (*errResult) {
		    Tcl_DecrRefCount(*errResult);
		    Tcl_DecrRefCount(*errOptions);
		}
		*errResult = Tcl_GetObjResult(interp);
		*errOptions = Tcl_GetReturnOptions(interp, TCL_ERROR);
		Tcl_IncrRefCount(*errResult);
		Tcl_IncrRefCount(*errOptions);
	    }
	    Rb_BufFree(&b);
	} else {
	    memset(&b, 0, sizeof(b));
	    if (Serialize(interp, flows, nflows, run, files, *errResult,
		    *errOptions, &b) != TCL_OK) {
		Tcl_Obj *r = Tcl_ObjPrintf("rank %d: %s", mpiRank,
			Tcl_GetStringResult(interp));
		Tcl_Obj *o = Tcl_GetReturnOptions(interp, TCL_ERROR);

		Rb_BufFree(&b);
		Serialize(interp, NULL, 0, run, files, r, o, &b);
		Tcl_DecrRefCount(Tcl_NewListObj(2, (Tcl_Obj *[]){r, o}));
	    }
	    SendWaiting(&b, mpiRank - step);
	    Rb_BufFree(&b);
	    if (removeAfterSend != NULL) {
		unlink(removeAfterSend);
	    }
	    break;
	}
    }
    reducing = 0;
    if (mpiRank != 0) {
	RbMpiWorkerExit(0);
    }
    if (shardSignal != 0 && RbRunSignal() == 0) {
	/* The results lack the rest of that rank's share: the run is
	 * partial, and the program exits as if the signal came here. */
	fprintf(stderr, "rubicon: rank %d was stopped by signal %d before "
		"the end of its share: the results are partial\n",
		shardSignalRank, shardSignal);
	RbRunNoteSignal(shardSignal);
    }
    reduceSeconds = Now() - t0;
    return rc;
#else
    return TCL_OK;
#endif
}

/*
 * RbMpiRankRecords --
 *	After a split run, on rank 0: the records each rank read, in rank
 *	order (the summary's "ranks"); NULL before any.
 */
Tcl_Obj *
RbMpiRankRecords(void)
{
    return rankRecords;
}

/*
 * RbMpiReduceTimes --
 *	After a split run, on rank 0: the seconds its reduction took (from
 *	the end of its own reading, so waiting for slower ranks is in it)
 *	and, of those, the seconds spent deserializing and merging.
 */
void
RbMpiReduceTimes(double *reduce, double *merge)
{
    *reduce = reduceSeconds;
    *merge = mergeSeconds;
}

/*
 * RbMpiWorkerExit --
 *	Ends a rank other than 0 after its part of a split run: it writes
 *	nothing, and rank 0 reports for the whole run.
 */
void
RbMpiWorkerExit(int status)
{
    fflush(stdout);
    fflush(stderr);
    exit(status);
}

/*
 * RbMpiAbort --
 *	Ends every rank of the job (a rank failed where the others may be
 *	waiting for it); without MPI, just exits.
 */
void
RbMpiAbort(int status)
{
    fflush(stdout);
    fflush(stderr);
#ifdef HAVE_MPI
    if (mpiActive) {
	mpi->abort(status);
    }
#endif
    exit(status);
}

/*
 * MpiCmd --
 *	rubicon::mpi rank|size|split: this process's rank (0 without
 *	mpirun), the number of processes of the run (1 without mpirun), and
 *	whether the run going on or next is split over them (1 or 0; an
 *	Analyzer whose options make it unmergeable asks this in its start
 *	hook, to refuse before reading).
 */
static int
MpiCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    static const char *const subs[] = {"rank", "size", "split", NULL};
    int idx;

    if (objc != 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "rank|size|split");
	return TCL_ERROR;
    }
    if (Tcl_GetIndexFromObj(interp, objv[1], subs, "subcommand", 0, &idx)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    Tcl_SetObjResult(interp, Tcl_NewIntObj(idx == 0 ? mpiRank
	    : idx == 1 ? mpiSize : RbMpiSplit()));
    return TCL_OK;
}

int
RbMpiInitCmds(Tcl_Interp *interp)
{
    if (RbMpiInit(interp) != TCL_OK) {
	return TCL_ERROR;
    }
    Tcl_CreateObjCommand(interp, "::rubicon::mpi", MpiCmd, NULL, NULL);
    return TCL_OK;
}
