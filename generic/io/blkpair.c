/*
 * blkpair.c --
 *
 *	Turns block-layer trace events into I/O records, one per request:
 *	enqueue time from its Q, issue time from its D, completion from its
 *	C.  A bio merged into a request (M back, F front) folds into it: its
 *	bytes add to the request and the merge is counted in the flags.  A
 *	split (X) makes a second request from the split point.  A remap (A)
 *	says where the sector came from (a partition or device-mapper
 *	device); the Q that follows takes it as its logical volume and
 *	offset.
 *
 *	Records leave in the order their requests were queued, so their
 *	times ascend: a completed request waits for every earlier one.  A
 *	request never completed holds the others back only until it is
 *	STALE_NS older than the trace's clock; then it, like every request
 *	outstanding at the end, is counted as "incomplete".  Events that
 *	belong to no known request (the trace began after their Q) are
 *	counted by kind too.  Nothing is dropped without a count.
 */

#include "io/blkpair.h"

#define SECTOR 512
#define STALE_NS (120 * 1000000000LL)	/* longer than any block timeout */
#define MAX_REMAPS 65536		/* remaps waiting for their Q */

typedef struct Req {
    struct Req *prev, *next;	/* Queue order. */
    int64_t q, d, c;
    uint64_t sector, bytes;
    uint32_t dev, pid, flags, merges;
    int64_t lvNo, lvOffset;
    int64_t queueLen;
    uint64_t recNo, offset;	/* Of its Q event. */
    int done;
    int ended;			/* Has an entry in byEnd. */
} Req;

typedef struct Remap {
    uint32_t fromDev;
    uint64_t fromSector;
} Remap;

/* Hash key of a sector on a device. */
typedef struct SectorKey {
    uint32_t dev, pad;
    uint64_t sector;
} SectorKey;

struct Rb_BlkPair {
    Tcl_HashTable byStart;	/* SectorKey -> Req, until completed */
    Tcl_HashTable byEnd;	/* SectorKey of its end -> Req, until issued */
    Tcl_HashTable remaps;	/* SectorKey -> Remap */
    Tcl_HashTable depth;	/* dev -> outstanding requests */
    Req *head, *tail;
    int64_t now;		/* Latest event time. */
    int atEnd;
};

#define KEY_INTS ((int)(sizeof(SectorKey) / sizeof(int)))

/*
 * Key --
 *	The hash key of (dev, sector), padding zeroed.
 */
static SectorKey *
Key(SectorKey *k, uint32_t dev, uint64_t sector)
{
    memset(k, 0, sizeof(*k));
    k->dev = dev;
    k->sector = sector;
    return k;
}

/*
 * RbBlkPairCreate --
 *	A pairing state with no requests.
 */
Rb_BlkPair *
RbBlkPairCreate(void)
{
    Rb_BlkPair *p = Rb_Alloc(sizeof(*p));

    Tcl_InitHashTable(&p->byStart, KEY_INTS);
    Tcl_InitHashTable(&p->byEnd, KEY_INTS);
    Tcl_InitHashTable(&p->remaps, KEY_INTS);
    Tcl_InitHashTable(&p->depth, TCL_ONE_WORD_KEYS);
    p->now = INT64_MIN;
    return p;
}

/*
 * FreeRemaps --
 *	Empties the remap table.
 */
static void
FreeRemaps(Rb_BlkPair *p)
{
    Tcl_HashSearch s;
    Tcl_HashEntry *e;

    for (e = Tcl_FirstHashEntry(&p->remaps, &s); e; e = Tcl_NextHashEntry(&s)) {
	free(Tcl_GetHashValue(e));
    }
    Tcl_DeleteHashTable(&p->remaps);
    Tcl_InitHashTable(&p->remaps, KEY_INTS);
}

/*
 * RbBlkPairFree --
 *	Frees p and every request it still holds.
 */
void
RbBlkPairFree(Rb_BlkPair *p)
{
    Req *q, *next;

    if (p == NULL) {
	return;
    }
    for (q = p->head; q; q = next) {
	next = q->next;
	free(q);
    }
    FreeRemaps(p);
    Tcl_DeleteHashTable(&p->remaps);
    Tcl_DeleteHashTable(&p->byStart);
    Tcl_DeleteHashTable(&p->byEnd);
    Tcl_DeleteHashTable(&p->depth);
    free(p);
}

