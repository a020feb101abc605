/*
 * reporterWorkload.c --
 *
 *	ReporterWorkload: each Flow's characterization as a workload that
 *	can be loaded back and replayed.  The -output directory receives
 *	    workload.tcl	a Tcl dict, flow name -> characterization,
 *				read back by "rubicon::workload load"
 *	    FLOW.fio		a fio job file per Flow replaying it
 *	The characterization is taken from whatever Attributes a Flow has,
 *	by their well-known names (Rate, SizeHistogram, ReadFraction,
 *	SeqFraction...); a Flow without one simply lacks that key, and its
 *	job file falls back to fio's default and says so.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

/* fio needs whole sectors for direct I/O. */
#define SECTOR 512

/*
 * Scalar Attributes carried into the dict, by name, with their key.
 */
static const struct {
    const char *attr;
    const char *key;
} scalarKeys[] = {
    {"Rate", "rate"},
    {"Bandwidth", "bandwidth"},
    {"Count", "ios"},
    {"MeanSize", "meanSize"},
    {"MinSize", "minSize"},
    {"MaxSize", "maxSize"},
    {"ReadFraction", "readFraction"},
    {"ReadByteFraction", "readByteFraction"},
    {"SeqFraction", "seqFraction"},
    {"SeqRunLength", "seqRunLength"},
    {"SeqRunBytes", "seqRunBytes"},
    {"MeanInterArrival", "interArrivalMean"},
    {"InterArrivalCV", "interArrivalCV"},
    {"MeanQueueDepth", "queueDepth"},
    {"Utilization", "utilization"},
    {"FootprintBytes", "footprint"},
    {NULL, NULL}
};

/*
 * What one Flow's job file is made from; a field is NAN when the Flow
 * had no such Attribute.
 */
typedef struct Workload {
    double rate, meanSize, readFraction, seqFraction, seqRunLength;
    double interArrivalCV, queueDepth, footprint;
    const Rb_Attribute *sizes;	/* SizeHistogram, or NULL */
    int lo, hi, count;		/* its columns */
} Workload;

/*
 * FindAttr --
 *	The Attribute called name among flow i's items of the set, or NULL.
 */
static const Rb_Attribute *
FindAttr(const Rb_ReportSet *set, int i, const char *name)
{
    int j;

    for (j = set->first[i]; j < set->first[i + 1]; j++) {
	if (strcmp(set->items[j].attr->name, name) == 0) {
	    return set->items[j].attr;
	}
    }
    return NULL;
}

/*
 * ScalarValue --
 *	The finite number a scalar Attribute holds, or NAN when a is NULL,
 *	not a numeric scalar, or not finite.
 */
static double
ScalarValue(const Rb_Attribute *a)
{
    if (a == NULL || a->kind != RB_ATTR_SCALAR || a->nrows < 1
	    || a->ncols < 1 || a->cols[0].isText
	    || !isfinite(a->cols[0].num[0])) {
	return NAN;
    }
    return a->cols[0].num[0];
}

/*
 * Characterize --
 *	Fills w from flow i's Attributes and appends the dict's key/value
 *	pairs to dict (a list).
 */
