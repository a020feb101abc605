/*
 * blktrace.c --
 *
 *	Reader of blktrace's binary files: struct blk_io_trace records (48
 *	bytes, then pdu_len bytes of payload) in the byte order of the
 *	machine that traced, one file per CPU (name.blktrace.N).  Given one
 *	of them, the reader also opens its siblings and merges their events
 *	by time, as blkparse does; the events are then paired into I/O
 *	records by blkpair.c, so no blkparse run is needed.  See
 *	doc/blktrace.n.
 */

#include <dirent.h>
#include "io/blkpair.h"
#include "io/readers.h"

#define TRACE_MAGIC	0x65617400u	/* BLK_IO_TRACE_MAGIC */
#define TRACE_VERSION	0x07u
#define HDR_LEN		48
#define PDU_MAX		65536
#define MAX_CPUS	1024

/* Action codes (low 16 bits) and category bits (high 16) of the kernel's
 * blktrace_api.h. */
enum {
    TA_QUEUE = 1, TA_BACKMERGE, TA_FRONTMERGE, TA_GETRQ, TA_SLEEPRQ,
    TA_REQUEUE, TA_ISSUE, TA_COMPLETE, TA_PLUG, TA_UNPLUG_IO,
    TA_UNPLUG_TIMER, TA_INSERT, TA_SPLIT, TA_BOUNCE, TA_REMAP
};
#define TC_WRITE	(1u << 1)
#define TC_FLUSH	(1u << 2)
#define TC_SYNC		(1u << 3)
#define TC_NOTIFY	(1u << 10)
#define TC_AHEAD	(1u << 11)
#define TC_META		(1u << 12)
#define TC_DISCARD	(1u << 13)
#define TC_FUA		(1u << 15)

typedef struct CpuFile {
    Rb_Input *in;		/* r->in for the file given, else owned */
    char *path;
    unsigned char pdu[PDU_MAX];
    int swap;			/* Traced on a machine of the other order. */
    int have, done;		/* ev holds its next event; no more. */
    Rb_BlkEvent ev;
    uint64_t time;		/* raw time of ev */
    uint64_t recNo;
} CpuFile;

typedef struct BlktraceState {
    Rb_Text tx;			/* Only its deferred-error state is used. */
    Rb_BlkPair *pair;
    int nfiles;
    CpuFile **files;
    uint64_t genesis;		/* Earliest raw time: trace time 0. */
} BlktraceState;

/*
 * Get32, Get64 --
 *	A 32- or 64-bit word at p, little-endian unless swap.
 */
static uint32_t
Get32(const unsigned char *p, int swap)
{
    return swap ? ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16
	    | (uint32_t)p[2] << 8 | p[3])
	    : ((uint32_t)p[3] << 24 | (uint32_t)p[2] << 16
	    | (uint32_t)p[1] << 8 | p[0]);
}

static uint64_t
Get64(const unsigned char *p, int swap)
{
    return swap ? (uint64_t)Get32(p, 1) << 32 | Get32(p + 4, 1)
	    : (uint64_t)Get32(p + 4, 0) << 32 | Get32(p, 0);
}

/*
 * MagicOrder --
 *	Whether p starts a trace record: 0 little-endian, 1 big-endian,
 *	-1 neither.
 */
static int
MagicOrder(const unsigned char *p)
{
    if ((Get32(p, 0) & 0xffffff00u) == TRACE_MAGIC) {
	return 0;
    }
    if ((Get32(p, 1) & 0xffffff00u) == TRACE_MAGIC) {
	return 1;
    }
    return -1;
}

static int
BlktraceSniff(const unsigned char *head, size_t n)
{
    return n >= HDR_LEN && MagicOrder(head) >= 0 ? 95 : 0;
}

/*
 * ToEvent --
 *	A record (header h, payload pdu) as an event; notify records
 *	(process names, messages) are not events.
 * Results: 1 an event, 0 a record to pass over.
 */
