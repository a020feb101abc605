/*
 * util.h --
 *
 *	Helpers shared by the built-in Reporters: the (flow, attribute)
 *	walk, number and cell formatting, CSV and JSON string quoting, and
 *	safe file names.  They use only the public interface, as a plugin
 *	Reporter would.
 */

#ifndef RB_REPORT_UTIL_H
#define RB_REPORT_UTIL_H

#include "rubicon.h"

/* Enough for any double formatted by RbReportNum. */
#define RB_NUMBUF 40

/*
 * Every (flow, attribute) a reporter is bound to, grouped by bound flow:
 * items[first[i]] .. items[first[i+1]-1] belong to flows[i].  A flow with
 * no attributes has an empty range, so reporters can still mention it.
 */
typedef struct Rb_ReportItem {
    const Rb_Flow *flow;
    const Rb_Attribute *attr;
} Rb_ReportItem;

typedef struct Rb_ReportSet {
    int nflows;
    Rb_Flow **flows;
    int *first;			/* nflows + 1 entries */
    int nitems;
    int cap;
    Rb_ReportItem *items;
    int named;			/* The reporter names its Attributes. */
} Rb_ReportSet;

int		RbReportCollect(Rb_Reporter *r, Rb_ReportSet *set);
void		RbReportSetFree(Rb_ReportSet *set);

/* A one-file report: body writes everything to fp. */
typedef void (Rb_ReportBody)(FILE *fp, const Rb_RunInfo *run,
	const Rb_ReportSet *set);
int		RbReportWriteFile(Rb_Reporter *r, const Rb_RunInfo *run,
		    Rb_ReportBody *body);

const char *	RbReportNum(double v, char *buf);
const char *	RbReportRounded(double v, char *buf);
const char *	RbReportRoundedCell(const Rb_Attribute *a, int row, int col,
		    char *buf);
const char *	RbReportCell(const Rb_Attribute *a, int row, int col,
		    char *buf);
const char *	RbReportColUnit(const Rb_Attribute *a, int col);

void		RbReportCsvField(FILE *fp, const char *s);
void		RbReportJsonNum(FILE *fp, double v);
void		RbReportHtmlString(FILE *fp, const char *s);

/* File names made from flow and attribute names, unique per report. */
typedef struct Rb_ReportNames {
    Tcl_HashTable used;
} Rb_ReportNames;

void		RbReportNamesInit(Rb_ReportNames *names);
void		RbReportNamesFree(Rb_ReportNames *names);
const char *	RbReportFileName(Rb_ReportNames *names, const char *flow,
		    const char *attr, Tcl_DString *out);
void		RbReportSanitize(const char *s, Tcl_DString *out);
void		RbReportJoinPath(const char *dir, const char *name,
		    const char *ext, Tcl_DString *out);
int		RbReportOpen(Tcl_Interp *interp, const char *dir,
		    const char *name, const char *ext, Rb_Out *out);
int		RbReportMkdir(Tcl_Interp *interp, const char *path);
int		RbReportOnPath(const char *program);

/* The gnuplot pictures of a set (reporterGraph.c); done hears of each.
 * logMode is -logscale: RB_LOG_AUTO, or 0 / 1 to force a linear or a
 * logarithmic value axis on histograms and percentiles. */
#define RB_LOG_AUTO (-1)
typedef void (Rb_GraphDone)(void *cd, const Rb_Flow *flow, const char *base,
	const char *title);
int		RbReportGraphs(Tcl_Interp *interp, const char *dir,
		    const Rb_ReportSet *set, int render, int logMode,
		    Rb_GraphDone *done, void *cd);
int		RbReportLogMode(Tcl_Interp *interp, const char *value,
		    int *mode);

#endif /* RB_REPORT_UTIL_H */
