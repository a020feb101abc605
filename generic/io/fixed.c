/*
 * fixed.c --
 *
 *	What the binary readers of fixed-length records free (their read
 *	loop, RbFixedNext, is inline in fixed.h, so that each reader's parse
 *	proc is inlined into it).
 */

#include <stdlib.h>
#include <string.h>
#include "io/fixed.h"

/*
 * RbFixedFree --
 *	Frees what RbFixedNext allocated (for a reader's close hook).
 */
void
RbFixedFree(Rb_Fixed *fx)
{
    free(fx->buf);
    fx->buf = NULL;
}
