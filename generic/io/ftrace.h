/*
 * ftrace.h --
 *
 *	What the two readers of Linux ftrace block-layer text share (the
 *	blk tracer, blktracer.c, and the block tracepoints, blockevents.c):
 *	the line head "TASK-PID [CPU] FLAGS SECONDS:" that tracefs,
 *	trace-cmd and perf print, and a reader whose events are paired into
 *	I/O records by blkpair.c.  Each reader parses only what follows the
 *	head.
 */

#ifndef RB_FTRACE_H
#define RB_FTRACE_H

#include "io/blkpair.h"

/* Parses the fields of line l from index a (the first after the
 * timestamp) into ev.  Results: NULL, or the malformed kind with why
 * set.  An event that is not block I/O leaves ev->action 0. */
typedef const char *(RbFtraceTailProc)(Rb_Reader *r, const Rb_TextLine *l,
		    int a, Rb_BlkEvent *ev, char *why, size_t whyLen);

typedef struct RbFtraceState {
    Rb_Text tx;
    Rb_BlkPair *pair;
    RbFtraceTailProc *tail;
} RbFtraceState;

int		RbFtraceHead(char **f, int nf, int64_t *time, uint32_t *pid,
		    char *why, size_t whyLen);
int		RbFtraceOpen(Rb_Reader *r, RbFtraceTailProc *tail);
int		RbFtraceNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err);
void		RbFtraceClose(Rb_Reader *r);

#endif /* RB_FTRACE_H */