static void
Characterize(const Rb_ReportSet *set, int i, const Rb_RunInfo *run,
	Workload *w, Tcl_Obj *dict)
{
    const Rb_Attribute *h;
    char buf[RB_NUMBUF];
    int k, r;

    for (k = 0; scalarKeys[k].attr != NULL; k++) {
	double v = ScalarValue(FindAttr(set, i, scalarKeys[k].attr));

	if (!isnan(v)) {
	    Tcl_ListObjAppendElement(NULL, dict,
		    Tcl_NewStringObj(scalarKeys[k].key, -1));
	    Tcl_ListObjAppendElement(NULL, dict,
		    Tcl_NewStringObj(RbReportNum(v, buf), -1));
	}
    }
    w->rate = ScalarValue(FindAttr(set, i, "Rate"));
    w->meanSize = ScalarValue(FindAttr(set, i, "MeanSize"));
    w->readFraction = ScalarValue(FindAttr(set, i, "ReadFraction"));
    w->seqFraction = ScalarValue(FindAttr(set, i, "SeqFraction"));
    w->seqRunLength = ScalarValue(FindAttr(set, i, "SeqRunLength"));
    w->interArrivalCV = ScalarValue(FindAttr(set, i, "InterArrivalCV"));
    w->queueDepth = ScalarValue(FindAttr(set, i, "MeanQueueDepth"));
    w->footprint = ScalarValue(FindAttr(set, i, "FootprintBytes"));

    w->sizes = NULL;
    h = FindAttr(set, i, "SizeHistogram");
    if (h != NULL && h->kind == RB_ATTR_HISTOGRAM) {
	w->lo = Rb_AttrColumnIndex(h, "lo");
	w->hi = Rb_AttrColumnIndex(h, "hi");
	w->count = Rb_AttrColumnIndex(h, "count");
	if (w->lo >= 0 && w->hi >= 0 && w->count >= 0
		&& !h->cols[w->lo].isText && !h->cols[w->hi].isText
		&& !h->cols[w->count].isText) {
	    Tcl_Obj *bins = Tcl_NewListObj(0, NULL);

	    for (r = 0; r < h->nrows; r++) {
		Tcl_Obj *bin = Tcl_NewListObj(0, NULL);
		int cols[3] = {w->lo, w->hi, w->count}, c;

		for (c = 0; c < 3; c++) {
		    Tcl_ListObjAppendElement(NULL, bin, Tcl_NewStringObj(
			    RbReportNum(h->cols[cols[c]].num[r], buf), -1));
		}
		Tcl_ListObjAppendElement(NULL, bins, bin);
	    }
	    Tcl_ListObjAppendElement(NULL, dict,
		    Tcl_NewStringObj("sizes", -1));
	    Tcl_ListObjAppendElement(NULL, dict, bins);
	    w->sizes = h;
	}
    }
    if (run->records > 0 && run->firstTime <= run->lastTime) {
	Tcl_ListObjAppendElement(NULL, dict, Tcl_NewStringObj("duration", -1));
	Tcl_ListObjAppendElement(NULL, dict, Tcl_NewStringObj(RbReportNum(
		(double) (run->lastTime - run->firstTime) / 1e9, buf), -1));
    }
}

/*
 * WriteDictEntry --
 *	Writes one Flow of workload.tcl: its name as a list element, then
 *	its pairs one per line inside braces.  Keys and values are words
 *	and lists of numbers, so the braces around them need no escaping.
 */
static void
WriteDictEntry(FILE *fp, const char *flow, Tcl_Obj *dict)
{
    Tcl_Obj *name = Tcl_NewListObj(0, NULL), **kv;
    int n, k;

    Tcl_IncrRefCount(name);
    Tcl_ListObjAppendElement(NULL, name, Tcl_NewStringObj(flow, -1));
    fprintf(fp, "%s {\n", Tcl_GetString(name));
    Tcl_DecrRefCount(name);
    Tcl_ListObjGetElements(NULL, dict, &n, &kv);
    for (k = 0; k + 1 < n; k += 2) {
	Tcl_Obj *pair = Tcl_NewListObj(2, kv + k);

	Tcl_IncrRefCount(pair);
	fprintf(fp, "    %s\n", Tcl_GetString(pair));
	Tcl_DecrRefCount(pair);
    }
    fputs("}\n", fp);
}

/*
 * BlockSize --
 *	A request size fio accepts for direct I/O: v rounded to the
 *	nearest whole sector, at least one sector.
 */
static long long
BlockSize(double v)
{
    long long bs = llround(v / SECTOR) * SECTOR;

    return bs < SECTOR ? SECTOR : bs;
}

/*
 * Percentages --
 *	Integer percentages of the n weights summing to exactly 100, by
 *	largest remainder, as fio's bssplit wants.  Weights must sum > 0.
 */
static void
Percentages(const double *weight, int n, int *pct)
{
    double total = 0, *rem = (double *) Rb_AllocArray(n + 1, sizeof(double));
    int i, left = 100;

    for (i = 0; i < n; i++) {
	total += weight[i];
    }
    for (i = 0; i < n; i++) {
	double exact = 100.0 * weight[i] / total;

	pct[i] = (int) floor(exact);
	rem[i] = exact - pct[i];
	left -= pct[i];
    }
    while (left > 0) {
	int best = 0;

	for (i = 1; i < n; i++) {
	    if (rem[i] > rem[best]) {
		best = i;
	    }
	}
	pct[best]++;
	rem[best] = -1;
	left--;
    }
    free(rem);
}

/*
 * AppendBsSplit --
 *	The size distribution as fio's bssplit: each histogram bin becomes
 *	one block size (its lower bound, or its upper for a bin from 0,
 *	rounded to sectors; bins that round alike are merged) with its
 *	share of the I/Os.
 * Results: 1 if a bssplit was appended, 0 if the histogram is empty.
 */
