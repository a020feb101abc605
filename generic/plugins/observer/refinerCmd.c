/*
 * refinerCmd.c --
 *
 *	observer::refiner: observation-based refinement from Tcl.
 *
 *	  observer::refiner create ?-tolerance t? ?-minsplit n?
 *		?-criterion variance|entropy? ?-maxdepth n? ?-minleaf n?
 *		?-categorical {feature ...}? ?-catsplit subset|onevsrest?
 *		?-mingain g? ?-cost {over O under U}?
 *	  $r seed FEATURES VALUE	the model's answer at a point
 *	  $r observe FEATURES VALUE	what was measured there
 *	  $r predict FEATURES		{value v confidence c seeded s
 *					 observations n}
 *	  $r stats			{seeds n observations n leaves n}
 *	  $r tree			the regression tree (RbRefinerTree)
 *	  $r delete
 *
 *	FEATURES is a list of numbers, as long at every call as at the
 *	first.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "observer.h"

typedef struct RefinerCmd {
    Rb_Refiner *refiner;	/* NULL until the first point fixes the
				 * number of features. */
    double tolerance;
    int minSplit;
    int criterion, maxDepth, minLeaf;
    int catSplit;		/* RB_REFINE_SUBSET or RB_REFINE_ONE */
    double minGain;		/* -mingain */
    double costOver, costUnder;	/* -cost, 0 0 for none */
    Tcl_Obj *categorical;	/* Feature indices (0-based), or NULL. */
    Tcl_Command token;
} RefinerCmd;

static int refinerCounter;

/*
 * GetPoint --
 *	Parses a feature list into a malloc'd array, creating the refiner
 *	at the first point; the length must match the refiner's.
 */
static int
GetPoint(Tcl_Interp *interp, RefinerCmd *rc, Tcl_Obj *obj, double **x)
{
    Tcl_Obj **v;
    int n, i;

    if (Tcl_ListObjGetElements(interp, obj, &n, &v) != TCL_OK) {
	return TCL_ERROR;
    }
    if (n == 0 || (rc->refiner && n != RbRefinerFeatures(rc->refiner))) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		"expected %d features, got %d", rc->refiner
		? RbRefinerFeatures(rc->refiner) : 1, n);
    }
    *x = Rb_AllocArray(n, sizeof(double));
    for (i = 0; i < n; i++) {
	if (Tcl_GetDoubleFromObj(interp, v[i], &(*x)[i]) != TCL_OK) {
	    free(*x);
	    return TCL_ERROR;
	}
    }
    if (rc->refiner == NULL) {
	unsigned char *cat = Rb_Alloc(n);
	Tcl_Obj **c;
	int nc, k, f;

	Tcl_ListObjGetElements(NULL, rc->categorical, &nc, &c);
	for (k = 0; k < nc; k++) {
	    if (Tcl_GetIntFromObj(interp, c[k], &f) != TCL_OK || f < 0
		    || f >= n) {
		free(cat);
		free(*x);
		return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
			"categorical feature \"%s\" is not one of 0..%d",
			Tcl_GetString(c[k]), n - 1);
	    }
	    cat[f] = (unsigned char) rc->catSplit;
	}
	rc->refiner = RbRefinerCreate(n, rc->tolerance, rc->minSplit);
	RbRefinerSetSplitting(rc->refiner, (Rb_RefineCriterion)
		rc->criterion, rc->maxDepth, rc->minLeaf, cat);
	RbRefinerSetGain(rc->refiner, rc->minGain);
	RbRefinerSetCost(rc->refiner, rc->costOver, rc->costUnder);
	free(cat);
    }
    return TCL_OK;
}

/*
 * RefinerObjCmd --
 *	Dispatches a refiner's subcommands.
 */
