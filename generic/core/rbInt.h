/*
 * rbInt.h --
 *
 *	Declarations private to the Rubicon core: the DAG node structure, the
 *	engine's registries, and the kit initializers of each folder.
 */

#ifndef RB_INT_H
#define RB_INT_H

/* Bytes after the end of a line from Rb_InputGetLine (its NUL) that may
 * be read: parsers load 8 bytes at a time without checking for the end. */
#define RB_INPUT_PAD 16

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <math.h>
#include "rubicon.h"

/* Kit initializers: each folder registers its built-in classes. */
int		RbAnalyzerKitInit(Tcl_Interp *interp);
int		RbReporterKitInit(Tcl_Interp *interp);
int		RbTransformerKitInit(Tcl_Interp *interp);
void		RbReaderKitInit(void);
int		RbIoCommandsInit(Tcl_Interp *interp);	/* TraceWriter */
/* The C loops of rubicon report's writer (reporters/traceReport.c). */
int		RbTraceReportInitCmds(Tcl_Interp *interp);

/* Helpers shared by the core files. */

/* The fields a compiled filter reads (filter.c). */
uint64_t	RbFilterFields(const Rb_FilterProg *p);
void		RbFilterSetTimeBase(Rb_FilterProg *p, int64_t base);
int		RbFilterKeyOn(const Rb_FilterProg *p, int field, int64_t *lo,
		    int64_t *hi, int *residual);
int		RbFilterSelectResidual(const Rb_FilterProg *p, int field,
		    const Rb_Batch *b, const uint32_t *in, int nIn,
		    uint32_t *out);

/* Temporary files being written, removed by a signal that ends the
 * process at once (temps.c). */
void		RbTempAdd(const char *path);
void		RbTempForget(const char *path);
void		RbTempRemoveAll(void);

/* Options (options.c). */
int		RbOptionsDefault(Tcl_Interp *interp, const Rb_Option *opts,
		    void *state);
/* Validates the options just stored (a class's init hook); called by a
 * configure once with the new values and, if anything refused them, again
 * with the old. */
typedef int (Rb_OptionsCheckProc)(void *checkData, Tcl_Interp *interp);
int		RbOptionsConfigure(Tcl_Interp *interp, const Rb_Option *opts,
		    void *state, int objc, Tcl_Obj *const objv[],
		    const Rb_Option *extra, void *extraState,
		    Rb_OptionsCheckProc *check, void *checkData);
int		RbOptionsCget(Tcl_Interp *interp, const Rb_Option *opts,
		    void *state, Tcl_Obj *name);
Tcl_Obj *	RbOptionsList(const Rb_Option *opts, void *state);
void		RbOptionsFree(const Rb_Option *opts, void *state);
int		RbOptionsSplit(int objc, Tcl_Obj *const objv[]);
int		RbOptionsCommand(Tcl_Interp *interp, int objc,
		    Tcl_Obj *const objv[], const Rb_Option *opts, void *state,
		    const Rb_Option *extra, void *extraState,
		    Rb_OptionsCheckProc *check, void *checkData);

extern const char Rb_LibraryScript[];
const Rb_Stubs *	RbStubsTable(void);

/* Input from the middle of a file (io/input.c), for split runs: how its
 * records are found (mode), the true line and byte offset of the window's
 * start for messages, whether it ended before the file did. */
#define RB_WINDOW_LINES 0	/* Lines (plain, or gzip/bzip2 members). */
#define RB_WINDOW_SRT 1		/* Plain SRT length-prefixed records. */
#define RB_WINDOW_BLOCKS 2	/* Native blocks: gzip members that each
				 * begin one, or (a plain file) the blocks
				 * of format 2 that begin in the range,
				 * which its reader finds itself
				 * (RbInputBlockWindow). */
#define RB_WINDOW_SRT_RESYNC 3	/* Plain SRT, cut where record heads line
				 * up: only for cut points at least
				 * RB_RESYNC_SPACING bytes apart. */
#define RB_WINDOW_FIXED 4	/* Fixed-length records (vscsi,
				 * oraclegeneral): cut at whole records
				 * from the data's start
				 * (RbInputSetRecordLength); plain, or zstd
				 * frames that declare their sizes
				 * (RbInputZstdSized). */
#define RB_RESYNC_SPACING 131072
int		RbInputWindow(Rb_Input *in, uint64_t begin, uint64_t end,
		    int mode, Rb_Error *err);
void		RbInputBases(Rb_Input *in, uint64_t *lines, uint64_t *bytes);
/* Rb_InputOpen; with regularOnly, refuses anything but a regular file,
 * without blocking (for files a reader opens that nobody named). */
Rb_Input *	RbInputOpenFile(const char *path, int regularOnly,
		    Rb_Error *err);
int		RbInputWindowCut(const Rb_Input *in, int *late);
int		RbInputWindowShort(const Rb_Input *in);
void		RbInputSetRecordLength(Rb_Input *in, size_t len);
size_t		RbInputRecordLength(const Rb_Input *in);
int		RbInputZstdSized(const Rb_Input *in);
int		RbInputBlockWindow(const Rb_Input *in, uint64_t *begin,
		    uint64_t *end);