/*
 * RbBlkRwbs --
 *	The RB_BLK_* bits of a blkparse RWBS string ("R", "WS", "FWFS",
 *	"N", ...): an F before the operation letter is a preflush, after
 *	it FUA.
 * Results: the bits; *ok is 0 when a letter is unknown.
 */
uint32_t
RbBlkRwbs(const char *rwbs, int *ok)
{
    uint32_t f = 0;
    int seenOp = 0;

    *ok = *rwbs != '\0';
    for (; *rwbs; rwbs++) {
	switch (*rwbs) {
	case 'R': f |= RB_BLK_READ; seenOp = 1; break;
	case 'W': f |= RB_BLK_WRITE; seenOp = 1; break;
	case 'D': f |= RB_BLK_DISCARD; seenOp = 1; break;
	case 'N': seenOp = 1; break;
	case 'E': f |= RB_BLK_DISCARD; seenOp = 1; break;
	case 'F': f |= seenOp ? RB_BLK_FUA : RB_BLK_PREFLUSH; break;
	case 'S': f |= RB_BLK_SYNC; break;
	case 'M': f |= RB_BLK_META; break;
	case 'A': f |= RB_BLK_AHEAD; break;
	case 'B': break;	/* barrier, of old kernels */
	default: *ok = 0; break;
	}
    }
    return f;
}

/*
 * Find --
 *	The request in table at (dev, sector), or NULL.
 */
static Req *
Find(Tcl_HashTable *table, uint32_t dev, uint64_t sector)
{
    SectorKey k;
    Tcl_HashEntry *e = Tcl_FindHashEntry(table, (char *)Key(&k, dev, sector));

    return e ? Tcl_GetHashValue(e) : NULL;
}

/*
 * Unkey --
 *	Removes the entry of table at (dev, sector) if it holds req.
 */
static void
Unkey(Tcl_HashTable *table, uint32_t dev, uint64_t sector, Req *req)
{
    SectorKey k;
    Tcl_HashEntry *e = Tcl_FindHashEntry(table, (char *)Key(&k, dev, sector));

    if (e && Tcl_GetHashValue(e) == req) {
	Tcl_DeleteHashEntry(e);
    }
}

/*
 * Rekey --
 *	Puts req in table at (dev, sector), replacing what was there.
 */
static void
Rekey(Tcl_HashTable *table, uint32_t dev, uint64_t sector, Req *req)
{
    SectorKey k;
    int isNew;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(table,
	    (char *)Key(&k, dev, sector), &isNew);

    Tcl_SetHashValue(e, req);
}

/*
 * EndSector --
 *	The sector just past req.
 */
static uint64_t
EndSector(const Req *req)
{
    return req->sector + req->bytes / SECTOR;
}

/*
 * Depth --
 *	Adds delta to the outstanding count of dev.
 * Results: the count before.
 */
static int64_t
Depth(Rb_BlkPair *p, uint32_t dev, int delta)
{
    int isNew;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(&p->depth,
	    (char *)(uintptr_t)dev, &isNew);
    intptr_t before = isNew ? 0 : (intptr_t)Tcl_GetHashValue(e);

    Tcl_SetHashValue(e, (ClientData)(before + delta));
    return before;
}

/*
 * Unlink --
 *	Takes req out of the queue order and both tables; it stops counting
 *	as outstanding unless it had completed.  The caller frees it.
 */
static void
Unlink(Rb_BlkPair *p, Req *req)
{
    if (req->prev) {
	req->prev->next = req->next;
    } else {
	p->head = req->next;
    }
    if (req->next) {
	req->next->prev = req->prev;
    } else {
	p->tail = req->prev;
    }
    if (!req->done) {
	Unkey(&p->byStart, req->dev, req->sector, req);
	Depth(p, req->dev, -1);
    }
    if (req->ended) {
	Unkey(&p->byEnd, req->dev, EndSector(req), req);
    }
}

/*
 * InsertAfter --
 *	Puts req in the queue order after prev (at the tail when NULL).
 */
static void
InsertAfter(Rb_BlkPair *p, Req *prev, Req *req)
{
    if (prev == NULL) {
	prev = p->tail;
    }
    req->prev = prev;
    req->next = prev ? prev->next : NULL;
    if (req->next) {
	req->next->prev = req;
    } else {
	p->tail = req;
    }
    if (prev) {
	prev->next = req;
    } else {
	p->head = req;
    }
}

/*
 * NewRequest --
 *	A request queued by ev, or split from orig at ev's split point.
 */
