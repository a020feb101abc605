/*
 * mpiGlue.c --
 *
 *	librubiconmpi.so: the Open MPI calls of split runs, in the table
 *	generic/core/mpiGlue.h describes.  It is the only object linked
 *	with libmpi; mpi.c loads it with dlopen when Open MPI's environment
 *	says the process was started by mpirun.
 */

#include <stdlib.h>
#include <mpi.h>
#include "core/mpiGlue.h"

/* Type -- the MPI datatype of an RB_MPI_ code. */
static MPI_Datatype
Type(int type)
{
    return type == RB_MPI_INT ? MPI_INT : type == RB_MPI_CHAR ? MPI_CHAR
	    : MPI_BYTE;
}

/* The table's functions: mpiGlue.h says what each does and returns. */
static int
Init(int *rank, int *size)
{
    int done = 0;

    MPI_Initialized(&done);
    if (!done && MPI_Init(NULL, NULL) != MPI_SUCCESS) {
	return -1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return 0;
}

static void
Finalize(void)
{
    int done = 0;

    MPI_Finalized(&done);
    if (!done) {
	MPI_Finalize();
    }
}

static int
Iprobe(int from, int tag, int *bytes)
{
    int flag = 0;
    MPI_Status status;

    if (MPI_Iprobe(from, tag, MPI_COMM_WORLD, &flag, &status)
	    != MPI_SUCCESS) {
	return -1;
    }
    if (flag && bytes != NULL) {
	MPI_Get_count(&status, MPI_BYTE, bytes);
    }
    return flag != 0;
}

static int
Recv(void *buf, int count, int type, int from, int tag)
{
    return MPI_Recv(buf, count, Type(type), from, tag, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0 : -1;
}

static void *
Isend(const void *buf, int count, int type, int to, int tag)
{
    MPI_Request *req = malloc(sizeof(*req));

    if (req != NULL && MPI_Isend(buf, count, Type(type), to, tag,
	    MPI_COMM_WORLD, req) != MPI_SUCCESS) {
	free(req);
	req = NULL;
    }
    return req;
}

static int
Test(void *req)
{
    int done = 0;

    MPI_Test((MPI_Request *)req, &done, MPI_STATUS_IGNORE);
    if (done) {
	free(req);
    }
    return done != 0;
}

static void
RequestFree(void *req)
{
    MPI_Request_free((MPI_Request *)req);
    free(req);
}

static int
AllreduceSum(const int *in, int *out, int n)
{
    return MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD)
	    == MPI_SUCCESS ? 0 : -1;
}

static int
Gather(const void *send, int count, int type, void *recv, int root)
{
    return MPI_Gather(send, count, Type(type), recv, count, Type(type),
	    root, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

static void
Abort(int status)
{
    MPI_Abort(MPI_COMM_WORLD, status);
}

static const RbMpiGlue glue = {
    RB_MPI_GLUE_VERSION, Init, Finalize, Iprobe, Recv, Isend, Test,
    RequestFree, AllreduceSum, Gather, Abort
};

/*
 * RbMpiGlueTable --
 *	The one symbol mpi.c looks up.
 */
const RbMpiGlue *
RbMpiGlueTable(void)
{
    return &glue;
}
