/*
 * native.h --
 *
 *	Rubicon's own trace format ("native"): the schema and columnar
 *	blocks of little-endian int64 values, each column compressed by zstd
 *	or stored raw (version 2), or the whole a gzip stream (version 1).
 *	The layout is in doc/native.n.
 */

#ifndef RB_NATIVE_H
#define RB_NATIVE_H

#include "rubicon.h"

extern const Rb_ReaderClass Rb_NativeReaderClass;

typedef struct Rb_NativeWriter Rb_NativeWriter;

/* How the writer compresses (TraceWriter -compression). */
enum {
    RB_NATIVE_ZSTD,		/* version 2, columns zstd (the default) */
    RB_NATIVE_NONE,		/* version 2, columns raw: memory-mapped */
    RB_NATIVE_GZIP		/* version 1, a gzip member per block */
};

/* Starts writing records of schema (whose time 0 is Unix ns epochNs) to
 * path, compressed as compression (RB_NATIVE_ZSTD ...); the data goes to
 * "path.tmp-PID" until RbNativeWriterClose.  Returns NULL with err set
 * ("RUBICON NATIVE WRITE") on failure. */
Rb_NativeWriter *RbNativeWriterOpen(const char *path, Rb_Schema *schema,
		    int64_t epochNs, int compression, Rb_Error *err);
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

/* Whether a split run may cut the file r reads into ranges of blocks
 * (RbInputWindow, RB_WINDOW_BLOCKS): a version 1 file that is gzip, or
 * a version 2 file read through a memory map, without string fields. */
int		RbNativeSplittable(const Rb_Reader *r);

#endif /* RB_NATIVE_H */
