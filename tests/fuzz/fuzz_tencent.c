/*
 * fuzz_tencent.c --
 *
 *	libFuzzer harness for the tencent reader (Tencent CBS block traces, CSV).
 *	Built and run by tests/fuzz/run.sh (see fuzz_srt.c for the build
 *	line; the io sources are those of run.sh).
 */

#define FUZZ_FORMAT "tencent"

#include "fuzz_reader.h"
