/*
 * fuzz_blktrace.c --
 *
 *	libFuzzer harness for the blktrace binary reader and the request pairing beneath it.
 *	Built and run by tests/fuzz/run.sh (see fuzz_srt.c for the build
 *	line; the io sources are those of run.sh).
 */

#define FUZZ_FORMAT "blktrace"

#include "fuzz_reader.h"
