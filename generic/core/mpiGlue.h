/*
 * mpiGlue.h --
 *
 *	The Open MPI calls of split runs (mpi.c), behind a table of
 *	functions that librubiconmpi.so (unix/mpiGlue.c, linked with
 *	libmpi) fills.  The program and the library load that object only
 *	when the process was started by mpirun, so that a plain run pays
 *	nothing for linking libmpi and its dependencies.  The table uses
 *	no MPI type: datatypes are RB_MPI_BYTE, RB_MPI_INT or RB_MPI_CHAR,
 *	requests are opaque, and everything is on MPI_COMM_WORLD.
 */

#ifndef RB_MPI_GLUE_H
#define RB_MPI_GLUE_H

#define RB_MPI_GLUE_VERSION 1
#define RB_MPI_GLUE_LIB "librubiconmpi.so"
#define RB_MPI_GLUE_SYM "RbMpiGlueTable"

enum { RB_MPI_BYTE, RB_MPI_INT, RB_MPI_CHAR };

typedef struct RbMpiGlue {
    int version;		/* RB_MPI_GLUE_VERSION */
    /* MPI_Init unless done; this rank and the number of ranks.  0 on
     * success. */
    int (*init)(int *rank, int *size);
    /* MPI_Finalize unless done. */
    void (*finalize)(void);
    /* MPI_Iprobe for a message from rank `from` with tag: 1 when one
     * waits (its length in bytes in *bytes), 0 when none, -1 on error. */
    int (*iprobe)(int from, int tag, int *bytes);
    /* MPI_Recv of count items of type. 0 on success. */
    int (*recv)(void *buf, int count, int type, int from, int tag);
    /* MPI_Isend: the request, NULL on failure. */
    void *(*isend)(const void *buf, int count, int type, int to, int tag);
    /* MPI_Test of a request: 1 (and the request freed) when complete. */
    int (*test)(void *req);
    /* MPI_Request_free: the send completes on its own. */
    void (*requestFree)(void *req);
    /* MPI_Allreduce of n ints with MPI_SUM. */
    int (*allreduceSum)(const int *in, int *out, int n);
    /* MPI_Gather of count items of type to rank root. */
    int (*gather)(const void *send, int count, int type, void *recv,
	    int root);
    /* MPI_Abort of the job. */
    void (*abort)(int status);
} RbMpiGlue;

typedef const RbMpiGlue *(RbMpiGlueTableProc)(void);

#endif /* RB_MPI_GLUE_H */