int		RbInputPlainFd(const Rb_Input *in);
/* Bytes of the file read so far (compressed ones), from any thread. */
uint64_t	RbInputRawOffset(const Rb_Input *in);
/* Built-in classes whose hooks keep to their own state (parallel.c). */
int		RbAnalyzerClassBuiltin(const Rb_AnalyzerClass *cls);
int		RbTransformerClassBuiltin(const Rb_TransformerClass *cls);
/* The text of rubicon::run's progress line (see Progress in run.c). */
void		RbProgressText(char *buf, size_t size, const char *file,
		    uint64_t records, uint64_t bytes, uint64_t raw,
		    uint64_t total, double elapsed, int final);

/* Removes "path.tmp-PID" files left by processes that no longer exist
 * (out.c); every writer of such files calls it before making its own. */
void		RbOutRemoveStale(const char *path);
/* Outputs (out.c): whether path is written in place (stdout, a device, a
 * FIFO) instead of through a renamed temporary; a descriptor for path as
 * every output is written (*tmpPath NULL when in place); a stream over it
 * counted against safe mode's -outlimit. */
int		RbOutInPlace(const char *path);
int		RbOutCreate(const char *path, char **tmpPath);
FILE *		RbOutFdopen(Tcl_Interp *interp, int fd);
/* Safe mode's -outlimit (safe.c): whether it was reached; the error
 * RUBICON SAFE LIMIT OUTPUT naming path.  (RbSafeOutputTake: engine.h.) */
int		RbSafeOutputReached(Tcl_Interp *interp);
int		RbSafeOutputError(Tcl_Interp *interp, const char *path);
/* Safe mode: TCL_OK if a reader may open path, a file the user did not
 * name but a named trace implies (a blktrace's per-CPU siblings). */
int		RbSafeCheckImpliedRead(const char *path, Rb_Error *err);
/* Safe mode's interpreter is gone: stops the -timelimit watchdog and
 * forgets the implied-read list. */
void		RbSafeEnd(void);

/* The schema named by a Filter's -schema (io, or a registered name with
 * an optional ":arg"), with a reference; NULL with err set if unknown. */
Rb_Schema *	RbNamedSchema(const char *spec, Rb_Error *err);
int64_t		RbSchemaLookup(const Rb_Schema *s, const char *str,
		    size_t len);
int64_t		RbSchemaStringCount(const Rb_Schema *s);

/*
 * The engine without Tcl wiring (engine.c): for C unit tests and for
 * embedding.  Objects made here have no Tcl command.
 */
void		RbRunInfoInit(Rb_RunInfo *run, Tcl_Interp *interp,
		    Rb_Schema *schema);
void		RbRunInfoFree(Rb_RunInfo *run);
Rb_Flow *	RbFlowCreate(Tcl_Interp *interp, const char *name);
void		RbFlowDelete(Rb_Flow *flow);
/* Makes an analyzer with "-opt value" arguments; NULL with an error in
 * the interpreter result. */
Rb_Analyzer *	RbAnalyzerCreate(Tcl_Interp *interp,
		    const Rb_AnalyzerClass *cls, int objc,
		    Tcl_Obj *const objv[]);
void		RbAnalyzerDelete(Rb_Analyzer *a);
int		RbFlowAddAnalyzer(Tcl_Interp *interp, Rb_Flow *flow,
		    Rb_Analyzer *a);
/* Start every analyzer, push batches, end in dependency order. */
int		RbFlowStart(Rb_Flow *flow, const Rb_RunInfo *run);
void		RbFlowPush(Rb_Flow *flow, const Rb_Batch *b,
		    const uint32_t *sel, int nsel);
int		RbFlowEnd(Rb_Flow *flow, const Rb_RunInfo *run);
/* RbFlowPush with the analyzers given (RbFlowPushId, toolbox.h). */
void		RbFlowPushTo(Rb_Flow *flow, Rb_Analyzer *const *ana, int n,
		    const Rb_Batch *b, const uint32_t *sel, int nsel);
void		RbFlowSetAttr(Rb_Flow *flow, Rb_Attribute *attr);
/* The first error of work that goes on past failures (error.c). */
void		RbErrorKeep(Tcl_Interp *interp, Tcl_Obj **result,
		    Tcl_Obj **options);
int		RbErrorRaise(Tcl_Interp *interp, Tcl_Obj **result,
		    Tcl_Obj **options);
/* Leaves out the middle of every run of more than minRun empty rows of a
 * series (a "time" column first, every other cell 0 or NaN); returns how
 * many rows it left out, also added to a->elided. */
int64_t		RbAttrElideEmptyRuns(Rb_Attribute *a, int minRun);
/* Attribute names of a flow, sorted; caller frees the array only. */
const char **	RbFlowAttrNames(const Rb_Flow *flow, int *count);
Rb_Reporter *	RbReporterCreate(Tcl_Interp *interp,
		    const Rb_ReporterClass *cls, int nflows, Rb_Flow **flows,
		    int objc, Tcl_Obj *const objv[]);
int		RbReporterWrite(Rb_Reporter *r, const Rb_RunInfo *run);
void		RbReporterDelete(Rb_Reporter *r);
Rb_Transformer *RbTransformerCreate(Tcl_Interp *interp,
		    const Rb_TransformerClass *cls, int objc,
		    Tcl_Obj *const objv[]);
void		RbTransformerDelete(Rb_Transformer *t);

#endif /* RB_INT_H */
