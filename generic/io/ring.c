/*
 * ring.c --
 *
 *	Rb_Ring: one producer thread, one consumer, a fixed ring of chunks
 *	between them.  The producer fills the chunk after the last filled
 *	one while the consumer copies out of the first; a mutex guards the
 *	ring's counters and one condition variable tells either side that
 *	they changed.  Memory is fixed: nchunks * chunkSize bytes.
 */

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "core/rbInt.h"
#include "io/ring.h"

struct Rb_Ring {
    Rb_RingProduceProc *produce;
    void *cd;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;	/* filled, ended or stop changed */
    int nchunks;
    size_t chunkSize;
    char **chunk;
    size_t *len;		/* Bytes in each filled chunk. */
    int head;			/* The chunk the consumer takes from. */
    int filled;			/* Chunks ready, from head on. */
    size_t headPos;		/* Bytes of chunk[head] taken (consumer's). */
    int ended;			/* produce returned 0: no more chunks. */
    int stop;			/* The consumer is done: the thread returns. */
};

/*
 * RingThread --
 *	The producer: fills the chunk after the filled ones whenever there
 *	is a free one, until produce returns 0 or the consumer stops it.
 */
static void *
RingThread(void *arg)
{
    Rb_Ring *ring = arg;
    size_t got;
    int slot;

    do {
	pthread_mutex_lock(&ring->lock);
	while (ring->filled == ring->nchunks && !ring->stop) {
	    pthread_cond_wait(&ring->changed, &ring->lock);
	}
	if (ring->stop) {
	    pthread_mutex_unlock(&ring->lock);
	    return NULL;
	}
	slot = (ring->head + ring->filled) % ring->nchunks;
	pthread_mutex_unlock(&ring->lock);

	/* The consumer never reads past the filled chunks: slot is ours. */
	got = ring->produce(ring->cd, ring->chunk[slot], ring->chunkSize);

	pthread_mutex_lock(&ring->lock);
	if (got > 0) {
	    ring->len[slot] = got;
	    ring->filled++;
	} else {
	    ring->ended = 1;
	}
	pthread_cond_broadcast(&ring->changed);
	pthread_mutex_unlock(&ring->lock);
    } while (got > 0);
    return NULL;
}

/*
 * FreeRing --
 *	Frees the ring's chunks, lock and condition, and the ring (its
 *	thread not running).
 */
static void
FreeRing(Rb_Ring *ring)
{
    int i;

    for (i = 0; i < ring->nchunks; i++) {
	free(ring->chunk[i]);
    }
    free(ring->chunk);
    free(ring->len);
    pthread_mutex_destroy(&ring->lock);
    pthread_cond_destroy(&ring->changed);
    free(ring);
}

/*
 * RbRingStart --
 *	Allocates the ring and starts its thread, with every signal blocked
 *	in it so that SIGINT and the like go to the engine's thread.
 * Results: the ring, or NULL when the thread cannot be started (nothing
 *	is left allocated).
 */
Rb_Ring *
RbRingStart(Rb_RingProduceProc *produce, void *cd, size_t chunkSize,
	int nchunks)
{
    Rb_Ring *ring = Rb_Alloc(sizeof(*ring));
    sigset_t all, old;
    int i, rc;

    ring->produce = produce;
    ring->cd = cd;
    ring->nchunks = nchunks;
    ring->chunkSize = chunkSize;
    ring->chunk = Rb_AllocArray((size_t)nchunks, sizeof(char *));
    ring->len = Rb_AllocArray((size_t)nchunks, sizeof(size_t));
    for (i = 0; i < nchunks; i++) {
	ring->chunk[i] = Rb_Alloc(chunkSize);
    }
    pthread_mutex_init(&ring->lock, NULL);
    pthread_cond_init(&ring->changed, NULL);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&ring->thread, NULL, RingThread, ring);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
	FreeRing(ring);
	return NULL;
    }
    return ring;
}

/*
 * RbRingTake --
 *	Copies up to cap of the next bytes to dst, waiting for the producer
 *	when no chunk is ready.
 * Results: bytes copied, never more than one chunk's; 0 once the
 *	producer has ended and every chunk is taken.
 */
size_t
RbRingTake(Rb_Ring *ring, char *dst, size_t cap)
{
    size_t n;
    int head;

    pthread_mutex_lock(&ring->lock);
    while (ring->filled == 0 && !ring->ended) {
	pthread_cond_wait(&ring->changed, &ring->lock);
    }
    if (ring->filled == 0) {
	pthread_mutex_unlock(&ring->lock);
	return 0;
    }
    head = ring->head;
    pthread_mutex_unlock(&ring->lock);

    /* A filled chunk is the consumer's until it gives it back. */
    n = ring->len[head] - ring->headPos;
    if (n > cap) {
	n = cap;
    }
    memcpy(dst, ring->chunk[head] + ring->headPos, n);
    ring->headPos += n;
    if (ring->headPos == ring->len[head]) {
	ring->headPos = 0;
	pthread_mutex_lock(&ring->lock);
	ring->head = (head + 1) % ring->nchunks;
	ring->filled--;
	pthread_cond_broadcast(&ring->changed);
	pthread_mutex_unlock(&ring->lock);
    }
    return n;
}

/*
 * RbRingPeek --
 *	The next filled chunk, in place, waiting for the producer when none
 *	is ready; the consumer owns it until RbRingRelease.  For producers
 *	that write one record-like unit per chunk (native.c's decoded
 *	blocks): no byte is copied out.  Do not mix with RbRingTake.
 * Results: the chunk (*len its bytes), or NULL once the producer has
 *	ended and every chunk is taken.
 */
char *
RbRingPeek(Rb_Ring *ring, size_t *len)
{
    int head;

    pthread_mutex_lock(&ring->lock);
    while (ring->filled == 0 && !ring->ended) {
	pthread_cond_wait(&ring->changed, &ring->lock);
    }
    if (ring->filled == 0) {
	pthread_mutex_unlock(&ring->lock);
	return NULL;
    }
    head = ring->head;
    pthread_mutex_unlock(&ring->lock);
    *len = ring->len[head];
    return ring->chunk[head];
}

/*
 * RbRingRelease --
 *	Gives the chunk RbRingPeek returned back to the producer.
 */
void
RbRingRelease(Rb_Ring *ring)
{
    pthread_mutex_lock(&ring->lock);
    ring->head = (ring->head + 1) % ring->nchunks;
    ring->filled--;
    pthread_cond_broadcast(&ring->changed);
    pthread_mutex_unlock(&ring->lock);
}

/*
 * RbRingStop --
 *	Tells the thread to return, waits for it (it finishes the produce
 *	call it is in, if any) and frees the ring.
 */
void
RbRingStop(Rb_Ring *ring)
{
    pthread_mutex_lock(&ring->lock);
    ring->stop = 1;
    pthread_cond_broadcast(&ring->changed);
    pthread_mutex_unlock(&ring->lock);
    pthread_join(ring->thread, NULL);
    FreeRing(ring);
}