static int
ToEvent(const unsigned char *h, const unsigned char *pdu, int pduLen,
	int swap, Rb_BlkEvent *ev)
{
    uint32_t action = Get32(h + 28, swap), cat = action >> 16;
    static const char codes[] = {
	[TA_QUEUE] = 'Q', [TA_BACKMERGE] = 'M', [TA_FRONTMERGE] = 'F',
	[TA_GETRQ] = 'G', [TA_SLEEPRQ] = 'S', [TA_REQUEUE] = 'R',
	[TA_ISSUE] = 'D', [TA_COMPLETE] = 'C', [TA_PLUG] = 'P',
	[TA_UNPLUG_IO] = 'U', [TA_UNPLUG_TIMER] = 'T', [TA_INSERT] = 'I',
	[TA_SPLIT] = 'X', [TA_BOUNCE] = 'B', [TA_REMAP] = 'A',
    };

    if (cat & TC_NOTIFY) {
	return 0;
    }
    action &= 0xffff;
    ev->action = action < sizeof(codes) && codes[action] ? codes[action]
	    : '?';
    ev->sector = Get64(h + 16, swap);
    ev->bytes = Get32(h + 24, swap);
    ev->pid = Get32(h + 32, swap);
    ev->dev = Get32(h + 36, swap);
    ev->error = (int16_t)(swap ? h[44] << 8 | h[45] : h[45] << 8 | h[44]);
    /* The RWBS letters as blkparse derives them. */
    ev->flags = (cat & TC_DISCARD) ? RB_BLK_DISCARD
	    : (cat & TC_WRITE) ? RB_BLK_WRITE
	    : ev->bytes ? RB_BLK_READ : 0;
    ev->flags |= ((cat & TC_FLUSH) ? RB_BLK_PREFLUSH : 0)
	    | ((cat & TC_FUA) ? RB_BLK_FUA : 0)
	    | ((cat & TC_SYNC) ? RB_BLK_SYNC : 0)
	    | ((cat & TC_META) ? RB_BLK_META : 0)
	    | ((cat & TC_AHEAD) ? RB_BLK_AHEAD : 0);
    if (ev->bytes == 0 && ev->action != 'C') {
	ev->sector = RB_BLK_NOSECTOR;	/* blkparse shows none either */
    }
    /* Payloads are big-endian whatever the trace's order. */
    if (ev->action == 'A' && pduLen >= 16) {
	ev->fromDev = Get32(pdu, 1);
	ev->fromSector = Get64(pdu + 8, 1);
    } else if (ev->action == 'X' && pduLen >= 8) {
	ev->fromSector = Get64(pdu, 1);
    }
    return 1;
}

/*
 * ReadSome --
 *	Reads up to n bytes of f, fewer only at the end of the file.
 * Results: bytes read, or -1 on an input failure (tx.pending set).
 */
static long
ReadSome(BlktraceState *st, CpuFile *f, unsigned char *buf, size_t n)
{
    size_t got = 0;

    while (got < n) {
	long more = Rb_InputRead(f->in, buf + got, n - got, &st->tx.pending);

	if (more < 0) {
	    return -1;
	}
	if (more == 0) {
	    break;
	}
	got += (size_t)more;
    }
    return (long)got;
}

/*
 * Advance --
 *	Reads f's next event into f->ev (f->have), or marks it done.
 *	Malformed records go through the error policy: a bad magic number
 *	stops (the next record cannot be found), a record cut short by the
 *	end of the file is "short-record".
 * Results: 0, or -1 when reading must stop (tx.pending set).
 */
static int
Advance(Rb_Reader *r, BlktraceState *st, CpuFile *f)
{
    unsigned char h[HDR_LEN];

    f->have = 0;
    while (!f->done) {
	uint64_t offset = Rb_InputOffset(f->in);
	long got = ReadSome(st, f, h, HDR_LEN), pduGot = 0;
	int pduLen = 0, order;

	if (got < 0) {
	    return -1;
	}
	if (got == 0) {
	    f->done = 1;
	    break;
	}
	r->recordNo = ++f->recNo;
	order = got == HDR_LEN ? MagicOrder(h) : 0;
	if (got == HDR_LEN && (order < 0 || h[order ? 3 : 0] != TRACE_VERSION)) {
	    f->done = 1;
	    RbReaderBadFatal(r, &st->tx.pending, "bad-magic", offset,
		    "%s: magic 0x%08x is not blktrace's 0x%08x", f->path,
		    Get32(h, 0), TRACE_MAGIC | TRACE_VERSION);
	    return -1;
	}
	if (got == HDR_LEN) {
	    pduLen = order ? h[46] << 8 | h[47] : h[47] << 8 | h[46];
	    pduGot = ReadSome(st, f, f->pdu, (size_t)pduLen);
	    if (pduGot < 0) {
		return -1;
	    }
	}
	if (got < HDR_LEN || pduGot < pduLen) {
	    f->done = 1;
	    return Rb_ReaderBad(r, &st->tx.pending, "short-record", offset,
		    "%s: the file ends inside a record", f->path) ? -1 : 0;
	}
	memset(&f->ev, 0, sizeof(f->ev));
	if (!ToEvent(h, f->pdu, pduLen, order, &f->ev)) {
	    continue;
	}
	f->time = Get64(h + 8, order);
	f->ev.recNo = f->recNo;
	f->ev.offset = offset;
	f->have = 1;
	break;
    }
    return 0;
}

