/*
 * parallel.c --
 *
 *	rubicon::run -threads N: the children of the DAG's top Mux (the
 *	node head names) take each batch on N threads at once, the run's
 *	own thread one of them, each child on one thread, so that a DAG of
 *	many branches (rubicon report's) reads once and analyzes on several
 *	cores.  Each child's records, and the order they come in, are the
 *	same as on one thread, so every result is too.
 *
 *	Only when that is safe (RbParallelStart): no node is reachable from
 *	two children (an Analyzer's state would be updated from two threads;
 *	one fed straight by a Mux or Filter counts as its Flow's), no sink
 *	lies below (sinks write files and count against -outlimit), and
 *	every Analyzer and Transformer below is of a built-in class other
 *	than LiveAnalyzer (which evaluates Tcl).  Classes of plugins are not
 *	known to keep to their own state, so a DAG with one runs on one
 *	thread.  Hooks that fail record their error as on one thread
 *	(Rb_AnalyzerError serializes the choice of the one that stops the
 *	run).
 *
 *	The threads wait on a condition variable between batches; a batch
 *	hands out the children, each thread taking the next one not yet
 *	taken, and returns when all are done.  They are handed out costliest
 *	first, by the time each took on the batches before (a running
 *	average), so that no thread is left with a long child at the end
 *	while the others wait.
 *
 *	While the run reads (RbParallelAsync), a batch is handed out and
 *	the run's thread goes on to read the next one into a second batch;
 *	only then does it take the children still left and wait for the
 *	rest (RbParallelWait), so that reading overlaps the analysis.  The
 *	run's state (its records and times, the readers') is only touched
 *	between batches, as on one thread.  A Mux of one child runs it on
 *	a worker so, beside the reading.
 */

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "engine.h"

/* The most threads a run uses, whatever -threads asks (0: one per online
 * CPU). */
#define RB_MAX_THREADS 16

typedef struct Worker Worker;

typedef struct RbPool {
    int nworkers;		/* Threads besides the run's own. */
    pthread_t *tids;
    Worker *workers;
    pthread_mutex_t mu;
    pthread_cond_t go;		/* A new batch (or quit) for the workers. */
    pthread_cond_t done;	/* The last worker finished the batch. */
    uint64_t generation;	/* Batches handed out. */
    int busy;			/* Workers still on the current batch. */
    int quit;
    int async;			/* RbParallelChildren hands a batch out and
				 * returns (RbParallelAsync)... */
    int pending;		/* ... and one is out: RbParallelWait. */
    /* The batch being handed out: */
    Rb_Node *mux;
    const Rb_Batch *b;
    const uint32_t *sel;
    int nsel;
    int next;			/* The next of order to take (atomic). */
    int nchildren;
    int *order;			/* The children, costliest first. */
    double *cost;		/* Each one's average ns per batch. */
    uint32_t **scratch;		/* RB_BATCH_SIZE each: [0] the run's
				 * thread's, [1 + w] worker w's; NULL
				 * after the last. */
} RbPool;

struct Worker {
    RbPool *pool;
    int index;
};

