/*
 * fuzz_alibaba.c --
 *
 *	libFuzzer harness for the alibaba reader (Alibaba Cloud block traces, CSV).
 *	Built and run by tests/fuzz/run.sh (see fuzz_srt.c for the build
 *	line; the io sources are those of run.sh).
 */

#define FUZZ_FORMAT "alibaba"

#include "fuzz_reader.h"
