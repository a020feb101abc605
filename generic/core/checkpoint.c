/*
 * checkpoint.c --
 *
 *	Checkpoints of a run and runs resumed from them (rubicon::run
 *	-checkpoint FILE ?-checkpointevery N? and -resume FILE).  A checkpoint
 *	is a split run cut in time rather than over processes: it holds the
 *	state of every Analyzer through the serialize hooks split runs use,
 *	the run's counts and where its reading stood (which trace, how many
 *	of its records).  A resumed run reads the rest as a later shard
 *	would (the records before the position are read again but not
 *	pushed, so that every reader rebuilds what it keeps across records),
 *	and at its end the checkpoint's state is merged in before its own,
 *	as a split run merges rank 0's and rank 1's: the Attributes are
 *	those of a run that was never interrupted.
 *
 *	A checkpoint file, written to FILE.tmp-PID, synced and renamed onto
 *	FILE: the magic line "RUBICON CHECKPOINT 1\n", then Rb_Buf items
 *	(8-byte little-endian integers, length-prefixed strings): the
 *	fingerprint of the configuration and traces, the position (trace
 *	index, records of it read, its input offset, the run's records),
 *	the run's times, skip counts and files, the number of shards and
 *	each shard's Flows (RbSerializeFlows), earliest first; last the
 *	CRC-32 of everything before it.
 */

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "checkpoint.h"
#include "mpi.h"

#define CKPT_MAGIC "RUBICON CHECKPOINT 1\n"
#define CKPT_HASHED (1 << 20)	/* bytes hashed at each end of a trace */

/*
 * FileCrc --
 *	The CRC-32 of len bytes of fd at offset (fewer at its end).
 */
static uLong
FileCrc(int fd, off_t offset, size_t len)
{
    unsigned char buf[65536];
    uLong crc = crc32(0L, Z_NULL, 0);

    while (len > 0) {
	ssize_t got = pread(fd, buf, len < sizeof(buf) ? len : sizeof(buf),
		offset);

	if (got <= 0) {
	    break;
	}
	crc = crc32(crc, buf, (uInt)got);
	offset += got;
	len -= (size_t)got;
    }
    return crc;
}

/*
 * TraceFingerprint --
 *	{path size mtime crc-of-first-MiB crc-of-last-MiB} of a trace file
 *	(its real path, so that it may be named otherwise on resuming), or
 *	{path missing} when it cannot be read.
 */
static Tcl_Obj *
TraceFingerprint(const char *path)
{
    Tcl_Obj *l = Tcl_NewListObj(0, NULL);
    struct stat sb;
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    char *real = realpath(path, NULL);

    /* The file, however it is named (relative or not). */
    Tcl_ListObjAppendElement(NULL, l, Tcl_NewStringObj(real ? real : path,
	    -1));
    free(real);
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
	if (fd >= 0) {
	    close(fd);
	}
	Tcl_ListObjAppendElement(NULL, l, Tcl_NewStringObj("missing", -1));
	return l;
    }
    Tcl_ListObjAppendElement(NULL, l, Tcl_NewWideIntObj(sb.st_size));
    Tcl_ListObjAppendElement(NULL, l, Tcl_NewWideIntObj(sb.st_mtime));
    Tcl_ListObjAppendElement(NULL, l, Tcl_NewWideIntObj(
	    (Tcl_WideInt)FileCrc(fd, 0, CKPT_HASHED)));
    Tcl_ListObjAppendElement(NULL, l, Tcl_NewWideIntObj((Tcl_WideInt)FileCrc(
	    fd, sb.st_size > CKPT_HASHED ? sb.st_size - CKPT_HASHED : 0,
	    CKPT_HASHED)));
    close(fd);
    return l;
}

/*
 * DagFingerprint --
 *	What the run computes, as text: the DAG in DOT (every node, its
 *	options and its edges) and each Flow's Analyzers with their options.
 */
static Tcl_Obj *
DagFingerprint(Tcl_Interp *interp, Rb_Flow **flows, int nflows)
{
    Tcl_Obj *l = Tcl_NewListObj(0, NULL);
    int i, j;

    if (Tcl_EvalEx(interp, "::rubicon::dag dot", -1, TCL_EVAL_GLOBAL)
	    == TCL_OK) {
	Tcl_ListObjAppendElement(NULL, l, Tcl_GetObjResult(interp));
    }
    Tcl_ResetResult(interp);
    for (i = 0; i < nflows; i++) {
	Tcl_ListObjAppendElement(NULL, l, Tcl_NewStringObj(flows[i]->name,
		-1));
	for (j = 0; j < flows[i]->nanalyzers; j++) {
	    Rb_Analyzer *a = flows[i]->analyzers[j];

	    Tcl_ListObjAppendElement(NULL, l, Tcl_NewStringObj(a->cls->name,
		    -1));
	    Tcl_ListObjAppendElement(NULL, l, Tcl_NewStringObj(a->prefix
		    ? a->prefix : "", -1));
	    Tcl_ListObjAppendElement(NULL, l,
		    RbOptionsList(a->cls->options, a->state));
	}
    }
    return l;
}

