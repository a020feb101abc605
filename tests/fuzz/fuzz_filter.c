/*
 * fuzz_filter.c --
 *
 *	libFuzzer harness for the filter language: compiles the input as an
 *	expression against the I/O schema and against a schema with string
 *	and double fields, and when it compiles runs it on a small batch,
 *	checking that the selection is an ascending subset of the input and
 *	that Rb_FilterMatch agrees with Rb_FilterSelect.
 *
 *	clang -g -O1 -fsanitize=fuzzer,address,undefined -Igeneric \
 *	    -I/usr/include/tcl8.6 tests/fuzz/fuzz_filter.c generic/filter/filter*.c \
 *	    generic/core/error.c generic/core/schema.c generic/core/batch.c \
 *	    generic/core/timefmt.c -ltcl8.6 -lm -o build/fuzz_filter
 *	./build/fuzz_filter -dict=tests/fuzz/filter.dict tests/fuzz/corpus/filter
 */

#include <stdlib.h>
#include <string.h>
#include "rubicon.h"

#ifdef USE_TCL_STUBS
/* The harness itself links libtcl directly and initializes the stubs
 * table that stub-compiled library objects call through. */
#undef Tcl_CreateInterp
#undef Tcl_FindExecutable
#endif

#define NREC 16

static Tcl_Interp *interp;

/*
 * FillIo --
 *	A batch of NREC I/O records with a spread of values: small and
 *	extreme integers, absent fields, reads and writes.
 */
static Rb_Batch *
FillIo(void)
{
    Rb_Batch *b = Rb_BatchCreate(Rb_IoSchema(), NREC);
    int i, f;

    for (i = 0; i < NREC; i++) {
	Rb_BatchAppend(b);
	for (f = 0; f < RB_IO_NFIELDS; f++) {
	    switch ((i + f) % 7) {
	    case 0: break;				/* absent */
	    case 1: b->col[f][i] = i; break;
	    case 2: b->col[f][i] = -i; break;
	    case 3: b->col[f][i] = (int64_t)i * 1000000000; break;
	    case 4: b->col[f][i] = INT64_MAX - i; break;
	    case 5: b->col[f][i] = RB_ABSENT + 1 + i; break;
	    default: b->col[f][i] = i % 2; break;
	    }
	}
    }
    return b;
}

/*
 * FillEvent --
 *	A schema with string, double and time fields and NREC records.
 */
static Rb_Batch *
FillEvent(Rb_Schema *s)
{
    static const double lat[] = {0, 1.5, -2.25, 1e300, -1e-300, 3};
    Rb_Batch *b;
    int i;

    Rb_SchemaAddField(s, "name", RB_FT_STRING, RB_UNIT_NONE, NULL);
    Rb_SchemaAddField(s, "lat", RB_FT_DOUBLE, RB_UNIT_NONE, NULL);
    Rb_SchemaAddField(s, "dur", RB_FT_DOUBLE, RB_UNIT_NS, NULL);
    Rb_SchemaAddField(s, "op", RB_FT_INT, RB_UNIT_NONE, NULL);
    b = Rb_BatchCreate(s, NREC);
    for (i = 0; i < NREC; i++) {
	Rb_BatchAppend(b);
	b->col[0][i] = (int64_t)i * 500000000;
	if (i % 5) {
	    b->col[1][i] = Rb_SchemaIntern(s, i % 2 ? "a" : "b", 1);
	    Rb_SetDouble(b, 2, i, lat[i % 6]);
	    Rb_SetDouble(b, 3, i, lat[(i + 1) % 6] * 1e9);
	}
	b->col[4][i] = i % 3 ? i % 2 : RB_ABSENT;
    }
    return b;
}

/*
 * Run --
 *	Compiles expr against b's schema and, if it compiles, runs it on
 *	every other record; aborts if an invariant fails.
 */
static void
Run(Rb_Batch *b, const char *expr)
{
    Rb_Error err;
    Rb_FilterProg *p = Rb_FilterCompile(b->schema, expr, &err);
    uint32_t in[NREC], out[NREC];
    int i, k, n, nIn = 0, field;
    int64_t value;

    if (p == NULL) {
	if (strncmp(err.code, "RUBICON FILTER ", 15) != 0
		|| strstr(err.msg, "column ") == NULL) {
	    abort();
	}
	return;
    }
    for (i = 0; i < NREC; i += 1 + (i % 3 == 1)) {
	in[nIn++] = (uint32_t)i;
    }
    n = Rb_FilterSelect(p, b, in, nIn, out);
    if (n < 0 || n > nIn) {
	abort();
    }
    for (i = 0, k = 0; i < nIn; i++) {
	int match = Rb_FilterMatch(p, b, (int)in[i]);

	if (match != (k < n && out[k] == in[i])) {
	    abort();
	}
	k += match;
    }
    if (k != n) {
	abort();
    }
    if (Rb_FilterIsEquality(p, &field, &value)) {
	for (i = 0; i < nIn; i++) {
	    if (Rb_FilterMatch(p, b, (int)in[i])
		    != (b->col[field][in[i]] == value)) {
		abort();
	    }
	}
    }
    if (strcmp(Rb_FilterSource(p), expr) != 0) {
	abort();
    }
    Rb_FilterFree(p);
}

/*
 * LLVMFuzzerInitialize --
 *	Creates an interpreter, which Tcl's hash tables (and, in a stubs
 *	build, the stubs table) need before any schema is made.
 */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    Tcl_FindExecutable((*argv)[0]);
    interp = Tcl_CreateInterp();
#ifdef USE_TCL_STUBS
    if (Tcl_InitStubs(interp, "8.6", 0) == NULL) {
	abort();
    }
#endif
    return 0;
}

/*
 * LLVMFuzzerTestOneInput --
 *	Runs one input, NUL-terminated (an embedded NUL ends the
 *	expression), against both schemas.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static Rb_Batch *io;
    char *expr = malloc(size + 1);
    Rb_Schema *s;
    Rb_Batch *ev;

    if (io == NULL) {
	io = FillIo();
    }
    memcpy(expr, data, size);
    expr[size] = '\0';
    Run(io, expr);

    /* A fresh event schema each time, so interned literals do not pile
     * up over a long run. */
    s = Rb_SchemaCreate("event");
    ev = FillEvent(s);
    Run(ev, expr);
    Rb_BatchFree(ev);
    Rb_SchemaRelease(s);
    free(expr);
    return 0;
}