static Req *
NewRequest(Rb_BlkPair *p, const Rb_BlkEvent *ev, uint64_t sector,
	uint64_t bytes)
{
    Req *req = Rb_Alloc(sizeof(*req));

    req->q = ev->time;
    req->d = req->c = RB_ABSENT;
    req->sector = sector;
    req->bytes = bytes;
    req->dev = ev->dev;
    req->pid = ev->pid;
    req->flags = ev->flags;
    req->lvNo = req->lvOffset = RB_ABSENT;
    req->recNo = ev->recNo;
    req->offset = ev->offset;
    req->queueLen = Depth(p, ev->dev, 1);
    Rekey(&p->byStart, req->dev, sector, req);
    Rekey(&p->byEnd, req->dev, EndSector(req), req);
    req->ended = 1;
    return req;
}

/*
 * Queue --
 *	A Q: a new request, taking the remap that brought its sector here.
 * Results: NULL, or "duplicate-queue" when a request still outstanding
 *	at the same sector is dropped for it.
 */
static const char *
Queue(Rb_BlkPair *p, const Rb_BlkEvent *ev, char *why, size_t whyLen)
{
    Req *old = Find(&p->byStart, ev->dev, ev->sector), *req;
    SectorKey k;
    Tcl_HashEntry *e;

    if (old != NULL) {
	snprintf(why, whyLen, "sector %llu queued again before the request "
		"queued at line or event %llu completed",
		(unsigned long long)ev->sector,
		(unsigned long long)old->recNo);
	Unlink(p, old);
	free(old);
    }
    req = NewRequest(p, ev, ev->sector, ev->bytes);
    InsertAfter(p, NULL, req);
    e = Tcl_FindHashEntry(&p->remaps, (char *)Key(&k, ev->dev, ev->sector));
    if (e != NULL) {
	Remap *m = Tcl_GetHashValue(e);

	req->lvNo = m->fromDev;
	req->lvOffset = (int64_t)(m->fromSector * SECTOR);
	req->flags |= RB_BLK_REMAPPED;
	free(m);
	Tcl_DeleteHashEntry(e);
    }
    return old ? "duplicate-queue" : NULL;
}

/*
 * Remember --
 *	An A: where (dev, sector) came from.  A chain of remaps (a
 *	device-mapper target on a partition) keeps its first origin.
 */
static void
Remember(Rb_BlkPair *p, const Rb_BlkEvent *ev)
{
    SectorKey k;
    Tcl_HashEntry *e;
    Remap *m;
    int isNew;

    if (p->remaps.numEntries >= MAX_REMAPS) {
	FreeRemaps(p);
    }
    e = Tcl_FindHashEntry(&p->remaps,
	    (char *)Key(&k, ev->fromDev, ev->fromSector));
    if (e != NULL) {
	m = Tcl_GetHashValue(e);
	Tcl_DeleteHashEntry(e);
    } else {
	m = Rb_Alloc(sizeof(*m));
	m->fromDev = ev->fromDev;
	m->fromSector = ev->fromSector;
    }
    e = Tcl_CreateHashEntry(&p->remaps, (char *)Key(&k, ev->dev, ev->sector),
	    &isNew);
    if (!isNew) {
	free(Tcl_GetHashValue(e));
    }
    Tcl_SetHashValue(e, m);
}

/*
 * Merge --
 *	An M (back) or F (front) merge: the bio just queued at ev's sector
 *	folds into the request it joins, which grows by its bytes.
 * Results: NULL, or "unmatched-merge" when either is unknown.
 */
static const char *
Merge(Rb_BlkPair *p, const Rb_BlkEvent *ev, char *why, size_t whyLen)
{
    Req *bio = Find(&p->byStart, ev->dev, ev->sector), *into;
    uint64_t bytes = bio ? bio->bytes : ev->bytes;

    into = ev->action == 'M' ? Find(&p->byEnd, ev->dev, ev->sector)
	    : Find(&p->byStart, ev->dev, ev->sector + bytes / SECTOR);
    if (bio == NULL || into == NULL || into == bio || bio->d != RB_ABSENT) {
	snprintf(why, whyLen, "%s merge of sector %llu: %s",
		ev->action == 'M' ? "back" : "front",
		(unsigned long long)ev->sector, bio == NULL ? "no request "
		"was queued there" : "no request to merge into");
	if (bio != NULL && bio != into) {
	    Unlink(p, bio);
	    free(bio);
	}
	return "unmatched-merge";
    }
    Unlink(p, bio);
    Unkey(&p->byEnd, into->dev, EndSector(into), into);
    if (ev->action == 'F') {
	Unkey(&p->byStart, into->dev, into->sector, into);
	into->sector = bio->sector;
	Rekey(&p->byStart, into->dev, into->sector, into);
    }
    into->bytes += bio->bytes;
    into->merges += 1 + bio->merges;
    if (bio->q < into->q) {
	into->q = bio->q;
    }
    Rekey(&p->byEnd, into->dev, EndSector(into), into);
    free(bio);
    return NULL;
}

