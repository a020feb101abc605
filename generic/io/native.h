/*
 * native.h --
 *
 *	Rubicon's own trace format ("native"): a gzip stream holding the
 *	schema and columnar blocks of little-endian int64 values.  The layout
 *	is in doc/native.n.
 */

#ifndef RB_NATIVE_H
#define RB_NATIVE_H

#include "rubicon.h"

extern const Rb_ReaderClass Rb_NativeReaderClass;

typedef struct Rb_NativeWriter Rb_NativeWriter;

/* Starts writing records of schema (whose time 0 is Unix ns epochNs) to
 * path; the data goes to "path.tmp-PID" until RbNativeWriterClose (to
 * path itself when it is "-", a device or a FIFO).  With interp, bytes
 * count against its safe mode -outlimit.  Returns NULL with err set
 * ("RUBICON NATIVE WRITE") on failure. */
Rb_NativeWriter *RbNativeWriterOpen(Tcl_Interp *interp, const char *path,
		    Rb_Schema *schema, int64_t epochNs, Rb_Error *err);
/* Appends records sel[0..nsel) of b (all of b when sel is NULL; b has
 * the writer's schema).  Returns TCL_OK or TCL_ERROR with err set; after
 * an error the file will not be kept. */
int		RbNativeWriterWrite(Rb_NativeWriter *w, const Rb_Batch *b,
		    const uint32_t *sel, int nsel, Rb_Error *err);
/* Finishes the file and renames it to its path, or on any earlier or
 * present failure removes it and sets err naming the path.  Frees w
 * either way.  Returns TCL_OK or TCL_ERROR. */
int		RbNativeWriterClose(Rb_NativeWriter *w, Rb_Error *err);

/* Removes the unfinished file and frees w (NULL is ignored). */
void		RbNativeWriterAbort(Rb_NativeWriter *w);

#endif /* RB_NATIVE_H */
