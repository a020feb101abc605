/*
 * srt.h --
 *
 *	The HP SRT v7 block-I/O trace reader ("srt"), see doc/srt.n.
 */

#ifndef RB_SRT_H
#define RB_SRT_H

#include "rubicon.h"

extern const Rb_ReaderClass Rb_SrtReaderClass;

/* The text header of an open SRT trace (without its closing form feed),
 * or NULL when r is not an SRT reader. */
const char *	RbSrtHeader(const Rb_Reader *r);

#endif /* RB_SRT_H */
