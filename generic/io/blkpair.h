/*
 * blkpair.h --
 *
 *	Pairing of Linux block-layer trace events (blktrace actions: queue,
 *	merge, split, remap, issue, requeue, completion) into one I/O
 *	record per request, shared by the blkparse text reader and the
 *	blktrace binary reader.  See doc/blkparse.n.
 */

#ifndef RB_BLKPAIR_H
#define RB_BLKPAIR_H

#include "io/text.h"

/* Bits of the flags field of blkparse and blktrace records: the RWBS
 * letters, whether the request was remapped, whether it completed with
 * an error, and (from bit 16) how many bios were merged into it. */
#define RB_BLK_READ		0x0001
#define RB_BLK_WRITE		0x0002
#define RB_BLK_DISCARD		0x0004
#define RB_BLK_PREFLUSH		0x0008
#define RB_BLK_FUA		0x0010
#define RB_BLK_SYNC		0x0020
#define RB_BLK_META		0x0040
#define RB_BLK_AHEAD		0x0080
#define RB_BLK_REMAPPED		0x0100
#define RB_BLK_ERROR		0x0200
#define RB_BLK_MERGES_SHIFT	16
#define RB_BLK_NOSECTOR		UINT64_MAX

/* One event, whichever the source. */
typedef struct Rb_BlkEvent {
    int64_t time;		/* ns from the start of the trace */
    uint64_t sector;		/* RB_BLK_NOSECTOR when the event has none */
    uint64_t bytes;
    uint32_t dev;		/* major << 20 | minor, as the kernel's */
    uint32_t pid;
    uint32_t flags;		/* RB_BLK_* of its RWBS */
    int error;
    char action;		/* Q M F X A D R C; anything else is ignored */
    uint32_t fromDev;		/* A: where the sector came from */
    uint64_t fromSector;	/* A: origin sector; X: the split point */
    uint64_t recNo, offset;	/* where it is in the input, for errors */
} Rb_BlkEvent;

typedef struct Rb_BlkPair Rb_BlkPair;

/* Reads the next event into ev: 1 an event, 0 at the end, -1 on an error
 * (tx->pending set); a malformed one is handled by the reader. */
typedef int (Rb_BlkEventProc)(Rb_Reader *r, Rb_BlkEvent *ev);

Rb_BlkPair *	RbBlkPairCreate(void);
void		RbBlkPairFree(Rb_BlkPair *p);
uint32_t	RbBlkRwbs(const char *rwbs, int *ok);
int		RbBlkPairNext(Rb_Reader *r, Rb_BlkPair *p, Rb_Text *tx,
		    Rb_Batch *b, Rb_BlkEventProc *nextEvent, Rb_Error *err);

/* blkparse.c: the parts of a blkparse-style line other readers share. */
int		RbBlkParseDev(const char *s, uint32_t *dev);
const char *	RbBlkParseAction(const Rb_TextLine *l, int a, Rb_BlkEvent *ev,
		    char *why, size_t whyLen);

#endif /* RB_BLKPAIR_H */
