/*
 * ring.h --
 *
 *	A producer thread filling a ring of byte chunks that one consumer
 *	takes from in order (ring.c): gzip and bzip2 input is decompressed
 *	on one while the engine works on the bytes before.
 */

#ifndef RB_RING_H
#define RB_RING_H

#include <stddef.h>

typedef struct Rb_Ring Rb_Ring;

/* Writes up to cap bytes to dst and returns how many; 0 means there are
 * no more (the end, or a failure the caller's state records).  Called on
 * the ring's thread only. */
typedef size_t (Rb_RingProduceProc)(void *cd, char *dst, size_t cap);

/* Starts a thread calling produce(cd, ...) into nchunks chunks of
 * chunkSize bytes; NULL when the thread cannot be started. */
Rb_Ring *	RbRingStart(Rb_RingProduceProc *produce, void *cd,
		    size_t chunkSize, int nchunks);
/* Copies up to cap of the next bytes to dst, waiting for them; 0 once
 * produce has returned 0, after which cd may be read again. */
size_t		RbRingTake(Rb_Ring *ring, char *dst, size_t cap);
/* The next filled chunk in place (*len its bytes), waiting for it; NULL
 * once produce has ended.  The consumer owns it until RbRingRelease. */
char *		RbRingPeek(Rb_Ring *ring, size_t *len);
/* Gives the chunk from RbRingPeek back to the producer. */
void		RbRingRelease(Rb_Ring *ring);
/* Stops the thread (after the produce call under way) and frees ring. */
void		RbRingStop(Rb_Ring *ring);

#endif /* RB_RING_H */