static int
RefinerObjCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const subs[] = {"seed", "observe", "predict",
	"stats", "tree", "delete", NULL};
    enum { SEED, OBSERVE, PREDICT, STATS, TREE, DELETE };
    RefinerCmd *rc = cd;
    double *x, y, seeded, value, stddev, min, max, allMean, allStddev;
    int64_t confidence, observed, seeds, observations;
    int sub, leaves;

    if (objc < 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "subcommand ?arg ...?");
	return TCL_ERROR;
    }
    if (Tcl_GetIndexFromObj(interp, objv[1], subs, "subcommand", 0, &sub)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    switch (sub) {
    case SEED:
    case OBSERVE:
	if (objc != 4) {
	    Tcl_WrongNumArgs(interp, 2, objv, "features value");
	    return TCL_ERROR;
	}
	if (Tcl_GetDoubleFromObj(interp, objv[3], &y) != TCL_OK
		|| GetPoint(interp, rc, objv[2], &x) != TCL_OK) {
	    return TCL_ERROR;
	}
	if (sub == SEED) {
	    RbRefinerSeed(rc->refiner, x, y);
	} else {
	    RbRefinerObserve(rc->refiner, x, y);
	}
	free(x);
	return TCL_OK;
    case PREDICT:
	if (objc != 3) {
	    Tcl_WrongNumArgs(interp, 2, objv, "features");
	    return TCL_ERROR;
	}
	if (GetPoint(interp, rc, objv[2], &x) != TCL_OK) {
	    return TCL_ERROR;
	}
	value = RbRefinerPredict(rc->refiner, x, &seeded, &confidence,
		&observed);
	if (!RbRefinerSpread(rc->refiner, x, &stddev, &min, &max, &allMean,
		&allStddev)) {
	    stddev = allStddev = 0;
	    min = max = allMean = value;
	}
	free(x);
	Tcl_SetObjResult(interp, Tcl_ObjPrintf("value %.17g confidence %lld "
		"seeded %.17g observations %lld stddev %.17g min %.17g "
		"max %.17g mean %.17g spread %.17g", value,
		(long long) confidence, seeded, (long long) observed, stddev,
		min, max, allMean, allStddev));
	return TCL_OK;
    case STATS:
	seeds = observations = 0;
	leaves = 1;
	if (rc->refiner) {
	    RbRefinerStats(rc->refiner, &seeds, &observations, &leaves);
	}
	Tcl_SetObjResult(interp, Tcl_ObjPrintf("seeds %lld observations %lld "
		"leaves %d", (long long) seeds, (long long) observations,
		leaves));
	return TCL_OK;
    case TREE:
	Tcl_SetObjResult(interp, rc->refiner ? RbRefinerTree(rc->refiner)
		: Tcl_NewStringObj("leaf observations 0 correction 0.0", -1));
	return TCL_OK;
    case DELETE:
	Tcl_DeleteCommandFromToken(interp, rc->token);
	return TCL_OK;
    }
    return TCL_OK;
}

/*
 * RefinerDelete --
 *	Frees a refiner when its command goes.
 */
static void
RefinerDelete(ClientData cd)
{
    RefinerCmd *rc = cd;

    if (rc->refiner) {
	RbRefinerFree(rc->refiner);
    }
    Tcl_DecrRefCount(rc->categorical);
    free(rc);
}

/*
 * RbObsRefinerCmd --
 *	observer::refiner create ?-tolerance t? ?-minsplit n? ?-criterion
 *	entropy|variance? (default entropy, the thesis's information gain)
 *	?-maxdepth n? ?-minleaf n? ?-categorical list?
 *	?-catsplit subset|onevsrest? (default subset for the variance
 *	criterion; onevsrest for entropy, for which subset is refused):
 *	makes a refiner command and returns its name.
 */
