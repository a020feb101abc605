/*
 * checkpoint.h --
 *
 *	Checkpoints of a run and runs resumed from them (checkpoint.c), as
 *	the run driver (run.c) sees them.
 */

#ifndef RB_CHECKPOINT_H
#define RB_CHECKPOINT_H

#include "engine.h"
#include "mpi.h"

typedef struct RbCkpt {
    int active;			/* -checkpoint or -resume given */
    const char *path;		/* -checkpoint FILE, or NULL */
    int64_t everyRecords;	/* -checkpointevery in records, or 0 */
    double everySeconds;	/* ... in seconds of wall time */
    const char *resume;		/* -resume FILE, or NULL */
    char *rankPath, *rankResume;	/* Split run: FILE.RANK of each. */
    Tcl_Obj *split;		/* Split run: {ranks rank pieces}, or {}. */
    int missing;		/* Split run: no -resume file for this rank. */
    Tcl_Obj *fingerprint;	/* This run's configuration and traces. */
    double lastAt;		/* When the last checkpoint was taken. */
    uint64_t lastRecords;	/* The run's records then. */
    int written;		/* Checkpoints written. */
    /* Loaded from -resume: */
    int resumed;
    int file;			/* The trace reading stopped in ... */
    uint64_t fileRecords;	/* ... after this many of its records. */
    uint64_t offset;		/* Its input offset then (for the user). */
    uint64_t records, skipped;	/* The run's counts before. */
    int64_t gridFirst, localFirst, lastTime;
    Tcl_Obj *skipCounts, *files;
    int nshards;		/* States before, earliest first. */
    Rb_Buf *shards;
} RbCkpt;

void		RbCkptInit(RbCkpt *ck, const char *path,
		    int64_t everyRecords, double everySeconds,
		    const char *resume);
void		RbCkptSplit(RbCkpt *ck, int rank, int size,
		    const RbMpiPiece *pieces, int npieces);
int		RbCkptAgree(Tcl_Interp *interp, RbCkpt *ck, int rc);
int		RbCkptCheckInputs(Tcl_Interp *interp, RbCkpt *ck, int n,
		    Tcl_Obj *const paths[], int split, int records);
int		RbCkptCheck(Tcl_Interp *interp, RbCkpt *ck, Rb_Engine *eng,
		    Rb_Flow **flows, int nflows, const char *config, int n,
		    Tcl_Obj *const paths[], Tcl_Obj *runOpts);
int		RbCkptLoad(Tcl_Interp *interp, RbCkpt *ck);
int		RbCkptDue(RbCkpt *ck, uint64_t records, double now);
int		RbCkptWrite(Tcl_Interp *interp, RbCkpt *ck, Rb_Flow **flows,
		    int nflows, const Rb_RunInfo *run, int64_t gridFirst,
		    int64_t localFirst, int file, uint64_t fileRecords,
		    uint64_t offset, uint64_t skipped, Tcl_Obj *skipCounts,
		    Tcl_Obj *files, double now);
Tcl_Obj *	RbCkptFiles(RbCkpt *ck, Tcl_Obj *files);
int		RbCkptMergeBefore(Tcl_Interp *interp, RbCkpt *ck,
		    Rb_Flow **flows, int nflows, Rb_RunInfo *run);
void		RbCkptDone(RbCkpt *ck, int complete);

#endif /* RB_CHECKPOINT_H */
