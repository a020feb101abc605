/*
 * error.c --
 *
 *	Error values and their conversion to Tcl results with -errorcode.
 */

#include <stdarg.h>
#include <string.h>
#include "rbInt.h"

/*
 * Rb_SetError --
 *	Fills err with an errorcode (space-separated words) and a message.
 */
void
Rb_SetError(Rb_Error *err, const char *code, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL) {
	return;
    }
    snprintf(err->code, sizeof(err->code), "%s", code);
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
}

/*
 * Rb_ErrorToInterp --
 *	Sets the interpreter result and -errorcode from err.
 * Results: TCL_ERROR always, so callers can "return Rb_ErrorToInterp()".
 */
int
Rb_ErrorToInterp(Tcl_Interp *interp, const Rb_Error *err)
{
    Tcl_Obj *code;

    Tcl_SetObjResult(interp, Tcl_NewStringObj(err->msg, -1));
    code = Tcl_NewStringObj(err->code[0] ? err->code : "RUBICON ERROR", -1);
    Tcl_SetObjErrorCode(interp, code);
    return TCL_ERROR;
}

/*
 * Rb_SetInterpError --
 *	Formats a message into the interpreter result with an errorcode.
 * Results: TCL_ERROR.
 */
int
Rb_SetInterpError(Tcl_Interp *interp, const char *code, const char *fmt, ...)
{
    Rb_Error err;
    va_list ap;

    snprintf(err.code, sizeof(err.code), "%s", code);
    va_start(ap, fmt);
    vsnprintf(err.msg, sizeof(err.msg), fmt, ap);
    va_end(ap);
    return Rb_ErrorToInterp(interp, &err);
}

/*
 * Rb_Alloc, Rb_Realloc, Rb_Strdup --
 *	Allocation that never returns NULL: running out of memory ends the
 *	process with a message rather than corrupting results.
 */
void *
Rb_Alloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);

    if (p == NULL) {
	Tcl_Panic("rubicon: out of memory allocating %zu bytes", n);
    }
    return p;
}

void *
Rb_Realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);

    if (q == NULL) {
	Tcl_Panic("rubicon: out of memory allocating %zu bytes", n);
    }
    return q;
}

char *
Rb_Strdup(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    char *d = Rb_Alloc(n);

    memcpy(d, s ? s : "", n);
    return d;
}