/*
 * RbCkptInit --
 *	Prepares a run's checkpointing before its DAG starts: the file to
 *	write (path, every records or seconds) and the one to resume from;
 *	loads and checks the latter only later (RbCkptLoad), once the DAG is
 *	known.  Tells the Analyzers, through RbMergeWanted and RbShardFirst,
 *	that their state will be merged.
 */
void
RbCkptInit(RbCkpt *ck, const char *path, int64_t everyRecords,
	double everySeconds, const char *resume)
{
    memset(ck, 0, sizeof(*ck));
    ck->path = path;
    ck->everyRecords = everyRecords;
    ck->everySeconds = everySeconds;
    ck->resume = resume;
    ck->active = path != NULL || resume != NULL;
    RbSetCheckpointMode(ck->active, resume != NULL);
}

/*
 * RbCkptSplit --
 *	In a run split over MPI ranks: each rank checkpoints its own share
 *	to FILE.RANK and resumes from FILE.RANK, and the fingerprint gains
 *	the number of ranks, this rank and its pieces of the traces, so
 *	that a resumed split run must cut them alike.
 */
void
RbCkptSplit(RbCkpt *ck, int rank, int size, const RbMpiPiece *pieces,
	int npieces)
{
    Tcl_Obj *l;
    int i;

    if (!ck->active) {
	return;
    }
    if (ck->path) {
	ck->path = ck->rankPath = Rb_Strdup(Tcl_GetString(Tcl_ObjPrintf(
		"%s.%d", ck->path, rank)));
    }
    if (ck->resume) {
	ck->resume = ck->rankResume = Rb_Strdup(Tcl_GetString(Tcl_ObjPrintf(
		"%s.%d", ck->resume, rank)));
    }
    l = Tcl_NewListObj(0, NULL);
    for (i = 0; i < npieces; i++) {
	Tcl_ListObjAppendElement(NULL, l, Tcl_ObjPrintf("%d %d %llu %llu",
		pieces[i].file, pieces[i].kind,
		(unsigned long long)pieces[i].begin,
		(unsigned long long)pieces[i].end));
    }
    ck->split = Tcl_ObjPrintf("%d %d {%s}", size, rank, Tcl_GetString(l));
    Tcl_IncrRefCount(ck->split);
    Tcl_DecrRefCount(Tcl_NewListObj(1, &l));
}

/*
 * RbCkptAgree --
 *	In a split run, once each rank has checked and loaded its checkpoint
 *	(rc): whether every rank can go on.  With -resume, a rank whose file
 *	is missing (killed before its first checkpoint) reads its share from
 *	the start, unless no rank has one, which is an error.
 * Results: TCL_OK, or TCL_ERROR on every rank, rank 0's interp saying
 *	why (naming the rank that refused).
 */
int
RbCkptAgree(Tcl_Interp *interp, RbCkpt *ck, int rc)
{
    int found = ck->resumed;
    const char *dot;

    if (RbMpiAgree(interp, rc == TCL_OK, &found) != TCL_OK) {
	return TCL_ERROR;
    }
    if (ck->resume && found == 0) {
	dot = strrchr(ck->resume, '.');
	return Rb_SetInterpError(interp, "RUBICON CHECKPOINT OPEN",
		"no checkpoint of this split run: none of %.*s.0 to %.*s.%d "
		"exists", (int)(dot - ck->resume), ck->resume,
		(int)(dot - ck->resume), ck->resume, RbMpiSize() - 1);
    }
    if (ck->missing) {
	fprintf(stderr, "rubicon: rank %d: no checkpoint \"%s\" (stopped "
		"before its first): reading its share from the start\n",
		RbMpiRank(), ck->resume);
    }
    return TCL_OK;
}

/*
 * RbCkptCheckInputs --
 *	Before the first trace is opened: refuses what cannot be read again
 *	(standard input, pipes, devices, records given in Tcl) and runs
 *	split over MPI ranks.
 * Results: TCL_OK, or TCL_ERROR saying why.
 */
