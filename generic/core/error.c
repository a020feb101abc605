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
 *	Fills err with an errorcode (space-separated words) and a message
 *	formatted from fmt; both are cut to fit their fixed-size arrays.
 * Results: none.
 * Side effects: overwrites err->code and err->msg; nothing when err is
 *	NULL.
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
 * Side effects: interp's result becomes err->msg and its -errorcode
 *	err->code, or "RUBICON ERROR" when err->code is empty.
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
 * Side effects: as Rb_ErrorToInterp: sets interp's result and
 *	-errorcode (message cut at 1023 bytes, code at 63).
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
 * RbErrorKeep, RbErrorRaise --
 *	For work that goes on past a failure (ending every Analyzer, merging
 *	every shard): RbErrorKeep keeps interp's error in *result and
 *	*options unless one is kept already, and clears interp's result;
 *	RbErrorRaise puts the kept one back in interp and releases it.
 * Results: RbErrorRaise: TCL_ERROR when an error was kept, else TCL_OK.
 */
void
RbErrorKeep(Tcl_Interp *interp, Tcl_Obj **result, Tcl_Obj **options)
{
    if (*result == NULL) {
	*result = Tcl_GetObjResult(interp);
	*options = Tcl_GetReturnOptions(interp, TCL_ERROR);
	Tcl_IncrRefCount(*result);
	Tcl_IncrRefCount(*options);
    }
    Tcl_ResetResult(interp);
}

int
RbErrorRaise(Tcl_Interp *interp, Tcl_Obj **result, Tcl_Obj **options)
{
    if (*result == NULL) {
	return TCL_OK;
    }
    Tcl_SetObjResult(interp, *result);
    Tcl_SetReturnOptions(interp, *options);
    Tcl_DecrRefCount(*result);
    Tcl_DecrRefCount(*options);
    *result = *options = NULL;
    return TCL_ERROR;
}

/*
 * OutOfMemory --
 *	Ends the process through Tcl_Panic: a request for n bytes could not
 *	be met (or, with count and size, their product overflows a size_t).
 */
static void
OutOfMemory(size_t count, size_t size)
{
    /* Through Tcl_Panic, so that safe mode's panic handler can end the
     * run with RUBICON SAFE LIMIT MEMORY instead of an abort. */
    if (size == 0) {
	Tcl_Panic("rubicon: out of memory allocating %zu bytes", count);
    } else {
	Tcl_Panic("rubicon: cannot allocate %zu items of %zu bytes "
		"(more than the address space)", count, size);
    }
}

/*
 * Rb_Alloc --
 *	Allocation that never returns NULL: running out of memory ends the
 *	process with a message rather than corrupting results.
 * Results: n bytes (at least one), zeroed; free() releases them.
 * Side effects: allocates; Tcl_Panic (which aborts, or in safe mode
 *	ends with RUBICON SAFE LIMIT MEMORY) when memory is exhausted.
 */
void *
Rb_Alloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);

    if (p == NULL) {
	OutOfMemory(n, 0);
    }
    return p;
}

/*
 * Rb_Realloc --
 *	realloc that never returns NULL, as Rb_Alloc; p may be NULL.
 * Results: the block resized to n bytes (at least one), possibly moved;
 *	bytes past the old size are not zeroed.
 * Side effects: frees or reuses p; Tcl_Panic when memory is exhausted.
 */
void *
Rb_Realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);

    if (q == NULL) {
	OutOfMemory(n, 0);
    }
    return q;
}

/*
 * Rb_AllocArray --
 *	Rb_Alloc of count items of size bytes, the product checked: one
 *	that overflows a size_t ends the process with a message instead of
 *	allocating a smaller block than the caller will use.
 * Results: count * size bytes, zeroed; free() releases them.
 * Side effects: allocates; Tcl_Panic on overflow or exhaustion.
 */
void *
Rb_AllocArray(size_t count, size_t size)
{
    size_t n;

    if (__builtin_mul_overflow(count, size, &n)) {
	OutOfMemory(count, size);
    }
    return Rb_Alloc(n);
}

/*
 * Rb_ReallocArray --
 *	Rb_Realloc of p to count items of size bytes, the product checked
 *	as in Rb_AllocArray.
 * Results: the block resized, possibly moved; new bytes not zeroed.
 * Side effects: frees or reuses p; Tcl_Panic on overflow or exhaustion.
 */
void *
Rb_ReallocArray(void *p, size_t count, size_t size)
{
    size_t n;

    if (__builtin_mul_overflow(count, size, &n)) {
	OutOfMemory(count, size);
    }
    return Rb_Realloc(p, n);
}

/*
 * Rb_Strdup --
 *	Copies a string into memory of its own; NULL is taken as "".
 * Results: the copy, NUL-terminated; free() releases it.
 * Side effects: allocates; Tcl_Panic when memory is exhausted.
 */
char *
Rb_Strdup(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    char *d = Rb_Alloc(n);

    memcpy(d, s ? s : "", n);
    return d;
}
