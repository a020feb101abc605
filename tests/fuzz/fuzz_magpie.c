/*
 * fuzz_magpie.c --
 *
 *	libFuzzer harness for the Magpie event-log reader (schema
 *	discovery, line splitting, exact seconds, attribute typing).
 *
 *	clang -g -O1 -fsanitize=fuzzer,address,undefined -DUSE_TCL_STUBS \
 *	    -D_GNU_SOURCE -Igeneric -I/usr/include/tcl8.6 \
 *	    tests/fuzz/fuzz_magpie.c generic/plugins/magpie/eventlog.c \
 *	    generic/plugins/magpie/schema.c \
 *	    $(ls generic/io/[a-z]*.c | grep -v traceWriter) generic/core/error.c \
 *	    generic/core/schema.c generic/core/batch.c \
 *	    -ltcl8.6 -ltclstub8.6 -lz -lbz2 -lm -o build/fuzz_magpie
 *	./build/fuzz_magpie tests/fuzz/corpus/magpie
 *
 *	The readers registered by RbReaderKitInit do not include the
 *	plugin's, so the harness registers it before the first input.
 */

#include "plugins/magpie/magpie.h"

#define FUZZ_FORMAT "magpie"
#include "fuzz_reader.h"

__attribute__((constructor)) static void
RegisterMagpieReader(void)
{
    Rb_RegisterReader(&MgEventLogReaderClass);
}
