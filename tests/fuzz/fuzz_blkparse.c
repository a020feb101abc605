/*
 * fuzz_blkparse.c --
 *
 *	libFuzzer harness for the blkparse text reader and the request pairing beneath it.
 *	Built and run by tests/fuzz/run.sh (see fuzz_srt.c for the build
 *	line; the io sources are those of run.sh).
 */

#define FUZZ_FORMAT "blkparse"

#include "fuzz_reader.h"
