/*
 * largeIo.c --
 *
 *	An Analyzer written outside the Rubicon tree, as a plugin author
 *	would: it includes only rubicon.h, links only the Tcl stub library,
 *	and reaches Rubicon through the stubs table.
 *
 *	    load ./liblargeio.so      (or: package require largeio)
 *	    Flow big [LargeIoAnalyzer -threshold 65536]
 *
 *	LargeIoAnalyzer counts the I/Os at least -threshold bytes long and
 *	their share of all bytes.  devLatency.c, in the same library, shows
 *	the analyzer toolbox (key tables, histograms, moments, time bins)
 *	and the hooks of a class that merges for split runs.
 */

#define RUBICON_STUBS_IMPLEMENTATION
#include "rubicon.h"

typedef struct LargeIoState {
    int64_t threshold;		/* -threshold, bytes */
    uint64_t large, all;
    double largeBytes, allBytes;
} LargeIoState;

static const Rb_Option largeIoOptions[] = {
    {"-threshold", RB_OPT_INT, offsetof(LargeIoState, threshold), "65536",
     "smallest size, in bytes, that counts as large"},
    {NULL}
};

static const char *const largeIoAttrs[] = {
    "LargeIOs", "LargeByteFraction", NULL
};

static int
LargeIoStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    LargeIoState *s = a->state;

    s->large = s->all = 0;
    s->largeBytes = s->allBytes = 0;
    return TCL_OK;
}

/*
 * LargeIoBatch --
 *	Counts the selected records of a batch: one loop, no calls.
 */
static void
LargeIoBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel, int n)
{
    LargeIoState *s = a->state;
    const int64_t *size = b->col[RB_IO_SIZE];
    int k;

    for (k = 0; k < n; k++) {
	int64_t v = size[sel[k]];

	if (v == RB_ABSENT) {
	    continue;
	}
	s->all++;
	s->allBytes += v;
	if (v >= s->threshold) {
	    s->large++;
	    s->largeBytes += v;
	}
    }
}

static int
LargeIoEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    LargeIoState *s = a->state;

    Rb_AnalyzerSet(a, Rb_AttrScalar("LargeIOs", (double)s->large, "I/Os",
	    "I/Os of at least -threshold bytes"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("LargeByteFraction", s->allBytes > 0
	    ? s->largeBytes / s->allBytes : 0, "",
	    "fraction of bytes in large I/Os"));
    return TCL_OK;
}

static const Rb_AnalyzerClass largeIoClass = {
    .name = "LargeIoAnalyzer",
    .help = "example plugin: I/Os of at least -threshold bytes",
    .stateSize = sizeof(LargeIoState),
    .options = largeIoOptions,
    .attrs = largeIoAttrs,
    .mergeable = 1,
    .start = LargeIoStart,
    .batch = LargeIoBatch,
    .end = LargeIoEnd,
    /* It reads the I/O size by its fixed index: declared, a run over
     * records without it fails at the start instead of crashing. */
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};

/* The toolbox example, in devLatency.c. */
extern const Rb_AnalyzerClass devLatencyClass;

/*
 * Largeio_Init --
 *	Package entry: binds to Tcl and Rubicon through their stubs and
 *	registers the classes, which makes the LargeIoAnalyzer and
 *	DevLatencyAnalyzer commands.
 */
int
Largeio_Init(Tcl_Interp *interp)
{
    if (Tcl_InitStubs(interp, "8.6", 0) == NULL
	    || Rubicon_InitStubs(interp) == NULL) {
	return TCL_ERROR;
    }
    if (Rb_RegisterAnalyzer(interp, &largeIoClass) != TCL_OK
	    || Rb_RegisterAnalyzer(interp, &devLatencyClass) != TCL_OK) {
	return TCL_ERROR;
    }
    return Tcl_PkgProvide(interp, "largeio", "1.0");
}