static int
AppendBsSplit(Tcl_DString *ds, const Workload *w)
{
    const Rb_Attribute *h = w->sizes;
    long long *bs = (long long *) Rb_AllocArray(h->nrows + 1,
	    sizeof(long long));
    double *weight = (double *) Rb_AllocArray(h->nrows + 1, sizeof(double));
    int *pct = (int *) Rb_AllocArray(h->nrows + 1, sizeof(int));
    int r, k, n = 0, written = 0;
    char buf[64];

    for (r = 0; r < h->nrows; r++) {
	double lo = h->cols[w->lo].num[r], hi = h->cols[w->hi].num[r];
	double count = h->cols[w->count].num[r];
	long long size;

	if (!(count > 0) || !isfinite(lo) || !isfinite(hi)) {
	    continue;
	}
	size = BlockSize(lo > 0 ? lo : hi);
	for (k = 0; k < n && bs[k] != size; k++) {
	}
	if (k == n) {
	    bs[n] = size;
	    weight[n++] = 0;
	}
	weight[k] += count;
    }
    if (n > 0) {
	Percentages(weight, n, pct);
	Tcl_DStringAppend(ds, "bssplit=", -1);
	for (k = 0; k < n; k++) {
	    if (pct[k] == 0) {
		continue;
	    }
	    snprintf(buf, sizeof(buf), "%s%lld/%d", written++ ? ":" : "",
		    bs[k], pct[k]);
	    Tcl_DStringAppend(ds, buf, -1);
	}
	Tcl_DStringAppend(ds, "\n", 1);
    }
    free(bs);
    free(weight);
    free(pct);
    return n > 0;
}

/*
 * AppendMeasured --
 *	A comment line "; name: value" for a measured value, if present.
 */
static void
AppendMeasured(Tcl_DString *ds, const char *name, double v, const char *unit)
{
    char buf[RB_NUMBUF];

    if (isnan(v)) {
	return;
    }
    Tcl_DStringAppend(ds, "; measured ", -1);
    Tcl_DStringAppend(ds, name, -1);
    Tcl_DStringAppend(ds, ": ", -1);
    Tcl_DStringAppend(ds, RbReportNum(v, buf), -1);
    Tcl_DStringAppend(ds, unit, -1);
    Tcl_DStringAppend(ds, "\n", 1);
}

/*
 * AppendOption --
 *	A "name=value" line with an integer value.
 */
static void
AppendOption(Tcl_DString *ds, const char *name, long long v)
{
    char buf[96];

    snprintf(buf, sizeof(buf), "%s=%lld\n", name, v);
    Tcl_DStringAppend(ds, buf, -1);
}

/*
 * JobFile --
 *	Sets ds to the fio job file replaying w.  The target is
 *	rubicon-replay.dat in the working directory: the user points
 *	filename at a scratch device or file before running it.
 */
static void
JobFile(Tcl_DString *ds, const char *flow, const char *section,
	const Workload *w, const Rb_RunInfo *run)
{
    double readFraction = isnan(w->readFraction) ? 0.5 : w->readFraction;
    double duration = 0;

    Tcl_DStringAppend(ds, "; Rubicon " RUBICON_VERSION
	    " workload replay of Flow ", -1);
    RbReportSanitize(flow, ds);
    Tcl_DStringAppend(ds, "\n; Check with: fio --parse-only FILE; "
	    "set filename to a scratch device or file before running.\n", -1);
    AppendMeasured(ds, "rate", w->rate, " IO/s");
    AppendMeasured(ds, "mean size", w->meanSize, " bytes");
    AppendMeasured(ds, "read fraction", w->readFraction, "");
    AppendMeasured(ds, "sequential fraction", w->seqFraction, "");
    AppendMeasured(ds, "mean sequential run", w->seqRunLength, " IOs");
    AppendMeasured(ds, "inter-arrival CV", w->interArrivalCV, "");
    AppendMeasured(ds, "mean queue depth", w->queueDepth, "");
    AppendMeasured(ds, "footprint", w->footprint, " bytes");

    Tcl_DStringAppend(ds, "\n[global]\nfilename=rubicon-replay.dat\n"
	    "direct=1\ntime_based=1\n", -1);
    if (run->records > 0 && run->firstTime <= run->lastTime) {
	duration = (double) (run->lastTime - run->firstTime) / 1e9;
    }
    AppendOption(ds, "runtime", duration >= 1 ? (long long) ceil(duration)
	    : 1);
    if (!isnan(w->footprint) && w->footprint >= SECTOR) {
	AppendOption(ds, "size", BlockSize(w->footprint));
    } else {
	Tcl_DStringAppend(ds, "; no FootprintBytes attribute: replay over 1 GiB\n"
		"size=1g\n", -1);
    }

    Tcl_DStringAppend(ds, "\n[", -1);
    Tcl_DStringAppend(ds, section, -1);
    Tcl_DStringAppend(ds, "]\nrw=randrw\n", -1);
    if (isnan(w->readFraction)) {
	Tcl_DStringAppend(ds, "; no ReadFraction attribute: half reads\n", -1);
    }
    AppendOption(ds, "rwmixread", llround(100 * readFraction));
    if (w->sizes == NULL || !AppendBsSplit(ds, w)) {
	if (!isnan(w->meanSize)) {
	    AppendOption(ds, "bs", BlockSize(w->meanSize));
	} else {
	    Tcl_DStringAppend(ds, "; no size attribute: 4 KiB requests\n"
		    "bs=4096\n", -1);
	}
    }
    if (!isnan(w->queueDepth) && llround(w->queueDepth) > 1) {
	/* Only an asynchronous engine keeps several I/Os outstanding. */
	Tcl_DStringAppend(ds, "ioengine=libaio\n", -1);
	AppendOption(ds, "iodepth", llround(w->queueDepth));
    }
    if (!isnan(w->seqFraction)) {
	/* fio draws each I/O's offset at random with this probability,
	 * else continues from the last one: a sequential fraction. */
	AppendOption(ds, "percentage_random",
		llround(100 * (1 - w->seqFraction)));
    }
    if (!isnan(w->rate) && w->rate > 0) {
	/* fio caps reads and writes separately; slower than one I/O per
	 * second is not expressible and becomes one. */
	long long reads = llround(w->rate * readFraction);
	long long writes = llround(w->rate * (1 - readFraction));
	char buf[96];

	snprintf(buf, sizeof(buf), "rate_iops=%lld,%lld\n",
		reads < 1 ? 1 : reads, writes < 1 ? 1 : writes);
	Tcl_DStringAppend(ds, buf, -1);
	if (!isnan(w->interArrivalCV)) {
	    /* Exponential gaps have CV 1; regular arrivals CV near 0. */
	    Tcl_DStringAppend(ds, w->interArrivalCV >= 0.5
		    ? "rate_process=poisson\n" : "rate_process=linear\n", -1);
	}
    }
}

