/*
 * fuzz_native.c --
 *
 *	libFuzzer harness for the native-format reader (and Rb_Input beneath it).
 *
 *	clang -g -O1 -fsanitize=fuzzer,address,undefined -DUSE_TCL_STUBS \
 *	    -D_GNU_SOURCE -Igeneric -I/usr/include/tcl8.6 tests/fuzz/fuzz_native.c \
 *	    generic/io/input.c generic/io/srt.c generic/io/native.c \
 *	    generic/io/nativeCols.c generic/io/ring.c generic/io/kit.c generic/io/reader.c generic/core/error.c \
 *	    generic/core/schema.c generic/core/batch.c -ltcl8.6 -ltclstub8.6 -lz -lbz2 -lzstd -lm \
 *	    -o build/fuzz_native
 *	./build/fuzz_native tests/fuzz/corpus/native
 */

#define FUZZ_FORMAT "native"
#include "fuzz_reader.h"