/*
 * CpuNumber --
 *	The N of a "NAME.blktrace.N" path.
 */
static long
CpuNumber(Tcl_Obj *path)
{
    const char *s = strrchr(Tcl_GetString(path), '.');

    return s ? atol(s + 1) : 0;
}

/*
 * CompareCpu --
 *	qsort order of sibling paths: by CPU number.
 */
static int
CompareCpu(const void *a, const void *b)
{
    long x = CpuNumber(*(Tcl_Obj *const *)a);
    long y = CpuNumber(*(Tcl_Obj *const *)b);

    return x < y ? -1 : x > y;
}

/*
 * SiblingPaths --
 *	The other per-CPU files of path "DIR/NAME.blktrace.N": every
 *	"NAME.blktrace.M" in DIR with M a number, other than path itself,
 *	by CPU number.
 * Results: a list object (refcount 0), empty when path is not so named.
 */
static Tcl_Obj *
SiblingPaths(const char *path)
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL), **elems, **sorted, *result;
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    const char *mark = strstr(base, ".blktrace.");
    size_t prefix;
    int n;
    DIR *dir;
    struct dirent *de;
    Tcl_DString d;

    if (mark == NULL || mark[10] == '\0'
	    || strspn(mark + 10, "0123456789") != strlen(mark + 10)) {
	return list;
    }
    prefix = (size_t)(mark - base) + 10;
    Tcl_DStringInit(&d);
    Tcl_DStringAppend(&d, path, slash ? (int)(slash - path) + 1 : 0);
    dir = opendir(slash ? Tcl_DStringValue(&d) : ".");
    while (dir != NULL && (de = readdir(dir)) != NULL) {
	const char *name = de->d_name;

	if (strncmp(name, base, prefix) == 0 && name[prefix] != '\0'
		&& strspn(name + prefix, "0123456789") == strlen(name + prefix)
		&& strcmp(name, base) != 0) {
	    Tcl_ListObjAppendElement(NULL, list, Tcl_ObjPrintf("%s%s",
		    Tcl_DStringValue(&d), name));
	}
    }
    if (dir != NULL) {
	closedir(dir);
    }
    Tcl_DStringFree(&d);
    Tcl_ListObjGetElements(NULL, list, &n, &elems);
    sorted = Rb_AllocArray((size_t)(n + 1), sizeof(*sorted));
    if (n > 0) {
	/* An empty list has no element array: memcpy(x, NULL, 0) is UB. */
	memcpy(sorted, elems, (size_t)n * sizeof(*sorted));
	qsort(sorted, (size_t)n, sizeof(*sorted), CompareCpu);
    }
    result = Tcl_NewListObj(n, sorted);
    free(sorted);
    Tcl_IncrRefCount(list);
    Tcl_DecrRefCount(list);
    return result;
}

/*
 * AddFile --
 *	Adds a per-CPU input to the state.
 */
static CpuFile *
AddFile(BlktraceState *st, Rb_Input *in, const char *path)
{
    CpuFile *f = Rb_Alloc(sizeof(*f));

    f->in = in;
    f->path = Rb_Strdup(path);
    st->files = Rb_ReallocArray(st->files, st->nfiles + 1, sizeof(*st->files));
    st->files[st->nfiles++] = f;
    return f;
}

