/*
 * split.c --
 *
 *	SplitTransformer: an I/O larger than -max bytes becomes pieces of
 *	-max bytes at consecutive offsets (device and volume), as a driver
 *	with that transfer limit would issue it.  Each piece keeps the
 *	original's times.  One I/O becomes at most RB_SPLIT_MAX_PIECES
 *	pieces, which bounds the output batch; the last piece of a larger
 *	I/O carries the remainder.
 */

#include "transformers.h"

typedef struct SplitState {
    int64_t max;		/* -max bytes */
    int fSize;
    int fOffsets[2];		/* devOffset, lvOffset; -1 if missing */
} SplitState;

static const Rb_Option splitOptions[] = {
    {"-max", RB_OPT_INT, offsetof(SplitState, max), "131072",
	"largest piece in bytes"},
    {NULL}
};

/*
 * SplitInit --
 *	Checks -max.
 */
static int
SplitInit(Rb_Transformer *t, Tcl_Interp *interp)
{
    SplitState *st = t->state;

    if (st->max < 1) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"-max must be at least 1 byte, not %lld", (long long)st->max);
    }
    return TCL_OK;
}

/*
 * SplitStart --
 *	Resolves size (required) and the offsets the schema has.
 */
static int
SplitStart(Rb_Transformer *t, const Rb_RunInfo *run)
{
    SplitState *st = t->state;

    st->fOffsets[0] = Rb_SchemaFieldIndex(run->schema, "devOffset");
    st->fOffsets[1] = Rb_SchemaFieldIndex(run->schema, "lvOffset");
    return RbXfField(t, run->schema, "size", &st->fSize);
}

/*
 * SplitTransform --
 *	Copies each selected record, in pieces when it is larger than -max.
 */
static int
SplitTransform(Rb_Transformer *t, const Rb_Batch *in, const uint32_t *sel,
	int nsel, Rb_Batch *out)
{
    SplitState *st = t->state;
    int j, k, f;

    for (j = 0; j < nsel; j++) {
	int i = sel[j];
	int64_t reqSize = in->col[st->fSize][i], done = 0;
	int64_t pieces;

	if (reqSize == RB_ABSENT || reqSize <= st->max) {
	    Rb_BatchCopyRecord(out, in, i);
	    continue;
	}
	pieces = reqSize / st->max + (reqSize % st->max != 0);
	if (pieces > RB_SPLIT_MAX_PIECES) {
	    pieces = RB_SPLIT_MAX_PIECES;
	}
	for (k = 0; k < pieces; k++) {
	    int o = Rb_BatchCopyRecord(out, in, i);

	    out->col[st->fSize][o] = k == pieces - 1 ? reqSize - done
		    : st->max;
	    for (f = 0; f < 2; f++) {
		int64_t *off;

		if (st->fOffsets[f] < 0) {
		    continue;
		}
		off = &out->col[st->fOffsets[f]][o];
		if (*off != RB_ABSENT) {
		    *off += done;
		}
	    }
	    done += st->max;
	}
    }
    return TCL_OK;
}

const Rb_TransformerClass Rb_SplitTransformerClass = {
    "SplitTransformer",
    "splits I/Os larger than -max bytes into pieces (at most 64 per I/O)",
    sizeof(SplitState), splitOptions,
    SplitInit, SplitStart, SplitTransform, NULL, NULL,
    RB_SPLIT_MAX_PIECES
};
