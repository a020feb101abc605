/*
 * fuzz_zipkin.c --
 *
 *	libFuzzer harness for the Zipkin v2 JSON reader (span collection,
 *	shared halves, parent links, record ordering).  Built like
 *	fuzz_stardust.c with generic/plugins/stardust/zipkin.c,
 *	-DHAVE_JANSSON and -ljansson.
 */

#include "plugins/stardust/stardust.h"

#define FUZZ_FORMAT "zipkin"
#include "fuzz_reader.h"

__attribute__((constructor)) static void
RegisterZipkinReader(void)
{
    Rb_RegisterReader(&Sd_ZipkinReaderClass);
}