/*
 * Split --
 *	An X: the request at ev's sector is cut at ev->fromSector; the
 *	second part becomes a request of its own, queued at the same time.
 * Results: NULL, or "unmatched-split".
 */
static const char *
Split(Rb_BlkPair *p, const Rb_BlkEvent *ev, char *why, size_t whyLen)
{
    Req *req = Find(&p->byStart, ev->dev, ev->sector), *rest;
    uint64_t at = ev->fromSector;

    if (req == NULL || at <= req->sector || at >= EndSector(req)) {
	snprintf(why, whyLen, "split of sector %llu at %llu: no request "
		"spans it", (unsigned long long)ev->sector,
		(unsigned long long)at);
	return "unmatched-split";
    }
    if (req->ended) {
	Unkey(&p->byEnd, req->dev, EndSector(req), req);
	req->ended = 0;
    }
    rest = NewRequest(p, ev, at, req->bytes - (at - req->sector) * SECTOR);
    rest->q = req->q;
    rest->flags = req->flags;
    rest->lvNo = req->lvNo;
    rest->lvOffset = req->lvOffset == RB_ABSENT ? RB_ABSENT
	    : (int64_t)((uint64_t)req->lvOffset + (at - req->sector) * SECTOR);
    req->bytes = (at - req->sector) * SECTOR;
    Rekey(&p->byEnd, req->dev, EndSector(req), req);
    req->ended = 1;
    InsertAfter(p, req, rest);
    return NULL;
}

/*
 * Event --
 *	Applies one event.
 * Results: NULL, or the kind of an event that matched no request (why
 *	set).
 */
static const char *
Event(Rb_BlkPair *p, const Rb_BlkEvent *ev, char *why, size_t whyLen)
{
    Req *req;

    if (ev->action != '\0' && strchr("QMFXDRC", ev->action)
	    && (ev->sector == RB_BLK_NOSECTOR
	    || (ev->bytes == 0 && !(ev->flags & (RB_BLK_READ | RB_BLK_WRITE
	    | RB_BLK_DISCARD))))) {
	snprintf(why, whyLen, "%c event of a request without data or "
		"sector (a cache flush)", ev->action);
	return "flush";
    }
    switch (ev->action) {
    case 'Q':
	return Queue(p, ev, why, whyLen);
    case 'A':
	Remember(p, ev);
	return NULL;
    case 'M':
    case 'F':
	return Merge(p, ev, why, whyLen);
    case 'X':
	return Split(p, ev, why, whyLen);
    case 'D':
    case 'R':
    case 'C':
	break;
    default:
	return NULL;
    }
    req = Find(&p->byStart, ev->dev, ev->sector);
    if (req == NULL) {
	snprintf(why, whyLen, "%c of sector %llu: no request was queued "
		"there in the trace", ev->action,
		(unsigned long long)ev->sector);
	return ev->action == 'C' ? "unmatched-completion"
		: ev->action == 'D' ? "unmatched-issue" : "unmatched-requeue";
    }
    if (ev->action == 'R') {
	req->d = RB_ABSENT;
	return NULL;
    }
    if (req->ended) {
	Unkey(&p->byEnd, req->dev, EndSector(req), req);
	req->ended = 0;
    }
    if (ev->action == 'D') {
	req->d = ev->time;
	if (ev->bytes != 0) {
	    req->bytes = ev->bytes;
	}
	return NULL;
    }
    req->c = ev->time;
    if (ev->error != 0) {
	req->flags |= RB_BLK_ERROR;
    }
    Unkey(&p->byStart, req->dev, req->sector, req);
    Depth(p, req->dev, -1);
    req->done = 1;
    return NULL;
}

/*
 * Emit --
 *	Appends req to b as an I/O record.
 */
