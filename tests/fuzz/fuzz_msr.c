/*
 * fuzz_msr.c --
 *
 *	libFuzzer harness for the msr reader (and the shared line parsing of text.c).
 *	Built and run by tests/fuzz/run.sh (see fuzz_srt.c for the build
 *	line; the io sources are those of run.sh).
 */

#define FUZZ_FORMAT "msr"

#include "fuzz_reader.h"
