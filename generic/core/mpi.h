/*
 * mpi.h --
 *
 *	Split runs over MPI ranks (mpi.c), as the run driver (run.c) and the
 *	rubicon program see them.  Everything here works, and does nothing,
 *	in a build without Open MPI or a process not started by mpirun.
 */

#ifndef RB_MPI_H
#define RB_MPI_H

#include "engine.h"

int		RbMpiInitCmds(Tcl_Interp *interp);
int		RbMpiRank(void);
int		RbMpiSize(void);
int		RbMpiSplit(void);
void		RbMpiSplitOver(void);
int		RbMpiSweep(void);
void		RbMpiSetSweep(int on);
/* A rank's piece of the traces: a file, or its records in a byte range
 * of it (kind 1 lines, 2 SRT records, 3 native blocks, 4 SRT records cut
 * where their heads line up, 5 fixed-length records; 0 the whole file). */
typedef struct RbMpiPiece {
    int file;			/* Index among the run's traces. */
    uint64_t begin, end;	/* Byte range when kind != 0. */
    int kind;
} RbMpiPiece;

int		RbMpiShard(int n, Tcl_Obj *const paths[], const char *format,
		    Tcl_Obj *readerOpts, int rank, int size,
		    RbMpiPiece **pieces);
int		RbSkimPieces(Tcl_Interp *interp, int n, Tcl_Obj *const paths[],
		    const char *format, Tcl_Obj *readerOpts, int count,
		    double fraction, RbMpiPiece **pieces, int *npieces);
int		RbMpiCheckSplit(Tcl_Interp *interp, Rb_Engine *eng,
		    Rb_Flow **flows, int nflows, int checkpoint);
int		RbMpiReduce(Tcl_Interp *interp, Rb_Flow **flows, int nflows,
		    Rb_RunInfo *run, Tcl_Obj *files, Tcl_Obj **errResult,
		    Tcl_Obj **errOptions);
Tcl_Obj *	RbMpiRankRecords(void);
void		RbMpiReduceTimes(double *reduce, double *merge);
void		RbMpiWorkerExit(int status);
int		RbMpiAgree(Tcl_Interp *interp, int ok, int *count);
void		RbMpiRemoveAfterSend(const char *path);
void		RbMpiAbort(int status);

/* A shard's state, for split runs and checkpoints (mpi.c); a Tcl value
 * in it as its string. */
void		RbPutObj(Rb_Buf *b, Tcl_Obj *obj);
Tcl_Obj *	RbGetObj(Rb_Buf *b);
int		RbSerializeFlows(Tcl_Interp *interp, Rb_Flow **flows,
		    int nflows, const Rb_RunInfo *run, Rb_Buf *b);
Rb_Analyzer *	RbCloneAnalyzer(Tcl_Interp *interp, Rb_Analyzer *a,
		    const Rb_RunInfo *run);
int		RbMergeState(Tcl_Interp *interp, Rb_Analyzer *into,
		    Rb_Analyzer *like, const Rb_RunInfo *run,
		    const unsigned char *data, size_t len, const char *from);
/* Whether the run going on (or next) will merge partial states: split
 * over ranks, or checkpointed (its state may be merged into a resumed
 * run's); and whether this process's state is the run's first, into which
 * others are merged but which is merged into no other (rank 0 of a split
 * run; never with checkpoints, whose states are merged into an empty
 * one). */
int		RbMergeWanted(void);
int		RbShardFirst(void);
void		RbSetCheckpointMode(int checkpointing, int resumed);

/* run.c */
void		RbMergeSkipCounts(Rb_RunInfo *run, Tcl_Obj *counts);
int		RbRunSignal(void);
void		RbRunNoteSignal(int sig);
void		RbMpiHeartbeat(void);

#endif /* RB_MPI_H */
