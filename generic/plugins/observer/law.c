/*
 * law.c --
 *
 *	observer::law: the operational laws (Denning and Buzen, 1978;
 *	Lazowska et al. 1984, ch. 3) as one command, so that demands and
 *	populations can be derived from measured Attributes:
 *	  utilization  U = X D          demand     D = U / X
 *	  little       N = X (R + Z)    forcedflow Xk = Vk X
 *	  response     R = N / X - Z    (interactive response time law)
 *	as the thesis's Table 3.2 gives them (Thereska 2007, section
 *	3.3), Z the think time (default 0).
 */

#include <string.h>
#include "observer.h"

typedef struct Law {
    const char *name;
    const char *args[3];	/* option names (without -), NULL-ended */
} Law;

static const Law laws[] = {
    {"utilization", {"throughput", "demand", NULL}},
    {"demand", {"utilization", "throughput", NULL}},
    {"little", {"throughput", "response", "think"}},
    {"forcedflow", {"throughput", "visits", NULL}},
    {"response", {"population", "throughput", "think"}},
};

/*
 * RbObsLawCmd --
 *	observer::law NAME -opt value ...: the law's result as a double.
 *	think defaults to 0; every other option is required.
 */
int
RbObsLawCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const names[] = {"utilization", "demand", "little",
	"forcedflow", "response", NULL};
    double v[3] = {0, 0, 0}, r = 0;
    int have[3] = {0, 0, 0};
    int li, i, a;
    const Law *law;

    if (objc < 2 || objc % 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "law -option value ...");
	return TCL_ERROR;
    }
    if (Tcl_GetIndexFromObj(interp, objv[1], names, "law", 0, &li)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    law = &laws[li];
    for (i = 2; i < objc; i += 2) {
	const char *opt = Tcl_GetString(objv[i]);

	for (a = 0; a < 3 && law->args[a]; a++) {
	    if (opt[0] == '-' && strcmp(opt + 1, law->args[a]) == 0) {
		break;
	    }
	}
	if (a == 3 || law->args[a] == NULL) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		    "law %s takes -%s -%s%s%s, not %s", law->name, law->args[0],
		    law->args[1], law->args[2] ? " ?-" : "",
		    law->args[2] ? "think?" : "", opt);
	}
	if (Tcl_GetDoubleFromObj(interp, objv[i + 1], &v[a]) != TCL_OK) {
	    return TCL_ERROR;
	}
	have[a] = 1;
    }
    for (a = 0; a < 2; a++) {
	if (!have[a]) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		    "law %s needs -%s", law->name, law->args[a]);
	}
    }
    switch (li) {
    case 0: case 3: r = v[0] * v[1]; break;
    case 2: r = v[0] * (v[1] + v[2]); break;
    case 1: case 4:
	if (v[1] <= 0) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		    "law %s needs a positive -throughput", law->name);
	}
	r = li == 1 ? v[0] / v[1] : v[0] / v[1] - v[2];
	break;
    }
    Tcl_SetObjResult(interp, Tcl_NewDoubleObj(r));
    return TCL_OK;
}
