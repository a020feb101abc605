/*
 * fuzz_stardust.c --
 *
 *	libFuzzer harness for the binary Stardust activity-record reader
 *	(file header, record headers, length words, payload decoding of
 *	every attribute type of the standard type set).
 *
 *	clang -g -O1 -fsanitize=fuzzer,address,undefined -DUSE_TCL_STUBS \
 *	    -D_GNU_SOURCE -Igeneric -I/usr/include/tcl8.6 \
 *	    tests/fuzz/fuzz_stardust.c generic/plugins/stardust/reader.c \
 *	    generic/plugins/stardust/types.c \
 *	    $(ls generic/io/[a-z]*.c | grep -v traceWriter) generic/core/error.c \
 *	    generic/core/schema.c generic/core/batch.c \
 *	    -ltcl8.6 -ltclstub8.6 -lz -lbz2 -lm -o build/fuzz_stardust
 *	./build/fuzz_stardust tests/fuzz/corpus/stardust
 *
 *	The plugin's readers are not among RbReaderKitInit's, so the
 *	harness registers this one before the first input.
 */

#include "plugins/stardust/stardust.h"

#define FUZZ_FORMAT "stardust"
#include "fuzz_reader.h"

__attribute__((constructor)) static void
RegisterStardustReader(void)
{
    Rb_RegisterReader(&Sd_BinaryReaderClass);
}
