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

void		RbMpiInit(void);
int		RbMpiInitCmds(Tcl_Interp *interp);
int		RbMpiRank(void);
int		RbMpiSize(void);
int		RbMpiSplit(void);
void		RbMpiShard(int n, const char *const *paths, int rank,
		    int size, int *lo, int *hi);
int		RbMpiCheckSplit(Tcl_Interp *interp, Rb_Engine *eng,
		    Rb_Flow **flows, int nflows);
int		RbMpiReduce(Tcl_Interp *interp, Rb_Flow **flows, int nflows,
		    Rb_RunInfo *run, Tcl_Obj *files, Tcl_Obj **errResult,
		    Tcl_Obj **errOptions);
void		RbMpiWorkerExit(int status);

/* run.c */
void		RbMergeSkipCounts(Rb_RunInfo *run, Tcl_Obj *counts);

#endif /* RB_MPI_H */