int
RbObsRefinerCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const opts[] = {"-tolerance", "-minsplit",
	"-criterion", "-maxdepth", "-minleaf", "-categorical", "-catsplit",
	"-mingain", "-cost", NULL};
    static const char *const criteria[] = {"variance", "entropy", NULL};
    static const char *const catSplits[] = {"subset", "onevsrest", NULL};
    enum { TOL, MINSPLIT, CRITERION, MAXDEPTH, MINLEAF, CATEGORICAL,
	CATSPLIT, MINGAIN, COST };
    RefinerCmd *rc;
    double tolerance = 0.05, minGain = 0.5, cost[2] = {0, 0};
    int criterionGiven = 0;
    int minSplit = 6, criterion = RB_REFINE_ENTROPY, maxDepth = 40;
    int minLeaf = 1, i, idx;
    int n, catSplit = -1;
    Tcl_Obj *categorical = NULL, **elems;
    char name[64];

    if (objc < 2 || objc % 2 || strcmp(Tcl_GetString(objv[1]), "create")) {
	Tcl_WrongNumArgs(interp, 1, objv, "create ?-tolerance t? "
		"?-minsplit n? ?-criterion variance|entropy? ?-maxdepth n? "
		"?-minleaf n? ?-categorical {feature ...}? "
		"?-catsplit subset|onevsrest? ?-mingain g? "
		"?-cost {over O under U}?");
	return TCL_ERROR;
    }
    for (i = 2; i < objc; i += 2) {
	if (Tcl_GetIndexFromObj(interp, objv[i], opts, "option", 0, &idx)
		!= TCL_OK) {
	    return TCL_ERROR;
	}
	switch (idx) {
	case TOL:
	    if (Tcl_GetDoubleFromObj(interp, objv[i + 1], &tolerance)
		    != TCL_OK) {
		return TCL_ERROR;
	    }
	    if (!(tolerance > 0)) {
		return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
			"-tolerance must be positive");
	    }
	    break;
	case MINSPLIT: case MAXDEPTH: case MINLEAF: {
	    int v, least = idx == MINSPLIT ? 2 : idx == MINLEAF ? 1 : 0;

	    if (Tcl_GetIntFromObj(interp, objv[i + 1], &v) != TCL_OK) {
		return TCL_ERROR;
	    }
	    if (v < least || (idx == MAXDEPTH && v > 40)) {
		return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
			"%s must be %s", opts[idx], idx == MAXDEPTH
			? "from 0 to 40" : idx == MINSPLIT ? "at least 2"
			: "at least 1");
	    }
	    *(idx == MINSPLIT ? &minSplit : idx == MAXDEPTH ? &maxDepth
		    : &minLeaf) = v;
	    break;
	}
	case CRITERION:
	    if (Tcl_GetIndexFromObj(interp, objv[i + 1], criteria,
		    "criterion", 0, &criterion) != TCL_OK) {
		return TCL_ERROR;
	    }
	    criterionGiven = 1;
	    break;
	case COST: {
	    static const char *const sides[] = {"over", "under", NULL};
	    int k, side;
	    double c[2] = {-1, -1};

	    if (Tcl_ListObjGetElements(interp, objv[i + 1], &n, &elems)
		    != TCL_OK) {
		return TCL_ERROR;
	    }
	    for (k = 0; k + 1 < n; k += 2) {
		if (Tcl_GetIndexFromObj(interp, elems[k], sides, "cost", 0,
			&side) != TCL_OK || Tcl_GetDoubleFromObj(interp,
			elems[k + 1], &c[side]) != TCL_OK) {
		    return TCL_ERROR;
		}
	    }
	    if (n != 4 || !(c[0] > 0) || !(c[1] > 0) || isinf(c[0])
		    || isinf(c[1])) {
		return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
			"-cost wants {over O under U}, both positive: the "
			"cost per unit of predicting above and below what "
			"is observed");
	    }
	    cost[0] = c[0];
	    cost[1] = c[1];
	    break;
	}
	case CATEGORICAL:
	    if (Tcl_ListObjGetElements(interp, objv[i + 1], &n, &elems)
		    != TCL_OK) {
		return TCL_ERROR;
	    }
	    categorical = objv[i + 1];
	    break;
	case MINGAIN:
	    if (Tcl_GetDoubleFromObj(interp, objv[i + 1], &minGain)
		    != TCL_OK) {
		return TCL_ERROR;
	    }
	    break;
	case CATSPLIT:
	    if (Tcl_GetIndexFromObj(interp, objv[i + 1], catSplits,
		    "category split", 0, &catSplit) != TCL_OK) {
		return TCL_ERROR;
	    }
	    break;
	}
    }
    if (cost[0] > 0) {
	if (criterionGiven) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		    "-cost chooses splits by the misprediction cost: give "
		    "no -criterion with it");
	}
	criterion = RB_REFINE_COST;
    }
    if (!(minGain > 0) || (criterion != RB_REFINE_ENTROPY
	    && minGain > 1)) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		"-mingain must be positive, and at most 1 (a share of the "
		"squared deviation) for -criterion variance, or of the cost "
		"for -cost");
    }
    if (catSplit == 0 && criterion == RB_REFINE_COST) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		"-catsplit subset needs -criterion variance; with -cost use "
		"-catsplit onevsrest");
    }
    if (catSplit == 0 && criterion == RB_REFINE_ENTROPY) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		"-catsplit subset needs -criterion variance: ordering the "
		"categories by mean residual finds the best subset for the "
		"squared deviation (Breiman et al. 1984), not for the entropy "
		"of the residuals' ten buckets; use -catsplit onevsrest");
    }
    if (catSplit < 0) {
	catSplit = criterion != RB_REFINE_VARIANCE ? 1 : 0;
    }
    rc = Rb_Alloc(sizeof(*rc));
    rc->refiner = NULL;
    rc->tolerance = tolerance;
    rc->minSplit = minSplit;
    rc->criterion = criterion;
    rc->maxDepth = maxDepth;
    rc->minLeaf = minLeaf;
    rc->minGain = minGain;
    rc->costOver = cost[0];
    rc->costUnder = cost[1];
    rc->catSplit = catSplit == 0 ? RB_REFINE_SUBSET : RB_REFINE_ONE;
    rc->categorical = categorical ? categorical : Tcl_NewObj();
    Tcl_IncrRefCount(rc->categorical);
    snprintf(name, sizeof(name), "::observer::refiner%d", ++refinerCounter);
    rc->token = Tcl_CreateObjCommand(interp, name, RefinerObjCmd, rc,
	    RefinerDelete);
    Tcl_SetObjResult(interp, Tcl_NewStringObj(name, -1));
    return TCL_OK;
}