/*
 * WorkloadWrite --
 *	The write hook: workload.tcl and one job file per bound Flow in the
 *	-output directory, created if missing.
 * Results: TCL_OK, or TCL_ERROR naming the first file that failed.
 */
static int
WorkloadWrite(Rb_Reporter *r, const Rb_RunInfo *run)
{
    Rb_ReportSet set;
    Rb_ReportNames names;
    Rb_Out dictOut, jobOut;
    Tcl_DString base, job;
    Tcl_Obj *dict;
    Workload w;
    int i, code = TCL_OK;

    if (RbReportCollect(r, &set) != TCL_OK) {
	return TCL_ERROR;
    }
    if (RbReportMkdir(r->interp, r->output) != TCL_OK
	    || RbReportOpen(r->interp, r->output, "workload", ".tcl",
		    &dictOut) != TCL_OK) {
	RbReportSetFree(&set);
	return TCL_ERROR;
    }
    fputs("# Rubicon " RUBICON_VERSION " workload: a dict of Flow name ->"
	    " characterization.\n# Load with: rubicon::workload load FILE\n",
	    dictOut.fp);
    RbReportNamesInit(&names);
    for (i = 0; i < set.nflows && code == TCL_OK; i++) {
	const char *flow = Rb_FlowName(set.flows[i]);

	dict = Tcl_NewListObj(0, NULL);
	Tcl_IncrRefCount(dict);
	Characterize(&set, i, run, &w, dict);
	WriteDictEntry(dictOut.fp, flow, dict);
	Tcl_DecrRefCount(dict);

	RbReportFileName(&names, flow, NULL, &base);
	code = RbReportOpen(r->interp, r->output, Tcl_DStringValue(&base),
		".fio", &jobOut);
	if (code == TCL_OK) {
	    Tcl_DStringInit(&job);
	    JobFile(&job, flow, Tcl_DStringValue(&base), &w, run);
	    fputs(Tcl_DStringValue(&job), jobOut.fp);
	    Tcl_DStringFree(&job);
	    code = Rb_OutClose(r->interp, &jobOut);
	}
	Tcl_DStringFree(&base);
    }
    RbReportNamesFree(&names);
    RbReportSetFree(&set);
    if (code != TCL_OK) {
	Rb_OutAbort(&dictOut);
	return code;
    }
    return Rb_OutClose(r->interp, &dictOut);
}

const Rb_ReporterClass Rb_ReporterWorkloadClass = {
    "ReporterWorkload",
    "workload description: a Tcl dict to load back and a fio job per flow",
    0,
    NULL,
    "workload",
    NULL,
    WorkloadWrite,
    NULL
};
