/*
 * kit.c --
 *
 *	Registers the built-in Analyzer classes.
 */

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "core/rbInt.h"
#include "analyzers.h"

static const Rb_AnalyzerClass *const kitClasses[] = {
    &Rb_RateAnalyzerClass,
    &Rb_BandwidthAnalyzerClass,
    &Rb_SizeAnalyzerClass,
    &Rb_ReadFractionAnalyzerClass,
    &Rb_SeqRunAnalyzerClass,
    &Rb_SizeHistogramAnalyzerClass,
    &Rb_ResponseTimeAnalyzerClass,
    &Rb_ShareAnalyzerClass,
    &Rb_FieldStatsAnalyzerClass,
    &Rb_FieldHistogramAnalyzerClass,
    &Rb_FieldPercentilesAnalyzerClass,
    &Rb_DistinctAnalyzerClass,
    &Rb_InterArrivalAnalyzerClass,
    &Rb_UtilizationAnalyzerClass,
    &Rb_LiveAnalyzerClass,
    &Rb_QueueDepthAnalyzerClass,
    &Rb_SeekDistanceAnalyzerClass,
    &Rb_FootprintAnalyzerClass,
    &Rb_AlignmentAnalyzerClass,
    &Rb_ReuseDistanceAnalyzerClass,
    &Rb_OnOffAnalyzerClass,
    &Rb_DispersionAnalyzerClass,
    &Rb_HurstAnalyzerClass,
    &Rb_OverlapAnalyzerClass,
    &Rb_CorrelationAnalyzerClass,
    &Rb_ReadAfterWriteAnalyzerClass,
    &Rb_ReReferenceAnalyzerClass,
    &Rb_WorkingSetAnalyzerClass,
    &Rb_TopKAnalyzerClass,
    &Rb_StreamAnalyzerClass,
    &Rb_HotRegionAnalyzerClass,
    &Rb_SeriesAnalyzerClass,
    &Rb_HeatmapAnalyzerClass,
    &Rb_CacheSimAnalyzerClass,
    &Rb_PopularityAnalyzerClass,
    &Rb_PatternAnalyzerClass,
    &Rb_BlockLifetimeAnalyzerClass,
    &Rb_StrideAnalyzerClass,
    &Rb_EntropyAnalyzerClass,
    &Rb_BalanceAnalyzerClass,
    &Rb_SloAnalyzerClass,
    &Rb_ServiceModelAnalyzerClass,
    &Rb_PeakRateAnalyzerClass,
    &Rb_ArrivalFitAnalyzerClass,
    &Rb_ThinkTimeAnalyzerClass,
    &Rb_OneHitWonderAnalyzerClass,
    &Rb_ObjectSizeAnalyzerClass,
    &Rb_ReuseTimeAnalyzerClass,
    &Rb_PopularityDecayAnalyzerClass,
    &Rb_OpMixAnalyzerClass,
};

/* The statistics classes that take -by (groupBy.c). */
static const Rb_AnalyzerClass *const groupedClasses[] = {
    &Rb_ResponseTimeAnalyzerClass,
    &Rb_SizeAnalyzerClass,
    &Rb_RateAnalyzerClass,
    &Rb_BandwidthAnalyzerClass,
    &Rb_ReadFractionAnalyzerClass,
    &Rb_InterArrivalAnalyzerClass,
    &Rb_SizeHistogramAnalyzerClass,
    &Rb_OpMixAnalyzerClass,
};

/*
 * KitClass --
 *	Built-in class i as registered: with -by added (RbKitGroupedClass,
 *	made once) for the statistics classes, else as it is.
 */
static const Rb_AnalyzerClass *
KitClass(size_t i)
{
    size_t j;

    for (j = 0; j < sizeof(groupedClasses) / sizeof(groupedClasses[0]);
	    j++) {
	if (groupedClasses[j] == kitClasses[i]) {
	    return RbKitGroupedClass(kitClasses[i]);
	}
    }
    return kitClasses[i];
}

/*
 * RbAnalyzerClassBuiltin --
 *	Whether cls is a built-in class as registered that keeps to its own
 *	state in its hooks, so that analyzers of it may take batches on
 *	threads of their own (parallel.c): every built-in class but
 *	LiveAnalyzer, which evaluates Tcl.
 */
int
RbAnalyzerClassBuiltin(const Rb_AnalyzerClass *cls)
{
    size_t i;

    if (cls == &Rb_LiveAnalyzerClass) {
	return 0;
    }
    for (i = 0; i < sizeof(kitClasses) / sizeof(kitClasses[0]); i++) {
	if (cls == KitClass(i)) {
	    return 1;
	}
    }
    return 0;
}

/*
 * RbAnalyzerKitInit --
 *	Registers every built-in Analyzer class with interp, the statistics
 *	classes with -by added.
 * Results: TCL_OK, or TCL_ERROR from the first registration that fails.
 * Side effects: creates the classes' Tcl commands.
 */
int
RbAnalyzerKitInit(Tcl_Interp *interp)
{
    size_t i;

    for (i = 0; i < sizeof(kitClasses) / sizeof(kitClasses[0]); i++) {
	if (Rb_RegisterAnalyzer(interp, KitClass(i)) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    return TCL_OK;
}
