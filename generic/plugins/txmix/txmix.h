/*
 * txmix.h --
 *
 *	Internal interface of the transaction-mix plugin (Kelly and Zhang,
 *	HPL-2006-76): exact least-absolute-residuals and least-squares
 *	regression, the models built on per-window transaction counts and
 *	utilizations, and their evaluation.  Matrices are dense, row-major
 *	arrays of doubles (row i, column j at [i * ncols + j]).
 */

#ifndef TXMIX_H
#define TXMIX_H

#include "rubicon.h"

/* Registers the plugin's classes and commands in interp (init.c). */
int		RbTxmixInit(Tcl_Interp *interp);

/* Calibration methods. */
typedef enum TxMethod {
    TX_LAR = 0,			/* least absolute residuals (exact L1) */
    TX_OLS			/* ordinary least squares */
} TxMethod;

/* Models of y_i, the summed response time of window i. */
typedef enum TxModel {
    TX_BASIC = 0,		/* sum_j a_j N_ij */
    TX_EXTENDED,		/* + n_i sum_r a_r U_ir / (1 - U_ir) */
    TX_COMPOSITE,		/* Extended fitted on measured U, fed U
				 * predicted from N (the paper's) */
    TX_COMPOSITE_REFIT,		/* Extended fitted on U predicted from N */
    TX_NAIVE,			/* + sum_r a_r U_ir (linear in U) */
    TX_SCALAR_BASIC,		/* the same five with n_i = sum_j N_ij in */
    TX_SCALAR_EXTENDED,		/* place of the vector N_i. */
    TX_SCALAR_COMPOSITE,
    TX_SCALAR_COMPOSITE_REFIT,
    TX_SCALAR_NAIVE,
    TX_NMODELS
} TxModel;

/* Utilizations are clamped below 1 so that U/(1-U) stays finite. */
#define TX_UMAX (1.0 - 1e-3)

/* The windows a model is fitted on: m windows, J types, R resources. */
typedef struct TxData {
    int m, J, R;
    const double *N;		/* m x J counts */
    const double *U;		/* m x R utilizations in [0,1], or NULL */
    const double *y;		/* m summed response times */
} TxData;

/* A calibrated model. */
typedef struct TxFit {
    TxModel model;
    TxMethod method;
    int intercept;
    int p;			/* Terms of the y model. */
    double *coef;		/* p coefficients (intercept first) */
    double *ucoef;		/* Composite: R x (J'+1) utilization model */
    int uterms;			/* J' + 1 */
    double objective;		/* Fit criterion on the training windows. */
} TxFit;

extern const char *const Rb_TxmixModelNames[];

int	RbTxmixLar(int n, int p, const double *X, const double *y,
	    double *coef, double *objective, int *iterations);
int	RbTxmixOls(int n, int p, const double *X, const double *y,
	    double *coef, double *sse);
int	RbTxmixRegress(TxMethod method, int n, int p, const double *X,
	    const double *y, double *coef, double *objective);

int	RbTxmixModelTerms(TxModel model, int J, int R, int intercept,
	    char ***names);
int	RbTxmixFit(const TxData *d, TxModel model, TxMethod method,
	    int intercept, const unsigned char *train, TxFit *fit,
	    char *errBuf, size_t errLen);
void	RbTxmixPredict(const TxData *d, const TxFit *fit, int lo, int hi,
	    double *yhat);
void	RbTxmixFitFree(TxFit *fit);

/* Accuracy of predictions over the windows where mask is set (all when
 * mask is NULL). */
typedef struct TxAccuracy {
    int n;			/* Windows with y > 0 counted. */
    double aggregate;		/* sum |e| / sum y */
    double median;		/* median |e|/y */
    double p10, p25, p75, p90, max;
} TxAccuracy;

void	RbTxmixAccuracy(int m, const double *y, const double *yhat,
	    const unsigned char *mask, TxAccuracy *acc);
double	RbTxmixMedian(double *v, int n);

/* Which windows a model is calibrated on. */
typedef enum TxScheme {
    TX_ALL = 0,			/* every window */
    TX_PREFIX,			/* the first fraction, in time order */
    TX_LOWUTIL			/* the fraction least utilized (resource r) */
} TxScheme;

extern const char *const Rb_TxmixSchemeNames[];

int	RbTxmixTrainMask(const TxData *d, TxScheme scheme, double fraction,
	    int r, unsigned char *train);
int	RbTxmixAnomalies(const TxData *d, TxModel model, TxMethod method,
	    int intercept, int span, double threshold, double *score,
	    unsigned char *flag, char *errBuf, size_t errLen);

int	RbTxmixCommandsInit(Tcl_Interp *interp);
int	RbTxmixAnalyzerInit(Tcl_Interp *interp);
int	RbTxmixReporterInit(Tcl_Interp *interp);

#endif /* TXMIX_H */