/*
 * BlktraceOpen --
 *	Opens the sibling per-CPU files too (unless readeroptions say
 *	"siblings 0"), reads the first event of each, and takes the
 *	earliest as time 0.  A sibling must be a regular file and, in safe
 *	mode, one of the named traces.
 * Results: TCL_OK, or TCL_ERROR with err set.
 */
static int
BlktraceOpen(Rb_Reader *r, Rb_Error *err)
{
    BlktraceState *st = r->state;
    Tcl_Obj *siblings, **paths;
    int i, npaths, want = 1;

    st->pair = RbBlkPairCreate();
    r->epochNs = 0;
    AddFile(st, r->in, Rb_InputPath(r->in));
    siblings = RbReaderOption(r, "siblings");
    if (siblings != NULL
	    && Tcl_GetBooleanFromObj(NULL, siblings, &want) != TCL_OK) {
	Rb_SetError(err, "RUBICON READER OPTION", "%s: blktrace "
		"readeroptions: siblings is a boolean, not \"%s\"",
		Rb_InputPath(r->in), Tcl_GetString(siblings));
	return TCL_ERROR;
    }
    if (want) {
	siblings = SiblingPaths(Rb_InputPath(r->in));
	Tcl_IncrRefCount(siblings);
	Tcl_ListObjGetElements(NULL, siblings, &npaths, &paths);
	for (i = 0; i < npaths && st->nfiles < MAX_CPUS; i++) {
	    /* Not named by the user: safe mode's rule for reads, and no
	     * FIFO or device. */
	    Rb_Input *in = RbSafeCheckImpliedRead(Tcl_GetString(paths[i]),
		    err) != TCL_OK ? NULL
		    : RbInputOpenFile(Tcl_GetString(paths[i]), 1, err);

	    if (in == NULL) {
		Tcl_DecrRefCount(siblings);
		return TCL_ERROR;
	    }
	    AddFile(st, in, Tcl_GetString(paths[i]));
	}
	Tcl_DecrRefCount(siblings);
    }
    st->genesis = UINT64_MAX;
    for (i = 0; i < st->nfiles; i++) {
	if (Advance(r, st, st->files[i]) < 0) {
	    *err = st->tx.pending;
	    return TCL_ERROR;
	}
	if (st->files[i]->have && st->files[i]->time < st->genesis) {
	    st->genesis = st->files[i]->time;
	}
    }
    return TCL_OK;
}

/*
 * NextEvent --
 *	The earliest pending event over the per-CPU files (ties go to the
 *	file given first), with its time made relative to the earliest.
 * Results: 1, 0 at the end, -1 on error (tx.pending set).
 */
static int
NextEvent(Rb_Reader *r, Rb_BlkEvent *ev)
{
    BlktraceState *st = r->state;
    CpuFile *best = NULL;
    uint64_t rel;
    int i;

    for (i = 0; i < st->nfiles; i++) {
	CpuFile *f = st->files[i];

	if (f->have && (best == NULL || f->time < best->time)) {
	    best = f;
	}
    }
    if (best == NULL) {
	return 0;
    }
    *ev = best->ev;
    rel = best->time - st->genesis;
    ev->time = rel > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)rel;
    if (best->time < st->genesis) {
	ev->time = -1;		/* before the first: reported out of order */
    }
    return Advance(r, st, best) < 0 ? -1 : 1;
}

static int
BlktraceNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    BlktraceState *st = r->state;

    return RbBlkPairNext(r, st->pair, &st->tx, b, NextEvent, err);
}

/*
 * BlktraceClose --
 *	Closes the sibling inputs and frees the pairing state.
 */
static void
BlktraceClose(Rb_Reader *r)
{
    BlktraceState *st = r->state;
    int i;

    for (i = 0; i < st->nfiles; i++) {
	if (i > 0) {
	    Rb_InputClose(st->files[i]->in);
	}
	free(st->files[i]->path);
	free(st->files[i]);
    }
    free(st->files);
    RbBlkPairFree(st->pair);
}

const Rb_ReaderClass Rb_BlktraceReaderClass = {
    "blktrace",
    "blktrace binary per-CPU files, merged by time, paired per I/O",
    sizeof(BlktraceState),
    BlktraceSniff,
    BlktraceOpen,
    BlktraceNext,
    BlktraceClose,
};
