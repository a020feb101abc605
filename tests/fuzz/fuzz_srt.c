/*
 * fuzz_srt.c --
 *
 *	libFuzzer harness for the SRT reader (and Rb_Input beneath it).
 *
 *	clang -g -O1 -fsanitize=fuzzer,address,undefined -DUSE_TCL_STUBS \
 *	    -D_GNU_SOURCE -Igeneric -I/usr/include/tcl8.6 tests/fuzz/fuzz_srt.c \
 *	    generic/io/input.c generic/io/srt.c generic/io/native.c \
 *	    generic/io/kit.c generic/io/reader.c generic/core/error.c \
 *	    generic/core/schema.c generic/core/batch.c -ltcl8.6 -ltclstub8.6 -lz -lbz2 -lm \
 *	    -o build/fuzz_srt
 *	./build/fuzz_srt tests/fuzz/corpus/srt
 */

#define FUZZ_FORMAT "srt"
#include "fuzz_reader.h"
