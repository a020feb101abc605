/*
 * fuzz_blktracer.c --
 *
 *	libFuzzer harness for the ftrace blk tracer text reader,
 *	the ftrace line head and the request pairing beneath it.
 *	Built and run by tests/fuzz/run.sh (see fuzz_srt.c for the build
 *	line; the io sources are those of run.sh).
 */

#define FUZZ_FORMAT "blktracer"

#include "fuzz_reader.h"