static double
NowNs(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * TakeChildren --
 *	Pushes the batch to the children not yet taken, one at a time in
 *	order, until none is left, timing each.
 */
static void
TakeChildren(RbPool *pool, uint32_t *scratch)
{
    Rb_Node *mux = pool->mux;
    int k;

    while ((k = __atomic_fetch_add(&pool->next, 1, __ATOMIC_RELAXED))
	    < pool->nchildren) {
	int c = pool->order[k];
	double t0 = NowNs();

	RbMuxPushChild(mux, c, pool->b, pool->sel, pool->nsel, scratch);
	/* Each child's cost is written by the one thread that ran it. */
	pool->cost[c] = 0.9 * pool->cost[c] + 0.1 * (NowNs() - t0);
    }
}

/*
 * SortOrder --
 *	Puts the children in order of their average cost, costliest first
 *	(insertion sort: a Mux has few children, mostly in order already).
 */
static void
SortOrder(RbPool *pool)
{
    int i, j;

    for (i = 1; i < pool->nchildren; i++) {
	int c = pool->order[i];

	for (j = i; j > 0 && pool->cost[pool->order[j - 1]] < pool->cost[c];
		j--) {
	    pool->order[j] = pool->order[j - 1];
	}
	pool->order[j] = c;
    }
}

static void *
WorkerMain(void *arg)
{
    Worker *w = arg;
    RbPool *pool = w->pool;
    uint64_t seen = 0;

    for (;;) {
	pthread_mutex_lock(&pool->mu);
	while (!pool->quit && pool->generation == seen) {
	    pthread_cond_wait(&pool->go, &pool->mu);
	}
	if (pool->quit) {
	    pthread_mutex_unlock(&pool->mu);
	    return NULL;
	}
	seen = pool->generation;
	pthread_mutex_unlock(&pool->mu);
	TakeChildren(pool, pool->scratch[1 + w->index]);
	pthread_mutex_lock(&pool->mu);
	if (--pool->busy == 0) {
	    pthread_cond_signal(&pool->done);
	}
	pthread_mutex_unlock(&pool->mu);
    }
}

/*
 * ClaimSubtree --
 *	Marks the nodes below n (n included) as child c's in their
 *	visitMark (c + 1); an Analyzer node marks its Flow's node too.
 * Results: 1, or 0 when a node is another child's, is a sink, or holds
 *	a class that may not run on a thread of its own.
 */
static int
ClaimSubtree(Rb_Node *n, int c)
{
    int i;

    if (n->visitMark == c + 1) {
	return 1;
    }
    if (n->visitMark != 0) {
	return 0;
    }
    n->visitMark = c + 1;
    switch (n->kind) {
    case NODE_SINK:
	return 0;
    case NODE_TRANSFORMER:
	if (!RbTransformerClassBuiltin(n->xf->cls)) {
	    return 0;
	}
	break;
    case NODE_ANALYZER:
	if (n->analyzer->flow == NULL
		|| !ClaimSubtree(n->analyzer->flow->node, c)) {
	    return 0;
	}
	break;
    case NODE_FLOW:
	for (i = 0; i < n->flow->nanalyzers; i++) {
	    if (!RbAnalyzerClassBuiltin(n->flow->analyzers[i]->cls)) {
		return 0;
	    }
	}
	break;
    case NODE_FILTER:
    case NODE_MUX:
	break;
    }
    for (i = 0; i < n->nchildren; i++) {
	if (!ClaimSubtree(n->children[i], c)) {
	    return 0;
	}
    }
    return 1;
}

/*
 * ParallelSafe --
 *	Whether the children of mux may take batches on threads of their
 *	own (see the top of the file).
 */
static int
ParallelSafe(Rb_Engine *eng, Rb_Node *mux)
{
    Rb_Node *n;
    int c, ok = 1;

    for (n = eng->nodes; n != NULL; n = n->nextNode) {
	n->visitMark = 0;
    }
    mux->visitMark = -1;
    for (c = 0; c < mux->nchildren && ok; c++) {
	ok = ClaimSubtree(mux->children[c], c);
    }
    for (n = eng->nodes; n != NULL; n = n->nextNode) {
	n->visitMark = 0;
    }
    return ok;
}

/*
 * ParallelThreads --
 *	The threads -threads N gives: N, or for 0 one per online CPU; at
 *	most RB_MAX_THREADS.
 */
static int
ParallelThreads(int n)
{
    if (n == 0) {
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	n = cpus > 0 ? (int)cpus : 1;
    }
    return n > RB_MAX_THREADS ? RB_MAX_THREADS : n;
}

/*
 * RbParallelStart --
 *	Before a run's records flow: when threads > 1, the DAG's head is a
 *	Mux and its children may run apart, starts threads - 1 workers (no
 *	more than the children less one, but one for a single child) and
 *	marks the Mux.
 * Results: the threads the run uses (1 when it runs on its own).
 */
int
RbParallelStart(Rb_Engine *eng, int threads)
{
    Rb_Node *mux = eng->head;
    RbPool *pool;
    sigset_t all, old;
    int i;

    eng->pool = NULL;
    threads = ParallelThreads(threads);
    if (threads <= 1 || mux == NULL || mux->kind != NODE_MUX
	    || mux->nchildren < 1 || !ParallelSafe(eng, mux)) {
	return 1;
    }
    /* One child: one worker, that takes it while the run reads. */
    if (threads > mux->nchildren) {
	threads = mux->nchildren > 1 ? mux->nchildren : 2;
    }
    pool = Rb_Alloc(sizeof(*pool));
    pool->nworkers = threads - 1;
    pool->nchildren = mux->nchildren;
    pool->order = Rb_AllocArray((size_t)mux->nchildren, sizeof(int));
    pool->cost = Rb_AllocArray((size_t)mux->nchildren, sizeof(double));
    for (i = 0; i < mux->nchildren; i++) {
	pool->order[i] = i;
    }
    pool->tids = Rb_AllocArray((size_t)pool->nworkers, sizeof(pthread_t));
    pool->scratch = Rb_AllocArray((size_t)threads + 1, sizeof(uint32_t *));
    for (i = 0; i < threads; i++) {
	pool->scratch[i] = Rb_AllocArray(RB_BATCH_SIZE, sizeof(uint32_t));
    }
    pool->workers = Rb_AllocArray((size_t)pool->nworkers, sizeof(Worker));
    pthread_mutex_init(&pool->mu, NULL);
    pthread_cond_init(&pool->go, NULL);
    pthread_cond_init(&pool->done, NULL);
    /* Signals sent to the process (SIGINT, SIGTERM, ...) stay the run's
     * thread's to take; a fault (SIGSEGV, SIGBUS, ...) stays the faulting
     * thread's, for the sanitizers and the core dump. */
    sigfillset(&all);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    sigdelset(&all, SIGABRT);
    sigdelset(&all, SIGTRAP);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    for (i = 0; i < pool->nworkers; i++) {
	pool->workers[i].pool = pool;
	pool->workers[i].index = i;
	if (pthread_create(&pool->tids[i], NULL, WorkerMain,
		&pool->workers[i]) != 0) {
	    break;
	}
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pool->nworkers = i;		/* Those that started. */
    eng->pool = pool;
    mux->parallel = 1;
    return pool->nworkers + 1;
}

/*
 * RbParallelChildren --
 *	Pushes a batch to every child of mux, the children spread over the
 *	run's threads.
 * Results: 1, or 0 when the engine has no workers (the caller pushes
 *	the children itself).
 */
int
RbParallelChildren(Rb_Node *mux, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    RbPool *pool = mux->eng->pool;

    if (pool == NULL || pool->nworkers == 0) {
	return 0;
    }
    RbParallelWait(mux->eng);
    SortOrder(pool);
    pthread_mutex_lock(&pool->mu);
    pool->mux = mux;
    pool->b = b;
    pool->sel = sel;
    pool->nsel = nsel;
    pool->next = 0;
    pool->busy = pool->nworkers;
    pool->generation++;
    pthread_cond_broadcast(&pool->go);
    pthread_mutex_unlock(&pool->mu);
    pool->pending = 1;
    if (!pool->async) {
	RbParallelWait(mux->eng);
    }
    return 1;
}

/*
 * RbParallelAsync --
 *	Turns on (on = 1) or off the hand-out of batches without waiting
 *	(see the top of the file); off waits for a batch out.
 * Results: whether batches are now handed out so (0 for a run on one
 *	thread).
 */
int
RbParallelAsync(Rb_Engine *eng, int on)
{
    RbPool *pool = eng->pool;

    if (pool == NULL || pool->nworkers == 0) {
	return 0;
    }
    if (!on) {
	RbParallelWait(eng);
    }
    pool->async = on;
    return on;
}

/*
 * RbParallelPending --
 *	Whether a batch handed out may still be being analyzed.
 */
int
RbParallelPending(const Rb_Engine *eng)
{
    return eng->pool != NULL && eng->pool->pending;
}

/*
 * RbParallelWait --
 *	When a batch is out: the run's thread takes the children no worker
 *	has taken yet, then waits until the workers are done with it.
 */
void
RbParallelWait(Rb_Engine *eng)
{
    RbPool *pool = eng->pool;

    if (pool == NULL || !pool->pending) {
	return;
    }
    TakeChildren(pool, pool->scratch[0]);
    pthread_mutex_lock(&pool->mu);
    while (pool->busy > 0) {
	pthread_cond_wait(&pool->done, &pool->mu);
    }
    pthread_mutex_unlock(&pool->mu);
    pool->pending = 0;
}

/*
 * RbParallelEnd --
 *	After a run's records: stops and joins the workers, frees the pool
 *	and unmarks the Mux.
 */
void
RbParallelEnd(Rb_Engine *eng)
{
    RbPool *pool = eng->pool;
    Rb_Node *n;
    int i;

    for (n = eng->nodes; n != NULL; n = n->nextNode) {
	n->parallel = 0;
    }
    if (pool == NULL) {
	return;
    }
    RbParallelWait(eng);
    pthread_mutex_lock(&pool->mu);
    pool->quit = 1;
    pthread_cond_broadcast(&pool->go);
    pthread_mutex_unlock(&pool->mu);
    for (i = 0; i < pool->nworkers; i++) {
	pthread_join(pool->tids[i], NULL);
    }
    pthread_mutex_destroy(&pool->mu);
    pthread_cond_destroy(&pool->go);
    pthread_cond_destroy(&pool->done);
    for (i = 0; pool->scratch[i] != NULL; i++) {
	free(pool->scratch[i]);
    }
    free(pool->scratch);
    free(pool->tids);
    free(pool->workers);
    free(pool->order);
    free(pool->cost);
    free(pool);
    eng->pool = NULL;
}
