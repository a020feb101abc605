/*
 * ioInt.h --
 *
 *	Helpers shared by the trace readers of generic/io.
 */

#ifndef RB_IO_INT_H
#define RB_IO_INT_H

#include <stdarg.h>
#include "core/rbInt.h"

/*
 * Rb_ReaderBadFatal --
 *	A malformed record after which the next record cannot be found
 *	(a wrong length word, a broken block): counts it through
 *	Rb_ReaderBad like any other, but stops reading under every policy.
 * Results: always 1; err names the file, record and byte offset.
 */
static inline int
Rb_ReaderBadFatal(Rb_Reader *r, Rb_Error *err, const char *kind,
	uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static inline int
Rb_ReaderBadFatal(Rb_Reader *r, Rb_Error *err, const char *kind,
	uint64_t offset, const char *fmt, ...)
{
    char detail[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    if (Rb_ReaderBad(r, err, kind, offset, "%s", detail) == 0) {
	Rb_SetError(err, "RUBICON READER CORRUPT",
		"%s: record %llu at byte offset %llu: %s (%s); the next "
		"record cannot be found, reading stops", Rb_InputPath(r->in),
		(unsigned long long)r->recordNo, (unsigned long long)offset,
		detail, kind);
    }
    return 1;
}

#endif /* RB_IO_INT_H */