int
RbCkptCheckInputs(Tcl_Interp *interp, RbCkpt *ck, int n,
	Tcl_Obj *const paths[], int split, int records)
{
    int i;

    if (!ck->active) {
	return TCL_OK;
    }
    if (split && RbMpiSweep()) {
	return Rb_SetInterpError(interp, "RUBICON CHECKPOINT SPLIT",
		"-checkpoint and -resume are not available in a sweep "
		"(-sweep 1): every rank reads every trace; run the sweep "
		"without them");
    }
    if (records) {
	return Rb_SetInterpError(interp, "RUBICON CHECKPOINT INPUT",
		"-checkpoint and -resume need trace files: records given with "
		"-records cannot be read again");
    }
    for (i = 0; i < n; i++) {
	struct stat sb;
	const char *p = Tcl_GetString(paths[i]);

	if (strcmp(p, RB_INPUT_STDIN) == 0 || stat(p, &sb) != 0
		|| !S_ISREG(sb.st_mode)) {
	    return Rb_SetInterpError(interp, "RUBICON CHECKPOINT INPUT",
		    "%s: -checkpoint and -resume need trace files that can "
		    "be read again; standard input, pipes and devices cannot",
		    p);
	}
    }
    return TCL_OK;
}

/*
 * RbCkptCheck --
 *	Once the DAG has started, before reading: refuses a DAG that cannot
 *	merge partial results and, in safe mode, files outside its
 *	directories; takes the fingerprint of the configuration, the DAG,
 *	the run's options (runOpts) and the traces.
 * Results: TCL_OK, or TCL_ERROR saying why.
 */
