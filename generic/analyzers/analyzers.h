/*
 * analyzers.h --
 *
 *	The built-in Analyzer classes, one file each in this folder, which
 *	holds Analyzer classes only (and kit.c, which registers them).  What
 *	they keep their state in and share is the toolbox, generic/toolbox/.
 */

#ifndef RB_ANALYZERS_H
#define RB_ANALYZERS_H

#include "rubicon.h"
#include "toolbox/toolbox.h"

extern const Rb_AnalyzerClass Rb_RateAnalyzerClass;
extern const Rb_AnalyzerClass Rb_BandwidthAnalyzerClass;
extern const Rb_AnalyzerClass Rb_SizeAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ReadFractionAnalyzerClass;
extern const Rb_AnalyzerClass Rb_SeqRunAnalyzerClass;
extern const Rb_AnalyzerClass Rb_SizeHistogramAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ResponseTimeAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ShareAnalyzerClass;
extern const Rb_AnalyzerClass Rb_FieldStatsAnalyzerClass;
extern const Rb_AnalyzerClass Rb_FieldHistogramAnalyzerClass;
extern const Rb_AnalyzerClass Rb_FieldPercentilesAnalyzerClass;
extern const Rb_AnalyzerClass Rb_DistinctAnalyzerClass;
extern const Rb_AnalyzerClass Rb_InterArrivalAnalyzerClass;
extern const Rb_AnalyzerClass Rb_UtilizationAnalyzerClass;
extern const Rb_AnalyzerClass Rb_LiveAnalyzerClass;
extern const Rb_AnalyzerClass Rb_QueueDepthAnalyzerClass;
extern const Rb_AnalyzerClass Rb_SeekDistanceAnalyzerClass;
extern const Rb_AnalyzerClass Rb_FootprintAnalyzerClass;
extern const Rb_AnalyzerClass Rb_AlignmentAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ReuseDistanceAnalyzerClass;
extern const Rb_AnalyzerClass Rb_OnOffAnalyzerClass;
extern const Rb_AnalyzerClass Rb_DispersionAnalyzerClass;
extern const Rb_AnalyzerClass Rb_HurstAnalyzerClass;
extern const Rb_AnalyzerClass Rb_OverlapAnalyzerClass;
extern const Rb_AnalyzerClass Rb_CorrelationAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ReadAfterWriteAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ReReferenceAnalyzerClass;
extern const Rb_AnalyzerClass Rb_WorkingSetAnalyzerClass;
extern const Rb_AnalyzerClass Rb_TopKAnalyzerClass;
extern const Rb_AnalyzerClass Rb_StreamAnalyzerClass;
extern const Rb_AnalyzerClass Rb_HotRegionAnalyzerClass;
extern const Rb_AnalyzerClass Rb_SeriesAnalyzerClass;
extern const Rb_AnalyzerClass Rb_HeatmapAnalyzerClass;
extern const Rb_AnalyzerClass Rb_CacheSimAnalyzerClass;
extern const Rb_AnalyzerClass Rb_PopularityAnalyzerClass;
extern const Rb_AnalyzerClass Rb_PatternAnalyzerClass;
extern const Rb_AnalyzerClass Rb_BlockLifetimeAnalyzerClass;
extern const Rb_AnalyzerClass Rb_StrideAnalyzerClass;
extern const Rb_AnalyzerClass Rb_EntropyAnalyzerClass;
extern const Rb_AnalyzerClass Rb_BalanceAnalyzerClass;
extern const Rb_AnalyzerClass Rb_SloAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ServiceModelAnalyzerClass;
extern const Rb_AnalyzerClass Rb_PeakRateAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ArrivalFitAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ThinkTimeAnalyzerClass;
extern const Rb_AnalyzerClass Rb_OneHitWonderAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ObjectSizeAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ReuseTimeAnalyzerClass;
extern const Rb_AnalyzerClass Rb_PopularityDecayAnalyzerClass;
extern const Rb_AnalyzerClass Rb_OpMixAnalyzerClass;

#endif /* RB_ANALYZERS_H */