static void
Emit(const Req *req, Rb_Batch *b)
{
    int i = Rb_BatchAppend(b);
    uint32_t merges = req->merges > 0xffff ? 0xffff : req->merges;

    b->col[RB_IO_TIME][i] = req->q;
    b->col[RB_IO_START][i] = req->d;
    b->col[RB_IO_FINISH][i] = req->c;
    b->col[RB_IO_QUEUELEN][i] = req->queueLen;
    b->col[RB_IO_OP][i] = (req->flags & RB_BLK_READ) ? RB_OP_READ
	    : RB_OP_WRITE;
    b->col[RB_IO_SIZE][i] = (int64_t)req->bytes;
    b->col[RB_IO_DEVICE][i] = req->dev;
    b->col[RB_IO_OFFSET][i] = (int64_t)(req->sector * SECTOR);
    b->col[RB_IO_LVNO][i] = req->lvNo;
    b->col[RB_IO_LVOFFSET][i] = req->lvOffset;
    b->col[RB_IO_PID][i] = req->pid;
    b->col[RB_IO_FLAGS][i] = (int64_t)(req->flags
	    | (merges << RB_BLK_MERGES_SHIFT));
}

/*
 * Drain --
 *	Moves the completed requests at the head of the queue order into b
 *	while it has room; then counts as "incomplete" a head request that
 *	is stale (or any, at the end of the trace) and goes on.
 */
static void
Drain(Rb_Reader *r, Rb_BlkPair *p, Rb_Batch *b)
{
    Req *req;

    while ((req = p->head) != NULL && b->n < b->cap) {
	if (!req->done) {
	    char why[128];

	    /* Unsigned: times from a corrupt file may be far apart. */
	    if (!p->atEnd && (p->now <= req->q
		    || (uint64_t)p->now - (uint64_t)req->q <= STALE_NS)) {
		break;
	    }
	    snprintf(why, sizeof(why), "request queued at %.9f s %s",
		    req->q / 1e9, req->d == RB_ABSENT ? "was never issued"
		    : "was issued and never completed");
	    r->recordNo = req->recNo;
	    RbReaderNote(r, "incomplete", req->offset, why);
	    Unlink(p, req);
	    free(req);
	    continue;
	}
	Emit(req, b);
	Unlink(p, req);
	free(req);
    }
}

/*
 * RbBlkPairNext --
 *	A reader's next: reads events with nextEvent and pairs them until b
 *	is full or the trace ends and every request is out.  Events whose
 *	time goes back are "out-of-order" under the error policy (under
 *	warn they are still applied), events later than the one before by
 *	more than -maxgap are "time-jump" (dropped unless reading stops);
 *	events of unknown requests are
 *	counted by kind.
 * Results: records appended, 0 at the end, -1 on error (err set).
 */
int
RbBlkPairNext(Rb_Reader *r, Rb_BlkPair *p, Rb_Text *tx, Rb_Batch *b,
	Rb_BlkEventProc *nextEvent, Rb_Error *err)
{
    int start = b->n;
    Rb_BlkEvent ev;
    char why[256];

    if (tx->failed) {
	tx->failed = 0;
	*err = tx->pending;
	return -1;
    }
    if (b->n == 0) {
	b->firstRecord = r->records + 1;
    }
    for (;;) {
	const char *kind;
	int rc;

	Drain(r, p, b);
	if (b->n == b->cap || (p->atEnd && p->head == NULL)) {
	    break;
	}
	if (tx->done) {
	    p->atEnd = 1;
	    continue;
	}
	memset(&ev, 0, sizeof(ev));
	rc = nextEvent(r, &ev);
	if (rc < 0) {
	    return RbTextFinish(tx, b, start, err);
	}
	if (rc == 0) {
	    p->atEnd = 1;
	    continue;
	}
	r->recordNo = ev.recNo;
	if (ev.time < p->now) {
	    if (Rb_ReaderBad(r, &tx->pending, "out-of-order", ev.offset,
		    "event time goes back %.9f s",
		    ((double)p->now - (double)ev.time) / 1e9)) {
		return RbTextFinish(tx, b, start, err);
	    }
	    if (r->onError != RB_ONERROR_WARN) {
		continue;
	    }
	} else {
	    /* An event past -maxgap is dropped: its request, if any, is
	     * then counted incomplete like one whose events are lost. */
	    rc = Rb_ReaderTimeJump(r, &tx->pending, ev.time, p->now,
		    ev.offset);
	    if (rc < 0) {
		return RbTextFinish(tx, b, start, err);
	    }
	    if (rc > 0) {
		continue;
	    }
	    p->now = ev.time;
	}
	why[0] = '\0';
	kind = Event(p, &ev, why, sizeof(why));
	if (kind != NULL) {
	    RbReaderNote(r, kind, ev.offset, why);
	}
    }
    return b->n - start;
}
