/*
 * reporterTxmix.c --
 *
 *	ReporterTxmix: for every TxMixFit attribute of its Flows, writes a
 *	data file and a gnuplot script drawing the paper's three views:
 *	measured y against predicted with the lines y = x, y = 2x and
 *	y = x/2; the residual time series; and the CDF of |e_i|/y_i.
 *	Files are OUTPUT-FLOW.dat and OUTPUT-FLOW.gp; run gnuplot on the
 *	script to get OUTPUT-FLOW-{scatter,residuals,cdf}.png.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/txmix/txmix.h"

/*
 * CompareDoubles --
 *	qsort order for doubles, ascending.
 */
static int
CompareDoubles(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;

    return a < b ? -1 : a > b;
}

/*
 * WriteFit --
 *	Writes the data file and the script for one Flow's TxMixFit.
 * Results: TCL_OK, or TCL_ERROR when a file cannot be written.
 */
static int
WriteFit(Rb_Reporter *r, const Rb_Flow *flow, const Rb_Attribute *attr,
	void *cd)
{
    Tcl_Interp *interp = r->interp;
    int ct = Rb_AttrColumnIndex(attr, "time");
    int cy = Rb_AttrColumnIndex(attr, "y");
    int cp = Rb_AttrColumnIndex(attr, "predicted");
    Tcl_Obj *base, *datPath, *gpPath;
    double *rel;
    int i, n = 0, result = TCL_ERROR;
    Rb_Out out;

    if (strcmp(attr->name, "TxMixFit") != 0 || ct < 0 || cy < 0 || cp < 0) {
	return TCL_OK;
    }
    base = Tcl_ObjPrintf("%s-%s", r->output, Rb_FlowName(flow));
    datPath = Tcl_ObjPrintf("%s.dat", Tcl_GetString(base));
    gpPath = Tcl_ObjPrintf("%s.gp", Tcl_GetString(base));
    Tcl_IncrRefCount(base);
    Tcl_IncrRefCount(datPath);
    Tcl_IncrRefCount(gpPath);
    rel = Rb_AllocArray(attr->nrows + 1, sizeof(double));

    /* Block 0: time y predicted residual; block 1: sorted |e|/y, CDF. */
    if (Rb_OutOpen(interp, Tcl_GetString(datPath), &out) != TCL_OK) {
	goto done;
    }
    fprintf(out.fp, "# time y predicted residual\n");
    for (i = 0; i < attr->nrows; i++) {
	double y = Rb_AttrNum(attr, i, cy), p = Rb_AttrNum(attr, i, cp);

	fprintf(out.fp, "%.9g %.9g %.9g %.9g\n", Rb_AttrNum(attr, i, ct), y,
		p, y - p);
	if (y > 0) {
	    rel[n++] = fabs(y - p) / y;
	}
    }
    qsort(rel, n, sizeof(double), CompareDoubles);
    fprintf(out.fp, "\n\n# |e|/y cumulative-fraction\n");
    for (i = 0; i < n; i++) {
	fprintf(out.fp, "%.9g %.9g\n", rel[i], (double)(i + 1) / n);
    }
    if (Rb_OutClose(interp, &out) != TCL_OK) {
	goto done;
    }

    if (Rb_OutOpen(interp, Tcl_GetString(gpPath), &out) != TCL_OK) {
	goto done;
    }
    fprintf(out.fp,
	    "set terminal png size 800,600\n"
	    "dat = '%s'\n"
	    "set output '%s-scatter.png'\n"
	    "set title 'flow %s: measured vs predicted summed response time'\n"
	    "set xlabel 'predicted (s)'\nset ylabel 'measured y (s)'\n"
	    "set key top left\n"
	    "plot dat index 0 using 3:2 with points pt 7 ps 0.5 title 'windows', "
	    "x title 'y = x', 2*x title 'y = 2x', x/2 title 'y = x/2'\n"
	    "set output '%s-residuals.png'\n"
	    "set title 'flow %s: residuals'\n"
	    "set xlabel 'time (s)'\nset ylabel 'y - predicted (s)'\n"
	    "plot dat index 0 using 1:4 with impulses title 'residual'\n"
	    "set output '%s-cdf.png'\n"
	    "set title 'flow %s: CDF of relative error'\n"
	    "set xlabel '|e|/y'\nset ylabel 'fraction of windows'\n"
	    "set logscale x\n"
	    "plot dat index 1 using 1:2 with steps title '|e|/y'\n",
	    Tcl_GetString(datPath), Tcl_GetString(base), Rb_FlowName(flow),
	    Tcl_GetString(base), Rb_FlowName(flow), Tcl_GetString(base),
	    Rb_FlowName(flow));
    result = Rb_OutClose(interp, &out);

  done:
    free(rel);
    Tcl_DecrRefCount(base);
    Tcl_DecrRefCount(datPath);
    Tcl_DecrRefCount(gpPath);
    return result;
}

/*
 * ReporterTxmixWrite --
 *	Writes the files of every bound TxMixFit.
 */
static int
ReporterTxmixWrite(Rb_Reporter *r, const Rb_RunInfo *run)
{
    return Rb_ReporterEach(r, WriteFit, NULL);
}

static const Rb_ReporterClass reporterTxmixClass = {
    .name = "ReporterTxmix",
    .help = "gnuplot scripts for transaction-mix fits: y vs predicted "
	    "with y=x, 2x, x/2; residuals; CDF of |e|/y",
    .stateSize = 0,
    .options = NULL,
    .defaultOutput = "txmix",
    .write = ReporterTxmixWrite,
};

/*
 * RbTxmixReporterInit --
 *	Registers the ReporterTxmix class.
 */
int
RbTxmixReporterInit(Tcl_Interp *interp)
{
    return Rb_RegisterReporter(interp, &reporterTxmixClass);
}
