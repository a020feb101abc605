/*
 * fuzz_reader.h --
 *
 *	The body shared by the trace-reader fuzz harnesses: each input is
 *	written to a temporary file and read to the end through
 *	Rb_ReaderOpen with the format FUZZ_FORMAT and the skip policy, so the
 *	decompressors of Rb_Input are exercised too (inputs may start with
 *	gzip or bzip2 magic).  A harness defines FUZZ_FORMAT (and, for a
 *	reader that takes them, FUZZ_OPTIONS, its -readeroptions as a Tcl
 *	dict) and includes this file; see fuzz_srt.c for the build line.
 */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rubicon.h"

#ifdef USE_TCL_STUBS
/* The harness links libtcl directly and initializes the stubs table that
 * the stub-compiled library objects call through. */
#undef Tcl_CreateInterp
#undef Tcl_FindExecutable
#endif

void RbReaderKitInit(void);

static char inputPath[64];
static Tcl_Obj *readerOptions;

/*
 * LLVMFuzzerInitialize --
 *	Creates an interpreter (for the stubs table) and registers the
 *	readers.
 */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    Tcl_Interp *interp;

    Tcl_FindExecutable(NULL);
    interp = Tcl_CreateInterp();
    if (Tcl_InitStubs(interp, "8.6", 0) == NULL) {
	abort();
    }
    RbReaderKitInit();
#ifdef FUZZ_OPTIONS
    readerOptions = Tcl_NewStringObj(FUZZ_OPTIONS, -1);
    Tcl_IncrRefCount(readerOptions);
#endif
    snprintf(inputPath, sizeof(inputPath), "/tmp/rbfuzz-%s-%ld", FUZZ_FORMAT,
	    (long)getpid());
    return 0;
}

/*
 * LLVMFuzzerTestOneInput --
 *	Reads data as a trace of FUZZ_FORMAT to its end or first error,
 *	checking the invariants every reader keeps.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *fp = fopen(inputPath, "wb");
    Rb_Reader *r;
    Rb_Batch *b;
    Rb_Error err;
    int n;

    if (fp == NULL || fwrite(data, 1, size, fp) != size || fclose(fp) != 0) {
	abort();
    }
    r = Rb_ReaderOpen(inputPath, FUZZ_FORMAT, RB_ONERROR_SKIP, readerOptions,
	    &err);
    if (r == NULL) {
	if (err.code[0] == '\0' || strstr(err.msg, inputPath) == NULL) {
	    abort();		/* every error names the file */
	}
	return 0;
    }
    b = Rb_BatchCreate(r->schema, 64);
    do {
	Rb_BatchClear(b);
	n = Rb_ReaderNext(r, b, &err);
	if (n != b->n && n >= 0) {
	    abort();
	}
    } while (n > 0);
    if (n < 0 && strstr(err.msg, inputPath) == NULL) {
	abort();
    }
    Rb_BatchFree(b);
    Rb_ReaderClose(r);
    return 0;
}