int
RbCkptCheck(Tcl_Interp *interp, RbCkpt *ck, Rb_Engine *eng, Rb_Flow **flows,
	int nflows, const char *config, int n, Tcl_Obj *const paths[],
	Tcl_Obj *runOpts)
{
    Tcl_Obj *fp, *traces, *dag;
    int i;

    if (!ck->active) {
	return TCL_OK;
    }
    if (RbMpiCheckSplit(interp, eng, flows, nflows, 1) != TCL_OK
	    || (ck->path && Rb_SafeCheckWrite(interp, ck->path) != TCL_OK)
	    || (ck->resume && Rb_SafeCheckRead(interp, ck->resume) != TCL_OK)) {
	return TCL_ERROR;
    }
    if (ck->path) {
	struct stat sb;

	if (lstat(ck->path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
	    return Rb_SetInterpError(interp, "RUBICON CHECKPOINT WRITE",
		    "checkpoint \"%s\" exists and is not a regular file; "
		    "name a file", ck->path);
	}
	/* A run killed while writing one left its temporary file. */
	RbOutRemoveStale(ck->path);
    }
    if (ck->resume) {
	RbOutRemoveStale(ck->resume);
    }
    fp = Tcl_NewListObj(0, NULL);
    Tcl_ListObjAppendElement(NULL, fp, Tcl_NewStringObj("dag", -1));
    dag = DagFingerprint(interp, flows, nflows);
    Tcl_ListObjAppendElement(NULL, dag, runOpts);
    Tcl_ListObjAppendElement(NULL, fp, dag);
    Tcl_ListObjAppendElement(NULL, fp, Tcl_NewStringObj("config", -1));
    if (config && *config) {
	Tcl_ListObjAppendElement(NULL, fp, TraceFingerprint(config));
    } else {
	Tcl_ListObjAppendElement(NULL, fp, Tcl_NewListObj(0, NULL));
    }
    traces = Tcl_NewListObj(0, NULL);
    for (i = 0; i < n; i++) {
	Tcl_ListObjAppendElement(NULL, traces,
		TraceFingerprint(Tcl_GetString(paths[i])));
    }
    Tcl_ListObjAppendElement(NULL, fp, Tcl_NewStringObj("traces", -1));
    Tcl_ListObjAppendElement(NULL, fp, traces);
    Tcl_ListObjAppendElement(NULL, fp, Tcl_NewStringObj("split", -1));
    Tcl_ListObjAppendElement(NULL, fp, ck->split ? ck->split
	    : Tcl_NewListObj(0, NULL));
    ck->fingerprint = fp;
    Tcl_IncrRefCount(fp);
    return TCL_OK;
}

/*
 * Mismatch --
 *	Why the fingerprint of a checkpoint (was) and of this run (now)
 *	differ, as a sentence; NULL when they agree.
 */
static Tcl_Obj *
Mismatch(Tcl_Obj *was, Tcl_Obj *now)
{
    Tcl_Obj *w, *n, **wv, **nv;
    int wc, nc, i;

    if (strcmp(Tcl_GetString(was), Tcl_GetString(now)) == 0) {
	return NULL;
    }
    if (Tcl_ListObjIndex(NULL, was, 1, &w) != TCL_OK || w == NULL
	    || Tcl_ListObjIndex(NULL, now, 1, &n) != TCL_OK || n == NULL
	    || strcmp(Tcl_GetString(w), Tcl_GetString(n)) != 0) {
	return Tcl_NewStringObj("the DAG (its nodes, Analyzers or their "
		"options) or the run's options (-format, -onerror, -merge, "
		"-readeroptions) are not those the checkpoint was taken with",
		-1);
    }
    Tcl_ListObjIndex(NULL, was, 3, &w);
    Tcl_ListObjIndex(NULL, now, 3, &n);
    if (w == NULL || n == NULL
	    || strcmp(Tcl_GetString(w), Tcl_GetString(n)) != 0) {
	return Tcl_NewStringObj("the configuration script has changed since "
		"the checkpoint", -1);
    }
    Tcl_ListObjIndex(NULL, was, 7, &w);
    Tcl_ListObjIndex(NULL, now, 7, &n);
    if (w == NULL || n == NULL
	    || strcmp(Tcl_GetString(w), Tcl_GetString(n)) != 0) {
	Tcl_Obj *ws = NULL, *ns = NULL;

	if (w) {
	    Tcl_ListObjIndex(NULL, w, 0, &ws);
	}
	if (n) {
	    Tcl_ListObjIndex(NULL, n, 0, &ns);
	}
	if (!ws || !ns || strcmp(Tcl_GetString(ws), Tcl_GetString(ns)) != 0) {
	    return Tcl_ObjPrintf("the checkpoint was taken by a run %s%s%s, "
		    "this run is %s%s%s (resume with as many ranks)",
		    ws ? "split over " : "in one process",
		    ws ? Tcl_GetString(ws) : "", ws ? " ranks" : "",
		    ns ? "split over " : "in one process",
		    ns ? Tcl_GetString(ns) : "", ns ? " ranks" : "");
	}
	return Tcl_NewStringObj("this rank's share of the traces is not the "
		"one the checkpoint was taken of", -1);
    }
    Tcl_ListObjIndex(NULL, was, 5, &w);
    Tcl_ListObjIndex(NULL, now, 5, &n);
    if (w == NULL || n == NULL
	    || Tcl_ListObjGetElements(NULL, w, &wc, &wv) != TCL_OK
	    || Tcl_ListObjGetElements(NULL, n, &nc, &nv) != TCL_OK) {
	return Tcl_NewStringObj("the traces are not those of the checkpoint",
		-1);
    }
    if (wc != nc) {
	return Tcl_ObjPrintf("the checkpoint was taken of %d traces, this run "
		"has %d", wc, nc);
    }
    for (i = 0; i < wc; i++) {
	static const char *const what[] = {"name", "size",
	    "modification time", "first MiB", "last MiB"};
	Tcl_Obj **a, **b;
	int ac, bc, k;

	if (strcmp(Tcl_GetString(wv[i]), Tcl_GetString(nv[i])) == 0) {
	    continue;
	}
	Tcl_ListObjGetElements(NULL, wv[i], &ac, &a);
	Tcl_ListObjGetElements(NULL, nv[i], &bc, &b);
	for (k = 0; k < ac && k < bc && k < 5; k++) {
	    if (strcmp(Tcl_GetString(a[k]), Tcl_GetString(b[k])) != 0) {
		return k == 0 ? Tcl_ObjPrintf("trace %d is %s now, %s at the "
			"checkpoint", i + 1, Tcl_GetString(b[0]),
			Tcl_GetString(a[0]))
			: Tcl_ObjPrintf("%s has changed since the checkpoint "
			"(its %s differs)", Tcl_GetString(b[0]), what[k]);
	    }
	}
	return Tcl_ObjPrintf("%s has changed since the checkpoint",
		Tcl_GetString(bc ? b[0] : nv[i]));
    }
    return Tcl_NewStringObj("the run is not the one the checkpoint was "
	    "taken of", -1);
}

/*
 * RbCkptLoad --
 *	For -resume: reads the checkpoint, checks it whole (magic, CRC) and
 *	against this run's fingerprint, and keeps its position, counts and
 *	shards for the run.
 * Results: TCL_OK, or TCL_ERROR naming the file and why it is refused.
 */
int
RbCkptLoad(Tcl_Interp *interp, RbCkpt *ck)
{
    Rb_Buf b;
    Tcl_Obj *fp, *why;
    FILE *f;
    long size;
    size_t magic = sizeof(CKPT_MAGIC) - 1;
    uLong crc;
    int64_t stored, i;

    if (ck->resume == NULL) {
	return TCL_OK;
    }
    memset(&b, 0, sizeof(b));
    if ((f = fopen(ck->resume, "rb")) == NULL && errno == ENOENT
	    && ck->split != NULL) {
	ck->missing = 1;		/* see RbCkptAgree */
	return TCL_OK;
    }
    if (f == NULL) {
	return Rb_SetInterpError(interp, "RUBICON CHECKPOINT OPEN",
		"cannot read checkpoint \"%s\": %s", ck->resume,
		strerror(errno));
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0
	    || fseek(f, 0, SEEK_SET) != 0) {
	fclose(f);
	return Rb_SetInterpError(interp, "RUBICON CHECKPOINT OPEN",
		"cannot read checkpoint \"%s\": not a regular file",
		ck->resume);
    }
    b.data = Rb_Alloc((size_t)size + 1);
    b.len = b.cap = fread(b.data, 1, (size_t)size, f);
    fclose(f);
    if (b.len < magic + 8 || memcmp(b.data, CKPT_MAGIC, magic) != 0) {
	Rb_BufFree(&b);
	return Rb_SetInterpError(interp, "RUBICON CHECKPOINT FORMAT",
		"\"%s\" is not a Rubicon checkpoint (version 1)", ck->resume);
    }
    crc = crc32(crc32(0L, Z_NULL, 0), b.data, (uInt)(b.len - 8));
    b.pos = b.len - 8;
    stored = Rb_BufGetInt(&b);
    if ((uLong)stored != crc) {
	Rb_BufFree(&b);
	return Rb_SetInterpError(interp, "RUBICON CHECKPOINT FORMAT",
		"checkpoint \"%s\" is damaged (its CRC-32 does not match; "
		"truncated or overwritten)", ck->resume);
    }
    b.len -= 8;
    b.pos = magic;
    fp = RbGetObj(&b);
    Tcl_IncrRefCount(fp);
    if ((why = Mismatch(fp, ck->fingerprint)) != NULL) {
	Tcl_DecrRefCount(fp);
	Rb_BufFree(&b);
	Tcl_SetObjResult(interp, Tcl_ObjPrintf("checkpoint \"%s\" does not "
		"match this run: %s", ck->resume, Tcl_GetString(why)));
	Tcl_DecrRefCount(Tcl_NewListObj(1, &why));
	Tcl_SetErrorCode(interp, "RUBICON", "CHECKPOINT", "MISMATCH", NULL);
	return TCL_ERROR;
    }
    Tcl_DecrRefCount(fp);
    ck->file = (int)Rb_BufGetInt(&b);
    ck->fileRecords = (uint64_t)Rb_BufGetInt(&b);
    ck->offset = (uint64_t)Rb_BufGetInt(&b);
    ck->records = (uint64_t)Rb_BufGetInt(&b);
    ck->skipped = (uint64_t)Rb_BufGetInt(&b);
    ck->gridFirst = Rb_BufGetInt(&b);
    ck->localFirst = Rb_BufGetInt(&b);
    ck->lastTime = Rb_BufGetInt(&b);
    ck->skipCounts = RbGetObj(&b);
    Tcl_IncrRefCount(ck->skipCounts);
    ck->files = RbGetObj(&b);
    Tcl_IncrRefCount(ck->files);
    ck->nshards = (int)Rb_BufGetCount(&b, 8);
    ck->shards = Rb_AllocArray(ck->nshards + 1, sizeof(Rb_Buf));
    for (i = 0; i < ck->nshards && !b.bad; i++) {
	size_t len;
	const char *s = Rb_BufGetString(&b, &len);

	if (s != NULL) {
	    Rb_BufPutBytes(&ck->shards[i], s, len);
	}
    }
    if (b.bad || b.pos != b.len || ck->file < 0) {
	Rb_BufFree(&b);
	return Rb_SetInterpError(interp, "RUBICON CHECKPOINT FORMAT",
		"checkpoint \"%s\" is damaged (its contents do not parse)",
		ck->resume);
    }
    Rb_BufFree(&b);
    ck->resumed = 1;
    return TCL_OK;
}

/*
 * RbCkptDue --
 *	Whether a checkpoint is due after the run has read records records
 *	in all.
 */
int
RbCkptDue(RbCkpt *ck, uint64_t records, double now)
{
    if (ck->path == NULL) {
	return 0;
    }
    if (ck->lastAt == 0) {
	ck->lastAt = now;		/* the clock starts with the run */
	ck->lastRecords = records;
    }
    return ck->everyRecords > 0
	    ? records - ck->lastRecords >= (uint64_t)ck->everyRecords
	    : now - ck->lastAt >= ck->everySeconds;
}

/*
 * WriteAtomically --
 *	Writes b's bytes to path.tmp-PID, syncs it, renames it onto path and
 *	syncs the directory; its bytes count against safe mode's -outlimit.
 * Results: TCL_OK, or TCL_ERROR naming the file and the system error
 *	(or RUBICON SAFE LIMIT OUTPUT, nothing written).
 */
static int
WriteAtomically(Tcl_Interp *interp, const char *path, const Rb_Buf *b)
{
    Tcl_DString tmp;
    char *dirCopy;
    size_t done = 0;
    int fd, dfd, rc = TCL_OK;

    /* Safe mode's -outlimit counts every checkpoint written. */
    if (!RbSafeOutputTake(RbEngineGet(interp), b->len)) {
	return RbSafeOutputError(interp, path);
    }
    Tcl_DStringInit(&tmp);
    Tcl_DStringAppend(&tmp, path, -1);
    Tcl_DStringAppend(&tmp, Tcl_GetString(Tcl_ObjPrintf(".tmp-%ld",
	    (long)getpid())), -1);
    fd = open(Tcl_DStringValue(&tmp), O_WRONLY | O_CREAT | O_TRUNC
	    | O_CLOEXEC, 0644);
    while (fd >= 0 && done < b->len) {
	ssize_t put = write(fd, b->data + done, b->len - done);

	if (put < 0 && errno == EINTR) {
	    continue;
	}
	if (put <= 0) {
	    break;
	}
	done += (size_t)put;
    }
    if (fd < 0 || done < b->len || fsync(fd) != 0 || close(fd) != 0
	    || rename(Tcl_DStringValue(&tmp), path) != 0) {
	int e = errno;

	if (fd >= 0) {
	    close(fd);
	    unlink(Tcl_DStringValue(&tmp));
	}
	rc = Rb_SetInterpError(interp, "RUBICON CHECKPOINT WRITE",
		"cannot write checkpoint \"%s\": %s", path,
		e ? strerror(e) : "short write");
    } else {
	dirCopy = Rb_Strdup(path);
	if ((dfd = open(dirname(dirCopy), O_RDONLY | O_DIRECTORY)) >= 0) {
	    fsync(dfd);
	    close(dfd);
	}
	free(dirCopy);
    }
    Tcl_DStringFree(&tmp);
    return rc;
}

/*
 * RbCkptWrite --
 *	Takes a checkpoint: this run's state (and, in a resumed run, the
 *	shards before it) with the position: trace index file, fileRecords
 *	of its records read (all of which have gone through the DAG), its
 *	input offset; skipped and skipCounts are the run's so far, the
 *	current reader's included.
 * Results: TCL_OK, or TCL_ERROR (RUBICON CHECKPOINT WRITE, or an
 *	Analyzer's serialize error).
 */
int
RbCkptWrite(Tcl_Interp *interp, RbCkpt *ck, Rb_Flow **flows, int nflows,
	const Rb_RunInfo *run, int64_t gridFirst, int64_t localFirst,
	int file, uint64_t fileRecords, uint64_t offset, uint64_t skipped,
	Tcl_Obj *skipCounts, Tcl_Obj *files, double now)
{
    Rb_Buf b, own;
    int i, rc;
    Tcl_Obj *allFiles = RbCkptFiles(ck, files);

    memset(&b, 0, sizeof(b));
    memset(&own, 0, sizeof(own));
    Tcl_IncrRefCount(allFiles);
    if (RbSerializeFlows(interp, flows, nflows, run, &own) != TCL_OK) {
	Tcl_DecrRefCount(allFiles);
	Rb_BufFree(&own);
	return TCL_ERROR;
    }
    Rb_BufPutBytes(&b, CKPT_MAGIC, sizeof(CKPT_MAGIC) - 1);
    RbPutObj(&b, ck->fingerprint);
    Rb_BufPutInt(&b, file);
    Rb_BufPutInt(&b, (int64_t)fileRecords);
    Rb_BufPutInt(&b, (int64_t)offset);
    Rb_BufPutInt(&b, (int64_t)(run->records + ck->records));
    Rb_BufPutInt(&b, (int64_t)(skipped + ck->skipped));
    Rb_BufPutInt(&b, gridFirst);
    Rb_BufPutInt(&b, ck->resumed && ck->localFirst < localFirst
	    ? ck->localFirst : localFirst);
    Rb_BufPutInt(&b, ck->resumed && ck->lastTime > run->lastTime
	    ? ck->lastTime : run->lastTime);
    {
	Tcl_Obj *counts = Tcl_DuplicateObj(ck->skipCounts ? ck->skipCounts
		: Tcl_NewDictObj());
	Tcl_DictSearch s;
	Tcl_Obj *k, *v;
	int done;

	Tcl_IncrRefCount(counts);
	if (Tcl_DictObjFirst(NULL, skipCounts, &s, &k, &v, &done) == TCL_OK) {
	    for (; !done; Tcl_DictObjNext(&s, &k, &v, &done)) {
		Tcl_Obj *old;
		Tcl_WideInt a = 0, c = 0;

		if (Tcl_DictObjGet(NULL, counts, k, &old) == TCL_OK && old) {
		    Tcl_GetWideIntFromObj(NULL, old, &a);
		}
		Tcl_GetWideIntFromObj(NULL, v, &c);
		Tcl_DictObjPut(NULL, counts, k, Tcl_NewWideIntObj(a + c));
	    }
	    Tcl_DictObjDone(&s);
	}
	RbPutObj(&b, counts);
	Tcl_DecrRefCount(counts);
    }
    RbPutObj(&b, allFiles);
    Tcl_DecrRefCount(allFiles);
    Rb_BufPutInt(&b, ck->nshards + 1);
    for (i = 0; i < ck->nshards; i++) {
	Rb_BufPutString(&b, (const char *)ck->shards[i].data,
		ck->shards[i].len);
    }
    Rb_BufPutString(&b, (const char *)own.data, own.len);
    Rb_BufFree(&own);
    Rb_BufPutInt(&b, (int64_t)crc32(crc32(0L, Z_NULL, 0), b.data,
	    (uInt)b.len));
    if (b.bad) {
	Rb_BufFree(&b);
	return Rb_SetInterpError(interp, "RUBICON CHECKPOINT WRITE",
		"out of memory writing checkpoint \"%s\"", ck->path);
    }
    rc = WriteAtomically(interp, ck->path, &b);
    Rb_BufFree(&b);
    ck->lastAt = now;
    ck->lastRecords = run->records;
    ck->written++;
    return rc;
}

/*
 * RbCkptFiles --
 *	The files a resumed run has read: the checkpoint's, then this run's
 *	(the trace it resumed in listed once).
 */
Tcl_Obj *
RbCkptFiles(RbCkpt *ck, Tcl_Obj *files)
{
    Tcl_Obj *all, **fv, *last = NULL;
    int nf, i, n;

    if (!ck->resumed) {
	return files;
    }
    all = Tcl_DuplicateObj(ck->files);
    if (Tcl_ListObjGetElements(NULL, files, &nf, &fv) != TCL_OK) {
	return all;
    }
    Tcl_ListObjLength(NULL, all, &n);
    for (i = 0; i < nf; i++) {
	int k, seen = 0;

	for (k = 0; k < n && !seen; k++) {
	    Tcl_ListObjIndex(NULL, all, k, &last);
	    seen = strcmp(Tcl_GetString(last), Tcl_GetString(fv[i])) == 0;
	}
	if (!seen) {
	    Tcl_ListObjAppendElement(NULL, all, fv[i]);
	}
    }
    return all;
}

/*
 * RbCkptMergeBefore --
 *	At the end of a resumed run's reading: makes every Analyzer hold the
 *	whole run, the checkpoint's shards merged in order before its own
 *	state (a fresh instance takes each shard, then this run's state,
 *	through deserialize and merge, and its state becomes the
 *	Analyzer's), and adds the checkpoint's counts and times to run and
 *	its Flows.
 * Results: TCL_OK, or TCL_ERROR with the error in interp.
 */
int
RbCkptMergeBefore(Tcl_Interp *interp, RbCkpt *ck, Rb_Flow **flows,
	int nflows, Rb_RunInfo *run)
{
    Rb_Buf *sh = Rb_AllocArray(ck->nshards + 1, sizeof(Rb_Buf));
    int i, j, s, rc = TCL_OK;

    if (!ck->resumed) {
	free(sh);
	return TCL_OK;
    }
    run->records += ck->records;
    run->skipped += ck->skipped;
    RbMergeSkipCounts(run, ck->skipCounts);
    if (ck->localFirst < run->firstTime) {
	run->firstTime = ck->localFirst;
    }
    if (ck->lastTime > run->lastTime) {
	run->lastTime = ck->lastTime;
    }
    for (s = 0; s < ck->nshards; s++) {
	sh[s] = ck->shards[s];
	sh[s].pos = 0;
	if (Rb_BufGetInt(&sh[s]) != nflows) {
	    free(sh);
	    return Rb_SetInterpError(interp, "RUBICON CHECKPOINT MISMATCH",
		    "checkpoint \"%s\" holds another number of Flows",
		    ck->resume);
	}
    }
    for (i = 0; i < nflows && rc == TCL_OK; i++) {
	for (s = 0; s < ck->nshards; s++) {
	    flows[i]->recordCount += (uint64_t)Rb_BufGetInt(&sh[s]);
	    if (Rb_BufGetInt(&sh[s]) != flows[i]->nanalyzers) {
		rc = Rb_SetInterpError(interp, "RUBICON CHECKPOINT MISMATCH",
			"checkpoint \"%s\" holds another number of Analyzers "
			"in Flow %s", ck->resume, flows[i]->name);
	    }
	}
	for (j = 0; j < flows[i]->nanalyzers && rc == TCL_OK; j++) {
	    Rb_Analyzer *a = flows[i]->analyzers[j], *whole;
	    Rb_Buf live;
	    void *t;

	    if ((whole = RbCloneAnalyzer(interp, a, run)) == NULL) {
		rc = TCL_ERROR;
		break;
	    }
	    for (s = 0; s < ck->nshards && rc == TCL_OK; s++) {
		size_t nameLen, len;
		const char *name = Rb_BufGetString(&sh[s], &nameLen);
		const unsigned char *data;

		len = (size_t)Rb_BufGetCount(&sh[s], 1);
		data = (const unsigned char *)Rb_BufGetBytes(&sh[s], len);
		if (sh[s].bad || nameLen != strlen(a->cls->name)
			|| memcmp(name, a->cls->name, nameLen) != 0) {
		    rc = Rb_SetInterpError(interp,
			    "RUBICON CHECKPOINT MISMATCH", "checkpoint \"%s\" "
			    "holds no state of class %s for %s", ck->resume,
			    a->cls->name, a->cmdName);
		} else {
		    rc = RbMergeState(interp, whole, a, run, data, len,
			    "the checkpoint");
		}
	    }
	    memset(&live, 0, sizeof(live));
	    if (rc == TCL_OK && a->cls->serialize(a, run, &live) != TCL_OK) {
		if (RbAnalyzerTakeError(interp, a) == TCL_OK) {
		    Rb_SetInterpError(interp, "RUBICON MERGE SERIALIZE",
			    "%s: cannot serialize its state", a->cmdName);
		}
		rc = TCL_ERROR;
	    }
	    if (rc == TCL_OK) {
		rc = RbMergeState(interp, whole, a, run, live.data, live.len,
			"the resumed run");
	    }
	    Rb_BufFree(&live);
	    if (rc == TCL_OK) {
		/* The whole run's state becomes the Analyzer's. */
		t = a->state;
		a->state = whole->state;
		whole->state = t;
	    }
	    RbAnalyzerDelete(whole);
	}
    }
    free(sh);
    return rc;
}

/*
 * RbCkptDone --
 *	After the run: removes the -checkpoint file when the run read every
 *	trace to its end (a resumed run would have nothing left to do), and
 *	frees what was loaded.
 */
void
RbCkptDone(RbCkpt *ck, int complete)
{
    int i;

    if (ck->path && complete) {
	unlink(ck->path);
    }
    if (ck->fingerprint) {
	Tcl_DecrRefCount(ck->fingerprint);
    }
    if (ck->skipCounts) {
	Tcl_DecrRefCount(ck->skipCounts);
    }
    if (ck->files) {
	Tcl_DecrRefCount(ck->files);
    }
    for (i = 0; i < ck->nshards; i++) {
	Rb_BufFree(&ck->shards[i]);
    }
    free(ck->shards);
    free(ck->rankPath);
    free(ck->rankResume);
    if (ck->split) {
	Tcl_DecrRefCount(ck->split);
    }
    RbSetCheckpointMode(0, 0);
    memset(ck, 0, sizeof(*ck));
}
