/*
 * fuzz_magpiecsv.c --
 *
 *	libFuzzer harness for the Magpie CSV event-log reader (header,
 *	RFC 4180 quoting across lines, schema discovery from the header and
 *	the first megabyte, attribute typing).  Built and run by run.sh like
 *	fuzz_magpie.c, with generic/plugins/magpie/csvlog.c added.
 */

#include "plugins/magpie/magpie.h"

#define FUZZ_FORMAT "magpiecsv"
#include "fuzz_reader.h"

__attribute__((constructor)) static void
RegisterMagpieCsvReader(void)
{
    Rb_RegisterReader(&MgCsvLogReaderClass);
}
