/*
 * readers.h --
 *
 *	The classes of the built-in trace readers of generic/io, registered
 *	by kit.c.
 */

#ifndef RB_READERS_H
#define RB_READERS_H

#include "rubicon.h"

extern const Rb_ReaderClass Rb_MsrReaderClass;
extern const Rb_ReaderClass Rb_SpcReaderClass;
extern const Rb_ReaderClass Rb_DiskSimReaderClass;
extern const Rb_ReaderClass Rb_CsvReaderClass;
extern const Rb_ReaderClass Rb_BlkparseReaderClass;
extern const Rb_ReaderClass Rb_BlktraceReaderClass;
extern const Rb_ReaderClass Rb_BlktracerReaderClass;
extern const Rb_ReaderClass Rb_BlockeventsReaderClass;
extern const Rb_ReaderClass Rb_AlibabaReaderClass;
extern const Rb_ReaderClass Rb_TencentReaderClass;
extern const Rb_ReaderClass Rb_OracleGeneralReaderClass;
extern const Rb_ReaderClass Rb_VscsiReaderClass;
extern const Rb_ReaderClass Rb_TwitterReaderClass;

#endif /* RB_READERS_H */
